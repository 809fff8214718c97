/* ga_cuda.h: the C API of the CUDA batch of generalized-alpha steps (ga_cuda.cu): the matrices
 * and states of many variants resident on the device, solved by kernels/ga_step.h's row phases
 * (a thread an entry), so a variant's step is bitwise the CPU batch's. */
#ifndef BR_GA_CUDA_H
#define BR_GA_CUDA_H

#include <stddef.h>

#include "ga_step.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct br_cuda_ga br_cuda_ga;

/* shape (host arrays), the batch's host arrays (matrices with their doubles per copy in msize;
 * u, v, a at the start; the scratch pointers are not read) -> device copies, or NULL with err;
 * dev receives the device's name */
br_cuda_ga *br_cuda_ga_create(const br_ga_shape *sh, const br_ga_arrays *host, const size_t *msize, char *dev,
                              size_t devlen, char *err, size_t errlen);

/* f (n x nv), E (36 nr / 6 x nv, or NULL) -> uploaded, every variant stepped once; du, dv, dm
 * (nr x nv) and bad (nv) downloaded where not NULL. 0, or -1 with err */
int br_cuda_ga_step(br_cuda_ga *g, const double *f, const double *E, double *du, double *dv, double *dm, int *bad,
                    char *err, size_t errlen);

/* steps -> that many steps with the last f and E, no copies (benchmarks); 0, or -1 with err */
int br_cuda_ga_repeat(br_cuda_ga *g, long steps, char *err, size_t errlen);

/* -> u, v, a (n x nv each; any may be NULL) copied to the host; 0, or -1 with err */
int br_cuda_ga_state(br_cuda_ga *g, double *u, double *v, double *a, char *err, size_t errlen);

/* f (device, entry i of variant v at f[i nv + v]), E (device, entry q of variant v at
 * E[v E_var + q E_stride]; NULL: no low-rank term), skip (device, nv; NULL: none) -> the row
 * phases launched on the default stream: a1 of every variant not skipped, its Woodbury system's
 * singularity in br_cuda_ga_singular (kernels/beam_cuda.cu's solve); 0, or -1 with err */
int br_cuda_ga_solve_rows(br_cuda_ga *g, const double *f, const double *E, long E_var, long E_stride, const int *skip,
                          char *err, size_t errlen);

/* -> per variant (device, nv): nonzero where the last br_cuda_ga_solve_rows found I + E Y singular */
const int *br_cuda_ga_singular(const br_cuda_ga *g);

/* -> the shape (its arrays on the device) and the device arrays, for kernels that run the stages
 * around the solve (kernels/beam_cuda.cu) */
void br_cuda_ga_arrays(br_cuda_ga *g, br_ga_shape *sh, br_ga_arrays *A);

void br_cuda_ga_destroy(br_cuda_ga *g);

#ifdef __cplusplus
}
#endif

#endif
