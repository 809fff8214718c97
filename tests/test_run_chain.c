/* test_run_chain.c: issue 19's forced chain (scenarios/chain_jenkins.yaml: three unit masses
 * between walls, the outer two on one-point jenkins contacts, the middle one driven by
 * cos(1.22 t); chain_bristle_implicit.yaml: the same with bristle_implicit contacts), run by the
 * chain_run_* fixtures at dt = 1e-2, 1e-3 and 1e-4 (the 1e-5 references labelled slow). Each run
 * completes with its energy balance closed to 1 %; the steady amplitudes (half the peak-to-peak
 * of each mass over 250 to 300 s) at dt = 1e-3 agree with a ten and a hundred times finer step
 * within 0.5 % (issue 19, acceptance 1), and with an independent event-driven integration of the
 * same piecewise-linear system (SUNDIALS CVODE with root finding at each stick/slip switch) within
 * 0.5 % (issue 19, validation 3). */
#include <criterion/criterion.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <stdio.h>
#include <string.h>

#include "base/csvread.h"
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
        const int c = csv_col(T, col[m]);
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

/* ---- the chain as a piecewise-linear system, integrated event to event by CVODE ----
 * state u1 u2 u3 (displacements from rest), v1 v2 v3, z1 z3 (the jenkins springs of m1, m3).
 * m u1'' = -k u1 - c u1' + k (u2 - u1) + c (u2' - u1') - kt z1
 * m u2'' = -k (u2 - u1) - c (u2' - u1') + k (u3 - u2) + c (u3' - u2') + cos(w t)
 * m u3'' = -k (u3 - u2) - c (u3' - u2') - k u3 - c u3' - kt z3
 * z' = u' while stuck; while slipping z = s mu N / kt is held (s = +-1). Events: a stuck spring
 * reaching |kt z| = mu N starts slipping in the direction of z; a slipping point whose velocity
 * reaches zero (s u' falling through 0) sticks again. The values are the scenario's. */
typedef struct chain_ref {
    double k, c, m, kt, Fl, w;
    int slip[2]; /* 0: stuck, +-1: slipping that way */
} chain_ref;

static int chain_rhs(double t, N_Vector y, N_Vector yd, void *ud)
{
    const chain_ref *q = ud;
    const double *u = N_VGetArrayPointer(y), *v = u + 3, *z = u + 6;
    double *du = N_VGetArrayPointer(yd);
    const double k = q->k, c = q->c;
    for (int i = 0; i < 3; i++) du[i] = v[i];
    du[3] = (-k * u[0] - c * v[0] + k * (u[1] - u[0]) + c * (v[1] - v[0]) - q->kt * z[0]) / q->m;
    du[4] = (-k * (u[1] - u[0]) - c * (v[1] - v[0]) + k * (u[2] - u[1]) + c * (v[2] - v[1]) + cos(q->w * t)) / q->m;
    du[5] = (-k * (u[2] - u[1]) - c * (v[2] - v[1]) - k * u[2] - c * v[2] - q->kt * z[1]) / q->m;
    du[6] = q->slip[0] ? 0.0 : v[0];
    du[7] = q->slip[1] ? 0.0 : v[2];
    return 0;
}

static int chain_roots(double t, N_Vector y, double *g, void *ud)
{
    (void)t;
    const chain_ref *q = ud;
    const double *u = N_VGetArrayPointer(y);
    for (int j = 0; j < 2; j++) {
        const double vj = u[3 + 2 * j], zj = u[6 + j];
        g[j] = q->slip[j] ? q->slip[j] * vj : q->Fl - q->kt * fabs(zj);
    }
    return 0;
}

/* -> the steady amplitudes of the reference (samples every 0.01 s over 250 to 300 s, as the runs) */
static void chain_reference(double amp[3], int *nevents)
{
    chain_ref q = {1.0, 0.02, 1.0, 20.0, 1.0 * 1.0, 2 * M_PI * 0.19416903, {0, 0}};
    SUNContext ctx;
    cr_assert_eq(SUNContext_Create(NULL, &ctx), 0);
    N_Vector y = N_VNew_Serial(8, ctx);
    double *yp = N_VGetArrayPointer(y);
    for (int i = 0; i < 8; i++) yp[i] = 0.0;
    void *mem = CVodeCreate(CV_BDF, ctx);
    cr_assert_eq(CVodeInit(mem, chain_rhs, 0.0, y), CV_SUCCESS);
    cr_assert_eq(CVodeSStolerances(mem, 1e-11, 1e-13), CV_SUCCESS);
    SUNMatrix A = SUNDenseMatrix(8, 8, ctx);
    SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
    cr_assert_eq(CVodeSetLinearSolver(mem, LS, A), CV_SUCCESS);
    CVodeSetUserData(mem, &q);
    CVodeSetMaxNumSteps(mem, 1000000);
    CVodeSetMaxStep(mem, 1e-2);
    cr_assert_eq(CVodeRootInit(mem, 2, chain_roots), CV_SUCCESS);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, t = 0.0;
    *nevents = 0;
    for (int s = 1; s <= 30000; s++) {
        const double tout = 0.01 * s;
        while (t < tout - 1e-12) {
            const int flag = CVode(mem, tout, y, &t, CV_NORMAL);
            cr_assert(flag >= 0, "CVODE failed at t = %g (flag %d)", t, flag);
            if (flag != CV_ROOT_RETURN) continue;
            int info[2];
            CVodeGetRootInfo(mem, info);
            for (int j = 0; j < 2; j++) {
                if (!info[j]) continue;
                double *z = &yp[6 + j];
                if (q.slip[j]) q.slip[j] = 0; /* the slip velocity reached zero: stuck */
                else q.slip[j] = *z > 0 ? 1 : -1, *z = q.slip[j] * q.Fl / q.kt; /* at the limit */
                (*nevents)++;
            }
            cr_assert_eq(CVodeReInit(mem, t, y), CV_SUCCESS);
        }
        if (tout >= 250.0 - 1e-9)
            for (int i = 0; i < 3; i++) lo[i] = fmin(lo[i], yp[i]), hi[i] = fmax(hi[i], yp[i]);
    }
    for (int i = 0; i < 3; i++) amp[i] = 0.5 * (hi[i] - lo[i]);
    CVodeFree(&mem);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
    N_VDestroy(y);
    SUNContext_Free(&ctx);
}

Test(chain, matches_an_event_driven_reference_at_1e_3, .timeout = 120)
{
    double R[3], A[3], worst = 0.0;
    int nev;
    chain_reference(R, &nev);
    chain_amplitudes("dt1e-3", A);
    for (int m = 0; m < 3; m++) {
        printf("chain: m%d amplitude %.6f m at dt 1e-3, %.6f m event-driven (CVODE, %d stick/slip switches) "
               "(%+.3f %%)\n", m + 1, A[m], R[m], nev, 100.0 * (A[m] - R[m]) / R[m]);
        worst = fmax(worst, fabs(A[m] - R[m]) / R[m]);
    }
    cr_expect(nev > 100, "the contacts should stick and slip every cycle (%d switches)", nev);
    cr_expect(worst < 5e-3, "amplitudes off the event-driven reference by %g", worst);
    /* and a ten times finer step is ten times closer (first order) */
    double A4[3], w4 = 0.0;
    chain_amplitudes("dt1e-4", A4);
    for (int m = 0; m < 3; m++) w4 = fmax(w4, fabs(A4[m] - R[m]) / R[m]);
    printf("chain: at dt 1e-4 within %.2g of the event-driven reference\n", w4);
    cr_expect(w4 < 0.15 * worst, "dt 1e-4: %g against %g at 1e-3", w4, worst);
}
