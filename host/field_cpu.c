/* field_cpu.c: the CPU backend of the contact field. OpenMP over fixed
 * chunks of BR_CPU_CHUNK points; each chunk is summed sequentially into its
 * own slot and the slots are combined in index order, so the sums are bitwise
 * the same whatever the thread count or schedule. */
#include <stdio.h>

#include "field_internal.h"

/* The chunk loops' sums: named scalars, because an OpenMP simd reduction takes variables, not
 * struct members. BR_CHUNK_SUMS declares them (with local copies of the view and frame: state
 * stores cannot alias them, so a loop is not versioned), BR_CHUNK_REDUCTION names them for
 * `omp simd`, BR_CHUNK_ADD(q, i) records point i's force when rec and adds its one-point sums q,
 * BR_CHUNK_PACK packs them into a br_set_sums. */
#define BR_CHUNK_SUMS                                                                               \
    const br_set_view vl = *vp;                                                                     \
    const br_set_frame fl = *frp;                                                                   \
    const br_set_view *v = &vl;                                                                     \
    const br_set_frame *fr = &fl;                                                                   \
    double F0 = 0, F1 = 0, F2 = 0, C0 = 0, C1 = 0, C2 = 0, M0 = 0, M1 = 0, M2 = 0;                  \
    double m0 = 0, m1 = 0, m2 = 0, N = 0, P = 0, Eel = 0, Pnd = 0, Eb = 0;                          \
    double pen = 0, vt = 0;                                                                         \
    int nc = 0, ns = 0 /* at most BR_CPU_CHUNK */
#define BR_CHUNK_REDUCTION                                                                          \
    reduction(+ : F0, F1, F2, C0, C1, C2, M0, M1, M2, m0, m1, m2, N, P, Eel, Pnd, Eb, nc, ns)       \
        reduction(max : pen, vt)
#define BR_CHUNK_ADD(q, i)                                                                          \
    do {                                                                                            \
        if (rec) {                                                                                  \
            v->outF[i] = (q).F[0];                                                                  \
            v->outF[v->n + (i)] = (q).F[1];                                                         \
            v->outF[2 * v->n + (i)] = (q).F[2];                                                     \
            v->outN[i] = (q).N;                                                                     \
        }                                                                                           \
        F0 += (q).F[0], F1 += (q).F[1], F2 += (q).F[2];                                             \
        C0 += (q).Fc[0], C1 += (q).Fc[1], C2 += (q).Fc[2];                                          \
        M0 += (q).Mc[0], M1 += (q).Mc[1], M2 += (q).Mc[2];                                          \
        m0 += (q).Mf[0], m1 += (q).Mf[1], m2 += (q).Mf[2];                                          \
        N += (q).N, P += (q).P, Eel += (q).E_el, Pnd += (q).P_nd, Eb += (q).E_b;                    \
        nc += (int)(q).ncontact, ns += (int)(q).nstick;                                             \
        pen = (q).pen_max > pen ? (q).pen_max : pen;                                                \
        vt = (q).vt_max > vt ? (q).vt_max : vt;                                                     \
    } while (0)
#define BR_CHUNK_PACK                                                                               \
    ((br_set_sums){{F0, F1, F2}, {C0, C1, C2}, {M0, M1, M2}, {m0, m1, m2}, N, P, Eel, Pnd, Eb, nc, ns, pen, vt})

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
    BR_CHUNK_SUMS;
#pragma omp simd BR_CHUNK_REDUCTION
    for (long i = i0; i < i1; i++) {
        const br_set_sums q = br_point_sums(law, surf, v, fr, h, i);
        BR_CHUNK_ADD(q, i);
    }
    *out = BR_CHUNK_PACK;
}

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

#define BR_CPU_PLAIN(LAW, SURF, REC) cpu_chunk(LAW, SURF, REC, v, fr, h, i0, i1, out)

static void cpu_chunk_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                          br_set_sums *out)
{
    BR_CPU_DISPATCH(BR_CPU_PLAIN, br_sums_zero(out))
}

/* Points of a tangent chunk are taken BR_TAN_BLOCK at a time: one vectorized loop advances a
 * block (the body of cpu_chunk) and writes each point's tangent pieces (br_tan_point_pieces,
 * kernels/point_tangent.h) into this scratch, structure of arrays; then short vectorized loops
 * over the block add up the products of br_tan_pieces (point_tangent.h), at most 21
 * sums per loop so that they stay in registers (one loop with all 120 spills, and one point at a
 * time is 6x slower). The block lives on the stack of the thread running the chunk (34 KiB, in
 * L1); the step allocates nothing. Larger blocks amortize the loops' final lane reductions. */
#define BR_TAN_BLOCK 160
typedef struct cpu_tan_block {
    double gn[6][BR_TAN_BLOCK], gj[6][BR_TAN_BLOCK]; /* G^T n, G^T (-kn jN) */
    double Jc[9][BR_TAN_BLOCK];                      /* J + b n^T, row-major */
    double rw[3][BR_TAN_BLOCK];                      /* world offset from A's origin */
    double kn[BR_TAN_BLOCK], cn[BR_TAN_BLOCK], Nd[BR_TAN_BLOCK];
} cpu_tan_block;

/* Accumulators of one loop of cpu_tan_block_add: named scalars, which gcc keeps in vector
 * registers (an array reduction would be a per-lane array in memory). */
#define BR_S18 s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16, s17
#define BR_S21 BR_S18, s18, s19, s20

/* c (kn or cn) of block b's m points -> out[q] += sum of c gn gn^T, upper triangle row by row
 * (the Kn, Cn terms of br_tan_pieces) */
BR_HD void cpu_tan_sym(const double *c, const cpu_tan_block *b, long m, double out[21])
{
    double BR_S21;
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = s16 = s17 = s18 =
        s19 = s20 = 0.0;
#pragma omp simd reduction(+ : BR_S21)
    for (long j = 0; j < m; j++) {
        const double g0 = b->gn[0][j], g1 = b->gn[1][j], g2 = b->gn[2][j];
        const double g3 = b->gn[3][j], g4 = b->gn[4][j], g5 = b->gn[5][j];
        const double r0 = c[j] * g0, r1 = c[j] * g1, r2 = c[j] * g2, r3 = c[j] * g3, r4 = c[j] * g4,
                     r5 = c[j] * g5;
        s0 += r0 * g0, s1 += r0 * g1, s2 += r0 * g2, s3 += r0 * g3, s4 += r0 * g4, s5 += r0 * g5;
        s6 += r1 * g1, s7 += r1 * g2, s8 += r1 * g3, s9 += r1 * g4, s10 += r1 * g5;
        s11 += r2 * g2, s12 += r2 * g3, s13 += r2 * g4, s14 += r2 * g5;
        s15 += r3 * g3, s16 += r3 * g4, s17 += r3 * g5;
        s18 += r4 * g4, s19 += r4 * g5;
        s20 += r5 * g5;
    }
    const double v[21] = {BR_S21};
    for (int q = 0; q < 21; q++) out[q] += v[q];
}

/* block b's m points, first column c0 (0 or 3) -> out[6 c + r] += sum of gj[r] gn[c0 + c],
 * c = 0..2 (the Kf term: columns c0..c0+2) */
BR_HD void cpu_tan_kf(const cpu_tan_block *b, long m, int c0, double out[18])
{
    double BR_S18;
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = s16 = s17 = 0.0;
#pragma omp simd reduction(+ : BR_S18)
    for (long j = 0; j < m; j++) {
        const double n0 = b->gn[c0][j], n1 = b->gn[c0 + 1][j], n2 = b->gn[c0 + 2][j];
        const double a0 = b->gj[0][j], a1 = b->gj[1][j], a2 = b->gj[2][j];
        const double a3 = b->gj[3][j], a4 = b->gj[4][j], a5 = b->gj[5][j];
        s0 += a0 * n0, s1 += a1 * n0, s2 += a2 * n0, s3 += a3 * n0, s4 += a4 * n0, s5 += a5 * n0;
        s6 += a0 * n1, s7 += a1 * n1, s8 += a2 * n1, s9 += a3 * n1, s10 += a4 * n1, s11 += a5 * n1;
        s12 += a0 * n2, s13 += a1 * n2, s14 += a2 * n2, s15 += a3 * n2, s16 += a4 * n2, s17 += a5 * n2;
    }
    const double v[18] = {BR_S18};
    for (int q = 0; q < 18; q++) out[q] += v[q];
}

/* Columns c0..c0+2 of one point's G^T Jc G, by value (no addressable aggregate in the caller's
 * simd loop body). */
typedef struct cpu_cols3 {
    double g[18];
} cpu_cols3;

/* block b, point j, first column c0 (a constant after inlining) -> those columns
 * (br_tan_sandwich_col) */
BR_HD cpu_cols3 cpu_sandwich3(const cpu_tan_block *b, long j, int c0)
{
    const double rw[3] = {b->rw[0][j], b->rw[1][j], b->rw[2][j]};
    double A[9];
    for (int k = 0; k < 9; k++) A[k] = b->Jc[k][j];
    cpu_cols3 o;
    for (int c = 0; c < 3; c++) br_tan_sandwich_col(rw, A, c0 + c, o.g + 6 * c);
    return o;
}

/* block b's m points, first column c0 (0 or 3) -> out[q] += the sum of their sandwiches'
 * columns c0..c0+2 (the Cf term) */
BR_HD void cpu_tan_cf(const cpu_tan_block *b, long m, int c0, double out[18])
{
    double BR_S18;
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = s16 = s17 = 0.0;
#pragma omp simd reduction(+ : BR_S18)
    for (long j = 0; j < m; j++) {
        const cpu_cols3 g = cpu_sandwich3(b, j, c0);
        s0 += g.g[0], s1 += g.g[1], s2 += g.g[2], s3 += g.g[3], s4 += g.g[4], s5 += g.g[5];
        s6 += g.g[6], s7 += g.g[7], s8 += g.g[8], s9 += g.g[9], s10 += g.g[10], s11 += g.g[11];
        s12 += g.g[12], s13 += g.g[13], s14 += g.g[14], s15 += g.g[15], s16 += g.g[16], s17 += g.g[17];
    }
    const double v[18] = {BR_S18};
    for (int q = 0; q < 18; q++) out[q] += v[q];
}

/* block b of m points -> the products of their pieces added to T in a fixed order (the terms of
 * br_tan_pieces): Kn += kn gn gn^T, Cn += cn gn gn^T, Kf += gj gn^T, Cf += G^T Jc G,
 * Wd += Nd gn. Each loop's lane partials are combined in an order fixed by the compiled code. */
static void cpu_tan_block_add(const cpu_tan_block *b, long m, br_tangent_sums *T)
{
    cpu_tan_sym(b->kn, b, m, T->Kn);
    cpu_tan_sym(b->cn, b, m, T->Cn);
    cpu_tan_kf(b, m, 0, T->Kf);
    cpu_tan_kf(b, m, 3, T->Kf + 18);
    cpu_tan_cf(b, m, 0, T->Cf);
    cpu_tan_cf(b, m, 3, T->Cf + 18);
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0;
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4, s5)
    for (long j = 0; j < m; j++) {
        const double d = b->Nd[j];
        s0 += d * b->gn[0][j], s1 += d * b->gn[1][j], s2 += d * b->gn[2][j];
        s3 += d * b->gn[3][j], s4 += d * b->gn[4][j], s5 += d * b->gn[5][j];
    }
    const double v[6] = {s0, s1, s2, s3, s4, s5};
    for (int q = 0; q < 6; q++) T->Wd[q] += v[q];
}

/* law, surface and rec (constants after inlining), set view, frame, h, points [i0, i1) -> their
 * states advanced, their sums in *out (as cpu_chunk) and the set's wrench tangent sums over them
 * in *tout. Blocks of BR_TAN_BLOCK points from i0: each is advanced by one vectorized loop (the
 * body of cpu_chunk plus the point's tangent pieces, stored into the block scratch), then its
 * tangent terms are added by cpu_tan_block_add. The sums of every block are added to the chunk's
 * in block order: the result depends on the chunk alone, not on the threads. */
BR_HD void cpu_chunk_tangent(int law, int surf, int rec, const br_set_view *vp, const br_set_frame *frp,
                             double h, long i0, long i1, br_set_sums *out, br_tangent_sums *tout)
{
    BR_CHUNK_SUMS;
    br_tangent_sums T;
    br_tangent_zero(&T);
    _Alignas(64) cpu_tan_block blk;
    cpu_tan_block *b = &blk;
    for (long b0 = i0; b0 < i1; b0 += BR_TAN_BLOCK) {
        const long m = i1 - b0 < BR_TAN_BLOCK ? i1 - b0 : BR_TAN_BLOCK;
#pragma omp simd BR_CHUNK_REDUCTION
        for (long j = 0; j < m; j++) {
            const long i = b0 + j;
            const br_point_tan_sums o = br_point_sums_tan(law, surf, v, fr, h, i);
            BR_CHUNK_ADD(o.q, i);
            b->gn[0][j] = o.p.gn[0], b->gn[1][j] = o.p.gn[1], b->gn[2][j] = o.p.gn[2];
            b->gn[3][j] = o.p.gn[3], b->gn[4][j] = o.p.gn[4], b->gn[5][j] = o.p.gn[5];
            b->gj[0][j] = o.p.gj[0], b->gj[1][j] = o.p.gj[1], b->gj[2][j] = o.p.gj[2];
            b->gj[3][j] = o.p.gj[3], b->gj[4][j] = o.p.gj[4], b->gj[5][j] = o.p.gj[5];
            b->Jc[0][j] = o.p.Jc[0], b->Jc[1][j] = o.p.Jc[1], b->Jc[2][j] = o.p.Jc[2];
            b->Jc[3][j] = o.p.Jc[3], b->Jc[4][j] = o.p.Jc[4], b->Jc[5][j] = o.p.Jc[5];
            b->Jc[6][j] = o.p.Jc[6], b->Jc[7][j] = o.p.Jc[7], b->Jc[8][j] = o.p.Jc[8];
            b->rw[0][j] = o.rw[0], b->rw[1][j] = o.rw[1], b->rw[2][j] = o.rw[2];
            b->kn[j] = o.kn, b->cn[j] = o.cn, b->Nd[j] = o.Nd;
        }
        cpu_tan_block_add(b, m, &T);
    }
    *out = BR_CHUNK_PACK;
    *tout = T;
}

#define BR_CPU_TANGENT(LAW, SURF, REC) cpu_chunk_tangent(LAW, SURF, REC, v, fr, h, i0, i1, out, tout)

/* the tangent chunk specialised for the set's law, surface and recording flag */
static void cpu_chunk_tangent_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                                  br_set_sums *out, br_tangent_sums *tout)
{
    BR_CPU_DISPATCH(BR_CPU_TANGENT, (br_sums_zero(out), br_tangent_zero(tout)))
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
