"""Warp device functions shared by the solver stages: spatial algebra and small dense linear algebra.

Spatial vectors are ordered linear first. Motion vectors (twists) and force vectors
(wrenches) inside the solver are expressed in world axes about a per-articulation reference point r
(the root body's COM at the start of the substep), which keeps float32 lever arms short.
Composite / body inertias about r are kept in the compact form (m, h, I): mass, first moment
h = m (c - r) and rotational inertia about r.
"""

from __future__ import annotations

from typing import Any

import warp as wp

from .items import WIDE, item, item_set, wide64
from .lanes import lane_owns, sync_lanes

_PIVOT_FLOOR = 0.5  # ltl_update: least pivot squared of a factor of an H >= I that rounding leaves intact

__all__ = [
    "inertia_mul",
    "cross_motion",
    "cross_force",
    "inertia_about",
    "point_jacobian",
    "ltl_factor",
    "ltl_factor_pair",
    "ltl_solve_t",
    "ltl_solve",
    "ltl_update",
    "quat_exp",
]


# The arithmetic of the tree factorization and its solves on one element: a float32 or float64, or a wide64 (one
# float64 per articulation of a wide pass, :mod:`.smooth.wide_factor`), lane by lane. Each lane of a wide64
# sees the scalar operations, so a wide pass is bitwise the same as the scalar one.


@wp.func
def el_mul(a: wp.float32, b: wp.float32):
    """a b."""
    return a * b


@wp.func  # Warp overload: chosen by argument types
def el_mul(a: wp.float64, b: wp.float64):  # noqa: F811
    """a b."""
    return a * b


@wp.func  # Warp overload: chosen by argument types
def el_mul(a: wide64, b: wide64):  # noqa: F811
    """a b, lane by lane."""
    return wp.cw_mul(a, b)


@wp.func
def el_div(a: wp.float32, b: wp.float32):
    """a / b."""
    return a / b


@wp.func  # Warp overload: chosen by argument types
def el_div(a: wp.float64, b: wp.float64):  # noqa: F811
    """a / b."""
    return a / b


@wp.func  # Warp overload: chosen by argument types
def el_div(a: wide64, b: wide64):  # noqa: F811
    """a / b, lane by lane."""
    return wp.cw_div(a, b)


@wp.func
def el_root(p: wp.float32):
    """The square root of a pivot p, p clamped at 1e-12 (a degenerate tree gives no NaN)."""
    return wp.sqrt(wp.max(p, wp.float32(1.0e-12)))


@wp.func  # Warp overload: chosen by argument types
def el_root(p: wp.float64):  # noqa: F811
    """The square root of a pivot p, p clamped at 1e-12 (a degenerate tree gives no NaN)."""
    return wp.sqrt(wp.max(p, wp.float64(1.0e-12)))


@wp.func  # Warp overload: chosen by argument types
def el_root(p: wide64):  # noqa: F811
    """:func:`el_root` lane by lane."""
    r = wide64()
    for c in range(WIDE):
        r[c] = wp.sqrt(wp.max(p[c], wp.float64(1.0e-12)))
    return r


@wp.func
def el_nonzero(x: wp.float32):
    """x != 0."""
    return x != wp.float32(0.0)


@wp.func  # Warp overload: chosen by argument types
def el_nonzero(x: wp.float64):  # noqa: F811
    """x != 0."""
    return x != wp.float64(0.0)


@wp.func  # Warp overload: chosen by argument types
def el_nonzero(x: wide64):  # noqa: F811
    """Some lane of x != 0. A zero lane then takes the update the scalar path skips: each entry less l 0,
    which leaves it as it was but for the sign of a zero entry."""
    on = bool(False)
    for c in range(WIDE):
        if x[c] != wp.float64(0.0):
            on = True
    return on


@wp.func
def inertia_mul(m: float, h: wp.vec3, inertia: wp.mat33, v: wp.spatial_vector):
    """Momentum of a rigid body (m, h, I about r) moving with twist v about r: (m v + w x h, I w + h x v)."""
    lin = wp.spatial_top(v)
    ang = wp.spatial_bottom(v)
    return wp.spatial_vector(m * lin + wp.cross(ang, h), inertia * ang + wp.cross(h, lin))


@wp.func  # Warp overload: chosen by argument types
def inertia_mul(m: wp.float64, h: wp.vec3d, inertia: wp.mat33d, v: wp.spatial_vectord):  # noqa: F811
    """:func:`inertia_mul` in float64 (the composite inertias of the mass matrix)."""
    lin = wp.spatial_top(v)
    ang = wp.spatial_bottom(v)
    top = m * lin + wp.cross(ang, h)
    bottom = inertia * ang + wp.cross(h, lin)
    return wp.spatial_vectord(top[0], top[1], top[2], bottom[0], bottom[1], bottom[2])


@wp.func
def cross_motion(v: wp.spatial_vector, s: wp.spatial_vector):
    """Motion cross product v x s, linear first (Featherstone RBDA eq. 2.31, reordered)."""
    vl = wp.spatial_top(v)
    vw = wp.spatial_bottom(v)
    sl = wp.spatial_top(s)
    sw = wp.spatial_bottom(s)
    return wp.spatial_vector(wp.cross(vw, sl) + wp.cross(vl, sw), wp.cross(vw, sw))


@wp.func
def cross_force(v: wp.spatial_vector, f: wp.spatial_vector):
    """Force cross product v x* f, linear first (Featherstone RBDA eq. 2.32, reordered)."""
    vl = wp.spatial_top(v)
    vw = wp.spatial_bottom(v)
    fl = wp.spatial_top(f)
    fw = wp.spatial_bottom(f)
    return wp.spatial_vector(wp.cross(vw, fl), wp.cross(vw, fw) + wp.cross(vl, fl))


@wp.func
def inertia_about(m: float, d: wp.vec3, inertia_com_world: wp.mat33):
    """Rotational inertia about a point at offset -d from the COM (parallel axis theorem)."""
    return inertia_com_world + m * (wp.dot(d, d) * wp.identity(3, dtype=float) - wp.outer(d, d))


@wp.func
def point_jacobian(s: wp.spatial_vector, lever: wp.vec3, direction: wp.vec3):
    """Rate of change of a body point's velocity along ``direction`` per unit DOF rate, for a DOF of
    motion subspace s about r and the point at ``lever`` = p - r."""
    return wp.dot(direction, wp.spatial_top(s) + wp.cross(wp.spatial_bottom(s), lever))


@wp.func
def ltl_factor_pair(
    la: wp.array(dtype=Any),
    lb: wp.array(dtype=Any),
    both: int,
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    lane: int,
    lanes: int,
):
    """In-place tree-sparse factorization M = L^T L of an articulation's mass matrix (row-major n x n at
    ``off`` of ``la``, DOFs d0 .. d0 + n - 1 numbered parents first), Featherstone RBDA sec. 6.5 (LTL): L is
    lower triangular and L_ki is non-zero only where DOF i is an ancestor of DOF k, so there is no
    fill-in and only those entries (and the diagonal) are read or written. Non-positive pivots are
    clamped so a degenerate articulation cannot produce NaNs. Any symmetric positive definite matrix whose
    lower triangle is non-zero only at (descendant, ancestor) entries factors alike (a Newton Hessian of
    rows along root paths, :mod:`.solve.newton`); the DOF tree may be a forest (several articulations).
    ``both`` 1: also factor the matrix of the same pattern at ``off`` of ``lb`` (M and the implicit M_hat),
    in the same walk of the tree: each sees the operations it would alone, in the same order.

    By the ``lanes`` lanes of a block (every lane calls it; lanes = 1: a single thread): per DOF k, leaves
    first, every lane takes the pivot, then the scaling of row k and the update of each ancestor's row are
    strided over k's ancestors, with a barrier after each. Each entry sees the same operations in the same
    order for any number of lanes, so the factor is bitwise the same.

    In the element type of the arrays. The mass matrix is float64: a long chain's M is ill-conditioned (a
    horizontal chain of 90 hinged links: cond(M) ~ 1.5e8, 200 links: ~4e9), and its pivots near the root are
    small differences of large sums that float32 cannot resolve (the root pivot turned negative and was
    clamped, giving inf)."""
    kk = int(0)
    while kk < n:
        k = n - 1 - kk
        row_k = off + k * n
        pivot = item(la, row_k + k)
        d = el_root(pivot)
        inv_d = el_div(type(pivot)(1.0), d)
        d_b = d
        inv_b = inv_d
        if both != 0:
            d_b = el_root(item(lb, row_k + k))
            inv_b = el_div(type(pivot)(1.0), d_b)
        i = item(dof_parent, d0 + k)
        t = int(0)
        while i >= 0:
            if lane_owns(t, lane, lanes):
                item_set(la, row_k + i - d0, el_mul(item(la, row_k + i - d0), inv_d))
                if both != 0:
                    item_set(lb, row_k + i - d0, el_mul(item(lb, row_k + i - d0), inv_b))
            t += 1
            i = item(dof_parent, i)
        sync_lanes(lanes)  # row k is scaled, and every lane has read its pivot
        if lane == 0:
            item_set(la, row_k + k, d)
            if both != 0:
                item_set(lb, row_k + k, d_b)
        i = item(dof_parent, d0 + k)
        t = int(0)
        while i >= 0:
            if lane_owns(t, lane, lanes):
                li = item(la, row_k + i - d0)
                li_b = li
                if both != 0:
                    li_b = item(lb, row_k + i - d0)
                row_i = off + (i - d0) * n - d0
                src = row_k - d0
                j = i
                if both != 0:
                    while j >= 0:
                        item_set(la, row_i + j, item(la, row_i + j) - el_mul(li, item(la, src + j)))
                        item_set(lb, row_i + j, item(lb, row_i + j) - el_mul(li_b, item(lb, src + j)))
                        j = item(dof_parent, j)
                else:
                    while j >= 0:
                        item_set(la, row_i + j, item(la, row_i + j) - el_mul(li, item(la, src + j)))
                        j = item(dof_parent, j)
            t += 1
            i = item(dof_parent, i)
        sync_lanes(lanes)  # the next pivot may be an entry just updated
        kk += 1


@wp.func
def ltl_factor(
    lf: wp.array(dtype=Any), off: int, n: int, d0: int, dof_parent: wp.array(dtype=int), lane: int, lanes: int
):
    """:func:`ltl_factor_pair` of one matrix (at ``off`` of ``lf``)."""
    ltl_factor_pair(lf, lf, 0, off, n, d0, dof_parent, lane, lanes)


@wp.func
def ltl_update(
    lf: wp.array(dtype=float),
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    x: wp.array(dtype=float),
    x_off: int,
    deep: int,
    sign: float,
    lane: int,
    lanes: int,
):
    """The factor L of :func:`ltl_factor` (H = L^T L, at ``off`` of ``lf``, DOFs d0 .. d0 + n - 1) made that of
    H + sign x x^T (sign 1: a rank-one update, -1: a downdate), in place, for an x (at ``x_off`` of ``x``,
    overwritten) that is non-zero only on the root path of DOF ``deep`` (an index from 0 to n - 1). The
    classic rank-one Cholesky update run over the reversed DOF order (the order of the factorization): per
    DOF k of the path, leaves first, a rotation of row k of L against x, which changes only k's ancestors'
    entries of row k and of x, so the update stays on the tree's pattern (no fill-in) and costs the path's
    depth squared, where refactoring H costs every DOF's. By the ``lanes`` lanes of a block (every lane
    calls it): each rotation's ancestors strided over lanes, a barrier after each; bitwise the same for any
    number of lanes. Returns 1, or 0 where a downdated pivot squared fell below ``_PIVOT_FLOOR`` (for an H >=
    I every pivot is >= 1 in exact arithmetic, so only rounding gets there): L is then spoilt and the caller
    factors H afresh."""
    ok = int(1)
    k = deep
    while k >= 0 and ok != 0:
        xk = item(x, x_off + k)
        if xk != 0.0:
            row_k = off + k * n
            lkk = item(lf, row_k + k)
            r2 = lkk * lkk + sign * xk * xk
            if r2 < _PIVOT_FLOOR:
                ok = 0
            else:
                r = wp.sqrt(r2)
                cs = r / lkk
                sn = xk / lkk
                inv_cs = lkk / r
                i = item(dof_parent, d0 + k) - d0
                t = int(0)
                while i >= 0:
                    if lane_owns(t, lane, lanes):
                        lki = (item(lf, row_k + i) + sign * sn * item(x, x_off + i)) * inv_cs
                        item_set(lf, row_k + i, lki)
                        item_set(x, x_off + i, cs * item(x, x_off + i) - sn * lki)
                    t += 1
                    i = item(dof_parent, d0 + i) - d0
                sync_lanes(lanes)  # every lane has read L_kk and x before the next rotation reads x
                if lane == 0:
                    item_set(lf, row_k + k, r)
        k = item(dof_parent, d0 + k) - d0  # below 0 past the root
    sync_lanes(lanes)
    return ok


@wp.func
def ltl_solve_t(
    lf: wp.array(dtype=Any),
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    x: wp.array(dtype=Any),
    x_off: int,
):
    """Solve L^T z = b in place (b given in x[x_off : x_off + n]) for the factor of :func:`ltl_factor`.
    z keeps b's sparsity pattern closed under ancestors (a Jacobian row's path stays its path). Products in
    the factor's element type, each update stored in x's (a float32 Jacobian row against the float64 mass
    matrix factor: products in float64)."""
    if n == 0:
        return
    zero = type(item(lf, off))(0.0)  # 0 in the factor's element type
    kk = int(0)
    while kk < n:
        k = n - 1 - kk
        xk = item(x, x_off + k)
        zk = type(zero)(xk)
        if el_nonzero(zk):
            row_k = off + k * n
            zk = el_div(zk, item(lf, row_k + k))
            item_set(x, x_off + k, type(xk)(zk))
            i = item(dof_parent, d0 + k)
            while i >= 0:
                at = x_off + i - d0
                item_set(x, at, type(xk)(type(zero)(item(x, at)) - el_mul(item(lf, row_k + i - d0), zk)))
                i = item(dof_parent, i)
        kk += 1


@wp.func
def ltl_solve_t3(
    lf: wp.array(dtype=wp.float64),
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    x: wp.array(dtype=wp.float32),
    x_off: wp.vec3i,
    leaf: int,
):
    """:func:`ltl_solve_t` (float32 right-hand sides) on three rows at once, at ``x_off[0..2]``: one walk of
    the factor and the DOF tree serves the three, and each row sees the same operations in the same order as
    alone (a row skips a DOF where its own entry is zero), so the result is bitwise that of three calls.
    ``leaf`` >= 0 (an index from 0 to n - 1): the rows are zero off the path from the articulation's DOF
    ``leaf`` to its root (a body's Jacobian), so only that path is walked (leaves first, as the whole walk
    meets its non-zero DOFs); -1: every DOF."""
    o0 = x_off[0] - d0  # where DOF i of each row is: o + i
    o1 = x_off[1] - d0
    o2 = x_off[2] - d0
    k = n - 1
    if leaf >= 0:
        k = leaf
    while k >= 0:
        z0 = wp.float64(item(x, x_off[0] + k))
        z1 = wp.float64(item(x, x_off[1] + k))
        z2 = wp.float64(item(x, x_off[2] + k))
        on0 = z0 != wp.float64(0.0)
        on1 = z1 != wp.float64(0.0)
        on2 = z2 != wp.float64(0.0)
        if on0 or on1 or on2:
            row_k = off + k * n
            dk = item(lf, row_k + k)
            if on0:
                z0 = z0 / dk
                item_set(x, x_off[0] + k, wp.float32(z0))
            if on1:
                z1 = z1 / dk
                item_set(x, x_off[1] + k, wp.float32(z1))
            if on2:
                z2 = z2 / dk
                item_set(x, x_off[2] + k, wp.float32(z2))
            i = item(dof_parent, d0 + k)
            while i >= 0:
                lki = item(lf, row_k + i - d0)
                if on0:
                    item_set(x, o0 + i, wp.float32(wp.float64(item(x, o0 + i)) - lki * z0))
                if on1:
                    item_set(x, o1 + i, wp.float32(wp.float64(item(x, o1 + i)) - lki * z1))
                if on2:
                    item_set(x, o2 + i, wp.float32(wp.float64(item(x, o2 + i)) - lki * z2))
                i = item(dof_parent, i)
        if leaf >= 0:
            k = item(dof_parent, d0 + k) - d0  # below 0 past the root
        else:
            k -= 1


@wp.func
def ltl_solve(
    lf: wp.array(dtype=Any),
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    x: wp.array(dtype=Any),
    x_off: int,
):
    """Solve L x = z in place (z given in x[x_off : x_off + n]); after :func:`ltl_solve_t` this gives
    M^-1 b. Each entry's sum in the factor's element type, stored once in x's."""
    if n == 0:
        return
    zero = type(item(lf, off))(0.0)  # 0 in the factor's element type
    k = int(0)
    while k < n:
        row_k = off + k * n
        xk = item(x, x_off + k)
        s = type(zero)(xk)
        i = item(dof_parent, d0 + k)
        while i >= 0:
            s -= el_mul(item(lf, row_k + i - d0), type(zero)(item(x, x_off + i - d0)))
            i = item(dof_parent, i)
        item_set(x, x_off + k, type(xk)(el_div(s, item(lf, row_k + k))))
        k += 1


@wp.func
def dense_cholesky(a: wp.array(dtype=Any), off: int, n: int, lane: int, lanes: int):
    """Factor the symmetric positive definite n x n matrix whose lower triangle is stored row-major at
    ``off`` in ``a`` in place (A = C C^T; squared pivots clamped at 1e-20, so a degenerate block gives no
    NaN), in the element type of ``a`` (float32 or float64).

    By the ``lanes`` lanes of a block (every lane calls it; lanes = 1: a single thread or lane): column j's
    pivot by every lane alike, its entries below the pivot strided over lanes, a barrier per column. Bitwise
    the same for any number of lanes."""
    j = int(0)
    while j < n:
        rj = off + j * n
        p = item(a, rj + j)
        t = int(0)
        while t < j:
            p -= item(a, rj + t) * item(a, rj + t)
            t += 1
        d = wp.sqrt(wp.max(p, type(p)(1.0e-20)))
        # This lane's rows below the pivot, four at a time: four independent running sums, each entry's own
        # terms in the same order as one at a time (so bitwise the same), overlap their multiply-add
        # latencies, which bound one sum alone.
        i = j + 1 + lane
        step = n * lanes
        while i + 3 * lanes < n:
            r0 = off + i * n
            r1 = r0 + step
            r2 = r1 + step
            r3 = r2 + step
            v0 = item(a, r0 + j)
            v1 = item(a, r1 + j)
            v2 = item(a, r2 + j)
            v3 = item(a, r3 + j)
            t = int(0)
            while t < j:
                ajt = item(a, rj + t)
                v0 -= item(a, r0 + t) * ajt
                v1 -= item(a, r1 + t) * ajt
                v2 -= item(a, r2 + t) * ajt
                v3 -= item(a, r3 + t) * ajt
                t += 1
            item_set(a, r0 + j, v0 / d)
            item_set(a, r1 + j, v1 / d)
            item_set(a, r2 + j, v2 / d)
            item_set(a, r3 + j, v3 / d)
            i += 4 * lanes
        while i < n:
            ri = off + i * n
            v = item(a, ri + j)
            t = int(0)
            while t < j:
                v -= item(a, ri + t) * item(a, rj + t)
                t += 1
            item_set(a, ri + j, v / d)
            i += lanes
        sync_lanes(lanes)  # every lane has read the pivot's row before lane 0 overwrites its diagonal
        if lane == 0:
            item_set(a, rj + j, d)
        j += 1
    sync_lanes(lanes)


@wp.func
def dense_solve(
    a: wp.array(dtype=Any),
    off: int,
    n: int,
    b: wp.array(dtype=Any),
    b_off: int,
    x: wp.array(dtype=Any),
    x_off: int,
    lane: int,
    lanes: int,
):
    """Solve A x = b with A = C C^T factored by :func:`dense_cholesky` at ``off`` in ``a`` (``b`` and ``x``
    may be the same array and offset; the three of one element type): the two triangular solves on lane 0,
    then a barrier."""
    if lane == 0:
        i = int(0)
        while i < n:
            ri = off + i * n
            v = item(b, b_off + i)
            t = int(0)
            while t < i:
                v -= item(a, ri + t) * item(x, x_off + t)
                t += 1
            item_set(x, x_off + i, v / item(a, ri + i))
            i += 1
        ii = int(0)
        while ii < n:
            i = n - 1 - ii
            v = item(x, x_off + i)
            t = int(i + 1)
            while t < n:
                v -= item(a, off + t * n + i) * item(x, x_off + t)
                t += 1
            item_set(x, x_off + i, v / item(a, off + i * n + i))
            ii += 1
    sync_lanes(lanes)


@wp.func
def dense_cholesky_solve(
    a: wp.array(dtype=Any),
    off: int,
    n: int,
    b: wp.array(dtype=Any),
    b_off: int,
    x: wp.array(dtype=Any),
    x_off: int,
    lane: int,
    lanes: int,
):
    """:func:`dense_cholesky` of the n x n block at ``off`` in ``a`` in place, then :func:`dense_solve` of
    A x = b."""
    dense_cholesky(a, off, n, lane, lanes)
    dense_solve(a, off, n, b, b_off, x, x_off, lane, lanes)


@wp.func
def quat_exp(v: wp.vec3):
    """Rotation by angle |v| about v / |v| (the exponential map) as a quaternion (x, y, z, w)."""
    angle = wp.length(v)
    if angle < 1.0e-12:
        return wp.quat_identity()
    return wp.quat_from_axis_angle(v / angle, angle)
