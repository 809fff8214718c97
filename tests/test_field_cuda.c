/* test_field_cuda.c: the CUDA backend against the CPU backend on the same
 * 1e5-point field over 1000 steps, every law: relative difference below 1e-12
 * in every reduced quantity (relative to its scale over the run), counts
 * equal, and two GPU runs bitwise identical; the wrench tangents of the
 * implicit coupling (kernels/point_tangent.h) likewise. Skipped, with the
 * reason printed, where no GPU is usable. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuskip.h"
#include "field/field.h"
#include "field/patch.h"
#include "testutil.h"


Test(cuda, matches_cpu_on_1e5_points_over_1000_steps, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_field_cuda");
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 100000, law, 2024), 0);
        char err[512];
        br_field *fc = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
        br_field *fg = br_field_create(&pa.desc, 1, BR_BACKEND_CUDA, err, sizeof err);
        cr_assert_not_null(fg, "%s", err);
        cr_assert_str_eq(br_field_backend_name(fg), "cuda");
        res_cmp c;
        memset(&c, 0, sizeof c);
        for (int s = 0; s < 1000; s++) {
            br_frame_state fr[2];
            br_patch_frames(s * 1e-4, fr);
            br_set_result rc, rg;
            cr_assert_eq(br_field_step(fc, fr, NULL, 1e-4, &rc, err, sizeof err), 0, "%s", err);
            cr_assert_eq(br_field_step(fg, fr, NULL, 1e-4, &rg, err, sizeof err), 0, "%s", err);
            res_cmp_add(&c, &rc, &rg);
        }
        int which;
        double w = res_cmp_worst(&c, &which);
        fprintf(stderr, "cuda vs cpu, law %s: worst relative difference %.3g (entry %d) on %s\n",
                br_law_name(law), w, which, br_field_device_name(fg));
        cr_assert_lt(w, 1e-12, "law %s entry %d: %g", br_law_name(law), which, w);
        br_field_destroy(fc);
        br_field_destroy(fg);
        br_patch_free(&pa);
    }
}

Test(cuda, bitwise_deterministic, .timeout = 300)
{
    BR_SKIP_WITHOUT_GPU("test_field_cuda");
    br_patch pa;
    br_patch_make(&pa, 100000, BR_LAW_LUGRE3D, 11);
    char err[512];
    br_set_result ra[200], rb[200];
    for (int run = 0; run < 2; run++) {
        br_field *f = br_field_create(&pa.desc, 1, BR_BACKEND_CUDA, err, sizeof err);
        cr_assert_not_null(f, "%s", err);
        for (int s = 0; s < 200; s++) {
            br_frame_state fr[2];
            br_patch_frames(s * 1e-4, fr);
            br_field_step(f, fr, NULL, 1e-4, run ? &rb[s] : &ra[s], err, sizeof err);
        }
        br_field_destroy(f);
    }
    cr_assert_eq(memcmp(ra, rb, sizeof ra), 0, "two GPU runs differ");
    br_patch_free(&pa);
}

Test(cuda, per_point_readback_and_state_roundtrip)
{
    BR_SKIP_WITHOUT_GPU("test_field_cuda");
    br_patch pa;
    br_patch_make(&pa, 5000, BR_LAW_LUGRE3D, 4);
    char err[512];
    br_field *fc = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
    br_field *fg = br_field_create(&pa.desc, 1, BR_BACKEND_CUDA, err, sizeof err);
    cr_assert_not_null(fg, "%s", err);
    br_field_record_points(fc, 1);
    br_field_record_points(fg, 1);
    br_set_result r;
    for (int s = 0; s < 20; s++) {
        br_frame_state fr[2];
        br_patch_frames(s * 1e-4, fr);
        br_field_step(fc, fr, NULL, 1e-4, &r, err, sizeof err);
        br_field_step(fg, fr, NULL, 1e-4, &r, err, sizeof err);
    }
    double *Fc = malloc(3 * 5000 * sizeof(double)), *Fg = malloc(3 * 5000 * sizeof(double));
    br_field_points(fc, 0, Fc, NULL);
    br_field_points(fg, 0, Fg, NULL);
    for (int i = 0; i < 3 * 5000; i++)
        cr_assert_leq(fabs(Fc[i] - Fg[i]), 1e-12 * (fabs(Fc[i]) + 1e-12), "point force %d", i / 3);
    br_field_get_state(fg, 0, Fg);
    br_field_set_state(fg, 0, Fg);
    br_field_get_state(fg, 0, Fc);
    cr_assert_eq(memcmp(Fc, Fg, 3 * 5000 * sizeof(double)), 0);
    free(Fc);
    free(Fg);
    br_field_destroy(fc);
    br_field_destroy(fg);
    br_patch_free(&pa);
}

/* The wrench tangent (br_set_result.tan: K, C, their friction parts, W_d) from the CUDA kernel
 * against the CPU loop, every law, 2e4 points over 300 steps: within 1e-12 of each matrix's
 * largest entry over the run (both sum the same per-point terms in different orders). */
Test(cuda, tangent_matches_cpu, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_field_cuda");
    for (int law = 0; law < BR_LAW_COUNT; law++) {
        br_patch pa;
        cr_assert_eq(br_patch_make(&pa, 20000, law, 77), 0);
        pa.desc.tangent = 1;
        char err[512];
        br_field *fc = br_field_create(&pa.desc, 1, BR_BACKEND_CPU, err, sizeof err);
        br_field *fg = br_field_create(&pa.desc, 1, BR_BACKEND_CUDA, err, sizeof err);
        cr_assert_not_null(fc, "%s", err);
        cr_assert_not_null(fg, "%s", err);
        enum { NT = (int)(sizeof(br_set_tangent) / sizeof(double)) };
        double diff[5] = {0}, scale[5] = {0};
        for (int s = 0; s < 300; s++) {
            br_frame_state fr[2];
            br_patch_frames(s * 1e-4, fr);
            br_set_result rc, rg;
            cr_assert_eq(br_field_step(fc, fr, NULL, 1e-4, &rc, err, sizeof err), 0, "%s", err);
            cr_assert_eq(br_field_step(fg, fr, NULL, 1e-4, &rg, err, sizeof err), 0, "%s", err);
            const double *a = (const double *)&rc.tan, *b = (const double *)&rg.tan;
            for (int k = 0; k < NT; k++) { /* groups: K, C, Kf, Cf (36 each), W_d */
                const int g = k / 36 < 4 ? k / 36 : 4;
                diff[g] = fmax(diff[g], fabs(a[k] - b[k]));
                scale[g] = fmax(scale[g], fmax(fabs(a[k]), fabs(b[k])));
            }
        }
        double worst = 0.0;
        for (int g = 0; g < 5; g++) worst = fmax(worst, scale[g] > 0 ? diff[g] / scale[g] : diff[g]);
        fprintf(stderr, "cuda vs cpu, law %s: wrench tangent worst relative difference %.3g\n", br_law_name(law),
                worst);
        cr_expect(worst < 1e-12, "law %s: tangent differs by %g", br_law_name(law), worst);
        br_field_destroy(fc);
        br_field_destroy(fg);
        br_patch_free(&pa);
    }
}

/* A field of many sets, as a study's variants make: the sets that share a law, surface and
 * tangent flag step in one launch (kernels/field_cuda.cu: field_group_kernel, a block per 1024
 * points; field_small_kernel, a warp per set of 1 to 32 points). NS sets of three laws (lugre3d
 * every sixth one with the wrench tangent) of size(s) points, and one gms set (launched alone
 * among the groups when it is the only one of its size class), each on its own pair of frames at
 * its own time: every set's sums within 1e-12 of the CPU's (relative to its scale over the run),
 * per-point forces recorded (off for a stretch of steps) and read back alike, states read back
 * and written again midway, and each of six sets' sums bitwise those of a GPU field of that set
 * alone (the launch per set). */
static void sets_in_groups(int NS, long (*size)(int s))
{
    enum { STEPS = 120, NALONE = 6 };
    static const int laws[3] = {BR_LAW_LUGRE3D, BR_LAW_GKF, BR_LAW_BRISTLE2};
    br_patch *pa = calloc(NS, sizeof *pa);
    br_contact_set_desc *d = calloc(NS, sizeof *d);
    br_frame_state *fr = calloc(2 * NS, sizeof *fr);
    br_set_result *rc = calloc(NS, sizeof *rc), *rg = calloc(NS, sizeof *rg), *r1 = calloc(NS, sizeof *r1);
    res_cmp *c = calloc(NS, sizeof *c);
    cr_assert(pa && d && fr && rc && rg && r1 && c);
    for (int s = 0; s < NS; s++) {
        const int law = s == NS - 1 ? BR_LAW_GMS : laws[s % 3];
        cr_assert_eq(br_patch_make(&pa[s], size(s), law, 100 + (unsigned long)s), 0);
        d[s] = pa[s].desc;
        d[s].frame_a = 2 * s + 1, d[s].frame_b = 2 * s;
        d[s].tangent = s % 6 == 0; /* lugre3d sets: every other one with the tangent */
    }
    /* the sets alone on the GPU: sets 0 (tangent), 3 (no tangent), 1, 2, 5 and the next to last */
    const int alone[NALONE] = {0, 3, 1, 2, 5, NS - 2};
    char err[512];
    br_field *fc = br_field_create(d, NS, BR_BACKEND_CPU, err, sizeof err);
    br_field *fg = br_field_create(d, NS, BR_BACKEND_CUDA, err, sizeof err);
    cr_assert_not_null(fc, "%s", err);
    cr_assert_not_null(fg, "%s", err);
    br_field *f1[NALONE];
    for (int k = 0; k < NALONE; k++) {
        br_contact_set_desc one = d[alone[k]];
        one.frame_a = 1, one.frame_b = 0;
        f1[k] = br_field_create(&one, 1, BR_BACKEND_CUDA, err, sizeof err);
        cr_assert_not_null(f1[k], "%s", err);
    }
    br_field_record_points(fc, 1);
    br_field_record_points(fg, 1);
    for (int t = 0; t < STEPS; t++) {
        if (t == 30 || t == 70) br_field_record_points(fg, t == 70); /* steps 30 to 69 unrecorded */
        if (t == 50) /* every state to the host and back */
            for (int s = 0; s < NS; s++) {
                double *st = malloc((size_t)(3 * 8) * (size_t)pa[s].n * sizeof(double));
                cr_assert_not_null(st);
                cr_assert_eq(br_field_get_state(fg, s, st), 0);
                cr_assert_eq(br_field_set_state(fg, s, st), 0);
                free(st);
            }
        for (int s = 0; s < NS; s++) br_patch_frames((t + 0.37 * s) * 1e-4, fr + 2 * s);
        cr_assert_eq(br_field_step(fc, fr, NULL, 1e-4, rc, err, sizeof err), 0, "%s", err);
        cr_assert_eq(br_field_step(fg, fr, NULL, 1e-4, rg, err, sizeof err), 0, "%s", err);
        for (int s = 0; s < NS; s++) res_cmp_add(&c[s], &rc[s], &rg[s]);
        for (int k = 0; k < NALONE; k++) {
            const int s = alone[k];
            cr_assert_eq(br_field_step(f1[k], fr + 2 * s, NULL, 1e-4, &r1[s], err, sizeof err), 0, "%s", err);
            cr_assert_eq(memcmp(&r1[s], &rg[s], sizeof r1[s]), 0, "step %d: set %d differs from its field alone", t, s);
        }
    }
    double worst = 0.0;
    for (int s = 0; s < NS; s++) {
        int which;
        const double w = res_cmp_worst(&c[s], &which);
        worst = w > worst ? w : worst;
        cr_assert_lt(w, 1e-12, "set %d (%s) entry %d: %g", s, br_law_name(d[s].law), which, w);
    }
    long nmin = size(0), nmax = size(0);
    for (int s = 1; s < NS; s++) nmin = size(s) < nmin ? size(s) : nmin, nmax = size(s) > nmax ? size(s) : nmax;
    fprintf(stderr, "cuda vs cpu, %d sets of %ld to %ld points in one field: worst relative difference %.3g on %s\n", NS,
            nmin, nmax, worst, br_field_device_name(fg));
    for (int s = 0; s < NS; s += s < NS - 8 ? 7 : 1) {
        const long n = pa[s].n;
        double *Fc = malloc(4 * n * sizeof(double)), *Fg = malloc(4 * n * sizeof(double));
        cr_assert(Fc && Fg);
        cr_assert_eq(br_field_points(fc, s, Fc, Fc + 3 * n), 0);
        cr_assert_eq(br_field_points(fg, s, Fg, Fg + 3 * n), 0);
        double scale = 1e-300;
        for (long i = 0; i < 4 * n; i++) scale = fmax(scale, fabs(Fc[i]));
        for (long i = 0; i < 4 * n; i++)
            cr_assert_leq(fabs(Fc[i] - Fg[i]), 1e-12 * scale, "set %d, point value %ld", s, i);
        free(Fc), free(Fg);
    }
    for (int k = 0; k < NALONE; k++) br_field_destroy(f1[k]);
    br_field_destroy(fc);
    br_field_destroy(fg);
    for (int s = 0; s < NS; s++) br_patch_free(&pa[s]);
    free(pa), free(d), free(fr), free(rc), free(rg), free(r1), free(c);
}

static long size_large(int s) { return 300 + 37L * s; }
Test(cuda, many_sets_in_one_launch_per_group, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_field_cuda");
    sets_in_groups(151, size_large);
}

/* 1 to 40 points: most sets a warp each, every eighth one or so (33 to 40 points) a block */
static long size_small(int s) { return 1 + (7L * s) % 40; }
Test(cuda, small_sets_a_warp_each, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_field_cuda");
    sets_in_groups(301, size_small);
}
