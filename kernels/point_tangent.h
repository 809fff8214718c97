/* point_tangent.h: tangents of the contact forces for a linearly implicit integrator.
 *
 * Per point, each friction law returns with its force the derivative of that force (after the
 * state update of the step, from the state at the step start) with respect to the sliding
 * velocity Vt and the normal force N (br_fric_tangent); Hunt-Crossley gives dN/ddelta and
 * dN/ddeltadot (point_normal.h). The backends reduce them to the 6x6 tangents of the
 * set's wrench on frame A (force, and moment about A's origin):
 *     dW_A = -K dxi_u - C dxi_v
 * with xi_u the relative displacement (translation at A's origin, small rotation) of A with
 * respect to B and xi_v the relative twist (c, w) of point_kinematics.h. Per point the relative
 * displacement and velocity are du = G xi_u, dV = G xi_v, G = [I, -[rw]x] (3 x 6), and the force
 * on A is f = N n - F:
 *     K_pt = kn (n - jN) n^T                  (only the normal force depends on position)
 *     C_pt = cn (n - jN) n^T + J (I - n n^T)  (J = dF/dVt; dVt = (I - n n^T) dV)
 * (the part with n alone is the normal force's, the rest the friction's)
 *     K = sum G^T K_pt G,  C = sum G^T C_pt G
 * Not included (docs/time-stepping.md): the rotation of the normal with a rotation of B and
 * the convective change of Vt with a rotation of A (both of order force x rotation, or
 * velocity x rotation, against stiffness x displacement). */
#ifndef BR_POINT_TANGENT_H
#define BR_POINT_TANGENT_H

#include "br_hd.h"

/* Derivatives of one point's friction force F (on B) after its state update. */
typedef struct br_fric_tangent {
    double J[9];  /* dF/dVt, row-major: dF_i = J[3 i + j] dVt_j */
    double jN[3]; /* dF/dN */
} br_fric_tangent;

/* Tangent of one contact set's wrench on A, 6 x 6 column-major (entry (r, c) at [6 c + r]),
 * rows and columns ordered (translation x y z, rotation x y z); the friction part separately
 * (an integrator books the friction and normal-damping work of the forces it applies: the
 * normal damping part is C - Cf, Hunt-Crossley's cn n n^T lifted). */
typedef struct br_set_tangent {
    double K[36];  /* -dW_A / dxi_u: stiffness */
    double C[36];  /* -dW_A / dxi_v: damping */
    double Kf[36]; /* the friction forces' part of K */
    double Cf[36]; /* ... of C */
    double Wd[6];  /* the damping part of the normal forces, (N - K delta^pK) n, as a wrench on A */
} br_set_tangent;

/* What the backends add up per point to form a set's tangent (br_tangent_finish): the friction
 * parts in full, the normal parts kn (G^T n)(G^T n)^T and cn (...) as their upper triangles (they
 * are symmetric), and W_d. 120 doubles, against 150 for br_set_tangent itself. */
typedef struct br_tangent_sums {
    double Kf[36], Cf[36];
    double Kn[21], Cn[21]; /* upper triangles, row by row: (0,0) (0,1) .. (0,5) (1,1) .. (5,5) */
    double Wd[6];
} br_tangent_sums;

#define BR_TANGENT_N 120

/* T <- J = alpha I + u e^T, jN */
BR_HD void br_tan_rank1(br_fric_tangent *T, double alpha, const double u[3], const double e[3],
                        const double jN[3])
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) T->J[3 * i + j] = (i == j ? alpha : 0.0) + u[i] * e[j];
        T->jN[i] = jN[i];
    }
}

/* T <- zero */
BR_HD void br_tan_zero(br_fric_tangent *T)
{
    for (int k = 0; k < 9; k++) T->J[k] = 0.0;
    for (int k = 0; k < 3; k++) T->jN[k] = 0.0;
}

/* x = a h -> g(x) = ((1 + x) exp(-x) - 1) / x^2, so that d phi(a, h) / da = h^2 g(a h)
 * (phi of point_friction.h); a series below x = 0.01 (no cancellation) */
BR_HD double br_phi_slope_g(double x)
{
    if (x < 0.01)
        return -0.5 + x * (1.0 / 3.0 + x * (-1.0 / 8.0 + x * (1.0 / 30.0 + x * (-1.0 / 144.0 + x / 840.0))));
    return ((1.0 + x) * br_exp(-x) - 1.0) / (x * x);
}

/* tangent sums -> zero */
BR_HD void br_tangent_zero(br_tangent_sums *t)
{
    double *a = (double *)t;
    for (int k = 0; k < BR_TANGENT_N; k++) a[k] = 0.0;
}

/* acc, b -> acc + b (fixed order) */
BR_HD void br_tangent_combine(br_tangent_sums *acc, const br_tangent_sums *b)
{
    double *a = (double *)acc;
    const double *c = (const double *)b;
    for (int k = 0; k < BR_TANGENT_N; k++) a[k] += c[k];
}

/* the sums of a set's points -> its tangent: K = Kf + the normal part, C likewise, W_d */
BR_HD void br_tangent_finish(const br_tangent_sums *s, br_set_tangent *t)
{
    for (int k = 0; k < 36; k++) t->Kf[k] = s->Kf[k], t->Cf[k] = s->Cf[k];
    for (int r = 0, q = 0; r < 6; r++)
        for (int c = r; c < 6; c++, q++) {
            t->K[6 * c + r] = s->Kf[6 * c + r] + s->Kn[q], t->K[6 * r + c] = s->Kf[6 * r + c] + s->Kn[q];
            t->C[6 * c + r] = s->Cf[6 * c + r] + s->Cn[q], t->C[6 * r + c] = s->Cf[6 * r + c] + s->Cn[q];
        }
    for (int k = 0; k < 6; k++) t->Wd[k] = s->Wd[k];
}

/* a (3), rw -> G^T a = (a, rw x a) */
BR_HD void br_tan_lift(const double rw[3], const double a[3], double g[6])
{
    g[0] = a[0], g[1] = a[1], g[2] = a[2];
    br_cross3(rw, a, g + 3);
}

/* One point's tangent ingredients in the set's six coordinates (the formulas above):
 *     gn = G^T n,  gj = G^T mj with mj = -kn jN  (the friction part of K_pt lifted: gj gn^T),
 *     Jc = J + b n^T with b = -cn jN - J n      (the friction part of C_pt; lifted: G^T Jc G)
 * The point adds to its set's tangent sums (br_tangent_sums) the products
 *     Wd += Nd gn,  Kf += gj gn^T,  Cf += G^T Jc G (br_tan_sandwich_col),  Kn += kn gn gn^T,
 *     Cn += cn gn gn^T
 * (Nd the damping part of its normal force; out of contact kn = cn = Nd = 0 and J = 0), which
 * the CPU backend adds over blocks of points (host/field/field_cpu.c) and the CUDA backend over the
 * lanes of a warp (kernels/field_cuda.cu). */
typedef struct br_tan_pieces {
    double gn[6], gj[6];
    double Jc[9]; /* row-major */
} br_tan_pieces;

/* rw, unit normal n, kn, cn, friction tangent ft -> the point's pieces (returned by value: a
 * vectorized caller keeps no addressable aggregate in its loop body, see host/field/field_cpu.c) */
BR_HD br_tan_pieces br_tan_point_pieces(const double rw[3], const double n[3], double kn, double cn,
                                        const br_fric_tangent *ft)
{
    br_tan_pieces p;
    double mj[3], b[3];
    for (int i = 0; i < 3; i++) {
        mj[i] = -kn * ft->jN[i];
        b[i] = -cn * ft->jN[i] - (ft->J[3 * i] * n[0] + ft->J[3 * i + 1] * n[1] + ft->J[3 * i + 2] * n[2]);
    }
    br_tan_lift(rw, n, p.gn);
    br_tan_lift(rw, mj, p.gj);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) p.Jc[3 * i + j] = ft->J[3 * i + j] + b[i] * n[j];
    return p;
}

/* rw, 3x3 A (row-major), column c (0..5; a constant after unrolling) -> column c of G^T A G:
 * column c of A G is A e_c (c < 3) or A (e_{c-3} x rw) (c >= 3), lifted by G^T */
BR_HD void br_tan_sandwich_col(const double rw[3], const double A[9], int c, double g[6])
{
    double y[3];
    for (int i = 0; i < 3; i++) {
        const double *a = A + 3 * i;
        /* e_0 x rw = (0, -rw2, rw1), e_1 x rw = (rw2, 0, -rw0), e_2 x rw = (-rw1, rw0, 0) */
        y[i] = c < 3 ? a[c < 3 ? c : 0]
             : c == 3 ? a[2] * rw[1] - a[1] * rw[2]
             : c == 4 ? a[0] * rw[2] - a[2] * rw[0]
                      : a[1] * rw[0] - a[0] * rw[1];
    }
    br_tan_lift(rw, y, g);
}

#endif
