/* h5out.h: `output.format: hdf5`: a run's time series and field snapshots in one HDF5 file
 * (run.h5: chunked, shuffled and deflated datasets) with an XDMF sidecar (run.xdmf) that opens the
 * snapshots in ParaView as a time series of surfaces. docs/format-hdf5.md gives the layout. Built
 * with HDF5 when CMake finds it (BRISTLE_HAVE_HDF5); without it br_h5_available says so and the
 * scenario reader refuses the format. */
#ifndef BR_H5OUT_H
#define BR_H5OUT_H

#include <stddef.h>

#include "io/field_snap.h"
#include "model/model.h"

/* -> 1 if this build writes HDF5, else 0 */
int br_h5_available(void);

/* path (the file to create, replaced if present), model -> the file with /timeseries (one dataset
 * per column, their order in its attribute `columns`) and /fields/<set> for each meshed set that
 * gets snapshots; NULL with err */
br_h5 *br_h5_create(const char *path, const br_model *m, char *err, size_t errlen);

/* a row of br_output_row -> appended to the time series (buffered); 0, or -1 (err at close) */
int br_h5_row(br_h5 *h, const double *row);

/* set s, snapshot index k (0, 1, ... in order), its arrays -> appended to /fields/<set>; 0 or -1 */
int br_h5_snapshot(br_h5 *h, int s, int k, const br_field_snap *S);

/* -> buffered rows written, file closed, and when it holds snapshots the XDMF file xdmf_path
 * written (referring to the HDF5 file as h5_name, its name beside it); h freed; 0, or -1 with err
 * (the first failure since br_h5_create) */
int br_h5_close(br_h5 *h, const char *xdmf_path, const char *h5_name, char *err, size_t errlen);

/* a study's output folder (study.csv and variants/NNNNN/frf.csv, series.csv as written), variant
 * count -> dir/study.h5.part: /study from study.csv, /variants/NNNNN/frf and /series from the
 * variants' files (a group per file, a dataset per column: float64, or strings for text columns;
 * attribute `columns`), then those CSV files removed; the caller renames it. 0, or -1 with err */
int br_h5_study(const char *dir, long nvar, char *err, size_t errlen);

#endif
