/* hbm_internal.h: the harmonic balance solver's state (struct br_hbm) and what its files share (in:
 * the solver; out: the continuation's parameter, columns, the curve's checks). Private to
 * analysis/hbm*.c. */
#ifndef BR_HBM_INTERNAL_H
#define BR_HBM_INTERNAL_H

#include "analysis/hbm.h"
#include "step/sim.h"

#define HB_MAXCOL 64
#define HB_MAXLEV 32
#define HB_MAXSPLIT BR_HBM_MAXSPLIT /* the modes harmonic 1 of a nonlinear mode is split along, at most (hbm_mode.c) */
#define HB_MAXELL (HB_MAXSPLIT + 1)

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
    double *ysol;   /* the unknowns h->G was evaluated at */
    double *dR;     /* Broyden's residual of the secant condition */
    int *piv;
    long newton, jacobians, broyden, turned_back;
    double wall_res, wall_jac, wall_lin; /* wall seconds in the residuals, the Jacobians, the linear solves (backbones) */
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
    /* with deforming interfaces, the contact forces' Jacobian dG/dy block by block (each point's forces depend on
     * its own coordinates only): the DOF coordinates' block ((2H + 1) nnl_dof square) if there are any, then
     * per interface point its three coordinates' ((2H + 1) 3 square); column-major, the row or column of
     * harmonic block b (0: the mean, 2k - 1: Re of harmonic k, 2k: Im) and coordinate j of the block at b sz + j */
    double *D;
    /* nonlinear modes (hbm_mode.c): nell complex linear functionals of the contact forces' first harmonic,
     * L_r = ell_r^T G_1 (ell: nell rows of nnl), their values where a Jacobian is taken (ellv) and their derivatives
     * in the unknowns there (Jq: nell rows of nu; NULL outside a backbone), which the Jacobians fill */
    int nell;
    double complex *ell, ellv[HB_MAXELL], *Jq;
    br_hbm_aft *tw; /* the colored Jacobian's AFTs on threads: one per thread (ntw), made at its first use */
    int ntw;
    int kry;        /* 1: the Newton matrix J = I - H D is applied, not formed: GMRES (hbm_krylov.c) */
    struct hb_kry *kr;
};
typedef struct br_hbm hb;

/* hbm.c's steps that the backbone (hbm_mode.c) shares */
double br_hb_norm_inf(const double *x, int n);
void br_hb_set_tolerances(hb *h, const double *y);
/* y, w (R at them in h->R, G in h->G) -> J = dR/dy (and Jw = dR/dw if Jw) by forward differences: with deforming
 * interfaces from the point blocks h->D (colored, hbm_jacobian.c), which the Krylov path keeps instead of J */
int br_hb_jacobian(hb *h, const double *y, double w, double *J, double *Jw, char *err, size_t errlen);
/* y, parameter p (R at them in h->R) -> h->Jw = dR/dp by a forward difference; 0 or -1 */
int br_hb_jacobian_w(hb *h, const double *y, double p, char *err, size_t errlen);
int br_hb_newton(hb *h, double *y, double *w, const double *tau, const double *yp, double wp, double ys, double ws,
                 int maxit, char *err, size_t errlen);
void br_hb_point_row(hb *h, double w, int its, double *row);
int br_hb_bonded_guess(hb *h, double *y);

/* solver, backbone bb, point p -> the solver at p's state: split as the backbone was, its xi, eta, y and w, the harmonic
 * loads off, the residual (and the AFT's states) evaluated there; 0, or -1 with err. br_hbm_bb_release: back to the
 * forced response (the loads at level 1, no split) */
int br_hbm_bb_restore(hb *h, const br_hbm_bb *bb, long p, char *err, size_t errlen);
void br_hbm_bb_release(hb *h);

/* `bristle hbm --mode K`'s options (hbm_cmd.c parses them) */
typedef struct hb_mode_opts {
    const char *scen, *out;
    long mode, points, ring_periods;
    double a0, a1;
    double ring[HB_MAXLEV], snap[HB_MAXLEV]; /* --ringdown A,...: ring-downs from these amplitudes; --snapshots A,... */
    int nring, nsnap, quiet;
} hb_mode_opts;

/* solver, model, options -> the backbone, its ring-downs and snapshots in the output folder (hbm_mode_cmd.c); the
 * exit status */
int br_hb_mode_main(hb *h, br_model *m, const hb_mode_opts *o);

/* solver after a residual (h->G) -> v (nell): the functionals L_r = ell_r^T G_1 there */
void br_hb_ell_values(const hb *h, double complex *v);

/* solver with h->D (deforming interfaces) -> h->Jq from its blocks */
void br_hb_ell_blocks(hb *h);

/* solver, nonlinear coordinate i -> its block of h->D (its first coordinate c0, its size sz: nnl_dof or 3) */
static inline double *hb_block(const hb *h, int i, int *c0, int *sz)
{
    const int nd = h->s.nnl_dof, nb = 2 * h->H + 1;
    const size_t dof = (size_t)nd * nb * nd * nb, pt = (size_t)9 * nb * nb;
    if (i < nd) return *c0 = 0, *sz = nd, h->D;
    return *c0 = i - (i - nd) % 3, *sz = 3, h->D + dof + (size_t)((i - nd) / 3) * pt;
}

/* Newton-Krylov for deforming interfaces (hbm_krylov.c). The Newton matrix J = I - H D (H the receptance per
 * harmonic, D = h->D) bordered, on the arclength, by the column Jw = dR/dw and the row (c, cw), is solved by GMRES
 * (restarted, right-preconditioned) from its products alone: D per point, H by br_hbm_lin_apply. The preconditioner
 * is J with each point's D cut to its harmonic-diagonal part (the part of each harmonic's 3 x 3 block that is
 * complex-linear), I - H_k d_k per harmonic k, LU-factored (nnl square, complex) where the Jacobian is taken. */

/* solver -> its Krylov workspace allocated (h->kr); 0 or -1 (out of memory) */
int br_hb_kry_alloc(hb *h);
void br_hb_kry_free(hb *h);

/* solver with h->D and the linear part at its frequency -> the preconditioner's factors; 0, or -1 with err */
int br_hb_kry_precondition(hb *h, char *err, size_t errlen);

/* solver, jw (nu, or NULL: no border), the border's row c (nu) and corner cw, b (nu, + 1 with the border) -> b
 * overwritten by the solution of [J jw; c^T cw] x = b; 0, or -1 with err (GMRES did not reach its tolerance) */
int br_hb_kry_solve(hb *h, const double *jw, const double *c, double cw, double *b, char *err, size_t errlen);

/* a border of p (at most HB_MAXBORDER) columns Bc (nu x p, column-major), rows Br (row q at Br + q nu) and corner Bx
 * (p x p, column-major) */
#define HB_MAXBORDER (2 * HB_MAXSPLIT + 1)
typedef struct hb_border {
    int p;
    const double *Bc, *Br, *Bx;
} hb_border;

/* solver, border (NULL: none), b (nu + p) -> b overwritten by the solution of [J Bc; Br Bx] x = b (the preconditioner
 * [P Bc; Br Bx] by its block factors); 0, or -1 with err */
int br_hb_kry_solve_border(hb *h, const hb_border *bd, double *b, char *err, size_t errlen);

/* y, parameter p (the linear part at p) -> R by br_hbm_lin_apply (the Krylov path's residual) */
int br_hb_kry_residual(hb *h, const double *y, double *R);

/* --stability: a point whose largest Floquet multiplier exceeds 1 + HB_FLOQ_TOL in modulus is unstable. The
 * forward differences are good to about 1e-6 of a multiplier; a friction contact's stuck states are close to
 * neutral (a Jenkins element's exactly: its multipliers are 1), so the margin is 1e-3 */
#define HB_FLOQ_TOL 1e-3
#define HB_FLOQ_EPS 1e-5 /* the perturbations' size, relative (S5c: the same multipliers to 1e-7 from 1e-6 to 1e-4; 1e-8
                          * is roundoff's: a false 1.6) */
#define HB_FLOQ_MAX 4000 /* states (2 per DOF, and the contact states) the monodromy matrix may have */

/* the continuation's parameter p (a frequency [rad/s], or the level at h->wfix) -> the linear part at its
 * frequency, h->lev at its level; 0 or -1 */
int br_hb_set_param(hb *h, double p, char *err, size_t errlen);

/* the continuation's parameter p -> the frequency [rad/s] it stands for: p itself, or h->wfix in a continuation in
 * the level */
static inline double br_hb_frequency(const hb *h, double p) { return h->plevel ? h->wfix : p; }

/* unknowns y (those h->G was evaluated at), harmonic k, nonlinear coordinate j -> the force the linear part's
 * receptance takes there: the contact force's harmonic G_k, plus kb y_0 at an interface coordinate for k = 0 (hbm.h,
 * kb) */
double complex br_hb_force(const hb *h, const double *y, int k, int j);

/* y, parameter p -> R (nu), the contact force harmonics in h->G */
int br_hb_residual(hb *h, const double *y, double p, double *R, char *err, size_t errlen);

/* the solution at w (h->G its contact forces) -> per column the harmonics' amplitudes (row[0..H]: h0
 * signed, then |Q_k|) and the peak-to-peak (row[H + 1]) */
void br_hb_column_values(hb *h, const hb_col *c, double *row, double *arg1);

/* the header's names without the line's end */
void br_hb_header_names(const br_hbm *h, FILE *fp, const char *lead);

/* solver at a solution (y at frequency w), the model (its loads are driven at w from here on), periods P ->
 * the model integrated in time (`bristle run`'s step) for P periods from the solution's periodic state
 * (periodic_data); out[0] the first column's first harmonic by harmonic balance, out[1], out[2] fitted (least
 * squares, mean, cos, sin) over the run's first and last period; 0, or -1 with err */
int br_hb_check_by_run(hb *h, br_model *m, int periods, double *out, char *err, size_t errlen);

/* solver after a curve -> its present solution the one where the first column's first harmonic peaked */
void br_hb_at_peak(hb *h);

/* the run's state as the map over a period sees it: x = (u (n), v (n), z (the contact states, set by set)) */
long br_hb_floq_dim(const hb *h);

/* solver at a solution (h->y at h->w), the model -> out[0] the largest modulus of the Floquet multipliers of the
 * periodic state: the eigenvalues of the monodromy matrix, the run's map over one period (`bristle run`'s step,
 * shortened so that a whole number K of them make the period) differentiated by forward differences in every
 * DOF's displacement and velocity and every contact state, on every thread; out[1] the periodicity defect (the
 * unperturbed period's largest change of a displacement, over that DOF's harmonic amplitude); the
 * model's loads are driven at h->w from here on; 0, or -1 with err */
int br_hb_floquet(hb *h, br_model *m, double *out, char *err, size_t errlen);

#endif
