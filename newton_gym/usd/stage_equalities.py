"""Equality constraints: the solver parameters of loop-closing joints, and joint- and tendon-equality prims.

Connect and weld constraints are loop-closing UsdPhysics joints (``physics:excludeFromArticulation``),
written by :mod:`.emit`; this module gives them their MuJoCo parameters through the resolvers
(prim kind "equality": ``mjc:solref``, ``mjc:solimp``, weld ``mjc:torqueScale``).

A joint equality (MuJoCo's ``<equality><joint>``, URDF ``<mimic>``) has no UsdPhysics prim. Its form
(README, "Conventions"): any prim with ``newton:equality:type = "joint"`` (token), ``rel
newton:equality:joint1`` (the constrained joint), optional ``rel newton:equality:joint2`` (the leading
joint; without it q1 is held at the constant term), ``newton:equality:polycoef`` (5 numbers, q1 = c0 + c1
q2 + ... + c4 q2^4 in the joints' USD position units: degrees for angular joints, stage lengths for linear
ones; default 0 1 0 0 0), ``newton:equality:active`` (bool, default true) and the resolvers' solref /
solimp. It becomes :meth:`~newton_gym.sim.ModelBuilder.add_equality_constraint_joint`. A tendon
equality (MuJoCo's ``<equality><tendon>``) is the same with ``newton:equality:type = "tendon"``, ``rel
newton:equality:tendon1`` / ``tendon2`` to ``MjcTendon`` prims and the polynomial L1 = sum c_k L2^k in stage
lengths; it becomes :meth:`~newton_gym.sim.ModelBuilder.add_equality_constraint_tendon` once the tendons are
imported.

Errors (ImportFailedError naming the prim): another ``newton:equality:type``, a missing joint1, a
relationship to a prim that does not exist or is not a joint, more than one target, a polycoef that is
not 5 finite numbers, a joint of other than one DOF, one joint on both sides. A joint outside the
imported range (root_path, ignore_paths) or skipped by the import makes the constraint skipped with a
warning.
"""

from __future__ import annotations

import math

import numpy as np

from .stage_joints import is_joint_prim

__all__ = ["equality_params", "add_joint_equalities", "add_tendon_equalities"]

_TYPE = "newton:equality:type"
_POLYCOEF = "newton:equality:polycoef"
_ACTIVE = "newton:equality:active"
_SKIP = object()


def equality_params(ctx, path: str) -> dict:
    """``solref`` and ``solimp`` of equality prim ``path`` as the resolvers give them (None: the builder's
    MuJoCo defaults)."""
    return {key: ctx.resolve("equality", key, path) for key in ("solref", "solimp")}


def _target(ctx, prim, name: str, what: str, required: bool):
    """(prim path, prim) that ``rel newton:equality:<name>`` targets, checked to be one prim that exists; None
    when not authored and not required. ``what``: "joint" or "tendon", for the messages."""
    path = str(prim.GetPath())
    rel = prim.GetRelationship(f"newton:equality:{name}")
    targets = [str(t) for t in rel.GetTargets()] if rel else []
    if not targets:
        if required:
            ctx.fail(path, f"{what} equality has no newton:equality:{name} (the {what} it constrains)")
        return None
    if len(targets) > 1:
        listed = ", ".join(targets)
        ctx.fail(path, f"newton:equality:{name} targets {len(targets)} prims ({listed}); one {what} expected")
    target = ctx.stage.GetPrimAtPath(targets[0])
    if not target:
        ctx.fail(path, f"newton:equality:{name} targets {targets[0]}, which does not exist")
    return targets[0], target


def _joint_target(ctx, out, prim, name: str, required: bool):
    """Builder index of the joint that ``rel newton:equality:<name>`` targets; None when not authored (and
    not required); _SKIP, with a warning, when the joint was not imported."""
    found = _target(ctx, prim, name, "joint", required)
    if found is None:
        return None
    path, (target_path, target) = str(prim.GetPath()), found
    if not is_joint_prim(target):
        ctx.fail(path, f"newton:equality:{name} targets {target_path}, which is not a joint")
    if target_path not in out.joint:
        ctx.warn(path, f"newton:equality:{name} targets {target_path}, which is not imported; constraint skipped")
        return _SKIP
    index = out.joint[target_path]
    tj = ctx.builder.tables["joint"]
    dofs = int(tj.value("lin_count", index)) + int(tj.value("ang_count", index))
    if dofs != 1:
        ctx.fail(
            path,
            f"newton:equality:{name} targets {target_path}, a joint with {dofs} DOFs; joint equalities couple "
            "one-DOF (revolute or prismatic) joints",
        )
    return index


def _polycoef(attrs) -> np.ndarray:
    """The authored coefficients (MuJoCo's default 0 1 0 0 0 when absent), checked: 5 finite numbers."""
    if not attrs.has(_POLYCOEF):
        return np.array([0.0, 1.0, 0.0, 0.0, 0.0])
    value = attrs.raw(_POLYCOEF)
    numbers = list(value) if isinstance(value, (list, tuple)) else [value]
    ok = len(numbers) == 5 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in numbers
    )
    if not ok:
        attrs.fail(_POLYCOEF, f"expected 5 finite numbers (c0 .. c4), got {value!r}")
    attrs.used.add(_POLYCOEF)
    return np.array(numbers, dtype=np.float64)


def _to_builder_units(ctx, coef: np.ndarray, joint1: int, joint2: int | None) -> np.ndarray:
    """q1 = sum c_k q2^k in USD position units -> the builder's (radians, metres): c_k u1 / u2^k."""

    def unit(joint):
        angular = int(ctx.builder.tables["joint"].value("ang_count", joint)) == 1
        return math.pi / 180.0 if angular else ctx.units.m

    u1 = unit(joint1)
    u2 = unit(joint2) if joint2 is not None else 1.0
    return coef * u1 / u2 ** np.arange(5)


def add_joint_equalities(ctx, out) -> None:
    """Add a joint equality for every ``newton:equality:type = "joint"`` prim of the imported range.

    Args:
        ctx: the ImportContext.
        out: the :class:`~.emit.Emitted` indices (joints already written); ``out.equality`` gains the
            constraints by prim path.
    """
    for prim in ctx.prims.range_prims():
        attrs = ctx.prims[prim.GetPath()]
        if not attrs.has(_TYPE):
            continue
        path = attrs.path
        kind = attrs.get(_TYPE, "token")
        if kind == "tendon":  # after the tendons: add_tendon_equalities
            continue
        if kind != "joint":
            attrs.fail(
                _TYPE,
                f"unknown equality type {kind!r}; valid: 'joint', 'tendon' (connect and weld constraints are "
                "loop-closing SphericalJoint / FixedJoint prims with physics:excludeFromArticulation = true)",
            )
        joint1 = _joint_target(ctx, out, prim, "joint1", required=True)
        joint2 = _joint_target(ctx, out, prim, "joint2", required=False)
        coef = _polycoef(attrs)
        active = attrs.get(_ACTIVE, "bool")
        if joint1 is _SKIP or joint2 is _SKIP:
            continue
        if joint1 == joint2:
            ctx.fail(path, "newton:equality:joint1 and newton:equality:joint2 are the same joint")
        polycoef = _to_builder_units(ctx, coef, joint1, joint2)
        if not np.all(np.isfinite(polycoef)):
            attrs.fail(_POLYCOEF, f"{coef.tolist()} overflows in the joints' SI units")
        with ctx.at(path):
            out.equality[path] = ctx.builder.add_equality_constraint_joint(
                joint1,
                -1 if joint2 is None else joint2,
                polycoef=polycoef,
                key=path,
                enabled=True if active is None else active,
                **equality_params(ctx, path),
            )


def _tendon_target(ctx, prim, name: str, tendons: dict, required: bool):
    """Builder index of the tendon that ``rel newton:equality:<name>`` targets; None when not authored (and
    not required); _SKIP, with a warning, when the tendon was not imported."""
    found = _target(ctx, prim, name, "tendon", required)
    if found is None:
        return None
    path, (target_path, target) = str(prim.GetPath()), found
    if target.GetTypeName() != "MjcTendon":
        ctx.fail(path, f"newton:equality:{name} targets {target_path}, which is not an MjcTendon")
    if target_path not in tendons:
        ctx.warn(path, f"newton:equality:{name} targets {target_path}, which is not imported; constraint skipped")
        return _SKIP
    return tendons[target_path]


def add_tendon_equalities(ctx, out, tendons: dict) -> None:
    """Add a tendon equality for every ``newton:equality:type = "tendon"`` prim of the imported range: ``rel
    newton:equality:tendon1`` (required) and ``tendon2`` to MjcTendon prims, ``newton:equality:polycoef`` (L1 =
    sum c_k L2^k in stage lengths), ``newton:equality:active``, solref / solimp. The same errors as a joint
    equality's, with tendons for joints.

    Args:
        ctx: the ImportContext.
        out: the :class:`~.emit.Emitted` indices; ``out.equality`` gains the constraints by prim path.
        tendons: ``{MjcTendon prim path: builder tendon index}`` (:func:`.stage_tendons.add_tendons`).
    """
    for prim in ctx.prims.range_prims():
        attrs = ctx.prims[prim.GetPath()]
        if not attrs.has(_TYPE) or attrs.get(_TYPE, "token") != "tendon":
            continue
        path = attrs.path
        tendon1 = _tendon_target(ctx, prim, "tendon1", tendons, required=True)
        tendon2 = _tendon_target(ctx, prim, "tendon2", tendons, required=False)
        coef = _polycoef(attrs)
        active = attrs.get(_ACTIVE, "bool")
        if tendon1 is _SKIP or tendon2 is _SKIP:
            continue
        if tendon1 == tendon2:
            ctx.fail(path, "newton:equality:tendon1 and newton:equality:tendon2 are the same tendon")
        m = ctx.units.m
        polycoef = coef * m / (m if tendon2 is not None else 1.0) ** np.arange(5)  # stage lengths -> m
        if not np.all(np.isfinite(polycoef)):
            attrs.fail(_POLYCOEF, f"{coef.tolist()} overflows in SI units")
        with ctx.at(path):
            out.equality[path] = ctx.builder.add_equality_constraint_tendon(
                tendon1,
                -1 if tendon2 is None else tendon2,
                polycoef=polycoef,
                key=path,
                enabled=True if active is None else active,
                **equality_params(ctx, path),
            )
