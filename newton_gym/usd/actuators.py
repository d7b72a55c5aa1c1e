"""MuJoCo actuators: ``MjcActuator`` prims whose ``mjc:target`` is an imported joint.

They are recorded in ``result["actuators"]`` (the solvers and environments apply them): MuJoCo's
actuator force is ``gain * ctrl + bias`` along ``gear`` (a motor: force = gear[0] * ctrl, ctrl clamped
to ctrl_range when ctrl_limited; a position servo: gain kp, bias (0, -kp, -kv)). Actuators the solver's
force law cannot express (other gain / bias types, activation dynamics, multi-DOF joints) are skipped
with a warning. An armature authored on an actuator (``newton:armature``) is added
to its joint's DOFs (seed 001). Transmissions other than joints (tendons, sites, bodies) are skipped
with a warning.
"""

from __future__ import annotations

import numpy as np

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
)


def _limited(flag, lo, hi) -> bool:
    """MJCF's "true" / "false" / "auto" (auto: limited when the range is non-empty)."""
    if isinstance(flag, str):
        flag = flag.lower()
        if flag in ("true", "false"):
            return flag == "true"
        return lo < hi
    return bool(flag)


def _record(ctx, path, target, joint):
    v = {k: ctx.resolve("actuator", k, path) for k in ACTUATOR_KEYS}
    tj = ctx.builder.tables["joint"]
    gear = [float(x) for x in v["gear"]] + [0.0] * max(0, 6 - len(v["gear"]))
    ctrl = (float(v["ctrl_range_min"]), float(v["ctrl_range_max"]))
    force = (float(v["force_range_min"]), float(v["force_range_max"]))
    return {
        "path": path,
        "target": target,
        "joint": joint,
        "dof": int(tj.value("qd_start", joint)),
        "dof_count": int(tj.value("lin_count", joint)) + int(tj.value("ang_count", joint)),
        "gear": gear[:6],
        "ctrl_range": ctrl,
        "ctrl_limited": _limited(v["ctrl_limited"], *ctrl),
        "force_range": force,
        "force_limited": _limited(v["force_limited"], *force),
        "gain_type": v["gain_type"],
        "gain_prm": [float(x) for x in v["gain_prm"]],
        "bias_type": v["bias_type"],
        "bias_prm": [float(x) for x in v["bias_prm"]],
        "dyn_type": v["dyn_type"],
        "dyn_prm": [float(x) for x in v["dyn_prm"]],
    }


def _unsupported(record) -> str:
    """What keeps an actuator record from the solver's force law (empty when nothing does)."""
    if record["gain_type"] != "fixed":
        return f"gainType '{record['gain_type']}'"
    if record["bias_type"] not in ("none", "affine"):
        return f"biasType '{record['bias_type']}'"
    if record["dyn_type"] != "none":
        return f"dynType '{record['dyn_type']}'"
    if record["dof_count"] != 1:
        return f"on a joint with {record['dof_count']} DOFs"
    return ""


def _add_armature(ctx, path, record):
    armature = ctx.resolve("actuator", "armature", path)
    if not armature:
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


def import_actuators(ctx, joint_map: dict) -> list:
    """Records of the MjcActuator prims in range that drive an imported joint."""
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
        if targets[0] not in joint_map:
            ctx.warn(
                path,
                f"MjcActuator target {targets[0]} is not an imported joint (only joint transmissions "
                "are supported); skipped",
            )
            continue
        record = _record(ctx, path, targets[0], joint_map[targets[0]])
        unsupported = _unsupported(record)
        if unsupported:
            ctx.warn(
                path,
                f"MjcActuator {unsupported} is not supported (joint actuators with a fixed gain, no or "
                "affine bias and no activation dynamics on a one-DOF joint are); skipped",
            )
            continue
        _add_armature(ctx, path, record)
        out.append(record)
    return out
