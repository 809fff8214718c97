/* point_kinematics.h: contact kinematics of one point on frame A against the
 * counter surface of frame B (physics.md section 1).
 *
 * The host condenses the two frames of a contact set into a br_set_frame once
 * per step; every point then needs one rotation, one cross product and a few
 * dot products. The relative velocity field of A with respect to B, both
 * evaluated at the same world point e = x_A + rw, is affine in rw:
 *     V(rw) = c + w x rw,   c = v_A - v_B - w_B x (x_A - x_B),   w = w_A - w_B
 * which is physics.md's v_A(e) - v_B(e) written about A's origin, so no large
 * world coordinates are subtracted per point. */
#ifndef BR_POINT_KINEMATICS_H
#define BR_POINT_KINEMATICS_H

#include "br_hd.h"

/* Counter surfaces (physics.md section 1): a plane, or the outside of a sphere or of an
 * infinite circular cylinder (closest point and outward normal per contact point). */
enum { BR_SURF_PLANE = 0, BR_SURF_SPHERE = 1, BR_SURF_CYLINDER = 2, BR_SURF_COUNT = 3 };

/* not a counter surface: a deforming interface's points, whose kinematics are the caller's inputs
 * (br_kin_local; point_step.h's br_point_core) */
#define BR_SURF_LOCAL 3

/* Per-set, per-step frame data in world axes (built by br_set_frame_build). */
typedef struct br_set_frame {
    double xA[3];  /* origin of frame A (world) */
    double RA[9];  /* attitude of frame A, row-major, body -> world */
    double c[3];   /* relative velocity of A w.r.t. B at A's origin */
    double w[3];   /* relative angular velocity w_A - w_B */
    double n[3];   /* plane: unit normal (world), out of B toward A */
    double d;      /* plane: n . (e_P - x_A), the plane offset measured from A's origin */
    double pc[3];  /* sphere: centre, cylinder: a point of the axis, minus x_A (world) */
    double ax[3];  /* cylinder: unit axis (world) */
    double rad;    /* sphere, cylinder: radius */
    double Npt;    /* prescribed normal force per point [N], or < 0: Hunt-Crossley */
    int surface;   /* BR_SURF_* */
} br_set_frame;

/* World pose and twist of one frame (a body, a node attachment, the ground). */
typedef struct br_frame_state {
    double x[3];  /* origin */
    double R[9];  /* attitude, row-major, frame -> world */
    double v[3];  /* velocity of the origin */
    double w[3];  /* angular velocity */
} br_frame_state;

/* Counter surface of a set in frame B: type BR_SURF_*, p a point of the plane (sphere: the
 * centre; cylinder: a point of the axis), n the plane's unit normal out of B toward A
 * (cylinder: the unit axis), radius (sphere, cylinder); poses and twists of A and B; the
 * prescribed normal force per point Npt (< 0: Hunt-Crossley) -> the set's frame data:
 * c = v_A - v_B - w_B x (x_A - x_B), w = w_A - w_B, the surface in world axes about A's origin */
BR_HD void br_set_frame_make(int surface, const double p[3], const double n[3], double radius,
                             const br_frame_state *A, const br_frame_state *B, double Npt,
                             br_set_frame *out)
{
    for (int j = 0; j < 3; j++) out->xA[j] = A->x[j];
    for (int j = 0; j < 9; j++) out->RA[j] = A->R[j];
    double dx[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]}, wBdx[3];
    br_cross3(B->w, dx, wBdx);
    for (int j = 0; j < 3; j++) {
        out->c[j] = A->v[j] - B->v[j] - wBdx[j];
        out->w[j] = A->w[j] - B->w[j];
    }
    double pw[3];
    br_mat3_vec(B->R, n, out->n);
    br_mat3_vec(B->R, p, pw);
    double rel[3] = {B->x[0] + pw[0] - A->x[0], B->x[1] + pw[1] - A->x[1], B->x[2] + pw[2] - A->x[2]};
    out->d = br_dot3(out->n, rel);
    /* sphere and cylinder: centre (axis point) relative to A's origin, axis, radius */
    for (int j = 0; j < 3; j++) out->pc[j] = rel[j], out->ax[j] = out->n[j];
    out->rad = radius;
    out->Npt = Npt;
    out->surface = surface;
}

/* Kinematic state of one contact point. */
typedef struct br_point_kin {
    double rw[3];     /* world offset of the point from A's origin (e_A - x_A) */
    double delta;     /* penetration, > 0 in contact */
    double deltadot;  /* penetration rate -V.n */
    double Vt[3];     /* tangential (sliding) velocity of A w.r.t. B */
    double v;         /* |Vt| */
    double n[3];      /* surface normal at the point (world), out of B toward A */
} br_point_kin;

/* rw (world offset from A's origin), unit normal n, penetration delta, set frame ->
 * k filled: relative velocity V = c + w x rw split into normal rate and tangential part */
BR_HD void br_kin_split(const br_set_frame *f, const double n[3], double delta, br_point_kin *k)
{
    k->delta = delta;
    double wr[3], V[3];
    br_cross3(f->w, k->rw, wr);
    V[0] = f->c[0] + wr[0];
    V[1] = f->c[1] + wr[1];
    V[2] = f->c[2] + wr[2];
    double vn = br_dot3(V, n);
    k->deltadot = -vn;
    for (int j = 0; j < 3; j++) {
        k->n[j] = n[j];
        k->Vt[j] = V[j] - vn * n[j];
    }
    k->v = br_norm3(k->Vt);
}

/* Body-fixed point r (frame A) + set frame (plane) -> penetration, rate, sliding velocity. */
BR_HD void br_kin_plane(const br_set_frame *f, const double r[3], br_point_kin *k)
{
    br_mat3_vec(f->RA, r, k->rw);
    br_kin_split(f, f->n, f->d - br_dot3(f->n, k->rw), k);
}

/* ... against the outside of a sphere: normal along the centre-to-point line,
 * penetration radius minus distance (a point at the centre gets the normal +z) */
BR_HD void br_kin_sphere(const br_set_frame *f, const double r[3], br_point_kin *k)
{
    br_mat3_vec(f->RA, r, k->rw);
    double d[3] = {k->rw[0] - f->pc[0], k->rw[1] - f->pc[1], k->rw[2] - f->pc[2]};
    const double dist = br_norm3(d), inv = dist > 0.0 ? 1.0 / dist : 0.0;
    double n[3] = {d[0] * inv, d[1] * inv, dist > 0.0 ? d[2] * inv : 1.0};
    br_kin_split(f, n, f->rad - dist, k);
}

/* ... against the outside of an infinite cylinder: normal along the perpendicular from the
 * axis, penetration radius minus distance to the axis */
BR_HD void br_kin_cylinder(const br_set_frame *f, const double r[3], br_point_kin *k)
{
    br_mat3_vec(f->RA, r, k->rw);
    double d[3] = {k->rw[0] - f->pc[0], k->rw[1] - f->pc[1], k->rw[2] - f->pc[2]};
    const double da = br_dot3(d, f->ax);
    for (int j = 0; j < 3; j++) d[j] -= da * f->ax[j];
    const double dist = br_norm3(d), inv = dist > 0.0 ? 1.0 / dist : 0.0;
    double n[3] = {d[0] * inv, d[1] * inv, d[2] * inv};
    br_kin_split(f, n, f->rad - dist, k);
}

/* A point of a deforming interface (physics.md 5.1): its relative displacement u and velocity v of A
 * with respect to B in its own frame (t1, t2, n) -> kinematics in that frame: n = (0, 0, 1),
 * delta = -u_n, deltadot = -v_n, Vt = (v_t1, v_t2, 0), no offset (the point is where its nodes are).
 * The same splitting as br_kin_split's, so that a point whose frame is the world's gets its bits. */
BR_HD void br_kin_local(const double u[3], const double v[3], br_point_kin *k)
{
    const double n[3] = {0.0, 0.0, 1.0};
    for (int j = 0; j < 3; j++) k->rw[j] = 0.0;
    k->delta = -u[2];
    const double vn = br_dot3(v, n);
    k->deltadot = -vn;
    for (int j = 0; j < 3; j++) {
        k->n[j] = n[j];
        k->Vt[j] = v[j] - vn * n[j];
    }
    k->v = br_norm3(k->Vt);
}

/* surface (a constant in both backends' loops), set frame, point -> kinematics */
BR_HD void br_kin(int surface, const br_set_frame *f, const double r[3], br_point_kin *k)
{
    if (surface == BR_SURF_SPHERE) br_kin_sphere(f, r, k);
    else if (surface == BR_SURF_CYLINDER) br_kin_cylinder(f, r, k);
    else br_kin_plane(f, r, k);
}

#endif
