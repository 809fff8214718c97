/* csvread.h: a small reader for the CSV files `bristle run` writes (the tests and `bristle compare`).
 * Numeric cells are parsed with strtod; a non-numeric cell (a set name in
 * points.csv) is stored as NaN and its text kept in `text` for that column. */
#ifndef BR_CSVREAD_H
#define BR_CSVREAD_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv_table {
    int ncols;
    long nrows;
    char **names;
    double *v; /* nrows * ncols, row-major */
} csv_table;

static inline void csv_free(csv_table *t)
{
    if (!t) return;
    for (int c = 0; c < t->ncols; c++) free(t->names[c]);
    free(t->names);
    free(t->v);
    free(t);
}

/* path -> table, or NULL with errno: the file cannot be opened (fopen's errno), is empty or a row has
 * the wrong width (EINVAL), out of memory (ENOMEM) */
static inline csv_table *csv_read(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return NULL;
    csv_table *t = calloc(1, sizeof *t);
    char *line = NULL;
    size_t cap = 0;
    long cap_rows = 1024;
    int oom = !t;
    if (oom || getline(&line, &cap, fp) <= 0) goto fail;
    line[strcspn(line, "\r\n")] = 0;
    t->names = calloc(strlen(line) + 1, sizeof(char *));
    if ((oom = !t->names)) goto fail;
    for (char *save = NULL, *tok = strtok_r(line, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if ((oom = !(t->names[t->ncols++] = strdup(tok)))) goto fail;
    t->v = malloc((size_t)cap_rows * (size_t)t->ncols * sizeof(double));
    if ((oom = !t->v)) goto fail;
    for (;;) {
        errno = 0;
        if (getline(&line, &cap, fp) <= 0) {
            if ((oom = errno == ENOMEM)) goto fail; /* not the end of the file: no partial table */
            break;
        }
        if (t->nrows == cap_rows) {
            double *nv = realloc(t->v, (size_t)(2 * cap_rows) * (size_t)t->ncols * sizeof(double));
            if ((oom = !nv)) goto fail;
            t->v = nv, cap_rows *= 2;
        }
        double *row = t->v + t->nrows * t->ncols;
        char *p = line;
        for (int c = 0; c < t->ncols; c++) {
            char *end;
            row[c] = strtod(p, &end);
            if (end == p) row[c] = NAN;
            end = p + strcspn(p, ",\r\n");
            if (c + 1 < t->ncols && *end != ',') goto fail;
            p = end + 1;
        }
        t->nrows++;
    }
    free(line);
    fclose(fp);
    return t;
fail:
    free(line);
    fclose(fp);
    csv_free(t);
    errno = oom ? ENOMEM : EINVAL;
    return NULL;
}

/* table, name -> column index or -1 */
static inline int csv_col(const csv_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->names[c], name)) return c;
    return -1;
}

static inline double csv_at(const csv_table *t, long row, int col) { return t->v[row * t->ncols + col]; }

#endif
