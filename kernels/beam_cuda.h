/* beam_cuda.h: the C API of a batch of beam models resident on a CUDA device (beam_cuda.cu): the
 * stages of kernels/beam_step.h in one thread a variant around a resident field step, nothing
 * copied per step. host/beam_batch.c builds it from its CPU state and reads it back. */
#ifndef BR_BEAM_CUDA_H
#define BR_BEAM_CUDA_H

#include <stddef.h>

#include "beam_step.h"
#include "field_cuda.h"
#include "ga_cuda.h"
#include "set_result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct br_cuda_beam br_cuda_beam;

/* What a variant holds besides the structure's generalized-alpha state, contiguous per variant on
 * the host (the batch's br_data) and on the device: the sizes of each array a variant has. */
typedef struct br_beam_sizes {
    int n, nnode, nbody, nload, nset, nframe;
} br_beam_sizes;

/* One variant's host arrays (what br_bm_var points to, with its res and the field's running
 * integrals E, E_nd of its sets) */
typedef struct br_beam_host {
    const br_bm_var *var;       /* the CPU batch's views (vectors with stride nv) */
    br_set_result *res;         /* nset */
} br_beam_host;

/* model (host arrays), sizes, nv, the structure's device batch, the field on the device (every set
 * of variant v at v nset + s, in group launches), the variants' host views and the host's
 * structure vectors (up vp g gext gext_prev uprev vprev, n x nv each, the variant innermost) ->
 * the device state (uploaded), or NULL with err */
br_cuda_beam *br_cuda_beam_create(const br_bm_model *m, const br_beam_sizes *z, int nv, br_cuda_ga *ga,
                                  br_cuda_field *field, const br_beam_host *host, const double *vec, char *err,
                                  size_t errlen);

/* energy[nv] (uploaded where it changed) -> the forces and accelerations of every running variant
 * at t_n on the device (frames, field, loads, solve, checks; not yet integrated); 0, or -1 with err
 * (a device error; a variant's failure is its own, br_cuda_beam_failed). No synchronization. */
int br_cuda_beam_forces(br_cuda_beam *g, const int *energy, char *err, size_t errlen);

/* -> every running variant integrated to t_{n+1} (a variant the host has finished keeps
 * stepping there, unread); 0, or -1 with err */
int br_cuda_beam_integrate(br_cuda_beam *g, char *err, size_t errlen);

/* which[nv] -> the state at t_n of the variants flagged (what the outputs read: nodes, frames,
 * body states, set results, energies) in their host views, their time and step in t[v], step[v];
 * one copy of every variant's record and results; 0, or -1 with err */
int br_cuda_beam_sample(br_cuda_beam *g, const br_beam_host *host, const int *which, double *t, long *step, char *err,
                        size_t errlen);

/* -> per variant 0 or br_bm_check's code (BR_BM_FIELD * 256 + set: non-finite field sums) in
 * codes[nv]; 0, or -1 with err */
int br_cuda_beam_failed(br_cuda_beam *g, int *codes, char *err, size_t errlen);

/* variant v -> its state copied into its host views (and the structure's state: the caller reads
 * the ga batch); 0, or -1 with err */
int br_cuda_beam_download(br_cuda_beam *g, int v, const br_beam_host *host, double *t, long *step, char *err,
                          size_t errlen);

void br_cuda_beam_destroy(br_cuda_beam *g);

#ifdef __cplusplus
}
#endif

#endif
