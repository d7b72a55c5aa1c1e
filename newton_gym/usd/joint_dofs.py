"""Per-DOF joint settings: limits and drives from UsdPhysics, the resolvers' keys, NewtonJointAPI
(seed 001) and the initial joint state.

NewtonJointAPI: ``newton:dofs`` names the DOFs ("angle" / "distance" for revolute / prismatic joints,
"transX" ... "rotZ" otherwise) and ``newton:armature``, ``newton:staticFrictionEffort``,
``newton:dynamicFrictionEffort``, ``newton:viscousDamping`` are arrays indexed like it; unlisted DOFs
fall through to the next resolver and finally to the builder default (0). An empty ``newton:dofs``
disables the API. A scalar (the released schema) applies to every DOF; arrays authored without
``newton:dofs`` are accepted when they hold one value per DOF, in the joint's DOF order.
``viscousDamping`` is per degree on angular DOFs. Errors name the joint prim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..sim.joint_config import JointDofConfig
from .plans import DofPlan
from .resolvers.base import ResolveContext

__all__ = ["DofSpec", "newton_joint_dofs", "build_dofs", "JOINT_KEYS", "NEWTON_DOF_TOKENS"]

NEWTON_DOF_TOKENS = ("angle", "distance", "transX", "transY", "transZ", "rotX", "rotY", "rotZ")
_NEWTON_ARRAYS = (
    "newton:armature",
    "newton:staticFrictionEffort",
    "newton:dynamicFrictionEffort",
    "newton:viscousDamping",
)
#: Resolver keys set per DOF, with the unit quantity that converts them from stage units.
JOINT_KEYS = {
    "armature": "armature",
    "damping": "damping",
    "friction_static": "effort",
    "friction_dynamic": "effort",
    "viscous_damping": "damping",
    "velocity_limit": "velocity",
    "limit_ke": "stiffness",
    "limit_kd": "damping",
    "spring_stiffness": "stiffness",
    "spring_ref": "position",
    "ref": "position",
}
_DEG = math.pi / 180.0


@dataclass
class DofSpec:
    """A DOF as UsdPhysics describes it (angles in degrees, lengths in stage units).

    Attributes:
        token: UsdPhysics axis token ("angular", "linear", "transX" ... "rotZ").
        newton: NewtonJointAPI token ("angle", "distance", "transX" ... "rotZ").
        angular: rotational DOF.
        axis: (3,) axis in the joint frame.
        limit: (lower, upper) or None when unlimited.
        drive: a UsdPhysics JointDrive descriptor, or None.
    """

    token: str
    newton: str
    angular: bool
    axis: tuple
    limit: tuple | None = None
    drive: object = None


def _check_nonnegative(attrs, name, value):
    values = value if isinstance(value, list) else [value]
    if any(v < 0 for v in values):
        attrs.fail(name, f"values must be >= 0, got {value}")


def newton_joint_dofs(ctx, path: str, specs: list) -> tuple | None:
    """Validate the prim's NewtonJointAPI and return its DOF tokens (None: not authored; (): disabled)."""
    attrs = ctx.prims[path]
    tokens = [s.newton for s in specs]
    dofs = attrs.get("newton:dofs", "any")
    values = {n: attrs.get(n, "float_or_floats", mark=False) for n in _NEWTON_ARRAYS}
    values = {n: v for n, v in values.items() if v is not None}
    for name, v in values.items():
        _check_nonnegative(attrs, name, v)
    arrays = {n: v for n, v in values.items() if isinstance(v, list)}
    if dofs is not None:
        if not isinstance(dofs, list) or not all(isinstance(t, str) for t in dofs):
            attrs.fail("newton:dofs", f"expected a token array, got {dofs!r}")
        for t in dofs:
            if t not in NEWTON_DOF_TOKENS:
                attrs.fail("newton:dofs", f"unknown DOF token {t!r} (valid: {', '.join(NEWTON_DOF_TOKENS)})")
            if t not in tokens:
                attrs.fail("newton:dofs", f"the joint has no DOF {t!r} (its DOFs: {', '.join(tokens) or 'none'})")
        if len(set(dofs)) != len(dofs):
            attrs.fail("newton:dofs", f"repeated DOF tokens {dofs}")
    elif arrays:
        if {len(v) for v in arrays.values()} != {len(tokens)}:
            ctx.fail(
                path,
                "NewtonJointAPI arrays without newton:dofs must hold one value per joint DOF "
                f"({len(tokens)}: {', '.join(tokens)}); got lengths "
                f"{ {n: len(v) for n, v in arrays.items()} }",
            )
        dofs = list(tokens)
    for name, v in arrays.items():
        if dofs and len(v) != len(dofs):
            attrs.fail(
                name,
                f"has {len(v)} values but newton:dofs has {len(dofs)} ({', '.join(dofs)}): "
                "NewtonJointAPI arrays must have equal lengths",
            )
    _warn_friction_order(ctx, path, values, dofs)
    return None if dofs is None else tuple(dofs)


def _warn_friction_order(ctx, path, values, dofs):
    static = values.get("newton:staticFrictionEffort")
    dynamic = values.get("newton:dynamicFrictionEffort")
    if static is None or dynamic is None or dofs == []:
        return
    n = len(dofs) if dofs else 1
    s = static if isinstance(static, list) else [static] * n
    d = dynamic if isinstance(dynamic, list) else [dynamic] * n
    for i, (a, b) in enumerate(zip(s, d)):
        if b > a:
            which = f" of DOF {dofs[i]}" if dofs else ""
            ctx.warn(path, f"newton:dynamicFrictionEffort{which} ({b}) exceeds newton:staticFrictionEffort ({a})")


def _limits(ctx, spec: DofSpec, default: JointDofConfig) -> tuple:
    if spec.limit is None:
        return default.limit_lower, default.limit_upper
    lo, hi = spec.limit
    scale = _DEG if spec.angular else ctx.units.m
    lo = lo * scale if math.isfinite(lo) else default.limit_lower
    hi = hi * scale if math.isfinite(hi) else default.limit_upper
    return lo, hi


def _drive(ctx, path, spec: DofSpec) -> dict:
    """PD drive fields from a UsdPhysics DriveAPI (gains per degree and targets in degrees if angular)."""
    d = spec.drive
    if d is None or not getattr(d, "enabled", True):
        return {}
    u, ang = ctx.units, spec.angular
    per_unit = (1.0 / _DEG) if ang else 1.0
    out = {
        "target_ke": float(d.stiffness) * per_unit * u.dof("stiffness", ang),
        "target_kd": float(d.damping) * per_unit * u.dof("damping", ang),
        "target_pos": float(d.targetPosition) * (_DEG if ang else u.m),
        "target_vel": float(d.targetVelocity) * (_DEG if ang else u.m),
    }
    if math.isfinite(float(d.forceLimit)) and float(d.forceLimit) > 0:
        out["effort_limit"] = float(d.forceLimit) * u.dof("effort", ang)
    if any(not math.isfinite(v) for v in out.values()):
        ctx.fail(path, f"drive on axis {spec.token} has non-finite values {out}")
    if getattr(d, "acceleration", False):
        ctx.warn(path, f"acceleration drive on axis {spec.token} is imported as a force drive")
    return out


def _dof_plan(ctx, path, spec: DofSpec, newton_dofs) -> DofPlan:
    default = ctx.builder.default_joint_cfg
    u, ang = ctx.units, spec.angular
    rctx = ResolveContext(
        axis=spec.token,
        dof_token=spec.newton,
        angular=ang,
        newton_dofs=newton_dofs,
        angle_degrees=getattr(ctx.scene, "angle_degrees", True),
    )
    fields = {}
    for key, quantity in JOINT_KEYS.items():
        factor = u.dof(quantity, ang)
        value = ctx.resolve("joint", key, path, default=getattr(default, key) / factor, dof=rctx)
        fields[key] = float(value) * factor
    lo, hi = _limits(ctx, spec, default)
    fields.update(limit_lower=lo, limit_upper=hi, **_drive(ctx, path, spec))
    base = {k: v for k, v in vars(default).items() if k != "axis"}
    base.update(fields)
    attrs = ctx.prims[path]
    q0 = attrs.get(f"state:{spec.token}:physics:position", "float") or 0.0
    qd0 = attrs.get(f"state:{spec.token}:physics:velocity", "float") or 0.0
    scale = _DEG if ang else u.m
    return DofPlan(
        cfg=JointDofConfig.make(axis=tuple(np.asarray(spec.axis, float)), **base),
        token=spec.token,
        angular=ang,
        q0=q0 * scale,
        qd0=qd0 * scale,
    )


def build_dofs(ctx, path: str, specs: list) -> list:
    """DofPlans of a joint's DOFs (linear ones first, as the builder orders them)."""
    newton_dofs = newton_joint_dofs(ctx, path, specs)
    return [_dof_plan(ctx, path, s, newton_dofs) for s in specs]
