"""Bristle from Python: run scenarios and studies, read their results.

    import bristle
    r = bristle.run("scenarios/cube_00.yaml", set={"time.end": 0.5})
    r.timeseries            # pandas DataFrame, one row per sample (timeseries.csv)
    r.summary               # dict (summary.json)
    r.fields("face")        # xarray Dataset over time and point (fields/face.pvd), meshed sets
    bristle.study("studies/preload_lugre.yaml")   # pandas DataFrame (study.csv)
    bristle.hbm("scenarios/oscillator_impact.yaml", 1, 2, harmonics=15, samples=512)   # frf.csv

The executable: $BRISTLE if set, else `bristle` on the PATH, else the build/bristle of the checkout
this package was installed from (an editable install, as scripts/setup.sh makes). docs/python.md.
"""
from ._run import BristleError, Run, executable, hbm, run, study
from ._vtp import read_vtp

__all__ = ["BristleError", "Run", "executable", "hbm", "run", "study", "read_vtp"]
__version__ = "0.1.0"
