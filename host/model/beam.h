/* beam.h: the linear structure (physics.md section 5): 3D Euler-Bernoulli beam
 * elements (12 DOF, consistent mass), rectangular sections, Rayleigh damping,
 * clamped DOFs, and structures given as matrices (5.1, model.h's br_superel), rigid
 * bodies attached at nodes. Assembled into dense symmetric M, C, K over the free
 * DOFs (column-major, for LAPACK). */
#ifndef BR_BEAM_H
#define BR_BEAM_H

#include "model/model.h"

typedef struct br_struct {
    int nnode;          /* nodes of all beams, beam by beam */
    int ndof;           /* free DOFs */
    int *node0;         /* per part (beams, then structures given as matrices): index of its first node */
    int *row0;          /* per structure given as matrices (part - nbeam): its first coordinate */
    int *dof;           /* 6 * nnode: global DOF of (node, u x y z, theta x y z), or -1 if fixed */
    double *X;          /* 3 * nnode undeformed positions */
    double *M, *C, *K;  /* ndof * ndof, column-major */
} br_struct;

/* model -> assembled structure: the beams, then the structures given as matrices (their rows in their
 * own order), the attached bodies' mass and inertia at their nodes (NULL when the model has neither
 * beams nor structures; err set on failure) */
br_struct *br_struct_build(const br_model *m, char *err, size_t errlen);

/* model -> the same without the attached bodies: the parts' own matrices (bristle export-structure) */
br_struct *br_struct_build_bare(const br_model *m, char *err, size_t errlen);

void br_struct_free(br_struct *s);

/* E, nu, rho, b, t, element axis e (unit), width w (unit, normal to e), length L
 * -> 12 x 12 global stiffness and consistent mass (row-major); DOFs (u, theta) of node 1 then 2 */
void br_beam_element(double E, double nu, double rho, double b, double t, const double e[3],
                     const double w[3], double L, double Kg[144], double Mg[144]);

/* structure, body (attached), u, v (structure DOFs) -> the body's frame (CoM pose and twist) */
void br_struct_body_frame(const br_struct *s, const br_body *b, int node, const double *u,
                          const double *v, br_frame_state *out);

/* structure, node, world force f at world point p (the node's body or the node), node position now
 * -> added to the generalized force vector g */
void br_struct_add_force(const br_struct *s, int node, const double xnode[3], const double f[3],
                         const double p[3], double *g);

/* structure, node, world torque -> added to g */
void br_struct_add_torque(const br_struct *s, int node, const double tau[3], double *g);

/* structure, the structure nodes carrying the two sides of a contact point (-1: ground,
 * fixed), world point p, 3x3 coupling S (a stiffness or damping between the two sides)
 * -> D^T S D added to A (ndof x ndof, column-major), D = d(p_a - p_b)/d(DOFs); scratch
 * holds 9 * ndof doubles */
void br_struct_add_link(const br_struct *s, int node_a, int node_b, const double p[3], const double S[9],
                        double *A, double *scratch);

/* structure, the structure nodes carrying frames A and B (-1: ground), world point p
 * -> L (6 x ndof, row-major): the relative twist of A with respect to B per DOF, rows 0-2 the
 * velocity of A's material point at p minus B's, rows 3-5 A's angular velocity minus B's;
 * 0, or -1 (out of memory) */
int br_struct_twist_rows(const br_struct *s, int node_a, int node_b, const double p[3], double *L);

/* model, structure, frame -> structure node carrying it (attached body), -1 for the ground,
 * -2 for anything else (a free body or a prescribed frame) */
int br_struct_frame_node(const br_model *m, const br_struct *s, int frame);

#endif
