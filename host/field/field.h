/* field.h: the backend-neutral contact field (physics.md sections 1-3, 6).
 *
 * A field owns contact sets; each set is a list of points on frame A, a plane
 * on frame B, a Hunt-Crossley normal law and a friction law. Every step the
 * caller passes the world pose and twist of every frame (and the prescribed normal
 * force of the sets that have one); the field advances all points on the chosen
 * backend and returns per-set wrenches, sums, energy terms and, for the sets that
 * ask for it, the tangent of the wrench. Data flow one way: nothing the caller
 * does afterwards changes the field's results. The step allocates nothing. */
#ifndef BR_FIELD_H
#define BR_FIELD_H

#include <stddef.h>

#include "kernels/set_result.h"
#include "model/contact_set.h"
#include "model/laws.h"

/* `auto` takes the GPU from this many contact points (all sets together): a GPU step costs 30 to
 * 64 us whatever the size up to 1e5 points (launches and a blocking copy; H100, with and without
 * the wrench tangent), a CPU core 8 to 22 ns a point (docs/gpu.md) */
#define BR_AUTO_GPU_MIN_POINTS 10000

/* ... and only where the sets hold this many points on average: many small sets (a study's
 * variants, each a scenario's faces of a few points) run in the CPU's SIMD lanes, and on an H200
 * a study of 1e2 to 1e4 variants of S5b (2 sets of 4 points each) stepped at 0.68 to 0.78 times the
 * rate of the host's 16 cores with its field on the GPU (benchmarks/results/2026-11-26-gpu-h200.md).
 * 1024 is a GPU block's worth of points; between 4 and 1e5 points a set it is not measured. */
#define BR_AUTO_GPU_MIN_SET_POINTS 1024

/* requested backend, usable GPUs, total points, sets -> the backend a field runs on (AUTO: the GPU
 * for fields of at least BR_AUTO_GPU_MIN_POINTS points with at least BR_AUTO_GPU_MIN_SET_POINTS a
 * set on average, else the CPU; CUDA stays CUDA and fails later if it cannot) */
br_backend_kind br_backend_choose(br_backend_kind requested, int ngpu, long npoints, int nsets);


/* br_set_result (a set's result of one step): kernels/set_result.h */

typedef struct br_field br_field;

/* sets, backend -> new field (all states zero), or NULL with a message in err */
br_field *br_field_create(const br_contact_set_desc *sets, int nsets, br_backend_kind backend,
                          char *err, size_t errlen);

/* field -> memory freed */
void br_field_destroy(br_field *f);

/* frames (world pose and twist), normal_force (per set: the prescribed total normal force of
 * a set whose normal law is prescribed, shared equally by its points; < 0 or a NULL array:
 * Hunt-Crossley), h -> states advanced, res[nsets] filled; 0 or -1 with err */
int br_field_step(br_field *f, const br_frame_state *frames, const double *normal_force, double h,
                  br_set_result *res, char *err, size_t errlen);

/* as br_field_step, but every set is stepped even when some are not finite: bad[s] (nsets) is 1
 * for a set whose sums are not finite (its res[s] left as it was), else 0; err names the first such
 * set. 0, or -1 if any set is bad. A study steps all its variants' sets in one field this way, so
 * one variant's failure does not stop the others. */
int br_field_step_sets(br_field *f, const br_frame_state *frames, const double *normal_force, double h,
                       br_set_result *res, int *bad, char *err, size_t errlen);

/* set s after a step in which it was not finite -> "contact set 'NAME', point i: what" into out; 0 or -1 */
int br_field_describe(br_field *f, int s, char *out, size_t len);

/* field, set s (a deforming interface) -> *iu: its input array (6 n: u_t1 u_t2 u_n v_t1 v_t2 v_n of
 * point i at [k n + i]; the caller writes it before each step), *ipt: its outputs (BR_IFACE_NPT n, at
 * [k n + i], kernels/point_step.h; read after a step); 0, or -1 (not an interface set) */
int br_field_iface(br_field *f, int s, double **iu, const double **ipt);

/* on/off -> the step also stores per-point forces for br_field_points */
void br_field_record_points(br_field *f, int on);

/* set -> per-point friction force on A (3n, point-major) and normal force (n), from the last step */
int br_field_points(br_field *f, int set, double *F, double *N);

/* set -> copy of its state, nstate * n doubles, state k of point i at [k*n + i] */
int br_field_get_state(br_field *f, int set, double *state);

/* set, state -> the set's state replaced (same layout as br_field_get_state) */
int br_field_set_state(br_field *f, int set, const double *state);

/* field, checkpoint -> every set's state and the running energy integrals written into c, or read
 * from it (checkpoint.h); 0, or -1 */
struct br_ckpt;
int br_field_checkpoint(br_field *f, struct br_ckpt *c);

/* field -> the backend actually used ("cpu" or "cuda") and a device description */
const char *br_field_backend_name(const br_field *f);
const char *br_field_device_name(const br_field *f);

/* field -> bytes of per-point memory (geometry, parameters, state) the backend holds */
size_t br_field_bytes(const br_field *f);

/* set description (its surface), poses and twists of A and B -> condensed per-set frame data
 * (br_set_frame_make of kernels/point_kinematics.h, Hunt-Crossley) */
void br_set_frame_build(const br_contact_set_desc *d, const br_frame_state *A, const br_frame_state *B,
                        br_set_frame *out);

/* number of CUDA devices usable by this binary (0 when built without CUDA or none present) */
int br_cuda_available(char *why, size_t whylen);

#endif
