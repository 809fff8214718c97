/* scenario_structures.c: the scenario's `structures:` (in: the YAML entries and the files they name;
 * out: m->sup, each structure given as matrices checked: square, of one size, symmetric, finite, its
 * node table's rows inside its matrices). A file's fault is worded "path: message" (for the node
 * table's CSV "path:line: message") with the entry's scenario line after it; nothing is kept of a
 * structure that fails. docs/structures.md has the format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/matrix_file.h"
#include "io/scenario_internal.h"
#include "model/superel.h"

/* the largest structure taken: dense n x n matrices (three of them, and the integrator's as many again) */
#define BR_SUP_MAX_N 20000

void br_ypath(ysrc *c, const char *file, char *out, size_t len)
{
    const char *slash = strrchr(c->file, '/');
    if (file[0] == '/' || !slash) snprintf(out, len, "%s", file);
    else snprintf(out, len, "%.*s/%s", (int)(slash - c->file), c->file, file);
}

/* a file's message, the structure's entry after it */
static void file_fail_of(ysrc *c, const ynode *n, const char *kind, const char *name, const char *msg)
{
    if (c->failed) return;
    snprintf(c->err, c->errlen, "%s (%s '%s', %s:%d)", msg, kind, name, c->file, (int)n->start_mark.line + 1);
    c->failed = 1;
}

/* a structure's file refused: "file: message (structure 'NAME', scenario:line)" */
static void file_fail(ysrc *c, const ynode *n, const char *name, const char *msg) { file_fail_of(c, n, "structure", name, msg); }

/* value: a file (no .mat given) or a variable of the .mat -> A, square n x n (n = *n, or set by the first) */
static int read_square(ysrc *c, ynode *n, const char *name, const char *mat, const char *value, const char *what,
                       int *size, double **out)
{
    char path[1024], err[1400];
    if (mat) snprintf(path, sizeof path, "%s", mat);
    else br_ypath(c, value, path, sizeof path);
    br_matrix A;
    if (br_matrix_read(path, mat ? value : NULL, (long)BR_SUP_MAX_N * BR_SUP_MAX_N, &A, err, sizeof err)) {
        file_fail(c, n, name, err);
        return -1;
    }
    char msg[1400];
    int i, j;
    const char *in = mat ? value : what;
    if (A.nrow != A.ncol) snprintf(msg, sizeof msg, "%s: %s is %d x %d: it must be square", path, in, A.nrow, A.ncol);
    else if (A.nrow > BR_SUP_MAX_N) snprintf(msg, sizeof msg, "%s: %s has %d rows, more than %d", path, in, A.nrow, BR_SUP_MAX_N);
    else if (*size && A.nrow != *size)
        snprintf(msg, sizeof msg, "%s: %s is %d x %d, the mass matrix %d x %d", path, in, A.nrow, A.nrow, *size, *size);
    else if (!br_superel_symmetric(A.nrow, A.a, &i, &j))
        snprintf(msg, sizeof msg, "%s: %s is not symmetric: entry (%d, %d) = %.17g, (%d, %d) = %.17g", path, in, i, j,
                 A.a[(long)(j - 1) * A.nrow + i - 1], j, i, A.a[(long)(i - 1) * A.nrow + j - 1]);
    else msg[0] = 0;
    /* mass, stiffness and damping are positive semi-definite: no negative diagonal entry (the cheap
     * necessary check; the run's factorization checks the mass with its bodies in full) */
    for (int r = 0; !msg[0] && r < A.nrow; r++)
        if (A.a[(long)r * A.nrow + r] < 0.0)
            snprintf(msg, sizeof msg, "%s: %s has a negative diagonal entry (%d, %d) = %.17g: it is not positive "
                     "semi-definite", path, in, r + 1, r + 1, A.a[(long)r * A.nrow + r]);
    if (msg[0]) {
        file_fail(c, n, name, msg);
        br_matrix_free(&A);
        return -1;
    }
    br_superel_symmetrize(A.nrow, A.a);
    *size = A.nrow;
    *out = A.a;
    return 0;
}

/* structure S (its node table read), its entry n -> `outputs: [LABEL.x, ...]`: the nodes' DOFs written as time-series
 * columns STRUCTURE.LABEL.x (the displacement along x; rx, ry, rz the rotations), each a DOF the node has */
static void read_outputs(ysrc *c, ynode *n, br_superel *S)
{
    static const char *const dn[] = {"x", "y", "z", "rx", "ry", "rz"};
    ynode *seq = br_ymap(c, n, "outputs");
    if (!seq || c->failed) return;
    const int no = br_ylen(c, seq, "outputs");
    if (c->failed) return;
    S->out_node = malloc((size_t)(no ? no : 1) * sizeof(int)), S->out_j = malloc((size_t)(no ? no : 1) * sizeof(int));
    br_yalloc(c, seq, S->out_node && S->out_j ? S->out_node : NULL);
    for (int k = 0; k < no && !c->failed; k++) {
        ynode *it = br_yitem(c, seq, k);
        const char *v = br_is_scalar(it) ? br_ystr(it) : "", *dot = strrchr(v, '.');
        int j = -1, node = -1;
        for (int d = 0; dot && d < 6; d++)
            if (!strcmp(dot + 1, dn[d])) j = d;
        for (int q = 0; dot && q < S->nnode; q++)
            if ((size_t)(dot - v) == strlen(S->label[q]) && !strncmp(S->label[q], v, (size_t)(dot - v))) node = q;
        if (j < 0 || node < 0) {
            br_yerr(c, it, "outputs: '%s' is not LABEL.x|y|z|rx|ry|rz with LABEL a node of structure '%s'", v, S->name);
            return;
        }
        if (S->row[6 * node + j] < 0) {
            br_yerr(c, it, "outputs: node '%s' of structure '%s' has no %s DOF", S->label[node], S->name, dn[j]);
            return;
        }
        S->out_node[k] = node, S->out_j[k] = j, S->nout = k + 1;
    }
}

static void read_one(ysrc *c, ynode *n, br_model *m, br_superel *S)
{
    static const char *const K[] = {"name", "file", "mass", "stiffness", "damping", "nodes", "outputs", NULL};
    static const char *const KD[] = {"matrix", "rayleigh", "modal", NULL};
    static const char *const KN[] = {"xyz", "dofs", "labels", NULL};
    static const char *const KR[] = {"a", "b", NULL};
    S->line = (int)n->start_mark.line + 1;
    if (br_ykeys(c, n, "a structure", K)) return;
    br_yname(c, n, S->name, "structure");
    for (int b = 0; b < m->nbeam; b++)
        br_ycheck(c, strcmp(m->beam[b].name, S->name) != 0, br_yat(c, n, "name"), "'%s' names a beam already", S->name);
    for (int k = 0; k < m->nsup && &m->sup[k] != S; k++)
        br_ycheck(c, strcmp(m->sup[k].name, S->name) != 0, br_yat(c, n, "name"), "duplicate structure name '%s'", S->name);
    const char *file = br_ystring(c, n, "file", 0);
    char mat[1024];
    if (file) {
        br_ypath(c, file, mat, sizeof mat);
        snprintf(S->mat, sizeof S->mat, "%s", mat);
        br_ycheck(c, br_matrix_is_mat(mat), br_yat(c, n, "file"), "file: a MATLAB .mat file (or give mass, stiffness as .mtx files)");
    }
    const char *km = br_ystring(c, n, "mass", !file), *kk = br_ystring(c, n, "stiffness", !file);
    if (c->failed) return;
    if (!km) km = "M";
    if (!kk) kk = "K";
    const char *fm = file ? mat : NULL;
    if (read_square(c, br_yat(c, n, file ? "file" : "mass"), S->name, fm, km, "the mass matrix", &S->n, &S->M)) return;
    br_yguard(c, n, 0, S->n);
    if (c->failed) return;
    if (read_square(c, br_yat(c, n, file ? "file" : "stiffness"), S->name, fm, kk, "the stiffness matrix", &S->n, &S->K))
        return;
    /* damping: a matrix (a file, or the .mat's variable), Rayleigh, modal ratios, or none */
    ynode *d = br_ymap(c, n, "damping");
    const char *dm = NULL;
    if (d && br_is_scalar(d)) dm = br_ystr(d);
    else if (d) {
        if (br_ykeys(c, d, "damping", KD)) return;
        const int nk = (br_ymap(c, d, "matrix") != NULL) + (br_ymap(c, d, "rayleigh") != NULL) + (br_ymap(c, d, "modal") != NULL);
        br_ycheck(c, nk == 1, d, "damping: give one of matrix, rayleigh, modal");
        dm = br_ystring(c, d, "matrix", 0);
    }
    if (c->failed) return;
    if (dm) {
        if (read_square(c, d, S->name, fm, dm, "the damping matrix", &S->n, &S->C)) return;
    } else {
        S->C = calloc((size_t)S->n * (size_t)S->n, sizeof(double));
        br_yalloc(c, n, S->C);
        if (c->failed) return;
        ynode *ray = d ? br_ymap(c, d, "rayleigh") : NULL, *mod = d ? br_ymap(c, d, "modal") : NULL;
        if (ray) {
            if (br_ykeys(c, ray, "rayleigh", KR)) return;
            const double a = br_ynum(c, ray, "a", 0, 0), b = br_ynum(c, ray, "b", 0, 0);
            br_ycheck(c, a >= 0 && b >= 0, ray, "Rayleigh coefficients must be >= 0");
            if (!c->failed) br_superel_rayleigh(S->n, S->M, S->K, a, b, S->C);
            for (long q = 0; !c->failed && q < (long)S->n * S->n; q++)
                br_ycheck(c, isfinite(S->C[q]), ray, "Rayleigh damping a M + b K overflows (entry %ld, %ld)", q % S->n + 1,
                          q / S->n + 1);
        } else if (mod) {
            const int all = br_is_scalar(mod), nz = all ? 1 : br_ylen(c, mod, "modal");
            br_ycheck(c, nz >= 1 && nz <= S->n, mod, "modal: a damping ratio for every mode, or a list of 1 to %d (the "
                      "modes in order of frequency; modes past the list undamped)", S->n);
            double *z = calloc((size_t)(nz > 0 ? nz : 1), sizeof(double));
            br_yalloc(c, mod, z);
            for (int k = 0; k < nz && !c->failed; k++) {
                z[k] = br_ynum_node(c, all ? mod : br_yitem(c, mod, k), "modal");
                br_ycheck(c, z[k] >= 0 && z[k] < 1, all ? mod : br_yitem(c, mod, k), "a modal damping ratio lies in [0, 1)");
            }
            const int rc = c->failed ? 0 : br_superel_modal_damping(S->n, S->M, S->K, z, nz, all, S->C);
            br_ycheck(c, rc != -1, mod, "modal damping: the mass matrix is not positive definite");
            br_ycheck(c, rc != -2, mod, "modal damping: out of memory");
            br_ycheck(c, rc != -3, mod, "modal damping: the stiffness matrix is not positive semi-definite (a mode with "
                      "a negative eigenvalue)");
            free(z);
        }
    }
    if (c->failed) return;
    /* the node table: a CSV file, or the .mat's arrays */
    ynode *nd = br_ymap(c, n, "nodes");
    if (!nd) return; /* a structure without nodes: nothing attaches to it (loads come by vectors) */
    br_node_table T;
    char err[1400], path[1024];
    int rc;
    if (br_is_scalar(nd)) {
        br_ypath(c, br_ystr(nd), path, sizeof path);
        rc = br_nodes_read_csv(path, &T, err, sizeof err);
    } else {
        if (br_ykeys(c, nd, "nodes", KN)) return;
        br_ycheck(c, file != NULL, nd, "nodes: {xyz, dofs, labels} name the variables of the structure's .mat file");
        const char *kx = br_ystring(c, nd, "xyz", 0), *kd = br_ystring(c, nd, "dofs", 0), *kl = br_ystring(c, nd, "labels", 0);
        if (c->failed) return;
        snprintf(path, sizeof path, "%s", mat);
        rc = br_nodes_read_mat(mat, kx ? kx : "node_xyz", kd ? kd : "node_dofs", kl, &T, err, sizeof err);
    }
    if (rc) {
        file_fail(c, nd, S->name, err);
        return;
    }
    /* every row inside the matrices, none taken by two DOFs */
    int *owner = calloc((size_t)S->n, sizeof(int));
    br_yalloc(c, nd, owner);
    for (int k = 0; k < T.n && !c->failed; k++)
        for (int j = 0; j < 6 && !c->failed; j++) {
            const int r = T.row[6 * k + j];
            static const char *const dn[] = {"ux", "uy", "uz", "rx", "ry", "rz"};
            if (r < 0) continue;
            if (r >= S->n) {
                snprintf(err, sizeof err, "%.900s: node '%s': %s is row %d, past the matrices' %d rows", path, T.label[k], dn[j],
                         r + 1, S->n);
                file_fail(c, nd, S->name, err);
            } else if (owner[r]) {
                snprintf(err, sizeof err, "%.900s: node '%s': %s is row %d, which another DOF has already", path, T.label[k],
                         dn[j], r + 1);
                file_fail(c, nd, S->name, err);
            } else owner[r] = 1;
        }
    free(owner);
    S->nnode = T.n, S->label = T.label, S->X = T.X, S->row = T.row; /* the model owns them now */
    read_outputs(c, n, S);
}

void br_read_structures(ysrc *c, ynode *seq, br_model *m)
{
    m->nsup = seq ? br_ylen(c, seq, "structures") : 0;
    m->sup = calloc((size_t)(m->nsup ? m->nsup : 1), sizeof *m->sup);
    br_yalloc(c, seq, m->sup);
    if (!m->sup) m->nsup = 0;
    for (int k = 0; k < m->nsup && !c->failed; k++) read_one(c, br_yitem(c, seq, k), m, &m->sup[k]);
}

int br_ystructure_node(ysrc *c, const br_model *m, ynode *at, const char *structure, ynode *node, int *part)
{
    for (int k = 0; k < m->nsup; k++) {
        const br_superel *S = &m->sup[k];
        if (strcmp(S->name, structure)) continue;
        *part = m->nbeam + k;
        const char *lab = br_is_scalar(node) ? br_ystr(node) : "";
        for (int j = 0; j < S->nnode; j++)
            if (!strcmp(S->label[j], lab)) return j;
        br_yerr(c, node, "structure '%s' has no node '%s'%s", structure, lab, S->nnode ? "" : " (it has no node table)");
        return -1;
    }
    br_yerr(c, at, "no structure named '%s'", structure);
    return -1;
}

double *br_ystructure_vector(ysrc *c, const br_model *m, ynode *at, const char *structure, ynode *value, int *part)
{
    for (int k = 0; k < m->nsup; k++) {
        const br_superel *S = &m->sup[k];
        if (strcmp(S->name, structure)) continue;
        *part = m->nbeam + k;
        if (!br_is_scalar(value)) {
            br_yerr(c, value, "vector: a variable of the structure's .mat file, or a Matrix Market file");
            return NULL;
        }
        char path[1024], err[1400], msg[1600];
        if (S->mat[0]) snprintf(path, sizeof path, "%s", S->mat);
        else br_ypath(c, br_ystr(value), path, sizeof path);
        br_matrix A;
        if (br_matrix_read(path, S->mat[0] ? br_ystr(value) : NULL, (long)S->n + 1, &A, err, sizeof err)) {
            snprintf(msg, sizeof msg, "%s (load vector, %s:%d)", err, c->file, (int)value->start_mark.line + 1);
        } else if ((A.nrow != S->n || A.ncol != 1) && (A.nrow != 1 || A.ncol != S->n)) {
            snprintf(msg, sizeof msg, "%s: the load vector is %d x %d; structure '%s' has %d rows (%s:%d)", path, A.nrow,
                     A.ncol, S->name, S->n, c->file, (int)value->start_mark.line + 1);
            br_matrix_free(&A);
        } else return A.a;
        if (!c->failed) snprintf(c->err, c->errlen, "%s", msg), c->failed = 1;
        return NULL;
    }
    br_yerr(c, at, "no structure named '%s'", structure);
    return NULL;
}

/* labels of a structure sorted for lookup */
static const br_superel *sort_sup;
static int cmp_label(const void *a, const void *b)
{
    return strcmp(sort_sup->label[*(const int *)a], sort_sup->label[*(const int *)b]);
}

/* structure S, its nodes' order by label (ord), a label -> the node's index, or -1 */
static int find_label(const br_superel *S, const int *ord, const char *lab)
{
    int lo = 0, hi = S->nnode - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2, c = strcmp(S->label[ord[mid]], lab);
        if (c == 0) return ord[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* unit normal n -> the point's frame rows t1, t2, n (R, row-major): t1 the world x axis made normal to
 * n (the y axis where n is within 25 degrees of x), t2 = n x t1 */
static void pair_frame(const double n[3], double R[9])
{
    const double e[3] = {fabs(n[0]) > 0.9 ? 0.0 : 1.0, fabs(n[0]) > 0.9 ? 1.0 : 0.0, 0.0};
    const double en = e[0] * n[0] + e[1] * n[1] + e[2] * n[2];
    double t1[3] = {e[0] - en * n[0], e[1] - en * n[1], e[2] - en * n[2]}, t2[3];
    const double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int j = 0; j < 3; j++) t1[j] /= l;
    t2[0] = n[1] * t1[2] - n[2] * t1[1], t2[1] = n[2] * t1[0] - n[0] * t1[2], t2[2] = n[0] * t1[1] - n[1] * t1[0];
    for (int j = 0; j < 3; j++) R[j] = t1[j], R[3 + j] = t2[j], R[6 + j] = n[j];
}

void br_read_interface(ysrc *c, ynode *itf, const br_model *m, br_cset *cs)
{
    static const char *const K[] = {"structure", "pairs", "faces", NULL};
    if (br_ykeys(c, itf, "interface", K)) return;
    const char *sn = br_ystring(c, itf, "structure", 1), *pf = br_ystring(c, itf, "pairs", 1);
    if (c->failed) return;
    const br_superel *S = NULL;
    for (int k = 0; k < m->nsup; k++)
        if (!strcmp(m->sup[k].name, sn)) S = &m->sup[k], cs->ipart = m->nbeam + k;
    if (!S) {
        br_yerr(c, br_yat(c, itf, "structure"), "no structure named '%s' (an interface joins nodes of a structure "
                "given as matrices)", sn);
        return;
    }
    char path[1024], err[1400], msg[1600];
    br_ypath(c, pf, path, sizeof path);
    br_pair_table P;
    if (br_pairs_read_csv(path, &P, err, sizeof err)) {
        file_fail_of(c, br_yat(c, itf, "pairs"), "contact set", cs->name, err);
        return;
    }
    const long np = P.n;
    int *ord = malloc((size_t)(S->nnode ? S->nnode : 1) * sizeof(int));
    cs->r = malloc((size_t)np * 3 * sizeof(double)), cs->area = malloc((size_t)np * sizeof(double));
    cs->iR = malloc((size_t)np * 9 * sizeof(double)), cs->g0 = calloc((size_t)np * 3, sizeof(double));
    cs->Lp = calloc((size_t)np * 3 + 1, sizeof(long));
    cs->Lj = malloc((size_t)np * 18 * sizeof(int)), cs->Lx = malloc((size_t)np * 18 * sizeof(double));
    cs->inode = malloc((size_t)np * sizeof(int));
    if (!ord || !cs->r || !cs->area || !cs->iR || !cs->g0 || !cs->Lp || !cs->Lj || !cs->Lx || !cs->inode) {
        free(ord);
        br_pair_table_free(&P);
        br_yerr(c, itf, "out of memory");
        return;
    }
    for (int k = 0; k < S->nnode; k++) ord[k] = k;
    sort_sup = S;
    qsort(ord, (size_t)S->nnode, sizeof(int), cmp_label);
    long nz = 0;
    for (long i = 0; i < np && !c->failed; i++) {
        const int a = find_label(S, ord, P.a[i]), b = P.b[i][0] ? find_label(S, ord, P.b[i]) : -1;
        if (a < 0 || (P.b[i][0] && b < 0)) {
            snprintf(msg, sizeof msg, "%s: point %ld: structure '%s' has no node '%s'", path, i + 1, S->name,
                     a < 0 ? P.a[i] : P.b[i]);
            file_fail_of(c, br_yat(c, itf, "pairs"), "contact set", cs->name, msg);
            break;
        }
        if (a == b) {
            snprintf(msg, sizeof msg, "%s: point %ld: node '%s' against itself", path, i + 1, P.a[i]);
            file_fail_of(c, br_yat(c, itf, "pairs"), "contact set", cs->name, msg);
            break;
        }
        double *R = cs->iR + 9 * i;
        cs->inode[i] = a;
        pair_frame(P.nrm + 3 * i, R);
        memcpy(cs->r + 3 * i, S->X + 3 * a, sizeof(double[3]));
        cs->area[i] = P.area[i];
        cs->g0[3 * i + 2] = P.gap[i];
        /* u_i = R (u_a - u_b): row j of the point, the node DOFs' rows with R's entries (none for a DOF the
         * node does not have: it does not move that way) */
        for (int j = 0; j < 3; j++) {
            for (int side = 0; side < 2; side++) {
                const int node = side ? b : a;
                if (node < 0) continue;
                for (int dd = 0; dd < 3; dd++) {
                    const int r = S->row[6 * node + dd];
                    const double v = side ? -R[3 * j + dd] : R[3 * j + dd];
                    if (r < 0 || v == 0.0) continue;
                    cs->Lj[nz] = r, cs->Lx[nz] = v, nz++;
                }
            }
            cs->Lp[3 * i + j + 1] = nz;
        }
    }
    free(ord);
    br_pair_table_free(&P);
    if (c->failed) return;
    if (br_ymap(c, itf, "faces")) { /* its surface, for the field snapshots: triangles over its points */
        const char *ff = br_ystring(c, itf, "faces", 1);
        if (c->failed) return;
        br_ypath(c, ff, path, sizeof path);
        br_face_table T;
        if (br_faces_read_csv(path, np, &T, err, sizeof err)) {
            file_fail_of(c, br_yat(c, itf, "faces"), "contact set", cs->name, err);
            return;
        }
        cs->surf_t = T.t, cs->nsurf_t = T.n, cs->surf_cells = 0, cs->meshed = 1;
        for (long i = 0; i < np; i++) /* the mean normal (the snapshot's map looks along it) */
            for (int j = 0; j < 3; j++) cs->mesh_normal[j] += cs->iR[9 * i + 6 + j] / (double)np;
    }
    br_contact_set_desc *d = &cs->desc;
    d->iface = 1, d->iR = cs->iR, d->npoints = np;
    d->frame_a = d->frame_b = 0, d->surface = BR_SURF_PLANE;
    d->plane_n[0] = d->plane_n[1] = 0.0, d->plane_n[2] = 1.0;
    br_yguard(c, itf, (double)np, 0);
}
