/* compare.c: `bristle compare RUN_DIR...`: the same time-series columns of several runs
 * overlaid in one PNG, one panel per column, one curve per run (the way the S4 studies
 * present their model comparisons). Runs sampled at other times than the first are
 * interpolated linearly onto its time grid and held constant beyond their ends. */
#define _POSIX_C_SOURCE 200809L
#include "cli/compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvread.h"
#include "io/plot.h"

#define MAX_RUNS 8
#define MAX_COLS 6

static int usage(void)
{
    fprintf(stderr,
            "usage: bristle compare RUN_DIR... [--columns C1,C2,...] [--out FILE.png]\n"
            "  overlays columns of RUN_DIR/timeseries.csv (2 to %d runs) in one PNG\n"
            "  --columns  up to %d column names (default: those shared by every run ending in\n"
            "             .x, .Fx, .tau or .wz that vary in some run)\n"
            "  --out      output file (default compare.png)\n",
            MAX_RUNS, MAX_COLS);
    return 2;
}

/* table, time, *row (advanced, times increasing) -> row i and weight w with
 * t(time) = (1 - w) t_i + w t_(i+1); w = 0 before the first row and after the last */
static long locate(const csv_table *t, double time, long *row, double *w)
{
    long i = *row;
    while (i + 1 < t->nrows && csv_at(t, i + 1, 0) <= time) i++;
    *row = i;
    const int inside = i + 1 < t->nrows && time > csv_at(t, i, 0);
    *w = inside ? (time - csv_at(t, i, 0)) / (csv_at(t, i + 1, 0) - csv_at(t, i, 0)) : 0.0;
    return i;
}

/* name -> 1 if a default comparison column */
static int default_col(const char *name)
{
    static const char *const ends[] = {".x", ".Fx", ".tau", ".wz"};
    const size_t n = strlen(name);
    for (int k = 0; k < 4; k++) {
        const size_t e = strlen(ends[k]);
        if (n > e && !strcmp(name + n - e, ends[k])) return 1;
    }
    return 0;
}

int br_compare_main(int argc, char **argv)
{
    const char *dirs[MAX_RUNS], *out = "compare.png";
    char colarg[1024] = "";
    int nrun = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--columns") && i + 1 < argc) snprintf(colarg, sizeof colarg, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (argv[i][0] == '-') return usage();
        else if (nrun < MAX_RUNS) dirs[nrun++] = argv[i];
        else return usage();
    }
    if (nrun < 2) return usage();
    csv_table *tab[MAX_RUNS] = {0};
    int rc = 2;
    for (int r = 0; r < nrun; r++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/timeseries.csv", dirs[r]);
        tab[r] = csv_read(path);
        if (!tab[r] && errno == ENOMEM) {
            fprintf(stderr, "bristle compare: %s: out of memory reading it\n", path);
            rc = 1;
            goto done;
        }
        if (!tab[r] || tab[r]->nrows < 1) {
            fprintf(stderr, "bristle compare: %s: cannot read it (a finished `bristle run` writes it)\n", path);
            goto done;
        }
    }
    /* the columns: given, or the default ones every run has */
    const char *cols[MAX_COLS];
    int ncol = 0;
    if (colarg[0]) {
        for (char *save = NULL, *tok = strtok_r(colarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (ncol == MAX_COLS) {
                fprintf(stderr, "bristle compare: at most %d columns\n", MAX_COLS);
                goto done;
            }
            cols[ncol++] = tok;
        }
    } else {
        for (int c = 1; c < tab[0]->ncols && ncol < MAX_COLS; c++) {
            int shared = default_col(tab[0]->names[c]);
            for (int r = 1; r < nrun && shared; r++) shared = csv_col(tab[r], tab[0]->names[c]) >= 0;
            /* a column constant in every run (a locked DOF) is left out */
            int varies = 0;
            for (int r = 0; r < nrun && shared && !varies; r++) {
                const int k = csv_col(tab[r], tab[0]->names[c]);
                for (long i = 1; i < tab[r]->nrows && !varies; i++) varies = csv_at(tab[r], i, k) != csv_at(tab[r], 0, k);
            }
            if (shared && varies) cols[ncol++] = tab[0]->names[c];
        }
    }
    if (ncol == 0) {
        fprintf(stderr, "bristle compare: no column to compare (give --columns)\n");
        goto done;
    }
    int idx[MAX_RUNS][MAX_COLS];
    for (int r = 0; r < nrun; r++)
        for (int c = 0; c < ncol; c++)
            if ((idx[r][c] = csv_col(tab[r], cols[c])) < 0) {
                fprintf(stderr, "bristle compare: %s/timeseries.csv has no column '%s'\n", dirs[r], cols[c]);
                goto done;
            }
    /* one row per time of the first run: t, then run r's column c at 1 + c * nrun + r */
    const int width = 1 + ncol * nrun;
    br_plotbuf *pb = br_plotbuf_create(width, tab[0]->nrows, 2000);
    double *row = malloc((size_t)width * sizeof(double));
    long hint[MAX_RUNS] = {0};
    if (!pb || !row) {
        fprintf(stderr, "bristle compare: out of memory\n");
        rc = 1;
        free(row);
        br_plotbuf_free(pb);
        goto done;
    }
    for (long i = 0; i < tab[0]->nrows; i++) {
        const double t = csv_at(tab[0], i, 0);
        row[0] = t;
        for (int r = 0; r < nrun; r++) {
            double w;
            const long k = locate(tab[r], t, &hint[r], &w);
            for (int c = 0; c < ncol; c++) {
                const double a = csv_at(tab[r], k, idx[r][c]);
                row[1 + c * nrun + r] = w > 0.0 ? a + w * (csv_at(tab[r], k + 1, idx[r][c]) - a) : a;
            }
        }
        br_plotbuf_add(pb, row);
    }
    br_panel panels[MAX_COLS];
    const char *labels[MAX_RUNS];
    for (int r = 0; r < nrun; r++) {
        const char *s = strrchr(dirs[r], '/');
        labels[r] = s && s[1] ? s + 1 : dirs[r];
    }
    for (int c = 0; c < ncol; c++) {
        panels[c].ylabel = cols[c];
        panels[c].ncurves = nrun;
        for (int r = 0; r < nrun; r++) panels[c].curves[r] = (br_curve){labels[r], 1 + c * nrun + r};
    }
    char title[512];
    snprintf(title, sizeof title, "bristle compare: %d runs", nrun);
    const int prc = br_plot_png(out, title, pb, panels, ncol);
    if (prc) {
        fprintf(stderr, "bristle compare: cannot write %s%s\n", out, prc == -2 ? ": out of memory" : "");
        rc = 1;
    } else {
        printf("bristle compare: %d runs, %d columns -> %s\n", nrun, ncol, out);
        rc = 0;
    }
    free(row);
    br_plotbuf_free(pb);
done:
    for (int r = 0; r < nrun; r++) csv_free(tab[r]);
    return rc;
}
