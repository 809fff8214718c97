/* ga_cuda.h: the C API of the CUDA batch of generalized-alpha steps (ga_cuda.cu): the matrices
 * and states of many variants resident on the device, one thread a variant running
 * kernels/ga_step.h's br_ga_batch_one, so a variant's step is bitwise the CPU batch's. */
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

/* -> the shape (its arrays on the device) and the device arrays, for kernels that run the stages
 * around the solve (kernels/beam_cuda.cu) */
void br_cuda_ga_arrays(br_cuda_ga *g, br_ga_shape *sh, br_ga_arrays *A);

void br_cuda_ga_destroy(br_cuda_ga *g);

#ifdef __cplusplus
}
#endif

#endif
