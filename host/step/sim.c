/* sim.c: data of a run and the stages of one step (see sim.h for the scheme). */
#include "step/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <lapacke.h>

#include "step/checkpoint.h"
#include "model/rigid.h"

/* frame index -> body index, or -1 for the ground and kinematic frames */
static int frame_body(const br_model *m, int fr) { return fr >= 1 && fr <= m->nbody ? fr - 1 : -1; }

/* body -> its structure node, or -1 for a free body */
static int body_node(const br_model *m, const br_data *d, int b)
{
    const br_body *B = &m->body[b];
    return B->beam >= 0 ? d->st->node0[B->beam] + B->node : -1;
}

/* frame -> 1 if it is a free rigid body (one with DOFs of its own) */
static int frame_free_body(const br_model *m, int fr)
{
    const int b = frame_body(m, fr);
    return b >= 0 && m->body[b].beam < 0;
}

/* model, structure (or NULL), desc copies -> with implicit coupling, every set acting on the
 * structure or on a free body asks the field for its wrench tangent; the sets acting on the
 * structure are listed in d->imp_set, the free bodies they act on get a block of the implicit
 * rigid-body system (d->rb_slot) and the sets acting on those in d->rb_set; with substeps, the free
 * bodies springs join to those get a block too (d->rb_spring: stepped explicitly at fixed steps,
 * as before). 0, or -1 */
static int coupling_setup(const br_model *m, br_data *d, br_contact_set_desc *desc)
{
    const int ns = m->nset > 0 ? m->nset : 1, nb = m->nbody > 0 ? m->nbody : 1;
    d->imp_set = malloc((size_t)ns * sizeof(int));
    d->rb_set = malloc((size_t)ns * sizeof(int));
    d->rb_slot = malloc((size_t)nb * sizeof(int));
    d->set_imp = malloc((size_t)ns * sizeof(int));
    d->set_rb = calloc((size_t)ns, sizeof(int));
    d->rb_spring = calloc((size_t)nb, sizeof(int));
    if (!d->imp_set || !d->rb_set || !d->rb_slot || !d->set_imp || !d->set_rb || !d->rb_spring) return -1;
    for (int b = 0; b < m->nbody; b++) d->rb_slot[b] = -1;
    for (int s = 0; s < m->nset; s++) d->set_imp[s] = -1;
    d->theta = d->theta_h = 1.0 - m->rho_inf * m->rho_inf;
    if (m->coupling != BR_COUPLING_IMPLICIT) return 0;
    for (int s = 0; s < m->nset; s++) {
        const int fa = desc[s].frame_a, fb = desc[s].frame_b;
        const int on_struct = d->st && (br_struct_frame_node(m, d->st, fa) >= 0 || br_struct_frame_node(m, d->st, fb) >= 0);
        const int on_free = frame_free_body(m, fa) || frame_free_body(m, fb);
        if (on_struct) d->set_imp[s] = d->nimp, d->imp_set[d->nimp++] = s;
        if (on_free) {
            d->set_rb[s] = 1;
            d->rb_set[d->nrbset++] = s;
            if (frame_free_body(m, fa) && d->rb_slot[fa - 1] < 0) d->rb_slot[fa - 1] = d->nrb++;
            if (frame_free_body(m, fb) && d->rb_slot[fb - 1] < 0) d->rb_slot[fb - 1] = d->nrb++;
        }
        desc[s].tangent = on_struct || on_free;
    }
    /* under the run's controller the springs on a body of the system act by the gamma rule
     * (rigid_implicit): the free bodies they join to it enter the system too (a spring force at t_n
     * against a trapezoidal position would make energy at first order in the step) */
    for (int grew = m->adaptive && d->nrb > 0; grew;) {
        grew = 0;
        for (int k = 0; k < m->nspring; k++) {
            const int fa = m->spring[k].frame_a, fb = m->spring[k].frame_b;
            if (!frame_free_body(m, fa) || !frame_free_body(m, fb)) continue;
            const int in_a = d->rb_slot[fa - 1] >= 0, in_b = d->rb_slot[fb - 1] >= 0;
            if (in_a == in_b) continue;
            d->rb_slot[(in_a ? fb : fa) - 1] = d->nrb++;
            d->rb_spring[(in_a ? fb : fa) - 1] = 1;
            grew = 1;
        }
    }
    /* group the free bodies coupled through contact sets and springs (union-find) and number the
     * blocks group by group, so that each group's system is one diagonal block */
    int *parent = malloc((size_t)nb * sizeof(int)), *group = malloc((size_t)nb * sizeof(int));
    d->rb_group = malloc((size_t)(nb + 1) * sizeof(int));
    if (!parent || !group || !d->rb_group) {
        free(parent), free(group);
        return -1;
    }
    for (int b = 0; b < m->nbody; b++) parent[b] = b;
    for (int q = 0; q < d->nrbset; q++) {
        const br_contact_set_desc *cs = &desc[d->rb_set[q]];
        if (!frame_free_body(m, cs->frame_a) || !frame_free_body(m, cs->frame_b)) continue;
        int a = cs->frame_a - 1, c = cs->frame_b - 1;
        while (parent[a] != a) a = parent[a];
        while (parent[c] != c) c = parent[c];
        parent[a < c ? c : a] = a < c ? a : c;
    }
    for (int k = 0; m->adaptive && k < m->nspring; k++) { /* the springs between two bodies of the system */
        const int fa = m->spring[k].frame_a, fb = m->spring[k].frame_b;
        if (!frame_free_body(m, fa) || !frame_free_body(m, fb) || d->rb_slot[fa - 1] < 0 || d->rb_slot[fb - 1] < 0)
            continue;
        int a = fa - 1, c = fb - 1;
        while (parent[a] != a) a = parent[a];
        while (parent[c] != c) c = parent[c];
        parent[a < c ? c : a] = a < c ? a : c;
    }
    int slot = 0;
    for (int b = 0; b < m->nbody; b++) {
        int r = b;
        while (parent[r] != r) r = parent[r];
        group[b] = r;
    }
    for (int r = 0; r < m->nbody; r++) { /* groups in order of their first body */
        int first = 1;
        for (int b = 0; b < m->nbody; b++) {
            if (group[b] != r || d->rb_slot[b] < 0) continue;
            if (first) d->rb_group[d->nrbgroup++] = slot, first = 0;
            d->rb_slot[b] = slot++;
        }
    }
    d->rb_group[d->nrbgroup] = slot;
    free(parent), free(group);
    const int n6 = 6 * (d->nrb > 0 ? d->nrb : 1);
    d->rb_A = malloc((size_t)n6 * n6 * sizeof(double));
    d->rb_x = malloc((size_t)n6 * sizeof(double));
    d->rb_piv = malloc((size_t)n6 * sizeof(int));
    return d->rb_A && d->rb_x && d->rb_piv ? 0 : -1;
}

/* model, data at t = 0 (structure undeformed, frames built) -> the rows L of the structure's
 * implicit sets, the relative twist of frame A with respect to B at A's undeformed origin per
 * structure DOF (a side that is not on the structure contributes no column: its motion is the
 * field's input), handed to the integrator. 0, or -1 */
static int structure_rows(const br_model *m, br_data *d)
{
    if (d->nimp == 0) return 0;
    const int n = d->st->ndof, nr = 6 * d->nimp;
    double *L = malloc((size_t)nr * n * sizeof(double));
    d->imp_E = calloc((size_t)36 * d->nimp, sizeof(double));
    d->imp_du = calloc((size_t)3 * nr, sizeof(double));
    int rc = !L || !d->imp_E || !d->imp_du;
    if (!rc) d->imp_dv = d->imp_du + nr, d->imp_dm = d->imp_du + 2 * nr;
    for (int k = 0; !rc && k < d->nimp; k++) {
        const br_contact_set_desc *cs = &m->cset[d->imp_set[k]].desc;
        const int na = br_struct_frame_node(m, d->st, cs->frame_a), nb = br_struct_frame_node(m, d->st, cs->frame_b);
        rc = br_struct_twist_rows(d->st, na >= 0 ? na : -1, nb >= 0 ? nb : -1, d->frames[cs->frame_a].x,
                                  L + (size_t)6 * k * n);
    }
    if (!rc) rc = br_genalpha_lowrank(d->ga, nr, L);
    free(L);
    return rc ? -1 : 0;
}

/* model, frames at t = 0 -> the elastic energy of the normal contact springs already pressed in
 * at the start, sum K delta^(pK+1) / (pK+1) (the field books it from its first step on; without it
 * a run that starts in contact would count that energy as made from nothing) */
static double contact_energy0(const br_model *m, const br_data *d)
{
    double e = 0.0;
    for (int s = 0; s < m->nset; s++) {
        if (m->cset[s].prescribed) continue;
        const br_contact_set_desc *cs = &m->cset[s].desc;
        br_set_frame fr;
        br_set_frame_build(cs, &d->fframes[cs->frame_a], &d->fframes[cs->frame_b], &fr);
        for (long i = 0; i < cs->npoints; i++) {
            br_point_kin k;
            br_kin(fr.surface, &fr, cs->r + 3 * i, &k);
            if (!(k.delta > 0.0)) continue;
            const double K = cs->K ? cs->K[i] : cs->K0;
            e += br_normal_energy(&cs->normal, K * br_pow_half(k.delta, cs->normal.pK), k.delta);
        }
    }
    return e;
}

br_data *br_data_create(const br_model *m, br_backend_kind backend, char *err, size_t errlen)
{
    return br_data_create_opt(m, backend, 1, err, errlen);
}

br_data *br_data_create_opt(const br_model *m, br_backend_kind backend, int own_field, char *err, size_t errlen)
{
    /* The systems of a step are small (tens to hundreds of DOF, the low-rank and rigid-body solves
     * tens): OpenBLAS's threads only add their start and yield for them (a few percent of a blade
     * run) */
    openblas_set_num_threads(1);
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
    d->fframes = calloc((size_t)nf, sizeof *d->fframes);
    d->vpred = calloc((size_t)nb * 6, sizeof(double));
    d->res = calloc((size_t)ns, sizeof *d->res);
    d->E_upto = calloc((size_t)ns * 6, sizeof(double));
    if (d->E_upto) {
        d->End_upto = d->E_upto + ns, d->setP = d->E_upto + 2 * ns, d->setPnd = d->E_upto + 3 * ns;
        d->setE = d->E_upto + 4 * ns, d->setEnd = d->E_upto + 5 * ns;
    }
    d->load_val = calloc((size_t)(m->nload > 0 ? m->nload : 1), sizeof(double));
    d->spring_val = calloc((size_t)(m->nspring > 0 ? m->nspring : 1), sizeof(double));
    d->spring_angle = calloc((size_t)(m->nspring > 0 ? m->nspring : 1), sizeof(double));
    const size_t nr = (size_t)(m->nrot > 0 ? m->nrot : 1);
    d->rot_z = calloc(nr, sizeof(double)), d->rot_tau = calloc(nr, sizeof(double));
    d->rot_Eb = calloc(nr, sizeof(double));
    d->rot_E = calloc(nr, sizeof(double)), d->rot_E_upto = calloc(nr, sizeof(double));
    d->Nset = calloc((size_t)ns, sizeof(double));
    d->acc = calloc((size_t)nb * 6, sizeof(double));
    if (!d->x || !d->q || !d->v || !d->w || !d->f || !d->tau || !d->fext || !d->text || !d->frames ||
        !d->fframes || !d->vpred ||
        !d->res || !d->E_upto || !d->End_upto || !d->load_val || !d->spring_val || !d->spring_angle ||
        !d->rot_z || !d->rot_tau || !d->rot_Eb || !d->rot_E || !d->rot_E_upto || !d->Nset || !d->acc) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    d->h = m->dt, d->gam = 1.0;
    d->sub.h_min = m->dt;
    d->set_geo = calloc((size_t)ns * 27, sizeof(double));
    d->snap = calloc(1, sizeof *d->snap);
    if (!d->set_geo || !d->snap) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    d->set_vs = d->set_geo + 8 * ns;
    d->wend = d->set_vs + ns;
    for (int s = 0; s < m->nset; s++) { /* what the substeps' entry check needs of each set's points */
        const br_contact_set_desc *cs = &m->cset[s].desc;
        double *g = d->set_geo + 8 * s, R2 = 0.0;
        for (int j = 0; j < 3; j++) g[1 + j] = INFINITY, g[4 + j] = -INFINITY;
        g[7] = cs->K0;
        for (long i = 0; i < cs->npoints; i++) {
            const double *r = cs->r + 3 * i;
            R2 = fmax(R2, r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
            for (int j = 0; j < 3; j++) g[1 + j] = fmin(g[1 + j], r[j]), g[4 + j] = fmax(g[4 + j], r[j]);
            if (cs->K) g[7] = fmax(g[7], cs->K[i]);
        }
        g[0] = sqrt(R2);
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
        /* BRISTLE_PORTABLE_LU: the Woodbury system by kernels/ga_step.h's LU, as the beam batches solve
         * it (on every machine the same bits; LAPACK's dgesv picks its kernels by CPU) */
        if (d->ga && getenv("BRISTLE_PORTABLE_LU")) d->ga->own_lu = 1;
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
            char why[400];
            snprintf(why, sizeof why, "%s", d->st && d->ga ? "out of memory" : err);
            /* the structure's errors belong to the beams: the file and line where they start */
            snprintf(err, errlen, "%s:%d: the beams: %s", m->source, m->beam[0].line, why);
            br_data_free(d);
            return NULL;
        }
    }
    if (m->nset == 0 && coupling_setup(m, d, NULL)) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    if (m->nset > 0) {
        br_contact_set_desc *desc = malloc((size_t)m->nset * sizeof *desc);
        if (!desc) {
            snprintf(err, errlen, "out of memory");
            br_data_free(d);
            return NULL;
        }
        for (int s = 0; s < m->nset; s++) desc[s] = m->cset[s].desc;
        d->desc = desc;
        if (coupling_setup(m, d, desc)) {
            snprintf(err, errlen, "out of memory");
            br_data_free(d);
            return NULL;
        }
        if (own_field) {
            d->field = br_field_create(desc, m->nset, backend, err, errlen);
            if (!d->field) {
                br_data_free(d);
                return NULL;
            }
        }
    }
    if (m->drive.nshaft > 0 && !(d->drv = br_drive_create(&m->drive))) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    /* energy reference state at t = 0 */
    br_fwd_frames(m, d);
    br_fwd_loads(m, d);
    const int ga_rc = d->ga ? br_genalpha_start(d->ga, d->g) : 0;
    if (ga_rc) {
        snprintf(err, errlen, "%s", ga_rc == -2 ? "out of memory" : "the structure's mass matrix is singular (a free DOF without mass)");
        br_data_free(d);
        return NULL;
    }
    d->en.kinetic0 = d->en.kinetic;
    d->en.spring0 = d->en.spring;
    d->en.contact_el0 = contact_energy0(m, d);
    d->res_ref = d->en.kinetic0 + d->en.spring0 + d->en.contact_el0;
    if (d->ga && structure_rows(m, d)) {
        snprintf(err, errlen, "out of memory");
        br_data_free(d);
        return NULL;
    }
    return d;
}

int br_data_own_field(const br_model *m, br_data *d, br_backend_kind backend, char *err, size_t errlen)
{
    if (d->field || m->nset == 0) return 0;
    d->field = br_field_create(d->desc, m->nset, backend, err, errlen);
    return d->field ? 0 : -1;
}

void br_data_free(br_data *d)
{
    if (!d) return;
    br_field_destroy(d->field);
    if (d->snap) br_ckpt_mem_free(d->snap);
    free(d->snap), free(d->set_geo);
    free(d->desc);
    free(d->x), free(d->q), free(d->v), free(d->w), free(d->f), free(d->tau);
    free(d->fext), free(d->text), free(d->frames), free(d->fframes), free(d->vpred), free(d->res), free(d->E_upto);
    free(d->load_val), free(d->spring_val), free(d->spring_angle);
    free(d->rot_z), free(d->rot_tau), free(d->rot_Eb), free(d->rot_E), free(d->rot_E_upto);
    free(d->Nset), free(d->acc), free(d->imp_set), free(d->set_imp), free(d->imp_E), free(d->imp_du);
    free(d->rb_slot), free(d->rb_set), free(d->set_rb), free(d->rb_spring), free(d->rb_A), free(d->rb_x), free(d->rb_piv), free(d->rb_group);
    br_struct_free(d->st);
    br_genalpha_free(d->ga);
    br_drive_free(d->drv);
    free(d->g), free(d->gext), free(d->gext_prev), free(d->xnode), free(d->uprev), free(d->vprev), free(d->up), free(d->vp);
    free(d);
}

/* a caller that steps dt at a time (studies, harmonic balance, eig, br_step): the step is dt, at
 * level 0, with the free bodies' theta */
static void fixed_step(const br_model *m, br_data *d)
{
    d->h = m->dt, d->theta_h = d->theta, d->gam = 1.0, d->substepping = 0;
    if (d->level && d->ga) br_genalpha_level(d->ga, 0, NULL, 0); /* made at creation: cannot fail */
    d->level = 0;
    if (d->ga) d->tau_s = (1.0 - d->ga->af) * m->dt;
}

/* model, level k -> the step is dt / 2^k (the structure's integrator switched to it), under the run's
 * controller (the free bodies' gamma scheme, docs/time-stepping.md); 0, or -1 with err */
static int set_level(const br_model *m, br_data *d, int k, char *err, size_t errlen)
{
    if (d->ga && br_genalpha_level(d->ga, k, err, errlen)) return -1;
    d->level = k, d->h = ldexp(m->dt, -k), d->substepping = 1;
    if (d->ga) d->tau_s = (1.0 - d->ga->af) * d->h;
    return 0;
}

static void fwd_frames(const br_model *m, br_data *d);

void br_fwd_frames(const br_model *m, br_data *d)
{
    fixed_step(m, d);
    fwd_frames(m, d);
}

/* br_fwd_frames at the step d->h */
static void fwd_frames(const br_model *m, br_data *d)
{
    br_frame_state *g = &d->frames[0];
    memset(g, 0, sizeof *g);
    g->R[0] = g->R[4] = g->R[8] = 1.0;
    if (d->st) {
        /* the structure as the field sees it: predicted at the equation time t + tau */
        const br_struct *st = d->st;
        br_genalpha_predict(d->ga, d->up, d->vp);
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
    /* the field's view: free bodies of the implicit system with the velocity change of the last
     * step repeated (their pose stays at t_n: the position enters the step as symplectic Euler's) */
    memcpy(d->fframes, d->frames, (size_t)br_model_nframe(m) * sizeof *d->frames);
    for (int b = 0; b < m->nbody; b++) {
        if (d->rb_slot[b] < 0 || (!d->substepping && d->rb_spring[b])) continue; /* the latter: explicit */
        for (int j = 0; j < 6; j++) d->vpred[6 * b + j] = d->h * d->acc[6 * b + j];
        for (int j = 0; j < 3; j++) d->fframes[1 + b].v[j] += d->vpred[6 * b + j], d->fframes[1 + b].w[j] += d->vpred[6 * b + 3 + j];
    }
}

void br_fwd_contacts_prepare(const br_model *m, br_data *d)
{
    for (int s = 0; s < m->nset; s++) {
        d->E_upto[s] = d->setE[s];
        d->End_upto[s] = d->setEnd[s];
        const double N = m->cset[s].prescribed ? br_timefn_eval(&m->cset[s].normal_force, d->t) : -1.0;
        d->Nset[s] = m->cset[s].prescribed ? (N > 0.0 ? N : 0.0) : -1.0;
    }
}

int br_fwd_contacts(const br_model *m, br_data *d, double h, char *err, size_t errlen)
{
    if (!d->field) return 0;
    br_fwd_contacts_prepare(m, d);
    char ferr[600];
    const int rc = br_field_step(d->field, d->fframes, d->Nset, h, d->res, ferr, sizeof ferr);
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
    double struct_elastic = 0.0;
    if (d->st) {
        const int n = d->st->ndof;
        memset(d->g, 0, (size_t)n * sizeof(double));
        memset(d->gext, 0, (size_t)n * sizeof(double));
        if (!d->skip_energy) br_genalpha_energies(d->ga, &en->kinetic, &struct_elastic);
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
    en->spring = struct_elastic;
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
            /* a rope: slack (no force, no energy) at or below its rest length, never pushing; the
             * loss is the force's power beyond the elastic part's, (mag - k ext) rate: c rate^2
             * while taut and pulling, -k ext rate >= 0 where the damper would push (mag clipped) */
            const double ext = S->rope && L <= S->rest ? 0.0 : L - S->rest;
            double mag = S->k * ext + S->c * rate;
            if (S->rope && (ext == 0.0 || mag < 0.0)) mag = 0.0;
            for (int j = 0; j < 3; j++) F[j] = mag * e[j];
            d->spring_val[k] = mag;
            en->spring += 0.5 * S->k * ext * ext;
            d->p_spring_loss += S->rope ? (mag - S->k * ext) * rate : S->c * rate * rate;
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
    if (d->drv) { /* the drivetrain at t: shafts, clutch bristles and clutch losses */
        double stored, loss;
        en->kinetic += br_drive_energy(&m->drive, d->drv, &stored, &loss);
        en->bristle += stored;
        en->friction_loss += loss;
    }
    /* balance at t: input work (loads, gravity, drives) plus initial energy against the rest
     * (not on steps where the structure's energies were skipped) */
    if (d->st && d->skip_energy) return;
    br_bm_residual(en, &d->res_ref);
}

/* frame -> its angular velocity after the velocity update (bodies), or prescribed */
static void frame_omega(const br_model *m, const br_data *d, int fr, double w[3])
{
    const int b = frame_body(m, fr);
    if (fr == 0) w[0] = w[1] = w[2] = 0.0;
    else if (b >= 0) memcpy(w, d->w + 3 * b, 3 * sizeof(double));
    else memcpy(w, m->kframe[fr - 1 - m->nbody].w, 3 * sizeof(double));
}

static void mat6_vec(const double *X, const double *x, double *y, int acc) { br_bm_mat6_vec(X, x, y, acc); }

/* set s, side (0: A, 1: B) -> the 6x6 map L (column-major) from that frame's twist (v, w at its
 * origin) to the set's relative twist at A's origin: I for A; [-I, [dx]x; 0, -I] for B,
 * dx = x_A - x_B (its transpose carries A's wrench to B's: W_B = L_B^T W_A) */
static void side_map(const br_model *m, const br_data *d, int s, int side, double L[36])
{
    memset(L, 0, 36 * sizeof(double));
    if (side == 0) {
        for (int k = 0; k < 6; k++) L[7 * k] = 1.0;
        return;
    }
    const br_contact_set_desc *cs = &m->cset[s].desc;
    const double *xa = d->frames[cs->frame_a].x, *xb = d->frames[cs->frame_b].x;
    const double dx[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
    for (int k = 0; k < 6; k++) L[7 * k] = -1.0;
    /* [dx]x in rows 0-2, columns 3-5 */
    L[6 * 4 + 0] = -dx[2], L[6 * 5 + 0] = dx[1];
    L[6 * 3 + 1] = dx[2], L[6 * 5 + 1] = -dx[0];
    L[6 * 3 + 2] = -dx[1], L[6 * 4 + 2] = dx[0];
}

/* frame -> 1 if it is a kinematic frame (prescribed motion) */
static int frame_prescribed(const br_model *m, int fr) { return fr > m->nbody; }

/* set s with implicit coupling, the time span of its linearization (h for free bodies, tau for the
 * structure) and the travel factors (theta h and gamma h for free bodies, tau and 0 for the
 * structure) -> du, dv += the change of the set's relative displacement and twist from the motion
 * of its prescribed sides, which the field saw at t_n: travel L V_B(t_n) + dv_travel L (V_B(t_n +
 * span) - V_B(t_n)) (a free body's displacement h (V_n + gamma dV)) and L (V_B(t_n + span) -
 * V_B(t_n)). The ground adds nothing. */
static void prescribed_change(const br_model *m, const br_data *d, int s, double span, double travel, double dv_travel,
                              double du[6], double dv[6])
{
    const br_contact_set_desc *cs = &m->cset[s].desc;
    for (int side = 0; side < 2; side++) {
        const int f = side ? cs->frame_b : cs->frame_a;
        if (!frame_prescribed(m, f)) continue;
        br_frame_state later;
        br_kframe_state(&m->kframe[f - 1 - m->nbody], d->t + span, &later);
        const br_frame_state *now = &d->frames[f];
        const double V0[6] = {now->v[0], now->v[1], now->v[2], now->w[0], now->w[1], now->w[2]};
        const double dV[6] = {later.v[0] - V0[0], later.v[1] - V0[1], later.v[2] - V0[2],
                              later.w[0] - V0[3], later.w[1] - V0[4], later.w[2] - V0[5]};
        double L[36], t0[6], t1[6];
        side_map(m, d, s, side, L);
        mat6_vec(L, V0, t0, 0);
        mat6_vec(L, dV, t1, 0);
        for (int j = 0; j < 6; j++) du[j] += travel * t0[j] + dv_travel * t1[j], dv[j] += t1[j];
    }
}

/* spring k at the frames' state -> its linearization about it: nd rows (1 for a torsion spring, 3
 * otherwise) of the maps D[0], D[1] (nd x 6, row-major) from the twists (v, w at the origin) of its
 * frames a and b to the rate of its coordinate (the anchors' separation pb - pa; the torsion angle),
 * and the slopes K, C (nd x nd, symmetric) of its force in that coordinate (the force on a is
 * -D[0]^T f, on b -D[1]^T f, as br_fwd_loads applies it). An axial spring adds the geometric
 * stiffness f / L across its line; a slack rope, or one whose damper would push, has none. */
static int spring_linear(const br_model *m, const br_data *d, int k, double D[2][18], double K[9], double C[9])
{
    const br_spring *S = &m->spring[k];
    const br_frame_state *A = &d->frames[S->frame_a], *B = &d->frames[S->frame_b];
    memset(D, 0, 2 * 18 * sizeof(double));
    memset(K, 0, 9 * sizeof(double));
    memset(C, 0, 9 * sizeof(double));
    if (S->torsion) {
        for (int j = 0; j < 3; j++) D[0][3 + j] = -S->axis[j], D[1][3 + j] = S->axis[j];
        K[0] = S->k, C[0] = S->c;
        return 1;
    }
    double r[2][3], dd[3], dv[3], wr[2][3];
    br_mat3_vec(A->R, S->pa, r[0]);
    br_mat3_vec(B->R, S->pb, r[1]);
    br_cross3(A->w, r[0], wr[0]);
    br_cross3(B->w, r[1], wr[1]);
    for (int j = 0; j < 3; j++)
        dd[j] = B->x[j] + r[1][j] - A->x[j] - r[0][j], dv[j] = B->v[j] + wr[1][j] - A->v[j] - wr[0][j];
    for (int side = 0; side < 2; side++) { /* +-[I, -[r]x]: the anchor's velocity v + w x r */
        const double sg = side ? 1.0 : -1.0, *q = r[side];
        double *Ds = D[side];
        for (int j = 0; j < 3; j++) Ds[6 * j + j] = sg;
        Ds[6 * 0 + 4] = sg * q[2], Ds[6 * 0 + 5] = -sg * q[1];
        Ds[6 * 1 + 3] = -sg * q[2], Ds[6 * 1 + 5] = sg * q[0];
        Ds[6 * 2 + 3] = sg * q[1], Ds[6 * 2 + 4] = -sg * q[0];
    }
    if (!(S->rest > 0.0)) {
        for (int j = 0; j < 3; j++) K[4 * j] = S->k, C[4 * j] = S->c;
        return 3;
    }
    const double L = sqrt(br_dot3(dd, dd));
    if (!(L > 0.0)) return 3;
    const double e[3] = {dd[0] / L, dd[1] / L, dd[2] / L}, ext = L - S->rest;
    const double mag = S->k * ext + S->c * br_dot3(dv, e);
    if (S->rope && (ext <= 0.0 || mag < 0.0)) return 3;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double ee = e[i] * e[j];
            K[3 * i + j] = S->k * ee + mag / L * ((i == j) - ee);
            C[3 * i + j] = S->c * ee;
        }
    return 3;
}

/* model, data, frame f, span h, gamma -> its twist at t_n (V0) and the change of its twist over the
 * step (dV: a body's solved one, a prescribed frame's known one; the ground and a structure's
 * frames none, their motion is not in the free bodies' system) */
static void frame_twist_change(const br_model *m, const br_data *d, int f, double h, double V0[6], double dV[6])
{
    const br_frame_state *fs = &d->frames[f];
    for (int j = 0; j < 3; j++) V0[j] = fs->v[j], V0[3 + j] = fs->w[j];
    memset(dV, 0, 6 * sizeof(double));
    if (frame_free_body(m, f) && d->rb_slot[f - 1] >= 0) {
        for (int j = 0; j < 6; j++) dV[j] = h * d->acc[6 * (f - 1) + j];
    } else if (frame_prescribed(m, f)) {
        br_frame_state later;
        br_kframe_state(&m->kframe[f - 1 - m->nbody], d->t + h, &later);
        for (int j = 0; j < 3; j++) dV[j] = later.v[j] - V0[j], dV[3 + j] = later.w[j] - V0[3 + j];
    }
}

/* spring k -> 1 if the gamma scheme takes it implicitly (springs_implicit): one side on a body of the
 * free bodies' system, the other free, prescribed or the ground. A spring to a structure's frame stays
 * an explicit force at t_n on both sides (the structure's step does not take its change). */
static int spring_in_system(const br_model *m, const br_data *d, int k)
{
    const int fr[2] = {m->spring[k].frame_a, m->spring[k].frame_b};
    int in = 0;
    for (int side = 0; side < 2; side++) {
        const int b = frame_body(m, fr[side]);
        if (b >= 0 && m->body[b].beam >= 0) return 0;
        in |= b >= 0 && d->rb_slot[b] >= 0;
    }
    return in;
}

/* spring linearization D, K, C (nd rows), step h, frames -> W^2, the larger of h^2 (D^T K D)_jj / m_j
 * and (h (D^T C D)_jj / m_j)^2 over its free bodies' unlocked DOFs (as blended_gamma's for a contact) */
static double spring_w2(const br_model *m, const br_data *d, const int fr[2], const double D[2][18], const double K[9],
                        const double C[9], int nd, double h)
{
    double W2 = 0.0;
    for (int side = 0; side < 2; side++) {
        if (!frame_free_body(m, fr[side]) || d->rb_slot[fr[side] - 1] < 0) continue;
        const br_body *B = &m->body[fr[side] - 1];
        double Iw[9];
        br_rigid_inertia_world(d->frames[fr[side]].R, B->Ib, Iw);
        for (int j = 0; j < 6; j++) {
            double kj = 0.0, cj = 0.0;
            for (int a = 0; a < nd; a++)
                for (int c = 0; c < nd; c++)
                    kj += D[side][6 * a + j] * K[3 * a + c] * D[side][6 * c + j], cj += D[side][6 * a + j] * C[3 * a + c] * D[side][6 * c + j];
            const double mj = j < 3 ? B->mass : Iw[4 * (j - 3)];
            if (!(mj > 0.0) || (B->lock & (1 << j))) continue;
            const double wc = h * fabs(cj) / mj;
            W2 = fmax(W2, fmax(h * h * fabs(kj) / mj, wc * wc));
        }
    }
    return W2;
}

/* model, data with the step's tangents, h -> the free bodies' gamma with substeps:
 * 1/2 + (1 - rho_inf^2) / 2 W^2 / (1 + W^2), W = w h the step's largest contact frequency against
 * it (the diagonal ratios of h^2 L^T K L and h L^T C L to the bodies' masses and inertias; a
 * spring on one of the bodies counts with its h^2 D^T K D, spring_w2).
 * Resolved contacts (W << 1: an impact in substeps) take the trapezoidal rule (gamma 1/2), second
 * order and without numerical dissipation on a linear spring for any sequence of steps; unresolved
 * ones (a stiff stuck bristle at the full step, W >> 1) backward Euler (gamma 1 at rho_inf = 0, the
 * scheme of fixed steps), and their modes die. The dissipation a step adds, about (2 gamma - 1) W^2
 * of a mode's energy, is of order W^4 where it is resolved (docs/time-stepping.md). */
static double blended_gamma(const br_model *m, const br_data *d, double h)
{
    double W2 = 0.0;
    for (int q = 0; q < d->nrbset; q++) {
        const int s = d->rb_set[q];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const br_set_tangent *T = &d->res[s].tan;
        for (int side = 0; side < 2; side++) {
            const int f = side ? cs->frame_b : cs->frame_a;
            if (!frame_free_body(m, f)) continue;
            const br_body *B = &m->body[f - 1];
            double L[36], Iw[9];
            side_map(m, d, s, side, L);
            br_rigid_inertia_world(d->frames[f].R, B->Ib, Iw);
            for (int j = 0; j < 6; j++) { /* (L^T X L)_jj = sum_rc L_rj X_rc L_cj */
                double k = 0.0, c = 0.0;
                for (int r = 0; r < 6; r++)
                    for (int cc = 0; cc < 6; cc++)
                        k += L[6 * j + r] * T->K[6 * cc + r] * L[6 * j + cc], c += L[6 * j + r] * T->C[6 * cc + r] * L[6 * j + cc];
                const double mj = j < 3 ? B->mass : Iw[4 * (j - 3)];
                if (!(mj > 0.0) || (B->lock & (1 << j))) continue; /* a locked DOF does not move */
                const double wk = h * h * fabs(k) / mj, wc = h * fabs(c) / mj;
                W2 = fmax(W2, fmax(wk, wc * wc));
            }
        }
    }
    for (int k = 0; k < m->nspring; k++) { /* the springs on the system's bodies (springs_implicit) */
        const int fr[2] = {m->spring[k].frame_a, m->spring[k].frame_b};
        if (!spring_in_system(m, d, k)) continue;
        double D[2][18], K[9], C[9];
        const int nd = spring_linear(m, d, k, D, K, C);
        W2 = fmax(W2, spring_w2(m, d, fr, D, K, C, nd, h));
    }
    return 0.5 + 0.5 * d->theta / (1.0 + 1.0 / W2); /* W2 / (1 + W2), also for W2 = 0 or infinite */
}

/* the springs on a body of the free bodies' system, under the run's controller (the gamma scheme):
 * their force acts as f_n + beta (f_{n+1} - f_n), linearized like the contacts' wrenches,
 *   f_{n+1} - f_n = K D h (V_n + gamma dV) + C D dV   (a prescribed side: its known motion),
 * while the bodies move by dx = h (V_n + gamma dV). On a mass m and a linear spring k the step
 * changes kinetic plus elastic energy by -(gamma - 1/2) m dv^2 - (beta - 1/2) k dx^2: never a gain
 * for gamma, beta >= 1/2, and least at beta = 1/2. A spring takes
 *   beta = 1/2 + (gamma - 1/2) W^2 / (1 + W^2)   (W = w h, its frequency against its bodies),
 * the trapezoidal rule where it is soft (its mode resolved), the contacts' gamma where it is stiff
 * (its unresolved mode damped with theirs: blended_gamma counts the springs too; at beta = 1/2 a
 * stiff spring's map keeps an eigenvalue -1). Tried and measured on the chain (docs/time-stepping.md):
 * the springs explicit (beta = 0) gained 28 % of the input work at dt 1e-2 where gamma was near 1/2;
 * beta = gamma ended static_reg's chain 1.2 % off; beta = 1 - gamma, which keeps the energy while
 * gamma stays constant, 0.9 % (the term (gamma - 1/2)(k dx^2 - m dv^2) telescopes only at constant
 * gamma, and gamma changes wherever the law's regularization is entered); this rule 0.15 %.
 * pass 0: their terms join the system A dV = x (rows and columns of the bodies' blocks, n6 its
 * leading dimension); pass 1, with d->acc solved: d->p_spring_loss takes their damper's power as the
 * kinetic energy sees it, (r_n + beta dr)^T C (r_n + dr/2) (r the rate of the spring's coordinate),
 * in place of its power at t_n. */
static void springs_implicit(const br_model *m, br_data *d, double h, int pass, double *A, double *x, int n6)
{
    const double g = d->gam, hh = g * h;
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        const int fr[2] = {S->frame_a, S->frame_b};
        int slot[2];
        for (int side = 0; side < 2; side++) slot[side] = frame_free_body(m, fr[side]) ? d->rb_slot[fr[side] - 1] : -1;
        if (!spring_in_system(m, d, k)) continue;
        double D[2][18], K[9], C[9], un[3] = {0}, dvk[3] = {0}, rn[3] = {0};
        const int nd = spring_linear(m, d, k, D, K, C);
        const double W2 = spring_w2(m, d, fr, D, K, C, nd, h);
        const double beta = 0.5 + (g - 0.5) / (1.0 + 1.0 / W2), hb = beta * h; /* W2 / (1 + W2), also at 0 */
        for (int side = 0; side < 2; side++) { /* the coordinate's rate at t_n, its known change (prescribed) */
            double V0[6], dV[6];
            frame_twist_change(m, d, fr[side], h, V0, dV);
            for (int i = 0; i < nd; i++)
                for (int j = 0; j < 6; j++) {
                    rn[i] += D[side][6 * i + j] * V0[j];
                    if (pass || slot[side] < 0) dvk[i] += D[side][6 * i + j] * dV[j];
                }
        }
        if (pass) { /* dvk: the solved change of the rate */
            double pm = 0.0, pn = 0.0, df[3] = {0};
            for (int i = 0; i < nd; i++)
                for (int j = 0; j < nd; j++) {
                    pm += (rn[i] + beta * dvk[i]) * C[3 * i + j] * (rn[j] + 0.5 * dvk[j]), pn += rn[i] * C[3 * i + j] * rn[j];
                    df[i] += K[3 * i + j] * (h * rn[j] + hh * dvk[j]) + C[3 * i + j] * dvk[j];
                }
            d->p_spring_loss += pm - pn;
            for (int side = 0; side < 2; side++) { /* a prescribed side: the drive's work on beta df (br_fwd_loads booked f_n) */
                if (!frame_prescribed(m, fr[side])) continue;
                double V0[6], dV[6];
                frame_twist_change(m, d, fr[side], h, V0, dV);
                for (int i = 0; i < nd; i++)
                    for (int j = 0; j < 6; j++) d->p_drive += beta * df[i] * D[side][6 * i + j] * V0[j];
            }
            continue;
        }
        /* the right side: -hb D_P^T (K (h rate_n + hh dvk) + C dvk), dvk the prescribed sides' change */
        double f[3] = {0};
        for (int i = 0; i < nd; i++) un[i] = h * rn[i] + hh * dvk[i];
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < nd; j++) f[i] += K[3 * i + j] * un[j] + C[3 * i + j] * dvk[j];
        for (int P = 0; P < 2; P++) {
            if (slot[P] < 0) continue;
            for (int r = 0; r < 6; r++) {
                double t = 0.0;
                for (int i = 0; i < nd; i++) t += D[P][6 * i + r] * f[i];
                x[6 * slot[P] + r] -= hb * t;
            }
            for (int Q = 0; Q < 2; Q++) { /* A += hb D_P^T (hh K + C) D_Q */
                if (slot[Q] < 0) continue;
                double ED[18]; /* (hh K + C) D_Q */
                for (int i = 0; i < nd; i++)
                    for (int c = 0; c < 6; c++) {
                        double t = 0.0;
                        for (int j = 0; j < nd; j++) t += (hh * K[3 * i + j] + C[3 * i + j]) * D[Q][6 * j + c];
                        ED[6 * i + c] = t;
                    }
                for (int c = 0; c < 6; c++)
                    for (int r = 0; r < 6; r++) {
                        double t = 0.0;
                        for (int i = 0; i < nd; i++) t += D[P][6 * i + r] * ED[6 * i + c];
                        A[(size_t)(6 * slot[Q] + c) * n6 + 6 * slot[P] + r] += hb * t;
                    }
            }
        }
    }
}

/* free bodies of the implicit system: symplectic Euler with each contact wrench linearized about
 * the state the field saw (pose at t_n, twist V_p = V_n + p, p = h a_{n-1} predicted):
 *   M dV = h (F + sum_s L^T dW_s),   dW = -K dxi_u - C dxi_v,
 *   dxi_u = L (h dV + theta h V_n) (the position x_n + h dV + theta h v_n),   dxi_v = L (dV - p)
 *   => (M + h sum L^T (h K + C) L) dV = h F + h sum L^T (C L p - theta h K L V_n)
 * (M = diag(m I, I_w), gyroscopic term in F, locked DOFs held). On a linear contact spring this
 * is symplectic Euler with the mass M + h^2 K + h C and the damping theta h K: its spectral
 * radius is sqrt((1 + (1 - theta) w^2 h^2) / (1 + w^2 h^2)), 1 for theta = 0 (no numerical
 * dissipation), sqrt(1 - theta) for w h -> infinity; theta = 1 - rho_inf^2 so that time.rho_inf
 * is the spectral radius at infinity here as in the structure's generalized-alpha (0 in the
 * studies: the unresolved contact modes die, backward Euler's position). Stable for any contact
 * stiffness; the predicted twist makes the linearization error of the velocity second order
 * (docs/time-stepping.md). Under the run's controller (substeps) the contacts take the gamma rule
 * instead, W = (1 - gamma) W_n + gamma W_{n+1} with the position moved by h (V_n + gamma dV):
 * hh = gamma h stands for h above, theta for 1 / gamma, and h (1 - gamma) L^T (W_n - W_p) joins the
 * right side; the springs on these bodies act by their own rule (springs_implicit), the other forces
 * with their value at t_n (docs/time-stepping.md). At fixed steps a body that springs alone joined
 * to the system (d->rb_spring) keeps an identity block: br_fwd_accel steps it explicitly, as before.
 * d->acc of those bodies <- dV / h. 0, or -1 when the system is singular */
static int rigid_implicit(const br_model *m, br_data *d, double h)
{
    if (d->substepping) { /* the gamma scheme (see above); its first step backward Euler's */
        d->gam = d->wend_ok ? blended_gamma(m, d, h) : 1.0;
        d->theta_h = 1.0 / d->gam;
    }
    const double g = d->gam, hh = g * h, th = d->theta_h;
    const int n6 = 6 * d->nrb;
    double *A = d->rb_A, *x = d->rb_x;
    memset(A, 0, (size_t)n6 * n6 * sizeof(double));
    for (int b = 0; b < m->nbody; b++) {
        const int k = d->rb_slot[b];
        if (k < 0) continue;
        const br_body *B = &m->body[b];
        const double *w = d->w + 3 * b;
        double Iw[9], Iww[3], gyr[3];
        br_rigid_inertia_world(d->frames[1 + b].R, B->Ib, Iw);
        br_mat3_vec(Iw, w, Iww);
        br_cross3(w, Iww, gyr);
        for (int i = 0; i < 3; i++) {
            A[(size_t)(6 * k + i) * n6 + 6 * k + i] = B->mass;
            for (int j = 0; j < 3; j++) A[(size_t)(6 * k + 3 + j) * n6 + 6 * k + 3 + i] = Iw[3 * i + j];
            x[6 * k + i] = h * d->f[3 * b + i];
            x[6 * k + 3 + i] = h * (d->tau[3 * b + i] - gyr[i]);
        }
    }
    for (int q = 0; q < d->nrbset; q++) {
        const int s = d->rb_set[q];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const br_set_tangent *T = &d->res[s].tan;
        double E[36];
        for (int k = 0; k < 36; k++) E[k] = hh * T->K[k] + T->C[k];
        int slot[2];
        double L[2][36];
        for (int side = 0; side < 2; side++) {
            const int fr_s = side ? cs->frame_b : cs->frame_a;
            slot[side] = frame_free_body(m, fr_s) ? d->rb_slot[fr_s - 1] : -1;
            side_map(m, d, s, side, L[side]);
        }
        double Cp[6] = {0}; /* C L p - theta h K L V_n over the free sides, - K du_B - C dv_B over the prescribed */
        if (g < 1.0) { /* the start's share: h (1 - gamma) (W_n - W_p), W_n the wrench applied at the end of the last step */
            const br_set_result *r = &d->res[s];
            const double Wp[6] = {r->F_A[0], r->F_A[1], r->F_A[2], r->M_A[0], r->M_A[1], r->M_A[2]};
            const double *Wn = d->wend + 18 * s;
            for (int j = 0; j < 6; j++) Cp[j] = (1.0 - g) / g * (Wn[j] - Wp[j]);
        }
        {
            double du[6] = {0}, dv[6] = {0};
            prescribed_change(m, d, s, h, th * hh, hh, du, dv);
            for (int j = 0; j < 6; j++) du[j] = -du[j], dv[j] = -dv[j];
            mat6_vec(T->K, du, Cp, 1);
            mat6_vec(T->C, dv, Cp, 1);
        }
        for (int Q = 0; Q < 2; Q++) {
            if (slot[Q] < 0) continue;
            const int b = (Q ? cs->frame_b : cs->frame_a) - 1;
            double Lp[6], Vn[6] = {d->v[3 * b], d->v[3 * b + 1], d->v[3 * b + 2], d->w[3 * b], d->w[3 * b + 1],
                                   d->w[3 * b + 2]};
            mat6_vec(L[Q], d->vpred + 6 * b, Lp, 0);
            mat6_vec(T->C, Lp, Cp, 1);
            for (int j = 0; j < 6; j++) Vn[j] *= -th * hh;
            mat6_vec(L[Q], Vn, Lp, 0);
            mat6_vec(T->K, Lp, Cp, 1);
        }
        for (int P = 0; P < 2; P++) {
            if (slot[P] < 0) continue;
            for (int r = 0; r < 6; r++) {
                double t = 0.0;
                for (int c = 0; c < 6; c++) t += L[P][6 * r + c] * Cp[c];
                x[6 * slot[P] + r] += hh * t;
            }
            for (int Q = 0; Q < 2; Q++) {
                if (slot[Q] < 0) continue;
                double EL[36]; /* E L_Q */
                for (int c = 0; c < 6; c++) mat6_vec(E, L[Q] + 6 * c, EL + 6 * c, 0);
                for (int c = 0; c < 6; c++)
                    for (int r = 0; r < 6; r++) {
                        double t = 0.0; /* (L_P^T E L_Q)(r, c) */
                        for (int k = 0; k < 6; k++) t += L[P][6 * r + k] * EL[6 * c + k];
                        A[(size_t)(6 * slot[Q] + c) * n6 + 6 * slot[P] + r] += hh * t;
                    }
            }
        }
    }
    if (d->substepping) springs_implicit(m, d, h, 0, A, x, n6);
    for (int b = 0; b < m->nbody; b++) { /* locked DOFs: dV = 0 */
        const int k = d->rb_slot[b];
        for (int j = 0; k >= 0 && j < 6; j++) {
            if (!(m->body[b].lock & (1 << j))) continue;
            const int r = 6 * k + j;
            for (int c = 0; c < n6; c++) A[(size_t)c * n6 + r] = A[(size_t)r * n6 + c] = 0.0;
            A[(size_t)r * n6 + r] = 1.0;
            x[r] = 0.0;
        }
    }
    for (int b = 0; !d->substepping && b < m->nbody; b++) { /* fixed steps: spring-joined bodies explicit */
        const int k = d->rb_slot[b];
        if (k < 0 || !d->rb_spring[b]) continue;
        for (int j = 0; j < 6; j++) {
            const int r = 6 * k + j;
            for (int c = 0; c < n6; c++) A[(size_t)c * n6 + r] = A[(size_t)r * n6 + c] = 0.0;
            A[(size_t)r * n6 + r] = 1.0;
            x[r] = 0.0;
        }
    }
    /* one LU per group of bodies coupled by contacts and springs (coupling_setup numbers their blocks
     * together); at fixed steps a spring-joined body's identity block leaves the others' solution as it was */
    for (int g = 0; g < d->nrbgroup; g++) {
        const int o = 6 * d->rb_group[g], ng = 6 * (d->rb_group[g + 1] - d->rb_group[g]);
        lapack_int nn = ng, ld = n6, one = 1, info = 0;
        LAPACK_dgesv(&nn, &one, A + (size_t)o * n6 + o, &ld, d->rb_piv + o, x + o, &ld, &info);
        if (info != 0) return -1;
    }
    for (int b = 0; b < m->nbody; b++) {
        const int k = d->rb_slot[b];
        if (!d->substepping && d->rb_spring[b]) continue; /* br_fwd_accel's explicit step */
        for (int j = 0; k >= 0 && j < 6; j++) d->acc[6 * b + j] = x[6 * k + j] / h;
    }
    if (d->substepping) springs_implicit(m, d, h, 1, NULL, NULL, n6);
    return 0;
}

/* twist (v, w), radius R -> |v| + R |w|: the largest speed of a point within R of the origin */
static double twist_speed(const double x[6], double R) { return sqrt(br_dot3(x, x)) + R * sqrt(br_dot3(x + 3, x + 3)); }

/* set s coupled implicitly, its frame data fr (the field's state), the relative twist xi the field
 * saw, its change dv to the solved one, the mean xm over the step, h -> the step's error ratio for
 * that set (1: at the tolerance), the larger of
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
static double set_error(const br_model *m, br_data *d, int s, const br_set_frame *fr, const double xi[6],
                        const double dv[6], const double xm[6], double h)
{
    if (!m->adaptive) return 0.0;
    const br_set_result *r = &d->res[s];
    const double *g = d->set_geo + 8 * s, R = g[0];
    if (r->ncontact > 0) {
        const double vs = fmax(d->set_vs[s], fmax(twist_speed(xi, R), twist_speed(xm, R)));
        d->set_vs[s] = vs;
        return twist_speed(dv, R) / (m->atol + m->rtol * vs);
    }
    d->set_vs[s] = 0.0;
    const br_contact_set_desc *cs = &m->cset[s].desc;
    if (m->cset[s].prescribed || cs->surface != BR_SURF_PLANE || cs->npoints == 0) return 0.0;
    const double *RA = d->fframes[cs->frame_a].R;
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
    const double pK = cs->normal.pK, E = g[7] * pow(dmax, pK + 1.0) / (pK + 1.0);
    /* the energy scale of the set's free bodies, from what every substep has (not the sampled energy
     * terms): their kinetic energy, and the work of the forces on them over the depth */
    double scale = 0.0;
    for (int side = 0; side < 2; side++) {
        const int f = side ? cs->frame_b : cs->frame_a;
        if (!frame_free_body(m, f)) continue;
        const int b = f - 1;
        scale += br_rigid_kinetic(&m->body[b], d->frames[f].R, d->v + 3 * b, d->w + 3 * b) +
                 dmax * sqrt(br_dot3(d->f + 3 * b, d->f + 3 * b));
    }
    return scale > 0.0 ? E / (m->rtol * scale) : 1e30;
}

/* a set's result, the changes du, dv of its relative displacement and twist from the field's state to
 * the solved one -> its whole, friction and normal-damping wrenches on A as the integrators applied them
 * at the end of the step: W - K du - C dv, W_f - Kf du - Cf dv and W_d - (C - Cf) dv (book_powers' forces) */
static void end_wrenches(const br_set_result *r, const double du[6], const double dv[6], double W[6], double Wf[6],
                         double Wd[6])
{
    const br_set_tangent *T = &r->tan;
    const double Wa[6] = {r->F_A[0], r->F_A[1], r->F_A[2], r->M_A[0], r->M_A[1], r->M_A[2]};
    const double F[6] = {r->Ff_A[0], r->Ff_A[1], r->Ff_A[2], r->Mf_A[0], r->Mf_A[1], r->Mf_A[2]};
    double t[6], Cn[36];
    mat6_vec(T->K, du, t, 0);
    mat6_vec(T->C, dv, t, 1);
    for (int j = 0; j < 6; j++) W[j] = Wa[j] - t[j];
    mat6_vec(T->Kf, du, t, 0);
    mat6_vec(T->Cf, dv, t, 1);
    for (int j = 0; j < 6; j++) Wf[j] = F[j] - t[j];
    for (int j = 0; j < 36; j++) Cn[j] = T->C[j] - T->Cf[j];
    mat6_vec(Cn, dv, t, 0);
    for (int j = 0; j < 6; j++) Wd[j] = T->Wd[j] - t[j];
}

/* the step's friction and normal-damping power of every contact set -> d->setP, d->setPnd and
 * the energy integrals d->setE, d->setEnd. An explicit set: the field's values. A set whose
 * wrench the integrators took linearly implicit: the power of the forces they applied, on the
 * relative motion they solved for (docs/time-stepping.md):
 *     friction  P = -(W_f - Kf dxi_u - Cf dxi_v) . xi_m
 *     damping   P_nd = P_nd,field - W_d . (xi_m - xi) + dxi_v^T (C - Cf) xi_m
 * with xi the relative twist the field saw, dxi_u, dxi_v the changes of relative displacement
 * and twist from the field's state to the solved one, xi_m the mean relative twist over the step,
 * W_d the damping part of the normal forces (N - K delta^pK per point, which also carries the
 * elastic energy a clamped, separating point loses) and C - Cf = sum cn (G^T n)(G^T n)^T its
 * slope in the normal rates.
 * The field's own power at its linearization state is no estimate of the dissipation where that
 * state differs from the solved one by a velocity error e: a damper c books c (v + e)^2 there. */
static void book_powers(const br_model *m, br_data *d, double h)
{
    d->err = 0.0;
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const int k = d->set_imp[s];
        if (k < 0 && !d->set_rb[s]) {
            d->setP[s] = r->P, d->setPnd[s] = r->P_nd;
        } else {
            br_set_frame fr;
            br_set_frame_build(cs, &d->fframes[cs->frame_a], &d->fframes[cs->frame_b], &fr);
            double xi[6] = {fr.c[0], fr.c[1], fr.c[2], fr.w[0], fr.w[1], fr.w[2]}, du[6] = {0}, dv[6] = {0}, xm[6];
            memcpy(xm, xi, sizeof xm);
            if (k >= 0)
                for (int j = 0; j < 6; j++) du[j] += d->imp_du[6 * k + j], dv[j] += d->imp_dv[6 * k + j], xm[j] += d->imp_dm[6 * k + j];
            if (k >= 0) prescribed_change(m, d, s, d->tau_s, d->tau_s, 0.0, du, dv);
            else prescribed_change(m, d, s, h, d->theta_h * d->gam * h, d->gam * h, du, dv);
            double dvp[6]; /* the prescribed sides' known change: no error of the step's */
            memcpy(dvp, dv, sizeof dvp);
            for (int side = 0; d->set_rb[s] && side < 2; side++) { /* free bodies: see rigid_implicit */
                const int f = side ? cs->frame_b : cs->frame_a;
                if (!frame_free_body(m, f)) continue;
                double L[36], dV[6], t[6], tp[6], tn[6];
                const double *vn = d->v + 3 * (f - 1), *wn = d->w + 3 * (f - 1);
                const double Vn[6] = {vn[0], vn[1], vn[2], wn[0], wn[1], wn[2]};
                side_map(m, d, s, side, L);
                for (int j = 0; j < 6; j++) dV[j] = h * d->acc[6 * (f - 1) + j];
                mat6_vec(L, dV, t, 0);
                mat6_vec(L, d->vpred + 6 * (f - 1), tp, 0);
                mat6_vec(L, Vn, tn, 0);
                for (int j = 0; j < 6; j++)
                    dv[j] += t[j] - tp[j], xm[j] += d->gam * t[j] - tp[j],
                    du[j] += h * d->gam * (t[j] + d->theta_h * tn[j]);
            }
            /* the drive work of a prescribed side (br_fwd_loads booked the field's wrench) */
            double dW[6], t[6];
            mat6_vec(r->tan.K, du, dW, 0);
            mat6_vec(r->tan.C, dv, dW, 1);
            for (int side = 0; side < 2; side++) {
                const int f = side ? cs->frame_b : cs->frame_a;
                if (!frame_prescribed(m, f)) continue;
                double L[36];
                side_map(m, d, s, side, L);
                const br_frame_state *fs = &d->frames[f];
                const double V[6] = {fs->v[0], fs->v[1], fs->v[2], fs->w[0], fs->w[1], fs->w[2]};
                mat6_vec(L, V, t, 0);
                for (int j = 0; j < 6; j++) d->p_drive += dW[j] * t[j]; /* -(L^T (-dW)) . V */
            }
            br_bm_set_power(&r->tan, r->Ff_A, r->Mf_A, r->P_nd, xi, du, dv, xm, &d->setP[s], &d->setPnd[s]);
            if (k < 0) { /* a free body's set: the gamma scheme applied gamma of the end wrench and 1 - gamma of the start's */
                double *wn = d->wend + 18 * s;
                if (d->gam < 1.0) {
                    double pf = 0.0, pd = 0.0;
                    for (int j = 0; j < 6; j++) pf -= wn[6 + j] * xm[j], pd -= wn[12 + j] * xm[j];
                    d->setP[s] = d->gam * d->setP[s] + (1.0 - d->gam) * pf;
                    d->setPnd[s] = d->gam * d->setPnd[s] + (1.0 - d->gam) * pd;
                }
                end_wrenches(r, du, dv, wn, wn + 6, wn + 12);
            }
            double dve[6];
            for (int j = 0; j < 6; j++) dve[j] = dv[j] - dvp[j];
            const double e = k < 0 ? set_error(m, d, s, &fr, xi, dve, xm, h) : 0.0;
            if (e > d->err) d->err = e;
        }
        d->setE[s] = d->E_upto[s] + h * d->setP[s];
        d->setEnd[s] = d->End_upto[s] + h * d->setPnd[s];
    }
}

int br_fwd_accel(const br_model *m, br_data *d, char *err, size_t errlen)
{
    const double h = d->h;
    if (d->drv && br_drive_solve(&m->drive, d->drv, d->t, h, err, errlen)) return -1;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].beam < 0 && (d->rb_slot[b] < 0 || (!d->substepping && d->rb_spring[b])))
            br_rigid_accel(&m->body[b], d->frames[1 + b].R, d->w + 3 * b, d->f + 3 * b, d->tau + 3 * b,
                           d->acc + 6 * b, d->acc + 6 * b + 3);
    if (d->nrb > 0 && rigid_implicit(m, d, h)) {
        snprintf(err, errlen, "t = %.9g s: the linearized rigid-body system is singular", d->t);
        return -1;
    }
    if (!d->ga) {
        book_powers(m, d, h);
        return 0;
    }
    const int nr = 6 * d->nimp;
    double ck, cc;
    br_genalpha_coeffs(d->ga, &ck, &cc);
    for (int k = 0; k < d->nimp; k++) { /* a prescribed side moves from t_n, where the field saw it, to t_n + tau */
        const int s = d->imp_set[k];
        double du[6] = {0}, dv[6] = {0}, w[6] = {0};
        prescribed_change(m, d, s, d->tau_s, d->tau_s, 0.0, du, dv);
        for (int j = 0; j < 6; j++) du[j] = -du[j], dv[j] = -dv[j];
        mat6_vec(d->res[s].tan.K, du, w, 1);
        mat6_vec(d->res[s].tan.C, dv, w, 1);
        br_genalpha_row_force(d->ga, k, w, d->g);
    }
    for (int k = 0; k < d->nimp; k++) br_bm_eblock(ck, cc, &d->res[d->imp_set[k]].tan, d->imp_E + 36 * k);
    if (br_genalpha_solve(d->ga, d->g, nr ? d->imp_E : NULL)) {
        snprintf(err, errlen, "t = %.9g s: the linearized structure system is singular", d->t);
        return -1;
    }
    if (nr) br_genalpha_row_changes(d->ga, d->imp_du, d->imp_dv, d->imp_dm);
    book_powers(m, d, h);
    return 0;
}

/* br_integrate without the time: the state advanced by h */
static void integrate_state(const br_model *m, br_data *d, double h)
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
        const double af = d->ga->af, hp = d->h_prev;
        const double wc = !(hp > 0.0) ? 1.0 : hp == h ? 0.5 + af : (0.5 * h + af * hp) / ((1.0 - af) * h + af * hp);
        const double wp = 1.0 - wc;
        d->en.work_in += br_bm_load_work(n, wc, wp, d->gext, 1, d->gext_prev, 1, d->ga->u, 1, d->uprev, 1, d->vprev, 1,
                                         d->ga->v, 1);
        d->en.spring_loss += h * br_genalpha_quad(d->ga, d->st->C, d->vprev, d->vprev);
    }
    for (int b = 0; b < m->nbody; b++) {
        if (m->body[b].beam >= 0) continue;
        double *x = d->x + 3 * b, *q = d->q + 4 * b, *v = d->v + 3 * b, *w = d->w + 3 * b;
        const double *a = d->acc + 6 * b, *al = a + 3;
        double vm[3], wm[3], wg[3];
        if (d->rb_slot[b] >= 0 && d->gam < 1.0) { /* the gamma scheme: x, q with V_n + gamma dV */
            const double g = d->gam;
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                x[j] += h * (vn + g * (v[j] - vn));
                wg[j] = wn + g * (w[j] - wn);
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_quat_advance(q, wg, h);
        } else {
            for (int j = 0; j < 3; j++) {
                const double vn = v[j], wn = w[j];
                v[j] += h * a[j];
                w[j] += h * al[j];
                x[j] += h * v[j];
                vm[j] = 0.5 * (vn + v[j]);
                wm[j] = 0.5 * (wn + w[j]);
            }
            br_quat_advance(q, w, h);
        }
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
        for (int side = 0; side < 2 && d->gam < 1.0; side++) { /* the gamma scheme: turned by w_n + gamma dw */
            const int b = frame_body(m, side ? S->frame_b : S->frame_a);
            if (b < 0 || d->rb_slot[b] < 0) continue;
            double *w = side ? wb : wa;
            for (int j = 0; j < 3; j++) w[j] -= (1.0 - d->gam) * h * d->acc[6 * b + 3 + j];
        }
        d->spring_angle[k] += h * (br_dot3(wb, S->axis) - br_dot3(wa, S->axis));
    }
    d->en.work_in += h * (work + d->p_drive);
    if (d->drv) d->en.work_in += br_drive_commit(&m->drive, d->drv);
    d->en.spring_loss += h * d->p_spring_loss;
    d->h_prev = h;
    d->wend_ok = 1;
}

void br_integrate(const br_model *m, br_data *d, double h)
{
    integrate_state(m, d, h);
    d->step++;
    d->t = d->step * h;
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

/* n doubles -> 1 if all are finite */
static int finite_n(const double *a, int n)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(a[k])) return 0;
    return 1;
}

int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen)
{
    /* the linearized solves of the step, before anything is advanced with them */
    for (int s = 0; s < m->nset; s++)
        if ((d->set_imp[s] >= 0 || d->set_rb[s]) &&
            !finite_n((const double *)&d->res[s].tan, (int)(sizeof d->res[s].tan / sizeof(double)))) {
            snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite wrench tangent", d->t, m->cset[s].name);
            return -1;
        }
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].beam < 0 && !finite_n(d->acc + 6 * b, 6)) {
            snprintf(err, errlen, "t = %.9g s: body '%s': non-finite acceleration from the contact coupling", d->t,
                     m->body[b].name);
            return -1;
        }
    if (d->ga && !finite_n(d->ga->a1, d->ga->n)) {
        snprintf(err, errlen, "t = %.9g s: the structure's step gave a non-finite acceleration", d->t);
        return -1;
    }
    for (int i = 0; d->drv && i < m->drive.nshaft + m->drive.ngear; i++)
        if (!isfinite(d->drv->x[i])) {
            if (i < m->drive.nshaft)
                snprintf(err, errlen, "t = %.9g s: shaft '%s': the drivetrain's step gave a non-finite speed",
                         d->t + d->h, m->drive.shaft[i].name);
            else
                snprintf(err, errlen, "t = %.9g s: gear '%s': the drivetrain's step gave a non-finite torque",
                         d->t + d->h, m->drive.gear[i - m->drive.nshaft].name);
            return -1;
        }
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
            if (st && d->field && br_field_get_state(d->field, s, st) == 0) {
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
    /* the energy terms (when this step computed them): a run never ends "complete" with a
     * non-finite energy balance */
    static const char *const EN[] = {"work_in", "kinetic", "kinetic0", "spring", "spring0", "spring_loss",
                                     "contact_el", "contact_el0", "bristle", "friction_loss", "normal_loss",
                                     "residual", "residual_rel"};
    _Static_assert(sizeof EN / sizeof *EN == sizeof(br_energy_terms) / sizeof(double), "EN names every term");
    const double *en = (const double *)&d->en;
    for (int k = 0; !d->skip_energy && k < (int)(sizeof EN / sizeof *EN); k++)
        if (!isfinite(en[k])) {
            snprintf(err, errlen, "t = %.9g s: the energy term %s is not finite (%g)", d->t, EN[k], en[k]);
            return -1;
        }
    for (int s = 0; s < m->nset; s++)
        if (!isfinite(d->setE[s])) {
            snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite friction energy", d->t, m->cset[s].name);
            return -1;
        }
    return 0;
}


static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* br_step_after_contacts at the step d->h */
static int after_contacts(const br_model *m, br_data *d, int energy, char *err, size_t errlen)
{
    br_fwd_joints(m, d, d->h);
    d->skip_energy = !energy;
    br_fwd_loads(m, d);
    if (br_fwd_accel(m, d, err, errlen)) return -1;
    return br_check_finite(m, d, err, errlen);
}

int br_step_after_contacts(const br_model *m, br_data *d, int energy, char *err, size_t errlen)
{
    fixed_step(m, d);
    return after_contacts(m, d, energy, err, errlen);
}

/* br_step_forces at the step d->h */
static int step_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    fwd_frames(m, d);
    const double t0 = wall_field ? wall_now() : 0.0;
    if (br_fwd_contacts(m, d, d->h, err, errlen)) return -1;
    if (wall_field) *wall_field += wall_now() - t0;
    return after_contacts(m, d, energy, err, errlen);
}

int br_step_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    fixed_step(m, d);
    return step_forces(m, d, energy, wall_field, err, errlen);
}

/* Substeps. The output step is cut into a binary grid of BR_SUB_LEVELS levels; d->sub_pos (in
 * units of dt / 2^BR_SUB_LEVELS) is where the next substep starts. */

/* model, data at the start of a substep, energy, wall_field -> the substep's forces tried from
 * d->level on: each try starts from the snapshot, and a try whose error ratio is above 1 (or whose
 * linearized system failed) is taken again at a level finer by what the ratio asks for (the
 * correction is second order in h: ratio^(1/2) halvings), up to BR_SUB_LEVELS, and no finer than
 * the grid position pos allows coarser (a substep never crosses the output step). 0, or -1 with err */
static int substep_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    br_ckpt *c = d->snap;
    br_ckpt_mem(c, 1);
    if (br_data_checkpoint(m, d, c)) {
        snprintf(err, errlen, "t = %.9g s: %s", d->t, c->err);
        return -1;
    }
    double prev = INFINITY; /* the ratio of the previous try */
    for (;;) {
        const int k = d->level;
        if (set_level(m, d, k, err, errlen)) return -1;
        char e2[600] = "";
        const int rc = step_forces(m, d, energy, wall_field, e2, sizeof e2);
        /* accepted: within the tolerance; or at the finest level; or not converging, a shorter try no
         * better than half the longer one's ratio (a jump the predictor cannot follow at any step,
         * stick-slip chatter): then finer steps cost without gain, and the step may double again */
        const int stalled = rc == 0 && d->err > 1.0 && d->err > 0.5 * prev;
        if (rc == 0 && (d->err <= 1.0 || k >= BR_SUB_LEVELS || stalled)) {
            if (d->err > 1.0) d->sub.unresolved++;
            d->calm = d->err <= 0.25 ? d->calm + 1 : d->err > 1.0 ? BR_SUB_CALM : 0;
            return 0;
        }
        prev = rc ? INFINITY : d->err;
        if (k >= BR_SUB_LEVELS) { /* failed at the finest level: the error stands */
            snprintf(err, errlen, "%s (at the finest substep, %g s)", e2, d->h);
            return -1;
        }
        const double ratio = rc ? 16.0 : d->err; /* a failed solve: three halvings */
        const double lv = ceil(0.5 * log2(ratio / 0.8)); /* in double: the ratio may be huge */
        const int up = !(lv >= 1.0) ? 1 : lv > BR_SUB_LEVELS ? BR_SUB_LEVELS : (int)lv;
        br_ckpt_mem(c, 0);
        if (br_data_checkpoint(m, d, c)) {
            snprintf(err, errlen, "t = %.9g s: %s", d->t, c->err);
            return -1;
        }
        d->sub.rejected++;
        d->level = k + up > BR_SUB_LEVELS ? BR_SUB_LEVELS : k + up;
    }
}

/* data after an accepted substep -> 1 if the next may be twice as long: the last BR_SUB_CALM
 * substeps had error ratios of at most 1/4 (a doubling keeps them near 1). Not sooner: every change
 * of the step moves the free bodies' scheme to another modified energy (a first-order shift where
 * a contact spring is loaded and moving), so a bounce is best taken at one level from entry to exit */
static int coarsen_ok(const br_data *d) { return d->level > 0 && d->calm >= BR_SUB_CALM; }
/* (an unresolved substep sets calm to BR_SUB_CALM: its error did not fall with the step) */

int br_data_adapts(const br_model *m, const br_data *d) { return m->adaptive && d->nrbset > 0; }

int br_step_begin(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen)
{
    if (!br_data_adapts(m, d)) return br_step_forces(m, d, energy, wall_field, err, errlen);
    d->sub_wall0 = wall_now();
    d->sub_rej0 = d->sub.rejected;
    if (coarsen_ok(d)) d->level--, d->calm = 0; /* the output step's start lies on every level's grid */
    d->sub_pos = 0;
    return substep_forces(m, d, energy, wall_field, err, errlen);
}

int br_step_end(const br_model *m, br_data *d, double *wall_field, char *err, size_t errlen)
{
    if (!br_data_adapts(m, d)) {
        br_integrate(m, d, m->dt);
        return 0;
    }
    const long full = 1L << BR_SUB_LEVELS;
    const double t0 = d->t;
    long nsub = 0;
    for (;;) {
        if (d->h < d->sub.h_min) d->sub.h_min = d->h, d->sub.t_min = d->t;
        integrate_state(m, d, d->h);
        nsub++;
        d->sub_pos += 1L << (BR_SUB_LEVELS - d->level);
        if (d->sub_pos >= full) break;
        d->t = t0 + m->dt * ((double)d->sub_pos / (double)full);
        /* coarser after a small error, where the position lies on the coarser grid */
        if (coarsen_ok(d) && (d->sub_pos & ((1L << (BR_SUB_LEVELS - d->level + 1)) - 1)) == 0) d->level--, d->calm = 0;
        if (substep_forces(m, d, 0, wall_field, err, errlen)) return -1;
    }
    d->step++;
    d->t = d->step * m->dt;
    if (nsub > 1) d->sub.split++, d->sub.taken += nsub;
    if (nsub > 1 || d->sub.rejected > d->sub_rej0) d->sub.wall += wall_now() - d->sub_wall0;
    return 0;
}

int br_step(const br_model *m, br_data *d, char *err, size_t errlen)
{
    if (br_step_forces(m, d, 1, NULL, err, errlen)) return -1;
    br_integrate(m, d, m->dt);
    return 0;
}
