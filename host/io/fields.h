/* fields.h: per-point snapshots of meshed contact sets (fields/<set>_<k>.vtp for ParaView,
 * fields/<set>_<k>.png maps, fields/<set>.pvd collections; or into run.h5, host/io/h5out.c). */
#ifndef BR_FIELDS_H
#define BR_FIELDS_H

#include <stddef.h>

#include "io/field_snap.h"
#include "step/sim.h"

/* model, data right after a field step with per-point recording on, set -> snap (allocated; free
 * with br_fields_snap_free, also after a failure); 0, -2 (out of memory) or -3 (the field recorded no
 * per-point forces: br_field_record_points could not allocate them) */
int br_fields_gather(const br_model *m, br_data *d, int s, br_field_snap *snap);

void br_fields_snap_free(br_field_snap *snap);

/* model, data right after a field step with per-point recording on, output folder, snapshot
 * index k, h5 (NULL: VTK files) -> for every meshed set dir/fields/<set>_<k>.png and either
 * dir/fields/<set>_<k>.vtp or the snapshot in h5; the .vtp names, space separated, into names;
 * 0, -1 (a file could not be written), -2 (out of memory) or -3 (no per-point forces recorded) */
int br_fields_write(const br_model *m, br_data *d, const char *dir, int k, br_h5 *h5, char *names, size_t nameslen);

/* model, folder, snapshot times (nk) -> dir/fields/<set>.pvd listing the snapshots; 0 or -1 */
int br_fields_collection(const br_model *m, const char *dir, const double *times, int nk);

#endif
