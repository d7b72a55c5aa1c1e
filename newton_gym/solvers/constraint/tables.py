"""Warp structs of the world solve (:mod:`..solve.world`): the row model with the tree, contact and equality
tables it holds, the per-substep row buffers, a launch's inputs, one world block's offsets, and the row kinds
the world modules share. Each field is declared once here, with its shape and unit; the host fills every
struct by field name (:class:`..solve.world.WorldSolver`)."""

from __future__ import annotations

import warp as wp

from ..collision.pairs import PairTopology
from ..types import vec5, vec8
from .rows import ROW_CONTACT, ROW_EQUALITY, ROW_FRICTION, ROW_LIMIT, ROW_TENDON_FRICTION, ROW_TENDON_LIMIT

__all__ = [
    "vec8",
    "CONTACT",
    "LIMIT",
    "FRICTION",
    "EQUALITY",
    "TENDON_LIMIT",
    "TENDON_FRICTION",
    "TreeTables",
    "ContactTables",
    "EqualityTables",
    "TendonTables",
    "RowModel",
    "RowData",
    "WorldInputs",
    "WorldBlock",
    "CONE",
    "Y_PATH",
    "Y_QUAD",
    "Y_CROSS",
]

wp.set_module_options({"enable_backward": False})

CONTACT = wp.constant(ROW_CONTACT)
LIMIT = wp.constant(ROW_LIMIT)
FRICTION = wp.constant(ROW_FRICTION)
EQUALITY = wp.constant(ROW_EQUALITY)
TENDON_LIMIT = wp.constant(ROW_TENDON_LIMIT)
TENDON_FRICTION = wp.constant(ROW_TENDON_FRICTION)

# Bits of RowData.cone: CONE on the normal row of an elliptic contact; Newton sets the others where a row's Y
# is gathered (0: not known).
CONE = wp.constant(1)
Y_PATH = wp.constant(2)  # the row's Y lies on one root path of the DOF tree
Y_QUAD = wp.constant(4)  # rows c .. c + 3 are a pyramid's four edges with one list of non-zero columns
# Set by the Newton solve for its solve: the row's Y spans two branches of the DOF tree, and its Hessian term
# is kept out of the tree-pattern factor (:func:`..solve.pattern.cross_direction`).
Y_CROSS = wp.constant(8)


@wp.struct
class TreeTables:
    """DOF tree (see :class:`..tree.TreeLayout`) and the model's per-DOF limit and friction data (under the
    model's names)."""

    body_art: wp.array(dtype=int)  # (body_count,) articulation of each body (-1: none)
    body_dof_last: wp.array(dtype=int)  # (body_count,) last DOF moving each body (-1: static)
    dof_parent: wp.array(dtype=int)  # (joint_dof_count,) previous DOF on the path to the root (-1: the root)
    dof_art: wp.array(dtype=int)  # (joint_dof_count,) articulation of each DOF
    dof_coord: wp.array(dtype=int)  # (joint_dof_count,) coordinate of a scalar DOF, else -1
    art_dof_start: wp.array(dtype=int)  # (articulation_count + 1,) first DOF of each articulation
    art_mat_start: wp.array(dtype=int)  # (articulation_count + 1,) offset of each articulation's n x n block
    art_free_body: wp.array(dtype=int)  # (articulation_count,) body its free root joint moves (-1: none)
    body_com: wp.array(dtype=wp.vec3)  # (body_count,) centre of mass in the body frame [m]
    joint_limit_lower: wp.array(dtype=float)  # (joint_dof_count,) lower joint limit [m or rad]
    joint_limit_upper: wp.array(dtype=float)  # (joint_dof_count,) upper joint limit [m or rad]
    joint_friction: wp.array(dtype=float)  # (joint_dof_count,) friction loss of a DOF at rest [N or N m]
    joint_friction_dynamic: wp.array(dtype=float)  # (joint_dof_count,) friction loss of a moving DOF [N or N m]


@wp.struct
class ContactTables:
    """Pair tables (once per template), pair parameters and this substep's contact slots (see
    :class:`..collision.driver.Contacts`)."""

    topo: PairTopology  # pairs and slots of each template, worlds mapped onto them
    pair_mu: wp.array(dtype=float)  # (pair_count,) friction coefficient [-]
    pair_margin: wp.array(dtype=float)  # (pair_count,) MuJoCo margin (sum of margins and gaps) [m]
    pair_gap: wp.array(dtype=float)  # (pair_count,) sum of gaps [m]
    pair_solref: wp.array(dtype=wp.vec2)  # (pair_count,) solref (time constant [s], damping ratio [-])
    pair_solimp: wp.array(dtype=vec5)  # (pair_count,) solimp (dmin, dmax [-], width [m], midpoint, power [-])
    active: wp.array(dtype=int)  # (slot_count,) 1 where the slot holds a contact
    point: wp.array(dtype=wp.vec3)  # (slot_count,) world contact point [m]
    normal: wp.array(dtype=wp.vec3)  # (slot_count,) unit normal from shape A to shape B
    dist: wp.array(dtype=float)  # (slot_count,) signed distance [m] (negative: penetration)
    tangent: wp.array(dtype=wp.vec3)  # (slot_count,) first friction direction t1 (unit, normal to n)


@wp.struct
class EqualityTables:
    """The model's equality constraints and their anchors (:class:`.rows.Rows` eq_anchor2 / eq_rel); one
    element each where the model has none."""

    eq_type: wp.array(dtype=int)  # (equality_count,) EqType: connect, weld, joint or tendon
    body1: wp.array(dtype=int)  # (equality_count,) first body (-1: the world)
    body2: wp.array(dtype=int)  # (equality_count,) second body (-1: the world)
    anchor: wp.array(dtype=wp.vec3)  # (equality_count,) anchor in body1's frame [m]
    anchor2: wp.array(dtype=wp.vec3)  # (equality_count,) the same point in body2's frame [m]
    rel: wp.array(dtype=wp.transform)  # (equality_count,) body1 relative to body2 (weld target) [m]
    torquescale: wp.array(dtype=float)  # (equality_count,) weld: scale of the rotation rows [-]
    joint1: wp.array(dtype=int)  # (equality_count,) joint whose coordinate is constrained (joint equality)
    joint2: wp.array(dtype=int)  # (equality_count,) joint it follows (-1: none, a fixed value)
    tendon1: wp.array(dtype=int)  # (equality_count,) tendon whose length is constrained (tendon equality)
    tendon2: wp.array(dtype=int)  # (equality_count,) tendon it follows (-1: none, a fixed length)
    polycoef: wp.array(dtype=vec5)  # (equality_count,) q1 = poly(q2) (L1 = poly(L2)) coefficients, constant first
    solref: wp.array(dtype=wp.vec2)  # (equality_count,) solref ([s], [-])
    solimp: wp.array(dtype=vec5)  # (equality_count,) solimp
    enabled: wp.array(dtype=bool)  # (equality_count,) whether the constraint's rows are switched on
    joint_q_start: wp.array(dtype=int)  # (joint_count,) first coordinate of each joint
    joint_qd_start: wp.array(dtype=int)  # (joint_count,) first DOF of each joint


@wp.struct
class TendonTables:
    """The tendons' sparse Jacobian pattern (:class:`..smooth.tendon.TendonLayout`) and the model's tendon limit
    and friction data (under the model's names); one element each where the model has none."""

    ten_jac_start: wp.array(dtype=int)  # (tendon_count + 1,) first Jacobian entry of each tendon
    ten_jac_dof: wp.array(dtype=int)  # (entries,) DOF of each entry
    ten_invweight: wp.array(dtype=float)  # (tendon_count,) MuJoCo's tendon_invweight0, J M^-1 J^T [1/kg]
    tendon_range: wp.array(dtype=wp.vec2)  # (tendon_count,) (lower, upper) length limits [m]
    tendon_margin: wp.array(dtype=float)  # (tendon_count,) distance from a limit at which its row turns on [m]
    tendon_frictionloss: wp.array(dtype=float)  # (tendon_count,) dry friction along the tendon [N]
    tendon_solref_limit: wp.array(dtype=wp.vec2)  # (tendon_count,) limit solref ([s], [-])
    tendon_solimp_limit: wp.array(dtype=vec5)  # (tendon_count,) limit solimp
    tendon_solref_friction: wp.array(dtype=wp.vec2)  # (tendon_count,) friction solref ([s], [-])
    tendon_solimp_friction: wp.array(dtype=vec5)  # (tendon_count,) friction solimp


@wp.struct
class RowModel:
    """Static row tables (see :class:`.rows.Rows`), per-world ranges and solver settings, and the tree,
    contact, equality and tendon tables the rows read. Three index spaces: rows (each with its warm-start
    force), contact slots (each owning its consecutive rows) and the non-contact rows (joint limits, joint
    friction, equalities, tendon limits and friction: "xrows", the last rows of their world). Offsets are in
    floats of the buffer named."""

    world_row_start: wp.array(dtype=int)  # (worlds + 1,) first row of each world (Rows.world_row_start)
    world_slot_start: wp.array(dtype=int)  # (worlds + 1,) first contact slot of each world
    world_xrow_start: wp.array(dtype=int)  # (worlds + 1,) first non-contact row of each world
    world_budget_start: wp.array(dtype=int)  # (worlds + 1,) first compact row of each world (its row budget)
    world_art_start: wp.array(dtype=int)  # (worlds + 1,) first entry of each world in world_arts
    world_arts: wp.array(dtype=int)  # (articulation_count,) articulations, world by world
    dense_start: wp.array(dtype=int)  # (worlds,) offset of each world's dense block in RowData.dense
    dense_cap: wp.array(dtype=int)  # (worlds,) most active rows its dense block holds (0 under Newton)
    slot_row: wp.array(dtype=int)  # (template slots,) first row of each contact slot in its world (Rows.slot_row)
    slot_nrows: wp.array(dtype=int)  # (template slots,) rows of each slot (1, 3 or 4)
    slot_leaf: wp.array(dtype=wp.vec2i)  # (template slots,) Newton, pyramidal: each side's path key, or -1
    path_contacts: int  # Newton: active contacts on one DOF path from which it takes its Z (.path_bases)
    x_kind: wp.array(dtype=int)  # (xrows,) ROW_LIMIT / ROW_FRICTION / ROW_EQUALITY / ROW_TENDON_*
    x_owner: wp.array(dtype=int)  # (xrows,) DOF, equality constraint or tendon
    x_sub: wp.array(dtype=int)  # (xrows,) equality component, tendon limit side (0 lower, 1 upper)
    x_art: wp.array(dtype=wp.vec2i)  # (xrows,) articulations of side 0 / side 1 (-1: none)
    width: int  # floats per Jacobian side (Rows.width)
    cone_rows: int  # rows of a condim-3 contact: 4 pyramidal, 3 elliptic
    limit_solref: wp.vec2  # joint-limit solref ([s], [-])
    limit_solimp: vec5  # joint-limit solimp
    friction_solref: wp.vec2  # joint-friction solref ([s], [-])
    friction_solimp: vec5  # joint-friction solimp
    rest_speed: float  # [m/s or rad/s] below it a DOF's static friction applies (Rows.friction_rest_speed)
    impratio: float  # MuJoCo's frictional-to-normal impedance ratio: the pyramid rows' R is divided by it
    subspace: int  # 1: PGS with subspace minimization on dense blocks
    body_invweight: wp.array(dtype=wp.vec2)  # (body_count,) [1/kg], [1/(kg m^2)]
    dof_invweight: wp.array(dtype=float)  # (joint_dof_count,) [1/kg or 1/(kg m^2)]
    newton: int  # 1: primal Newton solve (:mod:`..solve.newton`), 0: PGS
    jac_lanes: int  # lanes per world with scratch (Newton: 4 Jacobian blocks each, a pyramid's edges; row counts)
    ls_iterations: int  # most 1-D Newton steps of one line search
    noslip_iterations: int  # most noslip sweeps after the main solve (0: none; :mod:`..solve.noslip`)
    noslip_tolerance: float  # the noslip sweeps stop once a sweep's scaled improvement is below it
    world_dof_start: wp.array(dtype=int)  # (worlds + 1,) first DOF of each world (Newton; contiguous per world)
    ydense_start: wp.array(dtype=int)  # (worlds,) offset of each world's (budget, DOFs) Y block in RowData.ydense
    hess_start: wp.array(dtype=int)  # (worlds,) offset of each world's (DOFs, DOFs) Hessian in RowData.hess
    world_scale: wp.array(dtype=float)  # (worlds,) 1 / (mean diag(M) DOFs) [1/kg]: Newton's stop scale
    tree: TreeTables  # the DOF tree and per-DOF limit / friction data
    contacts: ContactTables  # contact pairs and this substep's slots
    eq: EqualityTables  # equality constraints
    ten: TendonTables  # tendon limits and friction


@wp.struct
class RowData:
    """Per-substep row buffers. Compact arrays (world w's active row c at r0 + c, r0 =
    ``world_budget_start[w]``) hold the active rows' terms; ``force`` is per row (the warm start). Float32
    unless noted."""

    act_list: wp.array(dtype=int)  # compact: row of each active row (where its force persists)
    kind: wp.array(dtype=int)  # compact: CONTACT / LIMIT / FRICTION / EQUALITY / TENDON_LIMIT / TENDON_FRICTION
    owner: wp.array(dtype=int)  # compact: contact slot, or non-contact row (xrow) of the row
    art: wp.array(dtype=wp.vec2i)  # compact: articulations of side 0 / side 1 (-1: none)
    # PGS, compact, (budget * 2 * width,): J per side while a row is filled, then Y = L^-T J^T (A = Y^T Y); a
    # pyramidal contact keeps its n, t1, t2 basis in the blocks of its edges 1-3 until the edges replace them.
    # Newton: (worlds * jac_lanes * 4 * 2 * width,) each lane's scratch for the row it fills, whose Y then
    # goes to ``ydense``
    minv_jac: wp.array(dtype=float)
    minv8: wp.array(dtype=vec8)  # minv_jac seen as whole chunks of 8 (rows.width is a multiple of 8)
    pos: wp.array(dtype=float)  # compact: position error r [m or rad] (negative: violated)
    # compact: the position at which the impedance is evaluated [m or rad]: pos, or for a connect or weld row
    # the norm of all its constraint's components (MuJoCo's getposdim)
    imp_pos: wp.array(dtype=float)
    solref: wp.array(dtype=wp.vec2)  # compact: MuJoCo solref ([s], [-])
    solimp: wp.array(dtype=vec5)  # compact: MuJoCo solimp
    diag_approx: wp.array(dtype=float)  # compact: MuJoCo's diagApprox of A_ii [1/kg or 1/(kg m^2)]
    lo: wp.array(dtype=float)  # compact: lower force bound [N or N m]
    hi: wp.array(dtype=float)  # compact: upper force bound [N or N m]
    cone: wp.array(dtype=int)  # compact: CONE on the normal row of an elliptic contact; Newton: Y_PATH, Y_QUAD
    cone_mu: wp.array(dtype=float)  # compact: that contact's friction coefficient
    bias: wp.array(dtype=float)  # compact: a0 - a_ref [m/s^2 or rad/s^2]
    reg: wp.array(dtype=float)  # compact: regularizer R [1/kg or 1/(kg m^2)]
    inv: wp.array(dtype=float)  # compact: PGS: 1 / (A_ii + R); Newton: each row's D at the last Hessian formed
    cforce: wp.array(dtype=float)  # compact: force [N or N m]
    force: wp.array(dtype=float)  # (rows,) last solved force [N or N m], the next substep's warm start (PGS)
    qacc_warm: wp.array(dtype=float)  # (joint_dof_count,) last solved qacc, the next Newton warm start
    dense: wp.array(dtype=float)  # PGS, per world: k x k Delassus block A of its active rows
    free: wp.array(dtype=int)  # PGS, compact: free rows of a subspace step
    step: wp.array(dtype=float)  # PGS, compact: its Newton step
    scratch: wp.array(dtype=float)  # PGS, like dense: its Cholesky factor
    ydense: wp.array(dtype=float)  # Newton: per world (budget, DOFs) Y of its active rows
    ydense64: wp.array(dtype=wp.float64)  # Newton: ydense seen as float64 (:func:`..solve.pattern.cross_direction`)
    ynz: wp.array(dtype=wp.int16)  # Newton: like ydense, each row's non-zero columns (ascending; DOFs < 2^15)
    ynz_count: wp.array(dtype=int)  # Newton, compact: number of non-zero columns of each row
    hess: wp.array(dtype=float)  # Newton: per world (DOFs, DOFs) Hessian, then its Cholesky factor
    hess_tiles: wp.array2d(dtype=float)  # Newton with tiles: hess seen as (worlds * n, n) (n DOFs per world)
    jar: wp.array(dtype=float)  # Newton, compact: J qacc - aref of each active row
    jv: wp.array(dtype=float)  # Newton, compact: Y . p along the search direction
    zone: wp.array(dtype=wp.vec2)  # Newton, compact: (force, D) of each row at the current jar (cones: force)
    niter: wp.array(dtype=int)  # Newton, (worlds,): iterations of the last solve
    nactive: wp.array(dtype=int)  # (worlds,): active rows of each world this substep (lane 0 to the block)
    # (worlds * jac_lanes,): active contact rows each lane counted in its slots; once the rows are listed, the
    # world's first entry holds its path slots (.path_bases)
    lane_rows: wp.array(dtype=int)
    grad: wp.array(dtype=float)  # Newton, per DOF: gradient (then -gradient)
    search: wp.array(dtype=float)  # Newton, per DOF: search direction p
    peak: wp.array(dtype=int)  # (worlds,) most rows a substep needed since reset (Rows.row_peak)
    overflow: wp.array(dtype=int)  # (worlds,) 1 once a substep needed more rows than the budget (Rows.row_overflow)


@wp.struct
class WorldInputs:
    """One launch's settings and the substep state the rows are built from (built by
    :meth:`..solve.world.WorldSolver.solve` for each set of arrays)."""

    dt: float  # [s] substep
    iterations: int  # most PGS sweeps or Newton iterations
    tolerance: float  # [-] PGS: relative force change; Newton: scaled gradient and cost improvement
    body_q: wp.array(dtype=wp.transform)  # (body_count,) body frames [m]
    art_ref: wp.array(dtype=wp.vec3)  # (articulation_count,) reference point r of each articulation [m]
    cdof: wp.array(dtype=wp.spatial_vector)  # (joint_dof_count,) motion subspace of each DOF about r
    cdof_dot: wp.array(dtype=wp.spatial_vector)  # (joint_dof_count,) its time derivative [1/s]
    chol: wp.array(dtype=wp.float64)  # (sum of n^2,) L of each articulation's M = L^T L
    qacc_smooth: wp.array(dtype=float)  # (joint_dof_count,) unconstrained acceleration [m/s^2 or rad/s^2]
    joint_q: wp.array(dtype=float)  # (joint_coord_count,) joint coordinates [m or rad]
    joint_qd: wp.array(dtype=float)  # (joint_dof_count,) joint velocities [m/s or rad/s]
    ten_length: wp.array(dtype=float)  # (tendon_count,) tendon lengths [m]
    ten_J: wp.array(dtype=float)  # (entries,) tendon Jacobian entries [m/rad or -]


@wp.struct
class WorldBlock:
    """One world's block of lanes once its active rows are listed: the world, the lane, the rows and where
    the world's buffers start (offsets in floats of the buffer named)."""

    w: int  # world
    lane: int  # this lane (0 .. lanes - 1)
    lanes: int  # lanes of the block
    k: int  # active rows this substep
    r0: int  # first compact row (RowModel.world_budget_start)
    dense: int  # PGS: 1 where the k x k Delassus block fits RowData.dense (k <= dense_cap), 0: matrix-free
    moff: int  # PGS: offset of the dense block (and its factor in RowData.scratch)
    wd0: int  # Newton: first DOF
    wn: int  # Newton: DOFs
    yoff: int  # Newton: offset of the (budget, wn) Y block in RowData.ydense and ynz
    hoff: int  # Newton: offset of the (wn, wn) Hessian in RowData.hess
