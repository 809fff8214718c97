/* bench_structure.c: `bristle bench structure`: the generalized-alpha step of many variants of the
 * S2 bundle (S5b's structure: 72 DOF, 12 contact rows, five mistuned bundles' matrices, each
 * variant its own copy), in variant-steps/s: each variant's own integrator over the threads
 * (what a study does today), the batch on the CPU (ga_batch.c, the GPU's reference) and on a CUDA
 * device (inputs copied each step, and resident), with the bytes a variant-step moves against the
 * copy bandwidth measured in the same run. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_structure.h"
#include "cli/bench_copy.h"
#include "base/memory.h"
#include "base/outdir.h" /* br_wall_seconds */
#include "step/ga_batch.h"
#include "base/parse.h"
#include "io/scenario.h"
#include "step/sim.h"
#ifdef BRISTLE_HAVE_CUDA
#include "kernels/field_cuda.h"
#endif

static int usage(void)
{
    fprintf(stderr,
            "usage: bristle bench structure [--scenario S.yaml] [--variants N[,N...]] [--steps S] [--threads T]\n"
            "                               [--backend cpu|cuda|all]\n"
            "  The structure step of N variants of a scenario with beams and contacts (default the S2 lugre\n"
            "  sweep, five mistuned bundles), S steps (default 200): each variant's own step on T threads, the\n"
            "  batch on the CPU and (cuda, all) on the GPU.\n");
    return 2;
}

enum { NBASE = 5 };

/* bundle k -> its blades' moduli scaled by 1 + d (d of S5b's 2 % spread, fixed draws) */
static const double MIST[NBASE][3] = {
    {1.0, 1.0, 1.0}, {1.013, 0.981, 1.027}, {0.975, 1.004, 0.992}, {1.031, 1.019, 0.968}, {0.99, 0.97, 1.01}};

/* the loads and contact blocks of a step (as tests/test_ga_batch.c: order 1 N, E of a stuck contact) */
static void inputs(int n, int nr, long nv, double *f, double *E)
{
#pragma omp parallel for schedule(static)
    for (long v = 0; v < nv; v++) {
        for (int i = 0; i < n; i++) f[(size_t)i * nv + v] = 0.7 * sin(0.37 * i + 0.3 * (double)v);
        for (int q = 0; q < 6 * nr; q++) {
            const int e = q % 36, i = e % 6, j = e / 6;
            const double arm = (i >= 3 ? 0.01 : 1.0) * (j >= 3 ? 0.01 : 1.0);
            E[(size_t)q * nv + v] = arm * (i == j ? 0.05 + 0.01 * i : 0.004 * sin(1.3 * (i + j) + q / 36));
        }
    }
}

/* base integrators, nv -> nv integrators of their matrices (variant v: base v % NBASE), each with
 * its own inverse and state; NULL when out of memory */
static br_genalpha **make_variants(br_data *const *base, long nv, char *err, size_t errlen)
{
    br_genalpha **g = calloc((size_t)nv, sizeof *g);
    if (!g) return NULL;
    for (long v = 0; v < nv; v++) {
        const br_genalpha *b = base[v % NBASE]->ga;
        const double rho = b->af / (1 - b->af); /* af = rho / (rho + 1) */
        g[v] = br_genalpha_create(b->n, b->M, b->C, b->K, rho, b->h, err, errlen);
        if (!g[v] || (b->nr && br_genalpha_lowrank(g[v], b->nr, b->L))) {
            for (long k = 0; k <= v; k++) br_genalpha_free(g[k]);
            free(g);
            return NULL;
        }
        memcpy(g[v]->a, b->a, (size_t)b->n * sizeof(double));
    }
    return g;
}

int br_bench_structure(int argc, char **argv)
{
    const char *scen = "scenarios/blades_sweep_lugre.yaml", *backend = "all";
    char vlist[256] = "100,1000,10000";
    long steps = 200, threads = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage();
        if (!strcmp(a, "--scenario")) scen = v;
        else if (!strcmp(a, "--variants")) snprintf(vlist, sizeof vlist, "%s", v);
        else if (!strcmp(a, "--backend")) backend = v;
        else if (!strcmp(a, "--steps")) {
            if (br_arg_long("bench structure", "--steps", v, 1, 100000000, &steps)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (br_arg_long("bench structure", "--threads", v, 1, 4096, &threads)) return 2;
        } else return usage();
        i++;
    }
    const int want_cuda = !strcmp(backend, "cuda") || !strcmp(backend, "all");
    if (!want_cuda && strcmp(backend, "cpu")) return usage();
    if (threads > 0) omp_set_num_threads((int)threads);
    const int nthreads = omp_get_max_threads();
    char err[1024];
    br_model *m[NBASE] = {0};
    br_data *d[NBASE] = {0};
    for (int k = 0; k < NBASE; k++) {
        char s[3][96];
        const char *sets[3], *blade[3] = {"blade_L", "blade_C", "blade_R"};
        for (int b = 0; b < 3; b++) snprintf(s[b], sizeof s[b], "beams.%s.E=%.17g", blade[b], 2.1e11 * MIST[k][b]), sets[b] = s[b];
        m[k] = br_scenario_load(scen, sets, 3, err, sizeof err);
        if (!m[k]) {
            /* a scenario without those beams: its own structure, not mistuned */
            m[k] = br_scenario_load(scen, NULL, 0, err, sizeof err);
            if (!m[k]) return fprintf(stderr, "bristle bench structure: %s\n", err), 2;
        }
        d[k] = br_data_create_opt(m[k], BR_BACKEND_CPU, 0, err, sizeof err);
        if (!d[k]) return fprintf(stderr, "bristle bench structure: %s\n", err), 1;
        if (!d[k]->ga) return fprintf(stderr, "bristle bench structure: %s has no beams\n", scen), 2;
    }
    const int n = d[0]->ga->n, nr = d[0]->ga->nr;
    double gpu_copy = -1.0;
    char gdev[200] = "none";
#ifdef BRISTLE_HAVE_CUDA
    if (want_cuda) {
        char why[160];
        if (br_cuda_available(why, sizeof why) > 0) gpu_copy = br_cuda_copy_bandwidth((size_t)1 << 28, 10, err, sizeof err);
        else snprintf(gdev, sizeof gdev, "none (%s)", why);
    }
#endif
    const double cpu_copy = br_bench_cpu_copy((size_t)1 << 27, 10, 1);
    printf("# bristle bench structure: %s, %d DOF, %d contact rows a variant, %ld steps, %d threads; copy %.1f GB/s (CPU)\n",
           scen, n, nr, steps, nthreads, cpu_copy);
    int rc = 0;
    for (char *tok = strtok(vlist, ","); tok && !rc; tok = strtok(NULL, ",")) {
        long nv;
        if (br_arg_long("bench structure", "--variants", tok, 1, 100000000, &nv)) return 2;
        /* each variant: its own integrator (Keff^-1, L, Z, Y and state) and the batch's copy of all
         * seven matrices, then the inputs and row changes */
        const double nn = (double)n * n, rn = (double)nr * n, rr = (double)nr * nr;
        const double per = 8.0 * ((nn + 2 * rn + rr + 8.0 * n) + (4 * nn + 2 * rn + rr + 6.0 * n + 3.0 * nr + rr) +
                                  (n + 9.0 * nr)) + 64.0;
        char mmsg[300];
        if (br_mem_check(per * (double)nv, "bristle bench structure: the variants", mmsg, sizeof mmsg)) {
            fprintf(stderr, "%s\n", mmsg);
            rc = 2;
            break;
        }
        br_genalpha **g = make_variants(d, nv, err, sizeof err);
        double *f = malloc((size_t)n * nv * sizeof(double)), *E = malloc((size_t)(6 * nr + 1) * nv * sizeof(double));
        double *du = malloc((size_t)(nr + 1) * nv * sizeof(double)), *dv = malloc((size_t)(nr + 1) * nv * sizeof(double));
        double *dm = malloc((size_t)(nr + 1) * nv * sizeof(double));
        if (!g || !f || !E || !du || !dv || !dm) {
            fprintf(stderr, "bristle bench structure: %ld variants: out of memory\n", nv);
            rc = 1;
        }
        double own = 0.0, cpu = 0.0, gstep = 0.0, grep = 0.0, bytes = 0.0;
        if (!rc) {
            inputs(n, nr, nv, f, E);
            /* each variant's own integrator: gather its inputs, solve, row changes, advance */
            double t0 = br_wall_seconds();
#pragma omp parallel
            {
                double *fv = malloc((size_t)n * sizeof(double)), *Ev = malloc((size_t)(6 * nr + 1) * sizeof(double));
                double r3[3][64];
                for (long k = 0; k < steps && fv && Ev; k++) {
#pragma omp for schedule(static)
                    for (long v = 0; v < nv; v++) {
                        for (int i = 0; i < n; i++) fv[i] = f[(size_t)i * nv + v];
                        for (int q = 0; q < 6 * nr; q++) Ev[q] = E[(size_t)q * nv + v];
                        br_genalpha_solve(g[v], fv, Ev);
                        if (nr <= 64) br_genalpha_row_changes(g[v], r3[0], r3[1], r3[2]);
                        br_genalpha_advance(g[v]);
                    }
                }
                free(fv), free(Ev);
            }
            own = (double)nv * (double)steps / (br_wall_seconds() - t0);
            br_ga_batch *B = br_ga_batch_create_opt(g, (int)nv, BR_BACKEND_CPU, 0, err, sizeof err);
            if (!B) {
                fprintf(stderr, "bristle bench structure: %s\n", err);
                rc = 1;
            } else {
                bytes = br_ga_batch_bytes(B);
                t0 = br_wall_seconds();
                for (long k = 0; k < steps && !rc; k++) rc = br_ga_batch_step(B, f, E, du, dv, dm, NULL, err, sizeof err);
                cpu = (double)nv * (double)steps / (br_wall_seconds() - t0);
                br_ga_batch_destroy(B);
            }
        }
#ifdef BRISTLE_HAVE_CUDA
        if (!rc && gpu_copy > 0) {
            br_ga_batch *B = br_ga_batch_create(g, (int)nv, BR_BACKEND_CUDA, err, sizeof err);
            if (!B) {
                fprintf(stderr, "bristle bench structure: %s\n", err);
                rc = 1;
            } else {
                snprintf(gdev, sizeof gdev, "%s", br_ga_batch_device(B));
                rc = br_ga_batch_step(B, f, E, du, dv, dm, NULL, err, sizeof err); /* warm-up */
                double t0 = br_wall_seconds();
                for (long k = 0; k < steps && !rc; k++) rc = br_ga_batch_step(B, f, E, du, dv, dm, NULL, err, sizeof err);
                gstep = (double)nv * (double)steps / (br_wall_seconds() - t0);
                t0 = br_wall_seconds();
                if (!rc) rc = br_ga_batch_repeat(B, steps, err, sizeof err);
                grep = (double)nv * (double)steps / (br_wall_seconds() - t0);
                if (rc) fprintf(stderr, "bristle bench structure: %s\n", err);
                br_ga_batch_destroy(B);
            }
        }
#endif
        if (!rc)
            printf("RESULT bench=structure variants=%ld dof=%d rows=%d steps=%ld threads=%d own_vsteps_per_s=%.4e "
                   "batch_cpu_vsteps_per_s=%.4e bytes_per_vstep=%.0f own_GBs=%.2f cpu_copy_GBs=%.1f device=\"%s\" "
                   "gpu_vsteps_per_s=%.4e gpu_resident_vsteps_per_s=%.4e gpu_resident_GBs=%.1f gpu_copy_GBs=%.1f\n",
                   nv, n, nr, steps, nthreads, own, cpu, bytes, bytes * own / 1e9, cpu_copy, gdev, gstep, grep,
                   bytes * grep / 1e9, gpu_copy);
        for (long v = 0; g && v < nv; v++) br_genalpha_free(g[v]);
        free(g), free(f), free(E), free(du), free(dv), free(dm);
    }
    for (int k = 0; k < NBASE; k++) br_data_free(d[k]), br_model_free(m[k]);
    return rc;
}
