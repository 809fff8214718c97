/* bench.h: `bristle bench ...` throughput benchmarks. */
#ifndef BR_BENCH_H
#define BR_BENCH_H

/* argv after "bench" -> exit status (0 ok, 2 bad usage, 1 failure) */
int br_bench_main(int argc, char **argv);

#endif
