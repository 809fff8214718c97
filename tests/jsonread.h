/* jsonread.h: summary.json of a test's run folder, parsed, for the run tests. */
#ifndef BR_TEST_JSONREAD_H
#define BR_TEST_JSONREAD_H

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>

/* folder dir/run -> its summary.json parsed (the caller frees it); the test fails when it is
 * missing or not JSON */
static inline cJSON *run_summary(const char *dir, const char *run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/summary.json", dir, run);
    FILE *fp = fopen(path, "r");
    cr_assert(fp, "cannot read %s", path);
    static char buf[1 << 16];
    buf[fread(buf, 1, sizeof buf - 1, fp)] = 0;
    fclose(fp);
    cJSON *j = cJSON_Parse(buf);
    cr_assert(j, "%s is not JSON", path);
    return j;
}

#endif
