#!/bin/sh
# benchmarks/s2-preloads.sh [BRISTLE] [DT]: the S2 sweeps (lugre and gkf, 4 points per face) at
# applied preloads from 0.05 to 100 N (issue 13, item 1), two runs at a time; prints one table
# row per run: law, preload, status, energy residual, friction energy, wall time.
# Output folders under runs/s2-preloads/.
set -eu
BR=${1:-./build/bristle}
DT=${2:-1e-5}
OUT=runs/s2-preloads
mkdir -p "$OUT"
run() { # law preload
    d="$OUT/$1_P$2_dt$DT"
    "$BR" run "scenarios/blades_sweep_$1.yaml" --quiet --backend cpu --out "$d" --set time.dt="$DT" \
        --set loads.preload_L.magnitude.ramp.to="$2" --set loads.preload_R.magnitude.ramp.to="$2" \
        > "$d.log" 2>&1 || true
}
for law in lugre gkf; do
    for P in 0.05 0.1 0.2 0.5 1 2 5 10 20 50 100; do
        run "$law" "$P" &
        [ "$(jobs -p | wc -l)" -ge 2 ] && wait -n 2>/dev/null || wait
    done
done
wait
echo "| law | P [N] | status | energy residual | friction energy L + R [J] | wall [s] |"
echo "|---|---|---|---|---|---|"
for law in lugre gkf; do
    for P in 0.05 0.1 0.2 0.5 1 2 5 10 20 50 100; do
        python3 - "$OUT/${law}_P${P}_dt$DT/summary.json" "$law" "$P" <<'PY'
import json, sys
p, law, P = sys.argv[1:4]
try:
    j = json.load(open(p))
except Exception as e:
    print(f"| {law} | {P} | no summary | | | |"); sys.exit(0)
E = sum(s["friction_work_J"] for s in j["contact_sets"])
print(f"| {law} | {P} | {j['status']} | {j['energy']['residual_relative']:.2e} | {E:.4g} | {j['wall_time_s']:.1f} |")
PY
    done
done
