"""Shared by the tests of the output files' clients (test_fields_vtk.py, test_hdf5.py): the
environment ctest gives them, running bristle, and reading files with VTK's own reader."""
import os
import subprocess
import xml.etree.ElementTree as ET

import vtk

BR = os.environ.get("BRISTLE", "build/bristle")
SRC = os.path.abspath(os.environ.get("BRISTLE_SOURCE", "."))
TMP = os.environ.get("BRISTLE_TMP", "/tmp/bristle-pytest")


def run(scenario, out, *sets):
    """`bristle run SCENARIO` on the CPU into OUT with --set SETS (each "key=value"); fails on a non-zero exit"""
    args = [BR, "run", scenario, "--backend", "cpu", "--quiet", "--out", out]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True)


def read_vtp(path):
    """a .vtp file -> the vtkPolyData VTK's XML reader makes of it"""
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    assert r.GetErrorCode() == 0, path
    return r.GetOutput()


def pvd_times(pvd):
    """a .pvd collection -> {file: time}"""
    return {d.get("file"): float(d.get("timestep")) for d in ET.parse(pvd).getroot().iter("DataSet")}
