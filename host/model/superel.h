/* superel.h: what a structure given as matrices (br_superel, model.h) needs besides its files: its
 * damping from Rayleigh coefficients or modal ratios (physics.md 5.1), and the symmetry check. */
#ifndef BR_SUPEREL_H
#define BR_SUPEREL_H

/* n, A (n x n column-major) -> 1 if |A_ij - A_ji| <= 1e-12 max|A| for every pair (an FE code's export
 * rounds a symmetric matrix's entries, no more), else 0 with the worst pair in (*i, *j) (from 1) */
int br_superel_symmetric(int n, const double *A, int *i, int *j);

/* n, A -> A made exactly symmetric, (A + A^T) / 2 (no change where it is) */
void br_superel_symmetrize(int n, double *A);

/* n, M, K (n x n), a, b -> C = a M + b K */
void br_superel_rayleigh(int n, const double *M, const double *K, double a, double b, double *C);

/* n, M, K, zeta (nz ratios: mode k, ascending frequency, gets zeta[k]; modes beyond the list none; nz = 1
 * with all = 1: every mode zeta[0]) -> C = M Phi diag(2 zeta_k w_k) Phi^T M over the mass-normalized
 * modes (LAPACK dsygv; rigid-body modes, w = 0, get none); 0, -1 (M not positive definite), -2 (out of
 * memory), -3 (K not positive semi-definite: an eigenvalue below -1e-9 of the largest) */
int br_superel_modal_damping(int n, const double *M, const double *K, const double *zeta, int nz, int all, double *C);

#endif
