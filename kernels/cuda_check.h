/* cuda_check.h: BR_CU(call) for the CUDA sources: a failed CUDA call writes "CUDA error NAME at
 * file:line: text" into err (when err and errlen are set) and returns FAILVAL, which the function
 * defines around its body. */
#ifndef BR_CUDA_CHECK_H
#define BR_CUDA_CHECK_H

#include <cstdio>

#define BR_CU(call)                                                                            \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            if (err && errlen)                                                                 \
                snprintf(err, errlen, "CUDA error %s at %s:%d: %s", cudaGetErrorName(e_),      \
                         __FILE__, __LINE__, cudaGetErrorString(e_));                          \
            return FAILVAL;                                                                    \
        }                                                                                      \
    } while (0)

#endif
