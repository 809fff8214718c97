#!/usr/bin/env python3
"""scripts/compare-outputs.py: two `bristle` binaries, every scenario of scenarios/ and every study of
studies/ run by each (shortened to 1 s of simulated time where longer), their outputs compared byte
for byte.

In: --ref BIN (the binary before a change; its outputs are cached in WORK/ref with the binary's
hash, so that a series of changes runs it once), --new BIN (default build/bristle), --work DIR
(default /tmp/bristle-compare), --only SUBSTRING (the cases whose name holds it), --jobs J.
Out: one line per case (same / DIFFERS: files / FAILED: exit status), exit status 1 when any case
differs or fails. Compared: every .csv file and summary.json of each output folder; summary.json's
wall times and rates (keys holding "wall" or "per_second", "setup_time_s", and "source", the scenario's path) are
left out, nothing else. Issue 51's item 1: a change that moves code keeps every output identical.

Shortening: `--set time.end=1` where the scenario's time.end is over 1 s (or its last field
snapshot's time, where later); the sweep studies whose
analysis starts at 1 s (preload_lugre, mistuning_lugre) end at 1.5 s so that one window is analysed.
The stepped-sine studies step 3 of their frequencies (the first, 0.5 Hz and 1 Hz above it, on a uniform list, at most 40 cycles each; a copy of
the study file in WORK says so, its scenario path made absolute), harmonic balance studies run whole.
--quick (a check between the steps of a change; the whole run is the acceptance): scenarios end at
0.2 s, sweeps 0.2 s after their analysis starts, studies over random draws take the first 4.
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent


def cases(work, quick):
    """(name, argv after the binary) for every scenario and study"""
    out = []
    for f in sorted((ROOT / "scenarios").glob("*.yaml")):
        doc = yaml.safe_load(f.read_text())
        end = float(doc.get("time", {}).get("end", 0) or 0)
        argv = ["run", str(f), "--backend", "cpu", "--quiet"]
        short = 0.2 if quick else 1.0
        fields = doc.get("output", {}).get("fields")
        if isinstance(fields, list) and fields:
            short = max(short, max(float(x) for x in fields))  # a snapshot time must lie in the run
        if end > short:
            argv += ["--set", "time.end=%g" % short]
        out.append(("scenario/" + f.stem, argv))
    for f in sorted((ROOT / "studies").glob("*.yaml")):
        doc = yaml.safe_load(f.read_text())
        an = doc.get("analysis", {})
        if an.get("type") == "stepped_sine":
            fr = an["frequencies"]
            f0 = float(fr["lin"][0] if isinstance(fr, dict) else fr[0])
            an["frequencies"] = {"lin": [f0, f0 + 1, 3]}
            an["max_cycles"] = min(int(an.get("max_cycles", 40)), 40)
        if quick and "random" in doc:
            doc["random"]["count"] = min(int(doc["random"]["count"]), 4)
        doc["scenario"] = str((f.parent / doc["scenario"]).resolve())
        copy = work / "studies" / f.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(yaml.safe_dump(doc, sort_keys=False))
        argv = ["study", str(copy), "--backend", "cpu", "--quiet", "--threads", "1"]
        if an.get("type") == "sweep":
            start = float(an.get("from", 0) or 0)
            argv += ["--set", "time.end=%g" % max(1.0, start + (0.2 if quick else 0.5))]
        out.append(("study/" + f.stem, argv))
    return out


def clean_summary(x):
    if isinstance(x, dict):
        return {k: clean_summary(v) for k, v in x.items()
                if "wall" not in k and "per_second" not in k and k not in ("source", "setup_time_s")}
    if isinstance(x, list):
        return [clean_summary(v) for v in x]
    return x


def outputs(folder):
    """{relative path: bytes} of the compared files"""
    got = {}
    if not folder.is_dir():
        return got
    for p in sorted(folder.rglob("*")):
        if p.suffix == ".csv" or p.name == "summary.json":
            data = p.read_bytes()
            if p.name == "summary.json":
                data = json.dumps(clean_summary(json.loads(data)), sort_keys=True, indent=1).encode()
            got[str(p.relative_to(folder))] = data
    return got


def run(binary, argv, out):
    if out.exists():
        shutil.rmtree(out)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run([binary] + argv + ["--out", str(out)], cwd=ROOT, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
    (out.parent / (out.name + ".log")).write_bytes(p.stdout)
    return p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--new", default=str(ROOT / "build" / "bristle"))
    ap.add_argument("--work", default="/tmp/bristle-compare")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    work = pathlib.Path(a.work) / ("quick" if a.quick else "full")
    h = hashlib.sha1(pathlib.Path(a.ref).read_bytes()).hexdigest()
    refdir = work / ("ref-" + h[:12])
    newdir = work / "new"
    todo = [c for c in cases(work, a.quick) if a.only in c[0]]

    def one(case):
        name, argv = case
        r_out, n_out = refdir / name, newdir / name
        stamp = refdir / (name + ".rc")
        key = hashlib.sha1(repr(argv).encode() + (pathlib.Path(argv[1]).read_bytes())).hexdigest()
        old = stamp.read_text().split() if stamp.exists() else []
        if len(old) == 2 and old[1] == key:
            r_rc = int(old[0])
        else:
            r_rc = run(a.ref, argv, r_out)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text("%d %s" % (r_rc, key))
        n_rc = run(a.new, argv, n_out)
        if r_rc != n_rc:
            return name, "FAILED: exit status %d before, %d after" % (r_rc, n_rc)
        r, n = outputs(r_out), outputs(n_out)
        if not r:
            return name, "FAILED: no output (exit status %d; %s.log)" % (r_rc, r_out)
        diff = sorted(k for k in set(r) | set(n) if r.get(k) != n.get(k))
        if diff:
            return name, "DIFFERS: " + ", ".join(diff[:6]) + (" ..." if len(diff) > 6 else "")
        return name, "same (%d files, exit %d)" % (len(r), r_rc)

    bad = 0
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for name, verdict in ex.map(one, todo):
            print("%-48s %s" % (name, verdict), flush=True)
            bad += not verdict.startswith("same")
    print("%d of %d cases identical" % (len(todo) - bad, len(todo)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
