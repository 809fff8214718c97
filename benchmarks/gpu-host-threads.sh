#!/bin/sh
# benchmarks/gpu-host-threads.sh [BRISTLE]: the host's share of a GPU study's step (issue 16): S5b
# studies of GPU_HOST_COUNT variants (default 1e4) on the beam batch with GPU_HOST_THREADS host
# threads (default "1 4 all") and each OpenMP wait policy (OMP_WAIT_POLICY unset, then active):
# the step's cost from two step counts (100 and 300; setup excluded) and, from a third run with
# BRISTLE_BEAM_TIMING=1, the host's phases (the sampled rows' copy; their scatter into each variant's
# data and analysis, one pass) in ms a step.
# Prints a markdown table. Runs where benchmarks/gpu-profile.sh does (a prebuilt binary is fine).
set -u
BR=${1:-build-gpu/bin/bristle}
OUT=${OUT:-runs/gpu-host}
nv=${GPU_HOST_COUNT:-10000}
echo "| host threads | OMP_WAIT_POLICY | per step [ms] | copy [ms] | scatter and analysis [ms] | GPU phases [ms] |"
echo "|---|---|---|---|---|---|"
for th in ${GPU_HOST_THREADS:-1 4 all}; do
    [ "$th" = all ] && th=$(nproc)
    for pol in default active; do
        w=""
        for st in 100 300; do
            if [ $pol = default ]; then
                line=$(OUT="$OUT" GPU_PROFILE_COUNTS=$nv GPU_PROFILE_STEPS=$st GPU_PROFILE_PATHS=beams GPU_PROFILE_THREADS=$th \
                    sh benchmarks/gpu-profile.sh "$BR" 2>&1 | grep "^$nv variants")
            else
                line=$(OMP_WAIT_POLICY=$pol OUT="$OUT" GPU_PROFILE_COUNTS=$nv GPU_PROFILE_STEPS=$st GPU_PROFILE_PATHS=beams \
                    GPU_PROFILE_THREADS=$th sh benchmarks/gpu-profile.sh "$BR" 2>&1 | grep "^$nv variants")
            fi
            w="$w $(echo "$line" | sed -n 's/.*"wall_time_s":\([0-9.e+-]*\).*/\1/p')"
        done
        if [ $pol = default ]; then
            OUT="$OUT/t" BRISTLE_BEAM_TIMING=1 GPU_PROFILE_COUNTS=$nv GPU_PROFILE_STEPS=100 GPU_PROFILE_PATHS=beams \
                GPU_PROFILE_THREADS=$th sh benchmarks/gpu-profile.sh "$BR" >/dev/null 2>&1
        else
            OMP_WAIT_POLICY=$pol OUT="$OUT/t" BRISTLE_BEAM_TIMING=1 GPU_PROFILE_COUNTS=$nv GPU_PROFILE_STEPS=100 \
                GPU_PROFILE_PATHS=beams GPU_PROFILE_THREADS=$th sh benchmarks/gpu-profile.sh "$BR" >/dev/null 2>&1
        fi
        # shellcheck disable=SC2086
        python3 - "$OUT/t/r-$nv-beams/summary.json" $th $pol $w <<'PY'
import json, sys
f, th, pol = sys.argv[1:4]
try:
    a, b = float(sys.argv[4]), float(sys.argv[5])
    step = "%.3f" % (1e3 * (b - a) / 200)
except (IndexError, ValueError):
    step = "FAILED"
try:
    p = json.load(open(f))["beam_batch_seconds"]
except (OSError, KeyError, ValueError):
    print("| %s | %s | %s | FAILED | | |" % (th, pol, step)); sys.exit(0)
ms = lambda k: "%.3f" % (10 * p.get(k, 0))  # seconds over 100 steps -> ms a step
gpu = sum(p.get(k, 0) for k in ("frames", "field", "field_finish", "forces_pre", "solve", "forces_post", "codes", "integrate"))
print("| %s | %s | %s | %s | %s | %.3f |" % (th, pol, step, ms("sample_copy"), ms("analysis"), 10 * gpu))
PY
    done
done
