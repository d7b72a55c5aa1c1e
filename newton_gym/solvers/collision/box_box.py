"""Box-box contact sets, as MuJoCo C makes them (engine_collision_box.c ``mjc_BoxBox``, the separating-axis
collider of MuJoCo 3.12 / 4.0: SAT, then face clipping or one edge-edge contact).

:func:`box_box` (8 slots) resolves boxes A and B (geom1 and geom2 in MuJoCo's order, normal A to B):

1. Separating axes: the 3 face normals of A, the 3 of B, then the 9 cross products of an edge of A with
   an edge of B (skipped where the edges are within ~3e-4 rad of parallel). Any axis that separates the
   boxes by more than the margin ends the test with no contact. The axis of largest separation wins;
   an edge axis must beat the best face by a relative 1e-6 (and by float32's rounding, see below) and,
   where it lies within ~8 degrees of that face's normal (cosine > 0.99), by 5 % of the face's depth.
2. Edge axis: one contact at the midpoint of the closest points of the two supporting edges, the distance
   measured along the axis (both candidate edges are tried where the axis leaves the choice open).
3. Face axis: the face's box is the reference; the face of the other box most opposed to its normal is
   clipped by the four side planes of the reference face (Sutherland-Hodgman, corners in MuJoCo's order),
   and every clipped corner closer than the margin (near-duplicates merged) becomes a contact: distance
   along the reference normal, point midway between the reference plane and the incident face, normal the
   reference face's (from A to B). A quadrilateral clipped by four planes keeps at most 8 corners.

float32 throughout, where MuJoCo works in double. Differences that remain:

* Ties. A later face axis must beat the best one by 2e-7 of the boxes' summed half sizes (float32
  rounding of a separation), so exact ties go to the earlier axis, A's faces before B's, as exact
  arithmetic has it; MuJoCo's double rounding picks either (a box resting flat and only yawed on another:
  both faces give the same clipped polygon, so the same contacts, possibly in another order). Faces closer
  to a tie than that (tilts below ~1e-6 rad) can go either way.
* An edge axis must also beat the best face axis by 2e-7 of the summed half sizes (MuJoCo: by nothing
  beyond the relative 1e-6), so that it cannot win on float32 rounding: an edge nearly parallel to a face
  of the other box gives an axis within 1e-9 m of that face's separation, and where that face ties with
  the best one (mirror-image boxes: the a1's rear thighs), it is no "aligned" edge and would take over.
  Edges that beat the faces by less than that (~5e-8 m for boxes of 0.25 m) give the face's contacts.
* Separations get a slack of 1e-6 of the summed half sizes against the margin (MuJoCo: 1e-13); an edge
  pair within sin^2 = 1e-7 of parallel is no candidate axis (MuJoCo: 1e-16; such an axis is ill-defined
  in float32); a support corner is ambiguous within 1e-5 (MuJoCo: 1e-9).
"""

from __future__ import annotations

import warp as wp

from .primitive import ContactSlots, Convex, emit_contact

wp.set_module_options({"enable_backward": False})

__all__ = ["box_box"]

_SLACK = 1.0e-6  # separation rounding slack, times the summed half sizes
_FACE_TIE = 2.0e-7  # a later face axis, or an edge axis, must beat the best face by this, times the half sizes
_PARALLEL = 1.0e-7  # sin^2 of the angle of two edges below which their cross product is no axis
_AMBIGUOUS = 1.0e-5  # an axis component below this leaves the supporting edge open
_DUPLICATE = 1.0e-10  # squared distance (relative to the reference face) of merged clipped corners
_EDGE_BIAS = 1.0e-6  # relative margin by which an edge axis must beat the best face axis
_ALIGNED = 0.99  # an edge axis this close to the best face normal (cosine) duplicates it ...
_FACE_WINS = 0.05  # ... unless deeper by this fraction of the face separation
_MINVAL = 1.0e-15
_CAP = 12  # corner capacity of a clipped polygon (8 in exact arithmetic)

_polygon = wp.types.matrix(shape=(_CAP, 3), dtype=wp.float32)


@wp.func
def _clip(poly: _polygon, count: int, coord: int, side: float, limit: float):
    """Polygon ``poly`` (``count`` corners, (x, y, z) with z carried along) clipped to side * v[coord] <= limit:
    corners kept in order, a crossing point added after each corner whose edge strictly crosses the line."""
    out = _polygon()
    n = int(0)
    for k in range(count):
        nxt = k + 1
        if nxt == count:
            nxt = 0
        p = wp.vec3(poly[k])
        q = wp.vec3(poly[nxt])
        dp = side * p[coord] - limit
        dq = side * q[coord] - limit
        if dp <= 0.0 and n < _CAP:
            out[n] = p
            n += 1
        if ((dp < 0.0 and dq > 0.0) or (dp > 0.0 and dq < 0.0)) and n < _CAP:
            out[n] = p + (dp / (dp - dq)) * (q - p)
            n += 1
    return out, n


@wp.func
def _edge_axis(i: int, j: int, rot: wp.mat33):
    """Edge i of box A crossed with edge j of B, in A's frame (component i is 0), not normalized."""
    axis = wp.vec3(0.0)
    axis[(i + 1) % 3] = -rot[(i + 2) % 3, j]
    axis[(i + 2) % 3] = rot[(i + 1) % 3, j]
    return axis


@wp.func
def _edge_contact(i: int, j: int, rot: wp.mat33, pos21: wp.vec3, s1: wp.vec3, s2: wp.vec3):
    """Edge i of box A against edge j of box B (A's frame, B's centre at pos21): (distance along the
    unit axis, axis from A to B, midpoint of the closest points of the supporting edges)."""
    i1 = (i + 1) % 3
    i2 = (i + 2) % 3
    j1 = (j + 1) % 3
    j2 = (j + 2) % 3
    raw = _edge_axis(i, j, rot)
    sin2 = raw[i1] * raw[i1] + raw[i2] * raw[i2]  # 1 - (e_i . d2)^2, without the cancellation
    axis = raw / wp.sqrt(sin2)
    if wp.dot(axis, pos21) < 0.0:
        axis = -axis
    a2 = wp.transpose(rot) * axis  # the axis in B's frame
    # Supporting edges: A's at the corner furthest along +axis, B's at the corner furthest along -axis;
    # a component within _AMBIGUOUS of zero leaves both corners (one per box at most): keep the closest.
    amb1 = int(-1)
    if wp.abs(axis[i1]) < _AMBIGUOUS:
        amb1 = i1
    elif wp.abs(axis[i2]) < _AMBIGUOUS:
        amb1 = i2
    amb2 = int(-1)
    if wp.abs(a2[j1]) < _AMBIGUOUS:
        amb2 = j1
    elif wp.abs(a2[j2]) < _AMBIGUOUS:
        amb2 = j2
    d2 = wp.vec3(rot[0, j], rot[1, j], rot[2, j])
    b = d2[i]
    best = float(1.0e30)
    w1 = wp.vec3(0.0)
    w2 = wp.vec3(0.0)
    n1 = int(1)
    if amb1 >= 0:
        n1 = 2
    n2 = int(1)
    if amb2 >= 0:
        n2 = 2
    for v1 in range(n1):
        for v2 in range(n2):
            c1 = wp.vec3(0.0)
            c1[i1] = wp.where(axis[i1] >= 0.0, s1[i1], -s1[i1])
            c1[i2] = wp.where(axis[i2] >= 0.0, s1[i2], -s1[i2])
            if v1 == 1:
                c1[amb1] = -c1[amb1]
            cc = wp.vec3(0.0)
            cc[j1] = wp.where(a2[j1] >= 0.0, -s2[j1], s2[j1])
            cc[j2] = wp.where(a2[j2] >= 0.0, -s2[j2], s2[j2])
            if v2 == 1:
                cc[amb2] = -cc[amb2]
            c2 = rot * cc + pos21
            e = c2 - c1
            d2e = wp.dot(d2, e)
            s = float(0.0)
            if sin2 >= _MINVAL:
                s = (e[i] - b * d2e) / sin2
            s = wp.clamp(s, -s1[i], s1[i])
            t = wp.clamp(b * s - d2e, -s2[j], s2[j])
            s = wp.clamp(e[i] + b * t, -s1[i], s1[i])
            p1 = c1
            p1[i] = p1[i] + s
            p2 = c2 + d2 * t
            g2 = wp.length_sq(p2 - p1)
            if g2 < best:
                best = g2
                w1 = p1
                w2 = p2
    return wp.dot(w2 - w1, axis), axis, 0.5 * (w1 + w2)


@wp.func
def box_box(slots: wp.vec2i, a: Convex, b: Convex, margin: float, out: ContactSlots):
    """Boxes a and b into ``slots`` (first slot, slot count; see the module docstring)."""
    r1 = wp.quat_to_matrix(wp.transform_get_rotation(a.xf))
    r2 = wp.quat_to_matrix(wp.transform_get_rotation(b.xf))
    p1 = wp.transform_get_translation(a.xf)
    p2 = wp.transform_get_translation(b.xf)
    s1 = a.size
    s2 = b.size
    rot = wp.transpose(r1) * r2  # B's axes in A's frame (columns)
    pos21 = wp.transpose(r1) * (p2 - p1)
    pos12 = wp.transpose(r2) * (p1 - p2)
    extent = s1[0] + s1[1] + s1[2] + s2[0] + s2[1] + s2[2]
    septol = margin + _SLACK * extent
    tie = _FACE_TIE * extent

    # 1. Separating axes: code 0..2 a face of A, 3..5 a face of B, 6 + 3 i + j edge i of A x edge j of B.
    best = float(-1.0e30)
    code = int(-1)
    for f in range(6):
        sep = float(0.0)
        if f < 3:
            reach = wp.abs(rot[f, 0]) * s2[0] + wp.abs(rot[f, 1]) * s2[1] + wp.abs(rot[f, 2]) * s2[2]
            sep = wp.abs(pos21[f]) - s1[f] - reach
        else:
            g = f - 3
            reach = wp.abs(rot[0, g]) * s1[0] + wp.abs(rot[1, g]) * s1[1] + wp.abs(rot[2, g]) * s1[2]
            sep = wp.abs(pos12[g]) - s2[g] - reach
        if sep > septol:
            return
        if sep > best + wp.where(code >= 0, tie, 0.0):
            best = sep
            code = f
    face_sep = best
    face_code = code
    for i in range(3):
        for j in range(3):
            raw = _edge_axis(i, j, rot)
            sin2 = wp.length_sq(raw)
            if sin2 >= _PARALLEL:
                axis = raw / wp.sqrt(sin2)
                i1 = (i + 1) % 3
                i2 = (i + 2) % 3
                j1 = (j + 1) % 3
                j2 = (j + 2) % 3
                reach1 = s1[i1] * wp.abs(axis[i1]) + s1[i2] * wp.abs(axis[i2])
                b1 = axis[i1] * rot[i1, j1] + axis[i2] * rot[i2, j1]
                b2 = axis[i1] * rot[i1, j2] + axis[i2] * rot[i2, j2]
                reach2 = s2[j1] * wp.abs(b1) + s2[j2] * wp.abs(b2)
                sep = wp.abs(wp.dot(axis, pos21)) - reach1 - reach2
                if sep > septol:
                    return
                if sep - _EDGE_BIAS * wp.abs(sep) > best and sep - tie > face_sep:
                    best = sep
                    code = 6 + 3 * i + j
    if code >= 6:  # an edge axis aligned with the best face's normal gives way to it unless clearly deeper
        axis = wp.normalize(_edge_axis((code - 6) // 3, (code - 6) % 3, rot))
        aligned = float(0.0)
        if face_code < 3:
            aligned = wp.abs(axis[face_code])
        else:
            aligned = wp.abs(wp.dot(axis, wp.vec3(rot[0, face_code - 3], rot[1, face_code - 3], rot[2, face_code - 3])))
        if aligned > _ALIGNED and best < face_sep + _FACE_WINS * wp.abs(face_sep) + _MINVAL:
            code = face_code

    # 2. Edge axis: one contact.
    if code >= 6:
        d, axis, mid = _edge_contact((code - 6) // 3, (code - 6) % 3, rot, pos21, s1, s2)
        if d <= septol:
            emit_contact(slots[0], d, r1 * axis, r1 * mid + p1, margin, wp.vec3(0.0), out)
        return

    # 3. Face axis: the incident face clipped by the reference face's sides.
    ref_a = code < 3
    f = code
    sref = s1
    sinc = s2
    rref = r1
    pref = p1
    centre = pos21  # incident centre in the reference frame
    rinc = rot  # incident axes (columns) in the reference frame
    if not ref_a:
        f = code - 3
        sref = s2
        sinc = s1
        rref = r2
        pref = p2
        centre = pos12
        rinc = wp.transpose(rot)
    up = wp.where(centre[f] >= 0.0, 1.0, -1.0)  # the side of the reference box the incident box lies on
    inc = int(0)
    for k in range(1, 3):
        if wp.abs(rinc[f, k]) > wp.abs(rinc[f, inc]):
            inc = k
    turn = wp.where(up * rinc[f, inc] > 0.0, -1.0, 1.0)  # the incident face opposing the reference normal
    fx = (f + 1) % 3
    fy = (f + 2) % 3
    iu = (inc + 1) % 3
    iv = (inc + 2) % 3
    # Incident face corners in (x, y, z): the reference face's two in-plane axes and the height above it.
    mid = wp.vec3(0.0)
    du = wp.vec3(0.0)
    dv = wp.vec3(0.0)
    for r in range(3):
        c = fx
        if r == 1:
            c = fy
        elif r == 2:
            c = f
        mid[r] = centre[c] + turn * sinc[inc] * rinc[c, inc]
        du[r] = sinc[iu] * rinc[c, iu]
        dv[r] = sinc[iv] * rinc[c, iv]
    mid[2] = up * mid[2] - sref[f]
    du[2] = up * du[2]
    dv[2] = up * dv[2]
    poly = _polygon()
    poly[0] = mid + du + dv
    poly[1] = mid - du + dv
    poly[2] = mid - du - dv
    poly[3] = mid + du - dv
    count = int(4)
    poly, count = _clip(poly, count, 0, 1.0, sref[fx])
    poly, count = _clip(poly, count, 0, -1.0, sref[fx])
    poly, count = _clip(poly, count, 1, 1.0, sref[fy])
    poly, count = _clip(poly, count, 1, -1.0, sref[fy])

    sign = wp.where(ref_a, up, -up)
    normal = wp.vec3(sign * rref[0, f], sign * rref[1, f], sign * rref[2, f])
    merge = _DUPLICATE * (sref[fx] * sref[fx] + sref[fy] * sref[fy])
    kept = _polygon()
    n = int(0)
    for k in range(count):
        v = wp.vec3(poly[k])
        if v[2] < margin and n < slots[1]:
            fresh = int(1)
            for q in range(n):
                dx = kept[q, 0] - v[0]
                dy = kept[q, 1] - v[1]
                if dx * dx + dy * dy < merge:
                    fresh = 0
            if fresh == 1:
                kept[n] = v
                local = wp.vec3(0.0)
                local[fx] = v[0]
                local[fy] = v[1]
                local[f] = up * (sref[f] + 0.5 * v[2])
                emit_contact(slots[0] + n, v[2], normal, rref * local + pref, margin, wp.vec3(0.0), out)
                n += 1
