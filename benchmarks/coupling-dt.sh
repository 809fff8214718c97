#!/bin/sh
# benchmarks/coupling-dt.sh [BRISTLE]: the accuracy of the implicit coupling against the step
# (issue 13, docs/time-stepping.md): the S2 sweeps (lugre, gkf) at dt = 1e-4, 5e-5, 2.5e-5, 1e-5
# against a dt = 2.5e-6 reference (centre-tip peak amplitude and frequency, friction energy,
# energy residual, wall time), and the S1 cube (cube_00) at dt = 1e-3 ... 1e-5 (slip onset:
# first in-plane speed above 1 mm/s, interpolated; hold error; residual). Markdown on stdout.
# Run folders under runs/coupling-dt/.
set -eu
BR=${1:-./build/bristle}
OUT=runs/coupling-dt
mkdir -p "$OUT"
for law in lugre gkf; do
    for dt in 2.5e-6 1e-5 2.5e-5 5e-5 1e-4; do
        "$BR" run "scenarios/blades_sweep_$law.yaml" --quiet --backend cpu --out "$OUT/s2_${law}_$dt" \
            --set time.dt="$dt" > /dev/null 2>&1 || true
    done
done
for dt in 1e-5 2.5e-5 5e-5 1e-4 1e-3; do
    iv=1e-4
    [ "$dt" = 1e-3 ] && iv=1e-3
    "$BR" run scenarios/cube_00.yaml --quiet --backend cpu --out "$OUT/s1_$dt" --set time.dt="$dt" \
        --set output.interval="$iv" > /dev/null 2>&1 || true
done
python3 - "$OUT" <<'PY'
import csv, json, math, sys
out = sys.argv[1]
def table(p):
    with open(p) as f:
        r = csv.reader(f); h = next(r); cols = {k: [] for k in h}
        for row in r:
            for k, v in zip(h, row): cols[k].append(float(v))
    return cols
def summ(run):
    return json.load(open(f"{out}/{run}/summary.json"))
print("| S2 sweep | dt [s] | peak centre tip [mm] | vs 2.5e-6 | at [Hz] | friction energy [mJ] | vs 2.5e-6 | of it 0-1 s | vs 2.5e-6 | of it 1-10 s | vs 2.5e-6 | residual | wall [s] |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for law in ("lugre", "gkf"):
    ref = None
    for dt in ("2.5e-6", "1e-5", "2.5e-5", "5e-5", "1e-4"):
        run = f"s2_{law}_{dt}"
        c = table(f"{out}/{run}/timeseries.csv"); j = summ(run)
        x = c["tip_C.x"]; i = max(range(len(x)), key=lambda k: abs(x[k]))
        f = 30 * (80 / 30) ** (c["t"][i] / 10)
        E = sum(s["friction_work_J"] for s in j["contact_sets"])
        ecols = [k for k in c if k.endswith(".E")]
        k1 = min(range(len(c["t"])), key=lambda k: abs(c["t"][k] - 1.0))
        E1 = sum(c[k][k1] for k in ecols)  # booked by the end of the preload transient (t = 1 s)
        if ref is None: ref = (abs(x[i]), E, E1)
        print(f"| {law} | {dt} | {1e3*abs(x[i]):.5f} | {100*(abs(x[i])/ref[0]-1):+.3f} % | {f:.2f} | {1e3*E:.4f} | "
              f"{100*(E/ref[1]-1):+.2f} % | {1e3*E1:.4f} | {100*(E1/ref[2]-1):+.1f} % | {1e3*(E-E1):.4f} | "
              f"{100*((E-E1)/(ref[1]-ref[2])-1):+.2f} % | {j['energy']['residual_relative']:.2e} | {j['wall_time_s']:.2f} |")
print()
print("| S1 cube_00 | dt [s] | slip onset [s] | vs 1e-5 [ms] | hold: max abs(F - 0.75 N) [N] | residual |")
print("|---|---|---|---|---|---|")
ref = None
for dt in ("1e-5", "2.5e-5", "5e-5", "1e-4", "1e-3"):
    run = f"s1_{dt}"
    c = table(f"{out}/{run}/timeseries.csv"); j = summ(run)
    onset, pv, pt = None, 0.0, 0.0
    for t, vx, vy in zip(c["t"], c["cube.vx"], c["cube.vy"]):
        v = math.hypot(vx, vy)
        if v > 1e-3:
            onset = pt + (1e-3 - pv) / (v - pv) * (t - pt); break
        pv, pt = v, t
    hold = max(abs(F - 0.75) for t, F in zip(c["t"], c["base.Ft"]) if 2.2 <= t <= 3.0)
    if ref is None: ref = onset
    print(f"| cube_00 | {dt} | {onset:.5f} | {1e3*(onset-ref):+.4f} | {hold:.1e} | {j['energy']['residual_relative']:.2e} |")
PY
