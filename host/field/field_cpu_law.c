/* field_cpu_law.c: the CPU backend's point loops for one friction law, each specialised for the
 * law, the counter surface and whether per-point outputs are recorded (and for the usual exponents,
 * or gms's element count), so that every switch inside br_point_step folds away and the loop body
 * is branch-free and vectorized. CMakeLists.txt compiles this file once per law, with BR_CPU_PART
 * 0 to 8 naming it (the table below): the laws' loops compile in parallel, and each law's build is
 * the same code as when they shared one file. field_cpu.c dispatches to them (field_cpu.h). */
#include <math.h>
#include <string.h>

#include "field/field_cpu.h"

/* BR_CPU_PART -> the law (BR_CPU_LAW) and which loop families it has: the usual exponents as
 * constants (STD), stick passes (XS: gkf, static_reg; BI: bristle_implicit), gms's element count
 * as a constant (GMS), lanes of small sets (LANES: every law but gms) */
#if BR_CPU_PART == 0
#define BR_CPU_LAW BR_LAW_LUGRE3D
#define BR_PART_STD 1
#elif BR_CPU_PART == 1
#define BR_CPU_LAW BR_LAW_LUGRE3D_CLASSIC
#define BR_PART_STD 1
#elif BR_CPU_PART == 2
#define BR_CPU_LAW BR_LAW_DAHL3D
#define BR_PART_STD 1
#elif BR_CPU_PART == 3
#define BR_CPU_LAW BR_LAW_GKF
#define BR_PART_STD 1
#define BR_PART_XS 1
#elif BR_CPU_PART == 4
#define BR_CPU_LAW BR_LAW_STATIC_REG
#define BR_PART_STD 1
#define BR_PART_XS 1
#elif BR_CPU_PART == 5
#define BR_CPU_LAW BR_LAW_BRISTLE2
#define BR_PART_STD 1
#elif BR_CPU_PART == 6
#define BR_CPU_LAW BR_LAW_BRISTLE_IMPLICIT
#define BR_PART_BI 1
#elif BR_CPU_PART == 7
#define BR_CPU_LAW BR_LAW_GMS
#define BR_PART_GMS 1
#elif BR_CPU_PART == 8
#define BR_CPU_LAW BR_LAW_JENKINS
#define BR_PART_STD 1
#else
#error "BR_CPU_PART must be 0 to 8 (CMakeLists.txt)"
#endif
#if BR_CPU_PART != 7
#define BR_PART_LANES 1
#endif

/* The type of the chunk loops' contact counts, which sets how many points gcc takes per vector
 * iteration: one vector of counts holds them, so 32-bit counts give 16 points on AVX-512 (two
 * independent chains of 8 doubles; on AVX2 8 points, two chains of 4), 16-bit counts 32 (four
 * chains; a chunk's counts are at most BR_CPU_CHUNK = 2048). The loops are bound by the latency of
 * one point's chain inside the core's out-of-order window, not by their instructions (llvm-mca on
 * the compiled loops, icelake-server: lugre3d 29.1 simulated against 13.1 port-bound cycles a
 * point; benchmarks/loop-ceiling.py), and more chains in flight hide more of it where the law's
 * chain is long: 16-bit for lugre3d, its classic form, gkf, static_reg and bristle_implicit (bench
 * field at 1e6 points, 2 threads, Xeon AVX-512: lugre3d 2.5-2.6e8 -> 2.8-3.2e8 updates/s,
 * bristle_implicit sliding 5.7e7 -> 6.0-6.1e7; docs/performance.md). dahl3d, bristle2, gms (0 to 6 %
 * gained) and jenkins (3 to 6 % slower) keep 32-bit counts, and with them a shorter compile (the
 * wider loops take 1.4 to 1.7 times as long: lugre3d's object 11.8 s -> 16.8 s). The counts are
 * exact either way; the sums' order within a chunk follows the vector width. */
#if BR_CPU_PART == 0 || BR_CPU_PART == 1 || BR_CPU_PART == 3 || BR_CPU_PART == 4 || BR_CPU_PART == 6
typedef short br_chunk_count;
#else
typedef int br_chunk_count;
#endif
_Static_assert(BR_CPU_CHUNK < 32768, "a chunk's contact counts must fit a 16-bit br_chunk_count");

/* The chunk loops' sums: named scalars, because an OpenMP simd reduction takes variables, not
 * struct members. BR_CHUNK_SUMS(COUNT) declares them, the counts of type COUNT (with local copies
 * of the view and frame: state stores cannot alias them, so a loop is not versioned),
 * BR_CHUNK_REDUCTION names them for `omp simd`, BR_CHUNK_ADD(q, i) records point i's force when
 * rec and adds its one-point sums q, BR_CHUNK_PACK packs them into a br_set_sums. */
#define BR_CHUNK_SUMS(COUNT)                                                                        \
    const br_set_view vl = *vp;                                                                     \
    const br_set_frame fl = *frp;                                                                   \
    const br_set_view *v = &vl;                                                                     \
    const br_set_frame *fr = &fl;                                                                   \
    double F0 = 0, F1 = 0, F2 = 0, C0 = 0, C1 = 0, C2 = 0, M0 = 0, M1 = 0, M2 = 0;                  \
    double m0 = 0, m1 = 0, m2 = 0, N = 0, P = 0, Eel = 0, Pnd = 0, Eb = 0;                          \
    double pen = 0, vt = 0;                                                                         \
    COUNT nc = 0, ns = 0 /* at most BR_CPU_CHUNK */
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
        nc += (__typeof__(nc))(q).ncontact, ns += (__typeof__(ns))(q).nstick;                       \
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
 * - the contact counts are integer sums (exact, as the 0/1 double sums were),
 *   br_chunk_count above: their lanes set the points per iteration, two or
 *   four independent chains, which hides part of the long exp -> divide ->
 *   expm1 latency chain of one point (two chains of 4: about 1.4x over one).
 * The chunk sums are OpenMP simd reductions whose order is fixed by the
 * compiled code (the same binary gives the same bits). */
BR_HD void cpu_chunk(int law, int surf, int rec, const br_set_view *vp, const br_set_frame *frp,
                     double h, long i0, long i1, br_set_sums *out)
{
    BR_CHUNK_SUMS(br_chunk_count);
#pragma omp simd BR_CHUNK_REDUCTION
    for (long i = i0; i < i1; i++) {
        const br_set_sums q = br_point_sums(law, surf, v, fr, h, i);
        BR_CHUNK_ADD(q, i);
    }
    *out = BR_CHUNK_PACK;
}

/* Each specialised chunk loop is a function of its own (br_cpu_chunk_LAW_SURF_REC), not inlined into
 * the dispatch: gcc optimizes a function as a whole, and with all 54 loops inlined into one
 * function it ran some of them through their scalar version (gkf and static_reg 7 times slower:
 * 1.7e7 against 1.3e8 updates/s on one thread; docs/performance.md). */
#define BR_CPU_CHUNK_FN(LAW, SURF, REC)                                                              \
    __attribute__((noinline)) void br_cpu_chunk_##LAW##_##SURF##_##REC(                              \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.fric.slip_unsolved = 0; /* a constant: the stick passes' selects fold away */             \
        cpu_chunk(LAW, SURF, REC, &vm, fr, h, i0, i1, out);                                          \
    }
BR_CPU_EACH_LAW(BR_CPU_CHUNK_FN, BR_CPU_LAW)

/* The usual exponents (Hunt-Crossley pK = 2, pD = 0.5; Stribeck alpha = 2) as constants: see
 * cpu_std_exponents in field_cpu.c. */
/* NAME_LAW_SURF_REC: the loop with the usual exponents, its slip branch computed (SU 0) or left
 * NaN (SU 1: the stick passes below) */
#define BR_CPU_STD_FN(NAME, SU, LAW, SURF, REC)                                                      \
    __attribute__((noinline)) void NAME##_##LAW##_##SURF##_##REC(                                    \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.normal.pK = 2.0, vm.normal.pD = 0.5, vm.fric.alpha = 2.0, vm.fric.slip_unsolved = SU;     \
        cpu_chunk(LAW, SURF, REC, &vm, fr, h, i0, i1, out);                                          \
    }
#define BR_CPU_CHUNKX_FN(LAW, SURF, REC) BR_CPU_STD_FN(br_cpu_chunkx, 0, LAW, SURF, REC)
#ifdef BR_PART_STD
BR_CPU_EACH_LAW(BR_CPU_CHUNKX_FN, BR_CPU_LAW)
#endif

#ifdef BR_PART_GMS
/* gms with its element count M a constant as well (cpu_chunk_gmsM_SURF_REC): the element loops
 * (BR_UNROLL_ELEMENTS) unroll and the point loop vectorizes; with M read at run time it runs the
 * scalar loop (gms, 4 elements, 1e6 points, one thread: 7.4e6 against 3.5e7 updates/s). The
 * tangent path keeps M at run time. */
#define BR_CPU_GMS_FN(M, SURF, REC)                                                                  \
    __attribute__((noinline)) void br_cpu_chunk_gms##M##_##SURF##_##REC(                             \
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
#endif

/* Stick passes: a law's loop without its slip branch (a slipping point's force, and state, come
 * out NaN): bristle_implicit without its slip solve (br_cpu_chunk_bistick_SURF_REC), gkf and
 * static_reg without their sliding branch, with the usual exponents (br_cpu_chunkxs_LAW_SURF_REC). */
#define BR_CPU_BI_FN(SURF, REC)                                                                      \
    __attribute__((noinline)) void br_cpu_chunk_bistick_##SURF##_##REC(                              \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out) \
    {                                                                                                \
        br_set_view vm = *v;                                                                         \
        vm.fric.slip_unsolved = 1;                                                                   \
        cpu_chunk(BR_LAW_BRISTLE_IMPLICIT, SURF, REC, &vm, fr, h, i0, i1, out);                      \
    }
#ifdef BR_PART_BI
BR_CPU_BI_FN(BR_SURF_PLANE, 0) BR_CPU_BI_FN(BR_SURF_PLANE, 1)
BR_CPU_BI_FN(BR_SURF_SPHERE, 0) BR_CPU_BI_FN(BR_SURF_SPHERE, 1)
BR_CPU_BI_FN(BR_SURF_CYLINDER, 0) BR_CPU_BI_FN(BR_SURF_CYLINDER, 1)
#endif
#define BR_CPU_CHUNKXS_FN(LAW, SURF, REC) BR_CPU_STD_FN(br_cpu_chunkxs, 1, LAW, SURF, REC)
#ifdef BR_PART_XS
BR_CPU_EACH_LAW(BR_CPU_CHUNKXS_FN, BR_CPU_LAW)
#endif

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
    BR_CHUNK_SUMS(int); /* 32-bit counts: with 16-bit ones lugre3d's tangent loop ran 8-13 % slower */
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
    __attribute__((noinline)) void br_cpu_chunk_tangent_##LAW##_##SURF##_##REC(                      \
        const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out, \
        br_tangent_sums *tout)                                                                       \
    {                                                                                                \
        cpu_chunk_tangent(LAW, SURF, REC, v, fr, h, i0, i1, out, tout);                              \
    }
BR_CPU_EACH_LAW(BR_CPU_TANGENT_FN, BR_CPU_LAW)

#ifdef BR_PART_LANES
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

/* Fewer lanes than a vector holds (m < BR_LANES_VEC: a set alone, the two sets of an S2 bundle, the last
 * lanes of a group) leave the lane loop below scalar: one set of 2048 lugre3d points (one chunk, so a
 * group of one) stepped at 1.2e7 updates/s on one thread, the plain C loop's rate, against 1.6e8 for 2100
 * points (two chunks, the vectorized chunk loop). cpu_lanes_small takes such lanes one at a time, its
 * points in blocks of BR_SMALL_PB vectorized over the points (the same per-point code at the lanes' stride
 * L), keeps each point's sums and tangent pieces, and adds them in point order as cpu_lanes adds them:
 * each lane's sums are its points' terms in point order either way, so the bits are cpu_lanes' (a study,
 * whose variants' sets fill the vectors, and each of its runs agree bitwise as before; test_field's
 * small_groups_are_bitwise_the_lane_loop). The 2048 points alone: 7.1e7 updates/s (the 2100 points'
 * chunk loop also takes the usual exponents as constants and reduces in vector lanes). */
#define BR_LANES_VEC 8
#define BR_SMALL_PB 32
/* ... and only with a vector's points at least: smaller sets keep the lane loop (the blocks' bookkeeping and the
 * tangent's per-point terms left no gain: chain_jenkins, two sets of one point, 300,000 steps in 2.14 s of CPU by
 * the lane loop, 2.33 s lane by lane; S2's sweep, two sets of four points, about even, perf) */
#define BR_SMALL_MIN_POINTS 8
/* Compiled for the plane (the meshes' and patches' counter surface) on steps that record no point outputs only:
 * in each of the twelve lane loops of a law it doubled the law's compile (lugre3d's object 16.9 -> 31.4 s, the
 * build's longest files); a sphere, a cylinder or a recording step takes the lane loop, the same bits. */
#define BR_SMALL_NQ (BR_SUMS_NADD + 2 + 27) /* a point's sums, then gn, gj, Jc, rw, kn, cn, Nd */

/* law, surface, tangent, rec (constants after inlining), group, view, lane's frame, h, lane, its stride L (1
 * a constant where the group is one set), points [p0, p1) -> their states advanced, sums and pieces in Q */
BR_HD void cpu_small_block(int law, int surf, int tan, int rec, const cpu_group *gp, const br_set_view *v,
                           const br_set_frame *fr, double h, long lane, long L, long p0, long p1,
                           double Q[BR_SMALL_NQ][BR_SMALL_PB])
{
    const long n = gp->n;
#pragma omp simd
    for (long p = p0; p < p1; p++) {
        const long i = p * L + lane, k = p - p0;
        br_set_sums q;
        if (tan) {
            const br_point_tan_sums o = br_point_sums_tan(law, surf, v, fr, h, i);
            q = o.q;
            for (int c = 0; c < 6; c++) Q[21 + c][k] = o.p.gn[c], Q[27 + c][k] = o.p.gj[c];
            for (int c = 0; c < 9; c++) Q[33 + c][k] = o.p.Jc[c];
            for (int c = 0; c < 3; c++) Q[42 + c][k] = o.rw[c];
            Q[45][k] = o.kn, Q[46][k] = o.cn, Q[47][k] = o.Nd;
        } else q = br_point_sums(law, surf, v, fr, h, i);
        Q[0][k] = q.F[0], Q[1][k] = q.F[1], Q[2][k] = q.F[2], Q[3][k] = q.Fc[0], Q[4][k] = q.Fc[1];
        Q[5][k] = q.Fc[2], Q[6][k] = q.Mc[0], Q[7][k] = q.Mc[1], Q[8][k] = q.Mc[2], Q[9][k] = q.Mf[0];
        Q[10][k] = q.Mf[1], Q[11][k] = q.Mf[2], Q[12][k] = q.N, Q[13][k] = q.P, Q[14][k] = q.E_el;
        Q[15][k] = q.P_nd, Q[16][k] = q.E_b, Q[17][k] = q.ncontact, Q[18][k] = q.nstick;
        Q[19][k] = q.pen_max, Q[20][k] = q.vt_max;
        if (rec) {
            gp->recF[(0 * n + p) * L + lane] = q.F[0], gp->recF[(1 * n + p) * L + lane] = q.F[1];
            gp->recF[(2 * n + p) * L + lane] = q.F[2], gp->recN[p * L + lane] = q.N;
        }
    }
}

/* as cpu_lanes (below), for m < BR_LANES_VEC lanes: lane by lane, blocks of points vectorized, their terms
 * added in point order */
BR_HD void cpu_lanes_small(int law, int surf, int tan, int rec, const cpu_group *gp, double h, long j0, long m,
                           br_set_sums *out, br_tangent_sums *tout)
{
    const br_set_view vl = gp->view;
    const long L = gp->L, n = gp->n;
    double Q[BR_SMALL_NQ][BR_SMALL_PB];
    double T[BR_TANGENT_N][BR_LANES]; /* column 0: this lane's (cpu_tan_lanes_add's layout) */
    _Alignas(64) cpu_tan_block blk;
    for (long j = 0; j < m; j++) {
        const long lane = j0 + j;
        br_set_frame fl;
        frame_load(&fl, gp->fs, L, lane, surf);
        double S[BR_SUMS_NADD + 2] = {0.0};
        if (tan) memset(T, 0, sizeof T);
        for (long p0 = 0; p0 < n; p0 += BR_SMALL_PB) {
            const long p1 = p0 + BR_SMALL_PB < n ? p0 + BR_SMALL_PB : n;
            if (L == 1) cpu_small_block(law, surf, tan, rec, gp, &vl, &fl, h, lane, 1, p0, p1, Q);
            else cpu_small_block(law, surf, tan, rec, gp, &vl, &fl, h, lane, L, p0, p1, Q);
            for (long k = 0; k < p1 - p0; k++) { /* cpu_lanes' BR_LANE_ADD and tangent terms, in point order */
#pragma GCC unroll 21 /* S in registers: 21 chains side by side */
                for (int c = 0; c < BR_SUMS_NADD; c++) S[c] += Q[c][k];
#pragma GCC unroll 2
                for (int c = BR_SUMS_NADD; c < BR_SUMS_NADD + 2; c++) S[c] = Q[c][k] > S[c] ? Q[c][k] : S[c];
                if (!tan) continue;
                for (int c = 0; c < 6; c++) blk.gn[c][0] = Q[21 + c][k], blk.gj[c][0] = Q[27 + c][k];
                for (int c = 0; c < 9; c++) blk.Jc[c][0] = Q[33 + c][k];
                for (int c = 0; c < 3; c++) blk.rw[c][0] = Q[42 + c][k];
                blk.kn[0] = Q[45][k], blk.cn[0] = Q[46][k], blk.Nd[0] = Q[47][k];
                cpu_tan_lanes_add(&blk, 1, T);
            }
        }
        double *o = (double *)&out[j];
        for (int c = 0; c < BR_SUMS_NADD + 2; c++) o[c] = S[c];
        if (tan) {
            double *t = (double *)&tout[j];
            for (int c = 0; c < BR_TANGENT_N; c++) t[c] = T[c][0];
        }
    }
}

/* law, surface, tangent, rec (constants after inlining), group, h, lanes [j0, j0 + m) (m <= BR_LANES)
 * -> their sets' states advanced, sums in out[0..m) and tangent sums in tout[0..m) (tan), point
 * outputs in the group's recF, recN (rec) */
BR_HD void cpu_lanes(int law, int surf, int tan, int rec, const cpu_group *gp, double h, long j0, long m,
                     br_set_sums *out, br_tangent_sums *tout)
{
    if (surf == BR_SURF_PLANE && !rec && m < BR_LANES_VEC && gp->n >= BR_SMALL_MIN_POINTS) {
        cpu_lanes_small(law, surf, tan, rec, gp, h, j0, m, out, tout);
        return;
    }
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
    __attribute__((noinline)) void br_cpu_lanes_##LAW##_##SURF##_##REC(                                       \
        int tan, const cpu_group *gp, double h, long j0, long m, br_set_sums *out, br_tangent_sums *tout)     \
    {                                                                                                         \
        if (tan) cpu_lanes(LAW, SURF, 1, REC, gp, h, j0, m, out, tout);                                       \
        else cpu_lanes(LAW, SURF, 0, REC, gp, h, j0, m, out, tout);                                           \
    }
BR_CPU_EACH_LAW(BR_CPU_LANES_FN, BR_CPU_LAW)
#endif
