/* field_snap.h: one meshed contact set's per-point snapshot (in: gathered by host/io/fields.c from the
 * field's recorded points; out: written as VTK by fields.c or into run.h5 by host/io/h5out.c). */
#ifndef BR_FIELD_SNAP_H
#define BR_FIELD_SNAP_H

#include "kernels/set_result.h"

/* one meshed set at one time, per contact point (n) and, for sampling: spacing, per corner of the
 * sub-triangles (nv) */
typedef struct br_field_snap {
    long n, nv;
    double *x;     /* 3 n world positions */
    double *F;     /* 3 n friction force on A, then n normal forces */
    double *vt;    /* n sliding speeds (0 out of contact) */
    double *z;     /* 3 n bristle deflections (0 for stateless laws) */
    double *stick; /* n: 1 where the point sticks, else 0 */
    double *xv;    /* 3 nv world positions of the sub-triangles' corners (NULL for sampling: vertices) */
    double nrm[3]; /* the surface normal (plane) or axis */
    double t;      /* the snapshot's time */
    br_set_result res; /* the set's totals as the field reduced them */
} br_field_snap;

typedef struct br_h5 br_h5;

#endif
