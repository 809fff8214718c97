/* bench.c: `bristle bench field`: contact-point updates per second of the
 * fused field step on the synthetic patch (patch.h), in its stick and its slip
 * regime timed apart, the bytes each update moves (counted from the arrays the
 * step reads and writes), the bandwidth that implies next to a copy bandwidth
 * measured in the same run, the peak vector rates of the same run (FMA,
 * divide, square root), and the speed of two simpler implementations: the
 * plain single-loop peer (benchmarks/plain_loop.c) and the unfused
 * array-of-structs baseline (benchmarks/baseline_aos.c). `--law all` prints
 * one table over every law (docs/performance.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli/bench.h"
#include "cli/bench_copy.h"
#include "cli/bench_structure.h"

#include <math.h>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/baseline_aos.h"
#include "benchmarks/plain_loop.h"
#include "field/field_internal.h" /* BR_CPU_CHUNK */
#include "base/outdir.h" /* br_wall_seconds */
#include "base/parse.h"
#include "field/patch.h"
#ifdef BRISTLE_HAVE_CUDA
#include "kernels/field_cuda.h"
#endif

/* ---- peak vector rates of this machine, measured in the same run ---- */
#if defined(__AVX512F__)
typedef __m512d bv;
#define BV_W 8
#define bv_set1 _mm512_set1_pd
#define bv_fma _mm512_fmadd_pd
#define bv_div _mm512_div_pd
#define bv_sqrt _mm512_sqrt_pd
#define bv_add _mm512_add_pd
#define bv_mul _mm512_mul_pd
#define bv_first(x) _mm512_cvtsd_f64(x)
#define BV_NAME "AVX-512, 8 doubles"
#elif defined(__AVX2__) && defined(__FMA__)
typedef __m256d bv;
#define BV_W 4
#define bv_set1 _mm256_set1_pd
#define bv_fma _mm256_fmadd_pd
#define bv_div _mm256_div_pd
#define bv_sqrt _mm256_sqrt_pd
#define bv_add _mm256_add_pd
#define bv_mul _mm256_mul_pd
#define bv_first(x) _mm256_cvtsd_f64(x)
#define BV_NAME "AVX2, 4 doubles"
#else
typedef double bv;
#define BV_W 1
#define bv_set1(x) (x)
#define bv_fma(a, b, c) fma(a, b, c)
#define bv_div(a, b) ((a) / (b))
#define bv_sqrt(a) sqrt(a)
#define bv_add(a, b) ((a) + (b))
#define bv_mul(a, b) ((a) * (b))
#define bv_first(x) (x)
#define BV_NAME "scalar"
#endif
#define BV_CHAINS 12 /* independent chains: enough to cover each unit's latency */

/* kind (0: FMA, 1: divide, 2: square root, 3: an add and a multiply, separate chains),
 * iterations -> one thread's chains run; their sum */
static double peak_loop(int kind, long iters)
{
    bv acc[BV_CHAINS], acc2[BV_CHAINS];
    for (int k = 0; k < BV_CHAINS; k++) acc[k] = bv_set1(1.0 + 1e-3 * k), acc2[k] = bv_set1(2.0 + 1e-3 * k);
    const bv m = bv_set1(0.999999999), a = bv_set1(1e-9), c = bv_set1(1.000000001);
    for (long r = 0; r < iters; r++) {
        if (kind == 0)
            for (int k = 0; k < BV_CHAINS; k++) acc[k] = bv_fma(acc[k], m, a);
        else if (kind == 1)
            for (int k = 0; k < BV_CHAINS; k++) acc[k] = bv_div(c, acc[k]);
        else if (kind == 2)
            for (int k = 0; k < BV_CHAINS; k++) acc[k] = bv_sqrt(acc[k]);
        else
            for (int k = 0; k < BV_CHAINS; k++) acc[k] = bv_mul(acc[k], m), acc2[k] = bv_add(acc2[k], a);
    }
    bv s = acc[0];
    for (int k = 1; k < BV_CHAINS; k++) s = bv_add(s, acc[k]);
    for (int k = 0; k < BV_CHAINS && kind == 3; k++) s = bv_add(s, acc2[k]);
    return bv_first(s);
}

/* kind, threads -> double-precision operations per second of that kind on all threads (an FMA
 * counted as 2 flops; kind 3: adds and multiplies together), best of 3 */
static double peak_rate(int kind, int nthreads)
{
    const long iters = kind == 0 || kind == 3 ? 4000000 : 400000;
    double best = 1e300, sink = 0.0;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = br_wall_seconds();
#pragma omp parallel num_threads(nthreads) reduction(+ : sink)
        sink += peak_loop(kind, iters);
        const double t = br_wall_seconds() - t0;
        if (t < best) best = t;
    }
    volatile double keep = sink;
    (void)keep;
    return (kind == 0 || kind == 3 ? 2.0 : 1.0) * BV_W * BV_CHAINS * (double)iters * nthreads / best;
}

/* ---- the two regimes of the patch (patch.h) ---- */
/* stick: t in [0, 5e-4] s, where the carrier's sliding speed (at most 6.3e-5 m/s) and the spin's
 * rim speed stay below v_stick = 1e-4 m/s; slip: t in [0.02, 0.04] s, sliding at 1.2 to 2 mm/s
 * (above the Stribeck speed 1 mm/s). Each phase's step is the asked one or less, so that its steps
 * stay inside its window. The field gets to t = 0.02 s in 40 untimed steps (every law's update is
 * stable at any step: the exponential update, the implicit laws). */
#define BENCH_T_STICK 5e-4
#define BENCH_T_SLIP 0.02
#define BENCH_T_SLIP_SPAN 0.02
#define BENCH_TRAVEL 40

/* The floating-point operations one point update needs by its formula (plane surface, no
 * recording, the patch's parameters; counted from the kernels/ headers, not from compiled code:
 * docs/flop-counts.md): add (and subtract) and mul not fused, fused multiply-adds (br_fma), div,
 * sqrt, in the stick and in the slip regime (the branch each takes there). bristle_implicit's slip
 * regime: its slip solve's BR_SLIP_ITER Newton steps, the fixed count its formula runs (a loop
 * that stopped each point at its own convergence would need 3.1 on average here:
 * docs/flop-counts.md). The fma counts agree with the compiled loops' vfmadd per point. */
typedef struct bench_ops {
    double add, mul, fma, div, sqrt;
} bench_ops;
static const bench_ops bench_law_ops[BR_LAW_COUNT][2] = {
    [BR_LAW_LUGRE3D] = {{51, 67, 56, 2, 2}, {51, 67, 56, 2, 2}},
    [BR_LAW_LUGRE3D_CLASSIC] = {{52, 65, 56, 2, 2}, {52, 65, 56, 2, 2}},
    [BR_LAW_DAHL3D] = {{40, 52, 39, 1, 2}, {40, 52, 39, 1, 2}},
    [BR_LAW_GKF] = {{28, 34, 21, 0, 2}, {31, 40, 38, 1, 2}},
    [BR_LAW_STATIC_REG] = {{29, 37, 21, 1, 2}, {32, 41, 38, 1, 2}},
    [BR_LAW_BRISTLE2] = {{86, 92, 29, 10, 5}, {88, 102, 62, 9, 4}}, /* 9 states: + g, the frame, q - R */
    [BR_LAW_BRISTLE_IMPLICIT] = {{46, 56, 25, 0, 3},
                                 {52 + 7 * BR_SLIP_ITER, 65 + 11 * BR_SLIP_ITER, 25 + 16 * BR_SLIP_ITER, 3 + BR_SLIP_ITER, 3}},
    [BR_LAW_GMS] = {{79, 100, 56, 0, 6}, {115, 156, 120, 9, 6}},
    [BR_LAW_JENKINS] = {{50, 66, 27, 1, 4}, {50, 67, 27, 2, 4}},
};

/* operation counts, peak rates (FMA flops/s, divides/s, square roots/s, adds and multiplies/s)
 * -> the compute ceiling in updates/s: adds, multiplies and fused multiply-adds each one vector
 * instruction at the rate of a loop of independent adds and multiplies (every law's formula has
 * about as many of one as of the other; where adds have pipes of their own, as on AMD's cores,
 * this is twice the FMA slot rate), divides and square roots at the divider's; the slower of the
 * two bounds (they run on different units). Compares, selects, loads and stores are not counted:
 * the ceiling lies above what the loop's every instruction allows */
static double bench_compute_ceiling(const bench_ops *o, const double pk[4])
{
    const double t_arith = (o->add + o->mul + o->fma) / pk[3];
    const double t_div = o->div / pk[1] + o->sqrt / pk[2];
    return 1.0 / fmax(t_arith, t_div);
}

/* law -> the fraction of the copy bandwidth issue 20 asks of it (stateless 50 %, three states
 * 40 %, bristle2 and gms 25 %) */
static double bench_target_fraction(int law)
{
    if (law == BR_LAW_GKF || law == BR_LAW_STATIC_REG) return 0.5;
    if (law == BR_LAW_BRISTLE2 || law == BR_LAW_GMS) return 0.25;
    return 0.4;
}

/* one implementation being timed: the field or the plain loop */
typedef struct bench_stepper {
    br_field *f;        /* the field, or NULL */
    br_plain *plain;    /* the plain loop */
    const br_contact_set_desc *desc;
    long ncontact, nstick; /* of the last step */
    double N, F;           /* total normal force, |friction force| of the last step */
} bench_stepper;

/* stepper, t, h -> one step from the patch's frames at t; 0 or -1 with err */
static int bench_step(bench_stepper *s, double t, double h, char *err, size_t errlen)
{
    br_frame_state fr[2];
    br_patch_frames(t, fr);
    if (s->f) {
        br_set_result res;
        if (br_field_step(s->f, fr, NULL, h, &res, err, errlen)) return -1;
        s->ncontact = res.ncontact, s->nstick = res.nstick, s->N = res.N, s->F = br_norm3(res.Ff_A);
        return 0;
    }
    br_set_frame sf;
    br_set_sums sums;
    br_set_frame_build(s->desc, &fr[1], &fr[0], &sf);
    br_plain_step(s->plain, &sf, h, &sums);
    s->ncontact = (long)sums.ncontact, s->nstick = (long)sums.nstick, s->N = sums.N, s->F = br_norm3(sums.F);
    return 0;
}

/* stepper, start time, h, steps -> 3 untimed steps, then the seconds of the next `steps`; -1 on
 * error */
static double bench_phase(bench_stepper *s, double t0, double h, long steps, char *err, size_t errlen)
{
    for (long k = 0; k < 3; k++)
        if (bench_step(s, t0 + (double)k * h, h, err, errlen)) return -1.0;
    const double c0 = br_wall_seconds();
    for (long k = 0; k < steps; k++)
        if (bench_step(s, t0 + (double)(k + 3) * h, h, err, errlen)) return -1.0;
    return br_wall_seconds() - c0;
}

/* what one law's benchmark found */
typedef struct bench_law {
    int law;
    double bytes;            /* moved per update */
    double mem;              /* field memory per point */
    double ups[2];           /* field updates/s: stick, slip */
    double stuck[2];         /* stuck fraction of the points in contact, last step of each phase */
    double plain[2];         /* the plain loop's updates/s */
    double copy;             /* copy bandwidth GB/s, same run (-1: not measured) */
    double base;             /* AoS baseline updates/s (0: not run) */
    double N, F;             /* last slip step: total normal force, |friction force| */
} bench_law;

/* stepper, n, asked step dt, steps -> the stick and slip rates in ups, stuck fractions in stuck
 * (each phase's step kept inside its window); 0 or -1 with err */
static int bench_regimes(bench_stepper *s, long n, double dt, long steps, double ups[2], double stuck[2],
                         char *err, size_t errlen)
{
    const double hs = fmin(dt, BENCH_T_STICK / (double)(steps + 3));
    const double hp = fmin(dt, BENCH_T_SLIP_SPAN / (double)(steps + 3));
    double t = bench_phase(s, 0.0, hs, steps, err, errlen);
    if (t < 0) return -1;
    ups[0] = (double)n * (double)steps / t;
    stuck[0] = s->ncontact ? (double)s->nstick / (double)s->ncontact : 0.0;
    double tc = (double)(steps + 3) * hs;
    const double hj = (BENCH_T_SLIP - tc) / BENCH_TRAVEL;
    for (int k = 0; k < BENCH_TRAVEL; k++, tc += hj)
        if (bench_step(s, tc, hj, err, errlen)) return -1;
    t = bench_phase(s, BENCH_T_SLIP, hp, steps, err, errlen);
    if (t < 0) return -1;
    ups[1] = (double)n * (double)steps / t;
    stuck[1] = s->ncontact ? (double)s->nstick / (double)s->ncontact : 0.0;
    return 0;
}

typedef struct bench_opts {
    long n, steps, plain_steps;
    double dt;
    int baseline, tangent, plain;
    br_backend_kind backend;
} bench_opts;

/* options, law -> its figures in *r; the field's backend name in backend; 0, 1 (failed: message
 * printed) */
static int bench_one(const bench_opts *o, int law, bench_law *r, char *backend, size_t blen, char *device,
                     size_t dlen)
{
    memset(r, 0, sizeof *r);
    r->law = law;
    br_patch patch;
    if (br_patch_make(&patch, o->n, law, 12345)) {
        fprintf(stderr, "bristle bench: out of memory\n");
        return 1;
    }
    patch.desc.tangent = o->tangent;
    char err[512];
    br_field *f = br_field_create(&patch.desc, 1, o->backend, err, sizeof err);
    if (!f) {
        fprintf(stderr, "bristle bench: %s\n", err);
        br_patch_free(&patch);
        return 1;
    }
    snprintf(backend, blen, "%s", br_field_backend_name(f));
    snprintf(device, dlen, "%s", br_field_device_name(f));
    const int cuda = !strcmp(backend, "cuda");
    bench_stepper s = {f, NULL, &patch.desc, 0, 0, 0, 0};
    int rc = bench_regimes(&s, o->n, o->dt, o->steps, r->ups, r->stuck, err, sizeof err);
    r->N = s.N, r->F = s.F;
    /* bytes each point update must move: geometry and K, D read; state read and written */
    const int ns = br_law_nstate(law, &patch.desc.fric);
    r->bytes = 8.0 * (3 + 2 + 2 * ns);
    r->mem = (double)br_field_bytes(f) / (double)o->n;
    br_field_destroy(f);
    if (rc) {
        fprintf(stderr, "bristle bench: %s: %s\n", br_law_name(law), err);
        br_patch_free(&patch);
        return 1;
    }
    const size_t copy_bytes = (size_t)(r->bytes * (double)o->n / 2.0) + 4096;
    snprintf(err, sizeof err, "out of memory");
#ifdef BRISTLE_HAVE_CUDA
    if (cuda) r->copy = br_cuda_copy_bandwidth(copy_bytes, 20, err, sizeof err);
    else
#endif
        r->copy = br_bench_cpu_copy(copy_bytes, 20, o->n > BR_CPU_CHUNK);
    if (r->copy < 0) /* the figures without it stand; the comparison is left out */
        fprintf(stderr, "bristle bench: warning: no copy bandwidth measured (%s)\n", err);
    /* the plain single-loop peer on the same patch, the same threads, the same two regimes (a CPU
     * loop: not run against the GPU) */
    if (o->plain && !o->tangent && !cuda) {
        s = (bench_stepper){NULL, br_plain_create(&patch.desc), &patch.desc, 0, 0, 0, 0};
        if (!s.plain) {
            fprintf(stderr, "bristle bench: out of memory\n");
            br_patch_free(&patch);
            return 1;
        }
        double st[2];
        rc = bench_regimes(&s, o->n, o->dt, o->plain_steps, r->plain, st, err, sizeof err);
        br_plain_destroy(s.plain);
        if (rc) {
            fprintf(stderr, "bristle bench: plain loop: %s\n", err);
            br_patch_free(&patch);
            return 1;
        }
    }
    /* the unfused array-of-structs baseline: one thread, slip regime, at most 20 steps */
    if (o->baseline) {
        br_baseline *b = br_baseline_create(&patch.desc);
        if (!b) {
            fprintf(stderr, "bristle bench: out of memory\n");
            br_patch_free(&patch);
            return 1;
        }
        br_set_frame sf;
        br_set_sums sums;
        br_frame_state fr[2];
        const long bsteps = o->steps < 20 ? o->steps : 20;
        for (long k = 0; k < 3; k++) {
            br_patch_frames(BENCH_T_SLIP + (double)k * o->dt, fr);
            br_set_frame_build(&patch.desc, &fr[1], &fr[0], &sf);
            br_baseline_step(b, &sf, o->dt, &sums);
        }
        const double t0 = br_wall_seconds();
        for (long k = 0; k < bsteps; k++) {
            br_patch_frames(BENCH_T_SLIP + (double)(k + 3) * o->dt, fr);
            br_set_frame_build(&patch.desc, &fr[1], &fr[0], &sf);
            br_baseline_step(b, &sf, o->dt, &sums);
        }
        r->base = (double)o->n * (double)bsteps / (br_wall_seconds() - t0);
        br_baseline_destroy(b);
    }
    br_patch_free(&patch);
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: bristle bench structure ... (bristle bench structure --help)\n"
            "       bristle bench field [--points N] [--steps S] [--backend auto|cpu|cuda]\n"
            "                           [--law NAME|all] [--threads T] [--dt H] [--plain-steps P]\n"
            "                           [--no-plain] [--no-baseline] [--tangent]\n"
            "  Times the stick and the slip regime of a synthetic patch apart (S steps each).\n"
            "  --law all      one table over every law (without the AoS baseline)\n"
            "  --plain-steps  steps per regime of the plain single-loop peer (default min(S, 20))\n"
            "  --tangent      every step also reduces the set's wrench tangent (the implicit coupling's path)\n");
    return 2;
}

static int bench_field(int argc, char **argv)
{
    bench_opts o = {100000, 200, -1, 1e-5, 1, 0, 1, BR_BACKEND_CPU};
    int threads = 0;
    const char *law_name = "lugre3d";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-baseline")) {
            o.baseline = 0;
            continue;
        }
        if (!strcmp(a, "--no-plain")) {
            o.plain = 0;
            continue;
        }
        if (!strcmp(a, "--tangent")) {
            o.tangent = 1;
            continue;
        }
        if (!v) return usage();
        i++;
        long th = 0;
        if (!strcmp(a, "--points")) {
            if (br_arg_long("bench", a, v, 1, 1L << 31, &o.n)) return 2;
        } else if (!strcmp(a, "--steps")) {
            if (br_arg_long("bench", a, v, 1, 1L << 40, &o.steps)) return 2;
        } else if (!strcmp(a, "--plain-steps")) {
            if (br_arg_long("bench", a, v, 1, 1L << 40, &o.plain_steps)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (br_arg_long("bench", a, v, 0, 4096, &th)) return 2;
            threads = (int)th;
        } else if (!strcmp(a, "--dt")) {
            if (br_arg_double("bench", a, v, 1e-300, 1e6, &o.dt)) return 2;
        } else if (!strcmp(a, "--law")) law_name = v;
        else if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "cpu")) o.backend = BR_BACKEND_CPU;
            else if (!strcmp(v, "cuda")) o.backend = BR_BACKEND_CUDA;
            else if (!strcmp(v, "auto")) o.backend = BR_BACKEND_AUTO;
            else return usage();
        } else return usage();
    }
    const int all = !strcmp(law_name, "all");
    const int law0 = all ? -1 : br_law_from_name(law_name);
    if (!all && law0 < 0) {
        fprintf(stderr, "bristle bench: --law needs a law's name or all (unknown law '%s')\n", law_name);
        return 2;
    }
    if (o.plain_steps < 0) o.plain_steps = o.steps < 20 ? o.steps : 20;
    if (all) o.baseline = 0;
    if (threads > 0) omp_set_num_threads(threads);
    const int nthreads = omp_get_max_threads();
    const double pk[4] = {peak_rate(0, nthreads), peak_rate(1, nthreads), peak_rate(2, nthreads),
                          peak_rate(3, nthreads)};
    char backend[32] = "", device[128] = "";
    bench_law r[BR_LAW_COUNT];
    int nl = 0;
    for (int law = all ? 0 : law0; law < (all ? BR_LAW_COUNT : law0 + 1); law++) {
        if (bench_one(&o, law, &r[nl], backend, sizeof backend, device, sizeof device)) return 1;
        nl++;
    }
    const int cuda = !strcmp(backend, "cuda");
    printf("bristle bench field: %s, %ld points, %ld steps per regime (stick: t from 0, dt %.3g s; slip: t from "
           "%g s, dt %.3g s)%s\n",
           all ? "every law" : law_name, o.n, o.steps, fmin(o.dt, BENCH_T_STICK / (double)(o.steps + 3)),
           BENCH_T_SLIP, fmin(o.dt, BENCH_T_SLIP_SPAN / (double)(o.steps + 3)),
           o.tangent ? ", with the wrench tangent" : "");
    printf("  backend                 %s (%s)\n", backend, device);
    if (!cuda) printf("  threads                 %d\n", nthreads);
    printf("  peak rates (same run)   %.1f GFLOP/s FMA, %.1f G adds + multiplies/s, %.2f G divides/s, %.2f G square "
           "roots/s (%sCPU, %s, %d threads)\n",
           1e-9 * pk[0], 1e-9 * pk[3], 1e-9 * pk[1], 1e-9 * pk[2], cuda ? "the host " : "", BV_NAME, nthreads);
    if (!all) {
        const bench_law *b = &r[0];
        const int ns = (int)((b->bytes / 8.0 - 5) / 2);
        printf("  field memory            %.1f B/point (%.1f MiB)\n", b->mem, b->mem * (double)o.n / 1048576.0);
        printf("  bytes moved per update  %.0f B (geometry 24, K and D 16, state %d read + %d written)\n", b->bytes,
               8 * ns, 8 * ns);
        if (b->copy >= 0) printf("  copy bandwidth          %.2f GB/s (same run)\n", b->copy);
        else printf("  copy bandwidth          not measured\n");
        char c0[40], c1[40];
        printf("  %-24s%-16s%s\n", "", "stick", "slip");
        snprintf(c0, sizeof c0, "%.1f %%", 100.0 * b->stuck[0]), snprintf(c1, sizeof c1, "%.1f %%", 100.0 * b->stuck[1]);
        printf("  %-24s%-16s%s\n", "stuck fraction", c0, c1);
        snprintf(c0, sizeof c0, "%.3e", b->ups[0]), snprintf(c1, sizeof c1, "%.3e", b->ups[1]);
        printf("  %-24s%-16s%s\n", "point updates/s", c0, c1);
        snprintf(c0, sizeof c0, "%.2f GB/s", b->bytes * b->ups[0] / 1e9);
        snprintf(c1, sizeof c1, "%.2f GB/s", b->bytes * b->ups[1] / 1e9);
        printf("  %-24s%-16s%s\n", "achieved bandwidth", c0, c1);
        if (b->copy >= 0) {
            snprintf(c0, sizeof c0, "%.1f %%", 100.0 * b->bytes * b->ups[0] / 1e9 / b->copy);
            snprintf(c1, sizeof c1, "%.1f %%", 100.0 * b->bytes * b->ups[1] / 1e9 / b->copy);
            printf("  %-24s%-16s%s\n", "fraction of copy", c0, c1);
        }
        if (b->plain[1] > 0) {
            snprintf(c0, sizeof c0, "%.3e", b->plain[0]), snprintf(c1, sizeof c1, "%.3e", b->plain[1]);
            printf("  %-24s%-16s%s   (benchmarks/plain_loop.c, %ld steps)\n", "plain loop updates/s", c0, c1,
                   o.plain_steps);
            snprintf(c0, sizeof c0, "%.2fx", b->ups[0] / b->plain[0]), snprintf(c1, sizeof c1, "%.2fx", b->ups[1] / b->plain[1]);
            printf("  %-24s%-16s%s\n", "field / plain loop", c0, c1);
        }
        printf("  last step: N = %.6g N, |F| = %.6g N\n", b->N, b->F);
        if (b->base > 0)
            printf("  baseline (AoS, unfused, 1 thread, slip): %.3e updates/s; field is %.2fx faster\n", b->base,
                   b->ups[1] / b->base);
    } else {
        printf("\nCeilings per law: memory = copy bandwidth / bytes per update; compute = the formula's operations\n"
               "at the peak rates above, a fused multiply-add one instruction and two flops (docs/performance.md); of\n"
               "ceiling: against the lower of the two (issue 54). Target: the issue-20 fraction of the copy bandwidth,\n"
               "or 50 %% of the compute ceiling where that lies lower. The ceiling counting every instruction of the\n"
               "compiled loops, compares, selects, moves, loads and stores included: benchmarks/loop-ceiling.py.\n\n");
        printf("| law | B/update | copy GB/s | regime | stuck | updates/s | GB/s | of copy | flops/update (div, sqrt) "
               "| compute ceiling | memory ceiling | of ceiling | target | of target | plain loop | field / plain |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int k = 0; k < nl; k++) {
            const bench_law *b = &r[k];
            for (int j = 0; j < 2; j++) {
                const bench_ops *op = &bench_law_ops[b->law][j];
                /* the compute ceiling is the CPU's (not for a GPU run); "-": not measured */
                const double cc = cuda ? NAN : bench_compute_ceiling(op, pk);
                const double mc = b->copy > 0 ? 1e9 * b->copy / b->bytes : NAN;
                const double mt = bench_target_fraction(b->law) * mc;
                const int by_cc = cc < mt;
                const double target = by_cc ? 0.5 * cc : mt;
                char cp[24] = "-", fr[24] = "-", ccs[24] = "-", mcs[24] = "-", tg[40] = "-", of[24] = "-";
                char pl[24] = "-", sp[24] = "-", oc[24] = "-";
                const double lim = fmin(cc > 0 ? cc : INFINITY, mc > 0 ? mc : INFINITY);
                if (isfinite(lim)) snprintf(oc, sizeof oc, "%.0f %%", 100.0 * b->ups[j] / lim);
                if (b->copy > 0) {
                    snprintf(cp, sizeof cp, "%.1f", b->copy);
                    snprintf(fr, sizeof fr, "%.0f %%", 100.0 * b->bytes * b->ups[j] / 1e9 / b->copy);
                    snprintf(mcs, sizeof mcs, "%.3g", mc);
                }
                if (cc > 0) snprintf(ccs, sizeof ccs, "%.3g", cc);
                if (target > 0) {
                    snprintf(tg, sizeof tg, "%.3g%s", target, by_cc ? " (compute)" : "");
                    snprintf(of, sizeof of, "%.0f %%", 100.0 * b->ups[j] / target);
                }
                if (b->plain[j] > 0) {
                    snprintf(pl, sizeof pl, "%.3g", b->plain[j]);
                    snprintf(sp, sizeof sp, "%.1fx", b->ups[j] / b->plain[j]);
                }
                printf("| %s | %.0f | %s | %s | %.0f %% | %.3g | %.1f | %s | %.0f (%.0f, %.0f) | %s | %s | %s | %s | %s | "
                       "%s | %s |\n",
                       j ? "" : br_law_name(b->law), b->bytes, cp, j ? "slip" : "stick", 100.0 * b->stuck[j], b->ups[j],
                       b->bytes * b->ups[j] / 1e9, fr, op->add + op->mul + 2.0 * op->fma + op->div + op->sqrt, op->div,
                       op->sqrt, ccs, mcs, oc, tg, of, pl, sp);
            }
        }
        printf("\n");
    }
    /* one line per law for scripts: updates_per_s and bw_GBs are the slip regime's (before the
     * regimes were timed apart: a run from t = 0, mostly stick) */
    for (int k = 0; k < nl; k++) {
        const bench_law *b = &r[k];
        printf("RESULT backend=%s device=\"%s\" law=%s points=%ld steps=%ld threads=%d updates_per_s=%.4e "
               "bytes_per_update=%.0f bw_GBs=%.3f copy_GBs=%.3f mem_B_per_point=%.1f baseline_ups=%.4e tangent=%d "
               "stick_updates_per_s=%.4e stick_fraction=%.4f slip_stuck_fraction=%.4f plain_stick_ups=%.4e "
               "plain_slip_ups=%.4e peak_fma_GFLOPs=%.2f peak_div_G=%.3f peak_sqrt_G=%.3f peak_addmul_G=%.2f\n",
               backend, device, br_law_name(b->law), o.n, o.steps, cuda ? 0 : nthreads, b->ups[1], b->bytes,
               b->bytes * b->ups[1] / 1e9, b->copy, b->mem, b->base, o.tangent, b->ups[0], b->stuck[0], b->stuck[1],
               b->plain[0], b->plain[1], 1e-9 * pk[0], 1e-9 * pk[1], 1e-9 * pk[2], 1e-9 * pk[3]);
    }
    return 0;
}

int br_bench_main(int argc, char **argv)
{
    if (argc < 1) return usage();
    if (!strcmp(argv[0], "field")) return bench_field(argc - 1, argv + 1);
    if (!strcmp(argv[0], "structure")) return br_bench_structure(argc - 1, argv + 1);
    return usage();
}
