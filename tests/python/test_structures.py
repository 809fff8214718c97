"""Structures given as matrices (issue 52, acceptance 4), the files written by SciPy, a real writer of
both formats, not our code:

- one model as Matrix Market files with a CSV node table, and as a tmdsimpy-style MATLAB file (M, K
  under their own keys, the node table as arrays; once with the default keys, once with every key
  renamed in the scenario) give identical runs: the same matrices in the same order, so every column
  of timeseries.csv is the same text;
- a load given as a named vector of the structure (a bolt's preload: tmdsimpy's Fv) equals the same
  force on a body at the node, from the .mtx and from the .mat;
- bad files (a non-symmetric M, a node row past the matrix, a NaN, a map of the wrong shape, a missing
  key, a K of the wrong size, a load vector of the wrong length, Matrix Market files CHOLMOD alone would
  take (an entry missing or one too many, a pattern file, trailing text, a huge declared size, no
  banner), a .mat cut short, a K with a negative diagonal) get "file: message" (a text file's with its
  line) on stderr and exit status 2, and the run writes nothing (no output folder).
"""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.io
import scipy.sparse

BR = os.environ.get("BRISTLE", "build/bristle")
TMP = os.path.join(os.environ.get("BRISTLE_TMP", "/tmp/bristle-pytest"), "structures")

# A small Craig-Bampton-like model: two nodes with three translations each, at rows not in node order,
# and two modal coordinates no node refers to; M, K symmetric positive definite.
ROWS = {101: [3, 1, 5], 102: [0, 2, 4]}  # 0-based rows of ux, uy, uz
XYZ = {101: [0.0, 0.0, 0.1], 102: [0.0, 0.0, 0.2]}


def model():
    n = 8
    rng = np.random.default_rng(52)
    k = 1e5
    K = np.zeros((n, n))
    # node 101 grounded by k in each direction, 102 tied to 101 by k, the modal rows by their own
    # stiffness and weakly to the nodes
    for j in range(3):
        a, b = ROWS[101][j], ROWS[102][j]
        K[a, a] += 2 * k
        K[b, b] += k
        K[a, b] -= k
        K[b, a] -= k
    K[6, 6] = K[7, 7] = 4e5
    C = 1e3 * rng.standard_normal((2, 6))
    K[6:, :6] += C
    K[:6, 6:] += C.T
    M = np.diag([0.2] * 6 + [0.05, 0.05]) + 1e-3 * (np.eye(n, k=1) + np.eye(n, k=-1))
    return M, K


SCENARIO = """time: {{end: 0.02, dt: 1.0e-5}}
output: {{interval: 1.0e-4, plots: false}}
structures:
  - name: plate
{structure}
bodies:
  - name: pad
    mass: 0.05
    box: [0.02, 0.02, 0.01]
    attach: {{structure: plate, node: 102}}
loads:
  - name: press
{press}
    magnitude: {{ramp: {{t0: 0, t1: 0.005, from: 0, to: 20}}}}
  - name: shake
    body: pad
    direction: [1, 0, 0]
    magnitude: {{harmonic: {{amplitude: 5, frequency: 300}}}}
contacts:
  - name: base
    body: pad
    surface: {{type: plane, frame: ground, point: [0, 0, 0.1999], normal: [0, 0, 1]}}
    points:
      grid: {{center: [0, 0, 0], size: [0.02, 0.02], count: [2, 2], normal: [0, 0, 1], start: [1, 0, 0]}}
    total_area: 4.0e-4
    normal: {{law: hunt_crossley, sigma: 3.0e-9, pK: 2, D: 1.0e5, pD: 0.5}}
    friction: {{law: jenkins, kt_area: 1.0e9, mu: 0.3}}
"""


PRESS = "    body: pad\n    direction: [0, 0, -1]"


def write(folder, name, structure, press=PRESS):
    path = os.path.join(folder, name + ".yaml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(structure=structure, press=press))
    return path


def nodes_csv(path, rows=ROWS):
    with open(path, "w") as f:
        f.write("label,x,y,z,ux,uy,uz\n")
        for lab in (101, 102):
            f.write("%d,%r,%r,%r,%s\n" % ((lab,) + tuple(XYZ[lab]) + (",".join(str(r + 1) for r in rows[lab]),)))


def node_arrays(rows=ROWS):
    xyz = np.array([XYZ[101], XYZ[102]])
    dofs = np.array([[r + 1 for r in rows[101]], [r + 1 for r in rows[102]]], dtype=np.int32)
    return xyz, dofs, np.array([[101.0], [102.0]])


def run(scenario, out):
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run([BR, "run", scenario, "--backend", "cpu", "--quiet", "--out", out],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def folder():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    M, K = model()
    scipy.io.mmwrite(os.path.join(TMP, "M.mtx"), scipy.sparse.coo_matrix(M), symmetry="symmetric")
    scipy.io.mmwrite(os.path.join(TMP, "K.mtx"), K)  # dense: the "array" format
    nodes_csv(os.path.join(TMP, "nodes.csv"))
    xyz, dofs, labels = node_arrays()
    # the press as a load vector: -1 on node 102's uz (the pad sits on the node: the same generalized force)
    Fv = np.zeros((8, 1))
    Fv[ROWS[102][2], 0] = -1.0
    scipy.io.mmwrite(os.path.join(TMP, "Fv.mtx"), Fv)
    scipy.io.savemat(os.path.join(TMP, "plate.mat"), {"M": scipy.sparse.csc_matrix(M), "K": K, "node_xyz": xyz,
                                                      "node_dofs": dofs, "node_labels": labels, "Fv": Fv})
    scipy.io.savemat(os.path.join(TMP, "renamed.mat"), {"Mr": M, "Kr": scipy.sparse.csc_matrix(K), "X": xyz,
                                                        "D": dofs.astype(float), "lab": labels.T})
    return TMP


DAMP = "    damping: {rayleigh: {a: 20, b: 1.0e-5}}\n"


def test_mtx_and_mat_give_identical_runs(folder):
    runs = {
        "mtx": "    mass: M.mtx\n    stiffness: K.mtx\n" + DAMP + "    nodes: nodes.csv",
        "mat": "    file: plate.mat\n" + DAMP + "    nodes: {labels: node_labels}",
        "renamed": "    file: renamed.mat\n    mass: Mr\n    stiffness: Kr\n" + DAMP + "    nodes: {xyz: X, dofs: D, labels: lab}",
    }
    # the press by a named load vector instead of a force on the pad: the same generalized force,
    # added in the same order, so the same run
    vec = "    structure: plate\n    vector: %s"
    runs["mtx_vector"] = runs["mtx"]
    runs["mat_vector"] = runs["mat"]
    press = {"mtx_vector": vec % "Fv.mtx", "mat_vector": vec % "Fv"}
    text = {}
    for name, st in runs.items():
        out = os.path.join(folder, "out_" + name)
        r = run(write(folder, name, st, press.get(name, PRESS)), out)
        assert r.returncode in (0, 3), r.stderr
        with open(os.path.join(out, "timeseries.csv")) as f:
            lines = f.read().splitlines()
        head = lines[0].split(",")
        wall = head.index("wall_time") if "wall_time" in head else None
        text[name] = [",".join(c for i, c in enumerate(l.split(",")) if i != wall) for l in lines]
        # the pad pressed into the plane and shaken: it moved, the contact carried the press
        assert len(lines) == 202
    assert text["mat"] == text["mtx"]
    assert text["renamed"] == text["mtx"]
    assert text["mtx_vector"] == text["mtx"]
    assert text["mat_vector"] == text["mtx"]
    cols = text["mtx"][0].split(",")
    last = dict(zip(cols, map(float, text["mtx"][-1].split(","))))
    # pressed onto the plane (0.1 mm below the node) by 20 N, less what the plate's own stiffness takes:
    # the contact carries a load (the runs are compared for identity; the physics is tested elsewhere)
    assert 1.0 < last["base.N"] < 20.0, last["base.N"]
    print("mtx, mat, renamed mat, and the press as a load vector (mtx, mat): %d rows identical, base.N %.4g N at the end" % (len(text["mtx"]) - 1, last["base.N"]))


def test_hbm_takes_the_load_vector(folder):
    """harmonic balance (the press static, the shake harmonic) on the structure: the press as a load
    vector gives the same frequency response as the force on the pad"""
    frf = {}
    for name, press in (("mtx", PRESS), ("mtx_vector", "    structure: plate\n    vector: Fv.mtx")):
        scen = write(folder, "hbm_" + name, "    mass: M.mtx\n    stiffness: K.mtx\n" + DAMP + "    nodes: nodes.csv", press)
        out = os.path.join(folder, "hbm_" + name)
        shutil.rmtree(out, ignore_errors=True)
        r = subprocess.run([BR, "hbm", scen, "--from", "200", "--to", "400", "--harmonics", "3", "--quiet", "--out", out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(out, "frf.csv")) as f:
            frf[name] = f.read()
    assert frf["mtx_vector"] == frf["mtx"]
    print("hbm: %d points, identical with the load vector" % (frf["mtx"].count("\n") - 1))


def bad(folder, name, structure, culprit, words):
    out = os.path.join(folder, "out_bad_" + name)
    r = run(write(folder, "bad_" + name, structure), out)
    assert r.returncode == 2, (name, r.returncode, r.stderr)
    msg = r.stderr.strip().splitlines()[0]
    # "file: message", or for a text file "file:line: message"
    assert re.match(re.escape(os.path.join(folder, culprit)) + r"(:\d+)?: ", msg), msg
    assert words in msg, msg
    assert not os.path.exists(out), "a refused run left " + out
    print("%-12s %s" % (name, msg))


def test_bad_files_are_refused_by_name(folder):
    M, K = model()
    A = M.copy()
    A[0, 1] += 1e-3
    scipy.io.mmwrite(os.path.join(folder, "M_nonsym.mtx"), A)
    bad(folder, "nonsym", "    mass: M_nonsym.mtx\n    stiffness: K.mtx\n    nodes: nodes.csv", "M_nonsym.mtx",
        "is not symmetric")
    Kn = K.copy()
    Kn[6, 6] = np.nan
    scipy.io.mmwrite(os.path.join(folder, "K_nan.mtx"), Kn)
    bad(folder, "nan", "    mass: M.mtx\n    stiffness: K_nan.mtx\n    nodes: nodes.csv", "K_nan.mtx", "finite number")
    past = {101: [3, 1, 5], 102: [0, 2, 8]}
    nodes_csv(os.path.join(folder, "nodes_past.csv"), past)
    bad(folder, "row_past", "    mass: M.mtx\n    stiffness: K.mtx\n    nodes: nodes_past.csv", "nodes_past.csv",
        "past the matrices' 8 rows")
    scipy.io.mmwrite(os.path.join(folder, "K_small.mtx"), K[:7, :7])
    bad(folder, "k_size", "    mass: M.mtx\n    stiffness: K_small.mtx\n    nodes: nodes.csv", "K_small.mtx", "7 x 7")
    xyz, dofs, labels = node_arrays()
    scipy.io.savemat(os.path.join(folder, "shape.mat"), {"M": M, "K": K, "node_xyz": xyz,
                                                         "node_dofs": np.hstack([dofs, dofs[:, :1]])})
    bad(folder, "map_shape", "    file: shape.mat\n    nodes: {}", "shape.mat", "'node_dofs' must be 2 x 3 or 2 x 6")
    scipy.io.savemat(os.path.join(folder, "nokey.mat"), {"M": M, "node_xyz": xyz, "node_dofs": dofs})
    bad(folder, "missing_key", "    file: nokey.mat\n    nodes: {}", "nokey.mat", "no variable 'K'")
    Fs = np.ones((7, 1))
    scipy.io.mmwrite(os.path.join(folder, "Fv_short.mtx"), Fs)
    r = run(write(folder, "bad_vector", "    mass: M.mtx\n    stiffness: K.mtx\n    nodes: nodes.csv",
                  "    structure: plate\n    vector: Fv_short.mtx"), os.path.join(folder, "out_bad_vector"))
    assert r.returncode == 2 and r.stderr.startswith(os.path.join(folder, "Fv_short.mtx") + ": "), r.stderr
    assert "7 x 1" in r.stderr, r.stderr
    print("%-12s %s" % ("vector", r.stderr.strip()))
    # what CHOLMOD alone would take: a missing entry, one too many, a pattern file (read as ones), a value
    # with trailing text, a header declaring 4e18 entries (CHOLMOD would allocate for them first)
    mtx = {
        "short": ("%%MatrixMarket matrix coordinate real general\n8 8 2\n1 1 1.0\n", "1 entries, the size line declares 2"),
        "long": ("%%MatrixMarket matrix coordinate real general\n8 8 1\n1 1 1.0\n2 2 1.0\n", "more entries than"),
        "pattern": ("%%MatrixMarket matrix coordinate pattern symmetric\n8 8 1\n1 1\n", "not pattern"),
        "trailing": ("%%MatrixMarket matrix coordinate real general\n8 8 1\n1 1 .1xyz\n", "a finite number"),
        "huge": ("%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n", "at most"),
        "nobanner": ("8 8 1\n1 1 1.0\n", "not a Matrix Market file"),
    }
    for name, (text, words) in mtx.items():
        with open(os.path.join(folder, "M_%s.mtx" % name), "w") as f:
            f.write(text)
        bad(folder, "mtx_" + name, "    mass: M_%s.mtx\n    stiffness: K.mtx" % name, "M_%s.mtx" % name, words)
    # a .mat cut short: libmatio would read past its end without a word
    scipy.io.savemat(os.path.join(folder, "comp.mat"), {"M": M, "K": K}, do_compression=True)
    for cut, src in ((8, "plate.mat"), (20, "comp.mat")):
        name = "cut%d.mat" % cut
        data = open(os.path.join(folder, src), "rb").read()
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data[:-cut])
        bad(folder, "cut%d" % cut, "    file: %s" % name, name, "truncated")
    Kneg = K.copy()
    Kneg[6, 6] = -1e5
    scipy.io.mmwrite(os.path.join(folder, "K_neg.mtx"), Kneg)
    bad(folder, "k_neg", "    mass: M.mtx\n    stiffness: K_neg.mtx", "K_neg.mtx", "not positive semi-definite")
