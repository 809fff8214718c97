/* test_batch.c: issue 51's item 2. Runs and batches use the same stage code (kernels/step/'s
 * stages over a variant's view; host/step/): every scenario of scenarios/ stepped as a run (br_step
 * at the fixed step dt, its own field) and as a one-variant batch (host/step/batch.h: a field over
 * the batch's sets, the variant's other stages), every state compared bit for bit: bodies, frames,
 * set results and energy integrals, loads, springs, joints, the drivetrain, the structure, the energy
 * terms. The batch takes every feature a run takes: free bodies, kinematic frames, springs, joints,
 * drivetrains, prescribed normal forces, table loads, beams, any number of sets (a scenario of 20
 * cubes on the ground, 20 sets, written here), and several variants in one batch are each their
 * own run bitwise. Variants of different steps are refused with the reason. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"
#include "step/batch.h"
#include "step/sim.h"

#define SAME_N(a, b, n, what)                                                                                           \
    cr_assert(!memcmp((a), (b), (size_t)(n) * sizeof *(a)), "%s: %s differs after %ld steps", name, what, (long)ra->step)

/* the two data of one model -> every state of the step's stages bitwise the same */
static void compare(const char *name, const br_model *m, const br_data *ra, const br_data *ba)
{
    const int nb = m->nbody, ns = m->nset;
    SAME_N(ra->x, ba->x, 3 * nb, "the bodies' positions");
    SAME_N(ra->q, ba->q, 4 * nb, "the bodies' attitudes");
    SAME_N(ra->v, ba->v, 3 * nb, "the bodies' velocities");
    SAME_N(ra->w, ba->w, 3 * nb, "the bodies' angular velocities");
    SAME_N(ra->acc, ba->acc, 6 * nb, "the bodies' accelerations");
    SAME_N(ra->f, ba->f, 3 * nb, "the bodies' forces");
    SAME_N(ra->frames, ba->frames, br_model_nframe(m), "the frames");
    SAME_N(ra->fframes, ba->fframes, br_model_nframe(m), "the field's frames");
    SAME_N(ra->res, ba->res, ns, "the set results");
    SAME_N(ra->E_upto, ba->E_upto, 6 * ns, "the sets' powers and energy integrals");
    SAME_N(ra->load_val, ba->load_val, m->nload, "the loads");
    SAME_N(ra->spring_val, ba->spring_val, m->nspring, "the springs");
    SAME_N(ra->spring_angle, ba->spring_angle, m->nspring, "the torsion angles");
    SAME_N(ra->rot_z, ba->rot_z, m->nrot, "the joints' bristles");
    SAME_N(ra->rot_E, ba->rot_E, m->nrot, "the joints' energies");
    SAME_N(&ra->en, &ba->en, 1, "the energy terms");
    cr_assert(ra->t == ba->t && ra->step == ba->step && ra->res_ref == ba->res_ref, "%s: time or reference", name);
    if (ra->ga) {
        const int n = ra->ga->n;
        SAME_N(ra->ga->u, ba->ga->u, n, "the structure's u");
        SAME_N(ra->ga->v, ba->ga->v, n, "the structure's v");
        SAME_N(ra->ga->a, ba->ga->a, n, "the structure's a");
        SAME_N(ra->gext_prev, ba->gext_prev, n, "the structure's loads");
    }
    if (ra->drv) {
        SAME_N(ra->drv->w, ba->drv->w, m->drive.nshaft, "the shafts' speeds");
        SAME_N(ra->drv->cl_z, ba->drv->cl_z, m->drive.ncl, "the clutches' bristles");
        SAME_N(ra->drv->cl_tau, ba->drv->cl_tau, m->drive.ncl, "the clutches' torques");
    }
}

/* the scenario's points (the steps are fewer where there are many) */
static long npoints(const br_model *m)
{
    long n = 0;
    for (int s = 0; s < m->nset; s++) n += m->cset[s].desc.npoints;
    return n;
}

/* nv models (the same step) -> each stepped `steps` times as its own run and, all together, as one
 * batch, every state compared after every 10th step and at the end; the largest normal force seen */
static double run_and_batch(const char *name, br_model *const *mr, br_model *const *mb, int nv, long steps)
{
    char err[1024], errs[8][600];
    char *ep[8];
    br_data *r[8], *b[8];
    int energy[8], failed[8];
    long run[8];
    cr_assert_leq(nv, 8);
    for (int v = 0; v < nv; v++) {
        r[v] = br_data_create(mr[v], BR_BACKEND_CPU, err, sizeof err);
        cr_assert_not_null(r[v], "%s: %s", name, err);
        b[v] = br_data_create_opt(mb[v], BR_BACKEND_CPU, 0, err, sizeof err);
        cr_assert_not_null(b[v], "%s: %s", name, err);
        ep[v] = errs[v], run[v] = v;
    }
    br_batch *B = br_batch_create((const br_model *const *)mb, b, nv, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_not_null(B, "%s: %s", name, err);
    double Nmax = 0.0;
    for (long k = 0; k < steps; k++) {
        const int e = k % 3 == 0; /* energy terms on some steps, as a run samples them */
        for (int v = 0; v < nv; v++) {
            energy[v] = e;
            cr_assert_eq(br_step_forces(mr[v], r[v], e, NULL, err, sizeof err), 0, "%s: run: %s", name, err);
        }
        br_batch_forces(B, run, nv, energy, failed, ep, sizeof errs[0]);
        for (int v = 0; v < nv; v++) {
            cr_assert_eq(failed[v], 0, "%s: batch: %s", name, errs[v]);
            for (int s = 0; s < mr[v]->nset; s++) Nmax = fmax(Nmax, r[v]->res[s].N);
            if (k % 10 == 0) compare(name, mr[v], r[v], b[v]);
            br_integrate(mr[v], r[v], mr[v]->dt);
            br_integrate(mb[v], b[v], mb[v]->dt);
        }
    }
    for (int v = 0; v < nv; v++) compare(name, mr[v], r[v], b[v]);
    br_batch_destroy(B);
    for (int v = 0; v < nv; v++) br_data_free(r[v]), br_data_free(b[v]);
    return Nmax;
}

Test(batch, every_scenario_as_a_run_and_as_a_one_variant_batch_bitwise, .timeout = 900)
{
    DIR *dir = opendir(SOURCE_DIR "/scenarios");
    cr_assert_not_null(dir);
    struct dirent *e;
    int n = 0, loaded = 0;
    while ((e = readdir(dir))) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) continue;
        char path[1024], err[1024];
        snprintf(path, sizeof path, "%s/scenarios/%s", SOURCE_DIR, e->d_name);
        br_model *mr = br_scenario_load(path, NULL, 0, err, sizeof err), *mb = br_scenario_load(path, NULL, 0, err, sizeof err);
        cr_assert(mr && mb, "%s: %s", e->d_name, err);
        loaded++;
        /* 2e6 point steps a side at most (the 1e6-point clutch patch: 5 steps), at most 200 */
        const long np = npoints(mr), steps = np > 0 && 2000000 / np < 200 ? (2000000 / np > 5 ? 2000000 / np : 5) : 200;
        run_and_batch(e->d_name, &mr, &mb, 1, steps);
        br_model_free(mr), br_model_free(mb);
        n++;
    }
    closedir(dir);
    fprintf(stderr, "batch: %d scenarios, each a run and a one-variant batch, every state bitwise the same\n", n);
    cr_assert_geq(n, 50, "every scenario of scenarios/ (%d found, %d loaded)", n, loaded);
}

/* a scenario of k cubes on the ground (cube_30's cube, press and pull: table loads), each with
 * its own contact set, written to path */
static void write_cubes(const char *path, int k)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "name: cubes\ntime:\n  end: 1.0\n  dt: 1.0e-5\nbodies:\n");
    for (int i = 0; i < k; i++)
        fprintf(f, "  - {name: cube%d, mass: 1.0, box: [0.1, 0.1, 0.1], position: [%g, 0.0, 0.05]}\n", i, 0.3 * i);
    fprintf(f, "loads:\n");
    for (int i = 0; i < k; i++)
        fprintf(f, "  - {name: press%d, body: cube%d, direction: [0, 0, -1], magnitude: {table: [[0, 10], [1, %g]]}}\n"
                   "  - {name: pull%d, body: cube%d, direction: [1, 0, 0], magnitude: {table: [[0, 0], [1e-3, %g]]}}\n",
                i, i, 10.0 + i, i, i, 0.5 + 0.05 * i);
    fprintf(f, "contacts:\n");
    for (int i = 0; i < k; i++)
        fprintf(f, "  - name: base%d\n    body: cube%d\n    surface: {type: plane, frame: ground, point: [0, 0, 0], "
                   "normal: [0, 0, 1]}\n    points: {ring: {center: [0, 0, -0.05], radius: 0.05, count: 6}}\n"
                   "    total_area: 6.495190528383292e-3\n    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, D: 4.88e5, pD: 0.5}\n"
                   "    friction: {law: lugre3d, sigma0: 1.0e4, sigma1: 31.6, sigma2: 0.04, V_st: 1.0e-3, mu_k: 0.1, mu_s: 0.15, alpha: 2}\n",
                i, i);
    fclose(f);
}

Test(batch, twenty_sets_in_one_variant_and_three_variants_each_their_own_run, .timeout = 300)
{
    char path[] = "/tmp/bristle_test_batch_XXXXXX.yaml", err[1024];
    const int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    write_cubes(path, 20);
    const char *const sets[3][1] = {{"contacts.base3.friction.mu_k=0.12"}, {"bodies.cube7.mass=1.5"},
                                    {"contacts.base11.normal.sigma=4e-9"}};
    br_model *mr[3], *mb[3];
    for (int v = 0; v < 3; v++) {
        mr[v] = br_scenario_load(path, sets[v], 1, err, sizeof err);
        mb[v] = br_scenario_load(path, sets[v], 1, err, sizeof err);
        cr_assert(mr[v] && mb[v], "%s", err);
        cr_assert_eq(mr[v]->nset, 20);
    }
    const double N = run_and_batch("20 cubes", mr, mb, 1, 300);
    const double N3 = run_and_batch("20 cubes, 3 variants", mr, mb, 3, 300);
    remove(path);
    fprintf(stderr, "batch: 20 free bodies on 20 sets, one variant and three in one batch: bitwise their own runs "
                    "(largest normal force %.3g N, %.3g N)\n", N, N3);
    cr_assert_gt(N, 1.0, "the cubes pressed on the ground");
    for (int v = 0; v < 3; v++) br_model_free(mr[v]), br_model_free(mb[v]);
}

Test(batch, variants_of_different_steps_are_refused_with_the_reason)
{
    char err[1024];
    const char *const fine[] = {"time.dt=2e-5"};
    br_model *m[2] = {br_scenario_load(SOURCE_DIR "/scenarios/cube_30.yaml", NULL, 0, err, sizeof err),
                      br_scenario_load(SOURCE_DIR "/scenarios/cube_30.yaml", fine, 1, err, sizeof err)};
    cr_assert(m[0] && m[1], "%s", err);
    br_data *d[2] = {br_data_create_opt(m[0], BR_BACKEND_CPU, 0, err, sizeof err),
                     br_data_create_opt(m[1], BR_BACKEND_CPU, 0, err, sizeof err)};
    cr_assert(d[0] && d[1], "%s", err);
    br_batch *B = br_batch_create((const br_model *const *)m, d, 2, BR_BACKEND_CPU, err, sizeof err);
    cr_assert_null(B);
    cr_assert(strstr(err, "variant 1") && strstr(err, "step"), "the reason: %s", err);
    br_data_free(d[0]), br_data_free(d[1]), br_model_free(m[0]), br_model_free(m[1]);
}
