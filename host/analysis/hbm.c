/* hbm.c: the forced response by harmonic balance (docs/hbm.md; in: the model's harmonic system,
 * a frequency or level range; out: the curve's points and columns). Newton on the harmonics of the
 * nonlinear DOFs, R(y, w) = y - X(w) - H(w) G(y, w) = 0 (receptance form, hbm.h), with a
 * finite-difference Jacobian and a backtracking line search; pseudo-arclength continuation in the
 * base frequency, through turning points. The time-domain check and Floquet multipliers:
 * hbm_check.c; the command `bristle hbm` (frf.csv, PNGs, summary.json): hbm_cmd.c. */
#include <complex.h>

#include <cblas.h> /* openblas_set_num_threads */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hbm_internal.h"
#include "base/outdir.h"

/* the continuation's parameter p (a frequency [rad/s], or the level at h->wfix) -> the linear part at its
 * frequency, h->lev at its level; 0 or -1 */
int br_hb_set_param(hb *h, double p, char *err, size_t errlen)
{
    if (h->plevel) h->lev = p;
    const double w = br_hb_frequency(h, p);
    return (h->lin.w != w || h->lin.xi1 != h->lin.xi) && br_hbm_lin_eval(&h->s, w, &h->lin, err, errlen) ? -1 : 0;
}

double complex br_hb_force(const hb *h, const double *y, int k, int j)
{
    const int nl = h->s.nnl, nd = h->s.nnl_dof;
    if (k == 0) return h->G[j] + (j >= nd ? h->s.kb[j - nd] * y[j] : 0.0);
    return h->G[(2 * k - 1) * nl + j] + I * h->G[2 * k * nl + j];
}

/* y, parameter p -> R (nu), the contact force harmonics in h->G */
int br_hb_residual(hb *h, const double *y, double p, double *R, char *err, size_t errlen)
{
    if (br_hb_set_param(h, p, err, errlen)) return -1;
    const double w = h->lin.w, t0 = br_wall_seconds();
    const int arc = br_hbm_aft_eval(&h->aft, y, w, h->G, err, errlen);
    h->wall_res += br_wall_seconds() - t0;
    if (arc) return -1;
    memcpy(h->ysol, y, (size_t)h->nu * sizeof(double));
    if (h->kry) return br_hb_kry_residual(h, y, R);
    const int nl = h->s.nnl;
    for (int k = 0; k <= h->H; k++) {
        const double complex *Hk = h->lin.Hnl + (size_t)k * nl * nl, *Xk = h->lin.Xnl + (size_t)k * nl;
        const double lk = k == 0 ? 1.0 : h->lev; /* the loads' harmonics scale with the level, their mean not */
        for (int i = 0; i < nl; i++) {
            double complex r = -lk * Xk[i];
            for (int j = 0; j < nl; j++) r -= Hk[(size_t)j * nl + i] * br_hb_force(h, y, k, j);
            if (k == 0) R[i] = y[i] + creal(r);
            else {
                R[(2 * k - 1) * nl + i] = y[(2 * k - 1) * nl + i] + creal(r);
                R[2 * k * nl + i] = y[2 * k * nl + i] + cimag(r);
            }
        }
    }
    for (int j = 0; j < h->lin.nsplit; j++) /* the split modes' coordinates eta move harmonic 1 by Sn eta */
        for (int i = 0; i < nl; i++) {
            const double complex v = h->lin.sp[brm_sn(&h->lin, j) + i] * h->lin.eta[j];
            R[nl + i] -= creal(v), R[2 * nl + i] -= cimag(v);
        }
    return 0;
}

double br_hb_norm_inf(const double *x, int n)
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
void br_hb_set_tolerances(hb *h, const double *y)
{
    const int nl = h->s.nnl;
    const double y0 = br_hb_norm_inf(y, nl), y1 = br_hb_norm_inf(y + nl, h->nu - nl);
    h->ytol = fmax(h->tol * y0, 1e-10 * y1), h->ytol1 = fmax(h->tol * y1, 1e-10 * y0);
    if (!(h->ytol > 0.0)) h->ytol = 1e-300;
    if (!(h->ytol1 > 0.0)) h->ytol1 = 1e-300;
}

/* R, step b (scaled by alpha) -> 1 when both the mean's and the oscillation's residual and step are within
 * their tolerances */
static int converged(const hb *h, const double *R, const double *b, double alpha)
{
    const int nl = h->s.nnl, no = h->nu - nl;
    return br_hb_norm_inf(R, nl) <= h->ytol && br_hb_norm_inf(R + nl, no) <= h->ytol1 && alpha * br_hb_norm_inf(b, nl) <= 1e3 * h->ytol &&
           alpha * br_hb_norm_inf(b + nl, no) <= 1e3 * h->ytol1;
}

/* Newton from y (and w), at fixed w (tau NULL) or on the arclength constraint
 * tau_y . (y - yp) / ys + tau_w (w - wp) / ws = 0 -> converged y, w (h->R the residual there);
 * iterations, or -1 (not converged within maxit), -2 (an error, in err) */
int br_hb_newton(hb *h, double *y, double *w, const double *tau, const double *yp, double wp, double ys, double ws,
                  int maxit, char *err, size_t errlen)
{
    const int nu = h->nu, na = tau ? nu + 1 : nu;
    if (br_hb_residual(h, y, *w, h->R, err, errlen)) return -2;
    for (int it = 1; it <= maxit; it++) {
        /* a fresh Jacobian unless the last one (from the tangent at the previous point, or the last
         * iteration) still halved the residual (with Broyden's updates; a fifth was faster on S5c, 13 s against
         * 20 s at 1 N, but let the continuation wander at a stuck Jenkins contact's slip near its resonance) */
        if (!h->jvalid && br_hb_jacobian(h, y, *w, h->J, tau ? h->Jw : NULL, err, errlen)) return -2;
        h->jvalid = 1;
        const double r0 = br_hb_norm_inf(h->R, nu);
        for (int r = 0; r < nu; r++) h->b[r] = -h->R[r];
        double cres = 0;
        if (tau) {
            for (int c = 0; c < nu; c++) cres += tau[c] * (y[c] - yp[c]) / ys;
            cres += tau[nu] * (*w - wp) / ws;
            h->b[nu] = -cres;
        }
        if (h->kry) {
            if (tau)
                for (int c = 0; c < nu; c++) h->dR[c] = tau[c] / ys; /* the border's row */
            if (br_hb_kry_solve(h, tau ? h->Jw : NULL, h->dR, tau ? tau[nu] / ws : 0.0, h->b, err, errlen)) return -1;
        } else {
            for (int c = 0; c < nu; c++) memcpy(h->A + (size_t)c * na, h->J + (size_t)c * nu, (size_t)nu * sizeof(double));
            if (tau) {
                for (int r = 0; r < nu; r++) h->A[(size_t)nu * na + r] = h->Jw[r];
                for (int c = 0; c < nu; c++) h->A[(size_t)c * na + nu] = tau[c] / ys;
                h->A[(size_t)nu * na + nu] = tau[nu] / ws;
            }
        }
        if (!h->kry && LAPACKE_dgesv(LAPACK_COL_MAJOR, na, 1, h->A, na, h->piv, h->b, na) != 0) {
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
            ok = wt > 0.0 && br_hb_residual(h, h->yt, wt, h->Rt, err, errlen) == 0;
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
        if (!h->kry) { /* (the Krylov path takes a fresh Jacobian every iteration, as every interface model does) */
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
        const double step = alpha * br_hb_norm_inf(h->b, nu);
        memcpy(y, h->yt, (size_t)nu * sizeof(double));
        *w = wt;
        h->newton++;
        /* with interfaces a fresh Jacobian every iteration: its (2H + 1) 3 AFTs cost less than the LU each
         * iteration does anyway, and Newton's convergence is then quadratic, not Broyden's linear */
        if (br_hb_norm_inf(h->R, nu) > 0.5 * r0 || h->s.nif > 0) h->jvalid = 0;
        if (getenv("BRISTLE_HBM_DEBUG"))
            fprintf(stderr, "newton %d: w %.12g |R_0| %.3e (tol %.3e) |R_k| %.3e (tol %.3e) step %.3e alpha %g\n", it, *w,
                    br_hb_norm_inf(h->R, h->s.nnl), h->ytol, br_hb_norm_inf(h->R + h->s.nnl, nu - h->s.nnl), h->ytol1, step, alpha);
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
    for (int r = 0; r < nu; r++) h->b[r] = 0.0;
    h->b[nu] = 1.0;
    if (h->kry) { /* the last row: along prev (scaled), or dw = 1 */
        for (int c = 0; c < nu; c++) h->dR[c] = prev ? prev[c] / ys : 0.0;
        char err[256];
        if (br_hb_kry_solve(h, h->Jw, h->dR, prev ? prev[nu] / ws : 1.0, h->b, err, sizeof err)) return -1;
    } else {
        for (int c = 0; c < nu; c++) memcpy(h->A + (size_t)c * na, h->J + (size_t)c * nu, (size_t)nu * sizeof(double));
        for (int r = 0; r < nu; r++) h->A[(size_t)nu * na + r] = h->Jw[r];
        for (int c = 0; c <= nu; c++) /* the last row: along prev (scaled), or dw = 1 */
            h->A[(size_t)c * na + nu] = prev ? prev[c] / (c < nu ? ys : ws) : (c == nu ? 1.0 : 0.0);
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, na, 1, h->A, na, h->piv, h->b, na) != 0) return -1;
    }
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
    /* or a structure's node, "STRUCTURE.LABEL.x" (structures given as matrices) */
    int snode = -1;
    const char *sdot = dot ? strchr(name, '.') : NULL;
    for (int k = 0; b < 0 && sdot && sdot < dot && k < m->nsup; k++) {
        const br_superel *S = &m->sup[k];
        if ((size_t)(sdot - name) != strlen(S->name) || strncmp(S->name, name, (size_t)(sdot - name))) continue;
        for (int q = 0; q < S->nnode; q++)
            if ((size_t)(dot - sdot - 1) == strlen(S->label[q]) && !strncmp(S->label[q], sdot + 1, (size_t)(dot - sdot - 1)))
                snode = h->s.st->node0[m->nbeam + k] + q;
    }
    if (axis < 0 || (b < 0 && snode < 0) || h->ncol >= HB_MAXCOL) {
        snprintf(err, errlen, "bristle hbm: --column %s: %s", name,
                 h->ncol >= HB_MAXCOL ? "too many columns"
                                      : "not a body's x, y or z (BODY.x), nor a structure node's (STRUCTURE.LABEL.x)");
        return -1;
    }
    hb_col *c = &h->col[h->ncol++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->n = 0;
    double coef[6] = {0};
    int dofs[6], nd = 0;
    if (snode >= 0) {
        if (h->s.st->dof[6 * snode + axis] >= 0) dofs[nd] = h->s.st->dof[6 * snode + axis], coef[nd++] = 1.0;
    } else if (m->body[b].part < 0) {
        if (h->s.bdof[3 * b + axis] >= 0) dofs[nd] = h->s.bdof[3 * b + axis], coef[nd++] = 1.0;
    } else { /* u + theta x offset of the node carrying it */
        const br_body *B = &m->body[b];
        const int node = h->s.st->node0[B->part] + B->node;
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
void br_hb_column_values(hb *h, const hb_col *c, double *row, double *arg1)
{
    const int nl = h->s.nnl, no = h->lin.nout, H = h->H;
    double complex Q[64 + 1];
    for (int k = 0; k <= H; k++) {
        double complex q = 0;
        for (int t = 0; t < c->n; t++) {
            const int o = c->idx[t];
            double complex v = (k == 0 ? 1.0 : h->lev) * h->lin.Xout[(size_t)k * no + o];
            for (int j = 0; j < nl; j++)
                v += h->lin.Hout[(size_t)k * no * nl + (size_t)j * no + o] * br_hb_force(h, h->ysol, k, j);
            for (int j = 0; k == 1 && j < h->lin.nsplit; j++) v += h->lin.sp[brm_so(&h->lin, j) + o] * h->lin.eta[j];
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

int br_hbm_row_width(const br_hbm *h) { return 2 + h->ncol * (h->H + 3) + 2 * h->s.m->nset; }

void br_hbm_counts(const br_hbm *h, long *newton, long *jacobians)
{
    *newton = h->newton, *jacobians = h->jacobians;
}

/* one point of the curve: values row (frequency, Newton iterations, then per column H + 3 values, per set W, then
 * per set the fewest points in contact at a sample) */
void br_hb_point_row(hb *h, double w, int its, double *row)
{
    int c = 0;
    row[c++] = w / (2 * M_PI);
    row[c++] = its;
    for (int k = 0; k < h->ncol; k++, c += h->H + 3) {
        double arg1;
        br_hb_column_values(h, &h->col[k], row + c, &arg1);
        row[c + h->H + 2] = arg1 * (180.0 / M_PI);
    }
    for (int s = 0; s < h->s.m->nset; s++) row[c++] = h->aft.W[s];
    for (int s = 0; s < h->s.m->nset; s++) row[c++] = (double)h->aft.nmin[s];
}

/* the header's names without the line's end */
void br_hb_header_names(const br_hbm *h, FILE *fp, const char *lead)
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
    br_hb_header_names(h, fp, lead);
    fprintf(fp, "\n");
}

/* --check's figures (f, P, harmonic balance's h1, the run's over its first and last period) -> "stays" (the
 * last period within 1 %) or "leaves"; the first period is reported beside them (within 0.03 % where the state is
 * stable, docs/hbm.md) */

void br_hbm_free(br_hbm *h)
{
    if (!h) return;
    br_hbm_aft_free(&h->aft);
    br_hbm_lin_free(&h->lin);
    br_hbm_sys_free(&h->s);
    free(h->G), free(h->R), free(h->Rt), free(h->J), free(h->Jw), free(h->A), free(h->b), free(h->yt), free(h->yp);
    free(h->piv), free(h->y), free(h->dR), free(h->ypk), free(h->ysol), free(h->D);
    br_hb_kry_free(h);
    for (int t = 0; t < h->ntw; t++) br_hbm_aft_free(&h->tw[t]);
    free(h->tw);
    free(h);
}

br_hbm *br_hbm_create(const br_model *m, const char *text, size_t len, int H, int N, int maxper, double tol,
                      int ncol, const char *const *cols, int *bad, char *err, size_t errlen)
{
    *bad = 0;
    openblas_set_num_threads(1); /* one thread: OpenBLAS's threaded factorizations round differently on different counts of
                                  * threads (the lap joint at 1 mm: 1e-8 apart on 1 and 2), where a run must be bitwise the same;
                                  * the threads go to the colored Jacobian's AFTs instead (hbm_jacobian.c) */
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
    const int nu = h->nu = h->aft.nu, nb = 2 * H + 1, nd = h->s.nnl_dof;
    h->G = malloc((size_t)(nu + 1) * sizeof(double)), h->R = malloc((size_t)(nu + 1) * sizeof(double));
    h->Rt = malloc((size_t)(nu + 1) * sizeof(double)), h->Jw = malloc((size_t)(nu + 1) * sizeof(double));
    h->b = malloc((size_t)(nu + 1) * sizeof(double)), h->yt = malloc((size_t)(nu + 1) * sizeof(double));
    h->yp = malloc((size_t)(nu + 1) * sizeof(double)), h->piv = malloc((size_t)(nu + 1) * sizeof(int));
    h->y = calloc((size_t)nu + 1, sizeof(double)), h->dR = malloc((size_t)(nu + 1) * sizeof(double));
    h->ypk = calloc((size_t)nu + 1, sizeof(double)), h->ysol = calloc((size_t)nu + 1, sizeof(double));
    if (h->s.nif > 0) h->D = calloc((size_t)nd * nb * nd * nb + (size_t)(h->s.nif / 3) * 9 * nb * nb + 1, sizeof(double));
    if (!h->ysol || !h->ypk || !h->dR || !h->G || !h->R || !h->Rt || !h->Jw || !h->b || !h->yt || !h->yp || !h->piv || !h->y ||
        (h->s.nif > 0 && !h->D) || br_hbm_set_linear_solver(h, BR_HBM_SOLVER_AUTO)) {
        snprintf(err, errlen, "hbm: out of memory");
        br_hbm_free(h);
        return NULL;
    }
    return h;
}

int br_hbm_set_linear_solver(br_hbm *h, int solver)
{
    const int kry = h->s.nif > 0 && (solver == BR_HBM_SOLVER_KRYLOV || (solver == BR_HBM_SOLVER_AUTO && h->nu >= BR_HBM_KRYLOV_MIN));
    const size_t nu = (size_t)h->nu;
    h->kry = kry, h->lin.lazy = kry;
    h->jvalid = 0, h->lin.w = 0.0, h->lin.have2 = 0; /* the linear part evaluated afresh, its blocks as the solver needs */
    if (kry) {
        free(h->J), free(h->A);
        h->J = h->A = NULL;
        return h->kr || br_hb_kry_alloc(h) == 0 ? 0 : -1;
    }
    br_hb_kry_free(h);
    if (!h->J) h->J = malloc(nu * nu * sizeof(double) + 8);
    if (!h->A) h->A = malloc((nu + 1) * (nu + 1) * sizeof(double));
    return h->J && h->A ? 0 : -1;
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

/* h (deforming interfaces), y -> y set to the linear response at l's frequency of the structure with every interface
 * point bonded (hbm.h, kb) at every harmonic: the response where nothing slips or opens; 0, or -1 (singular) */
int br_hb_bonded_guess(hb *h, double *y)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof, nl = s->nnl;
    const double w = h->lin.w;
    double complex *Z = h->lin.Z, *q = h->lin.B;
    for (int k = 0; k <= h->H; k++) {
        br_hbm_dynamic_stiffness(s, k * w, 1, Z);
        for (int a = 0; a < n; a++) q[a] = k == 0 ? s->f0[a] : k == 1 ? h->lev * (s->fc[a] - I * s->fs[a]) : 0.0;
        if (LAPACKE_zgesv(LAPACK_COL_MAJOR, n, 1, Z, n, h->lin.piv, q, n) != 0) return -1;
        for (int i = 0; i < nl; i++) {
            const double complex v = br_hbm_coord(s, i, q);
            if (k == 0) y[i] = creal(v);
            else y[(2 * k - 1) * nl + i] = creal(v), y[2 * k * nl + i] = cimag(v);
        }
    }
    return 0;
}

static int curve(hb *h, double p0, double p1, int points, double lead, int progress, br_hbm_rows *r, char *warning, size_t wlen,
                 char *err, size_t errlen);

/* the continuation's parameter p, from_linear -> Newton at p (as br_hbm_point); iterations, -1 or -2 */
static int point_at(hb *h, double p, int from_linear, char *err, size_t errlen)
{
    if (br_hb_set_param(h, p, err, errlen)) return -2;
    /* from the last solution, or the linear response without contacts, or (when Newton fails from that,
     * far from a response the contacts stiffen) its static part alone, whose first step is the response
     * linearized about the static state */
    int its = -1;
    h->jvalid = 0;
    /* with deforming interfaces first the response of the interface bonded (the structure without its interface
     * may be free; the lap joint's upper plate is), then as without them */
    const int last = h->s.nif > 0 ? 3 : 2;
    for (int attempt = from_linear || !h->have ? 1 : 0; attempt <= last && its == -1; attempt++) {
        /* the scale of the tolerance: the solution's size, or the linear response's for a fresh start */
        const int a = attempt - (last - 2); /* 0: bonded, 1: the linear response, 2: its static part */
        if (attempt > 0 && !(a == 0 && br_hb_bonded_guess(h, h->y) == 0)) linear_guess(h, h->y, 0);
        const double ys = fmax(br_hb_norm_inf(h->y, h->nu), 1e-300);
        br_hb_set_tolerances(h, h->y);
        if (a == 2) linear_guess(h, h->y, 1);
        double q = p;
        /* from the last solution 40 iterations, from the linear guess 25; from the static part alone the first
         * steps are damped by the line search (the mistuned S2 bundle at 53.3 Hz: about 35 at a half to an
         * eighth, then Newton's convergence; 41 in all with AVX2's OpenBLAS): 80 */
        its = br_hb_newton(h, h->y, &q, NULL, NULL, 0, ys, p, a == 2 ? 80 : attempt == 0 ? 40 : 25, err, errlen);
    }
    /* last, at a frequency, the homotopy in the excitation level: from a thousandth of it (the contacts stuck, the
     * response their linearization's, where Newton converges from the guesses above) up to the level by the
     * continuation in the level at this frequency, then Newton at it from there. A start from the linear response
     * may have no basin to speak of: the rigid lugre3d pad of tests/test_interface.c at 8 Hz, its second harmonic at
     * the free structure's undamped 15.9 Hz, wandered for 25 iterations (and converged after 20 more by the rounding
     * of one BLAS kernel only) */
    if (its == -1 && !h->plevel && h->lev > 0.0) {
        const double lev = h->lev;
        br_hbm_rows r;
        memset(&r, 0, sizeof r);
        char warn[512];
        *err = 0;
        h->plevel = 1, h->wfix = p;
        const int crc = curve(h, 1e-3 * lev, lev, 50, 0.0, 0, &r, warn, sizeof warn, err, errlen);
        h->plevel = 0, h->lev = lev;
        free(r.v), free(r.sol);
        if (crc == -2) return -2;
        if (crc == 0) {
            double q = p;
            h->jvalid = 0;
            its = br_hb_set_param(h, p, err, errlen) ? -2
                                                     : br_hb_newton(h, h->y, &q, NULL, NULL, 0, fmax(br_hb_norm_inf(h->y, h->nu), 1e-300), p, 25,
                                                                    err, errlen);
        } else if (!*err) snprintf(err, errlen, "the homotopy in the excitation level stopped: %.400s", warn);
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

void br_hbm_column(br_hbm *h, int c, double *row, double *arg1) { br_hb_column_values(h, &h->col[c], row, arg1); }

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
    double w = h->w, ys = fmax(br_hb_norm_inf(y, nu), 1e-300);
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
        br_hb_point_row(h, wf, its, r->v + r->n * width + lc);
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
        ys = fmax(br_hb_norm_inf(y, nu), ys * 1e-3);
        br_hb_set_tolerances(h, y);
        /* the tangent at this point: from the Jacobian Newton ended with (Broyden-updated) while it still
         * converged well, with dR/dw afresh (one evaluation), else from a fresh one */
        int reused = h->jvalid;
        if (reused ? br_hb_jacobian_w(h, y, w, err, errlen) : br_hb_jacobian(h, y, w, h->J, h->Jw, err, errlen)) {
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
                if (br_hb_jacobian(h, y, w, h->J, h->Jw, err, errlen)) {
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
            if (natural && br_hb_set_param(h, w, err, errlen)) its = -2;
            else its = natural ? br_hb_newton(h, y, &w, NULL, NULL, 0, ys, ws, 16, err, errlen)
                               : br_hb_newton(h, y, &w, tau, yp, wp, ys, ws, 16, err, errlen);
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
                    if (br_hb_residual(h, y, w, h->R, err, errlen) ||
                        br_hb_jacobian(h, y, w, h->J, h->Jw, err, errlen)) {
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
                its = br_hb_set_param(h, w, err, errlen) ? -2 : br_hb_newton(h, y, &w, NULL, NULL, 0, ys, ws, 16, err, errlen);
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
