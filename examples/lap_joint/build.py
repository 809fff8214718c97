#!/usr/bin/env python3
"""A bolted lap joint as a Craig-Bampton superelement in Bristle's formats (issue 52, docs/structures.md).

Two steel plates, 60 x 20 x 3 mm each, overlapping over x in [40, 60] mm on the face z = 3 mm:

    lower plate  x in [0, 60] mm,   z in [0, 3] mm, clamped on its face x = 0
    upper plate  x in [40, 100] mm, z in [3, 6] mm, free

Each plate is meshed with scikit-fem (MeshHex, trilinear hexahedra, in-plane spacing h, three elements
through the thickness, nodes coincident on the overlap face), assembled on its own (the plates touch
only through the contact) and reduced by Craig-Bampton: the retained DOFs are the three translations of
every overlap-face node (and of the upper plate's load node at (100, 10, 6) mm), the interior ones are
replaced by NM fixed-interface modes. The superelement is the two reduced plates block-diagonal, lower
first; its coordinates per plate are [retained DOFs node by node (ux, uy, uz), modal coordinates].

Usage: build.py [--out DIR] [--h H_MM] [--modes NM]   (defaults: examples/lap_joint/out, 1.0 mm, 20)

Writes into DIR (SI units throughout):
    M.mtx, K.mtx  the reduced mass and stiffness (dense, symmetric Matrix Market)
    nodes.csv     the retained nodes: label (L/U and the plate's skfem node index; the load node "tip"), position,
                  1-based rows
    pairs.csv     one contact point per overlap node pair (a: upper node, b: lower node, normal +z,
                  the node's tributary area on the face, gap 0)
    faces.csv     the overlap face's quadrilaterals over the pairs (1-based rows of pairs.csv), for the
                  interface's field snapshots
    Fv.mtx        the bolt preload per newton: 1 N down on the upper plate's top face and 1 N up on the
                  lower plate's bottom face, each over the nodes within 4 mm of (50, 10) mm
    Fe.mtx        the excitation per newton: 1 N along z at the upper plate's load node
    lap.mat       M, K, Fv, Fe, node_xyz, node_dofs (the same model as one MATLAB file)
    full.npz      the unreduced glued model (the pairs' upper DOFs identified with the lower ones, the
                  clamp applied; sparse, CSR arrays K_full_*, M_full_*) and the reduced glued model
                  (dense K_red_glued, M_red_glued), for tests/python/test_lap_joint.py
    info.json     the counts and the first ten natural frequencies of both glued models (Hz)
"""
import argparse
import json
import os
import time

import numpy as np
import scipy.io
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, ElementHex1, ElementVector, MeshHex, asm
from skfem.helpers import dot
from skfem.models.elasticity import lame_parameters, linear_elasticity

E, NU, RHO = 210e9, 0.3, 7850.0  # steel
MM = 1e-3
WIDTH, THICK = 20 * MM, 3 * MM
OVERLAP = (40 * MM, 60 * MM)  # x range of the overlap; its face is z = THICK
LOAD_NODE = (100 * MM, 10 * MM, 6 * MM)  # the upper plate's excitation point
BOLT_CENTRE, BOLT_RADIUS = (50 * MM, 10 * MM), 4 * MM
TOL = 1e-9  # metres: coordinates closer than this are equal (far below any mesh spacing)


def axis(breaks, h):
    """Node coordinates along one axis: each segment between consecutive `breaks` (m) divided into
    round(length / h) equal elements (at least one), so that every break is a node."""
    parts = [np.linspace(a, b, max(1, round((b - a) / h)) + 1) for a, b in zip(breaks[:-1], breaks[1:])]
    return np.concatenate([parts[0]] + [p[1:] for p in parts[1:]])


class Plate:
    """One plate: its mesh, its sparse K and M over all of its DOFs, and the DOFs of each node.

    name: "L" or "U" (the node labels' prefix); x_breaks: the x coordinates that must be nodes (m);
    z0: the bottom face's z (m); h: the in-plane spacing (m). The y spacing is made to put a node at
    y = 10 mm (the load node and the bolt's centre)."""

    def __init__(self, name, x_breaks, z0, h):
        self.name = name
        self.mesh = MeshHex.init_tensor(axis(x_breaks, h), axis([0.0, WIDTH / 2, WIDTH], h),
                                        np.linspace(z0, z0 + THICK, 4))
        self.p = self.mesh.p  # 3 x nnode
        # intorder 3: the 2 x 2 x 2 Gauss rule, exact for the mass and the stiffness of a box element
        basis = Basis(self.mesh, ElementVector(ElementHex1()), intorder=3)
        lam, mu = lame_parameters(E, NU)
        self.K = asm(linear_elasticity(lam, mu), basis).tocsr()
        self.M = asm(BilinearForm(lambda u, v, w: RHO * dot(u, v)), basis).tocsr()
        self.dofs = basis.nodal_dofs.T  # nnode x 3: the DOFs of ux, uy, uz
        self.ndof = basis.N
        self.dof_x = np.empty(self.ndof)  # the x of each DOF's node
        self.dof_x[self.dofs] = self.p[0][:, None]

    def nodes_where(self, x=None, z=None, xrange=None, within=None):
        """Indices of the nodes with the given x and/or z, x inside xrange (lo, hi), and/or within
        (centre_xy, radius) in the x-y plane; all in metres, TOL-inclusive."""
        X, Y, Z = self.p
        ok = np.ones(X.size, bool)
        if x is not None:
            ok &= abs(X - x) < TOL
        if z is not None:
            ok &= abs(Z - z) < TOL
        if xrange is not None:
            ok &= (X > xrange[0] - TOL) & (X < xrange[1] + TOL)
        if within is not None:
            (cx, cy), r = within
            ok &= np.hypot(X - cx, Y - cy) < r + TOL
        return np.flatnonzero(ok)

    def node_at(self, xyz):
        """The index of the node at position xyz (m); an error if there is none."""
        d = np.linalg.norm(self.p.T - np.asarray(xyz), axis=1)
        k = int(np.argmin(d))
        if d[k] > TOL:
            raise SystemExit("no %s node at %s" % (self.name, xyz))
        return k

    def tributary_areas(self, face):
        """Each node of `face` (node indices, all on one plane z = const) gets a quarter of the area of
        every element face of that plane it is a corner of. Returns the areas (m^2) in face's order."""
        on = np.zeros(self.p.shape[1], bool)
        on[face] = True
        quads = self.mesh.facets[:, on[self.mesh.facets].all(axis=0)]  # 4 x nquad
        xy = self.p[:2, quads]  # 2 x 4 x nquad; the quads are axis-aligned rectangles
        quad_area = np.ptp(xy[0], axis=0) * np.ptp(xy[1], axis=0)
        area = np.zeros(self.p.shape[1])
        np.add.at(area, quads.ravel(), np.tile(quad_area / 4, 4))
        return area[face]


class SliceCholesky:
    """The Cholesky factor of a sparse symmetric positive definite matrix that is block tridiagonal
    over consecutive groups of rows (here the interior DOFs of one x-slice of nodes each: a trilinear
    hexahedron couples only neighbouring slices), kept as dense blocks so that a solve for many
    right-hand sides at once runs in level-3 BLAS (SuperLU solves them one by one: five times
    slower for the static constraint modes at h = 1 mm).

    A: sparse n x n, rows ordered slice by slice; bounds: the slices' first rows, then n."""

    def __init__(self, A, bounds):
        A = A.tocsr()
        block = np.searchsorted(bounds, np.arange(A.shape[0]), side="right") - 1
        r, c = A.nonzero()
        if np.any(abs(block[r] - block[c]) > 1):
            raise ValueError("the matrix is not block tridiagonal over the slices")
        self.blocks = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        # A = L L^T with L block bidiagonal: diagonal blocks L_k (lower triangular), below them
        # C_k = A_{k,k-1} L_{k-1}^-T; L_k L_k^T = A_kk - C_k C_k^T
        self.L, self.C = [], [None]
        for k, s in enumerate(self.blocks):
            D = A[s, s].toarray()
            if k:
                C = scipy.linalg.solve_triangular(self.L[-1], A[self.blocks[k - 1], s].toarray(), lower=True).T
                D -= C @ C.T
                self.C.append(C)
            self.L.append(scipy.linalg.cholesky(D, lower=True))

    def solve(self, B):
        """A^-1 B for B of n rows (a vector or a matrix of right-hand sides)."""
        def trsm(L, Y, **kw):  # L^-1 Y (or L^-T Y with trans="T") for a lower triangular L
            return scipy.linalg.solve_triangular(L, Y, lower=True, check_finite=False, **kw)

        X = np.array(B, dtype=float)
        for k, s in enumerate(self.blocks):  # L y = B
            if k:
                X[s] -= self.C[k] @ X[self.blocks[k - 1]]
            X[s] = trsm(self.L[k], X[s])
        for k in reversed(range(len(self.blocks))):  # L^T x = y
            s = self.blocks[k]
            if k + 1 < len(self.blocks):
                X[s] -= self.C[k + 1].T @ X[self.blocks[k + 1]]
            X[s] = trsm(self.L[k], X[s], trans="T")
        return X


def craig_bampton(plate, fixed, boundary, nm):
    """Craig-Bampton reduction of one plate.

    plate: a Plate (its K, M over all of its DOFs); fixed: DOFs held at zero (dropped); boundary: the
    retained DOFs, in the order of the reduced coordinates; nm: the number of fixed-interface modes.
    Returns T (dense, ndof x (nb + nm): the full DOFs from [boundary DOFs, modal coordinates]; fixed
    DOFs' rows zero), the reduced K and M (T^T K T, T^T M T, symmetrized exactly) and the
    fixed-interface modes' frequencies (Hz)."""
    K, M = plate.K, plate.M
    n = K.shape[0]
    interior = np.setdiff1d(np.arange(n), np.concatenate([fixed, boundary]))
    interior = interior[np.argsort(plate.dof_x[interior], kind="stable")]  # slice by slice along x
    bounds = np.flatnonzero(np.diff(plate.dof_x[interior], prepend=-1.0, append=np.inf) > TOL)
    Kii, Mii = K[interior][:, interior], M[interior][:, interior]
    chol = SliceCholesky(Kii, bounds)
    # static constraint modes: the interior's response to a unit displacement of each boundary DOF
    psi = -chol.solve(K[interior][:, boundary].toarray())
    # fixed-interface modes by shift-invert about 0 (Kii is positive definite: the boundary holds
    # each plate), with the factor of Kii; mass-normalized
    kii_inv = spla.LinearOperator(Kii.shape, matvec=chol.solve, dtype=float)
    lam, phi = spla.eigsh(Kii, k=nm, M=Mii, sigma=0.0, OPinv=kii_inv)
    order = np.argsort(lam)
    lam, phi = lam[order], phi[:, order]
    phi /= np.sqrt(np.einsum("ij,ij->j", phi, Mii @ phi))
    nb = boundary.size
    T = np.zeros((n, nb + nm))
    T[boundary, np.arange(nb)] = 1.0
    T[np.ix_(interior, np.arange(nb))] = psi
    T[interior, nb:] = phi
    Kr, Mr = T.T @ (K @ T), T.T @ (M @ T)
    return T, (Kr + Kr.T) / 2, (Mr + Mr.T) / 2, np.sqrt(lam) / (2 * np.pi)


def tie(n, fixed, tied, partner):
    """The sparse n x m matrix Z with u = Z w: every row kept as a coordinate of w, except rows
    `fixed` (zero: held) and rows `tied` (each the same coordinate as its `partner` row, which must be
    kept). Glues a model: K_glued = Z^T K Z."""
    keep = np.setdiff1d(np.arange(n), np.concatenate([fixed, tied]))
    col = -np.ones(n, int)
    col[keep] = np.arange(keep.size)
    col[tied] = col[partner]
    rows = np.flatnonzero(col >= 0)
    return sp.csr_matrix((np.ones(rows.size), (rows, col[rows])), shape=(n, keep.size))


def lowest_frequencies(K, M, k=10):
    """The k lowest natural frequencies (Hz) of K x = w^2 M x: sparse K, M by shift-invert about 0
    (K must be positive definite: a held model), dense ones by LAPACK."""
    if sp.issparse(K):
        lam = np.sort(spla.eigsh(K.tocsc(), k=k, M=M.tocsc(), sigma=0.0, return_eigenvectors=False))
    else:
        lam = scipy.linalg.eigh(K, M, eigvals_only=True, subset_by_index=[0, k - 1])
    return np.sqrt(lam) / (2 * np.pi)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--h", type=float, default=1.0, help="in-plane element size, mm (default 1)")
    ap.add_argument("--modes", type=int, default=20, help="fixed-interface modes per plate (default 20)")
    args = ap.parse_args()
    t0 = time.time()
    h = args.h * MM
    os.makedirs(args.out, exist_ok=True)

    def written(name):
        print("wrote %s" % os.path.join(args.out, name))

    # -- the plates, their retained nodes and the pairs
    lower = Plate("L", [0.0, OVERLAP[0], OVERLAP[1]], 0.0, h)
    upper = Plate("U", [OVERLAP[0], OVERLAP[1], 100 * MM], THICK, h)
    face_l = lower.nodes_where(z=THICK, xrange=OVERLAP)
    face_u = upper.nodes_where(z=THICK, xrange=OVERLAP)
    # the lower node under each upper face node: the same (x, y)
    key = {tuple(np.round(lower.p[:2, k] / TOL).astype(int)): k for k in face_l}
    partner = np.array([key[tuple(np.round(upper.p[:2, k] / TOL).astype(int))] for k in face_u])
    area = upper.tributary_areas(face_u)
    load = upper.node_at(LOAD_NODE)
    clamped = lower.dofs[lower.nodes_where(x=0.0)].ravel()
    retained_l, retained_u = face_l, np.append(face_u, load)  # the retained nodes, in row order

    # -- Craig-Bampton per plate; the superelement is [lower, upper] block-diagonal
    T_l, K_l, M_l, f_l = craig_bampton(lower, clamped, lower.dofs[retained_l].ravel(), args.modes)
    T_u, K_u, M_u, f_u = craig_bampton(upper, np.array([], int), upper.dofs[retained_u].ravel(),
                                       args.modes)
    K = scipy.linalg.block_diag(K_l, K_u)
    M = scipy.linalg.block_diag(M_l, M_u)
    n_l, n = K_l.shape[0], K.shape[0]
    row_l = {k: 3 * i + np.arange(3) for i, k in enumerate(retained_l)}  # 0-based reduced rows
    row_u = {k: n_l + 3 * i + np.arange(3) for i, k in enumerate(retained_u)}

    # -- load vectors: full-DOF forces reduced by T^T
    bolt_u = upper.nodes_where(z=2 * THICK, within=(BOLT_CENTRE, BOLT_RADIUS))
    bolt_l = lower.nodes_where(z=0.0, within=(BOLT_CENTRE, BOLT_RADIUS))
    f_bolt_u, f_bolt_l = np.zeros(upper.ndof), np.zeros(lower.ndof)
    # 1 N spread equally over the nodes under the head (all interior nodes of a uniform grid: the
    # same tributary area, so this is the lumped uniform pressure)
    f_bolt_u[upper.dofs[bolt_u, 2]] = -1.0 / bolt_u.size
    f_bolt_l[lower.dofs[bolt_l, 2]] = 1.0 / bolt_l.size
    Fv = np.concatenate([T_l.T @ f_bolt_l, T_u.T @ f_bolt_u])[:, None]
    f_load = np.zeros(upper.ndof)
    f_load[upper.dofs[load, 2]] = 1.0
    Fe = np.concatenate([np.zeros(n_l), T_u.T @ f_load])[:, None]

    # -- the Bristle files
    for name, A in (("M.mtx", M), ("K.mtx", K)):
        scipy.io.mmwrite(os.path.join(args.out, name), A, symmetry="symmetric", precision=17)
        written(name)
    for name, v in (("Fv.mtx", Fv), ("Fe.mtx", Fe)):
        scipy.io.mmwrite(os.path.join(args.out, name), v, precision=17)
        written(name)
    labels, xyz, dofs = [], [], []
    for plate, retained, rows in ((lower, retained_l, row_l), (upper, retained_u, row_u)):
        for k in retained:
            labels.append("tip" if plate is upper and k == load else "%s%d" % (plate.name, k))
            xyz.append(plate.p[:, k])
            dofs.append(rows[k] + 1)
    xyz, dofs = np.array(xyz), np.array(dofs, dtype=np.int32)
    with open(os.path.join(args.out, "nodes.csv"), "w") as f:
        f.write("label,x,y,z,ux,uy,uz\n")
        for lab, x, d in zip(labels, xyz, dofs):
            f.write("%s,%r,%r,%r,%d,%d,%d\n" % ((lab,) + tuple(float(c) for c in x) + tuple(d)))
    written("nodes.csv")
    with open(os.path.join(args.out, "pairs.csv"), "w") as f:
        f.write("a,b,nx,ny,nz,area,gap\n")
        for ku, kl, a in zip(face_u, partner, area):
            f.write("U%d,L%d,0,0,1,%r,0\n" % (ku, kl, float(a)))
    written("pairs.csv")
    # the overlap face's quadrilaterals over the pairs (rows of pairs.csv), counter-clockwise seen from +z: the
    # interface's surface in its field snapshots
    xs, ys = np.unique(np.round(upper.p[0, face_u] / TOL)), np.unique(np.round(upper.p[1, face_u] / TOL))
    at = {(int(np.searchsorted(xs, np.round(upper.p[0, k] / TOL))), int(np.searchsorted(ys, np.round(upper.p[1, k] / TOL)))): i
          for i, k in enumerate(face_u)}
    with open(os.path.join(args.out, "faces.csv"), "w") as f:
        f.write("p1,p2,p3,p4\n")
        for ix in range(xs.size - 1):
            for iy in range(ys.size - 1):
                f.write("%d,%d,%d,%d\n" % tuple(at[c] + 1 for c in ((ix, iy), (ix + 1, iy), (ix + 1, iy + 1), (ix, iy + 1))))
    written("faces.csv")
    scipy.io.savemat(os.path.join(args.out, "lap.mat"),
                     {"M": M, "K": K, "Fv": Fv, "Fe": Fe, "node_xyz": xyz, "node_dofs": dofs})
    written("lap.mat")

    # -- the glued models: each upper overlap DOF the same coordinate as its lower partner's
    Kf = sp.block_diag([lower.K, upper.K], format="csr")
    Mf = sp.block_diag([lower.M, upper.M], format="csr")
    Z = tie(Kf.shape[0], clamped, lower.ndof + upper.dofs[face_u].ravel(), lower.dofs[partner].ravel())
    K_full, M_full = (Z.T @ Kf @ Z).tocsr(), (Z.T @ Mf @ Z).tocsr()
    G = tie(n, np.array([], int), np.concatenate([row_u[k] for k in face_u]),
            np.concatenate([row_l[k] for k in partner]))
    K_red, M_red = np.asarray(G.T @ K @ G), np.asarray(G.T @ M @ G)
    arrays = {"K_red_glued": K_red, "M_red_glued": M_red}
    for name, A in (("K_full", K_full), ("M_full", M_full)):
        arrays.update({name + "_data": A.data, name + "_indices": A.indices, name + "_indptr": A.indptr,
                       name + "_shape": np.array(A.shape)})
    np.savez(os.path.join(args.out, "full.npz"), **arrays)
    written("full.npz")
    f_full, f_red = lowest_frequencies(K_full, M_full), lowest_frequencies(K_red, M_red)
    info = {"h_mm": args.h, "modes_per_plate": args.modes, "pairs": int(face_u.size),
            "pairs_area_m2": float(area.sum()), "reduced_size": n, "reduced_glued_size": K_red.shape[0],
            "full_size": K_full.shape[0], "bolt_nodes": {"upper": int(bolt_u.size), "lower": int(bolt_l.size)},
            "fixed_interface_max_hz": {"lower": float(f_l[-1]), "upper": float(f_u[-1])},
            "freq_full_glued_hz": f_full.tolist(), "freq_reduced_glued_hz": f_red.tolist()}
    with open(os.path.join(args.out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    written("info.json")

    print("h = %g mm: %d pairs, reduced %d coordinates (%d glued), full glued %d DOFs, %.1f s"
          % (args.h, face_u.size, n, K_red.shape[0], K_full.shape[0], time.time() - t0))
    print(" mode   full glued (Hz)   reduced glued (Hz)   difference")
    for i, (a, b) in enumerate(zip(f_full, f_red)):
        print("%5d %17.2f %20.2f %+11.4f %%" % (i + 1, a, b, 100 * (b - a) / a))


if __name__ == "__main__":
    main()
