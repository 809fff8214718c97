/* ga_batch.c: batches of generalized-alpha integrators (ga_batch.h). The CPU backend runs
 * kernels/ga_step.h's br_ga_batch_one over the variants with OpenMP; the CUDA backend hands the
 * same arrays to kernels/ga_cuda.cu. */
#include "step/ga_batch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ga_step.h"
#ifdef BRISTLE_HAVE_CUDA
#include "kernels/ga_cuda.h"
#endif

struct br_ga_batch {
    int nv, n, nr;
    br_ga_shape sh;              /* its arrays: ints */
    int *ints;
    br_ga_arrays A;              /* host arrays (the CPU backend's working copy) */
    double *mats[BR_GA_NMAT];
    size_t msize[BR_GA_NMAT];    /* doubles of one copy of each matrix */
    double *state;               /* u v a a1 r w ye yq Ar */
    double *f, *E;               /* the CPU backend's last inputs (br_ga_batch_repeat) */
    int has_E;
    double bytes;                /* read and written a variant-step */
#ifdef BRISTLE_HAVE_CUDA
    br_cuda_ga *dev;
#endif
    char device[200];
};

void br_ga_batch_destroy(br_ga_batch *b)
{
    if (!b) return;
#ifdef BRISTLE_HAVE_CUDA
    br_cuda_ga_destroy(b->dev);
#endif
    free(b->ints), free(b->state), free(b->f), free(b->E);
    for (int k = 0; k < BR_GA_NMAT; k++) free(b->mats[k]);
    free(b);
}

static int fail(br_ga_batch *b, char *err, size_t errlen, const char *msg, int v)
{
    if (v >= 0) snprintf(err, errlen, "variant %d: %s", v, msg);
    else snprintf(err, errlen, "%s", msg);
    br_ga_batch_destroy(b);
    return -1;
}

/* integrators g0, g -> 0 when g has g0's size, coefficients and sparsity, else what differs */
static const char *same_shape(const br_genalpha *g0, const br_genalpha *g)
{
    const int n = g0->n, nr = g0->nr;
    if (g->n != n || g->nr != nr) return "a different number of DOFs or contact rows";
    if (g->am != g0->am || g->af != g0->af || g->gamma != g0->gamma || g->beta != g0->beta || g->h != g0->h)
        return "a different time step or rho_inf";
    const size_t in = (size_t)n * sizeof(int);
    if (memcmp(g->plo, g0->plo, 2 * in) || memcmp(g->flo, g0->flo, 2 * in))
        return "another sparsity of its matrices";
    if (g->sym != g0->sym) return "another symmetry of its matrices";
    for (int k = 0; k < nr; k++)
        if (g->Lcnt[k] != g0->Lcnt[k] || memcmp(g->Lcol + (size_t)k * n, g0->Lcol + (size_t)k * n, (size_t)g->Lcnt[k] * sizeof(int)) ||
            g->zlo[k] != g0->zlo[k] || g->zhi[k] != g0->zhi[k])
            return "another sparsity of its contact rows";
    return NULL;
}

/* integrator, k -> its matrix k (BR_GA_M ... BR_GA_Y), as it stores it */
static const double *mat_of(const br_genalpha *g, int k)
{
    const double *m[BR_GA_NMAT] = {g->M, g->C, g->K, g->Lf, g->L, g->Z, g->Y};
    return m[k];
}

br_ga_batch *br_ga_batch_create(br_genalpha *const *g, int nv, br_backend_kind backend, char *err, size_t errlen)
{
    return br_ga_batch_create_opt(g, nv, backend, 1, err, errlen);
}

br_ga_batch *br_ga_batch_create_opt(br_genalpha *const *g, int nv, br_backend_kind backend, int share, char *err,
                                    size_t errlen)
{
    br_ga_batch *b = calloc(1, sizeof *b);
    if (!b) return snprintf(err, errlen, "out of memory"), NULL;
    if (nv < 1) return fail(b, err, errlen, "no variants", -1), NULL;
    const br_genalpha *g0 = g[0];
    const int n = g0->n, nr = g0->nr;
    b->nv = nv, b->n = n, b->nr = nr;
    for (int v = 1; v < nv; v++) {
        const char *why = same_shape(g0, g[v]);
        if (why) {
            char msg[200];
            snprintf(msg, sizeof msg, "has %s than variant 0: it cannot join the batch", why);
            return fail(b, err, errlen, msg, v), NULL;
        }
    }
    /* the shape, one copy */
    const size_t nint = 4 * (size_t)n + (size_t)nr * n + 3 * (size_t)nr + 2 * (size_t)n;
    b->ints = malloc((nint ? nint : 1) * sizeof(int));
    if (!b->ints) return fail(b, err, errlen, "out of memory", -1), NULL;
    b->sh = (br_ga_shape){.n = n, .nr = nr, .am = g0->am, .af = g0->af, .gamma = g0->gamma, .beta = g0->beta, .h = g0->h};
    b->sh.sym = g0->sym; /* every variant's (same_shape) */
    int *p = b->ints;
    const int *src[] = {g0->plo, g0->phi, g0->flo, g0->fhi, g0->Lcol, g0->Lcnt, g0->zlo, g0->zhi};
    const size_t cnt[] = {(size_t)n, (size_t)n, (size_t)n, (size_t)n, (size_t)nr * n, (size_t)nr, (size_t)nr, (size_t)nr};
    const int **dst[] = {&b->sh.plo, &b->sh.phi, &b->sh.flo, &b->sh.fhi, &b->sh.Lcol, &b->sh.Lcnt, &b->sh.zlo, &b->sh.zhi};
    for (int k = 0; k < 8; k++) {
        *dst[k] = p;
        if (cnt[k] && src[k]) memcpy(p, src[k], cnt[k] * sizeof(int));
        else if (cnt[k]) memset(p, 0, cnt[k] * sizeof(int));
        p += cnt[k];
    }
    /* M, C and K stored on their common profile and Keff^-1 on its own, packed column after column,
     * (i, j) at entry col[j] + i (S5b: 846 and 1512 of 72 x 72 entries; with L, Z and Y 47 kB a
     * variant, 181 kB stored whole); dense[e] the n x n index of packed entry e */
    int *pcol = p, *fcol = p + n;
    b->sh.pcol = pcol, b->sh.fcol = fcol;
    size_t np = 0, nf = 0;
    for (int j = 0; j < n; j++) {
        pcol[j] = (int)np - b->sh.plo[j], fcol[j] = (int)nf - b->sh.flo[j];
        np += b->sh.phi[j] >= b->sh.plo[j] ? (size_t)(b->sh.phi[j] - b->sh.plo[j] + 1) : 0;
        nf += b->sh.fhi[j] >= b->sh.flo[j] ? (size_t)(b->sh.fhi[j] - b->sh.flo[j] + 1) : 0;
    }
    if (np > INT_MAX || nf > INT_MAX) return fail(b, err, errlen, "matrices too large for the batch's int column starts", -1), NULL;
    long *dense = malloc((np + nf + 1) * sizeof(long));
    if (!dense) return fail(b, err, errlen, "out of memory", -1), NULL;
    for (int j = 0; j < n; j++) {
        for (int i = b->sh.plo[j]; i <= b->sh.phi[j]; i++) dense[pcol[j] + i] = (long)j * n + i;
        for (int i = b->sh.flo[j]; i <= b->sh.fhi[j]; i++) dense[np + fcol[j] + i] = (long)j * n + i;
    }
    /* the matrices: one copy where every variant's is the same, else the variant innermost */
    const size_t nn = (size_t)n * n, rn = (size_t)nr * n, rr = (size_t)nr * nr;
    const size_t msize[BR_GA_NMAT] = {np, np, np, nf, rn, rn, rr};
    const long *const dense_of[BR_GA_NMAT] = {dense, dense, dense, dense + np, NULL, NULL, NULL}; /* NULL: as stored */
    for (int k = 0; k < BR_GA_NMAT; k++) {
        b->msize[k] = msize[k];
        const double *m0 = NULL;
        int shared = share;
        const size_t whole = k < BR_GA_L ? nn : msize[k];
        for (int v = 0; v < nv; v++) {
            if (v == 0) m0 = mat_of(g[v], k);
            else if (whole && memcmp(mat_of(g[v], k), m0, whole * sizeof(double))) shared = 0;
        }
        const size_t copies = shared ? 1 : (size_t)nv;
        const long *const from = dense_of[k];
        b->mats[k] = malloc((msize[k] ? msize[k] : 1) * copies * sizeof(double));
        if (!b->mats[k]) return free(dense), fail(b, err, errlen, "out of memory", -1), NULL;
        for (size_t e = 0; shared && e < msize[k]; e++) b->mats[k][e] = m0[from ? from[e] : (long)e];
        if (!shared) { /* the transpose in bands of 64 entries (64 rows of the variant-innermost array
                        * written in step), over the threads: entry by entry it took most of a
                        * 1e5-variant study's setup */
            const long nband = (long)((msize[k] + 63) / 64);
#pragma omp parallel for schedule(dynamic, 1) if (nv >= 64 && nband > 1)
            for (long bnd = 0; bnd < nband; bnd++) {
                const size_t e0 = (size_t)bnd * 64, e1 = e0 + 64 < msize[k] ? e0 + 64 : msize[k];
                for (int v = 0; v < nv; v++) {
                    const double *mv = mat_of(g[v], k);
                    for (size_t e = e0; e < e1; e++) b->mats[k][e * nv + v] = mv[from ? from[e] : (long)e];
                }
            }
        }
        b->A.mat[k] = b->mats[k], b->A.shared[k] = shared;
    }
    free(dense);
    /* the states and scratch, the variant innermost */
    const size_t vn = (size_t)n * nv, vr = (size_t)nr * nv;
    b->state = calloc(6 * vn + 2 * vr + (size_t)nr * vr + 1, sizeof(double));
    b->f = calloc(vn ? vn : 1, sizeof(double)), b->E = calloc(6 * vr + 1, sizeof(double));
    if (!b->state || !b->f || !b->E) return fail(b, err, errlen, "out of memory", -1), NULL;
    double *q = b->state;
    double **sv[] = {&b->A.u, &b->A.v, &b->A.a, &b->A.a1, &b->A.r, &b->A.w};
    for (int k = 0; k < 6; k++) *sv[k] = q, q += vn;
    b->A.ye = q, q += vr;
    b->A.yq = q, q += vr;
    b->A.Ar = q;
    b->A.nv = nv;
    for (int v = 0; v < nv; v++)
        for (int i = 0; i < n; i++) {
            b->A.u[(size_t)i * nv + v] = g[v]->u[i];
            b->A.v[(size_t)i * nv + v] = g[v]->v[i];
            b->A.a[(size_t)i * nv + v] = g[v]->a[i];
        }
    /* bytes a variant-step: the profile entries of M, C, K (the right-hand side), of Keff^-1, the
     * rows of L four times, Z's columns once, Y's blocks, each per variant or spread over them;
     * the state read and written (u v a: 2 each, a1 r w: about 3 passes) */
    const double prof = (double)np, fprof = (double)nf;
    double lnz = 0.0, znz = 0.0;
    for (int k = 0; k < nr; k++) lnz += b->sh.Lcnt[k], znz += b->sh.zhi[k] - b->sh.zlo[k] + 1;
    const double per[BR_GA_NMAT] = {prof, prof, prof, fprof, 4 * lnz, znz, 6.0 * nr};
    b->bytes = 8.0 * (6.0 * n + 2.0 * 3.0 * n + 4.0 * nr + 2.0 * nr * nr);
    for (int k = 0; k < BR_GA_NMAT; k++) b->bytes += 8.0 * per[k] / (b->A.shared[k] ? nv : 1);
    snprintf(b->device, sizeof b->device, "cpu");
    if (backend == BR_BACKEND_CPU) return b;
#ifdef BRISTLE_HAVE_CUDA
    char why[200] = "";
    if (br_cuda_available(why, sizeof why) <= 0) {
        if (backend == BR_BACKEND_AUTO) return b;
        char msg[300];
        snprintf(msg, sizeof msg, "--backend cuda: no usable GPU (%s)", why);
        return fail(b, err, errlen, msg, -1), NULL;
    }
    b->dev = br_cuda_ga_create(&b->sh, &b->A, b->msize, b->device, sizeof b->device, err, errlen);
    if (!b->dev) return br_ga_batch_destroy(b), NULL;
    return b;
#else
    if (backend == BR_BACKEND_AUTO) return b;
    return fail(b, err, errlen, "--backend cuda: this build has no CUDA backend", -1), NULL;
#endif
}

/* -> 1 where no matrix is shared: the variants can step in lanes (kernels/ga_step.h's _l) */
static int lanes_ok(const br_ga_arrays *A)
{
    for (int k = 0; k < BR_GA_NMAT; k++)
        if (A->shared[k]) return 0;
    return 1;
}

/* CPU backend: every variant stepped with the batch's last inputs, BR_GA_LANES at a time where no
 * matrix is shared (the rest one by one) */
static void cpu_step(br_ga_batch *b, double *du, double *dv, double *dm, int *bad)
{
    const double *E = b->has_E ? b->E : NULL;
    const long nl = lanes_ok(&b->A) ? BR_GA_LANES : 1, nc = b->nv / nl, nu = nc + b->nv % nl;
#pragma omp parallel for schedule(static)
    for (long c = 0; c < nu; c++) {
        if (nl > 1 && c < nc) {
            int rc[BR_GA_LANES];
            br_ga_batch_lanes(&b->sh, &b->A, c * nl, BR_GA_LANES, b->f, E, du, dv, dm, rc);
            for (int l = 0; bad && l < BR_GA_LANES; l++) bad[c * nl + l] = rc[l] != 0;
            continue;
        }
        const long v = c < nc ? c : nc * nl + (c - nc);
        const int rc = br_ga_batch_one(&b->sh, &b->A, v, b->f, E, du, dv, dm);
        if (bad) bad[v] = rc != 0;
    }
}

int br_ga_batch_step(br_ga_batch *b, const double *f, const double *E, double *du, double *dv, double *dm, int *bad,
                     char *err, size_t errlen)
{
    if (!du || !dv || !dm || !b->nr) du = dv = dm = NULL;
#ifdef BRISTLE_HAVE_CUDA
    if (b->dev) return br_cuda_ga_step(b->dev, f, E, du, dv, dm, bad, err, errlen);
#else
    (void)err, (void)errlen;
#endif
    const size_t vn = (size_t)b->n * b->nv, ne = (size_t)6 * b->nr * b->nv;
    memcpy(b->f, f, vn * sizeof(double));
    b->has_E = E && ne;
    if (b->has_E) memcpy(b->E, E, ne * sizeof(double));
    cpu_step(b, du, dv, dm, bad);
    return 0;
}

int br_ga_batch_repeat(br_ga_batch *b, long steps, char *err, size_t errlen)
{
#ifdef BRISTLE_HAVE_CUDA
    if (b->dev) return br_cuda_ga_repeat(b->dev, steps, err, errlen);
#else
    (void)err, (void)errlen;
#endif
    for (long k = 0; k < steps; k++) cpu_step(b, NULL, NULL, NULL, NULL);
    return 0;
}

int br_ga_batch_state(br_ga_batch *b, int v, double *u, double *vel, double *a, char *err, size_t errlen)
{
    double *buf = NULL;
    const double *src[3] = {b->A.u, b->A.v, b->A.a};
#ifdef BRISTLE_HAVE_CUDA
    const size_t vn = (size_t)b->n * b->nv;
    if (b->dev) {
        buf = malloc(3 * vn * sizeof(double));
        if (!buf) return snprintf(err, errlen, "out of memory"), -1;
        if (br_cuda_ga_state(b->dev, buf, buf + vn, buf + 2 * vn, err, errlen)) return free(buf), -1;
        src[0] = buf, src[1] = buf + vn, src[2] = buf + 2 * vn;
    }
#else
    (void)err, (void)errlen;
#endif
    double *dst[3] = {u, vel, a};
    for (int k = 0; k < 3; k++)
        for (int i = 0; dst[k] && i < b->n; i++) dst[k][i] = src[k][(size_t)i * b->nv + v];
    free(buf);
    return 0;
}

const char *br_ga_batch_backend(const br_ga_batch *b)
{
#ifdef BRISTLE_HAVE_CUDA
    if (b->dev) return "cuda";
#endif
    (void)b;
    return "cpu";
}

const char *br_ga_batch_device(const br_ga_batch *b) { return b->device; }
double br_ga_batch_bytes(const br_ga_batch *b) { return b->bytes; }

const br_ga_shape *br_ga_batch_shape(const br_ga_batch *b) { return &b->sh; }
br_ga_arrays *br_ga_batch_arrays(br_ga_batch *b) { return &b->A; }

struct br_cuda_ga *br_ga_batch_cuda(br_ga_batch *b)
{
#ifdef BRISTLE_HAVE_CUDA
    return b->dev;
#else
    (void)b;
    return NULL;
#endif
}
