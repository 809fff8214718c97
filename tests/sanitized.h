/* sanitized.h: BR_TEST_SANITIZED, 1 in the sanitized build (CMakeLists.txt's br_test_program defines it under
 * BRISTLE_SANITIZE; scripts/test-sanitize.sh), 0 in the plain one. A few long runs of the sanitized subset are
 * shortened there: AddressSanitizer and UBSan check the code a run executes, which a shorter run of the same
 * case executes too; each shortened assertion holds at full length in the plain suite (docs/testing.md lists
 * them). */
#ifndef BR_SANITIZED_H
#define BR_SANITIZED_H

#ifndef BR_TEST_SANITIZED
#define BR_TEST_SANITIZED 0
#endif

#endif
