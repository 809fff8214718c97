#!/bin/sh
# scripts/kill-resume.sh [BRISTLE] [SIGNAL]: issue 15's killed-run check on the 10-s S2 lugre sweep.
# Runs it once uninterrupted, then again with --checkpoint-every 0.5 and sends SIGNAL (default KILL)
# at a random time in the run; checks that no final-named file exists (runs/kill-resume/cut/ must
# not exist, timeseries.csv only as .part), resumes, and compares the final timeseries.csv byte for
# byte and summary.json line for line (wall times and rates aside) with the uninterrupted run's.
# Prints what it saw and exits 0 when all holds.
set -eu
BR=${1:-./build/bristle}
SIG=${2:-KILL}
S=scenarios/blades_sweep_lugre.yaml
OUT=runs/kill-resume
rm -rf "$OUT" && mkdir -p "$OUT"
"$BR" run "$S" --backend cpu --quiet --out "$OUT/full" > /dev/null
# a random time between 1 and 8 s into the run (the run takes about 10 s here)
delay=$(python3 -c "import random; print(round(random.uniform(1, 8), 2))")
"$BR" run "$S" --backend cpu --quiet --out "$OUT/cut" --checkpoint-every 0.5 > /dev/null 2> "$OUT/cut.err" &
pid=$!
sleep "$delay"
kill -s "$SIG" "$pid" 2> /dev/null || true
st=0
wait "$pid" || st=$?
echo "SIG$SIG after $delay s: exit status $st"
fail=0
[ -e "$OUT/cut" ] && { echo "FAIL: a final output folder exists"; fail=1; }
[ -e "$OUT/cut.part/timeseries.csv" ] && { echo "FAIL: a final-named timeseries.csv exists"; fail=1; }
ls "$OUT/cut.part"
grep -h '"status"\|"error"' "$OUT/cut.part/summary.json" 2> /dev/null || echo "(no summary.json: killed without one)"
"$BR" run "$S" --backend cpu --quiet --resume "$OUT/cut" > /dev/null
if cmp "$OUT/full/timeseries.csv" "$OUT/cut/timeseries.csv"; then
    echo "timeseries.csv: identical ($(wc -c < "$OUT/full/timeseries.csv") bytes)"
else
    echo "FAIL: timeseries.csv differs"; fail=1
fi
for r in full cut; do
    grep -v -e wall -e per_second -e contact_field -e host_dynamics -e '"output"' -e '"other"' "$OUT/$r/summary.json" > "$OUT/$r.sum"
done
if cmp -s "$OUT/full.sum" "$OUT/cut.sum"; then
    echo "summary.json: identical apart from wall times ($(wc -l < "$OUT/full.sum") lines compared)"
else
    echo "FAIL: summary.json differs"; diff "$OUT/full.sum" "$OUT/cut.sum" | head; fail=1
fi
exit $fail
