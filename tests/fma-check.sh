#!/bin/sh
# tests/fma-check.sh NVCC SOURCE_ROOT FLAGS...: the CPU/GPU arithmetic contract without a GPU
# (docs/gpu.md). tests/fma_check.cu (every law's point step, with and without the wrench tangent,
# and a variant's structure step)
# compiled to PTX with the project's CUDA flags must hold no fused multiply-add (fma.rn.f64) and no
# multiply, add or subtract without the .rn rounding mode (ptxas may fuse those into an FMA; .rn ones
# it may not); the same compiled with nvcc's default contraction must hold both (so the counts can fail).
set -u
NVCC=$1
INC=$2
shift 2
SRC="$(dirname "$0")/fma_check.cu"
TMP="${TMPDIR:-/tmp}/fma-check-$$"
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
"$NVCC" -std=c++17 -arch=sm_90 -I"$INC" "$@" -ptx "$SRC" -o "$TMP/flags.ptx" || { echo "nvcc failed"; exit 1; }
with=$(grep -c 'fma\.rn\.f64' "$TMP/flags.ptx")
"$NVCC" -std=c++17 -arch=sm_90 -I"$INC" -O3 -ptx "$SRC" -o "$TMP/default.ptx" || { echo "nvcc failed"; exit 1; }
default=$(grep -c 'fma\.rn\.f64' "$TMP/default.ptx")
free=$(grep -cE '(mul|add|sub)\.f64' "$TMP/flags.ptx")
free_default=$(grep -cE '(mul|add|sub)\.f64' "$TMP/default.ptx")
rn=$(grep -cE '(mul|add|sub)\.rn\.f64' "$TMP/flags.ptx")
echo "the point and structure steps' PTX with the project's flags ($*): $with fused multiply-adds, $free multiplies/adds ptxas may fuse, $rn it may not;"
echo "  with nvcc's default: $default fused multiply-adds, $free_default that ptxas may fuse"
[ "$with" -eq 0 ] && [ "$free" -eq 0 ] || { echo "FAIL: the project's CUDA flags let nvcc or ptxas contract multiply-adds"; exit 1; }
[ "$default" -gt 0 ] && [ "$free_default" -gt 0 ] || { echo "FAIL: the check found nothing to fuse even with contraction on: it cannot tell"; exit 1; }
echo "ok"
