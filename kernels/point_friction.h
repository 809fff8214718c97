/* point_friction.h: the per-point friction laws of physics.md section 3.
 *
 * Every law has the signature
 *     (const params*, h, in: Vt, v, N, inout: state (pointer, stride), out: F, P)
 * F is the tangential force on the counter-surface body B, along Vt (a drag);
 * body A receives -F. P = F . Vt is the point's friction power. A law's state
 * is read and written as st[k * stride], k = 0..nstate-1, so the CPU and GPU
 * backends can keep states in structure-of-arrays form (stride = points in
 * the set) and single-point tests can use a plain array (stride = 1).
 * This file holds 3.1-3.5; point_bristle.h holds 3.6-3.8 and point_law.h the
 * dispatch on the law. */
#ifndef BR_POINT_FRICTION_H
#define BR_POINT_FRICTION_H

#include "br_hd.h"

enum br_law {
    BR_LAW_LUGRE3D = 0,         /* projected modified LuGre, 3 states (3.1) */
    BR_LAW_LUGRE3D_CLASSIC = 1, /* classical LuGre in 3D, 3 states (3.2) */
    BR_LAW_DAHL3D = 2,          /* Dahl, 3 states (3.3) */
    BR_LAW_GKF = 3,             /* regularized generalized kinetic friction, stateless (3.4) */
    BR_LAW_STATIC_REG = 4,      /* parabolic regularization, stateless (3.5) */
    BR_LAW_BRISTLE2 = 5,        /* second-order bristle, asymmetric regularization, 6 states (3.6) */
    BR_LAW_BRISTLE_IMPLICIT = 6,/* massless bristle, implicit tip balance, 3 states (3.7) */
    BR_LAW_GMS = 7,             /* generalized Maxwell-slip, 3 M states (3.8) */
    BR_LAW_COUNT = 8
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
    /* gms (3.8); bristle2 and bristle_implicit use sigma0, sigma1 [N/m, N s/m] and
     * mu_s, mu_k, V_st, alpha, nu, v_r of static_reg */
    int gms_M;                     /* elements per point, 1..BR_GMS_MAX */
    double gms_C;                  /* attraction rate [m/s] */
    double gms_k[BR_GMS_MAX];      /* element stiffness [N/m] */
    double gms_s[BR_GMS_MAX];      /* element micro-damping [N s/m] */
    double gms_alpha[BR_GMS_MAX];  /* element share of the steady curve (sum 1) */
} br_friction_params;

/* v -> Stribeck curve lo + (hi - lo) exp(-(v/V_st)^alpha) */
BR_HD double br_stribeck(double lo, double hi, double v, double V_st, double alpha)
{
    return lo + (hi - lo) * br_exp(-br_pow_half(v / V_st, alpha));
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
 * Z <- Z + (Vt - a Z) phi (exponential) or Z + h (Vt - a Z) (Euler);
 * returns Zdot = Vt - a Z evaluated with the updated Z. */
BR_HD void br_bristle_advance(int update, double a, double h, const double Vt[3],
                              double *st, long stride, double Z[3], double Zdot[3])
{
    const double w = br_select_uniform(update == BR_UPDATE_EULER, h, br_phi(a, h));
    for (int k = 0; k < 3; k++) {
        double z = st[k * stride];
        z += (Vt[k] - a * z) * w;
        st[k * stride] = z;
        Z[k] = z;
        Zdot[k] = Vt[k] - a * z;
    }
}

/* lugre3d (3.1): Vt, v, N, Z -> updated Z, F = (sigma0 Z + sigma1 Zdot + sigma2 Vt) N, P = F.Vt */
BR_HD void br_law_lugre3d(const br_friction_params *p, double h, const double Vt[3], double v,
                          double N, double *st, long stride, double F[3], double *P)
{
    double G = br_stribeck(p->mu_k, p->mu_s, v, p->V_st, p->alpha);
    double a = p->sigma0 * v / G;
    double Z[3], Zdot[3];
    br_bristle_advance(p->update, a, h, Vt, st, stride, Z, Zdot);
    for (int k = 0; k < 3; k++)
        F[k] = (p->sigma0 * Z[k] + p->sigma1 * Zdot[k] + p->sigma2 * Vt[k]) * N;
    *P = br_dot3(F, Vt);
}

/* dahl3d (3.3): lugre3d with G = mu_k and sigma1 = sigma2 = 0: F = sigma0 Z N */
BR_HD void br_law_dahl3d(const br_friction_params *p, double h, const double Vt[3], double v,
                         double N, double *st, long stride, double F[3], double *P)
{
    double a = p->sigma0 * v / p->mu_k;
    double Z[3], Zdot[3];
    br_bristle_advance(p->update, a, h, Vt, st, stride, Z, Zdot);
    for (int k = 0; k < 3; k++) F[k] = p->sigma0 * Z[k] * N;
    *P = br_dot3(F, Vt);
}

/* lugre3d_classic (3.2): forces instead of coefficients, G = mu(v) N guarded by G_min:
 * a G below G_min is treated as no contact (F = 0, state reset). Written with
 * selects rather than an early return so that loops over points vectorize. */
BR_HD void br_law_lugre3d_classic(const br_friction_params *p, double h, const double Vt[3],
                                  double v, double N, double *st, long stride, double F[3],
                                  double *P)
{
    const double G = br_stribeck(p->mu_k * N, p->mu_s * N, v, p->V_st, p->alpha);
    const int ok = G >= p->G_min;
    const double a = p->sigma0 * v / (ok ? G : 1.0);
    double Z[3], Zdot[3];
    br_bristle_advance(p->update, a, h, Vt, st, stride, Z, Zdot);
    for (int k = 0; k < 3; k++) {
        st[k * stride] = ok ? Z[k] : 0.0;
        F[k] = ok ? p->sigma0 * Z[k] + p->sigma1 * Zdot[k] + p->sigma2 * Vt[k] : 0.0;
    }
    *P = br_dot3(F, Vt);
}

/* gkf (3.4): v, N -> the force per unit sliding velocity s, F = s Vt: mu_s N / eps
 * (linear creep) below eps, (G(v) N / v + f_v) above; both branches evaluated, one selected */
BR_HD double br_gkf_slope(const br_friction_params *p, double v, double N)
{
    const double slow = p->mu_s * N / p->eps;
    const double fast = br_stribeck(p->mu_k, p->mu_s, v, p->V_st, p->alpha) * N / v + p->f_v;
    return v < p->eps ? slow : fast;
}

/* gkf (3.4), stateless: F = s(v) Vt */
BR_HD void br_law_gkf(const br_friction_params *p, const double Vt[3], double v, double N,
                      double F[3], double *P)
{
    const double s = br_gkf_slope(p, v, N);
    for (int k = 0; k < 3; k++) F[k] = s * Vt[k];
    *P = s * v * v;
}

/* s -> mu(s) = mu_d + (mu_s - mu_d) exp(-(s/v_A)^alpha) + nu s  (3.5) */
BR_HD double br_mu_static_reg(const br_friction_params *p, double s)
{
    return br_stribeck(p->mu_k, p->mu_s, s, p->V_st, p->alpha) + p->nu * s;
}

/* s, N -> f(s) of 3.5: parabola F_s (s/v_r)(2 - s/v_r) up to v_r, then mu(s - v_r) N */
BR_HD double br_f_static_reg(const br_friction_params *p, double s, double N)
{
    const double q = s / p->v_r;
    const double para = p->mu_s * N * q * (2.0 - q);
    const double slide = br_mu_static_reg(p, s - p->v_r) * N;
    return s <= p->v_r ? para : slide;
}

/* static_reg (3.5): v, N -> the force per unit sliding velocity s = f(v) / v, F = s Vt,
 * and its limit 2 mu_s N / v_r at v = 0 */
BR_HD double br_static_reg_slope(const br_friction_params *p, double v, double N)
{
    const double s = br_f_static_reg(p, v, N) / v; /* NaN at v = 0: selected away */
    return v > 0.0 ? s : 2.0 * p->mu_s * N / p->v_r;
}

/* static_reg (3.5), stateless: F = s(v) Vt */
BR_HD void br_law_static_reg(const br_friction_params *p, const double Vt[3], double v, double N,
                             double F[3], double *P)
{
    const double s = br_static_reg_slope(p, v, N);
    for (int k = 0; k < 3; k++) F[k] = s * Vt[k];
    *P = s * v * v;
}

#endif
