/* struct_body.h: the bodies that ride on beam nodes (physics.md section 5), written once for a
 * run (host/model/beam.c, host/model/rigid.c) and for batches of variants (host/step/beam_batch.c, and a device):
 * a unit quaternion's rotation matrix and its exact advance, a body's frame from its node's
 * displacement and rotation, a rigid body's world inertia and kinetic energy, a force or torque on
 * a node into the generalized force vector.
 * Structure vectors are pointers with a stride (kernels/ga_step.h's convention: entry k at
 * p[k s]). Nothing here allocates. */
#ifndef BR_STRUCT_BODY_H
#define BR_STRUCT_BODY_H

#include "br_hd.h"
#include "point_kinematics.h" /* br_frame_state */

/* unit quaternion q = (w, x, y, z) -> rotation matrix R (row-major, body -> world) */
BR_HD void br_sb_quat_R(const double q[4], double R[9])
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* q, world angular velocity w, h -> q rotated by the exact rotation of angle |w| h about w,
 * renormalized (sin and cos: the device's differ from the C library's in the last bit) */
BR_HD void br_sb_quat_advance(double q[4], const double w[3], double h)
{
    const double wn = br_norm3(w);
    const double ang = 0.5 * wn * h;
    /* dq = (cos ang, sin(ang) w/|w|); sin(ang)/|w| -> h/2 as |w| -> 0 */
    const double s = wn * h > 1e-8 ? sin(ang) / wn : 0.5 * h * (1.0 - ang * ang / 6.0);
    const double d[4] = {cos(ang), s * w[0], s * w[1], s * w[2]};
    /* q <- dq (x) q: a world-axis rotation multiplies from the left */
    const double r[4] = {d[0] * q[0] - d[1] * q[1] - d[2] * q[2] - d[3] * q[3],
                         d[0] * q[1] + d[1] * q[0] + d[2] * q[3] - d[3] * q[2],
                         d[0] * q[2] - d[1] * q[3] + d[2] * q[0] + d[3] * q[1],
                         d[0] * q[3] + d[1] * q[2] - d[2] * q[1] + d[3] * q[0]};
    const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) q[k] = r[k] / n;
}

/* DOF map (6 a node, -1 fixed), node, structure vector u (stride su) -> the node's displacement
 * and rotation (fixed DOFs zero) */
BR_HD void br_sb_node_vec(const int *dof, int node, const double *u, long su, double out[6])
{
    for (int j = 0; j < 6; j++) {
        const int g = dof[6 * node + j];
        out[j] = g >= 0 ? u[(long)g * su] : 0.0;
    }
}

/* DOF map, undeformed node positions X, the body's node, initial attitude q0 and offset (centre
 * of mass minus node, world axes at t = 0), u and v (strides) -> the body's frame: the node
 * rotation theta (small, applied exactly) after q0, the offset turned with it */
BR_HD void br_sb_body_frame(const int *dof, const double *X, int node, const double q0[4], const double offset[3],
                            const double *u, long su, const double *v, long sv, br_frame_state *out)
{
    double un[6], vn[6], q[4], Ro[3];
    br_sb_node_vec(dof, node, u, su, un);
    br_sb_node_vec(dof, node, v, sv, vn);
    for (int k = 0; k < 4; k++) q[k] = q0[k];
    br_sb_quat_advance(q, un + 3, 1.0);
    br_sb_quat_R(q, out->R);
    double R0[9], dR[9];
    br_sb_quat_R(q0, R0);
    /* dR = R R0^T turns the initial offset */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double x = 0;
            for (int a = 0; a < 3; a++) x += out->R[3 * i + a] * R0[3 * j + a];
            dR[3 * i + j] = x;
        }
    for (int i = 0; i < 3; i++) Ro[i] = dR[3 * i] * offset[0] + dR[3 * i + 1] * offset[1] + dR[3 * i + 2] * offset[2];
    double wr[3];
    br_cross3(vn + 3, Ro, wr);
    for (int j = 0; j < 3; j++) {
        out->x[j] = X[3 * node + j] + un[j] + Ro[j];
        out->v[j] = vn[j] + wr[j];
        out->w[j] = vn[3 + j];
    }
}

/* DOF map, node, its position now, world force f at world point p -> added to g (stride sg):
 * f on the node's translations, (p - x_node) x f on its rotations */
BR_HD void br_sb_add_force(const int *dof, int node, const double xnode[3], const double f[3], const double p[3],
                           double *g, long sg)
{
    const double r[3] = {p[0] - xnode[0], p[1] - xnode[1], p[2] - xnode[2]};
    double t[3];
    br_cross3(r, f, t);
    for (int j = 0; j < 3; j++) {
        const int gu = dof[6 * node + j], gt = dof[6 * node + 3 + j];
        if (gu >= 0) g[(long)gu * sg] += f[j];
        if (gt >= 0) g[(long)gt * sg] += t[j];
    }
}

/* DOF map, node, world torque -> added to g (stride sg) */
BR_HD void br_sb_add_torque(const int *dof, int node, const double tau[3], double *g, long sg)
{
    for (int j = 0; j < 3; j++) {
        const int gt = dof[6 * node + 3 + j];
        if (gt >= 0) g[(long)gt * sg] += tau[j];
    }
}

/* attitude R, body-axes inertia Ib (row-major) -> world-axes inertia R Ib R^T */
BR_HD void br_sb_inertia_world(const double R[9], const double Ib[9], double Iw[9])
{
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * i + k] * Ib[3 * k + j];
            T[3 * i + j] = s;
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += T[3 * i + k] * R[3 * j + k];
            Iw[3 * i + j] = s;
        }
}

/* mass, body-axes inertia Ib, attitude R, velocity v and angular velocity w (world) -> the
 * kinetic energy m v.v / 2 + w.(R Ib R^T w) / 2 */
BR_HD double br_sb_kinetic(double mass, const double Ib[9], const double R[9], const double v[3], const double w[3])
{
    double Iw[9];
    br_sb_inertia_world(R, Ib, Iw);
    double T = 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) T += 0.5 * w[i] * Iw[3 * i + j] * w[j];
    return T;
}

#endif
