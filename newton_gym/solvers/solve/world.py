"""Per-world constraint assembly and solve, one block of lanes per world in a single launch.

For its world the block (1) switches every row on or off and lists the active ones compactly (cheap tests
only): contacts slot by slot (every lane), then joint limits, joint friction and equalities (lane 0), into
the world's range of at most its row budget; then, lanes over the listed rows, (2) fills each one's Jacobian
and soft-constraint terms (a pyramidal contact's four edges come from its n, t1, t2 basis rows) and (3)
computes Y = L^-T J^T (M = L^T L), the bias a0 - a_ref, the regularizer R and 1 / (A_ii + R). It then solves
for the forces by the primal Newton method (:mod:`.newton`, every lane) or by projected Gauss-Seidel
(:mod:`.pgs`, lane 0: (4) the dense Delassus matrix A = J M^-1 J^T of the active rows when it fits the
world's block, else the matrix-free form, and (5) PGS on MuJoCo's constraint dual), (5b) where the model
asks for it (opt.noslip_iterations), MuJoCo's noslip pass over the friction forces (:mod:`.noslip`, lane 0),
and (6) writes
qacc_constraint = M^-1 J^T f = L^-1 (Y f) of the world's DOFs (lanes over articulations). On the CPU a
block runs on one core (its lanes as fibers, :mod:`..lanes`): all of a world's work stays in that core's
cache, with no per-row launches.

Compact buffers (:class:`..constraint.tables.RowData`) use the world's range [r0, r0 + budget) of
``world_budget_start``: active row c of world w lives at r0 + c. The non-contact rows always have room
(the budget reserves them); contacts that do not fit are dropped for the substep and flag the world
(``overflow``; ``peak`` records the most rows a substep needed). Row forces persist per row (``force``) as
the next substep's PGS warm start; each world's final qacc persists per DOF (``qacc_warm``) as the next
Newton warm start (MuJoCo's qacc_warmstart).

The parts: :mod:`..constraint.tables` (the Warp structs the kernel reads and writes),
:mod:`..constraint.assemble` (per-row assembly, steps 1 to 3), :mod:`.pgs` (dense block and PGS, steps 4
and 5), :mod:`.newton` (step 5 by Newton). This module holds the kernel that runs steps 1-6 in order and
:class:`WorldSolver`, its host side.
"""

from __future__ import annotations

import functools

import numpy as np
import warp as wp

from ...errors import ModelBuildError, SolverError
from ...sim.stage_args import BoundStruct, fill
from ..collision.pairs import template_slot
from ..constraint.assemble import (
    contact_pyramid,
    contact_row,
    dof_row_fill,
    dof_row_switch,
    tendon_row,
    tendon_row_switch,
)
from ..constraint.equality import equality_row, equality_row_switch
from ..constraint.path_bases import MIN_CONTACTS, path_bases, slot_leaves
from ..constraint.rows import MAX_ROW_FLOATS, padded_array
from ..constraint.tables import (
    CONTACT,
    EQUALITY,
    TENDON_LIMIT,
    ContactTables,
    EqualityTables,
    RowData,
    RowModel,
    TendonTables,
    TreeTables,
    WorldBlock,
    WorldInputs,
    vec8,
)
from ..items import item
from ..lanes import launch_worlds, register_capped, sync_lanes
from ..spatial import ltl_solve
from ..types import vec5
from .newton import make_newton_solve
from .noslip import noslip_solve
from .pgs import pgs_solve
from .row_terms import gather_row

__all__ = ["WorldSolver", "DENSE_CAP", "TILE_MAX_DOFS", "tile_dofs_of", "world_kernel"]

wp.set_module_options({"enable_backward": False})

_MAX_WORLD_DOFS = 32767  # a Newton world's DOF columns are stored as int16 (RowData.ynz)

DENSE_CAP = 48  # most active rows of one world kept as a dense Delassus block (48^2 floats)

TILE_MAX_DOFS = 64  # most DOFs of a world whose Newton Hessian is factored by Warp tiles (a 16 KB tile)


def world_kernel(tile_dofs: int = 0, noslip: bool = False, newton: bool = True):
    """The world kernel (steps 1-6); ``newton``: step 5 by Newton, else by PGS (a kernel holds one of the two:
    both made its CUDA build 28 s instead of 19); ``tile_dofs`` > 0 (worlds of that many DOFs each) takes the
    Newton directions from Warp tiles (see :func:`.newton.make_newton_solve`); ``noslip`` adds the noslip pass
    (step 5b, ``RowModel.noslip_iterations`` sweeps). Each variant but the default (Newton, lanes' Cholesky,
    no noslip) is compiled as a module of its own. One kernel object per variant, however it is asked for."""
    return _world_kernel_variant(int(tile_dofs), bool(noslip), bool(newton))


@functools.cache
def _world_kernel_variant(tile_dofs: int, noslip: bool, newton: bool):
    newton_solve = make_newton_solve(tile_dofs)

    @wp.kernel(enable_backward=False, module="unique" if tile_dofs or noslip or not newton else None)
    def _world_kernel(
        first: int, lanes: int, rm: RowModel, inp: WorldInputs, rd: RowData, qacc_c: wp.array(dtype=float)
    ):
        """One block per world w = first + block: list its active rows (contacts by every lane, the others by
        lane 0), fill them (every lane), solve by Newton (every lane) or PGS (with subspace minimization on
        dense pyramidal blocks; lane 0) and write qacc_constraint of its articulations into ``qacc_c`` (steps
        1-6 of the module docstring)."""
        block, lane = wp.tid()
        w = block + first
        for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
            a = rm.world_arts[ia]
            for d in range(rm.tree.art_dof_start[a], rm.tree.art_dof_start[a + 1]):
                qacc_c[d] = 0.0
        contacts = _list_contacts(w, rm, rd, lane, lanes)
        if lane == 0:
            rd.nactive[w] = _list_xrows(w, contacts[0], contacts[1], rm, rd, inp)
        # Every lane reads k after the barrier. (Not a tile broadcast: a CPU tile's shared storage is not safe
        # when several host threads launch the kernel at once, as SolverGeneralized(threads=N) does.)
        sync_lanes(lanes)
        k = rd.nactive[w]
        if k == 0:
            if rm.newton != 0 and lane == 0:
                rd.niter[w] = 0
            _save_qacc(w, rm, rd, inp, qacc_c, lane, lanes)
            return
        b = _world_block(w, k, rm, lane, lanes)
        if wp.static(newton):
            path_bases(b, rm, rd, inp)  # the Z of paths with several contacts (ends on a barrier)
        for c in range(lane, k, lanes):
            _fill_row(c, b, rm, rd, inp)
        sync_lanes(lanes)
        if wp.static(newton):
            newton_solve(b, rm, rd, inp, qacc_c)
        elif lane == 0:
            pgs_solve(b, rm, rd, inp, qacc_c)
        sync_lanes(lanes)
        if wp.static(noslip):
            if lane == 0:
                noslip_solve(b, rm, rd, qacc_c)
            sync_lanes(lanes)
        # qacc_constraint = M^-1 J^T f = L^-1 (Y f).
        for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
            a = rm.world_arts[ia]
            d0 = rm.tree.art_dof_start[a]
            n = rm.tree.art_dof_start[a + 1] - d0
            ltl_solve(inp.chol, rm.tree.art_mat_start[a], n, d0, rm.tree.dof_parent, qacc_c, d0)
        _save_qacc(w, rm, rd, inp, qacc_c, lane, lanes)

    return _world_kernel


@wp.func(inline=True)
def _save_qacc(
    w: int, rm: RowModel, rd: RowData, inp: WorldInputs, qacc_c: wp.array(dtype=float), lane: int, lanes: int
):
    """The world's qacc = qacc_smooth + qacc_constraint into ``qacc_warm`` (the next Newton warm start), by
    articulations over lanes (each lane wrote its articulations' qacc_constraint)."""
    for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
        a = rm.world_arts[ia]
        for d in range(rm.tree.art_dof_start[a], rm.tree.art_dof_start[a + 1]):
            rd.qacc_warm[d] = inp.qacc_smooth[d] + qacc_c[d]


@wp.func(inline=True)
def _list_row(ci: int, row: int, kind: int, owner: int, rd: RowData):
    """List row ``row`` (its kind, and its owner: contact slot or non-contact row) at compact index ci."""
    rd.act_list[ci] = row
    rd.kind[ci] = kind
    rd.owner[ci] = owner


@wp.func(inline=True)
def _list_slots(w: int, first: int, last: int, k: int, cap: int, rm: RowModel, rd: RowData):
    """List the rows of world w's active contact slots ``first`` .. ``last`` - 1 in slot order from its
    compact row k while they fit its first ``cap`` compact rows (a slot's rows are consecutive: all on or all
    off), and clear the forces of the others where they are read: PGS warm-starts from every row's force, and
    an active slot left out reports its force; Newton (warm-started from qacc) reads no inactive slot's.
    Returns (the next compact row, the rows of every active slot of the range)."""
    r0 = rm.world_budget_start[w]
    ts0 = template_slot(rm.contacts.topo, w, 0)  # template slot of the world's slot 0 (slots map one to one)
    rw = rm.world_row_start[w]
    total = int(0)
    active = rm.contacts.active
    slot = first
    while slot < last:
        if rm.newton != 0 and slot + 4 <= last:  # four inactive slots at once (no forces to clear)
            if (item(active, slot) | item(active, slot + 1) | item(active, slot + 2) | item(active, slot + 3)) == 0:
                slot += 4
                continue
        s = slot
        slot += 1
        if item(active, s) == 0:
            if rm.newton == 0:
                row = rw + rm.slot_row[ts0 + s]
                for e in range(rm.slot_nrows[ts0 + s]):
                    rd.force[row + e] = 0.0
            continue
        nr = rm.slot_nrows[ts0 + s]
        total += nr
        row = rw + rm.slot_row[ts0 + s]
        if k + nr > cap:
            for e in range(nr):
                rd.force[row + e] = 0.0
            continue
        for e in range(nr):
            _list_row(r0 + k, row + e, CONTACT, s, rd)
            k += 1
    return wp.vec2i(k, total)


@wp.func(inline=True)
def _list_contacts(w: int, rm: RowModel, rd: RowData, lane: int, lanes: int) -> wp.vec2i:
    """Step 1 for world w's contact slots, by every lane of its block: list the rows of active slots
    compactly from r0 in slot order (their row, kind and owner) and clear the warm starts of the others.
    Returns (contact rows listed, rows of every active slot). One lane lists the slots in one pass. Several
    lanes: each counts the active rows of a contiguous run of slots; when they all fit the budget (less the
    world's non-contact rows), each lane lists its run at its prefix offset, else lane 0 keeps slots in order
    while they fit (the result of lane 0 alone, which only lane 0 uses). Either way the list is the one a
    single lane makes."""
    r0 = rm.world_budget_start[w]
    cap = rm.world_budget_start[w + 1] - r0 - (rm.world_xrow_start[w + 1] - rm.world_xrow_start[w])
    s0 = rm.world_slot_start[w]
    s1 = rm.world_slot_start[w + 1]
    if lanes == 1:
        return _list_slots(w, s0, s1, 0, cap, rm, rd)
    ts0 = template_slot(rm.contacts.topo, w, 0)
    chunk = (s1 - s0 + lanes - 1) / lanes
    first = s0 + lane * chunk
    last = wp.min(first + chunk, s1)
    count = int(0)
    for slot in range(first, last):
        if rm.contacts.active[slot] != 0:
            count += rm.slot_nrows[ts0 + slot]
    base = w * rm.jac_lanes
    rd.lane_rows[base + lane] = count
    sync_lanes(lanes)
    total = int(0)
    before = int(0)
    for other in range(lanes):
        c = rd.lane_rows[base + other]
        total += c
        if other < lane:
            before += c
    k = int(0)
    if total <= cap:
        _list_slots(w, first, last, before, cap, rm, rd)  # every run fits: the cap never binds
        k = total
    elif lane == 0:
        k = _list_slots(w, s0, s1, 0, cap, rm, rd)[0]
    return wp.vec2i(k, total)


@wp.func(inline=True)
def _list_xrows(w: int, k: int, contact_need: int, rm: RowModel, rd: RowData, inp: WorldInputs):
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
            on = equality_row_switch(x, row, rm, rd)
        elif kind >= TENDON_LIMIT:
            on = tendon_row_switch(x, row, r0 + k, kind, rm, rd, inp)
        else:
            on = dof_row_switch(x, row, r0 + k, kind, rm, rd, inp)
        if on != 0:
            _list_row(r0 + k, row, kind, x, rd)
            k += 1
        row += 1
    if need > rd.peak[w]:
        rd.peak[w] = need
    if need > budget:
        rd.overflow[w] = 1
    return k


@wp.func(inline=True)
def _world_block(w: int, k: int, rm: RowModel, lane: int, lanes: int):
    """World w's block once its k active rows are listed (see :class:`..constraint.tables.WorldBlock`)."""
    b = WorldBlock()
    b.w = w
    b.lane = lane
    b.lanes = lanes
    b.k = k
    b.r0 = rm.world_budget_start[w]
    b.dense = 0
    if k <= rm.dense_cap[w]:
        b.dense = 1
    b.moff = rm.dense_start[w]
    b.wd0 = rm.world_dof_start[w]
    b.wn = rm.world_dof_start[w + 1] - b.wd0
    b.yoff = rm.ydense_start[w]
    b.hoff = rm.hess_start[w]
    return b


@wp.func(inline=True)
def _fill_row(c: int, b: WorldBlock, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Steps 2-3 for the world's listed row c: Jacobian, Y = L^-T J^T, bias, R and warm start at its compact
    index; a pyramidal contact is filled whole with its first edge. PGS keeps each row's Y in its own
    ``minv_jac`` block; Newton fills a row in its lane's scratch blocks and moves its Y to ``ydense`` at
    once (a pyramid's edges as they are formed from its basis rows)."""
    ci = b.r0 + c
    blk = ci
    if rm.newton != 0:
        blk = (b.w * rm.jac_lanes + b.lane) * 4
    kind = rd.kind[ci]
    gather = rm.newton  # whether the row's Y moves to ydense here
    if kind == CONTACT:
        ts = template_slot(rm.contacts.topo, b.w, rd.owner[ci])
        sub = rd.act_list[ci] - rm.world_row_start[b.w] - rm.slot_row[ts]
        if rm.slot_nrows[ts] == 4:
            gather = 0
            if sub == 0:
                contact_pyramid(b, c, blk, rm, rd, inp)
        else:
            contact_row(b.w, sub, ci, blk, rm, rd, inp)
    elif kind == EQUALITY:
        equality_row(ci, blk, rm, rd, inp)
    elif kind >= TENDON_LIMIT:
        tendon_row(ci, blk, rm, rd, inp)
    else:
        dof_row_fill(ci, blk, rm, rd, inp)
    if gather != 0:
        gather_row(c, blk, b, rm, rd)


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
    """Host side of the fused world kernel: builds the structs once (every field by name), launches per
    substep."""

    def __init__(
        self,
        model,
        layout,
        tree,
        contacts,
        rows,
        tendons: dict,
        tolerance: float,
        subspace: bool,
        newton: bool = False,
        newton_tolerance: float = 1.0e-8,
        ls_iterations: int = 50,
        lanes: int = 1,
        tiles: bool = False,
        noslip_iterations: int = 0,
        noslip_tolerance: float = 1.0e-6,
        registers: int | None = None,
    ):
        self.model = model
        self.registers = registers
        self.newton = bool(newton)
        self.tolerance = float(newton_tolerance if newton else tolerance)
        self.lanes = max(int(lanes), 1)
        self.count = rows.count
        self.worlds = rows.world_count
        offsets = _world_offsets(layout, rows, self.newton)
        self.tile_dofs = tile_dofs_of(offsets["world_dof_start"]) if newton and tiles else 0
        self.noslip = int(noslip_iterations) > 0
        self.kernel = register_capped(world_kernel(self.tile_dofs, self.noslip, self.newton), registers)
        self.rm = _row_model(
            model,
            tree,
            contacts,
            rows,
            tendons,
            offsets,
            subspace=int(bool(subspace)),
            newton=int(self.newton),
            jac_lanes=self.lanes,
            ls_iterations=int(ls_iterations),
            noslip_iterations=int(noslip_iterations),
            noslip_tolerance=float(noslip_tolerance),
        )
        if self.newton:
            self.rm.slot_leaf = slot_leaves(self.rm, contacts, model.device)
        self.rd = _row_data(model, rows, offsets, self.newton, self.lanes, bool(subspace), self.tile_dofs)
        self._bound = BoundStruct()

    def drop_tiles(self):
        """Solve every world by the lanes' own Cholesky from now on (where the tile kernel cannot load)."""
        self.tile_dofs = 0
        self.kernel = register_capped(world_kernel(0, self.noslip, self.newton), self.registers)
        self.rd.hess_tiles = _no_tiles(self.model.device)

    def solve(self, data, joint_q, joint_qd, dt, iterations, span, block_dim: int = 1):
        """Assemble and solve the worlds in ``span`` = (first, count); writes their
        ``data.qacc_constraint``; one block of ``block_dim`` lanes per world."""
        if self.count == 0 or span[1] == 0:
            return
        if block_dim > self.lanes:
            raise SolverError(f"world solve: {block_dim} lanes per world, its lane scratch holds {self.lanes}")
        inputs = self._inputs(data, joint_q, joint_qd, float(dt), int(iterations))
        launch_worlds(
            self.kernel,
            span[0],
            span[1],
            block_dim,
            self.model.device,
            [self.rm, inputs, self.rd, data.qacc_constraint],
        )

    def _inputs(self, data, joint_q, joint_qd, dt: float, iterations: int) -> WorldInputs:
        """The kernel's WorldInputs for these arrays and settings (kept while they stay the same:
        :class:`BoundStruct`)."""
        arrays = (data.body_q, data.art_ref, data.cdof, data.cdof_dot, data.chol, data.qacc_smooth, joint_q, joint_qd)
        arrays += (data.ten_length, data.ten_J)
        fields = dict(dt=dt, iterations=iterations, tolerance=self.tolerance, joint_q=joint_q, joint_qd=joint_qd)
        return self._bound.get(arrays, (dt, iterations), lambda: fill(WorldInputs, data, **fields))


def _world_offsets(layout, rows, newton: bool) -> dict:
    """Host tables of the worlds' blocks, keyed by their RowModel field names: ``world_arts`` and
    ``world_art_start`` (each world's articulations), ``dense_cap`` (PGS: rows of each world's dense
    Delassus block) and the (worlds + 1,) int64 offsets, the total last, ``dense_start`` (PGS),
    ``world_dof_start`` (Newton: DOFs), ``ydense_start`` (Newton: (budget, DOFs) Y blocks) and
    ``hess_start`` (Newton: Hessians). Raises ModelBuildError where a buffer passes int32 indexing or a
    Newton world has more DOFs than its int16 columns index."""
    worlds = rows.world_count
    budget = rows.budget_host
    cap = np.minimum(budget, DENSE_CAP) if not newton else np.zeros(worlds, np.int64)
    arts = np.argsort(layout.art_world, kind="stable").astype(np.int32)
    art_start = np.searchsorted(layout.art_world[arts], np.arange(worlds + 1)).astype(np.int32)
    dof_start = world_dof_start(layout, arts, art_start) if newton else np.zeros(worlds + 1, np.int64)
    wn = np.diff(dof_start)
    out = {
        "world_arts": arts,
        "world_art_start": art_start,
        "dense_cap": cap,
        "dense_start": np.concatenate([[0], np.cumsum(cap * cap)]),
        "world_dof_start": dof_start,
        "ydense_start": np.concatenate([[0], np.cumsum(budget * wn)]),
        "hess_start": np.concatenate([[0], np.cumsum(wn * wn)]),
    }
    ydense, hess, dense = int(out["ydense_start"][-1]), int(out["hess_start"][-1]), int(out["dense_start"][-1])
    if max(ydense, hess, dense) > MAX_ROW_FLOATS:
        raise ModelBuildError(
            f"SolverGeneralized: the per-world constraint blocks need {ydense} (row budget x "
            f"DOFs), {hess} (DOFs^2) and {dense} (dense Delassus) floats, above "
            f"the limit of 2^31 - 1 (int32 indexing); lower row_budget or reduce the DOFs"
        )
    if newton and int(wn.max(initial=0)) > _MAX_WORLD_DOFS:
        raise ModelBuildError(
            f"SolverGeneralized: a world with {int(wn.max())} DOFs; the Newton solve handles at most "
            f"{_MAX_WORLD_DOFS} per world (its rows' DOF columns are int16): use solver='pgs' or split the world"
        )
    return out


def _row_model(model, tree, contacts, rows, tendons, offsets: dict, **settings) -> RowModel:
    """The kernel's RowModel: the rows' tables (:class:`..constraint.rows.Rows`, by field name), the worlds'
    ``offsets`` (:func:`_world_offsets`; without the total where RowModel holds one entry per world), the
    solver ``settings`` (RowModel fields by name) and the tree, contact, equality and tendon tables
    (``tendons``: :meth:`..smooth.tendon.TendonLayout.upload`)."""
    dev = model.device

    def i32(name, total=True):
        x = offsets[name] if total else offsets[name][:-1]
        return padded_array(x.astype(np.int32), wp.int32, dev)

    return fill(
        RowModel,
        rows,
        world_art_start=i32("world_art_start"),
        world_arts=i32("world_arts"),
        dense_start=i32("dense_start", total=False),
        dense_cap=i32("dense_cap"),
        cone_rows=4 if rows.cone == "pyramidal" else 3,
        rest_speed=rows.friction_rest_speed,
        impratio=rows.impratio,
        world_dof_start=i32("world_dof_start"),
        ydense_start=i32("ydense_start", total=False),
        hess_start=i32("hess_start", total=False),
        slot_leaf=wp.full(max(int(rows.slot_nrows.shape[0]), 1), wp.vec2i(-1, -1), dtype=wp.vec2i, device=dev),
        path_contacts=MIN_CONTACTS,
        tree=fill(TreeTables, tree, model),
        contacts=fill(ContactTables, contacts, topo=contacts.topology),
        eq=_equality_tables(model, rows),
        ten=_tendon_tables(model, tendons),
        **settings,
    )


def _row_data(model, rows, offsets: dict, newton: bool, lanes: int, subspace: bool, tile_dofs: int) -> RowData:
    """The kernel's RowData: compact buffers of every world's row budget, PGS's dense blocks or Newton's
    Y blocks and Hessians (one element where the solver does not use them), and the rows' persistent
    forces, peaks and overflow flags. Every buffer but the Hessian and ``niter`` is written before it is read
    in a substep (the kernel fills a compact row, a Jacobian side's padding included, before any product
    reads it), so those are not zeroed."""
    dev = model.device
    worlds = rows.world_count
    n = max(int(rows.budget_host.sum()), 1)  # compact rows of all worlds
    pgs_rows = 1 if newton else n
    newton_rows = n if newton else 1
    newton_dofs = model.joint_dof_count if newton else 1
    dense, ydense, hess = (int(offsets[name][-1]) for name in ("dense_start", "ydense_start", "hess_start"))

    def empty(count, dtype=wp.float32):
        return wp.empty(max(int(count), 1), dtype=dtype, device=dev)

    # PGS keeps every compact row's Y; Newton moves each row's Y to ydense as soon as it is filled.
    minv_jac = empty((worlds * lanes * 4 if newton else n) * 2 * rows.width)
    ydense_array = empty(ydense)
    # Zeroed once: the Hessian's lower triangle is written each iteration, its upper one never (the tile
    # Cholesky gets a defined matrix either way).
    hess_array = wp.zeros(max(hess, 1), dtype=wp.float32, device=dev)
    return fill(
        RowData,
        act_list=empty(n, wp.int32),
        kind=empty(n, wp.int32),
        owner=empty(n, wp.int32),
        art=empty(n, wp.vec2i),
        minv_jac=minv_jac,
        minv8=wp.array(ptr=minv_jac.ptr, dtype=vec8, shape=(minv_jac.shape[0] // 8,), device=dev),
        pos=empty(n),
        imp_pos=empty(n),
        solref=empty(n, wp.vec2),
        solimp=empty(n, vec5),
        diag_approx=empty(n),
        lo=empty(n),
        hi=empty(n),
        cone=empty(n, wp.int32),
        cone_mu=empty(n),
        bias=empty(n),
        reg=empty(n),
        inv=empty(n),
        cforce=empty(n),
        force=rows.force,
        qacc_warm=rows.qacc_warm,
        dense=empty(dense),
        free=empty(pgs_rows, wp.int32),
        step=empty(pgs_rows),
        scratch=empty(dense if subspace else 1),
        ydense=ydense_array,
        ydense64=wp.array(
            ptr=ydense_array.ptr, dtype=wp.float64, shape=(max(ydense_array.shape[0] // 2, 1),), device=dev
        ),
        ynz=empty(ydense, wp.int16),
        ynz_count=empty(newton_rows, wp.int32),
        hess=hess_array,
        hess_tiles=hess_array.reshape((worlds * tile_dofs, tile_dofs)) if tile_dofs else _no_tiles(dev),
        jar=empty(newton_rows),
        jv=empty(newton_rows),
        zone=empty(newton_rows, wp.vec2),
        niter=wp.zeros(worlds, dtype=wp.int32, device=dev),  # public (newton_iterations): 0 before a step
        nactive=empty(worlds, wp.int32),
        lane_rows=empty(worlds * lanes, wp.int32),
        grad=empty(newton_dofs),
        search=empty(newton_dofs),
        peak=rows.row_peak,
        overflow=rows.row_overflow,
    )


def _no_tiles(device) -> wp.array:
    """The (1, 1) placeholder of ``RowData.hess_tiles`` where the Newton directions do not come from tiles."""
    return wp.zeros((1, 1), dtype=wp.float32, device=device)


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

    return fill(
        EqualityTables,
        eq_type=column("type", wp.int32),
        body1=column("body1", wp.int32),
        body2=column("body2", wp.int32),
        anchor=column("anchor", wp.vec3),
        anchor2=rows.eq_anchor2,
        rel=rows.eq_rel,
        torquescale=column("torquescale", wp.float32),
        joint1=column("joint1", wp.int32),
        joint2=column("joint2", wp.int32),
        tendon1=column("tendon1", wp.int32),
        tendon2=column("tendon2", wp.int32),
        polycoef=column("polycoef", vec5),
        solref=column("solref", wp.vec2),
        solimp=column("solimp", vec5),
        enabled=column("enabled", wp.bool),
        joint_q_start=model.joint_q_start,
        joint_qd_start=model.joint_qd_start,
    )


def _tendon_tables(model, tendons: dict) -> TendonTables:
    """The model's tendon limit and friction arrays and the tendons' Jacobian pattern and inverse weights as
    the kernel's struct; one-element placeholders for a model without tendons, whose rows never read them."""
    fields = {}
    for name in TendonTables.vars:
        if name.startswith("ten_"):
            fields[name] = tendons[name]
            continue
        a = getattr(model, name)
        fields[name] = a if a.shape[0] else wp.zeros(1, dtype=TendonTables.vars[name].type.dtype, device=model.device)
    return fill(TendonTables, **fields)


world_kernel(0)  # the default kernel belongs to this module (compiled with it, and found by module walks)
