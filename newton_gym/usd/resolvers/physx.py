"""SchemaResolverPhysx: PhysX attributes (``physx*:`` namespaces) as authored by Isaac Sim."""

from __future__ import annotations

import math
from typing import ClassVar

from .base import AttrSpec, SchemaResolver, degrees, per_degree

__all__ = ["SchemaResolverPhysx"]


def _finite(value, ctx=None):
    """PhysX writes -inf for "engine default": treat it as not authored."""
    return None if math.isinf(value) else value


def _gap(values, ctx=None):
    """gap = contactOffset - restOffset (seed 000); a missing or -inf restOffset counts as 0."""
    contact, rest = values
    if contact is None or math.isinf(contact):
        return None
    rest = 0.0 if rest is None or math.isinf(rest) else rest
    return contact - rest


def _negate(value, ctx=None):
    return not value


class SchemaResolverPhysx(SchemaResolver):
    """Resolver for PhysX-authored attributes.

    ``physxScene:maxVelocityIterationCount`` gives max_solver_iterations; ``physxCollision``
    restOffset gives the margin and contactOffset - restOffset the gap; ``physxLimit:<axis>`` soft-limit
    gains and ``physxJointAxis:<axis>:viscousFrictionCoefficient`` are per degree on angular axes;
    ``physxRigidBody:disableGravity`` is negated into gravity_enabled.
    """

    name: ClassVar[str] = "physx"
    namespaces: ClassVar[tuple] = (
        "physx",
        "physxScene",
        "physxRigidBody",
        "physxCollision",
        "physxConvexHullCollision",
        "physxConvexDecompositionCollision",
        "physxTriangleMeshCollision",
        "physxTriangleMeshSimplificationCollision",
        "physxSDFMeshCollision",
        "physxMaterial",
        "physxJoint",
        "physxJointAxis",
        "physxLimit",
        "physxArticulation",
    )
    mapping: ClassVar[dict] = {
        "scene": {
            "time_steps_per_second": AttrSpec("physxScene:timeStepsPerSecond", default=60.0),
            "max_solver_iterations": AttrSpec("physxScene:maxVelocityIterationCount", expects="int", default=255),
        },
        "body": {
            "gravity_enabled": AttrSpec("physxRigidBody:disableGravity", _negate, expects="bool"),
            "linear_damping": AttrSpec("physxRigidBody:linearDamping", default=0.0),
            "angular_damping": AttrSpec("physxRigidBody:angularDamping", default=0.05),
        },
        "shape": {
            "margin": AttrSpec("physxCollision:restOffset", _finite),
            "gap": AttrSpec(("physxCollision:contactOffset", "physxCollision:restOffset"), _gap, combine=True),
            "max_hull_vertices": AttrSpec("physxConvexHullCollision:hullVertexLimit", expects="int", default=64),
        },
        "material": {
            "ke": AttrSpec("physxMaterial:compliantContactStiffness"),
            "kd": AttrSpec("physxMaterial:compliantContactDamping"),
        },
        "joint": {
            "armature": AttrSpec("physxJoint:armature", default=0.0),
            "velocity_limit": AttrSpec("physxJoint:maxJointVelocity", degrees),
            "limit_ke": AttrSpec("physxLimit:{axis}:stiffness", per_degree),
            "limit_kd": AttrSpec("physxLimit:{axis}:damping", per_degree),
            "friction_static": AttrSpec("physxJointAxis:{axis}:staticFrictionEffort"),
            "friction_dynamic": AttrSpec("physxJointAxis:{axis}:dynamicFrictionEffort"),
            "viscous_damping": AttrSpec("physxJointAxis:{axis}:viscousFrictionCoefficient", per_degree),
        },
        "articulation": {
            "self_collision_enabled": AttrSpec("physxArticulation:enabledSelfCollisions", expects="bool", default=True),
        },
    }
