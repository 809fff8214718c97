/* scenario.h: YAML scenario files -> br_model (the only code that parses text).
 * The format is documented in docs/scenario-format.md. Every error names the
 * file and line: "cube.yaml:12: mu_s (0.05) < mu_k (0.1)". */
#ifndef BR_SCENARIO_H
#define BR_SCENARIO_H

#include <stddef.h>
#include <yaml.h>

#include "base/yread.h" /* br_yaml_load */

#include "model/model.h"

/* path (for messages), text, --set overrides ("a.b.c=value") -> model, or NULL with
 * "file:line: message" in err */
br_model *br_scenario_parse(const char *path, const char *text, size_t len, const char *const *sets,
                            int nsets, char *err, size_t errlen);

/* path, overrides -> model read from the file, or NULL with "file:line: message" in err */
br_model *br_scenario_load(const char *path, const char *const *sets, int nsets, char *err,
                           size_t errlen);

/* path (for messages), text, key path as for --set ("beams.blade_L.E") -> the number there and its
 * line; 0, or -1 with "file:line: message" (no such key, a list or mapping, not a number) */
int br_scenario_number(const char *path, const char *text, size_t len, const char *key, double *value, long *line,
                       char *err, size_t errlen);

/* path (for messages), text, key path as for --set ("loads.drive.magnitude") -> the line of the node
 * there (a key, a mapping or a list), or 1 when the path is not in the file */
long br_scenario_line(const char *path, const char *text, size_t len, const char *key);

#endif
