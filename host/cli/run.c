/* run.c: `bristle run [SCENARIO] [--out DIR] [--backend auto|cpu|cuda] [--set KEY=VALUE]...`
 *        [--checkpoint-every T] [--resume DIR]`
 * Loads a scenario, steps it to the end, writes timeseries.csv, points.csv (on
 * request), summary.json and PNG plots into DIR. Everything is written into the
 * stage DIR.part, which takes DIR's place only when the run is complete
 * (output.h); a failed run leaves DIR.part with a summary.json whose status is
 * "failed", an interrupted one (SIGINT, SIGTERM) a checkpoint and the status
 * "interrupted"; `--resume DIR` continues from DIR.part/checkpoint.bin and ends
 * with the files an uninterrupted run writes, bit for bit (docs/robustness.md).
 * Exit status: 0 done, 1 the run failed (non-finite state, I/O), 2 bad input,
 * 130 / 143 interrupted by SIGINT / SIGTERM (checkpoint written). */
#include "cli/run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "step/checkpoint.h"
#include "io/fields.h"
#include "io/h5out.h"
#include "model/laws.h"
#include "base/memory.h"
#include "base/outdir.h"
#include "io/output.h"
#include "base/parse.h"
#include "io/plot.h"
#include "io/scenario.h"
#include "base/textfile.h"
#include "step/sim.h"

extern const unsigned char br_builtin_cube_yaml[];
extern const unsigned long br_builtin_cube_yaml_len;


static int usage(FILE *o)
{
    fprintf(o, "usage: bristle run [SCENARIO.yaml] [--out DIR] [--backend auto|cpu|cuda] [--set KEY=VALUE]...\n"
               "                  [--checkpoint-every T] [--resume DIR]\n"
               "  no SCENARIO: the built-in demo (scenario S1, cube_00)\n"
               "  --out DIR      output folder (default runs/<scenario name>)\n"
               "  --backend B    overrides the scenario's backend\n"
               "  --set K=V      overrides one value of the scenario, e.g. --set time.dt=2e-5,\n"
               "                 --set contacts.base.friction.mu_s=0.2 (list items by name or index)\n"
               "  --quiet        no progress line\n"
               "  --checkpoint-every T  write DIR.part/checkpoint.bin every T seconds of simulated time\n"
               "                 (SIGINT and SIGTERM write one too, and stop the run)\n"
               "  --max-memory S refuse scenarios that would need more than S bytes (4G, 512M; default:\n"
               "                 the memory available)\n"
               "  --resume DIR   continue the interrupted run of this scenario (same --set values)\n"
               "                 from DIR.part/checkpoint.bin\n");
    return o == stderr ? 2 : 0;
}

typedef struct run_files {
    char dir[900];
    char names[64][BR_NAME_MAX + 16];
    const char *list[65];
    int n;
} run_files;

static void file_path(const run_files *rf, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", rf->dir, name);
}

/* name -> remembered as an output of this run (for summary.json and clean-up) */
static void file_add(run_files *rf, const char *name)
{
    if (rf->n >= 64) return;
    snprintf(rf->names[rf->n], sizeof rf->names[0], "%s", name);
    rf->list[rf->n] = rf->names[rf->n];
    rf->list[++rf->n] = NULL;
}

/* progress line: percent, simulated time, steps per second, time left */
/* Where the energy balance went wrong: the sample interval in which the residual changed most */
typedef struct grow {
    int init;
    double t_prev, r_prev, best, t0, t1;
    int set;   /* the contact set whose energy changed most in that interval, or -1 */
    double *E; /* per set: its energy at the previous sample */
} grow;

/* set s -> its friction and normal-damping work and stored energies up to the current sample */
static double set_energy(const br_data *d, int s)
{
    return d->E_upto[s] + d->End_upto[s] + d->res[s].E_el + d->res[s].E_b;
}

/* model, data at a sample (energy terms computed) -> g updated; 0, or -1 (out of memory) */
static int grow_track(const br_model *m, const br_data *d, grow *g)
{
    if (!g->init) {
        g->E = calloc((size_t)(m->nset > 0 ? m->nset : 1), sizeof(double));
        if (!g->E) return -1;
        g->init = 1;
    } else {
        const double dr = fabs(d->en.residual - g->r_prev);
        if (dr > g->best) {
            g->best = dr, g->t0 = g->t_prev, g->t1 = d->t, g->set = -1;
            double big = 0.0;
            for (int s = 0; s < m->nset; s++) {
                const double de = fabs(set_energy(d, s) - g->E[s]);
                if (de > big) big = de, g->set = s;
            }
        }
    }
    for (int s = 0; s < m->nset; s++) g->E[s] = set_energy(d, s);
    g->t_prev = d->t, g->r_prev = d->en.residual;
    return 0;
}

static void progress(double frac, double t, long steps, double wall, int tty, int final)
{
    const double rate = wall > 0 ? steps / wall : 0, left = frac > 0 ? wall * (1 - frac) / frac : 0;
    fprintf(stderr, "%s%5.1f %%  t = %.6g s  %.3g steps/s  %.0f s left%s", tty ? "\r" : "", 100 * frac, t,
            rate, left, (tty && !final) ? "   " : "\n");
    fflush(stderr);
}

/* loop buffer: per sample in the loop window and per set, V_t (3), F_t (3) and N */
#define LOOP_VALS 7
typedef struct loop_buf {
    long n, cap;
    double *v; /* cap * nset * LOOP_VALS */
} loop_buf;

static volatile sig_atomic_t g_signal; /* SIGINT or SIGTERM received: checkpoint and stop */

static void on_signal(int sig) { g_signal = sig; }

/* what the run loop adds to br_data's state: the step it resumes at, the snapshots written, the
 * bytes of its CSV files that belong to the steps before, the loop window's samples */
typedef struct run_state {
    long n;
    long ts_bytes, pts_bytes;
    long nsnap;            /* field snapshots written (their times in the run's snap_t) */
    long lb_n;
} run_state;

/* model, data, run-loop state, snapshot times, plot and loop buffers, c -> all of them written into c or read */
static int run_checkpoint(const br_model *m, br_data *d, run_state *rs, double *snap_t, br_plotbuf *pb, loop_buf *lb,
                          grow *gr, br_ckpt *c)
{
    br_ckpt_io(c, "run", rs, sizeof *rs);
    if (!c->failed && !(rs->lb_n >= 0 && rs->lb_n <= lb->cap && rs->nsnap >= 0 && rs->nsnap <= m->nfield_times)) {
        snprintf(c->err, sizeof c->err, "the checkpoint's loop buffer or snapshots do not fit this scenario");
        c->failed = 1;
    }
    if (!c->failed && rs->nsnap > 0) br_ckpt_io(c, "snapshots", snap_t, (size_t)rs->nsnap * sizeof(double));
    br_data_checkpoint(m, d, c);
    br_plotbuf_checkpoint(pb, c);
    if (lb->cap > 0) br_ckpt_io(c, "loop", lb->v, (size_t)rs->lb_n * (size_t)m->nset * LOOP_VALS * sizeof(double));
    /* where the residual grew most so far (status "inaccurate" of a resumed run) */
    double g[7] = {gr->init, gr->t_prev, gr->r_prev, gr->best, gr->t0, gr->t1, gr->set};
    br_ckpt_io(c, "grow", g, sizeof g);
    if (!c->writing && !c->failed) {
        gr->init = (int)g[0], gr->t_prev = g[1], gr->r_prev = g[2], gr->best = g[3], gr->t0 = g[4], gr->t1 = g[5];
        gr->set = (int)g[6];
        if (gr->init && !gr->E && !(gr->E = calloc((size_t)(m->nset > 0 ? m->nset : 1), sizeof(double)))) {
            snprintf(c->err, sizeof c->err, "out of memory");
            c->failed = 1;
        }
    }
    if (gr->init && m->nset > 0 && !c->failed) br_ckpt_io(c, "grow_E", gr->E, (size_t)m->nset * sizeof(double));
    return c->failed ? -1 : 0;
}

/* a plot's return value (br_plot_png), its file name -> on success the name added to the outputs; out
 * of memory counted in *noom, the first such name kept in oom (a warning: plots are optional) */
static void plot_done(int rc, const char *name, run_files *rf, int *noom, char *oom, size_t oomlen)
{
    if (rc == 0) file_add(rf, name);
    else if (rc == -2 && (*noom)++ == 0) snprintf(oom, oomlen, "%s", name);
}

/* model, plot and loop buffers -> the run's PNG plots in rf->dir; a warning in warn (empty if none)
 * when some could not be drawn for want of memory */
static void plots(const br_model *m, const br_plotbuf *pb, const loop_buf *lb, run_files *rf, double *wall_out,
                  char *warn, size_t warnlen)
{
    int noom = 0;
    char oom[BR_NAME_MAX + 16] = "";
    const double t0 = br_wall_seconds();
    char path[1200], title[300], name[BR_NAME_MAX + 16];
    for (int s = 0; s < m->nset; s++) {
        const int c0 = br_output_col_set(m, s);
        br_panel p[3] = {{"friction force on the point frame [N]", 4,
                          {{"Fx", c0}, {"Fy", c0 + 1}, {"Fz", c0 + 2}, {"|F|", c0 + 3}}},
                         {"normal force [N]", 1, {{"N", c0 + 4}}},
                         {"sliding velocity [m/s]", 4,
                          {{"Vx", c0 + 11}, {"Vy", c0 + 12}, {"Vz", c0 + 13}, {"max point |Vt|", c0 + 9}}}};
        snprintf(title, sizeof title, "%s: contact set %s", m->name, m->cset[s].name);
        snprintf(name, sizeof name, "%s.png", m->cset[s].name);
        file_path(rf, name, path, sizeof path);
        plot_done(br_plot_png(path, title, pb, p, 3), name, rf, &noom, oom, sizeof oom);
        /* F_t against V_t in the loop window, along the axis where V_t varies most */
        if (lb->n >= 2) {
            int best = 0;
            double range[3] = {0, 0, 0};
            for (int j = 0; j < 3; j++) {
                double lo = INFINITY, hi = -INFINITY;
                for (long k = 0; k < lb->n; k++) {
                    const double v = lb->v[(k * m->nset + s) * LOOP_VALS + j];
                    lo = fmin(lo, v), hi = fmax(hi, v);
                }
                range[j] = hi - lo;
                if (range[j] > range[best]) best = j;
            }
            double *x = malloc((size_t)lb->n * sizeof(double)), *y = malloc((size_t)lb->n * sizeof(double));
            snprintf(name, sizeof name, "%s_loop.png", m->cset[s].name);
            if (!x || !y) plot_done(-2, name, rf, &noom, oom, sizeof oom);
            for (long k = 0; x && y && k < lb->n; k++) {
                x[k] = lb->v[(k * m->nset + s) * LOOP_VALS + best];
                y[k] = lb->v[(k * m->nset + s) * LOOP_VALS + 3 + best];
            }
            char xl[64], yl[64];
            snprintf(xl, sizeof xl, "sliding velocity V%c [m/s]", "xyz"[best]);
            snprintf(yl, sizeof yl, "friction force F%c [N]", "xyz"[best]);
            snprintf(title, sizeof title, "%s: %s, friction loop, t in [%.4g, %.4g] s", m->name, m->cset[s].name,
                     m->loop_t0, m->loop_t1);
            file_path(rf, name, path, sizeof path);
            if (x && y) plot_done(br_plot_xy_png(path, title, xl, yl, lb->n, x, y), name, rf, &noom, oom, sizeof oom);
            /* the friction coefficient -F/N against V along that axis, over the law's steady curve */
            snprintf(name, sizeof name, "%s_mu.png", m->cset[s].name);
            double Nsum = 0.0, vmax = 0.0;
            long nN = 0;
            for (long k = 0; x && y && k < lb->n; k++) {
                const double N = lb->v[(k * m->nset + s) * LOOP_VALS + 6];
                y[k] = N > 0.0 ? -y[k] / N : NAN;
                if (N > 0.0) Nsum += N, nN++, vmax = fmax(vmax, fabs(x[k]));
            }
            enum { NC = 401 };
            double cx[NC], cy[NC];
            const br_contact_set_desc *cs = &m->cset[s].desc;
            for (int k = 0; k < NC; k++) {
                cx[k] = vmax * (2.0 * k / (NC - 1) - 1.0);
                /* the law's per-point terms (sigma2, f_v absolute) at a point's share of the mean N */
                const double Np = nN ? Nsum / nN / (double)(cs->npoints > 0 ? cs->npoints : 1) : 1.0;
                const double mu = br_law_steady_mu(cs->law, &cs->fric, fabs(cx[k]), Np);
                cy[k] = cx[k] > 0.0 ? mu : (cx[k] < 0.0 ? -mu : 0.0);
            }
            char lab[64];
            snprintf(lab, sizeof lab, "steady: %s", br_law_name(cs->law));
            const br_series ser[2] = {{"run", lb->n, x, y, 0, 0.0, 0}, {lab, NC, cx, cy, 3, 0.8, 0}};
            snprintf(xl, sizeof xl, "sliding velocity V%c [m/s]", "xyz"[best]);
            snprintf(title, sizeof title, "%s: %s, friction coefficient -F%c/N, t in [%.4g, %.4g] s", m->name,
                     m->cset[s].name, "xyz"[best], m->loop_t0, m->loop_t1);
            file_path(rf, name, path, sizeof path);
            if (!x || !y) plot_done(-2, name, rf, &noom, oom, sizeof oom);
            else if (nN > 0 && vmax > 0.0)
                plot_done(br_plot_series_png(path, title, xl, "friction coefficient", 0, ser, 2), name, rf, &noom,
                          oom, sizeof oom);
            free(x), free(y);
        }
    }
    for (int b = 0; b < m->nbody; b++) {
        const int c0 = br_output_col_body(m, b);
        br_panel p[2] = {{"displacement [m]", 3, {{"x", c0}, {"y", c0 + 1}, {"z", c0 + 2}}},
                         {"velocity [m/s]", 3, {{"vx", c0 + 3}, {"vy", c0 + 4}, {"vz", c0 + 5}}}};
        snprintf(title, sizeof title, "%s: body %s (centre of mass)", m->name, m->body[b].name);
        snprintf(name, sizeof name, "%s.png", m->body[b].name);
        file_path(rf, name, path, sizeof path);
        plot_done(br_plot_png(path, title, pb, p, 2), name, rf, &noom, oom, sizeof oom);
    }
    if (m->nbody >= 2) { /* all bodies side by side: the three tips of the blade studies */
        br_panel p[3] = {{"x displacement [m]", 0, {{0}}}, {"y displacement [m]", 0, {{0}}},
                         {"z displacement [m]", 0, {{0}}}};
        for (int b = 0; b < m->nbody && b < 8; b++)
            for (int j = 0; j < 3; j++)
                p[j].curves[p[j].ncurves++] = (br_curve){m->body[b].name, br_output_col_body(m, b) + j};
        snprintf(title, sizeof title, "%s: displacement of every body", m->name);
        file_path(rf, "bodies.png", path, sizeof path);
        plot_done(br_plot_png(path, title, pb, p, 3), "bodies.png", rf, &noom, oom, sizeof oom);
    }
    const br_drivetrain *dv = &m->drive;
    if (dv->nshaft > 0) { /* shaft speeds, clutch torques, shaft accelerations (at most 8 curves each) */
        const int c0 = br_output_col_drive(m);
        const int cc = c0 + 2 * dv->nshaft + dv->ngear + dv->nsrc;
        br_panel p[3] = {{"shaft speed [rad/s]", 0, {{0}}}, {"clutch torque [N m]", 0, {{0}}},
                         {"shaft acceleration [rad/s^2]", 0, {{0}}}};
        for (int i = 0; i < dv->nshaft && i < 8; i++) {
            p[0].curves[p[0].ncurves++] = (br_curve){dv->shaft[i].name, c0 + 2 * i};
            p[2].curves[p[2].ncurves++] = (br_curve){dv->shaft[i].name, c0 + 2 * i + 1};
        }
        for (int k = 0; k < dv->ncl && k < 8; k++) p[1].curves[p[1].ncurves++] = (br_curve){dv->cl[k].name, cc + 3 * k};
        if (!dv->ncl) p[1] = p[2];
        snprintf(title, sizeof title, "%s: drivetrain", m->name);
        file_path(rf, "drivetrain.png", path, sizeof path);
        plot_done(br_plot_png(path, title, pb, p, dv->ncl ? 3 : 2), "drivetrain.png", rf, &noom, oom, sizeof oom);
    }
    const int e0 = br_output_col_energy(m);
    char labels[8][BR_NAME_MAX + 8];
    br_panel p[2] = {{"friction power [W]", 0, {{0}}},
                     {"energy [J]", 5,
                      {{"input work", e0}, {"kinetic", e0 + 1}, {"stored", e0 + 2}, {"dissipated", e0 + 3},
                       {"residual", e0 + 4}}}};
    for (int s = 0; s < m->nset && s < 8; s++) {
        snprintf(labels[s], sizeof labels[s], "%s.P", m->cset[s].name);
        p[0].curves[p[0].ncurves++] = (br_curve){labels[s], br_output_col_set(m, s) + 5};
    }
    snprintf(title, sizeof title, "%s: power loss and energy balance", m->name);
    file_path(rf, "energy.png", path, sizeof path);
    plot_done(br_plot_png(path, title, pb, m->nset ? p : p + 1, m->nset ? 2 : 1), "energy.png", rf, &noom, oom,
              sizeof oom);
    if (noom) snprintf(warn, warnlen, "out of memory drawing %d plot%s (%s%s): not written", noom, noom > 1 ? "s" : "",
                       oom, noom > 1 ? ", ..." : "");
    else warn[0] = 0;
    *wall_out += br_wall_seconds() - t0;
}

int br_run_main(int argc, char **argv)
{
    const char *scen = NULL, *out = NULL, *backend_arg = NULL, *resume = NULL;
    const char *sets[256];
    int nsets = 0, quiet = 0;
    double ck_T = 0.0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
        if (!strcmp(a, "--quiet")) quiet = 1;
        else if ((!strcmp(a, "--out") || !strcmp(a, "--backend") || !strcmp(a, "--set") ||
                  !strcmp(a, "--checkpoint-every") || !strcmp(a, "--resume") || !strcmp(a, "--max-memory")) &&
                 i + 1 >= argc) {
            fprintf(stderr, "bristle run: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--out")) out = argv[++i];
        else if (!strcmp(a, "--resume")) resume = argv[++i];
        else if (!strcmp(a, "--max-memory")) {
            if (br_arg_max_memory("run", argv[++i])) return 2;
        }
        else if (!strcmp(a, "--checkpoint-every")) {
            if (br_arg_double("run", a, argv[++i], 1e-12, 1e12, &ck_T)) return 2;
        }
        else if (!strcmp(a, "--backend")) backend_arg = argv[++i];
        else if (!strcmp(a, "--set")) {
            if (nsets == 256) {
                fprintf(stderr, "bristle run: more than 256 --set options\n");
                return 2;
            }
            sets[nsets++] = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "bristle run: unknown option '%s'\n", a);
            return usage(stderr);
        } else if (scen) {
            fprintf(stderr, "bristle run: one scenario at a time ('%s' and '%s')\n", scen, a);
            return 2;
        } else scen = a;
    }
    if (resume && out) {
        fprintf(stderr, "bristle run: --resume DIR continues in DIR; give no --out\n");
        return 2;
    }
    char err[1024] = "";
    size_t tlen = br_builtin_cube_yaml_len;
    char *text = scen ? br_read_text(scen, &tlen, err, sizeof err) : NULL;
    if (scen && !text) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const char *src = scen ? text : (const char *)br_builtin_cube_yaml;
    br_model *m = br_scenario_parse(scen ? scen : "cube_00.yaml (built-in demo)", src, tlen, sets, nsets, err,
                                    sizeof err);
    const uint64_t hash = br_ckpt_hash(src, tlen, sets, nsets);
    free(text);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (!scen) snprintf(m->name, sizeof m->name, "cube_00");
    int backend = m->backend;
    if (backend_arg) {
        if (!strcmp(backend_arg, "auto")) backend = BR_BACKEND_AUTO;
        else if (!strcmp(backend_arg, "cpu")) backend = BR_BACKEND_CPU;
        else if (!strcmp(backend_arg, "cuda")) backend = BR_BACKEND_CUDA;
        else {
            fprintf(stderr, "bristle run: --backend must be auto, cpu or cuda (got '%s')\n", backend_arg);
            br_model_free(m);
            return 2;
        }
    }
    br_data *d = br_data_create(m, (br_backend_kind)backend, err, sizeof err);
    if (!d) { /* "file:line: ..." as it is, other messages after the command's name */
        fprintf(stderr, "%s%s\n", strncmp(err, m->source, strlen(m->source)) ? "bristle run: " : "", err);
        br_model_free(m);
        return 2;
    }
    run_files rf = {.n = 0};
    rf.list[0] = NULL;
    char final_dir[900];
    if (resume) { /* DIR or DIR.part */
        const size_t rl = strlen(resume);
        snprintf(final_dir, sizeof final_dir, "%.*s", (int)(rl > 5 && !strcmp(resume + rl - 5, ".part") ? rl - 5 : rl),
                 resume);
    } else if (out) snprintf(final_dir, sizeof final_dir, "%s", out);
    else snprintf(final_dir, sizeof final_dir, "runs/%s", m->name);
    char serr[1200];
    if (br_stage_begin(final_dir, resume != NULL, rf.dir, sizeof rf.dir, serr, sizeof serr)) {
        fprintf(stderr, "bristle run: %s\n", serr);
        br_data_free(d), br_model_free(m);
        return 2;
    }
    char path[1200], tmp[1300], ckpath[1200];
    file_path(&rf, "checkpoint.bin", ckpath, sizeof ckpath);
    const int hdf5 = m->out_format == BR_FORMAT_HDF5;
    if (hdf5 && (resume || ck_T > 0)) {
        fprintf(stderr, "bristle run: %s with output.format: hdf5: checkpoints need output.format: csv\n",
                resume ? "--resume" : "--checkpoint");
        br_data_free(d), br_model_free(m);
        return 2;
    }
    if (resume && access(ckpath, R_OK)) {
        fprintf(stderr, "bristle run: --resume %s: no checkpoint %s\n", resume, ckpath);
        br_data_free(d), br_model_free(m);
        return 2;
    }

    const long nsteps = (long)nearbyint(m->t_end / m->dt);
    const int ncols = br_output_ncols(m);
    double *row = malloc((size_t)ncols * sizeof(double));
    long maxpts = 0;
    for (int s = 0; s < m->nset; s++) maxpts = m->cset[s].desc.npoints > maxpts ? m->cset[s].desc.npoints : maxpts;
    double *scratch = malloc((size_t)(4 * maxpts + 1) * sizeof(double));
    br_plotbuf *pb = br_plotbuf_create(ncols, nsteps / m->out_every + 2, 2000);
    double *snap_t = malloc((size_t)(m->nfield_times + 1) * sizeof(double));
    loop_buf lb = {0, 0, NULL};
    if (m->nset > 0) {
        const double span = fmin(m->loop_t1, m->t_end) - fmax(m->loop_t0, 0.0);
        lb.cap = span > 0 ? (long)fmin(1e6, span / (m->out_every * m->dt) + 2) : 0;
        if (lb.cap > 0) lb.v = malloc((size_t)lb.cap * (size_t)m->nset * LOOP_VALS * sizeof(double));
    }
    if (!row || !scratch || !pb || !snap_t || (lb.cap > 0 && !lb.v)) {
        fprintf(stderr, "bristle run: out of memory for the output buffers\n");
        free(row), free(scratch), br_plotbuf_free(pb), free(lb.v), free(snap_t), br_data_free(d), br_model_free(m);
        return 1;
    }
    /* output.format: hdf5: the time series and the snapshots into run.h5 (.part until complete) */
    br_h5 *h5 = NULL;
    char h5tmp[1300];
    file_path(&rf, "run.h5.part", h5tmp, sizeof h5tmp);
    if (hdf5 && !(h5 = br_h5_create(h5tmp, m, err, sizeof err))) {
        fprintf(stderr, "bristle run: %s\n", err);
        free(row), free(scratch), br_plotbuf_free(pb), free(lb.v), free(snap_t), br_data_free(d), br_model_free(m);
        return 1;
    }
    file_path(&rf, "timeseries.csv.part", tmp, sizeof tmp);
    FILE *ts = hdf5 ? NULL : fopen(tmp, resume ? "r+" : "w");
    FILE *pts = NULL;
    if (m->out_points && d->field) {
        file_path(&rf, "points.csv.part", path, sizeof path);
        pts = fopen(path, resume ? "r+" : "w");
    }
    if ((!ts && !hdf5) || (m->out_points && d->field && !pts)) {
        fprintf(stderr, "bristle run: cannot write into %s: %s\n", rf.dir, strerror(errno));
        if (ts) fclose(ts);
        if (pts) fclose(pts);
        br_h5_close(h5, NULL, NULL, NULL, 0);
        free(row), free(scratch), br_plotbuf_free(pb), free(lb.v), free(snap_t), br_data_free(d), br_model_free(m);
        return 1;
    }
    static char tsbuf[1 << 16];
    if (ts) setvbuf(ts, tsbuf, _IOFBF, sizeof tsbuf);
    run_state rs = {0};
    grow gr = {.set = -1};
    if (resume) { /* the state at the checkpoint; the CSV files cut back to the rows before it */
        br_ckpt c;
        if (br_ckpt_begin_read(&c, ckpath, hash) == 0) run_checkpoint(m, d, &rs, snap_t, pb, &lb, &gr, &c);
        br_ckpt_end_read(&c);
        if (!c.failed && (ftruncate(fileno(ts), rs.ts_bytes) || fseek(ts, rs.ts_bytes, SEEK_SET) ||
                          (pts && (ftruncate(fileno(pts), rs.pts_bytes) || fseek(pts, rs.pts_bytes, SEEK_SET)))))
            snprintf(c.err, sizeof c.err, "cannot cut the CSV files back to the checkpoint"), c.failed = 1;
        if (c.failed) {
            fprintf(stderr, "bristle run: --resume %s: %s\n", resume, c.err);
            fclose(ts);
            if (pts) fclose(pts);
            free(gr.E), free(row), free(scratch), br_plotbuf_free(pb), free(lb.v), free(snap_t), br_data_free(d), br_model_free(m);
            return 2;
        }
        lb.n = rs.lb_n;
    } else if (ts) {
        br_output_csv_header(m, ts);
        if (pts) br_output_points_header(pts);
    }
    br_csv_writer *csvw = ts ? br_csv_writer_start(ts, ncols) : NULL; /* NULL: rows written in the loop */
    char wcsv[200];
    if (!csvw && ts) snprintf(wcsv, sizeof wcsv, "the CSV writer thread did not start (%s): the rows were written by the "
                        "stepping thread", errno == ENOMEM ? "out of memory" : strerror(errno));
    const long step0 = d->step; /* steps before this process (a resumed run) */
    const long ck_every = ck_T > 0 ? (long)fmax(1.0, fmin(1e15, nearbyint(ck_T / m->dt))) : 0;

    const char *warnings[16];
    int nwarn = 0;
    char wbuf[4][256];
    for (int k = 0; k < m->nrot; k++) {
        double lim;
        if (br_rotfric_not_dissipative(&m->rot[k], &lim)) {
            snprintf(wbuf[3], sizeof wbuf[3],
                     "rotational friction '%s': sigma1 = %g exceeds tau_C tau_v / (tau_S - tau_C) = %g, the "
                     "LuGre element is not dissipative for every motion (physics.md section 4)",
                     m->rot[k].name, m->rot[k].sigma1, lim);
            warnings[nwarn++] = wbuf[3];
            break;
        }
    }
    char wmix[320];
    for (int s = 0; s < m->nset; s++) {
        if (d->set_imp[s] < 0 || !d->set_rb[s]) continue;
        snprintf(wmix, sizeof wmix,
                 "contact set '%s' couples a free body to the structure: the two steps take its tangent "
                 "partitioned, each for its own motion, which is stable only while dt resolves the "
                 "contact's normal mode (docs/time-stepping.md)",
                 m->cset[s].name);
        warnings[nwarn++] = wmix;
        break;
    }
    if (fabs(nsteps * m->dt - m->t_end) > 1e-9 * m->t_end) {
        snprintf(wbuf[0], sizeof wbuf[0], "time.end (%g) is not a multiple of dt; the run ends at %.12g s",
                 m->t_end, nsteps * m->dt);
        warnings[nwarn++] = wbuf[0];
    }
    if (!csvw && ts) warnings[nwarn++] = wcsv;
    const int tty = isatty(2);
    const double start = br_wall_seconds();
    double wall_out = 0.0, next_report = start + 2.0;
    int reported = 0, failed = 0, interrupted = 0;
    int has_mesh = 0;
    for (int s = 0; s < m->nset; s++) has_mesh |= m->cset[s].meshed;
    if (has_mesh && m->nfield_times > 0) {
        char fdir[1000];
        snprintf(fdir, sizeof fdir, "%s/fields", rf.dir);
        if (br_mkdir_p(fdir)) has_mesh = 0;
    }
    char ferr[2048] = "";
    /* timing: the field's time is measured inside the step, the output's around it; the host's is the rest */
    double wall_field = 0.0;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int), sigaction(SIGTERM, &sa, &old_term);
    for (long n = rs.n; n <= nsteps; n++) {
        if (h5 && g_signal) { /* no checkpoint with output.format: hdf5 */
            interrupted = g_signal;
            break;
        }
        if (n > rs.n && ((ck_every && n % ck_every == 0) || g_signal)) { /* a checkpoint at t_n */
            br_csv_writer_sync(csvw);
            run_state now = rs;
            now.n = n, now.lb_n = lb.n;
            now.ts_bytes = fflush(ts) ? -1 : ftell(ts);
            now.pts_bytes = pts ? (fflush(pts) ? -1 : ftell(pts)) : 0;
            br_ckpt c;
            if (now.ts_bytes < 0 || now.pts_bytes < 0 || br_ckpt_begin_write(&c, ckpath, hash) ||
                run_checkpoint(m, d, &now, snap_t, pb, &lb, &gr, &c) || br_ckpt_end_write(&c, ckpath)) {
                snprintf(ferr, sizeof ferr, "cannot write the checkpoint %s%s%s", ckpath, now.ts_bytes < 0 ? "" : ": ",
                         now.ts_bytes < 0 ? "" : c.err);
                failed = 1;
                break;
            }
            if (g_signal) {
                interrupted = g_signal;
                break;
            }
        }
        const int sample = (n % m->out_every == 0) || n == nsteps;
        const int psample = pts && ((n % m->points_every == 0) || n == nsteps);
        const int fsample = has_mesh && rs.nsnap < m->nfield_times &&
                            (double)n * m->dt >= m->field_times[rs.nsnap] - 0.5 * m->dt;
        if (psample || fsample) br_field_record_points(d->field, 1);
        if (br_step_begin(m, d, sample, &wall_field, ferr, sizeof ferr)) {
            failed = 1;
            break;
        }
        if (fsample) {
            const double t0 = br_wall_seconds();
            char names[1024];
            const int fr = br_fields_write(m, d, rf.dir, (int)rs.nsnap, h5, names, sizeof names);
            if (fr == 0) snap_t[rs.nsnap++] = d->t;
            else {
                snprintf(ferr, sizeof ferr, "cannot write the field snapshot at t = %g s into %s%s", d->t,
                         h5 ? h5tmp : rf.dir,
                         fr == -2 ? ": out of memory"
                         : fr == -3 ? ": the contact field recorded no per-point forces (out of memory, or a failed "
                                      "copy from the GPU)" : "");
                failed = 1;
                break;
            }
            if (!psample) br_field_record_points(d->field, 0);
            wall_out += br_wall_seconds() - t0;
        }
        if (sample || psample) {
            const double t0 = br_wall_seconds();
            if (sample) {
                br_output_row(m, d, row);
                if (grow_track(m, d, &gr)) {
                    snprintf(ferr, sizeof ferr, "out of memory");
                    failed = 1;
                    break;
                }
                if (h5) {
                    if (br_h5_row(h5, row)) {
                        snprintf(ferr, sizeof ferr, "cannot write the time series into %s", h5tmp);
                        failed = 1;
                        break;
                    }
                } else if (csvw) br_csv_writer_push(csvw, row);
                else br_output_csv_row(row, ncols, ts);
                br_plotbuf_add(pb, row);
                if (d->t >= m->loop_t0 && d->t <= m->loop_t1 && lb.n < lb.cap) {
                    for (int s = 0; s < m->nset; s++) {
                        const int c0 = br_output_col_set(m, s);
                        double *dst = lb.v + (lb.n * m->nset + s) * LOOP_VALS;
                        for (int j = 0; j < 3; j++) dst[j] = row[c0 + 11 + j], dst[3 + j] = row[c0 + j];
                        dst[6] = row[c0 + 4];
                    }
                    lb.n++;
                }
            }
            if (psample && br_output_points_rows(m, d, pts, scratch)) {
                snprintf(ferr, sizeof ferr, "cannot write points.csv at t = %g s: the contact field recorded no "
                         "per-point forces (out of memory, or a failed copy from the GPU)", d->t);
                failed = 1;
                break;
            }
            if (psample) br_field_record_points(d->field, 0);
            wall_out += br_wall_seconds() - t0;
        }
        if (n == nsteps) break;
        if (br_step_end(m, d, &wall_field, ferr, sizeof ferr)) {
            failed = 1;
            break;
        }
        if (!quiet && (n & 1023) == 0) {
            const double now = br_wall_seconds();
            if (now >= next_report) {
                progress((double)(n + 1) / nsteps, d->t, d->step, now - start, tty, 0);
                reported = 1;
                next_report = now + (tty ? 0.5 : 10.0);
            }
        }
    }
    sigaction(SIGINT, &old_int, NULL), sigaction(SIGTERM, &old_term, NULL);
    const double wall_host = br_wall_seconds() - start - wall_field - wall_out;
    const double t_io = br_wall_seconds();
    br_csv_writer_finish(csvw);
    int io_ok = 1;
    if (ts) {
        io_ok &= !ferror(ts);
        io_ok &= fclose(ts) == 0;
    }
    char h5err[600] = "";
    if (h5) {
        char xtmp[1300];
        file_path(&rf, "run.xdmf.part", xtmp, sizeof xtmp);
        if (br_h5_close(h5, failed || interrupted ? NULL : xtmp, "run.h5", h5err, sizeof h5err)) io_ok = 0;
    }
    if (pts) {
        io_ok &= !ferror(pts);
        io_ok &= fclose(pts) == 0;
    }
    if (!failed && !io_ok) {
        snprintf(ferr, sizeof ferr, "writing into %s failed%s%s", rf.dir, h5err[0] ? ": " : "", h5err);
        failed = 1;
    }
    if (interrupted)
        snprintf(ferr, sizeof ferr, "interrupted by %s at t = %.9g s; %s%s", interrupted == SIGINT ? "SIGINT" : "SIGTERM",
                 d->t, h5 ? "no checkpoint (output.format: hdf5)" : "checkpoint ", h5 ? "" : ckpath);
    if (!failed && !interrupted && h5) {
        file_path(&rf, "run.h5", path, sizeof path);
        if (rename(h5tmp, path)) failed = 1, snprintf(ferr, sizeof ferr, "cannot rename %s", h5tmp);
        else file_add(&rf, "run.h5");
        char xtmp[1300];
        file_path(&rf, "run.xdmf.part", xtmp, sizeof xtmp);
        file_path(&rf, "run.xdmf", path, sizeof path);
        if (!failed && access(xtmp, F_OK) == 0) {
            if (rename(xtmp, path)) failed = 1, snprintf(ferr, sizeof ferr, "cannot rename %s", xtmp);
            else file_add(&rf, "run.xdmf");
        }
    } else if (!failed && !interrupted) {
        file_path(&rf, "timeseries.csv", path, sizeof path);
        if (rename(tmp, path)) failed = 1, snprintf(ferr, sizeof ferr, "cannot rename %s", tmp);
        else file_add(&rf, "timeseries.csv");
        if (pts && !failed) {
            file_path(&rf, "points.csv.part", tmp, sizeof tmp);
            file_path(&rf, "points.csv", path, sizeof path);
            if (rename(tmp, path)) failed = 1, snprintf(ferr, sizeof ferr, "cannot rename %s", tmp);
            else file_add(&rf, "points.csv");
        }
    }
    wall_out += br_wall_seconds() - t_io;
    if (!failed && !interrupted && rs.nsnap > 0 && !h5) {
        if (br_fields_collection(m, rf.dir, snap_t, (int)rs.nsnap) == 0) {
            for (int s = 0; s < m->nset; s++)
                if (m->cset[s].meshed) {
                    char nm[BR_NAME_MAX + 16];
                    snprintf(nm, sizeof nm, "fields/%s.pvd", m->cset[s].name);
                    file_add(&rf, nm);
                }
        }
    }
    char wplot[300] = "";
    if (!failed && !interrupted && m->out_plots) plots(m, pb, &lb, &rf, &wall_out, wplot, sizeof wplot);
    if (wplot[0]) warnings[nwarn++] = wplot;
    free(lb.v);
    const double wall = br_wall_seconds() - start;
    if (reported && !quiet) progress(1.0, d->t, d->step, wall, tty, 1);
    /* a run whose energy balance ends above its tolerance did not give the user the physics asked for:
     * status "inaccurate" and exit status 3 (docs/time-stepping.md), not a warning */
    const int inaccurate = !failed && !interrupted && !(d->en.residual_rel <= m->energy_tol);
    if (backend == BR_BACKEND_AUTO && d->field && strcmp(br_field_backend_name(d->field), "cpu") == 0) {
        char why[200] = "";
        if (br_cuda_available(why, sizeof why) == 0) {
            snprintf(wbuf[2], sizeof wbuf[2], "backend auto: no usable GPU (%s), ran on the CPU", why);
            warnings[nwarn++] = wbuf[2];
        }
    }
    warnings[nwarn] = NULL;
    file_add(&rf, "summary.json");
    br_run_info info = {d->field ? br_field_backend_name(d->field) : "cpu",
                        d->field ? br_field_device_name(d->field) : "cpu",
                        wall,
                        wall_field,
                        wall_host,
                        wall_out,
                        d->step - step0,
                        failed ? "failed" : interrupted ? "interrupted" : inaccurate ? "inaccurate" : "complete",
                        failed || interrupted ? ferr : NULL,
                        rf.list,
                        warnings,
                        gr.t0,
                        gr.t1,
                        gr.set >= 0 ? m->cset[gr.set].name : NULL};
    file_path(&rf, "summary.json", path, sizeof path);
    if (br_output_summary(m, d, &info, path)) {
        fprintf(stderr, "bristle run: cannot write %s\n", path);
        failed = 1;
    }
    if (!failed && !interrupted) { /* complete: the stage takes the output folder's place */
        unlink(ckpath);
        /* and no checkpoint that a SIGKILL cut off while it was being written */
        char cktmp[sizeof ckpath + 8];
        snprintf(cktmp, sizeof cktmp, "%s.tmp", ckpath);
        unlink(cktmp);
        if (br_stage_publish(rf.dir, final_dir, serr, sizeof serr)) {
            snprintf(ferr, sizeof ferr, "%s", serr);
            failed = 1;
        }
    }
    if (interrupted) {
        fprintf(stderr, "bristle run: %s: %s\n", m->name, ferr);
        if (!hdf5)
            fprintf(stderr, "bristle run: continue with: bristle run %s --resume %s (and the same --set values)\n",
                    scen ? scen : "", final_dir);
    } else if (failed) {
        fprintf(stderr, "bristle run: %s: %s\n", m->name, ferr);
        fprintf(stderr, "bristle run: partial output left in %s; summary.json has status \"failed\"\n", rf.dir);
    } else {
        printf("%s: %ld steps in %.3g s (%.3g steps/s) on %s; energy residual %.2g of the input work; "
               "output in %s/\n",
               m->name, info.steps, wall, wall > 0 ? info.steps / wall : 0.0, info.backend, d->en.residual_rel,
               final_dir);
        for (int k = 0; k < nwarn; k++) fprintf(stderr, "warning: %s\n", warnings[k]);
        if (inaccurate)
            fprintf(stderr,
                    "bristle run: %s: inaccurate: the energy residual ends at %.3g of the input work, above "
                    "time.energy_tolerance (%g); it grew most between t = %.6g and %.6g s%s%s%s (exit status 3; "
                    "docs/time-stepping.md says what to change)\n",
                    m->name, d->en.residual_rel, m->energy_tol, gr.t0, gr.t1, gr.set >= 0 ? ", contact set '" : "",
                    gr.set >= 0 ? m->cset[gr.set].name : "", gr.set >= 0 ? "'" : "");
    }
    free(row), free(scratch), free(snap_t), br_plotbuf_free(pb), br_data_free(d), br_model_free(m), free(gr.E);
    return interrupted ? 128 + interrupted : failed ? 1 : inaccurate ? BR_EXIT_INACCURATE : 0;
}
