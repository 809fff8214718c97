/* study_read.c: the study file reader of `bristle study` (docs/studies.md). In: a study file's path; out:
 * the study (st_study: the base scenario's text, the study's `set`, the grid's axes expanded, the random
 * values drawn in variant order, the analysis and output options), or NULL with "file:line: message";
 * with its own libyaml helpers (each error carries the study file's line). br_study_check is the reader
 * alone (fuzz/fuzz_study.c). */
#include "analysis/study.h"
#include "analysis/study_internal.h"
#include "base/parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/h5out.h"
#include "io/scenario.h"
#include "base/textfile.h"

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

void br_study_free(st_study *S)
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
                                    "points", "periods_max", "stability", "extrapolate", "mode", "amplitude_from",
                                    "amplitude_to", NULL};
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
    static const char *const HK[] = {"to", "harmonics", "samples", "points", "periods_max", "stability", "mode",
                                     "amplitude_from", "amplitude_to", NULL};
    if (S->analysis != AN_HBM) {
        for (int k = 0; HK[k] && !c->failed; k++)
            if (get(c, an, HK[k])) fail(c, get(c, an, HK[k]), "'%s' belongs to an hbm analysis", HK[k]);
        return;
    }
    /* harmonic balance (docs/hbm.md): from, to [Hz], harmonics, samples, points, periods_max, tolerance; or a backbone
     * (mode: K) from amplitude_from to amplitude_to */
    yaml_node_t *nf = get(c, an, "from"), *nt = get(c, an, "to"), *nm = get(c, an, "mode");
    if (nm) {
        yaml_node_t *na = get(c, an, "amplitude_from"), *nb = get(c, an, "amplitude_to");
        S->hmode = oint(c, an, "mode", 1, 1, 1000);
        if (nf || nt || get(c, an, "stability")) {
            fail(c, nf ? nf : nt ? nt : get(c, an, "stability"), "a backbone (mode) takes amplitude_from and amplitude_to, not "
                                                                 "'%s'", nf ? "from" : nt ? "to" : "stability");
            return;
        }
        if (!na || !nb) {
            fail(c, na ? na : an, "a backbone (mode) needs 'amplitude_from' and 'amplitude_to': its modal amplitudes");
            return;
        }
        S->ha0 = num(c, na, "amplitude_from"), S->ha1 = num(c, nb, "amplitude_to");
        if (c->failed) return;
        if (!(S->ha0 > 0) || !isfinite(S->ha0)) fail(c, na, "amplitude_from must be a positive modal amplitude (got %g)", S->ha0);
        else if (!(S->ha1 > 0) || !isfinite(S->ha1)) fail(c, nb, "amplitude_to must be a positive modal amplitude (got %g)", S->ha1);
        else if (S->ha0 == S->ha1) fail(c, nb, "amplitude_to must differ from amplitude_from (both %g)", S->ha0);
        S->hf0 = 1.0, S->hf1 = 2.0; /* (unused) */
    } else if (get(c, an, "amplitude_from") || get(c, an, "amplitude_to")) {
        yaml_node_t *na = get(c, an, "amplitude_from");
        fail(c, na ? na : get(c, an, "amplitude_to"), "'%s' belongs to a backbone (mode: K)", na ? "amplitude_from" : "amplitude_to");
        return;
    } else if (!nf || !nt) {
        fail(c, nf ? nf : an, "an hbm analysis needs 'from' and 'to': the frequency range [Hz] (or mode: K and "
                              "amplitude_from, amplitude_to: a backbone)");
        return;
    } else S->hf0 = num(c, nf, "from"), S->hf1 = num(c, nt, "to");
    S->hH = oint(c, an, "harmonics", 7, -1000000, 64);
    S->hN = oint(c, an, "samples", 16 * (S->hH > 0 ? S->hH : 1), -1000000, 1 << 20);
    S->hpoints = oint(c, an, "points", S->hmode ? 20 : 100, S->hmode ? 2 : 1, 100000);
    S->hmaxper = oint(c, an, "periods_max", 200, 2, 1000000);
    yaml_node_t *hs = get(c, an, "stability");
    if (hs) {
        const char *v = hs->type == YAML_SCALAR_NODE ? sval(hs) : "";
        if (!strcmp(v, "peak")) S->hstab = 1;
        else if (strcmp(v, "none")) fail(c, hs, "stability must be peak or none (got '%s')", v);
    }
    if (c->failed) return;
    if (S->hmode) {
        if (S->hH < 1) fail(c, get(c, an, "harmonics"), "harmonics must be at least 1 (got %d)", S->hH);
        else if (S->hN < 2 * S->hH + 1)
            fail(c, get(c, an, "samples") ? get(c, an, "samples") : an, "samples must be at least 2 harmonics + 1 = %d (got %d)",
                 2 * S->hH + 1, S->hN);
        else if (S->tol >= 1e-2) fail(c, get(c, an, "tolerance"), "an hbm tolerance must lie in (0, 0.01) (got %g)", S->tol);
        return;
    }
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
st_study *br_study_read(const char *path, char *err, size_t errlen)
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
        br_study_free(S);
        return NULL;
    }
    return S;
}

/* study file -> 0 if it reads as `bristle study` reads it before stepping (br_study_read: keys, the base
 * scenario, values and draws), or -1 with "file:line: message" in err; nothing kept (fuzz/fuzz_study.c) */
int br_study_check(const char *path, char *err, size_t errlen)
{
    st_study *S = br_study_read(path, err, errlen);
    if (!S) return -1;
    br_study_free(S);
    return 0;
}
