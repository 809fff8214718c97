/* test_hostile.c: hostile inputs (issue 15). Every input class that once crashed, hung or misled
 * Bristle (the files in tests/hostile/, README there) ends now with a clear message and the
 * documented exit status: 2 for bad input (with file:line where a file is at fault), 1 for a run
 * that fails numerically. Each command runs under `timeout 60`, so a hang fails the test (exit 124)
 * instead of stalling the suite. Then killed runs: SIGKILL and SIGTERM in the middle of a run leave
 * no final-named output, and --resume ends with a time series equal, byte for byte, to an
 * uninterrupted run's. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testdir.h"

#define H SOURCE_DIR "/tests/hostile/"

static char dir[512];

static void setup(void) { cr_assert_eq(testdir_make(dir, sizeof dir, "hostile"), 0); }

static void teardown(void) { testdir_remove(dir); }

TestSuite(hostile, .init = setup, .fini = teardown);

/* shell prefix (ulimit ...) or "", arguments -> exit status of `bristle ARGS` under timeout 60; its
 * stderr in err */
static int bristle(const char *prefix, const char *args, char *err, size_t errlen)
{
    return testdir_run(dir, BRISTLE_EXE, prefix, args, err, errlen);
}

typedef struct hostile_case {
    const char *cls, *prefix, *args;
    int status;
    const char *message; /* a part of stderr */
} hostile_case;

static const hostile_case CASES[] = {
    {"1 alias cycle", "", "run " H "alias_cycle.yaml", 2, "alias_cycle.yaml:13: an alias refers to a node that contains it"},
    {"2 huge ring, 4 GB address space", "ulimit -v 4000000 &&", "run " H "ring_huge.yaml", 2,
     "ring_huge.yaml:14: the scenario (5e+08 contact points, 0 structure DOF) needs about"},
    {"2 --max-memory", "", "run " SOURCE_DIR "/scenarios/cube_00.yaml --max-memory 1k", 2, "cube_00.yaml:"},
    {"3 PLY short (binary)", "", "run " H "ply_short.yaml", 2, "ply_short.ply: the header promises"},
    {"3 PLY short (ASCII)", "", "run " H "ply_short_ascii.yaml", 2, "ply_short_ascii.ply: the header promises"},
    {"3 PLY first line 'ply ' (fuzz)", "", "run " H "fuzz-mesh-ply-magic-blank.yaml", 2,
     "fuzz-mesh-ply-magic-blank.ply: not a PLY file"},
    {"3 mesh of unknown extension", "", "run " H "mesh_unknown_ext.yaml", 2,
     "mesh_unknown_ext.dat: a mesh file is STL (.stl), PLY (.ply) or Wavefront OBJ (.obj)"},
    {"4 compare at t = 1e15", "", "compare " H "t1e15 " H "t1e15 --columns x --out cmp.png", 0, ""},
    {"5 energy overflow", "", "run " H "energy_overflow.yaml --out eo", 1, "the energy term work_in is not finite"},
    {"6 name with ..", "", "run " H "name_escape.yaml", 2, "name_escape.yaml:2: name '../../x' must be a file name"},
    {"7 --set unknown key", "", "run " H "name_escape.yaml --set name=ok --set bogus=1", 2,
     "unknown key 'bogus' in the scenario"},
    {"7 --set .", "", "run " H "name_escape.yaml --set .=1", 2, "a key path is names joined by single dots"},
    {"7 --set a..b", "", "run " H "name_escape.yaml --set time..end=1", 2, "a key path is names joined by single dots"},
    {"7 --set unknown nested key", "", "run " H "name_escape.yaml --set name=ok --set time.bogus=1", 2,
     "unknown key 'bogus' in time"},
    {"8 eig --at inf", "", "eig " SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml --at inf", 2, "--at needs a number"},
    {"8 bench --points 2abc", "", "bench field --points 2abc", 2, "--points needs a whole number"},
    {"8 mesh radius inf", "", "mesh disk --radius inf --n-radial 3 --n-around 8 --out m.ply", 2,
     "--radius needs a number"},
    {"8 mesh too many triangles", "", "mesh grid --size 1 1 --count 100000 100000 --out m.ply", 2, "at most 1e8"},
    {"8 output interval", "", "run " SOURCE_DIR "/scenarios/cube_00.yaml --set output.interval=1e300", 2,
     "more than 1e12 steps"},
    {"8 output interval 1e24 (fuzz)", "", "run " H "fuzz-scenario-interval-overflow.yaml", 2,
     "fuzz-scenario-interval-overflow.yaml:4: an output interval of more than 1e12 steps"},
    {"8 study random count not a number (fuzz)", "", "study " H "fuzz-study-count-overflow.yaml --threads 1", 2,
     "fuzz-study-count-overflow.yaml:7: count: '66666666666>6666666666666666666666666666666623' is not a finite number"},
    {"8 checkpoint-every nan", "", "run " H "name_escape.yaml --set name=ok --checkpoint-every nan", 2,
     "--checkpoint-every needs a number"},
    {"10 eig with two scenarios", "", "eig a.yaml b.yaml", 2, "one scenario at a time"},
    {"10 bench --threads -3", "", "bench field --threads -3", 2, "--threads needs a whole number"},
    {"10 deep nesting", "", "run " H "deep_nesting.yaml", 2, "deep_nesting.yaml:3: nested deeper than 64 levels"},
    {"10 sum of aliases, 2^30 terms", "", "run " H "sum_alias_bomb.yaml", 2,
     "sum_alias_bomb.yaml:5: a term of sum: time functions too large"},
    {"10 sigma 1e-300", "", "run " SOURCE_DIR "/scenarios/cube_00.yaml --set contacts.base.normal.sigma=1e-300", 2,
     "is not a positive finite number"},
    {"11 output.format xml", "", "run " SOURCE_DIR "/scenarios/cube_00.yaml --set output.format=xml", 2,
     "cube_00.yaml:9: format must be csv or hdf5 (got 'xml')"},
    {"11 1e9 field snapshots", "", "run " H "fields_too_many.yaml", 2,
     "fields_too_many.yaml:6: fields: 1000000001 snapshots, at most 100000"},
    {"11 study --set without =", "", "study " SOURCE_DIR "/studies/preload_lugre.yaml --set time.dt", 2,
     "--set takes KEY=VALUE"},
#ifdef BRISTLE_HAVE_HDF5
    {"11 hdf5 with checkpoints", "",
     "run " SOURCE_DIR "/scenarios/cube_00.yaml --set output.format=hdf5 --checkpoint-every 0.001 --out h5ck", 2,
     "checkpoints need output.format: csv"},
#endif
};

Test(hostile, every_class_gets_a_clear_message_and_its_exit_status)
{
    char err[8192];
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        const hostile_case *c = &CASES[k];
        const int st = bristle(c->prefix, c->args, err, sizeof err);
        printf("class %-32s exit %d: %.200s", c->cls, st, err[0] ? err : "(no message)\n");
        cr_expect_eq(st, c->status, "class %s: exit %d, expected %d; stderr: %s", c->cls, st, c->status, err);
        cr_expect(strstr(err, c->message) != NULL, "class %s: expected '%s' in: %s", c->cls, c->message, err);
    }
}

/* folder, name -> 1 if the file exists */
static int exists(const char *rel)
{
    char path[1200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &sb) == 0;
}

/* arguments -> the pid of `bristle run ARGS` started in the test folder (stdout and stderr to files) */
static pid_t start(const char *args)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' run %s --quiet > bg.out 2> bg.err", dir, BRISTLE_EXE, args);
    const pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* two files under the test folder -> 1 if their bytes are equal */
static int same_bytes(const char *a, const char *b)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cd '%s' && cmp -s '%s' '%s'", dir, a, b);
    return system(cmd) == 0;
}

#define S2 SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml --set time.end=3 --backend cpu"

/* signal, delay -> a run killed after the delay, then resumed; the time series equals the
 * uninterrupted run's byte for byte, and the summary's physics equal */
static void kill_and_resume(int sig, double delay)
{
    char err[8192];
    cr_assert_eq(bristle("", "run " S2 " --out full --quiet", err, sizeof err), 0, "%s", err);
    const pid_t pid = start(S2 " --out cut --checkpoint-every 0.25");
    struct timespec ts = {(time_t)delay, (long)((delay - (time_t)delay) * 1e9)};
    nanosleep(&ts, NULL);
    kill(pid, sig);
    int st;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        printf("the run ended before the signal: the machine is faster than the test assumes\n");
        cr_skip_test("the run ended in less than %g s", delay);
    }
    if (sig == SIGKILL) cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    else cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "exit status %d", st);
    /* nothing final-named: the output is the stage cut.part, never cut/ */
    cr_expect(!exists("cut"), "a killed run left a final output folder");
    cr_expect(!exists("cut.part/timeseries.csv"), "a killed run left a final-named time series");
    cr_expect(exists("cut.part/timeseries.csv.part"));
    cr_assert(exists("cut.part/checkpoint.bin"), "no checkpoint after %g s (one every 0.25 s of 3 s)", delay);
    /* SIGKILL cannot be caught: when it lands while a checkpoint is being written, that one stays
     * behind as checkpoint.bin.tmp, and checkpoint.bin is the one before (renamed into place whole).
     * SIGTERM lets the run finish its checkpoint. */
    const int cut_write = exists("cut.part/checkpoint.bin.tmp");
    if (sig != SIGKILL) cr_expect(!cut_write, "a checkpoint was left half-written");
    if (cut_write) printf("the SIGKILL landed inside a checkpoint's write\n");
    if (sig == SIGKILL && !cut_write) { /* as if it had: half a checkpoint beside the whole one */
        char tmpf[1200];
        snprintf(tmpf, sizeof tmpf, "%s/cut.part/checkpoint.bin.tmp", dir);
        FILE *fp = fopen(tmpf, "wb");
        cr_assert(fp);
        fputs("BRISTLE-CKPT half", fp);
        fclose(fp);
    }
    if (sig == SIGTERM) {
        FILE *fp = fopen(strcat(strcpy((char[1200]){0}, dir), "/cut.part/summary.json"), "r");
        cr_assert(fp, "no summary.json after SIGTERM");
        char buf[8192];
        buf[fread(buf, 1, sizeof buf - 1, fp)] = 0;
        fclose(fp);
        cr_expect(strstr(buf, "\"status\":\t\"interrupted\""), "%s", buf);
    }
    /* resuming another scenario (other --set values) is refused */
    cr_expect_eq(bristle("", "run " S2 " --set time.dt=2e-5 --resume cut --quiet", err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "written by another scenario"), "%s", err);
    cr_assert_eq(bristle("", "run " S2 " --resume cut --quiet", err, sizeof err), 0, "%s", err);
    cr_expect(!exists("cut.part"), "the stage should have become cut/");
    cr_expect(!exists("cut/checkpoint.bin"), "a complete run keeps no checkpoint");
    cr_expect(!exists("cut/checkpoint.bin.tmp"), "a complete run keeps no cut-off checkpoint");
    cr_expect(same_bytes("full/timeseries.csv", "cut/timeseries.csv"), "the resumed time series differs");
    char cmd[2400];
    /* summary.json: every line but the wall times and rates */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for r in full cut; do grep -v -e wall -e per_second -e contact_field -e host_dynamics "
             "-e '\"output\"' -e '\"other\"' $r/summary.json > $r.sum; done && cmp -s full.sum cut.sum",
             dir);
    cr_expect_eq(system(cmd), 0, "the summaries differ beyond their timings");
}

Test(hostile, sigkill_then_resume_gives_the_uninterrupted_output, .timeout = 300) { kill_and_resume(SIGKILL, 1.5); }

Test(hostile, sigterm_writes_a_checkpoint_and_resume_gives_the_uninterrupted_output, .timeout = 300)
{
    kill_and_resume(SIGTERM, 1.5);
}
