"""Convex narrow phase: mesh colliders (their convex hulls) and ellipsoids against spheres, capsules,
boxes, cylinders, meshes and ellipsoids, and cylinder against cylinder (MuJoCo's mjc_Convex for all).

Per pair (A, B), B the mesh, ellipsoid or (with A a cylinder) cylinder: :func:`.gjk.gjk` gives the
distance of the cores (sphere centre, capsule segment, box, cylinder, hull) and the normal n (A to B)
when they are apart, :func:`.gjk.epa` the penetration depth and normal when they overlap; the radius of a sphere
or capsule is subtracted. Nothing is emitted at or beyond the pair's margin. Otherwise the contacts
follow MuJoCo's multi-contact rules (engine_collision_gjk.c, ``multicontact``), from the features
through the witness points (the closest or deepest points of the two cores):

* candidate faces: the box or hull faces through the witness that face the other shape (a hull face
  has at most ``POLY`` corners: larger ones are subsampled), or a cylinder cap (a regular
  ``CAP_SIDES``-gon, as in MuJoCo); candidate edges: the edges of those faces through the witness, a
  capsule's segment or a cylinder's side line when within ``EDGE_TOL`` of perpendicular to n;
* face-face, when a face of A and a face of B are within ``FACE_TOL`` (5.1 degrees) of opposite: B's
  face is clipped by the side planes of A's face (Sutherland-Hodgman), the distance of each corner is
  measured along A's face normal, the contact normal is B's face normal reversed;
* else face-edge, when an edge is within ``EDGE_TOL`` (5.1 degrees) of perpendicular to a face of the
  other shape (the edge from the shape whose witness feature has the lower dimension, as MuJoCo, when
  both ways exist): the edge (a capsule's moved by its radius along n) is clipped by the face's side
  planes, distances and the contact normal along the face normal;
* else, or when clipping leaves nothing closer than the margin: one contact at the witness points.

More corners than slots: for two cylinders, MuJoCo's quadrilateral (polygonQuad: a local search for the
largest area over the clipped polygon, whose corners follow MuJoCo's: caps from angle 0, clockwise seen
from outside, clipped as MuJoCo's polygonClip orders its output); otherwise the deepest, the farthest
from it, then the two that widen the contact area most (a hull face is not always MuJoCo's polygon:
MuJoCo merges hull triangles whose normals round to the same 0.01 rad azimuth and polar angle, so the two
can keep different corners of the same polygon). Contact points are midway between the surfaces, as
MuJoCo's. Known differences: MuJoCo reports an edge clipped to a single point as two identical
contacts (one here), and its EPA on rounded cores (capsule ends, cylinders) stops at an inscribed
polytope, up to ~5e-4 m shallower than the exact depth found here on the cores.

Slots per pair (``feature_count``): with a mesh, sphere 1, capsule 2, box / cylinder / mesh 4;
cylinder-cylinder 4; with an ellipsoid (no faces or edges), 1. :func:`.driver.collide` launches
:data:`convex_kernel` (one block per world, see :func:`.primitive.world_pair_kernel`) for models with such pairs.
"""

from __future__ import annotations

import warp as wp

from .gjk import epa, gjk
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
POLY = 16  # corners of a feature polygon
CLIP = 2 * POLY  # corners of a clipped polygon
CAP_SIDES = 16  # corners of the regular polygon standing for a cylinder cap (as MuJoCo)
_OVERLAP = 1.0e-6  # [m] core distances below this go to EPA

MAXF = 8  # candidate faces (and edges) through a witness point
_poly = wp.types.matrix(shape=(POLY, 3), dtype=wp.float32)
_ids = wp.types.vector(length=MAXF, dtype=wp.int32)
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
            v0 = wp.cw_mul(hulls.mesh_verts[hulls.mesh_face_verts[hulls.mesh_face_vert_start[f]]], c.size)
            if n < MAXF and wp.abs(wp.dot(wl - v0, nl)) <= tol and wp.dot(nl, dl) > 0.0:
                ids[n] = f
                nrm[n] = wp.transform_vector(c.xf, nl)
                n += 1
    return n, ids, nrm


@wp.func
def _face_polygon(c: Convex, face: int, hulls: MeshHulls):
    """Corners (world, in order around the face) of face ``face`` (id from :func:`_faces_at`):
    (count, corners). A cylinder cap's corners run as MuJoCo's: from angle 0, clockwise seen from outside."""
    poly = _poly()
    count = int(0)
    if c.kind == BOX:
        k = face // 2
        i = (k + 1) % 3
        j = (k + 2) % 3
        for q in range(4):
            p = wp.vec3(0.0)
            p[k] = float(2 * (face % 2) - 1) * c.size[k]
            p[i] = c.size[i] * float(2 * (((q + 1) // 2) % 2) - 1)  # -, +, +, -
            p[j] = c.size[j] * float(2 * (q // 2) - 1)  # -, -, +, +
            poly[q] = p
        count = 4
    elif c.kind == CYLINDER:  # MuJoCo's order: from angle 0, clockwise seen from outside
        side = float(2 * face - 1)
        for q in range(CAP_SIDES):
            ang = -side * 6.283185307179586 * float(q) / float(CAP_SIDES)
            poly[q] = wp.vec3(c.size[0] * wp.cos(ang), c.size[0] * wp.sin(ang), side * c.size[1])
        count = CAP_SIDES
    else:
        first = hulls.mesh_face_vert_start[face]
        total = hulls.mesh_face_vert_start[face + 1] - first
        count = wp.min(total, POLY)
        for q in range(count):  # more corners than POLY: an evenly spread subset (still convex)
            poly[q] = wp.cw_mul(hulls.mesh_verts[hulls.mesh_face_verts[first + (q * total) // count]], c.size)
    for q in range(count):
        poly[q] = wp.transform_point(c.xf, wp.vec3(poly[q]))
    return count, poly


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
            count, poly = _face_polygon(c, ids[f], hulls)
            for i in range(count):
                p = wp.vec3(poly[i])
                q = wp.vec3(poly[(i + 1) % count])
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
def _side_plane(ref: _poly, count: int, rn: wp.vec3, i: int):
    """Inward normal (unnormalized) and a point of the side plane through edge i of polygon ref."""
    p0 = wp.vec3(ref[i])
    p1 = wp.vec3(ref[(i + 1) % count])
    m = wp.cross(rn, p1 - p0)
    centre = wp.vec3(0.0)
    for k in range(count):
        centre += wp.vec3(ref[k])
    centre = centre / float(count)
    if wp.dot(m, centre - p0) < 0.0:
        m = -m
    return m, p0


@wp.func
def _clip_feature(ref: _poly, rc: int, rn: wp.vec3, inc: _poly, ic: int):
    """Incident polygon (ic >= 3 corners) or segment (ic == 2) clipped by the side planes of the
    reference polygon (rc corners, normal rn): (corners, count)."""
    cur = _clipped()
    n = ic
    for k in range(ic):
        cur[k] = inc[k]
    if ic == 2:  # segment: clip its parameter interval
        p = wp.vec3(inc[0])
        q = wp.vec3(inc[1])
        t0 = float(0.0)
        t1 = float(1.0)
        for i in range(rc):
            m, o = _side_plane(ref, rc, rn, i)
            dp = wp.dot(m, p - o)
            dq = wp.dot(m, q - o)
            if dp < 0.0 and dq < 0.0:
                t0 = 1.0
                t1 = 0.0
            elif dp < 0.0:
                t0 = wp.max(t0, dp / (dp - dq))
            elif dq < 0.0:
                t1 = wp.min(t1, dp / (dp - dq))
        n = 0
        if t0 <= t1:
            cur[0] = p + (q - p) * t0
            cur[1] = p + (q - p) * t1
            n = 2
        return cur, n
    for i in range(rc):
        m, o = _side_plane(ref, rc, rn, i)
        nxt = _clipped()
        k = int(0)
        for j in range(n):
            p = wp.vec3(cur[j])
            q = wp.vec3(cur[(j + 1) % n])
            dp = wp.dot(m, p - o)
            dq = wp.dot(m, q - o)
            # MuJoCo's order (polygonClip): per edge pq, the crossing point, then q where q is inside.
            if (dp >= 0.0) != (dq >= 0.0) and k < CLIP:
                nxt[k] = p + (q - p) * (dp / (dp - dq))
                k += 1
            if dq >= 0.0 and k < CLIP:
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
    """The face of A and the face of B (of the nfa normals nra and the nfb normals nrb) most nearly opposite,
    within FACE_TOL: (found, index in nra, index in nrb)."""
    found = bool(False)
    fa = int(0)
    fb = int(0)
    best = float(-FACE_TOL)
    for i in range(nfa):
        for j in range(nfb):
            c = wp.dot(wp.vec3(nra[i]), wp.vec3(nrb[j]))
            if c <= best:
                best = c
                found = True
                fa = i
                fb = j
    return found, fa, fb


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
    if found3 and (not found2 or (dim_a < 3 and dim_a <= dim_b)):
        return 3, fb3, inc3
    if found2:
        return 2, fa2, inc2
    return 0, 0, inc2


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
    reference normal pointing to the other shape, a point of the reference face, contact normal A to B)."""
    if mode == 3:  # B's face is the reference, A's edge is clipped
        rc, ref = _face_polygon(b, face_b, hulls)
        # A capsule's edge on its surface: the segment moved by the radius along n (as MuJoCo).
        inc[0] = wp.vec3(inc[0]) + a.radius * n
        inc[1] = wp.vec3(inc[1]) + a.radius * n
        pts, count = _clip_feature(ref, rc, nrb, inc, 2)
        return pts, count, nrb, wp.vec3(ref[0]), -nrb
    # A's face is the reference, B's face or edge is clipped
    rc, ref = _face_polygon(a, face_a, hulls)
    ic = int(2)
    cn = nra
    if mode == 1:
        ic, inc = _face_polygon(b, face_b, hulls)
        cn = -nrb
    pts, count = _clip_feature(ref, rc, nra, inc, ic)
    return pts, count, nra, wp.vec3(ref[0]), cn


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
    # MuJoCo's quadrilateral where our face polygons are MuJoCo's, corner for corner and in its order (two
    # cylinder caps); hull faces are not always MuJoCo's polygons (:mod:`.hull`), and there the deepest
    # corner, the farthest from it and the two widening the area most are kept.
    quad_keep = a.kind == CYLINDER and b.kind == CYLINDER
    return _emit_corners(slot0, slots, pts, count, rn, ro, mid, cn, margin, quad_keep, out)


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
def _convex_pair(p: int, slots: wp.vec2i, a: Convex, b: Convex, args: NarrowArgs):
    """Convex narrow phase of pair p (shapes a and b, slots its (first slot, slot count)): fills its contact
    slots."""
    if wp.length(wp.transform_get_translation(b.xf) - wp.transform_get_translation(a.xf)) > args.pair_bound[p]:
        return
    margin = args.pair_margin[p]
    ok, n, wa, wb, d0 = witnesses(a, b, args.hulls.mesh_verts)
    if not ok:
        return
    if d0 >= margin:
        return
    written = _manifold(slots[0], slots[1], a, b, n, wa, wb, margin, args.hulls, args.out)
    pt = 0.5 * (wa + a.radius * n + wb - b.radius * n)  # midway between the two surfaces
    if written == 0:
        emit_contact(slots[0], d0, n, pt, margin, wp.vec3(0.0), args.out)


convex_kernel = world_pair_kernel(_convex_pair, PHASE_CONVEX, "_convex_kernel", __name__)
