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
 * frequencies, each run to steady state and fitted over whole cycles). */
#include "analysis/study.h"
#include "base/memory.h"
#include "base/parse.h"

#include <cblas.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "step/beam_batch.h"
#include "io/h5out.h"
#include "base/outdir.h"
#include "io/output.h"
#include "analysis/hbm.h"
#include "io/plot.h"
#include "analysis/ranks.h"
#include "io/scenario.h"
#include "base/textfile.h"
#include "step/sim.h"

enum { AN_TIME = 0, AN_SWEEP = 1, AN_STEPPED = 2, AN_HBM = 3 };
enum { MAXAX = 8, MAXKEY = 8, MAXRND = 64, MAXCOL = 12, MAXFIX = 32, KEYLEN = 160 };
enum { ST_RUNNING = 0, ST_DONE = 1, ST_FAILED = 2 };
/* variants below which a lockstep stage runs on the calling thread: a variant's stage takes 0.2
 * (a 1-DOF oscillator) to 5 us (the S2 bundle), a parallel region's start and barrier a few us, and
 * where the cores are shared (ctest -j2 beside a 2-thread study) a barrier can wait a whole time
 * slice of the scheduler: a 5-variant study ran 25 times slower under load */
enum { ST_OMP_MIN = 64 };
/* a stepped sine's convergence test looks at the last ST_XHIST cycles (four changes' ratios) */
enum { ST_XHIST = 6 };
/* a stepped sine's least-squares integrands: 1, c, s, c c, c s, s s (c, s: cos and sin of the excitation's
 * phase), then x, x c, x s of each column */
enum { NQ = 6 + 3 * MAXCOL };
/* --backend auto: the variants from which a study steps on a GPU's beam batch (where one is found
 * and the variants allow it). Measured on an H100 and its host's 16 cores, S5b, per step: 100
 * variants 0.435 ms on the GPU, 0.477 ms on the CPU; 1000 variants 0.476 ms and 3.02 ms
 * (benchmarks/results/2026-11-27-gpu-h100-sweep.md, call 2; call 1, before the integration by
 * rows: 0.61 against 0.56 ms at 100): the crossing is near 90 to 120 with 16 cores, lower with
 * fewer */
enum { ST_AUTO_BEAMS = 128 };

typedef struct st_axis {
    char name[KEYLEN];          /* study.csv column: the key path, or the axis name */
    int nkeys;
    char keys[MAXKEY][KEYLEN];  /* key paths this axis sets */
    int n;                      /* values */
    double *val;                /* n label values */
    double *kval;               /* nkeys x n: the value each key takes */
    long kline[MAXKEY];         /* study-file line of each key */
    int logax;                  /* plotted on a log axis */
} st_axis;

typedef struct st_rand {
    char key[KEYLEN];
    int uniform;                /* 0 normal (width: sd), 1 uniform (width: half width) */
    double width;
    int relative;               /* value = base (1 + width xi), else base + width xi */
    double base;                /* the base scenario's value */
    long line;                  /* study-file line of the key */
} st_rand;

typedef struct st_study {
    char file[1024], name[BR_NAME_MAX], scen[1200];
    char *text;                 /* the base scenario's text */
    size_t len;
    int nfix;
    char fix[MAXFIX][KEYLEN + 64]; /* the study's `set`, "key=value" */
    long fixline[MAXFIX];
    long scen_line, an_line;    /* study-file lines of `scenario` and of the analysis */
    int naxis;
    st_axis axis[MAXAX];
    int nrand, count;
    uint64_t seed;
    st_rand rnd[MAXRND];
    int analysis;
    int ncol;
    char col[MAXCOL][KEYLEN];   /* analysed time-series columns */
    char excitation[BR_NAME_MAX];
    double window, from;        /* sweep: window length and start */
    int nfreq;
    double *freq;               /* stepped sine: frequencies in order */
    double tol, start;          /* stepped sine: steady-state tolerance, time before the first check */
    int min_cycles, max_cycles, fit_cycles;
    double hf0, hf1;            /* hbm: the frequency range [Hz] */
    int hH, hN, hpoints, hmaxper; /* hbm: harmonics, samples a period, points, the AFT's period cap */
    int hstab;                    /* hbm: 1 (stability: peak) the Floquet multipliers at the first column's peak */
    int extrap;                   /* stepped sine: 1 (extrapolate: true) each response's steady state extrapolated */
    int plots, nseries;
    int hdf5;                   /* output.format: hdf5: study.h5 instead of study.csv and the variants' CSV files */
    char series[MAXCOL][KEYLEN];
    double series_dt;
    long nvar;
    double *rval;               /* nvar x nrand drawn values (row 0 unused) */
} st_study;

/* ---- study file reading (libyaml document, every error with file:line) ---- */

typedef struct sy {
    yaml_document_t doc;
    const char *file;
    char *err;
    size_t errlen;
    int failed;
} sy;

static yaml_node_t *node_at(sy *c, int i) { return yaml_document_get_node(&c->doc, i); }

static void fail(sy *c, const yaml_node_t *n, const char *fmt, ...)
{
    if (c->failed) return;
    c->failed = 1;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%ld: %s", c->file, n ? (long)n->start_mark.line + 1 : 1L, msg);
}

static const char *sval(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static yaml_node_t *get(sy *c, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(sval(k), key)) return node_at(c, p->value);
    }
    return NULL;
}

/* mapping, allowed keys -> 0, or -1 with the first unknown key reported */
static int known(sy *c, yaml_node_t *map, const char *what, const char *const *keys)
{
    if (!map || map->type != YAML_MAPPING_NODE) {
        fail(c, map, "%s must be a mapping", what);
        return -1;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key);
        int ok = 0;
        for (int i = 0; keys[i] && k->type == YAML_SCALAR_NODE; i++) ok |= !strcmp(sval(k), keys[i]);
        if (!ok) {
            char list[400] = "";
            for (int i = 0; keys[i]; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i]);
            fail(c, k, "unknown key '%s' in %s (allowed: %s)", k->type == YAML_SCALAR_NODE ? sval(k) : "?", what, list);
            return -1;
        }
    }
    return 0;
}

static double num(sy *c, yaml_node_t *n, const char *what)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        fail(c, n, "%s must be a number", what);
        return 0.0;
    }
    char *end;
    errno = 0;
    const double v = strtod(sval(n), &end);
    if (end == sval(n) || *end || errno || !isfinite(v)) {
        fail(c, n, "%s: '%s' is not a finite number", what, sval(n));
        return 0.0; /* never the parsed prefix: a caller may convert it */
    }
    return v;
}

/* optional number at map.key, default -> value */
static double onum(sy *c, yaml_node_t *map, const char *key, double def)
{
    yaml_node_t *n = get(c, map, key);
    return n ? num(c, n, key) : def;
}

/* optional positive integer at map.key */
static int oint(sy *c, yaml_node_t *map, const char *key, int def, int lo, int hi)
{
    yaml_node_t *n = get(c, map, key);
    if (!n) return def;
    const double v = num(c, n, key);
    if (!c->failed && (v != floor(v) || v < lo || v > hi)) fail(c, n, "%s must be a whole number in [%d, %d] (got %g)", key, lo, hi, v);
    return c->failed ? def : (int)v; /* cast only in range (found by fuzz_study) */
}

static int seqlen(const yaml_node_t *n)
{
    return n && n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : -1;
}

static yaml_node_t *item(sy *c, yaml_node_t *seq, int i) { return node_at(c, seq->data.sequence.items.start[i]); }

/* a value list: [v, ...], {log: [a, b, n]} or {lin: [a, b, n]} -> n values (allocated), *logax */
static double *values(sy *c, yaml_node_t *n, const char *what, int *count, int *logax)
{
    *count = 0, *logax = 0;
    if (n && n->type == YAML_SEQUENCE_NODE) {
        const int len = seqlen(n);
        if (len < 1) {
            fail(c, n, "%s: an empty list", what);
            return NULL;
        }
        double *v = malloc((size_t)len * sizeof(double));
        if (!v) {
            fail(c, n, "%s: out of memory", what);
            return NULL;
        }
        for (int i = 0; i < len; i++) v[i] = num(c, item(c, n, i), what);
        *count = len;
        return v;
    }
    yaml_node_t *lg = get(c, n, "log"), *ln = get(c, n, "lin");
    yaml_node_t *r = lg ? lg : ln;
    static const char *const K[] = {"log", "lin", NULL};
    if (!n || n->type != YAML_MAPPING_NODE || !r || (lg && ln) || known(c, n, what, K)) {
        fail(c, n, "%s: expected a list of values, {log: [from, to, count]} or {lin: [from, to, count]}", what);
        return NULL;
    }
    if (seqlen(r) != 3) {
        fail(c, r, "%s: %s takes [from, to, count]", what, lg ? "log" : "lin");
        return NULL;
    }
    const double a = num(c, item(c, r, 0), what), b = num(c, item(c, r, 1), what), m = num(c, item(c, r, 2), what);
    if (c->failed) return NULL;
    if (m != floor(m) || m < 1 || m > 100000) {
        fail(c, item(c, r, 2), "%s: count must be a whole number from 1 to 100000 (got %g)", what, m);
        return NULL;
    }
    if (lg && !(a > 0 && b > 0)) {
        fail(c, r, "%s: a log range needs positive ends (got %g, %g)", what, a, b);
        return NULL;
    }
    const int k = (int)m;
    double *v = malloc((size_t)k * sizeof(double));
    if (!v) {
        fail(c, r, "%s: out of memory", what);
        return NULL;
    }
    for (int i = 0; i < k; i++) {
        const double s = k > 1 ? (double)i / (k - 1) : 0.0;
        v[i] = lg ? a * pow(b / a, s) : a + (b - a) * s;
    }
    if (k > 1) v[k - 1] = b;
    *count = k, *logax = lg != NULL;
    return v;
}

/* key path node -> copied into out (checked for length) */
static void keycopy(sy *c, yaml_node_t *k, char *out)
{
    if (!k || k->type != YAML_SCALAR_NODE || !*sval(k) || strlen(sval(k)) >= KEYLEN || strchr(sval(k), '=')) {
        fail(c, k, "a key path must be a non-empty name like loads.preload_L.magnitude.ramp.to");
        return;
    }
    snprintf(out, KEYLEN, "%s", sval(k));
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double unit(uint64_t *s) { return ((double)(splitmix(s) >> 11) + 0.5) * 0x1.0p-53; }

static void study_free(st_study *S)
{
    if (!S) return;
    for (int a = 0; a < S->naxis; a++) free(S->axis[a].val), free(S->axis[a].kval);
    free(S->text), free(S->freq), free(S->rval);
    free(S);
}

/* the study's top-level keys, its analysis and output sections */
static void read_analysis(sy *c, st_study *S, yaml_node_t *an)
{
    static const char *const K[] = {"type", "columns", "excitation", "window", "from", "frequencies", "tolerance",
                                    "start", "min_cycles", "max_cycles", "fit_cycles", "to", "harmonics", "samples",
                                    "points", "periods_max", "stability", "extrapolate", NULL};
    if (!an) {
        fail(c, yaml_document_get_root_node(&c->doc), "missing key 'analysis' (type: time_history, sweep, stepped_sine or hbm)");
        return;
    }
    if (known(c, an, "analysis", K)) return;
    yaml_node_t *ty = get(c, an, "type");
    const char *t = ty && ty->type == YAML_SCALAR_NODE ? sval(ty) : "";
    if (!strcmp(t, "time_history")) S->analysis = AN_TIME;
    else if (!strcmp(t, "sweep")) S->analysis = AN_SWEEP;
    else if (!strcmp(t, "stepped_sine")) S->analysis = AN_STEPPED;
    else if (!strcmp(t, "hbm")) S->analysis = AN_HBM;
    else {
        fail(c, ty ? ty : an, "analysis type must be time_history, sweep, stepped_sine or hbm (got '%s')", t);
        return;
    }
    yaml_node_t *cols = get(c, an, "columns");
    const int nc = seqlen(cols);
    if (nc < 1 || nc > MAXCOL) {
        fail(c, cols ? cols : an, "analysis needs 'columns': a list of 1 to %d time-series columns (e.g. [tip_C.x])", MAXCOL);
        return;
    }
    S->ncol = nc;
    for (int i = 0; i < nc; i++) keycopy(c, item(c, cols, i), S->col[i]);
    yaml_node_t *ex = get(c, an, "excitation");
    if (ex && ex->type == YAML_SCALAR_NODE) snprintf(S->excitation, sizeof S->excitation, "%s", sval(ex));
    else if (ex) fail(c, ex, "excitation must be the name of a load");
    S->window = onum(c, an, "window", 0.1);
    S->from = onum(c, an, "from", 0.0);
    S->tol = onum(c, an, "tolerance", S->analysis == AN_HBM ? 1e-8 : 1e-4);
    S->start = onum(c, an, "start", 0.0);
    S->min_cycles = oint(c, an, "min_cycles", 10, 1, 1000000);
    S->max_cycles = oint(c, an, "max_cycles", 500, 1, 1000000);
    S->fit_cycles = oint(c, an, "fit_cycles", 5, 1, 100000);
    if (c->failed) return;
    if (!(S->window > 0)) fail(c, get(c, an, "window"), "window must be > 0 (got %g)", S->window);
    if (!(S->tol > 0 && S->tol < 1)) fail(c, get(c, an, "tolerance"), "tolerance must lie in (0, 1) (got %g)", S->tol);
    if (S->start < 0) fail(c, get(c, an, "start"), "start must be >= 0 (got %g)", S->start);
    if (S->min_cycles > S->max_cycles) fail(c, get(c, an, "min_cycles"), "min_cycles exceeds max_cycles");
    yaml_node_t *fr = get(c, an, "frequencies");
    if (S->analysis == AN_STEPPED) {
        int lg;
        if (!fr) {
            fail(c, an, "a stepped_sine analysis needs 'frequencies' (a list, {lin: ...} or {log: ...}, in Hz)");
            return;
        }
        S->freq = values(c, fr, "frequencies", &S->nfreq, &lg);
        for (int i = 0; !c->failed && i < S->nfreq; i++)
            if (!(S->freq[i] > 0)) fail(c, fr, "frequencies must be positive (got %g)", S->freq[i]);
    } else if (fr) fail(c, fr, "frequencies belong to a stepped_sine analysis");
    yaml_node_t *xp = get(c, an, "extrapolate");
    if (xp) {
        const char *v = xp->type == YAML_SCALAR_NODE ? sval(xp) : "";
        if (S->analysis != AN_STEPPED) fail(c, xp, "extrapolate belongs to a stepped_sine analysis");
        else if (!strcmp(v, "true")) S->extrap = 1;
        else if (strcmp(v, "false")) fail(c, xp, "extrapolate must be true or false (got '%s')", v);
    }
    static const char *const HK[] = {"to", "harmonics", "samples", "points", "periods_max", "stability", NULL};
    if (S->analysis != AN_HBM) {
        for (int k = 0; HK[k] && !c->failed; k++)
            if (get(c, an, HK[k])) fail(c, get(c, an, HK[k]), "'%s' belongs to an hbm analysis", HK[k]);
        return;
    }
    /* harmonic balance (docs/hbm.md): from, to [Hz], harmonics, samples, points, periods_max, tolerance */
    yaml_node_t *nf = get(c, an, "from"), *nt = get(c, an, "to");
    if (!nf || !nt) {
        fail(c, nf ? nf : an, "an hbm analysis needs 'from' and 'to': the frequency range [Hz]");
        return;
    }
    S->hf0 = num(c, nf, "from"), S->hf1 = num(c, nt, "to");
    S->hH = oint(c, an, "harmonics", 7, -1000000, 64);
    S->hN = oint(c, an, "samples", 16 * (S->hH > 0 ? S->hH : 1), -1000000, 1 << 20);
    S->hpoints = oint(c, an, "points", 100, 1, 100000);
    S->hmaxper = oint(c, an, "periods_max", 200, 2, 1000000);
    yaml_node_t *hs = get(c, an, "stability");
    if (hs) {
        const char *v = hs->type == YAML_SCALAR_NODE ? sval(hs) : "";
        if (!strcmp(v, "peak")) S->hstab = 1;
        else if (strcmp(v, "none")) fail(c, hs, "stability must be peak or none (got '%s')", v);
    }
    if (c->failed) return;
    if (!(S->hf0 > 0)) fail(c, nf, "from must be a positive frequency [Hz] (got %g)", S->hf0);
    else if (!(S->hf1 > 0)) fail(c, nt, "to must be a positive frequency [Hz] (got %g)", S->hf1);
    else if (S->hf0 == S->hf1) fail(c, nt, "to must differ from from (both %g Hz)", S->hf0);
    else if (S->hH < 1) fail(c, get(c, an, "harmonics"), "harmonics must be at least 1 (got %d)", S->hH);
    else if (S->hN < 2 * S->hH + 1)
        fail(c, get(c, an, "samples") ? get(c, an, "samples") : an, "samples must be at least 2 harmonics + 1 = %d (got %d)",
             2 * S->hH + 1, S->hN);
    else if (S->tol >= 1e-2) fail(c, get(c, an, "tolerance"), "an hbm tolerance must lie in (0, 0.01) (got %g)", S->tol);
}

static void read_grid(sy *c, st_study *S, yaml_node_t *g)
{
    if (!g) return;
    if (g->type != YAML_MAPPING_NODE || g->data.mapping.pairs.top == g->data.mapping.pairs.start) {
        fail(c, g, "grid must be a non-empty mapping of key paths (or named axes) to values");
        return;
    }
    for (yaml_node_pair_t *p = g->data.mapping.pairs.start; p < g->data.mapping.pairs.top && !c->failed; p++) {
        if (S->naxis == MAXAX) {
            fail(c, node_at(c, p->key), "more than %d grid axes", MAXAX);
            return;
        }
        st_axis *A = &S->axis[S->naxis++];
        yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
        keycopy(c, k, A->name);
        A->kline[0] = (long)k->start_mark.line + 1;
        if (c->failed) return;
        yaml_node_t *vals = get(c, v, "values");
        if (!vals) { /* key path: values */
            A->nkeys = 1;
            memcpy(A->keys[0], A->name, KEYLEN);
            A->val = values(c, v, A->name, &A->n, &A->logax);
            if (c->failed) return;
            A->kval = malloc((size_t)A->n * sizeof(double));
            if (!A->kval) {
                fail(c, k, "%s: out of memory", A->name);
                return;
            }
            memcpy(A->kval, A->val, (size_t)A->n * sizeof(double));
            continue;
        }
        static const char *const K[] = {"values", "set", NULL};
        if (known(c, v, A->name, K)) return;
        A->val = values(c, vals, A->name, &A->n, &A->logax);
        yaml_node_t *st = get(c, v, "set");
        if (c->failed) return;
        if (!st || st->type != YAML_MAPPING_NODE || st->data.mapping.pairs.top == st->data.mapping.pairs.start) {
            fail(c, st ? st : v, "axis %s: 'set' must map key paths to lists of %d values", A->name, A->n);
            return;
        }
        A->kval = calloc((size_t)MAXKEY * A->n, sizeof(double));
        if (!A->kval) {
            fail(c, st, "axis %s: out of memory", A->name);
            return;
        }
        for (yaml_node_pair_t *q = st->data.mapping.pairs.start; q < st->data.mapping.pairs.top && !c->failed; q++) {
            if (A->nkeys == MAXKEY) {
                fail(c, node_at(c, q->key), "axis %s sets more than %d keys", A->name, MAXKEY);
                return;
            }
            keycopy(c, node_at(c, q->key), A->keys[A->nkeys]);
            A->kline[A->nkeys] = (long)node_at(c, q->key)->start_mark.line + 1;
            yaml_node_t *lst = node_at(c, q->value);
            if (seqlen(lst) != A->n) {
                fail(c, lst, "axis %s: %s needs a list of %d values, one per axis value", A->name, A->keys[A->nkeys], A->n);
                return;
            }
            for (int i = 0; i < A->n; i++) A->kval[(size_t)A->nkeys * A->n + i] = num(c, item(c, lst, i), A->keys[A->nkeys]);
            A->nkeys++;
        }
    }
}

static void read_random(sy *c, st_study *S, yaml_node_t *r)
{
    if (!r) return;
    static const char *const K[] = {"count", "seed", "keys", NULL};
    if (known(c, r, "random", K)) return;
    yaml_node_t *cn = get(c, r, "count");
    if (!cn) {
        fail(c, r, "random needs 'count' (the number of draws, >= 1)");
        return;
    }
    const double cnt = num(c, cn, "count");
    if (c->failed) return; /* no cast of a value that failed (found by fuzz_study) */
    if (cnt != floor(cnt) || cnt < 1 || cnt > 1000000) {
        fail(c, cn, "count must be a whole number from 1 to 1000000 (got %g)", cnt);
        return;
    }
    S->count = (int)cnt;
    const double sd = onum(c, r, "seed", 1.0);
    if (c->failed) return;
    if (sd != floor(sd) || sd < 0 || sd > 9007199254740992.0) {
        fail(c, get(c, r, "seed"), "seed must be a whole number >= 0");
        return;
    }
    S->seed = (uint64_t)sd;
    yaml_node_t *ks = get(c, r, "keys");
    if (!ks || ks->type != YAML_MAPPING_NODE || ks->data.mapping.pairs.top == ks->data.mapping.pairs.start) {
        fail(c, ks ? ks : r, "random needs 'keys': key paths mapped to {normal: SD} or {uniform: HALF_WIDTH}, with relative: true|false");
        return;
    }
    for (yaml_node_pair_t *p = ks->data.mapping.pairs.start; p < ks->data.mapping.pairs.top && !c->failed; p++) {
        if (S->nrand == MAXRND) {
            fail(c, node_at(c, p->key), "more than %d random keys", MAXRND);
            return;
        }
        st_rand *R = &S->rnd[S->nrand++];
        keycopy(c, node_at(c, p->key), R->key);
        R->line = (long)node_at(c, p->key)->start_mark.line + 1;
        yaml_node_t *v = node_at(c, p->value);
        static const char *const KD[] = {"normal", "uniform", "relative", NULL};
        if (c->failed || known(c, v, R->key, KD)) return;
        yaml_node_t *no = get(c, v, "normal"), *un = get(c, v, "uniform");
        if (!!no == !!un) {
            fail(c, v, "%s: give one distribution, normal: SD or uniform: HALF_WIDTH", R->key);
            return;
        }
        R->uniform = un != NULL;
        R->width = num(c, no ? no : un, no ? "normal" : "uniform");
        if (!c->failed && !(R->width >= 0)) fail(c, no ? no : un, "%s: a deviation must be >= 0 (got %g)", R->key, R->width);
        yaml_node_t *rel = get(c, v, "relative");
        R->relative = 1;
        if (rel) {
            const char *s = rel->type == YAML_SCALAR_NODE ? sval(rel) : "";
            if (!strcmp(s, "true")) R->relative = 1;
            else if (!strcmp(s, "false")) R->relative = 0;
            else fail(c, rel, "relative must be true or false (got '%s')", s);
        }
        char err[1024];
        long line;
        if (!c->failed && br_scenario_number(S->scen, S->text, S->len, R->key, &R->base, &line, err, sizeof err))
            fail(c, node_at(c, p->key), "%s", err);
    }
}

static void read_output(sy *c, st_study *S, yaml_node_t *o)
{
    S->plots = 1;
    if (!o) return;
    static const char *const K[] = {"plots", "series", "series_interval", "format", NULL};
    if (known(c, o, "output", K)) return;
    yaml_node_t *fm = get(c, o, "format");
    if (fm) {
        const char *f = fm->type == YAML_SCALAR_NODE ? sval(fm) : "";
        if (!strcmp(f, "hdf5")) S->hdf5 = 1;
        else if (strcmp(f, "csv")) fail(c, fm, "format must be csv or hdf5 (got '%s')", f);
        else S->hdf5 = 0;
        if (S->hdf5 && !br_h5_available())
            fail(c, fm, "format hdf5: this build has no HDF5 (install libhdf5-dev, then cmake again)");
    }
    yaml_node_t *pl = get(c, o, "plots");
    if (pl) {
        const char *s = pl->type == YAML_SCALAR_NODE ? sval(pl) : "";
        if (!strcmp(s, "true")) S->plots = 1;
        else if (!strcmp(s, "false")) S->plots = 0;
        else fail(c, pl, "plots must be true or false (got '%s')", s);
    }
    yaml_node_t *se = get(c, o, "series");
    if (se) {
        const int n = seqlen(se);
        if (n < 1 || n > MAXCOL) {
            fail(c, se, "series must list 1 to %d time-series columns", MAXCOL);
            return;
        }
        S->nseries = n;
        for (int i = 0; i < n; i++) keycopy(c, item(c, se, i), S->series[i]);
    }
    if (se && S->analysis == AN_HBM) fail(c, se, "series: an hbm analysis has no time series (its curves are variants/NNNNN/frf.csv)");
    S->series_dt = onum(c, o, "series_interval", 1e-3);
    if (!c->failed && !(S->series_dt > 0)) fail(c, get(c, o, "series_interval"), "series_interval must be > 0");
}

/* study file -> study (base scenario read, values expanded, random values drawn), or NULL with err */
static st_study *study_read(const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = br_read_text(path, &len, err, errlen);
    if (!text) return NULL;
    sy c;
    memset(&c, 0, sizeof c);
    c.file = path, c.err = err, c.errlen = errlen;
    const int bad = br_yaml_load(&c.doc, path, text, len, err, errlen);
    free(text);
    if (bad) return NULL;
    st_study *S = calloc(1, sizeof *S);
    if (!S) {
        snprintf(err, errlen, "%s:1: out of memory", path);
        yaml_document_delete(&c.doc);
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&c.doc);
    static const char *const K[] = {"name", "description", "scenario", "set", "grid", "random", "analysis", "output", NULL};
    snprintf(S->file, sizeof S->file, "%s", path);
    if (!root || known(&c, root, "the study", K)) goto done;
    const char *b = strrchr(path, '/');
    snprintf(S->name, sizeof S->name, "%s", b ? b + 1 : path);
    char *dot = strrchr(S->name, '.');
    if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"))) *dot = 0;
    yaml_node_t *nm = get(&c, root, "name");
    if (nm && nm->type == YAML_SCALAR_NODE) snprintf(S->name, sizeof S->name, "%s", sval(nm));
    if (!br_portable_name(nm && nm->type == YAML_SCALAR_NODE ? sval(nm) : S->name, sizeof S->name))
        fail(&c, nm ? nm : root, "the study name '%s' must be a file name of letters, digits, '_', '-' or '.' "
                                 "(not . or ..; give a name: key)", nm && nm->type == YAML_SCALAR_NODE ? sval(nm) : S->name);
    yaml_node_t *sc = get(&c, root, "scenario");
    if (!sc || sc->type != YAML_SCALAR_NODE) {
        fail(&c, sc ? sc : root, "missing key 'scenario': the base scenario file, relative to the study file");
        goto done;
    }
    S->scen_line = (long)sc->start_mark.line + 1;
    if (get(&c, root, "analysis")) S->an_line = (long)get(&c, root, "analysis")->start_mark.line + 1;
    if (sval(sc)[0] == '/' || !b) snprintf(S->scen, sizeof S->scen, "%s", sval(sc));
    else snprintf(S->scen, sizeof S->scen, "%.*s/%s", (int)(b - path), path, sval(sc));
    char rerr[1200];
    S->text = br_read_text(S->scen, &S->len, rerr, sizeof rerr);
    if (!S->text) {
        fail(&c, sc, "the scenario: %s", rerr);
        goto done;
    }
    yaml_node_t *st = get(&c, root, "set");
    if (st) {
        if (st->type != YAML_MAPPING_NODE) fail(&c, st, "set must map key paths to values");
        for (yaml_node_pair_t *p = st->type == YAML_MAPPING_NODE ? st->data.mapping.pairs.start : NULL;
             p && p < st->data.mapping.pairs.top && !c.failed; p++) {
            char key[KEYLEN];
            keycopy(&c, node_at(&c, p->key), key);
            yaml_node_t *v = node_at(&c, p->value);
            if (c.failed) break;
            if (v->type != YAML_SCALAR_NODE) fail(&c, v, "set: %s must be a single value", key);
            else if (S->nfix == MAXFIX) fail(&c, v, "set: more than %d keys", MAXFIX);
            else S->fixline[S->nfix] = (long)v->start_mark.line + 1,
                 snprintf(S->fix[S->nfix++], sizeof S->fix[0], "%s=%s", key, sval(v));
        }
    }
    if (!c.failed) read_analysis(&c, S, get(&c, root, "analysis"));
    if (!c.failed) read_grid(&c, S, get(&c, root, "grid"));
    if (!c.failed) read_random(&c, S, get(&c, root, "random"));
    if (!c.failed) read_output(&c, S, get(&c, root, "output"));
    if (c.failed) goto done;
    if (S->naxis == 0 && S->nrand == 0) {
        fail(&c, root, "a study needs 'grid' or 'random' (or both): otherwise it is the base scenario alone, bristle run");
        goto done;
    }
    long ng = 1;
    for (int a = 0; a < S->naxis; a++) ng *= S->axis[a].n;
    S->nvar = 1 + ng * (S->nrand ? S->count : 1);
    if (S->nvar > 1000000) {
        fail(&c, root, "%ld variants: a study takes at most 1000000", S->nvar);
        goto done;
    }
    if (S->nrand) { /* drawn in variant order, key order: the same values for any thread count */
        S->rval = calloc((size_t)S->nvar * S->nrand, sizeof(double));
        if (!S->rval) {
            fail(&c, get(&c, root, "random"), "random: out of memory for %ld variants", S->nvar);
            goto done;
        }
        uint64_t state = S->seed;
        for (long v = 1; v < S->nvar; v++)
            for (int k = 0; k < S->nrand; k++) {
                const st_rand *R = &S->rnd[k];
                double xi;
                if (R->uniform) xi = 2.0 * unit(&state) - 1.0;
                else {
                    const double u1 = unit(&state), u2 = unit(&state);
                    xi = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
                }
                S->rval[v * S->nrand + k] = R->relative ? R->base * (1.0 + R->width * xi) : R->base + R->width * xi;
            }
    }
done:
    yaml_document_delete(&c.doc);
    if (c.failed) {
        study_free(S);
        return NULL;
    }
    return S;
}

/* variant -> its grid indices (first axis slowest) and random draw */
static void variant_index(const st_study *S, long v, int *gi)
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
    variant_index(S, v, gi);
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

typedef struct st_var {
    br_model *m;
    br_data *d;
    int status;
    char err[1024];
    long n, nsteps;             /* steps taken, steps of a fixed-length analysis */
    int ncols;                  /* the model's time-series columns */
    double *row;
    int col[MAXCOL], scol[MAXCOL];
    int parts;                  /* what the columns read of br_data (output.h's BR_OUT_* bits) */
    int exload;                 /* the excitation load, or -1 */
    double vmax[MAXCOL], tmax[MAXCOL];  /* time history */
    double wlo[MAXCOL], whi[MAXCOL], wend;  /* sweep window */
    long nf, capf;
    double *f;                  /* per frequency point: f, then per column amplitude and phase */
    double peak[MAXCOL];
    long ipeak[MAXCOL];         /* the frequency point of each peak */
    /* stepped sine */
    int fi, phase_fit, cycles, fit_left, converged;
    double cycle_end;           /* the current cycle's end, exactly a period after its start (-1: none begun) */
    int nsh;                    /* samples held in sh (at most 4: the interval between the middle two integrated) */
    double tc;                  /* the time the cycle's integrals have reached */
    double xk[MAXCOL][ST_XHIST][2]; /* the columns' last cycles' coefficients (a, b), newest first */
    double xe[3][2];            /* extrapolate: the first column's last three extrapolated steady states */
    double sht[4];              /* the last samples' times, oldest first */
    double sh[4][NQ];           /* their least-squares integrands (in NQ's order) */
    double ig[NQ];              /* the integrands' integrals since the cycle began (over the fit cycles once
                                   converged) */
    long errline;               /* setup errors: the study-file line they come from */
    int oom;                    /* failed for want of memory, not by its physics: the study is incomplete */
    FILE *series;
    char series_tmp[1300], series_path[1280];
    long series_every;
    /* hbm: the curve's counts */
    long newton, jacobians, aft_evals, npoints;
    double updates, hwall;
    int nturn;
    double Wpk[64];             /* per set: friction energy per cycle at the first column's peak [J] */
    double mupk;                /* hbm with stability: peak: the largest Floquet multiplier there (NaN: none) */
} st_var;

/* ncolumns of a frequency-point record: f, cycles, converged, then amplitude and phase per column */
static int frec(const st_study *S) { return 3 + 2 * S->ncol; }

/* a frequency-point record -> appended to V->f; 0, or -1 with the variant failed (out of memory) */
static int push_point(const st_study *S, st_var *V, const double *rec)
{
    const int w = frec(S);
    if (V->nf == V->capf) {
        const long cap = V->capf ? 2 * V->capf : 64;
        double *nf = realloc(V->f, (size_t)cap * w * sizeof(double));
        if (!nf) {
            snprintf(V->err, sizeof V->err, "out of memory for the frequency response");
            V->status = ST_FAILED, V->oom = 1;
            return -1;
        }
        V->f = nf, V->capf = cap;
    }
    memcpy(V->f + V->nf * w, rec, (size_t)w * sizeof(double));
    V->nf++;
    return 0;
}

/* harmonic excitation -> its amplitude at t */
static double exc_amp(const br_timefn *fn, double t) { return fn->amp ? br_timefn_eval(fn->amp, t) : 1.0; }

/* stepped sine: the excitation switched to frequency f at time t, its phase continuous */
static void set_frequency(br_model *m, int load, double f, double t)
{
    br_timefn *fn = &m->load[load].mag;
    fn->phase += 6.283185307179586 * (fn->f - f) * t;
    fn->f = f;
}

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
static int var_setup(const st_study *S, long v, st_var *V, const char *outdir)
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
        set_frequency(m, V->exload, S->freq[0], 0.0);
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

static void var_free(st_var *V)
{
    if (V->series) fclose(V->series);
    br_data_free(V->d);
    br_model_free(V->m);
    free(V->row), free(V->f);
}

/* a sampled row of a sweep -> window envelope; a finished window -> a frequency point */
static void sweep_sample(const st_study *S, st_var *V, double t)
{
    if (t < S->from) return;
    for (int c = 0; c < S->ncol; c++) V->wlo[c] = fmin(V->wlo[c], V->row[V->col[c]]), V->whi[c] = fmax(V->whi[c], V->row[V->col[c]]);
    if (t < V->wend - 1e-9 * S->window) return;
    double rec[3 + 2 * MAXCOL];
    rec[0] = br_timefn_frequency(&V->m->load[V->exload].mag, V->wend - 0.5 * S->window);
    rec[1] = 0, rec[2] = 1;
    for (int c = 0; c < S->ncol; c++) {
        rec[3 + 2 * c] = 0.5 * (V->whi[c] - V->wlo[c]), rec[4 + 2 * c] = NAN;
        V->wlo[c] = INFINITY, V->whi[c] = -INFINITY;
    }
    if (push_point(S, V, rec)) return;
    for (int c = 0; c < S->ncol; c++)
        if (rec[3 + 2 * c] > V->peak[c]) V->peak[c] = rec[3 + 2 * c], V->ipeak[c] = V->nf - 1;
    V->wend += S->window;
}

/* n >= 3 coefficients x = (a, b) of a column's last cycles (x[0] the newest) -> the map M (2 x 2, by rows)
 * of their changes d_j = x_j - x_{j+1}, d_j = M d_{j+1}, fitted by least squares; 0, or -1 where the changes
 * before the last are all zero or M does not shrink them (a spectral radius of 1 or more). Near a stable
 * periodic response the changes shrink by the dominant Floquet multipliers: for a lightly damped mode a
 * complex pair, whose transient beats against the drive and traces an ellipse in the (a, b) plane, which M
 * follows exactly (for one mode of a linear system). With fewer than two independent changes (three
 * cycles, or changes along one line) M is the best complex factor, d_j = lambda d_{j+1}. */
static int fit_map(const double (*x)[2], int n, double M[4], double *misfit)
{
    double S[4] = {0}, G[3] = {0}, nr = 0, ni = 0; /* sum d_j d_{j+1}^T, sum d_{j+1} d_{j+1}^T (xx, xy, yy) */
    for (int j = 0; j + 2 < n; j++) {
        const double ar = x[j][0] - x[j + 1][0], ai = x[j][1] - x[j + 1][1];
        const double br = x[j + 1][0] - x[j + 2][0], bi = x[j + 1][1] - x[j + 2][1];
        S[0] += ar * br, S[1] += ar * bi, S[2] += ai * br, S[3] += ai * bi;
        G[0] += br * br, G[1] += br * bi, G[2] += bi * bi;
        nr += ar * br + ai * bi, ni += ai * br - ar * bi;
    }
    const double tg = G[0] + G[2], dg = G[0] * G[2] - G[1] * G[1];
    if (!(tg > 0)) return -1;
    if (dg > 1e-6 * tg * tg) { /* M = S G^-1 */
        M[0] = (S[0] * G[2] - S[1] * G[1]) / dg, M[1] = (S[1] * G[0] - S[0] * G[1]) / dg;
        M[2] = (S[2] * G[2] - S[3] * G[1]) / dg, M[3] = (S[3] * G[0] - S[2] * G[1]) / dg;
    } else { /* lambda = sum d_j conj(d_{j+1}) / sum |d_{j+1}|^2, as a matrix */
        M[0] = M[3] = nr / tg, M[1] = -ni / tg, M[2] = ni / tg;
    }
    double e2 = 0, d2 = 0; /* the fit's residual, relative: sum |d_j - M d_{j+1}|^2 / sum |d_j|^2 */
    for (int j = 0; misfit && j + 2 < n; j++) {
        const double ar = x[j][0] - x[j + 1][0], ai = x[j][1] - x[j + 1][1];
        const double br = x[j + 1][0] - x[j + 2][0], bi = x[j + 1][1] - x[j + 2][1];
        const double er = ar - M[0] * br - M[1] * bi, ei = ai - M[2] * br - M[3] * bi;
        e2 += er * er + ei * ei, d2 += ar * ar + ai * ai;
    }
    if (misfit) *misfit = d2 > 0 ? sqrt(e2 / d2) : 0.0;
    const double tr = 0.5 * (M[0] + M[3]), det = M[0] * M[3] - M[1] * M[2], disc = tr * tr - det;
    const double rho = disc >= 0 ? fabs(tr) + sqrt(disc) : sqrt(det);
    return rho < 1 ? 0 : -1;
}

/* M, a column's last change d -> the changes still to come, M (I - M)^-1 d, in r (the geometric series) */
static void map_rest(const double M[4], const double d[2], double r[2])
{
    const double u0 = 1 - M[0], u1 = -M[1], u2 = -M[2], u3 = 1 - M[3], du = u0 * u3 - u1 * u2;
    const double y0 = (u3 * d[0] - u1 * d[1]) / du, y1 = (u0 * d[1] - u2 * d[0]) / du; /* (I - M)^-1 d */
    r[0] = M[0] * y0 + M[1] * y1, r[1] = M[2] * y0 + M[3] * y1;
}

/* the first column's coefficients X_j = (a_j, b_j) of its last n cycles (x[0] the newest), tol -> 1 if the
 * response is steady: its change over the last cycle, d_0 = X_0 - X_1, and the changes still to come (the
 * geometric series of fit_map) both at most tol |X_0|. The change alone stops at a beat's crest, where the
 * amplitude hardly moves, and where the transient decays slowly (its multiplier about 1 - 2 pi zeta at a
 * resonance) long before it has gone (docs/studies.md). A change below a thousandth of the tolerance is
 * steady whatever M. */
static int cycles_steady(const double (*x)[2], int n, double tol)
{
    if (n < 3) return 0; /* two changes at least */
    const double X = hypot(x[0][0], x[0][1]), d[2] = {x[0][0] - x[1][0], x[0][1] - x[1][1]}, d0 = hypot(d[0], d[1]);
    if (!(d0 <= tol * X)) return 0;
    if (d0 <= 1e-3 * tol * X) return 1;
    double M[4], r[2];
    if (fit_map(x, n, M, NULL)) return 0; /* not shrinking, or it stood still, then moved: one more cycle */
    map_rest(M, d, r);
    return hypot(r[0], r[1]) <= tol * X;
}

/* 3 x 3 least squares of x = c0 + a cos th + b sin th from the sums -> a, b (0 if singular) */
static void ls_solve(const double *s, double *a, double *b)
{
    const double M[3][3] = {{s[0], s[1], s[2]}, {s[1], s[3], s[4]}, {s[2], s[4], s[5]}};
    const double r[3] = {s[6], s[7], s[8]};
    const double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                       M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    if (!(fabs(det) > 0)) {
        *a = *b = 0;
        return;
    }
    /* Cramer's rule for the 2nd and 3rd unknowns */
    const double da = M[0][0] * (r[1] * M[2][2] - M[1][2] * r[2]) - r[0] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                      M[0][2] * (M[1][0] * r[2] - r[1] * M[2][0]);
    const double db = M[0][0] * (M[1][1] * r[2] - r[1] * M[2][1]) - M[0][1] * (M[1][0] * r[2] - r[1] * M[2][0]) +
                      r[0] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    *a = da / det, *b = db / det;
}

/* integrals ig (in NQ's order) over one or more whole periods, column c -> its coefficients a, b (the weighted
 * least squares of x = c0 + a cos th + b sin th, the weights the integration's) */
static void cycle_coef(const double *ig, int c, double *a, double *b)
{
    const double s[9] = {ig[0], ig[1], ig[2], ig[3], ig[4], ig[5], ig[6 + 3 * c], ig[7 + 3 * c], ig[8 + 3 * c]};
    ls_solve(s, a, b);
}

/* variant's sampled row at t -> the least-squares integrands q (in NQ's order) */
static void cycle_integrand(const st_study *S, const st_var *V, double t, double *q)
{
    const br_timefn *fn = &V->m->load[V->exload].mag;
    const double th = 6.283185307179586 * fn->f * t + fn->phase, cs = cos(th), sn = sin(th);
    q[0] = 1, q[1] = cs, q[2] = sn, q[3] = cs * cs, q[4] = cs * sn, q[5] = sn * sn;
    for (int c = 0; c < S->ncol; c++) {
        const double x = V->row[V->col[c]];
        q[6 + 3 * c] = x, q[7 + 3 * c] = x * cs, q[8 + 3 * c] = x * sn;
    }
}

/* variant's sampled row at t -> the samples integrated from there: the cycle begins at the next sample
 * (the first interval's interpolation needs the one before); a frequency's first cycle */
static void cycle_begin(const st_study *S, st_var *V, double t)
{
    cycle_integrand(S, V, t, V->sh[0]);
    V->sht[0] = t, V->nsh = 1, V->cycle_end = -1.0;
    memset(V->ig, 0, sizeof V->ig);
}

/* s in [0, 1] -> the integrals from 0 to s of the cubic through four samples at -1, 0, 1, 2 (in sample
 * intervals) of each sample's value, in w (at s = 1: -1/24, 13/24, 13/24, -1/24) */
static void cubic_weights(double s, double w[4])
{
    const double s2 = s * s, s3 = s2 * s, s4 = s3 * s;
    w[0] = -(0.25 * s4 - s3 + s2) / 6;
    w[1] = 0.5 * (0.25 * s4 - s3 * (2.0 / 3) - 0.5 * s2 + 2 * s);
    w[2] = -0.5 * (0.25 * s4 - s3 / 3 - s2);
    w[3] = (0.25 * s4 - 0.5 * s2) / 6;
}

/* variant's last four samples, s0 <= s1 in [0, 1] -> the integrals of the least-squares integrands over
 * that share of the interval between the middle two samples added to the cycle's */
static void cycle_add(const st_study *S, st_var *V, double s0, double s1)
{
    double w0[4], w1[4];
    cubic_weights(s0, w0), cubic_weights(s1, w1);
    const double h = V->sht[2] - V->sht[1];
    for (int k = 0; k < 6 + 3 * S->ncol; k++) {
        double sum = 0;
        for (int i = 0; i < 4; i++) sum += (w1[i] - w0[i]) * V->sh[i][k];
        V->ig[k] += h * sum;
    }
}

/* a cycle ended at V->cycle_end (the sample at t just after it) -> its coefficients, the convergence
 * checks, and at the end of a frequency point its record and the next frequency (its first cycle begun
 * at t); 0: the cycles go on, 1: the last frequency is done, 2: the next frequency has begun */
static int cycle_done(const st_study *S, st_var *V, double t)
{
    br_timefn *fn = &V->m->load[V->exload].mag;
    V->cycles++;
    double ex[MAXCOL][2]; /* the steady states recorded */
    const int nh = V->cycles < ST_XHIST ? V->cycles : ST_XHIST;
    if (!V->phase_fit) {
        for (int c = 0; c < S->ncol; c++) { /* x = c0 + a cos th + b sin th over one period exactly */
            memmove(V->xk[c][1], V->xk[c][0], (ST_XHIST - 1) * sizeof V->xk[c][0]);
            cycle_coef(V->ig, c, &V->xk[c][0][0], &V->xk[c][0][1]);
        }
        memset(V->ig, 0, sizeof V->ig);
        V->cycle_end += 1.0 / fn->f;
        const int steady = V->cycles >= S->min_cycles && cycles_steady(V->xk[0], nh, S->tol);
        if (steady || V->cycles >= S->max_cycles) {
            V->phase_fit = 1, V->converged = steady, V->fit_left = S->fit_cycles;
            return 0;
        }
        /* extrapolate: true: the first column's steady state, extrapolated from its last changes, stood still
         * (within the tolerance) over three cycles, and what the geometric series misses of the changes (the
         * fit's relative residual) times what it adds is within the tolerance too: each column's
         * extrapolated steady state is recorded */
        double M[4], r[2], misfit;
        if (!S->extrap || nh < ST_XHIST || fit_map(V->xk[0], nh, M, &misfit)) {
            V->xe[0][0] = V->xe[0][1] = NAN;
            return 0;
        }
        memmove(V->xe[1], V->xe[0], 2 * sizeof V->xe[0]);
        for (int c = 0; c < S->ncol; c++) { /* every column's steady state: its coefficient plus what is to come */
            const double d[2] = {V->xk[c][0][0] - V->xk[c][1][0], V->xk[c][0][1] - V->xk[c][1][1]};
            map_rest(M, d, r);
            ex[c][0] = V->xk[c][0][0] + r[0], ex[c][1] = V->xk[c][0][1] + r[1];
        }
        V->xe[0][0] = ex[0][0], V->xe[0][1] = ex[0][1];
        const double E = hypot(V->xe[0][0], V->xe[0][1]);
        const double r0 = hypot(V->xe[0][0] - V->xk[0][0][0], V->xe[0][1] - V->xk[0][0][1]); /* the first column's series */
        if (V->cycles < S->min_cycles ||
            !(hypot(V->xe[0][0] - V->xe[1][0], V->xe[0][1] - V->xe[1][1]) <= S->tol * E &&
              hypot(V->xe[1][0] - V->xe[2][0], V->xe[1][1] - V->xe[2][1]) <= S->tol * E && misfit * r0 <= S->tol * E))
            return 0;
        V->converged = 1;
    } else if (--V->fit_left > 0) {
        V->cycle_end += 1.0 / fn->f;
        return 0;
    } else
        for (int c = 0; c < S->ncol; c++) cycle_coef(V->ig, c, &ex[c][0], &ex[c][1]); /* over the fit cycles */
    double rec[3 + 2 * MAXCOL];
    const double A = exc_amp(fn, t);
    rec[0] = fn->f, rec[1] = V->cycles, rec[2] = V->converged;
    for (int c = 0; c < S->ncol; c++) { /* x = c0 + R sin(th + psi): R = |(a, b)|, psi = atan2(a, b) */
        rec[3 + 2 * c] = hypot(ex[c][0], ex[c][1]) / fabs(A);
        rec[4 + 2 * c] = atan2(ex[c][0], ex[c][1]) * 180.0 / 3.141592653589793;
    }
    if (push_point(S, V, rec)) return 1;
    for (int c = 0; c < S->ncol; c++)
        if (rec[3 + 2 * c] > V->peak[c]) V->peak[c] = rec[3 + 2 * c], V->ipeak[c] = V->nf - 1;
    if (++V->fi >= S->nfreq) return 1;
    set_frequency(V->m, V->exload, S->freq[V->fi], t);
    V->phase_fit = 0, V->cycles = 0;
    cycle_begin(S, V, t);
    return 2;
}

/* a sampled row of a stepped sine at t -> the least-squares sums of the cycle's fit of x = c0 + a cos th +
 * b sin th as integrals over exactly one period wherever the samples fall, each integrand a cubic through
 * the four samples around each interval: a steady response c0 + a cos + b sin is fitted exactly, and a
 * decaying transient's coefficient in one cycle is its previous one's times the same factor, to the
 * interpolation's error (of order (2 w h)^4 of the transient, w h the phase between samples); the interval
 * before the last sample is the one integrated; cycle ends -> cycle_done; returns 1 when the last frequency
 * is done */
static int stepped_sample(const st_study *S, st_var *V, double t)
{
    if (t < S->start) return 0;
    if (V->nsh == 0) {
        cycle_begin(S, V, t);
        return 0;
    }
    cycle_integrand(S, V, t, V->sh[V->nsh]);
    V->sht[V->nsh++] = t;
    if (V->nsh == 2) /* the frequency's first cycle begins at its second sample */
        V->tc = t, V->cycle_end = t + 1.0 / V->m->load[V->exload].mag.f;
    if (V->nsh < 4) return 0;
    const double a = V->sht[1], h = V->sht[2] - a;
    while (V->sht[2] >= V->cycle_end) { /* the cycle ends in this interval */
        cycle_add(S, V, (V->tc - a) / h, fmin(1.0, (V->cycle_end - a) / h));
        V->tc = V->cycle_end;
        const int r = cycle_done(S, V, t);
        if (r) return r == 1;
    }
    cycle_add(S, V, (V->tc - a) / h, 1.0);
    V->tc = V->sht[2];
    memmove(V->sh[0], V->sh[1], 3 * sizeof V->sh[0]), memmove(V->sht, V->sht + 1, 3 * sizeof V->sht[0]);
    V->nsh = 3;
    return 0;
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
        else if (S->analysis == AN_SWEEP) sweep_sample(S, V, t);
        else done = stepped_sample(S, V, t);
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
static void var_advance(const st_study *S, st_var *V, long block)
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

/* The variants' contact sets in one field (the variant as the leading dimension): set s of
 * variant v is field set v nset + s, its frames offset by v's first frame in the concatenated
 * frame table; small sets of every variant then share the CPU's lanes (field_cpu.c). */
typedef struct st_batch {
    br_field *field;
    long nsets, nframes;
    long *set0, *frame0;         /* per variant: its first field set and first frame */
    br_frame_state *frames;      /* every variant's frames, as the field sees them */
    double *Nset;                /* every variant's prescribed normal forces */
    br_set_result *res;
    int *bad;
    int *sample;                 /* per variant: this step is sampled */
} st_batch;

static void batch_free(st_batch *B)
{
    br_field_destroy(B->field);
    free(B->set0), free(B->frame0), free(B->frames), free(B->Nset), free(B->res), free(B->bad), free(B->sample);
}

/* variants (built without fields), backend -> the batch; 0, or -1 with err */
static int batch_make(st_var *V, long nv, br_backend_kind backend, st_batch *B, char *err, size_t errlen)
{
    memset(B, 0, sizeof *B);
    B->set0 = malloc((size_t)nv * sizeof(long)), B->frame0 = malloc((size_t)nv * sizeof(long));
    B->sample = calloc((size_t)nv, sizeof(int));
    if (!B->set0 || !B->frame0 || !B->sample) return snprintf(err, errlen, "out of memory"), -1;
    for (long v = 0; v < nv; v++) {
        B->set0[v] = B->nsets, B->frame0[v] = B->nframes;
        B->nsets += V[v].m->nset, B->nframes += br_model_nframe(V[v].m);
    }
    br_contact_set_desc *desc = malloc((size_t)(B->nsets ? B->nsets : 1) * sizeof *desc);
    B->frames = calloc((size_t)(B->nframes ? B->nframes : 1), sizeof *B->frames);
    B->Nset = calloc((size_t)(B->nsets ? B->nsets : 1), sizeof(double));
    B->res = calloc((size_t)(B->nsets ? B->nsets : 1), sizeof *B->res);
    B->bad = calloc((size_t)(B->nsets ? B->nsets : 1), sizeof(int));
    if (!desc || !B->frames || !B->Nset || !B->res || !B->bad) {
        free(desc);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    for (long v = 0; v < nv; v++)
        for (int s = 0; s < V[v].m->nset; s++) {
            br_contact_set_desc *q = &desc[B->set0[v] + s];
            *q = V[v].d->desc[s];
            q->frame_a += (int)B->frame0[v], q->frame_b += (int)B->frame0[v];
        }
    B->field = B->nsets ? br_field_create(desc, (int)B->nsets, backend, err, errlen) : NULL;
    free(desc);
    return B->nsets && !B->field ? -1 : 0;
}

/* the batch, every variant, the variants running at the start of this block (run[nrun]) -> one
 * lockstep step of those still running: frames in (threads over variants), one field step over
 * every variant's sets, then each variant's remaining stages (threads over variants). The list
 * keeps the threads' shares even when variants end at different times (stepped sines). Returns how
 * many of them still run. */
static long batch_step(const st_study *S, st_var *V, long nv, const long *run, long nrun, st_batch *B)
{
#pragma omp parallel for schedule(static) if (nrun >= ST_OMP_MIN)
    for (long k = 0; k < nrun; k++) {
        const long v = run[k];
        st_var *W = &V[v];
        if (W->status != ST_RUNNING) continue;
        B->sample[v] = var_sample(S, W);
        br_fwd_frames(W->m, W->d);
        br_fwd_contacts_prepare(W->m, W->d);
        memcpy(B->frames + B->frame0[v], W->d->fframes, (size_t)br_model_nframe(W->m) * sizeof *B->frames);
        memcpy(B->Nset + B->set0[v], W->d->Nset, (size_t)W->m->nset * sizeof(double));
    }
    char ferr[600];
    if (B->field && br_field_step_sets(B->field, B->frames, B->Nset, V[0].m->dt, B->res, B->bad, ferr, sizeof ferr))
        for (long v = 0; v < nv; v++) { /* a variant with a non-finite set fails alone (named, one thread) */
            st_var *W = &V[v];
            for (int s = 0; s < W->m->nset && W->status == ST_RUNNING; s++)
                if (B->bad[B->set0[v] + s]) {
                    char what[400];
                    br_field_describe(B->field, (int)(B->set0[v] + s), what, sizeof what);
                    snprintf(W->err, sizeof W->err, "t = %.9g s: %s", W->d->t, what);
                    W->status = ST_FAILED;
                }
        }
#pragma omp parallel for schedule(static) if (nrun >= ST_OMP_MIN)
    for (long k = 0; k < nrun; k++) {
        const long v = run[k];
        st_var *W = &V[v];
        if (W->status != ST_RUNNING) continue;
        memcpy(W->d->res, B->res + B->set0[v], (size_t)W->m->nset * sizeof *W->d->res);
        if (br_step_after_contacts(W->m, W->d, B->sample[v], W->err, sizeof W->err)) {
            W->status = ST_FAILED;
            continue;
        }
        var_step_end(S, W, B->sample[v], 1);
    }
    long running = 0;
    for (long k = 0; k < nrun; k++) running += V[run[k]].status == ST_RUNNING;
    return running;
}

/* Every variant's whole step on a beam batch (host/step/beam_batch.c): with --backend cuda (unless
 * BRISTLE_STUDY_BEAMS=host) the field, the structures and every stage of the step resident on the GPU, only
 * the sampled state copied back; with BRISTLE_STUDY_BEAMS=cpu the same batch on the CPU (its
 * reference). For models whose
 * bodies all ride on beams; a stepped sine's new frequency is taken into the batch as it changes. */
typedef struct st_beams {
    br_beam_batch *bb;
    double analysis_s;           /* BRISTLE_BEAM_TIMING: the sampled rows' analysis */
    int *energy, *failed, *skip;
    int *fin;                    /* the variants whose lean sample ended their run this step */
    char *errs;                  /* 600 a variant */
} st_beams;

static void beams_free(st_beams *W)
{
    br_beam_batch_destroy(W->bb);
    free(W->energy), free(W->failed), free(W->skip), free(W->fin), free(W->errs);
    memset(W, 0, sizeof *W);
}

/* variants (built without fields), backend -> the beam batch; 0, or -1 with why it does not apply
 * (the caller steps the variants the usual way) */
static int beams_make(st_var *V, long nv, br_backend_kind backend, st_beams *W, char *why, size_t whylen)
{
    memset(W, 0, sizeof *W);
    if (nv < 2) return snprintf(why, whylen, "it batches two variants or more"), -1;
    for (long v = 0; v < nv; v++)
        if (!br_beam_batch_fits(V[v].m, V[v].d, why, whylen)) return -1;
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

/* the beam batch, every variant -> one lockstep step of those running: forces at t_n on the batch,
 * the sampled variants' state brought back and analysed, then the batch integrates the rest; returns
 * how many variants still run */
static long beams_step(const st_study *S, st_var *V, long nv, st_beams *W)
{
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
#pragma omp parallel for schedule(static) if (any_sample && nv >= ST_OMP_MIN)
    for (long v = 0; v < nv; v++) {
        W->skip[v] = W->fin[v] = 0; /* (a variant that stopped keeps its loads: no reload) */
        if (V[v].status != ST_RUNNING) continue;
        if (W->energy[v]) br_beam_batch_scatter(W->bb, (int)v, 0);
        const int fi = V[v].fi;
        var_step_end(S, &V[v], W->energy[v], 0);
        W->skip[v] = V[v].fi != fi && V[v].status == ST_RUNNING; /* a stepped sine moved to its next frequency */
        W->fin[v] = V[v].status == ST_DONE;
    }
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

/* ---- outputs ---- */



/* ---- hbm: a curve per variant ---- */

/* study, variant v (model built), output folder -> the variant's forced response by harmonic balance:
 * variants/NNNNN/frf.csv (bristle hbm's columns), V->f (per point: f, Newton iterations, 1, per column the first
 * harmonic's receptance |x_1 / F| and phase against the excitation, as a stepped sine's), the peaks, the friction
 * energy per cycle at the first column's peak, the counts; V->status done or failed (err) */
static void hbm_variant(const st_study *S, long v, st_var *V, const char *dir)
{
    const char *cols[MAXCOL];
    for (int c = 0; c < S->ncol; c++) cols[c] = S->col[c];
    char err[2048] = "", warn[1024] = "";
    int bad;
    const double t0 = br_wall_seconds();
    br_hbm *h = br_hbm_create(V->m, S->text, S->len, S->hH, S->hN, S->hmaxper, S->tol, S->ncol, cols, &bad, err, sizeof err);
    br_hbm_rows r = {0};
    const int rc = h ? br_hbm_curve(h, S->hf0, S->hf1, S->hpoints, 0.0, 0, &r, warn, sizeof warn, err, sizeof err) : -2;
    V->hwall = br_wall_seconds() - t0;
    V->status = ST_FAILED;
    if (!h) V->oom = !bad;
    if (rc == -3) snprintf(V->err, sizeof V->err, "%s", warn);
    else if (rc < 0) snprintf(V->err, sizeof V->err, "%s", *err ? err : "no convergence");
    if (h) {
        br_hbm_counts(h, &V->newton, &V->jacobians);
        const br_hbm_aft *a = br_hbm_aft_of(h);
        V->aft_evals = a->evals, V->updates = a->updates;
    }
    V->npoints = r.n, V->nturn = r.nfold;
    /* the excitation's amplitude and phase: F sin(w t + phase) */
    const br_timefn *fn = &V->m->load[V->exload].mag;
    const double F = fabs(exc_amp(fn, 0.0)), ph0 = fn->phase * (180.0 / M_PI);
    const int width = h ? br_hbm_row_width(h) : 0, H = S->hH;
    double rec[3 + 2 * MAXCOL];
    for (long p = 0; p < r.n; p++) {
        const double *x = r.v + p * width;
        rec[0] = x[0], rec[1] = x[1], rec[2] = 1.0;
        for (int c = 0; c < S->ncol; c++) {
            const double *col = x + 2 + c * (H + 3);
            /* x_1 = h1 cos(w t + arg1) = h1 sin(w t + arg1 + 90 deg): the phase against sin(w t + phase) */
            double psi = fmod(col[H + 2] + 90.0 - ph0, 360.0);
            if (psi > 180.0) psi -= 360.0;
            else if (psi <= -180.0) psi += 360.0;
            rec[3 + 2 * c] = F > 0 ? col[1] / F : col[1], rec[4 + 2 * c] = psi;
            if (rec[3 + 2 * c] > V->peak[c]) {
                V->peak[c] = rec[3 + 2 * c], V->ipeak[c] = p;
                if (c == 0)
                    for (int s = 0; s < V->m->nset && s < 64; s++) V->Wpk[s] = x[width - 2 * V->m->nset + s];
            }
        }
        if (push_point(S, V, rec)) break;
    }
    /* frf.csv as bristle hbm writes it */
    if (h && r.n > 0 && !V->oom) {
        char path[1400], tmp[1500];
        snprintf(path, sizeof path, "%s/variants/%05ld", dir, v);
        FILE *fp = br_mkdir_p(path) ? NULL : (snprintf(tmp, sizeof tmp, "%s/frf.csv.part", path), fopen(tmp, "w"));
        if (fp) {
            br_hbm_write_header(h, fp, NULL);
            for (long p = 0; p < r.n; p++) br_output_csv_row(r.v + p * width, width, fp);
        }
        snprintf(path + strlen(path), sizeof path - strlen(path), "/frf.csv");
        if (!fp || (ferror(fp) | (fclose(fp) != 0)) || rename(tmp, path)) {
            snprintf(V->err, sizeof V->err, "cannot write %.1000s", path);
            V->oom = 1; /* the study's output is incomplete */
        }
    }
    /* stability: peak: the Floquet multipliers at the first column's peak (docs/hbm.md; on this variant's
     * thread: a nested OpenMP region runs on it alone) */
    V->mupk = NAN;
    if (rc == 0 && !V->oom && S->hstab && r.n > 0 && br_hbm_peak_floquet(h, V->m, &V->mupk, err, sizeof err)) {
        V->mupk = NAN; /* the curve stands; study.csv's cell stays empty, and says why here */
        fprintf(stderr, "bristle study: variant %ld: no Floquet multipliers at the peak: %s\n", v, err);
    }
    if (rc == 0 && !V->oom) V->status = ST_DONE;
    br_hbm_free(h);
    free(r.v);
}

static void csv_num(FILE *fp, double v)
{
    char buf[32];
    if (isnan(v)) fputs(",", fp);
    else snprintf(buf, sizeof buf, ",%.17g", v), fputs(buf, fp);
}

/* the per-variant results a study.csv row reports */
typedef struct st_res {
    double peak[MAXCOL], fpeak[MAXCOL], af, residual, t;
    double E[64];
    int status;
    int inaccurate;             /* finished with an energy residual above time.energy_tolerance */
    int nturn;                  /* hbm: turning points of the curve */
    double mupk;                /* hbm with stability: peak: the largest Floquet multiplier at the peak */
    long capped;                /* stepped sine: frequency points that reached max_cycles before steady */
} st_res;

/* frequency points i-1, i, i+1 of column c -> the frequency of the vertex of the parabola through
 * (f, amplitude) at them (the peak between the points), or f_i at an end or without a maximum there */
static double peak_frequency(const st_study *S, const st_var *V, int c, long i)
{
    const int w = frec(S);
    if (i < 1 || i + 1 >= V->nf) return V->f[i * w];
    const double f0 = V->f[(i - 1) * w], f1 = V->f[i * w], f2 = V->f[(i + 1) * w];
    if (!((f0 < f1 && f1 < f2) || (f0 > f1 && f1 > f2))) return f1; /* a curve that turns there (hbm) */
    const double a0 = V->f[(i - 1) * w + 3 + 2 * c], a1 = V->f[i * w + 3 + 2 * c], a2 = V->f[(i + 1) * w + 3 + 2 * c];
    const double d1 = (a1 - a0) / (f1 - f0), d2 = (a2 - a1) / (f2 - f1), curv = (d2 - d1) / (f2 - f0);
    if (!(curv < 0)) return f1;
    const double fv = 0.5 * (f0 + f1) - d1 / (2 * curv); /* where p'(f) = d1 + curv (2 f - f0 - f1) = 0 */
    return fv > f0 && fv < f2 ? fv : f1;
}

static void results(const st_study *S, st_var *V, st_res *r)
{
    r->status = V->status;
    if (S->analysis == AN_HBM) { /* no time: the peaks of the curve, the friction energy per cycle there */
        r->t = r->residual = NAN;
        for (int c = 0; c < S->ncol; c++) {
            r->peak[c] = V->peak[c] >= 0 ? V->peak[c] : NAN;
            r->fpeak[c] = V->peak[c] >= 0 ? peak_frequency(S, V, c, V->ipeak[c]) : NAN;
        }
        for (int s = 0; V->m && s < V->m->nset && s < 64; s++) r->E[s] = V->Wpk[s];
        r->nturn = V->nturn, r->mupk = V->mupk;
        return;
    }
    r->t = V->d ? V->d->t : 0.0;
    for (int c = 0; c < S->ncol; c++) {
        r->peak[c] = S->analysis == AN_TIME ? V->vmax[c] : V->peak[c] >= 0 ? V->peak[c] : NAN;
        r->fpeak[c] = S->analysis == AN_TIME ? V->tmax[c] : V->peak[c] >= 0 ? peak_frequency(S, V, c, V->ipeak[c]) : NAN;
    }
    r->residual = V->d ? V->d->en.residual_rel : NAN;
    /* a finished variant whose energy balance ends above its tolerance (as bristle run's status) */
    r->inaccurate = V->d && V->m && !(V->d->en.residual_rel <= V->m->energy_tol);
    r->capped = 0;
    for (long i = 0; S->analysis == AN_STEPPED && i < V->nf; i++) r->capped += V->f[i * frec(S) + 2] == 0.0;
    /* dissipated by friction: the friction work up to t less the energy still in the bristles (summary.json's
     * energy_loss_J of the same run) */
    for (int s = 0; V->m && s < V->m->nset && s < 64; s++) r->E[s] = V->d ? V->d->E_upto[s] - V->d->res[s].E_b : NAN;
}

/* study.csv: one row per variant, written under a temporary name and renamed */
static int write_table(const st_study *S, const br_model *m0, st_var *V, const st_res *R, const char *dir)
{
    char path[1400], tmp[1500];
    snprintf(path, sizeof path, "%s/study.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return -1;
    fprintf(fp, "variant");
    for (int a = 0; a < S->naxis; a++) fprintf(fp, ",%s", S->axis[a].name);
    for (int k = 0; k < S->nrand; k++) fprintf(fp, ",%s", S->rnd[k].key);
    const int hb = S->analysis == AN_HBM; /* no time: no t_reached or energy residual; the curve's turning points */
    fprintf(fp, hb ? ",status" : ",status,t_reached");
    const char *pk = S->analysis == AN_TIME ? "max_abs" : S->analysis == AN_SWEEP ? "peak" : "peak_receptance";
    const char *fk = S->analysis == AN_TIME ? "t_max" : "f_peak";
    for (int c = 0; c < S->ncol; c++) fprintf(fp, ",%s.%s,%s.%s", S->col[c], pk, S->col[c], fk);
    if (S->analysis != AN_TIME) fprintf(fp, ",AF");
    for (int s = 0; s < m0->nset && s < 64; s++) fprintf(fp, hb ? ",%s.W_at_peak" : ",%s.friction_energy", m0->cset[s].name);
    if (hb && S->hstab) fprintf(fp, ",turning_points,%s.peak_floquet_max,error\n", S->col[0]);
    else fprintf(fp, hb ? ",turning_points,error\n" : S->analysis == AN_STEPPED ? ",unconverged,energy_residual,error\n"
                                                                           : ",energy_residual,error\n");
    for (long v = 0; v < S->nvar; v++) {
        fprintf(fp, "%ld", v);
        int gi[MAXAX];
        variant_index(S, v, gi);
        for (int a = 0; a < S->naxis; a++) {
            if (v == 0) fputs(",", fp); /* the base: no axis value */
            else csv_num(fp, S->axis[a].val[gi[a]]);
        }
        for (int k = 0; k < S->nrand; k++) csv_num(fp, v == 0 ? S->rnd[k].base : S->rval[v * S->nrand + k]);
        fprintf(fp, ",%s", R[v].status != ST_DONE ? "failed" : !hb && R[v].inaccurate ? "inaccurate" : "complete");
        if (!hb) csv_num(fp, R[v].t);
        for (int c = 0; c < S->ncol; c++) csv_num(fp, R[v].peak[c]), csv_num(fp, R[v].fpeak[c]);
        if (S->analysis != AN_TIME) csv_num(fp, R[v].af);
        for (int s = 0; s < m0->nset && s < 64; s++) csv_num(fp, R[v].status == ST_DONE ? R[v].E[s] : NAN);
        if (hb) fprintf(fp, R[v].status == ST_DONE ? ",%d" : ",", R[v].nturn);
        if (hb && S->hstab) csv_num(fp, R[v].status == ST_DONE ? R[v].mupk : NAN);
        if (S->analysis == AN_STEPPED) fprintf(fp, ",%ld", R[v].capped);
        if (!hb) csv_num(fp, R[v].status == ST_DONE ? R[v].residual : NAN);
        fputc(',', fp);
        if (R[v].status != ST_DONE) { /* the reason, quoted, without line breaks */
            fputc('"', fp);
            for (const char *p = V[v].err; *p; p++) fputc(*p == '"' ? '\'' : (*p == '\n' ? ' ' : *p), fp);
            fputc('"', fp);
        }
        fputc('\n', fp);
    }
    const int bad = ferror(fp) | (fclose(fp) != 0);
    return bad || rename(tmp, path) ? -1 : 0;
}

/* variants/NNNNN/frf.csv for sweep and stepped-sine analyses */
static int write_frf(const st_study *S, const st_var *V, long v, const char *dir)
{
    char path[1400], tmp[1500];
    snprintf(path, sizeof path, "%s/variants/%05ld", dir, v);
    if (br_mkdir_p(path)) return -1;
    snprintf(path, sizeof path, "%s/variants/%05ld/frf.csv", dir, v);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return -1;
    const int w = frec(S);
    fprintf(fp, "f");
    for (int c = 0; c < S->ncol; c++) {
        if (S->analysis == AN_SWEEP) fprintf(fp, ",%s.amplitude", S->col[c]);
        else fprintf(fp, ",%s.receptance,%s.phase_deg", S->col[c], S->col[c]);
    }
    if (S->analysis == AN_STEPPED) fprintf(fp, ",cycles,converged");
    fputc('\n', fp);
    for (long i = 0; i < V->nf; i++) {
        const double *r = V->f + i * w;
        char buf[32];
        snprintf(buf, sizeof buf, "%.17g", r[0]);
        fputs(buf, fp);
        for (int c = 0; c < S->ncol; c++) {
            csv_num(fp, r[3 + 2 * c]);
            if (S->analysis == AN_STEPPED) csv_num(fp, r[4 + 2 * c]);
        }
        if (S->analysis == AN_STEPPED) fprintf(fp, ",%.0f,%.0f", r[1], r[2]);
        fputc('\n', fp);
    }
    const int bad = ferror(fp) | (fclose(fp) != 0);
    return bad || rename(tmp, path) ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* a plot's return value (br_plot_series_png), its name -> added to files when written; 1 when out of memory */
static int plot_done(int rc, const char *name, char files[][64], int *nfiles)
{
    if (rc == 0 && *nfiles < 60) snprintf(files[(*nfiles)++], 64, "%s", name);
    return rc == -2;
}

/* hbm: the first column's receptance against frequency, one curve per variant (each on its own frequencies: the
 * continuation chooses them), up to 12 variants (more: 12 spread over them, variant 0 first), on a log axis
 * (frf.png) and a linear one (frf_linear.png); 1 when out of memory */
static int hbm_frf_plot(const st_study *S, const st_var *V, const st_res *R, const char *dir, char files[][64], int *nfiles)
{
    const long nv = S->nvar, ncurve = nv < 12 ? nv : 12;
    const int w = frec(S);
    br_series sr[12];
    static char labels[12][200];
    double *buf[12] = {0};
    int ns = 0, oom = 0;
    for (long k = 0; k < ncurve; k++) {
        const long v = ncurve == nv ? k : (long)((double)k * (double)(nv - 1) / 11.0 + 0.5);
        if (R[v].status != ST_DONE || V[v].nf < 2) continue;
        double *b = buf[ns] = malloc((size_t)2 * V[v].nf * sizeof(double));
        if (!b) {
            oom = 1;
            continue;
        }
        for (long i = 0; i < V[v].nf; i++) b[i] = V[v].f[i * w], b[V[v].nf + i] = V[v].f[i * w + 3];
        int gi[MAXAX];
        variant_index(S, v, gi);
        if (v == 0) snprintf(labels[ns], sizeof labels[ns], "base");
        else if (S->naxis) {
            const char *seg = strrchr(S->axis[0].name, '.');
            snprintf(labels[ns], sizeof labels[ns], "%ld: %.40s = %.3g", v, seg ? seg + 1 : S->axis[0].name, S->axis[0].val[gi[0]]);
        } else snprintf(labels[ns], sizeof labels[ns], "variant %ld", v);
        sr[ns] = (br_series){labels[ns], V[v].nf, b, b + V[v].nf, (int)(k % 8), v == 0 ? 2.0 : 1.3, 0};
        ns++;
    }
    char path[1400], title[400], ylab[200];
    snprintf(ylab, sizeof ylab, "%s: first harmonic |x_1 / F| [m/N]", S->col[0]);
    snprintf(title, sizeof title, "%s: frequency response of %s by harmonic balance%s", S->name, S->col[0],
             nv > 12 ? " (12 of the variants)" : "");
    for (int lin = 0; lin < 2 && ns > 0; lin++) {
        const char *name = lin ? "frf_linear.png" : "frf.png";
        snprintf(path, sizeof path, "%s/%s", dir, name);
        oom |= plot_done(br_plot_series_png(path, title, "excitation frequency [Hz]", ylab, lin ? 0 : BR_PLOT_LOGY, sr, ns), name,
                         files, nfiles);
    }
    for (int k = 0; k < ns; k++) free(buf[k]);
    return oom;
}

/* the study's PNGs: each result against each grid axis, the FRF overlay or envelope, the AF
 * histogram; names added to files. 0, or 1 when some were not drawn for want of memory */
static int study_plots(const st_study *S, const br_model *m0, st_var *V, const st_res *R, const char *dir,
                       char files[][64], int *nfiles)
{
    char path[1400], title[400], ylab[200];
    const long nv = S->nvar;
    int oom = 0;
    double *x = malloc((size_t)nv * sizeof(double)), *y = malloc((size_t)nv * MAXCOL * sizeof(double));
    if (!x || !y) {
        oom = 1;
        goto out;
    }
    for (int a = 0; a < S->naxis && S->analysis != AN_TIME; a++) {
        const st_axis *A = &S->axis[a];
        /* against this axis: the variants whose other axes sit at their first value, first draw */
        long n = 0;
        long *idx = malloc((size_t)nv * sizeof(long));
        oom |= !idx;
        for (long v = 1; idx && v < nv; v++) {
            int gi[MAXAX], other = 0;
            variant_index(S, v, gi);
            for (int b = 0; b < S->naxis; b++) other |= b != a && gi[b] != 0;
            if (S->nrand && (v - 1) % S->count != 0) other = 1;
            if (!other) idx[n++] = v;
        }
        for (int kind = 0; kind < 2; kind++) {
            br_series sr[MAXCOL + 64];
            int ns = 0;
            const int ncurve = kind == 0 ? S->ncol : (m0->nset < 8 ? m0->nset : 8);
            for (int c = 0; c < ncurve; c++) {
                for (long i = 0; i < n; i++) {
                    const st_res *r = &R[idx[i]];
                    int gi[MAXAX];
                    variant_index(S, idx[i], gi);
                    x[i] = A->val[gi[a]];
                    y[c * nv + i] = r->status != ST_DONE ? NAN : kind == 0 ? r->peak[c] : r->E[c];
                }
                sr[ns++] = (br_series){kind == 0 ? S->col[c] : m0->cset[c].name, n, x, y + c * nv, c == 3 ? 4 : c, 1.5, 1};
            }
            if (kind == 0) snprintf(ylab, sizeof ylab, "%s", S->analysis == AN_SWEEP ? "peak amplitude (column units, m for displacements)" : "peak receptance |x / F| [m/N]");
            else snprintf(ylab, sizeof ylab, "%s", S->analysis == AN_HBM ? "friction energy per cycle at the peak [J]" : "friction energy [J]");
            snprintf(title, sizeof title, "%s: %s against %s", S->name, kind == 0 ? "peak response" : "friction energy", A->name);
            char name[64];
            snprintf(name, sizeof name, "%s_vs_axis%d.png", kind == 0 ? "peak" : "energy", a);
            snprintf(path, sizeof path, "%s/%s", dir, name);
            if (n > 0) oom |= plot_done(br_plot_series_png(path, title, A->name, ylab, A->logax ? BR_PLOT_LOGX : 0, sr, ns), name, files, nfiles);
        }
        free(idx);
    }
    if (S->analysis == AN_HBM) oom |= hbm_frf_plot(S, V, R, dir, files, nfiles);
    else if (S->analysis != AN_TIME && R[0].status == ST_DONE && V[0].nf > 1) { /* FRF of the first column */
        const int w = frec(S);
        const long nf = V[0].nf;
        int same = 1; /* every complete variant on the base's frequency points */
        for (long v = 1; v < nv; v++)
            if (R[v].status == ST_DONE) same &= V[v].nf == nf;
        const char *yl = S->analysis == AN_SWEEP ? "amplitude (half range of each window)" : "receptance |x / F| [m/N]";
        snprintf(ylab, sizeof ylab, "%s: %s", S->col[0], yl);
        double *f0 = malloc((size_t)nf * sizeof(double)), *buf = malloc((size_t)nf * (nv < 13 ? nv : 4) * sizeof(double));
        oom |= !f0 || !buf;
        if (f0 && buf) {
            for (long i = 0; i < nf; i++) f0[i] = V[0].f[i * w];
            br_series sr[16];
            int ns = 0;
            static char labels[13][200];
            if (nv <= 12) { /* one curve per variant */
                for (long v = 0; v < nv; v++) {
                    if (R[v].status != ST_DONE) continue;
                    for (long i = 0; i < V[v].nf && i < nf; i++) buf[v * nf + i] = V[v].f[i * w + 3];
                    int gi[MAXAX];
                    variant_index(S, v, gi);
                    if (v == 0) snprintf(labels[v], sizeof labels[v], "base");
                    else if (S->naxis) {
                        const char *seg = strrchr(S->axis[0].name, '.');
                        snprintf(labels[v], sizeof labels[v], "%ld: %.40s = %.3g", v, seg ? seg + 1 : S->axis[0].name,
                                 S->axis[0].val[gi[0]]);
                    }
                    else snprintf(labels[v], sizeof labels[v], "variant %ld", v);
                    sr[ns++] = (br_series){labels[v], V[v].nf < nf ? V[v].nf : nf, f0, buf + v * nf, (int)(v % 8), v == 0 ? 2.0 : 1.3, 0};
                }
            } else if (same) { /* envelope: min, median, max over the complete variants; the base over it */
                double *col = malloc((size_t)nv * sizeof(double));
                oom |= !col;
                for (long i = 0; col && i < nf; i++) {
                    long k = 0;
                    for (long v = 0; v < nv; v++)
                        if (R[v].status == ST_DONE) col[k++] = V[v].f[i * w + 3];
                    qsort(col, (size_t)k, sizeof(double), cmp_double);
                    buf[i] = col[0], buf[nf + i] = k % 2 ? col[k / 2] : 0.5 * (col[k / 2 - 1] + col[k / 2]), buf[2 * nf + i] = col[k - 1];
                    buf[3 * nf + i] = V[0].f[i * w + 3];
                }
                free(col);
                sr[0] = (br_series){"min over variants", nf, f0, buf, 0, 1.2, 0};
                sr[1] = (br_series){"median", nf, f0, buf + nf, 2, 1.2, 0};
                sr[2] = (br_series){"max", nf, f0, buf + 2 * nf, 1, 1.2, 0};
                sr[3] = (br_series){"base (variant 0)", nf, f0, buf + 3 * nf, 3, 2.0, 0};
                ns = col ? 4 : 0;
            }
            snprintf(title, sizeof title, "%s: frequency response of %s%s", S->name, S->col[0], nv > 12 ? " (envelope)" : "");
            /* stepped sine: receptance on a log axis (frf.png) and on a linear one, where the peaks'
             * differences show (frf_linear.png); a sweep's envelope on a linear axis */
            for (int lin = S->analysis == AN_STEPPED ? 0 : 1; lin < 2; lin++) {
                const char *name = lin && S->analysis == AN_STEPPED ? "frf_linear.png" : "frf.png";
                snprintf(path, sizeof path, "%s/%s", dir, name);
                if (ns) oom |= plot_done(br_plot_series_png(path, title, "excitation frequency [Hz]", ylab, lin ? 0 : BR_PLOT_LOGY, sr, ns), name, files, nfiles);
            }
        }
        free(f0), free(buf);
    }
    if (S->nrand && S->analysis != AN_TIME) {
        long n = 0;
        for (long v = 1; v < nv; v++)
            if (R[v].status == ST_DONE && isfinite(R[v].af)) x[n++] = R[v].af;
        snprintf(title, sizeof title, "%s: amplification factor over %ld variants", S->name, n);
        snprintf(path, sizeof path, "%s/af_histogram.png", dir);
        const int bins = n < 16 ? 4 : n < 64 ? 8 : n < 256 ? 12 : 20;
        if (n > 0) oom |= plot_done(br_plot_hist_png(path, title, "AF = largest peak / base variant's peak of the first column", n, x, bins), "af_histogram.png", files, nfiles);
    }
out:
    free(x), free(y);
    return oom;
}

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

/* What a rank sends rank 0 of each of its variants once they have run. */
typedef struct st_done {
    st_res r;
    long n, nf; /* steps taken, frequency points */
    long newton, jacobians, aft_evals, npoints; /* hbm */
    double updates, hwall;
    int status, oom;
    char err[1024];
} st_done;

/* the ranks, every variant (this rank's block [v0, v1) run, its results in R) -> on rank 0, every
 * variant's results in R and its status, steps, error and (with plots of frequency responses) its
 * frequency points in V; 0, or -1 out of memory (on any rank: every rank returns it) */
static int gather_variants(const br_ranks *RK, const st_study *S, st_var *V, st_res *R, long v0, long v1)
{
    if (RK->size == 1) return 0; /* one rank: every variant is here */
    const long nv = S->nvar, nl = v1 - v0;
    /* this rank's variants first in D (rank 0's block starts at variant 0), then on rank 0 the others' */
    st_done *D = calloc((size_t)(RK->rank == 0 ? nv : nl) + 1, sizeof *D);
    int bad = !D;
    if (br_ranks_max(RK, bad)) return free(D), -1;
    for (long v = v0; v < v1; v++) {
        st_done *o = &D[v - v0];
        o->r = R[v], o->n = V[v].n, o->nf = V[v].nf, o->status = V[v].status, o->oom = V[v].oom;
        o->newton = V[v].newton, o->jacobians = V[v].jacobians, o->aft_evals = V[v].aft_evals, o->npoints = V[v].npoints;
        o->updates = V[v].updates, o->hwall = V[v].hwall;
        memcpy(o->err, V[v].err, sizeof o->err);
    }
    br_ranks_gather_bytes(RK, D, (size_t)nl * sizeof *D, RK->rank == 0 ? D : NULL);
    const int w = frec(S);
    if (RK->rank == 0)
        for (long v = v1; v < nv; v++) {
            R[v] = D[v].r, V[v].n = D[v].n, V[v].nf = D[v].nf, V[v].status = D[v].status, V[v].oom = D[v].oom;
            V[v].newton = D[v].newton, V[v].jacobians = D[v].jacobians, V[v].aft_evals = D[v].aft_evals;
            V[v].npoints = D[v].npoints, V[v].updates = D[v].updates, V[v].hwall = D[v].hwall;
            memcpy(V[v].err, D[v].err, sizeof V[v].err);
        }
    free(D);
    /* the frequency points, for the plots of every variant's response */
    if (!(S->plots && S->analysis != AN_TIME)) return 0;
    size_t own = 0, all = 0;
    for (long v = v0; v < v1; v++) own += (size_t)V[v].nf * w;
    for (long v = 0; RK->rank == 0 && v < nv; v++) all += (size_t)V[v].nf * w;
    double *send = malloc((own ? own : 1) * sizeof(double)), *recv = RK->rank == 0 ? malloc((all ? all : 1) * sizeof(double)) : NULL;
    bad = !send || (RK->rank == 0 && !recv);
    for (long v = v1; RK->rank == 0 && v < nv && !bad; v++) {
        free(V[v].f);
        V[v].f = V[v].nf ? malloc((size_t)V[v].nf * w * sizeof(double)) : NULL;
        bad |= V[v].nf && !V[v].f;
    }
    if (br_ranks_max(RK, bad)) return free(send), free(recv), -1;
    size_t k = 0;
    for (long v = v0; v < v1; v++)
        if (V[v].nf) memcpy(send + k, V[v].f, (size_t)V[v].nf * w * sizeof(double)), k += (size_t)V[v].nf * w;
    br_ranks_gather_bytes(RK, send, own * sizeof(double), recv);
    k = 0;
    for (long v = 0; RK->rank == 0 && v < nv; v++) {
        if (v >= v1 && V[v].nf) memcpy(V[v].f, recv + k, (size_t)V[v].nf * w * sizeof(double));
        k += (size_t)V[v].nf * w;
    }
    free(send), free(recv);
    return 0;
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
    st_study *S = study_read(file, err, sizeof err);
    /* --set KEY=VALUE: after the study's own `set` (so it wins), for every variant; a bad one is
     * reported as the study's are, naming the key */
    for (int k = 0; S && k < ncli; k++) {
        if (S->nfix == MAXFIX) {
            snprintf(err, sizeof err, "%s: the study's set and --set: more than %d keys", file, MAXFIX);
            study_free(S);
            S = NULL;
            break;
        }
        S->fixline[S->nfix] = S->scen_line;
        snprintf(S->fix[S->nfix++], sizeof S->fix[0], "%s", cli_set[k]);
    }
    if (br_ranks_max(RK, !S)) { /* every rank stops if any could not read it (a file only one node sees) */
        if (!S) fprintf(stderr, "%s%s\n", RK->size > 1 ? "bristle study: on one of the ranks: " : "", err);
        study_free(S);
        return 2;
    }
    if (br_ranks_max(RK, S->nvar) != -br_ranks_max(RK, -S->nvar)) {
        if (RK->rank == 0) fprintf(stderr, "bristle study: %s: the ranks read different variant counts (the file changed?)\n", file);
        study_free(S);
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
        study_free(S);
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
        free(V), free(R), study_free(S);
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
        if (!rc && var_setup(S, v, &V[v], dir)) rc = 2;
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
        for (long v = 0; v < nv; v++) var_free(&V[v]);
        br_ranks_barrier(RK);
        if (RK->rank == 0) br_rm_tree(dir);
        free(V), free(R), study_free(S);
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
     * the structures on the host with the field on the GPU; =cpu runs the batch on the CPU, its
     * reference. --backend auto does the same as cuda from ST_AUTO_BEAMS variants */
    st_beams W;
    memset(&W, 0, sizeof W);
    const char *beams_env = getenv("BRISTLE_STUDY_BEAMS");
    const int beams_cpu = beams_env && !strcmp(beams_env, "cpu");
    /* auto takes the batch on a GPU from ST_AUTO_BEAMS variants in the study (all ranks' variants:
     * every rank decides alike, so that 1 and R ranks run the same path) */
    const int beams_gpu = !beams_cpu && !(beams_env && !strcmp(beams_env, "host")) &&
                          (fb == BR_BACKEND_CUDA || (fb == BR_BACKEND_AUTO && nv >= ST_AUTO_BEAMS));
    char nogpu[200];
    const int hbm = S->analysis == AN_HBM; /* a curve per variant: no time stepping, no shared field */
    if (hbm && fb == BR_BACKEND_CUDA && !quiet && RK->rank == 0)
        fprintf(stderr, "bristle study: an hbm analysis steps its contact fields on the CPU (--backend cuda is not used)\n");
    if (!hbm && shared && nl && (beams_cpu || (beams_gpu && br_cuda_available(nogpu, sizeof nogpu) > 0))) {
        char why[600];
        if (beams_make(L, nl, beams_cpu ? BR_BACKEND_CPU : BR_BACKEND_CUDA, &W, why, sizeof why) && !quiet &&
            (beams_cpu || fb == BR_BACKEND_CUDA)) /* auto falls back without a word */
            fprintf(stderr, "bristle study: the structures step on the host, the contact field on the %s: %s\n",
                    fb == BR_BACKEND_CUDA ? "GPU" : "CPU", why);
    }
    if (!hbm && shared && nl && !W.bb ? batch_make(L, nl, fb, &B, err, sizeof err) != 0 : 0) bad = 2;
    for (long v = 0; !hbm && !shared && v < nl && !bad; v++)
        if (br_data_own_field(L[v].m, L[v].d, fb, err, sizeof err)) bad = 2;
    if (bad) fprintf(stderr, "bristle study: %s\n", err);
    bad = (int)br_ranks_max(RK, bad);
    if (bad) {
        batch_free(&B), beams_free(&W);
        for (long v = 0; v < nv; v++) var_free(&V[v]);
        br_ranks_barrier(RK);
        if (RK->rank == 0) br_rm_tree(dir);
        free(V), free(R), study_free(S);
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
        batch_free(&B), beams_free(&W);
        for (long v = 0; v < nv; v++) var_free(&V[v]);
        br_ranks_barrier(RK);
        if (RK->rank == 0) br_rm_tree(dir);
        free(V), free(R), study_free(S);
        return 1;
    }
    char who[32] = "";
    if (RK->size > 1) snprintf(who, sizeof who, "rank 0 of %d: ", RK->size);
    int reported = 0;
    if (hbm) { /* threads over the variants, each with a solver of its own */
        long done = 0;
#pragma omp parallel for schedule(dynamic, 1)
        for (long v = 0; v < nl; v++) {
            hbm_variant(S, v0 + v, &L[v], dir);
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
            for (long k = 0; k < block && nrun; k++)
                if (!(W.bb ? beams_step(S, L, nl, &W) : batch_step(S, L, nl, run, nrun, &B))) break;
            for (long v = 0; v < nl; v++) running += L[v].status == ST_RUNNING;
        } else {
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : running)
            for (long v = 0; v < nl; v++) {
                if (L[v].status != ST_RUNNING) continue;
                var_advance(S, &L[v], block);
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
        if (S->analysis != AN_TIME && !hbm && V[v].nf > 0 && write_frf(S, &V[v], v, dir)) io_fail = 1;
    }
    for (long v = v0; v < v1; v++) results(S, &V[v], &R[v]);
    io_fail = (int)br_ranks_max(RK, io_fail);
    if (gather_variants(RK, S, V, R, v0, v1)) {
        if (RK->rank == 0) fprintf(stderr, "bristle study: out of memory gathering the results; partial output left in %s\n", dir);
        batch_free(&B), beams_free(&W);
        for (long v = 0; v < nv; v++) var_free(&V[v]);
        free(V), free(R), study_free(S);
        return 1;
    }
    if (RK->rank != 0) { /* rank 0 writes the rest and says how it went */
        int rc = 0;
        br_ranks_bcast(RK, &rc, sizeof rc);
        batch_free(&B), beams_free(&W);
        for (long v = 0; v < nv; v++) var_free(&V[v]);
        free(V), free(R), study_free(S);
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
    if (write_table(S, V[0].m, V, R, dir)) io_fail = 1;
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
    if (S->plots && study_plots(S, V[0].m, V, R, dir, files, &nfiles))
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
    const br_field *f0 = W.bb ? br_beam_batch_field(W.bb) : shared ? B.field : V[0].d ? V[0].d->field : NULL;
    cJSON_AddStringToObject(j, "backend", f0 ? br_field_backend_name(f0) : "cpu");
    cJSON_AddStringToObject(j, "structure_step", W.bb ? "batched with the field (kernels/beam_step.h)" : "per variant on the host");
    if (W.bb) br_json_number(j, "sample_bytes_per_variant", (double)br_beam_batch_sample_bytes(W.bb));
    const char *const *phase;
    const double *psec;
    const int nphase = W.bb ? br_beam_batch_seconds(W.bb, &phase, &psec) : 0;
    if (nphase) { /* BRISTLE_BEAM_TIMING: where the batch's steps spent their time */
        cJSON *ph = cJSON_AddObjectToObject(j, "beam_batch_seconds");
        for (int k = 0; ph && k < nphase; k++) br_json_number(ph, phase[k], psec[k]);
        if (ph) br_json_number(ph, "analysis", W.analysis_s); /* with the sampled rows' scatter */
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
        br_json_number(j, "from_Hz", S->hf0);
        br_json_number(j, "to_Hz", S->hf1);
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
        printf("%s: %ld variants, %ld complete, %ld failed; %ld points on the curves in %.3g s (%.3g field updates/s on %s%d "
               "threads); output in %s/\n",
               S->name, nv, ndone, nv - ndone, hpts, wall, wall > 0 ? hupd / wall : 0.0, ranks, nthreads, io_fail ? dir : final_dir);
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
    batch_free(&B), beams_free(&W);
    for (long v = 0; v < nv; v++) var_free(&V[v]);
    free(V), free(R), study_free(S);
    return rc;
}

/* study file -> 0 if it reads as `bristle study` reads it before stepping (study_read: keys, the base
 * scenario, values and draws), or -1 with "file:line: message" in err; nothing kept (fuzz/fuzz_study.c) */
int br_study_check(const char *path, char *err, size_t errlen)
{
    st_study *S = study_read(path, err, errlen);
    if (!S) return -1;
    study_free(S);
    return 0;
}
