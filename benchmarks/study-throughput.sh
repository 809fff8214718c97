#!/bin/sh
# benchmarks/study-throughput.sh [BRISTLE] [END]: issue 14's throughput item, side by side in one call.
# S5b (studies/mistuning_lugre.yaml, 65 variants of the S2 lugre sweep) as one `bristle study` on 2
# threads, then the same 65 variants as separate `bristle run`s one after another (each with the
# variant's values from study.csv, written with 17 digits, so each run is that variant bit for bit;
# a run uses one core for stepping and a writer thread for its CSV). END (default 10 s, the
# scenario's) shortens both sides alike. Prints wall and CPU (user + sys) seconds of each side,
# variant-steps per second, per core (study: per thread; runs: per wall second, and per CPU
# second), and the ratio. Output under runs/study-throughput/.
set -eu
BR=${1:-./build/bristle}
END=${2:-10}
OUT=runs/study-throughput
rm -rf "$OUT" && mkdir -p "$OUT/runs"
sed "s|^scenario: ../scenarios/|scenario: $(pwd)/scenarios/|" studies/mistuning_lugre.yaml |
    sed "s|^random:|set: {time.end: $END}\nrandom:|" > "$OUT/s5b.yaml"
t0=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$OUT/study.cpu" "$BR" study "$OUT/s5b.yaml" --out "$OUT/study" --threads 2 --quiet \
    > "$OUT/study.log"
t1=$(date +%s.%N)
# the runs: variant 0 is the scenario as it is, variant v > 0 sets the three E values of its row
python3 - "$OUT/study/study.csv" > "$OUT/runs.txt" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["variant"], " ".join("--set %s=%s" % (k, r[k]) for k in ("beams.blade_L.E", "beams.blade_C.E", "beams.blade_R.E")))
PY
: > "$OUT/runs.cpu"
while read -r v sets; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" -a -o "$OUT/runs.cpu" "$BR" run scenarios/blades_sweep_lugre.yaml --backend cpu --quiet \
        --out "$OUT/runs/$v" --set time.end="$END" $sets > /dev/null
done < "$OUT/runs.txt"
t2=$(date +%s.%N)
python3 - "$OUT" "$t0" "$t1" "$t2" <<'PY'
import csv, json, sys
out, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:5])
j = json.load(open(out + "/study/summary.json"))
steps = j["variant_steps"]
cpu_s = sum(map(float, open(out + "/study.cpu").read().split()))
cpu_r = sum(float(x) for line in open(out + "/runs.cpu") for x in line.split())
rows = list(csv.DictReader(open(out + "/study/study.csv")))
same = 0
for r in rows:  # every run against its study row: friction energy and residual to the last digit
    s = json.load(open("%s/runs/%s/summary.json" % (out, r["variant"])))
    e = [c["energy_loss_J"] for c in s["contact_sets"]]
    same += (float(r["contact_L.friction_energy"]) == e[0] and float(r["contact_R.friction_energy"]) == e[1]
             and float(r["energy_residual"]) == s["energy"]["residual_relative"])
ws, wr = t1 - t0, t2 - t1
print("| side | wall [s] | CPU [s] | variant-steps/s | per core (wall) | per CPU second |")
print("|---|---|---|---|---|---|")
print("| study, 2 threads | %.1f | %.1f | %.3g | %.3g | %.3g |" % (ws, cpu_s, steps / ws, steps / ws / 2, steps / cpu_s))
print("| 65 runs, one after another | %.1f | %.1f | %.3g | %.3g | %.3g |" % (wr, cpu_r, steps / wr, steps / wr, steps / cpu_r))
print("ratio per core: %.2f (wall: study per thread / runs per wall second), %.2f (per CPU second)"
      % ((steps / ws / 2) / (steps / wr), (steps / cpu_s) / (steps / cpu_r)))
print("runs equal to their study rows (friction energies and residual, every digit): %d of %d" % (same, len(rows)))
PY
