/* stages.h: the time step's stages, written once over a flat model (br_step_model: arrays a device
 * takes as they are) and one variant's view (br_step_var: every array a pointer, the structure's with
 * a stride), for a single run (host/step/, a batch of one: stride 1, host/step/view.c) and for
 * batches of variants (host/step/batch.c; host/step/beam_batch.c on CPU threads and
 * kernels/beam_cuda.cu a GPU thread a variant). A header per stage, in the step's order:
 *   frames.h     br_step_frames: states at t_n -> every body's frame (the structure predicted at
 *                its equation time), the field's view (implicit free bodies' twists predicted)
 *                (then the contact field steps every set: the caller)
 *   loads.h      br_step_loads: set results, loads, springs, gravity, joints -> the structure's
 *                generalized forces g, gext, the free bodies' forces, the energy terms
 *                (br_step_residual, model.h)
 *   accel.h      br_step_accel_pre: the structure's contact rows (prescribed sides' forces, E
 *                blocks); then the solves (the caller's); br_step_accel_post: the row changes, each
 *                set's friction and normal-damping power over the step, the substeps' error ratio
 *   check.h      br_step_check: a stop code (what stopped it and the set, body or term; the caller
 *                words it)
 *   integrate.h  br_step_integrate: the structure's u, v, a and the free bodies to t_{n+1}; the
 *                loads' work and the Rayleigh and damper losses
 * model.h holds the types and the formulas several stages share. The host stages of the same step
 * (host/step/): the kinematic frames' and the loads' time functions, the rotational joints'
 * bristles, the drivetrain, the free bodies' implicit system (LAPACK), the solves, the field. A
 * beam batch (kernels/beam_store.h) takes the models whose bodies all ride on beams; its load
 * magnitudes are the flat time functions of kernels/timefn_flat.h. Nothing here allocates. */
#ifndef BR_STEP_STAGES_H
#define BR_STEP_STAGES_H

#include "model.h"
#include "frames.h"
#include "loads.h"
#include "accel.h"
#include "check.h"
#include "integrate.h"

#endif
