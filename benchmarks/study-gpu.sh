#!/bin/sh
# benchmarks/study-gpu.sh [BRISTLE]: issue 16's study rows, run by benchmarks/gpu-check.sh on a GPU
# machine (and on any machine with STUDY_GPU_BACKENDS=cpu, which checks the script itself).
#   1. Agreement: the S2 lugre ramp (scenarios/blades_ramp_lugre.yaml, STUDY_GPU_S2_END s) run on each
#      backend, every timeseries.csv column compared; S5b (studies/mistuning_lugre.yaml) with
#      STUDY_GPU_AGREE_COUNT variants (default 1024) to STUDY_GPU_AGREE_END s (past the sweep
#      window's start, so the peaks exist) on each backend, every study.csv column compared. Each
#      difference is relative to the column's largest magnitude over the run or study.
#   2. Throughput: S5b with STUDY_GPU_COUNTS variants (default 100 1000 10000), each study about
#      STUDY_GPU_VSTEPS variant-steps (default 2e7: the end time shrinks as the count grows), on each
#      backend: variant-steps per second from summary.json, the CPU on all its cores.
# Prints two markdown tables; exits 1 if a run or study failed or a difference exceeds 1e-12.
# Output under ${STUDY_GPU_DIR:-runs/study-gpu}/ (not under $OUT: a 1e4-variant study writes a file a variant).
set -u
BR=${1:-./build/bristle}
BACKENDS=${STUDY_GPU_BACKENDS:-cuda cpu}
COUNTS=${STUDY_GPU_COUNTS:-100 1000 10000}
VSTEPS=${STUDY_GPU_VSTEPS:-20000000}
AGREE_N=${STUDY_GPU_AGREE_COUNT:-1024}
AGREE_END=${STUDY_GPU_AGREE_END:-1.3}
S2_END=${STUDY_GPU_S2_END:-0.5}
D="${STUDY_GPU_DIR:-runs/study-gpu}"
rm -rf "$D" && mkdir -p "$D"
rc=0
cores=$(nproc)

# s5b COUNT END FILE: the S5b study file with COUNT random variants (plus the tuned one) ending at END
s5b() {
    sed "s|^scenario: ../scenarios/|scenario: $(pwd)/scenarios/|; s|count: 64|count: $1|" studies/mistuning_lugre.yaml |
        sed "s|^random:|set: {time.end: $2}\nrandom:|" >"$3"
}

# compare KIND FILE...: the first file against each other one, column by column (KIND csv: by row)
compare() {
    python3 - "$@" <<'PY'
import csv, math, sys
kind, files = sys.argv[1], sys.argv[2:]
def load(f):
    rows = list(csv.reader(open(f)))
    return rows[0], rows[1:]
h0, r0 = load(files[0])
worst, where = 0.0, "-"
for f in files[1:]:
    h, r = load(f)
    if h != h0 or len(r) != len(r0):
        print("DIFFERENT-SHAPE %s" % f); sys.exit(0)
    for c, name in enumerate(h0):
        def num(x):
            try: return float(x)
            except ValueError: return None
        a = [num(x[c]) for x in r0]; b = [num(x[c]) for x in r]
        if any((x is None) != (y is None) for x, y in zip(a, b)):
            print("DIFFERENT-CELLS %s" % name); sys.exit(0)
        scale = max([abs(x) for x in a if x is not None and math.isfinite(x)] + [0.0])
        if scale == 0.0: continue
        for x, y in zip(a, b):
            if x is None or x == y: continue
            d = abs(x - y) / scale if math.isfinite(x) and math.isfinite(y) else math.inf
            if d > worst: worst, where = d, name
print("%.3g %s" % (worst, where))
PY
}

# agreement row: LABEL FILES -> a table row, rc=1 above 1e-12 or when the files do not match in shape
agree_row() {
    label=$1
    shift
    res=$(compare csv "$@")
    w=${res%% *}
    echo "| $label | $w | ${res#* } |" >>"$D/agree.md"
    case "$w" in
        DIFFERENT*) rc=1 ;;
        *) python3 -c "import sys; sys.exit(0 if float('$w') <= 1e-12 else 1)" || rc=1 ;;
    esac
}

{
    echo "| check | worst difference / column scale | in column |"
    echo "|---|---|---|"
} >"$D/agree.md"
{
    echo "| variants | end [s] | backend | threads | variant-steps | wall [s] | variant-steps/s |"
    echo "|---|---|---|---|---|---|---|"
} >"$D/throughput.md"

# both_sides NAME CSV CMD...: CMD --backend BE --out $D/NAME-BE on each backend; the CSV file of each
# that completed in $files (rc=1 for one that failed)
both_sides() {
    name=$1 csv=$2
    shift 2
    files=""
    for be in $BACKENDS; do
        if "$@" --backend "$be" --out "$D/$name-$be" >"$D/$name-$be.log" 2>&1; then
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
[ "$(echo $files | wc -w)" -ge 2 ] && agree_row "S2 lugre ramp to $S2_END s, timeseries.csv ($BACKENDS)" $files
s5b "$AGREE_N" "$AGREE_END" "$D/agree.yaml"
both_sides agree study.csv "$BR" study "$D/agree.yaml" --threads "$cores" --quiet
# shellcheck disable=SC2086
[ "$(echo $files | wc -w)" -ge 2 ] && agree_row "S5b, $((AGREE_N + 1)) variants to $AGREE_END s, study.csv ($BACKENDS)" $files

# 2. throughput
for n in $COUNTS; do
    # end time for about VSTEPS variant-steps at S2's 1e-5 s step, at least 100 steps
    end=$(python3 -c "print(max(1e-3, $VSTEPS / ($n + 1) * 1e-5))")
    s5b "$n" "$end" "$D/t$n.yaml"
    for be in $BACKENDS; do
        o="$D/t$n-$be"
        if "$BR" study "$D/t$n.yaml" --backend "$be" --threads "$cores" --quiet --out "$o" >"$o.log" 2>&1; then
            python3 - "$o/summary.json" "$n" "$end" "$be" >>"$D/throughput.md" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("| %d | %.4g | %s (%s) | %d | %d | %.3g | %.3g |" % (int(sys.argv[2]) + 1, float(sys.argv[3]), sys.argv[4],
      j["backend"], j["threads"], j["variant_steps"], j["wall_time_s"], j["variant_steps_per_second"]))
PY
        else
            echo "| $((n + 1)) | $end | $be | | | FAILED: $(tail -1 "$o.log") | |" >>"$D/throughput.md"
            rc=1
        fi
    done
done
cat "$D/agree.md"
echo
cat "$D/throughput.md"
exit $rc
