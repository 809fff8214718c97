/* point_friction.h: the per-point friction laws of physics.md section 3.
 *
 * Every law has the signature
 *     (const params*, h, in: Vt, v, N, inout: state (pointer, stride), out: F, P)
 * (jenkins, point_jenkins.h, also takes the point's spring and normal, and returns the step's
 * mean power as P). F is the tangential force on the counter-surface body B, along Vt (a drag);
 * body A receives -F. P = F . Vt is the point's friction power. A law's state
 * is read and written as st[k * stride], k = 0..nstate-1, so the CPU and GPU
 * backends can keep states in structure-of-arrays form (stride = points in
 * the set) and single-point tests can use a plain array (stride = 1).
 * T (NULL: not wanted; a constant NULL folds the code away) receives the tangent of F after the
 * update with respect to Vt and N at the state the step started from (point_tangent.h), so
 * that an integrator can take the force at the velocity it solves for as F + J dVt + jN dN.
 * Laws with a state: J is the derivative of exactly the F computed, every stick/slip or branch
 * decision held. Stateless laws F = s(v, N) Vt (gkf, static_reg): J is the secant s I, the
 * slope from zero speed, and jN the exact derivative. The secant keeps the linearized force
 * passive, F . Vt = s |Vt|^2 >= 0 at any velocity the integrator solves for, and lets it change
 * sign with Vt; the derivative along the sliding direction (the falling Stribeck slope, nearly
 * flat in slip) would carry the force of one sliding direction past a reversal within the step,
 * where it pushes, and made the impact-and-stick-slip phase of the S2 gkf ramp book 18 % more
 * friction energy than a run at a tenth of the step (docs/time-stepping.md).
 * This file holds 3.1-3.5; point_bristle.h holds 3.6-3.8, point_jenkins.h 3.9 and
 * point_law.h the dispatch on the law. */
#ifndef BR_POINT_FRICTION_H
#define BR_POINT_FRICTION_H

#include "br_hd.h"
#include "point_tangent.h"

enum br_law {
    BR_LAW_LUGRE3D = 0,         /* projected modified LuGre, 3 states (3.1) */
    BR_LAW_LUGRE3D_CLASSIC = 1, /* classical LuGre in 3D, 3 states (3.2) */
    BR_LAW_DAHL3D = 2,          /* Dahl, 3 states (3.3) */
    BR_LAW_GKF = 3,             /* regularized generalized kinetic friction, stateless (3.4) */
    BR_LAW_STATIC_REG = 4,      /* parabolic regularization, stateless (3.5) */
    BR_LAW_BRISTLE2 = 5,        /* second-order bristle, asymmetric regularization, 9 states (3.6) */
    BR_LAW_BRISTLE_IMPLICIT = 6,/* massless bristle, implicit tip balance, 3 states (3.7) */
    BR_LAW_GMS = 7,             /* generalized Maxwell-slip, 3 M states (3.8) */
    BR_LAW_JENKINS = 8,         /* elastic Coulomb element (Jenkins, macroslip), 3 states (3.9) */
    BR_LAW_COUNT = 9
};

/* Most Maxwell-slip elements per point of a gms set. */
#define BR_GMS_MAX 8

enum br_update {
    BR_UPDATE_EXP = 0,   /* exact for piecewise-constant Vt: unconditionally stable (default) */
    BR_UPDATE_EULER = 1  /* explicit Euler, diverges once a h > 2; kept for comparison */
};

/* Parameters of one contact set's friction law. Fields a law does not use are ignored. */
typedef struct br_friction_params {
    int update;    /* enum br_update, bristle laws only */
    double mu_s;   /* static coefficient (also 3.5's mu_s) */
    double mu_k;   /* kinetic coefficient (3.5's mu_d) */
    double V_st;   /* Stribeck velocity [m/s] (3.5's v_A) */
    double alpha;  /* Stribeck exponent (3.4's gamma), a multiple of 0.5 up to 4 */
    double sigma0; /* bristle stiffness: [1/m] per unit N (lugre3d, dahl3d), [N/m] (classic) */
    double sigma1; /* micro-damping: [s/m] per unit N, or [N s/m] (classic) */
    double sigma2; /* viscous: [s/m] per unit N, or [N s/m] (classic) */
    double eps;    /* gkf stick threshold velocity [m/s] */
    double f_v;    /* gkf viscous coefficient [N s/m] */
    double v_r;    /* static_reg regularization velocity [m/s] */
    double nu;     /* static_reg viscous coefficient [s/m] per unit N */
    double G_min;  /* classic: G below this [N] counts as no contact */
    double kt;     /* jenkins: tangential spring per point [N/m] (mu: mu_k = mu_s) */
    double kt_K;   /* jenkins: instead, the spring per unit of the point's normal stiffness K
                    * (kt_area / (K / A), from a stiffness per area); 0: kt per point */
    double c_t;    /* jenkins: stick damping [N s/m], 0 for none */
    /* gms (3.8); bristle2 and bristle_implicit use sigma0, sigma1 [N/m, N s/m] and
     * mu_s, mu_k, V_st, alpha, nu, v_r of static_reg */
    int gms_M;                     /* elements per point, 1..BR_GMS_MAX */
    double gms_C;                  /* attraction rate [m/s] */
    double gms_k[BR_GMS_MAX];      /* element stiffness [N/m] */
    double gms_s[BR_GMS_MAX];      /* element micro-damping [N s/m] */
    double gms_alpha[BR_GMS_MAX];  /* element share of the steady curve (sum 1) */
    /* set by the CPU backend only (0 everywhere else): 1 leaves a slipping point's force (and
     * state) NaN instead of computing its slip branch (bristle_implicit's slip solve, the sliding
     * branch of gkf and static_reg), for a pass over points expected to stick that is redone in
     * full when one slips (host/field/field_cpu.c, cpu_chunk_stick). bristle2's tip force and
     * br_law_steady_mu read br_f_static_reg too: a caller of the laws keeps it 0 (host/field/field.c
     * clears it in every set it is given) */
    int slip_unsolved;
} br_friction_params;

/* v -> Stribeck curve lo + (hi - lo) exp(-(v/V_st)^alpha) */
BR_HD double br_stribeck(double lo, double hi, double v, double V_st, double alpha)
{
    return br_fma(hi - lo, br_exp(-br_pow_half(v * (1.0 / V_st), alpha)), lo);
}

/* v -> v times the slope of the Stribeck curve, v dG/dv = -(hi - lo) alpha x exp(-x),
 * x = (v/V_st)^alpha (finite at v = 0 for every alpha > 0) */
BR_HD double br_stribeck_vslope(double lo, double hi, double v, double V_st, double alpha)
{
    const double x = br_pow_half(v * (1.0 / V_st), alpha);
    return -(hi - lo) * alpha * x * br_exp(-x);
}

/* a, h -> phi(a,h) = (1 - exp(-a h)) / a, the exact-update weight (-> h as a -> 0) */
BR_HD double br_phi(double a, double h)
{
    const double x = a * h;
    const double small = h * (1.0 - 0.5 * x);
    const double exact = -br_expm1(-x) / a; /* NaN for a = 0: selected away */
    return x < 1e-10 ? small : exact;
}

/* Bristle ODE Zdot = Vt - a Z over one step with Vt, a frozen:
 * Z <- Z + (Vt - a Z) w, w = phi(a, h) (exponential) or h (Euler);
 * returns Zdot = Vt - a Z evaluated with the updated Z. With dZda (not NULL) also the
 * sensitivities of the updated Z: dZ = w dVt + dZda da, dZda = (Vt - a Z) dw/da - Z w,
 * and w in *wout. */
BR_HD void br_bristle_advance(int update, double a, double h, const double Vt[3],
                              double *st, long stride, double Z[3], double Zdot[3], double dZda[3],
                              double *wout)
{
    const int euler = update == BR_UPDATE_EULER;
    const double w = br_select_uniform(euler, h, br_phi(a, h));
    const double dwda = dZda ? (euler ? 0.0 : h * h * br_phi_slope_g(a * h)) : 0.0; /* dw/da, for every k */
    for (int k = 0; k < 3; k++) {
        double z = st[k * stride];
        const double r = Vt[k] - a * z;
        if (dZda) dZda[k] = r * dwda - z * w;
        z += r * w;
        st[k * stride] = z;
        Z[k] = z;
        Zdot[k] = Vt[k] - a * z;
    }
    if (wout) *wout = w;
}

/* Tangent of a bristle law whose force is F = m (s0 Z + s1 Zdot + s2 Vt) after the update
 * above, with a = a(v, N): dF = m [(s0 - s1 a) dZ + (s1 + s2) dVt - s1 Z da] + (F/m) dm,
 * dZ = w dVt + dZda da, da = a_v e^T dVt + a_N dN, dm = m_N dN (e = Vt / v, 0 at v = 0) */
BR_HD void br_bristle_tangent(br_fric_tangent *T, double m, double m_N, double s0, double s1, double s2,
                              double a, double a_v, double a_N, double w, const double Vt[3], double v,
                              const double Z[3], const double Zdot[3], const double dZda[3])
{
    const double c0 = s0 - s1 * a, inv = v > 0.0 ? 1.0 / v : 0.0;
    double u[3], e[3], jN[3];
    for (int k = 0; k < 3; k++) {
        const double g = c0 * dZda[k] - s1 * Z[k]; /* dF/da per unit m */
        u[k] = m * a_v * g;
        e[k] = Vt[k] * inv;
        jN[k] = m * a_N * g + m_N * (s0 * Z[k] + s1 * Zdot[k] + s2 * Vt[k]);
    }
    br_tan_rank1(T, m * (c0 * w + s1 + s2), u, e, jN);
}

/* lugre3d (3.1): Vt, v, N, Z -> updated Z, F = (sigma0 Z + sigma1 Zdot + sigma2 Vt) N, P = F.Vt;
 * tangent through a = sigma0 v / G(v): a_v = (sigma0 / G)(1 - v G' / G) */
BR_HD void br_law_lugre3d(const br_friction_params *p, double h, const double Vt[3], double v,
                          double N, double *st, long stride, double F[3], double *P,
                          br_fric_tangent *T)
{
    double G = br_stribeck(p->mu_k, p->mu_s, v, p->V_st, p->alpha);
    double a = p->sigma0 * v / G;
    double Z[3], Zdot[3], dZda[3], w;
    br_bristle_advance(p->update, a, h, Vt, st, stride, Z, Zdot, T ? dZda : NULL, &w);
    for (int k = 0; k < 3; k++)
        F[k] = (p->sigma0 * Z[k] + p->sigma1 * Zdot[k] + p->sigma2 * Vt[k]) * N;
    *P = br_dot3(F, Vt);
    if (T) {
        const double a_v = p->sigma0 / G * (1.0 - br_stribeck_vslope(p->mu_k, p->mu_s, v, p->V_st, p->alpha) / G);
        br_bristle_tangent(T, N, 1.0, p->sigma0, p->sigma1, p->sigma2, a, a_v, 0.0, w, Vt, v, Z, Zdot, dZda);
    }
}

/* dahl3d (3.3): lugre3d with G = mu_k and sigma1 = sigma2 = 0: F = sigma0 Z N */
BR_HD void br_law_dahl3d(const br_friction_params *p, double h, const double Vt[3], double v,
                         double N, double *st, long stride, double F[3], double *P, br_fric_tangent *T)
{
    double a = (p->sigma0 / p->mu_k) * v;
    double Z[3], Zdot[3], dZda[3], w;
    br_bristle_advance(p->update, a, h, Vt, st, stride, Z, Zdot, T ? dZda : NULL, &w);
    for (int k = 0; k < 3; k++) F[k] = p->sigma0 * Z[k] * N;
    *P = br_dot3(F, Vt);
    if (T) br_bristle_tangent(T, N, 1.0, p->sigma0, 0.0, 0.0, a, p->sigma0 / p->mu_k, 0.0, w, Vt, v, Z, Zdot, dZda);
}

/* lugre3d_classic (3.2): forces instead of coefficients, G = mu(v) N guarded by G_min:
 * a G below G_min is treated as no contact (F = 0, state reset, zero tangent). Written with
 * selects rather than an early return so that loops over points vectorize. Tangent through
 * a = sigma0 v / G(v, N): a_v = (sigma0 / G)(1 - v G_v / G), a_N = -a / N. */
BR_HD void br_law_lugre3d_classic(const br_friction_params *p, double h, const double Vt[3],
                                  double v, double N, double *st, long stride, double F[3],
                                  double *P, br_fric_tangent *T)
{
    const double G = br_stribeck(p->mu_k * N, p->mu_s * N, v, p->V_st, p->alpha);
    const int ok = G >= p->G_min;
    const double a = p->sigma0 * v / (ok ? G : 1.0);
    double Z[3], Zdot[3], dZda[3], w;
    br_bristle_advance(p->update, a, h, Vt, st, stride, Z, Zdot, T ? dZda : NULL, &w);
    for (int k = 0; k < 3; k++) {
        st[k * stride] = ok ? Z[k] : 0.0;
        F[k] = ok ? p->sigma0 * Z[k] + p->sigma1 * Zdot[k] + p->sigma2 * Vt[k] : 0.0;
    }
    *P = br_dot3(F, Vt);
    if (T) {
        if (ok) {
            const double vG = br_stribeck_vslope(p->mu_k * N, p->mu_s * N, v, p->V_st, p->alpha);
            const double a_v = p->sigma0 / G * (1.0 - vG / G);
            br_bristle_tangent(T, 1.0, 0.0, p->sigma0, p->sigma1, p->sigma2, a, a_v, -a / N, w, Vt, v, Z,
                               Zdot, dZda);
        } else {
            br_tan_zero(T);
        }
    }
}

/* gkf (3.4): v, N -> the force per unit sliding velocity s, F = s Vt: mu_s N / eps
 * (linear creep) below eps, (G(v) N / v + f_v) above; both branches evaluated, one selected
 * (with p->slip_unsolved: NaN above eps, the CPU stick pass) */
BR_HD double br_gkf_slope(const br_friction_params *p, double v, double N)
{
    const double slow = (p->mu_s / p->eps) * N;
    const double fast = br_stribeck(p->mu_k, p->mu_s, v, p->V_st, p->alpha) * N / v + p->f_v;
    return v < p->eps ? slow : br_select_uniform(p->slip_unsolved, NAN, fast);
}

/* gkf (3.4), stateless: F = s(v) Vt. Tangent: the secant J = s I (below), jN = (ds/dN) Vt */
BR_HD void br_law_gkf(const br_friction_params *p, const double Vt[3], double v, double N,
                      double F[3], double *P, br_fric_tangent *T)
{
    const double s = br_gkf_slope(p, v, N);
    for (int k = 0; k < 3; k++) F[k] = s * Vt[k];
    *P = s * v * v;
    if (T) {
        const double sN = v < p->eps ? p->mu_s / p->eps : br_stribeck(p->mu_k, p->mu_s, v, p->V_st, p->alpha) / v;
        double z[3] = {0.0, 0.0, 0.0}, jN[3];
        for (int k = 0; k < 3; k++) jN[k] = sN * Vt[k];
        br_tan_rank1(T, s, z, z, jN);
    }
}

/* s -> mu(s) = mu_d + (mu_s - mu_d) exp(-(s/v_A)^alpha) + nu s  (3.5) */
BR_HD double br_mu_static_reg(const br_friction_params *p, double s)
{
    return br_stribeck(p->mu_k, p->mu_s, s, p->V_st, p->alpha) + p->nu * s;
}

/* s -> d mu / ds of 3.5's mu(s) (at s = 0 the one-sided limit for alpha >= 1, 0 below) */
BR_HD double br_mu_slope(const br_friction_params *p, double s)
{
    const double ss = s > 1e-300 ? s : 1e-300;
    return br_stribeck_vslope(p->mu_k, p->mu_s, ss, p->V_st, p->alpha) / ss + p->nu;
}

/* s, N -> f(s) of 3.5: parabola F_s (s/v_r)(2 - s/v_r) up to v_r, then mu(s - v_r) N (with
 * p->slip_unsolved: NaN beyond v_r, the CPU stick pass) */
BR_HD double br_f_static_reg(const br_friction_params *p, double s, double N)
{
    const double q = s * (1.0 / p->v_r);
    const double para = p->mu_s * N * q * (2.0 - q);
    const double slide = br_mu_static_reg(p, s - p->v_r) * N;
    return s <= p->v_r ? para : br_select_uniform(p->slip_unsolved, NAN, slide);
}

/* static_reg (3.5): v, N -> the force per unit sliding velocity s = f(v) / v, F = s Vt,
 * and its limit 2 mu_s N / v_r at v = 0 */
BR_HD double br_static_reg_slope(const br_friction_params *p, double v, double N)
{
    const double s = br_f_static_reg(p, v, N) / v; /* NaN at v = 0: selected away */
    return v > 0.0 ? s : (2.0 * p->mu_s / p->v_r) * N;
}

/* s, N -> the true slope df/ds of 3.5's f (the Stribeck part of mu included) */
BR_HD double br_f_static_reg_dfds(const br_friction_params *p, double s, double N)
{
    const double para = 2.0 * p->mu_s * N * (1.0 - s / p->v_r) / p->v_r;
    const double slide = br_mu_slope(p, s - p->v_r) * N;
    return s <= p->v_r ? para : slide;
}

/* static_reg (3.5), stateless: F = s(v) Vt. Tangent: the secant J = s I (below), jN = (f / N) Vt / v */
BR_HD void br_law_static_reg(const br_friction_params *p, const double Vt[3], double v, double N,
                             double F[3], double *P, br_fric_tangent *T)
{
    const double s = br_static_reg_slope(p, v, N);
    for (int k = 0; k < 3; k++) F[k] = s * Vt[k];
    *P = s * v * v;
    if (T) {
        const double s1 = br_static_reg_slope(p, v, 1.0);
        double z[3] = {0.0, 0.0, 0.0}, jN[3];
        for (int k = 0; k < 3; k++) jN[k] = s1 * Vt[k];
        br_tan_rank1(T, s, z, z, jN);
    }
}

#endif
