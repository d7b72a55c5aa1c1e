"""MuJoCo's noslip pass (opt.noslip_iterations): after a world's main solve (:mod:`.newton` or :mod:`.pgs`),
projected Gauss-Seidel sweeps over its friction forces alone, on the dual without the regularizer.

The main solve's forces f satisfy the regularized problem, whose regularizer R lets a contact slip a little
while it sticks. The noslip pass holds every normal force (and every limit and equality force) and moves only
the friction forces, minimizing 1/2 f^T A f + b^T f with A = J M^-1 J^T = Y^T Y alone (b: the rows' bias
a0 - a_ref), so the friction rows' residual A f + b (their acceleration) goes to zero where the bounds
allow. Each sweep visits, in MuJoCo's order, (1) the dry-friction rows of joints and tendons, each clamped to
[-F, F], then (2) the contacts: a pyramid's opposing edges (n + mu t, n - mu t) in pairs, moved along
(1, -1) so that their sum, the normal force, stays fixed and both stay >= 0; an elliptic contact's two
tangent forces as the 2 x 2 quadratic program inside the disc |f_t| <= mu f_n of its held normal force
(Newton on the multiplier of the disc constraint, then onto the disc where it binds). A pair or disc step
that would raise the cost keeps the old forces. The sweeps stop after ``noslip_iterations`` or once a
sweep's improvement (the first also counting the regularizer's cost 1/2 sum R f^2 that the pass drops),
scaled by 1 / (mean inertia DOFs) of the world, is below ``noslip_tolerance``.

The pass keeps z = Y f = sum_c f_c Y_c on the world's DOFs (rebuilt from the solve's forces first, so the
Newton path's qacc follows from the forces as MuJoCo's does), reads residuals as b_c + Y_c . z and writes
the new forces back per row; z is then u of the world kernel's final L^-1 solve. Rows' Y are read where the
solve left them: Newton's dense (k, n) block ``ydense`` with its non-zero columns, or PGS's per-row
``minv_jac`` blocks. It runs on lane 0 of the world's block, in the world kernel variant compiled with it
(:func:`.world.world_kernel`), so a model without noslip runs the kernel unchanged.
"""

from __future__ import annotations

import warp as wp

from ..collision.pairs import template_slot
from ..constraint.tables import CONE, CONTACT, FRICTION, TENDON_FRICTION, RowData, RowModel, WorldBlock
from .pgs import _row_dot, _side_dot, row_axpy

__all__ = ["noslip_solve"]

wp.set_module_options({"enable_backward": False})

_MINVAL = wp.constant(1.0e-15)  # MuJoCo's mjMINVAL: the smallest pivot or normal force the pass divides by
_RAISE = wp.constant(1.0e-10)  # a step whose cost change is above this keeps the old forces (MuJoCo's test)


@wp.func(inline=True)
def _ydot(c: int, b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """Y_c . z of the world's compact row c."""
    s = float(0.0)
    if rm.newton != 0:
        row = b.yoff + c * b.wn
        for t in range(rd.ynz_count[b.r0 + c]):
            a = int(rd.ynz[row + t])
            s += rd.ydense[row + a] * z[b.wd0 + a]
    else:
        s = _row_dot(b.r0 + c, rm, rd, z)
    return s


@wp.func(inline=True)
def _yadd(c: int, scale: float, b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """z += scale Y_c."""
    if rm.newton != 0:
        row = b.yoff + c * b.wn
        for t in range(rd.ynz_count[b.r0 + c]):
            a = int(rd.ynz[row + t])
            z[b.wd0 + a] = z[b.wd0 + a] + scale * rd.ydense[row + a]
    else:
        row_axpy(b.r0 + c, scale, rm, rd, z)


@wp.func(inline=True)
def _aij(i: int, j: int, b: WorldBlock, rm: RowModel, rd: RowData):
    """A_ij = Y_i . Y_j of compact rows i and j (no regularizer)."""
    s = float(0.0)
    if rm.newton != 0:
        ri = b.yoff + i * b.wn
        rj = b.yoff + j * b.wn
        for t in range(rd.ynz_count[b.r0 + i]):
            a = int(rd.ynz[ri + t])
            s += rd.ydense[ri + a] * rd.ydense[rj + a]
    else:
        s = _side_dot(b.r0 + i, b.r0 + j, rm, rd)
    return s


@wp.func(inline=True)
def _move(c: int, f: float, b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """Set row c's force to f, keeping z = Y f."""
    df = f - rd.cforce[b.r0 + c]
    rd.cforce[b.r0 + c] = f
    if df != 0.0:
        _yadd(c, df, b, rm, rd, z)


@wp.func(inline=True)
def _friction_row(c: int, b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """Exact minimization along dry-friction row c, clamped to its bounds; returns the cost decrease."""
    r = b.r0 + c
    g = rd.bias[r] + _ydot(c, b, rm, rd, z)
    a = wp.max(_aij(c, c, b, rm, rd), _MINVAL)
    old = rd.cforce[r]
    f = wp.clamp(old - g / a, rd.lo[r], rd.hi[r])
    d = f - old
    _move(c, f, b, rm, rd, z)
    return -(0.5 * a * d * d + d * g)


@wp.func(inline=True)
def _block_change(d1: float, d2: float, a11: float, a22: float, a12: float, g1: float, g2: float):
    """Cost change 1/2 d^T A d + d . g of moving two rows by (d1, d2) from where their gradient is g."""
    return 0.5 * (a11 * d1 * d1 + 2.0 * a12 * d1 * d2 + a22 * d2 * d2) + (d1 * g1 + d2 * g2)


@wp.func(inline=True)
def _edge_pair(c: int, b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """Rows c, c + 1, a pyramid's opposing edges: the best split of their fixed sum 2 m as (m + y, m - y),
    |y| <= m; returns the cost decrease (0 where the step would raise the cost, which keeps them)."""
    r = b.r0 + c
    g1 = rd.bias[r] + _ydot(c, b, rm, rd, z)
    g2 = rd.bias[r + 1] + _ydot(c + 1, b, rm, rd, z)
    a11 = _aij(c, c, b, rm, rd)
    a22 = _aij(c + 1, c + 1, b, rm, rd)
    a12 = _aij(c, c + 1, b, rm, rd)
    f1 = rd.cforce[r]
    f2 = rd.cforce[r + 1]
    m = 0.5 * (f1 + f2)
    n1 = m
    n2 = m
    # Along (1, -1) the cost's curvature is a11 + a22 - 2 a12 and its slope at y = (f1 - f2) / 2 is g1 - g2.
    curv = a11 + a22 - 2.0 * a12
    if curv >= _MINVAL:
        y = wp.clamp(0.5 * (f1 - f2) - (g1 - g2) / curv, -m, m)
        n1 = m + y
        n2 = m - y
    change = _block_change(n1 - f1, n2 - f2, a11, a22, a12, g1, g2)
    if change > _RAISE:
        return 0.0
    _move(c, n1, b, rm, rd, z)
    _move(c + 1, n2, b, rm, rd, z)
    return -change


@wp.func(inline=True)
def _disc_qp(a11: float, a22: float, a12: float, q1: float, q2: float, radius: float):
    """argmin 1/2 x^T A x + q . x over the disc |x| <= radius, by Newton on the multiplier l of the disc
    (x(l) = -(A + l I)^-1 q, |x(l)| decreasing in l) from l = 0, at most 20 steps; a binding disc puts x on
    its rim. (0, 0) where A + l I is not safely positive definite."""
    lam = float(0.0)
    x1 = float(0.0)
    x2 = float(0.0)
    ok = int(1)
    for _it in range(20):
        h11 = a11 + lam
        h22 = a22 + lam
        det = h11 * h22 - a12 * a12
        if det < 1.0e-10:
            ok = 0
            break
        inv = 1.0 / det
        x1 = -(h22 * q1 - a12 * q2) * inv
        x2 = -(h11 * q2 - a12 * q1) * inv
        excess = x1 * x1 + x2 * x2 - radius * radius
        if excess < 1.0e-10:
            break
        # d|x|^2 / dl = -2 x^T (A + l I)^-1 x
        slope = -2.0 * (h22 * x1 * x1 - 2.0 * a12 * x1 * x2 + h11 * x2 * x2) * inv
        step = -excess / slope
        if step < 1.0e-10:
            break
        lam += step
    if ok == 0:
        return wp.vec2(0.0, 0.0)
    x = wp.vec2(x1, x2)
    if lam != 0.0:
        x = x * (radius / wp.max(wp.length(x), _MINVAL))
    return x


@wp.func(inline=True)
def _cone_tangents(c: int, b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """Rows c + 1, c + 2, the tangents of the elliptic contact whose normal is row c: the 2 x 2 quadratic
    program in the disc |f_t| <= mu f_n (zero when f_n is zero); returns the cost decrease (0 where the
    step would raise the cost, which keeps them)."""
    r = b.r0 + c
    g1 = rd.bias[r + 1] + _ydot(c + 1, b, rm, rd, z)
    g2 = rd.bias[r + 2] + _ydot(c + 2, b, rm, rd, z)
    a11 = _aij(c + 1, c + 1, b, rm, rd)
    a22 = _aij(c + 2, c + 2, b, rm, rd)
    a12 = _aij(c + 1, c + 2, b, rm, rd)
    f1 = rd.cforce[r + 1]
    f2 = rd.cforce[r + 2]
    fn = rd.cforce[r]
    n = wp.vec2(0.0, 0.0)
    if fn >= _MINVAL:
        # The block's own linear term q = g - A f_t, in units of f_t / mu (the disc of radius f_n).
        mu = rd.cone_mu[r]
        q1 = g1 - (a11 * f1 + a12 * f2)
        q2 = g2 - (a12 * f1 + a22 * f2)
        v = _disc_qp(a11 * mu * mu, a22 * mu * mu, a12 * mu * mu, q1 * mu, q2 * mu, fn)
        n = v * mu
    change = _block_change(n[0] - f1, n[1] - f2, a11, a22, a12, g1, g2)
    if change > _RAISE:
        return 0.0
    _move(c + 1, n[0], b, rm, rd, z)
    _move(c + 2, n[1], b, rm, rd, z)
    return -change


@wp.func(inline=True)
def noslip_solve(b: WorldBlock, rm: RowModel, rd: RowData, z: wp.array(dtype=float)):
    """The noslip pass of the world's k active rows after its main solve (lane 0; see the module docstring):
    reads each row's force from ``rd.force``, writes the new ones there, and leaves z = Y f at the world's
    DOFs of ``z``."""
    r0 = b.r0
    for ia in range(rm.world_art_start[b.w], rm.world_art_start[b.w + 1]):
        a = rm.world_arts[ia]
        for d in range(rm.tree.art_dof_start[a], rm.tree.art_dof_start[a + 1]):
            z[d] = 0.0
    dropped = float(0.0)  # the regularizer's cost 1/2 sum R f^2, counted in the first sweep's improvement
    for c in range(b.k):
        f = rd.force[rd.act_list[r0 + c]]
        rd.cforce[r0 + c] = f
        dropped += 0.5 * rd.reg[r0 + c] * f * f
        if f != 0.0:
            _yadd(c, f, b, rm, rd, z)
    scale = rm.world_scale[b.w]
    for it in range(rm.noslip_iterations):
        gain = float(0.0)
        if it == 0:
            gain = dropped
        for c in range(b.k):
            kind = rd.kind[r0 + c]
            if kind == FRICTION or kind == TENDON_FRICTION:
                gain += _friction_row(c, b, rm, rd, z)
        c = int(0)
        while c < b.k:
            if rd.kind[r0 + c] != CONTACT:
                c += 1
                continue
            nrows = rm.slot_nrows[template_slot(rm.contacts.topo, b.w, rd.owner[r0 + c])]
            if (rd.cone[r0 + c] & CONE) != 0:
                gain += _cone_tangents(c, b, rm, rd, z)
            elif nrows == 4:
                gain += _edge_pair(c, b, rm, rd, z)
                gain += _edge_pair(c + 2, b, rm, rd, z)
            c += nrows
        if gain * scale < rm.noslip_tolerance:
            break
    for c in range(b.k):
        rd.force[rd.act_list[r0 + c]] = rd.cforce[r0 + c]
