"""Convex narrow phase: mesh colliders (their convex hulls) and ellipsoids against spheres, capsules,
boxes, cylinders, meshes and ellipsoids, and cylinder against cylinder (MuJoCo's mjc_Convex for all).

Per pair (A, B), B the mesh, ellipsoid or (with A a cylinder) cylinder: :func:`.gjk.gjk` gives the
distance of the cores (sphere centre, capsule segment, box, cylinder, hull) and the normal n (A to B)
when they are apart, :func:`.gjk.epa_face` the penetration depth and normal when they overlap, with the
corners of EPA's final face; the radius of a sphere or capsule is subtracted. Nothing is emitted at or
beyond the pair's margin. Otherwise the contacts follow MuJoCo's multi-contact rules
(engine_collision_gjk.c, ``multicontact``). Mesh faces are MuJoCo's polygons (:mod:`.hull`: hull
triangles merged by rounded normal, Newell normals, corners in MuJoCo's order); a face's corners are
read as MuJoCo's meshFace and boxFace list them (clockwise seen from outside; a mesh polygon of more than
``POLY`` corners is subsampled, MuJoCo has no such limit).

Two boxes or meshes overlapping (MuJoCo's case), from the features of EPA's final face (``_multicontact``):

* each shape's feature is the distinct vertices among the face's corners (MuJoCo's simplexDim: a vertex,
  an edge or a face); its candidate faces are MuJoCo's meshNormals / boxNormals (the polygon holding a
  face's three vertices, the up to two holding an edge, all those at a vertex, in polygon order; a box's
  shared faces, or the face within ``FACE_TOL`` of n);
* face-face when a face of A and a face of B are within ``FACE_TOL`` (5.1 degrees) of opposite: B's face
  is clipped by the side planes of A's face as MuJoCo's polygonClip (one side at a time in A's corner
  order; per incident edge PQ the crossing point, kept for a parameter in [0, 1], then Q where inside),
  each corner's distance measured along A's face normal from A's first corner, the contact normal B's
  face normal reversed. MuJoCo takes the first qualifying pair (A's faces in the outer loop); here the
  most nearly opposite one (ranked by |na + nb|^2, which float32 resolves where the dot product rounds
  to -1), because EPA's final face here is not always MuJoCo's (another triangle of the same Minkowski
  facet, or one its tolerance stops at), so the candidates may differ, and MuJoCo's choice then is
  the most nearly opposite pair more often (two halves of a flat hip side, 1e-4 apart, in go2);
* else, when the feature of lower dimension (A's on a tie) is an edge or a vertex: its edges (an edge
  feature itself; at a vertex, the edge to the corner before it in each of its polygons, or a box
  corner's three edges) against the other shape's candidate faces, the first (faces in the outer loop)
  within ``EDGE_TOL`` of perpendicular: the edge is clipped by that face's side planes, distances and
  the contact normal along the face normal;
* more than 4 clipped corners: MuJoCo's quadrilateral (polygonQuad: a local search for the largest area
  over the clipped polygon, in its order).

Where that gives nothing, and for every other pair: the features through the witness points (the
closest or deepest points of the two cores), as before MuJoCo's index-based rules were followed:

* candidate faces: the box faces or hull polygons through the witness (within a small tolerance of the
  slab a polygon's corners span, inside its outline) that face the other shape, or a cylinder cap (a
  regular ``CAP_SIDES``-gon, as in MuJoCo); candidate edges: the edges of those faces through the
  witness, a capsule's segment or a cylinder's side line when within ``EDGE_TOL`` of perpendicular to n;
* face-face as above;
* else face-edge, the edge preferably from the shape whose witness feature has the lower dimension
  (the other way when that fails: MuJoCo's EPA corners can span a face while the witness lies on one of
  its edges), a capsule's edge moved by its radius along n;
* else, or when clipping leaves nothing closer than the margin: one contact at the witness points.

More corners than slots: MuJoCo's quadrilateral for two boxes / meshes and for two cylinders (caps
from angle 0, clockwise seen from outside); for a cylinder and a box or mesh the deepest, the farthest
from it, then the two that widen the contact area most. Contact points are midway between the
surfaces, as MuJoCo's. Known differences: MuJoCo reports an edge clipped to a single point as two
identical contacts (one here); its EPA on rounded cores (capsule ends, cylinders) stops at an inscribed
polytope, up to ~5e-4 m shallower than the exact depth found here on the cores; its final EPA triangle,
and so its features, can differ from ours (above); clipping runs in float32 here, so corners of the two
faces within rounding of a side plane can be kept, dropped or doubled otherwise than in MuJoCo's
double precision, and the quadrilateral's local search can then end elsewhere.

Slots per pair (``feature_count``): with a mesh, sphere 1, capsule 2, box / cylinder / mesh 4;
cylinder-cylinder 4; with an ellipsoid (no faces or edges), 1. :func:`.driver.collide` launches
:data:`convex_kernel` (one block per world, see :func:`.primitive.world_pair_kernel`) for models with such pairs.
"""

from __future__ import annotations

import warp as wp

from .gjk import epa, epa_face, gjk
from .primitive import (
    BOX,
    CAPSULE,
    CYLINDER,
    MESH,
    PHASE_CONVEX,
    ContactSlots,
    Convex,
    MeshHulls,
    NarrowArgs,
    emit_contact,
    world_pair_kernel,
)

wp.set_module_options({"enable_backward": False})

__all__ = ["convex_kernel", "witnesses", "FACE_TOL", "EDGE_TOL"]

FACE_TOL = 0.996  # MuJoCo's mjFACE_TOL: two faces whose normals are this close to opposite touch
EDGE_TOL = 0.0888  # MuJoCo's mjEDGE_TOL: an edge this close to perpendicular to a face normal lies on it
POLY = 64  # corners of a mesh polygon read (larger ones are subsampled); MuJoCo has no such limit
CLIP = 2 * POLY  # corners of a clipped polygon (MuJoCo's buffer: twice its largest polygon)
CAP_SIDES = 16  # corners of the regular polygon standing for a cylinder cap (as MuJoCo)
_OVERLAP = 1.0e-6  # [m] core distances below this go to EPA

MAXF = 16  # candidate faces (and edges) through a witness point
_MINVAL = 1.0e-15  # MuJoCo's mjMINVAL: a clipped point is inside a side plane down to this distance below it
# MuJoCo's box faces (boxFace, its face k = our face 2 * (k // 2) + 1 - k % 2): four corners, each a
# 3-bit code (bit 0: +x, bit 1: +y, bit 2: +z), corner q in bits 4q..4q+2, for our faces 0 (-x) .. 5 (+z).
_BOX_FACE_0 = 0x0462
_BOX_FACE_1 = 0x5137
_BOX_FACE_2 = 0x0154
_BOX_FACE_3 = 0x6732
_BOX_FACE_4 = 0x1023
_BOX_FACE_5 = 0x4576
_poly = wp.types.matrix(shape=(4, 3), dtype=wp.float32)
_ids = wp.types.vector(length=MAXF, dtype=wp.int32)
MAXC = 64  # candidate faces of a mesh vertex in MuJoCo's multicontact (its nmeshdegmax: the model's largest)
_cands = wp.types.vector(length=MAXC, dtype=wp.int32)
_normals = wp.types.matrix(shape=(MAXF, 3), dtype=wp.float32)
_clipped = wp.types.matrix(shape=(CLIP, 3), dtype=wp.float32)
_clipped_val = wp.types.vector(length=CLIP, dtype=wp.float32)


@wp.func
def _faces_at(c: Convex, w: wp.vec3, d: wp.vec3, tol: float, hulls: MeshHulls):
    """Faces of c's core through the world point w (within tol) facing d (outward normal . d > 0):
    (count, face ids, world normals). Ids: box 2 axis + (1 on the positive side), cylinder cap 0
    (bottom) or 1 (top), hull face index."""
    inv = wp.transform_inverse(c.xf)
    wl = wp.transform_point(inv, w)
    dl = wp.transform_vector(inv, d)
    ids = _ids()
    nrm = _normals()
    n = int(0)
    if c.kind == BOX:
        for k in range(3):
            for side in range(2):
                s = float(2 * side - 1)
                if wp.abs(wl[k] - s * c.size[k]) <= tol and s * dl[k] > 0.0:
                    nl = wp.vec3(0.0)
                    nl[k] = s
                    ids[n] = 2 * k + side
                    nrm[n] = wp.transform_vector(c.xf, nl)
                    n += 1
    elif c.kind == CYLINDER:
        for side in range(2):
            s = float(2 * side - 1)
            if wp.abs(wl[2] - s * c.size[1]) <= tol and s * dl[2] > 0.0:
                ids[n] = side
                nrm[n] = wp.transform_vector(c.xf, wp.vec3(0.0, 0.0, s))
                n += 1
    elif c.kind == MESH:
        for f in range(c.face_start, c.face_end):
            nl = wp.normalize(wp.cw_div(hulls.mesh_face_normal[f], c.size))
            if n < MAXF and wp.dot(nl, dl) > 0.0 and _on_polygon(c, f, wl, nl, tol, hulls):
                ids[n] = f
                nrm[n] = wp.transform_vector(c.xf, nl)
                n += 1
    return n, ids, nrm


@wp.func
def _on_polygon(c: Convex, f: int, wl: wp.vec3, nl: wp.vec3, tol: float, hulls: MeshHulls):
    """True when the point wl (c's frame) lies on hull polygon f (normal nl): within tol of the slab its
    corners span along nl (MuJoCo's polygons are not exactly planar: their triangles' normals round to
    the same key) and inside its outline seen along nl (within tol of each side)."""
    first = hulls.mesh_face_vert_start[f]
    total = hulls.mesh_face_vert_start[f + 1] - first
    v0 = wp.cw_mul(hulls.mesh_verts[hulls.mesh_face_verts[first]], c.size)
    lo = float(0.0)
    hi = float(0.0)
    inside = bool(True)
    for q in range(total):
        p = wp.cw_mul(hulls.mesh_verts[hulls.mesh_face_verts[first + q]], c.size)
        r = wp.cw_mul(hulls.mesh_verts[hulls.mesh_face_verts[first + (q + 1) % total]], c.size)
        h = wp.dot(p - v0, nl)
        lo = wp.min(lo, h)
        hi = wp.max(hi, h)
        e = r - p
        if wp.dot(wp.cross(e, wl - p), nl) < -tol * wp.length(e):  # corners counter-clockwise from outside
            inside = False
    h = wp.dot(wl - v0, nl)
    return inside and h >= lo - tol and h <= hi + tol


@wp.func
def _corner_count(c: Convex, face: int, hulls: MeshHulls):
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
def _corner(c: Convex, face: int, q: int, hulls: MeshHulls):
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
def _on_segment(w: wp.vec3, p: wp.vec3, q: wp.vec3, tol: float):
    """True when point w is within tol of segment pq (of positive length)."""
    e = q - p
    ee = wp.dot(e, e)
    if ee < 1.0e-20:
        return False
    t = wp.clamp(wp.dot(w - p, e) / ee, 0.0, 1.0)
    return wp.length(w - p - t * e) <= tol


@wp.func
def _edges_at(c: Convex, w: wp.vec3, d: wp.vec3, tol: float, nf: int, ids: _ids, hulls: MeshHulls):
    """Edges of c's core through the world point w: the edges of its faces ``ids`` (box, hull), a
    capsule's segment or a cylinder's side line when within EDGE_TOL of perpendicular to the normal d
    (as MuJoCo: a capsule tilted further gets one contact). Returns (count, first ends, second ends)."""
    e0 = _normals()
    e1 = _normals()
    n = int(0)
    axis = wp.transform_vector(c.xf, wp.vec3(0.0, 0.0, 1.0))
    if (c.kind == CAPSULE or c.kind == CYLINDER) and wp.abs(wp.dot(axis, d)) >= EDGE_TOL:
        return n, e0, e1
    if c.kind == CAPSULE:
        p = wp.transform_point(c.xf, wp.vec3(0.0, 0.0, -c.size[1]))
        q = wp.transform_point(c.xf, wp.vec3(0.0, 0.0, c.size[1]))
        if _on_segment(w, p, q, tol):
            e0[0] = p
            e1[0] = q
            n = 1
    elif c.kind == CYLINDER:
        wl = wp.transform_point(wp.transform_inverse(c.xf), w)
        rho = wp.sqrt(wl[0] * wl[0] + wl[1] * wl[1])
        if wp.abs(rho - c.size[0]) <= tol and rho > 0.0:
            u = c.size[0] / rho
            e0[0] = wp.transform_point(c.xf, wp.vec3(wl[0] * u, wl[1] * u, -c.size[1]))
            e1[0] = wp.transform_point(c.xf, wp.vec3(wl[0] * u, wl[1] * u, c.size[1]))
            n = 1
    elif c.kind == BOX or c.kind == MESH:
        for f in range(nf):
            count = _corner_count(c, ids[f], hulls)
            for i in range(count):
                p = _corner(c, ids[f], i, hulls)
                q = _corner(c, ids[f], (i + 1) % count, hulls)
                if n < MAXF and _on_segment(w, p, q, tol):
                    e0[n] = p
                    e1[n] = q
                    n += 1
    return n, e0, e1


@wp.func
def _feature_dim(c: Convex, faces: int, edges: int):
    """Dimension of the feature of c holding a witness point, from the faces and edges through it."""
    if c.kind == BOX or c.kind == MESH:
        if faces >= 3:
            return 1
        if faces == 2:
            return 2
        return 3
    if edges > 0:
        return 2
    if faces > 0:
        return 3
    return 1


@wp.func
def _side_plane(c: Convex, face: int, rc: int, rn: wp.vec3, i: int, hulls: MeshHulls):
    """Side plane through edge i of face ``face`` of c (rc corners, normal rn), as MuJoCo's planeNormal:
    its unit normal (inward for corners clockwise from outside) and a point of it (corner i)."""
    p0 = _corner(c, face, i, hulls)
    p1 = _corner(c, face, (i + 1) % rc, hulls)
    return wp.normalize(wp.cross(p1 - p0, rn)), p0


@wp.func
def _clip_segment(c: Convex, face: int, rn: wp.vec3, p: wp.vec3, q: wp.vec3, hulls: MeshHulls):
    """Segment pq clipped by the side planes of face ``face`` of c (normal rn): (corners, count 0 or 2)."""
    cur = _clipped()
    rc = _corner_count(c, face, hulls)
    t0 = float(0.0)
    t1 = float(1.0)
    for i in range(rc):
        m, o = _side_plane(c, face, rc, rn, i, hulls)
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
def _clip_polygon(c: Convex, face: int, rn: wp.vec3, inc: _clipped, ic: int, hulls: MeshHulls):
    """Polygon inc (ic >= 3 corners) clipped by the side planes of face ``face`` of c (normal rn), one side
    at a time in the face's corner order, as MuJoCo's polygonClip: per incident edge PQ, the crossing
    point where PQ crosses the plane (kept when its parameter is within [0, 1]), then Q where Q is
    inside. Returns (corners, count)."""
    cur = inc
    n = ic
    rc = _corner_count(c, face, hulls)
    for e in range(rc):
        m, o = _side_plane(c, face, rc, rn, e, hulls)
        off = wp.dot(m, o)
        nxt = _clipped()
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
def _quad(pts: _clipped, n: int):
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
def _pick(pts: _clipped, depth: _clipped_val, n: int, i0: int, i1: int, i2: int):
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
def _opposite_faces(nfa: int, nra: _normals, nfb: int, nrb: _normals):
    """Of the nfa normals nra of A and the nfb normals nrb of B, the most nearly opposite pair within
    FACE_TOL of opposite (the first on a tie, A's in the outer loop): (found, index in nra, index in
    nrb). Ranked by |na + nb|^2 (= 2 + 2 na . nb), which float32 resolves near opposite where the dot
    product rounds to -1 (two halves of a flat side whose normals differ by 1e-4)."""
    found = bool(False)
    fa = int(0)
    fb = int(0)
    best = float(1.0e30)
    for i in range(nfa):
        for j in range(nfb):
            na = wp.vec3(nra[i])
            nb = wp.vec3(nrb[j])
            gap = wp.length_sq(na + nb)
            if wp.dot(na, nb) < -FACE_TOL and gap < best:
                best = gap
                found = True
                fa = i
                fb = j
    return found, fa, fb


@wp.func
def _most_opposite(a: Convex, nfa: int, fa: _cands, b: Convex, nfb: int, fb: _cands, hulls: MeshHulls):
    """:func:`_opposite_faces` of the candidate faces fa of A and fb of B: (found, position in fa, in fb)."""
    found = bool(False)
    ia = int(0)
    ib = int(0)
    best = float(1.0e30)
    for i in range(nfa):
        na = _face_normal(a, fa[i], hulls)
        for j in range(nfb):
            nb = _face_normal(b, fb[j], hulls)
            gap = wp.length_sq(na + nb)
            if wp.dot(na, nb) < -FACE_TOL and gap < best:
                best = gap
                found = True
                ia = i
                ib = j
    return found, ia, ib


@wp.func
def _edge_on_face(nf: int, nrm: _normals, ne: int, e0: _normals, e1: _normals):
    """Of the nf faces (normals nrm) and the ne edges (ends e0, e1), the face and edge where the edge is
    most nearly perpendicular to the face normal, within EDGE_TOL: (found, face, the edge as a 2-corner
    polygon)."""
    best = float(EDGE_TOL)
    face = int(0)
    edge = _poly()
    for i in range(nf):
        for j in range(ne):
            c = wp.abs(wp.dot(wp.vec3(nrm[i]), wp.normalize(wp.vec3(e1[j]) - wp.vec3(e0[j]))))
            if c < best:
                best = c
                face = i
                edge[0] = e0[j]
                edge[1] = e1[j]
    return best < EDGE_TOL, face, edge


@wp.func
def _face_edge(
    a: Convex,
    b: Convex,
    nfa: int,
    nra: _normals,
    nea: int,
    ea0: _normals,
    ea1: _normals,
    nfb: int,
    nrb: _normals,
    neb: int,
    eb0: _normals,
    eb1: _normals,
):
    """A face-edge pair of the faces (nf, normals nr) and edges (ne, ends e0, e1) through the witness points
    of A and B: (mode, face, edge), mode 2 for A's face and B's edge, 3 for A's edge and B's face, 0 for
    none."""
    found2, fa2, inc2 = _edge_on_face(nfa, nra, neb, eb0, eb1)
    found3, fb3, inc3 = _edge_on_face(nfb, nrb, nea, ea0, ea1)
    # As MuJoCo, the edge preferably comes from the lower-dimensional witness feature (A's on a
    # tie): dimension 1 at a vertex (3 or more faces through the witness), 2 on an edge (2 faces,
    # or a capsule / cylinder line), 3 inside a face.
    dim_a = _feature_dim(a, nfa, nea)
    dim_b = _feature_dim(b, nfb, neb)
    # MuJoCo tries only the lower-dimensional feature's edges and gives up when none lies on the other
    # shape's face; but its dimensions are those of the EPA triangle's corners, which can span a face
    # while the witness lies on one of its edges. Here the other way is tried when the first fails.
    if found3 and (not found2 or (dim_a < 3 and dim_a <= dim_b)):
        return 3, fb3, inc3
    if found2:
        return 2, fa2, inc2
    return 0, 0, inc2


@wp.func
def _polytope(c: Convex):
    """True for a box or a mesh: the shapes MuJoCo's multicontact handles (4 contacts, polygonQuad)."""
    return c.kind == BOX or c.kind == MESH


@wp.func
def _clip_pair(
    mode: int,
    a: Convex,
    b: Convex,
    n: wp.vec3,
    face_a: int,
    nra: wp.vec3,
    face_b: int,
    nrb: wp.vec3,
    inc: _poly,
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
        pts, count = _clip_segment(b, face_b, nrb, p, q, hulls)
        return pts, count, nrb, _corner(b, face_b, 0, hulls), -nrb
    # A's face is the reference, B's face or edge is clipped
    cn = nra
    pts = _clipped()
    count = int(0)
    if mode == 1:
        ic = _corner_count(b, face_b, hulls)
        for k in range(ic):
            pts[k] = _corner(b, face_b, k, hulls)
        pts, count = _clip_polygon(a, face_a, nra, pts, ic, hulls)
        cn = -nrb
    else:
        pts, count = _clip_segment(a, face_a, nra, wp.vec3(inc[0]), wp.vec3(inc[1]), hulls)
    return pts, count, nra, _corner(a, face_a, 0, hulls), cn


@wp.func
def _emit_corners(
    slot0: int,
    slots: int,
    pts: _clipped,
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
    distance back along ``mid``; more corners than slots: those :func:`_pick` keeps, or with ``quad_keep``
    (and 4 slots) MuJoCo's quadrilateral (:func:`_quad`). Returns how many were written."""
    depth = _clipped_val()
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
        quad = _quad(pts, kept)
    written = int(0)
    for s in range(slots):
        k = s
        if quad_keep and kept > slots and slots == 4:
            k = quad[s]
        elif kept > slots:
            k = _pick(pts, depth, kept, i0, i1, i2)
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
def _manifold(
    slot0: int,
    slots: int,
    a: Convex,
    b: Convex,
    n: wp.vec3,
    wa: wp.vec3,
    wb: wp.vec3,
    margin: float,
    hulls: MeshHulls,
    out: ContactSlots,
):
    """Clipped feature contacts (module docstring) into slots [slot0, slot0 + slots), from the normal n
    (A to B) and the witness points wa, wb on the cores; returns how many were written (0: no face-face
    or face-edge pair through the witnesses, or nothing left after clipping)."""
    tol_a = 1.0e-5 * (1.0 + wp.length(wa - wp.transform_get_translation(a.xf)))
    tol_b = 1.0e-5 * (1.0 + wp.length(wb - wp.transform_get_translation(b.xf)))
    # Candidate features: those through the witness points (MuJoCo: those of the EPA simplex's corners).
    nfa, ida, nra = _faces_at(a, wa, n, tol_a, hulls)
    nfb, idb, nrb = _faces_at(b, wb, -n, tol_b, hulls)
    found, fa, fb = _opposite_faces(nfa, nra, nfb, nrb)
    mode = int(1)  # 1: face-face, 2: A's face and B's edge, 3: A's edge and B's face
    inc = _poly()
    if not found:
        nea, ea0, ea1 = _edges_at(a, wa, n, tol_a, nfa, ida, hulls)
        neb, eb0, eb1 = _edges_at(b, wb, -n, tol_b, nfb, idb, hulls)
        edge_mode, face, edge = _face_edge(a, b, nfa, nra, nea, ea0, ea1, nfb, nrb, neb, eb0, eb1)
        mode = edge_mode
        fa = face
        fb = face
        inc = edge
    if mode == 0:
        return 0
    pts, count, rn, ro, cn = _clip_pair(mode, a, b, n, ida[fa], wp.vec3(nra[fa]), idb[fb], wp.vec3(nrb[fb]), inc, hulls)
    # Midway between the surfaces, along B's face normal (face-face) or the reference normal.
    mid = rn
    if mode == 1:
        mid = cn
    # MuJoCo's quadrilateral where MuJoCo's multicontact runs (boxes and meshes, whose polygons here are
    # MuJoCo's corner for corner, :mod:`.hull`) and for two cylinder caps; with a cylinder and a mesh or
    # box the deepest corner, the farthest from it and the two widening the area most are kept.
    quad_keep = (a.kind == CYLINDER and b.kind == CYLINDER) or (_polytope(a) and _polytope(b))
    return _emit_corners(slot0, slots, pts, count, rn, ro, mid, cn, margin, quad_keep, out)


@wp.func
def _vertex_id(c: Convex, pw: wp.vec3, hulls: MeshHulls):
    """The vertex of c's core at the world point pw (an EPA support point): a mesh's hull vertex (index in
    the hull tables) nearest to it, or a box corner as MuJoCo numbers them (bit 0: +x, 1: +y, 2: +z)."""
    pl = wp.transform_point(wp.transform_inverse(c.xf), pw)
    if c.kind == BOX:
        code = int(0)
        for k in range(3):
            if pl[k] > 0.0:
                code += 1 << k
        return code
    best = float(1.0e30)
    vid = int(c.vert_start)
    for i in range(c.vert_start, c.vert_end):
        e = wp.length_sq(wp.cw_mul(hulls.mesh_verts[i], c.size) - pl)
        if e < best:
            best = e
            vid = i
    return vid


@wp.func
def _simplex_dim(c: Convex, corners: wp.mat33, hulls: MeshHulls):
    """MuJoCo's simplexDim of the EPA face's corners on c: (dimension 1 (a vertex), 2 (an edge) or 3 (a
    face), the distinct vertices v1, v2, v3 in MuJoCo's order, world points of v1 and v2)."""
    p1 = wp.vec3(corners[0])
    p2 = wp.vec3(corners[1])
    v1 = _vertex_id(c, p1, hulls)
    v2 = _vertex_id(c, p2, hulls)
    v3 = _vertex_id(c, wp.vec3(corners[2]), hulls)
    dim = int(3)
    if v1 == v2:
        if v1 == v3:
            dim = 1
        else:
            dim = 2
            v2 = v3
            p2 = wp.vec3(corners[2])
    elif v3 == v1 or v3 == v2:
        dim = 2
    return dim, v1, v2, v3, p1, p2


@wp.func
def _has_vertex(f: int, v: int, hulls: MeshHulls):
    """True when hull vertex v is a corner of polygon f."""
    found = bool(False)
    for k in range(hulls.mesh_face_vert_start[f], hulls.mesh_face_vert_start[f + 1]):
        if hulls.mesh_face_verts[k] == v:
            found = True
    return found


@wp.func
def _previous_corner(f: int, v: int, hulls: MeshHulls):
    """The corner before hull vertex v in polygon f's corner list (MuJoCo's polyvert order)."""
    first = hulls.mesh_face_vert_start[f]
    total = hulls.mesh_face_vert_start[f + 1] - first
    prev = int(v)
    for j in range(total):
        if hulls.mesh_face_verts[first + j] == v:
            prev = hulls.mesh_face_verts[first + (j + total - 1) % total]
    return prev


@wp.func
def _mj_box_face(axis: int, positive: bool):
    """Our id of a box face (2 axis + 1 on the positive side) given as MuJoCo's (axis, side)."""
    if positive:
        return 2 * axis + 1
    return 2 * axis


@wp.func
def _feature_faces(c: Convex, dim: int, v1: int, v2: int, v3: int, dw: wp.vec3, hulls: MeshHulls):
    """MuJoCo's candidate faces of a feature of c (meshNormals, boxNormals): (count, face ids). A mesh:
    the polygon holding all three vertices of a face (the first, among the first two holding v1 and v2),
    the (up to two) polygons holding an edge, all the polygons at a vertex, in polygon order. A box: the
    face all corners share, the two faces an edge's corners share, the three faces at a corner; where
    the corners share no single face (a face) or not two (an edge), the face within FACE_TOL of the
    world direction dw (boxNormals2)."""
    ids = _cands()
    n = int(0)
    if c.kind == MESH:
        pairs = int(0)
        for f in range(c.face_start, c.face_end):
            if _has_vertex(f, v1, hulls):
                if dim == 1:
                    if n < MAXC:
                        ids[n] = f
                        n += 1
                elif pairs < 2 and _has_vertex(f, v2, hulls):
                    pairs += 1
                    if dim == 2 or (n == 0 and _has_vertex(f, v3, hulls)):
                        ids[n] = f
                        n += 1
        return n, ids
    # box
    if dim == 1:
        for k in range(3):
            ids[k] = _mj_box_face(k, ((v1 >> k) & 1) == 1)
        return 3, ids
    for k in range(3):
        b1 = (v1 >> k) & 1
        b2 = (v2 >> k) & 1
        b3 = (v3 >> k) & 1
        if dim == 2:
            b3 = b1
        if b1 == b2 and b1 == b3:
            ids[n] = _mj_box_face(k, b1 == 1)
            n += 1
    if (dim == 3 and n == 1) or (dim == 2 and n == 2):
        return n, ids
    # boxNormals2: a face within FACE_TOL of the direction, in MuJoCo's order (+x, -x, +y, ...)
    dl = wp.normalize(wp.transform_vector(wp.transform_inverse(c.xf), dw))
    n = 0
    for m in range(6):
        k = m // 2
        s = 1.0 - 2.0 * float(m % 2)
        if n == 0 and s * dl[k] > FACE_TOL:
            ids[0] = _mj_box_face(k, m % 2 == 0)
            n = 1
    return n, ids


@wp.func
def _face_normal(c: Convex, face: int, hulls: MeshHulls):
    """World outward unit normal of face ``face`` (box face id or hull polygon) of c."""
    nl = wp.vec3(0.0)
    if c.kind == BOX:
        nl[face // 2] = float(2 * (face % 2) - 1)
    else:
        nl = wp.normalize(wp.cw_div(hulls.mesh_face_normal[face], c.size))
    return wp.transform_vector(c.xf, nl)


@wp.func
def _edge_end(c: Convex, dim: int, j: int, v1: int, p2: wp.vec3, ids: _cands, hulls: MeshHulls):
    """World end of candidate edge j from vertex v1 (MuJoCo's meshEdgeNormals, boxEdgeNormals): an edge
    feature's other vertex p2; at a vertex, the corner before it in its j-th polygon (a mesh) or the
    corner across axis j (a box)."""
    if dim == 2:
        return p2
    if c.kind == BOX:
        code = v1 ^ (1 << j)
        p = wp.vec3(0.0)
        for k in range(3):
            p[k] = c.size[k] * float(2 * ((code >> k) & 1) - 1)
        return wp.transform_point(c.xf, p)
    return wp.transform_point(c.xf, wp.cw_mul(hulls.mesh_verts[_previous_corner(ids[j], v1, hulls)], c.size))


@wp.func
def _edge_face(
    e: Convex,
    dim: int,
    v1: int,
    p1: wp.vec3,
    p2: wp.vec3,
    eids: _cands,
    ne: int,
    f: Convex,
    nf: int,
    fids: _cands,
    hulls: MeshHulls,
):
    """MuJoCo's alignedFaceEdge: the first face of f (outer loop) and edge of e from p1 (inner loop) within
    EDGE_TOL of perpendicular: (found, face position in fids, edge end)."""
    found = bool(False)
    face = int(0)
    end = wp.vec3(0.0)
    for i in range(nf):
        fn = _face_normal(f, fids[i], hulls)
        for j in range(ne):
            if not found:
                q = _edge_end(e, dim, j, v1, p2, eids, hulls)
                if wp.abs(wp.dot(wp.normalize(q - p1), fn)) < EDGE_TOL:
                    found = True
                    face = i
                    end = q
    return found, face, end


@wp.func
def _multicontact(
    slot0: int,
    slots: int,
    a: Convex,
    b: Convex,
    n: wp.vec3,
    ca: wp.mat33,
    cb: wp.mat33,
    margin: float,
    hulls: MeshHulls,
    out: ContactSlots,
):
    """MuJoCo's multicontact for two boxes or meshes (module docstring), from the EPA face's corners on A
    (ca) and on B (cb) and the normal n (A to B): contacts into slots [slot0, slot0 + slots); returns
    how many were written (0: no face-face or edge-face pair, or nothing left after clipping)."""
    dim_a, a1, a2, a3, pa1, pa2 = _simplex_dim(a, ca, hulls)
    dim_b, b1, b2, b3, pb1, pb2 = _simplex_dim(b, cb, hulls)
    nfa, fa = _feature_faces(a, dim_a, a1, a2, a3, n, hulls)
    nfb, fb = _feature_faces(b, dim_b, b1, b2, b3, -n, hulls)
    # alignedFaces: a pair of faces within FACE_TOL of opposite. MuJoCo takes the first (A's in the outer
    # loop, polygons in index order); its EPA face, and so its candidate faces, are not always ours, so
    # here the most nearly opposite pair (module docstring).
    found, ia, ib = _most_opposite(a, nfa, fa, b, nfb, fb, hulls)
    pts = _clipped()
    count = int(0)
    rn = wp.vec3(0.0)
    ro = wp.vec3(0.0)
    cn = wp.vec3(0.0)
    if found:  # face-face: B's face clipped by A's
        face_a = fa[ia]
        face_b = fb[ib]
        rn = _face_normal(a, face_a, hulls)
        ic = _corner_count(b, face_b, hulls)
        for k in range(ic):
            pts[k] = _corner(b, face_b, k, hulls)
        pts, count = _clip_polygon(a, face_a, rn, pts, ic, hulls)
        ro = _corner(a, face_a, 0, hulls)
        cn = -_face_normal(b, face_b, hulls)
        return _emit_corners(slot0, slots, pts, count, rn, ro, cn, cn, margin, True, out)
    if dim_a < 3 and dim_a <= dim_b:  # an edge of A on a face of B
        ne = nfa
        if dim_a == 2:
            ne = 1
        elif a.kind == BOX:
            ne = 3
        ok, i, end = _edge_face(a, dim_a, a1, pa1, pa2, fa, ne, b, nfb, fb, hulls)
        if not ok:
            return 0
        rn = _face_normal(b, fb[i], hulls)
        pts, count = _clip_segment(b, fb[i], rn, pa1, end, hulls)
        return _emit_corners(slot0, slots, pts, count, rn, _corner(b, fb[i], 0, hulls), rn, -rn, margin, True, out)
    if dim_b < 3:  # an edge of B on a face of A
        ne = nfb
        if dim_b == 2:
            ne = 1
        elif b.kind == BOX:
            ne = 3
        ok, i, end = _edge_face(b, dim_b, b1, pb1, pb2, fb, ne, a, nfa, fa, hulls)
        if not ok:
            return 0
        rn = _face_normal(a, fa[i], hulls)
        pts, count = _clip_segment(a, fa[i], rn, pb1, end, hulls)
        return _emit_corners(slot0, slots, pts, count, rn, _corner(a, fa[i], 0, hulls), rn, rn, margin, True, out)
    return 0


@wp.func
def witnesses(a: Convex, b: Convex, verts: wp.array(dtype=wp.vec3)):
    """The contact normal n (A to B), the witness points on the cores and the signed distance of the surfaces
    [m]: GJK's closest points when the cores are apart, else EPA's deepest ones. Returns (ok, n, witness on
    A, witness on B, distance); ok is False where EPA finds no tetrahedron (a flat Minkowski difference)."""
    core, wa, wb, sa, sb, ns = gjk(a, b, verts)
    if core > _OVERLAP:
        return True, (wb - wa) / core, wa, wb, core - a.radius - b.radius
    depth, n, ea, eb, ok = epa(a, b, verts, sa, sb, ns)
    return ok, n, ea, eb, -depth - a.radius - b.radius


@wp.func(inline=True)  # the tables by value: inlined into the per-world loop, they are not copied
def _convex_pair(p: int, slots: wp.vec2i, bound: float, a: Convex, b: Convex, args: NarrowArgs):
    """Convex narrow phase of pair p (shapes a and b, slots its (first slot, slot count)): fills its contact
    slots."""
    if wp.length(wp.transform_get_translation(b.xf) - wp.transform_get_translation(a.xf)) > bound:
        return
    margin = args.pair_margin[p]
    verts = args.hulls.mesh_verts
    core, wa, wb, sa, sb, ns = gjk(a, b, verts)
    ok = bool(True)
    n = wp.vec3(0.0)
    d0 = float(0.0)
    ca = wp.mat33(0.0)
    cb = wp.mat33(0.0)
    if core > _OVERLAP:
        n = (wb - wa) / core
        d0 = core - a.radius - b.radius
    else:
        depth, n_epa, ea, eb, ca_epa, cb_epa, ok_epa = epa_face(a, b, verts, sa, sb, ns)
        ok = ok_epa
        n = n_epa
        wa = ea
        wb = eb
        ca = ca_epa
        cb = cb_epa
        d0 = -depth - a.radius - b.radius
    if not ok:
        return
    if d0 >= margin:
        return
    written = int(0)
    if _polytope(a) and _polytope(b) and core <= _OVERLAP:
        # MuJoCo's multicontact (penetration only: EPA's face)
        written = _multicontact(slots[0], slots[1], a, b, n, ca, cb, margin, args.hulls, args.out)
    if written == 0:
        written = _manifold(slots[0], slots[1], a, b, n, wa, wb, margin, args.hulls, args.out)
    pt = 0.5 * (wa + a.radius * n + wb - b.radius * n)  # midway between the two surfaces
    if written == 0:
        emit_contact(slots[0], d0, n, pt, margin, wp.vec3(0.0), args.out)


convex_kernel = world_pair_kernel(_convex_pair, PHASE_CONVEX, "_convex_kernel", __name__)
