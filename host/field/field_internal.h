/* field_internal.h: the contact field's data and the table of backend
 * operations (SUNDIALS-style: one algorithm in field.c, backends behind ops). */
#ifndef BR_FIELD_INTERNAL_H
#define BR_FIELD_INTERNAL_H

#include "field/field.h"

typedef struct br_field_set {
    char name[64];
    int frame_a, frame_b;
    br_contact_set_desc geom;  /* surface, plane_p, plane_n, radius (the pointers are not kept) */
    br_set_view view;  /* host arrays: the CPU backend works on these directly */
    long partial_off;  /* first slot of this set in the partial-sum buffer */
    long npartial;     /* fixed chunk count: ceil(n / BR_CPU_CHUNK) */
    int tangent;       /* the step also reduces the wrench tangent */
} br_field_set;

typedef struct br_backend_ops {
    const char *name;
    /* field (host arrays filled) -> backend data in f->backend, 0 or -1 with err */
    int (*create)(br_field *f, char *err, size_t errlen);
    /* set frames, h -> states advanced, sums[nsets] filled, and tans[s] for the sets with a tangent */
    int (*step)(br_field *f, const br_set_frame *frames, double h, br_set_sums *sums, br_tangent_sums *tans,
                char *err, size_t errlen);
    /* backend state of every set -> host arrays (state and, if recorded, outF/outN) */
    int (*sync_to_host)(br_field *f);
    /* host state arrays -> backend state */
    int (*sync_from_host)(br_field *f);
    /* recording switched on -> backend per-point output buffers exist (NULL: nothing to do) */
    int (*start_recording)(br_field *f);
    void (*destroy)(br_field *f);
} br_backend_ops;

struct br_field {
    int nsets;
    br_field_set *sets;
    long npoints;             /* all sets */
    double *host_block;       /* one allocation for every host per-point array */
    size_t host_bytes;        /* per-point bytes (geometry, parameters, state) */
    int record;               /* per-point output requested */
    double *outF, *outN;      /* host per-point outputs (allocated when recording) */
    br_set_frame *frames;     /* scratch, nsets */
    br_set_sums *sums;        /* scratch, nsets */
    br_tangent_sums *tans;     /* scratch, nsets */
    br_set_sums *partials;    /* CPU backend: one slot per chunk */
    br_tangent_sums *tpartials;/* CPU backend: one tangent slot per chunk */
    long npartials;
    double *E, *E_nd;         /* running integrals per set */
    const br_backend_ops *ops;
    void *backend;
    char device[128];
};

/* Chunk of points summed sequentially by the CPU backend: fixed, independent of
 * the thread count, so the reduction order (and every bit of the sums) is too. */
#define BR_CPU_CHUNK 2048

extern const br_backend_ops br_backend_cpu;
#ifdef BRISTLE_HAVE_CUDA
extern const br_backend_ops br_backend_cuda;
struct br_cuda_field;
/* a field on the CUDA backend -> its device field (kernels/field_cuda.h), else NULL */
struct br_cuda_field *br_field_cuda_of(br_field *f);
#endif

#endif
