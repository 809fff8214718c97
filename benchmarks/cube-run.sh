#!/bin/sh
# benchmarks/cube-run.sh: the issue-3 target, the 4-second S1 cube run (4e5 steps,
# 6 points) on one core. Runs `bristle run scenarios/cube_00.yaml` REPEAT times
# pinned to CPU 0 with one OpenMP thread and prints, per run, the wall time,
# steps per second and where the time went (from summary.json), best run last.
#   usage: sh benchmarks/cube-run.sh [backend] [repeat]   (default cpu 5)
set -eu
cd "$(dirname "$0")/.."
BACKEND="${1:-cpu}"
REPEAT="${2:-5}"
OUTDIR="${OUT:-/tmp}/bristle-cube-bench"
[ -x build/bristle ] || sh scripts/setup.sh
PIN=""
command -v taskset >/dev/null 2>&1 && PIN="taskset -c 0"
field() { sed -n "s/.*\"$1\":[[:space:]]*\([0-9.e+-]*\).*/\1/p" "$OUTDIR/summary.json" | head -1; }
best=""
i=0
printf "%-4s %10s %12s %10s %10s %10s\n" run wall_s steps_per_s field_s host_s output_s
while [ "$i" -lt "$REPEAT" ]; do
    i=$((i + 1))
    OMP_NUM_THREADS=1 $PIN ./build/bristle run scenarios/cube_00.yaml --backend "$BACKEND" --quiet --out "$OUTDIR" >/dev/null
    line=$(printf "%-4s %10.3f %12.4g %10.3f %10.3f %10.3f" "$i" "$(field wall_time_s)" "$(field steps_per_second)" \
        "$(field contact_field)" "$(field host_dynamics)" "$(field output)")
    echo "$line"
    w=$(field wall_time_s)
    if [ -z "$best" ] || [ "$(echo "$w < $bestw" | awk '{print ($1 < $3)}')" = 1 ]; then best="$line"; bestw="$w"; fi
done
echo "best: $best"
