/* matrix_file.c: Matrix Market through CHOLMOD, MATLAB files through libmatio, the node table's CSV
 * (matrix_file.h). Every reader checks what it returns (finite, the sizes it says) and keeps nothing
 * of a file it refuses. */
#include "io/matrix_file.h"

#include <cholmod.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <matio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", path, msg);
    return -1;
}

int br_matrix_is_mat(const char *path)
{
    const size_t n = strlen(path);
    return n >= 4 && !strcmp(path + n - 4, ".mat");
}

void br_matrix_free(br_matrix *A)
{
    if (!A) return;
    free(A->a);
    A->a = NULL, A->nrow = A->ncol = 0;
}

/* A's entries all finite, else the first that is not named in err */
static int check_finite(const char *path, const br_matrix *A, char *err, size_t errlen)
{
    for (long j = 0; j < A->ncol; j++)
        for (long i = 0; i < A->nrow; i++)
            if (!isfinite(A->a[j * A->nrow + i]))
                return fail(err, errlen, path, "entry (%ld, %ld) is %g: every entry must be finite", i + 1, j + 1,
                            A->a[j * A->nrow + i]);
    return 0;
}

static int alloc_dense(const char *path, long nrow, long ncol, long max_entries, br_matrix *A, char *err,
                       size_t errlen)
{
    if (nrow < 1 || ncol < 1) return fail(err, errlen, path, "the matrix is empty (%ld x %ld)", nrow, ncol);
    if ((double)nrow * (double)ncol > (double)max_entries)
        return fail(err, errlen, path, "a %ld x %ld matrix is more than the %ld entries a structure may have", nrow,
                    ncol, max_entries);
    A->a = calloc((size_t)nrow * (size_t)ncol, sizeof(double));
    if (!A->a) return fail(err, errlen, path, "out of memory for a %ld x %ld matrix", nrow, ncol);
    A->nrow = (int)nrow, A->ncol = (int)ncol;
    return 0;
}

/* Matrix Market by CHOLMOD: a sparse file comes back with both triangles (prefer = 1), duplicates summed */
static int read_mtx(const char *path, long max_entries, br_matrix *A, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return fail(err, errlen, path, "cannot open (%s)", strerror(errno));
    cholmod_common cm;
    cholmod_start(&cm);
    cm.print = 0;
    cm.error_handler = NULL;
    int mtype = 0, rc = 0;
    void *obj = cholmod_read_matrix(fp, 1, &mtype, &cm);
    fclose(fp);
    if (!obj) {
        rc = fail(err, errlen, path, "%s",
                  cm.status == CHOLMOD_OUT_OF_MEMORY ? "out of memory"
                                                     : "not a Matrix Market file CHOLMOD reads (a header "
                                                       "'%%MatrixMarket matrix coordinate|array real|integer "
                                                       "general|symmetric', then the sizes and the entries)");
    } else if (mtype == CHOLMOD_DENSE) {
        cholmod_dense *D = obj;
        if (D->xtype != CHOLMOD_REAL) rc = fail(err, errlen, path, "complex values (a structure's matrices are real)");
        else if (!(rc = alloc_dense(path, (long)D->nrow, (long)D->ncol, max_entries, A, err, errlen)))
            for (size_t j = 0; j < D->ncol; j++)
                for (size_t i = 0; i < D->nrow; i++) A->a[j * D->nrow + i] = ((double *)D->x)[j * D->d + i];
        cholmod_free_dense(&D, &cm);
    } else {
        cholmod_sparse *S = obj;
        if (mtype != CHOLMOD_SPARSE) rc = fail(err, errlen, path, "unexpected CHOLMOD matrix type %d", mtype);
        else if (S->xtype == CHOLMOD_PATTERN) rc = fail(err, errlen, path, "a pattern file has no values");
        else if (S->xtype != CHOLMOD_REAL) rc = fail(err, errlen, path, "complex values (a structure's matrices are real)");
        else if (!(rc = alloc_dense(path, (long)S->nrow, (long)S->ncol, max_entries, A, err, errlen))) {
            const int *p = S->p, *ix = S->i, *nz = S->nz;
            const double *x = S->x;
            for (size_t j = 0; j < S->ncol; j++) {
                const int end = S->packed ? p[j + 1] : p[j] + nz[j];
                for (int k = p[j]; k < end; k++) A->a[j * S->nrow + (size_t)ix[k]] += x[k];
            }
        }
        if (mtype == CHOLMOD_SPARSE) cholmod_free_sparse(&S, &cm);
        else if (mtype == CHOLMOD_TRIPLET) {
            cholmod_triplet *T = obj;
            cholmod_free_triplet(&T, &cm);
        }
    }
    cholmod_finish(&cm);
    if (rc == 0 && check_finite(path, A, err, errlen)) rc = -1;
    if (rc) br_matrix_free(A);
    return rc;
}

/* matio's own messages go nowhere: every failure is worded here */
static void matio_quiet(int level, char *message)
{
    (void)level, (void)message;
}

static double mat_value(const matvar_t *v, const void *data, size_t k)
{
    switch (v->class_type) {
    case MAT_C_DOUBLE: return ((const double *)data)[k];
    case MAT_C_SINGLE: return ((const float *)data)[k];
    case MAT_C_INT8: return ((const signed char *)data)[k];
    case MAT_C_UINT8: return ((const unsigned char *)data)[k];
    case MAT_C_INT16: return ((const short *)data)[k];
    case MAT_C_UINT16: return ((const unsigned short *)data)[k];
    case MAT_C_INT32: return ((const int *)data)[k];
    case MAT_C_UINT32: return ((const unsigned *)data)[k];
    case MAT_C_INT64: return (double)((const long long *)data)[k];
    case MAT_C_UINT64: return (double)((const unsigned long long *)data)[k];
    default: return NAN;
    }
}

static int numeric_class(enum matio_classes c)
{
    return c == MAT_C_DOUBLE || c == MAT_C_SINGLE || (c >= MAT_C_INT8 && c <= MAT_C_UINT64);
}

/* the value type of a sparse variable's data (matio keeps it in data_type) */
static double sparse_value(const matvar_t *v, const void *data, size_t k)
{
    switch (v->data_type) {
    case MAT_T_DOUBLE: return ((const double *)data)[k];
    case MAT_T_SINGLE: return ((const float *)data)[k];
    default: return NAN;
    }
}

static int read_mat(const char *path, const char *key, long max_entries, br_matrix *A, char *err, size_t errlen)
{
    static int quiet = 0;
    if (!quiet) Mat_LogInitFunc("bristle", matio_quiet), quiet = 1;
    FILE *probe = fopen(path, "rb");
    if (!probe) return fail(err, errlen, path, "cannot open (%s)", strerror(errno));
    fclose(probe);
    mat_t *mf = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mf) return fail(err, errlen, path, "not a MATLAB file libmatio reads (v5, v7 or v7.3)");
    matvar_t *v = Mat_VarRead(mf, key);
    int rc = 0;
    if (!v) rc = fail(err, errlen, path, "no variable '%s'", key);
    else if (v->rank != 2) rc = fail(err, errlen, path, "'%s' has %d dimensions (a matrix has 2)", key, v->rank);
    else if (v->isComplex) rc = fail(err, errlen, path, "'%s' is complex (a structure's matrices are real)", key);
    else if (v->class_type == MAT_C_SPARSE) {
        const mat_sparse_t *sp = v->data;
        if (!sp || (v->data_type != MAT_T_DOUBLE && v->data_type != MAT_T_SINGLE))
            rc = fail(err, errlen, path, "'%s': a sparse matrix of an unsupported value type", key);
        else if (!(rc = alloc_dense(path, (long)v->dims[0], (long)v->dims[1], max_entries, A, err, errlen))) {
            if (sp->njc < (unsigned)A->ncol + 1) rc = fail(err, errlen, path, "'%s': a malformed sparse matrix", key);
            for (int j = 0; j < A->ncol && !rc; j++)
                for (unsigned k = sp->jc[j]; k < sp->jc[j + 1] && !rc; k++) {
                    if (k >= sp->nir || k >= sp->ndata || sp->ir[k] >= (unsigned)A->nrow)
                        rc = fail(err, errlen, path, "'%s': a malformed sparse matrix", key);
                    else A->a[(size_t)j * A->nrow + sp->ir[k]] += sparse_value(v, sp->data, k);
                }
        }
    } else if (!numeric_class(v->class_type) || !v->data) {
        rc = fail(err, errlen, path, "'%s' is not a numeric matrix", key);
    } else if (!(rc = alloc_dense(path, (long)v->dims[0], (long)v->dims[1], max_entries, A, err, errlen))) {
        const size_t n = (size_t)A->nrow * (size_t)A->ncol;
        for (size_t k = 0; k < n; k++) A->a[k] = mat_value(v, v->data, k);
    }
    if (rc == 0 && check_finite(path, A, err, errlen)) {
        rc = -1;
        /* name the variable as well */
        char e2[600];
        snprintf(e2, sizeof e2, "%s (variable '%s')", err, key);
        snprintf(err, errlen, "%s", e2);
    }
    if (rc) br_matrix_free(A);
    Mat_VarFree(v);
    Mat_Close(mf);
    return rc;
}

int br_matrix_read(const char *path, const char *key, long max_entries, br_matrix *A, char *err, size_t errlen)
{
    memset(A, 0, sizeof *A);
    return br_matrix_is_mat(path) ? read_mat(path, key, max_entries, A, err, errlen)
                                  : read_mtx(path, max_entries, A, err, errlen);
}

int br_matrix_write_sym(const char *path, int n, const double *A, char *err, size_t errlen)
{
    cholmod_common cm;
    cholmod_start(&cm);
    cm.print = 0;
    cm.error_handler = NULL;
    size_t nnz = 0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) nnz += A[(size_t)j * n + i] != 0.0;
    cholmod_sparse *S = cholmod_allocate_sparse((size_t)n, (size_t)n, nnz ? nnz : 1, 1, 1, -1, CHOLMOD_REAL, &cm);
    int rc = 0;
    if (!S) rc = fail(err, errlen, path, "out of memory");
    else {
        int *p = S->p, *ix = S->i, k = 0;
        double *x = S->x;
        for (int j = 0; j < n; j++) {
            p[j] = k;
            for (int i = j; i < n; i++)
                if (A[(size_t)j * n + i] != 0.0) ix[k] = i, x[k] = A[(size_t)j * n + i], k++;
        }
        p[n] = k;
        FILE *fp = fopen(path, "w");
        if (!fp) rc = fail(err, errlen, path, "cannot create (%s)", strerror(errno));
        else {
            if (cholmod_write_sparse(fp, S, NULL, NULL, &cm) < 0) rc = fail(err, errlen, path, "write failed");
            if (fclose(fp) != 0 && rc == 0) rc = fail(err, errlen, path, "write failed (%s)", strerror(errno));
        }
        cholmod_free_sparse(&S, &cm);
    }
    cholmod_finish(&cm);
    return rc;
}

void br_node_table_free(br_node_table *T)
{
    if (!T) return;
    free(T->label), free(T->X), free(T->row);
    memset(T, 0, sizeof *T);
}

static int table_alloc(br_node_table *T, int n)
{
    T->n = n;
    T->label = calloc((size_t)(n ? n : 1), sizeof *T->label);
    T->X = calloc((size_t)(n ? n : 1) * 3, sizeof(double));
    T->row = malloc((size_t)(n ? n : 1) * 6 * sizeof(int));
    if (!T->label || !T->X || !T->row) return -1;
    for (int k = 0; k < 6 * n; k++) T->row[k] = -1;
    return 0;
}

/* T's labels distinct, else -1 with the first repeated one in err */
static int unique_labels(const br_node_table *T, const char *path, char *err, size_t errlen)
{
    for (int a = 0; a < T->n; a++)
        for (int b = 0; b < a; b++)
            if (!strcmp(T->label[a], T->label[b]))
                return fail(err, errlen, path, "node label '%s' appears twice (nodes %d and %d)", T->label[a], b + 1,
                            a + 1);
    return 0;
}

/* s -> its leading and trailing blanks removed (in place) */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

int br_nodes_read_csv(const char *path, br_node_table *T, char *err, size_t errlen)
{
    memset(T, 0, sizeof *T);
    FILE *fp = fopen(path, "r");
    if (!fp) return fail(err, errlen, path, "cannot open (%s)", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, nrows = 0;
    int rc = 0, ncol = 0;
    /* pass 1: the header and the number of rows */
    while (getline(&line, &cap, fp) > 0) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#') continue;
        if (ncol == 0) {
            static const char *const H[] = {"label", "x", "y", "z", "ux", "uy", "uz", "rx", "ry", "rz"};
            char *tok, *save = NULL;
            for (tok = strtok_r(s, ",", &save); tok && ncol < 11; tok = strtok_r(NULL, ",", &save), ncol++)
                if (ncol >= 10 || strcmp(trim(tok), H[ncol])) {
                    rc = -1;
                    break;
                }
            if (rc || (ncol != 7 && ncol != 10)) {
                snprintf(err, errlen, "%s:%ld: the header must be label,x,y,z,ux,uy,uz or label,x,y,z,ux,uy,uz,rx,ry,rz",
                         path, lineno);
                rc = -1;
                break;
            }
        } else nrows++;
    }
    if (rc == 0 && ncol == 0) rc = fail(err, errlen, path, "empty: no header and no nodes");
    if (rc == 0 && nrows == 0) rc = fail(err, errlen, path, "no nodes after the header");
    if (rc == 0 && nrows > 10000000) rc = fail(err, errlen, path, "more than 1e7 nodes");
    if (rc == 0 && table_alloc(T, (int)nrows)) rc = fail(err, errlen, path, "out of memory");
    /* pass 2: the rows */
    rewind(fp);
    lineno = 0;
    int k = 0, seen_header = 0;
    while (rc == 0 && getline(&line, &cap, fp) > 0) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#') continue;
        if (!seen_header) {
            seen_header = 1;
            continue;
        }
        char *tok[11], *t;
        int nt = 0;
        /* strtok_r would merge empty cells: split by hand */
        for (t = s; nt < 11;) {
            tok[nt++] = t;
            char *c = strchr(t, ',');
            if (!c) break;
            *c = 0, t = c + 1;
        }
        if (nt != ncol) {
            snprintf(err, errlen, "%s:%ld: %d cells, the header has %d", path, lineno, nt, ncol);
            rc = -1;
            break;
        }
        const char *lab = trim(tok[0]);
        if (!*lab || strlen(lab) >= sizeof T->label[0]) {
            snprintf(err, errlen, "%s:%ld: a node label is 1 to %zu characters", path, lineno, sizeof T->label[0] - 1);
            rc = -1;
            break;
        }
        snprintf(T->label[k], sizeof T->label[k], "%s", lab);
        for (int j = 1; j < ncol && rc == 0; j++) {
            char *c = trim(tok[j]), *end;
            double v = 0.0;
            if (j >= 4 && !*c) v = 0.0; /* an empty DOF cell: no such DOF */
            else {
                errno = 0;
                v = strtod(c, &end);
                if (end == c || *end || errno == ERANGE || !isfinite(v)) {
                    snprintf(err, errlen, "%s:%ld: cell %d ('%s') is not a finite number", path, lineno, j + 1, c);
                    rc = -1;
                    break;
                }
            }
            if (j < 4) T->X[3 * k + j - 1] = v;
            else if (v < 0 || v != floor(v) || v > 2e9) {
                snprintf(err, errlen, "%s:%ld: a DOF's row is a whole number >= 1 (0 or empty: none), got '%s'", path,
                         lineno, c);
                rc = -1;
            } else T->row[6 * k + j - 4] = (int)v - 1;
        }
        k++;
    }
    free(line);
    fclose(fp);
    if (rc == 0 && unique_labels(T, path, err, errlen)) rc = -1;
    if (rc) br_node_table_free(T);
    return rc;
}

int br_nodes_read_mat(const char *path, const char *kxyz, const char *kdof, const char *klabel, br_node_table *T,
                      char *err, size_t errlen)
{
    memset(T, 0, sizeof *T);
    br_matrix X = {0}, D = {0}, L = {0};
    int rc = br_matrix_read(path, kxyz, 30000000L, &X, err, errlen);
    if (rc == 0) rc = br_matrix_read(path, kdof, 60000000L, &D, err, errlen);
    if (rc == 0 && klabel) rc = br_matrix_read(path, klabel, 10000000L, &L, err, errlen);
    if (rc == 0 && X.ncol != 3) rc = fail(err, errlen, path, "'%s' must be nnode x 3 (positions), not %d x %d", kxyz, X.nrow, X.ncol);
    if (rc == 0 && (D.nrow != X.nrow || (D.ncol != 3 && D.ncol != 6)))
        rc = fail(err, errlen, path, "'%s' must be %d x 3 or %d x 6 (the DOFs' rows of '%s''s nodes), not %d x %d", kdof,
                  X.nrow, X.nrow, kxyz, D.nrow, D.ncol);
    if (rc == 0 && klabel && (long)L.nrow * L.ncol != X.nrow)
        rc = fail(err, errlen, path, "'%s' must hold %d labels (one per node), not %d x %d", klabel, X.nrow, L.nrow, L.ncol);
    if (rc == 0 && table_alloc(T, X.nrow)) rc = fail(err, errlen, path, "out of memory");
    for (int k = 0; rc == 0 && k < T->n; k++) {
        for (int j = 0; j < 3; j++) T->X[3 * k + j] = X.a[(size_t)j * X.nrow + k];
        for (int j = 0; j < D.ncol && rc == 0; j++) {
            const double v = D.a[(size_t)j * D.nrow + k];
            if (v < 0 || v != floor(v) || v > 2e9)
                rc = fail(err, errlen, path, "'%s' (%d, %d) = %g: a DOF's row is a whole number >= 1 (0: none)", kdof,
                          k + 1, j + 1, v);
            else T->row[6 * k + j] = (int)v - 1;
        }
        const double lab = klabel ? L.a[k] : k + 1;
        if (rc == 0 && (lab != floor(lab) || fabs(lab) > 1e15))
            rc = fail(err, errlen, path, "'%s' entry %d = %g: labels are whole numbers", klabel, k + 1, lab);
        if (rc == 0) snprintf(T->label[k], sizeof T->label[k], "%.0f", lab);
    }
    if (rc == 0 && unique_labels(T, path, err, errlen)) rc = -1;
    br_matrix_free(&X), br_matrix_free(&D), br_matrix_free(&L);
    if (rc) br_node_table_free(T);
    return rc;
}

int br_nodes_write_csv(const char *path, const br_node_table *T, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return fail(err, errlen, path, "cannot create (%s)", strerror(errno));
    fprintf(fp, "label,x,y,z,ux,uy,uz,rx,ry,rz\n");
    for (int k = 0; k < T->n; k++) {
        fprintf(fp, "%s,%.17g,%.17g,%.17g", T->label[k], T->X[3 * k], T->X[3 * k + 1], T->X[3 * k + 2]);
        for (int j = 0; j < 6; j++) fprintf(fp, ",%d", T->row[6 * k + j] + 1);
        fputc('\n', fp);
    }
    return fclose(fp) == 0 ? 0 : fail(err, errlen, path, "write failed (%s)", strerror(errno));
}
