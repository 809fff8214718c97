/* export.c: `bristle export-structure SCENARIO DIR` (export.h): a scenario's structure (its beams, and
 * any structures given as matrices) written as a structure given as matrices, the way an FE code's
 * superelement comes: DIR/M.mtx, K.mtx, C.mtx (Matrix Market, the parts' own matrices without the
 * attached bodies, whose mass the run adds at their nodes as for beams), DIR/nodes.csv (a node per
 * structure node, labelled BEAM.INDEX or STRUCTURE.LABEL, with its rows), and DIR/scenario.yaml: the
 * scenario with `beams:` and `structures:` replaced by the one structure and every attached body's
 * `attach:` naming its node (comments are not carried; relative file paths are made absolute). Read
 * back, the run's matrices are the same numbers in the same order (CHOLMOD writes each value so that it
 * reads back bitwise), so the run gives the same numbers (docs/structures.md). */
#include "cli/export.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/outdir.h"
#include "base/textfile.h"
#include "base/yread.h"
#include "io/matrix_file.h"
#include "io/scenario.h"
#include "model/beam.h"

static int usage(FILE *o)
{
    fprintf(o, "usage: bristle export-structure SCENARIO DIR [--name NAME]\n"
               "  writes the scenario's beams (and structures) as one structure given as matrices: DIR/M.mtx,\n"
               "  K.mtx, C.mtx, nodes.csv, and DIR/scenario.yaml, the scenario that reads them (docs/structures.md)\n");
    return o == stderr ? 2 : 0;
}

typedef struct exporter {
    yaml_document_t *src, dst;
    const br_model *m;
    const char *name;     /* the structure's name */
    char dir[PATH_MAX];   /* the scenario's folder, absolute */
    char (*label)[80];    /* per body: its node's label ("" for a free body) */
    int nnode;            /* the structure's nodes (none: no node table) */
} exporter;

static int add_scalar(exporter *e, const char *s)
{
    return yaml_document_add_scalar(&e->dst, NULL, (yaml_char_t *)s, (int)strlen(s), YAML_ANY_SCALAR_STYLE);
}

static const char *text(yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
}

/* source node idx -> its copy in dst (a relative path under a `file` key made absolute); body >= 0:
 * the mapping is that body's, its `attach` replaced by the structure's node */
static int copy(exporter *e, int idx, int body)
{
    yaml_node_t *n = yaml_document_get_node(e->src, idx);
    if (n->type == YAML_SCALAR_NODE)
        return yaml_document_add_scalar(&e->dst, NULL, n->data.scalar.value, (int)n->data.scalar.length,
                                        n->data.scalar.style);
    if (n->type == YAML_SEQUENCE_NODE) {
        int seq = yaml_document_add_sequence(&e->dst, NULL, n->data.sequence.style);
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
            yaml_document_append_sequence_item(&e->dst, seq, copy(e, *it, -1));
        return seq;
    }
    int map = yaml_document_add_mapping(&e->dst, NULL, n->data.mapping.style);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *key = text(yaml_document_get_node(e->src, p->key));
        yaml_node_t *v = yaml_document_get_node(e->src, p->value);
        int val;
        if (body >= 0 && !strcmp(key, "attach")) {
            const br_body *B = &e->m->body[body];
            val = yaml_document_add_mapping(&e->dst, NULL, YAML_FLOW_MAPPING_STYLE);
            yaml_document_append_mapping_pair(&e->dst, val, add_scalar(e, "structure"), add_scalar(e, e->name));
            yaml_document_append_mapping_pair(&e->dst, val, add_scalar(e, "node"), add_scalar(e, e->label[body]));
            if (B->offset[0] != 0 || B->offset[1] != 0 || B->offset[2] != 0) {
                int seq = yaml_document_add_sequence(&e->dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
                for (int j = 0; j < 3; j++) {
                    char num[32];
                    snprintf(num, sizeof num, "%.17g", B->offset[j]);
                    yaml_document_append_sequence_item(&e->dst, seq, add_scalar(e, num));
                }
                yaml_document_append_mapping_pair(&e->dst, val, add_scalar(e, "offset"), seq);
            }
        } else if (!strcmp(key, "file") && v->type == YAML_SCALAR_NODE && text(v)[0] != '/') {
            char abs[2 * PATH_MAX];
            snprintf(abs, sizeof abs, "%s/%s", e->dir, text(v));
            val = add_scalar(e, abs);
        } else val = copy(e, p->value, -1);
        yaml_document_append_mapping_pair(&e->dst, map, copy(e, p->key, -1), val);
    }
    return map;
}

/* the one structure's entry: {name, mass, stiffness, damping, nodes} in a list */
static int structures_entry(exporter *e)
{
    int seq = yaml_document_add_sequence(&e->dst, NULL, YAML_BLOCK_SEQUENCE_STYLE);
    int map = yaml_document_add_mapping(&e->dst, NULL, YAML_BLOCK_MAPPING_STYLE);
    static const char *const kv[][2] = {
        {"mass", "M.mtx"}, {"stiffness", "K.mtx"}, {"damping", "C.mtx"}, {"nodes", "nodes.csv"}};
    yaml_document_append_mapping_pair(&e->dst, map, add_scalar(e, "name"), add_scalar(e, e->name));
    for (int k = 0; k < (e->nnode ? 4 : 3); k++)
        yaml_document_append_mapping_pair(&e->dst, map, add_scalar(e, kv[k][0]), add_scalar(e, kv[k][1]));
    yaml_document_append_sequence_item(&e->dst, seq, map);
    return seq;
}

/* the scenario's document -> DIR/scenario.yaml with the structure in place of its beams */
static int write_scenario(exporter *e, const char *path, char *err, size_t errlen)
{
    if (!yaml_document_initialize(&e->dst, NULL, NULL, NULL, 1, 1)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(e->src);
    int map = yaml_document_add_mapping(&e->dst, NULL, YAML_BLOCK_MAPPING_STYLE), placed = 0;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        const char *key = text(yaml_document_get_node(e->src, p->key));
        if (!strcmp(key, "beams") || !strcmp(key, "structures") || !strcmp(key, "bodies")) {
            if (!placed)
                yaml_document_append_mapping_pair(&e->dst, map, add_scalar(e, "structures"), structures_entry(e));
            placed = 1;
            if (strcmp(key, "bodies")) continue;
            yaml_node_t *b = yaml_document_get_node(e->src, p->value);
            int seq = yaml_document_add_sequence(&e->dst, NULL, b->data.sequence.style);
            int k = 0;
            for (yaml_node_item_t *it = b->data.sequence.items.start; it < b->data.sequence.items.top; it++, k++)
                yaml_document_append_sequence_item(&e->dst, seq, copy(e, *it, k));
            yaml_document_append_mapping_pair(&e->dst, map, copy(e, p->key, -1), seq);
        } else yaml_document_append_mapping_pair(&e->dst, map, copy(e, p->key, -1), copy(e, p->value, -1));
    }
    FILE *fp = fopen(path, "w");
    if (!fp) {
        yaml_document_delete(&e->dst);
        snprintf(err, errlen, "%.1900s: cannot create", path);
        return -1;
    }
    fprintf(fp, "# written by bristle export-structure: the scenario with its structure read from M.mtx, K.mtx,\n"
                "# C.mtx and nodes.csv beside this file\n");
    yaml_emitter_t em;
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output_file(&em, fp);
    yaml_emitter_set_width(&em, 120);
    yaml_emitter_set_unicode(&em, 1);
    int ok = yaml_emitter_open(&em) && yaml_emitter_dump(&em, &e->dst) && yaml_emitter_close(&em);
    yaml_emitter_delete(&em);
    if (fclose(fp) != 0) ok = 0;
    if (!ok) snprintf(err, errlen, "%.1900s: write failed", path);
    return ok ? 0 : -1;
}

int br_export_main(int argc, char **argv)
{
    const char *scen = NULL, *dir = NULL, *name = "structure";
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(stdout);
        if (!strcmp(argv[i], "--name") && i + 1 < argc) name = argv[++i];
        else if (argv[i][0] == '-') return usage(stderr);
        else if (!scen) scen = argv[i];
        else if (!dir) dir = argv[i];
        else return usage(stderr);
    }
    if (!scen || !dir) return usage(stderr);
    for (const char *c = name; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-') || strlen(name) >= 64) {
            fprintf(stderr, "bristle export-structure: --name '%s': letters, digits, _ and - (at most 63)\n", name);
            return 2;
        }
    if (!*name) return usage(stderr);
    char err[2048];
    br_model *m = br_scenario_load(scen, NULL, 0, err, sizeof err);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    br_struct *st = m->nbeam + m->nsup ? br_struct_build_bare(m, err, sizeof err) : NULL;
    if (!st) {
        fprintf(stderr, "%s:1: %s\n", scen, m->nbeam + m->nsup ? err : "no beams or structures to export");
        br_model_free(m);
        return 2;
    }
    exporter e = {.m = m, .name = name};
    br_node_table T = {0};
    yaml_document_t doc;
    int have_doc = 0, rc = 0;
    size_t len = 0;
    char *txt = br_read_text(scen, &len, err, sizeof err);
    if (!txt || br_yaml_load(&doc, scen, txt, len, err, sizeof err)) rc = -1;
    else have_doc = 1, e.src = &doc;
    /* the scenario's folder, absolute: relative file paths in it are made absolute */
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", scen);
    char *slash = strrchr(tmp, '/');
    if (slash) *slash = 0;
    else snprintf(tmp, sizeof tmp, ".");
    if (rc == 0 && !realpath(tmp, e.dir)) rc = -1, snprintf(err, sizeof err, "%s: cannot resolve its folder", scen);
    /* the node table: BEAM.INDEX, STRUCTURE.LABEL */
    T.n = st->nnode;
    T.label = calloc((size_t)T.n + 1, sizeof *T.label);
    T.X = malloc(((size_t)T.n * 3 + 1) * sizeof(double));
    T.row = malloc(((size_t)T.n * 6 + 1) * sizeof(int));
    e.label = calloc((size_t)m->nbody + 1, sizeof *e.label);
    if (rc == 0 && (!T.label || !T.X || !T.row || !e.label)) rc = -1, snprintf(err, sizeof err, "out of memory");
    for (int p = 0; rc == 0 && p < m->nbeam + m->nsup; p++) {
        const int nn = p < m->nbeam ? m->beam[p].nnode : m->sup[p - m->nbeam].nnode;
        for (int k = 0; k < nn; k++) {
            const int g = st->node0[p] + k;
            char lab[256];
            if (p < m->nbeam) snprintf(lab, sizeof lab, "%s.%d", m->beam[p].name, k);
            else snprintf(lab, sizeof lab, "%s.%s", m->sup[p - m->nbeam].name, m->sup[p - m->nbeam].label[k]);
            if (strlen(lab) >= sizeof T.label[g]) {
                rc = -1, snprintf(err, sizeof err, "node label '%s' is longer than %zu characters", lab, sizeof T.label[g] - 1);
                break;
            }
            memcpy(T.label[g], lab, strlen(lab) + 1);
            memcpy(T.X + 3 * g, st->X + 3 * g, sizeof(double[3]));
            memcpy(T.row + 6 * g, st->dof + 6 * g, sizeof(int[6]));
        }
    }
    for (int b = 0; rc == 0 && b < m->nbody; b++)
        if (m->body[b].part >= 0) snprintf(e.label[b], sizeof e.label[b], "%s", T.label[st->node0[m->body[b].part] + m->body[b].node]);
    char path[PATH_MAX + 32];
    if (rc == 0 && br_mkdir_p(dir)) rc = -1, snprintf(err, sizeof err, "%s: cannot create the folder", dir);
    static const char *const mats[] = {"M.mtx", "K.mtx", "C.mtx"};
    const double *A[] = {st->M, st->K, st->C};
    for (int k = 0; k < 3 && rc == 0; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, mats[k]);
        rc = br_matrix_write_sym(path, st->ndof, A[k], err, sizeof err);
    }
    e.nnode = T.n;
    if (rc == 0 && T.n > 0) {
        snprintf(path, sizeof path, "%s/nodes.csv", dir);
        rc = br_nodes_write_csv(path, &T, err, sizeof err);
    }
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/scenario.yaml", dir);
        rc = write_scenario(&e, path, err, sizeof err);
    }
    if (rc) fprintf(stderr, "bristle export-structure: %s\n", err);
    else printf("%s: %d coordinates, %d nodes (M.mtx, K.mtx, C.mtx,%s scenario.yaml)\n", dir, st->ndof, st->nnode,
                st->nnode ? " nodes.csv," : "");
    if (have_doc) yaml_document_delete(&doc);
    free(txt), free(e.label);
    br_node_table_free(&T);
    br_struct_free(st);
    br_model_free(m);
    return rc ? 1 : 0;
}
