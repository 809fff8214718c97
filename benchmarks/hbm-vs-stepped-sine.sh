#!/bin/sh
# benchmarks/hbm-vs-stepped-sine.sh [STUDY] [BRISTLE]: issue 21, items 3 and 5. The S5c family of forced
# responses (the S2 bundle, excitation levels 0.01 to 3 N) twice on this machine in one run: by the
# stepped-sine study STUDY (default studies/frf_lugre.yaml, --threads 2), and by `bristle hbm`, one curve
# per level from 40 to 70 Hz, two levels at a time (H, N, TOL from the environment: default 3, 64, 1e-6).
# Prints a markdown table: per level the two wall times' share, the largest difference of the receptance
# of each column at the study's frequencies (harmonic balance's first harmonic, interpolated linearly on its
# curve; at the frequencies where the stepped sine converged, the others counted apart), and the two peaks.
# The curve's points lie up to 2 Hz apart on the flanks, where the interpolation is then much of the
# difference (0.39 of S5c's 0.42 % at 68 Hz): AT=1 also runs harmonic balance at each of the study's
# frequencies (its first point, `--from f`, or where Newton fails from the static state there, the end of a
# continuation in the level from 0.01 of it; 61 a level in about 1.5 s each, two at a time, OUT/at) and
# compares there without interpolating (the table's "at each frequency" columns; with COMPARE_ONLY, the
# OUT/at of an earlier AT=1 run).
# Output folders under OUT (default runs/hbm-vs-stepped-sine/<study name>); COMPARE_ONLY=1 tabulates the
# outputs of an earlier run again (its times from OUT/times); HBM_ONLY=1 keeps an earlier run's study (and its
# time) and runs harmonic balance again. LEVELS: the excitation levels compared (default all six of S5c; a
# study with fewer levels names its own, variant 0's 1 N among them when wanted).
set -eu
cd "$(dirname "$0")/.."
STUDY=${1:-studies/frf_lugre.yaml}
BR=${2:-./build/bristle}
H=${H:-3} N=${N:-64} TOL=${TOL:-1e-6}
name=$(basename "$STUDY" .yaml)
OUT=${OUT:-runs/hbm-vs-stepped-sine/$name}
LEVELS=${LEVELS:-"0.01 0.03 0.1 0.3 1 3"}
if [ "${COMPARE_ONLY:-0}" = 1 ]; then
    read -r t0 t1 t2 < "$OUT/times"
else
    if [ "${HBM_ONLY:-0}" = 1 ]; then
        read -r t0 t1 t2 < "$OUT/times"
        rm -rf "$OUT/hbm"
        ts=$(date +%s.%N)
        t0=$(echo "$ts - ($t1 - $t0)" | bc) t1=$ts
    else
        rm -rf "$OUT" && mkdir -p "$OUT"
        t0=$(date +%s.%N)
        "$BR" study "$STUDY" --threads 2 --out "$OUT/study" --quiet > "$OUT/study.log" 2>&1
        t1=$(date +%s.%N)
    fi
    printf '%s\n' $LEVELS | xargs -P 2 -I{} "$BR" hbm scenarios/blades_sine_lugre.yaml --from 40 --to 70 \
        --harmonics "$H" --samples "$N" --tol "$TOL" --column tip_C.x --column tip_L.x --column tip_R.x \
        --set loads.excitation.magnitude.harmonic.amplitude={} --out "$OUT/hbm/F{}" --quiet > "$OUT/hbm.log" 2>&1
    t2=$(date +%s.%N)
    echo "$t0 $t1 $t2" > "$OUT/times"
fi
if [ "${AT:-0}" = 1 ] && [ "${COMPARE_ONLY:-0}" != 1 ]; then
    rm -rf "$OUT/at"
    f0=$(ls "$OUT/study/variants" | head -n 1)
    for F in $LEVELS; do
        awk -F, -v F="$F" 'NR > 1 {print F, $1}' "$OUT/study/variants/$f0/frf.csv"
    done | xargs -P 2 -n 2 sh -c 'set -- "$0" "$@"
        b=$1 h=$2 n=$3 t=$4 o=$5 F=$6 f=$7
        hb() { rm -rf "$o/at/F$F/f$f" "$o/at/F$F/f$f.part"
            "$b" hbm scenarios/blades_sine_lugre.yaml --harmonics "$h" --samples "$n" --tol "$t" \
            --column tip_C.x --column tip_L.x --column tip_R.x --set loads.excitation.magnitude.harmonic.amplitude="$F" \
            --out "$o/at/F$F/f$f" --quiet "$@"; }
        hb --from "$f" --to "$(echo "$f + 0.02" | bc)" --points 2 ||
        { echo "(at $f Hz, $F N: from the level 0.01 of it instead)"
          hb --at "$f" --level-from 0.01 --level-to 1 --points 4; }' \
        "$BR" "$H" "$N" "$TOL" "$OUT" \
        > "$OUT/at.log" 2>&1
fi
/usr/bin/python3 - "$OUT" "$t0" "$t1" "$t2" "$STUDY" "$H" "$N" "$TOL" $LEVELS <<'PY'
import csv, json, sys
out, t0, t1, t2, study, H, N, tol = sys.argv[1:9]
levels = sys.argv[9:]
ts, th = float(t1) - float(t0), float(t2) - float(t1)
cols = ["tip_C.x", "tip_L.x", "tip_R.x"]
def rows(p):
    with open(p) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
def interp(x, xs, ys):  # xs increasing on the part used
    for i in range(1, len(xs)):
        if (xs[i - 1] - x) * (xs[i] - x) <= 0 and xs[i] != xs[i - 1]:
            t = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            return ys[i - 1] + t * (ys[i] - ys[i - 1])
    return float("nan")
print(f"Study `{study}` on 2 threads: {ts:.1f} s. Harmonic balance (H = {H}, N = {N}, --tol {tol}), "
      f"{len(levels)} curves from 40 to 70 Hz, two processes at a time: {th:.1f} s. Ratio {ts / th:.1f}.\n")
print("| F [N] | hbm s | points | largest difference tip_C.x | tip_L.x | tip_R.x | stepped-sine peak tip_C.x | "
      "harmonic balance peak | peak frequency difference | not converged |")
print("|---|---|---|---|---|---|---|---|---|---|")
# each level's variant by its amplitude in study.csv (variant 0 is the scenario as it is, 1 N, the grid's follow)
with open(f"{out}/study/study.csv") as fh:
    amp = {}
    for r in csv.DictReader(fh):
        a = r["loads.excitation.magnitude.harmonic.amplitude"]
        if a != "": amp[float(a)] = int(r["variant"])
    # variant 0: the scenario's own amplitude (harmonic balance runs scenarios/blades_sine_lugre.yaml)
    import re
    base = re.search(r"harmonic: \{amplitude: ([-0-9.eE+]+)", open("scenarios/blades_sine_lugre.yaml").read())
    if not base: sys.exit("hbm-vs-stepped-sine: no harmonic amplitude in scenarios/blades_sine_lugre.yaml")
    amp.setdefault(float(base.group(1)), 0)
missing = [F for F in levels if float(F) not in amp]
if missing: sys.exit(f"hbm-vs-stepped-sine: the study has no variant of level(s) {' '.join(missing)} N")
for F in levels:
    v = amp[float(F)]
    ss = rows(f"{out}/study/variants/{v:05d}/frf.csv")
    hb = rows(f"{out}/hbm/F{F}/frf.csv")
    sm = json.load(open(f"{out}/hbm/F{F}/summary.json"))
    f = [r["f_Hz"] for r in hb]
    diffs = []
    for c in cols:
        worst, at, wnc, nconv = 0.0, 0.0, 0.0, 0
        for r in ss:
            a = interp(r["f"], f, [x[c + ".h1"] / float(F) for x in hb])
            d = abs(a / r[c + ".receptance"] - 1.0)
            if r["converged"] == 0: wnc = max(wnc, d)
            else:
                nconv += 1
                if d > worst: worst, at = d, r["f"]
        conv = f"{100 * worst:.2f} % ({at:g} Hz)" if nconv else "none converged"
        diffs.append(conv + (f"; {100 * wnc:.1f} % where not converged" if wnc > 0 else ""))
    ps = max(ss, key=lambda r: r["tip_C.x.receptance"])
    ph = max(hb, key=lambda r: r["tip_C.x.h1"])
    nc = sum(1 for r in ss if r["converged"] == 0)
    print(f"| {F} | {sm['wall_seconds']:.1f} | {sm['points']} | {diffs[0]} | {diffs[1]} | {diffs[2]} | "
          f"{1e3 * ps['tip_C.x.receptance']:.4f} mm/N at {ps['f']:g} Hz | {1e3 * ph['tip_C.x.h1'] / float(F):.4f} mm/N at "
          f"{ph['f_Hz']:.4f} Hz | {100 * abs(ph['f_Hz'] / ps['f'] - 1):.3f} % | {nc} of {len(ss)} |")
# AT=1: harmonic balance's first point at each of the study's frequencies, no interpolation
import os
if all(os.path.isdir(f"{out}/at/F{F}") for F in levels):
    print("\nHarmonic balance at each of the study's frequencies (AT=1, `--from f`), the converged frequencies:\n")
    print("| F [N] | largest difference tip_C.x | tip_L.x | tip_R.x | median tip_C.x | tip_L.x | tip_R.x |")
    print("|---|---|---|---|---|---|---|")
    for F in levels:
        v = amp[float(F)]
        with open(f"{out}/study/variants/{v:05d}/frf.csv") as fh:
            ss = list(csv.DictReader(fh))
        worst, med = [], []
        for c in cols:
            ds = []
            for r in ss:
                if float(r["converged"]) == 0: continue
                h = rows(f"{out}/at/F{F}/f{r['f']}/frf.csv")
                h = h[-1:] if h and "level" in h[0] else h  # level continuation: its last row, the level itself
                if not h or abs(h[0]["f_Hz"] - float(r["f"])) > 1e-9 * float(r["f"]):
                    sys.exit(f"hbm-vs-stepped-sine: no harmonic balance point at {r['f']} Hz, {F} N ({out}/at.log)")
                ds.append((abs(float(r[c + ".receptance"]) / (h[0][c + ".h1"] / float(F)) - 1.0), float(r["f"])))
            if not ds:
                worst.append("none converged"), med.append("")
                continue
            d, fw = max(ds)
            worst.append(f"{100 * d:.3f} % ({fw:g} Hz)")
            med.append(f"{100 * sorted(x for x, _ in ds)[len(ds) // 2]:.3f} %")
        print(f"| {F} | {worst[0]} | {worst[1]} | {worst[2]} | {med[0]} | {med[1]} | {med[2]} |")
PY
