#!/bin/sh
# scripts/demo.sh: install what building and running bristle needs (if missing), build the bristle
# target, run the main job: the built-in demo of `bristle run` (scenario S1, the sliding cube at
# 0 deg). Output in runs/cube_00/. Extra arguments go to `bristle run`. The first run on a fresh
# machine takes about three minutes, most of it compiling (README.md, "Set up and run").
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh --demo
./build/bristle run "$@"
