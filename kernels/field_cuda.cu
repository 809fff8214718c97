/* field_cuda.cu: CUDA backend of the contact field.
 *
 * Per step and contact set, one fused kernel (templated on the friction law)
 * does kinematics, Hunt-Crossley normal force, state update, force and a CUB
 * block reduction of the set sums; each block writes one partial. A second
 * kernel (one block per set) combines the partials of each set in a fixed
 * strided order and reduces them with CUB again. No atomics: the same input
 * gives bitwise the same sums on the same device. The grid depends only on
 * the point count, not on the device. */
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "field_cuda.h"

namespace {

constexpr int kBlock = 256;      /* threads per block */
constexpr int kItems = 4;        /* points per thread */
constexpr int kFinishBlock = 128;

/* The set sums and the tangent sums, zeroed and combined under one name (fixed order) */
__device__ void sums_zero(br_set_sums *s) { br_sums_zero(s); }
__device__ void sums_zero(br_tangent_sums *s) { br_tangent_zero(s); }
__device__ void sums_combine(br_set_sums *a, const br_set_sums *b) { br_sums_combine(a, b); }
__device__ void sums_combine(br_tangent_sums *a, const br_tangent_sums *b) { br_tangent_combine(a, b); }

template <typename T>
struct CombineOp {
    __device__ T operator()(const T &a, const T &b) const
    {
        T r = a;
        sums_combine(&r, &b);
        return r;
    }
};

/* One block: kBlock threads, kItems points each. With TAN the block also reduces the set's
 * wrench tangent (kernels/point_tangent.h) into tpartials[blockIdx.x]. */
template <int LAW, int SURF, bool TAN>
__global__ void __launch_bounds__(kBlock) field_step_kernel(br_set_view v, br_set_frame f, double h,
                                                            br_set_sums *partials, br_tangent_sums *tpartials)
{
    using Reduce = cub::BlockReduce<br_set_sums, kBlock>;
    __shared__ typename Reduce::TempStorage tmp;
    br_set_sums acc;
    br_sums_zero(&acc);
    br_tangent_sums tacc;
    if constexpr (TAN) br_tangent_zero(&tacc);
    const long base = (long)blockIdx.x * kBlock * kItems + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kItems; j++) {
        const long i = base + (long)j * kBlock;
        if (i < v.n) {
            br_set_sums q;
            br_sums_zero(&q);
            br_point_step(LAW, SURF, &v, &f, h, i, &q, TAN ? &tacc : nullptr);
            br_sums_combine(&acc, &q);
            if (v.outF) {
                v.outF[i] = q.F[0];
                v.outF[v.n + i] = q.F[1];
                v.outF[2 * v.n + i] = q.F[2];
                v.outN[i] = q.N;
            }
        }
    }
    br_set_sums tot = Reduce(tmp).Reduce(acc, CombineOp<br_set_sums>());
    if (threadIdx.x == 0) partials[blockIdx.x] = tot;
    if constexpr (TAN) {
        using TReduce = cub::BlockReduce<br_tangent_sums, kBlock>;
        __shared__ typename TReduce::TempStorage ttmp;
        br_tangent_sums ttot = TReduce(ttmp).Reduce(tacc, CombineOp<br_tangent_sums>());
        if (threadIdx.x == 0) tpartials[blockIdx.x] = ttot;
    }
}

/* one block per set: the set's partials (sums or tangent sums) folded in a fixed strided order,
 * then reduced */
template <typename T>
__global__ void __launch_bounds__(kFinishBlock) finish_kernel(const T *partials, const long *offsets, T *out)
{
    using Reduce = cub::BlockReduce<T, kFinishBlock>;
    __shared__ typename Reduce::TempStorage tmp;
    const int s = blockIdx.x;
    T acc;
    sums_zero(&acc);
    for (long j = offsets[s] + threadIdx.x; j < offsets[s + 1]; j += kFinishBlock) sums_combine(&acc, &partials[j]);
    T tot = Reduce(tmp).Reduce(acc, CombineOp<T>());
    if (threadIdx.x == 0) out[s] = tot;
}

long blocks_for(long n) { return (n + (long)kBlock * kItems - 1) / ((long)kBlock * kItems); }

/* law (template), surface, tangent -> the kernel specialised for all three */
template <int LAW, bool TAN>
void launch_tan(int surface, long nb, const br_set_view &v, const br_set_frame &f, double h, br_set_sums *part,
                br_tangent_sums *tpart)
{
    if (surface == BR_SURF_SPHERE)
        field_step_kernel<LAW, BR_SURF_SPHERE, TAN><<<nb, kBlock>>>(v, f, h, part, tpart);
    else if (surface == BR_SURF_CYLINDER)
        field_step_kernel<LAW, BR_SURF_CYLINDER, TAN><<<nb, kBlock>>>(v, f, h, part, tpart);
    else field_step_kernel<LAW, BR_SURF_PLANE, TAN><<<nb, kBlock>>>(v, f, h, part, tpart);
}

template <int LAW>
void launch(int surface, int tangent, long nb, const br_set_view &v, const br_set_frame &f, double h,
            br_set_sums *part, br_tangent_sums *tpart)
{
    if (tangent) launch_tan<LAW, true>(surface, nb, v, f, h, part, tpart);
    else launch_tan<LAW, false>(surface, nb, v, f, h, part, tpart);
}

}  // namespace

struct br_cuda_field {
    int nsets;
    std::vector<br_set_view> views; /* device pointers */
    std::vector<int> tangent;       /* per set: also reduce the wrench tangent */
    int any_tangent;
    std::vector<long> poff;         /* partial offsets per set, nsets + 1 */
    double *block;                  /* geometry, K, D, state */
    size_t block_bytes;
    double *out;                    /* per-point outputs (4 n), when recorded */
    br_set_sums *partials;
    br_tangent_sums *tpartials;      /* one tangent per block (zero for sets without) */
    long *d_poff;
    br_set_sums *d_sums;
    br_set_sums *h_sums;            /* pinned */
    br_tangent_sums *d_tans;
    br_tangent_sums *h_tans;         /* pinned */
};

#define BR_CU(call)                                                                            \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            if (err && errlen)                                                                 \
                snprintf(err, errlen, "CUDA error %s at %s:%d: %s", cudaGetErrorName(e_),      \
                         __FILE__, __LINE__, cudaGetErrorString(e_));                          \
            return FAILVAL;                                                                    \
        }                                                                                      \
    } while (0)

extern "C" int br_cuda_device_count(char *why, size_t whylen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (why && whylen) snprintf(why, whylen, "%s", cudaGetErrorString(e));
        cudaGetLastError();
        return 0;
    }
    if (n == 0 && why && whylen) snprintf(why, whylen, "no CUDA device found");
    return n;
}

static size_t view_doubles(const br_set_view &v)
{
    return (size_t)v.n * (5 + (size_t)v.nstate);
}

extern "C" void br_cuda_field_destroy(br_cuda_field *g)
{
    if (!g) return;
    cudaFree(g->block);
    cudaFree(g->out);
    cudaFree(g->partials);
    cudaFree(g->tpartials);
    cudaFree(g->d_poff);
    cudaFree(g->d_sums);
    cudaFreeHost(g->h_sums);
    cudaFree(g->d_tans);
    cudaFreeHost(g->h_tans);
    delete g;
}

#define FAILVAL (br_cuda_field_destroy(g), (br_cuda_field *)NULL)
extern "C" br_cuda_field *br_cuda_field_create(const br_set_view *views, const int *tangent, int nsets,
                                               char *dev, size_t devlen, char *err, size_t errlen)
{
    br_cuda_field *g = new br_cuda_field();
    g->nsets = nsets;
    g->any_tangent = 0;
    for (int s = 0; s < nsets; s++) {
        g->tangent.push_back(tangent && tangent[s]);
        g->any_tangent |= g->tangent.back();
    }
    cudaDeviceProp prop;
    BR_CU(cudaGetDeviceProperties(&prop, 0));
    if (dev && devlen) snprintf(dev, devlen, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
    size_t nd = 0;
    g->poff.push_back(0);
    for (int s = 0; s < nsets; s++) {
        nd += view_doubles(views[s]);
        g->poff.push_back(g->poff.back() + blocks_for(views[s].n));
    }
    g->block_bytes = nd * sizeof(double);
    BR_CU(cudaMalloc(&g->block, g->block_bytes));
    BR_CU(cudaMalloc(&g->partials, (size_t)g->poff.back() * sizeof(br_set_sums)));
    BR_CU(cudaMalloc(&g->tpartials, (size_t)g->poff.back() * sizeof(br_tangent_sums)));
    BR_CU(cudaMemset(g->tpartials, 0, (size_t)g->poff.back() * sizeof(br_tangent_sums)));
    BR_CU(cudaMalloc(&g->d_tans, (size_t)nsets * sizeof(br_tangent_sums)));
    BR_CU(cudaMallocHost(&g->h_tans, (size_t)nsets * sizeof(br_tangent_sums)));
    BR_CU(cudaMalloc(&g->d_poff, g->poff.size() * sizeof(long)));
    BR_CU(cudaMalloc(&g->d_sums, (size_t)nsets * sizeof(br_set_sums)));
    BR_CU(cudaMallocHost(&g->h_sums, (size_t)nsets * sizeof(br_set_sums)));
    BR_CU(cudaMemcpy(g->d_poff, g->poff.data(), g->poff.size() * sizeof(long),
                     cudaMemcpyHostToDevice));
    double *p = g->block;
    for (int s = 0; s < nsets; s++) {
        br_set_view d = views[s];
        const size_t n = (size_t)d.n, b = n * sizeof(double);
        double *rx = p, *ry = p + n, *rz = p + 2 * n;
        BR_CU(cudaMemcpy(rx, views[s].rx, b, cudaMemcpyHostToDevice));
        BR_CU(cudaMemcpy(ry, views[s].ry, b, cudaMemcpyHostToDevice));
        BR_CU(cudaMemcpy(rz, views[s].rz, b, cudaMemcpyHostToDevice));
        d.rx = rx;
        d.ry = ry;
        d.rz = rz;
        p += 3 * n;
        BR_CU(cudaMemcpy(p, views[s].K, b, cudaMemcpyHostToDevice));
        d.K = p;
        p += n;
        BR_CU(cudaMemcpy(p, views[s].D, b, cudaMemcpyHostToDevice));
        d.D = p;
        p += n;
        d.state = p;
        if (d.nstate)
            BR_CU(cudaMemcpy(p, views[s].state, (size_t)d.nstate * b, cudaMemcpyHostToDevice));
        p += (size_t)d.nstate * n;
        d.outF = d.outN = NULL;
        g->views.push_back(d);
    }
    return g;
}
#undef FAILVAL

#define FAILVAL (-1)
extern "C" int br_cuda_field_step(br_cuda_field *g, const br_set_frame *frames, double h,
                                  int record, br_set_sums *sums, br_tangent_sums *tans, char *err, size_t errlen)
{
    for (int s = 0; s < g->nsets; s++) {
        br_set_view v = g->views[s];
        if (!record) v.outF = v.outN = NULL;
        const long nb = blocks_for(v.n);
        br_set_sums *part = g->partials + g->poff[s];
        br_tangent_sums *tpart = g->tpartials + g->poff[s];
        const int sf = frames[s].surface, tg = g->tangent[s];
        switch (v.law) {
        case BR_LAW_LUGRE3D: launch<BR_LAW_LUGRE3D>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_LUGRE3D_CLASSIC: launch<BR_LAW_LUGRE3D_CLASSIC>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_DAHL3D: launch<BR_LAW_DAHL3D>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_GKF: launch<BR_LAW_GKF>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_STATIC_REG: launch<BR_LAW_STATIC_REG>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_BRISTLE2: launch<BR_LAW_BRISTLE2>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_BRISTLE_IMPLICIT: launch<BR_LAW_BRISTLE_IMPLICIT>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        case BR_LAW_GMS: launch<BR_LAW_GMS>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        default:
            if (err && errlen) snprintf(err, errlen, "CUDA backend: unknown law %d", v.law);
            return -1;
        }
        BR_CU(cudaGetLastError());
    }
    finish_kernel<br_set_sums><<<g->nsets, kFinishBlock>>>(g->partials, g->d_poff, g->d_sums);
    BR_CU(cudaGetLastError());
    if (g->any_tangent) {
        finish_kernel<br_tangent_sums><<<g->nsets, kFinishBlock>>>(g->tpartials, g->d_poff, g->d_tans);
        BR_CU(cudaGetLastError());
        BR_CU(cudaMemcpy(g->h_tans, g->d_tans, (size_t)g->nsets * sizeof(br_tangent_sums), cudaMemcpyDeviceToHost));
        memcpy(tans, g->h_tans, (size_t)g->nsets * sizeof(br_tangent_sums));
    }
    BR_CU(cudaMemcpy(g->h_sums, g->d_sums, (size_t)g->nsets * sizeof(br_set_sums),
                     cudaMemcpyDeviceToHost));
    memcpy(sums, g->h_sums, (size_t)g->nsets * sizeof(br_set_sums));
    return 0;
}

extern "C" int br_cuda_field_download(br_cuda_field *g, const br_set_view *views, int record)
{
    char *err = NULL;
    size_t errlen = 0;
    for (int s = 0; s < g->nsets; s++) {
        const br_set_view &d = g->views[s];
        const size_t b = (size_t)d.n * sizeof(double);
        if (d.nstate)
            BR_CU(cudaMemcpy(views[s].state, d.state, (size_t)d.nstate * b, cudaMemcpyDeviceToHost));
        if (record && d.outF && views[s].outF) {
            BR_CU(cudaMemcpy(views[s].outF, d.outF, 3 * b, cudaMemcpyDeviceToHost));
            BR_CU(cudaMemcpy(views[s].outN, d.outN, b, cudaMemcpyDeviceToHost));
        }
    }
    return 0;
}

extern "C" int br_cuda_field_record(br_cuda_field *g)
{
    char *err = NULL;
    size_t errlen = 0;
    if (!g->out) {
        long n = 0;
        for (int s = 0; s < g->nsets; s++) n += g->views[s].n;
        BR_CU(cudaMalloc(&g->out, 4 * (size_t)n * sizeof(double)));
        BR_CU(cudaMemset(g->out, 0, 4 * (size_t)n * sizeof(double)));
        double *p = g->out;
        for (int s = 0; s < g->nsets; s++) {
            g->views[s].outF = p;
            g->views[s].outN = p + 3 * g->views[s].n;
            p += 4 * g->views[s].n;
        }
    }
    return 0;
}

extern "C" int br_cuda_field_upload(br_cuda_field *g, const br_set_view *views)
{
    char *err = NULL;
    size_t errlen = 0;
    for (int s = 0; s < g->nsets; s++) {
        const br_set_view &d = g->views[s];
        if (d.nstate)
            BR_CU(cudaMemcpy(d.state, views[s].state, (size_t)d.nstate * d.n * sizeof(double),
                             cudaMemcpyHostToDevice));
    }
    return 0;
}
#undef FAILVAL

extern "C" size_t br_cuda_field_bytes(const br_cuda_field *g) { return g->block_bytes; }

#define FAILVAL (-1.0)
extern "C" double br_cuda_copy_bandwidth(size_t bytes, int reps, char *err, size_t errlen)
{
    char *a = NULL, *b = NULL;
    cudaEvent_t t0, t1;
    BR_CU(cudaMalloc(&a, bytes));
    BR_CU(cudaMalloc(&b, bytes));
    BR_CU(cudaMemset(a, 1, bytes));
    BR_CU(cudaEventCreate(&t0));
    BR_CU(cudaEventCreate(&t1));
    BR_CU(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
    BR_CU(cudaEventRecord(t0));
    for (int r = 0; r < reps; r++) BR_CU(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    BR_CU(cudaEventRecord(t1));
    BR_CU(cudaEventSynchronize(t1));
    float ms = 0.0f;
    BR_CU(cudaEventElapsedTime(&ms, t0, t1));
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * (double)bytes * reps / (ms * 1e-3) / 1e9;
}
#undef FAILVAL
