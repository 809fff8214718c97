#!/bin/sh
# scripts/fuzz.sh TARGET SECONDS [JOBS]: fuzz one reader with libFuzzer (TARGET: scenario, mesh or
# study; fuzz/fuzz_TARGET.c) for SECONDS, in JOBS processes (libFuzzer -fork, default 1).
# Builds build-fuzz/ with clang if needed. The working corpus is fuzz/corpus/TARGET/, the repo's
# inputs copied in as seeds every time; crash reproducers go to fuzz/artifacts/TARGET/ (both
# git-ignored). Prints the executions, the final coverage (cov, ft) and the new crash files;
# exit status 1 when the run found a crash, a leak, a timeout or an out-of-memory input.
# Extra libFuzzer flags in FUZZ_ARGS (e.g. FUZZ_ARGS=-seed=1).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
T=${1:?usage: scripts/fuzz.sh scenario|mesh|study SECONDS [JOBS]}
SECS=${2:?usage: scripts/fuzz.sh scenario|mesh|study SECONDS [JOBS]}
JOBS=${3:-1}
case "$T" in scenario|mesh|study) ;; *) echo "fuzz.sh: TARGET must be scenario, mesh or study" >&2; exit 2;; esac

if [ ! -f build-fuzz/CMakeCache.txt ]; then
    CLANG=$(command -v clang || command -v clang-14 || true)
    [ -n "$CLANG" ] || { echo "fuzz.sh: clang not found (sh scripts/setup.sh installs it)" >&2; exit 2; }
    cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="$CLANG" -DBRISTLE_FUZZ=ON -DBRISTLE_TESTS=OFF \
        -DBRISTLE_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz -j 2 --target "fuzz_$T" >&2

# seeds: the repository's own inputs (mesh seeds: a first byte naming the type, 0 .stl 1 .ply 2 .obj)
C="$ROOT/fuzz/corpus/$T" A="$ROOT/fuzz/artifacts/$T"
mkdir -p "$C" "$A"
case "$T" in
scenario)
    for f in scenarios/*.yaml; do
        grep -q 'generated/annulus_1e[56]' "$f" || cp "$f" "$C/seed-$(basename "$f")" # loads too slow
    done
    { printf '#--set time.dt=1e-4\n#--set contacts.base.friction.mu_s=0.2\n'; cat scenarios/cube_00.yaml; } >"$C/seed-sets.yaml";;
mesh)
    find . -path ./build\* -prune -o -path ./fuzz -prune -o -type f -size -129k \
        \( -iname '*.stl' -o -iname '*.ply' -o -iname '*.obj' \) -print | while read -r f; do
        case "$f" in *.[sS][tT][lL]) b='\000';; *.[pP][lL][yY]) b='\001';; *) b='\002';; esac
        { printf "$b"; cat "$f"; } >"$C/seed-$(basename "$f")"
    done;;
study)
    for f in studies/*.yaml; do cp "$f" "$C/seed-$(basename "$f")"; done;;
esac

# run from scenarios/, where the scenarios' relative mesh paths (../meshes/...) resolve
mark="$A/.start" log="$A/last.log"
touch "$mark"
set -- -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$A/" -print_final_stats=1
[ "$JOBS" -gt 1 ] && set -- "$@" -fork="$JOBS" -ignore_crashes=1
# mesh: full stacks through assimp (built without frame pointers), so that the assimp suppression
# in sanitize.supp matches; the other readers keep the fast unwinder (20 times the executions)
unwind=1
[ "$T" = mesh ] && unwind=0
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:print_stacktrace=1:fast_unwind_on_malloc=$unwind"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$ROOT/scripts/sanitize.supp:print_suppressions=0"
t0=$(date +%s)
(cd scenarios && "$ROOT/build-fuzz/fuzz_$T" "$@" ${FUZZ_ARGS:-} "$C") >"$log" 2>&1 || true
t1=$(date +%s)

# the last status line ("#EXECS ... cov: N ft: M ..."); one process also prints its final stats
status=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -n 1)
execs=$(echo "$status" | sed -E 's/^#([0-9]+).*/\1/')
[ "$JOBS" -gt 1 ] || execs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -n 1)
echo "fuzz_$T: ${execs:-0} executions in $((t1 - t0)) s, $(echo "$status" | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo 'no coverage line')"
crashes=$(find "$A" -maxdepth 1 -type f -newer "$mark" ! -name last.log ! -name .start | sort)
rm -f "$mark"
if [ -n "$crashes" ]; then
    echo "fuzz_$T: crashes (log: $log):"
    echo "$crashes"
    exit 1
fi
echo "fuzz_$T: no crashes (log: $log)"
