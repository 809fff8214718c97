#!/usr/bin/env python3
"""benchmarks/interface_speed.py [--bristle PATH] [--points 16,64,144,256] [--steps S]: the time step of a
deforming contact interface (issue 52) on the CPU, against the number of interface points.

The model, generated here for each size P = nx * ny: a grid of nodes, three translations each, on ground
springs and coupled along its rows (a structure given as matrices of 3 P coordinates), each node against
the ground by one jenkins interface point, pressed down by a load vector and shaken along x at one edge
(tests/test_interface.c's factor-reuse model, larger). For each size the same run twice: with the
Woodbury system's LU kept and refined from step to step (the default from 48 contact rows) and with it
factored every step (BRISTLE_NO_LU_REUSE, the simpler implementation), each best of two; steps per
second from the run's own summary.json (its wall time excludes reading the scenario). Prints a Markdown
table; benchmarks/results/ keeps the measured ones with machine and commit."""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
import scipy.io


def model(folder, nx, ny, steps):
    nn = nx * ny
    n3 = 3 * nn
    kg, kc, A = 1e4, 5e4, 1e-5
    K = np.zeros((n3, n3))
    for i in range(nn):
        for j in range(3):
            K[3 * i + j, 3 * i + j] += kg
            if i % nx + 1 < nx:
                a, b = 3 * i + j, 3 * (i + 1) + j
                K[a, a] += kc
                K[b, b] += kc
                K[a, b] -= kc
                K[b, a] -= kc
    scipy.io.mmwrite(os.path.join(folder, "K.mtx"), K, symmetry="symmetric")
    scipy.io.mmwrite(os.path.join(folder, "M.mtx"), 0.05 * np.eye(n3), symmetry="symmetric")
    with open(os.path.join(folder, "nodes.csv"), "w") as f:
        f.write("label,x,y,z,ux,uy,uz\n")
        for i in range(nn):
            f.write("p%d,%g,%g,0,%d,%d,%d\n" % (i, 0.01 * (i % nx), 0.01 * (i // nx), 3 * i + 1, 3 * i + 2, 3 * i + 3))
    with open(os.path.join(folder, "pairs.csv"), "w") as f:  # touching at q = 0, no gap: the press closes them
        f.write("a,b,nx,ny,nz,area,gap\n")
        for i in range(nn):
            f.write("p%d,,0,0,1,%r,0\n" % (i, A))
    press = np.zeros((n3, 1))
    press[2::3, 0] = -1.0
    shake = np.zeros((n3, 1))
    shake[[3 * i for i in range(nn) if i % nx == 0], 0] = 1.0
    scipy.io.mmwrite(os.path.join(folder, "press.mtx"), press)
    scipy.io.mmwrite(os.path.join(folder, "shake.mtx"), shake)
    path = os.path.join(folder, "grid.yaml")
    with open(path, "w") as f:
        f.write("time: {end: %r, dt: 1.0e-5}\n" % (steps * 1e-5))
        f.write("output: {interval: 1.0e-4, plots: false}\n")
        f.write("structures:\n  - {name: g, mass: M.mtx, stiffness: K.mtx, nodes: nodes.csv, damping: {rayleigh: {a: 5, b: 0}}}\n")
        f.write("loads:\n  - {name: press, structure: g, vector: press.mtx, magnitude: {ramp: {t0: 0, t1: 0.005, from: 0, to: 1}}}\n")
        f.write("  - {name: shake, structure: g, vector: shake.mtx, magnitude: {harmonic: {amplitude: %r, frequency: 100}}}\n"
                % (0.05 * ny))
        f.write("contacts:\n  - name: c\n    interface: {structure: g, pairs: pairs.csv}\n")
        f.write("    normal: {law: hunt_crossley, sigma: 3.0e-9, pK: 2, d_area: 1.0e9, pD: 0.5}\n")
        f.write("    friction: {law: jenkins, kt_area: 1.0e10, mu: 0.3}\n")
    return path


def run(bristle, scen, out, reuse):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if not reuse:
        env["BRISTLE_NO_LU_REUSE"] = "1"
    best = None
    for _ in range(2):
        subprocess.run([bristle, "run", scen, "--backend", "cpu", "--quiet", "--out", out], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        s = json.load(open(os.path.join(out, "summary.json")))
        rate = s["steps_per_second"]
        best = rate if best is None else max(best, rate)
    return best, s["energy"]["residual_relative"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bristle", default="build/bristle")
    ap.add_argument("--points", default="16,64,144,256")
    ap.add_argument("--steps", type=int, default=3000)
    a = ap.parse_args()
    print("| points | contact rows | structure coordinates | steps/s, LU kept and refined | steps/s, factored every step | ratio | energy residual |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for p in map(int, a.points.split(",")):
            ny = max(1, int(round(p ** 0.5 / 1.5)))
            nx = p // ny
            folder = os.path.join(tmp, "p%d" % p)
            os.makedirs(folder)
            scen = model(folder, nx, ny, a.steps)
            rows = 6 * ((nx * ny + 1) // 2)
            r1, e1 = run(a.bristle, scen, os.path.join(folder, "out"), True)
            r0, _ = run(a.bristle, scen, os.path.join(folder, "out0"), False)
            print("| %d | %d | %d | %.4g | %.4g | %.2f | %.2g |" % (nx * ny, rows, 3 * nx * ny, r1, r0, r1 / r0, e1))


if __name__ == "__main__":
    main()
