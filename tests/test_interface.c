/* test_interface.c: deforming contact interfaces on structures given as matrices (issue 52, physics.md
 * 5.1).
 *
 * Acceptance 2: a single node-to-ground interface point on a one-DOF structure equals today's rigid
 * point contact on a body of the same mass and spring. The structure: M = [0.5 kg], K = [1e4 N/m], its
 * one node with ux only; a pad of 0.5 kg attached to the node in both runs (so the mass is the same); a
 * harmonic push along x. The reference: the pad's own contact set, one point against the ground plane
 * at the interference delta0 (the rigid set's six rows through the structure's Woodbury solve). The
 * interface: the node against the ground with the normal +z and gap -delta0 (its three rows, the
 * point's slopes). The node cannot move along z, so the normal force stays K delta0^2 = 10 N and the
 * friction (jenkins: slips at 3 N; lugre3d) decides the motion, stick and slip both met. Every step's
 * position, velocity, normal and friction force, friction power, stored and dissipated energy agree
 * within 1e-12 of each quantity's largest magnitude over the run, and the energy residual within 1e-12
 * of the energy it balances (the reference: input work plus initial energy), of which it is a
 * difference: the two
 * paths do the same arithmetic but for the kinematics (the gap from the geometry against -u_n), the
 * 6 x 6 Woodbury solve (the same nonzeros, LAPACK's pivoting) and the power booked over six
 * components against three, each a rounding difference (1e-16 relative) that the stable, friction-
 * damped motion does not grow by four orders over 5000 steps. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hbm.h"
#include "base/ckpt_io.h"
#include "base/textfile.h"
#include "io/scenario.h"
#include "step/checkpoint.h"
#include "step/sim.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static const char *friction_yaml(int jenkins)
{
    return jenkins ? "{law: jenkins, kt_area: 1.0e9, mu: 0.3}"
                   : "{law: lugre3d, sigma0: 1.0e5, sigma1: 316.0, sigma2: 0.4, mu_s: 0.4, mu_k: 0.3, V_st: 1.0e-3, alpha: 2}";
}

/* the model, rigid (0) or interface (1), friction law -> its scenario's path */
static void scenario(int iface, int jenkins, char *path, size_t len)
{
    const double A = 1e-4, sigma = 3e-9, N = 10.0, delta0 = sigma * sqrt(N / A);
    char dir[512], text[4096], p[700];
    snprintf(dir, sizeof dir, "%s/interface_%s", TEST_TMP, jenkins ? "jenkins" : "lugre3d"); /* tests run side by side */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/M.mtx", dir);
    write_file(p, "%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 0.5\n");
    snprintf(p, sizeof p, "%s/K.mtx", dir);
    write_file(p, "%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 1.0e4\n");
    snprintf(p, sizeof p, "%s/nodes.csv", dir);
    write_file(p, "label,x,y,z,ux,uy,uz\nn1,0,0,0,1,0,0\n");
    snprintf(p, sizeof p, "%s/pairs.csv", dir);
    char pairs[256];
    snprintf(pairs, sizeof pairs, "a,b,nx,ny,nz,area,gap\nn1,,0,0,1,%.17g,%.17g\n", A, -delta0);
    write_file(p, pairs);
    char contact[1024];
    if (iface)
        snprintf(contact, sizeof contact,
                 "  - name: c\n    interface: {structure: s, pairs: pairs.csv}\n"
                 "    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, D: 0, pD: 0.5}\n    friction: %s\n",
                 friction_yaml(jenkins));
    else
        snprintf(contact, sizeof contact,
                 "  - name: c\n    body: pad\n    surface: {type: plane, frame: ground, point: [0, 0, %.17g], normal: [0, 0, 1]}\n"
                 "    points: {list: [[0, 0, 0]]}\n    area: %.17g\n"
                 "    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, D: 0, pD: 0.5}\n    friction: %s\n",
                 delta0, A, friction_yaml(jenkins));
    snprintf(text, sizeof text,
             "time: {end: 0.05, dt: 1.0e-5}\n"
             "structures:\n  - {name: s, mass: M.mtx, stiffness: K.mtx, nodes: nodes.csv}\n"
             "bodies:\n  - {name: pad, mass: 0.5, box: [0.01, 0.01, 0.01], attach: {structure: s, node: n1}}\n"
             "loads:\n  - {name: push, body: pad, direction: [1, 0, 0], magnitude: {harmonic: {amplitude: 5.0, frequency: 20}}}\n"
             "contacts:\n%s",
             contact);
    snprintf(path, len, "%s/%s_%s.yaml", dir, iface ? "iface" : "rigid", jenkins ? "jenkins" : "lugre3d");
    write_file(path, text);
}

enum { NQ = 9 };
static const char *const QN[NQ] = {"x", "v", "N", "F_x", "P", "E_b", "E_friction", "residual", "nstick"};

static void quantities(const br_data *d, double q[NQ])
{
    const br_set_result *r = &d->res[0];
    q[0] = d->x[0], q[1] = d->v[0], q[2] = r->N, q[3] = r->F_A[0], q[4] = d->setP[0], q[5] = r->E_b;
    q[6] = d->setE[0], q[7] = d->en.residual, q[8] = r->nstick;
}

static void compare(int jenkins)
{
    char path[2][1024], err[2048];
    br_model *m[2];
    br_data *d[2];
    for (int k = 0; k < 2; k++) {
        scenario(k, jenkins, path[k], sizeof path[k]);
        m[k] = br_scenario_load(path[k], NULL, 0, err, sizeof err);
        cr_assert(m[k], "%s", err);
        d[k] = br_data_create(m[k], BR_BACKEND_CPU, err, sizeof err);
        cr_assert(d[k], "%s", err);
    }
    cr_assert(m[1]->cset[0].desc.iface && !m[0]->cset[0].desc.iface);
    const long nsteps = (long)nearbyint(m[0]->t_end / m[0]->dt);
    double scale[NQ] = {0}, diff[NQ] = {0}, stick = 0, slip = 0;
    for (long s = 0; s < nsteps; s++) {
        double q[2][NQ];
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(br_step(m[k], d[k], err, sizeof err), 0, "%s run, step %ld: %s", k ? "interface" : "rigid", s, err);
            quantities(d[k], q[k]);
        }
        for (int j = 0; j < NQ; j++) {
            /* the residual is a difference of energy terms: its rounding is theirs, the reference's */
            scale[j] = fmax(scale[j], j == 7 ? d[0]->res_ref : fabs(q[0][j]));
            diff[j] = fmax(diff[j], fabs(q[1][j] - q[0][j]));
        }
        /* the regimes by the friction force against mu_k N = 3 N: well inside (stuck or presliding) and at it */
        stick += fabs(q[0][3]) < 1.5, slip += fabs(q[0][3]) > 2.85;
    }
    for (int j = 0; j < NQ; j++) {
        printf("%s %-11s scale %.4g, largest difference %.3g (%.2g of the scale)\n", jenkins ? "jenkins" : "lugre3d", QN[j],
               scale[j], diff[j], scale[j] > 0 ? diff[j] / scale[j] : 0.0);
        cr_expect(diff[j] <= 1e-12 * scale[j], "%s: %s differs by %.3g, its scale %.3g", jenkins ? "jenkins" : "lugre3d",
                  QN[j], diff[j], scale[j]);
    }
    /* the motion met both regimes, and the normal force is the interference's */
    cr_expect(stick > 100 && slip > 100, "steps with |F| < mu_k N / 2: %g, with |F| > 0.95 mu_k N: %g", stick, slip);
    cr_expect(fabs(d[1]->res[0].N - 10.0) < 1e-9, "N = %.17g", d[1]->res[0].N);
    cr_expect(fabs(d[1]->en.residual_rel) < 0.01, "energy residual %.3g", d[1]->en.residual_rel);
    for (int k = 0; k < 2; k++) br_data_free(d[k]), br_model_free(m[k]);
}

Test(interface, one_point_equals_the_rigid_point_jenkins) { compare(1); }

Test(interface, one_point_equals_the_rigid_point_lugre3d) { compare(0); }

/* Three points, two nodes: an interface of node a against the ground (normal +z), node b against node a
 * (+z: a node pair, u = R (u_a - u_b)) and node b against the ground along a tilted normal (its frame's
 * t1 from the world x axis, t2 = n x t1), each at the interference delta0, on a six-DOF structure (a
 * chain: a grounded, b on a) with a pad on each node; pressed down and shaken along x, Hunt-Crossley with
 * damping and jenkins. Against the same contacts as three rigid one-point sets (a plane on the ground,
 * one on pad a, a tilted one on the ground): the pads' motion and the sets' summed normal force,
 * friction force, booked friction energy and the energy residual within 1e-12 (as above). The three
 * points fill two blocks of rows, the second half empty: the packing is checked with them. */
Test(interface, node_pairs_and_tilted_normals_equal_rigid_points)
{
    const double A = 1e-4, sigma = 3e-9, delta0 = sigma * sqrt(5.0 / A), s2 = sqrt(0.5);
    char dir[512], p[700], cmd[600], text[2][6000], path[2][800], err[2048];
    snprintf(dir, sizeof dir, "%s/interface_pairs", TEST_TMP);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/M.mtx", dir);
    write_file(p, "%%MatrixMarket matrix coordinate real symmetric\n6 6 6\n1 1 0.5\n2 2 0.5\n3 3 0.5\n4 4 0.5\n5 5 0.5\n6 6 0.5\n");
    snprintf(p, sizeof p, "%s/K.mtx", dir); /* a: rows 1-3 grounded by 2k - k, b: rows 4-6 tied to a by k */
    write_file(p, "%%MatrixMarket matrix coordinate real symmetric\n6 6 9\n1 1 2.0e4\n2 2 2.0e4\n3 3 2.0e4\n4 4 1.0e4\n"
                  "5 5 1.0e4\n6 6 1.0e4\n4 1 -1.0e4\n5 2 -1.0e4\n6 3 -1.0e4\n");
    snprintf(p, sizeof p, "%s/nodes.csv", dir);
    write_file(p, "label,x,y,z,ux,uy,uz\na,0,0,0,1,2,3\nb,0,0,0,4,5,6\n");
    snprintf(p, sizeof p, "%s/pairs.csv", dir);
    char pairs[512];
    snprintf(pairs, sizeof pairs, "a,b,nx,ny,nz,area,gap\na,,0,0,1,%.17g,%.17g\nb,a,0,0,1,%.17g,%.17g\nb,,%.17g,0,%.17g,%.17g,%.17g\n",
             A, -delta0, A, -delta0, s2, s2, A, -delta0);
    write_file(p, pairs);
    const char *nl = "    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, D: 2.0e5, pD: 0.5}\n"
                     "    friction: {law: jenkins, kt_area: 1.0e9, mu: 0.3}\n";
    const char *head =
        "time: {end: 0.04, dt: 1.0e-5}\n"
        "structures:\n  - {name: s, mass: M.mtx, stiffness: K.mtx, nodes: nodes.csv, damping: {rayleigh: {a: 2.0, b: 0}}}\n"
        "bodies:\n  - {name: pa, mass: 0.5, box: [0.01, 0.01, 0.01], attach: {structure: s, node: a}}\n"
        "  - {name: pb, mass: 0.5, box: [0.01, 0.01, 0.01], attach: {structure: s, node: b}}\n"
        "loads:\n  - {name: press_a, body: pa, direction: [0, 0, -1], magnitude: {ramp: {t0: 0, t1: 0.01, from: 0, to: 5}}}\n"
        "  - {name: press_b, body: pb, direction: [0, 0, -1], magnitude: {ramp: {t0: 0, t1: 0.01, from: 0, to: 5}}}\n"
        "  - {name: push, body: pb, direction: [1, 0, 0], magnitude: {harmonic: {amplitude: 4.0, frequency: 30}}}\n"
        "contacts:\n";
    snprintf(text[0], sizeof text[0],
             "%s  - name: c1\n    body: pa\n    surface: {type: plane, frame: ground, point: [0, 0, %.17g], normal: [0, 0, 1]}\n"
             "    points: {list: [[0, 0, 0]]}\n    area: %.17g\n%s"
             "  - name: c2\n    body: pb\n    surface: {type: plane, frame: pa, point: [0, 0, %.17g], normal: [0, 0, 1]}\n"
             "    points: {list: [[0, 0, 0]]}\n    area: %.17g\n%s"
             "  - name: c3\n    body: pb\n    surface: {type: plane, frame: ground, point: [%.17g, 0, %.17g], normal: [%.17g, 0, %.17g]}\n"
             "    points: {list: [[0, 0, 0]]}\n    area: %.17g\n%s",
             head, delta0, A, nl, delta0, A, nl, delta0 * s2, delta0 * s2, s2, s2, A, nl);
    snprintf(text[1], sizeof text[1], "%s  - name: c\n    interface: {structure: s, pairs: pairs.csv}\n%s", head, nl);
    br_model *m[2];
    br_data *d[2];
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s/%s.yaml", dir, k ? "iface" : "rigid");
        write_file(path[k], text[k]);
        m[k] = br_scenario_load(path[k], NULL, 0, err, sizeof err);
        cr_assert(m[k], "%s", err);
        d[k] = br_data_create(m[k], BR_BACKEND_CPU, err, sizeof err);
        cr_assert(d[k], "%s", err);
    }
    cr_assert_eq(d[1]->nimp, 2, "three points in two blocks, not %d", d[1]->nimp);
    enum { NQP = 10 };
    static const char *const names[NQP] = {"xa", "za", "xb", "zb", "vxb", "N", "F_x", "F_z", "E_friction", "residual"};
    double scale[NQP] = {0}, diff[NQP] = {0};
    const long nsteps = (long)nearbyint(m[0]->t_end / m[0]->dt);
    for (long s = 0; s < nsteps; s++) {
        double q[2][NQP];
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(br_step(m[k], d[k], err, sizeof err), 0, "%s run, step %ld: %s", k ? "interface" : "rigid", s, err);
            double N = 0, Fx = 0, Fz = 0, E = 0;
            for (int c = 0; c < m[k]->nset; c++)
                N += d[k]->res[c].N, Fx += d[k]->res[c].F_A[0], Fz += d[k]->res[c].F_A[2], E += d[k]->setE[c];
            const double v[NQP] = {d[k]->x[0], d[k]->x[2], d[k]->x[3], d[k]->x[5], d[k]->v[3], N, Fx, Fz, E, d[k]->en.residual};
            memcpy(q[k], v, sizeof v);
        }
        for (int j = 0; j < NQP; j++) {
            scale[j] = fmax(scale[j], j == 9 ? d[0]->res_ref : fabs(q[0][j]));
            diff[j] = fmax(diff[j], fabs(q[1][j] - q[0][j]));
        }
    }
    for (int j = 0; j < NQP; j++) {
        printf("pairs %-11s scale %.4g, largest difference %.3g (%.2g of the scale)\n", names[j], scale[j], diff[j],
               scale[j] > 0 ? diff[j] / scale[j] : 0.0);
        cr_expect(diff[j] <= 1e-12 * scale[j], "%s differs by %.3g, its scale %.3g", names[j], diff[j], scale[j]);
    }
    cr_expect(fabs(d[1]->en.residual_rel) < 0.01, "energy residual %.3g", d[1]->en.residual_rel);
    for (int k = 0; k < 2; k++) br_data_free(d[k]), br_model_free(m[k]);
}

/* The factor reuse of a large contact term (host/step/genalpha.c, BR_GA_REUSE_MIN): a 24-point
 * interface (72 rows) of a 4 x 6 grid of nodes on ground springs, coupled along its rows, pressed
 * onto the ground by a load vector and shaken along x at one edge (jenkins: the edge slips, the far
 * side sticks, and the pattern changes over each cycle). The run that reuses the LU of I + E Y across
 * steps against the one that factors every step (BRISTLE_NO_LU_REUSE): the structure's coordinates,
 * the interface's normal and friction force and booked energy and the energy residual within 1e-10 of
 * their scales (the refinement stops at a residual of 1e-13 of the right side, a direct solve's order,
 * and the motion is damped: the differences stay far inside that). It must also have reused: most
 * steps solved without a factorization. */
/* a folder name -> the 24-point grid's files written there (tests may run side by side), its scenario's
 * path in p (plen) */
static void grid_model(const char *folder, char *p, size_t plen)
{
    enum { NX = 6, NY = 4, NN = NX * NY, N3 = 3 * NN };
    const double A = 1e-5, sigma = 3e-9, delta0 = sigma * sqrt(1.0 / A), kg = 1e4, kc = 5e4;
    char dir[512], cmd[600];
    snprintf(dir, sizeof dir, "%s/%s", TEST_TMP, folder);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    cr_assert_eq(system(cmd), 0);
    static double K[N3][N3];
    memset(K, 0, sizeof K);
    for (int i = 0; i < NN; i++)
        for (int j = 0; j < 3; j++) {
            K[3 * i + j][3 * i + j] += kg;
            if (i % NX + 1 < NX) { /* the next node of its row */
                const int a = 3 * i + j, b = 3 * (i + 1) + j;
                K[a][a] += kc, K[b][b] += kc, K[a][b] -= kc, K[b][a] -= kc;
            }
        }
    static char text[200000];
    int len = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", N3, N3, N3);
    for (int i = 0; i < N3; i++) len += snprintf(text + len, sizeof text - len, "%d %d 0.05\n", i + 1, i + 1);
    snprintf(p, plen, "%s/M.mtx", dir);
    write_file(p, text);
    int nz = 0;
    for (int c = 0; c < N3; c++)
        for (int r = c; r < N3; r++) nz += K[r][c] != 0;
    len = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", N3, N3, nz);
    for (int c = 0; c < N3; c++)
        for (int r = c; r < N3; r++)
            if (K[r][c] != 0) len += snprintf(text + len, sizeof text - len, "%d %d %.17g\n", r + 1, c + 1, K[r][c]);
    snprintf(p, plen, "%s/K.mtx", dir);
    write_file(p, text);
    len = snprintf(text, sizeof text, "label,x,y,z,ux,uy,uz\n");
    for (int i = 0; i < NN; i++)
        len += snprintf(text + len, sizeof text - len, "p%d,%g,%g,0,%d,%d,%d\n", i, 0.01 * (i % NX), 0.01 * (i / NX),
                        3 * i + 1, 3 * i + 2, 3 * i + 3);
    snprintf(p, plen, "%s/nodes.csv", dir);
    write_file(p, text);
    len = snprintf(text, sizeof text, "a,b,nx,ny,nz,area,gap\n");
    for (int i = 0; i < NN; i++) len += snprintf(text + len, sizeof text - len, "p%d,,0,0,1,%.17g,%.17g\n", i, A, -delta0);
    snprintf(p, plen, "%s/pairs.csv", dir);
    write_file(p, text);
    len = snprintf(text, sizeof text, "%%%%MatrixMarket matrix array real general\n%d 1\n", N3);
    for (int i = 0; i < N3; i++) len += snprintf(text + len, sizeof text - len, "%g\n", i % 3 == 2 ? -1.0 : 0.0);
    snprintf(p, plen, "%s/press.mtx", dir);
    write_file(p, text);
    len = snprintf(text, sizeof text, "%%%%MatrixMarket matrix array real general\n%d 1\n", N3);
    for (int i = 0; i < N3; i++) len += snprintf(text + len, sizeof text - len, "%g\n", i % 3 == 0 && (i / 3) % NX == 0 ? 1.0 : 0.0);
    snprintf(p, plen, "%s/shake.mtx", dir);
    write_file(p, text);
    snprintf(p, plen, "%s/grid.yaml", dir);
    write_file(p, "time: {end: 0.03, dt: 1.0e-5}\n"
                  "structures:\n  - {name: g, mass: M.mtx, stiffness: K.mtx, nodes: nodes.csv, damping: {rayleigh: {a: 5, b: 0}}}\n"
                  "loads:\n  - {name: press, structure: g, vector: press.mtx, magnitude: {ramp: {t0: 0, t1: 0.005, from: 0, to: 1}}}\n"
                  "  - {name: shake, structure: g, vector: shake.mtx, magnitude: {harmonic: {amplitude: 1.2, frequency: 100}}}\n"
                  "contacts:\n  - name: c\n    interface: {structure: g, pairs: pairs.csv}\n"
                  "    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, d_area: 1.0e9, pD: 0.5}\n"
                  "    friction: {law: jenkins, kt_area: 1.0e10, mu: 0.3}\n");
}

Test(interface, factor_reuse_equals_the_direct_solve)
{
    enum { NX = 6, NY = 4, NN = NX * NY, N3 = 3 * NN };
    char p[700], err[2048];
    grid_model("interface_reuse", p, sizeof p);
    br_model *m[2];
    br_data *d[2];
    for (int k = 0; k < 2; k++) {
        if (k == 0) setenv("BRISTLE_NO_LU_REUSE", "1", 1);
        m[k] = br_scenario_load(p, NULL, 0, err, sizeof err);
        cr_assert(m[k], "%s", err);
        d[k] = br_data_create(m[k], BR_BACKEND_CPU, err, sizeof err);
        cr_assert(d[k], "%s", err);
        unsetenv("BRISTLE_NO_LU_REUSE");
    }
    cr_assert_eq(d[1]->ga->nr, 72);
    cr_assert(d[0]->ga->no_reuse && !d[1]->ga->no_reuse);
    double su = 0, du = 0, sN = 0, dN = 0, sF = 0, dF = 0, sE = 0, dE = 0, sR = 0, dR = 0, nslip_min = 1e9, nslip_max = 0;
    const long nsteps = (long)nearbyint(m[0]->t_end / m[0]->dt);
    for (long s = 0; s < nsteps; s++) {
        for (int k = 0; k < 2; k++) cr_assert_eq(br_step(m[k], d[k], err, sizeof err), 0, "run %d, step %ld: %s", k, s, err);
        for (int i = 0; i < N3; i++) su = fmax(su, fabs(d[0]->ga->u[i])), du = fmax(du, fabs(d[1]->ga->u[i] - d[0]->ga->u[i]));
        const br_set_result *a = &d[0]->res[0], *b = &d[1]->res[0];
        sN = fmax(sN, fabs(a->N)), dN = fmax(dN, fabs(b->N - a->N));
        sF = fmax(sF, fabs(a->F_A[0])), dF = fmax(dF, fabs(b->F_A[0] - a->F_A[0]));
        sE = fmax(sE, fabs(d[0]->setE[0])), dE = fmax(dE, fabs(d[1]->setE[0] - d[0]->setE[0]));
        sR = fmax(sR, d[0]->res_ref), dR = fmax(dR, fabs(d[1]->en.residual - d[0]->en.residual));
        if (s > nsteps / 3) nslip_min = fmin(nslip_min, NN - a->nstick), nslip_max = fmax(nslip_max, NN - a->nstick);
    }
    printf("reuse: %ld factorizations, %ld refined solves in %ld steps; points slipping %g to %g\n", d[1]->ga->nfactor,
           d[1]->ga->nreuse, nsteps, nslip_min, nslip_max);
    printf("reuse against direct: u %.3g of %.3g, N %.3g of %.3g, F_x %.3g of %.3g, E %.3g of %.3g, residual %.3g of %.3g\n",
           du, su, dN, sN, dF, sF, dE, sE, dR, sR);
    cr_expect(du <= 1e-10 * su && dN <= 1e-10 * sN && dF <= 1e-10 * sF && dE <= 1e-10 * sE && dR <= 1e-10 * sR);
    cr_expect(d[1]->ga->nreuse > nsteps / 2, "only %ld of %ld solves by refinement", d[1]->ga->nreuse, nsteps);
    cr_expect(nslip_max > nslip_min, "the stick/slip pattern did not change");
    cr_expect(fabs(d[1]->en.residual_rel) < 0.01, "energy residual %.3g", d[1]->en.residual_rel);
    for (int k = 0; k < 2; k++) br_data_free(d[k]), br_model_free(m[k]);
}

/* A checkpoint carries a run with a kept factor (the 24-point grid above): run A writes one at step 1000
 * and goes on; run B is a fresh data that reads it and goes on; their states are bitwise equal at the
 * end (a checkpoint drops the kept factor on both sides, so both refactor at the same step). And a
 * data stepped by a shared field (a study's batch) refuses the interface by name. */
Test(interface, checkpoint_resumes_bitwise_and_batches_refuse)
{
    char p[700], err[2048];
    grid_model("interface_resume", p, sizeof p);
    br_model *m = br_scenario_load(p, NULL, 0, err, sizeof err);
    cr_assert(m, "%s", err);
    cr_assert_null(br_data_create_opt(m, BR_BACKEND_CPU, 0, err, sizeof err));
    cr_expect(strstr(err, "deforming interface") != NULL, "%s", err);
    br_data *a = br_data_create(m, BR_BACKEND_CPU, err, sizeof err), *b = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(a && b, "%s", err);
    br_ckpt c;
    memset(&c, 0, sizeof c);
    for (long s = 0; s < 1000; s++) cr_assert_eq(br_step(m, a, err, sizeof err), 0, "%s", err);
    br_ckpt_mem(&c, 1);
    cr_assert_eq(br_data_checkpoint(m, a, &c), 0, "%s", c.err);
    br_ckpt_mem(&c, 0);
    cr_assert_eq(br_data_checkpoint(m, b, &c), 0, "%s", c.err);
    for (long s = 0; s < 1000; s++) {
        cr_assert_eq(br_step(m, a, err, sizeof err), 0, "%s", err);
        cr_assert_eq(br_step(m, b, err, sizeof err), 0, "%s", err);
    }
    cr_expect_eq(memcmp(a->ga->u, b->ga->u, sizeof(double) * a->ga->n), 0, "the structure's state differs after the resume");
    cr_expect_eq(memcmp(&a->res[0], &b->res[0], sizeof a->res[0]), 0, "the interface's result differs after the resume");
    cr_expect(a->ga->nfactor >= 2 && b->ga->nfactor >= 1, "factorizations: %ld, %ld", a->ga->nfactor, b->ga->nfactor);
    br_ckpt_mem_free(&c);
    br_data_free(a), br_data_free(b);
    br_model_free(m);
}

/* Harmonic balance over an interface point (hbm.h: its three coordinates, the AFT over the point, the Jacobian
 * colored by point) equals harmonic balance over the rigid point contact of the same pair of models (the rigid
 * set's frames on the structure's DOF). Both are Newton on the same discrete equations (the same samples, the
 * same law code) in different unknowns, each stopped at a residual of 1e-10 of its solution: they agree to that
 * times the Newton matrix's condition, which the stick-slip of the one-DOF Jenkins keeps below 1e3. Bound: 1e-7
 * of the first harmonic for every harmonic, the peak-to-peak and the friction energy per cycle (relative), at
 * five frequencies below, at and above the resonances (15.9 Hz free, 52.8 Hz stuck). */
enum { HB_H = 5 };

/* friction law -> the two models (rigid, interface) and their harmonic balance solvers (HB_H harmonics, 16 HB_H
 * samples a period, 200 periods at most, each period's forces repeating to 1e-10, the pad's x) */
static void hbm_pair(int jenkins, br_model *m[2], br_hbm *h[2])
{
    char path[2][1024], err[2048];
    const char *col = "pad.x";
    for (int k = 0; k < 2; k++) {
        scenario(k, jenkins, path[k], sizeof path[k]);
        size_t len;
        char *text = br_read_text(path[k], &len, err, sizeof err);
        cr_assert(text, "%s", err);
        m[k] = br_scenario_load(path[k], NULL, 0, err, sizeof err);
        cr_assert(m[k], "%s", err);
        int bad;
        h[k] = br_hbm_create(m[k], text, len, HB_H, 16 * HB_H, 200, 1e-10, 1, &col, &bad, err, sizeof err);
        free(text);
        cr_assert(h[k], "%s", err);
    }
}

static void hbm_compare(int jenkins)
{
    enum { H = HB_H };
    const double freqs[] = {8.0, 12.0, 20.0, 30.0, 60.0};
    char err[2048];
    br_model *m[2];
    br_hbm *h[2];
    hbm_pair(jenkins, m, h);
    double worst = 0.0;
    for (size_t q = 0; q < sizeof freqs / sizeof freqs[0]; q++) {
        double row[2][H + 2], W[2];
        for (int k = 0; k < 2; k++) {
            const int its = br_hbm_point(h[k], freqs[q], 1, err, sizeof err);
            cr_assert(its > 0, "%s model at %g Hz: no convergence: %s", k ? "interface" : "rigid", freqs[q], err);
            br_hbm_column(h[k], 0, row[k], NULL);
            W[k] = br_hbm_aft_of(h[k])->W[0];
        }
        double d = fabs(W[1] - W[0]) / fabs(W[0]);
        for (int j = 0; j <= H + 1; j++) d = fmax(d, fabs(row[1][j] - row[0][j]) / row[0][1]);
        printf("hbm %s at %g Hz: |x1| %.6g m, W %.6g J, largest difference %.2g\n", jenkins ? "jenkins" : "lugre3d", freqs[q],
               row[0][1], W[0], d);
        cr_expect(d <= 1e-7, "%s at %g Hz: the interface point's harmonic balance differs by %.3g", jenkins ? "jenkins" : "lugre3d",
                  freqs[q], d);
        cr_expect(W[0] > 0.0, "no friction energy at %g Hz", freqs[q]);
        worst = fmax(worst, d);
    }
    for (int k = 0; k < 2; k++) br_hbm_free(h[k]), br_model_free(m[k]);
}

Test(interface, harmonic_balance_equals_the_rigid_point_jenkins) { hbm_compare(1); }

Test(interface, harmonic_balance_equals_the_rigid_point_lugre3d) { hbm_compare(0); }

/* The continuation in the excitation level over an interface point (the homotopy br_hbm_point falls back on, and
 * `bristle hbm --level`) equals the rigid point's: lugre3d at 20 Hz, from a thousandth of the load (the bristles
 * stuck) to the load, each curve complete and its last point (level 1) the same to 1e-7 of the first
 * harmonic, the bound argued above (both Newton at a residual of 1e-10 of the solution, the same discrete
 * equations). Two faults each stalled the interface's Newton at the first point (level 1e-3, |x1| 5e-9 m), on every
 * OpenBLAS kernel: its Jacobian's AFTs ran at the level taken for a frequency (0.001 rad/s), and they resolved the
 * forces to 1e-10 of the largest, the 10 N normal preload, so that the tangential force (5e-3 N) repeated to 1e-9 N
 * only, and each forward difference (a step of 5e-16 m, 5e-10 N) was mostly that. (At 8 Hz the
 * curve folds twice near level 0.7, and the interface's curve, three coordinates against the rigid point's one in
 * its arclength, crossed to the lower branch at the second fold: docs/hbm.md.) */
Test(interface, level_continuation_equals_the_rigid_point)
{
    enum { H = HB_H };
    char err[2048], warn[512];
    br_model *m[2];
    br_hbm *h[2];
    hbm_pair(0, m, h);
    double row[2][H + 2];
    for (int k = 0; k < 2; k++) {
        br_hbm_rows r;
        memset(&r, 0, sizeof r);
        r.lead = 1;
        const int rc = br_hbm_curve_level(h[k], 20.0, 1e-3, 1.0, 50, 0, &r, warn, sizeof warn, err, sizeof err);
        cr_assert_eq(rc, 0, "%s model: the level curve at 20 Hz did not complete (%d): %s%s", k ? "interface" : "rigid", rc, err,
                     warn);
        cr_expect(r.n >= 10, "%s model: %ld points", k ? "interface" : "rigid", r.n);
        br_hbm_column(h[k], 0, row[k], NULL);
        free(r.v), free(r.sol);
    }
    double d = 0.0;
    for (int j = 0; j <= H + 1; j++) d = fmax(d, fabs(row[1][j] - row[0][j]) / row[0][1]);
    printf("hbm lugre3d level curve at 20 Hz: |x1| %.6g m at level 1, largest difference %.2g\n", row[0][1], d);
    cr_expect(d <= 1e-7, "the interface point's level curve ends %.3g away from the rigid point's", d);
    cr_expect(row[0][1] > 1e-4, "the pad hardly moves at level 1: |x1| %g m", row[0][1]);
    for (int k = 0; k < 2; k++) br_hbm_free(h[k]), br_model_free(m[k]);
}

