"""World partitions: spans (the worlds one CPU thread steps) and launch blocks (the unit one block of lanes
of the per-world passes steps, with its entity ranges and tree levels: :class:`BlockRanges`).

Warp runs a CPU launch on one core. Worlds never interact, and every entity a step touches (articulation,
DOF, coordinate, body, contact pair and slot, constraint row, actuator) lies in one world, contiguous
per world (the ``*_world_start`` arrays), so the worlds [w0, w1) map to one contiguous range in every
index space. Each kernel of the step takes the first index of its range and is launched over the
range's length; groups then run in separate threads (Warp releases the GIL inside a CPU launch and a
CPU graph replay) with results bitwise equal to one launch over all worlds.

The same cut makes world chunks (:func:`chunk_spans`): one thread steps a chunk's worlds through every
substep before the next chunk's, so each chunk's arrays stay in the cache from stage to stage.

A model splits only when nothing is shared between worlds: no global (world -1) bodies, joints,
articulations, equality constraints or tendons (global static shapes such as a ground plane are fine: they
belong to no index space of the step), and actuators ordered by world. The same condition makes each
world its own launch block; otherwise one block holds every world.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..sim.stage_args import fill
from .collision.pairs import find_templates

__all__ = [
    "Span",
    "whole_span",
    "split_reason",
    "shared_reason",
    "split_spans",
    "chunk_spans",
    "spans_between",
    "actuator_world",
    "world_starts",
    "block_starts",
    "BlockRanges",
    "joint_levels",
    "upload_ranges",
]


@dataclass(frozen=True)
class Span:
    """(first, count) in each index space of one group of worlds; ``blocks``: the launch blocks of the
    per-world passes that step them (see :func:`block_starts`)."""

    worlds: tuple[int, int]
    blocks: tuple[int, int]
    articulations: tuple[int, int]
    dofs: tuple[int, int]
    coords: tuple[int, int]
    bodies: tuple[int, int]
    pairs: tuple[int, int]
    slots: tuple[int, int]
    rows: tuple[int, int]
    actuators: tuple[int, int]


def whole_span(model, contacts, rows, actuator_count: int, world_count: int, block_count: int) -> Span:
    """The span of every entity (one group)."""
    return Span(
        worlds=(0, world_count),
        blocks=(0, block_count),
        articulations=(0, model.articulation_count),
        dofs=(0, model.joint_dof_count),
        coords=(0, model.joint_coord_count),
        bodies=(0, model.body_count),
        pairs=(0, contacts.pair_count),
        slots=(0, contacts.slot_count),
        rows=(0, rows.count),
        actuators=(0, actuator_count),
    )


def _has_globals(start: np.ndarray) -> bool:
    """Whether a ``*_world_start`` array (world_count + 2,) holds entities before or after the worlds."""
    return int(start[0]) != 0 or int(start[-1]) != int(start[-2])


def actuator_world(model, actuator_dof: np.ndarray) -> np.ndarray:
    """World of each actuator: the world of the DOF it drives."""
    return np.searchsorted(model.joint_dof_world_start.numpy()[1:-1], actuator_dof, side="right")


def split_reason(model, contacts, actuator_dof: np.ndarray) -> str | None:
    """Why the model cannot be split by world (None when it can)."""
    if model.world_count < 2:
        return "the model has fewer than two worlds"
    return shared_reason(model, contacts, actuator_dof)


def shared_reason(model, contacts, actuator_dof: np.ndarray) -> str | None:
    """Why the worlds of a model do not own contiguous, disjoint entity ranges (None when they do)."""
    for kind in ("body", "joint", "articulation", "equality_constraint", "tendon"):
        if _has_globals(getattr(model, f"{kind}_world_start").numpy()):
            return f"the model has global (world -1) {kind.replace('_', ' ')} entities"
    if len(actuator_dof):
        if np.any(np.diff(actuator_world(model, actuator_dof)) < 0):
            return "actuators are not ordered by world"
    return None


def split_spans(model, contacts, rows, actuator_dof: np.ndarray, parts: int) -> list[Span]:
    """``parts`` spans of contiguous worlds, balanced by DOF count (callers check :func:`split_reason`)."""
    nw = model.world_count
    dof_start = model.joint_dof_world_start.numpy()[: nw + 1].astype(np.int64)
    # Cut where the cumulative DOF count crosses each 1 / parts of the total (at least one world each).
    targets = dof_start[-1] * np.arange(1, parts) / parts
    cuts = [int(c) for c in np.searchsorted(dof_start[1:], targets, side="left") + 1]
    for i in range(len(cuts)):  # strictly increasing, leaving one world for each later group
        cuts[i] = min(max(cuts[i], cuts[i - 1] + 1 if i else 1), nw - (parts - 1 - i))
    return spans_between(model, contacts, rows, actuator_dof, [0] + cuts + [nw])


def chunk_spans(model, contacts, rows, actuator_dof: np.ndarray, span: Span, size: int) -> list[Span]:
    """``span``'s worlds as consecutive spans of at most ``size`` worlds (``span`` itself when it holds no
    more). A model whose worlds share entities is one block (callers check :func:`shared_reason`)."""
    w0, count = span.worlds
    if count <= size:
        return [span]
    bounds = list(range(w0, w0 + count, size)) + [w0 + count]
    return spans_between(model, contacts, rows, actuator_dof, bounds)


def spans_between(model, contacts, rows, actuator_dof: np.ndarray, bounds) -> list[Span]:
    """One span per pair of consecutive world indices in ``bounds`` (increasing): worlds [b_i, b_i+1)."""
    starts = world_starts(model, contacts, rows, actuator_dof)
    pair_start, slot_start = starts["pair"], starts["slot"]

    def rng(start, w0, w1):
        return int(start[w0]), int(start[w1] - start[w0])

    spans = []
    for w0, w1 in zip(bounds[:-1], bounds[1:]):
        p0, p1 = int(pair_start[w0]), int(pair_start[w1])
        spans.append(
            Span(
                worlds=(int(w0), int(w1 - w0)),
                blocks=(int(w0), int(w1 - w0)),
                articulations=rng(starts["articulation"], w0, w1),
                dofs=rng(starts["joint_dof"], w0, w1),
                coords=rng(starts["joint_coord"], w0, w1),
                bodies=rng(starts["body"], w0, w1),
                pairs=(p0, p1 - p0),
                slots=rng(slot_start, w0, w1),
                rows=rng(starts["row"], w0, w1),
                actuators=rng(starts["actuator"], w0, w1),
            )
        )
    return spans


def world_starts(model, contacts, rows, actuator_dof: np.ndarray) -> dict:
    """First entity of each world, (world_count + 1,) int64 per index space ("articulation", "joint", "joint_dof",
    "joint_coord", "body", "tendon", "pair", "slot", "row", "actuator"), for a model whose worlds own contiguous
    ranges (:func:`shared_reason` is None). A model without worlds is one world holding everything."""
    if model.world_count == 0:
        return _one_block(model, contacts, rows, actuator_dof)
    nw = model.world_count
    starts = {
        kind: getattr(model, f"{kind}_world_start").numpy()[: nw + 1].astype(np.int64)
        for kind in ("articulation", "joint", "joint_dof", "joint_coord", "body", "tendon")
    }
    starts["pair"] = np.asarray(contacts.pairs.block_pair_start, dtype=np.int64)
    starts["slot"] = np.asarray(contacts.pairs.block_slot_start, dtype=np.int64)
    starts["row"] = (
        rows.world_row_start.numpy()[: nw + 1].astype(np.int64) if rows.count else np.zeros(nw + 1, np.int64)
    )
    act_world = actuator_world(model, actuator_dof)
    starts["actuator"] = np.searchsorted(act_world, np.arange(nw + 1), side="left").astype(np.int64)
    return starts


def block_starts(model, contacts, rows, actuator_dof: np.ndarray) -> dict:
    """First entity of each launch block of the per-world passes, (blocks + 1,) int64 per index space of
    :func:`world_starts`, plus "world": the worlds of each block. A block is one world where the worlds own
    contiguous ranges; where they share entities (:func:`shared_reason`), or there are no worlds, one
    block holds every entity and every world."""
    if model.world_count > 0 and shared_reason(model, contacts, actuator_dof) is None:
        starts = world_starts(model, contacts, rows, actuator_dof)
        starts["world"] = np.arange(model.world_count + 1, dtype=np.int64)
        return starts
    starts = _one_block(model, contacts, rows, actuator_dof)
    starts["world"] = np.array([0, max(model.world_count, 1)], np.int64)
    return starts


def _one_block(model, contacts, rows, actuator_dof: np.ndarray) -> dict:
    """Starts of one block holding every entity."""
    counts = {
        "articulation": model.articulation_count,
        "joint": model.joint_count,
        "joint_dof": model.joint_dof_count,
        "joint_coord": model.joint_coord_count,
        "body": model.body_count,
        "tendon": model.tendon_count,
        "pair": contacts.pair_count,
        "slot": contacts.slot_count,
        "row": rows.count,
        "actuator": len(actuator_dof),
    }
    return {kind: np.array([0, n], np.int64) for kind, n in counts.items()}


@wp.struct
class BlockRanges:
    """Where each launch block's entities lie (a block is one world, or every world where worlds share
    entities: :func:`block_starts`). ``*_start``: (blocks + 1,) int32, block b owns
    [start[b], start[b + 1]) and the worlds [world_start[b], world_start[b + 1]). Tree levels are stored
    once per distinct block layout (template t = ``level_template[b]``): the joints of block b at depth l
    (root joints at 0) are joint_start[b] + ``level_joint[level_ptr[i] : level_ptr[i + 1]]`` for
    i = level_start[t] + l, up to level_start[t + 1]."""

    world_start: wp.array(dtype=int)
    art_start: wp.array(dtype=int)
    dof_start: wp.array(dtype=int)
    body_start: wp.array(dtype=int)
    joint_start: wp.array(dtype=int)
    tendon_start: wp.array(dtype=int)
    actuator_start: wp.array(dtype=int)
    slot_start: wp.array(dtype=int)
    level_template: wp.array(dtype=int)  # (blocks,) level template of each block
    level_start: wp.array(dtype=int)  # (templates + 1,) first level of each template
    level_ptr: wp.array(dtype=int)  # (template levels + 1,) first entry of each level in level_joint
    level_joint: wp.array(dtype=int)  # (template joints,) block-local joints by depth, index


def joint_levels(model, joint_start: np.ndarray):
    """(level_start, level_ptr, level_joint) of :class:`BlockRanges` from the joint tree: a joint's depth
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


def upload_ranges(model, starts: dict, device) -> BlockRanges:
    """:class:`BlockRanges` from :func:`block_starts`; blocks with the same tree levels (in block-local
    joints) share one copy."""
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
        "world_start": starts["world"],
        "art_start": starts["articulation"],
        "dof_start": starts["joint_dof"],
        "body_start": starts["body"],
        "joint_start": starts["joint"],
        "tendon_start": starts["tendon"],
        "actuator_start": starts["actuator"],
        "slot_start": starts["slot"],
        "level_template": t.block_template,
        "level_start": t_level_start,
        "level_ptr": t_level_ptr,
        "level_joint": t_joint,
    }
    return fill(
        BlockRanges,
        **{
            name: wp.array(np.asarray(values, dtype=np.int32).reshape(-1), dtype=wp.int32, device=device)
            for name, values in host.items()
        },
    )
