/* test_run_s1_cuda.c: the four S1 cube runs on the CUDA backend match the CPU runs (the
 * s1_run_cube_XX fixtures). The contract (docs/gpu.md): each column within 1e-8 of the physical
 * scale of its quantity, taken from the CPU run (positions: the largest |x|; velocities: the
 * largest speed; forces: the largest force; moments: that force times the contact radius; angular
 * velocities: the speed over that radius; power: force times speed; energies: the largest energy),
 * and the contact counts equal. Not each column against its own size: columns that are zero by
 * symmetry hold rounding noise (1e-18 m) on both backends, which differ there by their whole size.
 * Not bitwise: the GPU's exp and pow and its summation order round differently from the CPU's, and
 * the 4e5 steps carry those differences (measured on an H100: 4.9e-10 of the force scale at worst,
 * in the normal force, a difference of 1e-17 m in a 1.7e-7 m penetration).
 * Without a usable GPU it prints "SKIP test_run_s1_cuda: <reason>" and ctest reports it skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/csvread.h"
#include "field/field.h"

/* the contact ring's radius in scenarios/cube_XX.yaml [m]: the lever of the moments */
static const double kLever = 0.05;

enum { G_EXACT, G_POS, G_VEL, G_ANG, G_FORCE, G_MOMENT, G_POWER, G_ENERGY, G_COUNT };

/* a column name of the S1 timeseries -> its quantity group (-1: unknown) */
static int column_group(const char *name)
{
    static const struct { const char *name; int group; } cols[] = {
        {"t", G_EXACT}, {"base.ncontact", G_EXACT}, {"base.nstick", G_EXACT},
        {"cube.x", G_POS}, {"cube.y", G_POS}, {"cube.z", G_POS}, {"base.pen_max", G_POS},
        {"cube.vx", G_VEL}, {"cube.vy", G_VEL}, {"cube.vz", G_VEL}, {"base.vt_max", G_VEL},
        {"base.Vx", G_VEL}, {"base.Vy", G_VEL}, {"base.Vz", G_VEL},
        {"cube.wx", G_ANG}, {"cube.wy", G_ANG}, {"cube.wz", G_ANG},
        {"base.Fx", G_FORCE}, {"base.Fy", G_FORCE}, {"base.Fz", G_FORCE}, {"base.Ft", G_FORCE},
        {"base.N", G_FORCE}, {"press.F", G_FORCE}, {"pull.F", G_FORCE},
        {"base.Mx", G_MOMENT}, {"base.My", G_MOMENT}, {"base.Mz", G_MOMENT},
        {"base.P", G_POWER}, {"base.E", G_ENERGY}, {"energy.input", G_ENERGY}, {"energy.kinetic", G_ENERGY},
        {"energy.stored", G_ENERGY}, {"energy.dissipated", G_ENERGY}, {"energy.residual", G_ENERGY},
    };
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        if (!strcmp(name, cols[k].name)) return cols[k].group;
    return -1;
}

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
        /* the scale of each group from the CPU run, then every column against its group's */
        double gmax[G_COUNT] = {0};
        int bad = 0;
        for (int c = 0; c < C->ncols; c++) {
            const int g = column_group(C->names[c]);
            if (g < 0) {
                printf("FAIL cube_%02d: column %s has no physical scale in this test\n", angles[a], C->names[c]);
                bad = 1;
                continue;
            }
            for (long r = 0; r < C->nrows; r++) gmax[g] = fmax(gmax[g], fabs(csv_at(C, r, c)));
        }
        double scale[G_COUNT] = {0};
        scale[G_POS] = gmax[G_POS], scale[G_VEL] = gmax[G_VEL], scale[G_FORCE] = gmax[G_FORCE];
        scale[G_ENERGY] = gmax[G_ENERGY];
        scale[G_ANG] = gmax[G_VEL] / kLever, scale[G_MOMENT] = gmax[G_FORCE] * kLever;
        scale[G_POWER] = gmax[G_FORCE] * gmax[G_VEL];
        double worst = 0;
        int worst_col = 0;
        for (int c = 0; c < C->ncols; c++) {
            const int g = column_group(C->names[c]);
            if (g < 0) continue;
            double diff = 0;
            for (long r = 0; r < C->nrows; r++) diff = fmax(diff, fabs(csv_at(C, r, c) - csv_at(G, r, c)));
            const double rel = g == G_EXACT ? (diff > 0 ? INFINITY : 0) : diff / scale[g];
            printf("    %-20s scale %.3e  max |cuda - cpu| %.3e  (%.2g of the scale)\n", C->names[c],
                   g == G_EXACT ? 0.0 : scale[g], diff, rel);
            if (!(rel <= worst)) worst = rel, worst_col = c; /* a NaN counts as worst */
        }
        const int ok = !bad && worst < 1e-8;
        printf("%s cube_%02d: cuda vs cpu, worst column %s: %.3g of its physical scale (tolerance 1e-8)\n",
               ok ? "ok  " : "FAIL", angles[a], C->names[worst_col], worst);
        fflush(stdout);
        failures += !ok;
        csv_free(C), csv_free(G);
    }
    return failures ? 1 : 0;
}
