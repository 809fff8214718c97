/* scenario_internal.h: what the files of the scenario reader share (in: the YAML document and the
 * model being filled; out: the readers of each model part). Private to io/scenario*.c. */
#ifndef BR_SCENARIO_INTERNAL_H
#define BR_SCENARIO_INTERNAL_H

#include "base/yread.h"
#include "model/model.h"

/* map[key] -> unit 3-vector (required unless def) with the check |n| = 1 within 1e-9 */
void br_yunit(ysrc *c, ynode *map, const char *key, const double *def, double out[3]);

/* map -> its `name`: letters, digits, '_' and '-' (they become CSV column names), or an error */
void br_yname(ysrc *c, ynode *map, char out[BR_NAME_MAX], const char *what);

/* node (a number or a one-key mapping) -> time function */
void br_ytimefn(ysrc *c, ynode *n, const char *what, br_timefn *fn);

/* name -> frame index (0 ground, bodies, kinematic frames), or error at node */
int br_yframe(ysrc *c, const br_model *m, ynode *n, const char *name);

/* scenario file, a path in it -> the path relative to the scenario's folder (absolute ones kept) */
void br_ypath(ysrc *c, const char *file, char *out, size_t len);

void br_read_beams(ysrc *c, ynode *seq, br_model *m);

/* structures: [{name, file, mass, stiffness, damping, nodes}] -> m->sup (scenario_structures.c) */
void br_read_structures(ysrc *c, ynode *seq, br_model *m);

/* structure name (at node at), node label (node) -> the node's index in it and its part (*part), or -1
 * with the error (no such structure, no such node) */
int br_ystructure_node(ysrc *c, const br_model *m, ynode *at, const char *structure, ynode *node, int *part);

/* interface: {structure, pairs} -> the set's points, frames, gaps and rows (a deforming interface,
 * physics.md 5.1; docs/structures.md), its areas; a file's faults as "path:line: message" */
void br_read_interface(ysrc *c, ynode *itf, const br_model *m, br_cset *cs);

/* structure name (at node at), value (a variable of its .mat file, or a Matrix Market file) -> its load
 * vector (n values, malloc'd) and part, or NULL with the error ("path: message" for the file's faults) */
double *br_ystructure_vector(ysrc *c, const br_model *m, ynode *at, const char *structure, ynode *value, int *part);

void br_read_bodies(ysrc *c, ynode *seq, br_model *m);

void br_read_frames(ysrc *c, ynode *seq, br_model *m);

void br_read_loads(ysrc *c, ynode *seq, br_model *m);

void br_read_springs(ysrc *c, ynode *seq, br_model *m);

/* rotational_friction: [{name, type: lugre|clutch|one_way_clutch, body, other, axis, ...}] */
void br_read_rotational(ysrc *c, ynode *seq, br_model *m);

/* drivetrain: {shafts, gears, torques, clutches} -> m->drive (docs/scenario-format.md) */
void br_read_drivetrain(ysrc *c, ynode *n, br_model *m);

void br_read_contacts(ysrc *c, ynode *seq, br_model *m);

#endif
