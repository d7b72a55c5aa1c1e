"""The Newton solve's terms of each active row over the world's dense Y block (:mod:`.newton`): the gather of a
row's Y into ``ydense`` with its non-zero columns, the products Y_c . x, and each row's gradient and Hessian
terms, taken per row, per pyramidal contact (four edge rows sharing their columns: :func:`is_quad`) and per
elliptic contact (three rows with one 3 x 3 local Hessian). Each lane adds into the gradient entries and Hessian
rows of its own DOFs only, walking the rows in the same order, so one lane gives bitwise what any number gives.
"""

from __future__ import annotations

import warp as wp

from ..constraint.assemble import jac_side
from ..constraint.tables import CONE, Y_CROSS, Y_QUAD, RowData, RowModel, WorldBlock
from ..items import item, item_set
from ..lanes import lane_owns
from .row_costs import cone_at, triple

__all__ = ["add_terms", "dot_row", "gather_row", "is_quad", "row_dots"]

wp.set_module_options({"enable_backward": False})


@wp.func(inline=True)
def gather_row(c: int, blk: int, b: WorldBlock, rm: RowModel, rd: RowData):
    """ydense[c, :] = Y of the world's compact row c (held in Jacobian block ``blk`` of ``minv_jac``) over the
    world's DOFs, and its non-zero columns in ``ynz``, ascending: one pass over each side's DOFs, the side of
    the lower DOFs first (the two sides hold different articulations). The columns outside both sides are
    zeroed only where a pass reads whole rows (an elliptic cone's Hessian, the noslip pass): with pyramidal
    cones and no noslip every reader goes through ``ynz``. (A pyramidal contact's edges are gathered as they
    are formed: :func:`..constraint.assemble.contact_pyramid`.)"""
    wn = b.wn
    row = b.yoff + c * wn
    arts = rd.art[b.r0 + c]
    js0 = jac_side(arts, 0, blk, rm)
    js1 = jac_side(arts, 1, blk, rm)
    dense = rm.noslip_iterations > 0 or rm.cone_rows != 4  # whole rows are read
    if dense and js0[2] + js1[2] < wn:
        a = int(0)
        while a < wn:
            item_set(rd.ydense, row + a, 0.0)
            a += 1
    first = int(0)
    if js1[2] > 0 and (js0[2] == 0 or js1[1] < js0[1]):
        first = 1
    count = int(0)
    for o in range(2):
        side = (first + o) % 2  # side ``first`` then the other
        js = js0
        if side == 1:
            js = js1
        col = js[1] - b.wd0
        kk = int(0)
        kk_end = js[2]
        while kk < kk_end:
            y = item(rd.minv_jac, js[0] + kk)
            item_set(rd.ydense, row + col + kk, y)
            if y != 0.0:
                item_set(rd.ynz, row + count, wp.int16(col + kk))
                count += 1
            kk += 1
    item_set(rd.ynz_count, b.r0 + c, count)


@wp.func(inline=True)
def dot_row(row: int, count: int, rd: RowData, x: wp.array(dtype=float), xoff: int):
    """Y_c . x over the row's non-zero columns."""
    s = float(0.0)
    t = int(0)
    while t < count:
        a = int(item(rd.ynz, row + t))
        s += item(rd.ydense, row + a) * item(x, xoff + a)
        t += 1
    return s


@wp.func(inline=True)
def _cone_gradient(c: int, b: WorldBlock, rd: RowData):
    """Gradient terms of the elliptic contact whose normal is compact row c, into this lane's DOFs: -f_e Y_e
    of its three rows."""
    wn = b.wn
    row = b.yoff + c * wn
    for e in range(3):
        fe = item(rd.zone, b.r0 + c + e)[0]
        if fe != 0.0:
            re = row + e * wn
            t = int(0)
            t_end = item(rd.ynz_count, b.r0 + c + e)
            while t < t_end:
                a = int(item(rd.ynz, re + t))
                if lane_owns(a, b.lane, b.lanes):
                    item_set(rd.grad, b.wd0 + a, item(rd.grad, b.wd0 + a) - fe * item(rd.ydense, re + a))
                t += 1


@wp.func(inline=True)
def _cone_hessian(c: int, b: WorldBlock, rd: RowData):
    """Hessian terms of the elliptic contact whose normal is compact row c, into this lane's rows of H:
    Y^T h Y (its 3 x 3 cone Hessian h) where h is not zero."""
    wn = b.wn
    row = b.yoff + c * wn
    _cost_c, _f, h = cone_at(c, b, rd, triple(rd.jar, b.r0 + c))
    if h[0, 0] > 0.0:
        # H += Y^T h Y over the contact's three rows.
        a = int(b.lane)
        while a < wn:
            ya = wp.vec3(item(rd.ydense, row + a), item(rd.ydense, row + wn + a), item(rd.ydense, row + 2 * wn + a))
            if wp.length_sq(ya) > 0.0:
                hy = h * ya
                ha = b.hoff + a * wn
                bb = int(0)
                bb_end = a + 1
                while bb < bb_end:
                    yb = wp.vec3(
                        item(rd.ydense, row + bb), item(rd.ydense, row + wn + bb), item(rd.ydense, row + 2 * wn + bb)
                    )
                    item_set(rd.hess, ha + bb, item(rd.hess, ha + bb) + wp.dot(hy, yb))
                    bb += 1
            a += b.lanes


@wp.func(inline=True)
def _row_gradient(c: int, b: WorldBlock, rd: RowData):
    """Gradient terms of compact row c (not in a cone), into this lane's DOFs: -f Y_c over the row's non-zero
    columns."""
    row = b.yoff + c * b.wn
    fd = item(rd.zone, b.r0 + c)
    count = item(rd.ynz_count, b.r0 + c)
    if fd[0] != 0.0:
        t = int(0)
        while t < count:
            a = int(item(rd.ynz, row + t))
            if lane_owns(a, b.lane, b.lanes):
                at = b.wd0 + a
                item_set(rd.grad, at, item(rd.grad, at) - fd[0] * item(rd.ydense, row + a))
            t += 1


@wp.func(inline=True)
def _row_hessian(c: int, b: WorldBlock, rd: RowData):
    """Hessian terms of compact row c (not in a cone), into this lane's rows of H: D Y_c Y_c^T over the
    row's non-zero columns, lower triangle (ynz ascends: b <= a)."""
    row = b.yoff + c * b.wn
    fd = item(rd.zone, b.r0 + c)
    count = item(rd.ynz_count, b.r0 + c)
    if fd[1] > 0.0:
        t = int(0)
        while t < count:
            a = int(item(rd.ynz, row + t))
            if lane_owns(a, b.lane, b.lanes):
                dy = fd[1] * item(rd.ydense, row + a)
                ha = b.hoff + a * b.wn
                t2 = int(0)
                t2_end = t + 1
                while t2 < t2_end:
                    bb = int(item(rd.ynz, row + t2))
                    item_set(rd.hess, ha + bb, item(rd.hess, ha + bb) + dy * item(rd.ydense, row + bb))
                    t2 += 1
            t += 1


@wp.func(inline=True)
def is_quad(c: int, b: WorldBlock, rd: RowData):
    """Whether compact rows c .. c + 3 are the four edges of one pyramidal contact with one list of non-zero
    columns (the edges n +- mu t of one body path: the same list unless an entry cancels exactly), as their
    gather found (``Y_QUAD``)."""
    return (item(rd.cone, b.r0 + c) & Y_QUAD) != 0


@wp.func(inline=True)
def _quad_y(rd: RowData, row: int, wn: int, a: int):
    """Column a of the four edge rows whose Y starts at ``row`` (rows ``wn`` apart)."""
    return wp.vec4(
        item(rd.ydense, row + a),
        item(rd.ydense, row + wn + a),
        item(rd.ydense, row + 2 * wn + a),
        item(rd.ydense, row + 3 * wn + a),
    )


@wp.func(inline=True)
def _quad_zone(rd: RowData, r: int, k: int):
    """Entry k of ``zone`` (0: force, 1: D) of the four edge rows from compact row r."""
    return wp.vec4(item(rd.zone, r)[k], item(rd.zone, r + 1)[k], item(rd.zone, r + 2)[k], item(rd.zone, r + 3)[k])


@wp.func(inline=True)
def _quad_dot(row: int, count: int, wn: int, rd: RowData, x: wp.array(dtype=float), xoff: int):
    """(Y_e . x) of the four edge rows whose Y starts at ``row`` over their shared non-zero columns
    (:func:`is_quad`): each edge's products summed in :func:`dot_row`'s order (bitwise its sums), with one
    read of each column index and of x."""
    s = wp.vec4(0.0)
    t = int(0)
    while t < count:
        a = int(item(rd.ynz, row + t))
        s = s + _quad_y(rd, row, wn, a) * item(x, xoff + a)
        t += 1
    return s


@wp.func(inline=True)
def _row_dot_at(
    c: int, b: WorldBlock, rd: RowData, x: wp.array(dtype=float), with_bias: int, out: wp.array(dtype=float)
):
    """out[r0 + c] = Y_c . x of compact row c, plus its bias where ``with_bias``."""
    r = b.r0 + c
    v = dot_row(b.yoff + c * b.wn, item(rd.ynz_count, r), rd, x, b.wd0)
    if with_bias != 0:
        v = item(rd.bias, r) + v
    item_set(out, r, v)


@wp.func(inline=True)
def row_dots(b: WorldBlock, rd: RowData, x: wp.array(dtype=float), with_bias: int, out: wp.array(dtype=float)):
    """out[r0 + c] = Y_c . x of every active row c, plus its bias where ``with_bias`` (jar at x). One lane
    takes a pyramidal contact's four edges together where they share their columns (:func:`_quad_dot`);
    several lanes take rows in turn. Either gives bitwise the same values."""
    if b.lanes == 1:
        c = int(0)
        while c < b.k:
            if is_quad(c, b, rd):
                r = b.r0 + c
                s = _quad_dot(b.yoff + c * b.wn, item(rd.ynz_count, r), b.wn, rd, x, b.wd0)
                for e in range(4):
                    v = s[e]
                    if with_bias != 0:
                        v = item(rd.bias, r + e) + v
                    item_set(out, r + e, v)
                c += 4
            else:
                _row_dot_at(c, b, rd, x, with_bias, out)
                c += 1
    else:
        c = int(b.lane)
        while c < b.k:
            _row_dot_at(c, b, rd, x, with_bias, out)
            c += b.lanes


@wp.func(inline=True)
def _quad_gradient(c: int, b: WorldBlock, rd: RowData):
    """Gradient terms of the four edges at compact rows c .. c + 3 (:func:`is_quad`), into this lane's DOFs:
    -sum_e f_e Y_e over their non-zero columns, the edges summed before the entry is updated."""
    r = b.r0 + c
    f = _quad_zone(rd, r, 0)
    if f == wp.vec4(0.0):
        return
    row = b.yoff + c * b.wn
    t = int(0)
    t_end = item(rd.ynz_count, r)
    while t < t_end:
        a = int(item(rd.ynz, row + t))
        if lane_owns(a, b.lane, b.lanes):
            at = b.wd0 + a
            item_set(rd.grad, at, item(rd.grad, at) - wp.dot(f, _quad_y(rd, row, b.wn, a)))
        t += 1


@wp.func(inline=True)
def _quad_hessian(c: int, b: WorldBlock, rd: RowData):
    """Hessian terms of the four edges at compact rows c .. c + 3 (:func:`is_quad`), into this lane's rows of
    H: sum_e D_e Y_e Y_e^T over their non-zero columns, lower triangle, the edges summed before the entry is
    updated (one read and write of H per entry, not four)."""
    r = b.r0 + c
    d = _quad_zone(rd, r, 1)
    if d == wp.vec4(0.0):
        return
    row = b.yoff + c * b.wn
    t = int(0)
    t_end = item(rd.ynz_count, r)
    while t < t_end:
        a = int(item(rd.ynz, row + t))
        if lane_owns(a, b.lane, b.lanes):
            dy = wp.cw_mul(d, _quad_y(rd, row, b.wn, a))
            ha = b.hoff + a * b.wn
            t2 = int(0)
            t2_end = t + 1
            while t2 < t2_end:
                bb = int(item(rd.ynz, row + t2))
                item_set(rd.hess, ha + bb, item(rd.hess, ha + bb) + wp.dot(dy, _quad_y(rd, row, b.wn, bb)))
                t2 += 1
        t += 1


@wp.func(inline=True)
def add_terms(hessian: int, b: WorldBlock, rd: RowData):
    """Every active row's gradient terms (``hessian`` 0) or Hessian terms (1) into this lane's entries, in
    row order (an elliptic contact's three rows together, a pyramidal contact's four edges together where
    they share their columns); the Hessian terms of rows across branches (``Y_CROSS``) are left out."""
    c = int(0)
    while c < b.k:
        cross = hessian != 0 and (item(rd.cone, b.r0 + c) & Y_CROSS) != 0  # its term: cross_direction
        if (item(rd.cone, b.r0 + c) & CONE) != 0:
            if hessian != 0:
                _cone_hessian(c, b, rd)
            else:
                _cone_gradient(c, b, rd)
            c += 3
        elif is_quad(c, b, rd):
            if hessian == 0:
                _quad_gradient(c, b, rd)
            elif not cross:
                _quad_hessian(c, b, rd)
            c += 4
        else:
            if hessian == 0:
                _row_gradient(c, b, rd)
            elif not cross:
                _row_hessian(c, b, rd)
            c += 1
