#!/usr/bin/env python3
"""benchmarks/loop-ceiling.py: what bounds each friction law's CPU point loop (issue 54).

For the loop `bristle bench field` times in each regime (plane surface, no per-point outputs), this
takes the compiled loop out of the build's law objects (objdump), counts its instructions per point
(every vector instruction: arithmetic, compares, selects, mask and shuffle operations, register
moves; loads and stores; scalar bookkeeping) and runs llvm-mca on it for a CPU model:

  port-bound   cycles a point when every instruction issues on its ports at their full rate and
               nothing waits for a result: the ceiling counting every instruction the loop needs
               (llvm-mca's block reciprocal throughput over the points an iteration takes)
  simulated    cycles a point of the same loop run back to back through the model's out-of-order
               core (dependencies, latencies, reorder buffer and scheduler sizes)

simulated / port-bound above 1 says how far the loop is held by the latency of a point's chain
rather than by its instructions. llvm-mca runs a loop body as one straight sequence: a loop that
the compiler laid out in pieces, with branches leaving the range between its head and its back
jump (gms's, around masked stores of its states), is marked and not analysed. With a `bristle
bench field --law all` output (--bench) and the core clock (--ghz, or --ghz auto: from the run's
peak adds + multiplies, taken as two vector ports a core, the figure of Intel's AVX-512 server
cores), the measured rate becomes cycles a point, set against both. Deterministic for a given
build: no timing is involved but the bench's own.

Needs objdump (binutils) and llvm-mca (Debian's llvm package; installed here when missing, as
benchmarks/peers/run.sh installs NumPy).

usage: python3 benchmarks/loop-ceiling.py [--build build] [--mcpu icelake-server]
                                          [--bench FILE] [--ghz G|auto]
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

# law -> (BR_CPU_PART, the loop the bench's stick regime runs, its slip regime's); the dispatch of
# host/field/field_cpu.c for a plane without outputs, the usual exponents and the bench's patch
# (host/field/patch.c: gms with 4 elements)
def _fn(kind, law=""):
    return f"br_cpu_{kind}{'_BR_LAW_' + law if law else ''}_BR_SURF_PLANE_0"


LOOPS = {
    "lugre3d": (0, _fn("chunkx", "LUGRE3D"), _fn("chunkx", "LUGRE3D")),
    "lugre3d_classic": (1, _fn("chunkx", "LUGRE3D_CLASSIC"), _fn("chunkx", "LUGRE3D_CLASSIC")),
    "dahl3d": (2, _fn("chunkx", "DAHL3D"), _fn("chunkx", "DAHL3D")),
    "gkf": (3, _fn("chunkxs", "GKF"), _fn("chunkx", "GKF")),
    "static_reg": (4, _fn("chunkxs", "STATIC_REG"), _fn("chunkx", "STATIC_REG")),
    "bristle2": (5, _fn("chunkx", "BRISTLE2"), _fn("chunkx", "BRISTLE2")),
    "bristle_implicit": (6, _fn("chunk_bistick"), _fn("chunk", "BRISTLE_IMPLICIT")),
    "gms": (7, _fn("chunk_gms4"), _fn("chunk_gms4")),
    "jenkins": (8, _fn("chunkx", "JENKINS"), _fn("chunkx", "JENKINS")),
}
VREG = re.compile(r"%[xyz]mm|%k[0-7]")


def need_llvm_mca():
    if shutil.which("llvm-mca"):
        return "llvm-mca"
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("loop-ceiling: installing llvm (llvm-mca)", file=sys.stderr)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "llvm"], check=True,
                   stdout=sys.stderr)
    return "llvm-mca"


def jump_target(op, arg):
    """an instruction -> the address its direct jump goes to, or None"""
    m = re.match(r"([0-9a-f]+) <", arg) if op.startswith("j") else None
    return int(m.group(1), 16) if m else None


def hot_loop(obj, fn):
    """object, function -> the instructions (mnemonic, operands) of the back-jump range with the most
    vector-register instructions: the vectorized point loop; and whether that range is the whole
    loop (no jump in it leaves it, no return inside): a loop that gcc laid out in pieces (gms's)
    is not one range, and its figures would be those of another sequence"""
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj, "--disassemble=" + fn],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"loop-ceiling: {obj}: objdump failed ({e}); build first (cmake --build build)")
    ins = []
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2), re.sub(r"#.*", "", m.group(3)).strip()))
    if not ins:
        raise SystemExit(f"loop-ceiling: {obj}: no function {fn} (a build of another commit?)")
    at = {a: i for i, (a, _, _) in enumerate(ins)}
    best = None
    for i, (a, op, arg) in enumerate(ins):
        t = jump_target(op, arg)
        if t is not None and t <= a and t in at:
            body = ins[at[t]:i + 1]
            nv = sum(bool(VREG.search(x[2])) for x in body)
            if best is None or nv > best[0]:
                best = (nv, body)
    if best is None:
        raise SystemExit(f"loop-ceiling: {fn}: no loop found")
    body = best[1]
    lo, hi = body[0][0], body[-1][0]
    targets = [jump_target(op, arg) for _, op, arg in body[:-1]]
    whole = not any(op.startswith("ret") for _, op, _ in body) and all(
        t is None or lo <= t <= hi for t in targets)
    return [(op, arg) for _, op, arg in body], whole


def points_per_iteration(body):
    """the points an iteration takes: the commonest pointer step (8 bytes a point's double)"""
    steps = collections.Counter()
    for op, arg in body:
        m = re.match(r"\$(-?0x[0-9a-f]+),%r", arg)
        if m and op in ("add", "sub"):
            v = int(m.group(1), 16)
            v = abs(v - (1 << 64) if v >= 1 << 63 else v)
            if v >= 32 and v % 8 == 0:
                steps[v] += 1
    if not steps:
        raise SystemExit("loop-ceiling: no pointer step found in the loop")
    return steps.most_common(1)[0][0] // 8


def classify(body):
    c = collections.Counter()
    for op, arg in body:
        if not VREG.search(arg) and not op.startswith("k"):
            c["scalar"] += 1
        elif "(" in arg and (op.startswith("vmov") or op.startswith("vbroadcast")):
            c["load/store"] += 1
        else:
            c["vector"] += 1
    return c


def mca(body, mcpu, iters=200):
    src = "\n".join(f"{op} {arg}" for op, arg in body if not op.startswith("j"))
    r = subprocess.run([need_llvm_mca(), f"-mcpu={mcpu}", f"-iterations={iters}"], input=src,
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("loop-ceiling: llvm-mca: " + r.stderr.strip())
    cyc = int(re.search(r"Total Cycles:\s+(\d+)", r.stdout).group(1)) / iters
    rt = float(re.search(r"Block RThroughput:\s+([\d.]+)", r.stdout).group(1))
    return cyc, rt


def bench_rates(path):
    """a `bench field --law all` output -> {law: (stick ups, slip ups)}, its threads, the peak
    adds+muls/s (G) and the doubles a vector of its peak-rates line (None where it has none)"""
    rates, threads, peak, lanes = {}, None, None, None
    for line in open(path):
        m = re.search(r"\(CPU, [^,]*, (\d+) doubles, \d+ threads?\)", line)
        if m:
            lanes = int(m.group(1))
        if line.startswith("RESULT"):
            kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
            rates[kv["law"]] = (float(kv["stick_updates_per_s"]), float(kv["updates_per_s"]))
            threads = int(kv["threads"])
            peak = float(kv["peak_addmul_G"]) if "peak_addmul_G" in kv else peak
    if not rates:
        raise SystemExit(f"loop-ceiling: {path}: no RESULT lines (an output of bench field --law all?)")
    return rates, threads, peak, lanes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--mcpu", default="icelake-server", help="llvm-mca's CPU model (znver3 for AMD)")
    ap.add_argument("--bench", help="output of `bristle bench field --law all`")
    ap.add_argument("--ghz", help="core clock in GHz, or auto (from the bench's peak adds + multiplies)")
    a = ap.parse_args()
    rates, ghz, threads = {}, None, None
    if a.ghz and not a.bench:
        raise SystemExit("loop-ceiling: --ghz needs --bench (the measured rates to convert)")
    if a.bench:
        rates, threads, peak, lanes = bench_rates(a.bench)
        if a.ghz == "auto":
            if peak is None or lanes is None:
                raise SystemExit(f"loop-ceiling: {a.bench}: no peak rates in it; give --ghz")
            ghz = peak / (lanes * 2 * threads)  # G scalar adds+muls/s -> vectors, 2 ports, per core
        elif a.ghz:
            ghz = float(a.ghz)
    how = ("estimated from the run's peak adds + multiplies, two vector ports a core as on Intel's "
           "AVX-512 server cores: give --ghz elsewhere" if a.ghz == "auto" else "--ghz")
    print(f"llvm-mca -mcpu={a.mcpu}; cycles a point on one core" +
          (f"; measured at {ghz:.2f} GHz ({how}), {threads} threads" if ghz else ""))
    print()
    head = ("| law | regime | loop | points/iteration | vector, load/store, scalar instructions a point | "
            "port-bound | simulated | simulated / port-bound |")
    if ghz:
        head += " measured | of port-bound ceiling |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for law, (part, fstick, fslip) in LOOPS.items():
        obj = os.path.join(a.build, "CMakeFiles", f"bristle_field_cpu_{part}.dir", "host", "field",
                           "field_cpu_law.c.o")
        for k, (regime, fn) in enumerate((("stick", fstick), ("slip", fslip))):
            body, whole = hot_loop(obj, fn)
            first = f"| {law if k == 0 else ''} | {regime} | {fn.replace('br_cpu_', '')}"
            if not whole:
                print(first + " (laid out in pieces: not analysed) |" + " |" * (head.count("|") - 4))
                continue
            vf = points_per_iteration(body)
            c = classify(body)
            cyc, rt = mca(body, a.mcpu)
            per = ", ".join(f"{c[k] / vf:.1f}" for k in ("vector", "load/store", "scalar"))
            row = f"{first} | {vf} | {per} | {rt / vf:.1f} | {cyc / vf:.1f} | {cyc / rt:.2f} |"
            if ghz:
                if law in rates:
                    meas = ghz * 1e9 * threads / rates[law][k]
                    row += f" {meas:.1f} | {100 * rt / vf / meas:.0f} % |"
                else:
                    row += " | |"
            print(row)


if __name__ == "__main__":
    main()
