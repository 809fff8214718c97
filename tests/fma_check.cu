/* fma_check.cu: every law's point step (kernels/point_step.h) with and without the wrench tangent,
 * and a variant's structure step (kernels/ga_step.h), as device code, compiled to PTX by tests/fma-check.sh: with the project's CUDA flags it must hold
 * no fused multiply-add, so each point's arithmetic rounds as the C11 CPU build's does (docs/gpu.md).
 * Never run. */
#include "kernels/ga_step.h"
#include "kernels/point_step.h"

template <int LAW>
__global__ void step(br_set_view v, br_set_frame f, double h, br_set_sums *out)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.n) out[i] = br_point_sums(LAW, BR_SURF_PLANE, &v, &f, h, i);
}

template <int LAW>
__global__ void step_tangent(br_set_view v, br_set_frame f, double h, br_point_tan_sums *out)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.n) out[i] = br_point_sums_tan(LAW, BR_SURF_SPHERE, &v, &f, h, i);
}

#define BR_FMA_CHECK(LAW)                                                                 \
    template __global__ void step<LAW>(br_set_view, br_set_frame, double, br_set_sums *); \
    template __global__ void step_tangent<LAW>(br_set_view, br_set_frame, double, br_point_tan_sums *);
BR_FMA_CHECK(BR_LAW_LUGRE3D)
BR_FMA_CHECK(BR_LAW_LUGRE3D_CLASSIC)
BR_FMA_CHECK(BR_LAW_DAHL3D)
BR_FMA_CHECK(BR_LAW_GKF)
BR_FMA_CHECK(BR_LAW_STATIC_REG)
BR_FMA_CHECK(BR_LAW_BRISTLE2)
BR_FMA_CHECK(BR_LAW_BRISTLE_IMPLICIT)
BR_FMA_CHECK(BR_LAW_GMS)
BR_FMA_CHECK(BR_LAW_JENKINS)
static_assert(BR_LAW_COUNT == 9, "fma_check.cu: a law added to point_law.h belongs here too");

/* the structure step of a batch of variants (kernels/ga_cuda.cu's kernel body) */
__global__ void ga_step(br_ga_shape sh, br_ga_arrays A, const double *f, const double *E, double *du, double *dv,
                        double *dm, int *bad)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < A.nv) bad[v] = br_ga_batch_one(&sh, &A, v, f, E, du, dv, dm);
}
