#!/bin/sh
# scripts/test.sh: install what is missing, build everything, run the test suite: every test but those
# labelled slow (`cd build && ctest -L slow` runs those; README.md lists them), as many at a time as the
# machine has cores (tests that need the whole machine ask for every core with PROCESSORS, test_python is
# RUN_SERIAL: CMakeLists.txt).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
cd build && ctest -LE slow -j "$(nproc)" --output-on-failure
