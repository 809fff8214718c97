/* test_rigid.c: time functions, quaternion attitude, rigid-body dynamics with
 * locks, the time-stepping scheme and energy bookkeeping, against analytic results. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rigid.h"
#include "io/scenario.h"
#include "step/sim.h"
#include "model/timefn.h"
#include "kernels/struct_body.h"

static const double PI = 3.14159265358979323846;

static br_model *parse(const char *yaml, const char *const *sets, int nsets);

/* fn -> largest |rate - central difference| relative to the rate's scale over [t0, t1] */
static double rate_error(const br_timefn *fn, double t0, double t1, double scale)
{
    double worst = 0;
    for (int k = 1; k < 2000; k++) {
        const double t = t0 + (t1 - t0) * k / 2000.0, e = 1e-6 * (t1 - t0);
        const double fd = (br_timefn_eval(fn, t + e) - br_timefn_eval(fn, t - e)) / (2 * e);
        worst = fmax(worst, fabs(br_timefn_rate(fn, t) - fd) / scale);
    }
    return worst;
}

Test(timefn, table_ramp_and_derivatives)
{
    double tt[3] = {0, 3, 4}, yy[3] = {10, 10, 0};
    br_timefn tab = {.kind = BR_TF_TABLE, .n = 3, .t = tt, .y = yy};
    cr_expect_eq(br_timefn_eval(&tab, -1), 10.0);
    cr_expect_eq(br_timefn_eval(&tab, 3.5), 5.0);
    cr_expect_eq(br_timefn_eval(&tab, 9), 0.0);
    cr_expect_eq(br_timefn_rate(&tab, 3.5), -10.0);
    br_timefn ramp = {.kind = BR_TF_RAMP, .t0 = 1, .t1 = 2, .y0 = 0, .y1 = 0.75};
    cr_expect(fabs(br_timefn_eval(&ramp, 1.5) - 0.375) < 1e-15);
    cr_expect_eq(br_timefn_rate(&ramp, 1.5), 0.75);
}

Test(timefn, harmonic_and_sweeps_rate_is_the_derivative)
{
    br_timefn amp = {.kind = BR_TF_RAMP, .t0 = 0, .t1 = 1, .y0 = 0, .y1 = 2};
    br_timefn h = {.kind = BR_TF_HARMONIC, .f = 50, .phase = 0.3, .amp = &amp};
    const double eh = rate_error(&h, 0.01, 0.99, 2 * 2 * PI * 50);
    br_timefn lin = {.kind = BR_TF_SWEEP, .f0 = 10, .f1 = 200, .t0 = 0.1, .t1 = 0.9, .amp = &amp};
    br_timefn lg = lin;
    lg.log_sweep = 1;
    const double el = rate_error(&lin, 0.0, 1.0, 2 * 2 * PI * 200), eg = rate_error(&lg, 0.0, 1.0, 2 * 2 * PI * 200);
    printf("timefn: rate vs central difference: harmonic %.2g, linear sweep %.2g, log sweep %.2g\n", eh, el, eg);
    cr_expect(eh < 1e-6 && el < 1e-6 && eg < 1e-6);
    /* frequency: f0 before, f1 after, geometric mean half-way for the log sweep */
    cr_expect(fabs(br_timefn_frequency(&lg, 0.5) - sqrt(10.0 * 200.0)) < 1e-9);
    cr_expect(fabs(br_timefn_frequency(&lin, 0.5) - 105.0) < 1e-9);
    cr_expect_eq(br_timefn_frequency(&lin, 0.05), 10.0);
    cr_expect_eq(br_timefn_frequency(&lin, 0.95), 200.0);
}

/* integral of a velocity table (a trapezoid with a jump at its end: the S7 expansion) against its
 * closed form, its rate the table; a sum's value and rate the sums of its terms' */
Test(timefn, integral_of_a_table_and_sum)
{
    double tt[4] = {14, 14.5, 19, 19}, yy[4] = {0, 0.6, 0.6, 0};
    br_timefn in = {.kind = BR_TF_INTEGRAL, .n = 4, .t = tt, .y = yy};
    cr_assert_eq(br_timefn_integral_init(&in), 0);
    /* ramp: 0.6 (t - 14)^2 / (2 0.5); then 0.15 + 0.6 (t - 14.5); held after 19 s */
    const double t1 = 14.2, t2 = 17.0, t3 = 30.0;
    cr_expect(fabs(br_timefn_eval(&in, 10.0)) == 0.0);
    cr_expect(fabs(br_timefn_eval(&in, t1) - 0.6 * 0.2 * 0.2) < 1e-15, "%.17g", br_timefn_eval(&in, t1));
    cr_expect(fabs(br_timefn_eval(&in, t2) - (0.15 + 0.6 * 2.5)) < 1e-14);
    cr_expect(fabs(br_timefn_eval(&in, t3) - (0.15 + 0.6 * 4.5)) < 1e-14);
    cr_expect(fabs(br_timefn_rate(&in, t1) - 0.24) < 1e-14 && br_timefn_rate(&in, t2) == 0.6 &&
              br_timefn_rate(&in, t3) == 0.0);
    cr_expect(rate_error(&in, 14.0, 18.9, 0.6) < 1e-6);
    br_timefn terms[2] = {{.kind = BR_TF_HARMONIC, .f = 0.25, .phase = 0.0, .amp = NULL}, in};
    br_timefn sum = {.kind = BR_TF_SUM, .nterm = 2, .term = terms};
    cr_expect(fabs(br_timefn_eval(&sum, t2) - (sin(2 * PI * 0.25 * t2) + 0.15 + 0.6 * 2.5)) < 1e-14);
    cr_expect(rate_error(&sum, 14.0, 18.9, 1.0) < 1e-6);
    cr_expect_eq(br_timefn_frequency(&sum, t2), 0.25);
    free(in.cum);
    /* a table starting at a non-zero value: held before its first time (the integral negative there) */
    double t4[2] = {1, 3}, y4[2] = {2, 4};
    br_timefn i2 = {.kind = BR_TF_INTEGRAL, .n = 2, .t = t4, .y = y4};
    cr_assert_eq(br_timefn_integral_init(&i2), 0);
    cr_expect(fabs(br_timefn_eval(&i2, 0.0) + 2.0) < 1e-15 && br_timefn_rate(&i2, 0.0) == 2.0);
    cr_expect(fabs(br_timefn_eval(&i2, 2.0) - 2.5) < 1e-15);          /* int_1^2 (1 + s) ds */
    cr_expect(fabs(br_timefn_eval(&i2, 5.0) - (6.0 + 8.0)) < 1e-14);  /* int_1^3 (1 + s) ds + 4 (5 - 3) */
    free(i2.cum);
}

/* A rope (tension only) holding a 2 kg mass under gravity: launched upward past its natural length
 * it goes slack (no force: a free flight, gravity's parabola to the step's first-order error
 * g h t), catches the mass again, and the mass settles at the static stretch m g / k below the
 * natural length; the energy balance closes. */
Test(sim, rope_pulls_only_when_longer_than_its_natural_length)
{
    br_model *m = parse("time: {end: 5.0, dt: 2.0e-5}\ngravity: [0, 0, -9.81]\n"
                        "bodies: [{name: b, mass: 2.0, box: [0.1, 0.1, 0.1], position: [0, 0, -1.0], "
                        "velocity: [0, 0, 2.0], lock: [x, y, rx, ry, rz]}]\n"
                        "springs: [{name: r, type: rope, a: {frame: ground}, b: {frame: b}, stiffness: 1.0e4, "
                        "damping: 100, rest_length: 0.999}]\n",
                        NULL, 0);
    char err[256];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    double zmax = -INFINITY, slack_t = 0.0, worst_flight = 0.0, z_slack = NAN, v_slack = NAN, t_slack = NAN;
    for (long k = 0; k < 250000; k++) {
        const double zf = d->x[2]; /* the state the step's spring force is computed from */
        cr_assert_eq(br_step(m, d, err, sizeof err), 0);
        const double z = d->x[2];
        zmax = fmax(zmax, z);
        if (-zf < 0.999) { /* slack: the spring's force is 0 and the body flies freely */
            cr_assert_eq(d->spring_val[0], 0.0, "a slack rope pulls (%g N)", d->spring_val[0]);
            if (isnan(t_slack)) t_slack = d->t, z_slack = z, v_slack = d->v[2];
            const double dt = d->t - t_slack;
            worst_flight = fmax(worst_flight, fabs(z - (z_slack + v_slack * dt - 0.5 * 9.81 * dt * dt)));
            slack_t += 2e-5;
        } else {
            t_slack = NAN;
            cr_assert(d->spring_val[0] >= 0.0, "a rope pushes (%g N)", d->spring_val[0]);
        }
    }
    const double zs = -(0.999 + 2.0 * 9.81 / 1.0e4);
    printf("sim: rope: slack for %.3f s (free flight within %.2g m of the parabola), top at %.4f m, settles at "
           "%.6f m (m g / k below the natural length: %.6f m), energy residual %.2g\n",
           slack_t, worst_flight, zmax, d->x[2], zs, d->en.residual_rel);
    cr_expect(slack_t > 0.1, "the launch must slacken the rope");
    cr_expect(worst_flight < 9.81 * 2e-5 * 0.5, "free flight %g m off the parabola", worst_flight); /* g h t, t < 0.5 s */
    cr_expect(fabs(d->x[2] - zs) < 1e-4, "settled at %g m, expected %g m", d->x[2], zs);
    cr_expect(fabs(d->en.residual_rel) < 1e-3);
    br_data_free(d);
    br_model_free(m);
}

Test(rigid, quaternion_advance_is_the_exact_rotation)
{
    /* constant w for 1000 steps: rotation by |w| T about w/|w| (Rodrigues) */
    const double w[3] = {0.3, -1.2, 0.7}, h = 1e-3;
    double q[4] = {1, 0, 0, 0};
    for (int k = 0; k < 1000; k++) br_quat_advance(q, w, h);
    const double wn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), th = wn * 1.0;
    const double e[3] = {w[0] / wn, w[1] / wn, w[2] / wn}, c = cos(th), s = sin(th);
    double R[9], worst = 0;
    br_quat_to_R(q, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double K = (i == j ? c : 0) + (1 - c) * e[i] * e[j] +
                             s * ((i == 1 && j == 0) ? e[2] : (i == 0 && j == 1) ? -e[2]
                                  : (i == 0 && j == 2) ? e[1] : (i == 2 && j == 0) ? -e[1]
                                  : (i == 2 && j == 1) ? e[0] : (i == 1 && j == 2) ? -e[0] : 0);
            worst = fmax(worst, fabs(R[3 * i + j] - K));
        }
    printf("rigid: quaternion after 1000 steps differs from Rodrigues by %.2g\n", worst);
    cr_expect(worst < 1e-12);
}

/* The series of a small half turn (kernels/struct_body.h br_sb_half_turn) against the C library's
 * sin and cos, 20001 angles in [0, 1/8] and the two sides of the switch to the library: within
 * 2 eps (2^-52) relative of cos x and of sin(x) / |w| (the series' truncation is under half an ulp
 * there, each Horner step rounds once, z <= 1/64 damps the inner ones' errors, the library's own
 * results are within an ulp of the exact, and the reference's division one rounding more) */
Test(rigid, half_turn_series_is_sin_and_cos_to_rounding)
{
    const double h = 1e-3;
    double worst_c = 0, worst_s = 0;
    for (int k = 0; k <= 20002; k++) {
        const double x = k <= 20000 ? BR_SB_SERIES_ANG * k / 20000.0 : nextafter(BR_SB_SERIES_ANG, k == 20001 ? 0.0 : 1.0);
        const double wn = 2 * x / h;
        double c, s;
        br_sb_half_turn(x, h, wn, &c, &s);
        const double sref = x > 0 ? sin(x) / wn : 0.5 * h;
        worst_c = fmax(worst_c, fabs(c - cos(x)) / (DBL_EPSILON * cos(x)));
        worst_s = fmax(worst_s, fabs(s - sref) / (DBL_EPSILON * sref));
    }
    printf("rigid: half-turn series against libm: cos within %.2f eps, sin(x)/|w| within %.2f eps\n", worst_c, worst_s);
    cr_expect(worst_c <= 2.0 && worst_s <= 2.0, "cos %.2f eps, sin/|w| %.2f eps", worst_c, worst_s);
}

Test(rigid, locks_remove_dofs)
{
    br_body b = {.mass = 2.0, .Ib = {1, 0, 0, 0, 2, 0, 0, 0, 3}, .lock = BR_LOCK_Y | BR_LOCK_RX | BR_LOCK_RY};
    const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, w[3] = {0, 0, 0.5};
    const double f[3] = {4, 4, 4}, tau[3] = {1, 1, 6};
    double a[3], al[3];
    br_rigid_accel(&b, R, w, f, tau, a, al);
    cr_expect(a[0] == 2 && a[1] == 0 && a[2] == 2);
    cr_expect(al[0] == 0 && al[1] == 0 && fabs(al[2] - 2.0) < 1e-15, "alpha = %g %g %g", al[0], al[1], al[2]);
    /* free body: Euler's equation w x I w term for a spin off the principal axes */
    br_body fb = {.mass = 1, .Ib = {1, 0, 0, 0, 2, 0, 0, 0, 3}};
    const double w2[3] = {1, 1, 0}, z[3] = {0, 0, 0};
    br_rigid_accel(&fb, R, w2, z, z, a, al);
    /* I alpha = -(w x I w) = -((1,1,0) x (1,2,0)) = -(0,0,1) -> alpha_z = -1/3 */
    cr_expect(fabs(al[2] + 1.0 / 3.0) < 1e-15 && al[0] == 0 && al[1] == 0);
}

static br_model *parse(const char *yaml, const char *const *sets, int nsets)
{
    char err[1024];
    br_model *m = br_scenario_parse("test.yaml", yaml, strlen(yaml), sets, nsets, err, sizeof err);
    cr_assert(m, "%s", err);
    return m;
}

/* A constant force from rest: symplectic Euler gives x_n = a h^2 n (n + 1) / 2 exactly. */
Test(sim, constant_force_matches_the_discrete_solution)
{
    br_model *m = parse("time: {end: 1.0, dt: 1.0e-3}\n"
                        "bodies: [{name: b, mass: 2.0, box: [1, 1, 1], position: [0, 0, 0]}]\n"
                        "loads: [{name: f, body: b, direction: [1, 0, 0], magnitude: 3.0}]\n",
                        NULL, 0);
    char err[256];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    for (int n = 0; n < 1000; n++) cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
    const double a = 1.5, h = 1e-3, exact = a * h * h * 1000.0 * 1001.0 / 2.0;
    printf("sim: constant force, x = %.17g, discrete solution %.17g; energy residual %.2g\n", d->x[0], exact,
           d->en.residual_rel);
    cr_expect(fabs(d->x[0] - exact) < 1e-12 * exact);
    cr_expect(fabs(d->v[0] - a * 1.0) < 1e-12);
    /* midpoint work makes the translational energy balance exact up to rounding */
    cr_expect(d->en.residual_rel < 1e-12);
    br_data_free(d);
    br_model_free(m);
}

/* Mass on a vector spring to the ground: x(t) = x0 cos(w t), w = sqrt(k/m). Symplectic Euler
 * has a frequency error of (w h)^2 / 24 relative and, from the staggered velocity, a
 * bounded phase and amplitude offset of order w h / 2. So: the period (from interpolated
 * zero crossings over 10 periods) within 1e-5 of 2 pi / w, the trajectory within w h of the
 * amplitude. Damped, the energy balance closes to 1e-3. */
Test(sim, spring_oscillator_matches_the_analytic_solution)
{
    br_model *m = parse("time: {end: 1.0, dt: 1.0e-4}\n"
                        "bodies: [{name: b, mass: 0.5, box: [1, 1, 1], position: [0.01, 0, 0], lock: [y, z]}]\n"
                        "springs: [{name: s, a: {frame: b}, b: {frame: ground}, stiffness: 2.0e3}]\n",
                        NULL, 0);
    char err[256];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    const double w = sqrt(2.0e3 / 0.5), h = 1e-4;
    const long n = (long)(10.2 * 2 * PI / w / h);
    double worst = 0, first = -1, last = -1, xprev = d->x[0];
    int ncross = 0;
    for (long k = 0; k < n; k++) {
        cr_assert_eq(br_step(m, d, err, sizeof err), 0);
        worst = fmax(worst, fabs(d->x[0] - 0.01 * cos(w * d->t)));
        if (xprev > 0 && d->x[0] <= 0) { /* downward zero crossing, linearly interpolated */
            const double tc = d->t - h * d->x[0] / (d->x[0] - xprev);
            if (first < 0) first = tc;
            last = tc;
            ncross++;
        }
        xprev = d->x[0];
    }
    const double period = (last - first) / (ncross - 1), exact = 2 * PI / w;
    printf("sim: spring oscillator: period %.9g s vs 2 pi / w = %.9g s (%.2g relative) over %d periods; "
           "largest deviation %.3g of the amplitude (w h = %.3g)\n",
           period, exact, fabs(period / exact - 1), ncross - 1, worst / 0.01, w * h);
    cr_expect(ncross == 10 || ncross == 11);
    cr_expect(fabs(period / exact - 1) < 1e-5);
    cr_expect(worst < w * h * 0.01);
    br_data_free(d);
    br_model_free(m);
    const char *damped[] = {"springs.s.damping=2.0"};
    m = parse("time: {end: 1.0, dt: 1.0e-4}\n"
              "bodies: [{name: b, mass: 0.5, box: [1, 1, 1], position: [0.01, 0, 0], lock: [y, z]}]\n"
              "springs: [{name: s, a: {frame: b}, b: {frame: ground}, stiffness: 2.0e3, damping: 0}]\n",
              damped, 1);
    d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    for (long k = 0; k < 10000; k++) br_step(m, d, err, sizeof err);
    br_fwd_frames(m, d);
    br_fwd_loads(m, d);
    printf("sim: damped oscillator: initial energy %.4g J, left %.3g J, dissipated %.4g J, residual %.2g\n",
           d->en.spring0, d->en.kinetic + d->en.spring, d->en.spring_loss, d->en.residual_rel);
    cr_expect(d->en.spring_loss > 0.9 * d->en.spring0, "the damper dissipated too little");
    cr_expect(d->en.residual_rel < 1e-3);
    br_data_free(d);
    br_model_free(m);
}

/* A block pressed onto a belt (a prescribed frame moving at 0.1 m/s) and tied to the ground
 * by a damped spring: at equilibrium the spring holds the steady sliding friction, the GKF
 * value (mu_k + (mu_s - mu_k) exp(-(v/V_st)^2) + sigma2 v) N, so x = that / k. The belt's
 * work enters the energy balance as input (the drive power), which must close to 1e-3. */
Test(sim, block_on_moving_belt_settles_at_the_kinetic_friction)
{
    br_model *m = parse("time: {end: 1.5, dt: 1.0e-5}\n"
                        "bodies: [{name: blk, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0, 0, 0.05],\n"
                        "          lock: [y, rx, ry, rz]}]\n"
                        "frames: [{name: belt, velocity: [0.1, 0, 0]}]\n"
                        "loads: [{name: press, body: blk, direction: [0, 0, -1], magnitude: 10}]\n"
                        "springs: [{name: tie, a: {frame: blk}, b: {frame: ground, point: [0, 0, 0.05]},\n"
                        "           stiffness: 1.0e3, damping: 20}]\n"
                        "contacts:\n"
                        "  - name: pad\n"
                        "    body: blk\n"
                        "    surface: {type: plane, frame: belt, normal: [0, 0, 1]}\n"
                        "    points: {grid: {center: [0, 0, -0.05], size: [0.1, 0.1], count: [2, 2]}}\n"
                        "    normal: {sigma: 3.0e-9, D: 4.88e5}\n"
                        "    friction: {law: lugre3d, mu_s: 0.15, mu_k: 0.1, V_st: 1.0e-3, alpha: 2,\n"
                        "               sigma0: 1.0e4, sigma1: 31.6, sigma2: 0.04}\n",
                        NULL, 0);
    char err[256];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    const long n = (long)(1.5 / 1e-5);
    for (long k = 0; k < n; k++) cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
    br_fwd_frames(m, d);
    cr_assert_eq(br_fwd_contacts(m, d, m->dt, err, sizeof err), 0);
    br_fwd_loads(m, d);
    const double v = 0.1 - d->v[0], N = d->res[0].N;
    const double gkf = 0.1 + 0.05 * exp(-(v / 1e-3) * (v / 1e-3)) + 0.04 * v;
    const double x_eq = gkf * N / 1.0e3;
    printf("sim: belt: x = %.9g m, GKF equilibrium %.9g m (%.2g relative); N = %.6g; friction %.6g N; "
           "input work %.4g J (belt), residual %.2g\n",
           d->x[0], x_eq, fabs(d->x[0] / x_eq - 1), N, d->res[0].Ff_A[0], d->en.work_in, d->en.residual_rel);
    /* the tie spring is a vector spring: it carries k delta ~ 1e-4 N of the press vertically */
    cr_expect(fabs(N - 10) < 1e-3);
    cr_expect(fabs(d->x[0] / x_eq - 1) < 1e-4);
    cr_expect(d->en.work_in > 0.1, "the belt did no work");
    cr_expect(d->en.residual_rel < 1e-3);
    br_data_free(d);
    br_model_free(m);
}

/* A block pressed with 10 N onto a platform lifting at 1 cm/s (a prescribed frame): once the
 * first impact has died the contact carries exactly the press, N = 10 N, and the block rises
 * with the platform. The implicit step must see the platform move within the step (its travel
 * h V in the linearized relative displacement): without it the block sinks into the platform
 * and ends at 63 N (dt = 1e-5) or 4e5 N (1e-3). Checked at dt = 1e-5 and at 1e-3, where the
 * contact's normal mode is far from resolved (w h of about 10). */
Test(sim, block_on_lifting_platform_carries_its_load)
{
    const char *steps[][1] = {{"time.dt=1.0e-5"}, {"time.dt=1.0e-3"}};
    for (int c = 0; c < 2; c++) {
        br_model *m = parse("time: {end: 0.2, dt: 1.0e-5}\n"
                            "bodies: [{name: blk, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0, 0, 0.05],\n"
                            "          velocity: [0, 0, 0.01], lock: [x, y, rx, ry, rz]}]\n"
                            "frames: [{name: lift, velocity: [0, 0, 0.01]}]\n"
                            "loads: [{name: press, body: blk, direction: [0, 0, -1], magnitude: 10}]\n"
                            "contacts:\n"
                            "  - name: pad\n"
                            "    body: blk\n"
                            "    surface: {type: plane, frame: lift, normal: [0, 0, 1]}\n"
                            "    points: {grid: {center: [0, 0, -0.05], size: [0.1, 0.1], count: [2, 2]}}\n"
                            "    normal: {sigma: 3.0e-9, D: 4.88e5}\n"
                            "    friction: {law: lugre3d, mu_s: 0.15, mu_k: 0.1, V_st: 1.0e-3, alpha: 2,\n"
                            "               sigma0: 1.0e4, sigma1: 31.6, sigma2: 0.04}\n",
                            steps[c], 1);
        char err[256];
        br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
        cr_assert(d, "%s", err);
        const long n = lround(m->t_end / m->dt);
        for (long k = 0; k < n; k++) cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
        br_fwd_frames(m, d);
        cr_assert_eq(br_fwd_contacts(m, d, m->dt, err, sizeof err), 0);
        const double N = d->res[0].N;
        printf("sim: lifting platform, dt = %g: N = %.9g N (press 10 N), block speed %.9g m/s (platform 0.01)\n",
               m->dt, N, d->v[2]);
        cr_expect(fabs(N - 10) < 1e-6, "N = %.9g", N);
        cr_expect(fabs(d->v[2] - 0.01) < 1e-9);
        br_data_free(d);
        br_model_free(m);
    }
}

/* A plate pressed with 1000 N on a disk spinning at 10 rad/s (a prescribed frame), its
 * annular face (R_i = 0.05, R_o = 0.1 m) sampled by the annulus generator: in steady slip
 * (v = w r >= 0.5 m/s >> V_st) every point carries mu_k N_i, the pressure is uniform, and the
 * torque is the clutch formula mu_k F_n (2/3)(R_o^3 - R_i^3)/(R_o^2 - R_i^2) (scenarios.md S3a).
 * The generator puts each point at its sector's area centroid radius, so the sum is exact:
 * checked to 1e-9. Also: the areas sum to pi (R_o^2 - R_i^2) to 1e-12. */
Test(sim, annular_patch_on_spinning_disk_gives_the_clutch_torque)
{
    br_model *m = parse("time: {end: 0.02, dt: 5.0e-6}\n"
                        "bodies: [{name: plate, mass: 1.0, inertia: [1.0e-2, 1.0e-2, 2.0e-2], position: [0, 0, 0],\n"
                        "          lock: [x, y, rx, ry, rz]}]\n"
                        "frames: [{name: disk, angular_velocity: [0, 0, 10.0]}]\n"
                        "loads: [{name: press, body: plate, direction: [0, 0, -1], magnitude: 1000.0}]\n"
                        "contacts:\n"
                        "  - name: face\n"
                        "    body: plate\n"
                        "    surface: {type: plane, frame: disk, normal: [0, 0, 1]}\n"
                        "    points: {annulus: {center: [0, 0, 0], r_in: 0.05, r_out: 0.10, count: [20, 50]}}\n"
                        "    normal: {sigma: 3.0e-9, d_area: 2.0e9}\n"
                        "    friction: {law: lugre3d, mu_s: 0.15, mu_k: 0.12, V_st: 1.0e-3, alpha: 2,\n"
                        "               sigma0: 1.0e5, sigma1: 300, sigma2: 0}\n",
                        NULL, 0);
    double asum = 0;
    for (long i = 0; i < m->cset[0].desc.npoints; i++) asum += m->cset[0].area[i];
    const double PIv = 3.14159265358979323846, Ri = 0.05, Ro = 0.1;
    cr_expect(fabs(asum / (PIv * (Ro * Ro - Ri * Ri)) - 1) < 1e-12, "areas sum to %.17g", asum);
    char err[256];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    for (long k = 0; k < 4000; k++) cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
    br_fwd_frames(m, d);
    cr_assert_eq(br_fwd_contacts(m, d, m->dt, err, sizeof err), 0);
    const double T = 0.12 * 1000.0 * (2.0 / 3.0) * (Ro * Ro * Ro - Ri * Ri * Ri) / (Ro * Ro - Ri * Ri);
    printf("sim: clutch patch, %ld points: torque %.12g N m, formula %.12g (%.1e); N = %.9g N; area sum %.1e off\n",
           m->cset[0].desc.npoints, d->res[0].M_A[2], T, fabs(d->res[0].M_A[2] / T - 1), d->res[0].N,
           fabs(asum / (PIv * (Ro * Ro - Ri * Ri)) - 1));
    cr_expect(fabs(d->res[0].N / 1000.0 - 1) < 1e-6);
    cr_expect(fabs(d->res[0].M_A[2] / T - 1) < 1e-9);
    br_data_free(d);
    br_model_free(m);
}
