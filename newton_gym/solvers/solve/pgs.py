"""Dense Delassus block and projected Gauss-Seidel of the world solve (:mod:`.world`, steps 4 and 5): row
products A_ij = Y_i . Y_j, the dense block, the dual's residual in dense and matrix-free form, and PGS with
subspace minimization on dense box-bounded blocks. Rows are addressed by their compact index (r0 + c)."""

from __future__ import annotations

import warp as wp

from ..constraint.assemble import jac_side
from ..constraint.tables import CONE, RowData, RowModel, WorldBlock, WorldInputs
from ..spatial import dense_cholesky_solve
from ..types import vec8

__all__ = ["dense_block", "row_axpy", "residual", "set_force", "pgs_dense_box", "pgs_solve"]

wp.set_module_options({"enable_backward": False})


@wp.func(inline=True)
def _dot8(a: vec8, b: vec8):
    """a . b as a sum tree (independent float adds)."""
    return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) + (
        (a[4] * b[4] + a[5] * b[5]) + (a[6] * b[6] + a[7] * b[7])
    )


@wp.func(inline=True)
def _side_dot(i: int, j: int, rm: RowModel, rd: RowData):
    """A_ij = Y_i . Y_j (= J_i M^-1 J_j^T) of compact rows i and j, summed over the articulations the two rows
    share, in chunks of 8 floats (a side's padding past its articulation's DOFs is zero)."""
    ch = rm.width / 8
    ai = rd.art[i]
    aj = rd.art[j]
    s = float(0.0)
    for si in range(2):
        a = ai[si]
        if a >= 0:
            nch = (rm.tree.art_dof_start[a + 1] - rm.tree.art_dof_start[a] + 7) / 8
            for sj in range(2):
                if aj[sj] == a:
                    bi = (i * 2 + si) * ch
                    bj = (j * 2 + sj) * ch
                    for kk in range(nch):
                        s += _dot8(rd.minv8[bi + kk], rd.minv8[bj + kk])
    return s


@wp.func(inline=True)
def dense_block(b: WorldBlock, rm: RowModel, rd: RowData):
    """Dense Delassus block A = Y^T Y of the world's k active rows (compact r0 .. r0 + k - 1), row-major
    k x k at ``moff`` in ``rd.dense``; A is symmetric, so each pair is computed once."""
    k = b.k
    for c in range(k):
        for e in range(c, k):
            v = _side_dot(b.r0 + c, b.r0 + e, rm, rd)
            rd.dense[b.moff + c * k + e] = v
            rd.dense[b.moff + e * k + c] = v


@wp.func(inline=True)
def _row_dot(i: int, rm: RowModel, rd: RowData, x: wp.array(dtype=float)):
    """Y_i . z of compact row i over its articulations (matrix-free residual; z = Y f)."""
    a = rd.art[i]
    s = float(0.0)
    for side in range(2):
        js = jac_side(a, side, i, rm)
        for k in range(js[2]):
            s += rd.minv_jac[js[0] + k] * x[js[1] + k]
    return s


@wp.func(inline=True)
def row_axpy(i: int, scale: float, rm: RowModel, rd: RowData, x: wp.array(dtype=float)):
    """x += scale Y_i (compact row i)."""
    a = rd.art[i]
    for side in range(2):
        js = jac_side(a, side, i, rm)
        for k in range(js[2]):
            x[js[1] + k] = x[js[1] + k] + scale * rd.minv_jac[js[0] + k]


@wp.func(inline=True)
def residual(c: int, b: WorldBlock, rm: RowModel, rd: RowData, qacc_c: wp.array(dtype=float)):
    """Gradient of the dual at compact row c: a0 - a_ref + (A f)_c + R_c f_c (dense block, or matrix-free
    from z = Y f in ``qacc_c``)."""
    r0 = b.r0
    g = rd.bias[r0 + c] + rd.reg[r0 + c] * rd.cforce[r0 + c]
    if b.dense != 0:
        row = b.moff + c * b.k
        for j in range(b.k):
            g += rd.dense[row + j] * rd.cforce[r0 + j]
    else:
        g += _row_dot(r0 + c, rm, rd, qacc_c)
    return g


@wp.func(inline=True)
def set_force(c: int, f: float, b: WorldBlock, rm: RowModel, rd: RowData, qacc_c: wp.array(dtype=float)):
    """Store the new force of compact row c; returns |change|. Matrix-free worlds update z = Y f."""
    df = f - rd.cforce[b.r0 + c]
    rd.cforce[b.r0 + c] = f
    if b.dense == 0 and df != 0.0:
        row_axpy(b.r0 + c, df, rm, rd, qacc_c)
    return wp.abs(df)


@wp.func(inline=True)
def _dense_residual(c: int, b: WorldBlock, rd: RowData):
    """Gradient (A f + R f + a0 - a_ref)_c of the dual on the dense block; four partial sums keep the float
    adds independent."""
    k = b.k
    r0 = b.r0
    row = b.moff + c * k
    s0 = rd.bias[r0 + c] + rd.reg[r0 + c] * rd.cforce[r0 + c]
    s1 = float(0.0)
    s2 = float(0.0)
    s3 = float(0.0)
    j = int(0)
    while j + 4 <= k:
        s0 += rd.dense[row + j] * rd.cforce[r0 + j]
        s1 += rd.dense[row + j + 1] * rd.cforce[r0 + j + 1]
        s2 += rd.dense[row + j + 2] * rd.cforce[r0 + j + 2]
        s3 += rd.dense[row + j + 3] * rd.cforce[r0 + j + 3]
        j += 4
    while j < k:
        s0 += rd.dense[row + j] * rd.cforce[r0 + j]
        j += 1
    return (s0 + s1) + (s2 + s3)


@wp.func(inline=True)
def _subspace_step(b: WorldBlock, rd: RowData):
    """Subspace minimization (PGS-SM): with the rows at a bound held there, take the exact Newton step
    (A + R)_FF d = -g_F on the free rows F (strictly inside their bounds) by a dense Cholesky in
    ``scratch``, then clamp to the bounds."""
    k = b.k
    r0 = b.r0
    moff = b.moff
    m = int(0)
    for c in range(k):
        f = rd.cforce[r0 + c]
        if f > rd.lo[r0 + c] and f < rd.hi[r0 + c]:
            rd.free[r0 + m] = c
            m += 1
    if m == 0:
        return
    for p in range(m):
        cp = rd.free[r0 + p]
        rd.step[r0 + p] = -_dense_residual(cp, b, rd)
        for q in range(p + 1):
            v = rd.dense[moff + cp * k + rd.free[r0 + q]]
            if q == p:
                v += rd.reg[r0 + cp]
            rd.scratch[moff + p * m + q] = v
    dense_cholesky_solve(rd.scratch, moff, m, rd.step, r0, rd.step, r0, 0, 1)
    for p in range(m):
        c = rd.free[r0 + p]
        rd.cforce[r0 + c] = wp.clamp(rd.cforce[r0 + c] + rd.step[r0 + p], rd.lo[r0 + c], rd.hi[r0 + c])


@wp.func(inline=True)
def pgs_dense_box(b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Projected Gauss-Seidel on the world's dense k x k block when every row has box bounds (pyramidal
    cones, limits, friction, equalities), with a subspace-minimization step after every sweep where
    ``rm.subspace`` is set. Stops after a sweep whose total |force change| is at most ``tolerance`` times
    the total |force|."""
    r0 = b.r0
    for _it in range(inp.iterations):
        change = float(0.0)
        scale = float(0.0)
        for c in range(b.k):
            f_old = rd.cforce[r0 + c]
            f = wp.clamp(f_old - _dense_residual(c, b, rd) * rd.inv[r0 + c], rd.lo[r0 + c], rd.hi[r0 + c])
            rd.cforce[r0 + c] = f
            change += wp.abs(f - f_old)
            scale += wp.abs(f)
        if change <= inp.tolerance * scale:
            return
        if rm.subspace != 0:
            _subspace_step(b, rd)


@wp.func(inline=True)
def _cone_rows(c: int, acc: wp.vec2, b: WorldBlock, rm: RowModel, rd: RowData, qacc_c: wp.array(dtype=float)):
    """Gauss-Seidel step of the elliptic contact whose normal is compact row c: the normal row, then both
    tangents projected onto the friction disc |f_t| <= mu f_n. Returns ``acc`` = (total |force change|,
    total |force|) with the contact's added."""
    r0 = b.r0
    fn = wp.max(rd.cforce[r0 + c] - residual(c, b, rm, rd, qacc_c) * rd.inv[r0 + c], 0.0)
    change = acc[0]
    change += set_force(c, fn, b, rm, rd, qacc_c)
    f1 = rd.cforce[r0 + c + 1] - residual(c + 1, b, rm, rd, qacc_c) * rd.inv[r0 + c + 1]
    f2 = rd.cforce[r0 + c + 2] - residual(c + 2, b, rm, rd, qacc_c) * rd.inv[r0 + c + 2]
    norm = wp.sqrt(f1 * f1 + f2 * f2)
    limit = rd.cone_mu[r0 + c] * fn
    if norm > limit:
        f1 = f1 * limit / wp.max(norm, 1.0e-20)
        f2 = f2 * limit / wp.max(norm, 1.0e-20)
    change += set_force(c + 1, f1, b, rm, rd, qacc_c)
    change += set_force(c + 2, f2, b, rm, rd, qacc_c)
    scale = acc[1]
    scale += wp.abs(fn) + wp.abs(f1) + wp.abs(f2)
    return wp.vec2(change, scale)


@wp.func(inline=True)
def _sweep(b: WorldBlock, rm: RowModel, rd: RowData, qacc_c: wp.array(dtype=float)):
    """One projected Gauss-Seidel sweep over the world's k rows in order (dense or matrix-free); returns
    (total |force change|, total |force|)."""
    r0 = b.r0
    acc = wp.vec2(0.0)
    c = int(0)
    while c < b.k:
        if (rd.cone[r0 + c] & CONE) != 0:
            acc = _cone_rows(c, acc, b, rm, rd, qacc_c)
            c += 3
            continue
        f = wp.clamp(rd.cforce[r0 + c] - residual(c, b, rm, rd, qacc_c) * rd.inv[r0 + c], rd.lo[r0 + c], rd.hi[r0 + c])
        change = acc[0]
        change += set_force(c, f, b, rm, rd, qacc_c)
        scale = acc[1]
        scale += wp.abs(f)
        acc = wp.vec2(change, scale)
        c += 1
    return acc


@wp.func(inline=True)
def pgs_solve(b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs, qacc_c: wp.array(dtype=float)):
    """Steps 4-5 by PGS for the world's k active rows (lane 0): the dense block where it fits (else the
    matrix-free form, warm-started z = Y f in ``qacc_c``), sweeps until the tolerance, the forces, and
    J^T f accumulated into ``qacc_c`` (u of the final L^-1 solve)."""
    r0 = b.r0
    if b.dense != 0:
        dense_block(b, rm, rd)
    else:
        for c in range(b.k):  # warm start of the matrix-free form
            row_axpy(r0 + c, rd.cforce[r0 + c], rm, rd, qacc_c)
    if b.dense != 0 and rm.cone_rows != 3:
        pgs_dense_box(b, rm, rd, inp)
    else:
        for _it in range(inp.iterations):
            acc = _sweep(b, rm, rd, qacc_c)
            if acc[0] <= inp.tolerance * acc[1]:
                break
    for c in range(b.k):
        f = rd.cforce[r0 + c]
        rd.force[rd.act_list[r0 + c]] = f
        if b.dense != 0 and f != 0.0:
            row_axpy(r0 + c, f, rm, rd, qacc_c)
