/* check.h: a variant's step checked: the solves' results, the states, contact forces and energy
 * terms finite, or a stop code saying what stopped it and which set, body or term (the caller
 * words it: host/step/integrate.c's br_step_failure). */
#ifndef BR_STEP_CHECK_H
#define BR_STEP_CHECK_H

#include "model.h"

/* what stopped a variant's step: a code times BR_STEP_WHAT plus the set, body or energy term it names
 * (br_step_check_solve's, br_step_check_state's; the messages: the sequencing code's, br_step_failure).
 * BR_STEP_WHAT = 2^24 leaves room for 2^24 sets or bodies and 127 codes in an int. */
#define BR_STEP_WHAT 16777216
enum { BR_STEP_OK = 0, BR_STEP_SINGULAR, BR_STEP_TANGENT, BR_STEP_ACCEL, BR_STEP_BODY, BR_STEP_FORCE, BR_STEP_FENERGY, BR_STEP_ENERGY,
       BR_STEP_FIELD, BR_STEP_RBACCEL };

/* n values (stride s) -> 1 if every one is finite: |a| <= DBL_MAX fails for NaN and the infinities, and
 * the flags are or-ed without a branch, so that the loop takes vector lanes (the early exit of a loop
 * of isfinite() left a batch's checks scalar: 3 % of a CPU study's variant-step) */
BR_HD int br_step_finite_s(const double *a, int n, long s)
{
    int bad = 0;
    for (int i = 0; i < n; i++) bad |= !(fabs(a[(long)i * s]) <= 1.7976931348623157e308);
    return !bad;
}

BR_HD int br_step_finite(const double *a, int n) { return br_step_finite_s(a, n, 1); }

/* model, shape (or NULL), variant after its solves, its sets' results -> BR_STEP_OK, or the first
 * of: a coupled set's non-finite wrench tangent, a free body's non-finite acceleration, the
 * structure's (checked before anything is advanced with them) */
BR_HD int br_step_check_solve(const br_step_model *m, const br_ga_shape *sh, const br_step_var *x, const br_set_result *res)
{
    for (int s = 0; s < m->nset; s++)
        if (m->set[s].coupled && !br_step_finite((const double *)&res[s].tan, (int)(sizeof res[s].tan / sizeof(double))))
            return BR_STEP_TANGENT * BR_STEP_WHAT + s;
    for (int b = 0; x->acc && b < m->nbody; b++)
        if (m->body_node[b] < 0 && !br_step_finite(x->acc + 6 * b, 6)) return BR_STEP_RBACCEL * BR_STEP_WHAT + b;
    if (sh && !br_step_finite_s(x->ga.a1, sh->n, x->ga.s)) return BR_STEP_ACCEL * BR_STEP_WHAT;
    return BR_STEP_OK;
}

/* model, variant, its sets' results, energy (the energy terms were computed) -> BR_STEP_OK, or the
 * first of: a body's non-finite state, a set's non-finite contact force (BR_STEP_FORCE: the host
 * looks for the point), energy term (its index in br_energy_terms) or friction energy */
BR_HD int br_step_check_state(const br_step_model *m, const br_step_var *x, const br_set_result *res, int energy)
{
    for (int b = 0; b < m->nbody; b++)
        if (!br_step_finite(x->bx + 3 * b, 3) || !br_step_finite(x->bv + 3 * b, 3) || !br_step_finite(x->bw + 3 * b, 3) ||
            (x->bq && !br_step_finite(x->bq + 4 * b, 4)))
            return BR_STEP_BODY * BR_STEP_WHAT + b;
    for (int s = 0; s < m->nset; s++)
        if (!br_step_finite(res[s].F_A, 3) || !br_step_finite(res[s].M_A, 3) || !isfinite(res[s].N) || !isfinite(res[s].P) ||
            !isfinite(res[s].E_b))
            return BR_STEP_FORCE * BR_STEP_WHAT + s;
    const double *en = (const double *)x->en;
    for (int k = 0; energy && k < (int)(sizeof *x->en / sizeof(double)); k++)
        if (!isfinite(en[k])) return BR_STEP_ENERGY * BR_STEP_WHAT + k;
    for (int s = 0; s < m->nset; s++)
        if (!isfinite(x->setE[s])) return BR_STEP_FENERGY * BR_STEP_WHAT + s;
    return BR_STEP_OK;
}

/* model, shape, variant after br_step_accel_post, its sets' results, energy -> the two checks in order */
BR_HD int br_step_check(const br_step_model *m, const br_ga_shape *sh, const br_step_var *x, const br_set_result *res, int energy)
{
    const int c = br_step_check_solve(m, sh, x, res);
    return c ? c : br_step_check_state(m, x, res, energy);
}

#endif
