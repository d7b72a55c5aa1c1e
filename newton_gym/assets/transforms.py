"""Small rigid-transform helpers on numpy arrays (host side, float64).

Quaternions are ``(w, x, y, z)`` as in MuJoCo; a pose is a pair ``(pos (3,) [m], quat (4,))`` mapping
local coordinates to the parent frame: ``p_parent = pos + rotate(quat, p_local)``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "quat_mul",
    "quat_conj",
    "quat_rotate",
    "quat_normalize",
    "quat_from_axis_angle",
    "quat_from_x_to",
    "quat_from_matrix",
    "quat_to_matrix",
    "pose_mul",
    "pose_inv",
    "IDENTITY_QUAT",
]

IDENTITY_QUAT = np.array([1.0, 0.0, 0.0, 0.0])


def quat_normalize(q) -> np.ndarray:
    """Unit quaternion (4,) with non-negative w (a canonical sign, for deterministic output)."""
    q = np.asarray(q, dtype=np.float64)
    q = q / np.linalg.norm(q)
    return -q if q[0] < 0.0 else q


def quat_mul(a, b) -> np.ndarray:
    """Hamilton product ``a * b`` (4,): rotate by ``b`` first, then by ``a``."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def quat_conj(q) -> np.ndarray:
    """Conjugate (4,), the inverse of a unit quaternion."""
    return np.array([q[0], -q[1], -q[2], -q[3]], dtype=np.float64)


def quat_rotate(q, v) -> np.ndarray:
    """Vector (3,) ``v`` rotated by unit quaternion ``q``."""
    w, u = q[0], np.asarray(q[1:], dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_from_axis_angle(axis, angle: float) -> np.ndarray:
    """Rotation (4,) by ``angle`` [rad] about the unit vector ``axis`` (3,)."""
    axis = np.asarray(axis, dtype=np.float64)
    half = 0.5 * angle
    return np.concatenate([[np.cos(half)], np.sin(half) * axis])


def quat_from_x_to(axis) -> np.ndarray:
    """Shortest rotation (4,) taking the +X axis onto the direction ``axis`` (3,).

    For ``axis`` opposite to +X the rotation is half a turn about +Z.
    """
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    x = np.array([1.0, 0.0, 0.0])
    dot = float(np.dot(x, a))
    if dot < -1.0 + 1e-12:
        return np.array([0.0, 0.0, 0.0, 1.0])
    q = np.concatenate([[1.0 + dot], np.cross(x, a)])
    return quat_normalize(q)


def quat_from_matrix(m) -> np.ndarray:
    """Unit quaternion (4,) of a proper rotation matrix (3, 3) (Shepperd's method)."""
    m = np.asarray(m, dtype=np.float64)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0.0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    return quat_normalize(q)


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix (3, 3) of a unit quaternion (w, x, y, z), acting on column vectors."""
    w, x, y, z = (float(v) for v in q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def pose_mul(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Composition ``a * b`` of two poses: ``b`` expressed in ``a``'s frame, brought to ``a``'s parent."""
    pos_a, quat_a = a
    pos_b, quat_b = b
    return np.asarray(pos_a) + quat_rotate(quat_a, pos_b), quat_mul(quat_a, quat_b)


def pose_inv(a: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of a pose."""
    pos, quat = a
    inv = quat_conj(quat)
    return -quat_rotate(inv, pos), inv
