/* study_s2.h: the short S2 study the study tests share (test_cli, test_mpi): a mistuning x amplitude
 * study of the S2 bundle, 0.3 s of the sweep, 1 + 2 x 2 variants, without its `output` line (each
 * test adds its own). SOURCE_DIR is the test program's. */
#ifndef BR_TEST_STUDY_S2_H
#define BR_TEST_STUDY_S2_H

#define BR_TEST_STUDY_S2_BODY                                                  \
    "name: small\n"                                                            \
    "scenario: " SOURCE_DIR "/scenarios/blades_sweep_lugre.yaml\n"             \
    "set: {time.end: 0.3}\n"                                                   \
    "grid:\n"                                                                  \
    "  loads.excitation.magnitude.sweep.amplitude: [1, 2]\n"                   \
    "random:\n"                                                                \
    "  count: 2\n"                                                             \
    "  seed: 7\n"                                                              \
    "  keys:\n"                                                                \
    "    beams.blade_L.E: {normal: 0.02}\n"                                    \
    "    beams.blade_R.E: {uniform: 1.0e9, relative: false}\n"                 \
    "analysis: {type: sweep, columns: [tip_C.x, tip_L.x], window: 0.05}\n"

#endif
