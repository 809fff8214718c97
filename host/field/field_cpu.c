/* field_cpu.c: the CPU backend of the contact field. OpenMP over fixed
 * chunks of BR_CPU_CHUNK points; each chunk is summed sequentially into its
 * own slot and the slots are combined in index order, so the sums are bitwise
 * the same whatever the thread count or schedule.
 * The specialised point loops are in field_cpu_law.c, compiled once per law; this file picks the
 * loop for each set and runs it over the chunks (and the lanes of small sets). */
#include <assert.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field_cpu.h"

/* One specialised chunk loop per law, counter surface and recording flag, so the law and
 * surface switches inside br_point_step fold away and the loop body has no branches left:
 * BR_CPU_DISPATCH(CALL, OTHER) switches on v->law and fr->surface and runs CALL(LAW, SURF, REC)
 * with all three constant (OTHER for an unknown law). */
#define BR_CPU_SURF(CALL, LAW, SURF)                                                \
    case SURF:                                                                      \
        if (v->outF) CALL(LAW, SURF, 1);                                            \
        else CALL(LAW, SURF, 0);                                                    \
        break;
#define BR_CPU_CASE(CALL, LAW)                                                      \
    case LAW:                                                                       \
        switch (fr->surface) {                                                      \
            BR_CPU_SURF(CALL, LAW, BR_SURF_SPHERE)                                  \
            BR_CPU_SURF(CALL, LAW, BR_SURF_CYLINDER)                                \
            default: BR_CPU_SURF(CALL, LAW, BR_SURF_PLANE)                          \
        }                                                                           \
        break;
#define BR_CPU_DISPATCH(CALL, OTHER)                                                \
    switch (v->law) {                                                               \
        BR_CPU_CASE(CALL, BR_LAW_LUGRE3D)                                           \
        BR_CPU_CASE(CALL, BR_LAW_LUGRE3D_CLASSIC)                                   \
        BR_CPU_CASE(CALL, BR_LAW_DAHL3D)                                            \
        BR_CPU_CASE(CALL, BR_LAW_GKF)                                               \
        BR_CPU_CASE(CALL, BR_LAW_STATIC_REG)                                        \
        BR_CPU_CASE(CALL, BR_LAW_BRISTLE2)                                          \
        BR_CPU_CASE(CALL, BR_LAW_BRISTLE_IMPLICIT)                                  \
        BR_CPU_CASE(CALL, BR_LAW_GMS)                                               \
        BR_CPU_CASE(CALL, BR_LAW_JENKINS)                                           \
    default: OTHER; break;                                                          \
    }

/* The exponents nearly every scenario uses (Hunt-Crossley pK = 2, pD = 0.5; Stribeck alpha = 2):
 * a set with them runs loops compiled with them as constants (br_cpu_chunkx_LAW_SURF_REC, field_cpu_law.c; the view's
 * exponents overwritten by the same values in a local copy), where br_pow_half folds to its one
 * candidate. The generic loop computes every candidate of each power and a square root for the
 * Stribeck exponent that it selects away (lugre3d 1.9e8 against 2.1e8 updates/s on 2 threads,
 * docs/performance.md). The values, and so the results, are the same bit for bit: the folded
 * multiplies by 1.0 and blends are exact. Not for gms (far above its target, and 48 more loops to
 * compile) nor bristle_implicit (gcc 12 leaves its slip solve scalar with the constants: 1.1e7
 * against 4.9e7 updates/s sliding). */
static int cpu_std_exponents(const br_set_view *v)
{
    return v->normal.pK == 2.0 && v->normal.pD == 0.5 && v->fric.alpha == 2.0;
}
#define BR_CPU_STD(LAW, SURF, REC) br_cpu_chunkx_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out)

/* set view, frame, h, points [i0, i1) -> as cpu_chunk_law through the loop with the usual
 * exponents as constants; 0 when the set's law or exponents have none (the generic loop runs) */
static int cpu_chunk_std(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                         br_set_sums *out)
{
    if (!cpu_std_exponents(v)) return 0;
    switch (v->law) {
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_LUGRE3D)
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_LUGRE3D_CLASSIC)
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_DAHL3D)
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_GKF)
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_STATIC_REG)
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_BRISTLE2)
        BR_CPU_CASE(BR_CPU_STD, BR_LAW_JENKINS)
    default: return 0;
    }
    return 1;
}

/* gms with its element count M a constant (br_cpu_chunk_gmsM_SURF_REC, field_cpu_law.c) */
#define BR_CPU_GMS_CALL(M, SURF, REC) br_cpu_chunk_gms##M##_##SURF##_##REC(v, fr, h, i0, i1, out)
#define BR_CPU_GMS_SURF(M, SURF)                                                    \
    case SURF:                                                                      \
        if (v->outF) BR_CPU_GMS_CALL(M, SURF, 1);                                   \
        else BR_CPU_GMS_CALL(M, SURF, 0);                                           \
        break;
#define BR_CPU_GMS_M(M)                                                             \
    case M:                                                                         \
        switch (fr->surface) {                                                      \
            BR_CPU_GMS_SURF(M, BR_SURF_SPHERE)                                      \
            BR_CPU_GMS_SURF(M, BR_SURF_CYLINDER)                                    \
            default: BR_CPU_GMS_SURF(M, BR_SURF_PLANE)                              \
        }                                                                           \
        return 1;

/* gms set view, frame, h, points [i0, i1) -> as cpu_chunk_law through the loop for its M; 0 when
 * M is out of range (the generic loop runs) */
static int cpu_chunk_gms(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                         br_set_sums *out)
{
    switch (v->fric.gms_M) {
        BR_CPU_GMS_M(1) BR_CPU_GMS_M(2) BR_CPU_GMS_M(3) BR_CPU_GMS_M(4)
        BR_CPU_GMS_M(5) BR_CPU_GMS_M(6) BR_CPU_GMS_M(7) BR_CPU_GMS_M(8)
    default: break;
    }
    return 0;
}

#define BR_CPU_PLAIN(LAW, SURF, REC) br_cpu_chunk_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out)

static void cpu_chunk_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                          br_set_sums *out)
{
    if (v->law == BR_LAW_GMS && cpu_chunk_gms(v, fr, h, i0, i1, out)) return;
    if (cpu_chunk_std(v, fr, h, i0, i1, out)) return;
    BR_CPU_DISPATCH(BR_CPU_PLAIN, br_sums_zero(out))
}

/* Stick passes: a law's loop without its slip branch (a slipping point's force, and state, come
 * out NaN): bristle_implicit without its slip solve (br_cpu_chunk_bistick_SURF_REC), gkf and
 * static_reg without their sliding branch, with the usual exponents (br_cpu_chunkxs_LAW_SURF_REC; field_cpu_law.c). */
#define BR_CPU_BI_CALL(LAW, SURF, REC) br_cpu_chunk_bistick_##SURF##_##REC(v, fr, h, i0, i1, out)
#define BR_CPU_XS_CALL(LAW, SURF, REC) br_cpu_chunkxs_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out)

/* set view, frame, h, points [i0, i1) -> the chunk's stick pass run: 1, or 0 when its law has none
 * (gkf and static_reg: none without the usual exponents) */
static int cpu_chunk_stickpass(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                               br_set_sums *out)
{
    switch (v->law) {
        BR_CPU_CASE(BR_CPU_BI_CALL, BR_LAW_BRISTLE_IMPLICIT)
    case BR_LAW_GKF:
    case BR_LAW_STATIC_REG:
        if (!cpu_std_exponents(v)) return 0;
        switch (v->law) {
            BR_CPU_CASE(BR_CPU_XS_CALL, BR_LAW_GKF)
            BR_CPU_CASE(BR_CPU_XS_CALL, BR_LAW_STATIC_REG)
        }
        break;
    default: return 0;
    }
    return 1;
}

/* Steps a chunk runs in full after its stick pass met a slipping point, before it tries the stick
 * pass again. */
#define BR_STICK_RETRY 16

/* set view, frame, h, points [i0, i1) of one chunk, its predictor byte *pred -> as cpu_chunk_law.
 * Where a law's slip branch costs much more than its stick branch (bristle_implicit's slip solve:
 * BR_SLIP_ITER Newton steps; the Stribeck exponential and the divide of gkf's and static_reg's
 * sliding branch), a vectorized loop pays for it in every lane as soon as one point slips, and
 * computes it for stuck points too (branch-free), so a chunk whose points all stick runs the loop
 * without it: its states are saved, the stick pass runs, and if a point slipped (a NaN in the
 * sums) the states are restored and the chunk runs again in full (the law's own loop,
 * cpu_chunk_law), which it keeps for BR_STICK_RETRY steps (*pred counts them down). Either way the
 * chunk's results are those of the full loop, bit for bit: a stuck point's arithmetic is the same
 * in both, and nothing else of the stick pass is kept (forces recorded by it are written again). */
static void cpu_chunk_stick(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                            br_set_sums *out, unsigned char *pred)
{
    if (*pred == 0) {
        static_assert(BR_CPU_CHUNK <= 2048, "the saved states live on the stack");
        double save[3][BR_CPU_CHUNK];
        const long m = i1 - i0;
        const int ns = v->nstate; /* 3 (bristle_implicit) or 0 (gkf, static_reg) */
        assert(ns == 0 || ns == 3);
        for (int k = 0; k < ns; k++) memcpy(save[k], v->state + k * v->n + i0, (size_t)m * sizeof(double));
        if (!cpu_chunk_stickpass(v, fr, h, i0, i1, out)) {
            cpu_chunk_law(v, fr, h, i0, i1, out);
            return;
        }
        if (!isnan(out->F[0] + out->F[1] + out->F[2] + out->P)) return;
        for (int k = 0; k < ns; k++) memcpy(v->state + k * v->n + i0, save[k], (size_t)m * sizeof(double));
        *pred = BR_STICK_RETRY;
    } else
        (*pred)--;
    cpu_chunk_law(v, fr, h, i0, i1, out);
}

#define BR_CPU_TANGENT(LAW, SURF, REC) br_cpu_chunk_tangent_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out, tout)

/* the tangent chunk specialised for the set's law, surface and recording flag */
static void cpu_chunk_tangent_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                                  br_set_sums *out, br_tangent_sums *tout)
{
    BR_CPU_DISPATCH(BR_CPU_TANGENT, (br_sums_zero(out), br_tangent_zero(tout)))
}

/* chunk c of set v, the set's predictor bytes pred -> its partial sums (and tangent when tpart
 * is not NULL) */
static void cpu_chunk_any(const br_set_view *v, const br_set_frame *fr, double h, long c, br_set_sums *part,
                          br_tangent_sums *tpart, unsigned char *pred)
{
    const long i0 = c * BR_CPU_CHUNK;
    const long i1 = i0 + BR_CPU_CHUNK < v->n ? i0 + BR_CPU_CHUNK : v->n;
    if (tpart) cpu_chunk_tangent_law(v, fr, h, i0, i1, &part[c], &tpart[c]);
    else if (v->law == BR_LAW_BRISTLE_IMPLICIT || v->law == BR_LAW_GKF || v->law == BR_LAW_STATIC_REG)
        cpu_chunk_stick(v, fr, h, i0, i1, &part[c], &pred[c]);
    else cpu_chunk_law(v, fr, h, i0, i1, &part[c]);
}

/* set view, frame, h -> one partial per fixed chunk of BR_CPU_CHUNK points (and one tangent
 * per chunk when tpartials is not NULL), threads over chunks. A set of one chunk runs on the
 * calling thread without entering an OpenMP region at all: even a serialized region (if(0))
 * makes libgomp allocate a team. */
static void cpu_set_step(const br_set_view *v, const br_set_frame *fr, double h,
                         br_set_sums *partials, br_tangent_sums *tpartials, unsigned char *pred, long nchunks)
{
    if (nchunks == 1 || omp_in_parallel()) { /* (the field of a CPU study's beam batch, on its thread) */
        for (long c = 0; c < nchunks; c++) cpu_chunk_any(v, fr, h, c, partials, tpartials, pred);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long c = 0; c < nchunks; c++) cpu_chunk_any(v, fr, h, c, partials, tpartials, pred);
}

typedef struct cpu_backend {
    int ngroup;
    cpu_group *g;
    int *grouped; /* per set: its group, or -1 */
    long nblock;  /* lane blocks over all groups */
    unsigned char *pred; /* per chunk (indexed as f->partials): cpu_chunk_stick's predictor */
} cpu_backend;

/* frame f -> column j of the frame table fs (BR_FRAME_NF rows of L) */
static void frame_store(const br_set_frame *f, double *fs, long L, long j)
{
    const double v[BR_FRAME_NF] = {f->xA[0], f->xA[1], f->xA[2], f->RA[0], f->RA[1], f->RA[2], f->RA[3], f->RA[4],
                                   f->RA[5], f->RA[6], f->RA[7], f->RA[8], f->c[0],  f->c[1],  f->c[2],  f->w[0],
                                   f->w[1],  f->w[2],  f->n[0],  f->n[1],  f->n[2],  f->d,     f->pc[0], f->pc[1],
                                   f->pc[2], f->ax[0], f->ax[1], f->ax[2], f->rad,   f->Npt};
    for (int k = 0; k < BR_FRAME_NF; k++) fs[k * L + j] = v[k];
}

#define BR_CPU_LANES(LAW, SURF, REC) br_cpu_lanes_##LAW##_##SURF##_##REC(tan, gp, h, j0, m, out, tout)

#define BR_LANES_SURF(LAW, SURF)                                                                              \
    case SURF:                                                                                                \
        if (rec) BR_CPU_LANES(LAW, SURF, 1);                                                                  \
        else BR_CPU_LANES(LAW, SURF, 0);                                                                      \
        break;
#define BR_LANES_CASE(LAW)                                                                                    \
    case LAW:                                                                                                 \
        switch (gp->surf) {                                                                                   \
            BR_LANES_SURF(LAW, BR_SURF_SPHERE)                                                                \
            BR_LANES_SURF(LAW, BR_SURF_CYLINDER)                                                              \
            default: BR_LANES_SURF(LAW, BR_SURF_PLANE)                                                        \
        }                                                                                                     \
        break;

/* group, h, lanes [j0, j0 + m), rec -> cpu_lanes specialised for the group's law, surface, tangent
 * and recording (gms sets are never grouped) */
static void cpu_lanes_law(const cpu_group *gp, double h, long j0, long m, int rec, br_set_sums *out,
                          br_tangent_sums *tout)
{
    const int tan = gp->tangent;
    switch (gp->law) {
        BR_LANES_CASE(BR_LAW_LUGRE3D)
        BR_LANES_CASE(BR_LAW_LUGRE3D_CLASSIC)
        BR_LANES_CASE(BR_LAW_DAHL3D)
        BR_LANES_CASE(BR_LAW_GKF)
        BR_LANES_CASE(BR_LAW_STATIC_REG)
        BR_LANES_CASE(BR_LAW_BRISTLE2)
        BR_LANES_CASE(BR_LAW_BRISTLE_IMPLICIT)
        BR_LANES_CASE(BR_LAW_JENKINS)
    default: break;
    }
}

/* two sets' friction parameters -> 1 if every field is equal (member by member: the padding of the
 * structs is not compared) */
static int fric_equal(const br_friction_params *a, const br_friction_params *b)
{
    if (a->update != b->update || a->gms_M != b->gms_M || a->slip_unsolved != b->slip_unsolved) return 0;
    const double x[] = {a->mu_s, a->mu_k, a->V_st, a->alpha, a->sigma0, a->sigma1, a->sigma2, a->eps, a->f_v,
                        a->v_r,  a->nu,   a->G_min, a->kt,   a->kt_K,   a->c_t,    a->gms_C};
    const double y[] = {b->mu_s, b->mu_k, b->V_st, b->alpha, b->sigma0, b->sigma1, b->sigma2, b->eps, b->f_v,
                        b->v_r,  b->nu,   b->G_min, b->kt,   b->kt_K,   b->c_t,    b->gms_C};
    /* every field of br_friction_params is listed above or is a gms array (gms sets are not grouped) */
    _Static_assert(sizeof(br_friction_params) == 16 * sizeof(double) + 3 * sizeof(double) + 3 * BR_GMS_MAX * sizeof(double),
                   "br_friction_params changed: update fric_equal");
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
        if (!(x[k] == y[k])) return 0;
    return 1;
}

/* set view a, b (with tangent flags, surfaces) -> 1 if they can share a group */
static int groupable(const br_field *f, int s, int t)
{
    const br_field_set *a = &f->sets[s], *b = &f->sets[t];
    if (a->geom.iface || b->geom.iface) return 0;
    return a->view.law == b->view.law && a->geom.surface == b->geom.surface && a->view.n == b->view.n &&
           a->tangent == b->tangent && a->view.nstate == b->view.nstate && a->view.v_stick == b->view.v_stick &&
           a->view.normal.pK == b->view.normal.pK && a->view.normal.pD == b->view.normal.pD &&
           fric_equal(&a->view.fric, &b->view.fric);
}

static void cpu_free_backend(cpu_backend *cb)
{
    if (!cb) return;
    for (int g = 0; g < cb->ngroup; g++) free(cb->g[g].set), free(cb->g[g].block);
    free(cb->g), free(cb->grouped), free(cb->pred), free(cb);
}

/* field -> its sets of one chunk (not gms) in groups, geometry and states interleaved; 0 or -1 */
static int cpu_make_groups(br_field *f, cpu_backend *cb)
{
    cb->grouped = malloc((size_t)(f->nsets ? f->nsets : 1) * sizeof(int));
    cb->g = calloc((size_t)(f->nsets ? f->nsets : 1), sizeof *cb->g);
    if (!cb->grouped || !cb->g) return -1;
    for (int s = 0; s < f->nsets; s++) cb->grouped[s] = -1;
    for (int s = 0; s < f->nsets; s++) {
        const br_field_set *fs = &f->sets[s];
        if (cb->grouped[s] >= 0 || fs->npartial != 1 || fs->view.n < 1 || fs->view.law == BR_LAW_GMS || fs->geom.iface)
            continue;
        cpu_group *g = &cb->g[cb->ngroup];
        g->set = malloc((size_t)f->nsets * sizeof(int));
        if (!g->set) return -1;
        for (int t = s; t < f->nsets; t++)
            if (cb->grouped[t] < 0 && f->sets[t].npartial == 1 && (t == s || groupable(f, s, t)))
                cb->grouped[t] = cb->ngroup, g->set[g->L++] = t;
        cb->ngroup++;
        const long n = fs->view.n, L = g->L, ns = fs->view.nstate;
        g->law = fs->view.law, g->surf = fs->geom.surface, g->tangent = fs->tangent, g->n = n;
        const size_t nd = (size_t)(n * L) * (size_t)(5 + ns + 4) + (size_t)BR_FRAME_NF * (size_t)L;
        g->block = calloc(nd, sizeof(double));
        if (!g->block) return -1;
        g->view = fs->view;
        double *p = g->block;
        double *rx = p, *ry = p + n * L, *rz = p + 2 * n * L, *K = p + 3 * n * L, *D = p + 4 * n * L;
        g->view.rx = rx, g->view.ry = ry, g->view.rz = rz, g->view.K = K, g->view.D = D;
        g->view.state = p + 5 * n * L;
        g->recF = g->view.state + ns * n * L, g->recN = g->recF + 3 * n * L;
        g->fs = g->recN + n * L;
        g->view.n = n * L, g->view.outF = g->view.outN = NULL;
        for (long j = 0; j < L; j++) {
            const br_set_view *v = &f->sets[g->set[j]].view;
            for (long q = 0; q < n; q++) {
                rx[q * L + j] = v->rx[q], ry[q * L + j] = v->ry[q], rz[q * L + j] = v->rz[q];
                K[q * L + j] = v->K[q], D[q * L + j] = v->D[q];
            }
        }
    }
    for (int g = 0; g < cb->ngroup; g++) cb->nblock += (cb->g[g].L + BR_LANES - 1) / BR_LANES;
    return 0;
}

/* to_group: the sets' view states -> the groups' interleaved states; else the reverse */
static void cpu_group_states(br_field *f, const cpu_backend *cb, int to_group)
{
    for (int gi = 0; gi < cb->ngroup; gi++) {
        const cpu_group *g = &cb->g[gi];
        const long n = g->n, L = g->L;
        for (long j = 0; j < L; j++) {
            double *st = f->sets[g->set[j]].view.state;
            for (int k = 0; k < g->view.nstate; k++)
                for (long q = 0; q < n; q++) {
                    double *gs = &g->view.state[(k * n + q) * L + j];
                    if (to_group) *gs = st[k * n + q];
                    else st[k * n + q] = *gs;
                }
        }
    }
}

static int cpu_create(br_field *f, char *err, size_t errlen)
{
    cpu_backend *cb = calloc(1, sizeof *cb);
    if (cb) cb->pred = calloc((size_t)(f->npartials ? f->npartials : 1), 1);
    if (!cb || !cb->pred || cpu_make_groups(f, cb)) {
        cpu_free_backend(cb);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cpu_group_states(f, cb, 1);
    f->backend = cb;
    snprintf(f->device, sizeof f->device, "cpu");
    return 0;
}

/* lane block k of all groups (numbered group by group) -> advanced, sums and tangents of its sets
 * into sums[], tans[] (each block writes only its own sets) */
static void cpu_block(br_field *f, const cpu_backend *cb, long k, double h, br_set_sums *sums, br_tangent_sums *tans)
{
    int gi = 0;
    long nb;
    while (k >= (nb = (cb->g[gi].L + BR_LANES - 1) / BR_LANES)) k -= nb, gi++;
    const cpu_group *g = &cb->g[gi];
    const long j0 = k * BR_LANES, m = g->L - j0 < BR_LANES ? g->L - j0 : BR_LANES;
    br_set_sums out[BR_LANES];
    br_tangent_sums tout[BR_LANES];
    cpu_lanes_law(g, h, j0, m, f->record, out, g->tangent ? tout : NULL);
    for (long j = 0; j < m; j++) {
        const int s = g->set[j0 + j];
        sums[s] = out[j];
        if (g->tangent) tans[s] = tout[j];
        if (f->record) { /* the lanes' point outputs -> the set's arrays */
            const br_set_view *v = &f->sets[s].view;
            for (long q = 0; q < g->n; q++) {
                for (int c = 0; c < 3; c++) v->outF[c * g->n + q] = g->recF[(c * g->n + q) * g->L + j0 + j];
                v->outN[q] = g->recN[q * g->L + j0 + j];
            }
        }
    }
}

static int cpu_step(br_field *f, const br_set_frame *frames, double h, br_set_sums *sums,
                    br_tangent_sums *tans, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const cpu_backend *cb = f->backend;
    for (int gi = 0; gi < cb->ngroup; gi++)
        for (long j = 0; j < cb->g[gi].L; j++) frame_store(&frames[cb->g[gi].set[j]], cb->g[gi].fs, cb->g[gi].L, j);
    /* lane blocks over threads when there are several (each block's arithmetic is its own) */
    if (cb->nblock > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
        for (long k = 0; k < cb->nblock; k++) cpu_block(f, cb, k, h, sums, tans);
    } else /* one block, or a field already on a thread (a CPU study's beam batch) */
        for (long k = 0; k < cb->nblock; k++) cpu_block(f, cb, k, h, sums, tans);
    for (int s = 0; s < f->nsets; s++) {
        if (cb->grouped[s] >= 0) continue;
        br_field_set *fs = &f->sets[s];
        br_set_view v = fs->view;
        if (!f->record) v.outF = v.outN = NULL;
        if (fs->geom.iface) { /* a deforming interface: its points in order, on this thread (deterministic) */
            br_sums_zero(&sums[s]);
            for (long i = 0; i < v.n; i++) {
                const br_set_sums q = br_point_iface(v.law, &v, h, i);
                br_sums_combine(&sums[s], &q);
            }
            continue;
        }
        br_set_sums *part = f->partials + fs->partial_off;
        br_tangent_sums *tpart = fs->tangent ? f->tpartials + fs->partial_off : NULL;
        cpu_set_step(&v, &frames[s], h, part, tpart, cb->pred + fs->partial_off, fs->npartial);
        br_sums_zero(&sums[s]);
        for (long c = 0; c < fs->npartial; c++) br_sums_combine(&sums[s], &part[c]);
        if (tpart) {
            br_tangent_zero(&tans[s]);
            for (long c = 0; c < fs->npartial; c++) br_tangent_combine(&tans[s], &tpart[c]);
        }
    }
    return 0;
}

static int cpu_sync_to_host(br_field *f)
{
    cpu_group_states(f, f->backend, 0);
    return 0;
}

static int cpu_sync_from_host(br_field *f)
{
    cpu_group_states(f, f->backend, 1);
    return 0;
}

static void cpu_destroy(br_field *f)
{
    cpu_free_backend(f->backend);
    f->backend = NULL;
}

const br_backend_ops br_backend_cpu = {"cpu", cpu_create, cpu_step, cpu_sync_to_host, cpu_sync_from_host, NULL,
                                       cpu_destroy};
