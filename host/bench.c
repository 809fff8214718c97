/* bench.c: `bristle bench field`: contact-point updates per second of the
 * fused field step on the synthetic patch (patch.h), the bytes each update
 * moves (counted from the arrays the step reads and writes), the bandwidth
 * that implies next to a copy bandwidth measured in the same run, and the
 * speed of the unfused array-of-structs baseline (benchmarks/baseline_aos.c). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../benchmarks/baseline_aos.h"
#include "field_internal.h" /* BR_CPU_CHUNK */
#include "parse.h"
#include "patch.h"
#ifdef BRISTLE_HAVE_CUDA
#include "../kernels/field_cuda.h"
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* bytes per array, reps, threaded -> host copy bandwidth in GB/s (read + write), or -1 (out of
 * memory); threaded as the field is (a field of one chunk runs on the calling thread, so does its
 * copy) */
static double cpu_copy_bandwidth(size_t bytes, int reps, int threaded)
{
    size_t n = bytes / sizeof(double);
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    if (!a || !b) {
        free(a);
        free(b);
        return -1.0;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)i;
        b[i] = 0.0;
    }
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
#pragma omp parallel for schedule(static) if (threaded)
        for (size_t i = 0; i < n; i++) b[i] = a[i];
        double t = now() - t0;
        if (t < best) best = t;
    }
    volatile double sink = b[n / 2];
    (void)sink;
    free(a);
    free(b);
    return 2.0 * (double)(n * sizeof(double)) / best / 1e9;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: bristle bench field [--points N] [--steps S] [--backend auto|cpu|cuda]\n"
            "                           [--law NAME] [--threads T] [--dt H] [--no-baseline] [--tangent]\n"
            "  --tangent  every step also reduces the set's wrench tangent (the implicit coupling's path)\n");
    return 2;
}

static int bench_field(int argc, char **argv)
{
    long n = 100000, steps = 200;
    int threads = 0, baseline = 1, tangent = 0;
    double dt = 1e-5;
    const char *law_name = "lugre3d";
    br_backend_kind backend = BR_BACKEND_CPU;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-baseline")) {
            baseline = 0;
            continue;
        }
        if (!strcmp(a, "--tangent")) {
            tangent = 1;
            continue;
        }
        if (!v) return usage();
        i++;
        long th = 0;
        if (!strcmp(a, "--points")) {
            if (br_arg_long("bench", a, v, 1, 1L << 31, &n)) return 2;
        } else if (!strcmp(a, "--steps")) {
            if (br_arg_long("bench", a, v, 1, 1L << 40, &steps)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (br_arg_long("bench", a, v, 0, 4096, &th)) return 2;
            threads = (int)th;
        } else if (!strcmp(a, "--dt")) {
            if (br_arg_double("bench", a, v, 1e-300, 1e6, &dt)) return 2;
        } else if (!strcmp(a, "--law")) law_name = v;
        else if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "cpu")) backend = BR_BACKEND_CPU;
            else if (!strcmp(v, "cuda")) backend = BR_BACKEND_CUDA;
            else if (!strcmp(v, "auto")) backend = BR_BACKEND_AUTO;
            else return usage();
        } else return usage();
    }
    int law = br_law_from_name(law_name);
    if (law < 0 || n <= 0 || steps <= 0 || !(dt > 0.0)) {
        fprintf(stderr, "bristle bench: need a known law, --points > 0, --steps > 0, --dt > 0\n");
        return 2;
    }
    if (threads > 0) omp_set_num_threads(threads);

    br_patch patch;
    if (br_patch_make(&patch, n, law, 12345)) {
        fprintf(stderr, "bristle bench: out of memory\n");
        return 1;
    }
    patch.desc.tangent = tangent;
    char err[512];
    br_field *f = br_field_create(&patch.desc, 1, backend, err, sizeof err);
    if (!f) {
        fprintf(stderr, "bristle bench: %s\n", err);
        br_patch_free(&patch);
        return 1;
    }
    const int cuda = !strcmp(br_field_backend_name(f), "cuda");
    br_frame_state fr[2];
    br_set_result res;
    /* warm-up: first touch, caches, GPU clocks */
    for (long k = 0; k < 3; k++) {
        br_patch_frames(k * dt, fr);
        br_field_step(f, fr, NULL, dt, &res, err, sizeof err);
    }
    double t0 = now();
    for (long k = 0; k < steps; k++) {
        br_patch_frames((double)(k + 3) * dt, fr);
        if (br_field_step(f, fr, NULL, dt, &res, err, sizeof err)) {
            fprintf(stderr, "bristle bench: %s\n", err);
            br_field_destroy(f);
            br_patch_free(&patch);
            return 1;
        }
    }
    double t_field = now() - t0;
    const double ups = (double)n * (double)steps / t_field;

    /* Bytes each point update must move: geometry and K, D read; state read and written. */
    const int ns = br_law_nstate(law, &patch.desc.fric);
    const double bytes_pp = 8.0 * (3 + 2 + 2 * ns);
    const double bw = bytes_pp * ups / 1e9;
    const size_t mem = br_field_bytes(f);
    const size_t copy_bytes = (size_t)(bytes_pp * (double)n / 2.0) + 4096;
    double copy_bw;
    snprintf(err, sizeof err, "out of memory");
#ifdef BRISTLE_HAVE_CUDA
    if (cuda) copy_bw = br_cuda_copy_bandwidth(copy_bytes, 20, err, sizeof err);
    else
#endif
        copy_bw = cpu_copy_bandwidth(copy_bytes, 20, n > BR_CPU_CHUNK);
    if (copy_bw < 0) /* the figures without it stand; the comparison is left out */
        fprintf(stderr, "bristle bench: warning: no copy bandwidth measured (%s)\n", err);

    int nthreads = omp_get_max_threads();
    printf("bristle bench field: law %s, %ld points, %ld steps, dt %g s%s\n", law_name, n, steps, dt,
           tangent ? ", with the wrench tangent" : "");
    printf("  backend                 %s (%s)\n", br_field_backend_name(f), br_field_device_name(f));
    if (!cuda) printf("  threads                 %d\n", nthreads);
    printf("  field memory            %.1f B/point (%.1f MiB)\n", (double)mem / (double)n,
           (double)mem / 1048576.0);
    printf("  bytes moved per update  %.0f B (geometry 24, K and D 16, state %d read + %d written)\n",
           bytes_pp, 8 * ns, 8 * ns);
    printf("  time per step           %.4g ms\n", 1e3 * t_field / (double)steps);
    printf("  point updates/s         %.3e\n", ups);
    printf("  achieved bandwidth      %.2f GB/s\n", bw);
    if (copy_bw >= 0) {
        printf("  copy bandwidth          %.2f GB/s (same run, %.1f MB copied per pass)\n", copy_bw,
               (double)copy_bytes / 1e6);
        printf("  fraction of copy        %.0f %%\n", 100.0 * bw / copy_bw);
    } else printf("  copy bandwidth          not measured (%s)\n", err);
    printf("  last step: N = %.6g N, |F| = %.6g N, in contact %ld, stuck %ld\n", res.N,
           br_norm3(res.Ff_A),
           res.ncontact, res.nstick);

    double base_ups = 0.0;
    if (baseline) {
        br_baseline *b = br_baseline_create(&patch.desc);
        if (!b) {
            fprintf(stderr, "bristle bench: out of memory\n");
            br_field_destroy(f);
            br_patch_free(&patch);
            return 1;
        }
        br_set_frame sf;
        br_set_sums sums;
        long bsteps = steps < 20 ? steps : 20;
        for (long k = 0; k < 3; k++) {
            br_patch_frames(k * dt, fr);
            br_set_frame_build(&patch.desc, &fr[1], &fr[0], &sf);
            br_baseline_step(b, &sf, dt, &sums);
        }
        t0 = now();
        for (long k = 0; k < bsteps; k++) {
            br_patch_frames((double)(k + 3) * dt, fr);
            br_set_frame_build(&patch.desc, &fr[1], &fr[0], &sf);
            br_baseline_step(b, &sf, dt, &sums);
        }
        double tb = now() - t0;
        base_ups = (double)n * (double)bsteps / tb;
        printf("  baseline (AoS, unfused, 1 thread, %zu B/point): %.3e updates/s; field is %.2fx faster\n",
               br_baseline_bytes_per_point(b), base_ups, ups / base_ups);
        br_baseline_destroy(b);
    }
    printf("RESULT backend=%s device=\"%s\" law=%s points=%ld steps=%ld threads=%d updates_per_s=%.4e "
           "bytes_per_update=%.0f bw_GBs=%.3f copy_GBs=%.3f mem_B_per_point=%.1f baseline_ups=%.4e tangent=%d\n",
           br_field_backend_name(f), br_field_device_name(f), law_name, n, steps, cuda ? 0 : nthreads,
           ups, bytes_pp, bw, copy_bw, (double)mem / (double)n, base_ups, tangent);
    br_field_destroy(f);
    br_patch_free(&patch);
    return 0;
}

int br_bench_main(int argc, char **argv)
{
    if (argc < 1) return usage();
    if (!strcmp(argv[0], "field")) return bench_field(argc - 1, argv + 1);
    return usage();
}
