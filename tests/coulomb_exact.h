/* coulomb_exact.h: Den Hartog's exact steady state of a forced oscillator with Coulomb friction
 * (continuous sliding, two stops a cycle), for the tests that check a friction law or harmonic balance
 * against it (test_s4.c, test_hbm.c). */
#ifndef BR_COULOMB_EXACT_H
#define BR_COULOMB_EXACT_H

#include <criterion/criterion.h>
#include <math.h>

/* m x'' + k x + Ff sgn(x') = F0 cos(w t) over a half cycle of upward sliding from (x, x') = (-X, 0)
 * at t0, in closed form (wn = sqrt(k/m), P = F0/(k - m w^2)) -> x and x' at t0 + tau */
typedef struct coulomb_osc {
    double m, k, F0, w, Ff;
} coulomb_osc;

static inline void coulomb_half(const coulomb_osc *o, double X, double t0, double tau, double *x, double *v)
{
    const double wn = sqrt(o->k / o->m), P = o->F0 / (o->k - o->m * o->w * o->w);
    const double a = -X - P * cos(o->w * t0) + o->Ff / o->k, b = P * o->w * sin(o->w * t0) / wn;
    *x = a * cos(wn * tau) + b * sin(wn * tau) + P * cos(o->w * (t0 + tau)) - o->Ff / o->k;
    *v = -a * wn * sin(wn * tau) + b * wn * cos(wn * tau) - P * o->w * sin(o->w * (t0 + tau));
}

/* Den Hartog's steady state with two stops a cycle: the amplitude X and the phase t0 of the
 * minimum such that the half cycle ends at (X, 0); Newton on the closed form from several phases.
 * Checks that the block slides the whole half cycle and that at the stop the spring and the drive
 * exceed Ff (it turns back instead of sticking). Returns X. */
static inline double coulomb_amplitude(const coulomb_osc *o)
{
    const double T = M_PI / o->w, P = fabs(o->F0 / (o->k - o->m * o->w * o->w));
    for (int g = 0; g < 16; g++) {
        double X = P, t0 = g * T / 8.0, x, v;
        for (int it = 0; it < 100; it++) {
            const double e = 1e-9;
            double xa, va, xb, vb;
            coulomb_half(o, X, t0, T, &x, &v);
            coulomb_half(o, X + e, t0, T, &xa, &va);
            coulomb_half(o, X, t0 + e, T, &xb, &vb);
            const double f1 = x - X, f2 = v, J11 = (xa - X - e - f1) / e, J12 = (xb - X - f1) / e;
            const double J21 = (va - f2) / e, J22 = (vb - f2) / e, det = J11 * J22 - J12 * J21;
            if (det == 0.0) break;
            X -= (J22 * f1 - J12 * f2) / det, t0 -= (-J21 * f1 + J11 * f2) / det;
        }
        coulomb_half(o, X, t0, T, &x, &v);
        if (!(X > 0.0 && fabs(x - X) < 1e-12 && fabs(v) < 1e-9)) continue;
        double vmin = INFINITY;
        for (int i = 1; i < 400; i++) {
            coulomb_half(o, X, t0, T * i / 400.0, &x, &v);
            vmin = fmin(vmin, v);
        }
        const double hold = fabs(o->F0 * cos(o->w * (t0 + T)) - o->k * X);
        cr_assert(vmin > 0.0 && hold > o->Ff, "the exact answer is not continuous sliding (v_min %g, %g N at the stop)",
                  vmin, hold);
        return X;
    }
    cr_assert_fail("no continuous-sliding steady state found");
    return NAN;
}

#endif
