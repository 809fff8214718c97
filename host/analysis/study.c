/* study.c: `bristle study STUDY.yaml [--out DIR] [--threads T] [--backend auto|cpu|cuda] [--quiet]`.
 *
 * One study file names a base scenario and its variants (docs/studies.md):
 *   grid     full factorial over axes; an axis is one key path with a list, {log: [a, b, n]} or
 *            {lin: [a, b, n]}, or a named axis {values: ..., set: {key: [one value per axis value]}}
 *            that sets several keys together;
 *   random   count, seed and per key a normal or uniform distribution, relative or absolute;
 *   variant 0 is the base scenario (with the study's `set`) unchanged.
 * Every variant is the base scenario with --set overrides (values written with 17 digits, so
 * `bristle run BASE --set ...` reproduces a variant bit for bit), built and checked before any
 * stepping. The variants advance in lockstep, one step at a time, with the variant as the leading
 * dimension of one contact field (st_batch: every variant's sets in one field step, small sets in
 * the CPU's SIMD lanes) and OpenMP threads over variants for the other stages; each variant's
 * arithmetic is its own, so study.csv does not depend on the thread count (variants whose time
 * steps differ get a field each and advance a block of steps at a time).
 * Analyses per variant: time_history (largest |value| of chosen columns), sweep (amplitude
 * envelope in windows against the excitation's instantaneous frequency), stepped_sine (a list of
 * frequencies, each run to steady state and fitted over whole cycles).
 *
 * This file: the command line and the driver. In: argc, argv after "study"; out: the exit status, the
 * study's folder (study.csv, summary.json, the variants' files, the plots) staged and published. The
 * study file is read in study_read.c, the variants built and stepped in study_step.c, analysed in
 * study_analysis.c, their tables, plots and the ranks' gathering in study_out.c; the types they share in
 * study_internal.h. */
#include "analysis/study.h"
#include "analysis/study_internal.h"
#include "base/memory.h"

#include <cblas.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "step/beam_batch.h"
#include "io/h5out.h"
#include "base/outdir.h"
#include "io/output.h"
#include "analysis/ranks.h"
#include "step/sim.h"

static int usage(FILE *o)
{
    fprintf(o, "usage: bristle study STUDY.yaml [--out DIR] [--threads T] [--backend auto|cpu|cuda] [--set KEY=VALUE]...\n"
               "                     [--quiet]\n"
               "  runs every variant of the study (docs/studies.md) in one process; writes study.csv (one row per\n"
               "  variant), summary.json, variants/NNNNN/frf.csv (sweep, stepped_sine) and PNG plots into DIR\n"
               "  (default runs/<study name>)\n"
               "  --threads T    OpenMP threads over the variants (default: all cores); results do not depend on it\n"
               "  --backend B    the contact field's backend for every variant (default: the scenario's)\n"
               "  --max-memory S refuse a variant that would need more than S bytes (4G, 512M)\n"
               "  --set K=V      override a key of the base scenario in every variant, after the study's own set\n"
               "  --quiet        no progress line\n");
    return o == stderr ? 2 : 0;
}

static void progress(const char *who, long done, long nvar, double frac, double wall, int tty, int final)
{
    const double left = frac > 0 ? wall * (1 - frac) / frac : 0;
    fprintf(stderr, "%s%s%ld/%ld variants done, %5.1f %%, %.0f s elapsed, %.0f s left%s", tty ? "\r" : "", who, done, nvar,
            100 * frac, wall, left, (tty && !final) ? "   " : "\n");
    fflush(stderr);
}

static int study_main(int argc, char **argv, const br_ranks *RK);

/* argc, argv after "study" -> the study run on every rank (one without an MPI launcher) */
int br_study_main(int argc, char **argv)
{
    br_ranks RK;
    if (br_ranks_begin(&RK, NULL, NULL)) return 2;
    const int rc = study_main(argc, argv, &RK);
    br_ranks_end(&RK);
    return rc;
}

/* argc, argv after "study", the ranks -> exit status, the same on every rank; rank 0 writes study.csv,
 * summary.json and the plots, each rank its own variants' files */
static int study_main(int argc, char **argv, const br_ranks *RK)
{
    const char *file = NULL, *out = NULL, *backend_arg = NULL, *cli_set[MAXFIX];
    int threads = 0, quiet = 0, ncli = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
        if (!strcmp(a, "--quiet")) quiet = 1;
        else if ((!strcmp(a, "--out") || !strcmp(a, "--backend") || !strcmp(a, "--threads") ||
                  !strcmp(a, "--max-memory") || !strcmp(a, "--set")) &&
                 i + 1 >= argc) {
            fprintf(stderr, "bristle study: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--set")) {
            const char *kv = argv[++i], *eq = strchr(kv, '=');
            if (!eq || eq == kv || strlen(kv) >= KEYLEN + 64 || ncli == MAXFIX) {
                fprintf(stderr, "bristle study: --set takes KEY=VALUE, at most %d of them (got '%s')\n", MAXFIX, kv);
                return 2;
            }
            cli_set[ncli++] = kv;
        } else if (!strcmp(a, "--out")) out = argv[++i];
        else if (!strcmp(a, "--backend")) backend_arg = argv[++i];
        else if (!strcmp(a, "--max-memory")) {
            if (br_arg_max_memory("study", argv[++i])) return 2;
        }
        else if (!strcmp(a, "--threads")) {
            char *end;
            const long t = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || t < 1 || t > 4096) {
                fprintf(stderr, "bristle study: --threads takes a whole number from 1 to 4096 (got '%s')\n", argv[i]);
                return 2;
            }
            threads = (int)t;
        } else if (a[0] == '-') {
            fprintf(stderr, "bristle study: unknown option '%s'\n", a);
            return usage(stderr);
        } else if (file) {
            fprintf(stderr, "bristle study: one study file at a time ('%s' and '%s')\n", file, a);
            return 2;
        } else file = a;
    }
    if (!file) return usage(stderr);
    int backend = -1;
    if (backend_arg) {
        if (!strcmp(backend_arg, "auto")) backend = BR_BACKEND_AUTO;
        else if (!strcmp(backend_arg, "cpu")) backend = BR_BACKEND_CPU;
        else if (!strcmp(backend_arg, "cuda")) backend = BR_BACKEND_CUDA;
        else {
            fprintf(stderr, "bristle study: --backend must be auto, cpu or cuda (got '%s')\n", backend_arg);
            return 2;
        }
    }
    char err[2048];
    st_study *S = br_study_read(file, err, sizeof err);
    /* --set KEY=VALUE: after the study's own `set` (so it wins), for every variant; a bad one is
     * reported as the study's are, naming the key */
    for (int k = 0; S && k < ncli; k++) {
        if (S->nfix == MAXFIX) {
            snprintf(err, sizeof err, "%s: the study's set and --set: more than %d keys", file, MAXFIX);
            br_study_free(S);
            S = NULL;
            break;
        }
        S->fixline[S->nfix] = S->scen_line;
        snprintf(S->fix[S->nfix++], sizeof S->fix[0], "%s", cli_set[k]);
    }
    if (br_ranks_max(RK, !S)) { /* every rank stops if any could not read it (a file only one node sees) */
        if (!S) fprintf(stderr, "%s%s\n", RK->size > 1 ? "bristle study: on one of the ranks: " : "", err);
        br_study_free(S);
        return 2;
    }
    if (br_ranks_max(RK, S->nvar) != -br_ranks_max(RK, -S->nvar)) {
        if (RK->rank == 0) fprintf(stderr, "bristle study: %s: the ranks read different variant counts (the file changed?)\n", file);
        br_study_free(S);
        return 2;
    }
    /* everything is written into the stage dir = final_dir.part, which takes final_dir's place when the
     * study ends (output.h); rank 0 makes it and tells the others */
    char dir[1200] = "", final_dir[1100], serr[1400];
    if (out) snprintf(final_dir, sizeof final_dir, "%s", out);
    else snprintf(final_dir, sizeof final_dir, "runs/%s", S->name);
    int staged = RK->rank == 0 ? br_stage_begin(final_dir, 0, dir, sizeof dir, serr, sizeof serr) : 0;
    br_ranks_bcast(RK, &staged, sizeof staged);
    br_ranks_bcast(RK, dir, sizeof dir);
    if (staged) {
        if (RK->rank == 0) fprintf(stderr, "bristle study: %s\n", serr);
        br_study_free(S);
        return 2;
    }
    const long nv = S->nvar;
    long v0, v1; /* this rank's variants */
    br_ranks_block(RK, nv, RK->rank, &v0, &v1);
    const long nl = v1 - v0;
    st_var *V = calloc((size_t)nv, sizeof *V);
    st_res *R = calloc((size_t)nv, sizeof *R);
    if (br_ranks_max(RK, !V || !R)) {
        if (!V || !R) fprintf(stderr, "bristle study: out of memory for %ld variants\n", nv);
        free(V), free(R), br_study_free(S);
        return 1;
    }
    /* every variant built and checked before any stepping, on the threads (a 1e5-variant S5b study
     * took 100 s to set up on one): bad input stops the study here with the message of the first
     * variant that failed, the same on any number of threads (a variant is skipped only above
     * one that failed) */
    const double setup0 = br_wall_seconds(); /* the variants' setup and the batch's: setup_time_s */
    if (threads > 0) omp_set_num_threads(threads);
    openblas_set_num_threads(1); /* as br_data_create_opt does, once before the threads do */
    int bad = 0;
    long first_bad = v1; /* the lowest variant that failed so far */
    char mkerr[2400] = ""; /* the file, a line, the variant and its message: room for all */
#pragma omp parallel for schedule(dynamic, 16) if (v1 - v0 >= ST_OMP_MIN)
    for (long v = v0; v < v1; v++) {
        long fb;
#pragma omp atomic read
        fb = first_bad;
        if (v > fb) continue;
        int rc = 0;
        if (S->nseries) {
            char vd[1400];
            snprintf(vd, sizeof vd, "%s/variants/%05ld", dir, v);
            if (br_mkdir_p(vd)) {
                snprintf(V[v].err, sizeof V[v].err, "cannot create %.900s: %s", vd, strerror(errno));
                rc = 1;
            }
        }
        if (!rc && br_study_var_setup(S, v, &V[v], dir)) rc = 2;
        if (rc) {
#pragma omp critical(study_setup_failed)
            if (v < first_bad) {
#pragma omp atomic write
                first_bad = v;
                bad = rc;
                if (rc == 1) snprintf(mkerr, sizeof mkerr, "bristle study: %s", V[v].err);
                else snprintf(mkerr, sizeof mkerr, "%s:%ld: variant %ld: %s", S->file,
                              V[v].errline ? V[v].errline : S->scen_line, v, V[v].err);
            }
        }
    }
    if (bad) fprintf(stderr, "%s\n", mkerr);
    if (v1 > v0 && backend < 0 && V[v0].m) backend = V[v0].m->backend;
    bad = (int)br_ranks_max(RK, bad);
    if (bad) { /* nothing was stepped: no stage left behind (removed once every rank closed its files) */
        for (long v = 0; v < nv; v++) br_study_var_free(&V[v]);
        br_ranks_barrier(RK);
        if (RK->rank == 0) br_rm_tree(dir);
        free(V), free(R), br_study_free(S);
        return bad;
    }
    /* one field for every variant when they share the time step (the usual case); a study over
     * time.dt gives each variant a field of its own and steps them a block at a time */
    st_var *L = V + v0; /* this rank's variants, L[0..nl) */
    int shared = 1;
    for (long v = 1; v < nl; v++) shared &= L[v].m->dt == L[0].m->dt;
    double dt0 = nl ? L[0].m->dt : 0.0; /* and across the ranks: every rank's first dt is rank 0's */
    br_ranks_bcast(RK, &dt0, sizeof dt0);
    shared = !br_ranks_max(RK, !shared || (nl && L[0].m->dt != dt0));
    st_batch B;
    memset(&B, 0, sizeof B);
    const br_backend_kind fb = backend < 0 ? BR_BACKEND_AUTO : (br_backend_kind)backend;
    /* adaptive substeps (time.adaptive, the default with implicit coupling) are each variant's own:
     * such variants step a field of their own, as their single runs do (docs/studies.md) */
    int adaptive = 0;
    for (long v = 0; v < nl; v++) adaptive |= L[v].d && br_data_adapts(L[v].m, L[v].d);
    adaptive = (int)br_ranks_max(RK, adaptive);
    if (adaptive && shared && fb == BR_BACKEND_CUDA && !quiet && RK->rank == 0)
        fprintf(stderr, "bristle study: adaptive substeps step each variant with a contact field of its own (no "
                        "GPU batch); time.adaptive: false steps the variants together\n");
    shared &= !adaptive;
    /* --backend cuda: every stage of the step on the GPU (the beam batch) where the variants allow
     * it, else the field alone (said so): on an H100 a 1e4-variant S5b study ran 14.6 to 25.4 times
     * the host's 16 cores (benchmarks/results/2026-11-27-gpu-h100.md, -sweep.md, -sweep-2.md). BRISTLE_STUDY_BEAMS=host keeps
     * the structures on the host with the field on the GPU; =cpu runs the batch on the CPU.
     * --backend auto does the same as cuda from ST_AUTO_BEAMS variants. On the CPU (--backend cpu,
     * or auto without a GPU) the study takes the CPU's beam batches, one a block of eight variants
     * stepped in vector lanes, the threads taking the batches, where the variants fit them and their
     * small Woodbury systems are solved afresh each step (as LAPACK's dgesv in their runs: the same
     * bits; docs/studies.md) */
    st_beams *W = NULL; /* the beam batches: one, or on the CPU one a block of eight variants (study_step.c) */
    int nW = 0;
    const char *beams_env = getenv("BRISTLE_STUDY_BEAMS");
    const int beams_host = beams_env && !strcmp(beams_env, "host");
    const int beams_cpu = beams_env && !strcmp(beams_env, "cpu");
    /* auto takes the batch on a GPU from ST_AUTO_BEAMS variants in the study (all ranks' variants:
     * every rank decides alike, so that 1 and R ranks run the same path) */
    const int beams_gpu = !beams_cpu && !beams_host && (fb == BR_BACKEND_CUDA || (fb == BR_BACKEND_AUTO && nv >= ST_AUTO_BEAMS));
    char nogpu[200];
    const int hbm = S->analysis == AN_HBM; /* a curve per variant: no time stepping, no shared field */
    if (hbm && fb == BR_BACKEND_CUDA && !quiet && RK->rank == 0)
        fprintf(stderr, "bristle study: an hbm analysis steps its contact fields on the CPU (--backend cuda is not used)\n");
    const int stepped = !hbm && shared && nl;
    const int gpu = stepped && (beams_gpu || fb == BR_BACKEND_AUTO) && !beams_cpu && !beams_host &&
                    br_cuda_available(nogpu, sizeof nogpu) > 0;
    /* the CPU's batch by default: the field on the CPU, variants in it whose Woodbury systems a run
     * factors each step (fewer than BR_GA_REUSE_MIN rows) */
    int cpu_default = stepped && !beams_host && !beams_cpu && (fb == BR_BACKEND_CPU || (fb == BR_BACKEND_AUTO && !gpu));
    for (long v = 0; v < nl && cpu_default; v++)
        cpu_default = L[v].d && L[v].d->ga && L[v].d->ga->nr < BR_GA_REUSE_MIN;
    if (stepped && (beams_cpu || cpu_default || (beams_gpu && gpu))) {
        char why[600];
        const int on_cpu = beams_cpu || cpu_default;
        if (br_study_beams_make(L, nl, on_cpu ? BR_BACKEND_CPU : BR_BACKEND_CUDA, &W, &nW, why, sizeof why)) {
            if (on_cpu && strstr(why, "out of memory")) snprintf(err, sizeof err, "%s", why), bad = 2; /* not the model: fatal */
            else if (!quiet && (beams_cpu || fb == BR_BACKEND_CUDA)) /* auto and the CPU's default fall back without a word */
                fprintf(stderr, "bristle study: the structures step on the host, the contact field on the %s: %s\n",
                        fb == BR_BACKEND_CUDA ? "GPU" : "CPU", why);
        }
    }
    if (!hbm && shared && nl && !W ? br_study_batch_make(L, nl, fb, &B, err, sizeof err) != 0 : 0) bad = 2;
    for (long v = 0; !hbm && !shared && v < nl && !bad; v++)
        if (br_data_own_field(L[v].m, L[v].d, fb, err, sizeof err)) bad = 2;
    if (bad) fprintf(stderr, "bristle study: %s\n", err);
    bad = (int)br_ranks_max(RK, bad);
    if (bad) {
        br_study_batch_free(&B), br_study_beams_free(W, nW);
        for (long v = 0; v < nv; v++) br_study_var_free(&V[v]);
        br_ranks_barrier(RK);
        if (RK->rank == 0) br_rm_tree(dir);
        free(V), free(R), br_study_free(S);
        return bad;
    }
    const int nthreads = threads > 0 ? threads : omp_get_max_threads();
    const int tty = isatty(2);
    const double start = br_wall_seconds();
    double next_report = start + 2.0;
    long total = 0; /* steps of the fixed-length analyses, for the progress fraction */
    for (long v = 0; v < nl; v++) total += L[v].nsteps + 1;
    const long block = 1000;
    long *run = malloc((size_t)(nl ? nl : 1) * sizeof(long)); /* the variants running at the start of a block */
    if (br_ranks_max(RK, !run)) {
        fprintf(stderr, "bristle study: out of memory\n");
        free(run);
        br_study_batch_free(&B), br_study_beams_free(W, nW);
        for (long v = 0; v < nv; v++) br_study_var_free(&V[v]);
        br_ranks_barrier(RK);
        if (RK->rank == 0) br_rm_tree(dir);
        free(V), free(R), br_study_free(S);
        return 1;
    }
    char who[32] = "";
    if (RK->size > 1) snprintf(who, sizeof who, "rank 0 of %d: ", RK->size);
    int reported = 0;
    if (hbm) { /* threads over the variants, each with a solver of its own */
        long done = 0;
#pragma omp parallel for schedule(dynamic, 1)
        for (long v = 0; v < nl; v++) {
            br_study_hbm_variant(S, v0 + v, &L[v], dir);
#pragma omp critical(study_hbm_progress)
            {
                const double now = br_wall_seconds();
                done++;
                if (!quiet && RK->rank == 0 && (now >= next_report || (done == nl && reported))) {
                    progress(who, done, nl, (double)done / (double)nl, now - start, tty, done == nl);
                    reported = 1;
                    next_report = now + (tty ? 0.5 : 10.0);
                }
            }
        }
    }
    for (; !hbm;) { /* lockstep: every running variant advances by a block of steps */
        long running = 0;
        if (shared) {
            long nrun = 0;
            for (long v = 0; v < nl; v++)
                if (L[v].status == ST_RUNNING) run[nrun++] = v;
            /* a block ends early when no variant runs (their field would go on stepping) */
            if (W && nrun) br_study_beams_block(S, W, nW, block);
            for (long k = 0; !W && k < block && nrun; k++)
                if (!br_study_batch_step(S, L, nl, run, nrun, &B)) break;
            for (long v = 0; v < nl; v++) running += L[v].status == ST_RUNNING;
        } else {
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : running)
            for (long v = 0; v < nl; v++) {
                if (L[v].status != ST_RUNNING) continue;
                br_study_var_advance(S, &L[v], block);
                running += L[v].status == ST_RUNNING;
            }
        }
        const double now = br_wall_seconds();
        if (!quiet && RK->rank == 0 && (now >= next_report || !running)) {
            long done = 0, steps = 0, fdone = 0;
            for (long v = 0; v < nl; v++) done += L[v].status != ST_RUNNING, steps += L[v].n, fdone += L[v].fi;
            const double frac = S->analysis == AN_STEPPED ? (double)fdone / ((double)nl * S->nfreq) : (double)steps / total;
            if (running || reported) progress(who, done, nl, running ? frac : 1.0, now - start, tty, !running);
            reported = 1;
            next_report = now + (tty ? 0.5 : 10.0);
        }
        if (!running) break;
    }
    free(run);
    /* the stepping's wall time: the slowest rank's (in microseconds through the reduction) */
    const double wall = RK->size > 1 ? 1e-6 * (double)br_ranks_max(RK, (long)(1e6 * (br_wall_seconds() - start)))
                                     : br_wall_seconds() - start;
    /* each rank's variant files: its series closed, its frequency responses written */
    int io_fail = 0;
    for (long v = v0; v < v1; v++) {
        if (V[v].series) {
            const int e = ferror(V[v].series) | (fclose(V[v].series) != 0);
            V[v].series = NULL;
            if (e || rename(V[v].series_tmp, V[v].series_path)) io_fail = 1;
        }
        if (S->analysis != AN_TIME && !hbm && V[v].nf > 0 && br_study_write_frf(S, &V[v], v, dir)) io_fail = 1;
    }
    for (long v = v0; v < v1; v++) br_study_results(S, &V[v], &R[v]);
    io_fail = (int)br_ranks_max(RK, io_fail);
    if (br_study_gather_variants(RK, S, V, R, v0, v1)) {
        if (RK->rank == 0) fprintf(stderr, "bristle study: out of memory gathering the results; partial output left in %s\n", dir);
        br_study_batch_free(&B), br_study_beams_free(W, nW);
        for (long v = 0; v < nv; v++) br_study_var_free(&V[v]);
        free(V), free(R), br_study_free(S);
        return 1;
    }
    if (RK->rank != 0) { /* rank 0 writes the rest and says how it went */
        int rc = 0;
        br_ranks_bcast(RK, &rc, sizeof rc);
        br_study_batch_free(&B), br_study_beams_free(W, nW);
        for (long v = 0; v < nv; v++) br_study_var_free(&V[v]);
        free(V), free(R), br_study_free(S);
        return rc;
    }
    /* results, AF against the base variant's peak of the first column */
    long steps = 0, ndone = 0;
    for (long v = 0; v < nv; v++) steps += V[v].n + 1, ndone += R[v].status == ST_DONE;
    for (long v = 0; v < nv; v++) {
        double mx = -1;
        for (int c = 0; c < S->ncol; c++) mx = fmax(mx, R[v].peak[c]);
        R[v].af = R[0].status == ST_DONE && R[v].status == ST_DONE && R[0].peak[0] > 0 ? mx / R[0].peak[0] : NAN;
    }
    /* a variant that ran out of memory leaves the study incomplete: its folder stays the stage */
    long oom = -1;
    for (long v = nv - 1; v >= 0; v--)
        if (V[v].oom) oom = v;
    io_fail |= oom >= 0;
    char files[64][64];
    int nfiles = 0;
    if (S->analysis != AN_TIME) snprintf(files[nfiles++], 64, "variants/NNNNN/frf.csv");
    if (S->nseries) snprintf(files[nfiles++], 64, "variants/NNNNN/series.csv");
    if (br_study_write_table(S, V[0].m, V, R, dir)) io_fail = 1;
    else snprintf(files[nfiles++], 64, "study.csv");
    if (S->hdf5 && !io_fail) { /* the tables into study.h5; their CSV files go */
        char herr[1600], hp[1400], hq[1500];
        snprintf(hq, sizeof hq, "%s/study.h5.part", dir);
        snprintf(hp, sizeof hp, "%s/study.h5", dir);
        snprintf(herr, sizeof herr, "cannot rename %s", hq);
        if (br_h5_study(dir, nv, herr, sizeof herr) || rename(hq, hp)) {
            fprintf(stderr, "bristle study: %s\n", herr);
            io_fail = 1;
        } else {
            nfiles = 0;
            snprintf(files[nfiles++], 64, "study.h5");
        }
    }
    if (S->plots && br_study_plots(S, V[0].m, V, R, dir, files, &nfiles))
        fprintf(stderr, "bristle study: warning: out of memory drawing the plots: some were not written\n");
    /* summary.json */
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "study", S->name);
    cJSON_AddStringToObject(j, "source", S->file);
    cJSON_AddStringToObject(j, "scenario", S->scen);
    cJSON_AddStringToObject(j, "analysis", S->analysis == AN_TIME ? "time_history" : S->analysis == AN_SWEEP ? "sweep" : hbm ? "hbm" : "stepped_sine");
    br_json_number(j, "variants", (double)nv);
    br_json_number(j, "complete", (double)ndone);
    long ninacc = 0; /* of those, finished with an energy residual above their tolerance */
    for (long v = 0; S->analysis != AN_HBM && v < nv; v++) ninacc += R[v].status == ST_DONE && R[v].inaccurate;
    br_json_number(j, "inaccurate", (double)ninacc);
    br_json_number(j, "failed", (double)(nv - ndone));
    const br_field *f0 = W ? br_beam_batch_field(W[0].bb) : shared ? br_batch_field(B.b) : V[0].d ? V[0].d->field : NULL;
    cJSON_AddStringToObject(j, "backend", f0 ? br_field_backend_name(f0) : "cpu");
    cJSON_AddStringToObject(j, "structure_step", W ? "batched with the field (kernels/step/)" : "per variant on the host");
    if (W) br_json_number(j, "sample_bytes_per_variant", (double)br_beam_batch_sample_bytes(W[0].bb));
    if (W) br_json_number(j, "beam_batches", nW);
    const char *const *phase;
    const double *psec;
    const int nphase = W ? br_beam_batch_seconds(W[0].bb, &phase, &psec) : 0;
    if (nphase) { /* BRISTLE_BEAM_TIMING: where the batches' steps spent their time (summed over them: thread seconds) */
        cJSON *ph = cJSON_AddObjectToObject(j, "beam_batch_seconds");
        for (int k = 0; ph && k < nphase; k++) {
            double sum = 0;
            for (int w = 0; w < nW; w++) br_beam_batch_seconds(W[w].bb, &phase, &psec), sum += psec[k];
            br_json_number(ph, phase[k], sum);
        }
        double an = 0;
        for (int w = 0; w < nW; w++) an += W[w].analysis_s;
        if (ph) br_json_number(ph, "analysis", an); /* with the sampled rows' scatter */
    }
    cJSON_AddStringToObject(j, "contact_field", hbm ? "a field per variant, stepped over the period (AFT, CPU)" : shared ? "one field for every variant" : "a field per variant (time steps differ)");
    br_json_number(j, "ranks", RK->size);
    br_json_number(j, "threads", nthreads);
    br_json_number(j, "wall_time_s", wall);
    br_json_number(j, "setup_time_s", start - setup0);
    long hpts = 0, hnewton = 0, hjac = 0, hevals = 0;
    double hupd = 0;
    for (long v = 0; hbm && v < nv; v++)
        hpts += V[v].npoints, hnewton += V[v].newton, hjac += V[v].jacobians, hevals += V[v].aft_evals, hupd += V[v].updates;
    if (hbm) { /* harmonic balance: the curves' counts (docs/hbm.md) */
        br_json_number(j, "harmonics", S->hH);
        br_json_number(j, "samples", S->hN);
        if (S->hmode) { /* a backbone per variant */
            br_json_number(j, "mode", S->hmode);
            br_json_number(j, "amplitude_from", S->ha0);
            br_json_number(j, "amplitude_to", S->ha1);
        } else {
            br_json_number(j, "from_Hz", S->hf0);
            br_json_number(j, "to_Hz", S->hf1);
        }
        br_json_number(j, "curve_points", (double)hpts);
        br_json_number(j, "newton_iterations", (double)hnewton);
        br_json_number(j, "jacobians", (double)hjac);
        br_json_number(j, "aft_evaluations", (double)hevals);
        br_json_number(j, "field_updates", hupd);
        br_json_number(j, "field_updates_per_second", wall > 0 ? hupd / wall : 0.0);
    } else {
        br_json_number(j, "variant_steps", (double)steps);
        br_json_number(j, "variant_steps_per_second", wall > 0 ? steps / wall : 0.0);
        br_json_number(j, "variant_steps_per_second_per_thread", wall > 0 ? steps / wall / nthreads / RK->size : 0.0);
    }
    cJSON *fl = cJSON_AddArrayToObject(j, "files");
    for (int k = 0; k < nfiles; k++) cJSON_AddItemToArray(fl, cJSON_CreateString(files[k]));
    cJSON_AddItemToArray(fl, cJSON_CreateString("summary.json"));
    cJSON *fv = cJSON_AddArrayToObject(j, "failed_variants");
    for (long v = 0; v < nv; v++)
        if (R[v].status != ST_DONE) {
            cJSON *o = cJSON_CreateObject();
            br_json_number(o, "variant", (double)v);
            br_json_number(o, "t", R[v].t);
            cJSON_AddStringToObject(o, "error", V[v].err);
            cJSON_AddItemToArray(fv, o);
        }
    char *txt = cJSON_Print(j);
    cJSON_Delete(j);
    char path[1400], tmp[1500];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *fp = txt ? fopen(tmp, "w") : NULL;
    if (!fp || fputs(txt, fp) < 0 || fputc('\n', fp) < 0 || fclose(fp) != 0 || rename(tmp, path)) io_fail = 1;
    free(txt);
    if (!io_fail && br_stage_publish(dir, final_dir, serr, sizeof serr)) {
        fprintf(stderr, "bristle study: %s\n", serr);
        io_fail = 1;
    }
    char ranks[48] = "";
    if (RK->size > 1) snprintf(ranks, sizeof ranks, "%d ranks x ", RK->size);
    if (hbm)
        printf("%s: %ld variants, %ld complete, %ld failed; %ld points on the %s in %.3g s (%.3g field updates/s on %s%d "
               "threads); output in %s/\n",
               S->name, nv, ndone, nv - ndone, hpts, S->hmode ? "backbones" : "curves", wall, wall > 0 ? hupd / wall : 0.0, ranks,
               nthreads, io_fail ? dir : final_dir);
    else
        printf("%s: %ld variants, %ld complete, %ld failed; %ld variant-steps in %.3g s (%.3g variant-steps/s on %s%d "
               "threads); output in %s/\n",
               S->name, nv, ndone, nv - ndone, steps, wall, wall > 0 ? steps / wall : 0.0, ranks, nthreads,
               io_fail ? dir : final_dir);
    for (long v = 0; v < nv; v++)
        if (R[v].status != ST_DONE && hbm) fprintf(stderr, "bristle study: variant %ld failed: %s\n", v, V[v].err);
        else if (R[v].status != ST_DONE) fprintf(stderr, "bristle study: variant %ld failed at t = %.9g s: %s\n", v, R[v].t, V[v].err);
    long capped = 0, npts = 0, vcap = 0;
    for (long v = 0; S->analysis == AN_STEPPED && v < nv; v++) capped += R[v].capped, npts += V[v].nf, vcap += R[v].capped > 0;
    if (capped)
        fprintf(stderr, "bristle study: %ld of %ld frequency points (in %ld variants) reached max_cycles (%d) before the "
                        "response was steady: `converged` 0 in their frf.csv, `unconverged` in study.csv; raise max_cycles, "
                        "or find the steady states by harmonic balance (type: hbm)\n", capped, npts, vcap, S->max_cycles);
    if (oom >= 0) fprintf(stderr, "bristle study: variant %ld ran out of memory; partial output left in %s\n", oom, dir);
    else if (io_fail) fprintf(stderr, "bristle study: writing into %s failed\n", dir);
    fflush(stdout);
    int rc = io_fail || ndone < nv ? 1 : 0;
    br_ranks_bcast(RK, &rc, sizeof rc);
    br_study_batch_free(&B), br_study_beams_free(W, nW);
    for (long v = 0; v < nv; v++) br_study_var_free(&V[v]);
    free(V), free(R), br_study_free(S);
    return rc;
}
