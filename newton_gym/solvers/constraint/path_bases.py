"""Per-path contact bases under Newton: Z = L^-T S^T of a DOF path, shared by every pyramidal contact on it.

On its body's DOF path a contact row's Jacobian is J_k = d . (top_k + bottom_k x r) = d . top_k + (r x d) .
bottom_k, with d the row's direction (normal or tangent), r the contact point less the articulation's
reference point and S_k = (top_k, bottom_k) the DOF's motion subspace. So the row's Y = L^-T J^T (M = L^T L)
is Z (d, r x d) with Z = L^-T S^T the path's six columns, and its J qacc_smooth and J qd are (d, r x d) dotted
with sum_k S_k qacc_smooth_k and sum_k S_k qd_k. Z costs six column solves once per path; the row-by-row form
(:func:`.assemble.contact_pyramid`: a Jacobian walk and three row solves per contact) costs three per contact.
A path that carries three or more active contacts in a substep takes Z (a G1 foot carries about eleven).

Per substep, before the rows are filled, :func:`path_bases` (every lane): lane 0 counts the listed
pyramidal contacts on each path, keyed by the path's last DOF within the world (``RowModel.slot_leaf``, per
template slot: :func:`slot_leaves`), in a map row of ``ydense`` just past the listed rows, and
gives each path with ``RowModel.path_contacts`` (:data:`MIN_CONTACTS`) or more a slot of :data:`SLOT_ROWS`
rows after it (Z's six columns over the world's DOFs, then the two sums); then the lanes fill the slots.
Nothing else reads those rows in the substep (the solve reads the listed rows only). A world with too few
listed rows for that many pyramidal contacts, whose row budget leaves no room, or with fewer than six DOFs
skips the count and keeps the row-by-row form. Bitwise the same for any number of lanes; Y agrees with the
row-by-row form to float32 rounding.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from ..collision.pairs import pair_arts, pair_bodies, slot_pair, template_slot
from ..items import item, item_set
from ..lanes import lane_owns, sync_lanes
from ..spatial import ltl_solve_t3
from .tables import CONTACT, RowData, RowModel, WorldBlock, WorldInputs

__all__ = ["MIN_CONTACTS", "SLOT_ROWS", "path_bases", "path_slots", "path_rows", "slot_leaves", "side_leaves"]

wp.set_module_options({"enable_backward": False})

MIN_CONTACTS = 3  # RowModel.path_contacts: active contacts on one path from which it takes Z
SLOT_ROWS = wp.constant(8)  # ydense rows of one path's slot: Z's six columns, sum S qacc_smooth, sum S qd


@wp.func(inline=True)
def side_leaves(bodies: wp.vec2i, a: wp.vec2i, rm: RowModel):
    """Per Jacobian side (articulations ``a``), the index within its articulation of the last DOF moving the
    side's one body, whose Jacobian lies on that DOF's path to the root; -1 where the side holds two bodies
    (a contact within one articulation: two paths) or none, whose rows are walked over every DOF."""
    leaves = wp.vec2i(-1, -1)
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            count = int(0)
            last = int(-1)
            for bs in range(2):
                body = bodies[bs]
                if body >= 0:
                    if rm.tree.body_art[body] == ai:
                        count += 1
                        last = rm.tree.body_dof_last[body]
            if count == 1 and last >= 0:
                leaves[side] = last - rm.tree.art_dof_start[ai]
    return leaves


@wp.func(inline=True)  # takes the tables by value: inlined, they are not copied
def _map_start(b: WorldBlock, rm: RowModel):
    """Offset in ``ydense`` of the world's path map row (one float per DOF), or -1 where the world keeps the
    row-by-row form: too few listed rows for ``path_contacts`` pyramidal contacts (four rows each), no room for a
    map and one slot past them, or fewer than six DOFs."""
    budget = rm.world_budget_start[b.w + 1] - b.r0
    if b.wn < 6 or 4 * rm.path_contacts > b.k or budget - b.k < 1 + SLOT_ROWS:
        return -1
    return b.yoff + b.k * b.wn


@wp.func(inline=True)  # takes the tables by value: inlined, they are not copied
def _path_basis(d: int, z0: int, b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs):
    """The slot at ``z0``: Z = L^-T S^T of the path from the world's DOF d to its root (rows 0-5, the path's
    entries), sum_k S_k qacc_smooth_k (row 6) and sum_k S_k qd_k (row 7)."""
    wn = b.wn
    gd = b.wd0 + d
    art = rm.tree.dof_art[gd]
    d0 = rm.tree.art_dof_start[art]
    n = rm.tree.art_dof_start[art + 1] - d0
    acc = wp.spatial_vector()
    vel = wp.spatial_vector()
    k = gd
    while k >= 0:
        s = inp.cdof[k]
        col = z0 + k - b.wd0
        for e in range(6):
            item_set(rd.ydense, col + e * wn, s[e])
        acc += s * item(inp.qacc_smooth, k)
        vel += s * inp.joint_qd[k]
        k = item(rm.tree.dof_parent, k)
    at = z0 + d0 - b.wd0  # articulation DOF 0 of row 0
    mat = rm.tree.art_mat_start[art]
    ltl_solve_t3(inp.chol, mat, n, d0, rm.tree.dof_parent, rd.ydense, wp.vec3i(at, at + wn, at + 2 * wn), gd - d0)
    at3 = at + 3 * wn
    ltl_solve_t3(inp.chol, mat, n, d0, rm.tree.dof_parent, rd.ydense, wp.vec3i(at3, at3 + wn, at3 + 2 * wn), gd - d0)
    for e in range(6):
        item_set(rd.ydense, z0 + 6 * wn + e, acc[e])
        item_set(rd.ydense, z0 + 7 * wn + e, vel[e])


@wp.func(inline=True)  # takes the tables by value: inlined, they are not copied
def _contact_keys(c: int, ts0: int, b: WorldBlock, rm: RowModel, rd: RowData):
    """(rows of the listed contact whose first row is c, its sides' path keys; -1: none); a listed row that is
    no contact: (1, (-1, -1))."""
    ci = b.r0 + c
    if rd.kind[ci] != CONTACT:
        return 1, wp.vec2i(-1, -1)
    ts = ts0 + rd.owner[ci]
    return rm.slot_nrows[ts], rm.slot_leaf[ts]


@wp.func(inline=True)  # takes the tables by value: inlined, they are not copied
def path_bases(b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Count the listed pyramidal contacts per path (lane 0), give the paths with ``RowModel.path_contacts``
    or more a slot while they fit, in the order of their first contact (map entry -(slot + 1); the others
    keep their count), and fill the slots (lanes over slots). The number of slots goes to the world's first
    ``lane_rows`` entry (free once the rows are listed). Every lane calls it; it ends on a barrier."""
    m0 = _map_start(b, rm)
    if m0 < 0:
        return
    base = b.w * rm.jac_lanes
    if b.lane == 0:
        for d in range(b.wn):
            item_set(rd.ydense, m0 + d, 0.0)
        ts0 = template_slot(rm.contacts.topo, b.w, 0)  # template slot of the world's slot 0 (slots map one to one)
        most = float(0.0)
        c = int(0)
        while c < b.k:  # a contact's rows are listed together, its first at c
            step, key = _contact_keys(c, ts0, b, rm, rd)
            for side in range(2):
                if key[side] >= 0:
                    count = item(rd.ydense, m0 + key[side]) + 1.0
                    item_set(rd.ydense, m0 + key[side], count)
                    most = wp.max(most, count)
            c += step
        room = (rm.world_budget_start[b.w + 1] - b.r0 - b.k - 1) / SLOT_ROWS
        used = int(0)
        c = int(0)
        if most < float(rm.path_contacts):
            c = b.k  # no path qualifies
        while c < b.k:
            step, key = _contact_keys(c, ts0, b, rm, rd)
            for side in range(2):
                if key[side] >= 0:
                    if item(rd.ydense, m0 + key[side]) >= float(rm.path_contacts) and used < room:
                        used += 1
                        item_set(rd.ydense, m0 + key[side], -float(used))
            c += step
        rd.lane_rows[base] = used
    sync_lanes(b.lanes)
    if rd.lane_rows[base] > 0:
        for d in range(b.wn):
            v = item(rd.ydense, m0 + d)
            if v < 0.0:
                j = int(-v) - 1
                if lane_owns(j, b.lane, b.lanes):
                    _path_basis(d, _slot_start(m0, j, b.wn), b, rm, rd, inp)
        sync_lanes(b.lanes)


@wp.func(inline=True)  # takes the tables by value: inlined, they are not copied
def path_slots(slot: int, bodies: wp.vec2i, a: wp.vec2i, b: WorldBlock, rm: RowModel, rd: RowData):
    """Per Jacobian side (articulations ``a``) of the pyramidal contact at the world's contact slot ``slot``
    between ``bodies``: the ydense offset of its path's slot where :func:`path_bases` filled one and the
    side's body ends that path, else -1."""
    out = wp.vec2i(-1, -1)
    m0 = _map_start(b, rm)
    if m0 < 0:
        return out
    if rd.lane_rows[b.w * rm.jac_lanes] == 0:
        return out
    key = rm.slot_leaf[template_slot(rm.contacts.topo, b.w, slot)]
    for side in range(2):
        if key[side] >= 0:
            body = bodies[0]
            if body < 0 or rm.tree.body_art[body] != a[side]:
                body = bodies[1]
            if rm.tree.body_dof_last[body] - b.wd0 == key[side]:
                v = item(rd.ydense, m0 + key[side])
                if v < 0.0:
                    out[side] = _slot_start(m0, int(-v) - 1, b.wn)
    return out


@wp.func(inline=True)
def _slot_start(m0: int, j: int, wn: int):
    """Offset of path slot j in ``ydense``, the world's path map row at ``m0`` (slots follow it, SLOT_ROWS rows
    of wn floats each)."""
    return m0 + (1 + SLOT_ROWS * j) * wn


@wp.func(inline=True)
def _rows(
    ydense: wp.array(dtype=float),
    o: int,
    stride: int,
    n: wp.vec3,
    t1: wp.vec3,
    t2: wp.vec3,
    rn: wp.vec3,
    r1: wp.vec3,
    r2: wp.vec3,
):
    """The three basis rows (n, t1, t2, with their levers r x d) applied to the spatial 6-vector at ``o`` of
    ``ydense`` (entries ``stride`` apart: a Z column entry, or one of the slot's two sums)."""
    top = wp.vec3(item(ydense, o), item(ydense, o + stride), item(ydense, o + 2 * stride))
    bottom = wp.vec3(item(ydense, o + 3 * stride), item(ydense, o + 4 * stride), item(ydense, o + 5 * stride))
    return wp.vec3(
        wp.dot(n, top) + wp.dot(rn, bottom), wp.dot(t1, top) + wp.dot(r1, bottom), wp.dot(t2, top) + wp.dot(r2, bottom)
    )


@wp.func(inline=True)  # takes the tables by value: inlined, they are not copied
def path_rows(
    z0: int,
    kd: int,
    sign: float,
    n: wp.vec3,
    t1: wp.vec3,
    t2: wp.vec3,
    lever: wp.vec3,
    out: wp.vec3i,
    b: WorldBlock,
    rm: RowModel,
    rd: RowData,
):
    """The basis rows' Y (n, t1, t2 in that order, times ``sign``) along the path from DOF ``kd`` to the root,
    from the slot at ``z0``, written at ``rd.minv_jac[out[t] + DOF]``; returns (their J qacc_smooth, their J
    qd)."""
    wn = b.wn
    rn = wp.cross(lever, n)
    r1 = wp.cross(lever, t1)
    r2 = wp.cross(lever, t2)
    while kd >= 0:
        y = sign * _rows(rd.ydense, z0 + kd - b.wd0, wn, n, t1, t2, rn, r1, r2)
        for t in range(3):
            item_set(rd.minv_jac, out[t] + kd, y[t])
        kd = item(rm.tree.dof_parent, kd)
    a0 = sign * _rows(rd.ydense, z0 + 6 * wn, 1, n, t1, t2, rn, r1, r2)
    v = sign * _rows(rd.ydense, z0 + 7 * wn, 1, n, t1, t2, rn, r1, r2)
    return a0, v


@wp.kernel(enable_backward=False)
def _slot_leaf_kernel(rm: RowModel, slot_world: wp.array(dtype=int), leaf_out: wp.array(dtype=wp.vec2i)):
    """Per template slot (``slot_world``: the first world of its template; -1: none): its ``RowModel.slot_leaf``
    where it is pyramidal."""
    ts = wp.tid()
    w = slot_world[ts]
    leaf = wp.vec2i(-1, -1)
    if w >= 0 and rm.slot_nrows[ts] == 4:
        topo = rm.contacts.topo
        slot = ts - topo.template_slot_start[topo.block_template[w]] + topo.block_slot_start[w]
        bodies = pair_bodies(topo, w, slot_pair(topo, w, slot)[1])
        a = pair_arts(bodies, rm.tree.body_art)
        leaves = side_leaves(bodies, a, rm)
        for side in range(2):
            if leaves[side] >= 0:
                leaf[side] = rm.tree.art_dof_start[a[side]] + leaves[side] - rm.world_dof_start[w]
    leaf_out[ts] = leaf


def slot_leaves(rm: RowModel, contacts, device) -> wp.array:
    """``RowModel.slot_leaf`` of a Newton world solve, (template slots,) vec2i: per pyramidal contact slot,
    each Jacobian side's path key (the last DOF of the side's one body, counted from its world's first DOF; -1
    where the side has none or two bodies), read in the first world of the slot's template (a contact row
    checks it against its own body before it uses a path's slot)."""
    pairs = contacts.pairs
    count = int(rm.slot_nrows.shape[0])
    leaf = wp.full(count, wp.vec2i(-1, -1), dtype=wp.vec2i, device=device)
    if pairs is None or contacts.slot_count == 0:
        return leaf
    starts = np.asarray(pairs.template_slot_start, dtype=np.int64)
    template = np.searchsorted(starts, np.arange(count), side="right") - 1
    first = np.asarray(pairs.templates.template_block, dtype=np.int64)
    valid = (template >= 0) & (template < len(first)) & (np.arange(count) < starts[-1])
    slot_world = np.where(valid, first[np.clip(template, 0, max(len(first) - 1, 0))], -1).astype(np.int32)
    wp.launch(
        _slot_leaf_kernel,
        dim=count,
        inputs=[rm, wp.array(slot_world, dtype=int, device=device)],
        outputs=[leaf],
        device=device,
    )
    return leaf
