/* mesh.c: surface meshes through assimp's C API (no hand-written parsers), checks,
 * and sampling into contact points. */
#include "io/mesh.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/br_hd.h"
#include "base/textfile.h"

void br_mesh_free(br_mesh *m)
{
    if (!m) return;
    free(m->V);
    free(m->T);
    free(m);
}

/* triangle t -> twice its area vector (b - a) x (c - a) */
static void tri_cross(const br_mesh *m, long t, double c[3])
{
    const double *a = m->V + 3 * m->T[3 * t], *b = m->V + 3 * m->T[3 * t + 1], *d = m->V + 3 * m->T[3 * t + 2];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    c[0] = u[1] * v[2] - u[2] * v[1];
    c[1] = u[2] * v[0] - u[0] * v[2];
    c[2] = u[0] * v[1] - u[1] * v[0];
}

typedef struct edge {
    long lo, hi;
    int dir;
} edge;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return a->dir - b->dir;
}

/* mesh -> number of shared edges whose two triangles traverse it in the same direction; -1: out of memory */
static long orientation_conflicts(const br_mesh *m)
{
    edge *e = malloc((size_t)m->nt * 3 * sizeof *e);
    if (!e) return -1;
    for (long t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            const long a = m->T[3 * t + k], b = m->T[3 * t + (k + 1) % 3];
            e[3 * t + k] = (edge){a < b ? a : b, a < b ? b : a, a < b ? 1 : -1};
        }
    qsort(e, (size_t)m->nt * 3, sizeof *e, edge_cmp);
    long bad = 0;
    for (long i = 0; i + 1 < m->nt * 3; i++)
        if (e[i].lo == e[i + 1].lo && e[i].hi == e[i + 1].hi && e[i].dir == e[i + 1].dir) bad++;
    free(e);
    return bad;
}

/* ---- PLY structure check ----
 * assimp trusts a PLY header's element counts: a file that holds fewer vertices or faces than its
 * header promises ends in an assertion inside assimp that aborts the process. So before assimp
 * sees a PLY file, its body is walked once against its header (counts, property types, lists);
 * the walk only measures, the values are read by assimp. */

/* PLY scalar type name -> its size in bytes, or 0 */
static int ply_size(const char *t)
{
    static const char *const N1[] = {"char", "uchar", "int8", "uint8"}, *const N2[] = {"short", "ushort", "int16", "uint16"},
                             *const N4[] = {"int", "uint", "float", "int32", "uint32", "float32"},
                             *const N8[] = {"double", "float64"};
    for (int k = 0; k < 4; k++) if (!strcmp(t, N1[k])) return 1;
    for (int k = 0; k < 4; k++) if (!strcmp(t, N2[k])) return 2;
    for (int k = 0; k < 6; k++) if (!strcmp(t, N4[k])) return 4;
    for (int k = 0; k < 2; k++) if (!strcmp(t, N8[k])) return 8;
    return 0;
}

typedef struct ply_prop {
    int size;      /* scalar: its size; list: the item size */
    int count_size; /* list: the size of its count, else 0 */
} ply_prop;

typedef struct ply_elem {
    char name[32];
    int is_vertex, is_face;
    long count;
    int nprop;
    ply_prop prop[16];
} ply_elem;

/* binary: the list count at p (size bytes, little or big endian) -> its value, or -1 */
static long ply_count(const unsigned char *p, int size, int big)
{
    unsigned long v = 0;
    for (int k = 0; k < size; k++) v |= (unsigned long)p[big ? size - 1 - k : k] << (8 * k);
    if (size == 1 || (size == 2 && !(v & 0x8000)) || (size == 4 && !(v & 0x80000000ul))) return (long)v;
    return -1; /* a negative count of a signed type, or an 8-byte count */
}

/* ascii body at *p -> the next number in *v and *p past it; 0, or -1 at the end or on a non-number */
static int ply_token(const unsigned char **p, const unsigned char *end, double *v)
{
    while (*p < end && isspace(**p)) (*p)++;
    if (*p == end) return -1;
    char num[64];
    size_t n = 0;
    while (*p + n < end && !isspace((*p)[n]) && n < sizeof num - 1) num[n] = (char)(*p)[n], n++;
    num[n] = 0;
    char *q;
    *v = strtod(num, &q);
    if (q == num || *q) return -1;
    *p += n;
    return 0;
}

/* path of a .ply file -> 0 if it starts with the line "ply" and its body holds what its header
 * promises; -1 with err. assimp reads any .ply file as PLY, whatever its first line (a "ply" followed
 * by a blank, or no magic at all, once crashed or hung it), so every .ply file passes here. */
static int ply_check(const char *path, char *err, size_t errlen)
{
    size_t len;
    char rerr[256];
    char *text = br_read_text(path, &len, rerr, sizeof rerr);
    if (!text) {
        snprintf(err, errlen, "%s", rerr);
        return -1;
    }
    if (len < 4 || memcmp(text, "ply", 3) || (text[3] != '\n' && text[3] != '\r')) {
        snprintf(err, errlen, "%s: not a PLY file (its first line must be 'ply')", path);
        free(text);
        return -1;
    }
    ply_elem el[8];
    int nel = 0, format = -1, bad = 0; /* format: 0 ascii, 1 little endian, 2 big endian */
    size_t pos = 0;
    const char *body = NULL;
    while (pos < len && !body && !bad) { /* header lines */
        const char *line = text + pos, *eol = memchr(line, '\n', len - pos);
        const size_t ll = eol ? (size_t)(eol - line) : len - pos;
        pos += ll + 1;
        char buf[256], w1[64] = "", w2[64] = "", w3[64] = "", w4[64] = "";
        snprintf(buf, sizeof buf, "%.*s", (int)(ll < 255 ? ll : 255), line);
        const int nw = sscanf(buf, "%63s %63s %63s %63s", w1, w2, w3, w4);
        if (nw <= 0 || !strcmp(w1, "comment") || !strcmp(w1, "obj_info") || !strcmp(w1, "ply")) continue;
        if (!strcmp(w1, "end_header")) body = text + (pos < len ? pos : len);
        else if (!strcmp(w1, "format"))
            format = !strcmp(w2, "ascii") ? 0 : !strcmp(w2, "binary_little_endian") ? 1 : !strcmp(w2, "binary_big_endian") ? 2 : -1;
        else if (!strcmp(w1, "element") && nw == 3 && nel < 8) {
            char *end;
            const long n = strtol(w3, &end, 10);
            bad = *end || n < 0 || n > (1L << 40);
            snprintf(el[nel].name, sizeof el[nel].name, "%s", w2);
            el[nel].is_vertex = !strcmp(w2, "vertex"), el[nel].is_face = !strcmp(w2, "face");
            el[nel].count = n, el[nel].nprop = 0;
            nel++;
        } else if (!strcmp(w1, "property") && nel > 0 && el[nel - 1].nprop < 16) {
            ply_prop *pr = &el[nel - 1].prop[el[nel - 1].nprop++];
            if (!strcmp(w2, "list")) pr->count_size = ply_size(w3), pr->size = ply_size(w4), bad = !pr->count_size || !pr->size;
            else pr->count_size = 0, pr->size = ply_size(w2), bad = !pr->size;
        } else bad = 1;
    }
    if (bad || !body || format < 0) {
        snprintf(err, errlen, "%s: not a valid PLY header (format, element and property lines up to end_header)", path);
        free(text);
        return -1;
    }
    const unsigned char *p = (const unsigned char *)body, *end = (const unsigned char *)text + len;
    long nvert = 0;
    for (int e = 0; e < nel; e++)
        if (el[e].is_vertex) nvert = el[e].count;
    for (int e = 0; e < nel && !bad; e++)
        for (long i = 0; i < el[e].count && !bad; i++)
            for (int k = 0; k < el[e].nprop && !bad; k++) {
                const ply_prop *pr = &el[e].prop[k];
                long items = 1;
                /* a face's index list: at least 3 indices, each a vertex of the file */
                const int face = pr->count_size && el[e].is_face;
                if (format == 0) { /* ascii: whitespace-separated numbers, a list's count first */
                    double v;
                    bad = ply_token(&p, end, &v);
                    if (!bad && pr->count_size) {
                        if (v >= (face ? 3 : 0) && v <= 1e6 && v == floor(v)) items = (long)v;
                        else bad = 1;
                        for (long t = 0; t < items && !bad; t++) {
                            bad = ply_token(&p, end, &v);
                            if (face && !(v >= 0 && v < nvert && v == floor(v))) bad = 1;
                        }
                    }
                } else {
                    if (pr->count_size) {
                        if (end - p < pr->count_size) bad = 1;
                        else items = ply_count(p, pr->count_size, format == 2), p += pr->count_size;
                        if (items < (face ? 3 : 0)) bad = 1;
                    }
                    if (!bad && (end - p) / pr->size < items) bad = 1;
                    for (long t = 0; face && !bad && t < items; t++) /* indices are integers: read them */
                        if (pr->size > 4 || !(ply_count(p + t * pr->size, pr->size, format == 2) < nvert)) bad = 1;
                    if (!bad) p += items * pr->size;
                }
                if (bad)
                    snprintf(err, errlen, "%s: the header promises %ld %s elements but the file ends (or is malformed) "
                                          "at number %ld",
                             path, el[e].count, el[e].name, i);
            }
    if (!bad && format == 0)
        while (p < end && isspace(*p)) p++;
    if (!bad && p != end) {
        snprintf(err, errlen, "%s: %ld bytes follow the elements the header announces (a header whose counts do "
                              "not match the data)", path, (long)(end - p));
        bad = 1;
    }
    free(text);
    return bad ? -1 : 0;
}

br_mesh *br_mesh_load(const char *path, double scale, const double R[9], const double t[3], char *err,
                      size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        /* the large meshes the shipped scenarios read are generated, not committed (scripts/meshes.sh) */
        const int generated = strstr(path, "meshes/generated/") != NULL;
        snprintf(err, errlen, "%s: cannot open the mesh file%s", path,
                 generated ? " (a generated mesh: `sh scripts/meshes.sh` in the Bristle checkout makes it, as "
                             "the set-up of scripts/demo.sh and scripts/test.sh does)"
                           : "");
        return NULL;
    }
    fclose(fp);
    /* the format by the extension alone: assimp then uses that one importer (with an extension it
     * does not know it guesses by content, through readers nobody here fuzzes) */
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    const int ply = dot && !strcasecmp(dot, ".ply"), known = dot && (!slash || dot > slash) &&
                                                             (ply || !strcasecmp(dot, ".stl") || !strcasecmp(dot, ".obj"));
    if (!known) {
        snprintf(err, errlen, "%s: a mesh file is STL (.stl), PLY (.ply) or Wavefront OBJ (.obj), named by its extension",
                 path);
        return NULL;
    }
    if (ply && ply_check(path, err, errlen)) return NULL;
    /* assimp's C API keeps its last error in one global: one import at a time (a study's variants
     * are set up on several threads) */
    const struct aiScene *sc;
#pragma omp critical(br_assimp_import)
    {
        sc = aiImportFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices |
                                    aiProcess_ValidateDataStructure);
        if (!sc) snprintf(err, errlen, "%s: not a readable mesh (%s)", path, aiGetErrorString());
    }
    if (!sc) return NULL;
    long nv = 0, nt = 0;
    for (unsigned k = 0; k < sc->mNumMeshes; k++) {
        nv += sc->mMeshes[k]->mNumVertices;
        for (unsigned f = 0; f < sc->mMeshes[k]->mNumFaces; f++) nt += sc->mMeshes[k]->mFaces[f].mNumIndices == 3;
    }
    if (nt == 0) {
        snprintf(err, errlen, "%s: the mesh has no triangles", path);
        aiReleaseImport(sc);
        return NULL;
    }
    br_mesh *m = calloc(1, sizeof *m);
    if (m) m->V = malloc((size_t)nv * 3 * sizeof(double)), m->T = malloc((size_t)nt * 3 * sizeof(long));
    if (!m || !m->V || !m->T) {
        snprintf(err, errlen, "%s: out of memory", path);
        aiReleaseImport(sc);
        br_mesh_free(m);
        return NULL;
    }
    for (unsigned k = 0; k < sc->mNumMeshes; k++) {
        const struct aiMesh *am = sc->mMeshes[k];
        const long v0 = m->nv;
        for (unsigned i = 0; i < am->mNumVertices; i++) {
            const double p[3] = {am->mVertices[i].x * scale, am->mVertices[i].y * scale, am->mVertices[i].z * scale};
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
                snprintf(err, errlen, "%s: vertex %ld has a non-finite coordinate", path, m->nv);
                aiReleaseImport(sc);
                br_mesh_free(m);
                return NULL;
            }
            for (int j = 0; j < 3; j++)
                m->V[3 * m->nv + j] = R[3 * j] * p[0] + R[3 * j + 1] * p[1] + R[3 * j + 2] * p[2] + t[j];
            m->nv++;
        }
        for (unsigned f = 0; f < am->mNumFaces; f++) {
            if (am->mFaces[f].mNumIndices != 3) continue; /* points and lines carry no area */
            for (int j = 0; j < 3; j++) m->T[3 * m->nt + j] = v0 + am->mFaces[f].mIndices[j];
            m->nt++;
        }
    }
    aiReleaseImport(sc);
    /* degenerate triangles: zero area relative to the mesh scale */
    double diag = 0.0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (long i = 0; i < m->nv; i++)
        for (int j = 0; j < 3; j++) lo[j] = fmin(lo[j], m->V[3 * i + j]), hi[j] = fmax(hi[j], m->V[3 * i + j]);
    for (int j = 0; j < 3; j++) diag += (hi[j] - lo[j]) * (hi[j] - lo[j]);
    long keep = 0, degenerate = 0;
    for (long k = 0; k < m->nt; k++) {
        double c[3];
        tri_cross(m, k, c);
        if (br_norm3(c) <= 1e-12 * diag) {
            degenerate++;
            continue;
        }
        memmove(m->T + 3 * keep, m->T + 3 * k, 3 * sizeof(long));
        keep++;
    }
    if (degenerate > BR_MESH_MAX_DEGENERATE * m->nt || keep == 0) {
        snprintf(err, errlen, "%s: %ld of %ld triangles have zero area (more than %.0f %%)", path, degenerate,
                 m->nt, 100 * BR_MESH_MAX_DEGENERATE);
        br_mesh_free(m);
        return NULL;
    }
    m->nt = keep;
    const long bad = orientation_conflicts(m);
    if (bad < 0) {
        snprintf(err, errlen, "%s: out of memory checking the orientation", path);
        br_mesh_free(m);
        return NULL;
    }
    if (bad != 0) {
        snprintf(err, errlen, "%s: inconsistent orientation: %ld shared edges run the same way in both of their "
                              "triangles (flip the offending faces so every normal points out of the surface)",
                 path, bad);
        br_mesh_free(m);
        return NULL;
    }
    return m;
}

double br_mesh_area(const br_mesh *m)
{
    double a = 0.0;
    for (long t = 0; t < m->nt; t++) {
        double c[3];
        tri_cross(m, t, c);
        a += 0.5 * br_norm3(c);
    }
    return a;
}

void br_mesh_normal(const br_mesh *m, double n[3])
{
    double s[3] = {0, 0, 0};
    for (long t = 0; t < m->nt; t++) {
        double c[3];
        tri_cross(m, t, c);
        for (int j = 0; j < 3; j++) s[j] += c[j];
    }
    const double l = br_norm3(s);
    for (int j = 0; j < 3; j++) n[j] = l > 0 ? s[j] / l : 0.0;
}

long br_mesh_sample_vertices(const br_mesh *m, double **r, double **area)
{
    *r = malloc((size_t)m->nv * 3 * sizeof(double));
    *area = calloc((size_t)m->nv, sizeof(double));
    if (!*r || !*area) return -1;
    memcpy(*r, m->V, (size_t)m->nv * 3 * sizeof(double));
    for (long t = 0; t < m->nt; t++) {
        double c[3];
        tri_cross(m, t, c);
        const double a3 = br_norm3(c) / 6.0;
        for (int k = 0; k < 3; k++) (*area)[m->T[3 * t + k]] += a3;
    }
    /* vertices used by no triangle carry no area: drop them */
    long np = 0;
    for (long i = 0; i < m->nv; i++) {
        if (!((*area)[i] > 0)) continue;
        memmove(*r + 3 * np, *r + 3 * i, 3 * sizeof(double));
        (*area)[np++] = (*area)[i];
    }
    return np;
}

/* triangle t, spacing h -> k, the splits of each edge (1..4096): its longest edge over h, rounded up */
static int tri_splits(const br_mesh *m, long t, double h)
{
    double L = 0;
    for (int e = 0; e < 3; e++) {
        const double *a = m->V + 3 * m->T[3 * t + e], *b = m->V + 3 * m->T[3 * t + (e + 1) % 3];
        const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        L = fmax(L, br_norm3(d));
    }
    const double k = ceil(L / h);
    return k < 1 ? 1 : k > 4096 ? 4096 : (int)k;
}

double br_mesh_count_spacing(const br_mesh *m, double h)
{
    double np = 0;
    for (long t = 0; t < m->nt; t++) {
        const double k = tri_splits(m, t, h);
        np += k * k;
    }
    return np;
}

long br_mesh_sample_spacing(const br_mesh *m, double h, double **r, double **area)
{
    long np = 0;
    int *kk = malloc((size_t)m->nt * sizeof(int));
    if (!kk) return -1;
    for (long t = 0; t < m->nt; t++) {
        kk[t] = tri_splits(m, t, h);
        np += (long)kk[t] * kk[t];
    }
    *r = malloc((size_t)np * 3 * sizeof(double));
    *area = malloc((size_t)np * sizeof(double));
    if (!*r || !*area) {
        free(kk);
        return -1;
    }
    long p = 0;
    for (long t = 0; t < m->nt; t++) {
        const double *A = m->V + 3 * m->T[3 * t], *B = m->V + 3 * m->T[3 * t + 1], *C = m->V + 3 * m->T[3 * t + 2];
        double c[3];
        tri_cross(m, t, c);
        const int k = kk[t];
        const double sub = 0.5 * br_norm3(c) / ((double)k * k);
        /* barycentric lattice: upward triangles (i, j), (i+1, j), (i, j+1) and downward ones */
        for (int i = 0; i < k; i++)
            for (int j = 0; i + j < k; j++)
                for (int up = 0; up < 2; up++) {
                    if (!up && i + j + 1 >= k) continue;
                    const double bi = up ? (3.0 * i + 1.0) / (3.0 * k) : (3.0 * i + 2.0) / (3.0 * k);
                    const double bj = up ? (3.0 * j + 1.0) / (3.0 * k) : (3.0 * j + 2.0) / (3.0 * k);
                    for (int q = 0; q < 3; q++) (*r)[3 * p + q] = A[q] + bi * (B[q] - A[q]) + bj * (C[q] - A[q]);
                    (*area)[p++] = sub;
                }
    }
    free(kk);
    return p;
}

long br_mesh_surface_vertices(const br_mesh *m, long **tri)
{
    long *idx = malloc((size_t)(m->nv ? m->nv : 1) * sizeof(long));
    *tri = malloc((size_t)(m->nt ? m->nt : 1) * 3 * sizeof(long));
    if (!idx || !*tri) {
        free(idx);
        return -1;
    }
    /* a vertex is a point iff a triangle uses it (degenerate triangles were dropped on loading, so
     * every triangle adds area to its vertices) */
    for (long i = 0; i < m->nv; i++) idx[i] = -1;
    for (long q = 0; q < 3 * m->nt; q++) idx[m->T[q]] = 0;
    long np = 0;
    for (long i = 0; i < m->nv; i++)
        if (idx[i] == 0) idx[i] = np++;
    for (long q = 0; q < 3 * m->nt; q++) (*tri)[q] = idx[m->T[q]];
    free(idx);
    return m->nt;
}

/* lattice vertex (i, j), i + j <= k, of a triangle split k times -> its index among the triangle's */
static long lattice(int k, int i, int j) { return (long)i * (k + 1) - (long)i * (i - 1) / 2 + j; }

long br_mesh_surface_spacing(const br_mesh *m, double h, double **V, long *nv, long **tri)
{
    long np = 0, nl = 0;
    for (long t = 0; t < m->nt; t++) {
        const long k = tri_splits(m, t, h);
        np += k * k, nl += (k + 1) * (k + 2) / 2;
    }
    *V = malloc((size_t)nl * 3 * sizeof(double));
    *tri = malloc((size_t)np * 3 * sizeof(long));
    if (!*V || !*tri) return -1;
    long p = 0, v0 = 0;
    for (long t = 0; t < m->nt; t++) {
        const double *A = m->V + 3 * m->T[3 * t], *B = m->V + 3 * m->T[3 * t + 1], *C = m->V + 3 * m->T[3 * t + 2];
        const int k = tri_splits(m, t, h);
        for (int i = 0; i <= k; i++)
            for (int j = 0; i + j <= k; j++)
                for (int q = 0; q < 3; q++)
                    (*V)[3 * (v0 + lattice(k, i, j)) + q] =
                        A[q] + (double)i / k * (B[q] - A[q]) + (double)j / k * (C[q] - A[q]);
        /* in br_mesh_sample_spacing's order: at each (i, j) the downward (i+1, j) (i+1, j+1) (i, j+1) where
         * it exists, then the upward (i, j) (i+1, j) (i, j+1); both counter-clockwise as A B C */
        for (int i = 0; i < k; i++)
            for (int j = 0; i + j < k; j++)
                for (int up = 0; up < 2; up++) {
                    if (!up && i + j + 1 >= k) continue;
                    long *c = *tri + 3 * p++;
                    if (up) c[0] = lattice(k, i, j), c[1] = lattice(k, i + 1, j), c[2] = lattice(k, i, j + 1);
                    else c[0] = lattice(k, i + 1, j), c[1] = lattice(k, i + 1, j + 1), c[2] = lattice(k, i, j + 1);
                    for (int q = 0; q < 3; q++) c[q] += v0;
                }
        v0 += (long)(k + 1) * (k + 2) / 2;
    }
    *nv = nl;
    return np;
}
