/* test_point_friction.c: the per-point headers (kernels/point_*.h) against
 * analytic results: steady sliding on the GKF curve, pre-sliding stiffness,
 * stick direction, varying normal force, exponential versus Euler update,
 * the stateless laws, Hunt-Crossley and the math helpers. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point_step.h"
#include "testutil.h"

/* independent Stribeck curve with libm's exp */
static double G_ref(const br_friction_params *p, double v)
{
    return p->mu_k + (p->mu_s - p->mu_k) * exp(-pow(v / p->V_st, p->alpha));
}

Test(math, exp_expm1_pow_match_libm)
{
    double worst_e = 0, worst_m = 0;
    for (int k = 0; k <= 200000; k++) {
        double x = -700.0 + 1400.0 * k / 200000.0;
        if (x > 709.0) break;
        double e = fabs(br_exp(x) - exp(x)) / exp(x);
        worst_e = e > worst_e ? e : worst_e;
    }
    for (int k = 0; k <= 200000; k++) {
        double x = -50.0 + 51.0 * k / 200000.0; /* includes tiny |x| */
        double ref = expm1(x);
        if (ref == 0.0) continue;
        double e = fabs(br_expm1(x) - ref) / fabs(ref);
        worst_m = e > worst_m ? e : worst_m;
    }
    cr_assert_lt(worst_e, 1e-15, "br_exp relative error %g", worst_e);
    cr_assert_lt(worst_m, 1e-15, "br_expm1 relative error %g", worst_m);
    cr_assert_eq(br_exp(-1000.0), 0.0);
    cr_assert_eq(br_expm1(-1000.0), -1.0);
    cr_assert(isnan(br_exp(NAN)), "NaN must propagate");
    for (int n = 0; n <= 8; n++) {
        double p = 0.5 * n;
        for (double x = 1e-9; x < 10.0; x *= 3.7) {
            double ref = pow(x, p);
            cr_assert_leq(fabs(br_pow_half(x, p) - ref), 4e-16 * ref, "x^%g at x=%g", p, x);
        }
        cr_assert(br_pow_half_ok(p));
    }
    cr_assert_not(br_pow_half_ok(1.3));
    cr_assert_not(br_pow_half_ok(4.5));
}

Test(normal, hunt_crossley_formula_and_clamp)
{
    br_normal_params np = {2.0, 0.5};
    const double K = 5e15, D = 4.88e5, delta = 2e-7, dd = 1e-4;
    double ref = K * delta * delta + D * sqrt(delta) * dd;
    cr_assert_float_eq(br_hunt_crossley(&np, K, D, delta, dd), ref, 1e-15 * ref);
    /* fast separation: the damping term would pull; N is clamped at zero */
    cr_assert_eq(br_hunt_crossley(&np, K, D, delta, -10.0), 0.0);
    cr_assert_eq(br_hunt_crossley(&np, K, D, -1e-9, 0.0), 0.0);
    cr_assert_eq(br_hunt_crossley(&np, K, D, 0.0, 1.0), 0.0);
}

/* lugre3d driven at constant Vt = v u until exp(-a t) < 1e-17: F on the GKF curve */
Test(lugre3d, steady_sliding_reproduces_gkf_curve)
{
    br_friction_params p = s1_lugre();
    const double u[3] = {0.6, 0.8, 0.0}, N = 3.7, h = 1e-3;
    double worst = 0.0;
    for (int k = 0; k <= 16; k++) {
        const double v = 1e-5 * pow(10.0, k / 4.0); /* 1e-5 ... 1e-1 m/s */
        const double Vt[3] = {v * u[0], v * u[1], v * u[2]};
        const double a = p.sigma0 * v / G_ref(&p, v);
        const long steps = (long)ceil(40.0 / (a * h)) + 1;
        double Z[3] = {0, 0, 0}, F[3], P;
        for (long s = 0; s < steps; s++) br_law_lugre3d(&p, h, Vt, v, N, Z, 1, F, &P, NULL);
        const double mag = (G_ref(&p, v) + p.sigma2 * v) * N;
        double err = 0.0;
        for (int j = 0; j < 3; j++) err += pow(F[j] - mag * u[j], 2);
        err = sqrt(err) / mag;
        worst = err > worst ? err : worst;
        cr_assert_lt(err, 1e-9, "v = %g: relative error %g", v, err);
        cr_assert_float_eq(P, mag * v, 1e-9 * mag * v);
    }
    cr_log_info("GKF curve: worst relative error %.3g over 17 speeds", worst);
}

/* a small tangential displacement d from rest: F = sigma0 d N to first order in d */
Test(lugre3d, presliding_stiffness)
{
    br_friction_params p = s1_lugre();
    const double N = 10.0, h = 1e-5, v = 1e-6;
    double Z[3] = {0, 0, 0}, F[3], P;
    const double Vt[3] = {v, 0, 0}, zero[3] = {0, 0, 0};
    for (int s = 0; s < 100; s++) br_law_lugre3d(&p, h, Vt, v, N, Z, 1, F, &P, NULL);
    const double d = v * 100 * h; /* 1e-9 m */
    br_law_lugre3d(&p, h, zero, 0.0, N, Z, 1, F, &P, NULL);
    const double ref = p.sigma0 * d * N;
    /* the first neglected term is relative order sigma0 d / mu_s */
    const double tol = p.sigma0 * d / p.mu_s;
    cr_assert_lt(fabs(F[0] - ref) / ref, tol, "F = %.12g, sigma0 d N = %.12g", F[0], ref);
    cr_assert_eq(F[1], 0.0);
    cr_assert_eq(F[2], 0.0);
}

/* slide along u until the bristle saturates, stop: the stuck force keeps direction u
 * while N varies, and its magnitude is sigma0 |Z| N */
Test(lugre3d, stick_holds_direction)
{
    br_friction_params p = s1_lugre();
    const double u[3] = {-0.48, 0.64, 0.6}; /* unit */
    const double v = 1e-2, h = 1e-4;
    const double Vt[3] = {v * u[0], v * u[1], v * u[2]}, zero[3] = {0, 0, 0};
    double Z[3] = {0, 0, 0}, F[3], P;
    for (int s = 0; s < 10000; s++) br_law_lugre3d(&p, h, Vt, v, 5.0, Z, 1, F, &P, NULL);
    const double z0 = sqrt(Z[0] * Z[0] + Z[1] * Z[1] + Z[2] * Z[2]);
    for (int s = 0; s < 1000; s++) {
        const double N = 5.0 * (1.0 + 0.5 * sin(0.01 * s));
        br_law_lugre3d(&p, h, zero, 0.0, N, Z, 1, F, &P, NULL);
        const double Fu = F[0] * u[0] + F[1] * u[1] + F[2] * u[2];
        double perp = 0.0;
        for (int j = 0; j < 3; j++) perp += pow(F[j] - Fu * u[j], 2);
        cr_assert_gt(Fu, 0.0);
        cr_assert_lt(sqrt(perp) / Fu, 1e-12, "force turned away from u");
        cr_assert_float_eq(Fu, p.sigma0 * z0 * N, 1e-12 * Fu);
        cr_assert_eq(P, 0.0);
    }
}

/* stuck bristle, N halves: the modified law's force halves, the classical one's does not */
Test(lugre3d, varying_normal_force_modified_vs_classic)
{
    br_friction_params pm = s1_lugre();
    br_friction_params pc = pm; /* classical: sigmas in N/m, N s/m at N_E = 10 N */
    const double NE = 10.0;
    pc.sigma0 *= NE;
    pc.sigma1 *= NE;
    pc.sigma2 *= NE;
    const double Vt[3] = {2e-5, 0, 0}, zero[3] = {0, 0, 0}, h = 1e-4;
    double Zm[3] = {0}, Zc[3] = {0}, F[3], P;
    for (int s = 0; s < 200; s++) { /* pre-slide 4e-8 m, well inside stick */
        br_law_lugre3d(&pm, h, Vt, 2e-5, NE, Zm, 1, F, &P, NULL);
        br_law_lugre3d_classic(&pc, h, Vt, 2e-5, NE, Zc, 1, F, &P, NULL);
    }
    double Fm1[3], Fm2[3], Fc1[3], Fc2[3];
    br_law_lugre3d(&pm, h, zero, 0.0, NE, Zm, 1, Fm1, &P, NULL);
    br_law_lugre3d(&pm, h, zero, 0.0, NE / 2, Zm, 1, Fm2, &P, NULL);
    br_law_lugre3d_classic(&pc, h, zero, 0.0, NE, Zc, 1, Fc1, &P, NULL);
    br_law_lugre3d_classic(&pc, h, zero, 0.0, NE / 2, Zc, 1, Fc2, &P, NULL);
    /* with constant N = N_E the two laws agree */
    cr_assert_float_eq(Fm1[0], Fc1[0], 1e-12 * fabs(Fc1[0]));
    cr_assert_float_eq(Fm2[0] / Fm1[0], 0.5, 1e-12);
    cr_assert_float_eq(Fc2[0] / Fc1[0], 1.0, 1e-12);
}

/* a h = 10: explicit Euler diverges, the exponential update stays bounded and
 * exact; Euler converges to it at first order as h shrinks */
Test(lugre3d, exponential_update_stable_where_euler_diverges)
{
    br_friction_params pe = s1_lugre(), pu = s1_lugre();
    pu.update = BR_UPDATE_EULER;
    const double v = 1e-2, Vt[3] = {v, 0, 0}, N = 1.0;
    const double a = pe.sigma0 * v / G_ref(&pe, v);
    const double h = 10.0 / a;
    double Ze[3] = {0}, Zu[3] = {0}, F[3], P;
    for (int s = 0; s < 50; s++) {
        br_law_lugre3d(&pe, h, Vt, v, N, Ze, 1, F, &P, NULL);
        br_law_lugre3d(&pu, h, Vt, v, N, Zu, 1, F, &P, NULL);
        cr_assert_leq(fabs(Ze[0]), v / a * (1 + 1e-12));
    }
    cr_assert_gt(fabs(Zu[0]), 1e20 * v / a, "Euler should have diverged: Z = %g", Zu[0]);

    /* horizon T = 5 / a: exponential result is exact, Euler error halves with h */
    const double T = 5.0 / a;
    double exact = v / a * (1.0 - exp(-a * T)), prev = 0.0;
    for (int n = 50; n <= 800; n *= 2) {
        double ze[3] = {0}, zu[3] = {0};
        for (int s = 0; s < n; s++) {
            br_law_lugre3d(&pe, T / n, Vt, v, N, ze, 1, F, &P, NULL);
            br_law_lugre3d(&pu, T / n, Vt, v, N, zu, 1, F, &P, NULL);
        }
        cr_assert_float_eq(ze[0], exact, 1e-12 * exact);
        const double err = fabs(zu[0] - ze[0]) / exact;
        if (prev > 0.0) {
            cr_assert(err / prev > 0.45 && err / prev < 0.55, "n=%d: ratio %g", n, err / prev);
        }
        prev = err;
    }
    cr_assert_lt(prev, 1e-3);
}

/* dahl3d: steady sliding force mu_k N, no Stribeck */
Test(dahl3d, steady_force_is_mu_k_N)
{
    br_friction_params p = s1_lugre();
    const double v = 3e-4, Vt[3] = {0, v, 0}, N = 2.0, h = 1e-3;
    double Z[3] = {0}, F[3], P;
    for (int s = 0; s < 20000; s++) br_law_dahl3d(&p, h, Vt, v, N, Z, 1, F, &P, NULL);
    cr_assert_float_eq(F[1], p.mu_k * N, 1e-12 * p.mu_k * N);
}

Test(gkf, creep_and_sliding_branches)
{
    br_friction_params p = {0};
    p.mu_s = 0.5;
    p.mu_k = 0.3;
    p.V_st = 3e-3;
    p.alpha = 2.0;
    p.eps = 3e-4;
    p.f_v = 0.7;
    const double N = 5.0;
    double F[3], P;
    const double v1 = 1e-4, Vt1[3] = {v1, 0, 0};
    br_law_gkf(&p, Vt1, v1, N, F, &P, NULL);
    cr_assert_float_eq(F[0], p.mu_s * N * v1 / p.eps, 1e-15);
    const double v2 = 4e-3, Vt2[3] = {0, 0, -v2};
    br_law_gkf(&p, Vt2, v2, N, F, &P, NULL);
    const double ref = (G_ref(&p, v2) * N + p.f_v * v2);
    cr_assert_float_eq(F[2], -ref, 1e-14 * ref);
    cr_assert_float_eq(P, ref * v2, 1e-14 * ref * v2);
}

Test(static_reg, parabola_and_continuity)
{
    br_friction_params p = {0};
    p.mu_s = 0.6;
    p.mu_k = 0.3;
    p.V_st = 0.01;
    p.alpha = 1.0;
    p.nu = 0.02;
    p.v_r = 1e-3;
    const double N = 9.81, Fs = p.mu_s * N;
    double F[3], P;
    const double Vt[3] = {0, 0.5e-3, 0};
    br_law_static_reg(&p, Vt, 0.5e-3, N, F, &P, NULL);
    cr_assert_float_eq(F[1], 0.75 * Fs, 1e-14 * Fs); /* f(v_r/2) = 3/4 F_s */
    const double below = br_f_static_reg(&p, p.v_r * (1 - 1e-12), N);
    const double above = br_f_static_reg(&p, p.v_r * (1 + 1e-12), N);
    cr_assert_float_eq(below, Fs, 1e-9 * Fs);
    cr_assert_float_eq(above, Fs, 1e-9 * Fs);
    const double s = 0.05;
    const double mu = p.mu_k + (p.mu_s - p.mu_k) * exp(-(s - p.v_r) / p.V_st) + p.nu * (s - p.v_r);
    cr_assert_float_eq(br_f_static_reg(&p, s, N), mu * N, 1e-14 * mu * N);
    const double zero[3] = {0, 0, 0};
    br_law_static_reg(&p, zero, 0.0, N, F, &P, NULL);
    cr_assert_eq(F[0], 0.0);
}

/* classical law: N -> 0 while sliding is guarded (G < G_min is no contact), no NaN */
Test(lugre3d_classic, vanishing_normal_force_is_guarded)
{
    br_friction_params p = s1_lugre();
    const double Vt[3] = {1e-3, 0, 0};
    double Z[3] = {0}, F[3], P;
    for (int s = 0; s < 10; s++) br_law_lugre3d_classic(&p, 1e-4, Vt, 1e-3, 1.0, Z, 1, F, &P, NULL);
    cr_assert_neq(Z[0], 0.0);
    br_law_lugre3d_classic(&p, 1e-4, Vt, 1e-3, 0.0, Z, 1, F, &P, NULL);
    cr_assert_eq(F[0], 0.0);
    cr_assert_eq(Z[0], 0.0);
    cr_assert(isfinite(P));
}
