"""Narrow-phase geometry: signed distances of points to primitives and feature points of primitives.

A pair (A, B) with type A <= type B is resolved feature by feature: a feature is a point of one shape
with a radius (the sphere centre with its radius, capsule end points with the capsule radius, box
corners and cylinder rim points with radius 0), tested against the signed-distance function of the
other shape. Exact for sphere-*, capsule-plane, box-plane, cylinder-plane and cone-plane; box-box,
capsule-box and cylinder pairs are approximated by their corner / rim / end points (edge-edge contacts
are missed). Distances are signed (negative = penetration) and normals point from A to B. Pairs with a
mesh (other than mesh-plane) are resolved as convex hulls by :mod:`.collision_convex`, as are pairs
with an ellipsoid other than ellipsoid-plane (exact here: the ellipsoid's support point toward the
plane).
"""

from __future__ import annotations

import warp as wp

from ...sim.types import GeoType

__all__ = [
    "point_distance",
    "shape_feature",
    "segment_closest",
    "feature_count",
    "emit_contact",
    "shape_pose",
    "is_convex_pair",
    "convex_pair",
    "SUPPORTED",
]

PLANE = wp.constant(int(GeoType.PLANE))
SPHERE = wp.constant(int(GeoType.SPHERE))
CAPSULE = wp.constant(int(GeoType.CAPSULE))
BOX = wp.constant(int(GeoType.BOX))
CYLINDER = wp.constant(int(GeoType.CYLINDER))
CONE = wp.constant(int(GeoType.CONE))
MESH = wp.constant(int(GeoType.MESH))
ELLIPSOID = wp.constant(int(GeoType.ELLIPSOID))
_CONVEX_B = (GeoType.MESH, GeoType.ELLIPSOID)


def is_convex_pair(type_a: int, type_b: int) -> bool:
    """True for a pair (type_a <= type_b) resolved by :mod:`.collision_convex`: a mesh hull or an
    ellipsoid against anything but a plane (host twin of :func:`convex_pair`)."""
    return type_b in _CONVEX_B and type_a != GeoType.PLANE


@wp.func
def convex_pair(ta: int, tb: int):
    """True for a pair (ta <= tb) resolved by :mod:`.collision_convex` (see :func:`is_convex_pair`)."""
    return (tb == MESH or tb == ELLIPSOID) and ta != PLANE


def feature_count(type_a: int, type_b: int) -> int:
    """Contact slots of a pair with type_a <= type_b (0: unsupported pair)."""
    a, b = GeoType(type_a), GeoType(type_b)
    if b == GeoType.ELLIPSOID:  # exact support point on a plane; one GJK / EPA contact otherwise
        return 0 if a == GeoType.CONE else 1
    if b == GeoType.MESH and a != GeoType.PLANE:  # convex hull pairs (collision_convex): manifold size
        return {GeoType.SPHERE: 1, GeoType.CAPSULE: 2, GeoType.BOX: 4, GeoType.CYLINDER: 4, GeoType.MESH: 4}.get(a, 0)
    if a == GeoType.PLANE:
        return {
            GeoType.SPHERE: 1,
            GeoType.CAPSULE: 2,
            GeoType.BOX: 8,
            GeoType.CYLINDER: 6,
            GeoType.CONE: 4,
            GeoType.MESH: 4,
        }.get(b, 0)
    if a == GeoType.SPHERE:
        return 1 if b in (GeoType.SPHERE, GeoType.CAPSULE, GeoType.BOX, GeoType.CYLINDER) else 0
    if a == GeoType.CAPSULE:
        return 3 if b in (GeoType.CAPSULE, GeoType.BOX, GeoType.CYLINDER) else 0
    if a == GeoType.BOX:
        return {GeoType.BOX: 16, GeoType.CYLINDER: 14}.get(b, 0)
    if a == GeoType.CYLINDER and b == GeoType.CYLINDER:
        return 12
    return 0


SUPPORTED = (
    "plane-{sphere, capsule, box, cylinder, cone, mesh hull}, sphere-{sphere, capsule, box, cylinder}, "
    "capsule-{capsule, box, cylinder}, box-{box, cylinder}, cylinder-cylinder, "
    "mesh hull-{sphere, capsule, box, cylinder, mesh hull}, "
    "ellipsoid-{plane, sphere, capsule, box, cylinder, mesh hull, ellipsoid}"
)


@wp.func
def point_distance(stype: int, size: wp.vec3, p: wp.vec3):
    """Signed distance of local point p to a shape centred at the origin, the outward normal and the
    closest surface point (all in the shape frame). Sphere, capsule, box and cylinder."""
    if stype == SPHERE or stype == CAPSULE:
        centre = wp.vec3(0.0)
        if stype == CAPSULE:
            centre = wp.vec3(0.0, 0.0, wp.clamp(p[2], -size[1], size[1]))
        d = p - centre
        dist = wp.length(d)
        n = wp.vec3(0.0, 0.0, 1.0)
        if dist > 1.0e-9:
            n = d / dist
        return dist - size[0], n, centre + n * size[0]
    if stype == BOX:
        q = wp.vec3(
            wp.clamp(p[0], -size[0], size[0]), wp.clamp(p[1], -size[1], size[1]), wp.clamp(p[2], -size[2], size[2])
        )
        d = p - q
        dist = wp.length(d)
        if dist > 1.0e-9:
            return dist, d / dist, q
        # Inside: leave through the nearest face.
        best = size[0] - wp.abs(p[0])
        axis = int(0)
        for k in range(1, 3):
            s = size[k] - wp.abs(p[k])
            if s < best:
                best = s
                axis = k
        n = wp.vec3(0.0)
        n[axis] = wp.sign(p[axis])
        q = p
        q[axis] = wp.sign(p[axis]) * size[axis]
        return -best, n, q
    # Cylinder: radius size[0], half height size[1], along z.
    rho = wp.sqrt(p[0] * p[0] + p[1] * p[1])
    u = wp.vec3(1.0, 0.0, 0.0)
    if rho > 1.0e-9:
        u = wp.vec3(p[0] / rho, p[1] / rho, 0.0)
    if rho <= size[0] and wp.abs(p[2]) <= size[1]:
        side = size[0] - rho
        cap = size[1] - wp.abs(p[2])
        if side < cap:
            return -side, u, wp.vec3(u[0] * size[0], u[1] * size[0], p[2])
        sz = wp.sign(p[2])
        return -cap, wp.vec3(0.0, 0.0, sz), wp.vec3(p[0], p[1], sz * size[1])
    q = u * wp.min(rho, size[0]) + wp.vec3(0.0, 0.0, wp.clamp(p[2], -size[1], size[1]))
    d = p - q
    dist = wp.length(d)
    n = u
    if dist > 1.0e-9:
        n = d / dist
    return dist, n, q


@wp.func
def shape_feature(stype: int, size: wp.vec3, k: int, toward: wp.vec3):
    """Feature point k of a shape (local frame) and its radius. ``toward`` (local, unit) orients
    cylinder / cone rim points at the other shape: the first rim point on each cap is the one furthest
    along ``toward``, the others at +-120 degrees. An ellipsoid's one feature is its support point
    along ``toward``."""
    if stype == SPHERE:
        return wp.vec3(0.0), size[0]
    if stype == CAPSULE:
        return wp.vec3(0.0, 0.0, size[1] * (2.0 * float(k) - 1.0)), size[0]
    if stype == ELLIPSOID:
        # Support point of x^T S^-2 x = 1 along t: S^2 t / |S t| (S = diag of the semi-axes).
        st = wp.cw_mul(size, toward)
        return wp.cw_mul(size, st) / wp.max(wp.length(st), 1.0e-30), 0.0
    if stype == BOX:
        sx = float((k & 1) * 2 - 1)
        sy = float(((k >> 1) & 1) * 2 - 1)
        sz = float(((k >> 2) & 1) * 2 - 1)
        return wp.vec3(sx * size[0], sy * size[1], sz * size[2]), 0.0
    # Cylinder (6 points: 3 per cap) or cone (3 base rim points, then the apex).
    axis = wp.vec3(0.0, 0.0, 1.0)
    u = toward - wp.dot(toward, axis) * axis
    if wp.length(u) < 1.0e-6:
        u = wp.vec3(1.0, 0.0, 0.0)
    u = wp.normalize(u)
    v = wp.cross(axis, u)
    cap = k / 3
    ang = float(k % 3) * 2.0943951023931953
    rim = size[0] * (wp.cos(ang) * u + wp.sin(ang) * v)
    if stype == CONE:
        if k == 3:
            return wp.vec3(0.0, 0.0, size[1]), 0.0
        return rim - axis * size[1], 0.0
    return rim + axis * (size[1] * (2.0 * float(cap) - 1.0)), 0.0


@wp.func
def segment_closest(p1: wp.vec3, q1: wp.vec3, p2: wp.vec3, q2: wp.vec3):
    """Closest points of segments p1-q1 and p2-q2 (Ericson, Real-Time Collision Detection, sec. 5.1.9)."""
    d1 = q1 - p1
    d2 = q2 - p2
    r = p1 - p2
    a = wp.dot(d1, d1)
    e = wp.dot(d2, d2)
    f = wp.dot(d2, r)
    s = float(0.0)
    t = float(0.0)
    if a <= 1.0e-12 and e <= 1.0e-12:
        return p1, p2
    if a <= 1.0e-12:
        t = wp.clamp(f / e, 0.0, 1.0)
    else:
        c = wp.dot(d1, r)
        if e <= 1.0e-12:
            s = wp.clamp(-c / a, 0.0, 1.0)
        else:
            b = wp.dot(d1, d2)
            denom = a * e - b * b
            if denom > 1.0e-12:
                s = wp.clamp((b * f - c * e) / denom, 0.0, 1.0)
            t = (b * s + f) / e
            if t < 0.0:
                t = 0.0
                s = wp.clamp(-c / a, 0.0, 1.0)
            elif t > 1.0:
                t = 1.0
                s = wp.clamp((b - c) / a, 0.0, 1.0)
    return p1 + d1 * s, p2 + d2 * t


@wp.func
def shape_pose(body: int, body_q: wp.array(dtype=wp.transform), x: wp.transform):
    """World pose of a shape with local pose x on body (-1: static, x is already in world)."""
    if body >= 0:
        return body_q[body] * x
    return x


@wp.func
def emit_contact(
    slot: int,
    d: float,
    n: wp.vec3,
    p: wp.vec3,
    margin: float,
    hint: wp.vec3,
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """Store a contact when closer than the margin. The first friction direction (which orients a
    pyramidal cone) follows MuJoCo's contact frame: ``hint`` projected on the contact plane where the
    collider gives one (a capsule's axis on a plane), else world y, or world z for a normal near y."""
    if d < margin:
        active[slot] = 1
        point[slot] = p
        normal[slot] = n
        dist[slot] = d
        t = hint - wp.dot(hint, n) * n
        if wp.length(t) < 1.0e-3:
            t = wp.vec3(0.0, 1.0, 0.0)
            if wp.abs(n[1]) >= 0.5:
                t = wp.vec3(0.0, 0.0, 1.0)
            t = t - wp.dot(t, n) * n
        tangent[slot] = wp.normalize(t)
