#!/bin/sh
# benchmarks/stiffness-sweep.sh [BRISTLE]: the stiffness sweep of issue 50 ("impacts and stiff
# contacts at any time step"): every friction law on two models, contact and bristle stiffness
# scaled by 1e-2, 1, 1e2, 1e4, at time.dt 1e-2, 1e-3, 1e-4, CPU backend, one run at a time
# (nice -n 10, timeout 120 s per run). Writes the results file (default
# benchmarks/results/<today>-stiffness-sweep.md; OUT=FILE to change) with one table per model.
#   Model A: scenarios/chain_jenkins.yaml (three-mass chain, prescribed N = 1 N on c1 and c3),
#            time.end CHAIN_END (default 300 s, the file's; the 2-core VM ran the sweep in about 11 min).
#   Model B: scenarios/cube_00.yaml (S1, six Hunt-Crossley points, contact set base),
#            time.end CUBE_END (default 4 s, the file's).
# Each law replaces the friction: block of the model's contact sets in a copy of the scenario
# (written to a temporary folder; scenarios/ is not touched): --set cannot remove the keys of the
# file's law (jenkins' kt would be an unknown key under lugre3d). The parameters per law and what
# is scaled are in the python below (LAWS) and in the results file.
set -eu
B=${1:-build/bristle}
CHAIN_END=${CHAIN_END:-300}
CUBE_END=${CUBE_END:-4}
OUT=${OUT:-benchmarks/results/$(date +%F)-stiffness-sweep.md}
SCALES=${SCALES:-"1e-2 1 1e2 1e4"}
DTS=${DTS:-"1e-2 1e-3 1e-4"}
LAWLIST=${LAWLIST:-"lugre3d lugre3d_classic dahl3d gkf static_reg bristle2 bristle_implicit gms jenkins"}
W=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "scratch folder kept: $W" >&2; else trap 'rm -rf "$W"' EXIT; fi
T0=$(date +%s)
# A private copy of the binary and the commit at the start: a rebuild of build/ during the sweep
# (the first try of this sweep lost 5 runs to one, exit 126) must not mix two builds in one table.
cp "$B" "$W/bristle"
BUILT=$(date -u -r "$B" '+%F %T UTC')
COMMIT=$(git rev-parse --short HEAD)
DIRTY=$(git status --short --untracked-files=no | wc -l)

# --- scenario copies: one per model, law and scale ---------------------------------------------
python3 - "$W" "$SCALES" "$LAWLIST" <<'PY'
import math, re, sys
W, scales, laws = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()

# Per model: the Stribeck data, N per point, the bristle stiffness and damping at scale 1 per unit
# normal force (s0 [1/m], s1 [s/m], s2 [s/m]) and absolute per point (K [N/m], C1 [N s/m]).
# Chain: jenkins' kt = 20 N/m at N = 1 N, sigma1 critical for 1 kg (2 sqrt(20), as pulse_*);
# cube: lugre3d's sigma0 1e4 /m, sigma1 31.62 s/m, sigma2 0.04 s/m at N = 10/6 N per point.
def model(**m):
    m["K"], m["C1"] = m["s0"] * m["N"], m["s1"] * m["N"]
    return m
MODELS = {
    "A": model(file="scenarios/chain_jenkins.yaml", sets=["c1", "c3"], N=1.0,
               mu_s=1.0, mu_k=1.0, V_st=0.01, alpha=2, s0=20.0, s1=2 * math.sqrt(20.0), s2=0.0,
               s1_bi=1.0e-4, mu_j=1.0),          # bristle_implicit: chain_bristle_implicit.yaml's
    "B": model(file="scenarios/cube_00.yaml", sets=["base"], N=10.0 / 6,
               mu_s=0.15, mu_k=0.1, V_st=1.0e-3, alpha=2, s0=1.0e4, s1=31.622776601683796, s2=0.04,
               s1_bi=None, mu_j=0.1),
}

def block(law, m, f):
    """friction: block (YAML lines) of law on model m at stiffness scale f."""
    r = math.sqrt(f)
    strib = ["mu_s: %r" % m["mu_s"], "mu_k: %r" % m["mu_k"], "V_st: %r" % m["V_st"], "alpha: %r" % m["alpha"]]
    if law == "lugre3d":
        kv = strib + ["sigma0: %r" % (m["s0"] * f), "sigma1: %r" % (m["s1"] * r), "sigma2: %r" % m["s2"]]
    elif law == "lugre3d_classic":
        kv = strib + ["sigma0: %r" % (m["K"] * f), "sigma1: %r" % (m["C1"] * r), "sigma2: %r" % (m["s2"] * m["N"])]
    elif law == "dahl3d":
        kv = ["mu_k: %r" % m["mu_k"], "sigma0: %r" % (m["s0"] * f)]
    elif law == "gkf":      # stick damper mu_s N / eps scaled by f: eps = V_st / 1000 / f
        kv = strib + ["eps: %r" % (m["V_st"] * 1e-3 / f), "f_v: 0.0"]
    elif law == "static_reg":  # slope mu N / v_r scaled by f: v_r = V_st / 10 / f
        kv = strib + ["v_r: %r" % (m["V_st"] * 0.1 / f), "nu: 0.0"]
    elif law == "bristle2":
        kv = strib + ["sigma0: %r" % (m["K"] * f), "sigma1: %r" % (m["C1"] * r), "v_r: %r" % (m["V_st"] * 0.1), "nu: 0.0"]
    elif law == "bristle_implicit":
        c = m["s1_bi"] if m["s1_bi"] is not None else m["C1"]
        kv = strib + ["sigma0: %r" % (m["K"] * f), "sigma1: %r" % (c * r), "nu: 0.0"]
    elif law == "gms":      # element stiffnesses 0.8 K and 0.2 K (4:1 as in the format's example)
        kv = strib + ["C: 1.0", "elements:",
                      "  - {stiffness: %r, damping: 0.0, share: 0.5}" % (0.8 * m["K"] * f),
                      "  - {stiffness: %r, damping: 0.0, share: 0.5}" % (0.2 * m["K"] * f)]
    elif law == "jenkins":
        kv = ["mu: %r" % m["mu_j"], "kt: %r" % (m["K"] * f)]
    else:
        raise SystemExit("unknown law " + law)
    return ["    friction:", "      law: " + law] + ["      " + s for s in kv]

for name, m in MODELS.items():
    src = open(m["file"]).read().split("\n")
    for law in laws:
        for fs in scales:
            f = float(fs)
            out, i, cur = [], 0, None
            while i < len(src):
                line = src[i]
                g = re.match(r"  - name: (\S+)", line)
                if g: cur = g.group(1)
                if line.rstrip() == "    friction:" and cur in m["sets"]:
                    out += block(law, m, f)
                    i += 1
                    while i < len(src) and src[i].startswith("      "):
                        i += 1
                    continue
                if cur in m["sets"]:
                    # Hunt-Crossley: K = A / sigma^pK scaled by f (sigma / f^(1/pK)), D by sqrt(f)
                    g = re.match(r"(      sigma: )([0-9.eE+-]+)(.*)", line)
                    if g:
                        pK = float(re.search(r"\n      pK: ([0-9.]+)", "\n" + "\n".join(src)).group(1))
                        line = g.group(1) + repr(float(g.group(2)) * f ** (-1.0 / pK)) + "   # scaled"
                    g = re.match(r"(      D: )([0-9.eE+-]+)(.*)", line)
                    if g:
                        line = g.group(1) + repr(float(g.group(2)) * math.sqrt(f)) + "   # scaled"
                out.append(line)
                i += 1
            open("%s/%s_%s_%s.yaml" % (W, name, law, fs), "w").write("\n".join(out))
PY

# --- the runs, one at a time -------------------------------------------------------------------
: > "$W/runs.tsv"
for model in A B; do
    case $model in A) END=$CHAIN_END ;; B) END=$CUBE_END ;; esac
    for law in $LAWLIST; do
        for f in $SCALES; do
            for dt in $DTS; do
                d="$W/out/${model}_${law}_${f}_${dt}"
                rc=0
                nice -n 10 timeout 120 "$W/bristle" run "$W/${model}_${law}_${f}.yaml" --quiet --backend cpu --out "$d" \
                    --set time.dt="$dt" --set time.end="$END" --set output.interval=1e-2 --set output.plots=false \
                    > "$W/log" 2> "$W/err" || rc=$?
                mkdir -p "$d"
                cp "$W/err" "$d/stderr.txt"
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$law" "$f" "$dt" "$rc" "$d" >> "$W/runs.tsv"
                printf '%s %s %s %s rc=%s\n' "$model" "$law" "$f" "$dt" "$rc" >&2
            done
        done
    done
done
T1=$(date +%s)

# --- the results file ---------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
python3 - "$W/runs.tsv" "$OUT" "$((T1 - T0))" "$COMMIT" "$(date +%F)" \
    "$CHAIN_END" "$CUBE_END" "$B" "$BUILT" "$DIRTY" <<'PY'
import json, os, sys
tsv, out, total, commit, day, chain_end, cube_end, B, built, dirty = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(tsv) if l.strip()]
L = []
w = L.append
w("# Stiffness sweep (issue 50): every friction law, contact and bristle stiffness x 1e-2 .. 1e4, dt 1e-2 .. 1e-4")
w("")
w("- Date: %s" % day)
w("- Machine: the 2-core development VM, CPU backend, runs one at a time under `nice -n 10`, `timeout 120` each")
w("- Commit: %s (HEAD at the start of the sweep%s); binary %s built %s, copied at the start and used "
  "for every run" % (commit, "" if dirty == "0" else ", %s tracked files modified" % dirty, B, built))
w("- Command (from the repository root): `sh benchmarks/stiffness-sweep.sh%s`" % ("" if B == "build/bristle" else " " + B))
w("- Total wall time of the sweep: %s s (%.1f min)" % (total, int(total) / 60))
w("- Every run: `bristle run COPY.yaml --quiet --backend cpu --set time.dt=DT --set time.end=END "
  "--set output.interval=1e-2 --set output.plots=false`, COPY a copy of the scenario with the "
  "friction block(s) replaced and, for model B, the normal stiffness scaled (temporary folder; "
  "scenarios/ unchanged), `bristle` the copy of %s." % B)
w("")
w("## Models")
w("")
w("- **A: three-mass chain**, scenarios/chain_jenkins.yaml, contact sets c1 and c3 (one point each, "
  "normal law `prescribed`, N = 1 N). time.end = %s s%s. The normal force is prescribed, so there is no contact (normal) stiffness in this model: "
  "only the friction law's tangential stiffness is scaled. mu N = 1 N as in the jenkins chain "
  "(mu_s = mu_k = 1, flat Stribeck curve, V_st = 0.01 m/s, alpha = 2 where the law requires them). "
  "Scale-1 tangential stiffness 20 N/m (jenkins' kt)." %
  (chain_end, " (the file's)" if float(chain_end) == 300 else " (the file has 300 s; shortened for the time budget)"))
w("- **B: S1 cube**, scenarios/cube_00.yaml, contact set base (six Hunt-Crossley points, press 10 N, "
  "pull 0.75 N). time.end = %s s%s. Hunt-Crossley stiffness K = A / sigma^pK scaled by the factor "
  "(sigma = 3e-9 m / factor^(1/2), pK = 2) and its damping D = 4.88e5 by sqrt(factor). Friction: "
  "mu_s = 0.15, mu_k = 0.1, V_st = 1e-3 m/s, alpha = 2 (the file's lugre3d values); absolute "
  "stiffnesses are the file's sigma0 = 1e4 /m times N per point 10/6 N = 1.667e4 N/m, absolute "
  "dampings its sigma1 = 31.62 s/m times 10/6 N = 52.70 N s/m." %
  (cube_end, " (the file's)" if float(cube_end) == 4 else " (the file has 4 s; shortened for the time budget)"))
w("- output.interval = 1e-2 s for both (a multiple of every dt; the cube file has 1e-4).")
w("")
w("## What was scaled per law (factor f in 1e-2, 1, 1e2, 1e4)")
w("")
w("| law | parameters at f = 1, model A (chain) | parameters at f = 1, model B (cube) | scaled by f | scaled by sqrt(f) | not scaled |")
w("|---|---|---|---|---|---|")
w("| lugre3d | sigma0 20 /m, sigma1 8.944 s/m (critical for 1 kg at N = 1 N), sigma2 0 | the file's: sigma0 1e4 /m, sigma1 31.62 s/m, sigma2 0.04 s/m | sigma0 | sigma1 | sigma2, Stribeck |")
w("| lugre3d_classic | sigma0 20 N/m, sigma1 8.944 N s/m, sigma2 0 | sigma0 1.667e4 N/m, sigma1 52.70 N s/m, sigma2 0.0667 N s/m | sigma0 | sigma1 | sigma2, Stribeck |")
w("| dahl3d | mu_k 1, sigma0 20 /m | mu_k 0.1, sigma0 1e4 /m | sigma0 | (no damping parameter) | mu_k |")
w("| gkf | eps 1e-5 m/s (V_st / 1000), f_v 0 | eps 1e-6 m/s (V_st / 1000), f_v 0 | no stiffness: the stick damper mu_s N / eps (eps = V_st / 1000 / f; eps < V_st must hold at f = 1e-2, hence V_st / 1000 at f = 1) | - | f_v, Stribeck |")
w("| static_reg | v_r 1e-3 m/s (V_st / 10), nu 0 | v_r 1e-4 m/s (V_st / 10), nu 0 | no stiffness: the regularization slope mu N / v_r (v_r = V_st / 10 / f) | - | nu, Stribeck |")
w("| bristle2 | sigma0 20 N/m, sigma1 8.944 N s/m (as pulse_bristle2_*: critical), v_r 1e-3 m/s, nu 0 | sigma0 1.667e4 N/m, sigma1 52.70 N s/m, v_r 1e-4 m/s, nu 0 | sigma0 | sigma1 | v_r, nu, Stribeck |")
w("| bristle_implicit | sigma0 20 N/m, sigma1 1e-4 N s/m (chain_bristle_implicit.yaml's), nu 0 | sigma0 1.667e4 N/m, sigma1 52.70 N s/m, nu 0 | sigma0 | sigma1 | nu, Stribeck |")
w("| gms | C 1 m/s, elements {16 N/m, 0, 0.5}, {4 N/m, 0, 0.5} | C 1 m/s, elements {1.333e4 N/m, 0, 0.5}, {3.333e3 N/m, 0, 0.5} | both element stiffnesses | (element dampings are 0) | C (an attraction rate in m/s, docs/scenario-format.md, not a stiffness), Stribeck |")
w("| jenkins | mu 1, kt 20 N/m (the file's) | mu 0.1 (= mu_k), kt 1.667e4 N/m | kt | (c_t 0, default) | mu |")
w("")
w("Model B scales the Hunt-Crossley K by f and D by sqrt(f) for every law; model A has no normal stiffness.")
w("")

def fmt(x, spec="%.2e"):
    return "-" if x is None else spec % x

res = {}
for model, law, f, dt, rc, d in rows:
    s = None
    p = os.path.join(d, "summary.json")
    if os.path.exists(p):
        try: s = json.load(open(p))
        except Exception: s = None
    err = open(os.path.join(d, "stderr.txt")).read().strip()
    res.setdefault(model, []).append((law, f, dt, int(rc), s, err))

titles = {"A": "Model A: three-mass chain (time.end = %s s)" % chain_end,
          "B": "Model B: S1 cube (time.end = %s s)" % cube_end}
summ = []
for model in ("A", "B"):
    if model not in res: continue
    w("## " + titles[model])
    w("")
    w("| law | scale | dt [s] | exit | status | energy residual | split | substeps | rejected | unresolved | smallest [s] | wall [s] |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    counts = {"complete": 0, "inaccurate": 0, "failed": 0, "refused": 0, "timeout": 0, "other": 0}
    bad = []
    for law, f, dt, rc, s, err in res[model]:
        if s is not None and rc in (0, 1, 3):
            st = s.get("status", "?")
            e = s["energy"]["residual_relative"]
            sub = s["substeps"]
            w("| %s | %s | %s | %d | %s | %s | %d | %d | %d | %d | %.3g | %.3g |" % (
                law, f, dt, rc, st, fmt(e), sub["steps_split"], sub["substeps"], sub["rejected"],
                sub["unresolved"], sub["smallest_s"], s["wall_time_s"]))
            key = st if st in counts else "other"
            counts[key] += 1
            if st != "complete":
                msg = err.splitlines()[-1] if err else ""
                bad.append("%s, scale %s, dt %s: %s, residual %s%s" % (law, f, dt, st, fmt(e),
                           ("; stderr: `%s`" % msg) if st == "failed" and msg else ""))
        else:
            if rc == 2: st, key = "refused", "refused"
            elif rc in (124, 137): st, key = "timeout (120 s)", "timeout"
            else: st, key = "no summary", "other"
            counts[key] += 1
            msg = err.splitlines()[0] if err else ""
            w("| %s | %s | %s | %d | %s | - | - | - | - | - | - | - |" % (law, f, dt, rc, st))
            bad.append("%s, scale %s, dt %s: %s (exit %d)%s" % (law, f, dt, st, rc,
                       (": `%s`" % msg) if msg else ""))
    w("")
    summ.append((model, counts, bad, len(res[model])))

w("## Summary")
w("")
for model, counts, bad, n in summ:
    w("- Model %s: %d runs: %d complete, %d inaccurate, %d failed, %d refused (exit 2)%s%s." % (
        model, n, counts["complete"], counts["inaccurate"], counts["failed"], counts["refused"],
        (", %d timed out" % counts["timeout"]) if counts["timeout"] else "",
        (", %d other" % counts["other"]) if counts["other"] else ""))
w("")
for model, counts, bad, n in summ:
    w("Runs of model %s not complete (%d):" % (model, len(bad)))
    w("")
    for b in bad: w("- " + b)
    if not bad: w("- none")
    w("")
open(out, "w").write("\n".join(L))
print("\n".join(L[-(sum(len(b) for _, _, b, _ in summ) + 12):]))
PY
echo "wrote $OUT ($((T1 - T0)) s)"
