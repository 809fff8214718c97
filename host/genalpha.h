/* genalpha.h: generalized-alpha time integration (Chung & Hulbert 1993) of the
 * linear structure M a + C v + K u = f with fixed step h; the effective matrix
 * (1 - am) M + (1 - af) gamma h C + (1 - af) beta h^2 K is constant: it is
 * factored (Cholesky, LAPACK dpotrf) and inverted (dpotri) once, so a step is
 * four dense matrix-vector products and allocates nothing. For the tens to
 * hundreds of DOF of the blade studies this beats a triangular solve per step;
 * a banded or sparse factor would replace it for large structures. */
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
} br_genalpha;

/* M, C, K (n x n), rho_inf in [0, 1], h -> integrator at u = v = 0 (a from br_genalpha_start), or NULL */
br_genalpha *br_genalpha_create(int n, const double *M, const double *C, const double *K, double rho_inf,
                                double h, char *err, size_t errlen);

/* f at t = 0 -> a_0 = M^-1 (f - C v - K u); 0 or -1 */
int br_genalpha_start(br_genalpha *g, const double *f);

/* f (the load for the equation at t_{n+1-af}) -> u, v, a advanced to t_{n+1} */
void br_genalpha_step(br_genalpha *g, const double *f);

void br_genalpha_free(br_genalpha *g);

#endif
