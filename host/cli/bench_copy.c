/* bench_copy.c: the host's copy bandwidth, the memory limit the benchmarks print beside their rates. */
#include "cli/bench_copy.h"

#include <stdlib.h>

#include "base/outdir.h" /* br_wall_seconds */

/* bytes per array, reps, threaded -> host copy bandwidth in GB/s (read + write), or -1 (out of
 * memory); threaded as the field is (a field of one chunk runs on the calling thread, so does its
 * copy) */
double br_bench_cpu_copy(size_t bytes, int reps, int threaded)
{
    size_t n = bytes / sizeof(double);
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    if (!a || !b) {
        free(a);
        free(b);
        return -1.0;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)i;
        b[i] = 0.0;
    }
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        double t0 = br_wall_seconds();
#pragma omp parallel for schedule(static) if (threaded)
        for (size_t i = 0; i < n; i++) b[i] = a[i];
        double t = br_wall_seconds() - t0;
        if (t < best) best = t;
    }
    volatile double sink = b[n / 2];
    (void)sink;
    free(a);
    free(b);
    return 2.0 * (double)(n * sizeof(double)) / best / 1e9;
}
