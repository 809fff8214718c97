/* test_run_s2.c: scenario S2 (three blades with tie-boss friction contacts), read from the
 * output of `bristle run`. Fixtures (CMakeLists.txt): the ramps (2 s) and the sweeps (10 s, at
 * dt = 1e-5 and 1e-4) in the default suite; a fine-step gkf ramp and the sweeps at the extreme
 * preloads labelled "slow" (`ctest -L slow`). A test whose fixture output is missing fails and
 * says which fixture to run. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>

#include "analysis/eig.h"
#include "model/beam.h"
#include "base/csvread.h"
#include "io/scenario.h"
#include "jsonread.h"

static csv_table *load(const char *run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/timeseries.csv", S2_DIR, run);
    csv_table *t = csv_read(path);
    cr_assert(t, "cannot read %s: run the fixture s2_run_%s through ctest%s", path, run,
              strstr(run, "_P") || strstr(run, "fine") ? " -L slow" : "");
    return t;
}

/* run -> its summary.json parsed (the caller frees it) */
static cJSON *summary(const char *run) { return run_summary(S2_DIR, run); }

static double residual(const char *run)
{
    cJSON *j = summary(run);
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

/* The outer blade's own bending stiffness in Y at its tie-boss node (1 / compliance, from the
 * assembled K of the single blade) and the contact's total Hunt-Crossley K (face area / sigma^2). */
static void preload_model(double *ky, double *nK)
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
    *ky = 1.0 / f[dof];
    *nK = 0.02 * 0.0245 / (3e-9 * 3e-9);
    free(K);
    br_struct_free(s);
    br_model_free(m);
}

/* mean of both contacts' N over t in [1.1, 1.2] s of a run (the 30 Hz excitation, near 3 N there,
 * modulates N by about 1 %) */
static double mean_contact_N(const char *run, double *lo_out, double *hi_out)
{
    csv_table *t = load(run);
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
    csv_free(t);
    *lo_out = lo, *hi_out = hi;
    return sum / cnt;
}

/* S2 item 2 (amended): the applied preload P is shared by the contact and the outer blade's own
 * bending in Y. With the centre blade held by symmetry the tie-boss moves by the penetration delta,
 * so P = N + k_y delta with N = n K delta^2. The scenario files apply the P that leaves N = 5 N
 * (checked here against that derivation within 0.1 %), and the contacts carry 5 N within 2 % over
 * t in [1.1, 1.2] s in the ramps of both laws. */
Test(s2, preload_leaves_5N_on_the_contacts)
{
    double ky, nK;
    preload_model(&ky, &nK);
    const double N = 5.0, delta = sqrt(N / nK), P = N + ky * delta;
    char err[1024];
    br_model *m = br_scenario_load(SOURCE_DIR "/scenarios/blades_ramp_lugre.yaml", NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    double Pfile = -1;
    for (int k = 0; k < m->nload; k++)
        if (!strcmp(m->load[k].name, "preload_L")) Pfile = br_timefn_eval(&m->load[k].mag, 2.0);
    br_model_free(m);
    printf("S2.2 model: k_y = %.4g N/m, delta = %.4g m: P = %.4f N leaves N = 5 N (the blade takes %.3f N); "
           "blades_ramp_lugre.yaml applies %.4f N\n", ky, delta, P, P - N, Pfile);
    cr_expect(fabs(Pfile / P - 1) < 1e-3, "the scenario applies %g N, the derivation gives %g N", Pfile, P);
    const char *runs[2] = {"ramp_lugre", "ramp_gkf"};
    for (int k = 0; k < 2; k++) {
        double lo, hi;
        const double mean = mean_contact_N(runs[k], &lo, &hi);
        printf("S2.2 %s: contact N in [1.1, 1.2] s: mean %.4f N (%.4f to %.4f); scenarios.md: 5 N within 2 %%\n",
               runs[k], mean, lo, hi);
        cr_expect(fabs(mean / N - 1) < 0.02, "%s: mean N %g", runs[k], mean);
    }
}

/* S2 item 6 for the ramp study: the energy balance closes within 1 % of the input work. */
Test(s2, ramp_energy_residual)
{
    const double r = residual("ramp_lugre");
    printf("S2.6 ramp_lugre: energy residual %.3g of the input work\n", r);
    cr_expect(r < 0.01);
}

/* S2 item 6 for the gkf ramp: its stick branch is a stiff damper (mu_s N / eps, 7000 N s/m per
 * contact) that the structure step carries implicitly (docs/time-stepping.md); explicit, the
 * residual was 18 %. */
Test(s2, ramp_gkf_energy_residual)
{
    const double r = residual("ramp_gkf");
    printf("S2.6 ramp_gkf: energy residual %.3g of the input work\n", r);
    cr_expect(r < 0.01);
}

/* S2 item 3 (amended), per 30 Hz cycle of the ramp (A = 5 N (t - 0.2) / 1.6): while A < 2 N every
 * point slides slower than 1 mm/s (lugre: while A < 1 N; a stuck lugre contact creeps through its
 * bristles' elastic deflection F_t / (sigma0 N_i), and its points move at about 0.93 mm/s per newton
 * of A at 30 Hz here, measured, so 1 mm/s is passed near A = 1.1 N), and slip (peak speed above 10 mm/s) sets in where the friction
 * cone puts it, A* = mu_s N / s, with s the share of the tip force a stuck contact carries (measured
 * over the cycles with A from 1 to 2.5 N, checked within 10 % against the static cantilevers tied at
 * the tie-boss, a = 0.138 m, and loaded at the tip, b = 0.192 m: s = (3 b - a) / (6 a) = 0.529) and N
 * the contact's mean normal force. gkf slips within 10 % of A*, lugre between 0.7 A* and 1.05 A*
 * (its pre-sliding creep lets go earlier); for gkf the largest F_t / N before slip is within 5 %
 * of mu_s (the cone reached). The cycle's amplitude A is taken at its start. */
static void ramp_transition(const char *run, double A_small, double lo, double hi, int cone)
{
    double Nlo, Nhi;
    const double N = mean_contact_N(run, &Nlo, &Nhi);
    csv_table *t = load(run);
    const int ct = col(t, "t"), vl = col(t, "contact_L.vt_max"), vr = col(t, "contact_R.vt_max");
    const int fl = col(t, "contact_L.Ft"), nl = col(t, "contact_L.N");
    const double T = 1.0 / 30.0, mu_s = 0.5;
    double vmax[64] = {0}, ratio[64] = {0}, ftmax[64] = {0};
    for (long r = 0; r < t->nrows; r++) {
        const double tt = csv_at(t, r, ct);
        const int k = (int)(tt / T);
        if (k >= 64) break;
        vmax[k] = fmax(vmax[k], fmax(csv_at(t, r, vl), csv_at(t, r, vr)));
        ftmax[k] = fmax(ftmax[k], fabs(csv_at(t, r, fl)));
        if (csv_at(t, r, nl) > 0) ratio[k] = fmax(ratio[k], fabs(csv_at(t, r, fl)) / csv_at(t, r, nl));
    }
    const double a = 0.138, b = 0.192, share_static = (3 * b - a) / (6 * a);
    double share = 0;
    for (int k = 0; k < 64; k++) {
        const double A = 5.0 * ((k + 1) * T - 0.2) / 1.6;
        if (A >= 1.0 && A <= 2.5) share = fmax(share, ftmax[k] / A);
    }
    double stick = 0;
    int slip = -1;
    for (int k = 0; k < 60 && slip < 0; k++) {
        const double A = fmax(0.0, 5.0 * ((k + 1) * T - 0.2) / 1.6);
        if (A < A_small) stick = fmax(stick, vmax[k]);
        if ((k + 1) * T > 0.3 && vmax[k] > 0.01) slip = k;
    }
    cr_assert(slip > 0, "%s: no slip in the ramp", run);
    double before = 0;
    for (int k = (int)(0.3 / T); k < slip; k++) before = fmax(before, ratio[k]);
    const double A0 = 5.0 * (slip * T - 0.2) / 1.6, Astar = mu_s * N / share_static;
    printf("S2.3 %s: each contact carries F_t = %.3f A while stuck (static cantilevers: %.3f A); peak point speed "
           "while A < %g N: %.3f mm/s (limit 1); slip from t = %.3f s, A = %.2f N = %.3f A* (A* = mu_s N / s = "
           "%.2f N with N = %.3f N; allowed %.2f to %.2f A*); largest F_t / N before: %.3f (mu_s = %.1f)\n",
           run, share, share_static, A_small, 1e3 * stick, slip * T, A0, A0 / Astar, Astar, N, lo, hi, before, mu_s);
    cr_expect(fabs(share / share_static - 1) < 0.1, "%s: share %g", run, share);
    cr_expect(stick < 1e-3, "%s: sliding at %g m/s below A = %g N", run, stick, A_small);
    cr_expect(A0 >= lo * Astar && A0 <= hi * Astar, "%s: slip at %g A*", run, A0 / Astar);
    if (cone) cr_expect(before < mu_s && before > 0.95 * mu_s, "%s: F_t / N %g before slip", run, before);
    csv_free(t);
}

Test(s2, ramp_gkf_slips_at_the_friction_cone) { ramp_transition("ramp_gkf", 2.0, 0.9, 1.1, 1); }

Test(s2, ramp_lugre_slips_near_the_friction_cone) { ramp_transition("ramp_lugre", 1.0, 0.7, 1.05, 0); }

/* sweep run -> centre tip amplitude peak frequency (0.1 s windows), largest left/right tip
 * difference relative to the response after t_sym and before it */
static void sweep_stats(const char *run, double t_sym, double *f_peak, double *amp, double *asym, double *asym_early)
{
    csv_table *t = load(run);
    const int ct = col(t, "t"), xc = col(t, "tip_C.x"), xl = col(t, "tip_L.x"), xr = col(t, "tip_R.x");
    const long win = 1000; /* 0.1 s windows */
    double best_amp = 0, best_f = 0, as = 0, scale = 0, ae = 0;
    for (long i = 0; i + win <= t->nrows; i += win) {
        double lo = INFINITY, hi = -INFINITY;
        for (long r = i; r < i + win; r++) {
            lo = fmin(lo, csv_at(t, r, xc)), hi = fmax(hi, csv_at(t, r, xc));
            const double d = fabs(csv_at(t, r, xl) - csv_at(t, r, xr));
            if (csv_at(t, r, ct) >= t_sym) as = fmax(as, d), scale = fmax(scale, fabs(csv_at(t, r, xl)));
            else ae = fmax(ae, d);
        }
        const double tm = csv_at(t, i + win / 2, ct), f = 30.0 * pow(80.0 / 30.0, tm / 10.0);
        if ((hi - lo) / 2 > best_amp) best_amp = (hi - lo) / 2, best_f = f;
    }
    *f_peak = best_f, *amp = best_amp, *asym = as / scale, *asym_early = ae;
    csv_free(t);
}

/* S2 item 4: the centre tip amplitude peaks between 50 and 60 Hz; left and right
 * tips agree within 1e-6 of the response once the preload has settled (t >= 1.5 s); item 6:
 * energy residual below 1 %. */
Test(s2_sweep, sweep_peak_symmetry_energy)
{
    double f, amp, asym, early;
    sweep_stats("sweep_lugre", 1.5, &f, &amp, &asym, &early);
    const double r = residual("sweep_lugre");
    printf("S2.4 sweep_lugre: centre tip amplitude peaks at %.1f Hz (%.3g m); left/right differ by %.2g of the "
           "response after 1.5 s (%.3g m before, while the preload ramps and the contacts open)\n",
           f, amp, asym, early);
    printf("S2.6 sweep_lugre: energy residual %.3g of the input work\n", r);
    cr_expect(f >= 50 && f <= 60);
    cr_expect(asym < 1e-6);
    cr_expect(r < 0.01);
}

/* The same for gkf. While the preload ramps (0-1 s) the 2 N excitation makes the tie-bosses
 * separate and strike (N up to 13 N), and with gkf's sharp stick branch that phase amplifies
 * rounding: left and right differ by up to a quarter of the response there. The difference then
 * decays with the damping of the antisymmetric motion (1.6e-4 at 1.5 s, 1e-6 at 2 s, 1e-12 from
 * 3.5 s), so symmetry is checked from 2.5 s and the value from 1.5 s is printed. */
Test(s2_sweep, sweep_gkf_peak_symmetry_energy)
{
    double f, amp, asym, early, asym15, e15;
    sweep_stats("sweep_gkf", 2.5, &f, &amp, &asym, &early);
    sweep_stats("sweep_gkf", 1.5, &f, &amp, &asym15, &e15);
    const double r = residual("sweep_gkf");
    printf("S2.4 sweep_gkf: centre tip amplitude peaks at %.1f Hz (%.3g m); left/right differ by %.2g of the "
           "response after 2.5 s (%.2g after 1.5 s, %.3g m before 1.5 s)\n", f, amp, asym, asym15, e15);
    printf("S2.6 sweep_gkf: energy residual %.3g of the input work\n", r);
    cr_expect(f >= 50 && f <= 60);
    cr_expect(asym < 1e-6);
    cr_expect(r < 0.01);
}

/* The implicit gkf step is converged at dt = 1e-5 s: the ramp at t = 1.2 s (stick, slopes of
 * 7000 N s/m per contact) against a run at dt = 2.5e-6 s. Centre tip displacement and friction
 * energy agree within 1e-3 (with the explicit force the energy was 8x off). */
Test(s2_slow, ramp_gkf_converged_in_dt)
{
    csv_table *a = load("ramp_gkf"), *b = load("ramp_gkf_fine");
    const char *names[] = {"tip_C.x", "contact_L.E", "contact_R.E"};
    long ra = -1, rb = -1;
    for (long r = 0; r < a->nrows; r++)
        if (fabs(csv_at(a, r, col(a, "t")) - 1.2) < 1e-9) ra = r;
    for (long r = 0; r < b->nrows; r++)
        if (fabs(csv_at(b, r, col(b, "t")) - 1.2) < 1e-9) rb = r;
    cr_assert(ra >= 0 && rb >= 0, "no row at t = 1.2 s");
    for (int k = 0; k < 3; k++) {
        const double x = csv_at(a, ra, col(a, names[k])), y = csv_at(b, rb, col(b, names[k]));
        printf("S2 ramp_gkf at t = 1.2 s: %s = %.6g (dt 1e-5), %.6g (dt 2.5e-6), relative difference %.2g\n",
               names[k], x, y, fabs(x / y - 1));
        cr_expect(fabs(x / y - 1) < 1e-3);
    }
    csv_free(a);
    csv_free(b);
}

/* run -> the friction energy of both contact sets at the end (summary.json); the run finished, its
 * status "complete" where its energy residual is within time.energy_tolerance (1 %) and "inaccurate"
 * above it (issue 50) */
static double friction_energy(const char *run)
{
    cJSON *j = summary(run), *it;
    double E = 0.0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "contact_sets")) E += cJSON_GetNumberValue(cJSON_GetObjectItem(it, "friction_work_J"));
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(j, "status"));
    const double r = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "energy"), "residual_relative"));
    cr_assert(status && !strcmp(status, r <= 0.01 ? "complete" : "inaccurate"), "%s: status %s with residual %g", run,
              status ? status : "(none)", r);
    cJSON_Delete(j);
    return E;
}

/* Implicit coupling (issue 13): the sweeps at dt = 1e-4, ten times the scenario's step (the normal
 * contact mode has w h of about 2 there), against the dt = 1e-5 fixtures: the centre-tip peak
 * amplitude within 2 % (and its frequency within 0.5 Hz) for both laws, the friction energy
 * within 2 % for lugre. gkf's friction energy is printed: a third of it comes from the preload
 * transient of the first second, where the tie-bosses separate and strike hundreds of times;
 * that phase is chaotic, and even dt = 1e-5 and 2.5e-6 differ by 4 % there
 * (docs/time-stepping.md). The dt = 1e-5 sweeps themselves agree with dt = 2.5e-6 runs within
 * 0.003 % in peak amplitude and 0.3 % (lugre) in friction energy. */
Test(s2_sweep, sweeps_at_dt_1e_4)
{
    const char *laws[2] = {"lugre", "gkf"};
    for (int k = 0; k < 2; k++) {
        char fine[64], coarse[64];
        snprintf(fine, sizeof fine, "sweep_%s", laws[k]);
        snprintf(coarse, sizeof coarse, "sweep_%s_dt1e-4", laws[k]);
        double f5, a5, s5, e5, f4, a4, s4, e4;
        sweep_stats(fine, 1.5, &f5, &a5, &s5, &e5);
        sweep_stats(coarse, 1.5, &f4, &a4, &s4, &e4);
        const double E5 = friction_energy(fine), E4 = friction_energy(coarse), r4 = residual(coarse);
        printf("S2 %s at dt = 1e-4: peak %.6g m at %.2f Hz against %.6g m at %.2f Hz (dt 1e-5): %+.3f %%; "
               "friction energy %.5g J against %.5g J: %+.2f %%; energy residual %.3g\n", laws[k], a4, f4, a5, f5,
               100 * (a4 / a5 - 1), E4, E5, 100 * (E4 / E5 - 1), r4);
        cr_expect(fabs(a4 / a5 - 1) < 0.02, "%s: peak amplitude off by %g", laws[k], a4 / a5 - 1);
        cr_expect(fabs(f4 - f5) < 0.5, "%s: peak at %g Hz against %g", laws[k], f4, f5);
        if (k == 0) cr_expect(fabs(E4 / E5 - 1) < 0.02, "lugre: friction energy off by %g", E4 / E5 - 1);
    }
}

/* Issue 13, item 1 at the extremes: the sweeps at applied preloads 0.2 N and 100 N (before the
 * implicit coupling the first stopped at 6.83 s, the second at 0.465 s with a non-finite state)
 * complete with an energy residual below 1 %. benchmarks/s2-preloads.sh runs all eleven preloads. */
Test(s2_slow, sweeps_at_extreme_preloads)
{
    const char *runs[4] = {"sweep_lugre_P0.2", "sweep_lugre_P100", "sweep_gkf_P0.2", "sweep_gkf_P100"};
    for (int k = 0; k < 4; k++) {
        const double E = friction_energy(runs[k]), r = residual(runs[k]);
        printf("S2 %s: complete, friction energy %.4g J, energy residual %.3g\n", runs[k], E, r);
        cr_expect(r < 0.01, "%s: residual %g", runs[k], r);
    }
}

/* Issue 52, item 1: the S2 sweep (lugre, 10 s) with its beams exported by `bristle export-structure`
 * and read back as a structure given as matrices (fixtures s2_export_structure and
 * s2_run_sweep_lugre_structure) equals the beam run. The matrices read back bitwise (CHOLMOD writes
 * each value's shortest round-trip decimal) and come in the beams' DOF order, so the same
 * operations run on the same numbers: every column is asked to agree within 1e-10 of its own scale
 * (its largest magnitude), the bound, which allows a reordered sum and no more. The
 * eigenfrequencies (`bristle eig`'s) of both models agree within 1e-10 relative and are S2's
 * 53 / 318 / 408 Hz (scenarios.md; the 318 Hz mode is the first in-plane bending, tests/test_beam.c's
 * single blade at 321 Hz). */
Test(s2_sweep, beams_exported_as_a_structure_give_the_same_run)
{
    csv_table *a = load("sweep_lugre"), *b = load("sweep_lugre_structure");
    cr_assert_eq(a->ncols, b->ncols, "columns: %d (beams) against %d (structure)", a->ncols, b->ncols);
    cr_assert_eq(a->nrows, b->nrows, "rows: %ld (beams) against %ld (structure)", a->nrows, b->nrows);
    double worst = 0.0;
    int wc = 0;
    for (int c = 0; c < a->ncols; c++) {
        cr_assert_str_eq(a->names[c], b->names[c]);
        if (!strcmp(a->names[c], "wall_time")) continue;
        double scale = 0.0, d = 0.0;
        for (long r = 0; r < a->nrows; r++) {
            scale = fmax(scale, fabs(a->v[r * a->ncols + c]));
            d = fmax(d, fabs(a->v[r * a->ncols + c] - b->v[r * b->ncols + c]));
        }
        const double rel = scale > 0 ? d / scale : d;
        if (rel > worst) worst = rel, wc = c;
        cr_expect(rel <= 1e-10, "column %s: differs by %.3g of its scale %.3g", a->names[c], rel, scale);
    }
    printf("s2 sweep, beams against the exported structure: %ld rows x %d columns, largest difference %.3g "
           "of its column's scale (%s)\n", a->nrows, a->ncols, worst, a->names[wc]);
    csv_free(a), csv_free(b);
    double f[2][3];
    for (int k = 0; k < 2; k++) {
        char err[1024], path[1024];
        if (k == 0) snprintf(path, sizeof path, "%s/scenarios/blades_sweep_lugre.yaml", SOURCE_DIR);
        else snprintf(path, sizeof path, "%s/structure/scenario.yaml", S2_DIR);
        br_model *m = br_scenario_load(path, NULL, 0, err, sizeof err);
        cr_assert(m, "%s (fixture s2_export_structure)", err);
        cr_assert_eq(m->nbeam, k == 0 ? 3 : 0);
        cr_assert_eq(m->nsup, k == 0 ? 0 : 1);
        br_struct *s = br_struct_build(m, err, sizeof err);
        cr_assert(s, "%s", err);
        double *all = malloc(sizeof(double) * s->ndof);
        cr_assert_eq(br_eig_frequencies(s, NULL, all, err, sizeof err), 0, "%s", err);
        /* the three blades' modes come in threes: the first of each distinct triple */
        f[k][0] = all[0], f[k][1] = all[3], f[k][2] = all[6];
        free(all);
        br_struct_free(s);
        br_model_free(m);
    }
    const double want[3] = {53, 318, 408};
    for (int j = 0; j < 3; j++) {
        cr_expect(fabs(f[1][j] - f[0][j]) <= 1e-10 * f[0][j], "mode %d: %.12g Hz (structure) against %.12g (beams)", j,
                  f[1][j], f[0][j]);
        /* the rounding of the stated figures: 0.5 % */
        cr_expect(fabs(f[1][j] - want[j]) <= 0.005 * want[j], "mode %d: %.6g Hz, S2 says %g", j, f[1][j], want[j]);
    }
    printf("eigenfrequencies: %.6g %.6g %.6g Hz (structure), %.6g %.6g %.6g (beams)\n", f[1][0], f[1][1], f[1][2],
           f[0][0], f[0][1], f[0][2]);
}
