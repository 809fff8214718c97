/* bench_structure.h: `bristle bench structure` (in: its arguments; out: the structure step's rates
 * for batches of variants on CPU and GPU, beside the copy bandwidth; exit status). */
#ifndef BR_BENCH_STRUCTURE_H
#define BR_BENCH_STRUCTURE_H

/* argv after "bench structure" -> exit status (0 ok, 2 bad usage, 1 failure) */
int br_bench_structure(int argc, char **argv);

#endif
