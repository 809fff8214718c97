/* study.h: `bristle study STUDY.yaml`: many variants of one scenario in one process (parameter
 * grids, Monte-Carlo draws), each analysed as a time history, a frequency sweep or a stepped sine,
 * with one table row per variant (study.csv), summary.json, per-variant frequency responses and
 * plots. The study file format and the analyses are documented in docs/studies.md. */
#ifndef BR_STUDY_H
#define BR_STUDY_H

#include <stddef.h>

/* argc, argv after "study" -> exit status: 0 every variant complete, 1 a variant failed or an
 * output could not be written, 2 bad input (nothing stepped) */
int br_study_main(int argc, char **argv);

/* study file -> 0 if it reads (as `bristle study` reads it before stepping), or -1 with "file:line: message" in err */
int br_study_check(const char *path, char *err, size_t errlen);

#endif
