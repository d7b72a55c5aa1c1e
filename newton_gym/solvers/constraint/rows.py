"""Constraint rows: contacts, joint limits, joint friction, equality constraints, tendon limits and tendon
friction as MuJoCo soft constraints (MuJoCo computation: "Soft constraints").

Rows are laid out once per world: [contact rows][limit rows][friction rows][equality rows][tendon limit
rows][tendon friction rows]. Each row has a static owner (a contact slot's sub-row, a DOF, an equality
component, or a tendon: two limit rows, lower then upper, and one friction row) and keeps its last force there
(the warm start); nothing else is stored per row. The rows active in a substep are filled, world by world,
into that world's compact range of at most ``row_budget`` rows (MuJoCo's njmax, per world): the joint-limit,
joint-friction, equality and tendon rows ("xrows", few: at most two per DOF, six per equality, three per
tendon) always have room, the contacts share the rest in slot order. A world whose active rows do not fit
drops the contacts that do not fit for that substep (their warm starts cleared) and raises its
``row_overflow`` flag, on the device. A row's Jacobian is stored densely per side: side 0 and side 1 each hold
one articulation's DOF block (max_art_dofs wide), so rows coupling two articulations of a world need no global
matrix.

Per row and substep the world solve (:mod:`..solve.world`, rows filled by :mod:`.assemble`) computes J,
Y = L^-T J^T (M = L^T L), A_ii = Y^T Y, the unconstrained acceleration a0 = J qacc_smooth, the velocity
v = J qd and position error r, and from solref / solimp the impedance d(r), R = (1 - d) / d * A_ii and
a_ref = -b v - k r with b = 2 / (d_max tc), k = d(r) / (d_max^2 tc^2 zeta^2), tc >= 2 dt (MuJoCo
computation: "Soft constraints"; solref "refsafe" clamp). This module is the host side: the layout, the
budgets and the inverse weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ...errors import ModelBuildError
from ...sim.types import EqType
from ..tree import DeclaredFields
from ..types import vec5

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = [
    "Rows",
    "build_rows",
    "default_row_budget",
    "reset_warmstart",
    "padded_array",
    "ROW_CONTACT",
    "ROW_LIMIT",
    "ROW_FRICTION",
    "ROW_EQUALITY",
    "ROW_TENDON_LIMIT",
    "ROW_TENDON_FRICTION",
]

ROW_CONTACT = 0
ROW_LIMIT = 1
ROW_FRICTION = 2
ROW_EQUALITY = 3
ROW_TENDON_LIMIT = 4
ROW_TENDON_FRICTION = 5
# Kernels index a compact row's Jacobian as row * 2 * width + k in int32 (and Warp arrays hold at most this many).
MAX_ROW_FLOATS = 2**31 - 1


@dataclass(eq=False)
class Rows(DeclaredFields):
    """Constraint rows of all worlds (see module docstring), laid out once by :func:`build_rows`; the only
    place their fields are declared (:class:`..tree.DeclaredFields`: no other attribute can be set).
    Warp arrays hold at least one element, so a model without rows still launches. The per-substep
    terms of the active rows live in the world solve's compact buffers (:class:`.tables.RowData`).

    Units: a row's force f is [N] for contact and connect rows, [N m] or [N] (the DOF's generalized force)
    for limit, friction and joint-equality rows.
    """

    # Layout (host).
    count: int = 0  # total rows over all worlds
    width: int = 8  # floats per Jacobian side: max_art_dofs rounded up to 8 (the padding is written 0)
    cone: str = "pyramidal"  # "pyramidal" (4 edge rows per contact) or "elliptic" (normal + 2 tangents)
    world_count: int = 1  # worlds of the solve (max(1, model.world_count))
    kind_host: np.ndarray = None  # (xrow_count,) int32 kinds of the non-contact rows (contact rows: the slots')
    owner_host: np.ndarray = None  # (xrow_count,) int32 DOF, equality constraint or tendon of each non-contact row
    budget_host: np.ndarray = None  # (world_count,) int64 compact rows of each world (its row budget)
    # Static row tables (Warp int32 unless noted).
    world_row_start: wp.array = None  # (world_count + 1,) first row of each world
    world_slot_start: wp.array = None  # (world_count + 1,) first contact slot of each world
    world_xrow_start: wp.array = None  # (world_count + 1,) first non-contact row (xrow) of each world
    world_budget_start: wp.array = None  # (world_count + 1,) first compact row of each world
    # Per template slot (:mod:`..collision.pairs`): shared by every world of a template.
    slot_row: wp.array = None  # (template slots,) first row of each contact slot within its world's rows
    slot_nrows: wp.array = None  # (template slots,) rows of each contact slot (1, 3 or 4)
    x_kind: wp.array = None  # (xrow_count,) ROW_LIMIT / ROW_FRICTION / ROW_EQUALITY / ROW_TENDON_*
    x_owner: wp.array = None  # (xrow_count,) DOF, equality constraint or tendon of the row
    x_sub: wp.array = None  # (xrow_count,) equality component, tendon limit side (0 lower, 1 upper), else 0
    x_art: wp.array = None  # (xrow_count,) vec2i articulation of side 0 / side 1 (-1: none)
    # Per row, persistent.
    force: wp.array = None  # (count,) last solved force [N or N m], the next substep's warm start (PGS)
    # Per DOF, persistent: the last solve's qacc, the next Newton solve's warm start (MuJoCo's qacc_warmstart).
    qacc_warm: wp.array = None  # (joint_dof_count,) [m/s^2 or rad/s^2]
    dof_world: wp.array = None  # (joint_dof_count,) world of each DOF (reset_warmstart's mask)
    # Per world, sticky until reset_warmstart (device; read them at a sync point of your own).
    row_peak: wp.array = None  # (world_count,) most rows a substep needed (active contacts' + all xrows)
    row_overflow: wp.array = None  # (world_count,) 1 once a substep needed more rows than the world's budget
    # Parameters of the rows the solver creates itself (joint limits and joint friction).
    limit_solref: wp.vec2 = None  # joint-limit solref ([s], [-])
    limit_solimp: vec5 = None  # joint-limit solimp
    friction_solref: wp.vec2 = None  # joint-friction solref ([s], [-])
    friction_solimp: vec5 = None  # joint-friction solimp
    friction_rest_speed: float = 0.0  # [m/s or rad/s] below it a DOF's static friction applies
    impratio: float = 1.0  # MuJoCo's frictional-to-normal impedance ratio (pyramid rows' R / impratio)
    # Equality constraints.
    eq_anchor2: wp.array = None  # (equality_count,) vec3 anchor in body2's frame [m]
    eq_rel: wp.array = None  # (equality_count,) transform of body1 relative to body2 (weld target)
    # MuJoCo's inverse weights at the authored pose, qpos0 (:func:`set_invweights`).
    body_invweight: wp.array = None  # (body_count,) vec2 translation [1/kg] and rotation [1/(kg m^2)]
    dof_invweight: wp.array = None  # (joint_dof_count,) diag(M^-1) [1/kg or 1/(kg m^2)]
    world_scale: wp.array = None  # (world_count,) 1 / (mean diag(M) * DOFs) [1/kg]: Newton's stop scale


def _row_counts(condim: np.ndarray, cone: str) -> np.ndarray:
    """Rows per contact of each condim: 1 for frictionless contacts, else 4 (pyramidal) or 3 (elliptic)."""
    return np.where(np.asarray(condim) == 1, 1, 4 if cone == "pyramidal" else 3).astype(np.int64)


def _xrow_table(model, layout, tendons=None):
    """(table (X, 5) int64 of (kind, owner, sub, art0, art1), world (X,)): the joint-limit, joint-friction,
    equality and tendon rows, world by world; within a world limits and frictions (DOF order), equalities,
    tendon limits (lower and upper, tendon order), tendon frictions."""
    dof_art = np.asarray(layout.dof_art, dtype=np.int64)
    dof_world = np.asarray(layout.art_world, dtype=np.int64)[dof_art] if model.joint_dof_count else np.zeros(0, int)
    lower, upper = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy()
    fric = np.maximum(model.joint_friction.numpy(), model.joint_friction_dynamic.numpy())
    limited = np.nonzero((np.asarray(layout.dof_coord) >= 0) & ((lower > -1e9) | (upper < 1e9)))[0]
    rubbing = np.nonzero(fric > 0.0)[0]
    parts, worlds, rank = [], [], []
    for kind, dofs, order in ((ROW_LIMIT, limited, 0), (ROW_FRICTION, rubbing, 1)):
        zero = np.zeros(len(dofs), np.int64)
        parts.append(np.column_stack([zero + kind, dofs, zero, dof_art[dofs], zero - 1]))
        worlds.append(dof_world[dofs])
        rank.append(zero + order)
    eq, eq_world = _equality_rows(model, layout, tendons)
    parts.append(eq)
    worlds.append(eq_world)
    rank.append(np.full(len(eq), 2, np.int64))
    for order, (tab, tw) in enumerate(_tendon_rows(model, tendons)):
        parts.append(tab)
        worlds.append(tw)
        rank.append(np.full(len(tab), 3 + order, np.int64))
    table = np.concatenate(parts).astype(np.int64)
    world = np.concatenate(worlds).astype(np.int64)
    order = np.argsort(world * 5 + np.concatenate(rank), kind="stable")
    return table[order], world[order]


def _tendon_rows(model, tendons):
    """((limit table (L, 5), world (L,)), (friction table (F, 5), world (F,))): two limit rows (lower, upper)
    per limited tendon and one friction row per tendon with friction loss, in tendon order, with the
    tendon's articulations (:class:`..smooth.tendon.TendonLayout`)."""
    empty = (np.zeros((0, 5), np.int64), np.zeros(0, np.int64))
    if tendons is None or tendons.count == 0:
        return empty, empty
    world = np.maximum(model.tendon_world.numpy().astype(np.int64), 0)
    limited = np.nonzero(model.tendon_limited.numpy())[0]
    rubbing = np.nonzero(model.tendon_frictionloss.numpy() > 0.0)[0]
    lim = np.repeat(limited, 2)
    side = np.tile([0, 1], len(limited))
    out = []
    for kind, t, sub in ((ROW_TENDON_LIMIT, lim, side), (ROW_TENDON_FRICTION, rubbing, np.zeros(len(rubbing)))):
        art = tendons.tendon_art[t]
        out.append((np.column_stack([np.full(len(t), kind), t, sub, art[:, 0], art[:, 1]]).astype(np.int64), world[t]))
    return out[0], out[1]


def default_row_budget(contacts, layout, cone: str) -> np.ndarray:
    """(world_count,) int64 default contact-row budget of each world (its non-contact rows come on top): the
    rows of every contact slot against geometry that does not move (the floor, terrain: all of them may touch
    at once), plus, for contacts between moving bodies (self collisions, other robots, loose objects), one
    full contact per moving body: the most rows of any such pair the body belongs to (a stack of boxes fits;
    a pile of spheres each touching several others may not). Counted once per pair template (worlds of one
    template have the same budget)."""
    pairs = contacts.pairs
    templates = len(pairs.template_pair_start) - 1
    of_pair = np.repeat(np.arange(templates), np.diff(pairs.template_pair_start))
    both = pairs.moving.all(axis=1)
    rows = _row_counts(pairs.condim, cone) * pairs.slots
    fixed = np.bincount(of_pair[~both], weights=rows[~both], minlength=templates)
    # each moving body's most rows over its pairs with another moving body, summed over the template's bodies
    key = np.concatenate([of_pair[both] << 32 | pairs.body[both, k] for k in (0, 1)])
    body_rows = np.concatenate([rows[both]] * 2)
    order = np.argsort(key, kind="stable")
    unique, first = np.unique(key[order], return_index=True)
    most = np.maximum.reduceat(body_rows[order], first) if len(first) else np.zeros(0, np.int64)
    own = np.bincount(unique >> 32, weights=most, minlength=templates)
    return (fixed + own).astype(np.int64)[pairs.templates.block_template][: layout.world_count]


def padded_array(x, dtype, device) -> wp.array:
    """Warp copy of the host array ``x``, one zero element where ``x`` is empty (Warp arrays hold at least one
    element, so a model without rows still launches)."""
    x = np.ascontiguousarray(x)
    if len(x) == 0:
        x = np.zeros((1,) + x.shape[1:], dtype=x.dtype)
    return wp.array(x, dtype=dtype, device=device)


def build_rows(model, layout, contacts, option, tendons=None) -> Rows:
    """Lay out every row once (host, vectorised over worlds), with the cone, the limit / friction solref and
    solimp, ``friction_rest_speed`` and ``row_budget`` of ``option`` (an :class:`..option.Option`): the most
    rows one world solves in a substep (MuJoCo's njmax, per world); None takes :func:`default_row_budget`.
    ``tendons``: the model's :class:`..smooth.tendon.TendonLayout` (None: no tendon rows)."""
    worlds = layout.world_count
    dev = model.device
    xtable, xworld = _xrow_table(model, layout, tendons)
    xrows = np.bincount(xworld, minlength=worlds)[:worlds].astype(np.int64)
    contact_rows, row_start, template_row, template_nrows = _slot_layout(contacts, option.cone, xrows)
    rows = Rows()
    rows.width = -(-max(layout.max_art_dofs, 1) // 8) * 8  # whole vec8 chunks per side (see solve.pgs)
    rows.cone = option.cone
    rows.world_count = worlds
    rows.count = int(row_start[-1])
    budget = _budgets(contacts, layout, option.cone, option.row_budget, contact_rows + xrows, xrows)
    _check_row_floats(budget, rows, contacts.pair_count)
    rows.budget_host = budget
    rows.kind_host = xtable[:, 0].astype(np.int32)
    rows.owner_host = xtable[:, 1].astype(np.int32)
    rows.world_row_start = padded_array(row_start.astype(np.int32), wp.int32, dev)
    rows.world_slot_start = padded_array(contacts.pairs.block_slot_start.astype(np.int32), wp.int32, dev)
    rows.world_xrow_start = padded_array(np.concatenate([[0], np.cumsum(xrows)]).astype(np.int32), wp.int32, dev)
    rows.world_budget_start = padded_array(np.concatenate([[0], np.cumsum(budget)]).astype(np.int32), wp.int32, dev)
    rows.slot_row = padded_array(template_row, wp.int32, dev)
    rows.slot_nrows = padded_array(template_nrows, wp.int32, dev)
    xtable = xtable.astype(np.int32)
    rows.x_kind = padded_array(xtable[:, 0], wp.int32, dev)
    rows.x_owner = padded_array(xtable[:, 1], wp.int32, dev)
    rows.x_sub = padded_array(xtable[:, 2], wp.int32, dev)
    rows.x_art = padded_array(xtable[:, 3:5], wp.vec2i, dev)
    rows.force = wp.zeros(max(rows.count, 1), dtype=wp.float32, device=dev)
    rows.qacc_warm = wp.zeros(max(model.joint_dof_count, 1), dtype=wp.float32, device=dev)
    dof_world = (
        np.asarray(layout.art_world, dtype=np.int32)[np.asarray(layout.dof_art)] if model.joint_dof_count else []
    )
    rows.dof_world = padded_array(np.asarray(dof_world, dtype=np.int32), wp.int32, dev)
    rows.row_peak = wp.zeros(worlds, dtype=wp.int32, device=dev)
    rows.row_overflow = wp.zeros(worlds, dtype=wp.int32, device=dev)
    rows.limit_solref = wp.vec2(*option.limit_solref)
    rows.limit_solimp = vec5(*option.limit_solimp)
    rows.friction_solref = wp.vec2(*option.friction_solref)
    rows.friction_solimp = vec5(*option.friction_solimp)
    rows.friction_rest_speed = float(option.friction_rest_speed)
    rows.impratio = float(option.impratio)
    _equality_anchors(model, rows, dev)
    rows.body_invweight = wp.zeros(max(model.body_count, 1), dtype=wp.vec2, device=dev)
    rows.dof_invweight = wp.zeros(max(model.joint_dof_count, 1), dtype=wp.float32, device=dev)
    rows.world_scale = wp.ones(worlds, dtype=wp.float32, device=dev)
    return rows


def _slot_layout(contacts, cone: str, xrows: np.ndarray):
    """Rows of the contact slots, from the pairs' condims and slot counts: (contact_rows (worlds,), row_start
    (worlds + 1,) first row of each world) int64, and (slot_row, slot_nrows) int32 of each template slot: its
    first row, counted from its world's first, and its rows. A world's rows are its contact rows, slot by
    slot, then its ``xrows`` non-contact rows."""
    pairs = contacts.pairs
    templates = len(pairs.template_pair_start) - 1
    counts = np.diff(pairs.template_pair_start)
    of_pair = np.repeat(np.arange(templates), counts)
    pair_nrows = _row_counts(pairs.condim, cone)
    pair_rows = pair_nrows * pairs.slots
    template_rows = np.bincount(of_pair, weights=pair_rows, minlength=templates).astype(np.int64)
    contact_rows = template_rows[pairs.templates.block_template]
    row_start = np.concatenate([[0], np.cumsum(contact_rows + xrows)]).astype(np.int64)
    # First row of each template pair: the rows of its template's earlier pairs; a pair's slots follow one another.
    # Slot-sized arrays are int32 (row counts are checked by _check_row_floats).
    before = np.cumsum(pair_rows) - pair_rows
    pair_row = before - np.concatenate([[0], np.cumsum(template_rows)])[of_pair]
    slot_nrows = np.repeat(pair_nrows, pairs.slots)
    within = np.arange(len(slot_nrows)) - np.repeat(np.cumsum(pairs.slots) - pairs.slots, pairs.slots)
    slot_row = np.repeat(pair_row, pairs.slots) + within * slot_nrows
    return contact_rows, row_start, slot_row.astype(np.int32), slot_nrows.astype(np.int32)


def _check_row_floats(budget: np.ndarray, rows: Rows, pair_count: int):
    """Raise ModelBuildError where the compact rows' Jacobians (``budget`` rows per world, 2 sides of
    ``rows.width`` floats) or the rows themselves pass int32 indexing."""
    total = int(budget.sum())
    need = total * 2 * rows.width
    if need > MAX_ROW_FLOATS or rows.count > MAX_ROW_FLOATS:
        raise ModelBuildError(
            f"SolverGeneralized: row budgets of {total} rows over {rows.world_count} worlds (up to "
            f"{int(budget.max(initial=0))} per world; {rows.count} rows, {pair_count} candidate contact "
            f"pairs in all) x 2 sides x {rows.width} DOFs (the largest articulation's, padded to 8) = {need} "
            f"Jacobian floats (or {rows.count} rows), above the limit of 2^31 - 1 (int32 "
            f"indexing); rows grow with the square of the colliding links and their width with the articulation's "
            f"DOFs: lower row_budget, disable self-collisions (add_articulation(enable_self_collisions=False)) or "
            f"filter shape pairs"
        )


def _budgets(contacts, layout, cone, row_budget, world_rows, xrows) -> np.ndarray:
    """(world_count,) compact rows of each world: ``row_budget`` (or the default), at most the world's rows."""
    if row_budget is None:
        budget = default_row_budget(contacts, layout, cone) + xrows
    else:
        if int(row_budget) < int(xrows.max(initial=0)):
            w = int(np.argmax(xrows))
            raise ModelBuildError(
                f"SolverGeneralized: row_budget={int(row_budget)} is below the {int(xrows[w])} joint-limit, "
                f"joint-friction, equality and tendon rows of world {w}, which always have room; use at least "
                f"{int(xrows[w])}"
            )
        budget = np.full(len(xrows), int(row_budget), np.int64)
    return np.minimum(budget, world_rows).astype(np.int64)


def _equality_rows(model, layout, tendons=None):
    """(table (E, 5) int64 of (ROW_EQUALITY, constraint, component, art0, art1), world (E,)): one row per
    component of each equality (joint 1, tendon 1, connect 3, weld 6), in constraint order. A tendon
    equality's two tendons may move at most two articulations between them (ModelBuildError otherwise)."""
    ne = model.equality_constraint_count
    if ne == 0:
        return np.zeros((0, 5), np.int64), np.zeros(0, np.int64)
    etype = model.equality_constraint_type.numpy()
    j1 = model.equality_constraint_joint1.numpy()
    j2 = model.equality_constraint_joint2.numpy()
    qd_start = np.append(model.joint_qd_start.numpy(), -1)  # index -1: no joint
    body_art = np.append(layout.body_art, -1)
    dof_art = np.append(layout.dof_art, -1)
    joint = etype == EqType.JOINT
    a0 = np.where(joint, dof_art[qd_start[j1]], body_art[model.equality_constraint_body1.numpy()])
    a1 = np.where(joint, dof_art[qd_start[j2]], body_art[model.equality_constraint_body2.numpy()])
    a1 = np.where(a1 == a0, -1, a1)
    for e in np.nonzero(etype == EqType.TENDON)[0]:
        a0[e], a1[e] = _tendon_equality_arts(model, tendons, e)
    n = np.where(joint | (etype == EqType.TENDON), 1, np.where(etype == EqType.CONNECT, 3, 6))
    e = np.repeat(np.arange(ne), n)
    sub = np.arange(len(e)) - np.repeat(np.cumsum(n) - n, n)
    table = np.column_stack([np.full(len(e), ROW_EQUALITY), e, sub, a0[e], a1[e]]).astype(np.int64)
    return table, np.maximum(model.equality_constraint_world.numpy().astype(np.int64), 0)[e]


def _tendon_equality_arts(model, tendons, e: int) -> tuple:
    """(art0, art1) the two tendons of tendon equality e move (art1 -1: one articulation)."""
    t1 = int(model.equality_constraint_tendon1.numpy()[e])
    t2 = int(model.equality_constraint_tendon2.numpy()[e])
    arts = []
    for t in (t1, t2):
        if t >= 0 and tendons is not None:
            arts += [int(a) for a in tendons.tendon_art[t] if a >= 0 and int(a) not in arts]
    name = model.equality_constraint_key[e] or f"#{e}"
    if not arts:
        raise ModelBuildError(f"tendon equality {name}: its tendons move no joint")
    if len(arts) > 2:
        raise ModelBuildError(
            f"tendon equality {name}: its tendons move {len(arts)} articulations; the solver couples at most two"
        )
    return arts[0], arts[1] if len(arts) == 2 else -1


def _equality_anchors(model, rows, dev):
    """Anchor of each equality on body2 and weld relative rotation, from the model's initial poses."""
    from ...sim.hostmath import transform_inverse, transform_mul, transform_point

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
        x1 = np.where((b1 >= 0)[:, None], bq[np.maximum(b1, 0)], ident)
        x2 = np.where((b2 >= 0)[:, None], bq[np.maximum(b2, 0)], ident)
        # body1 pose relative to body2: the inverse of the given relpose (body2 in body1, MuJoCo's), or the
        # initial one when relpose is identity.
        given = ~np.isclose(relpose, ident).all(axis=1)
        rel = np.where(given[:, None], transform_inverse(relpose), transform_mul(transform_inverse(x2), x1))
        anchor2 = transform_point(rel, anchor.astype(np.float64))
    rows.eq_anchor2 = wp.array(anchor2.astype(np.float32), dtype=wp.vec3, device=dev)
    rows.eq_rel = wp.array(rel.astype(np.float32), dtype=wp.transform, device=dev)


@wp.kernel
def _reset_rows_kernel(
    world_row_start: wp.array(dtype=int),
    world_mask: wp.array(dtype=bool),
    force: wp.array(dtype=float),
    peak: wp.array(dtype=int),
    overflow: wp.array(dtype=int),
):
    w = wp.tid()
    if world_mask[w]:
        for i in range(world_row_start[w], world_row_start[w + 1]):
            force[i] = 0.0
        peak[w] = 0
        overflow[w] = 0


@wp.kernel
def _reset_qacc_kernel(dof_world: wp.array(dtype=int), world_mask: wp.array(dtype=bool), qacc: wp.array(dtype=float)):
    d = wp.tid()
    w = dof_world[d]
    if w >= 0 and world_mask[w]:  # a DOF of no world (a global tree) has no warm start to reset
        qacc[d] = 0.0


def reset_warmstart(model, rows, world_mask):
    """Forget the warm-start forces and accelerations, row peaks and overflow flags of the masked worlds."""
    wp.launch(
        _reset_rows_kernel,
        dim=rows.world_count,
        device=model.device,
        inputs=[rows.world_row_start, world_mask],
        outputs=[rows.force, rows.row_peak, rows.row_overflow],
    )
    if model.joint_dof_count:
        wp.launch(
            _reset_qacc_kernel,
            dim=model.joint_dof_count,
            device=model.device,
            inputs=[rows.dof_world, world_mask],
            outputs=[rows.qacc_warm],
        )
