"""Warp device functions shared by the solver stages: spatial algebra and small dense linear algebra.

Spatial vectors follow seed 002's ordering, linear first. Motion vectors (twists) and force vectors
(wrenches) inside the solver are expressed in world axes about a per-articulation reference point r
(the root body's COM at the start of the substep), which keeps float32 lever arms short.
Composite / body inertias about r are kept in the compact form (m, h, I): mass, first moment
h = m (c - r) and rotational inertia about r.
"""

from __future__ import annotations

import warp as wp

__all__ = [
    "inertia_mul", "cross_motion", "cross_force", "inertia_about", "point_jacobian", "cholesky_factor",
    "cholesky_solve_inplace", "quat_exp",
]


@wp.func
def inertia_mul(m: float, h: wp.vec3, inertia: wp.mat33, v: wp.spatial_vector):
    """Momentum of a rigid body (m, h, I about r) moving with twist v about r: (m v + w x h, I w + h x v)."""
    lin = wp.spatial_top(v)
    ang = wp.spatial_bottom(v)
    return wp.spatial_vector(m * lin + wp.cross(ang, h), inertia * ang + wp.cross(h, lin))


@wp.func
def cross_motion(v: wp.spatial_vector, s: wp.spatial_vector):
    """Motion cross product v x s, linear first (Featherstone RBDA eq. 2.31, reordered)."""
    vl = wp.spatial_top(v)
    vw = wp.spatial_bottom(v)
    sl = wp.spatial_top(s)
    sw = wp.spatial_bottom(s)
    return wp.spatial_vector(wp.cross(vw, sl) + wp.cross(vl, sw), wp.cross(vw, sw))


@wp.func
def cross_force(v: wp.spatial_vector, f: wp.spatial_vector):
    """Force cross product v x* f, linear first (Featherstone RBDA eq. 2.32, reordered)."""
    vl = wp.spatial_top(v)
    vw = wp.spatial_bottom(v)
    fl = wp.spatial_top(f)
    fw = wp.spatial_bottom(f)
    return wp.spatial_vector(wp.cross(vw, fl), wp.cross(vw, fw) + wp.cross(vl, fl))


@wp.func
def inertia_about(m: float, d: wp.vec3, inertia_com_world: wp.mat33):
    """Rotational inertia about a point at offset -d from the COM (parallel axis theorem)."""
    return inertia_com_world + m * (wp.dot(d, d) * wp.identity(3, dtype=float) - wp.outer(d, d))


@wp.func
def point_jacobian(s: wp.spatial_vector, lever: wp.vec3, direction: wp.vec3):
    """Rate of change of a body point's velocity along ``direction`` per unit DOF rate, for a DOF of
    motion subspace s about r and the point at ``lever`` = p - r."""
    return wp.dot(direction, wp.spatial_top(s) + wp.cross(wp.spatial_bottom(s), lever))


@wp.func
def cholesky_factor(a: wp.array(dtype=float), l_out: wp.array(dtype=float), off: int, n: int):
    """Dense Cholesky factor L (lower, row-major n x n at ``off``) of the SPD matrix a (Golub & Van Loan
    alg. 4.2.1). Non-positive pivots are clamped so a degenerate articulation cannot produce NaNs."""
    for j in range(n):
        s = a[off + j * n + j]
        for k in range(j):
            s -= l_out[off + j * n + k] * l_out[off + j * n + k]
        d = wp.sqrt(wp.max(s, 1.0e-12))
        l_out[off + j * n + j] = d
        inv_d = 1.0 / d
        for i in range(j + 1, n):
            t = a[off + i * n + j]
            for k in range(j):
                t -= l_out[off + i * n + k] * l_out[off + j * n + k]
            l_out[off + i * n + j] = t * inv_d
        for i in range(j):
            l_out[off + i * n + j] = 0.0


@wp.func
def cholesky_solve_inplace(l: wp.array(dtype=float), off: int, n: int, x: wp.array(dtype=float), x_off: int):
    """Solve L L^T x = b in place (b given in x[x_off : x_off + n])."""
    for i in range(n):
        s = x[x_off + i]
        for k in range(i):
            s -= l[off + i * n + k] * x[x_off + k]
        x[x_off + i] = s / l[off + i * n + i]
    for ii in range(n):
        i = n - 1 - ii
        s = x[x_off + i]
        for k in range(i + 1, n):
            s -= l[off + k * n + i] * x[x_off + k]
        x[x_off + i] = s / l[off + i * n + i]


@wp.func
def quat_exp(v: wp.vec3):
    """Rotation by angle |v| about v / |v| (the exponential map) as a quaternion (x, y, z, w)."""
    angle = wp.length(v)
    if angle < 1.0e-12:
        return wp.quat_identity()
    return wp.quat_from_axis_angle(v / angle, angle)
