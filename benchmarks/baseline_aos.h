/* baseline_aos.h: the straightforward scalar implementation the contact
 * field is measured against: array of structs, one point at a time, one pass
 * per stage (kinematics, normal force, friction, reduction), one thread, the
 * law chosen at run time. Same formulas (the kernels/ headers), so its sums
 * must agree with the field's; benchmarks and a test check that they do. */
#ifndef BR_BASELINE_AOS_H
#define BR_BASELINE_AOS_H

#include "field/field.h"

typedef struct br_baseline br_baseline;

/* set description -> baseline holding the set's points as an array of structs */
br_baseline *br_baseline_create(const br_contact_set_desc *d);

/* set frame, h -> states advanced, sums of the step */
void br_baseline_step(br_baseline *b, const br_set_frame *f, double h, br_set_sums *out);

/* baseline -> bytes of memory per point (record and state) */
size_t br_baseline_bytes_per_point(const br_baseline *b);

void br_baseline_destroy(br_baseline *b);

#endif
