/* export.h: `bristle export-structure SCENARIO DIR` (host/cli/export.c). */
#ifndef BR_EXPORT_H
#define BR_EXPORT_H

/* arguments after "export-structure" -> files written; exit status (0, 1 failure, 2 bad input) */
int br_export_main(int argc, char **argv);

#endif
