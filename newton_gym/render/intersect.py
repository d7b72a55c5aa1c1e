"""Ray-shape intersection device functions, in the shape's local frame (newton_gym's conventions).

Each ``ray_*`` function takes the ray origin ``o`` [m] and direction ``d`` (not necessarily unit) in
the shape frame and returns ``(t, n)``: the smallest ray parameter t >= T_MIN where the ray meets the
surface (point = o + t * d), or MISS, and the outward unit normal there in the shape frame. A ray
starting inside a closed shape reports where it leaves it.
"""

from __future__ import annotations

import warp as wp

__all__ = [
    "MISS",
    "T_MIN",
    "ray_sphere",
    "ray_box",
    "ray_capsule",
    "ray_cylinder",
    "ray_cone",
    "ray_plane",
    "ray_mesh",
    "ray_bounding_sphere",
]

MISS = wp.constant(1.0e30)
T_MIN = wp.constant(1.0e-5)
_TINY = wp.constant(1.0e-12)


@wp.func
def _quadratic_first(a: float, b_half: float, c: float):
    """Smallest root >= T_MIN of a t^2 + 2 b_half t + c = 0, else MISS; the second root as well."""
    t0 = float(MISS)
    t1 = float(MISS)
    if wp.abs(a) < _TINY:
        if wp.abs(b_half) > _TINY:
            t0 = -c / (2.0 * b_half)
    else:
        disc = b_half * b_half - a * c
        if disc >= 0.0:
            s = wp.sqrt(disc)
            r0 = (-b_half - s) / a
            r1 = (-b_half + s) / a
            t0 = wp.min(r0, r1)
            t1 = wp.max(r0, r1)
    return t0, t1


@wp.func
def _first_root_within(o: wp.vec3, d: wp.vec3, t0: float, t1: float, half_height: float):
    """The first of the roots t0 <= t1 (as _quadratic_first gives them) at or after T_MIN whose point
    o + t d lies within |z| <= half_height, else MISS."""
    for k in range(2):
        t = t0
        if k == 1:
            t = t1
        if t >= T_MIN and t < MISS:
            p = o + t * d
            if wp.abs(p[2]) <= half_height:
                return t
    return MISS


@wp.func
def _nearer(t: float, n: wp.vec3, t_other: float, n_other: wp.vec3):
    """The nearer of the hits (t, n) and (t_other, n_other); the first one on a tie."""
    if t_other < t:
        return t_other, n_other
    return t, n


@wp.func
def ray_sphere(o: wp.vec3, d: wp.vec3, radius: float):
    """Sphere of ``radius`` [m] centred at the origin."""
    t0, t1 = _quadratic_first(wp.dot(d, d), wp.dot(o, d), wp.dot(o, o) - radius * radius)
    t = t0
    if t < T_MIN:
        t = t1
    if t < T_MIN or t >= MISS:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    return t, wp.normalize(o + t * d)


@wp.func
def ray_box(o: wp.vec3, d: wp.vec3, half: wp.vec3):
    """Axis-aligned box with half extents ``half`` [m] (slab method)."""
    t_near = float(-MISS)
    t_far = float(MISS)
    axis_near = int(0)
    axis_far = int(0)
    for i in range(3):
        if wp.abs(d[i]) < _TINY:
            if wp.abs(o[i]) > half[i]:
                return MISS, wp.vec3(0.0, 0.0, 1.0)
        else:
            ta = (-half[i] - o[i]) / d[i]
            tb = (half[i] - o[i]) / d[i]
            lo = wp.min(ta, tb)
            hi = wp.max(ta, tb)
            if lo > t_near:
                t_near = lo
                axis_near = i
            if hi < t_far:
                t_far = hi
                axis_far = i
    if t_near > t_far or t_far < T_MIN:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    n = wp.vec3(0.0, 0.0, 0.0)
    if t_near >= T_MIN:
        n[axis_near] = -wp.sign(d[axis_near])
        return t_near, n
    n[axis_far] = wp.sign(d[axis_far])
    return t_far, n


@wp.func
def _ray_tube(o: wp.vec3, d: wp.vec3, radius: float, half_height: float):
    """Side of the open cylinder x^2 + y^2 = radius^2, |z| <= half_height."""
    a = d[0] * d[0] + d[1] * d[1]
    t0, t1 = _quadratic_first(a, o[0] * d[0] + o[1] * d[1], o[0] * o[0] + o[1] * o[1] - radius * radius)
    if a < _TINY:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    t = _first_root_within(o, d, t0, t1, half_height)
    if t >= MISS:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    p = o + t * d
    return t, wp.normalize(wp.vec3(p[0], p[1], 0.0))


@wp.func
def _ray_disk(o: wp.vec3, d: wp.vec3, radius: float, z: float, nz: float):
    """Disk of ``radius`` in the plane at height ``z`` with normal (0, 0, nz)."""
    if wp.abs(d[2]) < _TINY:
        return MISS, wp.vec3(0.0, 0.0, nz)
    t = (z - o[2]) / d[2]
    p = o + t * d
    if t < T_MIN or p[0] * p[0] + p[1] * p[1] > radius * radius:
        return MISS, wp.vec3(0.0, 0.0, nz)
    return t, wp.vec3(0.0, 0.0, nz)


@wp.func
def ray_capsule(o: wp.vec3, d: wp.vec3, radius: float, half_height: float):
    """Capsule along Z: a tube of ``half_height`` [m] (caps excluded) closed by two hemispheres.

    The capsule is convex, so the nearest hit among the tube and the two whole cap spheres lies on its
    surface: hits of a cap sphere inside the tube come after the ray has entered the capsule.
    """
    t, n = _ray_tube(o, d, radius, half_height)
    c = wp.vec3(0.0, 0.0, half_height)
    ts, ns = ray_sphere(o - c, d, radius)
    t, n = _nearer(t, n, ts, ns)
    ts, ns = ray_sphere(o + c, d, radius)
    return _nearer(t, n, ts, ns)


@wp.func
def ray_cylinder(o: wp.vec3, d: wp.vec3, radius: float, half_height: float):
    """Solid cylinder along Z of ``radius`` and ``half_height`` [m]."""
    t, n = _ray_tube(o, d, radius, half_height)
    tc, nc = _ray_disk(o, d, radius, half_height, 1.0)
    t, n = _nearer(t, n, tc, nc)
    tc, nc = _ray_disk(o, d, radius, -half_height, -1.0)
    return _nearer(t, n, tc, nc)


@wp.func
def ray_cone(o: wp.vec3, d: wp.vec3, radius: float, half_height: float):
    """Solid cone along Z: base of ``radius`` at z = -half_height, apex at z = +half_height.

    The side is x^2 + y^2 = k^2 (h - z)^2 with k = radius / (2 h); substituting the ray gives a
    quadratic in t. Its outward normal is the gradient (x, y, k^2 (h - z)).
    """
    k2 = (radius / (2.0 * half_height)) * (radius / (2.0 * half_height))
    u = half_height - o[2]
    a = d[0] * d[0] + d[1] * d[1] - k2 * d[2] * d[2]
    b_half = o[0] * d[0] + o[1] * d[1] + k2 * u * d[2]
    c = o[0] * o[0] + o[1] * o[1] - k2 * u * u
    t0, t1 = _quadratic_first(a, b_half, c)
    t = _first_root_within(o, d, t0, t1, half_height)
    n = wp.vec3(0.0, 0.0, 1.0)
    if t < MISS:
        p = o + t * d
        n = wp.normalize(wp.vec3(p[0], p[1], k2 * (half_height - p[2])))
    tb, nb = _ray_disk(o, d, radius, -half_height, -1.0)
    return _nearer(t, n, tb, nb)


@wp.func
def ray_plane(o: wp.vec3, d: wp.vec3, width: float, length: float):
    """Plane z = 0 with normal +Z; ``width`` x ``length`` [m] full extents along X and Y, 0 = infinite."""
    if wp.abs(d[2]) < _TINY:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    t = -o[2] / d[2]
    p = o + t * d
    if t < T_MIN:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    if width > 0.0 and wp.abs(p[0]) > 0.5 * width:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    if length > 0.0 and wp.abs(p[1]) > 0.5 * length:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    return t, wp.vec3(0.0, 0.0, 1.0)


@wp.func
def ray_mesh(o: wp.vec3, d: wp.vec3, scale: wp.vec3, mesh: wp.uint64, t_max: float):
    """Nearest hit below ``t_max`` on a ``wp.Mesh`` (BVH query) scaled by ``scale``.

    The ray is mapped into the unscaled mesh frame (o / s, d / s), which keeps its parameter t; the
    normal maps back by the inverse transpose of the scale, n / s. Both triangle sides are hit.
    """
    q = wp.mesh_query_ray(mesh, wp.cw_div(o, scale), wp.cw_div(d, scale), t_max)
    if not q.result or q.t < T_MIN:
        return MISS, wp.vec3(0.0, 0.0, 1.0)
    return q.t, wp.normalize(wp.cw_div(q.normal, scale))


@wp.func
def ray_bounding_sphere(o: wp.vec3, d: wp.vec3, center: wp.vec3, radius: float, t_best: float):
    """Whether a ray with unit ``d`` can meet a sphere (centre, radius) at some t < ``t_best``.

    A negative radius stands for an unbounded shape and always passes.
    """
    if radius < 0.0:
        return True
    oc = center - o
    t_mid = wp.dot(oc, d)
    miss2 = wp.dot(oc, oc) - t_mid * t_mid
    if miss2 > radius * radius:
        return False
    return t_mid + radius >= T_MIN and t_mid - radius < t_best
