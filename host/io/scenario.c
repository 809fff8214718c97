/* scenario.c: YAML scenario -> br_model (in: a file's text and --set overrides; out: the model, or
 * "file:line: message"): the document loaded (base/yread.c), the overrides applied, the parts read
 * in order (io/scenario_parts.c, io/scenario_contacts.c), time and output options; libyaml's
 * document API (node tree with line marks). libyaml rather than libcyaml: the schema checks that
 * matter here (unphysical values, cross references, law-dependent keys) need
 * the line of the offending value, which libcyaml's schema loader does not
 * give back. Errors are sticky: the first one is kept, later reads return
 * defaults, and the caller sees "file:line: message". */
#include "io/scenario.h"
#include "io/scenario_internal.h"

#include "io/h5out.h"
#include "field/field.h" /* br_set_frame_build */
#include "base/parse.h"
#include "base/textfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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
        ynode *cur = br_yget(c, node);
        int found = 0;
        if (cur->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *p = cur->data.mapping.pairs.start; p < cur->data.mapping.pairs.top; p++) {
                ynode *k = br_yget(c, p->key);
                if (br_is_scalar(k) && !strcmp(br_ystr(k), seg)) node = p->value, found = 1;
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
                br_yget(c, kn)->start_mark = br_yget(c, vn)->start_mark = mark;
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
                    ynode *it = br_yget(c, cur->data.sequence.items.start[k]);
                    ynode *nm = br_ymap(c, it, "name");
                    if (br_is_scalar(nm) && !strcmp(br_ystr(nm), seg)) node = cur->data.sequence.items.start[k], found = 1;
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
            ynode *t = br_yget(c, node);
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
        ynode *t = br_yget(c, node);
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

int br_scenario_number(const char *path, const char *text, size_t len, const char *key, double *value, long *line,
                       char *err, size_t errlen)
{
    ysrc c;
    if (br_yload(&c, path, text, len, err, errlen)) return -1;
    if (!yaml_document_get_root_node(&c.doc)) {
        snprintf(err, errlen, "%s:1: the scenario file is empty", path);
        yaml_document_delete(&c.doc);
        return -1;
    }
    int node = 0, rc = -1;
    if (ynav(&c, key, NULL, "key", 0, &node)) {
        ynode *t = br_yget(&c, node);
        char *end;
        errno = 0;
        *value = strtod(br_ystr(t), &end);
        if (line) *line = (long)t->start_mark.line + 1;
        if (end != br_ystr(t) && !*end && errno == 0 && isfinite(*value)) rc = 0;
        else snprintf(err, errlen, "%s:%ld: %s is '%s', not a number", path, (long)t->start_mark.line + 1, key,
                      br_ystr(t));
    }
    yaml_document_delete(&c.doc);
    return rc;
}

long br_scenario_line(const char *path, const char *text, size_t len, const char *key)
{
    ysrc c;
    char err[512];
    if (br_yload(&c, path, text, len, err, sizeof err)) return 1;
    int node = 0;
    long line = 1;
    if (yaml_document_get_root_node(&c.doc) && ynav(&c, key, NULL, "key", 1, &node))
        line = (long)br_yget(&c, node)->start_mark.line + 1;
    yaml_document_delete(&c.doc);
    return line;
}

void br_model_free(br_model *m)
{
    if (!m) return;
    free(m->field_times);
    for (int k = 0; k < m->nkframe; k++)
        for (int j = 0; j < 3; j++) br_timefn_free(&m->kframe[k].disp[j]);
    for (int l = 0; l < m->nload; l++) br_timefn_free(&m->load[l].mag), free(m->load[l].vec);
    for (int b = 0; b < m->nbeam; b++) free(m->beam[b].X), free(m->beam[b].fix);
    free(m->beam);
    for (int k = 0; k < m->nsup; k++) {
        br_superel *S = &m->sup[k];
        free(S->M), free(S->C), free(S->K), free(S->label), free(S->X), free(S->row), free(S->out_node), free(S->out_j);
    }
    free(m->sup);
    for (int s = 0; s < m->nset; s++) {
        free(m->cset[s].r), free(m->cset[s].K), free(m->cset[s].D), free(m->cset[s].area);
        free(m->cset[s].surf_v), free(m->cset[s].surf_t);
        free(m->cset[s].iR), free(m->cset[s].g0), free(m->cset[s].inode), free(m->cset[s].Lp), free(m->cset[s].Lj), free(m->cset[s].Lx);
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
    if (br_yload(&c, path, text, len, err, errlen)) return NULL;
    ynode *root = yaml_document_get_root_node(&c.doc);
    if (!root || (br_is_scalar(root) && root->data.scalar.length == 0)) {
        snprintf(err, errlen, "%s:1: the scenario file is empty", path);
        yaml_document_delete(&c.doc);
        return NULL;
    }
    br_model *m = calloc(1, sizeof *m);
    static const char *const K[] = {"name", "description", "time", "output", "backend", "gravity", "beams", "structures",
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
    br_ykeys(&c, root, "the scenario", K);
    snprintf(m->source, sizeof m->source, "%s", path);
    base_name(path, m->name);
    const char *nm = br_ystring(&c, root, "name", 0);
    if (nm) snprintf(m->name, sizeof m->name, "%s", nm);
    /* the name becomes a folder under runs/: a portable file name, never a path */
    const int name_ok = br_portable_name(nm ? nm : m->name, sizeof m->name);
    if (nm) br_ycheck(&c, name_ok, br_yat(&c, root, "name"),
                   "name '%s' must be a file name of 1-%d letters, digits, '_', '-' or '.' (not . or ..)", nm,
                   (int)sizeof m->name - 1);
    else br_ycheck(&c, name_ok, root,
                "the file name '%s' is not a portable run name (letters, digits, '_', '-', '.'): give a name: key",
                m->name);
    ynode *tm = br_ymap(&c, root, "time");
    static const char *const KT[] = {"end", "dt", "rho_inf", "coupling", "adaptive", "rtol", "atol",
                                     "energy_tolerance", NULL};
    if (!tm) br_yerr(&c, root, "missing key 'time' (end, dt)");
    else if (br_ykeys(&c, tm, "time", KT) == 0) {
        m->t_end = br_ynum(&c, tm, "end", 1, 0);
        m->dt = br_ynum(&c, tm, "dt", 1, 0);
        m->rho_inf = br_ynum(&c, tm, "rho_inf", 0, 0.0);
        br_ycheck(&c, m->rho_inf >= 0 && m->rho_inf <= 1, br_yat(&c, tm, "rho_inf"), "rho_inf must lie in [0, 1]");
        const char *cp = br_ystring(&c, tm, "coupling", 0);
        br_ycheck(&c, !cp || !strcmp(cp, "implicit") || !strcmp(cp, "explicit"), br_yat(&c, tm, "coupling"),
               "coupling must be implicit or explicit (got '%s')", cp ? cp : "");
        m->coupling = cp && !strcmp(cp, "explicit") ? BR_COUPLING_EXPLICIT : BR_COUPLING_IMPLICIT;
        /* substeps need the tangents the implicit coupling brings: explicit runs keep fixed steps */
        m->adaptive = br_ybool(&c, tm, "adaptive", m->coupling == BR_COUPLING_IMPLICIT);
        br_ycheck(&c, !(m->adaptive && m->coupling == BR_COUPLING_EXPLICIT), br_yat(&c, tm, "adaptive"),
               "adaptive substeps need coupling: implicit (their error estimate is the linearized contact's)");
        m->rtol = br_ynum(&c, tm, "rtol", 0, 1e-3);
        m->atol = br_ynum(&c, tm, "atol", 0, 1e-6);
        m->energy_tol = br_ynum(&c, tm, "energy_tolerance", 0, 0.01);
        br_ycheck(&c, m->rtol > 0 && m->rtol < 1, br_yat(&c, tm, "rtol"), "rtol must lie in (0, 1) (got %g)", m->rtol);
        br_ycheck(&c, m->atol > 0, br_yat(&c, tm, "atol"), "atol must be > 0 [m/s] (got %g)", m->atol);
        br_ycheck(&c, m->energy_tol > 0, br_yat(&c, tm, "energy_tolerance"), "energy_tolerance must be > 0 (got %g)",
               m->energy_tol);
        br_ycheck(&c, m->dt > 0, br_yat(&c, tm, "dt"), "dt must be > 0 (got %g)", m->dt);
        br_ycheck(&c, m->t_end > 0, br_yat(&c, tm, "end"), "end must be > 0 (got %g)", m->t_end);
        br_ycheck(&c, m->t_end / m->dt < 1e12, br_yat(&c, tm, "dt"), "more than 1e12 steps");
    }
    ynode *out = br_ymap(&c, root, "output");
    static const char *const KO[] = {"interval", "points", "points_interval", "loop_window", "fields", "plots", "format",
                                     NULL};
    if (out) br_ykeys(&c, out, "output", KO);
    /* default sampling: every 1e-4 s, or every step when dt is longer */
    const double def_int = m->dt > 0 ? m->dt * fmax(1.0, nearbyint(1e-4 / m->dt)) : 1e-4;
    m->out_interval = br_ynum(&c, out, "interval", 0, def_int);
    m->out_points = br_ybool(&c, out, "points", 0);
    m->out_plots = br_ybool(&c, out, "plots", 1);
    const double pint = br_ynum(&c, out, "points_interval", 0, m->out_interval);
    /* loop plots: default the last tenth of the run, at most 0.2 s */
    const double lw = fmin(0.2, 0.1 * m->t_end), defw[2] = {m->t_end - lw, m->t_end};
    double win[2];
    br_yvec(&c, out, "loop_window", 2, 0, defw, win);
    br_ycheck(&c, win[1] > win[0], br_yat(&c, out, "loop_window"), "loop_window must be [t0, t1] with t1 > t0");
    m->loop_t0 = win[0], m->loop_t1 = win[1];
    /* format: csv (timeseries.csv, fields/<set>_<k>.vtp) or hdf5 (run.h5 and run.xdmf) */
    const char *fmt = br_ystring(&c, out, "format", 0);
    br_ycheck(&c, !fmt || !strcmp(fmt, "csv") || !strcmp(fmt, "hdf5"), br_yat(&c, out, "format"),
           "format must be csv or hdf5 (got '%s')", fmt ? fmt : "");
    m->out_format = fmt && !strcmp(fmt, "hdf5") ? BR_FORMAT_HDF5 : BR_FORMAT_CSV;
    br_ycheck(&c, m->out_format != BR_FORMAT_HDF5 || br_h5_available(), br_yat(&c, out, "format"),
           "format hdf5: this build has no HDF5 (install libhdf5-dev, then cmake again)");
    /* fields: times of per-point snapshots of meshed sets (VTK files and maps, or run.h5): a list of
     * times, or {interval: dt_f, from: t0} for t0, t0 + dt_f, ... up to time.end */
    ynode *fl = br_ymap(&c, out, "fields");
    if (fl && fl->type == YAML_MAPPING_NODE) {
        static const char *const KF[] = {"interval", "from", NULL};
        br_ykeys(&c, fl, "fields", KF);
        const double fi = br_ynum(&c, fl, "interval", 1, 0), f0 = br_ynum(&c, fl, "from", 0, 0.0);
        br_ycheck(&c, fi > 0, br_yat(&c, fl, "interval"), "fields: interval must be > 0");
        br_ycheck(&c, f0 >= 0 && f0 <= m->t_end, br_yat(&c, fl, "from"), "fields: from must lie in [0, time.end]");
        const double nf = fi > 0 ? floor((m->t_end - f0) / fi * (1 + 1e-12)) + 1 : 0;
        br_ycheck(&c, nf <= BR_MAX_FIELD_TIMES, fl, "fields: %.0f snapshots, at most %d", nf, BR_MAX_FIELD_TIMES);
        if (!c.failed) {
            m->field_times = malloc((size_t)nf * sizeof(double));
            br_ycheck(&c, m->field_times != NULL, fl, "out of memory");
            for (long k = 0; k < (long)nf && m->field_times; k++) m->field_times[m->nfield_times++] = f0 + k * fi;
        }
    } else if (fl) {
        const int nf = br_ylen(&c, fl, "fields");
        br_ycheck(&c, nf <= BR_MAX_FIELD_TIMES, fl, "at most %d field snapshot times", BR_MAX_FIELD_TIMES);
        if (!c.failed && nf > 0) {
            m->field_times = malloc((size_t)nf * sizeof(double));
            br_ycheck(&c, m->field_times != NULL, fl, "out of memory");
        }
        for (int k = 0; k < nf && m->field_times && !c.failed; k++) {
            const double tk = br_ynum_node(&c, br_yitem(&c, fl, k), "fields");
            br_ycheck(&c, tk >= 0 && tk <= m->t_end && (k == 0 || tk > m->field_times[k - 1]), br_yitem(&c, fl, k),
                   "field times must increase and lie in [0, time.end]");
            m->field_times[m->nfield_times++] = tk;
        }
    }
    if (!c.failed && m->dt > 0) {
        const double r = m->out_interval / m->dt, rp = pint / m->dt;
        br_ycheck(&c, r < 1e12 && rp < 1e12, br_yat(&c, out, "interval"), "an output interval of more than 1e12 steps");
        br_ycheck(&c, m->out_interval > 0 && fabs(r - nearbyint(r)) < 1e-6 * r && r >= 0.5,
               br_yat(&c, out, "interval"), "output interval (%g) must be a positive multiple of dt (%g)",
               m->out_interval, m->dt);
        br_ycheck(&c, pint > 0 && fabs(rp - nearbyint(rp)) < 1e-6 * rp && rp >= 0.5,
               br_yat(&c, out, "points_interval"), "points_interval (%g) must be a positive multiple of dt (%g)",
               pint, m->dt);
        if (!c.failed) { /* in range: checked above */
            m->out_every = (long)nearbyint(r);
            m->points_every = (long)nearbyint(rp);
        }
    }
    const char *be = br_ystring(&c, root, "backend", 0);
    m->backend = BR_BACKEND_AUTO;
    if (be) {
        if (!strcmp(be, "cpu")) m->backend = BR_BACKEND_CPU;
        else if (!strcmp(be, "cuda")) m->backend = BR_BACKEND_CUDA;
        else br_ycheck(&c, !strcmp(be, "auto"), br_yat(&c, root, "backend"), "backend must be auto, cpu or cuda");
    }
    static const double z3[3] = {0, 0, 0};
    br_yvec(&c, root, "gravity", 3, 0, z3, m->gravity);
    br_read_beams(&c, br_ymap(&c, root, "beams"), m);
    br_read_structures(&c, br_ymap(&c, root, "structures"), m);
    br_read_bodies(&c, br_ymap(&c, root, "bodies"), m);
    br_read_frames(&c, br_ymap(&c, root, "frames"), m);
    br_read_loads(&c, br_ymap(&c, root, "loads"), m);
    br_read_springs(&c, br_ymap(&c, root, "springs"), m);
    br_read_contacts(&c, br_ymap(&c, root, "contacts"), m);
    br_read_rotational(&c, br_ymap(&c, root, "rotational_friction"), m);
    br_read_drivetrain(&c, br_ymap(&c, root, "drivetrain"), m);
    br_ycheck(&c, m->nbody + m->nkframe + m->nbeam + m->nsup > 0 || m->nset > 0 || m->drive.nshaft > 0, root,
           "the scenario has no bodies, beams, structures, contacts or drivetrain");
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
