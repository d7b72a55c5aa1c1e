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

Two boxes or meshes overlapping (MuJoCo's case): MuJoCo's multicontact from the features of EPA's final
face (:mod:`.multicontact`).

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
from .multicontact import multicontact
from .polygon import (
    CAP_SIDES,
    EDGE_TOL,
    FACE_TOL,
    POLY,
    Poly4,
    clip_pair,
    corner,
    corner_count,
    emit_corners,
)
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

__all__ = ["convex_kernel", "witnesses", "FACE_TOL", "EDGE_TOL", "POLY", "CAP_SIDES"]

_OVERLAP = 1.0e-6  # [m] core distances below this go to EPA
MAXF = 16  # candidate faces (and edges) through a witness point
_ids = wp.types.vector(length=MAXF, dtype=wp.int32)
_normals = wp.types.matrix(shape=(MAXF, 3), dtype=wp.float32)


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
            count = corner_count(c, ids[f], hulls)
            for i in range(count):
                p = corner(c, ids[f], i, hulls)
                q = corner(c, ids[f], (i + 1) % count, hulls)
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
def _edge_on_face(nf: int, nrm: _normals, ne: int, e0: _normals, e1: _normals):
    """Of the nf faces (normals nrm) and the ne edges (ends e0, e1), the face and edge where the edge is
    most nearly perpendicular to the face normal, within EDGE_TOL: (found, face, the edge as a 2-corner
    polygon)."""
    best = float(EDGE_TOL)
    face = int(0)
    edge = Poly4()
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
    inc = Poly4()
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
    pts, count, rn, ro, cn = clip_pair(mode, a, b, n, ida[fa], wp.vec3(nra[fa]), idb[fb], wp.vec3(nrb[fb]), inc, hulls)
    # Midway between the surfaces, along B's face normal (face-face) or the reference normal.
    mid = rn
    if mode == 1:
        mid = cn
    # MuJoCo's quadrilateral where MuJoCo's multicontact runs (boxes and meshes, whose polygons here are
    # MuJoCo's corner for corner, :mod:`.hull`) and for two cylinder caps; with a cylinder and a mesh or
    # box the deepest corner, the farthest from it and the two widening the area most are kept.
    quad_keep = (a.kind == CYLINDER and b.kind == CYLINDER) or (_polytope(a) and _polytope(b))
    return emit_corners(slot0, slots, pts, count, rn, ro, mid, cn, margin, quad_keep, out)


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
        written = multicontact(slots[0], slots[1], a, b, n, ca, cb, margin, args.hulls, args.out)
    if written == 0:
        written = _manifold(slots[0], slots[1], a, b, n, wa, wb, margin, args.hulls, args.out)
    pt = 0.5 * (wa + a.radius * n + wb - b.radius * n)  # midway between the two surfaces
    if written == 0:
        emit_contact(slots[0], d0, n, pt, margin, wp.vec3(0.0), args.out)


convex_kernel = world_pair_kernel(_convex_pair, PHASE_CONVEX, "_convex_kernel", __name__)
