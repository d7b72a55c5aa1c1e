"""Per-row assembly of the world solve (:mod:`.world_solve`, steps 1 to 3): switch a joint-limit, joint-friction
or equality row on or off, and fill an active row at its compact index ci: its Jacobian J (written into
``minv_jac`` block ``blk``: the row's own under PGS, its lane's scratch under Newton), Y = L^-T J^T in place,
its soft-constraint terms, and the row whose force it warm-starts from and writes back."""

from __future__ import annotations

import warp as wp

from ...sim.types import EqType
from ..collision.pairs import pair_arts, pair_bodies, slot_pair, template_slot
from ..spatial import ltl_solve_t
from ..types import vec5
from .rows import _angular_row, _joint_equality_row, _point_row, contact_direction, impedance
from .tables import LIMIT, ContactTables, EqualityTables, RowData, RowModel, TreeTables

__all__ = [
    "contact_row",
    "dof_row_switch",
    "dof_row_fill",
    "equality_row_switch",
    "equality_row",
    "finish_row",
    "contact_pyramid",
]

wp.set_module_options({"enable_backward": False})

_JOINT = wp.constant(int(EqType.JOINT))


@wp.func(inline=True)
def _pad(rd: RowData, off: int, n: int):
    """Zero Y past a side's n DOFs up to its next multiple of 8: the dense products read whole vec8 chunks,
    and a compact row's storage held other rows before."""
    for kk in range(n, (n + 7) / 8 * 8):
        rd.minv_jac[off + kk] = 0.0


@wp.func(inline=True)
def _clear(rd: RowData, blk: int, width: int):
    """Zero both Jacobian sides of compact row ci (their padding included)."""
    base = blk * 2 * width
    for k in range(2 * width):
        rd.minv_jac[base + k] = 0.0


@wp.func(inline=True)
def contact_row(
    w: int,
    slot: int,
    s: int,
    row: int,
    ci: int,
    blk: int,
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
    """Fill sub-row s (the normal, an elliptic tangent or a frictionless contact's only row) of active contact
    slot ``slot`` of world w at compact ci; its warm-start force lives at ``row``."""
    pp = slot_pair(cm.topo, w, slot)
    p = pp[0]
    nrows = rm.slot_nrows[template_slot(cm.topo, w, slot)]
    direction = contact_direction(cm.normal[slot], cm.tangent[slot], s, nrows, cm.pair_mu[p])
    width = rm.width
    _clear(rd, blk, width)
    bodies = pair_bodies(cm.topo, w, pp[1])
    pt = cm.point[slot]
    a = pair_arts(bodies, tm.body_art)
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
                blk * 2 * width,
                width,
                rd.minv_jac,
            )
            tran += rm.body_invweight[b][0]
    # MuJoCo's diagApprox from the bodies' inverse weights at the initial pose (pyramid edges: contact_pyramid).
    lo = float(0.0)
    stiff = float(1.0)
    cone = int(0)
    if nrows == 3:
        if s > 0:
            lo = -1.0e30  # an elliptic tangent: the normal's impedance, no position term
            stiff = 0.0
        else:
            cone = 1
    rd.art[ci] = a
    rd.diag_approx[ci] = tran
    rd.pos[ci] = cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])
    rd.solref[ci] = cm.pair_solref[p]
    rd.solimp[ci] = cm.pair_solimp[p]
    rd.lo[ci] = lo
    rd.hi[ci] = 1.0e30
    rd.cone[ci] = cone
    rd.cone_mu[ci] = cm.pair_mu[p]
    finish_row(ci, blk, row, dt, stiff, rm, rd, tm, chol, qacc_smooth, joint_qd)


@wp.func(inline=True)
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


@wp.func(inline=True)
def dof_row_switch(
    x: int,
    row: int,
    ci: int,
    kind: int,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Switch joint-limit or joint-friction row x (warm-started from ``row``) on or off (static friction loss);
    when on, store its position, solref / solimp and bounds at compact index ci (:func:`dof_row_fill` fills
    the rest) and return 1, else clear its warm start and return 0."""
    d = rm.x_owner[x]
    on = int(1)
    pos = float(0.0)
    sr = rm.friction_solref
    si = rm.friction_solimp
    lo = float(0.0)
    hi = float(1.0e30)
    if kind == LIMIT:
        pos = _limit_side(d, tm, joint_q)[0]
        if pos >= 0.0:
            on = 0
        sr = rm.limit_solref
        si = rm.limit_solimp
    else:
        # Static effort holds a DOF at rest, the dynamic effort resists a moving one.
        bound = tm.friction_dynamic[d]
        if wp.abs(joint_qd[d]) < rm.rest_speed:
            bound = tm.friction_static[d]
        if bound <= 0.0:
            on = 0
        lo = -bound
        hi = bound
    if on == 0:
        rd.force[row] = 0.0
        return 0
    rd.pos[ci] = pos
    rd.solref[ci] = sr
    rd.solimp[ci] = si
    rd.lo[ci] = lo
    rd.hi[ci] = hi
    rd.diag_approx[ci] = rm.dof_invweight[d]
    rd.art[ci] = rm.x_art[x]
    rd.cone[ci] = 0
    return 1


@wp.func(inline=True)
def dof_row_fill(
    x: int,
    row: int,
    ci: int,
    blk: int,
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
    """Finish active joint-limit or joint-friction row x at compact index ci. J = sign e_d, so
    Y = sign L^-T e_d is nonzero only on d's path, a0 and v are entries."""
    d = rm.x_owner[x]
    sign = 1.0
    if kind == LIMIT:
        sign = _limit_side(d, tm, joint_q)[1]
    ai = tm.dof_art[d]
    d0 = tm.art_dof_start[ai]
    n = tm.art_dof_start[ai + 1] - d0
    off = blk * 2 * rm.width  # side 0
    for kk in range(n):
        rd.minv_jac[off + kk] = 0.0
    _pad(rd, off, n)
    rd.minv_jac[off + d - d0] = sign
    ltl_solve_t(chol, tm.art_mat_start[ai], n, d0, tm.dof_parent, rd.minv_jac, off)
    diag = float(0.0)
    for kk in range(d - d0 + 1):
        y = rd.minv_jac[off + kk]
        diag += y * y
    _finish_soft(ci, row, diag, sign * qacc_smooth[d], sign * joint_qd[d], dt, 1.0, rd)


@wp.func(inline=True)
def equality_row_switch(x: int, row: int, rm: RowModel, rd: RowData, eq: EqualityTables):
    """1 when equality row x's constraint is enabled, else 0 with its warm start (at ``row``) cleared."""
    if eq.enabled[rm.x_owner[x]]:
        return 1
    rd.force[row] = 0.0
    return 0


@wp.func(inline=True)
def equality_row(
    x: int,
    row: int,
    ci: int,
    blk: int,
    dt: float,
    rm: RowModel,
    rd: RowData,
    eq: EqualityTables,
    tm: TreeTables,
    body_q: wp.array(dtype=wp.transform),
    joint_q: wp.array(dtype=float),
    art_ref: wp.array(dtype=wp.vec3),
    cdof: wp.array(dtype=wp.spatial_vector),
    chol: wp.array(dtype=wp.float64),
    qacc_smooth: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Fill and finish active equality row x (component ``x_sub`` of a joint, connect or weld constraint) at
    compact index ci; its warm start from ``row``."""
    e = rm.x_owner[x]
    width = rm.width
    jb = blk * 2 * width
    _clear(rd, blk, width)
    a = rm.x_art[x]
    s = rm.x_sub[x]
    pos = float(0.0)
    approx = float(0.0)
    if eq.eq_type[e] == _JOINT:
        approx = rm.dof_invweight[eq.joint_qd_start[eq.joint1[e]]]
        if eq.joint2[e] >= 0:
            approx += rm.dof_invweight[eq.joint_qd_start[eq.joint2[e]]]
        pos = _joint_equality_row(
            e,
            eq.joint1,
            eq.joint2,
            eq.polycoef,
            eq.joint_q_start,
            eq.joint_qd_start,
            tm.dof_art,
            tm.art_dof_start,
            joint_q,
            a,
            jb,
            width,
            rd.minv_jac,
        )
    else:
        b1 = eq.body1[e]
        b2 = eq.body2[e]
        x1 = wp.transform_identity()
        if b1 >= 0:
            x1 = body_q[b1]
        x2 = wp.transform_identity()
        if b2 >= 0:
            x2 = body_q[b2]
        axis = wp.vec3(0.0)
        axis[s % 3] = 1.0
        comp = s / 3
        if b1 >= 0:
            approx += rm.body_invweight[b1][comp]
        if b2 >= 0:
            approx += rm.body_invweight[b2][comp]
        if s < 3:
            p1 = wp.transform_point(x1, eq.anchor[e])
            p2 = wp.transform_point(x2, eq.anchor2[e])
            pos = p1[s] - p2[s]
            if b1 >= 0:
                _point_row(
                    b1,
                    1.0,
                    tm.body_art[b1],
                    p1,
                    axis,
                    a,
                    tm.body_dof_last,
                    tm.dof_parent,
                    tm.art_dof_start,
                    art_ref,
                    cdof,
                    jb,
                    width,
                    rd.minv_jac,
                )
            if b2 >= 0:
                _point_row(
                    b2,
                    -1.0,
                    tm.body_art[b2],
                    p2,
                    axis,
                    a,
                    tm.body_dof_last,
                    tm.dof_parent,
                    tm.art_dof_start,
                    art_ref,
                    cdof,
                    jb,
                    width,
                    rd.minv_jac,
                )
        else:
            target = wp.transform_get_rotation(x2 * eq.rel[e])
            err = wp.transform_get_rotation(x1) * wp.quat_inverse(target)
            v = 2.0 * wp.vec3(err[0], err[1], err[2])
            if err[3] < 0.0:
                v = -v
            pos = v[s - 3]
            if b1 >= 0:
                _angular_row(
                    b1,
                    1.0,
                    tm.body_art[b1],
                    axis,
                    a,
                    tm.body_dof_last,
                    tm.dof_parent,
                    tm.art_dof_start,
                    cdof,
                    jb,
                    width,
                    rd.minv_jac,
                )
            if b2 >= 0:
                _angular_row(
                    b2,
                    -1.0,
                    tm.body_art[b2],
                    axis,
                    a,
                    tm.body_dof_last,
                    tm.dof_parent,
                    tm.art_dof_start,
                    cdof,
                    jb,
                    width,
                    rd.minv_jac,
                )
    rd.art[ci] = a
    rd.diag_approx[ci] = approx
    rd.pos[ci] = pos
    rd.solref[ci] = eq.solref[e]
    rd.solimp[ci] = eq.solimp[e]
    rd.lo[ci] = -1.0e30
    rd.hi[ci] = 1.0e30
    rd.cone[ci] = 0
    finish_row(ci, blk, row, dt, 1.0, rm, rd, tm, chol, qacc_smooth, joint_qd)


@wp.func(inline=True)
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


@wp.func(inline=True)
def finish_row(
    ci: int,
    blk: int,
    row: int,
    dt: float,
    stiff: float,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    chol: wp.array(dtype=wp.float64),
    qacc_smooth: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """a0 = J qacc_smooth, v = J qd, then Y = L^-T J^T in place of J in compact row ci's ``minv_jac`` block
    (M = L^T L, so A = Y^T Y), A_ii and the soft-constraint terms of the row (MuJoCo computation: "Soft
    constraints"; solref "refsafe" clamp tc >= 2 dt); its warm start from ``row``. ``stiff`` 0 drops the
    position term of aref (the tangents of an elliptic contact, which share the normal's position and
    impedance)."""
    width = rm.width
    a = rd.art[ci]
    diag = float(0.0)
    a0 = float(0.0)
    vel = float(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            n = tm.art_dof_start[ai + 1] - d0
            off = blk * 2 * width + side * width
            for kk in range(n):
                j = rd.minv_jac[off + kk]
                a0 += j * qacc_smooth[d0 + kk]
                vel += j * joint_qd[d0 + kk]
            ltl_solve_t(chol, tm.art_mat_start[ai], n, d0, tm.dof_parent, rd.minv_jac, off)
            for kk in range(n):
                y = rd.minv_jac[off + kk]
                diag += y * y
    _finish_soft(ci, row, diag, a0, vel, dt, stiff, rd)


@wp.func(inline=True)
def _finish_soft(ci: int, row: int, diag: float, a0: float, vel: float, dt: float, stiff: float, rd: RowData):
    """Soft-constraint terms of compact row ci from A_ii, a0 = J qacc_smooth and v = J qd; its warm start from
    ``row``."""
    pos = rd.pos[ci]
    soft = _soft(rd.solref[ci], rd.solimp[ci], pos, dt)
    imp = soft[0]
    # R from MuJoCo's diagApprox (inverse weights at the initial pose), the exact A_ii when absent.
    approx = rd.diag_approx[ci]
    if approx <= 0.0:
        approx = diag
    reg = wp.max((1.0 - imp) / imp * approx, 1.0e-9)
    rd.bias[ci] = a0 + soft[1] * vel + stiff * soft[2] * pos
    rd.reg[ci] = reg
    rd.inv[ci] = 1.0 / (diag + reg)
    rd.cforce[ci] = rd.force[row]


@wp.func(inline=True)
def _basis(blk: int, t: int, width: int):
    """Offset of basis row t (0: n, 1: t1, 2: t2) of the pyramid at Jacobian block blk: the blocks of edges 3, 1, 2,
    so that edges 0 and 1 (from n and t1) and then edges 2 and 3 (from n and t2) can replace them in place."""
    b = t
    if t == 0:
        b = 3
    return (blk + b) * 2 * width


@wp.func(inline=True)
def contact_pyramid(
    w: int,
    slot: int,
    row: int,
    ci: int,
    blk: int,
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
    """Rows row .. row + 3 (compact ci .. ci + 3, Jacobian blocks blk .. blk + 3) of active pyramidal contact
    slot ``slot`` of world w, the edges n +- mu t1, n +- mu t2, formed from the basis rows J_n, J_t1, J_t2: one
    walk up each body's DOF path gives the three basis Jacobians, three L^-T solves give their Y (in the
    ``minv_jac`` blocks of edges 3, 1, 2, see :func:`_basis`) and the edges' Y, a0 and v are combinations of the
    basis ones (all linear in the direction). The edges share pos, impedance and R (MuJoCo's diagApprox is the
    same for the four edges). Edge rows keep only what the solve reads."""
    pp = slot_pair(cm.topo, w, slot)
    p = pp[0]
    n = cm.normal[slot]
    t1 = cm.tangent[slot]
    t2 = wp.cross(n, t1)
    mu = cm.pair_mu[p]
    width = rm.width
    bodies = pair_bodies(cm.topo, w, pp[1])
    a = pair_arts(bodies, tm.body_art)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            for t in range(3):
                off = _basis(blk, t, width) + side * width
                for kk in range(tm.art_dof_start[ai + 1] - tm.art_dof_start[ai]):
                    rd.minv_jac[off + kk] = 0.0
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
                shift = jside * width - tm.art_dof_start[ba]
                on = _basis(blk, 0, width) + shift
                o1 = _basis(blk, 1, width) + shift
                o2 = _basis(blk, 2, width) + shift
                lever = pt - art_ref[ba]
                kd = tm.body_dof_last[b]
                while kd >= 0:
                    sk = cdof[kd]
                    v = sign * (wp.spatial_top(sk) + wp.cross(wp.spatial_bottom(sk), lever))
                    rd.minv_jac[on + kd] = rd.minv_jac[on + kd] + wp.dot(n, v)
                    rd.minv_jac[o1 + kd] = rd.minv_jac[o1 + kd] + wp.dot(t1, v)
                    rd.minv_jac[o2 + kd] = rd.minv_jac[o2 + kd] + wp.dot(t2, v)
                    kd = tm.dof_parent[kd]
    a0 = wp.vec3(0.0)
    vel = wp.vec3(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = tm.art_dof_start[ai]
            na = tm.art_dof_start[ai + 1] - d0
            for t in range(3):
                off = _basis(blk, t, width) + side * width
                sa = float(0.0)
                sv = float(0.0)
                for kk in range(na):
                    j = rd.minv_jac[off + kk]
                    sa += j * qacc_smooth[d0 + kk]
                    sv += j * joint_qd[d0 + kk]
                a0[t] = a0[t] + sa
                vel[t] = vel[t] + sv
                ltl_solve_t(chol, tm.art_mat_start[ai], na, d0, tm.dof_parent, rd.minv_jac, off)
    pos = cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])
    soft = _soft(cm.pair_solref[p], cm.pair_solimp[p], pos, dt)
    imp = soft[0]
    # MuJoCo's pyramid R: 2 mu^2 times the R of a row with diagApprox (1 + mu^2) tran.
    approx = tran * 2.0 * mu * mu * (1.0 + mu * mu)
    for half in range(2):  # edges 2 half and 2 half + 1: n + mu t and n - mu t, t = t1 then t2
        t = 1 + half
        diag = wp.vec2(0.0)
        for side in range(2):
            ai = a[side]
            if ai >= 0:
                na = tm.art_dof_start[ai + 1] - tm.art_dof_start[ai]
                on = _basis(blk, 0, width) + side * width
                ot = _basis(blk, t, width) + side * width
                oa = (blk + 2 * half) * 2 * width + side * width
                ob = oa + 2 * width
                odd = wp.vec2(0.0)  # even entries add into diag, odd ones apart, as two sums
                for kk in range(na):  # read both bases before writing: edge 2 half + 1 replaces one of them
                    yn = rd.minv_jac[on + kk]
                    yt = rd.minv_jac[ot + kk]
                    ya = yn + mu * yt
                    yb = yn + (-mu) * yt
                    rd.minv_jac[oa + kk] = ya
                    rd.minv_jac[ob + kk] = yb
                    if kk % 2 == 0:
                        diag = wp.vec2(diag[0] + ya * ya, diag[1] + yb * yb)
                    else:
                        odd = wp.vec2(odd[0] + ya * ya, odd[1] + yb * yb)
                diag = wp.vec2(diag[0] + odd[0], diag[1] + odd[1])
                _pad(rd, oa, na)
                _pad(rd, ob, na)
        for e in range(2):
            cc = ci + 2 * half + e
            c = mu
            if e == 1:
                c = -mu
            ap = approx
            if ap <= 0.0:
                ap = diag[e]
            reg = wp.max((1.0 - imp) / imp * ap, 1.0e-9)
            rd.art[cc] = a
            rd.lo[cc] = 0.0
            rd.hi[cc] = 1.0e30
            rd.cone[cc] = 0
            rd.bias[cc] = (a0[0] + c * a0[t]) + soft[1] * (vel[0] + c * vel[t]) + soft[2] * pos
            rd.reg[cc] = reg
            rd.inv[cc] = 1.0 / (diag[e] + reg)
            rd.cforce[cc] = rd.force[row + 2 * half + e]
