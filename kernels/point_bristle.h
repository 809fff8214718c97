/* point_bristle.h: the bristle-tip and Maxwell-slip laws of physics.md
 * sections 3.6-3.8, with the signature of point_friction.h. Their sigma0,
 * sigma1 and gms k_i, s_i are absolute (N/m, N s/m per point); the steady
 * characteristic is 3.5's mu(s) = mu_k + (mu_s - mu_k) exp(-(s/V_st)^alpha) + nu s.
 *
 * bristle2 and bristle_implicit are split into a rate function (state, Vt, N ->
 * state derivative, the formula of the spec) and a step built on it; the test
 * suite's SUNDIALS CVODE references integrate the rate functions directly. */
#ifndef BR_POINT_BRISTLE_H
#define BR_POINT_BRISTLE_H

#include "point_friction.h"

/* Iterations of bristle_implicit's slip solve: a fixed count, so that the CPU point loop
 * vectorizes (a lane that has converged holds its root). Newton runs monotonically from the end of
 * a bracket where the residual's curvature keeps it on one side of the root, so it converges
 * within a few steps except near a fold of the balance (docs/flop-counts.md: the counts over the
 * benchmark, S4 and test_laws' sweep). */
#define BR_SLIP_ITER 10

/* alpha in {0, 0.5, ..., 4} -> the inflection point u_i of E(u) = exp(-u^alpha), where
 * u_i^alpha = (alpha - 1) / alpha: E is concave below it and convex above (for alpha <= 1 convex
 * everywhere: u_i = 0), and E(u_i) = exp(-(alpha - 1) / alpha) in *Ei. Constants, selected by
 * 2 alpha (the same for every point: br_select_uniform). */
BR_HD double br_stribeck_inflection(double alpha, double *Ei)
{
    const int n = (int)(2.0 * alpha);
    double ui = 0.0, E = 1.0; /* alpha <= 1 */
#define BR_INFLECTION(k, u, e) ui = br_select_uniform(n == (k), (u), ui), E = br_select_uniform(n == (k), (e), E)
    BR_INFLECTION(3, 0.4807498567691361, 0.7165313105737893);
    BR_INFLECTION(4, 0.7071067811865476, 0.6065306597126334);
    BR_INFLECTION(5, 0.8151931096059227, 0.5488116360940264);
    BR_INFLECTION(6, 0.8735804647362989, 0.513417119032592);
    BR_INFLECTION(7, 0.9083414500582171, 0.4895416595569531);
    BR_INFLECTION(8, 0.9306048591020996, 0.4723665527410147);
#undef BR_INFLECTION
    *Ei = E;
    return ui;
}

/* bristle_implicit (3.7): c = sigma1 + sigma0 h > 0, g = |F_0| > mu_s N, N -> the slip speed
 * x > 0, root of mu(x) N + c x = g. In u = x / V_st, with C = c + nu N, dN = (mu_s - mu_k) N and
 * E = exp(-u^alpha):
 *   r(u) = (mu_k N - g) + dN E + C V_st u = 0,
 * bracketed by E in [0, 1]: u in [A - B, A], A = (g - mu_k N)/(C V_st), B = dN/(C V_st) (mu_s >=
 * mu_k: laws.c; A - B > 0 as g > mu_s N). With mu_s = mu_k the bracket is one point: the closed
 * form x = (g - mu_k N) / (c + nu N). Otherwise r'' = dN E'' changes sign only at E's
 * inflection u_i (br_stribeck_inflection): the sign of r(u_i) says on which side of it a root
 * lies, and the bracket is cut there. On the part left, r is concave or convex, and Newton started
 * from the end where r lies on the far side of its tangent (the lower end where r is concave and
 * rising, the upper where convex) approaches the root from that side without overshooting.
 * BR_SLIP_ITER steps of u <- u - r u / (u r'(u)), u r' = C V_st u - dN alpha u^alpha E, kept
 * inside the bracket (ends included; bisection when a step leaves it, as it can at a fold); a lane
 * stops when a step moves u by at most 4e-16 u or r = 0. Where the balance has three roots (the
 * Stribeck drop steeper than C V_st) this returns the one on r(u_i)'s side: the lowest or the
 * highest (docs/physics-choices.md). With p->slip_unsolved: NaN (the CPU stick pass). Branch-free. */
BR_HD double br_bristle_implicit_slip(const br_friction_params *p, double c, double g, double N)
{
    const double CV = (c + p->nu * N) * p->V_st, dN = (p->mu_s - p->mu_k) * N, r0 = p->mu_k * N - g;
    const double A = -r0 / CV, B = dN / CV, dNa = dN * p->alpha;
    const double e0 = A < A - B ? A : A - B, e1 = A < A - B ? A - B : A;
    double lo = e0 > 0.0 ? e0 : 0.0, hi = e1, Ei;
    int done = !(lo < hi); /* constant mu: u = A */
    const double ui = br_stribeck_inflection(p->alpha, &Ei);
    const double ri = (r0 + dN * Ei) + CV * ui;
    /* a root in [lo, u_i] when r(u_i) >= 0 (or the whole bracket lies below u_i). Above u_i the
     * lower end moves down by 4 ulp of A: just past stick (|F_0| - mu_s N a few ulp) the rounded
     * A - B can lie above the root of r as evaluated, and Newton from the upper end would be
     * refused every step (alpha = 1: a slip speed 1e6 times too large) */
    const int left = (ui >= hi) | ((ui > lo) & (ri >= 0.0));
    const double lw = lo - 8.881784197001252e-16 * hi;
    lo = left ? lo : (ui > lw ? ui : (lw > 0.0 ? lw : 0.0));
    hi = left ? (ui < hi ? ui : hi) : hi;
    double u = left ? lo : hi; /* concave below u_i (dN >= 0): from the lower end, convex above: the upper */
    BR_UNROLL_ITERATIONS
    for (int it = 0; it < BR_SLIP_ITER; it++) {
        const double w = br_pow_half(u, p->alpha), E = br_exp(-w);
        const double res = (r0 + dN * E) + CV * u;
        const double den = CV * u - dNa * (w * E);
        lo = res < 0.0 ? u : lo;
        hi = res < 0.0 ? hi : u;
        const double un = u - res * u / den; /* NaN at u = 0: not inside, bisection */
        const double ub = ((un >= lo) & (un <= hi)) ? un : 0.5 * (lo + hi);
        const int stop = (res == 0.0) | (fabs(ub - u) <= 4e-16 * u);
        u = (done | (res == 0.0)) ? u : ub;
        done = done | stop;
    }
    return br_select_uniform(p->slip_unsolved, NAN, u * p->V_st);
}

/* s, N -> a non-negative slope of f (3.5) for the bristle2 step's linearization: the
 * parabola's slope up to v_r, nu N beyond. The falling Stribeck part stays explicit: any
 * bounded slope keeps the step first order, a non-negative one keeps its matrix positive. */
BR_HD double br_f_static_reg_slope(const br_friction_params *p, double s, double N)
{
    const double q = s * (1.0 / p->v_r);
    const double para = (2.0 * p->mu_s / p->v_r) * N * (1.0 - q);
    return s <= p->v_r ? para : p->nu * N;
}

/* bristle2 (3.6): sigma0, sigma1 -> bristle mass m_b = sigma1^2 / (4 sigma0) (aperiodic limit) */
BR_HD double br_bristle2_mass(const br_friction_params *p) { return p->sigma1 * p->sigma1 / (4.0 * p->sigma0); }

/* What bristle2's tangent needs from the tip evaluation. */
typedef struct br_bristle2_aux {
    double F0[3];  /* sigma0 z + sigma1 Vt */
    double g, Fs;  /* |F0|, mu_s N */
    double wF, sh; /* w_F, and the shift per unit F0: dv = sh F0 */
    int inside;    /* |F0| <= F_s */
} br_bristle2_aux;

/* bristle2 (3.6): Vt, N, deflection z, tip sliding velocity q = v_S = Vt - zdot -> tip
 * friction F_R = f(|u|) u/|u| with u = q + dv, the slip velocity shifted by
 * dv = (F_0/|F_0|) v_r w_F, F_0 = sigma0 z + sigma1 Vt; also |u|, f(|u|) and, when aux is
 * not NULL, the intermediate values of the shift. */
BR_HD void br_bristle2_tip(const br_friction_params *p, const double Vt[3], double N,
                           const double z[3], const double q[3], double u[3], double FR[3],
                           double *ulen, double *fu, br_bristle2_aux *aux)
{
    const double Fs = p->mu_s * N;
    double F0[3];
    for (int k = 0; k < 3; k++) F0[k] = p->sigma0 * z[k] + p->sigma1 * Vt[k];
    const double g = br_norm3(F0);
    const double r = g / (Fs > 0.0 ? Fs : 1.0);
    const int inside = g <= Fs;
    const double wF = inside ? 1.0 - sqrt(inside ? 1.0 - r : 0.0) : 1.0;
    const double sh = g > 0.0 ? p->v_r * wF / (g > 0.0 ? g : 1.0) : 0.0;
    for (int k = 0; k < 3; k++) u[k] = q[k] + sh * F0[k];
    const double s = br_norm3(u);
    const double f = br_f_static_reg(p, s, N);
    const double fs = s > 0.0 ? f / (s > 0.0 ? s : 1.0) : 0.0;
    for (int k = 0; k < 3; k++) FR[k] = fs * u[k];
    *ulen = s;
    *fu = f;
    if (aux) {
        for (int k = 0; k < 3; k++) aux->F0[k] = F0[k];
        aux->g = g, aux->Fs = Fs, aux->wF = wF, aux->sh = sh, aux->inside = inside;
    }
}

/* bristle2: the tip's slip speed s = |u| on the characteristic -> g, the share of the tip's
 * inertia referred to the ground (the rest is referred to the body): 1 on the regularization arc
 * (s <= v_r: stuck, pre-sliding), then exp(-((s - v_r)/v_r)^alpha): the frame leaves the ground
 * within one arc width v_r beyond the arc, in the shape of the law's Stribeck drop
 * (docs/physics-choices.md, "where the tip's inertia is referred") */
BR_HD double br_bristle2_ground(const br_friction_params *p, double s)
{
    const double g = br_stribeck(0.0, 1.0, s - p->v_r, p->v_r, p->alpha);
    return s <= p->v_r ? 1.0 : g;
}

/* The frame the tip's inertia is referred to follows its target with this fraction of the tip's
 * time constant: fast against the tip's own dynamics (the ideal frame switches at once), finite so
 * that the model stays an ordinary differential equation (docs/physics-choices.md). */
#define BR_BRISTLE2_FRAME_LAG 0.1

/* bristle2: the time constant with which the frame the tip's inertia is referred to follows its
 * target: BR_BRISTLE2_FRAME_LAG times the tip's own, 1 / sqrt(sigma0 / m_b) = sigma1 / (2 sigma0) */
BR_HD double br_bristle2_frame_tau(const br_friction_params *p)
{
    return BR_BRISTLE2_FRAME_LAG * p->sigma1 / (2.0 * p->sigma0);
}

/* bristle2 (3.6): Vt, N, z, q and R, the velocity of the frame the tip's inertia is referred to ->
 * zdot = Vt - q, Rdot and the tip's momentum balance in that frame, m_b = sigma1^2 / (4 sigma0),
 *   m_b d(q - R)/dt = (sigma0 z + sigma1 zdot) - F_R,
 *   tau dR/dt = (1 - g) Vt - R,   g = br_bristle2_ground(|u|), tau = br_bristle2_frame_tau:
 * the ground (R = 0) while the tip sticks or is about to slip, so a stuck tip (q = 0,
 * |F_0| <= F_s) stays stuck as 3.6 states; the body (R = Vt) while it slides, physics.md's
 * m_b wdot = F_R - (sigma0 z + sigma1 w) with w = zdot = Vt - q, so the fictitious mass does not
 * ride on the body. The tip's momentum is the frame's: what it takes from the body while the
 * frame is the ground it gives back as the frame joins the body (docs/physics-choices.md). */
BR_HD void br_bristle2_rates(const br_friction_params *p, const double Vt[3], double N, const double z[3],
                             const double q[3], const double R[3], double zdot[3], double qdot[3], double Rdot[3])
{
    double u[3], FR[3], s, f;
    br_bristle2_tip(p, Vt, N, z, q, u, FR, &s, &f, NULL);
    const double mb = br_bristle2_mass(p), slide = 1.0 - br_bristle2_ground(p, s), tau = br_bristle2_frame_tau(p);
    for (int k = 0; k < 3; k++) {
        zdot[k] = Vt[k] - q[k];
        Rdot[k] = (slide * Vt[k] - R[k]) / tau;
        qdot[k] = (p->sigma0 * z[k] + p->sigma1 * zdot[k] - FR[k]) / mb + Rdot[k];
    }
}

/* 1 - |F0|/F_s below this is held at it in bristle2's tangent: the slope of w_F = 1 - sqrt(1 - r)
 * is infinite at the cone (r = 1); the tangent is exact wherever 1 - r is above it. */
#define BR_BRISTLE2_CONE_FLOOR 1e-4

/* 3x3 row-major: C = A B */
BR_HD void br_mat3_mul(const double A[9], const double B[9], double C[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* bristle2 tangent: the derivative of F = sigma0 z + b (Vt - q') (b = sigma1 + h sigma0) of
 * the step below with respect to Vt and N (the frame's term carry(s) cv - w m_b R: carry = w (1 - g(s)) m_b,
 * carry_s its derivative in s, cv = Vt), through u (the shift of F0), F_R, the step's
 * direction e and both of its diagonal entries a_par, a_perp (their branches held). x_N marks
 * the N column: every derivative is carried as a 3x3 block for Vt and a vector for N. */
BR_HD void br_bristle2_tangent(const br_friction_params *p, double h, double N, const br_bristle2_aux *x,
                               const double u[3], double s, double f, const double e[3], const double r[3],
                               double rp, double a_par, double a_perp, double carry, double carry_s,
                               const double cv[3], br_fric_tangent *T)
{
    const double b = p->sigma1 + h * p->sigma0, vr = p->v_r;
    /* u = q + sh F0: Du = du/dVt, duN = du/dN */
    double e0[3], Du[9], duN[3];
    const double gi = x->g > 0.0 ? 1.0 / x->g : 0.0;
    const double om = 1.0 - x->g / (x->Fs > 0.0 ? x->Fs : 1.0);
    const double sq = sqrt(om > BR_BRISTLE2_CONE_FLOOR ? om : BR_BRISTLE2_CONE_FLOOR);
    const double Fsi = x->Fs > 0.0 ? 1.0 / x->Fs : 0.0;
    const double wF_g = x->inside ? 0.5 / sq * Fsi : 0.0;
    const double wF_Fs = x->inside ? -0.5 / sq * x->g * Fsi * Fsi : 0.0;
    /* at F0 = 0 the shift per unit F0 is its limit v_r / (2 F_s) (the code's 0 multiplies F0 = 0) */
    const double sh = x->g > 0.0 ? x->sh : (x->inside ? 0.5 * vr * Fsi : 0.0);
    const double sh_g = vr * (wF_g * gi - x->wF * gi * gi), sh_Fs = vr * wF_Fs * gi;
    for (int i = 0; i < 3; i++) e0[i] = x->F0[i] * gi;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) Du[3 * i + j] = (i == j ? sh * p->sigma1 : 0.0) + x->F0[i] * sh_g * p->sigma1 * e0[j];
        duN[i] = x->F0[i] * sh_Fs * p->mu_s;
    }
    /* F_R = (f/s) u: dF_R = [f/s (I - e e^T) + f' e e^T] du + (f(s, 1)/s) u dN */
    const int pos = s > 0.0;
    const double si = pos ? 1.0 / s : 0.0;
    const double fs = pos ? f * si : 2.0 * p->mu_s * N / vr;
    const double fp = br_f_static_reg_dfds(p, s, N), f1 = br_f_static_reg(p, s, 1.0);
    double JR[9], P9[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double ee = e[i] * e[j];
            JR[3 * i + j] = fs * ((i == j) - ee) + fp * ee;
            P9[3 * i + j] = ((i == j) - ee) * si; /* de = P9 du */
        }
    double DFR[9], De[9], dFRN[3], deN[3];
    br_mat3_mul(JR, Du, DFR);
    br_mat3_mul(P9, Du, De);
    br_mat3_vec(JR, duN, dFRN);
    br_mat3_vec(P9, duN, deN);
    for (int i = 0; i < 3; i++) dFRN[i] += f1 * si * u[i];
    /* e^T du: the derivatives of s */
    double eDu[3];
    for (int j = 0; j < 3; j++) eDu[j] = e[0] * Du[j] + e[1] * Du[3 + j] + e[2] * Du[6 + j];
    const double eduN = br_dot3(e, duN);
    /* r = h (sigma0 z + b (Vt - q) - F_R) + carry(s) cv - w m_b R, cv = Vt */
    double Dr[9], drN[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            Dr[3 * i + j] = h * ((i == j ? b : 0.0) - DFR[3 * i + j]) + (i == j ? carry : 0.0) + cv[i] * carry_s * eDu[j];
        drN[i] = -h * dFRN[i] + cv[i] * carry_s * eduN;
    }
    /* the diagonal entries: a_perp = c + h f/s, a_par = c + h fsl(s) */
    double Drp[3];
    for (int j = 0; j < 3; j++)
        Drp[j] = e[0] * Dr[j] + e[1] * Dr[3 + j] + e[2] * Dr[6 + j] + r[0] * De[j] + r[1] * De[3 + j] +
                 r[2] * De[6 + j];
    const double drpN = br_dot3(e, drN) + br_dot3(r, deN);
    const double kperp = pos ? h * (fp - fs) * si : 0.0; /* d a_perp / d s */
    const double aperpN = pos ? kperp * eduN + h * f1 * si : h * 2.0 * p->mu_s / vr;
    const double kpar = s <= vr ? -2.0 * h * p->mu_s * N / (vr * vr) : 0.0;
    const double aparN = h * br_f_static_reg_slope(p, s, 1.0) + kpar * eduN;
    const double ip = 1.0 / a_perp, ia = 1.0 / a_par, kap = ia - ip;
    /* q' = q + r / a_perp + rp e kap */
    double Dq[9], dqN[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            const double dap = kperp * eDu[j], dapar = kpar * eDu[j];
            const double dkap = -dapar * ia * ia + dap * ip * ip;
            Dq[3 * i + j] = Dr[3 * i + j] * ip - r[i] * dap * ip * ip + kap * (e[i] * Drp[j] + rp * De[3 * i + j]) +
                            rp * e[i] * dkap;
        }
        const double dkapN = -aparN * ia * ia + aperpN * ip * ip;
        dqN[i] = drN[i] * ip - r[i] * aperpN * ip * ip + kap * (e[i] * drpN + rp * deN[i]) + rp * e[i] * dkapN;
    }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) T->J[3 * i + j] = b * ((i == j) - Dq[3 * i + j]);
        T->jN[i] = -b * dqN[i];
    }
}

/* bristle2 step, states z (0-2), q = v_S (3-5) and the frame's velocity R (6-8): the frame by
 * implicit Euler towards its target at the step's start, then linearly implicit Euler in q with Vt
 * frozen,
 *   R' = R + w ((1 - g) Vt - R),  w = h / (tau + h),  g = br_bristle2_ground(|u|),
 *   (m_b + h J + h sigma1 + h^2 sigma0) dq = h (sigma0 z + (sigma1 + h sigma0)(Vt - q) - F_R)
 *                                            + m_b (R' - R),
 *   q <- q + dq, z <- z + h (Vt - q),
 * J = dF_R/du = f'(|u|) e e^T + f/|u| (I - e e^T), e = u/|u| (f' from br_f_static_reg_slope),
 * solved along e and across it. Transmitted force F = sigma0 z + sigma1 zdot (updated state). */
BR_HD void br_law_bristle2(const br_friction_params *p, double h, const double Vt[3], double v,
                           double N, double *st, long stride, double F[3], double *P, br_fric_tangent *T)
{
    (void)v;
    double z[3], q[3], R[3], u[3], FR[3], s, f;
    br_bristle2_aux aux;
    for (int k = 0; k < 3; k++) {
        z[k] = st[k * stride];
        q[k] = st[(3 + k) * stride];
        R[k] = st[(6 + k) * stride];
    }
    br_bristle2_tip(p, Vt, N, z, q, u, FR, &s, &f, T ? &aux : NULL);
    const double mb = br_bristle2_mass(p), w = h / (br_bristle2_frame_tau(p) + h);
    const double wg = w * (1.0 - br_bristle2_ground(p, s)), carry = wg * mb; /* m_b (R' - R) = carry Vt - w m_b R */
    const double c = mb + h * p->sigma1 + h * h * p->sigma0;
    const double a_par = c + h * br_f_static_reg_slope(p, s, N);
    const double fs0 = 2.0 * p->mu_s * N / p->v_r; /* f/s as s -> 0 */
    const double a_perp = c + h * (s > 0.0 ? f / (s > 0.0 ? s : 1.0) : fs0);
    const double inv = s > 0.0 ? 1.0 / (s > 0.0 ? s : 1.0) : 0.0;
    double r[3], e[3];
    for (int k = 0; k < 3; k++) {
        const double dR = wg * Vt[k] - w * R[k];
        r[k] = h * (p->sigma0 * z[k] + (p->sigma1 + h * p->sigma0) * (Vt[k] - q[k]) - FR[k]) + mb * dR;
        R[k] += dR;
        e[k] = u[k] * inv;
    }
    const double rp = br_dot3(r, e);
    if (T) {
        /* d carry / ds = -w m_b g'(s), g' = (x dg/dx) / x at x = s - v_r > 0 (0 on the arc) */
        const double x = s - p->v_r;
        const double carry_s =
            x > 0.0 ? -w * mb * br_stribeck_vslope(0.0, 1.0, x, p->v_r, p->alpha) / (x > 0.0 ? x : 1.0) : 0.0;
        br_bristle2_tangent(p, h, N, &aux, u, s, f, e, r, rp, a_par, a_perp, carry, carry_s, Vt, T);
    }
    for (int k = 0; k < 3; k++) {
        q[k] += (r[k] - rp * e[k]) / a_perp + rp * e[k] / a_par;
        const double zd = Vt[k] - q[k];
        z[k] += h * zd;
        st[k * stride] = z[k];
        st[(3 + k) * stride] = q[k];
        st[(6 + k) * stride] = R[k];
        F[k] = p->sigma0 * z[k] + p->sigma1 * zd;
    }
    *P = br_dot3(F, Vt);
}

/* bristle_implicit (3.7): Vt, N, z, h -> zdot from the massless tip balance
 * F_R(Vt - zdot) = sigma0 (z + h zdot) + sigma1 zdot, with the deflection at the end of a step
 * of length h (h = 0: the balance at z itself, the rate of the continuous model). With
 * F_0 = sigma0 (z + h Vt) + sigma1 Vt and c = sigma1 + sigma0 h: stick (zdot = Vt) while
 * |F_0| <= F_s; otherwise zdot = Vt - s e, e = F_0/|F_0|, with s > 0 the root of
 * mu(s) N + c s = |F_0| (br_bristle_implicit_slip). Needs c > 0: sigma1 > 0 for the rate, any
 * sigma1 >= 0 for a step. Returns 1 in stick; F0 and the slip speed s (0 in stick) in F0out,
 * sout when not NULL. */
BR_HD int br_bristle_implicit_solve(const br_friction_params *p, double h, const double Vt[3], double N,
                                    const double z[3], double zdot[3], double F0out[3], double *sout)
{
    double F0[3];
    for (int k = 0; k < 3; k++) F0[k] = p->sigma0 * (z[k] + h * Vt[k]) + p->sigma1 * Vt[k];
    const double g = br_norm3(F0), c = p->sigma1 + p->sigma0 * h;
    const int stick = g <= p->mu_s * N;
    const double x = stick ? 0.0 : br_bristle_implicit_slip(p, c, g, N);
    const double s = stick ? 0.0 : x / (g > 0.0 ? g : 1.0);
    for (int k = 0; k < 3; k++) zdot[k] = Vt[k] - s * F0[k];
    if (F0out)
        for (int k = 0; k < 3; k++) F0out[k] = F0[k];
    if (sout) *sout = x;
    return stick;
}

/* bristle_implicit (3.7): the rate alone (Vt, N, z -> zdot; 1 in stick; sigma1 > 0) */
BR_HD int br_bristle_implicit_rate(const br_friction_params *p, const double Vt[3], double N,
                                   const double z[3], double zdot[3])
{
    return br_bristle_implicit_solve(p, 0.0, Vt, N, z, zdot, NULL, NULL);
}

/* bristle_implicit step, states z: backward Euler, z <- z + h zdot with zdot from the tip
 * balance at the step's end (br_bristle_implicit_solve with h), force
 * F = sigma0 z + sigma1 zdot with the new z (the balance itself: F_R in slip). Unconditionally
 * stable: the slip relaxation of rate sigma0 / sigma1 is implicit, so sigma1 -> 0 is allowed and
 * gives the return mapping of jenkins (3.9) with kt = sigma0 and mu(s) at the slip speed s.
 * With c = sigma1 + sigma0 h the tangent is: stick F = F_0, J = c I; slip F = mu(x) N e, x the
 * root of mu(x) N + c x = |F_0|: J = c [mu' N / (mu' N + c) e e^T + mu N / |F_0| (I - e e^T)],
 * jN = mu c / (mu' N + c) e. */
BR_HD void br_law_bristle_implicit(const br_friction_params *p, double h, const double Vt[3],
                                   double v, double N, double *st, long stride, double F[3],
                                   double *P, br_fric_tangent *T)
{
    (void)v;
    double z[3], zdot[3], F0[3], x;
    for (int k = 0; k < 3; k++) z[k] = st[k * stride];
    const int stick = br_bristle_implicit_solve(p, h, Vt, N, z, zdot, F0, &x);
    for (int k = 0; k < 3; k++) {
        const double z1 = z[k] + h * zdot[k];
        F[k] = p->sigma0 * z1 + p->sigma1 * zdot[k];
        st[k * stride] = z1;
    }
    *P = br_dot3(F, Vt);
    if (T) {
        const double c = p->sigma1 + p->sigma0 * h;
        const double g = br_norm3(F0), gi = g > 0.0 ? 1.0 / g : 0.0;
        const double mu = br_mu_static_reg(p, x), mup = br_mu_slope(p, x) * N;
        const double den = 1.0 / (mup + c);
        double e[3], w[3], jN[3];
        for (int k = 0; k < 3; k++) e[k] = F0[k] * gi;
        const double alpha = stick ? c : c * mu * N * gi;
        const double beta = stick ? 0.0 : c * (mup * den - mu * N * gi);
        for (int k = 0; k < 3; k++) w[k] = beta * e[k], jN[k] = stick ? 0.0 : mu * c * den * e[k];
        br_tan_rank1(T, alpha, w, e, jN);
    }
}

/* gms (3.8), element i: Vt, v, s(v) = mu(v) N, z_i -> whether it slips: at or beyond its
 * limit |k_i z_i| >= alpha_i s(v) while moving outward (Vt . z_i > 0); it sticks again
 * as soon as its velocity reverses relative to its deflection. */
BR_HD int br_gms_slips(const br_friction_params *p, int i, const double Vt[3], double sv,
                       const double z[3])
{
    return (p->gms_k[i] * br_norm3(z) >= p->gms_alpha[i] * sv) & (br_dot3(z, Vt) > 0.0);
}

/* gms step, states z_i (3 per element, element-major): each element sticks (z_i += h Vt) or
 * slips with the exact update of the linear slip law, Vt and s(v) frozen (the LuGre update
 * of 3.1 with a = C k_i/(alpha_i s(v))); with s(v) = 0 a slipping element unloads at once.
 * F = sum_i (k_i z_i + s_i zdot_i) + sigma2 N Vt with the updated z_i.
 * Tangent: a stuck element adds (k_i h + s_i) I; a slipping one, with y = C e (e = Vt/v),
 * dy = (C/v)(I - e e^T) dVt and da = -a (mu'/mu e^T dVt + dN/N), adds
 * ((k_i - s_i a) phi + s_i) dy + ((k_i - s_i a) dZda - s_i z_i) da (dZda as in 3.1's update). */
BR_HD void br_law_gms(const br_friction_params *p, double h, const double Vt[3], double v,
                      double N, double *st, long stride, double F[3], double *P, br_fric_tangent *T)
{
    const double sv = br_mu_static_reg(p, v) * N;
    const double cv = p->gms_C / (v > 0.0 ? v : 1.0);
    for (int k = 0; k < 3; k++) F[k] = p->sigma2 * N * Vt[k];
    double e[3] = {0.0, 0.0, 0.0}, rel = 0.0; /* e used with T only (zeroed for gcc's unrolled element loop) */
    if (T) {
        const double inv = v > 0.0 ? 1.0 / v : 0.0, mu = br_mu_static_reg(p, v);
        rel = mu > 0.0 ? br_mu_slope(p, v) / mu : 0.0; /* mu'/mu */
        for (int k = 0; k < 3; k++) e[k] = Vt[k] * inv;
        br_tan_zero(T);
        for (int k = 0; k < 3; k++) T->J[4 * k] = p->sigma2 * N, T->jN[k] = p->sigma2 * Vt[k];
    }
    const int M = p->gms_M < BR_GMS_MAX ? p->gms_M : BR_GMS_MAX; /* validated; the bound for gcc */
    BR_UNROLL_ELEMENTS
    for (int i = 0; i < M; i++) {
        double z[3], zsv[3];
        for (int k = 0; k < 3; k++) z[k] = st[(3 * i + k) * stride];
        const int slip = br_gms_slips(p, i, Vt, sv, z);
        const double lim = p->gms_alpha[i] * sv;
        const double a = p->gms_C * p->gms_k[i] / (lim > 0.0 ? lim : 1.0);
        const double ph = lim > 0.0 ? br_phi(a, h) : 0.0;
        for (int k = 0; k < 3; k++) {
            const double zs = lim > 0.0 ? z[k] + (cv * Vt[k] - a * z[k]) * ph : 0.0;
            const double zn = slip ? zs : z[k] + h * Vt[k];
            const double zd = slip ? (lim > 0.0 ? cv * Vt[k] - a * zn : 0.0) : Vt[k];
            st[(3 * i + k) * stride] = zn;
            F[k] += p->gms_k[i] * zn + p->gms_s[i] * zd;
            zsv[k] = zs;
        }
        if (T && !slip) {
            for (int k = 0; k < 3; k++) T->J[4 * k] += p->gms_k[i] * h + p->gms_s[i];
        } else if (T && lim > 0.0) {
            const double ki = p->gms_k[i], si = p->gms_s[i], c0 = ki - si * a;
            const double ph_a = h * h * br_phi_slope_g(a * h), cy = (c0 * ph + si) * cv;
            for (int k = 0; k < 3; k++) {
                const double dzda = (cv * Vt[k] - a * z[k]) * ph_a - z[k] * ph;
                const double g = c0 * dzda - si * zsv[k]; /* dF_k / da */
                for (int j = 0; j < 3; j++)
                    T->J[3 * k + j] += cy * ((k == j) - e[k] * e[j]) - g * a * rel * e[j];
                T->jN[k] += -g * a / N;
            }
        }
    }
    *P = br_dot3(F, Vt);
}

#endif
