/* patch.h: a synthetic contact patch for benchmarks and tests: n points at
 * random on a disk of radius 0.05 m centred at (0.1, 0.05) in frame A, each
 * with its own tributary area (so per-point K and D), pressed about 1 um into
 * the ground plane z = 0 with a slight tilt, sliding in a direction that
 * turns, through zero speed, while spinning slowly: every point sees stick,
 * Stribeck slip, varying normal force and a turning sliding direction. */
#ifndef BR_PATCH_H
#define BR_PATCH_H

#include "field/field.h"

typedef struct br_patch {
    long n;
    double *r, *K, *D;
    br_contact_set_desc desc; /* frame_a = 1 (patch), frame_b = 0 (ground) */
} br_patch;

/* n, law, seed -> patch with S1-like parameters for the law; 0 or -1 (out of memory) */
int br_patch_make(br_patch *p, long n, int law, unsigned long seed);

/* patch, t -> frames[0] (ground, at rest) and frames[1] (the patch carrier) at time t */
void br_patch_frames(double t, br_frame_state frames[2]);

void br_patch_free(br_patch *p);

#endif
