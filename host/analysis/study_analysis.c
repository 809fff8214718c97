/* study_analysis.c: a study variant's analysis. In: its sampled rows (sweep: the amplitude envelope in
 * windows against the excitation's instantaneous frequency; stepped sine: each frequency run to steady
 * state and fitted over whole cycles, then the excitation switched to the next) or, for hbm, its model;
 * out: its frequency points (V->f: per point the frequency and each column's amplitude and phase), their
 * peaks, the stepped sine's next frequency, and for hbm the curve by harmonic balance with
 * variants/NNNNN/frf.csv. */
#include "analysis/study_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outdir.h"
#include "io/output.h"
#include "analysis/hbm.h"

/* ncolumns of a frequency-point record: f, cycles, converged, then amplitude and phase per column */
int br_study_frec(const st_study *S) { return 3 + 2 * S->ncol; }

/* a frequency-point record -> appended to V->f; 0, or -1 with the variant failed (out of memory) */
static int push_point(const st_study *S, st_var *V, const double *rec)
{
    const int w = br_study_frec(S);
    if (V->nf == V->capf) {
        const long cap = V->capf ? 2 * V->capf : 64;
        double *nf = realloc(V->f, (size_t)cap * w * sizeof(double));
        if (!nf) {
            snprintf(V->err, sizeof V->err, "out of memory for the frequency response");
            V->status = ST_FAILED, V->oom = 1;
            return -1;
        }
        V->f = nf, V->capf = cap;
    }
    memcpy(V->f + V->nf * w, rec, (size_t)w * sizeof(double));
    V->nf++;
    return 0;
}

/* harmonic excitation -> its amplitude at t */
static double exc_amp(const br_timefn *fn, double t) { return fn->amp ? br_timefn_eval(fn->amp, t) : 1.0; }

/* stepped sine: the excitation switched to frequency f at time t, its phase continuous */
void br_study_set_frequency(br_model *m, int load, double f, double t)
{
    br_timefn *fn = &m->load[load].mag;
    fn->phase += 6.283185307179586 * (fn->f - f) * t;
    fn->f = f;
}

/* a sampled row of a sweep -> window envelope; a finished window -> a frequency point */
void br_study_sweep_sample(const st_study *S, st_var *V, double t)
{
    if (t < S->from) return;
    for (int c = 0; c < S->ncol; c++) V->wlo[c] = fmin(V->wlo[c], V->row[V->col[c]]), V->whi[c] = fmax(V->whi[c], V->row[V->col[c]]);
    if (t < V->wend - 1e-9 * S->window) return;
    double rec[3 + 2 * MAXCOL];
    rec[0] = br_timefn_frequency(&V->m->load[V->exload].mag, V->wend - 0.5 * S->window);
    rec[1] = 0, rec[2] = 1;
    for (int c = 0; c < S->ncol; c++) {
        rec[3 + 2 * c] = 0.5 * (V->whi[c] - V->wlo[c]), rec[4 + 2 * c] = NAN;
        V->wlo[c] = INFINITY, V->whi[c] = -INFINITY;
    }
    if (push_point(S, V, rec)) return;
    for (int c = 0; c < S->ncol; c++)
        if (rec[3 + 2 * c] > V->peak[c]) V->peak[c] = rec[3 + 2 * c], V->ipeak[c] = V->nf - 1;
    V->wend += S->window;
}

/* n >= 3 coefficients x = (a, b) of a column's last cycles (x[0] the newest) -> the map M (2 x 2, by rows)
 * of their changes d_j = x_j - x_{j+1}, d_j = M d_{j+1}, fitted by least squares; 0, or -1 where the changes
 * before the last are all zero or M does not shrink them (a spectral radius of 1 or more). Near a stable
 * periodic response the changes shrink by the dominant Floquet multipliers: for a lightly damped mode a
 * complex pair, whose transient beats against the drive and traces an ellipse in the (a, b) plane, which M
 * follows exactly (for one mode of a linear system). With fewer than two independent changes (three
 * cycles, or changes along one line) M is the best complex factor, d_j = lambda d_{j+1}. */
static int fit_map(const double (*x)[2], int n, double M[4], double *misfit)
{
    double S[4] = {0}, G[3] = {0}, nr = 0, ni = 0; /* sum d_j d_{j+1}^T, sum d_{j+1} d_{j+1}^T (xx, xy, yy) */
    for (int j = 0; j + 2 < n; j++) {
        const double ar = x[j][0] - x[j + 1][0], ai = x[j][1] - x[j + 1][1];
        const double br = x[j + 1][0] - x[j + 2][0], bi = x[j + 1][1] - x[j + 2][1];
        S[0] += ar * br, S[1] += ar * bi, S[2] += ai * br, S[3] += ai * bi;
        G[0] += br * br, G[1] += br * bi, G[2] += bi * bi;
        nr += ar * br + ai * bi, ni += ai * br - ar * bi;
    }
    const double tg = G[0] + G[2], dg = G[0] * G[2] - G[1] * G[1];
    if (!(tg > 0)) return -1;
    if (dg > 1e-6 * tg * tg) { /* M = S G^-1 */
        M[0] = (S[0] * G[2] - S[1] * G[1]) / dg, M[1] = (S[1] * G[0] - S[0] * G[1]) / dg;
        M[2] = (S[2] * G[2] - S[3] * G[1]) / dg, M[3] = (S[3] * G[0] - S[2] * G[1]) / dg;
    } else { /* lambda = sum d_j conj(d_{j+1}) / sum |d_{j+1}|^2, as a matrix */
        M[0] = M[3] = nr / tg, M[1] = -ni / tg, M[2] = ni / tg;
    }
    double e2 = 0, d2 = 0; /* the fit's residual, relative: sum |d_j - M d_{j+1}|^2 / sum |d_j|^2 */
    for (int j = 0; misfit && j + 2 < n; j++) {
        const double ar = x[j][0] - x[j + 1][0], ai = x[j][1] - x[j + 1][1];
        const double br = x[j + 1][0] - x[j + 2][0], bi = x[j + 1][1] - x[j + 2][1];
        const double er = ar - M[0] * br - M[1] * bi, ei = ai - M[2] * br - M[3] * bi;
        e2 += er * er + ei * ei, d2 += ar * ar + ai * ai;
    }
    if (misfit) *misfit = d2 > 0 ? sqrt(e2 / d2) : 0.0;
    const double tr = 0.5 * (M[0] + M[3]), det = M[0] * M[3] - M[1] * M[2], disc = tr * tr - det;
    const double rho = disc >= 0 ? fabs(tr) + sqrt(disc) : sqrt(det);
    return rho < 1 ? 0 : -1;
}

/* M, a column's last change d -> the changes still to come, M (I - M)^-1 d, in r (the geometric series) */
static void map_rest(const double M[4], const double d[2], double r[2])
{
    const double u0 = 1 - M[0], u1 = -M[1], u2 = -M[2], u3 = 1 - M[3], du = u0 * u3 - u1 * u2;
    const double y0 = (u3 * d[0] - u1 * d[1]) / du, y1 = (u0 * d[1] - u2 * d[0]) / du; /* (I - M)^-1 d */
    r[0] = M[0] * y0 + M[1] * y1, r[1] = M[2] * y0 + M[3] * y1;
}

/* the first column's coefficients X_j = (a_j, b_j) of its last n cycles (x[0] the newest), tol -> 1 if the
 * response is steady: its change over the last cycle, d_0 = X_0 - X_1, and the changes still to come (the
 * geometric series of fit_map) both at most tol |X_0|. The change alone stops at a beat's crest, where the
 * amplitude hardly moves, and where the transient decays slowly (its multiplier about 1 - 2 pi zeta at a
 * resonance) long before it has gone (docs/studies.md). A change below a thousandth of the tolerance is
 * steady whatever M. */
static int cycles_steady(const double (*x)[2], int n, double tol)
{
    if (n < 3) return 0; /* two changes at least */
    const double X = hypot(x[0][0], x[0][1]), d[2] = {x[0][0] - x[1][0], x[0][1] - x[1][1]}, d0 = hypot(d[0], d[1]);
    if (!(d0 <= tol * X)) return 0;
    if (d0 <= 1e-3 * tol * X) return 1;
    double M[4], r[2];
    if (fit_map(x, n, M, NULL)) return 0; /* not shrinking, or it stood still, then moved: one more cycle */
    map_rest(M, d, r);
    return hypot(r[0], r[1]) <= tol * X;
}

/* 3 x 3 least squares of x = c0 + a cos th + b sin th from the sums -> a, b (0 if singular) */
static void ls_solve(const double *s, double *a, double *b)
{
    const double M[3][3] = {{s[0], s[1], s[2]}, {s[1], s[3], s[4]}, {s[2], s[4], s[5]}};
    const double r[3] = {s[6], s[7], s[8]};
    const double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                       M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    if (!(fabs(det) > 0)) {
        *a = *b = 0;
        return;
    }
    /* Cramer's rule for the 2nd and 3rd unknowns */
    const double da = M[0][0] * (r[1] * M[2][2] - M[1][2] * r[2]) - r[0] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                      M[0][2] * (M[1][0] * r[2] - r[1] * M[2][0]);
    const double db = M[0][0] * (M[1][1] * r[2] - r[1] * M[2][1]) - M[0][1] * (M[1][0] * r[2] - r[1] * M[2][0]) +
                      r[0] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    *a = da / det, *b = db / det;
}

/* integrals ig (in NQ's order) over one or more whole periods, column c -> its coefficients a, b (the weighted
 * least squares of x = c0 + a cos th + b sin th, the weights the integration's) */
static void cycle_coef(const double *ig, int c, double *a, double *b)
{
    const double s[9] = {ig[0], ig[1], ig[2], ig[3], ig[4], ig[5], ig[6 + 3 * c], ig[7 + 3 * c], ig[8 + 3 * c]};
    ls_solve(s, a, b);
}

/* variant's sampled row at t -> the least-squares integrands q (in NQ's order) */
static void cycle_integrand(const st_study *S, const st_var *V, double t, double *q)
{
    const br_timefn *fn = &V->m->load[V->exload].mag;
    const double th = 6.283185307179586 * fn->f * t + fn->phase, cs = cos(th), sn = sin(th);
    q[0] = 1, q[1] = cs, q[2] = sn, q[3] = cs * cs, q[4] = cs * sn, q[5] = sn * sn;
    for (int c = 0; c < S->ncol; c++) {
        const double x = V->row[V->col[c]];
        q[6 + 3 * c] = x, q[7 + 3 * c] = x * cs, q[8 + 3 * c] = x * sn;
    }
}

/* variant's sampled row at t -> the samples integrated from there: the cycle begins at the next sample
 * (the first interval's interpolation needs the one before); a frequency's first cycle */
static void cycle_begin(const st_study *S, st_var *V, double t)
{
    cycle_integrand(S, V, t, V->sh[0]);
    V->sht[0] = t, V->nsh = 1, V->cycle_end = -1.0;
    memset(V->ig, 0, sizeof V->ig);
}

/* s in [0, 1] -> the integrals from 0 to s of the cubic through four samples at -1, 0, 1, 2 (in sample
 * intervals) of each sample's value, in w (at s = 1: -1/24, 13/24, 13/24, -1/24) */
static void cubic_weights(double s, double w[4])
{
    const double s2 = s * s, s3 = s2 * s, s4 = s3 * s;
    w[0] = -(0.25 * s4 - s3 + s2) / 6;
    w[1] = 0.5 * (0.25 * s4 - s3 * (2.0 / 3) - 0.5 * s2 + 2 * s);
    w[2] = -0.5 * (0.25 * s4 - s3 / 3 - s2);
    w[3] = (0.25 * s4 - 0.5 * s2) / 6;
}

/* variant's last four samples, s0 <= s1 in [0, 1] -> the integrals of the least-squares integrands over
 * that share of the interval between the middle two samples added to the cycle's */
static void cycle_add(const st_study *S, st_var *V, double s0, double s1)
{
    double w0[4], w1[4];
    cubic_weights(s0, w0), cubic_weights(s1, w1);
    const double h = V->sht[2] - V->sht[1];
    for (int k = 0; k < 6 + 3 * S->ncol; k++) {
        double sum = 0;
        for (int i = 0; i < 4; i++) sum += (w1[i] - w0[i]) * V->sh[i][k];
        V->ig[k] += h * sum;
    }
}

/* a cycle ended at V->cycle_end (the sample at t just after it) -> its coefficients, the convergence
 * checks, and at the end of a frequency point its record and the next frequency (its first cycle begun
 * at t); 0: the cycles go on, 1: the last frequency is done, 2: the next frequency has begun */
static int cycle_done(const st_study *S, st_var *V, double t)
{
    br_timefn *fn = &V->m->load[V->exload].mag;
    V->cycles++;
    double ex[MAXCOL][2]; /* the steady states recorded */
    const int nh = V->cycles < ST_XHIST ? V->cycles : ST_XHIST;
    if (!V->phase_fit) {
        for (int c = 0; c < S->ncol; c++) { /* x = c0 + a cos th + b sin th over one period exactly */
            memmove(V->xk[c][1], V->xk[c][0], (ST_XHIST - 1) * sizeof V->xk[c][0]);
            cycle_coef(V->ig, c, &V->xk[c][0][0], &V->xk[c][0][1]);
        }
        memset(V->ig, 0, sizeof V->ig);
        V->cycle_end += 1.0 / fn->f;
        const int steady = V->cycles >= S->min_cycles && cycles_steady(V->xk[0], nh, S->tol);
        if (steady || V->cycles >= S->max_cycles) {
            V->phase_fit = 1, V->converged = steady, V->fit_left = S->fit_cycles;
            return 0;
        }
        /* extrapolate: true: the first column's steady state, extrapolated from its last changes, stood still
         * (within the tolerance) over three cycles, and what the geometric series misses of the changes (the
         * fit's relative residual) times what it adds is within the tolerance too: each column's
         * extrapolated steady state is recorded */
        double M[4], r[2], misfit;
        if (!S->extrap || nh < ST_XHIST || fit_map(V->xk[0], nh, M, &misfit)) {
            V->xe[0][0] = V->xe[0][1] = NAN;
            return 0;
        }
        memmove(V->xe[1], V->xe[0], 2 * sizeof V->xe[0]);
        for (int c = 0; c < S->ncol; c++) { /* every column's steady state: its coefficient plus what is to come */
            const double d[2] = {V->xk[c][0][0] - V->xk[c][1][0], V->xk[c][0][1] - V->xk[c][1][1]};
            map_rest(M, d, r);
            ex[c][0] = V->xk[c][0][0] + r[0], ex[c][1] = V->xk[c][0][1] + r[1];
        }
        V->xe[0][0] = ex[0][0], V->xe[0][1] = ex[0][1];
        const double E = hypot(V->xe[0][0], V->xe[0][1]);
        const double r0 = hypot(V->xe[0][0] - V->xk[0][0][0], V->xe[0][1] - V->xk[0][0][1]); /* the first column's series */
        if (V->cycles < S->min_cycles ||
            !(hypot(V->xe[0][0] - V->xe[1][0], V->xe[0][1] - V->xe[1][1]) <= S->tol * E &&
              hypot(V->xe[1][0] - V->xe[2][0], V->xe[1][1] - V->xe[2][1]) <= S->tol * E && misfit * r0 <= S->tol * E))
            return 0;
        V->converged = 1;
    } else if (--V->fit_left > 0) {
        V->cycle_end += 1.0 / fn->f;
        return 0;
    } else
        for (int c = 0; c < S->ncol; c++) cycle_coef(V->ig, c, &ex[c][0], &ex[c][1]); /* over the fit cycles */
    double rec[3 + 2 * MAXCOL];
    const double A = exc_amp(fn, t);
    rec[0] = fn->f, rec[1] = V->cycles, rec[2] = V->converged;
    for (int c = 0; c < S->ncol; c++) { /* x = c0 + R sin(th + psi): R = |(a, b)|, psi = atan2(a, b) */
        rec[3 + 2 * c] = hypot(ex[c][0], ex[c][1]) / fabs(A);
        rec[4 + 2 * c] = atan2(ex[c][0], ex[c][1]) * 180.0 / 3.141592653589793;
    }
    if (push_point(S, V, rec)) return 1;
    for (int c = 0; c < S->ncol; c++)
        if (rec[3 + 2 * c] > V->peak[c]) V->peak[c] = rec[3 + 2 * c], V->ipeak[c] = V->nf - 1;
    if (++V->fi >= S->nfreq) return 1;
    br_study_set_frequency(V->m, V->exload, S->freq[V->fi], t);
    V->phase_fit = 0, V->cycles = 0;
    cycle_begin(S, V, t);
    return 2;
}

/* a sampled row of a stepped sine at t -> the least-squares sums of the cycle's fit of x = c0 + a cos th +
 * b sin th as integrals over exactly one period wherever the samples fall, each integrand a cubic through
 * the four samples around each interval: a steady response c0 + a cos + b sin is fitted exactly, and a
 * decaying transient's coefficient in one cycle is its previous one's times the same factor, to the
 * interpolation's error (of order (2 w h)^4 of the transient, w h the phase between samples); the interval
 * before the last sample is the one integrated; cycle ends -> cycle_done; returns 1 when the last frequency
 * is done */
int br_study_stepped_sample(const st_study *S, st_var *V, double t)
{
    if (t < S->start) return 0;
    if (V->nsh == 0) {
        cycle_begin(S, V, t);
        return 0;
    }
    cycle_integrand(S, V, t, V->sh[V->nsh]);
    V->sht[V->nsh++] = t;
    if (V->nsh == 2) /* the frequency's first cycle begins at its second sample */
        V->tc = t, V->cycle_end = t + 1.0 / V->m->load[V->exload].mag.f;
    if (V->nsh < 4) return 0;
    const double a = V->sht[1], h = V->sht[2] - a;
    while (V->sht[2] >= V->cycle_end) { /* the cycle ends in this interval */
        cycle_add(S, V, (V->tc - a) / h, fmin(1.0, (V->cycle_end - a) / h));
        V->tc = V->cycle_end;
        const int r = cycle_done(S, V, t);
        if (r) return r == 1;
    }
    cycle_add(S, V, (V->tc - a) / h, 1.0);
    V->tc = V->sht[2];
    memmove(V->sh[0], V->sh[1], 3 * sizeof V->sh[0]), memmove(V->sht, V->sht + 1, 3 * sizeof V->sht[0]);
    V->nsh = 3;
    return 0;
}

/* ---- hbm: a curve per variant ---- */

/* study, variant v (model built), output folder -> the variant's forced response by harmonic balance:
 * variants/NNNNN/frf.csv (bristle hbm's columns), V->f (per point: f, Newton iterations, 1, per column the first
 * harmonic's receptance |x_1 / F| and phase against the excitation, as a stepped sine's), the peaks, the friction
 * energy per cycle at the first column's peak, the counts; V->status done or failed (err) */
/* study (mode: K), variant v, the solver -> the variant's backbone: variants/NNNNN/backbone.csv (bristle hbm --mode's
 * columns), V->f (per point: the modal amplitude, the frequency, the damping ratio, per column its first harmonic and
 * phase), V->mres (the linearized frequency, the last point's frequency and damping ratio, the largest damping ratio,
 * its amplitude and frequency), V->Wpk (the sets' energy per cycle at the largest damping ratio); V->status done or
 * failed (err) */
static void mode_variant(const st_study *S, long v, st_var *V, br_hbm *h, const char *dir)
{
    char err[2048] = "", warn[1024] = "";
    br_hbm_bb bb;
    const int rc = br_hbm_backbone(h, S->hmode, S->ha0, S->ha1, S->hpoints, NULL, 0, 0, &bb, warn, sizeof warn, err, sizeof err);
    if (rc == -3) snprintf(V->err, sizeof V->err, "%s", warn);
    else if (rc < 0) snprintf(V->err, sizeof V->err, "%s", *err ? err : "no convergence");
    br_hbm_counts(h, &V->newton, &V->jacobians);
    const br_hbm_aft *a = br_hbm_aft_of(h);
    V->aft_evals = a->evals, V->updates = a->updates, V->npoints = bb.n;
    const int width = BR_HBM_MODE_LEAD + br_hbm_row_width(h), H = S->hH;
    for (int q = 0; q < ST_MRES; q++) V->mres[q] = NAN;
    V->mres[0] = bb.n > 0 ? bb.f_lin : NAN;
    long pmax = -1;
    for (long p = 0; p < bb.n; p++) {
        const double *x = bb.rows + p * width, *lead = x + BR_HBM_MODE_LEAD;
        double rec[3 + 2 * MAXCOL];
        rec[0] = x[0], rec[1] = lead[0], rec[2] = x[1];
        for (int c = 0; c < S->ncol; c++) rec[3 + 2 * c] = lead[2 + c * (H + 3) + 1], rec[4 + 2 * c] = lead[2 + c * (H + 3) + H + 2];
        if (pmax < 0 || x[1] > bb.rows[pmax * width + 1]) pmax = p;
        if (push_point(S, V, rec)) break;
    }
    if (bb.n > 0) {
        const double *last = bb.rows + (bb.n - 1) * width, *mx = bb.rows + pmax * width;
        V->mres[1] = last[BR_HBM_MODE_LEAD], V->mres[2] = last[1];
        V->mres[3] = mx[1], V->mres[4] = mx[0], V->mres[5] = mx[BR_HBM_MODE_LEAD];
        for (int s = 0; s < V->m->nset && s < 64; s++) V->Wpk[s] = mx[width - 2 * V->m->nset + s];
    }
    if (bb.n > 0 && !V->oom) { /* backbone.csv as bristle hbm --mode writes it */
        char path[1400], tmp[1500];
        snprintf(path, sizeof path, "%s/variants/%05ld", dir, v);
        FILE *fp = br_mkdir_p(path) ? NULL : (snprintf(tmp, sizeof tmp, "%s/backbone.csv.part", path), fopen(tmp, "w"));
        if (fp) {
            fprintf(fp, "amplitude,damping_ratio,xi,");
            br_hbm_write_header(h, fp, NULL);
            for (long p = 0; p < bb.n; p++) br_output_csv_row(bb.rows + p * width, width, fp);
        }
        snprintf(path + strlen(path), sizeof path - strlen(path), "/backbone.csv");
        if (!fp || (ferror(fp) | (fclose(fp) != 0)) || rename(tmp, path)) {
            snprintf(V->err, sizeof V->err, "cannot write %.1000s", path);
            V->oom = 1; /* the study's output is incomplete */
        }
    }
    if (rc == 0 && !V->oom) V->status = ST_DONE;
    br_hbm_bb_free(&bb);
}

void br_study_hbm_variant(const st_study *S, long v, st_var *V, const char *dir)
{
    const char *cols[MAXCOL];
    for (int c = 0; c < S->ncol; c++) cols[c] = S->col[c];
    char err[2048] = "", warn[1024] = "";
    int bad;
    const double t0 = br_wall_seconds();
    br_hbm *h = br_hbm_create(V->m, S->text, S->len, S->hH, S->hN, S->hmaxper, S->tol, S->ncol, cols, &bad, err, sizeof err);
    if (S->hmode) {
        V->status = ST_FAILED;
        if (h) mode_variant(S, v, V, h, dir);
        else V->oom = !bad, snprintf(V->err, sizeof V->err, "%s", err);
        V->hwall = br_wall_seconds() - t0;
        br_hbm_free(h);
        return;
    }
    br_hbm_rows r = {0};
    const int rc = h ? br_hbm_curve(h, S->hf0, S->hf1, S->hpoints, 0.0, 0, &r, warn, sizeof warn, err, sizeof err) : -2;
    V->hwall = br_wall_seconds() - t0;
    V->status = ST_FAILED;
    if (!h) V->oom = !bad;
    if (rc == -3) snprintf(V->err, sizeof V->err, "%s", warn);
    else if (rc < 0) snprintf(V->err, sizeof V->err, "%s", *err ? err : "no convergence");
    if (h) {
        br_hbm_counts(h, &V->newton, &V->jacobians);
        const br_hbm_aft *a = br_hbm_aft_of(h);
        V->aft_evals = a->evals, V->updates = a->updates;
    }
    V->npoints = r.n, V->nturn = r.nfold;
    /* the excitation's amplitude and phase: F sin(w t + phase) */
    const br_timefn *fn = &V->m->load[V->exload].mag;
    const double F = fabs(exc_amp(fn, 0.0)), ph0 = fn->phase * (180.0 / M_PI);
    const int width = h ? br_hbm_row_width(h) : 0, H = S->hH;
    double rec[3 + 2 * MAXCOL];
    for (long p = 0; p < r.n; p++) {
        const double *x = r.v + p * width;
        rec[0] = x[0], rec[1] = x[1], rec[2] = 1.0;
        for (int c = 0; c < S->ncol; c++) {
            const double *col = x + 2 + c * (H + 3);
            /* x_1 = h1 cos(w t + arg1) = h1 sin(w t + arg1 + 90 deg): the phase against sin(w t + phase) */
            double psi = fmod(col[H + 2] + 90.0 - ph0, 360.0);
            if (psi > 180.0) psi -= 360.0;
            else if (psi <= -180.0) psi += 360.0;
            rec[3 + 2 * c] = F > 0 ? col[1] / F : col[1], rec[4 + 2 * c] = psi;
            if (rec[3 + 2 * c] > V->peak[c]) {
                V->peak[c] = rec[3 + 2 * c], V->ipeak[c] = p;
                if (c == 0)
                    for (int s = 0; s < V->m->nset && s < 64; s++) V->Wpk[s] = x[width - 2 * V->m->nset + s];
            }
        }
        if (push_point(S, V, rec)) break;
    }
    /* frf.csv as bristle hbm writes it */
    if (h && r.n > 0 && !V->oom) {
        char path[1400], tmp[1500];
        snprintf(path, sizeof path, "%s/variants/%05ld", dir, v);
        FILE *fp = br_mkdir_p(path) ? NULL : (snprintf(tmp, sizeof tmp, "%s/frf.csv.part", path), fopen(tmp, "w"));
        if (fp) {
            br_hbm_write_header(h, fp, NULL);
            for (long p = 0; p < r.n; p++) br_output_csv_row(r.v + p * width, width, fp);
        }
        snprintf(path + strlen(path), sizeof path - strlen(path), "/frf.csv");
        if (!fp || (ferror(fp) | (fclose(fp) != 0)) || rename(tmp, path)) {
            snprintf(V->err, sizeof V->err, "cannot write %.1000s", path);
            V->oom = 1; /* the study's output is incomplete */
        }
    }
    /* stability: peak: the Floquet multipliers at the first column's peak (docs/hbm.md; on this variant's
     * thread: a nested OpenMP region runs on it alone) */
    V->mupk = NAN;
    if (rc == 0 && !V->oom && S->hstab && r.n > 0 && br_hbm_peak_floquet(h, V->m, &V->mupk, err, sizeof err)) {
        V->mupk = NAN; /* the curve stands; study.csv's cell stays empty, and says why here */
        fprintf(stderr, "bristle study: variant %ld: no Floquet multipliers at the peak: %s\n", v, err);
    }
    if (rc == 0 && !V->oom) V->status = ST_DONE;
    br_hbm_free(h);
    free(r.v);
}
