"""USD authoring helpers shared by the writers: stage units, the physics scene, typed attributes,
poses and mesh data.

Conventions of every converted stage: ``metersPerUnit = 1``, ``kilogramsPerUnit = 1``, ``upAxis = Z``;
poses as ``xformOp:translate`` (double3) then ``xformOp:orient`` (quatd) then, where needed,
``xformOp:scale`` (double3).
"""

from __future__ import annotations

import math

import numpy as np

from ._imports import require
from .description import MeshDesc, SceneDesc

__all__ = [
    "new_stage",
    "set_attr",
    "set_pose",
    "quatf",
    "vec3f",
    "write_scene",
    "write_mesh_data",
    "write_heightfield",
    "add_reference",
    "degrees",
    "tidy",
    "SCENE_PATH",
]

#: Path of the physics scene prim in every converted stage.
SCENE_PATH = "/physicsScene"


def new_stage():
    """An in-memory stage on a fresh anonymous layer, with SI units and Z up.

    Returns:
        ``(stage, layer)``.
    """
    Sdf, Usd, UsdGeom, UsdPhysics = (require(f"pxr.{m}") for m in ("Sdf", "Usd", "UsdGeom", "UsdPhysics"))
    layer = Sdf.Layer.CreateAnonymous(".usda")
    stage = Usd.Stage.Open(layer)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    return stage, layer


def set_attr(prim, name: str, type_name: str, value) -> None:
    """Authors a uniform attribute.

    Args:
        prim: The ``Usd.Prim``.
        name: Attribute name, e.g. "mjc:damping".
        type_name: Name of an ``Sdf.ValueTypeNames`` member, e.g. "Double", "DoubleArray", "Token".
        value: The value (numpy arrays are converted to lists of Python floats).
    """
    Sdf = require("pxr.Sdf")
    if isinstance(value, np.ndarray):
        value = [float(v) for v in value.ravel()]
    elif isinstance(value, (np.floating, np.integer, np.bool_)):
        value = value.item()
    attr = prim.CreateAttribute(name, getattr(Sdf.ValueTypeNames, type_name), True, Sdf.VariabilityUniform)
    attr.Set(value)


def quatf(q):
    """``Gf.Quatf`` from a (w, x, y, z) sequence (negative zeros written as 0)."""
    Gf = require("pxr.Gf")
    return Gf.Quatf(*(float(v) + 0.0 for v in q[:4]))


def vec3f(v):
    """``Gf.Vec3f`` from a 3-sequence (negative zeros written as 0)."""
    Gf = require("pxr.Gf")
    return Gf.Vec3f(*(float(x) + 0.0 for x in v[:3]))


def tidy(values) -> list[float]:
    """Python floats with round-off residue below 1e-12 set to 0 and negative zeros made positive, so
    that poses and joint frames read cleanly (a change far below float32 resolution)."""
    return [0.0 if abs(float(v)) < 1e-12 else float(v) + 0.0 for v in values]


def set_pose(xformable, pos, quat, scale=None) -> None:
    """Authors translate (double3), orient (quatd) and optionally scale (double3) ops, in that order."""
    Gf, UsdGeom = require("pxr.Gf"), require("pxr.UsdGeom")
    double = UsdGeom.XformOp.PrecisionDouble
    xformable.AddTranslateOp(double).Set(Gf.Vec3d(*tidy(pos)))
    xformable.AddOrientOp(double).Set(Gf.Quatd(*tidy(quat)))
    if scale is not None:
        xformable.AddScaleOp(double).Set(Gf.Vec3d(*tidy(scale)))


def write_scene(stage, scene: SceneDesc) -> None:
    """Defines ``/physicsScene`` with explicit gravity and, when known, the MuJoCo solver options.

        Written: ``physics:gravityDirection`` (unit, (0, 0, -1) when gravity is zero),
        ``physics:gravityMagnitude`` [m/s^2], ``mjc:compiler:angle = "radian"`` (the unit of every angle in
        ``mjc:`` attributes), ``mjc:flag:gravity = false`` where gravity is switched off; with a timestep
        also ``newton:timeStepsPerSecond`` (an int, so only where 1/dt is
    one: it outranks ``mjc:option:timestep`` when the stage is read, and a rounded rate would change the step),
        ``newton:maxSolverIterations``, ``mjc:option:timestep`` [s], ``mjc:option:iterations``,
        ``mjc:option:ls_iterations``, ``mjc:option:tolerance``, ``mjc:option:impratio``,
        ``mjc:option:noslip_iterations``, ``mjc:option:noslip_tolerance`` and the tokens
        ``mjc:option:integrator``, ``mjc:option:solver``, ``mjc:option:cone``; where the medium is set, the
        MjcSceneAPI's ``mjc:option:density`` [kg/m^3], ``mjc:option:viscosity`` [Pa s] and
        ``mjc:option:wind`` (double3 [m/s]), each only when non-zero.
    """
    UsdPhysics = require("pxr.UsdPhysics")
    physics_scene = UsdPhysics.Scene.Define(stage, SCENE_PATH)
    gravity = np.asarray(scene.gravity, dtype=np.float64)
    magnitude = float(np.linalg.norm(gravity))
    direction = gravity / magnitude if magnitude > 0.0 else np.array([0.0, 0.0, -1.0])
    physics_scene.CreateGravityDirectionAttr(vec3f(direction))
    physics_scene.CreateGravityMagnitudeAttr(magnitude)
    prim = physics_scene.GetPrim()
    set_attr(prim, "mjc:compiler:angle", "Token", "radian")
    if not scene.gravity_enabled:
        set_attr(prim, "mjc:flag:gravity", "Bool", False)
    if scene.timestep is None:
        return
    rate = 1.0 / float(scene.timestep)
    if abs(rate - round(rate)) <= 1.0e-9 * rate:
        set_attr(prim, "newton:timeStepsPerSecond", "Int", int(round(rate)))
    set_attr(prim, "newton:maxSolverIterations", "Int", int(scene.iterations))
    set_attr(prim, "mjc:option:timestep", "Double", float(scene.timestep))
    set_attr(prim, "mjc:option:iterations", "Int", int(scene.iterations))
    set_attr(prim, "mjc:option:ls_iterations", "Int", int(scene.ls_iterations))
    set_attr(prim, "mjc:option:tolerance", "Double", float(scene.tolerance))
    set_attr(prim, "mjc:option:impratio", "Double", float(scene.impratio))
    set_attr(prim, "mjc:option:noslip_iterations", "Int", int(scene.noslip_iterations))
    set_attr(prim, "mjc:option:noslip_tolerance", "Double", float(scene.noslip_tolerance))
    set_attr(prim, "mjc:option:integrator", "Token", scene.integrator)
    set_attr(prim, "mjc:option:solver", "Token", scene.solver)
    set_attr(prim, "mjc:option:cone", "Token", scene.cone)
    if scene.density != 0.0:
        set_attr(prim, "mjc:option:density", "Double", float(scene.density))
    if scene.viscosity != 0.0:
        set_attr(prim, "mjc:option:viscosity", "Double", float(scene.viscosity))
    if any(float(w) != 0.0 for w in scene.wind):
        set_attr(prim, "mjc:option:wind", "Double3", tuple(float(w) for w in scene.wind))


def write_mesh_data(mesh_prim, mesh: MeshDesc) -> None:
    """Authors points (float32), triangle faces, ``subdivisionScheme = none`` and the extent on a
    ``UsdGeom.Mesh``."""
    Vt, UsdGeom = require("pxr.Vt"), require("pxr.UsdGeom")
    points = np.ascontiguousarray(mesh.points, dtype=np.float32)
    faces = np.ascontiguousarray(mesh.faces, dtype=np.int32)
    mesh_prim.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(points))
    mesh_prim.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(faces), 3, dtype=np.int32)))
    mesh_prim.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(faces.ravel()))
    mesh_prim.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    lo, hi = points.min(axis=0), points.max(axis=0)
    mesh_prim.CreateExtentAttr(Vt.Vec3fArray.FromNumpy(np.stack([lo, hi])))


def write_heightfield(mesh_prim, field) -> None:
    """Authors a :class:`~newton_gym.sim.heightfield.Heightfield` on a ``UsdGeom.Mesh`` (the heightfield
    form of the README's shared conventions).

    Written: the grid as points, row by row (x, y, z = elevation [m] in the prim's frame, float32), the
    field's triangles (``Heightfield.triangles``, MuJoCo's cell split, counter-clockwise seen from +z) as
    faces, the extent, and what a mesh cannot say: ``newton:heightfield:rows`` and
    ``newton:heightfield:columns`` (int, grid points along y and x) and ``newton:heightfield:base``
    (double [m], depth of the solid below the lowest elevation).
    """
    write_mesh_data(mesh_prim, MeshDesc("heightfield", field.points(), field.triangles()))
    prim = mesh_prim.GetPrim()
    set_attr(prim, "newton:heightfield:rows", "Int", field.nrow)
    set_attr(prim, "newton:heightfield:columns", "Int", field.ncol)
    set_attr(prim, "newton:heightfield:base", "Double", field.base)


def add_reference(layer, prim_path: str, asset_path: str, target_path: str, instanceable: bool) -> None:
    """Adds a reference at the Sdf level (no stage composes it, so a not-yet-written target file causes
    no errors).

    Args:
        layer: The ``Sdf.Layer`` holding ``prim_path``.
        prim_path: The referencing prim.
        asset_path: The referenced file, relative to ``layer``'s final location (e.g. "./Props/x.usda").
        target_path: Prim path inside the referenced file.
        instanceable: Also mark the referencing prim instanceable.
    """
    Sdf = require("pxr.Sdf")
    spec = layer.GetPrimAtPath(prim_path)
    spec.referenceList.Prepend(Sdf.Reference(asset_path, Sdf.Path(target_path)))
    if instanceable:
        spec.instanceable = True


def degrees(value: float) -> float:
    """Radians -> degrees, keeping infinities."""
    return math.degrees(value) if math.isfinite(value) else value
