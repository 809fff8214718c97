/* test_ga_batch.c: the generalized-alpha steps of a batch of variants (host/step/ga_batch.c on the
 * CPU, kernels/ga_cuda.cu on a GPU) against each variant's own integrator: on the S2 bundle (72
 * DOF, two contact sets: 12 low-rank rows), mistuned as S5b mistunes it, every step's row changes
 * and the final state bitwise equal to br_genalpha's with the header's LU (own_lu), within
 * rounding of it with LAPACK's; the GPU batch bitwise equal to the CPU batch (skipped, with the
 * reason printed, where no GPU is usable). */
#include <criterion/criterion.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuskip.h"
#include "kernels/ga_step.h"
#include "field/field.h"
#include "step/ga_batch.h"
#include "io/scenario.h"
#include "step/sim.h"

#define S2_SWEEP SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml"

/* one variant of the S2 bundle: its model and data (no field), blade moduli scaled by e[3] */
typedef struct tvar {
    br_model *m;
    br_data *d;
} tvar;

static void tvar_make(tvar *t, const double e[3])
{
    char s[3][96], err[1024];
    const char *blade[3] = {"blade_L", "blade_C", "blade_R"};
    const char *sets[3];
    for (int b = 0; b < 3; b++) snprintf(s[b], sizeof s[b], "beams.%s.E=%.17g", blade[b], 2.1e11 * e[b]), sets[b] = s[b];
    t->m = br_scenario_load(S2_SWEEP, sets, 3, err, sizeof err);
    cr_assert_not_null(t->m, "%s", err);
    t->d = br_data_create_opt(t->m, BR_BACKEND_CPU, 0, err, sizeof err);
    cr_assert_not_null(t->d, "%s", err);
    cr_assert_not_null(t->d->ga);
    cr_assert_eq(t->d->ga->nr, 12, "two contact sets on the structure");
}

static void tvar_free(tvar *t)
{
    br_data_free(t->d);
    br_model_free(t->m);
}

/* the S5b draws of a few bundles: moduli scaled by 1 + d, d of a 2 % spread; variant k uses row k % 5 */
static const double MIST[5][3] = {
    {1.0, 1.0, 1.0}, {1.013, 0.981, 1.027}, {0.975, 1.004, 0.992}, {1.031, 1.019, 0.968}, {0.99, 0.97, 1.01}};

/* step k, variant v, DOF i -> a load of order 1 N varying in time and across variants */
static double load(int k, int v, int i) { return 0.7 * sin(0.37 * i + 2 * M_PI * 60.0 * 1e-5 * k + 0.3 * v) + 0.1 * cos(0.11 * i * v); }

/* step k, variant v, entry q of the 72 -> E of a contact set, ck K + cc C, of order 1e-2 kg: symmetric
 * and positive definite (diagonally dominant) as a stuck contact's, its rotation rows and columns
 * scaled by a lever arm of 0.01 m (moments of forces spread over a face), changing with the step as
 * the tangents change */
static double eblock(int k, int v, int q)
{
    const int blk = q / 36, e = q % 36, i = e % 6, j = e / 6;
    const double c = 1.0 + 0.3 * sin(0.05 * k + 0.7 * v + blk);
    const double arm = (i >= 3 ? 0.01 : 1.0) * (j >= 3 ? 0.01 : 1.0);
    return c * arm * (i == j ? 0.05 + 0.01 * i : 0.004 * sin(1.3 * (i + j) + blk));
}

/* nv variants (MIST rows v % 5, or all tuned), steps, backend of the batch, LU of the references,
 * exact -> the batch against each variant's own integrator: row changes every step and the final
 * state, bitwise (exact) or within rel of the state's size */
static void against_own_opt(int nv, int mistuned, int steps, br_backend_kind backend, int own_lu, double rel, int share)
{
    tvar *t = calloc((size_t)nv, sizeof *t);
    br_genalpha **g = calloc((size_t)nv, sizeof *g);
    for (int v = 0; v < nv; v++) {
        tvar_make(&t[v], MIST[mistuned ? v % 5 : 0]);
        g[v] = t[v].d->ga;
        g[v]->own_lu = own_lu;
    }
    char err[512];
    br_ga_batch *B = br_ga_batch_create_opt(g, nv, backend, share, err, sizeof err);
    cr_assert_not_null(B, "%s", err);
    const int n = g[0]->n, nr = g[0]->nr;
    double *f = malloc((size_t)n * nv * sizeof(double)), *E = malloc((size_t)6 * nr * nv * sizeof(double));
    double *du = malloc((size_t)nr * nv * sizeof(double)), *dv = malloc((size_t)nr * nv * sizeof(double));
    double *dm = malloc((size_t)nr * nv * sizeof(double));
    double *fv = malloc((size_t)n * sizeof(double)), *Ev = malloc((size_t)6 * nr * sizeof(double));
    double rdu[12], rdv[12], rdm[12];
    int *bad = malloc((size_t)nv * sizeof(int));
    double worst = 0.0;
    long bitwise_rows = 0;
    for (int k = 0; k < steps; k++) {
        const int with_E = k % 50 != 7; /* now and then a step with no contact term */
        for (int v = 0; v < nv; v++) {
            for (int i = 0; i < n; i++) f[(size_t)i * nv + v] = load(k, v, i);
            for (int q = 0; q < 6 * nr; q++) E[(size_t)q * nv + v] = eblock(k, v, q);
        }
        cr_assert_eq(br_ga_batch_step(B, f, with_E ? E : NULL, du, dv, dm, bad, err, sizeof err), 0, "%s", err);
        for (int v = 0; v < nv; v++) {
            for (int i = 0; i < n; i++) fv[i] = f[(size_t)i * nv + v];
            for (int q = 0; q < 6 * nr; q++) Ev[q] = E[(size_t)q * nv + v];
            cr_assert_eq(br_genalpha_solve(g[v], fv, with_E ? Ev : NULL), 0);
            br_genalpha_row_changes(g[v], rdu, rdv, rdm);
            br_genalpha_advance(g[v]);
            cr_assert_eq(bad[v], 0);
            for (int r = 0; r < nr; r++) {
                const double b3[3] = {du[(size_t)r * nv + v], dv[(size_t)r * nv + v], dm[(size_t)r * nv + v]};
                const double o3[3] = {rdu[r], rdv[r], rdm[r]};
                if (rel == 0.0) cr_assert(!memcmp(b3, o3, sizeof b3), "step %d variant %d row %d: %.17g %.17g %.17g against %.17g %.17g %.17g",
                                          k, v, r, b3[0], b3[1], b3[2], o3[0], o3[1], o3[2]);
                bitwise_rows += !memcmp(b3, o3, sizeof b3);
            }
        }
        /* every matrix a variant's: the structure's energies in lanes, bitwise each variant's own sums */
        const br_ga_arrays *A = br_ga_batch_arrays(B);
        for (int v0 = 0; !share && backend == BR_BACKEND_CPU && v0 + BR_GA_LANES <= nv; v0 += BR_GA_LANES) {
            br_ga_var x;
            double ek[BR_GA_LANES], ee[BR_GA_LANES];
            br_ga_arrays_var(A, v0, &x);
            br_ga_energies_l(br_ga_batch_shape(B), &x, BR_GA_LANES, ek, ee);
            for (int l = 0; l < BR_GA_LANES; l++) {
                double k1, e1;
                br_ga_arrays_var(A, v0 + l, &x);
                br_ga_energies(br_ga_batch_shape(B), &x, &k1, &e1);
                cr_assert(ek[l] == k1 && ee[l] == e1 && (k > 0 || k1 >= 0.0), "step %d variant %d: energies in lanes %.17g %.17g, "
                          "alone %.17g %.17g", k, v0 + l, ek[l], ee[l], k1, e1);
                cr_assert(k < 10 || (k1 > 0.0 && e1 > 0.0), "step %d variant %d: the structure moves (%g, %g J)", k, v0 + l, k1, e1);
            }
        }
    }
    double *u = malloc((size_t)n * sizeof(double)), *w = malloc((size_t)n * sizeof(double)), *a = malloc((size_t)n * sizeof(double));
    for (int v = 0; v < nv; v++) {
        cr_assert_eq(br_ga_batch_state(B, v, u, w, a, err, sizeof err), 0, "%s", err);
        double umax = 0.0, vmax = 0.0, amax = 0.0, du_ = 0.0, dv_ = 0.0, da_ = 0.0;
        for (int i = 0; i < n; i++) {
            umax = fmax(umax, fabs(g[v]->u[i])), vmax = fmax(vmax, fabs(g[v]->v[i])), amax = fmax(amax, fabs(g[v]->a[i]));
            du_ = fmax(du_, fabs(u[i] - g[v]->u[i])), dv_ = fmax(dv_, fabs(w[i] - g[v]->v[i])), da_ = fmax(da_, fabs(a[i] - g[v]->a[i]));
        }
        cr_assert_gt(umax, 1e-9, "the loads moved the structure");
        worst = fmax(worst, fmax(du_ / umax, fmax(dv_ / vmax, da_ / amax)));
        if (getenv("GA_BATCH_VERBOSE")) fprintf(stderr, "variant %d: u %.3g v %.3g a %.3g\n", v, du_ / umax, dv_ / vmax, da_ / amax);
        if (rel == 0.0)
            cr_assert(!memcmp(u, g[v]->u, (size_t)n * sizeof(double)) && !memcmp(w, g[v]->v, (size_t)n * sizeof(double)) &&
                          !memcmp(a, g[v]->a, (size_t)n * sizeof(double)),
                      "variant %d: state not bitwise (relative %g)", v, worst);
    }
    fprintf(stderr, "batch (%s, %s) of %d variants against their own steps (%s LU), %d steps: worst relative state difference %.3g, "
                    "%ld of %ld row changes bitwise\n",
            br_ga_batch_backend(B), br_ga_batch_device(B), nv, own_lu ? "the header's" : "LAPACK's", steps, worst, bitwise_rows,
            (long)steps * nv * nr);
    cr_assert_leq(worst, rel, "relative difference %g", worst);
    free(u), free(w), free(a), free(f), free(E), free(du), free(dv), free(dm), free(fv), free(Ev), free(bad);
    br_ga_batch_destroy(B);
    for (int v = 0; v < nv; v++) tvar_free(&t[v]);
    free(t), free(g);
}

static void against_own(int nv, int mistuned, int steps, br_backend_kind backend, int own_lu, double rel)
{
    against_own_opt(nv, mistuned, steps, backend, own_lu, rel, 1);
}

Test(ga_batch, cpu_is_bitwise_each_variants_own_step)
{
    against_own(7, 1, 300, BR_BACKEND_CPU, 1, 0.0);
}

/* no matrix shared: the CPU steps eight variants at a time in vector lanes (kernels/ga_step.h's _l
 * functions), the last three one by one; every lane bitwise its variant's own step */
Test(ga_batch, lanes_are_bitwise_each_variants_own_step)
{
    against_own_opt(11, 1, 300, BR_BACKEND_CPU, 1, 0.0, 0);
}

Test(ga_batch, shared_matrices_are_bitwise_each_variants_own_step)
{
    against_own(4, 0, 300, BR_BACKEND_CPU, 1, 0.0);
}

/* The solve by rows (kernels/ga_step.h's br_ga_solve_rows: the phases a GPU runs a thread an
 * entry) against the column loops of br_ga_batch_one, on the CPU: five mistuned variants, 300
 * steps, now and then one without the contact term; every row change and the state bitwise; with
 * the symmetric products (sym 1, set here: the S2 beams' matrices are symmetric) and with whole columns */
static void rows_against_columns(int sym)
{
    enum { NV = 5, STEPS = 300 };
    tvar t[2 * NV];
    br_genalpha *g[2][NV];
    for (int v = 0; v < 2 * NV; v++) {
        tvar_make(&t[v], MIST[v % NV]);
        g[v / NV][v % NV] = t[v].d->ga;
        t[v].d->ga->own_lu = 1;
        cr_assert(br_genalpha_symmetric(t[v].d->ga));
        t[v].d->ga->sym = sym;
    }
    char err[512];
    br_ga_batch *B = br_ga_batch_create(g[0], NV, BR_BACKEND_CPU, err, sizeof err);
    br_ga_batch *R = br_ga_batch_create(g[1], NV, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(B && R, "%s", err);
    const br_ga_shape *sh = br_ga_batch_shape(R);
    const br_ga_arrays *A = br_ga_batch_arrays(R);
    const int n = g[0][0]->n, nr = g[0][0]->nr;
    cr_assert_gt(nr, 0);
    double *f = malloc((size_t)n * NV * sizeof(double)), *E = malloc((size_t)6 * nr * NV * sizeof(double));
    double *du[2], *dv[2], *dm[2];
    for (int k = 0; k < 2; k++)
        du[k] = malloc((size_t)nr * NV * sizeof(double)), dv[k] = malloc((size_t)nr * NV * sizeof(double)),
        dm[k] = malloc((size_t)nr * NV * sizeof(double));
    int bad[NV];
    long same = 0;
    for (int k = 0; k < STEPS; k++) {
        const int with_E = k % 50 != 7;
        for (int v = 0; v < NV; v++) {
            for (int i = 0; i < n; i++) f[(size_t)i * NV + v] = load(k, v, i);
            for (int q = 0; q < 6 * nr; q++) E[(size_t)q * NV + v] = eblock(k, v, q);
        }
        cr_assert_eq(br_ga_batch_step(B, f, with_E ? E : NULL, du[0], dv[0], dm[0], bad, err, sizeof err), 0, "%s", err);
        for (int v = 0; v < NV; v++) {
            br_ga_var x;
            br_ga_arrays_var(A, v, &x);
            cr_assert_eq(br_ga_solve_rows(sh, &x, f + v, NV, with_E ? E + v : NULL, NV), 0);
            br_ga_row_changes(sh, &x, du[1] + v, dv[1] + v, dm[1] + v, NV);
            br_ga_advance(sh, &x);
        }
        const size_t rb = (size_t)nr * NV * sizeof(double);
        cr_assert(!memcmp(du[0], du[1], rb) && !memcmp(dv[0], dv[1], rb) && !memcmp(dm[0], dm[1], rb),
                  "step %d: the row changes differ", k);
        same += 3L * nr * NV;
    }
    const br_ga_arrays *A0 = br_ga_batch_arrays(B);
    const size_t sb = (size_t)n * NV * sizeof(double);
    cr_assert(!memcmp(A0->u, A->u, sb) && !memcmp(A0->v, A->v, sb) && !memcmp(A0->a, A->a, sb), "the states differ");
    double umax = 0.0;
    for (size_t i = 0; i < (size_t)n * NV; i++) umax = fmax(umax, fabs(A->u[i]));
    cr_assert_gt(umax, 1e-9, "the loads moved the structure");
    cr_assert_eq(sh->sym, sym);
    fprintf(stderr, "solve by rows against the column solve (%s), %d variants, %d steps: %ld of %ld row changes and the "
                    "states bitwise\n", sym ? "symmetric products" : "whole columns", NV, STEPS, same, 3L * nr * NV * STEPS);
    free(f), free(E);
    for (int k = 0; k < 2; k++) free(du[k]), free(dv[k]), free(dm[k]);
    br_ga_batch_destroy(B), br_ga_batch_destroy(R);
    for (int v = 0; v < 2 * NV; v++) tvar_free(&t[v]);
}

Test(ga_batch, solve_by_rows_is_the_column_solve) { rows_against_columns(1); }

Test(ga_batch, solve_by_rows_is_the_column_solve_with_whole_columns) { rows_against_columns(0); }

/* LAPACK's dgesv (OpenBLAS, its own order and FMAs) against the header's LU in the same run:
 * rounding only, 300 steps */
/* The symmetric products (br_ga_shape's sym: M, C, K and Keff^-1 read from their diagonals down, the single
 * runs' and the batches' default where the matrices are symmetric entry for entry and large, set here for the S2
 * beams' 72 DOF, whose matrices are symmetric) against
 * the whole columns: one mistuned variant stepped both ways, 300 steps with the loads and contact blocks above.
 * The two do the same products with each entry's sum in another order, so each step's solution differs by
 * rounding of its terms: at most about n eps (72 eps, 1.6e-14) of the terms' size, and the terms of the
 * right-hand side (K u, M a) are at most about the stiffest mode's w^2 h^2 / (h^2 w^2 + 1) ~ 1 of the solved
 * acceleration's scale for this generalized-alpha step, so 1e-14 a step; the scheme is stable (spectral radius at
 * most 1), so over 300 steps the differences add to at most 300 of those, 5e-12 of the state's size: the bound
 * below is 1e-11 (measured: printed). The energies v^T M v / 2 and u^T K u / 2 of one state summed both ways:
 * each sum is a tree of depth at most 2 n (a column's dot8, then the columns), so each is within (2 n + 1) eps of
 * the sum of its terms' magnitudes (|v|^T |M| |v| / 2, formed here) and the two within twice that. */
Test(ga_batch, symmetric_products_are_the_whole_columns_to_rounding)
{
    tvar t[2];
    for (int k = 0; k < 2; k++) tvar_make(&t[k], MIST[1]);
    br_genalpha *gs = t[0].d->ga, *gf = t[1].d->ga;
    cr_assert(br_genalpha_symmetric(gs), "the S2 beams' M, C and K are symmetric entry for entry");
    cr_assert_eq(gs->sym, 0, "72 DOF are below BR_GA_SYM_MIN: whole columns by default");
    gs->sym = 1, gf->sym = 0;
    gs->own_lu = gf->own_lu = 1;
    const int n = gs->n, nr = gs->nr;
    double *f = malloc((size_t)n * sizeof(double)), *E = malloc((size_t)6 * nr * sizeof(double));
    for (int k = 0; k < 300; k++) {
        for (int i = 0; i < n; i++) f[i] = load(k, 1, i);
        for (int q = 0; q < 6 * nr; q++) E[q] = eblock(k, 1, q);
        const double *Ek = k % 50 != 7 ? E : NULL;
        cr_assert_eq(br_genalpha_solve(gs, f, Ek), 0);
        cr_assert_eq(br_genalpha_solve(gf, f, Ek), 0);
        br_genalpha_advance(gs), br_genalpha_advance(gf);
    }
    double worst = 0.0, same = 0;
    const double *xs[3] = {gs->u, gs->v, gs->a}, *xf[3] = {gf->u, gf->v, gf->a};
    for (int q = 0; q < 3; q++) {
        double big = 0.0, d = 0.0;
        for (int i = 0; i < n; i++) big = fmax(big, fabs(xf[q][i])), d = fmax(d, fabs(xs[q][i] - xf[q][i]));
        for (int i = 0; i < n; i++) same += xs[q][i] == xf[q][i];
        cr_assert_gt(big, 0.0);
        worst = fmax(worst, d / big);
    }
    br_ga_shape sh;
    br_ga_var x;
    double ks, es, kf, ef, km = 0.0, em = 0.0;
    br_genalpha_view(gf, &sh, &x);
    br_ga_energies(&sh, &x, &kf, &ef);
    sh.sym = 1;
    br_ga_energies(&sh, &x, &ks, &es);
    for (size_t e = 0; e < (size_t)n * n; e++)
        km += 0.5 * fabs(gf->M[e] * gf->v[e % n] * gf->v[e / n]), em += 0.5 * fabs(gf->K[e] * gf->u[e % n] * gf->u[e / n]);
    const double tol = 2.0 * (2 * n + 1) * DBL_EPSILON;
    fprintf(stderr, "symmetric products against whole columns, 300 steps: state within %.3g of its size (%.0f of %d entries "
                    "bitwise); the energies of one state within %.3g and %.3g of their terms' magnitudes (bound %.3g)\n",
            worst, same, 3 * n, fabs(ks - kf) / km, fabs(es - ef) / em, tol);
    cr_assert_gt(worst, 0.0, "the orders differ: some entry is not bitwise the same");
    cr_assert_leq(worst, 1e-11);
    cr_assert(kf > 0.0 && ef > 0.0 && fabs(ks - kf) <= tol * km && fabs(es - ef) <= tol * em);
    free(f), free(E);
    for (int k = 0; k < 2; k++) tvar_free(&t[k]);
}

Test(ga_batch, lapack_and_the_header_lu_agree_to_rounding)
{
    against_own(5, 1, 300, BR_BACKEND_CPU, 0, 1e-12);
}

Test(ga_batch, lu_solves_as_lapack_and_finds_a_singular_column)
{
    unsigned s = 7;
    double worst = 0.0;
    for (int trial = 0; trial < 200; trial++) {
        double A[144], A2[144], A3[144], b[12], b2[12], x[12];
        for (int k = 0; k < 144; k++) s = s * 1103515245u + 12345u, A[k] = (double)(s >> 8) / (1u << 24) - 0.5;
        for (int k = 0; k < 12; k++) s = s * 1103515245u + 12345u, b[k] = (double)(s >> 8) / (1u << 24) - 0.5;
        memcpy(A2, A, sizeof A), memcpy(A3, A, sizeof A), memcpy(b2, b, sizeof b), memcpy(x, b, sizeof b);
        cr_assert_eq(br_ga_lu_solve(12, A2, 1, x, 1), 0);
        lapack_int ipiv[12];
        cr_assert_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, 12, 1, A3, 12, ipiv, b2, 12), 0);
        double xm = 0.0, d = 0.0;
        for (int k = 0; k < 12; k++) xm = fmax(xm, fabs(b2[k])), d = fmax(d, fabs(x[k] - b2[k]));
        worst = fmax(worst, d / xm);
    }
    fprintf(stderr, "header LU against LAPACK dgesv, 200 random 12 x 12 systems: worst relative difference %.3g\n", worst);
    cr_assert_lt(worst, 1e-11);
    double Z[16] = {1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 9, 2, 1, 0, 3}, z[4] = {1, 1, 1, 1};
    cr_assert_eq(br_ga_lu_solve(4, Z, 1, z, 1), 2, "column 1 (of 0..3) is zero: no pivot");
}

/* The LU in eight lanes (12 x 12 systems, variant-innermost), lane 3 singular at its column 1 and
 * lane 6 at its last column: every other lane's factors and solution bitwise the one-matrix LU's,
 * each lane's rc the column its own solve stops at */
Test(ga_batch, lu_in_lanes_is_each_lanes_own_and_flags_its_singular_column)
{
    enum { M = 12, NL = BR_GA_LANES };
    unsigned s = 11;
    double A[M * M * NL], b[M * NL], A1[NL][M * M], b1[NL][M];
    for (int trial = 0; trial < 50; trial++) {
        for (int l = 0; l < NL; l++) {
            for (int k = 0; k < M * M; k++) s = s * 1103515245u + 12345u, A1[l][k] = (double)(s >> 8) / (1u << 24) - 0.5;
            for (int k = 0; k < M; k++) s = s * 1103515245u + 12345u, b1[l][k] = (double)(s >> 8) / (1u << 24) - 0.5;
        }
        for (int i = 0; i < M; i++) A1[3][1 * M + i] = 0.0; /* lane 3: column 1 zero */
        for (int i = 0; i < M; i++) A1[6][(M - 1) * M + i] = 0.0; /* lane 6: its last column zero */
        for (int l = 0; l < NL; l++) {
            for (int k = 0; k < M * M; k++) A[k * NL + l] = A1[l][k];
            for (int k = 0; k < M; k++) b[k * NL + l] = b1[l][k];
        }
        int rc[NL];
        br_ga_lu_solve_l(M, A, NL, b, NL, NL, rc);
        for (int l = 0; l < NL; l++) {
            const int rc1 = br_ga_lu_solve(M, A1[l], 1, b1[l], 1);
            cr_assert_eq(rc[l], rc1, "trial %d lane %d: rc %d, its own %d", trial, l, rc[l], rc1);
            if (l == 3) cr_assert_eq(rc1, 2, "a zero column 1 stops at column 1");
            if (l == 6) cr_assert_eq(rc1, M, "a zero last column stops there");
            if (rc1) continue;
            for (int k = 0; k < M; k++) cr_assert(b[k * NL + l] == b1[l][k], "trial %d lane %d entry %d", trial, l, k);
            for (int k = 0; k < M * M; k++) cr_assert(A[k * NL + l] == A1[l][k], "trial %d lane %d factor %d", trial, l, k);
        }
    }
}

Test(ga_batch, a_differing_variant_is_refused)
{
    tvar a, b;
    tvar_make(&a, MIST[0]);
    char err[1024];
    const char *sets[] = {"time.dt=2e-5"};
    b.m = br_scenario_load(S2_SWEEP, sets, 1, err, sizeof err);
    cr_assert_not_null(b.m, "%s", err);
    b.d = br_data_create_opt(b.m, BR_BACKEND_CPU, 0, err, sizeof err);
    cr_assert_not_null(b.d, "%s", err);
    br_genalpha *g[2] = {a.d->ga, b.d->ga};
    cr_assert_null(br_ga_batch_create(g, 2, BR_BACKEND_CPU, err, sizeof err));
    fprintf(stderr, "refused: %s\n", err);
    cr_assert(strstr(err, "variant 1") && strstr(err, "time step") && strstr(err, "cannot join"), "%s", err);
    b.d->ga->h = a.d->ga->h, b.d->ga->phi[5]--; /* the same step, one column's profile shorter */
    cr_assert_null(br_ga_batch_create(g, 2, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "sparsity"), "%s", err);
    b.d->ga->phi[5]++;
    tvar_free(&a), tvar_free(&b);
}


/* the GPU batch against each variant's own step on the CPU: 1000 variants over five bundles'
 * matrices (each variant its own copy), 200 steps, bitwise */
Test(ga_batch_cuda, is_bitwise_each_variants_own_step, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_ga_batch_cuda");
    against_own(1000, 1, 200, BR_BACKEND_CUDA, 1, 0.0);
}

Test(ga_batch_cuda, shared_matrices_bitwise, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_ga_batch_cuda");
    against_own(257, 0, 200, BR_BACKEND_CUDA, 1, 0.0);
}
