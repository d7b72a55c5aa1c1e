"""Primal Newton solve of one world's constraint rows (the world kernel's step 5 when the solver is
"newton"), MuJoCo's default method.

With M = L^T L and u = L (qacc - qacc_smooth), MuJoCo's primal problem (MuJoCo computation: "Constraint
solver", primal formulation) reads

    min_u  1/2 |u|^2 + sum_c s_c(jar_c),   jar_c = Y_c . u + b_c,   Y_c = L^-T J_c^T,

with b_c = a0_c - aref_c the row's bias (see :mod:`.world_rows`) and, for a row with regularizer R_c and
force bounds [lo_c, hi_c] (contacts and limits [0, inf), joint friction [-F, F], equalities free;
pyramidal contacts are four edge rows), s_c(x) = max over f in [lo_c, hi_c] of (-f x - R_c f^2 / 2):
quadratic x^2 / (2 R_c) while f = -x / R_c lies inside the bounds, linear beyond. An elliptic contact's
three rows (normal, two tangents; friction mu) share one cost of their jar = (x_n, x_1, x_2) with
MuJoCo's three zones, N = mu x_n, T = mu |(x_1, x_2)|: zero where N >= mu T (separating), the rows'
quadratics where mu N + T <= 0, else Dm (N - mu T)^2 / 2 with Dm = D_n / (mu^2 (1 + mu^2)) (:func:`_cone`).
The gradient is u - sum_c f_c Y_c and the Hessian H = I + sum Y^T H_local Y over the rows' local
Hessians (D_c = 1 / R_c on a quadratic row, the 3 x 3 cone Hessian on a contact in the middle zone).
Each iteration solves H p = -g by a dense Cholesky of the world's DOF block, then finds
the exact minimum of the convex piecewise quadratic cost along p by a bracketed 1-D Newton search. The
forces f_c at the optimum are the dual solution (u = sum_c f_c Y_c); they are stored per row and warm-start
the next solve, which starts from the cheaper of u = sum_c f_c Y_c and u = 0.

Per world the active rows' Y are gathered into a dense (k, n) block over the world's n DOFs (``ydense``),
with the ascending list of its non-zero columns (``ynz``; a row's Y is non-zero only on the DOF paths of
its bodies), so row products and the Hessian's rank-one updates touch only those. The world's block
of lanes (:mod:`.lanes`) shares the work: per-row passes are strided over rows, the gradient and the
Hessian over DOFs (each lane owns rows of H and entries of the gradient, so no two lanes add into one
entry), and every sum a decision depends on (costs, slopes, the gradient norm) is taken by every lane in
the same order, so all lanes take the same branches and one lane gives bitwise what any number gives.
The Newton direction H p = -g comes from the lanes' dense Cholesky (each column's entries strided over
lanes; the triangular solves on lane 0) or, where every world has one DOF count (:func:`make_newton_solve`),
from Warp's block-cooperative tile Cholesky. The final forces are written by lane 0.
"""

from __future__ import annotations

import functools

import warp as wp

from ..constraint.tables import RowData, RowModel, TreeTables
from ..lanes import block_sync
from ..spatial import dense_cholesky_solve

__all__ = ["make_newton_solve", "gather_row"]

wp.set_module_options({"enable_backward": False})


@wp.func(inline=True)
def _row_zone(x: float, r: float, lo: float, hi: float):
    """(s(x), f, s''(x)) of a row with regularizer r and force bounds [lo, hi] at jar = x."""
    f = -x / r
    if f < lo:
        return wp.vec3(-lo * x - 0.5 * r * lo * lo, lo, 0.0)
    if f > hi:
        return wp.vec3(-hi * x - 0.5 * r * hi * hi, hi, 0.0)
    return wp.vec3(-0.5 * x * f, f, 1.0 / r)


@wp.func(inline=True)
def _cone(x: wp.vec3, mu: float, d: wp.vec3):
    """(cost, force, local Hessian d^2 s / d jar^2) of an elliptic contact (condim 3, friction mu on both
    tangents) at jar = x, with its rows' D = 1 / R in ``d`` (MuJoCo computation: "elliptic cones")."""
    n = mu * x[0]
    u = wp.vec2(mu * x[1], mu * x[2])
    t = wp.length(u)
    if n >= mu * t or (t <= 0.0 and n >= 0.0):
        return 0.0, wp.vec3(0.0), wp.mat33(0.0)
    if mu * n + t <= 0.0 or (t <= 0.0 and n < 0.0):
        cost = 0.5 * (d[0] * x[0] * x[0] + d[1] * x[1] * x[1] + d[2] * x[2] * x[2])
        return cost, wp.vec3(-d[0] * x[0], -d[1] * x[1], -d[2] * x[2]), wp.diag(d)
    dm = d[0] / (mu * mu * (1.0 + mu * mu))
    nmt = n - mu * t
    f0 = -dm * nmt * mu
    force = wp.vec3(f0, -f0 / t * u[0] * mu, -f0 / t * u[1] * mu)
    # d^2 / dU^2 of (N - mu T)^2 / 2, then scaled by dU / djar = mu on every axis and by Dm.
    a = mu * n / (t * t * t)
    b = mu * mu - mu * n / t
    h = wp.mat33(
        1.0,
        -mu / t * u[0],
        -mu / t * u[1],
        -mu / t * u[0],
        a * u[0] * u[0] + b,
        a * u[0] * u[1],
        -mu / t * u[1],
        a * u[0] * u[1],
        a * u[1] * u[1] + b,
    )
    return 0.5 * dm * nmt * nmt, force, h * (dm * mu * mu)


@wp.func(inline=True)
def gather_row(w: int, c: int, r0: int, blk: int, rm: RowModel, rd: RowData, tm: TreeTables):
    """ydense[c, :] = Y of world w's compact row c (held in Jacobian block ``blk`` of ``minv_jac``) over the
    world's DOFs (zero off the row's articulations), and its non-zero columns in ``ynz``."""
    wd0 = rm.world_dof_start[w]
    wn = rm.world_dof_start[w + 1] - wd0
    row = rm.ydense_start[w] + c * wn
    for a in range(wn):
        rd.ydense[row + a] = 0.0
    arts = rd.art[r0 + c]
    for side in range(2):
        ai = arts[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            src = blk * 2 * rm.width + side * rm.width
            dst = row + d0 - wd0
            for kk in range(tm.art_dof_start[ai + 1] - d0):
                rd.ydense[dst + kk] = rd.ydense[dst + kk] + rd.minv_jac[src + kk]
    count = int(0)
    for a in range(wn):
        if rd.ydense[row + a] != 0.0:
            rd.ynz[row + count] = wp.int16(a)
            count += 1
    rd.ynz_count[r0 + c] = count


@wp.func(inline=True)
def _dot_row(row: int, count: int, rd: RowData, x: wp.array(dtype=float), xoff: int):
    """Y_c . x over the row's non-zero columns."""
    s = float(0.0)
    for t in range(count):
        a = int(rd.ynz[row + t])
        s += rd.ydense[row + a] * x[xoff + a]
    return s


@wp.func(inline=True)
def _triple(v: wp.array(dtype=float), r: int):
    return wp.vec3(v[r], v[r + 1], v[r + 2])


@wp.func(inline=True)
def _dvec(rd: RowData, r: int):
    """D = 1 / R of compact rows r .. r + 2."""
    return wp.vec3(1.0 / rd.reg[r], 1.0 / rd.reg[r + 1], 1.0 / rd.reg[r + 2])


@wp.func(inline=True)
def _cost(
    k: int,
    r0: int,
    yoff: int,
    wd0: int,
    wn: int,
    mu: wp.array(dtype=float),
    rm: RowModel,
    rd: RowData,
    u: wp.array(dtype=float),
    lane: int,
    lanes: int,
):
    """Cost at u; also refreshes jar of every row (lanes over rows, then a barrier)."""
    for c in range(lane, k, lanes):
        rd.jar[r0 + c] = rd.bias[r0 + c] + _dot_row(yoff + c * wn, rd.ynz_count[r0 + c], rd, u, wd0)
    block_sync()
    return _cost_at_jar(k, r0, wd0, wn, mu, rm, rd, u)


@wp.func(inline=True)
def _cost_at_jar(
    k: int, r0: int, wd0: int, wn: int, mu: wp.array(dtype=float), rm: RowModel, rd: RowData, u: wp.array(dtype=float)
):
    """Cost at u with jar already current (every lane sums it, in the same order)."""
    total = float(0.0)
    for a in range(wn):
        total += 0.5 * u[wd0 + a] * u[wd0 + a]
    c = int(0)
    while c < k:
        if rd.cone[r0 + c] != 0:
            cost, _f, _h = _cone(_triple(rd.jar, r0 + c), mu[r0 + c], _dvec(rd, r0 + c))
            total += cost
            c += 3
        else:
            total += _row_zone(rd.jar[r0 + c], rd.reg[r0 + c], rd.lo[r0 + c], rd.hi[r0 + c])[0]
            c += 1
    return total


@wp.func(inline=True)
def _is_tangent(c: int, r0: int, rd: RowData):
    """Whether compact row c is a tangent row of an elliptic contact (its normal is row c - 1 or c - 2)."""
    if c >= 1 and rd.cone[r0 + c - 1] != 0:
        return True
    return c >= 2 and rd.cone[r0 + c - 2] != 0


@wp.func(inline=True)
def _hessian_and_gradient(
    k: int,
    r0: int,
    yoff: int,
    hoff: int,
    wd0: int,
    wn: int,
    mu: wp.array(dtype=float),
    rd: RowData,
    u: wp.array(dtype=float),
    lane: int,
    lanes: int,
):
    """Lower triangle of the Hessian at ``hess`` and the gradient u - sum f_c Y_c at ``grad``, from the
    current jar. First each row's force and local Hessian D (``zone``; lanes over rows), then every lane
    walks the rows in order and adds their terms into the gradient entries and Hessian rows of its own
    DOFs only, so no two lanes add into one entry and each entry sums in row order (as one lane does)."""
    for c in range(lane, k, lanes):
        if rd.cone[r0 + c] != 0:
            _cost_c, f, _h = _cone(_triple(rd.jar, r0 + c), mu[r0 + c], _dvec(rd, r0 + c))
            for e in range(3):
                rd.zone[r0 + c + e] = wp.vec2(f[e], 0.0)
        elif not _is_tangent(c, r0, rd):
            zone = _row_zone(rd.jar[r0 + c], rd.reg[r0 + c], rd.lo[r0 + c], rd.hi[r0 + c])
            rd.zone[r0 + c] = wp.vec2(zone[1], zone[2])
    for a in range(lane, wn, lanes):
        rd.grad[wd0 + a] = u[wd0 + a]
        ha = hoff + a * wn
        for b in range(a + 1):
            v = float(0.0)
            if a == b:
                v = 1.0
            rd.hess[ha + b] = v
    block_sync()
    # Rows in order, each over its non-zero columns (contiguous reads); a lane adds only into the gradient
    # entries and Hessian rows of its own DOFs (a % lanes == lane).
    c = int(0)
    while c < k:
        row = yoff + c * wn
        if rd.cone[r0 + c] != 0:
            for e in range(3):
                fe = rd.zone[r0 + c + e][0]
                if fe != 0.0:
                    re = row + e * wn
                    for t in range(rd.ynz_count[r0 + c + e]):
                        a = int(rd.ynz[re + t])
                        if a % lanes == lane:
                            rd.grad[wd0 + a] = rd.grad[wd0 + a] - fe * rd.ydense[re + a]
            _cost_c, _f, h = _cone(_triple(rd.jar, r0 + c), mu[r0 + c], _dvec(rd, r0 + c))
            if h[0, 0] > 0.0:
                # H += Y^T h Y over the contact's three rows.
                for a in range(lane, wn, lanes):
                    ya = wp.vec3(rd.ydense[row + a], rd.ydense[row + wn + a], rd.ydense[row + 2 * wn + a])
                    if wp.length_sq(ya) > 0.0:
                        hy = h * ya
                        ha = hoff + a * wn
                        for b in range(a + 1):
                            yb = wp.vec3(rd.ydense[row + b], rd.ydense[row + wn + b], rd.ydense[row + 2 * wn + b])
                            rd.hess[ha + b] = rd.hess[ha + b] + wp.dot(hy, yb)
            c += 3
            continue
        fd = rd.zone[r0 + c]
        count = rd.ynz_count[r0 + c]
        if fd[0] != 0.0:
            for t in range(count):
                a = int(rd.ynz[row + t])
                if a % lanes == lane:
                    rd.grad[wd0 + a] = rd.grad[wd0 + a] - fd[0] * rd.ydense[row + a]
        if fd[1] > 0.0:
            # H += D Y_c Y_c^T over the row's non-zero columns, lower triangle (ynz ascends: b <= a).
            for t in range(count):
                a = int(rd.ynz[row + t])
                if a % lanes == lane:
                    dy = fd[1] * rd.ydense[row + a]
                    ha = hoff + a * wn
                    for t2 in range(t + 1):
                        b = int(rd.ynz[row + t2])
                        rd.hess[ha + b] = rd.hess[ha + b] + dy * rd.ydense[row + b]
        c += 1


@wp.func(inline=True)
def _slope(alpha: float, up: float, pp: float, k: int, r0: int, mu: wp.array(dtype=float), rm: RowModel, rd: RowData):
    """(phi'(alpha), phi''(alpha)) of the cost along the search direction."""
    d1 = up + alpha * pp
    d2 = pp
    c = int(0)
    while c < k:
        if rd.cone[r0 + c] != 0:
            jv = _triple(rd.jv, r0 + c)
            if wp.length_sq(jv) > 0.0:
                _cost_c, f, h = _cone(_triple(rd.jar, r0 + c) + alpha * jv, mu[r0 + c], _dvec(rd, r0 + c))
                d1 -= wp.dot(f, jv)
                d2 += wp.dot(jv, h * jv)
            c += 3
            continue
        jv1 = rd.jv[r0 + c]
        if jv1 != 0.0:
            zone = _row_zone(rd.jar[r0 + c] + alpha * jv1, rd.reg[r0 + c], rd.lo[r0 + c], rd.hi[r0 + c])
            d1 -= zone[1] * jv1
            d2 += zone[2] * jv1 * jv1
        c += 1
    return wp.vec2(d1, d2)


@wp.func(inline=True)
def _line_search(
    k: int,
    r0: int,
    yoff: int,
    wd0: int,
    wn: int,
    ls_iterations: int,
    mu: wp.array(dtype=float),
    rm: RowModel,
    rd: RowData,
    u: wp.array(dtype=float),
    lane: int,
    lanes: int,
):
    """Exact minimum along p = ``search`` of the convex cost: 1-D Newton steps kept inside a bracket
    [lo, hi] of the slope's sign change, until the slope is 1 % of its start. jv per row by lanes; the
    slopes by every lane alike, so every lane returns the same step."""
    up = float(0.0)
    pp = float(0.0)
    for a in range(wn):
        up += u[wd0 + a] * rd.search[wd0 + a]
        pp += rd.search[wd0 + a] * rd.search[wd0 + a]
    for c in range(lane, k, lanes):
        rd.jv[r0 + c] = _dot_row(yoff + c * wn, rd.ynz_count[r0 + c], rd, rd.search, wd0)
    block_sync()
    s = _slope(0.0, up, pp, k, r0, mu, rm, rd)
    if s[0] >= 0.0:
        return 0.0
    target = 0.01 * wp.abs(s[0])
    lo = float(0.0)
    hi = float(1.0e30)
    alpha = float(0.0)
    for _it in range(ls_iterations):
        nxt = alpha - s[0] / wp.max(s[1], 1.0e-30)
        if nxt <= lo or nxt >= hi:
            nxt = 0.5 * (lo + hi)
        alpha = nxt
        s = _slope(alpha, up, pp, k, r0, mu, rm, rd)
        if s[0] < 0.0:
            lo = alpha
        else:
            hi = alpha
        if wp.abs(s[0]) <= target:
            break
    return alpha


@wp.func(inline=True)
def _clamp_cone_mu(k: int, r0: int, rd: RowData, lane: int, lanes: int):
    """The friction of each elliptic contact (rd.cone_mu on its normal row, where rd.cone is 1) at least 1e-5:
    the cone's cost divides by it."""
    for c in range(lane, k, lanes):
        if rd.cone[r0 + c] != 0:
            rd.cone_mu[r0 + c] = wp.max(rd.cone_mu[r0 + c], 1.0e-5)


@functools.cache
def make_newton_solve(tile_dofs: int = 0):
    """The world kernel's Newton solve (:func:`newton_solve` below). ``tile_dofs`` = 0: each iteration's
    Newton direction comes from the lanes' own dense Cholesky (:func:`.spatial.dense_cholesky_solve`), for
    worlds of any DOF count. ``tile_dofs`` = n > 0, for models whose worlds all have n DOFs (world w's at
    w n, its Hessian rows at w n of ``rd.hess_tiles``): from Warp's block-cooperative ``tile_cholesky`` /
    ``tile_cholesky_solve`` on the (n, n) Hessian (cuSolverDx on CUDA). The two agree to float32 rounding,
    not bitwise."""

    @wp.func(inline=True)
    def newton_solve(
        k: int,
        r0: int,
        w: int,
        iterations: int,
        tolerance: float,
        rm: RowModel,
        rd: RowData,
        tm: TreeTables,
        u: wp.array(dtype=float),
        lane: int,
        lanes: int,
    ):
        """Primal Newton solve of world w's k active rows (compact r0 .. r0 + k - 1, their Y, bias, reg and
        warm-start forces filled), by the ``lanes`` lanes of the world's block (every lane calls it). Leaves
        u = L (qacc - qacc_smooth) in ``u`` at the world's DOFs (zero on entry) and each row's force in
        ``rd.force``."""
        wd0 = rm.world_dof_start[w]
        wn = rm.world_dof_start[w + 1] - wd0
        yoff = rm.ydense_start[w]
        hoff = rm.hess_start[w]
        mu = rd.cone_mu
        _clamp_cone_mu(k, r0, rd, lane, lanes)
        for c in range(lane, k, lanes):  # at u = 0, jar is the bias
            rd.jar[r0 + c] = rd.bias[r0 + c]
        block_sync()
        cold = _cost_at_jar(k, r0, wd0, wn, mu, rm, rd, u)
        block_sync()  # every lane has summed the cost (it reads u) before u moves
        # Warm start: u = sum f_c Y_c of the previous step's forces, kept only when it costs less than u = 0
        # (rows in order; each lane adds into its own DOFs).
        for c in range(k):
            fw = rd.cforce[r0 + c]
            if fw != 0.0:
                row = yoff + c * wn
                for t in range(rd.ynz_count[r0 + c]):
                    a = int(rd.ynz[row + t])
                    if a % lanes == lane:
                        u[wd0 + a] = u[wd0 + a] + fw * rd.ydense[row + a]
        block_sync()
        cost = _cost(k, r0, yoff, wd0, wn, mu, rm, rd, u, lane, lanes)
        if cost > cold:
            block_sync()  # every lane has summed the cost before u and jar move
            for a in range(lane, wn, lanes):
                u[wd0 + a] = 0.0
            for c in range(lane, k, lanes):
                rd.jar[r0 + c] = rd.bias[r0 + c]
            cost = cold
            block_sync()
        scale = rm.world_scale[w]
        done = int(0)
        for _it in range(iterations):
            _hessian_and_gradient(k, r0, yoff, hoff, wd0, wn, mu, rd, u, lane, lanes)
            for a in range(lane, wn, lanes):
                rd.grad[wd0 + a] = -rd.grad[wd0 + a]
            block_sync()
            gnorm = float(0.0)
            for a in range(wn):
                gnorm += rd.grad[wd0 + a] * rd.grad[wd0 + a]
            if scale * wp.sqrt(gnorm) < tolerance:
                break
            done += 1
            # H >= I: pivots >= 1
            if wp.static(tile_dofs > 0):
                hess = wp.tile_load(rd.hess_tiles, shape=(tile_dofs, tile_dofs), offset=(w * tile_dofs, 0))
                grad = wp.tile_load(rd.grad, shape=tile_dofs, offset=wd0)
                search = rd.search  # (tile_store takes no struct field as its destination in Warp 1.19)
                wp.tile_store(search, wp.tile_cholesky_solve(wp.tile_cholesky(hess), grad), offset=wd0)
                block_sync()
            else:
                dense_cholesky_solve(rd.hess, hoff, wn, rd.grad, wd0, rd.search, wd0, lane, lanes)
            alpha = _line_search(k, r0, yoff, wd0, wn, rm.ls_iterations, mu, rm, rd, u, lane, lanes)
            if alpha == 0.0:
                break
            block_sync()  # every lane has taken its last slope (which reads jar) before jar moves
            for a in range(lane, wn, lanes):
                u[wd0 + a] = u[wd0 + a] + alpha * rd.search[wd0 + a]
            for c in range(lane, k, lanes):  # jar is linear in u: step it along jv = Y . p
                rd.jar[r0 + c] = rd.jar[r0 + c] + alpha * rd.jv[r0 + c]
            block_sync()
            new_cost = _cost_at_jar(k, r0, wd0, wn, mu, rm, rd, u)
            improvement = cost - new_cost
            cost = new_cost
            # MuJoCo's test (scaled improvement), or no change float32 can resolve.
            if scale * improvement < tolerance or improvement <= 1.0e-6 * cost:
                break
        if lane == 0:
            rd.niter[w] = done
            c = int(0)
            while c < k:
                i = rd.act_list[r0 + c]
                if rd.cone[r0 + c] != 0:
                    _cost_c, fc, _h = _cone(_triple(rd.jar, r0 + c), mu[r0 + c], _dvec(rd, r0 + c))
                    for e in range(3):
                        rd.force[rd.act_list[r0 + c + e]] = fc[e]
                    c += 3
                else:
                    rd.force[i] = _row_zone(rd.jar[r0 + c], rd.reg[r0 + c], rd.lo[r0 + c], rd.hi[r0 + c])[1]
                    c += 1

    return newton_solve
