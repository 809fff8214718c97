/* data.h: the mutable data of a run (as MuJoCo's mjData beside the read-only model): states, the
 * step's buffers and results, allocated by br_data_alloc (step/data.c), started by br_data_create
 * (step/sim.c). In: a model; out:
 * what every stage of step/ reads and writes. */
#ifndef BR_DATA_H
#define BR_DATA_H

#include <string.h>

#include "kernels/step/stages.h"
#include "model/beam.h"
#include "field/field.h"
#include "step/genalpha.h"
#include "model/model.h"

/* br_energy_terms: kernels/step/ */

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
    int nimp;                  /* blocks of six contact rows on the structure: a rigid set's one, a deforming
                                * interface's one per two points */
    int *imp_set;              /* ... the set of each */
    int *set_imp;              /* per contact set: its first block, or -1 */
    double **iface_iu;         /* per contact set: a deforming interface's inputs in the field (br_field_iface), */
    const double **iface_ipt;  /* ... and its outputs; NULL for the others */
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
    br_frame_state *kf_ahead;  /* 2 per kinematic frame: its state at t + tau_s, then at t + h (br_fwd_accel) */
    br_step_model sm;            /* the step's flat model (kernels/step/), built once by br_data_compile */
    void *sm_mem;              /* ... its arrays */
    br_step_var view;            /* the data as the stages take it (br_data_var) */
    br_ga_shape view_sh;       /* ... the structure's shape */
} br_data;

/* model, backend, own_field (as br_data_create_opt, sim.h) -> data with every buffer, the field (when
 * own_field), the structure and the implicit coupling's blocks allocated, states at t = 0, nothing
 * stepped; or NULL with err. br_data_create_opt completes it (first frames, loads, energy reference) */
br_data *br_data_alloc(const br_model *m, br_backend_kind backend, int own_field, char *err, size_t errlen);

/* model, data at t = 0 (structure undeformed, frames built) -> the rows of the structure's implicit
 * sets handed to its integrator (step/data.c); 0, or -1 */
int br_data_rows(const br_model *m, br_data *d);

/* data made without a field, backend -> a field of its own from d->desc; 0, or -1 with err */
int br_data_own_field(const br_model *m, br_data *d, br_backend_kind backend, char *err, size_t errlen);

/* model, data with its structure and implicit coupling set up -> d->sm, the flat model the step's
 * stages (kernels/step/) read: bodies, loads, springs, rotational elements and sets as
 * arrays, with the data's derived constants (structure nodes, the free bodies' blocks, coupled
 * sets); step/view.c. 0, or -1 out of memory */
int br_data_compile(const br_model *m, br_data *d);

/* data, the step h -> its view for the stages (every array stride 1, the step's scalars now, the
 * structure at its current level), and in *sh the structure's shape, or NULL without a structure */
br_step_var *br_data_var(br_data *d, double h, const br_ga_shape **sh);

/* data -> freed (its field too) */
void br_data_free(br_data *d);

/* Lookups on the model and the data, for the stages (static inline) */

/* frame index -> body index, or -1 for the ground and kinematic frames */
static inline int frame_body(const br_model *m, int fr) { return fr >= 1 && fr <= m->nbody ? fr - 1 : -1; }

/* body -> its structure node, or -1 for a free body */
static inline int body_node(const br_model *m, const br_data *d, int b)
{
    const br_body *B = &m->body[b];
    return B->part >= 0 ? d->st->node0[B->part] + B->node : -1;
}

/* frame -> 1 if it is a free rigid body (one with DOFs of its own) */
static inline int frame_free_body(const br_model *m, int fr)
{
    const int b = frame_body(m, fr);
    return b >= 0 && m->body[b].part < 0;
}

/* frame -> 1 if it is a kinematic frame (prescribed motion) */
static inline int frame_prescribed(const br_model *m, int fr) { return fr > m->nbody; }

static inline void mat6_vec(const double *X, const double *x, double *y, int acc) { br_step_mat6_vec(X, x, y, acc); }

/* The parts of br_data a time-series row's columns read (host/io/output.c) and a batch's
 * sample keeps (beam_batch.c), as bits: t and the bodies' x, v, w; the sets' results,
 * powers, energies and frames; the loads; springs, rotational elements and the drivetrain; the energy
 * terms. */
enum { BR_OUT_BODIES = 1, BR_OUT_SETS = 2, BR_OUT_LOADS = 4, BR_OUT_OTHER = 8, BR_OUT_ENERGY = 16, BR_OUT_ALL = 31 };

#endif
