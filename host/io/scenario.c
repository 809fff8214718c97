/* scenario.c: YAML scenario -> br_model, with libyaml's document API (node
 * tree with line marks). libyaml rather than libcyaml: the schema checks that
 * matter here (unphysical values, cross references, law-dependent keys) need
 * the line of the offending value, which libcyaml's schema loader does not
 * give back. Errors are sticky: the first one is kept, later reads return
 * defaults, and the caller sees "file:line: message". */
#include "io/scenario.h"

#include "base/memory.h"
#include "io/h5out.h"
#include "field/field.h" /* br_set_frame_build */
#include "model/laws.h"
#include "io/mesh.h"
#include "base/parse.h"
#include "model/rigid.h"
#include "base/textfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct ysrc {
    yaml_document_t doc;
    const char *file;
    char *err;
    size_t errlen;
    int failed;
    double points;         /* contact points read so far, and structure DOF (the size guard) */
    double dof;
    long tf_nodes;         /* time-function nodes expanded so far (aliases expand again: the guard) */
    int nover;             /* --set overrides applied: node index and key, for messages */
    int over_node[64];
    const char *over_key[64];
} ysrc;

typedef yaml_node_t ynode;

static ynode *yget(ysrc *c, int idx) { return yaml_document_get_node(&c->doc, idx); }

static int yindex(ysrc *c, const ynode *n) { return (int)(n - c->doc.nodes.start) + 1; }

/* node, message -> first error kept as "file:line: message" */
static void yerr(ysrc *c, const ynode *n, const char *fmt, ...)
{
    if (c->failed) return;
    c->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *via = NULL;
    for (int k = 0; n && k < c->nover; k++)
        if (c->over_node[k] == yindex(c, n)) via = c->over_key[k];
    const long line = n ? (long)n->start_mark.line + 1 : 1;
    if (via) snprintf(c->err, c->errlen, "%s:%ld: %s (value from --set %s)", c->file, line, msg, via);
    else snprintf(c->err, c->errlen, "%s:%ld: %s", c->file, line, msg);
}

static const char *ystr(const ynode *n) { return (const char *)n->data.scalar.value; }

static int is_scalar(const ynode *n) { return n && n->type == YAML_SCALAR_NODE; }

/* mapping, key -> value node or NULL */
static ynode *ymap(ysrc *c, ynode *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        ynode *k = yget(c, p->key);
        if (is_scalar(k) && !strcmp(ystr(k), key)) return yget(c, p->value);
    }
    return NULL;
}

/* node must be a mapping whose keys are all in allowed (NULL-terminated) and unique */
static int ykeys(ysrc *c, ynode *map, const char *what, const char *const *allowed)
{
    if (c->failed) return -1;
    if (!map || map->type != YAML_MAPPING_NODE) {
        yerr(c, map, "%s must be a mapping (key: value lines)", what);
        return -1;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        ynode *k = yget(c, p->key);
        if (!is_scalar(k)) {
            yerr(c, k, "%s: keys must be plain words", what);
            return -1;
        }
        int ok = 0;
        for (const char *const *a = allowed; *a; a++) ok |= !strcmp(*a, ystr(k));
        if (!ok) {
            char list[400] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            yerr(c, k, "unknown key '%s' in %s (expected one of: %s)", ystr(k), what, list);
            return -1;
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (!strcmp(ystr(yget(c, q->key)), ystr(k))) {
                yerr(c, k, "duplicate key '%s' in %s", ystr(k), what);
                return -1;
            }
    }
    return 0;
}

/* scalar node -> finite double, or error */
static double ynum_node(ysrc *c, ynode *n, const char *key)
{
    if (c->failed) return 0.0;
    if (!is_scalar(n)) {
        yerr(c, n, "%s: expected a number", key);
        return 0.0;
    }
    const char *s = ystr(n);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end && isspace((unsigned char)*end)) end++;
    if (end == s || *end || errno == ERANGE || !isfinite(v)) {
        yerr(c, n, "%s: expected a finite number, got '%s'", key, s);
        return 0.0;
    }
    return v;
}

/* map[key] -> number; missing: error if required, else def */
static double ynum(ysrc *c, ynode *map, const char *key, int required, double def)
{
    ynode *n = ymap(c, map, key);
    if (!n) {
        if (required) yerr(c, map, "missing key '%s'", key);
        return def;
    }
    return ynum_node(c, n, key);
}

/* map[key] -> vector of exactly len numbers into out (def copied when optional and missing) */
static void yvec(ysrc *c, ynode *map, const char *key, int len, int required, const double *def,
                 double *out)
{
    ynode *n = ymap(c, map, key);
    if (!n) {
        if (required) yerr(c, map, "missing key '%s'", key);
        else if (def) memcpy(out, def, (size_t)len * sizeof(double));
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top - n->data.sequence.items.start != len) {
        yerr(c, n, "%s: expected a list of %d numbers", key, len);
        return;
    }
    for (int k = 0; k < len; k++) out[k] = ynum_node(c, yget(c, n->data.sequence.items.start[k]), key);
}

/* map[key] -> string (NULL if missing; error if required) */
static const char *ystring(ysrc *c, ynode *map, const char *key, int required)
{
    ynode *n = ymap(c, map, key);
    if (!n) {
        if (required) yerr(c, map, "missing key '%s'", key);
        return NULL;
    }
    if (!is_scalar(n)) {
        yerr(c, n, "%s: expected a word", key);
        return NULL;
    }
    return ystr(n);
}

static int ybool(ysrc *c, ynode *map, const char *key, int def)
{
    ynode *n = ymap(c, map, key);
    if (!n) return def;
    const char *s = is_scalar(n) ? ystr(n) : "";
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) return 1;
    if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) return 0;
    yerr(c, n, "%s: expected true or false", key);
    return def;
}

/* condition, node -> error "msg" at node when the condition fails */
static void ycheck(ysrc *c, int ok, ynode *n, const char *fmt, ...)
{
    if (ok || c->failed) return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    yerr(c, n, "%s", msg);
}

/* map[key] node, or the map itself when the key is missing (for messages) */
static ynode *yat(ysrc *c, ynode *map, const char *key)
{
    ynode *n = ymap(c, map, key);
    return n ? n : map;
}

/* list node -> number of items (error if not a list) */
static int ylen(ysrc *c, ynode *n, const char *what)
{
    if (c->failed) return 0;
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        yerr(c, n, "%s must be a list (lines starting with '-')", what);
        return 0;
    }
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static ynode *yitem(ysrc *c, ynode *seq, int k) { return yget(c, seq->data.sequence.items.start[k]); }

/* map[key] -> unit 3-vector (required unless def) with the check |n| = 1 within 1e-9 */
static void yunit(ysrc *c, ynode *map, const char *key, const double *def, double out[3])
{
    yvec(c, map, key, 3, def == NULL, def, out);
    if (c->failed) return;
    const double n = br_norm3(out);
    ycheck(c, n > 0.0, yat(c, map, key), "%s is a zero vector", key);
    ycheck(c, fabs(n - 1.0) < 1e-9, yat(c, map, key),
           "%s must be a unit vector (its length is %.17g)", key, n);
}

/* names: letters, digits, '_' and '-' (they become CSV column names) */
/* map -> q (w, x, y, z) from `orientation`, default identity; an error unless a unit quaternion */
static void yorientation(ysrc *c, ynode *map, double q[4])
{
    static const double q1[4] = {1, 0, 0, 0};
    yvec(c, map, "orientation", 4, 0, q1, q);
    const double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    ycheck(c, fabs(qn - 1.0) < 1e-9, yat(c, map, "orientation"),
           "orientation must be a unit quaternion (w, x, y, z); its norm is %.17g", qn);
}

static void yname(ysrc *c, ynode *map, char out[BR_NAME_MAX], const char *what)
{
    const char *s = ystring(c, map, "name", 1);
    if (!s) return;
    int ok = *s && strlen(s) < BR_NAME_MAX;
    for (const char *p = s; *p; p++) ok &= isalnum((unsigned char)*p) || *p == '_' || *p == '-';
    ycheck(c, ok, yat(c, map, "name"),
           "%s name '%s' must be 1-%d letters, digits, '_' or '-'", what, s, BR_NAME_MAX - 1);
    snprintf(out, BR_NAME_MAX, "%s", s);
}

/* points or DOF about to be allocated -> an error at node when the scenario so far would need more
 * memory than the process can have (memory.h): contact points at BR_BYTES_PER_POINT, the structure's
 * dense matrices (M, C, K, the effective inverse, eigenanalysis copies: about 12 n^2 doubles) */
static void yguard(ysrc *c, ynode *at, double npoints, double ndof)
{
    if (c->failed) return;
    c->points += npoints, c->dof += ndof;
    char what[160], msg[400];
    snprintf(what, sizeof what, "the scenario (%.4g contact points, %.4g structure DOF)", c->points, c->dof);
    if (br_mem_check(c->points * BR_BYTES_PER_POINT + 12.0 * 8.0 * c->dof * c->dof, what, msg, sizeof msg))
        yerr(c, at, "%s", msg);
}

/* pointer just allocated -> an "out of memory" error at node when it is NULL */
static void yalloc(ysrc *c, ynode *at, const void *p)
{
    if (!p) yerr(c, at, "out of memory");
}

/* ---- time functions ---- */

static const char *const TF_KEYS[] = {"constant", "table", "ramp", "harmonic", "sweep", "integral", "sum", NULL};

/* node v (a sequence of [t, value] rows) -> fn's table arrays t, y and n */
static void ytable(ysrc *c, ynode *v, br_timefn *fn)
{
    const int len = ylen(c, v, "table");
    ycheck(c, len >= 1, v, "table needs at least one [t, value] pair");
    if (c->failed) return;
    fn->n = len;
    fn->t = malloc((size_t)len * sizeof(double));
    fn->y = malloc((size_t)len * sizeof(double));
    yalloc(c, v, fn->t), yalloc(c, v, fn->y);
    for (int k = 0; k < len && !c->failed; k++) {
        ynode *row = yitem(c, v, k);
        if (ylen(c, row, "table row") != 2) {
            yerr(c, row, "table rows are [t, value] pairs");
            return;
        }
        fn->t[k] = ynum_node(c, yitem(c, row, 0), "table time");
        fn->y[k] = ynum_node(c, yitem(c, row, 1), "table value");
        ycheck(c, k == 0 || fn->t[k] >= fn->t[k - 1], row, "table times must not decrease");
        ycheck(c, k < 2 || fn->t[k] > fn->t[k - 2], row,
               "a table time may appear at most twice (a jump: the later row holds from then on)");
    }
}

/* time-function nodes a scenario may expand: YAML aliases under `sum` (or an amplitude) expand
 * each time they are used, so nested aliases would double the terms a level (2^k, evaluated every
 * step) within the nesting limit */
#define BR_TF_NODES_MAX 100000

/* node (a number or a one-key mapping) -> time function */
static void ytimefn(ysrc *c, ynode *n, const char *what, br_timefn *fn)
{
    memset(fn, 0, sizeof *fn);
    if (c->failed) return;
    if (++c->tf_nodes > BR_TF_NODES_MAX) {
        yerr(c, n, "%s: time functions too large (more than %d terms and amplitudes in the scenario, aliases "
                   "counted each time they are used)", what, BR_TF_NODES_MAX);
        return;
    }
    if (is_scalar(n)) {
        fn->kind = BR_TF_CONSTANT;
        fn->c = ynum_node(c, n, what);
        return;
    }
    if (ykeys(c, n, what, TF_KEYS)) return;
    if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1) {
        yerr(c, n, "%s: give exactly one of constant, table, ramp, harmonic, sweep, integral, sum", what);
        return;
    }
    ynode *v;
    if ((v = ymap(c, n, "constant"))) {
        fn->kind = BR_TF_CONSTANT;
        fn->c = ynum_node(c, v, "constant");
    } else if ((v = ymap(c, n, "table"))) {
        fn->kind = BR_TF_TABLE;
        ytable(c, v, fn);
    } else if ((v = ymap(c, n, "integral"))) {
        /* integral: {table: [[t, rate], ...]}: a displacement from a piecewise-linear velocity */
        static const char *const K[] = {"table", NULL};
        if (ykeys(c, v, "integral", K)) return;
        fn->kind = BR_TF_INTEGRAL;
        ynode *tb = ymap(c, v, "table");
        if (!tb) {
            yerr(c, v, "integral: give the integrand as 'table: [[t, value], ...]'");
            return;
        }
        ytable(c, tb, fn);
        if (!c->failed && br_timefn_integral_init(fn)) yerr(c, v, "out of memory");
    } else if ((v = ymap(c, n, "sum"))) {
        fn->kind = BR_TF_SUM;
        const int len = ylen(c, v, "sum");
        ycheck(c, len >= 1, v, "sum needs at least one time function");
        if (c->failed) return;
        fn->term = calloc((size_t)len, sizeof *fn->term);
        yalloc(c, v, fn->term);
        if (!fn->term) return;
        fn->nterm = len;
        for (int k = 0; k < len && !c->failed; k++) ytimefn(c, yitem(c, v, k), "a term of sum", &fn->term[k]);
    } else if ((v = ymap(c, n, "ramp"))) {
        static const char *const K[] = {"t0", "t1", "from", "to", NULL};
        if (ykeys(c, v, "ramp", K)) return;
        fn->kind = BR_TF_RAMP;
        fn->t0 = ynum(c, v, "t0", 1, 0), fn->t1 = ynum(c, v, "t1", 1, 0);
        fn->y0 = ynum(c, v, "from", 1, 0), fn->y1 = ynum(c, v, "to", 1, 0);
        ycheck(c, fn->t1 > fn->t0, v, "ramp needs t1 > t0");
    } else if ((v = ymap(c, n, "harmonic"))) {
        static const char *const K[] = {"amplitude", "frequency", "phase", NULL};
        if (ykeys(c, v, "harmonic", K)) return;
        fn->kind = BR_TF_HARMONIC;
        fn->f = ynum(c, v, "frequency", 1, 0);
        fn->phase = ynum(c, v, "phase", 0, 0);
        ycheck(c, fn->f >= 0, yat(c, v, "frequency"), "frequency must be >= 0");
        fn->amp = calloc(1, sizeof *fn->amp);
        yalloc(c, v, fn->amp);
        ynode *a = ymap(c, v, "amplitude");
        if (!a) yerr(c, v, "missing key 'amplitude'");
        else if (fn->amp) ytimefn(c, a, "amplitude", fn->amp);
    } else if ((v = ymap(c, n, "sweep"))) {
        static const char *const K[] = {"amplitude", "f0", "f1", "t0", "t1", "mode", NULL};
        if (ykeys(c, v, "sweep", K)) return;
        fn->kind = BR_TF_SWEEP;
        fn->f0 = ynum(c, v, "f0", 1, 0), fn->f1 = ynum(c, v, "f1", 1, 0);
        fn->t0 = ynum(c, v, "t0", 1, 0), fn->t1 = ynum(c, v, "t1", 1, 0);
        const char *mode = ystring(c, v, "mode", 0);
        ycheck(c, !mode || !strcmp(mode, "linear") || !strcmp(mode, "log"), yat(c, v, "mode"),
               "sweep mode must be linear or log");
        fn->log_sweep = mode && !strcmp(mode, "log");
        ycheck(c, fn->t1 > fn->t0, v, "sweep needs t1 > t0");
        ycheck(c, fn->f0 > 0 && fn->f1 > 0, v, "sweep frequencies must be > 0");
        fn->amp = calloc(1, sizeof *fn->amp);
        yalloc(c, v, fn->amp);
        ynode *a = ymap(c, v, "amplitude");
        if (!a) yerr(c, v, "missing key 'amplitude'");
        else if (fn->amp) ytimefn(c, a, "amplitude", fn->amp);
    }
}

/* ---- model sections ---- */

/* name -> frame index (0 ground, bodies, kinematic frames), or error at node */
static int yframe(ysrc *c, const br_model *m, ynode *n, const char *name)
{
    if (c->failed || !name) return 0;
    if (!strcmp(name, "ground")) return 0;
    for (int b = 0; b < m->nbody; b++)
        if (!strcmp(m->body[b].name, name)) return 1 + b;
    for (int k = 0; k < m->nkframe; k++)
        if (!strcmp(m->kframe[k].name, name)) return 1 + m->nbody + k;
    yerr(c, n, "no body or frame named '%s'", name);
    return 0;
}

/* -> 1 if name is already a body or kinematic frame */
static int frame_name_taken(const br_model *m, const char *name, int nb, int nk)
{
    if (!strcmp(name, "ground")) return 1;
    for (int b = 0; b < nb; b++)
        if (!strcmp(m->body[b].name, name)) return 1;
    for (int k = 0; k < nk; k++)
        if (!strcmp(m->kframe[k].name, name)) return 1;
    return 0;
}

static void read_beams(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "nodes", "clamp", "section", "E", "nu", "rho", "rayleigh", NULL};
    static const char *const KS[] = {"b", "t", "width_axis", NULL};
    static const char *const KR[] = {"a", "b", NULL};
    m->nbeam = seq ? ylen(c, seq, "beams") : 0;
    m->beam = calloc((size_t)(m->nbeam ? m->nbeam : 1), sizeof *m->beam);
    yalloc(c, seq, m->beam);
    if (!m->beam) m->nbeam = 0;
    if (c->failed) return;
    for (int k = 0; k < m->nbeam && !c->failed; k++) {
        ynode *n = yitem(c, seq, k);
        br_beam *B = &m->beam[k];
        B->line = (int)n->start_mark.line + 1;
        if (ykeys(c, n, "a beam", K)) return;
        yname(c, n, B->name, "beam");
        for (int j = 0; j < k; j++)
            ycheck(c, strcmp(m->beam[j].name, B->name) != 0, yat(c, n, "name"), "duplicate beam name '%s'", B->name);
        ynode *nodes = ymap(c, n, "nodes");
        if (!nodes) {
            yerr(c, n, "missing key 'nodes' (a list of [x, y, z] node positions)");
            return;
        }
        const int nn = ylen(c, nodes, "nodes");
        ycheck(c, nn >= 2, nodes, "a beam needs at least two nodes");
        yguard(c, nodes, 0, 6.0 * nn);
        if (c->failed) return;
        B->nnode = nn;
        B->X = malloc((size_t)nn * 3 * sizeof(double));
        B->fix = calloc((size_t)nn, sizeof(int));
        yalloc(c, nodes, B->X), yalloc(c, nodes, B->fix);
        for (int i = 0; i < nn && !c->failed; i++) {
            ynode *it = yitem(c, nodes, i);
            if (ylen(c, it, "a node") != 3) {
                yerr(c, it, "nodes are [x, y, z]");
                return;
            }
            for (int j = 0; j < 3; j++) B->X[3 * i + j] = ynum_node(c, yitem(c, it, j), "node");
            if (i > 0) {
                const double *a = B->X + 3 * i - 3, *b2 = B->X + 3 * i;
                const double d[3] = {b2[0] - a[0], b2[1] - a[1], b2[2] - a[2]};
                ycheck(c, br_norm3(d) > 0, it, "node %d coincides with node %d", i, i - 1);
            }
        }
        ynode *cl = ymap(c, n, "clamp");
        const int ncl = cl ? ylen(c, cl, "clamp") : 0;
        for (int i = 0; i < ncl && !c->failed; i++) {
            const double idx = ynum_node(c, yitem(c, cl, i), "clamp");
            ycheck(c, idx >= 0 && idx == floor(idx) && idx < nn, yitem(c, cl, i), "clamp lists node indices 0..%d",
                   nn - 1);
            if (!c->failed) B->fix[(int)idx] = 63;
        }
        B->E = ynum(c, n, "E", 1, 0), B->nu = ynum(c, n, "nu", 1, 0), B->rho = ynum(c, n, "rho", 1, 0);
        ycheck(c, B->E > 0, yat(c, n, "E"), "E must be > 0");
        ycheck(c, B->nu > -1 && B->nu < 0.5, yat(c, n, "nu"), "nu must lie in (-1, 0.5)");
        ycheck(c, B->rho > 0, yat(c, n, "rho"), "rho must be > 0");
        ynode *sec = ymap(c, n, "section");
        if (!sec) {
            yerr(c, n, "missing key 'section' (b, t, width_axis)");
            return;
        }
        if (ykeys(c, sec, "section", KS)) return;
        B->b = ynum(c, sec, "b", 1, 0), B->t = ynum(c, sec, "t", 1, 0);
        ycheck(c, B->b > 0 && B->t > 0, sec, "section sides b, t must be > 0");
        yunit(c, sec, "width_axis", NULL, B->width);
        for (int i = 0; i + 1 < nn && !c->failed; i++) {
            const double *a = B->X + 3 * i, *b2 = B->X + 3 * i + 3;
            double d[3] = {b2[0] - a[0], b2[1] - a[1], b2[2] - a[2]};
            const double L = br_norm3(d);
            ycheck(c, fabs(d[0] * B->width[0] + d[1] * B->width[1] + d[2] * B->width[2]) < 1e-9 * L,
                   yat(c, sec, "width_axis"), "width_axis must be normal to every element (element %d)", i);
        }
        ynode *ray = ymap(c, n, "rayleigh");
        if (ray && ykeys(c, ray, "rayleigh", KR)) return;
        B->ray_a = ray ? ynum(c, ray, "a", 0, 0) : 0;
        B->ray_b = ray ? ynum(c, ray, "b", 0, 0) : 0;
        ycheck(c, B->ray_a >= 0 && B->ray_b >= 0, ray ? ray : n, "Rayleigh coefficients must be >= 0");
    }
}

static void read_bodies(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "mass", "inertia", "box", "position", "orientation",
                                    "velocity", "angular_velocity", "lock", "attach", NULL};
    m->nbody = seq ? ylen(c, seq, "bodies") : 0;
    m->body = calloc((size_t)(m->nbody ? m->nbody : 1), sizeof *m->body);
    yalloc(c, seq, m->body);
    if (!m->body) m->nbody = 0;
    if (c->failed) return;
    for (int b = 0; b < m->nbody && !c->failed; b++) {
        ynode *n = yitem(c, seq, b);
        br_body *B = &m->body[b];
        if (ykeys(c, n, "a body", K)) return;
        yname(c, n, B->name, "body");
        ycheck(c, !frame_name_taken(m, B->name, b, 0), yat(c, n, "name"),
               "body name '%s' is taken (or reserved)", B->name);
        B->mass = ynum(c, n, "mass", 1, 0);
        ycheck(c, B->mass > 0, yat(c, n, "mass"), "mass must be > 0 (got %g)", B->mass);
        ynode *in = ymap(c, n, "inertia"), *box = ymap(c, n, "box");
        ycheck(c, (in != NULL) != (box != NULL), n, "give exactly one of 'inertia' and 'box'");
        if (c->failed) return;
        if (box) {
            double s[3];
            yvec(c, n, "box", 3, 1, NULL, s);
            ycheck(c, s[0] > 0 && s[1] > 0 && s[2] > 0, box, "box edges must be > 0");
            B->Ib[0] = B->mass * (s[1] * s[1] + s[2] * s[2]) / 12.0;
            B->Ib[4] = B->mass * (s[0] * s[0] + s[2] * s[2]) / 12.0;
            B->Ib[8] = B->mass * (s[0] * s[0] + s[1] * s[1]) / 12.0;
        } else {
            const int len = ylen(c, in, "inertia");
            ycheck(c, len == 3 || len == 6, in,
                   "inertia: give [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]");
            double v[6] = {0};
            for (int k = 0; k < len && k < 6 && !c->failed; k++) v[k] = ynum_node(c, yitem(c, in, k), "inertia");
            B->Ib[0] = v[0], B->Ib[4] = v[1], B->Ib[8] = v[2];
            B->Ib[1] = B->Ib[3] = v[3], B->Ib[2] = B->Ib[6] = v[4], B->Ib[5] = B->Ib[7] = v[5];
            /* positive definite (Sylvester) and the triangle inequalities of a real body */
            const double d2 = v[0] * v[1] - v[3] * v[3];
            const double d3 = v[0] * (v[1] * v[2] - v[5] * v[5]) - v[3] * (v[3] * v[2] - v[5] * v[4]) +
                              v[4] * (v[3] * v[5] - v[1] * v[4]);
            ycheck(c, v[0] > 0 && d2 > 0 && d3 > 0, in, "inertia must be positive definite");
            ycheck(c, v[0] + v[1] >= v[2] && v[1] + v[2] >= v[0] && v[0] + v[2] >= v[1], in,
                   "principal moments violate the triangle inequality (no real body has them)");
        }
        static const double z3[3] = {0, 0, 0};
        B->beam = -1;
        ynode *at = ymap(c, n, "attach");
        if (at) {
            /* attach: {beam: NAME, node: INDEX, offset: [..]}; position follows from the node */
            static const char *const KA[] = {"beam", "node", "offset", NULL};
            if (ykeys(c, at, "attach", KA)) return;
            const char *bn = ystring(c, at, "beam", 1);
            for (int k = 0; bn && k < m->nbeam; k++)
                if (!strcmp(m->beam[k].name, bn)) B->beam = k;
            ycheck(c, !bn || B->beam >= 0, yat(c, at, "beam"), "no beam named '%s'", bn ? bn : "");
            const double nd = ynum(c, at, "node", 1, 0);
            if (c->failed) return;
            ycheck(c, nd >= 0 && nd == floor(nd) && nd < m->beam[B->beam].nnode, yat(c, at, "node"),
                   "node must be an index 0..%d of beam '%s'", m->beam[B->beam].nnode - 1, bn);
            if (c->failed) return;
            B->node = (int)nd;
            yvec(c, at, "offset", 3, 0, z3, B->offset);
            ycheck(c, !ymap(c, n, "position") && !ymap(c, n, "velocity") && !ymap(c, n, "angular_velocity") &&
                          !ymap(c, n, "lock"),
                   n, "an attached body takes its position and motion from the node (no position, velocity, lock)");
            for (int j = 0; j < 3; j++) B->x0[j] = m->beam[B->beam].X[3 * B->node + j] + B->offset[j];
        } else {
            yvec(c, n, "position", 3, 1, NULL, B->x0);
        }
        yorientation(c, n, B->q0);
        yvec(c, n, "velocity", 3, 0, z3, B->v0);
        yvec(c, n, "angular_velocity", 3, 0, z3, B->w0);
        ynode *lk = ymap(c, n, "lock");
        if (lk) {
            static const char *const dof[] = {"x", "y", "z", "rx", "ry", "rz"};
            const int len = ylen(c, lk, "lock");
            for (int k = 0; k < len && !c->failed; k++) {
                ynode *it = yitem(c, lk, k);
                int bit = -1;
                for (int j = 0; j < 6; j++)
                    if (is_scalar(it) && !strcmp(ystr(it), dof[j])) bit = j;
                ycheck(c, bit >= 0, it, "lock entries are x, y, z, rx, ry, rz");
                if (bit >= 0) B->lock |= 1 << bit;
            }
        }
    }
}

static void read_frames(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "position", "orientation", "velocity", "angular_velocity",
                                    "displacement", NULL};
    m->nkframe = seq ? ylen(c, seq, "frames") : 0;
    m->kframe = calloc((size_t)(m->nkframe ? m->nkframe : 1), sizeof *m->kframe);
    yalloc(c, seq, m->kframe);
    if (!m->kframe) m->nkframe = 0;
    if (c->failed) return;
    for (int k = 0; k < m->nkframe && !c->failed; k++) {
        ynode *n = yitem(c, seq, k);
        br_kframe *F = &m->kframe[k];
        if (ykeys(c, n, "a frame", K)) return;
        yname(c, n, F->name, "frame");
        ycheck(c, !frame_name_taken(m, F->name, m->nbody, k), yat(c, n, "name"),
               "frame name '%s' is taken (or reserved)", F->name);
        static const double z3[3] = {0, 0, 0};
        yvec(c, n, "position", 3, 0, z3, F->x0);
        yorientation(c, n, F->q0);
        yvec(c, n, "velocity", 3, 0, z3, F->v);
        yvec(c, n, "angular_velocity", 3, 0, z3, F->w);
        ynode *dsp = ymap(c, n, "displacement");
        static const char *const XYZ[] = {"x", "y", "z", NULL};
        if (dsp && ykeys(c, dsp, "displacement", XYZ)) return;
        for (int j = 0; j < 3; j++) {
            ynode *fn = dsp ? ymap(c, dsp, XYZ[j]) : NULL;
            if (fn) ytimefn(c, fn, XYZ[j], &F->disp[j]);
            else F->disp[j].kind = BR_TF_CONSTANT;
        }
    }
}

static void read_loads(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "type", "body", "point", "direction", "axes", "magnitude", NULL};
    m->nload = seq ? ylen(c, seq, "loads") : 0;
    m->load = calloc((size_t)(m->nload ? m->nload : 1), sizeof *m->load);
    yalloc(c, seq, m->load);
    if (!m->load) m->nload = 0;
    if (c->failed) return;
    for (int l = 0; l < m->nload && !c->failed; l++) {
        ynode *n = yitem(c, seq, l);
        br_load *L = &m->load[l];
        if (ykeys(c, n, "a load", K)) return;
        yname(c, n, L->name, "load");
        for (int j = 0; j < l; j++)
            ycheck(c, strcmp(m->load[j].name, L->name) != 0, yat(c, n, "name"), "duplicate load name '%s'",
                   L->name);
        const char *type = ystring(c, n, "type", 0);
        ycheck(c, !type || !strcmp(type, "force") || !strcmp(type, "torque"), yat(c, n, "type"),
               "load type must be force or torque");
        L->type = type && !strcmp(type, "torque") ? BR_LOAD_TORQUE : BR_LOAD_FORCE;
        const char *body = ystring(c, n, "body", 1);
        L->frame = yframe(c, m, yat(c, n, "body"), body);
        ycheck(c, L->frame >= 1 && L->frame <= m->nbody, yat(c, n, "body"),
               "loads act on bodies; '%s' is not a body", body ? body : "");
        static const double z3[3] = {0, 0, 0};
        yvec(c, n, "point", 3, 0, z3, L->point);
        ycheck(c, L->type == BR_LOAD_FORCE || !ymap(c, n, "point"), yat(c, n, "point"),
               "a torque has no point of application");
        yunit(c, n, "direction", NULL, L->dir);
        const char *axes = ystring(c, n, "axes", 0);
        ycheck(c, !axes || !strcmp(axes, "world") || !strcmp(axes, "body"), yat(c, n, "axes"),
               "axes must be world or body");
        L->body_axes = axes && !strcmp(axes, "body");
        ynode *mag = ymap(c, n, "magnitude");
        if (!mag) yerr(c, n, "missing key 'magnitude'");
        else ytimefn(c, mag, "magnitude", &L->mag);
    }
}

static void read_springs(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "type", "axis", "a", "b", "stiffness", "damping", "rest_length", NULL};
    static const char *const E[] = {"frame", "point", NULL};
    m->nspring = seq ? ylen(c, seq, "springs") : 0;
    m->spring = calloc((size_t)(m->nspring ? m->nspring : 1), sizeof *m->spring);
    yalloc(c, seq, m->spring);
    if (!m->spring) m->nspring = 0;
    if (c->failed) return;
    for (int s = 0; s < m->nspring && !c->failed; s++) {
        ynode *n = yitem(c, seq, s);
        br_spring *S = &m->spring[s];
        if (ykeys(c, n, "a spring", K)) return;
        yname(c, n, S->name, "spring");
        for (int j = 0; j < s; j++)
            ycheck(c, strcmp(m->spring[j].name, S->name) != 0, yat(c, n, "name"),
                   "duplicate spring name '%s'", S->name);
        static const double z3[3] = {0, 0, 0};
        ynode *ends[2] = {ymap(c, n, "a"), ymap(c, n, "b")};
        for (int e = 0; e < 2 && !c->failed; e++) {
            if (!ends[e]) {
                yerr(c, n, "missing key '%s' (an end: frame and point)", e ? "b" : "a");
                return;
            }
            if (ykeys(c, ends[e], "a spring end", E)) return;
            const char *fr = ystring(c, ends[e], "frame", 1);
            const int idx = yframe(c, m, yat(c, ends[e], "frame"), fr);
            yvec(c, ends[e], "point", 3, 0, z3, e ? S->pb : S->pa);
            if (e) S->frame_b = idx;
            else S->frame_a = idx;
        }
        const char *type = ystring(c, n, "type", 0);
        ycheck(c, !type || !strcmp(type, "linear") || !strcmp(type, "torsion") || !strcmp(type, "rope"),
               yat(c, n, "type"), "spring type must be linear, rope or torsion");
        S->torsion = type && !strcmp(type, "torsion");
        S->rope = type && !strcmp(type, "rope");
        if (S->torsion) yunit(c, n, "axis", NULL, S->axis);
        else ycheck(c, !ymap(c, n, "axis"), yat(c, n, "axis"), "'axis' is for torsion springs");
        ycheck(c, !S->torsion || !ymap(c, n, "rest_length"), yat(c, n, "rest_length"),
               "a torsion spring has no rest length (its angle counts from t = 0)");
        S->k = ynum(c, n, "stiffness", 1, 0);
        S->c = ynum(c, n, "damping", 0, 0);
        S->rest = ynum(c, n, "rest_length", 0, 0);
        ycheck(c, S->k >= 0, yat(c, n, "stiffness"), "stiffness must be >= 0");
        ycheck(c, S->c >= 0, yat(c, n, "damping"), "damping must be >= 0");
        ycheck(c, S->rest >= 0, yat(c, n, "rest_length"), "rest_length must be >= 0");
        ycheck(c, !S->rope || S->rest > 0, S->rope && ymap(c, n, "rest_length") ? yat(c, n, "rest_length") : n,
               "a rope needs rest_length > 0 (its natural length: it pulls only when longer)");
        ycheck(c, S->frame_a != S->frame_b, n, "a spring needs two different frames");
    }
}

/* a clutch's mu_C, mu_S, sigma2, normal_force_max, c_geo or annulus and input -> e */
static void read_clutch(ysrc *c, ynode *n, br_rotfric *e)
{
    e->mu_C = ynum(c, n, "mu_C", 1, 0);
    e->mu_S = ynum(c, n, "mu_S", 1, 0);
    e->sigma2 = ynum(c, n, "sigma2", 0, 0);
    e->Fn_max = ynum(c, n, "normal_force_max", 1, 0);
    ycheck(c, e->mu_C > 0, yat(c, n, "mu_C"), "mu_C must be > 0");
    ycheck(c, e->mu_S >= e->mu_C, yat(c, n, "mu_S"), "mu_S must be >= mu_C");
    ycheck(c, e->sigma2 >= 0, yat(c, n, "sigma2"), "sigma2 must be >= 0");
    ycheck(c, e->Fn_max > 0, yat(c, n, "normal_force_max"), "normal_force_max must be > 0");
    ynode *an = ymap(c, n, "annulus"), *cg = ymap(c, n, "c_geo");
    ycheck(c, (an != NULL) != (cg != NULL), n,
           "give exactly one of 'c_geo' [m] and 'annulus: [R_i, R_o]' (uniform pressure)");
    if (c->failed) return;
    if (cg) e->c_geo = ynum_node(c, cg, "c_geo");
    else {
        double R[2];
        yvec(c, n, "annulus", 2, 1, NULL, R);
        ycheck(c, R[0] >= 0 && R[1] > R[0], an, "annulus needs 0 <= R_i < R_o");
        e->c_geo = 2.0 / 3.0 * (R[1] * R[1] * R[1] - R[0] * R[0] * R[0]) / (R[1] * R[1] - R[0] * R[0]);
    }
    ycheck(c, e->c_geo > 0, cg ? cg : an, "c_geo must be > 0");
    ynode *in = ymap(c, n, "input");
    if (in) ytimefn(c, in, "input", &e->u);
    else e->u.kind = BR_TF_CONSTANT, e->u.c = 1.0;
}

/* rotational_friction: [{name, type: lugre|clutch|one_way_clutch, body, other, axis, ...}] */
static void read_rotational(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "type", "body", "other", "axis", "sigma0", "sigma1", "w_d",
                                    "tau_v", "tau_C", "tau_S", "w_s", "mu_C", "mu_S", "sigma2", "c_geo",
                                    "annulus", "normal_force_max", "input", "c_max", NULL};
    m->nrot = seq ? ylen(c, seq, "rotational_friction") : 0;
    m->rot = calloc((size_t)(m->nrot ? m->nrot : 1), sizeof *m->rot);
    yalloc(c, seq, m->rot);
    if (!m->rot) m->nrot = 0;
    if (c->failed) return;
    for (int k = 0; k < m->nrot && !c->failed; k++) {
        ynode *n = yitem(c, seq, k);
        br_rotfric *e = &m->rot[k];
        if (ykeys(c, n, "a rotational friction element", K)) return;
        yname(c, n, e->name, "rotational friction element");
        for (int j = 0; j < k; j++)
            ycheck(c, strcmp(m->rot[j].name, e->name) != 0, yat(c, n, "name"), "duplicate element name '%s'",
                   e->name);
        const char *type = ystring(c, n, "type", 1);
        if (c->failed) return;
        e->type = !strcmp(type, "lugre") ? BR_ROT_LUGRE : !strcmp(type, "clutch") ? BR_ROT_CLUTCH
                  : !strcmp(type, "one_way_clutch") ? BR_ROT_ONEWAY : -1;
        ycheck(c, e->type >= 0, yat(c, n, "type"), "type must be lugre, clutch or one_way_clutch (got '%s')", type);
        if (c->failed) return;
        e->frame_a = yframe(c, m, yat(c, n, "body"), ystring(c, n, "body", 1));
        const char *other = ystring(c, n, "other", 0);
        e->frame_b = other ? yframe(c, m, yat(c, n, "other"), other) : 0;
        ycheck(c, e->frame_a != e->frame_b, n, "an element needs two different frames");
        yunit(c, n, "axis", NULL, e->axis);
        e->sigma0 = ynum(c, n, "sigma0", 1, 0);
        e->sigma1 = ynum(c, n, "sigma1", 1, 0);
        e->w_s = ynum(c, n, "w_s", 1, 0);
        ycheck(c, e->sigma0 > 0, yat(c, n, "sigma0"), "sigma0 must be > 0");
        ycheck(c, e->sigma1 >= 0, yat(c, n, "sigma1"), "sigma1 must be >= 0");
        ycheck(c, e->w_s > 0, yat(c, n, "w_s"), "w_s must be > 0");
        static const char *const LUG[] = {"tau_v", "tau_C", "tau_S", "w_d"};
        static const char *const CLU[] = {"mu_C", "mu_S", "sigma2", "c_geo", "annulus", "normal_force_max",
                                          "input", "c_max"};
        for (int j = 0; j < 4; j++)
            ycheck(c, e->type == BR_ROT_LUGRE || !ymap(c, n, LUG[j]), yat(c, n, LUG[j]),
                   "'%s' is for type lugre", LUG[j]);
        for (int j = 0; j < 8; j++)
            ycheck(c, e->type != BR_ROT_LUGRE || !ymap(c, n, CLU[j]), yat(c, n, CLU[j]),
                   "'%s' is for the clutch types", CLU[j]);
        ycheck(c, e->type == BR_ROT_ONEWAY || !ymap(c, n, "c_max"), yat(c, n, "c_max"),
               "'c_max' is for type one_way_clutch");
        if (c->failed) return;
        if (e->type == BR_ROT_LUGRE) {
            e->tau_v = ynum(c, n, "tau_v", 0, 0);
            e->tau_C = ynum(c, n, "tau_C", 1, 0);
            e->tau_S = ynum(c, n, "tau_S", 1, 0);
            e->w_d = ynum(c, n, "w_d", 0, 0);
            ycheck(c, e->tau_v >= 0, yat(c, n, "tau_v"), "tau_v must be >= 0");
            ycheck(c, e->tau_C > 0, yat(c, n, "tau_C"), "tau_C must be > 0");
            ycheck(c, e->tau_S >= e->tau_C, yat(c, n, "tau_S"), "tau_S must be >= tau_C");
            ycheck(c, e->w_d >= 0, yat(c, n, "w_d"), "w_d must be >= 0 (0: constant sigma1)");
            continue;
        }
        read_clutch(c, n, e);
        e->c_max = ynum(c, n, "c_max", 0, 100.0);
        ycheck(c, e->c_max > 0, yat(c, n, "c_max"), "c_max must be > 0");
    }
}

/* drivetrain shaft name (or "housing" where allowed) -> its index, -1 for the housing; -2 with an
 * error when unknown */
static int yshaft(ysrc *c, const br_drivetrain *dv, ynode *map, const char *key, int housing_ok)
{
    const char *nm = ystring(c, map, key, 1);
    if (!nm) return -2;
    if (housing_ok && !strcmp(nm, "housing")) return -1;
    for (int i = 0; i < dv->nshaft; i++)
        if (!strcmp(dv->shaft[i].name, nm)) return i;
    yerr(c, yat(c, map, key), "unknown shaft '%s'%s", nm, housing_ok ? " (or housing)" : "");
    return -2;
}

/* drivetrain: {shafts, gears, torques, clutches} -> m->drive (docs/scenario-format.md) */
static void read_drivetrain(ysrc *c, ynode *n, br_model *m)
{
    br_drivetrain *dv = &m->drive;
    if (!n) return;
    static const char *const K[] = {"shafts", "gears", "torques", "clutches", NULL};
    if (ykeys(c, n, "drivetrain", K)) return;
    ynode *sh = ymap(c, n, "shafts"), *ge = ymap(c, n, "gears"), *to = ymap(c, n, "torques"), *cl = ymap(c, n, "clutches");
    if (!sh) {
        yerr(c, n, "missing key 'shafts' (a drivetrain needs at least one shaft)");
        return;
    }
    dv->nshaft = ylen(c, sh, "shafts");
    dv->ngear = ge ? ylen(c, ge, "gears") : 0;
    dv->nsrc = to ? ylen(c, to, "torques") : 0;
    dv->ncl = cl ? ylen(c, cl, "clutches") : 0;
    dv->shaft = calloc((size_t)(dv->nshaft ? dv->nshaft : 1), sizeof *dv->shaft);
    dv->gear = calloc((size_t)(dv->ngear ? dv->ngear : 1), sizeof *dv->gear);
    dv->src = calloc((size_t)(dv->nsrc ? dv->nsrc : 1), sizeof *dv->src);
    dv->cl = calloc((size_t)(dv->ncl ? dv->ncl : 1), sizeof *dv->cl);
    yalloc(c, n, dv->shaft && dv->gear && dv->src && dv->cl ? dv : NULL);
    if (c->failed) {
        dv->nshaft = dv->ngear = dv->nsrc = dv->ncl = 0;
        return;
    }
    ycheck(c, dv->nshaft > 0, sh, "a drivetrain needs at least one shaft");
    /* every name of the drivetrain is a column prefix: unique among shafts, gears, torques, clutches */
    char(*names)[BR_NAME_MAX] = calloc((size_t)(dv->nshaft + dv->ngear + dv->nsrc + dv->ncl + 1), BR_NAME_MAX);
    int nn = 0;
    yalloc(c, n, names);
#define BR_DV_NAME(node, out, what)                                                                       \
    do {                                                                                                  \
        yname(c, node, out, what);                                                                        \
        for (int j = 0; j < nn && !c->failed; j++)                                                        \
            ycheck(c, strcmp(names[j], out) != 0, yat(c, node, "name"), "duplicate drivetrain name '%s'", out); \
        ycheck(c, strcmp(out, "housing") != 0, yat(c, node, "name"), "'housing' is the fixed casing's name"); \
        for (int j = 0; j < m->nrot && !c->failed; j++) /* the same column names (<name>.tau) */            \
            ycheck(c, strcmp(m->rot[j].name, out) != 0, yat(c, node, "name"),                              \
                   "'%s' is also a rotational_friction element's name", out);                               \
        if (names) snprintf(names[nn++], BR_NAME_MAX, "%s", out);                                        \
    } while (0)
    static const char *const KS[] = {"name", "inertia", "speed", NULL};
    for (int i = 0; i < dv->nshaft && !c->failed; i++) {
        ynode *q = yitem(c, sh, i);
        br_shaft *S = &dv->shaft[i];
        if (ykeys(c, q, "a shaft", KS)) break;
        BR_DV_NAME(q, S->name, "shaft");
        S->J = ynum(c, q, "inertia", 1, 0);
        S->w0 = ynum(c, q, "speed", 0, 0.0);
        ycheck(c, S->J > 0, yat(c, q, "inertia"), "inertia must be > 0 [kg m^2]");
    }
    static const char *const KG[] = {"name", "type", "sun", "ring", "carrier", "k", "a", "b", "ratio", NULL};
    for (int g = 0; g < dv->ngear && !c->failed; g++) {
        ynode *q = yitem(c, ge, g);
        br_gear *G = &dv->gear[g];
        if (ykeys(c, q, "a gear", KG)) break;
        BR_DV_NAME(q, G->name, "gear");
        const char *type = ystring(c, q, "type", 1);
        if (c->failed) break;
        if (!strcmp(type, "planetary")) {
            G->type = BR_GEAR_PLANETARY;
            static const char *const NOT[] = {"a", "b", "ratio"};
            for (int j = 0; j < 3; j++) ycheck(c, !ymap(c, q, NOT[j]), yat(c, q, NOT[j]), "'%s' is for type pair", NOT[j]);
            G->s[0] = yshaft(c, dv, q, "sun", 0);
            G->s[1] = yshaft(c, dv, q, "ring", 0);
            G->s[2] = yshaft(c, dv, q, "carrier", 0);
            G->k = ynum(c, q, "k", 1, 0);
            ycheck(c, G->k > 0, yat(c, q, "k"), "k (ring/sun teeth) must be > 0");
            ycheck(c, G->s[0] != G->s[1] && G->s[1] != G->s[2] && G->s[0] != G->s[2], q,
                   "sun, ring and carrier must be three different shafts");
        } else if (!strcmp(type, "pair")) {
            G->type = BR_GEAR_PAIR;
            static const char *const NOT[] = {"sun", "ring", "carrier", "k"};
            for (int j = 0; j < 4; j++) ycheck(c, !ymap(c, q, NOT[j]), yat(c, q, NOT[j]), "'%s' is for type planetary", NOT[j]);
            G->s[0] = yshaft(c, dv, q, "a", 0);
            G->s[1] = yshaft(c, dv, q, "b", 0);
            G->s[2] = -1;
            G->k = ynum(c, q, "ratio", 1, 0);
            ycheck(c, G->k != 0, yat(c, q, "ratio"), "ratio (w_a / w_b) must not be 0");
            ycheck(c, G->s[0] != G->s[1], q, "a gear pair needs two different shafts");
        } else {
            yerr(c, yat(c, q, "type"), "gear type must be pair or planetary (got '%s')", type);
        }
        if (c->failed) break;
        /* the initial speeds must already mesh: a step would otherwise jump them onto the constraint */
        const br_shaft *A = &dv->shaft[G->s[0]], *B = &dv->shaft[G->s[1]];
        const double mis = G->type == BR_GEAR_PAIR ? A->w0 - G->k * B->w0
                                                   : A->w0 + G->k * B->w0 - (1.0 + G->k) * dv->shaft[G->s[2]].w0;
        const double sc = fabs(A->w0) + fabs(G->k * B->w0) + (G->type == BR_GEAR_PAIR ? 0.0 : fabs((1.0 + G->k) * dv->shaft[G->s[2]].w0));
        ycheck(c, fabs(mis) <= 1e-12 * sc, q, "the shafts' initial speeds do not mesh in gear '%s' (%s off by %g rad/s)",
               G->name, G->type == BR_GEAR_PAIR ? "w_a - ratio w_b" : "w_sun + k w_ring - (1 + k) w_carrier", mis);
    }
    static const char *const KT[] = {"name", "shaft", "torque", "damping", NULL};
    for (int k = 0; k < dv->nsrc && !c->failed; k++) {
        ynode *q = yitem(c, to, k);
        br_tsource *T = &dv->src[k];
        if (ykeys(c, q, "a torque source", KT)) break;
        BR_DV_NAME(q, T->name, "torque source");
        T->shaft = yshaft(c, dv, q, "shaft", 0);
        ynode *tq = ymap(c, q, "torque");
        if (tq) ytimefn(c, tq, "torque", &T->tau);
        else T->tau.kind = BR_TF_CONSTANT, T->tau.c = 0.0;
        T->c = ynum(c, q, "damping", 0, 0.0);
        ycheck(c, T->c >= 0, yat(c, q, "damping"), "damping must be >= 0 [N m s/rad] (the torque is torque(t) - damping w)");
    }
    static const char *const KC[] = {"name", "type", "a", "b", "mu_C", "mu_S", "sigma0", "sigma1", "sigma2", "w_s",
                                     "c_geo", "annulus", "normal_force_max", "input", NULL};
    for (int k = 0; k < dv->ncl && !c->failed; k++) {
        ynode *q = yitem(c, cl, k);
        br_dclutch *C = &dv->cl[k];
        if (ykeys(c, q, "a clutch", KC)) break;
        BR_DV_NAME(q, C->name, "clutch");
        const char *type = ystring(c, q, "type", 1);
        if (c->failed) break;
        C->type = !strcmp(type, "lugre") ? BR_DCLUTCH_LUGRE : !strcmp(type, "coulomb") ? BR_DCLUTCH_COULOMB : -1;
        ycheck(c, C->type >= 0, yat(c, q, "type"), "clutch type must be lugre or coulomb (got '%s')", type);
        C->a = yshaft(c, dv, q, "a", 0);
        C->b = yshaft(c, dv, q, "b", 1);
        ycheck(c, C->a != C->b, q, "a clutch needs two different shafts (b: housing for a brake)");
        if (c->failed) break;
        C->law.type = BR_ROT_CLUTCH;
        read_clutch(c, q, &C->law);
        static const char *const LUG[] = {"sigma0", "sigma1", "sigma2", "w_s"};
        if (C->type == BR_DCLUTCH_COULOMB) {
            for (int j = 0; j < 4; j++) ycheck(c, !ymap(c, q, LUG[j]), yat(c, q, LUG[j]), "'%s' is for type lugre", LUG[j]);
            continue;
        }
        C->law.sigma0 = ynum(c, q, "sigma0", 1, 0);
        C->law.sigma1 = ynum(c, q, "sigma1", 1, 0);
        C->law.w_s = ynum(c, q, "w_s", 1, 0);
        ycheck(c, C->law.sigma0 > 0, yat(c, q, "sigma0"), "sigma0 must be > 0");
        ycheck(c, C->law.sigma1 >= 0, yat(c, q, "sigma1"), "sigma1 must be >= 0");
        ycheck(c, C->law.w_s > 0, yat(c, q, "w_s"), "w_s must be > 0");
    }
#undef BR_DV_NAME
    free(names);
}

/* gms elements: a list of {stiffness, damping, share} -> p->gms_M, gms_k, gms_s, gms_alpha (their
 * values are checked with the other parameters by br_law_check) */
static void read_gms_elements(ysrc *c, ynode *n, br_friction_params *p)
{
    static const char *const KE[] = {"stiffness", "damping", "share", NULL};
    p->gms_C = ynum(c, n, "C", 1, 0);
    ynode *seq = ymap(c, n, "elements");
    const int M = ylen(c, seq, "elements");
    if (c->failed) return;
    ycheck(c, M >= 1 && M <= BR_GMS_MAX, seq, "gms needs 1 to %d elements (got %d)", BR_GMS_MAX, M);
    if (c->failed) return;
    p->gms_M = M;
    for (int i = 0; i < M && !c->failed; i++) {
        ynode *e = yitem(c, seq, i);
        if (ykeys(c, e, "a gms element", KE)) return;
        p->gms_k[i] = ynum(c, e, "stiffness", 1, 0);
        p->gms_s[i] = ynum(c, e, "damping", 0, 0);
        p->gms_alpha[i] = ynum(c, e, "share", 1, 0);
    }
}

static void read_friction(ysrc *c, ynode *n, br_contact_set_desc *d)
{
    const char *law = ystring(c, n, "law", 1);
    if (c->failed) return;
    d->law = br_law_from_name(law);
    if (d->law < 0) {
        char list[200] = "";
        for (int k = 0; k < BR_LAW_COUNT; k++) {
            strcat(list, br_law_name(k));
            if (k + 1 < BR_LAW_COUNT) strcat(list, ", ");
        }
        yerr(c, yat(c, n, "law"), "unknown friction law '%s' (known: %s)", law, list);
        return;
    }
    const br_law_info *li = br_law_info_of(d->law);
    const char *allowed[BR_LAW_MAX_REQ + BR_LAW_MAX_OPT + 2];
    int na = 0;
    allowed[na++] = "law";
    for (int k = 0; li->req[k]; k++) allowed[na++] = li->req[k];
    for (int k = 0; li->opt[k]; k++) allowed[na++] = li->opt[k];
    allowed[na] = NULL;
    char what[64];
    snprintf(what, sizeof what, "friction (law %s)", law);
    if (ykeys(c, n, what, allowed)) return;
    br_friction_params *p = &d->fric;
    p->mu_s = ynum(c, n, "mu_s", 0, 0);
    p->mu_k = ynum(c, n, "mu_k", 0, 0);
    /* with mu_s = mu_k the Stribeck curve is flat: V_st and alpha change nothing and are not demanded */
    const int flat = ymap(c, n, "mu_s") && ymap(c, n, "mu_k") && p->mu_s == p->mu_k;
    for (int k = 0; li->req[k]; k++)
        if (!ymap(c, n, li->req[k]) && !(flat && (!strcmp(li->req[k], "V_st") || !strcmp(li->req[k], "alpha")))) {
            yerr(c, n, "missing friction parameter '%s' (law %s needs it)", li->req[k], law);
            return;
        }
    p->V_st = ynum(c, n, "V_st", 0, 1);
    p->alpha = ynum(c, n, "alpha", 0, 2);
    p->sigma0 = ynum(c, n, "sigma0", 0, 0);
    p->sigma1 = ynum(c, n, "sigma1", 0, 0);
    p->sigma2 = ynum(c, n, "sigma2", 0, 0);
    p->eps = ynum(c, n, "eps", 0, 0);
    p->f_v = ynum(c, n, "f_v", 0, 0);
    p->v_r = ynum(c, n, "v_r", 0, 0);
    p->nu = ynum(c, n, "nu", 0, 0);
    p->G_min = ynum(c, n, "G_min", 0, 1e-12);
    p->kt = ynum(c, n, "kt", 0, 0);
    p->c_t = ynum(c, n, "c_t", 0, 0);
    if (d->law == BR_LAW_JENKINS) {
        p->mu_s = p->mu_k = ynum(c, n, "mu", 0, 0);
        ycheck(c, !ymap(c, n, "kt") != !ymap(c, n, "kt_area"), n,
               "give exactly one of 'kt' (per point, N/m) and 'kt_area' (per unit area, N/m^3)");
        /* kt_area: provisional; the caller scales it by each point's area over its stiffness */
        p->kt_K = ynum(c, n, "kt_area", 0, 0);
    }
    const char *up = ystring(c, n, "update", 0);
    ycheck(c, !up || !strcmp(up, "exponential") || !strcmp(up, "euler"), yat(c, n, "update"),
           "update must be exponential or euler");
    p->update = up && !strcmp(up, "euler") ? BR_UPDATE_EULER : BR_UPDATE_EXP;
    if (d->law == BR_LAW_DAHL3D) p->mu_s = p->mu_k;
    if (d->law == BR_LAW_GMS) read_gms_elements(c, n, p);
    if (c->failed) return;
    br_law_issue is;
    if (br_law_check(d->law, p, &is)) {
        ynode *at = yat(c, n, is.key);
        if (is.item >= 0) at = yat(c, yitem(c, ymap(c, n, "elements"), is.item), is.item_key);
        yerr(c, at ? at : n, "%s", is.msg);
    }
}

/* jenkins with kt_area (held in fric.kt_K): each point's spring is kt_area times its area; the
 * field takes it as kt_K K_i, so the areas must be proportional to the normal stiffnesses K_i
 * (always with the normal law's sigma; with K per point, for equal areas) */
static void jenkins_kt_area(ysrc *c, ynode *at, br_cset *cs)
{
    const long np = cs->desc.npoints;
    const double r0 = cs->area[0] / cs->K[0];
    for (long i = 1; i < np; i++)
        if (!(fabs(cs->area[i] / cs->K[i] - r0) <= 1e-12 * r0)) {
            yerr(c, at, "kt_area needs each point's normal stiffness in proportion to its area "
                        "(give the normal law's sigma, or kt per point)");
            return;
        }
    cs->desc.fric.kt_K *= r0;
}

/* ring/grid/annulus/list -> cs->r (3n, frame A) and, for grid and annulus, the tributary
 * area of each point in cs->area (NULL for ring and list) */
/* mesh: {file, units, position, orientation, sampling, spacing} -> cs->r, cs->area in frame A;
 * the file path is relative to the scenario's folder */
static void read_mesh_points(ysrc *c, ynode *g, br_cset *cs)
{
    static const char *const KM[] = {"file", "units", "position", "orientation", "sampling", "spacing", NULL};
    if (ykeys(c, g, "mesh", KM)) return;
    const char *file = ystring(c, g, "file", 1);
    if (c->failed) return;
    char path[1024];
    const char *slash = strrchr(c->file, '/');
    if (file[0] == '/' || !slash) snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%.*s/%s", (int)(slash - c->file), c->file, file);
    const double scale = ynum(c, g, "units", 0, 1.0);
    ycheck(c, scale > 0, yat(c, g, "units"), "units (metres per file unit) must be > 0");
    static const double z3[3] = {0, 0, 0};
    double t[3], q[4], R[9];
    yvec(c, g, "position", 3, 0, z3, t);
    yorientation(c, g, q);
    const char *smp = ystring(c, g, "sampling", 0);
    ycheck(c, !smp || !strcmp(smp, "vertices") || !strcmp(smp, "spacing"), yat(c, g, "sampling"),
           "sampling must be vertices or spacing");
    const int spacing = smp && !strcmp(smp, "spacing");
    const double h = spacing ? ynum(c, g, "spacing", 1, 0) : 0.0;
    ycheck(c, !spacing || h > 0, yat(c, g, "spacing"), "spacing must be > 0");
    ycheck(c, spacing || !ymap(c, g, "spacing"), yat(c, g, "spacing"), "spacing needs sampling: spacing");
    if (c->failed) return;
    br_quat_to_R(q, R);
    char merr[1200];
    br_mesh *mesh = br_mesh_load(path, scale, R, t, merr, sizeof merr);
    if (!mesh) {
        yerr(c, yat(c, g, "file"), "%s", merr);
        return;
    }
    yguard(c, spacing ? yat(c, g, "spacing") : g, spacing ? br_mesh_count_spacing(mesh, h) : (double)mesh->nv, 0);
    if (c->failed) {
        br_mesh_free(mesh);
        return;
    }
    const long np = spacing ? br_mesh_sample_spacing(mesh, h, &cs->r, &cs->area)
                            : br_mesh_sample_vertices(mesh, &cs->r, &cs->area);
    ycheck(c, np != -1, g, "%s: out of memory sampling the mesh", path);
    ycheck(c, np > 0, g, "%s: sampling gave no points", path);
    cs->desc.npoints = np > 0 ? np : 0;
    br_mesh_normal(mesh, cs->mesh_normal);
    if (np > 0) {
        cs->surf_cells = spacing;
        cs->nsurf_t = spacing ? br_mesh_surface_spacing(mesh, h, &cs->surf_v, &cs->nsurf_v, &cs->surf_t)
                              : br_mesh_surface_vertices(mesh, &cs->surf_t);
        ycheck(c, cs->nsurf_t >= 0, g, "%s: out of memory triangulating the sampled mesh", path);
    }
    cs->meshed = 1;
    br_mesh_free(mesh);
}

static void read_points(ysrc *c, ynode *n, br_cset *cs)
{
    static const char *const K[] = {"ring", "grid", "annulus", "list", "mesh", NULL};
    if (ykeys(c, n, "points", K)) return;
    if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1) {
        yerr(c, n, "points: give exactly one of ring, grid, annulus, list, mesh");
        return;
    }
    if (ymap(c, n, "mesh")) {
        read_mesh_points(c, ymap(c, n, "mesh"), cs);
        return;
    }
    static const double ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0};
    ynode *g;
    long np = 0;
    if ((g = ymap(c, n, "list"))) {
        np = ylen(c, g, "list");
        ycheck(c, np > 0, g, "list has no points");
        yguard(c, g, (double)np, 0);
        if (c->failed) return;
        cs->r = malloc((size_t)np * 3 * sizeof(double));
        yalloc(c, g, cs->r);
        for (long i = 0; i < np && !c->failed; i++) {
            ynode *it = yitem(c, g, (int)i);
            if (ylen(c, it, "a point") != 3) {
                yerr(c, it, "points are [x, y, z]");
                return;
            }
            for (int j = 0; j < 3; j++) cs->r[3 * i + j] = ynum_node(c, yitem(c, it, j), "point");
        }
    } else {
        const int ring = (g = ymap(c, n, "ring")) != NULL, annulus = !ring && ymap(c, n, "annulus");
        if (!ring) g = annulus ? ymap(c, n, "annulus") : ymap(c, n, "grid");
        static const char *const KR[] = {"center", "radius", "count", "normal", "start", NULL};
        static const char *const KG[] = {"center", "size", "count", "normal", "start", NULL};
        static const char *const KA[] = {"center", "r_in", "r_out", "count", "normal", "start", NULL};
        if (ykeys(c, g, ring ? "ring" : annulus ? "annulus" : "grid", ring ? KR : annulus ? KA : KG)) return;
        double ctr[3] = {0, 0, 0}, nz[3] = {0, 0, 1}, u[3] = {1, 0, 0}, v[3];
        yvec(c, g, "center", 3, 1, NULL, ctr);
        yunit(c, g, "normal", ez, nz);
        yunit(c, g, "start", ex, u);
        if (c->failed) return;
        ycheck(c, fabs(u[0] * nz[0] + u[1] * nz[1] + u[2] * nz[2]) < 1e-9, yat(c, g, "start"),
               "start must be perpendicular to normal");
        br_cross3(nz, u, v);
        if (annulus) {
            /* count: [radial, around]; point k of ring j at the area centroid radius of its sector,
             * (2/3)(r1^3 - r0^3)/(r1^2 - r0^2), so sum A_i r_i is the exact integral of r dA */
            const double r0 = ynum(c, g, "r_in", 1, 0), r1 = ynum(c, g, "r_out", 1, 0);
            double cnt[2] = {0, 0};
            yvec(c, g, "count", 2, 1, NULL, cnt);
            ycheck(c, r0 >= 0 && r1 > r0, g, "annulus needs 0 <= r_in < r_out");
            ycheck(c, cnt[0] >= 1 && cnt[1] >= 1 && cnt[0] == floor(cnt[0]) && cnt[1] == floor(cnt[1]) &&
                          cnt[0] * cnt[1] < 1e9,
                   yat(c, g, "count"), "count must be two positive whole numbers [radial, around]");
            if (c->failed) return;
            yguard(c, yat(c, g, "count"), cnt[0] * cnt[1], 0);
            if (c->failed) return;
            const long nr = (long)cnt[0], nt = (long)cnt[1];
            np = nr * nt;
            cs->r = malloc((size_t)np * 3 * sizeof(double));
            cs->area = malloc((size_t)np * sizeof(double));
            yalloc(c, g, cs->r), yalloc(c, g, cs->area);
            if (c->failed) return;
            const double dth = 6.283185307179586 / (double)nt;
            for (long a = 0; a < nr; a++) {
                const double ra = r0 + (r1 - r0) * (double)a / (double)nr, rb = r0 + (r1 - r0) * (double)(a + 1) / (double)nr;
                const double rc = (2.0 / 3.0) * (rb * rb * rb - ra * ra * ra) / (rb * rb - ra * ra);
                for (long b = 0; b < nt; b++) {
                    const double ph = dth * ((double)b + 0.5);
                    for (int j = 0; j < 3; j++) cs->r[3 * (a * nt + b) + j] = ctr[j] + rc * (cos(ph) * u[j] + sin(ph) * v[j]);
                    cs->area[a * nt + b] = 0.5 * dth * (rb * rb - ra * ra);
                }
            }
        } else if (ring) {
            const double R = ynum(c, g, "radius", 1, 0);
            const double cnt = ynum(c, g, "count", 1, 0);
            ycheck(c, R > 0, yat(c, g, "radius"), "radius must be > 0");
            ycheck(c, cnt >= 1 && cnt == floor(cnt) && cnt < 1e9, yat(c, g, "count"),
                   "count must be a positive whole number");
            yguard(c, yat(c, g, "count"), cnt, 0);
            if (c->failed) return;
            np = (long)cnt;
            cs->r = malloc((size_t)np * 3 * sizeof(double));
            yalloc(c, g, cs->r);
            if (c->failed) return;
            for (long i = 0; i < np; i++) {
                const double ph = 6.283185307179586 * (double)i / (double)np;
                for (int j = 0; j < 3; j++) cs->r[3 * i + j] = ctr[j] + R * (cos(ph) * u[j] + sin(ph) * v[j]);
            }
        } else {
            double sz[2] = {0, 0}, cnt[2] = {0, 0};
            yvec(c, g, "size", 2, 1, NULL, sz);
            yvec(c, g, "count", 2, 1, NULL, cnt);
            ycheck(c, sz[0] > 0 && sz[1] > 0, yat(c, g, "size"), "size must be > 0");
            ycheck(c, cnt[0] >= 1 && cnt[1] >= 1 && cnt[0] == floor(cnt[0]) && cnt[1] == floor(cnt[1]) &&
                          cnt[0] * cnt[1] < 1e9,
                   yat(c, g, "count"), "count must be two positive whole numbers");
            yguard(c, yat(c, g, "count"), cnt[0] * cnt[1], 0);
            if (c->failed) return;
            const long nu = (long)cnt[0], nv = (long)cnt[1];
            np = nu * nv;
            cs->r = malloc((size_t)np * 3 * sizeof(double));
            cs->area = malloc((size_t)np * sizeof(double));
            yalloc(c, g, cs->r), yalloc(c, g, cs->area);
            if (c->failed) return;
            for (long a = 0; a < nu; a++)
                for (long b = 0; b < nv; b++) {
                    const double su = sz[0] * ((a + 0.5) / nu - 0.5), sv = sz[1] * ((b + 0.5) / nv - 0.5);
                    for (int j = 0; j < 3; j++) cs->r[3 * (a * nv + b) + j] = ctr[j] + su * u[j] + sv * v[j];
                }
            for (long i = 0; i < np; i++) cs->area[i] = sz[0] * sz[1] / (double)np;
        }
    }
    cs->desc.npoints = np;
}

/* model, frame index -> the frame's pose at t = 0 (zero twist) */
static void initial_frame(const br_model *m, int fr, br_frame_state *out)
{
    static const double q1[4] = {1, 0, 0, 0};
    const double *x = NULL, *q = q1;
    if (fr >= 1 && fr <= m->nbody) x = m->body[fr - 1].x0, q = m->body[fr - 1].q0;
    else if (fr > m->nbody) x = m->kframe[fr - 1 - m->nbody].x0, q = m->kframe[fr - 1 - m->nbody].q0;
    memset(out, 0, sizeof *out);
    if (x) memcpy(out->x, x, sizeof out->x);
    br_quat_to_R(q, out->R);
}

static void read_contacts(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "body", "surface", "points", "area", "total_area",
                                    "normal", "friction", "v_stick", NULL};
    static const char *const KS[] = {"type", "frame", "point", "normal", "center", "axis", "radius", NULL};
    static const char *const KN[] = {"law", "sigma", "K", "pK", "D", "d_area", "pD", "force", NULL};
    m->nset = seq ? ylen(c, seq, "contacts") : 0;
    m->cset = calloc((size_t)(m->nset ? m->nset : 1), sizeof *m->cset);
    yalloc(c, seq, m->cset);
    if (!m->cset) m->nset = 0;
    if (c->failed) return;
    for (int s = 0; s < m->nset && !c->failed; s++) {
        ynode *n = yitem(c, seq, s);
        br_cset *cs = &m->cset[s];
        br_contact_set_desc *d = &cs->desc;
        if (ykeys(c, n, "a contact set", K)) return;
        yname(c, n, cs->name, "contact set");
        for (int j = 0; j < s; j++)
            ycheck(c, strcmp(m->cset[j].name, cs->name) != 0, yat(c, n, "name"),
                   "duplicate contact set name '%s'", cs->name);
        d->name = cs->name;
        const char *body = ystring(c, n, "body", 1);
        d->frame_a = yframe(c, m, yat(c, n, "body"), body);
        ynode *sf = ymap(c, n, "surface");
        if (!sf) {
            yerr(c, n, "missing key 'surface'");
            return;
        }
        if (ykeys(c, sf, "surface", KS)) return;
        const char *type = ystring(c, sf, "type", 1);
        if (c->failed) return;
        d->surface = !strcmp(type, "sphere") ? BR_SURF_SPHERE : !strcmp(type, "cylinder") ? BR_SURF_CYLINDER : 0;
        ycheck(c, !strcmp(type, "plane") || d->surface != BR_SURF_PLANE, yat(c, sf, "type"),
               "surface type '%s' is not supported (plane, sphere, cylinder)", type);
        const char *fr = ystring(c, sf, "frame", 0);
        d->frame_b = fr ? yframe(c, m, yat(c, sf, "frame"), fr) : 0;
        ycheck(c, d->frame_a != d->frame_b, sf, "points and surface are on the same frame");
        static const double z3[3] = {0, 0, 0}, ez[3] = {0, 0, 1};
        if (d->surface == BR_SURF_PLANE) {
            static const char *const KP[] = {"type", "frame", "point", "normal", NULL};
            if (ykeys(c, sf, "a plane surface", KP)) return;
            yvec(c, sf, "point", 3, 0, z3, d->plane_p);
            yunit(c, sf, "normal", NULL, d->plane_n);
        } else {
            /* sphere: centre and radius; cylinder: a point of the axis, the axis, the radius */
            static const char *const KSp[] = {"type", "frame", "center", "radius", NULL};
            static const char *const KCy[] = {"type", "frame", "center", "axis", "radius", NULL};
            const int sph = d->surface == BR_SURF_SPHERE;
            if (ykeys(c, sf, sph ? "a sphere surface" : "a cylinder surface", sph ? KSp : KCy)) return;
            yvec(c, sf, "center", 3, 1, NULL, d->plane_p);
            if (sph) memcpy(d->plane_n, ez, sizeof ez);
            else yunit(c, sf, "axis", NULL, d->plane_n);
            d->radius = ynum(c, sf, "radius", 1, 0);
            ycheck(c, d->radius > 0, yat(c, sf, "radius"), "radius must be > 0 (got %g)", d->radius);
        }
        static const char *const need[] = {"points", "normal", "friction"};
        for (int k = 0; k < 3; k++)
            if (!ymap(c, n, need[k])) yerr(c, n, "missing key '%s' in contact set '%s'", need[k], cs->name);
        read_points(c, ymap(c, n, "points"), cs);
        if (c->failed) return;
        if (cs->meshed) {
            /* the meshed face must face the counter surface at t = 0: its mean outward normal
             * against the surface normal at the face's centroid (br_kin, as the field sees it) */
            br_frame_state A, B;
            initial_frame(m, d->frame_a, &A);
            initial_frame(m, d->frame_b, &B);
            double rc[3] = {0, 0, 0}, na[3];
            for (long i = 0; i < d->npoints; i++)
                for (int j = 0; j < 3; j++) rc[j] += cs->r[3 * i + j] / (double)d->npoints;
            br_set_frame sf;
            br_point_kin k;
            br_set_frame_build(d, &A, &B, &sf);
            br_kin(sf.surface, &sf, rc, &k);
            br_mat3_vec(A.R, cs->mesh_normal, na);
            const double cosang = br_dot3(na, k.n);
            ycheck(c, cosang < 0, yat(c, ymap(c, n, "points"), "mesh"),
                   "the meshed face points away from the surface (its triangles' normals, averaged, make "
                   "%.3g deg with the surface normal; they must face it)",
                   acos(fmax(-1, fmin(1, -cosang))) * 180 / M_PI);
            if (c->failed) return;
        }
        const long np = d->npoints;
        cs->K = malloc((size_t)np * sizeof(double));
        cs->D = malloc((size_t)np * sizeof(double));
        yalloc(c, n, cs->K), yalloc(c, n, cs->D);
        if (c->failed) return;
        /* areas: `area` for every point, or `total_area` shared in proportion to the generator's
         * own areas (grid, annulus) or equally (ring, list) */
        ynode *nl = ymap(c, n, "normal");
        if (ykeys(c, nl, "normal", KN)) return;
        const char *nlaw = ystring(c, nl, "law", 0);
        cs->prescribed = nlaw && !strcmp(nlaw, "prescribed");
        ycheck(c, !nlaw || !strcmp(nlaw, "hunt_crossley") || cs->prescribed, yat(c, nl, "law"),
               "normal law '%s' is not supported (hunt_crossley, prescribed)", nlaw ? nlaw : "");
        if (cs->prescribed) {
            /* prescribed total normal force, shared equally: no areas, no normal spring */
            static const char *const KNP[] = {"law", "force", NULL};
            if (ykeys(c, nl, "a prescribed normal force", KNP)) return;
            ynode *fn = ymap(c, nl, "force");
            if (!fn) yerr(c, nl, "missing key 'force' (the prescribed normal force, N)");
            else ytimefn(c, fn, "force", &cs->normal_force);
            ycheck(c, !ymap(c, n, "area") && !ymap(c, n, "total_area"), n,
                   "a set with a prescribed normal force takes no contact areas");
            if (c->failed) return;
            cs->area = cs->area ? cs->area : malloc((size_t)np * sizeof(double));
            yalloc(c, n, cs->area);
            if (c->failed) return;
            for (long i = 0; i < np; i++) cs->K[i] = 0.0, cs->D[i] = 0.0, cs->area[i] = 0.0;
            d->normal.pK = 2.0, d->normal.pD = 0.5;
            d->r = cs->r, d->K = cs->K, d->D = cs->D;
            read_friction(c, ymap(c, n, "friction"), d);
            ycheck(c, !ymap(c, ymap(c, n, "friction"), "kt_area"), yat(c, ymap(c, n, "friction"), "kt_area"),
                   "kt_area needs contact areas (a hunt_crossley normal law); give kt per point");
            d->v_stick = ynum(c, n, "v_stick", 0, 1e-6);
            ycheck(c, d->v_stick >= 0, yat(c, n, "v_stick"), "v_stick must be >= 0");
            continue;
        }
        ycheck(c, !ymap(c, nl, "force"), yat(c, nl, "force"), "'force' needs normal law 'prescribed'");
        ynode *an = ymap(c, n, "area"), *tn = ymap(c, n, "total_area");
        ycheck(c, !(an && tn), n, "give at most one of 'area' (per point) and 'total_area'");
        ycheck(c, an || tn || cs->area, n, "missing key 'area' (tributary area of each point, m^2)");
        if (c->failed) return;
        const int natural = cs->area != NULL;
        if (!natural) cs->area = malloc((size_t)np * sizeof(double));
        yalloc(c, n, cs->area);
        if (c->failed) return;
        double sum = 0.0;
        for (long i = 0; i < np; i++) sum += natural ? cs->area[i] : 1.0;
        const double Ain = an ? ynum_node(c, an, "area") : tn ? ynum_node(c, tn, "total_area") : sum;
        ycheck(c, Ain > 0, an ? an : tn ? tn : n, "contact areas must be > 0 (got %g)", Ain);
        for (long i = 0; i < np; i++)
            cs->area[i] = an ? Ain : Ain * (natural ? cs->area[i] : 1.0) / sum;
        d->normal.pK = ynum(c, nl, "pK", 0, 2.0);
        d->normal.pD = ynum(c, nl, "pD", 0, 0.5 * (d->normal.pK - 1.0));
        ycheck(c, d->normal.pK > 0 && br_pow_half_ok(d->normal.pK), yat(c, nl, "pK"),
               "pK must be a multiple of 0.5 in (0, 4]");
        ycheck(c, br_pow_half_ok(d->normal.pD), yat(c, nl, "pD"), "pD must be a multiple of 0.5 in [0, 4]");
        ynode *sg = ymap(c, nl, "sigma"), *kk = ymap(c, nl, "K");
        ycheck(c, (sg != NULL) != (kk != NULL), nl,
               "give exactly one of 'sigma' (roughness: K = A / sigma^pK) and 'K' (per point)");
        ynode *dd = ymap(c, nl, "D"), *da = ymap(c, nl, "d_area");
        ycheck(c, (dd != NULL) != (da != NULL), nl,
               "give exactly one of 'D' (damping per point) and 'd_area' (per unit area)");
        if (c->failed) return;
        const double sig = sg ? ynum_node(c, sg, "sigma") : 0, K0 = kk ? ynum_node(c, kk, "K") : 0;
        const double D0 = dd ? ynum_node(c, dd, "D") : 0, Da = da ? ynum_node(c, da, "d_area") : 0;
        ycheck(c, !sg || sig > 0, sg, "sigma must be > 0");
        ycheck(c, !kk || K0 > 0, kk, "K must be > 0");
        ycheck(c, D0 >= 0 && Da >= 0, dd ? dd : da, "damping must be >= 0");
        for (long i = 0; i < np && !c->failed; i++) {
            cs->K[i] = sg ? cs->area[i] / pow(sig, d->normal.pK) : K0;
            cs->D[i] = dd ? D0 : Da * cs->area[i];
            /* finite and positive each: sigma 1e-300 or an area of 1e308 overflow K */
            ycheck(c, isfinite(cs->area[i]) && cs->area[i] > 0, an ? an : tn ? tn : n,
                   "point %ld: its contact area (%g m^2) is not a positive finite number", i, cs->area[i]);
            ycheck(c, isfinite(cs->K[i]) && cs->K[i] > 0, sg ? sg : kk,
                   "point %ld: the normal stiffness K = %g is not a positive finite number (area %g m^2%s)", i,
                   cs->K[i], cs->area[i], sg ? "; K = A / sigma^pK" : "");
            ycheck(c, isfinite(cs->D[i]), dd ? dd : da, "point %ld: the normal damping D = %g is not finite", i,
                   cs->D[i]);
        }
        d->r = cs->r, d->K = cs->K, d->D = cs->D;
        read_friction(c, ymap(c, n, "friction"), d);
        if (!c->failed && d->law == BR_LAW_JENKINS && d->fric.kt_K > 0)
            jenkins_kt_area(c, yat(c, ymap(c, n, "friction"), "kt_area"), cs);
        d->v_stick = ynum(c, n, "v_stick", 0, 1e-6);
        ycheck(c, d->v_stick >= 0, yat(c, n, "v_stick"), "v_stick must be >= 0");
    }
}

/* ---- --set overrides ---- */

/* key path "a.b.c" (list items by name or index), add (a value, or NULL), any (1: the node may be a
 * list or mapping) -> the node at that path in *node: 1 found, 2 a key added with value add to the
 * last mapping on the path (only when add is given and only the last segment is missing), 0 not found
 * or not a single value (err set, "what" names the caller) */
static int ynav(ysrc *c, const char *path, const char *add, const char *what, int any, int *node_out)
{
    int node = 1; /* the root */
    char *save = NULL, buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *seg = strtok_r(buf, ".", &save);
    if (!seg) {
        snprintf(c->err, c->errlen, "%s %s: an empty key", what, path);
        c->failed = 1;
        return 0;
    }
    while (seg) {
        char *next = strtok_r(NULL, ".", &save);
        ynode *cur = yget(c, node);
        int found = 0;
        if (cur->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *p = cur->data.mapping.pairs.start; p < cur->data.mapping.pairs.top; p++) {
                ynode *k = yget(c, p->key);
                if (is_scalar(k) && !strcmp(ystr(k), seg)) node = p->value, found = 1;
            }
            if (!found && !next && add) { /* add a new key to this mapping */
                const yaml_mark_t mark = cur->start_mark;
                const int kn = yaml_document_add_scalar(&c->doc, NULL, (yaml_char_t *)seg, -1,
                                                        YAML_PLAIN_SCALAR_STYLE);
                const int vn = yaml_document_add_scalar(&c->doc, NULL, (yaml_char_t *)add, -1,
                                                        YAML_PLAIN_SCALAR_STYLE);
                if (!kn || !vn || !yaml_document_append_mapping_pair(&c->doc, node, kn, vn)) {
                    snprintf(c->err, c->errlen, "%s %s: out of memory", what, path);
                    c->failed = 1;
                    return 0;
                }
                yget(c, kn)->start_mark = yget(c, vn)->start_mark = mark;
                node = vn;
                found = 2;
            }
        } else if (cur->type == YAML_SEQUENCE_NODE) {
            const int len = (int)(cur->data.sequence.items.top - cur->data.sequence.items.start);
            char *end;
            const long idx = strtol(seg, &end, 10);
            if (!*end && end != seg && idx >= 0 && idx < len) {
                node = cur->data.sequence.items.start[idx], found = 1;
            } else {
                for (int k = 0; k < len; k++) {
                    ynode *it = yget(c, cur->data.sequence.items.start[k]);
                    ynode *nm = ymap(c, it, "name");
                    if (is_scalar(nm) && !strcmp(ystr(nm), seg)) node = cur->data.sequence.items.start[k], found = 1;
                }
            }
        }
        if (!found) {
            snprintf(c->err, c->errlen, "%s %s: no '%s' in the scenario at %s:%ld", what, path, seg, c->file,
                     (long)cur->start_mark.line + 1);
            c->failed = 1;
            return 0;
        }
        if (!next) {
            ynode *t = yget(c, node);
            if (t->type != YAML_SCALAR_NODE && !any) {
                snprintf(c->err, c->errlen, "%s %s: %s:%ld holds a list or mapping, not a single value", what,
                         path, c->file, (long)t->start_mark.line + 1);
                c->failed = 1;
                return 0;
            }
            *node_out = node;
            return found;
        }
        seg = next;
    }
    return 0;
}

/* "a.b.c=value" -> the scalar at that path replaced (or added to an existing mapping) */
static void apply_set(ysrc *c, const char *kv)
{
    if (c->failed) return;
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        snprintf(c->err, c->errlen, "--set %s: expected KEY=VALUE", kv);
        c->failed = 1;
        return;
    }
    char path[256];
    if (eq - kv >= (long)sizeof path) {
        snprintf(c->err, c->errlen, "--set %.40s...: the key is too long", kv);
        c->failed = 1;
        return;
    }
    snprintf(path, sizeof path, "%.*s", (int)(eq - kv), kv);
    if (path[0] == '.' || path[strlen(path) - 1] == '.' || strstr(path, "..")) {
        snprintf(c->err, c->errlen, "--set %s: a key path is names joined by single dots (a.b.c)", kv);
        c->failed = 1;
        return;
    }
    const char *val = eq + 1;
    int node = 0;
    const int found = ynav(c, path, val, "--set", 0, &node);
    if (!found) return;
    if (found == 1) {
        ynode *t = yget(c, node);
        yaml_char_t *copy = (yaml_char_t *)strdup(val);
        if (!copy) {
            snprintf(c->err, c->errlen, "--set %s: out of memory", kv);
            c->failed = 1;
            return;
        }
        free(t->data.scalar.value);
        t->data.scalar.value = copy;
        t->data.scalar.length = strlen(val);
    }
    for (int k = 0; k < found && c->nover < 64; k++) { /* the value; an added key too (node - 1) */
        c->over_node[c->nover] = node - k;
        c->over_key[c->nover++] = kv;
    }
}

/* node -> its i-th child (sequence items, then mapping keys and values in turn), or 0 past the end */
static int ychild(yaml_document_t *doc, int node, int i)
{
    const ynode *n = yaml_document_get_node(doc, node);
    if (n->type == YAML_SEQUENCE_NODE) {
        const long len = n->data.sequence.items.top - n->data.sequence.items.start;
        return i < len ? n->data.sequence.items.start[i] : 0;
    }
    if (n->type == YAML_MAPPING_NODE) {
        const long len = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
        if (i >= 2 * len) return 0;
        const yaml_node_pair_t *p = n->data.mapping.pairs.start + i / 2;
        return i % 2 ? p->value : p->key;
    }
    return 0;
}

/* c->doc -> 0, or -1 with "file:line: ..." when an alias refers to a node that contains it (the
 * readers would recurse without end) or the nesting is deeper than BR_YAML_DEPTH. One depth-first
 * pass with an explicit stack: each node is entered once (aliases shared by several parents are
 * walked once), so the check is linear in the document. */
#define BR_YAML_DEPTH 64
static int ygraph_check(yaml_document_t *doc, const char *path, char *err, size_t errlen)
{
    const int nn = (int)(doc->nodes.top - doc->nodes.start);
    if (nn == 0) return 0;
    unsigned char *state = calloc((size_t)nn + 1, 1); /* 0 new, 1 on the path, 2 done */
    int node[BR_YAML_DEPTH + 1], next[BR_YAML_DEPTH + 1], top = 0, rc = 0;
    if (!state) {
        snprintf(err, errlen, "%s:1: out of memory", path);
        return -1;
    }
    node[0] = 1, next[0] = 0, state[1] = 1;
    while (top >= 0 && rc == 0) {
        const int ch = ychild(doc, node[top], next[top]++);
        if (!ch) {
            state[node[top--]] = 2;
            continue;
        }
        if (state[ch] == 2) continue;
        const long line = (long)yaml_document_get_node(doc, ch)->start_mark.line + 1;
        if (state[ch] == 1) {
            snprintf(err, errlen, "%s:%ld: an alias refers to a node that contains it (a cycle)", path, line);
            rc = -1;
        } else if (top == BR_YAML_DEPTH) {
            snprintf(err, errlen, "%s:%ld: nested deeper than %d levels", path, line, BR_YAML_DEPTH);
            rc = -1;
        } else {
            state[ch] = 1, node[++top] = ch, next[top] = 0;
        }
    }
    free(state);
    return rc;
}

/* text -> 0, or the 1-based line where flow brackets ([ {) open deeper than 256 levels. libyaml's
 * parser takes time quadratic in the nesting (100000 levels: 18 s), so such text is refused before
 * it is parsed; quoted strings and comments are skipped (approximately: a quote opens a string
 * only where a value can start), and the exact limit is ygraph_check's after the parse. */
static long yprescan(const char *t, size_t len)
{
    long line = 1;
    int depth = 0;
    char quote = 0, prev = '\n';
    for (size_t i = 0; i < len; prev = t[i++]) {
        const char ch = t[i];
        if (ch == '\n') line++;
        if (quote) {
            if (ch == quote || (ch == '\n' && quote == '#')) quote = 0;
            else if (ch == '\\' && quote == '"' && i + 1 < len) i++;
            continue;
        }
        const int at_start = prev == '\n' || prev == ' ' || prev == '\t' || prev == '[' || prev == '{' ||
                             prev == ',' || prev == ':';
        if ((ch == '\'' || ch == '"') && at_start) quote = ch;
        else if (ch == '#' && (prev == '\n' || prev == ' ' || prev == '\t')) quote = '#';
        else if (ch == '[' || ch == '{') {
            if (++depth > 256) return line;
        } else if ((ch == ']' || ch == '}') && depth > 0) depth--;
    }
    return 0;
}

/* path (for messages), text -> c with the document loaded (c->file, err set); 0, or -1 with
 * "file:line: not valid YAML: ..." in err (nothing to free) */
int br_yaml_load(yaml_document_t *doc, const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s:1: cannot initialise the YAML parser", path);
        return -1;
    }
    const long deep = yprescan(text, len);
    if (deep) {
        snprintf(err, errlen, "%s:%ld: nested deeper than %d levels", path, deep, BR_YAML_DEPTH);
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, doc)) {
        const yaml_mark_t mk = parser.problem_mark;
        snprintf(err, errlen, "%s:%ld: not valid YAML: %s%s%s", path, (long)mk.line + 1,
                 parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
                 parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_parser_delete(&parser);
    if (ygraph_check(doc, path, err, errlen)) {
        yaml_document_delete(doc);
        return -1;
    }
    return 0;
}

/* path (for messages), text -> c with the document loaded (c->file, err set); 0, or -1 with
 * "file:line: ..." in err (nothing to free) */
static int yload(ysrc *c, const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->file = path, c->err = err, c->errlen = errlen;
    return br_yaml_load(&c->doc, path, text, len, err, errlen);
}

int br_scenario_number(const char *path, const char *text, size_t len, const char *key, double *value, long *line,
                       char *err, size_t errlen)
{
    ysrc c;
    if (yload(&c, path, text, len, err, errlen)) return -1;
    if (!yaml_document_get_root_node(&c.doc)) {
        snprintf(err, errlen, "%s:1: the scenario file is empty", path);
        yaml_document_delete(&c.doc);
        return -1;
    }
    int node = 0, rc = -1;
    if (ynav(&c, key, NULL, "key", 0, &node)) {
        ynode *t = yget(&c, node);
        char *end;
        errno = 0;
        *value = strtod(ystr(t), &end);
        if (line) *line = (long)t->start_mark.line + 1;
        if (end != ystr(t) && !*end && errno == 0 && isfinite(*value)) rc = 0;
        else snprintf(err, errlen, "%s:%ld: %s is '%s', not a number", path, (long)t->start_mark.line + 1, key,
                      ystr(t));
    }
    yaml_document_delete(&c.doc);
    return rc;
}

long br_scenario_line(const char *path, const char *text, size_t len, const char *key)
{
    ysrc c;
    char err[512];
    if (yload(&c, path, text, len, err, sizeof err)) return 1;
    int node = 0;
    long line = 1;
    if (yaml_document_get_root_node(&c.doc) && ynav(&c, key, NULL, "key", 1, &node))
        line = (long)yget(&c, node)->start_mark.line + 1;
    yaml_document_delete(&c.doc);
    return line;
}

void br_model_free(br_model *m)
{
    if (!m) return;
    free(m->field_times);
    for (int k = 0; k < m->nkframe; k++)
        for (int j = 0; j < 3; j++) br_timefn_free(&m->kframe[k].disp[j]);
    for (int l = 0; l < m->nload; l++) br_timefn_free(&m->load[l].mag);
    for (int b = 0; b < m->nbeam; b++) free(m->beam[b].X), free(m->beam[b].fix);
    free(m->beam);
    for (int s = 0; s < m->nset; s++) {
        free(m->cset[s].r), free(m->cset[s].K), free(m->cset[s].D), free(m->cset[s].area);
        free(m->cset[s].surf_v), free(m->cset[s].surf_t);
        br_timefn_free(&m->cset[s].normal_force);
    }
    for (int k = 0; k < m->nrot; k++) br_timefn_free(&m->rot[k].u);
    free(m->body), free(m->kframe), free(m->load), free(m->spring), free(m->cset), free(m->rot);
    br_drivetrain_free(&m->drive);
    free(m);
}

/* path -> scenario name: file name without directory and .yaml/.yml */
static void base_name(const char *path, char out[BR_NAME_MAX])
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, BR_NAME_MAX, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"))) *dot = 0;
}

br_model *br_scenario_parse(const char *path, const char *text, size_t len, const char *const *sets,
                            int nsets, char *err, size_t errlen)
{
    ysrc c;
    if (yload(&c, path, text, len, err, errlen)) return NULL;
    ynode *root = yaml_document_get_root_node(&c.doc);
    if (!root || (is_scalar(root) && root->data.scalar.length == 0)) {
        snprintf(err, errlen, "%s:1: the scenario file is empty", path);
        yaml_document_delete(&c.doc);
        return NULL;
    }
    br_model *m = calloc(1, sizeof *m);
    static const char *const K[] = {"name", "description", "time", "output", "backend", "gravity", "beams",
                                    "bodies", "frames", "loads", "springs", "contacts",
                                    "rotational_friction", "drivetrain", NULL};
    if (!m) {
        snprintf(err, errlen, "%s:1: out of memory", path);
        yaml_document_delete(&c.doc);
        return NULL;
    }
    /* overrides first, so that a key they add is checked like the file's own (every mapping's
     * reader lists its keys) */
    if (root->type == YAML_MAPPING_NODE)
        for (int k = 0; k < nsets; k++) apply_set(&c, sets[k]);
    root = yaml_document_get_root_node(&c.doc); /* adding nodes may have moved the node array */
    ykeys(&c, root, "the scenario", K);
    snprintf(m->source, sizeof m->source, "%s", path);
    base_name(path, m->name);
    const char *nm = ystring(&c, root, "name", 0);
    if (nm) snprintf(m->name, sizeof m->name, "%s", nm);
    /* the name becomes a folder under runs/: a portable file name, never a path */
    const int name_ok = br_portable_name(nm ? nm : m->name, sizeof m->name);
    if (nm) ycheck(&c, name_ok, yat(&c, root, "name"),
                   "name '%s' must be a file name of 1-%d letters, digits, '_', '-' or '.' (not . or ..)", nm,
                   (int)sizeof m->name - 1);
    else ycheck(&c, name_ok, root,
                "the file name '%s' is not a portable run name (letters, digits, '_', '-', '.'): give a name: key",
                m->name);
    ynode *tm = ymap(&c, root, "time");
    static const char *const KT[] = {"end", "dt", "rho_inf", "coupling", "adaptive", "rtol", "atol",
                                     "energy_tolerance", NULL};
    if (!tm) yerr(&c, root, "missing key 'time' (end, dt)");
    else if (ykeys(&c, tm, "time", KT) == 0) {
        m->t_end = ynum(&c, tm, "end", 1, 0);
        m->dt = ynum(&c, tm, "dt", 1, 0);
        m->rho_inf = ynum(&c, tm, "rho_inf", 0, 0.0);
        ycheck(&c, m->rho_inf >= 0 && m->rho_inf <= 1, yat(&c, tm, "rho_inf"), "rho_inf must lie in [0, 1]");
        const char *cp = ystring(&c, tm, "coupling", 0);
        ycheck(&c, !cp || !strcmp(cp, "implicit") || !strcmp(cp, "explicit"), yat(&c, tm, "coupling"),
               "coupling must be implicit or explicit (got '%s')", cp ? cp : "");
        m->coupling = cp && !strcmp(cp, "explicit") ? BR_COUPLING_EXPLICIT : BR_COUPLING_IMPLICIT;
        /* substeps need the tangents the implicit coupling brings: explicit runs keep fixed steps */
        m->adaptive = ybool(&c, tm, "adaptive", m->coupling == BR_COUPLING_IMPLICIT);
        ycheck(&c, !(m->adaptive && m->coupling == BR_COUPLING_EXPLICIT), yat(&c, tm, "adaptive"),
               "adaptive substeps need coupling: implicit (their error estimate is the linearized contact's)");
        m->rtol = ynum(&c, tm, "rtol", 0, 1e-3);
        m->atol = ynum(&c, tm, "atol", 0, 1e-6);
        m->energy_tol = ynum(&c, tm, "energy_tolerance", 0, 0.01);
        ycheck(&c, m->rtol > 0 && m->rtol < 1, yat(&c, tm, "rtol"), "rtol must lie in (0, 1) (got %g)", m->rtol);
        ycheck(&c, m->atol > 0, yat(&c, tm, "atol"), "atol must be > 0 [m/s] (got %g)", m->atol);
        ycheck(&c, m->energy_tol > 0, yat(&c, tm, "energy_tolerance"), "energy_tolerance must be > 0 (got %g)",
               m->energy_tol);
        ycheck(&c, m->dt > 0, yat(&c, tm, "dt"), "dt must be > 0 (got %g)", m->dt);
        ycheck(&c, m->t_end > 0, yat(&c, tm, "end"), "end must be > 0 (got %g)", m->t_end);
        ycheck(&c, m->t_end / m->dt < 1e12, yat(&c, tm, "dt"), "more than 1e12 steps");
    }
    ynode *out = ymap(&c, root, "output");
    static const char *const KO[] = {"interval", "points", "points_interval", "loop_window", "fields", "plots", "format",
                                     NULL};
    if (out) ykeys(&c, out, "output", KO);
    /* default sampling: every 1e-4 s, or every step when dt is longer */
    const double def_int = m->dt > 0 ? m->dt * fmax(1.0, nearbyint(1e-4 / m->dt)) : 1e-4;
    m->out_interval = ynum(&c, out, "interval", 0, def_int);
    m->out_points = ybool(&c, out, "points", 0);
    m->out_plots = ybool(&c, out, "plots", 1);
    const double pint = ynum(&c, out, "points_interval", 0, m->out_interval);
    /* loop plots: default the last tenth of the run, at most 0.2 s */
    const double lw = fmin(0.2, 0.1 * m->t_end), defw[2] = {m->t_end - lw, m->t_end};
    double win[2];
    yvec(&c, out, "loop_window", 2, 0, defw, win);
    ycheck(&c, win[1] > win[0], yat(&c, out, "loop_window"), "loop_window must be [t0, t1] with t1 > t0");
    m->loop_t0 = win[0], m->loop_t1 = win[1];
    /* format: csv (timeseries.csv, fields/<set>_<k>.vtp) or hdf5 (run.h5 and run.xdmf) */
    const char *fmt = ystring(&c, out, "format", 0);
    ycheck(&c, !fmt || !strcmp(fmt, "csv") || !strcmp(fmt, "hdf5"), yat(&c, out, "format"),
           "format must be csv or hdf5 (got '%s')", fmt ? fmt : "");
    m->out_format = fmt && !strcmp(fmt, "hdf5") ? BR_FORMAT_HDF5 : BR_FORMAT_CSV;
    ycheck(&c, m->out_format != BR_FORMAT_HDF5 || br_h5_available(), yat(&c, out, "format"),
           "format hdf5: this build has no HDF5 (install libhdf5-dev, then cmake again)");
    /* fields: times of per-point snapshots of meshed sets (VTK files and maps, or run.h5): a list of
     * times, or {interval: dt_f, from: t0} for t0, t0 + dt_f, ... up to time.end */
    ynode *fl = ymap(&c, out, "fields");
    if (fl && fl->type == YAML_MAPPING_NODE) {
        static const char *const KF[] = {"interval", "from", NULL};
        ykeys(&c, fl, "fields", KF);
        const double fi = ynum(&c, fl, "interval", 1, 0), f0 = ynum(&c, fl, "from", 0, 0.0);
        ycheck(&c, fi > 0, yat(&c, fl, "interval"), "fields: interval must be > 0");
        ycheck(&c, f0 >= 0 && f0 <= m->t_end, yat(&c, fl, "from"), "fields: from must lie in [0, time.end]");
        const double nf = fi > 0 ? floor((m->t_end - f0) / fi * (1 + 1e-12)) + 1 : 0;
        ycheck(&c, nf <= BR_MAX_FIELD_TIMES, fl, "fields: %.0f snapshots, at most %d", nf, BR_MAX_FIELD_TIMES);
        if (!c.failed) {
            m->field_times = malloc((size_t)nf * sizeof(double));
            ycheck(&c, m->field_times != NULL, fl, "out of memory");
            for (long k = 0; k < (long)nf && m->field_times; k++) m->field_times[m->nfield_times++] = f0 + k * fi;
        }
    } else if (fl) {
        const int nf = ylen(&c, fl, "fields");
        ycheck(&c, nf <= BR_MAX_FIELD_TIMES, fl, "at most %d field snapshot times", BR_MAX_FIELD_TIMES);
        if (!c.failed && nf > 0) {
            m->field_times = malloc((size_t)nf * sizeof(double));
            ycheck(&c, m->field_times != NULL, fl, "out of memory");
        }
        for (int k = 0; k < nf && m->field_times && !c.failed; k++) {
            const double tk = ynum_node(&c, yitem(&c, fl, k), "fields");
            ycheck(&c, tk >= 0 && tk <= m->t_end && (k == 0 || tk > m->field_times[k - 1]), yitem(&c, fl, k),
                   "field times must increase and lie in [0, time.end]");
            m->field_times[m->nfield_times++] = tk;
        }
    }
    if (!c.failed && m->dt > 0) {
        const double r = m->out_interval / m->dt, rp = pint / m->dt;
        ycheck(&c, r < 1e12 && rp < 1e12, yat(&c, out, "interval"), "an output interval of more than 1e12 steps");
        ycheck(&c, m->out_interval > 0 && fabs(r - nearbyint(r)) < 1e-6 * r && r >= 0.5,
               yat(&c, out, "interval"), "output interval (%g) must be a positive multiple of dt (%g)",
               m->out_interval, m->dt);
        ycheck(&c, pint > 0 && fabs(rp - nearbyint(rp)) < 1e-6 * rp && rp >= 0.5,
               yat(&c, out, "points_interval"), "points_interval (%g) must be a positive multiple of dt (%g)",
               pint, m->dt);
        if (!c.failed) { /* in range: checked above */
            m->out_every = (long)nearbyint(r);
            m->points_every = (long)nearbyint(rp);
        }
    }
    const char *be = ystring(&c, root, "backend", 0);
    m->backend = BR_BACKEND_AUTO;
    if (be) {
        if (!strcmp(be, "cpu")) m->backend = BR_BACKEND_CPU;
        else if (!strcmp(be, "cuda")) m->backend = BR_BACKEND_CUDA;
        else ycheck(&c, !strcmp(be, "auto"), yat(&c, root, "backend"), "backend must be auto, cpu or cuda");
    }
    static const double z3[3] = {0, 0, 0};
    yvec(&c, root, "gravity", 3, 0, z3, m->gravity);
    read_beams(&c, ymap(&c, root, "beams"), m);
    read_bodies(&c, ymap(&c, root, "bodies"), m);
    read_frames(&c, ymap(&c, root, "frames"), m);
    read_loads(&c, ymap(&c, root, "loads"), m);
    read_springs(&c, ymap(&c, root, "springs"), m);
    read_contacts(&c, ymap(&c, root, "contacts"), m);
    read_rotational(&c, ymap(&c, root, "rotational_friction"), m);
    read_drivetrain(&c, ymap(&c, root, "drivetrain"), m);
    ycheck(&c, m->nbody + m->nkframe + m->nbeam > 0 || m->nset > 0 || m->drive.nshaft > 0, root,
           "the scenario has no bodies, beams, contacts or drivetrain");
    yaml_document_delete(&c.doc);
    if (c.failed) {
        br_model_free(m);
        return NULL;
    }
    return m;
}

br_model *br_scenario_load(const char *path, const char *const *sets, int nsets, char *err, size_t errlen)
{
    size_t len;
    char *buf = br_read_text(path, &len, err, errlen);
    if (!buf) return NULL;
    br_model *m = br_scenario_parse(path, buf, len, sets, nsets, err, errlen);
    free(buf);
    return m;
}
