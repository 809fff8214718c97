/* friction_implicit.h: linearly implicit friction of stateless laws on the structure.
 *
 * A stateless law with F = s(v, N) Vt (gkf, static_reg; br_law_has_slope) is a damper of slope s
 * per point: on S2's tie-bosses the gkf stick branch mu_s N / eps is stiff enough that an
 * explicit force makes the sliding velocity ring from step to step (docs/time-stepping.md).
 * Generalized-alpha therefore takes the set's friction wrench on A as
 *     W_A(xi) = W_A(xi_p) - D (xi - xi_p),   D = sum_i s_i G_i^T P_i G_i
 * with xi = (c, w) the relative twist of A with respect to B at A's origin, xi_p its value
 * at the predicted state the field saw, s_i each point's slope frozen at that state,
 * P_i = I - n n^T and G_i = [I, -[rw_i]x] (V_i = c + w x rw_i). For these laws W_A is linear in
 * xi at fixed slopes, so the step uses the force F_i = s_i Vt_i at the velocity it solves for. */
#ifndef BR_FRICTION_IMPLICIT_H
#define BR_FRICTION_IMPLICIT_H

#include "field.h"

/* set description, its per-step frame (Npt set for a prescribed normal force) -> D (6 x 6,
 * column-major, symmetric positive semidefinite): the slope of the set's friction wrench on A
 * with respect to its relative twist, over the points in contact. Uses the field's per-point
 * kinematics, normal force and slope (kernels/), one point at a time on the host. */
void br_set_friction_damping(const br_contact_set_desc *cs, const br_set_frame *f, double D[36]);

#endif
