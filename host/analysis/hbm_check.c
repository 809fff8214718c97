/* hbm_check.c: a harmonic balance point checked in the time domain (in: the solver at a converged
 * point, the model; out: the response of a run started on the point, its drift over the periods, and
 * the Floquet multipliers of the monodromy matrix by time integration). */
#include <complex.h>

#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hbm_internal.h"
#include "io/fields.h"
#include "step/checkpoint.h"

/* ---- a point of the curve checked by time integration ---- */

/* fn -> the time after which it no longer changes but periodically (the end of its ramps) */
static double tf_settled(const br_timefn *fn)
{
    double t = fn->kind == BR_TF_RAMP ? fn->t1 : 0.0;
    if (fn->amp) t = fmax(t, tf_settled(fn->amp));
    for (int k = 0; k < fn->nterm; k++) t = fmax(t, tf_settled(&fn->term[k]));
    return t;
}

/* fn, f [Hz] -> every harmonic in it driven at f (as harmonic balance drives it) */
static void tf_drive_at(br_timefn *fn, double f)
{
    if (fn->kind == BR_TF_HARMONIC) fn->f = f;
    for (int k = 0; k < fn->nterm; k++) tf_drive_at(&fn->term[k], f);
}

/* run data d, its bodies' positions at creation x0 -> the DOF vector u of the harmonic-balance system */
static void run_dofs(const hb *h, const br_data *d, const double *x0, double *u)
{
    const br_hbm_sys *s = &h->s;
    for (int i = 0; i < s->nst; i++) u[i] = d->ga->u[i];
    for (int b = 0; b < s->m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) u[s->bdof[3 * b + j]] = d->x[3 * b + j] - x0[3 * b + j];
}

/* column c of the run's state (as column_values' first harmonic reads the solution) */
static double run_column(const hb *h, int c, const double *u)
{
    double x = 0.0;
    for (int t = 0; t < h->col[c].n; t++) x += h->col[c].coef[t] * u[h->lin.out[h->col[c].idx[t]]];
    return x;
}

/* period T, the model's step dt -> the step no longer than dt that makes T a whole number of steps (their count in
 * *K): a run from a periodic state then lands on the phase it started from */
static double whole_period_step(double T, double dt, long *K)
{
    *K = (long)ceil(T / dt - 1e-9);
    if (*K < 1) *K = 1;
    return T / (double)*K;
}

/* solver at a solution (h->y at h->w), the model -> *dout: the model's data (CPU) at the solution's periodic state
 * at t = 0 of a period: every DOF's displacement, velocity and acceleration from the harmonics
 * (Z_k Q_k = F_k + G_k; q1, unless NULL, Q_1), a free body's last acceleration too, the contact field's states those the AFT ends its
 * period with, the time a whole number of periods after the loads' and prescribed normal forces' ramps; *x0out the bodies' positions at creation (run_dofs' origin), amp (NULL, or n)
 * each DOF's sum over k >= 1 of |Q_k|; the model's loads are driven at h->w from here on; its step m->dt must
 * divide the period (whole_period_step); 0, or -1 with err */
static int periodic_data(hb *h, br_model *m, br_data **dout, double **x0out, double *amp, double complex *q1, char *err,
                         size_t errlen)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof, nl = s->nnl, H = h->H;
    const double w = h->w, T = 2 * M_PI / w;
    *dout = NULL, *x0out = NULL;
    if (br_hb_set_param(h, w, err, errlen) || br_hb_residual(h, h->y, w, h->R, err, errlen)) return -1; /* the AFT's states */
    /* q: n DOFs, or a backbone's nl forces G_1 (an interface's points can outnumber the DOFs they move) */
    double complex *Z = malloc((size_t)n * n * sizeof *Z), *q = malloc((size_t)(nl > n ? nl : n) * sizeof *q);
    double *u = calloc((size_t)3 * n + 1, sizeof(double)), *v = u + n, *acc = u + 2 * n, *x0 = NULL, *st = NULL;
    int *piv = malloc((size_t)n * sizeof(int)), rc = -1;
    br_data *d = NULL;
    if (!Z || !q || !u || !piv) {
        snprintf(err, errlen, "hbm: out of memory for a run from the periodic state");
        goto out;
    }
    if (amp)
        for (int a = 0; a < n; a++) amp[a] = 0.0;
    for (int k = 0; k <= H; k++) {
        const double complex iw = I * k * w;
        if (k == 1 && h->lin.nsplit > 0) { /* a backbone's state: harmonic 1 along its split modes and the rest */
            for (int i = 0; i < nl; i++) q[i] = br_hb_force(h, h->y, 1, i);
            br_hbm_lin_split_q1(s, &h->lin, q, h->lin.eta, Z); /* (Z: n complex of scratch) */
            memcpy(q, Z, (size_t)n * sizeof *q);
        } else {
            /* the damping C - xi M (xi: a backbone's negative damping, else 0) */
            for (size_t e = 0; e < (size_t)n * n; e++) Z[e] = s->K[e] + iw * (s->C[e] - h->lin.xi * s->M[e]) + iw * iw * s->M[e];
            if (k == 0) br_hbm_bond(s, Z); /* as the solution's linear part: the interface bonded, its force G_0 + kb y_0 */
            for (int a = 0; a < n; a++) q[a] = k == 0 ? s->f0[a] : k == 1 ? h->lev * (s->fc[a] - I * s->fs[a]) : 0.0;
            for (int i = 0; i < nl; i++) br_hbm_coord_add(s, i, br_hb_force(h, h->y, k, i), q);
            if (LAPACKE_zgesv(LAPACK_COL_MAJOR, n, 1, (lapack_complex_double *)Z, n, piv, (lapack_complex_double *)q, n)) {
                snprintf(err, errlen, "hbm: the dynamic stiffness of harmonic %d is singular at %.9g Hz", k, w / (2 * M_PI));
                goto out;
            }
        }
        for (int a = 0; a < n; a++) u[a] += creal(q[a]), v[a] += creal(iw * q[a]), acc[a] += creal(iw * iw * q[a]);
        if (q1 && k == 1) memcpy(q1, q, (size_t)n * sizeof *q);
        if (amp && k > 0)
            for (int a = 0; a < n; a++) amp[a] += cabs(q[a]);
    }
    double t0 = 0.0; /* the end of the loads' ramps and the prescribed normal forces' */
    for (int l = 0; l < m->nload; l++) t0 = fmax(t0, tf_settled(&m->load[l].mag));
    for (int c = 0; c < m->nset; c++)
        if (m->cset[c].prescribed) t0 = fmax(t0, tf_settled(&m->cset[c].normal_force));
    for (int l = 0; l < m->nload; l++) tf_drive_at(&m->load[l].mag, w / (2 * M_PI));
    d = br_data_create(m, BR_BACKEND_CPU, err, errlen);
    x0 = malloc((size_t)3 * (m->nbody + 1) * sizeof(double));
    st = malloc((size_t)(h->aft.nstate + 1) * sizeof(double));
    if (!d || !x0 || !st) {
        if (d) snprintf(err, errlen, "hbm: out of memory for a run from the periodic state");
        goto out;
    }
    memcpy(x0, d->x, (size_t)3 * m->nbody * sizeof(double));
    /* the step count carries the time (br_step: t = step h), so the loads' ramps stay ended */
    d->step = (long)ceil(t0 / T + 1e-9) * lround(T / m->dt);
    d->t = (double)d->step * m->dt;
    for (int i = 0; i < s->nst; i++) d->ga->u[i] = u[i], d->ga->v[i] = v[i], d->ga->a[i] = acc[i];
    for (int b = 0; b < m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) {
                const int k = s->bdof[3 * b + j];
                d->x[3 * b + j] = x0[3 * b + j] + u[k], d->v[3 * b + j] = v[k], d->acc[6 * b + j] = acc[k];
            }
    for (int c = 0; c < m->nset; c++)
        if (br_field_get_state(h->aft.field, c, st) || br_field_set_state(d->field, c, st)) {
            snprintf(err, errlen, "hbm: the contact states of set %d could not be carried into the run", c);
            goto out;
        }
    rc = 0;
out:
    if (rc) br_data_free(d), free(x0);
    else *dout = d, *x0out = x0;
    free(Z), free(q), free(u), free(piv), free(st);
    return rc;
}

/* solver at a solution (y at frequency w), the model (its loads are driven at w from here on), periods P ->
 * the model integrated in time (`bristle run`'s step) for P periods from the solution's periodic state
 * (periodic_data); out[0] the first column's first harmonic by harmonic balance, out[1], out[2] fitted (least
 * squares, mean, cos, sin) over the run's first and last period; 0, or -1 with err */
int br_hb_check_by_run(hb *h, br_model *m, int periods, double *out, char *err, size_t errlen)
{
    const double w = h->w, T = 2 * M_PI / w, dt0 = m->dt;
    br_data *d = NULL;
    double *x0 = NULL, *u = malloc((size_t)(h->s.ndof + 1) * sizeof(double));
    int rc = -1;
    if (!u) {
        snprintf(err, errlen, "hbm: out of memory for the check by a run");
        goto out;
    }
    long K;
    m->dt = whole_period_step(T, dt0, &K);
    if (periodic_data(h, m, &d, &x0, NULL, NULL, err, errlen)) goto out;
    /* least squares of the first column over the first and the last period: x = c0 + a cos + b sin */
    double S[2][12] = {{0}};
    const double tstart = d->t;
    for (long k = 1; k <= periods * K; k++) {
        if (br_step(m, d, err, errlen)) goto out;
        const int which = k <= K ? 0 : k > (periods - 1) * K ? 1 : -1;
        if (which < 0) continue;
        run_dofs(h, d, x0, u);
        const double x = run_column(h, 0, u), r[3] = {1.0, cos(w * (d->t - tstart)), sin(w * (d->t - tstart))};
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) S[which][3 * a + b] += r[a] * r[b];
            S[which][9 + a] += r[a] * x;
        }
    }
    double row[66];
    br_hb_column_values(h, &h->col[0], row, NULL);
    out[0] = row[1];
    for (int k = 0; k < 2; k++) {
        int p3[3];
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, 3, 1, S[k], 3, p3, S[k] + 9, 3)) {
            snprintf(err, errlen, "hbm: the check by a run has too few steps a period");
            goto out;
        }
        out[1 + k] = hypot(S[k][10], S[k][11]);
    }
    rc = 0;
out:
    m->dt = dt0;
    br_data_free(d);
    free(u), free(x0);
    return rc;
}

/* ---- a backbone checked by a ring-down ---- */

/* fn -> every harmonic in it a constant 0 (a ring-down's loads: the static ones stay) */
static void tf_harmonics_off(br_timefn *fn)
{
    if (fn->kind == BR_TF_HARMONIC || fn->kind == BR_TF_SWEEP) fn->kind = BR_TF_CONSTANT, fn->c = 0.0;
    for (int k = 0; k < fn->nterm; k++) tf_harmonics_off(&fn->term[k]);
}

/* backbone bb, amplitude a -> its damping ratio (out[0]) and frequency (out[1]) there, log-linear between the
 * points that bracket it (NaN outside them) */
static void bb_at(const br_hbm_bb *bb, int width, double a, double *out)
{
    out[0] = out[1] = NAN;
    for (long p = 0; p + 1 < bb->n; p++) {
        const double *r0 = bb->rows + p * width, *r1 = r0 + width;
        if ((a - r0[0]) * (a - r1[0]) > 0.0 || r0[0] == r1[0]) continue;
        const double t = log(a / r0[0]) / log(r1[0] / r0[0]);
        out[0] = r0[1] + t * (r1[1] - r0[1]), out[1] = r0[BR_HBM_MODE_LEAD] + t * (r1[BR_HBM_MODE_LEAD] - r0[BR_HBM_MODE_LEAD]);
        return;
    }
}

int br_hbm_ringdown(br_hbm *h, br_model *m, const br_hbm_bb *bb, long p, int periods, const char *snapdir, double *rows,
                    char *err, size_t errlen)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof, width = BR_HBM_MODE_LEAD + br_hbm_row_width(h);
    const double dt0 = m->dt;
    br_data *d = NULL;
    double *x0 = NULL, *u = malloc((size_t)(n + 1) * sizeof(double)), *psi = malloc((size_t)(n + 1) * sizeof(double));
    double *acc = malloc((size_t)3 * (n + 1) * sizeof(double)), *cyc = malloc((size_t)(periods + 1) * 4 * sizeof(double));
    double complex *q1 = malloc((size_t)(n + 1) * sizeof *q1);
    int rc = -1;
    if (!u || !psi || !acc || !cyc || !q1) {
        snprintf(err, errlen, "hbm: out of memory for the ring-down");
        goto out;
    }
    if (br_hbm_bb_restore(h, bb, p, err, errlen)) goto out;
    const double w = h->w, T = 2 * M_PI / w, a0 = bb->rows[p * width];
    long K;
    m->dt = whole_period_step(T, dt0, &K);
    for (int l = 0; l < m->nload; l++) tf_harmonics_off(&m->load[l].mag);
    if (periodic_data(h, m, &d, &x0, NULL, q1, err, errlen)) goto out;
    /* the reference signal sig(t) = psi^T M u(t), psi = M-normalized Re Q_1 at the release: a cycle runs from one of its
     * upward crossings of the last cycle's mean to the next (the first from the release's mean) */
    double nrm = 0.0;
    for (int a = 0; a < n; a++) {
        double v = 0.0;
        for (int b = 0; b < n; b++) v += s->M[(size_t)b * n + a] * creal(q1[b]);
        psi[a] = v, nrm += v * creal(q1[a]);
    }
    for (int a = 0; a < n; a++) psi[a] /= sqrt(fmax(nrm, 1e-300));
    run_dofs(h, d, x0, u);
    const double tstart = d->t;
    double sprev = 0.0, mean = 0.0, tc = -1.0, west = w, amax = 0.0;
    int armed = 0; /* the signal has been below the mean by half its largest excursion above it since the last crossing
                    * (no double crossings at the mean) */
    for (int a = 0; a < n; a++) sprev += psi[a] * u[a];
    {
        double sm = 0.0; /* the release's mean: harmonic 0's part of the signal */
        for (int a = 0; a < n; a++) sm += psi[a] * (u[a] - creal(q1[a]));
        mean = sm;
    }
    /* per cycle, least squares of every DOF on (1, cos, sin)(west (t - tc)) (west the last cycle's frequency): the
     * normal equations' 3 x 3 matrix N and each DOF's right sides in acc (3 n); at the cycle's end its first harmonic
     * Q, the amplitude sqrt(Q^H M Q), the first column's, the signal's mean */
    double Nm[9] = {0}, colr[3] = {0};
    long ncyc = 0, total = (long)periods * K, kmax = 4 * total;
    const long every = K >= 8 ? K / 8 : 1; /* the snapshots: 8 over the first period (fewer when it has fewer steps) */
    double snapt[8];
    int nsnap = 0;
    memset(acc, 0, (size_t)3 * n * sizeof(double));
    for (long k = 1; k <= kmax && ncyc < periods; k++) {
        if (snapdir && k > K) break; /* snapshots only: one period */
        const int snap = snapdir && k % every == 0 && nsnap < 8;
        if (snap) br_field_record_points(d->field, 1);
        double wall = 0.0;
        if (br_step_begin(m, d, 0, &wall, err, errlen)) goto out;
        if (snap) {
            char names[1024];
            const int fr = br_fields_write(m, d, snapdir, nsnap, NULL, names, sizeof names);
            if (fr) {
                snprintf(err, errlen, "hbm: cannot write the snapshot %d into %s%s", nsnap, snapdir, fr == -2 ? ": out of memory" : "");
                goto out;
            }
            snapt[nsnap++] = d->t - tstart;
            br_field_record_points(d->field, 0);
        }
        if (br_step_end(m, d, &wall, err, errlen)) goto out;
        if (snapdir) continue;
        run_dofs(h, d, x0, u);
        double sg = 0.0;
        for (int a = 0; a < n; a++) sg += psi[a] * u[a];
        const double t = d->t - tstart;
        mean += (sg - mean) * m->dt / (2.0 * T); /* the crossings' level: the signal's mean over about two periods */
        amax = fmax(amax, sg - mean);
        if (sg - mean < -0.5 * amax) armed = 1;
        if (armed && sprev < mean && sg >= mean) { /* an upward crossing: a cycle ends (and the next begins) at tx */
            armed = 0, amax = 0.0;
            const double tx = t - m->dt * (sg - mean) / (sg - sprev);
            if (tc >= 0.0 && Nm[0] >= 3.0) {
                int p3[3];
                double Nf[9], c3[3] = {colr[0], colr[1], colr[2]};
                memcpy(Nf, Nm, sizeof Nf);
                if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, 3, 3, Nf, 3, p3) == 0) {
                    double a2 = 0.0;
                    /* Q_a = A_a - i B_a of every DOF: (mean, A, B) = N^-1 acc_a */
                    for (int a = 0; a < n; a++) LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', 3, 1, Nf, 3, p3, acc + 3 * a, 3);
                    LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', 3, 1, Nf, 3, p3, c3, 3);
                    for (int a = 0; a < n; a++) {
                        double vr = 0.0, vi = 0.0;
                        for (int b = 0; b < n; b++) vr += s->M[(size_t)b * n + a] * acc[3 * b + 1], vi -= s->M[(size_t)b * n + a] * acc[3 * b + 2];
                        a2 += acc[3 * a + 1] * vr + acc[3 * a + 2] * (-vi);
                    }
                    double *cr = cyc + ncyc * 4;
                    cr[0] = 0.5 * (tc + tx), cr[1] = sqrt(fmax(a2, 0.0)), cr[2] = tx - tc, cr[3] = hypot(c3[1], c3[2]);
                    ncyc++;
                }
                west = 2 * M_PI / (tx - tc);
            }
            tc = tx;
            memset(Nm, 0, sizeof Nm), memset(colr, 0, sizeof colr), memset(acc, 0, (size_t)3 * n * sizeof(double));
        }
        sprev = sg;
        if (tc >= 0.0) {
            const double r[3] = {1.0, cos(west * (t - tc)), sin(west * (t - tc))}, x = run_column(h, 0, u);
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) Nm[3 * i + j] += r[i] * r[j];
                colr[i] += r[i] * x;
            }
            for (int a = 0; a < n; a++) acc[3 * a] += u[a], acc[3 * a + 1] += r[1] * u[a], acc[3 * a + 2] += r[2] * u[a];
        }
    }
    if (snapdir) {
        if (nsnap && br_fields_collection(m, snapdir, snapt, nsnap)) {
            snprintf(err, errlen, "hbm: cannot write the snapshots' collection into %s", snapdir);
            goto out;
        }
        rc = 0;
        goto out;
    }
    if (ncyc < periods) {
        snprintf(err, errlen, "hbm: the ring-down from amplitude %g made %ld cycles of the %d asked for in %.4g s (it stopped "
                 "oscillating about its mean)", a0, ncyc, periods, kmax * m->dt);
        goto out;
    }
    /* cycle c (1 .. periods - 2): its frequency 1 / T_c, the decrement delta = ln(a_(c-1) / a_(c+1)) / 2 a cycle */
    for (int c = 1; c + 1 < periods; c++) {
        double *r = rows + (size_t)(c - 1) * BR_HBM_RD_WIDTH;
        const double *y = cyc + (size_t)c * 4, delta = 0.5 * log(cyc[(size_t)(c - 1) * 4 + 1] / cyc[(size_t)(c + 1) * 4 + 1]);
        r[0] = a0, r[1] = c, r[2] = y[0], r[3] = y[1], r[4] = delta / sqrt(4 * M_PI * M_PI + delta * delta), r[5] = 1.0 / y[2];
        r[6] = y[3];
        bb_at(bb, width, y[1], r + 7);
    }
    rc = 0;
out:
    m->dt = dt0;
    br_hbm_bb_release(h);
    br_data_free(d);
    free(u), free(psi), free(acc), free(cyc), free(q1), free(x0);
    return rc;
}

/* ---- stability: the monodromy matrix of one period by time integration ---- */

/* solver after a curve -> its present solution the one where the first column's first harmonic peaked */
void br_hb_at_peak(hb *h)
{
    memcpy(h->y, h->ypk, (size_t)h->nu * sizeof(double));
    h->w = h->wpk;
}

/* the run's state as the map over a period sees it: x = (u (n), v (n), z (the contact states, set by set)) */
long br_hb_floq_dim(const hb *h) { return 2L * h->s.ndof + h->aft.nstate; }

/* data d, origin x0 -> x (floq_dim); 0, or -1 (the field's states not readable) */
static int floq_gather(const hb *h, br_data *d, const double *x0, double *x)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof;
    run_dofs(h, d, x0, x);
    for (int i = 0; i < s->nst; i++) x[n + i] = d->ga->v[i];
    for (int b = 0; b < s->m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) x[n + s->bdof[3 * b + j]] = d->v[3 * b + j];
    double *z = x + 2 * n;
    for (int c = 0; c < s->m->nset; c++) {
        if (br_field_get_state(d->field, c, z)) return -1;
        z += (long)br_law_nstate(h->aft.desc[c].law, &h->aft.desc[c].fric) * h->aft.desc[c].npoints;
    }
    return 0;
}

/* x (floq_dim), origin x0 -> d's DOFs, velocities and contact states; 0 or -1 */
static int floq_scatter(const hb *h, br_data *d, const double *x0, const double *x)
{
    const br_hbm_sys *s = &h->s;
    const int n = s->ndof;
    for (int i = 0; i < s->nst; i++) d->ga->u[i] = x[i], d->ga->v[i] = x[n + i];
    for (int b = 0; b < s->m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0)
                d->x[3 * b + j] = x0[3 * b + j] + x[s->bdof[3 * b + j]], d->v[3 * b + j] = x[n + s->bdof[3 * b + j]];
    const double *z = x + 2 * n;
    for (int c = 0; c < s->m->nset; c++) {
        if (br_field_set_state(d->field, c, z)) return -1;
        z += (long)br_law_nstate(h->aft.desc[c].law, &h->aft.desc[c].fric) * h->aft.desc[c].npoints;
    }
    return 0;
}

/* the snapshot (buf, len) -> d as it was when the snapshot was taken; 0 or -1 */
static int floq_restore(const br_model *m, br_data *d, char *buf, size_t len)
{
    br_ckpt c = {.fp = fmemopen(buf, len, "r"), .writing = 0};
    if (!c.fp) return -1;
    const int rc = br_data_checkpoint(m, d, &c);
    fclose(c.fp);
    return rc;
}

/* d, K steps -> d integrated over them; 0, or -1 with err */
static int floq_steps(const br_model *m, br_data *d, long K, char *err, size_t errlen)
{
    for (long k = 0; k < K; k++)
        if (br_step(m, d, err, errlen)) return -1;
    return 0;
}

/* model, snapshot (buf, len) of its periodic data, origin x0, perturbations e, the unperturbed period's end xb,
 * K steps, columns j0 <= j < j1 -> those columns of the monodromy matrix M (dim rows each) by forward
 * differences, on data of their own; 0, or -1 with err */
static int floq_columns(const hb *h, const br_model *m, char *buf, size_t len, const double *x0, const double *e,
                        const double *xb, long K, long j0, long j1, double *M, char *err, size_t errlen)
{
    const long dim = br_hb_floq_dim(h);
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, errlen);
    double *x = malloc((size_t)(dim + 1) * sizeof(double));
    int rc = d && x ? 0 : -1;
    if (d && !x) snprintf(err, errlen, "hbm: out of memory for the monodromy matrix");
    for (long j = j0; j < j1 && rc == 0; j++) {
        if (floq_restore(m, d, buf, len) || floq_gather(h, d, x0, x)) {
            snprintf(err, errlen, "hbm: the periodic state could not be restored for the monodromy matrix");
            rc = -1;
            break;
        }
        x[j] += e[j];
        if (floq_scatter(h, d, x0, x) || floq_steps(m, d, K, err, errlen) || floq_gather(h, d, x0, x)) {
            if (!*err) snprintf(err, errlen, "hbm: a perturbed period of the monodromy matrix failed");
            rc = -1;
            break;
        }
        for (long i = 0; i < dim; i++) M[(size_t)j * dim + i] = (x[i] - xb[i]) / e[j];
    }
    br_data_free(d);
    free(x);
    return rc;
}

/* solver at a solution (h->y at h->w), the model -> out[0] the largest modulus of the Floquet multipliers of the
 * periodic state: the eigenvalues of the monodromy matrix, the run's map over one period (`bristle run`'s step,
 * shortened so that a whole number K of them make the period) differentiated by forward differences in every
 * DOF's displacement and velocity and every contact state, on every thread; out[1] the periodicity defect (the
 * unperturbed period's largest change of a displacement, over that DOF's harmonic amplitude); the
 * model's loads are driven at h->w from here on; 0, or -1 with err */
int br_hb_floquet(hb *h, br_model *m, double *out, char *err, size_t errlen)
{
    const int n = h->s.ndof;
    const long dim = br_hb_floq_dim(h);
    const double T = 2 * M_PI / h->w, dt0 = m->dt;
    long K;
    const double dtK = whole_period_step(T, dt0, &K);
    br_data *d = NULL;
    double *x0 = NULL, *amp = malloc((size_t)(n + 1) * sizeof(double));
    double *x = malloc((size_t)(3 * dim + 1) * sizeof(double)), *xb = x + dim, *e = x + 2 * dim;
    double *M = malloc((size_t)dim * dim * sizeof(double)), *wr = malloc((size_t)(2 * dim + 1) * sizeof(double)), *wi = wr + dim;
    char *buf = NULL;
    size_t len = 0;
    int rc = -1;
    if (!amp || !x || !M || !wr) {
        snprintf(err, errlen, "hbm: out of memory for the monodromy matrix (%ld states)", dim);
        goto out;
    }
    m->dt = dtK;
    if (periodic_data(h, m, &d, &x0, amp, NULL, err, errlen)) goto out;
    br_ckpt c = {.fp = open_memstream(&buf, &len), .writing = 1};
    const int kept = c.fp && br_data_checkpoint(m, d, &c) == 0;
    if (c.fp) fclose(c.fp);
    if (!kept || floq_gather(h, d, x0, x)) {
        snprintf(err, errlen, "hbm: the periodic state could not be kept for the monodromy matrix");
        goto out;
    }
    /* perturbations: HB_FLOQ_EPS of each DOF's harmonic amplitude (at least 1e-3 of the largest's), w times that
     * for its velocity, and of each contact state's largest value over its set's points (a state of a law may
     * be a displacement or a velocity; at least 1e-3 of the set's largest) */
    double umax = 0;
    for (int a = 0; a < n; a++) umax = fmax(umax, amp[a]);
    if (!(umax > 0)) umax = 1e-9;
    for (int a = 0; a < n; a++) e[a] = HB_FLOQ_EPS * fmax(amp[a], 1e-3 * umax), e[n + a] = h->w * e[a];
    for (long c = 0, j = 2 * n; c < m->nset; c++) {
        const int ns = br_law_nstate(h->aft.desc[c].law, &h->aft.desc[c].fric);
        const long np = h->aft.desc[c].npoints;
        double all = 0, *zs = x + j;
        for (long i = 0; i < ns * np; i++) all = fmax(all, fabs(zs[i]));
        for (int k = 0; k < ns; k++) {
            double big = 0;
            for (long i = 0; i < np; i++) big = fmax(big, fabs(zs[k * np + i]));
            big = fmax(big, 1e-3 * all);
            if (!(big > 0)) big = 1e-3 * umax;
            for (long i = 0; i < np; i++) e[j + k * np + i] = HB_FLOQ_EPS * big;
        }
        j += ns * np;
    }
    /* the unperturbed period and its defect */
    if (floq_steps(m, d, K, err, errlen) || floq_gather(h, d, x0, xb)) {
        if (!*err) snprintf(err, errlen, "hbm: the period of the monodromy matrix failed");
        goto out;
    }
    double defect = 0;
    for (int a = 0; a < n; a++) defect = fmax(defect, fabs(xb[a] - x[a]) / fmax(amp[a], 1e-3 * umax));
    int bad = 0;
#pragma omp parallel
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        char terr[512] = "";
        if (floq_columns(h, m, buf, len, x0, e, xb, K, dim * t / nt, dim * (t + 1) / nt, M, terr, sizeof terr))
#pragma omp critical(hbm_floquet)
        {
            if (!bad) snprintf(err, errlen, "%s", terr);
            bad = 1;
        }
    }
    if (bad) goto out;
    if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', (int)dim, M, (int)dim, wr, wi, NULL, 1, NULL, 1)) {
        snprintf(err, errlen, "hbm: the monodromy matrix's eigenvalues did not converge at %.9g Hz", h->w / (2 * M_PI));
        goto out;
    }
    double mu = 0;
    for (long j = 0; j < dim; j++) mu = fmax(mu, hypot(wr[j], wi[j]));
    out[0] = mu, out[1] = defect;
    rc = 0;
out:
    m->dt = dt0;
    br_data_free(d);
    free(x0), free(amp), free(x), free(M), free(wr), free(buf);
    return rc;
}

int br_hbm_peak_floquet(br_hbm *h, br_model *m, double *mu, char *err, size_t errlen)
{
    if (h->pk < 0) {
        snprintf(err, errlen, "hbm: no curve, so no peak");
        return -1;
    }
    if (br_hb_floq_dim(h) > HB_FLOQ_MAX) {
        snprintf(err, errlen, "hbm: the monodromy matrix would have %ld states, more than %d", br_hb_floq_dim(h), HB_FLOQ_MAX);
        return -1;
    }
    br_hb_at_peak(h);
    double fq[2];
    if (br_hb_floquet(h, m, fq, err, errlen)) return -1;
    *mu = fq[0];
    return 0;
}
