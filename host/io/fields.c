/* fields.c: per-point snapshots of a meshed contact set: VTK XML PolyData (.vtp, binary and
 * zlib-compressed, opens in ParaView as the meshed face) with the normal pressure, sliding
 * velocity, stick/slip flag, friction force and bristle deflection of every point, a .pvd
 * collection listing the snapshots with their times, and a PNG map (pressure and stick/slip
 * seen along the surface normal). docs/formats.md describes the files. */
#include "io/fields.h"

#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5out.h"
#include "io/plot.h"
#include <zlib.h>

int br_fields_gather(const br_model *m, br_data *d, int s, br_field_snap *snap)
{
    const br_cset *cs = &m->cset[s];
    const long n = cs->desc.npoints, nv = cs->surf_cells ? cs->nsurf_v : 0;
    const int ns = br_law_nstate(cs->desc.law, &cs->desc.fric);
    memset(snap, 0, sizeof *snap);
    snap->n = n, snap->nv = nv;
    snap->x = malloc((size_t)n * 3 * sizeof(double));
    snap->F = malloc((size_t)n * 4 * sizeof(double));
    snap->vt = malloc((size_t)n * sizeof(double));
    snap->z = calloc((size_t)n * 3, sizeof(double));
    snap->stick = malloc((size_t)n * sizeof(double));
    snap->xv = nv ? malloc((size_t)nv * 3 * sizeof(double)) : NULL;
    double *st = ns > 0 ? malloc((size_t)n * ns * sizeof(double)) : NULL;
    if (!snap->x || !snap->F || !snap->vt || !snap->z || !snap->stick || (nv && !snap->xv) || (ns > 0 && !st)) {
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
    snap->t = d->t;
    snap->res = d->res[s];
    if (cs->desc.iface) { /* a deforming interface: its points where their nodes a are at rest (the nodes' motion,
                           * micrometres, is not drawn), the sliding speed from its inputs in the field */
        const double *iu = d->iface_iu ? d->iface_iu[s] : NULL, *N = snap->F + 3 * n;
        const double nn = sqrt(cs->mesh_normal[0] * cs->mesh_normal[0] + cs->mesh_normal[1] * cs->mesh_normal[1] +
                               cs->mesh_normal[2] * cs->mesh_normal[2]);
        for (long i = 0; i < n; i++) {
            for (int j = 0; j < 3; j++) snap->x[3 * i + j] = cs->r[3 * i + j];
            snap->vt[i] = N[i] > 0 && iu ? hypot(iu[3 * n + i], iu[4 * n + i]) : 0.0;
            snap->stick[i] =
                N[i] > 0 &&
                br_point_stuck(cs->desc.law, &cs->desc.fric, snap->vt[i], cs->desc.v_stick, snap->F + 3 * i, N[i]);
        }
        for (int j = 0; j < 3; j++) snap->nrm[j] = nn > 0 ? cs->mesh_normal[j] / nn : (j == 2);
        return 0;
    }
    /* kinematics at the snapshot state with the shared per-point function */
    br_set_frame fr;
    br_set_frame_build(&cs->desc, &d->frames[cs->desc.frame_a],
                       &d->frames[cs->desc.frame_b], &fr);
    const double *N = snap->F + 3 * n;
    for (long i = 0; i < n; i++) {
        br_point_kin k;
        br_kin(fr.surface, &fr, cs->r + 3 * i, &k);
        for (int j = 0; j < 3; j++) snap->x[3 * i + j] = fr.xA[j] + k.rw[j];
        snap->vt[i] = k.delta > 0 ? k.v : 0.0;
        snap->stick[i] =
            N[i] > 0 &&
            br_point_stuck(cs->desc.law, &cs->desc.fric, snap->vt[i], cs->desc.v_stick, snap->F + 3 * i, N[i]);
    }
    /* the sub-triangles' corners, carried with frame A as the points are */
    for (long i = 0; i < nv; i++) {
        const double *r = cs->surf_v + 3 * i;
        for (int j = 0; j < 3; j++)
            snap->xv[3 * i + j] = fr.xA[j] + fr.RA[3 * j] * r[0] + fr.RA[3 * j + 1] * r[1] + fr.RA[3 * j + 2] * r[2];
    }
    memcpy(snap->nrm, fr.surface == BR_SURF_PLANE ? fr.n : fr.ax, sizeof fr.n);
    return 0;
}

void br_fields_snap_free(br_field_snap *s)
{
    free(s->x), free(s->F), free(s->vt), free(s->z), free(s->stick), free(s->xv);
    memset(s, 0, sizeof *s);
}

/* One data array of a VTK XML file in the appended section, zlib-compressed in VTK's layout
 * (vtkZLibDataCompressor with header_type UInt64): a header of UInt64 (the block count, the
 * uncompressed size of a block, that of the last block when it is partial or 0, then each block's
 * compressed size), then the blocks, each compressed on its own. */
enum { VTK_BLOCK = 1 << 18 };

typedef struct vtk_blob {
    unsigned char *data;
    size_t size;
} vtk_blob;

/* raw bytes (n) -> b (allocated, in the layout above); the blocks compressed on every core (each on
 * its own, so the bytes do not depend on the thread count); 0, or -2 (out of memory or a zlib
 * failure) */
static int vtk_compress(const void *raw, size_t n, vtk_blob *b)
{
    const long nb = (long)((n + VTK_BLOCK - 1) / VTK_BLOCK);
    const size_t head = (3 + (size_t)nb) * sizeof(uint64_t), bound = compressBound(VTK_BLOCK);
    b->size = 0;
    b->data = malloc(head + (nb ? (size_t)nb * bound : 1));
    if (!b->data) return -2;
    uint64_t *h = (uint64_t *)b->data;
    h[0] = (uint64_t)nb, h[1] = VTK_BLOCK, h[2] = n % VTK_BLOCK;
    int bad = 0;
    /* block k compressed into its slot of bound bytes, then the blocks moved together */
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad) if (nb > 1)
    for (long k = 0; k < nb; k++) {
        const size_t len = k + 1 < nb || n % VTK_BLOCK == 0 ? VTK_BLOCK : n % VTK_BLOCK;
        uLongf out = bound;
        bad |= compress2(b->data + head + (size_t)k * bound, &out, (const Bytef *)raw + (size_t)k * VTK_BLOCK, len,
                         Z_BEST_SPEED) != Z_OK;
        h[3 + k] = out;
    }
    if (bad) {
        free(b->data);
        b->data = NULL;
        return -2;
    }
    size_t at = head;
    for (long k = 0; k < nb; k++) {
        memmove(b->data + at, b->data + head + (size_t)k * bound, h[3 + k]);
        at += h[3 + k];
    }
    b->size = at;
    return 0;
}

/* A .vtp file being assembled: the XML text of its arrays and their compressed data. */
typedef struct vtp_doc {
    FILE *fp;
    vtk_blob blob[16];
    int nblob;
    size_t offset; /* of the next array in the appended section */
} vtp_doc;

/* n values of ncomp components (stride apart, divided by div[i] if given, or Int64 from iv) -> a
 * DataArray element naming its place in the appended section; 0 or -2 */
static int vtp_array(vtp_doc *D, const char *name, int ncomp, long n, const double *v, int stride, const double *div,
                     const long *iv)
{
    const size_t bytes = (size_t)n * ncomp * 8;
    void *raw = calloc(bytes ? bytes : 1, 1);
    if (!raw || D->nblob == 16) {
        free(raw);
        return -2;
    }
    if (iv) {
        for (long i = 0; i < n * ncomp; i++) ((int64_t *)raw)[i] = iv[i];
    } else {
        double *o = raw;
        for (long i = 0; i < n; i++)
            for (int c = 0; c < ncomp; c++) {
                const double x = v[(long)stride * i + c];
                o[(long)ncomp * i + c] = div ? x / div[i] : x;
            }
    }
    vtk_blob *b = &D->blob[D->nblob];
    const int rc = vtk_compress(raw, bytes, b);
    free(raw);
    if (rc) return rc;
    D->nblob++;
    fprintf(D->fp,
            "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" offset=\"%zu\"/>\n",
            iv ? "Int64" : "Float64", name, ncomp, D->offset);
    D->offset += b->size;
    return 0;
}

/* path, set, snapshot -> the .vtp file: for sampling: vertices the mesh's triangles over the
 * points, the arrays as point data; for sampling: spacing the sub-triangles (one around each point)
 * as cells carrying the arrays; binary appended, zlib-compressed; field data (ASCII, 17 digits): TimeValue (ParaView's time) and the set's totals
 * as the field reduced them. Written under a temporary name and renamed. 0, -1 (cannot write) or
 * -2 (out of memory) */
static int write_vtp(const char *path, const br_cset *cs, const br_field_snap *S)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    const long n = S->n, nt = cs->nsurf_t, nv = cs->surf_cells ? S->nv : n;
    const double *N = S->F + 3 * n, *xv = cs->surf_cells ? S->xv : S->x, time = S->t;
    const br_set_result *res = &S->res;
    long *off = malloc((size_t)(nt ? nt : 1) * sizeof(long));
    vtp_doc D;
    memset(&D, 0, sizeof D);
    D.fp = fopen(tmp, "wb");
    int rc = !off ? -2 : D.fp ? 0 : -1;
    if (rc == 0) {
        for (long t = 0; t < nt; t++) off[t] = 3 * (t + 1);
        const char *where = cs->surf_cells ? "CellData" : "PointData";
        fprintf(D.fp,
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
                "header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">\n  <PolyData>\n    <FieldData>\n");
        const struct {
            const char *name;
            int n;
            const double *v;
        } fd[] = {{"TimeValue", 1, &time},          {"set_normal_force", 1, &res->N},
                  {"set_force", 3, res->F_A},       {"set_friction_force", 3, res->Ff_A},
                  {"set_moment", 3, res->M_A},      {"set_friction_power", 1, &res->P}};
        for (size_t k = 0; k < sizeof fd / sizeof fd[0]; k++) {
            fprintf(D.fp, "      <DataArray type=\"Float64\" Name=\"%s\" NumberOfTuples=\"1\" NumberOfComponents=\"%d\" "
                          "format=\"ascii\">", fd[k].name, fd[k].n);
            for (int j = 0; j < fd[k].n; j++) fprintf(D.fp, " %.17g", fd[k].v[j]);
            fputs(" </DataArray>\n", D.fp);
        }
        fprintf(D.fp, "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%ld\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
                "NumberOfPolys=\"%ld\">\n      <%s Scalars=\"pressure\">\n",
                nv, nt, where);
        if (!rc) rc = vtp_array(&D, "pressure", 1, n, N, 1, cs->area, NULL);
        if (!rc) rc = vtp_array(&D, "normal_force", 1, n, N, 1, NULL, NULL);
        if (!rc) rc = vtp_array(&D, "sliding_speed", 1, n, S->vt, 1, NULL, NULL);
        if (!rc) rc = vtp_array(&D, "stick", 1, n, S->stick, 1, NULL, NULL);
        if (!rc) rc = vtp_array(&D, "friction_force", 3, n, S->F, 3, NULL, NULL);
        if (!rc) rc = vtp_array(&D, "bristle_deflection", 3, n, S->z, 3, NULL, NULL);
        if (!rc) rc = vtp_array(&D, "area", 1, n, cs->area, 1, NULL, NULL);
        fprintf(D.fp, "      </%s>\n      <Points>\n", where);
        if (!rc) rc = vtp_array(&D, "position", 3, nv, xv, 3, NULL, NULL);
        fputs("      </Points>\n      <Polys>\n", D.fp);
        if (!rc) rc = vtp_array(&D, "connectivity", 1, 3 * nt, NULL, 1, NULL, cs->surf_t);
        if (!rc) rc = vtp_array(&D, "offsets", 1, nt, NULL, 1, NULL, off);
        fputs("      </Polys>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _", D.fp);
        for (int k = 0; k < D.nblob && !rc; k++) fwrite(D.blob[k].data, 1, D.blob[k].size, D.fp);
        fputs("\n  </AppendedData>\n</VTKFile>\n", D.fp);
    }
    for (int k = 0; k < D.nblob; k++) free(D.blob[k].data);
    free(off);
    if (D.fp) {
        const int bad = ferror(D.fp);
        if (fclose(D.fp) || bad) rc = rc ? rc : -1;
    }
    if (rc) {
        remove(tmp);
        return rc;
    }
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
static int write_map(const char *path, const char *title, const br_cset *cs, const br_field_snap *S)
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
            else if (S->stick[i]) r = 0.12, g = 0.35, b = 0.85;
            else r = 0.85, g = 0.15, b = 0.15;
            cairo_set_source_rgb(cr, r, g, b);
            cairo_rectangle(cr, x0 + (u - ul) / span * P - dot / 2, y0 + P - (v - vl) / span * P - dot / 2, dot, dot);
            cairo_fill(cr);
        }
    }
    return br_plot_finish(cr, path);
}

int br_fields_write(const br_model *m, br_data *d, const char *dir, int k, br_h5 *h5, char *names, size_t nameslen)
{
    const int vtp = h5 == NULL;
    char path[1200], title[300];
    size_t used = 0;
    names[0] = 0;
    for (int s = 0; s < m->nset; s++) {
        const br_cset *cs = &m->cset[s];
        if (!cs->meshed) continue;
        br_field_snap S;
        const int gr = br_fields_gather(m, d, s, &S);
        if (gr) {
            br_fields_snap_free(&S);
            return gr;
        }
        int rc = 0;
        if (vtp) {
            snprintf(path, sizeof path, "%s/fields/%s_%d.vtp", dir, cs->name, k);
            rc = write_vtp(path, cs, &S);
        }
        snprintf(path, sizeof path, "%s/fields/%s_%d.png", dir, cs->name, k);
        snprintf(title, sizeof title, "%s: %s at t = %.6g s (%ld points)", m->name, cs->name, d->t, S.n);
        if (rc == 0 && m->out_plots) rc = write_map(path, title, cs, &S);
        if (rc == 0 && h5) rc = br_h5_snapshot(h5, s, k, &S);
        br_fields_snap_free(&S);
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
