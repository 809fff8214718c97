#!/bin/sh
# benchmarks/s8b-jenkins.sh [BRISTLE]: S8b, the S2 sweep with jenkins tie-boss contacts beside the
# lugre bundle (scenarios.md S8b): both at the scenario preload (5 N), at 100 N (stuck) and at
# 0.05 N (sliding), dt = 1e-5; prints one table (centre-tip peak amplitude and its frequency,
# friction energy, energy residual, wall time). Output folders under runs/s8b/.
set -eu
BR=${1:-./build/bristle}
OUT=runs/s8b
mkdir -p "$OUT"
for law in lugre jenkins; do
    for P in 5 100 0.05; do
        "$BR" run "scenarios/blades_sweep_$law.yaml" --quiet --backend cpu --out "$OUT/${law}_P$P" \
            --set loads.preload_L.magnitude.ramp.to="$P" --set loads.preload_R.magnitude.ramp.to="$P" \
            > "$OUT/${law}_P$P.log" 2>&1 &
        [ "$(jobs -p | wc -l)" -ge 2 ] && wait -n 2>/dev/null || wait
    done
done
wait
python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
print("| law | preload [N] | peak centre tip [mm] | at [Hz] | friction energy [mJ] | residual | wall [s] |")
print("|---|---|---|---|---|---|---|")
for P in ("5", "100", "0.05"):
    for law in ("lugre", "jenkins"):
        run = f"{out}/{law}_P{P}"
        with open(f"{run}/timeseries.csv") as f:
            r = csv.reader(f); h = next(r); it, ix = h.index("t"), h.index("tip_C.x")
            best = max(((abs(float(row[ix])), float(row[it])) for row in r))
        j = json.load(open(f"{run}/summary.json"))
        E = sum(s["friction_work_J"] for s in j["contact_sets"])
        fpk = 30 * (80 / 30) ** (best[1] / 10)
        print(f"| {law} | {P} | {1e3*best[0]:.4f} | {fpk:.2f} | {1e3*E:.4f} | {j['energy']['residual_relative']:.2e} | {j['wall_time_s']:.2f} |")
PY
