/* point_jenkins.h: the elastic Coulomb element (physics.md 3.9; `jenkins`, also called
 * elastic dry friction or the macroslip element): a tangential spring kt in series with a
 * Coulomb slider of limit mu N, per point. The state is the spring's deflection z (3 doubles,
 * kept in the tangent plane). Each step is the exact return mapping, for any h:
 *     z_tr = P_t (z + Vt h)                P_t = I - n n^T, n the point's current normal
 *     |kt z_tr| <= mu N:  z = z_tr          (stick)
 *     otherwise:          z = z_tr mu N / (kt |z_tr|)   (slip: radial return onto the limit circle)
 *     F = kt z (+ c_t Vt while stuck),    N = 0 releases the spring (mu N = 0 returns z to 0)
 * Exact for a tangential displacement that is linear within the step and keeps its direction
 * (in one dimension: any piecewise-linear history sampled at the steps). */
#ifndef BR_POINT_JENKINS_H
#define BR_POINT_JENKINS_H

#include "point_friction.h"

/* The jenkins step: params (c_t, mu_k as mu), the point's spring kt, h, Vt, unit normal n (NULL: no projection),
 * N, state z -> z updated, F (on B), and P: the mean power over the step, (change of the spring
 * energy + dissipation) / h, with the dissipation mu N (|z_tr| - |z|) of the radial return, so
 * that the bookkeeping closes exactly (F . Vt at the step's end would not: the spring's force
 * changes within a stuck step); at h = 0 (an evaluation, harmonic balance's second pass) F . Vt.
 * Tangent (T not NULL): stick J = (kt h + c_t) P_t, jN = 0; slip
 * J = h (mu N / |z_tr|) (P_t - e e^T) with e = z_tr / |z_tr|, jN = mu e. */
BR_HD void br_law_jenkins(const br_friction_params *p, double kt, double h, const double Vt[3], const double *n,
                          double N, double *st, long stride, double F[3], double *P, br_fric_tangent *T)
{
    const double mu = p->mu_k;
    double z0[3], ztr[3];
    for (int k = 0; k < 3; k++) z0[k] = st[k * stride], ztr[k] = z0[k] + Vt[k] * h;
    const double zn = n ? br_dot3(ztr, n) : 0.0;
    for (int k = 0; k < 3; k++) ztr[k] -= n ? zn * n[k] : 0.0;
    const double Flim = N > 0.0 ? mu * N : 0.0;
    const double ltr = br_norm3(ztr);
    const int stick = kt * ltr <= Flim;
    const double s = stick ? 1.0 : Flim / (kt * (ltr > 0.0 ? ltr : 1.0)); /* ltr > 0 in slip */
    const double ct = stick ? p->c_t : 0.0;
    double e0 = 0.0, e1 = 0.0, pw = 0.0;
    for (int k = 0; k < 3; k++) {
        const double z = s * ztr[k];
        st[k * stride] = z;
        F[k] = kt * z + ct * Vt[k];
        e0 += z0[k] * z0[k];
        e1 += z * z;
        pw += Vt[k] * Vt[k];
    }
    /* mean power: spring energy change + slip dissipation + the stick damper's c_t |Vt|^2 */
    const double mean = (0.5 * kt * (e1 - e0) + Flim * (1.0 - s) * ltr) / (h > 0.0 ? h : 1.0) + ct * pw;
    *P = h > 0.0 ? mean : br_dot3(F, Vt);
    if (T) {
        const double a = stick ? kt * h + p->c_t : h * Flim / (ltr > 0.0 ? ltr : 1.0);
        double e[3];
        for (int k = 0; k < 3; k++) e[k] = stick ? 0.0 : ztr[k] / (ltr > 0.0 ? ltr : 1.0);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                const double pt = (i == j ? 1.0 : 0.0) - (n ? n[i] * n[j] : 0.0);
                T->J[3 * i + j] = a * (pt - e[i] * e[j]);
            }
            T->jN[i] = N > 0.0 ? mu * e[i] : 0.0;
        }
    }
}

#endif
