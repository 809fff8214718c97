/* hbm.c: `bristle hbm SCENARIO`: the forced response by harmonic balance (docs/hbm.md). Newton on the
 * harmonics of the nonlinear DOFs, R(y, w) = y - X(w) - H(w) G(y, w) = 0 (receptance form, hbm.h),
 * with a finite-difference Jacobian and a backtracking line search; pseudo-arclength continuation in
 * the base frequency, through turning points; frf.csv, one PNG per column, summary.json. */
#include <complex.h>

#include "analysis/hbm.h"

#include <cblas.h>
#include <cjson/cJSON.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "step/checkpoint.h"
#include "model/laws.h"
#include "base/outdir.h"
#include "io/output.h"
#include "base/parse.h"
#include "io/plot.h"
#include "io/scenario.h"
#include "base/textfile.h"

#define HB_MAXCOL 64
#define HB_MAXLEV 32

/* an output column: a body's displacement along x, y or z, as a sum over DOFs */
typedef struct hb_col {
    char name[BR_NAME_MAX + 4];
    int n;
    int idx[6];     /* into the output DOF list */
    double coef[6];
} hb_col;

struct br_hbm {
    br_hbm_sys s;
    br_hbm_lin lin;
    br_hbm_aft aft;
    int H, N, nu, ncol;
    hb_col col[HB_MAXCOL];
    double *G, *R, *Rt, *J, *Jw, *A, *b, *yt, *yp; /* yp: the predictor */
    double *dR;     /* Broyden's residual of the secant condition */
    int *piv;
    long newton, jacobians, broyden, turned_back;
    double ytol;    /* convergence: the mean's residual |R_0| <= ytol (a displacement) ... */
    double ytol1;   /* ... and the oscillating harmonics' |R_k>=1| <= ytol1 */
    double tol;     /* ytol = tol times the mean's largest harmonic, ytol1 tol times the oscillation's (neither
                     * below 1e-10 of the other block's size); the AFT's period tolerance tol / 10 */
    double *y, w;   /* the present solution */
    int jvalid;     /* 1: J (and Jw) were taken near the present iterate and may be reused (chord steps) */
    int have;       /* 1 once a point has converged */
    double lev;     /* the excitation level: every harmonic load times lev (1 as the scenario has it) */
    int plevel;     /* the continuation's parameter p: 0 the base frequency w [rad/s], 1 the level at w = wfix */
    double wfix;
    double *ypk, wpk, pk; /* the solution where the first column's first harmonic peaked on the last curve */
};
typedef struct br_hbm hb;

/* the continuation's parameter p (a frequency [rad/s], or the level at h->wfix) -> the linear part at its
 * frequency, h->lev at its level; 0 or -1 */
static int set_param(hb *h, double p, char *err, size_t errlen)
{
    if (h->plevel) h->lev = p;
    const double w = h->plevel ? h->wfix : p;
    return h->lin.w != w && br_hbm_lin_eval(&h->s, w, &h->lin, err, errlen) ? -1 : 0;
}

/* y, parameter p -> R (nu), the contact force harmonics in h->G */
static int residual(hb *h, const double *y, double p, double *R, char *err, size_t errlen)
{
    if (set_param(h, p, err, errlen)) return -1;
    const double w = h->lin.w;
    if (br_hbm_aft_eval(&h->aft, y, w, h->G, err, errlen)) return -1;
    const int nl = h->s.nnl;
    for (int k = 0; k <= h->H; k++) {
        const double complex *Hk = h->lin.Hnl + (size_t)k * nl * nl, *Xk = h->lin.Xnl + (size_t)k * nl;
        const double lk = k == 0 ? 1.0 : h->lev; /* the loads' harmonics scale with the level, their mean not */
        for (int i = 0; i < nl; i++) {
            double complex r = -lk * Xk[i];
            for (int j = 0; j < nl; j++) {
                const double complex Gj = k == 0 ? h->G[j] : h->G[(2 * k - 1) * nl + j] + I * h->G[2 * k * nl + j];
                r -= Hk[(size_t)j * nl + i] * Gj;
            }
            if (k == 0) R[i] = y[i] + creal(r);
            else {
                R[(2 * k - 1) * nl + i] = y[(2 * k - 1) * nl + i] + creal(r);
                R[2 * k * nl + i] = y[2 * k * nl + i] + cimag(r);
            }
        }
    }
    return 0;
}

static double norm_inf(const double *x, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* the solution's scale y -> h->ytol, h->ytol1: tol times the mean's largest harmonic, and tol times the
 * oscillation's, so that a small oscillation about a large static deflection (a preload) is resolved to
 * tol of itself, not of the deflection; neither below 1e-10 of the other block's size, the rounding floor
 * (S2: positions of 0.02 m rounded to 3e-18 m move a normal force as stiff as Hunt-Crossley's at 6 N by
 * 1e-9 N, and the harmonics of a 2.3e-5 m static deflection by 1e-16 m) */
static void set_tolerances(hb *h, const double *y)
{
    const int nl = h->s.nnl;
    const double y0 = norm_inf(y, nl), y1 = norm_inf(y + nl, h->nu - nl);
    h->ytol = fmax(h->tol * y0, 1e-10 * y1), h->ytol1 = fmax(h->tol * y1, 1e-10 * y0);
    if (!(h->ytol > 0.0)) h->ytol = 1e-300;
    if (!(h->ytol1 > 0.0)) h->ytol1 = 1e-300;
}

/* R, step b (scaled by alpha) -> 1 when both the mean's and the oscillation's residual and step are within
 * their tolerances */
static int converged(const hb *h, const double *R, const double *b, double alpha)
{
    const int nl = h->s.nnl, no = h->nu - nl;
    return norm_inf(R, nl) <= h->ytol && norm_inf(R + nl, no) <= h->ytol1 && alpha * norm_inf(b, nl) <= 1e3 * h->ytol &&
           alpha * norm_inf(b + nl, no) <= 1e3 * h->ytol1;
}

/* y, parameter p (R at them in h->R) -> Jw = dR/dp by a forward difference; 0 or -1 */
static int jacobian_w(hb *h, const double *y, double p, char *err, size_t errlen)
{
    const double dp = 1e-7 * p;
    if (residual(h, y, p + dp, h->Rt, err, errlen)) return -1;
    for (int r = 0; r < h->nu; r++) h->Jw[r] = (h->Rt[r] - h->R[r]) / dp;
    return set_param(h, p, err, errlen);
}

/* y, w (R at them in h->R) -> J = dR/dy (and Jw = dR/dw if Jw) by forward differences */
static int jacobian(hb *h, const double *y, double w, double *J, double *Jw, char *err, size_t errlen)
{
    const int nu = h->nu;
    const double scale = fmax(norm_inf(y, nu), h->ytol * 1e6);
    memcpy(h->yt, y, (size_t)nu * sizeof(double));
    for (int i = 0; i < nu; i++) {
        const double d = 1e-7 * scale;
        h->yt[i] = y[i] + d;
        if (residual(h, h->yt, w, h->Rt, err, errlen)) return -1;
        for (int r = 0; r < nu; r++) J[(size_t)i * nu + r] = (h->Rt[r] - h->R[r]) / d;
        h->yt[i] = y[i];
    }
    if (Jw && jacobian_w(h, y, w, err, errlen)) return -1;
    h->jacobians++;
    return 0;
}

/* Newton from y (and w), at fixed w (tau NULL) or on the arclength constraint
 * tau_y . (y - yp) / ys + tau_w (w - wp) / ws = 0 -> converged y, w (h->R the residual there);
 * iterations, or -1 (not converged within maxit), -2 (an error, in err) */
static int newton(hb *h, double *y, double *w, const double *tau, const double *yp, double wp, double ys, double ws,
                  int maxit, char *err, size_t errlen)
{
    const int nu = h->nu, na = tau ? nu + 1 : nu;
    if (residual(h, y, *w, h->R, err, errlen)) return -2;
    for (int it = 1; it <= maxit; it++) {
        /* a fresh Jacobian unless the last one (from the tangent at the previous point, or the last
         * iteration) still halved the residual (with Broyden's updates; a fifth was faster on S5c, 13 s against
         * 20 s at 1 N, but let the continuation wander at a stuck Jenkins contact's slip near its resonance) */
        if (!h->jvalid && jacobian(h, y, *w, h->J, tau ? h->Jw : NULL, err, errlen)) return -2;
        h->jvalid = 1;
        const double r0 = norm_inf(h->R, nu);
        for (int c = 0; c < nu; c++) memcpy(h->A + (size_t)c * na, h->J + (size_t)c * nu, (size_t)nu * sizeof(double));
        for (int r = 0; r < nu; r++) h->b[r] = -h->R[r];
        double cres = 0;
        if (tau) {
            for (int r = 0; r < nu; r++) h->A[(size_t)nu * na + r] = h->Jw[r];
            for (int c = 0; c < nu; c++) h->A[(size_t)c * na + nu] = tau[c] / ys, cres += tau[c] * (y[c] - yp[c]) / ys;
            h->A[(size_t)nu * na + nu] = tau[nu] / ws;
            cres += tau[nu] * (*w - wp) / ws;
            h->b[nu] = -cres;
        }
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, na, 1, h->A, na, h->piv, h->b, na) != 0) {
            snprintf(err, errlen, "hbm: the Newton matrix is singular at %.9g Hz", *w / (2 * M_PI));
            return -1;
        }
        /* backtracking on |R|^2 + c^2 (Armijo, halving at most 8 times); a trial whose parameter is not positive
         * or whose contact field does not stay finite (a step far off the curve: a frequency of 1e70 Hz was seen)
         * is halved as one that does not descend, and Newton fails if the last one is such */
        double f0 = 0;
        for (int r = 0; r < nu; r++) f0 += h->R[r] * h->R[r];
        f0 += cres * cres * ys * ys;
        double alpha = 1.0, f1 = INFINITY, wt = *w;
        int ok = 0;
        for (int ls = 0; ls <= 8; ls++, alpha *= 0.5) {
            for (int i = 0; i < nu; i++) h->yt[i] = y[i] + alpha * h->b[i];
            wt = tau ? *w + alpha * h->b[nu] : *w;
            ok = wt > 0.0 && residual(h, h->yt, wt, h->Rt, err, errlen) == 0;
            if (!ok) continue;
            double c1 = 0;
            if (tau) {
                for (int c = 0; c < nu; c++) c1 += tau[c] * (h->yt[c] - yp[c]) / ys;
                c1 += tau[nu] * (wt - wp) / ws;
            }
            f1 = c1 * c1 * ys * ys;
            for (int r = 0; r < nu; r++) f1 += h->Rt[r] * h->Rt[r];
            if (f1 <= (1.0 - 1e-4 * alpha) * f0) break;
        }
        if (!ok) {
            if (!*err) snprintf(err, errlen, "hbm: Newton's step left positive parameters");
            h->jvalid = 0;
            return -1;
        }
        /* the step taken (the last tried) and its residual; J (and Jw on the arclength) take Broyden's rank-one
         * update, in the scaled variables (y / ys, w / ws), so that they map the step onto the residual's change
         * and stay good for the next iterations and points */
        {
            double den = 0;
            const double dw = tau ? alpha * h->b[nu] : 0.0;
            for (int i = 0; i < nu; i++) den += (alpha * h->b[i] / ys) * (alpha * h->b[i] / ys);
            den += (dw / ws) * (dw / ws);
            for (int r = 0; r < nu; r++) h->dR[r] = h->Rt[r] - h->R[r] - (tau ? h->Jw[r] * dw : 0.0);
            for (int c = 0; c < nu; c++) {
                const double dc = alpha * h->b[c];
                for (int r = 0; r < nu; r++) h->dR[r] -= h->J[(size_t)c * nu + r] * dc;
            }
            if (den > 0.0) {
                for (int c = 0; c < nu; c++) {
                    const double q = alpha * h->b[c] / (ys * ys * den);
                    for (int r = 0; r < nu; r++) h->J[(size_t)c * nu + r] += h->dR[r] * q;
                }
                if (tau)
                    for (int r = 0; r < nu; r++) h->Jw[r] += h->dR[r] * dw / (ws * ws * den);
                h->broyden++;
            }
        }
        memcpy(h->R, h->Rt, (size_t)nu * sizeof(double));
        const double step = alpha * norm_inf(h->b, nu);
        memcpy(y, h->yt, (size_t)nu * sizeof(double));
        *w = wt;
        h->newton++;
        if (norm_inf(h->R, nu) > 0.5 * r0) h->jvalid = 0;
        if (getenv("BRISTLE_HBM_DEBUG"))
            fprintf(stderr, "newton %d: w %.12g |R_0| %.3e (tol %.3e) |R_k| %.3e (tol %.3e) step %.3e alpha %g\n", it, *w,
                    norm_inf(h->R, h->s.nnl), h->ytol, norm_inf(h->R + h->s.nnl, nu - h->s.nnl), h->ytol1, step, alpha);
        if (converged(h, h->R, h->b, alpha)) return it;
    }
    return -1;
}

/* J (at the solution), Jw, prev (a direction in scaled variables: the last step) -> the unit tangent of the
 * branch in scaled variables (y / ys, w / ws), oriented along prev (or toward increasing w times dir when prev
 * is NULL); 0 or -1 */
static int tangent(hb *h, const double *prev, double dir, double ys, double ws, double *tau)
{
    const int nu = h->nu, na = nu + 1;
    for (int c = 0; c < nu; c++) memcpy(h->A + (size_t)c * na, h->J + (size_t)c * nu, (size_t)nu * sizeof(double));
    for (int r = 0; r < nu; r++) h->A[(size_t)nu * na + r] = h->Jw[r], h->b[r] = 0.0;
    for (int c = 0; c <= nu; c++) /* the last row: along prev (scaled), or dw = 1 */
        h->A[(size_t)c * na + nu] = prev ? prev[c] / (c < nu ? ys : ws) : (c == nu ? 1.0 : 0.0);
    h->b[nu] = 1.0;
    if (LAPACKE_dgesv(LAPACK_COL_MAJOR, na, 1, h->A, na, h->piv, h->b, na) != 0) return -1;
    /* b = (dy, dw) in raw units; scaled: dy / ys, dw / ws */
    double nrm = 0;
    for (int i = 0; i < nu; i++) tau[i] = h->b[i] / ys, nrm += tau[i] * tau[i];
    tau[nu] = h->b[nu] / ws, nrm += tau[nu] * tau[nu];
    nrm = sqrt(nrm);
    double sgn = 1.0;
    if (prev) {
        double d = 0;
        for (int i = 0; i <= nu; i++) d += prev[i] * tau[i];
        sgn = d < 0 ? -1.0 : 1.0;
    } else sgn = tau[nu] * dir < 0 ? -1.0 : 1.0;
    for (int i = 0; i <= nu; i++) tau[i] *= sgn / nrm;
    return 0;
}

/* ---- output columns ---- */

/* "body.x" -> column c (its DOF combination); 0, or -1 with err */
static int column(hb *h, const char *name, int *outdof, int *nout, int maxout, char *err, size_t errlen)
{
    const br_model *m = h->s.m;
    const char *dot = strrchr(name, '.');
    int axis = dot && dot[1] && !dot[2] ? (dot[1] == 'x' ? 0 : dot[1] == 'y' ? 1 : dot[1] == 'z' ? 2 : -1) : -1;
    int b = -1;
    for (int k = 0; dot && k < m->nbody; k++)
        if ((size_t)(dot - name) == strlen(m->body[k].name) && !strncmp(m->body[k].name, name, (size_t)(dot - name))) b = k;
    if (axis < 0 || b < 0 || h->ncol >= HB_MAXCOL) {
        snprintf(err, errlen, "bristle hbm: --column %s: %s", name,
                 h->ncol >= HB_MAXCOL ? "too many columns" : "not a body's x, y or z (BODY.x)");
        return -1;
    }
    hb_col *c = &h->col[h->ncol++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->n = 0;
    const br_body *B = &m->body[b];
    double coef[6] = {0};
    int dofs[6], nd = 0;
    if (B->beam < 0) {
        if (h->s.bdof[3 * b + axis] >= 0) dofs[nd] = h->s.bdof[3 * b + axis], coef[nd++] = 1.0;
    } else { /* u + theta x offset of the node carrying it */
        const int node = h->s.st->node0[B->beam] + B->node;
        const double *o = B->offset;
        double rot[3] = {0, 0, 0}; /* d(theta x o)_axis / d theta_j */
        if (axis == 0) rot[1] = o[2], rot[2] = -o[1];
        if (axis == 1) rot[0] = -o[2], rot[2] = o[0];
        if (axis == 2) rot[0] = o[1], rot[1] = -o[0];
        if (h->s.st->dof[6 * node + axis] >= 0) dofs[nd] = h->s.st->dof[6 * node + axis], coef[nd++] = 1.0;
        for (int j = 0; j < 3; j++)
            if (rot[j] != 0 && h->s.st->dof[6 * node + 3 + j] >= 0) dofs[nd] = h->s.st->dof[6 * node + 3 + j], coef[nd++] = rot[j];
    }
    for (int k = 0; k < nd; k++) {
        int at = -1;
        for (int q = 0; q < *nout; q++)
            if (outdof[q] == dofs[k]) at = q;
        if (at < 0 && *nout < maxout) outdof[at = (*nout)++] = dofs[k];
        c->idx[c->n] = at, c->coef[c->n++] = coef[k];
    }
    return 0;
}

/* the solution at w (h->G its contact forces) -> per column the harmonics' amplitudes (row[0..H]: h0
 * signed, then |Q_k|) and the peak-to-peak (row[H + 1]) */
static void column_values(hb *h, const hb_col *c, double *row, double *arg1)
{
    const int nl = h->s.nnl, no = h->lin.nout, H = h->H;
    double complex Q[64 + 1];
    for (int k = 0; k <= H; k++) {
        double complex q = 0;
        for (int t = 0; t < c->n; t++) {
            const int o = c->idx[t];
            double complex v = (k == 0 ? 1.0 : h->lev) * h->lin.Xout[(size_t)k * no + o];
            for (int j = 0; j < nl; j++) {
                const double complex Gj = k == 0 ? h->G[j] : h->G[(2 * k - 1) * nl + j] + I * h->G[2 * k * nl + j];
                v += h->lin.Hout[(size_t)k * no * nl + (size_t)j * no + o] * Gj;
            }
            q += c->coef[t] * v;
        }
        Q[k] = q;
        row[k] = k == 0 ? creal(q) : cabs(q);
    }
    const int ns = 1024;
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < ns; j++) {
        double x = creal(Q[0]);
        for (int k = 1; k <= H; k++) x += creal(Q[k] * cexp(I * 2.0 * M_PI * (double)((long)k * j % ns) / ns));
        lo = fmin(lo, x), hi = fmax(hi, x);
    }
    row[H + 1] = hi - lo;
    if (arg1) *arg1 = carg(Q[1]);
}

/* ---- a point of the curve checked by time integration ---- */

/* fn -> the time after which it no longer changes but periodically (the end of its ramps) */
static double tf_settled(const br_timefn *fn)
{
    double t = fn->kind == BR_TF_RAMP ? fn->t1 : 0.0;
    if (fn->amp) t = fmax(t, tf_settled(fn->amp));
    for (int k = 0; k < fn->nterm; k++) t = fmax(t, tf_settled(&fn->term[k]));
    return t;
}

/* fn, f [Hz] -> every harmonic in it driven at f (as harmonic balance drives it) */
static void tf_drive_at(br_timefn *fn, double f)
{
    if (fn->kind == BR_TF_HARMONIC) fn->f = f;
    for (int k = 0; k < fn->nterm; k++) tf_drive_at(&fn->term[k], f);
}

/* run data d, its bodies' positions at creation x0 -> the DOF vector u of the harmonic-balance system */
static void run_dofs(const hb *h, const br_data *d, const double *x0, double *u)
{
    const br_hbm_sys *s = &h->s;
    for (int i = 0; i < s->nst; i++) u[i] = d->ga->u[i];
    for (int b = 0; b < s->m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) u[s->bdof[3 * b + j]] = d->x[3 * b + j] - x0[3 * b + j];
}

/* column c of the run's state (as column_values' first harmonic reads the solution) */
static double run_column(const hb *h, int c, const double *u)
{
    double x = 0.0;
    for (int t = 0; t < h->col[c].n; t++) x += h->col[c].coef[t] * u[h->lin.out[h->col[c].idx[t]]];
    return x;
}

/* period T, the model's step dt -> the step no longer than dt that makes T a whole number of steps (their count in
 * *K): a run from a periodic state then lands on the phase it started from */
static double whole_period_step(double T, double dt, long *K)
{
    *K = (long)ceil(T / dt - 1e-9);
    if (*K < 1) *K = 1;
    return T / (double)*K;
}

/* solver at a solution (h->y at h->w), the model -> *dout: the model's data (CPU) at the solution's periodic state
 * at t = 0 of a period: every DOF's displacement, velocity and acceleration from the harmonics
 * (Z_k Q_k = F_k + G_k), a free body's last acceleration too, the contact field's states those the AFT ends its
 * period with, the time a whole number of periods after the loads' and prescribed normal forces' ramps; *x0out the bodies' positions at creation (run_dofs' origin), amp (NULL, or n)
 * each DOF's sum over k >= 1 of |Q_k|; the model's loads are driven at h->w from here on; its step m->dt must
 * divide the period (whole_period_step); 0, or -1 with err */
static int periodic_data(hb *h, br_model *m, br_data **dout, double **x0out, double *amp, char *err, size_t errlen)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof, nl = s->nnl, H = h->H;
    const double w = h->w, T = 2 * M_PI / w;
    *dout = NULL, *x0out = NULL;
    if (set_param(h, w, err, errlen) || residual(h, h->y, w, h->R, err, errlen)) return -1; /* the AFT's states */
    double complex *Z = malloc((size_t)n * n * sizeof *Z), *q = malloc((size_t)n * sizeof *q);
    double *u = calloc((size_t)3 * n + 1, sizeof(double)), *v = u + n, *acc = u + 2 * n, *x0 = NULL, *st = NULL;
    int *piv = malloc((size_t)n * sizeof(int)), rc = -1;
    br_data *d = NULL;
    if (!Z || !q || !u || !piv) {
        snprintf(err, errlen, "hbm: out of memory for a run from the periodic state");
        goto out;
    }
    if (amp)
        for (int a = 0; a < n; a++) amp[a] = 0.0;
    for (int k = 0; k <= H; k++) {
        const double complex iw = I * k * w;
        for (size_t e = 0; e < (size_t)n * n; e++) Z[e] = s->K[e] + iw * s->C[e] + iw * iw * s->M[e];
        for (int a = 0; a < n; a++) q[a] = k == 0 ? s->f0[a] : k == 1 ? h->lev * (s->fc[a] - I * s->fs[a]) : 0.0;
        for (int i = 0; i < nl; i++)
            q[s->nl[i]] += k == 0 ? h->G[i] : h->G[(2 * k - 1) * nl + i] + I * h->G[2 * k * nl + i];
        if (LAPACKE_zgesv(LAPACK_COL_MAJOR, n, 1, (lapack_complex_double *)Z, n, piv, (lapack_complex_double *)q, n)) {
            snprintf(err, errlen, "hbm: the dynamic stiffness of harmonic %d is singular at %.9g Hz", k, w / (2 * M_PI));
            goto out;
        }
        for (int a = 0; a < n; a++) u[a] += creal(q[a]), v[a] += creal(iw * q[a]), acc[a] += creal(iw * iw * q[a]);
        if (amp && k > 0)
            for (int a = 0; a < n; a++) amp[a] += cabs(q[a]);
    }
    double t0 = 0.0; /* the end of the loads' ramps and the prescribed normal forces' */
    for (int l = 0; l < m->nload; l++) t0 = fmax(t0, tf_settled(&m->load[l].mag));
    for (int c = 0; c < m->nset; c++)
        if (m->cset[c].prescribed) t0 = fmax(t0, tf_settled(&m->cset[c].normal_force));
    for (int l = 0; l < m->nload; l++) tf_drive_at(&m->load[l].mag, w / (2 * M_PI));
    d = br_data_create(m, BR_BACKEND_CPU, err, errlen);
    x0 = malloc((size_t)3 * (m->nbody + 1) * sizeof(double));
    st = malloc((size_t)(h->aft.nstate + 1) * sizeof(double));
    if (!d || !x0 || !st) {
        if (d) snprintf(err, errlen, "hbm: out of memory for a run from the periodic state");
        goto out;
    }
    memcpy(x0, d->x, (size_t)3 * m->nbody * sizeof(double));
    /* the step count carries the time (br_step: t = step h), so the loads' ramps stay ended */
    d->step = (long)ceil(t0 / T + 1e-9) * lround(T / m->dt);
    d->t = (double)d->step * m->dt;
    for (int i = 0; i < s->nst; i++) d->ga->u[i] = u[i], d->ga->v[i] = v[i], d->ga->a[i] = acc[i];
    for (int b = 0; b < m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) {
                const int k = s->bdof[3 * b + j];
                d->x[3 * b + j] = x0[3 * b + j] + u[k], d->v[3 * b + j] = v[k], d->acc[6 * b + j] = acc[k];
            }
    for (int c = 0; c < m->nset; c++)
        if (br_field_get_state(h->aft.field, c, st) || br_field_set_state(d->field, c, st)) {
            snprintf(err, errlen, "hbm: the contact states of set %d could not be carried into the run", c);
            goto out;
        }
    rc = 0;
out:
    if (rc) br_data_free(d), free(x0);
    else *dout = d, *x0out = x0;
    free(Z), free(q), free(u), free(piv), free(st);
    return rc;
}

/* solver at a solution (y at frequency w), the model (its loads are driven at w from here on), periods P ->
 * the model integrated in time (`bristle run`'s step) for P periods from the solution's periodic state
 * (periodic_data); out[0] the first column's first harmonic by harmonic balance, out[1], out[2] fitted (least
 * squares, mean, cos, sin) over the run's first and last period; 0, or -1 with err */
static int check_by_run(hb *h, br_model *m, int periods, double *out, char *err, size_t errlen)
{
    const double w = h->w, T = 2 * M_PI / w, dt0 = m->dt;
    br_data *d = NULL;
    double *x0 = NULL, *u = malloc((size_t)(h->s.ndof + 1) * sizeof(double));
    int rc = -1;
    if (!u) {
        snprintf(err, errlen, "hbm: out of memory for the check by a run");
        goto out;
    }
    long K;
    m->dt = whole_period_step(T, dt0, &K);
    if (periodic_data(h, m, &d, &x0, NULL, err, errlen)) goto out;
    /* least squares of the first column over the first and the last period: x = c0 + a cos + b sin */
    double S[2][12] = {{0}};
    const double tstart = d->t;
    for (long k = 1; k <= periods * K; k++) {
        if (br_step(m, d, err, errlen)) goto out;
        const int which = k <= K ? 0 : k > (periods - 1) * K ? 1 : -1;
        if (which < 0) continue;
        run_dofs(h, d, x0, u);
        const double x = run_column(h, 0, u), r[3] = {1.0, cos(w * (d->t - tstart)), sin(w * (d->t - tstart))};
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) S[which][3 * a + b] += r[a] * r[b];
            S[which][9 + a] += r[a] * x;
        }
    }
    double row[66];
    column_values(h, &h->col[0], row, NULL);
    out[0] = row[1];
    for (int k = 0; k < 2; k++) {
        int p3[3];
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, 3, 1, S[k], 3, p3, S[k] + 9, 3)) {
            snprintf(err, errlen, "hbm: the check by a run has too few steps a period");
            goto out;
        }
        out[1 + k] = hypot(S[k][10], S[k][11]);
    }
    rc = 0;
out:
    m->dt = dt0;
    br_data_free(d);
    free(u), free(x0);
    return rc;
}

/* ---- stability: the monodromy matrix of one period by time integration ---- */

/* --stability: a point whose largest Floquet multiplier exceeds 1 + HB_FLOQ_TOL in modulus is unstable. The
 * forward differences are good to about 1e-6 of a multiplier; a friction contact's stuck states are close to
 * neutral (a Jenkins element's exactly: its multipliers are 1), so the margin is 1e-3 */
#define HB_FLOQ_TOL 1e-3
#define HB_FLOQ_EPS 1e-5 /* the perturbations' size, relative (S5c: the same multipliers to 1e-7 from 1e-6 to 1e-4; 1e-8
                          * is roundoff's: a false 1.6) */
#define HB_FLOQ_MAX 4000 /* states (2 per DOF, and the contact states) the monodromy matrix may have */

/* solver after a curve -> its present solution the one where the first column's first harmonic peaked */
static void at_peak(hb *h)
{
    memcpy(h->y, h->ypk, (size_t)h->nu * sizeof(double));
    h->w = h->wpk;
}

/* the run's state as the map over a period sees it: x = (u (n), v (n), z (the contact states, set by set)) */
static long floq_dim(const hb *h) { return 2L * h->s.ndof + h->aft.nstate; }

/* data d, origin x0 -> x (floq_dim); 0, or -1 (the field's states not readable) */
static int floq_gather(const hb *h, br_data *d, const double *x0, double *x)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof;
    run_dofs(h, d, x0, x);
    for (int i = 0; i < s->nst; i++) x[n + i] = d->ga->v[i];
    for (int b = 0; b < s->m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) x[n + s->bdof[3 * b + j]] = d->v[3 * b + j];
    double *z = x + 2 * n;
    for (int c = 0; c < s->m->nset; c++) {
        if (br_field_get_state(d->field, c, z)) return -1;
        z += (long)br_law_nstate(h->aft.desc[c].law, &h->aft.desc[c].fric) * h->aft.desc[c].npoints;
    }
    return 0;
}

/* x (floq_dim), origin x0 -> d's DOFs, velocities and contact states; 0 or -1 */
static int floq_scatter(const hb *h, br_data *d, const double *x0, const double *x)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof;
    for (int i = 0; i < s->nst; i++) d->ga->u[i] = x[i], d->ga->v[i] = x[n + i];
    for (int b = 0; b < s->m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0)
                d->x[3 * b + j] = x0[3 * b + j] + x[s->bdof[3 * b + j]], d->v[3 * b + j] = x[n + s->bdof[3 * b + j]];
    const double *z = x + 2 * n;
    for (int c = 0; c < s->m->nset; c++) {
        if (br_field_set_state(d->field, c, z)) return -1;
        z += (long)br_law_nstate(h->aft.desc[c].law, &h->aft.desc[c].fric) * h->aft.desc[c].npoints;
    }
    return 0;
}

/* the snapshot (buf, len) -> d as it was when the snapshot was taken; 0 or -1 */
static int floq_restore(const br_model *m, br_data *d, char *buf, size_t len)
{
    br_ckpt c = {.fp = fmemopen(buf, len, "r"), .writing = 0};
    if (!c.fp) return -1;
    const int rc = br_data_checkpoint(m, d, &c);
    fclose(c.fp);
    return rc;
}

/* d, K steps -> d integrated over them; 0, or -1 with err */
static int floq_steps(const br_model *m, br_data *d, long K, char *err, size_t errlen)
{
    for (long k = 0; k < K; k++)
        if (br_step(m, d, err, errlen)) return -1;
    return 0;
}

/* model, snapshot (buf, len) of its periodic data, origin x0, perturbations e, the unperturbed period's end xb,
 * K steps, columns j0 <= j < j1 -> those columns of the monodromy matrix M (dim rows each) by forward
 * differences, on data of their own; 0, or -1 with err */
static int floq_columns(const hb *h, const br_model *m, char *buf, size_t len, const double *x0, const double *e,
                        const double *xb, long K, long j0, long j1, double *M, char *err, size_t errlen)
{
    const long dim = floq_dim(h);
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, errlen);
    double *x = malloc((size_t)(dim + 1) * sizeof(double));
    int rc = d && x ? 0 : -1;
    if (d && !x) snprintf(err, errlen, "hbm: out of memory for the monodromy matrix");
    for (long j = j0; j < j1 && rc == 0; j++) {
        if (floq_restore(m, d, buf, len) || floq_gather(h, d, x0, x)) {
            snprintf(err, errlen, "hbm: the periodic state could not be restored for the monodromy matrix");
            rc = -1;
            break;
        }
        x[j] += e[j];
        if (floq_scatter(h, d, x0, x) || floq_steps(m, d, K, err, errlen) || floq_gather(h, d, x0, x)) {
            if (!*err) snprintf(err, errlen, "hbm: a perturbed period of the monodromy matrix failed");
            rc = -1;
            break;
        }
        for (long i = 0; i < dim; i++) M[(size_t)j * dim + i] = (x[i] - xb[i]) / e[j];
    }
    br_data_free(d);
    free(x);
    return rc;
}

/* solver at a solution (h->y at h->w), the model -> out[0] the largest modulus of the Floquet multipliers of the
 * periodic state: the eigenvalues of the monodromy matrix, the run's map over one period (`bristle run`'s step,
 * shortened so that a whole number K of them make the period) differentiated by forward differences in every
 * DOF's displacement and velocity and every contact state, on every thread; out[1] the periodicity defect (the
 * unperturbed period's largest change of a displacement, over that DOF's harmonic amplitude); the
 * model's loads are driven at h->w from here on; 0, or -1 with err */
static int floquet(hb *h, br_model *m, double *out, char *err, size_t errlen)
{
    const int n = h->s.ndof;
    const long dim = floq_dim(h);
    const double T = 2 * M_PI / h->w, dt0 = m->dt;
    long K;
    const double dtK = whole_period_step(T, dt0, &K);
    br_data *d = NULL;
    double *x0 = NULL, *amp = malloc((size_t)(n + 1) * sizeof(double));
    double *x = malloc((size_t)(3 * dim + 1) * sizeof(double)), *xb = x + dim, *e = x + 2 * dim;
    double *M = malloc((size_t)dim * dim * sizeof(double)), *wr = malloc((size_t)(2 * dim + 1) * sizeof(double)), *wi = wr + dim;
    char *buf = NULL;
    size_t len = 0;
    int rc = -1;
    if (!amp || !x || !M || !wr) {
        snprintf(err, errlen, "hbm: out of memory for the monodromy matrix (%ld states)", dim);
        goto out;
    }
    m->dt = dtK;
    if (periodic_data(h, m, &d, &x0, amp, err, errlen)) goto out;
    br_ckpt c = {.fp = open_memstream(&buf, &len), .writing = 1};
    const int kept = c.fp && br_data_checkpoint(m, d, &c) == 0;
    if (c.fp) fclose(c.fp);
    if (!kept || floq_gather(h, d, x0, x)) {
        snprintf(err, errlen, "hbm: the periodic state could not be kept for the monodromy matrix");
        goto out;
    }
    /* perturbations: HB_FLOQ_EPS of each DOF's harmonic amplitude (at least 1e-3 of the largest's), w times that
     * for its velocity, and of each contact state's largest value over its set's points (a state of a law may
     * be a displacement or a velocity; at least 1e-3 of the set's largest) */
    double umax = 0;
    for (int a = 0; a < n; a++) umax = fmax(umax, amp[a]);
    if (!(umax > 0)) umax = 1e-9;
    for (int a = 0; a < n; a++) e[a] = HB_FLOQ_EPS * fmax(amp[a], 1e-3 * umax), e[n + a] = h->w * e[a];
    for (long c = 0, j = 2 * n; c < m->nset; c++) {
        const int ns = br_law_nstate(h->aft.desc[c].law, &h->aft.desc[c].fric);
        const long np = h->aft.desc[c].npoints;
        double all = 0, *zs = x + j;
        for (long i = 0; i < ns * np; i++) all = fmax(all, fabs(zs[i]));
        for (int k = 0; k < ns; k++) {
            double big = 0;
            for (long i = 0; i < np; i++) big = fmax(big, fabs(zs[k * np + i]));
            big = fmax(big, 1e-3 * all);
            if (!(big > 0)) big = 1e-3 * umax;
            for (long i = 0; i < np; i++) e[j + k * np + i] = HB_FLOQ_EPS * big;
        }
        j += ns * np;
    }
    /* the unperturbed period and its defect */
    if (floq_steps(m, d, K, err, errlen) || floq_gather(h, d, x0, xb)) {
        if (!*err) snprintf(err, errlen, "hbm: the period of the monodromy matrix failed");
        goto out;
    }
    double defect = 0;
    for (int a = 0; a < n; a++) defect = fmax(defect, fabs(xb[a] - x[a]) / fmax(amp[a], 1e-3 * umax));
    int bad = 0;
#pragma omp parallel
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        char terr[512] = "";
        if (floq_columns(h, m, buf, len, x0, e, xb, K, dim * t / nt, dim * (t + 1) / nt, M, terr, sizeof terr))
#pragma omp critical(hbm_floquet)
        {
            if (!bad) snprintf(err, errlen, "%s", terr);
            bad = 1;
        }
    }
    if (bad) goto out;
    if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', (int)dim, M, (int)dim, wr, wi, NULL, 1, NULL, 1)) {
        snprintf(err, errlen, "hbm: the monodromy matrix's eigenvalues did not converge at %.9g Hz", h->w / (2 * M_PI));
        goto out;
    }
    double mu = 0;
    for (long j = 0; j < dim; j++) mu = fmax(mu, hypot(wr[j], wi[j]));
    out[0] = mu, out[1] = defect;
    rc = 0;
out:
    m->dt = dt0;
    br_data_free(d);
    free(x0), free(amp), free(x), free(M), free(wr), free(buf);
    return rc;
}

int br_hbm_peak_floquet(br_hbm *h, br_model *m, double *mu, char *err, size_t errlen)
{
    if (h->pk < 0) {
        snprintf(err, errlen, "hbm: no curve, so no peak");
        return -1;
    }
    if (floq_dim(h) > HB_FLOQ_MAX) {
        snprintf(err, errlen, "hbm: the monodromy matrix would have %ld states, more than %d", floq_dim(h), HB_FLOQ_MAX);
        return -1;
    }
    at_peak(h);
    double fq[2];
    if (floquet(h, m, fq, err, errlen)) return -1;
    *mu = fq[0];
    return 0;
}

/* ---- the command ---- */

static int usage(FILE *o)
{
    fprintf(o, "usage: bristle hbm SCENARIO.yaml --from F0 --to F1 [--harmonics H] [--samples N] [--points P]\n"
               "                  [--column BODY.x]... [--levels L,...] [--out DIR] [--set KEY=VALUE]... [--quiet]\n"
               "       bristle hbm SCENARIO.yaml --at F --level-from L0 --level-to L1 [options as above]\n"
               "  the periodic steady state under the scenario's harmonic loads, driven at the base frequency,\n"
               "  followed by pseudo-arclength continuation from F0 to F1 [Hz] (through turning points), or at the\n"
               "  frequency F in the excitation level from L0 to L1 (every harmonic load times the level)\n"
               "  --harmonics H  harmonics 0..H of every DOF (default 7)\n"
               "  --samples N    AFT samples a period (default 16 H, at least 2 H + 1)\n"
               "  --points P     steps of at most 2 (F1 - F0) / P in frequency: at least P / 2 points, more where the\n"
               "                 curve bends (default 100)\n"
               "  --periods-max  periods the contact states may take to repeat (default 200)\n"
               "  --tol T        Newton stops at a residual of T times the largest harmonic (default 1e-8); the\n"
               "                 AFT marches until a period's force harmonics repeat within T / 10\n"
               "  --column C     a body's displacement to report, BODY.x|y|z (default: every body's)\n"
               "  --levels L,... one curve per excitation level: every harmonic load times L (up to 32 levels)\n"
               "  --check P      integrate the model in time for P periods from the periodic state where the first\n"
               "                 column peaks, and compare its first harmonic (summary.json's check_by_run)\n"
               "  --stability    every point's Floquet multipliers: the monodromy matrix of one period of the run's\n"
               "                 time integration by finite differences (frf.csv's floquet_max and stable columns)\n"
               "  --out DIR      output folder (default runs/<scenario name>-hbm)\n"
               "  writes frf.csv (per point: [level,] frequency, each column's harmonic amplitudes, peak-to-peak and\n"
               "  first harmonic's phase, each contact set's friction energy per cycle and fewest points in contact),\n"
               "  frf_<column>.png, summary.json\n");
    return o == stderr ? 2 : 0;
}

typedef struct hb_opts {
    const char *scen, *out, *sets[256], *cols[HB_MAXCOL];
    int nsets, ncols, quiet;
    long H, N, points, maxper;
    double f0, f1, tol;
    int have_f0, have_f1;
    double levels[HB_MAXLEV]; /* --levels: factors on the harmonic loads, one curve each */
    int nlev;
    double at, l0, l1;        /* --at F --level-from L0 --level-to L1: continuation in the level at F */
    int have_at, have_l0, have_l1;
    long check;               /* --check P: the first column's peak integrated in time over P periods */
    int stability;            /* --stability: every point's Floquet multipliers */
} hb_opts;

/* argv -> options; 0, or 2 (bad input, message printed) or 1 (help printed) */
static int parse_args(int argc, char **argv, hb_opts *o)
{
    memset(o, 0, sizeof *o);
    o->H = 7, o->N = -1, o->points = 100, o->maxper = 200, o->tol = 1e-8;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 1;
        if (!strcmp(a, "--quiet") || !strcmp(a, "--stability")) {
            if (a[2] == 'q') o->quiet = 1;
            else o->stability = 1;
            continue;
        }
        if (a[0] == '-' && i + 1 >= argc) {
            fprintf(stderr, "bristle hbm: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--harmonics")) {
            if (br_parse_long(argv[++i], 1, 64, &o->H)) {
                fprintf(stderr, "bristle hbm: --harmonics must be a whole number from 1 to 64, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--samples")) {
            if (br_parse_long(argv[++i], 1, 1L << 24, &o->N)) {
                fprintf(stderr, "bristle hbm: --samples must be a whole number up to 2^24, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--points")) {
            if (br_arg_long("hbm", "--points", argv[++i], 2, 100000, &o->points)) return 2;
        } else if (!strcmp(a, "--tol")) {
            if (br_arg_double("hbm", "--tol", argv[++i], 1e-14, 1e-2, &o->tol)) return 2;
        } else if (!strcmp(a, "--periods-max")) {
            if (br_arg_long("hbm", "--periods-max", argv[++i], 2, 1000000, &o->maxper)) return 2;
        } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
            double v;
            if (br_parse_double(argv[++i], -1e300, 1e300, &v) || !(v > 0) || !isfinite(v)) {
                fprintf(stderr, "bristle hbm: %s must be a positive frequency [Hz], got '%s'\n", a, argv[i]);
                return 2;
            }
            if (a[2] == 'f') o->f0 = v, o->have_f0 = 1;
            else o->f1 = v, o->have_f1 = 1;
        } else if (!strcmp(a, "--at") || !strcmp(a, "--level-from") || !strcmp(a, "--level-to")) {
            double v;
            if (br_parse_double(argv[++i], -1e300, 1e300, &v) || !(v > 0) || !isfinite(v)) {
                fprintf(stderr, "bristle hbm: %s must be a positive %s, got '%s'\n", a, a[2] == 'a' ? "frequency [Hz]" : "level",
                        argv[i]);
                return 2;
            }
            if (a[2] == 'a') o->at = v, o->have_at = 1;
            else if (a[8] == 'f') o->l0 = v, o->have_l0 = 1;
            else o->l1 = v, o->have_l1 = 1;
        } else if (!strcmp(a, "--check")) {
            if (br_arg_long("hbm", "--check", argv[++i], 2, 100000, &o->check)) return 2;
        } else if (!strcmp(a, "--column")) {
            if (o->ncols == HB_MAXCOL) {
                fprintf(stderr, "bristle hbm: at most %d columns\n", HB_MAXCOL);
                return 2;
            }
            o->cols[o->ncols++] = argv[++i];
        } else if (!strcmp(a, "--levels")) {
            const char *q = argv[++i];
            o->nlev = 0;
            for (;;) {
                char *e;
                const double v = strtod(q, &e);
                if (e == q || !(v > 0) || !isfinite(v) || o->nlev == HB_MAXLEV || (*e && *e != ',')) {
                    fprintf(stderr, "bristle hbm: --levels takes up to %d positive factors separated by commas, got '%s'\n",
                            HB_MAXLEV, argv[i]);
                    return 2;
                }
                o->levels[o->nlev++] = v;
                if (!*e) break;
                q = e + 1;
            }
        } else if (!strcmp(a, "--out")) o->out = argv[++i];
        else if (!strcmp(a, "--set")) {
            if (o->nsets == 256) {
                fprintf(stderr, "bristle hbm: at most 256 --set\n");
                return 2;
            }
            o->sets[o->nsets++] = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "bristle hbm: unknown option '%s'\n", a);
            return usage(stderr);
        } else if (o->scen) {
            fprintf(stderr, "bristle hbm: one scenario at a time (got '%s' and '%s')\n", o->scen, a);
            return 2;
        } else o->scen = a;
    }
    if (!o->scen) return usage(stderr);
    if ((o->check || o->stability) && (o->have_at || o->nlev)) {
        fprintf(stderr, "bristle hbm: %s takes a curve in frequency at the scenario's load (no --at or --levels; set the load "
                        "with --set)\n", o->check ? "--check" : "--stability");
        return 2;
    }
    if (o->have_at || o->have_l0 || o->have_l1) { /* continuation in the level */
        if (!o->have_at || !o->have_l0 || !o->have_l1 || o->have_f0 || o->have_f1 || o->nlev) {
            fprintf(stderr, "bristle hbm: a curve in the level takes --at F --level-from L0 --level-to L1 (and no --from, --to "
                            "or --levels)\n");
            return 2;
        }
        if (o->l0 == o->l1) {
            fprintf(stderr, "bristle hbm: --level-from and --level-to are the same level (%g)\n", o->l0);
            return 2;
        }
        o->f0 = o->f1 = o->at;
    } else if (!o->have_f0 || !o->have_f1) {
        fprintf(stderr, "bristle hbm: give the frequency range, --from F0 --to F1 [Hz]\n");
        return 2;
    }
    if (o->f0 == o->f1 && !o->have_at) {
        fprintf(stderr, "bristle hbm: --from and --to are the same frequency (%g Hz)\n", o->f0);
        return 2;
    }
    if (o->N < 0) o->N = 16 * o->H;
    if (o->N < 2 * o->H + 1) {
        fprintf(stderr, "bristle hbm: --samples %ld is too few for %ld harmonics: N >= 2 H + 1 = %ld\n", o->N, o->H,
                2 * o->H + 1);
        return 2;
    }
    return 0;
}

int br_hbm_row_width(const br_hbm *h) { return 2 + h->ncol * (h->H + 3) + 2 * h->s.m->nset; }

void br_hbm_counts(const br_hbm *h, long *newton, long *jacobians)
{
    *newton = h->newton, *jacobians = h->jacobians;
}

/* one point of the curve: values row (frequency, Newton iterations, then per column H + 3 values, per set W, then
 * per set the fewest points in contact at a sample) */
static void point_row(hb *h, double w, int its, double *row)
{
    int c = 0;
    row[c++] = w / (2 * M_PI);
    row[c++] = its;
    for (int k = 0; k < h->ncol; k++, c += h->H + 3) {
        double arg1;
        column_values(h, &h->col[k], row + c, &arg1);
        row[c + h->H + 2] = arg1 * (180.0 / M_PI);
    }
    for (int s = 0; s < h->s.m->nset; s++) row[c++] = h->aft.W[s];
    for (int s = 0; s < h->s.m->nset; s++) row[c++] = (double)h->aft.nmin[s];
}

/* the header's names without the line's end */
static void header_names(const br_hbm *h, FILE *fp, const char *lead)
{
    fprintf(fp, "%s%sf_Hz,newton", lead ? lead : "", lead ? "," : "");
    for (int k = 0; k < h->ncol; k++) {
        for (int j = 0; j <= h->H; j++) fprintf(fp, ",%s.h%d", h->col[k].name, j);
        fprintf(fp, ",%s.pp,%s.arg1_deg", h->col[k].name, h->col[k].name);
    }
    for (int s = 0; s < h->s.m->nset; s++) fprintf(fp, ",%s.W", h->s.m->cset[s].name);
    for (int s = 0; s < h->s.m->nset; s++) fprintf(fp, ",%s.ncontact_min", h->s.m->cset[s].name);
}

void br_hbm_write_header(const br_hbm *h, FILE *fp, const char *lead)
{
    header_names(h, fp, lead);
    fprintf(fp, "\n");
}

/* --check's figures (f, P, harmonic balance's h1, the run's over its first and last period) -> "stays" (the
 * last period within 1 %) or "leaves"; the first period is reported beside them (within 0.03 % where the state is
 * stable, docs/hbm.md) */
static const char *check_verdict(const double *chk) { return fabs(chk[4] / chk[2] - 1) <= 0.01 ? "stays" : "leaves"; }

static int write_summary(const char *path, const hb *h, const hb_opts *o, long npoint, const double *folds, int nfold,
                         double wall, const char *status, const char *warning, const double *chk, const double *mu,
                         double mu_wall, double defect)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scenario", h->s.m->name);
    cJSON_AddStringToObject(j, "analysis", o->have_at ? "harmonic balance, pseudo-arclength continuation in the excitation level"
                                                      : "harmonic balance, pseudo-arclength continuation in frequency");
    cJSON_AddStringToObject(j, "status", status);
    if (o->have_at) {
        br_json_number(j, "at_Hz", o->at);
        br_json_number(j, "level_from", o->l0);
        br_json_number(j, "level_to", o->l1);
    } else {
        br_json_number(j, "from_Hz", o->f0);
        br_json_number(j, "to_Hz", o->f1);
    }
    br_json_number(j, "harmonics", (double)h->H);
    br_json_number(j, "samples", (double)h->N);
    br_json_number(j, "dofs", (double)h->s.ndof);
    br_json_number(j, "nonlinear_dofs", (double)h->s.nnl);
    br_json_number(j, "unknowns", (double)h->nu);
    br_json_number(j, "points", (double)npoint);
    br_json_number(j, "newton_iterations", (double)h->newton);
    br_json_number(j, "jacobians", (double)h->jacobians);
    br_json_number(j, "broyden_updates", (double)h->broyden);
    br_json_number(j, "tangents_retaken", (double)h->turned_back);
    br_json_number(j, "aft_evaluations", (double)h->aft.evals);
    br_json_number(j, "aft_periods", (double)h->aft.periods);
    br_json_number(j, "aft_periods_max", (double)h->aft.max_periods_seen);
    br_json_number(j, "aft_capped", (double)h->aft.capped);
    br_json_number(j, "aft_extrapolated", (double)h->aft.extrapolated);
    br_json_number(j, "aft_period_tolerance", h->aft.ptol);
    br_json_number(j, "field_updates", h->aft.updates);
    br_json_number(j, "wall_seconds", wall);
    br_json_number(j, "field_updates_per_second", wall > 0 ? h->aft.updates / wall : 0.0);
    if (o->nlev > 0) {
        cJSON *lv = cJSON_AddArrayToObject(j, "levels");
        for (int k = 0; k < o->nlev; k++) cJSON_AddItemToArray(lv, cJSON_CreateNumber(o->levels[k]));
    }
    cJSON *f = cJSON_AddArrayToObject(j, o->have_at ? "turning_points_level" : "turning_points_Hz");
    for (int k = 0; k < nfold; k++) cJSON_AddItemToArray(f, cJSON_CreateNumber(folds[k]));
    if (chk) { /* --check: f, periods, harmonic balance's h1, the run's over its first and last period */
        cJSON *c = cJSON_AddObjectToObject(j, "check_by_run");
        cJSON_AddStringToObject(c, "column", h->col[0].name);
        br_json_number(c, "f_Hz", chk[0]);
        br_json_number(c, "periods", chk[1]);
        br_json_number(c, "hbm_h1", chk[2]);
        br_json_number(c, "run_h1_first_period", chk[3]);
        br_json_number(c, "run_h1_last_period", chk[4]);
        cJSON_AddStringToObject(c, "verdict", check_verdict(chk));
    }
    if (mu) { /* --stability */
        cJSON *c = cJSON_AddObjectToObject(j, "stability");
        cJSON_AddStringToObject(c, "method", "Floquet multipliers: monodromy matrix of one period of the run's time integration, "
                                             "forward differences in every DOF's displacement and velocity and every contact state");
        br_json_number(c, "states", (double)floq_dim(h));
        br_json_number(c, "threshold", 1.0 + HB_FLOQ_TOL);
        long nun = 0, nfail = 0;
        for (long p = 0; p < npoint; p++) nun += mu[p] > 1.0 + HB_FLOQ_TOL, nfail += !(mu[p] >= 0.0);
        br_json_number(c, "unstable_points", (double)nun);
        br_json_number(c, "failed_points", (double)nfail);
        br_json_number(c, "wall_seconds", mu_wall);
        br_json_number(c, "periodicity_defect_max", defect);
    }
    cJSON *wa = cJSON_AddArrayToObject(j, "warnings");
    if (warning && *warning) cJSON_AddItemToArray(wa, cJSON_CreateString(warning));
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    FILE *fp = text ? fopen(path, "w") : NULL;
    int rc = fp && fputs(text, fp) >= 0 ? 0 : -1;
    if (fp && fclose(fp)) rc = -1;
    free(text);
    return rc;
}

/* the curve's rows (ncolumns wide; with levels a leading level column), the levels (NULL: one curve) and where
 * each level's rows start (lstart[nlev] the end) -> one PNG per column: half its peak-to-peak against frequency,
 * with levels one curve each, per unit level */
static void plots(const char *dir, const hb *h, const double *rows, int width, const double *levels, int nlev,
                  const long *lstart, const double *mu)
{
    const int lc = levels != NULL;
    const long np = lstart[nlev];
    double *x = malloc((size_t)(np + 1) * sizeof(double)), *y = malloc((size_t)(2 * np + 1) * sizeof(double));
    br_series sr[HB_MAXLEV + 1];
    char names[HB_MAXLEV][48];
    for (int k = 0; x && y && k < h->ncol; k++) {
        const int c = lc + 2 + k * (h->H + 3) + h->H + 1;
        for (int lv = 0; lv < nlev; lv++) {
            const double scale = lc ? 1.0 / levels[lv] : 1.0;
            for (long p = lstart[lv]; p < lstart[lv + 1]; p++) x[p] = rows[p * width + lc], y[p] = 0.5 * rows[p * width + c] * scale;
            if (lc) snprintf(names[lv], sizeof names[lv], "level %g", levels[lv]);
            else snprintf(names[lv], sizeof names[lv], "%.40s", h->col[k].name);
            sr[lv] = (br_series){names[lv], lstart[lv + 1] - lstart[lv], x + lstart[lv], y + lstart[lv], lc ? lv % 8 : 0, 0, 0};
        }
        int ns = nlev;
        if (mu && !lc) { /* --stability: the unstable points, circles over the curve */
            for (long p = 0; p < np; p++) y[np + p] = mu[p] > 1.0 + HB_FLOQ_TOL ? y[p] : NAN;
            sr[ns++] = (br_series){"unstable (Floquet)", np, x, y + np, 1, 0, 1};
        }
        char path[1200], title[200];
        snprintf(path, sizeof path, "%s/frf_%s.png", dir, h->col[k].name);
        snprintf(title, sizeof title, "%s: %s by harmonic balance (H = %d)", h->s.m->name, h->col[k].name, h->H);
        br_plot_series_png(path, title, "frequency [Hz]", lc ? "half peak-to-peak per unit level [m]" : "half peak-to-peak [m]",
                           0, sr, ns);
    }
    free(x), free(y);
}

/* a curve in the level (rows with the level leading), the frequency and range -> one PNG per column: half its
 * peak-to-peak against the level (log axes over a decade or more of levels) */
static void plots_level(const char *dir, const hb *h, const double *rows, int width, long np, double f, double l0, double l1)
{
    double *x = malloc((size_t)np * sizeof(double)), *y = malloc((size_t)np * sizeof(double));
    for (int k = 0; x && y && k < h->ncol; k++) {
        const int c = 1 + 2 + k * (h->H + 3) + h->H + 1;
        for (long p = 0; p < np; p++) x[p] = rows[p * width], y[p] = 0.5 * rows[p * width + c];
        const br_series sr = {h->col[k].name, np, x, y, 0, 0, 0};
        char path[1200], title[200];
        snprintf(path, sizeof path, "%s/frf_%s.png", dir, h->col[k].name);
        snprintf(title, sizeof title, "%s: %s at %g Hz by harmonic balance (H = %d)", h->s.m->name, h->col[k].name, f, h->H);
        const double r = l1 > l0 ? l1 / l0 : l0 / l1;
        br_plot_series_png(path, title, "excitation level (times the scenario's harmonic loads)", "half peak-to-peak [m]",
                           r >= 10 ? BR_PLOT_LOGX | BR_PLOT_LOGY : 0, &sr, 1);
    }
    free(x), free(y);
}

void br_hbm_free(br_hbm *h)
{
    if (!h) return;
    br_hbm_aft_free(&h->aft);
    br_hbm_lin_free(&h->lin);
    br_hbm_sys_free(&h->s);
    free(h->G), free(h->R), free(h->Rt), free(h->J), free(h->Jw), free(h->A), free(h->b), free(h->yt), free(h->yp);
    free(h->piv), free(h->y), free(h->dR), free(h->ypk);
    free(h);
}

br_hbm *br_hbm_create(const br_model *m, const char *text, size_t len, int H, int N, int maxper, double tol,
                      int ncol, const char *const *cols, int *bad, char *err, size_t errlen)
{
    *bad = 0;
    openblas_set_num_threads(1); /* systems of tens to hundreds of unknowns: OpenBLAS's threads only yield */
    br_hbm *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "hbm: out of memory");
        return NULL;
    }
    if (br_hbm_sys_build(m, text, len, &h->s, err, errlen)) {
        *bad = 1;
        free(h);
        return NULL;
    }
    h->H = H, h->N = N, h->tol = tol, h->lev = 1.0;
    int outdof[6 * HB_MAXCOL], nout = 0, rc = 0;
    if (ncol == 0) /* every body's displacement */
        for (int b = 0; b < m->nbody && rc == 0; b++)
            for (int a = 0; a < 3 && rc == 0 && h->ncol < HB_MAXCOL; a++) {
                char nm[BR_NAME_MAX + 4];
                snprintf(nm, sizeof nm, "%s.%c", m->body[b].name, "xyz"[a]);
                rc = column(h, nm, outdof, &nout, 6 * HB_MAXCOL, err, errlen);
            }
    for (int k = 0; k < ncol && rc == 0; k++) rc = column(h, cols[k], outdof, &nout, 6 * HB_MAXCOL, err, errlen);
    if (rc) {
        *bad = 1;
        br_hbm_free(h);
        return NULL;
    }
    if (br_hbm_lin_init(&h->s, H, nout, outdof, &h->lin)) {
        snprintf(err, errlen, "hbm: out of memory");
        br_hbm_free(h);
        return NULL;
    }
    if (br_hbm_aft_init(&h->s, H, N, 1, maxper, 0.1 * tol, &h->aft, err, errlen)) {
        br_hbm_free(h);
        return NULL;
    }
    const int nu = h->nu = h->aft.nu;
    h->G = malloc((size_t)(nu + 1) * sizeof(double)), h->R = malloc((size_t)(nu + 1) * sizeof(double));
    h->Rt = malloc((size_t)(nu + 1) * sizeof(double)), h->J = malloc((size_t)nu * nu * sizeof(double) + 8);
    h->Jw = malloc((size_t)(nu + 1) * sizeof(double)), h->A = malloc((size_t)(nu + 1) * (nu + 1) * sizeof(double));
    h->b = malloc((size_t)(nu + 1) * sizeof(double)), h->yt = malloc((size_t)(nu + 1) * sizeof(double));
    h->yp = malloc((size_t)(nu + 1) * sizeof(double)), h->piv = malloc((size_t)(nu + 1) * sizeof(int));
    h->y = calloc((size_t)nu + 1, sizeof(double)), h->dR = malloc((size_t)(nu + 1) * sizeof(double));
    h->ypk = calloc((size_t)nu + 1, sizeof(double));
    if (!h->ypk || !h->dR || !h->G || !h->R || !h->Rt || !h->J || !h->Jw || !h->A || !h->b || !h->yt || !h->yp || !h->piv || !h->y) {
        snprintf(err, errlen, "hbm: out of memory");
        br_hbm_free(h);
        return NULL;
    }
    return h;
}

/* h, static_only -> y set to the linear response without contact forces at l's frequency (its static
 * part only, the oscillation zero, if static_only) */
static void linear_guess(hb *h, double *y, int static_only)
{
    const int nl = h->s.nnl;
    for (int k = 0; k <= h->H; k++)
        for (int i = 0; i < nl; i++) {
            const double complex X = (k == 0 ? 1.0 : h->lev) * h->lin.Xnl[(size_t)k * nl + i];
            if (k == 0) y[i] = creal(X);
            else y[(2 * k - 1) * nl + i] = static_only ? 0.0 : creal(X), y[2 * k * nl + i] = static_only ? 0.0 : cimag(X);
        }
}

/* the continuation's parameter p, from_linear -> Newton at p (as br_hbm_point); iterations, -1 or -2 */
static int point_at(hb *h, double p, int from_linear, char *err, size_t errlen)
{
    if (set_param(h, p, err, errlen)) return -2;
    /* from the last solution, or the linear response without contacts, or (when Newton fails from that,
     * far from a response the contacts stiffen) its static part alone, whose first step is the response
     * linearized about the static state */
    int its = -1;
    h->jvalid = 0;
    for (int attempt = from_linear || !h->have ? 1 : 0; attempt <= 2 && its == -1; attempt++) {
        /* the scale of the tolerance: the solution's size, or the linear response's for a fresh start */
        if (attempt > 0) linear_guess(h, h->y, 0);
        const double ys = fmax(norm_inf(h->y, h->nu), 1e-300);
        set_tolerances(h, h->y);
        if (attempt == 2) linear_guess(h, h->y, 1);
        double q = p;
        /* from the last solution 40 iterations, from the linear guess 25; from the static part alone the first
         * steps are damped by the line search (the mistuned S2 bundle at 53.3 Hz: about 35 at a half to an
         * eighth, then Newton's convergence; 41 in all with AVX2's OpenBLAS): 80 */
        its = newton(h, h->y, &q, NULL, NULL, 0, ys, p, attempt == 2 ? 80 : attempt == 1 ? 25 : 40, err, errlen);
    }
    if (its > 0) h->have = 1, h->w = p;
    return its;
}

int br_hbm_point(br_hbm *h, double f, int from_linear, char *err, size_t errlen)
{
    h->plevel = 0;
    return point_at(h, 2 * M_PI * f, from_linear, err, errlen);
}

void br_hbm_set_level(br_hbm *h, double level) { h->lev = level; }

/* a parameter value as shown: Hz, or the level */
static double shown(const hb *h, double p) { return h->plevel ? p : p / (2 * M_PI); }

int br_hbm_ncolumns(const br_hbm *h) { return h->ncol; }

const char *br_hbm_column_name(const br_hbm *h, int c) { return h->col[c].name; }

void br_hbm_column(br_hbm *h, int c, double *row, double *arg1) { column_values(h, &h->col[c], row, arg1); }

const br_hbm_aft *br_hbm_aft_of(const br_hbm *h) { return &h->aft; }

/* the continuation in h's parameter (h->plevel) from p0 to p1; as br_hbm_curve */
static int curve(hb *h, double p0, double p1, int points, double lead, int progress, br_hbm_rows *r, char *warning, size_t wlen,
                 char *err, size_t errlen)
{
    const char *unit = h->plevel ? "" : " Hz";
    const int nu = h->nu, lc = r->lead, width = lc + br_hbm_row_width(h);
    double *y = h->y, *yprev = calloc((size_t)nu + 1, sizeof(double));
    double *tau = calloc((size_t)nu + 1, sizeof(double)), *sec = calloc((size_t)nu + 1, sizeof(double));
    if (!yprev || !tau || !sec) {
        free(yprev), free(tau), free(sec);
        snprintf(err, errlen, "hbm: out of memory");
        return -2;
    }
    /* w: the parameter (a frequency [rad/s], or the level), from ws = p0 to w1 = p1 */
    const double dir_w = p1 > p0 ? 1.0 : -1.0, w1 = p1, ws = p0;
    const long start = r->n;
    *warning = 0;
    h->pk = -1.0;
    /* the first point: Newton at p0 from the linear response without contact forces */
    int its = point_at(h, p0, 1, err, errlen), rc;
    double w = h->w, ys = fmax(norm_inf(y, nu), 1e-300);
    if (its == -1)
        snprintf(err + strlen(err), errlen - strlen(err), "%sno convergence at the first %s %g%s", *err ? "; " : "",
                 h->plevel ? "level" : "frequency", shown(h, p0), unit);
    rc = its < 0 ? its : 0;
    /* steps in the scaled variables (y / its largest harmonic, w / the start frequency): about `points` over
     * the range where the curve is flat, at most a tenth of the largest harmonic's size where it is steep */
    double ds = fabs(w1 - ws) / ws / (double)points, ds_max = fmax(4 * ds, 0.1), ds_min = ds * 1e-4;
    /* a step advances the parameter by at most twice the range over `points`: a flat stretch gets at least
     * points / 2 of them however large the step has grown, and a narrow peak is not stepped over (the
     * friction-limited top of a Jenkins oscillator, 300 times its flanks, was, from 9.3 to 13.4 Hz) */
    const double dp_max = 2 * ds;
    while (rc >= 0) {
        if (r->n == r->cap) {
            const long cap = r->cap ? 2 * r->cap : 256;
            double *r2 = realloc(r->v, (size_t)cap * width * sizeof(double));
            if (r2) r->v = r2;
            double *s2 = r2 && r->keep ? realloc(r->sol, (size_t)cap * (nu + 2) * sizeof(double)) : NULL;
            if (s2) r->sol = s2;
            if (!r2 || (r->keep && !s2)) {
                rc = -2, snprintf(err, errlen, "hbm: out of memory for the curve's points");
                break;
            }
            r->cap = cap;
        }
        const long np = r->n - start + 1; /* points of this curve */
        const double lv = h->plevel ? w : lead, wf = h->plevel ? h->wfix : w;
        if (lc) r->v[r->n * width] = lv;
        point_row(h, wf, its, r->v + r->n * width + lc);
        if (r->keep) {
            double *sv = r->sol + r->n * (nu + 2);
            sv[0] = wf, sv[1] = h->lev;
            memcpy(sv + 2, y, (size_t)nu * sizeof(double));
        }
        if (h->ncol > 0 && r->v[r->n * width + lc + 3] > h->pk) /* column 0's h1 */
            h->pk = r->v[r->n * width + lc + 3], h->wpk = w, memcpy(h->ypk, y, (size_t)nu * sizeof(double));
        r->n++;
        if (progress && lc) fprintf(stderr, "\rhbm: level %g, %.6g Hz, point %ld, %d Newton iterations   ", lv, wf / (2 * M_PI), np, its);
        else if (progress) fprintf(stderr, "\rhbm: %.6g Hz, point %ld, %d Newton iterations   ", wf / (2 * M_PI), np, its);
        if ((w - w1) * dir_w >= -1e-12 * ws || np >= 100000) break;
        /* a curve that turned back and left the range behind its start (a fold whose return it stepped over, then
         * the curve walked backwards): stopped, not followed down to zero */
        if ((w - ws) * dir_w < -0.05 * fabs(w1 - ws)) {
            snprintf(warning, wlen, "the curve turned back at %.9g%s and left the range at %.9g%s", r->nfold ? r->folds[r->nfold - 1] : shown(h, w),
                     unit, shown(h, w), unit);
            rc = -3;
            break;
        }
        ys = fmax(norm_inf(y, nu), ys * 1e-3);
        set_tolerances(h, y);
        /* the tangent at this point: from the Jacobian Newton ended with (Broyden-updated) while it still
         * converged well, with dR/dw afresh (one evaluation), else from a fresh one */
        int reused = h->jvalid;
        if (reused ? jacobian_w(h, y, w, err, errlen) : jacobian(h, y, w, h->J, h->Jw, err, errlen)) {
            rc = -2;
            break;
        }
        h->jvalid = 1;
        /* bordered and oriented by the last step taken (the secant), not by the last point's tangent: where the
         * curve turns a corner (a Jenkins slider's slip onset: the response's phase turns at a constant amplitude
         * on the friction-limited top, its amplitude falls at a constant phase on the flank, two directions at
         * right angles) the last tangent is orthogonal to this one, the bordered system near singular and the
         * orientation a sign of rounding: the continuation went back and forth over the top, 240 to 776 points
         * as the BLAS kernel rounded (docs/hbm.md) */
        if (tangent(h, np > 1 ? sec : NULL, dir_w, ys, ws, tau)) {
            rc = -2, snprintf(err, errlen, "hbm: the branch's tangent is undefined at %.9g%s", shown(h, w), unit);
            break;
        }
        /* a reused Jacobian's tangent that turns more than about 25 degrees from the last step is checked
         * against a fresh Jacobian's (a stick-slip transition bends the curve where a Broyden update is
         * poorest) */
        if (reused && np > 1) {
            double c = 0, nt = 0, nsec = 0;
            for (int i = 0; i <= nu; i++) c += tau[i] * sec[i], nt += tau[i] * tau[i], nsec += sec[i] * sec[i];
            if (!(c > 0.9 * sqrt(nt * nsec))) {
                if (jacobian(h, y, w, h->J, h->Jw, err, errlen)) {
                    rc = -2;
                    break;
                }
                reused = 0, h->turned_back++;
                if (tangent(h, sec, dir_w, ys, ws, tau)) {
                    rc = -2, snprintf(err, errlen, "hbm: the branch's tangent is undefined at %.9g%s", shown(h, w), unit);
                    break;
                }
            }
        }
        if (getenv("BRISTLE_HBM_DEBUG")) {
            double ty = 0;
            for (int i = 0; i < nu; i++) ty = fmax(ty, fabs(tau[i]));
            fprintf(stderr, "tangent at %.9g%s: tau_p %.3e |tau_y| %.3e ys %.3e ds %.3e\n", shown(h, w), unit, tau[nu], ty, ys, ds);
        }
        /* the first step advances the parameter by about the range over `points` (ds is in the scaled arclength,
         * where the harmonics' change may outweigh the parameter's a thousand times: a curve over a short range
         * then took 15 steps, each 1.5 times the last, to reach the step its range asks for) */
        if (np == 1 && fabs(tau[nu]) > 0.0) ds = fmin(ds / fabs(tau[nu]), ds_max);
        memcpy(yprev, y, (size_t)nu * sizeof(double));
        const double wprev = w;
        for (;;) {
            /* predictor along the tangent; the last step lands on F1 by Newton at fixed frequency */
            if (fabs(tau[nu]) * ds > dp_max) ds = dp_max / fabs(tau[nu]);
            double wp = wprev + ds * tau[nu] * ws, sp = ds;
            int natural = 0;
            if ((wp - w1) * dir_w > 0 && tau[nu] * dir_w > 0) natural = 1, wp = w1, sp = (w1 - wprev) / (tau[nu] * ws);
            double *yp = h->yp;
            for (int i = 0; i < nu; i++) yp[i] = yprev[i] + sp * tau[i] * ys;
            memcpy(y, yp, (size_t)nu * sizeof(double));
            w = wp;
            if (natural && set_param(h, w, err, errlen)) its = -2;
            else its = natural ? newton(h, y, &w, NULL, NULL, 0, ys, ws, 16, err, errlen)
                               : newton(h, y, &w, tau, yp, wp, ys, ws, 16, err, errlen);
            if (its == -2) {
                rc = -2;
                break;
            }
            if (its > 0 && !(w > 0.0)) its = -1; /* through zero frequency (or level): not a point of the curve */
            /* the corrector, not only the predictor, keeps to the step's limit on the parameter (twice it): one
             * that moved further jumped to another branch (from 9.7 Hz on a Jenkins oscillator's flank to its far
             * flank at 14.1 Hz, the resonance stepped over). The step is halved and retried. */
            if (its > 0 && fabs(w - wprev) > 2.0 * dp_max * ws) its = -1;
            /* a step that turns back against the last one (in the scaled variables) went the wrong way along
             * the curve: the reused Jacobian's tangent misled it. The tangent is taken again from a fresh
             * Jacobian at the point, and the step retried. */
            if (its > 0 && !natural && np > 1 && reused) {
                double d = (w - wprev) / ws * sec[nu];
                for (int i = 0; i < nu; i++) d += (y[i] - yprev[i]) / ys * sec[i];
                if (d <= 0) {
                    memcpy(y, yprev, (size_t)nu * sizeof(double));
                    w = wprev;
                    if (residual(h, y, w, h->R, err, errlen) ||
                        jacobian(h, y, w, h->J, h->Jw, err, errlen)) {
                        rc = -2;
                        break;
                    }
                    h->jvalid = 1, reused = 0, h->turned_back++;
                    if (tangent(h, sec, dir_w, ys, ws, tau)) {
                        rc = -2, snprintf(err, errlen, "hbm: the branch's tangent is undefined at %.9g%s", shown(h, w), unit);
                        break;
                    }
                    continue;
                }
            }
            if (its > 0 && !natural && (w - w1) * dir_w > 0) { /* past F1: land on it from both sides */
                const double t = (w1 - wprev) / (w - wprev);
                for (int i = 0; i < nu; i++) y[i] = yprev[i] + t * (y[i] - yprev[i]);
                w = w1;
                its = set_param(h, w, err, errlen) ? -2 : newton(h, y, &w, NULL, NULL, 0, ys, ws, 16, err, errlen);
                if (its == -2) {
                    rc = -2;
                    break;
                }
            }
            if (its > 0) { /* chord iterations are cheap: the step grows up to 5 of them, shrinks from 10 */
                /* a turning point: the frequency's direction reverses between two steps (at the point between) */
                const double dwprev = sec[nu];
                for (int i = 0; i < nu; i++) sec[i] = (y[i] - yprev[i]) / ys;
                sec[nu] = (w - wprev) / ws;
                if (np > 1 && dwprev * sec[nu] < 0 && r->nfold < BR_HBM_MAXFOLD) r->folds[r->nfold++] = shown(h, wprev);
                if (its <= 5) ds = fmin(ds * 1.5, ds_max);
                else if (its >= 10) ds *= 0.7;
                break;
            }
            ds *= 0.5;
            *err = 0;
            if (ds < ds_min) {
                snprintf(warning, wlen, "the continuation stopped at %.9g%s: no convergence with a step of %.3g of the start "
                                        "%s", shown(h, wprev), unit, ds, h->plevel ? "level" : "frequency");
                rc = -3;
                break;
            }
        }
    }
    if (progress) fprintf(stderr, "\n");
    free(yprev), free(tau), free(sec);
    return rc;
}

int br_hbm_curve(br_hbm *h, double f0, double f1, int points, double lead, int progress, br_hbm_rows *r, char *warning,
                 size_t wlen, char *err, size_t errlen)
{
    h->plevel = 0;
    return curve(h, 2 * M_PI * f0, 2 * M_PI * f1, points, lead, progress, r, warning, wlen, err, errlen);
}

int br_hbm_curve_level(br_hbm *h, double f, double l0, double l1, int points, int progress, br_hbm_rows *r, char *warning,
                       size_t wlen, char *err, size_t errlen)
{
    h->plevel = 1, h->wfix = 2 * M_PI * f;
    const int rc = curve(h, l0, l1, points, 0.0, progress, r, warning, wlen, err, errlen);
    h->plevel = 0;
    return rc;
}

int br_hbm_main(int argc, char **argv)
{
    hb_opts o;
    const int prc = parse_args(argc, argv, &o);
    if (prc) return prc == 1 ? 0 : 2;
    char err[2048];
    size_t len = 0;
    char *text = br_read_text(o.scen, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    br_model *m = br_scenario_load(o.scen, o.sets, o.nsets, err, sizeof err);
    int bad = 1;
    hb *hp = m ? br_hbm_create(m, text, len, (int)o.H, (int)o.N, (int)o.maxper, o.tol, o.ncols, o.cols, &bad, err,
                             sizeof err)
               : NULL;
    free(text);
    if (!hp) {
        fprintf(stderr, "%s\n", err);
        br_model_free(m);
        return bad ? 2 : 1;
    }
    hb *const h = hp;
    /* with --levels a leading column holds the level; the levels' curves follow one another */
    /* with --levels (or a curve in the level) a leading column holds the level; the levels' curves follow one
     * another */
    const int lc = o.nlev > 0 || o.have_at, nlev = o.nlev > 0 ? o.nlev : 1;
    const int width = lc + br_hbm_row_width(h);
    long lstart[HB_MAXLEV + 1] = {0};
    br_hbm_rows rows = {.lead = lc, .keep = o.stability};
    if (o.stability && floq_dim(h) > HB_FLOQ_MAX) {
        fprintf(stderr, "bristle hbm: --stability: the monodromy matrix would have %ld states (2 x %d DOFs and %ld contact "
                        "states), more than %d\n", floq_dim(h), h->s.ndof, h->aft.nstate, HB_FLOQ_MAX);
        br_hbm_free(h), br_model_free(m);
        return 2;
    }
    char dir[1024], stage[1100];
    if (o.out) snprintf(dir, sizeof dir, "%s", o.out);
    else snprintf(dir, sizeof dir, "runs/%s-hbm", m->name);
    if (br_stage_begin(dir, 0, stage, sizeof stage, err, sizeof err)) {
        fprintf(stderr, "bristle hbm: %s\n", err);
        br_hbm_free(h), br_model_free(m);
        return 1;
    }
    const double t_start = br_wall_seconds();
    const int tty = isatty(2) && !o.quiet;
    int rc = 0;
    char warning[1024] = "";
    const char *status = "complete";
    if (o.have_at) {
        rc = br_hbm_curve_level(h, o.at, o.l0, o.l1, (int)o.points, tty, &rows, warning, sizeof warning, err, sizeof err);
        if (rc == -3) status = "stopped";
    }
    for (int lv = 0; lv < nlev && rc == 0 && !o.have_at; lv++) {
        const double level = o.nlev ? o.levels[lv] : 1.0;
        br_hbm_set_level(h, level);
        lstart[lv] = rows.n; /* each level's curve on its own, from the linear response at F0 */
        rc = br_hbm_curve(h, o.f0, o.f1, (int)o.points, level, tty, &rows, warning, sizeof warning, err, sizeof err);
        if (rc == -3) {
            status = "stopped";
            if (lc) snprintf(warning + strlen(warning), sizeof warning - strlen(warning), " (level %g; later levels not run)", level);
        }
    }
    br_hbm_set_level(h, 1.0);
    const long np = rows.n;
    lstart[nlev] = np;
    const double wall = br_wall_seconds() - t_start;
    const int failed = rc == -2 || rc == -1;
    if (failed) {
        fprintf(stderr, "bristle hbm: %s\n", *err ? err : "no convergence");
        status = "failed";
    }
    /* the AFT's counts as the curve left them: --stability and --check evaluate it again, outside wall */
    const br_hbm_aft cnt = h->aft;
    /* --stability: every point's largest Floquet multiplier (NaN where its computation failed) and periodicity
     * defect */
    double *mu = NULL, mu_wall = 0.0, defect = 0.0;
    if (o.stability && !failed && np > 0) {
        const double t_mu = br_wall_seconds();
        mu = malloc((size_t)np * sizeof(double));
        for (long p = 0; mu && p < np; p++) {
            const double *sv = rows.sol + p * (h->nu + 2);
            double fq[2];
            h->w = sv[0], h->lev = sv[1];
            memcpy(h->y, sv + 2, (size_t)h->nu * sizeof(double));
            if (tty) fprintf(stderr, "\rhbm: stability at %.6g Hz, point %ld of %ld   ", sv[0] / (2 * M_PI), p + 1, np);
            *err = 0;
            if (floquet(h, m, fq, err, sizeof err)) {
                mu[p] = NAN;
                if (!strstr(warning, "Floquet"))
                    snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sno Floquet multipliers at %.9g Hz: %.400s",
                             *warning ? "; " : "", sv[0] / (2 * M_PI), err);
            } else mu[p] = fq[0], defect = fmax(defect, fq[1]);
        }
        if (tty) fprintf(stderr, "\n");
        if (!mu) snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sout of memory for --stability",
                          *warning ? "; " : "");
        mu_wall = br_wall_seconds() - t_mu;
    }
    /* frf.csv, the plots, the summary */
    char path[1200];
    snprintf(path, sizeof path, "%s/frf.csv", stage);
    FILE *fp = fopen(path, "w");
    double *line = malloc((size_t)(width + 2) * sizeof(double));
    if (fp && line) {
        header_names(h, fp, lc ? "level" : NULL);
        fprintf(fp, "%s\n", mu ? ",floquet_max,stable" : "");
        for (long p = 0; p < np; p++) {
            memcpy(line, rows.v + p * width, (size_t)width * sizeof(double));
            if (mu) line[width] = mu[p], line[width + 1] = mu[p] >= 0 ? (double)(mu[p] <= 1.0 + HB_FLOQ_TOL) : NAN;
            br_output_csv_row(line, width + (mu ? 2 : 0), fp);
        }
    }
    int wrc = fp && line ? 0 : -1;
    if (fp && fclose(fp)) wrc = -1;
    free(line);
    if (np > 0 && o.have_at) plots_level(stage, h, rows.v, width, np, o.at, o.l0, o.l1);
    else if (np > 0) plots(stage, h, rows.v, width, o.nlev ? o.levels : NULL, nlev, lstart, mu);
    snprintf(path, sizeof path, "%s/summary.json", stage);
    /* --check: the peak's periodic state integrated in time */
    double chk[5], *chkp = NULL;
    if (o.check && !failed && np > 0) {
        at_peak(h);
        double r3[3];
        if (check_by_run(h, m, (int)o.check, r3, err, sizeof err)) { /* said so; the curve stands */
            fprintf(stderr, "bristle hbm: the check by a run failed: %s\n", err);
            snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sthe check by a run failed: %.600s",
                     *warning ? "; " : "", err);
        } else {
            chk[0] = h->wpk / (2 * M_PI), chk[1] = (double)o.check, chk[2] = r3[0], chk[3] = r3[1], chk[4] = r3[2], chkp = chk;
            if (!o.quiet)
                printf("bristle hbm: check at %.6g Hz: %s's first harmonic %.6g by harmonic balance; a run from that state %.6g "
                       "over its first period, %.6g over its %ld-th (%+.3g %%): %s\n",
                       chk[0], h->col[0].name, r3[0], r3[1], r3[2], o.check, 100 * (r3[2] / r3[0] - 1), check_verdict(chk));
        }
    }
    h->aft.evals = cnt.evals, h->aft.periods = cnt.periods, h->aft.max_periods_seen = cnt.max_periods_seen;
    h->aft.capped = cnt.capped, h->aft.extrapolated = cnt.extrapolated, h->aft.updates = cnt.updates;
    if (write_summary(path, h, &o, np, rows.folds, rows.nfold, wall, status, warning, chkp, mu, mu_wall, defect)) wrc = -1;
    if (!failed && wrc == 0 && br_stage_publish(stage, dir, err, sizeof err)) {
        fprintf(stderr, "bristle hbm: %s\n", err);
        wrc = -1;
    }
    if (!o.quiet && !failed && np > 0 && o.have_at)
        printf("bristle hbm: %ld points at %g Hz from level %g to %g in %.3g s (%ld Newton iterations, %ld AFT periods, "
               "%.3g field updates/s)%s%s -> %s\n",
               np, o.at, o.l0, rows.v[(np - 1) * width], wall, h->newton, h->aft.periods, wall > 0 ? h->aft.updates / wall : 0.0,
               *warning ? "; " : "", warning, dir);
    else if (!o.quiet && !failed && np > 0)
        printf("bristle hbm: %ld points from %g to %g Hz in %.3g s (%ld Newton iterations, %ld AFT periods, "
               "%.3g field updates/s)%s%s -> %s\n",
               np, o.f0, rows.v[(np - 1) * width + lc], wall, h->newton, h->aft.periods, wall > 0 ? h->aft.updates / wall : 0.0,
               *warning ? "; " : "", warning, dir);
    if (!o.quiet && mu) {
        long nun = 0;
        for (long p = 0; p < np; p++) nun += mu[p] > 1.0 + HB_FLOQ_TOL;
        printf("bristle hbm: stability of %ld points in %.3g s (%ld states): %ld unstable\n", np, mu_wall, floq_dim(h), nun);
    }
    br_hbm_free(h), br_model_free(m);
    free(rows.v), free(rows.sol), free(mu);
    return failed || wrc ? 1 : 0;
}
