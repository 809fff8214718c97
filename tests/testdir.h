/* testdir.h: a fresh scratch folder per test process for the tests that run the bristle command
 * (test_cli, test_hostile, test_failalloc): TEST_TMP/<prefix>-<pid>, made empty before and removed
 * after, and the command run in it. */
#ifndef BR_TESTDIR_H
#define BR_TESTDIR_H

#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

/* folder, command, shell prefix ("", "ulimit -v N &&" or "VAR=value"), arguments -> the exit status
 * of `timeout 300 EXE ARGS` run in dir (-1: not a normal exit of the shell); its stderr in err (dir's
 * stderr.txt; stdout in stdout.txt). The timeout guards against a hang, it times nothing: 60 s ended
 * test_cli's stepped sine study under the sanitizers on a loaded 2-core VM (the same run took 8 s to 17 s
 * in the plain build) */
static inline int testdir_run(const char *dir, const char *exe, const char *prefix, const char *args, char *err,
                              size_t errlen)
{
    char cmd[8192], ep[700];
    snprintf(ep, sizeof ep, "%s/stderr.txt", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s timeout 300 '%s' %s > stdout.txt 2> '%s'", dir, prefix, exe, args, ep);
    const int st = system(cmd);
    FILE *fp = fopen(ep, "r");
    size_t n = fp ? fread(err, 1, errlen - 1, fp) : 0;
    err[n] = 0;
    if (fp) fclose(fp);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* folder, file name, text -> the file written there; its path (static buffer), or NULL if it
 * could not be written */
static inline const char *testdir_write(const char *dir, const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (!fp) return NULL;
    const int bad = fputs(text, fp) < 0;
    return (fclose(fp) != 0 || bad) ? NULL : path;
}

/* prefix -> dir = TEST_TMP/prefix-pid, removed and made again; 0, or the shell's status */
static inline int testdir_make(char *dir, size_t len, const char *prefix)
{
    snprintf(dir, len, "%s/%s-%d", TEST_TMP, prefix, (int)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    return system(cmd);
}

/* dir -> removed (a message if it could not be) */
static inline void testdir_remove(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
}

#endif
