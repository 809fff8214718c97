#!/bin/sh
# benchmarks/study-gpu.sh [BRISTLE]: issue 16's study rows, run by benchmarks/gpu-check.sh on a GPU
# machine (and on any machine with STUDY_GPU_BACKENDS=cpu, which checks the script itself).
#   1. Agreement: the S2 lugre ramp (scenarios/blades_ramp_lugre.yaml, STUDY_GPU_S2_END s) run on each
#      backend, every timeseries.csv column compared; S5b (studies/mistuning_lugre.yaml) with
#      STUDY_GPU_AGREE_EXACT_COUNT variants (default: STUDY_GPU_AGREE_COUNT) to STUDY_GPU_AGREE_EXACT_END
#      s (default 0.2: before the tie-bosses first separate), every study.csv cell compared; each
#      difference against its quantity's physical scale from the CPU's run or study (compare cell), at
#      most 1e-8. Then S5b with STUDY_GPU_AGREE_COUNT variants (default 64) to STUDY_GPU_AGREE_END s
#      (past the sweep window's start, so the peaks exist), compared as ensembles (compare ensemble): from about 0.25 s the tie-bosses separate and strike
#      many times, a phase that carries a rounding difference up to percents (on the CPU alone, E of
#      one blade changed by 1e-14 of itself moves that run's friction energy at 1.3 s by 2.1 %), so
#      each variant's row is not comparable there, but the study's distribution is: each column's
#      mean over the variants within 0.25 of its standard deviation.
#   2. Throughput: S5b with STUDY_GPU_COUNTS variants (default 100 1000 10000), each study about
#      STUDY_GPU_VSTEPS variant-steps (default 5e6: the end time shrinks as the count grows), on each
#      backend: variant-steps per second from summary.json, the CPU on all its cores; cuda is the
#      contact field on the GPU and the structures on the host (BRISTLE_STUDY_BEAMS=host), cuda-beams
#      every stage on the GPU (the beam batch; summary.json's structure_step says which ran).
# Prints two markdown tables; exits 1 if a run or study failed or a difference exceeds 1e-8 of its
# quantity's physical scale (compare, below).
# Output under ${STUDY_GPU_DIR:-runs/study-gpu}/ (not under $OUT: a 1e4-variant study writes a file a variant).
set -u
BR=${1:-./build/bristle}
BACKENDS=${STUDY_GPU_BACKENDS:-cpu cuda cuda-beams}
COUNTS=${STUDY_GPU_COUNTS:-100 1000 10000}
VSTEPS=${STUDY_GPU_VSTEPS:-5000000}
AGREE_N=${STUDY_GPU_AGREE_COUNT:-64}
AGREE_EXACT_N=${STUDY_GPU_AGREE_EXACT_COUNT:-$AGREE_N}
AGREE_END=${STUDY_GPU_AGREE_END:-1.3}
AGREE_EXACT_END=${STUDY_GPU_AGREE_EXACT_END:-0.2}
# (not before the excitation starts at 0.2 s: the power scale is the preload's, tiny, and a 1-ulp change
# of one preload on the CPU alone moves contact_R.P at 0.2 s by 3.7e-8 of it, at 0.5 s by 1.7e-10)
S2_END=${STUDY_GPU_S2_END:-0.5}
D="${STUDY_GPU_DIR:-runs/study-gpu}"
rm -rf "$D" && mkdir -p "$D"
rc=0
cores=$(nproc)

# s5b COUNT END FILE: the S5b study file with COUNT random variants (plus the tuned one) ending at END
# a backend of the table -> the --backend it runs with, and BRISTLE_STUDY_BEAMS: cuda-beams is
# --backend cuda with every stage of a study's step on the GPU (the beam batch, docs/studies.md; the
# default of --backend cuda since 2026-11-27), cuda the field alone on the GPU (BRISTLE_STUDY_BEAMS=host)
backend() { if [ "$1" = cuda-beams ]; then echo cuda; else echo "$1"; fi; }
beams() { case "$1" in cuda-beams) echo cuda ;; cuda) echo host ;; esac; }

s5b() {
    sed "s|^scenario: ../scenarios/|scenario: $(pwd)/scenarios/|; s|count: 64|count: $1|" studies/mistuning_lugre.yaml |
        sed "s|^random:|set: {time.end: $2}\nrandom:|" >"$3"
}

# compare FILE...: the first file (the CPU's) against each other one, column by column, each difference
# against the physical scale of the column's quantity (docs/gpu.md, as test_run_s1_cuda): positions
# against the largest position of the run or study, velocities the largest velocity, angular
# velocities, forces, moments, powers, energies and frequencies each against their group's largest;
# counts, inputs (a study's columns before status), status and times exactly; energy_residual (already
# relative to the run's energy) against 1. Not each column against its own size: a column zero by
# symmetry (S2's tip_C.wz, 4e-13 rad/s) holds rounding noise that differs between backends by its
# whole size. Prints "WORST COLUMN" (WORST as a fraction of the scale). compare ensemble FILE...: the
# same exact columns cell by cell, every other column by its mean over the rows: the difference of
# the means as a fraction of the first file's standard deviation over the rows.
compare() {
    python3 - "$@" <<'PY'
import csv, math, statistics, sys
mode, files = sys.argv[1], sys.argv[2:]
def load(f):
    rows = list(csv.reader(open(f)))
    return rows[0], rows[1:]
def num(x):
    try: return float(x)
    except ValueError: return None
def group(name, header):
    if "status" in header and header.index(name) <= header.index("status"): return "exact"
    last = name.split(".")[-1]
    if name in ("t", "t_reached", "error") or last in ("ncontact", "nstick"): return "exact"
    if name == "energy_residual": return "one"
    if last == "f_peak": return "freq"
    if last == "peak": last = name.split(".")[-2]
    if name.startswith("energy.") or last in ("E", "friction_energy"): return "energy"
    if last in ("x", "y", "z", "pen_max"): return "pos"
    if last in ("vx", "vy", "vz", "vt_max", "Vx", "Vy", "Vz"): return "vel"
    if last in ("wx", "wy", "wz"): return "ang"
    if last in ("Fx", "Fy", "Fz", "Ft", "N", "F"): return "force"
    if last in ("Mx", "My", "Mz"): return "moment"
    if last == "P": return "power"
    return "own:" + name  # a quantity of its own (AF): its own largest value
h0, r0 = load(files[0])
cols = [[num(x[c]) for x in r0] for c in range(len(h0))]
scale = {"one": 1.0}
for c, name in enumerate(h0):
    g = group(name, h0)
    m = max([abs(v) for v in cols[c] if v is not None and math.isfinite(v)] + [0.0])
    scale[g] = max(scale.get(g, 0.0), m)
worst, where = 0.0, "-"
for f in files[1:]:
    h, r = load(f)
    if h != h0 or len(r) != len(r0):
        print("DIFFERENT-SHAPE %s" % f); sys.exit(0)
    for c, name in enumerate(h0):
        g = group(name, h0)
        if mode == "ensemble" and g != "exact":
            a = [num(x[c]) for x in r0]; b = [num(x[c]) for x in r]
            if any((u is None) != (v is None) for u, v in zip(a, b)):
                print("DIFFERENT-CELLS %s" % name); sys.exit(0)
            a = [u for u in a if u is not None]; b = [v for v in b if v is not None]
            if len(a) < 2: continue
            sd = statistics.stdev(a)
            d = abs(statistics.mean(a) - statistics.mean(b)) / sd if sd > 0 else (0.0 if a == b else math.inf)
            if d > worst: worst, where = d, name
            continue
        for x, y in zip(r0, r):
            if x[c] == y[c]: continue
            a, b = num(x[c]), num(y[c])
            if g == "exact" or a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
                print("DIFFERENT-CELLS %s" % name); sys.exit(0)
            d = abs(a - b) / scale[g] if scale[g] > 0 else math.inf
            if d > worst: worst, where = d, name
print("%.3g %s" % (worst, where))
PY
}

# agreement row: LABEL MODE LIMIT FILES -> a table row, rc=1 above LIMIT (cell: 1e-8, docs/gpu.md's
# contract for whole runs) or when the files do not match in shape or in an exact column
agree_row() {
    label=$1 mode=$2 limit=$3
    shift 3
    res=$(compare "$mode" "$@")
    w=${res%% *}
    echo "| $label | $w | ${res#* } | $limit |" >>"$D/agree.md"
    case "$w" in
        DIFFERENT*) rc=1 ;;
        *) python3 -c "import sys; sys.exit(0 if float('$w') <= $limit else 1)" || rc=1 ;;
    esac
}

{
    echo "| check | worst difference (cell: / the quantity's scale; ensemble: of the means / the spread) | in column | limit |"
    echo "|---|---|---|---|"
} >"$D/agree.md"
{
    echo "| variants | end [s] | backend | threads | variant-steps | wall [s] | variant-steps/s | structure step |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$D/throughput.md"
rm -f "$D/phases.md"

# both_sides NAME CSV CMD...: CMD --backend BE --out $D/NAME-BE on each backend; the CSV file of each
# that completed in $files (rc=1 for one that failed)
both_sides() {
    name=$1 csv=$2
    shift 2
    files=""
    for be in $BACKENDS; do
        if BRISTLE_STUDY_BEAMS=$(beams "$be") "$@" --backend "$(backend "$be")" --out "$D/$name-$be" >"$D/$name-$be.log" 2>&1; then
            files="$files $D/$name-$be/$csv"
        else
            echo "$name on $be failed: $(tail -1 "$D/$name-$be.log")"
            rc=1
        fi
    done
}

# 1. agreement
both_sides s2 timeseries.csv "$BR" run scenarios/blades_ramp_lugre.yaml --quiet --set time.end="$S2_END"
# shellcheck disable=SC2086
[ "$(echo $files | wc -w)" -ge 2 ] && agree_row "S2 lugre ramp to $S2_END s, timeseries.csv ($BACKENDS)" cell 1e-8 $files
for end in "$AGREE_EXACT_END" "$AGREE_END"; do
    [ "$end" = 0 ] && continue # STUDY_GPU_AGREE_END=0: no ensemble comparison
    mode=cell limit=1e-8 count=$AGREE_EXACT_N
    [ "$end" = "$AGREE_EXACT_END" ] || mode=ensemble limit=0.25 count=$AGREE_N
    s5b "$count" "$end" "$D/agree-$end.yaml"
    both_sides "agree-$end" study.csv "$BR" study "$D/agree-$end.yaml" --threads "$cores" --quiet
    # shellcheck disable=SC2086
    [ "$(echo $files | wc -w)" -ge 2 ] &&
        agree_row "S5b, $((count + 1)) variants to $end s, study.csv ($BACKENDS), $mode" $mode $limit $files
done

# 2. throughput
for n in $COUNTS; do
    # end time for about VSTEPS variant-steps at S2's 1e-5 s step, at least 100 steps
    end=$(python3 -c "print(max(1e-3, $VSTEPS / ($n + 1) * 1e-5))")
    s5b "$n" "$end" "$D/t$n.yaml"
    for be in $BACKENDS; do
        o="$D/t$n-$be"
        # cuda-beams with its phases timed (each launch waited for: a little slower than untimed)
        if BRISTLE_BEAM_TIMING=$(beams "$be") BRISTLE_STUDY_BEAMS=$(beams "$be") "$BR" study "$D/t$n.yaml" --backend "$(backend "$be")" --threads "$cores" --quiet --out "$o" >"$o.log" 2>&1; then
            [ "$be" = cuda-beams ] && python3 - "$o/summary.json" "$n" >>"$D/phases.md" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j.get("beam_batch_seconds", {})
print("%d variants: " % (int(sys.argv[2]) + 1) + ", ".join("%s %.3g s" % (k, v) for k, v in p.items()))
PY
            python3 - "$o/summary.json" "$n" "$end" "$be" >>"$D/throughput.md" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("| %d | %.4g | %s (%s) | %d | %d | %.3g | %.3g | %s |" % (int(sys.argv[2]) + 1, float(sys.argv[3]), sys.argv[4],
      j["backend"], j["threads"], j["variant_steps"], j["wall_time_s"], j["variant_steps_per_second"],
      j.get("structure_step", "per variant on the host")))
PY
        else
            echo "| $((n + 1)) | $end | $be | | | FAILED: $(tail -1 "$o.log") | | |" >>"$D/throughput.md"
            rc=1
        fi
    done
done
cat "$D/agree.md"
echo
cat "$D/throughput.md"
if [ -s "$D/phases.md" ]; then echo; echo "cuda-beams, where the time went (BRISTLE_BEAM_TIMING):"; cat "$D/phases.md"; fi
exit $rc
