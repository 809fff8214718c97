/* ga_batch.h: the generalized-alpha steps of many variants of one structure at once
 * (kernels/ga_step.h), every array with the variant as its innermost index (MJWarp's worlds):
 * on the CPU (threads over variants; the reference) or on a CUDA device (one thread a variant,
 * kernels/ga_cuda.cu, the state resident there). A variant's step is bitwise the same in the
 * batch as br_genalpha_solve, _row_changes and _advance give with own_lu set, on either backend. */
#ifndef BR_GA_BATCH_H
#define BR_GA_BATCH_H

#include <stddef.h>

#include "field/field.h" /* br_backend_kind */
#include "step/genalpha.h"

typedef struct br_ga_batch br_ga_batch;

/* nv integrators with the same size, coefficients, low-rank rank and sparsity (each its own
 * matrices, low-rank rows and state), backend (CPU or CUDA; AUTO: CUDA where a device is) ->
 * a batch with copies of their matrices (one copy of a matrix every variant has alike) and
 * states; NULL with err (the first variant that differs from variant 0 and how, or the device's
 * error) */
br_ga_batch *br_ga_batch_create(br_genalpha *const *g, int nv, br_backend_kind backend, char *err, size_t errlen);

/* the same, share 0: every matrix stored a copy a variant even where all are alike (on the CPU
 * the variants then step BR_GA_LANES at a time in vector lanes, kernels/ga_step.h's _l functions) */
br_ga_batch *br_ga_batch_create_opt(br_genalpha *const *g, int nv, br_backend_kind backend, int share, char *err,
                                    size_t errlen);

/* batch -> freed (its device memory too) */
void br_ga_batch_destroy(br_ga_batch *b);

/* batch, loads f (n x nv: f[i nv + v]), contact blocks E (36 nr / 6 x nv, likewise; NULL: no
 * low-rank term) -> every variant advanced one step; the row changes of br_genalpha_row_changes
 * in du, dv, dm (nr x nv each, NULL: not wanted); bad[v] (NULL: not wanted) 1 where a variant's
 * Woodbury system was singular (its a1 = x0 then). 0, or -1 with err (a device error) */
int br_ga_batch_step(br_ga_batch *b, const double *f, const double *E, double *du, double *dv, double *dm, int *bad,
                     char *err, size_t errlen);

/* batch, steps -> that many steps with the f and E of the last br_ga_batch_step (no copies, no
 * row changes): what the structure solve costs with its inputs already where it runs (benchmarks).
 * 0, or -1 with err */
int br_ga_batch_repeat(br_ga_batch *b, long steps, char *err, size_t errlen);

/* batch, variant -> its u, v, a (n each; any may be NULL). 0, or -1 with err (device copy) */
int br_ga_batch_state(br_ga_batch *b, int v, double *u, double *vel, double *a, char *err, size_t errlen);

/* -> the batch's shape and its host arrays (the CPU backend's working state; host/step/beam_batch.c
 * runs the stages around the solve on them) */
const struct br_ga_shape *br_ga_batch_shape(const br_ga_batch *b);
struct br_ga_arrays *br_ga_batch_arrays(br_ga_batch *b);

/* -> the batch's device half (kernels/ga_cuda.h), or NULL on the CPU backend */
struct br_cuda_ga *br_ga_batch_cuda(br_ga_batch *b);

/* -> "cpu" or "cuda"; the device's name ("cpu" on the CPU) */
const char *br_ga_batch_backend(const br_ga_batch *b);
const char *br_ga_batch_device(const br_ga_batch *b);

/* -> bytes one variant-step reads and writes: the matrix entries on the profiles (a shared
 * matrix's counted once per step, spread over the variants) and the state and scratch */
double br_ga_batch_bytes(const br_ga_batch *b);

#endif
