/* testdir.h: a fresh scratch folder per test process for the tests that run the bristle command
 * (test_cli, test_hostile): TEST_TMP/<prefix>-<pid>, made empty before and removed after. */
#ifndef BR_TESTDIR_H
#define BR_TESTDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
