"""The substep as per-world blocks: one block of ``block_dim`` lanes per world, four launches.

1. :func:`launch_smooth` (one block per world): forward kinematics (lanes over the joints of one tree
   level at a time), motion subspaces and body inertias (lanes over the world's joints), bias forces and
   composite inertias (one tree level at a time, root to leaves, then leaves to root); mass-matrix rows
   and passive forces (lanes over its DOFs); actuator forces (lanes over its actuators); factorization
   and the smooth acceleration (lanes over articulations, or, with fewer articulations than lanes,
   every lane on each: :func:`.smooth.factor_articulation`). Barriers separate the passes that read
   another lane's results.
2. Collision (:func:`.collision_driver.collide`, one block per world, lanes over its candidate pairs).
3. The constraint solve (:mod:`.world_solve`, per world).
4. :func:`launch_finish` (one block per world): on the last substep the contact outputs (lanes over the
   world's bodies, then its contact slots); integration (lanes over articulations); on the last substep
   forward kinematics into the state (level by level) and the world's health flag.

Each pass calls the same per-entity ``@wp.func`` as the stage's own kernel (:mod:`.smooth`,
:mod:`.passive`, :mod:`.forward`, :mod:`.solver`, :mod:`newton_gym.sim.kinematics`), in the same order
per entity, so one lane reproduces the staged launches bit for bit, and ``block_dim`` lanes change only
the order of the atomic sums of actuator forces and contact wrenches. On the CPU, Warp runs the lanes of
a block as cooperative fibers when ``wp.config.enable_cpu_blocks`` is set (else one lane).
"""

from __future__ import annotations

import numpy as np
import warp as wp

from ..sim.kinematics import FkArgs, fk_joint
from ..sim.stage_args import pack
from .forward import HealthArgs, IntegrateArgs, health_world, integrate_articulation
from .lanes import block_sync
from .pair_topology import find_templates
from .passive import ActuatorArgs, PassiveArgs, actuator_forces, passive_dofs
from .smooth import (
    CrbArgs,
    FactorArgs,
    RneArgs,
    SubspaceArgs,
    crb_body,
    crb_gather,
    factor_articulation,
    mass_matrix_rows,
    rne_backward,
    rne_forward,
    subspace_joint,
    subspace_ref,
)
from .solver import ContactOutputArgs, contact_output_slots

__all__ = ["WorldRanges", "upload_ranges", "launch_smooth", "launch_finish", "default_block_dim"]


def default_block_dim(device) -> int:
    """Lanes per world block: 32 (one warp) on CUDA, 1 on the CPU."""
    return 1 if device.is_cpu else 32


@wp.struct
class WorldRanges:
    """Where each world's entities lie. ``*_start``: (world_count + 1,) int32, world w owns
    [start[w], start[w + 1]). Tree levels are stored once per distinct world layout (template t =
    ``level_template[w]``): the joints of world w at depth l (root joints at 0) are joint_start[w] +
    ``level_joint[level_ptr[i] : level_ptr[i + 1]]`` for i = level_start[t] + l, up to level_start[t + 1]."""

    art_start: wp.array(dtype=int)
    dof_start: wp.array(dtype=int)
    body_start: wp.array(dtype=int)
    joint_start: wp.array(dtype=int)
    actuator_start: wp.array(dtype=int)
    slot_start: wp.array(dtype=int)
    level_template: wp.array(dtype=int)  # (world_count,) level template of each world
    level_start: wp.array(dtype=int)  # (templates + 1,) first level of each template
    level_ptr: wp.array(dtype=int)  # (template levels + 1,) first entry of each level in level_joint
    level_joint: wp.array(dtype=int)  # (template joints,) world-local joints by depth, index


def joint_levels(model, joint_start: np.ndarray):
    """(level_start, level_ptr, level_joint) of :class:`WorldRanges` from the joint tree: a joint's depth
    is its parent body's depth + 1 (0 for a parent of -1 or a body no joint moves)."""
    nj, nb = model.joint_count, model.body_count
    parent = model.joint_parent.numpy().astype(np.int64)
    child = model.joint_child.numpy().astype(np.int64)
    depth = np.zeros(nb + 1, np.int64)  # depth of each body's joint; index nb stands for "no parent"
    moved = np.zeros(nb + 1, bool)
    moved[child] = True
    par = np.where(parent >= 0, parent, nb)
    for _ in range(nb + 1):  # a longest chain settles in as many passes as it has joints
        new = np.where(moved[par], depth[par] + 1, 0)
        if np.array_equal(depth[child], new):
            break
        depth[child] = new
    # Only joints of articulations are stepped (as the per-articulation loops do).
    art_start = model.articulation_start.numpy().astype(np.int64)
    in_art = np.zeros(nj + 1, np.int64)
    np.add.at(in_art, art_start[:-1], 1)
    np.add.at(in_art, art_start[1:], -1)
    joints = np.flatnonzero(np.cumsum(in_art)[:nj] > 0)
    n = len(joints)
    jdepth = depth[child[joints]]
    worlds = len(joint_start) - 1
    jworld = np.searchsorted(joint_start, joints, side="right") - 1
    order = joints[np.lexsort((joints, jdepth, jworld))]
    key = (np.searchsorted(joint_start, order, side="right") - 1) * (nj + 1) + depth[child[order]]
    cuts = np.flatnonzero(np.diff(key)) + 1 if n else np.zeros(0, np.int64)
    level_ptr = np.concatenate([[0], cuts, [n]]).astype(np.int64) if n else np.zeros(1, np.int64)
    level_world = (np.searchsorted(joint_start, order[level_ptr[:-1]], side="right") - 1) if n else np.zeros(0)
    level_start = np.searchsorted(level_world, np.arange(worlds + 1), side="left")
    return level_start, level_ptr, order


def upload_ranges(model, starts: dict, device) -> WorldRanges:
    """:class:`WorldRanges` from :func:`.partition.world_starts`; worlds with the same tree levels (in
    world-local joints) share one copy."""
    level_start, level_ptr, order = joint_levels(model, starts["joint"])
    joint_start = np.asarray(starts["joint"], dtype=np.int64)
    worlds = len(joint_start) - 1
    # per world: its levelled joints (world-local) and each one's depth within the world
    level_start = np.asarray(level_start, dtype=np.int64)
    level_ptr = np.asarray(level_ptr, dtype=np.int64)
    sizes = np.diff(level_ptr)
    entry_lvl = np.repeat(np.arange(len(sizes)), sizes)
    level_world = np.repeat(np.arange(worlds), np.diff(level_start))
    entry_world = level_world[entry_lvl]
    entry_level = entry_lvl - level_start[entry_world]
    entry_start = level_ptr[level_start]  # (worlds + 1,) first entry of each world
    local = np.asarray(order, dtype=np.int64) - joint_start[entry_world]
    t = find_templates([local, entry_level], entry_start)
    t_levels = [np.arange(level_start[w], level_start[w + 1]) for w in t.template_block]
    t_level_start = np.concatenate([[0], np.cumsum([len(x) for x in t_levels])])
    t_sizes = np.concatenate([sizes[x] for x in t_levels]) if t_levels else np.zeros(0, np.int64)
    t_level_ptr = np.concatenate([[0], np.cumsum(t_sizes)])
    t_joint = np.concatenate([local[entry_start[w] : entry_start[w + 1]] for w in t.template_block])
    host = {
        "art_start": starts["articulation"],
        "dof_start": starts["joint_dof"],
        "body_start": starts["body"],
        "joint_start": starts["joint"],
        "actuator_start": starts["actuator"],
        "slot_start": starts["slot"],
        "level_template": t.block_template,
        "level_start": t_level_start,
        "level_ptr": t_level_ptr,
        "level_joint": t_joint,
    }
    return pack(
        WorldRanges,
        [
            wp.array(np.asarray(host[name], dtype=np.int32).reshape(-1), dtype=wp.int32, device=device)
            for name in WorldRanges.vars
        ],
    )


@wp.func
def _fk_levels(w: int, lane: int, lanes: int, ranges: WorldRanges, fk: FkArgs):
    """Forward kinematics of world w by its lanes, one tree level at a time (a joint needs its parent
    body's pose and twist), a barrier after each level. Every lane of the block must call it."""
    t = ranges.level_template[w]
    j0 = ranges.joint_start[w]
    for level in range(ranges.level_start[t], ranges.level_start[t + 1]):
        for jj in range(ranges.level_ptr[level] + lane, ranges.level_ptr[level + 1], lanes):
            fk_joint(j0 + ranges.level_joint[jj], fk)
        block_sync()


@wp.kernel
def _smooth_kernel(
    first_world: int,
    ranges: WorldRanges,
    fk: FkArgs,
    sub: SubspaceArgs,
    crb: CrbArgs,
    rne: RneArgs,
    pas: PassiveArgs,
    act: ActuatorArgs,
    fac: FactorArgs,
):
    block, lane = wp.tid()
    w = block + first_world
    lanes = wp.block_dim()
    _fk_levels(w, lane, lanes, ranges, fk)
    for a in range(ranges.art_start[w] + lane, ranges.art_start[w + 1], lanes):
        subspace_ref(a, sub)
    block_sync()  # every joint's subspace needs its articulation's reference point
    for j in range(ranges.joint_start[w] + lane, ranges.joint_start[w + 1], lanes):
        a = crb.body_art[sub.joint_child[j]]
        if a >= 0:  # joints outside articulations are not stepped
            subspace_joint(j, a, sub)
            crb_body(j, a, crb)
    block_sync()  # the bias forces read every body's twist and inertia about r
    # Bias forces root to leaves (accelerations), then leaves to root (forces) with the composite inertias.
    lt = ranges.level_template[w]
    j0 = ranges.joint_start[w]
    for level in range(ranges.level_start[lt], ranges.level_start[lt + 1]):
        for jj in range(ranges.level_ptr[level] + lane, ranges.level_ptr[level + 1], lanes):
            j = j0 + ranges.level_joint[jj]
            rne_forward(j, crb.body_art[sub.joint_child[j]], rne)
        block_sync()
    for t in range(ranges.level_start[lt + 1] - ranges.level_start[lt]):
        level = ranges.level_start[lt + 1] - 1 - t
        for jj in range(ranges.level_ptr[level] + lane, ranges.level_ptr[level + 1], lanes):
            j = j0 + ranges.level_joint[jj]
            crb_gather(j, crb)
            rne_backward(j, crb.body_art[sub.joint_child[j]], rne)
        block_sync()
    mass_matrix_rows(ranges.dof_start[w] + lane, ranges.dof_start[w + 1], lanes, crb)
    passive_dofs(ranges.dof_start[w] + lane, ranges.dof_start[w + 1], lanes, pas)
    block_sync()  # actuators add to the passive forces of DOFs other lanes wrote
    actuator_forces(ranges.actuator_start[w] + lane, ranges.actuator_start[w + 1], lanes, act)
    block_sync()  # the factorization reads every DOF's forces and implicit diagonal
    a0 = ranges.art_start[w]
    a1 = ranges.art_start[w + 1]
    if a1 - a0 >= lanes:  # one articulation per lane
        for a in range(a0 + lane, a1, lanes):
            factor_articulation(a, fac, 0, 1)
    else:  # fewer articulations than lanes: every lane on each (bitwise the same factors)
        for a in range(a0, a1):
            factor_articulation(a, fac, lane, lanes)


def launch_smooth(device, worlds, block_dim, ranges, fk, sub, crb, rne, pas, act, fac):
    """Launch pass 1 over ``worlds`` = (first, count)."""
    wp.launch_tiled(
        _smooth_kernel,
        dim=[worlds[1]],
        inputs=[worlds[0], ranges, fk, sub, crb, rne, pas, act, fac],
        block_dim=block_dim,
        device=device,
    )


@wp.kernel
def _finish_kernel(
    first_world: int,
    ranges: WorldRanges,
    last: int,
    out: ContactOutputArgs,
    integ: IntegrateArgs,
    fk: FkArgs,
    health: HealthArgs,
):
    block, lane = wp.tid()
    w = block + first_world
    lanes = wp.block_dim()
    if last != 0:  # uniform over the block, so the barriers below are reached by every lane
        for b in range(ranges.body_start[w] + lane, ranges.body_start[w + 1], lanes):
            out.body_wrench_out[b] = wp.spatial_vector()
            out.body_count_out[b] = 0
        if lane == 0:
            out.world_count_out[w] = 0
        block_sync()  # the slots add into bodies other lanes cleared
        contact_output_slots(w, ranges.slot_start[w] + lane, ranges.slot_start[w + 1], lanes, out)
    for a in range(ranges.art_start[w] + lane, ranges.art_start[w + 1], lanes):
        integrate_articulation(a, integ)
    if last != 0:
        block_sync()  # forward kinematics and the health check read every joint's new state
        _fk_levels(w, lane, lanes, ranges, fk)
        if lane == 0:
            health_world(w, health)


def launch_finish(device, worlds, block_dim, ranges, last, out, integ, fk, health):
    """Launch pass 4 over ``worlds`` = (first, count); ``last``: the step's last substep."""
    wp.launch_tiled(
        _finish_kernel,
        dim=[worlds[1]],
        inputs=[worlds[0], ranges, int(bool(last)), out, integ, fk, health],
        block_dim=block_dim,
        device=device,
    )
