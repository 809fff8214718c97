#!/usr/bin/env python3
"""benchmarks/peers/lugre3d_numpy.py [--cupy] N STEPS [DT]: the lugre3d field step of `bristle bench field`
written as a vectorized NumPy program, as a user would write it (issue 16's peer); with --cupy the same
program on the GPU through CuPy (the same array expressions; the arrays live on the GPU, and the run
also prints the device-to-device copy bandwidth it measured).

The same synthetic patch (host/field/patch.c: the same random points, areas, K and D from the same
splitmix64 stream, seed 12345 as bench.c), the same carrier motion, the same phases (host/cli/bench.c: 3 + STEPS stick
steps from t = 0, 40 steps to t = 0.02 s, 3 untimed + STEPS timed slip steps), and physics.md's
formulas for a plane counter surface: kinematics (1), Hunt-Crossley (2), lugre3d with the exponential
bristle update (3.1), the set's total normal force and friction force (6). Prints one line:
RESULT points=N steps=STEPS updates_per_s=... N=... F=... (the last slip step's sums, to compare with
bristle's `last step` line)."""
import contextlib
import sys
import time

import numpy

CUPY = "--cupy" in sys.argv
if CUPY:
    import cupy as np  # the same expressions, on the GPU
else:
    np = numpy


def quiet(**kw):
    """NumPy's floating-point warnings off for the selected-away NaNs (CuPy gives none)"""
    return contextlib.nullcontext() if CUPY else numpy.errstate(**kw)


def sync():
    if CUPY:
        np.cuda.Device().synchronize()

M64 = (1 << 64) - 1


def patch(n, seed=12345):
    """host/field/patch.c's points r (x, y; z = 0), K and D: three uniforms per point from splitmix64"""
    k = np.arange(1, 3 * n + 1, dtype=np.uint64)
    with quiet(over="ignore"):
        z = np.uint64(seed) + k * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
    u = u.reshape(n, 3)
    radius, cx, cy, sigma = 0.05, 0.1, 0.05, 3e-9
    rad = radius * np.sqrt(u[:, 0])
    th = 2.0 * np.pi * u[:, 1]
    area = np.pi * radius * radius / n * (0.5 + u[:, 2])
    return cx + rad * np.cos(th), cy + rad * np.sin(th), area / (sigma * sigma), 4.88e5 / 4.33e-4 * area


def carrier(t):
    """host/field/patch.c's frames: the carrier's attitude R, origin height, velocity and spin (the ground at rest)"""
    tilt, pen0, wz = 6e-6, 1e-6, 2.0 * np.pi * 5.0
    # the frame is a handful of host scalars (numpy on both paths)
    cos, sin, pi = numpy.cos, numpy.sin, numpy.pi
    R = numpy.array([[1.0, 0.0, 0.0], [0.0, cos(tilt), -sin(tilt)], [0.0, sin(tilt), cos(tilt)]])
    xz = -pen0 * (1.0 + 0.2 * sin(wz * t)) - sin(tilt) * 0.05
    speed = 2e-3 * sin(2.0 * pi * 10.0 * t)
    v = numpy.array([speed * cos(t), speed * sin(t), -pen0 * 0.2 * wz * cos(wz * t)])
    return R, xz, v, numpy.array([0.0, 0.0, 2e-4])


class Field:
    def __init__(self, n):
        self.rx, self.ry, self.K, self.D = patch(n)
        self.z = np.zeros((3, n))
        # patch.c's lugre3d parameters
        self.mu_s, self.mu_k, self.V_st, self.s0, self.s1, self.s2 = 0.15, 0.1, 1e-3, 1e4, numpy.sqrt(1e5) / 10.0, 0.04

    def step(self, t, h):
        R, xz, c, w = (x.tolist() if isinstance(x, numpy.ndarray) else x for x in carrier(t))
        # rw = R r (r_z = 0); the plane z = 0 of the ground, normal +z: delta = -x_A,z - rw_z
        rwx = R[0][0] * self.rx + R[0][1] * self.ry
        rwy = R[1][0] * self.rx + R[1][1] * self.ry
        rwz = R[2][0] * self.rx + R[2][1] * self.ry
        delta = -xz - rwz
        # V = c + w x rw; deltadot = -V_z; Vt = (V_x, V_y, 0)
        Vx = c[0] + w[1] * rwz - w[2] * rwy
        Vy = c[1] + w[2] * rwx - w[0] * rwz
        Vz = c[2] + w[0] * rwy - w[1] * rwx
        v = np.sqrt(Vx * Vx + Vy * Vy)
        inc = delta > 0.0
        with quiet(invalid="ignore"):
            N = self.K * delta * delta + self.D * np.sqrt(delta) * (-Vz)
        N = np.where(inc & (N > 0.0), N, 0.0)
        G = self.mu_k + (self.mu_s - self.mu_k) * np.exp(-((v / self.V_st) ** 2))
        a = self.s0 * v / G
        x = a * h
        with quiet(invalid="ignore", divide="ignore"):
            wgt = np.where(x < 1e-10, h * (1.0 - 0.5 * x), -np.expm1(-x) / a)
        F = []
        for k, Vk in enumerate((Vx, Vy, np.zeros_like(Vx))):
            zk = self.z[k] + (Vk - a * self.z[k]) * wgt
            Fk = (self.s0 * zk + self.s1 * (Vk - a * zk) + self.s2 * Vk) * N
            self.z[k] = np.where(inc, zk, 0.0)
            F.append(np.where(inc, Fk, 0.0).sum())
        return float(N.sum()), float(numpy.sqrt(float(F[0]) ** 2 + float(F[1]) ** 2 + float(F[2]) ** 2))


def copy_bandwidth(n):
    """device-to-device copy of 64 n bytes (the field's size), read + write bytes per second (CuPy)"""
    a = np.ones(8 * n)
    b = np.empty_like(a)
    b[...] = a
    sync()
    t0 = time.perf_counter()
    for _ in range(20):
        b[...] = a
    sync()
    return 2.0 * a.nbytes * 20 / (time.perf_counter() - t0)


def main():
    args = [a for a in sys.argv[1:] if a != "--cupy"]
    n, steps = int(float(args[0])), int(args[1])
    dt = float(args[2]) if len(args) > 2 else 1e-5
    f = Field(n)
    hs, hp = min(dt, 5e-4 / (steps + 3)), min(dt, 0.02 / (steps + 3))
    for k in range(steps + 3):
        f.step(k * hs, hs)
    tc = (steps + 3) * hs
    hj = (0.02 - tc) / 40
    for k in range(40):
        f.step(tc, hj)
        tc += hj
    for k in range(3):
        f.step(0.02 + k * hp, hp)
    sync()
    t0 = time.perf_counter()
    for k in range(steps):
        N, F = f.step(0.02 + (k + 3) * hp, hp)
    sync()
    sec = time.perf_counter() - t0
    extra = " backend=cupy copy_GBs=%.1f" % (copy_bandwidth(n) / 1e9) if CUPY else " backend=numpy"
    print("RESULT points=%d steps=%d updates_per_s=%.4e N=%.9g F=%.9g%s" % (n, steps, n * steps / sec, N, F, extra))


if __name__ == "__main__":
    main()
