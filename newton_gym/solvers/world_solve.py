"""Per-world constraint assembly and solve, one block of lanes per world in a single launch.

For its world the block (1) switches every row on or off and lists the active rows compactly (lane 0;
cheap tests only), then, lanes over the listed rows, (2) fills each one's Jacobian and soft-constraint
terms (contacts, joint limits and joint friction here; equality rows come pre-filled from
:mod:`.constraint`; a pyramidal contact's four edges come from its n, t1, t2 basis rows) and (3) computes
Y = L^-T J^T (M = L^T L), the bias a0 - a_ref, the regularizer R and 1 / (A_ii + R). It then solves for
the forces by the primal Newton method (:mod:`.world_newton`, every lane) or by projected Gauss-Seidel
(lane 0: (4) the dense Delassus matrix A = J M^-1 J^T of the active rows when it fits the world's block,
else the matrix-free form, and (5) PGS on MuJoCo's constraint dual, see :mod:`.solver`), and (6) writes
qacc_constraint = M^-1 J^T f = L^-1 (Y f) of the world's DOFs (lanes over articulations). On the CPU a
block is one lane (:mod:`.lanes`): all of a world's work stays in one core's cache, with no per-row
launches.

Compact buffers (``act_list``, ``bias``, ``reg``, ``inv``, ``cforce``) use the world's row range
[r0, r1): compact row c of world w lives at r0 + c. Row forces persist per row (``force``) as the
next substep's warm start.

The parts: :mod:`.world_tables` (the Warp structs the kernel reads and writes), :mod:`.world_rows`
(per-row assembly, steps 1 and 3), :mod:`.world_pgs` (dense block and PGS, steps 4 and 5). This module
holds the kernel that runs steps 1-6 in order and :class:`WorldSolver`, its host side.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from ..errors import ModelBuildError
from .constraint import MAX_ROW_FLOATS
from .lanes import block_sync
from .spatial import ltl_solve
from .world_newton import newton_solve
from .world_pgs import dense_block, pgs_dense_box, residual, row_axpy, row_mu, set_force
from .world_rows import contact_pyramid, contact_row, dof_row_fill, dof_row_switch, finish_row
from .world_tables import CONTACT, FRICTION, LIMIT, ContactTables, RowData, RowModel, TreeTables, vec8

__all__ = ["WorldSolver", "DENSE_CAP"]

wp.set_module_options({"enable_backward": False})

DENSE_CAP = 48  # most active rows of one world kept as a dense Delassus block (48^2 floats)


@wp.kernel
def _world_kernel(
    # Model:
    first: int,
    rm: RowModel,
    cm: ContactTables,
    tm: TreeTables,
    dt: float,
    iterations: int,
    tolerance: float,
    # Data in:
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
    """One block per world w: fill and list its active rows (lane 0), build its dense Delassus block (or
    keep the matrix-free form), solve by Newton (every lane) or PGS (with subspace minimization on dense
    pyramidal blocks; lane 0) and write qacc_constraint of its articulations (steps 1-6 of the module
    docstring)."""
    block, lane = wp.tid()
    w = block + first
    lanes = wp.block_dim()
    for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
        a = rm.world_arts[ia]
        for d in range(tm.art_dof_start[a], tm.art_dof_start[a + 1]):
            qacc_c[d] = 0.0
    if lane == 0:
        rd.nactive[w] = _list_rows(w, rm, rd, cm, tm, joint_q, joint_qd)
    # Every lane reads k after the barrier. (Not a tile broadcast: a CPU tile's shared storage is not safe
    # when several host threads launch the kernel at once, as SolverGeneralized(threads=N) does.)
    block_sync()
    k = rd.nactive[w]
    if k == 0:
        if rm.newton != 0 and lane == 0:
            rd.niter[w] = 0
        return
    r0 = rm.world_row_start[w]
    _fill_rows(k, r0, dt, rm, rd, cm, tm, art_ref, cdof, chol, qacc_smooth, joint_q, joint_qd, lane, lanes)
    block_sync()
    if rm.newton != 0:
        newton_solve(k, r0, w, iterations, tolerance, rm, rd, tm, cm.pair_mu, cm.slot_pair, qacc_c, lane, lanes)
    elif lane == 0:
        _pgs(k, r0, w, iterations, tolerance, rm, rd, cm, tm, qacc_c)
    block_sync()
    # qacc_constraint = M^-1 J^T f = L^-1 (Y f).
    for ia in range(rm.world_art_start[w] + lane, rm.world_art_start[w + 1], lanes):
        a = rm.world_arts[ia]
        d0 = tm.art_dof_start[a]
        ltl_solve(chol, tm.art_mat_start[a], tm.art_dof_start[a + 1] - d0, d0, tm.dof_parent, qacc_c, d0)


@wp.func
def _list_rows(
    w: int,
    rm: RowModel,
    rd: RowData,
    cm: ContactTables,
    tm: TreeTables,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Step 1 for world w: switch its rows on or off (cheap tests: contact slot active, joint at a limit,
    friction loss) and list the active ones compactly from r0; returns their count k."""
    r0 = rm.world_row_start[w]
    r1 = rm.world_row_start[w + 1]
    k = int(0)
    i = r0
    while i < r1:
        kind = rm.kind[i]
        if kind == CONTACT:  # a slot's rows are consecutive, from its first: all on or all off
            nr = rm.slot_nrows[rm.owner[i]]
            on = cm.active[rm.owner[i]]
            for e in range(nr):
                if on == 0:
                    rd.active[i + e] = 0
                    rd.force[i + e] = 0.0
                else:
                    rd.act_list[r0 + k] = i + e
                    k += 1
            i += nr
            continue
        on = int(0)
        if kind == LIMIT or kind == FRICTION:
            on = dof_row_switch(i, kind, rm, rd, tm, joint_q, joint_qd)
        else:
            on = rd.active[i]  # equality rows: filled by constraint.make_rows
        if on != 0:
            rd.act_list[r0 + k] = i
            k += 1
        i += 1
    return k


@wp.func
def _fill_rows(
    k: int,
    r0: int,
    dt: float,
    rm: RowModel,
    rd: RowData,
    cm: ContactTables,
    tm: TreeTables,
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
    at each compact index; a pyramidal contact is filled whole by the lane of its first edge."""
    for c in range(lane, k, lanes):
        i = rd.act_list[r0 + c]
        kind = rm.kind[i]
        if kind == CONTACT:
            if rm.slot_nrows[rm.owner[i]] == 4:
                if rm.sub[i] == 0:
                    contact_pyramid(i, r0 + c, dt, rm, rd, cm, tm, art_ref, cdof, chol, qacc_smooth, joint_qd)
                continue
            contact_row(i, rm, rd, cm, tm, art_ref, cdof)
        elif kind == LIMIT or kind == FRICTION:
            dof_row_fill(i, r0 + c, kind, dt, rm, rd, tm, joint_q, joint_qd, chol, qacc_smooth)
            continue
        stiff = 1.0
        if kind == CONTACT and rd.lo[i] < -1.0e29:
            stiff = 0.0  # an elliptic tangent
        finish_row(i, r0 + c, dt, stiff, rm, rd, tm, chol, qacc_smooth, joint_qd)


@wp.func
def _pgs(
    k: int,
    r0: int,
    w: int,
    iterations: int,
    tolerance: float,
    rm: RowModel,
    rd: RowData,
    cm: ContactTables,
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
            row_axpy(rd.act_list[r0 + c], rd.cforce[r0 + c], rm, rd, tm, qacc_c)
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
            rd.act_list,
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
            i = rd.act_list[r0 + c]
            if rm.kind[i] == CONTACT and rm.slot_nrows[rm.owner[i]] == 3:
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
                limit = row_mu(cm, rm, i) * fn
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
                rd.lo[i],
                rd.hi[i],
            )
            change += set_force(c, r0, f, dense, rm, rd, tm, qacc_c)
            scale += wp.abs(f)
            c += 1
        if change <= tolerance * scale:
            break
    for c in range(k):
        i = rd.act_list[r0 + c]
        f = rd.cforce[r0 + c]
        rd.force[i] = f
        if dense != 0 and f != 0.0:
            row_axpy(i, f, rm, rd, tm, qacc_c)


def world_dof_start(layout, arts=None, art_start=None) -> np.ndarray:
    """(worlds + 1,) first DOF of each world when every world's articulations hold one contiguous DOF
    range in world order (what the Newton solve needs); raises ModelBuildError naming the first world whose
    DOFs are not contiguous."""
    worlds = layout.world_count
    if arts is None:
        arts = np.argsort(layout.art_world, kind="stable")
        art_start = np.searchsorted(layout.art_world[arts], np.arange(worlds + 1))
    out = np.zeros(worlds + 1, np.int64)
    pos = 0
    for w in range(worlds):
        out[w] = pos
        for a in arts[art_start[w] : art_start[w + 1]]:
            if layout.art_dof_start[a] != pos:
                raise ModelBuildError(f"world {w}: its articulations' DOFs are not one contiguous range")
            pos = int(layout.art_dof_start[a + 1])
    out[worlds] = pos
    return out


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
    ):
        dev = model.device
        self.model = model
        self.newton = bool(newton)
        self.tolerance = float(newton_tolerance if newton else tolerance)
        worlds = rows.world_count
        starts = rows.world_row_start.numpy()[: worlds + 1] if rows.count else np.zeros(worlds + 1, np.int32)
        per = np.diff(starts) if rows.count else np.zeros(worlds, np.int64)
        cap = np.minimum(per, DENSE_CAP) if not newton else np.zeros(worlds, np.int64)
        dense_start = np.concatenate([[0], np.cumsum(cap * cap)])
        arts = np.argsort(layout.art_world, kind="stable").astype(np.int32)
        art_start = np.searchsorted(layout.art_world[arts], np.arange(worlds + 1)).astype(np.int32)
        n = max(rows.count, 1)
        dof_start = world_dof_start(layout, arts, art_start) if newton else np.zeros(worlds + 1, np.int64)
        wn = np.diff(dof_start)
        ydense_start = np.concatenate([[0], np.cumsum(per * wn)])
        hess_start = np.concatenate([[0], np.cumsum(wn * wn)])
        if max(ydense_start[-1], hess_start[-1], dense_start[-1]) > MAX_ROW_FLOATS:
            raise ModelBuildError(
                f"SolverGeneralized: the per-world constraint blocks need {int(ydense_start[-1])} (rows x DOFs), "
                f"{int(hess_start[-1])} (DOFs^2) and {int(dense_start[-1])} (dense Delassus) floats, above the "
                f"limit of 2^31 - 1 (int32 indexing); reduce the contact pairs (self-collisions, filters) or DOFs"
            )

        def arr(x, dtype):
            x = np.ascontiguousarray(x)
            return wp.array(x if len(x) else np.zeros(1, x.dtype), dtype=dtype, device=dev)

        rm = RowModel()
        rm.world_row_start = rows.world_row_start
        rm.world_art_start = arr(art_start, wp.int32)
        rm.world_arts = arr(arts, wp.int32)
        rm.dense_start = arr(dense_start[:-1].astype(np.int32), wp.int32)
        rm.dense_cap = arr(cap.astype(np.int32), wp.int32)
        rm.kind, rm.owner, rm.sub, rm.art, rm.slot_nrows = rows.kind, rows.owner, rows.sub, rows.art, rows.slot_nrows
        rm.width = rows.width
        rm.cone_rows = 4 if rows.cone == "pyramidal" else 3
        rm.limit_solref, rm.limit_solimp = rows.limit_solref, rows.limit_solimp
        rm.friction_solref, rm.friction_solimp = rows.friction_solref, rows.friction_solimp
        rm.rest_speed = rows.friction_rest_speed
        rm.subspace = int(bool(subspace))
        rm.body_invweight, rm.dof_invweight = rows.body_invweight, rows.dof_invweight
        rm.world_scale = rows.world_scale
        rm.newton = int(self.newton)
        rm.ls_iterations = int(ls_iterations)
        rm.world_dof_start = arr(dof_start.astype(np.int32), wp.int32)
        rm.ydense_start = arr(ydense_start[:-1].astype(np.int32), wp.int32)
        rm.hess_start = arr(hess_start[:-1].astype(np.int32), wp.int32)
        rd = RowData()
        rd.minv8 = wp.array(ptr=rows.minv_jac.ptr, dtype=vec8, shape=(rows.minv_jac.shape[0] // 8,), device=dev)
        rd.active, rd.jac, rd.minv_jac, rd.pos = rows.active, rows.jac, rows.minv_jac, rows.pos
        rd.solref, rd.solimp, rd.lo, rd.hi = rows.solref, rows.solimp, rows.lo, rows.hi
        rd.force, rd.diag_approx = rows.force, rows.diag_approx

        def zeros(count, dtype=wp.float32):
            return wp.zeros(max(int(count), 1), dtype=dtype, device=dev)

        nd = model.joint_dof_count
        rd.act_list, rd.free = zeros(n, wp.int32), zeros(n, wp.int32)
        rd.bias, rd.reg, rd.inv, rd.cforce, rd.step = zeros(n), zeros(n), zeros(n), zeros(n), zeros(n)
        rd.dense = zeros(dense_start[-1])
        rd.scratch = zeros(dense_start[-1] if subspace else 1)
        rd.ydense = zeros(ydense_start[-1])
        rd.ynz = zeros(ydense_start[-1], wp.int32)
        rd.hess = zeros(hess_start[-1])
        rd.ynz_count, rd.cone = zeros(n if newton else 1, wp.int32), zeros(n if newton else 1, wp.int32)
        rd.jar, rd.jv, rd.cone_mu = zeros(n if newton else 1), zeros(n if newton else 1), zeros(n if newton else 1)
        rd.zone = zeros(n if newton else 1, wp.vec2)
        rd.niter = zeros(worlds, wp.int32)
        rd.nactive = zeros(worlds, wp.int32)
        rd.grad, rd.search = zeros(nd if newton else 1), zeros(nd if newton else 1)
        cm = ContactTables()
        cm.slot_pair, cm.pair_body, cm.pair_mu = contacts.slot_pair, contacts.pair_body, contacts.pair_mu
        cm.pair_margin, cm.pair_gap, cm.pair_condim = contacts.pair_margin, contacts.pair_gap, contacts.pair_condim
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
        self.count = rows.count
        self.worlds = worlds

    def solve(self, data, joint_q, joint_qd, dt, iterations, span, block_dim: int = 1):
        """Assemble and solve the worlds in ``span`` = (first, count); writes their
        ``data.qacc_constraint``; one block of ``block_dim`` lanes per world."""
        if self.count == 0 or span[1] == 0:
            return
        wp.launch_tiled(
            _world_kernel,
            dim=[span[1]],
            block_dim=int(block_dim),
            device=self.model.device,
            inputs=[
                span[0],
                self.rm,
                self.cm,
                self.tm,
                float(dt),
                int(iterations),
                self.tolerance,
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
