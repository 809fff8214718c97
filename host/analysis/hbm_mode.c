/* hbm_mode.c: nonlinear modes by the extended periodic motion concept (in: the harmonic balance solver of a
 * model, a mode number, a range of modal amplitudes; out: the backbone, per amplitude the frequency, the damping
 * ratio, the columns' harmonics and the contact sets' energy per cycle). docs/hbm.md, "Nonlinear modes".
 *
 * The autonomous system M q'' + (C - xi M) q' + K q + f_c = F_0 (no harmonic load) has a periodic solution for
 * the (w, xi) at which the negative damping xi M makes up for what the damping and the contacts dissipate: its
 * damping ratio is D = xi / (2 w) (Krack 2015).
 *
 * Harmonic 1 is split along the structure's undamped modes near the mode (br_hbm_lin_split): Q_1 = Psi eta + Q' with
 * Psi^T M Q' = 0, Psi the modes within 10 % of the linearized mode's frequency (and the one with the largest share
 * of it, s_0). Their coordinates eta are unknowns (eta_0 real: the phase normalization), their modal equations mu = 0
 * equations (the multipliers of the bordered Z_1; on the modal path d_1j eta_j = phi_j^T T^T G_1). A mode the
 * contacts hardly move (S2's first: the three blades in phase, its frequency that of the three free blades, a
 * triple eigenvalue) is then solved as it is, where the condensed receptance is singular (0 / 0 at its frequency
 * once xi cancels its damping, for each mode of the cluster). The amplitude is the first harmonic's mass-weighted
 * norm, a^2 = Q_1^H M Q_1 = |eta|^2 + Q'^H M Q' (physics.md 5.2): one equation more. Unknowns z = (y, w, xi,
 * Re eta_0, Re eta_1, Im eta_1, ...): nu + 2 nsplit + 1 of them; Newton's matrix is the forced one bordered by the
 * columns of w, xi, eta and the rows of the modal equations and the amplitude (dense LU). */
#include <complex.h>

#include "analysis/hbm_internal.h"
#include "base/outdir.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void br_hb_ell_values(const hb *h, double complex *v)
{
    const int nl = h->s.nnl;
    for (int r = 0; r < h->nell; r++) {
        double complex q = 0;
        for (int j = 0; j < nl; j++) q += h->ell[(size_t)r * nl + j] * br_hb_force(h, h->ysol, 1, j);
        v[r] = q;
    }
}

void br_hb_ell_blocks(hb *h)
{
    const int nl = h->s.nnl, nu = h->nu, nb = 2 * h->H + 1;
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < nl; i++) {
            int j0, sz;
            const double *Db = hb_block(h, i, &j0, &sz) + (size_t)(b * sz + i - j0) * sz * nb;
            for (int r = 0; r < h->nell; r++) {
                double complex q = 0;
                for (int j = j0; j < j0 + sz; j++) /* harmonic 1's rows: block 1 (Re), block 2 (Im) */
                    q += h->ell[(size_t)r * nl + j] * (Db[sz + j - j0] + I * Db[2 * sz + j - j0]);
                h->Jq[(size_t)r * nu + (size_t)b * nl + i] = q;
            }
        }
}

/* the backbone's workspace */
typedef struct mode_ws {
    int ns, idx[HB_MAXSPLIT]; /* the split modes (idx[0] the one of the largest share: eta_0 real) */
    int nx;                   /* the unknowns and equations added: w, xi and 2 ns - 1 of eta; 2 ns of mu and the amplitude */
    double complex *G1;       /* nnl: G_1 */
    double *Bc, *Br, *Bx;     /* the Newton matrix's border: nu x nx columns, nx rows of nu, the nx square corner */
    double *A, *b;            /* the dense path's Newton matrix ((nu + nx) square) and the right-hand side */
    int *piv;
} mode_ws;

/* z's eta part (2 ns - 1 reals) <-> eta (ns complex) */
static void eta_of(const mode_ws *ws, const double *ze, double complex *eta)
{
    eta[0] = ze[0];
    for (int j = 1; j < ws->ns; j++) eta[j] = ze[2 * j - 1] + I * ze[2 * j];
}

/* solver after a residual at (w, xi, eta), amplitude a -> e (nx): per split mode its modal equation's defect mu_j over
 * w^2 (Re, Im: a modal displacement, as a is), then the amplitude's defect A - a; with ellA (nnl complex) the
 * amplitude's derivative in G_1 (dA = Re ellA^T dG_1) and in eta (dre, dim) too */
static void extras(hb *h, mode_ws *ws, double a, double *e, double complex *ellA, double *dre, double *dim)
{
    const br_hbm_lin *l = &h->lin;
    const int nl = h->s.nnl, ns = ws->ns;
    for (int j = 0; j < nl; j++) ws->G1[j] = br_hb_force(h, h->ysol, 1, j);
    const double w2 = l->w * l->w;
    for (int r = 0; r < ns; r++) {
        double complex mu = h->lev * l->sp[brm_mf(l) + r];
        for (int j = 0; j < ns; j++) mu += l->sp[brm_me(l, r) + j] * l->eta[j];
        for (int j = 0; j < nl; j++) mu += l->sp[brm_mg(l, r) + j] * ws->G1[j];
        e[2 * r] = creal(mu) / w2, e[2 * r + 1] = cimag(mu) / w2;
    }
    e[2 * ns] = br_hbm_lin_split_amplitude(&h->s, l, ws->G1, l->eta, ellA, dre, dim) - a;
}

/* z = (y, w, xi, eta's reals ze), amplitude a -> R (nu) and the equations e (nx); 0, or -1 with err */
static int eval(hb *h, mode_ws *ws, const double *y, double w, double xi, const double *ze, double a, double *R, double *e,
                char *err, size_t errlen)
{
    h->lin.xi = xi;
    eta_of(ws, ze, h->lin.eta);
    if (br_hb_residual(h, y, w, R, err, errlen)) return -1;
    extras(h, ws, a, e, NULL, NULL, NULL);
    return 0;
}

/* z (nu + nx: y, w, xi, ze), a, the residual there in h->R (h->G at z) -> the Newton matrix [J Bc; Br Bx]: J (formed
 * in h->J on the dense path, kept as its blocks h->D on the Krylov path) and the rows' y-part Br by forward
 * differences (the functionals' Jq), the columns Bc of w and xi by forward differences, of eta exactly; the
 * evaluation at z restored (h->R, h->G); 0 or -1 */
static int aug_jacobian(hb *h, mode_ws *ws, const double *z, double a, char *err, size_t errlen)
{
    const int nu = h->nu, nx = ws->nx, nl = h->s.nnl, ns = ws->ns;
    const br_hbm_lin *l = &h->lin;
    const double *y = z, w = z[nu], xi = z[nu + 1], *ze = z + nu + 2, w2 = w * w;
    double *Bc = ws->Bc, *Br = ws->Br, *Bx = ws->Bx;
    double e0[2 * HB_MAXSPLIT + 1], e[2 * HB_MAXSPLIT + 1], dre[HB_MAXSPLIT], dim[HB_MAXSPLIT];
    for (int r = 0; r < ns; r++) /* ell_r: modal equation r's row over w^2; ell_ns: the amplitude's */
        for (int j = 0; j < nl; j++) h->ell[(size_t)r * nl + j] = l->sp[brm_mg(l, r) + j] / w2;
    extras(h, ws, a, e0, h->ell + (size_t)ns * nl, dre, dim);
    if (br_hb_jacobian(h, y, w, h->J, NULL, err, errlen)) return -1;
    for (int c = 0; c < nu; c++) {
        for (int r = 0; r < ns; r++)
            Br[(size_t)(2 * r) * nu + c] = creal(h->Jq[(size_t)r * nu + c]), Br[(size_t)(2 * r + 1) * nu + c] = cimag(h->Jq[(size_t)r * nu + c]);
        Br[(size_t)(2 * ns) * nu + c] = creal(h->Jq[(size_t)ns * nu + c]);
    }
    /* eta (at z: the blocks are z's until the columns below): R's harmonic 1 moves by -Sn_j deta_j, mu_r by mE_rj
     * deta_j, A by dre_j dRe eta_j + dim_j dIm eta_j */
    for (int q = 0; q < 2 * ns - 1; q++) {
        const int j = (q + 1) / 2, im = q > 0 && q % 2 == 0;
        const double complex dj = im ? I : 1.0;
        double *col = Bc + (size_t)(2 + q) * nu, *cx = Bx + (size_t)(2 + q) * nx;
        for (int r = 0; r < nu; r++) col[r] = 0.0;
        for (int i = 0; i < nl; i++) {
            const double complex v = -dj * l->sp[brm_sn(l, j) + i];
            col[nl + i] = creal(v), col[2 * nl + i] = cimag(v);
        }
        for (int r = 0; r < ns; r++) {
            const double complex v = dj * l->sp[brm_me(l, r) + j] / w2;
            cx[2 * r] = creal(v), cx[2 * r + 1] = cimag(v);
        }
        cx[2 * ns] = im ? dim[j] : dre[j];
    }
    if (eval(h, ws, y, w, xi, ze, a, h->R, e0, err, errlen)) return -1; /* (the columns' G left h->G elsewhere) */
    const double dp[2] = {1e-7 * w, 1e-7 * fmax(fabs(xi), 1e-3 * w)};
    for (int p = 0; p < 2; p++) { /* the columns of w and xi */
        if (eval(h, ws, y, w + (p == 0 ? dp[0] : 0.0), xi + (p == 1 ? dp[1] : 0.0), ze, a, h->Rt, e, err, errlen)) return -1;
        double *col = Bc + (size_t)p * nu, *cx = Bx + (size_t)p * nx;
        for (int r = 0; r < nu; r++) col[r] = (h->Rt[r] - h->R[r]) / dp[p];
        for (int r = 0; r < nx; r++) cx[r] = (e[r] - e0[r]) / dp[p];
    }
    return eval(h, ws, y, w, xi, ze, a, h->R, e0, err, errlen);
}

/* the Newton matrix (aug_jacobian's), b (nu + nx) -> b overwritten by the step: dense LU, or GMRES with the border;
 * 0, or -1 with err */
static int solve_step(hb *h, mode_ws *ws, double *b, char *err, size_t errlen)
{
    const int nu = h->nu, nx = ws->nx, na = nu + nx;
    if (h->kry) {
        const hb_border bd = {nx, ws->Bc, ws->Br, ws->Bx};
        return br_hb_kry_solve_border(h, &bd, b, err, errlen);
    }
    double *A = ws->A;
    for (int c = 0; c < nu; c++) {
        memcpy(A + (size_t)c * na, h->J + (size_t)c * nu, (size_t)nu * sizeof(double));
        for (int r = 0; r < nx; r++) A[(size_t)c * na + nu + r] = ws->Br[(size_t)r * nu + c];
    }
    for (int c = 0; c < nx; c++) {
        memcpy(A + (size_t)(nu + c) * na, ws->Bc + (size_t)c * nu, (size_t)nu * sizeof(double));
        memcpy(A + (size_t)(nu + c) * na + nu, ws->Bx + (size_t)c * nx, (size_t)nx * sizeof(double));
    }
    const int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, na, 1, A, na, ws->piv, b, na);
    if (info != 0) {
        snprintf(err, errlen, "hbm: the backbone's Newton matrix is singular at %.9g Hz", h->lin.w / (2 * M_PI));
        return -1;
    }
    return 0;
}

/* Newton on z = (y, w, xi, ze) (nu + nx) at amplitude a from the guess -> iterations, or -1 (no convergence within maxit),
 * -2 (an error in err) */
static int newton_mode(hb *h, mode_ws *ws, double *z, double a, int maxit, char *err, size_t errlen)
{
    const int nu = h->nu, nx = ws->nx, na = nu + nx, nl = h->s.nnl;
    double e[2 * HB_MAXSPLIT + 1], et[2 * HB_MAXSPLIT + 1], *b = ws->b, *zt = h->yt;
    br_hb_set_tolerances(h, z);
    if (eval(h, ws, z, z[nu], z[nu + 1], z + nu + 2, a, h->R, e, err, errlen)) return -2;
    for (int it = 1; it <= maxit; it++) {
        if (aug_jacobian(h, ws, z, a, err, errlen)) return -2;
        for (int r = 0; r < nu; r++) b[r] = -h->R[r];
        for (int r = 0; r < nx; r++) b[nu + r] = -e[r];
        const double t0 = br_wall_seconds();
        const int src = solve_step(h, ws, b, err, errlen);
        h->wall_lin += br_wall_seconds() - t0;
        if (src) return -1;
        double f0 = 0.0, f1 = INFINITY, alpha = 1.0;
        for (int r = 0; r < nx; r++) f0 += e[r] * e[r];
        for (int r = 0; r < nu; r++) f0 += h->R[r] * h->R[r];
        int ok = 0;
        for (int ls = 0; ls <= 8; ls++, alpha *= 0.5) { /* backtracking on |R|^2 + |e|^2 (Armijo) */
            for (int i = 0; i < na; i++) zt[i] = z[i] + alpha * b[i];
            *err = 0;
            ok = zt[nu] > 0.0 && eval(h, ws, zt, zt[nu], zt[nu + 1], zt + nu + 2, a, h->Rt, et, err, errlen) == 0;
            if (!ok) continue;
            f1 = 0.0;
            for (int r = 0; r < nx; r++) f1 += et[r] * et[r];
            for (int r = 0; r < nu; r++) f1 += h->Rt[r] * h->Rt[r];
            if (f1 <= (1.0 - 1e-4 * alpha) * f0) break;
        }
        if (!ok) {
            if (!*err) snprintf(err, errlen, "hbm: the backbone's Newton step left positive frequencies");
            return -1;
        }
        memcpy(z, zt, (size_t)na * sizeof(double));
        memcpy(h->R, h->Rt, (size_t)nu * sizeof(double));
        memcpy(e, et, (size_t)nx * sizeof(double));
        h->newton++;
        const double step = alpha * br_hb_norm_inf(b + nl, nu - nl), emax = br_hb_norm_inf(e, nx);
        const double estep = alpha * br_hb_norm_inf(b + nu + 2, nx - 2);
        if (getenv("BRISTLE_HBM_DEBUG"))
            fprintf(stderr, "mode newton %d: a %.6e f %.12g xi %.6e eta_0 %.6e |R| %.3e |e| %.3e step %.3e alpha %g\n", it, a,
                    z[nu] / (2 * M_PI), z[nu + 1], z[nu + 2], br_hb_norm_inf(h->R, nu), emax, step, alpha);
        if (br_hb_norm_inf(h->R, nl) <= h->ytol && br_hb_norm_inf(h->R + nl, nu - nl) <= h->ytol1 && emax <= h->tol * a &&
            step <= 1e3 * h->ytol1 && fabs(alpha * b[nu]) <= 1e-6 * z[nu] && estep <= 1e3 * h->tol * a)
            return it;
    }
    return -1;
}

/* solver at the static state y (zero oscillation) at w -> S (nnl square, complex, column-major): the contact forces'
 * first harmonic per unit first harmonic of each coordinate, G_1 = S y_1, by forward differences of size d (from
 * the point blocks with deforming interfaces, else a coordinate at a time); 0 or -1 */
static int stuck_stiffness(hb *h, const double *y, double w, double d, double complex *S, char *err, size_t errlen)
{
    const int nu = h->nu, nl = h->s.nnl, nd = h->s.nnl_dof, nb = 2 * h->H + 1;
    memset(S, 0, (size_t)nl * nl * sizeof(double complex));
    if (h->s.nif > 0) { /* the colored Jacobian's blocks: harmonic 1's complex-linear part (hbm_krylov.c's d_1) */
        double complex *Jq = h->Jq;
        h->Jq = NULL; /* (no functionals yet) */
        const int rc = br_hb_residual(h, y, w, h->R, err, errlen) || br_hb_jacobian(h, y, w, h->J, NULL, err, errlen);
        h->Jq = Jq;
        if (rc) return -1;
        for (int i = 0; i < nl;) {
            int c0, sz;
            const double *Db = hb_block(h, i, &c0, &sz);
            const int n = sz * nb;
#define DE(bb, rr, bc, cc) Db[(size_t)((bc) * sz + (cc)) * n + (bb) * sz + (rr)]
            for (int a = 0; a < sz; a++)
                for (int r = 0; r < sz; r++)
                    S[(size_t)(c0 + a) * nl + c0 + r] = 0.5 * (DE(1, r, 1, a) + DE(2, r, 2, a)) + 0.5 * I * (DE(2, r, 1, a) - DE(1, r, 2, a));
#undef DE
            i = i < nd ? nd : i + 3;
        }
        return 0;
    }
    double *G0 = malloc((size_t)nu * sizeof(double)), *Gt = malloc((size_t)nu * sizeof(double));
    int rc = G0 && Gt ? br_hbm_aft_eval(&h->aft, y, w, G0, err, errlen) : -1;
    for (int i = 0; i < nl && rc == 0; i++) {
        memcpy(h->yt, y, (size_t)nu * sizeof(double));
        h->yt[nl + i] += d;
        rc = br_hbm_aft_eval(&h->aft, h->yt, w, Gt, err, errlen);
        for (int r = 0; r < nl && rc == 0; r++) S[(size_t)i * nl + r] = ((Gt[nl + r] - G0[nl + r]) + I * (Gt[2 * nl + r] - G0[2 * nl + r])) / d;
    }
    if (!G0 || !Gt) snprintf(err, errlen, "hbm: out of memory");
    free(G0), free(Gt);
    return rc;
}

/* solver (with its modes), mode K, the smallest amplitude a -> the first guess z: the static state (the preload solved,
 * nothing oscillating), the contacts linearized about it (stuck: G_1 = S y_1), the K-th mode above 0.01 Hz of the
 * linear system in the structure's modal coordinates, v of Km = diag(lam) - P^T Re S P (orthonormal: psi = Phi v is
 * mass-normalized), scaled to the amplitude a: y, w = its frequency, xi = its damping psi^T C psi - (P v)^T Im S
 * (P v) / w_S, eta_j = a v_j (v_0 > 0); ws's split modes: the largest |v_m| first, then the modes within 10 % of its
 * frequency nearest it (up to HB_MAXSPLIT); 0, -4 (K above the stuck system's modes: bad input) or -1, with err */
static int mode_guess(hb *h, int K, double a, mode_ws *ws, double *z, char *err, size_t errlen)
{
    double *y = z;
    const br_hbm_sys *s = &h->s;
    const br_hbm_lin *l = &h->lin;
    const int n = s->ndof, nl = s->nnl, nu = h->nu;
    double wn = 2 * M_PI; /* the static state's AFT frequency (nothing oscillates: any) */
    h->lin.xi = 0.0;
    if (br_hb_set_param(h, wn, err, errlen)) return -1;
    if (br_hb_bonded_guess(h, y)) memset(y, 0, (size_t)nu * sizeof(double));
    for (int i = nl; i < nu; i++) y[i] = 0.0;
    br_hb_set_tolerances(h, y);
    /* nothing oscillates: the harmonics need only be small against the first amplitude's (1e-6 of it: the guess sets
     * them anew; a preload's AFT leaves them at its period tolerance times the mean force's receptance, 1e-14 m at the
     * lap joint's 2 kN) */
    double pmax = 0.0;
    for (size_t e = 0; e < (size_t)n * nl; e++) pmax = fmax(pmax, fabs(l->P[e]));
    h->ytol1 = fmax(h->ytol1, 1e-6 * a * pmax);
    double ws_ = wn;
    double complex *Jq = h->Jq;
    h->Jq = NULL;
    const int its = br_hb_newton(h, y, &ws_, NULL, NULL, 0, fmax(br_hb_norm_inf(y, nu), 1e-300), wn, 40, err, errlen);
    h->Jq = Jq;
    if (its < 0) {
        if (!*err) snprintf(err, errlen, "hbm: no static state (the preload) for the mode");
        return -1;
    }
    const double ys = br_hb_norm_inf(y, nl);
    double complex *S = malloc((size_t)nl * nl * sizeof(double complex));
    double *Sr = malloc((size_t)nl * nl * sizeof(double)), *U = malloc((size_t)nl * n * sizeof(double));
    double *Km = malloc((size_t)n * n * sizeof(double)), *lam = malloc((size_t)n * sizeof(double));
    double *psi = malloc((size_t)2 * n * sizeof(double)), *pv = malloc((size_t)nl * sizeof(double));
    int rc = -1;
    if (!S || !Sr || !U || !Km || !lam || !psi || !pv) {
        snprintf(err, errlen, "hbm: out of memory");
        goto out;
    }
    if (stuck_stiffness(h, y, wn, 1e-6 * (ys > 0 ? ys : a * pmax), S, err, errlen)) goto out;
    for (size_t e = 0; e < (size_t)nl * nl; e++) Sr[e] = creal(S[e]);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nl, n, nl, 1.0, Sr, nl, l->P, nl, 0.0, U, nl);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, n, nl, -1.0, l->P, nl, U, nl, 0.0, Km, n);
    for (int m = 0; m < n; m++) Km[(size_t)m * n + m] += l->lam[m];
    for (int c = 0; c < n; c++) /* the symmetric part */
        for (int e = 0; e < c; e++) {
            const double v = 0.5 * (Km[(size_t)c * n + e] + Km[(size_t)e * n + c]);
            Km[(size_t)c * n + e] = Km[(size_t)e * n + c] = v;
        }
    const lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', n, Km, n, lam);
    if (info != 0) {
        snprintf(err, errlen, "hbm: the stuck system's eigenproblem failed (dsyevd info %d)", (int)info);
        goto out;
    }
    if (getenv("BRISTLE_HBM_DEBUG"))
        for (int j = 0; j < n && j < 8; j++) fprintf(stderr, "stuck linearization: mode %d at %.9g Hz\n", j + 1, sqrt(fabs(lam[j])) / (2 * M_PI));
    int m = -1;
    for (int j = 0, cnt = 0; j < n && m < 0; j++)
        if (lam[j] > (2 * M_PI * 0.01) * (2 * M_PI * 0.01) && ++cnt == K) m = j;
    if (m < 0) {
        snprintf(err, errlen, "hbm: --mode %d: the stuck system has fewer modes above 0.01 Hz", K);
        rc = -4; /* the user's K: bad input */
        goto out;
    }
    double *v = Km + (size_t)m * n;
    int js = 0;
    for (int j = 0; j < n; j++)
        if (fabs(v[j]) > fabs(v[js])) js = j;
    if (v[js] < 0)
        for (int j = 0; j < n; j++) v[j] = -v[j];
    /* the split modes: js, then by distance in frequency those within 10 % of the linearized mode's */
    const double lm = lam[m];
    ws->ns = 1, ws->idx[0] = js;
    for (;;) {
        int best = -1;
        for (int j = 0; j < n; j++) {
            const double fj = sqrt(fmax(l->lam[j], 0.0) / lm);
            int have = 0;
            for (int q = 0; q < ws->ns; q++) have |= ws->idx[q] == j;
            if (have || fabs(fj - 1.0) > 0.1) continue;
            if (best < 0 || fabs(fj - 1.0) < fabs(sqrt(fmax(l->lam[best], 0.0) / lm) - 1.0)) best = j;
        }
        if (best < 0 || ws->ns == HB_MAXSPLIT) break;
        ws->idx[ws->ns++] = best;
    }
    ws->nx = 2 * ws->ns + 1;
    /* xi = psi^T C psi - (P v)^T Im S (P v) / wn, psi = Phi v */
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, l->Phi, n, v, 1, 0.0, psi, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, s->C, n, psi, 1, 0.0, psi + n, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, nl, n, 1.0, l->P, nl, v, 1, 0.0, pv, 1);
    double cmv = cblas_ddot(n, psi, 1, psi + n, 1);
    for (int i = 0; i < nl; i++)
        for (int j = 0; j < nl; j++) cmv -= pv[i] * cimag(S[(size_t)j * nl + i]) * pv[j] / wn;
    for (int i = 0; i < nl; i++) y[nl + i] = a * pv[i], y[2 * nl + i] = 0.0; /* y_1 = a P v, real */
    z[nu] = sqrt(lm), z[nu + 1] = cmv;
    double *ze = z + nu + 2;
    ze[0] = a * v[js];
    for (int j = 1; j < ws->ns; j++) ze[2 * j - 1] = a * v[ws->idx[j]], ze[2 * j] = 0.0;
    if (getenv("BRISTLE_HBM_DEBUG")) {
        fprintf(stderr, "mode guess: %.9g Hz, xi %.6g, %d split modes:", z[nu] / (2 * M_PI), cmv, ws->ns);
        for (int j = 0; j < ws->ns; j++)
            fprintf(stderr, " %d (%.6g Hz, share %.6f)", ws->idx[j] + 1, sqrt(fabs(l->lam[ws->idx[j]])) / (2 * M_PI), v[ws->idx[j]]);
        fprintf(stderr, "\n");
    }
    rc = 0;
out:
    free(S), free(Sr), free(U), free(Km), free(lam), free(psi), free(pv);
    return rc;
}

/* the last two solutions z1, z2 (nz), the step over the last one's t -> the predictor z = z1 + t (z1 - z2) */
static void secant(int nz, const double *z1, const double *z2, double t, double *z)
{
    for (int i = 0; i < nz; i++) z[i] = z1[i] + t * (z1[i] - z2[i]);
}

void br_hbm_bb_free(br_hbm_bb *bb)
{
    free(bb->rows), free(bb->sol);
    memset(bb, 0, sizeof *bb);
}

/* the stops (n), the last amplitude's log l, the direction dir, the next log step's end t -> t clamped to the first
 * stop strictly past l and not past t */
static double next_stop(const double *stops, int n, double l, double dir, double t)
{
    for (int i = 0; i < n; i++) {
        const double ls = log(stops[i]);
        if ((ls - l) * dir > 1e-12 && (t - ls) * dir > 0) t = ls;
    }
    return t;
}

int br_hbm_backbone(br_hbm *h, int mode, double a0, double a1, int points, const double *stops, int nstops, int progress,
                    br_hbm_bb *bb, char *warning, size_t wlen, char *err, size_t errlen)
{
    const int nu = h->nu, nl = h->s.nnl, width = BR_HBM_MODE_LEAD + br_hbm_row_width(h), nzmax = nu + 2 * HB_MAXSPLIT + 1;
    memset(bb, 0, sizeof *bb);
    *warning = 0;
    if (br_hbm_lin_modes(&h->s, &h->lin)) {
        snprintf(err, errlen, "hbm: out of memory for the modes");
        return -2;
    }
    if (!h->lin.havemodes) {
        snprintf(err, errlen, "hbm: --mode: the structure's undamped modes could not be computed (its mass matrix is not "
                              "positive definite: a DOF without mass?)");
        return -4;
    }
    const long cap = (long)(points + nstops) * 4;
    mode_ws ws = {0};
    ws.A = h->kry ? NULL : malloc((size_t)nzmax * nzmax * sizeof(double)), ws.b = malloc((size_t)nzmax * sizeof(double));
    ws.Bc = malloc((size_t)nu * HB_MAXBORDER * sizeof(double)), ws.Br = malloc((size_t)nu * HB_MAXBORDER * sizeof(double));
    ws.Bx = malloc((size_t)HB_MAXBORDER * HB_MAXBORDER * sizeof(double));
    ws.piv = malloc((size_t)nzmax * sizeof(int));
    ws.G1 = malloc((size_t)nl * sizeof(double complex));
    double *z = malloc((size_t)3 * nzmax * sizeof(double)), *z1 = z ? z + nzmax : NULL, *z2 = z ? z + 2 * nzmax : NULL;
    double *yt = realloc(h->yt, (size_t)nzmax * sizeof(double)); /* (Newton's trial z) */
    if (yt) h->yt = yt;
    bb->rows = malloc((size_t)cap * width * sizeof(double)), bb->sol = malloc((size_t)cap * nzmax * sizeof(double));
    h->Jq = malloc((size_t)HB_MAXELL * nu * sizeof(double complex)), h->ell = calloc((size_t)HB_MAXELL * nl, sizeof(double complex));
    const double lev = h->lev;
    h->lev = 0.0; /* autonomous: the harmonic loads off, the static ones on */
    int rc = 0;
    if ((!h->kry && !ws.A) || !ws.b || !ws.Bc || !ws.Br || !ws.Bx || !ws.piv || !ws.G1 || !z || !yt || !bb->rows || !bb->sol ||
        !h->Jq || !h->ell) {
        snprintf(err, errlen, "hbm: out of memory");
        rc = -2;
        goto done;
    }
    const int grc = mode_guess(h, mode, a0, &ws, z, err, errlen);
    if (grc) {
        rc = grc == -4 ? -4 : -2;
        goto done;
    }
    const int nz = nu + ws.nx;
    h->nell = ws.ns + 1;
    bb->f_lin = z[nu] / (2 * M_PI), bb->ns = ws.ns, bb->nz = nz;
    memcpy(bb->split, ws.idx, sizeof ws.idx);
    const int src = br_hbm_lin_split(&h->s, &h->lin, ws.ns, ws.idx); /* harmonic 1 split along the modes from here on */
    if (src) {
        snprintf(err, errlen, "hbm: %s", src == -2 ? "the mass matrix's Cholesky factorization failed" : "out of memory for the split modes");
        rc = -2;
        goto done;
    }
    /* natural continuation in log a: the predictor the secant through the last two solutions (the first step scales
     * the oscillation by the amplitudes' ratio), a step halved on a failed Newton; a step ends at a stop it passes */
    const double la0 = log(a0), la1 = log(a1), dla = points > 1 ? (la1 - la0) / (points - 1) : 0.0, dir = la1 >= la0 ? 1.0 : -1.0;
    double la = la0, lprev = la0, lprev2 = la0, step = dla;
    int have = 0, nst = nstops < 2 * HB_MAXLEV ? nstops : 2 * HB_MAXLEV;
    double st[2 * HB_MAXLEV]; /* the stops not yet passed or given up */
    if (nst > 0)
        memcpy(st, stops, (size_t)nst * sizeof(double));
    while (rc == 0) {
        double a = exp(la); /* (the range's ends and the stops exactly as given) */
        int atstop = -1;
        for (int i = 0; i < nst + 2; i++) {
            const double at = i == 0 ? a0 : i == 1 ? a1 : st[i - 2];
            if (fabs(la - log(at)) <= 1e-12) a = at, atstop = i - 2;
        }
        int its = newton_mode(h, &ws, z, a, 30, err, errlen);
        if (its == -2) {
            rc = -2;
            break;
        }
        if (its < 0) {
            if (have == 0 || fabs(step) < 1e-3 * fabs(dla)) {
                snprintf(warning, wlen, "the backbone stopped at amplitude %.6g: no convergence%s%.400s", have ? exp(lprev) : a,
                         *err ? ": " : "", err);
                rc = have ? -3 : -1;
                break;
            }
            /* a stop Newton misses twice in a row (a stick-slip corner right there: Newton's convergence is linear)
             * is given up: the ring-downs and snapshots start from the point nearest it */
            if (atstop >= 0 && fabs(step) < 0.3 * fabs(dla)) st[atstop] = st[--nst];
            step *= 0.5, la = lprev + step, *err = 0;
            memcpy(z, z1, (size_t)nz * sizeof(double));
            if (have > 1) secant(nz, z1, z2, step / (lprev - lprev2), z); /* at the shorter step */
            continue;
        }
        if (bb->n == cap) {
            snprintf(warning, wlen, "the backbone stopped at amplitude %.6g: more than %ld points", a, cap);
            rc = -3;
            break;
        }
        const double w = z[nu], xi = z[nu + 1];
        double *row = bb->rows + bb->n * width;
        row[0] = a, row[1] = xi / (2 * w), row[2] = xi;
        br_hb_point_row(h, w, its, row + BR_HBM_MODE_LEAD);
        memcpy(bb->sol + bb->n * nz, z, (size_t)nz * sizeof(double));
        bb->n++;
        if (progress) fprintf(stderr, "\rhbm: mode %d, amplitude %.4g, %.6g Hz, damping %.4g, %d Newton iterations   ", mode, a,
                              w / (2 * M_PI), xi / (2 * w), its);
        memcpy(z2, z1, (size_t)nz * sizeof(double));
        memcpy(z1, z, (size_t)nz * sizeof(double));
        lprev2 = lprev, lprev = la, have++;
        if ((la - la1) * dir >= -1e-12 || points < 2) break;
        step = fmin(fabs(dla), 2 * fabs(step)) * dir;
        la = next_stop(st, nst, lprev, dir, (lprev + step - la1) * dir > 0 ? la1 : lprev + step);
        step = la - lprev;
        if (have == 1) { /* the oscillation scaled by the amplitude's ratio */
            const double r = exp(step);
            for (int i = nl; i < nu; i++) z[i] *= r;
            for (int i = nu + 2; i < nz; i++) z[i] *= r;
        } else secant(nz, z1, z2, step / (lprev - lprev2), z);
    }
    if (progress) fprintf(stderr, "\n");
done:
    h->lev = lev, h->lin.xi = 0.0;
    br_hbm_lin_split(&h->s, &h->lin, 0, NULL);
    free(h->Jq), free(h->ell), h->Jq = NULL, h->ell = NULL, h->nell = 0;
    free(ws.A), free(ws.b), free(ws.Bc), free(ws.Br), free(ws.Bx), free(ws.piv), free(ws.G1), free(z);
    if (bb->n == 0) free(bb->rows), free(bb->sol), bb->rows = bb->sol = NULL; /* (f_lin, ns, split kept for the summary) */
    return rc;
}

int br_hbm_bb_restore(br_hbm *h, const br_hbm_bb *bb, long p, char *err, size_t errlen)
{
    const int nu = h->nu;
    const double *z = bb->sol + p * bb->nz;
    const int src = br_hbm_lin_split(&h->s, &h->lin, bb->ns, bb->split);
    if (src) {
        snprintf(err, errlen, "hbm: %s", src == -2 ? "the mass matrix's Cholesky factorization failed" : "out of memory for the split modes");
        return -1;
    }
    h->lev = 0.0, h->lin.xi = z[nu + 1];
    h->lin.eta[0] = z[nu + 2];
    for (int j = 1; j < bb->ns; j++) h->lin.eta[j] = z[nu + 1 + 2 * j] + I * z[nu + 2 + 2 * j];
    memcpy(h->y, z, (size_t)nu * sizeof(double));
    h->w = z[nu];
    return br_hb_set_param(h, h->w, err, errlen) || br_hb_residual(h, h->y, h->w, h->R, err, errlen) ? -1 : 0;
}

void br_hbm_bb_release(br_hbm *h)
{
    h->lev = 1.0, h->lin.xi = 0.0;
    br_hbm_lin_split(&h->s, &h->lin, 0, NULL);
}
