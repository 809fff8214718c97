/* beam_cuda.h: the C API of a batch of beam models resident on a CUDA device (beam_cuda.cu): a
 * mirror of host/step/beam_batch.c's store (kernels/beam_store.h) on the device, the same per-variant
 * steps in one thread a variant around a resident field step. */
#ifndef BR_BEAM_CUDA_H
#define BR_BEAM_CUDA_H

#include <stddef.h>

#include "beam_store.h"
#include "field_cuda.h"
#include "ga_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct br_cuda_beam br_cuda_beam;

/* model (host arrays), sizes, the structure's device batch, the field on the device (the set s of
 * variant v at v nset + s, every set in a group launch), the host store at the start -> its mirror
 * on the device (uploaded), or NULL with err */
br_cuda_beam *br_cuda_beam_create(const br_step_model *m, const br_beam_sizes *z, br_cuda_ga *ga, br_cuda_field *field,
                                  const br_beam_store *host, char *err, size_t errlen);

/* host store's energy and code flags (code != 0: skip the variant) -> uploaded; every other
 * variant's frames, field step, loads, solve and checks on the device; the codes back in
 * host->code. 0, or -1 with err (a device error) */
int br_cuda_beam_forces(br_cuda_beam *g, br_beam_store *host, char *err, size_t errlen);

/* timing on (1: every launch waited for and its wall time added to secs[BR_PH_*] of its phase,
 * kernels/beam_store.h; 0: off, secs may be NULL) */
void br_cuda_beam_timing(br_cuda_beam *g, int on, double *secs);

/* host store's code flags -> uploaded; every variant not skipped integrated to t_{n+1} (waited for
 * and its time added to secs[BR_PH_INTEGRATE] when timing); 0, or -1 */
int br_cuda_beam_integrate(br_cuda_beam *g, const br_beam_store *host, char *err, size_t errlen);

/* all, lean -> the device's records, frames, set results and steps (and with all the structure
 * vectors) copied into the host store, one copy each; with lean > 0 (and not all) only the first lean
 * doubles of each record (one strided copy: host/step/beam_batch.c's lean samples); 0, or -1 with err */
int br_cuda_beam_download(br_cuda_beam *g, br_beam_store *host, int all, long lean, char *err, size_t errlen);

/* variant v -> its record, frames, set results and step copied into the host store; 0, or -1 with err */
int br_cuda_beam_download_one(br_cuda_beam *g, br_beam_store *host, int v, char *err, size_t errlen);

/* variant v -> its load magnitudes (host->mag) uploaded; 0, or -1 with err */
int br_cuda_beam_upload_loads(br_cuda_beam *g, const br_beam_store *host, int v, char *err, size_t errlen);

void br_cuda_beam_destroy(br_cuda_beam *g);

#ifdef __cplusplus
}
#endif

#endif
