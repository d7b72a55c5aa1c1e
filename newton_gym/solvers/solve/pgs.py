"""Dense Delassus block and projected Gauss-Seidel of the world solve (:mod:`.world_solve`, steps 4 and 5): row
products A_ij = Y_i . Y_j, the dense block, the dual's residual in dense and matrix-free form, and PGS with
subspace minimization on dense box-bounded blocks. Rows are addressed by their compact index (r0 + c)."""

from __future__ import annotations

import warp as wp

from ..constraint.tables import RowData, RowModel, TreeTables
from ..spatial import dense_cholesky_solve
from ..types import vec8

__all__ = ["dense_block", "row_axpy", "residual", "set_force", "pgs_dense_box"]

wp.set_module_options({"enable_backward": False})


@wp.func(inline=True)
def _dot8(a: vec8, b: vec8):
    """a . b as a sum tree (independent float adds)."""
    return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) + (
        (a[4] * b[4] + a[5] * b[5]) + (a[6] * b[6] + a[7] * b[7])
    )


@wp.func(inline=True)
def _side_dot(i: int, j: int, rm: RowModel, rd: RowData, tm: TreeTables):
    """A_ij = Y_i . Y_j (= J_i M^-1 J_j^T) of compact rows i and j, summed over the articulations the two rows
    share, in chunks of 8 floats (a side's padding past its articulation's DOFs is zero)."""
    ch = rm.width / 8
    ai = rd.art[i]
    aj = rd.art[j]
    s = float(0.0)
    for si in range(2):
        a = ai[si]
        if a >= 0:
            nch = (tm.art_dof_start[a + 1] - tm.art_dof_start[a] + 7) / 8
            for sj in range(2):
                if aj[sj] == a:
                    bi = (i * 2 + si) * ch
                    bj = (j * 2 + sj) * ch
                    for kk in range(nch):
                        s += _dot8(rd.minv8[bi + kk], rd.minv8[bj + kk])
    return s


@wp.func(inline=True)
def dense_block(k: int, r0: int, moff: int, rm: RowModel, rd: RowData, tm: TreeTables):
    """Dense Delassus block A = Y^T Y of the world's k active rows (compact r0 .. r0 + k - 1), row-major
    k x k at ``moff`` in ``rd.dense``; A is symmetric, so each pair is computed once."""
    for c in range(k):
        for e in range(c, k):
            v = _side_dot(r0 + c, r0 + e, rm, rd, tm)
            rd.dense[moff + c * k + e] = v
            rd.dense[moff + e * k + c] = v


@wp.func(inline=True)
def _row_dot(i: int, rm: RowModel, rd: RowData, tm: TreeTables, x: wp.array(dtype=float)):
    """Y_i . z of compact row i over its articulations (matrix-free residual; z = Y f)."""
    a = rd.art[i]
    s = float(0.0)
    base = i * 2 * rm.width
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            for k in range(tm.art_dof_start[ai + 1] - d0):
                s += rd.minv_jac[base + side * rm.width + k] * x[d0 + k]
    return s


@wp.func(inline=True)
def row_axpy(i: int, scale: float, rm: RowModel, rd: RowData, tm: TreeTables, x: wp.array(dtype=float)):
    """x += scale Y_i (compact row i)."""
    a = rd.art[i]
    base = i * 2 * rm.width
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            for k in range(tm.art_dof_start[ai + 1] - d0):
                x[d0 + k] = x[d0 + k] + scale * rd.minv_jac[base + side * rm.width + k]


@wp.func(inline=True)
def residual(
    c: int,
    r0: int,
    k: int,
    dense: int,
    moff: int,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    qacc_c: wp.array(dtype=float),
):
    """Gradient of the dual at compact row c: a0 - a_ref + (A f)_c + R_c f_c."""
    g = rd.bias[r0 + c] + rd.reg[r0 + c] * rd.cforce[r0 + c]
    if dense != 0:
        row = moff + c * k
        for j in range(k):
            g += rd.dense[row + j] * rd.cforce[r0 + j]
    else:
        g += _row_dot(r0 + c, rm, rd, tm, qacc_c)
    return g


@wp.func(inline=True)
def set_force(
    c: int, r0: int, f: float, dense: int, rm: RowModel, rd: RowData, tm: TreeTables, qacc_c: wp.array(dtype=float)
):
    """Store the new force of compact row c; returns |change|. Matrix-free worlds update z = Y f."""
    df = f - rd.cforce[r0 + c]
    rd.cforce[r0 + c] = f
    if dense == 0 and df != 0.0:
        row_axpy(r0 + c, df, rm, rd, tm, qacc_c)
    return wp.abs(df)


@wp.func(inline=True)
def _dense_residual(
    c: int,
    k: int,
    r0: int,
    moff: int,
    mat: wp.array(dtype=float),
    bias: wp.array(dtype=float),
    reg: wp.array(dtype=float),
    force: wp.array(dtype=float),
):
    """Gradient (A f + R f + a0 - a_ref)_c of the dual on the dense block; four partial sums keep the float
    adds independent."""
    row = moff + c * k
    s0 = bias[r0 + c] + reg[r0 + c] * force[r0 + c]
    s1 = float(0.0)
    s2 = float(0.0)
    s3 = float(0.0)
    j = int(0)
    while j + 4 <= k:
        s0 += mat[row + j] * force[r0 + j]
        s1 += mat[row + j + 1] * force[r0 + j + 1]
        s2 += mat[row + j + 2] * force[r0 + j + 2]
        s3 += mat[row + j + 3] * force[r0 + j + 3]
        j += 4
    while j < k:
        s0 += mat[row + j] * force[r0 + j]
        j += 1
    return (s0 + s1) + (s2 + s3)


@wp.func(inline=True)
def _subspace_step(
    k: int,
    r0: int,
    moff: int,
    mat: wp.array(dtype=float),
    bias: wp.array(dtype=float),
    reg: wp.array(dtype=float),
    lo: wp.array(dtype=float),
    hi: wp.array(dtype=float),
    force: wp.array(dtype=float),
    free: wp.array(dtype=int),
    step: wp.array(dtype=float),
    scratch: wp.array(dtype=float),
):
    """Subspace minimization (PGS-SM): with the rows at a bound held there, take the exact Newton step
    (A + R)_FF d = -g_F on the free rows F (strictly inside their bounds) by a dense Cholesky in
    ``scratch``, then clamp to the bounds."""
    m = int(0)
    for c in range(k):
        f = force[r0 + c]
        if f > lo[r0 + c] and f < hi[r0 + c]:
            free[r0 + m] = c
            m += 1
    if m == 0:
        return
    for p in range(m):
        cp = free[r0 + p]
        step[r0 + p] = -_dense_residual(cp, k, r0, moff, mat, bias, reg, force)
        for q in range(p + 1):
            v = mat[moff + cp * k + free[r0 + q]]
            if q == p:
                v += reg[r0 + cp]
            scratch[moff + p * m + q] = v
    dense_cholesky_solve(scratch, moff, m, step, r0, step, r0, 0, 1)
    for p in range(m):
        c = free[r0 + p]
        force[r0 + c] = wp.clamp(force[r0 + c] + step[r0 + p], lo[r0 + c], hi[r0 + c])


@wp.func(inline=True)
def pgs_dense_box(
    k: int,
    r0: int,
    moff: int,
    iterations: int,
    tolerance: float,
    mat: wp.array(dtype=float),
    bias: wp.array(dtype=float),
    reg: wp.array(dtype=float),
    inv: wp.array(dtype=float),
    lo: wp.array(dtype=float),
    hi: wp.array(dtype=float),
    force: wp.array(dtype=float),
    subspace: int,
    free: wp.array(dtype=int),
    step: wp.array(dtype=float),
    scratch: wp.array(dtype=float),
):
    """Projected Gauss-Seidel on the dense k x k block at ``moff`` when every row has box bounds
    (pyramidal cones, limits, friction, equalities), with a subspace-minimization step after every
    sweep when ``subspace`` is set. Stops after a sweep whose total |force change| is at most
    ``tolerance`` times the total |force|."""
    for _it in range(iterations):
        change = float(0.0)
        scale = float(0.0)
        for c in range(k):
            f_old = force[r0 + c]
            f = wp.clamp(
                f_old - _dense_residual(c, k, r0, moff, mat, bias, reg, force) * inv[r0 + c], lo[r0 + c], hi[r0 + c]
            )
            force[r0 + c] = f
            change += wp.abs(f - f_old)
            scale += wp.abs(f)
        if change <= tolerance * scale:
            return
        if subspace != 0:
            _subspace_step(k, r0, moff, mat, bias, reg, lo, hi, force, free, step, scratch)
