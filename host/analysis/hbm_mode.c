/* hbm_mode.c: nonlinear modes by the extended periodic motion concept (in: the harmonic balance solver of a
 * model, a mode number, a range of amplitudes; out: the backbone, per amplitude the frequency, the damping ratio,
 * the columns' harmonics and the contact sets' energy per cycle). docs/nonlinear-modes-plan.md.
 *
 * The autonomous system M q'' + (C - xi M) q' + K q + f_c = F_0 (no harmonic load) has a periodic solution for
 * the (w, xi) at which the negative damping xi M makes up for what the damping and the contacts dissipate: its
 * damping ratio is D = xi / (2 w) (Krack 2015). The unknowns are the harmonics y (as the forced response's),
 * w and xi; the two equations more fix the first column's first harmonic to the amplitude a, real (a cos w t).
 * The linear part takes xi in its damping (br_hbm_lin: C - xi M, c_m - xi per mode), so everything else is the
 * forced response's. Newton's matrix is the forced one bordered by dR/dw, dR/dxi and the two rows (dense). */
#include <complex.h>

#include "analysis/hbm_internal.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double complex br_hb_col1(const hb *h)
{
    const hb_col *c = &h->col[0];
    const int nl = h->s.nnl, no = h->lin.nout;
    double complex q = 0;
    for (int t = 0; t < c->n; t++) {
        const int o = c->idx[t];
        double complex v = h->lev * h->lin.Xout[(size_t)no + o];
        for (int j = 0; j < nl; j++) v += h->lin.Hout[(size_t)no * nl + (size_t)j * no + o] * br_hb_force(h, h->ysol, 1, j);
        q += c->coef[t] * v;
    }
    return q;
}

void br_hb_col1_blocks(hb *h)
{
    const hb_col *c = &h->col[0];
    const int nl = h->s.nnl, no = h->lin.nout, nb = 2 * h->H + 1;
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < nl; i++) {
            int j0, sz;
            const double *Db = hb_block(h, i, &j0, &sz) + (size_t)(b * sz + i - j0) * sz * nb;
            double complex q = 0;
            for (int t = 0; t < c->n; t++)
                for (int j = j0; j < j0 + sz; j++) /* harmonic 1's rows: block 1 (Re), block 2 (Im) */
                    q += c->coef[t] * h->lin.Hout[(size_t)no * nl + (size_t)j * no + c->idx[t]] * (Db[sz + j - j0] + I * Db[2 * sz + j - j0]);
            h->Jq[(size_t)b * nl + i] = q;
        }
}

/* z = (y, w, xi), amplitude a -> R (nu) and the constraints e (2): Re q1 - a, Im q1; 0, or -1 with err */
static int eval(hb *h, const double *y, double w, double xi, double a, double *R, double *e, char *err, size_t errlen)
{
    h->lin.xi = xi;
    if (br_hb_residual(h, y, w, R, err, errlen)) return -1;
    const double complex q = br_hb_col1(h);
    e[0] = creal(q) - a, e[1] = cimag(q);
    h->q0 = q;
    return 0;
}

/* z, a, the residual there in h->R (h->G, h->q0 at z) -> A ((nu + 2) square, column-major): [J dR/dw dR/dxi; the
 * constraints' rows], by forward differences; the evaluation at z restored; 0 or -1 */
static int aug_jacobian(hb *h, const double *y, double w, double xi, double a, double *A, char *err, size_t errlen)
{
    const int nu = h->nu, na = nu + 2;
    double e0[2] = {creal(h->q0) - a, cimag(h->q0)}, e[2];
    if (br_hb_jacobian(h, y, w, h->J, NULL, err, errlen)) return -1;
    for (int c = 0; c < nu; c++) {
        memcpy(A + (size_t)c * na, h->J + (size_t)c * nu, (size_t)nu * sizeof(double));
        A[(size_t)c * na + nu] = creal(h->Jq[c]), A[(size_t)c * na + nu + 1] = cimag(h->Jq[c]);
    }
    const double dp[2] = {1e-7 * w, 1e-7 * fmax(fabs(xi), 1e-3 * w)};
    for (int p = 0; p < 2; p++) { /* the columns of w and xi */
        if (eval(h, y, w + (p == 0 ? dp[0] : 0.0), xi + (p == 1 ? dp[1] : 0.0), a, h->Rt, e, err, errlen)) return -1;
        double *col = A + (size_t)(nu + p) * na;
        for (int r = 0; r < nu; r++) col[r] = (h->Rt[r] - h->R[r]) / dp[p];
        col[nu] = (e[0] - e0[0]) / dp[p], col[nu + 1] = (e[1] - e0[1]) / dp[p];
    }
    return eval(h, y, w, xi, a, h->R, e, err, errlen);
}

/* Newton on (y, w, xi) at amplitude a from the guess -> iterations, or -1 (no convergence within maxit), -2 (an
 * error in err) */
static int newton_mode(hb *h, double *y, double *w, double *xi, double a, int maxit, double *A, double *b, int *piv,
                       char *err, size_t errlen)
{
    const int nu = h->nu, na = nu + 2, nl = h->s.nnl;
    double e[2], et[2];
    br_hb_set_tolerances(h, y);
    if (eval(h, y, *w, *xi, a, h->R, e, err, errlen)) return -2;
    for (int it = 1; it <= maxit; it++) {
        if (aug_jacobian(h, y, *w, *xi, a, A, err, errlen)) return -2;
        for (int r = 0; r < nu; r++) b[r] = -h->R[r];
        b[nu] = -e[0], b[nu + 1] = -e[1];
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, na, 1, A, na, piv, b, na) != 0) {
            snprintf(err, errlen, "hbm: the backbone's Newton matrix is singular at %.9g Hz", *w / (2 * M_PI));
            return -1;
        }
        double f0 = e[0] * e[0] + e[1] * e[1], f1 = INFINITY, alpha = 1.0, wt = *w, xt = *xi;
        for (int r = 0; r < nu; r++) f0 += h->R[r] * h->R[r];
        int ok = 0;
        for (int ls = 0; ls <= 8; ls++, alpha *= 0.5) { /* backtracking on |R|^2 + |e|^2 (Armijo) */
            for (int i = 0; i < nu; i++) h->yt[i] = y[i] + alpha * b[i];
            wt = *w + alpha * b[nu], xt = *xi + alpha * b[nu + 1];
            *err = 0;
            ok = wt > 0.0 && eval(h, h->yt, wt, xt, a, h->Rt, et, err, errlen) == 0;
            if (!ok) continue;
            f1 = et[0] * et[0] + et[1] * et[1];
            for (int r = 0; r < nu; r++) f1 += h->Rt[r] * h->Rt[r];
            if (f1 <= (1.0 - 1e-4 * alpha) * f0) break;
        }
        if (!ok) {
            if (!*err) snprintf(err, errlen, "hbm: the backbone's Newton step left positive frequencies");
            return -1;
        }
        memcpy(y, h->yt, (size_t)nu * sizeof(double));
        memcpy(h->R, h->Rt, (size_t)nu * sizeof(double));
        *w = wt, *xi = xt, e[0] = et[0], e[1] = et[1];
        h->newton++;
        const double step = alpha * br_hb_norm_inf(b + nl, nu - nl);
        if (getenv("BRISTLE_HBM_DEBUG"))
            fprintf(stderr, "mode newton %d: a %.6e f %.12g xi %.6e |R| %.3e |e| %.3e step %.3e alpha %g\n", it, a,
                    *w / (2 * M_PI), *xi, br_hb_norm_inf(h->R, nu), fmax(fabs(e[0]), fabs(e[1])), step, alpha);
        if (br_hb_norm_inf(h->R, nl) <= h->ytol && br_hb_norm_inf(h->R + nl, nu - nl) <= h->ytol1 &&
            fmax(fabs(e[0]), fabs(e[1])) <= h->tol * a && step <= 1e3 * h->ytol1 && fabs(alpha * b[nu]) <= 1e-6 * *w)
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
        if (br_hb_residual(h, y, w, h->R, err, errlen) || br_hb_jacobian(h, y, w, h->J, NULL, err, errlen)) return -1;
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

/* solver, mode K, the smallest amplitude a -> the first guess: the static state (the preload solved, nothing
 * oscillating), the contacts linearized about it (stuck), the K-th mode of (K - T^T Re S T, M) above 0.01 Hz
 * scaled to the amplitude a on the first column: y, w = its frequency, xi = its modal damping (C and the contacts'
 * viscous part); 0, or -1 with err */
static int mode_guess(hb *h, int K, double a, double *y, double *w, double *xi, char *err, size_t errlen)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof, nl = s->nnl, nu = h->nu;
    double wn = 2 * M_PI; /* the static state's AFT frequency (nothing oscillates: any) */
    h->lin.xi = 0.0;
    if (br_hb_set_param(h, wn, err, errlen)) return -1;
    if (br_hb_bonded_guess(h, y)) memset(y, 0, (size_t)nu * sizeof(double));
    for (int i = nl; i < nu; i++) y[i] = 0.0;
    br_hb_set_tolerances(h, y);
    /* nothing oscillates: the harmonics need only be small against the first amplitude (1e-6 of it: the guess sets
     * them anew; a preload's AFT leaves them
     * at its period tolerance times the mean force's receptance, 1e-14 m at the lap joint's 2 kN) */
    h->ytol1 = fmax(h->ytol1, 1e-6 * a);
    double ws = wn;
    const int its = br_hb_newton(h, y, &ws, NULL, NULL, 0, fmax(br_hb_norm_inf(y, nu), 1e-300), wn, 40, err, errlen);
    if (its < 0) {
        if (!*err) snprintf(err, errlen, "hbm: no static state (the preload) for the mode");
        return -1;
    }
    const double ys = br_hb_norm_inf(y, nl);
    double complex *S = malloc((size_t)nl * nl * sizeof(double complex));
    double *TT = calloc((size_t)n * nl, sizeof(double)), *Ks = malloc((size_t)n * n * sizeof(double));
    double *Cs = malloc((size_t)n * n * sizeof(double)), *Ms = malloc((size_t)n * n * sizeof(double));
    double *lam = malloc((size_t)n * sizeof(double)), *U = malloc((size_t)n * nl * sizeof(double));
    double complex *col = malloc((size_t)n * sizeof(double complex));
    int rc = -1;
    if (!S || !TT || !Ks || !Cs || !Ms || !lam || !U || !col) {
        snprintf(err, errlen, "hbm: out of memory");
        goto out;
    }
    if (stuck_stiffness(h, y, wn, 1e-6 * (ys > 0 ? ys : a), S, err, errlen)) goto out;
    /* TT (n x nl): column i the DOF pattern of coordinate i; Ks = K - TT Re S TT^T, Cs = C - TT Im S TT^T / wn */
    for (int i = 0; i < nl; i++) {
        for (int e = 0; e < n; e++) col[e] = 0.0;
        br_hbm_coord_add(s, i, 1.0, col);
        for (int e = 0; e < n; e++) TT[(size_t)i * n + e] = creal(col[e]);
    }
    for (int part = 0; part < 2; part++) {
        double *Out = part ? Cs : Ks;
        for (int j = 0; j < nl; j++) /* U = TT (part of S) */
            for (int e = 0; e < n; e++) {
                double v = 0.0;
                for (int i = 0; i < nl; i++) {
                    const double sij = part ? cimag(S[(size_t)j * nl + i]) / wn : creal(S[(size_t)j * nl + i]);
                    if (sij != 0.0) v += TT[(size_t)i * n + e] * sij;
                }
                U[(size_t)j * n + e] = v;
            }
        memcpy(Out, part ? s->C : s->K, (size_t)n * n * sizeof(double));
        for (int c = 0; c < n; c++) /* Out -= U TT^T */
            for (int j = 0; j < nl; j++) {
                const double t = TT[(size_t)j * n + c];
                if (t == 0.0) continue;
                for (int e = 0; e < n; e++) Out[(size_t)c * n + e] -= U[(size_t)j * n + e] * t;
            }
        for (int c = 0; c < n; c++) /* the symmetric part */
            for (int e = 0; e < c; e++) {
                const double v = 0.5 * (Out[(size_t)c * n + e] + Out[(size_t)e * n + c]);
                Out[(size_t)c * n + e] = Out[(size_t)e * n + c] = v;
            }
    }
    memcpy(Ms, s->M, (size_t)n * n * sizeof(double));
    br_hbm_blas_threads(n);
    const lapack_int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', n, Ks, n, Ms, n, lam);
    br_hbm_blas_threads(0);
    if (info != 0) {
        snprintf(err, errlen, "hbm: the stuck system's eigenproblem failed (dsygvd info %d)", (int)info);
        goto out;
    }
    if (getenv("BRISTLE_HBM_DEBUG"))
        for (int j = 0; j < n && j < 8; j++) fprintf(stderr, "stuck linearization: mode %d at %.6g Hz\n", j + 1, sqrt(fabs(lam[j])) / (2 * M_PI));
    int m = -1;
    for (int j = 0, cnt = 0; j < n && m < 0; j++)
        if (lam[j] > (2 * M_PI * 0.01) * (2 * M_PI * 0.01) && ++cnt == K) m = j;
    if (m < 0) {
        snprintf(err, errlen, "hbm: --mode %d: the stuck system has fewer modes above 0.01 Hz", K);
        goto out;
    }
    const double *phi = Ks + (size_t)m * n;
    /* the first column's value in the mode, its modal damping */
    const hb_col *c = &h->col[0];
    double q = 0.0, cm = 0.0;
    for (int t = 0; t < c->n; t++) q += c->coef[t] * phi[h->lin.out[c->idx[t]]];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) cm += phi[i] * Cs[(size_t)j * n + i] * phi[j];
    if (!(fabs(q) > 0.0)) {
        snprintf(err, errlen, "hbm: --mode %d: %s does not move in it (pick a column that does)", K, c->name);
        goto out;
    }
    for (int e = 0; e < n; e++) col[e] = phi[e] * (a / q);
    for (int i = 0; i < nl; i++) y[nl + i] = creal(br_hbm_coord(s, i, col)), y[2 * nl + i] = 0.0;
    *w = sqrt(lam[m]), *xi = cm;
    if (getenv("BRISTLE_HBM_DEBUG")) {
        double e[2];
        if (eval(h, y, *w, *xi, a, h->R, e, err, errlen) == 0)
            fprintf(stderr, "mode guess: %.6g Hz, xi %.4g, column %.4g (+%.4g i) for %.4g, |R| %.3e of |y| %.3e\n", *w / (2 * M_PI),
                    *xi, creal(h->q0), cimag(h->q0), a, br_hb_norm_inf(h->R, nu), br_hb_norm_inf(y, nu));
    }
    rc = 0;
out:
    free(S), free(TT), free(Ks), free(Cs), free(Ms), free(lam), free(U), free(col);
    return rc;
}

/* the last two solutions z1, z2 ((y, w, xi), nu + 2), the step over the last one's t -> the predictor z1 + t (z1 - z2) */
static void secant(int nu, const double *z1, const double *z2, double t, double *y, double *w, double *xi)
{
    for (int i = 0; i < nu; i++) y[i] = z1[i] + t * (z1[i] - z2[i]);
    *w = z1[nu] + t * (z1[nu] - z2[nu]), *xi = z1[nu + 1] + t * (z1[nu + 1] - z2[nu + 1]);
}

int br_hbm_backbone(br_hbm *h, int mode, double a0, double a1, int points, int progress, double **rows, long *nrows,
                    double *f_lin, char *warning, size_t wlen, char *err, size_t errlen)
{
    const int nu = h->nu, na = nu + 2, width = BR_HBM_MODE_LEAD + br_hbm_row_width(h);
    *rows = NULL, *nrows = 0, *warning = 0;
    if (br_hbm_set_linear_solver(h, BR_HBM_SOLVER_DENSE)) {
        snprintf(err, errlen, "hbm: out of memory for the Newton matrix (%d unknowns)", nu);
        return -2;
    }
    double *A = malloc((size_t)na * na * sizeof(double)), *b = malloc((size_t)na * sizeof(double));
    int *piv = malloc((size_t)na * sizeof(int));
    double *z1 = malloc((size_t)(nu + 2) * sizeof(double)), *z2 = malloc((size_t)(nu + 2) * sizeof(double));
    double *out = malloc((size_t)points * 4 * width * sizeof(double));
    h->Jq = malloc((size_t)nu * sizeof(double complex));
    const double lev = h->lev;
    h->lev = 0.0; /* autonomous: the harmonic loads off, the static ones on */
    int rc = 0;
    long np = 0, cap = (long)points * 4;
    if (!A || !b || !piv || !z1 || !z2 || !out || !h->Jq) {
        snprintf(err, errlen, "hbm: out of memory");
        rc = -2;
        goto done;
    }
    double *y = h->y, w = 0.0, xi = 0.0;
    if (mode_guess(h, mode, a0, y, &w, &xi, err, errlen)) {
        rc = -2;
        goto done;
    }
    *f_lin = w / (2 * M_PI);
    /* natural continuation in log a: the predictor the secant through the last two solutions (the first step scales
     * the oscillation by the amplitudes' ratio), a step halved on a failed Newton */
    const double la0 = log(a0), dla = points > 1 ? (log(a1) - la0) / (points - 1) : 0.0;
    double la = la0, lprev = la0, lprev2 = la0, step = dla;
    int have = 0;
    while (rc == 0) {
        const double a = exp(la);
        int its = newton_mode(h, y, &w, &xi, a, 30, A, b, piv, err, errlen);
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
            step *= 0.5, la = lprev + step, *err = 0;
            memcpy(y, z1, (size_t)nu * sizeof(double)), w = z1[nu], xi = z1[nu + 1];
            if (have > 1) secant(nu, z1, z2, step / (lprev - lprev2), y, &w, &xi); /* at the shorter step */
            continue;
        }
        if (np == cap) {
            snprintf(warning, wlen, "the backbone stopped at amplitude %.6g: more than %ld points", a, cap);
            rc = -3;
            break;
        }
        double *row = out + np * width;
        row[0] = a, row[1] = xi / (2 * w), row[2] = xi;
        br_hb_point_row(h, w, its, row + BR_HBM_MODE_LEAD);
        np++;
        if (progress) fprintf(stderr, "\rhbm: mode %d, amplitude %.4g, %.6g Hz, damping %.4g, %d Newton iterations   ", mode, a,
                              w / (2 * M_PI), xi / (2 * w), its);
        memcpy(z2, z1, (size_t)(nu + 2) * sizeof(double));
        memcpy(z1, y, (size_t)nu * sizeof(double)), z1[nu] = w, z1[nu + 1] = xi;
        lprev2 = lprev, lprev = la, have++;
        if ((dla >= 0 ? la >= log(a1) - 1e-12 : la <= log(a1) + 1e-12) || points < 2) break;
        step = fmin(fabs(dla), 2 * fabs(step)) * (dla >= 0 ? 1 : -1);
        la = lprev + step;
        if (dla >= 0 ? la > log(a1) : la < log(a1)) la = log(a1), step = la - lprev;
        if (have == 1) { /* the oscillation scaled by the amplitude's ratio */
            const double r = exp(step);
            for (int i = h->s.nnl; i < nu; i++) y[i] *= r;
        } else secant(nu, z1, z2, step / (lprev - lprev2), y, &w, &xi);
    }
    if (progress) fprintf(stderr, "\n");
done:
    h->lev = lev, h->lin.xi = 0.0;
    free(h->Jq), h->Jq = NULL;
    free(A), free(b), free(piv), free(z1), free(z2);
    if (np > 0) *rows = out, *nrows = np;
    else free(out);
    return rc;
}
