"""Per-row assembly of the world solve (:mod:`..solve.world`, steps 1 to 3): switch a joint-limit,
joint-friction, tendon-limit or tendon-friction row on or off, and fill an active row (those and contacts;
equality rows: :mod:`.equality`) at its compact index ci: its Jacobian J (written into ``minv_jac`` block
``blk``: the row's own under PGS, its lane's scratch under Newton), Y = L^-T J^T in place, and its
soft-constraint terms (MuJoCo computation: "Soft constraints"). A listed row's warm-start row is
``rd.act_list[ci]`` and its owner (contact slot or non-contact row) ``rd.owner[ci]``."""

from __future__ import annotations

import warp as wp

from ..collision.pairs import pair_arts, pair_bodies, slot_pair, template_slot
from ..items import item, item_set
from ..spatial import ltl_solve_t, ltl_solve_t3, point_jacobian
from ..types import vec5
from .path_bases import path_rows, path_slots, side_leaves
from .tables import (
    CONE,
    LIMIT,
    TENDON_LIMIT,
    Y_PATH,
    Y_QUAD,
    ContactTables,
    RowData,
    RowModel,
    TreeTables,
    WorldBlock,
    WorldInputs,
)

__all__ = [
    "impedance",
    "jac_side",
    "contact_direction",
    "contact_row",
    "dof_row_switch",
    "dof_row_fill",
    "tendon_row_switch",
    "tendon_row",
    "finish_row",
    "contact_pyramid",
    "body_row",
    "clear_row",
    "set_row",
    "jac_entry",
    "walk_start",
    "walk_next",
]

wp.set_module_options({"enable_backward": False})


@wp.func
def impedance(solimp: vec5, r: float):
    """MuJoCo impedance d(r): a power sigmoid from dmin to dmax over |r| in [0, width]."""
    dmin = solimp[0]
    dmax = solimp[1]
    width = solimp[2]
    mid = solimp[3]
    power = solimp[4]
    x = wp.abs(r) / wp.max(width, 1.0e-10)
    if x >= 1.0:
        return dmax
    y = float(0.0)
    if power <= 1.0:
        y = x
    elif x <= mid:
        y = wp.pow(x, power) / wp.pow(mid, power - 1.0)
    else:
        y = 1.0 - wp.pow(1.0 - x, power) / wp.pow(1.0 - mid, power - 1.0)
    return wp.clamp(dmin + y * (dmax - dmin), 1.0e-4, 0.9999)


@wp.func
def contact_direction(n: wp.vec3, t1: wp.vec3, sub: int, nrows: int, mu: float):
    """Row direction of contact sub-row ``sub``: the normal (condim 1 / elliptic row 0), a pyramid edge
    n +- mu t_k (pyramidal), or a tangent t_k (elliptic rows 1, 2); t2 = n x t1."""
    t2 = wp.cross(n, t1)
    if nrows == 1:
        return n
    if nrows == 4:
        t = t1
        if sub >= 2:
            t = t2
        s = 1.0
        if sub % 2 == 1:
            s = -1.0
        return n + s * mu * t
    if sub == 0:
        return n
    if sub == 1:
        return t1
    return t2


@wp.func(inline=True)
def body_row(
    b: int,
    sign: float,
    point: wp.vec3,
    axis: wp.vec3,
    angular: int,
    a: wp.vec2i,
    blk: int,
    rm: RowModel,
    rd: RowData,
    inp: WorldInputs,
):
    """Add sign * d(axis . v)/d qd of body b (v: the velocity of ``point`` on it, or with ``angular`` 1 its
    angular velocity) to the side of Jacobian block ``blk`` that holds the body's articulation (``a``: the
    row's articulations of side 0 / side 1)."""
    side_art = rm.tree.body_art[b]
    if side_art < 0:
        return
    side = int(0)
    if a[1] == side_art:
        side = 1
    base = blk * 2 * rm.width + side * rm.width - rm.tree.art_dof_start[side_art]
    lever = point - inp.art_ref[side_art]
    k = rm.tree.body_dof_last[b]
    while k >= 0:
        v = float(0.0)
        if angular != 0:
            v = wp.dot(axis, wp.spatial_bottom(inp.cdof[k]))
        else:
            v = point_jacobian(inp.cdof[k], lever, axis)
        item_set(rd.minv_jac, base + k, item(rd.minv_jac, base + k) + sign * v)
        k = item(rm.tree.dof_parent, k)


@wp.func(inline=True)
def jac_side(a: wp.vec2i, side: int, blk: int, rm: RowModel):
    """(offset in ``minv_jac`` of side ``side`` of Jacobian block ``blk``, first DOF and DOF count of the
    side's articulation ``a[side]``; count 0 where the side has none)."""
    ai = a[side]
    d0 = int(0)
    n = int(0)
    if ai >= 0:
        d0 = rm.tree.art_dof_start[ai]
        n = rm.tree.art_dof_start[ai + 1] - d0
    return wp.vec3i(blk * 2 * rm.width + side * rm.width, d0, n)


@wp.func(inline=True)
def _pad(rd: RowData, off: int, n: int):
    """Zero Y past a side's n DOFs up to its next multiple of 8: the dense products read whole vec8 chunks,
    and a compact row's storage held other rows before."""
    for kk in range(n, (n + 7) / 8 * 8):
        item_set(rd.minv_jac, off + kk, 0.0)


@wp.func(inline=True)
def clear_row(rd: RowData, blk: int, width: int):
    """Zero both Jacobian sides of block blk (their padding included)."""
    base = blk * 2 * width
    for k in range(2 * width):
        item_set(rd.minv_jac, base + k, 0.0)


@wp.func(inline=True)
def set_row(ci: int, a: wp.vec2i, approx: float, pos: float, sr: wp.vec2, si: vec5, lo: float, hi: float, rd: RowData):
    """Store compact row ci's articulations, diagApprox, position error, solref / solimp and force bounds."""
    rd.art[ci] = a
    rd.diag_approx[ci] = approx
    rd.pos[ci] = pos
    rd.imp_pos[ci] = pos
    rd.solref[ci] = sr
    rd.solimp[ci] = si
    rd.lo[ci] = lo
    rd.hi[ci] = hi


@wp.func(inline=True)
def _switch_row(
    on: int,
    row: int,
    ci: int,
    a: wp.vec2i,
    approx: float,
    pos: float,
    sr: wp.vec2,
    si: vec5,
    lo: float,
    hi: float,
    rd: RowData,
):
    """A joint or tendon limit / friction row: when on, store its terms at compact ci (returns 1); when off,
    forget its warm-start force at row ``row`` (returns 0)."""
    if on == 0:
        rd.force[row] = 0.0
        return 0
    set_row(ci, a, approx, pos, sr, si, lo, hi, rd)
    rd.cone[ci] = 0
    return 1


@wp.func
def _root_lever_acc(b: int, tm: TreeTables, inp: WorldInputs):
    """(w x c) x w [m/s^2] of the free root of body b's articulation (zero without one): w its angular
    velocity, c the lever from its origin to its centre of mass (world axes). MuJoCo's free joint moves the
    root's origin where ours moves its centre of mass: for the same motion MuJoCo's qacc is T qacc + Tdot qd
    (T the change of velocity coordinates), whose linear part exceeds ours by this term, and every point of
    the tree translates with the root's origin, so MuJoCo's J qacc of a translational row along d adds
    d . this to ours."""
    a = tm.body_art[b]
    if a < 0:
        return wp.vec3(0.0)
    r = tm.art_free_body[a]
    if r < 0:
        return wp.vec3(0.0)
    d0 = tm.art_dof_start[a]
    w = wp.vec3(inp.joint_qd[d0 + 3], inp.joint_qd[d0 + 4], inp.joint_qd[d0 + 5])
    c = wp.quat_rotate(wp.transform_get_rotation(inp.body_q[r]), tm.body_com[r])
    return wp.cross(wp.cross(w, c), w)


@wp.func
def contact_lever_acc(bodies: wp.vec2i, tm: TreeTables, inp: WorldInputs):
    """The sum over the contact's sides (side 0 with sign -1) of :func:`_root_lever_acc`: MuJoCo's J qacc_smooth
    of a translational contact row along d is ours plus d . this. A contact row leaves out the velocity-product
    term Jdot qd, so its J qacc depends on the velocity coordinates; MuJoCo's and ours differ only in the free
    root's linear part, by this term."""
    acc = wp.vec3(0.0)
    if bodies[1] >= 0:
        acc += _root_lever_acc(bodies[1], tm, inp)
    if bodies[0] >= 0:
        acc -= _root_lever_acc(bodies[0], tm, inp)
    return acc


@wp.func(inline=True)
def _contact_pos(slot: int, p: int, cm: ContactTables):
    """Position error of contact slot ``slot`` of pair p: its distance less the pair's margin net of its gap."""
    return cm.dist[slot] - (cm.pair_margin[p] - cm.pair_gap[p])


@wp.func(inline=True)
def contact_row(w: int, s: int, ci: int, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Fill sub-row s (the normal, an elliptic tangent or a frictionless contact's only row) of the active
    contact slot listed at compact ci of world w."""
    slot = rd.owner[ci]
    pp = slot_pair(rm.contacts.topo, w, slot)
    p = pp[0]
    nrows = rm.slot_nrows[template_slot(rm.contacts.topo, w, slot)]
    direction = contact_direction(rm.contacts.normal[slot], rm.contacts.tangent[slot], s, nrows, rm.contacts.pair_mu[p])
    clear_row(rd, blk, rm.width)
    bodies = pair_bodies(rm.contacts.topo, w, pp[1])
    pt = rm.contacts.point[slot]
    a = pair_arts(bodies, rm.tree.body_art)
    tran = float(0.0)
    for side in range(2):
        b = bodies[side]
        if b >= 0:
            sign = 1.0
            if side == 0:
                sign = -1.0
            body_row(b, sign, pt, direction, 0, a, blk, rm, rd, inp)
            tran += rm.body_invweight[b][0]
    # MuJoCo's diagApprox from the bodies' inverse weights at the initial pose (pyramid edges: contact_pyramid).
    lo = float(0.0)
    stiff = float(1.0)
    cone = int(0)
    if nrows == 3:
        if s > 0:
            lo = -1.0e30  # an elliptic tangent: the normal's impedance, no position term
            stiff = 0.0
            tran = tran / rm.impratio  # MuJoCo: R_t = R_n / impratio
        else:
            cone = CONE
    pos = _contact_pos(slot, p, rm.contacts)
    set_row(ci, a, tran, pos, rm.contacts.pair_solref[p], rm.contacts.pair_solimp[p], lo, 1.0e30, rd)
    rd.cone[ci] = cone
    rd.cone_mu[ci] = rm.contacts.pair_mu[p]
    finish_row(ci, blk, stiff, rm, rd, inp)
    rd.bias[ci] = rd.bias[ci] + wp.dot(direction, contact_lever_acc(bodies, rm.tree, inp))


@wp.func(inline=True)
def _limit_side(d: int, tm: TreeTables, joint_q: wp.array(dtype=float)):
    """(distance to the nearer limit of DOF d, sign of the row: +1 at the lower limit, -1 at the upper)."""
    q = joint_q[tm.dof_coord[d]]
    pos = q - tm.joint_limit_lower[d]
    upper = tm.joint_limit_upper[d] - q
    sign = 1.0
    if upper < pos:
        pos = upper
        sign = -1.0
    return wp.vec2(pos, sign)


@wp.func(inline=True)
def dof_row_switch(x: int, row: int, ci: int, kind: int, rm: RowModel, rd: RowData, inp: WorldInputs):
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
        pos = _limit_side(d, rm.tree, inp.joint_q)[0]
        if pos >= 0.0:
            on = 0
        sr = rm.limit_solref
        si = rm.limit_solimp
    else:
        # Static effort holds a DOF at rest, the dynamic effort resists a moving one.
        bound = rm.tree.joint_friction_dynamic[d]
        if wp.abs(inp.joint_qd[d]) < rm.rest_speed:
            bound = rm.tree.joint_friction[d]
        if bound <= 0.0:
            on = 0
        lo = -bound
        hi = bound
    return _switch_row(on, row, ci, rm.x_art[x], rm.dof_invweight[d], pos, sr, si, lo, hi, rd)


@wp.func(inline=True)
def dof_row_fill(ci: int, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Finish the active joint-limit or joint-friction row listed at compact index ci. J = sign e_d, so
    Y = sign L^-T e_d is nonzero only on d's path, a0 and v are entries."""
    d = rm.x_owner[rd.owner[ci]]
    sign = 1.0
    if rd.kind[ci] == LIMIT:
        sign = _limit_side(d, rm.tree, inp.joint_q)[1]
    ai = rm.tree.dof_art[d]
    d0 = rm.tree.art_dof_start[ai]
    n = rm.tree.art_dof_start[ai + 1] - d0
    off = blk * 2 * rm.width  # side 0
    for kk in range(n):
        item_set(rd.minv_jac, off + kk, 0.0)
    _pad(rd, off, n)
    item_set(rd.minv_jac, off + d - d0, sign)
    ltl_solve_t(inp.chol, rm.tree.art_mat_start[ai], n, d0, rm.tree.dof_parent, rd.minv_jac, off)
    diag = float(0.0)
    for kk in range(d - d0 + 1):
        y = item(rd.minv_jac, off + kk)
        diag += y * y
    _finish_soft(ci, diag, sign * inp.qacc_smooth[d], sign * inp.joint_qd[d], inp.dt, 1.0, rd)


@wp.func(inline=True)
def jac_entry(d: int, a: wp.vec2i, blk: int, rm: RowModel):
    """Index of DOF d's entry in Jacobian block ``blk`` (on the side of the row's articulations ``a`` that
    holds d)."""
    side = int(0)
    if a[1] == rm.tree.dof_art[d]:
        side = 1
    return blk * 2 * rm.width + side * rm.width + d - rm.tree.art_dof_start[rm.tree.dof_art[d]]


@wp.func(inline=True)
def tendon_row_switch(x: int, row: int, ci: int, kind: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Switch tendon-limit or tendon-friction row x (warm-started from ``row``) on or off: a limit side once
    the tendon's length comes within its margin of that end (MuJoCo's mj_instantiateLimit: dist = L - lower
    or upper - L, on while dist < margin, position error dist - margin), the friction row while the tendon
    has friction loss. When on, store its terms at compact index ci (:func:`tendon_row` fills the rest) and
    return 1, else clear its warm start and return 0."""
    tt = rm.ten
    t = rm.x_owner[x]
    on = int(1)
    pos = float(0.0)
    sr = tt.tendon_solref_friction[t]
    si = tt.tendon_solimp_friction[t]
    lo = float(0.0)
    hi = float(1.0e30)
    if kind == TENDON_LIMIT:
        rng = tt.tendon_range[t]
        length = inp.ten_length[t]
        dist = length - rng[0]
        if rm.x_sub[x] == 1:
            dist = rng[1] - length
        margin = tt.tendon_margin[t]
        if dist >= margin:
            on = 0
        pos = dist - margin
        sr = tt.tendon_solref_limit[t]
        si = tt.tendon_solimp_limit[t]
    else:
        bound = tt.tendon_frictionloss[t]
        if bound <= 0.0:
            on = 0
        lo = -bound
        hi = bound
    return _switch_row(on, row, ci, rm.x_art[x], tt.ten_invweight[t], pos, sr, si, lo, hi, rd)


@wp.func(inline=True)
def tendon_row(ci: int, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Fill and finish the active tendon row listed at compact index ci: J = the tendon's Jacobian (its friction
    row, its lower limit) or its negative (the upper limit), into Jacobian block ``blk``."""
    x = rd.owner[ci]
    t = rm.x_owner[x]
    a = rd.art[ci]
    clear_row(rd, blk, rm.width)
    sign = 1.0
    if rd.kind[ci] == TENDON_LIMIT and rm.x_sub[x] == 1:
        sign = -1.0
    for e in range(rm.ten.ten_jac_start[t], rm.ten.ten_jac_start[t + 1]):
        rd.minv_jac[jac_entry(rm.ten.ten_jac_dof[e], a, blk, rm)] = sign * inp.ten_J[e]
    finish_row(ci, blk, 1.0, rm, rd, inp)


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
def _regularizer(imp: float, approx: float, diag: float):
    """R = (1 - d) / d * diagApprox (MuJoCo's, from the inverse weights at the initial pose; the exact A_ii
    where it is absent), at least 1e-9."""
    if approx <= 0.0:
        approx = diag
    return wp.max((1.0 - imp) / imp * approx, 1.0e-9)


@wp.func(inline=True)
def finish_row(ci: int, blk: int, stiff: float, rm: RowModel, rd: RowData, inp: WorldInputs):
    """a0 = J qacc_smooth, v = J qd, then Y = L^-T J^T in place of J in Jacobian block ``blk`` (M = L^T L, so
    A = Y^T Y), A_ii and the soft-constraint terms of compact row ci (solref "refsafe" clamp tc >= 2 dt).
    ``stiff`` 0 drops the position term of aref (the tangents of an elliptic contact, which share the
    normal's position and impedance)."""
    width = rm.width
    a = rd.art[ci]
    diag = float(0.0)
    a0 = float(0.0)
    vel = float(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = rm.tree.art_dof_start[ai]
            n = rm.tree.art_dof_start[ai + 1] - d0
            off = blk * 2 * width + side * width
            for kk in range(n):
                j = item(rd.minv_jac, off + kk)
                a0 += j * item(inp.qacc_smooth, d0 + kk)
                vel += j * inp.joint_qd[d0 + kk]
            ltl_solve_t(inp.chol, rm.tree.art_mat_start[ai], n, d0, rm.tree.dof_parent, rd.minv_jac, off)
            for kk in range(n):
                y = item(rd.minv_jac, off + kk)
                diag += y * y
    _finish_soft(ci, diag, a0, vel, inp.dt, stiff, rd)


@wp.func(inline=True)
def _finish_soft(ci: int, diag: float, a0: float, vel: float, dt: float, stiff: float, rd: RowData):
    """Soft-constraint terms of compact row ci from A_ii, a0 = J qacc_smooth and v = J qd, and its warm-start
    force."""
    pos = rd.pos[ci]
    soft = _soft(rd.solref[ci], rd.solimp[ci], rd.imp_pos[ci], dt)
    reg = _regularizer(soft[0], rd.diag_approx[ci], diag)
    rd.bias[ci] = a0 + soft[1] * vel + stiff * soft[2] * pos
    rd.reg[ci] = reg
    rd.inv[ci] = 1.0 / (diag + reg)
    rd.cforce[ci] = rd.force[rd.act_list[ci]]


@wp.func(inline=True)
def _basis(blk: int, t: int, width: int):
    """Offset of basis row t (0: n, 1: t1, 2: t2) of the pyramid at Jacobian block blk: the blocks of edges 3, 1, 2,
    so that edges 0 and 1 (from n and t1) and then edges 2 and 3 (from n and t2) can replace them in place."""
    b = t
    if t == 0:
        b = 3
    return (blk + b) * 2 * width


@wp.func(inline=True)
def _clear_blocks(a: wp.vec2i, leaves: wp.vec2i, blk: int, rm: RowModel, rd: RowData):
    """Zero the pyramid's four Jacobian blocks over the DOFs of each side's articulation: the basis rows add
    into three of them, and the edges, written on the rows' DOF paths only, leave the rest of all four zero
    for the products that read whole sides (PGS's). Under Newton the edges go straight to ``ydense``
    (:func:`_pyramid_gather`): only the three basis blocks are zeroed, and a side on one DOF path
    (``leaves``) not at all: its one body's walk (:func:`_basis_body`) writes its path, the only DOFs read."""
    for side in range(2):
        ai = a[side]
        if ai >= 0 and (rm.newton == 0 or leaves[side] < 0):
            for k in range(rm.tree.art_dof_start[ai + 1] - rm.tree.art_dof_start[ai]):
                for t in range(rm.newton, 4):
                    item_set(rd.minv_jac, (blk + t) * 2 * rm.width + side * rm.width + k, 0.0)


@wp.func(inline=True)
def walk_start(leaf: int, n: int):
    """First DOF (articulation index) of a side's walk, deepest first: ``leaf`` where it is one path, else
    the last of the articulation's n DOFs."""
    if leaf >= 0:
        return leaf
    return n - 1


@wp.func(inline=True)
def walk_next(k: int, leaf: int, d0: int, dof_parent: wp.array(dtype=int)):
    """The DOF after k in a side's walk: its parent on a one-path side (below 0 past the root), else k - 1."""
    if leaf >= 0:
        return item(dof_parent, d0 + k) - d0
    return k - 1


@wp.func(inline=True)
def _basis_body(
    b: int,
    bside: int,
    a: wp.vec2i,
    leaves: wp.vec2i,
    paths: wp.vec2i,
    slot: int,
    blk: int,
    wb: WorldBlock,
    rm: RowModel,
    rd: RowData,
    inp: WorldInputs,
):
    """Add body b's part (pair side ``bside``: 0 with sign -1, 1 with +1) of the basis Jacobians J_n, J_t1,
    J_t2 of contact slot ``slot``, in one walk up its DOF path; under Newton, where b is its Jacobian side's
    one body (``leaves``), add it to 0 rather than to the blocks (:func:`_clear_blocks` did not zero them).
    Where its side has a path slot (``paths``, :func:`.path_bases.path_slots`), write the side's Y from it
    instead and return the side's (J qacc_smooth, J qd) of the three rows; else zeros (:func:`_basis_solve`
    takes them)."""
    zero = wp.vec3(0.0)
    ba = rm.tree.body_art[b]
    if ba < 0:
        return zero, zero
    n = rm.contacts.normal[slot]
    t1 = rm.contacts.tangent[slot]
    t2 = wp.cross(n, t1)
    width = rm.width
    sign = 1.0
    if bside == 0:
        sign = -1.0
    jside = int(0)
    if a[1] == ba:
        jside = 1
    shift = jside * width - rm.tree.art_dof_start[ba]
    on = _basis(blk, 0, width) + shift
    o1 = _basis(blk, 1, width) + shift
    o2 = _basis(blk, 2, width) + shift
    lever = rm.contacts.point[slot] - inp.art_ref[ba]
    kd = rm.tree.body_dof_last[b]
    if paths[jside] >= 0:
        return path_rows(paths[jside], kd, sign, n, t1, t2, lever, wp.vec3i(on, o1, o2), wb, rm, rd)
    add = not (rm.newton != 0 and leaves[jside] >= 0)  # else the side's blocks hold the last contact's
    while kd >= 0:
        sk = inp.cdof[kd]
        v = sign * (wp.spatial_top(sk) + wp.cross(wp.spatial_bottom(sk), lever))
        base = wp.vec3(0.0)
        if add:
            base = wp.vec3(item(rd.minv_jac, on + kd), item(rd.minv_jac, o1 + kd), item(rd.minv_jac, o2 + kd))
        item_set(rd.minv_jac, on + kd, base[0] + wp.dot(n, v))
        item_set(rd.minv_jac, o1 + kd, base[1] + wp.dot(t1, v))
        item_set(rd.minv_jac, o2 + kd, base[2] + wp.dot(t2, v))
        kd = item(rm.tree.dof_parent, kd)
    return zero, zero


@wp.func(inline=True)
def _basis_solve(a: wp.vec2i, leaves: wp.vec2i, paths: wp.vec2i, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """a0 = J qacc_smooth and v = J qd of the three basis rows (per side, then summed; each side's walk,
    deepest DOF first: its body's path, or every DOF), then their Y = L^-T J^T in place; returns (a0, v).
    A side with a path slot (``paths``) is skipped: its Y and terms came from the slot."""
    width = rm.width
    a0 = wp.vec3(0.0)
    vel = wp.vec3(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0 and paths[side] < 0:
            d0 = rm.tree.art_dof_start[ai]
            na = rm.tree.art_dof_start[ai + 1] - d0
            leaf = leaves[side]
            o0 = _basis(blk, 0, width) + side * width
            o1 = _basis(blk, 1, width) + side * width
            o2 = _basis(blk, 2, width) + side * width
            sa = wp.vec3(0.0)
            sv = wp.vec3(0.0)
            k = walk_start(leaf, na)
            while k >= 0:
                j = wp.vec3(item(rd.minv_jac, o0 + k), item(rd.minv_jac, o1 + k), item(rd.minv_jac, o2 + k))
                sa += j * item(inp.qacc_smooth, d0 + k)
                sv += j * inp.joint_qd[d0 + k]
                k = walk_next(k, leaf, d0, rm.tree.dof_parent)
            a0 += sa
            vel += sv
            art_mat = rm.tree.art_mat_start[ai]
            ltl_solve_t3(inp.chol, art_mat, na, d0, rm.tree.dof_parent, rd.minv_jac, wp.vec3i(o0, o1, o2), leaf)
    return a0, vel


@wp.func(inline=True)
def _pyramid_edges(half: int, mu: float, a: wp.vec2i, leaves: wp.vec2i, blk: int, rm: RowModel, rd: RowData):
    """Y of edges 2 half (n + mu t) and 2 half + 1 (n - mu t), t = t1 for half 0 and t2 for half 1, from the
    basis Y, into their blocks (replacing the basis rows stored there) along each side's walk (zero off it);
    returns their A_ii = |Y|^2."""
    width = rm.width
    t = 1 + half
    diag = wp.vec2(0.0)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = rm.tree.art_dof_start[ai]
            na = rm.tree.art_dof_start[ai + 1] - d0
            leaf = leaves[side]
            on = _basis(blk, 0, width) + side * width
            ot = _basis(blk, t, width) + side * width
            oa = (blk + 2 * half) * 2 * width + side * width
            ob = oa + 2 * width
            even = wp.vec2(0.0)  # alternate entries add into two sums, which overlap their latencies
            odd = wp.vec2(0.0)
            parity = int(0)
            k = walk_start(leaf, na)
            while k >= 0:  # read both bases before writing: edge 2 half + 1 replaces one of them
                yn = item(rd.minv_jac, on + k)
                yt = item(rd.minv_jac, ot + k)
                ya = yn + mu * yt
                yb = yn + (-mu) * yt
                item_set(rd.minv_jac, oa + k, ya)
                item_set(rd.minv_jac, ob + k, yb)
                if parity == 0:
                    even = wp.vec2(even[0] + ya * ya, even[1] + yb * yb)
                else:
                    odd = wp.vec2(odd[0] + ya * ya, odd[1] + yb * yb)
                parity = 1 - parity
                k = walk_next(k, leaf, d0, rm.tree.dof_parent)
            diag = wp.vec2(diag[0] + (even[0] + odd[0]), diag[1] + (even[1] + odd[1]))
            _pad(rd, oa, na)
            _pad(rd, ob, na)
    return diag


@wp.func(inline=True)
def _pyramid_gather(
    b: WorldBlock, c: int, mu: float, a: wp.vec2i, leaves: wp.vec2i, blk: int, rm: RowModel, rd: RowData
):
    """Newton: Y of the four edges (n + mu t1, n - mu t1, n + mu t2, n - mu t2) from the basis Y straight into
    the world's ``ydense`` rows c .. c + 3, with each edge's non-zero columns in ``ynz`` (ascending) and their
    count: one walk per side for all four edges (their Jacobian blocks are never written), the side of the
    lower DOFs first, as :func:`..solve.row_terms.gather_row` lists a row. A walk goes deepest DOF first, so each
    edge's columns are listed descending and then reversed. The rows' other entries are zeroed only where a
    pass reads whole rows (noslip). Sets the rows' ``cone`` (Y_PATH, Y_QUAD). Returns the edges' A_ii =
    |Y|^2, summed as :func:`_pyramid_edges` sums them (alternate entries into two sums per side)."""
    wn = b.wn
    row = b.yoff + c * wn
    width = rm.width
    if rm.noslip_iterations > 0:
        for t in range(4 * wn):
            item_set(rd.ydense, row + t, 0.0)
    js0 = jac_side(a, 0, blk, rm)
    js1 = jac_side(a, 1, blk, rm)
    first = int(0)
    if js1[2] > 0 and (js0[2] == 0 or js1[1] < js0[1]):
        first = 1
    count = wp.vec4i(0)
    diag = wp.vec4(0.0)
    same = int(1)  # the four edges are zero at the same columns
    for o in range(2):
        side = (first + o) % 2
        js = js0
        if side == 1:
            js = js1
        if js[2] > 0:
            d0 = js[1]
            col = d0 - b.wd0
            leaf = leaves[side]
            on = _basis(blk, 0, width) + side * width
            o1 = _basis(blk, 1, width) + side * width
            o2 = _basis(blk, 2, width) + side * width
            listed = count
            even = wp.vec4(0.0)  # alternate entries add into two sums, as _pyramid_edges adds them
            odd = wp.vec4(0.0)
            parity = int(0)
            k = walk_start(leaf, js[2])
            while k >= 0:
                yn = item(rd.minv_jac, on + k)
                y1 = item(rd.minv_jac, o1 + k)
                y2 = item(rd.minv_jac, o2 + k)
                y = wp.vec4(yn + mu * y1, yn + (-mu) * y1, yn + mu * y2, yn + (-mu) * y2)
                zeros = int(y[0] == 0.0) + int(y[1] == 0.0) + int(y[2] == 0.0) + int(y[3] == 0.0)
                if zeros != 0 and zeros != 4:
                    same = 0
                for e in range(4):
                    if y[e] != 0.0:
                        item_set(rd.ydense, row + e * wn + col + k, y[e])
                        item_set(rd.ynz, row + e * wn + count[e], wp.int16(col + k))
                        count[e] = count[e] + 1
                if parity == 0:
                    even = even + wp.cw_mul(y, y)
                else:
                    odd = odd + wp.cw_mul(y, y)
                parity = 1 - parity
                k = walk_next(k, leaf, d0, rm.tree.dof_parent)
            diag = diag + (even + odd)
            for e in range(4):  # this side's columns, listed deepest first: ascending
                i = row + e * wn + listed[e]
                j = row + e * wn + count[e] - 1
                while i < j:
                    x = item(rd.ynz, i)
                    item_set(rd.ynz, i, item(rd.ynz, j))
                    item_set(rd.ynz, j, x)
                    i += 1
                    j -= 1
    # Y_PATH where one side alone moves, on one DOF path (zero off it: L^-T keeps a root path's support).
    shape = int(0)
    if js0[2] > 0 and js1[2] == 0 and leaves[0] >= 0:
        shape = Y_PATH
    if js1[2] > 0 and js0[2] == 0 and leaves[1] >= 0:
        shape = Y_PATH
    for e in range(4):
        item_set(rd.ynz_count, b.r0 + c + e, count[e])
        item_set(rd.cone, b.r0 + c + e, shape)
    if same != 0:
        item_set(rd.cone, b.r0 + c, shape | Y_QUAD)
    return diag


@wp.func(inline=True)
def contact_pyramid(wb: WorldBlock, c: int, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Compact rows c .. c + 3 of world block ``wb`` (Jacobian blocks blk .. blk + 3), the active pyramidal
    contact slot listed at c: the edges n +- mu t1, n +- mu t2, formed from the basis rows J_n, J_t1, J_t2. One
    walk up each body's DOF path (:func:`.path_bases.side_leaves`) gives the three basis Jacobians, three L^-T
    solves give their Y (in the ``minv_jac`` blocks of edges 3, 1, 2, see :func:`_basis`; a side whose path has a
    slot of :mod:`.path_bases` reads its Y from the slot instead), and the edges' Y, a0 and v are
    combinations of the basis ones (all linear in the direction): into the edges' blocks under PGS
    (:func:`_pyramid_edges`), into the world's Newton rows under Newton (:func:`_pyramid_gather`). The edges
    share pos, impedance and R (MuJoCo's diagApprox is the same for the four edges). Edge rows keep only what
    the solve reads."""
    w = wb.w
    ci = wb.r0 + c
    slot = rd.owner[ci]
    row = rd.act_list[ci]
    pp = slot_pair(rm.contacts.topo, w, slot)
    p = pp[0]
    mu = rm.contacts.pair_mu[p]
    bodies = pair_bodies(rm.contacts.topo, w, pp[1])
    a = pair_arts(bodies, rm.tree.body_art)
    leaves = side_leaves(bodies, a, rm)
    paths = wp.vec2i(-1, -1)
    if rm.newton != 0:
        paths = path_slots(slot, bodies, a, wb, rm, rd)
    _clear_blocks(a, leaves, blk, rm, rd)
    tran = float(0.0)
    a0_p = wp.vec3(0.0)  # the terms of the sides a path slot filled
    vel_p = wp.vec3(0.0)
    for bside in range(2):
        b = bodies[bside]
        if b >= 0:
            tran += rm.body_invweight[b][0]
            a0_b, vel_b = _basis_body(b, bside, a, leaves, paths, slot, blk, wb, rm, rd, inp)
            a0_p += a0_b
            vel_p += vel_b
    a0, vel = _basis_solve(a, leaves, paths, blk, rm, rd, inp)
    if paths[0] >= 0 or paths[1] >= 0:
        a0 += a0_p
        vel += vel_p
    n = rm.contacts.normal[slot]
    t1 = rm.contacts.tangent[slot]
    lever = contact_lever_acc(bodies, rm.tree, inp)
    a0 += wp.vec3(wp.dot(n, lever), wp.dot(t1, lever), wp.dot(wp.cross(n, t1), lever))
    pos = _contact_pos(slot, p, rm.contacts)
    soft = _soft(rm.contacts.pair_solref[p], rm.contacts.pair_solimp[p], pos, inp.dt)
    # MuJoCo's pyramid R: 2 mu^2 / impratio times the R of a row with diagApprox (1 + mu^2) tran.
    approx = tran * 2.0 * mu * mu / rm.impratio * (1.0 + mu * mu)
    diag = wp.vec4(0.0)
    if rm.newton != 0:
        diag = _pyramid_gather(wb, c, mu, a, leaves, blk, rm, rd)
    else:
        d01 = _pyramid_edges(0, mu, a, leaves, blk, rm, rd)
        d23 = _pyramid_edges(1, mu, a, leaves, blk, rm, rd)
        diag = wp.vec4(d01[0], d01[1], d23[0], d23[1])
    for half in range(2):  # edges 2 half and 2 half + 1: n + mu t and n - mu t, t = t1 then t2
        t = 1 + half
        for e in range(2):
            cc = ci + 2 * half + e
            sign_mu = mu
            if e == 1:
                sign_mu = -mu
            reg = _regularizer(soft[0], approx, diag[2 * half + e])
            rd.art[cc] = a
            rd.lo[cc] = 0.0
            rd.hi[cc] = 1.0e30
            if rm.newton == 0:  # Newton: the gather set it
                rd.cone[cc] = 0
            rd.bias[cc] = (a0[0] + sign_mu * a0[t]) + soft[1] * (vel[0] + sign_mu * vel[t]) + soft[2] * pos
            rd.reg[cc] = reg
            rd.inv[cc] = 1.0 / (diag[2 * half + e] + reg)
            rd.cforce[cc] = rd.force[row + 2 * half + e]
