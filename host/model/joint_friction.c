/* joint_friction.c: rotational friction elements (physics.md section 4). */
#include "model/joint_friction.h"

#include <math.h>

#include "kernels/point_friction.h" /* br_phi: the exponential bristle update */

/* element, t -> normal force of a clutch (0 when free), 1 for the bearing */
static double clutch_force(const br_rotfric *e, double t)
{
    if (e->type == BR_ROT_LUGRE) return 1.0;
    const double u = br_timefn_eval(&e->u, t);
    return u > 0.0 ? e->Fn_max * u : 0.0;
}

/* element, w -> g(w): the steady deflection |z| of sliding at speed w */
static double rot_g(const br_rotfric *e, double w)
{
    const double x = w / e->w_s, s = exp(-x * x);
    if (e->type == BR_ROT_LUGRE) return (e->tau_C + (e->tau_S - e->tau_C) * s) / e->sigma0;
    return (e->mu_C + (e->mu_S - e->mu_C) * s) / e->sigma0;
}

/* element, z, w -> 1 if the one-way clutch is on its locking side (z < 0, or z = 0 turning
 * backwards): the bristle then winds up rigidly, zdot = w */
static int locked(const br_rotfric *e, double z, double w)
{
    return e->type == BR_ROT_ONEWAY && (z < 0.0 || (z == 0.0 && w < 0.0));
}

/* element, w, zdot, z, Fn -> torque */
static double torque(const br_rotfric *e, double w, double z, double zdot, double Fn, int lock)
{
    if (e->type == BR_ROT_LUGRE) {
        const double s1 = e->w_d > 0.0 ? e->sigma1 * exp(-(w / e->w_d) * (w / e->w_d)) : e->sigma1;
        return e->sigma0 * z + s1 * zdot + e->tau_v * w;
    }
    const double b = e->sigma0 * z + e->sigma1 * zdot + e->sigma2 * w;
    if (lock) return e->c_max * b * e->Fn_max;
    return b * e->c_geo * Fn;
}

double br_rotfric_rate(const br_rotfric *e, double w, double t, double z, double *zdot)
{
    const double Fn = clutch_force(e, t);
    const int lock = locked(e, z, w);
    if (!lock && Fn <= 0.0) { /* a free clutch */
        *zdot = 0.0;
        return 0.0;
    }
    *zdot = lock ? w : w - fabs(w) * z / rot_g(e, w);
    return torque(e, w, z, *zdot, Fn, lock);
}

double br_rotfric_step(const br_rotfric *e, double w, double t, double h, double *z, double *P,
                       double *E)
{
    const double Fn = clutch_force(e, t);
    const int lock = locked(e, *z, w);
    double tau = 0.0, zdot = 0.0;
    if (lock) {
        /* rigid wind-up; leaving the locking side ends at z = 0 (the clutch law takes over) */
        double zn = *z + h * w;
        zn = *z < 0.0 && zn > 0.0 ? 0.0 : zn;
        zdot = (zn - *z) / h;
        *z = zn;
        tau = torque(e, w, *z, zdot, Fn, 1);
    } else if (Fn > 0.0) { /* the bearing's Fn is 1 */
        const double a = fabs(w) / rot_g(e, w);
        *z += (w - a * *z) * br_phi(a, h);
        zdot = w - a * *z;
        tau = torque(e, w, *z, zdot, Fn, 0);
    }
    *P = tau * w;
    const double k = e->type == BR_ROT_LUGRE ? e->sigma0
                     : locked(e, *z, w)      ? e->c_max * e->sigma0 * e->Fn_max
                                             : e->sigma0 * e->c_geo * Fn;
    *E = 0.5 * k * *z * *z;
    return tau;
}

int br_rotfric_not_dissipative(const br_rotfric *e, double *limit)
{
    if (e->type != BR_ROT_LUGRE || !(e->tau_S > e->tau_C)) return 0;
    *limit = e->tau_C * e->tau_v / (e->tau_S - e->tau_C);
    return e->sigma1 > *limit;
}
