/* batch.h: many variants of any model stepped together on the CPU, a step at a time: every
 * variant's contact sets in one contact field (one field step for all of them), every variant's
 * other stages the run's own (host/step/, kernels/step/'s stages over the variant's data),
 * the variants over OpenMP threads. It takes every model a run takes (free bodies, kinematic
 * frames, springs, joints, drivetrains, prescribed normal forces, any number of sets), and a
 * variant's step is bitwise its own run's (tests/test_batch.c). With the CUDA backend the field
 * runs on the GPU and the rest on the CPU; a beam batch (beam_batch.h) runs every stage on a GPU,
 * for the models it takes. */
#ifndef BR_BATCH_H
#define BR_BATCH_H

#include <stddef.h>

#include "step/sim.h"

typedef struct br_batch br_batch;

/* nv models and their data at t = 0, made without a field (br_data_create_opt), backend of the
 * field -> the batch, which steps those data from now on; NULL with err */
br_batch *br_batch_create(const br_model *const *m, br_data *const *d, long nv, br_backend_kind backend, char *err,
                          size_t errlen);

void br_batch_destroy(br_batch *B);

/* batch, the variants to step (run[nrun]), energy[v] (1: variant v books its energy terms this
 * step) -> those variants' forces and accelerations at t_n at the step dt (frames, one field step
 * over all of them, joints, loads, solves, checks), as br_step_forces gives a run's; a variant
 * that fails gets failed[v] = 1 and "t = ... s: reason" in err[v] (errlen each), the others
 * failed[v] = 0. Integrating them (br_integrate) is the caller's. */
void br_batch_forces(br_batch *B, const long *run, long nrun, const int *energy, int *failed, char *const *err,
                     size_t errlen);

/* batch (or NULL) -> its contact field (every variant's sets), or NULL */
const br_field *br_batch_field(const br_batch *B);

#endif
