/* set_result.h: a contact set's result of one step, from its sums (and tangent sums), written once
 * for host/field/field.c and for a device that keeps the results of a batch resident
 * (kernels/beam_cuda.cu). */
#ifndef BR_SET_RESULT_H
#define BR_SET_RESULT_H

#include "point_step.h"
#include "point_tangent.h"

/* Per-set result of one step, world axes. */
typedef struct br_set_result {
    double F_A[3], M_A[3];   /* contact force on A and its moment about A's origin */
    double F_B[3], M_B[3];   /* the same on B, moment about B's origin */
    double Ff_A[3], Mf_A[3]; /* friction part of F_A, M_A */
    double N;                /* total normal force */
    double P;                /* friction power */
    double E;                /* running friction energy integral of P */
    double E_el;             /* elastic energy in the normal springs */
    double P_nd;             /* power dissipated by normal damping */
    double E_nd;             /* running integral of normal-damping power */
    double E_b;              /* energy stored in the bristles */
    long ncontact, nstick;
    double pen_max, vt_max;
    /* With desc.tangent: the tangent of (F_A, M_A) with respect to the relative displacement
     * (translation at A's origin, small rotation) and the relative twist (c, w) of A with
     * respect to B, dW_A = -tan.K dxi_u - tan.C dxi_v (kernels/point_tangent.h); the wrench
     * on B is -T W_A with T = [I, 0; [x_A - x_B]x, I], so its tangent is -T times A's. */
    br_set_tangent tan;
} br_set_result;

/* a set's sums, its tangent sums (NULL: none), A's origin and B's, h, the running integrals E
 * and E_nd (advanced here) -> its result */
BR_HD void br_set_result_finish(const br_set_sums *m, const br_tangent_sums *tan, const double xA[3],
                                const double xB[3], double h, double *E, double *E_nd, br_set_result *r)
{
    double dx[3] = {xA[0] - xB[0], xA[1] - xB[1], xA[2] - xB[2]}, dxF[3];
    br_cross3(dx, m->Fc, dxF);
    for (int j = 0; j < 3; j++) {
        r->F_A[j] = m->Fc[j];
        r->M_A[j] = m->Mc[j];
        r->F_B[j] = -m->Fc[j];
        r->M_B[j] = -(m->Mc[j] + dxF[j]);
        r->Ff_A[j] = m->F[j];
        r->Mf_A[j] = m->Mf[j];
    }
    *E += m->P * h;
    *E_nd += m->P_nd * h;
    r->N = m->N;
    r->P = m->P;
    r->E = *E;
    r->E_el = m->E_el;
    r->P_nd = m->P_nd;
    r->E_nd = *E_nd;
    r->E_b = m->E_b;
    r->ncontact = (long)m->ncontact;
    r->nstick = (long)m->nstick;
    r->pen_max = m->pen_max;
    r->vt_max = m->vt_max;
    if (tan) br_tangent_finish(tan, &r->tan);
    else {
        double *t = (double *)&r->tan;
        for (int k = 0; k < (int)(sizeof r->tan / sizeof(double)); k++) t[k] = 0.0;
    }
}

/* sums -> 1 if every entry is finite */
BR_HD int br_set_sums_finite(const br_set_sums *s)
{
    const double *a = (const double *)s;
    for (int k = 0; k < BR_SUMS_NADD + 2; k++)
        if (!isfinite(a[k])) return 0;
    return 1;
}

#endif
