/* joint_friction.h: rotational friction elements of physics.md section 4 (LuGre
 * bearing friction, clutch, one-way clutch) acting on the relative rotation of
 * two frames about a fixed world axis. One bristle state z per element. */
#ifndef BR_JOINT_FRICTION_H
#define BR_JOINT_FRICTION_H

#include "model/timefn.h"

enum { BR_ROT_LUGRE = 0, BR_ROT_CLUTCH = 1, BR_ROT_ONEWAY = 2 };

typedef struct br_rotfric {
    char name[64];
    int type;            /* BR_ROT_* */
    int frame_a;         /* the element's torque tau acts on a as -tau axis ... */
    int frame_b;         /* ... and on b as +tau axis; relative speed w = (w_a - w_b) . axis */
    double axis[3];      /* unit, world axes */
    double sigma0;       /* lugre: [N m/rad]; clutches: [1/rad] per unit c_geo F_n */
    double sigma1;       /* lugre: [N m s/rad]; clutches: [s/rad] per unit c_geo F_n */
    double w_d;          /* lugre: sigma1(w) = sigma1 exp(-(w/w_d)^2); <= 0: constant */
    double tau_v;        /* lugre: viscous [N m s/rad] */
    double tau_C, tau_S; /* lugre: Coulomb and static torque [N m] */
    double w_s;          /* Stribeck speed [rad/s] */
    double mu_C, mu_S;   /* clutches: Coulomb and static coefficients */
    double sigma2;       /* clutches: viscous [s/rad] per unit c_geo F_n */
    double c_geo;        /* clutches: effective radius [m] */
    double Fn_max;       /* clutches: largest normal force [N] */
    double c_max;        /* one-way clutch: stiffening of the locked direction (100) */
    br_timefn u;         /* clutches: engagement input, F_n = Fn_max u(t); u <= 0: free */
} br_rotfric;

/* element, relative speed w, time t (clutch input), step h, state z -> z advanced over
 * the step (exponential update, w frozen), returns the torque tau; *P = tau w, *E = the
 * energy stored in the bristle after the step */
double br_rotfric_step(const br_rotfric *e, double w, double t, double h, double *z, double *P,
                       double *E);

/* element -> its rate zdot at speed w, time t, state z, and the torque (for references) */
double br_rotfric_rate(const br_rotfric *e, double w, double t, double z, double *zdot);

/* lugre element -> 1 if sigma1 > tau_C tau_v / (tau_S - tau_C), the constant-sigma1
 * model is then not dissipative (physics.md section 4); *limit = that bound */
int br_rotfric_not_dissipative(const br_rotfric *e, double *limit);

#endif
