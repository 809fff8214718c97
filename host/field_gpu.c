/* field_gpu.c: the CUDA backend's entry in the backend table; the work is
 * done by kernels/field_cuda.cu behind its C API. Compiled only with CUDA. */
#include <stdio.h>

#include "../kernels/field_cuda.h"
#include "field_internal.h"

static br_set_view *host_views(br_field *f, br_set_view *tmp)
{
    for (int s = 0; s < f->nsets; s++) tmp[s] = f->sets[s].view;
    return tmp;
}

/* The views are small (one per set); a fixed bound keeps the step allocation-free. */
#define BR_MAX_SETS_STACK BR_CUDA_MAX_SETS

static int gpu_create(br_field *f, char *err, size_t errlen)
{
    br_set_view tmp[BR_MAX_SETS_STACK];
    if (f->nsets > BR_MAX_SETS_STACK) {
        snprintf(err, errlen, "CUDA backend: at most %d contact sets", BR_MAX_SETS_STACK);
        return -1;
    }
    int tangent[BR_MAX_SETS_STACK];
    for (int s = 0; s < f->nsets; s++) tangent[s] = f->sets[s].tangent;
    br_cuda_field *g = br_cuda_field_create(host_views(f, tmp), tangent, f->nsets, f->device,
                                            sizeof f->device, err, errlen);
    if (!g) return -1;
    f->backend = g;
    return 0;
}

static int gpu_step(br_field *f, const br_set_frame *frames, double h, br_set_sums *sums,
                    br_tangent_sums *tans, char *err, size_t errlen)
{
    return br_cuda_field_step((br_cuda_field *)f->backend, frames, h, f->record, sums, tans, err, errlen);
}

static int gpu_to_host(br_field *f)
{
    br_set_view tmp[BR_MAX_SETS_STACK];
    return br_cuda_field_download((br_cuda_field *)f->backend, host_views(f, tmp), f->record);
}

static int gpu_from_host(br_field *f)
{
    br_set_view tmp[BR_MAX_SETS_STACK];
    return br_cuda_field_upload((br_cuda_field *)f->backend, host_views(f, tmp));
}

static int gpu_start_recording(br_field *f)
{
    return br_cuda_field_record((br_cuda_field *)f->backend);
}

static void gpu_destroy(br_field *f)
{
    br_cuda_field_destroy((br_cuda_field *)f->backend);
    f->backend = NULL;
}

const br_backend_ops br_backend_cuda = {"cuda",        gpu_create,          gpu_step, gpu_to_host,
                                        gpu_from_host, gpu_start_recording, gpu_destroy};
