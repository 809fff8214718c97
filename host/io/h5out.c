/* h5out.c: run.h5 and run.xdmf (h5out.h; the layout in docs/format-hdf5.md). */
#include "io/h5out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/laws.h"
#include "io/output.h"

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

int br_h5_study(const char *dir, long nvar, char *err, size_t errlen)
{
    (void)dir, (void)nvar;
    snprintf(err, errlen, "this build has no HDF5");
    return -1;
}

#else

#include <hdf5.h>
#include <zlib.h>

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
    double *scratch;      /* a snapshot's pressures (n) */
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
    hsize_t ext[3] = {dims[0] + count, dims[1], dims[2]}, start[3] = {dims[0], 0, 0},
            cnt[3] = {count, dims[1], dims[2]};
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
        if (append(h->col[c], H5T_NATIVE_DOUBLE, h->colbuf, (hsize_t)h->nbuf))
            h5_fail(h, "cannot write the time series");
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
    h->scratch = malloc((size_t)(maxn + 1) * sizeof(double));
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

/* One chunk of a snapshot array: array arr's points [first, first + count) of a chunk of cpt
 * points, ncomp values each -> out (allocated), size bytes: shuffled and deflated as HDF5's
 * shuffle and deflate filters encode a chunk. */
typedef struct chunk_job {
    int arr;
    long first, count, cpt;
    int ncomp;
    unsigned char *out;
    size_t size;
} chunk_job;

/* job, the array's values -> job->out; 0, or 1 (out of memory or a zlib failure) */
static int chunk_filter(chunk_job *job, const double *v)
{
    const size_t nel = (size_t)job->cpt * job->ncomp, bytes = nel * 8;
    unsigned char *sh = malloc(bytes);
    uLongf osize = compressBound(bytes);
    job->out = malloc(osize);
    if (!sh || !job->out) return free(sh), 1;
    const unsigned char *src = (const unsigned char *)(v + job->first * job->ncomp);
    const size_t have = (size_t)job->count * job->ncomp; /* the rest of an edge chunk: zeros */
    for (size_t e = 0; e < nel; e++)
        for (int b = 0; b < 8; b++) sh[(size_t)b * nel + e] = e < have ? src[8 * e + b] : 0;
    const int rc = compress2(job->out, &osize, sh, bytes, 1);
    free(sh);
    job->size = osize;
    return rc == Z_OK ? 0 : 1;
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
    const double *pt[NPT] = {q->cells ? S->xv : S->x, P, N, S->vt, S->stick, S->F, S->z};
    hid_t ds[NPT];
    long njob = 0;
    for (int j = 0; j < NPT; j++) {
        const hsize_t npt = j == 0 ? (hsize_t)q->nv : (hsize_t)q->n, dims[2] = {npt, 3},
                      chunk[2] = {npt < PCHUNK ? npt : PCHUNK, 3};
        ds[j] = npt > 0 && g >= 0 ? mkds(g, PT[j], pt_vec(j) ? 2 : 1, dims, NULL, chunk, H5T_IEEE_F64LE) : -1;
        if (ds[j] < 0) h5_fail(h, "cannot write a snapshot");
        njob += ((long)npt + PCHUNK - 1) / PCHUNK;
    }
    /* the chunks filtered here, in parallel, as the datasets' own filters would (shuffle of 8-byte
     * elements, then zlib at level 1; an edge chunk padded to the full chunk), and written as they
     * are (H5Dwrite_chunk): the same file as H5Dwrite makes, with the compression on every core */
    chunk_job *jobs = h->failed ? NULL : calloc((size_t)njob, sizeof *jobs);
    if (!h->failed && !jobs) h5_fail(h, "out of memory");
    long nj = 0;
    for (int j = 0; j < NPT && jobs; j++) {
        const long npt = j == 0 ? q->nv : q->n, cpt = npt < PCHUNK ? npt : PCHUNK;
        for (long c0 = 0; c0 < npt; c0 += cpt)
            jobs[nj++] = (chunk_job){j, c0, npt - c0 < cpt ? npt - c0 : cpt, cpt, pt_vec(j) ? 3 : 1, NULL, 0};
    }
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad)
    for (long i = 0; i < nj; i++) bad |= chunk_filter(&jobs[i], pt[jobs[i].arr]);
    if (bad) h5_fail(h, "out of memory compressing a snapshot");
    for (long i = 0; i < nj && !h->failed; i++) {
        const hsize_t off[2] = {(hsize_t)jobs[i].first, 0};
        if (H5Dwrite_chunk(ds[jobs[i].arr], H5P_DEFAULT, 0, off, jobs[i].size, jobs[i].out) < 0)
            h5_fail(h, "cannot write a snapshot");
    }
    for (long i = 0; i < nj; i++) free(jobs[i].out);
    free(jobs);
    for (int j = 0; j < NPT; j++)
        if (ds[j] >= 0) H5Dclose(ds[j]);
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

/* ---- CSV tables into groups (studies) ---- */

/* one CSV line (quotes allowed, no line breaks inside) -> its fields, NUL-terminated in place in
 * line; their count (at most max) */
static int csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        if (*p == '"') {
            char *q = ++p;
            while (*q && *q != '"') q++;
            f[n++] = p;
            if (*q) *q++ = 0;
            p = *q == ',' ? q + 1 : q;
            if (!*q) break;
            continue;
        }
        f[n++] = p;
        while (*p && *p != ',') p++;
        if (!*p) break;
        *p++ = 0;
    }
    return n;
}

/* CSV file -> group name under loc: a dataset per column (float64 where every value is a number or
 * empty (NaN), else variable-length strings), attribute `columns`; 0 or -1 */
static int csv_group(hid_t loc, const char *name, const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    size_t cap = 0, len = 0;
    char *text = NULL, buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) {
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            char *t = realloc(text, cap);
            if (!t) return free(text), fclose(fp), -1;
            text = t;
        }
        memcpy(text + len, buf, got), len += got;
    }
    fclose(fp);
    if (!text) return -1;
    text[len] = 0;
    /* lines */
    long nl = 0;
    for (size_t i = 0; i < len; i++) nl += text[i] == '\n';
    char **line = malloc((size_t)(nl + 1) * sizeof(char *));
    if (!line) return free(text), -1;
    long L = 0;
    for (char *p = text; *p;) {
        line[L++] = p;
        char *e = strchr(p, '\n');
        if (!e) break;
        *e = 0, p = e + 1;
    }
    enum { MAXC = 512 };
    char *head[MAXC];
    const int nc = L > 0 ? csv_split(line[0], head, MAXC) : 0;
    const long nr = L - 1;
    char ***cell = calloc((size_t)(nr > 0 ? nr : 1), sizeof(char **));
    int rc = nc > 0 && cell ? 0 : -1;
    for (long r = 0; r < nr && rc == 0; r++) {
        cell[r] = calloc(MAXC, sizeof(char *));
        if (!cell[r]) rc = -1;
        else csv_split(line[r + 1], cell[r], MAXC);
    }
    hid_t g = rc ? -1 : H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) rc = -1;
    double *num = malloc((size_t)(nr > 0 ? nr : 1) * sizeof(double));
    const char **str = malloc((size_t)(nr > 0 ? nr : 1) * sizeof(char *));
    if (!num || !str) rc = -1;
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    for (int c = 0; c < nc && rc == 0; c++) {
        int isnum = 1;
        for (long r = 0; r < nr; r++) {
            const char *v = cell[r][c] ? cell[r][c] : "";
            char *end;
            num[r] = *v ? strtod(v, &end) : NAN;
            if (*v && *end) isnum = 0;
            str[r] = v;
        }
        const hsize_t n = (hsize_t)nr, ch = nr > 0 && nr < 4096 ? (hsize_t)nr : 4096;
        hid_t ds = nr > 0 ? mkds(g, head[c], 1, &n, NULL, &ch, isnum ? H5T_IEEE_F64LE : st)
                          : mkds(g, head[c], 1, &n, NULL, NULL, isnum ? H5T_IEEE_F64LE : st);
        if (ds < 0 || (nr > 0 && H5Dwrite(ds, isnum ? H5T_NATIVE_DOUBLE : st, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                          isnum ? (const void *)num : (const void *)str) < 0))
            rc = -1;
        if (ds >= 0) H5Dclose(ds);
    }
    if (rc == 0) { /* the column order */
        const hsize_t n = (hsize_t)nc;
        hid_t sp = H5Screate_simple(1, &n, NULL), a = H5Acreate2(g, "columns", st, sp, H5P_DEFAULT, H5P_DEFAULT);
        if (a < 0 || H5Awrite(a, st, head) < 0) rc = -1;
        if (a >= 0) H5Aclose(a);
        H5Sclose(sp);
    }
    H5Tclose(st);
    if (g >= 0) H5Gclose(g);
    for (long r = 0; cell && r < nr; r++) free(cell[r]);
    free(cell), free(num), free(str), free(line), free(text);
    return rc;
}

int br_h5_study(const char *dir, long nvar, char *err, size_t errlen)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char path[1400], file[1500];
    snprintf(file, sizeof file, "%s/study.h5.part", dir);
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return snprintf(err, errlen, "cannot create %s", file), -1;
    attr_str(f, "writer", "bristle study (docs/format-hdf5.md)");
    snprintf(path, sizeof path, "%s/study.csv", dir);
    int rc = csv_group(f, "study", path);
    if (rc) snprintf(err, errlen, "cannot convert %s", path);
    hid_t vg = rc ? -1 : H5Gcreate2(f, "variants", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (long v = 0; v < nvar && rc == 0; v++) {
        static const char *const kind[2] = {"frf", "series"};
        hid_t g = -1;
        for (int k = 0; k < 2 && rc == 0; k++) {
            snprintf(path, sizeof path, "%s/variants/%05ld/%s.csv", dir, v, kind[k]);
            FILE *t = fopen(path, "r");
            if (!t) continue;
            fclose(t);
            if (g < 0) {
                char nm[32];
                snprintf(nm, sizeof nm, "%05ld", v);
                g = H5Gcreate2(vg, nm, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            }
            if (g < 0 || csv_group(g, kind[k], path)) rc = -1, snprintf(err, errlen, "cannot convert %s", path);
        }
        if (g >= 0) H5Gclose(g);
    }
    if (vg >= 0) H5Gclose(vg);
    if (H5Fclose(f) < 0 && rc == 0) rc = -1, snprintf(err, errlen, "cannot close %s", file);
    if (rc) return remove(file), -1;
    /* the CSV copies go: study.h5 holds them */
    snprintf(path, sizeof path, "%s/study.csv", dir);
    remove(path);
    for (long v = 0; v < nvar; v++) {
        snprintf(path, sizeof path, "%s/variants/%05ld/frf.csv", dir, v);
        remove(path);
        snprintf(path, sizeof path, "%s/variants/%05ld/series.csv", dir, v);
        remove(path);
        snprintf(path, sizeof path, "%s/variants/%05ld", dir, v);
        rmdir(path);
    }
    snprintf(path, sizeof path, "%s/variants", dir);
    rmdir(path);
    return 0;
}

#endif
