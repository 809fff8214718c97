/* study_internal.h: what the files of `bristle study` share (study.c the driver, study_read.c,
 * study_step.c, study_analysis.c, study_out.c). In: nothing; out: the limits and analysis kinds, the
 * study as read (st_study), one variant's model, data and analysis state (st_var), the lockstep batches
 * (st_batch, st_beams), a variant's results (st_res), and the functions one of the files calls in
 * another (br_study_*). Private to the study's files: the API is study.h. */
#ifndef BR_STUDY_INTERNAL_H
#define BR_STUDY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "step/batch.h"
#include "step/beam_batch.h"
#include "analysis/ranks.h"
#include "step/sim.h"

enum { AN_TIME = 0, AN_SWEEP = 1, AN_STEPPED = 2, AN_HBM = 3 };
enum { MAXAX = 8, MAXKEY = 8, MAXRND = 64, MAXCOL = 12, MAXFIX = 32, KEYLEN = 160 };
#define ST_MRES 6 /* hbm with mode: the backbone's figures a variant reports */
enum { ST_RUNNING = 0, ST_DONE = 1, ST_FAILED = 2 };
/* variants below which a lockstep stage runs on the calling thread: a variant's stage takes 0.2
 * (a 1-DOF oscillator) to 5 us (the S2 bundle), a parallel region's start and barrier a few us, and
 * where the cores are shared (ctest -j2 beside a 2-thread study) a barrier can wait a whole time
 * slice of the scheduler: a 5-variant study ran 25 times slower under load */
enum { ST_OMP_MIN = 64 };
/* a stepped sine's convergence test looks at the last ST_XHIST cycles (four changes' ratios) */
enum { ST_XHIST = 6 };
/* a stepped sine's least-squares integrands: 1, c, s, c c, c s, s s (c, s: cos and sin of the excitation's
 * phase), then x, x c, x s of each column */
enum { NQ = 6 + 3 * MAXCOL };
/* --backend auto: the variants from which a study steps on a GPU's beam batch (where one is found
 * and the variants allow it). Measured on an H100 and its host's 16 cores, S5b, per step: 100
 * variants 0.435 ms on the GPU, 0.477 ms on the CPU; 1000 variants 0.476 ms and 3.02 ms
 * (benchmarks/results/2026-11-27-gpu-h100-sweep.md, call 2; call 1, before the integration by
 * rows: 0.61 against 0.56 ms at 100): the crossing is near 90 to 120 with 16 cores, lower with
 * fewer */
enum { ST_AUTO_BEAMS = 128 };

typedef struct st_axis {
    char name[KEYLEN];          /* study.csv column: the key path, or the axis name */
    int nkeys;
    char keys[MAXKEY][KEYLEN];  /* key paths this axis sets */
    int n;                      /* values */
    double *val;                /* n label values */
    double *kval;               /* nkeys x n: the value each key takes */
    long kline[MAXKEY];         /* study-file line of each key */
    int logax;                  /* plotted on a log axis */
} st_axis;

typedef struct st_rand {
    char key[KEYLEN];
    int uniform;                /* 0 normal (width: sd), 1 uniform (width: half width) */
    double width;
    int relative;               /* value = base (1 + width xi), else base + width xi */
    double base;                /* the base scenario's value */
    long line;                  /* study-file line of the key */
} st_rand;

typedef struct st_study {
    char file[1024], name[BR_NAME_MAX], scen[1200];
    char *text;                 /* the base scenario's text */
    size_t len;
    int nfix;
    char fix[MAXFIX][KEYLEN + 64]; /* the study's `set`, "key=value" */
    long fixline[MAXFIX];
    long scen_line, an_line;    /* study-file lines of `scenario` and of the analysis */
    int naxis;
    st_axis axis[MAXAX];
    int nrand, count;
    uint64_t seed;
    st_rand rnd[MAXRND];
    int analysis;
    int ncol;
    char col[MAXCOL][KEYLEN];   /* analysed time-series columns */
    char excitation[BR_NAME_MAX];
    double window, from;        /* sweep: window length and start */
    int nfreq;
    double *freq;               /* stepped sine: frequencies in order */
    double tol, start;          /* stepped sine: steady-state tolerance, time before the first check */
    int min_cycles, max_cycles, fit_cycles;
    double hf0, hf1;            /* hbm: the frequency range [Hz] */
    int hH, hN, hpoints, hmaxper; /* hbm: harmonics, samples a period, points, the AFT's period cap */
    int hstab;                    /* hbm: 1 (stability: peak) the Floquet multipliers at the first column's peak */
    int hmode;                    /* hbm with mode: K, a backbone per variant (0: a forced response) */
    double ha0, ha1;              /* ... its modal amplitudes: amplitude_from, amplitude_to */
    int extrap;                   /* stepped sine: 1 (extrapolate: true) each response's steady state extrapolated */
    int plots, nseries;
    int hdf5;                   /* output.format: hdf5: study.h5 instead of study.csv and the variants' CSV files */
    char series[MAXCOL][KEYLEN];
    double series_dt;
    long nvar;
    double *rval;               /* nvar x nrand drawn values (row 0 unused) */
} st_study;

typedef struct st_var {
    br_model *m;
    br_data *d;
    int status;
    char err[1024];
    long n, nsteps;             /* steps taken, steps of a fixed-length analysis */
    int ncols;                  /* the model's time-series columns */
    double *row;
    int col[MAXCOL], scol[MAXCOL];
    int parts;                  /* what the columns read of br_data (output.h's BR_OUT_* bits) */
    int exload;                 /* the excitation load, or -1 */
    double vmax[MAXCOL], tmax[MAXCOL];  /* time history */
    double wlo[MAXCOL], whi[MAXCOL], wend;  /* sweep window */
    long nf, capf;
    double *f;                  /* per frequency point: f, then per column amplitude and phase */
    double peak[MAXCOL];
    long ipeak[MAXCOL];         /* the frequency point of each peak */
    /* stepped sine */
    int fi, phase_fit, cycles, fit_left, converged;
    double cycle_end;           /* the current cycle's end, exactly a period after its start (-1: none begun) */
    int nsh;                    /* samples held in sh (at most 4: the interval between the middle two integrated) */
    double tc;                  /* the time the cycle's integrals have reached */
    double xk[MAXCOL][ST_XHIST][2]; /* the columns' last cycles' coefficients (a, b), newest first */
    double xe[3][2];            /* extrapolate: the first column's last three extrapolated steady states */
    double sht[4];              /* the last samples' times, oldest first */
    double sh[4][NQ];           /* their least-squares integrands (in NQ's order) */
    double ig[NQ];              /* the integrands' integrals since the cycle began (over the fit cycles once
                                   converged) */
    long errline;               /* setup errors: the study-file line they come from */
    int oom;                    /* failed for want of memory, not by its physics: the study is incomplete */
    FILE *series;
    char series_tmp[1300], series_path[1280];
    long series_every;
    /* hbm: the curve's counts */
    long newton, jacobians, aft_evals, npoints;
    double updates, hwall;
    int nturn;
    double Wpk[64];             /* per set: friction energy per cycle at the first column's peak [J] */
    double mupk;                /* hbm with stability: peak: the largest Floquet multiplier there (NaN: none) */
    double mres[ST_MRES];       /* hbm with mode: the backbone's figures (st_res's mode) */
} st_var;

/* The variants' contact sets in one field (the variant as the leading dimension): set s of
 * variant v is field set v nset + s, its frames offset by v's first frame in the concatenated
 * frame table; small sets of every variant then share the CPU's lanes (field_cpu.c). */
typedef struct st_batch {
    br_batch *b;                 /* every variant's sets in one field, the rest each variant's (host/step/batch.h) */
    int *sample;                 /* per variant: this step is sampled */
    int *failed;                 /* per variant: its step failed */
    char **errs;                 /* per variant: its st_var's err */
    long *live;                  /* the variants a step steps */
} st_batch;

/* Every variant's whole step on a beam batch (host/step/beam_batch.c): with --backend cuda (unless
 * BRISTLE_STUDY_BEAMS=host) the field, the structures and every stage of the step resident on the GPU, only
 * the sampled state copied back; with BRISTLE_STUDY_BEAMS=cpu the same batch on the CPU (its
 * reference). For models whose
 * bodies all ride on beams; a stepped sine's new frequency is taken into the batch as it changes. */
typedef struct st_beams {
    br_beam_batch *bb;
    st_var *V;                   /* its variants, V[0..nv): the study's, or on the CPU a block of eight */
    long nv;
    double analysis_s;           /* BRISTLE_BEAM_TIMING: the sampled rows' analysis */
    int *energy, *failed, *skip;
    int *fin;                    /* the variants whose lean sample ended their run this step */
    char *errs;                  /* 600 a variant */
} st_beams;

/* the per-variant results a study.csv row reports */
typedef struct st_res {
    double peak[MAXCOL], fpeak[MAXCOL], af, residual, t;
    /* hbm with mode: the linearized frequency [Hz], the last point's frequency and damping ratio, the largest damping
     * ratio, its amplitude and frequency (E: the sets' energy per cycle there) */
    double mode[ST_MRES];
    double E[64];
    int status;
    int inaccurate;             /* finished with an energy residual above time.energy_tolerance */
    int nturn;                  /* hbm: turning points of the curve */
    double mupk;                /* hbm with stability: peak: the largest Floquet multiplier at the peak */
    long capped;                /* stepped sine: frequency points that reached max_cycles before steady */
} st_res;

/* ---- study_read.c: the study file ---- */

/* study file -> study (base scenario read, values expanded, random values drawn), or NULL with err */
st_study *br_study_read(const char *path, char *err, size_t errlen);

/* a study (or NULL) -> freed */
void br_study_free(st_study *S);

/* ---- study_step.c: the variants built and stepped ---- */

/* variant -> its grid indices (first axis slowest) and random draw */
void br_study_variant_index(const st_study *S, long v, int *gi);

/* study, variant index -> model and data built, without a field (the study's and the variant's
 * overrides applied, columns and excitation resolved); 0, or -1 with a message in V->err */
int br_study_var_setup(const st_study *S, long v, st_var *V, const char *outdir);

/* a variant -> its series file closed, its data, model, row and frequency points freed */
void br_study_var_free(st_var *V);

/* variant with a field of its own, block of steps -> advanced (or finished, or failed with time
 * and reason), with the run's substeps where the variant is adaptive (host/step/sim.c br_step_begin) */
void br_study_var_advance(const st_study *S, st_var *V, long block);

/* variants (built without fields), backend -> the batch; 0, or -1 with err */
int br_study_batch_make(st_var *V, long nv, br_backend_kind backend, st_batch *B, char *err, size_t errlen);

/* the batch, every variant, the variants running at the start of this block (run[nrun]) -> one
 * lockstep step of those still running (study_step.c); returns how many of them still run */
long br_study_batch_step(const st_study *S, st_var *V, long nv, const long *run, long nrun, st_batch *B);

/* a batch (zeroed or made) -> its field and arrays freed */
void br_study_batch_free(st_batch *B);

/* variants (built without fields), backend -> the beam batches, *nW of them in *W: on a GPU one; on
 * the CPU one a block of BR_BEAM_BLOCK consecutive variants (the lanes' block; the last takes the tail),
 * small enough for its matrices and state to stay in a core's cache while it steps; 0, or -1 with why
 * it does not apply (the caller steps the variants the usual way) */
int br_study_beams_make(st_var *V, long nv, br_backend_kind backend, st_beams **W, int *nW, char *why, size_t whylen);

/* the beam batches, a block of steps -> every batch stepped by up to that many lockstep steps (forces
 * at t_n on the batch, the sampled variants' state brought back and analysed, then the batch integrates
 * the rest), the threads taking the batches, each stepped on one thread with no barrier between its
 * steps, a batch stopping early when none of its variants runs; returns how many variants still run */
long br_study_beams_block(const st_study *S, st_beams *W, int nW, long block);

/* nW beam batches (made, or zeroed) and their array -> freed */
void br_study_beams_free(st_beams *W, int nW);

/* ---- study_analysis.c: a variant's analysis ---- */

/* ncolumns of a frequency-point record: f, cycles, converged, then amplitude and phase per column */
int br_study_frec(const st_study *S);

/* stepped sine: the excitation switched to frequency f at time t, its phase continuous */
void br_study_set_frequency(br_model *m, int load, double f, double t);

/* a sampled row of a sweep -> window envelope; a finished window -> a frequency point */
void br_study_sweep_sample(const st_study *S, st_var *V, double t);

/* a sampled row of a stepped sine at t -> the cycle's least-squares integrals advanced, cycle ends
 * checked (study_analysis.c); returns 1 when the last frequency is done */
int br_study_stepped_sample(const st_study *S, st_var *V, double t);

/* study, variant v (model built), output folder -> the variant's forced response by harmonic balance:
 * variants/NNNNN/frf.csv (bristle hbm's columns), V->f (per point: f, Newton iterations, 1, per column the first
 * harmonic's receptance |x_1 / F| and phase against the excitation, as a stepped sine's), the peaks, the friction
 * energy per cycle at the first column's peak, the counts; V->status done or failed (err) */
void br_study_hbm_variant(const st_study *S, long v, st_var *V, const char *dir);

/* ---- study_out.c: results, tables, plots, the ranks' gathering ---- */

/* a variant after its run -> its study.csv results (peaks, their frequencies or times, friction
 * energies, status) */
void br_study_results(const st_study *S, st_var *V, st_res *r);

/* study.csv: one row per variant, written under a temporary name and renamed */
int br_study_write_table(const st_study *S, const br_model *m0, st_var *V, const st_res *R, const char *dir);

/* variants/NNNNN/frf.csv for sweep and stepped-sine analyses */
int br_study_write_frf(const st_study *S, const st_var *V, long v, const char *dir);

/* the study's PNGs: each result against each grid axis, the FRF overlay or envelope, the AF
 * histogram; names added to files. 0, or 1 when some were not drawn for want of memory */
int br_study_plots(const st_study *S, const br_model *m0, st_var *V, const st_res *R, const char *dir,
                   char files[][64], int *nfiles);

/* the ranks, every variant (this rank's block [v0, v1) run, its results in R) -> on rank 0, every
 * variant's results in R and its status, steps, error and (with plots of frequency responses) its
 * frequency points in V; 0, or -1 out of memory (on any rank: every rank returns it) */
int br_study_gather_variants(const br_ranks *RK, const st_study *S, st_var *V, st_res *R, long v0, long v1);

#endif
