"""Warp tables of the world solve (:mod:`.world_solve`): the row model and per-substep row buffers, the contact
and DOF-tree tables the kernel reads, and the constants the world modules share."""

from __future__ import annotations

import warp as wp

from ..collision.pairs import PairTopology
from ..types import vec5, vec8
from .rows import ROW_CONTACT, ROW_EQUALITY, ROW_FRICTION, ROW_LIMIT

__all__ = [
    "vec8",
    "CONTACT",
    "LIMIT",
    "FRICTION",
    "EQUALITY",
    "RowModel",
    "RowData",
    "EqualityTables",
    "ContactTables",
    "TreeTables",
]

wp.set_module_options({"enable_backward": False})

CONTACT = wp.constant(ROW_CONTACT)
LIMIT = wp.constant(ROW_LIMIT)
FRICTION = wp.constant(ROW_FRICTION)
EQUALITY = wp.constant(ROW_EQUALITY)


@wp.struct
class RowModel:
    """Static row tables (see :class:`.constraint.Rows`) and per-world ranges. Three index spaces: rows (each
    with its warm-start force), contact slots (each owning its consecutive rows) and the non-contact rows
    (joint limits, joint friction, equalities: "xrows", the last rows of their world)."""

    world_row_start: wp.array(dtype=int)  # (worlds + 1,) first row of each world (Rows.world_row_start)
    world_slot_start: wp.array(dtype=int)  # (worlds + 1,) first contact slot of each world
    world_xrow_start: wp.array(dtype=int)  # (worlds + 1,) first non-contact row of each world
    world_budget_start: wp.array(dtype=int)  # (worlds + 1,) first compact row of each world (its row budget)
    world_art_start: wp.array(dtype=int)  # (worlds + 1,) CSR into world_arts
    world_arts: wp.array(dtype=int)  # articulations of each world
    dense_start: wp.array(dtype=int)  # (worlds,) offset of each world's dense block
    dense_cap: wp.array(dtype=int)  # (worlds,) most active rows its block holds
    slot_row: wp.array(dtype=int)  # (template slots,) first row of each contact slot in its world (Rows.slot_row)
    slot_nrows: wp.array(dtype=int)  # (template slots,) rows of each slot (1, 3 or 4)
    x_kind: wp.array(dtype=int)  # (xrows,) ROW_LIMIT / ROW_FRICTION / ROW_EQUALITY
    x_owner: wp.array(dtype=int)  # (xrows,) DOF or equality constraint
    x_sub: wp.array(dtype=int)  # (xrows,) equality component
    x_art: wp.array(dtype=wp.vec2i)  # (xrows,) articulations of side 0 / side 1 (-1: none)
    width: int  # floats per Jacobian side (Rows.width)
    cone_rows: int  # rows of a condim-3 contact: 4 pyramidal, 3 elliptic
    limit_solref: wp.vec2  # ([s], [-])
    limit_solimp: vec5
    friction_solref: wp.vec2  # ([s], [-])
    friction_solimp: vec5
    rest_speed: float  # [m/s or rad/s] Rows.friction_rest_speed
    subspace: int  # 1: PGS with subspace minimization on dense blocks
    body_invweight: wp.array(dtype=wp.vec2)  # (bodies,) [1/kg], [1/(kg m^2)]
    dof_invweight: wp.array(dtype=float)  # (DOFs,) [1/kg or 1/(kg m^2)]
    newton: int  # 1: primal Newton solve (:mod:`.world_newton`), 0: PGS
    jac_lanes: int  # lanes per world with scratch (Newton: 4 Jacobian blocks each, a pyramid's edges; row counts)
    ls_iterations: int  # most 1-D Newton steps of one line search
    world_dof_start: wp.array(dtype=int)  # (worlds + 1,) first DOF of each world (contiguous per world)
    ydense_start: wp.array(dtype=int)  # (worlds,) offset of each world's (budget, DOFs) Y block
    hess_start: wp.array(dtype=int)  # (worlds,) offset of each world's (DOFs, DOFs) Hessian
    world_scale: wp.array(dtype=float)  # (worlds,) 1 / (mean diag(M) DOFs) [1/kg]: Newton's stop scale


@wp.struct
class RowData:
    """Per-substep row buffers. Compact arrays (world w's active row c at r0 + c, r0 =
    ``world_budget_start[w]``) hold the active rows' terms; ``force`` is per row (the warm start). Float32
    unless noted."""

    act_list: wp.array(dtype=int)  # compact: row of each active row (where its force persists)
    kind: wp.array(dtype=int)  # compact: CONTACT / LIMIT / FRICTION / EQUALITY
    owner: wp.array(dtype=int)  # compact: contact slot, or non-contact row (xrow) of the row
    art: wp.array(dtype=wp.vec2i)  # compact: articulations of side 0 / side 1 (-1: none)
    # PGS, compact, (budget * 2 * width,): J per side while a row is filled, then Y = L^-T J^T (A = Y^T Y); a
    # pyramidal contact keeps its n, t1, t2 basis in the blocks of its edges 1-3 until the edges replace them.
    # Newton: (worlds * jac_lanes * 4 * 2 * width,) each lane's scratch for the row it fills, whose Y then
    # goes to ``ydense``
    minv_jac: wp.array(dtype=float)
    minv8: wp.array(dtype=vec8)  # minv_jac seen as whole chunks of 8 (rows.width is a multiple of 8)
    pos: wp.array(dtype=float)  # compact: position error r [m or rad] (negative: violated)
    solref: wp.array(dtype=wp.vec2)  # compact: MuJoCo solref ([s], [-])
    solimp: wp.array(dtype=vec5)  # compact: MuJoCo solimp
    diag_approx: wp.array(dtype=float)  # compact: MuJoCo's diagApprox of A_ii [1/kg or 1/(kg m^2)]
    lo: wp.array(dtype=float)  # compact: lower force bound [N or N m]
    hi: wp.array(dtype=float)  # compact: upper force bound [N or N m]
    cone: wp.array(dtype=int)  # compact: 1 on the normal row of an elliptic contact
    cone_mu: wp.array(dtype=float)  # compact: that contact's friction coefficient
    bias: wp.array(dtype=float)  # compact: a0 - a_ref [m/s^2 or rad/s^2]
    reg: wp.array(dtype=float)  # compact: regularizer R [1/kg or 1/(kg m^2)]
    inv: wp.array(dtype=float)  # compact: 1 / (A_ii + R)
    cforce: wp.array(dtype=float)  # compact: force [N or N m]
    force: wp.array(dtype=float)  # (rows,) last solved force [N or N m], the next substep's warm start
    dense: wp.array(dtype=float)  # per world: k x k Delassus block A of its active rows
    free: wp.array(dtype=int)  # compact: free rows of a subspace step
    step: wp.array(dtype=float)  # compact: its Newton step
    scratch: wp.array(dtype=float)  # like dense: its Cholesky factor
    ydense: wp.array(dtype=float)  # Newton: per world (budget, DOFs) Y of its active rows
    ynz: wp.array(dtype=wp.int16)  # Newton: like ydense, each row's non-zero columns (ascending; DOFs < 2^15)
    ynz_count: wp.array(dtype=int)  # Newton, compact: number of non-zero columns of each row
    hess: wp.array(dtype=float)  # Newton: per world (DOFs, DOFs) Hessian, then its Cholesky factor
    hess_tiles: wp.array2d(dtype=float)  # Newton with tiles: hess seen as (worlds * n, n) (n DOFs per world)
    jar: wp.array(dtype=float)  # Newton, compact: J qacc - aref of each active row
    jv: wp.array(dtype=float)  # Newton, compact: Y . p along the search direction
    zone: wp.array(dtype=wp.vec2)  # Newton, compact: (force, D) of each row at the current jar (cones: force)
    niter: wp.array(dtype=int)  # Newton, (worlds,): iterations of the last solve
    nactive: wp.array(dtype=int)  # (worlds,): active rows of each world this substep (lane 0 to the block)
    lane_rows: wp.array(dtype=int)  # (worlds * jac_lanes,): active contact rows each lane counted in its slots
    grad: wp.array(dtype=float)  # Newton, per DOF: gradient (then -gradient)
    search: wp.array(dtype=float)  # Newton, per DOF: search direction p
    peak: wp.array(dtype=int)  # (worlds,) most rows a substep needed since reset (Rows.row_peak)
    overflow: wp.array(dtype=int)  # (worlds,) 1 once a substep needed more rows than the budget (Rows.row_overflow)


@wp.struct
class EqualityTables:
    """The model's equality constraints and their anchors (:class:`.constraint.Rows` eq_anchor2 / eq_rel)."""

    eq_type: wp.array(dtype=int)
    body1: wp.array(dtype=int)
    body2: wp.array(dtype=int)
    anchor: wp.array(dtype=wp.vec3)  # on body1 [m]
    anchor2: wp.array(dtype=wp.vec3)  # on body2 [m]
    rel: wp.array(dtype=wp.transform)  # body1 relative to body2 (weld target)
    joint1: wp.array(dtype=int)
    joint2: wp.array(dtype=int)
    polycoef: wp.array(dtype=vec5)
    solref: wp.array(dtype=wp.vec2)
    solimp: wp.array(dtype=vec5)
    enabled: wp.array(dtype=bool)
    joint_q_start: wp.array(dtype=int)
    joint_qd_start: wp.array(dtype=int)


@wp.struct
class ContactTables:
    """Pair tables (once per template), pair parameters and this substep's contact slots (see
    :class:`.collision_driver.Contacts`)."""

    topo: PairTopology
    pair_mu: wp.array(dtype=float)
    pair_margin: wp.array(dtype=float)
    pair_gap: wp.array(dtype=float)
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
