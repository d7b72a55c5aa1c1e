"""Per-island constraint assembly and solve, one thread per island (world) in a single launch.

For its island a thread (1) switches every row on or off and fills its Jacobian and soft-constraint
terms (contacts, joint limits and joint friction here; equality rows come pre-filled from
:mod:`.constraint`; a pyramidal contact's four edges come from its n, t1, t2 basis rows), (2) lists the active rows compactly, (3) computes Y = L^-T J^T (M = L^T L), the bias a0 - a_ref,
the regularizer R and 1 / (A_ii + R) of each active row, (4) builds the dense Delassus matrix
A = J M^-1 J^T of the active rows when it fits the island's block (else it keeps the matrix-free form),
(5) runs projected Gauss-Seidel on MuJoCo's constraint dual (see :mod:`.solver` for the problem) and
(6) writes qacc_constraint = M^-1 J^T f = L^-1 (Y f) of the island's DOFs. Keeping all of it in one
thread keeps an island's rows in that core's cache and avoids per-row launches, whose per-thread cost dominated on CPU.

Compact buffers (``act_list``, ``bias``, ``reg``, ``inv``, ``cforce``) use the island's row range
[r0, r1): compact row c of island w lives at r0 + c. Row forces persist per row (``force``) as the
next substep's warm start.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from .constraint import (ROW_CONTACT, ROW_FRICTION, ROW_LIMIT, _point_row, contact_direction, impedance,
                         vec5)
from .spatial import ltl_solve, ltl_solve_t

__all__ = ["IslandSolver", "DENSE_CAP"]

wp.set_module_options({"enable_backward": False})

vec8 = wp.types.vector(8, wp.float32)
DENSE_CAP = 48  # most active rows of one island kept as a dense Delassus block (48^2 floats)
_CONTACT = wp.constant(ROW_CONTACT)
_LIMIT = wp.constant(ROW_LIMIT)
_FRICTION = wp.constant(ROW_FRICTION)


@wp.struct
class RowModel:
    """Static row tables (see :class:`.constraint.Rows`) and per-island ranges."""

    island_start: wp.array(dtype=int)
    island_art_start: wp.array(dtype=int)   # (islands + 1,) CSR into island_arts
    island_arts: wp.array(dtype=int)        # articulations of each island
    dense_start: wp.array(dtype=int)        # (islands,) offset of each island's dense block
    dense_cap: wp.array(dtype=int)          # (islands,) most active rows its block holds
    kind: wp.array(dtype=int)
    owner: wp.array(dtype=int)
    sub: wp.array(dtype=int)
    art: wp.array(dtype=wp.vec2i)
    slot_nrows: wp.array(dtype=int)
    width: int
    cone_rows: int
    limit_solref: wp.vec2
    limit_solimp: vec5
    friction_solref: wp.vec2
    friction_solimp: vec5
    rest_speed: float
    subspace: int                            # 1: PGS with subspace minimization on dense blocks
    body_invweight: wp.array(dtype=wp.vec2)
    dof_invweight: wp.array(dtype=float)


@wp.struct
class RowData:
    """Per-substep row buffers: per row (indexed by row) and compact (indexed by r0 + c)."""

    active: wp.array(dtype=int)
    jac: wp.array(dtype=float)
    minv_jac: wp.array(dtype=float)
    minv8: wp.array(dtype=vec8)             # minv_jac seen as whole chunks of 8 (rows.width is a multiple of 8)
    pos: wp.array(dtype=float)
    solref: wp.array(dtype=wp.vec2)
    solimp: wp.array(dtype=vec5)
    lo: wp.array(dtype=float)
    hi: wp.array(dtype=float)
    force: wp.array(dtype=float)
    diag_approx: wp.array(dtype=float)
    act_list: wp.array(dtype=int)
    bias: wp.array(dtype=float)
    reg: wp.array(dtype=float)
    inv: wp.array(dtype=float)
    cforce: wp.array(dtype=float)
    dense: wp.array(dtype=float)
    free: wp.array(dtype=int)               # compact: free rows of a subspace step
    step: wp.array(dtype=float)             # compact: its Newton step
    scratch: wp.array(dtype=float)          # like dense: its Cholesky factor
    basis: wp.array(dtype=float)            # (islands * 3 * 2 * width,) Y of one contact's n, t1, t2


@wp.struct
class ContactTables:
    """Pair parameters and this substep's contact slots (see :class:`.collision_driver.Contacts`)."""

    slot_pair: wp.array(dtype=int)
    pair_body: wp.array(dtype=wp.vec2i)
    pair_mu: wp.array(dtype=float)
    pair_margin: wp.array(dtype=float)
    pair_gap: wp.array(dtype=float)
    pair_condim: wp.array(dtype=int)
    pair_solref: wp.array(dtype=wp.vec2)
    pair_solimp: wp.array(dtype=vec5)
    active: wp.array(dtype=int)
    point: wp.array(dtype=wp.vec3)
    normal: wp.array(dtype=wp.vec3)
    dist: wp.array(dtype=float)
    tangent: wp.array(dtype=wp.vec3)


@wp.struct
class TreeTables:
    """DOF tree (see :class:`.layout.TreeLayout`) and the model's per-DOF limit / friction data."""

    body_art: wp.array(dtype=int)
    body_dof_last: wp.array(dtype=int)
    dof_parent: wp.array(dtype=int)
    dof_art: wp.array(dtype=int)
    dof_coord: wp.array(dtype=int)
    art_dof_start: wp.array(dtype=int)
    art_mat_start: wp.array(dtype=int)
    limit_lower: wp.array(dtype=float)
    limit_upper: wp.array(dtype=float)
    friction_static: wp.array(dtype=float)
    friction_dynamic: wp.array(dtype=float)


@wp.func
def _contact_row(i: int, rm: RowModel, rd: RowData, cm: ContactTables, tm: TreeTables,
                 art_ref: wp.array(dtype=wp.vec3), cdof: wp.array(dtype=wp.spatial_vector)):
    """Fill contact row i (a pyramid edge, the normal or an elliptic tangent); returns 1 when active."""
    slot = rm.owner[i]
    if cm.active[slot] == 0:
        rd.active[i] = 0
        rd.force[i] = 0.0
        return 0
    p = cm.slot_pair[slot]
    nrows = rm.cone_rows
    if cm.pair_condim[p] == 1:
        nrows = 1
    s = rm.sub[i]
    direction = contact_direction(cm.normal[slot], cm.tangent[slot], s, nrows, cm.pair_mu[p])
    width = rm.width
    base = i * 2 * width
    for k in range(2 * width):
        rd.jac[base + k] = 0.0
    bodies = cm.pair_body[p]
    pt = cm.point[slot]
    a = rm.art[i]
    tran = float(0.0)
    for side in range(2):
        b = bodies[side]
        if b >= 0:
            sign = 1.0
            if side == 0:
                sign = -1.0
            _point_row(b, sign, tm.body_art[b], pt, direction, a, tm.body_dof_last, tm.dof_parent, tm.art_dof_start,
                       art_ref, cdof, base, width, rd.jac)
            tran += rm.body_invweight[b][0]
    pos = cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])
    # MuJoCo's diagApprox from the bodies' inverse weights at the initial pose; pyramid edges 2 (1 + mu^2)x.
    if nrows == 4:
        mu = cm.pair_mu[p]
        tran = tran * 2.0 * (1.0 + mu * mu)
    lo = float(0.0)
    if nrows == 3 and s > 0:
        pos = 0.0
        lo = -1.0e30
    rd.diag_approx[i] = tran
    rd.active[i] = 1
    rd.pos[i] = pos
    rd.solref[i] = cm.pair_solref[p]
    rd.solimp[i] = cm.pair_solimp[p]
    rd.lo[i] = lo
    rd.hi[i] = 1.0e30
    return 1


@wp.func
def _dof_row(i: int, ci: int, kind: int, dt: float, rm: RowModel, rd: RowData, tm: TreeTables,
             joint_q: wp.array(dtype=float), joint_qd: wp.array(dtype=float), chol: wp.array(dtype=float),
             qacc_smooth: wp.array(dtype=float)):
    """Fill and finish joint-limit or joint-friction row i (seed 001 friction) at compact index ci; returns 1
    when active. J = sign e_d, so Y = sign L^-T e_d is nonzero only on d's path, a0 and v are entries."""
    d = rm.owner[i]
    on = int(1)
    sign = 1.0
    if kind == _LIMIT:
        q = joint_q[tm.dof_coord[d]]
        pos = q - tm.limit_lower[d]
        upper = tm.limit_upper[d] - q
        if upper < pos:
            pos = upper
            sign = -1.0
        if pos >= 0.0:
            on = 0
        rd.pos[i] = pos
        rd.solref[i] = rm.limit_solref
        rd.solimp[i] = rm.limit_solimp
        rd.lo[i] = 0.0
        rd.hi[i] = 1.0e30
    else:
        # Static effort holds a DOF at rest, the dynamic effort resists a moving one.
        bound = tm.friction_dynamic[d]
        if wp.abs(joint_qd[d]) < rm.rest_speed:
            bound = tm.friction_static[d]
        if bound <= 0.0:
            on = 0
        rd.pos[i] = 0.0
        rd.solref[i] = rm.friction_solref
        rd.solimp[i] = rm.friction_solimp
        rd.lo[i] = -bound
        rd.hi[i] = bound
    rd.active[i] = on
    rd.diag_approx[i] = rm.dof_invweight[d]
    if on == 0:
        rd.force[i] = 0.0
        return 0
    ai = tm.dof_art[d]
    d0 = tm.art_dof_start[ai]
    n = tm.art_dof_start[ai + 1] - d0
    off = i * 2 * rm.width  # side 0
    for kk in range(n):
        rd.minv_jac[off + kk] = 0.0
    rd.minv_jac[off + d - d0] = sign
    ltl_solve_t(chol, tm.art_mat_start[ai], n, d0, tm.dof_parent, rd.minv_jac, off)
    diag = float(0.0)
    for kk in range(d - d0 + 1):
        y = rd.minv_jac[off + kk]
        diag += y * y
    _finish_soft(i, ci, diag, sign * qacc_smooth[d], sign * joint_qd[d], dt, rd)
    return 1


@wp.func
def _soft(sr: wp.vec2, si: vec5, pos: float, dt: float):
    """(impedance d(r), b, k) of a row with solref ``sr`` and solimp ``si`` at position error ``pos``."""
    imp = impedance(si, pos)
    dmax = wp.clamp(si[1], 1.0e-4, 0.9999)
    b = float(0.0)
    k = float(0.0)
    if sr[0] > 0.0:
        tc = wp.max(sr[0], 2.0 * dt)
        b = 2.0 / (dmax * tc)
        k = imp / (dmax * dmax * tc * tc * sr[1] * sr[1])
    else:
        b = -sr[1] / dmax
        k = -sr[0] * imp / (dmax * dmax)
    return wp.vec3(imp, b, k)


@wp.func
def _finish_row(i: int, ci: int, dt: float, rm: RowModel, rd: RowData, tm: TreeTables, chol: wp.array(dtype=float),
                qacc_smooth: wp.array(dtype=float), joint_qd: wp.array(dtype=float)):
    """Y = L^-T J^T (into ``minv_jac``; M = L^T L, so A = Y^T Y), A_ii, a0 = J qacc_smooth, v = J qd and
    the soft-constraint terms of active row i, stored at compact index ci (MuJoCo computation: "Soft
    constraints"; solref "refsafe" clamp tc >= 2 dt)."""
    width = rm.width
    base = i * 2 * width
    a = rm.art[i]
    diag = float(0.0)
    a0 = float(0.0)
    vel = float(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            n = tm.art_dof_start[ai + 1] - d0
            off = base + side * width
            for kk in range(n):
                rd.minv_jac[off + kk] = rd.jac[off + kk]
            ltl_solve_t(chol, tm.art_mat_start[ai], n, d0, tm.dof_parent, rd.minv_jac, off)
            for kk in range(n):
                j = rd.jac[off + kk]
                y = rd.minv_jac[off + kk]
                diag += y * y
                a0 += j * qacc_smooth[d0 + kk]
                vel += j * joint_qd[d0 + kk]
    _finish_soft(i, ci, diag, a0, vel, dt, rd)


@wp.func
def _finish_soft(i: int, ci: int, diag: float, a0: float, vel: float, dt: float, rd: RowData):
    """Soft-constraint terms of row i at compact index ci from A_ii, a0 = J qacc_smooth and v = J qd."""
    pos = rd.pos[i]
    soft = _soft(rd.solref[i], rd.solimp[i], pos, dt)
    imp = soft[0]
    # R from MuJoCo's diagApprox (inverse weights at the initial pose), the exact A_ii when absent.
    approx = rd.diag_approx[i]
    if approx <= 0.0:
        approx = diag
    reg = wp.max((1.0 - imp) / imp * approx, 1.0e-9)
    rd.bias[ci] = a0 + soft[1] * vel + soft[2] * pos
    rd.reg[ci] = reg
    rd.inv[ci] = 1.0 / (diag + reg)
    rd.cforce[ci] = rd.force[i]


@wp.func
def _contact_pyramid(i: int, ci: int, w: int, dt: float, rm: RowModel, rd: RowData, cm: ContactTables,
                     tm: TreeTables, art_ref: wp.array(dtype=wp.vec3), cdof: wp.array(dtype=wp.spatial_vector),
                     chol: wp.array(dtype=float), qacc_smooth: wp.array(dtype=float), joint_qd: wp.array(dtype=float)):
    """Rows i .. i + 3 (compact ci .. ci + 3) of an active pyramidal contact, the edges n +- mu t1, n +- mu t2,
    formed from the basis rows J_n, J_t1, J_t2: one walk up each body's DOF path gives the three basis
    Jacobians, three L^-T solves give their Y (in the island's ``basis`` scratch) and the edges' Y, a0 and
    v are combinations of the basis ones (all linear in the direction). The edges share pos, impedance and
    R (MuJoCo's diagApprox is the same for the four edges). Edge rows keep only what the solve reads."""
    slot = rm.owner[i]
    p = cm.slot_pair[slot]
    n = cm.normal[slot]
    t1 = cm.tangent[slot]
    t2 = wp.cross(n, t1)
    mu = cm.pair_mu[p]
    width = rm.width
    bb = w * 6 * width
    a = rm.art[i]
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            for t in range(3):
                off = bb + t * 2 * width + side * width
                for kk in range(tm.art_dof_start[ai + 1] - tm.art_dof_start[ai]):
                    rd.basis[off + kk] = 0.0
    bodies = cm.pair_body[p]
    pt = cm.point[slot]
    tran = float(0.0)
    for bside in range(2):
        b = bodies[bside]
        if b >= 0:
            tran += rm.body_invweight[b][0]
            ba = tm.body_art[b]
            if ba >= 0:
                sign = 1.0
                if bside == 0:
                    sign = -1.0
                jside = int(0)
                if a[1] == ba:
                    jside = 1
                off = bb + jside * width - tm.art_dof_start[ba]
                lever = pt - art_ref[ba]
                kd = tm.body_dof_last[b]
                while kd >= 0:
                    sk = cdof[kd]
                    v = sign * (wp.spatial_top(sk) + wp.cross(wp.spatial_bottom(sk), lever))
                    rd.basis[off + kd] = rd.basis[off + kd] + wp.dot(n, v)
                    rd.basis[off + 2 * width + kd] = rd.basis[off + 2 * width + kd] + wp.dot(t1, v)
                    rd.basis[off + 4 * width + kd] = rd.basis[off + 4 * width + kd] + wp.dot(t2, v)
                    kd = tm.dof_parent[kd]
    a0 = wp.vec3(0.0)
    vel = wp.vec3(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            na = tm.art_dof_start[ai + 1] - d0
            for t in range(3):
                off = bb + t * 2 * width + side * width
                sa = float(0.0)
                sv = float(0.0)
                for kk in range(na):
                    j = rd.basis[off + kk]
                    sa += j * qacc_smooth[d0 + kk]
                    sv += j * joint_qd[d0 + kk]
                a0[t] = a0[t] + sa
                vel[t] = vel[t] + sv
                ltl_solve_t(chol, tm.art_mat_start[ai], na, d0, tm.dof_parent, rd.basis, off)
    pos = cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])
    soft = _soft(cm.pair_solref[p], cm.pair_solimp[p], pos, dt)
    imp = soft[0]
    approx = tran * 2.0 * (1.0 + mu * mu)
    for e in range(4):
        t = 1 + e / 2
        c = mu
        if e % 2 == 1:
            c = -mu
        row = i + e
        diag = float(0.0)
        for side in range(2):
            ai = a[side]
            if ai >= 0:
                on = bb + side * width
                ot = bb + t * 2 * width + side * width
                orow = row * 2 * width + side * width
                d1 = float(0.0)
                for kk in range(tm.art_dof_start[ai + 1] - tm.art_dof_start[ai]):
                    y = rd.basis[on + kk] + c * rd.basis[ot + kk]
                    rd.minv_jac[orow + kk] = y
                    if kk % 2 == 0:
                        diag += y * y
                    else:
                        d1 += y * y
                diag += d1
        ap = approx
        if ap <= 0.0:
            ap = diag
        reg = wp.max((1.0 - imp) / imp * ap, 1.0e-9)
        cc = ci + e
        rd.active[row] = 1
        rd.lo[row] = 0.0
        rd.hi[row] = 1.0e30
        rd.act_list[cc] = row
        rd.bias[cc] = (a0[0] + c * a0[t]) + soft[1] * (vel[0] + c * vel[t]) + soft[2] * pos
        rd.reg[cc] = reg
        rd.inv[cc] = 1.0 / (diag + reg)
        rd.cforce[cc] = rd.force[row]


@wp.func
def _dot8(a: vec8, b: vec8):
    """a . b as a sum tree (independent float adds)."""
    return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) + (
        (a[4] * b[4] + a[5] * b[5]) + (a[6] * b[6] + a[7] * b[7]))


@wp.func
def _side_dot(i: int, j: int, rm: RowModel, rd: RowData, tm: TreeTables):
    """A_ij = Y_i . Y_j (= J_i M^-1 J_j^T), summed over the articulations the two rows share, in chunks of
    8 floats (a side's padding past its articulation's DOFs is zero)."""
    ch = rm.width / 8
    ai = rm.art[i]
    aj = rm.art[j]
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


@wp.func
def _row_dot(i: int, rm: RowModel, rd: RowData, tm: TreeTables, x: wp.array(dtype=float)):
    """Y_i . z over the row's articulations (matrix-free residual; z = Y f)."""
    a = rm.art[i]
    s = float(0.0)
    base = i * 2 * rm.width
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            for k in range(tm.art_dof_start[ai + 1] - d0):
                s += rd.minv_jac[base + side * rm.width + k] * x[d0 + k]
    return s


@wp.func
def _row_axpy(i: int, scale: float, rm: RowModel, rd: RowData, tm: TreeTables, x: wp.array(dtype=float)):
    """x += scale Y_i."""
    a = rm.art[i]
    base = i * 2 * rm.width
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            for k in range(tm.art_dof_start[ai + 1] - d0):
                x[d0 + k] = x[d0 + k] + scale * rd.minv_jac[base + side * rm.width + k]


@wp.func
def _residual(c: int, r0: int, k: int, dense: int, moff: int, rm: RowModel, rd: RowData, tm: TreeTables,
              qacc_c: wp.array(dtype=float)):
    """Gradient of the dual at compact row c: a0 - a_ref + (A f)_c + R_c f_c."""
    g = rd.bias[r0 + c] + rd.reg[r0 + c] * rd.cforce[r0 + c]
    if dense != 0:
        row = moff + c * k
        for j in range(k):
            g += rd.dense[row + j] * rd.cforce[r0 + j]
    else:
        g += _row_dot(rd.act_list[r0 + c], rm, rd, tm, qacc_c)
    return g


@wp.func
def _set_force(c: int, r0: int, f: float, dense: int, rm: RowModel, rd: RowData, tm: TreeTables,
               qacc_c: wp.array(dtype=float)):
    """Store the new force of compact row c; returns |change|. Matrix-free islands update z = Y f."""
    df = f - rd.cforce[r0 + c]
    rd.cforce[r0 + c] = f
    if dense == 0 and df != 0.0:
        _row_axpy(rd.act_list[r0 + c], df, rm, rd, tm, qacc_c)
    return wp.abs(df)


@wp.func
def _dense_residual(c: int, k: int, r0: int, moff: int, mat: wp.array(dtype=float), bias: wp.array(dtype=float),
                    reg: wp.array(dtype=float), force: wp.array(dtype=float)):
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


@wp.func
def _subspace_step(k: int, r0: int, moff: int, mat: wp.array(dtype=float), bias: wp.array(dtype=float),
                   reg: wp.array(dtype=float), act_list: wp.array(dtype=int), lo: wp.array(dtype=float),
                   hi: wp.array(dtype=float), force: wp.array(dtype=float), free: wp.array(dtype=int),
                   step: wp.array(dtype=float), scratch: wp.array(dtype=float)):
    """Subspace minimization (PGS-SM): with the rows at a bound held there, take the exact Newton step
    (A + R)_FF d = -g_F on the free rows F (strictly inside their bounds) by a dense Cholesky in
    ``scratch``, then clamp to the bounds."""
    m = int(0)
    for c in range(k):
        i = act_list[r0 + c]
        f = force[r0 + c]
        if f > lo[i] and f < hi[i]:
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
    # In-place dense Cholesky S = L L^T (lower, row-major m x m), then the two triangular solves.
    for j in range(m):
        sj = scratch[moff + j * m + j]
        for t in range(j):
            sj -= scratch[moff + j * m + t] * scratch[moff + j * m + t]
        d = wp.sqrt(wp.max(sj, 1.0e-20))
        scratch[moff + j * m + j] = d
        for i in range(j + 1, m):
            v = scratch[moff + i * m + j]
            for t in range(j):
                v -= scratch[moff + i * m + t] * scratch[moff + j * m + t]
            scratch[moff + i * m + j] = v / d
    for i in range(m):
        v = step[r0 + i]
        for t in range(i):
            v -= scratch[moff + i * m + t] * step[r0 + t]
        step[r0 + i] = v / scratch[moff + i * m + i]
    for ii in range(m):
        i = m - 1 - ii
        v = step[r0 + i]
        for t in range(i + 1, m):
            v -= scratch[moff + t * m + i] * step[r0 + t]
        step[r0 + i] = v / scratch[moff + i * m + i]
    for p in range(m):
        c = free[r0 + p]
        i = act_list[r0 + c]
        force[r0 + c] = wp.clamp(force[r0 + c] + step[r0 + p], lo[i], hi[i])


@wp.func
def _pgs_dense_box(k: int, r0: int, moff: int, iterations: int, tolerance: float, mat: wp.array(dtype=float),
                   bias: wp.array(dtype=float), reg: wp.array(dtype=float), inv: wp.array(dtype=float),
                   act_list: wp.array(dtype=int), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
                   force: wp.array(dtype=float), subspace: int, free: wp.array(dtype=int),
                   step: wp.array(dtype=float), scratch: wp.array(dtype=float)):
    """Projected Gauss-Seidel on the dense k x k block at ``moff`` when every row has box bounds
    (pyramidal cones, limits, friction, equalities), with a subspace-minimization step after every
    sweep when ``subspace`` is set. Stops after a sweep whose total |force change| is at most
    ``tolerance`` times the total |force|."""
    for _it in range(iterations):
        change = float(0.0)
        scale = float(0.0)
        for c in range(k):
            i = act_list[r0 + c]
            f_old = force[r0 + c]
            f = wp.clamp(f_old - _dense_residual(c, k, r0, moff, mat, bias, reg, force) * inv[r0 + c], lo[i], hi[i])
            force[r0 + c] = f
            change += wp.abs(f - f_old)
            scale += wp.abs(f)
        if change <= tolerance * scale:
            return
        if subspace != 0:
            _subspace_step(k, r0, moff, mat, bias, reg, act_list, lo, hi, force, free, step, scratch)


@wp.func
def _row_mu(cm: ContactTables, rm: RowModel, i: int):
    """Friction coefficient of contact row i's pair."""
    return cm.pair_mu[cm.slot_pair[rm.owner[i]]]


@wp.kernel
def _island_kernel(
    # Model:
    rm: RowModel, cm: ContactTables, tm: TreeTables, dt: float, iterations: int, tolerance: float,
    # Data in:
    art_ref: wp.array(dtype=wp.vec3), cdof: wp.array(dtype=wp.spatial_vector), chol: wp.array(dtype=float),
    qacc_smooth: wp.array(dtype=float), joint_q: wp.array(dtype=float), joint_qd: wp.array(dtype=float),
    # Data out:
    rd: RowData, qacc_c: wp.array(dtype=float),
):
    """One thread per island w: fill and list its active rows, build its dense Delassus block (or keep
    the matrix-free form), solve by PGS (with subspace minimization on dense pyramidal blocks) and
    write qacc_constraint of its articulations (steps 1-6 of the module docstring)."""
    w = wp.tid()
    for ia in range(rm.island_art_start[w], rm.island_art_start[w + 1]):
        a = rm.island_arts[ia]
        for d in range(tm.art_dof_start[a], tm.art_dof_start[a + 1]):
            qacc_c[d] = 0.0
    r0 = rm.island_start[w]
    r1 = rm.island_start[w + 1]
    k = int(0)
    for i in range(r0, r1):
        kind = rm.kind[i]
        on = int(0)
        if kind == _CONTACT:
            slot = rm.owner[i]
            if cm.active[slot] == 0:
                rd.active[i] = 0
                rd.force[i] = 0.0
                continue
            if rm.slot_nrows[slot] == 4:
                if rm.sub[i] == 0:  # the whole pyramid at its first row
                    _contact_pyramid(i, r0 + k, w, dt, rm, rd, cm, tm, art_ref, cdof, chol, qacc_smooth, joint_qd)
                    k += 4
                continue
            on = _contact_row(i, rm, rd, cm, tm, art_ref, cdof)
        elif kind == _LIMIT or kind == _FRICTION:
            if _dof_row(i, r0 + k, kind, dt, rm, rd, tm, joint_q, joint_qd, chol, qacc_smooth) != 0:
                rd.act_list[r0 + k] = i
                k += 1
            continue
        else:
            on = rd.active[i]  # equality rows: filled by constraint.make_rows
        if on != 0:
            rd.act_list[r0 + k] = i
            _finish_row(i, r0 + k, dt, rm, rd, tm, chol, qacc_smooth, joint_qd)
            k += 1
    if k == 0:
        return
    dense = int(0)
    moff = rm.dense_start[w]
    if k <= rm.dense_cap[w]:
        dense = 1
        for c in range(k):
            i = rd.act_list[r0 + c]
            for e in range(c, k):
                v = _side_dot(i, rd.act_list[r0 + e], rm, rd, tm)
                rd.dense[moff + c * k + e] = v
                rd.dense[moff + e * k + c] = v
    else:
        for c in range(k):  # warm start of the matrix-free form
            _row_axpy(rd.act_list[r0 + c], rd.cforce[r0 + c], rm, rd, tm, qacc_c)
    if dense != 0 and rm.cone_rows != 3:
        _pgs_dense_box(k, r0, moff, iterations, tolerance, rd.dense, rd.bias, rd.reg, rd.inv, rd.act_list, rd.lo,
                       rd.hi, rd.cforce, rm.subspace, rd.free, rd.step, rd.scratch)
        iterations = 0
    for _it in range(iterations):
        change = float(0.0)
        scale = float(0.0)
        c = int(0)
        while c < k:
            i = rd.act_list[r0 + c]
            if rm.kind[i] == _CONTACT and rm.slot_nrows[rm.owner[i]] == 3:
                # Normal row, then both tangents projected onto the friction disc |f_t| <= mu f_n.
                fn = wp.max(rd.cforce[r0 + c] - _residual(c, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c],
                            0.0)
                change += _set_force(c, r0, fn, dense, rm, rd, tm, qacc_c)
                f1 = rd.cforce[r0 + c + 1] - _residual(c + 1, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c + 1]
                f2 = rd.cforce[r0 + c + 2] - _residual(c + 2, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c + 2]
                norm = wp.sqrt(f1 * f1 + f2 * f2)
                limit = _row_mu(cm, rm, i) * fn
                if norm > limit:
                    f1 = f1 * limit / wp.max(norm, 1.0e-20)
                    f2 = f2 * limit / wp.max(norm, 1.0e-20)
                change += _set_force(c + 1, r0, f1, dense, rm, rd, tm, qacc_c)
                change += _set_force(c + 2, r0, f2, dense, rm, rd, tm, qacc_c)
                scale += wp.abs(fn) + wp.abs(f1) + wp.abs(f2)
                c += 3
                continue
            f = wp.clamp(rd.cforce[r0 + c] - _residual(c, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c],
                         rd.lo[i], rd.hi[i])
            change += _set_force(c, r0, f, dense, rm, rd, tm, qacc_c)
            scale += wp.abs(f)
            c += 1
        if change <= tolerance * scale:
            break
    for c in range(k):
        i = rd.act_list[r0 + c]
        f = rd.cforce[r0 + c]
        rd.force[i] = f
        if dense != 0 and f != 0.0:
            _row_axpy(i, f, rm, rd, tm, qacc_c)
    # qacc_constraint = M^-1 J^T f = L^-1 (Y f).
    for ia in range(rm.island_art_start[w], rm.island_art_start[w + 1]):
        a = rm.island_arts[ia]
        d0 = tm.art_dof_start[a]
        ltl_solve(chol, tm.art_mat_start[a], tm.art_dof_start[a + 1] - d0, d0, tm.dof_parent, qacc_c, d0)


class IslandSolver:
    """Host side of the fused island kernel: builds the structs once, launches per substep."""

    def __init__(self, model, layout, tree, contacts, rows, tolerance: float, subspace: bool):
        dev = model.device
        self.model = model
        self.tolerance = float(tolerance)
        islands = rows.island_count
        starts = rows.island_start.numpy()[: islands + 1] if rows.count else np.zeros(islands + 1, np.int32)
        per = np.diff(starts) if rows.count else np.zeros(islands, np.int64)
        cap = np.minimum(per, DENSE_CAP)
        dense_start = np.concatenate([[0], np.cumsum(cap * cap)])
        arts = np.argsort(layout.art_island, kind="stable").astype(np.int32)
        art_start = np.searchsorted(layout.art_island[arts], np.arange(islands + 1)).astype(np.int32)
        n = max(rows.count, 1)

        def arr(x, dtype):
            x = np.ascontiguousarray(x)
            return wp.array(x if len(x) else np.zeros(1, x.dtype), dtype=dtype, device=dev)

        rm = RowModel()
        rm.island_start = rows.island_start
        rm.island_art_start = arr(art_start, wp.int32)
        rm.island_arts = arr(arts, wp.int32)
        rm.dense_start = arr(dense_start[:-1].astype(np.int32), wp.int32)
        rm.dense_cap = arr(cap.astype(np.int32), wp.int32)
        rm.kind, rm.owner, rm.sub, rm.art, rm.slot_nrows = rows.kind, rows.owner, rows.sub, rows.art, rows.slot_nrows
        rm.width = rows.width
        rm.cone_rows = 4 if rows.cone == "pyramidal" else 3
        rm.limit_solref, rm.limit_solimp = rows.limit_solref, rows.limit_solimp
        rm.friction_solref, rm.friction_solimp = rows.friction_solref, rows.friction_solimp
        rm.rest_speed = rows.friction_rest_speed
        rm.subspace = int(bool(subspace))
        rm.body_invweight, rm.dof_invweight = rows.body_invweight, rows.dof_invweight
        rd = RowData()
        rd.minv8 = wp.array(ptr=rows.minv_jac.ptr, dtype=vec8, shape=(rows.minv_jac.shape[0] // 8,), device=dev)
        for name in ("active", "jac", "minv_jac", "pos", "solref", "solimp", "lo", "hi", "force", "diag_approx"):
            setattr(rd, name, getattr(rows, name))
        rows.act_list = wp.zeros(n, dtype=wp.int32, device=dev)
        for name in ("bias", "reg", "inv", "cforce"):
            setattr(rows, name, wp.zeros(n, dtype=wp.float32, device=dev))
        rows.dense = wp.zeros(max(int(dense_start[-1]), 1), dtype=wp.float32, device=dev)
        rows.free = wp.zeros(n, dtype=wp.int32, device=dev)
        rows.step = wp.zeros(n, dtype=wp.float32, device=dev)
        rows.scratch = wp.zeros(max(int(dense_start[-1]), 1) if subspace else 1, dtype=wp.float32, device=dev)
        rows.basis = wp.zeros(max(islands * 6 * rows.width, 1), dtype=wp.float32, device=dev)
        for name in ("act_list", "bias", "reg", "inv", "cforce", "dense", "free", "step", "scratch", "basis"):
            setattr(rd, name, getattr(rows, name))
        cm = ContactTables()
        for name in ("slot_pair", "pair_body", "pair_mu", "pair_margin", "pair_gap", "pair_condim", "pair_solref",
                     "pair_solimp", "active", "point", "normal", "dist", "tangent"):
            setattr(cm, name, getattr(contacts, name))
        tm = TreeTables()
        for name in ("body_art", "body_dof_last", "dof_parent", "dof_art", "dof_coord", "art_dof_start",
                     "art_mat_start"):
            setattr(tm, name, tree[name])
        tm.limit_lower, tm.limit_upper = model.joint_limit_lower, model.joint_limit_upper
        tm.friction_static, tm.friction_dynamic = model.joint_friction, model.joint_friction_dynamic
        self.rm, self.rd, self.cm, self.tm = rm, rd, cm, tm
        self.count = rows.count
        self.islands = islands

    def solve(self, data, joint_q, joint_qd, dt, iterations):
        """Assemble and solve every island; writes ``data.qacc_constraint``."""
        if self.count == 0:
            return
        wp.launch(_island_kernel, dim=self.islands, device=self.model.device, inputs=[
            self.rm, self.cm, self.tm, float(dt), int(iterations), self.tolerance, data.art_ref, data.cdof, data.chol,
            data.qacc_smooth, joint_q, joint_qd], outputs=[self.rd, data.qacc_constraint])
