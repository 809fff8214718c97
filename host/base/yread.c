/* yread.c: YAML documents (libyaml's document API: a node tree with line marks) read with sticky
 * errors: the first one is kept, later reads return defaults, the caller sees "file:line: message";
 * the guards on nesting depth, alias expansion and the memory a document asks for. */
#include "base/yread.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/parse.h"

ynode *br_yget(ysrc *c, int idx) { return yaml_document_get_node(&c->doc, idx); }

static int yindex(ysrc *c, const ynode *n) { return (int)(n - c->doc.nodes.start) + 1; }

/* node, message -> first error kept as "file:line: message" */
void br_yerr(ysrc *c, const ynode *n, const char *fmt, ...)
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

const char *br_ystr(const ynode *n) { return (const char *)n->data.scalar.value; }

int br_is_scalar(const ynode *n) { return n && n->type == YAML_SCALAR_NODE; }

/* mapping, key -> value node or NULL */
ynode *br_ymap(ysrc *c, ynode *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        ynode *k = br_yget(c, p->key);
        if (br_is_scalar(k) && !strcmp(br_ystr(k), key)) return br_yget(c, p->value);
    }
    return NULL;
}

/* node must be a mapping whose keys are all in allowed (NULL-terminated) and unique */
int br_ykeys(ysrc *c, ynode *map, const char *what, const char *const *allowed)
{
    if (c->failed) return -1;
    if (!map || map->type != YAML_MAPPING_NODE) {
        br_yerr(c, map, "%s must be a mapping (key: value lines)", what);
        return -1;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        ynode *k = br_yget(c, p->key);
        if (!br_is_scalar(k)) {
            br_yerr(c, k, "%s: keys must be plain words", what);
            return -1;
        }
        int ok = 0;
        for (const char *const *a = allowed; *a; a++) ok |= !strcmp(*a, br_ystr(k));
        if (!ok) {
            char list[400] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            br_yerr(c, k, "unknown key '%s' in %s (expected one of: %s)", br_ystr(k), what, list);
            return -1;
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (!strcmp(br_ystr(br_yget(c, q->key)), br_ystr(k))) {
                br_yerr(c, k, "duplicate key '%s' in %s", br_ystr(k), what);
                return -1;
            }
    }
    return 0;
}

/* scalar node -> finite double, or error */
double br_ynum_node(ysrc *c, ynode *n, const char *key)
{
    if (c->failed) return 0.0;
    if (!br_is_scalar(n)) {
        br_yerr(c, n, "%s: expected a number", key);
        return 0.0;
    }
    const char *s = br_ystr(n);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end && isspace((unsigned char)*end)) end++;
    if (end == s || *end || errno == ERANGE || !isfinite(v)) {
        br_yerr(c, n, "%s: expected a finite number, got '%s'", key, s);
        return 0.0;
    }
    return v;
}

/* map[key] -> number; missing: error if required, else def */
double br_ynum(ysrc *c, ynode *map, const char *key, int required, double def)
{
    ynode *n = br_ymap(c, map, key);
    if (!n) {
        if (required) br_yerr(c, map, "missing key '%s'", key);
        return def;
    }
    return br_ynum_node(c, n, key);
}

/* map[key] -> vector of exactly len numbers into out (def copied when optional and missing) */
void br_yvec(ysrc *c, ynode *map, const char *key, int len, int required, const double *def,
                 double *out)
{
    ynode *n = br_ymap(c, map, key);
    if (!n) {
        if (required) br_yerr(c, map, "missing key '%s'", key);
        else if (def) memcpy(out, def, (size_t)len * sizeof(double));
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top - n->data.sequence.items.start != len) {
        br_yerr(c, n, "%s: expected a list of %d numbers", key, len);
        return;
    }
    for (int k = 0; k < len; k++) out[k] = br_ynum_node(c, br_yget(c, n->data.sequence.items.start[k]), key);
}

/* map[key] -> string (NULL if missing; error if required) */
const char *br_ystring(ysrc *c, ynode *map, const char *key, int required)
{
    ynode *n = br_ymap(c, map, key);
    if (!n) {
        if (required) br_yerr(c, map, "missing key '%s'", key);
        return NULL;
    }
    if (!br_is_scalar(n)) {
        br_yerr(c, n, "%s: expected a word", key);
        return NULL;
    }
    return br_ystr(n);
}

int br_ybool(ysrc *c, ynode *map, const char *key, int def)
{
    ynode *n = br_ymap(c, map, key);
    if (!n) return def;
    const char *s = br_is_scalar(n) ? br_ystr(n) : "";
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) return 1;
    if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) return 0;
    br_yerr(c, n, "%s: expected true or false", key);
    return def;
}

/* condition, node -> error "msg" at node when the condition fails */
void br_ycheck(ysrc *c, int ok, ynode *n, const char *fmt, ...)
{
    if (ok || c->failed) return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    br_yerr(c, n, "%s", msg);
}

/* map[key] node, or the map itself when the key is missing (for messages) */
ynode *br_yat(ysrc *c, ynode *map, const char *key)
{
    ynode *n = br_ymap(c, map, key);
    return n ? n : map;
}

/* list node -> number of items (error if not a list) */
int br_ylen(ysrc *c, ynode *n, const char *what)
{
    if (c->failed) return 0;
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        br_yerr(c, n, "%s must be a list (lines starting with '-')", what);
        return 0;
    }
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

ynode *br_yitem(ysrc *c, ynode *seq, int k) { return br_yget(c, seq->data.sequence.items.start[k]); }

/* map -> q (w, x, y, z) from `orientation`, default identity; an error unless a unit quaternion */
void br_yorientation(ysrc *c, ynode *map, double q[4])
{
    static const double q1[4] = {1, 0, 0, 0};
    br_yvec(c, map, "orientation", 4, 0, q1, q);
    const double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    br_ycheck(c, fabs(qn - 1.0) < 1e-9, br_yat(c, map, "orientation"),
           "orientation must be a unit quaternion (w, x, y, z); its norm is %.17g", qn);
}

/* points or DOF about to be allocated -> an error at node when the scenario so far would need more
 * memory than the process can have (memory.h): contact points at BR_BYTES_PER_POINT, the structure's
 * dense matrices (M, C, K, the effective inverse, eigenanalysis copies: about 12 n^2 doubles) */
void br_yguard(ysrc *c, ynode *at, double npoints, double ndof)
{
    if (c->failed) return;
    c->points += npoints, c->dof += ndof;
    char what[160], msg[400];
    snprintf(what, sizeof what, "the scenario (%.4g contact points, %.4g structure DOF)", c->points, c->dof);
    if (br_mem_check(c->points * BR_BYTES_PER_POINT + 12.0 * 8.0 * c->dof * c->dof, what, msg, sizeof msg))
        br_yerr(c, at, "%s", msg);
}

/* pointer just allocated -> an "out of memory" error at node when it is NULL */
void br_yalloc(ysrc *c, ynode *at, const void *p)
{
    if (!p) br_yerr(c, at, "out of memory");
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
int br_yload(ysrc *c, const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->file = path, c->err = err, c->errlen = errlen;
    return br_yaml_load(&c->doc, path, text, len, err, errlen);
}
