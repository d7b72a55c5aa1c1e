"""Host-side (numpy) rigid-body math in newton_gym's conventions.

Quaternions are stored (x, y, z, w); transforms are 7-vectors (px, py, pz, qx, qy, qz, qw).
Functions accept a single item or a batch with leading dimensions.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError

__all__ = [
    "quat_identity",
    "quat_mul",
    "quat_conj",
    "quat_rotate",
    "quat_to_matrix",
    "quat_from_matrix",
    "quat_from_axis_angle",
    "quat_between",
    "transform_identity",
    "transform_mul",
    "transform_inverse",
    "transform_point",
    "normalize_transform",
]


def quat_identity() -> np.ndarray:
    return np.array([0.0, 0.0, 0.0, 1.0])


def quat_mul(a, b) -> np.ndarray:
    """Hamilton product a * b of (x, y, z, w) quaternions."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    av, aw = a[..., :3], a[..., 3:4]
    bv, bw = b[..., :3], b[..., 3:4]
    v = aw * bv + bw * av + np.cross(av, bv)
    w = aw * bw - np.sum(av * bv, axis=-1, keepdims=True)
    return np.concatenate([v, w], axis=-1)


def quat_conj(q) -> np.ndarray:
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([-q[..., :3], q[..., 3:4]], axis=-1)


def quat_rotate(q, v) -> np.ndarray:
    """Rotate vector(s) v by unit quaternion(s) q."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    qv, qw = q[..., :3], q[..., 3:4]
    t = 2.0 * np.cross(qv, v)
    return v + qw * t + np.cross(qv, t)


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix (..., 3, 3) of unit quaternion(s) (x, y, z, w)."""
    q = np.asarray(q, dtype=np.float64)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def quat_from_matrix(m) -> np.ndarray:
    """Unit quaternion (x, y, z, w) of a 3x3 rotation matrix (Shepperd's method), w >= 0."""
    m = np.asarray(m, dtype=np.float64)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = 2.0 * np.sqrt(tr + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return q if q[3] >= 0 else -q


def quat_from_axis_angle(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([axis * np.sin(0.5 * angle), [np.cos(0.5 * angle)]])


def quat_between(a, b) -> np.ndarray:
    """Shortest-arc unit quaternion rotating unit vector a onto unit vector b."""
    a = np.asarray(a, dtype=np.float64) / np.linalg.norm(a)
    b = np.asarray(b, dtype=np.float64) / np.linalg.norm(b)
    d = float(np.dot(a, b))
    if d < -1.0 + 1e-12:
        ortho = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(ortho) < 1e-6:
            ortho = np.cross(a, [0.0, 1.0, 0.0])
        return quat_from_axis_angle(ortho, np.pi)
    q = np.concatenate([np.cross(a, b), [1.0 + d]])
    return q / np.linalg.norm(q)


def transform_identity() -> np.ndarray:
    return np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])


def transform_mul(a, b) -> np.ndarray:
    """Composition a * b of 7-vector transforms (apply b first, then a)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    p = a[..., :3] + quat_rotate(a[..., 3:], b[..., :3])
    return np.concatenate([p, quat_mul(a[..., 3:], b[..., 3:])], axis=-1)


def transform_inverse(t) -> np.ndarray:
    t = np.asarray(t, dtype=np.float64)
    qi = quat_conj(t[..., 3:])
    return np.concatenate([-quat_rotate(qi, t[..., :3]), qi], axis=-1)


def transform_point(t, p) -> np.ndarray:
    t = np.asarray(t, dtype=np.float64)
    return t[..., :3] + quat_rotate(t[..., 3:], p)


def normalize_transform(t) -> np.ndarray:
    """Coerce a transform given as a 7-sequence, a (p, q) pair or a warp transform to a float64 7-vector
    with a unit quaternion. None gives the identity."""
    if t is None:
        return transform_identity()
    if isinstance(t, (tuple, list)) and len(t) == 2:
        t = np.concatenate([np.asarray(t[0], dtype=np.float64), np.asarray(t[1], dtype=np.float64)])
    arr = np.array(t, dtype=np.float64).reshape(-1)
    if arr.shape != (7,):
        raise ModelBuildError(f"transform must have 7 values (px, py, pz, qx, qy, qz, qw), got {arr.shape}")
    n = np.linalg.norm(arr[3:])
    if not np.isfinite(arr).all() or n < 1e-9:
        raise ModelBuildError(f"transform {arr.tolist()} is not finite or has a zero quaternion")
    arr[3:] /= n
    return arr
