/* ga_cuda.cu: the generalized-alpha steps of a batch of variants on a CUDA device. One thread a
 * variant runs br_ga_batch_one (kernels/ga_step.h, the CPU batch's code); every array has the
 * variant innermost, so a warp's 32 threads read 32 consecutive doubles of each matrix entry
 * (a matrix all variants share is one copy, read by every thread alike). nvcc compiles with
 * -fmad=false, so the arithmetic is the CPU's, operation for operation. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "cuda_check.h"
#include "field_cuda.h" /* br_cuda_select */
#include "ga_cuda.h"

struct br_cuda_ga {
    br_ga_shape sh;          /* profile arrays on the device */
    br_ga_arrays A;          /* device arrays */
    int *ints;               /* the shape's arrays, one allocation */
    double *mats[BR_GA_NMAT];
    double *state;           /* u v a a1 r w ye yq Ar, one allocation */
    double *f, *E, *du, *dv, *dm;
    int *bad;
    int has_E;
    size_t n_f, n_E, n_r;    /* doubles of f, E and of one row-change array */
};


namespace {

constexpr int kThreads = 128;

__global__ void ga_batch_kernel(br_ga_shape sh, br_ga_arrays A, const double *f, const double *E, double *du,
                                double *dv, double *dm, int *bad)
{
    const long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= A.nv) return;
    const int rc = br_ga_batch_one(&sh, &A, v, f, E, du, dv, dm);
    if (bad) bad[v] = rc != 0;
}

int launch(br_cuda_ga *g, int rows, char *err, size_t errlen)
{
    const long blocks = (g->A.nv + kThreads - 1) / kThreads;
    ga_batch_kernel<<<(unsigned)blocks, kThreads>>>(g->sh, g->A, g->f, g->has_E ? g->E : NULL, rows ? g->du : NULL,
                                                    rows ? g->dv : NULL, rows ? g->dm : NULL, g->bad);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA error %s launching the structure step: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

} // namespace

extern "C" void br_cuda_ga_destroy(br_cuda_ga *g)
{
    if (!g) return;
    cudaFree(g->ints);
    for (double *m : g->mats) cudaFree(m);
    cudaFree(g->state);
    cudaFree(g->f), cudaFree(g->E), cudaFree(g->du), cudaFree(g->dv), cudaFree(g->dm), cudaFree(g->bad);
    delete g;
}

#define FAILVAL (br_cuda_ga_destroy(g), (br_cuda_ga *)NULL)
extern "C" br_cuda_ga *br_cuda_ga_create(const br_ga_shape *sh, const br_ga_arrays *host, const size_t *msize, char *dev,
                                         size_t devlen, char *err, size_t errlen)
{
    br_cuda_ga *g = new br_cuda_ga();
    if (br_cuda_select(dev, devlen, err, errlen) < 0) return FAILVAL;
    const int n = sh->n, nr = sh->nr;
    const long nv = host->nv;
    /* the shape's int arrays: plo phi flo fhi (n each), Lcol (nr n), Lcnt zlo zhi (nr each) */
    const size_t nint = 4 * (size_t)n + (size_t)nr * n + 3 * (size_t)nr;
    BR_CU(cudaMalloc(&g->ints, (nint ? nint : 1) * sizeof(int)));
    g->sh = *sh;
    int *p = g->ints;
    const int *src[] = {sh->plo, sh->phi, sh->flo, sh->fhi, sh->Lcol, sh->Lcnt, sh->zlo, sh->zhi};
    const size_t cnt[] = {(size_t)n, (size_t)n, (size_t)n, (size_t)n, (size_t)nr * n, (size_t)nr, (size_t)nr, (size_t)nr};
    const int **dst[] = {&g->sh.plo, &g->sh.phi, &g->sh.flo, &g->sh.fhi, &g->sh.Lcol, &g->sh.Lcnt, &g->sh.zlo, &g->sh.zhi};
    for (int k = 0; k < 8; k++) {
        *dst[k] = p;
        if (cnt[k]) BR_CU(cudaMemcpy(p, src[k], cnt[k] * sizeof(int), cudaMemcpyHostToDevice));
        p += cnt[k];
    }
    g->A.nv = nv;
    for (int k = 0; k < BR_GA_NMAT; k++) {
        const size_t bytes = (msize[k] ? msize[k] : 1) * (host->shared[k] ? 1 : (size_t)nv) * sizeof(double);
        BR_CU(cudaMalloc(&g->mats[k], bytes));
        if (msize[k]) BR_CU(cudaMemcpy(g->mats[k], host->mat[k], bytes, cudaMemcpyHostToDevice));
        g->A.mat[k] = g->mats[k], g->A.shared[k] = host->shared[k];
    }
    const size_t vn = (size_t)n * nv, vr = (size_t)nr * nv;
    BR_CU(cudaMalloc(&g->state, (6 * vn + 2 * vr + (size_t)nr * vr + 1) * sizeof(double)));
    double *q = g->state;
    double **sv[] = {&g->A.u, &g->A.v, &g->A.a, &g->A.a1, &g->A.r, &g->A.w};
    for (double **s : sv) *s = q, q += vn;
    g->A.ye = q, q += vr;
    g->A.yq = q, q += vr;
    g->A.Ar = q;
    BR_CU(cudaMemcpy(g->A.u, host->u, vn * sizeof(double), cudaMemcpyHostToDevice));
    BR_CU(cudaMemcpy(g->A.v, host->v, vn * sizeof(double), cudaMemcpyHostToDevice));
    BR_CU(cudaMemcpy(g->A.a, host->a, vn * sizeof(double), cudaMemcpyHostToDevice));
    g->n_f = vn, g->n_E = 6 * vr, g->n_r = vr;
    BR_CU(cudaMalloc(&g->f, vn * sizeof(double)));
    BR_CU(cudaMemset(g->f, 0, vn * sizeof(double)));
    BR_CU(cudaMalloc(&g->E, (g->n_E ? g->n_E : 1) * sizeof(double)));
    BR_CU(cudaMalloc(&g->du, (vr ? vr : 1) * sizeof(double)));
    BR_CU(cudaMalloc(&g->dv, (vr ? vr : 1) * sizeof(double)));
    BR_CU(cudaMalloc(&g->dm, (vr ? vr : 1) * sizeof(double)));
    BR_CU(cudaMalloc(&g->bad, (size_t)nv * sizeof(int)));
    return g;
}
#undef FAILVAL

#define FAILVAL (-1)
extern "C" int br_cuda_ga_step(br_cuda_ga *g, const double *f, const double *E, double *du, double *dv, double *dm,
                               int *bad, char *err, size_t errlen)
{
    BR_CU(cudaMemcpy(g->f, f, g->n_f * sizeof(double), cudaMemcpyHostToDevice));
    g->has_E = E != NULL && g->n_E > 0;
    if (g->has_E) BR_CU(cudaMemcpy(g->E, E, g->n_E * sizeof(double), cudaMemcpyHostToDevice));
    const int rows = du != NULL && g->n_r > 0;
    if (launch(g, rows, err, errlen)) return -1;
    if (rows) {
        BR_CU(cudaMemcpy(du, g->du, g->n_r * sizeof(double), cudaMemcpyDeviceToHost));
        BR_CU(cudaMemcpy(dv, g->dv, g->n_r * sizeof(double), cudaMemcpyDeviceToHost));
        BR_CU(cudaMemcpy(dm, g->dm, g->n_r * sizeof(double), cudaMemcpyDeviceToHost));
    }
    if (bad) BR_CU(cudaMemcpy(bad, g->bad, (size_t)g->A.nv * sizeof(int), cudaMemcpyDeviceToHost));
    BR_CU(cudaDeviceSynchronize());
    return 0;
}

extern "C" int br_cuda_ga_repeat(br_cuda_ga *g, long steps, char *err, size_t errlen)
{
    for (long k = 0; k < steps; k++)
        if (launch(g, 0, err, errlen)) return -1;
    BR_CU(cudaDeviceSynchronize());
    return 0;
}

extern "C" int br_cuda_ga_state(br_cuda_ga *g, double *u, double *v, double *a, char *err, size_t errlen)
{
    double *dst[] = {u, v, a};
    const double *src[] = {g->A.u, g->A.v, g->A.a};
    for (int k = 0; k < 3; k++)
        if (dst[k]) BR_CU(cudaMemcpy(dst[k], src[k], g->n_f * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}
#undef FAILVAL

extern "C" void br_cuda_ga_arrays(br_cuda_ga *g, br_ga_shape *sh, br_ga_arrays *A)
{
    *sh = g->sh;
    *A = g->A;
}
