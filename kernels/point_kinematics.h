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

enum { BR_SURF_PLANE = 0 };

/* Per-set, per-step frame data in world axes (built by br_set_frame_build). */
typedef struct br_set_frame {
    double xA[3];  /* origin of frame A (world) */
    double RA[9];  /* attitude of frame A, row-major, body -> world */
    double c[3];   /* relative velocity of A w.r.t. B at A's origin */
    double w[3];   /* relative angular velocity w_A - w_B */
    double n[3];   /* counter-surface unit normal (world), out of B toward A */
    double d;      /* n . (e_P - x_A): plane offset measured from A's origin */
    int surface;   /* BR_SURF_PLANE */
} br_set_frame;

/* Kinematic state of one contact point. */
typedef struct br_point_kin {
    double rw[3];     /* world offset of the point from A's origin (e_A - x_A) */
    double delta;     /* penetration, > 0 in contact */
    double deltadot;  /* penetration rate -V.n */
    double Vt[3];     /* tangential (sliding) velocity of A w.r.t. B */
    double v;         /* |Vt| */
} br_point_kin;

/* Body-fixed point r (frame A) + set frame -> penetration, rate, sliding velocity. */
BR_HD void br_kin_plane(const br_set_frame *f, const double r[3], br_point_kin *k)
{
    br_mat3_vec(f->RA, r, k->rw);
    k->delta = f->d - br_dot3(f->n, k->rw);
    double wr[3], V[3];
    br_cross3(f->w, k->rw, wr);
    V[0] = f->c[0] + wr[0];
    V[1] = f->c[1] + wr[1];
    V[2] = f->c[2] + wr[2];
    double vn = br_dot3(V, f->n);
    k->deltadot = -vn;
    k->Vt[0] = V[0] - vn * f->n[0];
    k->Vt[1] = V[1] - vn * f->n[1];
    k->Vt[2] = V[2] - vn * f->n[2];
    k->v = br_norm3(k->Vt);
}

#endif
