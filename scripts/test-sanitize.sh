#!/bin/sh
# scripts/test-sanitize.sh: the sanitized subset of the test suite (the tests labelled sanitize:
# CMakeLists.txt says which and why, docs/testing.md shows that it runs every file of host/ and kernels/
# the plain suite runs) under AddressSanitizer + UBSan (build-asan/, gcc, CPU only), as many at a time as
# the machine has cores, then each libFuzzer target for 10 s (build-fuzz/, clang; scripts/fuzz.sh).
# Installs what it needs (scripts/setup.sh --sanitize); .ci/run runs it after scripts/test.sh.
# Every sanitizer report fails the test that triggered it: abort_on_error turns each one, leaks at
# exit included, into SIGABRT, which ctest, Criterion (also from a worker's exit) and test_cli's
# `bristle` runs all count as failures. Leak suppressions, third-party libraries only:
# scripts/sanitize.supp.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
sh scripts/setup.sh --sanitize
t0=$(date +%s)
cmake -S . -B build-asan -DBRISTLE_SANITIZE=ON -DBRISTLE_NATIVE=ON -DBRISTLE_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j "$(nproc)" --target sanitize_programs >&2 # the programs the subset runs (CMakeLists.txt)
t1=$(date +%s)
# allocator_may_return_null: a failed huge malloc returns NULL as in a plain build (Bristle checks)
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:print_stacktrace=1:strict_string_checks=1:detect_stack_use_after_return=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$ROOT/scripts/sanitize.supp:print_suppressions=0"
status=0
(cd build-asan && ctest -L sanitize -j "$(nproc)" --output-on-failure) || status=1
t2=$(date +%s)
# fuzz smoke test: 10 s per reader from the repository's seeds, a fixed libFuzzer seed
for t in scenario mesh study; do
    FUZZ_ARGS=-seed=1 sh scripts/fuzz.sh "$t" 10 || status=1
done
t3=$(date +%s)
echo "test-sanitize: build $((t1 - t0)) s, tests $((t2 - t1)) s, fuzzing (with its build) $((t3 - t2)) s" >&2
exit $status
