#!/bin/sh
# scripts/demo.sh: install what is missing, build, run the main job. Until the
# scenario runner lands this is the contact-field benchmark on 1e5 points.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
./build/bristle bench field --points 100000 --steps 200 "$@"
