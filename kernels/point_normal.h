/* point_normal.h: Hunt-Crossley normal force of one contact point
 * (physics.md section 2). */
#ifndef BR_POINT_NORMAL_H
#define BR_POINT_NORMAL_H

#include "br_hd.h"

/* Exponents of the Hunt-Crossley law, shared by every point of a set. The
 * stiffness K and damping D may be per point (tributary areas) or per set. */
typedef struct br_normal_params {
    double pK;  /* stiffness exponent (reference 2), a multiple of 0.5 up to 4 */
    double pD;  /* damping exponent (reference 0.5), a multiple of 0.5 up to 4 */
} br_normal_params;

/* delta, deltadot, K, D -> N = max(K delta^pK + D delta^pD deltadot, 0); 0 when delta <= 0. */
BR_HD double br_hunt_crossley(const br_normal_params *p, double K, double D,
                              double delta, double deltadot)
{
    const double N = K * br_pow_half(delta, p->pK) + D * br_pow_half(delta, p->pD) * deltadot;
    /* NaN from delta < 0 is selected away; & (not &&): both tests always run, so no
     * part of N is moved under a branch (a vectorized loop could not if-convert it) */
    return ((delta > 0.0) & (N > 0.0)) ? N : 0.0;
}

/* Kd = K delta^pK (the spring part of N), delta -> the elastic energy of the normal spring,
 * K delta^(pK+1) / (pK+1). Multiplied by the reciprocal of pK + 1 (a set constant: no divide a
 * point): within an ulp of the division, and nothing but the energy diagnostics reads it. */
BR_HD double br_normal_energy(const br_normal_params *p, double Kd, double delta)
{
    return Kd * delta * (1.0 / (p->pK + 1.0));
}

/* delta, deltadot, K, D -> kn = dN/ddelta and cn = dN/ddeltadot of br_hunt_crossley where
 * N > 0 (both 0 where N is clamped or delta <= 0):
 *     kn = (pK K delta^pK + pD D delta^pD deltadot) / delta,   cn = D delta^pD */
BR_HD void br_hunt_crossley_tangent(const br_normal_params *p, double K, double D, double delta,
                                    double deltadot, double *kn, double *cn)
{
    const double dpK = br_pow_half(delta, p->pK), dpD = br_pow_half(delta, p->pD);
    const double N = K * dpK + D * dpD * deltadot;
    const int on = (delta > 0.0) & (N > 0.0);
    *kn = on ? (p->pK * K * dpK + p->pD * D * dpD * deltadot) / delta : 0.0;
    *cn = on ? D * dpD : 0.0;
}

#endif
