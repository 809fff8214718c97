/* main.c: the `bristle` command line: dispatches to run, study, compare, eig, export-structure, hbm, mesh, bench, info. */
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "cli/compare.h"
#include "cli/export.h"
#include "field/field.h"
#include "analysis/eig.h"
#include "analysis/hbm.h"
#include "cli/meshgen.h"
#include "cli/run.h"
#include "analysis/study.h"

static int usage(FILE *o)
{
    fprintf(o,
            "usage: bristle <command> [options]\n"
            "  run [SCENARIO]    run a scenario (none: the built-in S1 cube demo); bristle run --help\n"
            "  study STUDY.yaml  many variants of a scenario in one run; bristle study --help\n"
            "  compare DIR...    overlay the same columns of several runs in one PNG\n"
            "  eig SCENARIO      natural frequencies of the structure (Hz); bristle eig --help\n"
            "  export-structure SCENARIO DIR\n"
            "                    the beams as a structure given as matrices (.mtx, nodes.csv, scenario.yaml)\n"
            "  hbm SCENARIO      forced response by harmonic balance; bristle hbm --help\n"
            "  mesh KIND ...     write an annulus, disk or grid mesh; bristle mesh --help\n"
            "  bench field ...   contact-field throughput (bristle bench field --help)\n"
            "  info              version, build options, detected GPUs\n");
    return o == stderr ? 2 : 0;
}

/* -> version, build options and GPUs on stdout */
static int cmd_info(void)
{
    char why[256] = "";
    int n = br_cuda_available(why, sizeof why);
    printf("bristle %s (%s)\n", BRISTLE_VERSION, BRISTLE_BUILD_TYPE);
#ifdef BRISTLE_HAVE_CUDA
    printf("cuda backend: compiled\n");
#else
    printf("cuda backend: not compiled\n");
#endif
    if (n > 0) printf("gpus: %d\n", n);
    else printf("gpus: none (%s)\n", why);
    printf("friction laws:");
    for (int k = 0; k < BR_LAW_COUNT; k++) printf(" %s", br_law_name(k));
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "info")) return cmd_info();
    if (!strcmp(cmd, "run")) return br_run_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "study")) return br_study_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "compare")) return br_compare_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "eig")) return br_eig_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "export-structure")) return br_export_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "hbm")) return br_hbm_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "mesh")) return br_meshgen_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return br_bench_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) return usage(stdout);
    fprintf(stderr, "bristle: unknown command '%s'\n", cmd);
    return usage(stderr);
}
