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
 *   a1 = x0 - Z q,   (I + E Y) q = E L x0   (Woodbury; E may be singular). */
#include "genalpha.h"

#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void br_genalpha_free(br_genalpha *g)
{
    if (!g) return;
    free(g->Lf), free(g->u), free(g->v), free(g->a), free(g->r), free(g->w), free(g->a1);
    free(g->L), free(g->Z), free(g->Y), free(g->ye), free(g->yq), free(g->Ar), free(g->ipiv);
    free(g);
}

br_genalpha *br_genalpha_create(int n, const double *M, const double *C, const double *K, double rho_inf,
                                double h, char *err, size_t errlen)
{
    br_genalpha *g = calloc(1, sizeof *g);
    const size_t nn = (size_t)n * (size_t)n;
    g->n = n, g->M = M, g->C = C, g->K = K, g->h = h;
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
    const double cm = 1 - g->am, cc = (1 - g->af) * g->gamma * h, ck = (1 - g->af) * g->beta * h * h;
    for (size_t k = 0; k < nn; k++) g->Lf[k] = cm * M[k] + cc * C[k] + ck * K[k];
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, g->Lf, n);
    if (info == 0) info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, g->Lf, n);
    for (int j = 0; j < n; j++) /* dpotri fills the lower triangle: mirror it */
        for (int i = 0; i < j; i++) g->Lf[(size_t)j * n + i] = g->Lf[(size_t)i * n + j];
    if (info != 0) {
        snprintf(err, errlen, "the effective matrix of the structure is not positive definite (dpotrf info %d)",
                 (int)info);
        br_genalpha_free(g);
        return NULL;
    }
    return g;
}

/* y = A x, A n x n column-major */
static void matvec(int n, const double *A, const double *x, double *y)
{
    memset(y, 0, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++) {
        const double xj = x[j];
        if (xj == 0.0) continue;
        const double *col = A + (size_t)j * n;
        for (int i = 0; i < n; i++) y[i] += col[i] * xj;
    }
}

int br_genalpha_start(br_genalpha *g, const double *f)
{
    const int n = g->n;
    double *Mc = malloc((size_t)n * n * sizeof(double));
    if (!Mc) return -1;
    memcpy(Mc, g->M, (size_t)n * n * sizeof(double));
    matvec(n, g->C, g->v, g->r);
    matvec(n, g->K, g->u, g->w);
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
    if (!g->L || !g->Z || !g->Y || !g->Ar || !g->ye || !g->yq || !g->ipiv) return -1;
    memcpy(g->L, L, rn * sizeof(double));
    for (int k = 0; k < nr; k++) matvec(n, g->Lf, L + (size_t)k * n, g->Z + (size_t)k * n);
    for (int k = 0; k < nr; k++)
        for (int i = 0; i < nr; i++) {
            double y = 0.0;
            for (int j = 0; j < n; j++) y += L[(size_t)i * n + j] * g->Z[(size_t)k * n + j];
            g->Y[(size_t)k * nr + i] = y;
        }
    return 0;
}

/* y (nr) = L x (x: n) */
static void lmul(const br_genalpha *g, const double *x, double *y)
{
    for (int i = 0; i < g->nr; i++) {
        const double *row = g->L + (size_t)i * g->n;
        double s = 0.0;
        for (int j = 0; j < g->n; j++) s += row[j] * x[j];
        y[i] = s;
    }
}

/* y (nr) = E x (E nr x nr column-major) */
static void emul(int nr, const double *E, const double *x, double *y)
{
    for (int i = 0; i < nr; i++) y[i] = 0.0;
    for (int k = 0; k < nr; k++)
        for (int i = 0; i < nr; i++) y[i] += E[(size_t)k * nr + i] * x[k];
}

void br_genalpha_coeffs(const br_genalpha *g, double *ck, double *cc)
{
    *ck = (1 - g->af) * g->beta * g->h * g->h;
    *cc = (1 - g->af) * g->gamma * g->h;
}

void br_genalpha_predict(const br_genalpha *g, double *up, double *vp)
{
    const double c = 1 - g->af, h = g->h;
    for (int i = 0; i < g->n; i++) {
        up[i] = g->u[i] + c * (h * g->v[i] + 0.5 * h * h * g->a[i]);
        vp[i] = g->v[i] + c * h * g->a[i];
    }
}

int br_genalpha_solve(br_genalpha *g, const double *f, const double *E)
{
    const int n = g->n, nr = E ? g->nr : 0;
    const double h = g->h, am = g->am, af = g->af, ga = g->gamma, be = g->beta;
    double *r = g->r, *w = g->w, *u = g->u, *v = g->v, *a = g->a;
    /* rhs = f - am M a0 - C [(1-af)(v0 + h (1-gamma) a0) + af v0] - K [(1-af)(u0 + h v0 + h^2 (1/2-beta) a0) + af u0] */
    for (int i = 0; i < n; i++) w[i] = am * a[i];
    matvec(n, g->M, w, r);
    for (int i = 0; i < n; i++) r[i] = f[i] - r[i];
    for (int i = 0; i < n; i++) w[i] = v[i] + (1 - af) * h * (1 - ga) * a[i];
    for (int j = 0; j < n; j++) {
        const double wj = w[j];
        const double uj = u[j] + (1 - af) * (h * v[j] + h * h * (0.5 - be) * a[j]);
        const double *cc = g->C + (size_t)j * n, *kk = g->K + (size_t)j * n;
        for (int i = 0; i < n; i++) r[i] -= cc[i] * wj + kk[i] * uj;
    }
    if (nr > 0) { /* + L^T E L a0 */
        lmul(g, a, g->ye);
        emul(nr, E, g->ye, g->yq);
        for (int k = 0; k < nr; k++)
            for (int j = 0; j < n; j++) r[j] += g->L[(size_t)k * n + j] * g->yq[k];
    }
    matvec(n, g->Lf, r, w); /* x0 = Keff^-1 rhs */
    int rc = 0;
    if (nr > 0) {
        lmul(g, w, g->ye);
        emul(nr, E, g->ye, g->yq);
        for (int k = 0; k < nr; k++)
            for (int i = 0; i < nr; i++) {
                double s = i == k ? 1.0 : 0.0;
                for (int j = 0; j < nr; j++) s += E[(size_t)j * nr + i] * g->Y[(size_t)k * nr + j];
                g->Ar[(size_t)k * nr + i] = s;
            }
        rc = LAPACKE_dgesv(LAPACK_COL_MAJOR, nr, 1, g->Ar, nr, g->ipiv, g->yq, nr) == 0 ? 0 : -1;
        for (int k = 0; k < nr && rc == 0; k++)
            for (int j = 0; j < n; j++) w[j] -= g->Z[(size_t)k * n + j] * g->yq[k];
    }
    memcpy(g->a1, w, (size_t)n * sizeof(double));
    return rc;
}

void br_genalpha_row_changes(br_genalpha *g, double *du, double *dv, double *dm)
{
    const int n = g->n;
    const double h = g->h, be = g->beta, af = g->af;
    double ck, cc;
    br_genalpha_coeffs(g, &ck, &cc);
    for (int j = 0; j < n; j++) g->w[j] = g->a1[j] - g->a[j];
    lmul(g, g->w, dv);
    for (int k = 0; k < g->nr; k++) du[k] = ck * dv[k], dv[k] *= cc;
    /* (u_{n+1} - u_n) / h - v_pred = h ((1/2 - beta) a0 + beta a1) - (1 - af) h a0 */
    for (int j = 0; j < n; j++) g->w[j] = h * ((0.5 - be - (1 - af)) * g->a[j] + be * g->a1[j]);
    lmul(g, g->w, dm);
}

void br_genalpha_advance(br_genalpha *g)
{
    const double h = g->h, ga = g->gamma, be = g->beta;
    double *u = g->u, *v = g->v, *a = g->a;
    for (int i = 0; i < g->n; i++) {
        const double a1 = g->a1[i];
        u[i] += h * v[i] + h * h * ((0.5 - be) * a[i] + be * a1);
        v[i] += h * ((1 - ga) * a[i] + ga * a1);
        a[i] = a1;
    }
}

void br_genalpha_step(br_genalpha *g, const double *f)
{
    br_genalpha_solve(g, f, NULL);
    br_genalpha_advance(g);
}
