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
import os
import subprocess

import numpy as np
import pytest
import scipy.io
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "lap_joint")
VENV_PYTHON = os.path.join(EXAMPLE, ".venv", "bin", "python")
BR = os.environ.get("BRISTLE", os.path.join(ROOT, "build", "bristle"))
H_MM, MODES, PAIRS = 2.0, 20, 121


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The folder build.py wrote at h = 2 mm (skips the module's tests without the venv's scikit-fem)."""
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
    assert abs(lam_lower[0] / lam[6] - 1) < 1e-9
    assert np.all(abs(f_br[:6]) < 1.0)
    assert abs(f_br[6] / f_bend - 1) < 1e-3
