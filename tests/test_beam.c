/* test_beam.c: beam elements, assembly, eigenanalysis and generalized-alpha against
 * analytic results, and the single-blade eigenfrequencies of scenarios.md S2. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/beam.h"
#include "model/superel.h"
#include "io/matrix_file.h"
#include <matio.h>
#include "analysis/eig.h"
#include "step/genalpha.h"
#include "io/scenario.h"

static const double PI = 3.14159265358979323846;

static br_model *parse(const char *yaml)
{
    char err[1024];
    br_model *m = br_scenario_parse("test.yaml", yaml, strlen(yaml), NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    return m;
}

/* A steel cantilever along Z with nel elements, clamped at node 0, b along Y. */
static br_model *cantilever(int nel, double L)
{
    static char y[8192];
    int k = snprintf(y, sizeof y, "time: {end: 1, dt: 1e-5}\nbeams:\n  - name: c\n    nodes: [");
    for (int i = 0; i <= nel; i++) k += snprintf(y + k, sizeof y - k, "%s[0, 0, %.17g]", i ? ", " : "", L * i / nel);
    snprintf(y + k, sizeof y - k, "]\n    clamp: [0]\n    section: {b: 0.03, t: 0.005, width_axis: [0, 1, 0]}\n"
                                  "    E: 2.1e11\n    nu: 0.3\n    rho: 7800\n");
    return parse(y);
}

/* Cubic Hermite elements are nodally exact for end loads: tip deflection P L^3 / (3 E I) in
 * both bending planes, P L / (E A) axially, T L / (G J) in torsion. */
Test(beam, cantilever_static_tip_loads_are_exact)
{
    const double L = 0.2, E = 2.1e11, G = E / 2.6, b = 0.03, t = 0.005;
    br_model *m = cantilever(4, L);
    char err[256];
    br_struct *s = br_struct_build(m, err, sizeof err);
    cr_assert(s, "%s", err);
    const int n = s->ndof, tip = 4;
    const double r = t / b, J = b * t * t * t * (1.0 / 3 - 0.21 * r * (1 - r * r * r * r / 12));
    const double expect[4] = {1.0 * L * L * L / (3 * E * b * t * t * t / 12), /* X: thickness, weak */
                              1.0 * L * L * L / (3 * E * t * b * b * b / 12), /* Y: width, stiff */
                              1.0 * L / (E * b * t), 1.0 * L / (G * J)};
    const int dofs[4] = {0, 1, 2, 5};
    for (int c = 0; c < 4; c++) {
        double K[64 * 64], f[64] = {0};
        cr_assert(n <= 64);
        memcpy(K, s->K, sizeof(double) * n * n);
        f[s->dof[6 * tip + dofs[c]]] = 1.0;
        cr_assert_eq(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, K, n, f, n), 0);
        const double got = f[s->dof[6 * tip + dofs[c]]];
        printf("beam: unit tip load on DOF %d: %.9g, analytic %.9g (%.1e)\n", dofs[c], got, expect[c],
               fabs(got / expect[c] - 1));
        cr_expect(fabs(got / expect[c] - 1) < 1e-9);
    }
    br_struct_free(s);
    br_model_free(m);
}

/* First bending frequencies of a uniform cantilever: (1.8751)^2 sqrt(E I / (rho A L^4)) / (2 pi),
 * with 12 consistent-mass elements within 1e-4. */
Test(beam, cantilever_first_frequencies)
{
    const double L = 0.2, E = 2.1e11, rho = 7800, b = 0.03, t = 0.005, A = b * t;
    br_model *m = cantilever(12, L);
    char err[256];
    br_struct *s = br_struct_build(m, err, sizeof err);
    cr_assert(s);
    double f[80];
    cr_assert_eq(br_eig_frequencies(s, NULL, f, err, sizeof err), 0, "%s", err);
    const double bl = 1.875104068711961;
    const double fx = bl * bl * sqrt(E * b * t * t * t / 12 / (rho * A * L * L * L * L)) / (2 * PI);
    const double fy = bl * bl * sqrt(E * t * b * b * b / 12 / (rho * A * L * L * L * L)) / (2 * PI);
    printf("beam: cantilever f1 = %.6g Hz (analytic %.6g), first in-plane %.6g Hz (analytic %.6g)\n", f[0], fx,
           f[1], fy);
    cr_expect(fabs(f[0] / fx - 1) < 1e-4);
    cr_expect(fabs(f[1] / fy - 1) < 1e-4);
    br_struct_free(s);
    br_model_free(m);
}

/* S2 item 1: the single blade at 53, 321, 408 Hz within 3 %. */
Test(beam, single_blade_eigenfrequencies)
{
    char err[1024];
    br_model *m = br_scenario_load(SOURCE_DIR "/scenarios/blade_single.yaml", NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    br_struct *s = br_struct_build(m, err, sizeof err);
    cr_assert(s);
    cr_assert_eq(s->ndof, 24);
    double f[24];
    cr_assert_eq(br_eig_frequencies(s, NULL, f, err, sizeof err), 0);
    const double want[3] = {53, 321, 408};
    for (int k = 0; k < 3; k++) {
        printf("S2.1 blade_single: mode %d at %.4g Hz (expected %g Hz, %.2f %% off)\n", k + 1, f[k], want[k],
               100 * fabs(f[k] / want[k] - 1));
        cr_expect(fabs(f[k] / want[k] - 1) < 0.03);
    }
    br_struct_free(s);
    br_model_free(m);
}

/* generalized-alpha on one DOF, x'' + w^2 x = 0, x(0) = 1: rho_inf = 1 (trapezoidal) keeps the
 * amplitude and is second order (error ratio 4 per halving of h); rho_inf = 0 annihilates a
 * mode with w h = 100 within a few steps while a resolved mode (w h = 0.01) keeps its amplitude
 * to 1e-4 over one period. */
static double run_sdof(double w, double h, double rho, double T, double *amp)
{
    const double M = 1, C = 0, K = w * w;
    char err[128];
    br_genalpha *g = br_genalpha_create(1, &M, &C, &K, rho, h, err, sizeof err);
    cr_assert(g);
    g->u[0] = 1.0;
    const double f = 0.0;
    br_genalpha_start(g, &f);
    const long n = (long)llround(T / h);
    for (long k = 0; k < n; k++) br_genalpha_step(g, &f);
    const double e = fabs(g->u[0] - cos(w * n * h));
    *amp = sqrt(g->u[0] * g->u[0] + g->v[0] * g->v[0] / (w * w));
    br_genalpha_free(g);
    return e;
}

Test(genalpha, order_and_high_frequency_damping)
{
    const double w = 2 * PI * 10, T = 0.5125; /* 5.125 periods: the phase error shows at first order */
    double amp, e1 = run_sdof(w, 1e-3, 1.0, T, &amp), e2 = run_sdof(w, 5e-4, 1.0, T, &amp);
    printf("genalpha: rho_inf = 1: error %.3g at h = 1e-3, %.3g at h/2 (ratio %.3f), amplitude %.12f\n", e1, e2,
           e1 / e2, amp);
    cr_expect(e1 / e2 > 3.8 && e1 / e2 < 4.2);
    cr_expect(fabs(amp - 1) < 1e-12);
    double e0 = run_sdof(w, 1e-3, 0.0, T, &amp), e0b = run_sdof(w, 5e-4, 0.0, T, &amp);
    printf("genalpha: rho_inf = 0: error ratio %.3f per halving\n", e0 / e0b);
    cr_expect(e0 / e0b > 3.5 && e0 / e0b < 4.5);
    run_sdof(w, 0.01 / w, 0.0, 2 * PI / w, &amp);
    printf("genalpha: rho_inf = 0, w h = 0.01: amplitude after one period %.8f\n", amp);
    cr_expect(fabs(amp - 1) < 1e-4);
    run_sdof(100.0 / 1e-3, 1e-3, 0.0, 5e-3, &amp);
    printf("genalpha: rho_inf = 0, w h = 100: amplitude after 5 steps %.3g\n", amp);
    cr_expect(amp < 1e-3);
}

/* The low-rank term of br_genalpha_solve (the linearly implicit contact forces): a spring k and a
 * damper c between DOFs 0 and 2 of a 4-DOF chain, given as the explicit force at the predicted
 * state, -L^T (k L u_pred + c L v_pred), plus E = ck k + cc c on the row L = e0 - e2, must
 * reproduce the run with k and c assembled into K and C, for rho_inf = 0 and 0.6 (the predicted
 * state of br_genalpha_predict is the one that makes the two the same). The two solve the same
 * linear equations by different algebra (Woodbury against the effective matrix), so they agree
 * to rounding: checked to 1e-10 of the response over 2000 steps with h c / m up to 5 and
 * k h^2 / m up to 25. The same force taken explicitly (E = NULL) diverges, which is why the solve
 * carries it. */
Test(genalpha, lowrank_term_equals_assembled_spring_and_damper)
{
    enum { n = 4 };
    const double h = 1e-3, c = 5.0, k = 2.5e4;
    for (int pass = 0; pass < 2; pass++) {
    const double rho = pass ? 0.6 : 0.0;
    /* the spring and damper act on the first of six rows (E is block diagonal in 6 x 6 blocks) */
    double M[n * n] = {0}, C[n * n] = {0}, K[n * n] = {0}, C2[n * n], K2[n * n], L[6 * n] = {1, 0, -1, 0};
    for (int i = 0; i < n; i++) {
        M[i * n + i] = 1e-3 * (1 + i);
        C[i * n + i] = 0.01;
        K[i * n + i] = 2e3;
        if (i + 1 < n) K[i * n + i + 1] = K[(i + 1) * n + i] = -1e3;
    }
    memcpy(C2, C, sizeof C);
    memcpy(K2, K, sizeof K);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) C2[b * n + a] += c * L[a] * L[b], K2[b * n + a] += k * L[a] * L[b];
    char err[128];
    br_genalpha *g1 = br_genalpha_create(n, M, C, K, rho, h, err, sizeof err);
    br_genalpha *g2 = br_genalpha_create(n, M, C2, K2, rho, h, err, sizeof err);
    cr_assert(g1 && g2);
    cr_assert_eq(br_genalpha_lowrank(g1, 6, L), 0);
    double ck, cc;
    br_genalpha_coeffs(g1, &ck, &cc);
    double f0[n] = {0}, f[n], E[36] = {ck * k + cc * c}, diff = 0, scale = 0, up[n], vp[n];
    br_genalpha_start(g1, f0);
    br_genalpha_start(g2, f0);
    for (long s = 0; s < 2000; s++) {
        const double t = (s + 1 - g1->af) * h, drive = sin(2 * PI * 20 * t);
        br_genalpha_predict(g1, up, vp);
        double lu = 0, lv = 0;
        for (int i = 0; i < n; i++) lu += L[i] * up[i], lv += L[i] * vp[i];
        for (int i = 0; i < n; i++) f[i] = (i == 3 ? drive : 0.0) - L[i] * (k * lu + c * lv);
        cr_assert_eq(br_genalpha_solve(g1, f, E), 0);
        br_genalpha_advance(g1);
        f[0] = f[1] = f[2] = 0.0, f[3] = drive;
        br_genalpha_step(g2, f);
        for (int i = 0; i < n; i++) diff = fmax(diff, fabs(g1->u[i] - g2->u[i])), scale = fmax(scale, fabs(g2->u[i]));
    }
    /* the explicit force alone */
    br_genalpha *g3 = br_genalpha_create(n, M, C, K, rho, h, err, sizeof err);
    cr_assert(g3);
    br_genalpha_start(g3, f0);
    double big = 0;
    for (long s = 0; s < 2000 && big < 1e3; s++) {
        const double t = (s + 1 - g3->af) * h, drive = sin(2 * PI * 20 * t);
        br_genalpha_predict(g3, up, vp);
        double lu = 0, lv = 0;
        for (int i = 0; i < n; i++) lu += L[i] * up[i], lv += L[i] * vp[i];
        for (int i = 0; i < n; i++) f[i] = (i == 3 ? drive : 0.0) - L[i] * (k * lu + c * lv);
        br_genalpha_step(g3, f);
        for (int i = 0; i < n; i++) big = fmax(big, fabs(g3->u[i]));
    }
    printf("genalpha (rho_inf %.1f): low-rank spring and damper against the assembled ones: largest difference "
           "%.3g of the response %.3g m; explicit: %.3g m\n", rho, diff, scale, big);
    cr_expect(scale > 1e-5);
    cr_expect(diff < 1e-10 * scale);
    cr_expect(big > 1e3 * scale, "the explicit spring and damper should have diverged");
    br_genalpha_free(g1);
    br_genalpha_free(g2);
    br_genalpha_free(g3);
    }
}

/* Modal damping of a structure given as matrices (physics.md 5.1): C = M Phi diag(2 zeta_k w_k) Phi^T M.
 * With one ratio for every mode, C = 2 zeta M (M^-1 K)^(1/2), so (M^-1 C)^2 = 4 zeta^2 M^-1 K: checked
 * on a 4-DOF chain with unequal masses (no eigenvector in the check), within 1e-10 of M^-1 K's
 * largest entry (dsygv's eigenvectors are accurate to rounding times the modes' spread, about 1e2
 * here). With a list, each mode gets its own ratio: Phi_k^T C Phi_k = 2 zeta_k w_k, Phi_k from
 * the closed form of a 2-DOF system. */
Test(superel, modal_damping_is_modal)
{
    enum { N = 4 };
    const double m[N] = {1.0, 2.0, 0.5, 3.0}, k = 1e4, zeta = 0.03;
    double M[N * N] = {0}, K[N * N] = {0}, C[N * N], A[N * N], B[N * N], Q[N * N];
    for (int i = 0; i < N; i++) {
        M[i * N + i] = m[i];
        K[i * N + i] = i + 1 < N ? 2 * k : k;
        if (i + 1 < N) K[i * N + i + 1] = K[(i + 1) * N + i] = -k;
    }
    cr_assert_eq(br_superel_modal_damping(N, M, K, &zeta, 1, 1, C), 0);
    double worst = 0, scale = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) A[j * N + i] = C[j * N + i] / m[i], B[j * N + i] = K[j * N + i] / m[i];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int l = 0; l < N; l++) s += A[l * N + i] * A[j * N + l];
            Q[j * N + i] = s;
            scale = fmax(scale, fabs(B[j * N + i]));
        }
    for (int i = 0; i < N * N; i++) worst = fmax(worst, fabs(Q[i] - 4 * zeta * zeta * B[i]));
    cr_expect(worst <= 1e-10 * 4 * zeta * zeta * scale, "(M^-1 C)^2 - 4 zeta^2 M^-1 K: %.3g of %.3g", worst,
              4 * zeta * zeta * scale);
    /* two modes, two ratios: M = I, K = [2 -1; -1 2] k: w^2 = k (Phi = [1 1]/sqrt 2) and 3k ([1 -1]/sqrt 2) */
    const double M2[4] = {1, 0, 0, 1}, K2[4] = {2 * k, -k, -k, 2 * k}, z2[2] = {0.01, 0.05};
    double C2[4];
    cr_assert_eq(br_superel_modal_damping(2, M2, K2, z2, 2, 0, C2), 0);
    const double w[2] = {sqrt(k), sqrt(3 * k)}, sg[2] = {1, -1};
    for (int q = 0; q < 2; q++) {
        const double p0 = 1 / sqrt(2.0), p1 = sg[q] / sqrt(2.0);
        const double c = p0 * (C2[0] * p0 + C2[2] * p1) + p1 * (C2[1] * p0 + C2[3] * p1);
        cr_expect(fabs(c - 2 * z2[q] * w[q]) <= 1e-10 * 2 * z2[q] * w[q], "mode %d: %.17g against %.17g", q, c,
                  2 * z2[q] * w[q]);
    }
    /* and the modes do not couple: Phi_1^T C Phi_2 = (C_11 - C_22) / 2 for this C symmetric */
    const double x = (C2[0] - C2[3]) / 2;
    cr_expect(fabs(x) <= 1e-10 * C2[0], "Phi_1^T C Phi_2 = %.3g", x);
}

/* MATLAB v7.3 files (HDF5 inside) read as v5 ones: a matrix written by libmatio in v7.3 and in v5 reads
 * back bitwise in both (SciPy, the other tests' writer, writes no v7.3) */
Test(superel, mat_v73_reads_as_v5)
{
    double A[6] = {1.0 / 3.0, -2.5e-7, 4.0, 1e300, -0.0, 7.0};
    size_t dims[2] = {2, 3};
    const enum mat_ft ver[2] = {MAT_FT_MAT73, MAT_FT_MAT5};
    for (int k = 0; k < 2; k++) {
        char path[256], err[1024];
        snprintf(path, sizeof path, "%s/v%d.mat", TEST_TMP, k);
        mat_t *f = Mat_CreateVer(path, NULL, ver[k]);
        cr_assert(f, "libmatio cannot write %s", path);
        matvar_t *v = Mat_VarCreate("A", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, A, 0);
        cr_assert_eq(Mat_VarWrite(f, v, MAT_COMPRESSION_NONE), 0);
        Mat_VarFree(v);
        Mat_Close(f);
        br_matrix B;
        cr_assert_eq(br_matrix_read(path, "A", 100, &B, err, sizeof err), 0, "%s", err);
        cr_assert_eq(B.nrow, 2);
        cr_assert_eq(B.ncol, 3);
        cr_expect_eq(memcmp(A, B.a, sizeof A), 0, "version %d: values differ", k);
        br_matrix_free(&B);
        cr_expect_neq(br_matrix_read(path, "B", 100, &B, err, sizeof err), 0);
        cr_expect(strstr(err, "no variable 'B'") && !strncmp(err, path, strlen(path)), "%s", err);
    }
}
