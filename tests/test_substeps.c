/* test_substeps.c: the adaptive substeps of a run (issue 50, docs/time-stepping.md) against exact
 * results: a ball dropped onto one Hunt-Crossley point leaves it at the speed Hunt and Crossley's law
 * gives in closed form, whatever the output step. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "step/checkpoint.h"
#include "drop.h"
#include "io/scenario.h"
#include "step/sim.h"

/* Hunt-Crossley with pK = pD = n and D = a K on a penetration x (v = x' the approach rate):
 * m v dv/dx = -K x^n (1 + a v), so v dv / (1 + a v) = -(K/m) x^n dx, whose right side integrates to
 * zero over a bounce (x from 0 back to 0). With the integral v/a - ln(1 + a v)/a^2 of the left side
 * from v_in to -v_out: a (v_in + v_out) = ln((1 + a v_in) / (1 - a v_out)) (Hunt & Crossley 1975),
 * whatever K, n and the mass. a, v_in -> v_out by bisection: f(w) = a (v_in + w) - ln(...) is
 * positive at w = 0 and negative at w = v_in (ln((1 + x)/(1 - x)) > 2 x), one root between */
static double hc_exit_speed(double a, double vin)
{
    double lo = 0.0, hi = fmin(vin, (1.0 - 1e-15) / a);
    for (int k = 0; k < 200; k++) {
        const double w = 0.5 * (lo + hi), f = a * (vin + w) - log((1.0 + a * vin) / (1.0 - a * w));
        if (f > 0.0) lo = w; /* f > 0 below the root (f(0) = a v_in - ln(1 + a v_in) > 0) */
        else hi = w;
    }
    return 0.5 * (lo + hi);
}

typedef struct drop_out {
    double vz, residual;
    long substeps;
} drop_out;

/* exponent n, a (D = a K), dt, adaptive -> the drop of tests/drop.h (2 ms: one bounce): the ball's final vertical speed, the energy residual and the
 * substeps taken; the steps as bristle run takes them (br_step_begin, br_step_end) */
static drop_out drop(double n, double a, double dt, int adaptive)
{
    char text[2048], err[512];
    drop_text(text, sizeof text, 2.0e-3, dt, adaptive ? "" : ", adaptive: false", n, a);
    br_model *m = br_scenario_parse("drop.yaml", text, strlen(text), NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    const long nsteps = lround(m->t_end / m->dt);
    for (long k = 0; k <= nsteps; k++) {
        cr_assert_eq(br_step_begin(m, d, 1, NULL, err, sizeof err), 0, "%s", err);
        if (k < nsteps) cr_assert_eq(br_step_end(m, d, NULL, err, sizeof err), 0, "%s", err);
    }
    drop_out o = {d->v[2], d->en.residual_rel, d->sub.taken};
    br_data_free(d);
    br_model_free(m);
    return o;
}

/* Issue 50, item 1: for n in {1, 1.5, 2}, a v_in in {0.05, 0.2, 0.6} and output steps 1e-5 and 1e-4
 * (a bounce lasts 0.03 to 1.5 ms: 3 to 150 output steps, or a third of one), the exit speed within
 * 0.2 % of the exact one and the energy residual within 1 %. The margins measured on the development
 * machine: 0.06 % and 0.58 % at the worst. The substeps' error is second order in their length
 * (trapezoidal rule where the contact is resolved, docs/time-stepping.md) and the tolerance rtol =
 * 1e-3 bounds each substep's velocity correction to 1e-3 of the bounce's speed: a rounding change
 * moves the results by far less than the margin. */
Test(substeps, bounce_leaves_at_the_exact_speed)
{
    const double ns[3] = {1.0, 1.5, 2.0}, as[3] = {0.05, 0.2, 0.6}, dts[2] = {1e-5, 1e-4};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++) {
                const double ex = hc_exit_speed(as[j], 1.0);
                const drop_out o = drop(ns[i], as[j], dts[k], 1);
                printf("n = %g, a v_in = %g, dt = %g: exit speed %.6f m/s, exact %.6f (%+.3f %%), energy residual "
                       "%.2e, %ld substeps\n", ns[i], as[j], dts[k], o.vz, ex, 100 * (o.vz / ex - 1), o.residual,
                       o.substeps);
                cr_expect(fabs(o.vz / ex - 1) < 2e-3, "n %g, a %g, dt %g: %g against %g", ns[i], as[j], dts[k], o.vz, ex);
                cr_expect(o.residual < 1e-2, "n %g, a %g, dt %g: residual %g", ns[i], as[j], dts[k], o.residual);
            }
}

/* The same bounce at fixed steps (time.adaptive: false, backward Euler's position) loses what the
 * issue reported: 12 % of the exit speed at dt = 1e-5 for n = 1.5, a v_in = 0.6; so the test above
 * discriminates. */
Test(substeps, fixed_steps_lose_the_bounce)
{
    const double ex = hc_exit_speed(0.6, 1.0);
    const drop_out o = drop(1.5, 0.6, 1e-5, 0);
    printf("fixed dt = 1e-5: exit speed %.6f m/s against %.6f (%+.2f %%), residual %.3g\n", o.vz, ex,
           100 * (o.vz / ex - 1), o.residual);
    cr_expect(fabs(ex - 0.71195) < 1e-5, "the closed form: %.6f (the issue's 0.71195)", ex);
    cr_expect(o.vz / ex - 1 < -0.1, "fixed steps: %g", o.vz / ex - 1);
}

/* The substeps' state (level, calm count, the gamma scheme's a_n, the sets' speed scales) is in the
 * checkpoint (host/step/checkpoint.c, the records --checkpoint-every writes and --resume reads): a run
 * checkpointed between output steps in the middle of a bounce (dt = 1e-4, t = 0.2 ms) and resumed
 * in a fresh data set ends bitwise as the uninterrupted one. */
Test(substeps, a_checkpoint_in_a_bounce_resumes_bitwise)
{
    char text[2048], err[512];
    drop_text(text, sizeof text, 1.0e-3, 1.0e-4, "", 1.5, 0.6);
    br_model *m = br_scenario_parse("drop.yaml", text, strlen(text), NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    br_data *a = br_data_create(m, BR_BACKEND_CPU, err, sizeof err), *b = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(a && b, "%s", err);
    br_ckpt c = {0};
    for (int k = 0; k < 10; k++) {
        if (k == 2) { /* at t = 0.2 ms, the ball in the surface */
            br_ckpt_mem(&c, 1);
            cr_assert_eq(br_data_checkpoint(m, a, &c), 0, "%s", c.err);
            cr_assert(a->res[0].ncontact == 1 && a->level > 0, "in a bounce, in substeps (level %d)", a->level);
        }
        cr_assert_eq(br_step_begin(m, a, 1, NULL, err, sizeof err), 0, "%s", err);
        cr_assert_eq(br_step_end(m, a, NULL, err, sizeof err), 0, "%s", err);
    }
    br_ckpt_mem(&c, 0);
    cr_assert_eq(br_data_checkpoint(m, b, &c), 0, "%s", c.err);
    for (int k = 2; k < 10; k++) {
        cr_assert_eq(br_step_begin(m, b, 1, NULL, err, sizeof err), 0, "%s", err);
        cr_assert_eq(br_step_end(m, b, NULL, err, sizeof err), 0, "%s", err);
    }
    printf("resumed at t = 0.2 ms: v_z %.17g and %.17g, %ld and %ld substeps\n", a->v[2], b->v[2], a->sub.taken, b->sub.taken);
    cr_expect(a->v[2] == b->v[2] && a->x[2] == b->x[2] && a->t == b->t, "resumed %.17g against %.17g", b->v[2], a->v[2]);
    cr_expect(a->en.residual == b->en.residual && a->sub.taken == b->sub.taken && a->sub.rejected == b->sub.rejected);
    br_ckpt_mem_free(&c);
    br_data_free(a), br_data_free(b);
    br_model_free(m);
}

/* scenarios/chain_jenkins.yaml with the sets' kt (N/m), dt, end -> its energy residual (relative) at the
 * end, the steps as bristle run takes them */
static double chain_residual(const char *kt, const char *dt, double end)
{
    char err[1024], path[1024], s1[64], s2[64], s3[64], s4[64];
    snprintf(path, sizeof path, "%s/scenarios/chain_jenkins.yaml", SOURCE_DIR);
    snprintf(s1, sizeof s1, "contacts.c1.friction.kt=%s", kt);
    snprintf(s2, sizeof s2, "contacts.c3.friction.kt=%s", kt);
    snprintf(s3, sizeof s3, "time.dt=%s", dt);
    snprintf(s4, sizeof s4, "time.end=%g", end);
    const char *const sets[] = {s1, s2, s3, s4, "output.interval=1e-2"};
    br_model *m = br_scenario_load(path, sets, 5, err, sizeof err);
    cr_assert(m, "%s", err);
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    cr_assert(br_data_adapts(m, d) && d->nrb == 3, "the chain's three masses step together (%d)", d->nrb);
    const long nsteps = lround(m->t_end / m->dt);
    for (long k = 0; k <= nsteps; k++) {
        cr_assert_eq(br_step_begin(m, d, 1, NULL, err, sizeof err), 0, "%s", err);
        if (k < nsteps) cr_assert_eq(br_step_end(m, d, NULL, err, sizeof err), 0, "%s", err);
    }
    const double r = d->en.residual_rel;
    br_data_free(d);
    br_model_free(m);
    return r;
}

/* Springs between free bodies under the gamma scheme (issue 50, item 2; host/step/sim.c springs_implicit):
 * the three-mass chain whose outer masses stick through jenkins elements (kt x 1e-2: 0.2 N/m, mu N =
 * 1 N, never reached) is linear, its springs and the contacts' tangents resolved at dt = 1e-2:
 * W^2 = (w h)^2 <= 1e-4. A step changes a linear system's energy by -(gamma - 1/2) m dv^2 -
 * (beta - 1/2) k dx^2, with gamma - 1/2 <= W^2 / 2 = 5e-5 and beta - 1/2 <= W^2 (gamma - 1/2):
 * with |dv| <= h a (a about 1 m/s^2 here), 5e-9 J a step, 3e-5 J over these 6000 steps against an
 * input work near 1.7 J: bound 1e-4 of it (measured 1.3e-5). With the springs explicit against the
 * trapezoidal position (before 2026-11-29) the balance gained 28 % of the input work over 300 s
 * (benchmarks/results). At kt x 1e4 (2e5 N/m, w h = 4.5: the contacts unresolved, their modes damped,
 * gamma near 1, the jenkins elements slipping) the 1 % (measured 1e-4; 3.4e-3 over 300 s before:
 * this half guards the level, it does not tell the two rules apart). */
Test(substeps, springs_between_free_bodies_keep_the_energy_balance)
{
    const double soft = chain_residual("0.2", "1e-2", 60.0), stiff = chain_residual("2e5", "1e-2", 60.0);
    printf("chain at dt 1e-2, 60 s: energy residual %.3g (kt 0.2 N/m), %.3g (kt 2e5 N/m)\n", soft, stiff);
    cr_expect(fabs(soft) <= 1e-4, "kt 0.2 N/m: residual %g of the input work", soft);
    cr_expect(fabs(stiff) <= 1e-2, "kt 2e5 N/m: residual %g of the input work", stiff);
}
