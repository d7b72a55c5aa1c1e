"""Convex narrow phase: mesh colliders (their convex hulls) and ellipsoids against spheres, capsules,
boxes, cylinders, meshes and ellipsoids.

Per pair (A, B), B the mesh or ellipsoid: :func:`.collision_gjk.gjk` gives the distance of the cores (sphere centre,
capsule segment, box, cylinder, hull) and the normal n (A to B) when they are apart,
:func:`.collision_gjk.epa` the penetration depth and normal when they overlap; the radius of a sphere
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

More corners than slots: the deepest, the farthest from it, then the two that widen the contact area
most (MuJoCo keeps a quadrilateral found by a local search; the two can keep different corners of the
same polygon). Contact points are midway between the surfaces, as MuJoCo's. Known differences: MuJoCo
reports an edge clipped to a single point as two identical contacts (one here), and its EPA on rounded
cores (capsule ends, cylinders) stops at an inscribed polytope, up to ~5e-4 m shallower than the exact
depth found here on the cores.

Slots per pair (``feature_count``): with a mesh, sphere 1, capsule 2, box / cylinder / mesh 4; with an
ellipsoid (no faces or edges), 1.
"""

from __future__ import annotations

import warp as wp

from .gjk import Convex, epa, gjk
from .pairs import PairTopology, decode_pair, world_pairs
from .primitive import BOX, CAPSULE, CYLINDER, MESH, SPHERE, convex_pair, emit_contact, shape_pose

wp.set_module_options({"enable_backward": False})

__all__ = ["collide_convex", "FACE_TOL", "EDGE_TOL"]

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
def _faces_at(
    c: Convex,
    w: wp.vec3,
    d: wp.vec3,
    tol: float,
    verts: wp.array(dtype=wp.vec3),
    face_normal: wp.array(dtype=wp.vec3),
    face_vert_start: wp.array(dtype=int),
    face_verts: wp.array(dtype=int),
):
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
            nl = wp.normalize(wp.cw_div(face_normal[f], c.size))
            v0 = wp.cw_mul(verts[face_verts[face_vert_start[f]]], c.size)
            if n < MAXF and wp.abs(wp.dot(wl - v0, nl)) <= tol and wp.dot(nl, dl) > 0.0:
                ids[n] = f
                nrm[n] = wp.transform_vector(c.xf, nl)
                n += 1
    return n, ids, nrm


@wp.func
def _face_polygon(
    c: Convex,
    face: int,
    verts: wp.array(dtype=wp.vec3),
    face_vert_start: wp.array(dtype=int),
    face_verts: wp.array(dtype=int),
):
    """Corners (world, in order around the face) of face ``face`` (id from :func:`_faces_at`):
    (count, corners)."""
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
    elif c.kind == CYLINDER:
        for q in range(CAP_SIDES):
            ang = 6.283185307179586 * float(q) / float(CAP_SIDES)
            poly[q] = wp.vec3(c.size[0] * wp.cos(ang), c.size[0] * wp.sin(ang), float(2 * face - 1) * c.size[1])
        count = CAP_SIDES
    else:
        first = face_vert_start[face]
        total = face_vert_start[face + 1] - first
        count = wp.min(total, POLY)
        for q in range(count):  # more corners than POLY: an evenly spread subset (still convex)
            poly[q] = wp.cw_mul(verts[face_verts[first + (q * total) // count]], c.size)
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
def _edges_at(
    c: Convex,
    w: wp.vec3,
    d: wp.vec3,
    tol: float,
    nf: int,
    ids: _ids,
    verts: wp.array(dtype=wp.vec3),
    face_vert_start: wp.array(dtype=int),
    face_verts: wp.array(dtype=int),
):
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
            count, poly = _face_polygon(c, ids[f], verts, face_vert_start, face_verts)
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
            if dp >= 0.0 and k < CLIP:
                nxt[k] = p
                k += 1
            if (dp >= 0.0) != (dq >= 0.0) and k < CLIP:
                nxt[k] = p + (q - p) * (dp / (dp - dq))
                k += 1
        cur = nxt
        n = k
    return cur, n


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
def _manifold(
    slot0: int,
    slots: int,
    a: Convex,
    b: Convex,
    n: wp.vec3,
    wa: wp.vec3,
    wb: wp.vec3,
    d0: float,
    margin: float,
    verts: wp.array(dtype=wp.vec3),
    face_normal: wp.array(dtype=wp.vec3),
    face_vert_start: wp.array(dtype=int),
    face_verts: wp.array(dtype=int),
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """Clipped feature contacts (module docstring) into slots [slot0, slot0 + slots), from the normal n
    (A to B), the witness points wa, wb on the cores and their signed distance d0; returns how many
    were written (0: no face-face or face-edge pair through the witnesses, or nothing left after
    clipping)."""
    tol_a = 1.0e-5 * (1.0 + wp.length(wa - wp.transform_get_translation(a.xf)))
    tol_b = 1.0e-5 * (1.0 + wp.length(wb - wp.transform_get_translation(b.xf)))
    # Candidate features: those through the witness points (MuJoCo: those of the EPA simplex's corners).
    nfa, ida, nra = _faces_at(a, wa, n, tol_a, verts, face_normal, face_vert_start, face_verts)
    nfb, idb, nrb = _faces_at(b, wb, -n, tol_b, verts, face_normal, face_vert_start, face_verts)
    mode = int(0)  # 1: face-face, 2: A's face and B's edge, 3: A's edge and B's face
    fa = int(0)
    fb = int(0)
    best = float(-FACE_TOL)
    for i in range(nfa):
        for j in range(nfb):
            c = wp.dot(wp.vec3(nra[i]), wp.vec3(nrb[j]))
            if c <= best:
                best = c
                mode = 1
                fa = i
                fb = j
    inc = _poly()
    if mode == 0:
        nea, ea0, ea1 = _edges_at(a, wa, n, tol_a, nfa, ida, verts, face_vert_start, face_verts)
        neb, eb0, eb1 = _edges_at(b, wb, -n, tol_b, nfb, idb, verts, face_vert_start, face_verts)
        # A's face with B's edge, and A's edge with B's face: the edge most nearly perpendicular to the
        # face normal, within EDGE_TOL.
        best2 = float(EDGE_TOL)
        fa2 = int(0)
        inc2 = _poly()
        for i in range(nfa):
            for j in range(neb):
                c = wp.abs(wp.dot(wp.vec3(nra[i]), wp.normalize(wp.vec3(eb1[j]) - wp.vec3(eb0[j]))))
                if c < best2:
                    best2 = c
                    fa2 = i
                    inc2[0] = eb0[j]
                    inc2[1] = eb1[j]
        best3 = float(EDGE_TOL)
        fb3 = int(0)
        inc3 = _poly()
        for j in range(nfb):
            for i in range(nea):
                c = wp.abs(wp.dot(wp.vec3(nrb[j]), wp.normalize(wp.vec3(ea1[i]) - wp.vec3(ea0[i]))))
                if c < best3:
                    best3 = c
                    fb3 = j
                    inc3[0] = ea0[i]
                    inc3[1] = ea1[i]
        # As MuJoCo, the edge preferably comes from the lower-dimensional witness feature (A's on a
        # tie): dimension 1 at a vertex (3 or more faces through the witness), 2 on an edge (2 faces,
        # or a capsule / cylinder line), 3 inside a face.
        dim_a = _feature_dim(a, nfa, nea)
        dim_b = _feature_dim(b, nfb, neb)
        found2 = best2 < EDGE_TOL
        found3 = best3 < EDGE_TOL
        if found3 and (not found2 or (dim_a < 3 and dim_a <= dim_b)):
            mode = 3
            fb = fb3
            inc = inc3
        elif found2:
            mode = 2
            fa = fa2
            inc = inc2
    if mode == 0:
        return 0
    pts = _clipped()
    count = int(0)
    rn = wp.vec3(0.0)  # reference face normal, pointing to the other shape
    ro = wp.vec3(0.0)  # a point of the reference face
    cn = wp.vec3(0.0)  # contact normal, A to B
    if mode == 3:  # B's face is the reference, A's edge is clipped
        rc, ref = _face_polygon(b, idb[fb], verts, face_vert_start, face_verts)
        rn = wp.vec3(nrb[fb])
        # A capsule's edge on its surface: the segment moved by the radius along n (as MuJoCo).
        inc[0] = wp.vec3(inc[0]) + a.radius * n
        inc[1] = wp.vec3(inc[1]) + a.radius * n
        pts, count = _clip_feature(ref, rc, rn, inc, 2)
        ro = wp.vec3(ref[0])
        cn = -rn
    else:  # A's face is the reference, B's face or edge is clipped
        rc, ref = _face_polygon(a, ida[fa], verts, face_vert_start, face_verts)
        rn = wp.vec3(nra[fa])
        ic = int(2)
        cn = rn
        if mode == 1:
            ic, inc = _face_polygon(b, idb[fb], verts, face_vert_start, face_verts)
            cn = -wp.vec3(nrb[fb])
        pts, count = _clip_feature(ref, rc, rn, inc, ic)
        ro = wp.vec3(ref[0])
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
    written = int(0)
    for s in range(slots):
        k = s
        if kept > slots:
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
            # Midway between the surfaces, along B's face normal (face-face) or the reference normal.
            pos = p - 0.5 * d * rn
            if mode == 1:
                pos = p - 0.5 * d * cn
            emit_contact(slot0 + s, d, cn, pos, margin, wp.vec3(0.0), active, point, normal, dist, tangent)
            written += 1
    return written


@wp.func
def _convex(
    kind: int,
    size: wp.vec3,
    xf: wp.transform,
    mesh: int,
    mesh_start: wp.array(dtype=int),
    mesh_face_start: wp.array(dtype=int),
):
    c = Convex()
    c.kind = kind
    c.size = size
    c.xf = xf
    c.radius = 0.0
    if kind == SPHERE or kind == CAPSULE:
        c.radius = size[0]
    c.vert_start = 0
    c.vert_end = 0
    c.face_start = 0
    c.face_end = 0
    if kind == MESH and mesh >= 0:
        c.vert_start = mesh_start[mesh]
        c.vert_end = mesh_start[mesh + 1]
        c.face_start = mesh_face_start[mesh]
        c.face_end = mesh_face_start[mesh + 1]
    return c


@wp.func(inline=True)  # ~15 arrays by value: inlined into the per-world loop, they are not copied
def _convex_pair(
    p: int,
    s: wp.vec2i,
    bodies: wp.vec2i,
    range_: wp.vec2i,
    shape_type: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_scale: wp.array(dtype=wp.vec3),
    shape_mesh: wp.array(dtype=int),
    pair_bound: wp.array(dtype=float),
    pair_margin: wp.array(dtype=float),
    mesh_start: wp.array(dtype=int),
    mesh_verts: wp.array(dtype=wp.vec3),
    mesh_face_start: wp.array(dtype=int),
    mesh_face_normal: wp.array(dtype=wp.vec3),
    mesh_face_vert_start: wp.array(dtype=int),
    mesh_face_verts: wp.array(dtype=int),
    # Data in:
    body_q: wp.array(dtype=wp.transform),
    # Data out:
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """Convex narrow phase of pair p (shapes s, their bodies, its (first slot, slot count)); other pairs are
    the primitive kernel's."""
    ta = shape_type[s[0]]
    tb = shape_type[s[1]]
    if not convex_pair(ta, tb):
        return  # the primitive kernel's pair
    start = range_[0]
    slots = range_[1]
    for k in range(slots):
        active[start + k] = 0
    xa = shape_pose(bodies[0], body_q, shape_transform[s[0]])
    xb = shape_pose(bodies[1], body_q, shape_transform[s[1]])
    if wp.length(wp.transform_get_translation(xb) - wp.transform_get_translation(xa)) > pair_bound[p]:
        return
    margin = pair_margin[p]
    a = _convex(ta, shape_scale[s[0]], xa, shape_mesh[s[0]], mesh_start, mesh_face_start)
    b = _convex(tb, shape_scale[s[1]], xb, shape_mesh[s[1]], mesh_start, mesh_face_start)
    core, wa, wb, sa, sb, ns = gjk(a, b, mesh_verts)
    n = wp.vec3(0.0)
    d0 = float(0.0)
    if core > _OVERLAP:
        n = (wb - wa) / core
        d0 = core - a.radius - b.radius
    else:
        depth, n_epa, ea, eb, ok = epa(a, b, mesh_verts, sa, sb, ns)
        if not ok:
            return
        n = n_epa
        wa = ea
        wb = eb
        d0 = -depth - a.radius - b.radius
    if d0 >= margin:
        return
    written = _manifold(
        start,
        slots,
        a,
        b,
        n,
        wa,
        wb,
        d0,
        margin,
        mesh_verts,
        mesh_face_normal,
        mesh_face_vert_start,
        mesh_face_verts,
        active,
        point,
        normal,
        dist,
        tangent,
    )
    pt = 0.5 * (wa + a.radius * n + wb - b.radius * n)  # midway between the two surfaces
    if written == 0:
        emit_contact(start, d0, n, pt, margin, wp.vec3(0.0), active, point, normal, dist, tangent)


@wp.kernel
def _convex_kernel(
    # Model:
    first: int,
    shape_type: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_scale: wp.array(dtype=wp.vec3),
    shape_mesh: wp.array(dtype=int),
    topo: PairTopology,
    pair_bound: wp.array(dtype=float),
    pair_margin: wp.array(dtype=float),
    mesh_start: wp.array(dtype=int),
    mesh_verts: wp.array(dtype=wp.vec3),
    mesh_face_start: wp.array(dtype=int),
    mesh_face_normal: wp.array(dtype=wp.vec3),
    mesh_face_vert_start: wp.array(dtype=int),
    mesh_face_verts: wp.array(dtype=int),
    # Data in:
    body_q: wp.array(dtype=wp.transform),
    # Data out:
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """One block per world: its lanes take the world's pairs in turn."""
    block, lane = wp.tid()
    w = block + first
    at = world_pairs(topo, w)  # the world's offsets, read once
    for lp in range(lane, at.count, wp.block_dim()):
        pair = decode_pair(topo, at, lp)
        _convex_pair(
            at.pair + lp,
            pair.shapes,
            pair.bodies,
            pair.slots,
            shape_type,
            shape_transform,
            shape_scale,
            shape_mesh,
            pair_bound,
            pair_margin,
            mesh_start,
            mesh_verts,
            mesh_face_start,
            mesh_face_normal,
            mesh_face_vert_start,
            mesh_face_verts,
            body_q,
            active,
            point,
            normal,
            dist,
            tangent,
        )


def collide_convex(model, contacts, body_q, worlds, block_dim: int = 1):
    """Convex narrow phase over the mesh pairs (mesh against anything but a plane) of the worlds ``worlds``
    = (first, count), one block of ``block_dim`` lanes per world; other pairs are left to
    :func:`.collision_driver.collide`'s primitive kernel."""
    if worlds[1] == 0:
        return
    c = contacts
    wp.launch_tiled(
        _convex_kernel,
        dim=[worlds[1]],
        block_dim=int(block_dim),
        device=model.device,
        inputs=[
            worlds[0],
            model.shape_type,
            model.shape_transform,
            model.shape_scale,
            model.shape_mesh,
            c.topology,
            c.pair_bound,
            c.pair_margin,
            c.mesh_start,
            c.mesh_verts,
            c.mesh_face_start,
            c.mesh_face_normal,
            c.mesh_face_vert_start,
            c.mesh_face_verts,
            body_q,
        ],
        outputs=[c.active, c.point, c.normal, c.dist, c.tangent],
    )
