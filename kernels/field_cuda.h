/* field_cuda.h: the C API of the CUDA contact-field backend (field_cuda.cu).
 * Host code stays C; everything CUDA lives behind these functions. */
#ifndef BR_FIELD_CUDA_H
#define BR_FIELD_CUDA_H

#include <stddef.h>

#include "point_step.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct br_cuda_field br_cuda_field;

/* -> number of usable CUDA devices; 0 with the reason in why when none */
int br_cuda_device_count(char *why, size_t whylen);

/* -> this process's device (BRISTLE_GPU, else its rank on the node as the MPI launcher gives it,
 * modulo the devices, else 0) made current; its index and in dev its name, or -1 with err */
int br_cuda_select(char *dev, size_t devlen, char *err, size_t errlen);

/* host set views (host arrays), per set whether it reduces its wrench tangent and its counter
 * surface (enum br_surface; every step's frames must have the same) -> device copies of every
 * array, or NULL with err; dev receives the device name. The sets that share a law, surface and
 * tangent flag step in one launch (any number of sets). */
br_cuda_field *br_cuda_field_create(const br_set_view *views, const int *tangent, const int *surface, int nsets,
                                    char *dev, size_t devlen, char *err, size_t errlen);

/* set frames, h, record -> states advanced on the device, sums[nsets] on the host, and tans[s]
 * for the sets with a tangent */
int br_cuda_field_step(br_cuda_field *g, const br_set_frame *frames, double h, int record,
                       br_set_sums *sums, br_tangent_sums *tans, char *err, size_t errlen);

/* field whose every set steps in a group launch (a batch of two or more variants) -> the device
 * arrays a resident step reads and leaves: the set frames (nsets), the sums and the tangent sums
 * (nsets each; NULL without tangents); 0, or -1 when a set steps alone */
int br_cuda_field_resident(br_cuda_field *g, br_set_frame **frames, br_set_sums **sums, br_tangent_sums **tans);

/* h, parts -> every set stepped from the set frames already in the device array (parts & 1: the
 * points' launches, each set's partial sums) and its sums and tangent sums reduced from those
 * (parts & 2: the finish); left there (no copy, no synchronization: the caller's next launch on the
 * stream follows). 3 is the whole step; 1 then 2 the same step in two calls (to time its parts) */
int br_cuda_field_step_resident(br_cuda_field *g, double h, int parts, char *err, size_t errlen);

/* device states (and per-point outputs when recorded) -> host views' arrays */
int br_cuda_field_download(br_cuda_field *g, const br_set_view *views, int record);

/* host views' states -> device */
int br_cuda_field_upload(br_cuda_field *g, const br_set_view *views);

/* -> the per-point output buffers allocated (once), so steps with record != 0 fill them */
int br_cuda_field_record(br_cuda_field *g);

/* -> bytes of per-point device memory */
size_t br_cuda_field_bytes(const br_cuda_field *g);

void br_cuda_field_destroy(br_cuda_field *g);

/* bytes, reps -> device-to-device copy bandwidth in GB/s (read + write counted), or -1 */
double br_cuda_copy_bandwidth(size_t bytes, int reps, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
