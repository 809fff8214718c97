/* bench_copy.h: the host's copy bandwidth (in: array size, repetitions, threading; out: GB/s), the
 * limit `bristle bench field` and `bench structure` measure beside their rates. */
#ifndef BR_BENCH_COPY_H
#define BR_BENCH_COPY_H

#include <stddef.h>

/* bytes per array, reps, threaded -> the host's copy bandwidth in GB/s (read + write), or -1 */
double br_bench_cpu_copy(size_t bytes, int reps, int threaded);

#endif
