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

/* Most iterations of the bracketing slip solve of bristle_implicit: safeguarded Newton
 * stops when a step moves the root by less than 1e-15 of the bracket, usually within 8. */
#define BR_SLIP_ITER 48

/* s -> d mu / ds of 3.5's mu(s) (at s = 0 the one-sided limit for alpha >= 1, 0 below) */
BR_HD double br_mu_slope(const br_friction_params *p, double s)
{
    const double ss = s > 1e-300 ? s : 1e-300;
    const double x = br_pow_half(ss / p->V_st, p->alpha);
    return -(p->mu_s - p->mu_k) * p->alpha * x / ss * br_exp(-x) + p->nu;
}

/* s, N -> a non-negative slope of f (3.5) for the bristle2 step's linearization: the
 * parabola's slope up to v_r, nu N beyond. The falling Stribeck part stays explicit: any
 * bounded slope keeps the step first order, a non-negative one keeps its matrix positive. */
BR_HD double br_f_static_reg_slope(const br_friction_params *p, double s, double N)
{
    const double q = s / p->v_r;
    const double para = 2.0 * p->mu_s * N * (1.0 - q) / p->v_r;
    return s <= p->v_r ? para : p->nu * N;
}

/* bristle2 (3.6): sigma0, sigma1 -> bristle mass m_b = sigma1^2 / (4 sigma0) (aperiodic limit) */
BR_HD double br_bristle2_mass(const br_friction_params *p) { return p->sigma1 * p->sigma1 / (4.0 * p->sigma0); }

/* bristle2 (3.6): Vt, N, deflection z, tip sliding velocity q = v_S = Vt - zdot -> tip
 * friction F_R = f(|u|) u/|u| with u = q + dv, the slip velocity shifted by
 * dv = (F_0/|F_0|) v_r w_F, F_0 = sigma0 z + sigma1 Vt; also |u| and f(|u|). */
BR_HD void br_bristle2_tip(const br_friction_params *p, const double Vt[3], double N,
                           const double z[3], const double q[3], double u[3], double FR[3],
                           double *ulen, double *fu)
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
}

/* bristle2 (3.6): Vt, N, z, q -> zdot = Vt - q and the tip's momentum balance relative to B,
 *   m_b qdot = (sigma0 z + sigma1 zdot) - F_R,   m_b = sigma1^2 / (4 sigma0),
 * which is physics.md's m_b wdot = F_R - (sigma0 z + sigma1 w) (w = zdot = Vt - q) plus the
 * inertia term m_b dVt/dt that it omits: with it a stuck tip (q = 0, |F_0| <= F_s) stays
 * stuck for any motion of the body, as 3.6 states (docs/physics-choices.md). */
BR_HD void br_bristle2_rates(const br_friction_params *p, const double Vt[3], double N,
                             const double z[3], const double q[3], double zdot[3], double qdot[3])
{
    double u[3], FR[3], s, f;
    br_bristle2_tip(p, Vt, N, z, q, u, FR, &s, &f);
    const double mb = br_bristle2_mass(p);
    for (int k = 0; k < 3; k++) {
        zdot[k] = Vt[k] - q[k];
        qdot[k] = (p->sigma0 * z[k] + p->sigma1 * zdot[k] - FR[k]) / mb;
    }
}

/* bristle2 step, states z (0-2) and q = v_S (3-5): linearly implicit Euler in q with Vt frozen,
 *   (m_b + h J + h sigma1 + h^2 sigma0) dq = h (sigma0 z + (sigma1 + h sigma0)(Vt - q) - F_R),
 *   q <- q + dq, z <- z + h (Vt - q),
 * J = dF_R/du = f'(|u|) e e^T + f/|u| (I - e e^T), e = u/|u| (f' from br_f_static_reg_slope),
 * solved along e and across it. Transmitted force F = sigma0 z + sigma1 zdot (updated state). */
BR_HD void br_law_bristle2(const br_friction_params *p, double h, const double Vt[3], double v,
                           double N, double *st, long stride, double F[3], double *P)
{
    (void)v;
    double z[3], q[3], u[3], FR[3], s, f;
    for (int k = 0; k < 3; k++) {
        z[k] = st[k * stride];
        q[k] = st[(3 + k) * stride];
    }
    br_bristle2_tip(p, Vt, N, z, q, u, FR, &s, &f);
    const double mb = br_bristle2_mass(p);
    const double c = mb + h * p->sigma1 + h * h * p->sigma0;
    const double a_par = c + h * br_f_static_reg_slope(p, s, N);
    const double fs0 = 2.0 * p->mu_s * N / p->v_r; /* f/s as s -> 0 */
    const double a_perp = c + h * (s > 0.0 ? f / (s > 0.0 ? s : 1.0) : fs0);
    const double inv = s > 0.0 ? 1.0 / (s > 0.0 ? s : 1.0) : 0.0;
    double r[3], e[3];
    for (int k = 0; k < 3; k++) {
        r[k] = h * (p->sigma0 * z[k] + (p->sigma1 + h * p->sigma0) * (Vt[k] - q[k]) - FR[k]);
        e[k] = u[k] * inv;
    }
    const double rp = br_dot3(r, e);
    for (int k = 0; k < 3; k++) {
        q[k] += (r[k] - rp * e[k]) / a_perp + rp * e[k] / a_par;
        const double zd = Vt[k] - q[k];
        z[k] += h * zd;
        st[k * stride] = z[k];
        st[(3 + k) * stride] = q[k];
        F[k] = p->sigma0 * z[k] + p->sigma1 * zd;
    }
    *P = br_dot3(F, Vt);
}

/* bristle_implicit (3.7): Vt, N, z -> zdot from the massless tip balance
 * F_R(Vt - zdot) = sigma0 z + sigma1 zdot: stick (zdot = Vt) while |F_0| <= F_s,
 * F_0 = sigma0 z + sigma1 Vt; otherwise zdot = Vt - s e, e = F_0/|F_0|, with s > 0 the
 * root of mu(s) N + sigma1 s = |F_0| bracketed in [0, |F_0|/sigma1] (safeguarded Newton).
 * Returns 1 in stick. */
BR_HD int br_bristle_implicit_rate(const br_friction_params *p, const double Vt[3], double N,
                                   const double z[3], double zdot[3])
{
    double F0[3];
    for (int k = 0; k < 3; k++) F0[k] = p->sigma0 * z[k] + p->sigma1 * Vt[k];
    const double g = br_norm3(F0);
    const int stick = g <= p->mu_s * N;
    double lo = 0.0, hi = g / p->sigma1, x = 0.5 * hi, dx = hi;
    for (int it = 0; it < BR_SLIP_ITER && !stick && dx > 1e-15 * hi; it++) {
        const double res = br_mu_static_reg(p, x) * N + p->sigma1 * x - g;
        lo = res < 0.0 ? x : lo;
        hi = res < 0.0 ? hi : x;
        const double xn = x - res / (br_mu_slope(p, x) * N + p->sigma1);
        const double xo = x;
        x = ((xn > lo) & (xn < hi)) ? xn : 0.5 * (lo + hi);
        dx = fabs(x - xo);
    }
    const double s = stick ? 0.0 : x / (g > 0.0 ? g : 1.0);
    for (int k = 0; k < 3; k++) zdot[k] = Vt[k] - s * F0[k];
    return stick;
}

/* bristle_implicit step, states z: zdot from the tip balance at the step start, force
 * F = sigma0 z + sigma1 zdot (the balance itself: F_R in slip), then z <- z + h zdot. */
BR_HD void br_law_bristle_implicit(const br_friction_params *p, double h, const double Vt[3],
                                   double v, double N, double *st, long stride, double F[3],
                                   double *P)
{
    (void)v;
    double z[3], zdot[3];
    for (int k = 0; k < 3; k++) z[k] = st[k * stride];
    br_bristle_implicit_rate(p, Vt, N, z, zdot);
    for (int k = 0; k < 3; k++) {
        F[k] = p->sigma0 * z[k] + p->sigma1 * zdot[k];
        st[k * stride] = z[k] + h * zdot[k];
    }
    *P = br_dot3(F, Vt);
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
 * F = sum_i (k_i z_i + s_i zdot_i) + sigma2 N Vt with the updated z_i. */
BR_HD void br_law_gms(const br_friction_params *p, double h, const double Vt[3], double v,
                      double N, double *st, long stride, double F[3], double *P)
{
    const double sv = br_mu_static_reg(p, v) * N;
    const double cv = p->gms_C / (v > 0.0 ? v : 1.0);
    for (int k = 0; k < 3; k++) F[k] = p->sigma2 * N * Vt[k];
    for (int i = 0; i < p->gms_M; i++) {
        double z[3];
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
        }
    }
    *P = br_dot3(F, Vt);
}

#endif
