/* beam_cuda.cu: a batch of beam models resident on a CUDA device. A step is three launches on one
 * stream and no copy: frames_kernel (one thread a variant: br_bm_frames, then its sets' frames
 * into the field's device array), the field's resident step (its group kernels and reductions),
 * after_kernel (one thread a variant: the sets' results from their sums, br_bm_loads, br_bm_accel,
 * br_bm_check, br_bm_integrate). The stages are kernels/beam_step.h's, as on the CPU; a set's
 * sums are added in the GPU's order (docs/gpu.md), so a variant agrees with its CPU run to
 * rounding, not bitwise. A variant's small state is one record of doubles (its nodes, frames, body
 * states, energies, per-set integrals); the structure's vectors have the variant innermost. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "beam_cuda.h"

namespace {

constexpr int kThreads = 128;
constexpr int kMaxSet = 16; /* a thread's set results on its stack */

/* offsets of a variant's record (doubles) */
struct rec_off {
    long xnode, frames, bx, bv, bw, load_val, E_upto, End_upto, setP, setPnd, setE, setEnd;
    long imp_E, imp_du, imp_dv, imp_dm, en, res_ref, p_drive, t, E, E_nd, size;
};

struct dev_state {
    int nv, n, nset, nload;
    rec_off o;
    double *rec;              /* nv records */
    double *vec;              /* up vp g gext gext_prev uprev vprev: n x nv each */
    br_tf_flat *mag;          /* nv x nload */
    br_set_result *res;       /* nv x nset */
    long *step;               /* nv */
    int *code;                /* nv: 0 running, else why it stopped */
    int *energy;              /* nv */
};

__device__ void var_of(const dev_state &D, const br_ga_arrays &A, long v, br_bm_var *x)
{
    br_ga_arrays_var(&A, v, &x->ga);
    const size_t vn = (size_t)D.n * D.nv;
    double *p = D.vec + v;
    x->up = p, x->vp = p + vn, x->g = p + 2 * vn, x->gext = p + 3 * vn, x->gext_prev = p + 4 * vn;
    x->uprev = p + 5 * vn, x->vprev = p + 6 * vn;
    x->s = D.nv;
    double *r = D.rec + (size_t)v * D.o.size;
    x->xnode = r + D.o.xnode;
    x->frames = (br_frame_state *)(r + D.o.frames);
    x->bx = r + D.o.bx, x->bv = r + D.o.bv, x->bw = r + D.o.bw;
    x->load_val = r + D.o.load_val;
    x->mag = D.mag + (size_t)v * D.nload;
    x->E_upto = r + D.o.E_upto, x->End_upto = r + D.o.End_upto, x->setP = r + D.o.setP, x->setPnd = r + D.o.setPnd;
    x->setE = r + D.o.setE, x->setEnd = r + D.o.setEnd;
    x->imp_E = r + D.o.imp_E, x->imp_du = r + D.o.imp_du, x->imp_dv = r + D.o.imp_dv, x->imp_dm = r + D.o.imp_dm;
    x->en = (br_energy_terms *)(r + D.o.en);
    x->res_ref = r + D.o.res_ref, x->p_drive = r + D.o.p_drive;
    x->t = r[D.o.t];
    x->step = D.step[v];
}

__global__ void frames_kernel(br_bm_model m, br_ga_shape sh, br_ga_arrays A, dev_state D, br_set_frame *sf)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    br_bm_var x;
    var_of(D, A, v, &x);
    br_bm_frames(&m, &sh, &x);
    for (int s = 0; s < m.nset; s++) {
        const br_bm_set *cs = &m.set[s];
        br_set_frame_make(cs->surface, cs->plane_p, cs->plane_n, cs->radius, &x.frames[cs->frame_a], &x.frames[cs->frame_b],
                          -1.0, &sf[(size_t)v * m.nset + s]);
    }
}

__global__ void after_kernel(br_bm_model m, br_ga_shape sh, br_ga_arrays A, dev_state D, const br_set_frame *sf,
                             const br_set_sums *sums, const br_tangent_sums *tans)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    br_bm_var x;
    var_of(D, A, v, &x);
    double *rv = D.rec + (size_t)v * D.o.size;
    br_bm_res r[kMaxSet];
    for (int s = 0; s < m.nset; s++) {
        const size_t k = (size_t)v * m.nset + s;
        if (!br_set_sums_finite(&sums[k])) {
            D.code[v] = BR_BM_FIELD * 256 + s;
            return;
        }
        br_set_result *q = &D.res[k];
        br_set_result_finish(&sums[k], tans ? &tans[k] : NULL, sf[k].xA, x.frames[m.set[s].frame_b].x, m.h,
                             rv + D.o.E + s, rv + D.o.E_nd + s, q);
        r[s] = br_bm_res{q->F_A, q->M_A, q->F_B, q->M_B, q->Ff_A, q->Mf_A, q->N, q->P, q->E_el, q->E_b, q->P_nd, &q->tan};
    }
    br_bm_loads(&m, &sh, &x, r, D.energy[v]);
    int code = br_bm_accel(&m, &sh, &x, r) ? BR_BM_SINGULAR * 256 : BR_BM_OK;
    if (!code) code = br_bm_check(&m, &sh, &x, r, D.energy[v]);
    if (code) D.code[v] = code;
}

__global__ void integrate_kernel(br_bm_model m, br_ga_shape sh, br_ga_arrays A, dev_state D)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= D.nv || D.code[v]) return;
    br_bm_var x;
    var_of(D, A, v, &x);
    br_bm_integrate(&m, &sh, &x);
    D.rec[(size_t)v * D.o.size + D.o.t] = x.t;
    D.step[v] = x.step;
}

} // namespace

struct br_cuda_beam {
    br_bm_model m;                   /* device arrays */
    br_ga_shape sh;
    br_ga_arrays A;
    dev_state D;
    br_cuda_field *field;
    br_set_frame *sf;
    br_set_sums *sums;
    br_tangent_sums *tans;
    void *model_mem;                 /* the model's arrays, one allocation */
    std::vector<int> energy;         /* the flags last uploaded */
    std::vector<double> stage_rec;   /* br_cuda_beam_sample's host copies */
    std::vector<long> stage_step;
    std::vector<br_set_result> stage_res;
    br_beam_sizes z;
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

extern "C" void br_cuda_beam_destroy(br_cuda_beam *g)
{
    if (!g) return;
    cudaFree(g->model_mem);
    cudaFree(g->D.rec), cudaFree(g->D.vec), cudaFree(g->D.mag), cudaFree(g->D.res);
    cudaFree(g->D.step), cudaFree(g->D.code), cudaFree(g->D.energy);
    delete g;
}

/* sizes -> the record's offsets */
static rec_off offsets(const br_beam_sizes *z)
{
    rec_off o;
    long k = 0;
    o.xnode = k, k += 3 * z->nnode;
    o.frames = k, k += (long)(sizeof(br_frame_state) / sizeof(double)) * z->nframe;
    o.bx = k, k += 3 * z->nbody;
    o.bv = k, k += 3 * z->nbody;
    o.bw = k, k += 3 * z->nbody;
    o.load_val = k, k += z->nload;
    o.E_upto = k, k += z->nset;
    o.End_upto = k, k += z->nset;
    o.setP = k, k += z->nset;
    o.setPnd = k, k += z->nset;
    o.setE = k, k += z->nset;
    o.setEnd = k, k += z->nset;
    o.imp_E = k, k += 36 * z->nset;
    o.imp_du = k, k += 6 * z->nset;
    o.imp_dv = k, k += 6 * z->nset;
    o.imp_dm = k, k += 6 * z->nset;
    o.en = k, k += (long)(sizeof(br_energy_terms) / sizeof(double));
    o.res_ref = k++;
    o.p_drive = k++;
    o.t = k++;
    o.E = k, k += z->nset;
    o.E_nd = k, k += z->nset;
    o.size = k;
    return o;
}

/* host record of a variant <-> its views (to: 1 host views -> record, 0 record -> host views) */
static void record_io(const rec_off &o, const br_beam_sizes *z, double *r, const br_bm_var *x, int to)
{
    struct part {
        long off;
        double *p;
        long n;
    } parts[] = {{o.xnode, x->xnode, 3L * z->nnode},
                 {o.frames, (double *)x->frames, (long)(sizeof(br_frame_state) / sizeof(double)) * z->nframe},
                 {o.bx, x->bx, 3L * z->nbody}, {o.bv, x->bv, 3L * z->nbody}, {o.bw, x->bw, 3L * z->nbody},
                 {o.load_val, x->load_val, z->nload}, {o.E_upto, x->E_upto, z->nset}, {o.End_upto, x->End_upto, z->nset},
                 {o.setP, x->setP, z->nset}, {o.setPnd, x->setPnd, z->nset}, {o.setE, x->setE, z->nset},
                 {o.setEnd, x->setEnd, z->nset}, {o.imp_E, x->imp_E, 36L * z->nset}, {o.imp_du, x->imp_du, 6L * z->nset},
                 {o.imp_dv, x->imp_dv, 6L * z->nset}, {o.imp_dm, x->imp_dm, 6L * z->nset},
                 {o.en, (double *)x->en, (long)(sizeof(br_energy_terms) / sizeof(double))}, {o.res_ref, x->res_ref, 1},
                 {o.p_drive, x->p_drive, 1}};
    for (const part &q : parts) {
        if (to) memcpy(r + q.off, q.p, (size_t)q.n * sizeof(double));
        else memcpy(q.p, r + q.off, (size_t)q.n * sizeof(double));
    }
}

#define FAILVAL (br_cuda_beam_destroy(g), (br_cuda_beam *)NULL)
extern "C" br_cuda_beam *br_cuda_beam_create(const br_bm_model *m, const br_beam_sizes *z, int nv, br_cuda_ga *ga,
                                             br_cuda_field *field, const br_beam_host *host, const double *vec, char *err,
                                             size_t errlen)
{
    br_cuda_beam *g = new br_cuda_beam();
    g->z = *z;
    if (z->nset > kMaxSet) {
        snprintf(err, errlen, "CUDA beam batch: %d contact sets a variant, at most %d", z->nset, kMaxSet);
        return FAILVAL;
    }
    if (br_cuda_field_resident(field, &g->sf, &g->sums, &g->tans)) {
        snprintf(err, errlen, "CUDA beam batch: its field has a set that steps alone (a batch of one variant?)");
        return FAILVAL;
    }
    if (z->nset && !g->tans) {
        snprintf(err, errlen, "CUDA beam batch: its sets reduce no wrench tangent");
        return FAILVAL;
    }
    g->field = field;
    br_cuda_ga_arrays(ga, &g->sh, &g->A);
    /* the model's arrays: dof, X, body_node, q0, offset, fg, loads, sets */
    const size_t b_dof = 6 * (size_t)z->nnode * sizeof(int), b_X = 3 * (size_t)z->nnode * sizeof(double);
    const size_t b_bn = (size_t)z->nbody * sizeof(int), b_q0 = 4 * (size_t)z->nbody * sizeof(double);
    const size_t b_off = 3 * (size_t)z->nbody * sizeof(double), b_fg = b_off;
    const size_t b_load = (size_t)z->nload * sizeof(br_bm_load), b_set = (size_t)z->nset * sizeof(br_bm_set);
    const size_t sizes[] = {b_dof, b_X, b_bn, b_q0, b_off, b_fg, b_load, b_set};
    const void *src[] = {m->dof, m->X, m->body_node, m->body_q0, m->body_offset, m->body_fg, m->load, m->set};
    size_t total = 0, at[8];
    for (int k = 0; k < 8; k++) at[k] = total, total += (sizes[k] + 15) / 16 * 16;
    BR_CU(cudaMalloc(&g->model_mem, total ? total : 16));
    char *base = (char *)g->model_mem;
    for (int k = 0; k < 8; k++)
        if (sizes[k]) BR_CU(cudaMemcpy(base + at[k], src[k], sizes[k], cudaMemcpyHostToDevice));
    g->m = *m;
    g->m.dof = (const int *)(base + at[0]), g->m.X = (const double *)(base + at[1]);
    g->m.body_node = (const int *)(base + at[2]), g->m.body_q0 = (const double *)(base + at[3]);
    g->m.body_offset = (const double *)(base + at[4]), g->m.body_fg = (const double *)(base + at[5]);
    g->m.load = (const br_bm_load *)(base + at[6]), g->m.set = (const br_bm_set *)(base + at[7]);
    /* the variants' state */
    dev_state &D = g->D;
    D.nv = nv, D.n = z->n, D.nset = z->nset, D.nload = z->nload, D.o = offsets(z);
    std::vector<double> rec((size_t)D.o.size * nv, 0.0);
    std::vector<br_tf_flat> mag((size_t)(z->nload ? z->nload : 1) * nv);
    std::vector<br_set_result> res((size_t)(z->nset ? z->nset : 1) * nv);
    std::vector<long> step(nv);
    const size_t vn = (size_t)z->n * nv;
    for (int v = 0; v < nv; v++) {
        const br_bm_var *x = host[v].var;
        double *r = rec.data() + (size_t)v * D.o.size;
        record_io(D.o, z, r, x, 1);
        r[D.o.t] = x->t;
        step[v] = x->step;
        if (z->nload) memcpy(&mag[(size_t)v * z->nload], x->mag, (size_t)z->nload * sizeof(br_tf_flat));
        if (z->nset) memcpy(&res[(size_t)v * z->nset], host[v].res, (size_t)z->nset * sizeof(br_set_result));
    }
    BR_CU(cudaMalloc(&D.rec, rec.size() * sizeof(double)));
    BR_CU(cudaMemcpy(D.rec, rec.data(), rec.size() * sizeof(double), cudaMemcpyHostToDevice));
    BR_CU(cudaMalloc(&D.vec, 7 * vn * sizeof(double) + 8));
    BR_CU(cudaMemcpy(D.vec, vec, 7 * vn * sizeof(double), cudaMemcpyHostToDevice));
    BR_CU(cudaMalloc(&D.mag, mag.size() * sizeof(br_tf_flat)));
    BR_CU(cudaMemcpy(D.mag, mag.data(), mag.size() * sizeof(br_tf_flat), cudaMemcpyHostToDevice));
    BR_CU(cudaMalloc(&D.res, res.size() * sizeof(br_set_result)));
    BR_CU(cudaMemcpy(D.res, res.data(), res.size() * sizeof(br_set_result), cudaMemcpyHostToDevice));
    BR_CU(cudaMalloc(&D.step, (size_t)nv * sizeof(long)));
    BR_CU(cudaMemcpy(D.step, step.data(), (size_t)nv * sizeof(long), cudaMemcpyHostToDevice));
    BR_CU(cudaMalloc(&D.code, (size_t)nv * sizeof(int)));
    BR_CU(cudaMemset(D.code, 0, (size_t)nv * sizeof(int)));
    BR_CU(cudaMalloc(&D.energy, (size_t)nv * sizeof(int)));
    BR_CU(cudaMemset(D.energy, 0, (size_t)nv * sizeof(int)));
    g->energy.assign(nv, 0);
    return g;
}
#undef FAILVAL

#define FAILVAL (-1)
extern "C" int br_cuda_beam_forces(br_cuda_beam *g, const int *energy, char *err, size_t errlen)
{
    const int nv = g->D.nv;
    if (memcmp(g->energy.data(), energy, (size_t)nv * sizeof(int))) {
        memcpy(g->energy.data(), energy, (size_t)nv * sizeof(int));
        BR_CU(cudaMemcpy(g->D.energy, energy, (size_t)nv * sizeof(int), cudaMemcpyHostToDevice));
    }
    const unsigned blocks = (unsigned)((nv + kThreads - 1) / kThreads);
    frames_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D, g->sf);
    BR_CU(cudaGetLastError());
    if (br_cuda_field_step_resident(g->field, g->m.h, err, errlen)) return -1;
    after_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D, g->sf, g->sums, g->tans);
    BR_CU(cudaGetLastError());
    return 0;
}

extern "C" int br_cuda_beam_integrate(br_cuda_beam *g, char *err, size_t errlen)
{
    const unsigned blocks = (unsigned)((g->D.nv + kThreads - 1) / kThreads);
    integrate_kernel<<<blocks, kThreads>>>(g->m, g->sh, g->A, g->D);
    BR_CU(cudaGetLastError());
    return 0;
}

extern "C" int br_cuda_beam_sample(br_cuda_beam *g, const br_beam_host *host, const int *which, double *t, long *step,
                                   char *err, size_t errlen)
{
    const dev_state &D = g->D;
    const size_t nr = (size_t)D.o.size * D.nv, ns = (size_t)g->z.nset * D.nv;
    g->stage_rec.resize(nr ? nr : 1), g->stage_step.resize((size_t)D.nv);
    BR_CU(cudaMemcpy(g->stage_rec.data(), D.rec, nr * sizeof(double), cudaMemcpyDeviceToHost));
    BR_CU(cudaMemcpy(g->stage_step.data(), D.step, (size_t)D.nv * sizeof(long), cudaMemcpyDeviceToHost));
    if (ns) {
        g->stage_res.resize(ns);
        BR_CU(cudaMemcpy(g->stage_res.data(), D.res, ns * sizeof(br_set_result), cudaMemcpyDeviceToHost));
    }
    for (int v = 0; v < D.nv; v++) {
        if (!which[v]) continue;
        const double *r = g->stage_rec.data() + (size_t)v * D.o.size;
        record_io(D.o, &g->z, (double *)r, host[v].var, 0);
        t[v] = r[D.o.t], step[v] = g->stage_step[v];
        if (ns) memcpy(host[v].res, &g->stage_res[(size_t)v * g->z.nset], (size_t)g->z.nset * sizeof(br_set_result));
    }
    return 0;
}

extern "C" int br_cuda_beam_failed(br_cuda_beam *g, int *codes, char *err, size_t errlen)
{
    BR_CU(cudaMemcpy(codes, g->D.code, (size_t)g->D.nv * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int br_cuda_beam_download(br_cuda_beam *g, int v, const br_beam_host *host, double *t, long *step, char *err,
                                     size_t errlen)
{
    const dev_state &D = g->D;
    std::vector<double> r((size_t)D.o.size);
    BR_CU(cudaMemcpy(r.data(), D.rec + (size_t)v * D.o.size, r.size() * sizeof(double), cudaMemcpyDeviceToHost));
    const br_bm_var *x = host[v].var;
    record_io(D.o, &g->z, r.data(), x, 0);
    *t = r[D.o.t];
    BR_CU(cudaMemcpy(step, D.step + v, sizeof(long), cudaMemcpyDeviceToHost));
    if (g->z.nset)
        BR_CU(cudaMemcpy(host[v].res, D.res + (size_t)v * g->z.nset, (size_t)g->z.nset * sizeof(br_set_result),
                         cudaMemcpyDeviceToHost));
    const size_t vn = (size_t)D.n * D.nv;
    double *to[] = {x->up, x->vp, x->g, x->gext, x->gext_prev, x->uprev, x->vprev};
    for (int k = 0; k < 7; k++) /* n entries of stride nv */
        if (D.n)
            BR_CU(cudaMemcpy2D(to[k], (size_t)D.nv * sizeof(double), D.vec + k * vn + v, (size_t)D.nv * sizeof(double),
                               sizeof(double), (size_t)D.n, cudaMemcpyDeviceToHost));
    return 0;
}
#undef FAILVAL
