"""A reader for the field snapshots Bristle writes (VTK XML PolyData, appended binary, zlib blocks
with UInt64 headers; docs/format-vtk.md), in numpy alone, so that reading them needs no VTK."""
import xml.etree.ElementTree as ET
import zlib

import numpy as np


class Snapshot:
    """data: {name: array over the contact points}; field: {name: 1-D array} (TimeValue, the set's
    totals); points: VTK point coordinates; triangles: (ntri, 3) indices; cells: True when the data
    sit on the triangles (sampling: spacing)"""

    def __init__(self, data, field, points, triangles, cells):
        self.data, self.field, self.points, self.triangles, self.cells = data, field, points, triangles, cells
        self.npoints_data = len(next(iter(data.values())))

    def point_positions(self):
        """(npoints, 3): the contact points' positions (the centroid of each cell where the data sit on cells)"""
        return self.points[self.triangles].mean(axis=1) if self.cells else self.points


def _decode(raw, offset, dtype, ncomp):
    head = np.frombuffer(raw, "<u8", 3, offset)
    nb, bs, last = (int(x) for x in head)
    sizes = np.frombuffer(raw, "<u8", nb, offset + 24)
    at = offset + 24 + 8 * nb
    parts = []
    for k in range(nb):
        block = zlib.decompress(raw[at:at + int(sizes[k])])
        want = last if (k == nb - 1 and last) else bs
        if len(block) != want:
            raise ValueError("corrupt block")
        parts.append(block)
        at += int(sizes[k])
    a = np.frombuffer(b"".join(parts), dtype)
    return a.reshape(-1, ncomp) if ncomp > 1 else a


def read_vtp(path):
    """a .vtp snapshot written by Bristle -> Snapshot"""
    with open(path, "rb") as f:
        raw = f.read()
    start = raw.index(b"<AppendedData")
    under = raw.index(b"_", start) + 1
    root = ET.fromstring(raw[:start].decode() + "</VTKFile>")
    if root.get("header_type") != "UInt64" or root.get("compressor") != "vtkZLibDataCompressor":
        raise ValueError(f"{path}: not a Bristle snapshot (UInt64 headers, zlib)")
    types = {"Float64": "<f8", "Int64": "<i8"}

    def arr(e):
        return _decode(raw, under + int(e.get("offset")), types[e.get("type")], int(e.get("NumberOfComponents", "1")))

    field = {e.get("Name"): np.array([float(x) for x in e.text.split()]) for fd in root.iter("FieldData") for e in fd}
    piece = root.find("PolyData/Piece")
    cells = piece.find("CellData") is not None and len(piece.find("CellData")) > 0
    data = {e.get("Name"): arr(e) for e in piece.find("CellData" if cells else "PointData")}
    points = arr(piece.find("Points/DataArray"))
    polys = {e.get("Name"): arr(e) for e in piece.find("Polys")}
    return Snapshot(data, field, points, polys["connectivity"].reshape(-1, 3), cells)
