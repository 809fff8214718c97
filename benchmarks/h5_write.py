#!/usr/bin/python3
"""benchmarks/h5_write.py [BRISTLE] [--snapshots K] [--dir D]: issue 22's HDF5 figure. The 1e6-point clutch
face (scenarios/clutch_patch_1e6.yaml, its mesh from scripts/meshes.sh) run for K steps (default 100) with a
snapshot after each one into run.h5 (output.format: hdf5, plots off), then:
- the disk's sequential write speed measured in the same run (dd of as many bytes as run.h5 holds, fdatasync);
- the run's output time (summary.json: wall_time_split.output) and the rates it gives: file bytes and raw
  (uncompressed) bytes per second, against that disk speed;
- every snapshot read back with h5py: the sum of normal forces against the set's N (1e-12), and the first
  and last snapshots against a CSV-mode run of the same scenario with those two snapshots, read by VTK's
  own reader: identical bit for bit.
Prints a markdown table. Needs h5py and python3-vtk9 (scripts/setup.sh installs both)."""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

args = sys.argv[1:]
K = 100
D = "runs/h5-write"
BR = "./build/bristle"
while args:
    a = args.pop(0)
    if a == "--snapshots":
        K = int(args.pop(0))
    elif a == "--dir":
        D = args.pop(0)
    else:
        BR = a
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
shutil.rmtree(D, ignore_errors=True)
os.makedirs(D)
dt = 5.0e-6
text = open(os.path.join(SRC, "scenarios", "clutch_patch_1e6.yaml")).read().replace("../meshes/", SRC + "/meshes/")
text = re.sub(r"(?m)^  end: .*$", f"  end: {K * dt:.10g}", text)


def scenario(name, fields, fmt):
    t = re.sub(r"(?m)^  interval: (.*)$", r"  interval: \1\n  fields: " + fields + "\n  format: " + fmt +
               "\n  plots: false", text)
    p = os.path.join(D, name + ".yaml")
    open(p, "w").write(t)
    return p


def run(scen, out):
    t0 = time.time()
    subprocess.run([BR, "run", scen, "--backend", "cpu", "--quiet", "--out", out], check=True)
    return time.time() - t0, json.load(open(os.path.join(out, "summary.json")))


h5dir = os.path.join(D, "h5")
wall, summ = run(scenario("h5", f"{{interval: {dt}, from: {dt}}}", "hdf5"), h5dir)
h5path = os.path.join(h5dir, "run.h5")
size = os.path.getsize(h5path)
t_out = summ["wall_time_split_s"]["output"]
# the disk: as many bytes, sequentially, flushed to the device
ddfile = os.path.join(D, "dd.bin")
blocks = max(1, size // (16 << 20))
t0 = time.time()
subprocess.run(["dd", "if=/dev/zero", f"of={ddfile}", "bs=16M", f"count={blocks}", "conv=fdatasync"],
               check=True, capture_output=True)
disk = blocks * (16 << 20) / (time.time() - t0)
os.remove(ddfile)
# read back
t0 = time.time()
with h5py.File(h5path, "r") as f:
    g = f["fields/face"]
    n = g["area"].shape[0]
    N = g["set_normal_force"][...]
    times = g["time"][...]
    worst = 0.0
    raw = 0
    for k in range(len(times)):
        s = g["snapshots"][f"{k:05d}"]
        for name in s:
            raw += s[name].size * 8
        nf = s["normal_force"][...]
        if N[k] > 0:
            worst = max(worst, abs(math.fsum(nf) - N[k]) / N[k])
    first, last = {}, {}
    for name in ("position", "pressure", "normal_force", "sliding_speed", "stick", "friction_force",
                 "bristle_deflection"):
        first[name], last[name] = g[name][0], g[name][len(times) - 1]
t_read = time.time() - t0
# the same two snapshots as VTK files (CSV mode), read by VTK
import vtk
from vtk.util.numpy_support import vtk_to_numpy

csvdir = os.path.join(D, "vtk")
run(scenario("vtk", f"[{times[0]!r}, {times[-1]!r}]", "csv"), csvdir)
same = True
for k, want in ((0, first), (1, last)):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(os.path.join(csvdir, "fields", f"face_{k}.vtp"))
    r.Update()
    p = r.GetOutput()
    for name, a in want.items():
        b = vtk_to_numpy(p.GetPoints().GetData() if name == "position" else p.GetPointData().GetArray(name))
        same &= np.array_equal(a, b)
print(f"| device / file | figure |\n|---|---|")
print(f"| snapshots x points | {len(times)} x {n} |")
print(f"| run.h5 | {size / 1e9:.3f} GB ({size / (len(times) * n * 13):.2f} bytes a point a component; raw {raw / 1e9:.2f} GB) |")
print(f"| run wall time / of it output | {summ['wall_time_s']:.1f} s / {t_out:.1f} s |")
print(f"| write rate (file bytes / output time) | {size / t_out / 1e6:.0f} MB/s |")
print(f"| write rate (raw bytes / output time) | {raw / t_out / 1e6:.0f} MB/s |")
print(f"| disk sequential write (dd, fdatasync, same run) | {disk / 1e6:.0f} MB/s |")
print(f"| file bytes written / disk speed | {size / t_out / disk:.2f} |")
print(f"| read back (h5py, every snapshot) | {t_read:.1f} s |")
print(f"| sum of normal forces against the set's N, worst | {worst:.2g} (limit 1e-12) |")
print(f"| first and last snapshot against the VTK files | {'identical' if same else 'DIFFER'} |")
sys.exit(0 if same and worst <= 1e-12 else 1)
