"""Constraint rows: contacts, joint limits, joint friction and equality constraints as MuJoCo soft
constraints (MuJoCo computation: "Soft constraints").

Rows are laid out once per world: [contact rows][limit rows][friction rows][equality rows];
each row has a static owner (contact slot, DOF or equality) and is switched on per substep. A row's
Jacobian is stored densely per side: side 0 and side 1 each hold one articulation's DOF block
(max_art_dofs wide), so rows coupling two articulations of a world need no global matrix.

Per row and substep (in :mod:`.world_solve`) we compute J, Y = L^-T J^T (M = L^T L), A_ii = Y^T Y,
the unconstrained acceleration a0 = J qacc_smooth, the velocity v = J qd and position error r, and from solref / solimp
the impedance d(r), R = (1 - d) / d * A_ii and a_ref = -b v - k r with b = 2 / (d_max tc),
k = d(r) / (d_max^2 tc^2 zeta^2), tc >= 2 dt (MuJoCo computation: "Soft constraints"; solref
"refsafe" clamp).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..errors import ModelBuildError
from ..sim.types import EqType, JointType
from .layout import DeclaredFields
from .spatial import point_jacobian

__all__ = [
    "Rows",
    "build_rows",
    "make_rows",
    "reset_warmstart",
    "ROW_CONTACT",
    "ROW_LIMIT",
    "ROW_FRICTION",
    "ROW_EQUALITY",
]

ROW_CONTACT = 0
ROW_LIMIT = 1
ROW_FRICTION = 2
ROW_EQUALITY = 3
# Kernels index a row's Jacobian as row * 2 * width + k in int32 (and Warp arrays hold at most this many).
MAX_ROW_FLOATS = 2**31 - 1
_EQUALITY = wp.constant(ROW_EQUALITY)
_JOINT = wp.constant(int(EqType.JOINT))
vec5 = wp.types.vector(5, wp.float32)


@dataclass(eq=False)
class Rows(DeclaredFields):
    """Constraint rows of all worlds (see module docstring), laid out once by :func:`build_rows`; the only
    place their fields are declared (:class:`.layout.DeclaredFields`: no other attribute can be set).
    Warp arrays of a row count hold at least one element, so a model without rows still launches.

    Units: a row's force f is [N] for contact and connect rows, [N m] or [N] (the DOF's generalized force)
    for limit, friction and joint-equality rows; J maps generalized velocities to the row's velocity.
    """

    # Layout (host).
    count: int = 0  # total rows over all worlds
    width: int = 8  # floats per Jacobian side: max_art_dofs rounded up to 8 (padding stays 0)
    cone: str = "pyramidal"  # "pyramidal" (4 edge rows per contact) or "elliptic" (normal + 2 tangents)
    world_count: int = 1  # worlds of the solve (max(1, model.world_count))
    kind_host: np.ndarray = None  # (count,) int32 NumPy copy of ``kind``
    # Static row tables (Warp int32 unless noted).
    world_row_start: wp.array = None  # (world_count + 1,) first row of each world
    kind: wp.array = None  # (count,) ROW_CONTACT / ROW_LIMIT / ROW_FRICTION / ROW_EQUALITY
    owner: wp.array = None  # (count,) contact slot, DOF or equality constraint of the row
    sub: wp.array = None  # (count,) sub-row: pyramid edge / tangent, equality component
    art: wp.array = None  # (count,) vec2i articulation of side 0 / side 1 (-1: none)
    row_world: wp.array = None  # (count,) world of each row
    slot_row: wp.array = None  # (slot_count,) first row of each contact slot
    slot_nrows: wp.array = None  # (slot_count,) rows of each contact slot (1, 3 or 4)
    # Per substep (float32 unless noted).
    active: wp.array = None  # (count,) int32 1 where the row takes part in this substep's solve
    jac: wp.array = None  # (count * 2 * width,) J per side [m/rad, - or 1/m per DOF unit]
    minv_jac: wp.array = None  # (count * 2 * width,) Y = L^-T J^T per side (M = L^T L, so A = Y^T Y)
    pos: wp.array = None  # (count,) position error r [m or rad] (negative: violated)
    solref: wp.array = None  # (count,) vec2 MuJoCo solref (time constant [s], damping ratio [-])
    solimp: wp.array = None  # (count,) vec5 MuJoCo solimp (dmin, dmax [-], width [m or rad], mid, power)
    diag_approx: wp.array = None  # (count,) MuJoCo's diagApprox of A_ii [1/kg or 1/(kg m^2)]
    lo: wp.array = None  # (count,) lower force bound [N or N m]
    hi: wp.array = None  # (count,) upper force bound [N or N m]
    force: wp.array = None  # (count,) last solved force [N or N m], the next substep's warm start
    # Parameters of the rows the solver creates itself (joint limits and joint friction).
    limit_solref: wp.vec2 = None  # joint-limit solref ([s], [-])
    limit_solimp: vec5 = None  # joint-limit solimp
    friction_solref: wp.vec2 = None  # joint-friction solref ([s], [-])
    friction_solimp: vec5 = None  # joint-friction solimp
    friction_rest_speed: float = 0.0  # [m/s or rad/s] below it a DOF's static friction applies
    # Equality constraints.
    eq_anchor2: wp.array = None  # (equality_count,) vec3 anchor in body2's frame [m]
    eq_rel: wp.array = None  # (equality_count,) transform of body1 relative to body2 (weld target)
    # MuJoCo's inverse weights at the initial state (:func:`set_invweights`).
    body_invweight: wp.array = None  # (body_count,) vec2 translation [1/kg] and rotation [1/(kg m^2)]
    dof_invweight: wp.array = None  # (joint_dof_count,) diag(M^-1) [1/kg or 1/(kg m^2)]
    world_scale: wp.array = None  # (world_count,) 1 / (mean diag(M) * DOFs) [1/kg]: Newton's stop scale


def _row_counts(condim: np.ndarray, cone: str) -> np.ndarray:
    """Rows per contact of each condim: 1 for frictionless contacts, else 4 (pyramidal) or 3 (elliptic)."""
    return np.where(np.asarray(condim) == 1, 1, 4 if cone == "pyramidal" else 3).astype(np.int64)


def _row_table(model, layout, contacts, cone: str):
    """(table (R, 5) int64 of (kind, owner, sub, art0, art1), world (R,)): every row, world by world;
    within a world contacts (pair, slot, row), then limits and frictions (DOF order), then equalities."""
    parts, worlds, rank = [], [], []
    pair_art = _pair_articulations(model, layout, contacts)
    if contacts.pair_count:
        nr = _row_counts(contacts.pair_condim_host, cone)
        slot_pair = np.repeat(np.arange(contacts.pair_count), contacts.pair_slots_host)
        slot = np.arange(len(slot_pair))
        row_slot = np.repeat(slot, nr[slot_pair])
        first = np.concatenate([[0], np.cumsum(nr[slot_pair])])[:-1]
        sub = np.arange(len(row_slot)) - np.repeat(first, nr[slot_pair])
        pair = slot_pair[row_slot]
        parts.append(np.column_stack([np.full(len(row_slot), ROW_CONTACT), row_slot, sub, pair_art[pair]]))
        worlds.append(np.asarray(contacts.pair_world_host, dtype=np.int64)[pair])
        rank.append(np.zeros(len(row_slot), np.int64))
    dof_art = np.asarray(layout.dof_art, dtype=np.int64)
    dof_world = np.asarray(layout.art_world, dtype=np.int64)[dof_art] if model.joint_dof_count else np.zeros(0, int)
    lower, upper = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy()
    fric = np.maximum(model.joint_friction.numpy(), model.joint_friction_dynamic.numpy())
    limited = np.nonzero((np.asarray(layout.dof_coord) >= 0) & ((lower > -1e9) | (upper < 1e9)))[0]
    rubbing = np.nonzero(fric > 0.0)[0]
    for kind, dofs, order in ((ROW_LIMIT, limited, 1), (ROW_FRICTION, rubbing, 2)):
        parts.append(
            np.column_stack(
                [np.full(len(dofs), kind), dofs, np.zeros(len(dofs), int), dof_art[dofs], np.full(len(dofs), -1)]
            )
        )
        worlds.append(dof_world[dofs])
        rank.append(np.full(len(dofs), order))
    per_world = [[] for _ in range(layout.world_count)]
    _equality_rows(model, layout, per_world)
    eq = [(w, r) for w, lst in enumerate(per_world) for r in lst]
    if eq:
        parts.append(np.asarray([r for _, r in eq], dtype=np.int64).reshape(-1, 5))
        worlds.append(np.asarray([w for w, _ in eq], dtype=np.int64))
        rank.append(np.full(len(eq), 3))
    table = np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 5), np.int64)
    world = np.concatenate(worlds).astype(np.int64) if worlds else np.zeros(0, np.int64)
    order = np.argsort(world * 4 + np.concatenate(rank), kind="stable") if len(world) else np.zeros(0, int)
    return table[order], world[order]


def build_rows(model, layout, contacts, cone: str, params: dict) -> Rows:
    """Lay out every row once (host, vectorised over worlds)."""
    worlds = layout.world_count
    table, row_world = _row_table(model, layout, contacts, cone)
    rows = Rows()
    rows.count = len(table)
    rows.width = -(-max(layout.max_art_dofs, 1) // 8) * 8  # whole vec8 chunks per side (see world_pgs)
    rows.cone = cone
    rows.world_count = worlds
    need = rows.count * 2 * rows.width
    if need > MAX_ROW_FLOATS:
        raise ModelBuildError(
            f"SolverGeneralized: {rows.count} constraint rows ({contacts.pair_count} candidate contact pairs) x 2 "
            f"sides x {rows.width} DOFs (the largest articulation's, padded to 8) = {need} Jacobian floats, above "
            f"the limit of 2^31 - 1 (int32 indexing); rows grow with the square of the colliding links and "
            f"their width with the articulation's DOFs: disable self-collisions (add_articulation("
            f"enable_self_collisions=False)) or filter shape pairs"
        )
    starts = np.concatenate([[0], np.cumsum(np.bincount(row_world, minlength=worlds)[:worlds])]).astype(np.int32)
    table = table.astype(np.int32)
    rows.kind_host = table[:, 0]
    dev = model.device
    n = max(rows.count, 1)

    def arr(x, dtype):
        x = np.ascontiguousarray(x)
        if len(x) == 0:
            x = np.zeros((1,) + x.shape[1:], dtype=x.dtype)
        return wp.array(x, dtype=dtype, device=dev)

    rows.world_row_start = arr(starts, wp.int32)
    rows.kind = arr(table[:, 0], wp.int32)
    rows.owner = arr(table[:, 1], wp.int32)
    rows.sub = arr(table[:, 2], wp.int32)
    rows.art = arr(table[:, 3:5].reshape(-1, 2), wp.vec2i)
    rows.row_world = arr(np.repeat(np.arange(worlds), np.diff(starts)).astype(np.int32), wp.int32)
    rows.active = wp.zeros(n, dtype=wp.int32, device=dev)
    rows.lo = wp.zeros(n, dtype=wp.float32, device=dev)
    rows.hi = wp.zeros(n, dtype=wp.float32, device=dev)
    rows.force = wp.zeros(n, dtype=wp.float32, device=dev)
    rows.pos = wp.zeros(n, dtype=wp.float32, device=dev)
    rows.diag_approx = wp.zeros(n, dtype=wp.float32, device=dev)
    rows.solref = wp.zeros(n, dtype=wp.vec2, device=dev)
    rows.solimp = wp.zeros(n, dtype=vec5, device=dev)
    slot_row = np.zeros(max(contacts.slot_count, 1), np.int32)
    is_first = (table[:, 0] == ROW_CONTACT) & (table[:, 2] == 0)
    slot_row[table[is_first, 1]] = np.nonzero(is_first)[0]
    rows.slot_row = wp.array(slot_row, dtype=wp.int32, device=dev)
    slot_nrows = np.zeros(1, np.int32)
    if contacts.slot_count:
        nr = _row_counts(contacts.pair_condim_host, cone)
        slot_nrows = nr[np.repeat(np.arange(contacts.pair_count), contacts.pair_slots_host)].astype(np.int32)
    rows.slot_nrows = wp.array(slot_nrows, dtype=wp.int32, device=dev)
    rows.jac = wp.zeros(n * 2 * rows.width, dtype=wp.float32, device=dev)
    rows.minv_jac = wp.zeros(n * 2 * rows.width, dtype=wp.float32, device=dev)
    rows.limit_solref = wp.vec2(*params["limit_solref"])
    rows.limit_solimp = vec5(*params["limit_solimp"])
    rows.friction_solref = wp.vec2(*params["friction_solref"])
    rows.friction_solimp = vec5(*params["friction_solimp"])
    rows.friction_rest_speed = float(params["friction_rest_speed"])
    _equality_anchors(model, rows, dev)
    rows.body_invweight = wp.zeros(max(model.body_count, 1), dtype=wp.vec2, device=dev)
    rows.dof_invweight = wp.zeros(max(model.joint_dof_count, 1), dtype=wp.float32, device=dev)
    rows.world_scale = wp.ones(worlds, dtype=wp.float32, device=dev)
    return rows


def set_invweights(model, layout, data, rows):
    """MuJoCo's body_invweight0 / dof_invweight0: mean diagonal of J M^-1 J^T for each body's COM
    translation and rotation, and diag(M^-1), at the state the smooth pipeline last evaluated (the
    model's initial state, with armature). Host computation, once, batched over the articulations of
    each DOF count (thousands of worlds cost one batched inverse and a few batched products, not a Python
    loop per body)."""
    mass = data.mass_matrix.numpy()
    cdof = data.cdof.numpy().reshape(-1, 6)
    ref = data.art_ref.numpy().reshape(-1, 3)
    armature = model.joint_armature.numpy()
    body_q = data.body_q.numpy().reshape(-1, 7)
    com_local = model.body_com.numpy().reshape(-1, 3)
    from ..sim.hostmath import transform_point

    body_w = np.zeros((max(model.body_count, 1), 2))
    dof_w = np.zeros(max(model.joint_dof_count, 1))
    dof_m = np.zeros(max(model.joint_dof_count, 1))
    art_start = np.asarray(layout.art_dof_start, dtype=np.int64)
    counts = np.diff(art_start)
    body_art = np.asarray(layout.body_art, dtype=np.int64)
    dof_parent = np.asarray(layout.dof_parent, dtype=np.int64)
    groups = []  # (arts, their (A, n, n) M^-1) per DOF count n
    for n in np.unique(counts[counts > 0]):
        n = int(n)
        arts = np.nonzero(counts == n)[0]
        idx = art_start[arts][:, None] + np.arange(n)  # (A, n) DOF indices
        entries = np.asarray(layout.art_mat_start, dtype=np.int64)[arts][:, None] + np.arange(n * n)
        mats = mass[entries].reshape(-1, n, n) + armature[idx][:, :, None] * np.eye(n)
        minv = np.linalg.inv(mats)
        groups.append((arts, minv))
        dof_w[idx] = np.diagonal(minv, axis1=1, axis2=2)
        dof_m[idx] = np.diagonal(mats, axis1=1, axis2=2)
        position = np.full(len(counts), -1)
        position[arts] = np.arange(len(arts))
        bodies = np.nonzero((body_art >= 0) & (position[np.maximum(body_art, 0)] >= 0))[0]
        if len(bodies) == 0:
            continue
        bodies = bodies[np.argsort(position[body_art[bodies]], kind="stable")]  # articulation by articulation
        group = position[body_art[bodies]]  # (B,) index into arts, ascending
        lever = transform_point(body_q[bodies], com_local[bodies]) - ref[arts[group]]
        # which DOFs move each body: its chain from its last DOF up through the DOF parents
        chain = np.zeros((len(bodies), n), dtype=bool)
        k = np.asarray(layout.body_dof_last, dtype=np.int64)[bodies]
        first = art_start[arts[group]]
        while (k >= 0).any():
            live = np.nonzero(k >= 0)[0]
            chain[live, k[live] - first[live]] = True
            k[live] = dof_parent[k[live]]
        trans, rot = _body_quadratics(cdof[idx], minv, group, lever, chain)
        body_w[bodies, 0] = trans
        body_w[bodies, 1] = rot
    _joint_block_invweights(model, layout, groups, body_q, com_local, dof_w)
    rows.body_invweight.assign(body_w.astype(np.float32))
    rows.dof_invweight.assign(dof_w.astype(np.float32))
    # Newton's convergence scale, MuJoCo's 1 / (meaninertia max(1, nv)), per world.
    world = layout.art_world[layout.dof_art] if model.joint_dof_count else np.zeros(0, np.int64)
    count = np.bincount(world, minlength=rows.world_count)[: rows.world_count]
    total = np.bincount(world, weights=dof_m[: len(world)], minlength=rows.world_count)[: rows.world_count]
    mean = np.where(count > 0, total / np.maximum(count, 1), 1.0)
    rows.world_scale.assign((1.0 / (np.maximum(mean, 1e-10) * np.maximum(count, 1))).astype(np.float32))


def _body_quadratics(cdof, minv, group, lever, chain):
    """trace(J^T M^-1 J) / 3 of each body's COM translation and rotation Jacobians J (n, 3), the columns
    s_top + s_bottom x lever (translation) and s_bottom (rotation) of the DOFs in its ``chain``. ``cdof``
    (A, n, 6) and ``minv`` (A, n, n) are per articulation, ``group`` (B,) ascending gives each body's. The
    bodies of one articulation share one product M^-1 [J_b1 .. J_bm] (articulations with the same body count
    are batched together)."""
    trans, rot = np.zeros(len(group)), np.zeros(len(group))
    starts = np.searchsorted(group, np.arange(len(minv) + 1))
    per = np.diff(starts)
    for m in np.unique(per[per > 0]):
        arts = np.nonzero(per == m)[0]
        take = starts[arts][:, None] + np.arange(m)  # (A, m) bodies of each articulation
        s = cdof[arts][:, :, None, :]  # (A, n, 1, 6)
        w, r = s[..., 3:], lever[take][:, None, :, :]  # angular parts, levers (A, 1, m, 3)
        on = chain[take].transpose(0, 2, 1)[..., None]  # (A, n, m, 1)
        cross = np.stack(
            [
                w[..., 1] * r[..., 2] - w[..., 2] * r[..., 1],
                w[..., 2] * r[..., 0] - w[..., 0] * r[..., 2],
                w[..., 0] * r[..., 1] - w[..., 1] * r[..., 0],
            ],
            axis=-1,
        )
        for out, jac in ((trans, (s[..., :3] + cross) * on), (rot, w * on)):
            j = jac.reshape(len(arts), jac.shape[1], 3 * m)  # (A, n, 3 m): body-major columns
            out[take] = (j * (minv[arts] @ j)).sum(axis=1).reshape(len(arts), m, 3).sum(axis=2) / 3.0
    return trans, rot


def _joint_block_invweights(model, layout, groups, body_q, com_local, dof_w):
    """MuJoCo's dof_invweight0 of free and ball joints: the mean diagonal of J M^-1 J^T over each 3-DOF
    block, with a free joint's linear block taken as MuJoCo's body-origin velocity v_com - w x (R c).
    ``groups`` holds (articulations, their M^-1) per DOF count."""
    from ..sim.hostmath import transform_point

    jtype = model.joint_type.numpy()
    qd_start = model.joint_qd_start.numpy().astype(np.int64)
    child = model.joint_child.numpy()
    dof_art = np.asarray(layout.dof_art, dtype=np.int64)
    art_start = np.asarray(layout.art_dof_start, dtype=np.int64)
    blocks = np.nonzero((jtype == JointType.FREE) | (jtype == JointType.BALL))[0]
    if len(blocks) == 0:
        return
    art = dof_art[qd_start[blocks]]
    three = np.arange(3)
    for arts, minv in groups:
        position = np.full(len(art_start), -1)
        position[arts] = np.arange(len(arts))
        mine = position[art] >= 0
        j, mi = blocks[mine], minv[position[art[mine]]]  # (J,), (J, n, n)
        d = qd_start[j]
        k = d - art_start[art[mine]]  # first DOF of the block inside its articulation
        rot = np.where(jtype[j] == JointType.BALL, k, k + 3)  # the rotational block
        dof_w[d[:, None] + np.where(jtype[j] == JointType.BALL, 0, 3)[:, None] + three] = (
            mi[np.arange(len(j))[:, None], rot[:, None] + three, rot[:, None] + three].sum(axis=1) / 3.0
        )[:, None]
        free = np.nonzero(jtype[j] == JointType.FREE)[0]
        if len(free) == 0:
            continue
        c = child[j[free]]
        lever = transform_point(body_q[c], com_local[c]) - body_q[c][:, :3]
        jac = np.zeros((len(free), 3, mi.shape[1]))
        rows_ = np.arange(len(free))[:, None]
        jac[rows_, three, k[free][:, None] + three] = 1.0
        skew = np.zeros((len(free), 3, 3))
        skew[:, 0, 1], skew[:, 0, 2] = -lever[:, 2], lever[:, 1]
        skew[:, 1, 0], skew[:, 1, 2] = lever[:, 2], -lever[:, 0]
        skew[:, 2, 0], skew[:, 2, 1] = -lever[:, 1], lever[:, 0]
        jac[rows_[:, :, None], three[:, None], (k[free] + 3)[:, None, None] + three] = skew
        lin = (jac @ mi[free] * jac).sum(axis=(1, 2)) / 3.0
        dof_w[d[free][:, None] + three] = lin[:, None]


def _pair_articulations(model, layout, contacts):
    if contacts.pair_count == 0:
        return np.zeros((0, 2), np.int64)
    pb = contacts.pair_body.numpy().reshape(-1, 2)
    art = np.append(layout.body_art, -1)[pb]
    art[:, 1] = np.where(art[:, 1] == art[:, 0], -1, art[:, 1])
    return art


def _equality_rows(model, layout, per_world):
    if model.equality_constraint_count == 0:
        return
    etype = model.equality_constraint_type.numpy()
    b1 = model.equality_constraint_body1.numpy()
    b2 = model.equality_constraint_body2.numpy()
    j1 = model.equality_constraint_joint1.numpy()
    j2 = model.equality_constraint_joint2.numpy()
    world = model.equality_constraint_world.numpy()
    qd_start = model.joint_qd_start.numpy()
    body_art = np.append(layout.body_art, -1)
    dof_art = np.append(layout.dof_art, -1)
    for e in range(model.equality_constraint_count):
        w = int(max(world[e], 0))
        if etype[e] == EqType.JOINT:
            a0 = dof_art[qd_start[j1[e]]] if j1[e] >= 0 else -1
            a1 = dof_art[qd_start[j2[e]]] if j2[e] >= 0 else -1
            n = 1
        else:
            a0, a1 = body_art[b1[e]], body_art[b2[e]]
            n = 3 if etype[e] == EqType.CONNECT else 6
        if a1 == a0:
            a1 = -1
        for k in range(n):
            per_world[w].append((ROW_EQUALITY, e, k, int(a0), int(a1)))


def _equality_anchors(model, rows, dev):
    """Anchor of each equality on body2 and weld relative rotation, from the model's initial poses."""
    from ..sim.hostmath import transform_inverse, transform_mul, transform_point

    ne = model.equality_constraint_count
    anchor2 = np.zeros((max(ne, 1), 3))
    rel = np.tile(np.array([0, 0, 0, 0, 0, 0, 1.0]), (max(ne, 1), 1))
    if ne:
        bq = model.body_q.numpy().astype(np.float64)
        ident = np.array([0, 0, 0, 0, 0, 0, 1.0])
        b1 = model.equality_constraint_body1.numpy()
        b2 = model.equality_constraint_body2.numpy()
        anchor = model.equality_constraint_anchor.numpy()
        relpose = model.equality_constraint_relpose.numpy().astype(np.float64)
        for e in range(ne):
            x1 = bq[b1[e]] if b1[e] >= 0 else ident
            x2 = bq[b2[e]] if b2[e] >= 0 else ident
            # body1 pose relative to body2: given relpose, or the initial one when relpose is identity.
            r12 = transform_mul(transform_inverse(x2), x1)
            if not np.allclose(relpose[e], ident):
                r12 = relpose[e]
            rel[e] = r12
            anchor2[e] = transform_point(r12, anchor[e])
    rows.eq_anchor2 = wp.array(anchor2.astype(np.float32), dtype=wp.vec3, device=dev)
    rows.eq_rel = wp.array(rel.astype(np.float32), dtype=wp.transform, device=dev)


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
def _point_row(
    b: int,
    sign: float,
    side_art: int,
    point: wp.vec3,
    direction: wp.vec3,
    art: wp.vec2i,
    body_dof_last: wp.array(dtype=int),
    dof_parent: wp.array(dtype=int),
    art_dof_start: wp.array(dtype=int),
    art_ref: wp.array(dtype=wp.vec3),
    cdof: wp.array(dtype=wp.spatial_vector),
    base: int,
    width: int,
    jac: wp.array(dtype=float),
):
    """Add sign * d(direction . v_point)/d qd of a point on body b to the row's side holding its
    articulation."""
    if side_art < 0:
        return
    side = int(0)
    if art[1] == side_art:
        side = 1
    d0 = art_dof_start[side_art]
    lever = point - art_ref[side_art]
    k = body_dof_last[b]
    while k >= 0:
        idx = base + side * width + k - d0
        jac[idx] = jac[idx] + sign * point_jacobian(cdof[k], lever, direction)
        k = dof_parent[k]


@wp.func
def _angular_row(
    b: int,
    sign: float,
    side_art: int,
    direction: wp.vec3,
    art: wp.vec2i,
    body_dof_last: wp.array(dtype=int),
    dof_parent: wp.array(dtype=int),
    art_dof_start: wp.array(dtype=int),
    cdof: wp.array(dtype=wp.spatial_vector),
    base: int,
    width: int,
    jac: wp.array(dtype=float),
):
    if side_art < 0:
        return
    side = int(0)
    if art[1] == side_art:
        side = 1
    d0 = art_dof_start[side_art]
    k = body_dof_last[b]
    while k >= 0:
        idx = base + side * width + k - d0
        jac[idx] = jac[idx] + sign * wp.dot(direction, wp.spatial_bottom(cdof[k]))
        k = dof_parent[k]


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


@wp.func
def _clear_row(base: int, width: int, jac: wp.array(dtype=float)):
    for i in range(2 * width):
        jac[base + i] = 0.0


@wp.kernel
def _equality_rows_kernel(
    # Model:
    first: int,
    kind: wp.array(dtype=int),
    owner: wp.array(dtype=int),
    sub: wp.array(dtype=int),
    art: wp.array(dtype=wp.vec2i),
    width: int,
    eq_type: wp.array(dtype=int),
    eq_body1: wp.array(dtype=int),
    eq_body2: wp.array(dtype=int),
    eq_anchor: wp.array(dtype=wp.vec3),
    eq_anchor2: wp.array(dtype=wp.vec3),
    eq_rel: wp.array(dtype=wp.transform),
    eq_joint1: wp.array(dtype=int),
    eq_joint2: wp.array(dtype=int),
    eq_polycoef: wp.array(dtype=vec5),
    eq_solref: wp.array(dtype=wp.vec2),
    eq_solimp: wp.array(dtype=vec5),
    eq_enabled: wp.array(dtype=bool),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    body_art: wp.array(dtype=int),
    body_dof_last: wp.array(dtype=int),
    dof_parent: wp.array(dtype=int),
    dof_art: wp.array(dtype=int),
    art_dof_start: wp.array(dtype=int),
    # Data in:
    body_q: wp.array(dtype=wp.transform),
    joint_q: wp.array(dtype=float),
    art_ref: wp.array(dtype=wp.vec3),
    cdof: wp.array(dtype=wp.spatial_vector),
    body_invweight: wp.array(dtype=wp.vec2),
    dof_invweight: wp.array(dtype=float),
    # Data out:
    active_out: wp.array(dtype=int),
    jac_out: wp.array(dtype=float),
    pos_out: wp.array(dtype=float),
    solref_out: wp.array(dtype=wp.vec2),
    solimp_out: wp.array(dtype=vec5),
    lo_out: wp.array(dtype=float),
    hi_out: wp.array(dtype=float),
    force_out: wp.array(dtype=float),
    diag_approx_out: wp.array(dtype=float),
):
    i = wp.tid() + first
    if kind[i] != _EQUALITY:
        return
    e = owner[i]
    if not eq_enabled[e]:
        active_out[i] = 0
        force_out[i] = 0.0
        return
    base = i * 2 * width
    _clear_row(base, width, jac_out)
    a = art[i]
    s = sub[i]
    pos = float(0.0)
    et = eq_type[e]
    approx = float(0.0)
    if et == _JOINT:
        approx = dof_invweight[joint_qd_start[eq_joint1[e]]]
        if eq_joint2[e] >= 0:
            approx += dof_invweight[joint_qd_start[eq_joint2[e]]]
        pos = _joint_equality_row(
            e,
            eq_joint1,
            eq_joint2,
            eq_polycoef,
            joint_q_start,
            joint_qd_start,
            dof_art,
            art_dof_start,
            joint_q,
            a,
            base,
            width,
            jac_out,
        )
    else:
        b1 = eq_body1[e]
        b2 = eq_body2[e]
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
            approx += body_invweight[b1][comp]
        if b2 >= 0:
            approx += body_invweight[b2][comp]
        if s < 3:
            p1 = wp.transform_point(x1, eq_anchor[e])
            p2 = wp.transform_point(x2, eq_anchor2[e])
            pos = p1[s] - p2[s]
            if b1 >= 0:
                _point_row(
                    b1,
                    1.0,
                    body_art[b1],
                    p1,
                    axis,
                    a,
                    body_dof_last,
                    dof_parent,
                    art_dof_start,
                    art_ref,
                    cdof,
                    base,
                    width,
                    jac_out,
                )
            if b2 >= 0:
                _point_row(
                    b2,
                    -1.0,
                    body_art[b2],
                    p2,
                    axis,
                    a,
                    body_dof_last,
                    dof_parent,
                    art_dof_start,
                    art_ref,
                    cdof,
                    base,
                    width,
                    jac_out,
                )
        else:
            target = wp.transform_get_rotation(x2 * eq_rel[e])
            err = wp.transform_get_rotation(x1) * wp.quat_inverse(target)
            v = 2.0 * wp.vec3(err[0], err[1], err[2])
            if err[3] < 0.0:
                v = -v
            pos = v[s - 3]
            if b1 >= 0:
                _angular_row(
                    b1, 1.0, body_art[b1], axis, a, body_dof_last, dof_parent, art_dof_start, cdof, base, width, jac_out
                )
            if b2 >= 0:
                _angular_row(
                    b2,
                    -1.0,
                    body_art[b2],
                    axis,
                    a,
                    body_dof_last,
                    dof_parent,
                    art_dof_start,
                    cdof,
                    base,
                    width,
                    jac_out,
                )
    active_out[i] = 1
    diag_approx_out[i] = approx
    pos_out[i] = pos
    solref_out[i] = eq_solref[e]
    solimp_out[i] = eq_solimp[e]
    lo_out[i] = -1.0e30
    hi_out[i] = 1.0e30


@wp.func
def _joint_equality_row(
    e: int,
    eq_joint1: wp.array(dtype=int),
    eq_joint2: wp.array(dtype=int),
    eq_polycoef: wp.array(dtype=vec5),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    dof_art: wp.array(dtype=int),
    art_dof_start: wp.array(dtype=int),
    joint_q: wp.array(dtype=float),
    a: wp.vec2i,
    base: int,
    width: int,
    jac_out: wp.array(dtype=float),
):
    """Row of q1 - poly(q2) (MuJoCo joint equality); returns the violation."""
    c = eq_polycoef[e]
    d1 = joint_qd_start[eq_joint1[e]]
    q1 = joint_q[joint_q_start[eq_joint1[e]]]
    side1 = int(0)
    if a[1] == dof_art[d1]:
        side1 = 1
    jac_out[base + side1 * width + d1 - art_dof_start[dof_art[d1]]] = 1.0
    target = c[0]
    j2 = eq_joint2[e]
    if j2 >= 0:
        d2 = joint_qd_start[j2]
        q2 = joint_q[joint_q_start[j2]]
        target = c[0] + q2 * (c[1] + q2 * (c[2] + q2 * (c[3] + q2 * c[4])))
        slope = c[1] + q2 * (2.0 * c[2] + q2 * (3.0 * c[3] + q2 * 4.0 * c[4]))
        side2 = int(0)
        if a[1] == dof_art[d2]:
            side2 = 1
        idx = base + side2 * width + d2 - art_dof_start[dof_art[d2]]
        jac_out[idx] = jac_out[idx] - slope
    return q1 - target


def make_rows(model, tree, data, rows, joint_q, span):
    """Fill the equality rows (Jacobian, bounds, solref / solimp) among the rows in ``span`` = (first, count)
    for this substep; contact, limit and friction rows are filled inside the world kernel (:mod:`.world_solve`)."""
    if span[1] == 0 or model.equality_constraint_count == 0:
        return
    outs = [rows.active, rows.jac, rows.pos, rows.solref, rows.solimp, rows.lo, rows.hi, rows.force, rows.diag_approx]
    wp.launch(
        _equality_rows_kernel,
        dim=span[1],
        device=model.device,
        inputs=[
            span[0],
            rows.kind,
            rows.owner,
            rows.sub,
            rows.art,
            rows.width,
            model.equality_constraint_type,
            model.equality_constraint_body1,
            model.equality_constraint_body2,
            model.equality_constraint_anchor,
            rows.eq_anchor2,
            rows.eq_rel,
            model.equality_constraint_joint1,
            model.equality_constraint_joint2,
            model.equality_constraint_polycoef,
            model.equality_constraint_solref,
            model.equality_constraint_solimp,
            model.equality_constraint_enabled,
            model.joint_q_start,
            model.joint_qd_start,
            tree["body_art"],
            tree["body_dof_last"],
            tree["dof_parent"],
            tree["dof_art"],
            tree["art_dof_start"],
            data.body_q,
            joint_q,
            data.art_ref,
            data.cdof,
            rows.body_invweight,
            rows.dof_invweight,
        ],
        outputs=outs,
    )


@wp.kernel
def _reset_rows_kernel(row_world: wp.array(dtype=int), world_mask: wp.array(dtype=bool), force: wp.array(dtype=float)):
    i = wp.tid()
    if world_mask[row_world[i]]:
        force[i] = 0.0


def reset_warmstart(model, rows, world_mask):
    """Forget the warm-start forces of the masked worlds."""
    if rows.count:
        wp.launch(
            _reset_rows_kernel,
            dim=rows.count,
            device=model.device,
            inputs=[rows.row_world, world_mask],
            outputs=[rows.force],
        )
