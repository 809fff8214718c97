/* test_laws.c: the friction model library of physics.md 3.6-3.8 and 4 at the level of one
 * point or one element: bristle2 in 3D against an independent 1-D implementation, the
 * friction cone under a turning sliding direction, gms pre-sliding hysteresis with
 * nonlocal memory, bristle_implicit's stick test and slip root, and the rotational
 * clutch's steady torque; jenkins (3.9): the exact parallelogram and its energy per cycle, a
 * circular path at the slip limit, separation. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/point_law.h"
#include "model/joint_friction.h"
#include "model/laws.h"
#include "field/patch.h"

/* S4a's parameters: mu_s 0.6, mu_d 0.3, v_A 0.01, alpha 1, sigma0 39000, sigma1 395, v_r = v_A/10 */
static br_friction_params s4a(double nu)
{
    br_friction_params p;
    memset(&p, 0, sizeof p);
    p.mu_s = 0.6, p.mu_k = 0.3, p.V_st = 0.01, p.alpha = 1.0, p.nu = nu;
    p.sigma0 = 39000.0, p.sigma1 = 395.0, p.v_r = 1e-3;
    return p;
}

/* ---- an independent 1-D bristle2, written from physics.md 3.6 in scalar form ---- */

static double mu1(const br_friction_params *p, double s)
{
    return p->mu_k + (p->mu_s - p->mu_k) * exp(-pow(s / p->V_st, p->alpha)) + p->nu * s;
}

static double f1(const br_friction_params *p, double s, double N) /* s >= 0 */
{
    if (s <= p->v_r) return p->mu_s * N * (s / p->v_r) * (2.0 - s / p->v_r);
    return mu1(p, s - p->v_r) * N;
}

/* one step of the same linearly implicit scheme in one dimension: z, q (tip sliding speed), R (the
 * velocity of the frame the tip's inertia is referred to: the ground on the regularization arc
 * |u| <= v_r, the body in sliding, the share g on the ground falling beyond the arc over v_r; R
 * follows (1 - g) V with a tenth of the tip's time constant, by implicit Euler) */
static double step1(const br_friction_params *p, double h, double V, double N, double *z, double *q, double *R)
{
    const double Fs = p->mu_s * N, F0 = p->sigma0 * *z + p->sigma1 * V;
    const double wF = fabs(F0) <= Fs ? 1.0 - sqrt(1.0 - fabs(F0) / Fs) : 1.0;
    const double u = *q + (F0 > 0 ? 1.0 : F0 < 0 ? -1.0 : 0.0) * p->v_r * wF;
    const double s = fabs(u), FR = (u > 0 ? 1.0 : u < 0 ? -1.0 : 0.0) * f1(p, s, N);
    const double slope = s <= p->v_r ? 2.0 * Fs * (1.0 - s / p->v_r) / p->v_r : p->nu * N;
    const double mb = p->sigma1 * p->sigma1 / (4.0 * p->sigma0);
    const double A = mb + h * p->sigma1 + h * h * p->sigma0 + h * slope;
    const double g = s <= p->v_r ? 1.0 : exp(-pow((s - p->v_r) / p->v_r, p->alpha)); /* ground share */
    const double tau = 0.1 * p->sigma1 / (2.0 * p->sigma0);
    const double dR = h / (tau + h) * ((1.0 - g) * V - *R);
    *q += (h * (p->sigma0 * *z + (p->sigma1 + h * p->sigma0) * (V - *q) - FR) + mb * dR) / A;
    *R += dR;
    *z += h * (V - *q);
    return p->sigma0 * *z + p->sigma1 * (V - *q);
}

Test(bristle2, reduces_to_the_1d_law_along_a_line)
{
    br_friction_params p = s4a(0.02);
    const double e[3] = {0.48, 0.6, 0.64}; /* unit: 0.2304 + 0.36 + 0.4096 */
    double st[9] = {0}, z = 0.0, q = 0.0, R = 0.0, worst = 0.0, scale = 0.0, perp = 0.0;
    const double h = 1e-5;
    for (int k = 0; k < 200000; k++) {
        const double t = k * h;
        /* speeds through stick, pre-sliding and sliding (up to 20 v_A), reversals, varying N */
        const double V = 0.2 * sin(2.0 * M_PI * 2.0 * t) * sin(2.0 * M_PI * 0.5 * t);
        const double N = 9.81 * (1.0 + 0.5 * sin(2.0 * M_PI * 3.0 * t));
        const double Vt[3] = {V * e[0], V * e[1], V * e[2]};
        double F[3], P;
        br_law_bristle2(&p, h, Vt, fabs(V), N, st, 1, F, &P, NULL);
        const double F1 = step1(&p, h, V, N, &z, &q, &R);
        const double Fa = br_dot3(F, e), za = st[0] * e[0] + st[1] * e[1] + st[2] * e[2];
        const double qa = st[3] * e[0] + st[4] * e[1] + st[5] * e[2];
        worst = fmax(worst, fmax(fabs(Fa - F1) / (p.mu_s * 9.81 * 1.5), fabs(za - z) * p.sigma0 / (p.mu_s * 9.81 * 1.5)));
        worst = fmax(worst, fabs(qa - q) / 0.2);
        double Fp[3];
        for (int j = 0; j < 3; j++) Fp[j] = F[j] - Fa * e[j];
        perp = fmax(perp, br_norm3(Fp) / (p.mu_s * 9.81 * 1.5));
        scale = fmax(scale, fabs(F1));
    }
    cr_log_info("bristle2 3D along a line vs 1-D: worst relative difference %.3g, force across the line %.3g "
                "(of F_s), largest |F| %.4g N",
                worst, perp, scale);
    cr_assert(scale > 0.9 * p.mu_k * 9.81, "the history must reach sliding (largest |F| %g N)", scale);
    cr_assert(worst <= 1e-12, "3D along a line differs from the 1-D law by %.3g (relative)", worst);
    cr_assert(perp <= 1e-12, "force across the line %.3g of F_s", perp);
}

Test(bristle2, tip_force_stays_in_the_friction_cone_under_a_turning_slip)
{
    br_friction_params p = s4a(0.0);
    double st[9] = {0}, worst = 0.0, over = 0.0, over_stop = 0.0;
    const double h = 1e-5, N = 9.81, Fs = p.mu_s * N;
    long slipping = 0;
    for (int k = 0; k < 300000; k++) {
        const double t = k * h;
        /* speed ramps from 0 to 0.05 m/s over 1 s while its direction turns at 2 rev/s,
         * then stops abruptly: pre-sliding, sliding in a turning direction, re-stick */
        const double sp = t < 1.0 ? 0.05 * t : (t < 2.0 ? 0.05 : 0.0), th = 2.0 * M_PI * 2.0 * t;
        const double Vt[3] = {sp * cos(th), sp * sin(th), 0.0};
        double u[3], FR[3], s, f, z[3] = {st[0], st[1], st[2]}, q[3] = {st[3], st[4], st[5]};
        br_bristle2_tip(&p, Vt, N, z, q, u, FR, &s, &f, NULL);
        worst = fmax(worst, br_norm3(FR) / Fs);
        double F[3], P;
        br_law_bristle2(&p, h, Vt, sp, N, st, 1, F, &P, NULL);
        if (t < 2.0) over = fmax(over, br_norm3(F) / Fs);
        else over_stop = fmax(over_stop, br_norm3(F) / Fs);
        slipping += s > p.v_r;
    }
    cr_log_info("bristle2, turning slip: max |F_R| / (mu_s N) = %.12f; max transmitted |F| / (mu_s N) = %.6f "
                "while turning, %.4f at the abrupt stop (sigma1 times the speed jump); %ld slipping steps",
                worst, over, over_stop, slipping);
    cr_assert(slipping > 100000, "the history must slide (%ld slipping steps)", slipping);
    cr_assert(worst <= 1.0 + 1e-9, "|F_R| = %.12f mu_s N leaves the friction cone", worst);
}

/* prescribed 1-D displacement history through the waypoints at speed vs -> force at each step end */
static int gms_path(const br_friction_params *p, const double *wp, int nwp, double vs, double h, double *xs,
                    double *Fs, int cap)
{
    double st[3 * BR_GMS_MAX] = {0}, x = wp[0];
    int n = 0;
    for (int k = 1; k < nwp; k++) {
        const double dir = wp[k] > wp[k - 1] ? 1.0 : -1.0;
        const long steps = lround(fabs(wp[k] - wp[k - 1]) / (vs * h));
        for (long i = 0; i < steps && n < cap; i++) {
            const double Vt[3] = {dir * vs, 0.0, 0.0};
            double F[3], P;
            br_law_gms(p, h, Vt, vs, 10.0, st, 1, F, &P, NULL);
            x += dir * vs * h;
            xs[n] = x, Fs[n] = F[0], n++;
        }
    }
    return n;
}

/* history, x -> force at the step whose end is closest to x within [i0, i1) */
static double force_at(const double *xs, const double *Fs, int i0, int i1, double x)
{
    int best = i0;
    for (int i = i0; i < i1; i++)
        if (fabs(xs[i] - x) < fabs(xs[best] - x)) best = i;
    return Fs[best];
}

Test(gms, presliding_hysteresis_has_nonlocal_memory)
{
    br_friction_params p;
    memset(&p, 0, sizeof p);
    p.mu_s = 0.3, p.mu_k = 0.2, p.V_st = 1e-3, p.alpha = 2.0, p.nu = 0.0, p.sigma2 = 0.0;
    p.gms_M = 4, p.gms_C = 1.0;
    const double k[4] = {2e6, 1e6, 5e5, 2.5e5}, a[4] = {0.25, 0.25, 0.25, 0.25};
    for (int i = 0; i < 4; i++) p.gms_k[i] = k[i], p.gms_alpha[i] = a[i], p.gms_s[i] = 0.0;
    /* breakaway displacements alpha_i mu_s N / k_i: 0.375, 0.75, 1.5, 3 um */
    const double A = 4e-6, a1 = 1e-6, a2 = -2e-6, vs = 1e-6, h = 1e-3;
    static double xs[200000], Fs[200000], xr[200000], Fr[200000];
    const double inner[] = {0.0, A, -A, a1, a2, a1, A}, outer[] = {0.0, A, -A, A};
    const int n = gms_path(&p, inner, 7, vs, h, xs, Fs, 200000);
    const int nr = gms_path(&p, outer, 4, vs, h, xr, Fr, 200000);
    /* legs of 4, 8, 5, 3, 3, 3 um at um steps per micrometre */
    const double um = 1e-6 / (vs * h);
    const int up1_end = (int)lround((4 + 8 + 5) * um), down_end = (int)lround((4 + 8 + 5 + 3) * um);
    const int up2_end = (int)lround((4 + 8 + 5 + 3 + 3) * um);
    const double Fa1_first = Fs[up1_end - 1], Fa1_again = Fs[up2_end - 1];
    const double Fs_max = p.mu_s * 10.0;
    /* 1. the inner loop a1 -> a2 -> a1 closes: back at a1 the force is the one it left */
    const double close = fabs(Fa1_again - Fa1_first) / Fs_max;
    /* 2. beyond a1 the branch is the outer branch from -A, as if the inner loop never happened */
    double dev = 0.0;
    for (double x = a1 + 0.25e-6; x <= A; x += 0.25e-6)
        dev = fmax(dev, fabs(force_at(xs, Fs, up2_end, n, x) - force_at(xr, Fr, (int)lround(12 * um), nr, x)) / Fs_max);
    /* 3. hysteresis: at x = 0 the descending outer branch carries more force than the ascending one */
    const double Fdesc0 = force_at(xr, Fr, (int)lround(4 * um), (int)lround(12 * um), 0.0);
    const double Fasc0 = force_at(xr, Fr, (int)lround(12 * um), nr, 0.0);
    /* 4. the inner loop itself is hysteretic: at the midpoint of a1 and a2 the two passes differ */
    const double xm = 0.5 * (a1 + a2);
    const double Fdn = force_at(xs, Fs, up1_end, down_end, xm), Fup = force_at(xs, Fs, down_end, up2_end, xm);
    cr_log_info("gms: inner loop closes to %.3g of F_s; the branch after it follows the outer one within %.3g; "
                "outer loop at x = 0: %.4f N descending, %.4f N ascending; inner loop at %.2g m: %.4f / %.4f N",
                close, dev, Fdesc0, Fasc0, xm, Fdn, Fup);
    cr_assert(close <= 1e-6, "the inner loop does not close: %.3g of F_s", close);
    cr_assert(dev <= 1e-6, "after the inner loop the force leaves the outer branch by %.3g of F_s", dev);
    /* F is the drag along the motion: the ascending branch lies above the descending one */
    cr_assert(Fasc0 - Fdesc0 > 0.1 * Fs_max, "no hysteresis in the outer loop (%g vs %g N)", Fdesc0, Fasc0);
    cr_assert(Fup - Fdn > 0.05 * Fs_max, "no hysteresis in the inner loop (%g vs %g N)", Fdn, Fup);
    /* the force stays below the sliding force (all blocks at their limit, mu(v) N <= mu_s N) plus
     * what one stick step can add before a block that reached its limit slips: h vs sum k_i */
    double Fmax = 0.0, ksum = 0.0;
    for (int i = 0; i < n; i++) Fmax = fmax(Fmax, fabs(Fs[i]));
    for (int i = 0; i < 4; i++) ksum += k[i];
    cr_assert(Fmax <= Fs_max + h * vs * ksum, "gms force %g N above mu_s N + h v sum k = %g N", Fmax,
              Fs_max + h * vs * ksum);
}

Test(bristle_implicit, sticks_below_Fs_and_slips_on_the_characteristic)
{
    br_friction_params p = s4a(0.01);
    const double N = 9.81, Vt[3] = {0.02, 0.0, 0.0};
    /* stick: F_0 inside the cone -> zdot = Vt */
    const double Vk[3] = {0.002, 0.0, 0.0};
    double z[3] = {1e-5, 0.0, 0.0}, zd[3]; /* F_0 = 0.39 + 0.79 N */
    cr_assert_eq(br_bristle_implicit_rate(&p, Vk, N, z, zd), 1);
    cr_assert(zd[0] == Vk[0]);
    /* slip: F_0 = 7.8 + 7.9 N > F_s = 5.886 N; the balance F_R(v_S) = sigma0 z + sigma1 zdot */
    const double *Vs = Vt;
    double zs[3] = {2e-4, 0.0, 0.0};
    cr_assert_eq(br_bristle_implicit_rate(&p, Vs, N, zs, zd), 0);
    const double vS = Vs[0] - zd[0];
    const double lhs = mu1(&p, vS) * N, rhs = p.sigma0 * zs[0] + p.sigma1 * zd[0];
    cr_log_info("bristle_implicit slip root: v_S = %.12g m/s, F_R = %.15g N, sigma0 z + sigma1 zdot = %.15g N",
                vS, lhs, rhs);
    cr_assert(vS > 0.0);
    cr_assert(fabs(lhs - rhs) <= 1e-12 * rhs, "tip balance off by %g N", lhs - rhs);
}

/* The slip solve over slip speeds u = x / V_st from 1e-6 (just past stick) to 1e3 (fast sliding),
 * Stribeck exponents 0.5 to 4, c from half the steepest Stribeck slope of alpha = 2 (the balance
 * then has three roots over a range of g) to 233 times it. g is made from a known root; every
 * solve must end on it within 1e-12 relative, or on a root of the balance within the rounding of
 * its terms (16 ulp of the largest) where r rises (r' >= 0: the lowest or the highest of three,
 * never the middle one), and the one the rule of br_bristle_implicit_slip names. A solve from the bracket's middle missed here in a third of the cases
 * (near stick and at fast sliding); one from its lower end needed up to 16 steps where there
 * are three roots. */
Test(bristle_implicit, slip_root_over_every_speed_and_exponent)
{
    br_friction_params p;
    memset(&p, 0, sizeof p);
    p.mu_s = 0.15, p.mu_k = 0.1, p.V_st = 1e-3, p.nu = 0.01;
    const double N = 1.0, dN = (p.mu_s - p.mu_k) * N;
    const double steep = 0.8578 * dN / p.V_st; /* steepest Stribeck slope at alpha = 2 (sqrt(2/e)) */
    const double cs[] = {0.5 * steep, 0.8 * steep, 1.05 * steep, 1.4 * steep, 2.3 * steep, 9.2 * steep, 233.0 * steep};
    long n = 0, bad = 0, other = 0;
    for (int ia = 1; ia <= 8; ia++) {
        p.alpha = 0.5 * ia;
        /* the inflection point the solve splits its bracket at: E'' = 0 where alpha u^alpha = alpha - 1 */
        double Ei;
        const double ui = br_stribeck_inflection(p.alpha, &Ei);
        const double uia = p.alpha > 1.0 ? pow((p.alpha - 1.0) / p.alpha, 1.0 / p.alpha) : 0.0;
        cr_expect(fabs(ui - uia) <= 1e-15 && fabs(Ei - exp(-pow(uia, p.alpha))) <= 1e-15,
                  "alpha %.1f: inflection %.17g, E %.17g", p.alpha, ui, Ei);
        for (int ic = 0; ic < 7; ic++) {
            const double c = cs[ic], CV = (c + p.nu * N) * p.V_st;
            for (int k = 0; k <= 180; k++) {
                const double ut = pow(10.0, -6.0 + k * 9.0 / 180.0), x = ut * p.V_st;
                const double g = br_mu_static_reg(&p, x) * N + c * x;
                if (g <= p.mu_s * N) continue;
                const double u = br_bristle_implicit_slip(&p, c, g, N) / p.V_st;
                const double r0 = p.mu_k * N - g, w = br_pow_half(u, p.alpha), E = br_exp(-w);
                const double res = (r0 + dN * E) + CV * u, slope = CV * u - dN * p.alpha * w * E;
                const double noise = 16.0 * DBL_EPSILON * (fabs(r0) + dN + CV * u);
                const double falling = slope < -16.0 * DBL_EPSILON * (CV * u + dN * p.alpha * w * E);
                n++;
                const int same = fabs(u - ut) <= 1e-12 * ut;
                other += !same;
                /* which root: the lowest when r(u_i) >= 0 or the bracket lies below u_i (r < 0 on a
                 * grid of the bracket below u), the highest otherwise (r > 0 on a grid above u) */
                const double A = (g - p.mu_k * N) / CV, lo = A - dN / CV;
                const double ri = (r0 + dN * exp(-pow(uia, p.alpha))) + CV * uia;
                const int lowest = uia >= A || (uia > lo && ri >= 0.0);
                int wrong_side = 0;
                for (int q = 0; q <= 256; q++) {
                    const double v = lowest ? lo + (u * (1.0 - 1e-9) - lo) * q / 256.0
                                            : u * (1.0 + 1e-9) + (A - u * (1.0 + 1e-9)) * q / 256.0;
                    const double rv = (r0 + dN * exp(-pow(v, p.alpha))) + CV * v;
                    wrong_side |= lowest ? rv >= 0.0 && v < u * (1.0 - 1e-9) : rv <= 0.0 && v > u * (1.0 + 1e-9);
                }
                if (wrong_side) {
                    bad++;
                    cr_log_error("alpha %.1f, c %.4g, g %.17g: solve %.17g is not the %s root", p.alpha, c, g, u,
                                 lowest ? "lowest" : "highest");
                }
                if ((!same && fabs(res) > noise) || falling) {
                    bad++;
                    cr_log_error("alpha %.1f, c %.4g: root u = %.6g, solve %.17g, residual %.3g, u r' %.3g", p.alpha, c,
                                 ut, u, res, slope);
                }
            }
        }
    }
    /* just past stick: |F_0| - mu_s N from 1 to 64 ulp, c from 0.1 to 1e5 times steep, where the bracket's rounded lower end can
     * lie above the root (alpha = 1 returned slip speeds 1e6 times too large there) */
    long nnear = 0;
    for (int ia = 1; ia <= 8; ia++) {
        p.alpha = 0.5 * ia;
        for (int ic = 0; ic < 60; ic++) {
            const double c = steep * pow(10.0, -1.0 + ic * 6.0 / 59.0), CV = (c + p.nu * N) * p.V_st;
            double g = p.mu_s * N;
            for (int k = 1; k <= 64; k++) {
                g = nextafter(g, INFINITY);
                const double u = br_bristle_implicit_slip(&p, c, g, N) / p.V_st;
                const double r0 = p.mu_k * N - g, w = br_pow_half(u, p.alpha), E = br_exp(-w);
                const double res = (r0 + dN * E) + CV * u;
                const double noise = 16.0 * DBL_EPSILON * (fabs(r0) + dN + CV * u);
                nnear++;
                if (!(fabs(res) <= noise)) {
                    bad++;
                    cr_log_error("alpha %.1f, c %.4g, g = mu_s N + %d ulp: solve %.17g, residual %.3g", p.alpha, c, k, u,
                                 res);
                }
            }
        }
    }
    cr_log_info("bristle_implicit slip solve: %ld roots from u = 1e-6 to 1e3 and %ld just past stick, %ld missed, %ld "
                "on another root",
                n, nnear, bad, other);
    cr_assert_gt(n, 9000);
    cr_assert_gt(other, 0, "no case with three roots was reached");
    cr_assert_eq(bad, 0, "%ld of %ld solves did not end on a rising root", bad, n + nnear);
}

Test(rotational, clutch_steady_torque_and_one_way_lock)
{
    br_rotfric c;
    memset(&c, 0, sizeof c);
    c.type = BR_ROT_CLUTCH;
    c.sigma0 = 1e4, c.sigma1 = 10.0, c.sigma2 = 0.01, c.w_s = 0.1, c.mu_C = 0.3, c.mu_S = 0.4;
    c.Fn_max = 1000.0, c.c_max = 100.0;
    c.c_geo = 2.0 / 3.0 * (0.1 * 0.1 * 0.1 - 0.05 * 0.05 * 0.05) / (0.1 * 0.1 - 0.05 * 0.05);
    c.u.kind = BR_TF_CONSTANT, c.u.c = 0.5;
    /* steady slip at w = 2 rad/s: tau = (mu(w) + sigma2 w) c_geo F_n */
    double z = 0.0, P, E, tau = 0.0;
    for (int k = 0; k < 20000; k++) tau = br_rotfric_step(&c, 2.0, 0.0, 1e-4, &z, &P, &E);
    const double mu = 0.3 + 0.1 * exp(-400.0), want = (mu + 0.01 * 2.0) * c.c_geo * 500.0;
    cr_log_info("clutch: steady torque %.12g N m, expected %.12g N m (c_geo %.6g m)", tau, want, c.c_geo);
    cr_assert(fabs(tau - want) <= 1e-9 * want, "clutch torque %g vs %g", tau, want);
    /* disengaged (u <= 0): no torque, state held */
    c.u.c = 0.0;
    const double zh = z;
    tau = br_rotfric_step(&c, 2.0, 0.0, 1e-4, &z, &P, &E);
    cr_assert(tau == 0.0 && z == zh);
    /* one-way: turning backwards it locks and winds up rigidly with c_max, even disengaged */
    c.type = BR_ROT_ONEWAY;
    z = 0.0;
    for (int k = 0; k < 10; k++) tau = br_rotfric_step(&c, -1e-3, 0.0, 1e-4, &z, &P, &E);
    const double zl = -1e-6, wantl = c.c_max * (c.sigma0 * zl + c.sigma1 * -1e-3 + c.sigma2 * -1e-3) * c.Fn_max;
    cr_log_info("one-way clutch locked: z = %.6g rad, torque %.6g N m (expected %.6g)", z, tau, wantl);
    cr_assert(fabs(z - zl) <= 1e-18 && fabs(tau - wantl) <= 1e-9 * fabs(wantl));
    /* forwards again it unlocks at z = 0 and, disengaged, turns freely */
    for (int k = 0; k < 20; k++) tau = br_rotfric_step(&c, 1e-3, 0.0, 1e-4, &z, &P, &E);
    cr_assert(z == 0.0 && tau == 0.0, "one-way clutch: z %g, torque %g after unlocking", z, tau);
}

Test(rotational, dissipativity_condition)
{
    br_rotfric e;
    memset(&e, 0, sizeof e);
    e.type = BR_ROT_LUGRE, e.sigma0 = 1e5, e.sigma1 = 316.23, e.tau_v = 0.4, e.tau_C = 1.0, e.tau_S = 1.5;
    double lim = 0.0;
    cr_assert_eq(br_rotfric_not_dissipative(&e, &lim), 1);
    cr_assert_float_eq(lim, 0.8, 1e-15);
    e.sigma1 = 0.8;
    cr_assert_eq(br_rotfric_not_dissipative(&e, &lim), 0);
}

/* ---- jenkins (physics.md 3.9): the exact return mapping ---- */

/* mu 0.5, kt 1000 N/m: at N = 2 N the slider holds mu N = 1 N, the spring yields at 1 mm */
static br_friction_params jenkins_params(void)
{
    br_friction_params p;
    memset(&p, 0, sizeof p);
    p.mu_s = p.mu_k = 0.5, p.kt = 1000.0;
    return p;
}

/* One point driven along a unit direction d (in the plane z = 0) by x(t) = X sin(2 pi t), sampled
 * at spc steps per cycle (so the path is the piecewise-linear one through the samples, which the
 * return mapping follows exactly). After the first cycle the force along d lies on the exact
 * parallelogram through the extreme samples +-Xs: loading F = min(mu N, -mu N + kt (x + Xs)),
 * unloading F = max(-mu N, mu N - kt (Xs - x)); the energy per cycle, the sum of P h, is
 * 4 mu N (Xs - mu N / kt). Both to 1e-12, at 10 and at 1000 steps per cycle. */
Test(jenkins, exact_parallelogram_and_energy_per_cycle)
{
    const br_friction_params p = jenkins_params();
    const double N = 2.0, Fl = p.mu_k * N, X = 4e-3, n[3] = {0, 0, 1};
    const double dirs[2][3] = {{1, 0, 0}, {0.6, -0.8, 0}};
    const int spcs[3] = {10, 1000, 7};
    for (int di = 0; di < 2; di++)
        for (int si = 0; si < 3; si++) {
            const int spc = spcs[si];
            const double h = 1.0 / spc, *d = dirs[di];
            double Xs = 0.0;
            for (int k = 0; k < spc; k++) Xs = fmax(Xs, fabs(X * sin(2 * M_PI * k / spc)));
            double st[3] = {0, 0, 0}, W[3] = {0, 0, 0}, ferr = 0.0, perp = 0.0;
            for (int k = 0; k < 3 * spc; k++) {
                const double x0 = X * sin(2 * M_PI * k / spc), x1 = X * sin(2 * M_PI * (k + 1) / spc);
                const double v = (x1 - x0) / h, Vt[3] = {v * d[0], v * d[1], v * d[2]};
                double F[3], P;
                br_friction_eval(BR_LAW_JENKINS, &p, h, Vt, fabs(v), n, N, 0.0, st, 1, F, &P, NULL);
                W[k / spc] += P * h;
                const double Fd = br_dot3(F, d);
                perp = fmax(perp, fabs(F[0] - Fd * d[0]) + fabs(F[1] - Fd * d[1]) + fabs(F[2]));
                if (k < spc || v == 0.0) continue;
                const double ex = v > 0 ? fmin(Fl, -Fl + p.kt * (x1 + Xs)) : fmax(-Fl, Fl - p.kt * (Xs - x1));
                ferr = fmax(ferr, fabs(Fd - ex));
            }
            const double Wex = 4.0 * Fl * (Xs - Fl / p.kt);
            printf("jenkins: %d steps per cycle: force off the parallelogram by %.2g N, energy per cycle %.12g J "
                   "(exact %.12g; relative %.2g, %.2g)\n",
                   spc, ferr, W[1], Wex, fabs(W[1] - Wex) / Wex, fabs(W[2] - Wex) / Wex);
            cr_expect(ferr < 1e-12 * Fl, "%d steps per cycle: F off the parallelogram by %g", spc, ferr);
            cr_expect(perp < 1e-12 * Fl, "F leaves the direction of motion by %g", perp);
            cr_expect(fabs(W[1] - Wex) < 1e-12 * Wex && fabs(W[2] - Wex) < 1e-12 * Wex,
                      "%d steps per cycle: W %.15g and %.15g against %.15g", spc, W[1], W[2], Wex);
        }
}

/* A circular tangential path of radius 10 mm (ten times the yield displacement): once sliding,
 * |F| = mu N exactly at every step, and the force on B drags along the motion (F . Vt > 0). */
Test(jenkins, circular_path_slides_at_the_limit)
{
    const br_friction_params p = jenkins_params();
    const double N = 2.0, Fl = p.mu_k * N, R = 1e-2, n[3] = {0, 0, 1};
    const int spr = 100;
    const double h = 1.0 / spr;
    double st[3] = {0, 0, 0}, worst = 0.0, minpow = 1.0;
    for (int k = 0; k < 3 * spr; k++) {
        const double a0 = 2 * M_PI * k / spr, a1 = 2 * M_PI * (k + 1) / spr;
        const double Vt[3] = {R * (cos(a1) - cos(a0)) / h, R * (sin(a1) - sin(a0)) / h, 0.0};
        double F[3], P;
        br_friction_eval(BR_LAW_JENKINS, &p, h, Vt, br_norm3(Vt), n, N, 0.0, st, 1, F, &P, NULL);
        if (k < spr / 4) continue;
        worst = fmax(worst, fabs(br_norm3(F) - Fl));
        minpow = fmin(minpow, br_dot3(F, Vt) / (Fl * br_norm3(Vt)));
    }
    printf("jenkins: circular path: |F| - mu N at most %.2g N; F . Vt / (mu N |Vt|) at least %.4f\n", worst, minpow);
    cr_expect(worst < 1e-12 * Fl);
    cr_expect(minpow > 0.9, "the force should drag along the motion (cos %g)", minpow);
}

/* N = 0 releases the spring (z = 0, F = 0); a deflection with a normal component is projected on
 * the tangent plane before the stick test. */
Test(jenkins, separation_releases_and_deflection_stays_in_the_tangent_plane)
{
    const br_friction_params p = jenkins_params();
    const double n[3] = {0, 0, 1}, zero[3] = {0, 0, 0};
    double st[3] = {4e-4, -2e-4, 0}, F[3], P;
    br_friction_eval(BR_LAW_JENKINS, &p, 1e-3, zero, 0.0, n, 0.0, 0.0, st, 1, F, &P, NULL);
    cr_expect(st[0] == 0 && st[1] == 0 && st[2] == 0 && F[0] == 0 && F[1] == 0 && F[2] == 0);
    double s2[3] = {1e-4, 0, 5e-4};
    br_friction_eval(BR_LAW_JENKINS, &p, 1e-3, zero, 0.0, n, 2.0, 0.0, s2, 1, F, &P, NULL);
    cr_expect(s2[0] == 1e-4 && s2[2] == 0.0 && F[0] == p.kt * 1e-4 && F[2] == 0.0);
}

/* No law produces a non-finite state or force for finite, valid parameters at any step: every
 * law (the benchmark patch's parameters) with its stiffnesses (sigma0, kt, the gms k_i) and its
 * damping (sigma1, c_t, the gms s_i) each scaled by 1e-6 to 1e6, at steps of 1e-6 to 1e-2 s,
 * under a sliding velocity that reverses and turns and a normal force that drops to zero. */
Test(every_law, finite_at_any_stiffness_damping_and_step)
{
    static const double scale[5] = {1e-6, 1e-3, 1.0, 1e3, 1e6}, steps[3] = {1e-6, 1e-4, 1e-2};
    int runs = 0;
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 200, law, 3), 0);
        const br_friction_params p0 = pa.desc.fric;
        br_patch_free(&pa);
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 5; b++)
                for (int c = 0; c < 3; c++) {
                    br_friction_params p = p0;
                    p.sigma0 *= scale[a], p.kt *= scale[a], p.sigma1 *= scale[b], p.c_t = p.kt * 1e-3 * scale[b];
                    for (int i = 0; i < p.gms_M; i++) p.gms_k[i] *= scale[a], p.gms_s[i] *= scale[b];
                    cr_assert_eq(br_law_check(law, &p, NULL), 0, "%s: invalid parameters", br_law_name(law));
                    const double h = steps[c], n[3] = {0, 0, 1};
                    double st[3 * BR_GMS_MAX] = {0};
                    for (int k = 0; k < 200; k++) {
                        const double t = k / 200.0, sp = 0.05 * sin(2 * M_PI * 3 * t), th = 4.0 * t;
                        const double Vt[3] = {sp * cos(th), sp * sin(th), 0.0};
                        const double N = k % 50 < 10 ? 0.0 : 5.0 * (1.0 + 0.5 * sin(7.0 * t));
                        double F[3], P;
                        br_fric_tangent T;
                        br_friction_eval(law, &p, h, Vt, br_norm3(Vt), n, N, 0.0, st, 1, F, &P, &T);
                        int ok = isfinite(F[0]) && isfinite(F[1]) && isfinite(F[2]) && isfinite(P);
                        for (int j = 0; j < br_law_nstate(law, &p); j++) ok &= isfinite(st[j]) != 0;
                        for (int j = 0; j < 9; j++) ok &= isfinite(T.J[j]) != 0;
                        cr_assert(ok, "%s: non-finite at step %d (stiffness x %g, damping x %g, h %g)",
                                  br_law_name(law), k, scale[a], scale[b], h);
                    }
                    runs++;
                }
    }
    printf("every law: %d runs of 200 steps, all finite\n", runs);
}
