/* plot.h: PNG line plots of time-series columns (cairo). Rows are kept as
 * min/max envelopes over fixed buckets of samples, so a run of any length
 * plots from bounded memory and fast oscillations show as a band instead of
 * aliasing. */
#ifndef BR_PLOT_H
#define BR_PLOT_H

#include <cairo.h>

typedef struct br_plotbuf br_plotbuf;

/* columns per row, rows expected, buckets wanted -> buffer (NULL: out of memory) */
br_plotbuf *br_plotbuf_create(int ncols, long rows_expected, long buckets);

/* row (ncols values, column 0 the time) -> folded into the current bucket */
void br_plotbuf_add(br_plotbuf *pb, const double *row);

void br_plotbuf_free(br_plotbuf *pb);

/* plot buffer, checkpoint -> its rows so far written into c or read from it; 0, or -1 */
struct br_ckpt;
int br_plotbuf_checkpoint(br_plotbuf *pb, struct br_ckpt *c);

typedef struct br_curve {
    const char *label;
    int col;
} br_curve;

typedef struct br_panel {
    const char *ylabel;
    int ncurves;
    br_curve curves[8];
} br_panel;

/* The plot writers return 0 (written), -1 (nothing to draw, or the file could not be written) or
 * -2 (out of memory). */

/* path, title, buffer, panels -> PNG written (via a temporary name); 0, -1 or -2 */
int br_plot_png(const char *path, const char *title, const br_plotbuf *pb, const br_panel *panels,
                int npanels);

/* path, title, axis labels, n points (x[i], y[i]) -> an x-y line plot (a hysteresis loop) as PNG */
int br_plot_xy_png(const char *path, const char *title, const char *xlabel, const char *ylabel, long n,
                   const double *x, const double *y);

/* One curve of an x-y plot: n points (x[i], y[i]), a palette colour (0..7; 3 is black), a line
 * width (0: 1.2), circles at the points if markers; a label for the legend or NULL. Non-finite
 * points (and, on a log axis, points <= 0) break the line. */
typedef struct br_series {
    const char *label;
    long n;
    const double *x, *y;
    int color;
    double width;
    int markers;
} br_series;

enum { BR_PLOT_LOGX = 1, BR_PLOT_LOGY = 2 };

/* path, title, axis labels, flags (BR_PLOT_LOGX, BR_PLOT_LOGY), curves -> PNG; 0, -1 (also: nothing
 * finite) or -2 */
int br_plot_series_png(const char *path, const char *title, const char *xlabel, const char *ylabel, int flags,
                       const br_series *s, int ns);

/* path, title, x label, n values, bins (1..200) -> histogram of the finite values as PNG; 0, -1 or -2 */
int br_plot_hist_png(const char *path, const char *title, const char *xlabel, long n, const double *v, int nbins);

/* width, height, title at (x, y) -> white canvas with the title drawn (for other plot kinds) */
cairo_t *br_plot_canvas(int w, int h, const char *title, double x, double y);

/* canvas, path -> PNG written under a temporary name and renamed; the canvas freed; 0, -1 or -2 */
int br_plot_finish(cairo_t *cr, const char *path);

#endif
