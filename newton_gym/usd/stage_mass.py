"""Mass, center of mass and inertia of each body, with seed 000's precedence.

1. Authored ``physics:mass``, ``physics:diagonalInertia`` and ``physics:centerOfMass`` are used as
   they are; a missing ``physics:principalAxes`` means identity.
2. What is not authored comes from ``UsdPhysics.RigidBodyAPI.ComputeMassProperties``. It scales the
   colliders' inertia to an authored mass (rule 2 of the seed) and applies authored densities
   (collider MassAPI, bound material) itself; its callback gets unit-density collider data:
   a. a collider whose MassAPI authors mass and diagonalInertia -> those values as unit-density data
      (volume = mass);
   b. otherwise the collider's geometry (volume, COM and inertia at density 1);
   a collider with neither is skipped with a warning (a collider without geometry but with an authored
   mass counts as a point mass). A body prim that is itself a collider counts as one of its colliders
   (UsdPhysics' default density, 1000 kg/m^3, unless a density is authored); when no mass can be
   computed for such a dynamic body and none is authored, the import fails naming it.
3. A non-positive resolved mass gives a massless body (inverse mass 0).

UsdPhysics' own conventions apply: a mass or diagonal inertia of 0 and a center of mass of -inf mean
"not authored". Values are computed in stage units and converted to SI.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ..sim.hostmath import quat_to_matrix
from ..sim.mass import unit_mass_properties
from ..sim.types import GeoType
from ._pxr import quat_xyzw, require_pxr, vec

__all__ = ["compute_mass"]


def _axes_matrix(q) -> np.ndarray:
    """Rotation of principal axes given as (x, y, z, w); unauthored or degenerate -> identity."""
    if q is None:
        return np.eye(3)
    q = np.asarray(q, float)
    n = np.linalg.norm(q)
    if not np.isfinite(q).all() or n < 1e-9:
        return np.eye(3)
    return quat_to_matrix(q / n)


def _authored(attrs) -> dict:
    """Authored mass [stage], diagonal inertia, COM and principal-axes matrix; None where unset."""
    mass = attrs.get("physics:mass", "float")
    diag = attrs.get("physics:diagonalInertia", "vec3")
    com = attrs.get("physics:centerOfMass", "vec3")
    axes = attrs.get("physics:principalAxes", "any")
    return {
        "mass": mass if mass is not None and mass != 0.0 else None,
        "diag": np.asarray(diag) if diag is not None and any(d != 0.0 for d in diag) else None,
        "com": np.asarray(com) if com is not None and all(math.isfinite(c) for c in com) else None,
        "axes": _axes_matrix(axes),
    }


def _relative_pose(ctx, prim, body_prim):
    """Pose (position, quat xyzw) of ``prim`` in ``body_prim``'s frame, stage units."""
    Gf = require_pxr().Gf
    m_prim = require_pxr().UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(0.0)
    m_body = require_pxr().UsdGeom.Xformable(body_prim).ComputeLocalToWorldTransform(0.0)
    rel = Gf.Transform(m_prim * m_body.GetInverse())
    return vec(rel.GetTranslation()), np.asarray(quat_xyzw(rel.GetRotation().GetQuat()))


def _collider_data(ctx, prim, body_prim, shape):
    """Unit-density (volume, com, inertia, position, rotation) of one collider in stage units, or None.

    A body prim that is its own collider is measured by its geometry only: its MassAPI is the body's
    (applied by :func:`_resolve_body` and by ComputeMassProperties), not the collider's.
    """
    m = ctx.units.m
    if prim == body_prim:
        auth = {"mass": None, "diag": None, "com": None}
    else:
        auth = _authored(ctx.prims[prim.GetPath()])
    if shape is not None:
        pos, rot = shape.xform[:3] / m, shape.xform[3:]
    if auth["mass"] is not None and auth["mass"] > 0 and auth["diag"] is not None:
        if shape is None:
            pos, rot = _relative_pose(ctx, prim, body_prim)
        inertia = auth["axes"] @ np.diag(auth["diag"]) @ auth["axes"].T
        com = auth["com"] if auth["com"] is not None else np.zeros(3)
        return auth["mass"], com, inertia, pos, rot
    if shape is None and auth["mass"] is not None and auth["mass"] > 0:
        # No geometry but an authored mass: a point mass at the collider's origin (or authored COM).
        pos, rot = _relative_pose(ctx, prim, body_prim)
        com = auth["com"] if auth["com"] is not None else np.zeros(3)
        return auth["mass"], com, np.zeros((3, 3)), pos, rot
    if shape is None or shape.geo == GeoType.PLANE:
        return None
    volume, com, inertia = unit_mass_properties(shape.geo, shape.size, shape.mesh)
    if volume <= 0.0:
        return None
    return volume / m**3, com / m, inertia / m**5, pos, rot


def _mass_information(data):
    pxr = require_pxr()
    info = pxr.UsdPhysics.RigidBodyAPI.MassInformation()
    if data is None:
        # A skipped collider contributes nothing: zero volume (UsdPhysics turns a negative "invalid"
        # volume into NaN mass properties for the whole body).
        info.volume = 0.0
        info.localRot = pxr.Gf.Quatf(1.0, 0.0, 0.0, 0.0)
        return info
    volume, com, inertia, pos, rot = data
    info.volume = float(volume)
    info.inertia = pxr.Gf.Matrix3f(*[float(x) for x in np.asarray(inertia).reshape(-1)])
    info.centerOfMass = pxr.Gf.Vec3f(*[float(x) for x in com])
    info.localPos = pxr.Gf.Vec3f(*[float(x) for x in pos])
    info.localRot = pxr.Gf.Quatf(float(rot[3]), float(rot[0]), float(rot[1]), float(rot[2]))
    return info


def _compute_fallback(ctx, body):
    """ComputeMassProperties over the body's colliders (the body prim itself included when it is one):
    (mass, diag, com, axes) in stage units, or None."""
    pxr = require_pxr()
    body_prim = ctx.stage.GetPrimAtPath(body.path)
    shapes = {s.path: s for s in body.shapes}
    data = {}
    it = iter(pxr.Usd.PrimRange(body_prim, pxr.Usd.TraverseInstanceProxies()))
    for prim in it:
        if prim != body_prim and prim.HasAPI(pxr.UsdPhysics.RigidBodyAPI):
            it.PruneChildren()  # a nested rigid body owns its colliders
            continue
        if prim.HasAPI(pxr.UsdPhysics.CollisionAPI):
            path = str(prim.GetPath())
            data[path] = _collider_data(ctx, prim, body_prim, shapes.get(path))
            if data[path] is None and (path not in shapes or shapes[path].geo != GeoType.PLANE):
                ctx.warn(path, f"collider has no usable mass information; it adds no mass to {body.path}")
    if not any(d is not None for d in data.values()):
        _fail_self_collider(ctx, body, body_prim)
        return None
    api = pxr.UsdPhysics.RigidBodyAPI(body_prim)
    mass, diag, com, axes = api.ComputeMassProperties(lambda p: _mass_information(data.get(str(p.GetPath()))))
    out = (float(mass), vec(diag), vec(com), np.asarray(quat_xyzw(axes)))
    if not all(np.isfinite(np.asarray(x)).all() for x in out):
        ctx.warn(body.path, "UsdPhysics could not compute mass properties from the colliders")
        return None
    return out


def _fail_self_collider(ctx, body, body_prim):
    """A dynamic body prim that is its own collider, with no authored mass, whose colliders give no mass:
    it would import massless and make the solver's mass matrix singular, so the import stops here."""
    if body.kinematic or not body_prim.HasAPI(require_pxr().UsdPhysics.CollisionAPI):
        return
    if _authored(ctx.prims[body.path])["mass"] is not None:
        return
    ctx.fail(
        body.path,
        "rigid body is its own collider but its mass cannot be computed from its collision "
        "geometry (a plane, or a shape without volume); author physics:mass and "
        "physics:diagonalInertia (PhysicsMassAPI) on it",
    )


def _resolve_body(ctx, body):
    auth = _authored(ctx.prims[body.path])
    complete = auth["mass"] is not None and auth["diag"] is not None and auth["com"] is not None
    fb = None if complete else _compute_fallback(ctx, body)
    mass = auth["mass"] if auth["mass"] is not None else (fb[0] if fb else 0.0)
    com = auth["com"] if auth["com"] is not None else (fb[2] if fb else np.zeros(3))
    if auth["diag"] is not None:
        inertia = auth["axes"] @ np.diag(auth["diag"]) @ auth["axes"].T
    elif fb is not None:
        rot = _axes_matrix(fb[3])
        inertia = rot @ np.diag(fb[1]) @ rot.T
    else:
        inertia = np.zeros((3, 3))
        if mass > 0 and fb is None and auth["diag"] is None:
            ctx.warn(body.path, "body has a mass but neither an authored inertia nor colliders; inertia is zero")
    if mass < 0:
        ctx.warn(body.path, f"resolved mass {mass} is negative; the body is massless (inverse mass 0)")
    if mass <= 0:
        mass = 0.0
    body.mass = mass * ctx.units.kg
    body.com = np.asarray(com, float) * ctx.units.m
    body.inertia = 0.5 * (inertia + inertia.T) * ctx.units.inertia


@contextlib.contextmanager
def _metres_for_usd(ctx):
    """Make UsdPhysics' default density (1000 kg/m^3 in stage units) agree with reading an unannotated
    stage in metres: author metersPerUnit = 1 on the session layer while computing, then remove it."""
    stage = ctx.stage
    if stage.HasAuthoredMetadata("metersPerUnit"):
        yield
        return
    root = stage.GetSessionLayer().pseudoRoot
    root.SetInfo("metersPerUnit", 1.0)
    try:
        yield
    finally:
        root.ClearInfo("metersPerUnit")


def compute_mass(ctx, bodies: dict):
    """Fill mass [kg], com [m] and inertia [kg m^2] of every BodyPlan."""
    with _metres_for_usd(ctx):
        for body in bodies.values():
            _resolve_body(ctx, body)
