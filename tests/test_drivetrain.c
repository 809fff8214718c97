/* test_drivetrain.c: 1-D drivetrains (host/model/drivetrain.c, issue 17) and scenario S6.
 *   gears: a gear pair and a planetary set under constant torques against their closed-form
 *     accelerations and reaction torques; the constraints held at every step; the energy residual
 *     equal to implicit Euler's own dissipation, sum of (1/2) dw^T J dw;
 *   Coulomb clutch: a brake stopping a shaft, against the closed-form stopping time, then stuck;
 *   S6: gearbox_lugre.yaml against gearbox_coulomb.yaml (the ideal stick/slip reference) at
 *     dt = 1e-4 and 1e-5 s (output speed within 2 % of its final value outside 0.1 s after each
 *     shift, clutch torques above the 5 N m capacity for at most 0.05 s, bounded load
 *     acceleration, energy residual below 1 %), and gearbox_lugre against SUNDIALS CVODE (BDF,
 *     rtol 1e-10) integrating the same clutch rates (br_rotfric_rate) in reduced coordinates
 *     written out by hand here: first-order convergence of the fixed step. */
#include <criterion/criterion.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "model/joint_friction.h"
#include "io/scenario.h"
#include "step/sim.h"

static br_model *parse(const char *text)
{
    char err[1024];
    br_model *m = br_scenario_parse("test.yaml", text, strlen(text), NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    return m;
}

static br_model *load(const char *name, const char *dt)
{
    char path[1024], err[1024], set[64];
    snprintf(path, sizeof path, "%s/scenarios/%s.yaml", SOURCE_DIR, name);
    snprintf(set, sizeof set, "time.dt=%s", dt);
    const char *sets[1] = {set};
    br_model *m = br_scenario_load(path, sets, 1, err, sizeof err);
    cr_assert(m, "%s", err);
    return m;
}

static br_data *start(const br_model *m)
{
    char err[1024];
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    return d;
}

static void step(const br_model *m, br_data *d)
{
    char err[1024];
    cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
}

/* w_a = 3 w_b, torque T on a: alpha_b = T r / (J_a r^2 + J_b), the pair's torque on a
 * lambda = -J_b T / (J_a r^2 + J_b) (on b: -r lambda = J_b alpha_b) */
Test(gears, pair_ratio_and_reaction_torque)
{
    br_model *m = parse("time: {end: 1.0, dt: 1.0e-3}\n"
                        "drivetrain:\n"
                        "  shafts: [{name: a, inertia: 0.2}, {name: b, inertia: 1.5}]\n"
                        "  gears: [{name: g, type: pair, a: a, b: b, ratio: 3}]\n"
                        "  torques: [{name: T, shaft: a, torque: 2.0}]\n");
    br_data *d = start(m);
    const double Ja = 0.2, Jb = 1.5, r = 3.0, T = 2.0;
    const double ab = T * r / (Ja * r * r + Jb), lam = -Jb * T / (Ja * r * r + Jb);
    for (int s = 0; s < 1000; s++) {
        step(m, d);
        const double *w = d->drv->w;
        cr_assert(fabs(w[0] - r * w[1]) <= 1e-14 * fabs(w[0]), "step %d: w_a %.17g, 3 w_b %.17g", s, w[0], r * w[1]);
        cr_assert(fabs(d->drv->lam[0] - lam) <= 1e-12 * fabs(lam), "step %d: lambda %.17g, expected %.17g", s,
                  d->drv->lam[0], lam);
    }
    /* constant torques: implicit Euler is exact for the speeds */
    cr_assert(fabs(d->drv->w[1] - ab * 1.0) <= 1e-12 * ab, "w_b %.17g, expected %.17g", d->drv->w[1], ab);
    cr_assert(fabs(d->drv->alpha[1] - ab) <= 1e-10 * ab);
    /* energy: the step books T w_{n+1} h; the kinetic energy grows by that minus (1/2) dw^T J dw
     * each step, which is the whole residual: (1/2) h t_end (J_a alpha_a^2 + J_b alpha_b^2) */
    br_fwd_loads(m, d);
    const double aa = r * ab, expect = 0.5 * 1e-3 * 1.0 * (Ja * aa * aa + Jb * ab * ab);
    cr_assert(fabs(d->en.residual - expect) <= 1e-9 * expect, "residual %.17g J, implicit Euler's %.17g J",
              d->en.residual, expect);
    cr_assert(d->en.residual_rel < 1.1e-3, "residual %.3g of the input work", d->en.residual_rel);
    br_data_free(d);
    br_model_free(m);
}

/* planetary set, k = 2.5, torque T on the sun, every member free: alpha_s + k alpha_r = (1 + k)
 * alpha_c with J_s alpha_s = T + lambda, J_r alpha_r = k lambda, J_c alpha_c = -(1 + k) lambda,
 * so lambda = -(T / J_s) / (1 / J_s + k^2 / J_r + (1 + k)^2 / J_c) */
Test(gears, planetary_willis_and_reaction_torque)
{
    br_model *m = parse("time: {end: 0.5, dt: 1.0e-3}\n"
                        "drivetrain:\n"
                        "  shafts: [{name: s, inertia: 0.01, speed: 4.5}, {name: r, inertia: 0.3, speed: 1},\n"
                        "           {name: c, inertia: 0.7, speed: 2}]\n"
                        "  gears: [{name: p, type: planetary, sun: s, ring: r, carrier: c, k: 2.5}]\n"
                        "  torques: [{name: T, shaft: s, torque: 1.5}]\n");
    br_data *d = start(m);
    const double Js = 0.01, Jr = 0.3, Jc = 0.7, k = 2.5, T = 1.5;
    const double lam = -(T / Js) / (1.0 / Js + k * k / Jr + (1 + k) * (1 + k) / Jc);
    const double as = (T + lam) / Js, ar = k * lam / Jr, ac = -(1 + k) * lam / Jc;
    /* the initial speeds satisfy Willis (4.5 + 2.5 * 1 = 3.5 * 2; the scenario reader refuses others) */
    cr_assert(fabs(as + k * ar - (1 + k) * ac) < 1e-9 * fabs(as));
    double w0[3];
    memcpy(w0, d->drv->w, sizeof w0);
    cr_assert_float_eq(w0[0] + k * w0[1] - (1 + k) * w0[2], 0.0, 1e-15);
    for (int s = 0; s < 500; s++) {
        step(m, d);
        const double *w = d->drv->w;
        cr_assert(fabs(w[0] + k * w[1] - (1 + k) * w[2]) <= 1e-13 * fabs(w[0]), "step %d: Willis residual %.3g", s,
                  w[0] + k * w[1] - (1 + k) * w[2]);
        cr_assert(fabs(d->drv->lam[0] - lam) <= 1e-12 * fabs(lam), "step %d: lambda %.17g, expected %.17g", s,
                  d->drv->lam[0], lam);
    }
    const double a[3] = {as, ar, ac};
    for (int i = 0; i < 3; i++)
        cr_assert(fabs(d->drv->w[i] - (w0[i] + a[i] * 0.5)) <= 1e-12 * (fabs(w0[i]) + fabs(a[i])),
                  "shaft %d: %.17g, expected %.17g", i, d->drv->w[i], w0[i] + a[i] * 0.5);
    br_data_free(d);
    br_model_free(m);
}

/* a Coulomb brake (mu 0.4, c_geo 0.1, 50 N: 2 N m) on a shaft spinning at 10 rad/s with 0.05 kg m^2:
 * it slips at constant deceleration 40 rad/s^2, stops at t = 0.25 s and stays stuck holding the
 * 0.5 N m drive torque */
Test(clutches, coulomb_brake_stops_and_holds)
{
    br_model *m = parse("time: {end: 0.5, dt: 1.0e-3}\n"
                        "drivetrain:\n"
                        "  shafts: [{name: s, inertia: 0.05, speed: 10}]\n"
                        "  torques: [{name: T, shaft: s, torque: {table: [[0, 0], [0.3, 0], [0.3, 0.5]]}}]\n"
                        "  clutches: [{name: B, type: coulomb, a: s, b: housing, mu_C: 0.4, mu_S: 0.6,\n"
                        "              c_geo: 0.1, normal_force_max: 50}]\n");
    br_data *d = start(m);
    for (int s = 1; s <= 500; s++) {
        step(m, d);
        const double t = s * 1e-3, w = d->drv->w[0];
        if (t < 0.25 + 1e-9) {
            cr_assert(fabs(w - (10.0 - 40.0 * t)) <= 1e-11, "t = %g: %.17g rad/s, expected %.17g", t, w, 10.0 - 40.0 * t);
            cr_assert(fabs(d->drv->cl_tau[0] - 2.0) < 1e-9, "t = %g: brake torque %.17g", t, d->drv->cl_tau[0]);
            /* the step that ends at 0.25 s brings the shaft to rest: slipping, or stuck with the same torque */
            if (t < 0.25 - 1e-9) cr_assert_eq(d->drv->cl_mode[0], BR_CL_SLIP_POS, "t = %g", t);
        } else {
            cr_assert(fabs(w) < 1e-15, "t = %g: %.17g rad/s after the stop", t, w);
            cr_assert_eq(d->drv->cl_mode[0], BR_CL_STUCK, "t = %g", t);
            /* the brake holds the drive torque (< 3 N m), which starts at 0.3 s (the end of that step) */
            const double hold = t > 0.3 - 1e-9 ? 0.5 : 0.0;
            cr_assert(fabs(d->drv->cl_tau[0] - hold) < 1e-12, "t = %g: brake torque %.17g, expected %g", t,
                      d->drv->cl_tau[0], hold);
        }
    }
    /* the kinetic energy (2.5 J) went into the brake, less implicit Euler's own dissipation over the
     * 250 slipping steps, 250 (1/2) J (40 h)^2 = 0.01 J, which stays in the residual */
    cr_assert(fabs(d->drv->cl_E[0] - 2.49) < 1e-9, "brake loss %.17g J", d->drv->cl_E[0]);
    br_fwd_loads(m, d);
    cr_assert(fabs(d->en.residual - 0.01) < 1e-9, "energy residual %.17g J", d->en.residual);
    br_data_free(d);
    br_model_free(m);
}

/* a Coulomb clutch (2 N m) between two equal shafts turning at +-w0: it slips (forwards, or backwards
 * with the speeds swapped) until both reach 0 at t = J w0 / 2 N m = 0.1 s, then stays stuck and
 * carries half the 1 N m applied to a from 0.15 s */
Test(clutches, coulomb_between_shafts_both_directions)
{
    for (int dir = 0; dir < 2; dir++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "time: {end: 0.3, dt: 1.0e-3}\n"
                 "drivetrain:\n"
                 "  shafts: [{name: a, inertia: 0.04, speed: %g}, {name: b, inertia: 0.04, speed: %g}]\n"
                 "  torques: [{name: T, shaft: a, torque: {table: [[0.15, 0], [0.15, 1]]}}]\n"
                 "  clutches: [{name: K, type: coulomb, a: a, b: b, mu_C: 0.5, mu_S: 0.8, c_geo: 0.2,\n"
                 "              normal_force_max: 20}]\n", dir ? -5.0 : 5.0, dir ? 5.0 : -5.0);
        br_model *m = parse(text);
        br_data *d = start(m);
        const double sgn = dir ? -1.0 : 1.0;
        for (int s = 1; s <= 300; s++) {
            step(m, d);
            const double t = s * 1e-3, *w = d->drv->w;
            if (t < 0.1 - 1e-9) {
                cr_assert(fabs(w[0] - sgn * (5.0 - 50.0 * t)) < 1e-11 && fabs(w[1] + sgn * (5.0 - 50.0 * t)) < 1e-11,
                          "dir %d, t = %g: %.17g %.17g", dir, t, w[0], w[1]);
                cr_assert_eq(d->drv->cl_mode[0], dir ? BR_CL_SLIP_NEG : BR_CL_SLIP_POS);
                cr_assert(fabs(d->drv->cl_tau[0] - sgn * 2.0) < 1e-12);
            } else if (t > 0.1 + 1e-9) {
                cr_assert_eq(d->drv->cl_mode[0], BR_CL_STUCK, "dir %d, t = %g", dir, t);
                cr_assert(fabs(w[0] - w[1]) < 1e-14, "dir %d, t = %g: %.17g %.17g", dir, t, w[0], w[1]);
                const double carry = t > 0.15 - 1e-9 ? 0.5 : 0.0; /* a pushes b through the clutch */
                cr_assert(fabs(d->drv->cl_tau[0] - carry) < 1e-12, "dir %d, t = %g: %.17g N m", dir, t,
                          d->drv->cl_tau[0]);
            }
        }
        cr_assert_eq(d->drv->mode_switches, 2); /* free -> slipping (the first step), slipping -> stuck */
        br_data_free(d);
        br_model_free(m);
    }
}

/* two brakes on one shaft, and a brake on each shaft of a gear pair: once stuck their constraints
 * repeat each other; the run goes on, the shafts stay at rest and the held torque is shared evenly */
Test(clutches, redundant_brakes_share_the_torque)
{
    br_model *m = parse("time: {end: 1.0, dt: 1.0e-3}\n"
                        "drivetrain:\n"
                        "  shafts: [{name: a, inertia: 0.05, speed: 2}, {name: b, inertia: 0.1, speed: 6.666666666666667}]\n"
                        "  gears: [{name: g, type: pair, a: a, b: b, ratio: 0.3}]\n"
                        "  torques: [{name: T, shaft: a, torque: 0.4}]\n"
                        "  clutches:\n"
                        "    - {name: B1, type: coulomb, a: a, b: housing, mu_C: 0.5, mu_S: 0.5, c_geo: 0.1, normal_force_max: 20}\n"
                        "    - {name: B2, type: coulomb, a: a, b: housing, mu_C: 0.5, mu_S: 0.5, c_geo: 0.1, normal_force_max: 20}\n"
                        "    - {name: B3, type: coulomb, a: b, b: housing, mu_C: 0.5, mu_S: 0.5, c_geo: 0.1, normal_force_max: 20}\n");
    br_data *d = start(m);
    /* the brakes stop a (2 rad/s) with 2 N m on a and 1 N m on b (3.33 on a through the pair)
     * against the 0.4 N m drive, on a's reduced inertia 0.05 + 0.1 / 0.09: in 0.47 s */
    for (int s = 0; s < 1000; s++) step(m, d);
    const br_drive_data *v = d->drv;
    cr_assert(fabs(v->w[0]) < 1e-15, "a at %.17g rad/s", v->w[0]);
    cr_assert(fabs(v->w[1]) < 1e-15, "b at %.17g rad/s", v->w[1]);
    for (int k = 0; k < 3; k++) cr_assert_eq(v->cl_mode[k], BR_CL_STUCK, "brake %d", k);
    /* B1 and B2 act alike: even shares; with B3 (on b: tau3 / ratio on a) they hold the 0.4 N m */
    cr_assert(fabs(v->cl_tau[0] - v->cl_tau[1]) < 1e-12, "B1 %.17g, B2 %.17g N m", v->cl_tau[0], v->cl_tau[1]);
    const double held = v->cl_tau[0] + v->cl_tau[1] + v->cl_tau[2] / 0.3;
    cr_assert(fabs(held - 0.4) < 1e-12, "held %.17g N m", held);
    br_data_free(d);
    br_model_free(m);
}

/* a LuGre clutch released and engaged again: free, its bristle is back at zero (no torque and no
 * stored energy carried over), and the energy balance stays closed */
Test(clutches, lugre_release_and_reengage)
{
    br_model *m = parse("time: {end: 0.6, dt: 1.0e-4}\n"
                        "drivetrain:\n"
                        "  shafts: [{name: a, inertia: 0.05}, {name: b, inertia: 0.2}]\n"
                        "  torques: [{name: T, shaft: a, torque: 1.0}, {name: L, shaft: b, damping: 0.3}]\n"
                        "  clutches: [{name: K, type: lugre, a: a, b: b, mu_C: 0.5, mu_S: 0.5, c_geo: 0.5,\n"
                        "              normal_force_max: 20, sigma0: 1.0e5, sigma1: 300, w_s: 0.001,\n"
                        "              input: {table: [[0, 1], [0.2, 1], [0.25, 0], [0.4, 0], [0.45, 1]]}}]\n");
    br_data *d = start(m);
    for (int s = 1; s <= 6000; s++) {
        step(m, d);
        const double t = s * 1e-4;
        if (t > 0.25 + 1e-9 && t < 0.4 - 1e-9) {
            cr_assert_eq(d->drv->cl_z[0], 0.0, "t = %g: z %.3g while free", t, d->drv->cl_z[0]);
            cr_assert_eq(d->drv->cl_tau[0], 0.0);
        }
    }
    br_fwd_loads(m, d);
    cr_assert(d->en.residual_rel < 0.01, "energy residual %.3g of the input work", d->en.residual_rel);
    cr_assert(d->drv->cl_mode[0] != BR_CL_FREE);
    br_data_free(d);
    br_model_free(m);
}

/* ---- S6 ---- */

#define NSAMP 4001 /* every 1e-3 s over [0, 4] */

typedef struct gb_run {
    double t[NSAMP], out[NSAMP], engine[NSAMP];
    double tau_over[4], tau_max[4], alpha_out_max, residual_rel;
    int n;
} gb_run;

static gb_run runs[4]; /* lugre 1e-4, coulomb 1e-4, lugre 1e-5, coulomb 1e-5 */

/* scenario, dt -> the run's output speed every 1e-3 s and its statistics */
static void run_gearbox(const char *name, const char *dt, gb_run *r)
{
    br_model *m = load(name, dt);
    br_data *d = start(m);
    const long every = (long)llround(1e-3 / m->dt), nsteps = (long)llround(m->t_end / m->dt);
    const br_drivetrain *v = &m->drive;
    cr_assert_eq(v->nshaft, 5);
    cr_assert_eq(v->ncl, 4);
    r->n = 0;
    for (long s = 0; s <= nsteps; s++) {
        if (s % every == 0 && r->n < NSAMP) {
            r->t[r->n] = d->t;
            r->out[r->n] = d->drv->w[4];
            r->engine[r->n] = d->drv->w[0];
            r->n++;
        }
        if (s < nsteps) step(m, d);
    }
    for (int k = 0; k < 4; k++) r->tau_over[k] = d->drv->cl_over_max[k], r->tau_max[k] = d->drv->cl_tau_max[k];
    r->alpha_out_max = d->drv->alpha_max[4];
    br_fwd_loads(m, d);
    r->residual_rel = d->en.residual_rel;
    cr_log_info("%s dt %s: out %.6f rad/s at 4 s, load acceleration max %.3g rad/s^2, residual %.2e, "
                "torque max C1 %.4f C2 %.4f B1 %.4f B2 %.4f N m, above 5 N m for at most %.4f %.4f %.4f %.4f s, "
                "Newton max %ld", name, dt, r->out[r->n - 1], r->alpha_out_max, r->residual_rel, r->tau_max[0],
                r->tau_max[1], r->tau_max[2], r->tau_max[3], r->tau_over[0], r->tau_over[1], r->tau_over[2],
                r->tau_over[3], d->drv->newton_max);
    br_data_free(d);
    br_model_free(m);
}

static int near_shift(double t) { return (t >= 0 && t < 0.1) || (t >= 1.33 && t < 1.43) || (t >= 2.67 && t < 2.77); }

/* LuGre run against the Coulomb reference: worst |out - out_ref| outside the shift windows, over
 * the reference's final speed */
static double out_deviation(const gb_run *a, const gb_run *ref)
{
    cr_assert_eq(a->n, ref->n);
    double worst = 0.0;
    for (int i = 0; i < a->n; i++)
        if (!near_shift(a->t[i])) worst = fmax(worst, fabs(a->out[i] - ref->out[i]));
    return worst / fabs(ref->out[ref->n - 1]);
}

Test(s6, gearbox_lugre_follows_the_coulomb_reference, .timeout = 600)
{
    run_gearbox("gearbox_lugre", "1e-4", &runs[0]);
    run_gearbox("gearbox_coulomb", "1e-4", &runs[1]);
    run_gearbox("gearbox_lugre", "1e-5", &runs[2]);
    run_gearbox("gearbox_coulomb", "1e-5", &runs[3]);
    for (int q = 0; q < 4; q++) {
        const gb_run *r = &runs[q];
        /* stable: the run finished (every step's solve settled, every value finite), the load's
         * acceleration bounded (the seed's variable-step run had spikes of 1e5) */
        cr_assert(r->alpha_out_max < 50.0, "run %d: load acceleration up to %.3g rad/s^2", q, r->alpha_out_max);
        cr_assert(r->residual_rel < 0.01, "run %d: energy residual %.3g of the input work", q, r->residual_rel);
        /* scenarios.md allows transients of 0.05 s; measured 6.5 ms: held to 0.01 s */
        for (int k = 0; k < 4; k++)
            cr_assert(r->tau_over[k] <= 0.01, "run %d, clutch %d: above its 5 N m capacity for %.4f s", q, k,
                      r->tau_over[k]);
    }
    /* the speeds reach the three gears' ratios: 2.5, 1.5, 1 just before each shift and at the end */
    const double at[3] = {1.32, 2.66, 4.0}, ratio[3] = {2.5, 1.5, 1.0};
    for (int g = 0; g < 3; g++) {
        const int i = (int)llround(at[g] / 1e-3);
        cr_assert(fabs(runs[0].engine[i] / runs[0].out[i] - ratio[g]) < 1e-3 * ratio[g], "gear %d: ratio %.6f", g + 1,
                  runs[0].engine[i] / runs[0].out[i]);
    }
    const double d4 = out_deviation(&runs[0], &runs[1]), d5 = out_deviation(&runs[2], &runs[3]);
    cr_log_info("output speed, LuGre against Coulomb outside the shifts: %.3e (dt 1e-4), %.3e (dt 1e-5) of the "
                "final speed", d4, d5);
    /* scenarios.md asks for 2 %; measured 3.4e-4: held to 2e-3 */
    cr_assert(d4 < 2e-3 && d5 < 2e-3, "output speed off the Coulomb reference by %.3g / %.3g of its final value", d4,
              d5);
}

/* ---- CVODE reference for gearbox_lugre ---- */

/* Reduced coordinates q = (w_engine, w_S, w_out): the Willis equations of the two sets give
 * w_R1 = (3 w_out - w_S) / 2 (front: S + 2 R1 = 3 out) and w_P2 = (w_S + 2 w_out) / 3 (rear:
 * S + 2 out = 3 P2), w = T q. State y = (q, z_k / zs) with zs = mu_S / sigma0. */
static const double Tm[5][3] = {{1, 0, 0}, {0, -0.5, 1.5}, {0, 1, 0}, {0, 1.0 / 3.0, 2.0 / 3.0}, {0, 0, 1}};
#define ZS 5e-6

typedef struct gb_ref {
    const br_model *m;
    double tlo; /* start of the current piece between breakpoints */
} gb_ref;

static int gb_rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *ud)
{
    const gb_ref *g = ud;
    const br_drivetrain *v = &g->m->drive;
    /* the clutch inputs as they are just after the piece's start: a clutch that comes on at a
     * breakpoint is free exactly there (u = 0), and the rate's jump would stall the solver */
    const double tc = t > g->tlo ? t : nextafter(g->tlo, INFINITY);
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydv);
    double w[5], tau[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 5; i++) w[i] = Tm[i][0] * y[0] + Tm[i][1] * y[1] + Tm[i][2] * y[2];
    for (int k = 0; k < v->nsrc; k++)
        tau[v->src[k].shaft] += br_timefn_eval(&v->src[k].tau, t) - v->src[k].c * w[v->src[k].shaft];
    for (int k = 0; k < 4; k++) {
        const br_dclutch *C = &v->cl[k];
        const double wr = w[C->a] - (C->b >= 0 ? w[C->b] : 0.0);
        double zd;
        const double tq = br_rotfric_rate(&C->law, wr, tc, ZS * y[3 + k], &zd);
        tau[C->a] -= tq;
        if (C->b >= 0) tau[C->b] += tq;
        yd[3 + k] = zd / ZS;
    }
    /* (T^T J T) qdot = T^T tau */
    double M[3][3] = {{0}}, f[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        for (int i = 0; i < 5; i++) f[a] += Tm[i][a] * tau[i];
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 5; i++) M[a][b] += Tm[i][a] * v->shaft[i].J * Tm[i][b];
    }
    /* 3x3 solve by Cramer's rule */
    const double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                       M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    for (int c = 0; c < 3; c++) {
        double X[3][3];
        memcpy(X, M, sizeof X);
        for (int r = 0; r < 3; r++) X[r][c] = f[r];
        yd[c] = (X[0][0] * (X[1][1] * X[2][2] - X[1][2] * X[2][1]) - X[0][1] * (X[1][0] * X[2][2] - X[1][2] * X[2][0]) +
                 X[0][2] * (X[1][0] * X[2][1] - X[1][1] * X[2][0])) / det;
    }
    return 0;
}

Test(s6, gearbox_lugre_against_cvode, .timeout = 600)
{
    br_model *m = load("gearbox_lugre", "1e-4");
    const br_drivetrain *v = &m->drive;
    /* the reduced coordinates above assume this train */
    cr_assert(!strcmp(v->shaft[0].name, "engine") && !strcmp(v->shaft[2].name, "S") && !strcmp(v->shaft[4].name, "out"));
    cr_assert(v->gear[0].s[0] == 2 && v->gear[0].s[1] == 1 && v->gear[0].s[2] == 4 && v->gear[0].k == 2.0);
    cr_assert(v->gear[1].s[0] == 2 && v->gear[1].s[1] == 4 && v->gear[1].s[2] == 3 && v->gear[1].k == 2.0);
    SUNContext ctx;
    cr_assert_eq(SUNContext_Create(NULL, &ctx), 0);
    N_Vector y = N_VNew_Serial(7, ctx);
    double *yp = N_VGetArrayPointer(y);
    for (int i = 0; i < 7; i++) yp[i] = 0.0;
    void *mem = CVodeCreate(CV_BDF, ctx);
    cr_assert_eq(CVodeInit(mem, gb_rhs, 0.0, y), CV_SUCCESS);
    cr_assert_eq(CVodeSStolerances(mem, 1e-10, 1e-12), CV_SUCCESS);
    SUNMatrix A = SUNDenseMatrix(7, 7, ctx);
    SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
    cr_assert_eq(CVodeSetLinearSolver(mem, LS, A), CV_SUCCESS);
    gb_ref g = {m, 0.0};
    CVodeSetUserData(mem, &g);
    CVodeSetMaxNumSteps(mem, 2000000);
    CVodeSetMaxStep(mem, 1e-3);
    /* breakpoints: the clutch inputs' corners */
    const double brk[] = {0.05, 1.33, 1.38, 2.67, 2.72, 1e300};
    int ib = 0;
    CVodeSetStopTime(mem, brk[0]);
    static double ref[NSAMP];
    double t = 0.0;
    ref[0] = 0.0;
    for (int i = 1; i < NSAMP; i++) {
        const double tout = i * 1e-3;
        while (tout > t + 1e-12) {
            const double target = fmin(tout, brk[ib]);
            const int flag = CVode(mem, target, y, &t, CV_NORMAL);
            if (flag < 0) {
                double ydd[7];
                N_Vector yd = N_VNew_Serial(7, ctx);
                gb_rhs(t, y, yd, &g);
                memcpy(ydd, N_VGetArrayPointer(yd), sizeof ydd);
                for (int q = 0; q < 7; q++) cr_log_info("y[%d] = %.17g, rate %.6g", q, yp[q], ydd[q]);
            }
            cr_assert(flag >= 0, "CVODE failed at t = %g (flag %d)", t, flag);
            if (t >= brk[ib]) {
                g.tlo = brk[ib];
                ib++;
                CVodeReInit(mem, t, y);
                CVodeSetStopTime(mem, brk[ib]);
            }
        }
        ref[i] = yp[2];
    }
    long nst = 0;
    CVodeGetNumSteps(mem, &nst);
    N_VDestroy(y);
    SUNMatDestroy(A);
    SUNLinSolFree(LS);
    CVodeFree(&mem);
    SUNContext_Free(&ctx);
    br_model_free(m);
    /* the fixed-step runs (made by the test above when run in the same process, else here) */
    if (runs[0].n != NSAMP) run_gearbox("gearbox_lugre", "1e-4", &runs[0]);
    if (runs[2].n != NSAMP) run_gearbox("gearbox_lugre", "1e-5", &runs[2]);
    double e4 = 0.0, e5 = 0.0;
    for (int i = 0; i < NSAMP; i++) {
        e4 = fmax(e4, fabs(runs[0].out[i] - ref[i]));
        e5 = fmax(e5, fabs(runs[2].out[i] - ref[i]));
    }
    e4 /= fabs(ref[NSAMP - 1]), e5 /= fabs(ref[NSAMP - 1]);
    cr_log_info("CVODE: %ld steps, out %.9f rad/s at 4 s; fixed step: worst output-speed error %.3e (dt 1e-4), "
                "%.3e (dt 1e-5) of the final speed, ratio %.2f", nst, ref[NSAMP - 1], e4, e5, e4 / e5);
    cr_assert(e5 < 1e-3, "dt 1e-5: output speed off CVODE by %.3g of the final speed", e5);
    cr_assert(e4 / e5 > 5.0, "not first-order convergent: errors %.3g (1e-4), %.3g (1e-5)", e4, e5);
}

/* scenario text -> the reader's error (the test fails if the text is accepted) */
static void refused(const char *text, const char *expect)
{
    char err[1024];
    br_model *m = br_scenario_parse("bad.yaml", text, strlen(text), NULL, 0, err, sizeof err);
    cr_assert_null(m, "accepted: %s", text);
    cr_assert(strstr(err, expect), "error '%s' does not say '%s'", err, expect);
    cr_assert(!strncmp(err, "bad.yaml:", 9), "error '%s' names no file:line", err);
}

Test(drivetrain_input, refused_with_file_and_line)
{
    const char *head = "time: {end: 1.0, dt: 1.0e-3}\ndrivetrain:\n  shafts: [{name: a, inertia: 1}, {name: b, inertia: 2}]\n";
    char t[1024];
    snprintf(t, sizeof t, "%s  gears: [{name: g, type: pair, a: a, b: c, ratio: 2}]\n", head);
    refused(t, "bad.yaml:4: unknown shaft 'c'");
    snprintf(t, sizeof t, "%s  clutches: [{name: a, type: coulomb, a: a, b: housing, mu_C: 0.1, mu_S: 0.1, c_geo: 1, "
                          "normal_force_max: 1}]\n", head);
    refused(t, "duplicate drivetrain name 'a'");
    refused("time: {end: 1.0, dt: 1.0e-3}\ndrivetrain:\n  shafts: [{name: a, inertia: 1, speed: 1}, {name: b, inertia: 2}]\n"
            "  gears: [{name: g, type: pair, a: a, b: b, ratio: 2}]\n",
            "do not mesh in gear 'g'");
    snprintf(t, sizeof t, "%s  shafts: []\n", "time: {end: 1.0, dt: 1.0e-3}\ndrivetrain:\n");
    refused(t, "at least one shaft");
    snprintf(t, sizeof t, "%s  clutches: [{name: k, type: coulomb, a: a, b: housing, mu_C: 0.1, mu_S: 0.1, c_geo: 1, "
                          "normal_force_max: 1, sigma0: 5}]\n", head);
    refused(t, "'sigma0' is for type lugre");
    snprintf(t, sizeof t, "%s  shafts: [{name: a, inertia: 0}]\n", "time: {end: 1.0, dt: 1.0e-3}\ndrivetrain:\n");
    refused(t, "inertia must be > 0");
}
