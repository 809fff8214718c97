/* genalpha.c: generalized-alpha for the linear structure.
 *   am = (2 rho - 1)/(rho + 1), af = rho/(rho + 1), gamma = 1/2 - am + af,
 *   beta = (1 - am + af)^2 / 4   (rho = rho_inf; rho = 0: am = -1, af = 0, gamma = 3/2, beta = 1)
 * Equation at the intermediate time:
 *   M [(1-am) a1 + am a0] + C [(1-af) v1 + af v0] + K [(1-af) u1 + af u0] = f
 * with Newmark u1 = u0 + h v0 + h^2 ((1/2 - beta) a0 + beta a1), v1 = v0 + h ((1 - gamma) a0 + gamma a1),
 * solved for a1 with the constant effective matrix. Second-order accurate, unconditionally
 * stable for linear systems, high frequencies damped to rho_inf.
 * Low-rank term: L^T E L (a1 - a0) adds L^T E L to the effective matrix and L^T E L a0 to the
 * right-hand side; with x0 = Keff^-1 rhs, Z = Keff^-1 L^T, Y = L Z:
 *   a1 = x0 - Z q,   (I + E Y) q = E L x0   (Woodbury; E may be singular).
 * The set-up (Keff^-1, Z, Y, a0) is here, with LAPACK; the step itself (prediction, solve, row
 * changes, advance, energies) is kernels/ga_step.h, which the batches of variants share. */
#include "step/genalpha.h"
#include "kernels/ga_step.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ga_view(const br_genalpha *g, br_ga_shape *sh, br_ga_var *x) { br_genalpha_view(g, sh, x); }

void br_genalpha_view(const br_genalpha *g, br_ga_shape *sh, br_ga_var *x)
{
    *sh = (br_ga_shape){.n = g->n, .nr = g->nr, .am = g->am, .af = g->af, .gamma = g->gamma, .beta = g->beta,
                        .h = g->h, .plo = g->plo, .phi = g->phi, .flo = g->flo, .fhi = g->fhi, .Lcol = g->Lcol,
                        .Lcnt = g->Lcnt, .zlo = g->zlo, .zhi = g->zhi, .sym = g->sym};
    *x = (br_ga_var){.M = g->M, .C = g->C, .K = g->K, .Lf = g->Lf, .L = g->L, .Z = g->Z, .Y = g->Y,
                     .sM = 1, .sC = 1, .sK = 1, .sLf = 1, .sL = 1, .sZ = 1, .sY = 1,
                     .u = g->u, .v = g->v, .a = g->a, .a1 = g->a1, .r = g->r, .w = g->w,
                     .ye = g->ye, .yq = g->yq, .Ar = g->Ar, .s = 1};
}

void br_genalpha_free(br_genalpha *g)
{
    if (!g) return;
    for (int k = 1; k < BR_GA_LEVELS; k++) /* the level-0 arrays are freed below through g's pointers */
        free(g->lv[k].Lf), free(g->lv[k].Z), free(g->lv[k].Y), free(g->lv[k].flo), free(g->lv[k].zlo);
    if (g->level != 0)
        g->Lf = g->lv[0].Lf, g->Z = g->lv[0].Z, g->Y = g->lv[0].Y, g->flo = g->lv[0].flo, g->zlo = g->lv[0].zlo;
    free(g->plo), free(g->flo);
    free(g->Lf), free(g->u), free(g->v), free(g->a), free(g->r), free(g->w), free(g->a1);
    free(g->L), free(g->Z), free(g->Y), free(g->ye), free(g->yq), free(g->Ar), free(g->ipiv);
    free(g->LU0), free(g->rr), free(g->qq), free(g->ipiv0);
    free(g->Lcol), free(g->Lcnt), free(g->zlo);
    free(g);
}

/* A (n x n column-major, or three of them) -> per column the first and last nonzero row
 * (lo > hi for an empty column) */
static void profile_of(int n, const double *A, const double *B, const double *C, int *lo, int *hi)
{
    for (int j = 0; j < n; j++) {
        lo[j] = n, hi[j] = -1;
        for (int i = 0; i < n; i++) {
            const size_t k = (size_t)j * n + i;
            if (A[k] != 0.0 || (B && B[k] != 0.0) || (C && C[k] != 0.0)) {
                lo[j] = i < lo[j] ? i : lo[j];
                hi[j] = i;
            }
        }
    }
}

/* A (n x n column-major) -> 1 when A_ij == A_ji for every i, j (bitwise: what the symmetric products assume) */
static int exactly_symmetric(int n, const double *A)
{
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++)
            if (A[(size_t)j * n + i] != A[(size_t)i * n + j]) return 0;
    return 1;
}

int br_genalpha_symmetric(const br_genalpha *g)
{
    return exactly_symmetric(g->n, g->M) && exactly_symmetric(g->n, g->C) && exactly_symmetric(g->n, g->K);
}

/* y = A x for M, C, K (their common profile) */
static void matvec(const br_genalpha *g, const double *A, const double *x, double *y)
{
    br_ga_matvec(g->n, A, 1, g->plo, g->phi, NULL, x, 1, y, 1);
}

/* g (n, M, C, K, coefficients), h -> Lf = the inverse of the effective matrix (made full) and its
 * profile flo (2 n); 0, or the LAPACK info */
static int ga_factor(const br_genalpha *g, double h, double *Lf, int *flo)
{
    const int n = g->n;
    const size_t nn = (size_t)n * (size_t)n;
    const double cm = 1 - g->am, cc = (1 - g->af) * g->gamma * h, ck = (1 - g->af) * g->beta * h * h;
    for (size_t k = 0; k < nn; k++) Lf[k] = cm * g->M[k] + cc * g->C[k] + ck * g->K[k];
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, Lf, n);
    if (info == 0) info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, Lf, n);
    for (int j = 0; j < n; j++) /* dpotri fills the lower triangle: mirror it */
        for (int i = 0; i < j; i++) Lf[(size_t)j * n + i] = Lf[(size_t)i * n + j];
    if (info == 0) profile_of(n, Lf, NULL, NULL, flo, flo + n);
    return (int)info;
}

/* g (L, nr), Lf and its profile flo -> Z = Lf L^T with its row ranges zlo (2 nr), Y = L Z */
static void ga_products(const br_genalpha *g, const double *Lf, const int *flo, double *Z, double *Y, int *zlo)
{
    const int n = g->n, nr = g->nr;
    const double *L = g->L;
    for (int k = 0; k < nr; k++) {
        double *z = Z + (size_t)k * n;
        br_ga_matvec(n, Lf, 1, flo, flo + n, NULL, L + (size_t)k * n, 1, z, 1);
        zlo[k] = n, zlo[nr + k] = -1;
        for (int j = 0; j < n; j++)
            if (z[j] != 0.0) zlo[k] = j < zlo[k] ? j : zlo[k], zlo[nr + k] = j;
    }
    for (int k = 0; k < nr; k++)
        for (int i = 0; i < nr; i++) {
            double y = 0.0;
            for (int j = 0; j < n; j++) y += L[(size_t)i * n + j] * Z[(size_t)k * n + j];
            Y[(size_t)k * nr + i] = y;
        }
}

int br_genalpha_level(br_genalpha *g, int k, char *err, size_t errlen)
{
    if (k == g->level) return 0;
    if (k < 0 || k >= BR_GA_LEVELS) {
        snprintf(err, errlen, "substep level %d out of range", k);
        return -1;
    }
    struct br_ga_level *L = &g->lv[k];
    const double h = ldexp(g->h0, -k);
    const int n = g->n, nr = g->nr;
    if (!L->Lf) {
        L->Lf = malloc((size_t)n * n * sizeof(double)), L->flo = malloc((size_t)2 * n * sizeof(int));
        if (nr) L->Z = malloc((size_t)nr * n * sizeof(double)), L->Y = malloc((size_t)nr * nr * sizeof(double)),
                L->zlo = malloc((size_t)2 * nr * sizeof(int));
        if (!L->Lf || !L->flo || (nr && (!L->Z || !L->Y || !L->zlo))) {
            free(L->Lf), free(L->flo), free(L->Z), free(L->Y), free(L->zlo);
            memset(L, 0, sizeof *L);
            snprintf(err, errlen, "out of memory for the structure's substeps");
            return -1;
        }
        const int info = ga_factor(g, h, L->Lf, L->flo);
        if (info) {
            free(L->Lf), free(L->flo), free(L->Z), free(L->Y), free(L->zlo);
            memset(L, 0, sizeof *L);
            snprintf(err, errlen, "the effective matrix of the structure at h = %g s is not positive definite "
                     "(dpotrf info %d)", h, info);
            return -1;
        }
        if (nr) ga_products(g, L->Lf, L->flo, L->Z, L->Y, L->zlo);
    }
    g->level = k, g->h = h;
    g->have_lu0 = 0; /* Y is the level's: a kept factor is not */
    g->Lf = L->Lf, g->flo = L->flo, g->fhi = L->flo + n;
    if (nr) g->Z = L->Z, g->Y = L->Y, g->zlo = L->zlo, g->zhi = L->zlo + nr;
    return 0;
}

br_genalpha *br_genalpha_create(int n, const double *M, const double *C, const double *K, double rho_inf,
                                double h, char *err, size_t errlen)
{
    br_genalpha *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const size_t nn = (size_t)n * (size_t)n;
    g->n = n, g->M = M, g->C = C, g->K = K, g->h = g->h0 = h;
    g->own_lu = 1; /* the header's LU: the same bits on every machine (genalpha.h) */
    g->am = (2 * rho_inf - 1) / (rho_inf + 1);
    g->af = rho_inf / (rho_inf + 1);
    g->gamma = 0.5 - g->am + g->af;
    g->beta = 0.25 * (1 - g->am + g->af) * (1 - g->am + g->af);
    g->Lf = malloc(nn * sizeof(double));
    g->u = calloc((size_t)n, sizeof(double)), g->v = calloc((size_t)n, sizeof(double));
    g->a = calloc((size_t)n, sizeof(double)), g->r = calloc((size_t)n, sizeof(double));
    g->w = calloc((size_t)n, sizeof(double)), g->a1 = calloc((size_t)n, sizeof(double));
    if (!g->Lf || !g->u || !g->v || !g->a || !g->r || !g->w || !g->a1) {
        snprintf(err, errlen, "out of memory");
        br_genalpha_free(g);
        return NULL;
    }
    g->plo = malloc((size_t)2 * n * sizeof(int)), g->flo = malloc((size_t)2 * n * sizeof(int));
    if (!g->plo || !g->flo) {
        snprintf(err, errlen, "out of memory");
        br_genalpha_free(g);
        return NULL;
    }
    g->phi = g->plo + n, g->fhi = g->flo + n;
    profile_of(n, M, C, K, g->plo, g->phi);
    long entries = 0; /* on M, C and K's profile */
    for (int j = 0; j < n; j++) entries += g->phi[j] >= g->plo[j] ? g->phi[j] - g->plo[j] + 1 : 0;
    g->sym = entries >= BR_GA_SYM_MIN && br_genalpha_symmetric(g);
    const int info = ga_factor(g, h, g->Lf, g->flo);
    if (info != 0) {
        snprintf(err, errlen, "the effective matrix of the structure is not positive definite (dpotrf info %d)", info);
        br_genalpha_free(g);
        return NULL;
    }
    g->lv[0] = (struct br_ga_level){.Lf = g->Lf, .flo = g->flo};
    return g;
}

int br_genalpha_start(br_genalpha *g, const double *f)
{
    const int n = g->n;
    double *Mc = malloc((size_t)n * n * sizeof(double));
    if (!Mc) return -2;
    memcpy(Mc, g->M, (size_t)n * n * sizeof(double));
    matvec(g, g->C, g->v, g->r);
    matvec(g, g->K, g->u, g->w);
    for (int i = 0; i < n; i++) g->a[i] = f[i] - g->r[i] - g->w[i];
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, Mc, n);
    if (info == 0) info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, 1, Mc, n, g->a, n);
    free(Mc);
    return info == 0 ? 0 : -1;
}

int br_genalpha_lowrank(br_genalpha *g, int nr, const double *L)
{
    const int n = g->n;
    const size_t rn = (size_t)nr * (size_t)n;
    g->nr = nr;
    g->L = malloc(rn * sizeof(double)), g->Z = malloc(rn * sizeof(double));
    g->Y = malloc((size_t)nr * nr * sizeof(double)), g->Ar = malloc((size_t)nr * nr * sizeof(double));
    g->ye = malloc((size_t)nr * sizeof(double)), g->yq = malloc((size_t)nr * sizeof(double));
    g->ipiv = malloc((size_t)nr * sizeof(int));
    g->Lcol = malloc(rn * sizeof(int)), g->Lcnt = malloc((size_t)nr * sizeof(int));
    g->zlo = malloc((size_t)2 * nr * sizeof(int));
    if (!g->L || !g->Z || !g->Y || !g->Ar || !g->ipiv || !g->ye || !g->yq || !g->Lcol || !g->Lcnt || !g->zlo)
        return -1;
    g->zhi = g->zlo + nr;
    if (nr >= BR_GA_REUSE_MIN) { /* the kept factor of the Woodbury system and its refinement's scratch */
        g->LU0 = malloc((size_t)nr * nr * sizeof(double)), g->rr = malloc((size_t)nr * sizeof(double));
        g->qq = malloc((size_t)nr * sizeof(double)), g->ipiv0 = malloc((size_t)nr * sizeof(int));
        if (!g->LU0 || !g->rr || !g->qq || !g->ipiv0) return -1;
    }
    memcpy(g->L, L, rn * sizeof(double));
    for (int k = 0; k < nr; k++) { /* the nonzero columns of each row: two nodes of the structure */
        g->Lcnt[k] = 0;
        for (int j = 0; j < n; j++)
            if (L[(size_t)k * n + j] != 0.0) g->Lcol[(size_t)k * n + g->Lcnt[k]++] = j;
    }
    ga_products(g, g->Lf, g->flo, g->Z, g->Y, g->zlo);
    g->lv[0].Z = g->Z, g->lv[0].Y = g->Y, g->lv[0].zlo = g->zlo;
    return 0;
}

void br_genalpha_coeffs(const br_genalpha *g, double *ck, double *cc)
{
    *ck = (1 - g->af) * g->beta * g->h * g->h;
    *cc = (1 - g->af) * g->gamma * g->h;
}

void br_genalpha_predict(const br_genalpha *g, double *up, double *vp)
{
    br_ga_shape sh;
    br_ga_var x;
    ga_view(g, &sh, &x);
    br_ga_predict(&sh, &x, up, vp, 1);
}

/* g after br_ga_solve_begin_rhs (the Woodbury system's right side b in g->yq, its matrix A = I + E Y not
 * formed), E -> g->yq = A^-1 b: by iterative refinement with the kept LU of an earlier step's A
 * (q <- q + LU0^-1 (b - A q), A q = q + E (Y q) without forming A: 2 nr^2 a product against 6 nr^2 to
 * form it) until the residual is within 1e-13 of |b| (the order of a direct solve's own residual for
 * this well conditioned I + E Y: the solutions agree to that times its condition), at most eight
 * corrections; else, or with no factor kept, A formed, factored (LAPACK dgetrf) and kept. 0, or -1 (A
 * singular) */
static int reuse_solve(br_genalpha *g, br_ga_shape *sh, br_ga_var *x, const double *E)
{
    const lapack_int nr = g->nr, one = 1;
    lapack_int info = 0;
    const size_t nn = (size_t)nr * nr; /* g->LU0 and its scratch: br_genalpha_lowrank's */
    const double *b = g->yq;
    double bmax = 0.0;
    for (int i = 0; i < nr; i++) bmax = fmax(bmax, fabs(b[i]));
    if (g->have_lu0) {
        memcpy(g->qq, b, (size_t)nr * sizeof(double));
        LAPACK_dgetrs("N", &nr, &one, g->LU0, &nr, g->ipiv0, g->qq, &nr, &info);
        for (int it = 0; it < 8 && info == 0; it++) {
            /* r = b - q - E (Y q) */
            cblas_dgemv(CblasColMajor, CblasNoTrans, nr, nr, 1.0, g->Y, nr, g->qq, 1, 0.0, g->ye, 1);
            for (int k = 0; k < nr; k += 6)
                for (int i = 0; i < 6; i++) {
                    double t = 0.0;
                    for (int j = 0; j < 6; j++) t += E[6 * k + 6 * j + i] * g->ye[k + j];
                    g->rr[k + i] = b[k + i] - g->qq[k + i] - t;
                }
            double rmax = 0.0;
            for (int i = 0; i < nr; i++) rmax = fmax(rmax, fabs(g->rr[i]));
            if (!(rmax == rmax)) break; /* NaN: refactor */
            if (rmax <= 1e-13 * bmax) {
                memcpy(g->yq, g->qq, (size_t)nr * sizeof(double));
                g->nreuse++;
                return 0;
            }
            LAPACK_dgetrs("N", &nr, &one, g->LU0, &nr, g->ipiv0, g->rr, &nr, &info);
            for (int i = 0; i < nr; i++) g->qq[i] += g->rr[i];
        }
    }
    br_ga_woodbury_form(sh, x, E, 1);
    memcpy(g->LU0, g->Ar, nn * sizeof(double));
    LAPACK_dgetrf(&nr, &nr, g->LU0, &nr, g->ipiv0, &info);
    g->have_lu0 = info == 0;
    g->nfactor++;
    if (info != 0) return -1;
    LAPACK_dgetrs("N", &nr, &one, g->LU0, &nr, g->ipiv0, g->yq, &nr, &info);
    return info == 0 ? 0 : -1;
}

int br_genalpha_solve(br_genalpha *g, const double *f, const double *E)
{
    br_ga_shape sh;
    br_ga_var x;
    ga_view(g, &sh, &x);
    const int lr = E && g->nr > 0;
    const int reuse = lr && g->nr >= BR_GA_REUSE_MIN && !g->no_reuse;
    if (reuse) br_ga_solve_begin_rhs(&sh, &x, f, 1, E, 1);
    else br_ga_solve_begin(&sh, &x, f, 1, lr ? E : NULL, 1);
    int rc = 0;
    if (reuse) {
        rc = reuse_solve(g, &sh, &x, E);
    } else if (lr && g->own_lu) {
        rc = br_ga_lu_solve(g->nr, g->Ar, 1, g->yq, 1) ? -1 : 0;
    } else if (lr) { /* the Fortran interface: LAPACKE's NaN scan of the inputs costs as much as this solve */
        lapack_int nn = g->nr, one = 1, info = 0;
        LAPACK_dgesv(&nn, &one, g->Ar, &nn, g->ipiv, g->yq, &nn, &info);
        rc = info == 0 ? 0 : -1;
    }
    br_ga_solve_end(&sh, &x, lr && rc == 0);
    return rc;
}

void br_genalpha_row_changes(br_genalpha *g, double *du, double *dv, double *dm)
{
    br_ga_shape sh;
    br_ga_var x;
    ga_view(g, &sh, &x);
    br_ga_row_changes(&sh, &x, du, dv, dm, 1);
}

void br_genalpha_advance(br_genalpha *g)
{
    br_ga_shape sh;
    br_ga_var x;
    ga_view(g, &sh, &x);
    br_ga_advance(&sh, &x);
}

void br_genalpha_step(br_genalpha *g, const double *f)
{
    br_genalpha_solve(g, f, NULL);
    br_genalpha_advance(g);
}
