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

/* A thread steps law_items(law) points: it loads the inputs of all of them before it computes the
 * first, so that many loads are in flight at once, and the registers are capped so that two
 * blocks fit an SM (at most 128 a thread; a few spill; not the tangent kernels, whose 120 shuffle
 * trees need more). Measured on an H100 (docs/gpu.md), lugre3d
 * at 1e7 points: 4 points and no cap (156 registers, one block an SM) 1.55e10 updates/s, capped
 * 2.23e10; bristle2, whose 6 states make 4 points too many, 8.75e9 with 2 against 7.30e9 with 4.
 * BR_CUDA_ITEMS and BR_CUDA_MINB override both, for such measurements. */
constexpr int kBlock = 256; /* threads per block */
#ifndef BR_CUDA_MINB
#define BR_CUDA_MINB 2
#endif
__host__ __device__ constexpr int law_items(int law)
{
#ifdef BR_CUDA_ITEMS
    return (void)law, BR_CUDA_ITEMS;
#else
    return law == BR_LAW_BRISTLE2 ? 2 : 4;
#endif
}
constexpr int kFinishBlock = 128;
static_assert(sizeof(br_tangent_sums) == BR_TANGENT_N * sizeof(double), "tangent sums: doubles only");
static_assert(BR_TANGENT_N <= kFinishBlock, "finish_tangent_kernel: a thread per entry");

template <typename T>
struct CombineOp {
    __device__ T operator()(const T &a, const T &b) const
    {
        T r = a;
        br_sums_combine(&r, &b);
        return r;
    }
};

/* x on every lane of a warp -> its sum (a fixed shuffle tree) added to *slot by lane 0 */
__device__ void warp_sum_into(double x, double *slot)
{
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
    if ((threadIdx.x & 31) == 0) *slot += x;
}

/* One point per lane, as pieces (br_point_sums_tan; zero for a lane without a point) -> the
 * warp's 32 contributions to each entry of the tangent sums (the products of br_tan_pieces)
 * added to its slot t, entry by entry. Each lane holds a point's 30 pieces in registers instead
 * of 120 running sums in local memory. Every lane of the warp calls it. */
__device__ void warp_tangent_add(const br_point_tan_sums &o, br_tangent_sums *t)
{
    const double *gn = o.p.gn, *gj = o.p.gj;
#pragma unroll
    for (int c = 0; c < 6; c++) {
        double g[6];
        br_tan_sandwich_col(o.rw, o.p.Jc, c, g);
#pragma unroll
        for (int r = 0; r < 6; r++) {
            warp_sum_into(gj[r] * gn[c], &t->Kf[6 * c + r]);
            warp_sum_into(g[r], &t->Cf[6 * c + r]);
        }
    }
#pragma unroll
    for (int r = 0, q = 0; r < 6; r++) {
        const double kr = o.kn * gn[r], cr = o.cn * gn[r];
#pragma unroll
        for (int c = r; c < 6; c++, q++) {
            warp_sum_into(kr * gn[c], &t->Kn[q]);
            warp_sum_into(cr * gn[c], &t->Cn[q]);
        }
    }
#pragma unroll
    for (int r = 0; r < 6; r++) warp_sum_into(o.Nd * gn[r], &t->Wd[r]);
}

/* law -> the state doubles a thread keeps in registers for each of its points, loaded once and
 * stored once (br_law_nstate's count; 0 for gms, whose element count is the set's: it steps its
 * state in the set's arrays) */
__host__ __device__ constexpr int reg_states(int law)
{
    return law == BR_LAW_GMS || law == BR_LAW_GKF || law == BR_LAW_STATIC_REG ? 0 : law == BR_LAW_BRISTLE2 ? 6 : 3;
}

/* One block: kBlock threads, law_items(LAW) points each. With TAN the block also reduces the set's
 * wrench tangent (kernels/point_tangent.h) into tpartials[blockIdx.x]: each warp adds its points'
 * contributions into its own slot in shared memory, point by point in a fixed order, and the
 * slots are added in warp order at the end. */
template <int LAW, int SURF, bool TAN>
__global__ void __launch_bounds__(kBlock, TAN ? 1 : BR_CUDA_MINB) field_step_kernel(br_set_view v, br_set_frame f, double h,
                                                            br_set_sums *partials, br_tangent_sums *tpartials)
{
    using Reduce = cub::BlockReduce<br_set_sums, kBlock>;
    __shared__ typename Reduce::TempStorage tmp;
    constexpr int kWarps = kBlock / 32;
    __shared__ br_tangent_sums wt[TAN ? kWarps : 1];
    if constexpr (TAN) {
        for (int k = threadIdx.x; k < kWarps * BR_TANGENT_N; k += kBlock) ((double *)wt)[k] = 0.0;
        __syncthreads();
    }
    br_set_sums acc;
    br_sums_zero(&acc);
    constexpr int kItems = law_items(LAW);
    const long base = (long)blockIdx.x * kBlock * kItems + threadIdx.x;
    const long n = v.n;
    /* Without the tangent: every input of the thread's points first (8 loads a point for a law
     * of 3 states, all independent), then the steps, each state stored once. */
    constexpr int NZ = reg_states(LAW);
    double r[kItems][3], K[kItems], D[kItems], z[kItems][NZ > 0 ? NZ : 1];
    if constexpr (!TAN) {
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const long i = base + (long)j * kBlock;
            if (i < n) {
                r[j][0] = v.rx[i], r[j][1] = v.ry[i], r[j][2] = v.rz[i];
                K[j] = v.K[i], D[j] = v.D[i];
#pragma unroll
                for (int c = 0; c < NZ; c++) z[j][c] = v.state[c * n + i];
            }
        }
    }
    /* the tangent instantiation's body is 120 shuffle trees: unrolled four times it took ptxas
     * minutes per law and surface */
#pragma unroll(TAN ? 1 : kItems)
    for (int j = 0; j < kItems; j++) {
        const long i = base + (long)j * kBlock;
        br_set_sums q;
        br_sums_zero(&q);
        if constexpr (TAN) {
            br_point_tan_sums o;
            memset(&o, 0, sizeof o);
            if (i < n) o = br_point_sums_tan(LAW, SURF, &v, &f, h, i);
            warp_tangent_add(o, &wt[threadIdx.x >> 5]);
            q = o.q;
        } else if (i < n) {
            if constexpr (LAW != BR_LAW_GMS) {
                br_point_core(LAW, SURF, &v, &f, h, r[j], K[j], D[j], z[j], 1, &q, NULL);
#pragma unroll
                for (int c = 0; c < NZ; c++) v.state[c * n + i] = z[j][c];
            } else {
                br_point_core(LAW, SURF, &v, &f, h, r[j], K[j], D[j], v.state + i, n, &q, NULL);
            }
        }
        if (i < n) {
            br_sums_combine(&acc, &q);
            if (v.outF) {
                v.outF[i] = q.F[0];
                v.outF[n + i] = q.F[1];
                v.outF[2 * n + i] = q.F[2];
                v.outN[i] = q.N;
            }
        }
    }
    br_set_sums tot = Reduce(tmp).Reduce(acc, CombineOp<br_set_sums>());
    if (threadIdx.x == 0) partials[blockIdx.x] = tot;
    if constexpr (TAN) {
        __syncthreads();
        for (int k = threadIdx.x; k < BR_TANGENT_N; k += kBlock) {
            double x = ((const double *)&wt[0])[k];
            for (int w = 1; w < kWarps; w++) x += ((const double *)&wt[w])[k];
            ((double *)&tpartials[blockIdx.x])[k] = x;
        }
    }
}

/* one block per set: the set's partials folded in a fixed strided order, then reduced */
__global__ void __launch_bounds__(kFinishBlock) finish_kernel(const br_set_sums *partials, const long *offsets,
                                                              br_set_sums *out)
{
    using Reduce = cub::BlockReduce<br_set_sums, kFinishBlock>;
    __shared__ typename Reduce::TempStorage tmp;
    const int s = blockIdx.x;
    br_set_sums acc;
    br_sums_zero(&acc);
    for (long j = offsets[s] + threadIdx.x; j < offsets[s + 1]; j += kFinishBlock) br_sums_combine(&acc, &partials[j]);
    br_set_sums tot = Reduce(tmp).Reduce(acc, CombineOp<br_set_sums>());
    if (threadIdx.x == 0) out[s] = tot;
}

/* one block per set: entry k of the set's tangent sums, by thread k, the set's partials in order */
__global__ void __launch_bounds__(kFinishBlock) finish_tangent_kernel(const br_tangent_sums *partials,
                                                                      const long *offsets, br_tangent_sums *out)
{
    const int s = blockIdx.x, k = threadIdx.x;
    if (k >= BR_TANGENT_N) return;
    double a = 0.0;
    for (long j = offsets[s]; j < offsets[s + 1]; j++) a += ((const double *)&partials[j])[k];
    ((double *)&out[s])[k] = a;
}

/* points, law -> blocks of its kernel */
long blocks_for(long n, int law)
{
    const long per = (long)kBlock * law_items(law);
    return (n + per - 1) / per;
}

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
    /* Keep the local memory a kernel grows to (the tangent kernels' per-thread sums) instead of
     * giving it back after each launch, a reallocation and synchronization every step. Only
     * possible before the context starts; a second field finds it set. */
    if (cudaSetDeviceFlags(cudaDeviceLmemResizeToMax) != cudaSuccess) cudaGetLastError();
    cudaDeviceProp prop;
    BR_CU(cudaGetDeviceProperties(&prop, 0));
    if (dev && devlen) snprintf(dev, devlen, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
    size_t nd = 0;
    g->poff.push_back(0);
    for (int s = 0; s < nsets; s++) {
        if (views[s].law != BR_LAW_GMS && views[s].nstate != reg_states(views[s].law)) {
            if (err && errlen) snprintf(err, errlen, "CUDA backend: law %d keeps %d states, the kernel %d", views[s].law,
                     views[s].nstate, reg_states(views[s].law));
            return FAILVAL;
        }
        nd += view_doubles(views[s]);
        g->poff.push_back(g->poff.back() + blocks_for(views[s].n, views[s].law));
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
        const long nb = blocks_for(v.n, v.law);
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
        case BR_LAW_JENKINS: launch<BR_LAW_JENKINS>(sf, tg, nb, v, frames[s], h, part, tpart); break;
        default:
            if (err && errlen) snprintf(err, errlen, "CUDA backend: unknown law %d", v.law);
            return -1;
        }
        BR_CU(cudaGetLastError());
    }
    finish_kernel<<<g->nsets, kFinishBlock>>>(g->partials, g->d_poff, g->d_sums);
    BR_CU(cudaGetLastError());
    if (g->any_tangent) {
        finish_tangent_kernel<<<g->nsets, kFinishBlock>>>(g->tpartials, g->d_poff, g->d_tans);
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
