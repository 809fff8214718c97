/* model.h: the read-only model of a scenario and the mutable data of a run,
 * split as in MuJoCo's mjModel / mjData. host/io/scenario.c builds a model from a
 * YAML file; nothing else parses text. host/step/sim.c advances the data.
 *
 * Frames are numbered: 0 is the ground, 1..nbody the rigid bodies (frame
 * origin at the centre of mass, axes the body axes), then the kinematic
 * frames with prescribed motion. Contact sets, loads and springs refer to
 * frames by this number. */
#ifndef BR_MODEL_H
#define BR_MODEL_H

#include <stddef.h>

#include "model/drivetrain.h"
#include "model/contact_set.h"
#include "model/joint_friction.h"
#include "model/timefn.h"

#define BR_NAME_MAX 64

/* time.coupling (docs/time-stepping.md): implicit takes every contact force at the state the step
 * solves for, linearized with the field's tangents; explicit takes it as the field computed it */
enum { BR_COUPLING_IMPLICIT = 0, BR_COUPLING_EXPLICIT = 1 };

enum { BR_LOCK_X = 1, BR_LOCK_Y = 2, BR_LOCK_Z = 4, BR_LOCK_RX = 8, BR_LOCK_RY = 16, BR_LOCK_RZ = 32 };

/* A 6-DOF rigid body; locked DOFs (world axes) keep their initial velocity. A body
 * attached to a structure's node (part >= 0) has no DOFs of its own: its mass and inertia
 * join the node's, and it moves with the node (small rotations), its centre of mass
 * at the node plus offset. */
typedef struct br_body {
    char name[BR_NAME_MAX];
    double mass;
    double Ib[9];          /* inertia about the centre of mass, body axes, row-major */
    double x0[3], q0[4];   /* initial centre of mass (world) and attitude (w, x, y, z) */
    double v0[3], w0[3];   /* initial velocity and angular velocity (world) */
    int lock;              /* BR_LOCK_* bits */
    int part, node;        /* attachment: the structure's part (beams 0 .. nbeam - 1, then the structures
                            * given as matrices), the node's index in it; part = -1: a free body */
    double offset[3];      /* centre of mass minus node position, world axes at t = 0 */
} br_body;

/* A 3D Euler-Bernoulli beam: straight elements between consecutive nodes,
 * rectangular section b x t (b along `width`), isotropic material, Rayleigh
 * damping C = a M + b K of the beam's own matrices, small displacements. */
typedef struct br_beam {
    char name[BR_NAME_MAX];
    int nnode;
    double *X;             /* 3 * nnode undeformed node positions (world) */
    int *fix;              /* per node: BR_LOCK_* bits of DOFs held at zero (clamp: all 63) */
    double E, nu, rho, b, t;
    double width[3];       /* unit vector along the section side b, normal to the elements */
    double ray_a, ray_b;
    int line;              /* line of its entry in the scenario file (messages) */
} br_beam;

/* A structure given as matrices (a superelement, physics.md 5.1; docs/structures.md): mass, damping
 * and stiffness over its n coordinates (its nodes' DOFs and, for a Craig-Bampton model, modal
 * coordinates), and a node table: each node's label, position and the rows of its DOFs. A node without
 * rotation DOFs moves without turning (a body attached there takes its translations). */
typedef struct br_superel {
    char name[BR_NAME_MAX];
    int n;                 /* coordinates */
    double *M, *C, *K;     /* n x n, column-major, symmetric (C: given, Rayleigh or modal, made at read) */
    int nnode;
    char (*label)[64];     /* per node */
    double *X;             /* 3 nnode positions (world) */
    int *row;              /* 6 nnode: row of (ux, uy, uz, rx, ry, rz) in M, C, K; -1 none */
    int line;              /* line of its entry in the scenario file (messages) */
    char mat[1024];        /* the MATLAB file its matrices came from ("" for .mtx files): loads' vectors */
    int nout;              /* `outputs:` time-series columns STRUCTURE.LABEL.x|y|z|rx|ry|rz: per column */
    int *out_node, *out_j; /*   its node and DOF (0..5: ux, uy, uz, rx, ry, rz) */
} br_superel;

/* A frame with prescribed motion: x(t) = x0 + v t + d(t), spinning at a constant
 * angular velocity w about its origin (R(t) = exp(t [w x]) R0). */
typedef struct br_kframe {
    char name[BR_NAME_MAX];
    double x0[3], q0[4];
    double v[3];           /* constant velocity */
    double w[3];           /* constant angular velocity (world axes) */
    br_timefn disp[3];     /* added displacement per world axis (constant 0 when absent) */
} br_kframe;

enum { BR_LOAD_FORCE = 0, BR_LOAD_TORQUE = 1, BR_LOAD_VECTOR = 2 };

/* A force or torque of magnitude fn(t) along a fixed direction. */
typedef struct br_load {
    char name[BR_NAME_MAX];
    int type;              /* BR_LOAD_FORCE, BR_LOAD_TORQUE or BR_LOAD_VECTOR */
    int frame;             /* a body frame (BR_LOAD_VECTOR: 0) */
    double point[3];       /* force: point of application, body coordinates about the CoM */
    double dir[3];         /* unit direction */
    int body_axes;         /* 1: dir in body axes (turns with the body), 0: world axes */
    br_timefn mag;
    int part;              /* BR_LOAD_VECTOR: the structure given as matrices it acts on (its part) ... */
    double *vec;           /* ... and its generalized force per unit magnitude, over that structure's rows */
} br_load;

/* A linear spring-damper between a point of frame a and a point of frame b.
 * rest == 0: a vector spring F = k d + c ddot (d = pb - pa); rest > 0: an axial
 * spring F = (k (|d| - rest) + c (ddot . e)) e with e = d / |d|.
 * rope: the axial spring in tension only: F = max(0, k (|d| - rest) + c (ddot . e)) e while
 * |d| > rest, else 0 (slack).
 * torsion: a torsion spring about a world axis, T = k theta + c thetadot with theta the
 * rotation of b relative to a about the axis since t = 0 (torque -T axis on b, +T axis on a). */
typedef struct br_spring {
    char name[BR_NAME_MAX];
    int frame_a, frame_b;
    double pa[3], pb[3];   /* frame coordinates (ground: world) */
    double k, c, rest;
    int torsion;
    int rope;              /* axial, tension only */
    double axis[3];        /* torsion: unit axis, world */
} br_spring;

/* A contact set: the field's description plus the names and arrays it points to. */
typedef struct br_cset {
    char name[BR_NAME_MAX];
    br_contact_set_desc desc; /* desc.name, desc.r, desc.K, desc.D point into this struct */
    double *r, *K, *D, *area; /* per point: frame-A position (3n), K, D, tributary area */
    int meshed;               /* points sampled from a mesh */
    double mesh_normal[3];    /* its area-weighted outward normal, frame A */
    /* the meshed surface for the field snapshots: surf_cells 0: triangles over the points themselves
     * (sampling: vertices; surf_v NULL); 1: the sub-triangles around the points (sampling: spacing),
     * triangle i around point i, over nsurf_v vertices surf_v (3 each, frame A) */
    int surf_cells;
    long nsurf_v, nsurf_t;
    double *surf_v;
    long *surf_t;             /* 3 nsurf_t vertex indices, counter-clockwise seen from the normal */
    int prescribed;           /* normal law `prescribed`: total normal force normal_force(t), */
    br_timefn normal_force;   /* shared equally by the points, which stay in contact */
    /* a deforming interface (physics.md 5.1, desc.iface): its points between two nodes of a structure
     * given as matrices, or a node and the ground; per point its frame's rows t1, t2, n (iR, 9, world),
     * its relative displacement at q = 0 (g0, 3: (0, 0, gap) in its frame), and the rows of u_i = g0_i +
     * L_i q over the part's coordinates: L in CSR over the 3 npoints rows (Lp 3 np + 1, Lj, Lx) */
    int ipart;
    int *inode;               /* per point: node a's index in its structure */
    double *iR, *g0;
    long *Lp;
    int *Lj;
    double *Lx;
} br_cset;

enum { BR_FORMAT_CSV = 0, BR_FORMAT_HDF5 = 1 };
#define BR_MAX_FIELD_TIMES 100000

typedef struct br_model {
    char name[BR_NAME_MAX];   /* scenario name (file name without .yaml) */
    char source[512];         /* scenario file path, for messages */
    double t_end, dt;
    double out_interval;      /* sampling interval of timeseries.csv */
    long out_every;           /* steps per sample */
    int out_points;           /* write points.csv */
    int out_plots;            /* write the PNG plots (output.plots, default 1) */
    long points_every;        /* steps per points.csv sample */
    double loop_t0, loop_t1;  /* time window of the friction loop plots (F_t against V_t) */
    int nfield_times;         /* snapshots of meshed sets (fields/<set>_<k>.vtp) at these times */
    double *field_times;      /* (at most BR_MAX_FIELD_TIMES) */
    int out_format;           /* BR_FORMAT_CSV (timeseries.csv, .vtp snapshots) or BR_FORMAT_HDF5 (run.h5) */
    int backend;              /* br_backend_kind requested by the scenario */
    double gravity[3];
    int nbody, nkframe, nload, nspring, nset, nbeam, nsup, nrot;
    double rho_inf;           /* generalized-alpha spectral radius at infinity (beams) */
    int coupling;             /* BR_COUPLING_*: how contact forces enter the integrators */
    int adaptive;             /* time.adaptive: substeps dt / 2^k where the error estimate asks (default
                               * with implicit coupling; docs/time-stepping.md) */
    double rtol, atol;        /* time.rtol, time.atol [m/s]: the substeps' error tolerance */
    double energy_tol;        /* time.energy_tolerance: a run whose energy residual ends above it is
                               * "inaccurate" (default 0.01) */
    br_body *body;
    br_beam *beam;
    br_superel *sup;          /* structures given as matrices (parts nbeam .. nbeam + nsup - 1) */
    br_kframe *kframe;
    br_load *load;
    br_spring *spring;
    br_cset *cset;
    br_rotfric *rot;          /* rotational friction elements (physics.md section 4) */
    br_drivetrain drive;      /* 1-D shafts, gears, torque sources and clutches (drivetrain.h) */
} br_model;

/* model -> number of frames (ground, bodies, kinematic frames) */
static inline int br_model_nframe(const br_model *m) { return 1 + m->nbody + m->nkframe; }

/* model -> everything it owns freed (the struct too) */
void br_model_free(br_model *m);

#endif
