/* test_failalloc.c: every allocation is checked (issue 15). bristle_failalloc (tests/failalloc.c)
 * counts the malloc, calloc, realloc and strdup calls of Bristle's own code and fails the one that
 * BR_FAIL_ALLOC names. For each command below (the paths of run, study, eig, mesh, compare and
 * bench), a normal run first counts its calls K; then the command runs again with call N failed,
 * for every N from 1 to K (every S-th N and the last with BR_FAILALLOC_STRIDE=S), each under
 * `timeout 60`. Expected of every try: no signal,
 * no hang, no sanitizer report; exit status 1 or 2 with "out of memory" on stderr, and the output
 * not presented as complete (a run's DIR absent: only the stage DIR.part, docs/robustness.md; a
 * mesh's or a comparison's file absent); or exit status 0 where the allocation was optional, with a
 * warning saying "out of memory". One line per command sums up K, the tries and the statuses. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testdir.h"

#define SC SOURCE_DIR "/scenarios/"

static char dir[512];

static void setup(void) { cr_assert_eq(testdir_make(dir, sizeof dir, "failalloc"), 0); }

static void teardown(void) { testdir_remove(dir); }

TestSuite(failalloc, .init = setup, .fini = teardown);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* name, text -> file written in the test folder */
static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    cr_assert(fp, "cannot write %s", path);
    fputs(text, fp);
    fclose(fp);
}

/* path relative to the test folder -> 1 if it exists */
static int exists(const char *rel)
{
    char path[1200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &sb) == 0;
}

/* environment assignments ("" or "BR_FAIL_ALLOC=N"), arguments -> exit status of
 * `timeout 60 bristle_failalloc ARGS` in the test folder (-1: not a normal exit of the shell); its
 * stderr in err */
static int bristle(const char *env, const char *args, char *err, size_t errlen)
{
    return testdir_run(dir, BRISTLE_EXE, env, args, err, errlen);
}

/* A command: its arguments (run in the test folder), and what it leaves when complete: a folder
 * (a run or a study, staged in OUT.part) or a file (staged as OUT.part too), removed before each
 * try. */
typedef struct fa_cmd {
    const char *name;
    const char *args;
    const char *out;
} fa_cmd;

/* what the tries of one command saw */
typedef struct fa_tally {
    long tries, bad, nstat[3];
} fa_tally;

/* command, N -> the command run with allocation N of K failed; the expectations checked */
static void try_one(const fa_cmd *c, const char *clean, long N, long K, fa_tally *t)
{
    char err[16384], env[64];
    cr_assert_eq(system(clean), 0);
    snprintf(env, sizeof env, "BR_FAIL_ALLOC=%ld", N);
    const int st = bristle(env, c->args, err, sizeof err);
    t->tries++;
    const int oom = strstr(err, "out of memory") != NULL;
    const char *why = NULL;
    if (st < 0 || st > 2) why = st == 124 ? "timed out (60 s)" : "crashed (a signal or an abort)";
    else if (strstr(err, "Sanitizer") || strstr(err, "runtime error")) why = "a sanitizer report";
    else if (st == 0 && !(oom && strstr(err, "warning"))) why = "exit status 0 without a warning saying out of memory";
    else if (st != 0 && !oom) why = "no 'out of memory' on stderr";
    else if (st != 0 && c->out && exists(c->out)) why = "the output is presented as complete";
    if (st >= 0 && st <= 2) t->nstat[st]++;
    if (why) {
        t->bad++;
        cr_expect_fail("%s, allocation %ld of %ld: %s; exit status %d; stderr: %.2000s", c->name, N, K, why, st,
                       err[0] ? err : "(empty)\n");
    }
}

/* command -> every allocation failed in turn (BR_FAILALLOC_STRIDE: every S-th); expectations
 * checked, one summary line printed */
static void sweep(const fa_cmd *c)
{
    char err[16384], clean[1400];
    snprintf(clean, sizeof clean, "cd '%s' && rm -rf '%s' '%s.part' count.txt", dir, c->out ? c->out : "none",
             c->out ? c->out : "none");
    cr_assert_eq(system(clean), 0);
    const double t0 = now();
    const int st0 = bristle("BR_FAIL_ALLOC_COUNT=count.txt", c->args, err, sizeof err);
    cr_assert_eq(st0, 0, "%s: the normal run ended with exit status %d: %s", c->name, st0, err);
    cr_assert(!c->out || exists(c->out), "%s: the normal run left no %s", c->name, c->out);
    char cp[700];
    snprintf(cp, sizeof cp, "%s/count.txt", dir);
    FILE *fp = fopen(cp, "r");
    long K = 0;
    cr_assert(fp && fscanf(fp, "%ld", &K) == 1 && K > 0, "%s: no allocation count", c->name);
    fclose(fp);
    /* every N (about 30 s for all the commands here); a stride only when asked for */
    const char *force = getenv("BR_FAILALLOC_STRIDE");
    const long stride = force && atol(force) > 0 ? atol(force) : 1;
    fa_tally t = {0, 0, {0, 0, 0}};
    for (long N = 1; N <= K; N += stride) try_one(c, clean, N, K, &t);
    if ((K - 1) % stride) try_one(c, clean, K, K, &t); /* the last one too */
    printf("%-30s K = %3ld, %3ld tried (%s), %5.1f s: exit 1: %3ld, exit 2: %3ld, exit 0: %2ld; %ld wrong\n", c->name,
           K, t.tries, stride == 1 ? "every N" : "a stride", now() - t0, t.nstat[1], t.nstat[2], t.nstat[0], t.bad);
    if (stride > 1) printf("%-30s (every %ld-th N and the last: BR_FAILALLOC_STRIDE)\n", "", stride);
    fflush(stdout);
}

/* a cube on an OBJ face sampled by spacing (the mesh sampler's other path), with field snapshots */
static const char *MESH_OBJ =
    "name: cube_obj\n"
    "time: {end: 0.004, dt: 1.0e-5}\n"
    "output: {interval: 1.0e-4, fields: [0.002, 0.004], points: true, points_interval: 2.0e-3}\n"
    "bodies:\n"
    "  - {name: cube, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0.0, 0.0, 0.05]}\n"
    "loads:\n"
    "  - {name: press, body: cube, direction: [0, 0, -1], magnitude: 10.0}\n"
    "contacts:\n"
    "  - name: base\n"
    "    body: cube\n"
    "    surface: {type: plane, frame: ground, point: [0, 0, 0], normal: [0, 0, 1]}\n"
    "    points:\n"
    "      mesh: {file: " SOURCE_DIR "/meshes/cube_bottom.obj, position: [0.0, 0.0, -0.05], sampling: spacing,\n"
    "             spacing: 0.02}\n"
    "    total_area: 6.495190528383292e-3\n"
    "    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, d_area: 4.5e8, pD: 0.5}\n"
    "    friction: {law: lugre3d, sigma0: 1.0e4, sigma1: 31.6, sigma2: 0.04, V_st: 1.0e-3, mu_k: 0.1, mu_s: 0.15,\n"
    "               alpha: 2}\n";

/* a sweep study: a grid of two preloads (three variants with the base), per-variant series */
static const char *STUDY_SWEEP =
    "name: fa_sweep\n"
    "scenario: " SC "blades_sweep_lugre.yaml\n"
    "set: {time.end: 0.05, time.dt: 1.0e-4, output.interval: 1.0e-3}\n"
    "grid:\n"
    "  P:\n"
    "    values: [1, 2]\n"
    "    set:\n"
    "      loads.preload_L.magnitude.ramp.to: [1, 2]\n"
    "      loads.preload_R.magnitude.ramp.to: [1, 2]\n"
    "analysis: {type: sweep, columns: [tip_C.x, tip_L.x], window: 0.01, from: 0.0}\n"
    "output: {series: [tip_C.x], series_interval: 1.0e-2}\n";

/* a stepped-sine study over the time step (a field per variant) with a random draw (three variants
 * with the base) */
static const char *STUDY_STEPPED =
    "name: fa_stepped\n"
    "scenario: " SC "blades_sine_lugre.yaml\n"
    "set: {time.dt: 1.0e-4, output.interval: 1.0e-3}\n"
    "grid:\n"
    "  time.dt: [1.0e-4, 2.0e-4]\n"
    "random:\n"
    "  count: 1\n"
    "  seed: 3\n"
    "  keys:\n"
    "    beams.blade_C.E: {normal: 0.02}\n"
    "analysis: {type: stepped_sine, columns: [tip_C.x], excitation: excitation, frequencies: [40, 50],\n"
    "           start: 0.0, min_cycles: 1, max_cycles: 2, fit_cycles: 1}\n";

static const fa_cmd CMDS[] = {
    {"run cube_00 (points)", "run " SC "cube_00.yaml --backend cpu --quiet --out r --set time.end=0.02 "
                             "--set output.points=true --set output.points_interval=1e-2", "r"},
    {"run clutch_patch_1e3 (PLY)", "run " SC "clutch_patch_1e3.yaml --backend cpu --quiet --out r "
                                   "--set time.end=0.002 --set output.fields.1=0.002 --set output.points=true "
                                   "--set output.points_interval=1e-3", "r"},
    {"run cube on an OBJ face", "run cube_obj.yaml --backend cpu --quiet --out r", "r"},
    {"run belt_lugre (checkpoints)", "run " SC "belt_lugre.yaml --backend cpu --quiet --out r --set time.end=0.02 "
                                     "--checkpoint-every 0.01", "r"},
    {"run rotational_stickslip", "run " SC "rotational_stickslip.yaml --backend cpu --quiet --out r "
                                 "--set time.end=0.02", "r"},
    {"run blades_sweep_lugre", "run " SC "blades_sweep_lugre.yaml --backend cpu --quiet --out r --set time.end=0.01",
     "r"},
    {"run a 16-point interface (structure files, factor kept)", "run fa_iface.yaml --backend cpu --quiet --out r", "r"},
    {"study sweep (grid, series)", "study fa_sweep.yaml --backend cpu --quiet --threads 1 --out r", "r"},
    {"study stepped sine (dt grid)", "study fa_stepped.yaml --backend cpu --quiet --threads 1 --out r", "r"},
    {"eig blade_single", "eig " SC "blade_single.yaml", NULL},
    {"eig bonded", "eig " SC "blades_sweep_lugre.yaml --contacts bonded --at 0.002", NULL},
    {"mesh disk", "mesh disk --radius 0.01 --n-radial 3 --n-around 8 --out m.ply", "m.ply"},
    {"mesh annulus (OBJ)", "mesh annulus --r-in 0.05 --r-out 0.1 --n-radial 2 --n-around 12 --out m.obj", "m.obj"},
    {"compare two runs", "compare a b --out cmp.png", "cmp.png"},
    {"bench field", "bench field --points 1000 --steps 10 --backend cpu --threads 1", NULL},
};

/* CMDS[k0..k1) swept (the files the study and OBJ commands read written first, the two runs `compare` reads
 * made first when it is among them) */
/* a structure given as matrices of 16 nodes on ground springs (uz only) with a 16-point interface (48
 * contact rows: the Woodbury factor kept across steps), pressed by a load vector: its files */
static void interface_files(void)
{
    char t[4096];
    int n = snprintf(t, sizeof t, "%%%%MatrixMarket matrix coordinate real symmetric\n16 16 16\n");
    for (int i = 1; i <= 16; i++) n += snprintf(t + n, sizeof t - n, "%d %d 0.05\n", i, i);
    write_file("fa_M.mtx", t);
    n = snprintf(t, sizeof t, "%%%%MatrixMarket matrix coordinate real symmetric\n16 16 16\n");
    for (int i = 1; i <= 16; i++) n += snprintf(t + n, sizeof t - n, "%d %d 1.0e4\n", i, i);
    write_file("fa_K.mtx", t);
    n = snprintf(t, sizeof t, "%%%%MatrixMarket matrix array real general\n16 1\n");
    for (int i = 1; i <= 16; i++) n += snprintf(t + n, sizeof t - n, "-1\n");
    write_file("fa_F.mtx", t);
    n = snprintf(t, sizeof t, "label,x,y,z,ux,uy,uz\n");
    for (int i = 1; i <= 16; i++) n += snprintf(t + n, sizeof t - n, "n%d,%d,0,0,0,0,%d\n", i, i, i);
    write_file("fa_nodes.csv", t);
    n = snprintf(t, sizeof t, "a,b,nx,ny,nz,area\n");
    for (int i = 1; i <= 16; i++) n += snprintf(t + n, sizeof t - n, "n%d,,0,0,1,1.0e-5\n", i);
    write_file("fa_pairs.csv", t);
    write_file("fa_iface.yaml",
               "time: {end: 0.002, dt: 1.0e-6}\n"
               "structures:\n  - {name: g, mass: fa_M.mtx, stiffness: fa_K.mtx, nodes: fa_nodes.csv}\n"
               "loads:\n  - {name: press, structure: g, vector: fa_F.mtx, magnitude: {ramp: {t0: 0, t1: 0.001, from: 0, to: 1}}}\n"
               "contacts:\n  - name: c\n    interface: {structure: g, pairs: fa_pairs.csv}\n"
               "    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, d_area: 1.0e9, pD: 0.5}\n"
               "    friction: {law: jenkins, kt_area: 1.0e10, mu: 0.3}\n");
}

static void sweep_range(size_t k0, size_t k1)
{
    char err[16384];
    interface_files();
    write_file("cube_obj.yaml", MESH_OBJ);
    write_file("fa_sweep.yaml", STUDY_SWEEP);
    write_file("fa_stepped.yaml", STUDY_STEPPED);
    for (size_t k = k0; k < k1; k++)
        if (!strncmp(CMDS[k].args, "compare ", 8)) {
            cr_assert_eq(bristle("", "run " SC "cube_00.yaml --backend cpu --quiet --out a --set time.end=0.02", err,
                                 sizeof err), 0, "%s", err);
            cr_assert_eq(bristle("", "run " SC "cube_30.yaml --backend cpu --quiet --out b --set time.end=0.02", err,
                                 sizeof err), 0, "%s", err);
        }
    const double t0 = now();
    for (size_t k = k0; k < k1; k++) sweep(&CMDS[k]);
    printf("test_failalloc: %.1f s\n", now() - t0);
}

/* the commands in four groups of 10 to 25 s each (one test of 70 s before), so that the suite runs them side by
 * side; every command of CMDS is in one of them (asserted in the last) */
Test(failalloc, runs_on_points_and_meshes_end_with_out_of_memory, .timeout = 900) { sweep_range(0, 3); }
Test(failalloc, runs_of_structures_end_with_out_of_memory, .timeout = 900) { sweep_range(3, 7); }
Test(failalloc, studies_end_with_out_of_memory, .timeout = 900) { sweep_range(7, 9); }
Test(failalloc, eig_mesh_compare_and_bench_end_with_out_of_memory, .timeout = 900)
{
    cr_assert_eq(sizeof CMDS / sizeof *CMDS, 15, "a command added to CMDS: give it a group");
    sweep_range(9, 15);
}
