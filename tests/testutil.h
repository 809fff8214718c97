/* testutil.h: helpers shared by the test programs. */
#ifndef BR_TESTUTIL_H
#define BR_TESTUTIL_H

#include <math.h>

#include "field/field.h"

/* Number of scalar entries of a br_set_result compared by tests. */
#define BR_NRES 28

/* result -> its scalar entries in a fixed order (counts as doubles) */
static inline void res_flatten(const br_set_result *r, double out[BR_NRES])
{
    int k = 0;
    for (int j = 0; j < 3; j++) out[k++] = r->F_A[j];
    for (int j = 0; j < 3; j++) out[k++] = r->M_A[j];
    for (int j = 0; j < 3; j++) out[k++] = r->F_B[j];
    for (int j = 0; j < 3; j++) out[k++] = r->M_B[j];
    for (int j = 0; j < 3; j++) out[k++] = r->Ff_A[j];
    for (int j = 0; j < 3; j++) out[k++] = r->Mf_A[j];
    out[k++] = r->N;
    out[k++] = r->P;
    out[k++] = r->E;
    out[k++] = r->E_el;
    out[k++] = r->E_nd;
    out[k++] = r->E_b;
    out[k++] = (double)r->ncontact;
    out[k++] = (double)r->nstick;
    out[k++] = r->pen_max;
    out[k++] = r->vt_max;
}

/* Running comparison of two histories of every entry: the largest difference
 * and the largest magnitude seen, per entry, so the relative difference is
 * taken against the quantity's scale over the run (a sum that passes through
 * zero is not divided by zero). */
typedef struct res_cmp {
    double maxdiff[BR_NRES];
    double scale[BR_NRES];
} res_cmp;

static inline void res_cmp_add(res_cmp *c, const br_set_result *a, const br_set_result *b)
{
    double x[BR_NRES], y[BR_NRES];
    res_flatten(a, x);
    res_flatten(b, y);
    for (int k = 0; k < BR_NRES; k++) {
        double d = fabs(x[k] - y[k]);
        if (!(d <= c->maxdiff[k])) c->maxdiff[k] = d; /* NaN sticks */
        if (fabs(x[k]) > c->scale[k]) c->scale[k] = fabs(x[k]);
        if (fabs(y[k]) > c->scale[k]) c->scale[k] = fabs(y[k]);
    }
}

/* -> largest relative difference over all entries (index in *which) */
static inline double res_cmp_worst(const res_cmp *c, int *which)
{
    double w = 0.0;
    *which = -1;
    for (int k = 0; k < BR_NRES; k++) {
        double r = c->scale[k] > 0.0 ? c->maxdiff[k] / c->scale[k] : c->maxdiff[k];
        if (!(r <= w)) {
            w = r;
            *which = k;
        }
    }
    return w;
}

/* S1's lugre3d parameters (scenarios.md S1) */
static inline br_friction_params s1_lugre(void)
{
    br_friction_params p = {0};
    p.update = BR_UPDATE_EXP;
    p.mu_s = 0.15;
    p.mu_k = 0.1;
    p.V_st = 1e-3;
    p.alpha = 2.0;
    p.sigma0 = 1e4;
    p.sigma1 = sqrt(1e5) / 10.0;
    p.sigma2 = 0.04;
    p.G_min = 1e-12;
    return p;
}

#endif
