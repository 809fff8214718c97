/* scenario_parts.c: the scenario's model parts (in: their YAML nodes; out: the model's time
 * functions, beams, bodies, kinematic frames, loads, springs, rotational elements and drivetrain,
 * each value checked, errors at their line). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario_internal.h"
#include "model/rigid.h"

/* map[key] -> unit 3-vector (required unless def) with the check |n| = 1 within 1e-9 */
void br_yunit(ysrc *c, ynode *map, const char *key, const double *def, double out[3])
{
    br_yvec(c, map, key, 3, def == NULL, def, out);
    if (c->failed) return;
    const double n = br_norm3(out);
    br_ycheck(c, n > 0.0, br_yat(c, map, key), "%s is a zero vector", key);
    br_ycheck(c, fabs(n - 1.0) < 1e-9, br_yat(c, map, key),
           "%s must be a unit vector (its length is %.17g)", key, n);
}

/* names: letters, digits, '_' and '-' (they become CSV column names) */
void br_yname(ysrc *c, ynode *map, char out[BR_NAME_MAX], const char *what)
{
    const char *s = br_ystring(c, map, "name", 1);
    if (!s) return;
    int ok = *s && strlen(s) < BR_NAME_MAX;
    for (const char *p = s; *p; p++) ok &= isalnum((unsigned char)*p) || *p == '_' || *p == '-';
    br_ycheck(c, ok, br_yat(c, map, "name"),
           "%s name '%s' must be 1-%d letters, digits, '_' or '-'", what, s, BR_NAME_MAX - 1);
    snprintf(out, BR_NAME_MAX, "%s", s);
}

/* ---- time functions ---- */

static const char *const TF_KEYS[] = {"constant", "table", "ramp", "harmonic", "sweep", "integral", "sum", NULL};

/* node v (a sequence of [t, value] rows) -> fn's table arrays t, y and n */
static void ytable(ysrc *c, ynode *v, br_timefn *fn)
{
    const int len = br_ylen(c, v, "table");
    br_ycheck(c, len >= 1, v, "table needs at least one [t, value] pair");
    if (c->failed) return;
    fn->n = len;
    fn->t = malloc((size_t)len * sizeof(double));
    fn->y = malloc((size_t)len * sizeof(double));
    br_yalloc(c, v, fn->t), br_yalloc(c, v, fn->y);
    for (int k = 0; k < len && !c->failed; k++) {
        ynode *row = br_yitem(c, v, k);
        if (br_ylen(c, row, "table row") != 2) {
            br_yerr(c, row, "table rows are [t, value] pairs");
            return;
        }
        fn->t[k] = br_ynum_node(c, br_yitem(c, row, 0), "table time");
        fn->y[k] = br_ynum_node(c, br_yitem(c, row, 1), "table value");
        br_ycheck(c, k == 0 || fn->t[k] >= fn->t[k - 1], row, "table times must not decrease");
        br_ycheck(c, k < 2 || fn->t[k] > fn->t[k - 2], row,
               "a table time may appear at most twice (a jump: the later row holds from then on)");
    }
}

/* time-function nodes a scenario may expand: YAML aliases under `sum` (or an amplitude) expand
 * each time they are used, so nested aliases would double the terms a level (2^k, evaluated every
 * step) within the nesting limit */
#define BR_TF_NODES_MAX 100000

/* node (a number or a one-key mapping) -> time function */
void br_ytimefn(ysrc *c, ynode *n, const char *what, br_timefn *fn)
{
    memset(fn, 0, sizeof *fn);
    if (c->failed) return;
    if (++c->tf_nodes > BR_TF_NODES_MAX) {
        br_yerr(c, n, "%s: time functions too large (more than %d terms and amplitudes in the scenario, aliases "
                   "counted each time they are used)", what, BR_TF_NODES_MAX);
        return;
    }
    if (br_is_scalar(n)) {
        fn->kind = BR_TF_CONSTANT;
        fn->c = br_ynum_node(c, n, what);
        return;
    }
    if (br_ykeys(c, n, what, TF_KEYS)) return;
    if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1) {
        br_yerr(c, n, "%s: give exactly one of constant, table, ramp, harmonic, sweep, integral, sum", what);
        return;
    }
    ynode *v;
    if ((v = br_ymap(c, n, "constant"))) {
        fn->kind = BR_TF_CONSTANT;
        fn->c = br_ynum_node(c, v, "constant");
    } else if ((v = br_ymap(c, n, "table"))) {
        fn->kind = BR_TF_TABLE;
        ytable(c, v, fn);
    } else if ((v = br_ymap(c, n, "integral"))) {
        /* integral: {table: [[t, rate], ...]}: a displacement from a piecewise-linear velocity */
        static const char *const K[] = {"table", NULL};
        if (br_ykeys(c, v, "integral", K)) return;
        fn->kind = BR_TF_INTEGRAL;
        ynode *tb = br_ymap(c, v, "table");
        if (!tb) {
            br_yerr(c, v, "integral: give the integrand as 'table: [[t, value], ...]'");
            return;
        }
        ytable(c, tb, fn);
        if (!c->failed && br_timefn_integral_init(fn)) br_yerr(c, v, "out of memory");
    } else if ((v = br_ymap(c, n, "sum"))) {
        fn->kind = BR_TF_SUM;
        const int len = br_ylen(c, v, "sum");
        br_ycheck(c, len >= 1, v, "sum needs at least one time function");
        if (c->failed) return;
        fn->term = calloc((size_t)len, sizeof *fn->term);
        br_yalloc(c, v, fn->term);
        if (!fn->term) return;
        fn->nterm = len;
        for (int k = 0; k < len && !c->failed; k++) br_ytimefn(c, br_yitem(c, v, k), "a term of sum", &fn->term[k]);
    } else if ((v = br_ymap(c, n, "ramp"))) {
        static const char *const K[] = {"t0", "t1", "from", "to", NULL};
        if (br_ykeys(c, v, "ramp", K)) return;
        fn->kind = BR_TF_RAMP;
        fn->t0 = br_ynum(c, v, "t0", 1, 0), fn->t1 = br_ynum(c, v, "t1", 1, 0);
        fn->y0 = br_ynum(c, v, "from", 1, 0), fn->y1 = br_ynum(c, v, "to", 1, 0);
        br_ycheck(c, fn->t1 > fn->t0, v, "ramp needs t1 > t0");
    } else if ((v = br_ymap(c, n, "harmonic"))) {
        static const char *const K[] = {"amplitude", "frequency", "phase", NULL};
        if (br_ykeys(c, v, "harmonic", K)) return;
        fn->kind = BR_TF_HARMONIC;
        fn->f = br_ynum(c, v, "frequency", 1, 0);
        fn->phase = br_ynum(c, v, "phase", 0, 0);
        br_ycheck(c, fn->f >= 0, br_yat(c, v, "frequency"), "frequency must be >= 0");
        fn->amp = calloc(1, sizeof *fn->amp);
        br_yalloc(c, v, fn->amp);
        ynode *a = br_ymap(c, v, "amplitude");
        if (!a) br_yerr(c, v, "missing key 'amplitude'");
        else if (fn->amp) br_ytimefn(c, a, "amplitude", fn->amp);
    } else if ((v = br_ymap(c, n, "sweep"))) {
        static const char *const K[] = {"amplitude", "f0", "f1", "t0", "t1", "mode", NULL};
        if (br_ykeys(c, v, "sweep", K)) return;
        fn->kind = BR_TF_SWEEP;
        fn->f0 = br_ynum(c, v, "f0", 1, 0), fn->f1 = br_ynum(c, v, "f1", 1, 0);
        fn->t0 = br_ynum(c, v, "t0", 1, 0), fn->t1 = br_ynum(c, v, "t1", 1, 0);
        const char *mode = br_ystring(c, v, "mode", 0);
        br_ycheck(c, !mode || !strcmp(mode, "linear") || !strcmp(mode, "log"), br_yat(c, v, "mode"),
               "sweep mode must be linear or log");
        fn->log_sweep = mode && !strcmp(mode, "log");
        br_ycheck(c, fn->t1 > fn->t0, v, "sweep needs t1 > t0");
        br_ycheck(c, fn->f0 > 0 && fn->f1 > 0, v, "sweep frequencies must be > 0");
        fn->amp = calloc(1, sizeof *fn->amp);
        br_yalloc(c, v, fn->amp);
        ynode *a = br_ymap(c, v, "amplitude");
        if (!a) br_yerr(c, v, "missing key 'amplitude'");
        else if (fn->amp) br_ytimefn(c, a, "amplitude", fn->amp);
    }
}

/* ---- model sections ---- */

/* name -> frame index (0 ground, bodies, kinematic frames), or error at node */
int br_yframe(ysrc *c, const br_model *m, ynode *n, const char *name)
{
    if (c->failed || !name) return 0;
    if (!strcmp(name, "ground")) return 0;
    for (int b = 0; b < m->nbody; b++)
        if (!strcmp(m->body[b].name, name)) return 1 + b;
    for (int k = 0; k < m->nkframe; k++)
        if (!strcmp(m->kframe[k].name, name)) return 1 + m->nbody + k;
    br_yerr(c, n, "no body or frame named '%s'", name);
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

void br_read_beams(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "nodes", "clamp", "section", "E", "nu", "rho", "rayleigh", NULL};
    static const char *const KS[] = {"b", "t", "width_axis", NULL};
    static const char *const KR[] = {"a", "b", NULL};
    m->nbeam = seq ? br_ylen(c, seq, "beams") : 0;
    m->beam = calloc((size_t)(m->nbeam ? m->nbeam : 1), sizeof *m->beam);
    br_yalloc(c, seq, m->beam);
    if (!m->beam) m->nbeam = 0;
    if (c->failed) return;
    for (int k = 0; k < m->nbeam && !c->failed; k++) {
        ynode *n = br_yitem(c, seq, k);
        br_beam *B = &m->beam[k];
        B->line = (int)n->start_mark.line + 1;
        if (br_ykeys(c, n, "a beam", K)) return;
        br_yname(c, n, B->name, "beam");
        for (int j = 0; j < k; j++)
            br_ycheck(c, strcmp(m->beam[j].name, B->name) != 0, br_yat(c, n, "name"), "duplicate beam name '%s'", B->name);
        ynode *nodes = br_ymap(c, n, "nodes");
        if (!nodes) {
            br_yerr(c, n, "missing key 'nodes' (a list of [x, y, z] node positions)");
            return;
        }
        const int nn = br_ylen(c, nodes, "nodes");
        br_ycheck(c, nn >= 2, nodes, "a beam needs at least two nodes");
        br_yguard(c, nodes, 0, 6.0 * nn);
        if (c->failed) return;
        B->nnode = nn;
        B->X = malloc((size_t)nn * 3 * sizeof(double));
        B->fix = calloc((size_t)nn, sizeof(int));
        br_yalloc(c, nodes, B->X), br_yalloc(c, nodes, B->fix);
        for (int i = 0; i < nn && !c->failed; i++) {
            ynode *it = br_yitem(c, nodes, i);
            if (br_ylen(c, it, "a node") != 3) {
                br_yerr(c, it, "nodes are [x, y, z]");
                return;
            }
            for (int j = 0; j < 3; j++) B->X[3 * i + j] = br_ynum_node(c, br_yitem(c, it, j), "node");
            if (i > 0) {
                const double *a = B->X + 3 * i - 3, *b2 = B->X + 3 * i;
                const double d[3] = {b2[0] - a[0], b2[1] - a[1], b2[2] - a[2]};
                br_ycheck(c, br_norm3(d) > 0, it, "node %d coincides with node %d", i, i - 1);
            }
        }
        ynode *cl = br_ymap(c, n, "clamp");
        const int ncl = cl ? br_ylen(c, cl, "clamp") : 0;
        for (int i = 0; i < ncl && !c->failed; i++) {
            const double idx = br_ynum_node(c, br_yitem(c, cl, i), "clamp");
            br_ycheck(c, idx >= 0 && idx == floor(idx) && idx < nn, br_yitem(c, cl, i), "clamp lists node indices 0..%d",
                   nn - 1);
            if (!c->failed) B->fix[(int)idx] = 63;
        }
        B->E = br_ynum(c, n, "E", 1, 0), B->nu = br_ynum(c, n, "nu", 1, 0), B->rho = br_ynum(c, n, "rho", 1, 0);
        br_ycheck(c, B->E > 0, br_yat(c, n, "E"), "E must be > 0");
        br_ycheck(c, B->nu > -1 && B->nu < 0.5, br_yat(c, n, "nu"), "nu must lie in (-1, 0.5)");
        br_ycheck(c, B->rho > 0, br_yat(c, n, "rho"), "rho must be > 0");
        ynode *sec = br_ymap(c, n, "section");
        if (!sec) {
            br_yerr(c, n, "missing key 'section' (b, t, width_axis)");
            return;
        }
        if (br_ykeys(c, sec, "section", KS)) return;
        B->b = br_ynum(c, sec, "b", 1, 0), B->t = br_ynum(c, sec, "t", 1, 0);
        br_ycheck(c, B->b > 0 && B->t > 0, sec, "section sides b, t must be > 0");
        br_yunit(c, sec, "width_axis", NULL, B->width);
        for (int i = 0; i + 1 < nn && !c->failed; i++) {
            const double *a = B->X + 3 * i, *b2 = B->X + 3 * i + 3;
            double d[3] = {b2[0] - a[0], b2[1] - a[1], b2[2] - a[2]};
            const double L = br_norm3(d);
            br_ycheck(c, fabs(d[0] * B->width[0] + d[1] * B->width[1] + d[2] * B->width[2]) < 1e-9 * L,
                   br_yat(c, sec, "width_axis"), "width_axis must be normal to every element (element %d)", i);
        }
        ynode *ray = br_ymap(c, n, "rayleigh");
        if (ray && br_ykeys(c, ray, "rayleigh", KR)) return;
        B->ray_a = ray ? br_ynum(c, ray, "a", 0, 0) : 0;
        B->ray_b = ray ? br_ynum(c, ray, "b", 0, 0) : 0;
        br_ycheck(c, B->ray_a >= 0 && B->ray_b >= 0, ray ? ray : n, "Rayleigh coefficients must be >= 0");
    }
}

void br_read_bodies(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "mass", "inertia", "box", "position", "orientation",
                                    "velocity", "angular_velocity", "lock", "attach", NULL};
    m->nbody = seq ? br_ylen(c, seq, "bodies") : 0;
    m->body = calloc((size_t)(m->nbody ? m->nbody : 1), sizeof *m->body);
    br_yalloc(c, seq, m->body);
    if (!m->body) m->nbody = 0;
    if (c->failed) return;
    for (int b = 0; b < m->nbody && !c->failed; b++) {
        ynode *n = br_yitem(c, seq, b);
        br_body *B = &m->body[b];
        if (br_ykeys(c, n, "a body", K)) return;
        br_yname(c, n, B->name, "body");
        br_ycheck(c, !frame_name_taken(m, B->name, b, 0), br_yat(c, n, "name"),
               "body name '%s' is taken (or reserved)", B->name);
        B->mass = br_ynum(c, n, "mass", 1, 0);
        br_ycheck(c, B->mass > 0, br_yat(c, n, "mass"), "mass must be > 0 (got %g)", B->mass);
        ynode *in = br_ymap(c, n, "inertia"), *box = br_ymap(c, n, "box");
        br_ycheck(c, (in != NULL) != (box != NULL), n, "give exactly one of 'inertia' and 'box'");
        if (c->failed) return;
        if (box) {
            double s[3];
            br_yvec(c, n, "box", 3, 1, NULL, s);
            br_ycheck(c, s[0] > 0 && s[1] > 0 && s[2] > 0, box, "box edges must be > 0");
            B->Ib[0] = B->mass * (s[1] * s[1] + s[2] * s[2]) / 12.0;
            B->Ib[4] = B->mass * (s[0] * s[0] + s[2] * s[2]) / 12.0;
            B->Ib[8] = B->mass * (s[0] * s[0] + s[1] * s[1]) / 12.0;
        } else {
            const int len = br_ylen(c, in, "inertia");
            br_ycheck(c, len == 3 || len == 6, in,
                   "inertia: give [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]");
            double v[6] = {0};
            for (int k = 0; k < len && k < 6 && !c->failed; k++) v[k] = br_ynum_node(c, br_yitem(c, in, k), "inertia");
            B->Ib[0] = v[0], B->Ib[4] = v[1], B->Ib[8] = v[2];
            B->Ib[1] = B->Ib[3] = v[3], B->Ib[2] = B->Ib[6] = v[4], B->Ib[5] = B->Ib[7] = v[5];
            /* positive definite (Sylvester) and the triangle inequalities of a real body */
            const double d2 = v[0] * v[1] - v[3] * v[3];
            const double d3 = v[0] * (v[1] * v[2] - v[5] * v[5]) - v[3] * (v[3] * v[2] - v[5] * v[4]) +
                              v[4] * (v[3] * v[5] - v[1] * v[4]);
            br_ycheck(c, v[0] > 0 && d2 > 0 && d3 > 0, in, "inertia must be positive definite");
            br_ycheck(c, v[0] + v[1] >= v[2] && v[1] + v[2] >= v[0] && v[0] + v[2] >= v[1], in,
                   "principal moments violate the triangle inequality (no real body has them)");
        }
        static const double z3[3] = {0, 0, 0};
        B->part = -1;
        ynode *at = br_ymap(c, n, "attach");
        if (at) {
            /* attach: {beam: NAME, node: INDEX, offset: [..]} or {structure: NAME, node: LABEL, offset};
             * position follows from the node */
            static const char *const KA[] = {"beam", "structure", "node", "offset", NULL};
            if (br_ykeys(c, at, "attach", KA)) return;
            const char *sn = br_ystring(c, at, "structure", 0);
            const char *bn = br_ystring(c, at, "beam", !sn);
            br_ycheck(c, !sn || !bn, at, "attach: give beam or structure, not both");
            if (!br_ymap(c, at, "node")) br_yerr(c, at, "missing key 'node'");
            if (c->failed) return;
            const double *xn;
            if (sn) {
                B->node = br_ystructure_node(c, m, br_yat(c, at, "structure"), sn, br_ymap(c, at, "node"), &B->part);
                if (c->failed) return;
                xn = m->sup[B->part - m->nbeam].X + 3 * B->node;
            } else {
                for (int k = 0; k < m->nbeam; k++)
                    if (!strcmp(m->beam[k].name, bn)) B->part = k;
                br_ycheck(c, B->part >= 0, br_yat(c, at, "beam"), "no beam named '%s'", bn);
                const double nd = br_ynum(c, at, "node", 1, 0);
                if (c->failed) return;
                br_ycheck(c, nd >= 0 && nd == floor(nd) && nd < m->beam[B->part].nnode, br_yat(c, at, "node"),
                       "node must be an index 0..%d of beam '%s'", m->beam[B->part].nnode - 1, bn);
                if (c->failed) return;
                B->node = (int)nd;
                xn = m->beam[B->part].X + 3 * B->node;
            }
            br_yvec(c, at, "offset", 3, 0, z3, B->offset);
            br_ycheck(c, !br_ymap(c, n, "position") && !br_ymap(c, n, "velocity") && !br_ymap(c, n, "angular_velocity") &&
                          !br_ymap(c, n, "lock"),
                   n, "an attached body takes its position and motion from the node (no position, velocity, lock)");
            for (int j = 0; j < 3; j++) B->x0[j] = xn[j] + B->offset[j];
        } else {
            br_yvec(c, n, "position", 3, 1, NULL, B->x0);
        }
        br_yorientation(c, n, B->q0);
        br_yvec(c, n, "velocity", 3, 0, z3, B->v0);
        br_yvec(c, n, "angular_velocity", 3, 0, z3, B->w0);
        ynode *lk = br_ymap(c, n, "lock");
        if (lk) {
            static const char *const dof[] = {"x", "y", "z", "rx", "ry", "rz"};
            const int len = br_ylen(c, lk, "lock");
            for (int k = 0; k < len && !c->failed; k++) {
                ynode *it = br_yitem(c, lk, k);
                int bit = -1;
                for (int j = 0; j < 6; j++)
                    if (br_is_scalar(it) && !strcmp(br_ystr(it), dof[j])) bit = j;
                br_ycheck(c, bit >= 0, it, "lock entries are x, y, z, rx, ry, rz");
                if (bit >= 0) B->lock |= 1 << bit;
            }
        }
    }
}

void br_read_frames(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "position", "orientation", "velocity", "angular_velocity",
                                    "displacement", NULL};
    m->nkframe = seq ? br_ylen(c, seq, "frames") : 0;
    m->kframe = calloc((size_t)(m->nkframe ? m->nkframe : 1), sizeof *m->kframe);
    br_yalloc(c, seq, m->kframe);
    if (!m->kframe) m->nkframe = 0;
    if (c->failed) return;
    for (int k = 0; k < m->nkframe && !c->failed; k++) {
        ynode *n = br_yitem(c, seq, k);
        br_kframe *F = &m->kframe[k];
        if (br_ykeys(c, n, "a frame", K)) return;
        br_yname(c, n, F->name, "frame");
        br_ycheck(c, !frame_name_taken(m, F->name, m->nbody, k), br_yat(c, n, "name"),
               "frame name '%s' is taken (or reserved)", F->name);
        static const double z3[3] = {0, 0, 0};
        br_yvec(c, n, "position", 3, 0, z3, F->x0);
        br_yorientation(c, n, F->q0);
        br_yvec(c, n, "velocity", 3, 0, z3, F->v);
        br_yvec(c, n, "angular_velocity", 3, 0, z3, F->w);
        ynode *dsp = br_ymap(c, n, "displacement");
        static const char *const XYZ[] = {"x", "y", "z", NULL};
        if (dsp && br_ykeys(c, dsp, "displacement", XYZ)) return;
        for (int j = 0; j < 3; j++) {
            ynode *fn = dsp ? br_ymap(c, dsp, XYZ[j]) : NULL;
            if (fn) br_ytimefn(c, fn, XYZ[j], &F->disp[j]);
            else F->disp[j].kind = BR_TF_CONSTANT;
        }
    }
}

void br_read_loads(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "type", "body", "point", "direction", "axes", "magnitude", "structure",
                                    "vector", NULL};
    m->nload = seq ? br_ylen(c, seq, "loads") : 0;
    m->load = calloc((size_t)(m->nload ? m->nload : 1), sizeof *m->load);
    br_yalloc(c, seq, m->load);
    if (!m->load) m->nload = 0;
    if (c->failed) return;
    for (int l = 0; l < m->nload && !c->failed; l++) {
        ynode *n = br_yitem(c, seq, l);
        br_load *L = &m->load[l];
        if (br_ykeys(c, n, "a load", K)) return;
        br_yname(c, n, L->name, "load");
        for (int j = 0; j < l; j++)
            br_ycheck(c, strcmp(m->load[j].name, L->name) != 0, br_yat(c, n, "name"), "duplicate load name '%s'",
                   L->name);
        ynode *mag = br_ymap(c, n, "magnitude");
        const char *sn = br_ystring(c, n, "structure", 0);
        if (sn) { /* a named load vector on a structure given as matrices (a bolt's preload) */
            br_ycheck(c, !br_ymap(c, n, "body") && !br_ymap(c, n, "point") && !br_ymap(c, n, "direction") &&
                          !br_ymap(c, n, "axes") && !br_ymap(c, n, "type"),
                   n, "a load on a structure's vector has no body, point, direction, axes or type");
            if (!br_ymap(c, n, "vector")) br_yerr(c, n, "missing key 'vector' (the structure's load vector)");
            if (c->failed) return;
            L->type = BR_LOAD_VECTOR;
            L->vec = br_ystructure_vector(c, m, br_yat(c, n, "structure"), sn, br_ymap(c, n, "vector"), &L->part);
            if (!mag) br_yerr(c, n, "missing key 'magnitude'");
            else br_ytimefn(c, mag, "magnitude", &L->mag);
            continue;
        }
        br_ycheck(c, !br_ymap(c, n, "vector"), br_yat(c, n, "vector"), "vector: give the structure it acts on");
        const char *type = br_ystring(c, n, "type", 0);
        br_ycheck(c, !type || !strcmp(type, "force") || !strcmp(type, "torque"), br_yat(c, n, "type"),
               "load type must be force or torque");
        L->type = type && !strcmp(type, "torque") ? BR_LOAD_TORQUE : BR_LOAD_FORCE;
        const char *body = br_ystring(c, n, "body", 1);
        L->frame = br_yframe(c, m, br_yat(c, n, "body"), body);
        br_ycheck(c, L->frame >= 1 && L->frame <= m->nbody, br_yat(c, n, "body"),
               "loads act on bodies; '%s' is not a body", body ? body : "");
        static const double z3[3] = {0, 0, 0};
        br_yvec(c, n, "point", 3, 0, z3, L->point);
        br_ycheck(c, L->type == BR_LOAD_FORCE || !br_ymap(c, n, "point"), br_yat(c, n, "point"),
               "a torque has no point of application");
        br_yunit(c, n, "direction", NULL, L->dir);
        const char *axes = br_ystring(c, n, "axes", 0);
        br_ycheck(c, !axes || !strcmp(axes, "world") || !strcmp(axes, "body"), br_yat(c, n, "axes"),
               "axes must be world or body");
        L->body_axes = axes && !strcmp(axes, "body");
        if (!mag) br_yerr(c, n, "missing key 'magnitude'");
        else br_ytimefn(c, mag, "magnitude", &L->mag);
    }
}

void br_read_springs(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "type", "axis", "a", "b", "stiffness", "damping", "rest_length", NULL};
    static const char *const E[] = {"frame", "point", NULL};
    m->nspring = seq ? br_ylen(c, seq, "springs") : 0;
    m->spring = calloc((size_t)(m->nspring ? m->nspring : 1), sizeof *m->spring);
    br_yalloc(c, seq, m->spring);
    if (!m->spring) m->nspring = 0;
    if (c->failed) return;
    for (int s = 0; s < m->nspring && !c->failed; s++) {
        ynode *n = br_yitem(c, seq, s);
        br_spring *S = &m->spring[s];
        if (br_ykeys(c, n, "a spring", K)) return;
        br_yname(c, n, S->name, "spring");
        for (int j = 0; j < s; j++)
            br_ycheck(c, strcmp(m->spring[j].name, S->name) != 0, br_yat(c, n, "name"),
                   "duplicate spring name '%s'", S->name);
        static const double z3[3] = {0, 0, 0};
        ynode *ends[2] = {br_ymap(c, n, "a"), br_ymap(c, n, "b")};
        for (int e = 0; e < 2 && !c->failed; e++) {
            if (!ends[e]) {
                br_yerr(c, n, "missing key '%s' (an end: frame and point)", e ? "b" : "a");
                return;
            }
            if (br_ykeys(c, ends[e], "a spring end", E)) return;
            const char *fr = br_ystring(c, ends[e], "frame", 1);
            const int idx = br_yframe(c, m, br_yat(c, ends[e], "frame"), fr);
            br_yvec(c, ends[e], "point", 3, 0, z3, e ? S->pb : S->pa);
            if (e) S->frame_b = idx;
            else S->frame_a = idx;
        }
        const char *type = br_ystring(c, n, "type", 0);
        br_ycheck(c, !type || !strcmp(type, "linear") || !strcmp(type, "torsion") || !strcmp(type, "rope"),
               br_yat(c, n, "type"), "spring type must be linear, rope or torsion");
        S->torsion = type && !strcmp(type, "torsion");
        S->rope = type && !strcmp(type, "rope");
        if (S->torsion) br_yunit(c, n, "axis", NULL, S->axis);
        else br_ycheck(c, !br_ymap(c, n, "axis"), br_yat(c, n, "axis"), "'axis' is for torsion springs");
        br_ycheck(c, !S->torsion || !br_ymap(c, n, "rest_length"), br_yat(c, n, "rest_length"),
               "a torsion spring has no rest length (its angle counts from t = 0)");
        S->k = br_ynum(c, n, "stiffness", 1, 0);
        S->c = br_ynum(c, n, "damping", 0, 0);
        S->rest = br_ynum(c, n, "rest_length", 0, 0);
        br_ycheck(c, S->k >= 0, br_yat(c, n, "stiffness"), "stiffness must be >= 0");
        br_ycheck(c, S->c >= 0, br_yat(c, n, "damping"), "damping must be >= 0");
        br_ycheck(c, S->rest >= 0, br_yat(c, n, "rest_length"), "rest_length must be >= 0");
        br_ycheck(c, !S->rope || S->rest > 0, S->rope && br_ymap(c, n, "rest_length") ? br_yat(c, n, "rest_length") : n,
               "a rope needs rest_length > 0 (its natural length: it pulls only when longer)");
        br_ycheck(c, S->frame_a != S->frame_b, n, "a spring needs two different frames");
    }
}

/* a clutch's mu_C, mu_S, sigma2, normal_force_max, c_geo or annulus and input -> e */
static void read_clutch(ysrc *c, ynode *n, br_rotfric *e)
{
    e->mu_C = br_ynum(c, n, "mu_C", 1, 0);
    e->mu_S = br_ynum(c, n, "mu_S", 1, 0);
    e->sigma2 = br_ynum(c, n, "sigma2", 0, 0);
    e->Fn_max = br_ynum(c, n, "normal_force_max", 1, 0);
    br_ycheck(c, e->mu_C > 0, br_yat(c, n, "mu_C"), "mu_C must be > 0");
    br_ycheck(c, e->mu_S >= e->mu_C, br_yat(c, n, "mu_S"), "mu_S must be >= mu_C");
    br_ycheck(c, e->sigma2 >= 0, br_yat(c, n, "sigma2"), "sigma2 must be >= 0");
    br_ycheck(c, e->Fn_max > 0, br_yat(c, n, "normal_force_max"), "normal_force_max must be > 0");
    ynode *an = br_ymap(c, n, "annulus"), *cg = br_ymap(c, n, "c_geo");
    br_ycheck(c, (an != NULL) != (cg != NULL), n,
           "give exactly one of 'c_geo' [m] and 'annulus: [R_i, R_o]' (uniform pressure)");
    if (c->failed) return;
    if (cg) e->c_geo = br_ynum_node(c, cg, "c_geo");
    else {
        double R[2];
        br_yvec(c, n, "annulus", 2, 1, NULL, R);
        br_ycheck(c, R[0] >= 0 && R[1] > R[0], an, "annulus needs 0 <= R_i < R_o");
        e->c_geo = 2.0 / 3.0 * (R[1] * R[1] * R[1] - R[0] * R[0] * R[0]) / (R[1] * R[1] - R[0] * R[0]);
    }
    br_ycheck(c, e->c_geo > 0, cg ? cg : an, "c_geo must be > 0");
    ynode *in = br_ymap(c, n, "input");
    if (in) br_ytimefn(c, in, "input", &e->u);
    else e->u.kind = BR_TF_CONSTANT, e->u.c = 1.0;
}

/* rotational_friction: [{name, type: lugre|clutch|one_way_clutch, body, other, axis, ...}] */
void br_read_rotational(ysrc *c, ynode *seq, br_model *m)
{
    static const char *const K[] = {"name", "type", "body", "other", "axis", "sigma0", "sigma1", "w_d",
                                    "tau_v", "tau_C", "tau_S", "w_s", "mu_C", "mu_S", "sigma2", "c_geo",
                                    "annulus", "normal_force_max", "input", "c_max", NULL};
    m->nrot = seq ? br_ylen(c, seq, "rotational_friction") : 0;
    m->rot = calloc((size_t)(m->nrot ? m->nrot : 1), sizeof *m->rot);
    br_yalloc(c, seq, m->rot);
    if (!m->rot) m->nrot = 0;
    if (c->failed) return;
    for (int k = 0; k < m->nrot && !c->failed; k++) {
        ynode *n = br_yitem(c, seq, k);
        br_rotfric *e = &m->rot[k];
        if (br_ykeys(c, n, "a rotational friction element", K)) return;
        br_yname(c, n, e->name, "rotational friction element");
        for (int j = 0; j < k; j++)
            br_ycheck(c, strcmp(m->rot[j].name, e->name) != 0, br_yat(c, n, "name"), "duplicate element name '%s'",
                   e->name);
        const char *type = br_ystring(c, n, "type", 1);
        if (c->failed) return;
        e->type = !strcmp(type, "lugre") ? BR_ROT_LUGRE : !strcmp(type, "clutch") ? BR_ROT_CLUTCH
                  : !strcmp(type, "one_way_clutch") ? BR_ROT_ONEWAY : -1;
        br_ycheck(c, e->type >= 0, br_yat(c, n, "type"), "type must be lugre, clutch or one_way_clutch (got '%s')", type);
        if (c->failed) return;
        e->frame_a = br_yframe(c, m, br_yat(c, n, "body"), br_ystring(c, n, "body", 1));
        const char *other = br_ystring(c, n, "other", 0);
        e->frame_b = other ? br_yframe(c, m, br_yat(c, n, "other"), other) : 0;
        br_ycheck(c, e->frame_a != e->frame_b, n, "an element needs two different frames");
        br_yunit(c, n, "axis", NULL, e->axis);
        e->sigma0 = br_ynum(c, n, "sigma0", 1, 0);
        e->sigma1 = br_ynum(c, n, "sigma1", 1, 0);
        e->w_s = br_ynum(c, n, "w_s", 1, 0);
        br_ycheck(c, e->sigma0 > 0, br_yat(c, n, "sigma0"), "sigma0 must be > 0");
        br_ycheck(c, e->sigma1 >= 0, br_yat(c, n, "sigma1"), "sigma1 must be >= 0");
        br_ycheck(c, e->w_s > 0, br_yat(c, n, "w_s"), "w_s must be > 0");
        static const char *const LUG[] = {"tau_v", "tau_C", "tau_S", "w_d"};
        static const char *const CLU[] = {"mu_C", "mu_S", "sigma2", "c_geo", "annulus", "normal_force_max",
                                          "input", "c_max"};
        for (int j = 0; j < 4; j++)
            br_ycheck(c, e->type == BR_ROT_LUGRE || !br_ymap(c, n, LUG[j]), br_yat(c, n, LUG[j]),
                   "'%s' is for type lugre", LUG[j]);
        for (int j = 0; j < 8; j++)
            br_ycheck(c, e->type != BR_ROT_LUGRE || !br_ymap(c, n, CLU[j]), br_yat(c, n, CLU[j]),
                   "'%s' is for the clutch types", CLU[j]);
        br_ycheck(c, e->type == BR_ROT_ONEWAY || !br_ymap(c, n, "c_max"), br_yat(c, n, "c_max"),
               "'c_max' is for type one_way_clutch");
        if (c->failed) return;
        if (e->type == BR_ROT_LUGRE) {
            e->tau_v = br_ynum(c, n, "tau_v", 0, 0);
            e->tau_C = br_ynum(c, n, "tau_C", 1, 0);
            e->tau_S = br_ynum(c, n, "tau_S", 1, 0);
            e->w_d = br_ynum(c, n, "w_d", 0, 0);
            br_ycheck(c, e->tau_v >= 0, br_yat(c, n, "tau_v"), "tau_v must be >= 0");
            br_ycheck(c, e->tau_C > 0, br_yat(c, n, "tau_C"), "tau_C must be > 0");
            br_ycheck(c, e->tau_S >= e->tau_C, br_yat(c, n, "tau_S"), "tau_S must be >= tau_C");
            br_ycheck(c, e->w_d >= 0, br_yat(c, n, "w_d"), "w_d must be >= 0 (0: constant sigma1)");
            continue;
        }
        read_clutch(c, n, e);
        e->c_max = br_ynum(c, n, "c_max", 0, 100.0);
        br_ycheck(c, e->c_max > 0, br_yat(c, n, "c_max"), "c_max must be > 0");
    }
}

/* drivetrain shaft name (or "housing" where allowed) -> its index, -1 for the housing; -2 with an
 * error when unknown */
static int yshaft(ysrc *c, const br_drivetrain *dv, ynode *map, const char *key, int housing_ok)
{
    const char *nm = br_ystring(c, map, key, 1);
    if (!nm) return -2;
    if (housing_ok && !strcmp(nm, "housing")) return -1;
    for (int i = 0; i < dv->nshaft; i++)
        if (!strcmp(dv->shaft[i].name, nm)) return i;
    br_yerr(c, br_yat(c, map, key), "unknown shaft '%s'%s", nm, housing_ok ? " (or housing)" : "");
    return -2;
}

/* drivetrain: {shafts, gears, torques, clutches} -> m->drive (docs/scenario-format.md) */
void br_read_drivetrain(ysrc *c, ynode *n, br_model *m)
{
    br_drivetrain *dv = &m->drive;
    if (!n) return;
    static const char *const K[] = {"shafts", "gears", "torques", "clutches", NULL};
    if (br_ykeys(c, n, "drivetrain", K)) return;
    ynode *sh = br_ymap(c, n, "shafts"), *ge = br_ymap(c, n, "gears"), *to = br_ymap(c, n, "torques"), *cl = br_ymap(c, n, "clutches");
    if (!sh) {
        br_yerr(c, n, "missing key 'shafts' (a drivetrain needs at least one shaft)");
        return;
    }
    dv->nshaft = br_ylen(c, sh, "shafts");
    dv->ngear = ge ? br_ylen(c, ge, "gears") : 0;
    dv->nsrc = to ? br_ylen(c, to, "torques") : 0;
    dv->ncl = cl ? br_ylen(c, cl, "clutches") : 0;
    dv->shaft = calloc((size_t)(dv->nshaft ? dv->nshaft : 1), sizeof *dv->shaft);
    dv->gear = calloc((size_t)(dv->ngear ? dv->ngear : 1), sizeof *dv->gear);
    dv->src = calloc((size_t)(dv->nsrc ? dv->nsrc : 1), sizeof *dv->src);
    dv->cl = calloc((size_t)(dv->ncl ? dv->ncl : 1), sizeof *dv->cl);
    br_yalloc(c, n, dv->shaft && dv->gear && dv->src && dv->cl ? dv : NULL);
    if (c->failed) {
        dv->nshaft = dv->ngear = dv->nsrc = dv->ncl = 0;
        return;
    }
    br_ycheck(c, dv->nshaft > 0, sh, "a drivetrain needs at least one shaft");
    /* every name of the drivetrain is a column prefix: unique among shafts, gears, torques, clutches */
    char(*names)[BR_NAME_MAX] = calloc((size_t)(dv->nshaft + dv->ngear + dv->nsrc + dv->ncl + 1), BR_NAME_MAX);
    int nn = 0;
    br_yalloc(c, n, names);
#define BR_DV_NAME(node, out, what)                                                                       \
    do {                                                                                                  \
        br_yname(c, node, out, what);                                                                        \
        for (int j = 0; j < nn && !c->failed; j++)                                                        \
            br_ycheck(c, strcmp(names[j], out) != 0, br_yat(c, node, "name"), "duplicate drivetrain name '%s'", out); \
        br_ycheck(c, strcmp(out, "housing") != 0, br_yat(c, node, "name"), "'housing' is the fixed casing's name"); \
        for (int j = 0; j < m->nrot && !c->failed; j++) /* the same column names (<name>.tau) */            \
            br_ycheck(c, strcmp(m->rot[j].name, out) != 0, br_yat(c, node, "name"),                              \
                   "'%s' is also a rotational_friction element's name", out);                               \
        if (names) snprintf(names[nn++], BR_NAME_MAX, "%s", out);                                        \
    } while (0)
    static const char *const KS[] = {"name", "inertia", "speed", NULL};
    for (int i = 0; i < dv->nshaft && !c->failed; i++) {
        ynode *q = br_yitem(c, sh, i);
        br_shaft *S = &dv->shaft[i];
        if (br_ykeys(c, q, "a shaft", KS)) break;
        BR_DV_NAME(q, S->name, "shaft");
        S->J = br_ynum(c, q, "inertia", 1, 0);
        S->w0 = br_ynum(c, q, "speed", 0, 0.0);
        br_ycheck(c, S->J > 0, br_yat(c, q, "inertia"), "inertia must be > 0 [kg m^2]");
    }
    static const char *const KG[] = {"name", "type", "sun", "ring", "carrier", "k", "a", "b", "ratio", NULL};
    for (int g = 0; g < dv->ngear && !c->failed; g++) {
        ynode *q = br_yitem(c, ge, g);
        br_gear *G = &dv->gear[g];
        if (br_ykeys(c, q, "a gear", KG)) break;
        BR_DV_NAME(q, G->name, "gear");
        const char *type = br_ystring(c, q, "type", 1);
        if (c->failed) break;
        if (!strcmp(type, "planetary")) {
            G->type = BR_GEAR_PLANETARY;
            static const char *const NOT[] = {"a", "b", "ratio"};
            for (int j = 0; j < 3; j++) br_ycheck(c, !br_ymap(c, q, NOT[j]), br_yat(c, q, NOT[j]), "'%s' is for type pair", NOT[j]);
            G->s[0] = yshaft(c, dv, q, "sun", 0);
            G->s[1] = yshaft(c, dv, q, "ring", 0);
            G->s[2] = yshaft(c, dv, q, "carrier", 0);
            G->k = br_ynum(c, q, "k", 1, 0);
            br_ycheck(c, G->k > 0, br_yat(c, q, "k"), "k (ring/sun teeth) must be > 0");
            br_ycheck(c, G->s[0] != G->s[1] && G->s[1] != G->s[2] && G->s[0] != G->s[2], q,
                   "sun, ring and carrier must be three different shafts");
        } else if (!strcmp(type, "pair")) {
            G->type = BR_GEAR_PAIR;
            static const char *const NOT[] = {"sun", "ring", "carrier", "k"};
            for (int j = 0; j < 4; j++) br_ycheck(c, !br_ymap(c, q, NOT[j]), br_yat(c, q, NOT[j]), "'%s' is for type planetary", NOT[j]);
            G->s[0] = yshaft(c, dv, q, "a", 0);
            G->s[1] = yshaft(c, dv, q, "b", 0);
            G->s[2] = -1;
            G->k = br_ynum(c, q, "ratio", 1, 0);
            br_ycheck(c, G->k != 0, br_yat(c, q, "ratio"), "ratio (w_a / w_b) must not be 0");
            br_ycheck(c, G->s[0] != G->s[1], q, "a gear pair needs two different shafts");
        } else {
            br_yerr(c, br_yat(c, q, "type"), "gear type must be pair or planetary (got '%s')", type);
        }
        if (c->failed) break;
        /* the initial speeds must already mesh: a step would otherwise jump them onto the constraint */
        const br_shaft *A = &dv->shaft[G->s[0]], *B = &dv->shaft[G->s[1]];
        const double mis = G->type == BR_GEAR_PAIR ? A->w0 - G->k * B->w0
                                                   : A->w0 + G->k * B->w0 - (1.0 + G->k) * dv->shaft[G->s[2]].w0;
        const double sc = fabs(A->w0) + fabs(G->k * B->w0) + (G->type == BR_GEAR_PAIR ? 0.0 : fabs((1.0 + G->k) * dv->shaft[G->s[2]].w0));
        br_ycheck(c, fabs(mis) <= 1e-12 * sc, q, "the shafts' initial speeds do not mesh in gear '%s' (%s off by %g rad/s)",
               G->name, G->type == BR_GEAR_PAIR ? "w_a - ratio w_b" : "w_sun + k w_ring - (1 + k) w_carrier", mis);
    }
    static const char *const KT[] = {"name", "shaft", "torque", "damping", NULL};
    for (int k = 0; k < dv->nsrc && !c->failed; k++) {
        ynode *q = br_yitem(c, to, k);
        br_tsource *T = &dv->src[k];
        if (br_ykeys(c, q, "a torque source", KT)) break;
        BR_DV_NAME(q, T->name, "torque source");
        T->shaft = yshaft(c, dv, q, "shaft", 0);
        ynode *tq = br_ymap(c, q, "torque");
        if (tq) br_ytimefn(c, tq, "torque", &T->tau);
        else T->tau.kind = BR_TF_CONSTANT, T->tau.c = 0.0;
        T->c = br_ynum(c, q, "damping", 0, 0.0);
        br_ycheck(c, T->c >= 0, br_yat(c, q, "damping"), "damping must be >= 0 [N m s/rad] (the torque is torque(t) - damping w)");
    }
    static const char *const KC[] = {"name", "type", "a", "b", "mu_C", "mu_S", "sigma0", "sigma1", "sigma2", "w_s",
                                     "c_geo", "annulus", "normal_force_max", "input", NULL};
    for (int k = 0; k < dv->ncl && !c->failed; k++) {
        ynode *q = br_yitem(c, cl, k);
        br_dclutch *C = &dv->cl[k];
        if (br_ykeys(c, q, "a clutch", KC)) break;
        BR_DV_NAME(q, C->name, "clutch");
        const char *type = br_ystring(c, q, "type", 1);
        if (c->failed) break;
        C->type = !strcmp(type, "lugre") ? BR_DCLUTCH_LUGRE : !strcmp(type, "coulomb") ? BR_DCLUTCH_COULOMB : -1;
        br_ycheck(c, C->type >= 0, br_yat(c, q, "type"), "clutch type must be lugre or coulomb (got '%s')", type);
        C->a = yshaft(c, dv, q, "a", 0);
        C->b = yshaft(c, dv, q, "b", 1);
        br_ycheck(c, C->a != C->b, q, "a clutch needs two different shafts (b: housing for a brake)");
        if (c->failed) break;
        C->law.type = BR_ROT_CLUTCH;
        read_clutch(c, q, &C->law);
        static const char *const LUG[] = {"sigma0", "sigma1", "sigma2", "w_s"};
        if (C->type == BR_DCLUTCH_COULOMB) {
            for (int j = 0; j < 4; j++) br_ycheck(c, !br_ymap(c, q, LUG[j]), br_yat(c, q, LUG[j]), "'%s' is for type lugre", LUG[j]);
            continue;
        }
        C->law.sigma0 = br_ynum(c, q, "sigma0", 1, 0);
        C->law.sigma1 = br_ynum(c, q, "sigma1", 1, 0);
        C->law.w_s = br_ynum(c, q, "w_s", 1, 0);
        br_ycheck(c, C->law.sigma0 > 0, br_yat(c, q, "sigma0"), "sigma0 must be > 0");
        br_ycheck(c, C->law.sigma1 >= 0, br_yat(c, q, "sigma1"), "sigma1 must be >= 0");
        br_ycheck(c, C->law.w_s > 0, br_yat(c, q, "w_s"), "w_s must be > 0");
    }
#undef BR_DV_NAME
    free(names);
}
