/* study_out.c: a study's outputs. In: the study and every variant's state and analysis; out: the
 * variants' results (st_res: peaks and their frequencies or times, friction energies, status), study.csv
 * (one row per variant), variants/NNNNN/frf.csv of sweeps and stepped sines, the PNG plots, and under
 * MPI ranks every rank's variants gathered on rank 0. summary.json is written by the driver (study.c). */
#include "analysis/study_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outdir.h"
#include "io/plot.h"
#include "analysis/ranks.h"

static void csv_num(FILE *fp, double v)
{
    char buf[32];
    if (isnan(v)) fputs(",", fp);
    else snprintf(buf, sizeof buf, ",%.17g", v), fputs(buf, fp);
}

/* frequency points i-1, i, i+1 of column c -> the frequency of the vertex of the parabola through
 * (f, amplitude) at them (the peak between the points), or f_i at an end or without a maximum there */
static double peak_frequency(const st_study *S, const st_var *V, int c, long i)
{
    const int w = br_study_frec(S);
    if (i < 1 || i + 1 >= V->nf) return V->f[i * w];
    const double f0 = V->f[(i - 1) * w], f1 = V->f[i * w], f2 = V->f[(i + 1) * w];
    if (!((f0 < f1 && f1 < f2) || (f0 > f1 && f1 > f2))) return f1; /* a curve that turns there (hbm) */
    const double a0 = V->f[(i - 1) * w + 3 + 2 * c], a1 = V->f[i * w + 3 + 2 * c], a2 = V->f[(i + 1) * w + 3 + 2 * c];
    const double d1 = (a1 - a0) / (f1 - f0), d2 = (a2 - a1) / (f2 - f1), curv = (d2 - d1) / (f2 - f0);
    if (!(curv < 0)) return f1;
    const double fv = 0.5 * (f0 + f1) - d1 / (2 * curv); /* where p'(f) = d1 + curv (2 f - f0 - f1) = 0 */
    return fv > f0 && fv < f2 ? fv : f1;
}

void br_study_results(const st_study *S, st_var *V, st_res *r)
{
    r->status = V->status;
    for (int q = 0; q < ST_MRES; q++) r->mode[q] = S->hmode ? V->mres[q] : NAN;
    if (S->analysis == AN_HBM) { /* no time: the peaks of the curve, the friction energy per cycle there */
        r->t = r->residual = NAN;
        for (int c = 0; c < S->ncol; c++) {
            r->peak[c] = V->peak[c] >= 0 ? V->peak[c] : NAN;
            r->fpeak[c] = V->peak[c] >= 0 ? peak_frequency(S, V, c, V->ipeak[c]) : NAN;
        }
        for (int s = 0; V->m && s < V->m->nset && s < 64; s++) r->E[s] = V->Wpk[s];
        r->nturn = V->nturn, r->mupk = V->mupk;
        return;
    }
    r->t = V->d ? V->d->t : 0.0;
    for (int c = 0; c < S->ncol; c++) {
        r->peak[c] = S->analysis == AN_TIME ? V->vmax[c] : V->peak[c] >= 0 ? V->peak[c] : NAN;
        r->fpeak[c] = S->analysis == AN_TIME ? V->tmax[c] : V->peak[c] >= 0 ? peak_frequency(S, V, c, V->ipeak[c]) : NAN;
    }
    r->residual = V->d ? V->d->en.residual_rel : NAN;
    /* a finished variant whose energy balance ends above its tolerance (as bristle run's status) */
    r->inaccurate = V->d && V->m && !(V->d->en.residual_rel <= V->m->energy_tol);
    r->capped = 0;
    for (long i = 0; S->analysis == AN_STEPPED && i < V->nf; i++) r->capped += V->f[i * br_study_frec(S) + 2] == 0.0;
    /* dissipated by friction: the friction work up to t less the energy still in the bristles (summary.json's
     * energy_loss_J of the same run) */
    for (int s = 0; V->m && s < V->m->nset && s < 64; s++) r->E[s] = V->d ? V->d->E_upto[s] - V->d->res[s].E_b : NAN;
}

/* study.csv: one row per variant, written under a temporary name and renamed */
int br_study_write_table(const st_study *S, const br_model *m0, st_var *V, const st_res *R, const char *dir)
{
    char path[1400], tmp[1500];
    snprintf(path, sizeof path, "%s/study.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return -1;
    fprintf(fp, "variant");
    for (int a = 0; a < S->naxis; a++) fprintf(fp, ",%s", S->axis[a].name);
    for (int k = 0; k < S->nrand; k++) fprintf(fp, ",%s", S->rnd[k].key);
    const int hb = S->analysis == AN_HBM; /* no time: no t_reached or energy residual; the curve's turning points */
    if (hb && S->hmode) { /* a backbone per variant */
        static const char *const MK[ST_MRES] = {"f_linear_Hz", "f_end_Hz", "damping_end", "damping_max", "amplitude_at_damping_max",
                                                "f_at_damping_max_Hz"};
        fprintf(fp, ",status");
        for (int q = 0; q < ST_MRES; q++) fprintf(fp, ",%s", MK[q]);
        for (int s = 0; s < m0->nset && s < 64; s++) fprintf(fp, ",%s.W_at_damping_max", m0->cset[s].name);
        fprintf(fp, ",error\n");
    } else fprintf(fp, hb ? ",status" : ",status,t_reached");
    const char *pk = S->analysis == AN_TIME ? "max_abs" : S->analysis == AN_SWEEP ? "peak" : "peak_receptance";
    const char *fk = S->analysis == AN_TIME ? "t_max" : "f_peak";
    for (int c = 0; c < S->ncol && !S->hmode; c++) fprintf(fp, ",%s.%s,%s.%s", S->col[c], pk, S->col[c], fk);
    if (S->analysis != AN_TIME && !S->hmode) fprintf(fp, ",AF");
    for (int s = 0; s < m0->nset && s < 64 && !S->hmode; s++) fprintf(fp, hb ? ",%s.W_at_peak" : ",%s.friction_energy", m0->cset[s].name);
    if (S->hmode) ;
    else if (hb && S->hstab) fprintf(fp, ",turning_points,%s.peak_floquet_max,error\n", S->col[0]);
    else fprintf(fp, hb ? ",turning_points,error\n" : S->analysis == AN_STEPPED ? ",unconverged,energy_residual,error\n"
                                                                           : ",energy_residual,error\n");
    for (long v = 0; v < S->nvar; v++) {
        fprintf(fp, "%ld", v);
        int gi[MAXAX];
        br_study_variant_index(S, v, gi);
        for (int a = 0; a < S->naxis; a++) {
            if (v == 0) fputs(",", fp); /* the base: no axis value */
            else csv_num(fp, S->axis[a].val[gi[a]]);
        }
        for (int k = 0; k < S->nrand; k++) csv_num(fp, v == 0 ? S->rnd[k].base : S->rval[v * S->nrand + k]);
        fprintf(fp, ",%s", R[v].status != ST_DONE ? "failed" : !hb && R[v].inaccurate ? "inaccurate" : "complete");
        if (S->hmode) {
            for (int q = 0; q < ST_MRES; q++) csv_num(fp, R[v].status == ST_DONE ? R[v].mode[q] : NAN);
            for (int s = 0; s < m0->nset && s < 64; s++) csv_num(fp, R[v].status == ST_DONE ? R[v].E[s] : NAN);
        }
        if (!hb) csv_num(fp, R[v].t);
        for (int c = 0; c < S->ncol && !S->hmode; c++) csv_num(fp, R[v].peak[c]), csv_num(fp, R[v].fpeak[c]);
        if (S->analysis != AN_TIME && !S->hmode) csv_num(fp, R[v].af);
        for (int s = 0; s < m0->nset && s < 64 && !S->hmode; s++) csv_num(fp, R[v].status == ST_DONE ? R[v].E[s] : NAN);
        if (hb && !S->hmode) fprintf(fp, R[v].status == ST_DONE ? ",%d" : ",", R[v].nturn);
        if (hb && S->hstab) csv_num(fp, R[v].status == ST_DONE ? R[v].mupk : NAN);
        if (S->analysis == AN_STEPPED) fprintf(fp, ",%ld", R[v].capped);
        if (!hb) csv_num(fp, R[v].status == ST_DONE ? R[v].residual : NAN);
        fputc(',', fp);
        if (R[v].status != ST_DONE) { /* the reason, quoted, without line breaks */
            fputc('"', fp);
            for (const char *p = V[v].err; *p; p++) fputc(*p == '"' ? '\'' : (*p == '\n' ? ' ' : *p), fp);
            fputc('"', fp);
        }
        fputc('\n', fp);
    }
    const int bad = ferror(fp) | (fclose(fp) != 0);
    return bad || rename(tmp, path) ? -1 : 0;
}

/* variants/NNNNN/frf.csv for sweep and stepped-sine analyses */
int br_study_write_frf(const st_study *S, const st_var *V, long v, const char *dir)
{
    char path[1400], tmp[1500];
    snprintf(path, sizeof path, "%s/variants/%05ld", dir, v);
    if (br_mkdir_p(path)) return -1;
    snprintf(path, sizeof path, "%s/variants/%05ld/frf.csv", dir, v);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return -1;
    const int w = br_study_frec(S);
    fprintf(fp, "f");
    for (int c = 0; c < S->ncol; c++) {
        if (S->analysis == AN_SWEEP) fprintf(fp, ",%s.amplitude", S->col[c]);
        else fprintf(fp, ",%s.receptance,%s.phase_deg", S->col[c], S->col[c]);
    }
    if (S->analysis == AN_STEPPED) fprintf(fp, ",cycles,converged");
    fputc('\n', fp);
    for (long i = 0; i < V->nf; i++) {
        const double *r = V->f + i * w;
        char buf[32];
        snprintf(buf, sizeof buf, "%.17g", r[0]);
        fputs(buf, fp);
        for (int c = 0; c < S->ncol; c++) {
            csv_num(fp, r[3 + 2 * c]);
            if (S->analysis == AN_STEPPED) csv_num(fp, r[4 + 2 * c]);
        }
        if (S->analysis == AN_STEPPED) fprintf(fp, ",%.0f,%.0f", r[1], r[2]);
        fputc('\n', fp);
    }
    const int bad = ferror(fp) | (fclose(fp) != 0);
    return bad || rename(tmp, path) ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* a plot's return value (br_plot_series_png), its name -> added to files when written; 1 when out of memory */
static int plot_done(int rc, const char *name, char files[][64], int *nfiles)
{
    if (rc == 0 && *nfiles < 60) snprintf(files[(*nfiles)++], 64, "%s", name);
    return rc == -2;
}

/* hbm: the first column's receptance against frequency, one curve per variant (each on its own frequencies: the
 * continuation chooses them), up to 12 variants (more: 12 spread over them, variant 0 first), on a log axis
 * (frf.png) and a linear one (frf_linear.png); 1 when out of memory */
/* a backbone per variant (mode) -> backbone_frequency.png, backbone_damping.png: up to 12 variants' frequency and damping
 * ratio against the modal amplitude (log x) */
static int mode_plot(const st_study *S, const st_var *V, const st_res *R, const char *dir, char files[][64], int *nfiles)
{
    const long nv = S->nvar, ncurve = nv < 12 ? nv : 12;
    const int w = br_study_frec(S);
    br_series sr[12];
    static char labels[12][200];
    double *buf[12] = {0};
    int oom = 0;
    for (int k = 0; k < 2; k++) {
        int ns = 0;
        for (long q = 0; q < ncurve; q++) {
            const long v = ncurve == nv ? q : (long)((double)q * (double)(nv - 1) / 11.0 + 0.5);
            if (R[v].status != ST_DONE || V[v].nf < 2) continue;
            double *b = buf[ns] = malloc((size_t)2 * V[v].nf * sizeof(double));
            if (!b) {
                oom = 1;
                continue;
            }
            for (long i = 0; i < V[v].nf; i++) b[i] = V[v].f[i * w], b[V[v].nf + i] = V[v].f[i * w + (k ? 2 : 1)];
            int gi[MAXAX];
            br_study_variant_index(S, v, gi);
            if (v == 0) snprintf(labels[ns], sizeof labels[ns], "base");
            else if (S->naxis) {
                const char *seg = strrchr(S->axis[0].name, '.');
                snprintf(labels[ns], sizeof labels[ns], "%ld: %.40s = %.3g", v, seg ? seg + 1 : S->axis[0].name, S->axis[0].val[gi[0]]);
            } else snprintf(labels[ns], sizeof labels[ns], "variant %ld", v);
            sr[ns] = (br_series){labels[ns], V[v].nf, b, b + V[v].nf, (int)(q % 8), v == 0 ? 2.0 : 1.3, 0};
            ns++;
        }
        char path[1400], title[400];
        const char *name = k ? "backbone_damping.png" : "backbone_frequency.png";
        snprintf(title, sizeof title, "%s: mode %d, %s by harmonic balance%s", S->name, S->hmode, k ? "damping ratio" : "frequency",
                 nv > 12 ? " (12 of the variants)" : "");
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (ns > 0)
            oom |= plot_done(br_plot_series_png(path, title, "modal amplitude sqrt(Q1^H M Q1) [m kg^0.5]",
                                                k ? "damping ratio" : "frequency [Hz]", BR_PLOT_LOGX, sr, ns),
                             name, files, nfiles);
        for (int q = 0; q < ns; q++) free(buf[q]), buf[q] = NULL;
    }
    return oom;
}

static int hbm_frf_plot(const st_study *S, const st_var *V, const st_res *R, const char *dir, char files[][64], int *nfiles)
{
    if (S->hmode) return mode_plot(S, V, R, dir, files, nfiles);
    const long nv = S->nvar, ncurve = nv < 12 ? nv : 12;
    const int w = br_study_frec(S);
    br_series sr[12];
    static char labels[12][200];
    double *buf[12] = {0};
    int ns = 0, oom = 0;
    for (long k = 0; k < ncurve; k++) {
        const long v = ncurve == nv ? k : (long)((double)k * (double)(nv - 1) / 11.0 + 0.5);
        if (R[v].status != ST_DONE || V[v].nf < 2) continue;
        double *b = buf[ns] = malloc((size_t)2 * V[v].nf * sizeof(double));
        if (!b) {
            oom = 1;
            continue;
        }
        for (long i = 0; i < V[v].nf; i++) b[i] = V[v].f[i * w], b[V[v].nf + i] = V[v].f[i * w + 3];
        int gi[MAXAX];
        br_study_variant_index(S, v, gi);
        if (v == 0) snprintf(labels[ns], sizeof labels[ns], "base");
        else if (S->naxis) {
            const char *seg = strrchr(S->axis[0].name, '.');
            snprintf(labels[ns], sizeof labels[ns], "%ld: %.40s = %.3g", v, seg ? seg + 1 : S->axis[0].name, S->axis[0].val[gi[0]]);
        } else snprintf(labels[ns], sizeof labels[ns], "variant %ld", v);
        sr[ns] = (br_series){labels[ns], V[v].nf, b, b + V[v].nf, (int)(k % 8), v == 0 ? 2.0 : 1.3, 0};
        ns++;
    }
    char path[1400], title[400], ylab[200];
    snprintf(ylab, sizeof ylab, "%s: first harmonic |x_1 / F| [m/N]", S->col[0]);
    snprintf(title, sizeof title, "%s: frequency response of %s by harmonic balance%s", S->name, S->col[0],
             nv > 12 ? " (12 of the variants)" : "");
    for (int lin = 0; lin < 2 && ns > 0; lin++) {
        const char *name = lin ? "frf_linear.png" : "frf.png";
        snprintf(path, sizeof path, "%s/%s", dir, name);
        oom |= plot_done(br_plot_series_png(path, title, "excitation frequency [Hz]", ylab, lin ? 0 : BR_PLOT_LOGY, sr, ns), name,
                         files, nfiles);
    }
    for (int k = 0; k < ns; k++) free(buf[k]);
    return oom;
}

/* the study's PNGs: each result against each grid axis, the FRF overlay or envelope, the AF
 * histogram; names added to files. 0, or 1 when some were not drawn for want of memory */
int br_study_plots(const st_study *S, const br_model *m0, st_var *V, const st_res *R, const char *dir,
                   char files[][64], int *nfiles)
{
    char path[1400], title[400], ylab[200];
    const long nv = S->nvar;
    int oom = 0;
    double *x = malloc((size_t)nv * sizeof(double)), *y = malloc((size_t)nv * MAXCOL * sizeof(double));
    if (!x || !y) {
        oom = 1;
        goto out;
    }
    for (int a = 0; a < S->naxis && S->analysis != AN_TIME; a++) {
        const st_axis *A = &S->axis[a];
        /* against this axis: the variants whose other axes sit at their first value, first draw */
        long n = 0;
        long *idx = malloc((size_t)nv * sizeof(long));
        oom |= !idx;
        for (long v = 1; idx && v < nv; v++) {
            int gi[MAXAX], other = 0;
            br_study_variant_index(S, v, gi);
            for (int b = 0; b < S->naxis; b++) other |= b != a && gi[b] != 0;
            if (S->nrand && (v - 1) % S->count != 0) other = 1;
            if (!other) idx[n++] = v;
        }
        for (int kind = 0; kind < 2; kind++) {
            br_series sr[MAXCOL + 64];
            int ns = 0;
            const int ncurve = kind == 0 ? (S->hmode ? 1 : S->ncol) : (m0->nset < 8 ? m0->nset : 8);
            for (int c = 0; c < ncurve; c++) {
                for (long i = 0; i < n; i++) {
                    const st_res *r = &R[idx[i]];
                    int gi[MAXAX];
                    br_study_variant_index(S, idx[i], gi);
                    x[i] = A->val[gi[a]];
                    y[c * nv + i] = r->status != ST_DONE ? NAN : kind == 0 ? (S->hmode ? r->mode[3] : r->peak[c]) : r->E[c];
                }
                sr[ns++] = (br_series){kind == 0 ? (S->hmode ? "damping_max" : S->col[c]) : m0->cset[c].name, n, x, y + c * nv,
                                       c == 3 ? 4 : c, 1.5, 1};
            }
            if (kind == 0) snprintf(ylab, sizeof ylab, "%s", S->hmode ? "the backbone's largest damping ratio"
                                                         : S->analysis == AN_SWEEP ? "peak amplitude (column units, m for displacements)"
                                                                                   : "peak receptance |x / F| [m/N]");
            else snprintf(ylab, sizeof ylab, "%s", S->hmode ? "friction energy per cycle at the largest damping ratio [J]"
                                                   : S->analysis == AN_HBM ? "friction energy per cycle at the peak [J]" : "friction energy [J]");
            snprintf(title, sizeof title, "%s: %s against %s", S->name, kind == 0 ? (S->hmode ? "largest damping" : "peak response")
                     : "friction energy", A->name);
            char name[64];
            snprintf(name, sizeof name, "%s_vs_axis%d.png", kind == 0 ? "peak" : "energy", a);
            snprintf(path, sizeof path, "%s/%s", dir, name);
            if (n > 0) oom |= plot_done(br_plot_series_png(path, title, A->name, ylab, A->logax ? BR_PLOT_LOGX : 0, sr, ns), name, files, nfiles);
        }
        free(idx);
    }
    if (S->analysis == AN_HBM) oom |= hbm_frf_plot(S, V, R, dir, files, nfiles);
    else if (S->analysis != AN_TIME && R[0].status == ST_DONE && V[0].nf > 1) { /* FRF of the first column */
        const int w = br_study_frec(S);
        const long nf = V[0].nf;
        int same = 1; /* every complete variant on the base's frequency points */
        for (long v = 1; v < nv; v++)
            if (R[v].status == ST_DONE) same &= V[v].nf == nf;
        const char *yl = S->analysis == AN_SWEEP ? "amplitude (half range of each window)" : "receptance |x / F| [m/N]";
        snprintf(ylab, sizeof ylab, "%s: %s", S->col[0], yl);
        double *f0 = malloc((size_t)nf * sizeof(double)), *buf = malloc((size_t)nf * (nv < 13 ? nv : 4) * sizeof(double));
        oom |= !f0 || !buf;
        if (f0 && buf) {
            for (long i = 0; i < nf; i++) f0[i] = V[0].f[i * w];
            br_series sr[16];
            int ns = 0;
            static char labels[13][200];
            if (nv <= 12) { /* one curve per variant */
                for (long v = 0; v < nv; v++) {
                    if (R[v].status != ST_DONE) continue;
                    for (long i = 0; i < V[v].nf && i < nf; i++) buf[v * nf + i] = V[v].f[i * w + 3];
                    int gi[MAXAX];
                    br_study_variant_index(S, v, gi);
                    if (v == 0) snprintf(labels[v], sizeof labels[v], "base");
                    else if (S->naxis) {
                        const char *seg = strrchr(S->axis[0].name, '.');
                        snprintf(labels[v], sizeof labels[v], "%ld: %.40s = %.3g", v, seg ? seg + 1 : S->axis[0].name,
                                 S->axis[0].val[gi[0]]);
                    }
                    else snprintf(labels[v], sizeof labels[v], "variant %ld", v);
                    sr[ns++] = (br_series){labels[v], V[v].nf < nf ? V[v].nf : nf, f0, buf + v * nf, (int)(v % 8), v == 0 ? 2.0 : 1.3, 0};
                }
            } else if (same) { /* envelope: min, median, max over the complete variants; the base over it */
                double *col = malloc((size_t)nv * sizeof(double));
                oom |= !col;
                for (long i = 0; col && i < nf; i++) {
                    long k = 0;
                    for (long v = 0; v < nv; v++)
                        if (R[v].status == ST_DONE) col[k++] = V[v].f[i * w + 3];
                    qsort(col, (size_t)k, sizeof(double), cmp_double);
                    buf[i] = col[0], buf[nf + i] = k % 2 ? col[k / 2] : 0.5 * (col[k / 2 - 1] + col[k / 2]), buf[2 * nf + i] = col[k - 1];
                    buf[3 * nf + i] = V[0].f[i * w + 3];
                }
                free(col);
                sr[0] = (br_series){"min over variants", nf, f0, buf, 0, 1.2, 0};
                sr[1] = (br_series){"median", nf, f0, buf + nf, 2, 1.2, 0};
                sr[2] = (br_series){"max", nf, f0, buf + 2 * nf, 1, 1.2, 0};
                sr[3] = (br_series){"base (variant 0)", nf, f0, buf + 3 * nf, 3, 2.0, 0};
                ns = col ? 4 : 0;
            }
            snprintf(title, sizeof title, "%s: frequency response of %s%s", S->name, S->col[0], nv > 12 ? " (envelope)" : "");
            /* stepped sine: receptance on a log axis (frf.png) and on a linear one, where the peaks'
             * differences show (frf_linear.png); a sweep's envelope on a linear axis */
            for (int lin = S->analysis == AN_STEPPED ? 0 : 1; lin < 2; lin++) {
                const char *name = lin && S->analysis == AN_STEPPED ? "frf_linear.png" : "frf.png";
                snprintf(path, sizeof path, "%s/%s", dir, name);
                if (ns) oom |= plot_done(br_plot_series_png(path, title, "excitation frequency [Hz]", ylab, lin ? 0 : BR_PLOT_LOGY, sr, ns), name, files, nfiles);
            }
        }
        free(f0), free(buf);
    }
    if (S->nrand && S->analysis != AN_TIME) {
        long n = 0;
        for (long v = 1; v < nv; v++)
            if (R[v].status == ST_DONE && isfinite(R[v].af)) x[n++] = R[v].af;
        snprintf(title, sizeof title, "%s: amplification factor over %ld variants", S->name, n);
        snprintf(path, sizeof path, "%s/af_histogram.png", dir);
        const int bins = n < 16 ? 4 : n < 64 ? 8 : n < 256 ? 12 : 20;
        if (n > 0) oom |= plot_done(br_plot_hist_png(path, title, "AF = largest peak / base variant's peak of the first column", n, x, bins), "af_histogram.png", files, nfiles);
    }
out:
    free(x), free(y);
    return oom;
}

/* What a rank sends rank 0 of each of its variants once they have run. */
typedef struct st_done {
    st_res r;
    long n, nf; /* steps taken, frequency points */
    long newton, jacobians, aft_evals, npoints; /* hbm */
    double updates, hwall;
    int status, oom;
    char err[1024];
} st_done;

/* the ranks, every variant (this rank's block [v0, v1) run, its results in R) -> on rank 0, every
 * variant's results in R and its status, steps, error and (with plots of frequency responses) its
 * frequency points in V; 0, or -1 out of memory (on any rank: every rank returns it) */
int br_study_gather_variants(const br_ranks *RK, const st_study *S, st_var *V, st_res *R, long v0, long v1)
{
    if (RK->size == 1) return 0; /* one rank: every variant is here */
    const long nv = S->nvar, nl = v1 - v0;
    /* this rank's variants first in D (rank 0's block starts at variant 0), then on rank 0 the others' */
    st_done *D = calloc((size_t)(RK->rank == 0 ? nv : nl) + 1, sizeof *D);
    int bad = !D;
    if (br_ranks_max(RK, bad)) return free(D), -1;
    for (long v = v0; v < v1; v++) {
        st_done *o = &D[v - v0];
        o->r = R[v], o->n = V[v].n, o->nf = V[v].nf, o->status = V[v].status, o->oom = V[v].oom;
        o->newton = V[v].newton, o->jacobians = V[v].jacobians, o->aft_evals = V[v].aft_evals, o->npoints = V[v].npoints;
        o->updates = V[v].updates, o->hwall = V[v].hwall;
        memcpy(o->err, V[v].err, sizeof o->err);
    }
    br_ranks_gather_bytes(RK, D, (size_t)nl * sizeof *D, RK->rank == 0 ? D : NULL);
    const int w = br_study_frec(S);
    if (RK->rank == 0)
        for (long v = v1; v < nv; v++) {
            R[v] = D[v].r, V[v].n = D[v].n, V[v].nf = D[v].nf, V[v].status = D[v].status, V[v].oom = D[v].oom;
            V[v].newton = D[v].newton, V[v].jacobians = D[v].jacobians, V[v].aft_evals = D[v].aft_evals;
            V[v].npoints = D[v].npoints, V[v].updates = D[v].updates, V[v].hwall = D[v].hwall;
            memcpy(V[v].err, D[v].err, sizeof V[v].err);
        }
    free(D);
    /* the frequency points, for the plots of every variant's response */
    if (!(S->plots && S->analysis != AN_TIME)) return 0;
    size_t own = 0, all = 0;
    for (long v = v0; v < v1; v++) own += (size_t)V[v].nf * w;
    for (long v = 0; RK->rank == 0 && v < nv; v++) all += (size_t)V[v].nf * w;
    double *send = malloc((own ? own : 1) * sizeof(double)), *recv = RK->rank == 0 ? malloc((all ? all : 1) * sizeof(double)) : NULL;
    bad = !send || (RK->rank == 0 && !recv);
    for (long v = v1; RK->rank == 0 && v < nv && !bad; v++) {
        free(V[v].f);
        V[v].f = V[v].nf ? malloc((size_t)V[v].nf * w * sizeof(double)) : NULL;
        bad |= V[v].nf && !V[v].f;
    }
    if (br_ranks_max(RK, bad)) return free(send), free(recv), -1;
    size_t k = 0;
    for (long v = v0; v < v1; v++)
        if (V[v].nf) memcpy(send + k, V[v].f, (size_t)V[v].nf * w * sizeof(double)), k += (size_t)V[v].nf * w;
    br_ranks_gather_bytes(RK, send, own * sizeof(double), recv);
    k = 0;
    for (long v = 0; RK->rank == 0 && v < nv; v++) {
        if (v >= v1 && V[v].nf) memcpy(V[v].f, recv + k, (size_t)V[v].nf * w * sizeof(double));
        k += (size_t)V[v].nf * w;
    }
    free(send), free(recv);
    return 0;
}
