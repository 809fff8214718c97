/* genalpha.h: generalized-alpha time integration (Chung & Hulbert 1993) of the
 * linear structure M a + C v + K u = f with fixed step h; the effective matrix
 * (1 - am) M + (1 - af) gamma h C + (1 - af) beta h^2 K is constant: it is
 * factored (Cholesky, LAPACK dpotrf) and inverted (dpotri) once, so a step is
 * four dense matrix-vector products and allocates nothing. For the tens to
 * hundreds of DOF of the blade studies this beats a triangular solve per step;
 * a banded or sparse factor would replace it for large structures.
 *
 * Optionally the equation carries a damping L^T E L of low rank r whose r x r
 * middle E changes every step (the linearized friction of stateless contact
 * laws, host/friction_implicit.c): the rows L are fixed once and the step
 * solves the modified system by the Woodbury identity with a small r x r
 * LU (LAPACK dgesv), so the effective matrix is still factored only once. */
#ifndef BR_GENALPHA_H
#define BR_GENALPHA_H

#include <stddef.h>

typedef struct br_genalpha {
    int n;
    double am, af, gamma, beta, h;
    const double *M, *C, *K; /* n x n column-major, owned by the structure */
    double *Lf;              /* inverse of the effective matrix (dpotrf + dpotri, made full) */
    double *u, *v, *a;       /* state at t_n */
    double *r, *w;           /* scratch */
    double *a1;              /* acceleration at t_{n+1} from br_genalpha_solve */
    int nr;                  /* rank of the low-rank damping (0: none) */
    double *L;               /* nr x n, row-major: its rows */
    double *Z, *Y;           /* Keff^-1 L^T (n x nr, column-major) and L Z (nr x nr, column-major) */
    double *ye, *yq, *Ar;    /* scratch: nr, nr, nr x nr */
    int *ipiv;               /* scratch: nr */
} br_genalpha;

/* M, C, K (n x n), rho_inf in [0, 1], h -> integrator at u = v = 0 (a from br_genalpha_start), or NULL */
br_genalpha *br_genalpha_create(int n, const double *M, const double *C, const double *K, double rho_inf,
                                double h, char *err, size_t errlen);

/* f at t = 0 -> a_0 = M^-1 (f - C v - K u); 0 or -1 */
int br_genalpha_start(br_genalpha *g, const double *f);

/* nr, L (nr x n, row-major) -> the integrator can carry a damping L^T E L (E given per step
 * to br_genalpha_solve); Keff^-1 L^T and L Keff^-1 L^T are formed once. 0, or -1 (out of memory) */
int br_genalpha_lowrank(br_genalpha *g, int nr, const double *L);

/* f (the load for the equation at t_{n+1-af}), E (nr x nr, column-major, or NULL) -> g->a1,
 * the acceleration at t_{n+1} of M a + C v + K u + L^T E L (v - v_pred) = f, v_pred = v_n + (1-af) h a_n
 * being the velocity the load f was evaluated with (the force stays f at v_pred and changes with
 * slope -L^T E L about it). With E, dxi (nr) <- L (v - v_pred), the change of the reduced velocity
 * at the equation time, and dxu (nr) <- L ((u_{n+1} - u_n) / h - v_pred), of its mean over the step. */
void br_genalpha_solve(br_genalpha *g, const double *f, const double *E, double *dxi, double *dxu);

/* g->a1 -> u, v, a advanced to t_{n+1} */
void br_genalpha_advance(br_genalpha *g);

/* f (the load for the equation at t_{n+1-af}) -> u, v, a advanced to t_{n+1}: solve, then advance */
void br_genalpha_step(br_genalpha *g, const double *f);

void br_genalpha_free(br_genalpha *g);

#endif
