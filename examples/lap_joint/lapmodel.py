"""The lap joint's files read back for independent computations in Python (tests/python/test_lap_joint.py,
benchmarks/lap_joint_hbm.py): NumPy and SciPy only, so it runs outside the example's venv."""
import csv
import os

import numpy as np
import scipy.io
import scipy.sparse

HERE = os.path.dirname(os.path.abspath(__file__))


def read(d):
    """build.py's folder d -> dict: M, K (dense), the bolt's and the shaker's unit vectors Fv, Fe, the rows L of
    every pair's relative displacement u_a - u_b in its frame (t1 = x, t2 = y, n = z: physics.md 5.1's frame for
    the normal +z that every pair has), the pairs' areas, the load node's label and the row of its z."""
    M = scipy.sparse.csr_matrix(scipy.io.mmread(os.path.join(d, "M.mtx"))).toarray()
    K = scipy.sparse.csr_matrix(scipy.io.mmread(os.path.join(d, "K.mtx"))).toarray()
    Fv = np.asarray(scipy.io.mmread(os.path.join(d, "Fv.mtx"))).ravel()
    Fe = np.asarray(scipy.io.mmread(os.path.join(d, "Fe.mtx"))).ravel()
    with open(os.path.join(d, "nodes.csv")) as f:
        rows = {r["label"]: [int(r[k]) - 1 for k in ("ux", "uy", "uz")] for r in csv.DictReader(f)}
    label = load_label(d)
    with open(os.path.join(d, "pairs.csv")) as f:
        pairs = list(csv.DictReader(f))
    L = np.zeros((3 * len(pairs), M.shape[0]))
    for i, p in enumerate(pairs):
        for j in range(3):
            L[3 * i + j, rows[p["a"]][j]] += 1.0
            L[3 * i + j, rows[p["b"]][j]] -= 1.0
    area = np.array([float(p["area"]) for p in pairs])
    return {"M": M, "K": K, "Fv": Fv, "Fe": Fe, "L": L, "area": area, "out": rows[label][2], "label": label}


def load_label(d):
    """The label of the upper plate's load node, at (100, 10, 6) mm (build.py's LOAD_NODE, labelled "tip")."""
    with open(os.path.join(d, "nodes.csv")) as f:
        for r in csv.DictReader(f):
            if max(abs(float(r[k]) - v) for k, v in (("x", 0.1), ("y", 0.01), ("z", 0.006))) < 1e-9:
                return r["label"]
    raise ValueError("%s/nodes.csv: no node at the load point (100, 10, 6) mm" % d)


def hbm_scenario(d, level, path):
    """lap_joint.yaml with its files in d and the shaker a harmonic of constant amplitude `level` [N] (harmonic
    balance takes constant amplitudes; the bolt's ramp is taken at its end value, 2 kN), written to path."""
    with open(os.path.join(HERE, "lap_joint.yaml")) as f:
        text = f.read().replace("out/", d + "/")
    old = "harmonic: {amplitude: {ramp: {t0: 0.01, t1: 0.02, from: 0.0, to: 40.0}}, frequency: 250}"
    assert old in text
    with open(path, "w") as f:
        f.write(text.replace(old, "harmonic: {amplitude: %r, frequency: 250}" % level))
    return path
