#!/bin/sh
# benchmarks/peers/run.sh [BRISTLE] [STEPS]: issue 16's peer table, in one run. The lugre3d field
# step at 1e4, 1e5 and 1e6 points (bench's synthetic patch, the slip regime, STEPS timed steps,
# default 50) as `bristle bench field` (the fused field, 2 threads), its plain single-loop C peer
# (benchmarks/plain_loop.c, the same run, 2 threads) and a vectorized NumPy program
# (benchmarks/peers/lugre3d_numpy.py, one thread: NumPy's element-wise operations use one), beside
# the copy bandwidth measured in the same bench run. The NumPy program steps the same patch
# through the same phases: its last step's total normal and friction forces are printed beside
# bristle's. Needs Debian's python3-numpy (installed here when missing, as scripts/setup.sh
# installs the build's packages).
set -eu
cd "$(dirname "$0")/../.."
BR=${1:-./build/bristle}
STEPS=${2:-50}
PY=/usr/bin/python3
if ! "$PY" -c "import numpy" 2>/dev/null; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "peers: installing python3-numpy" >&2
    $SUDO apt-get install -y -qq --no-install-recommends python3-numpy >&2
fi
echo "| points | bristle field, 2 threads [updates/s] | plain C loop, 2 threads | NumPy, 1 thread | field / plain | field / NumPy | field GB/s | copy GB/s | last step N, \|F\| (bristle / NumPy) |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in 10000 100000 1000000; do
    out=$("$BR" bench field --law lugre3d --points "$n" --steps "$STEPS" --plain-steps "$STEPS" --threads 2 \
        --backend cpu --no-baseline 2>&1)
    res=$(echo "$out" | grep '^RESULT')
    last=$(echo "$out" | sed -n 's/.*last step: N = \([^ ]*\) N, |F| = \([^ ]*\) N.*/\1 \2/p')
    py=$("$PY" benchmarks/peers/lugre3d_numpy.py "$n" "$STEPS" | grep '^RESULT')
    echo "$res $py LAST $last" | awk '{
        for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[2] != "") v[kv[1]] = kv[2] }
        for (i = 1; i <= NF; i++) if ($i == "LAST") { bN = $(i + 1); bF = $(i + 2) }
        f = v["updates_per_s"]; p = v["plain_slip_ups"]
        # the NumPy line comes second: its updates_per_s replaced the field`s in v; take the field`s from the bench line
        split($0, parts, " RESULT points=")
        n2 = split(parts[1], a, " "); for (i = 1; i <= n2; i++) { split(a[i], kv, "="); if (kv[1] == "updates_per_s") f = kv[2] }
        np = v["updates_per_s"]
        printf "| %s | %.3g | %.3g | %.3g | %.2f | %.1f | %.1f | %.1f | %s, %s / %.6g, %.6g |\n", v["points"], f, p, np, f / p, f / np, v["bw_GBs"], v["copy_GBs"], bN, bF, v["N"], v["F"] }'
done
