/* timefn.c: evaluation of br_timefn values and derivatives. */
#include "model/timefn.h"
#include "kernels/timefn_flat.h"

#include <math.h>
#include <stdlib.h>

static const double TWO_PI = 6.283185307179586;
_Static_assert((int)BR_TFF_CONSTANT == (int)BR_TF_CONSTANT && (int)BR_TFF_RAMP == (int)BR_TF_RAMP &&
                   (int)BR_TFF_HARMONIC == (int)BR_TF_HARMONIC && (int)BR_TFF_SWEEP == (int)BR_TF_SWEEP,
               "kernels/timefn_flat.h uses timefn.h's kinds");

/* table, t -> index k with t_k <= t < t_{k+1} (t inside the table) */
static int table_seg(const br_timefn *fn, double t)
{
    int lo = 0, hi = fn->n - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (fn->t[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* sweep, t -> phase theta(t) [rad] and frequency [Hz]; constant f0 before t0, f1 after t1 */
static double sweep_phase(const br_timefn *fn, double t, double *freq)
{
    return br_tf_sweep_phase(fn->t0, fn->t1, fn->f0, fn->f1, fn->log_sweep, t, freq);
}

/* table arrays t, y of n points, t -> the table's value (held constant outside it) */
static double table_value(const br_timefn *fn, double t)
{
    if (t < fn->t[0]) return fn->y[0];
    if (t >= fn->t[fn->n - 1]) return fn->y[fn->n - 1];
    const int k = table_seg(fn, t); /* t[k] <= t < t[k+1]: a repeated time (a jump) is skipped */
    const double s = (t - fn->t[k]) / (fn->t[k + 1] - fn->t[k]);
    return fn->y[k] + s * (fn->y[k + 1] - fn->y[k]);
}

int br_timefn_integral_init(br_timefn *fn)
{
    fn->cum = malloc((size_t)fn->n * sizeof(double));
    if (!fn->cum) return -1;
    fn->cum[0] = 0.0;
    for (int k = 1; k < fn->n; k++) /* trapezoids: exact for a piecewise-linear integrand */
        fn->cum[k] = fn->cum[k - 1] + 0.5 * (fn->t[k] - fn->t[k - 1]) * (fn->y[k - 1] + fn->y[k]);
    return 0;
}

double br_timefn_eval(const br_timefn *fn, double t)
{
    switch (fn->kind) {
    case BR_TF_CONSTANT: return fn->c;
    case BR_TF_TABLE: return table_value(fn, t);
    case BR_TF_INTEGRAL: {
        const int last = fn->n - 1;
        if (t < fn->t[0]) return fn->y[0] * (t - fn->t[0]);
        if (t >= fn->t[last]) return fn->cum[last] + fn->y[last] * (t - fn->t[last]);
        const int k = table_seg(fn, t);
        const double dt = t - fn->t[k], s = dt / (fn->t[k + 1] - fn->t[k]);
        return fn->cum[k] + dt * (fn->y[k] + 0.5 * s * (fn->y[k + 1] - fn->y[k]));
    }
    case BR_TF_SUM: {
        double v = 0.0;
        for (int k = 0; k < fn->nterm; k++) v += br_timefn_eval(&fn->term[k], t);
        return v;
    }
    case BR_TF_RAMP: return br_tf_ramp(fn->t0, fn->t1, fn->y0, fn->y1, t);
    case BR_TF_HARMONIC: {
        const double A = fn->amp ? br_timefn_eval(fn->amp, t) : 1.0;
        return A * sin(br_tf_harmonic_arg(fn->f, fn->phase, t));
    }
    case BR_TF_SWEEP: {
        double f;
        const double A = fn->amp ? br_timefn_eval(fn->amp, t) : 1.0;
        return A * sin(sweep_phase(fn, t, &f));
    }
    }
    return 0.0;
}

double br_timefn_rate(const br_timefn *fn, double t)
{
    switch (fn->kind) {
    case BR_TF_CONSTANT: return 0.0;
    case BR_TF_TABLE: {
        if (t < fn->t[0] || t >= fn->t[fn->n - 1]) return 0.0;
        const int k = table_seg(fn, t);
        return (fn->y[k + 1] - fn->y[k]) / (fn->t[k + 1] - fn->t[k]);
    }
    case BR_TF_INTEGRAL: return table_value(fn, t);
    case BR_TF_SUM: {
        double v = 0.0;
        for (int k = 0; k < fn->nterm; k++) v += br_timefn_rate(&fn->term[k], t);
        return v;
    }
    case BR_TF_RAMP:
        if (t < fn->t0 || t >= fn->t1) return 0.0;
        return (fn->y1 - fn->y0) / (fn->t1 - fn->t0);
    case BR_TF_HARMONIC: {
        const double A = fn->amp ? br_timefn_eval(fn->amp, t) : 1.0;
        const double dA = fn->amp ? br_timefn_rate(fn->amp, t) : 0.0;
        const double th = br_tf_harmonic_arg(fn->f, fn->phase, t);
        return dA * sin(th) + A * TWO_PI * fn->f * cos(th);
    }
    case BR_TF_SWEEP: {
        double f;
        const double th = sweep_phase(fn, t, &f);
        const double A = fn->amp ? br_timefn_eval(fn->amp, t) : 1.0;
        const double dA = fn->amp ? br_timefn_rate(fn->amp, t) : 0.0;
        return dA * sin(th) + A * TWO_PI * f * cos(th);
    }
    }
    return 0.0;
}

double br_timefn_frequency(const br_timefn *fn, double t)
{
    double f = 0.0;
    if (fn->kind == BR_TF_HARMONIC) f = fn->f;
    if (fn->kind == BR_TF_SWEEP) sweep_phase(fn, t, &f);
    for (int k = 0; k < fn->nterm && f == 0.0; k++) f = br_timefn_frequency(&fn->term[k], t);
    return f;
}

void br_timefn_free(br_timefn *fn)
{
    if (!fn) return;
    free(fn->t);
    free(fn->y);
    free(fn->cum);
    fn->t = fn->y = fn->cum = NULL;
    for (int k = 0; k < fn->nterm; k++) br_timefn_free(&fn->term[k]);
    free(fn->term);
    fn->term = NULL;
    fn->nterm = 0;
    if (fn->amp) {
        br_timefn_free(fn->amp);
        free(fn->amp);
        fn->amp = NULL;
    }
}
