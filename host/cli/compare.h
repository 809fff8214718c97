/* compare.h: `bristle compare RUN_DIR...` (host/cli/compare.c). */
#ifndef BR_COMPARE_H
#define BR_COMPARE_H

/* arguments after "compare" -> PNG written; exit status (0, 1 failure, 2 bad usage) */
int br_compare_main(int argc, char **argv);

#endif
