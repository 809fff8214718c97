/* superel.c: damping and the symmetry check of a structure given as matrices (superel.h). */
#include "model/superel.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int br_superel_symmetric(int n, const double *A, int *i, int *j)
{
    double amax = 0.0, worst = 0.0;
    for (long k = 0; k < (long)n * n; k++) amax = fmax(amax, fabs(A[k]));
    *i = *j = 0;
    for (int c = 0; c < n; c++)
        for (int r = c + 1; r < n; r++) {
            const double d = fabs(A[(long)c * n + r] - A[(long)r * n + c]);
            if (d > worst) worst = d, *i = r + 1, *j = c + 1;
        }
    return worst <= 1e-12 * amax;
}

void br_superel_symmetrize(int n, double *A)
{
    for (int c = 0; c < n; c++)
        for (int r = c + 1; r < n; r++) {
            double *a = A + (long)c * n + r, *b = A + (long)r * n + c;
            if (*a != *b) *a = *b = 0.5 * (*a + *b);
        }
}

void br_superel_rayleigh(int n, const double *M, const double *K, double a, double b, double *C)
{
    for (long k = 0; k < (long)n * n; k++) C[k] = a * M[k] + b * K[k];
}

int br_superel_modal_damping(int n, const double *M, const double *K, const double *zeta, int nz, int all, double *C)
{
    const size_t nn = (size_t)n * (size_t)n;
    double *Phi = malloc(nn * sizeof(double)), *B = malloc(nn * sizeof(double)), *MP = malloc(nn * sizeof(double));
    double *w = malloc((size_t)n * sizeof(double));
    int rc = 0;
    if (!Phi || !B || !MP || !w) rc = -2;
    if (rc == 0) {
        memcpy(Phi, K, nn * sizeof(double));
        memcpy(B, M, nn * sizeof(double));
        /* K Phi = M Phi diag(w^2), Phi^T M Phi = I */
        const lapack_int info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'V', 'U', n, Phi, n, B, n, w);
        if (info != 0) rc = info > n ? -1 : -2;
    }
    /* a negative eigenvalue beyond rounding (rigid-body modes give +-1e-16 of the largest): K indefinite */
    if (rc == 0 && n > 0 && w[0] < -1e-9 * fabs(w[n - 1])) rc = -3;
    if (rc == 0) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, M, n, Phi, n, 0.0, MP, n);
        /* B = MP diag(c), c_k = 2 zeta_k w_k */
        for (int k = 0; k < n; k++) {
            const double z = all ? zeta[0] : k < nz ? zeta[k] : 0.0;
            const double ck = 2.0 * z * sqrt(fmax(w[k], 0.0));
            for (int i = 0; i < n; i++) B[(size_t)k * n + i] = MP[(size_t)k * n + i] * ck;
        }
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, B, n, MP, n, 0.0, C, n);
        br_superel_symmetrize(n, C);
    }
    free(Phi), free(B), free(MP), free(w);
    return rc;
}
