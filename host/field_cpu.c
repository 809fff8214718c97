/* field_cpu.c: the CPU backend of the contact field. OpenMP over fixed
 * chunks of BR_CPU_CHUNK points; each chunk is summed sequentially into its
 * own slot and the slots are combined in index order, so the sums are bitwise
 * the same whatever the thread count or schedule. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* BR_CPU_EACH(X) runs X(LAW, SURF, REC) for every law, surface and recording flag of
 * BR_CPU_DISPATCH. */
#define BR_CPU_EACH_SURF(X, LAW, SURF) X(LAW, SURF, 0) X(LAW, SURF, 1)
#define BR_CPU_EACH_LAW(X, LAW)                                                     \
    BR_CPU_EACH_SURF(X, LAW, BR_SURF_PLANE)                                         \
    BR_CPU_EACH_SURF(X, LAW, BR_SURF_SPHERE) BR_CPU_EACH_SURF(X, LAW, BR_SURF_CYLINDER)
/* BR_CPU_STD_EACH(X) likewise for the laws that also have loops with the usual exponents
 * (cpu_chunk_std below) */
#define BR_CPU_STD_EACH(X)                                                          \
    BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D) BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D_CLASSIC)   \
    BR_CPU_EACH_LAW(X, BR_LAW_DAHL3D) BR_CPU_EACH_LAW(X, BR_LAW_GKF)                \
    BR_CPU_EACH_LAW(X, BR_LAW_STATIC_REG) BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE2)       \
    BR_CPU_EACH_LAW(X, BR_LAW_JENKINS)
#define BR_CPU_EACH(X)                                                              \
    BR_CPU_STD_EACH(X)                                                              \
    BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE_IMPLICIT) BR_CPU_EACH_LAW(X, BR_LAW_GMS)

/* Each specialised chunk loop is a function of its own (cpu_chunk_LAW_SURF_REC), not inlined into
 * the dispatch: gcc optimizes a function as a whole, and with all 54 loops inlined into one
 * function it ran some of them through their scalar version (gkf and static_reg 7 times slower:
 * 1.7e7 against 1.3e8 updates/s on one thread; docs/performance.md). */
#define BR_CPU_CHUNK_FN(LAW, SURF, REC)                                                              \
    static __attribute__((noinline)) void cpu_chunk_##LAW##_##SURF##_##REC(                          \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.fric.slip_unsolved = 0; /* a constant: the stick passes' selects fold away */             \
        cpu_chunk(LAW, SURF, REC, &vm, fr, h, i0, i1, out);                                          \
    }
BR_CPU_EACH(BR_CPU_CHUNK_FN)

/* The exponents nearly every scenario uses (Hunt-Crossley pK = 2, pD = 0.5; Stribeck alpha = 2):
 * a set with them runs loops compiled with them as constants (cpu_chunkx_LAW_SURF_REC, the view's
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
/* NAME_LAW_SURF_REC: the loop with the usual exponents, its slip branch computed (SU 0) or left
 * NaN (SU 1: the stick passes below) */
#define BR_CPU_STD_FN(NAME, SU, LAW, SURF, REC)                                                      \
    static __attribute__((noinline)) void NAME##_##LAW##_##SURF##_##REC(                             \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.normal.pK = 2.0, vm.normal.pD = 0.5, vm.fric.alpha = 2.0, vm.fric.slip_unsolved = SU;     \
        cpu_chunk(LAW, SURF, REC, &vm, fr, h, i0, i1, out);                                          \
    }
#define BR_CPU_CHUNKX_FN(LAW, SURF, REC) BR_CPU_STD_FN(cpu_chunkx, 0, LAW, SURF, REC)
BR_CPU_STD_EACH(BR_CPU_CHUNKX_FN)
#define BR_CPU_STD(LAW, SURF, REC) cpu_chunkx_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out)

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

/* gms with its element count M a constant as well (cpu_chunk_gmsM_SURF_REC): the element loops
 * (BR_UNROLL_ELEMENTS) unroll and the point loop vectorizes; with M read at run time it runs the
 * scalar loop (gms, 4 elements, 1e6 points, one thread: 7.4e6 against 3.5e7 updates/s). The
 * tangent path keeps M at run time. */
#define BR_CPU_GMS_FN(M, SURF, REC)                                                                  \
    static __attribute__((noinline)) void cpu_chunk_gms##M##_##SURF##_##REC(                         \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.fric.gms_M = M;                                                                           \
        cpu_chunk(BR_LAW_GMS, SURF, REC, &vm, fr, h, i0, i1, out);                                   \
    }
#define BR_CPU_GMS_EACH_M(M)                                                                         \
    BR_CPU_GMS_FN(M, BR_SURF_PLANE, 0) BR_CPU_GMS_FN(M, BR_SURF_PLANE, 1)                            \
    BR_CPU_GMS_FN(M, BR_SURF_SPHERE, 0) BR_CPU_GMS_FN(M, BR_SURF_SPHERE, 1)                          \
    BR_CPU_GMS_FN(M, BR_SURF_CYLINDER, 0) BR_CPU_GMS_FN(M, BR_SURF_CYLINDER, 1)
BR_CPU_GMS_EACH_M(1) BR_CPU_GMS_EACH_M(2) BR_CPU_GMS_EACH_M(3) BR_CPU_GMS_EACH_M(4)
BR_CPU_GMS_EACH_M(5) BR_CPU_GMS_EACH_M(6) BR_CPU_GMS_EACH_M(7) BR_CPU_GMS_EACH_M(8)

#define BR_CPU_GMS_CALL(M, SURF, REC) cpu_chunk_gms##M##_##SURF##_##REC(v, fr, h, i0, i1, out)
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

#define BR_CPU_PLAIN(LAW, SURF, REC) cpu_chunk_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out)

static void cpu_chunk_law(const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1,
                          br_set_sums *out)
{
    if (v->law == BR_LAW_GMS && cpu_chunk_gms(v, fr, h, i0, i1, out)) return;
    if (cpu_chunk_std(v, fr, h, i0, i1, out)) return;
    BR_CPU_DISPATCH(BR_CPU_PLAIN, br_sums_zero(out))
}

/* Stick passes: a law's loop without its slip branch (a slipping point's force, and state, come
 * out NaN): bristle_implicit without its slip solve (cpu_chunk_bistick_SURF_REC), gkf and
 * static_reg without their sliding branch, with the usual exponents (cpu_chunkxs_LAW_SURF_REC). */
#define BR_CPU_BI_FN(SURF, REC)                                                                      \
    static __attribute__((noinline)) void cpu_chunk_bistick_##SURF##_##REC(                          \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.fric.slip_unsolved = 1;                                                                   \
        cpu_chunk(BR_LAW_BRISTLE_IMPLICIT, SURF, REC, &vm, fr, h, i0, i1, out);                      \
    }
BR_CPU_BI_FN(BR_SURF_PLANE, 0) BR_CPU_BI_FN(BR_SURF_PLANE, 1)
BR_CPU_BI_FN(BR_SURF_SPHERE, 0) BR_CPU_BI_FN(BR_SURF_SPHERE, 1)
BR_CPU_BI_FN(BR_SURF_CYLINDER, 0) BR_CPU_BI_FN(BR_SURF_CYLINDER, 1)
#define BR_CPU_CHUNKXS_FN(LAW, SURF, REC) BR_CPU_STD_FN(cpu_chunkxs, 1, LAW, SURF, REC)
BR_CPU_EACH_LAW(BR_CPU_CHUNKXS_FN, BR_LAW_GKF) BR_CPU_EACH_LAW(BR_CPU_CHUNKXS_FN, BR_LAW_STATIC_REG)

#define BR_CPU_BI_CALL(LAW, SURF, REC) cpu_chunk_bistick_##SURF##_##REC(v, fr, h, i0, i1, out)
#define BR_CPU_XS_CALL(LAW, SURF, REC) cpu_chunkxs_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out)

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

/* The terms one point (or lane) j of block b adds to its tangent sums, returned by value (no
 * addressable aggregate in a caller's simd loop body): the same expressions for the loops that
 * sum a block's points (cpu_tan_block_add) and those that add each lane to its own set
 * (cpu_tan_lanes_add). */
typedef struct cpu_t21 {
    double s[21];
} cpu_t21;
typedef struct cpu_t18 {
    double s[18];
} cpu_t18;

/* coefficient c (kn or cn), block b, point j -> c gn gn^T, upper triangle row by row (Kn, Cn) */
BR_HD cpu_t21 cpu_sym_terms(double c, const cpu_tan_block *b, long j)
{
    const double g0 = b->gn[0][j], g1 = b->gn[1][j], g2 = b->gn[2][j];
    const double g3 = b->gn[3][j], g4 = b->gn[4][j], g5 = b->gn[5][j];
    const double r0 = c * g0, r1 = c * g1, r2 = c * g2, r3 = c * g3, r4 = c * g4, r5 = c * g5;
    return (cpu_t21){{r0 * g0, r0 * g1, r0 * g2, r0 * g3, r0 * g4, r0 * g5, r1 * g1, r1 * g2, r1 * g3, r1 * g4,
                      r1 * g5, r2 * g2, r2 * g3, r2 * g4, r2 * g5, r3 * g3, r3 * g4, r3 * g5, r4 * g4, r4 * g5,
                      r5 * g5}};
}

/* block b, point j, first column c0 (0 or 3) -> s[6 c + r] = gj[r] gn[c0 + c], c = 0..2 (Kf) */
BR_HD cpu_t18 cpu_kf_terms(const cpu_tan_block *b, long j, int c0)
{
    const double n0 = b->gn[c0][j], n1 = b->gn[c0 + 1][j], n2 = b->gn[c0 + 2][j];
    const double a0 = b->gj[0][j], a1 = b->gj[1][j], a2 = b->gj[2][j];
    const double a3 = b->gj[3][j], a4 = b->gj[4][j], a5 = b->gj[5][j];
    return (cpu_t18){{a0 * n0, a1 * n0, a2 * n0, a3 * n0, a4 * n0, a5 * n0, a0 * n1, a1 * n1, a2 * n1, a3 * n1,
                      a4 * n1, a5 * n1, a0 * n2, a1 * n2, a2 * n2, a3 * n2, a4 * n2, a5 * n2}};
}

/* block b, point j, first column c0 (a constant after inlining) -> columns c0..c0+2 of its
 * G^T Jc G (br_tan_sandwich_col; the Cf term) */
BR_HD cpu_t18 cpu_sandwich3(const cpu_tan_block *b, long j, int c0)
{
    const double rw[3] = {b->rw[0][j], b->rw[1][j], b->rw[2][j]};
    double A[9];
    for (int k = 0; k < 9; k++) A[k] = b->Jc[k][j];
    cpu_t18 o;
    for (int c = 0; c < 3; c++) br_tan_sandwich_col(rw, A, c0 + c, o.s + 6 * c);
    return o;
}

/* c (kn or cn) of block b's m points -> out[q] += sum of c gn gn^T (cpu_sym_terms) */
BR_HD void cpu_tan_sym(const double *c, const cpu_tan_block *b, long m, double out[21])
{
    double BR_S21;
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = s16 = s17 = s18 =
        s19 = s20 = 0.0;
#pragma omp simd reduction(+ : BR_S21)
    for (long j = 0; j < m; j++) {
        const cpu_t21 t = cpu_sym_terms(c[j], b, j);
        s0 += t.s[0], s1 += t.s[1], s2 += t.s[2], s3 += t.s[3], s4 += t.s[4], s5 += t.s[5], s6 += t.s[6];
        s7 += t.s[7], s8 += t.s[8], s9 += t.s[9], s10 += t.s[10], s11 += t.s[11], s12 += t.s[12];
        s13 += t.s[13], s14 += t.s[14], s15 += t.s[15], s16 += t.s[16], s17 += t.s[17], s18 += t.s[18];
        s19 += t.s[19], s20 += t.s[20];
    }
    const double v[21] = {BR_S21};
    for (int q = 0; q < 21; q++) out[q] += v[q];
}

/* block b's m points, first column c0 (0 or 3), kind (0: Kf, cpu_kf_terms; 1: Cf, cpu_sandwich3)
 * -> out[q] += the sum of their terms */
BR_HD void cpu_tan_18(const cpu_tan_block *b, long m, int c0, int kind, double out[18])
{
    double BR_S18;
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = s16 = s17 = 0.0;
#pragma omp simd reduction(+ : BR_S18)
    for (long j = 0; j < m; j++) {
        const cpu_t18 g = kind ? cpu_sandwich3(b, j, c0) : cpu_kf_terms(b, j, c0);
        s0 += g.s[0], s1 += g.s[1], s2 += g.s[2], s3 += g.s[3], s4 += g.s[4], s5 += g.s[5];
        s6 += g.s[6], s7 += g.s[7], s8 += g.s[8], s9 += g.s[9], s10 += g.s[10], s11 += g.s[11];
        s12 += g.s[12], s13 += g.s[13], s14 += g.s[14], s15 += g.s[15], s16 += g.s[16], s17 += g.s[17];
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
    cpu_tan_18(b, m, 0, 0, T->Kf);
    cpu_tan_18(b, m, 3, 0, T->Kf + 18);
    cpu_tan_18(b, m, 0, 1, T->Cf);
    cpu_tan_18(b, m, 3, 1, T->Cf + 18);
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

/* the tangent chunk loops, one function each (as BR_CPU_CHUNK_FN) */
#define BR_CPU_TANGENT_FN(LAW, SURF, REC)                                                            \
    static __attribute__((noinline)) void cpu_chunk_tangent_##LAW##_##SURF##_##REC(                  \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out, \
        br_tangent_sums *tout)                                                                       \
    {                                                                                                \
        cpu_chunk_tangent(LAW, SURF, REC, v, fr, h, i0, i1, out, tout);                              \
    }
BR_CPU_EACH(BR_CPU_TANGENT_FN)

#define BR_CPU_TANGENT(LAW, SURF, REC) cpu_chunk_tangent_##LAW##_##SURF##_##REC(v, fr, h, i0, i1, out, tout)

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
    if (nchunks == 1) {
        cpu_chunk_any(v, fr, h, 0, partials, tpartials, pred);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long c = 0; c < nchunks; c++) cpu_chunk_any(v, fr, h, c, partials, tpartials, pred);
}

/* ---- small sets in lanes: sets of one chunk that share law, surface, point count, tangent and
 * parameters form a group, and one loop advances them together with a set in each SIMD lane
 * (point p of every set of the group, then p + 1, ...). The variants of a study are such sets, as
 * are the faces of one model that look alike (the S2 bundle's two contacts): lanes full of sets run
 * at the vectorized loop's rate where a set of 4 points alone would run the loop's scalar tail.
 * Each lane adds its points in point order into its own sums, so a set's results do not depend on
 * which or how many sets share its group (a study's variant equals its single run bit for bit).
 * The group owns its sets' geometry and states, interleaved [p][lane] (states [k][p][lane]);
 * cpu_sync_to_host and cpu_sync_from_host copy the states to and from the sets' views. ---- */

#define BR_LANES 16    /* lanes per block: its 120 tangent sums per lane stay in L1 (15 KiB) */
#define BR_FRAME_NF 30 /* doubles of a br_set_frame, in frame_store's order */

typedef struct cpu_group {
    int law, surf, tangent;
    long n;            /* points per set */
    long L;            /* lanes (sets) */
    int *set;          /* set of each lane */
    br_set_view view;  /* interleaved arrays (view.n = n L, the state stride), its sets' parameters */
    double *fs;        /* the sets' frames, BR_FRAME_NF x L (frame_store) */
    double *recF, *recN; /* per-point outputs [k][p][lane] while recording */
    double *block;     /* the one allocation behind all of the above arrays */
} cpu_group;

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

/* column j of the frame table -> *f, field by field (inside a simd loop: no aggregate copy) */
BR_HD void frame_load(br_set_frame *f, const double *restrict fs, long L, long j, int surface)
{
    f->xA[0] = fs[0 * L + j], f->xA[1] = fs[1 * L + j], f->xA[2] = fs[2 * L + j];
    for (int k = 0; k < 9; k++) f->RA[k] = fs[(3 + k) * L + j];
    for (int k = 0; k < 3; k++) f->c[k] = fs[(12 + k) * L + j], f->w[k] = fs[(15 + k) * L + j], f->n[k] = fs[(18 + k) * L + j];
    f->d = fs[21 * L + j];
    for (int k = 0; k < 3; k++) f->pc[k] = fs[(22 + k) * L + j], f->ax[k] = fs[(25 + k) * L + j];
    f->rad = fs[28 * L + j], f->Npt = fs[29 * L + j], f->surface = surface;
}

/* terms t (by value) of one lane j -> added to rows off.. of T (fully unrolled, so that the lane
 * loop around is a simple loop for the vectorizer) */
#define BR_LANE_TERMS(off, cnt, t)                                                                            \
    _Pragma("GCC unroll 21") for (int q = 0; q < (cnt); q++) T[(off) + q][j] += (t).s[q]

/* block b's m lanes -> each lane's tangent terms added to its own column of T (the offsets are
 * those of br_tangent_sums: Kf 0, Cf 36, Kn 72, Cn 93, Wd 114) */
static void cpu_tan_lanes_add(const cpu_tan_block *b, long m, double T[BR_TANGENT_N][BR_LANES])
{
#pragma GCC ivdep
    for (long j = 0; j < m; j++) BR_LANE_TERMS(72, 21, cpu_sym_terms(b->kn[j], b, j));
#pragma GCC ivdep
    for (long j = 0; j < m; j++) BR_LANE_TERMS(93, 21, cpu_sym_terms(b->cn[j], b, j));
#pragma GCC ivdep
    for (long j = 0; j < m; j++) BR_LANE_TERMS(0, 18, cpu_kf_terms(b, j, 0));
#pragma GCC ivdep
    for (long j = 0; j < m; j++) BR_LANE_TERMS(18, 18, cpu_kf_terms(b, j, 3));
#pragma GCC ivdep
    for (long j = 0; j < m; j++) BR_LANE_TERMS(36, 18, cpu_sandwich3(b, j, 0));
#pragma GCC ivdep
    for (long j = 0; j < m; j++) BR_LANE_TERMS(54, 18, cpu_sandwich3(b, j, 3));
#pragma GCC ivdep
    for (long j = 0; j < m; j++)
#pragma GCC unroll 6
        for (int q = 0; q < 6; q++) T[114 + q][j] += b->Nd[j] * b->gn[q][j];
}

/* The lane loops use `GCC ivdep`, not `omp simd`: lanes are independent iterations, and omp simd
 * would turn the per-lane frame (a local whose address the per-point code takes) into a per-lane
 * array in memory, which does not vectorize; without it gcc scalarizes the frame after inlining. */

/* point (or lane) contribution q -> added to lane j's sums S[.][j] (and its outputs when rec) */
#define BR_LANE_ADD(q)                                                                                        \
    do {                                                                                                      \
        S[0][j] += (q).F[0], S[1][j] += (q).F[1], S[2][j] += (q).F[2];                                        \
        S[3][j] += (q).Fc[0], S[4][j] += (q).Fc[1], S[5][j] += (q).Fc[2];                                     \
        S[6][j] += (q).Mc[0], S[7][j] += (q).Mc[1], S[8][j] += (q).Mc[2];                                     \
        S[9][j] += (q).Mf[0], S[10][j] += (q).Mf[1], S[11][j] += (q).Mf[2];                                   \
        S[12][j] += (q).N, S[13][j] += (q).P, S[14][j] += (q).E_el, S[15][j] += (q).P_nd, S[16][j] += (q).E_b; \
        S[17][j] += (q).ncontact, S[18][j] += (q).nstick;                                                     \
        const double pm_ = S[19][j], vm_ = S[20][j];                                                          \
        S[19][j] = (q).pen_max > pm_ ? (q).pen_max : pm_;                                                     \
        S[20][j] = (q).vt_max > vm_ ? (q).vt_max : vm_;                                                       \
        if (rec) {                                                                                            \
            gp->recF[(0 * n + p) * L + lane] = (q).F[0], gp->recF[(1 * n + p) * L + lane] = (q).F[1];         \
            gp->recF[(2 * n + p) * L + lane] = (q).F[2], gp->recN[p * L + lane] = (q).N;                      \
        }                                                                                                     \
    } while (0)

/* law, surface, tangent, rec (constants after inlining), group, h, lanes [j0, j0 + m) (m <= BR_LANES)
 * -> their sets' states advanced, sums in out[0..m) and tangent sums in tout[0..m) (tan), point
 * outputs in the group's recF, recN (rec) */
BR_HD void cpu_lanes(int law, int surf, int tan, int rec, const cpu_group *gp, double h, long j0, long m,
                     br_set_sums *out, br_tangent_sums *tout)
{
    const br_set_view vl = gp->view;
    const br_set_view *v = &vl;
    const long L = gp->L, n = gp->n;
    const double *fs = gp->fs;
    double S[BR_SUMS_NADD + 2][BR_LANES] = {{0.0}};
    double T[BR_TANGENT_N][BR_LANES];
    if (tan) memset(T, 0, sizeof T);
    _Alignas(64) cpu_tan_block blk;
    cpu_tan_block *b = &blk;
    for (long p = 0; p < n; p++) {
#pragma GCC ivdep
        for (long j = 0; j < m; j++) {
            const long lane = j0 + j, i = p * L + lane;
            br_set_frame f;
            frame_load(&f, fs, L, lane, surf);
            if (tan) {
                const br_point_tan_sums o = br_point_sums_tan(law, surf, v, &f, h, i);
                BR_LANE_ADD(o.q);
                for (int k = 0; k < 6; k++) b->gn[k][j] = o.p.gn[k], b->gj[k][j] = o.p.gj[k];
                for (int k = 0; k < 9; k++) b->Jc[k][j] = o.p.Jc[k];
                for (int k = 0; k < 3; k++) b->rw[k][j] = o.rw[k];
                b->kn[j] = o.kn, b->cn[j] = o.cn, b->Nd[j] = o.Nd;
            } else {
                const br_set_sums q = br_point_sums(law, surf, v, &f, h, i);
                BR_LANE_ADD(q);
            }
        }
        if (tan) cpu_tan_lanes_add(b, m, T);
    }
    for (long j = 0; j < m; j++) {
        double *o = (double *)&out[j];
        for (int k = 0; k < BR_SUMS_NADD + 2; k++) o[k] = S[k][j];
        if (tan) {
            double *t = (double *)&tout[j];
            for (int k = 0; k < BR_TANGENT_N; k++) t[k] = T[k][j];
        }
    }
}

/* the lane loops, one function per law, surface and recording flag (as BR_CPU_CHUNK_FN; gms sets
 * are never grouped) */
#define BR_CPU_LANES_FN(LAW, SURF, REC)                                                                       \
    static __attribute__((noinline)) void cpu_lanes_##LAW##_##SURF##_##REC(                                   \
        int tan, const cpu_group *gp, double h, long j0, long m, br_set_sums *out, br_tangent_sums *tout)     \
    {                                                                                                         \
        if (tan) cpu_lanes(LAW, SURF, 1, REC, gp, h, j0, m, out, tout);                                       \
        else cpu_lanes(LAW, SURF, 0, REC, gp, h, j0, m, out, tout);                                           \
    }
#define BR_CPU_LANES_EACH(X)                                                                                  \
    BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D) BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D_CLASSIC)                             \
    BR_CPU_EACH_LAW(X, BR_LAW_DAHL3D) BR_CPU_EACH_LAW(X, BR_LAW_GKF)                                          \
    BR_CPU_EACH_LAW(X, BR_LAW_STATIC_REG) BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE2)                                 \
    BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE_IMPLICIT) BR_CPU_EACH_LAW(X, BR_LAW_JENKINS)
BR_CPU_LANES_EACH(BR_CPU_LANES_FN)

#define BR_CPU_LANES(LAW, SURF, REC) cpu_lanes_##LAW##_##SURF##_##REC(tan, gp, h, j0, m, out, tout)

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
        if (cb->grouped[s] >= 0 || fs->npartial != 1 || fs->view.n < 1 || fs->view.law == BR_LAW_GMS) continue;
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
    if (cb->nblock > 1) {
#pragma omp parallel for schedule(static)
        for (long k = 0; k < cb->nblock; k++) cpu_block(f, cb, k, h, sums, tans);
    } else if (cb->nblock == 1) cpu_block(f, cb, 0, h, sums, tans);
    for (int s = 0; s < f->nsets; s++) {
        if (cb->grouped[s] >= 0) continue;
        br_field_set *fs = &f->sets[s];
        br_set_view v = fs->view;
        if (!f->record) v.outF = v.outN = NULL;
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
