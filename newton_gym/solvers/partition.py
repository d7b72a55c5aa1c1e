"""World partitions: the step of a group of worlds as index ranges, so CPU threads can step groups at once.

Warp runs a CPU launch on one core. Worlds never interact, and every entity a step touches (articulation,
DOF, coordinate, body, contact pair and slot, constraint row, actuator) lies in one world, contiguous
per world (the ``*_world_start`` arrays), so the worlds [w0, w1) map to one contiguous range in every
index space. Each kernel of the step takes the first index of its range and is launched over the
range's length; groups then run in separate threads (Warp releases the GIL inside a CPU launch and a
CPU graph replay) with results bitwise equal to one launch over all worlds.

A model splits only when nothing is shared between worlds: no global (world -1) bodies, joints,
articulations or equality constraints (global static shapes such as a ground plane are fine: they
belong to no index space of the step), and actuators ordered by world.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Span",
    "whole_span",
    "split_reason",
    "shared_reason",
    "split_spans",
    "actuator_world",
    "world_starts",
    "block_starts",
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
    for kind in ("body", "joint", "articulation", "equality_constraint"):
        if _has_globals(getattr(model, f"{kind}_world_start").numpy()):
            return f"the model has global (world -1) {kind.replace('_', ' ')} entities"
    if np.any(np.diff(contacts.pair_world_host) < 0):
        return "contact pairs are not ordered by world"
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
    bounds = np.array([0] + cuts + [nw], dtype=np.int64)
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
    "joint_coord", "body", "pair", "slot", "row", "actuator"), for a model whose worlds own contiguous
    ranges (:func:`shared_reason` is None). A model without worlds is one world holding everything."""
    if model.world_count == 0:
        return _one_block(model, contacts, rows, actuator_dof)
    nw = model.world_count
    starts = {
        kind: getattr(model, f"{kind}_world_start").numpy()[: nw + 1].astype(np.int64)
        for kind in ("articulation", "joint", "joint_dof", "joint_coord", "body")
    }
    starts["pair"] = np.searchsorted(contacts.pair_world_host, np.arange(nw + 1), side="left").astype(np.int64)
    starts["slot"] = np.asarray(contacts.pair_slot_start_host, dtype=np.int64)[starts["pair"]]
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
        "pair": contacts.pair_count,
        "slot": contacts.slot_count,
        "row": rows.count,
        "actuator": len(actuator_dof),
    }
    return {kind: np.array([0, n], np.int64) for kind, n in counts.items()}
