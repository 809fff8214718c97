"""The bolted lap joint superelement of examples/lap_joint/build.py (issue 52, acceptance 3's first
clause): two steel plates meshed and assembled with scikit-fem, each reduced by Craig-Bampton to its
overlap-face nodes (and the upper plate's load node) plus 20 fixed-interface modes.

- The reduced model glued (each pair's upper-node DOFs identified with its lower node's) has the
  unreduced glued model's first ten nonzero natural frequencies within 0.1 %, both computed here with
  SciPy from full.npz.
- The pairs' tributary areas sum to the 20 x 20 mm overlap.
- `bristle eig` reads the reduced M.mtx, K.mtx and nodes.csv and finds the upper plate's six
  rigid-body modes (the plates are not joined: only the contact will join them) and then the lower
  plate's first bending frequency, as SciPy does on the same matrices.

build.py runs in examples/lap_joint/.venv (scikit-fem from PyPI; see build.py); without it this test is
skipped with that reason. It runs at h = 2 mm (11 x 11 = 121 node pairs) to be fast; the shipped
example uses h = 1 mm (21 x 21 = 441 pairs) and the assertion is the same there (build.py prints the
table: within 0.04 %).
"""
import csv
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.io
import scipy.linalg
import scipy.optimize
import scipy.sparse
import scipy.sparse.linalg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "lap_joint")
VENV_PYTHON = os.path.join(EXAMPLE, ".venv", "bin", "python")
sys.path.insert(0, EXAMPLE)
import lapmodel  # noqa: E402  (examples/lap_joint/lapmodel.py: the files read back, NumPy and SciPy only)
BR = os.environ.get("BRISTLE", os.path.join(ROOT, "build", "bristle"))
# the mesh size: 2 mm (121 pairs) in the suite; BRISTLE_LAP_JOINT_H=1 runs the module on the shipped example's 441
# pairs (the 0.3 N tests, whose band is the 2 mm model's resonance top, then skip)
H_MM, MODES = float(os.environ.get("BRISTLE_LAP_JOINT_H", "2")), 20
PAIRS = (round(20 / H_MM) + 1) ** 2
EDGE = round(20 / H_MM)  # quadrilaterals along a side of the overlap


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The folder build.py wrote at h = H_MM (skips the module's tests without the venv's scikit-fem)."""
    probe = (subprocess.run([VENV_PYTHON, "-c", "import skfem"], capture_output=True)
             if os.path.exists(VENV_PYTHON) else None)
    if probe is None or probe.returncode != 0:
        why = ("scikit-fem is not importable from %s (python3 -m venv --system-site-packages "
               "examples/lap_joint/.venv; examples/lap_joint/.venv/bin/pip install scikit-fem)" % VENV_PYTHON)
        print("SKIP test_lap_joint: " + why)
        pytest.skip(why)
    out = str(tmp_path_factory.mktemp("lap_joint"))
    subprocess.run([VENV_PYTHON, os.path.join(EXAMPLE, "build.py"), "--out", out, "--h", str(H_MM),
                    "--modes", str(MODES)], check=True, capture_output=True, text=True)
    return out


def csr(z, name):
    """The sparse matrix stored in the npz `z` as name_data, name_indices, name_indptr, name_shape."""
    return scipy.sparse.csr_matrix((z[name + "_data"], z[name + "_indices"], z[name + "_indptr"]),
                                   shape=tuple(z[name + "_shape"]))


def nonzero_frequencies(K, M, k=10):
    """The k lowest natural frequencies (Hz) of K x = w^2 M x above 1 Hz (rigid-body modes left out):
    sparse K, M by shift-invert about a small negative shift (K - sigma M is then positive definite
    even with rigid-body modes), dense ones by LAPACK."""
    if scipy.sparse.issparse(K):
        sigma = -(2 * np.pi * 10.0) ** 2
        lam = scipy.sparse.linalg.eigsh(K.tocsc(), k=k + 6, M=M.tocsc(), sigma=sigma, return_eigenvectors=False)
    else:
        lam = scipy.linalg.eigh(K, M, eigvals_only=True)
    f = np.sqrt(np.clip(np.sort(lam), 0.0, None)) / (2 * np.pi)
    f = f[f > 1.0][:k]
    assert f.size == k
    return f


def test_reduced_glued_frequencies_match_the_full_model(built):
    """The first ten nonzero frequencies of the reduced glued model within 0.1 % of the full glued
    model's. The reduced glued model is a Rayleigh-Ritz projection of the full one (each plate's
    static constraint modes and fixed-interface modes, with the tied pair DOFs equal, span a subspace
    of the full glued model's displacements), so its frequencies lie above the full ones and converge
    to them from above as NM grows; with NM = 20 modes per plate they are 0 to 0.04 % high (at h = 1
    and 2 mm alike). 0.1 % is the issue's bound."""
    z = np.load(os.path.join(built, "full.npz"))
    f_full = nonzero_frequencies(csr(z, "K_full"), csr(z, "M_full"))
    f_red = nonzero_frequencies(z["K_red_glued"], z["M_red_glued"])
    print("full glued (Hz):   ", np.round(f_full, 2))
    print("reduced glued (Hz):", np.round(f_red, 2))
    assert np.all(f_red >= f_full * (1 - 1e-9)), "Craig-Bampton frequencies lie above the full model's"
    assert np.all(abs(f_red / f_full - 1) < 1e-3)


def test_pair_areas_cover_the_overlap(built):
    with open(os.path.join(built, "pairs.csv")) as f:
        pairs = list(csv.DictReader(f))
    assert len(pairs) == PAIRS
    area = sum(float(p["area"]) for p in pairs)
    assert abs(area - 4e-4) <= 1e-12 * 4e-4
    assert all((p["a"][0], p["b"][0], p["nz"], p["gap"]) == ("U", "L", "1", "0") for p in pairs)


def test_bristle_eig_reads_the_superelement(built):
    """`bristle eig` on the reduced (unglued) structure: the upper plate's six rigid-body modes
    (|f| < 1 Hz), then the lower plate's first bending frequency, within 0.1 % of SciPy's on the same
    M.mtx, K.mtx (the seventh overall, and the first of the lower plate's block alone)."""
    with open(os.path.join(built, "lap.yaml"), "w") as f:
        f.write("time: {end: 0.001, dt: 1.0e-5}\n"
                "structures:\n"
                "  - {name: lap, mass: M.mtx, stiffness: K.mtx, nodes: nodes.csv}\n")
    p = subprocess.run([BR, "eig", "lap.yaml"], cwd=built, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    f_br = np.array([float(line) for line in p.stdout.split()])
    K = scipy.io.mmread(os.path.join(built, "K.mtx"))
    M = scipy.io.mmread(os.path.join(built, "M.mtx"))
    lam = scipy.linalg.eigh(K, M, eigvals_only=True, subset_by_index=[0, 6])
    n_lower = 3 * PAIRS + MODES  # the lower plate's rows come first: its overlap nodes, its modes
    lam_lower = scipy.linalg.eigh(K[:n_lower, :n_lower], M[:n_lower, :n_lower], eigvals_only=True,
                                  subset_by_index=[0, 0])
    f_bend = np.sqrt(lam[6]) / (2 * np.pi)
    print("bristle eig (Hz):", f_br[:8], " SciPy's seventh:", f_bend)
    # two LAPACK eigensolves of the pencil agree to its backward error, eps times the largest eigenvalue (the
    # boundary DOFs' MHz constraint modes: 5e7 times the seventh at 1 mm) relative to the seventh: 1e-8; measured
    # 1.1e-10 at 2 mm and 3.0e-9 at 1 mm
    assert abs(lam_lower[0] / lam[6] - 1) < 1e-7
    assert np.all(abs(f_br[:6]) < 1.0)
    assert abs(f_br[6] / f_bend - 1) < 1e-3


# ---- harmonic balance over the interface (acceptance 3's harmonic-balance clauses) ----

def lap_scenario(built, level, name):
    """The example's scenario with its files in `built` and the shaker at `level` N (lapmodel.hbm_scenario)."""
    return lapmodel.hbm_scenario(built, level, os.path.join(built, name))


def bonded_reference(built):
    """An independent linear model of the preloaded joint, with SciPy: the rows L of every pair's relative
    displacement in its frame (t1 = x, t2 = y, n = z, as physics.md 5.1 builds them for the normal +z), the
    bolt's 2 kN static state by an active-set solve of the linear penalty with separation (K = 1e13 N/m^3
    times the pair's area, the scenario's hunt_crossley with pK = 1), and the stuck interface as springs at
    the pairs in contact: kt = kt_area A tangentially (jenkins), K A normally, and the normal law's damping
    d_area A (pD = 0) along n. Returns the matrices and the preloaded active set."""
    lm = lapmodel.read(built)
    M, K, Fv, L, area = lm["M"], lm["K"], lm["Fv"], lm["L"], lm["area"]
    npair = area.size
    kpen = 1e13 * area
    act = np.ones(npair, bool)
    for _ in range(50):
        kv = np.repeat(kpen * act, 3)
        q = np.linalg.solve(K + L.T @ (kv[:, None] * L), 2000.0 * Fv)
        new = (L @ q)[2::3] < 0.0  # u_n < 0: closed
        if (new == act).all():
            break
        act = new
    else:
        raise AssertionError("the preload's active set did not settle")
    kv = np.repeat(kpen * act, 3)
    cv = np.zeros(3 * npair)
    cv[2::3] = 1e7 * area * act
    C = 20.0 * M + 1e-8 * K + L.T @ (cv[:, None] * L)
    return {"M": M, "K": K, "C": C, "Kb": K + L.T @ (kv[:, None] * L), "L": L, "act": act, "Fe": lm["Fe"],
            "out": lm["out"], "kpen": kpen}


def receptance(ref, Kb, f):
    """|x| of the load node along z per newton of the shaker at f [Hz], the linear model with stiffness Kb."""
    w = 2 * np.pi * f
    return abs(np.linalg.solve(Kb - w * w * ref["M"] + 1j * w * ref["C"], ref["Fe"])[ref["out"]])


def linear_peak(ref, Kb, f0, f1):
    """The frequency [Hz] of the linear response's largest amplitude in f0..f1: a 0.1 Hz grid, then the bounded
    scalar search about its largest point to 1e-4 Hz."""
    fs = np.arange(f0, f1 + 1e-9, 0.1)
    j = int(np.argmax([receptance(ref, Kb, f) for f in fs]))
    r = scipy.optimize.minimize_scalar(lambda f: -receptance(ref, Kb, f), bounds=(fs[max(j - 1, 0)], fs[min(j + 1, len(fs) - 1)]),
                                       method="bounded", options={"xatol": 1e-4})
    return r.x


def first_frequency(ref, Kb):
    """The first natural frequency [Hz] above 1 Hz of (Kb, M)."""
    lam = scipy.linalg.eigh(Kb, ref["M"], eigvals_only=True)
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    return f[f > 1.0][0]


def run_hbm(scenario, out, f0, f1, H, points, *extra):
    """`bristle hbm` over f0..f1 with the load node's z column -> frf.csv's rows (dicts of floats)."""
    p = subprocess.run([BR, "hbm", scenario, "--from", str(f0), "--to", str(f1), "--harmonics", str(H),
                        "--points", str(points), "--column", "lap.tip.z", "--out", out, "--quiet", *extra],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out, "frf.csv")) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]


def peak(rows, key="lap.tip.z.h1"):
    """The peak of a curve's column: the parabola through its three highest neighbouring points -> (f, value)."""
    f = np.array([r["f_Hz"] for r in rows])
    a = np.array([r[key] for r in rows])
    i = int(np.argmax(a))
    assert 0 < i < len(a) - 1, "the curve's peak is at its end"
    c = np.polyfit(f[i - 1:i + 2], a[i - 1:i + 2], 2)
    return -c[1] / (2 * c[0]), np.polyval(c, -c[1] / (2 * c[0]))


def test_stuck_harmonic_balance_is_the_bonded_linear_response(built, tmp_path):
    """At 0.01 N nothing slips or opens: harmonic balance (H = 3, the AFT over all 121 pairs, the preload
    ramped in from the unloaded assembly) is the linear response of the preloaded joint with its closed pairs
    bonded (bonded_reference, SciPy). Bounds: the first harmonic within 1e-5 of the linear response at every
    point of the curve (Newton stops at 1e-8 of the solution; near the resonance the Newton matrix's
    condition, about 1 / (2 zeta) = 100, makes that 1e-6; measured 2e-7), so the peak frequency agrees far
    inside the issue's 0.1 %; the higher harmonics below 1e-6 of the first (a linear response has none);
    as many pairs in contact at every sample as the preload closes."""
    ref = bonded_reference(built)
    f_ref = first_frequency(ref, ref["Kb"])
    f0, f1 = round(f_ref) - 5, round(f_ref) + 5
    rows = run_hbm(lap_scenario(built, 0.01, "stuck.yaml"), str(tmp_path / "stuck"), f0, f1, 3, 20)
    worst = 0.0
    for r in rows:
        lin = 0.01 * receptance(ref, ref["Kb"], r["f_Hz"])
        worst = max(worst, abs(r["lap.tip.z.h1"] / lin - 1))
        assert r["lap.tip.z.h2"] <= 1e-6 * r["lap.tip.z.h1"] and r["lap.tip.z.h3"] <= 1e-6 * r["lap.tip.z.h1"]
        assert r["joint.ncontact_min"] == ref["act"].sum()
    f_lin = linear_peak(ref, ref["Kb"], f0, f1)
    f_hb, _ = peak(rows)
    print("pairs closed by the preload: %d of %d; first harmonic against the bonded linear response: "
          "largest difference %.2g; peak %.4f Hz (harmonic balance) against %.4f Hz (linear)"
          % (ref["act"].sum(), PAIRS, worst, f_hb, f_lin))
    assert worst <= 1e-5
    assert abs(f_hb / f_lin - 1) <= 1e-3


def test_harmonic_balance_at_0_3_newton_stays_in_the_time_run(built, tmp_path):
    """At 0.3 N (tip amplitude 0.6 mm at the peak: pairs slip and the open edge pairs close for part of the
    cycle) harmonic balance near its peak (H = 3), then `--check 5`: `bristle run`'s time integration of the
    same scenario (the implicit interface, dt 1e-6 cut to a whole number of steps a period) started on the
    periodic state at the peak, its first harmonic at the load node fitted over the first and the fifth
    period. A state off the time integration's periodic orbit by e relaxes toward it by about
    1 - exp(-2 pi zeta P) = 17 % of e over P = 5 periods (zeta = 0.006, the Rayleigh damping at 268 Hz, the
    friction adding to it), so a last period within 1e-3 of harmonic balance bounds its error by 0.6 %,
    inside the issue's 1 % (measured: 2.5e-5 and 7.0e-5). The peak is moved from the stuck joint's by
    the contact's nonlinearity (measured +0.11 %: the edge pairs' closing stiffens the joint more than the
    microslip softens it; asserted: moved by more than 0.05 %, ten times the stuck test's agreement)."""
    if H_MM != 2.0:
        pytest.skip("its band (267.4 to 267.7 Hz) is the 2 mm model's resonance top at 0.3 N")
    ref = bonded_reference(built)
    rows = run_hbm(lap_scenario(built, 0.3, "level03.yaml"), str(tmp_path / "l03"), 267.4, 267.7, 3, 4, "--check", "5")
    with open(tmp_path / "l03" / "summary.json") as f:
        chk = json.load(f)["check_by_run"]
    f_pk, a_pk = peak(rows)
    f_lin = linear_peak(ref, ref["Kb"], 262, 272)
    first, last = chk["run_h1_first_period"] / chk["hbm_h1"] - 1, chk["run_h1_last_period"] / chk["hbm_h1"] - 1
    print("0.3 N: peak %.4f Hz (stuck %.4f Hz, %+.3f %%), |x1| %.4g m; the time run from the state at %.4f Hz: first "
          "period %+.2g, fifth %+.2g of harmonic balance's first harmonic; friction energy %.3g J a cycle"
          % (f_pk, f_lin, 100 * (f_pk / f_lin - 1), a_pk, chk["f_Hz"], first, last, max(r["joint.W"] for r in rows)))
    assert chk["verdict"] == "stays"
    assert abs(first) <= 1e-3 and abs(last) <= 1e-3
    assert abs(f_pk / f_lin - 1) > 5e-4
    assert all(r["joint.W"] > 0.0 for r in rows)


def test_newton_krylov_equals_dense_lu(built, tmp_path):
    """`--linear-solver krylov` (GMRES on the Newton matrix's products, preconditioned per harmonic: docs/hbm.md, the
    path `bristle hbm` takes from 3000 unknowns, as at the shipped example's 441 pairs) against `dense` (LU of the
    formed Newton matrix) on the same curve at 0.3 N, where pairs slip and open (H = 3: 2541 unknowns). Both stop
    Newton at a residual of 1e-8 of the solution, GMRES at 1e-10 of its right side; near the resonance the Newton
    matrix's condition, about 1 / (2 zeta) = 100, makes that 1e-6 of the solution, so the curves' points (the
    continuation takes the same steps) agree within 1e-6 in the first harmonic and 1e-8 in frequency (measured:
    1.6e-11 and 3.7e-12)."""
    if H_MM != 2.0:
        pytest.skip("its band (267.45 to 267.6 Hz) is the 2 mm model's resonance top at 0.3 N")
    scen = lap_scenario(built, 0.3, "level03k.yaml")
    dense = run_hbm(scen, str(tmp_path / "dense"), 267.45, 267.6, 3, 3, "--linear-solver", "dense")
    kry = run_hbm(scen, str(tmp_path / "krylov"), 267.45, 267.6, 3, 3, "--linear-solver", "krylov")
    with open(tmp_path / "krylov" / "summary.json") as f:
        s = json.load(f)
    assert s["linear_solver"] == "krylov" and s["krylov_products"] > 0
    assert len(kry) == len(dense)
    df = max(abs(k["f_Hz"] / d["f_Hz"] - 1) for k, d in zip(kry, dense))
    da = max(abs(k["lap.tip.z.h1"] / d["lap.tip.z.h1"] - 1) for k, d in zip(kry, dense))
    print("Newton-Krylov against dense LU over %d points: frequency within %.2g, first harmonic within %.2g; %d GMRES "
          "products for %d Newton iterations" % (len(kry), df, da, s["krylov_products"], s["newton_iterations"]))
    assert df <= 1e-8 and da <= 1e-6


def test_interface_snapshots_over_its_faces(built, tmp_path):
    """The example's time run writes the interface's field snapshots over faces.csv's quadrilaterals (each split
    into two triangles): at 2 mm 121 points and 200 triangles a snapshot, VTK's reader takes them, the points'
    normal forces sum to the set's (within 1e-12, the rounding of 121 terms), and pressure times area is the
    normal force. At the end of the bolt's ramp (10 ms) the snapshot holds the preload: the normal forces sum
    to the bolt's 2 kN within 1 % (the ramp is quasi-static for the joint's normal stiffness, whose modes are
    above 10 kHz, a hundred periods in the ramp; measured 1e-4), and the points in contact are the 45 that
    SciPy's active-set solve of the preload closes (bonded_reference), all of them stuck. The structure's
    `outputs:` give the centre pair's nodes' z as time-series columns: their difference, the pair's closure,
    equals SciPy's static preload within 1 % as the sum does (measured 7e-5)."""
    import math
    from clients import pvd_times, read_vtp
    from vtk.util.numpy_support import vtk_to_numpy
    with open(os.path.join(EXAMPLE, "lap_joint.yaml")) as f:
        text = f.read().replace("out/", built + "/").replace("end: 0.03", "end: 0.01")
    text = text.replace("fields: [0.01, 0.026, 0.0265, 0.027, 0.0275, 0.028, 0.0285, 0.029, 0.0295, 0.03]", "fields: [0.005, 0.01]")
    assert "fields: [0.005, 0.01]" in text
    # the centre pair's nodes (under the bolt) as time-series columns: the structure's `outputs:`
    lm = lapmodel.read(built)
    with open(os.path.join(built, "pairs.csv")) as f:
        pairs = list(csv.DictReader(f))
    with open(os.path.join(built, "nodes.csv")) as f:
        xyz = {r["label"]: (float(r["x"]), float(r["y"])) for r in csv.DictReader(f)}
    ic = min(range(len(pairs)), key=lambda i: np.hypot(xyz[pairs[i]["a"]][0] - 0.05, xyz[pairs[i]["a"]][1] - 0.01))
    ua, ub = pairs[ic]["a"], pairs[ic]["b"]
    assert "outputs: [tip.z]" in text
    text = text.replace("outputs: [tip.z]", "outputs: [%s.z, %s.z]" % (ua, ub))
    scen = tmp_path / "snap.yaml"
    scen.write_text(text)
    p = subprocess.run([BR, "run", str(scen), "--out", str(tmp_path / "run"), "--quiet"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    times = pvd_times(str(tmp_path / "run" / "fields" / "joint.pvd"))
    assert sorted(times.values()) == [0.005, 0.01]
    ref = bonded_reference(built)
    for name, t in sorted(times.items(), key=lambda kv: kv[1]):
        poly = read_vtp(str(tmp_path / "run" / "fields" / name))
        pd = poly.GetPointData()
        a = {pd.GetArrayName(i): vtk_to_numpy(pd.GetArray(i)) for i in range(pd.GetNumberOfArrays())}
        assert poly.GetNumberOfPoints() == PAIRS and poly.GetNumberOfPolys() == 2 * EDGE * EDGE
        assert np.all(np.diff(vtk_to_numpy(poly.GetPolys().GetOffsetsArray())) == 3)
        N = float(vtk_to_numpy(poly.GetFieldData().GetArray("set_normal_force"))[0])
        assert abs(math.fsum(a["normal_force"]) - N) <= 1e-12 * N
        assert abs(math.fsum(a["pressure"] * a["area"]) - N) <= 1e-12 * N
        closed = a["normal_force"] > 0
        print("%s: t = %g s, %d points, %d triangles, %.6g N in %d points, %d stuck"
              % (name, t, poly.GetNumberOfPoints(), poly.GetNumberOfPolys(), N, closed.sum(), a["stick"].sum()))
        if t == 0.01:
            assert abs(N / 2000.0 - 1) <= 1e-2
            assert (closed == ref["act"]).all() and (a["stick"][closed] == 1).all()
    # the centre pair's closure at 10 ms from the node columns, against SciPy's static preload (bonded_reference's
    # active set, bonded at its penalty): within 1 % as the normal forces' sum (measured below)
    with open(tmp_path / "run" / "timeseries.csv") as f:
        rows = [r for r in csv.DictReader(f)]
    last = min(rows, key=lambda r: abs(float(r["t"]) - 0.01))
    un = float(last["lap.%s.z" % ua]) - float(last["lap.%s.z" % ub])
    q = np.linalg.solve(ref["Kb"], 2000.0 * lm["Fv"])
    un_ref = (ref["L"] @ q)[3 * ic + 2]
    print("centre pair %s-%s at t = %s s: u_n %.6g m (time run, node columns) against %.6g m (SciPy, static): %.2g"
          % (ua, ub, last["t"], un, un_ref, un / un_ref - 1))
    assert un < 0 and abs(un / un_ref - 1) <= 1e-2


def test_bad_faces_and_outputs_are_refused_by_line(built, tmp_path):
    """A faces table with a corner that is not one of the interface's points, a corner twice, or a wrong header gets
    `faces.csv:LINE: message`, a structure output that is not one of its nodes' DOFs `scenario:LINE: message`, each
    with exit status 2 and no output folder."""
    with open(os.path.join(EXAMPLE, "lap_joint.yaml")) as f:
        text = f.read().replace("out/", built + "/")
    cases = {"past": ("p1,p2,p3,p4\n1,2,13,12\n1,2,3,%d\n" % (PAIRS + 1), 3, "a row of its pairs table from 1 to %d" % PAIRS),
             "twice": ("p1,p2,p3,p4\n1,2,2,12\n", 2, "point 2 is a corner twice"),
             "header": ("a,b,c\n1,2,3\n", 1, "the header must be the names p1,p2,p3,p4")}
    for name, (table, line, words) in cases.items():
        faces = tmp_path / ("faces_%s.csv" % name)
        faces.write_text(table)
        scen = tmp_path / ("bad_%s.yaml" % name)
        scen.write_text(text.replace(built + "/faces.csv", str(faces)))
        out = tmp_path / ("out_%s" % name)
        p = subprocess.run([BR, "run", str(scen), "--out", str(out), "--quiet"], capture_output=True, text=True)
        msg = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
        print("%-7s %s" % (name, msg))
        assert p.returncode == 2 and msg.startswith("%s:%d: " % (faces, line)) and words in msg, (name, p.returncode, msg)
        assert not out.exists()
    # a structure output that is not a node's DOF: the scenario's line
    for entry, words in (("[NOPE.z]", "is not LABEL.x|y|z|rx|ry|rz"), ("[tip.rx]", "has no rx DOF")):
        scen = tmp_path / "bad_outputs.yaml"
        scen.write_text(text.replace("outputs: [tip.z]", "outputs: %s" % entry))
        p = subprocess.run([BR, "run", str(scen), "--out", str(tmp_path / "out_o"), "--quiet"], capture_output=True, text=True)
        msg = p.stderr.strip().splitlines()[0]
        print("outputs %s" % msg)
        assert p.returncode == 2 and re.match(re.escape(str(scen)) + r":\d+: ", msg) and words in msg, msg
        assert not (tmp_path / "out_o").exists()


def test_at_a_large_level_the_peak_moves_to_the_slipping_interface(built, tmp_path):
    """Issue 52's acceptance 3: at a large excitation the peak moves to the slipping interface's frequency. The
    example's joint (mu = 0.6) does not show it at the levels where its friction slips: the overlap's open edge
    pairs close for part of the cycle first and stiffen it (test_harmonic_balance_at_0_3_newton_stays_in_the_time_run:
    +0.11 % at 0.3 N). With the same joint lubricated (mu = 0.02, `--set`), the friction saturates at levels where
    the normal state stays as the bolt left it, and the peak goes from the stuck joint's frequency to the slipping
    one's. Both linear
    references with SciPy (bonded_reference): stuck, the closed pairs bonded (267.25 Hz); slipping, their normal
    springs and damping kept, nothing tangential (266.38 Hz). At 0.1 N (tip 0.2 mm, 50 times the stuck 0.01 N's;
    harmonic balance H = 3) the peak lies within a tenth of the stuck-to-slipping gap of the slipping frequency:
    in macroslip a Jenkins point's force is bounded by mu N while the elastic forces grow with the amplitude, so
    what is left of the stuck stiffness falls as the slip amplitude over the vibration's (measured: 5 % of the
    gap), and the 45 preloaded pairs stay closed all along (the shift is friction's alone)."""
    ref = bonded_reference(built)
    kv = np.repeat(ref["kpen"] * ref["act"], 3)
    kv[0::3] = kv[1::3] = 0.0  # slipping: no tangential stiffness
    Ks = ref["K"] + ref["L"].T @ (kv[:, None] * ref["L"])
    fr = round(first_frequency(ref, ref["Kb"]))
    f_st, f_sl = linear_peak(ref, ref["Kb"], fr - 5, fr + 5), linear_peak(ref, Ks, fr - 5, fr + 5)
    rows = run_hbm(lap_scenario(built, 0.1, "slip.yaml"), str(tmp_path / "slip"), f_sl - 0.4, f_sl + 0.4, 3, 8,
                   "--set", "contacts.joint.friction.mu=0.02")
    f_pk, a_pk = peak(rows)
    where = (f_st - f_pk) / (f_st - f_sl)
    print("mu = 0.02, 0.1 N: peak %.4f Hz (|x1| %.4g m) against stuck %.4f Hz and slipping %.4f Hz: %.1f %% of the way"
          % (f_pk, a_pk, f_st, f_sl, 100 * where))
    assert (f_st - f_sl) / f_sl > 2e-3  # the references are apart: 0.33 %, 80 times the stuck test's agreement
    assert abs(f_pk - f_sl) <= 0.1 * (f_st - f_sl)
    assert all(r["joint.ncontact_min"] == ref["act"].sum() for r in rows)


def linear_epmc(ref):
    """The extended periodic motion concept's (w, xi) of the stuck joint's linear model (bonded_reference's Kb, M, C):
    the real w and xi at which Kb - w^2 M + i w (C - xi M) is singular, i.e. w^2 + i w xi an eigenvalue of the pencil
    (Kb + i w C, M), by fixed-point iteration on w from the undamped first bending mode (its eigenvalue nearest w^2 by
    shift-invert Arnoldi, SciPy's eigs; converges to its rounding, 1e-10, in a few steps: the damping moves w at
    second order) -> (f [Hz], xi [1/s], and the damped complex eigenvalue's frequency |lambda| / 2 pi and ratio
    -Re lambda / |lambda| for comparison, the state-space eigenvalue nearest i w)."""
    Kb, M, C = ref["Kb"], ref["M"], ref["C"]
    w = 2 * np.pi * first_frequency(ref, Kb)
    for _ in range(6):
        mu = scipy.sparse.linalg.eigs(Kb + 1j * w * C, k=1, M=M.astype(complex), sigma=w * w, return_eigenvectors=False)[0]
        w, xi = np.sqrt(mu.real), mu.imag / w
    n = M.shape[0]
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-np.linalg.solve(M, Kb), -np.linalg.solve(M, C)]])
    lam = scipy.sparse.linalg.eigs(A.astype(complex), k=1, sigma=1j * w, return_eigenvectors=False)[0]
    return w / (2 * np.pi), xi, abs(lam) / (2 * np.pi), -lam.real / abs(lam)


def slipping_frequency(ref):
    """The slipping interface's first frequency [Hz] (test_at_a_large_level_the_peak_moves_to_the_slipping_interface's
    reference): the closed pairs' normal springs kept, nothing tangential."""
    kv = np.repeat(ref["kpen"] * ref["act"], 3)
    kv[0::3] = kv[1::3] = 0.0
    return first_frequency(ref, ref["K"] + ref["L"].T @ (kv[:, None] * ref["L"]))


def run_backbone(scenario, out, a0, a1, points, H, *extra):
    """`bristle hbm --mode 1` from modal amplitude a0 to a1 with the load node's z column -> (backbone.csv's rows,
    summary.json)."""
    p = subprocess.run([BR, "hbm", scenario, "--mode", "1", "--amplitude-from", str(a0), "--amplitude-to", str(a1), "--points",
                        str(points), "--harmonics", str(H), "--column", "lap.tip.z", "--out", out, "--quiet", *extra],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out, "backbone.csv")) as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    with open(os.path.join(out, "summary.json")) as f:
        return rows, json.load(f)


def test_backbone_linear_limit_is_the_stuck_joints_mode(built, tmp_path):
    """Issue 53's acceptance 1 on the lap joint: `bristle hbm --mode 1` (H = 3) at a modal amplitude of 1e-7 (the first
    harmonic's mass-weighted norm; 0.87 um at the tip: every preloaded pair stuck, the slip amplitude mu N / kt of the
    least loaded closed pair far above its 1e-9 m of relative motion) gives the frequency and damping ratio of the
    stuck joint's linear model (bonded_reference: SciPy's active-set preload, the closed pairs bonded, the normal law's
    damping) in the extended periodic motion concept's sense, within 1e-6 (Newton's 1e-8 of the solution; SciPy's
    iteration to 1e-10). The complex eigenvalue of the same model is printed beside it: with this light, nearly
    proportional damping the two agree to 1e-8. The amplitude is the mass-weighted norm: the tip's first harmonic
    is the stuck mode's tip component times it (SciPy's mass-normalized mode), within 1e-6."""
    ref = bonded_reference(built)
    f_ref, xi_ref, f_c, zeta_c = linear_epmc(ref)
    rows, _ = run_backbone(lap_scenario(built, 1.0, "mode.yaml"), str(tmp_path / "mode"), 1e-7, 2e-7, 2, 3)
    r = rows[0]
    D_ref = xi_ref / (4 * np.pi * f_ref)
    lam, V = scipy.linalg.eigh(ref["Kb"], ref["M"])
    k = int(np.argmin(abs(np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi) - f_ref)))
    tip = abs(V[ref["out"], k]) * r["amplitude"]
    print("mode 1 at modal amplitude %.1e (tip %.4g m): %.9f Hz, damping ratio %.9f; SciPy's linear EPMC %.9f Hz, %.9f (%.2g, "
          "%.2g); complex eigenvalue %.9f Hz, %.9f" % (r["amplitude"], r["lap.tip.z.h1"], r["f_Hz"], r["damping_ratio"], f_ref,
                                                     D_ref, r["f_Hz"] / f_ref - 1, r["damping_ratio"] / D_ref - 1, f_c, zeta_c))
    assert abs(r["f_Hz"] / f_ref - 1) <= 1e-6 and abs(r["damping_ratio"] / D_ref - 1) <= 1e-6
    assert abs(r["lap.tip.z.h1"] / tip - 1) <= 1e-6, (r["lap.tip.z.h1"], tip)
    assert r["joint.ncontact_min"] == ref["act"].sum()


def test_ring_down_follows_the_backbone(built, tmp_path):
    """Issue 53's acceptance 3: the lap joint's first bending mode released from the backbone's state and integrated in
    time (`--ringdown`, the scenario's dt = 1e-6 s, generalized-alpha with rho_inf = 0: 3745 steps a cycle) follows the
    backbone cycle by cycle, within 0.5 % in frequency and 5 % in damping ratio (the issue's bounds), at three
    amplitudes: stick-dominated, microslip and near macroslip. The joint is lubricated (mu = 0.02, as for issue 52's
    large-level clause: with the example's mu = 0.6 the joint reaches no macroslip below a 4 mm tip amplitude). The
    regimes are checked against SciPy's linear references (bonded_reference): at 1e-7 the damping ratio is within 1 %
    of the stuck joint's, at 3e-6 (microslip) above it by 5 % or more and the frequency below it, at 3e-5 the
    frequency within a tenth of the stuck-to-slipping gap of the slipping interface's. Each cycle is compared with the
    backbone at that cycle's amplitude (the backbone starts below the lowest so that every decaying cycle is
    bracketed); the ring-down's own errors, the time step's (period error (w dt)^2 / 12 = 2.4e-7, algorithmic damping
    far below 1e-4 at w dt = 1.7e-3) and the cycle fits' (least squares of a decaying cycle: O(delta^2), 1e-3 of the
    decrement), are a hundred times inside the bounds; what the bounds allow is the backbone's own approximation of a
    decaying motion by a steady one."""
    ref = bonded_reference(built)
    f_ref, xi_ref, _, _ = linear_epmc(ref)
    D_st, f_sl = xi_ref / (4 * np.pi * f_ref), slipping_frequency(ref)
    starts = (1e-7, 3e-6, 3e-5)
    out = str(tmp_path / "rd")
    _, summary = run_backbone(lap_scenario(built, 1.0, "rd.yaml"), out, 5e-8, 3e-5, 9, 3, "--ringdown",
                              ",".join("%g" % a for a in starts), "--ringdown-periods", "5", "--set",
                              "contacts.joint.friction.mu=0.02")
    with open(os.path.join(out, "ringdown.csv")) as f:
        rd = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    # a ring-down starts from the backbone's point at its amplitude (or the nearest, within a fifth, where a stick-slip
    # corner kept the continuation from landing on it)
    started = sorted(set(r["start_amplitude"] for r in rd))
    assert len(started) == 3 and all(abs(np.log(b / a)) <= np.log(1.2) for a, b in zip(starts, started)), started
    for a in started:
        cyc = [r for r in rd if r["start_amplitude"] == a]
        assert len(cyc) == 3 and all(np.isfinite(r["backbone_f_Hz"]) for r in cyc), cyc
        df = max(abs(r["f_Hz"] / r["backbone_f_Hz"] - 1) for r in cyc)
        dD = max(abs(r["damping_ratio"] / r["backbone_damping_ratio"] - 1) for r in cyc)
        print("ring-down from %.0e: cycles at %.3e to %.3e, %.4f to %.4f Hz, damping ratio %.5f to %.5f; against the backbone "
              "within %.2e in frequency, %.2e in damping" % (a, cyc[0]["amplitude"], cyc[-1]["amplitude"], cyc[0]["f_Hz"],
                                                             cyc[-1]["f_Hz"], cyc[0]["damping_ratio"], cyc[-1]["damping_ratio"],
                                                             df, dD))
        assert df <= 5e-3 and dD <= 0.05
    lo, mid, hi = ([r for r in rd if r["start_amplitude"] == a][1] for a in started)
    print("regimes: stuck %.4f Hz, %.5f; slipping %.4f Hz" % (f_ref, D_st, f_sl))
    assert abs(lo["backbone_damping_ratio"] / D_st - 1) <= 0.01
    assert mid["backbone_damping_ratio"] >= 1.05 * D_st and mid["backbone_f_Hz"] < f_ref
    assert abs(hi["backbone_f_Hz"] - f_sl) <= 0.1 * (f_ref - f_sl)
    # summary.json's worst differences per ring-down: the same bounds, finite (a ring-down that did not run has nulls)
    assert len(summary["ringdowns"]) == 3
    for e in summary["ringdowns"]:
        assert e["largest_frequency_difference"] is not None and e["largest_damping_difference"] is not None, e
        assert e["largest_frequency_difference"] <= 5e-3 and e["largest_damping_difference"] <= 0.05, e


def test_microslip_energy_grows_as_the_cube_of_the_amplitude(built, tmp_path):
    """Issue 53's acceptance 4 on the lap joint: at small amplitude the friction energy per cycle grows as the cube of
    the modal amplitude, the exponent the contact's mechanics predicts (docs/hbm.md, "Microslip"): slip begins in the
    band along the contact zone's boundary where the penalty pressure vanishes linearly with the distance s from it,
    p = p' s, and the pairs there see a relative tangential amplitude c a; the band's width, the pressure in it and the
    slip all grow in proportion to a (the problem near the boundary is the same at every amplitude but for a scale,
    the normal force's modulation by the mode's normal motion included), so W = integral 4 mu p (c a - mu p / kt) ds
    ~ a^3, as Mindlin and Deresiewicz's sphere (tests/test_hbm.c's meshed sphere: 2.993). The mesh's 2 mm pairs
    resolve that band only once it is a row of pairs wide: below, W is a staircase of single pairs' thresholds
    (local exponents of 7 to 20 just above the first slip). The fit (least squares of log W against log a) takes
    the decade from the amplitude where the joint's friction has raised the damping ratio by 1 % over the stuck
    joint's (SciPy's linear EPMC): within 0.1 of 3, the issue's bound (measured 2.931 at 2 mm with these 24 amplitudes;
    2.967 on 41 from 1e-7 to 3e-4)."""
    ref = bonded_reference(built)
    f_ref, xi_ref, _, _ = linear_epmc(ref)
    D_st = xi_ref / (4 * np.pi * f_ref)
    rows, _ = run_backbone(lap_scenario(built, 1.0, "ms.yaml"), str(tmp_path / "ms"), 1e-5, 4e-4, 24, 3)
    a = np.array([r["amplitude"] for r in rows])
    W = np.array([r["joint.W"] for r in rows])
    D = np.array([r["damping_ratio"] for r in rows])
    assert D[0] < 1.01 * D_st and (D >= 1.01 * D_st).any(), (D[0], D_st)
    a1 = a[np.argmax(D >= 1.01 * D_st)]
    sel = (a >= a1 * (1 - 1e-9)) & (a <= 10 * a1 * (1 + 1e-9))
    p = np.polyfit(np.log(a[sel]), np.log(W[sel]), 1)[0]
    print("microslip: the damping 1 %% above the stuck joint's from %.3e; over the decade (%d points to %.3e) W grows as a^%.3f"
          % (a1, sel.sum(), a[sel][-1], p))
    assert sel.sum() >= 8 and a[sel][-1] >= 8 * a1
    assert abs(p - 3.0) <= 0.1


def test_backbone_is_the_same_on_any_count_of_threads(built, tmp_path):
    """The backbone's colored Jacobian runs its AFTs on threads, each with an AFT of its own, and OpenBLAS on one thread:
    in microslip (2e-5 to 4e-5, where Anderson's acceleration and the warm starts act) backbone.csv is byte for byte
    the same on 1 and 2 threads."""
    scen = lap_scenario(built, 1.0, "thr.yaml")
    outs = []
    for t in (1, 2):
        out = str(tmp_path / ("t%d" % t))
        p = subprocess.run([BR, "hbm", scen, "--mode", "1", "--amplitude-from", "2e-5", "--amplitude-to", "4e-5", "--points", "2",
                            "--harmonics", "3", "--column", "lap.tip.z", "--out", out, "--quiet"], capture_output=True, text=True,
                           env=dict(os.environ, OMP_NUM_THREADS=str(t)))
        assert p.returncode == 0, p.stderr
        with open(os.path.join(out, "backbone.csv"), "rb") as f:
            outs.append(f.read())
    assert outs[0] == outs[1]
