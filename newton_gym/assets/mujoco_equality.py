"""Reading the equality constraints of a compiled ``mujoco.MjModel`` into :class:`~.description.EqualityDesc`.

What MuJoCo holds (``eq_type``, ``eq_objtype``, ``eq_obj1id``, ``eq_obj2id``, ``eq_data``, ``eq_solref``,
``eq_solimp``, ``eq_active0``) and what it becomes, with body1 / body2 MuJoCo's and the frames as in a
UsdPhysics joint (body0 = MuJoCo's body2, body1 = MuJoCo's body1):

* connect between bodies: ``eq_data[0:3]`` is the anchor in body1, ``eq_data[3:6]`` the same point in
  body2 at qpos0 -> frame1 at ``eq_data[0:3]``, frame0 at ``eq_data[3:6]``, both unrotated;
* weld between bodies: MuJoCo holds body1's point ``eq_data[3:6]`` on body2's point ``eq_data[0:3]`` (the
  anchor) and body2's orientation at body1's times ``eq_data[6:10]`` -> frame1 = (``eq_data[3:6]``,
  ``eq_data[6:10]``), frame0 = (``eq_data[0:3]``, identity); ``eq_data[10]`` is the torquescale;
* connect or weld between sites (``eq_objtype`` site): the sites' positions (connect) or frames (weld)
  coincide -> each frame is its site's pose in the site's body (``site_pos``, ``site_quat``);
* joint: MuJoCo holds ``q1 - ref1 = c0 + c1 (q2 - ref2) + ... + c4 (q2 - ref2)^4`` (refs: ``qpos0``); the
  description re-expands it about q2 = 0 with ref1 folded in, so that it reads in the joints' coordinates;
* tendon: MuJoCo holds ``L1 - L1_0 = c0 + c1 (L2 - L2_0) + ... + c4 (L2 - L2_0)^4`` (L_0:
  ``tendon_length0``, the lengths at qpos0); re-expanded about L2 = 0 with L1_0 folded in, like a joint's;
* flex equalities are left out (flexes are not converted; the MJCF converter warns about each, naming the
  file and line).

A world body becomes None. Quaternions: MuJoCo's (w, x, y, z) are the description's order already; they
are made unit with w >= 0.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import AssetWarning
from ..sim.conventions import quat_wxyz_to_xyzw, quat_xyzw_to_wxyz
from ..sim.hostmath import quat_canonical
from .description import EqualityDesc
from .naming import NameScope

__all__ = ["describe_equalities", "shift_polycoef", "SUPPORTED_EQUALITY_TYPES"]

_CONNECT, _WELD, _JOINT, _TENDON = 0, 1, 2, 3
_KIND = {_CONNECT: "connect", _WELD: "weld", _JOINT: "joint", _TENDON: "tendon"}
_OBJ_SITE = 6  # mjtObj.mjOBJ_SITE

#: MuJoCo ``mjtEq`` values the converter writes (connect, weld, joint, tendon).
SUPPORTED_EQUALITY_TYPES = tuple(_KIND)


def _unit_wxyz(q) -> np.ndarray:
    return quat_xyzw_to_wxyz(quat_canonical(quat_wxyz_to_xyzw(np.asarray(q, dtype=np.float64))))


def shift_polycoef(coef, ref1: float, ref2: float) -> np.ndarray:
    """MuJoCo's joint-equality polynomial ``q1 - ref1 = sum_k coef[k] (q2 - ref2)^k`` as coefficients of
    ``q1 = sum_j out[j] q2^j`` (binomial expansion of each power of ``q2 - ref2``).

    Args:
        coef: (5,) MuJoCo's ``polycoef``.
        ref1, ref2: the two joints' ``qpos0`` [rad | m].

    Returns:
        (5,) coefficients, constant first.
    """
    coef = np.asarray(coef, dtype=np.float64)
    out = np.zeros(5)
    for k in range(5):
        for j in range(k + 1):
            out[j] += coef[k] * math.comb(k, j) * (-ref2) ** (k - j)
    out[0] += ref1
    return out


def describe_equalities(
    model, body_index: dict[int, int], joint_index: dict[int, int], tendon_index: dict[int, int] | None = None
) -> list[EqualityDesc]:
    """The connect, weld, joint and tendon equalities of a compiled model, in MuJoCo order.

    Args:
        model: The compiled ``mujoco.MjModel``.
        body_index: MuJoCo body id -> index into ``RobotDesc.bodies`` (the world, id 0, is absent).
        joint_index: MuJoCo joint id -> index into ``RobotDesc.joints``.
        tendon_index: MuJoCo tendon id -> index into ``RobotDesc.tendons``.

    Returns:
        The descriptions; an equality whose joints or bodies were not written is skipped with a warning.
    """
    names = NameScope()
    out = []
    for e in range(model.neq):
        eq_type = int(model.eq_type[e])
        if eq_type not in _KIND:
            continue
        kind = _KIND[eq_type]
        label = model.eq(e).name or f"#{e}"
        if eq_type == _JOINT:
            desc = _joint_equality(model, e, joint_index, label)
        elif eq_type == _TENDON:
            desc = _tendon_equality(model, e, tendon_index or {}, label)
        else:
            desc = _body_equality(model, e, eq_type, body_index, label)
        if desc is None:
            continue
        desc.name = names.claim(model.eq(e).name, f"{kind}_{e}")
        desc.solref = model.eq_solref[e].astype(np.float64)
        desc.solimp = model.eq_solimp[e].astype(np.float64)
        desc.active = bool(model.eq_active0[e])
        out.append(desc)
    return out


def _body_equality(model, e: int, eq_type: int, body_index: dict, label: str) -> EqualityDesc | None:
    data = model.eq_data[e].astype(np.float64)
    ids = (int(model.eq_obj1id[e]), int(model.eq_obj2id[e]))
    identity = np.array([1.0, 0.0, 0.0, 0.0])
    if int(model.eq_objtype[e]) == _OBJ_SITE:
        bodies = [int(model.site_bodyid[s]) for s in ids]
        frames = [(model.site_pos[s].astype(np.float64), _unit_wxyz(model.site_quat[s])) for s in ids]
        if eq_type == _CONNECT:
            frames = [(pos, identity) for pos, _ in frames]
    else:
        bodies = list(ids)
        if eq_type == _CONNECT:
            frames = [(data[0:3], identity), (data[3:6], identity)]
        else:
            frames = [(data[3:6], _unit_wxyz(data[6:10])), (data[0:3], identity)]
    if bodies[0] == 0 and bodies[1] == 0:
        warnings.warn(f"equality '{label}' ties the world to itself; skipped", AssetWarning, stacklevel=4)
        return None
    (pos1, quat1), (pos0, quat0) = frames
    return EqualityDesc(
        name="",
        kind=_KIND[eq_type],
        body0=body_index.get(bodies[1]),
        body1=body_index.get(bodies[0]),
        pos0=np.array(pos0),
        quat0=np.array(quat0),
        pos1=np.array(pos1),
        quat1=np.array(quat1),
        torquescale=float(data[10]) if eq_type == _WELD else 1.0,
    )


def _coupling(coef, ref1: float, ref2: float | None) -> np.ndarray:
    """A joint or tendon coupling's MuJoCo polycoef (offsets from the qpos0 values ref1, ref2) in the
    coordinates themselves (:func:`shift_polycoef`); ref2 None: the first held alone at ref1 + c0."""
    coef = np.asarray(coef, dtype=np.float64)
    if ref2 is None:
        return np.array([ref1 + coef[0], 0.0, 0.0, 0.0, 0.0])
    return shift_polycoef(coef, ref1, ref2)


def _joint_equality(model, e: int, joint_index: dict, label: str) -> EqualityDesc | None:
    j1, j2 = int(model.eq_obj1id[e]), int(model.eq_obj2id[e])
    missing = [j for j in (j1, j2) if j >= 0 and j not in joint_index]
    if missing:
        warnings.warn(
            f"joint equality '{label}' couples joint '{model.joint(missing[0]).name}', which is not written "
            "as a joint; skipped",
            AssetWarning,
            stacklevel=4,
        )
        return None
    ref2 = float(model.qpos0[model.jnt_qposadr[j2]]) if j2 >= 0 else None
    polycoef = _coupling(model.eq_data[e][:5], float(model.qpos0[model.jnt_qposadr[j1]]), ref2)
    return EqualityDesc(
        name="",
        kind="joint",
        joint1=joint_index[j1],
        joint2=joint_index[j2] if j2 >= 0 else None,
        polycoef=polycoef,
    )


def _tendon_equality(model, e: int, tendon_index: dict, label: str) -> EqualityDesc | None:
    t1, t2 = int(model.eq_obj1id[e]), int(model.eq_obj2id[e])
    missing = [t for t in (t1, t2) if t >= 0 and t not in tendon_index]
    if missing:
        warnings.warn(
            f"tendon equality '{label}' couples tendon '{model.tendon(missing[0]).name or missing[0]}', which is "
            "not written; skipped",
            AssetWarning,
            stacklevel=4,
        )
        return None
    ref2 = float(model.tendon_length0[t2]) if t2 >= 0 else None
    polycoef = _coupling(model.eq_data[e][:5], float(model.tendon_length0[t1]), ref2)
    return EqualityDesc(
        name="",
        kind="tendon",
        tendon1=tendon_index[t1],
        tendon2=tendon_index[t2] if t2 >= 0 else None,
        polycoef=polycoef,
    )
