/* rigid.h: rigid-body kinematics and dynamics (physics.md section 5):
 * unit-quaternion attitude, Newton-Euler equations in world axes with
 * optional locked DOFs, kinematic frames with prescribed motion. */
#ifndef BR_RIGID_H
#define BR_RIGID_H

#include "model/model.h"

/* unit quaternion q = (w, x, y, z) -> rotation matrix R (row-major, body -> world) */
void br_quat_to_R(const double q[4], double R[9]);

/* q, world angular velocity w, h -> q rotated by the exact rotation of angle |w| h about w, renormalized */
void br_quat_advance(double q[4], const double w[3], double h);

/* body, attitude R, angular velocity w (world), force f and torque tau about the CoM (world)
 * -> linear and angular acceleration (world); locked DOFs get zero acceleration */
void br_rigid_accel(const br_body *b, const double R[9], const double w[3], const double f[3],
                    const double tau[3], double a[3], double alpha[3]);

/* attitude R, body-axes inertia Ib (row-major) -> world-axes inertia R Ib R^T */
void br_rigid_inertia_world(const double R[9], const double Ib[9], double Iw[9]);

/* kinematic frame, t -> its world pose and twist at t */
void br_kframe_state(const br_kframe *k, double t, br_frame_state *out);

#endif
