/* study_s2.h: the study inputs the study tests share (test_cli, test_mpi). The short S2 study: a
 * mistuning x amplitude study of the S2 bundle, 0.3 s of the sweep (below), 1 + 2 x 2 variants, without its
 * `output` line (each test adds its own); SOURCE_DIR is the test program's. And the 1-degree-of-
 * freedom oscillator of the stepped-sine tests, without its `time` line. */
#ifndef BR_TEST_STUDY_S2_H
#define BR_TEST_STUDY_S2_H

#include "sanitized.h"

/* its length: 0.3 s; 0.1 s in the sanitized build (two of the analysis' windows; the study tests there held
 * 76 s of the sanitized subset at 0.3 s on the 2-core Intel VM: sanitized.h) */
#if BR_TEST_SANITIZED
#define BR_TEST_S2_END "0.1"
#else
#define BR_TEST_S2_END "0.3"
#endif

#define BR_TEST_STUDY_S2_BODY                                                  \
    "name: small\n"                                                            \
    "scenario: " SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml\n"             \
    "set: {time.end: " BR_TEST_S2_END "}\n"                                    \
    "grid:\n"                                                                  \
    "  loads.excitation.magnitude.sweep.amplitude: [1, 2]\n"                   \
    "random:\n"                                                                \
    "  count: 2\n"                                                             \
    "  seed: 7\n"                                                              \
    "  keys:\n"                                                                \
    "    beams.blade_L.E: {normal: 0.02}\n"                                    \
    "    beams.blade_R.E: {uniform: 1.0e9, relative: false}\n"                 \
    "analysis: {type: sweep, columns: [tip_C.x, tip_L.x], window: 0.05}\n"

/* m = 1 kg on a spring of (2 pi 10 Hz)^2 N/m with damping ratio 0.05, driven by a 2 N harmonic
 * force at 8 Hz along x */
#define BR_TEST_OSCILLATOR_BODY                                                                                      \
    "bodies:\n"                                                                                                      \
    "  - {name: mass, mass: 1.0, box: [0.1, 0.1, 0.1], position: [0, 0, 0], lock: [y, z, rx, ry, rz]}\n"             \
    "springs:\n"                                                                                                     \
    "  - {name: spring, a: {frame: ground, point: [0, 0, 0]}, b: {frame: mass, point: [0, 0, 0]},\n"                 \
    "     stiffness: 3947.8417604357434, damping: 6.283185307179586}\n"                                              \
    "loads:\n"                                                                                                       \
    "  - {name: drive, body: mass, direction: [1, 0, 0], magnitude: {harmonic: {amplitude: 2.0, frequency: 8}}}\n"

#endif
