"""MuJoCo actuators: ``MjcActuator`` prims whose ``mjc:target`` is an imported joint or tendon.

They are recorded in ``result["actuators"]`` (the solvers and environments apply them): MuJoCo's
actuator force is ``gain * ctrl + bias`` along ``gear`` (a motor: force = gear[0] * ctrl, ctrl clamped
to ctrl_range when ctrl_limited; a position servo: gain kp, bias (0, -kp, -kv)). A joint actuator's record
has ``joint``, ``dof`` (its first DOF) and ``tendon`` -1; a tendon actuator's (``mjc:target`` an
``MjcTendon`` prim, :mod:`.stage_tendons`) has ``joint`` None, ``dof`` -1, ``dof_count`` 0 and ``tendon``
(the builder's tendon index), the form :class:`~newton_gym.solvers.Actuators` takes (``dof`` -1 with
``tendon``). Actuators the solver's force law cannot express (other gain / bias types, activation
dynamics other than integrator / filter / filterexact (MuJoCo's muscle and user dynamics), multi-DOF joints)
are skipped with a warning. ``act_range`` / ``act_limited`` / ``act_early`` carry MuJoCo's actrange, actlimited
and actearly. An armature authored on a joint actuator
(``newton:armature``) is added to its joint's DOFs (seed 001); on a tendon actuator it is warned and left
out. Other transmissions (sites, bodies) are skipped with a warning.
"""

from __future__ import annotations

import numpy as np

from ..solvers.smooth.passive import DYN_TYPES
from .stage_tendons import limited_flag

__all__ = ["import_actuators", "ACTUATOR_KEYS"]

ACTUATOR_KEYS = (
    "gear",
    "ctrl_range_min",
    "ctrl_range_max",
    "ctrl_limited",
    "force_range_min",
    "force_range_max",
    "force_limited",
    "gain_type",
    "gain_prm",
    "bias_type",
    "bias_prm",
    "dyn_type",
    "dyn_prm",
    "act_limited",
    "act_range_min",
    "act_range_max",
    "act_early",
)


def _record(ctx, path, target, joint=None, tendon=None):
    """The record of an actuator on ``joint`` or (joint None) on ``tendon`` (builder indices)."""
    v = {k: ctx.resolve("actuator", k, path) for k in ACTUATOR_KEYS}
    tj = ctx.builder.tables["joint"]
    gear = [float(x) for x in v["gear"]] + [0.0] * max(0, 6 - len(v["gear"]))
    ctrl = (float(v["ctrl_range_min"]), float(v["ctrl_range_max"]))
    force = (float(v["force_range_min"]), float(v["force_range_max"]))
    act_range = (float(v["act_range_min"]), float(v["act_range_max"]))
    on_joint = joint is not None
    return {
        "path": path,
        "target": target,
        "joint": joint,
        "dof": int(tj.value("qd_start", joint)) if on_joint else -1,
        "dof_count": int(tj.value("lin_count", joint)) + int(tj.value("ang_count", joint)) if on_joint else 0,
        "tendon": -1 if on_joint else int(tendon),
        "gear": gear[:6],
        "ctrl_range": ctrl,
        "ctrl_limited": limited_flag(v["ctrl_limited"], *ctrl),
        "force_range": force,
        "force_limited": limited_flag(v["force_limited"], *force),
        "gain_type": v["gain_type"],
        "gain_prm": [float(x) for x in v["gain_prm"]],
        "bias_type": v["bias_type"],
        "bias_prm": [float(x) for x in v["bias_prm"]],
        "dyn_type": v["dyn_type"],
        "dyn_prm": [float(x) for x in v["dyn_prm"]],
        "act_range": act_range,
        "act_limited": limited_flag(v["act_limited"], *act_range),
        "act_early": str(v["act_early"]).lower() in ("true", "1"),
    }


def _unsupported(record) -> str:
    """What keeps an actuator record from the solver's force law (empty when nothing does)."""
    if record["gain_type"] != "fixed":
        return f"gainType '{record['gain_type']}'"
    if record["bias_type"] not in ("none", "affine"):
        return f"biasType '{record['bias_type']}'"
    if record["dyn_type"] not in DYN_TYPES:
        return f"dynType '{record['dyn_type']}'"
    if record["joint"] is not None and record["dof_count"] != 1:
        return f"on a joint with {record['dof_count']} DOFs"
    return ""


def _add_armature(ctx, path, record):
    armature = ctx.resolve("actuator", "armature", path)
    if not armature:
        return
    if record["joint"] is None:
        ctx.warn(path, f"an actuator armature ({armature}) on a tendon actuator is not simulated; left out")
        return
    td = ctx.builder.tables["dof"]
    start, n = record["dof"], record["dof_count"]
    angular_start = start + int(ctx.builder.tables["joint"].value("lin_count", record["joint"]))
    values = td.get("armature")[start : start + n].copy()
    for k in range(n):
        factor = ctx.units.dof("armature", start + k >= angular_start)
        values[k] += float(armature) * factor
    td.set("armature", np.arange(start, start + n), values)
    record["armature"] = float(armature)


def import_actuators(ctx, joint_map: dict, tendon_map: dict | None = None) -> list:
    """Records of the MjcActuator prims in range that drive an imported joint or tendon.

    Args:
        ctx: the ImportContext.
        joint_map: ``{joint prim path: joint index}``.
        tendon_map: ``{MjcTendon prim path: tendon index}`` (:func:`.stage_tendons.add_tendons`).
    """
    tendon_map = tendon_map or {}
    prims = [p for p in ctx.prims.range_prims() if p.GetTypeName() == "MjcActuator"]
    if not prims:
        return []
    if not any(r.spec("actuator", "gear") for r in ctx.resolvers):
        ctx.warn(
            str(prims[0].GetPath()),
            "MjcActuator prims are only read with SchemaResolverMjc among the schema_resolvers; actuators not imported",
        )
        return []
    out = []
    for prim in prims:
        path = str(prim.GetPath())
        rel = prim.GetRelationship("mjc:target")
        targets = [str(t) for t in rel.GetTargets()] if rel else []
        if not targets:
            ctx.warn(path, "MjcActuator has no mjc:target; skipped")
            continue
        if targets[0] in joint_map:
            record = _record(ctx, path, targets[0], joint=joint_map[targets[0]])
        elif targets[0] in tendon_map:
            record = _record(ctx, path, targets[0], tendon=tendon_map[targets[0]])
        else:
            ctx.warn(
                path,
                f"MjcActuator target {targets[0]} is not an imported joint or tendon (only joint and tendon "
                "transmissions are supported); skipped",
            )
            continue
        unsupported = _unsupported(record)
        if unsupported:
            ctx.warn(
                path,
                f"MjcActuator {unsupported} is not supported (joint and tendon actuators with a fixed gain, no "
                "or affine bias and no, integrator or filter activation dynamics, on a one-DOF joint or a tendon, "
                "are); skipped",
            )
            continue
        _add_armature(ctx, path, record)
        out.append(record)
    return out
