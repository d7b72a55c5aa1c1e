"""Conversions between newton_gym's conventions and other engines' and textbooks'.

newton_gym: quaternions (x, y, z, w); twists are COM twists in world frame, linear first
(v_com [m/s], omega [rad/s]); wrenches are world-frame, force first, moment about the COM.

Every function takes numpy arrays or torch tensors with any leading batch dimensions and returns the
same kind. Arguments named ``body_q`` are (..., 7) body-origin poses (p, q xyzw); ``com`` is the (..., 3)
COM offset in the body frame (MuJoCo's body_ipos). Rotations use
:func:`newton_gym.sim.hostmath.quat_rotate` (numpy arrays are computed in float64 there).
"""

from __future__ import annotations

import numpy as np

from .hostmath import _cross, _is_torch, quat_rotate

__all__ = [
    "quat_wxyz_to_xyzw",
    "quat_xyzw_to_wxyz",
    "com_twist_to_mujoco_free",
    "mujoco_free_to_com_twist",
    "com_twist_to_origin_twist",
    "com_twist_to_body_twist",
    "body_twist_to_com_twist",
    "com_twist_to_spatial_twist",
    "spatial_twist_to_com_twist",
    "shift_wrench",
]


def _cat(parts, like):
    if _is_torch(like):
        import torch

        return torch.cat(parts, dim=-1)
    return np.concatenate(parts, axis=-1)


def _rotate_inv(q, v):
    """v rotated by the inverse (conjugate) of unit quaternion q (x, y, z, w)."""
    return quat_rotate(_cat([-q[..., :3], q[..., 3:4]], q), v)


def quat_wxyz_to_xyzw(q):
    """(w, x, y, z) as used by MuJoCo and Isaac Lab -> newton_gym/Warp/USD (x, y, z, w)."""
    return _cat([q[..., 1:4], q[..., 0:1]], q)


def quat_xyzw_to_wxyz(q):
    """newton_gym (x, y, z, w) -> MuJoCo / Isaac Lab (w, x, y, z)."""
    return _cat([q[..., 3:4], q[..., 0:3]], q)


def com_twist_to_origin_twist(body_q, body_qd, com):
    """World-frame twist at the body origin: (v_origin, omega), v_origin = v_com - omega x R com."""
    w = body_qd[..., 3:6]
    r_w = quat_rotate(body_q[..., 3:7], com)
    return _cat([body_qd[..., 0:3] - _cross(w, r_w), w], body_qd)


def com_twist_to_mujoco_free(body_q, body_qd, com):
    """COM twist (world) -> MuJoCo free-joint qvel (6,): body-origin linear velocity in world frame,
    then angular velocity in the body frame."""
    origin = com_twist_to_origin_twist(body_q, body_qd, com)
    return _cat([origin[..., 0:3], _rotate_inv(body_q[..., 3:7], origin[..., 3:6])], body_qd)


def mujoco_free_to_com_twist(body_q, qvel, com):
    """MuJoCo free-joint qvel (origin linear velocity world, angular body) -> COM twist in world frame."""
    w = quat_rotate(body_q[..., 3:7], qvel[..., 3:6])
    r_w = quat_rotate(body_q[..., 3:7], com)
    return _cat([qvel[..., 0:3] + _cross(w, r_w), w], qvel)


def com_twist_to_body_twist(body_q, body_qd, com):
    """Modern Robotics body twist at the body origin, expressed in the body frame, as (v_b, omega_b)
    (linear first, like every twist here)."""
    origin = com_twist_to_origin_twist(body_q, body_qd, com)
    q = body_q[..., 3:7]
    return _cat([_rotate_inv(q, origin[..., 0:3]), _rotate_inv(q, origin[..., 3:6])], body_qd)


def body_twist_to_com_twist(body_q, body_twist, com):
    """Inverse of :func:`com_twist_to_body_twist`."""
    q = body_q[..., 3:7]
    w = quat_rotate(q, body_twist[..., 3:6])
    v_origin = quat_rotate(q, body_twist[..., 0:3])
    return _cat([v_origin + _cross(w, quat_rotate(q, com)), w], body_twist)


def com_twist_to_spatial_twist(body_q, body_qd, com):
    """Modern Robotics spatial twist (v_s, omega_s): v_s is the velocity of the body-fixed point at the
    world origin, v_s = v_com - omega x x_com (linear first)."""
    x_com = body_q[..., 0:3] + quat_rotate(body_q[..., 3:7], com)
    w = body_qd[..., 3:6]
    return _cat([body_qd[..., 0:3] - _cross(w, x_com), w], body_qd)


def spatial_twist_to_com_twist(body_q, spatial_twist, com):
    """Inverse of :func:`com_twist_to_spatial_twist`."""
    x_com = body_q[..., 0:3] + quat_rotate(body_q[..., 3:7], com)
    w = spatial_twist[..., 3:6]
    return _cat([spatial_twist[..., 0:3] + _cross(w, x_com), w], spatial_twist)


def shift_wrench(wrench, p_old, p_new):
    """Move a wrench's reference point from ``p_old`` to ``p_new`` (world frame, force first).

    The force is unchanged and the moment about the new point is tau + (p_old - p_new) x f, so that
    the wrench has the same effect on a rigid body (e.g. p_old = contact point, p_new = COM).
    """
    f = wrench[..., 0:3]
    return _cat([f, wrench[..., 3:6] + _cross(p_old - p_new, f)], wrench)
