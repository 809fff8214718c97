#!/bin/sh
# scripts/coverage.sh: the line coverage of host/ and kernels/ (gcovr) by the plain suite (ctest -LE slow) and
# by the sanitized subset (the tests labelled sanitize, which scripts/test-sanitize.sh runs under ASan and
# UBSan), and how much of the first the second covers. A developer's tool, not run by CI. Builds build-cov/
# (the Release flags plus --coverage, CPU only: line coverage does not depend on the sanitizers), runs each
# selection there with the core count in parallel, and prints a table per file and the totals; the JSON of
# each run is left in build-cov/coverage-{plain,sanitize}.json. docs/testing.md holds its last output.
# The subset runs as scripts/test-sanitize.sh runs it: test_failalloc with every third allocation failed
# (BR_FAILALLOC_STRIDE=3) and each file of tests/hostile/ through `bristle` on its own (the sanitized build's
# hostile_* tests; test_hostile is not in the subset).
#   usage: sh scripts/coverage.sh              (both selections)
#          sh scripts/coverage.sh sanitize     (the subset again; the plain suite's JSON of an earlier run)
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
sh scripts/setup.sh --sanitize # gcovr; the packages of the plain suite are setup.sh's own
sh scripts/setup.sh >/dev/null  # the plain build's packages, the .venv and the meshes
J=$(nproc)
cmake -S . -B build-cov -DCMAKE_BUILD_TYPE=Release -DBRISTLE_TESTS=ON -DBRISTLE_CUDA=OFF \
    -DCMAKE_C_FLAGS=--coverage -DCMAKE_EXE_LINKER_FLAGS=--coverage >/dev/null
cmake --build build-cov -j "$J" >&2
SELS="plain sanitize"
[ "${1:-}" = sanitize ] && [ -f build-cov/coverage-plain.json ] && SELS=sanitize
for sel in $SELS; do
    find build-cov -name '*.gcda' -delete
    case $sel in
    plain) args="-LE slow" ;;
    sanitize) args="-L sanitize" ;;
    esac
    # shellcheck disable=SC2086
    (cd build-cov && if [ "$sel" = sanitize ]; then export BR_FAILALLOC_STRIDE=3; fi &&
        ctest $args -j "$J" >"coverage-$sel.log" 2>&1) || echo "coverage: some $sel tests failed (build-cov/coverage-$sel.log)" >&2
    if [ "$sel" = sanitize ]; then
        mkdir -p build-cov/test-runs/hostile
        for f in tests/hostile/*.yaml; do
            cmd=run
            case $(basename "$f") in fuzz-study-*) cmd=study ;; esac
            st=0
            ./build-cov/bristle "$cmd" "$f" --backend cpu --quiet --out "build-cov/test-runs/hostile/$(basename "$f")" \
                >/dev/null 2>&1 || st=$?
            [ "$st" -le 2 ] || echo "coverage: $f ended with status $st" >&2
        done
    fi
    gcovr -r "$ROOT" --object-directory build-cov --filter "$ROOT/host/" --filter "$ROOT/kernels/" \
        --json "build-cov/coverage-$sel.json" >/dev/null
done
/usr/bin/python3 - build-cov/coverage-plain.json build-cov/coverage-sanitize.json <<'EOF'
import json, sys
def lines(path):
    out = {}
    for f in json.load(open(path))["files"]:
        cov = {l["line_number"] for l in f["lines"] if l["count"] > 0 and not l.get("gcovr/noncode")}
        all_ = {l["line_number"] for l in f["lines"] if not l.get("gcovr/noncode")}
        out[f["file"]] = (cov, all_)
    return out
plain, san = lines(sys.argv[1]), lines(sys.argv[2])
print("| file | lines | plain suite | sanitized subset | subset / plain |")
print("|---|---:|---:|---:|---:|")
tot = [0, 0, 0, 0]
for name in sorted(plain):
    cov_p, all_ = plain[name]
    cov_s = san.get(name, (set(), set()))[0] & cov_p
    tot[0] += len(all_); tot[1] += len(cov_p); tot[2] += len(cov_s)
    ratio = "%.1f %%" % (100.0 * len(cov_s) / len(cov_p)) if cov_p else "-"
    print("| %s | %d | %d (%.1f %%) | %d | %s |" % (name, len(all_), len(cov_p), 100.0 * len(cov_p) / max(len(all_), 1),
                                                  len(cov_s), ratio))
    if cov_p and not cov_s:
        tot[3] += 1
print("| **all** | %d | %d (%.1f %%) | %d | **%.1f %%** |" % (tot[0], tot[1], 100.0 * tot[1] / tot[0], tot[2],
                                                             100.0 * tot[2] / tot[1]))
print("\nfiles the plain suite runs and the sanitized subset does not: %d" % tot[3])
EOF
