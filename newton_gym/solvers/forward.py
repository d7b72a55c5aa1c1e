"""The step's stage list, written once: :func:`substep` runs every model through the same four launches,
one block of ``block_dim`` lanes per launch block (a world, or every world where worlds share entities).

1. :func:`launch_smooth`: forward kinematics (lanes over the joints of one tree level at a time), motion
   subspaces and body inertias (lanes over the block's joints); tendon lengths, Jacobians and spring-damper
   forces (lanes over its tendons); bias forces and composite inertias (one tree level at a time, root to
   leaves, then leaves to root); mass-matrix rows and passive forces (lanes over its DOFs); actuator forces
   (lanes over its actuators); factorization and the smooth acceleration (lanes over trees, or, with fewer
   trees than lanes, every lane on each: :func:`.smooth.dynamics.factor_articulation`). Barriers separate the
   passes that read another lane's results.
2. Collision (:func:`.collision.driver.collide`, one block per world, lanes over its candidate pairs).
3. Constraint rows and their solve (:mod:`.solve.world`, one block per world).
4. :func:`launch_finish`: on the last substep the contact forces (lanes over the block's bodies, then its
   contact slots); integration (lanes over trees); on the last substep forward kinematics into the state
   (level by level) and each world's health flag. "Last" is the last substep of a step that writes its
   outputs (all but the last of an env's frame-skip steps do not: ``SolverGeneralized.step``'s ``outputs``).

A model with a fluid medium (``model.fluid_density`` or ``fluid_viscosity`` above zero) adds one launch after
pass 1: the fluid forces, their implicit term and the smooth acceleration again (:mod:`.smooth.fluid`).

Each pass calls the stage's per-entity ``@wp.func`` (:mod:`.smooth`, :mod:`.integrate`, :mod:`.solve.forces`,
:mod:`newton_gym.sim.kinematics`), so ``block_dim`` lanes change only the order of the atomic sums of
actuator forces and contact wrenches. On the CPU, Warp runs the lanes of a block as cooperative fibers
when ``wp.config.enable_cpu_blocks`` is set (else one lane).
"""

from __future__ import annotations

from dataclasses import dataclass

import warp as wp

from ..sim.kinematics import FkArgs, fk_args, fk_articulation, fk_joint
from .collision.driver import collide
from .collision.pairs import block_of
from .integrate import HealthArgs, IntegrateArgs, health_args, health_world, integrate_args, integrate_articulation
from .lanes import launch_worlds, register_capped, sync_lanes
from .partition import BlockRanges
from .smooth.dynamics import (
    CrbArgs,
    FactorArgs,
    RneArgs,
    SubspaceArgs,
    crb_args,
    crb_body_posed,
    crb_gather,
    crb_gather_articulation,
    factor_args,
    factor_articulation,
    mass_matrix_rows,
    rne_args,
    rne_articulation,
    rne_backward,
    rne_forward,
    subspace_args,
    subspace_joint,
    subspace_ref,
)
from .smooth.passive import (
    ActuatorArgs,
    PassiveArgs,
    actuator_args,
    actuator_forces,
    passive_args,
    passive_dofs,
)
from .smooth.tendon import TendonArgs, tendon_args, tendon_kinematics
from .solve.forces import ContactOutputArgs, contact_output_args, contact_output_slot, contact_output_world

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = [
    "StepArgs",
    "bind",
    "substep",
    "launch_smooth",
    "launch_finish",
    "default_block_dim",
]


def default_block_dim(device) -> int:
    """Lanes per world block: 32 (one warp) on CUDA, 1 on the CPU."""
    return 1 if device.is_cpu else 32


@wp.func
def _fk_levels(b: int, lane: int, lanes: int, ranges: BlockRanges, fk: FkArgs):
    """Forward kinematics of block b by its lanes, one tree level at a time (a joint needs its parent
    body's pose and twist), a barrier after each level. Every lane of the block must call it."""
    t = ranges.level_template[b]
    j0 = ranges.joint_start[b]
    level = int(ranges.level_start[t])
    level_end = ranges.level_start[t + 1]
    while level < level_end:
        jj = int(ranges.level_ptr[level] + lane)
        jj_end = ranges.level_ptr[level + 1]
        while jj < jj_end:
            fk_joint(j0 + ranges.level_joint[jj], fk)
            jj += lanes
        sync_lanes(lanes)
        level += 1


@wp.kernel
def _smooth_kernel(
    first_block: int,
    lanes: int,
    ranges: BlockRanges,
    fk: FkArgs,
    sub: SubspaceArgs,
    ten: TendonArgs,
    crb: CrbArgs,
    rne: RneArgs,
    pas: PassiveArgs,
    act: ActuatorArgs,
    fac: FactorArgs,
    factor: int,
):
    block, lane = wp.tid()
    b = block + first_block
    if lanes == 1:  # one lane: each articulation's joints in tree order (as by levels: parents first)
        a = int(ranges.art_start[b])
        a_end = ranges.art_start[b + 1]
        while a < a_end:
            fk_articulation(a, fk)
            a += 1
    else:
        _fk_levels(b, lane, lanes, ranges, fk)
    a = int(ranges.art_start[b] + lane)
    a_end = ranges.art_start[b + 1]
    while a < a_end:
        subspace_ref(a, sub)
        a += lanes
    sync_lanes(lanes)  # every joint's subspace needs its articulation's reference point
    j = int(ranges.joint_start[b] + lane)
    j_end = ranges.joint_start[b + 1]
    while j < j_end:
        a = crb.m.body_art[sub.m.joint_child[j]]
        if a >= 0:  # joints outside articulations are not stepped
            rot, com = subspace_joint(j, a, sub, int(lanes == 1))  # one lane: joints in tree order
            crb_body_posed(j, a, rot, com, crb)
        j += lanes
    sync_lanes(lanes)  # the bias forces read every body's twist and inertia about r
    t0 = ranges.tendon_start[b]
    t1 = ranges.tendon_start[b + 1]
    if t1 > t0:  # uniform over the block
        tendon_kinematics(t0 + lane, t1, lanes, ten)
        sync_lanes(lanes)  # the passive forces, actuators and factorization read every tendon's results
    # Bias forces root to leaves (accelerations), then leaves to root (forces) with the composite inertias:
    # by the lanes one tree level at a time; one lane walks each articulation's joints in tree order and
    # back (each joint reads its parent's results, or gathers its children's in a fixed order: bitwise the
    # same as by levels).
    if lanes == 1:
        a = int(ranges.art_start[b])
        a_end = ranges.art_start[b + 1]
        while a < a_end:
            rne_articulation(a, rne)
            crb_gather_articulation(a, crb)
            a += 1
    else:
        lt = ranges.level_template[b]
        j0 = ranges.joint_start[b]
        level = int(ranges.level_start[lt])
        level_end = ranges.level_start[lt + 1]
        while level < level_end:
            jj = int(ranges.level_ptr[level] + lane)
            jj_end = ranges.level_ptr[level + 1]
            while jj < jj_end:
                j = j0 + ranges.level_joint[jj]
                rne_forward(j, crb.m.body_art[sub.m.joint_child[j]], rne)
                jj += lanes
            sync_lanes(lanes)
            level += 1
        t = int(0)
        t_end = ranges.level_start[lt + 1] - ranges.level_start[lt]
        while t < t_end:
            level = ranges.level_start[lt + 1] - 1 - t
            jj = int(ranges.level_ptr[level] + lane)
            jj_end = ranges.level_ptr[level + 1]
            while jj < jj_end:
                j = j0 + ranges.level_joint[jj]
                crb_gather(j, crb)
                rne_backward(j, crb.m.body_art[sub.m.joint_child[j]], rne)
                jj += lanes
            sync_lanes(lanes)
            t += 1
    mass_matrix_rows(ranges.dof_start[b] + lane, ranges.dof_start[b + 1], lanes, crb)
    passive_dofs(ranges.dof_start[b] + lane, ranges.dof_start[b + 1], lanes, pas)
    sync_lanes(lanes)  # actuators add to the passive forces of DOFs other lanes wrote
    actuator_forces(ranges.actuator_start[b] + lane, ranges.actuator_start[b + 1], lanes, act)
    if factor == 0:  # the factorization runs WIDE articulations at a time after this pass (.smooth.wide_factor)
        return
    sync_lanes(lanes)  # the factorization reads every DOF's forces and implicit diagonal
    a0 = ranges.art_start[b]
    a1 = ranges.art_start[b + 1]
    if a1 - a0 >= lanes:  # one articulation per lane
        a = int(a0 + lane)
        while a < a1:
            factor_articulation(a, fac, 0, 1)
            a += lanes
    else:  # fewer articulations than lanes: every lane on each (bitwise the same factors)
        a = int(a0)
        while a < a1:
            factor_articulation(a, fac, lane, lanes)
            a += 1


def launch_smooth(
    device, blocks, block_dim, ranges, fk, sub, ten, crb, rne, pas, act, fac, registers=None, wide=None, span=None
):
    """Launch pass 1 over ``blocks`` = (first, count); ``registers``: its CUDA register cap (None: none);
    ``wide``: a :class:`.smooth.wide_factor.WideFactor`: where it covers ``span`` (a :class:`.partition.Span`),
    a second launch factors the span's articulations, several of one shape at a time."""
    kernel = register_capped(_smooth_kernel, registers)
    wide = wide if wide is not None and wide.covers(span) else None
    args = [ranges, fk, sub, ten, crb, rne, pas, act, fac, int(wide is None)]
    launch_worlds(kernel, blocks[0], blocks[1], block_dim, device, args)
    if wide is not None:
        wide.launch(span, fac)


@wp.kernel
def _finish_kernel(
    first_block: int,
    lanes: int,
    ranges: BlockRanges,
    last: int,
    out: ContactOutputArgs,
    integ: IntegrateArgs,
    fk: FkArgs,
    health: HealthArgs,
):
    block, lane = wp.tid()
    b = block + first_block
    w0 = ranges.world_start[b]
    w1 = ranges.world_start[b + 1]
    if last != 0:  # uniform over the block, so the barriers below are reached by every lane
        body = int(ranges.body_start[b] + lane)
        body_end = ranges.body_start[b + 1]
        while body < body_end:
            out.body_wrench_out[body] = wp.spatial_vector()
            out.body_count_out[body] = 0
            body += lanes
        w = int(w0 + lane)
        while w < w1:
            out.world_count_out[w] = 0
            w += lanes
        sync_lanes(lanes)  # the slots add into bodies other lanes cleared
        if w1 - w0 == 1:
            contact_output_world(w0, ranges.slot_start[b], ranges.slot_start[b + 1], lane, lanes, out)
        else:  # a block of several worlds: each slot's world from the pair tables
            s = int(ranges.slot_start[b] + lane)
            s_end = ranges.slot_start[b + 1]
            while s < s_end:
                contact_output_slot(block_of(out.topo.block_slot_start, s), s, out)
                s += lanes
    a = int(ranges.art_start[b] + lane)
    a_end = ranges.art_start[b + 1]
    while a < a_end:
        integrate_articulation(a, integ)
        a += lanes
    if last != 0:
        sync_lanes(lanes)  # forward kinematics and the health check read every joint's new state
        _fk_levels(b, lane, lanes, ranges, fk)
        w = int(w0 + lane)
        while w < w1:
            health_world(w, health)
            w += lanes


def launch_finish(device, blocks, block_dim, ranges, last, out, integ, fk, health, registers=None):
    """Launch pass 4 over ``blocks`` = (first, count); ``last``: the step's last substep; ``registers``: its
    CUDA register cap (None: none)."""
    kernel = register_capped(_finish_kernel, registers)
    launch_worlds(kernel, blocks[0], blocks[1], block_dim, device, [ranges, int(bool(last)), out, integ, fk, health])


@dataclass(frozen=True)
class StepArgs:
    """The stage structs of one substep, bound to one set of state and control arrays."""

    fk: FkArgs  # forward kinematics into the solver's scratch bodies
    sub: SubspaceArgs  # motion subspaces and body inertias
    ten: TendonArgs  # tendon lengths, Jacobians, velocities and spring-damper forces
    crb: CrbArgs  # composite inertias and mass-matrix rows
    rne: RneArgs  # bias forces
    pas: PassiveArgs  # applied, spring, damper and drive forces
    act: ActuatorArgs  # actuator forces
    fac: FactorArgs  # factorization and smooth acceleration
    out: ContactOutputArgs  # contact forces, per-body wrenches and counts
    integ: IntegrateArgs  # integration
    fk_state: FkArgs  # forward kinematics into the state's bodies
    health: HealthArgs  # per-world health flags


def bind(solver, state, body_f, control, ctrl, dt: float) -> StepArgs:
    """The :class:`StepArgs` of ``solver`` for these state, force and control arrays and substep ``dt``."""
    model, tree, data = solver.model, solver.tree, solver.data
    q, qd = state.joint_q, state.joint_qd
    midpoint = solver.integrator == "midpoint"
    return StepArgs(
        fk=fk_args(model, q, qd, data.body_q, data.body_qd),
        sub=subspace_args(model, tree, data, data.body_q, data.body_qd, q, qd),
        ten=tendon_args(model, tree, solver.tendon_tables, data, q, qd, dt),
        crb=crb_args(model, tree, solver.tendon_tables, data),
        rne=rne_args(model, tree, data, data.body_q, body_f, qd, dt, midpoint),
        pas=passive_args(model, tree, solver.tendon_tables, data, q, qd, control, dt),
        act=actuator_args(tree, solver.tendon_tables, solver.actuator_table, ctrl, solver.act, q, qd, dt, data),
        fac=factor_args(model, tree, solver.tendon_tables, data),
        out=contact_output_args(
            model,
            data,
            solver.contacts,
            solver.rows,
            solver.world_solver,
            solver.body_contact_wrench,
            solver.body_contact_count,
            solver.world_contact_count,
        ),
        integ=integrate_args(model, tree, data, data.body_q, q, qd, dt, midpoint),
        fk_state=fk_args(model, q, qd, state.body_q, state.body_qd),
        health=health_args(model, tree, q, qd, solver.max_speed, solver.rows.row_overflow, solver.world_unhealthy),
    )


def substep(solver, span, state, args: StepArgs, dt: float, last: bool):
    """One substep of the worlds in ``span`` (a :class:`.partition.Span`): the stage list, in MuJoCo's order.

    1. Smooth pass: kinematics, motion subspaces, mass matrix, bias forces, passive and actuator forces,
       factorization and the smooth acceleration (:func:`launch_smooth`); with a fluid medium, then the fluid
       forces, their implicit term and the smooth acceleration again (:mod:`.smooth.fluid`, one more launch).
    2. Collision (:func:`.collision.driver.collide`).
    3. Constraint rows and their solve (:class:`.solve.world.WorldSolver`).
    4. Finish pass: contact forces on the last substep, integration, and on the last substep forward
       kinematics into the state and the health flags (:func:`launch_finish`).
    """
    dev, lanes, ranges, regs = solver.device, solver.block_dim, solver.block_ranges, solver.cuda_registers
    a = args
    smooth = (a.fk, a.sub, a.ten, a.crb, a.rne, a.pas, a.act, a.fac)
    launch_smooth(dev, span.blocks, lanes, ranges, *smooth, regs, solver.wide_factor, span)
    if solver.fluid.active():  # a fluid medium: its forces and their implicit term (:mod:`.smooth.fluid`)
        solver.fluid.launch(span.blocks, dt)
    collide(solver.model, solver.contacts, solver.data.body_q, span.worlds, lanes, regs)
    solver.world_solver.solve(solver.data, state.joint_q, state.joint_qd, dt, solver.iterations, span.worlds, lanes)
    launch_finish(dev, span.blocks, lanes, ranges, last, a.out, a.integ, a.fk_state, a.health, regs)
