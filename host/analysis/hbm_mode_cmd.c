/* hbm_mode_cmd.c: `bristle hbm --mode K` (in: the solver, the model, the options; out: the output folder's
 * backbone.csv, ringdown.csv, the plots, the stick/slip snapshots and summary.json). docs/hbm.md, "Nonlinear
 * modes". */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/hbm_internal.h"
#include "base/outdir.h"
#include "io/output.h"
#include "io/plot.h"

/* the backbone (bb) and the ring-downs' rows (nr of them) -> backbone_frequency.png, backbone_damping.png: the
 * backbone against the modal amplitude (log x), each ring-down's windows as markers */
static void mode_plots(const char *stage, const hb *h, long mode, const br_hbm_bb *bb, const double *rd, long nr)
{
    const int width = BR_HBM_MODE_LEAD + br_hbm_row_width(h);
    const long np = bb->n;
    double *v = malloc((size_t)2 * (np + nr + 1) * sizeof(double));
    if (!v) return;
    double *x = v, *xr = v + np;
    for (long p = 0; p < np; p++) x[p] = bb->rows[p * width];
    for (long r = 0; r < nr; r++) xr[r] = rd[r * BR_HBM_RD_WIDTH + 3];
    double *y = v + np + nr;
    for (int k = 0; k < 2; k++) {
        for (long p = 0; p < np; p++) y[p] = bb->rows[p * width + (k ? 1 : BR_HBM_MODE_LEAD)];
        for (long r = 0; r < nr; r++) y[np + r] = rd[r * BR_HBM_RD_WIDTH + (k ? 4 : 5)];
        const br_series sr[2] = {{k ? "damping ratio" : "frequency", np, x, y, 0, 0, 1},
                                 {"ring-down (time integration)", nr, xr, y + np, 1, 0, 1}};
        char title[300], path[1200];
        snprintf(title, sizeof title, "%s: mode %ld, %s by harmonic balance (H = %d)", h->s.m->name, mode,
                 k ? "damping ratio" : "frequency", h->H);
        snprintf(path, sizeof path, "%s/backbone_%s.png", stage, k ? "damping" : "frequency");
        br_plot_series_png(path, title, "modal amplitude sqrt(Q1^H M Q1) [m kg^0.5]", k ? "damping ratio" : "frequency [Hz]",
                           BR_PLOT_LOGX, sr, nr > 0 ? 2 : 1);
    }
    free(v);
}

/* bb, amplitude a -> the point nearest it (the stop landed on, or where the backbone gave it up, within a fifth), or -1 */
static long point_at_amplitude(const hb *h, const br_hbm_bb *bb, double a)
{
    const int width = BR_HBM_MODE_LEAD + br_hbm_row_width(h);
    long best = -1;
    for (long p = 0; p < bb->n; p++)
        if (best < 0 || fabs(log(bb->rows[p * width] / a)) < fabs(log(bb->rows[best * width] / a))) best = p;
    return best >= 0 && fabs(log(bb->rows[best * width] / a)) <= log(1.2) ? best : -1;
}

int br_hb_mode_main(hb *h, br_model *m, const hb_mode_opts *o)
{
    char dir[1024], stage[1100], err[2048] = "", warning[1024] = "", path[1200];
    if (h->ncol == 0) { /* (the summary's and the ring-down's column: without --column, every body's; a model has none) */
        fprintf(stderr, "bristle hbm: %s: --mode: no column to report (the model has no bodies: name one, --column "
                        "STRUCTURE.LABEL.x)\n", o->scen);
        return 2;
    }
    if (o->out) snprintf(dir, sizeof dir, "%s", o->out);
    else snprintf(dir, sizeof dir, "runs/%s-hbm", h->s.m->name);
    if (br_stage_begin(dir, 0, stage, sizeof stage, err, sizeof err)) {
        fprintf(stderr, "bristle hbm: %s\n", err);
        return 1;
    }
    const double t0 = br_wall_seconds();
    double stops[2 * HB_MAXLEV];
    int nstops = 0;
    for (int k = 0; k < o->nring; k++) stops[nstops++] = o->ring[k];
    for (int k = 0; k < o->nsnap; k++) stops[nstops++] = o->snap[k];
    br_hbm_bb bb;
    const int rc = br_hbm_backbone(h, (int)o->mode, o->a0, o->a1, (int)o->points, stops, nstops, isatty(2) && !o->quiet, &bb,
                                   warning, sizeof warning, err, sizeof err);
    if (rc == -4) { /* a model the nonlinear mode does not take: nothing written */
        fprintf(stderr, "bristle hbm: %s: %s\n", o->scen, err);
        br_rm_tree(stage);
        return 2;
    }
    const double wall_bb = br_wall_seconds() - t0;
    int failed = rc == -1 || rc == -2, wrc = 0;
    const int width = BR_HBM_MODE_LEAD + br_hbm_row_width(h);
    if (failed) fprintf(stderr, "bristle hbm: %s\n", *err ? err : "no convergence");
    snprintf(path, sizeof path, "%s/backbone.csv", stage);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fprintf(fp, "amplitude,damping_ratio,xi,");
        br_hb_header_names(h, fp, NULL);
        fprintf(fp, "\n");
        for (long p = 0; p < bb.n; p++) br_output_csv_row(bb.rows + p * width, width, fp);
    }
    if (!fp || fclose(fp)) wrc = -1;
    /* the ring-downs from their amplitudes, then the snapshots' runs (one period each) */
    const long per = o->ring_periods;
    double *rd = o->nring ? malloc((size_t)o->nring * (size_t)(per - 2) * BR_HBM_RD_WIDTH * sizeof(double)) : NULL;
    double worst[HB_MAXLEV][3];
    for (int k = 0; k < HB_MAXLEV; k++) worst[k][0] = worst[k][1] = worst[k][2] = NAN;
    long nr = 0;
    if (o->nring && !rd) fprintf(stderr, "bristle hbm: out of memory for the ring-downs\n"), failed = 1;
    for (int k = 0; k < o->nring && !failed; k++) {
        const long p = point_at_amplitude(h, &bb, o->ring[k]);
        if (p < 0) {
            snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sno ring-down from %g: the backbone did not "
                     "reach it", *warning ? "; " : "", o->ring[k]);
            continue;
        }
        if (!o->quiet && isatty(2)) fprintf(stderr, "hbm: ring-down from amplitude %g, %ld periods\n", o->ring[k], per);
        double *r = rd + nr * BR_HBM_RD_WIDTH;
        if (br_hbm_ringdown(h, m, &bb, p, (int)per, NULL, r, err, sizeof err)) {
            failed = 1;
            fprintf(stderr, "bristle hbm: %s\n", err);
            break;
        }
        /* against the backbone where it reaches: the frequency relative; the damping ratio relative where the backbone's
         * is 1e-6 or more (a stuck friction oscillator's is 0), absolute everywhere */
        worst[k][0] = worst[k][1] = worst[k][2] = NAN; /* (fmax ignores NaN: NaN where no window compared) */
        for (long q = 0; q < per - 2; q++) {
            const double *w = r + q * BR_HBM_RD_WIDTH;
            if (isfinite(w[8])) worst[k][0] = fmax(worst[k][0], fabs(w[5] / w[8] - 1.0));
            if (isfinite(w[7]) && fabs(w[7]) >= 1e-6) worst[k][1] = fmax(worst[k][1], fabs(w[4] / w[7] - 1.0));
            if (isfinite(w[7])) worst[k][2] = fmax(worst[k][2], fabs(w[4] - w[7]));
        }
        nr += per - 2;
    }
    if (o->nring && !failed) {
        snprintf(path, sizeof path, "%s/ringdown.csv", stage);
        fp = fopen(path, "w");
        if (fp) {
            fprintf(fp, "start_amplitude,window,t,amplitude,damping_ratio,f_Hz,%s.h1,backbone_damping_ratio,backbone_f_Hz\n",
                    h->col[0].name);
            for (long q = 0; q < nr; q++) br_output_csv_row(rd + q * BR_HBM_RD_WIDTH, BR_HBM_RD_WIDTH, fp);
        }
        if (!fp || fclose(fp)) wrc = -1;
    }
    int nsnapped = 0;
    for (int k = 0; k < o->nsnap && !failed; k++) {
        const long p = point_at_amplitude(h, &bb, o->snap[k]);
        if (p < 0) {
            snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sno snapshots at %g: the backbone did not "
                     "reach it", *warning ? "; " : "", o->snap[k]);
            continue;
        }
        char sd[1200], fd[1300];
        snprintf(sd, sizeof sd, "%s/snapshots/a%d", stage, k), snprintf(fd, sizeof fd, "%s/fields", sd);
        if (br_mkdir_p(fd) || br_hbm_ringdown(h, m, &bb, p, 1, sd, NULL, err, sizeof err)) {
            failed = 1;
            fprintf(stderr, "bristle hbm: %s\n", *err ? err : "cannot make the snapshots' folder");
            break;
        }
        nsnapped++;
    }
    if (bb.n > 0) mode_plots(stage, h, o->mode, &bb, rd, nr);
    const double wall = br_wall_seconds() - t0;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scenario", h->s.m->name);
    cJSON_AddStringToObject(j, "analysis", "nonlinear mode by the extended periodic motion concept (harmonic balance)");
    cJSON_AddStringToObject(j, "status", failed ? "failed" : rc == -3 ? "stopped" : "complete");
    if (*warning) cJSON_AddStringToObject(j, "warning", warning);
    br_json_number(j, "mode", (double)o->mode);
    cJSON_AddStringToObject(j, "amplitude", "modal: the first harmonic's mass-weighted norm sqrt(Q1^H M Q1) [m kg^0.5]");
    br_json_number(j, "amplitude_from", o->a0);
    br_json_number(j, "amplitude_to", o->a1);
    br_json_number(j, "linearized_frequency_Hz", bb.f_lin);
    cJSON *sm = cJSON_AddArrayToObject(j, "split_modes"); /* the structure's modes (1-based) harmonic 1 was split along */
    for (int q = 0; q < bb.ns; q++) cJSON_AddItemToArray(sm, cJSON_CreateNumber(bb.split[q] + 1));
    br_json_number(j, "harmonics", (double)h->H);
    br_json_number(j, "samples", (double)h->N);
    br_json_number(j, "unknowns", (double)bb.nz);
    br_json_number(j, "points", (double)bb.n);
    br_json_number(j, "newton_iterations", (double)h->newton);
    br_json_number(j, "jacobians", (double)h->jacobians);
    br_json_number(j, "aft_periods", (double)h->aft.periods);
    br_json_number(j, "krylov_products", (double)br_hbm_krylov_products(h));
    br_json_number(j, "backbone_wall_s", wall_bb);
    cJSON *ts = cJSON_AddObjectToObject(j, "backbone_time_split_s"); /* where the backbone's wall time went */
    br_json_number(ts, "jacobians", h->wall_jac);
    br_json_number(ts, "residuals", h->wall_res);
    br_json_number(ts, "linear_solves", h->wall_lin);
    br_json_number(j, "aft_capped", (double)h->aft.capped);
    br_json_number(j, "aft_accelerated_periods", (double)h->aft.accelerated);
    if (o->nring) {
        cJSON *ra = cJSON_AddArrayToObject(j, "ringdowns");
        for (int k = 0; k < o->nring && !failed; k++) {
            cJSON *e = cJSON_CreateObject();
            br_json_number(e, "from_amplitude", o->ring[k]);
            br_json_number(e, "periods", (double)per);
            br_json_number(e, "largest_frequency_difference", worst[k][0]);
            br_json_number(e, "largest_damping_difference", worst[k][1]);
            br_json_number(e, "largest_damping_difference_absolute", worst[k][2]);
            cJSON_AddItemToArray(ra, e);
        }
    }
    if (nsnapped) br_json_number(j, "snapshot_amplitudes", (double)nsnapped);
    br_json_number(j, "wall_s", wall);
    char *txt = cJSON_Print(j);
    snprintf(path, sizeof path, "%s/summary.json", stage);
    fp = fopen(path, "w");
    if (!fp || !txt || fprintf(fp, "%s\n", txt) < 0) wrc = -1;
    if (fp && fclose(fp)) wrc = -1;
    free(txt), cJSON_Delete(j);
    if (!failed && wrc == 0 && br_stage_publish(stage, dir, err, sizeof err)) {
        fprintf(stderr, "bristle hbm: %s\n", err);
        wrc = -1;
    }
    if (!o->quiet && !failed && bb.n > 0) {
        const double *r0 = bb.rows, *r1 = bb.rows + (bb.n - 1) * width;
        printf("bristle hbm: mode %ld (linearized %.6g Hz): %ld modal amplitudes from %g to %g in %.3g s, %.6g to %.6g Hz, damping "
               "ratio %.4g to %.4g, %s's first harmonic %.4g to %.4g%s%s -> %s\n",
               o->mode, bb.f_lin, bb.n, r0[0], r1[0], wall_bb, r0[BR_HBM_MODE_LEAD], r1[BR_HBM_MODE_LEAD], r0[1], r1[1],
               h->col[0].name, r0[BR_HBM_MODE_LEAD + 3], r1[BR_HBM_MODE_LEAD + 3], *warning ? "; " : "", warning, dir);
        for (int k = 0; k < o->nring; k++)
            printf("  ring-down from %g: %ld periods, against the backbone: frequency within %.3g, damping ratio within %.3g "
                   "(%.3g absolute)\n", o->ring[k], per, worst[k][0], worst[k][1], worst[k][2]);
    }
    free(rd);
    br_hbm_bb_free(&bb);
    return failed || wrc ? 1 : 0;
}
