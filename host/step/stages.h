/* stages.h: the stage functions the files of step/ share (in: model, run data; out: the step length
 * set, the frames at it, the free bodies' implicit solve and its maps, the state advanced). Private
 * to step/: the API is sim.h. */
#ifndef BR_STAGES_H
#define BR_STAGES_H

#include "step/data.h"

/* a caller that steps dt at a time (studies, harmonic balance, eig, br_step): the step is dt, at
 * level 0, with the free bodies' theta */
void br_stage_fixed_step(const br_model *m, br_data *d);

/* br_fwd_frames at the step d->h */
void br_stage_frames(const br_model *m, br_data *d);

/* free bodies of the implicit system: symplectic Euler with each contact wrench linearized about
 * the state the field saw (pose at t_n, twist V_p = V_n + p, p = h a_{n-1} predicted):
 *   M dV = h (F + sum_s L^T dW_s),   dW = -K dxi_u - C dxi_v,
 *   dxi_u = L (h dV + theta h V_n) (the position x_n + h dV + theta h v_n),   dxi_v = L (dV - p)
 *   => (M + h sum L^T (h K + C) L) dV = h F + h sum L^T (C L p - theta h K L V_n)
 * (M = diag(m I, I_w), gyroscopic term in F, locked DOFs held). On a linear contact spring this
 * is symplectic Euler with the mass M + h^2 K + h C and the damping theta h K: its spectral
 * radius is sqrt((1 + (1 - theta) w^2 h^2) / (1 + w^2 h^2)), 1 for theta = 0 (no numerical
 * dissipation), sqrt(1 - theta) for w h -> infinity; theta = 1 - rho_inf^2 so that time.rho_inf
 * is the spectral radius at infinity here as in the structure's generalized-alpha (0 in the
 * studies: the unresolved contact modes die, backward Euler's position). Stable for any contact
 * stiffness; the predicted twist makes the linearization error of the velocity second order
 * (docs/time-stepping.md). Under the run's controller (substeps) the contacts take the gamma rule
 * instead, W = (1 - gamma) W_n + gamma W_{n+1} with the position moved by h (V_n + gamma dV):
 * hh = gamma h stands for h above, theta for 1 / gamma, and h (1 - gamma) L^T (W_n - W_p) joins the
 * right side; the springs on these bodies act by their own rule (springs_implicit), the other forces
 * with their value at t_n (docs/time-stepping.md). At fixed steps a body that springs alone joined
 * to the system (d->rb_spring) keeps an identity block: br_fwd_accel steps it explicitly, as before.
 * d->acc of those bodies <- dV / h. 0, or -1 when the system is singular */
int br_stage_rigid_implicit(const br_model *m, br_data *d, double h);

/* model, the time, a stop code of kernels/step/ (a code times 256 plus the set, body or energy
 * term it names), the value it found (or NULL) -> the message, as a run and a batch word it */
void br_step_failure(const br_model *m, double t, int code, const double *value, char *err, size_t errlen);

/* br_integrate without the time: the state advanced by h */
void br_stage_integrate(const br_model *m, br_data *d, double h);

#endif
