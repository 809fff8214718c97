/* yread.h: YAML documents read with line marks and sticky errors (in: a file's text, a node; out:
 * values checked for type and range, or the first error as "file:line: message"), with the guards a
 * hostile file meets (nesting, alias expansion, memory). The scenario and study readers' base. */
#ifndef BR_YREAD_H
#define BR_YREAD_H

#include <stddef.h>
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

/* document index -> its node */
ynode *br_yget(ysrc *c, int idx);

/* node, message -> first error kept as "file:line: message" */
void br_yerr(ysrc *c, const ynode *n, const char *fmt, ...);

/* scalar node -> its text */
const char *br_ystr(const ynode *n);

/* node -> 1 if it is a scalar */
int br_is_scalar(const ynode *n);

/* mapping, key -> value node or NULL */
ynode *br_ymap(ysrc *c, ynode *map, const char *key);

/* node must be a mapping whose keys are all in allowed (NULL-terminated) and unique */
int br_ykeys(ysrc *c, ynode *map, const char *what, const char *const *allowed);

/* scalar node -> finite double, or error */
double br_ynum_node(ysrc *c, ynode *n, const char *key);

/* map[key] -> number; missing: error if required, else def */
double br_ynum(ysrc *c, ynode *map, const char *key, int required, double def);

/* map[key] -> vector of exactly len numbers into out (def copied when optional and missing) */
void br_yvec(ysrc *c, ynode *map, const char *key, int len, int required, const double *def, double *out);

/* map[key] -> string (NULL if missing; error if required) */
const char *br_ystring(ysrc *c, ynode *map, const char *key, int required);

/* map[key] -> true or false (def when missing), or an error */
int br_ybool(ysrc *c, ynode *map, const char *key, int def);

/* condition, node -> error "msg" at node when the condition fails */
void br_ycheck(ysrc *c, int ok, ynode *n, const char *fmt, ...);

/* map[key] node, or the map itself when the key is missing (for messages) */
ynode *br_yat(ysrc *c, ynode *map, const char *key);

/* list node -> number of items (error if not a list) */
int br_ylen(ysrc *c, ynode *n, const char *what);

/* sequence, k -> its k-th item */
ynode *br_yitem(ysrc *c, ynode *seq, int k);

/* map -> q (w, x, y, z) from `orientation`, default identity; an error unless a unit quaternion */
void br_yorientation(ysrc *c, ynode *map, double q[4]);

/* points or DOF about to be allocated -> an error at node when the scenario so far would need more
 * memory than the process can have (memory.h): contact points at BR_BYTES_PER_POINT, the structure's
 * dense matrices (M, C, K, the effective inverse, eigenanalysis copies: about 12 n^2 doubles) */
void br_yguard(ysrc *c, ynode *at, double npoints, double ndof);

/* pointer just allocated -> an "out of memory" error at node when it is NULL */
void br_yalloc(ysrc *c, ynode *at, const void *p);

/* path (for messages), text -> c with the document loaded (c->file, err set); 0, or -1 with
 * "file:line: ..." in err (nothing to free) */
int br_yload(ysrc *c, const char *path, const char *text, size_t len, char *err, size_t errlen);

/* path (for messages), text -> *doc loaded with libyaml (the caller deletes it); 0, or -1 with
 * "file:line: message" in err and nothing to delete: not YAML, nested deeper than 64 levels, or an
 * alias that refers to a node containing it. Every YAML file Bristle reads goes through here. */
int br_yaml_load(yaml_document_t *doc, const char *path, const char *text, size_t len, char *err, size_t errlen);

#endif
