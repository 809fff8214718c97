#!/bin/sh
# scripts/demo.sh: install what is missing, build, run the main job: the
# built-in demo of `bristle run` (scenario S1, the sliding cube at 0 deg).
# Output in runs/cube_00/. Extra arguments go to `bristle run`.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
./build/bristle run "$@"
