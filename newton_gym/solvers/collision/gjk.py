"""Support functions, GJK distance and EPA penetration of convex shapes, as Warp functions.

A convex shape is a :class:`.primitive.Convex`: a core (a point for a sphere, a segment for a capsule, the box,
the cylinder, the ellipsoid, the convex hull of a mesh's hull vertices under the shape's scale, or one
prism of a heightfield)
inflated by a radius (sphere and capsule radius, 0 otherwise), as MuJoCo treats spheres and capsules.
Both algorithms work on the cores, on the Minkowski difference M = A - B, whose support point in
direction d is sA(d) - sB(-d):

* :func:`gjk` (Gilbert-Johnson-Keerthi, in van den Bergen's formulation with the Voronoi-region
  closest-point tests of Ericson, Real-Time Collision Detection, sec. 5.1.5-5.1.6) finds the point of
  M closest to the origin: the core distance, the witness points on both cores, and the final simplex.
  A tetrahedron is taken to hold the origin only when its barycentric weights agree (a nearly flat one
  can pass every face's sign test in float32 rounding with the origin far outside), and a step that
  ends farther from the origin than the last gives back the best simplex.
* :func:`epa` (Expanding Polytope Algorithm) starts from that simplex when the cores overlap, grows a
  polytope inside M towards its boundary face nearest the origin and returns the penetration depth,
  the normal from A to B and the witness points. Exact for polytopes (boxes, meshes, points,
  segments) up to the tolerance; for cylinders and ellipsoids the depth is that of an inscribed
  polytope of at most ``EPA_VERTS`` vertices, within ``EPA_TOL`` when it converges.
  :func:`epa_face` also returns the corners of its final face (their support points on A and B), from
  which the convex narrow phase finds MuJoCo's multicontact features.

Everything runs in float32, locally in one thread (fixed-size local arrays).
"""

from __future__ import annotations

import warp as wp

from .primitive import BOX, CAPSULE, CYLINDER, ELLIPSOID, HFIELD, MESH, Convex

wp.set_module_options({"enable_backward": False})

__all__ = ["support", "centre", "gjk", "epa", "epa_face", "triangle_weights", "GJK_ITERS", "EPA_VERTS", "EPA_TOL"]

GJK_ITERS = 64
EPA_VERTS = 48
EPA_FACES = 2 * EPA_VERTS  # a closed triangulated polytope of V vertices has 2 V - 4 faces
EPA_TOL = 1.0e-6  # [m] EPA stops when the support point is this close to the nearest face's plane
_GJK_REL = 1.0e-6  # GJK stops when |v|^2 - v.w <= _GJK_REL |v|^2 (relative progress of the bound)

mat43 = wp.types.matrix(shape=(4, 3), dtype=wp.float32)
_epa_pts = wp.types.matrix(shape=(EPA_VERTS, 3), dtype=wp.float32)
_epa_tri = wp.types.matrix(shape=(EPA_FACES, 3), dtype=wp.int32)
_epa_nrm = wp.types.matrix(shape=(EPA_FACES, 3), dtype=wp.float32)
_epa_val = wp.types.vector(length=EPA_FACES, dtype=wp.float32)
_epa_flag = wp.types.vector(length=EPA_FACES, dtype=wp.int32)


@wp.func
def _sign(x: float):
    if x >= 0.0:
        return 1.0
    return -1.0


@wp.func
def _prism_corner(c: Convex, i: int, top: bool, verts: wp.array(dtype=wp.vec3)):
    """Corner i (0..2) of the top (raised by size[0]) or bottom (z = size[2]) triangle of prism c."""
    v = verts[c.corners[i]]
    z = c.size[2]
    if top:
        z = v[2] + c.size[0]
    return wp.vec3(v[0], v[1], z)


@wp.func
def _prism_support(c: Convex, dl: wp.vec3, verts: wp.array(dtype=wp.vec3)):
    """Support point of prism c (field frame): the best corner of its top triangle where dl points up
    (dl.z >= 0), else of its bottom one; the first corner wins a tie (MuJoCo's order)."""
    top = dl[2] >= 0.0
    p = _prism_corner(c, 0, top, verts)
    best = wp.dot(p, dl)
    for i in range(1, 3):
        q = _prism_corner(c, i, top, verts)
        s = wp.dot(q, dl)
        if s > best:
            best = s
            p = q
    return p


@wp.func
def centre(c: Convex, verts: wp.array(dtype=wp.vec3)):
    """A point inside c (world): its origin, or a prism's centroid (the mean of its six corners)."""
    if c.kind == HFIELD:
        m = wp.vec3(0.0)
        for i in range(3):
            m += _prism_corner(c, i, True, verts) + _prism_corner(c, i, False, verts)
        return wp.transform_point(c.xf, m / 6.0)
    return wp.transform_get_translation(c.xf)


@wp.func
def support_local(c: Convex, dl: wp.vec3, verts: wp.array(dtype=wp.vec3)):
    """Support point of the core of c in local direction dl (local frame)."""
    p = wp.vec3(0.0)
    if c.kind == CAPSULE:
        p = wp.vec3(0.0, 0.0, _sign(dl[2]) * c.size[1])
    elif c.kind == BOX:
        p = wp.vec3(_sign(dl[0]) * c.size[0], _sign(dl[1]) * c.size[1], _sign(dl[2]) * c.size[2])
    elif c.kind == CYLINDER:
        rho = wp.sqrt(dl[0] * dl[0] + dl[1] * dl[1])
        if rho > 1.0e-12:
            p = wp.vec3(c.size[0] * dl[0] / rho, c.size[0] * dl[1] / rho, 0.0)
        p[2] = _sign(dl[2]) * c.size[1]
    elif c.kind == ELLIPSOID:
        # Support of x^T S^-2 x = 1 along dl: S^2 dl / |S dl| (S = diag of the semi-axes).
        sd = wp.cw_mul(c.size, dl)
        p = wp.cw_mul(c.size, sd) / wp.max(wp.length(sd), 1.0e-30)
    elif c.kind == MESH:
        best = float(-1.0e30)
        for i in range(c.vert_start, c.vert_end):
            v = wp.cw_mul(verts[i], c.size)
            s = wp.dot(v, dl)
            if s > best:
                best = s
                p = v
    elif c.kind == HFIELD:
        p = _prism_support(c, dl, verts)
    return p


@wp.func
def support(c: Convex, d: wp.vec3, verts: wp.array(dtype=wp.vec3)):
    """Support point of the core of c in world direction d (world frame)."""
    dl = wp.quat_rotate_inv(wp.transform_get_rotation(c.xf), d)
    return wp.transform_point(c.xf, support_local(c, dl, verts))


@wp.func
def _corner_or_edge(d1: float, d2: float, d3: float, d4: float):
    """Ericson's tests (5.1.5) of corner B and edge AB of a triangle abc, from d1 = ab.(-a), d2 = ac.(-a),
    d3 = ab.(-b), d4 = ac.(-b) (for corner C and edge AC: b and c swapped, so d1, d2, d3, d4 become d2,
    d1, ac.(-c), ab.(-c)). Returns (1 where the closest point is that corner or on that edge, else 0;
    its parameter t along the edge, 1 at the corner; the barycentric weight of the third corner,
    unnormalized)."""
    if d3 >= 0.0 and d4 <= d3:
        return wp.vec3(1.0, 1.0, 0.0)
    v = d1 * d4 - d3 * d2
    if v <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        return wp.vec3(1.0, d1 / (d1 - d3), v)
    return wp.vec3(0.0, 0.0, v)


@wp.func
def triangle_weights(a: wp.vec3, b: wp.vec3, c: wp.vec3):
    """Barycentric weights of the point of triangle abc closest to the origin (Ericson 5.1.5)."""
    ab = b - a
    ac = c - a
    d1 = -wp.dot(ab, a)
    d2 = -wp.dot(ac, a)
    if d1 <= 0.0 and d2 <= 0.0:
        return wp.vec3(1.0, 0.0, 0.0)
    d3 = -wp.dot(ab, b)
    d4 = -wp.dot(ac, b)
    on_b = _corner_or_edge(d1, d2, d3, d4)
    if on_b[0] > 0.0:
        return wp.vec3(1.0 - on_b[1], on_b[1], 0.0)
    d5 = -wp.dot(ab, c)
    d6 = -wp.dot(ac, c)
    on_c = _corner_or_edge(d2, d1, d6, d5)
    if on_c[0] > 0.0:
        return wp.vec3(1.0 - on_c[1], 0.0, on_c[1])
    vc = on_b[2]
    vb = on_c[2]
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return wp.vec3(0.0, 1.0 - t, t)
    total = va + vb + vc
    if total <= 0.0:  # degenerate (collinear) triangle: its nearest corner
        la = wp.length_sq(a)
        lb = wp.length_sq(b)
        lc = wp.length_sq(c)
        if la <= lb and la <= lc:
            return wp.vec3(1.0, 0.0, 0.0)
        if lb <= lc:
            return wp.vec3(0.0, 1.0, 0.0)
        return wp.vec3(0.0, 0.0, 1.0)
    return wp.vec3(va / total, vb / total, vc / total)


@wp.func
def _segment_weights(a: wp.vec3, b: wp.vec3):
    """Weights of the point of segment ab closest to the origin."""
    e = b - a
    ee = wp.dot(e, e)
    if ee <= 1.0e-30:
        return wp.vec2(0.0, 1.0)
    t = wp.clamp(-wp.dot(a, e) / ee, 0.0, 1.0)
    return wp.vec2(1.0 - t, t)


@wp.func
def _outside_face(a: wp.vec3, b: wp.vec3, c: wp.vec3, d: wp.vec3):
    """True when the origin is not strictly on d's side of the plane of abc."""
    n = wp.cross(b - a, c - a)
    return wp.dot(n, a) * wp.dot(n, d - a) >= 0.0


@wp.func
def _simplex_weights(sa: mat43, sb: mat43, n: int):
    """Weights (vec4) of the point of the simplex (M points sa[i] - sb[i], i < n) closest to the origin;
    all four positive when the origin lies inside a tetrahedron."""
    m0 = sa[0] - sb[0]
    m1 = sa[1] - sb[1]
    m2 = sa[2] - sb[2]
    m3 = sa[3] - sb[3]
    if n == 1:
        return wp.vec4(1.0, 0.0, 0.0, 0.0)
    if n == 2:
        ws = _segment_weights(m0, m1)
        return wp.vec4(ws[0], ws[1], 0.0, 0.0)
    if n == 3:
        wt = triangle_weights(m0, m1, m2)
        return wp.vec4(wt[0], wt[1], wt[2], 0.0)
    # Tetrahedron: the closest point of each face the origin lies outside of (Ericson 5.1.6).
    best = float(1.0e30)
    lam = wp.vec4(0.25, 0.25, 0.25, 0.25)
    if _outside_face(m0, m1, m2, m3):
        w = triangle_weights(m0, m1, m2)
        q = w[0] * m0 + w[1] * m1 + w[2] * m2
        if wp.length_sq(q) < best:
            best = wp.length_sq(q)
            lam = wp.vec4(w[0], w[1], w[2], 0.0)
    if _outside_face(m0, m2, m3, m1):
        w = triangle_weights(m0, m2, m3)
        q = w[0] * m0 + w[1] * m2 + w[2] * m3
        if wp.length_sq(q) < best:
            best = wp.length_sq(q)
            lam = wp.vec4(w[0], 0.0, w[1], w[2])
    if _outside_face(m0, m3, m1, m2):
        w = triangle_weights(m0, m3, m1)
        q = w[0] * m0 + w[1] * m3 + w[2] * m1
        if wp.length_sq(q) < best:
            best = wp.length_sq(q)
            lam = wp.vec4(w[0], w[2], 0.0, w[1])
    if _outside_face(m1, m3, m2, m0):
        w = triangle_weights(m1, m3, m2)
        q = w[0] * m1 + w[1] * m3 + w[2] * m2
        if wp.length_sq(q) < best:
            best = wp.length_sq(q)
            lam = wp.vec4(0.0, w[0], w[2], w[1])
    if best >= 1.0e30 and not _holds_origin(m0, m1, m2, m3):
        lam = _nearest_face(m0, m1, m2, m3)
    return lam


@wp.func
def _holds_origin(m0: wp.vec3, m1: wp.vec3, m2: wp.vec3, m3: wp.vec3):
    """Whether the origin's barycentric weights in the tetrahedron (ratios of signed volumes) are all above
    -1e-3: the check of an "inside" from the face tests, whose signs a nearly flat tetrahedron leaves to
    float32 rounding (weights of +-1e6 for an origin far outside, a false overlap)."""
    e1 = m1 - m0
    e2 = m2 - m0
    e3 = m3 - m0
    vol = wp.dot(e1, wp.cross(e2, e3))
    if vol == 0.0:
        return False
    l1 = wp.dot(-m0, wp.cross(e2, e3)) / vol
    l2 = wp.dot(e1, wp.cross(-m0, e3)) / vol
    l3 = wp.dot(e1, wp.cross(e2, -m0)) / vol
    tol = -1.0e-3
    return l1 >= tol and l2 >= tol and l3 >= tol and 1.0 - l1 - l2 - l3 >= tol


@wp.func
def _nearest_face(m0: wp.vec3, m1: wp.vec3, m2: wp.vec3, m3: wp.vec3):
    """Weights of the point nearest the origin over the tetrahedron's four faces (no sign test)."""
    w = triangle_weights(m0, m1, m2)
    best = wp.length_sq(w[0] * m0 + w[1] * m1 + w[2] * m2)
    lam = wp.vec4(w[0], w[1], w[2], 0.0)
    w = triangle_weights(m0, m2, m3)
    d = wp.length_sq(w[0] * m0 + w[1] * m2 + w[2] * m3)
    if d < best:
        best = d
        lam = wp.vec4(w[0], 0.0, w[1], w[2])
    w = triangle_weights(m0, m3, m1)
    d = wp.length_sq(w[0] * m0 + w[1] * m3 + w[2] * m1)
    if d < best:
        best = d
        lam = wp.vec4(w[0], w[2], 0.0, w[1])
    w = triangle_weights(m1, m3, m2)
    d = wp.length_sq(w[0] * m1 + w[1] * m3 + w[2] * m2)
    if d < best:
        lam = wp.vec4(0.0, w[0], w[2], w[1])
    return lam


@wp.func
def gjk(a: Convex, b: Convex, verts: wp.array(dtype=wp.vec3)):
    """Closest points of the cores of a and b.

    Returns:
        (distance [m] between the cores, witness on A, witness on B, simplex A points, simplex B points,
        simplex size). A distance of 0 means the cores touch or overlap; the simplex then holds the
        origin (a tetrahedron when they overlap) and seeds :func:`epa`.
    """
    sa = mat43()
    sb = mat43()
    n = int(0)
    # The difference of the centres lies in M: a first estimate of its point nearest the origin.
    v = centre(a, verts) - centre(b, verts)
    if wp.length_sq(v) < 1.0e-24:
        v = wp.vec3(1.0, 0.0, 0.0)
    lam = wp.vec4(1.0, 0.0, 0.0, 0.0)
    dist2 = float(1.0e30)
    best_sa = mat43()  # the simplex nearest the origin so far
    best_sb = mat43()
    best_lam = wp.vec4(0.0)
    best_n = int(0)
    # Curved cores converge only linearly and their normal error goes as the square root of the gap:
    # run ellipsoids until float32 stops making progress.
    rel = float(_GJK_REL)
    if a.kind == ELLIPSOID or b.kind == ELLIPSOID:
        rel = 1.0e-12
    for _it in range(GJK_ITERS):
        pa = support(a, -v, verts)
        pb = support(b, v, verts)
        w = pa - pb
        vv = wp.dot(v, v)
        if n > 0 and vv - wp.dot(v, w) <= rel * vv:
            break  # no support point gets closer to the origin: v is the closest point (to tolerance)
        repeat = int(0)
        for i in range(n):
            if wp.length_sq((sa[i] - sb[i]) - w) < 1.0e-24:
                repeat = 1
        if repeat == 1:
            break
        sa[n] = pa
        sb[n] = pb
        n += 1
        lam = _simplex_weights(sa, sb, n)
        # Keep the corners with positive weight (the smallest sub-simplex holding the closest point).
        ka = mat43()
        kb = mat43()
        kl = wp.vec4(0.0)
        k = int(0)
        for i in range(n):
            if lam[i] > 0.0:
                ka[k] = sa[i]
                kb[k] = sb[i]
                kl[k] = lam[i]
                k += 1
        sa = ka
        sb = kb
        lam = kl
        n = k
        v = wp.vec3(0.0)
        for i in range(n):
            v += lam[i] * (sa[i] - sb[i])
        if n == 4:
            break  # the origin is inside the tetrahedron: the cores overlap
        d2 = wp.dot(v, v)
        if d2 >= dist2:  # no more progress in float32; a farther simplex (rounding) gives back the best one
            if d2 > dist2:
                sa = best_sa
                sb = best_sb
                lam = best_lam
                n = best_n
            break
        if d2 < 1.0e-18:
            break  # touching (the origin is on the simplex)
        dist2 = d2
        best_sa = sa
        best_sb = sb
        best_lam = lam
        best_n = n
    pa = wp.vec3(0.0)
    pb = wp.vec3(0.0)
    for i in range(n):
        pa += lam[i] * sa[i]
        pb += lam[i] * sb[i]
    dist = wp.length(pa - pb)
    if n == 4:
        dist = 0.0
    return dist, pa, pb, sa, sb, n


@wp.func
def _grow_simplex(a: Convex, b: Convex, verts: wp.array(dtype=wp.vec3), sa: mat43, sb: mat43, n: int):
    """Add support points until the simplex (holding the origin) is a tetrahedron of positive volume;
    returns (sa, sb, n), n < 4 when M is flat."""
    for _step in range(3):
        if n >= 4:
            break
        m0 = sa[0] - sb[0]
        d = wp.vec3(0.0)
        if n == 1:
            d = wp.vec3(1.0, 0.0, 0.0)
        elif n == 2:
            e = sa[1] - sb[1] - m0
            axis = wp.vec3(1.0, 0.0, 0.0)
            if wp.abs(e[1]) <= wp.abs(e[0]) and wp.abs(e[1]) <= wp.abs(e[2]):
                axis = wp.vec3(0.0, 1.0, 0.0)
            elif wp.abs(e[2]) <= wp.abs(e[0]):
                axis = wp.vec3(0.0, 0.0, 1.0)
            d = wp.cross(e, axis)
        else:
            d = wp.cross(sa[1] - sb[1] - m0, sa[2] - sb[2] - m0)
        best = float(1.0e-7)  # the farthest of a few candidate points from the simplex's affine hull
        added = int(0)
        for attempt in range(6):
            base = d
            if n == 1:  # the six axis directions
                base = wp.vec3(0.0)
                base[attempt // 2] = 1.0
            elif n == 2 and attempt >= 2:  # the other perpendicular of the segment
                base = wp.cross(sa[1] - sb[1] - m0, d)
            dd = base
            if attempt % 2 == 1:
                dd = -base
            pa = support(a, dd, verts)
            pb = support(b, -dd, verts)
            w = pa - pb
            off = float(0.0)
            if n == 1:
                off = wp.length(w - m0)
            elif n == 2:
                e = sa[1] - sb[1] - m0
                off = wp.length(wp.cross(w - m0, e)) / wp.max(wp.length(e), 1.0e-30)
            else:
                off = wp.abs(wp.dot(w - m0, wp.normalize(d)))
            if off > best:
                best = off
                sa[n] = pa
                sb[n] = pb
                added = 1
        if added == 0:
            break
        n += 1
    return sa, sb, n


@wp.func
def _face_plane(p0: wp.vec3, p1: wp.vec3, p2: wp.vec3, fallback: wp.vec3):
    """Unit normal and offset of the plane of a triangle (fallback normal when it is degenerate)."""
    nrm = wp.cross(p1 - p0, p2 - p0)
    ln = wp.length(nrm)
    if ln < 1.0e-20:
        nrm = fallback
    else:
        nrm = nrm / ln
    return nrm, wp.dot(nrm, p0)


@wp.func
def _epa_run(a: Convex, b: Convex, verts: wp.array(dtype=wp.vec3), sa_in: mat43, sb_in: mat43, n_in: int):
    """EPA from a GJK simplex holding the origin (see :func:`epa`): (depth, normal, witness on A, witness on
    B, the final face's corners on A and on B as matrix rows, ok).

    The polytope lives in local arrays of this one function: its vertices (as their support points on A and
    B) and triangular faces in slots that are reused once a face dies, each face with its vertices
    (counter-clockwise seen from outside), the faces across its edges (k, k + 1), its outward unit normal, its
    plane's offset from the origin and whether it is alive. Held in a struct, about 5 KB were copied into
    every helper and on every read of one of its fields."""
    sa, sb, n = _grow_simplex(a, b, verts, sa_in, sb_in, n_in)
    if n < 4:
        return float(0.0), wp.vec3(0.0, 0.0, 1.0), wp.vec3(0.0), wp.vec3(0.0), wp.mat33(0.0), wp.mat33(0.0), False
    va = _epa_pts()  # (EPA_VERTS, 3) support point on A of each vertex, world [m]
    vb = _epa_pts()  # (EPA_VERTS, 3) support point on B of each vertex, world [m]
    tri = _epa_tri()  # (EPA_FACES, 3) vertices of each face
    adj = _epa_tri()  # (EPA_FACES, 3) the face across edge (k, k + 1) of each face
    nrm = _epa_nrm()  # (EPA_FACES, 3) outward unit normal of each face
    off = _epa_val()  # (EPA_FACES,) distance of each face's plane from the origin [m]
    alive = _epa_flag()  # (EPA_FACES,) 1 for a face of the polytope, 0 for a dead one
    # The tetrahedron's four faces, each wound counter-clockwise seen from outside (away from the opposite
    # corner).
    for i in range(4):
        va[i] = sa[i]
        vb[i] = sb[i]
    for f in range(4):
        i0 = f
        i1 = (f + 1) % 4
        i2 = (f + 2) % 4
        i3 = (f + 3) % 4
        p0 = va[i0] - vb[i0]
        p1 = va[i1] - vb[i1]
        p2 = va[i2] - vb[i2]
        if wp.dot(wp.cross(p1 - p0, p2 - p0), (va[i3] - vb[i3]) - p0) > 0.0:
            tmp = i1
            i1 = i2
            i2 = tmp
        tri[f, 0] = i0
        tri[f, 1] = i1
        tri[f, 2] = i2
        p0 = va[i0] - vb[i0]
        p1 = va[i1] - vb[i1]
        p2 = va[i2] - vb[i2]
        fn, fo = _face_plane(p0, p1, p2, wp.vec3(0.0, 0.0, 1.0))
        nrm[f] = fn
        off[f] = fo
        alive[f] = 1
    for f in range(4):  # the face across each edge: the other face holding it reversed
        for e in range(3):
            ea = tri[f, e]
            eb = tri[f, (e + 1) % 3]
            across = int(-1)
            for g in range(4):
                for k in range(3):
                    if across < 0 and g != f and tri[g, k] == eb and tri[g, (k + 1) % 3] == ea:
                        across = g
            adj[f, e] = across
    nv = int(4)
    nf = int(4)
    seen = _epa_flag()  # the step in which each face was seen (a step number, so it is never cleared)
    stack = _epa_flag()
    horizon = _epa_tri()  # horizon edges: (a, b, the face across that does not see the new point)
    slots = _epa_flag()
    best = int(0)
    for it in range(EPA_VERTS):
        # The live face nearest the origin.
        best_off = float(1.0e30)
        for f in range(nf):
            if alive[f] == 1 and off[f] < best_off:
                best_off = off[f]
                best = f
        dn = wp.vec3(nrm[best])
        qa = support(a, dn, verts)
        qb = support(b, -dn, verts)
        w = qa - qb
        if wp.dot(w, dn) - best_off <= EPA_TOL or nv == EPA_VERTS:
            break
        # The faces that see w: a flood fill from the nearest face (the seen region is connected and its
        # boundary, the horizon, one loop, which keeps the polytope closed and convex in float32).
        stamp = it + 1
        seen[best] = stamp
        stack[0] = best
        top = int(1)
        nh = int(0)
        nvis = int(1)
        while top > 0:
            top -= 1
            f = stack[top]
            for e in range(3):
                g = adj[f, e]
                if seen[g] != stamp:
                    if wp.dot(wp.vec3(nrm[g]), w) - off[g] > 1.0e-9:
                        seen[g] = stamp
                        stack[top] = g
                        top += 1
                        nvis += 1
                    elif nh < EPA_FACES:
                        horizon[nh, 0] = tri[f, e]
                        horizon[nh, 1] = tri[f, (e + 1) % 3]
                        horizon[nh, 2] = g
                        nh += 1
        # Replacing the seen faces by faces from the horizon to w must keep a polytope: enough faces, room
        # for them, and no new face nearer the origin than the nearest one (impossible in exact arithmetic,
        # the polytope only grows: float32 round-off near coplanar faces), else the expansion ends.
        keeps = nh >= 3 and nf - nvis + nh <= EPA_FACES
        for h in range(nh):
            e0 = horizon[h, 0]
            e1 = horizon[h, 1]
            fn, fo = _face_plane(va[e0] - vb[e0], va[e1] - vb[e1], w, dn)
            if fo < best_off - EPA_TOL:
                keeps = False
        if not keeps:
            break
        # Add the vertex w: the seen faces die, a new face joins each horizon edge to w (dn: the fallback
        # normal of a degenerate one).
        for f in range(nf):
            if seen[f] == stamp:
                alive[f] = 0
        va[nv] = qa
        vb[nv] = qb
        slot = int(0)
        used = nf
        for h in range(nh):
            while slot < used and alive[slot] == 1:
                slot += 1
            e0 = horizon[h, 0]
            e1 = horizon[h, 1]
            tri[slot, 0] = e0
            tri[slot, 1] = e1
            tri[slot, 2] = nv
            fn, fo = _face_plane(va[e0] - vb[e0], va[e1] - vb[e1], w, dn)
            nrm[slot] = fn
            off[slot] = fo
            alive[slot] = 1
            slots[h] = slot
            # The outer face across (e0, e1) now borders the new face.
            g = horizon[h, 2]
            adj[slot, 0] = g
            for k in range(3):
                if tri[g, k] == e1 and tri[g, (k + 1) % 3] == e0:
                    adj[g, k] = slot
            if slot == used:
                used += 1
        for h in range(nh):  # new faces border each other across (e1, w) and (w, e0)
            for j in range(nh):
                if horizon[j, 0] == horizon[h, 1]:
                    adj[slots[h], 1] = slots[j]
                if horizon[j, 1] == horizon[h, 0]:
                    adj[slots[h], 2] = slots[j]
        nv += 1
        nf = used
    # Depth, normal and witness points of the nearest face: the origin's projection on it, in barycentric
    # coordinates.
    dn = wp.vec3(nrm[best])
    depth = off[best]
    i0 = tri[best, 0]
    i1 = tri[best, 1]
    i2 = tri[best, 2]
    p0 = va[i0] - vb[i0]
    g1 = (va[i1] - vb[i1]) - p0
    g2 = (va[i2] - vb[i2]) - p0
    q = dn * depth - p0
    d11 = wp.dot(g1, g1)
    d12 = wp.dot(g1, g2)
    d22 = wp.dot(g2, g2)
    det = d11 * d22 - d12 * d12
    l1 = float(0.0)
    l2 = float(0.0)
    if det > 1.0e-30:
        l1 = (d22 * wp.dot(q, g1) - d12 * wp.dot(q, g2)) / det
        l2 = (d11 * wp.dot(q, g2) - d12 * wp.dot(q, g1)) / det
    l0 = 1.0 - l1 - l2
    pa = l0 * wp.vec3(va[i0]) + l1 * wp.vec3(va[i1]) + l2 * wp.vec3(va[i2])
    pb = l0 * wp.vec3(vb[i0]) + l1 * wp.vec3(vb[i1]) + l2 * wp.vec3(vb[i2])
    ca = wp.mat33(0.0)
    cb = wp.mat33(0.0)
    for k in range(3):
        ca[k] = wp.vec3(va[tri[best, k]])
        cb[k] = wp.vec3(vb[tri[best, k]])
    return depth, dn, pa, pb, ca, cb, True


@wp.func
def epa(a: Convex, b: Convex, verts: wp.array(dtype=wp.vec3), sa_in: mat43, sb_in: mat43, n_in: int):
    """Penetration of the cores of a and b from a GJK simplex holding the origin.

    The polytope's faces keep their neighbours, so the faces a new support point sees are
    found by a flood fill from the nearest face: a connected region whose boundary (the horizon) is
    one loop, which keeps the polytope closed and convex in float32. A step whose new faces would come
    nearer the origin than the current nearest face (impossible in exact arithmetic, the polytope only
    grows) is rejected and ends the expansion.

    Returns:
        (depth [m] >= 0, unit normal from A to B, witness on A, witness on B, ok). ok is False when no
        tetrahedron could be built (a flat Minkowski difference); the other values are then unset.
    """
    depth, dn, pa, pb, ca, cb, ok = _epa_run(a, b, verts, sa_in, sb_in, n_in)
    return depth, dn, pa, pb, ok


@wp.func
def epa_face(a: Convex, b: Convex, verts: wp.array(dtype=wp.vec3), sa_in: mat43, sb_in: mat43, n_in: int):
    """:func:`epa`, also returning the corners of the final face (the nearest the origin): their support
    points on A and on B (rows of two 3x3 matrices), whose distinct vertices are the features MuJoCo's
    multicontact starts from. Returns (depth, normal, witness on A, witness on B, corners on A, corners
    on B, ok)."""
    return _epa_run(a, b, verts, sa_in, sb_in, n_in)
