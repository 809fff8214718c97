#!/bin/sh
# scripts/test.sh: install what is missing, build, run the test suite (everything but the
# tests labelled slow: the 10-second blade sweep, `cd build && ctest -L slow`).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
cd build && ctest -LE slow --output-on-failure
