/* output.c: time-series columns, CSV rows, points.csv and summary.json (cJSON). */
#include "io/output.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const BODY_COLS[] = {"x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz"};
static const char *const SET_COLS[] = {"Fx", "Fy", "Fz", "Ft", "N", "P", "E", "ncontact", "nstick",
                                       "vt_max", "pen_max", "Vx", "Vy", "Vz", "Mx", "My", "Mz"};
static const char *const ENERGY_COLS[] = {"input", "kinetic", "stored", "dissipated", "residual"};
static const char *const SHAFT_COLS[] = {"w", "alpha"};
static const char *const CLUTCH_COLS[] = {"tau", "w", "stuck"};
enum { NB = 9, NS = 17, NE = 5, NSH = 2, NCL = 3 };

/* model -> number of drivetrain columns: per shaft w and alpha, per gear and source tau, per clutch
 * tau, w and stuck */
static int drive_ncols(const br_model *m)
{
    const br_drivetrain *v = &m->drive;
    return NSH * v->nshaft + v->ngear + v->nsrc + NCL * v->ncl;
}

int br_output_col_body(const br_model *m, int b)
{
    (void)m;
    return 1 + NB * b;
}

int br_output_col_set(const br_model *m, int s) { return 1 + NB * m->nbody + NS * s; }

int br_output_col_energy(const br_model *m) { return br_output_ncols(m) - NE; }

int br_output_col_drive(const br_model *m)
{
    return 1 + NB * m->nbody + NS * m->nset + m->nload + m->nspring + m->nrot;
}

/* set, frames, a deforming interface's field inputs iu (NULL for a rigid set) -> tangential velocity of A
 * relative to B at the centroid of the set's points, from the same per-set frame and per-point kinematics
 * (br_kin) the field uses; an interface's: the mean of its points' sliding velocities (world axes) */
static void set_slip_velocity(const br_cset *cs, const br_frame_state *frames, const double *iu, double Vt[3])
{
    if (cs->desc.iface) {
        const long n = cs->desc.npoints;
        for (int j = 0; j < 3; j++) Vt[j] = 0.0;
        for (long i = 0; iu && i < n; i++) /* R^T (v_t1, v_t2, 0) */
            for (int j = 0; j < 3; j++)
                Vt[j] += (cs->iR[9 * i + j] * iu[3 * n + i] + cs->iR[9 * i + 3 + j] * iu[4 * n + i]) / (double)n;
        return;
    }
    double rc[3] = {0, 0, 0};
    const long np = cs->desc.npoints;
    for (long i = 0; i < np; i++)
        for (int j = 0; j < 3; j++) rc[j] += cs->r[3 * i + j] / (double)np;
    br_set_frame fr;
    br_set_frame_build(&cs->desc, &frames[cs->desc.frame_a], &frames[cs->desc.frame_b], &fr);
    br_point_kin k;
    br_kin(fr.surface, &fr, rc, &k);
    for (int j = 0; j < 3; j++) Vt[j] = k.Vt[j];
}

/* model -> number of structure node columns (the structures' `outputs:`) */
static int node_ncols(const br_model *m)
{
    int n = 0;
    for (int k = 0; k < m->nsup; k++) n += m->sup[k].nout;
    return n;
}

int br_output_ncols(const br_model *m)
{
    return br_output_col_drive(m) + drive_ncols(m) + node_ncols(m) + NE;
}

void br_output_colname(const br_model *m, int col, char *buf, size_t len)
{
    if (col == 0) {
        snprintf(buf, len, "t");
        return;
    }
    col -= 1;
    if (col < NB * m->nbody) {
        snprintf(buf, len, "%s.%s", m->body[col / NB].name, BODY_COLS[col % NB]);
        return;
    }
    col -= NB * m->nbody;
    if (col < NS * m->nset) {
        snprintf(buf, len, "%s.%s", m->cset[col / NS].name, SET_COLS[col % NS]);
        return;
    }
    col -= NS * m->nset;
    if (col < m->nload) {
        snprintf(buf, len, "%s.F", m->load[col].name);
        return;
    }
    col -= m->nload;
    if (col < m->nspring) {
        snprintf(buf, len, "%s.F", m->spring[col].name);
        return;
    }
    col -= m->nspring;
    if (col < m->nrot) {
        snprintf(buf, len, "%s.tau", m->rot[col].name);
        return;
    }
    col -= m->nrot;
    const br_drivetrain *v = &m->drive;
    if (col < NSH * v->nshaft) {
        snprintf(buf, len, "%s.%s", v->shaft[col / NSH].name, SHAFT_COLS[col % NSH]);
        return;
    }
    col -= NSH * v->nshaft;
    if (col < v->ngear) {
        snprintf(buf, len, "%s.tau", v->gear[col].name);
        return;
    }
    col -= v->ngear;
    if (col < v->nsrc) {
        snprintf(buf, len, "%s.tau", v->src[col].name);
        return;
    }
    col -= v->nsrc;
    if (col < NCL * v->ncl) {
        snprintf(buf, len, "%s.%s", v->cl[col / NCL].name, CLUTCH_COLS[col % NCL]);
        return;
    }
    col -= NCL * v->ncl;
    static const char *const dn[] = {"x", "y", "z", "rx", "ry", "rz"};
    for (int k = 0; k < m->nsup; k++) {
        const br_superel *S = &m->sup[k];
        if (col < S->nout) {
            snprintf(buf, len, "%s.%s.%s", S->name, S->label[S->out_node[col]], dn[S->out_j[col]]);
            return;
        }
        col -= S->nout;
    }
    snprintf(buf, len, "energy.%s", ENERGY_COLS[col]);
}

int br_output_col_part(const br_model *m, int col)
{
    const int sets = 1 + NB * m->nbody, loads = sets + NS * m->nset, other = loads + m->nload;
    if (col < sets) return BR_OUT_BODIES;
    if (col < loads) return BR_OUT_SETS;
    if (col < other) return BR_OUT_LOADS;
    return col < br_output_col_energy(m) ? BR_OUT_OTHER : BR_OUT_ENERGY;
}

void br_output_row_parts(const br_model *m, const br_data *d, int parts, double *row)
{
    int c = 0;
    row[c++] = d->t;
    for (int b = 0; b < m->nbody; b++) {
        for (int j = 0; j < 3; j++) row[c++] = d->x[3 * b + j] - m->body[b].x0[j];
        for (int j = 0; j < 3; j++) row[c++] = d->v[3 * b + j];
        for (int j = 0; j < 3; j++) row[c++] = d->w[3 * b + j];
    }
    for (int s = 0; s < m->nset; s++) {
        if (!(parts & BR_OUT_SETS)) {
            for (int j = 0; j < NS; j++) row[c++] = NAN;
            continue;
        }
        const br_set_result *r = &d->res[s];
        for (int j = 0; j < 3; j++) row[c++] = r->Ff_A[j];
        row[c++] = br_norm3(r->Ff_A);
        row[c++] = r->N;
        row[c++] = d->setP[s];
        row[c++] = d->setE[s];
        row[c++] = (double)r->ncontact;
        row[c++] = (double)r->nstick;
        row[c++] = r->vt_max;
        row[c++] = r->pen_max;
        double Vt[3];
        set_slip_velocity(&m->cset[s], d->frames, d->iface_iu ? d->iface_iu[s] : NULL, Vt);
        for (int j = 0; j < 3; j++) row[c++] = Vt[j];
        for (int j = 0; j < 3; j++) row[c++] = r->M_A[j];
    }
    for (int l = 0; l < m->nload; l++) row[c++] = parts & BR_OUT_LOADS ? d->load_val[l] : NAN;
    const int ce = br_output_col_energy(m);
    if (parts & BR_OUT_OTHER) {
        for (int k = 0; k < m->nspring; k++) row[c++] = d->spring_val[k];
        for (int k = 0; k < m->nrot; k++) row[c++] = d->rot_tau[k];
        const br_drive_data *dv = d->drv;
        for (int i = 0; dv && i < m->drive.nshaft; i++) row[c++] = dv->w[i], row[c++] = dv->alpha[i];
        for (int g = 0; dv && g < m->drive.ngear; g++) row[c++] = dv->lam[g];
        for (int k = 0; dv && k < m->drive.nsrc; k++) row[c++] = dv->src_tau[k];
        for (int k = 0; dv && k < m->drive.ncl; k++)
            row[c++] = dv->cl_tau[k], row[c++] = dv->cl_w[k], row[c++] = dv->cl_mode[k] == BR_CL_STUCK;
        for (int k = 0; k < m->nsup; k++) /* the structures' node outputs: displacements (rotations) at t */
            for (int o = 0; o < m->sup[k].nout; o++) {
                const int node = d->st ? d->st->node0[m->nbeam + k] + m->sup[k].out_node[o] : -1;
                const int dof = node >= 0 ? d->st->dof[6 * node + m->sup[k].out_j[o]] : -1;
                row[c++] = dof >= 0 && d->ga ? d->ga->u[dof] : NAN;
            }
    }
    while (c < ce) row[c++] = NAN;
    const br_energy_terms *e = &d->en;
    const int en = parts & BR_OUT_ENERGY;
    row[c++] = en ? e->work_in : NAN;
    row[c++] = en ? e->kinetic : NAN;
    row[c++] = en ? e->spring + e->contact_el + e->bristle : NAN;
    row[c++] = en ? e->spring_loss + e->friction_loss + e->normal_loss : NAN;
    row[c++] = en ? e->residual : NAN;
}

void br_output_row(const br_model *m, const br_data *d, double *row) { br_output_row_parts(m, d, BR_OUT_ALL, row); }

void br_output_csv_header(const br_model *m, FILE *fp)
{
    char name[2 * BR_NAME_MAX];
    const int n = br_output_ncols(m);
    for (int c = 0; c < n; c++) {
        br_output_colname(m, c, name, sizeof name);
        fputs(name, fp);
        fputc(c + 1 < n ? ',' : '\n', fp);
    }
}

/* k in [-308, 308] -> 10^k within 1.5 ulp: an exact power up to 1e22 times a correctly rounded
 * power of 1e22 (a quotient for negative k) */
static double pow10i(int k)
{
    static const double small[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    static const double big[15] = {1e0,   1e22,  1e44,  1e66,  1e88,  1e110, 1e132, 1e154,
                                   1e176, 1e198, 1e220, 1e242, 1e264, 1e286, 1e308};
    const int a = k < 0 ? -k : k;
    const double p = small[a % 22] * big[a / 22];
    return k < 0 ? 1.0 / p : p;
}
/* the two-digit numbers 00..99 */
static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";
/* x < 1e6 -> its six digits at d */
static inline void six(uint32_t x, char *d)
{
    const uint32_t a = x / 10000, r = x % 10000, b = r / 100, c = r % 100;
    memcpy(d, pairs + 2 * a, 2), memcpy(d + 2, pairs + 2 * b, 2), memcpy(d + 4, pairs + 2 * c, 2);
}
/* v -> text with 12 significant digits into buf (at least 24 bytes); returns the length.
 * printf's %.12g converts exactly with multi-precision arithmetic and dominated the cost
 * of a run with few points; here the decimal exponent comes from the binary one, the value is
 * scaled by a power of ten from a table (a few ulp) and rounded to a 12-digit integer, written
 * as two independent groups of six digits, two at a time (23 ns a value against 57 with
 * log10, pow and one digit at a time, on the values of an S2 run), so the text is within
 * 1e-11 relative of v (tests/test_output.c checks it against strtod). Written like %g: fixed
 * notation for exponents -5..11, else d.ddde+XX; trailing zeros dropped. */
int br_format_g12(double v, char *buf)
{
    if (v == 0.0) {
        buf[0] = '0', buf[1] = 0;
        return 1;
    }
    if (!isfinite(v) || fabs(v) < 1e-290 || fabs(v) > 1e290) return snprintf(buf, 24, "%.12g", v);
    char *p = buf;
    if (v < 0) *p++ = '-', v = -v;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const int e2 = (int)((bits >> 52) & 0x7ff) - 1023;
    int e = (e2 * 78913) >> 18; /* floor(e2 log10 2): log10(v), or one below it */
    if (v >= pow10i(e + 1)) e++;
    long long im = llrint(e <= 11 ? v * pow10i(11 - e) : v / pow10i(e - 11));
    if (im >= 1000000000000LL) im = llrint((double)im / 10), e++;
    if (im < 100000000000LL) im = llrint(v * pow10i(12 - e)), e--;
    char dig[16];
    six((uint32_t)(im / 1000000), dig);
    six((uint32_t)(im % 1000000), dig + 6);
    int nd = 12;
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    if (e >= -5 && e < 12) {
        if (e < 0) {
            *p++ = '0', *p++ = '.';
            for (int k = -1; k > e; k--) *p++ = '0';
            memcpy(p, dig, 12), p += nd;
        } else if (nd > e + 1) {
            memcpy(p, dig, 12);
            memmove(p + e + 2, p + e + 1, 12 - (size_t)(e + 1));
            p[e + 1] = '.';
            p += nd + 1;
        } else {
            memcpy(p, dig, 12), p += e + 1;
        }
    } else {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, 11), p += nd - 1;
        }
        *p++ = 'e', *p++ = e < 0 ? '-' : '+';
        const int ae = e < 0 ? -e : e;
        if (ae >= 100) *p++ = (char)('0' + ae / 100);
        memcpy(p, pairs + 2 * (ae % 100), 2), p += 2;
    }
    *p = 0;
    return (int)(p - buf);
}

void br_output_csv_row(const double *row, int ncols, FILE *fp)
{
    /* 12 significant digits: 1e-11 relative, below every tolerance the tests and the
     * CPU/GPU comparison use */
    char line[32 * 64];
    int len = 0;
    for (int c = 0; c < ncols; c++) {
        if (len > (int)sizeof line - 32) {
            fwrite(line, 1, (size_t)len, fp);
            len = 0;
        }
        len += br_format_g12(row[c], line + len);
        line[len++] = c + 1 < ncols ? ',' : '\n';
    }
    fwrite(line, 1, (size_t)len, fp);
}

/* rows in the writer's ring, and the batch the run loop hands over at once (one wake-up of the
 * writer per row would cost more than the formatting) */
#define BR_CSV_RING 4096
#define BR_CSV_BATCH 256

struct br_csv_writer {
    FILE *fp;
    int ncols;
    double *ring;          /* BR_CSV_RING rows */
    long head, tail;       /* rows pushed, rows written (the ring holds head - tail) */
    int done;
    int flush;             /* br_csv_writer_sync waits: write what there is, even less than a batch */
    pthread_mutex_t mu;
    pthread_cond_t more, room;
    pthread_t th;
};

/* writer thread: format and write every row pushed, in order, until done and drained */
static void *csv_writer_main(void *arg)
{
    br_csv_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->head - w->tail < BR_CSV_BATCH && !w->done && !(w->flush && w->head > w->tail))
            pthread_cond_wait(&w->more, &w->mu);
        const long t = w->tail, h = w->head;
        if (t == h) break; /* done and drained */
        pthread_mutex_unlock(&w->mu);
        for (long k = t; k < h; k++) br_output_csv_row(w->ring + (k % BR_CSV_RING) * w->ncols, w->ncols, w->fp);
        pthread_mutex_lock(&w->mu);
        w->tail = h;
        pthread_cond_signal(&w->room);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

br_csv_writer *br_csv_writer_start(FILE *fp, int ncols)
{
    br_csv_writer *w = calloc(1, sizeof *w);
    if (!w) return errno = ENOMEM, NULL;
    w->fp = fp, w->ncols = ncols;
    w->ring = malloc((size_t)BR_CSV_RING * (size_t)ncols * sizeof(double));
    int e = w->ring ? pthread_mutex_init(&w->mu, NULL) : ENOMEM;
    if (e) {
        free(w->ring), free(w);
        return errno = e, NULL;
    }
    pthread_cond_init(&w->more, NULL);
    pthread_cond_init(&w->room, NULL);
    if ((e = pthread_create(&w->th, NULL, csv_writer_main, w))) {
        pthread_cond_destroy(&w->more), pthread_cond_destroy(&w->room), pthread_mutex_destroy(&w->mu);
        free(w->ring), free(w);
        return errno = e, NULL;
    }
    return w;
}

void br_csv_writer_push(br_csv_writer *w, const double *row)
{
    pthread_mutex_lock(&w->mu);
    while (w->head - w->tail >= BR_CSV_RING) pthread_cond_wait(&w->room, &w->mu);
    memcpy(w->ring + (w->head % BR_CSV_RING) * w->ncols, row, (size_t)w->ncols * sizeof(double));
    if (++w->head % BR_CSV_BATCH == 0) pthread_cond_signal(&w->more);
    pthread_mutex_unlock(&w->mu);
}

void br_csv_writer_sync(br_csv_writer *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->flush = 1;
    while (w->tail < w->head) {
        pthread_cond_signal(&w->more);
        pthread_cond_wait(&w->room, &w->mu);
    }
    w->flush = 0;
    pthread_mutex_unlock(&w->mu);
}

void br_csv_writer_finish(br_csv_writer *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->more);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_cond_destroy(&w->more), pthread_cond_destroy(&w->room), pthread_mutex_destroy(&w->mu);
    free(w->ring), free(w);
}

void br_output_points_header(FILE *fp) { fputs("t,set,point,x,y,z,Fx,Fy,Fz,N\n", fp); }

int br_output_points_rows(const br_model *m, const br_data *d, FILE *fp, double *scratch)
{
    for (int s = 0; s < m->nset; s++) {
        const br_cset *cs = &m->cset[s];
        const long n = cs->desc.npoints;
        double *F = scratch, *N = scratch + 3 * n;
        if (br_field_points(d->field, s, F, N)) return -1;
        const br_frame_state *A = &d->frames[cs->desc.frame_a];
        for (long i = 0; i < n; i++) {
            const double *r = cs->r + 3 * i;
            double p[3];
            if (cs->desc.iface) { /* node a where it is now: its position plus its translations */
                const int g = d->st->node0[cs->ipart] + cs->inode[i];
                for (int j = 0; j < 3; j++) {
                    const int row = d->st->dof[6 * g + j];
                    p[j] = d->st->X[3 * g + j] + (row >= 0 ? d->ga->u[row] : 0.0);
                }
            } else {
                br_mat3_vec(A->R, r, p);
                for (int j = 0; j < 3; j++) p[j] += A->x[j];
            }
            fprintf(fp, "%.12g,%s,%ld,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g\n", d->t, cs->name, i, p[0],
                    p[1], p[2], F[3 * i], F[3 * i + 1], F[3 * i + 2], N[i]);
        }
    }
    return 0;
}

int br_json_number(cJSON *obj, const char *name, double v)
{
    char buf[40];
    if (!isfinite(v)) return cJSON_AddNullToObject(obj, name) ? 0 : -1;
    for (int prec = 15; prec <= 17; prec++) { /* the shortest of 15, 16, 17 digits that reads back exactly */
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return cJSON_AddRawToObject(obj, name, buf) ? 0 : -1;
}

int br_output_summary(const br_model *m, const br_data *d, const br_run_info *info, const char *path)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scenario", m->name);
    cJSON_AddStringToObject(j, "source", m->source);
    cJSON_AddStringToObject(j, "status", info->status);
    if (info->error) cJSON_AddStringToObject(j, "error", info->error);
    if (!strcmp(info->status, "inaccurate")) { /* what the energy balance says, and where it went wrong */
        cJSON *o = cJSON_AddObjectToObject(j, "inaccurate");
        br_json_number(o, "residual_relative", d->en.residual_rel);
        br_json_number(o, "energy_tolerance", m->energy_tol);
        cJSON *w = cJSON_AddArrayToObject(o, "grew_most_between_s");
        cJSON_AddItemToArray(w, cJSON_CreateNumber(info->grew_t0));
        cJSON_AddItemToArray(w, cJSON_CreateNumber(info->grew_t1));
        if (info->grew_set) cJSON_AddStringToObject(o, "contact_set", info->grew_set);
    }
    cJSON_AddStringToObject(j, "backend", info->backend);
    cJSON_AddStringToObject(j, "device", info->device);
    br_json_number(j, "steps", (double)d->step);
    br_json_number(j, "dt", m->dt);
    br_json_number(j, "t_end", d->t);
    br_json_number(j, "wall_time_s", info->wall);
    br_json_number(j, "steps_per_second", info->wall > 0 ? info->steps / info->wall : 0);
    cJSON *split = cJSON_AddObjectToObject(j, "wall_time_split_s");
    br_json_number(split, "contact_field", info->wall_field);
    br_json_number(split, "host_dynamics", info->wall_host);
    br_json_number(split, "output", info->wall_output);
    br_json_number(split, "other", info->wall - info->wall_field - info->wall_host - info->wall_output);
    { /* the substeps (time.adaptive): how many, the smallest and where, their wall time */
        cJSON *o = cJSON_AddObjectToObject(j, "substeps");
        cJSON_AddBoolToObject(o, "adaptive", m->adaptive);
        /* substeps are taken where a contact set acts on a free body (docs/time-stepping.md) */
        cJSON_AddBoolToObject(o, "applied", br_data_adapts(m, d));
        if (m->adaptive) {
            br_json_number(o, "rtol", m->rtol);
            br_json_number(o, "atol", m->atol);
        }
        br_json_number(o, "steps_split", (double)d->sub.split);
        br_json_number(o, "substeps", (double)d->sub.taken);
        br_json_number(o, "rejected", (double)d->sub.rejected);
        br_json_number(o, "unresolved", (double)d->sub.unresolved);
        br_json_number(o, "smallest_s", d->sub.h_min);
        br_json_number(o, "smallest_at_s", d->sub.t_min);
        br_json_number(o, "wall_time_s", d->sub.wall);
    }
    cJSON *sets = cJSON_AddArrayToObject(j, "contact_sets");
    for (int s = 0; s < m->nset; s++) {
        const br_set_result *r = &d->res[s];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", m->cset[s].name);
        br_json_number(o, "points", (double)m->cset[s].desc.npoints);
        cJSON_AddStringToObject(o, "friction_law", br_law_name(m->cset[s].desc.law));
        br_json_number(o, "energy_loss_J", d->E_upto[s] - r->E_b);
        br_json_number(o, "friction_work_J", d->E_upto[s]);
        br_json_number(o, "bristle_energy_J", r->E_b);
        br_json_number(o, "normal_damping_loss_J", d->End_upto[s]);
        cJSON_AddItemToArray(sets, o);
    }
    if (d->drv) { /* the drivetrain's step statistics and its clutch and shaft extremes */
        const br_drivetrain *v = &m->drive;
        const br_drive_data *dv = d->drv;
        cJSON *o = cJSON_AddObjectToObject(j, "drivetrain");
        br_json_number(o, "newton_iterations_max", (double)dv->newton_max);
        br_json_number(o, "clutch_mode_switches", (double)dv->mode_switches);
        cJSON *sh = cJSON_AddArrayToObject(o, "shafts");
        for (int i = 0; i < v->nshaft; i++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "name", v->shaft[i].name);
            br_json_number(q, "speed_rad_s", dv->w[i]);
            br_json_number(q, "acceleration_max_rad_s2", dv->alpha_max[i]);
            cJSON_AddItemToArray(sh, q);
        }
        cJSON *cl = cJSON_AddArrayToObject(o, "clutches");
        for (int k = 0; k < v->ncl; k++) {
            const br_rotfric *L = &v->cl[k].law;
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "name", v->cl[k].name);
            cJSON_AddStringToObject(q, "type", v->cl[k].type == BR_DCLUTCH_LUGRE ? "lugre" : "coulomb");
            br_json_number(q, "torque_max_Nm", dv->cl_tau_max[k]);
            br_json_number(q, "capacity_Nm", L->mu_S * L->c_geo * L->Fn_max);
            br_json_number(q, "above_capacity_longest_s", dv->cl_over_max[k]);
            br_json_number(q, "energy_loss_J", dv->cl_E[k] - dv->cl_Eb[k]);
            cJSON_AddItemToArray(cl, q);
        }
    }
    const br_energy_terms *e = &d->en;
    cJSON *en = cJSON_AddObjectToObject(j, "energy");
    br_json_number(en, "input_work_J", e->work_in);
    br_json_number(en, "initial_kinetic_J", e->kinetic0);
    br_json_number(en, "initial_spring_J", e->spring0);
    br_json_number(en, "initial_contact_J", e->contact_el0);
    br_json_number(en, "kinetic_J", e->kinetic);
    br_json_number(en, "spring_J", e->spring);
    br_json_number(en, "contact_elastic_J", e->contact_el);
    br_json_number(en, "bristle_J", e->bristle);
    br_json_number(en, "friction_loss_J", e->friction_loss);
    br_json_number(en, "normal_damping_loss_J", e->normal_loss);
    br_json_number(en, "spring_damping_loss_J", e->spring_loss);
    br_json_number(en, "residual_J", e->residual);
    br_json_number(en, "residual_relative", e->residual_rel);
    cJSON_AddStringToObject(en, "residual_definition",
                            "(input work + initial energy (kinetic, springs, contacts) - kinetic - stored - dissipated) / "
                            "(|input work| + initial energy), at the last step");
    cJSON *files = cJSON_AddArrayToObject(j, "files");
    for (const char **f = info->files; f && *f; f++) cJSON_AddItemToArray(files, cJSON_CreateString(*f));
    cJSON *warn = cJSON_AddArrayToObject(j, "warnings");
    for (const char **w = info->warnings; w && *w; w++) cJSON_AddItemToArray(warn, cJSON_CreateString(*w));
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    if (!text) return -1;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *fp = fopen(tmp, "w");
    int rc = -1;
    if (fp) {
        const int ok = fputs(text, fp) >= 0 && fputc('\n', fp) != EOF;
        rc = (fclose(fp) == 0 && ok && rename(tmp, path) == 0) ? 0 : -1;
    }
    free(text);
    return rc;
}
