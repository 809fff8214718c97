/* bench.h: `bristle bench ...` throughput benchmarks. */
#ifndef BR_BENCH_H
#define BR_BENCH_H

#include <stddef.h>

/* argv after "bench" -> exit status (0 ok, 2 bad usage, 1 failure) */
int br_bench_main(int argc, char **argv);

/* argv after "bench structure" -> exit status (bench_structure.c) */
int br_bench_structure(int argc, char **argv);

/* bytes per array, reps, threaded -> the host's copy bandwidth in GB/s (read + write), or -1 */
double br_bench_cpu_copy(size_t bytes, int reps, int threaded);

#endif
