/* checkpoint.h: the state of a run's data in checkpoint records (ckpt_io.h: the records, the file
 * and the in-memory snapshot). In: a model and its run data; out: every array of the data written
 * into, or read from, a checkpoint. */
#ifndef BR_CHECKPOINT_H
#define BR_CHECKPOINT_H

#include "base/ckpt_io.h"
#include "step/data.h"

/* model, data, c -> every piece of d's mutable state (bodies, structure, rotational elements,
 * energy terms and integrals, the field's states and integrals) written or read; 0, or -1 */
int br_data_checkpoint(const br_model *m, br_data *d, br_ckpt *c);

#endif
