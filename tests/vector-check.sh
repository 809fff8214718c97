#!/bin/sh
# tests/vector-check.sh OBJECT...: the CPU field's point loops are vectorized (docs/performance.md). In
# each object of host/field/field_cpu_law.c (one a law, CMakeLists.txt), every loop function br_cpu_*
# must do at least 40 % of its double arithmetic (add, sub, mul, div, sqrt, fused multiply-adds) in
# packed instructions (*pd, VEX or SSE); a vectorized loop does 60 % or more (its scalar tail and set-up the rest),
# one that gcc left scalar 0 to 1 % (measured, gcc 12, AVX-512). The loops that are scalar by design are
# named here and must stay so few that the list is checked too: gms with its element count a run-time
# value or above 5 (br_cpu_chunk_BR_LAW_GMS_*, br_cpu_chunk_gms6 to 8, its tangent loop) and
# bristle_implicit's lanes (its slip solve's iteration). Caught once: br_fma counted as a call by
# gcc's complete unrolling left a three-component loop rolled, and the tangent and lane loops of the
# bristle laws scalar (br_bristle_advance evaluated its tangent's dw/da once per component).
set -u
[ $# -gt 0 ] || { echo "usage: vector-check.sh OBJECT..."; exit 1; }
command -v objdump >/dev/null || { echo "FAIL: objdump not found (binutils)"; exit 1; }
fail=0 nf=0 ns=0
for o in "$@"; do
    out=$(objdump -d --no-show-raw-insn "$o" | awk '
/^[0-9a-f]+ <.*>:$/ { name = $2; gsub(/[<>:]/, "", name); next }
name ~ /^br_cpu_/ {
    if ($0 ~ /[ \t]v?(add|sub|mul|div|sqrt|fmadd[0-9]+|fmsub[0-9]+|fnmadd[0-9]+|fnmsub[0-9]+)pd[ \t]/) pk[name]++
    else if ($0 ~ /[ \t]v?(add|sub|mul|div|sqrt|fmadd[0-9]+|fmsub[0-9]+|fnmadd[0-9]+|fnmsub[0-9]+)sd[ \t]/) sc[name]++
    seen[name] = 1
}
END {
    for (n in seen) {
        t = pk[n] + sc[n]
        share = (t > 0) ? pk[n] / t : 1
        if (n ~ /^br_cpu_chunk_BR_LAW_GMS_/ || n ~ /^br_cpu_chunk_gms[678]_/ || n ~ /^br_cpu_chunk_tangent_BR_LAW_GMS_/ ||
            n ~ /^br_cpu_lanes_BR_LAW_BRISTLE_IMPLICIT_/) { printf "scalar %s\n", n; continue }
        printf "%s %s %.2f\n", (share >= 0.4) ? "ok" : "FAIL", n, share
    }
}')
    nf=$((nf + $(echo "$out" | grep -c '^ok\|^FAIL')))
    ns=$((ns + $(echo "$out" | grep -c '^scalar')))
    if echo "$out" | grep -q '^FAIL'; then
        echo "$out" | grep '^FAIL' | sed "s|^|$o: |"
        fail=1
    fi
done
echo "vector-check: $nf loop functions checked, $ns scalar by design"
[ "$nf" -gt 100 ] || { echo "FAIL: only $nf loop functions found: the check cannot tell"; exit 1; }
[ "$ns" -le 36 ] || { echo "FAIL: $ns loops scalar by design, more than the 36 known"; exit 1; }
[ "$fail" -eq 0 ] || { echo "FAIL: loops above left scalar"; exit 1; }
echo ok
