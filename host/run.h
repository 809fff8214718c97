/* run.h: the `bristle run` command (design.md part A). */
#ifndef BR_RUN_H
#define BR_RUN_H

/* arguments after "run" -> exit status: 0 done, 1 the run failed, 2 bad input */
int br_run_main(int argc, char **argv);

#endif
