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

#include "field.h"
#include "patch.h"
#include "testutil.h"

static void skip_without_gpu(void)
{
    char why[256] = "";
    if (br_cuda_available(why, sizeof why) <= 0) {
        fprintf(stderr, "SKIP test_field_cuda: no usable GPU (%s)\n", why);
        cr_skip_test("no usable GPU: %s", why);
    }
}

Test(cuda, matches_cpu_on_1e5_points_over_1000_steps, .timeout = 600)
{
    skip_without_gpu();
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
    skip_without_gpu();
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
    skip_without_gpu();
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
    skip_without_gpu();
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
