/* field_cpu.h: what the CPU backend's dispatch (field_cpu.c) and its specialised point loops
 * (field_cpu_law.c, compiled once per friction law) share: the lists of laws and surfaces the loops
 * are specialised for, the loops' names and signatures, and the groups of small sets run in lanes. */
#ifndef BR_FIELD_CPU_H
#define BR_FIELD_CPU_H

#include "field/field_internal.h"

/* BR_CPU_EACH(X) runs X(LAW, SURF, REC) for every law, surface and recording flag of
 * BR_CPU_DISPATCH. */
#define BR_CPU_EACH_SURF(X, LAW, SURF) X(LAW, SURF, 0) X(LAW, SURF, 1)
#define BR_CPU_EACH_LAW(X, LAW)                                                     \
    BR_CPU_EACH_SURF(X, LAW, BR_SURF_PLANE)                                         \
    BR_CPU_EACH_SURF(X, LAW, BR_SURF_SPHERE) BR_CPU_EACH_SURF(X, LAW, BR_SURF_CYLINDER)
/* BR_CPU_STD_EACH(X) likewise for the laws that also have loops with the usual exponents
 * (cpu_chunk_std below) */
#define BR_CPU_STD_EACH(X)                                                          \
    BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D) BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D_CLASSIC)   \
    BR_CPU_EACH_LAW(X, BR_LAW_DAHL3D) BR_CPU_EACH_LAW(X, BR_LAW_GKF)                \
    BR_CPU_EACH_LAW(X, BR_LAW_STATIC_REG) BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE2)       \
    BR_CPU_EACH_LAW(X, BR_LAW_JENKINS)
#define BR_CPU_EACH(X)                                                              \
    BR_CPU_STD_EACH(X)                                                              \
    BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE_IMPLICIT) BR_CPU_EACH_LAW(X, BR_LAW_GMS)
/* BR_CPU_LANES_EACH(X) likewise for the laws whose small sets run in lanes (all but gms) */
#define BR_CPU_LANES_EACH(X)                                                                                  \
    BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D) BR_CPU_EACH_LAW(X, BR_LAW_LUGRE3D_CLASSIC)                             \
    BR_CPU_EACH_LAW(X, BR_LAW_DAHL3D) BR_CPU_EACH_LAW(X, BR_LAW_GKF)                                          \
    BR_CPU_EACH_LAW(X, BR_LAW_STATIC_REG) BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE2)                                 \
    BR_CPU_EACH_LAW(X, BR_LAW_BRISTLE_IMPLICIT) BR_CPU_EACH_LAW(X, BR_LAW_JENKINS)

/* ---- small sets in lanes: sets of one chunk that share law, surface, point count, tangent and
 * parameters form a group, and one loop advances them together with a set in each SIMD lane
 * (point p of every set of the group, then p + 1, ...). The variants of a study are such sets, as
 * are the faces of one model that look alike (the S2 bundle's two contacts): lanes full of sets run
 * at the vectorized loop's rate where a set of 4 points alone would run the loop's scalar tail.
 * Each lane adds its points in point order into its own sums, so a set's results do not depend on
 * which or how many sets share its group (a study's variant equals its single run bit for bit).
 * The group owns its sets' geometry and states, interleaved [p][lane] (states [k][p][lane]);
 * cpu_sync_to_host and cpu_sync_from_host copy the states to and from the sets' views. ---- */

#define BR_LANES 16    /* lanes per block: its 120 tangent sums per lane stay in L1 (15 KiB) */
#define BR_FRAME_NF 30 /* doubles of a br_set_frame, in frame_store's order */

typedef struct cpu_group {
    int law, surf, tangent;
    long n;            /* points per set */
    long L;            /* lanes (sets) */
    int *set;          /* set of each lane */
    br_set_view view;  /* interleaved arrays (view.n = n L, the state stride), its sets' parameters */
    double *fs;        /* the sets' frames, BR_FRAME_NF x L (frame_store) */
    double *recF, *recN; /* per-point outputs [k][p][lane] while recording */
    double *block;     /* the one allocation behind all of the above arrays */
} cpu_group;

/* The specialised loops (defined in field_cpu_law.c; what each does is said there), named
 * br_cpu_KIND_LAW_SURF_REC (gms: br_cpu_chunk_gmsM_SURF_REC, bristle_implicit's stick pass
 * br_cpu_chunk_bistick_SURF_REC) */
#define BR_CPU_CHUNK_ARGS const br_set_view *v, const br_set_frame *fr, double h, long i0, long i1, br_set_sums *out
#define BR_CPU_CHUNK_DECL(LAW, SURF, REC) void br_cpu_chunk_##LAW##_##SURF##_##REC(BR_CPU_CHUNK_ARGS);
#define BR_CPU_CHUNKX_DECL(LAW, SURF, REC) void br_cpu_chunkx_##LAW##_##SURF##_##REC(BR_CPU_CHUNK_ARGS);
#define BR_CPU_CHUNKXS_DECL(LAW, SURF, REC) void br_cpu_chunkxs_##LAW##_##SURF##_##REC(BR_CPU_CHUNK_ARGS);
#define BR_CPU_BI_DECL(LAW, SURF, REC) void br_cpu_chunk_bistick_##SURF##_##REC(BR_CPU_CHUNK_ARGS);
#define BR_CPU_TANGENT_DECL(LAW, SURF, REC)                                                                   \
    void br_cpu_chunk_tangent_##LAW##_##SURF##_##REC(BR_CPU_CHUNK_ARGS, br_tangent_sums *tout);
#define BR_CPU_LANES_DECL(LAW, SURF, REC)                                                                     \
    void br_cpu_lanes_##LAW##_##SURF##_##REC(int tan, const cpu_group *gp, double h, long j0, long m,          \
                                             br_set_sums *out, br_tangent_sums *tout);
#define BR_CPU_GMS_DECL(M, SURF, REC) void br_cpu_chunk_gms##M##_##SURF##_##REC(BR_CPU_CHUNK_ARGS);
#define BR_CPU_GMS_DECL_M(M)                                                                                  \
    BR_CPU_GMS_DECL(M, BR_SURF_PLANE, 0) BR_CPU_GMS_DECL(M, BR_SURF_PLANE, 1)                                 \
    BR_CPU_GMS_DECL(M, BR_SURF_SPHERE, 0) BR_CPU_GMS_DECL(M, BR_SURF_SPHERE, 1)                               \
    BR_CPU_GMS_DECL(M, BR_SURF_CYLINDER, 0) BR_CPU_GMS_DECL(M, BR_SURF_CYLINDER, 1)
BR_CPU_EACH(BR_CPU_CHUNK_DECL)
BR_CPU_STD_EACH(BR_CPU_CHUNKX_DECL)
BR_CPU_EACH_LAW(BR_CPU_CHUNKXS_DECL, BR_LAW_GKF) BR_CPU_EACH_LAW(BR_CPU_CHUNKXS_DECL, BR_LAW_STATIC_REG)
BR_CPU_EACH_LAW(BR_CPU_BI_DECL, BR_LAW_BRISTLE_IMPLICIT)
BR_CPU_EACH(BR_CPU_TANGENT_DECL)
BR_CPU_LANES_EACH(BR_CPU_LANES_DECL)
BR_CPU_GMS_DECL_M(1) BR_CPU_GMS_DECL_M(2) BR_CPU_GMS_DECL_M(3) BR_CPU_GMS_DECL_M(4)
BR_CPU_GMS_DECL_M(5) BR_CPU_GMS_DECL_M(6) BR_CPU_GMS_DECL_M(7) BR_CPU_GMS_DECL_M(8)

#endif
