/* hbm_cmd.c: `bristle hbm SCENARIO` (in: its arguments; out: frf.csv, one PNG per column,
 * summary.json in the output folder, exit status 0, 1 or 2): options, the curve or curves, the
 * checks asked for, the files. */

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/hbm_internal.h"
#include "base/outdir.h"
#include "base/parse.h"
#include "base/textfile.h"
#include "io/output.h"
#include "io/plot.h"
#include "io/scenario.h"

/* ---- the command ---- */

static int usage(FILE *o)
{
    fprintf(o, "usage: bristle hbm SCENARIO.yaml --from F0 --to F1 [--harmonics H] [--samples N] [--points P]\n"
               "                  [--column BODY.x]... [--levels L,...] [--out DIR] [--set KEY=VALUE]... [--quiet]\n"
               "       bristle hbm SCENARIO.yaml --at F --level-from L0 --level-to L1 [options as above]\n"
               "  the periodic steady state under the scenario's harmonic loads, driven at the base frequency,\n"
               "  followed by pseudo-arclength continuation from F0 to F1 [Hz] (through turning points), or at the\n"
               "  frequency F in the excitation level from L0 to L1 (every harmonic load times the level)\n"
               "  --harmonics H  harmonics 0..H of every DOF (default 7)\n"
               "  --samples N    AFT samples a period (default 16 H, at least 2 H + 1)\n"
               "  --points P     steps of at most 2 (F1 - F0) / P in frequency: at least P / 2 points, more where the\n"
               "                 curve bends (default 100)\n"
               "  --periods-max  periods the contact states may take to repeat (default 200)\n"
               "  --tol T        Newton stops at a residual of T times the largest harmonic (default 1e-8); the\n"
               "                 AFT marches until a period's force harmonics repeat within T / 10\n"
               "  --column C     a body's displacement to report, BODY.x|y|z (default: every body's)\n"
               "  --levels L,... one curve per excitation level: every harmonic load times L (up to 32 levels)\n"
               "  --check P      integrate the model in time for P periods from the periodic state where the first\n"
               "                 column peaks, and compare its first harmonic (summary.json's check_by_run)\n"
               "  --stability    every point's Floquet multipliers: the monodromy matrix of one period of the run's\n"
               "                 time integration by finite differences (frf.csv's floquet_max and stable columns)\n"
               "  --linear-solver auto|dense|krylov\n"
               "                 Newton's linear solves: LU of the Newton matrix, or GMRES on its products (deforming\n"
               "                 interfaces only; docs/hbm.md); auto: GMRES from 1000 unknowns (default auto)\n"
               "  --mode K --amplitude-from A0 --amplitude-to A1\n"
               "                 the K-th nonlinear mode's backbone instead (extended periodic motion concept: the harmonic\n"
               "                 loads off, a negative damping xi M making the damped mode periodic): from the K-th mode of\n"
               "                 the contacts linearized about the static state, at --points modal amplitudes (log-spaced;\n"
               "                 the first harmonic's mass-weighted norm sqrt(Q1^H M Q1) [m kg^0.5]); writes backbone.csv\n"
               "                 (amplitude, damping_ratio, xi, then frf.csv's columns), backbone_frequency.png,\n"
               "                 backbone_damping.png, summary.json\n"
               "  --ringdown A,... [--ringdown-periods P]\n"
               "                 with --mode: from each amplitude A the model released from the backbone's state and\n"
               "                 integrated in time for P periods (default 12) without the negative damping; per period\n"
               "                 its amplitude, frequency and damping ratio beside the backbone's (ringdown.csv, markers\n"
               "                 on the plots)\n"
               "  --snapshots A,...\n"
               "                 with --mode: the meshed sets' and faced interfaces' stick/slip snapshots at 8 phases of a\n"
               "                 period from each amplitude A (snapshots/a<k>/fields/, as a run writes them)\n"
               "  --out DIR      output folder (default runs/<scenario name>-hbm)\n"
               "  writes frf.csv (per point: [level,] frequency, each column's harmonic amplitudes, peak-to-peak and\n"
               "  first harmonic's phase, each contact set's friction energy per cycle and fewest points in contact),\n"
               "  frf_<column>.png, summary.json\n");
    return o == stderr ? 2 : 0;
}

typedef struct hb_opts {
    const char *scen, *out, *sets[256], *cols[HB_MAXCOL];
    int nsets, ncols, quiet;
    long H, N, points, maxper;
    double f0, f1, tol;
    int have_f0, have_f1;
    double levels[HB_MAXLEV]; /* --levels: factors on the harmonic loads, one curve each */
    int nlev;
    double at, l0, l1;        /* --at F --level-from L0 --level-to L1: continuation in the level at F */
    int have_at, have_l0, have_l1;
    long check;               /* --check P: the first column's peak integrated in time over P periods */
    int stability;            /* --stability: every point's Floquet multipliers */
    int solver;               /* --linear-solver: BR_HBM_SOLVER_* */
    long mode;                /* --mode K: the K-th nonlinear mode's backbone (0: a forced response) */
    double a0, a1;            /* --amplitude-from A0 --amplitude-to A1 */
    int have_a0, have_a1;
    double ring[HB_MAXLEV], snap[HB_MAXLEV]; /* --ringdown A,...; --snapshots A,... */
    int nring, nsnap;
    long ring_periods;        /* --ringdown-periods P (have_rp: given) */
    int have_rp;
} hb_opts;

/* option, its value, what it is -> *v a positive finite number; 0, or -1 with the message printed */
static int positive(const char *opt, const char *val, const char *what, double *v)
{
    if (br_parse_double(val, -1e300, 1e300, v) || !(*v > 0) || !isfinite(*v)) {
        fprintf(stderr, "bristle hbm: %s must be a positive %s, got '%s'\n", opt, what, val);
        return -1;
    }
    return 0;
}

/* option, its value: up to HB_MAXLEV positive numbers separated by commas, what they are -> v, *n; 0, or -1 with the
 * message printed */
static int positive_list(const char *opt, const char *val, const char *what, double *v, int *n)
{
    const char *q = val;
    *n = 0;
    for (;;) {
        char *e;
        const double x = strtod(q, &e);
        if (e == q || !(x > 0) || !isfinite(x) || *n == HB_MAXLEV || (*e && *e != ',')) {
            fprintf(stderr, "bristle hbm: %s takes up to %d positive %s separated by commas, got '%s'\n", opt, HB_MAXLEV, what, val);
            return -1;
        }
        v[(*n)++] = x;
        if (!*e) return 0;
        q = e + 1;
    }
}

/* argv -> options; 0, or 2 (bad input, message printed) or 1 (help printed) */
static int parse_args(int argc, char **argv, hb_opts *o)
{
    memset(o, 0, sizeof *o);
    o->H = 7, o->N = -1, o->points = 100, o->maxper = 200, o->tol = 1e-8, o->ring_periods = 12;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 1;
        if (!strcmp(a, "--quiet") || !strcmp(a, "--stability")) {
            if (a[2] == 'q') o->quiet = 1;
            else o->stability = 1;
            continue;
        }
        if (a[0] == '-' && i + 1 >= argc) {
            fprintf(stderr, "bristle hbm: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--harmonics")) {
            if (br_parse_long(argv[++i], 1, 64, &o->H)) {
                fprintf(stderr, "bristle hbm: --harmonics must be a whole number from 1 to 64, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--samples")) {
            if (br_parse_long(argv[++i], 1, 1L << 24, &o->N)) {
                fprintf(stderr, "bristle hbm: --samples must be a whole number up to 2^24, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--points")) {
            if (br_arg_long("hbm", "--points", argv[++i], 2, 100000, &o->points)) return 2;
        } else if (!strcmp(a, "--tol")) {
            if (br_arg_double("hbm", "--tol", argv[++i], 1e-14, 1e-2, &o->tol)) return 2;
        } else if (!strcmp(a, "--periods-max")) {
            if (br_arg_long("hbm", "--periods-max", argv[++i], 2, 1000000, &o->maxper)) return 2;
        } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
            double v;
            if (positive(a, argv[++i], "frequency [Hz]", &v)) return 2;
            if (a[2] == 'f') o->f0 = v, o->have_f0 = 1;
            else o->f1 = v, o->have_f1 = 1;
        } else if (!strcmp(a, "--at") || !strcmp(a, "--level-from") || !strcmp(a, "--level-to")) {
            double v;
            if (positive(a, argv[++i], a[2] == 'a' ? "frequency [Hz]" : "level", &v)) return 2;
            if (a[2] == 'a') o->at = v, o->have_at = 1;
            else if (a[8] == 'f') o->l0 = v, o->have_l0 = 1;
            else o->l1 = v, o->have_l1 = 1;
        } else if (!strcmp(a, "--mode")) {
            if (br_arg_long("hbm", "--mode", argv[++i], 1, 1000, &o->mode)) return 2;
        } else if (!strcmp(a, "--amplitude-from") || !strcmp(a, "--amplitude-to")) {
            double v;
            if (positive(a, argv[++i], "amplitude [m]", &v)) return 2;
            if (a[12] == 'f') o->a0 = v, o->have_a0 = 1;
            else o->a1 = v, o->have_a1 = 1;
        } else if (!strcmp(a, "--check")) {
            if (br_arg_long("hbm", "--check", argv[++i], 2, 100000, &o->check)) return 2;
        } else if (!strcmp(a, "--column")) {
            if (o->ncols == HB_MAXCOL) {
                fprintf(stderr, "bristle hbm: at most %d columns\n", HB_MAXCOL);
                return 2;
            }
            o->cols[o->ncols++] = argv[++i];
        } else if (!strcmp(a, "--levels")) {
            if (positive_list(a, argv[++i], "factors", o->levels, &o->nlev)) return 2;
        } else if (!strcmp(a, "--ringdown")) {
            if (positive_list(a, argv[++i], "amplitudes", o->ring, &o->nring)) return 2;
        } else if (!strcmp(a, "--snapshots")) {
            if (positive_list(a, argv[++i], "amplitudes", o->snap, &o->nsnap)) return 2;
        } else if (!strcmp(a, "--ringdown-periods")) {
            if (br_arg_long("hbm", "--ringdown-periods", argv[++i], 3, 100000, &o->ring_periods)) return 2;
            o->have_rp = 1;
        } else if (!strcmp(a, "--out")) o->out = argv[++i];
        else if (!strcmp(a, "--linear-solver")) {
            const char *v = argv[++i];
            if (!strcmp(v, "auto")) o->solver = BR_HBM_SOLVER_AUTO;
            else if (!strcmp(v, "dense")) o->solver = BR_HBM_SOLVER_DENSE;
            else if (!strcmp(v, "krylov")) o->solver = BR_HBM_SOLVER_KRYLOV;
            else {
                fprintf(stderr, "bristle hbm: --linear-solver must be auto, dense or krylov, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--set")) {
            if (o->nsets == 256) {
                fprintf(stderr, "bristle hbm: at most 256 --set\n");
                return 2;
            }
            o->sets[o->nsets++] = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "bristle hbm: unknown option '%s'\n", a);
            return usage(stderr);
        } else if (o->scen) {
            fprintf(stderr, "bristle hbm: one scenario at a time (got '%s' and '%s')\n", o->scen, a);
            return 2;
        } else o->scen = a;
    }
    if (!o->scen) return usage(stderr);
    if (o->have_rp && !o->nring) {
        fprintf(stderr, "bristle hbm: --ringdown-periods goes with --ringdown A,...\n");
        return 2;
    }
    if ((o->nring || o->nsnap) && !o->mode) {
        fprintf(stderr, "bristle hbm: --ringdown and --snapshots go with a backbone (--mode K)\n");
        return 2;
    }
    if (o->mode || o->have_a0 || o->have_a1) { /* a backbone */
        if (!o->mode || !o->have_a0 || !o->have_a1 || o->have_f0 || o->have_f1 || o->have_at || o->have_l0 || o->have_l1 ||
            o->nlev || o->check || o->stability) {
            fprintf(stderr, "bristle hbm: a backbone takes --mode K --amplitude-from A0 --amplitude-to A1 (and no --from, --to, "
                            "--at, --levels, --check or --stability)\n");
            return 2;
        }
        const double lo = fmin(o->a0, o->a1), hi = fmax(o->a0, o->a1);
        for (int k = 0; k < o->nring + o->nsnap; k++) {
            const double a = k < o->nring ? o->ring[k] : o->snap[k - o->nring];
            if (a < lo * (1 - 1e-12) || a > hi * (1 + 1e-12)) {
                fprintf(stderr, "bristle hbm: %s %g is outside the backbone's amplitudes %g to %g\n",
                        k < o->nring ? "--ringdown" : "--snapshots", a, o->a0, o->a1);
                return 2;
            }
        }
        if (o->a0 == o->a1) {
            fprintf(stderr, "bristle hbm: --amplitude-from and --amplitude-to are the same amplitude (%g)\n", o->a0);
            return 2;
        }
        o->have_f0 = o->have_f1 = 1, o->f0 = 1.0, o->f1 = 2.0; /* unused */
    }
    if ((o->check || o->stability) && (o->have_at || o->nlev)) {
        fprintf(stderr, "bristle hbm: %s takes a curve in frequency at the scenario's load (no --at or --levels; set the load "
                        "with --set)\n", o->check ? "--check" : "--stability");
        return 2;
    }
    if (o->have_at || o->have_l0 || o->have_l1) { /* continuation in the level */
        if (!o->have_at || !o->have_l0 || !o->have_l1 || o->have_f0 || o->have_f1 || o->nlev) {
            fprintf(stderr, "bristle hbm: a curve in the level takes --at F --level-from L0 --level-to L1 (and no --from, --to "
                            "or --levels)\n");
            return 2;
        }
        if (o->l0 == o->l1) {
            fprintf(stderr, "bristle hbm: --level-from and --level-to are the same level (%g)\n", o->l0);
            return 2;
        }
        o->f0 = o->f1 = o->at;
    } else if (!o->have_f0 || !o->have_f1) {
        fprintf(stderr, "bristle hbm: give the frequency range, --from F0 --to F1 [Hz]\n");
        return 2;
    }
    if (o->f0 == o->f1 && !o->have_at) {
        fprintf(stderr, "bristle hbm: --from and --to are the same frequency (%g Hz)\n", o->f0);
        return 2;
    }
    if (o->N < 0) o->N = 16 * o->H;
    if (o->N < 2 * o->H + 1) {
        fprintf(stderr, "bristle hbm: --samples %ld is too few for %ld harmonics: N >= 2 H + 1 = %ld\n", o->N, o->H,
                2 * o->H + 1);
        return 2;
    }
    return 0;
}

static const char *check_verdict(const double *chk) { return fabs(chk[4] / chk[2] - 1) <= 0.01 ? "stays" : "leaves"; }

static int write_summary(const char *path, const hb *h, const hb_opts *o, long npoint, const double *folds, int nfold,
                         double wall, const char *status, const char *warning, const double *chk, const double *mu,
                         double mu_wall, double defect)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scenario", h->s.m->name);
    cJSON_AddStringToObject(j, "analysis", o->have_at ? "harmonic balance, pseudo-arclength continuation in the excitation level"
                                                      : "harmonic balance, pseudo-arclength continuation in frequency");
    cJSON_AddStringToObject(j, "status", status);
    if (o->have_at) {
        br_json_number(j, "at_Hz", o->at);
        br_json_number(j, "level_from", o->l0);
        br_json_number(j, "level_to", o->l1);
    } else {
        br_json_number(j, "from_Hz", o->f0);
        br_json_number(j, "to_Hz", o->f1);
    }
    br_json_number(j, "harmonics", (double)h->H);
    br_json_number(j, "samples", (double)h->N);
    br_json_number(j, "dofs", (double)h->s.ndof);
    br_json_number(j, "nonlinear_dofs", (double)h->s.nnl);
    br_json_number(j, "unknowns", (double)h->nu);
    br_json_number(j, "points", (double)npoint);
    br_json_number(j, "newton_iterations", (double)h->newton);
    br_json_number(j, "jacobians", (double)h->jacobians);
    br_json_number(j, "broyden_updates", (double)h->broyden);
    cJSON_AddStringToObject(j, "linear_solver", h->kry ? "krylov" : "dense");
    br_json_number(j, "krylov_products", (double)br_hbm_krylov_products(h));
    br_json_number(j, "tangents_retaken", (double)h->turned_back);
    br_json_number(j, "aft_evaluations", (double)h->aft.evals);
    br_json_number(j, "aft_periods", (double)h->aft.periods);
    br_json_number(j, "aft_periods_max", (double)h->aft.max_periods_seen);
    br_json_number(j, "aft_capped", (double)h->aft.capped);
    br_json_number(j, "aft_extrapolated", (double)h->aft.extrapolated);
    br_json_number(j, "aft_period_tolerance", h->aft.ptol);
    br_json_number(j, "field_updates", h->aft.updates);
    br_json_number(j, "wall_seconds", wall);
    br_json_number(j, "field_updates_per_second", wall > 0 ? h->aft.updates / wall : 0.0);
    if (o->nlev > 0) {
        cJSON *lv = cJSON_AddArrayToObject(j, "levels");
        for (int k = 0; k < o->nlev; k++) cJSON_AddItemToArray(lv, cJSON_CreateNumber(o->levels[k]));
    }
    cJSON *f = cJSON_AddArrayToObject(j, o->have_at ? "turning_points_level" : "turning_points_Hz");
    for (int k = 0; k < nfold; k++) cJSON_AddItemToArray(f, cJSON_CreateNumber(folds[k]));
    if (chk) { /* --check: f, periods, harmonic balance's h1, the run's over its first and last period */
        cJSON *c = cJSON_AddObjectToObject(j, "check_by_run");
        cJSON_AddStringToObject(c, "column", h->col[0].name);
        br_json_number(c, "f_Hz", chk[0]);
        br_json_number(c, "periods", chk[1]);
        br_json_number(c, "hbm_h1", chk[2]);
        br_json_number(c, "run_h1_first_period", chk[3]);
        br_json_number(c, "run_h1_last_period", chk[4]);
        cJSON_AddStringToObject(c, "verdict", check_verdict(chk));
    }
    if (mu) { /* --stability */
        cJSON *c = cJSON_AddObjectToObject(j, "stability");
        cJSON_AddStringToObject(c, "method", "Floquet multipliers: monodromy matrix of one period of the run's time integration, "
                                             "forward differences in every DOF's displacement and velocity and every contact state");
        br_json_number(c, "states", (double)br_hb_floq_dim(h));
        br_json_number(c, "threshold", 1.0 + HB_FLOQ_TOL);
        long nun = 0, nfail = 0;
        for (long p = 0; p < npoint; p++) nun += mu[p] > 1.0 + HB_FLOQ_TOL, nfail += !(mu[p] >= 0.0);
        br_json_number(c, "unstable_points", (double)nun);
        br_json_number(c, "failed_points", (double)nfail);
        br_json_number(c, "wall_seconds", mu_wall);
        br_json_number(c, "periodicity_defect_max", defect);
    }
    cJSON *wa = cJSON_AddArrayToObject(j, "warnings");
    if (warning && *warning) cJSON_AddItemToArray(wa, cJSON_CreateString(warning));
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    FILE *fp = text ? fopen(path, "w") : NULL;
    int rc = fp && fputs(text, fp) >= 0 ? 0 : -1;
    if (fp && fclose(fp)) rc = -1;
    free(text);
    return rc;
}

/* the curve's rows (ncolumns wide; with levels a leading level column), the levels (NULL: one curve) and where
 * each level's rows start (lstart[nlev] the end) -> one PNG per column: half its peak-to-peak against frequency,
 * with levels one curve each, per unit level */
static void plots(const char *dir, const hb *h, const double *rows, int width, const double *levels, int nlev,
                  const long *lstart, const double *mu)
{
    const int lc = levels != NULL;
    const long np = lstart[nlev];
    double *x = malloc((size_t)(np + 1) * sizeof(double)), *y = malloc((size_t)(2 * np + 1) * sizeof(double));
    br_series sr[HB_MAXLEV + 1];
    char names[HB_MAXLEV][48];
    for (int k = 0; x && y && k < h->ncol; k++) {
        const int c = lc + 2 + k * (h->H + 3) + h->H + 1;
        for (int lv = 0; lv < nlev; lv++) {
            const double scale = lc ? 1.0 / levels[lv] : 1.0;
            for (long p = lstart[lv]; p < lstart[lv + 1]; p++) x[p] = rows[p * width + lc], y[p] = 0.5 * rows[p * width + c] * scale;
            if (lc) snprintf(names[lv], sizeof names[lv], "level %g", levels[lv]);
            else snprintf(names[lv], sizeof names[lv], "%.40s", h->col[k].name);
            sr[lv] = (br_series){names[lv], lstart[lv + 1] - lstart[lv], x + lstart[lv], y + lstart[lv], lc ? lv % 8 : 0, 0, 0};
        }
        int ns = nlev;
        if (mu && !lc) { /* --stability: the unstable points, circles over the curve */
            for (long p = 0; p < np; p++) y[np + p] = mu[p] > 1.0 + HB_FLOQ_TOL ? y[p] : NAN;
            sr[ns++] = (br_series){"unstable (Floquet)", np, x, y + np, 1, 0, 1};
        }
        char path[1200], title[200];
        snprintf(path, sizeof path, "%s/frf_%s.png", dir, h->col[k].name);
        snprintf(title, sizeof title, "%s: %s by harmonic balance (H = %d)", h->s.m->name, h->col[k].name, h->H);
        br_plot_series_png(path, title, "frequency [Hz]", lc ? "half peak-to-peak per unit level [m]" : "half peak-to-peak [m]",
                           0, sr, ns);
    }
    free(x), free(y);
}

/* a curve in the level (rows with the level leading), the frequency and range -> one PNG per column: half its
 * peak-to-peak against the level (log axes over a decade or more of levels) */
static void plots_level(const char *dir, const hb *h, const double *rows, int width, long np, double f, double l0, double l1)
{
    double *x = malloc((size_t)np * sizeof(double)), *y = malloc((size_t)np * sizeof(double));
    for (int k = 0; x && y && k < h->ncol; k++) {
        const int c = 1 + 2 + k * (h->H + 3) + h->H + 1;
        for (long p = 0; p < np; p++) x[p] = rows[p * width], y[p] = 0.5 * rows[p * width + c];
        const br_series sr = {h->col[k].name, np, x, y, 0, 0, 0};
        char path[1200], title[200];
        snprintf(path, sizeof path, "%s/frf_%s.png", dir, h->col[k].name);
        snprintf(title, sizeof title, "%s: %s at %g Hz by harmonic balance (H = %d)", h->s.m->name, h->col[k].name, f, h->H);
        const double r = l1 > l0 ? l1 / l0 : l0 / l1;
        br_plot_series_png(path, title, "excitation level (times the scenario's harmonic loads)", "half peak-to-peak [m]",
                           r >= 10 ? BR_PLOT_LOGX | BR_PLOT_LOGY : 0, &sr, 1);
    }
    free(x), free(y);
}

int br_hbm_main(int argc, char **argv)
{
    hb_opts o;
    const int prc = parse_args(argc, argv, &o);
    if (prc) return prc == 1 ? 0 : 2;
    char err[2048];
    size_t len = 0;
    char *text = br_read_text(o.scen, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    br_model *m = br_scenario_load(o.scen, o.sets, o.nsets, err, sizeof err);
    int bad = 1;
    hb *hp = m ? br_hbm_create(m, text, len, (int)o.H, (int)o.N, (int)o.maxper, o.tol, o.ncols, o.cols, &bad, err,
                             sizeof err)
               : NULL;
    free(text);
    if (!hp) {
        fprintf(stderr, "%s\n", err);
        br_model_free(m);
        return bad ? 2 : 1;
    }
    hb *const h = hp;
    if (br_hbm_set_linear_solver(h, o.solver)) {
        fprintf(stderr, "bristle hbm: out of memory for the Newton matrix (%d unknowns): try --linear-solver krylov\n", h->nu);
        br_hbm_free(h);
        br_model_free(m);
        return 1;
    }
    if (o.mode) {
        hb_mode_opts mo = {o.scen, o.out, o.mode, o.points, o.ring_periods, o.a0, o.a1, {0}, {0}, o.nring, o.nsnap, o.quiet};
        memcpy(mo.ring, o.ring, sizeof o.ring), memcpy(mo.snap, o.snap, sizeof o.snap);
        const int mrc = br_hb_mode_main(h, m, &mo);
        br_hbm_free(h), br_model_free(m);
        return mrc;
    }
    /* with --levels (or a curve in the level) a leading column holds the level; the levels' curves follow one
     * another */
    const int lc = o.nlev > 0 || o.have_at, nlev = o.nlev > 0 ? o.nlev : 1;
    const int width = lc + br_hbm_row_width(h);
    long lstart[HB_MAXLEV + 1] = {0};
    br_hbm_rows rows = {.lead = lc, .keep = o.stability};
    if (o.stability && br_hb_floq_dim(h) > HB_FLOQ_MAX) {
        fprintf(stderr, "bristle hbm: --stability: the monodromy matrix would have %ld states (2 x %d DOFs and %ld contact "
                        "states), more than %d\n", br_hb_floq_dim(h), h->s.ndof, h->aft.nstate, HB_FLOQ_MAX);
        br_hbm_free(h), br_model_free(m);
        return 2;
    }
    char dir[1024], stage[1100];
    if (o.out) snprintf(dir, sizeof dir, "%s", o.out);
    else snprintf(dir, sizeof dir, "runs/%s-hbm", m->name);
    if (br_stage_begin(dir, 0, stage, sizeof stage, err, sizeof err)) {
        fprintf(stderr, "bristle hbm: %s\n", err);
        br_hbm_free(h), br_model_free(m);
        return 1;
    }
    const double t_start = br_wall_seconds();
    const int tty = isatty(2) && !o.quiet;
    int rc = 0;
    char warning[1024] = "";
    const char *status = "complete";
    if (o.have_at) {
        rc = br_hbm_curve_level(h, o.at, o.l0, o.l1, (int)o.points, tty, &rows, warning, sizeof warning, err, sizeof err);
        if (rc == -3) status = "stopped";
    }
    for (int lv = 0; lv < nlev && rc == 0 && !o.have_at; lv++) {
        const double level = o.nlev ? o.levels[lv] : 1.0;
        br_hbm_set_level(h, level);
        lstart[lv] = rows.n; /* each level's curve on its own, from the linear response at F0 */
        rc = br_hbm_curve(h, o.f0, o.f1, (int)o.points, level, tty, &rows, warning, sizeof warning, err, sizeof err);
        if (rc == -3) {
            status = "stopped";
            if (lc) snprintf(warning + strlen(warning), sizeof warning - strlen(warning), " (level %g; later levels not run)", level);
        }
    }
    br_hbm_set_level(h, 1.0);
    const long np = rows.n;
    lstart[nlev] = np;
    const double wall = br_wall_seconds() - t_start;
    const int failed = rc == -2 || rc == -1;
    if (failed) {
        fprintf(stderr, "bristle hbm: %s\n", *err ? err : "no convergence");
        status = "failed";
    }
    /* the AFT's counts as the curve left them: --stability and --check evaluate it again, outside wall */
    const br_hbm_aft cnt = h->aft;
    /* --stability: every point's largest Floquet multiplier (NaN where its computation failed) and periodicity
     * defect */
    double *mu = NULL, mu_wall = 0.0, defect = 0.0;
    if (o.stability && !failed && np > 0) {
        const double t_mu = br_wall_seconds();
        mu = malloc((size_t)np * sizeof(double));
        for (long p = 0; mu && p < np; p++) {
            const double *sv = rows.sol + p * (h->nu + 2);
            double fq[2];
            h->w = sv[0], h->lev = sv[1];
            memcpy(h->y, sv + 2, (size_t)h->nu * sizeof(double));
            if (tty) fprintf(stderr, "\rhbm: stability at %.6g Hz, point %ld of %ld   ", sv[0] / (2 * M_PI), p + 1, np);
            *err = 0;
            if (br_hb_floquet(h, m, fq, err, sizeof err)) {
                mu[p] = NAN;
                if (!strstr(warning, "Floquet"))
                    snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sno Floquet multipliers at %.9g Hz: %.400s",
                             *warning ? "; " : "", sv[0] / (2 * M_PI), err);
            } else mu[p] = fq[0], defect = fmax(defect, fq[1]);
        }
        if (tty) fprintf(stderr, "\n");
        if (!mu) snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sout of memory for --stability",
                          *warning ? "; " : "");
        mu_wall = br_wall_seconds() - t_mu;
    }
    /* frf.csv, the plots, the summary */
    char path[1200];
    snprintf(path, sizeof path, "%s/frf.csv", stage);
    FILE *fp = fopen(path, "w");
    double *line = malloc((size_t)(width + 2) * sizeof(double));
    if (fp && line) {
        br_hb_header_names(h, fp, lc ? "level" : NULL);
        fprintf(fp, "%s\n", mu ? ",floquet_max,stable" : "");
        for (long p = 0; p < np; p++) {
            memcpy(line, rows.v + p * width, (size_t)width * sizeof(double));
            if (mu) line[width] = mu[p], line[width + 1] = mu[p] >= 0 ? (double)(mu[p] <= 1.0 + HB_FLOQ_TOL) : NAN;
            br_output_csv_row(line, width + (mu ? 2 : 0), fp);
        }
    }
    int wrc = fp && line ? 0 : -1;
    if (fp && fclose(fp)) wrc = -1;
    free(line);
    if (np > 0 && o.have_at) plots_level(stage, h, rows.v, width, np, o.at, o.l0, o.l1);
    else if (np > 0) plots(stage, h, rows.v, width, o.nlev ? o.levels : NULL, nlev, lstart, mu);
    snprintf(path, sizeof path, "%s/summary.json", stage);
    /* --check: the peak's periodic state integrated in time */
    double chk[5], *chkp = NULL;
    if (o.check && !failed && np > 0) {
        br_hb_at_peak(h);
        double r3[3];
        if (br_hb_check_by_run(h, m, (int)o.check, r3, err, sizeof err)) { /* said so; the curve stands */
            fprintf(stderr, "bristle hbm: the check by a run failed: %s\n", err);
            snprintf(warning + strlen(warning), sizeof warning - strlen(warning), "%sthe check by a run failed: %.600s",
                     *warning ? "; " : "", err);
        } else {
            chk[0] = h->wpk / (2 * M_PI), chk[1] = (double)o.check, chk[2] = r3[0], chk[3] = r3[1], chk[4] = r3[2], chkp = chk;
            if (!o.quiet)
                printf("bristle hbm: check at %.6g Hz: %s's first harmonic %.6g by harmonic balance; a run from that state %.6g "
                       "over its first period, %.6g over its %ld-th (%+.3g %%): %s\n",
                       chk[0], h->col[0].name, r3[0], r3[1], r3[2], o.check, 100 * (r3[2] / r3[0] - 1), check_verdict(chk));
        }
    }
    h->aft.evals = cnt.evals, h->aft.periods = cnt.periods, h->aft.max_periods_seen = cnt.max_periods_seen;
    h->aft.capped = cnt.capped, h->aft.extrapolated = cnt.extrapolated, h->aft.updates = cnt.updates;
    if (write_summary(path, h, &o, np, rows.folds, rows.nfold, wall, status, warning, chkp, mu, mu_wall, defect)) wrc = -1;
    if (!failed && wrc == 0 && br_stage_publish(stage, dir, err, sizeof err)) {
        fprintf(stderr, "bristle hbm: %s\n", err);
        wrc = -1;
    }
    if (!o.quiet && !failed && np > 0 && o.have_at)
        printf("bristle hbm: %ld points at %g Hz from level %g to %g in %.3g s (%ld Newton iterations, %ld AFT periods, "
               "%.3g field updates/s)%s%s -> %s\n",
               np, o.at, o.l0, rows.v[(np - 1) * width], wall, h->newton, h->aft.periods, wall > 0 ? h->aft.updates / wall : 0.0,
               *warning ? "; " : "", warning, dir);
    else if (!o.quiet && !failed && np > 0)
        printf("bristle hbm: %ld points from %g to %g Hz in %.3g s (%ld Newton iterations, %ld AFT periods, "
               "%.3g field updates/s)%s%s -> %s\n",
               np, o.f0, rows.v[(np - 1) * width + lc], wall, h->newton, h->aft.periods, wall > 0 ? h->aft.updates / wall : 0.0,
               *warning ? "; " : "", warning, dir);
    if (!o.quiet && mu) {
        long nun = 0;
        for (long p = 0; p < np; p++) nun += mu[p] > 1.0 + HB_FLOQ_TOL;
        printf("bristle hbm: stability of %ld points in %.3g s (%ld states): %ld unstable\n", np, mu_wall, br_hb_floq_dim(h), nun);
    }
    br_hbm_free(h), br_model_free(m);
    free(rows.v), free(rows.sol), free(mu);
    return failed || wrc ? 1 : 0;
}
