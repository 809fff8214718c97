/* beam_batch.c: the CPU driver of a batch of beam models (beam_batch.h). */
#include "beam_batch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/beam_step.h"
#include "field.h"
#include "ga_batch.h"
#ifdef BRISTLE_HAVE_CUDA
#include "../kernels/beam_cuda.h"
#include "field_internal.h"
#endif

struct br_beam_batch {
    int nv, n, nr, nset, nframe;
    const br_model **m;              /* the variants' models and data (the caller's; the arrays copied) */
    br_data **d;
    br_bm_model model;               /* variant 0's, shared */
    int *body_node;
    double *body_q0, *body_offset, *body_fg;
    br_bm_load *load;
    br_bm_set *set;
    br_tf_flat *mag;                 /* nv x nload */
    br_ga_batch *ga;
    double *vec;                     /* up vp g gext gext_prev uprev vprev: n x nv each, the variant innermost */
    br_bm_var *var;                  /* nv */
    br_field *field;
    br_frame_state *frames;          /* nv x nframe */
    br_set_result *res;              /* nv x nset */
    double *Nset;
    int *bad;
#ifdef BRISTLE_HAVE_CUDA
    br_cuda_beam *dev;               /* the CUDA backend: every variant's state on the device */
    br_beam_host *host;
    int *codes;
#endif
};

static int flat_fn(const br_timefn *fn, br_tf_flat *out)
{
    memset(out, 0, sizeof *out);
    if (fn->kind != BR_TF_CONSTANT && fn->kind != BR_TF_RAMP && fn->kind != BR_TF_HARMONIC && fn->kind != BR_TF_SWEEP)
        return -1;
    out->kind = fn->kind, out->c = fn->c, out->t0 = fn->t0, out->t1 = fn->t1, out->y0 = fn->y0, out->y1 = fn->y1;
    out->f = fn->f, out->phase = fn->phase, out->f0 = fn->f0, out->f1 = fn->f1, out->log_sweep = fn->log_sweep;
    out->amp_kind = BR_TFF_NONE;
    if ((fn->kind == BR_TF_HARMONIC || fn->kind == BR_TF_SWEEP) && fn->amp) {
        const br_timefn *a = fn->amp;
        if (a->kind != BR_TF_CONSTANT && a->kind != BR_TF_RAMP) return -1;
        out->amp_kind = a->kind, out->ac = a->c, out->at0 = a->t0, out->at1 = a->t1, out->ay0 = a->y0, out->ay1 = a->y1;
    }
    return 0;
}

int br_beam_batch_fits(const br_model *m, const br_data *d, char *why, size_t whylen)
{
#define NO(...) return snprintf(why, whylen, __VA_ARGS__), 0
    if (!d->ga || !d->st) NO("it has no beams");
    if (m->nkframe || m->nspring || m->nrot || m->drive.nshaft) NO("it has kinematic frames, springs, rotational elements or a drivetrain");
    if (m->coupling != BR_COUPLING_IMPLICIT) NO("its contacts are coupled explicitly");
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].beam < 0) NO("body '%s' is not on a beam", m->body[b].name);
    for (int s = 0; s < m->nset; s++) {
        const br_contact_set_desc *cs = &m->cset[s].desc;
        if (m->cset[s].prescribed) NO("contact set '%s' has a prescribed normal force", m->cset[s].name);
        if (d->set_imp[s] != s || d->set_rb[s] || (cs->frame_a == 0 && cs->frame_b == 0))
            NO("contact set '%s' does not act on the structure", m->cset[s].name);
    }
    if (d->ga->nr != 6 * m->nset) NO("its contact rows are not six a set");
    if (m->nset > 64) NO("it has more than 64 contact sets");
    for (int l = 0; l < m->nload; l++) {
        br_tf_flat f;
        if (m->load[l].frame < 1 || m->load[l].frame > m->nbody) NO("load '%s' is not on a body", m->load[l].name);
        if (flat_fn(&m->load[l].mag, &f)) NO("load '%s' has a table, integral or sum magnitude", m->load[l].name);
    }
    return 1;
#undef NO
}

void br_beam_batch_destroy(br_beam_batch *B)
{
    if (!B) return;
#ifdef BRISTLE_HAVE_CUDA
    br_cuda_beam_destroy(B->dev);
    free(B->host), free(B->codes);
#endif
    br_ga_batch_destroy(B->ga);
    br_field_destroy(B->field);
    free(B->body_node), free(B->body_q0), free(B->body_offset), free(B->body_fg), free(B->load), free(B->set);
    free(B->mag), free(B->vec), free(B->var), free(B->frames), free(B->res), free(B->Nset), free(B->bad);
    free(B->m), free(B->d);
    free(B);
}

static br_beam_batch *fail(br_beam_batch *B, char *err, size_t errlen, const char *fmt, int v, const char *what)
{
    snprintf(err, errlen, fmt, v, what);
    br_beam_batch_destroy(B);
    return NULL;
}

br_beam_batch *br_beam_batch_create(const br_model *const *m, br_data *const *d, int nv, br_backend_kind backend,
                                    char *err, size_t errlen)
{
    br_beam_batch *B = calloc(1, sizeof *B);
    if (!B) return snprintf(err, errlen, "out of memory"), NULL;
    char why[300];
    for (int v = 0; v < nv; v++)
        if (!br_beam_batch_fits(m[v], d[v], why, sizeof why)) return fail(B, err, errlen, "variant %d cannot join a beam batch: %s", v, why);
    const br_model *m0 = m[0];
    const br_struct *st = d[0]->st;
    B->m = malloc((size_t)nv * sizeof *B->m), B->d = malloc((size_t)nv * sizeof *B->d);
    if (!B->m || !B->d) return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int v = 0; v < nv; v++) B->m[v] = m[v], B->d[v] = d[v];
    B->nv = nv, B->n = d[0]->ga->n, B->nr = d[0]->ga->nr, B->nset = m0->nset;
    B->nframe = br_model_nframe(m0);
    const int nb = m0->nbody, nl = m0->nload, ns = m0->nset;
    for (int v = 1; v < nv; v++) { /* the same structure, bodies, loads and sets but for their numbers */
        const br_model *mv = m[v];
        const br_struct *sv = d[v]->st;
        int same = mv->nbody == nb && mv->nload == nl && mv->nset == ns && sv->nnode == st->nnode && sv->ndof == st->ndof &&
                   !memcmp(sv->dof, st->dof, (size_t)6 * st->nnode * sizeof(int)) &&
                   !memcmp(sv->X, st->X, (size_t)3 * st->nnode * sizeof(double)) && d[v]->tau_s == d[0]->tau_s &&
                   mv->dt == m0->dt && !memcmp(mv->gravity, m0->gravity, sizeof m0->gravity);
        for (int b = 0; same && b < nb; b++)
            same = mv->body[b].beam == m0->body[b].beam && mv->body[b].node == m0->body[b].node &&
                   mv->body[b].mass * mv->gravity[0] == m0->body[b].mass * m0->gravity[0] &&
                   mv->body[b].mass * mv->gravity[1] == m0->body[b].mass * m0->gravity[1] &&
                   mv->body[b].mass * mv->gravity[2] == m0->body[b].mass * m0->gravity[2] &&
                   !memcmp(mv->body[b].q0, m0->body[b].q0, sizeof(double[4])) &&
                   !memcmp(mv->body[b].offset, m0->body[b].offset, sizeof(double[3]));
        for (int l = 0; same && l < nl; l++)
            same = mv->load[l].frame == m0->load[l].frame && mv->load[l].type == m0->load[l].type &&
                   mv->load[l].body_axes == m0->load[l].body_axes &&
                   !memcmp(mv->load[l].dir, m0->load[l].dir, sizeof(double[3])) &&
                   !memcmp(mv->load[l].point, m0->load[l].point, sizeof(double[3]));
        for (int s = 0; same && s < ns; s++) {
            const br_contact_set_desc *a = &mv->cset[s].desc, *c = &m0->cset[s].desc;
            same = a->frame_a == c->frame_a && a->frame_b == c->frame_b && a->surface == c->surface &&
                   !memcmp(a->plane_p, c->plane_p, sizeof(double[3])) && !memcmp(a->plane_n, c->plane_n, sizeof(double[3])) &&
                   a->radius == c->radius;
        }
        if (!same) return fail(B, err, errlen, "variant %d cannot join a beam batch: %s", v,
                               "its structure, bodies, loads or contact geometry differ from variant 0's");
    }
    /* the shared model */
    B->body_node = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    B->body_q0 = malloc((size_t)(nb ? nb : 1) * 4 * sizeof(double));
    B->body_offset = malloc((size_t)(nb ? nb : 1) * 3 * sizeof(double));
    B->body_fg = malloc((size_t)(nb ? nb : 1) * 3 * sizeof(double));
    B->load = calloc((size_t)(nl ? nl : 1), sizeof *B->load);
    B->set = calloc((size_t)(ns ? ns : 1), sizeof *B->set);
    B->mag = calloc((size_t)(nl ? nl : 1) * nv, sizeof *B->mag);
    if (!B->body_node || !B->body_q0 || !B->body_offset || !B->body_fg || !B->load || !B->set || !B->mag)
        return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int b = 0; b < nb; b++) {
        const br_body *Bd = &m0->body[b];
        B->body_node[b] = st->node0[Bd->beam] + Bd->node;
        memcpy(B->body_q0 + 4 * b, Bd->q0, sizeof(double[4]));
        memcpy(B->body_offset + 3 * b, Bd->offset, sizeof(double[3]));
        for (int j = 0; j < 3; j++) B->body_fg[3 * b + j] = Bd->mass * m0->gravity[j];
    }
    for (int l = 0; l < nl; l++) {
        const br_load *L = &m0->load[l];
        B->load[l] = (br_bm_load){.body = L->frame - 1, .torque = L->type == BR_LOAD_TORQUE, .body_axes = L->body_axes};
        memcpy(B->load[l].point, L->point, sizeof L->point);
        memcpy(B->load[l].dir, L->dir, sizeof L->dir);
        for (int v = 0; v < nv; v++) flat_fn(&m[v]->load[l].mag, &B->mag[(size_t)v * nl + l]);
    }
    for (int s = 0; s < ns; s++) {
        const br_contact_set_desc *cs = &m0->cset[s].desc;
        B->set[s] = (br_bm_set){.frame_a = cs->frame_a, .frame_b = cs->frame_b, .surface = cs->surface, .radius = cs->radius};
        memcpy(B->set[s].plane_p, cs->plane_p, sizeof cs->plane_p);
        memcpy(B->set[s].plane_n, cs->plane_n, sizeof cs->plane_n);
    }
    B->model = (br_bm_model){.nnode = st->nnode, .nbody = nb, .nload = nl, .nset = ns, .dof = st->dof, .X = st->X,
                             .body_node = B->body_node, .body_q0 = B->body_q0, .body_offset = B->body_offset,
                             .body_fg = B->body_fg, .load = B->load, .set = B->set, .h = m0->dt, .tau_s = d[0]->tau_s};
    /* the structure's state: a br_ga_batch (CPU) */
    br_genalpha **g = malloc((size_t)nv * sizeof *g);
    if (!g) return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int v = 0; v < nv; v++) g[v] = d[v]->ga;
    B->ga = br_ga_batch_create(g, nv, backend == BR_BACKEND_CUDA ? BR_BACKEND_CUDA : BR_BACKEND_CPU, err, errlen);
    free(g);
    if (!B->ga) return br_beam_batch_destroy(B), NULL;
    /* the other structure vectors, the variant innermost, and the field over every variant's sets */
    const size_t vn = (size_t)B->n * nv;
    B->vec = calloc(7 * vn + 1, sizeof(double));
    B->var = calloc((size_t)nv, sizeof *B->var);
    B->frames = calloc((size_t)B->nframe * nv, sizeof *B->frames);
    B->res = calloc((size_t)(ns ? ns : 1) * nv, sizeof *B->res);
    B->Nset = malloc((size_t)(ns ? ns : 1) * nv * sizeof(double));
    B->bad = calloc((size_t)(ns ? ns : 1) * nv, sizeof(int));
    br_contact_set_desc *desc = malloc((size_t)(ns ? ns : 1) * nv * sizeof *desc);
    if (!B->vec || !B->var || !B->frames || !B->res || !B->Nset || !B->bad || !desc) {
        free(desc);
        return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    }
    for (int v = 0; v < nv; v++)
        for (int s = 0; s < ns; s++) {
            br_contact_set_desc *q = &desc[(size_t)v * ns + s];
            *q = d[v]->desc[s];
            q->frame_a += v * B->nframe, q->frame_b += v * B->nframe;
            B->Nset[(size_t)v * ns + s] = -1.0;
        }
    B->field = ns ? br_field_create(desc, ns * nv, backend, err, errlen) : NULL;
    free(desc);
    if (ns && !B->field) return br_beam_batch_destroy(B), NULL;
    br_ga_arrays *A = br_ga_batch_arrays(B->ga);
    for (int v = 0; v < nv; v++) {
        br_data *dv = d[v];
        br_bm_var *x = &B->var[v];
        br_ga_arrays_var(A, v, &x->ga);
        double *p = B->vec + v;
        double **vecs[] = {&x->up, &x->vp, &x->g, &x->gext, &x->gext_prev, &x->uprev, &x->vprev};
        const double *from[] = {dv->up, dv->vp, dv->g, dv->gext, dv->gext_prev, dv->uprev, dv->vprev};
        for (int k = 0; k < 7; k++) {
            *vecs[k] = p + (size_t)k * vn;
            for (int i = 0; i < B->n; i++) (*vecs[k])[(size_t)i * nv] = from[k][i];
        }
        x->s = nv;
        x->xnode = dv->xnode;
        x->frames = B->frames + (size_t)v * B->nframe;
        memcpy(x->frames, dv->frames, (size_t)B->nframe * sizeof *x->frames);
        x->bx = dv->x, x->bv = dv->v, x->bw = dv->w;
        x->load_val = dv->load_val;
        x->mag = B->mag + (size_t)v * nl;
        x->E_upto = dv->E_upto, x->End_upto = dv->End_upto, x->setP = dv->setP, x->setPnd = dv->setPnd;
        x->setE = dv->setE, x->setEnd = dv->setEnd;
        x->imp_E = dv->imp_E, x->imp_du = dv->imp_du, x->imp_dv = dv->imp_dv, x->imp_dm = dv->imp_dm;
        x->en = &dv->en, x->res_ref = &dv->res_ref, x->p_drive = &dv->p_drive;
        x->t = dv->t, x->step = dv->step;
        memcpy(B->res + (size_t)v * ns, dv->res, (size_t)ns * sizeof *B->res);
    }
    if (backend != BR_BACKEND_CUDA) return B;
#ifdef BRISTLE_HAVE_CUDA
    B->host = calloc((size_t)nv, sizeof *B->host), B->codes = calloc((size_t)nv, sizeof(int));
    if (!B->host || !B->codes) return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int v = 0; v < nv; v++) B->host[v] = (br_beam_host){.var = &B->var[v], .res = B->res + (size_t)v * ns};
    const br_beam_sizes z = {.n = B->n, .nnode = st->nnode, .nbody = nb, .nload = nl, .nset = ns, .nframe = B->nframe};
    struct br_cuda_field *cf = B->field ? br_field_cuda_of(B->field) : NULL;
    if (!cf || !br_ga_batch_cuda(B->ga)) return fail(B, err, errlen, "variant %d: %s", 0, "the CUDA beam batch needs its field and structure on the GPU");
    B->dev = br_cuda_beam_create(&B->model, &z, nv, br_ga_batch_cuda(B->ga), cf, B->host, B->vec, err, errlen);
    if (!B->dev) return br_beam_batch_destroy(B), NULL;
    return B;
#else
    return fail(B, err, errlen, "variant %d: %s", 0, "this build has no CUDA backend");
#endif
}

/* a set's result -> the view the stages read */
static br_bm_res res_view(const br_set_result *r)
{
    return (br_bm_res){.F_A = r->F_A, .M_A = r->M_A, .F_B = r->F_B, .M_B = r->M_B, .Ff_A = r->Ff_A, .Mf_A = r->Mf_A,
                       .N = r->N, .P = r->P, .E_el = r->E_el, .E_b = r->E_b, .P_nd = r->P_nd, .tan = &r->tan};
}

/* model, time, br_bm_check's or the step's code -> the message (as br_check_finite words it) */
static void failure(const br_model *m, double t, int code, char *err, size_t errlen)
{
    const int what = code / 256, k = code % 256;
    switch (what) {
    case BR_BM_SINGULAR: snprintf(err, errlen, "t = %.9g s: the linearized structure system is singular", t); break;
    case BR_BM_TANGENT: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite wrench tangent", t, m->cset[k].name); break;
    case BR_BM_ACCEL: snprintf(err, errlen, "t = %.9g s: the structure's step gave a non-finite acceleration", t); break;
    case BR_BM_BODY: snprintf(err, errlen, "t = %.9g s: body '%s' has a non-finite position or velocity", t, m->body[k].name); break;
    case BR_BM_FORCE: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite contact force", t, m->cset[k].name); break;
    case BR_BM_FENERGY: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite friction energy", t, m->cset[k].name); break;
    case BR_BM_ENERGY: snprintf(err, errlen, "t = %.9g s: an energy term is not finite", t); break;
    default: snprintf(err, errlen, "t = %.9g s: contact set '%s': non-finite contact sums", t, m->cset[k].name); break;
    }
}

void br_beam_batch_forces(br_beam_batch *B, const int *energy, int *failed, char *err, size_t errstride)
{
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev) { /* every variant on the device; their codes back each step (the one synchronization) */
        char derr[600] = "";
        if (!br_cuda_beam_forces(B->dev, energy, derr, sizeof derr) && !br_cuda_beam_failed(B->dev, B->codes, derr, sizeof derr)) {
            for (int v = 0; v < B->nv; v++)
                if (B->codes[v] && !failed[v]) {
                    failure(B->m[v], B->var[v].t, B->codes[v], err + (size_t)v * errstride, errstride);
                    failed[v] = 1;
                }
            return;
        }
        for (int v = 0; v < B->nv; v++) /* a device error stops every variant */
            if (!failed[v]) snprintf(err + (size_t)v * errstride, errstride, "%s", derr), failed[v] = 1;
        return;
    }
#endif
    const br_ga_shape *sh = br_ga_batch_shape(B->ga);
#pragma omp parallel for schedule(static)
    for (int v = 0; v < B->nv; v++)
        if (!failed[v]) br_bm_frames(&B->model, sh, &B->var[v]);
    char ferr[600];
    if (B->field && br_field_step_sets(B->field, B->frames, B->Nset, B->model.h, B->res, B->bad, ferr, sizeof ferr))
        for (int v = 0; v < B->nv; v++)
            for (int s = 0; s < B->nset && !failed[v]; s++)
                if (B->bad[(size_t)v * B->nset + s]) {
                    char what[400];
                    br_field_describe(B->field, v * B->nset + s, what, sizeof what);
                    snprintf(err + (size_t)v * errstride, errstride, "t = %.9g s: %s", B->var[v].t, what);
                    failed[v] = 1;
                }
#pragma omp parallel for schedule(static)
    for (int v = 0; v < B->nv; v++) {
        if (failed[v]) continue;
        br_bm_var *x = &B->var[v];
        br_bm_res r[64];
        const br_set_result *res = B->res + (size_t)v * B->nset;
        for (int s = 0; s < B->nset && s < 64; s++) r[s] = res_view(&res[s]);
        br_bm_loads(&B->model, sh, x, r, energy[v]);
        int code = br_bm_accel(&B->model, sh, x, r) ? BR_BM_SINGULAR * 256 : BR_BM_OK;
        if (!code) code = br_bm_check(&B->model, sh, x, r, energy[v]);
        if (code) {
            failure(B->m[v], x->t, code, err + (size_t)v * errstride, errstride);
            failed[v] = 1;
        }
    }
}

void br_beam_batch_integrate(br_beam_batch *B, const int *skip)
{
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev) {
        char derr[600];
        if (br_cuda_beam_integrate(B->dev, derr, sizeof derr)) fprintf(stderr, "bristle: beam batch: %s\n", derr);
        for (int v = 0; v < B->nv; v++) /* the host's copy of the clock */
            if (!skip[v]) B->var[v].step++, B->var[v].t = B->var[v].step * B->model.h;
        return;
    }
#endif
    const br_ga_shape *sh = br_ga_batch_shape(B->ga);
#pragma omp parallel for schedule(static)
    for (int v = 0; v < B->nv; v++)
        if (!skip[v]) br_bm_integrate(&B->model, sh, &B->var[v]);
}

/* variant -> the parts of its state at t_n the batch keeps outside its br_data, copied there */
static void sampled_state(br_beam_batch *B, int v)
{
    br_data *d = B->d[v];
    const br_bm_var *x = &B->var[v];
    memcpy(d->frames, x->frames, (size_t)B->nframe * sizeof *d->frames);
    memcpy(d->fframes, x->frames, (size_t)B->nframe * sizeof *d->fframes);
    memcpy(d->res, B->res + (size_t)v * B->nset, (size_t)B->nset * sizeof *d->res);
    d->t = x->t, d->step = x->step;
}

int br_beam_batch_sample(br_beam_batch *B, const int *which, char *err, size_t errlen)
{
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev) {
        double *t = malloc((size_t)B->nv * sizeof(double));
        long *step = malloc((size_t)B->nv * sizeof(long));
        if (!t || !step) return free(t), free(step), snprintf(err, errlen, "out of memory"), -1;
        const int rc = br_cuda_beam_sample(B->dev, B->host, which, t, step, err, errlen);
        for (int v = 0; !rc && v < B->nv; v++)
            if (which[v]) B->var[v].t = t[v], B->var[v].step = step[v];
        free(t), free(step);
        if (rc) return -1;
    }
#else
    (void)err, (void)errlen;
#endif
    for (int v = 0; v < B->nv; v++)
        if (which[v]) sampled_state(B, v);
    return 0;
}

void br_beam_batch_step(br_beam_batch *B, const int *energy, int *failed, char *err, size_t errstride)
{
    br_beam_batch_forces(B, energy, failed, err, errstride);
    br_beam_batch_integrate(B, failed);
}

void br_beam_batch_export(br_beam_batch *B, int v)
{
    br_data *d = B->d[v];
    br_bm_var *x = &B->var[v];
    char err[200];
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev && br_cuda_beam_download(B->dev, v, B->host, &x->t, &x->step, err, sizeof err))
        fprintf(stderr, "bristle: beam batch: %s\n", err);
#endif
    br_ga_batch_state(B->ga, v, d->ga->u, d->ga->v, d->ga->a, err, sizeof err);
    double *to[] = {d->up, d->vp, d->g, d->gext, d->gext_prev, d->uprev, d->vprev};
    const double *from[] = {x->up, x->vp, x->g, x->gext, x->gext_prev, x->uprev, x->vprev};
    for (int k = 0; k < 7; k++)
        for (int i = 0; i < B->n; i++) to[k][i] = from[k][(size_t)i * x->s];
    if (!br_ga_batch_cuda(B->ga))
        for (int i = 0; i < B->n; i++) d->ga->a1[i] = x->ga.a1[(size_t)i * x->ga.s];
    sampled_state(B, v);
    for (int s = 0; s < B->nset; s++) d->Nset[s] = -1.0;
}

const br_field *br_beam_batch_field(const br_beam_batch *B) { return B->field; }
