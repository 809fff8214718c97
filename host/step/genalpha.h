/* genalpha.h: generalized-alpha time integration (Chung & Hulbert 1993) of the
 * linear structure M a + C v + K u = f with fixed step h; the effective matrix
 * (1 - am) M + (1 - af) gamma h C + (1 - af) beta h^2 K is constant: it is
 * factored (Cholesky, LAPACK dpotrf) and inverted (dpotri) once, so a step is
 * four matrix-vector products and allocates nothing. The products run over each
 * column's nonzero rows only, so structures that share no node (the three blades
 * of S2) cost a block each, not the whole square; where M, C and K are symmetric
 * entry for entry (the beams, and the superelements, which are checked and
 * symmetrized when read) and large (BR_GA_SYM_MIN), each product reads its lower
 * triangle only (sym). For
 * the tens to hundreds of DOF of the blade studies this beats a triangular solve
 * per step; a banded or sparse factor would replace it for large structures.
 *
 * Optionally the equation carries a term L^T E L (a1 - a0) of low rank r whose r x r middle E
 * changes every step: the linearized contact forces (host/step/sim.c), whose stiffness and damping
 * act through u - u_pred = ck (a1 - a0) and v - v_pred = cc (a1 - a0) at the equation time.
 * The rows L are fixed once and the step solves the modified system by the Woodbury identity
 * with a small r x r LU (LAPACK dgesv), so the effective matrix is still factored only once. */
#ifndef BR_GENALPHA_H
#define BR_GENALPHA_H

#include <stddef.h>

#include "kernels/ga_step.h"

/* the contact rows from which the Woodbury system's factorization is reused across steps (48: eight
 * blocks, 16 interface points; every rigid-set model of the shipped scenarios has fewer, and solves
 * each step's system afresh as before) */
#define BR_GA_REUSE_MIN 48

/* the symmetric products (sym) from this many entries on M, C and K's profile (64 Ki, 512 kB a matrix), where
 * the step streams its matrices from memory; below, where they sit in cache, whole columns are faster (S2's 72
 * DOF, 1728 entries: its step 1.6 times slower with them, perf, the columns' two short loops and the right-hand
 * side's factors per entry costing more than the reads they save) */
#define BR_GA_SYM_MIN 65536

/* levels of substeps h0 / 2^k, k < BR_GA_LEVELS (host/step/sim.c's controller) */
#define BR_GA_LEVELS 16

typedef struct br_genalpha {
    int n;
    double am, af, gamma, beta, h;
    const double *M, *C, *K; /* n x n column-major, owned by the structure */
    double *Lf;              /* inverse of the effective matrix (dpotrf + dpotri, made full) */
    double *u, *v, *a;       /* state at t_n */
    double *r, *w;           /* scratch */
    double *a1;              /* acceleration at t_{n+1} from br_genalpha_solve */
    int nr;                  /* rank of the low-rank term (0: none), a multiple of 6 */
    double *L;               /* nr x n, row-major: its rows */
    int *Lcol, *Lcnt;        /* per row: its nonzero columns (n slots per row), their count */
    int *zlo, *zhi;          /* per column of Z: its first and last nonzero row */
    double *Z, *Y;           /* Keff^-1 L^T (n x nr, column-major) and L Z (nr x nr, column-major) */
    double *ye, *yq, *Ar;    /* scratch: nr, nr, nr x nr */
    int *ipiv;               /* scratch: nr (LAPACK's pivots) */
    int own_lu;              /* a Woodbury system factored afresh each step (fewer than BR_GA_REUSE_MIN rows,
                              * or no_reuse) solved by 1 (the default): kernels/ga_step.h's LU, as a batch
                              * of variants solves it, the same bits on every machine and 1.14 times the
                              * S2 run's speed; 0 (BRISTLE_LAPACK_LU, tests): LAPACK's dgesv, whose
                              * rounding follows the OpenBLAS kernel chosen at run time for the CPU */
    /* a large contact term (nr >= BR_GA_REUSE_MIN rows: a deforming interface's points) keeps the LU of
     * I + E Y from the step that made it and solves the next steps' systems by iterative refinement
     * with it, refactoring only where that does not converge (docs/structures.md) */
    double *LU0, *rr, *qq;   /* nr x nr factor, scratch nr each */
    int *ipiv0, have_lu0, no_reuse;
    long nfactor, nreuse;    /* counts: factorizations, solves by refinement */
    int *plo, *phi;          /* per column: first and last row where M, C or K is nonzero */
    int sym;                 /* 1: M, C and K symmetric entry for entry and at least BR_GA_SYM_MIN entries:
                              * the step reads their lower triangles and Keff^-1's only (kernels/ga_step.h,
                              * br_ga_shape's sym) */
    int *flo, *fhi;          /* ... where Keff^-1 is (blades that share no node give blocks) */
    /* substeps (br_genalpha_level): level k steps h0 / 2^k with its own Keff^-1, Z and Y, made on
     * its first use; Lf, Z, Y, flo, zlo and h above are those of the current level */
    double h0;
    int level;
    struct br_ga_level {
        double *Lf, *Z, *Y;
        int *flo, *zlo;
    } lv[BR_GA_LEVELS];
} br_genalpha;

/* M, C, K (n x n), rho_inf in [0, 1], h -> integrator at u = v = 0 (a from br_genalpha_start), or NULL */
br_genalpha *br_genalpha_create(int n, const double *M, const double *C, const double *K, double rho_inf,
                                double h, char *err, size_t errlen);

/* integrator -> 1 when its M, C and K are symmetric entry for entry (what sym needs besides their size) */
int br_genalpha_symmetric(const br_genalpha *g);

/* f at t = 0 -> a_0 = M^-1 (f - C v - K u); 0, -1 (M not positive definite) or -2 (out of memory) */
int br_genalpha_start(br_genalpha *g, const double *f);

/* nr (a multiple of 6), L (nr x n, row-major) -> the integrator can carry a term L^T E L (a1 - a0)
 * with E block diagonal in 6 x 6 blocks (given per step to br_genalpha_solve); Keff^-1 L^T and
 * L Keff^-1 L^T are formed once. 0, or -1 (out of memory) */
int br_genalpha_lowrank(br_genalpha *g, int nr, const double *L);

/* g, level k (0 .. BR_GA_LEVELS - 1) -> the integrator steps h0 / 2^k from now on, its effective
 * matrix factored (and the low-rank products formed) on the level's first use, kept after; the
 * state u, v, a carries over (a is the acceleration at t_n whatever the step). 0, or -1 with err */
int br_genalpha_level(br_genalpha *g, int k, char *err, size_t errlen);

/* g -> ck = (1 - af) beta h^2 and cc = (1 - af) gamma h: u - u_pred = ck (a1 - a0) and
 * v - v_pred = cc (a1 - a0) at the equation time t_{n+1-af}, with the predicted state
 * u_pred = u_n + (1 - af)(h v_n + h^2/2 a_n), v_pred = v_n + (1 - af) h a_n (the state at the
 * equation time if a1 = a0) */
void br_genalpha_coeffs(const br_genalpha *g, double *ck, double *cc);

/* g -> the predicted state (see br_genalpha_coeffs) in up, vp (n each) */
void br_genalpha_predict(const br_genalpha *g, double *up, double *vp);

/* f (the load for the equation at t_{n+1-af}), E (the nr / 6 diagonal blocks, 36 each, column-major,
 * or NULL) -> g->a1, the acceleration at t_{n+1} of M a + C v + K u + L^T E L (a1 - a0) = f. With
 * the contact stiffness K_c and damping C_c of the linearized forces in the reduced coordinates L,
 * E = ck K_c + cc C_c: the forces taken at the state the step solves for, to first order about
 * the predicted state where f was evaluated. 0, or -1 if I + E L Keff^-1 L^T is singular. */
int br_genalpha_solve(br_genalpha *g, const double *f, const double *E);

/* g->a1 from br_genalpha_solve (before br_genalpha_advance) -> per low-rank row: du = L (u - u_pred)
 * and dv = L (v - v_pred) at the equation time (ck L (a1 - a0), cc L (a1 - a0)), and
 * dm = L ((u_{n+1} - u_n) / h - v_pred), the change of the row's mean rate over the step */
void br_genalpha_row_changes(br_genalpha *g, double *du, double *dv, double *dm);

/* g->a1 -> u, v, a advanced to t_{n+1} */
void br_genalpha_advance(br_genalpha *g);

/* f (the load for the equation at t_{n+1-af}) -> u, v, a advanced to t_{n+1}: solve, then advance */
void br_genalpha_step(br_genalpha *g, const double *f);

/* integrator -> the shape and the one variant of kernels/ga_step.h at its current level
 * (contiguous arrays, stride 1): the view the step's stages (kernels/step/) take */
void br_genalpha_view(const br_genalpha *g, br_ga_shape *sh, br_ga_var *x);

void br_genalpha_free(br_genalpha *g);

#endif
