/* meshgen.h: the `bristle mesh` command (flat annulus, disk and grid meshes). */
#ifndef BR_MESHGEN_H
#define BR_MESHGEN_H

/* arguments after "mesh" -> exit status (0, 1 write failure, 2 bad arguments) */
int br_meshgen_main(int argc, char **argv);

#endif
