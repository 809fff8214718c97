/* hbm_split.c: harmonic 1 of the linear part split along undamped modes, for nonlinear modes (in: the linear part
 * with its modes, the split modes; out: harmonic 1's blocks without them, what their coordinates eta add, their modal
 * equations' coefficients, the first harmonic's mass-weighted norm and the DOFs' first harmonic). hbm.h, br_hbm_lin's
 * split; docs/hbm.md, "Nonlinear modes". */
#include <complex.h>

#include "analysis/hbm.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int br_hbm_lin_split(const br_hbm_sys *s, br_hbm_lin *l, int ns, const int *idx)
{
    const size_t n = (size_t)s->ndof;
    free(l->split), free(l->eta), free(l->sp), free(l->sp2), free(l->Lm), free(l->Zb), free(l->Bb), free(l->pivb);
    l->split = NULL, l->eta = NULL, l->sp = l->sp2 = NULL, l->Lm = NULL, l->Zb = l->Bb = NULL, l->pivb = NULL;
    l->nsplit = 0, l->w = 0.0, l->have2 = 0; /* the blocks evaluated afresh */
    if (ns <= 0) return 0;
    l->split = malloc((size_t)ns * sizeof(int)), l->eta = calloc((size_t)ns, sizeof(double complex));
    if (!l->split || !l->eta) return -1;
    memcpy(l->split, idx, (size_t)ns * sizeof(int));
    l->nsplit = ns;
    const size_t len = brm_qg(l) + (l->modal ? 0 : n * (size_t)l->nnl);
    l->sp = calloc(len, sizeof(double complex)), l->sp2 = calloc(len, sizeof(double complex));
    if (!l->sp || !l->sp2) return -1;
    if (l->modal) return 0;
    const size_t n1 = n + (size_t)ns, nrhs = (size_t)l->nnl + (size_t)l->nout + 1 + (size_t)ns;
    l->Lm = malloc(n * n * sizeof(double)), l->Zb = malloc(n1 * n1 * sizeof(double complex));
    l->Bb = malloc(n1 * nrhs * sizeof(double complex)), l->pivb = malloc(n1 * sizeof(int));
    if (!l->Lm || !l->Zb || !l->Bb || !l->pivb) return -1;
    memcpy(l->Lm, s->M, n * n * sizeof(double));
    if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)n, l->Lm, (int)n) != 0) return -2; /* (M is: its modes were computed) */
    for (size_t c = 0; c < n; c++)
        for (size_t r = 0; r < c; r++) l->Lm[c * n + r] = 0.0;
    return 0;
}

/* (hbm.h) the modal path: every coefficient from the modes */
void br_hbm_lin_split_modal(const br_hbm_sys *s, br_hbm_lin *l)
{
    const int n = s->ndof, nl = s->nnl, no = l->nout, ns = l->nsplit;
    double complex *sp = l->sp;
    for (int j = 0; j < ns; j++) {
        const int m = l->split[j];
        for (int i = 0; i < nl; i++) sp[brm_sn(l, j) + i] = sp[brm_mg(l, j) + i] = l->P[(size_t)m * nl + i];
        for (int o = 0; o < no; o++) sp[brm_so(l, j) + o] = l->Po[(size_t)m * no + o];
        for (int i = 0; i < ns; i++) sp[brm_me(l, j) + i] = i == j ? -br_hbm_lin_modal_d(l, 1, m) : 0.0;
        sp[brm_mf(l) + j] = l->fcm[m] - I * l->fsm[m];
        for (int a = 0; a < n; a++) sp[brm_qe(l, j) + a] = 0.0;
    }
    for (int m = 0; m < n; m++) sp[brm_wd(l) + m] = br_hbm_lin_is_split(l, m) ? 0.0 : 1.0 / br_hbm_lin_modal_d(l, 1, m);
}

/* (hbm.h) the LU path: one bordered factorization of order ndof + nsplit */
int br_hbm_lin_split_lu(const br_hbm_sys *s, br_hbm_lin *l, const double complex *Z)
{
    const int n = s->ndof, nl = s->nnl, no = l->nout, ns = l->nsplit, n1 = n + ns, nrhs = nl + no + 1 + ns;
    double complex *Zb = l->Zb, *B = l->Bb, *sp = l->sp;
    for (int c = 0; c < n; c++) memcpy(Zb + (size_t)c * n1, Z + (size_t)c * n, (size_t)n * sizeof(double complex));
    for (int j = 0; j < ns; j++) {
        const double *phi = l->Phi + (size_t)l->split[j] * n;
        for (int c = 0; c < n; c++) {
            double mp = 0.0; /* (M phi_j)_c */
            for (int r = 0; r < n; r++) mp += s->M[(size_t)c * n + r] * phi[r];
            Zb[(size_t)c * n1 + n + j] = mp, Zb[(size_t)(n + j) * n1 + c] = mp;
        }
        for (int i = 0; i < ns; i++) Zb[(size_t)(n + i) * n1 + n + j] = 0.0;
    }
    memset(B, 0, (size_t)n1 * nrhs * sizeof(double complex));
    for (int j = 0; j < nl; j++) br_hbm_coord_add(s, j, 1.0, B + (size_t)j * n1);
    for (int j = 0; j < no; j++) B[(size_t)(nl + j) * n1 + l->out[j]] = 1.0;
    double complex *F = B + (size_t)(nl + no) * n1, *E = F + n1;
    for (int a = 0; a < n; a++) F[a] = s->fc[a] - I * s->fs[a];
    for (int j = 0; j < ns; j++) {
        const double *phi = l->Phi + (size_t)l->split[j] * n;
        for (int a = 0; a < n; a++) {
            double complex zp = 0.0;
            for (int b = 0; b < n; b++) zp += Z[(size_t)b * n + a] * phi[b];
            E[(size_t)j * n1 + a] = -zp;
        }
    }
    if (LAPACKE_zgesv(LAPACK_COL_MAJOR, n1, nrhs, Zb, n1, l->pivb, B, n1) != 0) return -1;
    double complex *Hk = l->Hnl + (size_t)nl * nl, *Ho = l->Hout + (size_t)no * nl;
    for (int j = 0; j < nl; j++) {
        const double complex *col = B + (size_t)j * n1;
        for (int i = 0; i < nl; i++) Hk[(size_t)j * nl + i] = br_hbm_coord(s, i, col);
        for (int o = 0; o < no; o++) Ho[(size_t)j * no + o] = col[l->out[o]];
        for (int i = 0; i < ns; i++) sp[brm_mg(l, i) + j] = col[n + i];
        memcpy(sp + brm_qg(l) + (size_t)j * n, col, (size_t)n * sizeof(double complex));
    }
    for (int i = 0; i < nl; i++) l->Xnl[(size_t)nl + i] = br_hbm_coord(s, i, F);
    for (int o = 0; o < no; o++) l->Xout[(size_t)no + o] = F[l->out[o]];
    for (int j = 0; j < ns; j++) {
        double complex *Ej = E + (size_t)j * n1;
        const double *phi = l->Phi + (size_t)l->split[j] * n;
        for (int a = 0; a < n; a++) sp[brm_qe(l, j) + a] = Ej[a], Ej[a] += phi[a]; /* eta_j's Q', then phi_j + Q' */
        for (int i = 0; i < nl; i++) sp[brm_sn(l, j) + i] = br_hbm_coord(s, i, Ej);
        for (int o = 0; o < no; o++) sp[brm_so(l, j) + o] = Ej[l->out[o]];
        for (int i = 0; i < ns; i++) sp[brm_me(l, i) + j] = Ej[n + i];
        sp[brm_mf(l) + j] = F[n + j];
    }
    return 0;
}

/* system, l split at its blocks, G_1, eta -> u (ndof): the coordinates in which |u| is Q''s M-norm (the modal path:
 * Wd .* (P^T G_1); the LU path: Lm^T (Qg G_1 + Qe eta)) */
static void split_u(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *G1, const double complex *eta,
                    double complex *u, double complex *v)
{
    const int n = s->ndof, nl = s->nnl;
    const double complex *sp = l->sp, *Wd = sp + brm_wd(l), *Qg = sp + brm_qg(l);
    if (l->modal) {
        for (int m = 0; m < n; m++) {
            double complex g = 0.0;
            const double *Pm = l->P + (size_t)m * nl;
            if (Wd[m] != 0.0)
                for (int i = 0; i < nl; i++) g += Pm[i] * G1[i];
            u[m] = Wd[m] * g;
        }
        return;
    }
    for (int a = 0; a < n; a++) v[a] = 0.0;
    for (int j = 0; j < l->nsplit; j++)
        for (int a = 0; a < n; a++) v[a] += sp[brm_qe(l, j) + a] * eta[j];
    for (int j = 0; j < nl; j++)
        for (int a = 0; a < n; a++) v[a] += Qg[(size_t)j * n + a] * G1[j];
    for (int c = 0; c < n; c++) {
        double complex q = 0.0;
        for (int r = c; r < n; r++) q += l->Lm[(size_t)c * n + r] * v[r];
        u[c] = q;
    }
}

double br_hbm_lin_split_amplitude(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *G1, const double complex *eta,
                                  double complex *ell, double *dre, double *dim)
{
    const int n = s->ndof, nl = s->nnl, ns = l->nsplit;
    const double complex *sp = l->sp, *Wd = sp + brm_wd(l), *Qg = sp + brm_qg(l);
    double complex *u = malloc((size_t)2 * n * sizeof(double complex)), *v = u ? u + n : NULL;
    if (!u) return NAN; /* (kB; the backbone's Newton then fails on its own) */
    split_u(s, l, G1, eta, u, v);
    double a2 = 0.0;
    for (int j = 0; j < ns; j++) a2 += creal(eta[j]) * creal(eta[j]) + cimag(eta[j]) * cimag(eta[j]);
    for (int m = 0; m < n; m++) a2 += creal(u[m]) * creal(u[m]) + cimag(u[m]) * cimag(u[m]);
    const double A = sqrt(a2);
    if (ell) { /* d|u|^2 = 2 Re(conj(u)^T du) */
        for (int i = 0; i < nl; i++) ell[i] = 0.0;
        for (int j = 0; j < ns; j++) dre[j] = creal(eta[j]) / A, dim[j] = cimag(eta[j]) / A;
        if (l->modal) {
            for (int m = 0; m < n; m++) {
                const double complex c = conj(u[m]) * Wd[m] / A;
                if (c == 0.0) continue;
                const double *Pm = l->P + (size_t)m * nl;
                for (int i = 0; i < nl; i++) ell[i] += c * Pm[i];
            }
        } else { /* v = Lm conj(u): ell = Qg^T v / A; eta_j: c_j = v^T Qe_j, dRe += Re c_j / A, dIm += -Im c_j / A */
            for (int r = 0; r < n; r++) {
                double complex q = 0.0;
                for (int c = 0; c <= r; c++) q += l->Lm[(size_t)c * n + r] * conj(u[c]);
                v[r] = q;
            }
            for (int j = 0; j < ns; j++) {
                double complex c = 0.0;
                for (int a = 0; a < n; a++) c += v[a] * sp[brm_qe(l, j) + a];
                dre[j] += creal(c) / A, dim[j] -= cimag(c) / A;
            }
            for (int j = 0; j < nl; j++) {
                double complex q = 0.0;
                for (int a = 0; a < n; a++) q += v[a] * Qg[(size_t)j * n + a];
                ell[j] = q / A;
            }
        }
    }
    free(u);
    return A;
}

void br_hbm_lin_split_q1(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *G1, const double complex *eta,
                         double complex *q)
{
    const int n = s->ndof, nl = s->nnl;
    const double complex *sp = l->sp, *Wd = sp + brm_wd(l), *Qg = sp + brm_qg(l);
    for (int a = 0; a < n; a++) q[a] = 0.0;
    for (int j = 0; j < l->nsplit; j++) {
        const double *phi = l->Phi + (size_t)l->split[j] * n;
        for (int a = 0; a < n; a++) q[a] += eta[j] * (phi[a] + (l->modal ? 0.0 : sp[brm_qe(l, j) + a]));
    }
    if (l->modal) {
        for (int m = 0; m < n; m++) {
            if (Wd[m] == 0.0) continue;
            double complex g = 0.0;
            const double *Pm = l->P + (size_t)m * nl, *Phm = l->Phi + (size_t)m * n;
            for (int i = 0; i < nl; i++) g += Pm[i] * G1[i];
            g *= Wd[m];
            for (int a = 0; a < n; a++) q[a] += Phm[a] * g;
        }
        return;
    }
    for (int j = 0; j < nl; j++)
        for (int a = 0; a < n; a++) q[a] += Qg[(size_t)j * n + a] * G1[j];
}
