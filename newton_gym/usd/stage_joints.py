"""Joints: UsdPhysics joint descriptors -> JointPlans (type, frames, DOFs).

Fixed, Revolute, Prismatic, Spherical and Distance joints map to the builder's types; the generic
Joint (D6) gets one DOF per axis that its LimitAPI instances do not lock (low > high locks an axis;
an axis without a LimitAPI instance is free, as UsdPhysics specifies). A spherical joint's cone limits
become +-limits on the two axes normal to its cone axis (a box approximation of the cone).

A joint whose physics:body0/body1 targets a prim that does not exist is an error; one that connects
no rigid body is skipped with a warning (its attributes are still resolved, for ``inspect``). A disabled
loop-closing joint (``physics:excludeFromArticulation``) is kept: it becomes a switched-off equality
constraint (MuJoCo's inactive equality), which can be switched on later.
"""

from __future__ import annotations

import numpy as np

from ..sim.types import JointType
from ._pxr import quat_xyzw, require_pxr, vec
from .joint_dofs import JOINT_KEYS, DofSpec, build_dofs
from .plans import JointPlan
from .resolvers.base import ResolveContext

__all__ = ["plan_joints", "is_joint_prim"]

_AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}
_D6_TOKENS = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")
_UNIT = np.eye(3)


def _axis_name(desc) -> str:
    return str(desc.axis).rsplit(".", 1)[-1]


def _limit(desc_limit):
    if desc_limit is None or not desc_limit.enabled:
        return None
    return float(desc_limit.lower), float(desc_limit.upper)


def _dof_token(enum_value) -> str:
    name = str(enum_value).rsplit(".", 1)[-1]
    return name[0].lower() + name[1:]


def _d6_specs(ctx, path, desc) -> list:
    limits = {_dof_token(p.first): p.second for p in desc.jointLimits}
    drives = {_dof_token(p.first): p.second for p in desc.jointDrives}
    if "distance" in limits:
        ctx.warn(path, "distance limits of generic joints are not supported; ignored")
    specs = []
    for i, token in enumerate(_D6_TOKENS):
        lim = limits.get(token)
        if lim is not None and lim.enabled and float(lim.lower) > float(lim.upper):
            continue  # locked axis
        angular = i >= 3
        specs.append(DofSpec(token, token, angular, tuple(_UNIT[i % 3]), _limit(lim), drives.get(token)))
    return specs


def _ball_specs(desc) -> list:
    a = _AXIS_INDEX.get(_axis_name(desc), 0)
    lim = _limit(desc.limit)
    cones = {}
    if lim is not None:
        # coneAngle0 tilts the cone axis toward the next axis (a rotation about the one after it),
        # coneAngle1 toward the one after (a rotation about the next axis).
        cones[(a + 2) % 3] = abs(lim[0])
        cones[(a + 1) % 3] = abs(lim[1])
    return [
        DofSpec(
            f"rot{'XYZ'[i]}", f"rot{'XYZ'[i]}", True, tuple(_UNIT[i]), (-cones[i], cones[i]) if i in cones else None
        )
        for i in range(3)
    ]


def _specs(ctx, path, desc, type_name):
    """(JointType, [DofSpec]) of a joint descriptor."""
    if type_name == "FixedJoint":
        return JointType.FIXED, []
    if type_name in ("RevoluteJoint", "PrismaticJoint"):
        angular = type_name == "RevoluteJoint"
        axis = tuple(_UNIT[_AXIS_INDEX.get(_axis_name(desc), 0)])
        spec = DofSpec(
            "angular" if angular else "linear",
            "angle" if angular else "distance",
            angular,
            axis,
            _limit(desc.limit),
            desc.drive,
        )
        return (JointType.REVOLUTE if angular else JointType.PRISMATIC), [spec]
    if type_name == "SphericalJoint":
        return JointType.BALL, _ball_specs(desc)
    if type_name == "DistanceJoint":
        lo = float(desc.limit.lower) if desc.minEnabled else -1.0
        hi = float(desc.limit.upper) if desc.maxEnabled else 1e10
        lin = [DofSpec(t, t, False, tuple(_UNIT[i]), (lo, hi)) for i, t in enumerate(_D6_TOKENS[:3])]
        return JointType.DISTANCE, lin + [DofSpec(t, t, True, tuple(_UNIT[i])) for i, t in enumerate(_D6_TOKENS[3:])]
    specs = _d6_specs(ctx, path, desc)
    return (JointType.D6 if specs else JointType.FIXED), specs


def _check_targets(ctx, path, prim):
    """A body relationship that targets a missing prim is an error naming the joint."""
    for k in (0, 1):
        rel = prim.GetRelationship(f"physics:body{k}")
        for target in rel.GetTargets() if rel else []:
            if not ctx.stage.GetPrimAtPath(target):
                ctx.fail(path, f"physics:body{k} targets {target}, which does not exist")


_SKIP = object()


def _warn_static_target(ctx, path, k):
    """A body relationship that targets an existing prim which is neither a rigid body nor inside one
    attaches the joint to the world there (UsdPhysics' rule): legal, but often a typo, so it warns."""
    rel = ctx.stage.GetPrimAtPath(path).GetRelationship(f"physics:body{k}")
    targets = rel.GetTargets() if rel else []
    if targets:
        ctx.warn(
            path,
            f"physics:body{k} targets {targets[0]}, which is not a rigid body (nor inside one): "
            "the joint attaches to the world there",
        )


def _side(ctx, path, body_path, bodies, disabled, k):
    """Body path of one side: None for the world (also a disabled, i.e. static, body), _SKIP for a body
    outside the imported range (root_path / ignore_paths)."""
    body = str(body_path) or None
    if body is None:
        _warn_static_target(ctx, path, k)
        return None
    if body in disabled:
        return None
    if body not in bodies:
        ctx.warn(path, f"physics:body{k} {body} is not imported (outside root_path or ignored); joint skipped")
        return _SKIP
    return body


def _plan_one(ctx, path, desc, type_name, bodies, disabled, order):
    prim = ctx.stage.GetPrimAtPath(path)
    _check_targets(ctx, path, prim)
    b0 = _side(ctx, path, desc.body0, bodies, disabled, 0)
    b1 = _side(ctx, path, desc.body1, bodies, disabled, 1)
    if b0 is _SKIP or b1 is _SKIP:
        return None
    if b0 is None and b1 is None:
        ctx.warn(path, "joint connects no imported rigid body; skipped")
        return None
    if b0 == b1:
        ctx.fail(path, f"joint connects body {b0} to itself")
    if not desc.jointEnabled and ctx.options.only_load_enabled_joints and not desc.excludeFromArticulation:
        ctx.warn(path, "joint is disabled (physics:jointEnabled = false); skipped")
        return None
    poses = []
    for k, body in ((0, b0), (1, b1)):
        p = vec(getattr(desc, f"localPose{k}Position"))
        q = np.asarray(quat_xyzw(getattr(desc, f"localPose{k}Orientation")))
        if not (np.isfinite(p).all() and np.isfinite(q).all()):
            ctx.fail(path, f"physics:localPos{k} / localRot{k} is not finite")
        poses.append(ctx.frame.local_pose(p, q) if body else ctx.frame.world_pose(p, q))
    jtype, specs = _specs(ctx, path, desc, type_name)
    dofs = build_dofs(ctx, path, specs)
    plan = JointPlan(
        path=path,
        key=path,
        type=jtype,
        parent=b0,
        child=b1,
        parent_xform=poses[0],
        child_xform=poses[1],
        linear=[d for d in dofs if not d.angular],
        angular=[d for d in dofs if d.angular],
        enabled=bool(desc.jointEnabled),
        filter_parent=not bool(desc.collisionEnabled),
        excluded=bool(desc.excludeFromArticulation),
        order=order,
    )
    if b1 is None:
        plan.flip()  # the body becomes the child of the world
    return plan


_UNPREFIXED = ("RevoluteJoint", "PrismaticJoint", "SphericalJoint", "FixedJoint", "DistanceJoint", "Joint")


def is_joint_prim(prim) -> bool:
    """A UsdPhysics joint, or a prim typed with a joint's unprefixed name (e.g. ``RevoluteJoint``)."""
    return prim.IsA(require_pxr().UsdPhysics.Joint) or str(prim.GetTypeName()) in _UNPREFIXED


def _audit_unreported(ctx, reported: set):
    """Joint prims the UsdPhysics parser did not report: missing targets fail, bodiless joints and prims
    typed with an unregistered joint name (``RevoluteJoint`` for ``PhysicsRevoluteJoint``) warn. Their
    joint keys are still resolved so ``result["resolved"]`` and ``inspect`` show them."""
    P = require_pxr().UsdPhysics
    for prim in ctx.prims.range_prims():
        path = str(prim.GetPath())
        type_name = str(prim.GetTypeName())
        if path in reported or not is_joint_prim(prim):
            continue
        _check_targets(ctx, path, prim)
        if prim.IsA(P.Joint):
            ctx.warn(path, "joint connects no rigid body (physics:body0 and physics:body1 name none); skipped")
        else:
            ctx.warn(
                path,
                f"prim type {type_name!r} is not a registered UsdPhysics type (the schema is "
                f"'Physics{type_name}'); not imported as a joint",
            )
        angular = not (prim.IsA(P.PrismaticJoint) or type_name == "PrismaticJoint")
        rctx = ResolveContext(
            axis="angular" if angular else "linear",
            dof_token="angle" if angular else "distance",
            angular=angular,
            angle_degrees=getattr(ctx.scene, "angle_degrees", True),
        )
        for key in JOINT_KEYS:
            ctx.resolve("joint", key, path, default=getattr(ctx.builder.default_joint_cfg, key), dof=rctx)


def plan_joints(ctx, parsed, bodies: dict, disabled: dict) -> list:
    """JointPlans of the parsed joints, in stage order (parent = physics:body0 unless that is the world)."""
    plans = []
    for order, (path, desc, type_name) in enumerate(parsed.joints):
        plan = _plan_one(ctx, path, desc, type_name, bodies, disabled, order)
        if plan is not None:
            plans.append(plan)
    _audit_unreported(ctx, {p for p, _, _ in parsed.joints})
    return plans
