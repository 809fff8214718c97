#!/usr/bin/env python3
"""The lap joint's frequency response by harmonic balance: Bristle against a plain NumPy harmonic balance of
the same model (issue 52, acceptance 5), side by side in one run.

Neither tmdsimpy nor NLvib can be run here: tmdsimpy is not on PyPI (a GitHub project; this machine
installs from PyPI and Debian only), NLvib is MATLAB. The reference is therefore a NumPy harmonic
balance written for this benchmark, the same method as Bristle's (docs/hbm.md, "Deforming interfaces"):

- unknowns: each pair's relative displacement (t1, t2, n) harmonics 0..H, nu = 3 P (2 H + 1);
- linear part: harmonics k >= 1 by the undamped modes (Rayleigh damping is diagonal in them), the static
  harmonic with every pair bonded, factored once;
- AFT: N = 16 H samples a period, vectorized over the pairs (NumPy arrays of P), the preload ramped in
  from the unloaded assembly over one period, the oscillation over the next, then periods until the
  force harmonics repeat within 1e-9 of their largest (or, approaching geometrically as 2D slip does, their
  Aitken limit is that close: Bristle's rule, docs/hbm.md); jenkins (kt = kt_area A, radial return on mu N)
  with a linear penalty and normal damping (N = max(0, K A delta + d_area A delta')) at every sample;
- Newton with a fresh Jacobian each iteration, colored by pair ((2 H + 1) 3 AFTs), each point started from the
  last; its linear solve a dense LU (numpy.linalg.solve: LAPACK through OpenBLAS, on every core), or from 3000
  unknowns (--solver) SciPy's GMRES on the Newton matrix's products J v = v - H (D v) with D each pair's block,
  preconditioned per harmonic by I - H_k d_k (each pair's harmonic-diagonal block, LU-factored): the method of
  `bristle hbm --linear-solver krylov` (docs/hbm.md), which takes the same switch.

Bristle runs `bristle hbm` over the same band (its pseudo-arclength continuation places its own points;
their count is reported) and NumPy solves at 30 equally spaced frequencies. Both are timed on the same
machine in the same run, and NumPy's first harmonic at the load node is compared with Bristle's curve
(interpolated) at each frequency.

usage: python3 benchmarks/lap_joint_hbm.py [--h 2] [--H 5] [--level 1.0] [--f0 262] [--f1 269] [--points 30]
                                          [--solver auto|dense|krylov]
  (examples/lap_joint/.venv must exist: scripts/setup.sh makes it)
"""
import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "lap_joint")
BR = os.environ.get("BRISTLE", os.path.join(ROOT, "build", "bristle"))
sys.path.insert(0, EXAMPLE)
import lapmodel  # noqa: E402  (examples/lap_joint/lapmodel.py: the model's files read back)


class NumpyHB:
    """Harmonic balance of the lap joint in NumPy (the module's docstring)."""

    def __init__(self, M, K, Fv, Fe, L, A, out, H, level, bolt=2000.0, mu=0.6, krylov=False):
        self.H, self.N, self.P = H, 16 * H, len(A)
        self.krylov, self.products = krylov, 0
        self.kn, self.kt, self.D, self.mu = 1e13 * A, 1e13 * A, 1e7 * A, mu
        lam, Phi = scipy.linalg.eigh(K, M)
        self.lam, self.cm = lam, 20.0 + 1e-8 * lam  # Rayleigh a = 20, b = 1e-8
        self.Pm = L @ Phi                            # the pairs' mode shapes, 3P x n
        self.po = Phi[out]                           # the load node's
        self.f1m = Phi.T @ (-1j * level * Fe)        # F_1 = fc - i fs with fs = level Fe (a sine)
        kb = np.column_stack([self.kt, self.kt, self.kn]).ravel()
        self.kb = kb
        Z0 = K + L.T @ (kb[:, None] * L)
        B = np.linalg.solve(Z0, np.column_stack([L.T, bolt * Fv]))
        self.H0, self.X0 = L @ B[:, :-1], L @ B[:, -1]
        self.nl = 3 * self.P
        self.nu = self.nl * (2 * H + 1)
        j = np.arange(self.N)
        self.c = np.cos(2 * np.pi * np.outer(np.arange(H + 1), j) / self.N)
        self.s = np.sin(2 * np.pi * np.outer(np.arange(H + 1), j) / self.N)
        self.aft_evals = 0

    def lin(self, w):
        """H_k (k >= 1, complex nl x nl) and X_k at w."""
        Hk, Xk = [self.H0], [self.X0.astype(complex)]
        for k in range(1, self.H + 1):
            d = 1.0 / (self.lam - (k * w) ** 2 + 1j * k * w * self.cm)
            Hk.append((self.Pm * d) @ self.Pm.T)
            Xk.append((self.Pm @ (d * self.f1m)) if k == 1 else np.zeros(self.nl, complex))
        return Hk, Xk

    def synth(self, y, w):
        """y -> the mean (nl) and the oscillation's displacement and velocity at the samples (N x nl)."""
        nl, H = self.nl, self.H
        u, v = np.zeros((self.N, nl)), np.zeros((self.N, nl))
        for k in range(1, H + 1):
            re, im = y[(2 * k - 1) * nl:2 * k * nl], y[2 * k * nl:(2 * k + 1) * nl]
            c, s = self.c[k][:, None], self.s[k][:, None]
            u += re * c - im * s
            v -= k * w * (re * s + im * c)
        return y[:nl], u, v

    def aft(self, y, w, ptol=1e-9, maxper=200):
        """y -> G (nu): the pairs' forces' harmonics."""
        self.aft_evals += 1
        N, P, H, nl = self.N, self.P, self.H, self.nl
        y0, uo, vo = self.synth(y, w)
        h = 2 * np.pi / w / N
        z = np.zeros((P, 2))
        f = np.zeros((N, nl))

        def sample(u, v):
            nonlocal z
            u3, v3 = u.reshape(P, 3), v.reshape(P, 3)
            delta, ddot = -u3[:, 2], -v3[:, 2]
            Nf = np.where(delta > 0.0, np.maximum(self.kn * delta + self.D * ddot, 0.0), 0.0)
            F = self.kt[:, None] * (u3[:, :2] - z)
            mag = np.hypot(F[:, 0], F[:, 1])
            lim = self.mu * Nf
            slip = mag > lim
            scale = np.where(slip, lim / np.where(mag > 0, mag, 1.0), 1.0)
            F = F * scale[:, None]
            z = np.where(slip[:, None], u3[:, :2] - F / self.kt[:, None], z)
            out = np.empty((P, 3))
            out[:, :2], out[:, 2] = -F, Nf
            return out.ravel()

        for j in range(1, N + 1):  # the preload ramped in (smoothstep), nothing oscillating
            x = j / N
            sample((x * x * (3 - 2 * x)) * y0, 6 * x * (1 - x) / (N * h) * y0)
        for j in range(1, N + 1):  # the oscillation ramped in
            x = j / N
            r, rd = x * x * (3 - 2 * x), 6 * x * (1 - x) / (N * h)
            jj = j % N
            sample(y0 + r * uo[jj], r * vo[jj] + rd * uo[jj])
        Gp, dprev, rprev = None, 0.0, -1.0
        for p in range(1, maxper + 1):
            for j in range(1, N + 1):
                jj = j % N
                f[jj] = sample(y0 + uo[jj], vo[jj])
            G = np.empty(self.nu)
            G[:nl] = f.mean(axis=0)
            for k in range(1, H + 1):
                G[(2 * k - 1) * nl:2 * k * nl] = 2.0 / N * (self.c[k] @ f)
                G[2 * k * nl:(2 * k + 1) * nl] = -2.0 / N * (self.s[k] @ f)
            if Gp is None:
                Gp = G
                continue
            diff, big = np.max(abs(G - Gp)), np.max(abs(G))
            if diff <= ptol * big:
                break
            # a geometric approach (2D slip settles so): Aitken's limit once the ratio is steady (docs/hbm.md)
            rho = diff / dprev if dprev > 0 else -1.0
            if p >= 4 and 0.0 < rho < 0.999 and rprev > 0.0:
                est, drift = diff * rho / (1 - rho), abs(rho - rprev) / (1 - rho)
                if est <= 1e-2 * big and est * max(drift, 1e-3) <= ptol * big:
                    G = G + (G - Gp) * rho / (1 - rho)
                    break
            dprev, rprev, Gp = diff, rho, G
        return G

    def residual(self, y, G, Hk, Xk):
        nl, R = self.nl, y.copy()
        for k in range(self.H + 1):
            if k == 0:
                R[:nl] -= Xk[0].real + Hk[0] @ (G[:nl] + self.kb * y[:nl])
            else:
                r = Xk[k] + Hk[k] @ (G[(2 * k - 1) * nl:2 * k * nl] + 1j * G[2 * k * nl:(2 * k + 1) * nl])
                R[(2 * k - 1) * nl:2 * k * nl] -= r.real
                R[2 * k * nl:(2 * k + 1) * nl] -= r.imag
        return R

    def jacobian(self, y, w, G, Hk):
        nl, nu, H = self.nl, self.nu, self.H
        d = 1e-7 * np.max(abs(y))
        J = np.eye(nu)
        for b in range(2 * H + 1):
            for sl in range(3):
                yt = y.copy()
                yt[b * nl + sl:(b + 1) * nl:3] += d
                dG = (self.aft(yt, w) - G) / d
                for p in range(self.P):  # column (b, 3p + sl): its pair's three coordinates, every block
                    i = 3 * p + sl
                    col = np.zeros(nu)
                    for bb in range(2 * H + 1):
                        v = dG[bb * nl + 3 * p:bb * nl + 3 * p + 3].copy()
                        if bb == 0 and b == 0:
                            v[sl] += self.kb[i]
                        k = (bb + 1) // 2
                        Hc = Hk[k][:, 3 * p:3 * p + 3] @ (v if bb % 2 or k == 0 else 1j * v)
                        if k == 0:
                            col[:nl] -= Hc.real
                        else:
                            col[(2 * k - 1) * nl:2 * k * nl] -= Hc.real
                            col[2 * k * nl:(2 * k + 1) * nl] -= Hc.imag
                    J[:, b * nl + i] += col
        return J

    # ---- Newton-Krylov (--krylov): the Newton matrix applied, not formed, as `bristle hbm` does from 3000 unknowns
    def blocks(self, y, w, G):
        """-> D (P x 3nb x 3nb): per pair the Jacobian of its forces' harmonics in its own coordinates' (row (bb, j),
        column (b, i) at index 3 b + i), from the same (2 H + 1) 3 colored AFTs, the bond stiffness kb at harmonic 0."""
        nl, nb, P = self.nl, 2 * self.H + 1, self.P
        d = 1e-7 * np.max(abs(y))
        D = np.zeros((P, 3 * nb, 3 * nb))
        for b in range(nb):
            for sl in range(3):
                yt = y.copy()
                yt[b * nl + sl:(b + 1) * nl:3] += d
                dG = (self.aft(yt, w) - G) / d
                D[:, :, 3 * b + sl] = dG.reshape(nb, P, 3).transpose(1, 0, 2).reshape(P, 3 * nb)
                if b == 0:
                    D[:, sl, sl] += self.kb[sl::3]
        return D

    def apply_H(self, g, Hk):
        """g (nu, forces in y's layout) -> H g per harmonic (the blocks Hk formed at the frequency)."""
        nl, out = self.nl, np.empty_like(g)
        out[:nl] = Hk[0] @ g[:nl]
        for k in range(1, self.H + 1):
            r = Hk[k] @ (g[(2 * k - 1) * nl:2 * k * nl] + 1j * g[2 * k * nl:(2 * k + 1) * nl])
            out[(2 * k - 1) * nl:2 * k * nl], out[2 * k * nl:(2 * k + 1) * nl] = r.real, r.imag
        return out

    def newton_step(self, D, Hk, R):
        """GMRES (SciPy) on J dy = -R with J v = v - H (D v), preconditioned per harmonic k by I - H_k d_k (d_k each
        pair's harmonic-diagonal, complex-linear block of D, LU-factored) -> dy, GMRES's products."""
        nl, nb, P, H = self.nl, 2 * self.H + 1, self.P, self.H
        to_pairs = lambda v: v.reshape(nb, P, 3).transpose(1, 0, 2).reshape(P, 3 * nb)
        from_pairs = lambda g: g.reshape(P, nb, 3).transpose(1, 0, 2).reshape(-1)
        jv = lambda v: v - self.apply_H(from_pairs(np.einsum("pij,pj->pi", D, to_pairs(v))), Hk)
        facs = []
        for k in range(H + 1):
            if k == 0:
                dk = D[:, 0:3, 0:3]
            else:
                c, s = 3 * (2 * k - 1), 3 * 2 * k
                dk = 0.5 * (D[:, c:c + 3, c:c + 3] + D[:, s:s + 3, s:s + 3]) + 0.5j * (D[:, s:s + 3, c:c + 3] - D[:, c:c + 3, s:s + 3])
            HD = np.einsum("rpj,pji->rpi", Hk[k].reshape(nl, P, 3), dk).reshape(nl, nl)
            facs.append(scipy.linalg.lu_factor(np.eye(nl) - HD))

        def pc(r):
            z = np.empty_like(r)
            z[:nl] = scipy.linalg.lu_solve(facs[0], r[:nl]).real
            for k in range(1, H + 1):
                x = scipy.linalg.lu_solve(facs[k], r[(2 * k - 1) * nl:2 * k * nl] + 1j * r[2 * k * nl:(2 * k + 1) * nl])
                z[(2 * k - 1) * nl:2 * k * nl], z[2 * k * nl:(2 * k + 1) * nl] = x.real, x.imag
            return z

        n = [0]

        def count(_):
            n[0] += 1

        A = spla.LinearOperator((self.nu, self.nu), matvec=jv, dtype=float)
        Mi = spla.LinearOperator((self.nu, self.nu), matvec=pc, dtype=float)
        dy, info = spla.gmres(A, -R, tol=1e-10, atol=0.0, restart=80, maxiter=10, M=Mi, callback=count, callback_type="pr_norm")
        self.products += n[0]
        return dy

    def solve(self, w, y, tol=1e-8, maxit=40):
        """Newton at w from y, a fresh Jacobian each iteration, backtracking (Armijo, halving at most 8 times) as
        Bristle's -> y, iterations, G"""
        Hk, Xk = self.lin(w)
        nl = self.nl
        G = self.aft(y, w)
        R = self.residual(y, G, Hk, Xk)
        for it in range(maxit + 1):
            y0, y1 = np.max(abs(y[:nl])), np.max(abs(y[nl:]))
            if np.max(abs(R[:nl])) <= tol * y0 and np.max(abs(R[nl:])) <= tol * y1:
                return y, it, G
            if it == maxit:
                break
            if self.krylov:
                dy = self.newton_step(self.blocks(y, w, G), Hk, R)
            else:
                dy = np.linalg.solve(self.jacobian(y, w, G, Hk), -R)
            f0, alpha = R @ R, 1.0
            for _ in range(9):
                yt = y + alpha * dy
                Gt = self.aft(yt, w)
                Rt = self.residual(yt, Gt, Hk, Xk)
                if Rt @ Rt <= (1 - 1e-4 * alpha) * f0:
                    break
                alpha *= 0.5
            y, G, R = yt, Gt, Rt
        raise RuntimeError("NumPy harmonic balance: no convergence at %.6g Hz" % (w / 2 / np.pi))

    def load_node(self, w, y, G):
        """The load node's first harmonic |x_1| from the solution."""
        nl = self.nl
        d = 1.0 / (self.lam - w * w + 1j * w * self.cm)
        g1 = G[nl:2 * nl] + 1j * G[2 * nl:3 * nl]
        return abs(self.po @ (d * (self.f1m + self.Pm.T @ g1)))

    def bonded_guess(self, w):
        """The response with every pair bonded (the first point's start): the static part is X_0 (its linear
        part bonds them already), the first harmonic solves (I + H_1 kb) y_1 = X_1."""
        Hk, Xk = self.lin(w)
        y = np.zeros(self.nu)
        y[:self.nl] = Xk[0].real
        y1 = np.linalg.solve(np.eye(self.nl) + Hk[1] * self.kb[None, :], Xk[1])
        y[self.nl:2 * self.nl], y[2 * self.nl:3 * self.nl] = y1.real, y1.imag
        return y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--h", type=float, default=2.0)
    ap.add_argument("--H", type=int, default=5)
    ap.add_argument("--level", type=float, default=1.0)
    ap.add_argument("--f0", type=float, default=262.0)
    ap.add_argument("--f1", type=float, default=269.0)
    ap.add_argument("--points", type=int, default=30)
    ap.add_argument("--solver", choices=("auto", "dense", "krylov"), default="auto",
                    help="Newton's linear solves in both codes: LU, or GMRES on the Newton matrix's products (auto: GMRES "
                         "from 3000 unknowns, as bristle hbm)")
    ap.add_argument("--out", default=None, help="a folder for the built model and the runs (default: a temporary one)")
    a = ap.parse_args()
    work = a.out or tempfile.mkdtemp(prefix="lap_hbm_")
    model = os.path.join(work, "out")
    vpy = os.path.join(EXAMPLE, ".venv", "bin", "python")
    subprocess.run([vpy, os.path.join(EXAMPLE, "build.py"), "--out", model, "--h", str(a.h)], check=True,
                   capture_output=True)
    scen = lapmodel.hbm_scenario(model, a.level, os.path.join(work, "lap_hbm.yaml"))
    lm = lapmodel.read(model)
    M, K, Fv, Fe, L, A, out = lm["M"], lm["K"], lm["Fv"], lm["Fe"], lm["L"], lm["area"], lm["out"]
    nu = 3 * len(A) * (2 * a.H + 1)
    krylov = a.solver == "krylov" or (a.solver == "auto" and nu >= 3000)
    col = "lap.%s.z" % lm["label"]
    print("lap joint at h = %g mm: %d pairs, %d coordinates; H = %d, N = %d, %g N at the load node; %d unknowns, %s"
          % (a.h, len(A), M.shape[0], a.H, 16 * a.H, a.level, nu, "GMRES" if krylov else "dense LU"), flush=True)

    t0 = time.perf_counter()
    p = subprocess.run([BR, "hbm", scen, "--from", str(a.f0), "--to", str(a.f1), "--harmonics", str(a.H),
                        "--points", str(a.points), "--column", col, "--out", os.path.join(work, "bristle"),
                        "--linear-solver", "krylov" if krylov else "dense", "--quiet"], capture_output=True, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="2"))
    t_br = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bristle hbm failed: " + p.stderr)
    with open(os.path.join(work, "bristle", "frf.csv")) as f:
        br_rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    br_f = np.array([r["f_Hz"] for r in br_rows])
    br_a = np.array([r[col + ".h1"] for r in br_rows])
    with open(os.path.join(work, "bristle", "summary.json")) as f:
        br_sum = json.load(f)
    its_br = sum(r["newton"] for r in br_rows)
    print("bristle hbm: %d points (its continuation's), %d Newton iterations, %.1f s (%.2f s a point)"
          % (len(br_rows), its_br, t_br, t_br / len(br_rows)), flush=True)

    t0 = time.perf_counter()
    hb = NumpyHB(M, K, Fv, Fe, L, A, out, a.H, a.level, krylov=krylov)
    fs = np.linspace(a.f0, a.f1, a.points)
    y, yprev, amps, its_np, failed = None, None, [], 0, []
    for f in fs:
        w = 2 * np.pi * f
        # the start: the bonded response at the first point, then the last solution moved along the secant
        # through the last two (the predictor a sweep at fixed frequencies has)
        guess = hb.bonded_guess(w) if y is None else y if yprev is None else 2 * y - yprev
        try:
            ynew, its, G = hb.solve(w, guess)
        except RuntimeError:
            failed.append(f)
            amps.append(np.nan)
            print("  numpy hb: %.4f Hz: no convergence in 40 Newton iterations" % f, flush=True)
            continue
        yprev, y = y, ynew
        its_np += its
        amps.append(hb.load_node(w, y, G))
        print("  numpy hb: %.4f Hz, %d Newton iterations, |x1| %.6g m, %.0f s so far" % (f, its, amps[-1], time.perf_counter() - t0),
              flush=True)
    t_np = time.perf_counter() - t0
    amps = np.array(amps)
    ok = np.isfinite(amps)
    order = np.argsort(br_f)
    diff = np.max(abs(np.interp(fs[ok], br_f[order], br_a[order]) / amps[ok] - 1))
    print("numpy hb:    %d points (%d converged), %d Newton iterations, %d AFTs, %.1f s (%.2f s a point)"
          % (len(fs), ok.sum(), its_np, hb.aft_evals, t_np, t_np / len(fs)))
    print("per point: bristle %.2f s, numpy %.2f s: %.1f times; per Newton iteration: bristle %.2f s, numpy %.2f s; "
          "load node |x1| against bristle's curve (interpolated): largest difference %.2g"
          % (t_br / len(br_rows), t_np / len(fs), (t_np / len(fs)) / (t_br / len(br_rows)), t_br / its_br,
             t_np / max(its_np, 1), diff))
    print(json.dumps({"machine": platform.processor() or platform.machine(), "pairs": len(A), "H": a.H,
                      "bristle_points": len(br_rows), "bristle_newton": its_br, "bristle_s": round(t_br, 2),
                      "numpy_points": len(fs), "numpy_failed_Hz": failed, "numpy_newton": its_np,
                      "numpy_s": round(t_np, 2), "amplitude_difference": diff, "solver": "krylov" if krylov else "dense",
                      "bristle_krylov_products": br_sum.get("krylov_products", 0), "numpy_krylov_products": hb.products}))


if __name__ == "__main__":
    main()
