"""Rigid bodies: pose, velocity, kinematic flag and per-body extras from UsdPhysics RigidBody descriptors.

A body with ``physics:rigidBodyEnabled = false`` is static: UsdPhysics already reports its colliders
as static shapes and joints to it as joints to the world, so it only becomes an entry of ``disabled``.
Mass properties are filled later by :mod:`.stage_mass`.
"""

from __future__ import annotations

import math

import numpy as np

from ._pxr import quat_xyzw, vec
from .plans import BodyPlan

__all__ = ["plan_bodies", "BODY_EXTRA_DEFAULTS"]

#: Per-body values without a builder column, with the importer default each resolves against.
BODY_EXTRA_DEFAULTS = {"gravity_enabled": True, "linear_damping": 0.0, "angular_damping": 0.0}


def _pose(ctx, path, desc) -> np.ndarray:
    p = vec(desc.position)
    q = np.asarray(quat_xyzw(desc.rotation))
    if not (np.isfinite(p).all() and np.isfinite(q).all()) or np.linalg.norm(q) < 1e-9:
        ctx.fail(path, f"rigid body pose is not finite (position {p.tolist()}, rotation {q.tolist()})")
    return ctx.frame.world_pose(p, q)


def _velocity(ctx, path, desc) -> np.ndarray:
    """Authored linear [stage units/s] and angular [deg/s] velocity -> (6,) SI, builder frame."""
    lin = vec(desc.linearVelocity) * ctx.units.m
    ang = vec(desc.angularVelocity) * (math.pi / 180.0)
    if not (np.isfinite(lin).all() and np.isfinite(ang).all()):
        ctx.fail(path, "rigid body velocity is not finite")
    if not (lin.any() or ang.any()):
        return np.zeros(6)
    return np.concatenate([ctx.frame.world_vector(lin), ctx.frame.world_vector(ang)])


def plan_bodies(ctx, parsed) -> tuple[dict, dict]:
    """Plan every rigid body of the parsed stage.

    Returns:
        (bodies, disabled): ``{path: BodyPlan}`` in stage order, and ``{path: (7,) world pose}`` of
        disabled (static) bodies.
    """
    bodies, disabled = {}, {}
    for path, desc in parsed.bodies:
        pose = _pose(ctx, path, desc)
        if not desc.rigidBodyEnabled:
            disabled[path] = pose
            continue
        plan = BodyPlan(path=path, pose=pose, kinematic=bool(desc.kinematicBody), velocity=_velocity(ctx, path, desc))
        for key, default in BODY_EXTRA_DEFAULTS.items():
            plan.extras[key] = ctx.resolve("body", key, path, default=default)
        plan.filtered = tuple(str(p) for p in desc.filteredCollisions)
        bodies[path] = plan
    return bodies, disabled
