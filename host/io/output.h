/* output.h: what `bristle run` writes: the time-series columns (design.md part A),
 * timeseries.csv, points.csv and summary.json. Files are written under a
 * temporary name and renamed when complete. */
#ifndef BR_OUTPUT_H
#define BR_OUTPUT_H

#include <stdio.h>

#include "step/sim.h"

/* model, body -> column of <body>.x (then y, z, vx, vy, vz) */
int br_output_col_body(const br_model *m, int b);

/* model, set -> column of <set>.Fx; then Fy, Fz, Ft, N, P, E, ncontact, nstick, vt_max, pen_max,
 * Vx, Vy, Vz: tangential velocity of the point frame relative to the surface at the
 * centroid of the set's points; Mx, My, Mz: moment of all contact forces on the point
 * frame about its origin (a deforming interface: the mean of its points' sliding velocities, world
 * axes; no moments: its forces reach the structure through its rows) */
int br_output_col_set(const br_model *m, int s);

/* model -> column of the first drivetrain column (the first shaft's w; docs/scenario-format.md) */
int br_output_col_drive(const br_model *m);

/* model -> column of energy.input (then kinetic, stored, dissipated, residual) */
int br_output_col_energy(const br_model *m);

/* model -> number of time-series columns (t included) */
int br_output_ncols(const br_model *m);

/* model, column -> its name ("t", "cube.x", "base.Fx", "press.F", "energy.input", ...) into buf */
void br_output_colname(const br_model *m, int col, char *buf, size_t len);

/* model, data (after the contact and load stages of a step) -> one row of values */
void br_output_row(const br_model *m, const br_data *d, double *row);

/* model, column -> the part of br_data it reads (one BR_OUT_* bit, sim.h; t is the bodies') */
int br_output_col_part(const br_model *m, int col);

/* model, data, parts (BR_OUT_* bits) -> br_output_row's values in the columns of those parts, NaN in
 * every other (t and the bodies always: a study's lean samples bring back only what it reads) */
void br_output_row_parts(const br_model *m, const br_data *d, int parts, double *row);

/* model, stream -> CSV header line */
void br_output_csv_header(const br_model *m, FILE *fp);

/* v -> 12 significant digits, %g style, into buf (24 bytes); returns the length */
int br_format_g12(double v, char *buf);

/* row of ncols values -> one CSV line */
void br_output_csv_row(const double *row, int ncols, FILE *fp);

/* A CSV writer thread: the run loop hands it copies of its rows and steps on; the thread formats
 * them (br_output_csv_row) and writes them in order, so formatting overlaps with stepping. */
typedef struct br_csv_writer br_csv_writer;

/* stream (kept open), columns per row -> a running writer, or NULL with errno (ENOMEM: out of
 * memory; the caller then writes rows itself) */
br_csv_writer *br_csv_writer_start(FILE *fp, int ncols);

/* row -> queued for writing (waits while the queue is full) */
void br_csv_writer_push(br_csv_writer *w, const double *row);

/* -> every queued row written, the thread joined, the writer freed; the stream stays open */
void br_csv_writer_finish(br_csv_writer *w);

/* writer -> returns once every row pushed so far has been written to its file (not flushed) */
void br_csv_writer_sync(br_csv_writer *w);

/* stream -> points.csv header (long format: one line per point and sample) */
void br_output_points_header(FILE *fp);

/* model, data, field with recording on -> one line per contact point at the current time; 0, or -1
 * when the field holds no per-point forces (br_field_points) */
int br_output_points_rows(const br_model *m, const br_data *d, FILE *fp, double *scratch);

struct cJSON;

/* JSON object, name, value -> the number added with the fewest of 15, 16 or 17 significant digits
 * that read back exactly (cJSON's own printing keeps 15 whenever they come within an epsilon, which
 * loses the last bit), null when not finite; 0 or -1 */
int br_json_number(struct cJSON *obj, const char *name, double v);

/* Everything summary.json reports that is not in the model or data. */
typedef struct br_run_info {
    const char *backend, *device;
    double wall;             /* whole run */
    double wall_field;       /* contact-field steps */
    double wall_host;        /* frames, loads, integration, checks */
    double wall_output;      /* CSV, points, plots */
    long steps;              /* steps taken by this process (a resumed run: since the checkpoint) */
    const char *status;      /* "complete", "inaccurate", "failed" or "interrupted" */
    const char *error;       /* failure message or NULL */
    const char **files;      /* output files written, NULL-terminated */
    const char **warnings;   /* NULL-terminated */
    /* status "inaccurate": the energy residual ended above time.energy_tolerance; the sample interval
     * in which it grew most and the contact set whose energy changed most there (NULL: none) */
    double grew_t0, grew_t1;
    const char *grew_set;
} br_run_info;

/* model, data, run info, path -> summary.json written (via a temporary name); 0 or -1 */
int br_output_summary(const br_model *m, const br_data *d, const br_run_info *info, const char *path);

#endif
