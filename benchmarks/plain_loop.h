/* plain_loop.h: the plain single-loop C version of the field step that `bristle bench field`
 * measures the field against (issue 20): the same per-point step (br_point_sums, the kernels/
 * headers), the same structure-of-arrays data and the same threads over the same fixed chunks,
 * but one ordinary loop per chunk with the law and the counter surface read at run time: no
 * specialised loop per law, no SIMD pragma. Compiled with the field's flags but the compiler's
 * own vector width, which runs it faster (CMakeLists.txt). */
#ifndef BR_PLAIN_LOOP_H
#define BR_PLAIN_LOOP_H

#include "field/field.h"

typedef struct br_plain br_plain;

/* set description -> its points and zero states in structure-of-arrays form, or NULL (out of
 * memory) */
br_plain *br_plain_create(const br_contact_set_desc *d);

/* set frame, h -> states advanced, sums of the step (chunk sums added in chunk order) */
void br_plain_step(br_plain *p, const br_set_frame *f, double h, br_set_sums *out);

void br_plain_destroy(br_plain *p);

#endif
