/* fields.c: per-point snapshots of a contact set: VTK XML PolyData (.vtp, opens in
 * ParaView) with the normal pressure, sliding velocity, stick/slip flag, friction force
 * and bristle deflection of every point, a .pvd collection listing the snapshots with
 * their times, and a PNG map (pressure and stick/slip seen along the surface normal). */
#include "fields.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

/* one meshed set at one time, per point */
typedef struct br_field_snap {
    long n;
    double *x;    /* 3 n world positions */
    double *F;    /* 3 n friction force on A, then n normal forces */
    double *vt;   /* n sliding speeds (0 out of contact) */
    double *z;    /* 3 n bristle deflections (0 for stateless laws) */
    double nrm[3];
} br_field_snap;

/* model, data (after a recorded field step), set -> per-point arrays in snap (allocated); 0, -2 (out
 * of memory) or -3 (the field holds no per-point forces of this step) */
static int gather(const br_model *m, br_data *d, int s, br_field_snap *snap)
{
    const br_cset *cs = &m->cset[s];
    const long n = cs->desc.npoints;
    const int ns = br_law_nstate(cs->desc.law, &cs->desc.fric);
    snap->n = n;
    snap->x = malloc((size_t)n * 3 * sizeof(double));
    snap->F = malloc((size_t)n * 4 * sizeof(double));
    snap->vt = malloc((size_t)n * sizeof(double));
    snap->z = calloc((size_t)n * 3, sizeof(double));
    double *st = ns > 0 ? malloc((size_t)n * ns * sizeof(double)) : NULL;
    if (!snap->x || !snap->F || !snap->vt || !snap->z || (ns > 0 && !st)) {
        free(st);
        return -2;
    }
    if (br_field_points(d->field, s, snap->F, snap->F + 3 * n)) {
        free(st);
        return -3;
    }
    if (ns >= 3 && br_field_get_state(d->field, s, st) == 0)
        for (long i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) snap->z[3 * i + k] = st[k * n + i];
    free(st);
    /* kinematics at the snapshot state with the shared per-point function */
    br_set_frame fr;
    br_set_frame_build(&cs->desc, &d->frames[cs->desc.frame_a],
                       &d->frames[cs->desc.frame_b], &fr);
    for (long i = 0; i < n; i++) {
        br_point_kin k;
        br_kin(fr.surface, &fr, cs->r + 3 * i, &k);
        for (int j = 0; j < 3; j++) snap->x[3 * i + j] = fr.xA[j] + k.rw[j];
        snap->vt[i] = k.delta > 0 ? k.v : 0.0;
    }
    memcpy(snap->nrm, fr.surface == BR_SURF_PLANE ? fr.n : fr.ax, sizeof fr.n);
    return 0;
}

static void snap_free(br_field_snap *s)
{
    free(s->x), free(s->F), free(s->vt), free(s->z);
    memset(s, 0, sizeof *s);
}

/* one DataArray of ncomp components per point */
static void vtp_array(FILE *fp, const char *name, int ncomp, long n, const double *v, int stride, double scale_by_area,
                      const double *area)
{
    fprintf(fp, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n", name,
            ncomp);
    for (long i = 0; i < n; i++) {
        fputs("         ", fp);
        for (int c = 0; c < ncomp; c++) {
            double x = v[(long)stride * i + c];
            if (scale_by_area > 0) x /= area[i];
            fprintf(fp, " %.9g", x);
        }
        fputc('\n', fp);
    }
    fputs("        </DataArray>\n", fp);
}

/* path, set, snapshot -> the .vtp file; 0, -1 (cannot write) or -2 (out of memory) */
static int write_vtp(const char *path, const br_cset *cs, const br_field_snap *S, double v_stick)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    const long n = S->n;
    double *stick = malloc((size_t)n * sizeof(double)), *N = S->F + 3 * n;
    if (!stick) return -2;
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        free(stick);
        return -1;
    }
    fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                "  <PolyData>\n    <Piece NumberOfPoints=\"%ld\" NumberOfVerts=\"%ld\" NumberOfLines=\"0\" "
                "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <PointData Scalars=\"pressure\">\n",
            n, n);
    for (long i = 0; i < n; i++)
        stick[i] = (N[i] > 0 && br_point_stuck(cs->desc.law, &cs->desc.fric, S->vt[i], v_stick, S->F + 3 * i, N[i]));
    vtp_array(fp, "pressure", 1, n, N, 1, 1.0, cs->area);
    vtp_array(fp, "normal_force", 1, n, N, 1, 0, NULL);
    vtp_array(fp, "sliding_speed", 1, n, S->vt, 1, 0, NULL);
    vtp_array(fp, "stick", 1, n, stick, 1, 0, NULL);
    vtp_array(fp, "friction_force", 3, n, S->F, 3, 0, NULL);
    vtp_array(fp, "bristle_deflection", 3, n, S->z, 3, 0, NULL);
    vtp_array(fp, "area", 1, n, cs->area, 1, 0, NULL);
    free(stick);
    fputs("      </PointData>\n      <Points>\n", fp);
    vtp_array(fp, "position", 3, n, S->x, 3, 0, NULL);
    fputs("      </Points>\n      <Verts>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
          fp);
    for (long i = 0; i < n; i++) fprintf(fp, "%ld%c", i, (i % 16 == 15 || i + 1 == n) ? '\n' : ' ');
    fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n", fp);
    for (long i = 0; i < n; i++) fprintf(fp, "%ld%c", i + 1, (i % 16 == 15 || i + 1 == n) ? '\n' : ' ');
    fputs("        </DataArray>\n      </Verts>\n    </Piece>\n  </PolyData>\n</VTKFile>\n", fp);
    const int bad = ferror(fp);
    if (fclose(fp) || bad) return -1;
    return rename(tmp, path);
}

/* colour map (viridis-like, 5 stops) for x in [0, 1] */
static void cmap(double x, double *r, double *g, double *b)
{
    static const double s[5][3] = {{0.27, 0.00, 0.33}, {0.23, 0.32, 0.55}, {0.13, 0.57, 0.55}, {0.37, 0.79, 0.38},
                                   {0.99, 0.91, 0.14}};
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    const double f = x * 4;
    const int k = f >= 4 ? 3 : (int)f;
    const double t = f - k;
    *r = s[k][0] + t * (s[k + 1][0] - s[k][0]);
    *g = s[k][1] + t * (s[k + 1][1] - s[k][1]);
    *b = s[k][2] + t * (s[k + 1][2] - s[k][2]);
}

/* path, title, set, snapshot -> the PNG map; 0, -1 or -2 (br_plot_finish) */
static int write_map(const char *path, const char *title, const br_cset *cs, const br_field_snap *S, double v_stick)
{
    const long n = S->n;
    /* in-plane axes e1, e2 normal to the surface normal */
    const double *nz = S->nrm;
    double e1[3] = {1, 0, 0}, e2[3];
    if (fabs(nz[0]) > 0.9) e1[0] = 0, e1[1] = 1;
    const double dn = br_dot3(e1, nz);
    for (int j = 0; j < 3; j++) e1[j] -= dn * nz[j];
    const double l = br_norm3(e1);
    for (int j = 0; j < 3; j++) e1[j] /= l;
    br_cross3(nz, e1, e2);
    double ul = INFINITY, uh = -INFINITY, vl = INFINITY, vh = -INFINITY, pmax = 0;
    const double *N = S->F + 3 * n;
    for (long i = 0; i < n; i++) {
        const double *p = S->x + 3 * i;
        const double u = br_dot3(p, e1), v = br_dot3(p, e2);
        ul = fmin(ul, u), uh = fmax(uh, u), vl = fmin(vl, v), vh = fmax(vh, v);
        pmax = fmax(pmax, N[i] / cs->area[i]);
    }
    const double span = fmax(fmax(uh - ul, vh - vl), 1e-12);
    enum { P = 420, G = 40 };
    cairo_t *cr = br_plot_canvas(2 * P + 3 * G, P + 2 * G + 20, title, G, 22);
    cairo_set_source_rgb(cr, 0, 0, 0);
    char lab[160];
    snprintf(lab, sizeof lab, "pressure, 0 (dark) to %.4g Pa (yellow)", pmax);
    cairo_set_font_size(cr, 12);
    cairo_move_to(cr, G, P + 2 * G + 10);
    cairo_show_text(cr, lab);
    cairo_move_to(cr, 2 * G + P, P + 2 * G + 10);
    cairo_show_text(cr, "stick (blue), slip (red), no contact (grey)");
    const double dot = fmax(1.0, P / sqrt((double)n) * 0.9);
    for (int panel = 0; panel < 2; panel++) {
        const double x0 = G + panel * (P + G), y0 = G;
        for (long i = 0; i < n; i++) {
            const double *p = S->x + 3 * i;
            const double u = br_dot3(p, e1), v = br_dot3(p, e2);
            double r, g, b;
            if (panel == 0) cmap(pmax > 0 ? N[i] / cs->area[i] / pmax : 0, &r, &g, &b);
            else if (!(N[i] > 0)) r = g = b = 0.75;
            else if (br_point_stuck(cs->desc.law, &cs->desc.fric, S->vt[i], v_stick, S->F + 3 * i, N[i]))
                r = 0.12, g = 0.35, b = 0.85;
            else r = 0.85, g = 0.15, b = 0.15;
            cairo_set_source_rgb(cr, r, g, b);
            cairo_rectangle(cr, x0 + (u - ul) / span * P - dot / 2, y0 + P - (v - vl) / span * P - dot / 2, dot, dot);
            cairo_fill(cr);
        }
    }
    return br_plot_finish(cr, path);
}

int br_fields_write(const br_model *m, br_data *d, const char *dir, int k, char *names, size_t nameslen)
{
    char path[1200], title[300];
    size_t used = 0;
    names[0] = 0;
    for (int s = 0; s < m->nset; s++) {
        const br_cset *cs = &m->cset[s];
        if (!cs->meshed) continue;
        br_field_snap S;
        memset(&S, 0, sizeof S);
        const int gr = gather(m, d, s, &S);
        if (gr) {
            snap_free(&S);
            return gr;
        }
        snprintf(path, sizeof path, "%s/fields/%s_%d.vtp", dir, cs->name, k);
        int rc = write_vtp(path, cs, &S, cs->desc.v_stick);
        snprintf(path, sizeof path, "%s/fields/%s_%d.png", dir, cs->name, k);
        snprintf(title, sizeof title, "%s: %s at t = %.6g s (%ld points)", m->name, cs->name, d->t, S.n);
        if (rc == 0) rc = write_map(path, title, cs, &S, cs->desc.v_stick);
        snap_free(&S);
        if (rc) return rc;
        used += (size_t)snprintf(names + used, used < nameslen ? nameslen - used : 0, "%sfields/%s_%d.vtp",
                                 used ? " " : "", cs->name, k);
    }
    return 0;
}

int br_fields_collection(const br_model *m, const char *dir, const double *times, int nk)
{
    for (int s = 0; s < m->nset; s++) {
        const br_cset *cs = &m->cset[s];
        if (!cs->meshed || nk == 0) continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/fields/%s.pvd", dir, cs->name);
        FILE *fp = fopen(path, "w");
        if (!fp) return -1;
        fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n", fp);
        for (int k = 0; k < nk; k++)
            fprintf(fp, "    <DataSet timestep=\"%.9g\" file=\"%s_%d.vtp\"/>\n", times[k], cs->name, k);
        fputs("  </Collection>\n</VTKFile>\n", fp);
        if (fclose(fp)) return -1;
    }
    return 0;
}
