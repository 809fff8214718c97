/* outdir.c: the wall clock; output folders made, staged (DIR.part), published and removed. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "base/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double br_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int br_mkdir_p(const char *path)
{
    char buf[1400];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    return (mkdir(buf, 0777) && errno != EEXIST) ? -1 : 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

int br_rm_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb)) return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* folder -> 1 if it is missing, empty, or holds a Bristle marker (.bristle, or a summary.json of a
 * run made before the marker existed); 0 if it holds anything else (a user's folder) */
static int ours_or_empty(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return errno == ENOENT;
    int empty = 1, marked = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        empty = 0;
        marked |= !strcmp(e->d_name, ".bristle") || !strcmp(e->d_name, "summary.json");
    }
    closedir(dp);
    return empty || marked;
}

int br_stage_begin(const char *dir, int resume, char *stage, size_t len, char *err, size_t errlen)
{
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        snprintf(err, errlen, "the output folder '%s' must end in a name of its own", dir);
        return -1;
    }
    snprintf(stage, len, "%s.part", dir);
    if (!ours_or_empty(dir)) {
        snprintf(err, errlen, "%s exists and holds files that are not a Bristle run's; give another --out", dir);
        return -1;
    }
    if (!ours_or_empty(stage)) {
        snprintf(err, errlen, "%s exists and holds files that are not a Bristle run's", stage);
        return -1;
    }
    if (resume) return 0;
    if (br_rm_tree(stage) || br_mkdir_p(stage)) {
        snprintf(err, errlen, "cannot create %s: %s", stage, strerror(errno));
        return -1;
    }
    char mark[1400];
    snprintf(mark, sizeof mark, "%s/.bristle", stage);
    FILE *fp = fopen(mark, "w");
    if (!fp || fputs("a Bristle output folder: bristle run and bristle study replace it as a whole\n", fp) < 0 ||
        fclose(fp)) {
        snprintf(err, errlen, "cannot write %s: %s", mark, strerror(errno));
        return -1;
    }
    return 0;
}

int br_stage_publish(const char *stage, const char *dir, char *err, size_t errlen)
{
    char old[1400];
    snprintf(old, sizeof old, "%s.old-%ld", dir, (long)getpid());
    struct stat sb;
    const int had = stat(dir, &sb) == 0;
    if (had && rename(dir, old)) {
        snprintf(err, errlen, "cannot move the earlier %s aside: %s", dir, strerror(errno));
        return -1;
    }
    if (rename(stage, dir)) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", stage, dir, strerror(errno));
        if (had) rename(old, dir);
        return -1;
    }
    if (had && br_rm_tree(old)) {
        snprintf(err, errlen, "cannot remove the earlier run's %s: %s", old, strerror(errno));
        return -1;
    }
    return 0;
}
