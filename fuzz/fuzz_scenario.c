/* fuzz_scenario.c: libFuzzer target for the scenario reader (br_scenario_parse).
 * Input: optional leading lines "#--set KEY=VALUE" (the --set overrides, at most 16), then the
 * YAML text. A model that parses is freed, never stepped. Run with scripts/fuzz.sh scenario. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"

enum { MAXSETS = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one NUL-terminated copy, as br_read_text hands the reader */
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    const char *sets[MAXSETS];
    int nsets = 0;
    char *text = buf;
    while (nsets < MAXSETS && (size_t)(text - buf) + 6 <= size && !strncmp(text, "#--set", 6)) {
        char *nl = memchr(text, '\n', size - (size_t)(text - buf));
        if (!nl) break;
        *nl = 0;
        sets[nsets++] = text + 6 + (text[6] == ' ');
        text = nl + 1;
    }
    char err[2048];
    br_model *m = br_scenario_parse("fuzz.yaml", text, size - (size_t)(text - buf), sets, nsets, err, sizeof err);
    br_model_free(m);
    free(buf);
    return 0;
}
