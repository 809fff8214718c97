/* hbm.h: periodic steady states by harmonic balance (docs/hbm.md).
 *
 * The model is linear but for its contact sets: beams (and the bodies attached to them), free bodies
 * that only translate, linear vector springs, constant and harmonic loads. Its steady state under the
 * harmonic loads of one base frequency w is q(t) = Re sum_k Q_k exp(i k w t), k = 0..H. Per harmonic
 * the linear part is the dynamic stiffness Z_k = K - (k w)^2 M + i k w C, so
 *
 *     Q_k = Z_k^-1 (F_k + G_k(Q))
 *
 * with F_k the loads and G_k the contact forces, which depend only on the DOFs that move the contact
 * frames (the nonlinear DOFs). The unknowns are their harmonics; the rest follows linearly.
 *   br_hbm_sys_*   scenario -> the linear system M, C, K, loads, the nonlinear DOFs (hbm_sys.c)
 *   br_hbm_lin_*   w -> per harmonic the receptance among the nonlinear DOFs and the response to the
 *                  loads, by LU of Z_k (hbm_sys.c)
 *   br_hbm_aft_*   harmonics of the nonlinear DOFs -> harmonics of the contact forces: the motion
 *                  synthesized at N samples a period, the contact field stepped over them period
 *                  after period until its forces repeat, the forces transformed back (hbm_aft.c)
 *   br_hbm_main    Newton, pseudo-arclength continuation in frequency, frf.csv (hbm.c) */
#ifndef BR_HBM_H
#define BR_HBM_H

#include <complex.h>
#include <stddef.h>
#include <stdio.h>

#include "model/beam.h"
#include "field/field.h"
#include "model/model.h"

typedef struct br_hbm_sys {
    const br_model *m;
    br_struct *st;        /* beams and attached bodies (NULL without beams): DOFs 0 .. nst-1 */
    int nst, ndof;        /* then the translational DOFs of the free bodies */
    int *bdof;            /* 3 per body: DOF of a free body's x, y, z, or -1 (locked, attached) */
    double *M, *C, *K;    /* ndof x ndof, column-major */
    double *f0;           /* static load (constant loads, ramps at their end value, gravity, spring preload) */
    double *fc, *fs;      /* the harmonic loads at the base frequency: f(t) = fc cos(w t) + fs sin(w t) */
    double *Nset;         /* per contact set: prescribed total normal force, or -1 (Hunt-Crossley) */
    /* the nonlinear coordinates, nnl = nnl_dof + nif: first the DOFs that move a contact set's frames (nl, nnl_dof),
     * then per deforming interface point (physics.md 5.1) the three of its relative displacement L_i q in its frame
     * (t1, t2, n; without its g0), set after set and point after point: their rows T over the DOFs in CSR */
    int nnl, *nl, nnl_dof, nif;
    int *ifoff;           /* per contact set: its first interface coordinate (of nnl), or -1 (a rigid set) */
    long *Tp;             /* nif + 1 */
    int *Tj;
    double *Tx;
    /* per interface coordinate a bond stiffness kb (nif: the point's stuck tangential stiffness and its normal law's
     * slope at 1 MPa): the static harmonic's linear part takes every point bonded, K + T^T diag(kb) T, and its
     * contact forces G_0 + diag(kb) y_0, so that a structure held only by its interface (a plate free but for the
     * joint) has a static receptance; the split does not change the solution */
    double *kb;
} br_hbm_sys;

/* system, the static stiffness Z (ndof x ndof, column-major) -> Z + T^T diag(kb) T (the interface points bonded) */
void br_hbm_bond(const br_hbm_sys *s, double complex *Z);

/* system, k w, bond (1: the interface points bonded, br_hbm_bond) -> Z = K - (k w)^2 M + i k w C (ndof x ndof,
 * column-major) */
void br_hbm_dynamic_stiffness(const br_hbm_sys *s, double kw, int bond, double complex *Z);

/* system, nonlinear coordinate i, a DOF vector v (ndof) -> its value: v[nl[i]], or T_i v */
double complex br_hbm_coord(const br_hbm_sys *s, int i, const double complex *v);

/* system, nonlinear coordinate i, a (its generalized force) -> v += a e_nl[i], or a T_i^T */
void br_hbm_coord_add(const br_hbm_sys *s, int i, double complex a, double complex *v);

/* model, its scenario text (for line numbers) -> s built; 0, or -1 with "file:line: message" in err
 * (2: bad input: a model that is not linear outside its contacts, a load that is not harmonic) */
int br_hbm_sys_build(const br_model *m, const char *text, size_t len, br_hbm_sys *s, char *err,
                     size_t errlen);

void br_hbm_sys_free(br_hbm_sys *s);

/* system, DOF displacements u and velocities v (ndof), only (per frame: 1 to compute it, or NULL: all)
 * -> the frames of the model (ground, bodies; no kinematic frames) */
void br_hbm_frames(const br_hbm_sys *s, const double *u, const double *v, const unsigned char *only,
                   br_frame_state *fr);

/* system, frames (as br_hbm_frames), u, set results -> generalized contact forces g (ndof) */
void br_hbm_contact_force(const br_hbm_sys *s, const br_frame_state *fr, const double *u,
                          const br_set_result *res, double *g);

/* The linear part at one base frequency, per harmonic k = 0..H. */
typedef struct br_hbm_lin {
    int H, nnl, nout, ndof;
    double w;
    double complex *Hnl;  /* (H+1) blocks of nnl x nnl (column-major): Z_k^-1 among the nonlinear DOFs */
    double complex *Xnl;  /* (H+1) x nnl: Z_k^-1 F_k at the nonlinear DOFs */
    double complex *Hout; /* (H+1) blocks of nout x nnl: Z_k^-1 from the nonlinear DOFs to the outputs */
    double complex *Xout; /* (H+1) x nout */
    int *out;             /* nout output DOFs */
    double complex *Z;    /* scratch: ndof x ndof, right-hand sides */
    double complex *B;
    int *piv;
    /* with deforming interfaces, when the damping is diagonal in the undamped modes (Rayleigh, modal ratios): the
     * harmonics k >= 1 by the modes, Z_k^-1 = Phi diag(1 / (lam - (k w)^2 + i k w c)) Phi^T, and harmonic 0 (the
     * interface bonded, which no mode basis of K diagonalizes) by LU once, as it does not depend on w */
    int modal, have0;
    /* nonlinear modes (the extended periodic motion concept): the damping C - xi M; xi the value the next evaluation
     * takes, xi1 and xi2 those of the present and the previous blocks */
    double xi, xi1, xi2;
    /* ... and the split modes (br_hbm_lin_split; hbm_mode.c): nsplit undamped modes phi_j (split[j]; the columns of
     * Psi) taken out of harmonic 1, Q_1 = Psi eta + Q' with Psi^T M Q' = 0, eta (nsplit, complex) the values the next
     * evaluation takes: harmonic 1's receptance blocks are Q''s (the modal path: without the split modes; the LU path:
     * Z_1 bordered by M Psi and Psi^T M, whose multipliers are the modal equations' defects mu = mG G_1 + mE eta + lev
     * mF), and sp holds, per block set, what eta adds (the brm_* offsets: the coordinates' and outputs' response Sn_j,
     * So_j to eta_j = 1; mG, mE, mF; Qe_j, Q' per unit eta_j; Wd, the modal path's 1 / d_1m (0 at a split mode); the
     * LU path's Qg, Q' per unit G_1, ndof x nnl) */
    int nsplit, *split;
    double complex *eta;
    double complex *sp, *sp2;
    double *Lm;           /* LU path with a split: the Cholesky factor of M (lower, ndof square), Q''s M-norm = |Lm^T Q'| */
    double complex *Zb, *Bb; /* LU path with a split: the bordered system (ndof + nsplit square) and its right-hand sides */
    int *pivb;
    int havemodes;        /* 1: Phi, lam, cm (Phi^T C Phi's diagonal), P, Po, fcm, fsm computed (br_hbm_lin_modes) */
    double *Phi;          /* ndof x ndof (column-major): the undamped modes, M-orthonormal */
    int lazy;             /* 1: br_hbm_lin_eval leaves the modal blocks Hnl (k >= 1) unformed (Newton-Krylov applies them
                           * by br_hbm_lin_apply, and forms one by br_hbm_lin_block where it needs it) */
    double *lam, *cm;     /* ndof: eigenvalues, modal damping */
    double *P, *Po;       /* nnl x ndof and nout x ndof (column-major): the coordinates' and outputs' mode shapes */
    double *fcm, *fsm;    /* ndof: Phi^T fc, Phi^T fs */
    double *W, *Hr, *Hi;  /* scratch: nnl x ndof, nnl x nnl twice */
    /* the frequency evaluated before (w2, have2) and its blocks, swapped back when it is asked for again (a Jacobian's
     * column in the frequency evaluates at w + dw and returns to w) */
    double w2;
    int have2;
    double complex *Hnl2, *Xnl2, *Hout2, *Xout2;
} br_hbm_lin;

/* system, H, output DOFs -> l allocated; 0 or -1 */
int br_hbm_lin_init(const br_hbm_sys *s, int H, int nout, const int *out, br_hbm_lin *l);

/* system, l -> the undamped modes of (K, M) computed (l->havemodes: Phi, lam, P, Po, ...) and l on the modal path (the
 * harmonics k >= 1 by the modes) when the damping is diagonal in them (to 1e-9 of the diagonal's geometric mean); 0,
 * or -1 (out of memory) */
int br_hbm_lin_modes(const br_hbm_sys *s, br_hbm_lin *l);

/* system, l with its modes, ns modes idx (ns 0: none) -> harmonic 1 split along them from the next evaluation on (its
 * workspace allocated, eta zero); 0, -1 (out of memory) or -2 (M's Cholesky factorization failed). hbm_split.c. */
int br_hbm_lin_split(const br_hbm_sys *s, br_hbm_lin *l, int ns, const int *idx);

/* l with modes, harmonic k >= 1, mode m -> its modal receptance's denominator lam_m - (k w)^2 + i k w (c_m - xi) at the
 * present blocks' w and xi */
double complex br_hbm_lin_modal_d(const br_hbm_lin *l, int k, int m);

/* l, mode m -> 1 when m is a split mode */
int br_hbm_lin_is_split(const br_hbm_lin *l, int m);

/* system, l (modal) split, after harmonic 1's blocks -> l->sp: split mode j's response (its columns of P, Po), mG_j = P_j,
 * mE = -diag(d_1j), mF its modal load, Qe = 0, Wd = 1 / d_1m (0 at a split mode) */
void br_hbm_lin_split_modal(const br_hbm_sys *s, br_hbm_lin *l);

/* system, l (LU path) split, Z = Z_1 (with xi) -> harmonic 1's blocks and l->sp by the bordered system
 * [Z_1 M Psi; Psi^T M 0] [Q'; mu] = [r; 0] for r the coordinates' unit forces, the outputs' unit forces (Hout's
 * transpose: Z is symmetric), the load and -Z_1 phi_j (eta_j's); 0 or -1 (singular) */
int br_hbm_lin_split_lu(const br_hbm_sys *s, br_hbm_lin *l, const double complex *Z);

/* the split's data in l->sp (per block set), split mode j: Sn_j (nnl), So_j (nout), mG_j (nnl: row j of mG), mE_j (nsplit:
 * row j of mE), mF (nsplit), Qe_j (ndof), then Wd (ndof) and Qg (ndof x nnl, the LU path's) */
static inline size_t brm_sn(const br_hbm_lin *l, int j) { return (size_t)j * l->nnl; }
static inline size_t brm_so(const br_hbm_lin *l, int j) { return (size_t)l->nsplit * l->nnl + (size_t)j * l->nout; }
static inline size_t brm_mg(const br_hbm_lin *l, int j) { return (size_t)l->nsplit * (l->nnl + l->nout) + (size_t)j * l->nnl; }
static inline size_t brm_me(const br_hbm_lin *l, int j)
{
    return (size_t)l->nsplit * (2 * l->nnl + l->nout) + (size_t)j * l->nsplit;
}
static inline size_t brm_mf(const br_hbm_lin *l) { return (size_t)l->nsplit * (2 * l->nnl + l->nout + l->nsplit); }
static inline size_t brm_qe(const br_hbm_lin *l, int j) { return brm_mf(l) + (size_t)l->nsplit + (size_t)j * l->ndof; }
static inline size_t brm_wd(const br_hbm_lin *l) { return brm_qe(l, l->nsplit); }
static inline size_t brm_qg(const br_hbm_lin *l) { return brm_wd(l) + (size_t)l->ndof; }

/* system, l split at its blocks, G_1 (nnl), eta (nsplit) -> the amplitude a = sqrt(|eta|^2 + Q'^H M Q') (the first
 * harmonic's mass-weighted norm); with ell (nnl) and dre, dim (nsplit; not NULL) its derivatives:
 * da = Re(ell^T dG_1) + sum_j (dre_j dRe eta_j + dim_j dIm eta_j) */
double br_hbm_lin_split_amplitude(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *G1, const double complex *eta,
                                  double complex *ell, double *dre, double *dim);

/* system, l split at its blocks, G_1 (nnl; the loads off), eta -> q (ndof): the DOFs' first harmonic Psi eta + Q' */
void br_hbm_lin_split_q1(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *G1, const double complex *eta,
                         double complex *q);

/* system, w [rad/s] -> l at w; 0, or -1 with err (Z_k singular: a DOF without stiffness at k = 0) */
int br_hbm_lin_eval(const br_hbm_sys *s, double w, br_hbm_lin *l, char *err, size_t errlen);

void br_hbm_lin_free(br_hbm_lin *l);

/* system, l at its w, forces x ((H + 1) x nnl, harmonic after harmonic; harmonic 0's imaginary part zero), work
 * (br_hbm_lin_apply_work doubles) -> y = H_k x_k per harmonic: by the modes for k >= 1 when l->modal (whether the
 * blocks are formed or not), else by the blocks */
void br_hbm_lin_apply(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *x, double complex *y, double *work);
size_t br_hbm_lin_apply_work(const br_hbm_sys *s, const br_hbm_lin *l);

/* system, l at its w, harmonic k -> Hk (nnl x nnl, column-major) its receptance block, formed from the modes if lazy */
void br_hbm_lin_block(const br_hbm_sys *s, br_hbm_lin *l, int k, double complex *Hk);

/* Alternating frequency-time evaluation of the contact forces. Unknowns y (nu = nnl (2H + 1) reals):
 * harmonic 0 (nnl), then per k >= 1 Re Q_k (nnl) and Im Q_k (nnl); q(t) = Re sum Q_k e^(i k w t). */
typedef struct br_hbm_aft {
    const br_hbm_sys *s;
    int H, N, nu, nset, maxper;
    int ramp;             /* periods over which the oscillation ramps in from rest at the mean position */
    double ptol;          /* the period's force harmonics repeat within ptol of their largest */
    br_field *field;      /* the sets with frames of their own: set c on frames 1 + 2c (A), 2 + 2c (B) */
    br_contact_set_desc *desc;
    int *secant;          /* per set: 1 (a law with states) the frames' twist over a sample interval is
                           * the displacement's increment over h, for which the updates are exact */
    int *atexact;         /* per set: 1 its forces at the samples come from the second pass below */
    int corr;             /* 1: the last period steps each sample twice: the states over the interval (the
                           * secant twist), then the forces at the sample's own velocity (h = 0, the states
                           * restored): second order in h (docs/hbm.md, "AFT") */
    long nstate;          /* doubles of every set's state */
    double *state0;       /* zero states (the start from rest) */
    double *cs;           /* (H+1) x N cosines and sines of k 2 pi j / N */
    double *sn;
    br_frame_state *fe, *fv, *fset;
    unsigned char *used; /* per frame: 1 if a contact set's */
    int any_secant, any_exact;
    double *u, *uprev, *v, *vs, *g, *gB, *Gp, *GA, *GB, *stbuf;
    double **iu;          /* per set: a deforming interface's inputs (br_field_iface), or NULL */
    const double **ipt;   /* ... and its outputs */
    double *yi, *vi, *yiprev; /* the interface coordinates at the sample (nif), their rates, at the last sample */
    double *gi, *giB;     /* their generalized forces (the points' f = N n - F), of the interval and at the sample */
    br_set_result *res, *resB;
    double *W;            /* per set: friction energy over the last evaluated period [J] */
    long *nmin;           /* per set: the fewest points in contact at a sample of the last evaluated period */
    long evals, periods, max_periods_seen, capped, extrapolated;
    double updates;       /* contact point updates done */
    /* the last evaluation from rest: its unknowns (nu), frequency and whether the field's states are still its final
     * ones (the periodic state at the period's start; br_hbm_aft_eval_warm starts from them) */
    double *ylast, wlast, *warm0;
    int havelast, lastplain; /* lastplain: the last march ended by the plain test (not capped, not extrapolated) */
    long warm_evals, warm_periods;
    /* Anderson's acceleration of the period map's fixed point (the states at a period's start): the last z, g(z),
     * f = g - z, and up to BR_AFT_AA differences of f and of g (nstate each) */
    double *aa;
    long accelerated;     /* periods started from Anderson's extrapolated states */
} br_hbm_aft;
#define BR_AFT_AA 5

/* system, H, N, ramp periods, period cap, tolerance -> a initialized; 0, or -1 with err */
int br_hbm_aft_init(const br_hbm_sys *s, int H, int N, int ramp, int maxper, double ptol, br_hbm_aft *a, char *err,
                    size_t errlen);

/* y, w -> G (nu, same layout as y): the contact forces' harmonics at the nonlinear coordinates, every set
 * started from rest (zero states) at the mean position with the oscillation ramped in over `ramp`
 * periods (with deforming interfaces: from the unloaded assembly, the mean ramped in over `ramp` periods
 * before the oscillation), then marched until a period's force harmonics repeat within ptol of their largest (or
 * maxper periods: counted in capped), then (corr) one more period whose samples are also evaluated at their
 * own velocity with h = 0, G moved by that pass's harmonics less the first's; 0, or -1 with err (a state or
 * force not finite). The same y and w give the same G whatever was evaluated before. */
int br_hbm_aft_eval(br_hbm_aft *a, const double *y, double w, double *G, char *err, size_t errlen);

/* a, warm (the states an evaluation at (y0, w) ended with: a->warm0 after br_hbm_aft_save_warm, or another AFT's of the
 * same system), y (near y0), w -> G as br_hbm_aft_eval, but the march started from warm instead of from rest: the periods a slowly repeating state takes are those from a start O(|y - y0|) away (the colored Jacobian's
 * forward differences, hbm_jacobian.c; the states' branch is y0's, which from rest is y's to O(|y - y0|)); 0, or -1
 * with err */
int br_hbm_aft_eval_warm(br_hbm_aft *a, const double *warm, const double *y, double w, double *G, char *err, size_t errlen);

/* a -> its counts (evaluations, periods, updates, ...) added to into's and zeroed (an AFT's clone on a thread) */
void br_hbm_aft_merge_counts(br_hbm_aft *into, br_hbm_aft *a);

/* a, y0, w -> 1 when the field's states are those the evaluation from rest at (y0, w) ended with, saved into a->warm0
 * for br_hbm_aft_eval_warm; else 0 */
int br_hbm_aft_save_warm(br_hbm_aft *a, const double *y0, double w);

void br_hbm_aft_free(br_hbm_aft *a);

/* The solver: the system, its linear part, the AFT and Newton's workspace (hbm.c). */
typedef struct br_hbm br_hbm;

/* model, its scenario text, H, N, AFT period cap, tolerance (Newton's, relative to the largest harmonic;
 * the AFT's a tenth of it), output columns ("BODY.x"; none: every body's x, y, z) -> solver, or NULL with
 * err (*bad 1: bad input, "file:line: message") */
br_hbm *br_hbm_create(const br_model *m, const char *text, size_t len, int H, int N, int maxper, double tol,
                      int ncol, const char *const *cols, int *bad, char *err, size_t errlen);

void br_hbm_free(br_hbm *h);

/* f [Hz], from_linear (1: start from the linear response without contacts and zero contact states; 0: from
 * the last solution) -> the periodic solution at f by Newton; iterations, or -1 (no convergence), -2 (err) */
int br_hbm_point(br_hbm *h, double f, int from_linear, char *err, size_t errlen);

/* output columns: count, name, and the last solution's values of column c: row[0..H] the harmonics'
 * amplitudes (row[0] the signed mean), row[H + 1] the peak-to-peak, and (arg1 not NULL) the first harmonic's
 * phase: x = ... + row[1] cos(w t + arg1) + ... [rad] */
int br_hbm_ncolumns(const br_hbm *h);
const char *br_hbm_column_name(const br_hbm *h, int c);
void br_hbm_column(br_hbm *h, int c, double *row, double *arg1);

/* the solver's AFT (counts, friction energy per cycle of the last solution) */
const br_hbm_aft *br_hbm_aft_of(const br_hbm *h);

/* values a point of the curve takes (frf.csv's columns after the leading ones): frequency, Newton iterations,
 * per column H + 3 (br_hbm_column's H + 2, the first harmonic's phase in degrees), per contact set the friction
 * energy per cycle, then per contact set the fewest points in contact at a sample of the period */
int br_hbm_row_width(const br_hbm *h);

/* frf.csv's header (with lead, a leading column of that name) -> fp */
void br_hbm_write_header(const br_hbm *h, FILE *fp, const char *lead);

/* Newton iterations and Jacobians so far */
void br_hbm_counts(const br_hbm *h, long *newton, long *jacobians);

/* Newton's linear solves: dense LU of the Newton matrix (3 P (2H + 1) rows with P interface points: 1.7 GB at 441 points
 * and H = 5), or Newton-Krylov (hbm_krylov.c; deforming interfaces only), or by size: Krylov from BR_HBM_KRYLOV_MIN
 * unknowns (the lap joint's 121 pairs at H = 3 have 2541: a 10-point curve at 0.3 N in 37 s by Krylov, 207 s by LU,
 * on 2 cores; docs/hbm.md) */
enum { BR_HBM_SOLVER_AUTO, BR_HBM_SOLVER_DENSE, BR_HBM_SOLVER_KRYLOV };
#define BR_HBM_KRYLOV_MIN 1000
/* solver, one of the above -> h set to it; 0, or -1 (out of memory) */
int br_hbm_set_linear_solver(br_hbm *h, int solver);
/* Nonlinear modes by the extended periodic motion concept (hbm_mode.c; docs/hbm.md, "Nonlinear modes"). A backbone:
 * its points' rows (BR_HBM_MODE_LEAD + br_hbm_row_width each: the modal amplitude, the damping ratio xi / (2 w), xi,
 * then frf.csv's row: frequency, Newton iterations, the columns, the sets' energy per cycle and fewest points in
 * contact), the linearized mode's frequency, the modes harmonic 1 was split along and every point's unknowns. */
#define BR_HBM_MODE_LEAD 3
#define BR_HBM_MAXSPLIT 16
typedef struct br_hbm_bb {
    double *rows;
    long n;
    double f_lin;                 /* [Hz] */
    int ns, split[BR_HBM_MAXSPLIT];
    int nz;                       /* a point's unknowns: nu + 2 ns + 1 */
    double *sol;                  /* n of them: (y, w, xi, Re eta_0, Re eta_1, Im eta_1, ...) */
} br_hbm_bb;

void br_hbm_bb_free(br_hbm_bb *bb);

/* solver (its first column the one reported beside the amplitude), mode K (1: the lowest above 0.01 Hz of the system
 * with its contacts linearized about the static state, stuck), modal amplitudes a0 to a1 (the first harmonic's
 * mass-weighted norm sqrt(Q_1^H M Q_1); P of them, log-spaced, more where a step fails; the nstops amplitudes stops
 * landed on exactly as well), progress -> bb; 0, -1 (no convergence at a0), -2 (an error, in err), -3 (stopped early:
 * the points kept, the reason in warning) or -4 (bad input, in err: a model without undamped modes, or K above its
 * modes); bb's f_lin, ns and split stay set whenever the stuck mode was found, points or not */
int br_hbm_backbone(br_hbm *h, int mode, double a0, double a1, int points, const double *stops, int nstops, int progress,
                    br_hbm_bb *bb, char *warning, size_t wlen, char *err, size_t errlen);

/* A ring-down (hbm_check.c): the model (`bristle run`'s step, its harmonic loads off from here on) released from
 * backbone point p's periodic state (every DOF's displacement and velocity from its harmonics, the contact states the
 * AFT ends its period with) and integrated for P periods of the point's frequency without the negative damping; per
 * window of one such period the DOFs' first harmonic (its mass-weighted norm: the modal amplitude), the frequency
 * from its phase's drift and the damping ratio from its decay over the windows either side (logarithmic decrement
 * delta per cycle, D = delta / sqrt(4 pi^2 + delta^2)). rows: P - 2 rows of BR_HBM_RD_WIDTH: the start amplitude,
 * the window, its middle's time after the release [s], the amplitude, the damping ratio, the frequency [Hz], the
 * first column's first harmonic, the backbone's damping ratio and frequency at that amplitude (log-linear between its
 * points; NaN outside them). With snapdir, the meshed sets' and faced interfaces' field snapshots at 8 phases of the
 * first period in snapdir/fields (as a run writes them, with their .pvd). 0, or -1 with err */
#define BR_HBM_RD_WIDTH 9
int br_hbm_ringdown(br_hbm *h, br_model *m, const br_hbm_bb *bb, long p, int periods, const char *snapdir, double *rows,
                    char *err, size_t errlen);

/* GMRES's products so far (0 on the dense path) */
long br_hbm_krylov_products(const br_hbm *h);

#define BR_HBM_MAXFOLD 256

/* the points of curves: rows of (lead +) br_hbm_row_width values, grown as needed; the turning points */
typedef struct br_hbm_rows {
    double *v;
    long n, cap;
    int lead;                      /* 1: each row starts with the curve's lead value (a level) */
    double folds[BR_HBM_MAXFOLD];  /* turning points [Hz] */
    int nfold;
    int keep;                      /* 1: each point's solution kept in sol */
    double *sol;                   /* with keep: per point w [rad/s], the level, then the nu unknowns */
} br_hbm_rows;

/* solver (its loads as they are), F0, F1 [Hz], about `points` points where the curve is flat, lead value,
 * progress (1: a line on stderr) -> the curve from F0 to F1 by pseudo-arclength continuation appended to r
 * (Newton at F0 from the linear response, so a curve does not depend on the one before); 0 complete,
 * -3 stopped short of F1 (warning says where), -1 no convergence at F0, -2 error (in err) */
int br_hbm_curve(br_hbm *h, double f0, double f1, int points, double lead, int progress, br_hbm_rows *r, char *warning,
                 size_t wlen, char *err, size_t errlen);

/* solver, frequency f [Hz], levels L0, L1, points, progress -> the curve at f from level L0 to L1 (every
 * harmonic load times the level) by pseudo-arclength continuation in the level, appended to r with the level
 * leading each row (r->lead must be 1); returns as br_hbm_curve */
int br_hbm_curve_level(br_hbm *h, double f, double l0, double l1, int points, int progress, br_hbm_rows *r, char *warning,
                       size_t wlen, char *err, size_t errlen);

/* every harmonic load of the solver times level (1: as the scenario has them), for br_hbm_point and br_hbm_curve */
void br_hbm_set_level(br_hbm *h, double level);

/* solver after a curve in frequency at level 1, its model -> *mu the largest modulus of the Floquet multipliers of
 * the periodic state where the first column's first harmonic peaked (bristle hbm --stability's, docs/hbm.md); the
 * model's loads are driven at that frequency from here on; 0, or -1 with err (no curve, too many states) */
int br_hbm_peak_floquet(br_hbm *h, br_model *m, double *mu, char *err, size_t errlen);

/* arguments after "hbm" -> exit status (0, 1 failure, 2 bad input) */
int br_hbm_main(int argc, char **argv);

#endif
