/* test_beam_batch.c: variants of the S2 bundle stepped as a beam batch (host/step/beam_batch.c:
 * kernels/step/'s stages over the variants, one field over all their sets, the structure's
 * state with the variant innermost; on the CPU eight at a time in vector lanes) against each
 * variant's own run (br_step, its own field, the same LU: the header's, or LAPACK's as a run's
 * default): every state, frame, set result and energy term bitwise after 0.3 s of the S2
 * sweep (mistuned moduli, another excitation and preload, another friction coefficient, a
 * heavier tip), with
 * energy booked every step (30000 steps) and every tenth (3000); refusals of models that do not fit.
 * On a GPU (skipped, with the reason printed, where none is usable): the batch resident there
 * against the CPU runs within 1e-10 of each quantity's scale. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuskip.h"
#include "sanitized.h"
#include "step/beam_batch.h"
#include "io/scenario.h"
#include "step/sim.h"

#define S2_SWEEP SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml"

enum { NV = 11, MAXSET = 8 }; /* on the CPU a block of eight in vector lanes, three one by one */

static const char *const SETS[NV][MAXSET] = {
    {NULL},
    {"beams.blade_L.E=2.1273e11", "beams.blade_C.E=2.0601e11", "beams.blade_R.E=2.1567e11", NULL},
    {"beams.blade_L.E=2.0475e11", "beams.blade_C.E=2.1084e11", "beams.blade_R.E=2.0832e11", NULL},
    {"loads.excitation.magnitude.sweep.amplitude=6", "loads.preload_L.magnitude.ramp.to=20",
     "loads.preload_R.magnitude.ramp.to=20", NULL},
    {"contacts.contact_L.friction.mu_s=0.3", "contacts.contact_L.friction.mu_k=0.2", "beams.blade_C.E=2.15e11", NULL},
    {"loads.excitation.magnitude.sweep.f0=50", "loads.excitation.magnitude.sweep.amplitude=4", "bodies.tip_C.mass=0.2", NULL},
    {"beams.blade_L.E=2.0811e11", "beams.blade_C.E=2.1390e11", "beams.blade_R.E=2.0702e11", NULL},
    {"beams.blade_L.E=2.1611e11", "beams.blade_C.E=2.0930e11", "beams.blade_R.E=2.1005e11", NULL},
    {"contacts.contact_R.friction.mu_s=0.35", "beams.blade_R.E=2.07e11", NULL},
    {"loads.preload_L.magnitude.ramp.to=9", "loads.preload_R.magnitude.ramp.to=9", "beams.blade_L.E=2.12e11", NULL},
    {"beams.blade_L.E=2.0555e11", "beams.blade_C.E=2.0555e11", "beams.blade_R.E=2.1444e11", NULL},
};

static int nsets(const char *const *s)
{
    int k = 0;
    while (k < MAXSET && s[k]) k++;
    return k;
}

static br_model *load(int v)
{
    char err[1024];
    br_model *m = br_scenario_load(S2_SWEEP, SETS[v], nsets(SETS[v]), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    return m;
}

#define SAME(a, b, what, v) cr_assert(!memcmp(&(a), &(b), sizeof(a)), "variant %d: %s differs", v, what)

static void compare(const br_data *a, const br_data *b, const br_model *m, int v)
{
    const int n = a->ga->n;
    cr_assert(!memcmp(a->ga->u, b->ga->u, n * sizeof(double)), "variant %d: u differs", v);
    cr_assert(!memcmp(a->ga->v, b->ga->v, n * sizeof(double)), "variant %d: v differs", v);
    cr_assert(!memcmp(a->ga->a, b->ga->a, n * sizeof(double)), "variant %d: a differs", v);
    cr_assert(!memcmp(a->gext_prev, b->gext_prev, n * sizeof(double)), "variant %d: gext differs", v);
    cr_assert(!memcmp(a->frames, b->frames, br_model_nframe(m) * sizeof *a->frames), "variant %d: frames differ", v);
    cr_assert(!memcmp(a->x, b->x, 3 * m->nbody * sizeof(double)), "variant %d: body positions differ", v);
    cr_assert(!memcmp(a->v, b->v, 3 * m->nbody * sizeof(double)), "variant %d: body velocities differ", v);
    for (int s = 0; s < m->nset; s++) {
        SAME(a->res[s], b->res[s], "a set result", v);
        cr_assert(a->setE[s] == b->setE[s] && a->setEnd[s] == b->setEnd[s], "variant %d set %d: energy %.17g %.17g", v, s,
                  a->setE[s], b->setE[s]);
    }
    SAME(a->en, b->en, "the energy terms", v);
    cr_assert(a->t == b->t && a->step == b->step, "variant %d: time", v);
    for (int l = 0; l < m->nload; l++) cr_assert(a->load_val[l] == b->load_val[l], "variant %d load %d", v, l);
}

/* steps, energy every `every` steps (the run loop's sampling), rows (the CPU batch integrates by
 * rows, the GPU's phases), lu (1: the header's, as a GPU; 0: LAPACK's dgesv, a run's default) ->
 * the batch's variants bitwise their own runs with that LU */
static void against_own_runs(int steps, int every, int rows, int lu)
{
    br_model *m[NV], *mb[NV];
    br_data *own[NV], *bd[NV];
    char err[1024];
    for (int v = 0; v < NV; v++) {
        m[v] = load(v), mb[v] = load(v);
        own[v] = br_data_create(m[v], BR_BACKEND_CPU, err, sizeof err);
        cr_assert_not_null(own[v], "%s", err);
        own[v]->ga->own_lu = lu;
        bd[v] = br_data_create_opt(mb[v], BR_BACKEND_CPU, 0, err, sizeof err);
        cr_assert_not_null(bd[v], "%s", err);
        bd[v]->ga->own_lu = lu; /* the batch takes variant 0's */
        cr_assert(br_beam_batch_fits(mb[v], bd[v], err, sizeof err), "%s", err);
    }
    br_beam_batch *B = br_beam_batch_create((const br_model *const *)mb, bd, NV, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(B, "%s", err);
    cr_assert_eq(br_beam_batch_integrate_by_rows(B, rows), 0);
    int energy[NV], failed[NV] = {0};
    char errs[NV][600];
    double Nmax = 0.0;
    for (int k = 0; k < steps; k++) {
        const int e = k % every == 0;
        for (int v = 0; v < NV; v++) {
            energy[v] = e;
            cr_assert_eq(br_step_forces(m[v], own[v], e, NULL, err, sizeof err), 0, "%s", err);
            br_integrate(m[v], own[v], m[v]->dt);
            Nmax = fmax(Nmax, own[v]->res[0].N);
        }
        br_beam_batch_step(B, energy, failed, &errs[0][0], sizeof errs[0]);
        for (int v = 0; v < NV; v++) cr_assert_eq(failed[v], 0, "variant %d: %s", v, errs[v]);
    }
    for (int v = 0; v < NV; v++) {
        br_beam_batch_export(B, v);
        compare(own[v], bd[v], m[v], v);
    }
    fprintf(stderr, "beam batch of %d S2 variants, %d steps (energy every %d%s, %s LU): bitwise each variant's own run; "
                    "largest contact force %.3g N, tip_C x %.3g m\n",
            NV, steps, every, rows ? ", integrated by rows" : "", lu ? "the header's" : "LAPACK's", Nmax, own[0]->x[3 * 3]);
    cr_assert_gt(Nmax, 0.0, "the contacts carried load");
    br_beam_batch_destroy(B);
    for (int v = 0; v < NV; v++) br_data_free(own[v]), br_data_free(bd[v]), br_model_free(m[v]), br_model_free(mb[v]);
}

/* 0.3 s, energy every step; in the sanitized build 0.03 s (3000 steps, as the three tests below: the same code,
 * under ASan 83 s of the sanitized subset's wall at full length with both cores held; sanitized.h) */
Test(beam_batch, bitwise_each_variants_own_run, .timeout = 600)
{
    against_own_runs(BR_TEST_SANITIZED ? 3000 : 30000, 1, 0, 1);
}

Test(beam_batch, bitwise_with_energy_every_tenth_step, .timeout = 300)
{
    against_own_runs(3000, 10, 0, 1);
}

/* LAPACK's dgesv on each variant's copy of its Woodbury system, as its run solves it: a study on
 * the CPU's batch gives each variant's run bit for bit */
Test(beam_batch, bitwise_each_run_with_lapacks_lu, .timeout = 300)
{
    against_own_runs(3000, 10, 0, 0);
}

/* the GPU's integration phases (a thread a row of a variant, then a column, then a variant) on
 * the CPU: the same sums in the same order */
Test(beam_batch, integrated_by_rows_bitwise_too, .timeout = 300)
{
    against_own_runs(3000, 10, 1, 1);
}

Test(beam_batch, models_that_do_not_fit_are_named)
{
    char err[1024];
    const char *cube = SOURCE_DIR "/scenarios/cube_00.yaml";
    br_model *m = br_scenario_load(cube, NULL, 0, err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    br_data *d = br_data_create_opt(m, BR_BACKEND_CPU, 0, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    cr_assert_eq(br_beam_batch_fits(m, d, err, sizeof err), 0);
    cr_assert(strstr(err, "no beams"), "%s", err);
    br_data_free(d), br_model_free(m);
    const char *expl[] = {"time.coupling=explicit"};
    m = br_scenario_load(S2_SWEEP, expl, 1, err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    d = br_data_create_opt(m, BR_BACKEND_CPU, 0, err, sizeof err);
    cr_assert_eq(br_beam_batch_fits(m, d, err, sizeof err), 0);
    cr_assert(strstr(err, "explicitly"), "%s", err);
    br_data_free(d), br_model_free(m);
    /* variants that differ in more than their parameters */
    br_model *a = load(0), *b = br_scenario_load(S2_SWEEP, (const char *[]){"loads.excitation.body=tip_L"}, 1, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    br_data *da = br_data_create_opt(a, BR_BACKEND_CPU, 0, err, sizeof err), *db = br_data_create_opt(b, BR_BACKEND_CPU, 0, err, sizeof err);
    cr_assert_not_null(db, "%s", err);
    const br_model *mm[2] = {a, b};
    br_data *dd[2] = {da, db};
    cr_assert_null(br_beam_batch_create(mm, dd, 2, BR_BACKEND_CPU, err, sizeof err));
    cr_assert(strstr(err, "variant 1") && strstr(err, "differ"), "%s", err);
    br_data_free(da), br_data_free(db), br_model_free(a), br_model_free(b);
}

/* largest |a_i - b_i| over the largest |a_i| (the difference itself where a is all zero) */
static double rel(const double *a, const double *b, int n)
{
    double d = 0.0, s = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(a[i]));
    return s > 0 ? d / s : d;
}

/* the GPU batch (field, structure and stages resident) against each variant's own run on the
 * CPU: 6 x 20 variants, 3000 steps (the contacts in stick and slip, before the impacts): within
 * 1e-10 of each quantity's scale (the sets' sums are added in the GPU's order); and the 20 copies
 * of each variant, at their different places in the batch (other segments, warps and blocks of
 * the field's and the solve's launches), bitwise equal to one another */
Test(beam_batch_cuda, agrees_with_each_variants_own_run, .timeout = 600)
{
    BR_SKIP_WITHOUT_GPU("test_beam_batch_cuda");
    enum { NV6 = 6, REP = 20, N = NV6 * REP, STEPS = 3000 }; /* the first six variants, twenty times */
    br_model *m[N], *mb[N];
    br_data *own[N], *bd[N];
    char err[1024];
    for (int v = 0; v < N; v++) {
        m[v] = load(v % NV6), mb[v] = load(v % NV6);
        own[v] = br_data_create(m[v], BR_BACKEND_CPU, err, sizeof err);
        cr_assert_not_null(own[v], "%s", err);
        own[v]->ga->own_lu = 1;
        bd[v] = br_data_create_opt(mb[v], BR_BACKEND_CPU, 0, err, sizeof err);
        cr_assert_not_null(bd[v], "%s", err);
    }
    br_beam_batch *B = br_beam_batch_create((const br_model *const *)mb, bd, N, BR_BACKEND_CUDA, err, sizeof err);
    cr_assert_not_null(B, "%s", err);
    static int energy[N], failed[N];
    static char errs[N][600];
    for (int k = 0; k < STEPS; k++) {
        for (int v = 0; v < N; v++) {
            energy[v] = k % 10 == 0;
            if (v < NV6) { /* the own runs of the first six; the other variants repeat them */
                cr_assert_eq(br_step_forces(m[v], own[v], energy[v], NULL, err, sizeof err), 0, "%s", err);
                br_integrate(m[v], own[v], m[v]->dt);
            }
        }
        br_beam_batch_step(B, energy, failed, &errs[0][0], sizeof errs[0]);
        for (int v = 0; v < N; v++) cr_assert_eq(failed[v], 0, "variant %d: %s", v, errs[v]);
    }
    double worst = 0.0;
    for (int v = 0; v < N; v++) {
        br_beam_batch_export(B, v);
        const br_data *a = own[v % NV6], *b = bd[v];
        const int n = a->ga->n;
        double r[6] = {rel(a->ga->u, b->ga->u, n), rel(a->ga->v, b->ga->v, n), rel(a->x, b->x, 3 * m[0]->nbody), 0, 0, 0};
        double FA[6], FB[6];
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < 3; j++) FA[3 * s + j] = a->res[s].F_A[j], FB[3 * s + j] = b->res[s].F_A[j];
        r[3] = rel(FA, FB, 6);
        r[4] = rel(a->setE, b->setE, 2);
        r[5] = fabs(a->en.residual - b->en.residual) / fmax(fabs(a->en.work_in), 1e-300);
        for (int k = 0; k < 6; k++) worst = fmax(worst, r[k]);
        if (v < NV6)
            fprintf(stderr, "variant %d on %s: u %.2g v %.2g x %.2g F_A %.2g E %.2g residual %.2g\n", v, "the GPU", r[0], r[1],
                    r[2], r[3], r[4], r[5]);
        cr_assert(a->t == b->t && a->step == b->step, "variant %d: time", v);
        if (v >= NV6) { /* its first copy, exported before it */
            const br_data *c = bd[v % NV6];
            cr_assert(!memcmp(b->ga->u, c->ga->u, (size_t)n * sizeof(double)) &&
                          !memcmp(b->ga->v, c->ga->v, (size_t)n * sizeof(double)) &&
                          !memcmp(b->x, c->x, (size_t)3 * m[0]->nbody * sizeof(double)) &&
                          !memcmp(b->res, c->res, 2 * sizeof *b->res) && !memcmp(b->setE, c->setE, 2 * sizeof(double)),
                      "variant %d is not bitwise its copy %d", v, v % NV);
        }
    }
    fprintf(stderr, "GPU beam batch of %d variants, %d steps: worst relative difference %.3g against the CPU runs\n", N, STEPS,
            worst);
    cr_assert_lt(worst, 1e-10);
    br_beam_batch_destroy(B);
    for (int v = 0; v < N; v++) br_data_free(own[v]), br_data_free(bd[v]), br_model_free(m[v]), br_model_free(mb[v]);
}
