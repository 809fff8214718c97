/* implicit.c: the free bodies' implicit system: contact wrench tangents and springs on the
 * bodies of the system, h -> their velocity changes over the step (the gamma scheme,
 * docs/time-stepping.md); the maps from a set's frames to its relative twist. */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "step/stages.h"
#include "model/rigid.h"

/* spring k at the frames' state -> its linearization about it: nd rows (1 for a torsion spring, 3
 * otherwise) of the maps D[0], D[1] (nd x 6, row-major) from the twists (v, w at the origin) of its
 * frames a and b to the rate of its coordinate (the anchors' separation pb - pa; the torsion angle),
 * and the slopes K, C (nd x nd, symmetric) of its force in that coordinate (the force on a is
 * -D[0]^T f, on b -D[1]^T f, as br_fwd_loads applies it). An axial spring adds the geometric
 * stiffness f / L across its line; a slack rope, or one whose damper would push, has none. */
static int spring_linear(const br_model *m, const br_data *d, int k, double D[2][18], double K[9], double C[9])
{
    const br_spring *S = &m->spring[k];
    const br_frame_state *A = &d->frames[S->frame_a], *B = &d->frames[S->frame_b];
    memset(D, 0, 2 * 18 * sizeof(double));
    memset(K, 0, 9 * sizeof(double));
    memset(C, 0, 9 * sizeof(double));
    if (S->torsion) {
        for (int j = 0; j < 3; j++) D[0][3 + j] = -S->axis[j], D[1][3 + j] = S->axis[j];
        K[0] = S->k, C[0] = S->c;
        return 1;
    }
    double r[2][3], dd[3], dv[3], wr[2][3];
    br_mat3_vec(A->R, S->pa, r[0]);
    br_mat3_vec(B->R, S->pb, r[1]);
    br_cross3(A->w, r[0], wr[0]);
    br_cross3(B->w, r[1], wr[1]);
    for (int j = 0; j < 3; j++)
        dd[j] = B->x[j] + r[1][j] - A->x[j] - r[0][j], dv[j] = B->v[j] + wr[1][j] - A->v[j] - wr[0][j];
    for (int side = 0; side < 2; side++) { /* +-[I, -[r]x]: the anchor's velocity v + w x r */
        const double sg = side ? 1.0 : -1.0, *q = r[side];
        double *Ds = D[side];
        for (int j = 0; j < 3; j++) Ds[6 * j + j] = sg;
        Ds[6 * 0 + 4] = sg * q[2], Ds[6 * 0 + 5] = -sg * q[1];
        Ds[6 * 1 + 3] = -sg * q[2], Ds[6 * 1 + 5] = sg * q[0];
        Ds[6 * 2 + 3] = sg * q[1], Ds[6 * 2 + 4] = -sg * q[0];
    }
    if (!(S->rest > 0.0)) {
        for (int j = 0; j < 3; j++) K[4 * j] = S->k, C[4 * j] = S->c;
        return 3;
    }
    const double L = sqrt(br_dot3(dd, dd));
    if (!(L > 0.0)) return 3;
    const double e[3] = {dd[0] / L, dd[1] / L, dd[2] / L}, ext = L - S->rest;
    const double mag = S->k * ext + S->c * br_dot3(dv, e);
    if (S->rope && (ext <= 0.0 || mag < 0.0)) return 3;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double ee = e[i] * e[j];
            K[3 * i + j] = S->k * ee + mag / L * ((i == j) - ee);
            C[3 * i + j] = S->c * ee;
        }
    return 3;
}

/* model, data, frame f, span h, gamma -> its twist at t_n (V0) and the change of its twist over the
 * step (dV: a body's solved one, a prescribed frame's known one; the ground and a structure's
 * frames none, their motion is not in the free bodies' system) */
static void frame_twist_change(const br_model *m, const br_data *d, int f, double h, double V0[6], double dV[6])
{
    const br_frame_state *fs = &d->frames[f];
    for (int j = 0; j < 3; j++) V0[j] = fs->v[j], V0[3 + j] = fs->w[j];
    memset(dV, 0, 6 * sizeof(double));
    if (frame_free_body(m, f) && d->rb_slot[f - 1] >= 0) {
        for (int j = 0; j < 6; j++) dV[j] = h * d->acc[6 * (f - 1) + j];
    } else if (frame_prescribed(m, f)) { /* its state at t + h: br_fwd_accel's */
        const br_frame_state later = d->kf_ahead[m->nkframe + f - 1 - m->nbody];
        for (int j = 0; j < 3; j++) dV[j] = later.v[j] - V0[j], dV[3 + j] = later.w[j] - V0[3 + j];
    }
}

/* spring k -> 1 if the gamma scheme takes it implicitly (springs_implicit): one side on a body of the
 * free bodies' system, the other free, prescribed or the ground. A spring to a structure's frame stays
 * an explicit force at t_n on both sides (the structure's step does not take its change). */
static int spring_in_system(const br_model *m, const br_data *d, int k)
{
    const int fr[2] = {m->spring[k].frame_a, m->spring[k].frame_b};
    int in = 0;
    for (int side = 0; side < 2; side++) {
        const int b = frame_body(m, fr[side]);
        if (b >= 0 && m->body[b].part >= 0) return 0;
        in |= b >= 0 && d->rb_slot[b] >= 0;
    }
    return in;
}

/* body B (world inertia Iw), DOF j, the diagonal stiffness k and damping c acting on it, h, the largest
 * W^2 so far -> the larger of it and this DOF's, max(h^2 |k| / m_j, (h |c| / m_j)^2) (m_j the mass or
 * the inertia about axis j); a locked DOF, or one without mass, does not move and adds nothing */
static double dof_w2(const br_body *B, const double Iw[9], int j, double k, double c, double h, double W2)
{
    const double mj = j < 3 ? B->mass : Iw[4 * (j - 3)];
    if (!(mj > 0.0) || (B->lock & (1 << j))) return W2;
    const double wk = h * h * fabs(k) / mj, wc = h * fabs(c) / mj;
    return fmax(W2, fmax(wk, wc * wc));
}

/* spring linearization D, K, C (nd rows), step h, frames -> W^2, the larger of h^2 (D^T K D)_jj / m_j
 * and (h (D^T C D)_jj / m_j)^2 over its free bodies' unlocked DOFs (as blended_gamma's for a contact) */
static double spring_w2(const br_model *m, const br_data *d, const int fr[2], const double D[2][18], const double K[9],
                        const double C[9], int nd, double h)
{
    double W2 = 0.0;
    for (int side = 0; side < 2; side++) {
        if (!frame_free_body(m, fr[side]) || d->rb_slot[fr[side] - 1] < 0) continue;
        const br_body *B = &m->body[fr[side] - 1];
        double Iw[9];
        br_rigid_inertia_world(d->frames[fr[side]].R, B->Ib, Iw);
        for (int j = 0; j < 6; j++) {
            double kj = 0.0, cj = 0.0;
            for (int a = 0; a < nd; a++)
                for (int c = 0; c < nd; c++)
                    kj += D[side][6 * a + j] * K[3 * a + c] * D[side][6 * c + j], cj += D[side][6 * a + j] * C[3 * a + c] * D[side][6 * c + j];
            W2 = dof_w2(B, Iw, j, kj, cj, h, W2);
        }
    }
    return W2;
}

/* model, data with the step's tangents, h -> the free bodies' gamma with substeps:
 * 1/2 + (1 - rho_inf^2) / 2 W^2 / (1 + W^2), W = w h the step's largest contact frequency against
 * it (the diagonal ratios of h^2 L^T K L and h L^T C L to the bodies' masses and inertias; a
 * spring on one of the bodies counts with its h^2 D^T K D, spring_w2).
 * Resolved contacts (W << 1: an impact in substeps) take the trapezoidal rule (gamma 1/2), second
 * order and without numerical dissipation on a linear spring for any sequence of steps; unresolved
 * ones (a stiff stuck bristle at the full step, W >> 1) backward Euler (gamma 1 at rho_inf = 0, the
 * scheme of fixed steps), and their modes die. The dissipation a step adds, about (2 gamma - 1) W^2
 * of a mode's energy, is of order W^4 where it is resolved (docs/time-stepping.md). */
static double blended_gamma(const br_model *m, const br_data *d, double h)
{
    double W2 = 0.0;
    for (int q = 0; q < d->nrbset; q++) {
        const int s = d->rb_set[q];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const br_set_tangent *T = &d->res[s].tan;
        for (int side = 0; side < 2; side++) {
            const int f = side ? cs->frame_b : cs->frame_a;
            if (!frame_free_body(m, f)) continue;
            const br_body *B = &m->body[f - 1];
            double L[36], Iw[9];
            br_step_side_map(&d->sm, d->frames, s, side, L);
            br_rigid_inertia_world(d->frames[f].R, B->Ib, Iw);
            for (int j = 0; j < 6; j++) { /* (L^T X L)_jj = sum_rc L_rj X_rc L_cj */
                double k = 0.0, c = 0.0;
                for (int r = 0; r < 6; r++)
                    for (int cc = 0; cc < 6; cc++)
                        k += L[6 * j + r] * T->K[6 * cc + r] * L[6 * j + cc], c += L[6 * j + r] * T->C[6 * cc + r] * L[6 * j + cc];
                W2 = dof_w2(B, Iw, j, k, c, h, W2);
            }
        }
    }
    for (int k = 0; k < m->nspring; k++) { /* the springs on the system's bodies (springs_implicit) */
        const int fr[2] = {m->spring[k].frame_a, m->spring[k].frame_b};
        if (!spring_in_system(m, d, k)) continue;
        double D[2][18], K[9], C[9];
        const int nd = spring_linear(m, d, k, D, K, C);
        W2 = fmax(W2, spring_w2(m, d, fr, D, K, C, nd, h));
    }
    return 0.5 + 0.5 * d->theta / (1.0 + 1.0 / W2); /* W2 / (1 + W2), also for W2 = 0 or infinite */
}

/* the springs on a body of the free bodies' system, under the run's controller (the gamma scheme):
 * their force acts as f_n + beta (f_{n+1} - f_n), linearized like the contacts' wrenches,
 *   f_{n+1} - f_n = K D h (V_n + gamma dV) + C D dV   (a prescribed side: its known motion),
 * while the bodies move by dx = h (V_n + gamma dV). On a mass m and a linear spring k the step
 * changes kinetic plus elastic energy by -(gamma - 1/2) m dv^2 - (beta - 1/2) k dx^2: never a gain
 * for gamma, beta >= 1/2, and least at beta = 1/2. A spring takes
 *   beta = 1/2 + (gamma - 1/2) W^2 / (1 + W^2)   (W = w h, its frequency against its bodies),
 * the trapezoidal rule where it is soft (its mode resolved), the contacts' gamma where it is stiff
 * (its unresolved mode damped with theirs: blended_gamma counts the springs too; at beta = 1/2 a
 * stiff spring's map keeps an eigenvalue -1). Tried and measured on the chain (docs/time-stepping.md):
 * the springs explicit (beta = 0) gained 28 % of the input work at dt 1e-2 where gamma was near 1/2;
 * beta = gamma ended static_reg's chain 1.2 % off; beta = 1 - gamma, which keeps the energy while
 * gamma stays constant, 0.9 % (the term (gamma - 1/2)(k dx^2 - m dv^2) telescopes only at constant
 * gamma, and gamma changes wherever the law's regularization is entered); this rule 0.15 %.
 * pass 0: their terms join the system A dV = x (rows and columns of the bodies' blocks, n6 its
 * leading dimension); pass 1, with d->acc solved: d->p_spring_loss takes their damper's power as the
 * kinetic energy sees it, (r_n + beta dr)^T C (r_n + dr/2) (r the rate of the spring's coordinate),
 * in place of its power at t_n. */
static void springs_implicit(const br_model *m, br_data *d, double h, int pass, double *A, double *x, int n6)
{
    const double g = d->gam, hh = g * h;
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        const int fr[2] = {S->frame_a, S->frame_b};
        int slot[2];
        for (int side = 0; side < 2; side++) slot[side] = frame_free_body(m, fr[side]) ? d->rb_slot[fr[side] - 1] : -1;
        if (!spring_in_system(m, d, k)) continue;
        double D[2][18], K[9], C[9], un[3] = {0}, dvk[3] = {0}, rn[3] = {0};
        const int nd = spring_linear(m, d, k, D, K, C);
        const double W2 = spring_w2(m, d, fr, D, K, C, nd, h);
        const double beta = 0.5 + (g - 0.5) / (1.0 + 1.0 / W2), hb = beta * h; /* W2 / (1 + W2), also at 0 */
        for (int side = 0; side < 2; side++) { /* the coordinate's rate at t_n, its known change (prescribed) */
            double V0[6], dV[6];
            frame_twist_change(m, d, fr[side], h, V0, dV);
            for (int i = 0; i < nd; i++)
                for (int j = 0; j < 6; j++) {
                    rn[i] += D[side][6 * i + j] * V0[j];
                    if (pass || slot[side] < 0) dvk[i] += D[side][6 * i + j] * dV[j];
                }
        }
        if (pass) { /* dvk: the solved change of the rate */
            double pm = 0.0, pn = 0.0, df[3] = {0};
            for (int i = 0; i < nd; i++)
                for (int j = 0; j < nd; j++) {
                    pm += (rn[i] + beta * dvk[i]) * C[3 * i + j] * (rn[j] + 0.5 * dvk[j]), pn += rn[i] * C[3 * i + j] * rn[j];
                    df[i] += K[3 * i + j] * (h * rn[j] + hh * dvk[j]) + C[3 * i + j] * dvk[j];
                }
            d->p_spring_loss += pm - pn;
            for (int side = 0; side < 2; side++) { /* a prescribed side: the drive's work on beta df (br_fwd_loads booked f_n) */
                if (!frame_prescribed(m, fr[side])) continue;
                double V0[6], dV[6];
                frame_twist_change(m, d, fr[side], h, V0, dV);
                for (int i = 0; i < nd; i++)
                    for (int j = 0; j < 6; j++) d->p_drive += beta * df[i] * D[side][6 * i + j] * V0[j];
            }
            continue;
        }
        /* the right side: -hb D_P^T (K (h rate_n + hh dvk) + C dvk), dvk the prescribed sides' change */
        double f[3] = {0};
        for (int i = 0; i < nd; i++) un[i] = h * rn[i] + hh * dvk[i];
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < nd; j++) f[i] += K[3 * i + j] * un[j] + C[3 * i + j] * dvk[j];
        for (int P = 0; P < 2; P++) {
            if (slot[P] < 0) continue;
            for (int r = 0; r < 6; r++) {
                double t = 0.0;
                for (int i = 0; i < nd; i++) t += D[P][6 * i + r] * f[i];
                x[6 * slot[P] + r] -= hb * t;
            }
            for (int Q = 0; Q < 2; Q++) { /* A += hb D_P^T (hh K + C) D_Q */
                if (slot[Q] < 0) continue;
                double ED[18]; /* (hh K + C) D_Q */
                for (int i = 0; i < nd; i++)
                    for (int c = 0; c < 6; c++) {
                        double t = 0.0;
                        for (int j = 0; j < nd; j++) t += (hh * K[3 * i + j] + C[3 * i + j]) * D[Q][6 * j + c];
                        ED[6 * i + c] = t;
                    }
                for (int c = 0; c < 6; c++)
                    for (int r = 0; r < 6; r++) {
                        double t = 0.0;
                        for (int i = 0; i < nd; i++) t += D[P][6 * i + r] * ED[6 * i + c];
                        A[(size_t)(6 * slot[Q] + c) * n6 + 6 * slot[P] + r] += hb * t;
                    }
            }
        }
    }
}

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
int br_stage_rigid_implicit(const br_model *m, br_data *d, double h)
{
    if (d->substepping) { /* the gamma scheme (see above); its first step backward Euler's */
        d->gam = d->wend_ok ? blended_gamma(m, d, h) : 1.0;
        d->theta_h = 1.0 / d->gam;
    }
    const double g = d->gam, hh = g * h, th = d->theta_h;
    const int n6 = 6 * d->nrb;
    const br_ga_shape *sh;
    const br_step_var *xv = br_data_var(d, h, &sh); /* the step's view (the prescribed frames' change) */
    double *A = d->rb_A, *x = d->rb_x;
    memset(A, 0, (size_t)n6 * n6 * sizeof(double));
    for (int b = 0; b < m->nbody; b++) {
        const int k = d->rb_slot[b];
        if (k < 0) continue;
        const br_body *B = &m->body[b];
        const double *w = d->w + 3 * b;
        double Iw[9], Iww[3], gyr[3];
        br_rigid_inertia_world(d->frames[1 + b].R, B->Ib, Iw);
        br_mat3_vec(Iw, w, Iww);
        br_cross3(w, Iww, gyr);
        for (int i = 0; i < 3; i++) {
            A[(size_t)(6 * k + i) * n6 + 6 * k + i] = B->mass;
            for (int j = 0; j < 3; j++) A[(size_t)(6 * k + 3 + j) * n6 + 6 * k + 3 + i] = Iw[3 * i + j];
            x[6 * k + i] = h * d->f[3 * b + i];
            x[6 * k + 3 + i] = h * (d->tau[3 * b + i] - gyr[i]);
        }
    }
    for (int q = 0; q < d->nrbset; q++) {
        const int s = d->rb_set[q];
        const br_contact_set_desc *cs = &m->cset[s].desc;
        const br_set_tangent *T = &d->res[s].tan;
        double E[36];
        for (int k = 0; k < 36; k++) E[k] = hh * T->K[k] + T->C[k];
        int slot[2];
        double L[2][36];
        for (int side = 0; side < 2; side++) {
            const int fr_s = side ? cs->frame_b : cs->frame_a;
            slot[side] = frame_free_body(m, fr_s) ? d->rb_slot[fr_s - 1] : -1;
            br_step_side_map(&d->sm, d->frames, s, side, L[side]);
        }
        double Cp[6] = {0}; /* C L p - theta h K L V_n over the free sides, - K du_B - C dv_B over the prescribed */
        if (g < 1.0) { /* the start's share: h (1 - gamma) (W_n - W_p), W_n the wrench applied at the end of the last step */
            const br_set_result *r = &d->res[s];
            const double Wp[6] = {r->F_A[0], r->F_A[1], r->F_A[2], r->M_A[0], r->M_A[1], r->M_A[2]};
            const double *Wn = d->wend + 18 * s;
            for (int j = 0; j < 6; j++) Cp[j] = (1.0 - g) / g * (Wn[j] - Wp[j]);
        }
        {
            double du[6] = {0}, dv[6] = {0};
            br_step_prescribed_change(&d->sm, xv, s, xv->kf_h, th * hh, hh, du, dv);
            for (int j = 0; j < 6; j++) du[j] = -du[j], dv[j] = -dv[j];
            mat6_vec(T->K, du, Cp, 1);
            mat6_vec(T->C, dv, Cp, 1);
        }
        for (int Q = 0; Q < 2; Q++) {
            if (slot[Q] < 0) continue;
            const int b = (Q ? cs->frame_b : cs->frame_a) - 1;
            double Lp[6], Vn[6] = {d->v[3 * b], d->v[3 * b + 1], d->v[3 * b + 2], d->w[3 * b], d->w[3 * b + 1],
                                   d->w[3 * b + 2]};
            mat6_vec(L[Q], d->vpred + 6 * b, Lp, 0);
            mat6_vec(T->C, Lp, Cp, 1);
            for (int j = 0; j < 6; j++) Vn[j] *= -th * hh;
            mat6_vec(L[Q], Vn, Lp, 0);
            mat6_vec(T->K, Lp, Cp, 1);
        }
        for (int P = 0; P < 2; P++) {
            if (slot[P] < 0) continue;
            for (int r = 0; r < 6; r++) {
                double t = 0.0;
                for (int c = 0; c < 6; c++) t += L[P][6 * r + c] * Cp[c];
                x[6 * slot[P] + r] += hh * t;
            }
            for (int Q = 0; Q < 2; Q++) {
                if (slot[Q] < 0) continue;
                double EL[36]; /* E L_Q */
                for (int c = 0; c < 6; c++) mat6_vec(E, L[Q] + 6 * c, EL + 6 * c, 0);
                for (int c = 0; c < 6; c++)
                    for (int r = 0; r < 6; r++) {
                        double t = 0.0; /* (L_P^T E L_Q)(r, c) */
                        for (int k = 0; k < 6; k++) t += L[P][6 * r + k] * EL[6 * c + k];
                        A[(size_t)(6 * slot[Q] + c) * n6 + 6 * slot[P] + r] += hh * t;
                    }
            }
        }
    }
    if (d->substepping) springs_implicit(m, d, h, 0, A, x, n6);
    for (int b = 0; b < m->nbody; b++) { /* locked DOFs: dV = 0 */
        const int k = d->rb_slot[b];
        for (int j = 0; k >= 0 && j < 6; j++) {
            if (!(m->body[b].lock & (1 << j))) continue;
            const int r = 6 * k + j;
            for (int c = 0; c < n6; c++) A[(size_t)c * n6 + r] = A[(size_t)r * n6 + c] = 0.0;
            A[(size_t)r * n6 + r] = 1.0;
            x[r] = 0.0;
        }
    }
    for (int b = 0; !d->substepping && b < m->nbody; b++) { /* fixed steps: spring-joined bodies explicit */
        const int k = d->rb_slot[b];
        if (k < 0 || !d->rb_spring[b]) continue;
        for (int j = 0; j < 6; j++) {
            const int r = 6 * k + j;
            for (int c = 0; c < n6; c++) A[(size_t)c * n6 + r] = A[(size_t)r * n6 + c] = 0.0;
            A[(size_t)r * n6 + r] = 1.0;
            x[r] = 0.0;
        }
    }
    /* one LU per group of bodies coupled by contacts and springs (coupling_setup numbers their blocks
     * together); at fixed steps a spring-joined body's identity block leaves the others' solution as it was */
    for (int g = 0; g < d->nrbgroup; g++) {
        const int o = 6 * d->rb_group[g], ng = 6 * (d->rb_group[g + 1] - d->rb_group[g]);
        lapack_int nn = ng, ld = n6, one = 1, info = 0;
        LAPACK_dgesv(&nn, &one, A + (size_t)o * n6 + o, &ld, d->rb_piv + o, x + o, &ld, &info);
        if (info != 0) return -1;
    }
    for (int b = 0; b < m->nbody; b++) {
        const int k = d->rb_slot[b];
        if (!d->substepping && d->rb_spring[b]) continue; /* br_fwd_accel's explicit step */
        for (int j = 0; k >= 0 && j < 6; j++) d->acc[6 * b + j] = x[6 * k + j] / h;
    }
    if (d->substepping) springs_implicit(m, d, h, 1, NULL, NULL, n6);
    return 0;
}
