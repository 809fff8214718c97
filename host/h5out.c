/* h5out.c: run.h5 and run.xdmf (h5out.h; the layout in docs/format-hdf5.md). */
#include "h5out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laws.h"
#include "output.h"

#ifndef BRISTLE_HAVE_HDF5

int br_h5_available(void) { return 0; }

br_h5 *br_h5_create(const char *path, const br_model *m, char *err, size_t errlen)
{
    (void)path, (void)m;
    snprintf(err, errlen, "this build has no HDF5 (install libhdf5-dev, then cmake again)");
    return NULL;
}

int br_h5_row(br_h5 *h, const double *row) { return (void)h, (void)row, -1; }

int br_h5_snapshot(br_h5 *h, int s, int k, const br_field_snap *S) { return (void)h, (void)s, (void)k, (void)S, -1; }

int br_h5_close(br_h5 *h, const char *xdmf_path, const char *h5_name, char *err, size_t errlen)
{
    (void)h, (void)xdmf_path, (void)h5_name;
    snprintf(err, errlen, "this build has no HDF5");
    return -1;
}

#else

#include <hdf5.h>

enum {
    ROWS = 4096,        /* time-series rows a flush writes: the chunk of each column */
    PCHUNK = 1 << 17,   /* points per chunk of a snapshot array */
    NTOT = 6,           /* per-set datasets of one value a snapshot, grown by one each */
    NPT = 7             /* per-point arrays of a snapshot */
};

/* per set: the time and the set's totals, [snapshot] or [snapshot, 3] */
static const char *const TOT[NTOT] = {"time", "set_normal_force", "set_force", "set_friction_force", "set_moment",
                                      "set_friction_power"};
/* per snapshot: the arrays over the points (position: over the sub-triangles' corners for cells) */
static const char *const PT[NPT] = {"position", "pressure", "normal_force", "sliding_speed", "stick",
                                    "friction_force", "bristle_deflection"};
static int pt_vec(int j) { return j == 0 || j >= 5; }

typedef struct h5set {
    int s;             /* the model's set */
    char name[BR_NAME_MAX];
    long n, nv, nt;    /* points, positions (n, or the sub-triangles' corners), triangles */
    int cells;
    hid_t grp, snaps, ds[NTOT];
    long nsnap;
    double *tsnap;     /* the snapshots' times (for the XDMF) */
    long tcap;
} h5set;

struct br_h5 {
    const br_model *m;
    hid_t file, ts;
    int ncols;
    hid_t *col;
    double *buf, *colbuf; /* ROWS rows, row-major; one column of them */
    long nbuf, nrows;
    h5set *set;
    int nset;
    double *scratch;      /* one snapshot array, 3 n */
    int failed;
    char err[512];
};

static void h5_fail(br_h5 *h, const char *what)
{
    if (!h->failed) snprintf(h->err, sizeof h->err, "HDF5: %s", what);
    h->failed = 1;
}

/* loc, name, rank, current and maximum dims, chunk (NULL: contiguous), type, compress -> dataset, or < 0 */
static hid_t mkds(hid_t loc, const char *name, int rank, const hsize_t *dims, const hsize_t *maxd, const hsize_t *chunk,
                  hid_t type)
{
    hid_t sp = H5Screate_simple(rank, dims, maxd), pl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunk) {
        H5Pset_chunk(pl, rank, chunk);
        H5Pset_shuffle(pl);
        H5Pset_deflate(pl, 1);
    }
    const hid_t ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Pclose(pl), H5Sclose(sp);
    return ds;
}

/* loc, name, string -> a string attribute (variable length, UTF-8: h5py reads a str); 0 or -1 */
static int attr_str(hid_t loc, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = a < 0 || H5Awrite(a, t, &v) < 0 ? -1 : 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp), H5Tclose(t);
    return rc;
}

/* loc, name, value -> an integer attribute; 0 or -1 */
static int attr_int(hid_t loc, const char *name, long v)
{
    hid_t sp = H5Screate(H5S_SCALAR), a = H5Acreate2(loc, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = a < 0 || H5Awrite(a, H5T_NATIVE_LONG, &v) < 0 ? -1 : 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

/* dataset of rank r growing along its first dimension, data for `count` more rows of `row` values
 * each (the rest of the dims) -> appended; 0 or -1 */
static int append(hid_t ds, hid_t memtype, const void *data, hsize_t count)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t dims[3] = {0, 1, 1};
    const int r = H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    if (r < 1 || r > 3) return -1;
    hsize_t ext[3] = {dims[0] + count, dims[1], dims[2]}, start[3] = {dims[0], 0, 0}, cnt[3] = {count, dims[1], dims[2]};
    if (H5Dset_extent(ds, ext) < 0) return -1;
    fs = H5Dget_space(ds);
    hid_t ms = H5Screate_simple(r, cnt, NULL);
    int rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ? -1 : 0;
    if (rc == 0 && H5Dwrite(ds, memtype, ms, fs, H5P_DEFAULT, data) < 0) rc = -1;
    H5Sclose(ms), H5Sclose(fs);
    return rc;
}

int br_h5_available(void) { return 1; }

/* the buffered rows -> one chunk more of every column */
static void flush_rows(br_h5 *h)
{
    if (h->nbuf == 0 || h->failed) return;
    for (int c = 0; c < h->ncols && !h->failed; c++) {
        for (long r = 0; r < h->nbuf; r++) h->colbuf[r] = h->buf[r * h->ncols + c];
        if (append(h->col[c], H5T_NATIVE_DOUBLE, h->colbuf, (hsize_t)h->nbuf)) h5_fail(h, "cannot write the time series");
    }
    h->nrows += h->nbuf;
    h->nbuf = 0;
}

br_h5 *br_h5_create(const char *path, const br_model *m, char *err, size_t errlen)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures are reported through err, not printed by the library */
    br_h5 *h = calloc(1, sizeof *h);
    if (!h) return snprintf(err, errlen, "out of memory"), NULL;
    h->m = m;
    h->ncols = br_output_ncols(m);
    h->col = malloc((size_t)h->ncols * sizeof(hid_t));
    h->buf = malloc((size_t)ROWS * h->ncols * sizeof(double));
    h->colbuf = malloc((size_t)ROWS * sizeof(double));
    h->set = calloc((size_t)(m->nset ? m->nset : 1), sizeof(h5set));
    long maxn = 0;
    for (int s = 0; s < m->nset; s++) maxn = m->cset[s].desc.npoints > maxn ? m->cset[s].desc.npoints : maxn;
    h->scratch = malloc((size_t)(3 * maxn + 1) * sizeof(double));
    h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (!h->col || !h->buf || !h->colbuf || !h->set || !h->scratch || h->file < 0) {
        snprintf(err, errlen, h->file < 0 ? "cannot create %s" : "out of memory", path);
        if (h->file >= 0) H5Fclose(h->file);
        free(h->col), free(h->buf), free(h->colbuf), free(h->set), free(h->scratch), free(h);
        return NULL;
    }
    for (int c = 0; c < h->ncols; c++) h->col[c] = -1;
    attr_str(h->file, "scenario", m->name);
    attr_str(h->file, "source", m->source);
    attr_str(h->file, "writer", "bristle (docs/format-hdf5.md)");
    /* the time series: a dataset per column, in the order of timeseries.csv, named as its header */
    h->ts = H5Gcreate2(h->file, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    char **names = calloc((size_t)h->ncols, sizeof(char *));
    for (int c = 0; names && c < h->ncols && !h->failed; c++) {
        char nm[300];
        br_output_colname(m, c, nm, sizeof nm);
        names[c] = strdup(nm);
        const hsize_t d0 = 0, dmax = H5S_UNLIMITED, ch = ROWS;
        h->col[c] = names[c] ? mkds(h->ts, nm, 1, &d0, &dmax, &ch, H5T_IEEE_F64LE) : -1;
        if (h->col[c] < 0) h5_fail(h, "cannot create a time-series dataset");
    }
    if (!names) h5_fail(h, "out of memory");
    if (!h->failed) { /* attribute `columns`: the names in order (variable-length strings) */
        const hsize_t nc = (hsize_t)h->ncols;
        hid_t sp = H5Screate_simple(1, &nc, NULL), a = H5Acreate2(h->ts, "columns", st, sp, H5P_DEFAULT, H5P_DEFAULT);
        if (a < 0 || H5Awrite(a, st, names) < 0) h5_fail(h, "cannot write the column names");
        if (a >= 0) H5Aclose(a);
        H5Sclose(sp);
    }
    for (int c = 0; names && c < h->ncols; c++) free(names[c]);
    free(names);
    H5Tclose(st);
    /* the meshed sets' snapshots */
    if (m->nfield_times > 0) {
        hid_t fg = H5Gcreate2(h->file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (int s = 0; s < m->nset && !h->failed; s++) {
            const br_cset *cs = &m->cset[s];
            if (!cs->meshed) continue;
            h5set *q = &h->set[h->nset++];
            q->s = s, q->n = cs->desc.npoints, q->cells = cs->surf_cells, q->nt = cs->nsurf_t;
            snprintf(q->name, sizeof q->name, "%s", cs->name);
            q->nv = cs->surf_cells ? cs->nsurf_v : q->n;
            q->grp = H5Gcreate2(fg, cs->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            attr_str(q->grp, "on", q->cells ? "cells" : "points");
            attr_str(q->grp, "friction_law", br_law_name(cs->desc.law));
            const hsize_t U = H5S_UNLIMITED;
            for (int k = 0; k < NTOT; k++) { /* [snapshot], or [snapshot, 3] for the vectors */
                const int vec = k >= 2 && k <= 4;
                const hsize_t dims[2] = {0, 3}, maxd[2] = {U, 3}, chunk[2] = {256, 3};
                q->ds[k] = mkds(q->grp, TOT[k], vec ? 2 : 1, dims, maxd, chunk, H5T_IEEE_F64LE);
                if (q->ds[k] < 0) h5_fail(h, "cannot create a field dataset");
            }
            q->snaps = H5Gcreate2(q->grp, "snapshots", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (q->snaps < 0) h5_fail(h, "cannot create a field group");
            /* the fixed parts: tributary areas, the triangles (and for cells nothing else: their corners move) */
            const hsize_t an = (hsize_t)q->n, td[2] = {(hsize_t)q->nt, 3};
            hid_t da = mkds(q->grp, "area", 1, &an, NULL, NULL, H5T_IEEE_F64LE);
            hid_t dt = mkds(q->grp, "triangles", 2, td, NULL, NULL, H5T_STD_I64LE);
            if (da < 0 || dt < 0 || H5Dwrite(da, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, cs->area) < 0 ||
                (q->nt > 0 && H5Dwrite(dt, H5T_NATIVE_LONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, cs->surf_t) < 0))
                h5_fail(h, "cannot write a set's areas and triangles");
            if (da >= 0) H5Dclose(da);
            if (dt >= 0) H5Dclose(dt);
        }
        H5Gclose(fg);
    }
    if (h->failed) {
        snprintf(err, errlen, "%s: %s", path, h->err);
        br_h5_close(h, NULL, NULL, NULL, 0);
        return NULL;
    }
    return h;
}

int br_h5_row(br_h5 *h, const double *row)
{
    memcpy(h->buf + (size_t)h->nbuf * h->ncols, row, (size_t)h->ncols * sizeof(double));
    if (++h->nbuf == ROWS) flush_rows(h);
    return h->failed ? -1 : 0;
}

int br_h5_snapshot(br_h5 *h, int s, int k, const br_field_snap *S)
{
    h5set *q = NULL;
    for (int i = 0; i < h->nset; i++)
        if (h->set[i].s == s) q = &h->set[i];
    if (!q || h->failed || k != q->nsnap) return h5_fail(h, "snapshots out of order"), -1;
    if (q->nsnap == q->tcap) {
        const long cap = q->tcap ? 2 * q->tcap : 16;
        double *t = realloc(q->tsnap, (size_t)cap * sizeof(double));
        if (!t) return h5_fail(h, "out of memory"), -1;
        q->tsnap = t, q->tcap = cap;
    }
    const br_cset *cs = &h->m->cset[s];
    const double *N = S->F + 3 * S->n, *P = h->scratch;
    for (long i = 0; i < S->n; i++) h->scratch[i] = N[i] / cs->area[i];
    const void *tot[NTOT] = {&S->t, &S->res.N, S->res.F_A, S->res.Ff_A, S->res.M_A, &S->res.P};
    for (int j = 0; j < NTOT && !h->failed; j++)
        if (append(q->ds[j], H5T_NATIVE_DOUBLE, tot[j], 1)) h5_fail(h, "cannot write a snapshot");
    /* the snapshot's own group: its arrays as plain datasets (what XDMF readers take), chunked by
     * PCHUNK points */
    char nm[32];
    snprintf(nm, sizeof nm, "%05d", k);
    hid_t g = H5Gcreate2(q->snaps, nm, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) h5_fail(h, "cannot create a snapshot group");
    const void *pt[NPT] = {q->cells ? S->xv : S->x, P, N, S->vt, S->stick, S->F, S->z};
    for (int j = 0; j < NPT && !h->failed; j++) {
        const hsize_t npt = j == 0 ? (hsize_t)q->nv : (hsize_t)q->n, dims[2] = {npt, 3},
                      chunk[2] = {npt < PCHUNK ? npt : PCHUNK, 3};
        hid_t ds = npt > 0 ? mkds(g, PT[j], pt_vec(j) ? 2 : 1, dims, NULL, chunk, H5T_IEEE_F64LE) : -1;
        if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, pt[j]) < 0)
            h5_fail(h, "cannot write a snapshot");
        if (ds >= 0) H5Dclose(ds);
    }
    if (g >= 0) H5Gclose(g);
    q->tsnap[q->nsnap++] = S->t;
    return h->failed ? -1 : 0;
}

/* XDMF: snapshot k's array `name` of `count` values (ncomp each) as a plain HDF DataItem */
static void xitem(FILE *fp, const char *h5, const char *set, const char *name, long k, long count, int ncomp)
{
    fprintf(fp, "        <DataItem Dimensions=\"%ld%s\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
                "%s:/fields/%s/snapshots/%05ld/%s</DataItem>\n",
            count, ncomp == 3 ? " 3" : "", h5, set, k, name);
}

/* the file's snapshots -> the XDMF sidecar: per set a temporal collection of triangle grids; 0 or -1 */
static int write_xdmf(const br_h5 *h, const char *path, const char *h5)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fputs("<?xml version=\"1.0\" ?>\n<!-- written by bristle: the snapshots of run.h5 (docs/format-hdf5.md) -->\n"
          "<Xdmf Version=\"2.0\">\n  <Domain>\n", fp);
    static const char *const pt[] = {"pressure", "normal_force", "sliding_speed", "stick"};
    static const char *const vec[] = {"friction_force", "bristle_deflection"};
    for (int i = 0; i < h->nset; i++) {
        const h5set *q = &h->set[i];
        const char *nm = h->m->cset[q->s].name, *center = q->cells ? "Cell" : "Node";
        if (q->nsnap == 0) continue;
        fprintf(fp, "    <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", nm);
        for (long k = 0; k < q->nsnap; k++) {
            fprintf(fp, "     <Grid Name=\"%s_%ld\" GridType=\"Uniform\">\n      <Time Value=\"%.17g\"/>\n"
                        "      <Topology TopologyType=\"Triangle\" NumberOfElements=\"%ld\">\n"
                        "        <DataItem Dimensions=\"%ld 3\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">"
                        "%s:/fields/%s/triangles</DataItem>\n      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n",
                    nm, k, q->tsnap[k], q->nt, q->nt, h5, nm);
            xitem(fp, h5, nm, "position", k, q->nv, 3);
            fputs("      </Geometry>\n", fp);
            for (int a = 0; a < 4; a++) {
                fprintf(fp, "      <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n", pt[a], center);
                xitem(fp, h5, nm, pt[a], k, q->n, 1);
                fputs("      </Attribute>\n", fp);
            }
            for (int a = 0; a < 2; a++) {
                fprintf(fp, "      <Attribute Name=\"%s\" AttributeType=\"Vector\" Center=\"%s\">\n", vec[a], center);
                xitem(fp, h5, nm, vec[a], k, q->n, 3);
                fputs("      </Attribute>\n", fp);
            }
            fprintf(fp, "      <Attribute Name=\"area\" AttributeType=\"Scalar\" Center=\"%s\">\n"
                        "        <DataItem Dimensions=\"%ld\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
                        "%s:/fields/%s/area</DataItem>\n      </Attribute>\n     </Grid>\n",
                    center, q->n, h5, nm);
        }
        fputs("    </Grid>\n", fp);
    }
    fputs("  </Domain>\n</Xdmf>\n", fp);
    const int bad = ferror(fp);
    return fclose(fp) || bad ? -1 : 0;
}

/* set -> per point array a virtual dataset [snapshot, point(, 3)] over the snapshots' own (h5py and
 * xarray read it as one array); 0 or -1 */
static int virtual_arrays(const h5set *q)
{
    int rc = 0;
    for (int j = 0; j < NPT && rc == 0 && q->nsnap > 0; j++) {
        const int rank = pt_vec(j) ? 3 : 2;
        const hsize_t npt = j == 0 ? (hsize_t)q->nv : (hsize_t)q->n, vd[3] = {(hsize_t)q->nsnap, npt, 3};
        hid_t vs = H5Screate_simple(rank, vd, NULL), ss = H5Screate_simple(rank - 1, vd + 1, NULL),
              pl = H5Pcreate(H5P_DATASET_CREATE);
        for (long k = 0; k < q->nsnap && rc == 0; k++) {
            const hsize_t start[3] = {(hsize_t)k, 0, 0}, count[3] = {1, npt, 3};
            char src[64];
            snprintf(src, sizeof src, "snapshots/%05ld/%s", k, PT[j]);
            char full[BR_NAME_MAX + 96];
            snprintf(full, sizeof full, "/fields/%s/%s", q->name, src);
            if (H5Sselect_hyperslab(vs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
                H5Pset_virtual(pl, vs, ".", full, ss) < 0)
                rc = -1;
        }
        H5Sselect_all(vs);
        hid_t ds = rc ? -1 : H5Dcreate2(q->grp, PT[j], H5T_IEEE_F64LE, vs, H5P_DEFAULT, pl, H5P_DEFAULT);
        if (ds < 0) rc = -1;
        else H5Dclose(ds);
        H5Pclose(pl), H5Sclose(ss), H5Sclose(vs);
    }
    return rc;
}

int br_h5_close(br_h5 *h, const char *xdmf_path, const char *h5_name, char *err, size_t errlen)
{
    if (!h) return -1;
    flush_rows(h);
    for (int i = 0; i < h->nset && !h->failed; i++)
        if (virtual_arrays(&h->set[i])) h5_fail(h, "cannot make the snapshots' virtual datasets");
    if (!h->failed)
        for (int i = 0; i < h->nset; i++) attr_int(h->set[i].grp, "snapshots", h->set[i].nsnap);
    if (!h->failed) attr_int(h->ts, "rows", h->nrows);
    for (int c = 0; c < h->ncols; c++)
        if (h->col[c] >= 0) H5Dclose(h->col[c]);
    int any = 0;
    for (int i = 0; i < h->nset; i++) {
        for (int k = 0; k < NTOT; k++)
            if (h->set[i].ds[k] > 0) H5Dclose(h->set[i].ds[k]);
        if (h->set[i].snaps > 0) H5Gclose(h->set[i].snaps);
        if (h->set[i].grp > 0) H5Gclose(h->set[i].grp);
        any |= h->set[i].nsnap > 0;
    }
    if (h->ts > 0) H5Gclose(h->ts);
    if (H5Fclose(h->file) < 0) h5_fail(h, "cannot close the file");
    if (!h->failed && any && xdmf_path && write_xdmf(h, xdmf_path, h5_name)) h5_fail(h, "cannot write the XDMF file");
    const int rc = h->failed ? -1 : 0;
    if (rc && err) snprintf(err, errlen, "%s", h->err);
    for (int i = 0; i < h->nset; i++) free(h->set[i].tsnap);
    free(h->col), free(h->buf), free(h->colbuf), free(h->set), free(h->scratch), free(h);
    return rc;
}

#endif
