"""scripts/paraview_screenshot.py [RUN] [PNG]: the picture of docs/format-vtk.md, rendered by ParaView from the
field snapshots of `bristle run scenarios/microslip_sphere.yaml` (RUN, default runs/microslip_sphere):
the patch at t = 0.625 s warped by its contact pressure, coloured stick/slip. Needs ParaView (not among
the set-up packages: apt-get install paraview python3-paraview xvfb xauth):
    xvfb-run -a pvbatch scripts/paraview_screenshot.py runs/microslip_sphere docs/img/paraview_microslip.png"""
import sys

from paraview.simple import *

run = sys.argv[1] if len(sys.argv) > 1 else "runs/microslip_sphere"
out = sys.argv[2] if len(sys.argv) > 2 else "docs/img/paraview_microslip.png"
r = PVDReader(FileName=run + "/fields/patch.pvd")
r.UpdatePipeline(0.625)
warp = WarpByScalar(Input=r, Scalars=["POINTS", "pressure"], ScaleFactor=4e-10)
v = CreateView("RenderView")
v.ViewSize = [1100, 700]
v.ViewTime = 0.625
v.OrientationAxesVisibility = 1
v.Background = [1, 1, 1]
try:
    v.UseColorPaletteForBackground = 0
except Exception:
    pass
d = Show(warp, v)
d.Representation = "Surface"
ColorBy(d, ("POINTS", "stick"))
lut = GetColorTransferFunction("stick")
lut.RGBPoints = [0.0, 0.85, 0.15, 0.15, 0.5, 0.85, 0.15, 0.15, 0.5001, 0.12, 0.35, 0.85, 1.0, 0.12, 0.35, 0.85]
lut.RescaleOnVisibilityChange = 0
lut.AutomaticRescaleRangeMode = "Never"
d.SetScalarBarVisibility(v, True)
bar = GetScalarBar(lut, v)
bar.Title = "stick (1) / slip (0)"
bar.ComponentTitle = ""
bar.TitleColor = [0, 0, 0]
bar.LabelColor = [0, 0, 0]
v.CameraPosition = [0.006, -0.009, 0.007]
v.CameraFocalPoint = [0.0, 0.0, 0.0002]
v.CameraViewUp = [0, 0, 1]
v.ResetCamera()
cam0 = GetActiveCamera()
cam0.Dolly(1.2)
txt = Text(Text="microslip_sphere: the contact patch at t = 0.625 s in ParaView (fields/patch.pvd)\nheight: contact pressure; colour: stick (blue), slip and no contact (red)")
td = Show(txt, v)
td.Color = [0, 0, 0]
td.FontSize = 18
td.WindowLocation = "Upper Center"
Render(v)
SaveScreenshot(out, v, ImageResolution=[1100, 700])
print("saved")
