#!/bin/sh
# benchmarks/lap_joint_backbone.sh: the lap joint's first nonlinear mode (issue 53, acceptance 5): a backbone of 40
# amplitudes (41 points: modal amplitudes 1e-7 to 3e-4, stick to strong microslip, H = 3) by `bristle hbm --mode 1`,
# timed in one run three ways on this machine:
#   bristle    as shipped: Anderson's acceleration of the AFT's period map, the colored Jacobian's oscillating colors
#              from the residual's periodic state, the colors on every thread;
#   1 thread   the same on one thread (OMP_NUM_THREADS=1);
#   plain      the simpler method it improves on: every AFT marched from rest without acceleration
#              (BRISTLE_HBM_NOAA=1 BRISTLE_HBM_NOWARM=1), the colors on every thread.
# The three backbones are compared point by point (frequency and damping ratio).
#
# usage: [RUNS="bristle,1 thread,plain"] sh benchmarks/lap_joint_backbone.sh [MESH_MM ...]
#   (default: 2; the shipped example is 1; RUNS the runs to time, bristle first)
#   (examples/lap_joint/.venv must exist: scripts/setup.sh makes it)
set -eu
cd "$(dirname "$0")/.."
BR=${BRISTLE:-build/bristle}
PY=examples/lap_joint/.venv/bin/python
[ -x "$PY" ] || { echo "lap_joint_backbone: $PY missing (sh scripts/setup.sh makes it)" >&2; exit 2; }
meshes=${*:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# The lap joint's backbone: 40 amplitudes (benchmarks/lap_joint_backbone.sh)"
echo
echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo
echo "| mesh | pairs | unknowns | run | wall [s] | Jacobians [s] | residuals [s] | linear solves [s] | Newton | AFT periods | capped | largest difference from bristle (f, D) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for h in $meshes; do
    d=$tmp/h$h
    mkdir -p "$d"
    "$PY" examples/lap_joint/build.py --out "$d" --h "$h" --modes 20 > /dev/null
    "$PY" -c "import sys; sys.path.insert(0, 'examples/lap_joint'); import lapmodel; lapmodel.hbm_scenario('$d', 1.0, '$d/mode.yaml')"
    IFS=,
    for run in ${RUNS:-bristle,1 thread,plain}; do
        unset IFS
        case $run in
            bristle) env="OMP_NUM_THREADS=$(nproc)" ;;
            "1 thread") env="OMP_NUM_THREADS=1" ;;
            plain) env="OMP_NUM_THREADS=$(nproc) BRISTLE_HBM_NOAA=1 BRISTLE_HBM_NOWARM=1" ;;
        esac
        out=$d/$(echo "$run" | tr ' ' '_')
        env $env "$BR" hbm "$d/mode.yaml" --mode 1 --amplitude-from 1e-7 --amplitude-to 3e-4 --points 40 --harmonics 3 \
            --column lap.tip.z --out "$out" --quiet
        "$PY" - "$out" "$d/bristle" "$h" "$run" <<'EOF'
import csv, json, sys
out, ref, h, run = sys.argv[1:5]
j = json.load(open(out + "/summary.json"))
rows = list(csv.DictReader(open(out + "/backbone.csv")))
base = list(csv.DictReader(open(ref + "/backbone.csv")))
df = dD = 0.0
for r, b in zip(rows, base):
    if float(r["amplitude"]) == float(b["amplitude"]):
        df = max(df, abs(float(r["f_Hz"]) / float(b["f_Hz"]) - 1))
        dD = max(dD, abs(float(r["damping_ratio"]) / float(b["damping_ratio"]) - 1))
pairs = {"2": 121, "1": 441}.get(h, "?")
t = j["backbone_time_split_s"]
print("| %s mm | %s | %d | %s | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %.1e, %.1e |" % (
    h, pairs, j["unknowns"], run, j["backbone_wall_s"], t["jacobians"], t["residuals"], t["linear_solves"],
    j["newton_iterations"], j["aft_periods"], j["aft_capped"], df, dD))
EOF
    done
done
