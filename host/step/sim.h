/* sim.h: the mutable data of a run and the stages of one time step.
 *
 * One step from t_n to t_{n+1} = t_n + h, data flowing one way:
 *   br_fwd_frames    body states, t_n -> world frames: free bodies at t_n (as the field sees
 *                    those of the implicit system: pose at t_n, twist predicted v_n + h a_{n-1});
 *                    beams and the bodies attached to them at the state predicted for the
 *                    generalized-alpha equation time t_n + tau (tau = (1 - af) h),
 *                    u_n + (1 - af)(h v_n + h^2/2 a_n), v_n + tau a_n
 *   br_fwd_contacts  frames, prescribed normal forces -> contact field step -> per-set wrenches,
 *                    energy terms and (implicit coupling) the tangents of the wrenches; bristle
 *                    states advanced once over the step with V_t of the frames frozen
 *   br_fwd_joints    frames -> rotational friction torques (states advanced, host/model/joint_friction.c)
 *   br_fwd_loads     t_n, frames, wrenches -> total force and torque per body, generalized forces
 *                    on the structure (loads at t_n + tau) and the energy terms at t_n
 *   br_fwd_accel     forces, tangents -> accelerations over the step: the structure by
 *                    generalized-alpha, free bodies by the implicit Euler velocity update; with
 *                    time.coupling implicit (the default) both take each contact wrench at the
 *                    state they solve for, W + dW/dxi_u dxi_u + dW/dxi_v dxi_v about the state
 *                    the field saw, so contact stiffness and damping do not bound h
 *   br_check_finite  every state and result finite, or the time and the body/set/point named
 *   br_integrate     accelerations, h -> free bodies: v_{n+1} = v_n + h a, x_{n+1} = x_n + h v_{n+1},
 *                    w_{n+1} = w_n + h alpha, q_{n+1} = exp(h w_{n+1}/2) q_n; the structure by
 *                    generalized-alpha; the work of the loads over the step
 * Nothing after br_fwd_contacts writes into the field or its results.
 * docs/time-stepping.md gives the schemes, their stability and the measured accuracy. */
#ifndef BR_SIM_H
#define BR_SIM_H

#include "step/data.h"

/* model, backend -> data at t = 0 with a contact field on that backend, or NULL with err */
br_data *br_data_create(const br_model *m, br_backend_kind backend, char *err, size_t errlen);

/* as br_data_create; own_field 0: no field is made (d->desc says what one would hold), the caller
 * steps the sets elsewhere and fills d->res between br_fwd_contacts_prepare and br_step_after_contacts */
br_data *br_data_create_opt(const br_model *m, br_backend_kind backend, int own_field, char *err, size_t errlen);

/* model, body states, t -> d->frames */
void br_fwd_frames(const br_model *m, br_data *d);

/* model, data at t -> the energy integrals up to t kept (E_upto) and d->Nset (prescribed normal
 * forces): what the field step needs besides the frames */
void br_fwd_contacts_prepare(const br_model *m, br_data *d);

/* model, d->frames, t -> br_fwd_contacts_prepare, then d->res (contact field advanced by h);
 * 0, or -1 with err */
int br_fwd_contacts(const br_model *m, br_data *d, double h, char *err, size_t errlen);

/* model, d->frames, t -> rotational friction torques d->rot_tau over [t, t + h] (states
 * advanced, relative speeds frozen: exponential LuGre update) */
void br_fwd_joints(const br_model *m, br_data *d, double h);

/* model, t, frames, d->res, d->rot_tau -> d->f, d->tau, d->fext, d->text, d->load_val, d->spring_val,
 * and d->en (energy terms at t) */
void br_fwd_loads(const br_model *m, br_data *d);

/* model, d->g (structure forces), d->f, d->tau (body forces), frames, contact tangents -> the
 * structure's acceleration at t_{n+1} in d->ga->a1 and each free body's acceleration over the
 * step in d->acc; 0, or -1 with err when a linearized system is singular */
int br_fwd_accel(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, accelerations (d->acc, d->ga->a1 from br_fwd_accel), h -> body states and t advanced by
 * one step; energy terms updated */
void br_integrate(const br_model *m, br_data *d, double h);

/* model, data -> 0 if every body state and set result is finite; else -1 with the
 * time and the body, or the set and point, named in err */
int br_check_finite(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, data at t_n, energy (1: the energy terms at t_n are computed; 0: br_fwd_loads may skip the
 * structure's), wall_field (NULL, or seconds spent in the contact field added to it) -> the stages
 * from br_fwd_frames to br_check_finite: the step's forces, results and accelerations, state still
 * at t_n (the caller reads them, then calls br_integrate). The one sequence that run and br_step
 * share; a study runs the same stages with one field for all its variants (br_fwd_frames,
 * br_fwd_contacts_prepare, its field step, br_step_after_contacts). 0, or -1 with err */
int br_step_forces(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen);

/* model, data with d->res of this step -> the stages after the field: br_fwd_joints, br_fwd_loads
 * (energy: as br_step_forces), br_fwd_accel, br_check_finite; 0, or -1 with err */
int br_step_after_contacts(const br_model *m, br_data *d, int energy, char *err, size_t errlen);

/* model, data -> one full step (br_step_forces with energy terms, br_integrate); 0 or -1 with err */
int br_step(const br_model *m, br_data *d, char *err, size_t errlen);

/* model, data -> 1 if the run takes substeps: time.adaptive, with a contact set on a free body (whose
 * error the steps estimate; without one every step would be accepted, and no snapshot is taken) */
int br_data_adapts(const br_model *m, const br_data *d);

/* The run's step from t_n to t_n + dt, adaptive where m->adaptive (else as br_step_forces and
 * br_integrate): br_step_begin tries substeps from the current level, taking each again at half
 * the length while its error ratio d->err exceeds 1, until the first one is accepted; its forces
 * and results are there to sample, the state still at t_n. br_step_end integrates it and takes the
 * rest of the output step in substeps chosen the same way, the level halving the step on a
 * rejection and doubling it after an error ratio below 1/4 where the grid allows; it ends at
 * t_{n+1} = (n + 1) dt exactly. energy, wall_field: as br_step_forces. 0, or -1 with err. */
int br_step_begin(const br_model *m, br_data *d, int energy, double *wall_field, char *err, size_t errlen);
int br_step_end(const br_model *m, br_data *d, double *wall_field, char *err, size_t errlen);

#endif
