/* fuzz_study.c: libFuzzer target for the study reader (br_study_check in host/analysis/study_read.c: the study
 * file, its base scenario, values and draws; nothing stepped). Input: the study file, written to
 * DIR/studies/fuzz.yaml in a temporary DIR whose scenarios/ and meshes/ link to the source tree's,
 * so the repository's studies (scenario: ../scenarios/...) seed it unchanged. Run with
 * scripts/fuzz.sh study. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/study.h"

static char dir[4096], file[4200];

/* the temporary tree, removed at exit */
static void cleanup(void)
{
    char p[4200];
    unlink(file);
    snprintf(p, sizeof p, "%s/scenarios", dir), unlink(p);
    snprintf(p, sizeof p, "%s/meshes", dir), unlink(p);
    snprintf(p, sizeof p, "%s/studies", dir), rmdir(p);
    rmdir(dir);
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fuzz_study_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char p[4200];
    if (!mkdtemp(dir)) abort();
    snprintf(p, sizeof p, "%s/studies", dir);
    if (mkdir(p, 0700)) abort();
    snprintf(p, sizeof p, "%s/scenarios", dir);
    if (symlink(SOURCE_DIR "/scenarios", p)) abort();
    snprintf(p, sizeof p, "%s/meshes", dir);
    if (symlink(SOURCE_DIR "/meshes", p)) abort();
    snprintf(file, sizeof file, "%s/studies/fuzz.yaml", dir);
    atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) setup();
    FILE *fp = fopen(file, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp)) abort(); /* the harness failed */
    char err[2048];
    br_study_check(file, err, sizeof err);
    return 0;
}
