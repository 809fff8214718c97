"""pytest for the Python package: run, study, fields and the error path, against the executable
(BRISTLE, or the checkout's build/bristle). BRISTLE_SOURCE: the source tree (default: this file's
../..); BRISTLE_TMP: scratch folder (default: pytest's tmp_path)."""
import math
import os
from pathlib import Path

import numpy as np
import pytest

import bristle

SRC = Path(os.environ.get("BRISTLE_SOURCE", Path(__file__).resolve().parents[2]))


@pytest.fixture
def tmp(tmp_path):
    base = os.environ.get("BRISTLE_TMP")
    if not base:
        return tmp_path
    d = Path(base) / os.environ.get("PYTEST_CURRENT_TEST", "t").split(":")[-1].split(" ")[0]
    d.mkdir(parents=True, exist_ok=True)
    return d


def test_run_timeseries_and_summary(tmp):
    """S1's cube to 0.2 s: the DataFrame is timeseries.csv (a row every 1e-4 s, the values as the
    file holds them), the summary is summary.json"""
    r = bristle.run(SRC / "scenarios" / "cube_00.yaml", set={"time.end": 0.2}, out=tmp / "cube", backend="cpu")
    ts = r.timeseries
    assert r.dir == tmp / "cube"
    assert list(ts.columns[:4]) == ["t", "cube.x", "cube.y", "cube.z"]
    assert len(ts) == 2001 and ts.t.iloc[-1] == pytest.approx(0.2, abs=1e-12)
    assert r.summary["status"] == "complete" and r.summary["steps"] == 20000
    assert r.summary["t_end"] == 0.2 and r.summary["backend"] == "cpu"
    # the same numbers as the file, parsed independently
    with open(tmp / "cube" / "timeseries.csv") as f:
        head = f.readline().strip().split(",")
        last = [float(x) for x in f.readlines()[-1].split(",")]
    col = head.index("base.N")
    assert ts["base.N"].iloc[-1] == last[col]


def test_run_default_folder_from_the_executable(tmp, monkeypatch):
    monkeypatch.chdir(tmp)
    r = bristle.run(SRC / "scenarios" / "cube_00.yaml", set={"time.end": 0.01}, backend="cpu")
    assert r.dir.resolve() == (tmp / "runs" / "cube_00").resolve()
    assert len(r.timeseries) == 101


def test_fields_dataset(tmp):
    """the meshed clutch face: 2 snapshots x 1100 points; the normal forces sum to the set's N at each
    time (1e-12) and to the press's 1000 N once the plate settled; positions on the plane z = 0"""
    r = bristle.run(SRC / "scenarios" / "clutch_patch_1e3.yaml", out=tmp / "clutch", backend="cpu")
    f = r.fields("face")
    assert f.sizes["time"] == 2 and f.sizes["point"] == 1100 and f.attrs["on"] == "points"
    assert list(f.time.values) == [0.001, 0.005]
    for k in range(2):
        N = float(f.set_normal_force[k])
        assert abs(math.fsum(f.normal_force[k].values) - N) <= 1e-12 * N
    assert abs(float(f.set_normal_force[1]) - 1000) < 1e-6 * 1000
    assert f.friction_force.shape == (2, 1100, 3)
    assert np.all(np.abs(f.position.sel(xyz="z").values) < 1e-5)
    rad = np.hypot(f.position.sel(xyz="x"), f.position.sel(xyz="y"))
    assert float(rad.min()) > 0.05 - 1e-6 and float(rad.max()) < 0.10 + 1e-6
    # sampling: spacing puts the arrays on the sub-triangles; positions are their centroids
    s = bristle.run(SRC / "scenarios" / "clutch_patch_1e3.yaml", out=tmp / "clutch_sp", backend="cpu",
                    set={"contacts.face.points.mesh.sampling": "spacing", "contacts.face.points.mesh.spacing": 0.005})
    g = s.fields("face")
    assert g.attrs["on"] == "cells" and g.sizes["point"] == 8000
    N = float(g.set_normal_force[1])
    assert abs(math.fsum(g.normal_force[1].values) - N) <= 1e-12 * N
    with pytest.raises(bristle.BristleError):
        r.fields("nope")


def test_study_table(tmp):
    """the S5a preload study at dt 1e-4 to 1.5 s (the sweep's first window after the ramp): 16 rows in
    the grid's order, N rising, all complete; more preload holds the centre tip back"""
    t = bristle.study(SRC / "studies" / "preload_lugre.yaml", set={"time.dt": 1e-4, "time.end": 1.5},
                      out=tmp / "preload", threads=2, backend="cpu")
    assert len(t) == 17 and t.attrs["summary"]["variants"] == 17
    assert (t.status == "complete").all()
    assert np.allclose(t.t_reached, 1.5, rtol=0, atol=1e-9)   # the override took: the file says 10 s
    grid = t.iloc[1:]
    assert np.all(np.diff(grid.N.values) > 0)
    assert grid["tip_C.x.peak"].iloc[0] > grid["tip_C.x.peak"].iloc[-1]


def test_hbm_curves(tmp):
    """bristle.hbm: the Jenkins oscillator held by a soft spring (kt = 1000 N/m) is stuck below about 0.48
    times its drive at 8 Hz: along the frequency (2 to 9 Hz, drive 0.1 N) its first harmonic is the linear
    response 0.1 / (k + kt - m w^2); along the level at 8 Hz the same per unit level until it slips, then it
    grows faster; bad input is a BristleError with status 2"""
    k, kt = 3947.8417604357433, 1000.0
    t = bristle.hbm(SRC / "scenarios" / "oscillator_coulomb_jenkins.yaml", 2, 9, harmonics=3, samples=64, points=12,
                    columns=["block.x"], tol=1e-12, out=tmp / "hbm_f",
                    set={"contacts.friction.friction.kt": kt, "loads.drive.magnitude.harmonic.amplitude": 0.1})
    w = 2 * np.pi * t.f_Hz.values
    assert len(t) > 5 and t.f_Hz.iloc[0] == 2 and t.f_Hz.iloc[-1] == 9
    assert np.allclose(t["block.x.h1"].values * (k + kt - w ** 2) / 0.1, 1, rtol=1e-9, atol=0)
    assert t.attrs["summary"]["status"] == "complete" and t.attrs["summary"]["turning_points_Hz"] == []
    lv = bristle.hbm(SRC / "scenarios" / "oscillator_coulomb_jenkins.yaml", at=8, level_from=0.1, level_to=3,
                     harmonics=7, samples=256, columns=["block.x"], out=tmp / "hbm_l", set={"contacts.friction.friction.kt": kt})
    per_unit = lv["block.x.h1"] / lv.level
    lin = 100 / (k + kt - (2 * np.pi * 8) ** 2)
    assert np.allclose(per_unit[lv.level < 0.45], lin, rtol=1e-9, atol=0)
    assert (per_unit[lv.level > 1] > 1.1 * lin).all()
    with pytest.raises(bristle.BristleError) as e:
        bristle.hbm(SRC / "scenarios" / "oscillator_coulomb_jenkins.yaml", 2, 9, harmonics=3, samples=4, out=tmp / "bad")
    assert e.value.status == 2 and "samples" in e.value.message


def test_error_carries_file_and_line(tmp):
    bad = tmp / "bad.yaml"
    bad.write_text("name: bad\ntime:\n  end: 1.0\n  dt: -1.0e-3\n")
    with pytest.raises(bristle.BristleError) as e:
        bristle.run(bad, out=tmp / "bad")
    assert e.value.status == 2
    assert e.value.file == str(bad) and e.value.line == 4
    assert "dt" in e.value.message
    with pytest.raises(bristle.BristleError) as e:
        bristle.study(SRC / "studies" / "preload_lugre.yaml", set={"time.dt": "fast"}, out=tmp / "s")
    assert e.value.status == 2 and "time.dt" in e.value.message


def test_hdf5_run_reads_as_the_csv_one(tmp):
    """the same run with output.format: hdf5: the same DataFrame columns and values (the CSV's 12
    digits), the same fields Dataset bit for bit"""
    h5py = pytest.importorskip("h5py")
    scen = SRC / "scenarios" / "clutch_patch_1e3.yaml"
    a = bristle.run(scen, out=tmp / "csv", backend="cpu", set={"output.plots": False})
    b = bristle.run(scen, out=tmp / "h5", backend="cpu", set={"output.plots": False, "output.format": "hdf5"})
    if not (b.dir / "run.h5").exists():
        pytest.fail("no run.h5")
    assert list(a.timeseries.columns) == list(b.timeseries.columns)
    assert np.allclose(a.timeseries.values, b.timeseries.values, rtol=1e-11, atol=1e-300)
    fa, fb = a.fields("face"), b.fields("face")
    for name in fa.data_vars:
        assert np.array_equal(fa[name].values, fb[name].values), name
    assert list(fa.time.values) == list(fb.time.values)


def test_hdf5_study_reads_as_the_csv_one(tmp):
    """a small preload study in both formats: the same table (study.h5's /study, study.csv), and
    study.h5 holds each variant's frequency response and series"""
    h5py = pytest.importorskip("h5py")
    text = """name: preload_small
scenario: {src}/scenarios/blades_sweep_lugre.yaml
set: {{time.dt: 1.0e-4, time.end: 1.4}}
grid:
  N:
    values: [1, 10]
    set:
      loads.preload_L.magnitude.ramp.to: [2.21711, 14.5008]
      loads.preload_R.magnitude.ramp.to: [2.21711, 14.5008]
analysis: {{type: sweep, columns: [tip_C.x, tip_L.x], excitation: excitation, window: 0.1, from: 1.0}}
output: {{format: {fmt}, series: [tip_C.x, contact_L.N], plots: false}}
"""
    tables = {}
    for fmt in ("csv", "hdf5"):
        path = tmp / f"study_{fmt}.yaml"
        path.write_text(text.format(src=SRC, fmt=fmt))
        tables[fmt] = bristle.study(path, out=tmp / fmt, threads=2, backend="cpu")
    a, b = tables["csv"], tables["hdf5"]
    assert list(a.columns) == list(b.columns) and len(a) == len(b) == 3
    for c in a.columns:
        if a[c].dtype.kind == "f":
            assert np.array_equal(a[c].values, b[c].values, equal_nan=True), c
        else:
            assert list(a[c].fillna("")) == list(b[c].fillna("")), c
    assert not (tmp / "hdf5" / "study.csv").exists() and not (tmp / "hdf5" / "variants").exists()
    with h5py.File(tmp / "hdf5" / "study.h5", "r") as f:
        for v in range(3):
            g = f[f"variants/{v:05d}"]
            csv = np.genfromtxt(tmp / "csv" / "variants" / f"{v:05d}" / "series.csv", delimiter=",", names=True)
            assert np.array_equal(g["series/t"][...], csv["t"])
            assert len(g["frf/f"]) > 0
