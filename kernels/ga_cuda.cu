/* ga_cuda.cu: the generalized-alpha steps of a batch of variants on a CUDA device. The solve runs
 * by rows (kernels/ga_step.h's row phases, a launch each): a thread an entry of a variant (a row of
 * the structure, or a block of six contact rows, or the variant for the small LU), the variant
 * innermost, so a warp's 32 threads are one row of 32 consecutive variants and read 32
 * consecutive doubles of each matrix entry (a matrix all variants share is one copy, read by
 * every thread alike); then one thread a variant for the row changes and the update
 * (br_ga_row_changes, br_ga_advance). One thread a variant for the whole step (br_ga_batch_one)
 * kept 1e4 threads busy, 1.65 ms a step of 1e4 S2 variants on an H100, latency-bound at 8 % of
 * the memory's rate. nvcc compiles with -fmad=false, and the row phases add each entry's terms in
 * the column loops' order, so a variant's step is bitwise the CPU batch's. */
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
    int *singular;           /* per variant: its Woodbury system was (the row phases' LU) */
    int has_E;
    size_t n_f, n_E, n_r;    /* doubles of f, E and of one row-change array */
};


namespace {

/* what every row phase reads: the shape and arrays, the loads (entry i of variant v at
 * f[i nv + v]), the low-rank term (NULL: none this step; entry q of variant v at
 * E[v E_var + q E_stride]), the variants to leave alone (NULL: none) and the LU's flags */
struct rows_args {
    br_ga_shape sh;
    br_ga_arrays A;
    const double *f, *E;
    long E_var, E_stride;
    const int *skip;
    int *singular;
};

/* the launch's thread -> variant v and entry i of per entries a variant; 0 past the end or for a
 * variant left alone */
__device__ int entry_of(const rows_args &a, int per, long *v, int *i)
{
    const long t = (long)blockIdx.x * blockDim.x + threadIdx.x, nv = a.A.nv;
    if (t >= nv * per) return 0;
    *v = t % nv, *i = (int)(t / nv);
    return !(a.skip && a.skip[*v]);
}

#define ROWS_KERNEL(name, per, body)                                                                               \
    __global__ void name(rows_args a)                                                                              \
    {                                                                                                              \
        long v;                                                                                                    \
        int i;                                                                                                     \
        if (!entry_of(a, per, &v, &i)) return;                                                                     \
        br_ga_var x;                                                                                               \
        br_ga_arrays_var(&a.A, v, &x);                                                                             \
        body;                                                                                                      \
    }
ROWS_KERNEL(rhs_kernel, a.sh.n, br_ga_rows_rhs(&a.sh, &x, a.f + v, a.A.nv, i))
ROWS_KERNEL(lemul_kernel, a.sh.nr / 6, br_ga_rows_lemul(&a.sh, &x, a.E + v * a.E_var, a.E_stride, x.a, x.s, i))
ROWS_KERNEL(lt_kernel, a.sh.n, br_ga_rows_lt(&a.sh, &x, i))
ROWS_KERNEL(keff_kernel, a.sh.n, br_ga_rows_keff(&a.sh, &x, i))
ROWS_KERNEL(woodbury_kernel, a.sh.nr / 6, br_ga_rows_woodbury(&a.sh, &x, a.E + v * a.E_var, a.E_stride, i))
ROWS_KERNEL(lu_kernel, 1, a.singular[v] = br_ga_lu_solve(a.sh.nr, x.Ar, x.s, x.yq, x.s) != 0)
ROWS_KERNEL(end_kernel, a.sh.n, br_ga_rows_end(&a.sh, &x, a.E && a.sh.nr > 0 && !a.singular[v], i))
#undef ROWS_KERNEL

/* row changes (where du), the update to t_{n+1} and bad (where given) of every variant, a thread each */
__global__ void advance_kernel(rows_args a, double *du, double *dv, double *dm, int *bad)
{
    long v;
    int i;
    if (!entry_of(a, 1, &v, &i)) return;
    br_ga_var x;
    br_ga_arrays_var(&a.A, v, &x);
    if (du) br_ga_row_changes(&a.sh, &x, du + v, dv + v, dm + v, a.A.nv);
    br_ga_advance(&a.sh, &x);
    if (bad) bad[v] = a.E && a.sh.nr > 0 && a.singular[v];
}

/* entries a variant -> threads a block: 128, or one warp for the phases of one or two entries a
 * variant (the LU, the set blocks), whose threads each run a long serial chain: at 1e4 variants
 * blocks of a warp spread them over every SM of an H100 (132) where blocks of 128 filled 79 */
int threads_of(long per) { return per < 8 ? 32 : 128; }

/* entries a variant, variants -> the launch's blocks of threads_of(per) */
unsigned blocks_of(long per, long nv) { return (unsigned)((per * nv + threads_of(per) - 1) / threads_of(per)); }

/* the row phases launched in order on the default stream: a1 of every variant not skipped */
int solve_rows(const rows_args &a, char *err, size_t errlen)
{
    const long nv = a.A.nv, n = a.sh.n, nb = a.E ? a.sh.nr / 6 : 0;
    rhs_kernel<<<blocks_of(n, nv), threads_of(n)>>>(a);
    if (nb) {
        lemul_kernel<<<blocks_of(nb, nv), threads_of(nb)>>>(a);
        lt_kernel<<<blocks_of(n, nv), threads_of(n)>>>(a);
    }
    keff_kernel<<<blocks_of(n, nv), threads_of(n)>>>(a);
    if (nb) {
        woodbury_kernel<<<blocks_of(nb, nv), threads_of(nb)>>>(a);
        lu_kernel<<<blocks_of(1, nv), threads_of(1)>>>(a);
    }
    end_kernel<<<blocks_of(n, nv), threads_of(n)>>>(a);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA error %s launching the structure step: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

} // namespace

/* the batch, E (NULL: none), rows (the row changes wanted) -> every variant stepped: the row
 * phases, then the row changes and the update */
static int launch(br_cuda_ga *g, int rows, char *err, size_t errlen)
{
    const rows_args a = {g->sh, g->A, g->f, g->has_E ? g->E : NULL, 1, g->A.nv, NULL, g->singular};
    if (solve_rows(a, err, errlen)) return -1;
    advance_kernel<<<blocks_of(1, g->A.nv), threads_of(1)>>>(a, rows ? g->du : NULL, rows ? g->dv : NULL, rows ? g->dm : NULL,
                                                        g->bad);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA error %s launching the structure update: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

extern "C" int br_cuda_ga_solve_rows(br_cuda_ga *g, const double *f, const double *E, long E_var, long E_stride,
                                     const int *skip, char *err, size_t errlen)
{
    const rows_args a = {g->sh, g->A, f, E, E_var, E_stride, skip, g->singular};
    return solve_rows(a, err, errlen);
}

extern "C" const int *br_cuda_ga_singular(const br_cuda_ga *g) { return g->singular; }

extern "C" void br_cuda_ga_destroy(br_cuda_ga *g)
{
    if (!g) return;
    cudaFree(g->ints);
    for (double *m : g->mats) cudaFree(m);
    cudaFree(g->state);
    cudaFree(g->f), cudaFree(g->E), cudaFree(g->du), cudaFree(g->dv), cudaFree(g->dm), cudaFree(g->bad), cudaFree(g->singular);
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
    /* the shape's int arrays: plo phi flo fhi (n each), Lcol (nr n), Lcnt zlo zhi (nr each), and
     * where they are set the packed profiles' column starts pcol fcol (n each) */
    const size_t nint = 6 * (size_t)n + (size_t)nr * n + 3 * (size_t)nr;
    BR_CU(cudaMalloc(&g->ints, (nint ? nint : 1) * sizeof(int)));
    g->sh = *sh;
    int *p = g->ints;
    const int *src[] = {sh->plo, sh->phi, sh->flo, sh->fhi, sh->Lcol, sh->Lcnt, sh->zlo, sh->zhi, sh->pcol, sh->fcol};
    const size_t cnt[] = {(size_t)n,  (size_t)n, (size_t)n, (size_t)n, (size_t)nr * n,
                          (size_t)nr, (size_t)nr, (size_t)nr, (size_t)n, (size_t)n};
    const int **dst[] = {&g->sh.plo,  &g->sh.phi, &g->sh.flo, &g->sh.fhi,  &g->sh.Lcol,
                         &g->sh.Lcnt, &g->sh.zlo, &g->sh.zhi, &g->sh.pcol, &g->sh.fcol};
    for (int k = 0; k < 10; k++) {
        *dst[k] = src[k] ? p : NULL;
        if (cnt[k] && src[k]) BR_CU(cudaMemcpy(p, src[k], cnt[k] * sizeof(int), cudaMemcpyHostToDevice));
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
    BR_CU(cudaMalloc(&g->singular, (size_t)nv * sizeof(int)));
    BR_CU(cudaMemset(g->singular, 0, (size_t)nv * sizeof(int)));
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
