/* beam_cuda.cu: a batch of beam models resident on a CUDA device: kernels/beam_store.h's arrays on
 * the device and its per-variant stages in one thread a variant. A step's forces are launches on
 * one stream: frames_kernel (a variant's frames and its sets' frames into the field's device
 * array), the field's resident step, forces_pre_kernel (the sets' results from their sums, then
 * br_beam_store_forces_pre: loads and E blocks), the structure's solve by rows
 * (br_cuda_ga_solve_rows: a thread a row of a variant) and forces_post_kernel
 * (br_beam_store_forces_post: row changes, set powers, checks); its integration three
 * (integrate_row_kernel and integrate_col_kernel, a thread a row of a variant, then
 * integrate_end_kernel, kernels/beam_store.h's phases); the copies are the variants'
 * flags (energy, skip) up and their stop codes down, one int a variant, and on sampled steps the
 * records. A set's sums are added in the GPU's order (docs/gpu.md), so a variant agrees with its CPU
 * run to rounding, not bitwise. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "beam_cuda.h"
#include "cuda_check.h"

namespace {

/* A kernel of a thread a variant runs a long serial chain a thread (a variant's loads, set
 * results, checks): 1e4 variants are 313 warps, so blocks of one warp spread them over every SM
 * of an H100 (132) where blocks of four filled 79. The kernels of a thread a row take 128. */
constexpr int kThreads = 32;
constexpr int kRowThreads = 128;

__global__ void frames_kernel(br_step_model m, br_ga_shape sh, br_ga_arrays A, br_beam_store D, br_set_frame *sf)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    br_beam_store_frames(&m, &sh, &A, &D, v, sf);
}

__global__ void forces_pre_kernel(br_step_model m, br_ga_shape sh, br_ga_arrays A, br_beam_store D, const br_set_frame *sf,
                                  const br_set_sums *sums, const br_tangent_sums *tans)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    double *r = D.rec + v * D.o.size;
    for (int s = 0; s < m.nset; s++) { /* the field's finish of the set (host/field/field.c) */
        const long k = v * m.nset + s;
        if (!br_set_sums_finite(&sums[k])) {
            D.code[v] = BR_STEP_FIELD * BR_STEP_WHAT + s;
            return;
        }
        br_set_result_finish(&sums[k], tans ? &tans[k] : NULL, sf[k].xA, D.frames[v * D.nframe + m.set[s].frame_b].x, m.h,
                             r + D.o.E + s, r + D.o.E_nd + s, &D.res[k]);
    }
    br_beam_store_forces_pre(&m, &sh, &A, &D, v, NULL);
}

__global__ void forces_post_kernel(br_step_model m, br_ga_shape sh, br_ga_arrays A, br_beam_store D, const int *singular)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    br_beam_store_forces_post(&m, &sh, &A, &D, v, m.nset > 0 && sh.nr > 0 && singular[v]);
}

/* thread k: row k / nv of variant k % nv integrated, its loads' work in W[k] */
__global__ void integrate_row_kernel(br_ga_shape sh, br_ga_arrays A, br_beam_store D, double *W)
{
    const long k = (long)blockIdx.x * blockDim.x + threadIdx.x, v = k % D.nv;
    if (k >= (long)D.n * D.nv || D.code[v]) return;
    br_beam_store_integrate_row(&sh, &A, &D, v, (int)(k / D.nv), W);
}

/* thread k: column k / nv of variant k % nv's loss term in Q[k] */
__global__ void integrate_col_kernel(br_ga_shape sh, br_ga_arrays A, br_beam_store D, double *Q)
{
    const long k = (long)blockIdx.x * blockDim.x + threadIdx.x, v = k % D.nv;
    if (k >= (long)D.n * D.nv || D.code[v]) return;
    br_beam_store_integrate_col(&sh, &A, &D, v, (int)(k / D.nv), Q);
}

__global__ void integrate_end_kernel(br_step_model m, br_ga_shape sh, br_ga_arrays A, br_beam_store D, const double *W,
                                     const double *Q)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    br_beam_store_integrate_end(&m, &sh, &A, &D, v, W, Q);
}

} // namespace

struct br_cuda_beam {
    br_step_model m;                   /* device arrays */
    br_ga_shape sh;
    br_ga_arrays A;
    br_beam_store D;                 /* device arrays */
    br_cuda_field *field;
    br_cuda_ga *ga;                  /* the structures' batch (its solve by rows) */
    br_set_frame *sf;
    br_set_sums *sums;
    br_tangent_sums *tans;
    void *model_mem;                 /* the model's arrays, one allocation */
    double *W, *Q;                   /* the integration's scratch, n x nv each (kernels/beam_store.h) */
    int timing;                      /* br_cuda_beam_timing */
    double *secs;
    void *pinned[4];                 /* the host store's arrays the sampled steps copy into, page-locked
                                        (cudaHostRegister; NULL where that failed: copied as pageable) */
};

/* timing on: the stream waited for, the wall time since *t0 added to secs[k], *t0 now */
static void lap(br_cuda_beam *g, int k, double *t0)
{
    if (!g->timing) return;
    cudaDeviceSynchronize();
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const double t = ts.tv_sec + 1e-9 * ts.tv_nsec;
    if (*t0 > 0) g->secs[k] += t - *t0;
    *t0 = t;
}


extern "C" void br_cuda_beam_destroy(br_cuda_beam *g)
{
    if (!g) return;
    for (void *p : g->pinned)
        if (p) cudaHostUnregister(p);
    cudaFree(g->model_mem);
    cudaFree(g->D.rec), cudaFree(g->D.vec), cudaFree(g->D.frames), cudaFree(g->D.mag), cudaFree(g->D.res);
    cudaFree(g->D.step), cudaFree(g->D.code), cudaFree(g->D.energy);
    cudaFree(g->W), cudaFree(g->Q);
    delete g;
}

/* bytes of each of the store's arrays */
struct store_bytes {
    size_t rec, vec, frames, mag, res, step, flags;
};

static store_bytes sizes_of(const br_beam_store *D)
{
    const size_t nv = (size_t)D->nv;
    return store_bytes{(size_t)D->o.size * nv * sizeof(double), 7 * (size_t)D->n * nv * sizeof(double),
                       (size_t)D->nframe * nv * sizeof(br_frame_state), (size_t)D->nload * nv * sizeof(br_tf_flat),
                       (size_t)D->nset * nv * sizeof(br_set_result), nv * sizeof(long), nv * sizeof(int)};
}

#define FAILVAL (br_cuda_beam_destroy(g), (br_cuda_beam *)NULL)
extern "C" br_cuda_beam *br_cuda_beam_create(const br_step_model *m, const br_beam_sizes *z, br_cuda_ga *ga,
                                             br_cuda_field *field, const br_beam_store *host, char *err, size_t errlen)
{
    br_cuda_beam *g = new br_cuda_beam();
    if (br_cuda_field_resident(field, &g->sf, &g->sums, &g->tans)) {
        snprintf(err, errlen, "CUDA beam batch: its field has a set that steps alone (a batch of one variant?)");
        return FAILVAL;
    }
    if (z->nset && !g->tans) {
        snprintf(err, errlen, "CUDA beam batch: its sets reduce no wrench tangent");
        return FAILVAL;
    }
    g->field = field;
    g->ga = ga;
    /* the sets' frames of a variant that stops before its first step are read by the field: zeros */
    BR_CU(cudaMemset(g->sf, 0, (size_t)host->nv * z->nset * sizeof(br_set_frame)));
    br_cuda_ga_arrays(ga, &g->sh, &g->A);
    /* the model's arrays: dof, X, body_node, q0, offset, fg, loads, sets */
    const size_t sizes[] = {6 * (size_t)z->nnode * sizeof(int),       3 * (size_t)z->nnode * sizeof(double),
                            (size_t)z->nbody * sizeof(int),           4 * (size_t)z->nbody * sizeof(double),
                            3 * (size_t)z->nbody * sizeof(double),    3 * (size_t)z->nbody * sizeof(double),
                            (size_t)z->nload * sizeof(br_step_load),    (size_t)z->nset * sizeof(br_step_set)};
    const void *src[] = {m->dof, m->X, m->body_node, m->body_q0, m->body_offset, m->body_fg, m->load, m->set};
    size_t total = 0, at[8];
    for (int k = 0; k < 8; k++) at[k] = total, total += (sizes[k] + 15) / 16 * 16;
    BR_CU(cudaMalloc(&g->model_mem, total ? total : 16));
    char *base = (char *)g->model_mem;
    for (int k = 0; k < 8; k++)
        if (sizes[k]) BR_CU(cudaMemcpy(base + at[k], src[k], sizes[k], cudaMemcpyHostToDevice));
    g->m = *m;
    /* what a beam batch's model has none of (free bodies, springs, joints): no host pointer on the device */
    g->m.body_mass = NULL, g->m.body_Ib = NULL, g->m.rb_slot = NULL, g->m.rb_spring = NULL;
    g->m.spring = NULL, g->m.rot = NULL, g->m.nspring = 0, g->m.nrot = 0;
    g->m.dof = (const int *)(base + at[0]), g->m.X = (const double *)(base + at[1]);
    g->m.body_node = (const int *)(base + at[2]), g->m.body_q0 = (const double *)(base + at[3]);
    g->m.body_offset = (const double *)(base + at[4]), g->m.body_fg = (const double *)(base + at[5]);
    g->m.load = (const br_step_load *)(base + at[6]), g->m.set = (const br_step_set *)(base + at[7]);
    /* the store */
    br_beam_store &D = g->D;
    D = *host;
    D.rec = NULL, D.vec = NULL, D.frames = NULL, D.mag = NULL, D.res = NULL, D.step = NULL, D.code = NULL, D.energy = NULL;
    const store_bytes b = sizes_of(host);
    BR_CU(cudaMalloc(&D.rec, b.rec + 8));
    BR_CU(cudaMalloc(&D.vec, b.vec + 8));
    BR_CU(cudaMalloc(&D.frames, b.frames + 8));
    BR_CU(cudaMalloc(&D.mag, b.mag + 8));
    BR_CU(cudaMalloc(&D.res, b.res + 8));
    BR_CU(cudaMalloc(&D.step, b.step));
    BR_CU(cudaMalloc(&D.code, b.flags));
    BR_CU(cudaMalloc(&D.energy, b.flags));
    BR_CU(cudaMalloc(&g->W, b.vec / 7 + 8));
    BR_CU(cudaMalloc(&g->Q, b.vec / 7 + 8));
    BR_CU(cudaMemcpy(D.rec, host->rec, b.rec, cudaMemcpyHostToDevice));
    BR_CU(cudaMemcpy(D.vec, host->vec, b.vec, cudaMemcpyHostToDevice));
    BR_CU(cudaMemcpy(D.frames, host->frames, b.frames, cudaMemcpyHostToDevice));
    if (b.mag) BR_CU(cudaMemcpy(D.mag, host->mag, b.mag, cudaMemcpyHostToDevice));
    if (b.res) BR_CU(cudaMemcpy(D.res, host->res, b.res, cudaMemcpyHostToDevice));
    BR_CU(cudaMemcpy(D.step, host->step, b.step, cudaMemcpyHostToDevice));
    BR_CU(cudaMemset(D.code, 0, b.flags));
    BR_CU(cudaMemset(D.energy, 0, b.flags));
    /* the arrays br_cuda_beam_download fills on every sampled step (58 MB at 1e4 S5b variants),
     * page-locked so that the copy runs at the link's rate; a failure costs speed, not the run */
    void *const hp[4] = {host->rec, host->frames, host->res, host->step};
    const size_t hb[4] = {b.rec, b.frames, b.res, b.step};
    for (int k = 0; k < 4; k++) {
        if (hp[k] && hb[k] && cudaHostRegister(hp[k], hb[k], cudaHostRegisterDefault) == cudaSuccess) g->pinned[k] = hp[k];
        else cudaGetLastError(); /* clear it */
    }
    return g;
}
#undef FAILVAL

#define FAILVAL (-1)
extern "C" int br_cuda_beam_forces(br_cuda_beam *g, br_beam_store *host, char *err, size_t errlen)
{
    const store_bytes b = sizes_of(host);
    BR_CU(cudaMemcpyAsync(g->D.energy, host->energy, b.flags, cudaMemcpyHostToDevice));
    BR_CU(cudaMemcpyAsync(g->D.code, host->code, b.flags, cudaMemcpyHostToDevice));
    const unsigned blocks = (unsigned)((g->D.nv + kThreads - 1) / kThreads);
    double t0 = 0.0;
    lap(g, 0, &t0);
    frames_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D, g->sf);
    BR_CU(cudaGetLastError());
    lap(g, BR_PH_FRAMES, &t0);
    if (br_cuda_field_step_resident(g->field, g->m.h, 1, err, errlen)) return -1;
    lap(g, BR_PH_FIELD, &t0);
    if (br_cuda_field_step_resident(g->field, g->m.h, 2, err, errlen)) return -1;
    lap(g, BR_PH_FIELD_FINISH, &t0);
    forces_pre_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D, g->sf, g->sums, g->tans);
    BR_CU(cudaGetLastError());
    lap(g, BR_PH_FORCES_PRE, &t0);
    /* the solve: f is the store's g (the third of its vectors), E each record's imp_E */
    const long vn = (long)g->D.n * g->D.nv;
    if (br_cuda_ga_solve_rows(g->ga, g->D.vec + 2 * vn, g->m.nset ? g->D.rec + g->D.o.imp_E : NULL, g->D.o.size, 1,
                              g->D.code, err, errlen))
        return -1;
    lap(g, BR_PH_SOLVE, &t0);
    forces_post_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D, br_cuda_ga_singular(g->ga));
    BR_CU(cudaGetLastError());
    lap(g, BR_PH_FORCES_POST, &t0);
    BR_CU(cudaMemcpy(host->code, g->D.code, b.flags, cudaMemcpyDeviceToHost));
    lap(g, BR_PH_CODES, &t0);
    return 0;
}

extern "C" void br_cuda_beam_timing(br_cuda_beam *g, int on, double *secs)
{
    g->timing = on && secs, g->secs = secs;
}

extern "C" int br_cuda_beam_integrate(br_cuda_beam *g, const br_beam_store *host, char *err, size_t errlen)
{
    BR_CU(cudaMemcpyAsync(g->D.code, host->code, sizes_of(host).flags, cudaMemcpyHostToDevice));
    const unsigned blocks = (unsigned)((g->D.nv + kThreads - 1) / kThreads);
    const unsigned rblocks = (unsigned)(((long)g->D.n * g->D.nv + kRowThreads - 1) / kRowThreads);
    double t0 = 0.0;
    lap(g, BR_PH_INTEGRATE, &t0);
    if (rblocks) { /* a thread a row (then a column) of a variant: 7.2e5 threads at 1e4 S5b variants, not 1e4 */
        integrate_row_kernel<<<rblocks, kRowThreads>>>(g->sh, g->A, g->D, g->W);
        BR_CU(cudaGetLastError());
        integrate_col_kernel<<<rblocks, kRowThreads>>>(g->sh, g->A, g->D, g->Q);
        BR_CU(cudaGetLastError());
    }
    integrate_end_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D, g->W, g->Q);
    BR_CU(cudaGetLastError());
    lap(g, BR_PH_INTEGRATE, &t0);
    return 0;
}

extern "C" int br_cuda_beam_download(br_cuda_beam *g, br_beam_store *host, int all, long lean, char *err, size_t errlen)
{
    const store_bytes b = sizes_of(host);
    if (lean > 0 && !all) { /* a lean sample: each record's prefix */
        const size_t pitch = (size_t)host->o.size * sizeof(double);
        BR_CU(cudaMemcpy2D(host->rec, pitch, g->D.rec, pitch, (size_t)lean * sizeof(double), (size_t)host->nv,
                           cudaMemcpyDeviceToHost));
        return 0;
    }
    BR_CU(cudaMemcpy(host->rec, g->D.rec, b.rec, cudaMemcpyDeviceToHost));
    BR_CU(cudaMemcpy(host->frames, g->D.frames, b.frames, cudaMemcpyDeviceToHost));
    if (b.res) BR_CU(cudaMemcpy(host->res, g->D.res, b.res, cudaMemcpyDeviceToHost));
    BR_CU(cudaMemcpy(host->step, g->D.step, b.step, cudaMemcpyDeviceToHost));
    if (all) BR_CU(cudaMemcpy(host->vec, g->D.vec, b.vec, cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int br_cuda_beam_download_one(br_cuda_beam *g, br_beam_store *host, int v, char *err, size_t errlen)
{
    const size_t rs = (size_t)host->o.size, nf = (size_t)host->nframe, ns = (size_t)host->nset, u = (size_t)v;
    BR_CU(cudaMemcpy(host->rec + u * rs, g->D.rec + u * rs, rs * sizeof(double), cudaMemcpyDeviceToHost));
    BR_CU(cudaMemcpy(host->frames + u * nf, g->D.frames + u * nf, nf * sizeof(br_frame_state), cudaMemcpyDeviceToHost));
    if (ns) BR_CU(cudaMemcpy(host->res + u * ns, g->D.res + u * ns, ns * sizeof(br_set_result), cudaMemcpyDeviceToHost));
    BR_CU(cudaMemcpy(host->step + u, g->D.step + u, sizeof(long), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int br_cuda_beam_upload_loads(br_cuda_beam *g, const br_beam_store *host, int v, char *err, size_t errlen)
{
    const size_t nl = (size_t)host->nload;
    BR_CU(cudaMemcpy(g->D.mag + (size_t)v * nl, host->mag + (size_t)v * nl, nl * sizeof(br_tf_flat), cudaMemcpyHostToDevice));
    return 0;
}
#undef FAILVAL
