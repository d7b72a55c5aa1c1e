"""Primal Newton solve of one world's constraint rows (the island kernel's step 5 when the solver is
"newton"), MuJoCo's default method.

With M = L^T L and u = L (qacc - qacc_smooth), MuJoCo's primal problem (MuJoCo computation: "Constraint
solver", primal formulation) reads

    min_u  1/2 |u|^2 + sum_c s_c(jar_c),   jar_c = Y_c . u + b_c,   Y_c = L^-T J_c^T,

with b_c = a0_c - aref_c the row's bias (see :mod:`.island_rows`) and, for a row with regularizer R_c and
force bounds [lo_c, hi_c] (contacts and limits [0, inf), joint friction [-F, F], equalities free;
pyramidal contacts are four edge rows), s_c(x) = max over f in [lo_c, hi_c] of (-f x - R_c f^2 / 2):
quadratic x^2 / (2 R_c) while f = -x / R_c lies inside the bounds, linear beyond. Its gradient is
u - sum_c f_c Y_c and its Hessian H = I + sum_c D_c Y_c Y_c^T over the rows in their quadratic zone
(D_c = 1 / R_c). Each iteration solves H p = -g by a dense Cholesky of the world's DOF block, then finds
the exact minimum of the convex piecewise quadratic cost along p by a bracketed 1-D Newton search. The
forces f_c at the optimum are the dual solution (u = sum_c f_c Y_c); they are stored per row and warm-start
the next solve, which starts from the cheaper of u = sum_c f_c Y_c and u = 0.

Per world the active rows' Y are gathered into a dense (k, n) block over the world's n DOFs (``ydense``),
with the ascending list of its non-zero columns (``ynz``; a row's Y is non-zero only on the DOF paths of
its bodies), so row products and the Hessian's rank-one updates touch only those. Loops over rows or
DOFs are written as strided loops over a lane index (one lane today) so that a block of lanes can share
a world.
"""

from __future__ import annotations

import warp as wp

from .island_tables import RowData, RowModel, TreeTables

__all__ = ["newton_solve"]

wp.set_module_options({"enable_backward": False})

_LANE = wp.constant(0)
_LANES = wp.constant(1)


@wp.func
def _row_zone(x: float, r: float, lo: float, hi: float):
    """(s(x), f, s''(x)) of a row with regularizer r and force bounds [lo, hi] at jar = x."""
    f = -x / r
    if f < lo:
        return wp.vec3(-lo * x - 0.5 * r * lo * lo, lo, 0.0)
    if f > hi:
        return wp.vec3(-hi * x - 0.5 * r * hi * hi, hi, 0.0)
    return wp.vec3(-0.5 * x * f, f, 1.0 / r)


@wp.func
def _gather(k: int, r0: int, yoff: int, wd0: int, wn: int, rm: RowModel, rd: RowData, tm: TreeTables):
    """ydense[c, :] = Y of compact row c over the world's DOFs (zero off the row's articulations)."""
    for c in range(_LANE, k, _LANES):
        row = yoff + c * wn
        for a in range(wn):
            rd.ydense[row + a] = 0.0
        i = rd.act_list[r0 + c]
        arts = rm.art[i]
        for side in range(2):
            ai = arts[side]
            if ai >= 0:
                d0 = tm.art_dof_start[ai]
                src = i * 2 * rm.width + side * rm.width
                dst = row + d0 - wd0
                for kk in range(tm.art_dof_start[ai + 1] - d0):
                    rd.ydense[dst + kk] = rd.ydense[dst + kk] + rd.minv_jac[src + kk]
        count = int(0)
        for a in range(wn):
            if rd.ydense[row + a] != 0.0:
                rd.ynz[row + count] = a
                count += 1
        rd.ynz_count[r0 + c] = count


@wp.func
def _dot_row(row: int, count: int, rd: RowData, x: wp.array(dtype=float), xoff: int):
    """Y_c . x over the row's non-zero columns."""
    s = float(0.0)
    for t in range(count):
        a = rd.ynz[row + t]
        s += rd.ydense[row + a] * x[xoff + a]
    return s


@wp.func
def _cost(k: int, r0: int, yoff: int, wd0: int, wn: int, rm: RowModel, rd: RowData, u: wp.array(dtype=float)):
    """Cost at u; also refreshes jar of every row."""
    total = float(0.0)
    for a in range(wn):
        total += 0.5 * u[wd0 + a] * u[wd0 + a]
    for c in range(_LANE, k, _LANES):
        i = rd.act_list[r0 + c]
        x = rd.bias[r0 + c] + _dot_row(yoff + c * wn, rd.ynz_count[r0 + c], rd, u, wd0)
        rd.jar[r0 + c] = x
        total += _row_zone(x, rd.reg[r0 + c], rd.lo[i], rd.hi[i])[0]
    return total


@wp.func
def _hessian_and_gradient(k: int, r0: int, yoff: int, hoff: int, wd0: int, wn: int, rd: RowData,
                          u: wp.array(dtype=float)):
    """Lower triangle of H = I + sum D_c Y_c Y_c^T (rows in their quadratic zone) at ``hess`` and the
    gradient g = u - sum f_c Y_c at ``grad``, from the current jar."""
    for a in range(_LANE, wn, _LANES):
        rd.grad[wd0 + a] = u[wd0 + a]
        for b in range(a + 1):
            v = float(0.0)
            if a == b:
                v = 1.0
            rd.hess[hoff + a * wn + b] = v
    for c in range(k):
        i = rd.act_list[r0 + c]
        zone = _row_zone(rd.jar[r0 + c], rd.reg[r0 + c], rd.lo[i], rd.hi[i])
        row = yoff + c * wn
        count = rd.ynz_count[r0 + c]
        f = zone[1]
        if f != 0.0:
            for t in range(_LANE, count, _LANES):
                a = rd.ynz[row + t]
                rd.grad[wd0 + a] = rd.grad[wd0 + a] - f * rd.ydense[row + a]
        dc = zone[2]
        if dc > 0.0:
            for t in range(_LANE, count, _LANES):
                a = rd.ynz[row + t]
                ya = dc * rd.ydense[row + a]
                ha = hoff + a * wn
                for t2 in range(t + 1):  # ynz ascends: columns b <= a
                    b = rd.ynz[row + t2]
                    rd.hess[ha + b] = rd.hess[ha + b] + ya * rd.ydense[row + b]


@wp.func
def _cholesky_solve(hoff: int, wn: int, wd0: int, hess: wp.array(dtype=float), rhs: wp.array(dtype=float),
                    x: wp.array(dtype=float)):
    """Factor the lower triangle at ``hess`` in place (H = C C^T) and solve H x = rhs (world DOF
    offsets wd0 in ``rhs`` and ``x``). H >= I, so every pivot is at least 1."""
    for j in range(wn):
        rj = hoff + j * wn
        s = hess[rj + j]
        for t in range(j):
            s -= hess[rj + t] * hess[rj + t]
        d = wp.sqrt(wp.max(s, 1.0e-12))
        hess[rj + j] = d
        for i in range(j + 1, wn):
            ri = hoff + i * wn
            v = hess[ri + j]
            for t in range(j):
                v -= hess[ri + t] * hess[rj + t]
            hess[ri + j] = v / d
    for i in range(wn):
        ri = hoff + i * wn
        v = rhs[wd0 + i]
        for t in range(i):
            v -= hess[ri + t] * x[wd0 + t]
        x[wd0 + i] = v / hess[ri + i]
    for ii in range(wn):
        i = wn - 1 - ii
        v = x[wd0 + i]
        for t in range(i + 1, wn):
            v -= hess[hoff + t * wn + i] * x[wd0 + t]
        x[wd0 + i] = v / hess[hoff + i * wn + i]


@wp.func
def _slope(alpha: float, up: float, pp: float, k: int, r0: int, rm: RowModel, rd: RowData):
    """(phi'(alpha), phi''(alpha)) of the cost along the search direction."""
    d1 = up + alpha * pp
    d2 = pp
    for c in range(k):
        i = rd.act_list[r0 + c]
        jv = rd.jv[r0 + c]
        if jv != 0.0:
            zone = _row_zone(rd.jar[r0 + c] + alpha * jv, rd.reg[r0 + c], rd.lo[i], rd.hi[i])
            d1 -= zone[1] * jv
            d2 += zone[2] * jv * jv
    return wp.vec2(d1, d2)


@wp.func
def _line_search(k: int, r0: int, yoff: int, wd0: int, wn: int, ls_iterations: int, rm: RowModel, rd: RowData,
                 u: wp.array(dtype=float)):
    """Exact minimum along p = ``search`` of the convex piecewise quadratic cost: 1-D Newton steps kept
    inside a bracket [lo, hi] of the slope's sign change, until the slope is 1 % of its start."""
    up = float(0.0)
    pp = float(0.0)
    for a in range(wn):
        up += u[wd0 + a] * rd.search[wd0 + a]
        pp += rd.search[wd0 + a] * rd.search[wd0 + a]
    for c in range(_LANE, k, _LANES):
        rd.jv[r0 + c] = _dot_row(yoff + c * wn, rd.ynz_count[r0 + c], rd, rd.search, wd0)
    s = _slope(0.0, up, pp, k, r0, rm, rd)
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
        s = _slope(alpha, up, pp, k, r0, rm, rd)
        if s[0] < 0.0:
            lo = alpha
        else:
            hi = alpha
        if wp.abs(s[0]) <= target:
            break
    return alpha


@wp.func
def newton_solve(k: int, r0: int, w: int, iterations: int, tolerance: float, rm: RowModel, rd: RowData,
                 tm: TreeTables, u: wp.array(dtype=float)):
    """Primal Newton solve of world w's k active rows (compact r0 .. r0 + k - 1, their Y, bias, reg and
    warm-start forces filled). Leaves u = L (qacc - qacc_smooth) in ``u`` at the world's DOFs (zero on
    entry) and each row's force in ``rd.force``."""
    wd0 = rm.island_dof_start[w]
    wn = rm.island_dof_start[w + 1] - wd0
    yoff = rm.ydense_start[w]
    hoff = rm.hess_start[w]
    _gather(k, r0, yoff, wd0, wn, rm, rd, tm)
    cold = _cost(k, r0, yoff, wd0, wn, rm, rd, u)
    # Warm start: u = sum f_c Y_c of the previous step's forces, kept only when it costs less than u = 0.
    for c in range(k):
        f = rd.cforce[r0 + c]
        if f != 0.0:
            row = yoff + c * wn
            for t in range(_LANE, rd.ynz_count[r0 + c], _LANES):
                a = rd.ynz[row + t]
                u[wd0 + a] = u[wd0 + a] + f * rd.ydense[row + a]
    cost = _cost(k, r0, yoff, wd0, wn, rm, rd, u)
    if cost > cold:
        for a in range(_LANE, wn, _LANES):
            u[wd0 + a] = 0.0
        cost = _cost(k, r0, yoff, wd0, wn, rm, rd, u)
    for _it in range(iterations):
        _hessian_and_gradient(k, r0, yoff, hoff, wd0, wn, rd, u)
        for a in range(_LANE, wn, _LANES):
            rd.grad[wd0 + a] = -rd.grad[wd0 + a]
        _cholesky_solve(hoff, wn, wd0, rd.hess, rd.grad, rd.search)
        alpha = _line_search(k, r0, yoff, wd0, wn, rm.ls_iterations, rm, rd, u)
        if alpha == 0.0:
            break
        for a in range(_LANE, wn, _LANES):
            u[wd0 + a] = u[wd0 + a] + alpha * rd.search[wd0 + a]
        new_cost = _cost(k, r0, yoff, wd0, wn, rm, rd, u)
        improvement = cost - new_cost
        cost = new_cost
        if improvement <= tolerance * wp.max(cost, 1.0e-30):
            break
    for c in range(_LANE, k, _LANES):
        i = rd.act_list[r0 + c]
        rd.force[i] = _row_zone(rd.jar[r0 + c], rd.reg[r0 + c], rd.lo[i], rd.hi[i])[1]
