/* test_festoon.c: S7, the festoon cable system (scenarios.md; docs/festoon.md), with the three
 * friction models, each run in process with the fixed-step solver (CPU). Checked, each by a
 * number (issue 17, acceptance 2):
 *   bristle2 and static_reg nearly identical: trolley positions within 1 cm over the run;
 *   the LuGre friction coefficient F_R / F_N against the sliding speed leaves the first and third
 *   quadrants (friction pushing the trolley along its motion while |v| > 1 mm/s), and differently
 *   on T1 and T2; static_reg never does (dissipative by construction);
 *   after the sudden stop at 19 s the friction force changes sign (two-sided stick-slip) at least
 *   twice on each trolley, with every model;
 *   steady friction within mu_s F_N: |F| <= mu_s N except transients of at most 0.05 s;
 *   the energy balance within 1e-3 of the input work.
 * The run time of each run (one core) is printed, not asserted. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outdir.h"
#include "io/output.h"
#include "io/scenario.h"
#include "step/sim.h"

#define MAXS 24100 /* samples at 1 ms over 24 s */

typedef struct trolley_trace {
    double x[MAXS], v[MAXS], F[MAXS], N[MAXS]; /* displacement, speed, friction force on it, normal force */
} trolley_trace;

typedef struct festoon {
    int n;
    double t[MAXS];
    trolley_trace tr[2]; /* T1, T2 */
    double residual, wall;
} festoon;

static festoon runs[3]; /* lugre, bristle2, static_reg: static, large */
static const char *const kModels[3] = {"lugre", "bristle2", "static_reg"};

/* column of name in the model's output row, or a failed assertion */
static int col(const br_model *m, const char *name)
{
    char buf[128];
    for (int c = 0; c < br_output_ncols(m); c++) {
        br_output_colname(m, c, buf, sizeof buf);
        if (!strcmp(buf, name)) return c;
    }
    cr_assert_fail("no column %s", name);
    return -1;
}

static void run(int model, festoon *f)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenarios/festoon_%s.yaml", SOURCE_DIR, kModels[model]);
    br_model *m = br_scenario_load(path, NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(d, "%s", err);
    const int nc = br_output_ncols(m);
    double *row = malloc((size_t)nc * sizeof(double));
    cr_assert(row);
    int cx[2], cv[2], cF[2], cN[2];
    for (int k = 0; k < 2; k++) {
        char name[64];
        snprintf(name, sizeof name, "T%d.x", k + 1), cx[k] = col(m, name);
        snprintf(name, sizeof name, "T%d.vx", k + 1), cv[k] = col(m, name);
        snprintf(name, sizeof name, "rail_T%d.Fx", k + 1), cF[k] = col(m, name);
        snprintf(name, sizeof name, "rail_T%d.N", k + 1), cN[k] = col(m, name);
    }
    const long nsteps = lround(m->t_end / m->dt), every = lround(1e-3 / m->dt);
    const double t0 = br_wall_seconds();
    f->n = 0;
    for (long k = 0; k < nsteps; k++) {
        cr_assert_eq(br_step(m, d, err, sizeof err), 0, "%s", err);
        if ((k + 1) % every == 0 && f->n < MAXS) {
            br_output_row(m, d, row);
            f->t[f->n] = d->t;
            for (int j = 0; j < 2; j++) {
                f->tr[j].x[f->n] = row[cx[j]], f->tr[j].v[f->n] = row[cv[j]];
                f->tr[j].F[f->n] = row[cF[j]], f->tr[j].N[f->n] = row[cN[j]];
            }
            f->n++;
        }
    }
    f->wall = br_wall_seconds() - t0;
    f->residual = d->en.residual_rel;
    free(row);
    br_data_free(d);
    br_model_free(m);
}

static void setup_runs(void)
{
    for (int k = 0; k < 3; k++) {
        run(k, &runs[k]);
        printf("festoon_%s: %.3f s on one core (240000 steps), energy residual %.2g\n", kModels[k], runs[k].wall,
               runs[k].residual);
    }
}

/* trace j of run f: samples with |v| > 1 mm/s where the friction force pushes along the motion */
static int against_quadrants(const festoon *f, int j)
{
    int c = 0;
    for (int i = 0; i < f->n; i++) c += fabs(f->tr[j].v[i]) > 1e-3 && f->tr[j].F[i] * f->tr[j].v[i] > 0.0;
    return c;
}

/* sign changes of the friction force (|F| > 0.05 N) of trace j after t0; the last one's time in *last */
static int sign_changes(const festoon *f, int j, double t0, double *last)
{
    int n = 0, prev = 0;
    *last = -1.0;
    for (int i = 0; i < f->n; i++) {
        if (f->t[i] < t0 || fabs(f->tr[j].F[i]) <= 0.05) continue;
        const int s = f->tr[j].F[i] > 0.0 ? 1 : -1;
        if (prev && s != prev) n++, *last = f->t[i];
        prev = s;
    }
    return n;
}

/* longest stretch [s] of trace j with |F| > mu_s N (1e-9 relative slack) */
static double longest_above(const festoon *f, int j, double mu_s)
{
    double worst = 0.0, start = -1.0;
    for (int i = 0; i < f->n; i++) {
        const int above = fabs(f->tr[j].F[i]) > mu_s * f->tr[j].N[i] * (1.0 + 1e-9);
        if (above && start < 0.0) start = f->t[i];
        if (!above && start >= 0.0) worst = fmax(worst, f->t[i] - start), start = -1.0;
    }
    return start >= 0.0 ? fmax(worst, f->t[f->n - 1] - start) : worst;
}

Test(s7, festoon, .init = setup_runs, .timeout = 300)
{
    const festoon *lu = &runs[0], *b2 = &runs[1], *sr = &runs[2];
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(runs[k].n, 24000, "festoon_%s: %d samples", kModels[k], runs[k].n);
        cr_expect(fabs(runs[k].residual) < 1e-3, "festoon_%s: energy residual %g", kModels[k], runs[k].residual);
    }
    /* bristle2 and static_reg nearly identical */
    double dx = 0.0, travel = 0.0;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < b2->n; i++)
            dx = fmax(dx, fabs(b2->tr[j].x[i] - sr->tr[j].x[i])), travel = fmax(travel, fabs(sr->tr[j].x[i]));
    printf("bristle2 vs static_reg: trolley positions within %.4f m (largest travel %.3f m)\n", dx, travel);
    cr_expect(travel > 0.5 && dx < 0.01, "bristle2 and static_reg trolleys %.4f m apart", dx);
    /* LuGre leaves the first and third quadrants, differently on T1 and T2; static_reg never */
    const int q1 = against_quadrants(lu, 0), q2 = against_quadrants(lu, 1);
    double dmu = 0.0;
    for (int i = 0; i < lu->n; i++)
        dmu = fmax(dmu, fabs(lu->tr[0].F[i] / lu->tr[0].N[i] - lu->tr[1].F[i] / lu->tr[1].N[i]));
    printf("lugre: samples with friction along the motion (|v| > 1 mm/s): T1 %d, T2 %d (static_reg %d, %d); "
           "largest |mu_T1 - mu_T2| %.4f\n",
           q1, q2, against_quadrants(sr, 0), against_quadrants(sr, 1), dmu);
    cr_expect(q1 > 0 && q2 > 0, "LuGre's mu(v) stays in the first and third quadrants (%d, %d)", q1, q2);
    cr_expect(q1 != q2 && dmu > 0.01, "LuGre's mu(v) the same on T1 and T2");
    cr_expect(against_quadrants(sr, 0) == 0 && against_quadrants(sr, 1) == 0);
    /* two-sided stick-slip after the stop at 19 s */
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 2; j++) {
            double last;
            const int n = sign_changes(&runs[k], j, 19.0, &last);
            printf("festoon_%s T%d: %d sign changes of the friction force after 19 s, the last at %.3f s\n",
                   kModels[k], j + 1, n, last);
            cr_expect(n >= 2, "festoon_%s T%d: %d sign changes after the stop", kModels[k], j + 1, n);
        }
    /* steady friction within mu_s F_N */
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 2; j++) {
            const double above = longest_above(&runs[k], j, 0.08);
            printf("festoon_%s T%d: longest stretch above mu_s N %.3f s\n", kModels[k], j + 1, above);
            cr_expect(above <= 0.05, "festoon_%s T%d above mu_s N for %.3f s", kModels[k], j + 1, above);
        }
}
