/* sim.c: data of a run and the stages of one step (see sim.h for the scheme). */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "friction_implicit.h"
#include "rigid.h"

/* frame index -> body index, or -1 for the ground and kinematic frames */
static int frame_body(const br_model *m, int fr) { return fr >= 1 && fr <= m->nbody ? fr - 1 : -1; }

/* body -> its structure node, or -1 for a free body */
static int body_node(const br_model *m, const br_data *d, int b)
{
    const br_body *B = &m->body[b];
    return B->beam >= 0 ? d->st->node0[B->beam] + B->node : -1;
}

/* A x (n x n column-major) dotted with y */
static double quad(int n, const double *A, const double *x, const double *y)
{
    double s = 0;
    for (int j = 0; j < n; j++) {
        double c = 0;
        for (int i = 0; i < n; i++) c += A[(size_t)j * n + i] * x[i];
        s += c * y[j];
    }
    return s;
}

/* model, data at t = 0 (structure undeformed) -> the sets whose friction the structure step
 * treats implicitly: a stateless law (br_law_has_slope) between structure frames or a structure
 * frame and the ground; their twist rows L about frame A's undeformed origin handed to the
 * integrator. Sets touching a free body or a prescribed frame stay explicit. 0, or -1 */
static int implicit_setup(const br_model *m, br_data *d)
{
    const int n = d->st->ndof;
    d->imp_set = malloc((size_t)(m->nset > 0 ? m->nset : 1) * sizeof(int));
    if (!d->imp_set) return -1;
    for (int s = 0; s < m->nset; s++) {
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const int na = br_struct_frame_node(m, d->st, cs->frame_a), nb = br_struct_frame_node(m, d->st, cs->frame_b);
        if (br_law_has_slope(cs->law) && na >= -1 && nb >= -1 && (na >= 0 || nb >= 0)) d->imp_set[d->nimp++] = s;
    }
    if (d->nimp == 0) return 0;
    const int nr = 6 * d->nimp;
    double *L = malloc((size_t)nr * n * sizeof(double));
    d->imp_D = calloc((size_t)36 * d->nimp, sizeof(double));
    d->imp_E = calloc((size_t)nr * nr, sizeof(double));
    d->imp_dxi = calloc((size_t)nr, sizeof(double));
    d->imp_dxu = calloc((size_t)nr, sizeof(double));
    d->imp_xip = calloc((size_t)nr, sizeof(double));
    int rc = !L || !d->imp_D || !d->imp_E || !d->imp_dxi || !d->imp_dxu || !d->imp_xip;
    for (int k = 0; !rc && k < d->nimp; k++) {
        const br_contact_set_desc *cs = &m->cset[d->imp_set[k]].desc;
        rc = br_struct_twist_rows(d->st, br_struct_frame_node(m, d->st, cs->frame_a),
                                  br_struct_frame_node(m, d->st, cs->frame_b), d->frames[cs->frame_a].x,
                                  L + (size_t)6 * k * n);
    }
    if (!rc) rc = br_genalpha_lowrank(d->ga, nr, L);
    free(L);
    return rc ? -1 : 0;
}

br_data *br_data_create(const br_model *m, br_backend_kind backend, char *err, size_t errlen)
{
    br_data *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const int nb = m->nbody > 0 ? m->nbody : 1, nf = br_model_nframe(m);
    const int ns = m->nset > 0 ? m->nset : 1;
    d->x = calloc((size_t)nb * 3, sizeof(double));
    d->q = calloc((size_t)nb * 4, sizeof(double));
    d->v = calloc((size_t)nb * 3, sizeof(double));
    d->w = calloc((size_t)nb * 3, sizeof(double));
    d->f = calloc((size_t)nb * 3, sizeof(double));
    d->tau = calloc((size_t)nb * 3, sizeof(double));
    d->fext = calloc((size_t)nb * 3, sizeof(double));
    d->text = calloc((size_t)nb * 3, sizeof(double));
    d->frames = calloc((size_t)nf, sizeof *d->frames);
    d->res = calloc((size_t)ns, sizeof *d->res);
    d->E_upto = calloc((size_t)ns, sizeof(double));
    d->End_upto = calloc((size_t)ns, sizeof(double));
    d->load_val = calloc((size_t)(m->nload > 0 ? m->nload : 1), sizeof(double));
    d->spring_val = calloc((size_t)(m->nspring > 0 ? m->nspring : 1), sizeof(double));
    d->spring_angle = calloc((size_t)(m->nspring > 0 ? m->nspring : 1), sizeof(double));
    const size_t nr = (size_t)(m->nrot > 0 ? m->nrot : 1);
    d->rot_z = calloc(nr, sizeof(double)), d->rot_tau = calloc(nr, sizeof(double));
    d->rot_Eb = calloc(nr, sizeof(double));
    d->rot_E = calloc(nr, sizeof(double)), d->rot_E_upto = calloc(nr, sizeof(double));
    if (!d->x || !d->q || !d->v || !d->w || !d->f || !d->tau || !d->fext || !d->text || !d->frames ||
        !d->res || !d->E_upto || !d->End_upto || !d->load_val || !d->spring_val || !d->spring_angle ||
        !d->rot_z || !d->rot_tau || !d->rot_Eb || !d->rot_E || !d->rot_E_upto) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    for (int b = 0; b < m->nbody; b++) {
        memcpy(d->x + 3 * b, m->body[b].x0, sizeof(double[3]));
        memcpy(d->q + 4 * b, m->body[b].q0, sizeof(double[4]));
        memcpy(d->v + 3 * b, m->body[b].v0, sizeof(double[3]));
        memcpy(d->w + 3 * b, m->body[b].w0, sizeof(double[3]));
    }
    if (m->nbeam > 0) {
        d->st = br_struct_build(m, err, errlen);
        const int n = d->st ? d->st->ndof : 0;
        if (d->st) d->ga = br_genalpha_create(n, d->st->M, d->st->C, d->st->K, m->rho_inf, m->dt, err, errlen);
        d->g = calloc((size_t)n + 1, sizeof(double));
        d->gext = calloc((size_t)n + 1, sizeof(double));
        d->gext_prev = calloc((size_t)n + 1, sizeof(double));
        d->uprev = calloc((size_t)n + 1, sizeof(double));
        d->vprev = calloc((size_t)n + 1, sizeof(double));
        d->up = calloc((size_t)n + 1, sizeof(double));
        d->vp = calloc((size_t)n + 1, sizeof(double));
        d->xnode = calloc((size_t)(d->st ? d->st->nnode : 0) * 3 + 1, sizeof(double));
        if (d->ga) d->tau_s = (1.0 - d->ga->af) * m->dt;
        if (!d->st || !d->ga || !d->g || !d->gext || !d->gext_prev || !d->uprev || !d->vprev || !d->xnode || !d->up || !d->vp) {
            if (d->st && d->ga) snprintf(err, errlen, "out of memory");
            br_data_free(d);
            return NULL;
        }
    }
    if (m->nset > 0) {
        br_contact_set_desc *desc = malloc((size_t)m->nset * sizeof *desc);
        if (!desc) {
            snprintf(err, errlen, "out of memory");
            br_data_free(d);
            return NULL;
        }
        for (int s = 0; s < m->nset; s++) desc[s] = m->cset[s].desc;
        d->field = br_field_create(desc, m->nset, backend, err, errlen);
        free(desc);
        if (!d->field) {
            br_data_free(d);
            return NULL;
        }
    }
    /* energy reference state at t = 0 */
    br_fwd_frames(m, d);
    br_fwd_loads(m, d);
    if (d->ga && br_genalpha_start(d->ga, d->g)) {
        snprintf(err, errlen, "the structure's mass matrix is singular (a free DOF without mass)");
        br_data_free(d);
        return NULL;
    }
    d->en.kinetic0 = d->en.kinetic;
    d->en.spring0 = d->en.spring;
    d->res_ref = d->en.kinetic0 + d->en.spring0;
    if (d->ga && implicit_setup(m, d)) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    return d;
}

void br_data_free(br_data *d)
{
    if (!d) return;
    br_field_destroy(d->field);
    free(d->x), free(d->q), free(d->v), free(d->w), free(d->f), free(d->tau);
    free(d->fext), free(d->text), free(d->frames), free(d->res), free(d->E_upto), free(d->End_upto);
    free(d->load_val), free(d->spring_val), free(d->spring_angle);
    free(d->rot_z), free(d->rot_tau), free(d->rot_Eb), free(d->rot_E), free(d->rot_E_upto);
    free(d->imp_set), free(d->imp_D), free(d->imp_E), free(d->imp_dxi), free(d->imp_dxu), free(d->imp_xip);
    br_struct_free(d->st);
    br_genalpha_free(d->ga);
    free(d->g), free(d->gext), free(d->gext_prev), free(d->xnode), free(d->uprev), free(d->vprev), free(d->up), free(d->vp);
    free(d);
}

void br_fwd_frames(const br_model *m, br_data *d)
{
    br_frame_state *g = &d->frames[0];
    memset(g, 0, sizeof *g);
    g->R[0] = g->R[4] = g->R[8] = 1.0;
    if (d->st) {
        /* the structure as the field sees it: predicted at the equation time t + tau */
        const br_struct *st = d->st;
        const br_genalpha *ga = d->ga;
        const double tau = d->tau_s;
        for (int i = 0; i < st->ndof; i++) {
            d->up[i] = ga->u[i] + tau * ga->v[i] + 0.5 * tau * tau * ga->a[i];
            d->vp[i] = ga->v[i] + tau * ga->a[i];
        }
        for (int k = 0; k < st->nnode; k++)
            for (int j = 0; j < 3; j++) {
                const int gi = st->dof[6 * k + j];
                d->xnode[3 * k + j] = st->X[3 * k + j] + (gi >= 0 ? d->up[gi] : 0.0);
            }
    }
    for (int b = 0; b < m->nbody; b++) {
        br_frame_state *fs = &d->frames[1 + b];
        if (m->body[b].beam >= 0) {
            /* reported state at t_n; the frame the field and loads see is the predicted one */
            br_frame_state now;
            br_struct_body_frame(d->st, &m->body[b], body_node(m, d, b), d->ga->u, d->ga->v, &now);
            memcpy(d->x + 3 * b, now.x, sizeof now.x);
            memcpy(d->v + 3 * b, now.v, sizeof now.v);
            memcpy(d->w + 3 * b, now.w, sizeof now.w);
            br_struct_body_frame(d->st, &m->body[b], body_node(m, d, b), d->up, d->vp, fs);
            continue;
        }
        memcpy(fs->x, d->x + 3 * b, sizeof fs->x);
        br_quat_to_R(d->q + 4 * b, fs->R);
        memcpy(fs->v, d->v + 3 * b, sizeof fs->v);
        memcpy(fs->w, d->w + 3 * b, sizeof fs->w);
    }
    for (int k = 0; k < m->nkframe; k++) br_kframe_state(&m->kframe[k], d->t, &d->frames[1 + m->nbody + k]);
}

int br_fwd_contacts(const br_model *m, br_data *d, double h, char *err, size_t errlen)
{
    if (!d->field) return 0;
    for (int s = 0; s < m->nset; s++) {
        d->E_upto[s] = d->res[s].E;
        d->End_upto[s] = d->res[s].E_nd;
        if (m->cset[s].prescribed) {
            const double N = br_timefn_eval(&m->cset[s].normal_force, d->t);
            br_field_set_normal_force(d->field, s, N > 0.0 ? N : 0.0);
        }
    }
    char ferr[600];
    const int rc = br_field_step(d->field, d->frames, h, d->res, ferr, sizeof ferr);
    if (rc) snprintf(err, errlen, "t = %.9g s: %s", d->t, ferr);
    return rc;
}

void br_fwd_joints(const br_model *m, br_data *d, double h)
{
    for (int k = 0; k < m->nrot; k++) {
        const br_rotfric *e = &m->rot[k];
        const double *wa = d->frames[e->frame_a].w, *wb = d->frames[e->frame_b].w;
        const double w = br_dot3(wa, e->axis) - br_dot3(wb, e->axis);
        double P;
        d->rot_E_upto[k] = d->rot_E[k];
        d->rot_tau[k] = br_rotfric_step(e, w, d->t, h, &d->rot_z[k], &P, &d->rot_Eb[k]);
        d->rot_E[k] += h * P;
    }
}

/* wrench (force f at world point p) -> added to body b's total (and external if ext) */
static void add_force(const br_model *m, br_data *d, int fr, const double f[3], const double p[3],
                      int ext)
{
    const int b = frame_body(m, fr);
    const br_frame_state *fs = &d->frames[fr];
    double r[3] = {p[0] - fs->x[0], p[1] - fs->x[1], p[2] - fs->x[2]}, t[3];
    br_cross3(r, f, t);
    if (b < 0) {
        /* ground or prescribed frame: its driver does the work f does not */
        double vp[3];
        br_cross3(fs->w, r, vp);
        for (int j = 0; j < 3; j++) vp[j] += fs->v[j];
        d->p_drive -= br_dot3(f, vp);
        return;
    }
    const int node = body_node(m, d, b);
    if (node >= 0) {
        br_struct_add_force(d->st, node, d->xnode + 3 * node, f, p, d->g);
        if (ext) br_struct_add_force(d->st, node, d->xnode + 3 * node, f, p, d->gext);
        return;
    }
    for (int j = 0; j < 3; j++) {
        d->f[3 * b + j] += f[j];
        d->tau[3 * b + j] += t[j];
        if (ext) {
            d->fext[3 * b + j] += f[j];
            d->text[3 * b + j] += t[j];
        }
    }
}

/* contact wrench (F, M about the frame origin) -> frame fr's body, or the drive power */
static void add_wrench(const br_model *m, br_data *d, int fr, const double F[3], const double M[3])
{
    const int b = frame_body(m, fr);
    if (b < 0) {
        d->p_drive -= br_dot3(F, d->frames[fr].v) + br_dot3(M, d->frames[fr].w);
        return;
    }
    const int node = body_node(m, d, b);
    if (node >= 0) {
        br_struct_add_force(d->st, node, d->xnode + 3 * node, F, d->frames[fr].x, d->g);
        br_struct_add_torque(d->st, node, M, d->g);
        return;
    }
    for (int j = 0; j < 3; j++) {
        d->f[3 * b + j] += F[j];
        d->tau[3 * b + j] += M[j];
    }
}

void br_fwd_loads(const br_model *m, br_data *d)
{
    const int nb = m->nbody;
    memset(d->f, 0, (size_t)nb * 3 * sizeof(double));
    memset(d->tau, 0, (size_t)nb * 3 * sizeof(double));
    memset(d->fext, 0, (size_t)nb * 3 * sizeof(double));
    memset(d->text, 0, (size_t)nb * 3 * sizeof(double));
    d->p_drive = 0.0;
    d->p_spring_loss = 0.0;
    br_energy_terms *en = &d->en;
    en->kinetic = 0.0;
    if (d->st) {
        const int n = d->st->ndof;
        memset(d->g, 0, (size_t)n * sizeof(double));
        memset(d->gext, 0, (size_t)n * sizeof(double));
        if (!d->skip_energy) en->kinetic += 0.5 * quad(n, d->st->M, d->ga->v, d->ga->v);
    }
    for (int b = 0; b < nb; b++) {
        const br_body *B = &m->body[b];
        const double fg[3] = {B->mass * m->gravity[0], B->mass * m->gravity[1], B->mass * m->gravity[2]};
        if (B->beam >= 0) {
            if (fg[0] != 0 || fg[1] != 0 || fg[2] != 0) add_force(m, d, 1 + b, fg, d->frames[1 + b].x, 1);
            continue;
        }
        for (int j = 0; j < 3; j++) d->f[3 * b + j] = d->fext[3 * b + j] = fg[j];
        en->kinetic += br_rigid_kinetic(B, d->frames[1 + b].R, d->v + 3 * b, d->w + 3 * b);
    }
    for (int l = 0; l < m->nload; l++) {
        const br_load *L = &m->load[l];
        const br_frame_state *fs = &d->frames[L->frame];
        const int on_struct = body_node(m, d, L->frame - 1) >= 0;
        const double a = br_timefn_eval(&L->mag, on_struct ? d->t + d->tau_s : d->t);
        d->load_val[l] = a;
        double dir[3], f[3];
        if (L->body_axes) br_mat3_vec(fs->R, L->dir, dir);
        else memcpy(dir, L->dir, sizeof dir);
        for (int j = 0; j < 3; j++) f[j] = a * dir[j];
        const int b = frame_body(m, L->frame);
        if (L->type == BR_LOAD_TORQUE && body_node(m, d, b) >= 0) {
            br_struct_add_torque(d->st, body_node(m, d, b), f, d->g);
            br_struct_add_torque(d->st, body_node(m, d, b), f, d->gext);
        } else if (L->type == BR_LOAD_TORQUE) {
            for (int j = 0; j < 3; j++) d->tau[3 * b + j] += f[j], d->text[3 * b + j] += f[j];
        } else {
            double p[3];
            br_mat3_vec(fs->R, L->point, p);
            for (int j = 0; j < 3; j++) p[j] += fs->x[j];
            add_force(m, d, L->frame, f, p, 1);
        }
    }
    en->spring = d->st && !d->skip_energy ? 0.5 * quad(d->st->ndof, d->st->K, d->ga->u, d->ga->u) : 0.0;
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        const br_frame_state *A = &d->frames[S->frame_a], *B = &d->frames[S->frame_b];
        double ra[3], rb[3], pa[3], pb[3], va[3], vb[3], dd[3], dv[3], F[3], mF[3];
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
            const double rate = br_dot3(B->w, S->axis) - br_dot3(A->w, S->axis), th = d->spring_angle[k];
            const double T = S->k * th + S->c * rate;
            const double Ma[3] = {T * S->axis[0], T * S->axis[1], T * S->axis[2]};
            const double Mb[3] = {-Ma[0], -Ma[1], -Ma[2]}, z3[3] = {0, 0, 0};
            d->spring_val[k] = T;
            en->spring += 0.5 * S->k * th * th;
            d->p_spring_loss += S->c * rate * rate;
            add_wrench(m, d, S->frame_a, z3, Ma);
            add_wrench(m, d, S->frame_b, z3, Mb);
            continue;
        }
        if (S->rest > 0.0) {
            const double L = sqrt(br_dot3(dd, dd));
            double e[3] = {0, 0, 0};
            if (L > 0) for (int j = 0; j < 3; j++) e[j] = dd[j] / L;
            const double rate = br_dot3(dv, e);
            const double mag = S->k * (L - S->rest) + S->c * rate;
            for (int j = 0; j < 3; j++) F[j] = mag * e[j];
            d->spring_val[k] = mag;
            en->spring += 0.5 * S->k * (L - S->rest) * (L - S->rest);
            d->p_spring_loss += S->c * rate * rate;
        } else {
            for (int j = 0; j < 3; j++) F[j] = S->k * dd[j] + S->c * dv[j];
            d->spring_val[k] = sqrt(br_dot3(F, F));
            en->spring += 0.5 * S->k * br_dot3(dd, dd);
            d->p_spring_loss += S->c * br_dot3(dv, dv);
        }
        for (int j = 0; j < 3; j++) mF[j] = -F[j];
        add_force(m, d, S->frame_a, F, pa, 0);
        add_force(m, d, S->frame_b, mF, pb, 0);
    }
    en->contact_el = en->bristle = en->friction_loss = en->normal_loss = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        add_wrench(m, d, cs->frame_a, r->F_A, r->M_A);
        add_wrench(m, d, cs->frame_b, r->F_B, r->M_B);
        en->contact_el += r->E_el;
        en->bristle += r->E_b;
        en->friction_loss += d->E_upto[s] - r->E_b;
        en->normal_loss += d->End_upto[s];
    }
    for (int k = 0; k < m->nrot; k++) {
        const br_rotfric *e = &m->rot[k];
        const double T[3] = {d->rot_tau[k] * e->axis[0], d->rot_tau[k] * e->axis[1], d->rot_tau[k] * e->axis[2]};
        const double mT[3] = {-T[0], -T[1], -T[2]}, z3[3] = {0, 0, 0};
        add_wrench(m, d, e->frame_a, z3, mT);
        add_wrench(m, d, e->frame_b, z3, T);
        en->bristle += d->rot_Eb[k];
        en->friction_loss += d->rot_E_upto[k] - d->rot_Eb[k];
    }
    /* balance at t: input work (loads, gravity, drives) plus initial energy against the rest
     * (not on steps where the structure's energies were skipped) */
    if (d->st && d->skip_energy) return;
    const double have = en->work_in + en->kinetic0 + en->spring0;
    en->residual = have - (en->kinetic + en->spring + en->spring_loss + en->contact_el + en->bristle +
                           en->friction_loss + en->normal_loss);
    const double ref = fabs(en->work_in) + en->kinetic0 + en->spring0;
    if (ref > d->res_ref) d->res_ref = ref;
    en->residual_rel = d->res_ref > 0 ? fabs(en->residual) / d->res_ref : 0.0;
}

/* frame -> its angular velocity after the velocity update (bodies), or prescribed */
static void frame_omega(const br_model *m, const br_data *d, int fr, double w[3])
{
    const int b = frame_body(m, fr);
    if (fr == 0) w[0] = w[1] = w[2] = 0.0;
    else if (b >= 0) memcpy(w, d->w + 3 * b, 3 * sizeof(double));
    else memcpy(w, m->kframe[fr - 1 - m->nbody].w, 3 * sizeof(double));
}

/* set s with implicit friction, its slope matrix D, the predicted relative twist xi_p, its change
 * dxi at the equation time and dxu of its mean over the step -> the set's result corrected to the
 * friction force applied, W_A = -D xi_e with xi_e = xi_p + dxi, and its power booked as the work
 * that force does over the step's relative motion, xi_e^T D (xi_p + dxu) (so the friction loss is
 * the energy the structure actually gives up to it) */
static void implicit_correct(const br_model *m, br_data *d, int s, const double D[36], const double xi_p[6],
                             const double dxi[6], const double dxu[6])
{
    double dW[6], xe[6], P = 0.0;
    for (int a = 0; a < 6; a++) xe[a] = xi_p[a] + dxi[a];
    for (int a = 0; a < 6; a++) {
        double w = 0.0, q = 0.0;
        for (int b = 0; b < 6; b++) w -= D[6 * b + a] * dxi[b], q += D[6 * b + a] * xe[b];
        dW[a] = w;
        P += (xi_p[a] + dxu[a]) * q;
    }
    br_set_result *r = &d->res[s];
    const br_contact_set_desc *cs = &m->cset[s].desc;
    const double *xa = d->frames[cs->frame_a].x, *xb = d->frames[cs->frame_b].x;
    const double dx[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
    double dxF[3];
    br_cross3(dx, dW, dxF);
    for (int j = 0; j < 3; j++) {
        r->F_A[j] += dW[j], r->Ff_A[j] += dW[j];
        r->M_A[j] += dW[3 + j], r->Mf_A[j] += dW[3 + j];
        r->F_B[j] -= dW[j];
        r->M_B[j] -= dW[3 + j] + dxF[j];
    }
    const double dE = m->dt * (P - r->P);
    br_field_add_friction_energy(d->field, s, dE);
    r->E += dE;
    r->P = P;
}

void br_fwd_accel(const br_model *m, br_data *d)
{
    if (!d->ga) return;
    const int nr = 6 * d->nimp;
    for (int k = 0; k < d->nimp; k++) {
        const int s = d->imp_set[k];
        const br_cset *cs = &m->cset[s];
        br_set_frame fr;
        br_set_frame_build(&cs->desc, &d->frames[cs->desc.frame_a], &d->frames[cs->desc.frame_b], &fr);
        if (cs->prescribed) { /* as br_fwd_contacts set it */
            const double N = br_timefn_eval(&cs->normal_force, d->t);
            fr.Npt = (N > 0.0 ? N : 0.0) / (double)cs->desc.npoints;
        }
        double *D = d->imp_D + 36 * k;
        br_set_friction_damping(&cs->desc, &fr, D);
        for (int j = 0; j < 3; j++) d->imp_xip[6 * k + j] = fr.c[j], d->imp_xip[6 * k + 3 + j] = fr.w[j];
        for (int b = 0; b < 6; b++)
            for (int a = 0; a < 6; a++) d->imp_E[(size_t)(6 * k + b) * nr + 6 * k + a] = D[6 * b + a];
    }
    br_genalpha_solve(d->ga, d->g, nr ? d->imp_E : NULL, d->imp_dxi, d->imp_dxu);
    for (int k = 0; k < d->nimp; k++)
        implicit_correct(m, d, d->imp_set[k], d->imp_D + 36 * k, d->imp_xip + 6 * k, d->imp_dxi + 6 * k,
                         d->imp_dxu + 6 * k);
}

void br_integrate(const br_model *m, br_data *d, double h)
{
    double work = 0.0;
    if (d->ga) {
        /* structure: generalized-alpha with the acceleration br_fwd_accel solved for; work of the loads over the
         * step and the Rayleigh losses with the midpoint velocity */
        const int n = d->st->ndof;
        memcpy(d->uprev, d->ga->u, (size_t)n * sizeof(double));
        memcpy(d->vprev, d->ga->v, (size_t)n * sizeof(double));
        br_genalpha_advance(d->ga);
        /* the loads were evaluated at t_n + tau, the previous ones at t_n + tau - h: their linear
         * interpolation to the midpoint t_n + h/2 makes the work a second-order quadrature of
         * the integral of f . du (the end value alone, f(t_{n+1}) . du for rho_inf = 0, is first
         * order and put 2 % of the input work into the residual of the S2 stick phase) */
        const double wc = d->step > 0 ? 0.5 + d->ga->af : 1.0, wp = 1.0 - wc;
        double wl = 0.0;
        for (int i = 0; i < n; i++) {
            wl += (wc * d->gext[i] + wp * d->gext_prev[i]) * (d->ga->u[i] - d->uprev[i]);
            d->gext_prev[i] = d->gext[i];
            d->vprev[i] = 0.5 * (d->vprev[i] + d->ga->v[i]);
        }
        d->en.work_in += wl;
        d->en.spring_loss += h * quad(n, d->st->C, d->vprev, d->vprev);
    }
    for (int b = 0; b < m->nbody; b++) {
        if (m->body[b].beam >= 0) continue;
        double *x = d->x + 3 * b, *q = d->q + 4 * b, *v = d->v + 3 * b, *w = d->w + 3 * b;
        double a[3], al[3], vm[3], wm[3];
        br_rigid_accel(&m->body[b], d->frames[1 + b].R, w, d->f + 3 * b, d->tau + 3 * b, a, al);
        for (int j = 0; j < 3; j++) {
            const double vn = v[j], wn = w[j];
            v[j] += h * a[j];
            w[j] += h * al[j];
            x[j] += h * v[j];
            vm[j] = 0.5 * (vn + v[j]);
            wm[j] = 0.5 * (wn + w[j]);
        }
        br_quat_advance(q, w, h);
        /* midpoint velocities make h f . v_mid the exact kinetic-energy change of the translation */
        work += br_dot3(d->fext + 3 * b, vm) + br_dot3(d->text + 3 * b, wm);
    }
    /* torsion angles with the new angular velocities, as the attitudes were advanced */
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        if (!S->torsion) continue;
        double wa[3], wb[3];
        frame_omega(m, d, S->frame_a, wa);
        frame_omega(m, d, S->frame_b, wb);
        d->spring_angle[k] += h * (br_dot3(wb, S->axis) - br_dot3(wa, S->axis));
    }
    d->en.work_in += h * (work + d->p_drive);
    d->en.spring_loss += h * d->p_spring_loss;
    d->step++;
    d->t = d->step * h;
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen)
{
    for (int b = 0; b < m->nbody; b++) {
        if (!finite3(d->x + 3 * b) || !finite3(d->v + 3 * b) || !finite3(d->w + 3 * b) ||
            !finite3(d->q + 4 * b) || !isfinite(d->q[4 * b + 3])) {
            snprintf(err, errlen, "t = %.9g s: body '%s' has a non-finite position or velocity", d->t,
                     m->body[b].name);
            return -1;
        }
    }
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        if (finite3(r->F_A) && finite3(r->M_A) && isfinite(r->N) && isfinite(r->P) && isfinite(r->E_b))
            continue;
        /* locate the first point with a non-finite state, or report the set */
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const int ns = br_law_nstate(cs->law, &cs->fric);
        long bad = -1;
        if (ns > 0) {
            double *st = malloc((size_t)ns * (size_t)cs->npoints * sizeof(double));
            if (st && br_field_get_state(d->field, s, st) == 0) {
                for (long i = 0; i < cs->npoints && bad < 0; i++)
                    for (int k = 0; k < ns; k++)
                        if (!isfinite(st[k * cs->npoints + i])) bad = i;
            }
            free(st);
        }
        if (bad >= 0)
            snprintf(err, errlen, "t = %.9g s: contact set '%s', point %ld: non-finite bristle state",
                     d->t, m->cset[s].name, bad);
        else
            snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite contact force", d->t,
                     m->cset[s].name);
        return -1;
    }
    return 0;
}

int br_step(const br_model *m, br_data *d, char *err, size_t errlen)
{
    br_fwd_frames(m, d);
    if (br_fwd_contacts(m, d, m->dt, err, errlen)) return -1;
    br_fwd_joints(m, d, m->dt);
    br_fwd_loads(m, d);
    br_fwd_accel(m, d);
    if (br_check_finite(m, d, err, errlen)) return -1;
    br_integrate(m, d, m->dt);
    return 0;
}
