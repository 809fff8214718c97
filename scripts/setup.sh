#!/bin/sh
# scripts/setup.sh [--sanitize]: install the Debian packages Bristle needs (if missing) and
# build it into build/. Safe to run again: installs nothing that is present. With --sanitize
# also what scripts/test-sanitize.sh needs (clang and its sanitizer and OpenMP runtimes for the
# libFuzzer build), and no build.
set -eu
cd "$(dirname "$0")/.."
PKGS="cmake make gcc g++ pkg-config libcriterion-dev libyaml-dev libcjson-dev libcairo2-dev libpng-dev liblapacke-dev libopenblas-dev libassimp-dev libsundials-dev libopenmpi-dev openmpi-bin zlib1g-dev python3-vtk9 python3-numpy python3-pytest"
SANITIZE=0
[ "${1:-}" = "--sanitize" ] && SANITIZE=1 && PKGS="$PKGS clang libclang-rt-dev libomp-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
fi
[ "$SANITIZE" = 1 ] && exit 0
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >&2
