/* test_run_s1.c: scenario S1 (scenarios.md), "Expected behaviour" items 1-6,
 * checked on the output files of `bristle run scenarios/cube_XX.yaml --backend cpu`.
 * The four runs are ctest fixtures (s1_run_cube_XX in CMakeLists.txt) writing
 * into S1_DIR/cube_XX with points.csv every 1 ms; this program only reads. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "base/csvread.h"
#include "jsonread.h"

static const int ANGLES[4] = {0, 30, 60, 90};
static const double PI = 3.14159265358979323846;

/* run folder under S1_DIR, file -> its table (the fixtures of CMakeLists.txt write them) */
static csv_table *load_run(const char *run, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", S1_DIR, run, file);
    csv_table *t = csv_read(path);
    cr_assert(t, "cannot read %s: run the suite through ctest, which runs the fixture writing %s first", path, run);
    return t;
}

static csv_table *load(int angle, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cube_%02d/%s", S1_DIR, angle, file);
    csv_table *t = csv_read(path);
    cr_assert(t, "cannot read %s: run the suite through ctest, which runs the fixture s1_run_cube_%02d first",
              path, angle);
    return t;
}

static int col(const csv_table *t, const char *name)
{
    const int c = csv_col(t, name);
    cr_assert(c >= 0, "timeseries.csv has no column %s", name);
    return c;
}

/* pull magnitude of S1 at time t: 0 until 1 s, linear to 0.75 N at 2 s */
static double pull(double t) { return t <= 1 ? 0 : t >= 2 ? 0.75 : 0.75 * (t - 1); }

/* press magnitude of S1: 10 N until 3 s, linear to 0 at 4 s */
static double press(double t) { return t <= 3 ? 10 : t >= 4 ? 0 : 10 * (4 - t); }

/* Item 1: during the hold the friction force is 0.75 N within 1 % and opposite to the pull within 0.5 deg. */
Test(s1, hold_force_magnitude_and_direction)
{
    for (int a = 0; a < 4; a++) {
        csv_table *t = load(ANGLES[a], "timeseries.csv");
        const int ct = col(t, "t"), fx = col(t, "base.Fx"), fy = col(t, "base.Fy"), fz = col(t, "base.Fz");
        const int ft = col(t, "base.Ft");
        const double u[2] = {cos(ANGLES[a] * PI / 180), sin(ANGLES[a] * PI / 180)};
        double worst_mag = 0, worst_ang = 0;
        long n = 0;
        for (long r = 0; r < t->nrows; r++) {
            const double tt = csv_at(t, r, ct);
            if (tt < 2.2 || tt > 3.0) continue;
            const double F[3] = {csv_at(t, r, fx), csv_at(t, r, fy), csv_at(t, r, fz)};
            const double mag = csv_at(t, r, ft);
            const double c = -(F[0] * u[0] + F[1] * u[1]) / sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
            const double ang = acos(c > 1 ? 1 : c) * 180 / PI;
            worst_mag = fmax(worst_mag, fabs(mag - 0.75) / 0.75);
            worst_ang = fmax(worst_ang, ang);
            n++;
        }
        printf("S1.1 cube_%02d: %ld samples in [2.2, 3.0] s, |F| within %.3g of 0.75 N, direction within %.3g deg\n",
               ANGLES[a], n, worst_mag, worst_ang);
        cr_expect(n > 7000, "cube_%02d: only %ld samples in the hold", ANGLES[a], n);
        cr_expect(worst_mag < 0.01, "cube_%02d: |F| off by %g (tolerance 1 %%)", ANGLES[a], worst_mag);
        cr_expect(worst_ang < 0.5, "cube_%02d: direction off by %g deg (tolerance 0.5)", ANGLES[a], worst_ang);
        csv_free(t);
    }
}

/* Item 2: pre-sliding displacement during the hold is micrometres (< 50 um). Lower bound:
 * the stuck bristles hold F = sigma0 Z sum N, so Z = 0.75 / (1e4 * 10) = 7.5 um, and the
 * cube has moved at least that far (LuGre's drift during the 1-2 s ramp, integral of
 * sigma0 v |Z| / G, only adds). Stick: the displacement does not change during the hold
 * (within 1 %). */
Test(s1, presliding_displacement)
{
    for (int a = 0; a < 4; a++) {
        csv_table *t = load(ANGLES[a], "timeseries.csv");
        const int ct = col(t, "t"), cx = col(t, "cube.x"), cy = col(t, "cube.y");
        double lo = INFINITY, hi = 0;
        for (long r = 0; r < t->nrows; r++) {
            const double tt = csv_at(t, r, ct);
            if (tt < 2.2 || tt > 3.0) continue;
            const double d = hypot(csv_at(t, r, cx), csv_at(t, r, cy));
            lo = fmin(lo, d), hi = fmax(hi, d);
        }
        printf("S1.2 cube_%02d: pre-sliding displacement %.6g to %.6g um during the hold (bound 50 um, "
               "elastic part 7.5 um)\n", ANGLES[a], lo * 1e6, hi * 1e6);
        cr_expect(hi < 50e-6, "cube_%02d: displacement %g m is not micrometres", ANGLES[a], hi);
        cr_expect(lo >= 7.5e-6, "cube_%02d: displacement %g m below the bristle deflection", ANGLES[a], lo);
        cr_expect(hi - lo < 0.01 * hi, "cube_%02d: the cube creeps during the hold (%g to %g m)", ANGLES[a],
                  lo, hi);
        csv_free(t);
    }
}

/* Item 3: slip onset (first cube speed above 1 mm/s) in [3.35, 3.60] s; mu_s N(t) = 0.75 at 3.5 s. */
Test(s1, slip_onset)
{
    for (int a = 0; a < 4; a++) {
        csv_table *t = load(ANGLES[a], "timeseries.csv");
        const int ct = col(t, "t"), vx = col(t, "cube.vx"), vy = col(t, "cube.vy"), vz = col(t, "cube.vz");
        double onset = -1;
        for (long r = 0; r < t->nrows && onset < 0; r++) {
            const double v[3] = {csv_at(t, r, vx), csv_at(t, r, vy), csv_at(t, r, vz)};
            if (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) > 1e-3) onset = csv_at(t, r, ct);
        }
        printf("S1.3 cube_%02d: slip onset at %.4f s (window [3.35, 3.60])\n", ANGLES[a], onset);
        cr_expect(onset >= 3.35 && onset <= 3.60, "cube_%02d: slip onset %g s", ANGLES[a], onset);
        csv_free(t);
    }
}

/* Item 4: per-point forces at theta and theta + 60 deg agree after relabelling point k as
 * k + 1 and rotating the force by 60 deg, within 1e-6 of the run's largest point force. */
Test(s1, rotation_by_60_deg_relabels_points)
{
    const int pairs[2][2] = {{0, 60}, {30, 90}};
    const double c = cos(PI / 3), s = sin(PI / 3);
    for (int p = 0; p < 2; p++) {
        csv_table *A = load(pairs[p][0], "points.csv"), *B = load(pairs[p][1], "points.csv");
        cr_assert_eq(A->nrows, B->nrows);
        cr_assert(A->nrows % 6 == 0 && A->nrows >= 6 * 4000, "points.csv has %ld rows", A->nrows);
        const int fx = csv_col(A, "Fx"), fy = csv_col(A, "Fy"), fz = csv_col(A, "Fz"), nn = csv_col(A, "N");
        const int pt = csv_col(A, "point");
        double scaleF = 0, scaleN = 0, dF = 0, dN = 0;
        for (long r = 0; r < A->nrows; r++) {
            const long r0 = r - r % 6, k = (long)csv_at(A, r, pt), kb = r0 + (k + 1) % 6;
            cr_assert_eq((long)csv_at(B, kb, pt), (k + 1) % 6);
            const double F[3] = {csv_at(A, r, fx), csv_at(A, r, fy), csv_at(A, r, fz)};
            const double RF[3] = {c * F[0] - s * F[1], s * F[0] + c * F[1], F[2]};
            const double G[3] = {csv_at(B, kb, fx), csv_at(B, kb, fy), csv_at(B, kb, fz)};
            scaleF = fmax(scaleF, sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]));
            scaleN = fmax(scaleN, fabs(csv_at(A, r, nn)));
            dF = fmax(dF, sqrt((RF[0] - G[0]) * (RF[0] - G[0]) + (RF[1] - G[1]) * (RF[1] - G[1]) +
                               (RF[2] - G[2]) * (RF[2] - G[2])));
            dN = fmax(dN, fabs(csv_at(A, r, nn) - csv_at(B, kb, nn)));
        }
        printf("S1.4 cube_%02d vs cube_%02d: %ld point samples, friction differs by %.3g, normal by %.3g "
               "(relative to %.3g N and %.3g N)\n",
               pairs[p][0], pairs[p][1], A->nrows, dF / scaleF, dN / scaleN, scaleF, scaleN);
        cr_expect(scaleF > 0.1 && scaleN > 1, "forces too small to compare");
        cr_expect(dF < 1e-6 * scaleF, "friction forces differ by %g relative", dF / scaleF);
        cr_expect(dN < 1e-6 * scaleN, "normal forces differ by %g relative", dN / scaleN);
        csv_free(A), csv_free(B);
    }
}

/* Item 5: normal forces sum to the press within 0.5 % for t in [0.5, 3] s, and under the
 * pull the distribution shifts to the front: moment balance about the contact centroid
 * gives sum N_i (r_i . u) = 0.05 m * pull, checked to 1 %, with the front points loaded more. */
Test(s1, normal_force_sum_and_shift)
{
    for (int a = 0; a < 4; a++) {
        csv_table *t = load(ANGLES[a], "timeseries.csv");
        const int ct = col(t, "t"), cn = col(t, "base.N");
        double worst = 0;
        for (long r = 0; r < t->nrows; r++) {
            const double tt = csv_at(t, r, ct);
            if (tt < 0.5 || tt > 3.0) continue;
            worst = fmax(worst, fabs(csv_at(t, r, cn) - press(tt)) / press(tt));
        }
        csv_free(t);
        csv_table *P = load(ANGLES[a], "points.csv");
        const int tp = csv_col(P, "t"), px = csv_col(P, "x"), py = csv_col(P, "y"), pn = csv_col(P, "N");
        const double u[2] = {cos(ANGLES[a] * PI / 180), sin(ANGLES[a] * PI / 180)};
        double worst_m = 0, min_gap = INFINITY;
        long n = 0;
        for (long r0 = 0; r0 + 6 <= P->nrows; r0 += 6) {
            const double tt = csv_at(P, r0, tp);
            if (tt < 2.2 || tt > 3.0) continue;
            double cx = 0, cy = 0, m = 0, front = INFINITY, back = -INFINITY;
            for (int k = 0; k < 6; k++) cx += csv_at(P, r0 + k, px) / 6, cy += csv_at(P, r0 + k, py) / 6;
            for (int k = 0; k < 6; k++) {
                const double d = (csv_at(P, r0 + k, px) - cx) * u[0] + (csv_at(P, r0 + k, py) - cy) * u[1];
                const double N = csv_at(P, r0 + k, pn);
                m += N * d;
                if (d > 1e-3) front = fmin(front, N);
                if (d < -1e-3) back = fmax(back, N);
            }
            worst_m = fmax(worst_m, fabs(m - 0.05 * pull(tt)) / (0.05 * pull(tt)));
            min_gap = fmin(min_gap, front - back);
            n++;
        }
        printf("S1.5 cube_%02d: sum N within %.3g of the press on [0.5, 3] s; moment of N within %.3g of "
               "0.05 m x pull; front minus back point load >= %.3g N (%ld samples)\n",
               ANGLES[a], worst, worst_m, min_gap, n);
        cr_expect(worst < 0.005, "cube_%02d: sum of N off by %g (tolerance 0.5 %%)", ANGLES[a], worst);
        cr_expect(n > 700 && worst_m < 0.01, "cube_%02d: moment of N off by %g", ANGLES[a], worst_m);
        cr_expect(min_gap > 0.1, "cube_%02d: front points not loaded more than back ones (%g N)", ANGLES[a],
                  min_gap);
        csv_free(P);
    }
}

/* run -> its summary.json parsed (the caller frees it) */
static cJSON *summary(const char *run) { return run_summary(S1_DIR, run); }

/* Item 6: energy balance residual below 1 % of the input work (summary.json). */
Test(s1, energy_residual)
{
    for (int a = 0; a < 4; a++) {
        char run[16];
        snprintf(run, sizeof run, "cube_%02d", ANGLES[a]);
        cJSON *j = summary(run);
        cJSON *en = cJSON_GetObjectItem(j, "energy");
        const double rel = cJSON_GetNumberValue(cJSON_GetObjectItem(en, "residual_relative"));
        const double win = cJSON_GetNumberValue(cJSON_GetObjectItem(en, "input_work_J"));
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(j, "status"));
        const char *backend = cJSON_GetStringValue(cJSON_GetObjectItem(j, "backend"));
        printf("S1.6 cube_%02d: input work %.5g J, energy residual %.3g of it\n", ANGLES[a], win, rel);
        cr_expect(status && !strcmp(status, "complete"));
        cr_expect(backend && !strcmp(backend, "cpu"));
        cr_expect(win > 0.01, "input work %g J: the pull did not drive the cube", win);
        cr_expect(rel < 0.01, "cube_%02d: residual %g of the input work", ANGLES[a], rel);
        cJSON_Delete(j);
    }
}

/* ---- Implicit coupling (issue 13): S1 at ten times the step, and with a stiffer contact ---- */

/* run -> the first time the cube's sliding speed (in the ground plane) exceeds 1 mm/s, linearly
 * interpolated between samples (the vertical speed is left out: at dt = 1e-4 the first step lets
 * the cube fall freely by h a = 1 mm/s before the contact, whose stiffness is zero at zero
 * penetration, takes the press) */
static double sliding_onset(const char *run)
{
    csv_table *t = load_run(run, "timeseries.csv");
    const int ct = col(t, "t"), vx = col(t, "cube.vx"), vy = col(t, "cube.vy");
    double onset = -1, prev = 0, tprev = 0;
    for (long r = 0; r < t->nrows && onset < 0; r++) {
        const double tt = csv_at(t, r, ct), v = hypot(csv_at(t, r, vx), csv_at(t, r, vy));
        if (v > 1e-3) onset = r ? tprev + (1e-3 - prev) / (v - prev) * (tt - tprev) : tt;
        prev = v, tprev = tt;
    }
    csv_free(t);
    return onset;
}

/* run -> the largest deviation of |F| from 0.75 N, relative, during the hold [2.2, 3.0] s */
static double hold_error(const char *run)
{
    csv_table *t = load_run(run, "timeseries.csv");
    const int ct = col(t, "t"), ft = col(t, "base.Ft");
    double worst = 0;
    long n = 0;
    for (long r = 0; r < t->nrows; r++) {
        const double tt = csv_at(t, r, ct);
        if (tt < 2.2 || tt > 3.0) continue;
        worst = fmax(worst, fabs(csv_at(t, r, ft) - 0.75) / 0.75);
        n++;
    }
    csv_free(t);
    cr_assert(n > 700, "%s: only %ld samples in the hold", run, n);
    return worst;
}

/* S1 (cube_00) at dt = 1e-4 and 1e-3, ten and a hundred times the scenario's step: the contact's
 * normal mode has w h = 1.3 and 13 there (docs/time-stepping.md; the explicit coupling needs
 * w h < 2). Slip onset within 1 ms of the dt = 1e-5 run, the hold within 1 %, the energy residual
 * below 1 %. */
Test(s1_coupling, larger_steps_match_dt_1e_5)
{
    const double t5 = sliding_onset("cube_00");
    cr_expect(t5 > 3.35 && t5 < 3.6, "onset at 1e-5: %g s", t5);
    const char *runs[2] = {"cube_00_dt1e-4", "cube_00_dt1e-3"};
    for (int k = 0; k < 2; k++) {
        const double t4 = sliding_onset(runs[k]), hold = hold_error(runs[k]);
        cJSON *j = summary(runs[k]);
        cJSON *en = cJSON_GetObjectItem(j, "energy");
        const double rel = cJSON_GetNumberValue(cJSON_GetObjectItem(en, "residual_relative"));
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(j, "status"));
        printf("S1 coupling: %s: sliding onset %.5f s against %.5f s at dt = 1e-5 (%.3g ms apart); hold within "
               "%.3g of 0.75 N; energy residual %.3g\n", runs[k], t4, t5, 1e3 * fabs(t4 - t5), hold, rel);
        cr_expect(status && !strcmp(status, "complete"), "%s did not complete", runs[k]);
        cr_expect(fabs(t4 - t5) < 1e-3, "%s: onset %g s against %g s", runs[k], t4, t5);
        cr_expect(hold < 0.01, "%s: hold off by %g", runs[k], hold);
        cr_expect(rel < 0.01, "%s: energy residual %g", runs[k], rel);
        cJSON_Delete(j);
    }
}

/* S1 with a 100 times stiffer contact (sigma = 3e-10: K = A / sigma^2 100 times S1's) at the
 * scenario's dt = 1e-5: it completes and holds 0.75 N within 1 % during [2.2, 3.0] s. */
Test(s1_coupling, stiff_contact_holds)
{
    const double hold = hold_error("cube_00_stiff");
    cJSON *j = summary("cube_00_stiff");
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(j, "status"));
    const double rel = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "energy"), "residual_relative"));
    printf("S1 coupling: sigma = 3e-10 holds 0.75 N within %.3g; energy residual %.3g\n", hold, rel);
    cr_expect(status && !strcmp(status, "complete"));
    cr_expect(hold < 0.01, "hold off by %g", hold);
    cr_expect(rel < 0.01, "energy residual %g", rel);
    cJSON_Delete(j);
}
