/* beam_batch.c: batches of variants of a beam model (beam_batch.h): their state in a store
 * (kernels/beam_store.h) on the host, stepped there over OpenMP threads or mirrored on a GPU
 * (kernels/beam_cuda.cu); the store filled from and written back to the variants' br_data. */
#include "step/beam_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>
#include <omp.h>

#include "kernels/beam_store.h"
#include "field/field.h"
#include "step/ga_batch.h"
#include "step/stages.h"
#include "base/outdir.h" /* br_wall_seconds */
#ifdef BRISTLE_HAVE_CUDA
#include "kernels/beam_cuda.h"
#include "field/field_internal.h"
#endif

/* variants below which a stage runs on the calling thread: a variant's stage is a few us, a
 * parallel region's start and barrier as much (a 6-variant study ran 6 times slower on 2 threads) */
#define BR_BEAM_OMP_MIN 64

_Static_assert(BR_BEAM_BLOCK == BR_GA_LANES, "beam_batch.h's block is the lanes' count");

struct br_beam_batch {
    int nv, n, nset, nframe;
    const br_model **m;              /* the variants' models and data (the caller's; the arrays copied) */
    br_data **d;
    br_step_model model;             /* variant 0's flat model (its data's, host/step/view.c), shared */
    br_ga_batch *ga;                 /* the structure's state */
    br_beam_sizes z;
    br_beam_store D;                 /* the rest of the variants' state (host arrays) */
    br_field *field;
    double *Nset;
    int *bad;
    double *W, *Q;                   /* br_beam_batch_integrate_by_rows: its scratch (n x nv each), or NULL */
    long lean;                       /* br_beam_batch_sample_parts: a record's doubles a sample brings back, 0: all */
    int lanes;                       /* the CPU: variants step BR_GA_LANES at a time in vector lanes
                                      * (no matrix shared), else one by one */
    int header_lu;                   /* the Woodbury systems by kernels/ga_step.h's LU (a device; on the
                                      * CPU where variant 0's integrator has own_lu), else LAPACK's dgesv
                                      * as a run solves them */
    double *lu;                      /* dgesv's copies: nr x nr + nr a variant */
    lapack_int *ipiv;                /* and its pivots, nr a variant */
    int timing;                      /* BRISTLE_BEAM_TIMING set: the phases' wall times in secs */
    double secs[BR_BEAM_NPHASE];
#ifdef BRISTLE_HAVE_CUDA
    br_cuda_beam *dev;               /* the CUDA backend: the store mirrored on the device */
#endif
};

static const char *const PHASE[BR_BEAM_NPHASE] = {"frames",      "field",       "field_finish", "forces_pre",
                                                  "solve",       "forces_post", "codes",        "integrate",
                                                  "sample_copy", "setup_checks", "setup_ga",   "setup_store",
                                                  "setup_field", "setup_device"};

/* timing on: the wall time since *t0 added to B->secs[k], *t0 now */
static void lap(br_beam_batch *B, int k, double *t0)
{
    if (!B->timing) return;
    const double t = br_wall_seconds();
    if (*t0 > 0) B->secs[k] += t - *t0;
    *t0 = t;
}

/* time function -> its flat form (kernels/timefn_flat.h); 0, or -1 for a kind the batches do not
 * evaluate (tables, integrals, sums, amplitudes other than constants and ramps) */
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
        if (m->body[b].part < 0) NO("body '%s' is not on a beam", m->body[b].name);
    for (int s = 0; s < m->nset; s++) {
        const br_contact_set_desc *cs = &m->cset[s].desc;
        if (m->cset[s].prescribed) NO("contact set '%s' has a prescribed normal force", m->cset[s].name);
        if (cs->iface) NO("contact set '%s' is a deforming interface", m->cset[s].name);
        if (d->set_imp[s] != s || d->set_rb[s] || (cs->frame_a == 0 && cs->frame_b == 0))
            NO("contact set '%s' does not act on the structure", m->cset[s].name);
    }
    if (d->ga->nr != 6 * m->nset) NO("its contact rows are not six a set");
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
#endif
    br_ga_batch_destroy(B->ga);
    br_field_destroy(B->field);
    free(B->D.rec), free(B->D.vec), free(B->D.frames), free(B->D.mag), free(B->D.res), free(B->D.step), free(B->D.code);
    free(B->D.energy), free(B->D.Et), free(B->Nset), free(B->bad), free(B->W), free(B->Q), free(B->lu), free(B->ipiv);
    free(B->m), free(B->d);
    free(B);
}

static br_beam_batch *fail(br_beam_batch *B, char *err, size_t errlen, const char *fmt, int v, const char *what)
{
    snprintf(err, errlen, fmt, v, what);
    br_beam_batch_destroy(B);
    return NULL;
}

/* variant v's state between its br_data and the store (to: 1 br_data -> store, 0 store -> br_data):
 * the record (nodes, body states, load values, per-set integrals, contact coupling, energies, time),
 * its frames and set results, its step */
static void record_io(br_beam_batch *B, int v, int to, long lean)
{
    br_beam_store *D = &B->D;
    br_data *d = B->d[v];
    const br_beam_rec *o = &D->o;
    const br_beam_sizes *z = &B->z;
    double *r = D->rec + (size_t)v * o->size;
    struct part {
        long off;
        double *p;
        long n;
    } parts[] = {{o->xnode, d->xnode, 3L * z->nnode},   {o->bx, d->x, 3L * z->nbody},
                 {o->bv, d->v, 3L * z->nbody},          {o->bw, d->w, 3L * z->nbody},
                 {o->load_val, d->load_val, z->nload},  {o->E_upto, d->E_upto, z->nset},
                 {o->End_upto, d->End_upto, z->nset},   {o->setP, d->setP, z->nset},
                 {o->setPnd, d->setPnd, z->nset},       {o->setE, d->setE, z->nset},
                 {o->setEnd, d->setEnd, z->nset},       {o->imp_E, d->imp_E, 36L * z->nset},
                 {o->imp_du, d->imp_du, 6L * z->nset},  {o->imp_dv, d->imp_dv, 6L * z->nset},
                 {o->imp_dm, d->imp_dm, 6L * z->nset},  {o->en, (double *)&d->en, (long)(sizeof d->en / sizeof(double))},
                 {o->res_ref, &d->res_ref, 1},          {o->p_drive, &d->p_drive, 1},
                 {o->t, &d->t, 1}};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        if (lean && parts[k].off >= lean) continue; /* a lean sample: its prefix (br_beam_rec_lean) */
        if (to) memcpy(r + parts[k].off, parts[k].p, (size_t)parts[k].n * sizeof(double));
        else memcpy(parts[k].p, r + parts[k].off, (size_t)parts[k].n * sizeof(double));
    }
    if (lean) return;
    br_frame_state *fr = D->frames + (size_t)v * B->nframe;
    br_set_result *res = D->res + (size_t)v * B->nset;
    if (to) {
        memcpy(fr, d->frames, (size_t)B->nframe * sizeof *fr);
        memcpy(res, d->res, (size_t)B->nset * sizeof *res);
        D->step[v] = d->step;
        const size_t vn = (size_t)B->n * B->nv;
        const double *from[] = {d->up, d->vp, d->g, d->gext, d->gext_prev, d->uprev, d->vprev};
        for (int k = 0; k < 7; k++)
            for (int i = 0; i < B->n; i++) D->vec[k * vn + (size_t)i * B->nv + v] = from[k][i];
    } else {
        memcpy(d->frames, fr, (size_t)B->nframe * sizeof *fr);
        memcpy(d->fframes, fr, (size_t)B->nframe * sizeof *fr);
        memcpy(d->res, res, (size_t)B->nset * sizeof *res);
        d->step = D->step[v];
    }
}

br_beam_batch *br_beam_batch_create(const br_model *const *m, br_data *const *d, int nv, br_backend_kind backend,
                                    char *err, size_t errlen)
{
    br_beam_batch *B = calloc(1, sizeof *B);
    if (!B) return snprintf(err, errlen, "out of memory"), NULL;
    B->timing = getenv("BRISTLE_BEAM_TIMING") != NULL;
    double t0 = 0.0;
    lap(B, 0, &t0);
    char why[300];
    for (int v = 0; v < nv; v++)
        if (!br_beam_batch_fits(m[v], d[v], why, sizeof why)) return fail(B, err, errlen, "variant %d cannot join a beam batch: %s", v, why);
    const br_model *m0 = m[0];
    const br_struct *st = d[0]->st;
    B->m = malloc((size_t)nv * sizeof *B->m), B->d = malloc((size_t)nv * sizeof *B->d);
    if (!B->m || !B->d) return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int v = 0; v < nv; v++) B->m[v] = m[v], B->d[v] = d[v];
    B->nv = nv, B->n = d[0]->ga->n, B->nset = m0->nset;
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
            same = mv->body[b].part == m0->body[b].part && mv->body[b].node == m0->body[b].node &&
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
    /* the shared model: variant 0's, compiled with its data (the others differ only in what the
     * check above allows); each variant's load magnitudes in flat form */
    B->D.mag = calloc((size_t)(nl ? nl : 1) * nv, sizeof *B->D.mag);
    if (!B->D.mag) return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int l = 0; l < nl; l++)
        for (int v = 0; v < nv; v++) flat_fn(&m[v]->load[l].mag, &B->D.mag[(size_t)v * nl + l]);
    B->model = d[0]->sm;
    lap(B, BR_PH_SETUP_CHECKS, &t0);
    /* the structure's state: a br_ga_batch (CPU) */
    br_genalpha **g = malloc((size_t)nv * sizeof *g);
    if (!g) return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    for (int v = 0; v < nv; v++) g[v] = d[v]->ga;
    B->ga = br_ga_batch_create_opt(g, nv, backend == BR_BACKEND_CUDA ? BR_BACKEND_CUDA : BR_BACKEND_CPU,
                                   backend == BR_BACKEND_CUDA, err, errlen);
    free(g);
    if (!B->ga) return br_beam_batch_destroy(B), NULL;
    lap(B, BR_PH_SETUP_GA, &t0);
    /* the store: the other structure vectors (the variant innermost), records, frames and results */
    const size_t vn = (size_t)B->n * nv;
    B->z = (br_beam_sizes){.n = B->n, .nnode = st->nnode, .nbody = nb, .nload = nl, .nset = ns, .nframe = B->nframe};
    br_beam_store *D = &B->D;
    D->nv = nv, D->n = B->n, D->nset = ns, D->nload = nl, D->nframe = B->nframe, D->h = m0->dt, D->tau_s = d[0]->tau_s;
    D->o = br_beam_rec_make(&B->z);
    D->rec = calloc((size_t)D->o.size * nv, sizeof(double));
    D->vec = calloc(7 * vn + 1, sizeof(double));
    D->frames = calloc((size_t)B->nframe * nv, sizeof *D->frames);
    D->res = calloc((size_t)(ns ? ns : 1) * nv, sizeof *D->res);
    D->step = calloc((size_t)nv, sizeof(long));
    D->code = calloc((size_t)nv, sizeof(int)), D->energy = calloc((size_t)nv, sizeof(int));
    B->Nset = malloc((size_t)(ns ? ns : 1) * nv * sizeof(double));
    B->bad = calloc((size_t)(ns ? ns : 1) * nv, sizeof(int));
    br_contact_set_desc *desc = malloc((size_t)(ns ? ns : 1) * nv * sizeof *desc);
    if (!D->rec || !D->vec || !D->frames || !D->res || !D->step || !D->code || !D->energy || !B->Nset || !B->bad || !desc) {
        free(desc);
        return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
    }
    for (int v = 0; v < nv; v++) {
        for (int s = 0; s < ns; s++) {
            br_contact_set_desc *q = &desc[(size_t)v * ns + s];
            *q = d[v]->desc[s];
            q->frame_a += v * B->nframe, q->frame_b += v * B->nframe;
            B->Nset[(size_t)v * ns + s] = -1.0;
        }
        record_io(B, v, 1, 0);
    }
    lap(B, BR_PH_SETUP_STORE, &t0);
    B->header_lu = backend == BR_BACKEND_CUDA || d[0]->ga->own_lu;
    if (backend != BR_BACKEND_CUDA) { /* the E blocks variant-innermost; lanes where every matrix is a variant's own */
        const br_ga_arrays *A = br_ga_batch_arrays(B->ga);
        const size_t nr = (size_t)d[0]->ga->nr;
        B->lanes = nv >= BR_GA_LANES && !getenv("BRISTLE_NO_LANES");
        for (int k = 0; k < BR_GA_NMAT; k++) B->lanes &= !A->shared[k];
        D->Et = calloc(6 * nr * nv + 1, sizeof(double));
        B->lu = B->header_lu ? NULL : malloc(((nr + 1) * nr * nv + 1) * sizeof(double));
        B->ipiv = B->header_lu ? NULL : malloc((nr * nv + 1) * sizeof(lapack_int));
        if (!D->Et || (!B->header_lu && (!B->lu || !B->ipiv))) {
            free(desc);
            return fail(B, err, errlen, "out of memory%.0d%s", 0, "");
        }
    }
    B->field = ns ? br_field_create(desc, ns * nv, backend, err, errlen) : NULL;
    free(desc);
    if (ns && !B->field) return br_beam_batch_destroy(B), NULL;
    lap(B, BR_PH_SETUP_FIELD, &t0);
    if (backend != BR_BACKEND_CUDA) return B;
#ifdef BRISTLE_HAVE_CUDA
    struct br_cuda_field *cf = B->field ? br_field_cuda_of(B->field) : NULL;
    if (!cf || !br_ga_batch_cuda(B->ga))
        return fail(B, err, errlen, "variant %d: %s", 0, "the CUDA beam batch needs its field and structure on the GPU");
    B->dev = br_cuda_beam_create(&B->model, &B->z, br_ga_batch_cuda(B->ga), cf, &B->D, err, errlen);
    if (!B->dev) return br_beam_batch_destroy(B), NULL;
    lap(B, BR_PH_SETUP_DEVICE, &t0);
    br_cuda_beam_timing(B->dev, B->timing, B->secs);
    return B;
#else
    return fail(B, err, errlen, "variant %d: %s", 0, "this build has no CUDA backend");
#endif
}

/* model, time, br_step_check's or the step's code -> the message (as a run words it) */
static void failure(const br_model *m, double t, int code, char *err, size_t errlen)
{
    br_step_failure(m, t, code, NULL, err, errlen);
}

static double rec_t(const br_beam_batch *B, int v) { return B->D.rec[(size_t)v * B->D.o.size + B->D.o.t]; }

/* nv variants, block size nl, thread t of T -> thread t's share, from share_begin to share_end: a
 * contiguous range (the variant-innermost arrays' cache lines are not shared between threads but at
 * its ends: dealing blocks in turn ran 2.8 times slower), the variants split evenly with the ends at
 * multiples of nl, the last thread's to nv (65 variants on 2 threads: 32 and 33, where halves of the
 * 9 blocks and units gave 40 and 25) */
static int share_begin(int nv, int nl, int t, int T) { return (int)((long)nv * t / T) / nl * nl; }

static int share_end(int nv, int nl, int t, int T) { return t == T - 1 ? nv : (int)((long)nv * (t + 1) / T) / nl * nl; }

/* a stage over variants [v0, v1) of a batch */
typedef void (*stage_fn)(br_beam_batch *B, int v0, int v1, void *arg);

/* batch, block size nl, stage -> the stage over every variant: on the threads, each a share
 * (share_begin), where the batch has BR_BEAM_OMP_MIN variants and the caller is not on a thread
 * already (a CPU study's batches: each on a thread), else all on the calling thread
 * without entering a region (even a serialized one makes libgomp allocate a team) */
static void over_shares(br_beam_batch *B, int nl, stage_fn fn, void *arg)
{
    if (B->nv < BR_BEAM_OMP_MIN || omp_in_parallel()) {
        fn(B, 0, B->nv, arg);
        return;
    }
#pragma omp parallel
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
        fn(B, share_begin(B->nv, nl, t, T), share_end(B->nv, nl, t, T), arg);
    }
}

/* CPU batch, variants v0 to v0 + nl - 1 after br_beam_store_solve_begin -> their Woodbury systems
 * solved in place (yq), rc[l] nonzero where singular: the header's LU in lanes, or LAPACK's dgesv
 * on each one's copy (what br_genalpha_solve calls: the same bits as the variant's own run) */
static void woodbury_solve(br_beam_batch *B, const br_ga_arrays *A, int v0, int nl, int *rc)
{
    const int nr = B->model.nset ? br_ga_batch_shape(B->ga)->nr : 0;
    const long nv = B->nv;
    for (int l = 0; l < nl; l++) rc[l] = 0;
    if (!nr) return;
    if (B->header_lu) {
        if (nl == BR_GA_LANES) br_ga_lu_solve_l(nr, A->Ar + v0, nv, A->yq + v0, nv, BR_GA_LANES, rc);
        else
            for (int l = 0; l < nl; l++) rc[l] = br_ga_lu_solve(nr, A->Ar + v0 + l, nv, A->yq + v0 + l, nv);
        return;
    }
    for (int l = 0; l < nl; l++) {
        const long v = v0 + l;
        double *M = B->lu + (size_t)v * (nr + 1) * nr, *b = M + (size_t)nr * nr;
        for (long k = 0; k < (long)nr * nr; k++) M[k] = A->Ar[k * nv + v];
        for (int k = 0; k < nr; k++) b[k] = A->yq[(long)k * nv + v];
        lapack_int nn = nr, one = 1, info = 0;
        LAPACK_dgesv(&nn, &one, M, &nn, B->ipiv + (size_t)v * nr, b, &nn, &info);
        rc[l] = info != 0;
        for (int k = 0; k < nr; k++) A->yq[(long)k * nv + v] = b[k];
    }
}

/* variants [w, v1), skip[v] -> the size of the block that starts at w: BR_GA_LANES where the batch
 * steps in lanes and that many remain, else 1; *all: 1 where it is a whole block of lanes none of
 * which is skipped (the block then steps in lanes, else its variants one by one) */
static int lane_block(const br_beam_batch *B, int w, int v1, const int *skip, int *all)
{
    const int nl = B->lanes ? BR_GA_LANES : 1, cnt = w + nl <= v1 ? nl : 1;
    *all = cnt > 1;
    for (int v = w; v < w + cnt && *all; v++) *all = !skip[v];
    return cnt;
}

/* variants [v0, v1), failed[v] -> the frames of those running (kernels/beam_store.h): in lanes
 * where a whole block of BR_GA_LANES runs (as solve_stage), the rest one by one */
static void frames_stage(br_beam_batch *B, int v0, int v1, void *arg)
{
    const int *failed = arg;
    const br_ga_shape *sh = br_ga_batch_shape(B->ga);
    const br_ga_arrays *A = br_ga_batch_arrays(B->ga);
    for (int w = v0, cnt, all; w < v1; w += cnt) {
        cnt = lane_block(B, w, v1, failed, &all);
        if (all) br_beam_store_frames_lanes(&B->model, sh, A, &B->D, w, BR_GA_LANES);
        else
            for (int v = w; v < w + cnt; v++)
                if (!failed[v]) br_beam_store_frames(&B->model, sh, A, &B->D, v, NULL);
    }
}

typedef struct solve_arg {
    int *failed;
    char *err;
    size_t errstride;
} solve_arg;

/* variants [v0, v1) after the field, failed[v] -> the loads, Woodbury solves and checks of those
 * running: blocks of BR_GA_LANES variants in lanes where all of a block run, the rest one by one; a
 * variant that fails flagged with its message */
static void solve_stage(br_beam_batch *B, int v0, int v1, void *arg)
{
    const solve_arg *a = arg;
    int *failed = a->failed;
    br_beam_store *D = &B->D;
    const br_ga_shape *sh = br_ga_batch_shape(B->ga);
    const br_ga_arrays *A = br_ga_batch_arrays(B->ga);
    for (int w = v0, cnt, all; w < v1; w += cnt) {
        int rc[BR_GA_LANES];
        cnt = lane_block(B, w, v1, failed, &all);
        if (all) { /* (the lane count a constant: the lanes' loops compiled for it) */
            br_beam_store_solve_begin(&B->model, sh, A, D, w, BR_GA_LANES);
            woodbury_solve(B, A, w, BR_GA_LANES, rc);
            br_beam_store_solve_end(&B->model, sh, A, D, w, BR_GA_LANES, rc);
        } else
            for (int v = w; v < w + cnt; v++)
                if (!failed[v]) {
                    br_beam_store_solve_begin(&B->model, sh, A, D, v, 1);
                    woodbury_solve(B, A, v, 1, rc);
                    br_beam_store_solve_end(&B->model, sh, A, D, v, 1, rc);
                }
        for (int v = w; v < w + cnt; v++)
            if (!failed[v] && D->code[v]) {
                failure(B->m[v], rec_t(B, v), D->code[v], a->err + (size_t)v * a->errstride, a->errstride);
                failed[v] = 1;
            }
    }
}

/* variants [v0, v1), skip[v] -> those not skipped integrated to t_{n+1}, in lanes where a whole
 * block integrates (as solve_stage) */
static void integrate_stage(br_beam_batch *B, int v0, int v1, void *arg)
{
    const int *skip = arg;
    const br_ga_shape *sh = br_ga_batch_shape(B->ga);
    const br_ga_arrays *A = br_ga_batch_arrays(B->ga);
    for (int w = v0, cnt, all; w < v1; w += cnt) {
        cnt = lane_block(B, w, v1, skip, &all);
        if (all) br_beam_store_integrate_lanes(&B->model, sh, A, &B->D, w);
        else
            for (int v = w; v < w + cnt; v++)
                if (!skip[v]) br_beam_store_integrate(&B->model, sh, A, &B->D, v);
    }
}

/* the integration by rows (the GPU's phases), variants [v0, v1), skip[v]: their rows (W), their
 * columns (Q), their ends */
static void rows_stage(br_beam_batch *B, int v0, int v1, void *arg)
{
    const int *skip = arg;
    for (int v = v0; v < v1; v++)
        for (int i = 0; i < B->n && !skip[v]; i++)
            br_beam_store_integrate_row(br_ga_batch_shape(B->ga), br_ga_batch_arrays(B->ga), &B->D, v, i, B->W);
}

static void cols_stage(br_beam_batch *B, int v0, int v1, void *arg)
{
    const int *skip = arg;
    for (int v = v0; v < v1; v++)
        for (int i = 0; i < B->n && !skip[v]; i++)
            br_beam_store_integrate_col(br_ga_batch_shape(B->ga), br_ga_batch_arrays(B->ga), &B->D, v, i, B->Q);
}

static void integrate_end_stage(br_beam_batch *B, int v0, int v1, void *arg)
{
    const int *skip = arg;
    for (int v = v0; v < v1; v++)
        if (!skip[v]) br_beam_store_integrate_end(&B->model, br_ga_batch_shape(B->ga), br_ga_batch_arrays(B->ga), &B->D, v, B->W, B->Q);
}

void br_beam_batch_forces(br_beam_batch *B, const int *energy, int *failed, char *err, size_t errstride)
{
    br_beam_store *D = &B->D;
    memcpy(D->energy, energy, (size_t)B->nv * sizeof(int));
    for (int v = 0; v < B->nv; v++) D->code[v] = failed[v] ? -1 : 0;
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev) { /* every variant on the device; their codes back each step (the one synchronization) */
        char derr[600] = "";
        if (!br_cuda_beam_forces(B->dev, D, derr, sizeof derr)) {
            int any = 0;
            for (int v = 0; v < B->nv; v++) any |= D->code[v] > 0 && !failed[v];
            if (any && br_cuda_beam_download(B->dev, D, 0, B->lean, derr, sizeof derr)) /* their times for the messages */
                fprintf(stderr, "bristle: beam batch: %s\n", derr);
            for (int v = 0; v < B->nv; v++)
                if (D->code[v] > 0 && !failed[v]) {
                    failure(B->m[v], rec_t(B, v), D->code[v], err + (size_t)v * errstride, errstride);
                    failed[v] = 1;
                }
            return;
        }
        for (int v = 0; v < B->nv; v++) /* a device error stops every variant */
            if (!failed[v]) snprintf(err + (size_t)v * errstride, errstride, "%s", derr), failed[v] = 1;
        return;
    }
#endif
    double t0 = 0.0;
    lap(B, BR_PH_FRAMES, &t0);
    over_shares(B, 1, frames_stage, failed);
    lap(B, BR_PH_FRAMES, &t0);
    char ferr[600];
    if (B->field && br_field_step_sets(B->field, D->frames, B->Nset, B->model.h, D->res, B->bad, ferr, sizeof ferr))
        for (int v = 0; v < B->nv; v++)
            for (int s = 0; s < B->nset && !failed[v]; s++)
                if (B->bad[(size_t)v * B->nset + s]) {
                    char what[400];
                    br_field_describe(B->field, v * B->nset + s, what, sizeof what);
                    snprintf(err + (size_t)v * errstride, errstride, "t = %.9g s: %s", rec_t(B, v), what);
                    failed[v] = 1;
                }
    lap(B, BR_PH_FIELD, &t0);
    solve_arg sa = {failed, err, errstride};
    over_shares(B, B->lanes ? BR_GA_LANES : 1, solve_stage, &sa);
    lap(B, BR_PH_FORCES_PRE, &t0);
}

void br_beam_batch_integrate(br_beam_batch *B, const int *skip)
{
    br_beam_store *D = &B->D;
    for (int v = 0; v < B->nv; v++) D->code[v] = skip[v] ? -1 : 0;
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev) {
        char derr[600];
        if (br_cuda_beam_integrate(B->dev, D, derr, sizeof derr)) fprintf(stderr, "bristle: beam batch: %s\n", derr);
        return;
    }
#endif
    double t0 = 0.0;
    lap(B, BR_PH_INTEGRATE, &t0);
    if (B->W) { /* by rows: the GPU's phases, each over every variant before the next */
        over_shares(B, 1, rows_stage, (void *)skip);
        over_shares(B, 1, cols_stage, (void *)skip);
        over_shares(B, 1, integrate_end_stage, (void *)skip);
    } else over_shares(B, B->lanes ? BR_GA_LANES : 1, integrate_stage, (void *)skip);
    lap(B, BR_PH_INTEGRATE, &t0);
}

int br_beam_batch_integrate_by_rows(br_beam_batch *B, int on)
{
    free(B->W), free(B->Q);
    B->W = B->Q = NULL;
    if (!on) return 0;
    B->W = malloc((size_t)B->n * B->nv * sizeof(double) + 8), B->Q = malloc((size_t)B->n * B->nv * sizeof(double) + 8);
    if (B->W && B->Q) return 0;
    free(B->W), free(B->Q);
    B->W = B->Q = NULL;
    return -1;
}

void br_beam_batch_sample_parts(br_beam_batch *B, int parts)
{
    const int lean = !(parts & (BR_OUT_SETS | BR_OUT_OTHER));
    B->lean = lean ? br_beam_rec_lean(&B->D.o, parts & BR_OUT_BODIES, parts & BR_OUT_LOADS, parts & BR_OUT_ENERGY) : 0;
}

long br_beam_batch_sample_bytes(const br_beam_batch *B)
{
    if (B->lean) return B->lean * (long)sizeof(double);
    return B->D.o.size * (long)sizeof(double) + B->nframe * (long)sizeof(br_frame_state) +
           B->nset * (long)sizeof(br_set_result) + (long)sizeof(long);
}

int br_beam_batch_fetch(br_beam_batch *B, const int *which, int full, char *err, size_t errlen)
{
    int any = 0;
    for (int v = 0; v < B->nv && !any; v++) any = which[v] != 0;
    if (!any) return 0;
    double t0 = 0.0;
    lap(B, BR_PH_SAMPLE_COPY, &t0);
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev && br_cuda_beam_download(B->dev, &B->D, 0, full ? 0 : B->lean, err, errlen)) return -1;
#else
    (void)full, (void)err, (void)errlen;
#endif
    lap(B, BR_PH_SAMPLE_COPY, &t0);
    return 0;
}

int br_beam_batch_is_lean(const br_beam_batch *B) { return B->lean > 0; }

int br_beam_batch_fetch_one(br_beam_batch *B, int v, char *err, size_t errlen)
{
    double t0 = 0.0;
    lap(B, BR_PH_SAMPLE_COPY, &t0);
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev && br_cuda_beam_download_one(B->dev, &B->D, v, err, errlen)) return -1;
#endif
    (void)v, (void)err, (void)errlen;
    lap(B, BR_PH_SAMPLE_COPY, &t0);
    return 0;
}

void br_beam_batch_scatter(br_beam_batch *B, int v, int full) { record_io(B, v, 0, full ? 0 : B->lean); }

void br_beam_batch_step(br_beam_batch *B, const int *energy, int *failed, char *err, size_t errstride)
{
    br_beam_batch_forces(B, energy, failed, err, errstride);
    br_beam_batch_integrate(B, failed);
}

void br_beam_batch_export(br_beam_batch *B, int v)
{
    br_data *d = B->d[v];
    char err[600];
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev && br_cuda_beam_download(B->dev, &B->D, 1, 0, err, sizeof err)) fprintf(stderr, "bristle: beam batch: %s\n", err);
#endif
    br_ga_batch_state(B->ga, v, d->ga->u, d->ga->v, d->ga->a, err, sizeof err);
    record_io(B, v, 0, 0);
    double *to[] = {d->up, d->vp, d->g, d->gext, d->gext_prev, d->uprev, d->vprev};
    const size_t vn = (size_t)B->n * B->nv;
    for (int k = 0; k < 7; k++)
        for (int i = 0; i < B->n; i++) to[k][i] = B->D.vec[k * vn + (size_t)i * B->nv + v];
    if (!br_ga_batch_cuda(B->ga)) {
        const br_ga_arrays *A = br_ga_batch_arrays(B->ga);
        for (int i = 0; i < B->n; i++) d->ga->a1[i] = A->a1[(size_t)i * B->nv + v];
    }
    for (int s = 0; s < B->nset; s++) d->Nset[s] = -1.0;
}

const br_field *br_beam_batch_field(const br_beam_batch *B) { return B->field; }

int br_beam_batch_reload(br_beam_batch *B, int v, char *err, size_t errlen)
{
    const int nl = B->model.nload;
    for (int l = 0; l < nl; l++)
        if (flat_fn(&B->m[v]->load[l].mag, &B->D.mag[(size_t)v * nl + l]))
            return snprintf(err, errlen, "load '%s' cannot be evaluated on the batch", B->m[v]->load[l].name), -1;
#ifdef BRISTLE_HAVE_CUDA
    if (B->dev && nl) return br_cuda_beam_upload_loads(B->dev, &B->D, v, err, errlen);
#endif
    return 0;
}

int br_beam_batch_seconds(const br_beam_batch *B, const char *const **names, const double **secs)
{
    *names = PHASE, *secs = B->secs;
    return B->timing ? BR_BEAM_NPHASE : 0;
}
