"""Heightfield narrow phase (MuJoCo's mjc_ConvexHField): a heightfield against a sphere, capsule, box,
cylinder, ellipsoid or mesh hull.

The field is a grid of prisms: each grid cell is two triangles (:meth:`newton_gym.sim.Heightfield.triangles`),
and under each triangle a solid reaches down to the field's bottom. For a pair (A, B), A the other shape and
B the field (the HFIELD type sorts last), per step:

1. A's bounding sphere, then its axis-aligned box in the field frame (a sphere's or capsule's: its core
   there grown by its radius; another shape's: its support points along the field's axes), must meet the
   field's box (half extents x, y, top and bottom z, grown by the margin);
2. the cells under A's box, rows then columns, each cell's two prisms in MuJoCo's order, are tested: a cell
   whose block of ``FIELD_BLOCK`` x ``FIELD_BLOCK`` cells lies wholly below A's lowest point (its highest grid
   point, stored once per field, :func:`field_block_top`) is skipped, as is a prism
   whose three top corners all lie below A's lowest point, and so is one with A beyond the plane
   of its top face or of a vertical side by more than 1e-5 m (a separating plane: no contact; a sphere skips
   this test, its closed form below finds those prisms apart), the others go through GJK / EPA
   (:func:`.convex.witnesses`) against A (a sphere, whose core is a point, through :func:`point_prism`'s
   closed form, a capsule through :func:`segment_prism`'s where it has one, a capsule whose core enters the
   prism through :func:`segment_prism_deep`'s separating axes); each prism that A penetrates
   gives one contact (depth, normal from
   A to the prism, point midway between the surfaces), until the pair's slots are full.

As MuJoCo, a margin m raises the prisms' tops by m and inflates A by m / 2, and only overlapping shapes
make contacts. Slots per pair: the prisms A's bounding box can cover (2 per cell), at most
:data:`.primitive.MAX_FIELD_CONTACTS` (MuJoCo's 50), from :func:`field_slots` at solver construction.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from .convex import witnesses
from .gjk import support, triangle_weights
from .primitive import (
    CAPSULE,
    HFIELD,
    MAX_FIELD_CONTACTS,
    PHASE_FIELD,
    SPHERE,
    Convex,
    Heightfields,
    NarrowArgs,
    emit_contact,
    segment_closest,
    world_pair_kernel,
)

wp.set_module_options({"enable_backward": False})

__all__ = [
    "FIELD_BLOCK",
    "field_block_top",
    "field_far",
    "field_kernel",
    "field_slots",
    "point_prism",
    "prism_planes",
    "segment_prism",
    "segment_prism_deep",
]

_APART = 1.0e-5  # [m] a separating plane's clearance that GJK's tolerance cannot turn into a contact
FIELD_BLOCK = 4  # [cells] side of the square blocks of cells whose highest point the cell scan tests first


def field_block_top(z: np.ndarray, block: int) -> np.ndarray:
    """(ceil((nrow - 1) / block), ceil((ncol - 1) / block)) highest elevation over the grid points of each
    block of ``block`` x ``block`` cells of the (nrow, ncol) elevations z: block (i, j) holds the cells of rows
    i block .. i block + block - 1 and columns j block ..., so the points of rows i block .. (i + 1) block and
    columns j block .. (j + 1) block (clipped to the grid), every corner of its cells."""
    nrow, ncol = z.shape
    rows = [z[i * block : (i + 1) * block + 1].max(axis=0) for i in range(-(-(nrow - 1) // block))]
    by_row = np.stack(rows)
    cols = [by_row[:, j * block : (j + 1) * block + 1].max(axis=1) for j in range(-(-(ncol - 1) // block))]
    return np.stack(cols, axis=1)


def field_slots(radius: np.ndarray, margin: np.ndarray, spacing: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Contact slots of heightfield pairs: 2 per grid cell that a shape's bounding box can cover, at most
    :data:`MAX_FIELD_CONTACTS`.

    Args:
        radius: (pairs,) bounding radius of the other shape about its origin [m].
        margin: (pairs,) pair margin [m] (it widens nothing in the cell range, kept for a margin edit).
        spacing: (pairs, 2) grid spacing (dx, dy) of the pair's field [m].
        cells: (pairs, 2) grid cells along x and y of the pair's field.
    """
    width = 2.0 * (np.asarray(radius) + np.asarray(margin))
    per_axis = np.minimum(np.ceil(width[:, None] / spacing) + 1, cells)
    return np.minimum(2 * per_axis[:, 0] * per_axis[:, 1], MAX_FIELD_CONTACTS).astype(np.int64)


@wp.func
def _extent(a: Convex, axis: wp.vec3, origin: wp.vec3, verts: wp.array(dtype=wp.vec3)):
    """(lowest, highest) coordinate of shape a (core and radius) along the unit world axis, from origin."""
    hi = wp.dot(support(a, axis, verts) - origin, axis) + a.radius
    lo = wp.dot(support(a, -axis, verts) - origin, axis) - a.radius
    return lo, hi


@wp.func
def _cell_range(lo: float, hi: float, half: float, points: int):
    """Grid lines [first, last] under the interval [lo, hi] of an axis whose ``points`` grid points span
    [-half, half] (MuJoCo's floor / ceil, clamped to the grid)."""
    scale = float(points - 1) / (2.0 * half)
    first = wp.max(0, int(wp.floor((lo + half) * scale)))
    last = wp.min(points - 1, int(wp.ceil((hi + half) * scale)))
    return first, last


@wp.func
def _corners(start: int, cols: int, r: int, c: int, i: int):
    """Grid points of prism i (0, 1) of the cell whose right column is c and lower row r, in MuJoCo's order:
    (r + 1, c - 1), (r, c - 1), (r + 1, c) and (r, c - 1), (r + 1, c), (r, c)."""
    lo = start + r * cols + c
    hi = lo + cols
    if i == 0:
        return wp.vec3i(hi - 1, lo - 1, hi)
    return wp.vec3i(lo - 1, hi, lo)


@wp.func
def _lowest(a: Convex, axis: wp.vec3, rot: wp.quat, origin: wp.vec3, verts: wp.array(dtype=wp.vec3)):
    """Lowest coordinate of shape a (core and radius) along the unit field-frame ``axis`` (field at rotation
    ``rot`` and ``origin``)."""
    d = wp.quat_rotate(rot, axis)
    return wp.dot(support(a, -d, verts) - origin, d) - a.radius


@wp.func
def _cross2(a: wp.vec3, b: wp.vec3):
    """z of a x b: twice the signed area of the xy triangle (0, a, b)."""
    return a[0] * b[1] - a[1] * b[0]


@wp.func
def _edge(t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, e: int):
    """Edge e (0, 1, 2) of the triangle t0 t1 t2 as its (start, end): t0 t1, t1 t2, t2 t0."""
    if e == 1:
        return t1, t2
    if e == 2:
        return t2, t0
    return t0, t1


@wp.func
def prism_planes(t0: wp.vec3, t1: wp.vec3, t2: wp.vec3):
    """The face planes of a prism with top corners t0, t1, t2 (field frame): the top face's unit upward normal
    (its plane through t0) and, as rows, the unit outward normals of the vertical sides t0 t1, t1 t2, t2 t0
    (each plane through its first corner); zero where a face is degenerate."""
    top = wp.cross(t1 - t0, t2 - t0)
    if top[2] < 0.0:
        top = -top
    if wp.length(top) > 0.0:
        top = wp.normalize(top)
    area = _cross2(t1 - t0, t2 - t0)
    sides = wp.mat33(0.0)
    for e in range(3):
        p, q = _edge(t0, t1, t2, e)
        m = wp.vec3(q[1] - p[1], p[0] - q[0], 0.0)  # normal to the edge p q in the xy plane
        if wp.length(m) > 0.0:
            m = wp.normalize(m)
            if area < 0.0:
                m = -m  # outward for a clockwise triangle
        sides[e] = m
    return top, sides


@wp.func
def _prism_nearest(c: wp.vec3, t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float):
    """The point nearest to c of a prism (top corners t0, t1, t2, solid down to z = ``bottom``) that c lies
    outside of, at or above the bottom: the nearest of the top face's nearest point and each vertical side's
    candidate. A side p q is the trapezoid of the points (p + t (q - p)) in xy, z in [bottom, z_top(t)];
    its candidate, c's foot on the edge line in xy (t clamped to [0, 1]) at c's height clamped to that range,
    is the side's nearest point wherever c is not above the side's top edge, and a point of the prism where
    it is (the top face's nearest point, its edges included, is nearer then)."""
    w = triangle_weights(t0 - c, t1 - c, t2 - c)  # the top face's point nearest c
    best = w[0] * t0 + w[1] * t1 + w[2] * t2
    dist = wp.length_sq(best - c)
    for e in range(3):
        p, q = _edge(t0, t1, t2, e)
        ex = q[0] - p[0]
        ey = q[1] - p[1]
        length_sq = ex * ex + ey * ey
        t = float(0.0)
        if length_sq > 0.0:
            t = wp.clamp(((c[0] - p[0]) * ex + (c[1] - p[1]) * ey) / length_sq, 0.0, 1.0)
        z_top = p[2] + t * (q[2] - p[2])
        x = wp.vec3(p[0] + t * ex, p[1] + t * ey, wp.clamp(c[2], bottom, z_top))
        dx = wp.length_sq(x - c)
        if dx < dist:
            best = x
            dist = dx
    return best


@wp.func
def point_prism(c: wp.vec3, t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float, top: wp.vec3, sides: wp.mat33):
    """A point c against a prism (top corners t0, t1, t2, solid down to z = ``bottom``; field frame; face
    planes from :func:`prism_planes`) in closed form. Returns (case, n, w, core): n the unit normal from the
    point toward the prism, w the prism's witness point and core the signed distance (positive apart,
    negative the depth), by case:

    1. c above the top face's plane with its foot inside the face: the foot is the nearest point;
    2. c inside the prism: the nearest of its five face planes is the way out, as EPA finds it;
    3. c outside otherwise (over an edge, or beside the prism), at or above its bottom: the nearest point of
       its faces (:func:`_prism_nearest`), where it is apart from c;
    0. none of these (c below the bottom, a degenerate top face, c on the boundary): the caller runs
       GJK / EPA."""
    n = top
    if wp.length(n) <= 0.0:
        return 0, wp.vec3(0.0), wp.vec3(0.0), 0.0
    s = wp.dot(n, c - t0)
    area = _cross2(t1 - t0, t2 - t0)
    x = c
    if s >= 0.0:
        x = c - s * n  # the foot on the top face's plane
    e0 = _cross2(t1 - t0, x - t0) * area
    e1 = _cross2(t2 - t1, x - t1) * area
    e2 = _cross2(t0 - t2, x - t2) * area
    if c[2] < bottom:
        return 0, wp.vec3(0.0), wp.vec3(0.0), 0.0  # under the prism
    if e0 <= 0.0 or e1 <= 0.0 or e2 <= 0.0:  # over an edge or beside the triangle: outside the prism
        w = _prism_nearest(c, t0, t1, t2, bottom)
        gap = wp.length(w - c)
        if gap <= 0.0:
            return 0, wp.vec3(0.0), wp.vec3(0.0), 0.0
        return 3, (w - c) / gap, w, gap
    if s >= 0.0:
        return 1, -n, x, s
    # Inside: the nearest of the five face planes (top, bottom, three sides), each an outward normal f and
    # the depth of c behind it.
    best_f = n
    best = -s
    if c[2] - bottom < best:
        best = c[2] - bottom
        best_f = wp.vec3(0.0, 0.0, -1.0)
    for e in range(3):
        m = sides[e]
        p, _q = _edge(t0, t1, t2, e)
        depth = wp.dot(m, p - c)
        if depth < best:
            best = depth
            best_f = m
    return 2, -best_f, c + best * best_f, -best


_mat83 = wp.types.matrix(shape=(8, 3), dtype=wp.float32)
_vec8 = wp.types.vector(length=8, dtype=wp.float32)


@wp.func
def _segment_crosses(
    s0: wp.vec3, s1: wp.vec3, t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float, top: wp.vec3, sides: wp.mat33
):
    """Whether segment s0 s1 meets the prism (clipped against its five face planes, from :func:`prism_planes`)."""
    lo = float(0.0)
    hi = float(1.0)
    d = s1 - s0
    for k in range(5):
        f = top
        h = wp.dot(top, t0)
        if k == 1:
            f = wp.vec3(0.0, 0.0, -1.0)
            h = -bottom
        elif k >= 2:
            f = sides[k - 2]
            p, _q = _edge(t0, t1, t2, k - 2)
            h = wp.dot(f, p)
        if wp.length_sq(f) > 0.0:  # f . (s0 + u d) <= h
            start = wp.dot(f, s0) - h
            rate = wp.dot(f, d)
            if rate > 0.0:
                hi = wp.min(hi, -start / rate)
            elif rate < 0.0:
                lo = wp.max(lo, -start / rate)
            elif start > 0.0:
                hi = -1.0  # parallel to the plane, outside it
    return lo <= hi


@wp.func
def _prism_edge(t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float, e: int):
    """Edge e (0 .. 8) of a prism (top corners t0, t1, t2, solid down to z = ``bottom``) as its (start, end):
    the top edges t0 t1, t1 t2, t2 t0, then the same edges at the bottom, then the vertical edges down from
    t0, t1 and t2."""
    p, q = _edge(t0, t1, t2, e % 3)
    if e >= 6:
        return p, wp.vec3(p[0], p[1], bottom)
    if e >= 3:
        return wp.vec3(p[0], p[1], bottom), wp.vec3(q[0], q[1], bottom)
    return p, q


@wp.func
def _prism_face(t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float, top: wp.vec3, sides: wp.mat33, k: int):
    """Face k (0: top, 1: bottom, 2 .. 4: the vertical sides) of a prism as its unit outward normal (zero where
    degenerate) and its plane's offset along it (from :func:`prism_planes`)."""
    if k == 0:
        return top, wp.dot(top, t0)
    if k == 1:
        return wp.vec3(0.0, 0.0, -1.0), -bottom
    f = sides[k - 2]
    p, _q = _edge(t0, t1, t2, k - 2)
    return f, wp.dot(f, p)


@wp.func
def _lowest_toward(
    a: Convex, s0: wp.vec3, s1: wp.vec3, f: wp.vec3, rot: wp.quat, origin: wp.vec3, verts: wp.array(dtype=wp.vec3)
):
    """Lowest coordinate of shape a along the unit field-frame direction f: for a capsule, its core's lower end
    (s0, s1: the core's ends in the field frame) less the radius; for other shapes their support point
    (:func:`_lowest`)."""
    if a.kind == CAPSULE:
        return wp.min(wp.dot(f, s0), wp.dot(f, s1)) - a.radius
    return _lowest(a, f, rot, origin, verts)


@wp.func
def _apart(
    a: Convex,
    s0: wp.vec3,
    s1: wp.vec3,
    t0: wp.vec3,
    t1: wp.vec3,
    t2: wp.vec3,
    top: wp.vec3,
    sides: wp.mat33,
    rot: wp.quat,
    origin: wp.vec3,
    verts: wp.array(dtype=wp.vec3),
):
    """Whether a plane of a prism's top face or of one of its three vertical sides (top corners t0, t1, t2,
    field frame; planes from :func:`prism_planes`) has shape a beyond it by more than ``_APART`` [m]: a
    separating plane, so the prism's GJK would find the two apart, and the prism is skipped. s0, s1: a
    capsule's core ends in the field frame (:func:`_lowest_toward`)."""
    apart = False
    for k in range(5):
        if k != 1:  # the top face and the three sides (not the bottom)
            f, h = _prism_face(t0, t1, t2, 0.0, top, sides, k)
            if not apart and wp.length(f) > 0.0:
                apart = _lowest_toward(a, s0, s1, f, rot, origin, verts) > h + _APART
    return apart


@wp.func
def _prism_span(u: wp.vec3, t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float):
    """(lowest, highest) coordinate along u of a prism's six corners."""
    lo = float(1.0e30)
    hi = float(-1.0e30)
    for k in range(3):
        t = t0
        if k == 1:
            t = t1
        elif k == 2:
            t = t2
        up = wp.dot(u, t)
        down = wp.dot(u, wp.vec3(t[0], t[1], bottom))
        lo = wp.min(lo, wp.min(up, down))
        hi = wp.max(hi, wp.max(up, down))
    return lo, hi


@wp.func
def segment_prism_deep(
    s0: wp.vec3, s1: wp.vec3, t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float, top: wp.vec3, sides: wp.mat33
):
    """A segment s0 s1 that meets a prism (as :func:`segment_prism`) in closed form: the separating-axis
    test over the prism's five face normals and the cross products of the segment with its nine edges (the
    faces' normals of their Minkowski difference), whose least overlap is the penetration depth and its axis
    the normal, as EPA finds them. Returns (case, n, w_segment, w_prism, core) as :func:`segment_prism`, core =
    -depth: case 1 with n from the segment toward the prism, w_segment the segment's deepest point and
    w_prism = w_segment - core n on the prism's face; case 0 where a second axis overlaps as little (within
    float32's resolution of the coordinates) or the witnesses are not one pair of points (the segment parallel
    to the face, or the segment and the edge closest outside either): the caller runs EPA."""
    none = wp.vec3(0.0)
    d = s1 - s0
    scale = wp.max(wp.max(wp.max(wp.abs(s0[0]), wp.abs(s0[1])), wp.max(wp.abs(s1[0]), wp.abs(s1[1]))), 1.0)
    scale = wp.max(scale, wp.max(wp.abs(s0[2]), wp.abs(s1[2])))
    tol = 1.0e-6 * scale  # a few float32 roundings of the coordinates [m]
    best = float(1.0e30)
    second = float(1.0e30)
    axis = int(-1)  # 0 .. 4: a face, 5 .. 13: an edge
    best_n = wp.vec3(0.0)
    for k in range(5):  # A leaves through face k along its outward normal f: n = -f
        f, h = _prism_face(t0, t1, t2, bottom, top, sides, k)
        if wp.length_sq(f) > 0.0:
            pen = h - wp.min(wp.dot(f, s0), wp.dot(f, s1))
            if pen < best:
                second = best
                best = pen
                axis = k
                best_n = -f
            elif pen < second:
                second = pen
    for e in range(9):
        p, q = _prism_edge(t0, t1, t2, bottom, e)
        u = wp.cross(d, q - p)
        size = wp.length(u)
        if size > 1.0e-6 * wp.length(d) * wp.length(q - p):  # not parallel
            u = u / size
            lo, hi = _prism_span(u, t0, t1, t2, bottom)
            us = wp.dot(u, s0)  # the whole segment's coordinate along u
            up = wp.dot(u, p)  # the whole edge's
            pen = us - lo  # n = u
            n = u
            extreme = up - lo <= tol
            if hi - us < pen:  # n = -u
                pen = hi - us
                n = -u
                extreme = hi - up <= tol
            # Only an edge at the prism's extreme along n bounds their Minkowski difference there (parallel
            # edges, such as the three vertical ones, share the axis: the extreme one stands for it).
            if not extreme:
                pen = float(1.0e30)
            if pen < best:
                second = best
                best = pen
                axis = 5 + e
                best_n = n
            elif pen < second:
                second = pen
    if axis < 0 or second - best <= tol:
        return 0, none, none, none, 0.0
    ws = s0
    wf = s0
    if axis < 5:
        f = -best_n
        rate = wp.dot(f, d)
        if wp.abs(rate) <= tol:  # the segment parallel to the face: no one deepest point
            return 0, none, none, none, 0.0
        if rate < 0.0:
            ws = s1
        wf = ws + best * f
        for k in range(5):  # the witness on the face's polygon: within every other face's plane
            g, h = _prism_face(t0, t1, t2, bottom, top, sides, k)
            if k != axis and wp.length_sq(g) > 0.0 and wp.dot(g, wf) > h + tol:
                return 0, none, none, none, 0.0
    else:
        p, q = _prism_edge(t0, t1, t2, bottom, axis - 5)
        along = q - p
        r = s0 - p
        a = wp.dot(d, d)
        b = wp.dot(d, along)
        c = wp.dot(along, along)
        denom = a * c - b * b
        if denom <= 0.0:
            return 0, none, none, none, 0.0
        sa = (b * wp.dot(along, r) - c * wp.dot(d, r)) / denom  # the closest points of the two lines
        sb = (a * wp.dot(along, r) - b * wp.dot(d, r)) / denom
        edge_tol = 1.0e-4
        if sa <= edge_tol or sa >= 1.0 - edge_tol or sb <= edge_tol or sb >= 1.0 - edge_tol:
            return 0, none, none, none, 0.0  # they meet outside the segment or the edge
        ws = s0 + sa * d
        wf = p + sb * along
    return 1, best_n, ws, wf, -best


@wp.func
def segment_prism(
    s0: wp.vec3, s1: wp.vec3, t0: wp.vec3, t1: wp.vec3, t2: wp.vec3, bottom: float, top: wp.vec3, sides: wp.mat33
):
    """A segment s0 s1 (a capsule's core) against a prism (as :func:`point_prism`) in closed form where the two
    are apart and their closest points unique: the nearest of the candidate pairs, each end of the segment
    with its nearest point of the prism (:func:`point_prism`) and the segment with each top and vertical
    edge (:func:`.primitive.segment_closest`), which holds the closest pair of a segment and a convex polytope
    that do not meet. Returns (case, n, w_segment, w_prism, core): case 1 with n the unit normal from the segment
    toward the prism, the witness points and their distance (where the segment meets the prism, those of
    :func:`segment_prism_deep`, the distance negative); case 0 where the segment reaches below the prism's
    bottom, where a second candidate pair as near (within float32's resolution of the coordinates) has
    another point on the segment (a segment parallel to a face or an edge), or where
    :func:`segment_prism_deep` defers: the caller runs GJK / EPA."""
    none = wp.vec3(0.0)
    if wp.length(top) <= 0.0 or s0[2] < bottom or s1[2] < bottom:
        return 0, none, none, none, 0.0
    if _segment_crosses(s0, s1, t0, t1, t2, bottom, top, sides):
        return segment_prism_deep(s0, s1, t0, t1, t2, bottom, top, sides)
    on_s = _mat83()
    on_p = _mat83()
    dist = _vec8()
    for k in range(2):
        c = s0
        if k == 1:
            c = s1
        form, n, w, core = point_prism(c, t0, t1, t2, bottom, top, sides)
        if form == 0:
            return 0, none, none, none, 0.0
        on_s[k] = c
        on_p[k] = w
        dist[k] = core
    for e in range(3):
        p, q = _edge(t0, t1, t2, e)
        xs, xp = segment_closest(s0, s1, p, q)  # a top edge
        on_s[2 + e] = xs
        on_p[2 + e] = xp
        dist[2 + e] = wp.length(xp - xs)
        xs, xp = segment_closest(s0, s1, p, wp.vec3(p[0], p[1], bottom))  # a vertical edge
        on_s[5 + e] = xs
        on_p[5 + e] = xp
        dist[5 + e] = wp.length(xp - xs)
    best = int(0)
    for k in range(1, 8):
        if dist[k] < dist[best]:
            best = k
    scale = wp.max(wp.max(wp.max(wp.abs(s0[0]), wp.abs(s0[1])), wp.max(wp.abs(s1[0]), wp.abs(s1[1]))), 1.0)
    tol = 1.0e-6 * scale  # a few float32 roundings of the coordinates [m]
    d = dist[best]
    if d <= tol:
        return 0, none, none, none, 0.0
    xs = wp.vec3(on_s[best, 0], on_s[best, 1], on_s[best, 2])
    xp = wp.vec3(on_p[best, 0], on_p[best, 1], on_p[best, 2])
    for k in range(8):
        other = wp.vec3(on_s[k, 0], on_s[k, 1], on_s[k, 2])
        if dist[k] - d <= tol and wp.length(other - xs) > 10.0 * tol:
            return 0, none, none, none, 0.0
    return 1, (xp - xs) / d, xs, xp, d


@wp.func
def _prism(xf: wp.transform, field: int, corners: wp.vec3i, margin: float, bottom: float):
    """The :class:`.primitive.Convex` of one prism of a field at pose xf: top triangle ``corners`` raised by
    ``margin``, bottom at z = ``bottom`` (field frame)."""
    c = Convex()
    c.kind = HFIELD
    c.size = wp.vec3(margin, 0.0, bottom)
    c.xf = xf
    c.radius = 0.0
    c.vert_start = 0
    c.vert_end = 0
    c.face_start = 0
    c.face_end = 0
    c.field = field
    c.corners = corners
    return c


@wp.func(inline=True)
def _blocks_top(f: int, cmin: int, cmax: int, rmin: int, rmax: int, fields: Heightfields):
    """Highest grid point of field f's blocks that hold the cells of rows rmin .. rmax - 1 and right columns
    cmin + 1 .. cmax (the cells the scan of :func:`_field_pair` visits for those grid lines), from the blocks'
    stored maxima; -1e30 where there are none."""
    top = float(-1.0e30)
    block_cols = fields.block_cols[f]
    for br in range(rmin / FIELD_BLOCK, (rmax - 1) / FIELD_BLOCK + 1):
        row = fields.block_start[f] + br * block_cols
        for bc in range(cmin / FIELD_BLOCK, (cmax - 1) / FIELD_BLOCK + 1):
            top = wp.max(top, fields.block_top[row + bc])
    return top


@wp.func(inline=True)  # the tables by value: inlined into the per-world loop, they are not copied
def field_far(centre: wp.vec3, bound: float, field_xf: wp.transform, field_shape: int, args: NarrowArgs):
    """Whether a shape whose bounding sphere (world ``centre``, radius ``bound``) lies outside the field's box
    or above the highest point of the blocks of cells under it cannot touch the heightfield shape
    ``field_shape`` at ``field_xf`` (no prism reaches it; float32 rounding spared as for the bundles' bounds).
    The narrow phase tests it before it places the shapes. A shape whose centre is not a number (a world
    whose state diverged) touches nothing: its cell range would index outside the field."""
    f = args.fields.shape_field[field_shape]
    ext = args.fields.extent[f]
    rot = wp.transform_get_rotation(field_xf)
    pos = wp.quat_rotate_inv(rot, centre - wp.transform_get_translation(field_xf))
    if pos[0] != pos[0] or pos[1] != pos[1] or pos[2] != pos[2]:  # NaN
        return True
    if pos[0] - bound > ext[0] or pos[0] + bound < -ext[0] or pos[1] - bound > ext[1] or pos[1] + bound < -ext[1]:
        return True
    if pos[2] - bound > ext[2] or pos[2] + bound < ext[3]:
        return True
    bmin, bmax = _cell_range(pos[0] - bound, pos[0] + bound, ext[0], args.fields.cols[f])
    brmin, brmax = _cell_range(pos[1] - bound, pos[1] + bound, ext[1], args.fields.rows[f])
    highest = _blocks_top(f, bmin, bmax, brmin, brmax, args.fields)
    return pos[2] - bound > highest + 1.0e-5 * wp.abs(highest) + 1.0e-6


@wp.func(inline=True)  # the tables by value: inlined into the per-world loop, they are not copied
def _field_pair(p: int, slots: wp.vec2i, bound: float, a: Convex, b: Convex, args: NarrowArgs):
    """Heightfield pair p (a the other shape, b the field; slots its (first slot, slot count)), which
    :func:`field_far` let through: fills its contact slots."""
    verts = args.hulls.mesh_verts
    f = b.field
    ext = args.fields.extent[f]
    rows = args.fields.rows[f]
    cols = args.fields.cols[f]
    margin = args.pair_margin[p]
    rot = wp.transform_get_rotation(b.xf)
    origin = wp.transform_get_translation(b.xf)
    # The shape's box in the field frame (its core's, grown by its radius), against the field's box.
    e0 = wp.vec3(0.0)  # a capsule's core in the field frame (a sphere's centre: e0 = e1)
    e1 = wp.vec3(0.0)
    lo = wp.vec3(0.0)
    hi = wp.vec3(0.0)
    if a.kind == SPHERE or a.kind == CAPSULE:
        wa = wp.transform_get_translation(a.xf)
        e0 = wp.quat_rotate_inv(rot, wa - origin)
        e1 = e0
        if a.kind == CAPSULE:
            half = wp.quat_rotate(wp.transform_get_rotation(a.xf), wp.vec3(0.0, 0.0, a.size[1]))
            e0 = wp.quat_rotate_inv(rot, wa - half - origin)
            e1 = wp.quat_rotate_inv(rot, wa + half - origin)
        grow = wp.vec3(a.radius)
        lo = wp.min(e0, e1) - grow
        hi = wp.max(e0, e1) + grow
    else:
        xl, xh = _extent(a, wp.quat_rotate(rot, wp.vec3(1.0, 0.0, 0.0)), origin, verts)
        yl, yh = _extent(a, wp.quat_rotate(rot, wp.vec3(0.0, 1.0, 0.0)), origin, verts)
        zl, zh = _extent(a, wp.quat_rotate(rot, wp.vec3(0.0, 0.0, 1.0)), origin, verts)
        lo = wp.vec3(xl, yl, zl)
        hi = wp.vec3(xh, yh, zh)
    if lo[0] - margin > ext[0] or hi[0] + margin < -ext[0] or lo[1] - margin > ext[1] or hi[1] + margin < -ext[1]:
        return
    zmin = lo[2]
    if zmin - margin > ext[2] or hi[2] + margin < ext[3]:
        return
    cmin, cmax = _cell_range(lo[0], hi[0], ext[0], cols)
    rmin, rmax = _cell_range(lo[1], hi[1], ext[1], rows)
    other = a
    other.radius = a.radius + 0.5 * margin
    start = args.fields.point_start[f]
    block_cols = args.fields.block_cols[f]
    count = int(0)
    for r in range(rmin, rmax):
        block_row = args.fields.block_start[f] + (r // FIELD_BLOCK) * block_cols
        for c in range(cmin + 1, cmax + 1):
            # the cell's block wholly below A: each prism's low test below would skip it
            reach = args.fields.block_top[block_row + (c - 1) // FIELD_BLOCK] + margin >= zmin
            for i in range(2):
                if reach and count < slots[1]:
                    corners = _corners(start, cols, r, c, i)
                    low = True
                    for k in range(3):
                        if verts[corners[k]][2] + margin >= zmin:
                            low = False
                    if not low:
                        raise_by = wp.vec3(0.0, 0.0, margin)
                        t0 = verts[corners[0]] + raise_by
                        t1 = verts[corners[1]] + raise_by
                        t2 = verts[corners[2]] + raise_by
                        top, sides = prism_planes(t0, t1, t2)
                        # A sphere skips the separating-plane test: its closed form finds such a prism apart
                        # (gap > radius) at about the cost of the test's four support points. A capsule takes
                        # it on its core's two ends.
                        if other.kind == SPHERE or not _apart(
                            other, e0, e1, t0, t1, t2, top, sides, rot, origin, verts
                        ):
                            form = int(0)
                            ok = bool(True)
                            n = wp.vec3(0.0)
                            wa = wp.transform_get_translation(other.xf)
                            wb = wp.vec3(0.0)
                            d = float(0.0)
                            if other.kind == SPHERE:  # a point core: the closed form where it has one
                                form, nf, wf, core = point_prism(e0, t0, t1, t2, ext[3], top, sides)
                                n = wp.quat_rotate(rot, nf)
                                wb = origin + wp.quat_rotate(rot, wf)
                                d = core - other.radius
                            elif other.kind == CAPSULE:  # a segment core: the closed form where it has one
                                form, nf, ws, wf, core = segment_prism(e0, e1, t0, t1, t2, ext[3], top, sides)
                                n = wp.quat_rotate(rot, nf)
                                wa = origin + wp.quat_rotate(rot, ws)
                                wb = origin + wp.quat_rotate(rot, wf)
                                d = core - other.radius
                            if form == 0:
                                prism = _prism(b.xf, f, corners, margin, ext[3])
                                ok, n, wa, wb, d = witnesses(other, prism, verts)
                            if ok and d < 0.0:
                                pt = 0.5 * (wa + other.radius * n + wb)
                                emit_contact(slots[0] + count, d, n, pt, 0.0, wp.vec3(0.0), args.out)
                                count += 1


field_kernel = world_pair_kernel(_field_pair, PHASE_FIELD, "_field_kernel", __name__, field_far)
