"""Running the executable and reading what it writes."""
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd

from ._vtp import read_vtp


class BristleError(Exception):
    """The executable refused its input or failed. message: its `file:line: message` line (or its last
    line); file, line: where, when the message names them (else None); status: its exit status
    (2: bad input, 1: the run failed); stderr: everything it printed there."""

    def __init__(self, message, status, stderr, file=None, line=None):
        super().__init__(message)
        self.message, self.status, self.stderr, self.file, self.line = message, status, stderr, file, line


def executable():
    """-> the path of the bristle executable this package runs"""
    env = os.environ.get("BRISTLE")
    if env:
        return os.path.abspath(env) if os.sep in env else env
    found = shutil.which("bristle")
    if found:
        return found
    local = Path(__file__).resolve().parents[2] / "build" / "bristle"
    if local.exists():
        return str(local)
    raise BristleError("no bristle executable: set BRISTLE, put bristle on the PATH, or build the checkout "
                       "(sh scripts/setup.sh)", 127, "")


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


_LOC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+): (?P<msg>.*)$")


def _call(args):
    """args after the executable -> its stdout; BristleError on a non-zero exit status"""
    p = subprocess.run([executable(), *args], capture_output=True, text=True)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("warning:")]
        for l in lines:
            m = _LOC.match(l)
            if m:
                raise BristleError(l, p.returncode, p.stderr, m["file"], int(m["line"]))
        raise BristleError(lines[-1] if lines else f"bristle exited with status {p.returncode}", p.returncode, p.stderr)
    return p.stdout


def _out_dir(stdout, out):
    if out is not None:
        return Path(out)
    m = re.search(r"output in (.*?)/?\s*$", stdout.strip().splitlines()[-1])
    if not m:
        raise BristleError("cannot tell the output folder from: " + stdout.strip()[-200:], 0, "")
    return Path(m.group(1))


def _options(set, backend, extra):
    args = []
    for k, v in (set or {}).items():
        args += ["--set", f"{k}={_value(v)}"]
    if backend:
        args += ["--backend", backend]
    return args + list(extra)


class Run:
    """A run's output folder. timeseries: DataFrame of timeseries.csv (column t and one per
    quantity, docs in README); summary: dict of summary.json; fields(set): the set's snapshots."""

    def __init__(self, directory):
        self.dir = Path(directory)
        self._ts = None
        self._summary = None

    def __repr__(self):
        return f"bristle.Run({str(self.dir)!r})"

    @property
    def h5(self):
        """run.h5 of an output.format: hdf5 run (an open h5py.File), or None"""
        path = self.dir / "run.h5"
        if not path.exists():
            return None
        import h5py

        return h5py.File(path, "r")

    @property
    def timeseries(self):
        if self._ts is None:
            if (self.dir / "timeseries.csv").exists():
                self._ts = pd.read_csv(self.dir / "timeseries.csv", float_precision="round_trip")
            else:  # output.format: hdf5: a dataset per column, their order in `columns`
                with self.h5 as f:
                    ts = f["timeseries"]
                    self._ts = pd.DataFrame({c: ts[c][...] for c in ts.attrs["columns"]})
        return self._ts

    @property
    def summary(self):
        if self._summary is None:
            with open(self.dir / "summary.json") as f:
                self._summary = json.load(f)
        return self._summary

    def fields(self, set_name):
        """meshed set's snapshots (output.fields) -> xarray Dataset with dimensions time, point (and
        xyz): pressure, normal_force, sliding_speed, stick, friction_force, bristle_deflection,
        position (the point's world position; with sampling: spacing the centroid of its
        sub-triangle), area (per point only), and per time the set's totals set_normal_force,
        set_force, ... (docs/format-vtk.md, docs/format-hdf5.md); from run.h5 when the run wrote one"""
        import xarray as xr

        if (self.dir / "run.h5").exists():
            return self._fields_h5(set_name)
        pvd = self.dir / "fields" / f"{set_name}.pvd"
        if not pvd.exists():
            raise BristleError(f"{pvd}: no snapshots of set '{set_name}' (a meshed set with output.fields)", 2, "")
        items = [(float(d.get("timestep")), d.get("file")) for d in ET.parse(pvd).getroot().iter("DataSet")]
        snaps = [read_vtp(pvd.parent / f) for _, f in items]
        first = snaps[0]
        point_vars, set_vars = {}, {}
        for name in first.data:
            if name == "area":  # the tributary areas do not change
                point_vars[name] = ("point",), first.data[name]
                continue
            a = np.stack([s.data[name] for s in snaps])
            point_vars[name] = (("time", "point") if a.ndim == 2 else ("time", "point", "xyz")), a
        pos = np.stack([s.point_positions() for s in snaps])
        point_vars["position"] = ("time", "point", "xyz"), pos
        for name in first.field:
            if name == "TimeValue":
                continue
            a = np.stack([s.field[name] for s in snaps])
            set_vars[name] = (("time",) if a.shape[1] == 1 else ("time", "xyz")), (a[:, 0] if a.shape[1] == 1 else a)
        return xr.Dataset({**point_vars, **set_vars},
                          coords={"time": [t for t, _ in items], "point": np.arange(first.npoints_data),
                                  "xyz": ["x", "y", "z"]},
                          attrs={"set": set_name, "on": "cells" if first.cells else "points"})


    def _fields_h5(self, set_name):
        import xarray as xr

        with self.h5 as f:
            if f"fields/{set_name}" not in f:
                raise BristleError(f"{self.dir / 'run.h5'}: no snapshots of set '{set_name}'", 2, "")
            g = f["fields"][set_name]
            cells = g.attrs["on"] == "cells"
            tri = g["triangles"][...]
            v = {}
            for name in ("pressure", "normal_force", "sliding_speed", "stick"):
                v[name] = ("time", "point"), g[name][...]
            for name in ("friction_force", "bristle_deflection"):
                v[name] = ("time", "point", "xyz"), g[name][...]
            pos = g["position"][...]
            v["position"] = ("time", "point", "xyz"), (pos[:, tri].mean(axis=2) if cells else pos)
            v["area"] = ("point",), g["area"][...]
            for name in ("set_normal_force", "set_friction_power"):
                v[name] = ("time",), g[name][...]
            for name in ("set_force", "set_friction_force", "set_moment"):
                v[name] = ("time", "xyz"), g[name][...]
            n = g["area"].shape[0]
            return xr.Dataset(v, coords={"time": g["time"][...], "point": np.arange(n), "xyz": ["x", "y", "z"]},
                              attrs={"set": set_name, "on": "cells" if cells else "points"})


def run(scenario, set=None, out=None, backend=None, options=()):
    """scenario file, {key path: value} overrides (as --set), output folder (default: the
    executable's, runs/<name>), backend ("auto", "cpu", "cuda"), further command-line options ->
    Run of the finished run; BristleError if the executable refused or the run failed"""
    args = ["run", str(scenario), "--quiet"] + _options(set, backend, options)
    if out is not None:
        args += ["--out", str(out)]
    return Run(_out_dir(_call(args), out))


def study(study_file, set=None, out=None, threads=None, backend=None, options=()):
    """study file, {key path: value} overrides of the base scenario in every variant, output
    folder, OpenMP threads, backend -> the study table (study.csv, or study.h5's /study for
    output.format: hdf5) as a DataFrame, one row per variant; its attrs hold dir (the output
    folder) and summary (summary.json as a dict)"""
    args = ["study", str(study_file), "--quiet"] + _options(set, backend, options)
    if threads:
        args += ["--threads", str(threads)]
    if out is not None:
        args += ["--out", str(out)]
    d = _out_dir(_call(args), out)
    if (d / "study.h5").exists():  # output.format: hdf5: /study, a dataset per column
        import h5py

        with h5py.File(d / "study.h5", "r") as f:
            g = f["study"]
            cols = {}
            for c in g.attrs["columns"]:
                v = g[c][...]
                cols[c] = v if v.dtype.kind == "f" else [x.decode() if isinstance(x, bytes) else x for x in v]
            table = pd.DataFrame(cols)
        table["variant"] = table["variant"].astype(int)
        table["error"] = table["error"].replace("", np.nan)
    else:
        table = pd.read_csv(d / "study.csv", float_precision="round_trip")
    table.attrs["dir"] = str(d)
    with open(d / "summary.json") as f:
        table.attrs["summary"] = json.load(f)
    return table


def hbm(scenario, f_from=None, f_to=None, *, at=None, level_from=None, level_to=None, harmonics=None, samples=None,
        columns=(), levels=None, points=None, tol=None, set=None, out=None, options=()):
    """the forced response by harmonic balance (`bristle hbm`, docs/hbm.md): scenario, the frequency range
    [Hz] (or at= a frequency with level_from=, level_to=: a curve in the excitation level), harmonics,
    samples a period, output columns ("BODY.x"), levels (one curve per factor on the harmonic loads),
    points, Newton's tolerance, {key path: value} overrides, output folder -> frf.csv as a DataFrame, one
    row per point in the continuation's order (the frequency goes back where the curve turns); its attrs
    hold dir and summary (summary.json as a dict). BristleError on bad input or a failed continuation"""
    args = ["hbm", str(scenario)]
    if at is not None:
        args += ["--at", _value(float(at)), "--level-from", _value(float(level_from)), "--level-to",
                 _value(float(level_to))]
    else:
        args += ["--from", _value(float(f_from)), "--to", _value(float(f_to))]
    for flag, v in (("--harmonics", harmonics), ("--samples", samples), ("--points", points), ("--tol", tol)):
        if v is not None:
            args += [flag, _value(v)]
    for c in columns:
        args += ["--column", c]
    if levels:
        args += ["--levels", ",".join(_value(float(l)) for l in levels)]
    args += _options(set, None, options)
    if out is not None:
        args += ["--out", str(out)]
    stdout = _call(args)
    if out is not None:
        d = Path(out)
    else:
        m = re.search(r"-> (.*?)/?\s*$", stdout.strip().splitlines()[-1])
        if not m:
            raise BristleError("cannot tell the output folder from: " + stdout.strip()[-200:], 0, "")
        d = Path(m.group(1))
    table = pd.read_csv(d / "frf.csv", float_precision="round_trip")
    table.attrs["dir"] = str(d)
    with open(d / "summary.json") as f:
        table.attrs["summary"] = json.load(f)
    return table
