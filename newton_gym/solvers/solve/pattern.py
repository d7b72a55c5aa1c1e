"""Which factor a world's Newton Hessian takes (:mod:`.newton`): tree-sparse where its active rows lie on
root paths of the DOF tree, with the rows across two branches added to each Newton direction by Woodbury's
identity, or dense.

H = I + sum Y^T D Y over the active rows. A row whose Y is non-zero on one root path only adds terms at
(descendant, ancestor) entries, the mass matrix's pattern, which factors leaves first without fill-in. A row
between two branches (a hand against a thigh) or two articulations would fill in; :func:`tree_pattern` marks
such rows ``Y_CROSS`` so that the Hessian is formed and factored without them, and :func:`cross_direction`
corrects each direction for them.
"""

from __future__ import annotations

import warp as wp

from ..constraint.tables import CONE, Y_CROSS, Y_PATH, RowData, RowModel, WorldBlock
from ..items import item, item_set
from ..lanes import lane_owns, sync_lanes
from ..spatial import dense_cholesky, dense_solve, ltl_solve, ltl_solve_t

__all__ = ["on_path", "tree_pattern", "cross_direction"]

wp.set_module_options({"enable_backward": False})


@wp.func
def on_path(ynz: wp.array(dtype=wp.int16), row: int, count: int, deep: int, dof_parent: wp.array(dtype=int), wd0: int):
    """1 where each of the ``count`` non-zero columns of a Y row (``ynz[row:]``, ascending, world columns of a
    world whose DOFs start at ``wd0``) is column ``deep`` or one of its ancestors, else 0: one walk up from
    ``deep``, the columns taken deepest first."""
    p = deep
    on = int(1)
    for tt in range(count):
        a = int(item(ynz, row + count - 1 - tt))
        while p > a:
            p = item(dof_parent, wd0 + p) - wd0  # below 0 past the root
        if p != a:
            on = 0
    return on


@wp.func(inline=True)
def _group_rows(c: int, b: WorldBlock, rd: RowData):
    """Rows of the group at compact row c whose Hessian terms go together: an elliptic contact's three, else 1."""
    rows = int(1)
    if (item(rd.cone, b.r0 + c) & CONE) != 0:
        rows = 3
    return rows


@wp.func(inline=True)
def _off_path(c: int, rows: int, b: WorldBlock, rm: RowModel, rd: RowData):
    """1 where the Y of compact rows c .. c + rows - 1 together are non-zero off one root path of the DOF tree
    (a row between two branches or two articulations), else 0."""
    if rows == 1 and (item(rd.cone, b.r0 + c) & Y_PATH) != 0:  # known where it was gathered
        return 0
    deep = int(-1)
    for e in range(rows):
        count = item(rd.ynz_count, b.r0 + c + e)
        if count > 0:
            deep = wp.max(deep, int(item(rd.ynz, b.yoff + (c + e) * b.wn + count - 1)))
    on = int(1)
    for e in range(rows):
        row = b.yoff + (c + e) * b.wn
        on = on * on_path(rd.ynz, row, item(rd.ynz_count, b.r0 + c + e), deep, rm.tree.dof_parent, b.wd0)
    return 1 - on


@wp.func(inline=True)
def tree_pattern(b: WorldBlock, rm: RowModel, rd: RowData, cross_ok: int):
    """How the solve factors its Hessians (every lane alike):

    - 1: every active row's Y (every elliptic contact's three rows together) is non-zero on one root path of
      the DOF tree only. Then each term Y^T D Y of the Hessian is non-zero only at (descendant, ancestor)
      entries, the mass matrix's pattern, and H = L^T L factors leaves first without fill-in
      (:func:`..spatial.ltl_factor`): per DOF its depth squared, where the dense Cholesky takes n^3 / 6 (G1,
      35 DOFs: legs and arms hang off the base and meet only there).
    - 2 (``cross_ok`` 1): as 1 but for some rows across two branches or two articulations (a hand against a
      thigh; none of them elliptic, and as many as :func:`cross_direction` finds room for in the world's
      rows of ``ydense`` beyond its active ones: dozens on a G1), which this marks ``Y_CROSS``: H less their
      terms is factored on the tree pattern, and :func:`cross_direction` adds them to each direction.
    - 0: else; the dense Cholesky."""
    cross = int(0)
    dense = int(0)
    c = int(0)
    while c < b.k:
        rows = _group_rows(c, b, rd)
        if _off_path(c, rows, b, rm, rd) != 0:
            cross += rows
            if rows != 1 or cross_ok == 0:
                dense = 1
        c += rows
    budget = rm.world_budget_start[b.w + 1] - rm.world_budget_start[b.w]  # the world's rows of ydense
    if dense != 0 or _cross_floats(b.k, cross, b.wn) > budget * b.wn:  # cross_direction's room
        return 0
    if cross == 0:
        return 1
    sync_lanes(b.lanes)  # every lane has read the rows' bits before lane 0 marks them
    if b.lane == 0:
        c = int(0)
        while c < b.k:
            rows = _group_rows(c, b, rd)
            if _off_path(c, rows, b, rm, rd) != 0:
                item_set(rd.cone, b.r0 + c, item(rd.cone, b.r0 + c) | Y_CROSS)
            c += rows
    sync_lanes(b.lanes)
    return 2


@wp.func(inline=True)
def _cross_floats(k: int, m: int, wn: int):
    """Floats of a world's ``ydense`` block (rows of wn) that its k active rows and :func:`cross_direction`
    take for m rows across branches: Z in rows k .. k + m - 1, then C and its right side (m (m + 1) float64,
    from an even offset)."""
    return (k + m) * wn + 1 + 2 * m * (m + 1)


@wp.func(inline=True)
def _dot64(row: int, count: int, rd: RowData, x: wp.array(dtype=float), xoff: int):
    """Y_c . x over the row's non-zero columns, in float64."""
    s = wp.float64(0.0)
    for t in range(count):
        a = int(item(rd.ynz, row + t))
        s += wp.float64(item(rd.ydense, row + a)) * wp.float64(item(x, xoff + a))
    return s


@wp.func(inline=True)
def _crossing(r: int, rd: RowData):
    """Whether compact row r is a row across branches (``Y_CROSS``) with a Hessian term (D > 0)."""
    return (item(rd.cone, r) & Y_CROSS) != 0 and item(rd.zone, r)[1] > 0.0


@wp.func
def cross_direction(b: WorldBlock, rm: RowModel, rd: RowData):
    """search = H^-1 (-g) for H = H_t + sum_x D_x Y_x^T Y_x over the rows across branches x with D > 0, given
    search = H_t^-1 (-g) from the tree-pattern factor of H_t in ``hess`` (every other row's terms), by
    Woodbury's identity (every lane calls it):

        H^-1 = H_t^-1 - Z C^-1 Z^T,   Z = H_t^-1 Y_X^T,   C = D_X^-1 + Y_X Z.

    The m columns of Z are two tree solves each (lanes over rows), in the world's rows of ``ydense`` beyond
    its k active ones (free this substep); C (m x m, float64, after Z: ``ydense64``) from lane 0, its
    Cholesky and the correction's weights w = C^-1 Y_X search from :func:`..spatial.dense_cholesky` and
    :func:`..spatial.dense_solve` in float64, then search -= Z w (lanes over DOFs).
    C is float64 because
    C = D_X^-1 + Y_X Z is nearly singular where the rows are nearly dependent (a pyramid's four edges span
    three directions) and their R = 1 / D is small: float32 would round R's part away."""
    zbase = b.yoff + b.k * b.wn  # Z_j: the world's row k + j of ydense
    m = int(0)
    for c in range(b.k):
        r = b.r0 + c
        if _crossing(r, rd):
            if lane_owns(m, b.lane, b.lanes):
                z = zbase + m * b.wn
                for a in range(b.wn):
                    item_set(rd.ydense, z + a, 0.0)
                row = b.yoff + c * b.wn
                for t in range(item(rd.ynz_count, r)):
                    a = int(item(rd.ynz, row + t))
                    item_set(rd.ydense, z + a, item(rd.ydense, row + a))
                ltl_solve_t(rd.hess, b.hoff, b.wn, b.wd0, rm.tree.dof_parent, rd.ydense, z)
                ltl_solve(rd.hess, b.hoff, b.wn, b.wd0, rm.tree.dof_parent, rd.ydense, z)
            m += 1
    if m == 0:
        return
    sync_lanes(b.lanes)  # every column of Z is solved
    cb = (zbase + m * b.wn + 1) // 2  # C_ij at cb + i m + j in ydense64 (float index 2 cb, even)
    wb = cb + m * m  # the right side, then the weights
    if b.lane == 0:
        i = int(0)
        for c in range(b.k):
            r = b.r0 + c
            if _crossing(r, rd):
                row = b.yoff + c * b.wn
                count = item(rd.ynz_count, r)
                rd.ydense64[wb + i] = _dot64(row, count, rd, rd.search, b.wd0)
                for j in range(i + 1):
                    rd.ydense64[cb + i * m + j] = _dot64(row, count, rd, rd.ydense, zbase + j * b.wn)
                rd.ydense64[cb + i * m + i] += wp.float64(1.0) / wp.float64(item(rd.zone, r)[1])
                i += 1
    sync_lanes(b.lanes)  # C and the right side are whole
    dense_cholesky(rd.ydense64, cb, m, b.lane, b.lanes)  # C = G G^T in place
    dense_solve(rd.ydense64, cb, m, rd.ydense64, wb, rd.ydense64, wb, b.lane, b.lanes)  # G G^T w = Y_X search
    for a in range(b.lane, b.wn, b.lanes):
        v = wp.float64(item(rd.search, b.wd0 + a))
        for j in range(m):
            v -= rd.ydense64[wb + j] * wp.float64(item(rd.ydense, zbase + j * b.wn + a))
        item_set(rd.search, b.wd0 + a, wp.float32(v))
    sync_lanes(b.lanes)
