#!/bin/sh
# benchmarks/gpu-check.sh: on a GPU machine, in one call: install what is
# missing and build (scripts/setup.sh; CUDA is on wherever nvcc is), run the
# full test suite (test_field_cuda must run, not skip), benchmark the field
# on the GPU and the CPU, and print a short table last. Logs and the table go
# to $OUT (or benchmarks/results/ when OUT is unset).
#   usage: sh benchmarks/gpu-check.sh [points...]     (lugre3d at 1e5 1e6 1e7 by default;
#          every other friction law at 1e6 points)
set -u
cd "$(dirname "$0")/.."
OUTDIR="${OUT:-benchmarks/results}"
mkdir -p "$OUTDIR"
POINTS="${*:-100000 1000000 10000000}"
dev="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

sh scripts/setup.sh >"$OUTDIR/gpu-build.log" 2>&1 || { echo "build failed"; tail -30 "$OUTDIR/gpu-build.log"; exit 1; }
./build/bristle info

# --verbose keeps every test's output, so the CUDA-vs-CPU figures are in the log.
(cd build && ctest --verbose) >"$OUTDIR/gpu-tests.log" 2>&1
trc=$?
grep -E "cuda vs cpu|SKIP|tests passed|Failed" "$OUTDIR/gpu-tests.log"

table="$OUTDIR/gpu-bench.md"
{
    echo "| backend | device | law | points | updates/s | achieved GB/s | copy GB/s | B/point |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$table"
# lugre3d at every size, then every law at 1e6 points
runs=""
for n in $POINTS; do runs="$runs lugre3d:$n"; done
for law in $(./build/bristle info | sed -n 's/^friction laws: //p'); do
    [ "$law" = lugre3d ] || runs="$runs $law:1000000"
done
# bench_row BACKEND LAW POINTS STEPS LABEL [bench options]: one benchmark, its RESULT line logged and
# a table row appended (LABEL after the law: "" or " + tangent")
bench_row() {
    be=$1 law=$2 n=$3 steps=$4 label=$5
    shift 5
    line=$(./build/bristle bench field --law "$law" --points "$n" --steps "$steps" --backend "$be" --no-baseline "$@" 2>&1 | grep '^RESULT')
    echo "$line" >>"$OUTDIR/gpu-bench.log"
    echo "$line" | awk -v dev="$dev" -v label="$label" '{
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "| %s | %s | %s%s | %s | %s | %s | %s | %s |\n", v["backend"], (v["backend"] == "cuda" ? dev : "host CPU"),
            v["law"], label, v["points"], v["updates_per_s"], v["bw_GBs"], v["copy_GBs"], v["mem_B_per_point"] }' >>"$table"
}
for run in $runs; do
    law=${run%%:*}
    n=${run#*:}
    for be in cuda cpu; do
        [ "$be" = cpu ] && [ "$n" -gt 1000000 ] && continue
        steps=200
        [ "$be" = cpu ] && steps=20
        bench_row "$be" "$law" "$n" "$steps" ""
    done
done
# The implicit coupling's path: lugre3d at 1e6 points with the wrench tangent reduced every step.
bench_row cuda lugre3d 1000000 200 " + tangent" --tangent
bench_row cpu lugre3d 1000000 20 " + tangent" --tangent
# The S1 cube run (4e5 steps, 6 points): per-step overhead of each backend.
for be in cuda cpu; do
    echo "cube_00 on $be:" >>"$OUTDIR/gpu-cube.log"
    OUT="$OUTDIR" sh benchmarks/cube-run.sh "$be" 3 >>"$OUTDIR/gpu-cube.log" 2>&1
done
echo
echo "device: $dev   date: $(date -u +%Y-%m-%d)   commit: $commit   tests exit: $trc"
cat "$table"
echo
cat "$OUTDIR/gpu-cube.log"
exit $trc
