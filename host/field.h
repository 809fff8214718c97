/* field.h: the backend-neutral contact field (physics.md sections 1-3, 6).
 *
 * A field owns contact sets; each set is a list of points on frame A, a plane
 * on frame B, a Hunt-Crossley normal law and a friction law. Every step the
 * caller passes the world pose and twist of every frame; the field advances
 * all points on the chosen backend and returns per-set wrenches and sums.
 * The step allocates nothing. */
#ifndef BR_FIELD_H
#define BR_FIELD_H

#include <stddef.h>

#include "../kernels/point_step.h"

typedef enum { BR_BACKEND_AUTO = 0, BR_BACKEND_CPU = 1, BR_BACKEND_CUDA = 2 } br_backend_kind;

/* World pose and twist of one frame (a body, a node attachment, the ground). */
typedef struct br_frame_state {
    double x[3];  /* origin */
    double R[9];  /* attitude, row-major, frame -> world */
    double v[3];  /* velocity of the origin */
    double w[3];  /* angular velocity */
} br_frame_state;

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
} br_contact_set_desc;

/* Per-set result of one step, world axes. */
typedef struct br_set_result {
    double F_A[3], M_A[3];   /* contact force on A and its moment about A's origin */
    double F_B[3], M_B[3];   /* the same on B, moment about B's origin */
    double Ff_A[3], Mf_A[3]; /* friction part of F_A, M_A */
    double N;                /* total normal force */
    double P;                /* friction power */
    double E;                /* running friction energy integral of P */
    double E_el;             /* elastic energy in the normal springs */
    double E_nd;             /* running integral of normal-damping power */
    double E_b;              /* energy stored in the bristles */
    long ncontact, nstick;
    double pen_max, vt_max;
} br_set_result;

typedef struct br_field br_field;

/* sets, backend -> new field (all states zero), or NULL with a message in err */
br_field *br_field_create(const br_contact_set_desc *sets, int nsets, br_backend_kind backend,
                          char *err, size_t errlen);

/* field -> memory freed */
void br_field_destroy(br_field *f);

/* frames (world pose and twist), h -> states advanced, res[nsets] filled; 0 or -1 with err */
int br_field_step(br_field *f, const br_frame_state *frames, double h, br_set_result *res,
                  char *err, size_t errlen);

/* set, N >= 0 -> from the next step on its points are held in contact with the normal force N
 * shared equally (no Hunt-Crossley); N < 0 -> back to Hunt-Crossley. 0, or -1 for a bad set or N */
int br_field_set_normal_force(br_field *f, int set, double N);

/* set, dE -> dE added to the set's running friction energy integral (a host integrator that
 * changes the friction force after the step, host/friction_implicit.h, books the difference) */
void br_field_add_friction_energy(br_field *f, int set, double dE);

/* on/off -> the step also stores per-point forces for br_field_points */
void br_field_record_points(br_field *f, int on);

/* set -> per-point friction force on A (3n, point-major) and normal force (n), from the last step */
int br_field_points(br_field *f, int set, double *F, double *N);

/* set -> copy of its state, nstate * n doubles, state k of point i at [k*n + i] */
int br_field_get_state(br_field *f, int set, double *state);

/* set, state -> the set's state replaced (same layout as br_field_get_state) */
int br_field_set_state(br_field *f, int set, const double *state);

/* field -> the backend actually used ("cpu" or "cuda") and a device description */
const char *br_field_backend_name(const br_field *f);
const char *br_field_device_name(const br_field *f);

/* field -> bytes of per-point memory (geometry, parameters, state) the backend holds */
size_t br_field_bytes(const br_field *f);

/* set description (its surface), poses and twists of A and B -> condensed per-set frame data */
void br_set_frame_build(const br_contact_set_desc *d, const br_frame_state *A, const br_frame_state *B,
                        br_set_frame *out);

/* number of CUDA devices usable by this binary (0 when built without CUDA or none present) */
int br_cuda_available(char *why, size_t whylen);

/* name like "lugre3d" -> enum br_law, or -1 */
int br_law_from_name(const char *name);
const char *br_law_name(int law);

#endif
