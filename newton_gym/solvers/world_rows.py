"""Per-row assembly of the world solve (:mod:`.world_solve`, steps 1 and 3): switch a contact, joint-limit or
joint-friction row on or off, fill its Jacobian, Y = L^-T J^T and its soft-constraint terms at its compact
index."""

from __future__ import annotations

import warp as wp

from .constraint import _point_row, contact_direction, impedance, vec5
from .spatial import ltl_solve_t
from .world_tables import LIMIT, ContactTables, RowData, RowModel, TreeTables

__all__ = ["contact_row", "dof_row_switch", "dof_row_fill", "finish_row", "contact_pyramid"]

wp.set_module_options({"enable_backward": False})


@wp.func
def contact_row(
    i: int,
    rm: RowModel,
    rd: RowData,
    cm: ContactTables,
    tm: TreeTables,
    art_ref: wp.array(dtype=wp.vec3),
    cdof: wp.array(dtype=wp.spatial_vector),
):
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
            _point_row(
                b,
                sign,
                tm.body_art[b],
                pt,
                direction,
                a,
                tm.body_dof_last,
                tm.dof_parent,
                tm.art_dof_start,
                art_ref,
                cdof,
                base,
                width,
                rd.jac,
            )
            tran += rm.body_invweight[b][0]
    pos = cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])
    # MuJoCo's diagApprox from the bodies' inverse weights at the initial pose (pyramid edges: contact_pyramid).
    lo = float(0.0)
    if nrows == 3 and s > 0:
        lo = -1.0e30  # an elliptic tangent: the normal's impedance, no position term (finish_row)
    rd.diag_approx[i] = tran
    rd.active[i] = 1
    rd.pos[i] = pos
    rd.solref[i] = cm.pair_solref[p]
    rd.solimp[i] = cm.pair_solimp[p]
    rd.lo[i] = lo
    rd.hi[i] = 1.0e30
    return 1


@wp.func
def _limit_side(d: int, tm: TreeTables, joint_q: wp.array(dtype=float)):
    """(distance to the nearer limit of DOF d, sign of the row: +1 at the lower limit, -1 at the upper)."""
    q = joint_q[tm.dof_coord[d]]
    pos = q - tm.limit_lower[d]
    upper = tm.limit_upper[d] - q
    sign = 1.0
    if upper < pos:
        pos = upper
        sign = -1.0
    return wp.vec2(pos, sign)


@wp.func
def dof_row_switch(
    i: int,
    kind: int,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Switch joint-limit or joint-friction row i on or off (static friction loss) and store its position,
    solref / solimp and bounds; returns 1 when active (:func:`dof_row_fill` fills it)."""
    d = rm.owner[i]
    on = int(1)
    if kind == LIMIT:
        side = _limit_side(d, tm, joint_q)
        if side[0] >= 0.0:
            on = 0
        rd.pos[i] = side[0]
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
    return on


@wp.func
def dof_row_fill(
    i: int,
    ci: int,
    kind: int,
    dt: float,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    chol: wp.array(dtype=wp.float64),
    qacc_smooth: wp.array(dtype=float),
):
    """Finish active joint-limit or joint-friction row i at compact index ci. J = sign e_d, so
    Y = sign L^-T e_d is nonzero only on d's path, a0 and v are entries."""
    d = rm.owner[i]
    sign = 1.0
    if kind == LIMIT:
        sign = _limit_side(d, tm, joint_q)[1]
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
    _finish_soft(i, ci, diag, sign * qacc_smooth[d], sign * joint_qd[d], dt, 1.0, rd)


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
def finish_row(
    i: int,
    ci: int,
    dt: float,
    stiff: float,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    chol: wp.array(dtype=wp.float64),
    qacc_smooth: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Y = L^-T J^T (into ``minv_jac``; M = L^T L, so A = Y^T Y), A_ii, a0 = J qacc_smooth, v = J qd and
    the soft-constraint terms of active row i, stored at compact index ci (MuJoCo computation: "Soft
    constraints"; solref "refsafe" clamp tc >= 2 dt). ``stiff`` 0 drops the position term of aref (the
    tangents of an elliptic contact, which share the normal's position and impedance)."""
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
    _finish_soft(i, ci, diag, a0, vel, dt, stiff, rd)


@wp.func
def _finish_soft(i: int, ci: int, diag: float, a0: float, vel: float, dt: float, stiff: float, rd: RowData):
    """Soft-constraint terms of row i at compact index ci from A_ii, a0 = J qacc_smooth and v = J qd."""
    pos = rd.pos[i]
    soft = _soft(rd.solref[i], rd.solimp[i], pos, dt)
    imp = soft[0]
    # R from MuJoCo's diagApprox (inverse weights at the initial pose), the exact A_ii when absent.
    approx = rd.diag_approx[i]
    if approx <= 0.0:
        approx = diag
    reg = wp.max((1.0 - imp) / imp * approx, 1.0e-9)
    rd.bias[ci] = a0 + soft[1] * vel + stiff * soft[2] * pos
    rd.reg[ci] = reg
    rd.inv[ci] = 1.0 / (diag + reg)
    rd.cforce[ci] = rd.force[i]


@wp.func
def contact_pyramid(
    i: int,
    ci: int,
    dt: float,
    rm: RowModel,
    rd: RowData,
    cm: ContactTables,
    tm: TreeTables,
    art_ref: wp.array(dtype=wp.vec3),
    cdof: wp.array(dtype=wp.spatial_vector),
    chol: wp.array(dtype=wp.float64),
    qacc_smooth: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Rows i .. i + 3 (compact ci .. ci + 3) of an active pyramidal contact, the edges n +- mu t1, n +- mu t2,
    formed from the basis rows J_n, J_t1, J_t2: one walk up each body's DOF path gives the three basis
    Jacobians, three L^-T solves give their Y (in the ``jac`` blocks of rows i .. i + 2, which the edges
    do not use, so contacts fill side by side) and the edges' Y, a0 and
    v are combinations of the basis ones (all linear in the direction). The edges share pos, impedance and
    R (MuJoCo's diagApprox is the same for the four edges). Edge rows keep only what the solve reads."""
    slot = rm.owner[i]
    p = cm.slot_pair[slot]
    n = cm.normal[slot]
    t1 = cm.tangent[slot]
    t2 = wp.cross(n, t1)
    mu = cm.pair_mu[p]
    width = rm.width
    bb = i * 2 * width
    a = rm.art[i]
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            for t in range(3):
                off = bb + t * 2 * width + side * width
                for kk in range(tm.art_dof_start[ai + 1] - tm.art_dof_start[ai]):
                    rd.jac[off + kk] = 0.0
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
                    rd.jac[off + kd] = rd.jac[off + kd] + wp.dot(n, v)
                    rd.jac[off + 2 * width + kd] = rd.jac[off + 2 * width + kd] + wp.dot(t1, v)
                    rd.jac[off + 4 * width + kd] = rd.jac[off + 4 * width + kd] + wp.dot(t2, v)
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
                    j = rd.jac[off + kk]
                    sa += j * qacc_smooth[d0 + kk]
                    sv += j * joint_qd[d0 + kk]
                a0[t] = a0[t] + sa
                vel[t] = vel[t] + sv
                ltl_solve_t(chol, tm.art_mat_start[ai], na, d0, tm.dof_parent, rd.jac, off)
    pos = cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])
    soft = _soft(cm.pair_solref[p], cm.pair_solimp[p], pos, dt)
    imp = soft[0]
    # MuJoCo's pyramid R: 2 mu^2 times the R of a row with diagApprox (1 + mu^2) tran.
    approx = tran * 2.0 * mu * mu * (1.0 + mu * mu)
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
                    y = rd.jac[on + kk] + c * rd.jac[ot + kk]
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
        rd.bias[cc] = (a0[0] + c * a0[t]) + soft[1] * (vel[0] + c * vel[t]) + soft[2] * pos
        rd.reg[cc] = reg
        rd.inv[cc] = 1.0 / (diag + reg)
        rd.cforce[cc] = rd.force[row]
