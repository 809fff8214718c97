/* timefn.h: scalar functions of time for load magnitudes and prescribed
 * motion: constant, piecewise-linear table, ramp, harmonic with a
 * time-varying amplitude, linear or logarithmic frequency sweep, the integral
 * of a table (a displacement from a velocity profile), a sum. Each gives
 * its value and its exact time derivative (prescribed displacements need the
 * velocity). */
#ifndef BR_TIMEFN_H
#define BR_TIMEFN_H

typedef enum {
    BR_TF_CONSTANT = 0, /* c */
    BR_TF_TABLE,        /* piecewise linear through (t_k, y_k), held constant outside */
    BR_TF_RAMP,         /* from y0 at t0 linearly to y1 at t1, constant outside */
    BR_TF_HARMONIC,     /* A(t) sin(2 pi f t + phase) */
    BR_TF_SWEEP,        /* A(t) sin(theta(t)), f from f0 at t0 to f1 at t1, linear or log in t */
    BR_TF_INTEGRAL,     /* integral from t_0 to t of a table (held constant outside it) */
    BR_TF_SUM           /* the sum of nterm functions */
} br_timefn_kind;

typedef struct br_timefn {
    int kind;
    double c;                 /* constant */
    int n;                    /* table, integral: points */
    double *t, *y;            /* table, integral: n abscissae (non-decreasing) and values */
    double *cum;              /* integral: the integral from t_0 to each t_k */
    double t0, t1, y0, y1;    /* ramp; t0, t1 also bound a sweep */
    double f, phase;          /* harmonic: frequency [Hz], phase [rad] */
    double f0, f1;            /* sweep: start and end frequency [Hz] */
    int log_sweep;            /* sweep: 1 log, 0 linear */
    struct br_timefn *amp;    /* harmonic, sweep: amplitude (NULL: 1) */
    int nterm;                /* sum: terms */
    struct br_timefn *term;   /* sum: nterm functions */
} br_timefn;

/* integral fn with its table set -> fn->cum filled (allocated here); -1 when out of memory */
int br_timefn_integral_init(br_timefn *fn);

/* fn, t -> value */
double br_timefn_eval(const br_timefn *fn, double t);

/* fn, t -> time derivative of the value (right derivative at table corners) */
double br_timefn_rate(const br_timefn *fn, double t);

/* fn, t -> instantaneous frequency [Hz] of a harmonic or sweep (of a sum: its first term's with
 * one), else 0 */
double br_timefn_frequency(const br_timefn *fn, double t);

/* fn -> its allocations (table, amplitude, terms) freed; fn itself is not */
void br_timefn_free(br_timefn *fn);

#endif
