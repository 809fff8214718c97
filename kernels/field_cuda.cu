/* field_cuda.cu: CUDA backend of the contact field.
 *
 * Per step, one fused kernel (templated on the friction law) per group of sets
 * that share a law, counter surface and tangent flag (a study's variants: one
 * launch steps the same set of every variant) does kinematics, Hunt-Crossley
 * normal force, state update, force and a CUB block reduction of the set sums;
 * each block writes one partial, in its set's own slots. A second
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

#include "cuda_check.h"
#include "field_cuda.h"

namespace {

/* A thread steps law_items(law) points: it loads the inputs of all of them before it computes the
 * first, so that many loads are in flight at once, and the registers are capped so that two
 * blocks fit an SM (at most 128 a thread; a few spill; not the tangent kernels, whose 120 shuffle
 * trees need more). Measured on an H100 (docs/gpu.md), lugre3d
 * at 1e7 points: 4 points and no cap (156 registers, one block an SM) 1.55e10 updates/s, capped
 * 2.23e10; bristle2, whose 6 states (9 since 2026-11-26) make 4 points too many, 8.75e9 with 2 against
 * 7.30e9 with 4.
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
/* A set of 1 to kSmall points steps in a segment of a warp, a point a lane, its sums reduced by
 * shuffles within the segment (step_seg): segments of lanes_for(n) lanes (the next power of two),
 * 32 / lanes_for(n) sets a warp, kSmallWarps warps a block. A study's variants make tens of
 * thousands of sets of a few points each, and a 256-thread block for each (step_block: one thread
 * busy, eight warps' 120 tangent shuffle trees four times over) cost 6.4 ms a step for 2e4 sets of
 * 4 points on an H100 (benchmarks/results/2026-11-27-gpu-h100.md). Which path and segment width a
 * set takes depend on its size alone, so a set's sums are the same in a group and alone. */
constexpr int kSmall = 32;
constexpr int kSmallWarps = 4;
__host__ __device__ constexpr bool small_set(long n) { return n >= 1 && n <= kSmall; }
__host__ __device__ constexpr int lanes_for(long n) { return n <= 1 ? 1 : 2 * lanes_for((n + 1) / 2); }
static_assert(lanes_for(1) == 1 && lanes_for(4) == 4 && lanes_for(5) == 8 && lanes_for(17) == 32 && lanes_for(32) == 32,
              "lanes_for: the next power of two");
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

/* x on every lane of a warp, segments of L lanes (a power of two, 32: the whole warp) -> each
 * segment's sum (a fixed shuffle tree) added to *slot by its first lane where write (SET: stored
 * there instead). Every lane of the warp calls it. */
template <bool SET>
__device__ __forceinline__ void warp_sum_into(double x, double *slot, int L, bool write)
{
    for (int o = L >> 1; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o, L);
    if (write) *slot = SET ? x : *slot + x;
}

/* a set's sums on every lane of a warp, segments of L lanes -> the segment's combined sums on its
 * first lane (the same tree as warp_sum_into; the other lanes hold partial results) */
__device__ __forceinline__ br_set_sums seg_reduce(br_set_sums acc, int L)
{
    static_assert(sizeof(br_set_sums) % sizeof(double) == 0, "set sums: doubles only");
    for (int o = L >> 1; o > 0; o >>= 1) {
        br_set_sums other;
        const double *a = (const double *)&acc;
        double *b = (double *)&other;
#pragma unroll
        for (int k = 0; k < (int)(sizeof acc / sizeof(double)); k++) b[k] = __shfl_down_sync(0xffffffffu, a[k], o, L);
        br_sums_combine(&acc, &other);
    }
    return acc;
}

/* One point per lane, as pieces (br_point_sums_tan; zero for a lane without a point) -> the
 * warp's 32 contributions to each entry of the tangent sums (the products of br_tan_pieces)
 * added to its slot t, entry by entry (SET: stored in it); with segments of L lanes (a set each),
 * each segment's into its own slot, written by its first lane where write. Each lane holds a
 * point's 30 pieces in registers instead of 120 running sums in local memory. Every lane of the
 * warp calls it. */
template <bool SET>
__device__ __forceinline__ void warp_tangent_add(const br_point_tan_sums &o, br_tangent_sums *t, int L, bool write)
{
    const double *gn = o.p.gn, *gj = o.p.gj;
#pragma unroll
    for (int c = 0; c < 6; c++) {
        double g[6];
        br_tan_sandwich_col(o.rw, o.p.Jc, c, g);
#pragma unroll
        for (int r = 0; r < 6; r++) {
            warp_sum_into<SET>(gj[r] * gn[c], &t->Kf[6 * c + r], L, write);
            warp_sum_into<SET>(g[r], &t->Cf[6 * c + r], L, write);
        }
    }
#pragma unroll
    for (int r = 0, q = 0; r < 6; r++) {
        const double kr = o.kn * gn[r], cr = o.cn * gn[r];
#pragma unroll
        for (int c = r; c < 6; c++, q++) {
            warp_sum_into<SET>(kr * gn[c], &t->Kn[q], L, write);
            warp_sum_into<SET>(cr * gn[c], &t->Cn[q], L, write);
        }
    }
#pragma unroll
    for (int r = 0; r < 6; r++) warp_sum_into<SET>(o.Nd * gn[r], &t->Wd[r], L, write);
}

/* law -> the state doubles a thread keeps in registers for each of its points, loaded once and
 * stored once (br_law_nstate's count; 0 for gms, whose element count is the set's: it steps its
 * state in the set's arrays) */
__host__ __device__ constexpr int reg_states(int law)
{
    return law == BR_LAW_GMS || law == BR_LAW_GKF || law == BR_LAW_STATIC_REG ? 0 : law == BR_LAW_BRISTLE2 ? 9 : 3;
}

/* Block blk of set v (kBlock threads, law_items(LAW) points each) -> the set's points
 * [blk kBlock kItems, (blk + 1) kBlock kItems) advanced and their sums in *partial. With TAN the
 * block also reduces the set's wrench tangent (kernels/point_tangent.h) into *tpartial: each warp
 * adds its points' contributions into its own slot in shared memory, point by point in a fixed
 * order, and the slots are added in warp order at the end. */
template <int LAW, int SURF, bool TAN>
__device__ __forceinline__ void step_block(const br_set_view &v, const br_set_frame &f, double h, long blk,
                                           br_set_sums *partial, br_tangent_sums *tpartial)
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
    const long base = blk * kBlock * kItems + threadIdx.x;
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
            warp_tangent_add<false>(o, &wt[threadIdx.x >> 5], 32, (threadIdx.x & 31) == 0);
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
    if (threadIdx.x == 0) *partial = tot;
    if constexpr (TAN) {
        __syncthreads();
        for (int k = threadIdx.x; k < BR_TANGENT_N; k += kBlock) {
            double x = ((const double *)&wt[0])[k];
            for (int w = 1; w < kWarps; w++) x += ((const double *)&wt[w])[k];
            ((double *)tpartial)[k] = x;
        }
    }
}

/* A set of 1 to kSmall points (small_set) in a segment of L = lanes_for(n) lanes of the calling
 * warp, point i on the segment's lane i -> the points advanced, their sums in *partial and (TAN)
 * the set's wrench tangent in *tpartial, written by the segment's first lane: the same point steps
 * as step_block's, the sums reduced across the segment (seg_reduce), the tangent by
 * warp_tangent_add's shuffle trees stored straight into the set's slot. active 0: a segment
 * without a set, which takes part in the shuffles and writes nothing. Every lane of the warp
 * calls it with the same L. */
template <int LAW, int SURF, bool TAN>
__device__ __forceinline__ void step_seg(const br_set_view &v, const br_set_frame &f, double h, int L, bool active,
                                         br_set_sums *partial, br_tangent_sums *tpartial)
{
    const long i = threadIdx.x & (L - 1), n = active ? v.n : 0;
    const bool first = active && i == 0;
    br_set_sums q;
    br_sums_zero(&q);
    if constexpr (TAN) {
        br_point_tan_sums o;
        memset(&o, 0, sizeof o);
        if (i < n) o = br_point_sums_tan(LAW, SURF, &v, &f, h, i);
        warp_tangent_add<true>(o, tpartial, L, first);
        if (i < n) q = o.q;
    } else if (i < n) {
        constexpr int NZ = reg_states(LAW);
        double r[3] = {v.rx[i], v.ry[i], v.rz[i]};
        if constexpr (LAW != BR_LAW_GMS) {
            double z[NZ > 0 ? NZ : 1];
#pragma unroll
            for (int c = 0; c < NZ; c++) z[c] = v.state[c * n + i];
            br_point_core(LAW, SURF, &v, &f, h, r, v.K[i], v.D[i], z, 1, &q, NULL);
#pragma unroll
            for (int c = 0; c < NZ; c++) v.state[c * n + i] = z[c];
        } else {
            br_point_core(LAW, SURF, &v, &f, h, r, v.K[i], v.D[i], v.state + i, n, &q, NULL);
        }
    }
    if (i < n && v.outF) {
        v.outF[i] = q.F[0];
        v.outF[n + i] = q.F[1];
        v.outF[2 * n + i] = q.F[2];
        v.outN[i] = q.N;
    }
    br_set_sums acc;
    br_sums_zero(&acc);
    if (i < n) br_sums_combine(&acc, &q);
    const br_set_sums tot = seg_reduce(acc, L);
    if (first) *partial = tot;
}

/* The small sets (small_set) of one group, all of L = lanes_for(n) lanes, 32 / L a warp and
 * kSmallWarps warps a block: segment k of the launch steps set set[k] (of nsets) with that set's
 * view and frame (device arrays) straight into its sums sums[set] and tangent sums tans[set] (no
 * finish: a finish of one partial copies the sums bit for bit, and a tangent entry but for the
 * sign of a zero, 0 + -0 = +0). */
template <int LAW, int SURF, bool TAN>
__global__ void __launch_bounds__(32 * kSmallWarps)
    field_small_kernel(const br_set_view *views, const br_set_frame *frames, const int *set, long nsets, int L,
                       double h, int record, br_set_sums *sums, br_tangent_sums *tans)
{
    const long t = (long)blockIdx.x * blockDim.x + threadIdx.x, k = t / L;
    if ((t & ~31L) / L >= nsets) return; /* the whole warp: no set in it */
    const bool active = k < nsets;
    const int s = set[active ? k : 0];
    br_set_view v = views[s];
    if (!record) v.outF = v.outN = NULL;
    const br_set_frame f = frames[s];
    step_seg<LAW, SURF, TAN>(v, f, h, L, active, sums + s, tans + s);
}

/* One set, its view and frame in the launch's parameters: block b -> partials[b], tpartials[b]
 * (step_block) */
template <int LAW, int SURF, bool TAN>
__global__ void __launch_bounds__(kBlock, TAN ? 1 : BR_CUDA_MINB) field_step_kernel(br_set_view v, br_set_frame f, double h,
                                                            br_set_sums *partials, br_tangent_sums *tpartials)
{
    step_block<LAW, SURF, TAN>(v, f, h, blockIdx.x, partials + blockIdx.x, tpartials + blockIdx.x);
}

/* Every set of one group (the same law, surface and tangent flag; in a study, the same set of
 * every variant): block b of the launch steps block blk[b] of set set[b] with that set's view and
 * frame (device arrays) and writes its partials at poff[set] + blk (the set's own slots, so the
 * per-set sums are those of a launch per set, bit for bit). Without record the per-point
 * outputs are not written. */
template <int LAW, int SURF, bool TAN>
__global__ void __launch_bounds__(kBlock, TAN ? 1 : BR_CUDA_MINB)
    field_group_kernel(const br_set_view *views, const br_set_frame *frames, const int *set, const long *blk,
                       const long *poff, double h, int record, br_set_sums *partials, br_tangent_sums *tpartials)
{
    const int s = set[blockIdx.x];
    const long b = blk[blockIdx.x], slot = poff[s] + b;
    br_set_view v = views[s];
    if (!record) v.outF = v.outN = NULL;
    const br_set_frame f = frames[s]; /* a copy: the state stores cannot alias it */
    step_block<LAW, SURF, TAN>(v, f, h, b, partials + slot, tpartials + slot);
}

/* block b for set fin[b]: the set's partials folded in a fixed strided order, then reduced */
__global__ void __launch_bounds__(kFinishBlock) finish_kernel(const br_set_sums *partials, const long *offsets,
                                                              const int *fin, br_set_sums *out)
{
    using Reduce = cub::BlockReduce<br_set_sums, kFinishBlock>;
    __shared__ typename Reduce::TempStorage tmp;
    const int s = fin[blockIdx.x];
    br_set_sums acc;
    br_sums_zero(&acc);
    for (long j = offsets[s] + threadIdx.x; j < offsets[s + 1]; j += kFinishBlock) br_sums_combine(&acc, &partials[j]);
    br_set_sums tot = Reduce(tmp).Reduce(acc, CombineOp<br_set_sums>());
    if (threadIdx.x == 0) out[s] = tot;
}

/* block b for set fin[b]: entry k of the set's tangent sums, by thread k, the set's partials in order */
__global__ void __launch_bounds__(kFinishBlock) finish_tangent_kernel(const br_tangent_sums *partials,
                                                                      const long *offsets, const int *fin,
                                                                      br_tangent_sums *out)
{
    const int s = fin[blockIdx.x], k = threadIdx.x;
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

/* What one launch needs: a single set (its view and frame by value, its partial slots) or a
 * group of sets (the device tables of field_group_kernel). */
struct launch_args {
    long nb;                             /* blocks */
    int group;                           /* 0: one set (v, f); 1: the tables below */
    int small;                           /* small sets (small_set), from the tables: nb of them, lanes lanes
                                            each (a group of one too) */
    int lanes;
    br_set_view v;
    br_set_frame f;
    const br_set_view *views;
    const br_set_frame *frames;
    const int *set;
    const long *blk, *poff;
    int record;
    double h;
    br_set_sums *part;                   /* one set: its first slot; group: the whole array; small: the sums */
    br_tangent_sums *tpart;
};

/* law, surface, tangent (templates), a -> the kernel specialised for all three, launched */
template <int LAW, int SURF, bool TAN>
void launch3(const launch_args &a)
{
    if (a.small) {
        const long per = 32L * kSmallWarps / a.lanes; /* sets a block */
        field_small_kernel<LAW, SURF, TAN><<<(a.nb + per - 1) / per, 32 * kSmallWarps>>>(
            a.views, a.frames, a.set, a.nb, a.lanes, a.h, a.record, a.part, a.tpart);
    }
    else if (a.group)
        field_group_kernel<LAW, SURF, TAN><<<a.nb, kBlock>>>(a.views, a.frames, a.set, a.blk, a.poff, a.h, a.record,
                                                             a.part, a.tpart);
    else field_step_kernel<LAW, SURF, TAN><<<a.nb, kBlock>>>(a.v, a.f, a.h, a.part, a.tpart);
}

template <int LAW, bool TAN>
void launch2(int surface, const launch_args &a)
{
    if (surface == BR_SURF_SPHERE) launch3<LAW, BR_SURF_SPHERE, TAN>(a);
    else if (surface == BR_SURF_CYLINDER) launch3<LAW, BR_SURF_CYLINDER, TAN>(a);
    else launch3<LAW, BR_SURF_PLANE, TAN>(a);
}

template <int LAW>
void launch1(int surface, int tangent, const launch_args &a)
{
    if (tangent) launch2<LAW, true>(surface, a);
    else launch2<LAW, false>(surface, a);
}

/* law, surface, tangent, a -> the launch; -1 for an unknown law */
int launch(int law, int surface, int tangent, const launch_args &a)
{
    switch (law) {
    case BR_LAW_LUGRE3D: launch1<BR_LAW_LUGRE3D>(surface, tangent, a); break;
    case BR_LAW_LUGRE3D_CLASSIC: launch1<BR_LAW_LUGRE3D_CLASSIC>(surface, tangent, a); break;
    case BR_LAW_DAHL3D: launch1<BR_LAW_DAHL3D>(surface, tangent, a); break;
    case BR_LAW_GKF: launch1<BR_LAW_GKF>(surface, tangent, a); break;
    case BR_LAW_STATIC_REG: launch1<BR_LAW_STATIC_REG>(surface, tangent, a); break;
    case BR_LAW_BRISTLE2: launch1<BR_LAW_BRISTLE2>(surface, tangent, a); break;
    case BR_LAW_BRISTLE_IMPLICIT: launch1<BR_LAW_BRISTLE_IMPLICIT>(surface, tangent, a); break;
    case BR_LAW_GMS: launch1<BR_LAW_GMS>(surface, tangent, a); break;
    case BR_LAW_JENKINS: launch1<BR_LAW_JENKINS>(surface, tangent, a); break;
    default: return -1;
    }
    return 0;
}

/* The sets that share a law, counter surface and tangent flag step in one launch: a study's
 * variants (each a copy of the same sets) take one launch per set of the scenario, not one per
 * set and variant. A group of one set launches with its view and frame as parameters. */
struct set_group {
    int law, surface, tangent;
    int lanes;      /* 0, or its sets are small (small_set) and take this many lanes (lanes_for): one
                       table entry each */
    int first_set;  /* a group of one: that set */
    int nsets;
    long nb;        /* blocks */
    long table;     /* its first entry in the block tables */
};

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
    std::vector<int> surface;        /* per set: its counter surface (the groups are built for these) */
    std::vector<set_group> groups;
    int any_group;                   /* a group of several sets: frames go to the device each step */
    br_set_view *d_views;            /* device copies of views (for the group kernels) */
    br_set_frame *d_frames;
    br_set_frame *h_frames;          /* pinned */
    int *d_set;                      /* block tables of the groups */
    long *d_blk;
    int *d_fin;                      /* the sets reduced from their partials (all but the small ones) */
    int nfin;
};


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

/* ndev devices -> the one this process uses: BRISTLE_GPU (an index) where set, else the process's
 * rank on its node as an MPI launcher tells it (one rank per GPU: Open MPI, Slurm, MPICH/PMI)
 * modulo ndev, else 0; -1 for a BRISTLE_GPU that names no device */
static int pick_device(int ndev)
{
    const char *want = getenv("BRISTLE_GPU");
    if (want && *want) {
        char *end;
        const long k = strtol(want, &end, 10);
        return *end || k < 0 || k >= ndev ? -1 : (int)k;
    }
    static const char *const local[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID",
                                        "PMI_LOCAL_RANK"};
    for (const char *name : local) {
        const char *x = getenv(name);
        if (x && *x) return ndev > 0 ? (int)(strtol(x, NULL, 10) % ndev) : 0;
    }
    return 0;
}

#define FAILVAL (-1)
/* -> this process's device (pick_device) made current; its index, or -1 with err */
static int use_device(char *err, size_t errlen)
{
    int ndev = 0;
    BR_CU(cudaGetDeviceCount(&ndev));
    const int dev = pick_device(ndev);
    if (dev < 0) {
        if (err && errlen) snprintf(err, errlen, "BRISTLE_GPU=%s: not a device index from 0 to %d", getenv("BRISTLE_GPU"), ndev - 1);
        return -1;
    }
    BR_CU(cudaSetDevice(dev));
    return dev;
}
#undef FAILVAL

#define FAILVAL (-1)
extern "C" int br_cuda_select(char *dev, size_t devlen, char *err, size_t errlen)
{
    const int id = use_device(err, errlen);
    if (id < 0) return -1;
    cudaDeviceProp prop;
    BR_CU(cudaGetDeviceProperties(&prop, id));
    if (dev && devlen) snprintf(dev, devlen, "%s (sm_%d%d, device %d)", prop.name, prop.major, prop.minor, id);
    return id;
}
#undef FAILVAL

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
    cudaFree(g->d_views);
    cudaFree(g->d_frames);
    cudaFreeHost(g->h_frames);
    cudaFree(g->d_set);
    cudaFree(g->d_blk);
    cudaFree(g->d_fin);
    delete g;
}

#define FAILVAL (br_cuda_field_destroy(g), (br_cuda_field *)NULL)
extern "C" br_cuda_field *br_cuda_field_create(const br_set_view *views, const int *tangent, const int *surface,
                                               int nsets, char *dev, size_t devlen, char *err, size_t errlen)
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
    const int id = use_device(err, errlen);
    if (id < 0) return FAILVAL;
    if (cudaSetDeviceFlags(cudaDeviceLmemResizeToMax) != cudaSuccess) cudaGetLastError();
    cudaDeviceProp prop;
    BR_CU(cudaGetDeviceProperties(&prop, id));
    if (dev && devlen) snprintf(dev, devlen, "%s (sm_%d%d, device %d)", prop.name, prop.major, prop.minor, id);
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
    /* a set without a tangent keeps zeros there (a small one writes none; the finish wrote the
     * zeros of its partials) */
    BR_CU(cudaMemset(g->d_tans, 0, (size_t)nsets * sizeof(br_tangent_sums)));
    BR_CU(cudaMallocHost(&g->h_tans, (size_t)nsets * sizeof(br_tangent_sums)));
    BR_CU(cudaMalloc(&g->d_poff, g->poff.size() * sizeof(long)));
    BR_CU(cudaMalloc(&g->d_sums, (size_t)nsets * sizeof(br_set_sums)));
    BR_CU(cudaMallocHost(&g->h_sums, (size_t)nsets * sizeof(br_set_sums)));
    BR_CU(cudaMemcpy(g->d_poff, g->poff.data(), g->poff.size() * sizeof(long),
                     cudaMemcpyHostToDevice));
    /* the sets' arrays, in the device block's order, gathered into copies of up to 64 MB (a copy
     * per array was six a set: 1.2e6 copies for a 1e5-variant S5b study); an array larger than
     * that is copied alone */
    const size_t cap = (size_t)8 << 20;
    std::vector<double> stage;
    stage.reserve(nd < cap ? nd : cap);
    size_t at = 0, from_at = 0; /* the next array's offset in the block, the stage's */
    cudaError_t ce = cudaSuccess;
    auto flush = [&]() -> int {
        if (!stage.empty())
            ce = cudaMemcpy(g->block + from_at, stage.data(), stage.size() * sizeof(double), cudaMemcpyHostToDevice);
        stage.clear();
        from_at = at;
        return ce != cudaSuccess;
    };
    /* src (count doubles) -> its place in the block (after the last array's); a failed copy is
     * left in ce, and the arrays after it are not copied */
    auto put = [&](const double *src, size_t count) -> double * {
        double *dst = g->block + at;
        if (!count || ce != cudaSuccess) return dst;
        if (stage.size() + count > cap && flush()) return dst;
        if (count > cap) {
            ce = cudaMemcpy(dst, src, count * sizeof(double), cudaMemcpyHostToDevice);
            at += count, from_at = at;
            return dst;
        }
        stage.insert(stage.end(), src, src + count);
        at += count;
        return dst;
    };
    for (int s = 0; s < nsets; s++) {
        br_set_view d = views[s];
        const size_t n = (size_t)d.n;
        d.rx = put(views[s].rx, n), d.ry = put(views[s].ry, n), d.rz = put(views[s].rz, n);
        d.K = put(views[s].K, n), d.D = put(views[s].D, n);
        d.state = put(views[s].state, (size_t)d.nstate * n);
        BR_CU(ce);
        d.outF = d.outN = NULL;
        g->views.push_back(d);
    }
    flush();
    BR_CU(ce);
    /* the groups, in the order of their first set; each group's sets in set order */
    std::vector<int> set_of;
    std::vector<long> blk_of;
    g->any_group = 0;
    for (int s = 0; s < nsets; s++) {
        g->surface.push_back(surface[s]);
        size_t k = 0;
        const int ln = small_set(views[s].n) ? lanes_for(views[s].n) : 0;
        while (k < g->groups.size() && !(g->groups[k].law == views[s].law && g->groups[k].surface == surface[s] &&
                                         g->groups[k].tangent == g->tangent[s] && g->groups[k].lanes == ln))
            k++;
        if (k == g->groups.size()) g->groups.push_back({views[s].law, surface[s], g->tangent[s], ln, s, 0, 0, 0});
        g->groups[k].nsets++;
    }
    for (set_group &q : g->groups) {
        q.table = (long)set_of.size();
        for (int s = q.first_set; s < nsets; s++) {
            if (!(views[s].law == q.law && surface[s] == q.surface && g->tangent[s] == q.tangent &&
                  (small_set(views[s].n) ? lanes_for(views[s].n) : 0) == q.lanes))
                continue;
            const long nb = blocks_for(views[s].n, views[s].law);
            for (long b = 0; b < nb; b++) set_of.push_back(s), blk_of.push_back(b);
            q.nb += nb;
        }
        g->any_group |= q.nsets > 1 || q.lanes > 0; /* small sets launch from the tables even alone */
    }
    if (g->any_group) {
        BR_CU(cudaMalloc(&g->d_views, (size_t)nsets * sizeof(br_set_view)));
        BR_CU(cudaMemcpy(g->d_views, g->views.data(), (size_t)nsets * sizeof(br_set_view), cudaMemcpyHostToDevice));
        BR_CU(cudaMalloc(&g->d_frames, (size_t)nsets * sizeof(br_set_frame)));
        BR_CU(cudaMallocHost(&g->h_frames, (size_t)nsets * sizeof(br_set_frame)));
        BR_CU(cudaMalloc(&g->d_set, set_of.size() * sizeof(int)));
        BR_CU(cudaMalloc(&g->d_blk, blk_of.size() * sizeof(long)));
        BR_CU(cudaMemcpy(g->d_set, set_of.data(), set_of.size() * sizeof(int), cudaMemcpyHostToDevice));
        BR_CU(cudaMemcpy(g->d_blk, blk_of.data(), blk_of.size() * sizeof(long), cudaMemcpyHostToDevice));
    }
    std::vector<int> fin; /* the sets a finish reduces: the small ones write their sums themselves */
    for (int s = 0; s < nsets; s++)
        if (!small_set(views[s].n)) fin.push_back(s);
    g->nfin = (int)fin.size();
    if (g->nfin) {
        BR_CU(cudaMalloc(&g->d_fin, fin.size() * sizeof(int)));
        BR_CU(cudaMemcpy(g->d_fin, fin.data(), fin.size() * sizeof(int), cudaMemcpyHostToDevice));
    }
    return g;
}
#undef FAILVAL

#define FAILVAL (-1)
/* field, the host frames (NULL: every set steps in a group launch from the device frames), h,
 * record, parts -> every group launched (parts & 1), the sums and tangent sums reduced on the
 * device (parts & 2) */
static int launch_all(br_cuda_field *g, const br_set_frame *frames, double h, int record, int parts, char *err,
                      size_t errlen)
{
    if (parts & 1)
        for (const set_group &q : g->groups) {
            launch_args a;
            memset(&a, 0, sizeof a);
            a.nb = q.nb;
            a.small = q.lanes > 0;
            a.lanes = q.lanes;
            a.h = h;
            a.record = record;
            if (q.nsets == 1 && frames && !q.lanes) {
                const int s = q.first_set;
                a.v = g->views[s];
                if (!record) a.v.outF = a.v.outN = NULL;
                a.f = frames[s];
                a.part = g->partials + g->poff[s];
                a.tpart = g->tpartials + g->poff[s];
            } else {
                a.group = 1;
                a.views = g->d_views, a.frames = g->d_frames, a.poff = g->d_poff;
                a.set = g->d_set + q.table, a.blk = g->d_blk + q.table;
                a.part = g->partials, a.tpart = g->tpartials;
                if (q.lanes) a.part = g->d_sums, a.tpart = g->d_tans;
            }
            if (launch(q.law, q.surface, q.tangent, a)) {
                if (err && errlen) snprintf(err, errlen, "CUDA backend: unknown law %d", q.law);
                return -1;
            }
            BR_CU(cudaGetLastError());
        }
    if (!(parts & 2) || !g->nfin) return 0;
    finish_kernel<<<g->nfin, kFinishBlock>>>(g->partials, g->d_poff, g->d_fin, g->d_sums);
    BR_CU(cudaGetLastError());
    if (g->any_tangent) {
        finish_tangent_kernel<<<g->nfin, kFinishBlock>>>(g->tpartials, g->d_poff, g->d_fin, g->d_tans);
        BR_CU(cudaGetLastError());
    }
    return 0;
}

extern "C" int br_cuda_field_step(br_cuda_field *g, const br_set_frame *frames, double h,
                                  int record, br_set_sums *sums, br_tangent_sums *tans, char *err, size_t errlen)
{
    for (int s = 0; s < g->nsets; s++)
        if (frames[s].surface != g->surface[s]) {
            if (err && errlen) snprintf(err, errlen, "CUDA backend: set %d changed its counter surface", s);
            return -1;
        }
    if (g->any_group) { /* every set's frame, for the group kernels (the launches follow on the same stream) */
        memcpy(g->h_frames, frames, (size_t)g->nsets * sizeof(br_set_frame));
        BR_CU(cudaMemcpyAsync(g->d_frames, g->h_frames, (size_t)g->nsets * sizeof(br_set_frame), cudaMemcpyHostToDevice));
    }
    if (launch_all(g, frames, h, record, 3, err, errlen)) return -1;
    if (g->any_tangent) {
        BR_CU(cudaMemcpy(g->h_tans, g->d_tans, (size_t)g->nsets * sizeof(br_tangent_sums), cudaMemcpyDeviceToHost));
        memcpy(tans, g->h_tans, (size_t)g->nsets * sizeof(br_tangent_sums));
    }
    BR_CU(cudaMemcpy(g->h_sums, g->d_sums, (size_t)g->nsets * sizeof(br_set_sums),
                     cudaMemcpyDeviceToHost));
    memcpy(sums, g->h_sums, (size_t)g->nsets * sizeof(br_set_sums));
    return 0;
}

extern "C" int br_cuda_field_resident(br_cuda_field *g, br_set_frame **frames, br_set_sums **sums,
                                      br_tangent_sums **tans)
{
    for (const set_group &q : g->groups)
        if (q.nsets == 1 && !q.lanes) return -1;
    *frames = g->d_frames, *sums = g->d_sums, *tans = g->any_tangent ? g->d_tans : NULL;
    return 0;
}

extern "C" int br_cuda_field_step_resident(br_cuda_field *g, double h, int parts, char *err, size_t errlen)
{
    return launch_all(g, NULL, h, 0, parts, err, errlen);
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
    if (g->any_group) /* the group kernels read the output pointers from the device copies (again if
                         an earlier upload failed) */
        BR_CU(cudaMemcpy(g->d_views, g->views.data(), (size_t)g->nsets * sizeof(br_set_view),
                         cudaMemcpyHostToDevice));
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
    if (use_device(err, errlen) < 0) return FAILVAL;
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
