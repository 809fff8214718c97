/* point_law.h: dispatch on a contact set's friction law (physics.md section 3):
 * state count, the step of one point and the energy its bristles store. The law
 * is a compile-time constant in both backends' loops, so the switches fold away. */
#ifndef BR_POINT_LAW_H
#define BR_POINT_LAW_H

#include "point_bristle.h"
#include "point_friction.h"
#include "point_jenkins.h"

/* law, parameters (gms: the element count) -> number of state doubles per point */
BR_HD int br_law_nstate(int law, const br_friction_params *p)
{
    switch (law) {
    case BR_LAW_LUGRE3D:
    case BR_LAW_LUGRE3D_CLASSIC:
    case BR_LAW_DAHL3D:
    case BR_LAW_BRISTLE_IMPLICIT:
    case BR_LAW_JENKINS: return 3;
    case BR_LAW_BRISTLE2: return 9;
    case BR_LAW_GMS: return 3 * p->gms_M;
    default: return 0;
    }
}

/* jenkins parameters, the point's normal stiffness K -> its spring kt (kt, or kt_K K for a stiffness per area) */
BR_HD double br_jenkins_kt(const br_friction_params *p, double K) { return p->kt_K > 0.0 ? p->kt_K * K : p->kt; }

/* law, Vt, v, the point's unit normal n (NULL: none; jenkins keeps its deflection in the tangent
 * plane), N, the point's normal stiffness K (jenkins' kt_area scales with it), state -> updated
 * state, F (on B, along Vt), P = F . Vt (jenkins: the step's mean power), and with T (not NULL)
 * the tangent of F with respect to Vt and N (point_friction.h) */
BR_HD void br_friction_eval(int law, const br_friction_params *p, double h, const double Vt[3],
                            double v, const double *n, double N, double K, double *st, long stride,
                            double F[3], double *P, br_fric_tangent *T)
{
    switch (law) {
    case BR_LAW_LUGRE3D: br_law_lugre3d(p, h, Vt, v, N, st, stride, F, P, T); break;
    case BR_LAW_LUGRE3D_CLASSIC: br_law_lugre3d_classic(p, h, Vt, v, N, st, stride, F, P, T); break;
    case BR_LAW_DAHL3D: br_law_dahl3d(p, h, Vt, v, N, st, stride, F, P, T); break;
    case BR_LAW_GKF: br_law_gkf(p, Vt, v, N, F, P, T); break;
    case BR_LAW_STATIC_REG: br_law_static_reg(p, Vt, v, N, F, P, T); break;
    case BR_LAW_BRISTLE2: br_law_bristle2(p, h, Vt, v, N, st, stride, F, P, T); break;
    case BR_LAW_BRISTLE_IMPLICIT: br_law_bristle_implicit(p, h, Vt, v, N, st, stride, F, P, T); break;
    case BR_LAW_GMS: br_law_gms(p, h, Vt, v, N, st, stride, F, P, T); break;
    case BR_LAW_JENKINS: br_law_jenkins(p, br_jenkins_kt(p, K), h, Vt, n, N, st, stride, F, P, T); break;
    default:
        F[0] = F[1] = F[2] = 0.0;
        *P = 0.0;
        if (T) br_tan_zero(T);
        break;
    }
}

/* state, N -> energy stored in the bristles of one point (physics.md section 7):
 * 1/2 sigma0 N |Z|^2 (lugre3d, dahl3d), 1/2 sigma0 |z|^2 (classic, bristle_implicit), 1/2 kt |z|^2
 * (jenkins, kt at the point of normal stiffness K),
 * plus 1/2 m_b |v_S - R|^2 for bristle2's tip mass, its speed relative to the frame its inertia is
 * referred to (R, which the state keeps: the ground in stick, the body in sliding), 1/2 sum k_i |z_i|^2 (gms) */
BR_HD double br_friction_stored_energy(int law, const br_friction_params *p, double N, double K,
                                       const double *st, long stride)
{
    double e = 0.0;
    if (law == BR_LAW_GMS) {
        const int M = p->gms_M < BR_GMS_MAX ? p->gms_M : BR_GMS_MAX; /* validated; the bound for gcc */
        BR_UNROLL_ELEMENTS
        for (int i = 0; i < M; i++) {
            double z2 = 0.0;
            for (int k = 0; k < 3; k++) z2 += st[(3 * i + k) * stride] * st[(3 * i + k) * stride];
            e += 0.5 * p->gms_k[i] * z2;
        }
        return e;
    }
    if (br_law_nstate(law, p) < 3) return 0.0;
    const double z2 = st[0] * st[0] + st[stride] * st[stride] + st[2 * stride] * st[2 * stride];
    e = 0.5 * (law == BR_LAW_JENKINS ? br_jenkins_kt(p, K) : p->sigma0) * z2;
    if (law == BR_LAW_LUGRE3D || law == BR_LAW_DAHL3D) return e * N;
    if (law == BR_LAW_BRISTLE2) {
        const double w0 = st[3 * stride] - st[6 * stride], w1 = st[4 * stride] - st[7 * stride];
        const double w2 = st[5 * stride] - st[8 * stride];
        e += 0.5 * br_bristle2_mass(p) * (w0 * w0 + w1 * w1 + w2 * w2);
    }
    return e;
}

#endif
