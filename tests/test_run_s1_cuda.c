/* test_run_s1_cuda.c: the four S1 cube runs on the CUDA backend match the CPU runs
 * (the s1_run_cube_XX fixtures) within 1e-9 relative, column by column, each column
 * relative to its largest magnitude over the run. Without a usable GPU it prints
 * "SKIP test_run_s1_cuda: <reason>" and ctest reports it skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "csvread.h"
#include "field.h"

int main(void)
{
    char why[256] = "";
    if (br_cuda_available(why, sizeof why) <= 0) {
        printf("SKIP test_run_s1_cuda: no usable GPU (%s)\n", why);
        return 0;
    }
    static const int angles[4] = {0, 30, 60, 90};
    int failures = 0;
    for (int a = 0; a < 4; a++) {
        char cmd[2048], path[1024];
        snprintf(cmd, sizeof cmd, "'%s' run '%s/scenarios/cube_%02d.yaml' --backend cuda --quiet --out '%s/cuda/cube_%02d'",
                 BRISTLE_EXE, SOURCE_DIR, angles[a], S1_DIR, angles[a]);
        const int st = system(cmd);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            printf("FAIL cube_%02d: the cuda run failed (%d)\n", angles[a], st);
            failures++;
            continue;
        }
        snprintf(path, sizeof path, "%s/cube_%02d/timeseries.csv", S1_DIR, angles[a]);
        csv_table *C = csv_read(path);
        snprintf(path, sizeof path, "%s/cuda/cube_%02d/timeseries.csv", S1_DIR, angles[a]);
        csv_table *G = csv_read(path);
        if (!C || !G || C->nrows != G->nrows || C->ncols != G->ncols) {
            printf("FAIL cube_%02d: missing CPU fixture output or different shapes (run through ctest)\n", angles[a]);
            failures++;
            csv_free(C), csv_free(G);
            continue;
        }
        double worst = 0;
        int worst_col = 0;
        for (int c = 0; c < C->ncols; c++) {
            double scale = 0, diff = 0;
            for (long r = 0; r < C->nrows; r++) {
                scale = fmax(scale, fabs(csv_at(C, r, c)));
                diff = fmax(diff, fabs(csv_at(C, r, c) - csv_at(G, r, c)));
            }
            const double rel = scale > 0 ? diff / scale : diff;
            if (rel > worst) worst = rel, worst_col = c;
        }
        printf("%s cube_%02d: cuda vs cpu, worst column %s differs by %.3g relative (tolerance 1e-9)\n",
               worst < 1e-9 ? "ok  " : "FAIL", angles[a], C->names[worst_col], worst);
        for (int c = 0; c < C->ncols; c++) { /* every column's figure, for the record */
            double scale = 0, diff = 0;
            for (long r = 0; r < C->nrows; r++) {
                scale = fmax(scale, fabs(csv_at(C, r, c)));
                diff = fmax(diff, fabs(csv_at(C, r, c) - csv_at(G, r, c)));
            }
            printf("    %-20s max |cpu| %.3e  max |cuda - cpu| %.3e\n", C->names[c], scale, diff);
        }
        fflush(stdout);
        failures += !(worst < 1e-9);
        csv_free(C), csv_free(G);
    }
    return failures ? 1 : 0;
}
