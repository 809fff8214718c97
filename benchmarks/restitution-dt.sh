#!/bin/sh
# restitution-dt.sh [BRISTLE]: the table of docs/time-stepping.md "Substeps: measured": a 0.1 kg ball
# dropped at 1 m/s onto one Hunt-Crossley point (K 1e9, pK = pD = 1.5, D = 0.6 K: a v_in = 0.6, dahl3d
# friction), 2 ms, for the adaptive default, fixed steps (time.adaptive: false, the scheme before
# issue 50) and explicit coupling, at dt 1e-4, 1e-5, 1e-6: the exit speed against Hunt and Crossley's
# closed form a (v_in + v_out) = ln((1 + a v_in) / (1 - a v_out)), the energy residual, the substeps
# and the run's wall time (summary.json's, without the process start).
set -e
B=${1:-build/bristle}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat > "$W/drop.yaml" <<'Y'
name: drop
time: {end: 2.0e-3, dt: 1.0e-5}
output: {interval: 1.0e-4}
bodies:
  - {name: ball, mass: 0.1, box: [0.01, 0.01, 0.01], position: [0, 0, 1.0e-4], velocity: [0, 0, -1.0],
     lock: [x, y, rx, ry, rz]}
contacts:
  - name: c
    body: ball
    surface: {type: plane, frame: ground, point: [0, 0, 0], normal: [0, 0, 1]}
    points: {list: [[0, 0, 0]]}
    area: 1.0
    normal: {law: hunt_crossley, K: 1.0e9, pK: 1.5, D: 6.0e8, pD: 1.5}
    friction: {law: dahl3d, mu_k: 0.3, sigma0: 1.0e5}
Y
echo "| scheme | dt [s] | exit speed [m/s] | vs exact | energy residual | substeps (smallest [s]) | wall [s] |"
echo "|---|---|---|---|---|---|---|"
for scheme in adaptive fixed explicit; do
    for dt in 1e-4 1e-5 1e-6; do
        case $scheme in
        adaptive) set -- ;;
        fixed) set -- --set time.adaptive=false ;;
        explicit) set -- --set time.coupling=explicit ;;
        esac
        "$B" run "$W/drop.yaml" --quiet --backend cpu --set time.dt=$dt --set output.interval=1e-4 --set output.plots=false "$@" \
            --out "$W/o" >/dev/null 2>&1 || true
        python3 - "$W/o" "$scheme" "$dt" <<'P'
import csv, json, math, sys
d, scheme, dt = sys.argv[1:]
a, v = 0.6, 1.0
lo, hi = 0.0, v
for _ in range(200):
    w = 0.5 * (lo + hi)
    if a * (v + w) - math.log((1 + a * v) / (1 - a * w)) > 0: lo = w
    else: hi = w
ex = 0.5 * (lo + hi)
try:
    s = json.load(open(d + "/summary.json"))
    rows = list(csv.DictReader(open(d + "/timeseries.csv")))
    vz = float(rows[-1]["ball.vz"])
    sub = s["substeps"]
    print("| %s | %s | %.6f | %+.3f %% | %.2e | %d (%.3g) | %.4f |" % (scheme, dt, vz, 100 * (vz / ex - 1),
          s["energy"]["residual_relative"], sub["substeps"], sub["smallest_s"], s["wall_time_s"]))
except Exception as e:
    print("| %s | %s | (run failed: %s) | | | | |" % (scheme, dt, e))
P
    done
done
