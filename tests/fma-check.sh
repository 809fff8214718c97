#!/bin/sh
# tests/fma-check.sh NVCC SOURCE_ROOT FLAGS...: the CPU/GPU arithmetic contract without a GPU
# (docs/gpu.md). tests/fma_check.cu (every law's point step, with and without the wrench tangent,
# and a variant's structure step)
# compiled to PTX with the project's CUDA flags must hold no multiply, add or subtract without the .rn
# rounding mode (ptxas may fuse those into an FMA; .rn ones it may not), and its fused multiply-adds
# (fma.rn.f64) must be the source's own br_fma calls: fewer than nvcc's default contraction makes of the
# same source, which must also leave fusable operations (so the counts can fail). The CPU compiles the
# same br_fma calls to the same operation (vfmadd) and contracts nothing else (C11).
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
[ "$free" -eq 0 ] || { echo "FAIL: the project's CUDA flags let ptxas contract multiply-adds"; exit 1; }
[ "$with" -gt 0 ] || { echo "FAIL: no br_fma in the PTX: the point code's fused multiply-adds are gone"; exit 1; }
[ "$default" -gt "$with" ] && [ "$free_default" -gt 0 ] || { echo "FAIL: nvcc's default contracts no more than the source's br_fma calls: the check cannot tell"; exit 1; }
echo "ok"
