#!/bin/sh
# benchmarks/gpu-pack.sh [ARCH]: on a machine with nvcc and the Debian archive (no GPU needed), what a
# GPU check runs without building there: bristle and the three CUDA test programs built for one
# architecture (default 90: H100, H200; `default`: what CMakeLists.txt picks on this machine, compute_80
# PTX alone where it has no GPU, which the driver compiles at first use; no -march=native, MPI or
# HDF5), stripped and packed into
# build-gpu/carry/carry.tgz, and the runtime .deb files of scripts/fetch-deps.sh in .deps/rt. Carry
# both (the device tool's carry: build-gpu/carry and .deps/rt, about 50 MB) and run
# `GPU_CHECK_PREBUILT=1 sh benchmarks/gpu-check.sh` there: no build on the device (it took 170 to
# 230 s of a call). The test programs read the scenarios from this checkout's path: run the check
# from a checkout at the same path, or let gpu-check.sh link it.
set -eu
cd "$(dirname "$0")/.."
arch=${1:-90}
[ -d .deps/debs ] || sh scripts/fetch-deps.sh
mkdir -p build-gpu
archdef="-DCMAKE_CUDA_ARCHITECTURES=$arch"
[ "$arch" = default ] && archdef="-UCMAKE_CUDA_ARCHITECTURES"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release "$archdef" -DBRISTLE_NATIVE=OFF -DBRISTLE_TESTS=ON \
    -DBRISTLE_MPI=OFF -DBRISTLE_HDF5=OFF >build-gpu/pack.log 2>&1 || { tail -20 build-gpu/pack.log; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target bristle test_field_cuda test_beam_batch test_ga_batch >>build-gpu/pack.log 2>&1 ||
    { tail -30 build-gpu/pack.log; exit 1; }
rm -rf build-gpu/c build-gpu/carry && mkdir -p build-gpu/c build-gpu/carry
for f in bristle test_field_cuda test_beam_batch test_ga_batch; do strip -o "build-gpu/c/$f" "build-gpu/$f"; done
echo "$PWD" >build-gpu/c/source-dir
git describe --always --dirty >build-gpu/c/commit 2>/dev/null || echo unknown >build-gpu/c/commit
tar czf build-gpu/carry/carry.tgz -C build-gpu/c . && rm -rf build-gpu/c
# the runtime packages of fetch-deps.sh's RUNTIME list
rm -rf .deps/rt && mkdir -p .deps/rt
for p in $(sed -n '/^RUNTIME="/,/"$/p' scripts/fetch-deps.sh | sed 's/^RUNTIME=//' | tr -d '"'); do
    cp .deps/debs/"${p}"_*.deb .deps/rt/
done
echo "gpu-pack: $(du -sh build-gpu/carry | cut -f1) of binaries (commit $(git describe --always --dirty 2>/dev/null)," \
    "$(grep -o "CUDA architectures: .*" build-gpu/pack.log | head -1)), $(du -sh .deps/rt | cut -f1) of runtime packages;" \
    "carry build-gpu/carry and .deps/rt"
