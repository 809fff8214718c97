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

/* Lanes: the functions named _l take nl variants' values side by side, entry k of lane l at
 * a[k nl + l] (structure vectors: lane l at +l of lane 0's entries, kernels/ga_step.h's BR_GL), and
 * do in every lane the operations of the one-variant function, which is the call with nl = 1: a
 * lane's result is bitwise that of its variant alone (+ - * / sqrt and fma round the same in a
 * vector). At most BR_SB_LANES lanes (the CPU's beam batches, host/step/beam_batch.c). */
#define BR_SB_LANES 8

/* unit quaternions q (4 nl) -> rotation matrices R (9 nl, row-major, body -> world), lanes */
BR_HD void br_sb_quat_R_l(const double *q, double *R, int nl)
{
    BR_LANEWISE for (int l = 0; l < nl; l++) {
        const double w = q[l], x = q[nl + l], y = q[2 * nl + l], z = q[3 * nl + l];
        R[l] = 1 - 2 * (y * y + z * z), R[nl + l] = 2 * (x * y - w * z), R[2 * nl + l] = 2 * (x * z + w * y);
        R[3 * nl + l] = 2 * (x * y + w * z), R[4 * nl + l] = 1 - 2 * (x * x + z * z), R[5 * nl + l] = 2 * (y * z - w * x);
        R[6 * nl + l] = 2 * (x * z - w * y), R[7 * nl + l] = 2 * (y * z + w * x), R[8 * nl + l] = 1 - 2 * (x * x + y * y);
    }
}

/* unit quaternion q = (w, x, y, z) -> rotation matrix R (row-major, body -> world) */
BR_HD void br_sb_quat_R(const double q[4], double R[9])
{
    br_sb_quat_R_l(q, R, 1);
}

/* the half angles below which br_sb_half_turn takes its series: 1/8 rad (a turn of 0.25 rad) */
#define BR_SB_SERIES_ANG 0.125

/* half angles x >= 0, h, |w| (x = |w| h / 2), lanes -> c = cos x and s = sin(x) / |w|. For x <= 1/8
 * (a structure body's frame from its node's small rotation, a free body's turn in one step) by their
 * Taylor series in z = x^2 (sin x / x through z^4, cos x through z^5), by Horner: the terms left out are below
 * x^10 / 4e7 of sin x / x and x^12 / 4.8e8 of cos x (2.3e-17 and 3e-20 at x = 1/8, under half an
 * ulp), and the evaluation rounds within about an ulp (test_rigid). The same + - * on either
 * backend, no division, one vector for all lanes: a frame's bits follow neither the C library's sin
 * nor the device's. A larger angle (or NaN) takes sin and cos, their bits the library's or device's */
BR_HD void br_sb_half_turn_l(const double *x, double h, const double *wn, double *c, double *s, int nl)
{
    BR_LANEWISE for (int l = 0; l < nl; l++) {
        const double z = x[l] * x[l];
        /* sin(x) / x = 1 - z/3! + z^2/5! - z^3/7! + z^4/9!, and sin(x) / |w| = (h / 2) sin(x) / x */
        const double sx = 1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0))));
        c[l] = 1.0 + z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0 + z * (-1.0 / 3628800.0)))));
        s[l] = 0.5 * h * sx;
    }
    for (int l = 0; l < nl; l++)
        if (!(x[l] <= BR_SB_SERIES_ANG)) c[l] = cos(x[l]), s[l] = sin(x[l]) / wn[l];
}

BR_HD void br_sb_half_turn(double x, double h, double wn, double *c, double *s)
{
    br_sb_half_turn_l(&x, h, &wn, c, s, 1);
}

/* q (4 nl), world angular velocities w (3 nl), h, lanes -> each q rotated by the exact rotation of
 * angle |w| h about w, renormalized */
BR_HD void br_sb_quat_advance_l(double *q, const double *w, double h, int nl)
{
    double wn[BR_SB_LANES], ang[BR_SB_LANES], c[BR_SB_LANES], s[BR_SB_LANES];
    BR_LANEWISE for (int l = 0; l < nl; l++) {
        const double wl[3] = {w[l], w[nl + l], w[2 * nl + l]};
        wn[l] = br_norm3(wl);
        ang[l] = 0.5 * wn[l] * h;
    }
    /* dq = (cos ang, sin(ang) w/|w|) */
    br_sb_half_turn_l(ang, h, wn, c, s, nl);
    BR_LANEWISE for (int l = 0; l < nl; l++) {
        const double d[4] = {c[l], s[l] * w[l], s[l] * w[nl + l], s[l] * w[2 * nl + l]};
        const double q0[4] = {q[l], q[nl + l], q[2 * nl + l], q[3 * nl + l]};
        /* q <- dq (x) q: a world-axis rotation multiplies from the left */
        const double r[4] = {d[0] * q0[0] - d[1] * q0[1] - d[2] * q0[2] - d[3] * q0[3],
                             d[0] * q0[1] + d[1] * q0[0] + d[2] * q0[3] - d[3] * q0[2],
                             d[0] * q0[2] - d[1] * q0[3] + d[2] * q0[0] + d[3] * q0[1],
                             d[0] * q0[3] + d[1] * q0[2] - d[2] * q0[1] + d[3] * q0[0]};
        const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        for (int k = 0; k < 4; k++) q[k * nl + l] = r[k] / n;
    }
}

/* q, world angular velocity w, h -> q rotated by the exact rotation of angle |w| h about w,
 * renormalized */
BR_HD void br_sb_quat_advance(double q[4], const double w[3], double h)
{
    br_sb_quat_advance_l(q, w, h, 1);
}

/* DOF map (6 a node, -1 fixed), node, structure vector u (stride su, lane l at +l), lanes -> the
 * node's displacement and rotation (6 nl; fixed DOFs zero) */
BR_HD void br_sb_node_vec_l(const int *dof, int node, const double *u, long su, double *out, int nl)
{
    for (int j = 0; j < 6; j++) {
        const int g = dof[6 * node + j];
        BR_LANEWISE for (int l = 0; l < nl; l++) out[j * nl + l] = g >= 0 ? u[(long)g * su + l] : 0.0;
    }
}

/* DOF map, undeformed node positions X, the body's node, initial attitude q0 and offset (centre
 * of mass minus node, world axes at t = 0), u and v (strides, lane l at +l), lanes -> each lane's
 * body frame into *out[l]: the node rotation theta (small, applied exactly) after q0, the offset
 * turned with it */
BR_HD void br_sb_body_frame_l(const int *dof, const double *X, int node, const double q0[4], const double offset[3],
                              const double *u, long su, const double *v, long sv, int nl, br_frame_state *const *out)
{
    enum { L = BR_SB_LANES };
    double un[6 * L], vn[6 * L], q[4 * L], R[9 * L], dR[9 * L], Ro[3 * L], R0[9];
    br_sb_node_vec_l(dof, node, u, su, un, nl);
    br_sb_node_vec_l(dof, node, v, sv, vn, nl);
    for (int k = 0; k < 4; k++)
        BR_LANEWISE for (int l = 0; l < nl; l++) q[k * nl + l] = q0[k];
    br_sb_quat_advance_l(q, un + 3 * nl, 1.0, nl);
    br_sb_quat_R_l(q, R, nl);
    br_sb_quat_R(q0, R0);
    /* dR = R R0^T turns the initial offset */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            BR_LANEWISE for (int l = 0; l < nl; l++) {
                double x = 0;
                for (int a = 0; a < 3; a++) x += R[(3 * i + a) * nl + l] * R0[3 * j + a];
                dR[(3 * i + j) * nl + l] = x;
            }
    for (int i = 0; i < 3; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++)
            Ro[i * nl + l] = dR[3 * i * nl + l] * offset[0] + dR[(3 * i + 1) * nl + l] * offset[1] +
                             dR[(3 * i + 2) * nl + l] * offset[2];
    for (int l = 0; l < nl; l++) {
        const double w[3] = {vn[3 * nl + l], vn[4 * nl + l], vn[5 * nl + l]};
        const double ro[3] = {Ro[l], Ro[nl + l], Ro[2 * nl + l]};
        double wr[3];
        br_cross3(w, ro, wr);
        br_frame_state *o = out[l];
        for (int k = 0; k < 9; k++) o->R[k] = R[k * nl + l];
        for (int j = 0; j < 3; j++) {
            o->x[j] = X[3 * node + j] + un[j * nl + l] + ro[j];
            o->v[j] = vn[j * nl + l] + wr[j];
            o->w[j] = w[j];
        }
    }
}

/* the same for one body: its frame into *out */
BR_HD void br_sb_body_frame(const int *dof, const double *X, int node, const double q0[4], const double offset[3],
                            const double *u, long su, const double *v, long sv, br_frame_state *out)
{
    br_sb_body_frame_l(dof, X, node, q0, offset, u, su, v, sv, 1, &out);
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
