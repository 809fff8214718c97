/* test_run_s2.c: scenario S2 (three blades with tie-boss friction contacts), read from the
 * output of `bristle run`. Fixtures (CMakeLists.txt): s2_run_ramp_lugre (2 s, default suite)
 * and s2_run_sweep_lugre (10 s, label "slow": `ctest -L slow`). A test whose fixture output
 * is missing fails and says which fixture to run. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>

#include "beam.h"
#include "csvread.h"
#include "scenario.h"

static csv_table *load(const char *run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/timeseries.csv", S2_DIR, run);
    csv_table *t = csv_read(path);
    cr_assert(t, "cannot read %s: run the fixture s2_run_%s through ctest%s", path, run,
              strstr(run, "sweep") ? " -L slow" : "");
    return t;
}

static double residual(const char *run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/summary.json", S2_DIR, run);
    FILE *fp = fopen(path, "r");
    cr_assert(fp, "cannot read %s", path);
    static char buf[1 << 16];
    buf[fread(buf, 1, sizeof buf - 1, fp)] = 0;
    fclose(fp);
    cJSON *j = cJSON_Parse(buf);
    cr_assert(j);
    const double r = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "energy"), "residual_relative"));
    cJSON_Delete(j);
    return r;
}

static int col(const csv_table *t, const char *name)
{
    const int c = csv_col(t, name);
    cr_assert(c >= 0, "no column %s", name);
    return c;
}

/* S2 item 2, as the model predicts it. The preload P = 5 N on an outer tie-boss is shared by
 * the contact and the outer blade's own bending in Y: with the centre blade held by symmetry,
 * the tie-boss moves by the penetration delta, so P = N + k_y delta with N = n K delta^2
 * (n points, K = A / sigma^2) and k_y the blade's stiffness at the tie-boss node in Y
 * (1 / compliance, from the assembled K). The mean over t in [1.1, 1.2] s (the 30 Hz
 * excitation, already near 3 N, modulates N by about 1 %) is checked within 1 %.
 * scenarios.md asks for N = 5 N within 2 %; with these parameters the blade takes
 * k_y delta = 0.78 N of the preload, so that figure is not what this model gives (see the note
 * of issue 4). */
Test(s2, preload_is_shared_between_contact_and_blade)
{
    char err[1024];
    br_model *m = br_scenario_load(SOURCE_DIR "/scenarios/blade_single.yaml", NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    br_struct *s = br_struct_build(m, err, sizeof err);
    const int n = s->ndof, dof = s->dof[6 * 2 + 1];
    double *K = malloc(sizeof(double) * n * n), f[64] = {0};
    for (int k = 0; k < n * n; k++) K[k] = s->K[k];
    f[dof] = 1.0;
    cr_assert_eq(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, K, n, f, n), 0);
    const double ky = 1.0 / f[dof];
    free(K);
    br_struct_free(s);
    br_model_free(m);
    const double Kp = (0.02 * 0.0245 / 4) / (3e-9 * 3e-9), P = 5.0;
    const double delta = (-ky + sqrt(ky * ky + 16 * Kp * P)) / (8 * Kp), Nexp = 4 * Kp * delta * delta;
    csv_table *t = load("ramp_lugre");
    const int ct = col(t, "t"), nl = col(t, "contact_L.N"), nr = col(t, "contact_R.N");
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    long cnt = 0;
    for (long r = 0; r < t->nrows; r++) {
        const double tt = csv_at(t, r, ct);
        if (tt < 1.1 || tt > 1.2) continue;
        lo = fmin(lo, fmin(csv_at(t, r, nl), csv_at(t, r, nr)));
        hi = fmax(hi, fmax(csv_at(t, r, nl), csv_at(t, r, nr)));
        sum += csv_at(t, r, nl) + csv_at(t, r, nr), cnt += 2;
    }
    const double mean = sum / cnt;
    printf("S2.2 ramp_lugre: contact N in [1.1, 1.2] s: mean %.4f N (%.4f to %.4f); model: k_y = %.4g N/m, "
           "delta = %.4g m, N = %.4f N (the blade takes %.3f N); scenarios.md: 5 N\n",
           mean, lo, hi, ky, delta, Nexp, P - Nexp);
    cr_expect(fabs(mean / Nexp - 1) < 0.01, "mean N %g, model %g", mean, Nexp);
    csv_free(t);
}

/* S2 item 6 for the ramp study: the energy balance closes within 1 % of the input work. */
Test(s2, ramp_energy_residual)
{
    const double r = residual("ramp_lugre");
    printf("S2.6 ramp_lugre: energy residual %.3g of the input work\n", r);
    cr_expect(r < 0.01);
}

/* S2 item 4 (slow fixture): the centre tip amplitude peaks between 50 and 60 Hz; left and right
 * tips agree within 1e-6 of the response once the preload has settled (t >= 1.5 s); item 6:
 * energy residual below 1 %. */
Test(s2_slow, sweep_peak_symmetry_energy)
{
    csv_table *t = load("sweep_lugre");
    const int ct = col(t, "t"), xc = col(t, "tip_C.x"), xl = col(t, "tip_L.x"), xr = col(t, "tip_R.x");
    const long win = 1000; /* 0.1 s windows */
    double best_amp = 0, best_f = 0, asym = 0, scale = 0, asym_early = 0;
    for (long i = 0; i + win <= t->nrows; i += win) {
        double lo = INFINITY, hi = -INFINITY;
        for (long r = i; r < i + win; r++) {
            lo = fmin(lo, csv_at(t, r, xc)), hi = fmax(hi, csv_at(t, r, xc));
            const double d = fabs(csv_at(t, r, xl) - csv_at(t, r, xr));
            if (csv_at(t, r, ct) >= 1.5) asym = fmax(asym, d), scale = fmax(scale, fabs(csv_at(t, r, xl)));
            else asym_early = fmax(asym_early, d);
        }
        const double tm = csv_at(t, i + win / 2, ct), f = 30.0 * pow(80.0 / 30.0, tm / 10.0);
        if ((hi - lo) / 2 > best_amp) best_amp = (hi - lo) / 2, best_f = f;
    }
    const double r = residual("sweep_lugre");
    printf("S2.4 sweep_lugre: centre tip amplitude peaks at %.1f Hz (%.3g m); left/right differ by %.2g of the "
           "response after 1.5 s (%.3g m before, while the preload ramps and the contacts open)\n",
           best_f, best_amp, asym / scale, asym_early);
    printf("S2.6 sweep_lugre: energy residual %.3g of the input work\n", r);
    cr_expect(best_f >= 50 && best_f <= 60);
    cr_expect(asym < 1e-6 * scale);
    cr_expect(r < 0.01);
    csv_free(t);
}
