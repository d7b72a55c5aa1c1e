"""Capsule-capsule and capsule-box contact sets, as MuJoCo C makes them (``mjc_CapsuleCapsule`` in
engine_collision_primitive.c, ``mjc_CapsuleBox`` in engine_collision_box.c, MuJoCo 4.0).

Both reduce a capsule pair to balls: points on the capsule segment(s), each with the capsule radius,
collided as a ball against a ball or a box. A ball contact sits midway between the two surfaces, its
normal points from the capsule (shape A) to B and its distance is signed (negative: penetration); it is
kept while closer than the pair's margin.

* :func:`capsule_capsule` (2 slots): one contact between the closest points of the two segments (A's
  parameter clamped first, then B's). Axes within sin^2 = 1e-8 of parallel (1e-4 rad; MuJoCo 4.0's rule,
  relative, so independent of the capsule lengths) get up to two: at the two ends of the overlap of the
  segments along A's axis, lower end first. An overlap end that is an end of B pairs that end with its
  projection on A's segment; one at an end of A pairs it with its closest point of B's segment (segments
  that do not overlap get the same contact twice, as in MuJoCo).
* :func:`capsule_box` (2 slots): the point of A's segment closest to the box (over the two end points
  against the box, the end -1 winning ties, and the segment against the 12 box edges), then, when the
  capsule lies along a face or an edge, a second point further along the segment: as far as the capsule
  stays over the face or the edge that holds the first point. Each point is collided as a ball against
  the box (:func:`ball_box`: a ball centre inside the box leaves through the nearest face). A segment
  beyond one of the box's faces by more than the radius and the margin makes none, and is left before the
  search (the same contacts, none, at a fraction of its cost).

float32 throughout, where MuJoCo works in double. Differences that remain:

* Ties. MuJoCo breaks exact geometric ties by rounding noise or by a 1e-15 slack, which float32 cannot
  reproduce; here a later candidate must be closer by its float32 rounding (``_TIE``), and an axis
  component below 1e-6 of the half length is exactly 0 (``_FLAT``): a capsule lying exactly flat or
  parallel to a box face. MuJoCo takes the sign of its 1e-17 rounding noise in such a component as the
  capsule's octant and can lose (or keep) the second contact by it; here it counts as not positive, as
  exact arithmetic has it. Near-ties closer than float32 resolves (tilts below ~1e-6 rad) can go either way.
* Ball centres within 1e-6 m of each other (capsule-capsule) have no direction between them: the normal is
  A's axis x B's (world x for parallel axes), where MuJoCo does so only below 1e-15 m.
"""

from __future__ import annotations

import warp as wp

from .primitive import ContactSlots, Convex, emit_contact

wp.set_module_options({"enable_backward": False})

__all__ = ["capsule_capsule", "capsule_box", "ball_ball", "ball_box"]

_MINVAL = 1.0e-15  # MuJoCo's mjMINVAL: a box edge and a segment with a Gram determinant below this are parallel
_NEAR_PARALLEL = 1.0e-8  # capsule axes with sin^2 of their angle below this are parallel (MuJoCo 4.0's rule)
_TIE = 2.5e-7  # float32 rounding of a squared distance d^2, relative to scale * d: a later candidate must beat it
_FLAT = 1.0e-6  # half-axis components below this fraction of the half length are taken as exactly 0
_CENTRE = 1.0e-6  # [m] ball centres closer than this (float32 rounding of coincident points) have no direction
_FAR = 4.0  # segment parameter meaning "no second point" (valid ones lie in [-2, 2])


@wp.func
def _axis(xf: wp.transform):
    """World z axis of a shape frame."""
    return wp.transform_vector(xf, wp.vec3(0.0, 0.0, 1.0))


@wp.func
def ball_ball(c1: wp.vec3, r1: float, z1: wp.vec3, c2: wp.vec3, r2: float, z2: wp.vec3):
    """Contact of a ball (centre c1, radius r1) with a ball (c2, r2): (distance, normal 1 -> 2, point
    midway between the surfaces). Coincident centres take the normal z1 x z2 (the two capsule axes), or
    world x when those are parallel too."""
    gap = c2 - c1
    length = wp.length(gap)
    n = wp.vec3(1.0, 0.0, 0.0)
    if length >= _CENTRE:
        n = gap / length
    else:
        cz = wp.cross(z1, z2)
        if wp.length(cz) >= _CENTRE:
            n = wp.normalize(cz)
    d = length - r1 - r2
    return d, n, c1 + n * (r1 + 0.5 * d)


@wp.func
def ball_box(c: wp.vec3, r: float, box: Convex):
    """Contact of a ball (centre c in the box frame, radius r) with a box: (distance, world normal ball ->
    box, world point). Outside the box the normal runs from the centre to the nearest box point; a centre
    inside leaves through the nearest face (the first of -x, +x, -y, +y, -z, +z on ties)."""
    s = box.size
    q = wp.vec3(wp.clamp(c[0], -s[0], s[0]), wp.clamp(c[1], -s[1], s[1]), wp.clamp(c[2], -s[2], s[2]))
    out = q - c
    length = wp.length(out)
    if length > _CENTRE:
        nl = out / length
        p = 0.5 * (q + c + nl * r)
        return length - r, wp.transform_vector(box.xf, nl), wp.transform_point(box.xf, p)
    # Inside: the face with the least depth; the normal points away from it (the ball leaves through it).
    depth = float(1.0e30)
    face = int(0)
    for f in range(6):
        k = f // 2
        wall = float(2 * (f % 2) - 1) * s[k]
        h = wp.abs(wall - c[k])
        if h < depth:
            depth = h
            face = f
    nl = wp.vec3(0.0)
    nl[face // 2] = -float(2 * (face % 2) - 1)
    p = c + nl * (0.5 * (r - depth))
    return -depth - r, wp.transform_vector(box.xf, nl), wp.transform_point(box.xf, p)


@wp.func
def _put(slot: int, count: int, d: float, n: wp.vec3, p: wp.vec3, margin: float, out: ContactSlots):
    """Emit a contact into slot ``slot + count`` when closer than the margin; returns the new count."""
    if d < margin:
        emit_contact(slot + count, d, n, p, margin, wp.vec3(0.0), out)
        return count + 1
    return count


@wp.func
def capsule_capsule(start: int, a: Convex, b: Convex, margin: float, out: ContactSlots):
    """Capsule a against capsule b into slots start, start + 1 (see the module docstring)."""
    za = _axis(a.xf)
    zb = _axis(b.xf)
    ha = za * a.size[1]  # half axes
    hb = zb * b.size[1]
    pa = wp.transform_get_translation(a.xf)
    pb = wp.transform_get_translation(b.xf)
    ra = a.size[0]
    rb = b.size[0]
    r = pa - pb
    aa = wp.dot(ha, ha)
    bb = wp.dot(hb, hb)
    nab = wp.cross(ha, hb)
    gram = wp.dot(nab, nab)  # aa * bb - ab^2, without the cancellation
    if gram >= _NEAR_PARALLEL * aa * bb:
        # Closest points of the two lines (parameters in half-axis units), then clamped as MuJoCo does:
        # first A's parameter (B's re-projected), then B's (A's re-projected and clamped).
        s = wp.dot(wp.cross(hb, r), nab) / gram
        t = wp.dot(wp.cross(ha, r), nab) / gram
        if s > 1.0:
            s = 1.0
            t = wp.dot(r + ha, hb) / bb
        elif s < -1.0:
            s = -1.0
            t = wp.dot(r - ha, hb) / bb
        if t > 1.0:
            t = 1.0
            s = wp.clamp(wp.dot(hb - r, ha) / aa, -1.0, 1.0)
        elif t < -1.0:
            t = -1.0
            s = wp.clamp(wp.dot(-hb - r, ha) / aa, -1.0, 1.0)
        d, n, p = ball_ball(pa + ha * s, ra, za, pb + hb * t, rb, zb)
        _put(start, 0, d, n, p, margin, out)
        return
    # (Nearly) parallel: the two ends of the overlap of the segments along A's axis, the lower first. An end
    # of B inside A's span pairs with its projection on A's segment; where the overlap ends at an end of A
    # (B's end projects beyond it), that end pairs with its closest point of B's segment.
    inv_aa = 1.0 / wp.max(aa, 1.0e-30)
    up = wp.dot(hb - r, ha) * inv_aa  # B's +end and -end on A's line (A's parameter)
    down = wp.dot(-hb - r, ha) * inv_aa
    count = int(0)
    for e in range(2):
        u = wp.where((e == 0) == (up <= down), up, down)
        end = wp.where((e == 0) == (up <= down), 1.0, -1.0)  # which end of B
        s = wp.clamp(u, -1.0, 1.0)
        t = end
        if s != u:
            t = wp.clamp(wp.dot(r + ha * s, hb) / wp.max(bb, 1.0e-30), -1.0, 1.0)
        d, n, p = ball_ball(pa + ha * s, ra, za, pb + hb * t, rb, zb)
        count = _put(start, count, d, n, p, margin, out)


@wp.func
def _corner(k: int, s: wp.vec3):
    """Box corner k (bit i set: +s[i], else -s[i])."""
    return wp.vec3(
        float(2 * (k & 1) - 1) * s[0], float(2 * ((k >> 1) & 1) - 1) * s[1], float(2 * ((k >> 2) & 1) - 1) * s[2]
    )


@wp.func
def _edge_closest(j: int, mid: wp.vec3, c: wp.vec3, h: wp.vec3, hlen2: float, s: wp.vec3):
    """Closest points of the box edge through ``mid`` along axis j (mid + x e_j s_j, x in [-1, 1]) and the
    segment c + y h (y in [-1, 1]), box frame. Returns (ok, x, y, code, squared distance): ok False for an
    edge parallel to the segment; code = 3 * ex + ey, ex / ey 0, 1, 2 for x / y at -1, inside, +1 (as the
    clamps left them: a re-projected parameter that ends inside keeps its earlier flag)."""
    k = (j + 1) % 3
    m = (j + 2) % 3
    off = h[k] * h[k] + h[m] * h[m]  # hlen2 - h_j^2 without cancellation
    sj = s[j]
    ok = off * sj * sj >= _MINVAL
    x = float(0.0)
    y = float(0.0)
    ex = int(1)
    ey = int(1)
    if ok:
        w = mid - c
        y = (h[k] * w[k] + h[m] * w[m]) / off
        x = (h[j] * y - w[j]) / sj
        if x > 1.0:
            x = 1.0
            ex = 2
            y = (wp.dot(h, w) + h[j] * sj) / hlen2
        elif x < -1.0:
            x = -1.0
            ex = 0
            y = (wp.dot(h, w) - h[j] * sj) / hlen2
        if y > 1.0:
            y = 1.0
            ey = 2
            x = (h[j] - w[j]) / sj
            if x > 1.0:
                x = 1.0
                ex = 2
            elif x < -1.0:
                x = -1.0
                ex = 0
        elif y < -1.0:
            y = -1.0
            ey = 0
            x = (-h[j] - w[j]) / sj
            if x > 1.0:
                x = 1.0
                ex = 2
            elif x < -1.0:
                x = -1.0
                ex = 0
    g = mid - c - h * y
    g[j] = g[j] + sj * x
    return ok, x, y, 3 * ex + ey, wp.dot(g, g)


@wp.func
def _shorter(value: float, limit: float):
    """min(value, limit) for a limit that may be infinite (a zero axis component): limit < 0 means none."""
    if limit >= 0.0 and limit < value:
        return limit
    return value


@wp.func
def _span(size: float, h: float, scale: float):
    """How far (segment parameter) the segment runs along a box extent ``scale * size`` given the half
    axis component h: scale * size / |h|, or -1 (none) for h = 0."""
    if h == 0.0:
        return -1.0
    return scale * size / wp.abs(h)


@wp.func
def capsule_box(start: int, a: Convex, b: Convex, margin: float, out: ContactSlots):
    """Capsule a against box b into slots start, start + 1 (see the module docstring)."""
    s = b.size
    inv = wp.transform_inverse(b.xf)
    c = wp.transform_point(inv, wp.transform_get_translation(a.xf))
    axis = wp.transform_vector(inv, _axis(a.xf))
    for i in range(3):  # float32 rounding of an axis parallel to a face: exactly parallel (see the docstring)
        if wp.abs(axis[i]) < _FLAT:
            axis[i] = 0.0
    half = a.size[1]
    h = axis * half
    # Apart along a face normal of the box by more than the radius and the margin (float32 rounding spared):
    # every ball of the segment lies beyond the margin, which no contact passes. Most capsule-box pairs of
    # a robot (a thigh beside its trunk) end here, before the edge search.
    reach = (a.size[0] + margin) * (1.0 + 1.0e-5) + 1.0e-6
    apart = bool(False)
    for i in range(3):
        if c[i] - wp.abs(h[i]) - reach > s[i] or c[i] + wp.abs(h[i]) + reach < -s[i]:
            apart = True
    if apart:
        return
    hlen2 = half * half
    scale = s[0] + s[1] + s[2] + half
    # Octant of the axis: bit i set where h[i] > 0 (the axis and its reverse are the same segment).
    octant = int(0)
    for i in range(3):
        if h[i] > 0.0:
            octant = octant | (1 << i)

    # MuJoCo's starting bound (a length, compared with squared distances): candidates beyond it are ignored.
    best = margin + 2.0 * (a.size[0] + scale)
    seg = float(0.0)  # segment parameter of the closest point
    kind = int(-4)  # -3 / -1: end -1 / +1 over a face; 0..8: an edge (code of _edge_closest); -4: none
    face = int(-1)  # the face axis the chosen end point lies beyond (-1: over the box or inside)
    corner = int(0)  # the edge end (corner index) nearest the segment, for an edge
    edge = int(0)
    boxpos = float(0.0)  # edge parameter of the closest point
    # End points against the box (only where at most one coordinate lies beyond the box).
    for e in range(2):
        sign = 2.0 * float(e) - 1.0
        p = c + h * sign
        beyond = int(0)
        last = int(-1)
        q = p
        for i in range(3):
            if p[i] < -s[i] or p[i] > s[i]:
                beyond += 1
                last = i
                q[i] = wp.clamp(p[i], -s[i], s[i])
        if beyond <= 1:
            d2 = wp.length_sq(q - p)
            # end +1 must beat end -1 by more than rounding (a capsule lying flat: end -1, as exact arithmetic)
            tie = float(0.0)
            if kind != -4:
                tie = _TIE * scale * (wp.sqrt(best) + _TIE * scale)
            if d2 < best - tie:
                best = d2
                seg = sign
                kind = -2 + int(sign)
                face = last
    # The segment against the 12 edges (a later candidate must be closer by more than rounding).
    for j in range(3):
        for k in range(8):
            if ((k >> j) & 1) == 0:
                mid = _corner(k, s)
                mid[j] = 0.0
                ok, x, y, code, d2 = _edge_closest(j, mid, c, h, hlen2, s)
                if ok and d2 < best - _TIE * scale * (wp.sqrt(wp.max(best, 0.0)) + _TIE * scale):
                    best = d2
                    seg = y
                    boxpos = x
                    corner = k + (1 << j) * (code // 6)
                    edge = j
                    kind = code
    if kind == -4:
        return

    second = float(_FAR)  # offset of the second point from the first, along the segment
    if kind >= 0 and kind // 3 != 1:
        # Closest to a box corner: a second point along the edge (or the face) the axis follows.
        rel = octant ^ corner
        if rel != 0 and rel != 7:
            mul = float(1.0)
            ahead = 1.0 - seg  # room along the segment in the +mul direction
            back = 1.0 + seg
            if rel == 3 or rel == 5 or rel == 6:
                mul = -1.0
                rel = 7 - rel
                ahead = 1.0 + seg
                back = 1.0 - seg
            ax = int(0)
            if rel == 2:
                ax = 1
            elif rel == 4:
                ax = 2
            ax1 = (ax + 1) % 3
            ax2 = (ax + 2) % 3
            if axis[ax] * axis[ax] > 0.5:  # along the edge of axis ax
                second = mul * _shorter(ahead, _span(s[ax], h[ax], 2.0))
            else:  # across the face spanned by the two other axes
                room = _shorter(back, _span(s[ax1], h[ax1], 2.0))
                second = -mul * _shorter(room, _span(s[ax2], h[ax2], 2.0))
    elif kind >= 0:
        # Closest to an edge's interior: a second point when the segment crosses the edge along a face.
        rel = (octant ^ corner) & (7 - (1 << edge))
        if rel == 1 or rel == 2 or rel == 4:
            ax = edge
            ax1 = (ax + 1) % 3
            ax2 = (ax + 2) % 3
            if wp.abs(axis[ax1]) > wp.abs(axis[ax2]):
                ax1 = ax2
            ax2 = 3 - ax - ax1  # the face of the edge the segment is flattest against: its normal ax1
            mul = float(-1.0)
            room = 1.0 + seg
            if (rel & (1 << ax2)) != 0:
                mul = 1.0
                room = 1.0 - seg
            room = _shorter(room, _span(s[ax2], h[ax2], 2.0))
            along = 1.0 + boxpos
            if ((octant & (1 << ax)) != 0) == ((rel & (1 << ax2)) != 0):
                along = 1.0 - boxpos
            room = _shorter(room, _span(s[ax], h[ax], along))
            second = mul * room
    elif face >= 0:
        # An end point beyond one face: the other end, pulled back to where the segment leaves that face.
        mul = float(1.0)
        if kind == -1:
            mul = -1.0
        room = float(2.0)
        base = c - h * mul
        for i in range(3):
            if i != face and h[i] != 0.0:
                e1 = (s[i] - base[i]) / h[i] * mul
                if e1 > 0.0 and e1 < room:
                    room = e1
                e2 = (-s[i] - base[i]) / h[i] * mul
                if e2 > 0.0 and e2 < room:
                    room = e2
        second = room * mul

    d, n, p = ball_box(c + h * seg, a.size[0], b)
    count = _put(start, 0, d, n, p, margin, out)
    if second < _FAR - 1.0:
        d, n, p = ball_box(c + h * (seg + second), a.size[0], b)
        _put(start, count, d, n, p, margin, out)
