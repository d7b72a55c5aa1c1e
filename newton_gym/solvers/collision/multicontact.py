"""MuJoCo's multicontact (engine_collision_gjk.c, ``multicontact``) for two boxes or meshes overlapping,
from the features of EPA's final face (:func:`.gjk.epa_face`), into the convex narrow phase's slots
(:mod:`.convex`; faces and clipping: :mod:`.polygon`):

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
"""

from __future__ import annotations

import warp as wp

from .polygon import (
    EDGE_TOL,
    FACE_TOL,
    Clipped,
    clip_polygon,
    clip_segment,
    corner,
    corner_count,
    emit_corners,
    face_normal,
)
from .primitive import BOX, MESH, ContactSlots, Convex, MeshHulls

wp.set_module_options({"enable_backward": False})

__all__ = ["multicontact", "most_opposite", "MAXC"]

MAXC = 64  # candidate faces of a mesh vertex in MuJoCo's multicontact (its nmeshdegmax: the model's largest)
_cands = wp.types.vector(length=MAXC, dtype=wp.int32)


@wp.func
def most_opposite(a: Convex, nfa: int, fa: _cands, b: Convex, nfb: int, fb: _cands, hulls: MeshHulls):
    """:func:`_opposite_faces` of the candidate faces fa of A and fb of B: (found, position in fa, in fb)."""
    found = bool(False)
    ia = int(0)
    ib = int(0)
    best = float(1.0e30)
    for i in range(nfa):
        na = face_normal(a, fa[i], hulls)
        for j in range(nfb):
            nb = face_normal(b, fb[j], hulls)
            gap = wp.length_sq(na + nb)
            if wp.dot(na, nb) < -FACE_TOL and gap < best:
                best = gap
                found = True
                ia = i
                ib = j
    return found, ia, ib


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
        fn = face_normal(f, fids[i], hulls)
        for j in range(ne):
            if not found:
                q = _edge_end(e, dim, j, v1, p2, eids, hulls)
                if wp.abs(wp.dot(wp.normalize(q - p1), fn)) < EDGE_TOL:
                    found = True
                    face = i
                    end = q
    return found, face, end


@wp.func
def multicontact(
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
    found, ia, ib = most_opposite(a, nfa, fa, b, nfb, fb, hulls)
    pts = Clipped()
    count = int(0)
    rn = wp.vec3(0.0)
    ro = wp.vec3(0.0)
    cn = wp.vec3(0.0)
    if found:  # face-face: B's face clipped by A's
        face_a = fa[ia]
        face_b = fb[ib]
        rn = face_normal(a, face_a, hulls)
        ic = corner_count(b, face_b, hulls)
        for k in range(ic):
            pts[k] = corner(b, face_b, k, hulls)
        pts, count = clip_polygon(a, face_a, rn, pts, ic, hulls)
        ro = corner(a, face_a, 0, hulls)
        cn = -face_normal(b, face_b, hulls)
        return emit_corners(slot0, slots, pts, count, rn, ro, cn, cn, margin, True, out)
    if dim_a < 3 and dim_a <= dim_b:  # an edge of A on a face of B: the contact normal is -B's face normal
        return _edge_contacts(slot0, slots, a, dim_a, a1, pa1, pa2, nfa, fa, b, nfb, fb, -1.0, margin, hulls, out)
    if dim_b < 3:  # an edge of B on a face of A: the contact normal is A's face normal
        return _edge_contacts(slot0, slots, b, dim_b, b1, pb1, pb2, nfb, fb, a, nfa, fa, 1.0, margin, hulls, out)
    return 0


@wp.func
def _edge_contacts(
    slot0: int,
    slots: int,
    e: Convex,
    dim: int,
    v1: int,
    p1: wp.vec3,
    p2: wp.vec3,
    nfe: int,
    fe: _cands,
    f: Convex,
    nff: int,
    ff: _cands,
    sign: float,
    margin: float,
    hulls: MeshHulls,
    out: ContactSlots,
):
    """The edge feature (dimension ``dim``: a vertex or an edge) of shape e on a candidate face of shape f:
    the first edge within EDGE_TOL of one of f's faces (:func:`_edge_face`) clipped by that face's side
    planes, into slots [slot0, slot0 + slots), the contact normal ``sign`` times the face normal (from A to
    B); returns how many were written."""
    ne = nfe
    if dim == 2:
        ne = 1
    elif e.kind == BOX:
        ne = 3
    ok, i, end = _edge_face(e, dim, v1, p1, p2, fe, ne, f, nff, ff, hulls)
    if not ok:
        return 0
    rn = face_normal(f, ff[i], hulls)
    pts, count = clip_segment(f, ff[i], rn, p1, end, hulls)
    return emit_corners(slot0, slots, pts, count, rn, corner(f, ff[i], 0, hulls), rn, sign * rn, margin, True, out)
