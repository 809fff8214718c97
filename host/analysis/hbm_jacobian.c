/* hbm_jacobian.c: the Newton matrix of harmonic balance by forward differences (in: the solver at unknowns y and
 * frequency w, its residual there; out: J = dR/dy formed, or with deforming interfaces the contact forces' Jacobian
 * per point, h->D, which the dense path forms J from and the Krylov path applies; dR/dw). docs/hbm.md, "Newton". */
#include <complex.h>

#include "analysis/hbm_internal.h"
#include "base/outdir.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y, parameter p (R at them in h->R) -> Jw = dR/dp by a forward difference; 0 or -1 */
int br_hb_jacobian_w(hb *h, const double *y, double p, char *err, size_t errlen)
{
    const double dp = 1e-7 * p;
    if (br_hb_residual(h, y, p + dp, h->Rt, err, errlen)) return -1;
    for (int r = 0; r < h->nu; r++) h->Jw[r] = (h->Rt[r] - h->R[r]) / dp;
    return br_hb_set_param(h, p, err, errlen);
}

/* solver -> its threads' AFTs (h->tw: one per OpenMP thread outside a parallel region, made once); their count, 1 when
 * one thread (or out of memory: the solver's own AFT serves) */
static int thread_afts(hb *h)
{
    const int T = omp_in_parallel() ? 1 : omp_get_max_threads();
    if (T < 2) return 1;
    if (h->ntw >= T) return T;
    br_hbm_aft *tw = realloc(h->tw, (size_t)T * sizeof *tw);
    if (!tw) return h->ntw > 1 ? h->ntw : 1;
    h->tw = tw;
    for (int t = h->ntw; t < T; t++) {
        char e[256];
        if (br_hbm_aft_init(&h->s, h->H, h->N, h->aft.ramp, h->aft.maxper, h->aft.ptol, &h->tw[t], e, sizeof e)) break;
        h->ntw = t + 1;
    }
    return h->ntw > 1 ? h->ntw : 1;
}

/* With deforming interfaces each point's forces depend on its own three coordinates only: one AFT perturbs a
 * column of every point at once (and one of the DOF coordinates), and the change is told apart by where it
 * falls. y, frequency w [rad/s] (G at them in h->G), scale of the differences -> h->D, the contact forces'
 * Jacobian block by block (hb_block), by forward differences over (2H + 1) max(nnl_dof, 3) AFTs, the colors on threads (each its own AFT:
 * every color's result is the same on any count of threads); at harmonic 0 an interface coordinate's entry holds
 * its bond stiffness kb too (br_hb_force) */
static int jacobian_blocks(hb *h, const double *y, double w, double scale, char *err, size_t errlen)
{
    const br_hbm_sys *s = &h->s;
    const int nu = h->nu, nl = s->nnl, nd = s->nnl_dof, nb = 2 * h->H + 1, slots = nd > 3 ? nd : 3, ncolor = nb * slots;
    const double d = 1e-7 * scale;
    const int T = thread_afts(h);
    double *G0 = malloc((size_t)nu * sizeof(double)), *buf = malloc((size_t)2 * T * nu * sizeof(double));
    if (!G0 || !buf) {
        free(G0), free(buf);
        snprintf(err, errlen, "hbm: out of memory");
        return -1;
    }
    memcpy(G0, h->G, (size_t)nu * sizeof(double));
    /* the perturbed oscillations' marches start from y's periodic state when the field holds it (the residual at y was
     * the last evaluation), so that a slowly repeating state takes the periods of a start 1e-7 away, not from rest;
     * the mean's colors from rest (a mean the ramp brings in may slip on the way, which a step from the periodic
     * state does not repeat) */
    const int warm = !getenv("BRISTLE_HBM_NOWARM") && br_hbm_aft_save_warm(&h->aft, y, w);
    int rc = 0, ecol = -1;
    char terr[2048] = "";
#pragma omp parallel for schedule(dynamic, 1) num_threads(T) if (T > 1)
    for (int col = 0; col < ncolor; col++) {
        int failed;
#pragma omp atomic read
        failed = rc;
        if (failed) continue;
        const int b = col / slots, sl = col % slots, t = T > 1 ? omp_get_thread_num() : 0;
        br_hbm_aft *a = T > 1 ? &h->tw[t] : &h->aft;
        double *yt = buf + (size_t)2 * t * nu, *dG = yt + nu;
        /* the color (block b, slot sl): DOF coordinate sl, and every interface point's component sl */
        memcpy(yt, y, (size_t)nu * sizeof(double));
        int any = 0;
        for (int i = 0; i < nl; i++)
            if (i < nd ? i == sl : (i - nd) % 3 == sl) yt[(size_t)b * nl + i] += d, any = 1;
        if (!any) continue;
        char e[2048] = "";
        if (warm && b > 0 ? br_hbm_aft_eval_warm(a, h->aft.warm0, yt, w, dG, e, sizeof e) : br_hbm_aft_eval(a, yt, w, dG, e, sizeof e)) {
#pragma omp critical(hbm_jacobian_error)
            if (ecol < 0 || col < ecol) { /* the lowest failed color's message (running colors may fail too) */
                ecol = col, snprintf(terr, sizeof terr, "%s", e);
#pragma omp atomic write
                rc = -1;
            }
            continue;
        }
        for (int q = 0; q < nu; q++) dG[q] = (dG[q] - G0[q]) / d;
        for (int i = 0; i < nl; i++) {
            if (i < nd ? i != sl : (i - nd) % 3 != sl) continue;
            /* column (b, i) of i's block; the coordinates its change falls on: the DOF ones, or its point's three */
            int c0, sz;
            double *Db = hb_block(h, i, &c0, &sz) + (size_t)(b * sz + i - c0) * sz * nb;
            for (int bb = 0; bb < nb; bb++)
                for (int j = c0; j < c0 + sz; j++)
                    Db[bb * sz + j - c0] = dG[(size_t)bb * nl + j] + (bb == 0 && b == 0 && j == i && i >= nd ? s->kb[i - nd] : 0.0);
        }
    }
    for (int t = 0; T > 1 && t < T; t++) br_hbm_aft_merge_counts(&h->aft, &h->tw[t]);
    if (rc) snprintf(err, errlen, "%s", terr);
    memcpy(h->G, G0, (size_t)nu * sizeof(double));
    free(G0), free(buf);
    return rc;
}

/* h->D -> J = dR/dy: column c of J = e_c - H dG/dy_c with H the receptance in real form */
static void jacobian_dense(hb *h, double *J)
{
    const int nu = h->nu, nl = h->s.nnl, nb = 2 * h->H + 1;
    memset(J, 0, (size_t)nu * nu * sizeof(double));
    for (int c = 0; c < nu; c++) J[(size_t)c * nu + c] = 1.0;
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < nl; i++) {
            const int c = b * nl + i;
            int j0, sz;
            const double *Db = hb_block(h, i, &j0, &sz) + (size_t)(b * sz + i - j0) * sz * nb;
            double *Jc = J + (size_t)c * nu;
            for (int bb = 0; bb < nb; bb++)
                for (int j = j0; j < j0 + sz; j++) {
                    const double v = Db[bb * sz + j - j0];
                    if (v == 0.0) continue;
                    const int k = (bb + 1) / 2; /* block bb: harmonic k's real (odd bb) or imaginary part */
                    const double complex *Hk = h->lin.Hnl + (size_t)k * nl * nl + (size_t)j * nl;
                    if (k == 0)
                        for (int r = 0; r < nl; r++) Jc[r] -= creal(Hk[r]) * v;
                    else if (bb % 2) /* dG_k = v: dR_re = -Re(H v), dR_im = -Im(H v) */
                        for (int r = 0; r < nl; r++) Jc[(2 * k - 1) * nl + r] -= creal(Hk[r]) * v, Jc[2 * k * nl + r] -= cimag(Hk[r]) * v;
                    else /* dG_k = i v */
                        for (int r = 0; r < nl; r++) Jc[(2 * k - 1) * nl + r] += cimag(Hk[r]) * v, Jc[2 * k * nl + r] -= creal(Hk[r]) * v;
                }
        }
}

/* y, the continuation's parameter w (a frequency, or the level: R at them in h->R) -> J = dR/dy (and Jw = dR/dw if
 * Jw) by forward differences */
static int jacobian(hb *h, const double *y, double w, double *J, double *Jw, char *err, size_t errlen);

int br_hb_jacobian(hb *h, const double *y, double w, double *J, double *Jw, char *err, size_t errlen)
{
    const double t0 = br_wall_seconds(), r0 = h->wall_res;
    const int rc = jacobian(h, y, w, J, Jw, err, errlen);
    h->wall_jac += br_wall_seconds() - t0 - (h->wall_res - r0); /* (its residuals counted as the Jacobian's) */
    h->wall_res = r0;
    return rc;
}

static int jacobian(hb *h, const double *y, double w, double *J, double *Jw, char *err, size_t errlen)
{
    const int nu = h->nu;
    const double scale = fmax(br_hb_norm_inf(y, nu), h->ytol * 1e6);
    if (h->s.nif > 0) {
        if (jacobian_blocks(h, y, br_hb_frequency(h, w), scale, err, errlen) || (Jw && br_hb_jacobian_w(h, y, w, err, errlen))) return -1;
        if (h->Jq) br_hb_ell_values(h, h->ellv), br_hb_ell_blocks(h);
        if (h->kry ? br_hb_kry_precondition(h, err, errlen) : (jacobian_dense(h, J), 0)) return -1;
        h->jacobians++;
        return 0;
    }
    memcpy(h->yt, y, (size_t)nu * sizeof(double));
    if (h->Jq) br_hb_ell_values(h, h->ellv); /* h->G is y's */
    for (int i = 0; i < nu; i++) {
        const double d = 1e-7 * scale;
        h->yt[i] = y[i] + d;
        if (br_hb_residual(h, h->yt, w, h->Rt, err, errlen)) return -1;
        for (int r = 0; r < nu; r++) J[(size_t)i * nu + r] = (h->Rt[r] - h->R[r]) / d;
        if (h->Jq) {
            double complex v[HB_MAXELL];
            br_hb_ell_values(h, v);
            for (int r = 0; r < h->nell; r++) h->Jq[(size_t)r * nu + i] = (v[r] - h->ellv[r]) / d;
        }
        h->yt[i] = y[i];
    }
    if (Jw && br_hb_jacobian_w(h, y, w, err, errlen)) return -1;
    h->jacobians++;
    return 0;
}

