"""Host-side (numpy, float64) rigid-body math in newton_gym's conventions: the package's one set of
host quaternion and transform helpers.

Quaternions are stored (x, y, z, w); transforms are 7-vectors (px, py, pz, qx, qy, qz, qw) mapping
local coordinates to the parent frame: ``p_parent = p + rotate(q, p_local)``. Data in another order
(MuJoCo's and Gf.Quat's (w, x, y, z)) is reordered where it is read or written, with
:func:`newton_gym.sim.conventions.quat_wxyz_to_xyzw` / ``quat_xyzw_to_wxyz``.
Functions accept a single item or a batch with leading dimensions unless they say otherwise;
:func:`quat_rotate` also takes torch tensors.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError

__all__ = [
    "quat_identity",
    "quat_mul",
    "quat_conj",
    "quat_rotate",
    "quat_canonical",
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
    """Hamilton product a * b of (x, y, z, w) quaternions: rotate by b first, then by a."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = (a[..., i] for i in range(4))
    bx, by, bz, bw = (b[..., i] for i in range(4))
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def quat_conj(q) -> np.ndarray:
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([-q[..., :3], q[..., 3:4]], axis=-1)


def _is_torch(x) -> bool:
    """True for a torch tensor (checked by module name, so numpy-only callers never import torch)."""
    return type(x).__module__.startswith("torch")


def _cross(a, b):
    """Cross product over the last axis of numpy arrays or of torch tensors."""
    if _is_torch(a):
        import torch

        return torch.linalg.cross(a, b, dim=-1)
    return np.cross(a, b)


def quat_rotate(q, v):
    """Vectors v (..., 3) rotated by unit quaternions q (..., 4) (x, y, z, w), broadcast together.

    The one quaternion rotation of the host code (:mod:`newton_gym.sim.conventions` uses it too): numpy
    arrays and sequences are computed in float64 and give a numpy array; torch tensors (both arguments)
    keep their dtype and device.
    """
    if not _is_torch(q):
        q = np.asarray(q, dtype=np.float64)
        v = np.asarray(v, dtype=np.float64)
    qv, qw = q[..., :3], q[..., 3:4]
    t = 2.0 * _cross(qv, v)
    return v + qw * t + _cross(qv, t)


def quat_canonical(q) -> np.ndarray:
    """Unit quaternion(s) with w >= 0: of the two quaternions q and -q of one rotation, a fixed one,
    for deterministic output.

    The norm sums the squares w first, as MuJoCo's ``mju_normalize4`` does, so a quaternion read from
    MuJoCo normalizes to the same bits as in MuJoCo's (w, x, y, z) order.
    """
    q = np.asarray(q, dtype=np.float64)
    x, y, z, w = q[..., 0:1], q[..., 1:2], q[..., 2:3], q[..., 3:4]
    q = q / np.sqrt(w * w + x * x + y * y + z * z)
    return np.where(q[..., 3:4] < 0.0, -q, q)


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
    return quat_canonical(q)


def quat_from_axis_angle(axis, angle: float) -> np.ndarray:
    """Rotation by ``angle`` [rad] about ``axis`` (3,) (normalized here)."""
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([axis * np.sin(0.5 * angle), [np.cos(0.5 * angle)]])


def quat_between(a, b) -> np.ndarray:
    """Shortest-arc unit quaternion (w >= 0) rotating the direction of a onto that of b.

    For opposite directions it is an exact half turn (w = 0) about a x +X, or a x +Y when a is along X
    (so from +X to -X it is a half turn about +Z).
    """
    a = np.asarray(a, dtype=np.float64) / np.linalg.norm(a)
    b = np.asarray(b, dtype=np.float64) / np.linalg.norm(b)
    d = float(np.dot(a, b))
    if d < -1.0 + 1e-12:
        ortho = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(ortho) < 1e-6:
            ortho = np.cross(a, [0.0, 1.0, 0.0])
        return np.concatenate([ortho / np.linalg.norm(ortho), [0.0]])
    return quat_canonical(np.concatenate([np.cross(a, b), [1.0 + d]]))


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
