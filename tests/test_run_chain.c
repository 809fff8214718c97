/* test_run_chain.c: issue 19's forced chain (scenarios/chain_jenkins.yaml: three unit masses
 * between walls, the outer two on one-point jenkins contacts, the middle one driven by
 * cos(1.22 t); chain_bristle_implicit.yaml: the same with bristle_implicit contacts), run by the
 * chain_run_* fixtures at dt = 1e-2, 1e-3 and 1e-4 (the 1e-5 references labelled slow). Each run
 * completes with its energy balance closed to 1 %; the steady amplitudes (half the peak-to-peak
 * of each mass over 250 to 300 s) at dt = 1e-3 agree with a ten and a hundred times finer step
 * within 0.5 % (issue 19, acceptance 1). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csvread.h"
#include "jsonread.h"

/* run folder -> the steady amplitude of m1, m2, m3 [m]; the run's status and residual checked */
static void chain_amplitudes(const char *run, double amp[3])
{
    cJSON *j = run_summary(CHAIN_DIR, run);
    const cJSON *st = cJSON_GetObjectItem(j, "status"), *en = cJSON_GetObjectItem(j, "energy");
    cr_assert(cJSON_IsString(st) && !strcmp(st->valuestring, "complete"), "%s did not complete", run);
    const double res = cJSON_GetObjectItem(en, "residual_relative")->valuedouble;
    printf("chain %s: energy residual %.2g of the input work\n", run, res);
    cr_expect(fabs(res) < 1e-2, "%s: energy residual %g", run, res);
    cJSON_Delete(j);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/timeseries.csv", CHAIN_DIR, run);
    csv_table *T = csv_read(path);
    cr_assert(T, "cannot read %s", path);
    static const char *const col[3] = {"m1.x", "m2.x", "m3.x"};
    for (int m = 0; m < 3; m++) {
        int c = -1;
        for (int k = 0; k < T->ncols; k++)
            if (!strcmp(T->names[k], col[m])) c = k;
        cr_assert(c >= 0, "no column %s", col[m]);
        double lo = INFINITY, hi = -INFINITY;
        for (long r = 0; r < T->nrows; r++)
            if (csv_at(T, r, 0) >= 250.0) lo = fmin(lo, csv_at(T, r, c)), hi = fmax(hi, csv_at(T, r, c));
        amp[m] = 0.5 * (hi - lo);
    }
    csv_free(T);
}

/* the amplitudes of run a against those of the reference run b: worst relative difference */
static double compare(const char *a, const char *b)
{
    double A[3], B[3], worst = 0.0;
    chain_amplitudes(a, A);
    chain_amplitudes(b, B);
    for (int m = 0; m < 3; m++) {
        const double d = fabs(A[m] - B[m]) / B[m];
        printf("chain: m%d amplitude %.6f m at %s, %.6f m at %s (%+.3f %%)\n", m + 1, A[m], a, B[m], b,
               100.0 * (A[m] - B[m]) / B[m]);
        worst = fmax(worst, d);
    }
    return worst;
}

Test(chain, completes_at_1e_2_and_matches_1e_4_at_1e_3)
{
    double A[3];
    chain_amplitudes("dt1e-2", A);
    cr_expect(A[0] > 0.1 && A[1] > 0.1, "the chain should move (the outer masses slip)");
    cr_expect(compare("dt1e-3", "dt1e-4") < 5e-3);
}

Test(chain_slow, matches_1e_5_at_1e_3)
{
    cr_expect(compare("dt1e-3", "dt1e-5") < 5e-3);
}

/* bristle_implicit (backward Euler in the slip relaxation): completes at dt = 1e-2 and 1e-3 for
 * sigma1 = 0 to 1e-2 (before, sigma1 = 1e-4 and 1e-5 stopped with non-finite states at 1e-3);
 * sigma1 = 0 is the jenkins return mapping (the same amplitudes to 1e-12); a larger sigma1 moves
 * the amplitudes away from jenkins' less than its step error (0.5 %), and monotonically. */
Test(chain, bristle_implicit_at_any_sigma1)
{
    static const char *const s1[4] = {"0", "1e-5", "1e-4", "1e-2"};
    double J[3], prev = 0.0;
    chain_amplitudes("dt1e-3", J);
    for (int k = 0; k < 4; k++) {
        char run[64];
        double A[3];
        snprintf(run, sizeof run, "bi_s%s_dt1e-2", s1[k]);
        chain_amplitudes(run, A);
        snprintf(run, sizeof run, "bi_s%s_dt1e-3", s1[k]);
        chain_amplitudes(run, A);
        double d = 0.0;
        for (int m = 0; m < 3; m++) d = fmax(d, fabs(A[m] - J[m]) / J[m]);
        printf("chain: bristle_implicit sigma1 = %s at dt 1e-3: amplitudes %.6f %.6f %.6f m, %.2g from jenkins'\n",
               s1[k], A[0], A[1], A[2], d);
        if (k == 0) cr_expect(d < 1e-12, "sigma1 = 0 should be the jenkins return mapping (%g)", d);
        cr_expect(d < 5e-3);
        cr_expect(d >= prev, "the difference from jenkins should grow with sigma1");
        prev = d;
    }
}

Test(chain_slow, bristle_implicit_matches_1e_5_at_1e_3)
{
    cr_expect(compare("bi_s1e-5_dt1e-3", "bi_s1e-5_dt1e-5") < 5e-3);
    cr_expect(compare("bi_s1e-2_dt1e-3", "bi_s1e-2_dt1e-5") < 5e-3);
}
