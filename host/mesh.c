/* mesh.c: surface meshes through assimp's C API (no hand-written parsers), checks,
 * and sampling into contact points. */
#include "mesh.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "br_hd.h"

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

/* mesh -> number of shared edges whose two triangles traverse it in the same direction */
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

br_mesh *br_mesh_load(const char *path, double scale, const double R[9], const double t[3], char *err,
                      size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open the mesh file", path);
        return NULL;
    }
    fclose(fp);
    const struct aiScene *sc = aiImportFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                                      aiProcess_PreTransformVertices |
                                                      aiProcess_ValidateDataStructure);
    if (!sc) {
        snprintf(err, errlen, "%s: not a readable mesh (%s)", path, aiGetErrorString());
        return NULL;
    }
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
    m->V = malloc((size_t)nv * 3 * sizeof(double));
    m->T = malloc((size_t)nt * 3 * sizeof(long));
    if (!m->V || !m->T) {
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

long br_mesh_sample_spacing(const br_mesh *m, double h, double **r, double **area)
{
    long np = 0;
    int *kk = malloc((size_t)m->nt * sizeof(int));
    if (!kk) return -1;
    for (long t = 0; t < m->nt; t++) {
        double L = 0;
        for (int e = 0; e < 3; e++) {
            const double *a = m->V + 3 * m->T[3 * t + e], *b = m->V + 3 * m->T[3 * t + (e + 1) % 3];
            const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
            L = fmax(L, br_norm3(d));
        }
        const double k = ceil(L / h);
        kk[t] = k < 1 ? 1 : k > 4096 ? 4096 : (int)k;
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
