/* hbm_krylov.c: Newton-Krylov for harmonic balance over deforming interfaces (in: the solver with its
 * contact-force Jacobian h->D and the linear part at a frequency; out: Newton's and the tangent's steps). With P
 * interface points and H harmonics the Newton matrix has 3 P (2 H + 1) rows (14553 at the lap joint's 441
 * pairs and H = 5: 1.7 GB, a minute's LU): here it is never formed. J v = v - H (D v) costs one product per
 * point with its 3 (2H + 1) square block and one pass of the receptance (by the modes, br_hbm_lin_apply);
 * GMRES converges in tens of products with the preconditioner I - H_k d_k per harmonic (d_k each point's
 * harmonic-diagonal, complex-linear part of D: exact for a linear point, a stuck or a separated one, and what
 * a slipping point averages over the period), factored once per Jacobian. docs/hbm.md, "Deforming
 * interfaces". */
#include <complex.h>

#include "analysis/hbm_internal.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KRY_RESTART 80   /* GMRES's basis before a restart */
#define KRY_MAXIT 800    /* products in all before a solve gives up */
#define KRY_REBUILD 50  /* the preconditioner is factored afresh at a Jacobian when the last solve took more products
                          * than this (its frequency or the slip pattern it was factored for has moved on) */
#define KRY_RTOL 1e-10   /* |b - A x| <= KRY_RTOL |b|: far below Newton's 1e-8 of the solution, so the inexact
                          * solve leaves Newton's quadratic convergence as it is */

struct hb_kry {
    double complex *Pk;  /* (H + 1) LU factors, nnl square each */
    lapack_int *piv;     /* (H + 1) nnl */
    double complex *xc, *yc; /* (H + 1) nnl: forces and displacements per harmonic */
    double *work;        /* br_hbm_lin_apply's */
    double complex *hc;  /* nnl x 3: a point's columns of H_k */
    double *g;           /* nu + 1: D v; the preconditioned vector */
    double *V, *Z;       /* GMRES: the Krylov basis and its preconditioned images, (KRY_RESTART + 1) x ld */
    double *Hs, *cs, *sn, *e; /* the Hessenberg matrix, Givens rotations, the rotated residual */
    double *zb;          /* nu x HB_MAXBORDER: P^-1 Bc, the bordered preconditioner's columns */
    double *sc;          /* HB_MAXBORDER square: its Schur complement Bx - Br P^-1 Bc, LU-factored */
    lapack_int *scp;
    long its;            /* GMRES products, all solves together */
    int built, last;     /* the preconditioner factored; the last solve's products */
    long builds;         /* the preconditioner's factorizations */
};

void br_hb_kry_free(hb *h)
{
    struct hb_kry *k = h->kr;
    if (!k) return;
    free(k->Pk), free(k->piv), free(k->xc), free(k->yc), free(k->work), free(k->hc), free(k->g), free(k->V), free(k->Z);
    free(k->Hs), free(k->cs), free(k->sn), free(k->e), free(k->zb), free(k->sc), free(k->scp);
    free(k);
    h->kr = NULL;
}

int br_hb_kry_alloc(hb *h)
{
    const size_t nl = (size_t)h->s.nnl, K = (size_t)h->H + 1, nu = (size_t)h->nu, m = KRY_RESTART;
    struct hb_kry *k = h->kr = calloc(1, sizeof *k);
    if (!k) return -1;
    k->Pk = malloc(K * nl * nl * sizeof(double complex));
    k->piv = malloc(K * nl * sizeof(lapack_int));
    k->xc = malloc(K * nl * sizeof(double complex)), k->yc = malloc(K * nl * sizeof(double complex));
    k->work = malloc(br_hbm_lin_apply_work(&h->s, &h->lin) * sizeof(double));
    k->hc = malloc(nl * 3 * sizeof(double complex));
    const size_t ld = nu + HB_MAXBORDER;
    k->g = malloc(ld * sizeof(double));
    k->V = malloc((m + 1) * ld * sizeof(double)), k->Z = malloc(m * ld * sizeof(double));
    k->Hs = malloc((m + 1) * m * sizeof(double)), k->cs = malloc(m * sizeof(double)), k->sn = malloc(m * sizeof(double));
    k->e = malloc((m + 1) * sizeof(double)), k->zb = malloc(nu * HB_MAXBORDER * sizeof(double));
    k->sc = malloc(HB_MAXBORDER * HB_MAXBORDER * sizeof(double)), k->scp = malloc(HB_MAXBORDER * sizeof(lapack_int));
    if (!k->Pk || !k->piv || !k->xc || !k->yc || !k->work || !k->hc || !k->g || !k->V || !k->Z || !k->Hs || !k->cs || !k->sn ||
        !k->e || !k->zb || !k->sc || !k->scp) {
        br_hb_kry_free(h);
        return -1;
    }
    return 0;
}

/* y-shaped real vector v (nu) -> xc per harmonic: harmonic 0 real, k >= 1 Re + i Im */
static void to_complex(const hb *h, const double *v, double complex *xc)
{
    const int nl = h->s.nnl;
    for (int i = 0; i < nl; i++) xc[i] = v[i];
    for (int k = 1; k <= h->H; k++)
        for (int i = 0; i < nl; i++) xc[(size_t)k * nl + i] = v[(size_t)(2 * k - 1) * nl + i] + I * v[(size_t)2 * k * nl + i];
}

/* xc per harmonic -> v += sgn xc in y's real layout */
static void add_real(const hb *h, const double complex *xc, double sgn, double *v)
{
    const int nl = h->s.nnl;
    for (int i = 0; i < nl; i++) v[i] += sgn * creal(xc[i]);
    for (int k = 1; k <= h->H; k++)
        for (int i = 0; i < nl; i++)
            v[(size_t)(2 * k - 1) * nl + i] += sgn * creal(xc[(size_t)k * nl + i]), v[(size_t)2 * k * nl + i] += sgn * cimag(xc[(size_t)k * nl + i]);
}

int br_hb_kry_residual(hb *h, const double *y, double *R)
{
    struct hb_kry *k = h->kr;
    const int nl = h->s.nnl;
    for (int kk = 0; kk <= h->H; kk++)
        for (int j = 0; j < nl; j++) k->xc[(size_t)kk * nl + j] = br_hb_force(h, y, kk, j);
    br_hbm_lin_apply(&h->s, &h->lin, k->xc, k->yc, k->work);
    for (int kk = 0; kk <= h->H; kk++) /* the loads' harmonics scale with the level, their mean not */
        for (int i = 0; i < nl; i++) k->yc[(size_t)kk * nl + i] += (kk == 0 ? 1.0 : h->lev) * h->lin.Xnl[(size_t)kk * nl + i];
    for (int j = 0; j < h->lin.nsplit; j++) /* the split modes' coordinates eta move harmonic 1 by Sn eta */
        for (int i = 0; i < nl; i++) k->yc[(size_t)nl + i] += h->lin.sp[brm_sn(&h->lin, j) + i] * h->lin.eta[j];
    memcpy(R, y, (size_t)h->nu * sizeof(double));
    add_real(h, k->yc, -1.0, R);
    return 0;
}

/* v (nu) -> out = J v = v - H (D v) */
static void apply_J(hb *h, const double *v, double *out)
{
    struct hb_kry *k = h->kr;
    const int nl = h->s.nnl, nd = h->s.nnl_dof, nb = 2 * h->H + 1;
    double *g = k->g;
    memset(g, 0, (size_t)h->nu * sizeof(double));
    for (int i = 0; i < nl;) { /* block by block: g(bb, j) = sum D (bb, j; b, i') v(b, i') */
        int c0, sz;
        const double *Db = hb_block(h, i, &c0, &sz);
        const int n = sz * nb;
        for (int col = 0; col < n; col++) {
            const double vc = v[(size_t)(col / sz) * nl + c0 + col % sz];
            if (vc == 0.0) continue;
            const double *Dc = Db + (size_t)col * n;
            for (int row = 0; row < n; row++) g[(size_t)(row / sz) * nl + c0 + row % sz] += Dc[row] * vc;
        }
        i = i < nd ? nd : i + 3;
    }
    to_complex(h, g, k->xc);
    br_hbm_lin_apply(&h->s, &h->lin, k->xc, k->yc, k->work);
    memcpy(out, v, (size_t)h->nu * sizeof(double));
    add_real(h, k->yc, -1.0, out);
}

/* r (nu) -> z = P^-1 r, harmonic by harmonic */
static void apply_P(hb *h, const double *r, double *z)
{
    struct hb_kry *k = h->kr;
    const int nl = h->s.nnl;
    to_complex(h, r, k->xc);
    for (int kk = 0; kk <= h->H; kk++)
        LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', nl, 1, k->Pk + (size_t)kk * nl * nl, nl, k->piv + (size_t)kk * nl,
                       k->xc + (size_t)kk * nl, nl);
    memset(z, 0, (size_t)h->nu * sizeof(double));
    add_real(h, k->xc, 1.0, z);
}

int br_hb_kry_precondition(hb *h, char *err, size_t errlen)
{
    struct hb_kry *k = h->kr;
    if (k->built && k->last <= KRY_REBUILD) return 0;
    k->built = 0, k->builds++;
    const int nl = h->s.nnl, nd = h->s.nnl_dof, nb = 2 * h->H + 1;
    double complex *dk = malloc((size_t)(nd > 3 ? nd : 3) * (nd > 3 ? nd : 3) * sizeof(double complex));
    double complex *hc = nd > 3 ? malloc((size_t)nl * nd * sizeof(double complex)) : k->hc;
    if (!dk || !hc) {
        free(dk);
        if (hc != k->hc) free(hc);
        snprintf(err, errlen, "hbm: out of memory");
        return -1;
    }
    int rc = 0;
    for (int kk = 0; kk <= h->H && rc == 0; kk++) {
        double complex *Pk = k->Pk + (size_t)kk * nl * nl;
        br_hbm_lin_block(&h->s, &h->lin, kk, Pk); /* H_k, then I - H_k d_k block column by block column */
        for (int i = 0; i < nl;) {
            int c0, sz;
            const double *Db = hb_block(h, i, &c0, &sz);
            const int n = sz * nb;
            /* d_k (sz square): harmonic 0's block, or the complex-linear part (Dcc + Dss) / 2 + i (Dsc - Dcs) / 2 */
            for (int a = 0; a < sz; a++)     /* column */
                for (int r = 0; r < sz; r++) { /* row */
#define DE(bb, rr, b, cc) Db[(size_t)((b) * sz + (cc)) * n + (bb) * sz + (rr)]
                    if (kk == 0) dk[a * sz + r] = DE(0, r, 0, a);
                    else {
                        const int c = 2 * kk - 1, s = 2 * kk;
                        dk[a * sz + r] = 0.5 * (DE(c, r, c, a) + DE(s, r, s, a)) + 0.5 * I * (DE(s, r, c, a) - DE(c, r, s, a));
                    }
#undef DE
                }
            memcpy(hc, Pk + (size_t)c0 * nl, (size_t)nl * sz * sizeof(double complex));
            for (int a = 0; a < sz; a++) {
                double complex *col = Pk + (size_t)(c0 + a) * nl;
                for (int r = 0; r < nl; r++) col[r] = 0.0;
                for (int b = 0; b < sz; b++) {
                    const double complex d = dk[a * sz + b];
                    if (d == 0.0) continue;
                    const double complex *hb = hc + (size_t)b * nl;
                    for (int r = 0; r < nl; r++) col[r] -= hb[r] * d;
                }
                col[c0 + a] += 1.0;
            }
            i = i < nd ? nd : i + 3;
        }
        const lapack_int info = LAPACKE_zgetrf(LAPACK_COL_MAJOR, nl, nl, Pk, nl, k->piv + (size_t)kk * nl);
        if (info != 0)
            rc = -1, snprintf(err, errlen, "hbm: the Newton-Krylov preconditioner of harmonic %d is singular at %.9g Hz", kk,
                              h->lin.w / (2 * M_PI));
    }
    free(dk);
    if (hc != k->hc) free(hc);
    k->built = rc == 0, k->last = 0;
    return rc;
}

/* the bordered system's product: [J Bc; Br Bx] v -> out (nu + p) */
static void apply_A(hb *h, const hb_border *bd, const double *v, double *out)
{
    const int nu = h->nu, p = bd ? bd->p : 0;
    apply_J(h, v, out);
    for (int q = 0; q < p; q++) {
        const double vq = v[nu + q], *col = bd->Bc + (size_t)q * nu, *row = bd->Br + (size_t)q * nu;
        double s = 0.0;
        for (int c = 0; c < p; c++) s += bd->Bx[(size_t)c * p + q] * v[nu + c];
        for (int i = 0; i < nu; i++) out[i] += col[i] * vq, s += row[i] * v[i];
        out[nu + q] = s;
    }
}

/* the bordered preconditioner [P Bc; Br Bx]^-1 by its block factors (k->zb = P^-1 Bc, k->sc the Schur complement's LU) */
static void apply_M(hb *h, const hb_border *bd, const double *r, double *z)
{
    const int nu = h->nu, p = bd ? bd->p : 0;
    apply_P(h, r, z);
    if (!p) return;
    double s[HB_MAXBORDER];
    for (int q = 0; q < p; q++) {
        const double *row = bd->Br + (size_t)q * nu;
        double v = r[nu + q];
        for (int i = 0; i < nu; i++) v -= row[i] * z[i];
        s[q] = v;
    }
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', p, 1, h->kr->sc, p, h->kr->scp, s, p);
    for (int q = 0; q < p; q++) {
        const double *zq = h->kr->zb + (size_t)q * nu;
        for (int i = 0; i < nu; i++) z[i] -= zq[i] * s[q];
        z[nu + q] = s[q];
    }
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* br_hb_kry_solve_border with the preconditioner as it is */
static int gmres(hb *h, const hb_border *bd, double *b, char *err, size_t errlen)
{
    struct hb_kry *k = h->kr;
    const int nu = h->nu, p = bd ? bd->p : 0, na = nu + p, m = KRY_RESTART;
    const size_t ld = (size_t)nu + HB_MAXBORDER;
    if (p) { /* zb = P^-1 Bc, the Schur complement Bx - Br zb, factored (where it is singular, Bx alone, or I) */
        for (int q = 0; q < p; q++) apply_P(h, bd->Bc + (size_t)q * nu, k->zb + (size_t)q * nu);
        for (int c = 0; c < p; c++)
            for (int q = 0; q < p; q++) k->sc[(size_t)c * p + q] = bd->Bx[(size_t)c * p + q] - dot(bd->Br + (size_t)q * nu, k->zb + (size_t)c * nu, nu);
        if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, p, p, k->sc, p, k->scp) != 0) {
            memcpy(k->sc, bd->Bx, (size_t)p * p * sizeof(double));
            if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, p, p, k->sc, p, k->scp) != 0) {
                memset(k->sc, 0, (size_t)p * p * sizeof(double));
                for (int q = 0; q < p; q++) k->sc[(size_t)q * p + q] = 1.0, k->scp[q] = q + 1;
            }
        }
    }
    const double bn = sqrt(dot(b, b, na));
    double *xs = calloc((size_t)na, sizeof(double)), *r = malloc((size_t)na * sizeof(double));
    if (!xs || !r) {
        free(xs), free(r);
        snprintf(err, errlen, "hbm: out of memory");
        return -1;
    }
    if (bn == 0.0) {
        memset(b, 0, (size_t)na * sizeof(double));
        free(xs), free(r);
        return 0;
    }
    int total = 0, ok = 0;
    double rn = bn;
    while (total < KRY_MAXIT && !ok) {
        /* r = b - A x */
        if (total == 0) memcpy(r, b, (size_t)na * sizeof(double));
        else {
            apply_A(h, bd, xs, r);
            for (int i = 0; i < na; i++) r[i] = b[i] - r[i];
        }
        rn = sqrt(dot(r, r, na));
        if (rn <= KRY_RTOL * bn) {
            ok = 1;
            break;
        }
        for (int i = 0; i < na; i++) k->V[i] = r[i] / rn;
        memset(k->e, 0, (size_t)(m + 1) * sizeof(double));
        k->e[0] = rn;
        int j = 0;
        for (; j < m && total < KRY_MAXIT; j++, total++) {
            double *vj = k->V + (size_t)j * ld, *zj = k->Z + (size_t)j * ld, *w = k->V + (size_t)(j + 1) * ld;
            apply_M(h, bd, vj, zj);
            apply_A(h, bd, zj, w);
            double *hj = k->Hs + (size_t)j * (m + 1);
            for (int pass = 0; pass < 2; pass++) /* modified Gram-Schmidt, twice (the basis stays orthogonal to rounding) */
                for (int i = 0; i <= j; i++) {
                    const double *vi = k->V + (size_t)i * ld;
                    const double hij = dot(w, vi, na);
                    if (pass == 0) hj[i] = hij;
                    else hj[i] += hij;
                    for (int e = 0; e < na; e++) w[e] -= hij * vi[e];
                }
            hj[j + 1] = sqrt(dot(w, w, na));
            if (hj[j + 1] > 0.0)
                for (int e = 0; e < na; e++) w[e] /= hj[j + 1];
            for (int i = 0; i < j; i++) { /* the earlier rotations on the new column, then its own */
                const double t = k->cs[i] * hj[i] + k->sn[i] * hj[i + 1];
                hj[i + 1] = -k->sn[i] * hj[i] + k->cs[i] * hj[i + 1], hj[i] = t;
            }
            const double den = hypot(hj[j], hj[j + 1]);
            k->cs[j] = den > 0.0 ? hj[j] / den : 1.0, k->sn[j] = den > 0.0 ? hj[j + 1] / den : 0.0;
            hj[j] = den, hj[j + 1] = 0.0;
            k->e[j + 1] = -k->sn[j] * k->e[j], k->e[j] *= k->cs[j];
            if (fabs(k->e[j + 1]) <= KRY_RTOL * bn || den == 0.0) {
                j++, total++;
                break;
            }
        }
        /* x += Z y with H y = e (upper triangular, j columns) */
        double yv[KRY_RESTART];
        for (int i = j - 1; i >= 0; i--) {
            double s = k->e[i];
            for (int l = i + 1; l < j; l++) s -= k->Hs[(size_t)l * (m + 1) + i] * yv[l];
            yv[i] = k->Hs[(size_t)i * (m + 1) + i] != 0.0 ? s / k->Hs[(size_t)i * (m + 1) + i] : 0.0;
        }
        for (int i = 0; i < j; i++)
            for (int e = 0; e < na; e++) xs[e] += k->Z[(size_t)i * ld + e] * yv[i];
        if (j == 0) break;
    }
    k->its += total, k->last = total;
    if (!ok) { /* the true residual of the last iterate */
        apply_A(h, bd, xs, r);
        for (int i = 0; i < na; i++) r[i] = b[i] - r[i];
        rn = sqrt(dot(r, r, na));
        ok = rn <= KRY_RTOL * bn;
    }
    if (getenv("BRISTLE_HBM_DEBUG")) fprintf(stderr, "gmres: %d products, |r| %.3e of |b| %.3e\n", total, rn, bn);
    memcpy(b, xs, (size_t)na * sizeof(double));
    free(xs), free(r);
    if (!ok && rn > 1e-6 * bn) {
        snprintf(err, errlen, "hbm: GMRES reached %.3g of the Newton step's right side in %d products at %.9g Hz", rn / bn,
                 total, h->lin.w / (2 * M_PI));
        return -1;
    }
    return 0;
}

long br_hbm_krylov_products(const br_hbm *h) { return h->kr ? h->kr->its : 0; }

int br_hb_kry_solve_border(hb *h, const hb_border *bd, double *b, char *err, size_t errlen)
{
    const size_t na = (size_t)h->nu + (bd ? (size_t)bd->p : 0);
    double *b0 = malloc(na * sizeof(double));
    if (!b0) {
        snprintf(err, errlen, "hbm: out of memory");
        return -1;
    }
    memcpy(b0, b, na * sizeof(double));
    int rc = gmres(h, bd, b, err, errlen);
    if (rc && h->kr->builds > 0) { /* once more with the preconditioner factored here */
        *err = 0;
        h->kr->last = KRY_MAXIT;
        memcpy(b, b0, na * sizeof(double));
        rc = br_hb_kry_precondition(h, err, errlen) ? -1 : gmres(h, bd, b, err, errlen);
    }
    free(b0);
    return rc;
}

int br_hb_kry_solve(hb *h, const double *jw, const double *c, double cw, double *b, char *err, size_t errlen)
{
    const hb_border bd = {1, jw, c, &cw};
    return br_hb_kry_solve_border(h, jw ? &bd : NULL, b, err, errlen);
}
