/* rigid.c: rigid-body kinematics and dynamics. Attitude is a unit quaternion
 * (w, x, y, z); the Newton-Euler equations are written in world axes,
 *     m a = f,    I_w alpha = tau - w x (I_w w),    I_w = R I R^T,
 * and a locked DOF (a world translation or rotation axis) is removed from the
 * system: its acceleration is zero and the remaining rows are solved with the
 * locked columns dropped (a body free only about z gets alpha_z = tau_z / I_zz'). */
#include "model/rigid.h"
#include "kernels/struct_body.h"

#include <math.h>
#include <string.h>

void br_quat_to_R(const double q[4], double R[9]) { br_sb_quat_R(q, R); }

void br_quat_advance(double q[4], const double w[3], double h) { br_sb_quat_advance(q, w, h); }

void br_rigid_inertia_world(const double R[9], const double Ib[9], double Iw[9]) { br_sb_inertia_world(R, Ib, Iw); }

/* symmetric positive definite A (3x3), free mask, b -> x solving the free rows/columns, x = 0 elsewhere */
static void solve_free(const double A[9], const int freeax[3], const double b[3], double x[3])
{
    int idx[3], n = 0;
    for (int i = 0; i < 3; i++) {
        x[i] = 0.0;
        if (freeax[i]) idx[n++] = i;
    }
    double M[3][4];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) M[i][j] = A[3 * idx[i] + idx[j]];
        M[i][n] = b[idx[i]];
    }
    /* Gaussian elimination; an SPD matrix needs no pivoting */
    for (int c = 0; c < n; c++)
        for (int r = c + 1; r < n; r++) {
            const double f = M[r][c] / M[c][c];
            for (int j = c; j <= n; j++) M[r][j] -= f * M[c][j];
        }
    for (int r = n - 1; r >= 0; r--) {
        double s = M[r][n];
        for (int j = r + 1; j < n; j++) s -= M[r][j] * x[idx[j]];
        x[idx[r]] = s / M[r][r];
    }
}

void br_rigid_accel(const br_body *b, const double R[9], const double w[3], const double f[3],
                    const double tau[3], double a[3], double alpha[3])
{
    for (int k = 0; k < 3; k++) a[k] = (b->lock & (BR_LOCK_X << k)) ? 0.0 : f[k] / b->mass;
    double Iw[9], Iww[3], rhs[3];
    br_rigid_inertia_world(R, b->Ib, Iw);
    for (int i = 0; i < 3; i++) Iww[i] = Iw[3 * i] * w[0] + Iw[3 * i + 1] * w[1] + Iw[3 * i + 2] * w[2];
    rhs[0] = tau[0] - (w[1] * Iww[2] - w[2] * Iww[1]);
    rhs[1] = tau[1] - (w[2] * Iww[0] - w[0] * Iww[2]);
    rhs[2] = tau[2] - (w[0] * Iww[1] - w[1] * Iww[0]);
    const int freeax[3] = {!(b->lock & BR_LOCK_RX), !(b->lock & BR_LOCK_RY), !(b->lock & BR_LOCK_RZ)};
    solve_free(Iw, freeax, rhs, alpha);
}

void br_kframe_state(const br_kframe *k, double t, br_frame_state *out)
{
    for (int j = 0; j < 3; j++) {
        out->x[j] = k->x0[j] + k->v[j] * t + br_timefn_eval(&k->disp[j], t);
        out->v[j] = k->v[j] + br_timefn_rate(&k->disp[j], t);
        out->w[j] = k->w[j];
    }
    /* constant spin about the frame origin: the exact rotation by |w| t about w */
    double q[4] = {k->q0[0], k->q0[1], k->q0[2], k->q0[3]};
    if (k->w[0] != 0.0 || k->w[1] != 0.0 || k->w[2] != 0.0) br_quat_advance(q, k->w, t);
    br_quat_to_R(q, out->R);
}
