/* test_beam.c: beam elements, assembly, eigenanalysis and generalized-alpha against
 * analytic results, and the single-blade eigenfrequencies of scenarios.md S2. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "beam.h"
#include "eig.h"
#include "genalpha.h"
#include "scenario.h"

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
