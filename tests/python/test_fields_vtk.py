"""Field snapshots read by VTK's own XML reader (python3-vtk9, what ParaView is built on), not by
Bristle's code (issue 22, acceptance 1).

Checked for every snapshot of a meshed run:
- the surface: as many triangles as the mesh (read with VTK's PLY reader) for sampling: vertices, as
  many sub-triangles as points for sampling: spacing, each cell's area (VTK's cell-size filter)
  equal to its point's tributary area (so cell i sits around point i);
- the arrays against the run's own set totals, which the file carries as field data at full
  precision: sum of normal_force = the set's N, sum of friction_force = the set's friction force,
  to 1e-12 relative; the time against the .pvd collection; the set's N against timeseries.csv
  (printed to 12 digits: 1e-11);
- the 1e6-point clutch face: at most 11 bytes per point per array component (ASCII took about 19).
Environment: BRISTLE (the executable), BRISTLE_SOURCE (the source tree), BRISTLE_TMP (a scratch
folder), BRISTLE_CLUTCH_1E3 (the fixture run of scenarios/clutch_patch_1e3.yaml).
"""
import math
import os
import re

import numpy as np
import pytest
import vtk
from clients import SRC, TMP, pvd_times, read_vtp, run
from vtk.util.numpy_support import vtk_to_numpy

CLUTCH = os.environ.get("BRISTLE_CLUTCH_1E3", os.path.join(TMP, "clutch_1e3"))


def arrays(data):
    return {data.GetArrayName(i): vtk_to_numpy(data.GetArray(i)) for i in range(data.GetNumberOfArrays())}


def field(poly, name):
    return vtk_to_numpy(poly.GetFieldData().GetArray(name))


def mesh_triangles(ply):
    r = vtk.vtkPLYReader()
    r.SetFileName(ply)
    r.Update()
    return r.GetOutput()


def series(run, column):
    with open(os.path.join(run, "timeseries.csv")) as f:
        head = f.readline().strip().split(",")
        rows = np.array([[float(x) for x in line.split(",")] for line in f])
    return rows[:, 0], rows[:, head.index(column)]


def check_run(run, set_name, ply, cells):
    """every snapshot of set_name in run -> checked as the module says; returns the snapshots' count"""
    times = pvd_times(os.path.join(run, "fields", set_name + ".pvd"))
    assert times, "no snapshots listed"
    ts, Ns = series(run, set_name + ".N")
    mesh = mesh_triangles(ply)
    for name, t in sorted(times.items()):
        poly = read_vtp(os.path.join(run, "fields", name))
        data = arrays(poly.GetCellData() if cells else poly.GetPointData())
        for key, a in data.items():
            assert np.all(np.isfinite(a)), key
        n = len(data["normal_force"])
        assert poly.GetNumberOfPolys() == (n if cells else mesh.GetNumberOfCells())
        if not cells:
            assert poly.GetNumberOfPoints() == n
        # every cell a triangle
        offsets = vtk_to_numpy(poly.GetPolys().GetOffsetsArray())
        assert np.all(np.diff(offsets) == 3)
        assert float(field(poly, "TimeValue")[0]) == pytest.approx(t, rel=1e-15)
        N = float(field(poly, "set_normal_force")[0])
        sN = math.fsum(data["normal_force"])
        assert abs(sN - N) <= 1e-12 * N, (name, sN, N)
        Ff = field(poly, "set_friction_force").reshape(3)
        F = data["friction_force"]
        scale = np.abs(F).sum()
        for k in range(3):
            assert abs(math.fsum(F[:, k]) - Ff[k]) <= 1e-12 * scale, (name, k)
        pa = math.fsum(data["pressure"] * data["area"])
        assert abs(pa - N) <= 1e-12 * N
        i = int(np.argmin(np.abs(ts - t)))
        assert abs(ts[i] - t) < 1e-12 and abs(Ns[i] - N) <= 1e-11 * N, (ts[i], Ns[i], N)
        if cells:
            sizes = vtk.vtkCellSizeFilter()
            sizes.SetInputData(poly)
            sizes.Update()
            area = vtk_to_numpy(sizes.GetOutput().GetCellData().GetArray("Area"))
            assert np.max(np.abs(area - data["area"]) / data["area"]) < 1e-9
        print(f"{run}/fields/{name}: t = {t:g} s, {n} points, {poly.GetNumberOfPolys()} triangles, "
              f"sum of normal forces {sN:.15g} N against the set's {N:.15g} N ({abs(sN - N) / N:.2g} of it)")
    return len(times)


def test_clutch_vertices_every_snapshot():
    """clutch_patch_1e3 (sampling: vertices): the mesh's triangles over the points; at 5 ms every
    point slides and the pressure times the areas gives the press's 1000 N (the plate settled)"""
    ply = os.path.join(SRC, "meshes", "annulus_1e3.ply")
    assert check_run(CLUTCH, "face", ply, cells=False) == 2
    last = read_vtp(os.path.join(CLUTCH, "fields", "face_1.vtp"))
    d = arrays(last.GetPointData())
    assert len(d["pressure"]) == 1100
    assert abs(math.fsum(d["pressure"] * d["area"]) / 1000 - 1) < 1e-6
    assert d["stick"].sum() == 0


def test_clutch_spacing_cells():
    """the same face sampled at 5 mm spacing: one sub-triangle around each point, the arrays as
    cell data; the count of sub-triangles from the mesh: each triangle split k times per edge
    (k = its longest edge over the spacing, rounded up), k^2 sub-triangles"""
    out = os.path.join(TMP, "clutch_spacing")
    run(os.path.join(SRC, "scenarios", "clutch_patch_1e3.yaml"), out,
        "contacts.face.points.mesh.sampling=spacing", "contacts.face.points.mesh.spacing=0.005")
    ply = os.path.join(SRC, "meshes", "annulus_1e3.ply")
    mesh = mesh_triangles(ply)
    P = vtk_to_numpy(mesh.GetPoints().GetData())
    T = vtk_to_numpy(mesh.GetPolys().GetConnectivityArray()).reshape(-1, 3)
    longest = np.max([np.linalg.norm(P[T[:, (e + 1) % 3]] - P[T[:, e]], axis=1) for e in range(3)], axis=0)
    expect = int(np.sum(np.maximum(1, np.ceil(longest / 0.005)) ** 2))
    assert check_run(out, "face", ply, cells=True) == 2
    poly = read_vtp(os.path.join(out, "fields", "face_1.vtp"))
    assert poly.GetNumberOfPolys() == expect


def test_million_point_face_size():
    """one snapshot of the 1e6-point clutch face (scenarios/clutch_patch_1e6.yaml, 20 steps): bytes per
    point per component of its arrays (point data and positions) at most 11"""
    src = os.path.join(SRC, "scenarios", "clutch_patch_1e6.yaml")
    mesh = os.path.join(SRC, "meshes", "generated", "annulus_1e6.ply")
    if not os.path.exists(mesh):
        pytest.fail(f"{mesh} missing: the s3_meshes fixture (scripts/meshes.sh) makes it")
    text = open(src).read().replace("../meshes/", os.path.join(SRC, "meshes") + "/")
    text = re.sub(r"(?m)^  end: .*$", "  end: 1.0e-4", text)
    text = re.sub(r"(?m)^  interval: (.*)$", r"  interval: \1\n  fields: [1.0e-4]", text)
    os.makedirs(TMP, exist_ok=True)
    scen = os.path.join(TMP, "clutch_patch_1e6.yaml")
    open(scen, "w").write(text)
    out = os.path.join(TMP, "clutch_1e6")
    run(scen, out)
    path = os.path.join(out, "fields", "face_0.vtp")
    poly = read_vtp(path)
    d = arrays(poly.GetPointData())
    n = poly.GetNumberOfPoints()
    comps = sum(1 if a.ndim == 1 else a.shape[1] for a in d.values()) + 3
    per = os.path.getsize(path) / (n * comps)
    print(f"{path}: {n} points, {comps} components, {os.path.getsize(path)} bytes: {per:.2f} bytes a point a component")
    assert n > 9e5 and per <= 11
    check_run(out, "face", mesh, cells=False)
