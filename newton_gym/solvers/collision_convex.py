"""Convex narrow phase: mesh colliders (their convex hulls) against spheres, capsules, boxes, cylinders
and other meshes.

Per pair (A, B), B the mesh: :func:`.collision_gjk.gjk` gives the distance of the cores (sphere centre,
capsule segment, box, cylinder, hull) and the normal when they are apart; :func:`.collision_gjk.epa`
the penetration depth and normal when they overlap; the radius of a sphere or capsule is subtracted.
Nothing is emitted at or beyond the pair's margin. Otherwise a small manifold is built the way MuJoCo
builds it for boxes and meshes (engine_collision_gjk.c, multicontact), from the supporting feature of
each shape along the normal n (from A to B): A's along n, B's along -n. A feature is

* a face, when a face normal is within ``FACE_TOL`` (cos 5.1 degrees) of the direction: a box face, a
  hull face (at most ``POLY`` corners: larger hull faces are subsampled), a cylinder cap (a regular
  ``CAP_SIDES``-gon inscribed in it);
* an edge, when the most forward edge of the best face (a capsule's segment, a cylinder's side line)
  is within ``EDGE_TOL`` (cos 84.9 degrees) of perpendicular to it;
* else a vertex.

Face (A) against face or edge (B): B's feature is clipped by the side planes of A's face (Sutherland-
Hodgman) and each corner left below A's face plane (less than the margin above it) is a contact, its
distance measured along A's face normal; the contact normal is B's face normal reversed (face-face) or
A's face normal (edge). Edge (A) against face (B): the same with the roles swapped. Other feature
pairs, or when clipping leaves nothing: one contact at the GJK / EPA witness points. More corners than
slots: the deepest, the farthest from it, then the two that widen the contact area most (MuJoCo keeps
a maximum-area quadrilateral; the contacts can differ when a clipped polygon has more than 4 corners).
The contact point is midway between the two surfaces, as in MuJoCo.

Slots per pair (``feature_count``): sphere 1, capsule 2, box / cylinder / mesh 4.
"""

from __future__ import annotations

import warp as wp

from .collision_gjk import Convex, epa, gjk, support_local
from .collision_primitive import BOX, CAPSULE, CYLINDER, MESH, PLANE, SPHERE, emit_contact, shape_pose

wp.set_module_options({"enable_backward": False})

__all__ = ["collide_convex", "FACE_TOL", "EDGE_TOL"]

FACE_TOL = 0.996  # MuJoCo's mjFACE_TOL: a face normal this aligned with the contact normal is a face
EDGE_TOL = 0.0888  # MuJoCo's mjEDGE_TOL: an edge direction this close to perpendicular is an edge
POLY = 16  # corners of a feature polygon
CLIP = 2 * POLY  # corners of a clipped polygon
CAP_SIDES = 8  # corners of the polygon standing for a cylinder cap
_VERTEX = wp.constant(0)
_EDGE = wp.constant(1)
_FACE = wp.constant(2)
_OVERLAP = 1.0e-6  # [m] core distances below this go to EPA

_poly = wp.types.matrix(shape=(POLY, 3), dtype=wp.float32)
_clipped = wp.types.matrix(shape=(CLIP, 3), dtype=wp.float32)
_clipped_val = wp.types.vector(length=CLIP, dtype=wp.float32)


@wp.func
def _classify(
    c: Convex, dl: wp.vec3, cos: float, count: int, poly: _poly, n_local: wp.vec3, verts: wp.array(dtype=wp.vec3)
):
    """Feature of c in local direction dl given its best face (local corners, local normal, cos of the
    angle to dl): (kind, corner count, corners in world, face normal in world)."""
    out = _poly()
    if cos >= FACE_TOL:
        for i in range(count):
            out[i] = wp.transform_point(c.xf, wp.vec3(poly[i]))
        return _FACE, count, out, wp.transform_vector(c.xf, n_local)
    # The face's most forward edge, if it is close enough to perpendicular to dl.
    best = float(-1.0e30)
    e0 = int(0)
    for i in range(count):
        s = wp.dot(wp.vec3(poly[i]) + wp.vec3(poly[(i + 1) % count]), dl)
        if s > best:
            best = s
            e0 = i
    if count >= 2:
        p0 = wp.vec3(poly[e0])
        p1 = wp.vec3(poly[(e0 + 1) % count])
        if wp.abs(wp.dot(wp.normalize(p1 - p0), dl)) < EDGE_TOL:
            out[0] = wp.transform_point(c.xf, p0)
            out[1] = wp.transform_point(c.xf, p1)
            return _EDGE, 2, out, wp.transform_vector(c.xf, n_local)
    out[0] = wp.transform_point(c.xf, support_local(c, dl, verts))
    return _VERTEX, 1, out, wp.transform_vector(c.xf, n_local)


@wp.func
def _feature(
    c: Convex,
    d: wp.vec3,
    verts: wp.array(dtype=wp.vec3),
    face_normal: wp.array(dtype=wp.vec3),
    face_vert_start: wp.array(dtype=int),
    face_verts: wp.array(dtype=int),
):
    """Supporting feature of c's core in world direction d (unit): (kind, corner count, corners in
    world, face normal in world; the normal is meaningful for faces only)."""
    dl = wp.quat_rotate_inv(wp.transform_get_rotation(c.xf), d)
    poly = _poly()
    if c.kind == SPHERE:
        poly[0] = wp.transform_get_translation(c.xf)
        return _VERTEX, 1, poly, d
    if c.kind == CAPSULE:
        h = c.size[1]
        if wp.abs(dl[2]) < EDGE_TOL:
            poly[0] = wp.transform_point(c.xf, wp.vec3(0.0, 0.0, -h))
            poly[1] = wp.transform_point(c.xf, wp.vec3(0.0, 0.0, h))
            return _EDGE, 2, poly, d
        poly[0] = wp.transform_point(c.xf, support_local(c, dl, verts))
        return _VERTEX, 1, poly, d
    if c.kind == CYLINDER:
        r = c.size[0]
        h = c.size[1]
        if wp.abs(dl[2]) >= FACE_TOL:
            z = wp.sign(dl[2]) * h
            for i in range(CAP_SIDES):
                ang = 6.283185307179586 * float(i) / float(CAP_SIDES)
                poly[i] = wp.vec3(r * wp.cos(ang), r * wp.sin(ang), z)
            return _classify(c, dl, 1.0, CAP_SIDES, poly, wp.vec3(0.0, 0.0, wp.sign(dl[2])), verts)
        if wp.abs(dl[2]) < EDGE_TOL:
            rim = support_local(c, dl, verts)
            poly[0] = wp.transform_point(c.xf, wp.vec3(rim[0], rim[1], -h))
            poly[1] = wp.transform_point(c.xf, wp.vec3(rim[0], rim[1], h))
            return _EDGE, 2, poly, d
        poly[0] = wp.transform_point(c.xf, support_local(c, dl, verts))
        return _VERTEX, 1, poly, d
    if c.kind == BOX:
        k = int(0)
        if wp.abs(dl[1]) > wp.abs(dl[k]):
            k = 1
        if wp.abs(dl[2]) > wp.abs(dl[k]):
            k = 2
        i = (k + 1) % 3
        j = (k + 2) % 3
        s = wp.sign(dl[k])
        for q in range(4):
            p = wp.vec3(0.0)
            p[k] = s * c.size[k]
            p[i] = c.size[i] * float(2 * (((q + 1) // 2) % 2) - 1)  # -, +, +, -
            p[j] = c.size[j] * float(2 * (q // 2) - 1)  # -, -, +, +
            poly[q] = p
        n_local = wp.vec3(0.0)
        n_local[k] = s
        return _classify(c, dl, wp.abs(dl[k]), 4, poly, n_local, verts)
    # Mesh: the hull face whose normal (under the shape's scale) is closest to dl.
    best = float(-2.0)
    face = int(-1)
    n_best = wp.vec3(0.0)
    for f in range(c.face_start, c.face_end):
        nf = wp.normalize(wp.cw_div(face_normal[f], c.size))
        cos = wp.dot(nf, dl)
        if cos > best:
            best = cos
            face = f
            n_best = nf
    if face < 0:  # flat hull: no faces
        poly[0] = wp.transform_point(c.xf, support_local(c, dl, verts))
        return _VERTEX, 1, poly, d
    first = face_vert_start[face]
    count = face_vert_start[face + 1] - first
    taken = wp.min(count, POLY)
    for q in range(taken):  # more corners than POLY: an evenly spread subset (still convex)
        poly[q] = wp.cw_mul(verts[face_verts[first + (q * count) // taken]], c.size)
    return _classify(c, dl, best, taken, poly, n_best, verts)


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
    """Clipped feature contacts (module docstring) into slots [slot0, slot0 + slots); returns how many
    were written (0: no face / edge pair, or nothing left after clipping)."""
    ka, ca, pa, na = _feature(a, n, verts, face_normal, face_vert_start, face_verts)
    kb, cb, pb, nb = _feature(b, -n, verts, face_normal, face_vert_start, face_verts)
    pts = _clipped()
    count = int(0)
    rn = wp.vec3(0.0)  # reference face normal, pointing to the other shape
    ro = wp.vec3(0.0)  # a point of the reference face
    cn = wp.vec3(0.0)  # contact normal, A to B
    rad = float(0.0)  # radius of the incident core
    if ka == _FACE and (kb == _FACE or kb == _EDGE):
        pts, count = _clip_feature(pa, ca, na, pb, cb)
        rn = na
        ro = wp.vec3(pa[0])
        cn = na
        if kb == _FACE:
            cn = -nb
        rad = b.radius
    elif kb == _FACE and ka == _EDGE:
        pts, count = _clip_feature(pb, cb, nb, pa, ca)
        rn = nb
        ro = wp.vec3(pb[0])
        cn = -nb
        rad = a.radius
    depth = _clipped_val()
    kept = int(0)
    for k in range(count):  # keep the corners closer than the margin, with their distances
        p = wp.vec3(pts[k])
        d = wp.dot(p - ro, rn) - rad
        if d < margin:
            pts[kept] = p - rad * rn  # on the incident shape's surface
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
            emit_contact(slot0 + s, d, cn, p - 0.5 * d * rn, margin, wp.vec3(0.0), active, point, normal, dist, tangent)
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


@wp.kernel
def _convex_kernel(
    # Model:
    first: int,
    shape_type: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_scale: wp.array(dtype=wp.vec3),
    shape_mesh: wp.array(dtype=int),
    pair_shape: wp.array(dtype=wp.vec2i),
    pair_body: wp.array(dtype=wp.vec2i),
    pair_slot_start: wp.array(dtype=int),
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
    p = wp.tid() + first
    s = pair_shape[p]
    ta = shape_type[s[0]]
    tb = shape_type[s[1]]
    if tb != MESH or ta == PLANE:
        return  # the primitive kernel's pair
    start = pair_slot_start[p]
    slots = pair_slot_start[p + 1] - start
    for k in range(slots):
        active[start + k] = 0
    bodies = pair_body[p]
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
    if written == 0:  # one contact midway between the two surfaces
        pt = 0.5 * (wa + a.radius * n + wb - b.radius * n)
        emit_contact(start, d0, n, pt, margin, wp.vec3(0.0), active, point, normal, dist, tangent)


def collide_convex(model, contacts, body_q, span):
    """Convex narrow phase over the mesh pairs (mesh against anything but a plane) in ``span`` =
    (first pair, count); other pairs are left to :func:`.collision_driver.collide`'s primitive kernel."""
    if span[1] == 0:
        return
    c = contacts
    wp.launch(
        _convex_kernel,
        dim=span[1],
        device=model.device,
        inputs=[
            span[0],
            model.shape_type,
            model.shape_transform,
            model.shape_scale,
            model.shape_mesh,
            c.pair_shape,
            c.pair_body,
            c.pair_slot_start,
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
