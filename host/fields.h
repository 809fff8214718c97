/* fields.h: per-point snapshots of meshed contact sets (fields/<set>_<k>.vtp for ParaView,
 * fields/<set>_<k>.png maps, fields/<set>.pvd collections). */
#ifndef BR_FIELDS_H
#define BR_FIELDS_H

#include <stddef.h>

#include "sim.h"

/* model, data right after a field step with per-point recording on, output folder, snapshot
 * index k -> dir/fields/<set>_<k>.vtp and .png for every meshed set; their names, space
 * separated, into names; 0, -1 (a file could not be written), -2 (out of memory) or -3 (the field
 * recorded no per-point forces: br_field_record_points could not allocate them) */
int br_fields_write(const br_model *m, br_data *d, const char *dir, int k, char *names, size_t nameslen);

/* model, folder, snapshot times (nk) -> dir/fields/<set>.pvd listing the snapshots; 0 or -1 */
int br_fields_collection(const br_model *m, const char *dir, const double *times, int nk);

#endif
