/* matrix_file.h: the files a structure given as matrices comes in (physics.md 5.1, docs/structures.md):
 * Matrix Market (.mtx, sparse "coordinate" or dense "array", read and written by SuiteSparse's
 * CHOLMOD), MATLAB (.mat v5, v7 and v7.3, read by libmatio; dense or sparse, any real numeric class),
 * and the node table (CSV). In: a path (and for .mat a variable name); out: the values, dense and
 * column-major, or "path: message" (for the CSV "path:line: message") and nothing kept. */
#ifndef BR_MATRIX_FILE_H
#define BR_MATRIX_FILE_H

#include <stddef.h>

typedef struct br_matrix {
    int nrow, ncol;
    double *a; /* nrow x ncol, column-major */
} br_matrix;

/* path -> 1 if its name ends in .mat (a MATLAB file), else 0 (Matrix Market) */
int br_matrix_is_mat(const char *path);

/* path, key (the .mat variable; NULL for .mtx) -> A (owned by the caller: br_matrix_free); 0, or -1
 * with "path: message" in err (missing file or key, complex or non-numeric values, a pattern-only
 * Matrix Market file, a NaN or infinite entry, more than max_entries entries, out of memory) */
int br_matrix_read(const char *path, const char *key, long max_entries, br_matrix *A, char *err, size_t errlen);

void br_matrix_free(br_matrix *A);

/* path, n, A (n x n column-major, symmetric: its lower triangle is written) -> a Matrix Market
 * "coordinate real symmetric" file whose values read back bitwise (CHOLMOD writes the shortest decimal
 * that does); 0, or -1 with "path: message" */
int br_matrix_write_sym(const char *path, int n, const double *A, char *err, size_t errlen);

/* The node table: per node a label, its position and the rows (counted from 1, as in the .mtx file and
 * MATLAB; 0 none) of its displacement DOFs ux uy uz and, where it has them, its rotations rx ry rz. */
typedef struct br_node_table {
    int n;
    char (*label)[64];
    double *X; /* 3 n */
    int *row;  /* 6 n: 0-based row of (ux, uy, uz, rx, ry, rz), -1 none */
} br_node_table;

/* CSV with the header label,x,y,z,ux,uy,uz[,rx,ry,rz] -> T; 0, or -1 with "path:line: message" (a
 * malformed row, a duplicate label, a row number that is not a whole number >= 0) */
int br_nodes_read_csv(const char *path, br_node_table *T, char *err, size_t errlen);

/* .mat path, keys of the positions (nnode x 3), the DOF rows (nnode x 3 or x 6, from 1, 0 none) and the
 * labels (optional: numbers; NULL or absent: 1..nnode) -> T; 0, or -1 with "path: message" */
int br_nodes_read_mat(const char *path, const char *kxyz, const char *kdof, const char *klabel, br_node_table *T,
                      char *err, size_t errlen);

/* path, T -> the CSV br_nodes_read_csv reads; 0, or -1 with "path: message" */
int br_nodes_write_csv(const char *path, const br_node_table *T, char *err, size_t errlen);

void br_node_table_free(br_node_table *T);

/* A deforming interface's points (docs/structures.md): per point the labels of its two nodes (b ""
 * for the ground), the normal n (unit, world; out of b toward a), its area and its normal gap at
 * q = 0 (negative: interference). */
typedef struct br_pair_table {
    int n;
    char (*a)[64], (*b)[64];
    double *nrm; /* 3 n */
    double *area, *gap;
} br_pair_table;

/* CSV with the header a,b,nx,ny,nz,area or a,b,nx,ny,nz,area,gap -> P; 0, or -1 with "path:line:
 * message" (a malformed row, a normal that is not a unit vector within 1e-9, an area <= 0) */
int br_pairs_read_csv(const char *path, br_pair_table *P, char *err, size_t errlen);

void br_pair_table_free(br_pair_table *P);

/* A deforming interface's faces, for its field snapshots (docs/structures.md): triangles over its points. */
typedef struct br_face_table {
    long n;     /* triangles */
    long *t;    /* 3 n point indices (from 0) */
    long np;    /* the interface's points (the corners' range) */
} br_face_table;

/* CSV with the header p1,p2,p3 or p1,p2,p3,p4: one face a row, its corners the interface's points (1-based rows of
 * its pairs table, np of them) counter-clockwise seen along the normal, p4 empty for a triangle; a quadrilateral
 * split along p1-p3 -> T; 0, or -1 with "path:line: message" (a corner that is not a point, a corner twice) */
int br_faces_read_csv(const char *path, long np, br_face_table *T, char *err, size_t errlen);

void br_face_table_free(br_face_table *T);

#endif
