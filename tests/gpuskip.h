/* gpuskip.h: the first line of a GPU test: where no GPU is usable the test is skipped, with
 * "SKIP NAME: no usable GPU (reason)" on stderr (ctest's SKIP_REGULAR_EXPRESSION reads it). */
#ifndef BR_GPUSKIP_H
#define BR_GPUSKIP_H

#include <stdio.h>

#include "field/field.h" /* br_cuda_available */

#define BR_SKIP_WITHOUT_GPU(name)                                                  \
    do {                                                                           \
        char why_[256] = "";                                                       \
        if (br_cuda_available(why_, sizeof why_) <= 0) {                           \
            fprintf(stderr, "SKIP " name ": no usable GPU (%s)\n", why_);          \
            cr_skip_test("no usable GPU: %s", why_);                               \
        }                                                                          \
    } while (0)

#endif
