/* beam_step.h: one step of a model whose bodies all ride on beams (the S2 bundle, the S5 studies'
 * variants), around its contact field, written once for the CPU and a device:
 *   br_bm_frames     structure predicted at t + tau -> the bodies' frames (the field's input)
 *   (the contact field steps every set: the caller)
 *   br_bm_loads      set results, loads, gravity -> generalized forces g, gext and the energy terms
 *   br_bm_accel_pre  the contact blocks E (then the generalized-alpha solve with them: the caller,
 *                    kernels/ga_step.h, by columns or by rows)
 *   br_bm_accel_post the row changes and each set's friction and normal-damping power over the step
 *   br_bm_integrate  u, v, a to t_{n+1}; the work of the loads and the Rayleigh losses
 * The stages are host/step/sim.c's for such a model, operation for operation (its br_fwd_frames,
 * br_fwd_loads, br_fwd_accel and br_integrate, which handle every model; the formulas both use are
 * the functions below and kernels/ga_step.h, kernels/struct_body.h), so a variant stepped here is
 * bitwise the same run (tests/test_beam_batch.c). Load magnitudes are the flat time functions of
 * kernels/timefn_flat.h. Nothing here allocates. */
#ifndef BR_BEAM_STEP_H
#define BR_BEAM_STEP_H

#include "ga_step.h"
#include "point_kinematics.h"
#include "point_tangent.h"
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

/* ---- the step of a model whose bodies all ride on beams ---- */

/* a load: a force (at a point, body coordinates about the CoM) or a torque on a body */
typedef struct br_bm_load {
    int body, torque, body_axes;
    double point[3], dir[3];
} br_bm_load;

/* a contact set: its frames (0 the ground, 1 + b body b) and counter surface */
typedef struct br_bm_set {
    int frame_a, frame_b, surface;
    double plane_p[3], plane_n[3], radius;
} br_bm_set;

/* what every variant shares: the structure's DOF map and nodes, the bodies, loads and sets */
typedef struct br_bm_model {
    int nnode, nbody, nload, nset;
    const int *dof;              /* 6 nnode */
    const double *X;             /* 3 nnode undeformed positions */
    const int *body_node;        /* nbody */
    const double *body_q0;       /* 4 nbody */
    const double *body_offset;   /* 3 nbody */
    const double *body_fg;       /* 3 nbody: mass times gravity */
    const br_bm_load *load;
    const br_bm_set *set;
    double h, tau_s;             /* step; generalized-alpha equation time after t_n */
} br_bm_model;

/* A set's results from the field (the part of host/field/field.h's br_set_result a step uses) */
typedef struct br_bm_res {
    const double *F_A, *M_A, *F_B, *M_B, *Ff_A, *Mf_A;
    double N, P, E_el, E_b, P_nd;
    const br_set_tangent *tan;
} br_bm_res;

/* one variant's state: the generalized-alpha state (any layout) and, contiguous, the rest */
typedef struct br_bm_var {
    br_ga_var ga;
    double *up, *vp, *g, *gext, *gext_prev, *uprev, *vprev; /* n each, stride s */
    long s;
    double *xnode;               /* 3 nnode */
    br_frame_state *frames;      /* 1 + nbody: at t + tau (the field's and the loads' view) */
    double *bx, *bv, *bw;        /* 3 nbody: the bodies' reported state at t_n */
    double *load_val;            /* nload */
    const br_tf_flat *mag;       /* nload: this variant's load magnitudes */
    double *E_upto, *End_upto, *setP, *setPnd, *setE, *setEnd; /* nset */
    double *imp_E, *imp_du, *imp_dv, *imp_dm;                  /* 36 nset, 6 nset each */
    br_energy_terms *en;
    double *res_ref, *p_drive;
    double t;
    long step;
} br_bm_var;

/* model, shape, variant at t_n -> frames at the equation time (the structure predicted), the
 * reported body states at t_n, the energy integrals up to t_n kept */
BR_HD void br_bm_frames(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x)
{
    br_frame_state *g = &x->frames[0];
    for (int j = 0; j < 3; j++) g->x[j] = g->v[j] = g->w[j] = 0.0;
    for (int j = 0; j < 9; j++) g->R[j] = j % 4 == 0 ? 1.0 : 0.0;
    br_ga_predict(sh, &x->ga, x->up, x->vp, x->s);
    for (int k = 0; k < m->nnode; k++)
        for (int j = 0; j < 3; j++) {
            const int gi = m->dof[6 * k + j];
            x->xnode[3 * k + j] = m->X[3 * k + j] + (gi >= 0 ? x->up[(long)gi * x->s] : 0.0);
        }
    for (int b = 0; b < m->nbody; b++) {
        br_frame_state now;
        const int node = m->body_node[b];
        br_sb_body_frame(m->dof, m->X, node, m->body_q0 + 4 * b, m->body_offset + 3 * b, x->ga.u, x->ga.s, x->ga.v,
                         x->ga.s, &now);
        for (int j = 0; j < 3; j++) x->bx[3 * b + j] = now.x[j], x->bv[3 * b + j] = now.v[j], x->bw[3 * b + j] = now.w[j];
        br_sb_body_frame(m->dof, m->X, node, m->body_q0 + 4 * b, m->body_offset + 3 * b, x->up, x->s, x->vp, x->s,
                         &x->frames[1 + b]);
    }
    for (int s = 0; s < m->nset; s++) x->E_upto[s] = x->setE[s], x->End_upto[s] = x->setEnd[s];
}

/* model, variant, frame fr, a contact wrench (F, M about the frame's origin) -> into g, or the
 * ground's drive power */
BR_HD void br_bm_add_wrench(const br_bm_model *m, br_bm_var *x, int fr, const double F[3], const double M[3])
{
    if (fr == 0) {
        *x->p_drive -= br_dot3(F, x->frames[0].v) + br_dot3(M, x->frames[0].w);
        return;
    }
    const int node = m->body_node[fr - 1];
    br_sb_add_force(m->dof, node, x->xnode + 3 * node, F, x->frames[fr].x, x->g, x->s);
    br_sb_add_torque(m->dof, node, M, x->g, x->s);
}

/* model, shape, variant with its sets' results res[nset], energy (1: this step's energy terms
 * and residual; 0: skipped) -> g, gext, load_val and the energy terms at t */
BR_HD void br_bm_loads(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x, const br_bm_res *res, int energy)
{
    br_energy_terms *en = x->en;
    *x->p_drive = 0.0;
    en->kinetic = 0.0;
    double struct_elastic = 0.0;
    for (int i = 0; i < sh->n; i++) x->g[i * x->s] = 0.0, x->gext[i * x->s] = 0.0;
    if (energy) br_ga_energies(sh, &x->ga, &en->kinetic, &struct_elastic);
    for (int b = 0; b < m->nbody; b++) {
        const double *fg = m->body_fg + 3 * b;
        if (fg[0] != 0 || fg[1] != 0 || fg[2] != 0) {
            const int node = m->body_node[b];
            br_sb_add_force(m->dof, node, x->xnode + 3 * node, fg, x->frames[1 + b].x, x->g, x->s);
            br_sb_add_force(m->dof, node, x->xnode + 3 * node, fg, x->frames[1 + b].x, x->gext, x->s);
        }
    }
    for (int l = 0; l < m->nload; l++) {
        const br_bm_load *L = &m->load[l];
        const br_frame_state *fs = &x->frames[1 + L->body];
        const int node = m->body_node[L->body];
        const double a = br_tf_flat_eval(&x->mag[l], x->t + m->tau_s);
        x->load_val[l] = a;
        double dir[3], f[3];
        if (L->body_axes) br_mat3_vec(fs->R, L->dir, dir);
        else for (int j = 0; j < 3; j++) dir[j] = L->dir[j];
        for (int j = 0; j < 3; j++) f[j] = a * dir[j];
        if (L->torque) {
            br_sb_add_torque(m->dof, node, f, x->g, x->s);
            br_sb_add_torque(m->dof, node, f, x->gext, x->s);
        } else {
            double p[3];
            br_mat3_vec(fs->R, L->point, p);
            for (int j = 0; j < 3; j++) p[j] += fs->x[j];
            br_sb_add_force(m->dof, node, x->xnode + 3 * node, f, p, x->g, x->s);
            br_sb_add_force(m->dof, node, x->xnode + 3 * node, f, p, x->gext, x->s);
        }
    }
    en->spring = struct_elastic;
    en->contact_el = en->bristle = en->friction_loss = en->normal_loss = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_bm_res *r = &res[s];
        br_bm_add_wrench(m, x, m->set[s].frame_a, r->F_A, r->M_A);
        br_bm_add_wrench(m, x, m->set[s].frame_b, r->F_B, r->M_B);
        en->contact_el += r->E_el;
        en->bristle += r->E_b;
        en->friction_loss += x->E_upto[s] - r->E_b;
        en->normal_loss += x->End_upto[s];
    }
    if (energy) br_bm_residual(en, x->res_ref);
}

/* model, shape, variant after br_bm_loads, res -> its sets' E blocks (the solve's low-rank term) */
BR_HD void br_bm_accel_pre(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x, const br_bm_res *res)
{
    const double ck = (1 - sh->af) * sh->beta * sh->h * sh->h, cc = (1 - sh->af) * sh->gamma * sh->h;
    for (int k = 0; k < m->nset; k++) br_bm_eblock(ck, cc, res[k].tan, x->imp_E + 36 * k);
}

/* model, shape, variant with a1 solved, res -> the row changes and each set's power and energy
 * integrals over the step */
BR_HD void br_bm_accel_post(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x, const br_bm_res *res)
{
    if (m->nset) br_ga_row_changes(sh, &x->ga, x->imp_du, x->imp_dv, x->imp_dm, 1);
    for (int s = 0; s < m->nset; s++) {
        const br_bm_set *cs = &m->set[s];
        br_set_frame fr;
        br_set_frame_make(cs->surface, cs->plane_p, cs->plane_n, cs->radius, &x->frames[cs->frame_a],
                          &x->frames[cs->frame_b], -1.0, &fr);
        const double xi[6] = {fr.c[0], fr.c[1], fr.c[2], fr.w[0], fr.w[1], fr.w[2]};
        double du[6], dv[6], xm[6];
        for (int j = 0; j < 6; j++) {
            du[j] = 0.0, dv[j] = 0.0, xm[j] = xi[j];
            du[j] += x->imp_du[6 * s + j], dv[j] += x->imp_dv[6 * s + j], xm[j] += x->imp_dm[6 * s + j];
        }
        br_bm_set_power(res[s].tan, res[s].Ff_A, res[s].Mf_A, res[s].P_nd, xi, du, dv, xm, &x->setP[s], &x->setPnd[s]);
        x->setE[s] = x->E_upto[s] + m->h * x->setP[s];
        x->setEnd[s] = x->End_upto[s] + m->h * x->setPnd[s];
    }
}

/* what stopped a variant's step (br_bm_check's codes, host/step/sim.c's br_check_finite's order) */
enum { BR_BM_OK = 0, BR_BM_SINGULAR, BR_BM_TANGENT, BR_BM_ACCEL, BR_BM_BODY, BR_BM_FORCE, BR_BM_FENERGY, BR_BM_ENERGY,
       BR_BM_FIELD };

BR_HD int br_bm_finite(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* model, shape, variant after br_bm_accel_post, its sets' results, energy -> BR_BM_OK, or a code
 * times 256 plus the set or body it names: a non-finite wrench tangent, acceleration, body state,
 * contact force, friction energy or energy term */
BR_HD int br_bm_check(const br_bm_model *m, const br_ga_shape *sh, const br_bm_var *x, const br_bm_res *res, int energy)
{
    for (int s = 0; s < m->nset; s++)
        if (!br_bm_finite((const double *)res[s].tan, (int)(sizeof *res[s].tan / sizeof(double))))
            return BR_BM_TANGENT * 256 + s;
    for (int i = 0; i < sh->n; i++)
        if (!isfinite(x->ga.a1[(long)i * x->ga.s])) return BR_BM_ACCEL * 256;
    for (int b = 0; b < m->nbody; b++)
        if (!br_bm_finite(x->bx + 3 * b, 3) || !br_bm_finite(x->bv + 3 * b, 3) || !br_bm_finite(x->bw + 3 * b, 3))
            return BR_BM_BODY * 256 + b;
    for (int s = 0; s < m->nset; s++)
        if (!br_bm_finite(res[s].F_A, 3) || !br_bm_finite(res[s].M_A, 3) || !isfinite(res[s].N) || !isfinite(res[s].P) ||
            !isfinite(res[s].E_b))
            return BR_BM_FORCE * 256 + s;
    if (energy && !br_bm_finite((const double *)x->en, (int)(sizeof *x->en / sizeof(double)))) return BR_BM_ENERGY * 256;
    for (int s = 0; s < m->nset; s++)
        if (!isfinite(x->setE[s])) return BR_BM_FENERGY * 256 + s;
    return BR_BM_OK;
}

/* The integration in three phases whose entries are independent (on a GPU a thread each:
 * kernels/beam_cuda.cu), br_bm_integrate them in order for one variant:
 *   br_bm_integrate_row   row i: u, v, a advanced, the loads' work over the step -> *work
 *   br_bm_integrate_col   column j's term of the Rayleigh loss vm^T C vm (vm the midpoint
 *                         velocity, every row's from the first phase) -> *loss
 *   br_bm_integrate_end   the rows' works and the columns' terms added in order into the energy
 *                         terms, the step counted
 * The sums add the same terms in the same order as one loop over the rows: bitwise the same. */

/* the loads' weights of the step (the previous loads enter from the second step) */
BR_HD double br_bm_load_wc(const br_ga_shape *sh, const br_bm_var *x) { return x->step > 0 ? 0.5 + sh->af : 1.0; }

/* model, shape, variant after br_bm_accel_post, row i -> row i at t_{n+1}; its loads' work */
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

/* model, variant, the rows' works and the columns' terms summed in order -> the energy terms
 * booked, the step counted */
BR_HD void br_bm_integrate_end(const br_bm_model *m, br_bm_var *x, double work_rows, double loss_cols)
{
    x->en->work_in += work_rows;
    x->en->spring_loss += m->h * loss_cols;
    const double work = 0.0, p_spring_loss = 0.0;
    x->en->work_in += m->h * (work + *x->p_drive);
    x->en->spring_loss += m->h * p_spring_loss;
    x->step++;
    x->t = x->step * m->h;
}

/* model, shape, variant after br_bm_accel_post -> u, v, a at t_{n+1}, the loads' work and the
 * Rayleigh losses booked, the step counted */
BR_HD void br_bm_integrate(const br_bm_model *m, const br_ga_shape *sh, br_bm_var *x)
{
    double wl = 0.0, ql = 0.0;
    for (int i = 0; i < sh->n; i++) wl += br_bm_integrate_row(sh, x, i);
    for (int j = 0; j < sh->n; j++) ql += br_bm_integrate_col(sh, x, j);
    br_bm_integrate_end(m, x, wl, ql);
}

#endif
