/* test_mpi.c: `bristle study` split across MPI ranks (host/analysis/ranks.c) writes what the one-process run
 * writes: study.csv, every variant's frf.csv bitwise, on 1, 2 and 3 ranks (3 ranks: blocks of
 * unequal size, 5 variants = 2 + 2 + 1), a failing variant's row and error included. Skipped, with the
 * reason, where Bristle was built without MPI. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "study_s2.h"
#include "testdir.h"

static char dir[512];

static void setup(void) { cr_assert_eq(testdir_make(dir, sizeof dir, "mpi"), 0); }

static void teardown(void) { testdir_remove(dir); }

TestSuite(mpi, .init = setup, .fini = teardown);

#ifdef MPIEXEC /* the helpers of the tests, which have nothing to run without MPI */
/* name, text -> file written in the test folder; its path */
static const char *write_file(const char *name, const char *text)
{
    const char *path = testdir_write(dir, name, text);
    cr_assert(path, "cannot write %s/%s", dir, name);
    return path;
}

/* file under the test folder -> its text (malloc'd; NULL if it cannot be read) */
static char *slurp(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    const long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert(b);
    b[fread(b, 1, (size_t)n, fp)] = 0;
    fclose(fp);
    return b;
}

/* ranks -> the shell prefix that starts `bristle` on that many ranks (as root too; more ranks than
 * cores allowed) */
static const char *mpi_prefix(int ranks)
{
    static char p[1200];
    snprintf(p, sizeof p,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 '%s' -n %d",
             MPIEXEC, ranks);
    return p;
}

/* ranks (0: one process, no launcher), study file, output folder under the test folder -> the exit
 * status of `bristle study FILE --out OUT --threads 1 --quiet`; its stderr in err */
static int study(int ranks, const char *path, const char *out, char *err, size_t errlen)
{
    char args[4096];
    snprintf(args, sizeof args, "study '%s' --out '%s/%s' --threads 1 --quiet", path, dir, out);
    return testdir_run(dir, BRISTLE_EXE, ranks ? mpi_prefix(ranks) : "", args, err, errlen);
}

/* The oscillator of test_cli's stepped sine, 50 ms of it. */
static const char *OSC = "time: {end: 0.05, dt: 1.0e-5}\n" BR_TEST_OSCILLATOR_BODY;

/* The short S2 study (study_s2.h), with the plots of every variant's response (rank 0 draws them
 * from the gathered points). */
static const char *STUDY = BR_TEST_STUDY_S2_BODY "output: {plots: true}\n";
#endif

Test(mpi, study_on_any_rank_count_writes_the_one_process_files)
{
#ifndef MPIEXEC
    printf("SKIP test_mpi: Bristle was built without MPI (no MPI found, or -DBRISTLE_MPI=OFF)\n");
    cr_skip_test("built without MPI");
#else
    const char *path = write_file("small.yaml", STUDY);
    char err[8192];
    /* the one-process run, then 1, 2 and 3 ranks */
    cr_assert_eq(study(0, path, "p", err, sizeof err), 0, "stderr: %s", err);
    char *csv0 = slurp("p/study.csv");
    cr_assert(csv0, "the one-process run wrote no study.csv");
    for (int r = 1; r <= 3; r++) {
        char rel[64];
        snprintf(rel, sizeof rel, "r%d", r);
        const int st = study(r, path, rel, err, sizeof err);
        cr_assert_eq(st, 0, "%d ranks: exit %d, stderr: %s", r, st, err);
        snprintf(rel, sizeof rel, "r%d/study.csv", r);
        char *csv = slurp(rel);
        cr_assert(csv, "%d ranks: no study.csv", r);
        cr_expect_str_eq(csv, csv0, "%d ranks: study.csv differs from the one-process run's", r);
        free(csv);
        for (int v = 0; v < 5; v++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "p/variants/%05d/frf.csv", v);
            snprintf(b, sizeof b, "r%d/variants/%05d/frf.csv", r, v);
            char *x = slurp(a), *y = slurp(b);
            cr_assert(x && y, "%d ranks: variant %d: frf.csv missing", r, v);
            cr_expect_str_eq(x, y, "%d ranks: variant %d: frf.csv differs", r, v);
            free(x), free(y);
        }
        snprintf(rel, sizeof rel, "r%d/summary.json", r);
        char *sum = slurp(rel);
        char want[32];
        snprintf(want, sizeof want, "\"ranks\":\t%d", r);
        cr_expect(sum && strstr(sum, want), "%d ranks: summary.json lacks %s", r, want);
        free(sum);
        snprintf(rel, sizeof rel, "r%d/frf.png", r);
        char *png = slurp(rel);
        cr_expect(png != NULL, "%d ranks: %s not drawn", r, rel);
        free(png);
        printf("%d ranks: study.csv and 5 frf.csv bitwise those of one process\n", r);
    }
    free(csv0);
#endif
}

/* A variant that fails (a spring too stiff for the step: its energy overflows at t = 0.5 ms) on the
 * second rank: every rank exits with status 1, and rank 0's study.csv holds its row and error as the
 * one-process run's does. */
Test(mpi, failing_variant_on_another_rank_is_reported)
{
#ifndef MPIEXEC
    printf("SKIP test_mpi: Bristle was built without MPI (no MPI found, or -DBRISTLE_MPI=OFF)\n");
    cr_skip_test("built without MPI");
#else
    write_file("osc.yaml", OSC);
    const char *path = write_file("osc_study.yaml", "scenario: osc.yaml\n"
                                                    "grid: {springs.spring.stiffness: [1000, 1.0e14, 4000]}\n"
                                                    "analysis: {type: time_history, columns: [mass.x]}\n");
    char err[8192];
    cr_assert_eq(study(0, path, "p", err, sizeof err), 1, "stderr: %s", err);
    const int st = study(2, path, "r2", err, sizeof err);
    cr_expect_eq(st, 1, "2 ranks: exit %d, stderr: %s", st, err);
    cr_expect(strstr(err, "variant 2 failed at t = 0.0005 s") != NULL, "stderr: %s", err);
    char *a = slurp("p/study.csv"), *b = slurp("r2/study.csv");
    cr_assert(a && b, "study.csv missing");
    cr_expect(strstr(a, "failed") != NULL, "%s", a);
    cr_expect_str_eq(a, b, "2 ranks: study.csv differs from the one-process run's");
    printf("a variant failing on rank 1: exit 1 and the one-process study.csv, bitwise\n");
    free(a), free(b);
#endif
}

/* More ranks than variants (2 variants on 3 ranks: the last has none) and variants whose time steps
 * differ (a field each): study.csv and summary.json's contact_field as in one process. */
Test(mpi, more_ranks_than_variants_and_differing_time_steps)
{
#ifndef MPIEXEC
    printf("SKIP test_mpi: Bristle was built without MPI (no MPI found, or -DBRISTLE_MPI=OFF)\n");
    cr_skip_test("built without MPI");
#else
    write_file("osc.yaml", OSC);
    const char *path = write_file("dt_study.yaml", "scenario: osc.yaml\n"
                                                   "grid: {time.dt: [2.0e-5]}\n"
                                                   "analysis: {type: time_history, columns: [mass.x]}\n");
    char err[8192];
    cr_assert_eq(study(0, path, "p", err, sizeof err), 0, "stderr: %s", err);
    const int st = study(3, path, "r3", err, sizeof err);
    cr_assert_eq(st, 0, "3 ranks: exit %d, stderr: %s", st, err);
    char *a = slurp("p/study.csv"), *b = slurp("r3/study.csv"), *j = slurp("r3/summary.json");
    cr_assert(a && b && j, "an output is missing");
    cr_expect_str_eq(a, b, "3 ranks: study.csv differs from the one-process run's");
    cr_expect(strstr(j, "a field per variant (time steps differ)") != NULL, "%s", j);
    printf("2 variants with differing time steps on 3 ranks: the one-process study.csv, a field per variant\n");
    free(a), free(b), free(j);
#endif
}

/* Bad input in a variant on the last rank stops every rank before stepping: exit status 2, the
 * message with the study file's line, no output folder (not even the stage). */
Test(mpi, bad_variant_on_another_rank_stops_every_rank)
{
#ifndef MPIEXEC
    printf("SKIP test_mpi: Bristle was built without MPI (no MPI found, or -DBRISTLE_MPI=OFF)\n");
    cr_skip_test("built without MPI");
#else
    write_file("osc.yaml", OSC);
    const char *path = write_file("bad_study.yaml", "scenario: osc.yaml\n"
                                                    "grid: {springs.spring.stiffness: [1000, 2000, -5]}\n"
                                                    "analysis: {type: time_history, columns: [mass.x]}\n");
    char err[8192];
    const int st = study(2, path, "bad", err, sizeof err);
    cr_expect_eq(st, 2, "exit %d, stderr: %s", st, err);
    cr_expect(strstr(err, "bad_study.yaml:2: variant 3:") && strstr(err, "stiffness must be >= 0"), "stderr: %s", err);
    char *x = slurp("bad/study.csv"), *y = slurp("bad.part/summary.json");
    struct stat sb;
    char p[700], q[700];
    snprintf(p, sizeof p, "%s/bad.part", dir);
    snprintf(q, sizeof q, "%s/bad", dir);
    cr_expect(!x && !y && stat(p, &sb) != 0 && stat(q, &sb) != 0, "an output folder was left");
    printf("a bad variant on rank 1 of 2: exit 2, the study file's line, no folder left\n");
    free(x), free(y);
#endif
}
