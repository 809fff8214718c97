/* field_cpu.c: the CPU backend of the contact field. OpenMP over fixed
 * chunks of BR_CPU_CHUNK points; each chunk is summed sequentially into its
 * own slot and the slots are combined in index order, so the sums are bitwise
 * the same whatever the thread count or schedule. */
#include <stdio.h>

#include "field_internal.h"

/* law and rec (constants after inlining), set view, frame, h, points [i0, i1)
 * -> their states advanced, their sums in *out, and with rec their forces in
 * v->outF, v->outN. The points are vectorized (AVX2: vsqrtpd, vdivpd in the
 * loop body; docs/performance.md). What the loop needs for that:
 * - the per-point contribution comes back by value (br_point_sums): gcc makes
 *   an addressable local of an omp simd body into a per-lane array in memory,
 *   and one of struct type stops vectorization;
 * - branch-free per-point code (no && or invariant selects, see br_hd.h) and
 *   -fno-trapping-math for this file (CMakeLists.txt), so gcc may evaluate
 *   both sides of each select and if-convert the loop;
 * - the contact counts are int sums (exact, as the 0/1 double sums were): the
 *   32-bit lanes make gcc vectorize with 8 points per iteration, two
 *   independent 4-wide chains, which hides part of the long exp -> divide ->
 *   expm1 latency chain of one point (about 1.4x over 4 points).
 * The chunk sums are OpenMP simd reductions whose order is fixed by the
 * compiled code (the same binary gives the same bits). */
BR_HD void cpu_chunk(int law, int surf, int rec, const br_set_view *vp, const br_set_frame *frp,
                     double h, long i0, long i1, br_set_sums *out)
{
    /* Local copies: state stores cannot alias them, so the loop is not versioned. */
    const br_set_view vl = *vp;
    const br_set_frame fl = *frp;
    const br_set_view *v = &vl;
    const br_set_frame *fr = &fl;
    double F0 = 0, F1 = 0, F2 = 0, C0 = 0, C1 = 0, C2 = 0, M0 = 0, M1 = 0, M2 = 0;
    double m0 = 0, m1 = 0, m2 = 0, N = 0, P = 0, Eel = 0, Pnd = 0, Eb = 0;
    double pen = 0, vt = 0;
    int nc = 0, ns = 0; /* at most BR_CPU_CHUNK */
#pragma omp simd reduction(+ : F0, F1, F2, C0, C1, C2, M0, M1, M2, m0, m1, m2, N, P, Eel, Pnd, Eb, \
                               nc, ns) reduction(max : pen, vt)
    for (long i = i0; i < i1; i++) {
        const br_set_sums q = br_point_sums(law, surf, v, fr, h, i);
        if (rec) {
            v->outF[i] = q.F[0];
            v->outF[v->n + i] = q.F[1];
            v->outF[2 * v->n + i] = q.F[2];
            v->outN[i] = q.N;
        }
        F0 += q.F[0], F1 += q.F[1], F2 += q.F[2];
        C0 += q.Fc[0], C1 += q.Fc[1], C2 += q.Fc[2];
        M0 += q.Mc[0], M1 += q.Mc[1], M2 += q.Mc[2];
        m0 += q.Mf[0], m1 += q.Mf[1], m2 += q.Mf[2];
        N += q.N, P += q.P, Eel += q.E_el, Pnd += q.P_nd, Eb += q.E_b;
        nc += (int)q.ncontact, ns += (int)q.nstick;
        pen = q.pen_max > pen ? q.pen_max : pen;
        vt = q.vt_max > vt ? q.vt_max : vt;
    }
    *out = (br_set_sums){{F0, F1, F2}, {C0, C1, C2}, {M0, M1, M2}, {m0, m1, m2}, N, P, Eel, Pnd, Eb,
                         nc, ns, pen, vt};
}

/* One specialised chunk loop per law, counter surface and recording flag, so the law and
 * surface switches inside br_point_step fold away and the loop body has no branches left. */
#define BR_CPU_SURF(LAW, SURF)                                                      \
    case SURF:                                                                      \
        if (v->outF) cpu_chunk(LAW, SURF, 1, v, fr, h, i0, i1, out);                \
        else cpu_chunk(LAW, SURF, 0, v, fr, h, i0, i1, out);                        \
        break;
#define BR_CPU_CASE(LAW)                                                            \
    case LAW:                                                                       \
        switch (fr->surface) {                                                      \
            BR_CPU_SURF(LAW, BR_SURF_SPHERE)                                        \
            BR_CPU_SURF(LAW, BR_SURF_CYLINDER)                                      \
            default: BR_CPU_SURF(LAW, BR_SURF_PLANE)                                \
        }                                                                           \
        break;

static void cpu_chunk_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                          br_set_sums *out)
{
    switch (v->law) {
        BR_CPU_CASE(BR_LAW_LUGRE3D)
        BR_CPU_CASE(BR_LAW_LUGRE3D_CLASSIC)
        BR_CPU_CASE(BR_LAW_DAHL3D)
        BR_CPU_CASE(BR_LAW_GKF)
        BR_CPU_CASE(BR_LAW_STATIC_REG)
        BR_CPU_CASE(BR_LAW_BRISTLE2)
        BR_CPU_CASE(BR_LAW_BRISTLE_IMPLICIT)
        BR_CPU_CASE(BR_LAW_GMS)
    default: br_sums_zero(out); break;
    }
}

/* law and surface (constants after inlining), set view, frame, h, points [i0, i1) -> their states
 * advanced, their sums in *out and the set's wrench tangent sums over them in *tout, one point after
 * the other (the tangent path is not vectorized; its sums are added point by point, in index order). */
BR_HD void cpu_chunk_tangent(int law, int surf, const br_set_view *v, const br_set_frame *fr, double h, long i0,
                             long i1, br_set_sums *out, br_tangent_sums *tout)
{
    br_sums_zero(out);
    br_tangent_zero(tout);
    for (long i = i0; i < i1; i++) {
        br_set_sums q;
        br_sums_zero(&q);
        br_point_step(law, surf, v, fr, h, i, &q, tout);
        if (v->outF) {
            for (int j = 0; j < 3; j++) v->outF[j * v->n + i] = q.F[j];
            v->outN[i] = q.N;
        }
        br_sums_combine(out, &q);
    }
}

#define BR_TAN_SURF(LAW, SURF)                                                      \
    case SURF: cpu_chunk_tangent(LAW, SURF, v, fr, h, i0, i1, out, tout); break;
#define BR_TAN_CASE(LAW)                                                            \
    case LAW:                                                                       \
        switch (fr->surface) {                                                      \
            BR_TAN_SURF(LAW, BR_SURF_SPHERE)                                        \
            BR_TAN_SURF(LAW, BR_SURF_CYLINDER)                                      \
            default: BR_TAN_SURF(LAW, BR_SURF_PLANE)                                \
        }                                                                           \
        break;

/* the tangent chunk specialised for the set's law and surface */
static void cpu_chunk_tangent_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                                  br_set_sums *out, br_tangent_sums *tout)
{
    switch (v->law) {
        BR_TAN_CASE(BR_LAW_LUGRE3D)
        BR_TAN_CASE(BR_LAW_LUGRE3D_CLASSIC)
        BR_TAN_CASE(BR_LAW_DAHL3D)
        BR_TAN_CASE(BR_LAW_GKF)
        BR_TAN_CASE(BR_LAW_STATIC_REG)
        BR_TAN_CASE(BR_LAW_BRISTLE2)
        BR_TAN_CASE(BR_LAW_BRISTLE_IMPLICIT)
        BR_TAN_CASE(BR_LAW_GMS)
    default: br_sums_zero(out), br_tangent_zero(tout); break;
    }
}

/* chunk c of set v -> its partial sums (and tangent when tpart is not NULL) */
static void cpu_chunk_any(const br_set_view *v, const br_set_frame *fr, double h, long c, br_set_sums *part,
                          br_tangent_sums *tpart)
{
    const long i0 = c * BR_CPU_CHUNK;
    const long i1 = i0 + BR_CPU_CHUNK < v->n ? i0 + BR_CPU_CHUNK : v->n;
    if (tpart) cpu_chunk_tangent_law(v, fr, h, i0, i1, &part[c], &tpart[c]);
    else cpu_chunk_law(v, fr, h, i0, i1, &part[c]);
}

/* set view, frame, h -> one partial per fixed chunk of BR_CPU_CHUNK points (and one tangent
 * per chunk when tpartials is not NULL), threads over chunks. A set of one chunk runs on the
 * calling thread without entering an OpenMP region at all: even a serialized region (if(0))
 * makes libgomp allocate a team. */
static void cpu_set_step(const br_set_view *v, const br_set_frame *fr, double h,
                         br_set_sums *partials, br_tangent_sums *tpartials, long nchunks)
{
    if (nchunks == 1) {
        cpu_chunk_any(v, fr, h, 0, partials, tpartials);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long c = 0; c < nchunks; c++) cpu_chunk_any(v, fr, h, c, partials, tpartials);
}

static int cpu_create(br_field *f, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    f->backend = f; /* nothing of its own: works on the host arrays */
    snprintf(f->device, sizeof f->device, "cpu");
    return 0;
}

static int cpu_step(br_field *f, const br_set_frame *frames, double h, br_set_sums *sums,
                    br_tangent_sums *tans, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    for (int s = 0; s < f->nsets; s++) {
        br_field_set *fs = &f->sets[s];
        br_set_view v = fs->view;
        if (!f->record) v.outF = v.outN = NULL;
        br_set_sums *part = f->partials + fs->partial_off;
        br_tangent_sums *tpart = fs->tangent ? f->tpartials + fs->partial_off : NULL;
        cpu_set_step(&v, &frames[s], h, part, tpart, fs->npartial);
        br_sums_zero(&sums[s]);
        for (long c = 0; c < fs->npartial; c++) br_sums_combine(&sums[s], &part[c]);
        if (tpart) {
            br_tangent_zero(&tans[s]);
            for (long c = 0; c < fs->npartial; c++) br_tangent_combine(&tans[s], &tpart[c]);
        }
    }
    return 0;
}

static int cpu_sync(br_field *f)
{
    (void)f;
    return 0;
}

static void cpu_destroy(br_field *f) { f->backend = NULL; }

const br_backend_ops br_backend_cpu = {"cpu",    cpu_create, cpu_step, cpu_sync,
                                       cpu_sync, NULL,       cpu_destroy};
