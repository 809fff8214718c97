/* mesh.h: triangle surface meshes for contact sets (OBJ, STL ASCII and binary,
 * PLY and whatever else assimp reads), their checks, and their sampling into
 * contact points with tributary areas (physics.md section 2: per-area contact
 * coefficients make totals independent of the point count). */
#ifndef BR_MESH_H
#define BR_MESH_H

#include <stddef.h>

typedef struct br_mesh {
    long nv, nt;
    double *V;  /* 3 nv vertex positions */
    long *T;    /* 3 nt vertex indices per triangle, counter-clockwise seen from the normal */
} br_mesh;

/* Largest fraction of zero-area triangles accepted (they are dropped); more is an error. */
#define BR_MESH_MAX_DEGENERATE 0.01

/* path, scale (file units -> m), rotation R (row-major, file -> body) and offset t -> mesh in
 * body coordinates, checked: readable, not empty, finite, at most BR_MESH_MAX_DEGENERATE
 * degenerate triangles, consistently oriented (every shared edge traversed in opposite
 * directions). NULL with "path: message" in err otherwise. */
br_mesh *br_mesh_load(const char *path, double scale, const double R[9], const double t[3], char *err,
                      size_t errlen);

void br_mesh_free(br_mesh *m);

/* mesh -> total area */
double br_mesh_area(const br_mesh *m);

/* mesh -> area-weighted unit normal of the whole mesh (the face direction of a planar patch) */
void br_mesh_normal(const br_mesh *m, double n[3]);

/* mesh -> one point per vertex carrying a third of the area of each of its triangles;
 * *r (3 np) and *area (np) allocated; returns np, or -1 */
long br_mesh_sample_vertices(const br_mesh *m, double **r, double **area);

/* mesh, spacing h -> the number of points br_mesh_sample_spacing gives, without allocating (the size
 * guard asks it first) */
double br_mesh_count_spacing(const br_mesh *m, double h);

/* mesh, spacing h -> every triangle split into k^2 similar triangles (k = ceil(longest edge / h)),
 * one point at each centroid with its area: near-uniform points on planar and curved faces;
 * *r, *area allocated; returns np, or -1 */
long br_mesh_sample_spacing(const br_mesh *m, double h, double **r, double **area);

/* mesh -> the triangles of br_mesh_sample_vertices's points: *tri (3 nt) allocated, each vertex
 * renumbered as that function numbers its points (unused vertices dropped); nt, or -1 */
long br_mesh_surface_vertices(const br_mesh *m, long **tri);

/* mesh, spacing h -> the sub-triangles of br_mesh_sample_spacing, sub-triangle p around its point p:
 * *V (3 *nv, the lattice vertices of each triangle; an edge shared by two triangles has its lattice
 * points once per triangle) and *tri (3 np) allocated; np, or -1 */
long br_mesh_surface_spacing(const br_mesh *m, double h, double **V, long *nv, long **tri);

#endif
