/* model.h: what the step's stages (kernels/step/) share: a run's energy terms; the flat model a
 * variant is stepped over (br_step_model: bodies, loads, springs, joints and contact sets as arrays a
 * device takes as they are, with the derived constants: structure nodes, the free bodies' blocks,
 * each set's coupling) and one variant's view (br_step_var: every array a pointer, the structure's
 * with a stride; a run is a batch of one, host/step/view.c); the formulas more than one stage uses
 * (6x6 products, E blocks, a set's power, the loads' work, the residual, a frame's body, forces and
 * wrenches onto bodies, a set's side maps and its prescribed sides' change). Nothing here allocates. */
#ifndef BR_STEP_MODEL_H
#define BR_STEP_MODEL_H

#include "../ga_step.h"
#include "../point_kinematics.h"
#include "../point_tangent.h"
#include "../set_result.h"
#include "../struct_body.h"
#include "../timefn_flat.h"

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

/* 6x6 column-major X, 6-vectors: y = X x (acc: y += X x) */
BR_HD void br_step_mat6_vec(const double *X, const double *x, double *y, int acc)
{
    for (int r = 0; r < 6; r++) {
        double t = acc ? y[r] : 0.0;
        for (int c = 0; c < 6; c++) t += X[6 * c + r] * x[c];
        y[r] = t;
    }
}

/* ck, cc, a set's tangent -> its block of the low-rank term, E = ck K + cc C */
BR_HD void br_step_eblock(double ck, double cc, const br_set_tangent *T, double *E)
{
    for (int q = 0; q < 36; q++) E[q] = ck * T->K[q] + cc * T->C[q];
}

/* a set's tangent, friction wrench on A (Ff, Mf) and normal-damping power P_nd at the field's
 * linearization state xi (relative twist), the solved changes du, dv of the relative
 * displacement and twist and the mean twist xm over the step -> its friction power P (the
 * linearized friction wrench's) and normal-damping power Pnd (docs/time-stepping.md) */
BR_HD void br_step_set_power(const br_set_tangent *T, const double Ff[3], const double Mf[3], double P_nd,
                           const double xi[6], const double du[6], const double dv[6], const double xm[6], double *P,
                           double *Pnd)
{
    const double Wf[6] = {Ff[0], Ff[1], Ff[2], Mf[0], Mf[1], Mf[2]};
    double t[6], Cn[36];
    br_step_mat6_vec(T->Kf, du, t, 0);
    br_step_mat6_vec(T->Cf, dv, t, 1);
    double p = 0.0;
    for (int j = 0; j < 6; j++) p -= (Wf[j] - t[j]) * xm[j];
    for (int j = 0; j < 36; j++) Cn[j] = T->C[j] - T->Cf[j];
    br_step_mat6_vec(Cn, xm, t, 0);
    double pn = P_nd;
    for (int j = 0; j < 6; j++) pn += dv[j] * t[j] - T->Wd[j] * (xm[j] - xi[j]);
    *P = p, *Pnd = pn;
}

/* load weights wc (now) and wp (previous step), one row's load parts gext and gext_prev, u after
 * and uprev before the step, vprev (v before) and v after -> the row's work of the loads over the
 * step (their linear interpolation to the midpoint, a second-order quadrature); gext_prev <- gext,
 * vprev <- the midpoint velocity */
BR_HD double br_step_load_work_row(double wc, double wp, const double *gext, double *gext_prev, const double *u,
                                 const double *uprev, double *vprev, const double *v)
{
    const double w = (wc * *gext + wp * *gext_prev) * (*u - *uprev);
    *gext_prev = *gext;
    *vprev = 0.5 * (*vprev + *v);
    return w;
}

/* n and the same for every row (strides) -> the rows' works added in row order */
BR_HD double br_step_load_work(int n, double wc, double wp, const double *gext, long sg, double *gext_prev, long sgp,
                             const double *u, long su, const double *uprev, long sup, double *vprev, long svp,
                             const double *v, long sv)
{
    double wl = 0.0;
    for (int i = 0; i < n; i++)
        wl += br_step_load_work_row(wc, wp, gext + i * sg, gext_prev + i * sgp, u + i * su, uprev + i * sup,
                                  vprev + i * svp, v + i * sv);
    return wl;
}

/* energy terms at t (with work_in, the initial energies and every stored and dissipated term),
 * the largest reference so far -> residual, residual_rel and that reference updated */
BR_HD void br_step_residual(br_energy_terms *en, double *res_ref)
{
    const double have = en->work_in + en->kinetic0 + en->spring0 + en->contact_el0;
    en->residual = have - (en->kinetic + en->spring + en->spring_loss + en->contact_el + en->bristle +
                           en->friction_loss + en->normal_loss);
    const double ref = fabs(en->work_in) + en->kinetic0 + en->spring0 + en->contact_el0;
    if (ref > *res_ref) *res_ref = ref;
    en->residual_rel = *res_ref > 0 ? fabs(en->residual) / *res_ref : 0.0;
}

/* a load: a force (at a point, body coordinates about the CoM) or a torque on a body, or a structure's
 * load vector (vec: its nvec values from row row0 of the structure's coordinates; body -1) */
typedef struct br_step_load {
    int body, torque, body_axes;
    double point[3], dir[3];
    const double *vec;
    int row0, nvec;
} br_step_load;

/* a contact set: its frames (0 the ground, 1 + b body b, then the kinematic frames), counter
 * surface, and how its wrench enters the integrators: linearized (implicit coupling, its tangent
 * used and checked) through the structure's contact rows (imp: its block of six) or the free
 * bodies' system (rb), or as the field computed it */
typedef struct br_step_set {
    int frame_a, frame_b, surface;
    double plane_p[3], plane_n[3], radius;
    int coupled;                 /* imp >= 0 or rb */
    int imp;                     /* its block among the structure's contact rows, or -1 */
    int rb;                      /* 1: it acts on a free body of the implicit system */
    int prescribed;              /* its normal force is prescribed (the substeps' entry check skips it) */
    long npoints;
    double pK;                   /* Hunt-Crossley exponent (the entry check's energy) */
    /* a deforming interface (physics.md 5.1; iface = 1): u_i = g0_i + L_i q over the structure's
     * coordinates, L in CSR over its 3 npoints rows (columns from row0); its points take the field's
     * inputs and outputs (br_step_var's iu, ipt); imp its first block of rows, two points a block */
    int iface, row0;
    const long *Lp;
    const int *Lj;
    const double *Lx, *g0;
} br_step_set;

/* a spring-damper between two frames (host/model/model.h's br_spring: its numbers) */
typedef struct br_step_spring {
    int frame_a, frame_b, torsion, rope;
    double pa[3], pb[3], k, c, rest, axis[3];
} br_step_spring;

/* a rotational friction element's frames and axis (its torque is a host stage's: step/contacts.c) */
typedef struct br_step_rot {
    int frame_a, frame_b;
    double axis[3];
} br_step_rot;

/* what every variant shares: the structure's DOF map and nodes, the bodies, loads, springs,
 * rotational elements and sets; arrays a device takes as they are */
typedef struct br_step_model {
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
    const br_step_load *load;
    const br_step_set *set;
    const br_step_spring *spring;
    const br_step_rot *rot;
    double h;                    /* the step (a run's output step, which substeps divide) */
} br_step_model;

/* one variant's state: the generalized-alpha state (any layout), the structure's vectors with a
 * stride, the rest contiguous. The free bodies' arrays, the springs' and the rotational elements'
 * are NULL where the model has none. */
typedef struct br_step_var {
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
    const br_tf_flat *mag;       /* nload: this variant's load magnitudes in flat form (br_step_load_values), or NULL */
    double *spring_val, *spring_angle; /* nspring */
    const double *rot_tau, *rot_Eb, *rot_E_upto; /* nrot: the host stage's torque, stored and dissipated energy */
    double *E_upto, *End_upto, *setP, *setPnd, *setE, *setEnd; /* nset */
    double *imp_E, *imp_du, *imp_dv, *imp_dm;                  /* per block of contact rows (a set's imp): 36, 6 each */
    double *const *iu;           /* nset: a deforming interface's inputs in the field (6 n, BR_IFACE order), */
    const double *const *ipt;    /* ... its outputs (BR_IFACE_NPT n); NULL for the others (or NULL: none) */
    br_energy_terms *en;
    const double *ga_en;         /* 2: the structure's kinetic and elastic energy at t_n, summed before (a CPU
                                  * batch's lanes, br_ga_energies_l), or NULL: br_step_loads sums them */
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
} br_step_var;

/* the frames a force or wrench on frame fr goes to: a body's index, or -1 (the ground, a kinematic frame) */
BR_HD int br_step_frame_body(const br_step_model *m, int fr) { return fr >= 1 && fr <= m->nbody ? fr - 1 : -1; }

/* model, variant, frame fr, world force f at world point p, ext (1: a load: into the external
 * parts too) -> onto fr's body (its node's generalized forces, or a free body's force and
 * torque), or the work of the ground's or a kinematic frame's driver */
BR_HD void br_step_add_force(const br_step_model *m, br_step_var *x, int fr, const double f[3], const double p[3], int ext)
{
    const int b = br_step_frame_body(m, fr);
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
BR_HD void br_step_add_wrench(const br_step_model *m, br_step_var *x, int fr, const double F[3], const double M[3])
{
    const int b = br_step_frame_body(m, fr);
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

/* model, frames, set s, side (0: A, 1: B) -> the 6x6 map L (column-major) from that frame's twist
 * (v, w at its origin) to the set's relative twist at A's origin: I for A; [-I, [dx]x; 0, -I] for B,
 * dx = x_A - x_B (its transpose carries A's wrench to B's: W_B = L_B^T W_A) */
BR_HD void br_step_side_map(const br_step_model *m, const br_frame_state *frames, int s, int side, double L[36])
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
BR_HD void br_step_prescribed_change(const br_step_model *m, const br_step_var *x, int s, const br_frame_state *later,
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
        br_step_side_map(m, x->frames, s, side, L);
        br_step_mat6_vec(L, V0, t0, 0);
        br_step_mat6_vec(L, dV, t1, 0);
        for (int j = 0; j < 6; j++) du[j] += travel * t0[j] + dv_travel * t1[j], dv[j] += t1[j];
    }
}

#endif
