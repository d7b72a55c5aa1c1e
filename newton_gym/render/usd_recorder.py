"""Record a rollout of one world as an animated USD stage (opens in usdview, Omniverse, Blender).

Layout of the stage::

    /World                       Xform, default prim
    /World/<body>                Xform per body: xformOp:translate (double3) + xformOp:orient (quatd),
                                 time-sampled by record()
    /World/<body>/<shape>        Cube / Sphere / Capsule / Cylinder / Cone / Mesh, posed by its static
                                 shape transform (and scaled: boxes are size-2 cubes scaled by the half
                                 extents, meshes by the shape scale)
    /World/static/<shape>        static shapes (body -1); planes are one quad Mesh, ``plane_size`` across
                                 when infinite; heightfields a Mesh of their surface (grid points and
                                 triangles, written once: static shapes have no time samples); into a
                                 text (.usda) file a field of more than SIDECAR_POINTS points is a
                                 reference to ``<stem>_<shape>.usdc`` written beside it

Time codes are seconds * fps, with timeCodesPerSecond = fps; metersPerUnit is 1.
"""

from __future__ import annotations

import functools
import os
from types import SimpleNamespace

import numpy as np

from ..sim.types import GeoType
from . import palette
from .errors import RenderError, check_positive, check_world

__all__ = ["UsdRecorder"]

_SUFFIXES = (".usd", ".usda", ".usdc")


@functools.lru_cache(maxsize=1)
def _pxr() -> SimpleNamespace:
    """The pxr modules used here, imported on first use."""
    try:
        from pxr import Gf, Sdf, Tf, Usd, UsdGeom, Vt
    except ImportError:
        raise ImportError("UsdRecorder needs OpenUSD: pip install usd-core") from None
    return SimpleNamespace(Gf=Gf, Sdf=Sdf, Tf=Tf, Usd=Usd, UsdGeom=UsdGeom, Vt=Vt)


def _f(value) -> float:
    """A float32 value as the shortest double that reads back as the same float32 (0.2, not 0.2000000029)."""
    return float(str(np.float32(value)))


def _unique_name(raw: str | None, fallback: str, taken: set) -> str:
    name = _pxr().Tf.MakeValidIdentifier(raw) if raw else fallback
    candidate, k = name, 1
    while candidate in taken:
        candidate = f"{name}_{k}"
        k += 1
    taken.add(candidate)
    return candidate


def _pose_ops(xformable, scale=None) -> list:
    """Translate + orient (+ scale) ops in double precision, in that order (scale applied first)."""
    double = _pxr().UsdGeom.XformOp.PrecisionDouble
    ops = [xformable.AddTranslateOp(double), xformable.AddOrientOp(double)]
    if scale is not None:
        ops.append(xformable.AddScaleOp(double))
    return ops


def _set_pose(ops, q7, time=None):
    """Set (translate, orient) ops from a transform (x, y, z, qx, qy, qz, qw); Gf.Quatd takes w first."""
    px = _pxr()
    t = px.Usd.TimeCode.Default() if time is None else px.Usd.TimeCode(time)
    ops[0].Set(px.Gf.Vec3d(_f(q7[0]), _f(q7[1]), _f(q7[2])), t)
    ops[1].Set(px.Gf.Quatd(_f(q7[6]), _f(q7[3]), _f(q7[4]), _f(q7[5])), t)


def _plane_points(size, plane_size: float) -> list:
    hx = 0.5 * size[0] if size[0] > 0 else 0.5 * plane_size
    hy = 0.5 * size[1] if size[1] > 0 else 0.5 * plane_size
    return [(-hx, -hy, 0.0), (hx, -hy, 0.0), (hx, hy, 0.0), (-hx, hy, 0.0)]


def _mesh_data(gprim, vertices, triangles) -> None:
    Vt = _pxr().Vt
    gprim.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(vertices, dtype=np.float32)))
    gprim.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(triangles), 3, dtype=np.int32)))
    gprim.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(np.reshape(triangles, -1).astype(np.int32)))


def _define_geometry(stage, path, geo: int, size, mesh, plane_size: float):
    """Define the UsdGeom prim of one shape at ``path``; returns (gprim, scale or None). ``mesh`` is the
    Mesh of a MESH shape or the Heightfield of an HFIELD shape."""
    px = _pxr()
    UsdGeom = px.UsdGeom
    r, hh = _f(size[0]), _f(size[1])
    if geo == GeoType.BOX:
        g = UsdGeom.Cube.Define(stage, path)
        g.CreateSizeAttr(2.0)
        return g, px.Gf.Vec3d(*(_f(v) for v in size))
    if geo == GeoType.SPHERE:
        g = UsdGeom.Sphere.Define(stage, path)
        g.CreateRadiusAttr(r)
        return g, None
    if geo in (GeoType.CAPSULE, GeoType.CYLINDER, GeoType.CONE):
        kind = {GeoType.CAPSULE: UsdGeom.Capsule, GeoType.CYLINDER: UsdGeom.Cylinder, GeoType.CONE: UsdGeom.Cone}
        g = kind[GeoType(geo)].Define(stage, path)
        g.CreateRadiusAttr(r)
        g.CreateHeightAttr(_f(2.0 * hh))  # capsule: cylindrical part only, like half_height
        g.CreateAxisAttr(UsdGeom.Tokens.z)
        return g, None
    g = UsdGeom.Mesh.Define(stage, path)
    g.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)  # flat triangles, not a smoothed limit surface
    if geo == GeoType.PLANE:
        g.CreatePointsAttr(_plane_points(size, plane_size))
        g.CreateFaceVertexCountsAttr([4])
        g.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
        g.CreateDoubleSidedAttr(True)
        return g, None
    if geo == GeoType.HFIELD:
        _mesh_data(g, mesh.points(), mesh.triangles())
        return g, None
    _mesh_data(g, mesh.vertices, mesh.indices)
    return g, px.Gf.Vec3d(*(_f(v) for v in size))


#: A heightfield with more grid points than this goes to a binary sidecar layer next to a text (.usda) output.
SIDECAR_POINTS = 65536


def _field_sidecar(stage, path: str, field, out_path: str):
    """Define the heightfield ``field`` at ``path`` as a reference to a Mesh in a binary layer written next to
    ``out_path`` (``<stem>_<prim name>.usdc``): a 2001 x 1201 terrain takes ~60 MB in .usdc, 180 MB as text."""
    px = _pxr()
    stem = os.path.splitext(out_path)[0]
    sidecar = f"{stem}_{path.rsplit('/', 1)[-1]}.usdc"
    layer = px.Sdf.Layer.FindOrOpen(sidecar) or px.Sdf.Layer.CreateNew(sidecar)
    layer.Clear()
    side = px.Usd.Stage.Open(layer)
    g = px.UsdGeom.Mesh.Define(side, "/field")
    g.CreateSubdivisionSchemeAttr(px.UsdGeom.Tokens.none)
    _mesh_data(g, field.points(), field.triangles())
    side.SetDefaultPrim(g.GetPrim())
    layer.Save()
    prim = stage.DefinePrim(path, "Mesh")
    prim.GetReferences().AddReference(os.path.basename(sidecar), "/field")
    return px.UsdGeom.Mesh(prim)


class UsdRecorder:
    """Writes one world of a model to a USD file, with time-sampled body poses.

    Args:
        model: a finalized ``newton_gym.Model``.
        path: output file ending in .usd, .usda (text) or .usdc; an existing file is replaced on save.
        world: world to record, in [0, max(world_count, 1)); its bodies and shapes plus global ones.
        fps: time codes per second of the stage; ``record(state, time)`` stores time * fps.
        shape_colors: optional (shape_count, 3) RGB in [0, 1] (displayColor); default the ray caster's.
        plane_size: [m] side of the quad that stands for an infinite plane.

    Use as a context manager to save on exit, or call :meth:`save`.
    """

    def __init__(self, model, path, world: int = 0, fps: float = 60.0, shape_colors=None, plane_size: float = 100.0):
        _pxr()  # fail early, before any work, when OpenUSD is missing
        self.path = os.fspath(path)
        if not self.path.lower().endswith(_SUFFIXES):
            raise RenderError(f"path must end in one of {', '.join(_SUFFIXES)}, got {self.path!r}")
        self.model, self.world = model, check_world(model, world)
        self.fps = check_positive(fps, "fps", "time codes per second")
        plane_size = check_positive(plane_size, "plane_size", "metres")
        colors = (
            palette.shape_colors(model)
            if shape_colors is None
            else palette.check_colors(shape_colors, int(model.shape_count))
        )
        self.times: list[float] = []
        self.stage = self._new_stage()
        self.body_paths: dict[int, str] = {}
        self.shape_paths: dict[int, str] = {}
        self._body_ops: list = []
        self._define_bodies()
        self._define_shapes(colors, plane_size)

    # ---------------------------------------------------------------- stage setup
    def _new_stage(self):
        Sdf, Usd, UsdGeom = _pxr().Sdf, _pxr().Usd, _pxr().UsdGeom
        layer = Sdf.Layer.Find(self.path)
        if layer is not None:  # still open in this process (an earlier recorder or reader): start it afresh
            layer.Clear()
            stage = Usd.Stage.Open(layer)
        else:
            stage = Usd.Stage.CreateNew(self.path)
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y if getattr(self.model, "up_axis", 2) == 1 else UsdGeom.Tokens.z)
        UsdGeom.SetStageMetersPerUnit(stage, 1.0)
        root = UsdGeom.Xform.Define(stage, "/World")
        stage.SetDefaultPrim(root.GetPrim())
        return stage

    def _define_bodies(self):
        m = self.model
        world_of = m.body_world.numpy() if m.body_count else np.zeros(0, dtype=np.int32)
        q = m.body_q.numpy() if m.body_count else np.zeros((0, 7))
        self._bodies = np.nonzero((world_of == self.world) | (world_of < 0))[0]
        taken = {"static"}
        for b in self._bodies:
            name = _unique_name(m.body_key[b] if b < len(m.body_key) else None, f"body_{b}", taken)
            path = f"/World/{name}"
            ops = _pose_ops(_pxr().UsdGeom.Xform.Define(self.stage, path))
            _set_pose(ops, q[b])
            self.body_paths[int(b)] = path
            self._body_ops.append(ops)

    def _define_shapes(self, colors, plane_size):
        m, px = self.model, _pxr()
        if not m.shape_count:
            return
        sw, vis = m.shape_world.numpy(), m.shape_visible.numpy()
        body, geo, size = m.shape_body.numpy(), m.shape_type.numpy(), m.shape_scale.numpy()
        xform, mesh_of, field_of = m.shape_transform.numpy(), m.shape_mesh.numpy(), m.shape_heightfield.numpy()
        taken: dict[str, set] = {}
        for s in np.nonzero(vis & ((sw == self.world) | (sw < 0)))[0]:
            parent = self.body_paths.get(int(body[s]), "/World/static")
            if parent == "/World/static" and not self.stage.GetPrimAtPath(parent):
                px.UsdGeom.Xform.Define(self.stage, parent)
            key = m.shape_key[s] if s < len(m.shape_key) else None
            path = f"{parent}/{_unique_name(key, f'shape_{s}', taken.setdefault(parent, set()))}"
            mesh = None
            if geo[s] == GeoType.MESH:
                mesh = m.meshes[int(mesh_of[s])]
            elif geo[s] == GeoType.HFIELD:
                mesh = m.heightfields[int(field_of[s])]
            big_field = geo[s] == GeoType.HFIELD and mesh.nrow * mesh.ncol > SIDECAR_POINTS
            if big_field and self.path.endswith(".usda"):
                gprim, scale = _field_sidecar(self.stage, path, mesh, self.path), None
            else:
                gprim, scale = _define_geometry(self.stage, path, int(geo[s]), size[s], mesh, plane_size)
            ops = _pose_ops(gprim, scale)
            _set_pose(ops, xform[s])
            if scale is not None:
                ops[2].Set(scale)
            gprim.CreateDisplayColorAttr([px.Gf.Vec3f(*(float(c) for c in colors[s]))])
            gprim.CreateExtentAttr(px.UsdGeom.Boundable.ComputeExtentFromPlugins(gprim, px.Usd.TimeCode.Default()))
            self.shape_paths[int(s)] = path

    # ---------------------------------------------------------------- recording
    def record(self, state, time: float | None = None) -> float:
        """Add a time sample of every recorded body's pose from ``state.body_q``.

        Args:
            state: a ``newton_gym.State`` of the model.
            time: [s] simulation time of the sample; default ``len(self.times) / fps``.

        Returns:
            The USD time code written (time * fps).
        """
        count = int(self.model.body_count)
        body_q = getattr(state, "body_q", None)
        if getattr(body_q, "shape", None) != (count,):
            raise RenderError(
                f"state must be a State of this model with body_q of shape ({count},); got "
                f"{getattr(body_q, 'shape', type(body_q).__name__)}"
            )
        t = len(self.times) / self.fps if time is None else _float_or_nan(time)
        if not np.isfinite(t):
            raise RenderError(f"time must be a finite number of seconds, got {time!r}")
        code = t * self.fps
        q = body_q.numpy() if count else np.zeros((0, 7))
        with _pxr().Sdf.ChangeBlock():
            for b, ops in zip(self._bodies, self._body_ops):
                _set_pose(ops, q[b], code)
        self.times.append(t)
        return code

    def save(self) -> str:
        """Set the stage's time range and rate and write the file; returns its path."""
        codes = [t * self.fps for t in self.times] or [0.0]
        self.stage.SetStartTimeCode(min(codes))
        self.stage.SetEndTimeCode(max(codes))
        self.stage.SetTimeCodesPerSecond(self.fps)
        self.stage.SetFramesPerSecond(self.fps)
        self.stage.GetRootLayer().Save()
        return self.path

    def __enter__(self) -> UsdRecorder:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.save()


def _float_or_nan(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")
