/* run.h: the `bristle run` command (design.md part A). */
#ifndef BR_RUN_H
#define BR_RUN_H

/* exit status of a run that finished with its energy residual above time.energy_tolerance
 * (summary.json status "inaccurate"; docs/time-stepping.md) */
#define BR_EXIT_INACCURATE 3

/* arguments after "run" -> exit status: 0 done, 1 the run failed, 2 bad input, 3 inaccurate
 * (BR_EXIT_INACCURATE), 128 + signal interrupted */
int br_run_main(int argc, char **argv);

#endif
