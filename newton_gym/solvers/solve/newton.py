"""Primal Newton solve of one world's constraint rows (the world kernel's step 5 when the solver is
"newton"), MuJoCo's default method.

With M = L^T L and u = L (qacc - qacc_smooth), MuJoCo's primal problem (MuJoCo computation: "Constraint
solver", primal formulation) reads

    min_u  1/2 |u|^2 + sum_c s_c(jar_c),   jar_c = Y_c . u + b_c,   Y_c = L^-T J_c^T,

with b_c = a0_c - aref_c the row's bias (see :mod:`..constraint.assemble`) and, for a row with regularizer R_c and
force bounds [lo_c, hi_c] (contacts and limits [0, inf), joint friction [-F, F], equalities free;
pyramidal contacts are four edge rows), s_c(x) = max over f in [lo_c, hi_c] of (-f x - R_c f^2 / 2):
quadratic x^2 / (2 R_c) while f = -x / R_c lies inside the bounds, linear beyond. An elliptic contact's
three rows (normal, two tangents; friction mu) share one cost of their jar = (x_n, x_1, x_2) with
MuJoCo's three zones, N = mu x_n, T = mu |(x_1, x_2)|: zero where N >= mu T (separating), the rows'
quadratics where mu N + T <= 0, else Dm (N - mu T)^2 / 2 with Dm = D_n / (mu^2 (1 + mu^2)) (:func:`.row_costs.cone`).
The gradient is u - sum_c f_c Y_c and the Hessian H = I + sum Y^T H_local Y over the rows' local
Hessians (D_c = 1 / R_c on a quadratic row, the 3 x 3 cone Hessian on a contact in the middle zone).
Each iteration solves H p = -g by a Cholesky of the world's DOF block: tree-sparse where every row lies on
one root path of the DOF tree; where some rows cross two branches (a hand against a thigh), tree-sparse
without their terms, which Woodbury's identity then adds; else dense (:mod:`.pattern`). On the tree pattern
(without tiles) only the solve's first H is factored: later iterations update that factor by a rank-one
update or downdate per row whose D changed (MuJoCo's HessianIncremental, :func:`_update_factor`), and form
H afresh only where an update breaks down. Then it finds the exact minimum
of the convex piecewise quadratic cost along p by a bracketed 1-D Newton search. The
forces f_c at the optimum are the dual solution (u = sum_c f_c Y_c), stored per row. As MuJoCo's, the solve
starts from the cheaper of the previous solve's qacc (``qacc_warm``: u = L (qacc_warm - qacc_smooth), on the
articulations the rows act on) and qacc_smooth (u = 0), and stops on MuJoCo's scaled tests (scale = 1 / (mean
diag(M) DOFs), tolerance opt.tolerance): at the start, when the duality gap 0.5 |g_u|^2 and the gradient
|g| in qacc (|L^T g_u|) are both small, or the gradient and the Newton decrement 0.5 g^T H^-1 g; after a
step, when its gain, the gradient or the decrement is (the decrement, at most the duality gap as H >= I,
is not formed where the gap already is); or when a step gains nothing float32 resolves
(1e-6 of the cost). The gain is summed term by term in closed form (:func:`.row_costs.row_gain`), not taken as the
difference of two rounded costs.

Per world the active rows' Y are gathered into a dense (k, n) block over the world's n DOFs (``ydense``),
with the ascending list of its non-zero columns (``ynz``; a row's Y is non-zero only on the DOF paths of
its bodies), so row products and the Hessian's rank-one updates touch only those (the gather and each row's
products and terms: :mod:`.row_terms`). The world's block
of lanes (:mod:`..lanes`) shares the work: per-row passes are strided over rows, the gradient and the
Hessian over DOFs (each lane owns rows of H and entries of the gradient, so no two lanes add into one
entry), and every sum a decision depends on (costs, slopes, the gradient norm) is taken by every lane in
the same order, so all lanes take the same branches and one lane gives bitwise what any number gives.
The Newton direction H p = -g comes from the lanes' tree or dense Cholesky (each column's entries strided
over lanes; the triangular solves on lane 0) or, where every world has one DOF count (:func:`make_newton_solve`),
from Warp's block-cooperative tile Cholesky. The final forces are written by lane 0.
"""

from __future__ import annotations

import functools

import warp as wp

from ..constraint.tables import (
    CONE,
    Y_CROSS,
    RowData,
    RowModel,
    WorldBlock,
    WorldInputs,
)
from ..items import item, item_set
from ..lanes import sync_lanes
from ..spatial import dense_cholesky, dense_solve, ltl_factor, ltl_solve, ltl_solve_t, ltl_update
from .pattern import cross_direction, tree_pattern
from .row_costs import cone_at, row_at, row_gain, triple
from .row_terms import add_terms, is_quad, row_dots

__all__ = ["make_newton_solve"]

wp.set_module_options({"enable_backward": False})


@wp.func(inline=True)
def _jar_at_zero(b: WorldBlock, rd: RowData):
    """jar of every row at u = 0: its bias (lanes over rows)."""
    c = int(b.lane)
    while c < b.k:
        item_set(rd.jar, b.r0 + c, item(rd.bias, b.r0 + c))
        c += b.lanes


@wp.func(inline=True)
def _cost(b: WorldBlock, rd: RowData, u: wp.array(dtype=float)):
    """Cost at u; also refreshes jar of every row (lanes over rows, then a barrier)."""
    row_dots(b, rd, u, 1, rd.jar)
    sync_lanes(b.lanes)
    return _cost_at_jar(b, rd, u)


@wp.func(inline=True)
def _cost_at_jar(b: WorldBlock, rd: RowData, u: wp.array(dtype=float)):
    """Cost at u with jar already current (every lane sums it, in the same order)."""
    total = float(0.0)
    a = int(0)
    while a < b.wn:
        total += 0.5 * item(u, b.wd0 + a) * item(u, b.wd0 + a)
        a += 1
    c = int(0)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            cost, _f, _h = cone_at(c, b, rd, triple(rd.jar, b.r0 + c))
            total += cost
            c += 3
        else:
            total += row_at(c, b, rd, item(rd.jar, b.r0 + c))[0]
            c += 1
    return total


@wp.func(inline=True)
def _is_tangent(c: int, r0: int, rd: RowData):
    """Whether compact row c is a tangent row of an elliptic contact (its normal is row c - 1 or c - 2)."""
    if c >= 1 and (item(rd.cone, r0 + c - 1) & CONE) != 0:
        return True
    return c >= 2 and (item(rd.cone, r0 + c - 2) & CONE) != 0


@wp.func(inline=True)
def _zones(b: WorldBlock, rd: RowData, u: wp.array(dtype=float)):
    """Each row's force and local Hessian D at the current jar (``zone``; lanes over rows) and the gradient's
    start u (lanes over DOFs), then a barrier."""
    c = int(b.lane)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            _cost_c, f, _h = cone_at(c, b, rd, triple(rd.jar, b.r0 + c))
            for e in range(3):
                item_set(rd.zone, b.r0 + c + e, wp.vec2(f[e], 0.0))
        elif not _is_tangent(c, b.r0, rd):
            zone = row_at(c, b, rd, item(rd.jar, b.r0 + c))
            item_set(rd.zone, b.r0 + c, wp.vec2(zone[1], zone[2]))
        c += b.lanes
    a = int(b.lane)
    while a < b.wn:
        item_set(rd.grad, b.wd0 + a, u[b.wd0 + a])
        a += b.lanes
    sync_lanes(b.lanes)


@wp.func(inline=True)
def _gradient(b: WorldBlock, rd: RowData, u: wp.array(dtype=float)):
    """-g at u, g = u - sum f_c Y_c, into ``grad`` from the current jar; returns |g|^2 (every lane alike). First
    each row's force and local Hessian D (:func:`_zones`), then every lane walks the rows in order and adds
    their terms into the gradient entries of its own DOFs only (a % lanes == lane), so no two lanes add
    into one entry and each entry sums in row order (as one lane does)."""
    _zones(b, rd, u)
    add_terms(0, b, rd)
    a = int(b.lane)
    while a < b.wn:
        item_set(rd.grad, b.wd0 + a, -item(rd.grad, b.wd0 + a))
        a += b.lanes
    sync_lanes(b.lanes)
    gnorm = float(0.0)
    a = int(0)
    while a < b.wn:
        gnorm += item(rd.grad, b.wd0 + a) * item(rd.grad, b.wd0 + a)
        a += 1
    return gnorm


@wp.func(inline=True)
def _hessian(b: WorldBlock, rd: RowData):
    """Lower triangle of the Hessian H = I + sum Y^T D Y at ``hess`` from the rows' local Hessians of the
    last :func:`_gradient`: every lane starts its own rows of H at I and walks the rows in order, adding
    their terms into its rows only (a % lanes == lane), then a barrier. Returns 1 when it formed H, 0 when
    every row's D is the one of the last H formed (``inv``; no elliptic contact, whose local Hessian moves
    with jar): H would be the same, bit for bit, and ``hess`` still holds its factor (every lane alike)."""
    same = int(1)
    c = int(0)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0 or item(rd.zone, b.r0 + c)[1] != item(rd.inv, b.r0 + c):
            same = 0
        c += 1
    if same != 0:
        return 0
    sync_lanes(b.lanes)  # every lane has compared before the D are kept
    c = int(b.lane)
    while c < b.k:
        item_set(rd.inv, b.r0 + c, item(rd.zone, b.r0 + c)[1])
        c += b.lanes
    a = int(b.lane)
    while a < b.wn:
        ha = b.hoff + a * b.wn
        bb = int(0)
        while bb < a:
            item_set(rd.hess, ha + bb, 0.0)
            bb += 1
        item_set(rd.hess, ha + a, 1.0)
        a += b.lanes
    add_terms(1, b, rd)
    sync_lanes(b.lanes)
    return 1


@wp.func(inline=True)
def _slope(alpha: float, up: float, pp: float, b: WorldBlock, rd: RowData):
    """(phi'(alpha), phi''(alpha), the sum of the magnitudes of phi'(alpha)'s terms) of the cost along the
    search direction; the last bounds the slope's float32 rounding."""
    d1 = up + alpha * pp
    d2 = pp
    terms = wp.abs(up) + wp.abs(alpha * pp)
    c = int(0)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            jv = triple(rd.jv, b.r0 + c)
            if wp.length_sq(jv) > 0.0:
                _cost_c, f, h = cone_at(c, b, rd, triple(rd.jar, b.r0 + c) + alpha * jv)
                d1 -= wp.dot(f, jv)
                d2 += wp.dot(jv, h * jv)
                terms += wp.abs(wp.dot(f, jv))
            c += 3
            continue
        jv1 = item(rd.jv, b.r0 + c)
        if jv1 != 0.0:
            zone = row_at(c, b, rd, item(rd.jar, b.r0 + c) + alpha * jv1)
            d1 -= zone[1] * jv1
            d2 += zone[2] * jv1 * jv1
            terms += wp.abs(zone[1] * jv1)
        c += 1
    return wp.vec3(d1, d2, terms)


@wp.func(inline=True)
def _factor_kept(b: WorldBlock, rd: RowData):
    """Whether ``hess`` holds the factor of an H formed in this solve (``inv`` >= 0: the D it was formed with)
    and no active row is an elliptic contact (its local Hessian moves with jar and is not one row's D), so
    that :func:`_update_factor` can bring it up to date; every lane alike."""
    kept = bool(True)
    c = int(0)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0 or item(rd.inv, b.r0 + c) < 0.0:
            kept = False
        c += 1
    return kept


@wp.func(inline=True)
def _rank_one(c_nz: int, c_y: int, delta: float, b: WorldBlock, rm: RowModel, rd: RowData):
    """The factor in ``hess`` made that of H + delta Y_y^T Y_y (:func:`..spatial.ltl_update`), Y_y the Y of
    compact row ``c_y``, whose non-zero columns are those of row ``c_nz`` (a pyramidal contact's edges share
    their first edge's). x = sqrt(|delta|) Y_y goes into ``search`` (free until the Newton direction).
    Returns 1, or 0 where the update broke down."""
    row_nz = b.yoff + c_nz * b.wn
    row_y = b.yoff + c_y * b.wn
    count = item(rd.ynz_count, b.r0 + c_nz)
    if count == 0:
        return 1
    scale = wp.sqrt(wp.abs(delta))
    sign = float(1.0)
    if delta < 0.0:
        sign = -1.0
    deep = int(item(rd.ynz, row_nz + count - 1))  # ynz ascends: the deepest column of the row's path
    if b.lane == 0:  # x on the path (the update reads nothing else): the row's columns, 0 between them
        a = deep
        t = count - 1
        while a >= 0:
            x = float(0.0)
            if t >= 0 and int(item(rd.ynz, row_nz + t)) == a:
                x = scale * item(rd.ydense, row_y + a)
                t -= 1
            item_set(rd.search, b.wd0 + a, x)
            a = item(rm.tree.dof_parent, b.wd0 + a) - b.wd0
    sync_lanes(b.lanes)
    return ltl_update(rd.hess, b.hoff, b.wn, b.wd0, rm.tree.dof_parent, rd.search, b.wd0, deep, sign, b.lane, b.lanes)


@wp.func(inline=True)
def _update_factor(b: WorldBlock, rm: RowModel, rd: RowData):
    """MuJoCo's incremental Hessian (HessianIncremental): the factor of the last H (``hess``, tree pattern) made
    that of the current one by a rank-one update or downdate per row whose D changed since (D_new - D_old
    times its Y Y^T), in row order, instead of forming and factoring H afresh (rows across branches excepted:
    their terms are not in the factor); then ``inv`` holds the new D.
    Returns 1, or 0 where an update broke down (the factor is spoilt, ``inv`` unchanged: the caller forms H)."""
    ok = int(1)
    c = int(0)
    while c < b.k and ok != 0:
        group = int(1)
        if is_quad(c, b, rd):
            group = 4
        e = int(0)
        while e < group:
            r = b.r0 + c + e
            delta = item(rd.zone, r)[1] - item(rd.inv, r)
            if ok != 0 and delta != 0.0 and (item(rd.cone, r) & Y_CROSS) == 0:
                ok = _rank_one(c, c + e, delta, b, rm, rd)
            e += 1
        c += group
    if ok != 0:
        cc = int(b.lane)
        while cc < b.k:
            item_set(rd.inv, b.r0 + cc, item(rd.zone, b.r0 + cc)[1])
            cc += b.lanes
    sync_lanes(b.lanes)
    return ok


@wp.func(inline=True)
def _line_search(b: WorldBlock, rm: RowModel, rd: RowData, u: wp.array(dtype=float)):
    """Exact minimum along p = ``search`` of the convex cost: 1-D Newton steps kept inside a bracket
    [lo, hi] of the slope's sign change, until the slope is 1 % of its start, or, after the first step, lies
    within its own float32 rounding (8 eps of the magnitudes of its terms: a near-converged solve's slope
    starts there, and bisecting on its rounding ran all ``ls_iterations`` in 30 % of Go1's searches). jv per
    row by lanes; the slopes by every lane alike, so every lane returns the same step."""
    up = float(0.0)
    pp = float(0.0)
    a = int(0)
    while a < b.wn:
        up += item(u, b.wd0 + a) * item(rd.search, b.wd0 + a)
        pp += item(rd.search, b.wd0 + a) * item(rd.search, b.wd0 + a)
        a += 1
    row_dots(b, rd, rd.search, 0, rd.jv)
    sync_lanes(b.lanes)
    s = _slope(0.0, up, pp, b, rd)
    if s[0] >= 0.0:
        return 0.0
    target = 0.01 * wp.abs(s[0])
    lo = float(0.0)
    hi = float(1.0e30)
    alpha = float(0.0)
    for _it in range(rm.ls_iterations):
        nxt = alpha - s[0] / wp.max(s[1], 1.0e-30)
        if nxt <= lo or nxt >= hi:
            nxt = 0.5 * (lo + hi)
        alpha = nxt
        s = _slope(alpha, up, pp, b, rd)
        if s[0] < 0.0:
            lo = alpha
        else:
            hi = alpha
        if wp.abs(s[0]) <= wp.max(target, 1.0e-6 * s[2]):
            break
    return alpha


@wp.func(inline=True)
def _has_rows(art: int, b: WorldBlock, rd: RowData):
    """Whether any active row of the world acts on articulation ``art``."""
    c = int(0)
    while c < b.k:
        a = rd.art[b.r0 + c]
        if a[0] == art or a[1] == art:
            return True
        c += 1
    return False


@wp.func(inline=True)
def _start(b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs, u: wp.array(dtype=float)):
    """The first iterate: MuJoCo's warm start, the previous solve's qacc (``qacc_warm``), as u = L (qacc_warm
    - qacc_smooth), or u = 0 (qacc_smooth) where that costs less (u is zero on entry), with jar at it;
    returns its cost. The friction of each elliptic contact is held at least 1e-5 first: the cone's cost
    divides by it."""
    c = int(b.lane)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            item_set(rd.cone_mu, b.r0 + c, wp.max(item(rd.cone_mu, b.r0 + c), 1.0e-5))
        item_set(rd.inv, b.r0 + c, -1.0)  # no H formed yet (a D is never negative)
        c += b.lanes
    _jar_at_zero(b, rd)
    sync_lanes(b.lanes)
    cold = _cost_at_jar(b, rd, u)
    sync_lanes(b.lanes)  # every lane has summed the cost (it reads u) before u moves
    # u_d = sum over d and its ancestors i of L_di x_i (ltl_factor), for the articulations the active rows
    # act on; the others keep u = 0, their exact solution (MuJoCo leaves them out of its constraint islands):
    # a warm start there would only be iterated back to 0, moving the step length of the rest
    for ia in range(rm.world_art_start[b.w] + b.lane, rm.world_art_start[b.w + 1], b.lanes):
        art = rm.world_arts[ia]
        if not _has_rows(art, b, rd):
            continue
        d0 = rm.tree.art_dof_start[art]
        n = rm.tree.art_dof_start[art + 1] - d0
        d = int(d0)
        d_end = d0 + n
        while d < d_end:
            row = rm.tree.art_mat_start[art] + (d - d0) * n
            s = item(inp.chol, row + d - d0) * wp.float64(item(rd.qacc_warm, d) - item(inp.qacc_smooth, d))
            i = item(rm.tree.dof_parent, d)
            while i >= 0:
                s += item(inp.chol, row + i - d0) * wp.float64(item(rd.qacc_warm, i) - item(inp.qacc_smooth, i))
                i = item(rm.tree.dof_parent, i)
            u[d] = wp.float32(s)
            d += 1
    sync_lanes(b.lanes)
    cost = _cost(b, rd, u)
    if cost > cold:
        sync_lanes(b.lanes)  # every lane has summed the cost before u and jar move
        a = int(b.lane)
        while a < b.wn:
            u[b.wd0 + a] = 0.0
            a += b.lanes
        _jar_at_zero(b, rd)
        cost = cold
        sync_lanes(b.lanes)
    return cost


@wp.func(inline=True)
def _decrement(b: WorldBlock, rd: RowData):
    """The Newton decrement 0.5 g^T H^-1 g, the cost the next Newton step predicts to gain (``grad`` holds -g,
    ``search`` H^-1 (-g)); every lane alike."""
    dec = float(0.0)
    a = int(0)
    while a < b.wn:
        dec += item(rd.grad, b.wd0 + a) * item(rd.search, b.wd0 + a)
        a += 1
    return wp.max(0.5 * dec, 0.0)  # >= 0, as MuJoCo clamps it: tolerance 0 never stops on rounding


@wp.func(inline=True)
def _advance(alpha: float, b: WorldBlock, rd: RowData, u: wp.array(dtype=float)):
    """u += alpha p and jar += alpha jv (jar is linear in u; lanes over DOFs and rows); returns the cost's
    decrease, summed term by term (0.5 |u|^2 and each row's) so that float32 resolves it: the difference of
    the two whole costs loses a small gain in their rounding. Every lane alike."""
    up = float(0.0)
    pp = float(0.0)
    a = int(0)
    while a < b.wn:
        up += item(u, b.wd0 + a) * item(rd.search, b.wd0 + a)
        pp += item(rd.search, b.wd0 + a) * item(rd.search, b.wd0 + a)
        a += 1
    gain = -(alpha * up + 0.5 * alpha * alpha * pp)
    c = int(0)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            jv = triple(rd.jv, b.r0 + c)
            if wp.length_sq(jv) > 0.0:
                jar = triple(rd.jar, b.r0 + c)
                before, _f0, _h0 = cone_at(c, b, rd, jar)
                after, _f1, _h1 = cone_at(c, b, rd, jar + alpha * jv)
                gain += before - after
            c += 3
            continue
        jv1 = item(rd.jv, b.r0 + c)
        if jv1 != 0.0:
            r = b.r0 + c
            gain += row_gain(item(rd.jar, r), alpha * jv1, item(rd.reg, r), item(rd.lo, r), item(rd.hi, r))
        c += 1
    sync_lanes(b.lanes)  # every lane has taken its last slope and gain (they read jar and u) before they move
    a = int(b.lane)
    while a < b.wn:
        u[b.wd0 + a] = u[b.wd0 + a] + alpha * item(rd.search, b.wd0 + a)
        a += b.lanes
    c = int(b.lane)
    while c < b.k:
        item_set(rd.jar, b.r0 + c, item(rd.jar, b.r0 + c) + alpha * item(rd.jv, b.r0 + c))
        c += b.lanes
    sync_lanes(b.lanes)
    return gain


@wp.func(inline=True)
def _qacc_gradient(b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs):
    """|g| of the cost in qacc, |L^T g_u| (MuJoCo's gradient test; ``grad`` holds -g_u), formed by lane 0 in
    ``search`` (free until the Newton direction), every lane alike."""
    if b.lane == 0:
        a = int(0)
        while a < b.wn:
            item_set(rd.search, b.wd0 + a, 0.0)
            a += 1
        a = int(0)
        while a < b.wn:
            d = b.wd0 + a
            art = rm.tree.dof_art[d]
            d0 = rm.tree.art_dof_start[art]
            row = rm.tree.art_mat_start[art] + (d - d0) * (rm.tree.art_dof_start[art + 1] - d0)
            g = wp.float64(item(rd.grad, d))
            item_set(rd.search, d, item(rd.search, d) + wp.float32(item(inp.chol, row + d - d0) * g))
            i = item(rm.tree.dof_parent, d)
            while i >= 0:
                item_set(rd.search, i, item(rd.search, i) + wp.float32(item(inp.chol, row + i - d0) * g))
                i = item(rm.tree.dof_parent, i)
            a += 1
    sync_lanes(b.lanes)
    norm = float(0.0)
    a = int(0)
    while a < b.wn:
        norm += item(rd.search, b.wd0 + a) * item(rd.search, b.wd0 + a)
        a += 1
    sync_lanes(b.lanes)  # every lane has read it before the direction overwrites ``search``
    return wp.sqrt(norm)


@wp.func(inline=True)
def _write_forces(b: WorldBlock, rd: RowData):
    """Each active row's force at the final jar into its row's ``force`` (lane 0)."""
    c = int(0)
    while c < b.k:
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            _cost_c, fc, _h = cone_at(c, b, rd, triple(rd.jar, b.r0 + c))
            for e in range(3):
                item_set(rd.force, item(rd.act_list, b.r0 + c + e), fc[e])
            c += 3
        else:
            item_set(rd.force, item(rd.act_list, b.r0 + c), row_at(c, b, rd, item(rd.jar, b.r0 + c))[1])
            c += 1


@functools.cache
def make_newton_solve(tile_dofs: int = 0):
    """The world kernel's Newton solve (:func:`newton_solve` below). ``tile_dofs`` = 0: each iteration's
    Newton direction comes from the lanes' own dense Cholesky (:func:`..spatial.dense_cholesky_solve`), for
    worlds of any DOF count. ``tile_dofs`` = n > 0, for models whose worlds all have n DOFs (world w's at
    w n, its Hessian rows at w n of ``rd.hess_tiles``): from Warp's block-cooperative ``tile_cholesky`` /
    ``tile_cholesky_solve`` on the (n, n) Hessian (cuSolverDx on CUDA). The two agree to float32 rounding,
    not bitwise."""

    @wp.func(inline=True)
    def newton_direction(tree: int, formed: int, b: WorldBlock, rm: RowModel, rd: RowData):
        """search = H^-1 (-g) from ``hess`` and ``grad`` (every lane; H >= I: pivots >= 1); ``tree`` 1: H lies
        on the DOF tree's pattern (:func:`.pattern.tree_pattern`), factored as the mass matrix is, without fill-in; 2:
        H less the terms of the rows across branches does, and :func:`.pattern.cross_direction` adds them.
        ``formed`` 0: ``hess`` holds the factor of this same H already (:func:`_hessian`), not H."""
        if wp.static(tile_dofs > 0):
            hess = wp.tile_load(rd.hess_tiles, shape=(tile_dofs, tile_dofs), offset=(b.w * tile_dofs, 0))
            grad = wp.tile_load(rd.grad, shape=tile_dofs, offset=b.wd0)
            search = rd.search  # (tile_store takes no struct field as its destination in Warp 1.19)
            wp.tile_store(search, wp.tile_cholesky_solve(wp.tile_cholesky(hess), grad), offset=b.wd0)
            sync_lanes(b.lanes)
        elif tree != 0:
            a = int(b.lane)
            while a < b.wn:
                item_set(rd.search, b.wd0 + a, item(rd.grad, b.wd0 + a))
                a += b.lanes
            if formed != 0:
                ltl_factor(rd.hess, b.hoff, b.wn, b.wd0, rm.tree.dof_parent, b.lane, b.lanes)  # ends on a barrier
            else:
                sync_lanes(b.lanes)  # search is whole before lane 0 solves in it
            if b.lane == 0:
                ltl_solve_t(rd.hess, b.hoff, b.wn, b.wd0, rm.tree.dof_parent, rd.search, b.wd0)
                ltl_solve(rd.hess, b.hoff, b.wn, b.wd0, rm.tree.dof_parent, rd.search, b.wd0)
            sync_lanes(b.lanes)
            if tree == 2:  # the rows across branches, left out of the factor
                cross_direction(b, rm, rd)
        else:
            if formed != 0:
                dense_cholesky(rd.hess, b.hoff, b.wn, b.lane, b.lanes)
            dense_solve(rd.hess, b.hoff, b.wn, rd.grad, b.wd0, rd.search, b.wd0, b.lane, b.lanes)

    @wp.func(inline=True)
    def hessian_step(tree: int, b: WorldBlock, rm: RowModel, rd: RowData):
        """:func:`_hessian`, or on the DOF tree's pattern (no tiles) and after the solve's first H, the last
        factor updated row by row (:func:`_update_factor`), as MuJoCo's Newton keeps its factor between
        iterations. Returns 1 where ``hess`` holds a new H to factor, 0 where it holds the current factor."""
        if wp.static(tile_dofs == 0):
            if tree != 0:
                if _factor_kept(b, rd):
                    if _update_factor(b, rm, rd) != 0:
                        return 0
        return _hessian(b, rd)

    @wp.func(inline=True)
    def newton_solve(b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs, u: wp.array(dtype=float)):
        """Primal Newton solve of the world's k active rows (compact r0 .. r0 + k - 1, their Y, bias, reg and
        warm-start forces filled), by the lanes of the world's block (every lane calls it). Leaves
        u = L (qacc - qacc_smooth) in ``u`` at the world's DOFs (zero on entry), the iterations in
        ``rd.niter`` and each row's force in ``rd.force``."""
        cost = _start(b, rm, rd, inp, u)
        tree = tree_pattern(b, rm, rd, wp.static(int(tile_dofs == 0)))
        scale = rm.world_scale[b.w]
        tol = inp.tolerance
        # MuJoCo's tests, on the scaled cost: at the start, the duality gap 0.5 g^T M^-1 g (0.5 |g_u|^2) and
        # the gradient |g|, or the gradient and the Newton decrement 0.5 g^T H^-1 g; after each step, its
        # gain, the gradient or the decrement.
        # The Hessian and the direction are formed only where a test needs them: a solve that stops on its
        # gain or gradient skips them, and so does one whose duality gap is below the tolerance after a step,
        # since the decrement is at most the gap (H >= I in u) and would stop it.
        done = int(0)
        gap = 0.5 * scale * _gradient(b, rd, u)
        grad = scale * _qacc_gradient(b, rm, rd, inp)
        finished = int(0)
        if gap < tol and grad < tol:
            finished = 1
        else:
            formed = hessian_step(tree, b, rm, rd)
            newton_direction(tree, formed, b, rm, rd)
            if grad < tol and scale * _decrement(b, rd) < tol:
                finished = 1
        while finished == 0 and done < inp.iterations:
            alpha = _line_search(b, rm, rd, u)
            if alpha == 0.0:
                break
            gain = _advance(alpha, b, rd, u)
            done += 1
            if gain <= 1.0e-6 * cost:  # no gain float32 can resolve (MuJoCo, in float64, needs no such test)
                break
            cost -= gain
            gap = 0.5 * scale * _gradient(b, rd, u)
            # The gain; else the duality gap, since the decrement 0.5 g^T H^-1 g <= 0.5 |g|^2 (H >= I) would
            # stop the solve here: neither the gradient in qacc nor H is formed.
            if scale * gain < tol or gap < tol:
                finished = 1
            elif scale * _qacc_gradient(b, rm, rd, inp) < tol:
                finished = 1
            else:
                formed = hessian_step(tree, b, rm, rd)
                newton_direction(tree, formed, b, rm, rd)
                if scale * _decrement(b, rd) < tol:
                    finished = 1
        if b.lane == 0:
            rd.niter[b.w] = done
            _write_forces(b, rd)

    return newton_solve
