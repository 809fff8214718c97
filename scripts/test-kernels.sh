#!/bin/sh
# scripts/test-kernels.sh [KERNEL...]: the plain suite (ctest -LE slow, in build/) once per OpenBLAS kernel
# family this processor can run and per BLAS thread count (OPENBLAS_CORETYPE, OPENBLAS_NUM_THREADS 1 and 2),
# and harmonic balance's friction-limited top (test_hbm's a_friction_limited_resonance_is_climbed_not_stepped_
# over: the Jenkins oscillator, 2 to 30 Hz, 64 samples) under each; prints a markdown table. A developer's tool
# (CI leaves the BLAS settings as the machine has them): the suite's results must not depend on the kernel's
# rounding (docs/testing.md). Default kernels: Prescott (SSE3), Nehalem (SSE4.2), Sandybridge (AVX), Haswell
# and Zen (AVX2, FMA), SkylakeX and Cooperlake (AVX-512), those the processor has the instructions for.
# Needs a build (sh scripts/test.sh). Logs in build/test-kernels/.
#   usage: sh scripts/test-kernels.sh                  (every family this processor runs)
#          THREADS="1" sh scripts/test-kernels.sh Haswell
set -eu
cd "$(dirname "$0")/.."
[ -x build/bristle ] && [ -f build/CTestTestfile.cmake ] || { echo "test-kernels: no build (sh scripts/test.sh)" >&2; exit 2; }
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { echo "$flags" | grep -qw "$1"; }
if [ $# -gt 0 ]; then
    KERNELS="$*"
else
    KERNELS="Prescott Nehalem"
    has avx && KERNELS="$KERNELS Sandybridge"
    has avx2 && has fma && KERNELS="$KERNELS Haswell Zen"
    has avx512f && has avx512dq && has avx512bw && has avx512vl && KERNELS="$KERNELS SkylakeX"
    has avx512_bf16 && KERNELS="$KERNELS Cooperlake"
fi
THREADS=${THREADS:-1 2}
J=$(nproc)
LOG=build/test-kernels
mkdir -p "$LOG"
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
echo "processor: $cpu, $J cores; OpenBLAS $(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || echo '?');" \
    "bristle $(git describe --always --dirty 2>/dev/null || echo '?')"
echo
echo "| kernel | BLAS threads | plain suite | wall | friction-limited top: points, turning points, top / energy balance - 1, at |"
echo "|---|---:|---|---:|---|"
status=0
for k in $KERNELS; do
    for t in $THREADS; do
        tag="$k-t$t"
        t0=$(date +%s)
        if (cd build && OPENBLAS_CORETYPE=$k OPENBLAS_NUM_THREADS=$t ctest -LE slow -j "$J" --output-on-failure) \
            >"$LOG/$tag.log" 2>&1; then
            suite=$(grep -E '^[0-9]+% tests passed' "$LOG/$tag.log" | sed 's/,.*//')
        else
            status=1
            failed=$(sed -n '/The following tests FAILED/,$p' "$LOG/$tag.log" | grep -E '^\s+[0-9]+ - ' |
                sed -E 's/^\s+[0-9]+ - ([^ ]+).*/\1/' | tr '\n' ' ')
            suite="**failed**: $failed"
        fi
        wall=$(($(date +%s) - t0))
        out="$LOG/$tag-top"
        rm -rf "$out"
        OPENBLAS_CORETYPE=$k OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=1 ./build/bristle hbm \
            scenarios/oscillator_coulomb_jenkins.yaml --from 2 --to 30 --harmonics 3 --samples 64 --column block.x \
            --set contacts.friction.friction.kt=1000 --set loads.drive.magnitude.harmonic.amplitude=0.1 \
            --out "$out" --quiet >/dev/null 2>&1 || true
        top=$(/usr/bin/python3 - "$out" <<'EOF'
import csv, json, math, sys
d = sys.argv[1]
try:
    rows = list(csv.reader(open(d + "/frf.csv")))[1:]
    turns = json.load(open(d + "/summary.json")).get("turning_points_Hz", [])
except OSError:
    print("no result"); sys.exit()
top = max(rows, key=lambda r: float(r[3]))
xt = 0.02 / (1 - math.pi * 0.1 / 80)  # the energy balance X* / (1 - pi F / (4 mu N))
span = "%.3f to %.3f Hz" % (min(turns), max(turns)) if turns else "none"
print("%d, %d (%s), %+.2e, %.4f Hz" % (len(rows), len(turns), span, float(top[3]) / xt - 1, float(top[0])))
EOF
) || top="no result"
        echo "| $k | $t | $suite | $wall s | $top |"
    done
done
exit $status
