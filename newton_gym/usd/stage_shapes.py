"""Colliders: UsdPhysics shape descriptors -> ShapePlans in seed 002's conventions.

Cube ``size`` becomes half extents; a sphere under a non-uniform scale becomes an ellipsoid (its
semi-axes); capsules, cylinders, cones and planes authored along X or Y get a frame that turns their
axis onto Z; sizes arrive from UsdPhysics with the prim and body scales already
applied and are converted to metres. Friction, restitution and density come from the bound physics
material, contact parameters from the schema resolvers; MuJoCo contype/conaffinity are kept for
:mod:`.collision_filters`. Mesh colliders are read by :mod:`.mesh_shapes`, or by :mod:`.heightfield_shapes`
when they carry the heightfield marker (static only: one under a rigid body is skipped with a warning).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..sim.hostmath import quat_between, quat_identity, transform_mul
from ..sim.types import GeoType
from ._pxr import quat_xyzw, require_pxr, vec
from .heightfield_shapes import heightfield_geometry, is_heightfield
from .mesh_shapes import mesh_geometry
from .plans import ShapePlan

__all__ = ["plan_shapes"]

_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


_AXIS_ROTATIONS = {name: quat_between((0.0, 0.0, 1.0), axis) for name, axis in _AXES.items()}


def _axis_rotation(desc) -> np.ndarray:
    """Quaternion turning local +Z onto the descriptor's axis."""
    return _AXIS_ROTATIONS.get(str(desc.axis).rsplit(".", 1)[-1], _AXIS_ROTATIONS["Z"])


def _tapered(ctx, path, desc, kind) -> float:
    top, bottom = float(desc.topRadius), float(desc.bottomRadius)
    if abs(top - bottom) > 1e-9 * max(1.0, top, bottom):
        ctx.warn(
            path,
            f"{kind} with top radius {top} and bottom radius {bottom} is approximated by radius "
            f"{max(top, bottom)} (tapered {kind}s are not supported)",
        )
    return max(top, bottom)


def _ellipsoid_radii(ctx, path, radius: float):
    """Semi-axes (3,) in stage units when the sphere sits under a non-uniform scale (the MJCF
    converter's ellipsoid; UsdPhysics reports it as a sphere of the largest radius), else None."""
    UsdGeom = require_pxr().UsdGeom
    prim = ctx.stage.GetPrimAtPath(path)
    if not prim or not prim.IsA(UsdGeom.Xformable):
        return None
    matrix = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(0.0)
    scale = np.array([matrix.GetRow3(i).GetLength() for i in range(3)])
    if scale.max() > scale.min() * (1.0 + 1e-5):
        return radius / scale.max() * scale
    return None


def _primitive(ctx, path, desc, type_name):
    """(geo, size in stage units (3,), extra rotation (4,)) of a primitive descriptor."""
    if type_name == "CubeShape":
        return GeoType.BOX, vec(desc.halfExtents), quat_identity()
    if type_name == "SphereShape":
        radii = _ellipsoid_radii(ctx, path, float(desc.radius))
        if radii is not None:
            return GeoType.ELLIPSOID, radii, quat_identity()
        return GeoType.SPHERE, np.array([float(desc.radius), 0.0, 0.0]), quat_identity()
    if type_name == "PlaneShape":
        return GeoType.PLANE, np.zeros(3), _axis_rotation(desc)
    if type_name in ("Capsule1Shape", "Cylinder1Shape"):
        radius = _tapered(ctx, path, desc, "capsule" if type_name == "Capsule1Shape" else "cylinder")
    else:
        radius = float(desc.radius)
    geo = {
        "CapsuleShape": GeoType.CAPSULE,
        "Capsule1Shape": GeoType.CAPSULE,
        "CylinderShape": GeoType.CYLINDER,
        "Cylinder1Shape": GeoType.CYLINDER,
        "ConeShape": GeoType.CONE,
    }[type_name]
    return geo, np.array([radius, float(desc.halfHeight), 0.0]), _axis_rotation(desc)


def _material(ctx, desc):
    for m in desc.materials:
        if str(m):
            return str(m)
    return None


def _material_cfg(ctx, cfg, material):
    """Friction, restitution, density and contact gains of the bound physics material."""
    attrs = ctx.prims[material]
    mu = attrs.get("physics:dynamicFriction", "float")
    if mu is None:
        mu = attrs.get("physics:staticFriction", "float")
    restitution = attrs.get("physics:restitution", "float")
    density = attrs.get("physics:density", "float")
    changes = {}
    if mu is not None:
        changes["mu"] = mu
    if restitution is not None:
        changes["restitution"] = restitution
    if density is not None and density > 0:
        changes["density"] = density * ctx.units.density
    for key in ("mu_torsional", "mu_rolling"):
        changes[key] = ctx.resolve("material", key, material, default=getattr(cfg, key))
    for key in ("ke", "kd"):
        value = ctx.resolve("material", key, material)
        if value is not None:
            changes[key] = value * ctx.units.kg
    return replace(cfg, **changes)


def _shape_cfg(ctx, path, desc):
    """ShapeConfig of one collider: builder defaults <- material <- collider MassAPI density <- resolvers."""
    pxr = require_pxr()
    cfg = replace(ctx.builder.default_shape_cfg)
    material = _material(ctx, desc)
    if material is not None:
        cfg = _material_cfg(ctx, cfg, material)
    attrs = ctx.prims[path]
    density = attrs.get("physics:density", "float")
    if density is not None and density > 0:
        cfg = replace(cfg, density=density * ctx.units.density)
    m = ctx.units.m
    margin = ctx.resolve("shape", "margin", path, default=cfg.margin / m)
    gap = ctx.resolve("shape", "gap", path, default=cfg.gap / m)
    visible = pxr.UsdGeom.Imageable(attrs.prim).ComputeVisibility() != "invisible"
    return replace(
        cfg,
        margin=float(margin) * m,
        gap=float(gap) * m,
        collide=bool(desc.collisionEnabled),
        visible=visible,
        condim=int(ctx.resolve("shape", "condim", path, default=cfg.condim)),
        priority=int(ctx.resolve("shape", "priority", path, default=cfg.priority)),
        solref=tuple(ctx.resolve("shape", "solref", path, default=tuple(cfg.solref))),
        solimp=tuple(ctx.resolve("shape", "solimp", path, default=tuple(cfg.solimp))),
    )


def _geometry(ctx, path, desc, type_name, body):
    """(geo, size (3,) [m], offset (7,) in the collider frame, Mesh | Heightfield | None) of a collider, or
    None when it is skipped (a warning names it)."""
    if type_name != "MeshShape":
        geo, size, axis_rot = _primitive(ctx, path, desc, type_name)
        if not np.isfinite(size).all():
            ctx.fail(path, f"collider size {size.tolist()} is not finite")
        return geo, size * ctx.units.m, np.concatenate([np.zeros(3), axis_rot]), None
    if not is_heightfield(ctx, path):
        return mesh_geometry(ctx, path, desc)
    if body is not None:
        ctx.warn(path, f"heightfield under rigid body {body}: heightfields are static terrain only; skipped")
        return None
    return heightfield_geometry(ctx, path, desc)


def _plan_one(ctx, path, desc, type_name, bodies):
    body = str(desc.rigidBody) or None
    pos, rot = vec(desc.localPos), np.asarray(quat_xyzw(desc.localRot))
    if not (np.isfinite(pos).all() and np.isfinite(rot).all()):
        ctx.fail(path, "collider pose is not finite")
    cfg = _shape_cfg(ctx, path, desc)  # resolved first, so a collider skipped below still shows in inspect
    got = _geometry(ctx, path, desc, type_name, body)
    if got is None:
        return None
    geo, size, offset, mesh = got
    if body is not None and body not in bodies:
        ctx.warn(path, f"collider's rigid body {body} is not imported; the collider is static")
        body = None
    pose = ctx.frame.local_pose(pos, rot) if body else ctx.frame.world_pose(pos, rot)
    ctype = ctx.resolve("shape", "contype", path)
    caff = ctx.resolve("shape", "conaffinity", path)
    if ctype == 0 and caff == 0:
        cfg = replace(cfg, collide=False)
    return ShapePlan(
        path=path,
        geo=geo,
        xform=transform_mul(pose, offset),
        size=np.asarray(size, float),
        mesh=mesh,
        cfg=cfg,
        body=body,
        contype=ctype,
        conaffinity=caff,
        groups=tuple(str(g) for g in desc.collisionGroups),
        filtered=tuple(str(f) for f in desc.filteredCollisions),
    )


def plan_shapes(ctx, parsed, bodies: dict) -> list:
    """Attach a ShapePlan to its BodyPlan for every collider; return the static (bodiless) ones."""
    static = []
    for path, desc, type_name in parsed.shapes:
        plan = _plan_one(ctx, path, desc, type_name, bodies)
        if plan is None:
            continue
        if plan.body is None:
            static.append(plan)
        else:
            bodies[plan.body].shapes.append(plan)
    for path, type_name in parsed.unsupported:
        ctx.warn(path, f"UsdPhysics {type_name} prims are not supported; skipped")
    _warn_dropped_colliders(ctx, parsed)
    return static


def _warn_dropped_colliders(ctx, parsed):
    """Colliders UsdPhysics could not classify (CollisionAPI on an unknown prim type)."""
    P = require_pxr().UsdPhysics
    known = {p for p, _, _ in parsed.shapes} | {p for p, _ in parsed.unsupported}
    for prim in ctx.prims.range_prims():
        path = str(prim.GetPath())
        if path not in known and prim.HasAPI(P.CollisionAPI):
            ctx.warn(path, f"collider of unsupported prim type {str(prim.GetTypeName()) or '(none)'!r}; skipped")
