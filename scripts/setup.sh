#!/bin/sh
# scripts/setup.sh [--demo | --sanitize]: install the Debian packages Bristle needs (if missing) and
# build it into build/. Safe to run again: installs nothing that is present, rebuilds what changed.
#   --demo      what building and running `bristle` needs (compiler, CMake, the libraries it links:
#               YAML, cJSON, cairo, PNG, LAPACKE/OpenBLAS, assimp, zlib, HDF5, Open MPI), and the
#               bristle target alone (scripts/demo.sh)
#   (none)      also what the tests need (Criterion, SUNDIALS for the CVODE references, and the
#               clients that read the outputs: Python with numpy, pandas, xarray, matplotlib, VTK,
#               h5py, pytest), every target, and the Python package (python/) in .venv/ (a virtual
#               environment that sees the distribution's packages; the package editable, so that it
#               runs this checkout's build/bristle) (scripts/test.sh)
#   --sanitize  also what scripts/test-sanitize.sh needs (clang, its sanitizer and OpenMP runtimes,
#               gcovr), and no build
# Both builds then generate the meshes the shipped S3 and S8 scenarios read (scripts/meshes.sh, well
# under a second). CUDA is built wherever nvcc is found (CMakeLists.txt says for which GPUs).
set -eu
cd "$(dirname "$0")/.."
MODE=test
case "${1:-}" in
--demo) MODE=demo ;;
--sanitize) MODE=sanitize ;;
"") ;;
*) echo "usage: sh scripts/setup.sh [--demo | --sanitize]" >&2; exit 2 ;;
esac
BUILD_PKGS="cmake make gcc g++ pkg-config libyaml-dev libcjson-dev libcairo2-dev libpng-dev liblapacke-dev libopenblas-dev
libassimp-dev zlib1g-dev libhdf5-dev libopenmpi-dev openmpi-bin libsuitesparse-dev libmatio-dev"
TEST_PKGS="libcriterion-dev libsundials-dev python3-numpy python3-pandas python3-xarray python3-matplotlib python3-pytest
python3-vtk9 python3-h5py python3-scipy python3-venv python3-pip python3-setuptools"
PKGS="$BUILD_PKGS"
[ "$MODE" = demo ] || PKGS="$PKGS $TEST_PKGS"
[ "$MODE" = sanitize ] && PKGS="$PKGS clang libclang-rt-dev libomp-dev gcovr"
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
[ "$MODE" = sanitize ] && exit 0
if [ "$MODE" = demo ]; then
    # Criterion may be absent: the test programs are configured only where it is (BRISTLE_TESTS AUTO)
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build -j "$(nproc)" --target bristle >&2
else
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBRISTLE_TESTS=ON >/dev/null
    cmake --build build -j "$(nproc)" >&2
    # the Python package, offline: its dependencies are the distribution's packages above
    [ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
    .venv/bin/python -m pip install -q --no-deps --no-build-isolation --no-index -e ./python >&2
    # the lap joint example's FE model (examples/lap_joint/build.py): scikit-fem from PyPI in a venv of its
    # own that sees the distribution's numpy and SciPy; without a registry its test reports skipped
    LJ=examples/lap_joint/.venv
    [ -x $LJ/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $LJ
    $LJ/bin/python -c "import skfem" 2>/dev/null || $LJ/bin/python -m pip install -q scikit-fem==12.0.2 >&2 ||
        echo "setup: scikit-fem could not be installed (no PyPI?): tests/python/test_lap_joint.py will skip" >&2
fi
sh scripts/meshes.sh ./build/bristle >/dev/null
