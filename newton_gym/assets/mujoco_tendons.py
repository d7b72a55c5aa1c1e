"""Reading the tendons of a compiled ``mujoco.MjModel`` into :class:`~.description.TendonDesc`.

What MuJoCo holds (``tendon_adr``, ``tendon_num``, ``wrap_type``, ``wrap_objid``, ``wrap_prm`` and the
``tendon_*`` attributes) and what it becomes:

* a fixed tendon (every path element a joint): its joints and their coefficients ``wrap_prm``; its length
  is ``sum coef q`` with hinge coordinates in radians (MuJoCo's coefficients are per radian whatever the
  MJCF's ``<compiler angle>``);
* a spatial tendon whose path holds only sites: the sites in path order (straight segments);
* a spatial tendon whose path wraps around a sphere or cylinder geom or branches at a pulley is skipped
  with an AssetWarning naming it and what is not simulated (an actuator on it is then skipped too);
* the attributes as compiled: ``tendon_stiffness``, ``tendon_lengthspring`` (the spring's rest lengths;
  for MJCF's ``springlength = -1`` the compiler measured them at ``qpos_spring``), ``tendon_damping``,
  ``tendon_frictionloss``, ``tendon_armature``, ``tendon_limited`` / ``tendon_range`` / ``tendon_margin``,
  ``tendon_solref_lim`` / ``tendon_solimp_lim`` / ``tendon_solref_fri`` / ``tendon_solimp_fri``,
  ``tendon_group``;
* what the solver does not simulate is left out with an AssetWarning naming the tendon: polynomial
  stiffness and damping (``tendon_stiffnesspoly`` / ``tendon_dampingpoly``), plastic springs
  (``tendon_springyield``) and the limit on the actuator force along the tendon (``actuatorfrcrange``).

Tendon equality constraints are not converted (the MJCF converter warns about each).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import AssetWarning
from ._imports import require
from .description import TendonDesc
from .naming import NameScope

__all__ = ["describe_tendons"]


def describe_tendons(
    model, joint_of: dict[int, int], site_at: dict[int, tuple]
) -> tuple[list[TendonDesc], dict[int, int]]:
    """The fixed tendons and site-only spatial tendons of a compiled model, in MuJoCo order.

    Args:
        model: The compiled ``mujoco.MjModel``.
        joint_of: MuJoCo joint id -> index into ``RobotDesc.joints``.
        site_at: MuJoCo site id -> (index into ``RobotDesc.bodies`` or None for the world, site prim name).

    Returns:
        ``(tendons, tendon_of)``: the descriptions, and MuJoCo tendon id -> index into them (skipped
        tendons are absent).
    """
    mujoco = require("mujoco")
    wrap = mujoco.mjtWrap
    names = NameScope()
    tendons, tendon_of = [], {}
    for t in range(model.ntendon):
        label = model.tendon(t).name or f"#{t}"
        adr, num = int(model.tendon_adr[t]), int(model.tendon_num[t])
        kinds = [int(k) for k in model.wrap_type[adr : adr + num]]
        objects = [int(o) for o in model.wrap_objid[adr : adr + num]]
        if all(k == wrap.mjWRAP_JOINT for k in kinds):
            desc = _fixed(model, t, label, objects, joint_of)
        elif all(k == wrap.mjWRAP_SITE for k in kinds):
            desc = TendonDesc(name="", kind="spatial", sites=[site_at[s] for s in objects])
        else:
            _skip(model, label, kinds, objects, wrap)
            continue
        if desc is None:
            continue
        desc.name = names.claim(model.tendon(t).name, f"tendon_{t}")
        _fill(model, t, label, desc)
        tendon_of[t] = len(tendons)
        tendons.append(desc)
    return tendons, tendon_of


def _fixed(model, t: int, label: str, joints: list, joint_of: dict) -> TendonDesc | None:
    missing = [j for j in joints if j not in joint_of]
    if missing:
        warnings.warn(
            f"fixed tendon '{label}' couples joint '{model.joint(missing[0]).name}', which is not written as a "
            "joint; skipped",
            AssetWarning,
            stacklevel=4,
        )
        return None
    adr, num = int(model.tendon_adr[t]), int(model.tendon_num[t])
    return TendonDesc(
        name="",
        kind="fixed",
        joints=[joint_of[j] for j in joints],
        coefs=model.wrap_prm[adr : adr + num].astype(np.float64),
    )


def _skip(model, label: str, kinds: list, objects: list, wrap) -> None:
    """Warn that a spatial tendon with wrapping geoms or pulleys is not written, naming what it holds."""
    held = []
    for kind, obj in zip(kinds, objects):
        if kind in (wrap.mjWRAP_SPHERE, wrap.mjWRAP_CYLINDER):
            shape = "sphere" if kind == wrap.mjWRAP_SPHERE else "cylinder"
            held.append(f"wrapping {shape} geom '{model.geom(obj).name or obj}'")
        elif kind == wrap.mjWRAP_PULLEY:
            held.append("a pulley")
    listed = ", ".join(dict.fromkeys(held))
    warnings.warn(
        f"spatial tendon '{label}' holds {listed}: wrapping around geoms and pulleys are not simulated "
        "(spatial tendons through sites only); tendon skipped, with any actuator on it",
        AssetWarning,
        stacklevel=4,
    )


def _fill(model, t: int, label: str, desc: TendonDesc) -> None:
    """The compiled attributes of tendon ``t``; the ones the solver does not simulate are warned."""
    desc.stiffness = float(model.tendon_stiffness[t])
    desc.springlength = model.tendon_lengthspring[t].astype(np.float64)
    desc.damping = float(model.tendon_damping[t])
    desc.frictionloss = float(model.tendon_frictionloss[t])
    desc.armature = float(model.tendon_armature[t])
    desc.limited = bool(model.tendon_limited[t])
    desc.range = model.tendon_range[t].astype(np.float64)
    desc.margin = float(model.tendon_margin[t])
    desc.solreflimit = model.tendon_solref_lim[t].astype(np.float64)
    desc.solimplimit = model.tendon_solimp_lim[t].astype(np.float64)
    desc.solreffriction = model.tendon_solref_fri[t].astype(np.float64)
    desc.solimpfriction = model.tendon_solimp_fri[t].astype(np.float64)
    desc.group = int(model.tendon_group[t])
    unsimulated = []
    for field, what in (
        ("tendon_stiffnesspoly", "polynomial stiffness"),
        ("tendon_dampingpoly", "polynomial damping"),
        ("tendon_springyield", "a plastic spring (springyield)"),
    ):
        if hasattr(model, field) and np.any(getattr(model, field)[t]):
            unsimulated.append(what)
    if hasattr(model, "tendon_actfrclimited") and model.tendon_actfrclimited[t]:
        unsimulated.append("the actuator force range (actuatorfrcrange)")
    if unsimulated:
        warnings.warn(
            f"tendon '{label}': {', '.join(unsimulated)} not simulated; the tendon is written without",
            AssetWarning,
            stacklevel=4,
        )
