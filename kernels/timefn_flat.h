/* timefn_flat.h: the time functions a batch of variants evaluates per step (a load's magnitude),
 * flat so that a device can hold them: constant, ramp, harmonic and sweep, with a constant or
 * ramp amplitude. host/model/timefn.c evaluates those kinds with these functions too (its tables,
 * integrals and sums stay on the host). Values of host/model/timefn.h's kinds. The device's sin, exp,
 * expm1 and log differ from the C library's in the last bit. */
#ifndef BR_TIMEFN_FLAT_H
#define BR_TIMEFN_FLAT_H

#include "br_hd.h"

enum { BR_TFF_CONSTANT = 0, BR_TFF_RAMP = 2, BR_TFF_HARMONIC = 3, BR_TFF_SWEEP = 4, BR_TFF_NONE = -1 };

typedef struct br_tf_flat {
    int kind;                    /* BR_TFF_* (host/model/timefn.h's BR_TF_ values) */
    double c;                    /* constant */
    double t0, t1, y0, y1;       /* ramp; t0, t1 also bound a sweep */
    double f, phase;             /* harmonic */
    double f0, f1;               /* sweep */
    int log_sweep;
    int amp_kind;                /* BR_TFF_NONE (1), BR_TFF_CONSTANT or BR_TFF_RAMP */
    double ac, at0, at1, ay0, ay1;
} br_tf_flat;

/* from y0 at t0 linearly to y1 at t1, constant outside */
BR_HD double br_tf_ramp(double t0, double t1, double y0, double y1, double t)
{
    if (t <= t0) return y0;
    if (t >= t1) return y1;
    return y0 + (y1 - y0) * (t - t0) / (t1 - t0);
}

/* sweep from f0 at t0 to f1 at t1 (log or linear in t), t -> its phase theta(t) [rad] and
 * frequency [Hz]; constant f0 before t0, f1 after t1 */
BR_HD double br_tf_sweep_phase(double t0, double t1, double f0, double f1, int log_sweep, double t, double *freq)
{
    const double TWO_PI = 6.283185307179586;
    const double T = t1 - t0;
    if (t <= t0) {
        *freq = f0;
        return TWO_PI * f0 * (t - t0);
    }
    const double tau = t < t1 ? t - t0 : T;
    double th, f;
    if (log_sweep) {
        const double k = log(f1 / f0) / T;
        f = f0 * exp(k * tau);
        th = TWO_PI * f0 * expm1(k * tau) / k;
    } else {
        f = f0 + (f1 - f0) * tau / T;
        th = TWO_PI * (f0 * tau + 0.5 * (f1 - f0) * tau * tau / T);
    }
    if (t > t1) th += TWO_PI * f1 * (t - t1);
    *freq = f;
    return th;
}

/* harmonic of frequency f and phase, t -> its argument 2 pi f t + phase */
BR_HD double br_tf_harmonic_arg(double f, double phase, double t)
{
    const double TWO_PI = 6.283185307179586;
    return TWO_PI * f * t + phase;
}

/* flat time function, t -> value */
BR_HD double br_tf_flat_eval(const br_tf_flat *fn, double t)
{
    if (fn->kind == BR_TFF_CONSTANT) return fn->c;
    if (fn->kind == BR_TFF_RAMP) return br_tf_ramp(fn->t0, fn->t1, fn->y0, fn->y1, t);
    const double A = fn->amp_kind == BR_TFF_CONSTANT ? fn->ac
                     : fn->amp_kind == BR_TFF_RAMP   ? br_tf_ramp(fn->at0, fn->at1, fn->ay0, fn->ay1, t)
                                                     : 1.0;
    if (fn->kind == BR_TFF_HARMONIC) return A * sin(br_tf_harmonic_arg(fn->f, fn->phase, t));
    double f;
    return A * sin(br_tf_sweep_phase(fn->t0, fn->t1, fn->f0, fn->f1, fn->log_sweep, t, &f));
}

#endif
