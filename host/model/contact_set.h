/* contact_set.h: what a contact set is, as the model holds it and the field takes it (in: the reader's
 * values; out: the backend kind and the set description br_field_create copies). Model layer: the
 * field and the model both include it. */
#ifndef BR_CONTACT_SET_H
#define BR_CONTACT_SET_H

#include "kernels/point_step.h"

typedef enum { BR_BACKEND_AUTO = 0, BR_BACKEND_CPU = 1, BR_BACKEND_CUDA = 2 } br_backend_kind;

/* Description of one contact set (copied by br_field_create). */
typedef struct br_contact_set_desc {
    const char *name;
    int frame_a;             /* frame carrying the points */
    int frame_b;             /* frame carrying the counter surface */
    int surface;             /* BR_SURF_PLANE (0, default), BR_SURF_SPHERE, BR_SURF_CYLINDER */
    double plane_p[3];       /* plane: a point of it; sphere: centre; cylinder: a point of the axis (frame B) */
    double plane_n[3];       /* plane: unit normal out of B toward A; cylinder: unit axis (frame B axes) */
    double radius;           /* sphere, cylinder */
    long npoints;
    const double *r;         /* 3 * npoints, point-major (x0 y0 z0 x1 ...), frame A */
    const double *K, *D;     /* per-point Hunt-Crossley K, D (NULL: K0, D0 for all) */
    double K0, D0;
    br_normal_params normal;
    int law;                 /* enum br_law */
    br_friction_params fric;
    double v_stick;          /* stick threshold for the nstick count [m/s] */
    int tangent;             /* 1: every step also returns the wrench tangent (br_set_result.tan) */
    int iface;               /* 1: a deforming interface (physics.md 5.1): each point takes its relative
                              * displacement and velocity from the caller (br_field_iface) instead of from
                              * frames (frame_a = frame_b = 0, r the points' positions), and gives back its
                              * force and slopes (BR_IFACE_*); no wrench tangent */
    const double *iR;        /* iface: 9 per point, point-major: its frame's rows t1, t2, n (world axes) */
} br_contact_set_desc;

#endif
