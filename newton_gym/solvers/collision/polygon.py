"""Faces and polygon clipping of the convex narrow phase (:mod:`.convex`, :mod:`.multicontact`): the corners
of a box face, a cylinder cap (a regular ``CAP_SIDES``-gon, as MuJoCo's) or a mesh polygon (:mod:`.hull`,
MuJoCo's polygons, at most ``POLY`` corners read: larger ones are subsampled, MuJoCo has no such limit), read
as MuJoCo's meshFace and boxFace list them (clockwise seen from outside); clipping of an incident polygon or
segment by the side planes of a reference face as MuJoCo's polygonClip (one side at a time in the reference
face's corner order; per incident edge PQ the crossing point, kept for a parameter in [0, 1], then Q where
inside); MuJoCo's quadrilateral (polygonQuad: a local search for the largest area) and the contact corners
kept when there are more corners than slots."""

from __future__ import annotations

import warp as wp

from .primitive import BOX, CYLINDER, ContactSlots, Convex, MeshHulls, emit_contact

wp.set_module_options({"enable_backward": False})

__all__ = [
    "FACE_TOL",
    "EDGE_TOL",
    "POLY",
    "CLIP",
    "CAP_SIDES",
    "Poly4",
    "Clipped",
    "ClippedValues",
    "corner_count",
    "corner",
    "side_plane",
    "clip_segment",
    "clip_polygon",
    "polygon_quad",
    "pick_corner",
    "clip_pair",
    "emit_corners",
    "face_normal",
]

FACE_TOL = 0.996  # MuJoCo's mjFACE_TOL: two faces whose normals are this close to opposite touch
EDGE_TOL = 0.0888  # MuJoCo's mjEDGE_TOL: an edge this close to perpendicular to a face normal lies on it
POLY = 64  # corners of a mesh polygon read (larger ones are subsampled); MuJoCo has no such limit
CLIP = 2 * POLY  # corners of a clipped polygon (MuJoCo's buffer: twice its largest polygon)
CAP_SIDES = 16  # corners of the regular polygon standing for a cylinder cap (as MuJoCo)
_MINVAL = 1.0e-15  # MuJoCo's mjMINVAL: a clipped point is inside a side plane down to this distance below it
# MuJoCo's box faces (boxFace, its face k = our face 2 * (k // 2) + 1 - k % 2): four corners, each a
# 3-bit code (bit 0: +x, bit 1: +y, bit 2: +z), corner q in bits 4q..4q+2, for our faces 0 (-x) .. 5 (+z).
_BOX_FACE_0 = 0x0462
_BOX_FACE_1 = 0x5137
_BOX_FACE_2 = 0x0154
_BOX_FACE_3 = 0x6732
_BOX_FACE_4 = 0x1023
_BOX_FACE_5 = 0x4576
Poly4 = wp.types.matrix(shape=(4, 3), dtype=wp.float32)  # up to four points (a segment, a feature's corners)
Clipped = wp.types.matrix(shape=(CLIP, 3), dtype=wp.float32)  # the corners of a clipped polygon
ClippedValues = wp.types.vector(length=CLIP, dtype=wp.float32)  # a value per clipped corner


@wp.func
def corner_count(c: Convex, face: int, hulls: MeshHulls):
    """Corners of face ``face`` (id from :func:`_faces_at`) of c: 4 for a box, CAP_SIDES for a cylinder
    cap, a mesh polygon's (at most POLY)."""
    if c.kind == BOX:
        return 4
    if c.kind == CYLINDER:
        return CAP_SIDES
    return wp.min(hulls.mesh_face_vert_start[face + 1] - hulls.mesh_face_vert_start[face], POLY)


@wp.func
def _box_code(face: int):
    if face == 0:
        return _BOX_FACE_0
    if face == 1:
        return _BOX_FACE_1
    if face == 2:
        return _BOX_FACE_2
    if face == 3:
        return _BOX_FACE_3
    if face == 4:
        return _BOX_FACE_4
    return _BOX_FACE_5


@wp.func
def corner(c: Convex, face: int, q: int, hulls: MeshHulls):
    """Corner q (world) of face ``face`` of c, in MuJoCo's order (clockwise seen from outside): a box
    face's as MuJoCo's boxFace, a cylinder cap's from angle 0, a mesh polygon's corners reversed (as
    MuJoCo's meshFace; a polygon of more than POLY corners gives an evenly spread subset)."""
    p = wp.vec3(0.0)
    if c.kind == BOX:
        code = (_box_code(face) >> (4 * q)) & 7
        for k in range(3):
            p[k] = c.size[k] * float(2 * ((code >> k) & 1) - 1)
    elif c.kind == CYLINDER:
        side = float(2 * face - 1)
        ang = -side * 6.283185307179586 * float(q) / float(CAP_SIDES)
        p = wp.vec3(c.size[0] * wp.cos(ang), c.size[0] * wp.sin(ang), side * c.size[1])
    else:
        first = hulls.mesh_face_vert_start[face]
        total = hulls.mesh_face_vert_start[face + 1] - first
        count = wp.min(total, POLY)
        k = count - 1 - q
        p = wp.cw_mul(hulls.mesh_verts[hulls.mesh_face_verts[first + (k * total) // count]], c.size)
    return wp.transform_point(c.xf, p)


@wp.func
def side_plane(c: Convex, face: int, rc: int, rn: wp.vec3, i: int, hulls: MeshHulls):
    """Side plane through edge i of face ``face`` of c (rc corners, normal rn), as MuJoCo's planeNormal:
    its unit normal (inward for corners clockwise from outside) and a point of it (corner i)."""
    p0 = corner(c, face, i, hulls)
    p1 = corner(c, face, (i + 1) % rc, hulls)
    return wp.normalize(wp.cross(p1 - p0, rn)), p0


@wp.func
def clip_segment(c: Convex, face: int, rn: wp.vec3, p: wp.vec3, q: wp.vec3, hulls: MeshHulls):
    """Segment pq clipped by the side planes of face ``face`` of c (normal rn): (corners, count 0 or 2)."""
    cur = Clipped()
    rc = corner_count(c, face, hulls)
    t0 = float(0.0)
    t1 = float(1.0)
    for i in range(rc):
        m, o = side_plane(c, face, rc, rn, i, hulls)
        dp = wp.dot(m, p - o)
        dq = wp.dot(m, q - o)
        if dp < 0.0 and dq < 0.0:
            t0 = 1.0
            t1 = 0.0
        elif dp < 0.0:
            t0 = wp.max(t0, dp / (dp - dq))
        elif dq < 0.0:
            t1 = wp.min(t1, dp / (dp - dq))
    n = int(0)
    if t0 <= t1:
        cur[0] = p + (q - p) * t0
        cur[1] = p + (q - p) * t1
        n = 2
    return cur, n


@wp.func
def clip_polygon(c: Convex, face: int, rn: wp.vec3, inc: Clipped, ic: int, hulls: MeshHulls):
    """Polygon inc (ic >= 3 corners) clipped by the side planes of face ``face`` of c (normal rn), one side
    at a time in the face's corner order, as MuJoCo's polygonClip: per incident edge PQ, the crossing
    point where PQ crosses the plane (kept when its parameter is within [0, 1]), then Q where Q is
    inside. Returns (corners, count)."""
    cur = inc
    n = ic
    rc = corner_count(c, face, hulls)
    for e in range(rc):
        m, o = side_plane(c, face, rc, rn, e, hulls)
        off = wp.dot(m, o)
        nxt = Clipped()
        k = int(0)
        for i in range(n):
            p = wp.vec3(cur[i])
            q = wp.vec3(cur[(i + 1) % n])
            pq = q - p
            in_p = wp.dot(p - o, m) > -_MINVAL
            in_q = wp.dot(q - o, m) > -_MINVAL
            if in_p and in_q:
                if k < CLIP:
                    nxt[k] = q
                    k += 1
            elif in_p or in_q:
                den = wp.dot(m, pq)
                if den != 0.0:
                    t = (off - wp.dot(m, p)) / den
                    if t >= 0.0 and t <= 1.0 and k < CLIP:
                        nxt[k] = p + pq * t
                        k += 1
                if in_q and k < CLIP:
                    nxt[k] = q
                    k += 1
        cur = nxt
        n = k
    return cur, n


@wp.func
def _area4(a: wp.vec3, b: wp.vec3, c: wp.vec3, d: wp.vec3):
    """Area of the quadrilateral abcd (MuJoCo's area4)."""
    return 0.5 * wp.length(wp.cross(d - a, b - d) + wp.cross(c - b, a - c))


@wp.func
def polygon_quad(pts: Clipped, n: int):
    """Indices of the 4 of the n >= 5 corners of the convex polygon pts that MuJoCo keeps (polygonQuad):
    a local search for the quadrilateral of largest area, its first corner stepping round the polygon,
    the others advanced while the area grows (the result depends on the corners' order)."""
    b = int(1)
    c = int(2)
    d = int(3)
    res = wp.vec4i(0, 1, 2, 3)
    m = _area4(wp.vec3(pts[0]), wp.vec3(pts[1]), wp.vec3(pts[2]), wp.vec3(pts[3]))
    for a in range(n):
        pa = wp.vec3(pts[a])
        grow = bool(True)
        while grow:
            dn = (d + 1) % n
            mn = _area4(pa, wp.vec3(pts[b]), wp.vec3(pts[c]), wp.vec3(pts[dn]))
            if mn <= m:
                grow = False
            else:
                m = mn
                d = dn
                res = wp.vec4i(a, b, c, d)
                grow_c = bool(True)
                while grow_c:
                    cn = (c + 1) % n
                    mn = _area4(pa, wp.vec3(pts[b]), wp.vec3(pts[cn]), wp.vec3(pts[d]))
                    if mn <= m:
                        grow_c = False
                    else:
                        m = mn
                        c = cn
                        res = wp.vec4i(a, b, c, d)
                grow_b = bool(True)
                while grow_b:
                    bn = (b + 1) % n
                    mn = _area4(pa, wp.vec3(pts[bn]), wp.vec3(pts[c]), wp.vec3(pts[d]))
                    if mn <= m:
                        grow_b = False
                    else:
                        m = mn
                        b = bn
                        res = wp.vec4i(a, b, c, d)
        if b == a:
            b = (b + 1) % n
            if c == b:
                c = (c + 1) % n
                if d == c:
                    d = (d + 1) % n
    return res


@wp.func
def pick_corner(pts: Clipped, depth: ClippedValues, n: int, i0: int, i1: int, i2: int):
    """Next of up to 4 kept corners: 0: the deepest; 1: the farthest from it; 2: the largest triangle
    with both; 3: the largest area added to that triangle. Returns the index, -1 when none is left."""
    best = float(-1.0e30)
    pick = int(-1)
    for k in range(n):
        if k == i0 or k == i1 or k == i2:
            continue
        p = wp.vec3(pts[k])
        score = float(0.0)
        if i0 < 0:
            score = -depth[k]
        elif i1 < 0:
            score = wp.length_sq(p - wp.vec3(pts[i0]))
        else:
            a = wp.vec3(pts[i0])
            b = wp.vec3(pts[i1])
            if i2 < 0:
                score = wp.length(wp.cross(b - a, p - a))
            else:
                c = wp.vec3(pts[i2])
                up = wp.cross(b - a, c - a)
                # area added outside each edge of triangle abc (negative orientation against it)
                s0 = wp.dot(wp.cross(b - a, p - a), up)
                s1 = wp.dot(wp.cross(c - b, p - b), up)
                s2 = wp.dot(wp.cross(a - c, p - c), up)
                score = wp.max(-s0, wp.max(-s1, -s2))
        if score > best:
            best = score
            pick = k
    return pick


@wp.func
def clip_pair(
    mode: int,
    a: Convex,
    b: Convex,
    n: wp.vec3,
    face_a: int,
    nra: wp.vec3,
    face_b: int,
    nrb: wp.vec3,
    inc: Poly4,
    hulls: MeshHulls,
):
    """The incident feature clipped by the reference face (mode as :func:`_manifold`'s; face ids face_a of A
    and face_b of B with their world normals nra, nrb; inc: the edge of modes 2 and 3): (corners, count,
    reference normal pointing to the other shape, a point of the reference face (its first corner, as
    MuJoCo's), contact normal A to B)."""
    if mode == 3:  # B's face is the reference, A's edge is clipped
        # A capsule's edge on its surface: the segment moved by the radius along n (as MuJoCo).
        p = wp.vec3(inc[0]) + a.radius * n
        q = wp.vec3(inc[1]) + a.radius * n
        pts, count = clip_segment(b, face_b, nrb, p, q, hulls)
        return pts, count, nrb, corner(b, face_b, 0, hulls), -nrb
    # A's face is the reference, B's face or edge is clipped
    cn = nra
    pts = Clipped()
    count = int(0)
    if mode == 1:
        ic = corner_count(b, face_b, hulls)
        for k in range(ic):
            pts[k] = corner(b, face_b, k, hulls)
        pts, count = clip_polygon(a, face_a, nra, pts, ic, hulls)
        cn = -nrb
    else:
        pts, count = clip_segment(a, face_a, nra, wp.vec3(inc[0]), wp.vec3(inc[1]), hulls)
    return pts, count, nra, corner(a, face_a, 0, hulls), cn


@wp.func
def emit_corners(
    slot0: int,
    slots: int,
    pts: Clipped,
    count: int,
    rn: wp.vec3,
    ro: wp.vec3,
    mid: wp.vec3,
    cn: wp.vec3,
    margin: float,
    quad_keep: bool,
    out: ContactSlots,
):
    """Contacts (normal cn) at the clipped corners pts closer than the margin along the reference normal rn
    (from the point ro of the reference face) into slots [slot0, slot0 + slots), each moved half its
    distance back along ``mid``; more corners than slots: those :func:`pick_corner` keeps, or with ``quad_keep``
    (and 4 slots) MuJoCo's quadrilateral (:func:`polygon_quad`). Returns how many were written."""
    depth = ClippedValues()
    kept = int(0)
    for k in range(count):  # keep the corners closer than the margin, with their distances
        p = wp.vec3(pts[k])
        d = wp.dot(p - ro, rn)
        if d < margin:
            pts[kept] = p
            depth[kept] = d
            kept += 1
    if kept == 0:
        return 0
    i0 = int(-1)
    i1 = int(-1)
    i2 = int(-1)
    quad = wp.vec4i(0, 1, 2, 3)
    if quad_keep and kept > slots and slots == 4:
        quad = polygon_quad(pts, kept)
    written = int(0)
    for s in range(slots):
        k = s
        if quad_keep and kept > slots and slots == 4:
            k = quad[s]
        elif kept > slots:
            k = pick_corner(pts, depth, kept, i0, i1, i2)
            if s == 0:
                i0 = k
            elif s == 1:
                i1 = k
            elif s == 2:
                i2 = k
        if k >= 0 and k < kept:
            p = wp.vec3(pts[k])
            d = depth[k]
            emit_contact(slot0 + s, d, cn, p - 0.5 * d * mid, margin, wp.vec3(0.0), out)
            written += 1
    return written


@wp.func
def face_normal(c: Convex, face: int, hulls: MeshHulls):
    """World outward unit normal of face ``face`` (box face id or hull polygon) of c."""
    nl = wp.vec3(0.0)
    if c.kind == BOX:
        nl[face // 2] = float(2 * (face % 2) - 1)
    else:
        nl = wp.normalize(wp.cw_div(hulls.mesh_face_normal[face], c.size))
    return wp.transform_vector(c.xf, nl)
