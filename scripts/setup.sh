#!/bin/sh
# scripts/setup.sh [--sanitize]: install the Debian packages Bristle needs (if missing), build it
# into build/, and install the Python package (python/) into .venv/ (a virtual environment that
# sees the distribution's numpy, pandas, xarray, matplotlib; the package editable, so that it runs
# this checkout's build/bristle: `.venv/bin/python`, or `. .venv/bin/activate`). Safe to run
# again: installs nothing that is present. With --sanitize also what scripts/test-sanitize.sh
# needs (clang and its sanitizer and OpenMP runtimes for the libFuzzer build), and no build.
set -eu
cd "$(dirname "$0")/.."
PKGS="cmake make gcc g++ pkg-config libcriterion-dev libyaml-dev libcjson-dev libcairo2-dev libpng-dev liblapacke-dev libopenblas-dev libassimp-dev libsundials-dev libopenmpi-dev openmpi-bin zlib1g-dev libhdf5-dev
python3-numpy python3-pandas python3-xarray python3-matplotlib python3-pytest python3-vtk9 python3-h5py
python3-venv python3-pip python3-setuptools"
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
# the Python package, offline: its dependencies are the distribution's packages above
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
.venv/bin/python -m pip install -q --no-deps --no-build-isolation --no-index -e ./python >&2
