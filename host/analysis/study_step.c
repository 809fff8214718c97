/* study_step.c: the variants of a study built and stepped. In: the study, a variant's index; out: the
 * variant's model and data (the study's and the variant's overrides applied, written with 17 digits so
 * that `bristle run BASE --set ...` reproduces it; columns and excitation resolved), then advanced in
 * lockstep, a step at a time: every variant's contact sets in one field (st_batch), every stage of the
 * step on a beam batch (st_beams, the GPU's), or a field per variant a block of steps at a time; each
 * sampled row handed to the variant's analysis (study_analysis.c), the variant finished or failed. */
#include "analysis/study_internal.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step/beam_batch.h"
#include "base/outdir.h"
#include "io/output.h"
#include "analysis/hbm.h"
#include "io/scenario.h"
#include "step/sim.h"

/* variant -> its grid indices (first axis slowest) and random draw */
void br_study_variant_index(const st_study *S, long v, int *gi)
{
    long r = v - 1;
    if (S->nrand) r /= S->count;
    for (int a = S->naxis - 1; a >= 0; a--) gi[a] = (int)(r % S->axis[a].n), r /= S->axis[a].n;
}

/* variant -> its --set overrides (allocated strings in out, count returned) */
static int variant_sets(const st_study *S, long v, char out[][KEYLEN + 40], int max)
{
    int n = 0;
    for (int k = 0; k < S->nfix && n < max; k++) snprintf(out[n++], KEYLEN + 40, "%s", S->fix[k]);
    if (v == 0) return n;
    int gi[MAXAX];
    br_study_variant_index(S, v, gi);
    for (int a = 0; a < S->naxis; a++)
        for (int k = 0; k < S->axis[a].nkeys && n < max; k++)
            snprintf(out[n++], KEYLEN + 40, "%s=%.17g", S->axis[a].keys[k], S->axis[a].kval[(size_t)k * S->axis[a].n + gi[a]]);
    for (int k = 0; k < S->nrand && n < max; k++)
        snprintf(out[n++], KEYLEN + 40, "%s=%.17g", S->rnd[k].key, S->rval[v * S->nrand + k]);
    return n;
}

/* an override "key=value" of a variant -> the study-file line that sets that key */
static long override_line(const st_study *S, const char *kv)
{
    const size_t n = (size_t)(strchr(kv, '=') - kv);
    for (int k = 0; k < S->nfix; k++)
        if (!strncmp(S->fix[k], kv, n + 1)) return S->fixline[k];
    for (int a = 0; a < S->naxis; a++)
        for (int k = 0; k < S->axis[a].nkeys; k++)
            if (strlen(S->axis[a].keys[k]) == n && !strncmp(S->axis[a].keys[k], kv, n)) return S->axis[a].kline[k];
    for (int k = 0; k < S->nrand; k++)
        if (strlen(S->rnd[k].key) == n && !strncmp(S->rnd[k].key, kv, n)) return S->rnd[k].line;
    return S->scen_line;
}

/* ---- one variant: model, data and its analysis ---- */

/* stepped sine: a harmonic excitation of constant amplitude (or none given: 1) -> the same switched on at
 * `start`, at a rising zero crossing (a zero-width ramp of its amplitude, its phase 0 there), so the
 * structure takes up its preload at rest and the force starts without a jump; an amplitude that is a
 * function of time is left as the scenario gives it. 0, or -1 when out of memory */
static int switch_on(br_timefn *fn, double start)
{
    if (fn->amp && fn->amp->kind != BR_TF_CONSTANT) return 0;
    const double A = fn->amp ? fn->amp->c : 1.0;
    if (!fn->amp && !(fn->amp = calloc(1, sizeof *fn->amp))) return -1;
    memset(fn->amp, 0, sizeof *fn->amp);
    fn->amp->kind = BR_TF_RAMP;
    /* a negative amplitude is the same force half a period on: |A| with the phase that rises at start */
    fn->amp->t0 = fn->amp->t1 = start, fn->amp->y0 = 0.0, fn->amp->y1 = fabs(A);
    fn->phase = -fmod(6.283185307179586 * fn->f * start, 6.283185307179586);
    return 0;
}

/* study, variant index -> model and data built, without a field (the study's and the variant's
 * overrides applied, columns and excitation resolved); 0, or -1 with a message in V->err */
int br_study_var_setup(const st_study *S, long v, st_var *V, const char *outdir)
{
    char sets[MAXFIX + MAXAX * MAXKEY + MAXRND][KEYLEN + 40];
    const char *sp[MAXFIX + MAXAX * MAXKEY + MAXRND];
    const int ns = variant_sets(S, v, sets, MAXFIX + MAXAX * MAXKEY + MAXRND);
    for (int k = 0; k < ns; k++) sp[k] = sets[k];
    char err[1024];
    V->m = br_scenario_parse(S->scen, S->text, S->len, sp, ns, err, sizeof err);
    if (!V->m) { /* the line of the study key whose override the message names, else the scenario's */
        snprintf(V->err, sizeof V->err, "%s", err);
        V->errline = S->scen_line;
        for (int k = 0; k < ns; k++) {
            char probe[KEYLEN + 16];
            snprintf(probe, sizeof probe, "--set %.*s", (int)(strchr(sets[k], '=') - sets[k]), sets[k]);
            if (strstr(err, probe)) V->errline = override_line(S, sets[k]);
        }
        return -1;
    }
    br_model *m = V->m;
    V->ncols = br_output_ncols(m);
    V->row = calloc((size_t)V->ncols, sizeof(double));
    if (!V->row) {
        snprintf(V->err, sizeof V->err, "out of memory");
        return -1;
    }
    for (int k = S->analysis == AN_HBM ? S->ncol : 0; k < S->ncol + S->nseries; k++) { /* hbm: BODY.x, checked below */
        const char *want = k < S->ncol ? S->col[k] : S->series[k - S->ncol];
        int found = -1;
        char nm[300];
        for (int c = 1; c < V->ncols && found < 0; c++) {
            br_output_colname(m, c, nm, sizeof nm);
            if (!strcmp(nm, want)) found = c;
        }
        if (found < 0) {
            snprintf(V->err, sizeof V->err, "no time-series column '%s' in %.300s (names like tip_C.x, contact_L.E)",
                     want, S->scen);
            V->errline = S->an_line;
            return -1;
        }
        if (k < S->ncol) V->col[k] = found;
        else V->scol[k - S->ncol] = found;
        V->parts |= br_output_col_part(m, found);
    }
    /* BRISTLE_STUDY_SAMPLE=full: every column computed and, on a beam batch, whole samples (the
     * reference a lean sample is compared with) */
    const char *full = getenv("BRISTLE_STUDY_SAMPLE");
    V->parts = full && !strcmp(full, "full") ? BR_OUT_ALL : V->parts | BR_OUT_BODIES;
    V->exload = -1;
    for (int k = 0; k < m->nload && V->exload < 0; k++) {
        const int kind = m->load[k].mag.kind;
        if (S->excitation[0] ? !strcmp(m->load[k].name, S->excitation) : (kind == BR_TF_SWEEP || kind == BR_TF_HARMONIC))
            V->exload = k;
    }
    if (S->analysis != AN_TIME && S->analysis != AN_HBM) {
        const int want = S->analysis == AN_SWEEP ? BR_TF_SWEEP : BR_TF_HARMONIC;
        if (V->exload < 0 || m->load[V->exload].mag.kind != want) {
            V->errline = S->an_line;
            snprintf(V->err, sizeof V->err, "a %s analysis needs an excitation load whose magnitude is a %s (%s%.300s)",
                     S->analysis == AN_SWEEP ? "sweep" : "stepped_sine",
                     S->analysis == AN_SWEEP ? "sweep" : "harmonic", S->excitation[0] ? "no such load: " : "none found in ",
                     S->excitation[0] ? S->excitation : S->scen);
            return -1;
        }
    }
    V->nsteps = (long)nearbyint(m->t_end / m->dt);
    if (S->analysis == AN_STEPPED) {
        /* each cycle's fit interpolates cubics through the samples: 8 a period at least (docs/studies.md) */
        double fmx = 0;
        for (int i = 0; i < S->nfreq; i++) fmx = fmax(fmx, S->freq[i]);
        const double h = m->dt * (double)m->out_every;
        if (8 * fmx * h > 1) {
            V->errline = S->an_line;
            const double hmax = m->dt * floor(1 / (8 * fmx * m->dt));
            char fix[160];
            if (hmax >= m->dt) snprintf(fix, sizeof fix, "set output.interval to at most %g s", hmax);
            else snprintf(fix, sizeof fix, "the time step (%g s) gives fewer itself: a smaller time.dt", m->dt);
            snprintf(V->err, sizeof V->err, "a stepped sine needs at least 8 samples a period: the output interval %g s gives "
                     "%.3g at %g Hz (%s)", h, 1 / (fmx * h), fmx, fix);
            return -1;
        }
        br_study_set_frequency(m, V->exload, S->freq[0], 0.0);
        if (switch_on(&m->load[V->exload].mag, S->start)) {
            snprintf(V->err, sizeof V->err, "out of memory");
            return -1;
        }
        V->cycle_end = -1.0;
    }
    V->wend = S->from + S->window;
    for (int c = 0; c < S->ncol; c++) V->wlo[c] = INFINITY, V->whi[c] = -INFINITY, V->peak[c] = -1;
    if (S->analysis == AN_HBM) { /* the solver built once to check the model (linear outside its contacts, loads
                                  * harmonic, columns), then again where the variant runs: it holds no state */
        const char *cols[MAXCOL];
        for (int c = 0; c < S->ncol; c++) cols[c] = S->col[c];
        int badin;
        br_hbm *h = br_hbm_create(m, S->text, S->len, S->hH, S->hN, S->hmaxper, S->tol, S->ncol, cols, &badin, err,
                                  sizeof err);
        if (!h) {
            snprintf(V->err, sizeof V->err, "%s", err);
            V->errline = S->an_line;
            return -1;
        }
        br_hbm_free(h);
        if (V->exload < 0 || m->load[V->exload].mag.kind != BR_TF_HARMONIC) { /* the receptance's force */
            V->errline = S->an_line;
            snprintf(V->err, sizeof V->err, "an hbm analysis reports receptances against an excitation load whose magnitude "
                     "is a harmonic (%s%.300s)", S->excitation[0] ? "no such load: " : "none found in ",
                     S->excitation[0] ? S->excitation : S->scen);
            return -1;
        }
        return 0; /* no data: nothing is stepped in time */
    }
    V->d = br_data_create_opt(m, BR_BACKEND_CPU, 0, err, sizeof err); /* its sets are stepped in the study's field */
    if (!V->d) {
        snprintf(V->err, sizeof V->err, "%s", err);
        return -1;
    }
    if (S->nseries) {
        /* a multiple of the output interval, the product within a long */
        const double k = fmin(1e12, fmax(1.0, nearbyint(S->series_dt / (m->dt * m->out_every))));
        V->series_every = (long)fmin(k, fmax(1.0, floor(9e18 / (double)m->out_every))) * m->out_every;
        snprintf(V->series_path, sizeof V->series_path, "%.1200s/variants/%05ld/series.csv", outdir, v);
        snprintf(V->series_tmp, sizeof V->series_tmp, "%s.part", V->series_path);
        V->series = fopen(V->series_tmp, "w");
        if (!V->series) {
            snprintf(V->err, sizeof V->err, "cannot write %.900s: %s", V->series_tmp, strerror(errno));
            return -1;
        }
        fprintf(V->series, "t");
        for (int k = 0; k < S->nseries; k++) fprintf(V->series, ",%s", S->series[k]);
        fprintf(V->series, "\n");
    }
    return 0;
}

void br_study_var_free(st_var *V)
{
    if (V->series) fclose(V->series);
    br_data_free(V->d);
    br_model_free(V->m);
    free(V->row), free(V->f);
}

/* variant -> 1 if its current step is sampled (every output interval, and its last step) */
static int var_sample(const st_study *S, const st_var *V)
{
    const int last = S->analysis != AN_STEPPED && V->n == V->nsteps;
    return (V->n % V->m->out_every == 0) || last;
}

/* variant after the stages of its step (forces and accelerations at t_n), integrate (0: a beam
 * batch integrates it) -> the sampled row analysed, then finished, failed or integrated to t_{n+1} */
static void var_step_end(const st_study *S, st_var *V, int sample, int integrate)
{
    br_model *m = V->m;
    br_data *d = V->d;
    const long n = V->n;
    int done = S->analysis != AN_STEPPED && n == V->nsteps;
    if (sample) {
        br_output_row_parts(m, d, V->parts, V->row); /* the columns of other parts NaN */
        const double t = d->t;
        if (S->analysis == AN_TIME)
            for (int c = 0; c < S->ncol; c++) {
                const double x = fabs(V->row[V->col[c]]);
                if (x > V->vmax[c]) V->vmax[c] = x, V->tmax[c] = t;
            }
        else if (S->analysis == AN_SWEEP) br_study_sweep_sample(S, V, t);
        else done = br_study_stepped_sample(S, V, t);
        if (V->series && n % V->series_every == 0) {
            char buf[32];
            br_format_g12(t, buf);
            fputs(buf, V->series);
            for (int c = 0; c < S->nseries; c++) br_format_g12(V->row[V->scol[c]], buf), fputc(',', V->series), fputs(buf, V->series);
            fputc('\n', V->series);
        }
        if (V->status != ST_RUNNING) return; /* out of memory in the analysis */
    }
    if (done) {
        V->status = ST_DONE;
        return;
    }
    if (S->analysis == AN_STEPPED && d->t > 1e4) {
        snprintf(V->err, sizeof V->err, "stepped sine: 10000 s simulated without reaching the last frequency");
        V->status = ST_FAILED;
        return;
    }
    if (integrate) br_integrate(m, d, m->dt);
    V->n++;
}

/* variant with a field of its own, block of steps -> advanced (or finished, or failed with time
 * and reason), with the run's substeps where the variant is adaptive (host/step/sim.c br_step_begin) */
void br_study_var_advance(const st_study *S, st_var *V, long block)
{
    for (long k = 0; k < block && V->status == ST_RUNNING; k++) {
        const int sample = var_sample(S, V);
        if (br_step_begin(V->m, V->d, sample, NULL, V->err, sizeof V->err)) {
            V->status = ST_FAILED;
            return;
        }
        var_step_end(S, V, sample, 0);
        if (V->status == ST_RUNNING && br_step_end(V->m, V->d, NULL, V->err, sizeof V->err)) V->status = ST_FAILED;
    }
}

void br_study_batch_free(st_batch *B)
{
    br_batch_destroy(B->b);
    free(B->sample), free(B->failed), free(B->errs), free(B->live);
}

/* variants (built without fields), backend -> the batch; 0, or -1 with err */
int br_study_batch_make(st_var *V, long nv, br_backend_kind backend, st_batch *B, char *err, size_t errlen)
{
    memset(B, 0, sizeof *B);
    B->sample = calloc((size_t)nv, sizeof(int)), B->failed = calloc((size_t)nv, sizeof(int));
    B->errs = malloc((size_t)nv * sizeof *B->errs), B->live = malloc((size_t)nv * sizeof *B->live);
    const br_model **m = malloc((size_t)nv * sizeof *m);
    br_data **d = malloc((size_t)nv * sizeof *d);
    if (!B->sample || !B->failed || !B->errs || !B->live || !m || !d) {
        free(m), free(d);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    for (long v = 0; v < nv; v++) m[v] = V[v].m, d[v] = V[v].d, B->errs[v] = V[v].err;
    B->b = br_batch_create(m, d, nv, backend, err, errlen);
    free(m), free(d);
    return B->b ? 0 : -1;
}

/* the batch, every variant, the variants running at the start of this block (run[nrun]) -> one
 * lockstep step of those still running (host/step/batch.h: frames, one field step over every
 * variant's sets, each variant's remaining stages), then each one's row analysed and its step
 * integrated (threads over variants). The list keeps the threads' shares even when variants end at
 * different times (stepped sines). Returns how many of them still run. */
long br_study_batch_step(const st_study *S, st_var *V, long nv, const long *run, long nrun, st_batch *B)
{
    long *live = B->live, nlive = 0;
    for (long k = 0; k < nrun; k++)
        if (V[run[k]].status == ST_RUNNING) live[nlive++] = run[k], B->sample[run[k]] = var_sample(S, &V[run[k]]);
    (void)nv;
    br_batch_forces(B->b, live, nlive, B->sample, B->failed, B->errs, sizeof V[0].err);
#pragma omp parallel for schedule(static) if (nlive >= ST_OMP_MIN)
    for (long k = 0; k < nlive; k++) {
        const long v = live[k];
        if (B->failed[v]) V[v].status = ST_FAILED;
        else var_step_end(S, &V[v], B->sample[v], 1);
    }
    long running = 0;
    for (long k = 0; k < nrun; k++) running += V[run[k]].status == ST_RUNNING;
    return running;
}

/* one beam batch (made, or zeroed) -> freed and zeroed */
static void beams_free(st_beams *W)
{
    br_beam_batch_destroy(W->bb);
    free(W->energy), free(W->failed), free(W->skip), free(W->fin), free(W->errs);
    memset(W, 0, sizeof *W);
}

void br_study_beams_free(st_beams *W, int nW)
{
    for (int w = 0; W && w < nW; w++) beams_free(&W[w]);
    free(W);
}

/* variants V[0..nv) (built without fields), backend -> one beam batch over them in W; 0, or -1 with why */
static int beams_make(st_var *V, long nv, br_backend_kind backend, st_beams *W, char *why, size_t whylen)
{
    memset(W, 0, sizeof *W);
    W->V = V, W->nv = nv;
    const br_model **m = malloc((size_t)nv * sizeof *m);
    br_data **d = malloc((size_t)nv * sizeof *d);
    W->energy = calloc((size_t)nv, sizeof(int)), W->failed = calloc((size_t)nv, sizeof(int));
    W->skip = calloc((size_t)nv, sizeof(int)), W->errs = calloc((size_t)nv, 600);
    W->fin = calloc((size_t)nv, sizeof(int));
    if (!m || !d || !W->energy || !W->failed || !W->skip || !W->fin || !W->errs) {
        free(m), free(d), beams_free(W);
        return snprintf(why, whylen, "out of memory"), -1;
    }
    for (long v = 0; v < nv; v++) m[v] = V[v].m, d[v] = V[v].d;
    W->bb = br_beam_batch_create(m, d, (int)nv, backend, why, whylen);
    free(m), free(d);
    if (!W->bb) return beams_free(W), -1;
    int parts = 0;
    for (long v = 0; v < nv; v++) parts |= V[v].parts;
    br_beam_batch_sample_parts(W->bb, parts);
    return 0;
}

int br_study_beams_make(st_var *V, long nv, br_backend_kind backend, st_beams **W, int *nW, char *why, size_t whylen)
{
    *W = NULL, *nW = 0;
    if (nv < 2) return snprintf(why, whylen, "it batches two variants or more"), -1;
    for (long v = 0; v < nv; v++)
        if (!br_beam_batch_fits(V[v].m, V[v].d, why, whylen)) return -1;
    /* on the CPU a batch a block of lanes (the tail with the last): each stepped a block of steps on
     * a thread, no barrier between its steps, its matrices and state in that core's cache through
     * them (S5b's eight variants: 0.4 MB; one batch of 32 a thread streamed 1.5 MB a step) */
    long n = backend == BR_BACKEND_CUDA ? 1 : nv / BR_BEAM_BLOCK;
    n = n < 1 ? 1 : n;
    st_beams *S = calloc((size_t)n, sizeof *S);
    if (!S) return snprintf(why, whylen, "out of memory"), -1;
    for (long w = 0; w < n; w++) {
        const long a = w * BR_BEAM_BLOCK, b = w == n - 1 ? nv : a + BR_BEAM_BLOCK;
        if (beams_make(V + a, b - a, backend, &S[w], why, whylen))
            return br_study_beams_free(S, (int)n), -1;
    }
    *W = S, *nW = (int)n;
    return 0;
}

/* a variant of a beam batch after its forces, its index in the batch -> its sampled state written
 * into its br_data and its row analysed (while they are in cache), its step ended (study_step.c's
 * var_step_end); W->skip[v] set where a stepped sine moved to its next frequency, W->fin[v] where the
 * variant finished */
static void beams_var_end(const st_study *S, st_beams *W, long v)
{
    st_var *V = W->V;
    W->skip[v] = W->fin[v] = 0; /* (a variant that stopped keeps its loads: no reload) */
    if (V[v].status != ST_RUNNING) return;
    if (W->energy[v]) br_beam_batch_scatter(W->bb, (int)v, 0);
    const int fi = V[v].fi;
    var_step_end(S, &V[v], W->energy[v], 0);
    W->skip[v] = V[v].fi != fi && V[v].status == ST_RUNNING; /* a stepped sine moved to its next frequency */
    W->fin[v] = V[v].status == ST_DONE;
}

/* a beam batch -> one lockstep step of its variants that run: forces at t_n on the batch, the sampled
 * variants' state brought back and analysed, then the batch integrates the rest; returns how many of
 * its variants still run */
static long beams_step(const st_study *S, st_beams *W)
{
    st_var *V = W->V;
    const long nv = W->nv;
    for (long v = 0; v < nv; v++) {
        W->failed[v] = V[v].status != ST_RUNNING;
        W->energy[v] = !W->failed[v] && var_sample(S, &V[v]);
    }
    br_beam_batch_forces(W->bb, W->energy, W->failed, W->errs, 600);
    for (long v = 0; v < nv; v++) {
        if (V[v].status == ST_RUNNING && W->failed[v]) {
            snprintf(V[v].err, sizeof V[v].err, "%s", W->errs + 600 * v);
            V[v].status = ST_FAILED;
        }
        W->energy[v] &= !W->failed[v];
    }
    char err[600];
    if (br_beam_batch_fetch(W->bb, W->energy, 0, err, sizeof err))
        for (long v = 0; v < nv; v++)
            if (V[v].status == ST_RUNNING) snprintf(V[v].err, sizeof V[v].err, "%s", err), V[v].status = ST_FAILED;
    const double ta = br_wall_seconds();
    /* each sampled variant's state written into its br_data and its row analysed at once, while
     * they are in cache; on the threads only where a row is analysed: on the other steps a region
     * costs more than its loop (a 1e4-variant S5b study on an H100's 16-core host: 0.70 -> 0.28 ms
     * a step, timed) */
    int any_sample = 0;
    for (long v = 0; v < nv && !any_sample; v++) any_sample = W->energy[v];
    if (any_sample && nv >= ST_OMP_MIN && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
        for (long v = 0; v < nv; v++) beams_var_end(S, W, v);
    } else /* (a CPU study's batch of eight: on its thread) */
        for (long v = 0; v < nv; v++) beams_var_end(S, W, v);
    W->analysis_s += br_wall_seconds() - ta;
    /* a finished variant's whole state (the summary's time, energies, friction energy), where its sample
     * was lean: one copy of all where many finish at once (a sweep's last step), else theirs alone. A
     * variant ends only on a sampled step (var_sample samples a fixed-length run's last step; a stepped
     * sine ends in its sample's analysis) */
    long nfin = 0;
    for (long v = 0; v < nv && br_beam_batch_is_lean(W->bb); v++) nfin += W->fin[v];
    if (nfin) {
        const int all = nfin > 32 && br_beam_batch_fetch(W->bb, W->fin, 1, err, sizeof err) == 0;
        for (long v = 0; v < nv; v++) {
            if (!W->fin[v]) continue;
            if (!all && br_beam_batch_fetch_one(W->bb, (int)v, err, sizeof err)) {
                snprintf(V[v].err, sizeof V[v].err, "%s", err), V[v].status = ST_FAILED;
                continue;
            }
            br_beam_batch_scatter(W->bb, (int)v, 1);
        }
    }
    for (long v = 0; v < nv; v++) /* on this thread: the device calls */
        if (W->skip[v] && br_beam_batch_reload(W->bb, (int)v, V[v].err, sizeof V[v].err)) V[v].status = ST_FAILED;
    long running = 0;
    for (long v = 0; v < nv; v++) W->skip[v] = V[v].status != ST_RUNNING, running += !W->skip[v];
    br_beam_batch_integrate(W->bb, W->skip);
    return running;
}

long br_study_beams_block(const st_study *S, st_beams *W, int nW, long block)
{
    long running = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : running) if (nW > 1)
    for (int w = 0; w < nW; w++) {
        long r = 1;
        for (long k = 0; k < block && r; k++) r = beams_step(S, &W[w]);
        running += r;
    }
    return running;
}
