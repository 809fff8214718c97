/* beam_batch.h: many variants of a model whose bodies all ride on beams, stepped together: one
 * contact field over every variant's sets and kernels/step/'s stages over the variants
 * (threads), the structure's state in a br_ga_batch (the variant innermost, as a device holds
 * it). A variant's step is bitwise its own run's (br_step with the header's LU,
 * genalpha own_lu): the CPU reference of the device path of issue 16. */
#ifndef BR_BEAM_BATCH_H
#define BR_BEAM_BATCH_H

#include <stddef.h>

#include "step/sim.h"

typedef struct br_beam_batch br_beam_batch;

/* the CPU batch's block of variants stepped together in vector lanes (kernels/ga_step.h's
 * BR_GA_LANES): a batch over a multiple of it has no variant stepped alone but its tail */
#define BR_BEAM_BLOCK 8

/* model, its data -> 1 if its step can run in a beam batch, else 0 with the reason in why:
 * every body on a beam, no kinematic frames, springs, rotational elements or drivetrain,
 * implicit coupling, every contact set on the structure with a Hunt-Crossley normal law, every
 * load a force or torque on a body with a constant, ramp, harmonic or sweep magnitude (their
 * amplitudes constant or ramps) */
int br_beam_batch_fits(const br_model *m, const br_data *d, char *why, size_t whylen);

/* nv models and their data at t = 0 (br_data_create_opt without a field), backend (CPU; or CUDA:
 * the field, the structure and every stage resident on the GPU, two variants at least, a
 * variant's sets summed in the GPU's order, so its run agrees to rounding, not bitwise) ->
 * the batch, which steps those data from now on (read them after br_beam_batch_export); NULL
 * with err: a variant that does not fit, or differs from variant 0 in more than its matrices
 * (moduli, masses, damping), load magnitudes and contact parameters */
br_beam_batch *br_beam_batch_create(const br_model *const *m, br_data *const *d, int nv, br_backend_kind backend,
                                    char *err, size_t errlen);

void br_beam_batch_destroy(br_beam_batch *B);

/* batch, energy[v] (1: variant v books its energy terms this step), failed[v] (0 running; a
 * failed variant is skipped) -> the running variants' forces and accelerations at t_n (frames,
 * field, loads, solve, checks); a variant that fails gets failed[v] = 1 and "t = ... s: reason" in
 * err + v * errstride */
void br_beam_batch_forces(br_beam_batch *B, const int *energy, int *failed, char *err, size_t errstride);

/* batch, skip[v] -> every variant not skipped integrated to t_{n+1} */
void br_beam_batch_integrate(br_beam_batch *B, const int *skip);

/* CPU batch, on -> its integration by rows (1: the GPU's phases, kernels/beam_store.h's
 * br_beam_store_integrate_row, _col and _end over all the variants, the reference the device's
 * kernels are checked against; 0: a variant at a time, the default); 0, or -1 out of memory */
int br_beam_batch_integrate_by_rows(br_beam_batch *B, int on);

/* batch, parts (host/io/output.h's BR_OUT_* bits: what the caller's rows read) -> the samples made lean
 * where the parts allow it: without the sets and the rest, br_beam_batch_fetch brings back only the
 * time, the bodies, the loads and the energy terms of each record (a strided copy on a device: 440
 * bytes of an S5b variant's 5816 with its frames and set results, where the rows read bodies only),
 * and br_beam_batch_scatter writes only those; BR_OUT_ALL (the default): everything */
void br_beam_batch_sample_parts(br_beam_batch *B, int parts);

/* batch -> 1 if its samples are lean (br_beam_batch_sample_parts) */
int br_beam_batch_is_lean(const br_beam_batch *B);

/* batch -> the bytes of a variant's sample (what br_beam_batch_fetch brings back of each variant) */
long br_beam_batch_sample_bytes(const br_beam_batch *B);

/* batch after br_beam_batch_forces, which[v], full -> the batch's state at t_n brought to the host
 * where it is on a device (once, where any variant is flagged; only the sampled parts unless full);
 * 0, or -1 with err */
int br_beam_batch_fetch(br_beam_batch *B, const int *which, int full, char *err, size_t errlen);

/* batch after br_beam_batch_forces, variant v -> its whole state at t_n brought to the host (a
 * variant whose lean sample ended its run: its br_data then holds everything); 0, or -1 with err */
int br_beam_batch_fetch_one(br_beam_batch *B, int v, char *err, size_t errlen);

/* batch after br_beam_batch_fetch, variant v, full -> the state at t_n that the outputs read (body
 * states, frames, set results, energies, load values, time; only the sampled parts unless full) in
 * its br_data (br_output_row reads them there); thread safe for distinct v, so that a caller
 * analyses each row as it is written */
void br_beam_batch_scatter(br_beam_batch *B, int v, int full);

/* br_beam_batch_forces, then br_beam_batch_integrate of the variants still running */
void br_beam_batch_step(br_beam_batch *B, const int *energy, int *failed, char *err, size_t errstride);

/* batch, variant -> its load magnitudes taken again from its model (a stepped sine changed its
 * excitation's frequency); 0, or -1 with err */
int br_beam_batch_reload(br_beam_batch *B, int v, char *err, size_t errlen);

/* -> the phases' wall times in seconds (secs[BR_PH_*], kernels/beam_store.h) and names; their count (0 when not timed) */
int br_beam_batch_seconds(const br_beam_batch *B, const char *const **names, const double **secs);

/* -> its contact field (all the variants' sets; its backend and device name say where it runs) */
const br_field *br_beam_batch_field(const br_beam_batch *B);

/* batch, variant -> its state written back into its br_data (structure state, frames, set
 * results, energies, time), as its own run would hold it */
void br_beam_batch_export(br_beam_batch *B, int v);

#endif
