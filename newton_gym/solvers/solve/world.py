"""Per-world constraint assembly and solve, one block of lanes per world in a single launch.

For its world the block (1) switches every row on or off and lists the active ones compactly (lane 0; cheap
tests only): contacts slot by slot, then joint limits, joint friction and equalities, into the world's range of
at most its row budget; then, lanes over the listed rows, (2) fills each one's Jacobian and soft-constraint
terms (a pyramidal contact's four edges come from its n, t1, t2 basis rows) and (3) computes
Y = L^-T J^T (M = L^T L), the bias a0 - a_ref, the regularizer R and 1 / (A_ii + R). It then solves for
the forces by the primal Newton method (:mod:`.world_newton`, every lane) or by projected Gauss-Seidel
(lane 0: (4) the dense Delassus matrix A = J M^-1 J^T of the active rows when it fits the world's block,
else the matrix-free form, and (5) PGS on MuJoCo's constraint dual, see :mod:`.solver`), and (6) writes
qacc_constraint = M^-1 J^T f = L^-1 (Y f) of the world's DOFs (lanes over articulations). On the CPU a
block is one lane (:mod:`.lanes`): all of a world's work stays in one core's cache, with no per-row
launches.

Compact buffers (:class:`.world_tables.RowData`) use the world's range [r0, r0 + budget) of
``world_budget_start``: active row c of world w lives at r0 + c. The non-contact rows always have room
(the budget reserves them); contacts that do not fit are dropped for the substep and flag the world
(``overflow``; ``peak`` records the most rows a substep needed). Row forces persist per row (``force``) as
the next substep's warm start.

The parts: :mod:`.world_tables` (the Warp structs the kernel reads and writes), :mod:`.world_rows`
(per-row assembly, steps 1 to 3), :mod:`.world_pgs` (dense block and PGS, steps 4 and 5),
:mod:`.world_newton` (step 5 by Newton). This module holds the kernel that runs steps 1-6 in order and
:class:`WorldSolver`, its host side.
"""

from __future__ import annotations

import functools

import numpy as np
import warp as wp

from ...errors import ModelBuildError, SolverError
from ..collision.pairs import template_slot
from ..constraint.assemble import (
    contact_pyramid,
    contact_row,
    dof_row_fill,
    dof_row_switch,
    equality_row,
    equality_row_switch,
)
from ..constraint.rows import MAX_ROW_FLOATS
from ..constraint.tables import (
    CONTACT,
    EQUALITY,
    ContactTables,
    EqualityTables,
    RowData,
    RowModel,
    TreeTables,
    vec8,
)
from ..lanes import block_sync
from ..spatial import ltl_solve
from ..types import vec5
from .newton import gather_row, make_newton_solve
from .pgs import dense_block, pgs_dense_box, residual, row_axpy, set_force

__all__ = ["WorldSolver", "DENSE_CAP", "TILE_MAX_DOFS", "tile_dofs_of", "world_kernel"]

wp.set_module_options({"enable_backward": False})

_MAX_WORLD_DOFS = 32767  # a Newton world's DOF columns are stored as int16 (RowData.ynz)

DENSE_CAP = 48  # most active rows of one world kept as a dense Delassus block (48^2 floats)

TILE_MAX_DOFS = 64  # most DOFs of a world whose Newton Hessian is factored by Warp tiles (a 16 KB tile)


@functools.cache
def world_kernel(tile_dofs: int = 0):
    """The world kernel (steps 1-6); ``tile_dofs`` > 0 (worlds of that many DOFs each) takes the Newton
    directions from Warp tiles (see :func:`.world_newton.make_newton_solve`), compiled as a module of its
    own."""
    newton_solve = make_newton_solve(tile_dofs)

    @wp.kernel(enable_backward=False, module="unique" if tile_dofs else None)
    def _world_kernel(
        # Model:
        first: int,
        rm: RowModel,
        cm: ContactTables,
        tm: TreeTables,
        eq: EqualityTables,
        dt: float,
        iterations: int,
        tolerance: float,
        # Data in:
        body_q: wp.array(dtype=wp.transform),
        art_ref: wp.array(dtype=wp.vec3),
        cdof: wp.array(dtype=wp.spatial_vector),
        chol: wp.array(dtype=wp.float64),
        qacc_smooth: wp.array(dtype=float),
        joint_q: wp.array(dtype=float),
        joint_qd: wp.array(dtype=float),
        # Data out:
        rd: RowData,
        qacc_c: wp.array(dtype=float),
    ):
        """One block per world w: list its active rows (contacts by every lane, the others by lane 0), fill
        them (every lane), solve by Newton (every lane) or PGS (with subspace minimization on dense pyramidal
        blocks; lane 0) and write qacc_constraint of its articulations (steps 1-6 of the module docstring)."""
        block, lane = wp.tid()
        w = block + first
        lanes = wp.block_dim()
        for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
            a = rm.world_arts[ia]
            for d in range(tm.art_dof_start[a], tm.art_dof_start[a + 1]):
                qacc_c[d] = 0.0
        contacts = _list_contacts(w, rm, rd, cm, lane, lanes)
        if lane == 0:
            rd.nactive[w] = _list_xrows(w, contacts[0], contacts[1], rm, rd, tm, eq, joint_q, joint_qd)
        # Every lane reads k after the barrier. (Not a tile broadcast: a CPU tile's shared storage is not safe
        # when several host threads launch the kernel at once, as SolverGeneralized(threads=N) does.)
        block_sync()
        k = rd.nactive[w]
        if k == 0:
            if rm.newton != 0 and lane == 0:
                rd.niter[w] = 0
            return
        r0 = rm.world_budget_start[w]
        _fill_rows(
            w, k, r0, dt, rm, rd, cm, tm, eq, body_q, art_ref, cdof, chol, qacc_smooth, joint_q, joint_qd, lane, lanes
        )
        block_sync()
        if rm.newton != 0:
            newton_solve(k, r0, w, iterations, tolerance, rm, rd, tm, qacc_c, lane, lanes)
        elif lane == 0:
            _pgs(k, r0, w, iterations, tolerance, rm, rd, tm, qacc_c)
        block_sync()
        # qacc_constraint = M^-1 J^T f = L^-1 (Y f).
        for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
            a = rm.world_arts[ia]
            d0 = tm.art_dof_start[a]
            ltl_solve(chol, tm.art_mat_start[a], tm.art_dof_start[a + 1] - d0, d0, tm.dof_parent, qacc_c, d0)

    return _world_kernel


@wp.func(inline=True)
def _list_contacts(w: int, rm: RowModel, rd: RowData, cm: ContactTables, lane: int, lanes: int) -> wp.vec2i:
    """Step 1 for world w's contact slots, by every lane of its block: list the rows of active slots
    compactly from r0 in slot order (their row, kind and owner) and clear the warm starts of the others.
    Returns (contact rows listed, rows of every active slot). Each lane counts the active rows of a
    contiguous run of slots; when they all fit the budget (less the world's non-contact rows), each lane
    lists its run at its prefix offset, else lane 0 keeps slots in order while they fit (the result of lane
    0 alone, which only lane 0 uses). Either way the list is the one a single lane makes."""
    r0 = rm.world_budget_start[w]
    cap = rm.world_budget_start[w + 1] - r0 - (rm.world_xrow_start[w + 1] - rm.world_xrow_start[w])
    s0 = rm.world_slot_start[w]
    s1 = rm.world_slot_start[w + 1]
    ts0 = template_slot(cm.topo, w, 0)  # template slot of the world's slot 0 (slots map one to one)
    rw = rm.world_row_start[w]
    chunk = (s1 - s0 + lanes - 1) / lanes
    first = s0 + lane * chunk
    last = wp.min(first + chunk, s1)
    count = int(0)
    for slot in range(first, last):
        if cm.active[slot] != 0:
            count += rm.slot_nrows[ts0 + slot]
    base = w * rm.jac_lanes
    rd.lane_rows[base + lane] = count
    block_sync()
    total = int(0)
    before = int(0)
    for other in range(lanes):
        c = rd.lane_rows[base + other]
        total += c
        if other < lane:
            before += c
    k = int(0)
    if total <= cap:
        k = before
        for slot in range(first, last):
            nr = rm.slot_nrows[ts0 + slot]
            row = rw + rm.slot_row[ts0 + slot]
            if cm.active[slot] == 0:
                for e in range(nr):
                    rd.force[row + e] = 0.0
                continue
            for e in range(nr):
                rd.act_list[r0 + k] = row + e
                rd.kind[r0 + k] = CONTACT
                rd.owner[r0 + k] = slot
                k += 1
        k = total
    elif lane == 0:
        for slot in range(s0, s1):
            nr = rm.slot_nrows[ts0 + slot]
            row = rw + rm.slot_row[ts0 + slot]
            if cm.active[slot] == 0 or k + nr > cap:  # a slot's rows are consecutive: all on or all off
                for e in range(nr):
                    rd.force[row + e] = 0.0
                continue
            for e in range(nr):
                rd.act_list[r0 + k] = row + e
                rd.kind[r0 + k] = CONTACT
                rd.owner[r0 + k] = slot
                k += 1
    return wp.vec2i(k, total)


@wp.func(inline=True)
def _list_xrows(
    w: int,
    k: int,
    contact_need: int,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    eq: EqualityTables,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Step 1 for world w's joint-limit, joint-friction and equality rows (lane 0), after its k listed contact
    rows: switch each on or off (cheap tests: joint at a limit, friction loss, equality enabled) and list the
    active ones; returns the count of all listed rows. They always have room in the budget. The rows the
    substep needed (``contact_need`` for contacts) go to ``peak``, and ``overflow`` is raised when contacts
    had to be dropped."""
    r0 = rm.world_budget_start[w]
    x0 = rm.world_xrow_start[w]
    x1 = rm.world_xrow_start[w + 1]
    budget = rm.world_budget_start[w + 1] - r0
    need = contact_need + (x1 - x0)
    row = rm.world_row_start[w + 1] - (x1 - x0)  # the non-contact rows are the world's last rows
    for x in range(x0, x1):
        kind = rm.x_kind[x]
        on = int(0)
        if kind == EQUALITY:
            on = equality_row_switch(x, row, rm, rd, eq)
        else:
            on = dof_row_switch(x, row, r0 + k, kind, rm, rd, tm, joint_q, joint_qd)
        if on != 0:
            rd.act_list[r0 + k] = row
            rd.kind[r0 + k] = kind
            rd.owner[r0 + k] = x
            k += 1
        row += 1
    if need > rd.peak[w]:
        rd.peak[w] = need
    if need > budget:
        rd.overflow[w] = 1
    return k


@wp.func(inline=True)
def _fill_rows(
    w: int,
    k: int,
    r0: int,
    dt: float,
    rm: RowModel,
    rd: RowData,
    cm: ContactTables,
    tm: TreeTables,
    eq: EqualityTables,
    body_q: wp.array(dtype=wp.transform),
    art_ref: wp.array(dtype=wp.vec3),
    cdof: wp.array(dtype=wp.spatial_vector),
    chol: wp.array(dtype=wp.float64),
    qacc_smooth: wp.array(dtype=float),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    lane: int,
    lanes: int,
):
    """Steps 2-3 for the k listed rows (lanes over them): Jacobian, Y = L^-T J^T, bias, R and warm start
    at each compact index; a pyramidal contact is filled whole by the lane of its first edge. PGS keeps each
    row's Y in its own ``minv_jac`` block; Newton fills a row in its lane's scratch blocks and moves its Y
    to ``ydense`` at once."""
    scratch = (w * rm.jac_lanes + lane) * 4
    for c in range(lane, k, lanes):
        ci = r0 + c
        blk = ci
        if rm.newton != 0:
            blk = scratch
        row = rd.act_list[ci]
        kind = rd.kind[ci]
        owner = rd.owner[ci]
        if kind == CONTACT:
            ts = template_slot(cm.topo, w, owner)
            sub = row - rm.world_row_start[w] - rm.slot_row[ts]
            if rm.slot_nrows[ts] == 4:
                if sub == 0:
                    contact_pyramid(
                        w, owner, row, ci, blk, dt, rm, rd, cm, tm, art_ref, cdof, chol, qacc_smooth, joint_qd
                    )
                    if rm.newton != 0:
                        for e in range(4):
                            gather_row(w, c + e, r0, blk + e, rm, rd, tm)
            else:
                contact_row(w, owner, sub, row, ci, blk, dt, rm, rd, cm, tm, art_ref, cdof, chol, qacc_smooth, joint_qd)
                if rm.newton != 0:
                    gather_row(w, c, r0, blk, rm, rd, tm)
        else:
            if kind == EQUALITY:
                equality_row(
                    owner, row, ci, blk, dt, rm, rd, eq, tm, body_q, joint_q, art_ref, cdof, chol, qacc_smooth, joint_qd
                )
            else:
                dof_row_fill(owner, row, ci, blk, kind, dt, rm, rd, tm, joint_q, joint_qd, chol, qacc_smooth)
            if rm.newton != 0:
                gather_row(w, c, r0, blk, rm, rd, tm)


@wp.func(inline=True)
def _pgs(
    k: int,
    r0: int,
    w: int,
    iterations: int,
    tolerance: float,
    rm: RowModel,
    rd: RowData,
    tm: TreeTables,
    qacc_c: wp.array(dtype=float),
):
    """Steps 4-5 by PGS for world w's k active rows: dense block (or matrix-free), sweeps, forces, and
    J^T f accumulated into ``qacc_c`` (u of the final L^-1 solve)."""
    dense = int(0)
    moff = rm.dense_start[w]
    if k <= rm.dense_cap[w]:
        dense = 1
        dense_block(k, r0, moff, rm, rd, tm)
    else:
        for c in range(k):  # warm start of the matrix-free form
            row_axpy(r0 + c, rd.cforce[r0 + c], rm, rd, tm, qacc_c)
    if dense == 1 and rm.cone_rows != 3:
        pgs_dense_box(
            k,
            r0,
            moff,
            iterations,
            tolerance,
            rd.dense,
            rd.bias,
            rd.reg,
            rd.inv,
            rd.lo,
            rd.hi,
            rd.cforce,
            rm.subspace,
            rd.free,
            rd.step,
            rd.scratch,
        )
        iterations = 0
    for _it in range(iterations):
        change = float(0.0)
        scale = float(0.0)
        c = int(0)
        while c < k:
            if rd.cone[r0 + c] != 0:
                # Normal row, then both tangents projected onto the friction disc |f_t| <= mu f_n.
                fn = wp.max(
                    rd.cforce[r0 + c] - residual(c, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c], 0.0
                )
                change += set_force(c, r0, fn, dense, rm, rd, tm, qacc_c)
                f1 = (
                    rd.cforce[r0 + c + 1] - residual(c + 1, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c + 1]
                )
                f2 = (
                    rd.cforce[r0 + c + 2] - residual(c + 2, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c + 2]
                )
                norm = wp.sqrt(f1 * f1 + f2 * f2)
                limit = rd.cone_mu[r0 + c] * fn
                if norm > limit:
                    f1 = f1 * limit / wp.max(norm, 1.0e-20)
                    f2 = f2 * limit / wp.max(norm, 1.0e-20)
                change += set_force(c + 1, r0, f1, dense, rm, rd, tm, qacc_c)
                change += set_force(c + 2, r0, f2, dense, rm, rd, tm, qacc_c)
                scale += wp.abs(fn) + wp.abs(f1) + wp.abs(f2)
                c += 3
                continue
            f = wp.clamp(
                rd.cforce[r0 + c] - residual(c, r0, k, dense, moff, rm, rd, tm, qacc_c) * rd.inv[r0 + c],
                rd.lo[r0 + c],
                rd.hi[r0 + c],
            )
            change += set_force(c, r0, f, dense, rm, rd, tm, qacc_c)
            scale += wp.abs(f)
            c += 1
        if change <= tolerance * scale:
            break
    for c in range(k):
        f = rd.cforce[r0 + c]
        rd.force[rd.act_list[r0 + c]] = f
        if dense != 0 and f != 0.0:
            row_axpy(r0 + c, f, rm, rd, tm, qacc_c)


def world_dof_start(layout, arts=None, art_start=None) -> np.ndarray:
    """(worlds + 1,) first DOF of each world when every world's articulations hold one contiguous DOF
    range in world order (what the Newton solve needs); raises ModelBuildError naming the first world whose
    DOFs are not contiguous."""
    worlds = layout.world_count
    if arts is None:
        arts = np.argsort(layout.art_world, kind="stable")
        art_start = np.searchsorted(layout.art_world[arts], np.arange(worlds + 1))
    dof_start = np.asarray(layout.art_dof_start, dtype=np.int64)
    arts = np.asarray(arts, dtype=np.int64)
    art_start = np.asarray(art_start, dtype=np.int64)
    # Walking the worlds in order, each articulation must start where the previous one (of its world, or of
    # the worlds before) ended; a world without articulations starts where the last one ended.
    ends = dof_start[arts + 1]
    expected = np.concatenate([[0], ends[:-1]])
    bad = np.nonzero(dof_start[arts] != expected)[0]
    if len(bad):
        w = int(np.searchsorted(art_start, bad[0], side="right") - 1)
        raise ModelBuildError(f"world {w}: its articulations' DOFs are not one contiguous range")
    return np.concatenate([[0], ends])[art_start].astype(np.int64)


class WorldSolver:
    """Host side of the fused world kernel: builds the structs once, launches per substep."""

    def __init__(
        self,
        model,
        layout,
        tree,
        contacts,
        rows,
        tolerance: float,
        subspace: bool,
        newton: bool = False,
        newton_tolerance: float = 1.0e-8,
        ls_iterations: int = 50,
        lanes: int = 1,
        tiles: bool = False,
    ):
        dev = model.device
        self.model = model
        self.newton = bool(newton)
        self.tolerance = float(newton_tolerance if newton else tolerance)
        worlds = rows.world_count
        budget = rows.budget_host
        cap = np.minimum(budget, DENSE_CAP) if not newton else np.zeros(worlds, np.int64)
        dense_start = np.concatenate([[0], np.cumsum(cap * cap)])
        arts = np.argsort(layout.art_world, kind="stable").astype(np.int32)
        art_start = np.searchsorted(layout.art_world[arts], np.arange(worlds + 1)).astype(np.int32)
        n = max(int(budget.sum()), 1)  # compact rows of all worlds
        dof_start = world_dof_start(layout, arts, art_start) if newton else np.zeros(worlds + 1, np.int64)
        wn = np.diff(dof_start)
        ydense_start = np.concatenate([[0], np.cumsum(budget * wn)])
        hess_start = np.concatenate([[0], np.cumsum(wn * wn)])
        if max(ydense_start[-1], hess_start[-1], dense_start[-1]) > MAX_ROW_FLOATS:
            raise ModelBuildError(
                f"SolverGeneralized: the per-world constraint blocks need {int(ydense_start[-1])} (row budget x "
                f"DOFs), {int(hess_start[-1])} (DOFs^2) and {int(dense_start[-1])} (dense Delassus) floats, above "
                f"the limit of 2^31 - 1 (int32 indexing); lower row_budget or reduce the DOFs"
            )
        if newton and int(wn.max(initial=0)) > _MAX_WORLD_DOFS:
            raise ModelBuildError(
                f"SolverGeneralized: a world with {int(wn.max())} DOFs; the Newton solve handles at most "
                f"{_MAX_WORLD_DOFS} per world (its rows' DOF columns are int16): use solver='pgs' or split the world"
            )

        def arr(x, dtype):
            x = np.ascontiguousarray(x)
            return wp.array(x if len(x) else np.zeros(1, x.dtype), dtype=dtype, device=dev)

        rm = RowModel()
        rm.world_row_start, rm.world_slot_start = rows.world_row_start, rows.world_slot_start
        rm.world_xrow_start, rm.world_budget_start = rows.world_xrow_start, rows.world_budget_start
        rm.world_art_start = arr(art_start, wp.int32)
        rm.world_arts = arr(arts, wp.int32)
        rm.dense_start = arr(dense_start[:-1].astype(np.int32), wp.int32)
        rm.dense_cap = arr(cap.astype(np.int32), wp.int32)
        rm.slot_row, rm.slot_nrows = rows.slot_row, rows.slot_nrows
        rm.x_kind, rm.x_owner, rm.x_sub, rm.x_art = rows.x_kind, rows.x_owner, rows.x_sub, rows.x_art
        rm.width = rows.width
        rm.cone_rows = 4 if rows.cone == "pyramidal" else 3
        rm.limit_solref, rm.limit_solimp = rows.limit_solref, rows.limit_solimp
        rm.friction_solref, rm.friction_solimp = rows.friction_solref, rows.friction_solimp
        rm.rest_speed = rows.friction_rest_speed
        rm.subspace = int(bool(subspace))
        rm.body_invweight, rm.dof_invweight = rows.body_invweight, rows.dof_invweight
        rm.world_scale = rows.world_scale
        rm.newton = int(self.newton)
        self.lanes = rm.jac_lanes = max(int(lanes), 1)
        rm.ls_iterations = int(ls_iterations)
        rm.world_dof_start = arr(dof_start.astype(np.int32), wp.int32)
        rm.ydense_start = arr(ydense_start[:-1].astype(np.int32), wp.int32)
        rm.hess_start = arr(hess_start[:-1].astype(np.int32), wp.int32)
        self.tile_dofs = tile_dofs_of(dof_start) if newton and tiles else 0
        self.kernel = world_kernel(self.tile_dofs)

        # Every buffer below is written before it is read in a substep (the kernel fills a compact row, a
        # Jacobian side's padding included, before any product reads it), so none needs zeroing.
        def empty(count, dtype=wp.float32):
            return wp.empty(max(int(count), 1), dtype=dtype, device=dev)

        nd = model.joint_dof_count
        pgs_rows = 1 if newton else n
        newton_rows = n if newton else 1
        rd = RowData()
        rd.act_list, rd.kind, rd.owner = empty(n, wp.int32), empty(n, wp.int32), empty(n, wp.int32)
        rd.art = empty(n, wp.vec2i)
        # PGS keeps every compact row's Y; Newton moves each row's Y to ydense as soon as it is filled
        rd.minv_jac = empty((worlds * self.lanes * 4 if newton else n) * 2 * rows.width)
        rd.minv8 = wp.array(ptr=rd.minv_jac.ptr, dtype=vec8, shape=(rd.minv_jac.shape[0] // 8,), device=dev)
        rd.pos, rd.solref, rd.solimp, rd.diag_approx = empty(n), empty(n, wp.vec2), empty(n, vec5), empty(n)
        rd.lo, rd.hi, rd.cone, rd.cone_mu = empty(n), empty(n), empty(n, wp.int32), empty(n)
        rd.bias, rd.reg, rd.inv, rd.cforce = empty(n), empty(n), empty(n), empty(n)
        rd.force = rows.force
        rd.dense = empty(dense_start[-1])
        rd.scratch = empty(dense_start[-1] if subspace else 1)
        rd.free, rd.step = empty(pgs_rows, wp.int32), empty(pgs_rows)
        rd.ydense = empty(ydense_start[-1])
        rd.ynz = empty(ydense_start[-1], wp.int16)
        # zeroed once: the Hessian's lower triangle is written each iteration, its upper one never (the tile
        # Cholesky gets a defined matrix either way)
        rd.hess = wp.zeros(max(int(hess_start[-1]), 1), dtype=wp.float32, device=dev)
        t = self.tile_dofs
        rd.hess_tiles = rd.hess.reshape((worlds * t, t)) if t else wp.zeros((1, 1), dtype=wp.float32, device=dev)
        rd.ynz_count, rd.jar, rd.jv = empty(newton_rows, wp.int32), empty(newton_rows), empty(newton_rows)
        rd.zone = empty(newton_rows, wp.vec2)
        rd.niter = wp.zeros(worlds, dtype=wp.int32, device=dev)  # public (newton_iterations): 0 before a step
        rd.nactive = empty(worlds, wp.int32)
        rd.lane_rows = empty(worlds * self.lanes, wp.int32)
        rd.grad, rd.search = empty(nd if newton else 1), empty(nd if newton else 1)
        rd.peak, rd.overflow = rows.row_peak, rows.row_overflow
        cm = ContactTables()
        cm.topo, cm.pair_mu = contacts.topology, contacts.pair_mu
        cm.pair_margin, cm.pair_gap = contacts.pair_margin, contacts.pair_gap
        cm.pair_solref, cm.pair_solimp = contacts.pair_solref, contacts.pair_solimp
        cm.active, cm.point, cm.normal = contacts.active, contacts.point, contacts.normal
        cm.dist, cm.tangent = contacts.dist, contacts.tangent
        tm = TreeTables()
        tm.body_art, tm.body_dof_last, tm.dof_parent = tree["body_art"], tree["body_dof_last"], tree["dof_parent"]
        tm.dof_art, tm.dof_coord = tree["dof_art"], tree["dof_coord"]
        tm.art_dof_start, tm.art_mat_start = tree["art_dof_start"], tree["art_mat_start"]
        tm.limit_lower, tm.limit_upper = model.joint_limit_lower, model.joint_limit_upper
        tm.friction_static, tm.friction_dynamic = model.joint_friction, model.joint_friction_dynamic
        self.rm, self.rd, self.cm, self.tm = rm, rd, cm, tm
        self.eq = _equality_tables(model, rows)
        self.count = rows.count
        self.worlds = worlds

    def drop_tiles(self):
        """Solve every world by the lanes' own Cholesky from now on (where the tile kernel cannot load)."""
        self.tile_dofs = 0
        self.kernel = world_kernel(0)
        self.rd.hess_tiles = wp.zeros((1, 1), dtype=wp.float32, device=self.model.device)

    def solve(self, data, joint_q, joint_qd, dt, iterations, span, block_dim: int = 1):
        """Assemble and solve the worlds in ``span`` = (first, count); writes their
        ``data.qacc_constraint``; one block of ``block_dim`` lanes per world."""
        if self.count == 0 or span[1] == 0:
            return
        if block_dim > self.lanes:
            raise SolverError(f"world solve: {block_dim} lanes per world, its lane scratch holds {self.lanes}")
        wp.launch_tiled(
            self.kernel,
            dim=[span[1]],
            block_dim=int(block_dim),
            device=self.model.device,
            inputs=[
                span[0],
                self.rm,
                self.cm,
                self.tm,
                self.eq,
                float(dt),
                int(iterations),
                self.tolerance,
                data.body_q,
                data.art_ref,
                data.cdof,
                data.chol,
                data.qacc_smooth,
                joint_q,
                joint_qd,
                self.rd,
                data.qacc_constraint,
            ],
        )


def tile_dofs_of(dof_start: np.ndarray) -> int:
    """n where every world has the same n <= :data:`TILE_MAX_DOFS` DOFs (world w's from w n, the layout the
    tile Newton path indexes), else 0 (the worlds' sizes do not allow tiles)."""
    sizes = np.diff(np.asarray(dof_start, dtype=np.int64))
    if len(sizes) == 0 or dof_start[0] != 0 or not (sizes == sizes[0]).all():
        return 0
    n = int(sizes[0])
    return n if 1 <= n <= TILE_MAX_DOFS else 0


def _equality_tables(model, rows) -> EqualityTables:
    """The model's equality arrays (and the rows' anchors) as the kernel's struct; one-element placeholders
    for a model without equalities, whose rows never read them."""

    def column(name, dtype):
        a = getattr(model, f"equality_constraint_{name}")
        return a if a is not None and a.shape[0] else wp.zeros(1, dtype=dtype, device=model.device)

    eq = EqualityTables()
    eq.eq_type, eq.body1, eq.body2 = column("type", wp.int32), column("body1", wp.int32), column("body2", wp.int32)
    eq.anchor, eq.anchor2, eq.rel = column("anchor", wp.vec3), rows.eq_anchor2, rows.eq_rel
    eq.joint1, eq.joint2 = column("joint1", wp.int32), column("joint2", wp.int32)
    eq.polycoef, eq.solref, eq.solimp = column("polycoef", vec5), column("solref", wp.vec2), column("solimp", vec5)
    eq.enabled = column("enabled", wp.bool)
    eq.joint_q_start, eq.joint_qd_start = model.joint_q_start, model.joint_qd_start
    return eq


world_kernel(0)  # the default kernel belongs to this module (compiled with it, and found by module walks)
