#!/bin/sh
# scripts/test.sh: install what is missing, build, run the whole test suite.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
cd build && ctest --output-on-failure
