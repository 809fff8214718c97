/* sim.h: the mutable data of a run and the stages of one time step.
 *
 * One step from t_n to t_{n+1} = t_n + h, data flowing one way:
 *   br_fwd_frames    body states (x_n, q_n, v_n, w_n), t_n -> world frames
 *   br_fwd_contacts  frames -> contact field step -> per-set wrenches (bristle
 *                    states advanced over the step with V_t(t_n) frozen)
 *   br_fwd_joints    frames -> rotational friction torques (states advanced, host/joint_friction.c)
 *   br_fwd_loads     t_n, frames, wrenches -> total force and torque per body
 *                    and the energy terms at t_n (physics.md section 7)
 *   br_fwd_accel     forces -> the structure's acceleration at t_{n+1} (generalized-alpha
 *                    solve); the friction of stateless laws on the structure is linearly
 *                    implicit there (host/friction_implicit.h), and those sets' results are
 *                    corrected to the force actually applied
 *   br_integrate     forces -> free bodies: semi-implicit (symplectic) Euler:
 *                      v_{n+1} = v_n + h a_n,  x_{n+1} = x_n + h v_{n+1},
 *                      w_{n+1} = w_n + h alpha_n, q_{n+1} = exp(h w_{n+1}/2) q_n
 *                    beams and attached bodies: generalized-alpha (host/genalpha.c);
 *                    the field sees them at the predicted state u_n + tau v_n + tau^2/2 a_n,
 *                    v_n + tau a_n (tau = (1 - af) h, the time of the equation), and
 *                    their loads are evaluated at t_n + tau: the contact force enters
 *                    explicitly but without the one-step lag that makes an explicit
 *                    stiff force unstable in generalized-alpha (docs/time-stepping.md);
 *                    and the work of the loads over the step
 * The contact field therefore sees positions and velocities at the start of
 * the step, and the bodies feel the forces it returns during that step. See
 * docs/time-stepping.md for the stability argument at the S1 stiffness. */
#ifndef BR_SIM_H
#define BR_SIM_H

#include "beam.h"
#include "genalpha.h"
#include "model.h"

typedef struct br_energy_terms {
    double work_in;        /* work of loads, gravity and prescribed frames since t = 0 */
    double kinetic;        /* kinetic energy of all bodies */
    double kinetic0;       /* ... at t = 0 */
    double spring;         /* elastic energy of the springs and beams */
    double spring0;        /* ... at t = 0 */
    double spring_loss;    /* dissipated by spring dampers and Rayleigh damping since t = 0 */
    double contact_el;     /* stored in the normal contact springs */
    double bristle;        /* stored in the bristles */
    double friction_loss;  /* friction energy dissipated: integral of P minus stored bristle energy */
    double normal_loss;    /* dissipated by normal-contact damping */
    double residual;       /* input - (everything else), J */
    double residual_rel;   /* |residual| / reference (input work plus initial energy) */
} br_energy_terms;

typedef struct br_data {
    double t;                  /* time of the current state */
    long step;                 /* steps taken */
    double *x, *q, *v, *w;     /* per body: CoM position (3), attitude (4), velocity (3), angular velocity (3) */
    double *f, *tau;           /* per body: total force and torque about the CoM this step (world) */
    double *fext, *text;       /* per body: the part from loads and gravity (for the input work) */
    br_frame_state *frames;    /* every frame at t (ground, bodies, kinematic frames) */
    br_set_result *res;        /* per contact set: result of the last field step */
    double *load_val;          /* per load: signed magnitude at t */
    double *spring_val;        /* per spring: signed force magnitude at t (torsion: torque) */
    double *spring_angle;      /* per spring: torsion angle theta at t (0 for linear springs) */
    double *rot_z;             /* per rotational friction element: bristle state */
    double *rot_tau;           /* ... its torque over the last step */
    double *rot_Eb;            /* ... energy stored in its bristle after the last step */
    double *rot_E, *rot_E_upto;/* ... friction energy integral after the last step and up to t */
    br_energy_terms en;
    double res_ref;            /* reference for residual_rel: largest input energy so far */
    double *E_upto, *End_upto; /* per set: friction and normal-damping energy up to t */
    double p_drive;            /* power the prescribed frames (kinematic frames) put in at t */
    double p_spring_loss;      /* power dissipated by spring dampers at t */
    br_field *field;
    br_struct *st;             /* beams and attached bodies (NULL without beams) */
    br_genalpha *ga;           /* their integrator and state u, v, a */
    double *g, *gext;          /* generalized force on the structure at t, and its load part */
    double *gext_prev;         /* the load part of the previous step (work of the loads) */
    double *xnode;             /* 3 per structure node: position at t */
    double *uprev, *vprev;     /* structure state before the last step (energy terms) */
    double *up, *vp;           /* structure state predicted at the equation time t + tau */
    double tau_s;              /* (1 - af) h: generalized-alpha equation time after t_n */
    int skip_energy;           /* 1: br_fwd_loads may skip the structure's energy terms this step
                                * (the run loop sets it on steps it does not sample) */
    int nimp;                  /* contact sets whose friction is implicit in the structure step */
    int *imp_set;              /* ... their indices */
    double *imp_D;             /* ... 36 each: friction slope matrix D of the step (column-major) */
    double *imp_E;             /* (6 nimp)^2: the D blocks on the diagonal, for br_genalpha_solve */
    double *imp_xip;           /* 6 nimp: each set's relative twist (c, w) at the predicted state */
    double *imp_dxi;           /* 6 nimp: its change at the equation time */
    double *imp_dxu;           /* 6 nimp: ... of its mean over the step (displacement / h) */
} br_data;

/* model, backend -> data at t = 0 with a contact field on that backend, or NULL with err */
br_data *br_data_create(const br_model *m, br_backend_kind backend, char *err, size_t errlen);

/* data -> freed (its field too) */
void br_data_free(br_data *d);

/* model, body states, t -> d->frames */
void br_fwd_frames(const br_model *m, br_data *d);

/* model, d->frames, t -> prescribed normal forces set, d->res (contact field advanced by h); 0, or -1 with err */
int br_fwd_contacts(const br_model *m, br_data *d, double h, char *err, size_t errlen);

/* model, d->frames, t -> rotational friction torques d->rot_tau over [t, t + h] (states
 * advanced, relative speeds frozen: exponential LuGre update) */
void br_fwd_joints(const br_model *m, br_data *d, double h);

/* model, t, frames, d->res, d->rot_tau -> d->f, d->tau, d->fext, d->text, d->load_val, d->spring_val,
 * and d->en (energy terms at t) */
void br_fwd_loads(const br_model *m, br_data *d);

/* model, d->g (structure forces), frames -> the structure's acceleration at t_{n+1} in d->ga->a1;
 * results of the sets with implicit friction corrected to the force applied (F, M, P, E) */
void br_fwd_accel(const br_model *m, br_data *d);

/* model, forces (and d->ga->a1 from br_fwd_accel), h -> body states and t advanced by one step;
 * energy terms updated */
void br_integrate(const br_model *m, br_data *d, double h);

/* model, data -> 0 if every body state and set result is finite; else -1 with the
 * time and the body, or the set and point, named in err */
int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, data -> one full step (the six stages); 0 or -1 with err */
int br_step(const br_model *m, br_data *d, char *err, size_t errlen);

#endif
