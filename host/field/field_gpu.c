/* field_gpu.c: the CUDA backend's entry in the backend table; the work is
 * done by kernels/field_cuda.cu behind its C API. Compiled only with CUDA. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/field_cuda.h"
#include "field/field_internal.h"

/* The backend's data: the CUDA field and a host array of the set views (their host pointers, for
 * the copies to and from the device), allocated with the field so a step allocates nothing. */
typedef struct gpu_backend {
    br_cuda_field *g;
    br_set_view *views;
} gpu_backend;

/* f -> its sets' current host views in b->views */
static br_set_view *host_views(br_field *f, gpu_backend *b)
{
    for (int s = 0; s < f->nsets; s++) b->views[s] = f->sets[s].view;
    return b->views;
}

static int gpu_create(br_field *f, char *err, size_t errlen)
{
    gpu_backend *b = calloc(1, sizeof *b);
    int *tangent = calloc((size_t)f->nsets, sizeof(int)), *surface = calloc((size_t)f->nsets, sizeof(int));
    if (b) b->views = calloc((size_t)f->nsets, sizeof(br_set_view));
    if (!b || !b->views || !tangent || !surface) {
        snprintf(err, errlen, "CUDA backend: out of memory for %d contact sets", f->nsets);
        if (b) free(b->views);
        free(b), free(tangent), free(surface);
        return -1;
    }
    for (int s = 0; s < f->nsets; s++) tangent[s] = f->sets[s].tangent, surface[s] = f->sets[s].geom.surface;
    b->g = br_cuda_field_create(host_views(f, b), tangent, surface, f->nsets, f->device, sizeof f->device, err, errlen);
    free(tangent), free(surface);
    if (!b->g) {
        free(b->views), free(b);
        return -1;
    }
    f->backend = b;
    return 0;
}

static int gpu_step(br_field *f, const br_set_frame *frames, double h, br_set_sums *sums,
                    br_tangent_sums *tans, char *err, size_t errlen)
{
    return br_cuda_field_step(((gpu_backend *)f->backend)->g, frames, h, f->record, sums, tans, err, errlen);
}

static int gpu_to_host(br_field *f)
{
    gpu_backend *b = f->backend;
    return br_cuda_field_download(b->g, host_views(f, b), f->record);
}

static int gpu_from_host(br_field *f)
{
    gpu_backend *b = f->backend;
    return br_cuda_field_upload(b->g, host_views(f, b));
}

static int gpu_start_recording(br_field *f)
{
    return br_cuda_field_record(((gpu_backend *)f->backend)->g);
}

static void gpu_destroy(br_field *f)
{
    gpu_backend *b = f->backend;
    if (b) {
        br_cuda_field_destroy(b->g);
        free(b->views), free(b);
    }
    f->backend = NULL;
}

const br_backend_ops br_backend_cuda = {"cuda",        gpu_create,          gpu_step, gpu_to_host,
                                        gpu_from_host, gpu_start_recording, gpu_destroy};

struct br_cuda_field *br_field_cuda_of(br_field *f)
{
    return f->ops == &br_backend_cuda ? ((gpu_backend *)f->backend)->g : NULL;
}
