/* test_cli.c: `bristle run` as a user drives it: bad scenarios give
 * "file:line: message" and exit status 2, backends, --set, the built-in demo,
 * a non-finite run stopping with the time, set and point named, no half-written output. */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testdir.h"
#include "sanitized.h"

#include "base/csvread.h"
#include "drop.h"
#include "field/field.h"
#include "jsonread.h"
#include "analysis/study.h"
#include "study_s2.h"

static char dir[512];

static void setup(void) { cr_assert_eq(testdir_make(dir, sizeof dir, "cli"), 0); }

static void teardown(void) { testdir_remove(dir); }

TestSuite(cli, .init = setup, .fini = teardown);

/* name, text -> file written in the test folder; its path */
static const char *write_file(const char *name, const char *text)
{
    const char *path = testdir_write(dir, name, text);
    cr_assert(path, "cannot write %s/%s", dir, name);
    return path;
}

/* file under the test folder -> its text (static buffer) */
static const char *read_text(const char *rel)
{
    static char buf[16384];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *fp = fopen(path, "r");
    cr_assert(fp, "cannot read %s", path);
    buf[fread(buf, 1, sizeof buf - 1, fp)] = 0;
    fclose(fp);
    return buf;
}

/* command ("run", "compare"), arguments -> exit status of `bristle <command> ...` run in the test
 * folder; its stderr in err */
static int bristle(const char *command, const char *args, char *err, size_t errlen)
{
    char a[3000];
    snprintf(a, sizeof a, "%s %s", command, args);
    return testdir_run(dir, BRISTLE_EXE, "", a, err, errlen);
}

/* arguments -> exit status of `bristle run ... --quiet`; its stderr in err */
static int run(const char *args, char *err, size_t errlen)
{
    char a[2600];
    snprintf(a, sizeof a, "%s --quiet", args);
    return bristle("run", a, err, errlen);
}

/* A small valid scenario (a cube sliding on two points); line numbers below refer to it. */
static const char *BASE =
    "time:\n"                                  /* 1 */
    "  end: 0.01\n"                            /* 2 */
    "  dt: 1.0e-5\n"                           /* 3 */
    "bodies:\n"                                /* 4 */
    "  - name: block\n"                        /* 5 */
    "    mass: 1.0\n"                          /* 6 */
    "    box: [0.1, 0.1, 0.1]\n"               /* 7 */
    "    position: [0, 0, 0.05]\n"             /* 8 */
    "loads:\n"                                 /* 9 */
    "  - name: push\n"                         /* 10 */
    "    body: block\n"                        /* 11 */
    "    direction: [0, 0, -1]\n"              /* 12 */
    "    magnitude: 10\n"                      /* 13 */
    "contacts:\n"                              /* 14 */
    "  - name: pad\n"                          /* 15 */
    "    body: block\n"                        /* 16 */
    "    surface: {type: plane, normal: [0, 0, 1]}\n" /* 17 */
    "    points: {list: [[0.05, 0, -0.05], [-0.05, 0, -0.05]]}\n" /* 18 */
    "    area: 1.0e-3\n"                       /* 19 */
    "    normal: {sigma: 3.0e-9, D: 4.88e5}\n" /* 20 */
    "    friction:\n"                          /* 21 */
    "      law: lugre3d\n"                     /* 22 */
    "      mu_s: 0.15\n"                       /* 23 */
    "      mu_k: 0.1\n"                        /* 24 */
    "      V_st: 1.0e-3\n"                     /* 25 */
    "      alpha: 2\n"                         /* 26 */
    "      sigma0: 1.0e4\n"                    /* 27 */
    "      sigma1: 31.6\n"                     /* 28 */
    "      sigma2: 0.04\n";                    /* 29 */

/* BASE with line `line` (1-based) replaced by repl ("" deletes it) */
static char *base_with(int line, const char *repl)
{
    static char out[4096];
    out[0] = 0;
    const char *p = BASE;
    for (int k = 1; *p; k++) {
        const char *e = strchr(p, '\n');
        if (k == line) strcat(out, repl);
        else strncat(out, p, (size_t)(e - p + 1));
        p = e + 1;
    }
    return out;
}

/* file text -> exit status 2 and "path:line:" plus the expected words on stderr */
static void expect_bad(const char *name, const char *text, int line, const char *words)
{
    char args[1200], err[4096], want[1100];
    const char *path = write_file(name, text);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu", path, dir);
    const int st = run(args, err, sizeof err);
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    printf("%-18s exit %d: %s", name, st, err);
    cr_expect_eq(st, 2, "%s: exit status %d, expected 2 (stderr: %s)", name, st, err);
    cr_expect(strstr(err, want) != NULL, "%s: expected '%s' in: %s", name, want, err);
    cr_expect(strstr(err, words) != NULL, "%s: expected '%s' in: %s", name, words, err);
}

Test(cli, valid_base_scenario_runs)
{
    char args[1200], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu", write_file("ok.yaml", BASE), dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
}

Test(cli, garbage_yaml) { expect_bad("garbage.yaml", "time:\n  end: [1, 2\n  dt: }{\n", 3, "not valid YAML"); }

Test(cli, empty_file) { expect_bad("empty.yaml", "", 1, "empty"); }

Test(cli, unknown_key) { expect_bad("unknown.yaml", base_with(6, "    mass: 1.0\n    colour: red\n"), 7, "unknown key 'colour'"); }

Test(cli, negative_dt) { expect_bad("negdt.yaml", base_with(3, "  dt: -1.0e-5\n"), 3, "dt must be > 0"); }

Test(cli, missing_friction_parameter)
{
    /* the line of a block mapping is that of its first key: 22, "law: lugre3d" */
    expect_bad("nomu.yaml", base_with(23, ""), 22, "missing friction parameter 'mu_s'");
}

/* mu_s = mu_k: the flat Stribeck curve needs no V_st and no alpha (the run completes); with
 * mu_s > mu_k they are demanded */
Test(cli, flat_stribeck_needs_no_v_st_or_alpha)
{
    char args[1200], err[4096], text[4096];
    snprintf(text, sizeof text, "%s", base_with(23, "      mu_s: 0.1\n"));
    char *p = strstr(text, "      V_st: 1.0e-3\n");
    memmove(p, p + 18, strlen(p + 18) + 1);
    p = strstr(text, "      alpha: 2\n");
    memmove(p, p + 15, strlen(p + 15) + 1);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu", write_file("flat.yaml", text), dir);
    cr_expect_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    expect_bad("noalpha.yaml", base_with(26, ""), 22, "missing friction parameter 'alpha'");
}

/* output.plots: false writes no PNG and lists none in summary.json */
Test(cli, plots_can_be_switched_off)
{
    char args[1200], err[4096], text[4096];
    snprintf(text, sizeof text, "%soutput: {plots: false}\n", BASE);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu", write_file("noplots.yaml", text), dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    char p[700];
    struct stat sb;
    snprintf(p, sizeof p, "%s/out/pad.png", dir);
    cr_expect(stat(p, &sb) != 0, "pad.png written");
    cr_expect(strstr(read_text("out/summary.json"), ".png") == NULL);
    cr_expect(strstr(read_text("out/summary.json"), "timeseries.csv") != NULL);
}

Test(cli, wrong_type) { expect_bad("type.yaml", base_with(6, "    mass: heavy\n"), 6, "expected a finite number"); }

Test(cli, mu_s_below_mu_k) { expect_bad("mus.yaml", base_with(23, "      mu_s: 0.05\n"), 23, "mu_s (0.05) < mu_k (0.1)"); }

Test(cli, bad_coupling) { expect_bad("coupling.yaml", base_with(3, "  dt: 1.0e-5\n  coupling: loose\n"), 4, "coupling must be implicit or explicit"); }

/* the friction parameters are checked by the law table (host/model/laws.c): a gkf eps not below V_st,
 * a gms element with a negative damping (at its own line) */
Test(cli, law_table_checks_point_at_the_key)
{
    char gkf[4096];
    snprintf(gkf, sizeof gkf, "%s", base_with(22, "      law: gkf\n"));
    /* gkf reads mu_s, mu_k, V_st, alpha, eps: lines 27-29 (sigmas) become eps */
    char *p = strstr(gkf, "      sigma0: 1.0e4\n");
    cr_assert(p);
    strcpy(p, "      eps: 2.0e-3\n");
    expect_bad("eps.yaml", gkf, 27, "eps must be below V_st");
    char gms[4096];
    snprintf(gms, sizeof gms, "%s", base_with(22, "      law: gms\n"));
    p = strstr(gms, "      sigma0: 1.0e4\n");
    cr_assert(p);
    strcpy(p, "      C: 1.0\n      elements:\n        - {stiffness: 1.0e5, damping: 0, share: 0.5}\n"
              "        - {stiffness: 2.0e5, damping: -1, share: 0.5}\n");
    expect_bad("gms.yaml", gms, 30, "damping must be >= 0");
}

Test(cli, negative_area) { expect_bad("area.yaml", base_with(19, "    area: -1.0e-3\n"), 19, "areas must be > 0"); }

Test(cli, zero_and_non_unit_normals)
{
    expect_bad("n0.yaml", base_with(17, "    surface: {type: plane, normal: [0, 0, 0]}\n"), 17, "zero vector");
    expect_bad("n2.yaml", base_with(17, "    surface: {type: plane, normal: [0, 0, 2]}\n"), 17, "unit vector");
}

Test(cli, non_positive_mass) { expect_bad("mass.yaml", base_with(6, "    mass: 0\n"), 6, "mass must be > 0"); }

Test(cli, unknown_body_reference) { expect_bad("ref.yaml", base_with(11, "    body: brick\n"), 11, "no body or frame named 'brick'"); }

Test(cli, bad_value_from_set_names_the_override)
{
    char args[1200], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/out' --set time.dt=-2", write_file("ok.yaml", BASE), dir);
    const int st = run(args, err, sizeof err);
    printf("--set time.dt=-2: exit %d: %s", st, err);
    cr_expect_eq(st, 2);
    cr_expect(strstr(err, "ok.yaml:3: dt must be > 0") && strstr(err, "--set time.dt=-2"), "%s", err);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --set bodies.block.colour=red", write_file("ok.yaml", BASE), dir);
    cr_expect_eq(run(args, err, sizeof err), 2);
    cr_expect(strstr(err, "unknown key 'colour'"), "%s", err);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --set timee.end=1", write_file("ok.yaml", BASE), dir);
    cr_expect_eq(run(args, err, sizeof err), 2);
    cr_expect(strstr(err, "--set timee.end: no 'timee'"), "%s", err);
}

Test(cli, set_overrides_a_value)
{
    char args[1200], err[4096], path[800];
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu --set time.end=0.002 --set loads.push.magnitude=20",
             write_file("ok.yaml", BASE), dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/out/timeseries.csv", dir);
    csv_table *t = csv_read(path);
    cr_assert(t);
    const int ct = csv_col(t, "t"), cf = csv_col(t, "push.F");
    cr_expect_eq(t->nrows, 21, "0.002 s at 1e-4 s sampling gives 21 rows, got %ld", t->nrows);
    cr_expect(fabs(csv_at(t, t->nrows - 1, ct) - 0.002) < 1e-12);
    cr_expect_eq(csv_at(t, 0, cf), 20.0);
    csv_free(t);
}

Test(cli, cuda_without_gpu_is_an_error_and_auto_runs_on_cpu)
{
    char why[256];
    if (br_cuda_available(why, sizeof why) > 0) {
        printf("SKIP cli::cuda_without_gpu: a GPU is present\n");
        cr_skip_test("a GPU is present, the no-GPU path cannot be exercised");
    }
    char args[1200], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cuda", write_file("ok.yaml", BASE), dir);
    const int st = run(args, err, sizeof err);
    printf("--backend cuda without GPU: exit %d: %s", st, err);
    cr_expect_eq(st, 2);
    cr_expect(strstr(err, "backend cuda requested but no usable GPU") != NULL, "%s", err);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend auto", write_file("ok.yaml", BASE), dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    const char *summary = read_text("out/summary.json");
    cr_expect(strstr(summary, "\"backend\":\t\"cpu\"") != NULL, "%s", summary);
}

Test(cli, non_finite_state_stops_with_time_set_point_and_no_complete_output)
{
    char args[1200], err[4096], path[800];
    /* a 1e308 N push overflows the velocity in the first step */
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu --set loads.push.magnitude=1e308",
             write_file("ok.yaml", BASE), dir);
    const int st = run(args, err, sizeof err);
    printf("non-finite: exit %d: %s", st, err);
    cr_expect_eq(st, 1);
    cr_expect(strstr(err, "t = ") && strstr(err, "contact set 'pad', point 0: non-finite"), "%s", err);
    struct stat sb;
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(stat(path, &sb) != 0, "a failed run left a complete-looking output folder");
    snprintf(path, sizeof path, "%s/out.part/timeseries.csv.part", dir);
    cr_expect(stat(path, &sb) == 0, "the partial time series should be kept in out.part as .part");
    const char *summary = read_text("out.part/summary.json");
    cr_expect(strstr(summary, "\"status\":\t\"failed\"") != NULL, "%s", summary);
}

/* An output folder is replaced as a whole: a complete run into a folder that holds an earlier run's
 * files (an old face.pvd, old PNGs) leaves none of them; a failed run leaves the earlier complete
 * output as it was; a folder with files that are not a Bristle run's is never written into. */
Test(cli, output_folder_is_replaced_whole_or_not_at_all)
{
    char args[1200], err[4096], path[800];
    const char *ok = write_file("ok.yaml", BASE);
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu --set time.end=0.01", ok, dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/out/old_run_face.pvd", dir);
    FILE *fp = fopen(path, "w");
    cr_assert(fp);
    fclose(fp);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    struct stat sb;
    cr_expect(stat(path, &sb) != 0, "a stale file of an earlier run survived in the output folder");
    snprintf(path, sizeof path, "%s/out/timeseries.csv", dir);
    cr_expect(stat(path, &sb) == 0);
    /* a failing run into the same folder: the complete output stays */
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu --set loads.push.magnitude=1e308", ok, dir);
    cr_expect_eq(run(args, err, sizeof err), 1, "%s", err);
    const char *summary = read_text("out/summary.json");
    cr_expect(strstr(summary, "\"status\":\t\"complete\"") != NULL, "%s", summary);
    /* a user's folder */
    snprintf(path, sizeof path, "%s/mine", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/mine/thesis.tex", dir);
    fp = fopen(path, "w");
    cr_assert(fp);
    fclose(fp);
    snprintf(args, sizeof args, "'%s' --out '%s/mine' --backend cpu --set time.end=0.01", ok, dir);
    cr_expect_eq(run(args, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "not a Bristle run's"), "%s", err);
    cr_expect(stat(path, &sb) == 0, "the user's file is gone");
}

Test(cli, builtin_demo_is_cube_00)
{
    char args[1200], err[4096], path[800];
    snprintf(args, sizeof args, "--out '%s/demo' --backend cpu --set time.end=0.01", dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/demo/timeseries.csv", dir);
    csv_table *t = csv_read(path);
    cr_assert(t);
    cr_expect(csv_col(t, "cube.x") >= 0 && csv_col(t, "base.Ft") >= 0 && csv_col(t, "press.F") >= 0 &&
              csv_col(t, "pull.F") >= 0);
    cr_expect_eq(t->nrows, 101);
    csv_free(t);
    static const char *const png[] = {"base.png", "cube.png", "energy.png", "summary.json"};
    for (int k = 0; k < 4; k++) {
        struct stat sb;
        snprintf(path, sizeof path, "%s/demo/%s", dir, png[k]);
        cr_expect(stat(path, &sb) == 0 && sb.st_size > 1000, "missing or tiny %s", png[k]);
    }
}

/* A bad mesh in a scenario: exit 2, the scenario line of the mesh key and the mesh file named. */
Test(cli, bad_mesh_is_rejected_with_the_scenario_line)
{
    write_file("nan.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    expect_bad("mesh.yaml", base_with(18, "    points: {mesh: {file: nan.obj}}\n"), 18, "nan.obj: vertex 0 has a non-finite coordinate");
    /* a missing mesh is named; one of the generated meshes the shipped scenarios read says how to make it */
    expect_bad("nomesh.yaml", base_with(18, "    points: {mesh: {file: absent.ply}}\n"), 18, "absent.ply: cannot open the mesh file");
    expect_bad("nogen.yaml", base_with(18, "    points: {mesh: {file: meshes/generated/absent_1e4.ply}}\n"), 18,
               "meshes/generated/absent_1e4.ply: cannot open the mesh file (a generated mesh: `sh scripts/meshes.sh`");
}

/* arguments -> exit status of `bristle compare ...`; its stderr in err */
static int compare(const char *args, char *err, size_t errlen) { return bristle("compare", args, err, errlen); }

Test(cli, compare_overlays_runs_in_one_png)
{
    char args[1600], err[4096], path[800];
    const char *scn = write_file("ok.yaml", BASE);
    snprintf(args, sizeof args, "'%s' --out '%s/a' --backend cpu --set time.end=0.002", scn, dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "'%s' --out '%s/b' --backend cpu --set time.end=0.002 --set loads.push.magnitude=20",
             scn, dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "'%s/a' '%s/b' --columns block.x,push.F --out '%s/cmp.png'", dir, dir, dir);
    cr_assert_eq(compare(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/cmp.png", dir);
    FILE *fp = fopen(path, "rb");
    cr_assert(fp, "no %s", path);
    unsigned char sig[8] = {0};
    cr_assert_eq(fread(sig, 1, 8, fp), 8);
    fclose(fp);
    cr_expect(sig[1] == 'P' && sig[2] == 'N' && sig[3] == 'G', "not a PNG");
    /* a column one run lacks, and a folder without a run: exit 2 with the reason */
    snprintf(args, sizeof args, "'%s/a' '%s/b' --columns block.q", dir, dir);
    cr_expect_eq(compare(args, err, sizeof err), 2);
    cr_expect(strstr(err, "no column 'block.q'") != NULL, "%s", err);
    snprintf(args, sizeof args, "'%s/a' '%s/nothing'", dir, dir);
    cr_expect_eq(compare(args, err, sizeof err), 2);
    cr_expect(strstr(err, "cannot read it") != NULL, "%s", err);
}

Test(cli, rotational_study_warns_about_dissipativity)
{
    char args[1200], err[4096];
    snprintf(args, sizeof args, "'%s/scenarios/rotational_stickslip.yaml' --out '%s/rot' --set time.end=0.01",
             SOURCE_DIR, dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(err, "warning: rotational friction 'bearing'") && strstr(err, "not dissipative"),
              "expected the dissipativity warning, stderr: %s", err);
    cr_expect(strstr(read_text("rot/summary.json"), "not dissipative") != NULL, "summary.json lacks the warning");
}

/* jenkins in a scenario: kt_area runs (the springs per area); both kt and kt_area are refused at
 * the friction block, a negative kt_area at its line */
Test(cli, jenkins_kt_area)
{
    char text[4096], args[1200], err[4096];
    /* lines 22-29 (lugre3d's keys) replaced by jenkins' */
    snprintf(text, sizeof text, "%s", BASE);
    char *f = strstr(text, "      law: lugre3d\n");
    cr_assert(f);
    strcpy(f, "      law: jenkins\n      mu: 0.3\n      kt_area: 4.0e8\n");
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu", write_file("jk.yaml", text), dir);
    cr_expect_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    strcpy(f, "      law: jenkins\n      mu: 0.3\n      kt: 1.0e5\n      kt_area: 4.0e8\n");
    expect_bad("jk2.yaml", text, 22, "give exactly one of 'kt'");
    strcpy(f, "      law: jenkins\n      mu: 0.3\n      kt_area: -1\n");
    expect_bad("jk3.yaml", text, 24, "kt_area must be > 0 (got -1)");
}

/* A contact pressed in from the start (a held sphere 1 um into two points): the springs' initial
 * energy counts as initial energy (summary.json initial_contact_J, K delta^2 / 2 each to 1e-6),
 * and the balance of this run, where nothing moves, closes (without it the stored energy came
 * from nothing; the S8a run started pressed showed a residual of 16 %) */
Test(cli, initial_contact_energy_is_booked)
{
    static const char *const text =
        "time: {end: 0.01, dt: 1.0e-4}\n"
        "frames:\n"
        "  - {name: ball, position: [0, 0, 0.009999]}\n"
        "contacts:\n"
        "  - name: pad\n"
        "    body: ground\n"
        "    surface: {type: sphere, frame: ball, center: [0, 0, 0], radius: 0.01}\n"
        "    points: {list: [[0, 0, 0], [1.0e-5, 0, 0]]}\n"
        "    area: 1.0e-8\n"
        "    normal: {law: hunt_crossley, pK: 1, pD: 0, sigma: 1.0e-12, D: 0}\n"
        "    friction: {law: jenkins, mu: 0.5, kt: 1.0e4}\n";
    char args[1200], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/out' --backend cpu", write_file("pressed.yaml", text), dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    cJSON *j = run_summary(dir, "out");
    const cJSON *en = cJSON_GetObjectItem(j, "energy");
    const double e0 = cJSON_GetObjectItem(en, "initial_contact_J")->valuedouble;
    const double res = cJSON_GetObjectItem(en, "residual_relative")->valuedouble;
    cJSON_Delete(j);
    /* K = A / sigma = 1e4 N/m, delta = 1e-6 m and 1e-6 - 1e-10 / (2 R): K delta^2 / 2 each */
    const double ex = 0.5e4 * (1e-12 + pow(1e-6 - 0.5e-10 / 0.01, 2));
    printf("pressed start: initial contact energy %.6g J (%.6g J), residual %.3g\n", e0, ex, res);
    cr_expect(fabs(e0 - ex) < 1e-6 * ex, "initial contact energy %g J, expected %g J", e0, ex);
    cr_expect(res < 1e-9, "energy residual %g", res);
}

/* ---- bristle study ---- */

/* A short mistuning x amplitude study of the S2 bundle (0.3 s of the sweep; 1 + 2 x 2 variants). */
static const char *STUDY_S2 = BR_TEST_STUDY_S2_BODY "output: {plots: false}\n";

/* study.csv and every frf.csv are bitwise the same on 1 and 2 threads */
Test(cli, study_is_bitwise_the_same_for_any_thread_count)
{
    char args[1400], err[4096], a[2][65536];
    const char *path = write_file("small.yaml", STUDY_S2);
    for (int t = 0; t < 2; t++) {
        snprintf(args, sizeof args, "'%s' --out '%s/st%d' --threads %d --quiet", path, dir, t + 1, t + 1);
        cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
        char rel[64];
        snprintf(rel, sizeof rel, "st%d/study.csv", t + 1);
        snprintf(a[t], sizeof a[t], "%s", read_text(rel));
    }
    cr_expect_str_eq(a[0], a[1]);
    for (int v = 0; v < 5; v++) {
        char rel[64];
        snprintf(rel, sizeof rel, "st1/variants/%05d/frf.csv", v);
        snprintf(a[0], sizeof a[0], "%s", read_text(rel));
        rel[2] = '2';
        cr_expect_str_eq(a[0], read_text(rel), "variant %d", v);
    }
    printf("study on 1 and 2 threads: study.csv and 5 frf.csv bitwise equal\n");
}

/* The study's beam batch (every stage of a step batched over the variants: a CPU study's default,
 * eight variants at a time in vector lanes, and the path --backend cuda takes on a GPU) gives
 * study.csv and every frf.csv bitwise as the usual path (BRISTLE_STUDY_BEAMS=host: each variant's
 * step on its own), both solving the Woodbury systems with the header's LU (the default), or both
 * with LAPACK's dgesv (BRISTLE_LAPACK_LU); with its lean samples (only the columns' parts of
 * each variant's record: their bytes in summary.json less than whole samples') and with whole ones
 * (BRISTLE_STUDY_SAMPLE=full): name, study text, variants */
static void beams_as_usual(const char *name, const char *text, int nvar)
{
    enum { NRUN = 5 };
    char args[1400], err[4096], a[NRUN][65536], file[64];
    snprintf(file, sizeof file, "%s.yaml", name);
    const char *path = write_file(file, text);
    const char *env[NRUN] = {"BRISTLE_STUDY_BEAMS=host", "BRISTLE_STUDY_BEAMS=", "BRISTLE_STUDY_SAMPLE=full",
                             "BRISTLE_LAPACK_LU=1 BRISTLE_STUDY_BEAMS=host", "BRISTLE_LAPACK_LU=1"};
    for (int k = 0; k < NRUN; k++) {
        /* the batch on two threads: a batch a block of eight variants (the last with the tail), the
         * threads taking them, no barrier between their steps; the usual path on one */
        snprintf(args, sizeof args, "study '%s' --out '%s/%s%d' --threads %d --quiet", path, dir, name, k,
                 k % 3 ? 2 : 1);
        cr_assert_eq(testdir_run(dir, BRISTLE_EXE, env[k], args, err, sizeof err), 0, "stderr: %s", err);
        char rel[128];
        snprintf(rel, sizeof rel, "%s%d/study.csv", name, k);
        snprintf(a[k], sizeof a[k], "%s", read_text(rel));
    }
    cr_expect_str_eq(a[0], a[1]);
    cr_expect_str_eq(a[0], a[2]);
    cr_expect_str_eq(a[3], a[4]);
    char rel[128];
    double bytes[NRUN] = {0};
    for (int k = 1; k < NRUN; k++) {
        if (k == 3) continue;
        snprintf(rel, sizeof rel, "%s%d/summary.json", name, k);
        cr_expect(strstr(read_text(rel), "batched with the field"), "the beam batch ran");
        cJSON *j = cJSON_Parse(read_text(rel));
        const cJSON *b = cJSON_GetObjectItem(j, "sample_bytes_per_variant");
        cr_assert(cJSON_IsNumber(b), "summary.json has sample_bytes_per_variant");
        bytes[k] = b->valuedouble;
        const cJSON *nb = cJSON_GetObjectItem(j, "beam_batches");
        cr_expect(cJSON_IsNumber(nb) && nb->valueint == (nvar >= 16 ? nvar / 8 : 1), "run %d: %g beam batches for %d "
                  "variants", k, cJSON_IsNumber(nb) ? nb->valuedouble : -1.0, nvar);
        cJSON_Delete(j);
    }
    cr_expect(bytes[1] > 0 && bytes[1] < bytes[2], "a lean sample: %g bytes a variant against %g whole", bytes[1], bytes[2]);
    for (int k = 0; k < NRUN; k += 3) {
        snprintf(rel, sizeof rel, "%s%d/summary.json", name, k);
        cr_expect(strstr(read_text(rel), "per variant on the host"), "the usual path ran");
    }
    for (int v = 0; v < nvar; v++)
        for (int k0 = 0; k0 < NRUN; k0 += 3) { /* runs 1, 2 against 0; 4 against 3 */
            snprintf(rel, sizeof rel, "%s%d/variants/%05d/frf.csv", name, k0, v);
            snprintf(a[k0], sizeof a[k0], "%s", read_text(rel));
            for (int k = k0 + 1; k < (k0 ? NRUN : 3); k++) {
                snprintf(rel, sizeof rel, "%s%d/variants/%05d/frf.csv", name, k, v);
                cr_expect_str_eq(a[k0], read_text(rel), "variant %d, run %d", v, k);
            }
        }
    printf("%s on the beam batch (CPU; samples of %g and %g bytes a variant; LAPACK's LU and the portable one) and the "
           "usual path: study.csv and %d frf.csv bitwise equal\n", name, bytes[1], bytes[2], nvar);
}

/* seventeen variants on two threads: a batch of eight in the CPU's lanes, and one of eight in lanes and
 * one on its own; to 0.15 s (15000 steps), as many variant-steps as nine to 0.3 s: the rows are compared
 * to all 17 digits, so a bit anywhere shows; the impacts past 0.25 s are test_beam_batch's (bitwise each
 * run to 0.3 s). At 0.3 s this was the sanitized suite's longest test (192 s), at 0.15 s still (117 s on the
 * 2-core Intel VM): there it runs to 0.06 s (sanitized.h), a whole window of the sweep's analysis (0.05 s) */
#if BR_TEST_SANITIZED
#define BEAMS_SWEEP_END "0.06"
#else
#define BEAMS_SWEEP_END "0.15"
#endif
Test(cli, study_on_the_beam_batch_is_bitwise_the_usual_path)
{
    beams_as_usual("beams_sweep",
                   "name: small17\n"
                   "scenario: " SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml\n"
                   "set: {time.end: " BEAMS_SWEEP_END "}\n"
                   "grid:\n"
                   "  loads.excitation.magnitude.sweep.amplitude: [1, 2]\n"
                   "random:\n"
                   "  count: 8\n"
                   "  seed: 7\n"
                   "  keys:\n"
                   "    beams.blade_L.E: {normal: 0.02}\n"
                   "    beams.blade_R.E: {uniform: 1.0e9, relative: false}\n"
                   "analysis: {type: sweep, columns: [tip_C.x, tip_L.x], window: 0.05}\n"
                   "output: {plots: false}\n",
                   17);
}

/* a stepped sine: each variant's excitation frequency changes on the batch as it converges */
Test(cli, stepped_sine_on_the_beam_batch_is_bitwise_the_usual_path)
{
    beams_as_usual("beams_stepped",
                   "name: beams_stepped\n"
                   "scenario: " SOURCE_DIR "/scenarios/blades_sine_lugre.yaml\n"
                   "grid:\n"
                   "  loads.excitation.magnitude.harmonic.amplitude: [0.3, 3]\n"
                   "analysis:\n"
                   "  type: stepped_sine\n"
                   "  columns: [tip_C.x, tip_L.x]\n"
                   "  excitation: excitation\n"
                   "  frequencies: [50, 54]\n"
                   "  start: 0.05\n"
                   "  tolerance: 1.0e-2\n"
                   "  min_cycles: 2\n"
                   "  max_cycles: 4\n"
                   "  fit_cycles: 2\n"
                   "output: {plots: false}\n",
                   3);
}

/* Every variant equals `bristle run BASE --set <its values>` to the last digit: its friction energies and
 * energy residual (summary.json, round-trip digits) and its sweep peaks (recomputed from the run's
 * timeseries.csv, written with 12 digits) */
Test(cli, study_variant_equals_its_single_run)
{
    char args[2400], err[4096];
    const char *path = write_file("small.yaml", STUDY_S2);
    snprintf(args, sizeof args, "'%s' --out '%s/st' --threads 2 --quiet", path, dir);
    cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
    char csvp[700];
    snprintf(csvp, sizeof csvp, "%s/st/study.csv", dir);
    csv_table *t = csv_read(csvp);
    cr_assert(t && t->nrows == 5, "study.csv: %ld rows", t ? t->nrows : -1L);
    for (long v = 0; v < 5; v++) {
    const double amp = csv_at(t, v, csv_col(t, "loads.excitation.magnitude.sweep.amplitude"));
    const double EL = csv_at(t, v, csv_col(t, "beams.blade_L.E")), ER = csv_at(t, v, csv_col(t, "beams.blade_R.E"));
    char aset[128] = ""; /* variant 0, the base: no axis value */
    if (!isnan(amp)) snprintf(aset, sizeof aset, "--set loads.excitation.magnitude.sweep.amplitude=%.17g", amp);
    snprintf(args, sizeof args,
             "'" SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml' --out '%s/run' --backend cpu --set time.end=" BR_TEST_S2_END
             " %s --set beams.blade_L.E=%.17g --set beams.blade_R.E=%.17g", dir, aset, EL, ER);
    cr_assert_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    cJSON *j = run_summary(dir, "run");
    const double res = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "energy"), "residual_relative")->valuedouble;
    const cJSON *sets = cJSON_GetObjectItem(j, "contact_sets");
    const double E0 = cJSON_GetObjectItem(cJSON_GetArrayItem(sets, 0), "energy_loss_J")->valuedouble;
    const double E1 = cJSON_GetObjectItem(cJSON_GetArrayItem(sets, 1), "energy_loss_J")->valuedouble;
    cJSON_Delete(j);
    const double sres = csv_at(t, v, csv_col(t, "energy_residual"));
    const double sE0 = csv_at(t, v, csv_col(t, "contact_L.friction_energy")), sE1 = csv_at(t, v, csv_col(t, "contact_R.friction_energy"));
    printf("variant %ld: residual %.17g (run %.17g), friction energy %.17g, %.17g J (run %.17g, %.17g J)\n", v, sres, res,
           sE0, sE1, E0, E1);
    cr_expect(sres == res && sE0 == E0 && sE1 == E1, "variant %ld and its run differ", v);
    /* the sweep peak of tip_C.x: half the range of each 0.05-s window, from the run's samples */
    char tsp[700];
    snprintf(tsp, sizeof tsp, "%s/run/timeseries.csv", dir);
    csv_table *ts = csv_read(tsp);
    cr_assert(ts);
    const int ct = csv_col(ts, "t"), cx = csv_col(ts, "tip_C.x");
    double best = 0, lo = INFINITY, hi = -INFINITY, wend = 0.05;
    for (long r = 0; r < ts->nrows; r++) {
        const double x = csv_at(ts, r, cx);
        lo = fmin(lo, x), hi = fmax(hi, x);
        if (csv_at(ts, r, ct) >= wend - 1e-9 * 0.05) best = fmax(best, 0.5 * (hi - lo)), lo = INFINITY, hi = -INFINITY, wend += 0.05;
    }
    const double speak = csv_at(t, v, csv_col(t, "tip_C.x.peak"));
    printf("variant %ld: tip_C.x peak %.12g m, from the run's timeseries %.12g m\n", v, speak, best);
    cr_expect(fabs(speak - best) <= 1e-11 * fabs(best), "peak %g against %g", speak, best);
    csv_free(ts);
    }
    csv_free(t);
}

/* A 1-degree-of-freedom oscillator (m = 1 kg, k = (2 pi 10 Hz)^2 m, damping ratio 0.05) under a
 * harmonic force: the stepped-sine receptance and phase against the exact steady state
 * |x / F| = 1 / |k - m w^2 + i c w|, within 0.1 % and 0.1 degrees (measured: 0.01 % and 0.02 degrees,
 * the time step's and the sampled fit's error at dt = 1e-5 s), each frequency converged */
Test(cli, stepped_sine_matches_the_exact_oscillator)
{
    static const char *const scen =
        "time: {end: 1.0, dt: 1.0e-5}\n" BR_TEST_OSCILLATOR_BODY;
    write_file("osc.yaml", scen);
    const char *path = write_file("osc_study.yaml",
                                  "scenario: osc.yaml\n"
                                  "grid: {loads.drive.magnitude.harmonic.amplitude: [0.5]}\n"
                                  "analysis: {type: stepped_sine, columns: [mass.x], frequencies: [8, 10, 12],\n"
                                  "           tolerance: 1.0e-6, min_cycles: 20, max_cycles: 2000, fit_cycles: 4}\n");
    char args[1400], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/st' --quiet", path, dir);
    cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
    for (int v = 0; v < 2; v++) {
        char p[700];
        snprintf(p, sizeof p, "%s/st/variants/%05d/frf.csv", dir, v);
        csv_table *t = csv_read(p);
        cr_assert(t && t->nrows == 3, "%s", p);
        for (long r = 0; r < 3; r++) {
            const double f = csv_at(t, r, 0), w = 2 * M_PI * f, k = 3947.8417604357434, c = 6.283185307179586;
            const double ex = 1.0 / hypot(k - w * w, c * w), ph = -atan2(c * w, k - w * w) * 180 / M_PI;
            const double rec = csv_at(t, r, csv_col(t, "mass.x.receptance")), phase = csv_at(t, r, csv_col(t, "mass.x.phase_deg"));
            printf("oscillator, variant %d, %4.1f Hz: receptance %.6g m/N (exact %.6g, %+.3f %%), phase %.3f deg (exact %.3f), "
                   "%.0f cycles, converged %.0f\n", v, f, rec, ex, 100 * (rec / ex - 1), phase, ph,
                   csv_at(t, r, csv_col(t, "cycles")), csv_at(t, r, csv_col(t, "converged")));
            cr_expect(fabs(rec / ex - 1) < 1e-3, "%g Hz: receptance %g, exact %g", f, rec, ex);
            cr_expect(fabs(phase - ph) < 0.1, "%g Hz: phase %g, exact %g", f, phase, ph);
            cr_expect(csv_at(t, r, csv_col(t, "converged")) == 1.0);
        }
        csv_free(t);
    }
}

/* The stepped sine's test of a steady response (docs/studies.md): the oscillator above with a fifth of
 * its damping (zeta = 0.01, a transient that decays over 16 cycles and beats against a drive near 10
 * Hz), from rest, at the default tolerance 1e-4: each frequency converged and within 3e-4 of the exact
 * steady state (measured: -0.008 %, -0.005 %, +0.013 %). The change of the amplitude from one cycle
 * to the next alone stopped at a crest of the beat: +6.4 %, -0.12 % and -1.35 % (42, 96, 69 cycles). */
Test(cli, a_stepped_sine_waits_for_its_transient_to_go)
{
    write_file("osc_light.yaml",
               "time: {end: 1.0, dt: 1.0e-5}\n"
               "bodies:\n"
               "  - {name: mass, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0, 0, 0], lock: [y, z, rx, ry, rz]}\n"
               "springs:\n"
               "  - {name: spring, a: {frame: ground, point: [0, 0, 0]}, b: {frame: mass, point: [0, 0, 0]},\n"
               "     stiffness: 3947.8417604357434, damping: 1.2566370614359172}\n"
               "loads:\n"
               "  - {name: drive, body: mass, direction: [1, 0, 0], magnitude: {harmonic: {amplitude: 2.0, frequency: 8}}}\n");
    const char *path = write_file("osc_light_study.yaml",
                                  "scenario: osc_light.yaml\n"
                                  "grid: {loads.drive.magnitude.harmonic.amplitude: [0.5]}\n"
                                  "analysis: {type: stepped_sine, columns: [mass.x], frequencies: [9.9, 10, 10.1],\n"
                                  "           max_cycles: 2000}\n"
                                  "output: {plots: false}\n");
    char args[1400], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/light' --quiet", path, dir);
    cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
    for (int v = 0; v < 2; v++) {
        char p[700];
        snprintf(p, sizeof p, "%s/light/variants/%05d/frf.csv", dir, v);
        csv_table *t = csv_read(p);
        cr_assert(t && t->nrows == 3, "%s", p);
        for (long r = 0; r < 3; r++) {
            const double f = csv_at(t, r, 0), w = 2 * M_PI * f, k = 3947.8417604357434, c = 1.2566370614359172;
            const double ex = 1.0 / hypot(k - w * w, c * w), rec = csv_at(t, r, csv_col(t, "mass.x.receptance"));
            printf("light oscillator, variant %d, %4.1f Hz: receptance %.8g m/N (exact %.8g, %+.4f %%), %.0f cycles, "
                   "converged %.0f\n", v, f, rec, ex, 100 * (rec / ex - 1), csv_at(t, r, csv_col(t, "cycles")),
                   csv_at(t, r, csv_col(t, "converged")));
            cr_expect(fabs(rec / ex - 1) <= 3e-4, "%g Hz: receptance %g, exact %g", f, rec, ex);
            cr_expect(csv_at(t, r, csv_col(t, "converged")) == 1.0);
        }
        csv_free(t);
    }
    /* extrapolate: true: each steady state extrapolated from the transient's decay, within the same 3e-4 of
     * the exact one, in a quarter of the cycles at most (measured: 10 cycles each; 7.6e-9, 3.5e-8, 1.1e-9
     * off the same model settled to 1e-8 in about 300 cycles, a run too long for the sanitized suite,
     * benchmarks/results/2026-11-28-cpu-stepped-sine-exact-periods.md) */
    const char *px = write_file("osc_light_x.yaml",
                                "scenario: osc_light.yaml\n"
                                "grid: {loads.drive.magnitude.harmonic.amplitude: [0.5]}\n"
                                "analysis: {type: stepped_sine, columns: [mass.x], frequencies: [9.9, 10, 10.1],\n"
                                "           max_cycles: 2000, extrapolate: true}\n"
                                "output: {plots: false}\n");
    snprintf(args, sizeof args, "'%s' --out '%s/lightx' --quiet", px, dir);
    cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
    for (int v = 0; v < 2; v++) {
        char p[700], q[700];
        snprintf(p, sizeof p, "%s/lightx/variants/%05d/frf.csv", dir, v);
        snprintf(q, sizeof q, "%s/light/variants/%05d/frf.csv", dir, v);
        csv_table *t = csv_read(p), *u = csv_read(q);
        cr_assert(t && t->nrows == 3 && u && u->nrows == 3, "%s", p);
        for (long r = 0; r < 3; r++) {
            const double f = csv_at(t, r, 0), w = 2 * M_PI * f, k = 3947.8417604357434, c = 1.2566370614359172;
            const double ex = 1.0 / hypot(k - w * w, c * w), rec = csv_at(t, r, csv_col(t, "mass.x.receptance"));
            const double n = csv_at(t, r, csv_col(t, "cycles")), nu = csv_at(u, r, csv_col(u, "cycles"));
            printf("light oscillator, extrapolated, variant %d, %4.1f Hz: receptance %.10g m/N (exact %.8g, %+.4f %%), "
                   "%.0f cycles (%.0f without), converged %.0f\n", v, f, rec, ex, 100 * (rec / ex - 1), n, nu,
                   csv_at(t, r, csv_col(t, "converged")));
            cr_expect(fabs(rec / ex - 1) <= 3e-4, "%g Hz: receptance %g, exact %g", f, rec, ex);
            cr_expect(csv_at(t, r, csv_col(t, "converged")) == 1.0 && 4 * n <= nu, "%g Hz: %g cycles, %g without", f, n, nu);
            const double ph = -atan2(c * w, k - w * w) * 180 / M_PI, phase = csv_at(t, r, csv_col(t, "mass.x.phase_deg"));
            cr_expect(fabs(phase - ph) < 0.1, "%g Hz: phase %g, exact %g", f, phase, ph);
        }
        csv_free(t), csv_free(u);
    }
    /* The same at 40 samples a period (output interval 2.5e-3 s; at 9.9 and 10.1 Hz not a whole number of
     * samples): each cycle's fit is the least squares weighted by integrals over exactly one period (cubics
     * through the samples), so a steady response is fitted exactly and a transient's coefficients fall
     * geometrically to the interpolation's error: within 2e-5 of the extrapolation at 1000 samples a period
     * (itself within 4e-8 of the settled states) in at most 12 cycles (measured: 5.4e-6, 1.3e-7, 6.7e-6 from
     * the settled states in 10 cycles each; with plain integrals of x cos and x sin over the period, 1.1e-4
     * and 1.7e-4 off at 9.9 and 10.1 Hz after 136 and 128 cycles) */
    write_file("osc_light_coarse.yaml",
               "time: {end: 1.0, dt: 1.0e-5}\n"
               "output: {interval: 2.5e-3}\n"
               "bodies:\n"
               "  - {name: mass, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0, 0, 0], lock: [y, z, rx, ry, rz]}\n"
               "springs:\n"
               "  - {name: spring, a: {frame: ground, point: [0, 0, 0]}, b: {frame: mass, point: [0, 0, 0]},\n"
               "     stiffness: 3947.8417604357434, damping: 1.2566370614359172}\n"
               "loads:\n"
               "  - {name: drive, body: mass, direction: [1, 0, 0], magnitude: {harmonic: {amplitude: 2.0, frequency: 8}}}\n");
    const char *pc = write_file("osc_light_coarse_x.yaml",
                                "scenario: osc_light_coarse.yaml\n"
                                "grid: {loads.drive.magnitude.harmonic.amplitude: [0.5]}\n"
                                "analysis: {type: stepped_sine, columns: [mass.x], frequencies: [9.9, 10, 10.1],\n"
                                "           max_cycles: 2000, extrapolate: true}\n"
                                "output: {plots: false}\n");
    snprintf(args, sizeof args, "'%s' --out '%s/lightc' --quiet", pc, dir);
    cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
    {
        char p[700], q[700];
        snprintf(p, sizeof p, "%s/lightc/variants/00001/frf.csv", dir);
        snprintf(q, sizeof q, "%s/lightx/variants/00001/frf.csv", dir);
        csv_table *t = csv_read(p), *st = csv_read(q);
        cr_assert(t && t->nrows == 3 && st && st->nrows == 3, "%s", p);
        for (long r = 0; r < 3; r++) {
            const double rec = csv_at(t, r, csv_col(t, "mass.x.receptance")), n = csv_at(t, r, csv_col(t, "cycles"));
            const double rs = csv_at(st, r, csv_col(st, "mass.x.receptance"));
            printf("light oscillator, extrapolated, 40 samples a period, %4.1f Hz: receptance %.10g m/N (at 1000 samples "
                   "a period %.10g, %.2g off), %.0f cycles\n", csv_at(t, r, 0), rec, rs, fabs(rec / rs - 1), n);
            cr_expect(fabs(rec / rs - 1) <= 2e-5 && n <= 12 && csv_at(t, r, csv_col(t, "converged")) == 1.0,
                      "%g Hz: receptance %.10g, at 1000 samples a period %.10g, %g cycles", csv_at(t, r, 0), rec, rs, n);
        }
        csv_free(t), csv_free(st);
    }
    /* study.csv counts the frequencies that reached the cap; none here, all three at 30 cycles (and said so) */
    for (int capped = 0; capped < 2; capped++) {
        char p[700];
        if (capped) {
            const char *p30 = write_file("osc_light_30.yaml",
                                         "scenario: osc_light.yaml\n"
                                         "grid: {loads.drive.magnitude.harmonic.amplitude: [0.5]}\n"
                                         "analysis: {type: stepped_sine, columns: [mass.x], frequencies: [9.9, 10, 10.1],\n"
                                         "           max_cycles: 30}\n"
                                         "output: {plots: false}\n");
            snprintf(args, sizeof args, "'%s' --out '%s/light30' --quiet", p30, dir);
            cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
            cr_expect(strstr(err, "6 of 6 frequency points (in 2 variants) reached max_cycles (30)"), "stderr: %s", err);
        }
        snprintf(p, sizeof p, "%s/%s/study.csv", dir, capped ? "light30" : "light");
        csv_table *t = csv_read(p);
        cr_assert(t && t->nrows == 2, "%s", p);
        for (long v = 0; v < 2; v++)
            cr_expect(csv_at(t, v, csv_col(t, "unconverged")) == (capped ? 3.0 : 0.0), "%s, variant %ld", p, v);
        csv_free(t);
    }
}

/* The stepped sine switches its excitation on at `start`, at a rising zero crossing: the oscillator of
 * the test above rests until then and afterwards follows the exact response from rest to
 * F sin(w (t - start)), steady part plus the decaying free vibration that cancels its initial
 * displacement and velocity, within 1e-3 of the steady amplitude over 0.3 s (measured: 1.5e-4 at
 * dt = 1e-5 s); before it, bitwise at rest. A negative amplitude is the same force half a period
 * on: it too starts rising. */
Test(cli, a_stepped_sine_switches_its_excitation_on_at_start)
{
    /* the scenario's own phase (2 rad) and a start that is no whole number of periods (1.84 at 8 Hz):
     * both give way to the rising zero crossing at start */
    write_file("osc_on.yaml",
               "time: {end: 1.0, dt: 1.0e-5}\n"
               "bodies:\n"
               "  - {name: mass, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0, 0, 0], lock: [y, z, rx, ry, rz]}\n"
               "springs:\n"
               "  - {name: spring, a: {frame: ground, point: [0, 0, 0]}, b: {frame: mass, point: [0, 0, 0]},\n"
               "     stiffness: 3947.8417604357434, damping: 6.283185307179586}\n"
               "loads:\n"
               "  - {name: drive, body: mass, direction: [1, 0, 0],\n"
               "     magnitude: {harmonic: {amplitude: 2.0, frequency: 8, phase: 2.0}}}\n");
    const char *path = write_file("osc_on_study.yaml",
                                  "scenario: osc_on.yaml\n"
                                  "grid: {loads.drive.magnitude.harmonic.amplitude: [0.5, -0.5]}\n"
                                  "analysis: {type: stepped_sine, columns: [mass.x], frequencies: [8], start: 0.23,\n"
                                  "           tolerance: 1.0e-3, min_cycles: 3, max_cycles: 4, fit_cycles: 1}\n"
                                  "output: {plots: false, series: [mass.x], series_interval: 1.0e-3}\n");
    char args[1400], err[4096];
    snprintf(args, sizeof args, "'%s' --out '%s/on' --quiet", path, dir);
    cr_assert_eq(bristle("study", args, err, sizeof err), 0, "stderr: %s", err);
    for (int v = 0; v < 3; v++) { /* the scenario's 2 N, the grid's 0.5 N and -0.5 N (0.5 N half a period on) */
        char p[700];
        snprintf(p, sizeof p, "%s/on/variants/%05d/series.csv", dir, v);
        csv_table *t = csv_read(p);
        cr_assert(t && t->nrows > 500, "%s", p);
        const int cx = csv_col(t, "mass.x");
        const double F = v ? 0.5 : 2.0, k = 3947.8417604357434, c = 6.283185307179586, w = 2 * M_PI * 8, t0 = 0.23;
        const double X = F / hypot(k - w * w, c * w), psi = -atan2(c * w, k - w * w);
        const double wn = sqrt(k), zeta = c / (2 * wn), wd = wn * sqrt(1 - zeta * zeta);
        const double A = -X * sin(psi), B = (zeta * wn * A - X * w * cos(psi)) / wd;
        double before = 0, worst = 0, tw = 0;
        long nafter = 0;
        for (long r = 0; r < t->nrows; r++) {
            const double tt = csv_at(t, r, 0), x = csv_at(t, r, cx);
            if (tt <= t0) {
                before = fmax(before, fabs(x));
                continue;
            }
            if (tt > t0 + 0.3) break;
            const double tau = tt - t0;
            const double ex = X * sin(w * tau + psi) + exp(-zeta * wn * tau) * (A * cos(wd * tau) + B * sin(wd * tau));
            if (fabs(x - ex) > worst) worst = fabs(x - ex), tw = tt;
            nafter++;
        }
        printf("variant %d, switched on at %g s: |x| before %g m; after, against the exact response from rest, largest "
               "difference %.3g of the steady amplitude %.6g m (at %g s, %ld samples)\n", v, t0, before, worst / X, X, tw, nafter);
        cr_expect(before == 0.0, "the oscillator moved before start: %g m", before);
        cr_expect(nafter > 250, "%ld samples after start", nafter);
        cr_expect(worst <= 1e-3 * X, "largest difference %g of the amplitude %g at %g s", worst / X, X, tw);
        csv_free(t);
    }
}

/* study text, line, words -> exit status 2, "path:line:" and the words on stderr, nothing stepped */
static void expect_bad_study(const char *name, const char *text, int line, const char *words)
{
    char args[1400], err[4096], want[1100];
    const char *path = write_file(name, text);
    snprintf(args, sizeof args, "'%s' --out '%s/bad' --quiet", path, dir);
    const int st = bristle("study", args, err, sizeof err);
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    printf("%-20s exit %d: %s", name, st, err);
    cr_expect_eq(st, 2, "%s: exit status %d, expected 2 (stderr: %s)", name, st, err);
    cr_expect(strstr(err, want) != NULL, "%s: expected '%s' in: %s", name, want, err);
    cr_expect(strstr(err, words) != NULL, "%s: expected '%s' in: %s", name, words, err);
    char p[700];
    struct stat sb;
    snprintf(p, sizeof p, "%s/bad/study.csv", dir);
    cr_expect(stat(p, &sb) != 0, "%s: a study.csv was written", name);
}

#define STUDY_HEAD "scenario: " SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml\n" /* line 1 */
#define STUDY_AN "analysis: {type: sweep, columns: [tip_C.x]}\n"

/* 80 variants set up on the threads, two of them bad: the message names the first bad one (the
 * 41st grid value is variant 41: variant 0 is the base), the same on 1 and on 2 threads */
Test(cli, a_bad_variant_among_many_is_the_first_on_any_threads)
{
    char text[4096] = STUDY_HEAD "grid: {time.dt: [";
    for (int k = 0; k < 80; k++)
        strcat(text, k == 40 ? "-1.0e-5" : k == 60 ? "-2.0e-5" : "1.0e-5"), strcat(text, k < 79 ? ", " : "]}\n");
    strcat(text, STUDY_AN);
    const char *path = write_file("badmid.yaml", text);
    char err[2][4096];
    for (int t = 0; t < 2; t++) {
        char args[1400];
        snprintf(args, sizeof args, "'%s' --out '%s/badmid' --threads %d --quiet", path, dir, t + 1);
        cr_expect_eq(bristle("study", args, err[t], sizeof err[t]), 2, "%d threads: %s", t + 1, err[t]);
        printf("%d threads: %s", t + 1, err[t]);
    }
    cr_expect(strstr(err[0], ":2: variant 41: ") && strstr(err[0], "got -1e-05"), "%s", err[0]);
    cr_expect_str_eq(err[0], err[1]);
}

/* every study shipped in studies/ reads as `bristle study` reads it before stepping (keys, its scenario,
 * values, draws) */
Test(cli, the_shipped_studies_read)
{
    glob_t g;
    cr_assert_eq(glob(SOURCE_DIR "/studies/*.yaml", 0, NULL, &g), 0);
    cr_assert(g.gl_pathc >= 9, "%zu studies", g.gl_pathc);
    for (size_t k = 0; k < g.gl_pathc; k++) {
        char err[2048] = "";
        const int rc = br_study_check(g.gl_pathv[k], err, sizeof err);
        printf("%s: %s\n", g.gl_pathv[k], rc ? err : "reads");
        cr_expect_eq(rc, 0, "%s: %s", g.gl_pathv[k], err);
    }
    globfree(&g);
}

Test(cli, bad_study_files)
{
    expect_bad_study("unknown.yaml", STUDY_HEAD "grids: {time.dt: [1.0e-5]}\n" STUDY_AN, 2, "unknown key 'grids'");
    expect_bad_study("empty.yaml", STUDY_HEAD "grid:\n  time.dt: []\n" STUDY_AN, 3, "an empty list");
    expect_bad_study("count.yaml", STUDY_HEAD "random:\n  count: 0\n  keys: {beams.blade_L.E: {normal: 0.02}}\n" STUDY_AN, 3,
                     "count must be a whole number");
    expect_bad_study("negsd.yaml", STUDY_HEAD "random:\n  count: 2\n  keys: {beams.blade_L.E: {normal: -0.02}}\n" STUDY_AN, 4,
                     "a deviation must be >= 0");
    expect_bad_study("freq.yaml",
                     STUDY_HEAD "grid: {time.dt: [1.0e-5]}\n"
                                "analysis: {type: stepped_sine, columns: [tip_C.x],\n  frequencies: [40, 0, 50]}\n",
                     4, "frequencies must be positive");
    expect_bad_study("nokey.yaml", STUDY_HEAD "random:\n  count: 2\n  keys: {beams.blade_Q.E: {normal: 0.02}}\n" STUDY_AN, 4,
                     "no 'blade_Q' in the scenario");
    expect_bad_study("loglist.yaml", STUDY_HEAD "grid: {time.dt: {log: [0, 1.0e-5, 3]}}\n" STUDY_AN, 2,
                     "a log range needs positive ends");
    expect_bad_study("nogrid.yaml", STUDY_HEAD STUDY_AN, 1, "needs 'grid' or 'random'");
    expect_bad_study("column.yaml", STUDY_HEAD "grid: {time.dt: [1.0e-5]}\nanalysis: {type: sweep, columns: [tip_Q.x]}\n", 3,
                     "no time-series column 'tip_Q.x'");
    expect_bad_study("badval.yaml", STUDY_HEAD "grid: {time.dt: [-1.0e-5]}\n" STUDY_AN, 2, "dt must be > 0");
    expect_bad_study("xsweep.yaml", STUDY_HEAD "grid: {time.dt: [1.0e-5]}\nanalysis: {type: sweep, columns: [tip_C.x],\n  extrapolate: true}\n",
                     4, "extrapolate belongs to a stepped_sine analysis");
    expect_bad_study("xword.yaml",
                     STUDY_HEAD "grid: {time.dt: [1.0e-5]}\n"
                                "analysis: {type: stepped_sine, columns: [tip_C.x], frequencies: [40],\n  extrapolate: yes}\n",
                     4, "extrapolate must be true or false");
    /* each cycle's fit interpolates between samples: at 2000 Hz the scenario's 1e-4 s gives 5 a period */
    expect_bad_study("coarse.yaml",
                     "scenario: " SOURCE_DIR "/scenarios/blades_sine_lugre.yaml\n"
                     "grid: {loads.excitation.magnitude.harmonic.amplitude: [0.1]}\n"
                     "analysis: {type: stepped_sine, columns: [tip_C.x], frequencies: [40, 2000]}\n",
                     3, "needs at least 8 samples a period: the output interval 0.0001 s gives 5 at 2000 Hz (set "
                        "output.interval to at most 6e-05 s)");
}

#ifdef BRISTLE_HAVE_HDF5
#include <hdf5.h>

/* dataset path in file f -> its n doubles read into v (at most max), the count; asserted to exist */
static long h5_doubles(hid_t f, const char *path, double *v, long max)
{
    const hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    cr_assert(d >= 0, "run.h5 has no %s", path);
    const hid_t sp = H5Dget_space(d);
    const long n = (long)H5Sget_simple_extent_npoints(sp);
    cr_assert(n > 0 && n <= max, "%s: %ld values", path, n);
    cr_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "%s unreadable", path);
    H5Sclose(sp), H5Dclose(d);
    return n;
}
#endif

/* output.format: hdf5 (docs/format-hdf5.md), read back with the HDF5 library: the meshed clutch face over 40
 * steps with two snapshots, once to CSV and VTK, once to run.h5. Every column of /timeseries equals
 * timeseries.csv's within 1e-11 of the column's largest value (the CSV prints 12 significant digits); each
 * snapshot's points' normal forces add up to the set's normal force stored beside them within 1e-12 of it
 * (the same values summed in another order: rounding of about 1e3 terms). The Python clients (h5py, VTK's XDMF
 * readers) check the same file in test_output_clients; this one also runs under the sanitizers. */
Test(cli, hdf5_output_matches_the_csv_run)
{
#ifndef BRISTLE_HAVE_HDF5
    printf("SKIP cli::hdf5_output_matches_the_csv_run: this build has no HDF5 (libhdf5-dev)\n");
    cr_skip_test("no HDF5 in this build");
#else
    char err[4096];
    const char *sets = "--backend cpu --set time.end=0.002 --set output.fields.0=0.001 --set output.fields.1=0.002";
    char args[1400];
    snprintf(args, sizeof args, "%s/scenarios/clutch_patch_1e3.yaml --out csv %s", SOURCE_DIR, sets);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "%s/scenarios/clutch_patch_1e3.yaml --out h5 %s --set output.format=hdf5", SOURCE_DIR, sets);
    cr_assert_eq(run(args, err, sizeof err), 0, "%s", err);
    char path[1024];
    snprintf(path, sizeof path, "%s/csv/timeseries.csv", dir);
    csv_table *t = csv_read(path);
    cr_assert(t && t->nrows > 10, "%s", path);
    snprintf(path, sizeof path, "%s/h5/run.h5", dir);
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(f >= 0, "cannot open %s", path);
    static double v[1 << 16];
    for (int c = 0; c < t->ncols; c++) {
        char ds[300];
        snprintf(ds, sizeof ds, "/timeseries/%s", t->names[c]);
        cr_assert_eq(h5_doubles(f, ds, v, 1 << 16), t->nrows, "%s: rows", ds);
        double scale = 0, worst = 0;
        for (long r = 0; r < t->nrows; r++) scale = fmax(scale, fabs(csv_at(t, r, c)));
        for (long r = 0; r < t->nrows; r++) worst = fmax(worst, fabs(v[r] - csv_at(t, r, c)));
        cr_assert(worst <= 1e-11 * scale || worst == 0.0, "%s: %g off (scale %g)", ds, worst, scale);
    }
    double Nset[8];
    cr_assert_eq(h5_doubles(f, "/fields/face/set_normal_force", Nset, 8), 2);
    for (int k = 0; k < 2; k++) {
        char ds[300];
        snprintf(ds, sizeof ds, "/fields/face/snapshots/%05d/normal_force", k);
        const long n = h5_doubles(f, ds, v, 1 << 16);
        double sum = 0;
        for (long i = 0; i < n; i++) sum += v[i];
        cr_log_info("run.h5 snapshot %d: %ld points, their normal forces %.12g N, the set's %.12g N", k, n, sum, Nset[k]);
        cr_assert(n > 500 && Nset[k] > 0 && fabs(sum - Nset[k]) <= 1e-12 * Nset[k], "snapshot %d: %.15g against %.15g", k,
                  sum, Nset[k]);
    }
    H5Fclose(f);
    csv_free(t);
#endif
}

/* Issue 50: a run whose energy balance ends above time.energy_tolerance is not "complete": the drop
 * of tests/drop.h (n = 1.5, a v_in = 0.6, 1 ms) at fixed steps (time.adaptive: false, 23 % of its energy lost to backward
 * Euler's position) exits with status 3, and summary.json says "inaccurate" with the residual, its
 * tolerance, the sample interval where it grew most (the bounce, 0.1 to 0.45 ms) and the contact set;
 * the same drop with substeps (the default) is complete and says how many it took. */
Test(cli, a_run_off_its_energy_balance_is_inaccurate)
{
    char buf[2048], args[1400], err[4096];
    drop_text(buf, sizeof buf, 1.0e-3, 1.0e-5, ", adaptive: false", 1.5, 0.6);
    const char *fixed = write_file("drop_fixed.yaml", buf);
    snprintf(args, sizeof args, "'%s' --out '%s/drop_fixed'", fixed, dir);
    cr_assert_eq(run(args, err, sizeof err), 3, "exit status 3; stderr: %s", err);
    cr_expect(strstr(err, "inaccurate"), "stderr says why: %s", err);
    cJSON *j = cJSON_Parse(read_text("drop_fixed/summary.json"));
    cr_assert(j);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "inaccurate");
    const cJSON *in = cJSON_GetObjectItem(j, "inaccurate"), *w = cJSON_GetObjectItem(in, "grew_most_between_s");
    const double r = cJSON_GetNumberValue(cJSON_GetObjectItem(in, "residual_relative"));
    cr_expect(r > 0.1 && cJSON_GetNumberValue(cJSON_GetObjectItem(in, "energy_tolerance")) == 0.01, "residual %g", r);
    const double t0 = cJSON_GetNumberValue(cJSON_GetArrayItem(w, 0)), t1 = cJSON_GetNumberValue(cJSON_GetArrayItem(w, 1));
    cr_expect(t0 >= 1e-4 - 1e-12 && t1 <= 4.5e-4 && t1 > t0, "grew most between %g and %g s", t0, t1);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(in, "contact_set")), "c");
    cJSON_Delete(j);
    drop_text(buf, sizeof buf, 1.0e-3, 1.0e-5, "", 1.5, 0.6);
    const char *adaptive = write_file("drop.yaml", buf);
    snprintf(args, sizeof args, "'%s' --out '%s/drop'", adaptive, dir);
    cr_assert_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    j = cJSON_Parse(read_text("drop/summary.json"));
    cr_assert(j);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "complete");
    const cJSON *s = cJSON_GetObjectItem(j, "substeps");
    const double taken = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "substeps"));
    const double hmin = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "smallest_s"));
    const double tmin = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "smallest_at_s"));
    printf("the drop with substeps: %g substeps, the smallest %g s at t = %g s\n", taken, hmin, tmin);
    cr_expect(taken > 0 && hmin < 1e-5 && tmin >= 1e-4 && tmin <= 4.5e-4, "%g substeps, %g s at %g s", taken, hmin, tmin);
    cJSON_Delete(j);
}
