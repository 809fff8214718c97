/* sim.h: the mutable data of a run and the stages of one time step.
 *
 * One step from t_n to t_{n+1} = t_n + h, data flowing one way:
 *   br_fwd_frames    body states, t_n -> world frames: free bodies at t_n (as the field sees
 *                    those of the implicit system: pose at t_n, twist predicted v_n + h a_{n-1});
 *                    beams and the bodies attached to them at the state predicted for the
 *                    generalized-alpha equation time t_n + tau (tau = (1 - af) h),
 *                    u_n + (1 - af)(h v_n + h^2/2 a_n), v_n + tau a_n
 *   br_fwd_contacts  frames, prescribed normal forces -> contact field step -> per-set wrenches,
 *                    energy terms and (implicit coupling) the tangents of the wrenches; bristle
 *                    states advanced once over the step with V_t of the frames frozen
 *   br_fwd_joints    frames -> rotational friction torques (states advanced, host/model/joint_friction.c)
 *   br_fwd_loads     t_n, frames, wrenches -> total force and torque per body, generalized forces
 *                    on the structure (loads at t_n + tau) and the energy terms at t_n
 *   br_fwd_accel     forces, tangents -> accelerations over the step: the structure by
 *                    generalized-alpha, free bodies by the implicit Euler velocity update; with
 *                    time.coupling implicit (the default) both take each contact wrench at the
 *                    state they solve for, W + dW/dxi_u dxi_u + dW/dxi_v dxi_v about the state
 *                    the field saw, so contact stiffness and damping do not bound h
 *   br_check_finite  every state and result finite, or the time and the body/set/point named
 *   br_integrate     accelerations, h -> free bodies: v_{n+1} = v_n + h a, x_{n+1} = x_n + h v_{n+1},
 *                    w_{n+1} = w_n + h alpha, q_{n+1} = exp(h w_{n+1}/2) q_n; the structure by
 *                    generalized-alpha; the work of the loads over the step
 * Nothing after br_fwd_contacts writes into the field or its results.
 * docs/time-stepping.md gives the schemes, their stability and the measured accuracy. */
#ifndef BR_SIM_H
#define BR_SIM_H

#include "kernels/beam_step.h"
#include "model/beam.h"
#include "field/field.h"
#include "step/genalpha.h"
#include "model/model.h"

/* br_energy_terms: kernels/beam_step.h */

/* Substeps of a run (summary.json "substeps") */
typedef struct br_substeps {
    long split;                /* output steps taken in more than one substep */
    long taken;                /* substeps taken in those */
    long rejected;             /* steps tried and taken again smaller */
    long unresolved;           /* substeps at the smallest level whose error was still above 1 */
    double h_min, t_min;       /* the smallest substep and the time it started */
    double wall;               /* wall time of the output steps that were split or rejected */
} br_substeps;

/* the finest substep: dt / 2^BR_SUB_LEVELS (BR_GA_LEVELS - 1) */
#define BR_SUB_LEVELS 15

/* substeps with small errors in a row before the step may double */
#define BR_SUB_CALM 8

typedef struct br_data {
    double t;                  /* time of the current state */
    long step;                 /* steps taken */
    double *x, *q, *v, *w;     /* per body: CoM position (3), attitude (4), velocity (3), angular velocity (3) */
    double *f, *tau;           /* per body: total force and torque about the CoM this step (world) */
    double *fext, *text;       /* per body: the part from loads and gravity (for the input work) */
    br_frame_state *frames;    /* every frame at t (ground, bodies, kinematic frames) */
    br_frame_state *fframes;   /* ... as the contact field sees them: the free bodies of the implicit
                                * system with their twist predicted, v_n + h a_{n-1} */
    double *vpred;             /* per body: that predicted change of (v, w), 6 */
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
    double *setP, *setPnd;     /* per contact set: friction and normal-damping power of the step */
    double *setE, *setEnd;     /* ... their energy integrals up to t_{n+1} (after br_fwd_accel) */
    double *E_upto, *End_upto; /* ... and up to t */
    double p_drive;            /* power the prescribed frames (kinematic frames) put in at t */
    double p_spring_loss;      /* power dissipated by spring dampers at t */
    br_field *field;           /* NULL when the caller steps the sets in a field of its own (a study) */
    br_contact_set_desc *desc; /* the contact sets as the field takes them (tangent flags set) */
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
    double *Nset;              /* per contact set: prescribed total normal force at t, or -1 */
    double *acc;               /* per body: linear and angular acceleration over the step (6) */
    /* implicit coupling (docs/time-stepping.md) */
    int nimp;                  /* contact sets acting on the structure */
    int *imp_set;              /* ... their indices */
    int *set_imp;              /* per contact set: its index among them, or -1 */
    double *imp_du, *imp_dv;   /* 6 nimp each: L (u - u_pred), L (v - v_pred) at the equation time */
    double *imp_dm;            /* 6 nimp: L ((u_{n+1} - u_n) / h - v_pred) */
    double *imp_E;             /* 36 nimp: per set the block ck K + cc C, for br_genalpha_solve */
    double theta;              /* 1 - rho_inf^2: the free bodies' contact stiffness at x_n + h dv + theta h v_n */
    int nrb;                   /* free bodies in the implicit rigid-body system */
    int *rb_slot;              /* per body: its block in that system, or -1 (explicit) */
    int nrbset;                /* contact sets acting on a body of the system */
    int *rb_set;               /* ... their indices */
    int *set_rb;               /* per contact set: 1 if it acts on a body of the system */
    int *rb_spring;            /* per body: 1 if only a spring joins it to the system (substeps: springs_implicit) */
    int nrbgroup;              /* groups of free bodies coupled through contact sets and springs */
    int *rb_group;             /* nrbgroup + 1: the first block of each group (blocks numbered group by group) */
    double *rb_A, *rb_x;       /* (6 nrb)^2 matrix (its diagonal group blocks used) and 6 nrb right-hand side */
    int *rb_piv;               /* 6 nrb */
    br_drive_data *drv;        /* the drivetrain's state (NULL without one): solved by br_fwd_accel,
                                * committed by br_integrate */
    /* substeps (time.adaptive, docs/time-stepping.md): the output step dt is taken as substeps
     * dt / 2^level where the error estimate asks for them */
    double h;                  /* the step being taken: dt, or a substep */
    double h_prev;             /* the step taken before it (0 before the first): the loads' work quadrature */
    int level;                 /* its level: h = dt / 2^level */
    double theta_h, gam;       /* the free bodies' scheme this step (rigid_implicit): fixed steps theta and 1;
                                * adaptive steps 1 / gamma and gamma, gamma from 1/2 (trapezoidal) for
                                * resolved contacts to 1 (backward Euler) for unresolved ones */
    double *wend;              /* per contact set (18): its whole, friction and normal-damping wrenches on A at
                                * t as the integrators applied them (the gamma scheme's start of the step) */
    int wend_ok;               /* 1 once a step has set them */
    int substepping;           /* 1 while the run's controller steps (set_level), 0 for callers that step
                                * dt at a time (fixed_step): the gamma scheme only in the former */
    double err;                /* the step's error ratio (<= 1: accepted), from br_fwd_accel */
    double *set_geo;           /* per contact set, 8: the radius of its points about A's origin, their box in
                                * A's axes (min xyz, max xyz), the largest Hunt-Crossley K */
    double *set_vs;            /* per contact set: the largest speed of its points while in contact since it
                                * last came into contact (the error's speed scale, which does not vanish
                                * where a bounce turns) */
    struct br_ckpt *snap;      /* the state the step being tried started from */
    br_substeps sub;           /* what the substeps cost so far */
    int calm;                  /* accepted substeps in a row with error ratios of at most 1/4 */
    long sub_pos;              /* where the next substep starts in the output step, in dt / 2^BR_SUB_LEVELS */
    long sub_rej0;             /* sub.rejected when the output step began */
    double sub_wall0;          /* wall clock when it began */
} br_data;

/* model, backend -> data at t = 0 with a contact field on that backend, or NULL with err */
br_data *br_data_create(const br_model *m, br_backend_kind backend, char *err, size_t errlen);

/* as br_data_create; own_field 0: no field is made (d->desc says what one would hold), the caller
 * steps the sets elsewhere and fills d->res between br_fwd_contacts_prepare and br_step_after_contacts */
br_data *br_data_create_opt(const br_model *m, br_backend_kind backend, int own_field, char *err, size_t errlen);

/* data made without a field, backend -> a field of its own from d->desc; 0, or -1 with err */
int br_data_own_field(const br_model *m, br_data *d, br_backend_kind backend, char *err, size_t errlen);

/* data -> freed (its field too) */
void br_data_free(br_data *d);

/* model, body states, t -> d->frames */
void br_fwd_frames(const br_model *m, br_data *d);

/* model, data at t -> the energy integrals up to t kept (E_upto) and d->Nset (prescribed normal
 * forces): what the field step needs besides the frames */
void br_fwd_contacts_prepare(const br_model *m, br_data *d);

/* model, d->frames, t -> br_fwd_contacts_prepare, then d->res (contact field advanced by h);
 * 0, or -1 with err */
int br_fwd_contacts(const br_model *m, br_data *d, double h, char *err, size_t errlen);

/* model, d->frames, t -> rotational friction torques d->rot_tau over [t, t + h] (states
 * advanced, relative speeds frozen: exponential LuGre update) */
void br_fwd_joints(const br_model *m, br_data *d, double h);

/* model, t, frames, d->res, d->rot_tau -> d->f, d->tau, d->fext, d->text, d->load_val, d->spring_val,
 * and d->en (energy terms at t) */
void br_fwd_loads(const br_model *m, br_data *d);

/* model, d->g (structure forces), d->f, d->tau (body forces), frames, contact tangents -> the
 * structure's acceleration at t_{n+1} in d->ga->a1 and each free body's acceleration over the
 * step in d->acc; 0, or -1 with err when a linearized system is singular */
int br_fwd_accel(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, accelerations (d->acc, d->ga->a1 from br_fwd_accel), h -> body states and t advanced by
 * one step; energy terms updated */
void br_integrate(const br_model *m, br_data *d, double h);

/* model, data -> 0 if every body state and set result is finite; else -1 with the
 * time and the body, or the set and point, named in err */
int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, data at t_n, energy (1: the energy terms at t_n are computed; 0: br_fwd_loads may skip the
 * structure's), wall_field (NULL, or seconds spent in the contact field added to it) -> the stages
 * from br_fwd_frames to br_check_finite: the step's forces, results and accelerations, state still
 * at t_n (the caller reads them, then calls br_integrate). The one sequence that run and br_step
 * share; a study runs the same stages with one field for all its variants (br_fwd_frames,
 * br_fwd_contacts_prepare, its field step, br_step_after_contacts). 0, or -1 with err */
int br_step_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen);

/* model, data with d->res of this step -> the stages after the field: br_fwd_joints, br_fwd_loads
 * (energy: as br_step_forces), br_fwd_accel, br_check_finite; 0, or -1 with err */
int br_step_after_contacts(const br_model *m, br_data *d, int energy, char *err, size_t errlen);

/* model, data -> one full step (br_step_forces with energy terms, br_integrate); 0 or -1 with err */
int br_step(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, data -> 1 if the run takes substeps: time.adaptive, with a contact set on a free body (whose
 * error the steps estimate; without one every step would be accepted, and no snapshot is taken) */
int br_data_adapts(const br_model *m, const br_data *d);

/* The run's step from t_n to t_n + dt, adaptive where m->adaptive (else as br_step_forces and
 * br_integrate): br_step_begin tries substeps from the current level, taking each again at half
 * the length while its error ratio d->err exceeds 1, until the first one is accepted; its forces
 * and results are there to sample, the state still at t_n. br_step_end integrates it and takes the
 * rest of the output step in substeps chosen the same way, the level halving the step on a
 * rejection and doubling it after an error ratio below 1/4 where the grid allows; it ends at
 * t_{n+1} = (n + 1) dt exactly. energy, wall_field: as br_step_forces. 0, or -1 with err. */
int br_step_begin(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen);
int br_step_end(const br_model *m, br_data *d, double *wall_field, char *err, size_t errlen);

/* The parts of br_data a time-series row's columns read (host/io/output.c) and a batch's
 * sample keeps (beam_batch.c), as bits: t and the bodies' x, v, w; the sets' results,
 * powers, energies and frames; the loads; springs, rotational elements and the drivetrain; the energy
 * terms. */
enum { BR_OUT_BODIES = 1, BR_OUT_SETS = 2, BR_OUT_LOADS = 4, BR_OUT_OTHER = 8, BR_OUT_ENERGY = 16, BR_OUT_ALL = 31 };

#endif
