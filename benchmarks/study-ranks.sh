#!/bin/sh
# benchmarks/study-ranks.sh [BRISTLE] [END] [RANKS]: issue 16's MPI item. S5b (studies/mistuning_lugre.yaml,
# 65 variants of the S2 lugre sweep, shortened to END s, default 2) as one process on 1 thread, as
# `mpirun -n R` with 1 thread a rank for R = 1 and RANKS (default 2), and as one process on RANKS
# threads; checks that every study.csv is bitwise the one-process one and prints wall seconds,
# variant-steps per second and the speed-up over the one-thread process. Output under runs/study-ranks/.
# (mpirun as root needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, set here.)
set -eu
BR=${1:-./build/bristle}
END=${2:-2}
RANKS=${3:-2}
OUT=runs/study-ranks
rm -rf "$OUT" && mkdir -p "$OUT"
sed "s|^scenario: ../scenarios/|scenario: $(pwd)/scenarios/|" studies/mistuning_lugre.yaml |
    sed "s|^random:|set: {time.end: $END}\nrandom:|" > "$OUT/s5b.yaml"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# run LABEL PREFIX THREADS: one study, its wall time and variant-steps/s appended to $OUT/rows
run() {
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    $2 "$BR" study "$OUT/s5b.yaml" --out "$OUT/$1" --threads "$3" --quiet > "$OUT/$1.log"
    t1=$(date +%s.%N)
    echo "$1 $t0 $t1" >> "$OUT/rows"
}
: > "$OUT/rows"
run process_1thread "" 1
run mpi_1rank "mpirun -n 1" 1
run "mpi_${RANKS}ranks" "mpirun -n $RANKS" 1
run "process_${RANKS}threads" "" "$RANKS"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
rows = [l.split() for l in open(out + "/rows")]
base = open(out + "/process_1thread/study.csv", "rb").read()
steps = json.load(open(out + "/process_1thread/summary.json"))["variant_steps"]
w0 = float(rows[0][2]) - float(rows[0][1])
print("| run | wall [s] | variant-steps/s | speed-up | study.csv |")
print("|---|---|---|---|---|")
for label, t0, t1 in rows:
    w = float(t1) - float(t0)
    same = open("%s/%s/study.csv" % (out, label), "rb").read() == base
    print("| %s | %.2f | %.3g | %.2f | %s |" % (label, w, steps / w, w0 / w, "bitwise the same" if same else "DIFFERS"))
PY
