/* plot.c: min/max bucket buffer and cairo line plots. */
#include "io/plot.h"

#include "base/ckpt_io.h"

#include <cairo.h>
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct br_plotbuf {
    int ncols;
    long per;      /* rows per bucket */
    long nb, cap;  /* buckets used, allocated */
    long fill;     /* rows in the current bucket */
    double *lo, *hi; /* cap * ncols each; column 0 holds the bucket's first and last time */
};

br_plotbuf *br_plotbuf_create(int ncols, long rows_expected, long buckets)
{
    br_plotbuf *pb = calloc(1, sizeof *pb);
    if (!pb) return NULL;
    pb->ncols = ncols;
    pb->per = rows_expected / buckets + 1;
    pb->cap = rows_expected / pb->per + 2;
    pb->lo = malloc((size_t)pb->cap * (size_t)ncols * sizeof(double));
    pb->hi = malloc((size_t)pb->cap * (size_t)ncols * sizeof(double));
    if (!pb->lo || !pb->hi) {
        br_plotbuf_free(pb);
        return NULL;
    }
    return pb;
}

void br_plotbuf_add(br_plotbuf *pb, const double *row)
{
    if (pb->fill == 0) {
        if (pb->nb == pb->cap) return; /* more rows than announced: the tail is not plotted */
        memcpy(pb->lo + pb->nb * pb->ncols, row, (size_t)pb->ncols * sizeof(double));
        memcpy(pb->hi + pb->nb * pb->ncols, row, (size_t)pb->ncols * sizeof(double));
        pb->nb++;
    } else {
        double *lo = pb->lo + (pb->nb - 1) * pb->ncols, *hi = pb->hi + (pb->nb - 1) * pb->ncols;
        hi[0] = row[0];
        for (int c = 1; c < pb->ncols; c++) {
            lo[c] = row[c] < lo[c] ? row[c] : lo[c];
            hi[c] = row[c] > hi[c] ? row[c] : hi[c];
        }
    }
    if (++pb->fill == pb->per) pb->fill = 0;
}

int br_plotbuf_checkpoint(br_plotbuf *pb, br_ckpt *c)
{
    long dims[4] = {pb->ncols, pb->per, pb->cap, 0}, want[4];
    memcpy(want, dims, sizeof dims);
    br_ckpt_io(c, "plot_dims", dims, sizeof dims);
    if (!c->failed && memcmp(dims, want, sizeof dims)) {
        snprintf(c->err, sizeof c->err, "the checkpoint's plot buffer has another size");
        c->failed = 1;
    }
    br_ckpt_io(c, "plot_fill", &pb->nb, sizeof pb->nb);
    br_ckpt_io(c, "plot_fill2", &pb->fill, sizeof pb->fill);
    if (!c->failed && !(pb->nb >= 0 && pb->nb <= pb->cap)) c->failed = 1;
    br_ckpt_io(c, "plot_lo", pb->lo, (size_t)pb->nb * pb->ncols * sizeof(double));
    br_ckpt_io(c, "plot_hi", pb->hi, (size_t)pb->nb * pb->ncols * sizeof(double));
    return c->failed ? -1 : 0;
}

void br_plotbuf_free(br_plotbuf *pb)
{
    if (!pb) return;
    free(pb->lo);
    free(pb->hi);
    free(pb);
}

/* range -> a 1, 2 or 5 times a power of ten step giving about n ticks */
static double nice_step(double range, int n)
{
    const double raw = range / n, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void pad_range(double *lo, double *hi);

/* range [lo, hi], step -> the whole multiples k st inside it, k0..k1 (at most 100 of them; none when
 * the step is not finite and positive or is below the rounding of the values: near t = 1e15 a
 * step of 1e-3 would not advance a loop that adds it) */
static void tick_span(double lo, double hi, double st, long *k0, long *k1)
{
    *k0 = 1, *k1 = 0;
    if (!(st > 0) || !isfinite(st) || !isfinite(lo) || !isfinite(hi)) return;
    const double a = ceil(lo / st), b = floor(hi / st);
    if (!(b - a < 100) || a + 1 == a || fabs(a) > 1e15) return;
    *k0 = (long)a, *k1 = (long)b;
}

static const double PALETTE[8][3] = {{0.12, 0.47, 0.71}, {0.84, 0.15, 0.16}, {0.17, 0.63, 0.17},
                                     {0.0, 0.0, 0.0},    {1.0, 0.5, 0.05},   {0.58, 0.4, 0.74},
                                     {0.55, 0.34, 0.29}, {0.5, 0.5, 0.5}};

enum { W = 1100, PH = 300, TOP = 44, LEFT = 100, RIGHT = 170, BOTTOM = 46 };

static void draw_panel(cairo_t *cr, const br_plotbuf *pb, const br_panel *p, double y0, double t0,
                       double t1, int last)
{
    const double x0 = LEFT, x1 = W - RIGHT, top = y0 + 10, bot = y0 + PH - (last ? BOTTOM : 16);
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < p->ncurves; k++)
        for (long b = 0; b < pb->nb; b++) {
            const double a = pb->lo[b * pb->ncols + p->curves[k].col], c = pb->hi[b * pb->ncols + p->curves[k].col];
            if (isfinite(a)) lo = a < lo ? a : lo;
            if (isfinite(c)) hi = c > hi ? c : hi;
        }
    pad_range(&lo, &hi);
#define PX(t) (x0 + ((t) - t0) / (t1 - t0) * (x1 - x0))
#define PY(v) (bot - ((v) - lo) / (hi - lo) * (bot - top))
    cairo_set_line_width(cr, 1.0);
    cairo_set_font_size(cr, 12);
    char lab[64];
    /* grid and ticks */
    const double ys = nice_step(hi - lo, 5);
    long k0, k1;
    tick_span(lo, hi, ys, &k0, &k1);
    for (long k = k0; k <= k1; k++) {
        const double v = (double)k * ys;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x0, PY(v));
        cairo_line_to(cr, x1, PY(v));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(lab, sizeof lab, "%.4g", fabs(v) < 1e-9 * ys ? 0.0 : v);
        cairo_text_extents_t te;
        cairo_text_extents(cr, lab, &te);
        cairo_move_to(cr, x0 - 6 - te.width, PY(v) + 4);
        cairo_show_text(cr, lab);
    }
    const double ts = nice_step(t1 - t0, 8);
    tick_span(t0, t1 + 1e-9 * ts, ts, &k0, &k1);
    for (long k = k0; k <= k1; k++) {
        const double t = (double)k * ts;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, PX(t), top);
        cairo_line_to(cr, PX(t), bot);
        cairo_stroke(cr);
        if (last) {
            cairo_set_source_rgb(cr, 0, 0, 0);
            snprintf(lab, sizeof lab, "%.4g", t);
            cairo_move_to(cr, PX(t) - 8, bot + 16);
            cairo_show_text(cr, lab);
        }
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, x0, top, x1 - x0, bot - top);
    cairo_stroke(cr);
    if (last) {
        cairo_move_to(cr, (x0 + x1) / 2 - 20, bot + 36);
        cairo_show_text(cr, "t [s]");
    }
    cairo_save(cr);
    cairo_move_to(cr, 22, (top + bot) / 2 + 40);
    cairo_rotate(cr, -M_PI / 2);
    cairo_show_text(cr, p->ylabel);
    cairo_restore(cr);
    /* curves: the buckets folded into pixel columns, each column's range from minimum to maximum,
     * drawn as one filled band at least 1.3 px thick (a dense signal shows its envelope, a smooth
     * one a line); a column without finite data breaks the band */
    cairo_rectangle(cr, x0, top, x1 - x0, bot - top);
    cairo_save(cr);
    cairo_clip(cr);
    enum { NCOL = W - LEFT - RIGHT };
    double clo[NCOL], chi[NCOL];
    for (int k = 0; k < p->ncurves; k++) {
        const int c = p->curves[k].col;
        for (int q = 0; q < NCOL; q++) clo[q] = INFINITY, chi[q] = -INFINITY;
        for (long b = 0; b < pb->nb; b++) {
            const double a = pb->lo[b * pb->ncols + c], z = pb->hi[b * pb->ncols + c];
            if (!isfinite(a) || !isfinite(z)) continue;
            int q0 = (int)floor(PX(pb->lo[b * pb->ncols]) - x0), q1 = (int)floor(PX(pb->hi[b * pb->ncols]) - x0);
            q0 = q0 < 0 ? 0 : q0 >= NCOL ? NCOL - 1 : q0, q1 = q1 < q0 ? q0 : q1 >= NCOL ? NCOL - 1 : q1;
            for (int q = q0; q <= q1; q++) clo[q] = fmin(clo[q], a), chi[q] = fmax(chi[q], z);
        }
        cairo_set_source_rgb(cr, PALETTE[k % 8][0], PALETTE[k % 8][1], PALETTE[k % 8][2]);
        for (int q = 0; q < NCOL;) {
            if (!(chi[q] >= clo[q])) {
                q++;
                continue;
            }
            int e = q;
            while (e + 1 < NCOL && chi[e + 1] >= clo[e + 1]) e++;
            /* upper edge left to right, lower edge back; half the minimum thickness each side */
            cairo_move_to(cr, x0 + q, PY(chi[q]) - 0.65);
            for (int j = q; j <= e; j++) cairo_line_to(cr, x0 + j + 0.5, PY(chi[j]) - 0.65);
            cairo_line_to(cr, x0 + e + 1, PY(chi[e]) - 0.65);
            cairo_line_to(cr, x0 + e + 1, PY(clo[e]) + 0.65);
            for (int j = e; j >= q; j--) cairo_line_to(cr, x0 + j + 0.5, PY(clo[j]) + 0.65);
            cairo_line_to(cr, x0 + q, PY(clo[q]) + 0.65);
            cairo_close_path(cr);
            q = e + 1;
        }
        cairo_fill(cr);
    }
    cairo_restore(cr);
    /* legend */
    for (int k = 0; k < p->ncurves; k++) {
        const double ly = top + 14 + 18 * k;
        cairo_set_source_rgb(cr, PALETTE[k % 8][0], PALETTE[k % 8][1], PALETTE[k % 8][2]);
        cairo_set_line_width(cr, 2.5);
        cairo_move_to(cr, x1 + 10, ly - 4);
        cairo_line_to(cr, x1 + 30, ly - 4);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, x1 + 36, ly);
        cairo_show_text(cr, p->curves[k].label);
    }
#undef PX
#undef PY
}

cairo_t *br_plot_canvas(int w, int h, const char *title, double x, double y)
{
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(sf);
    cairo_surface_destroy(sf); /* the context holds its own reference */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 16);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, title);
    return cr;
}

/* RGB24 image surface -> PNG file at path; 0, -1 (cannot write) or -2 (out of memory). libpng directly rather than cairo's writer:
 * zlib's fastest level and no row filter (white plots with thin lines compress well either way)
 * write the 13 PNGs of a blade run in a fifth of the time of cairo's default (level 6 and an
 * adaptive filter per row: 0.3 s of a 1.6 s run at dt = 1e-4) */
static int write_png(cairo_surface_t *sf, const char *path)
{
    cairo_surface_flush(sf);
    const int w = cairo_image_surface_get_width(sf), h = cairo_image_surface_get_height(sf);
    const int stride = cairo_image_surface_get_stride(sf);
    const unsigned char *data = cairo_image_surface_get_data(sf);
    FILE *fp = fopen(path, "wb");
    if (!fp || !data) {
        if (fp) fclose(fp);
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *rgb = malloc((size_t)3 * (size_t)w);
    int rc = png && info && rgb ? -1 : -2;
    if (rc == -1 && !setjmp(png_jmpbuf(png))) {
        png_init_io(png, fp);
        png_set_compression_level(png, 1);
        png_set_filter(png, 0, PNG_FILTER_NONE);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (int y = 0; y < h; y++) {
            const uint32_t *px = (const uint32_t *)(const void *)(data + (size_t)y * stride); /* 0x00RRGGBB */
            for (int x = 0; x < w; x++)
                rgb[3 * x] = (unsigned char)(px[x] >> 16), rgb[3 * x + 1] = (unsigned char)(px[x] >> 8),
                rgb[3 * x + 2] = (unsigned char)px[x];
            png_write_row(png, rgb);
        }
        png_write_end(png, NULL);
        rc = 0;
    }
    png_destroy_write_struct(&png, &info);
    free(rgb);
    if (fclose(fp) != 0) rc = -1;
    return rc;
}

int br_plot_finish(cairo_t *cr, const char *path)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    const cairo_status_t cs = cairo_status(cr);
    const int rc = cs == CAIRO_STATUS_SUCCESS ? write_png(cairo_get_target(cr), tmp)
                   : cs == CAIRO_STATUS_NO_MEMORY ? -2 : -1;
    cairo_destroy(cr);
    if (rc) {
        unlink(tmp);
        return rc;
    }
    return rename(tmp, path) == 0 ? 0 : -1;
}

int br_plot_png(const char *path, const char *title, const br_plotbuf *pb, const br_panel *panels,
                int npanels)
{
    if (pb->nb < 1) return -1;
    cairo_t *cr = br_plot_canvas(W, TOP + npanels * PH, title, LEFT, 26);
    double t0 = pb->lo[0], t1 = pb->hi[(pb->nb - 1) * pb->ncols];
    if (!(t1 > t0)) t1 = t0 + 1.0;
    for (int k = 0; k < npanels; k++) draw_panel(cr, pb, &panels[k], TOP + k * PH, t0, t1, k == npanels - 1);
    return br_plot_finish(cr, path);
}

/* value range -> padded [lo, hi] that is never empty */
static void pad_range(double *lo, double *hi)
{
    if (!(*lo <= *hi)) *lo = -1, *hi = 1;
    if (*hi - *lo <= 1e-300 + 1e-12 * fabs(*hi)) {
        const double p = fabs(*hi) > 0 ? 0.1 * fabs(*hi) : 1.0;
        *lo -= p, *hi += p;
    }
    const double p = 0.05 * (*hi - *lo);
    *lo -= p, *hi += p;
}

/* value range, log -> ticks: a nice linear step, or the decades (with 2 and 5 when few) */
static int axis_ticks(double lo, double hi, int logax, double *tick, int max)
{
    int n = 0;
    if (!logax) {
        const double st = nice_step(hi - lo, 6);
        long k0, k1;
        tick_span(lo, hi, st, &k0, &k1);
        for (long k = k0; k <= k1 && n < max; k++) {
            const double v = (double)k * st;
            tick[n++] = fabs(v) < 1e-9 * st ? 0.0 : v;
        }
        return n;
    }
    if (!isfinite(lo) || !isfinite(hi) || hi - lo > 400) return 0;
    const int dec = (int)(floor(hi) - ceil(lo)) + 1;
    static const double sub[3] = {1, 2, 5};
    for (double e = floor(lo); e <= ceil(hi) && n < max; e += 1)
        for (int k = 0; k < (dec <= 2 ? 3 : 1) && n < max; k++) {
            const double v = e + log10(sub[k]);
            if (v >= lo && v <= hi) tick[n++] = v;
        }
    return n;
}

int br_plot_series_png(const char *path, const char *title, const char *xlabel, const char *ylabel, int flags,
                       const br_series *s, int ns)
{
    enum { S = 640, M = 90 };
    const int lx = flags & BR_PLOT_LOGX, ly = flags & BR_PLOT_LOGY;
#define TX(v) (lx ? log10(v) : (v))
#define TY(v) (ly ? log10(v) : (v))
#define OK(xv, yv) (isfinite(TX(xv)) && isfinite(TY(yv)))
    double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY;
    long npts = 0;
    for (int k = 0; k < ns; k++)
        for (long i = 0; i < s[k].n; i++) {
            if (!OK(s[k].x[i], s[k].y[i])) continue;
            xl = fmin(xl, TX(s[k].x[i])), xh = fmax(xh, TX(s[k].x[i]));
            yl = fmin(yl, TY(s[k].y[i])), yh = fmax(yh, TY(s[k].y[i]));
            npts++;
        }
    if (npts < 1) return -1;
    pad_range(&xl, &xh);
    pad_range(&yl, &yh);
    int legend = 0;
    for (int k = 0; k < ns; k++) legend |= s[k].label != NULL;
    const int RW = legend ? 190 : 30;
    cairo_t *cr = br_plot_canvas(S + M + RW, S + M, title, M, 24);
    const double x0 = M, x1 = M + S - 20, top = 40, bot = S + 10;
#define PX(v) (x0 + ((v) - xl) / (xh - xl) * (x1 - x0))
#define PY(v) (bot - ((v) - yl) / (yh - yl) * (bot - top))
    cairo_set_font_size(cr, 12);
    cairo_set_line_width(cr, 1.0);
    char lab[64];
    double tk[64];
    int nt = axis_ticks(xl, xh, lx, tk, 64);
    for (int i = 0; i < nt; i++) {
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, PX(tk[i]), top), cairo_line_to(cr, PX(tk[i]), bot), cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(lab, sizeof lab, "%.3g", lx ? pow(10.0, tk[i]) : tk[i]);
        cairo_move_to(cr, PX(tk[i]) - 12, bot + 16), cairo_show_text(cr, lab);
    }
    nt = axis_ticks(yl, yh, ly, tk, 64);
    for (int i = 0; i < nt; i++) {
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x0, PY(tk[i])), cairo_line_to(cr, x1, PY(tk[i])), cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(lab, sizeof lab, "%.3g", ly ? pow(10.0, tk[i]) : tk[i]);
        cairo_text_extents_t te;
        cairo_text_extents(cr, lab, &te);
        cairo_move_to(cr, x0 - 6 - te.width, PY(tk[i]) + 4), cairo_show_text(cr, lab);
    }
    cairo_rectangle(cr, x0, top, x1 - x0, bot - top);
    cairo_stroke(cr);
    cairo_text_extents_t xe;
    cairo_text_extents(cr, xlabel, &xe);
    cairo_move_to(cr, (x0 + x1 - xe.width) / 2, bot + 38), cairo_show_text(cr, xlabel);
    cairo_save(cr);
    cairo_move_to(cr, 22, (top + bot) / 2 + 60);
    cairo_rotate(cr, -M_PI / 2);
    cairo_show_text(cr, ylabel);
    cairo_restore(cr);
    for (int k = 0, row = 0; k < ns; k++) { /* legend right of the frame */
        if (!s[k].label) continue;
        const double *c = PALETTE[s[k].color & 7];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, s[k].width > 0 ? s[k].width : 1.2);
        const double ly0 = top + 10 + 18 * row++;
        cairo_move_to(cr, x1 + 12, ly0), cairo_line_to(cr, x1 + 34, ly0), cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, x1 + 40, ly0 + 4), cairo_show_text(cr, s[k].label);
    }
    cairo_save(cr);
    cairo_rectangle(cr, x0, top, x1 - x0, bot - top);
    cairo_clip(cr);
    for (int k = 0; k < ns; k++) {
        const double *c = PALETTE[s[k].color & 7];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, s[k].width > 0 ? s[k].width : 1.2);
        int pen = 0; /* a polyline through the finite points, broken at the others; circles over it */
        for (long i = 0; i < s[k].n; i++) {
            if (!OK(s[k].x[i], s[k].y[i])) {
                pen = 0;
                continue;
            }
            const double px = PX(TX(s[k].x[i])), py = PY(TY(s[k].y[i]));
            if (pen) cairo_line_to(cr, px, py);
            else cairo_move_to(cr, px, py);
            pen = 1;
        }
        cairo_stroke(cr);
        for (long i = 0; s[k].markers && i < s[k].n; i++)
            if (OK(s[k].x[i], s[k].y[i])) {
                cairo_arc(cr, PX(TX(s[k].x[i])), PY(TY(s[k].y[i])), 3.0, 0, 2 * M_PI);
                cairo_fill(cr);
            }
    }
    cairo_restore(cr);
#undef PX
#undef PY
#undef TX
#undef TY
#undef OK
    return br_plot_finish(cr, path);
}

int br_plot_xy_png(const char *path, const char *title, const char *xlabel, const char *ylabel, long n,
                   const double *x, const double *y)
{
    if (n < 2) return -1;
    const br_series s = {NULL, n, x, y, 0, 1.2, 0};
    return br_plot_series_png(path, title, xlabel, ylabel, 0, &s, 1);
}

int br_plot_hist_png(const char *path, const char *title, const char *xlabel, long n, const double *v, int nbins)
{
    double lo = INFINITY, hi = -INFINITY;
    for (long i = 0; i < n; i++)
        if (isfinite(v[i])) lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    if (!(lo <= hi) || nbins < 1 || nbins > 200) return -1;
    if (hi - lo < 1e-12 * fabs(hi) + 1e-300) lo -= 0.5 * fabs(lo) + 1e-3, hi += 0.5 * fabs(hi) + 1e-3;
    double cnt[200] = {0}, edge[201], x[404], y[404];
    for (long i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        int b = (int)((v[i] - lo) / (hi - lo) * nbins);
        cnt[b < 0 ? 0 : b >= nbins ? nbins - 1 : b] += 1;
    }
    for (int b = 0; b <= nbins; b++) edge[b] = lo + (hi - lo) * b / nbins;
    long m = 0; /* the outline of the bars, from the axis and back to it */
    x[m] = edge[0], y[m++] = 0.0;
    for (int b = 0; b < nbins; b++) x[m] = edge[b], y[m++] = cnt[b], x[m] = edge[b + 1], y[m++] = cnt[b];
    x[m] = edge[nbins], y[m++] = 0.0;
    double bx[2] = {edge[0], edge[nbins]}, by[2] = {0, 0};
    const br_series s[2] = {{NULL, m, x, y, 0, 2.0, 0}, {NULL, 2, bx, by, 3, 1.0, 0}};
    return br_plot_series_png(path, title, xlabel, "variants", 0, s, 2);
}
