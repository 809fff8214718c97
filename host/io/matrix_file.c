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
#include <strings.h>

#include "base/textfile.h"

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

/* token -> 1 if it is a whole decimal number or a finite real, strictly (no trailing text, no hex) */
static int mtx_number(const char *t, size_t len, int integer)
{
    char buf[80];
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, t, len), buf[len] = 0;
    for (size_t k = 0; k < len; k++)
        if (!strchr(integer ? "+-0123456789" : "+-0123456789.eE", buf[k])) return 0;
    char *end;
    errno = 0;
    const double v = strtod(buf, &end);
    return *end == 0 && errno != ERANGE && isfinite(v);
}

/* A Matrix Market file checked before CHOLMOD reads it (CHOLMOD is lenient: it reads a pattern file
 * as ones, drops entries past the declared count, reads "0.1xyz" as 0.1, and allocates for whatever
 * size the header declares): the banner "%%MatrixMarket matrix coordinate|array real|integer
 * general|symmetric", the size line within max_entries, exactly the declared number of entries, each
 * with its indices in range and a finite number. 0, or -1 with "path:line: message". */
static int mtx_check(const char *path, long max_entries, char *err, size_t errlen)
{
    size_t len;
    char *txt = br_read_text(path, &len, err, errlen);
    if (!txt) return -1;
    long line = 0, nrow = 0, ncol = 0, nnz = 0, seen = 0;
    int coord = 0, sym = 0, integer = 0, rc = 0, stage = 0;
    for (char *l = txt, *next; l < txt + len && rc == 0; l = next) {
        char *e = memchr(l, '\n', (size_t)(txt + len - l));
        if (e) *e = 0;
        next = e ? e + 1 : txt + len;
        line++;
        size_t n = strlen(l);
        if (n && l[n - 1] == '\r') l[--n] = 0;
        if (stage == 0) {
            char obj[32] = "", fmt[32] = "", field[32] = "", symm[32] = "";
            if (sscanf(l, "%%%%MatrixMarket %31s %31s %31s %31s", obj, fmt, field, symm) != 4 || strcasecmp(obj, "matrix")) {
                snprintf(err, errlen, "%s:%ld: not a Matrix Market file (the first line must be '%%%%MatrixMarket matrix "
                         "coordinate|array real|integer general|symmetric')", path, line);
                rc = -1;
                break;
            }
            coord = !strcasecmp(fmt, "coordinate");
            integer = !strcasecmp(field, "integer");
            sym = !strcasecmp(symm, "symmetric");
            if ((!coord && strcasecmp(fmt, "array")) || (!integer && strcasecmp(field, "real")) ||
                (!sym && strcasecmp(symm, "general"))) {
                snprintf(err, errlen, "%s:%ld: '%s %s %s': a structure's matrix is coordinate or array, real or integer, "
                         "general or symmetric (not pattern, complex, hermitian or skew-symmetric)", path, line, fmt, field,
                         symm);
                rc = -1;
            }
            stage = 1;
            continue;
        }
        const char *s = l;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '%' || *s == 0) continue;
        /* the tokens of the line */
        const char *tok[4];
        size_t tl[4];
        int nt = 0;
        for (const char *c = s; *c && nt <= 3;) {
            while (*c == ' ' || *c == '\t') c++;
            if (!*c) break;
            const char *b = c;
            while (*c && *c != ' ' && *c != '\t') c++;
            if (nt < 4) tok[nt] = b, tl[nt] = (size_t)(c - b);
            nt++;
        }
        if (stage == 1) {
            const int want = coord ? 3 : 2;
            for (int k = 0; k < nt && k < want; k++)
                if (!mtx_number(tok[k], tl[k], 1)) nt = -1;
            if (nt != want) {
                snprintf(err, errlen, "%s:%ld: the size line must be 'rows columns%s' (whole numbers)", path, line,
                         coord ? " entries" : "");
                rc = -1;
                break;
            }
            nrow = strtol(tok[0], NULL, 10), ncol = strtol(tok[1], NULL, 10);
            nnz = coord ? strtol(tok[2], NULL, 10) : 0;
            if (nrow < 1 || ncol < 1 || (double)nrow * (double)ncol > (double)max_entries || nnz < 0 ||
                (double)nnz > (double)nrow * (double)ncol) {
                snprintf(err, errlen, "%s:%ld: %ld x %ld with %ld entries: sizes from 1 and at most %ld entries", path, line,
                         nrow, ncol, nnz, max_entries);
                rc = -1;
                break;
            }
            if (sym && nrow != ncol) {
                snprintf(err, errlen, "%s:%ld: a symmetric matrix must be square, not %ld x %ld", path, line, nrow, ncol);
                rc = -1;
                break;
            }
            if (!coord) nnz = sym ? nrow * (nrow + 1) / 2 : nrow * ncol;
            stage = 2;
            continue;
        }
        const int want = coord ? 3 : 1;
        int ok = nt == want;
        for (int k = 0; ok && k < want; k++) ok = mtx_number(tok[k], tl[k], coord && k < 2 ? 1 : integer);
        if (ok && coord) {
            const long i = strtol(tok[0], NULL, 10), j = strtol(tok[1], NULL, 10);
            ok = i >= 1 && i <= nrow && j >= 1 && j <= ncol && (!sym || i >= j);
        }
        if (!ok || ++seen > nnz) {
            snprintf(err, errlen, "%s:%ld: %s", path, line,
                     seen > nnz ? "more entries than the size line declares"
                     : coord   ? (sym ? "an entry is 'row column value' with column <= row <= the size, a finite number"
                                      : "an entry is 'row column value' within the size, a finite number")
                               : "an entry is one finite number");
            rc = -1;
        }
    }
    if (rc == 0 && stage < 2) snprintf(err, errlen, "%s:%ld: no size line", path, line ? line : 1), rc = -1;
    if (rc == 0 && seen != nnz)
        snprintf(err, errlen, "%s:%ld: %ld entries, the size line declares %ld", path, line, seen, nnz), rc = -1;
    free(txt);
    return rc;
}

/* Matrix Market by CHOLMOD (after mtx_check): a sparse file comes back with both triangles (prefer = 1),
 * duplicates summed */
static int read_mtx(const char *path, long max_entries, br_matrix *A, char *err, size_t errlen)
{
    if (mtx_check(path, max_entries, err, errlen)) return -1;
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

/* A MATLAB v5/v7 file's top-level elements walked (a 128-byte header, then tag [type, bytes] and data,
 * miMATRIX padded to 8 bytes): 0 if each lies inside the file, else -1 with "path: truncated". libmatio
 * reads a variable that runs past the end of the file without a word (its values then what the memory
 * held). v7.3 files (HDF5, whose library checks its own structure) and v4 ones are not walked. */
static int mat_whole(const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return fail(err, errlen, path, "cannot open (%s)", strerror(errno));
    unsigned char hdr[128];
    int rc = 0;
    if (fread(hdr, 1, sizeof hdr, fp) == sizeof hdr && !memcmp(hdr, "MATLAB 5.0", 10)) {
        const int swap = hdr[126] == 'M' && hdr[127] == 'I'; /* written big-endian */
        if (fseek(fp, 0, SEEK_END) != 0) rc = fail(err, errlen, path, "cannot seek");
        const long size = ftell(fp);
        long pos = 128;
        while (rc == 0 && pos < size) {
            unsigned char t[8];
            if (fseek(fp, pos, SEEK_SET) != 0 || size - pos < 8 || fread(t, 1, 8, fp) != 8) {
                rc = fail(err, errlen, path, "truncated: a variable's header is cut at byte %ld of %ld", pos, size);
                break;
            }
            unsigned long w[2];
            for (int k = 0; k < 2; k++) {
                const unsigned char *b = t + 4 * k;
                w[k] = swap ? (unsigned long)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
                            : (unsigned long)b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0];
            }
            long next;
            if (w[0] >> 16) next = pos + 8; /* a small element: its data inside the tag */
            else next = pos + 8 + (long)w[1] + (w[0] == 15 ? 0 : (long)((8 - w[1] % 8) % 8));
            if (next > size + (w[0] == 15 ? 0 : 7)) {
                rc = fail(err, errlen, path, "truncated: a variable at byte %ld declares %lu bytes, the file ends at %ld",
                          pos, w[1], size);
                break;
            }
            pos = next;
        }
    }
    fclose(fp);
    return rc;
}

static int read_mat(const char *path, const char *key, long max_entries, br_matrix *A, char *err, size_t errlen)
{
    static int quiet = 0;
    if (!quiet) Mat_LogInitFunc("bristle", matio_quiet), quiet = 1;
    if (mat_whole(path, err, errlen)) return -1;
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

/* s (one CSV line, NUL-terminated) -> its cells split at every comma (empty cells kept), trimmed; the
 * number of cells (at most max: more are counted, not stored) */
static int split_cells(char *s, char **cell, int max)
{
    int n = 0;
    for (char *t = s;;) {
        char *c = strchr(t, ',');
        if (c) *c = 0;
        if (n < max) cell[n] = trim(t);
        n++;
        if (!c) break;
        t = c + 1;
    }
    return n;
}

/* A CSV table (the node and pair tables): its header's names in order (min to max of them), what its rows
 * are ("nodes", for messages), storage for the counted rows, and each row's reading. */
typedef struct csv_spec {
    const char *const *names;
    int min_cols, max_cols;
    const char *what;
    int (*alloc)(void *ctx, long nrows);  /* 0, or -1 (out of memory) */
    /* row k's cells (as many as the header's) -> stored; 0, or -1 with "path:line: message" in err */
    int (*row)(void *ctx, long k, char **cell, int nc, const char *path, long lineno, char *err, size_t errlen);
} csv_spec;

/* path, spec, ctx -> the table read whole once (a pipe reads as a file does; a UTF-8 byte-order mark, as
 * spreadsheets write, skipped; blank lines and lines starting with # skipped), its header checked, its
 * rows counted and stored, then read; the number of rows in *nrows. 0, or -1 with "path:line: message" */
static int csv_table_read(const char *path, const csv_spec *sp, void *ctx, long *nrows, char *err, size_t errlen)
{
    size_t len;
    char *txt = br_read_text(path, &len, err, errlen);
    if (!txt) return -1;
    char *body = txt;
    if (len >= 3 && !memcmp(body, "\xEF\xBB\xBF", 3)) body += 3;
    int rc = 0, ncol = 0;
    long n = 0, k = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) { /* the header and the rows counted, then the rows */
        long lineno = 0;
        int seen_header = 0;
        for (char *l = body, *next; l < txt + len && rc == 0; l = next) {
            char *e = memchr(l, '\n', (size_t)(txt + len - l));
            next = e ? e + 1 : txt + len;
            lineno++;
            char line[4096];
            const size_t nl = (size_t)((e ? e : txt + len) - l);
            if (nl >= sizeof line) {
                snprintf(err, errlen, "%s:%ld: a line of more than %zu characters", path, lineno, sizeof line - 1);
                rc = -1;
                break;
            }
            memcpy(line, l, nl), line[nl] = 0;
            char *s2 = trim(line);
            if (!*s2 || *s2 == '#') continue; /* a label does not start with # */
            char *cell[16];
            const int nc = split_cells(s2, cell, 16);
            if (!seen_header) {
                seen_header = 1;
                int ok = nc >= sp->min_cols && nc <= sp->max_cols;
                for (int j = 0; ok && j < nc; j++) ok = !strcmp(cell[j], sp->names[j]);
                if (!ok) {
                    int m = snprintf(err, errlen, "%s:%ld: the header must be the names ", path, lineno);
                    for (int j = 0; j < sp->max_cols && m > 0 && (size_t)m < errlen; j++)
                        m += snprintf(err + m, errlen - (size_t)m, "%s%s", j ? "," : "", sp->names[j]);
                    if (m > 0 && (size_t)m < errlen)
                        snprintf(err + m, errlen - (size_t)m, " (the first %d at least)", sp->min_cols);
                    rc = -1;
                }
                ncol = nc;
                continue;
            }
            if (pass == 0) {
                n++;
                continue;
            }
            if (k >= n) break; /* cannot happen: the buffer is the same */
            if (nc != ncol) {
                snprintf(err, errlen, "%s:%ld: %d cells, the header has %d", path, lineno, nc, ncol);
                rc = -1;
                break;
            }
            rc = sp->row(ctx, k++, cell, nc, path, lineno, err, errlen);
        }
        if (pass == 0 && rc == 0) {
            if (ncol == 0) rc = fail(err, errlen, path, "empty: no header and no %s", sp->what);
            else if (n == 0) rc = fail(err, errlen, path, "no %s after the header", sp->what);
            else if (n > 10000000) rc = fail(err, errlen, path, "more than 1e7 %s", sp->what);
            else if (sp->alloc(ctx, n)) rc = fail(err, errlen, path, "out of memory");
        }
    }
    free(txt);
    if (rc == 0 && k != n) rc = fail(err, errlen, path, "read %ld of %ld %s", k, n, sp->what);
    *nrows = n;
    return rc;
}

/* cell c of a table at path:lineno, column j (from 0) -> *v a finite decimal number (no hex, nan or inf);
 * 0, or -1 with the message */
static int cell_number(const char *c, int j, const char *path, long lineno, double *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    *v = strtod(c, &end);
    if (end == c || *end || errno == ERANGE || !isfinite(*v) || strpbrk(c, "xXnN")) {
        snprintf(err, errlen, "%s:%ld: cell %d ('%s') is not a finite number", path, lineno, j + 1, c);
        return -1;
    }
    return 0;
}

static int nodes_alloc(void *ctx, long n) { return table_alloc(ctx, (int)n); }

static int nodes_row(void *ctx, long k, char **cell, int nc, const char *path, long lineno, char *err, size_t errlen)
{
    br_node_table *T = ctx;
    if (!*cell[0] || strlen(cell[0]) >= sizeof T->label[0]) {
        snprintf(err, errlen, "%s:%ld: a node label is 1 to %zu characters", path, lineno, sizeof T->label[0] - 1);
        return -1;
    }
    snprintf(T->label[k], sizeof T->label[k], "%s", cell[0]);
    for (int j = 1; j < 4; j++)
        if (cell_number(cell[j], j, path, lineno, &T->X[3 * k + j - 1], err, errlen)) return -1;
    for (int j = 4; j < nc; j++) { /* a DOF's row: a whole decimal number, 0 or empty for none */
        const char *c = cell[j];
        char *end = NULL;
        errno = 0;
        const long r = *c ? strtol(c, &end, 10) : 0;
        if ((*c && (end == c || *end)) || errno == ERANGE || r < 0 || r > 2000000000L) {
            snprintf(err, errlen, "%s:%ld: a DOF's row is a whole number >= 1 (0 or empty: none), got '%s'", path, lineno, c);
            return -1;
        }
        T->row[6 * k + j - 4] = (int)r - 1;
    }
    return 0;
}

int br_nodes_read_csv(const char *path, br_node_table *T, char *err, size_t errlen)
{
    static const char *const H[] = {"label", "x", "y", "z", "ux", "uy", "uz", "rx", "ry", "rz"};
    static const csv_spec spec = {H, 7, 10, "nodes", nodes_alloc, nodes_row};
    memset(T, 0, sizeof *T);
    long n;
    int rc = csv_table_read(path, &spec, T, &n, err, errlen);
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

void br_pair_table_free(br_pair_table *P)
{
    if (!P) return;
    free(P->a), free(P->b), free(P->nrm), free(P->area), free(P->gap);
    memset(P, 0, sizeof *P);
}

static int pairs_alloc(void *ctx, long n)
{
    br_pair_table *P = ctx;
    P->n = (int)n;
    P->a = calloc((size_t)n, sizeof *P->a), P->b = calloc((size_t)n, sizeof *P->b);
    P->nrm = calloc((size_t)n * 3, sizeof(double));
    P->area = calloc((size_t)n, sizeof(double)), P->gap = calloc((size_t)n, sizeof(double));
    return P->a && P->b && P->nrm && P->area && P->gap ? 0 : -1;
}

static int pairs_row(void *ctx, long k, char **cell, int nc, const char *path, long lineno, char *err, size_t errlen)
{
    br_pair_table *P = ctx;
    if (!*cell[0] || strlen(cell[0]) >= sizeof P->a[0] || strlen(cell[1]) >= sizeof P->b[0]) {
        snprintf(err, errlen, "%s:%ld: node a is a label of 1 to 63 characters, b one of at most 63 (empty: the ground)",
                 path, lineno);
        return -1;
    }
    snprintf(P->a[k], sizeof P->a[k], "%s", cell[0]);
    snprintf(P->b[k], sizeof P->b[k], "%s", cell[1]);
    double v[5] = {0, 0, 0, 0, 0};
    for (int j = 2; j < nc; j++)
        if (cell_number(cell[j], j, path, lineno, &v[j - 2], err, errlen)) return -1;
    const double nn = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(fabs(nn - 1.0) < 1e-9)) {
        snprintf(err, errlen, "%s:%ld: the normal (%g, %g, %g) is not a unit vector", path, lineno, v[0], v[1], v[2]);
        return -1;
    }
    if (!(v[3] > 0)) {
        snprintf(err, errlen, "%s:%ld: the area must be > 0 (got %g)", path, lineno, v[3]);
        return -1;
    }
    for (int j = 0; j < 3; j++) P->nrm[3 * k + j] = v[j];
    P->area[k] = v[3], P->gap[k] = v[4];
    return 0;
}

int br_pairs_read_csv(const char *path, br_pair_table *P, char *err, size_t errlen)
{
    static const char *const H[] = {"a", "b", "nx", "ny", "nz", "area", "gap"};
    static const csv_spec spec = {H, 6, 7, "points", pairs_alloc, pairs_row};
    memset(P, 0, sizeof *P);
    long n;
    const int rc = csv_table_read(path, &spec, P, &n, err, errlen);
    if (rc) br_pair_table_free(P);
    return rc;
}

static int faces_alloc(void *ctx, long n)
{
    br_face_table *T = ctx;
    T->n = 0, T->t = malloc((size_t)n * 6 * sizeof(long));
    return T->t ? 0 : -1;
}

static int faces_row(void *ctx, long k, char **cell, int nc, const char *path, long lineno, char *err, size_t errlen)
{
    (void)k;
    br_face_table *T = ctx;
    long p[4];
    int nv = 0;
    for (int j = 0; j < nc; j++) {
        const char *c = cell[j];
        if (j == 3 && !*c) break; /* a triangle */
        char *end = NULL;
        errno = 0;
        const long v = strtol(c, &end, 10);
        if (!*c || end == c || *end || errno == ERANGE || v < 1 || v > T->np) {
            snprintf(err, errlen, "%s:%ld: corner %d must be a point of the interface, a row of its pairs table from 1 to "
                     "%ld, got '%s'", path, lineno, j + 1, T->np, c);
            return -1;
        }
        for (int i = 0; i < nv; i++)
            if (p[i] == v - 1) {
                snprintf(err, errlen, "%s:%ld: point %ld is a corner twice", path, lineno, v);
                return -1;
            }
        p[nv++] = v - 1;
    }
    long *t = T->t + 3 * T->n;
    t[0] = p[0], t[1] = p[1], t[2] = p[2], T->n++;
    if (nv == 4) t[3] = p[0], t[4] = p[2], t[5] = p[3], T->n++;
    return 0;
}

int br_faces_read_csv(const char *path, long np, br_face_table *T, char *err, size_t errlen)
{
    static const char *const H[] = {"p1", "p2", "p3", "p4"};
    static const csv_spec spec = {H, 3, 4, "faces", faces_alloc, faces_row};
    memset(T, 0, sizeof *T);
    T->np = np;
    long n;
    const int rc = csv_table_read(path, &spec, T, &n, err, errlen);
    if (rc) br_face_table_free(T);
    return rc;
}

void br_face_table_free(br_face_table *T)
{
    free(T->t);
    memset(T, 0, sizeof *T);
}
