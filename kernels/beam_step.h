/* beam_step.h: the time step's stages, written once over a flat model (br_bm_model: arrays a device
 * takes as they are) and one variant's view (br_bm_var: every array a pointer, the structure's with a
 * stride), for a single run (host/step/, a batch of one: stride 1, host/step/view.c) and for batches
 * of variants (host/step/beam_batch.c on CPU threads, kernels/beam_cuda.cu a GPU thread a variant):
 *   br_bm_frames      states at t_n -> every body's frame (the structure predicted at its equation
 *                     time), the field's view (implicit free bodies' twists predicted)
 *   (the contact field steps every set: the caller)
 *   br_bm_loads       set results, loads, springs, gravity, joints -> the structure's generalized
 *                     forces g, gext, the free bodies' forces, the energy terms (br_bm_residual)
 *   br_bm_accel_pre   the structure's contact rows: prescribed sides' forces, E blocks (then the
 *                     structure's solve, kernels/ga_step.h, and the free bodies': the caller's)
 *   br_bm_accel_post  the row changes, each set's friction and normal-damping power over the step,
 *                     the substeps' error ratio
 *   br_bm_check       a stop code (what stopped it and the set, body or term; the caller words it)
 *   br_bm_integrate   the structure's u, v, a and the free bodies to t_{n+1}; the loads' work and
 *                     the Rayleigh and damper losses
 * The host stages of the same step (host/step/): the kinematic frames and the loads' time functions,
 * the rotational joints' bristles, the drivetrain, the free bodies' implicit system (LAPACK), the
 * field. A batch takes what its stages can: a beam batch, models whose bodies all ride on beams
 * (kernels/beam_store.h). Load magnitudes of a batch are the flat time functions of
 * kernels/timefn_flat.h. Nothing here allocates. */
#ifndef BR_BEAM_STEP_H
#define BR_BEAM_STEP_H

#include "ga_step.h"
#include "point_kinematics.h"
#include "point_tangent.h"
#include "set_result.h"
#include "struct_body.h"
#include "timefn_flat.h"

/* The energy terms of a run (physics.md section 7), J */
typedef struct br_energy_terms {
    double work_in;        /* work of loads, gravity and prescribed frames since t = 0 */
    double kinetic;        /* kinetic energy of all bodies */
    double kinetic0;       /* ... at t = 0 */
    double spring;         /* elastic energy of the springs and beams */
    double spring0;        /* ... at t = 0 */
    double spring_loss;    /* dissipated by spring dampers and Rayleigh damping since t = 0 */
    double contact_el;     /* stored in the normal contact springs */
    double contact_el0;    /* ... at t = 0 (points pressed in from the start) */
    double bristle;        /* stored in the bristles */
    double friction_loss;  /* friction energy dissipated: integral of P minus stored bristle energy */
    double normal_loss;    /* dissipated by normal-contact damping */
    double residual;       /* input - (everything else), J */
    double residual_rel;   /* |residual| / reference (input work plus initial energy) */
} br_energy_terms;

/* ---- formulas host/step/sim.c uses for every model ---- */

/* 6x6 column-major X, 6-vectors: y = X x (acc: y += X x) */
BR_HD void br_bm_mat6_vec(const double *X, const double *x, double *y, int acc)
{
    for (int r = 0; r < 6; r++) {
        double t = acc ? y[r] : 0.0;
        for (int c = 0; c < 6; c++) t += X[6 * c + r] * x[c];
        y[r] = t;
    }
}

/* ck, cc, a set's tangent -> its block of the low-rank term, E = ck K + cc C */
BR_HD void br_bm_eblock(double ck, double cc, const br_set_tangent *T, double *E)
{
    for (int q = 0; q < 36; q++) E[q] = ck * T->K[q] + cc * T->C[q];
}

/* a set's tangent, friction wrench on A (Ff, Mf) and normal-damping power P_nd at the field's
 * linearization state xi (relative twist), the solved changes du, dv of the relative
 * displacement and twist and the mean twist xm over the step -> its friction power P (the
 * linearized friction wrench's) and normal-damping power Pnd (docs/time-stepping.md) */
BR_HD void br_bm_set_power(const br_set_tangent *T, const double Ff[3], const double Mf[3], double P_nd,
                           const double xi[6], const double du[6], const double dv[6], const double xm[6], double *P,
                           double *Pnd)
{
    const double Wf[6] = {Ff[0], Ff[1], Ff[2], Mf[0], Mf[1], Mf[2]};
    double t[6], Cn[36];
    br_bm_mat6_vec(T->Kf, du, t, 0);
    br_bm_mat6_vec(T->Cf, dv, t, 1);
    double p = 0.0;
    for (int j = 0; j < 6; j++) p -= (Wf[j] - t[j]) * xm[j];
    for (int j = 0; j < 36; j++) Cn[j] = T->C[j] - T->Cf[j];
    br_bm_mat6_vec(Cn, xm, t, 0);
    double pn = P_nd;
    for (int j = 0; j < 6; j++) pn += dv[j] * t[j] - T->Wd[j] * (xm[j] - xi[j]);
    *P = p, *Pnd = pn;
}

/* load weights wc (now) and wp (previous step), one row's load parts gext and gext_prev, u after
 * and uprev before the step, vprev (v before) and v after -> the row's work of the loads over the
 * step (their linear interpolation to the midpoint, a second-order quadrature); gext_prev <- gext,
 * vprev <- the midpoint velocity */
BR_HD double br_bm_load_work_row(double wc, double wp, const double *gext, double *gext_prev, const double *u,
                                 const double *uprev, double *vprev, const double *v)
{
    const double w = (wc * *gext + wp * *gext_prev) * (*u - *uprev);
    *gext_prev = *gext;
    *vprev = 0.5 * (*vprev + *v);
    return w;
}

/* n and the same for every row (strides) -> the rows' works added in row order */
BR_HD double br_bm_load_work(int n, double wc, double wp, const double *gext, long sg, double *gext_prev, long sgp,
                             const double *u, long su, const double *uprev, long sup, double *vprev, long svp,
                             const double *v, long sv)
{
    double wl = 0.0;
    for (int i = 0; i < n; i++)
        wl += br_bm_load_work_row(wc, wp, gext + i * sg, gext_prev + i * sgp, u + i * su, uprev + i * sup,
                                  vprev + i * svp, v + i * sv);
    return wl;
}

/* energy terms at t (with work_in, the initial energies and every stored and dissipated term),
 * the largest reference so far -> residual, residual_rel and that reference updated */
BR_HD void br_bm_residual(br_energy_terms *en, double *res_ref)
{
    const double have = en->work_in + en->kinetic0 + en->spring0 + en->contact_el0;
    en->residual = have - (en->kinetic + en->spring + en->spring_loss + en->contact_el + en->bristle +
                           en->friction_loss + en->normal_loss);
    const double ref = fabs(en->work_in) + en->kinetic0 + en->spring0 + en->contact_el0;
    if (ref > *res_ref) *res_ref = ref;
    en->residual_rel = *res_ref > 0 ? fabs(en->residual) / *res_ref : 0.0;
}

/* ---- the step over a model and one variant's view ---- */

/* a load: a force (at a point, body coordinates about the CoM) or a torque on a body */
typedef struct br_bm_load {
    int body, torque, body_axes;
    double point[3], dir[3];
} br_bm_load;

/* a contact set: its frames (0 the ground, 1 + b body b, then the kinematic frames), counter
 * surface, and how its wrench enters the integrators: linearized (implicit coupling, its tangent
 * used and checked) through the structure's contact rows (imp: its block of six) or the free
 * bodies' system (rb), or as the field computed it */
typedef struct br_bm_set {
    int frame_a, frame_b, surface;
    double plane_p[3], plane_n[3], radius;
    int coupled;                 /* imp >= 0 or rb */
    int imp;                     /* its block among the structure's contact rows, or -1 */
    int rb;                      /* 1: it acts on a free body of the implicit system */
    int prescribed;              /* its normal force is prescribed (the substeps' entry check skips it) */
    long npoints;
    double pK;                   /* Hunt-Crossley exponent (the entry check's energy) */
} br_bm_set;

/* a spring-damper between two frames (host/model/model.h's br_spring: its numbers) */
typedef struct br_bm_spring {
    int frame_a, frame_b, torsion, rope;
    double pa[3], pb[3], k, c, rest, axis[3];
} br_bm_spring;

/* a rotational friction element's frames and axis (its torque is a host stage's: step/contacts.c) */
typedef struct br_bm_rot {
    int frame_a, frame_b;
    double axis[3];
} br_bm_rot;

/* what every variant shares: the structure's DOF map and nodes, the bodies, loads, springs,
 * rotational elements and sets; arrays a device takes as they are */
typedef struct br_bm_model {
    int nnode, nbody, nload, nset, nspring, nrot, nframe;
    int adaptive;                /* substeps under the error estimate (the per-set error ratios) */
    double atol, rtol;           /* their tolerance */
    const int *dof;              /* 6 nnode */
    const double *X;             /* 3 nnode undeformed positions */
    const int *body_node;        /* nbody: its structure node, or -1 for a free body */
    const double *body_q0;       /* 4 nbody */
    const double *body_offset;   /* 3 nbody */
    const double *body_fg;       /* 3 nbody: mass times gravity */
    const double *body_mass;     /* nbody (free bodies: their kinetic energy; NULL without them) */
    const double *body_Ib;       /* 9 nbody: inertia about the CoM, body axes (the same) */
    const int *rb_slot;          /* nbody: a free body's block in the implicit system, or -1 (NULL: none) */
    const int *rb_spring;        /* nbody: 1 if only a spring joins it to that system */
    const br_bm_load *load;
    const br_bm_set *set;
    const br_bm_spring *spring;
    const br_bm_rot *rot;
    double h;                    /* the step (a run's output step, which substeps divide) */
} br_bm_model;

/* one variant's state: the generalized-alpha state (any layout), the structure's vectors with a
 * stride, the rest contiguous. The free bodies' arrays, the springs' and the rotational elements'
 * are NULL where the model has none. */
typedef struct br_bm_var {
    br_ga_var ga;
    double *up, *vp, *g, *gext, *gext_prev, *uprev, *vprev; /* n each, stride s */
    long s;
    double *xnode;               /* 3 nnode */
    br_frame_state *frames;      /* nframe: every frame (structure bodies at t + tau: the field's and the loads' view) */
    br_frame_state *fframes;     /* nframe: the field's view (implicit free bodies' twists predicted), or NULL: frames */
    double *bx, *bv, *bw;        /* 3 nbody: the bodies' state at t_n (structure bodies: reported) */
    double *bq;                  /* 4 nbody: their attitudes (free bodies) */
    double *f, *tau, *fext, *text; /* 3 nbody: a free body's total force and torque, and their load part */
    double *acc, *vpred;         /* 6 nbody: a free body's acceleration over the step, its predicted twist change */
    double *load_val;            /* nload: the loads' magnitudes (at t + tau on the structure, t elsewhere) */
    const br_tf_flat *mag;       /* nload: this variant's load magnitudes in flat form (br_bm_load_values), or NULL */
    double *spring_val, *spring_angle; /* nspring */
    const double *rot_tau, *rot_Eb, *rot_E_upto; /* nrot: the host stage's torque, stored and dissipated energy */
    double *E_upto, *End_upto, *setP, *setPnd, *setE, *setEnd; /* nset */
    double *imp_E, *imp_du, *imp_dv, *imp_dm;                  /* 36 nset, 6 nset each */
    br_energy_terms *en;
    double *res_ref, *p_drive;
    double *p_spring_loss;       /* or NULL (no springs) */
    const br_frame_state *kf_tau, *kf_h; /* the kinematic frames at t + tau_s and t + h (a host stage), or NULL */
    double *wend;                /* 18 nset: a free body's set's wrenches at the end of the last step (or NULL) */
    double *set_geo, *set_vs;    /* 8 nset, nset: the substeps' set geometry and speed scale (or NULL) */
    double *err;                 /* the step's error ratio (or NULL) */
    double theta_h;              /* the free bodies' theta this step */
    double tau_s;                /* the structure's generalized-alpha equation time after t_n, (1 - af) h */
    double h, h_prev;            /* this step and the one before (0 before the first); h_prev < 0: fixed steps,
                                  * the previous one h from the second step on */
    double gam;                  /* the free bodies' gamma scheme (1: symplectic Euler) */
    int substepping;             /* 1 under a run's step controller */
    double t;
    long step;
} br_bm_var;

/* the frames a force or wrench on frame fr goes to: a body's index, or -1 (the ground, a kinematic frame) */
BR_HD int br_bm_frame_body(const br_bm_model *m, int fr) { return fr >= 1 && fr <= m->nbody ? fr - 1 : -1; }

/* model, shape (NULL: no structure), variant at t_n, the kinematic frames' states already in
 * frames (a host stage: their time functions) -> the ground's, the bodies' frames (structure bodies
 * at the equation time, the structure predicted; their reported states at t_n), the field's view */
BR_HD void br_bm_frames(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x)
{
    br_frame_state *g = &x->frames[0];
    for (int j = 0; j < 3; j++) g->x[j] = g->v[j] = g->w[j] = 0.0;
    for (int j = 0; j < 9; j++) g->R[j] = j % 4 == 0 ? 1.0 : 0.0;
    if (sh) {
        br_ga_predict(sh, &x->ga, x->up, x->vp, x->s);
        for (int k = 0; k < m->nnode; k++)
            for (int j = 0; j < 3; j++) {
                const int gi = m->dof[6 * k + j];
                x->xnode[3 * k + j] = m->X[3 * k + j] + (gi >= 0 ? x->up[(long)gi * x->s] : 0.0);
            }
    }
    for (int b = 0; b < m->nbody; b++) {
        br_frame_state *fs = &x->frames[1 + b];
        const int node = m->body_node[b];
        if (node >= 0) {
            br_frame_state now;
            br_sb_body_frame(m->dof, m->X, node, m->body_q0 + 4 * b, m->body_offset + 3 * b, x->ga.u, x->ga.s, x->ga.v,
                             x->ga.s, &now);
            for (int j = 0; j < 3; j++) x->bx[3 * b + j] = now.x[j], x->bv[3 * b + j] = now.v[j], x->bw[3 * b + j] = now.w[j];
            br_sb_body_frame(m->dof, m->X, node, m->body_q0 + 4 * b, m->body_offset + 3 * b, x->up, x->s, x->vp, x->s,
                             fs);
            continue;
        }
        for (int j = 0; j < 3; j++) fs->x[j] = x->bx[3 * b + j], fs->v[j] = x->bv[3 * b + j], fs->w[j] = x->bw[3 * b + j];
        br_sb_quat_R(x->bq + 4 * b, fs->R);
    }
    if (!x->fframes) return;
    /* the field's view: free bodies of the implicit system with the velocity change of the last
     * step repeated (their pose stays at t_n: the position enters the step as symplectic Euler's) */
    for (int k = 0; k < m->nframe; k++) x->fframes[k] = x->frames[k];
    for (int b = 0; m->rb_slot && b < m->nbody; b++) {
        if (m->rb_slot[b] < 0 || (!x->substepping && m->rb_spring[b])) continue; /* the latter: explicit */
        for (int j = 0; j < 6; j++) x->vpred[6 * b + j] = x->h * x->acc[6 * b + j];
        for (int j = 0; j < 3; j++) x->fframes[1 + b].v[j] += x->vpred[6 * b + j], x->fframes[1 + b].w[j] += x->vpred[6 * b + 3 + j];
    }
}

/* model, variant -> the energy integrals of its sets up to t_n kept (the step's start) */
BR_HD void br_bm_contacts_prepare(const br_bm_model *m, br_bm_var *x)
{
    for (int s = 0; s < m->nset; s++) x->E_upto[s] = x->setE[s], x->End_upto[s] = x->setEnd[s];
}

/* model, variant with flat magnitudes -> its loads' magnitudes (the batches' evaluation; a run's
 * time functions are the host's, step/loads.c) */
BR_HD void br_bm_load_values(const br_bm_model *m, br_bm_var *x)
{
    for (int l = 0; l < m->nload; l++)
        x->load_val[l] = br_tf_flat_eval(&x->mag[l], x->t + (m->body_node[m->load[l].body] >= 0 ? x->tau_s : 0.0));
}

/* model, variant, frame fr, world force f at world point p, ext (1: a load: into the external
 * parts too) -> onto fr's body (its node's generalized forces, or a free body's force and
 * torque), or the work of the ground's or a kinematic frame's driver */
BR_HD void br_bm_add_force(const br_bm_model *m, br_bm_var *x, int fr, const double f[3], const double p[3], int ext)
{
    const int b = br_bm_frame_body(m, fr);
    const br_frame_state *fs = &x->frames[fr];
    const double r[3] = {p[0] - fs->x[0], p[1] - fs->x[1], p[2] - fs->x[2]};
    double t[3];
    br_cross3(r, f, t);
    if (b < 0) { /* ground or prescribed frame: its driver does the work f does not */
        double vp[3];
        br_cross3(fs->w, r, vp);
        for (int j = 0; j < 3; j++) vp[j] += fs->v[j];
        *x->p_drive -= br_dot3(f, vp);
        return;
    }
    const int node = m->body_node[b];
    if (node >= 0) {
        br_sb_add_force(m->dof, node, x->xnode + 3 * node, f, p, x->g, x->s);
        if (ext) br_sb_add_force(m->dof, node, x->xnode + 3 * node, f, p, x->gext, x->s);
        return;
    }
    for (int j = 0; j < 3; j++) {
        x->f[3 * b + j] += f[j];
        x->tau[3 * b + j] += t[j];
        if (ext) x->fext[3 * b + j] += f[j], x->text[3 * b + j] += t[j];
    }
}

/* model, variant, frame fr, a wrench (F, M about the frame's origin) -> onto fr's body, or the
 * driver's power */
BR_HD void br_bm_add_wrench(const br_bm_model *m, br_bm_var *x, int fr, const double F[3], const double M[3])
{
    const int b = br_bm_frame_body(m, fr);
    if (b < 0) {
        *x->p_drive -= br_dot3(F, x->frames[fr].v) + br_dot3(M, x->frames[fr].w);
        return;
    }
    const int node = m->body_node[b];
    if (node >= 0) {
        br_sb_add_force(m->dof, node, x->xnode + 3 * node, F, x->frames[fr].x, x->g, x->s);
        br_sb_add_torque(m->dof, node, M, x->g, x->s);
        return;
    }
    for (int j = 0; j < 3; j++) x->f[3 * b + j] += F[j], x->tau[3 * b + j] += M[j];
}

/* model, variant, spring k -> its force onto its frames, its value, and its elastic energy
 * (returned) and damper power (into *loss) at t */
BR_HD double br_bm_spring_force(const br_bm_model *m, br_bm_var *x, int k, double *loss)
{
    const br_bm_spring *S = &m->spring[k];
    const br_frame_state *A = &x->frames[S->frame_a], *B = &x->frames[S->frame_b];
    double ra[3], rb[3], pa[3], pb[3], va[3], vb[3], dd[3], dv[3], F[3], mF[3], e_el;
    br_mat3_vec(A->R, S->pa, ra);
    br_mat3_vec(B->R, S->pb, rb);
    br_cross3(A->w, ra, va);
    br_cross3(B->w, rb, vb);
    for (int j = 0; j < 3; j++) {
        pa[j] = A->x[j] + ra[j], pb[j] = B->x[j] + rb[j];
        va[j] += A->v[j], vb[j] += B->v[j];
        dd[j] = pb[j] - pa[j], dv[j] = vb[j] - va[j];
    }
    if (S->torsion) {
        /* torque T about the axis: -T on b, +T on a */
        const double rate = br_dot3(B->w, S->axis) - br_dot3(A->w, S->axis), th = x->spring_angle[k];
        const double T = S->k * th + S->c * rate;
        const double Ma[3] = {T * S->axis[0], T * S->axis[1], T * S->axis[2]};
        const double Mb[3] = {-Ma[0], -Ma[1], -Ma[2]}, z3[3] = {0, 0, 0};
        x->spring_val[k] = T;
        *loss += S->c * rate * rate;
        br_bm_add_wrench(m, x, S->frame_a, z3, Ma);
        br_bm_add_wrench(m, x, S->frame_b, z3, Mb);
        return 0.5 * S->k * th * th;
    }
    if (S->rest > 0.0) {
        const double L = sqrt(br_dot3(dd, dd));
        double e[3] = {0, 0, 0};
        if (L > 0)
            for (int j = 0; j < 3; j++) e[j] = dd[j] / L;
        const double rate = br_dot3(dv, e);
        /* a rope: slack (no force, no energy) at or below its rest length, never pushing; the
         * loss is the force's power beyond the elastic part's, (mag - k ext) rate: c rate^2
         * while taut and pulling, -k ext rate >= 0 where the damper would push (mag clipped) */
        const double ext = S->rope && L <= S->rest ? 0.0 : L - S->rest;
        double mag = S->k * ext + S->c * rate;
        if (S->rope && (ext == 0.0 || mag < 0.0)) mag = 0.0;
        for (int j = 0; j < 3; j++) F[j] = mag * e[j];
        x->spring_val[k] = mag;
        e_el = 0.5 * S->k * ext * ext;
        *loss += S->rope ? (mag - S->k * ext) * rate : S->c * rate * rate;
    } else {
        for (int j = 0; j < 3; j++) F[j] = S->k * dd[j] + S->c * dv[j];
        x->spring_val[k] = sqrt(br_dot3(F, F));
        e_el = 0.5 * S->k * br_dot3(dd, dd);
        *loss += S->c * br_dot3(dv, dv);
    }
    for (int j = 0; j < 3; j++) mF[j] = -F[j];
    br_bm_add_force(m, x, S->frame_a, F, pa, 0);
    br_bm_add_force(m, x, S->frame_b, mF, pb, 0);
    return e_el;
}

/* model, shape (NULL: no structure), variant with its sets' results res[nset] and its loads'
 * magnitudes, energy (1: the structure's energy terms this step; 0: skipped) -> every body's
 * forces (the structure's g and its load part gext, the free bodies' f, tau and their load parts),
 * the drivers' and the dampers' power, the stored and dissipated energy terms at t (the drivetrain's
 * and the residual: the caller's, br_bm_residual) */
BR_HD void br_bm_loads(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x, const br_set_result *res, int energy)
{
    br_energy_terms *en = x->en;
    for (int j = 0; x->f && j < 3 * m->nbody; j++) x->f[j] = x->tau[j] = x->fext[j] = x->text[j] = 0.0;
    *x->p_drive = 0.0;
    double spring_loss = 0.0;
    en->kinetic = 0.0;
    double struct_elastic = 0.0;
    if (sh) {
        for (int i = 0; i < sh->n; i++) x->g[i * x->s] = 0.0, x->gext[i * x->s] = 0.0;
        if (energy) br_ga_energies(sh, &x->ga, &en->kinetic, &struct_elastic);
    }
    for (int b = 0; b < m->nbody; b++) {
        const double *fg = m->body_fg + 3 * b;
        if (m->body_node[b] >= 0) {
            if (fg[0] != 0 || fg[1] != 0 || fg[2] != 0) br_bm_add_force(m, x, 1 + b, fg, x->frames[1 + b].x, 1);
            continue;
        }
        for (int j = 0; j < 3; j++) x->f[3 * b + j] = x->fext[3 * b + j] = fg[j];
        en->kinetic += br_sb_kinetic(m->body_mass[b], m->body_Ib + 9 * b, x->frames[1 + b].R, x->bv + 3 * b, x->bw + 3 * b);
    }
    for (int l = 0; l < m->nload; l++) {
        const br_bm_load *L = &m->load[l];
        const br_frame_state *fs = &x->frames[1 + L->body];
        const int b = L->body, node = m->body_node[b];
        const double a = x->load_val[l];
        double dir[3], f[3];
        if (L->body_axes) br_mat3_vec(fs->R, L->dir, dir);
        else for (int j = 0; j < 3; j++) dir[j] = L->dir[j];
        for (int j = 0; j < 3; j++) f[j] = a * dir[j];
        if (L->torque && node >= 0) {
            br_sb_add_torque(m->dof, node, f, x->g, x->s);
            br_sb_add_torque(m->dof, node, f, x->gext, x->s);
        } else if (L->torque) {
            for (int j = 0; j < 3; j++) x->tau[3 * b + j] += f[j], x->text[3 * b + j] += f[j];
        } else {
            double p[3];
            br_mat3_vec(fs->R, L->point, p);
            for (int j = 0; j < 3; j++) p[j] += fs->x[j];
            br_bm_add_force(m, x, 1 + b, f, p, 1);
        }
    }
    en->spring = struct_elastic;
    for (int k = 0; k < m->nspring; k++) en->spring += br_bm_spring_force(m, x, k, &spring_loss);
    if (x->p_spring_loss) *x->p_spring_loss = spring_loss;
    en->contact_el = en->bristle = en->friction_loss = en->normal_loss = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &res[s];
        br_bm_add_wrench(m, x, m->set[s].frame_a, r->F_A, r->M_A);
        br_bm_add_wrench(m, x, m->set[s].frame_b, r->F_B, r->M_B);
        en->contact_el += r->E_el;
        en->bristle += r->E_b;
        en->friction_loss += x->E_upto[s] - r->E_b;
        en->normal_loss += x->End_upto[s];
    }
    for (int k = 0; k < m->nrot; k++) {
        const br_bm_rot *e = &m->rot[k];
        const double T[3] = {x->rot_tau[k] * e->axis[0], x->rot_tau[k] * e->axis[1], x->rot_tau[k] * e->axis[2]};
        const double mT[3] = {-T[0], -T[1], -T[2]}, z3[3] = {0, 0, 0};
        br_bm_add_wrench(m, x, e->frame_a, z3, mT);
        br_bm_add_wrench(m, x, e->frame_b, z3, T);
        en->bristle += x->rot_Eb[k];
        en->friction_loss += x->rot_E_upto[k] - x->rot_Eb[k];
    }
}

/* model, frames, set s, side (0: A, 1: B) -> the 6x6 map L (column-major) from that frame's twist
 * (v, w at its origin) to the set's relative twist at A's origin: I for A; [-I, [dx]x; 0, -I] for B,
 * dx = x_A - x_B (its transpose carries A's wrench to B's: W_B = L_B^T W_A) */
BR_HD void br_bm_side_map(const br_bm_model *m, const br_frame_state *frames, int s, int side, double L[36])
{
    for (int k = 0; k < 36; k++) L[k] = 0.0;
    if (side == 0) {
        for (int k = 0; k < 6; k++) L[7 * k] = 1.0;
        return;
    }
    const double *xa = frames[m->set[s].frame_a].x, *xb = frames[m->set[s].frame_b].x;
    const double dx[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
    for (int k = 0; k < 6; k++) L[7 * k] = -1.0;
    /* [dx]x in rows 0-2, columns 3-5 */
    L[6 * 4 + 0] = -dx[2], L[6 * 5 + 0] = dx[1];
    L[6 * 3 + 1] = dx[2], L[6 * 5 + 1] = -dx[0];
    L[6 * 3 + 2] = -dx[1], L[6 * 4 + 2] = dx[0];
}

/* model, variant, set s with implicit coupling, later (the kinematic frames at the end of the span
 * of its linearization: t + h for free bodies, t + tau for the structure) and the travel factors
 * (theta h and gamma h for free bodies, tau and 0 for the structure) -> du, dv += the change of the
 * set's relative displacement and twist from the motion of its prescribed sides, which the field saw
 * at t_n: travel L V_B(t_n) + dv_travel L (V_B(later) - V_B(t_n)) (a free body's displacement
 * h (V_n + gamma dV)) and L (V_B(later) - V_B(t_n)). The ground adds nothing. */
BR_HD void br_bm_prescribed_change(const br_bm_model *m, const br_bm_var *x, int s, const br_frame_state *later,
                                   double travel, double dv_travel, double du[6], double dv[6])
{
    for (int side = 0; side < 2; side++) {
        const int f = side ? m->set[s].frame_b : m->set[s].frame_a;
        if (f <= m->nbody) continue; /* not a kinematic frame */
        const br_frame_state *lt = &later[f - 1 - m->nbody], *now = &x->frames[f];
        const double V0[6] = {now->v[0], now->v[1], now->v[2], now->w[0], now->w[1], now->w[2]};
        const double dV[6] = {lt->v[0] - V0[0], lt->v[1] - V0[1], lt->v[2] - V0[2],
                              lt->w[0] - V0[3], lt->w[1] - V0[4], lt->w[2] - V0[5]};
        double L[36], t0[6], t1[6];
        br_bm_side_map(m, x->frames, s, side, L);
        br_bm_mat6_vec(L, V0, t0, 0);
        br_bm_mat6_vec(L, dV, t1, 0);
        for (int j = 0; j < 6; j++) du[j] += travel * t0[j] + dv_travel * t1[j], dv[j] += t1[j];
    }
}

/* model, shape, variant after br_bm_loads, res -> the structure's contact rows: the force of each
 * row set's prescribed sides' motion from t_n (where the field saw them) to t_n + tau into g, and
 * its E block (the solve's low-rank term; then the solve: the caller's) */
BR_HD void br_bm_accel_pre(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x, const br_set_result *res)
{
    const double ck = (1 - sh->af) * sh->beta * sh->h * sh->h, cc = (1 - sh->af) * sh->gamma * sh->h;
    for (int s = 0; s < m->nset; s++) {
        const int k = m->set[s].imp;
        if (k < 0) continue;
        double du[6] = {0}, dv[6] = {0}, w[6] = {0};
        br_bm_prescribed_change(m, x, s, x->kf_tau, x->tau_s, 0.0, du, dv);
        for (int j = 0; j < 6; j++) du[j] = -du[j], dv[j] = -dv[j];
        br_bm_mat6_vec(res[s].tan.K, du, w, 1);
        br_bm_mat6_vec(res[s].tan.C, dv, w, 1);
        br_ga_row_force(sh, &x->ga, k, w, x->g, x->s);
    }
    for (int s = 0; s < m->nset; s++)
        if (m->set[s].imp >= 0) br_bm_eblock(ck, cc, &res[s].tan, x->imp_E + 36 * m->set[s].imp);
}

/* twist (v, w), radius R -> |v| + R |w|: the largest speed of a point within R of the origin */
BR_HD double br_bm_twist_speed(const double x[6], double R) { return sqrt(br_dot3(x, x)) + R * sqrt(br_dot3(x + 3, x + 3)); }

/* set s coupled to free bodies, its frame data fr (the field's state), the relative twist xi the
 * field saw, its change dv to the solved one, the mean xm over the step, h -> the step's error ratio
 * for that set (1: at the tolerance), the larger of
 *   - the correction: a set in contact, |dv| against atol + rtol |xi| (speeds of its farthest point):
 *     the solved relative velocity minus the one predicted from the previous step's acceleration,
 *     the difference of a predictor and a corrector (Milne's device), h^2 times the rate of change
 *     of the contact acceleration: large at impacts, separations and stick-slip transitions, zero in
 *     steady stick and sliding;
 *   - the entry: a plane set out of contact whose points' box, moved by h xm, would end a depth
 *     delta in the plane, K delta^(pK+1) / (pK+1) (the elastic energy of the stiffest point there,
 *     which the step would make from nothing: the field saw no contact) against rtol times the
 *     energy scale of the set's free bodies: their kinetic energy plus the work of the forces on
 *     them over delta (a body at rest pressed onto the surface has the second alone). The
 *     relative velocity dv excludes what prescribed frames do: that change is known. */
BR_HD double br_bm_set_error(const br_bm_model *m, br_bm_var *x, const br_set_result *r, int s, const br_set_frame *fr,
                             const double xi[6], const double dv[6], const double xm[6], double h)
{
    if (!m->adaptive) return 0.0;
    const double *g = x->set_geo + 8 * s, R = g[0];
    if (r->ncontact > 0) {
        const double vs = fmax(x->set_vs[s], fmax(br_bm_twist_speed(xi, R), br_bm_twist_speed(xm, R)));
        x->set_vs[s] = vs;
        return br_bm_twist_speed(dv, R) / (m->atol + m->rtol * vs);
    }
    x->set_vs[s] = 0.0;
    const br_bm_set *cs = &m->set[s];
    if (cs->prescribed || cs->surface != BR_SURF_PLANE || cs->npoints == 0) return 0.0;
    const br_frame_state *ff = x->fframes ? x->fframes : x->frames;
    const double *RA = ff[cs->frame_a].R;
    double dmax = -INFINITY;
    for (int c = 0; c < 8; c++) { /* the box's corners: the depth is linear in the position */
        const double p[3] = {g[1 + 3 * (c & 1)], g[2 + 3 * ((c >> 1) & 1)], g[3 + 3 * ((c >> 2) & 1)]};
        double rw[3], wr[3];
        br_mat3_vec(RA, p, rw);
        br_cross3(xm + 3, rw, wr);
        const double delta = fr->d - br_dot3(fr->n, rw) - h * (br_dot3(fr->n, xm) + br_dot3(fr->n, wr));
        dmax = fmax(dmax, delta);
    }
    if (!(dmax > 0.0)) return 0.0;
    const double pK = cs->pK, E = g[7] * pow(dmax, pK + 1.0) / (pK + 1.0);
    /* the energy scale of the set's free bodies, from what every substep has (not the sampled energy
     * terms): their kinetic energy, and the work of the forces on them over the depth */
    double scale = 0.0;
    for (int side = 0; side < 2; side++) {
        const int f = side ? cs->frame_b : cs->frame_a, b = br_bm_frame_body(m, f);
        if (b < 0 || m->body_node[b] >= 0) continue;
        scale += br_sb_kinetic(m->body_mass[b], m->body_Ib + 9 * b, x->frames[f].R, x->bv + 3 * b, x->bw + 3 * b) +
                 dmax * sqrt(br_dot3(x->f + 3 * b, x->f + 3 * b));
    }
    return scale > 0.0 ? E / (m->rtol * scale) : 1e30;
}

/* a set's result, the changes du, dv of its relative displacement and twist from the field's state to
 * the solved one -> its whole, friction and normal-damping wrenches on A as the integrators applied them
 * at the end of the step: W - K du - C dv, W_f - Kf du - Cf dv and W_d - (C - Cf) dv (br_bm_book_powers'
 * forces) */
BR_HD void br_bm_end_wrenches(const br_set_result *r, const double du[6], const double dv[6], double W[6], double Wf[6],
                              double Wd[6])
{
    const br_set_tangent *T = &r->tan;
    const double Wa[6] = {r->F_A[0], r->F_A[1], r->F_A[2], r->M_A[0], r->M_A[1], r->M_A[2]};
    const double F[6] = {r->Ff_A[0], r->Ff_A[1], r->Ff_A[2], r->Mf_A[0], r->Mf_A[1], r->Mf_A[2]};
    double t[6], Cn[36];
    br_bm_mat6_vec(T->K, du, t, 0);
    br_bm_mat6_vec(T->C, dv, t, 1);
    for (int j = 0; j < 6; j++) W[j] = Wa[j] - t[j];
    br_bm_mat6_vec(T->Kf, du, t, 0);
    br_bm_mat6_vec(T->Cf, dv, t, 1);
    for (int j = 0; j < 6; j++) Wf[j] = F[j] - t[j];
    for (int j = 0; j < 36; j++) Cn[j] = T->C[j] - T->Cf[j];
    br_bm_mat6_vec(Cn, dv, t, 0);
    for (int j = 0; j < 6; j++) Wd[j] = T->Wd[j] - t[j];
}

/* model, variant after its solves (the structure's row changes, the free bodies' accelerations),
 * its sets' results -> each set's friction and normal-damping power over the step x->h, setP and
 * setPnd, and their energy integrals setE, setEnd; the drive work of prescribed sides; the step's
 * error ratio *x->err (substeps). An explicit set: the field's values. A set whose wrench the
 * integrators took linearly implicit: the power of the forces they applied, on the relative motion
 * they solved for (docs/time-stepping.md):
 *     friction  P = -(W_f - Kf dxi_u - Cf dxi_v) . xi_m
 *     damping   P_nd = P_nd,field - W_d . (xi_m - xi) + dxi_v^T (C - Cf) xi_m
 * with xi the relative twist the field saw, dxi_u, dxi_v the changes of relative displacement
 * and twist from the field's state to the solved one, xi_m the mean relative twist over the step,
 * W_d the damping part of the normal forces (N - K delta^pK per point, which also carries the
 * elastic energy a clamped, separating point loses) and C - Cf = sum cn (G^T n)(G^T n)^T its
 * slope in the normal rates.
 * The field's own power at its linearization state is no estimate of the dissipation where that
 * state differs from the solved one by a velocity error e: a damper c books c (v + e)^2 there. */
BR_HD void br_bm_book_powers(const br_bm_model *m, br_bm_var *x, const br_set_result *res)
{
    const double h = x->h;
    const br_frame_state *ff = x->fframes ? x->fframes : x->frames;
    double err = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &res[s];
        const br_bm_set *cs = &m->set[s];
        const int k = cs->imp;
        if (k < 0 && !cs->rb) {
            x->setP[s] = r->P, x->setPnd[s] = r->P_nd;
        } else {
            br_set_frame fr;
            br_set_frame_make(cs->surface, cs->plane_p, cs->plane_n, cs->radius, &ff[cs->frame_a], &ff[cs->frame_b],
                              -1.0, &fr);
            double xi[6] = {fr.c[0], fr.c[1], fr.c[2], fr.w[0], fr.w[1], fr.w[2]}, du[6] = {0}, dv[6] = {0}, xm[6];
            for (int j = 0; j < 6; j++) xm[j] = xi[j];
            if (k >= 0)
                for (int j = 0; j < 6; j++) du[j] += x->imp_du[6 * k + j], dv[j] += x->imp_dv[6 * k + j], xm[j] += x->imp_dm[6 * k + j];
            if (k >= 0) br_bm_prescribed_change(m, x, s, x->kf_tau, x->tau_s, 0.0, du, dv);
            else br_bm_prescribed_change(m, x, s, x->kf_h, x->theta_h * x->gam * h, x->gam * h, du, dv);
            double dvp[6]; /* the prescribed sides' known change: no error of the step's */
            for (int j = 0; j < 6; j++) dvp[j] = dv[j];
            for (int side = 0; cs->rb && side < 2; side++) { /* free bodies: see the host's br_stage_rigid_implicit */
                const int f = side ? cs->frame_b : cs->frame_a, b = br_bm_frame_body(m, f);
                if (b < 0 || m->body_node[b] >= 0) continue;
                double L[36], dV[6], t[6], tp[6], tn[6];
                const double *vn = x->bv + 3 * b, *wn = x->bw + 3 * b;
                const double Vn[6] = {vn[0], vn[1], vn[2], wn[0], wn[1], wn[2]};
                br_bm_side_map(m, x->frames, s, side, L);
                for (int j = 0; j < 6; j++) dV[j] = h * x->acc[6 * b + j];
                br_bm_mat6_vec(L, dV, t, 0);
                br_bm_mat6_vec(L, x->vpred + 6 * b, tp, 0);
                br_bm_mat6_vec(L, Vn, tn, 0);
                for (int j = 0; j < 6; j++)
                    dv[j] += t[j] - tp[j], xm[j] += x->gam * t[j] - tp[j], du[j] += h * x->gam * (t[j] + x->theta_h * tn[j]);
            }
            /* the drive work of a prescribed side (br_bm_loads booked the field's wrench) */
            double dW[6], t[6];
            br_bm_mat6_vec(r->tan.K, du, dW, 0);
            br_bm_mat6_vec(r->tan.C, dv, dW, 1);
            for (int side = 0; side < 2; side++) {
                const int f = side ? cs->frame_b : cs->frame_a;
                if (f <= m->nbody) continue; /* not a kinematic frame */
                double L[36];
                br_bm_side_map(m, x->frames, s, side, L);
                const br_frame_state *fs = &x->frames[f];
                const double V[6] = {fs->v[0], fs->v[1], fs->v[2], fs->w[0], fs->w[1], fs->w[2]};
                br_bm_mat6_vec(L, V, t, 0);
                for (int j = 0; j < 6; j++) *x->p_drive += dW[j] * t[j]; /* -(L^T (-dW)) . V */
            }
            br_bm_set_power(&r->tan, r->Ff_A, r->Mf_A, r->P_nd, xi, du, dv, xm, &x->setP[s], &x->setPnd[s]);
            if (k < 0) { /* a free body's set: the gamma scheme applied gamma of the end wrench and 1 - gamma of the start's */
                double *wn = x->wend + 18 * s;
                if (x->gam < 1.0) {
                    double pf = 0.0, pd = 0.0;
                    for (int j = 0; j < 6; j++) pf -= wn[6 + j] * xm[j], pd -= wn[12 + j] * xm[j];
                    x->setP[s] = x->gam * x->setP[s] + (1.0 - x->gam) * pf;
                    x->setPnd[s] = x->gam * x->setPnd[s] + (1.0 - x->gam) * pd;
                }
                br_bm_end_wrenches(r, du, dv, wn, wn + 6, wn + 12);
            }
            double dve[6];
            for (int j = 0; j < 6; j++) dve[j] = dv[j] - dvp[j];
            const double e = k < 0 ? br_bm_set_error(m, x, r, s, &fr, xi, dve, xm, h) : 0.0;
            if (e > err) err = e;
        }
        x->setE[s] = x->E_upto[s] + h * x->setP[s];
        x->setEnd[s] = x->End_upto[s] + h * x->setPnd[s];
    }
    if (x->err) *x->err = err;
}

/* model, shape (NULL: no structure), variant after the solves, res -> the structure's row changes
 * (its contact rows' relative displacement and twist from the field's state to the solved one)
 * and br_bm_book_powers */
BR_HD void br_bm_accel_post(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x, const br_set_result *res)
{
    if (sh && sh->nr) br_ga_row_changes(sh, &x->ga, x->imp_du, x->imp_dv, x->imp_dm, 1);
    br_bm_book_powers(m, x, res);
}

/* what stopped a variant's step: a code times BR_BM_WHAT plus the set, body or energy term it names
 * (br_bm_check_solve's, br_bm_check_state's; the messages: the sequencing code's, br_step_failure).
 * BR_BM_WHAT = 2^24 leaves room for 2^24 sets or bodies and 127 codes in an int. */
#define BR_BM_WHAT 16777216
enum { BR_BM_OK = 0, BR_BM_SINGULAR, BR_BM_TANGENT, BR_BM_ACCEL, BR_BM_BODY, BR_BM_FORCE, BR_BM_FENERGY, BR_BM_ENERGY,
       BR_BM_FIELD, BR_BM_RBACCEL, BR_BM_RBSINGULAR };

BR_HD int br_bm_finite(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* model, shape (or NULL), variant after its solves, its sets' results -> BR_BM_OK, or the first
 * of: a coupled set's non-finite wrench tangent, a free body's non-finite acceleration, the
 * structure's (checked before anything is advanced with them) */
BR_HD int br_bm_check_solve(const br_bm_model *m, const br_ga_shape *sh, const br_bm_var *x, const br_set_result *res)
{
    for (int s = 0; s < m->nset; s++)
        if (m->set[s].coupled && !br_bm_finite((const double *)&res[s].tan, (int)(sizeof res[s].tan / sizeof(double))))
            return BR_BM_TANGENT * BR_BM_WHAT + s;
    for (int b = 0; x->acc && b < m->nbody; b++)
        if (m->body_node[b] < 0 && !br_bm_finite(x->acc + 6 * b, 6)) return BR_BM_RBACCEL * BR_BM_WHAT + b;
    for (int i = 0; sh && i < sh->n; i++)
        if (!isfinite(x->ga.a1[(long)i * x->ga.s])) return BR_BM_ACCEL * BR_BM_WHAT;
    return BR_BM_OK;
}

/* model, variant, its sets' results, energy (the energy terms were computed) -> BR_BM_OK, or the
 * first of: a body's non-finite state, a set's non-finite contact force (BR_BM_FORCE: the host
 * looks for the point), energy term (its index in br_energy_terms) or friction energy */
BR_HD int br_bm_check_state(const br_bm_model *m, const br_bm_var *x, const br_set_result *res, int energy)
{
    for (int b = 0; b < m->nbody; b++)
        if (!br_bm_finite(x->bx + 3 * b, 3) || !br_bm_finite(x->bv + 3 * b, 3) || !br_bm_finite(x->bw + 3 * b, 3) ||
            (x->bq && !br_bm_finite(x->bq + 4 * b, 4)))
            return BR_BM_BODY * BR_BM_WHAT + b;
    for (int s = 0; s < m->nset; s++)
        if (!br_bm_finite(res[s].F_A, 3) || !br_bm_finite(res[s].M_A, 3) || !isfinite(res[s].N) || !isfinite(res[s].P) ||
            !isfinite(res[s].E_b))
            return BR_BM_FORCE * BR_BM_WHAT + s;
    const double *en = (const double *)x->en;
    for (int k = 0; energy && k < (int)(sizeof *x->en / sizeof(double)); k++)
        if (!isfinite(en[k])) return BR_BM_ENERGY * BR_BM_WHAT + k;
    for (int s = 0; s < m->nset; s++)
        if (!isfinite(x->setE[s])) return BR_BM_FENERGY * BR_BM_WHAT + s;
    return BR_BM_OK;
}

/* model, shape, variant after br_bm_accel_post, its sets' results, energy -> the two checks in order */
BR_HD int br_bm_check(const br_bm_model *m, const br_ga_shape *sh, const br_bm_var *x, const br_set_result *res, int energy)
{
    const int c = br_bm_check_solve(m, sh, x, res);
    return c ? c : br_bm_check_state(m, x, res, energy);
}

/* The integration in three phases whose entries are independent (on a GPU a thread each:
 * kernels/beam_cuda.cu), br_bm_integrate them in order for one variant:
 *   br_bm_integrate_row   row i of the structure: u, v, a advanced, the loads' work over the step -> *work
 *   br_bm_integrate_col   column j's term of the Rayleigh loss vm^T C vm (vm the midpoint
 *                         velocity, every row's from the first phase) -> *loss
 *   br_bm_integrate_end   the rows' works and the columns' terms added in order into the energy
 *                         terms; the free bodies and the torsion springs advanced
 * The sums add the same terms in the same order as one loop over the rows: bitwise the same. */

/* shape, variant -> the loads' weight wc of this step in the work quadrature (wp = 1 - wc the
 * previous step's): the loads were evaluated at t_n + tau, the previous ones at t_n + tau - h_prev;
 * their linear interpolation to the midpoint t_n + h/2 makes the work a second-order quadrature
 * of the integral of f . du (the end value alone, f(t_{n+1}) . du for rho_inf = 0, is first order
 * and put 2 % of the input work into the residual of the S2 stick phase) */
BR_HD double br_bm_load_wc(const br_ga_shape *sh, const br_bm_var *x)
{
    const double af = sh->af, h = x->h, hp = x->h_prev;
    if (hp < 0.0) return x->step > 0 ? 0.5 + af : 1.0; /* fixed steps */
    return !(hp > 0.0) ? 1.0 : hp == h ? 0.5 + af : (0.5 * h + af * hp) / ((1.0 - af) * h + af * hp);
}

/* shape, variant after br_bm_accel_post, row i -> row i at t_{n+1}; its loads' work */
BR_HD double br_bm_integrate_row(const br_ga_shape *sh, br_bm_var *x, int i)
{
    const long s = x->s, gs = x->ga.s;
    x->uprev[i * s] = x->ga.u[i * gs], x->vprev[i * s] = x->ga.v[i * gs];
    br_ga_advance_row(sh, &x->ga, i);
    const double wc = br_bm_load_wc(sh, x), wp = 1.0 - wc;
    return br_bm_load_work_row(wc, wp, x->gext + i * s, x->gext_prev + i * s, x->ga.u + i * gs, x->uprev + i * s,
                               x->vprev + i * s, x->ga.v + i * gs);
}

/* shape, variant with every row integrated, column j -> column j's term of vm^T C vm */
BR_HD double br_bm_integrate_col(const br_ga_shape *sh, const br_bm_var *x, int j)
{
    return br_ga_quad_col(sh, x->ga.C, x->ga.sC, x->vprev, x->s, x->vprev, x->s, j);
}

/* model, variant, frame -> its angular velocity after the velocity update (bodies), or as it was */
BR_HD void br_bm_frame_omega(const br_bm_model *m, const br_bm_var *x, int fr, double w[3])
{
    const int b = br_bm_frame_body(m, fr);
    for (int j = 0; j < 3; j++) w[j] = b >= 0 ? x->bw[3 * b + j] : x->frames[fr].w[j];
}

/* model, variant, the rows' works and the columns' terms summed in order -> the energy terms
 * booked; the free bodies (symplectic Euler, or the gamma scheme for those of the implicit
 * system) and the torsion springs' angles advanced by x->h */
BR_HD void br_bm_integrate_end(const br_bm_model *m, br_bm_var *x, double work_rows, double loss_cols)
{
    const double h = x->h;
    x->en->work_in += work_rows;
    x->en->spring_loss += h * loss_cols;
    double work = 0.0;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_node[b] >= 0) continue;
        double *p = x->bx + 3 * b, *q = x->bq + 4 * b, *v = x->bv + 3 * b, *w = x->bw + 3 * b;
        const double *a = x->acc + 6 * b, *al = a + 3;
        double vm[3], wm[3], wg[3];
        if (m->rb_slot && m->rb_slot[b] >= 0 && x->gam < 1.0) { /* the gamma scheme: x, q with V_n + gamma dV */
            const double g = x->gam;
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                p[j] += h * (vn + g * (v[j] - vn));
                wg[j] = wn + g * (w[j] - wn);
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_sb_quat_advance(q, wg, h);
        } else {
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                p[j] += h * v[j];
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_sb_quat_advance(q, w, h);
        }
        /* midpoint velocities make h f . v_mid the exact kinetic-energy change of the translation */
        work += br_dot3(x->fext + 3 * b, vm) + br_dot3(x->text + 3 * b, wm);
    }
    /* torsion angles with the new angular velocities, as the attitudes were advanced */
    for (int k = 0; k < m->nspring; k++) {
        const br_bm_spring *S = &m->spring[k];
        if (!S->torsion) continue;
        double wa[3], wb[3];
        br_bm_frame_omega(m, x, S->frame_a, wa);
        br_bm_frame_omega(m, x, S->frame_b, wb);
        for (int side = 0; side < 2 && x->gam < 1.0; side++) { /* the gamma scheme: turned by w_n + gamma dw */
            const int b = br_bm_frame_body(m, side ? S->frame_b : S->frame_a);
            if (b < 0 || !m->rb_slot || m->rb_slot[b] < 0) continue;
            double *w = side ? wb : wa;
            for (int j = 0; j < 3; j++) w[j] -= (1.0 - x->gam) * h * x->acc[6 * b + 3 + j];
        }
        x->spring_angle[k] += h * (br_dot3(wb, S->axis) - br_dot3(wa, S->axis));
    }
    x->en->work_in += h * (work + *x->p_drive);
    x->en->spring_loss += h * (x->p_spring_loss ? *x->p_spring_loss : 0.0);
}

/* model, variant -> its step counted, its time t_{n+1} (fixed steps) */
BR_HD void br_bm_count_step(const br_bm_model *m, br_bm_var *x)
{
    x->step++;
    x->t = x->step * m->h;
}

/* model, shape, variant after br_bm_accel_post -> u, v, a at t_{n+1}, the loads' work and the
 * Rayleigh losses booked, the free bodies advanced (not the step count: br_bm_count_step) */
BR_HD void br_bm_integrate(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x)
{
    double wl = 0.0, ql = 0.0;
    for (int i = 0; sh && i < sh->n; i++) wl += br_bm_integrate_row(sh, x, i);
    for (int j = 0; sh && j < sh->n; j++) ql += br_bm_integrate_col(sh, x, j);
    br_bm_integrate_end(m, x, wl, ql);
}

#endif
