/* drivetrain.h: one-dimensional rotational drivetrains (issue 17, scenario S6): shafts (rigid
 * rotational inertias about their own axes), ideal gear constraints between them (gear pairs and
 * planetary sets by the Willis equation), torque sources linear in speed, and clutches and brakes
 * (the LuGre clutch of physics.md section 4, or the ideal Coulomb stick/slip clutch). A step is
 * implicit Euler on the shaft speeds with the gear constraints held exactly by multipliers
 * (docs/drivetrains.md). Read-only model here, mutable data in br_drive_data. */
#ifndef BR_DRIVETRAIN_H
#define BR_DRIVETRAIN_H

#include <stddef.h>

#include "model/joint_friction.h"
#include "model/timefn.h"

#ifndef BR_NAME_MAX
#define BR_NAME_MAX 64
#endif

enum { BR_GEAR_PAIR = 0, BR_GEAR_PLANETARY = 1 };
enum { BR_DCLUTCH_LUGRE = 0, BR_DCLUTCH_COULOMB = 1 };
/* a clutch's mode over a step: free (no normal force), stuck, slipping forwards (w > 0) or
 * backwards */
enum { BR_CL_FREE = 0, BR_CL_STUCK = 1, BR_CL_SLIP_POS = 2, BR_CL_SLIP_NEG = 3 };

typedef struct br_shaft {
    char name[BR_NAME_MAX];
    double J;  /* inertia about its axis [kg m^2], > 0 */
    double w0; /* initial speed [rad/s] */
} br_shaft;

/* pair: w_a = ratio w_b (s[0] = a, s[1] = b; a negative ratio for an external pair); the torque
 * the pair puts on a is lambda, on b -ratio lambda.
 * planetary: w_sun + k w_ring = (1 + k) w_carrier (s = sun, ring, carrier; k = ring/sun teeth);
 * the torques on sun, ring and carrier are lambda, k lambda and -(1 + k) lambda. */
typedef struct br_gear {
    char name[BR_NAME_MAX];
    int type;  /* BR_GEAR_* */
    int s[3];  /* shafts */
    double k;  /* ratio, or k */
} br_gear;

/* torque tau(t) - c w on a shaft */
typedef struct br_tsource {
    char name[BR_NAME_MAX];
    int shaft;
    br_timefn tau;
    double c; /* [N m s/rad], >= 0 */
} br_tsource;

/* A clutch between shafts a and b (b < 0: the housing, a brake); relative speed w = w_a - w_b,
 * torque tau acting as -tau on a and +tau on b. law holds the LuGre clutch (type BR_ROT_CLUTCH,
 * its frames unused) or, for the Coulomb clutch, mu_C, mu_S, c_geo, Fn_max and the input u:
 * stuck (w = 0) while |tau| <= mu_S c_geo F_n, slipping with tau = mu_C c_geo F_n sign(w). */
typedef struct br_dclutch {
    char name[BR_NAME_MAX];
    int type;  /* BR_DCLUTCH_* */
    int a, b;
    br_rotfric law;
} br_dclutch;

typedef struct br_drivetrain {
    int nshaft, ngear, nsrc, ncl;
    br_shaft *shaft;
    br_gear *gear;
    br_tsource *src;
    br_dclutch *cl;
} br_drivetrain;

/* State and the last step's values. Sizes from br_drive_create. */
typedef struct br_drive_data {
    double *w;       /* shaft speeds at t */
    double *alpha;   /* (w(t) - w(t - h)) / h, 0 at the start */
    double *lam;     /* per gear: its multiplier over the last step (see br_gear) */
    double *src_tau; /* per source: its torque over the last step */
    double *cl_tau;  /* per clutch: torque over the last step */
    double *cl_w;    /* ... relative speed at t */
    double *cl_z;    /* ... LuGre bristle state */
    double *cl_Eb;   /* ... energy stored in the bristle */
    double *cl_E;    /* ... integral of tau w (energy put into it) */
    int *cl_mode;    /* ... BR_CL_* (LuGre: stuck while |w| < w_s) */
    double *alpha_max; /* per shaft: largest |alpha| so far */
    double *cl_tau_max;  /* per clutch: largest |tau| so far */
    double *cl_over, *cl_over_max; /* ... time |tau| has been above mu_S c_geo Fn_max (its capacity)
                                    * without a break, and the longest such time so far */
    double work_in;  /* integral of the sources' power */
    long newton_max; /* most Newton iterations one step took */
    long mode_switches; /* changes of a Coulomb clutch's mode from one step to the next */
    double t_solved, h_solved; /* the step br_drive_solve solved */
    /* scratch of the step (no allocation while stepping) */
    double *wn, *x, *dx, *wt, *A, *r;
    double *sv, *work; /* least-norm solve: singular values, workspace (lwork) */
    int *piv, *mode_try, *row, *iwork;
    int lwork;
    int dim_max;
} br_drive_data;

/* model -> data with every shaft at its initial speed, clutches unstuck (free), or NULL */
br_drive_data *br_drive_create(const br_drivetrain *m);

void br_drive_free(br_drive_data *d);

/* model, data at t, h -> the step to t + h solved (sources and clutch inputs at t + h, every
 * torque at the new speeds), the data unchanged; 0, or -1 with err (a singular system, Newton or
 * the clutch modes not settling) */
int br_drive_solve(const br_drivetrain *m, br_drive_data *d, double t, double h, char *err, size_t errlen);

/* model, data with a step solved by br_drive_solve -> data at t + h: speeds, accelerations,
 * multipliers, clutch states and energies; returns the sources' work over the step (also added to
 * d->work_in) */
double br_drive_commit(const br_drivetrain *m, br_drive_data *d);

/* model, data -> kinetic energy of the shafts; *stored and *loss (may be NULL): the clutches'
 * stored bristle energy and their losses (energy put in minus stored) */
double br_drive_energy(const br_drivetrain *m, const br_drive_data *d, double *stored, double *loss);

/* model -> everything it owns freed (not the struct) */
void br_drivetrain_free(br_drivetrain *m);

#endif
