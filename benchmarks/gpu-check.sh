#!/bin/sh
# benchmarks/gpu-check.sh: on a GPU machine, in one call: build (CUDA on),
# run the full test suite (the CUDA tests must run, not skip), run the field
# benchmark on CPU and GPU, and print a short table last. Writes its logs and
# a markdown table to $OUT (or benchmarks/results/ when OUT is unset).
#   usage: sh benchmarks/gpu-check.sh [points...]     (default 1e5 1e6 1e7)
set -u
cd "$(dirname "$0")/.."
OUTDIR="${OUT:-benchmarks/results}"
mkdir -p "$OUTDIR"
POINTS="${*:-100000 1000000 10000000}"
dev="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
date="$(date -u +%Y-%m-%d)"

if ! command -v criterion >/dev/null 2>&1 && ! pkg-config --exists criterion 2>/dev/null; then
    apt-get install -y -qq --no-install-recommends libcriterion-dev >/dev/null 2>&1 || true
fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$OUTDIR/gpu-build.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" >>"$OUTDIR/gpu-build.log" 2>&1 ||
    { echo "build failed"; tail -30 "$OUTDIR/gpu-build.log"; exit 1; }
./build-gpu/bristle info

(cd build-gpu && ctest --output-on-failure) >"$OUTDIR/gpu-tests.log" 2>&1
trc=$?
grep -E "tests passed|Skipped|Failed|cuda vs cpu" "$OUTDIR/gpu-tests.log"
(cd build-gpu && ./test_field_cuda --verbose 2>&1 | grep -E "cuda vs cpu|PASS|FAIL|SKIP|Synthesis") | tee -a "$OUTDIR/gpu-tests.log"

table="$OUTDIR/gpu-bench.md"
{
    echo "| backend | device | law | points | updates/s | achieved GB/s | copy GB/s | B/point |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$table"
for n in $POINTS; do
    for be in cuda cpu; do
        [ "$be" = cpu ] && [ "$n" -gt 1000000 ] && continue
        steps=200
        [ "$be" = cpu ] && steps=20
        line=$(./build-gpu/bristle bench field --points "$n" --steps "$steps" --backend "$be" --no-baseline 2>&1 | grep '^RESULT')
        echo "$line" >>"$OUTDIR/gpu-bench.log"
        echo "$line" | awk -v dev="$dev" '{
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", v["backend"], (v["backend"] == "cuda" ? dev : "host CPU"),
                v["law"], v["points"], v["updates_per_s"], v["bw_GBs"], v["copy_GBs"], v["mem_B_per_point"] }' >>"$table"
    done
done
echo
echo "device: $dev   date: $date   commit: $commit   tests exit: $trc"
cat "$table"
exit $trc
