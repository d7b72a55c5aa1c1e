"""Candidate contact pairs stored once per distinct world layout and indexed by world.

Worlds replicated from one scene have the same candidate pairs up to index offsets, so the pair table is
kept per *template* (a distinct world layout) and every world points at its template. A template pair
stores its shapes and bodies world-locally (index minus the world's first shape or body) or, for the
global shapes and bodies every world meets (the ground), as ``GLOBAL`` + the global index; -1 stays "no
body" (static). Slots (each pair owns consecutive contact slots) and contact rows are numbered from 0
within a template. A world's own pairs, slots and rows are the ranges ``block_*_start[w] ..`` of the
global arrays, so per-pair and per-slot *data* (friction, margins, contacts, warm starts) stay per world.

A model without worlds is one block: its pairs are stored as they are (offsets 0)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..items import item

__all__ = [
    "GLOBAL",
    "PairTopology",
    "Templates",
    "find_templates",
    "block_of",
    "WorldPairs",
    "PairRef",
    "world_pairs",
    "decode_pair",
    "template_pair",
    "template_slot",
    "pair_shapes",
    "pair_bodies",
    "slot_pair",
    "pair_arts",
    "local_index",
    "local_pair",
]

wp.set_module_options({"enable_backward": False})

GLOBAL = 1 << 30  # template entries >= GLOBAL name a global shape or body (GLOBAL + its index)
_GLOBAL = wp.constant(GLOBAL)


@wp.struct
class PairTopology:
    """Template pair tables (shared by every world of a template) and each world's ranges and offsets.
    Blocks are the worlds (one block for a model without worlds); ``*_start`` arrays have blocks + 1 or
    templates + 1 entries, int32."""

    block_pair_start: wp.array(dtype=int)  # (blocks + 1,) first pair of each world
    block_slot_start: wp.array(dtype=int)  # (blocks + 1,) first contact slot of each world
    block_template: wp.array(dtype=int)  # (blocks,) template of each world
    block_shape_offset: wp.array(dtype=int)  # (blocks,) the world's first shape
    block_body_offset: wp.array(dtype=int)  # (blocks,) the world's first body
    template_pair_start: wp.array(dtype=int)  # (templates + 1,) first template pair of each template
    template_slot_start: wp.array(dtype=int)  # (templates + 1,) first template slot of each template
    shape: wp.array(dtype=wp.vec2i)  # (template pairs,) shapes A, B (world-local or GLOBAL + index)
    body: wp.array(dtype=wp.vec2i)  # (template pairs,) bodies of A, B (world-local, GLOBAL + index, -1)
    slots: wp.array(dtype=wp.vec2i)  # (template pairs,) (first slot in the world, slot count)
    radius: wp.array(dtype=float)  # (template pairs,) sum of the two bounding radii [m]
    slot_pair: wp.array(dtype=int)  # (template slots,) pair of each slot, within its world
    # Bundles (:mod:`.candidates`): a template's pairs of one body pair and class, bound-tested together.
    block_bundle_start: wp.array(dtype=int)  # (blocks + 1,) first bundle of each world
    template_bundle_start: wp.array(dtype=int)  # (templates + 1,) first template bundle of each template
    template_world: wp.array(dtype=int)  # (templates,) first world of each template
    bundle_start: wp.array(dtype=int)  # (template bundles + 1,) first entry of each bundle in bundle_pairs
    bundle_pairs: wp.array(dtype=int)  # (template pairs,) each bundle's pairs, counted from their world's first
    bundle_body: wp.array(dtype=wp.vec2i)  # (template bundles,) its bodies A, B (world-local, GLOBAL + index, -1)
    bundle_class: wp.array(dtype=int)  # (template bundles,) narrow phase * 2 + 1 for plane pairs (.candidates)


@dataclass
class Templates:
    """Host result of :func:`find_templates`: ``block_template`` (blocks,) template of each world and
    ``template_block`` (templates,) the first world of each template (whose pairs are the template's)."""

    block_template: np.ndarray
    template_block: np.ndarray


def find_templates(tables: list, block_start: np.ndarray) -> Templates:
    """Group worlds whose tables are equal. ``tables``: per-entity int32 arrays (P, ...) already
    world-local (the pairs here; the tree levels of :mod:`..forward` too); ``block_start``: (blocks + 1,)
    first entity of each world. Worlds with the same entity count are compared row against row
    (vectorised); equal worlds share a template."""
    blocks = len(block_start) - 1
    counts = np.diff(block_start)
    parts = [np.asarray(t, dtype=np.int32) for t in tables]
    flat = np.concatenate([a.reshape(a.shape[0], int(np.prod(a.shape[1:]))) for a in parts], axis=1)
    block_template = np.full(blocks, -1, np.int64)
    reps = []
    for k in np.unique(counts):
        worlds = np.flatnonzero(counts == k)
        if worlds[-1] - worlds[0] == len(worlds) - 1:  # consecutive worlds (replicate): a view, no copy
            rows = flat[block_start[worlds[0]] : block_start[worlds[-1] + 1]].reshape(len(worlds), -1)
        else:
            rows = flat[block_start[worlds][:, None] + np.arange(int(k))].reshape(len(worlds), -1)
        same = (rows == rows[0]).all(axis=1)  # the common case: every world like the first
        block_template[worlds[same]] = len(reps)
        reps.append(int(worlds[0]))
        left = np.flatnonzero(~same)
        while len(left):  # one more template per pass: the first world left and every world equal to it
            same = (rows[left] == rows[left[0]]).all(axis=1)
            block_template[worlds[left[same]]] = len(reps)
            reps.append(int(worlds[left[0]]))
            left = left[~same]
    order = np.argsort(reps, kind="stable")  # templates numbered by their first world
    rank = np.empty(len(reps), np.int64)
    rank[order] = np.arange(len(reps))
    return Templates(rank[block_template], np.asarray(reps, np.int64)[order])


@wp.func
def block_of(starts: wp.array(dtype=int), i: int) -> int:
    """The block b with starts[b] <= i < starts[b + 1] (binary search; empty blocks are skipped)."""
    lo = int(0)
    hi = starts.shape[0] - 2
    while lo < hi:
        mid = (lo + hi + 1) / 2
        if starts[mid] <= i:
            lo = mid
        else:
            hi = mid - 1
    return lo


@wp.func(inline=True)
def local_index(v: int, offset: int) -> int:
    """Model index of template entry v in a world whose first entity is ``offset`` (-1 stays -1)."""
    if v < 0:
        return -1
    if v >= _GLOBAL:
        return v - _GLOBAL
    return v + offset


@wp.func(inline=True)
def local_pair(v: wp.vec2i, offset: int) -> wp.vec2i:
    """:func:`local_index` of both entries of a template pair's shapes or bodies."""
    return wp.vec2i(local_index(v[0], offset), local_index(v[1], offset))


@wp.struct
class WorldPairs:
    """A world's pair offsets (:func:`world_pairs`)."""

    pair: int  # its first pair
    count: int  # its pairs
    template_pair: int  # its template's first pair
    shape: int  # its first shape
    body: int  # its first body
    slot: int  # its first contact slot


@wp.struct
class PairRef:
    """One pair in model indices (:func:`decode_pair`)."""

    shapes: wp.vec2i  # shapes A, B
    bodies: wp.vec2i  # their bodies (-1: static)
    slots: wp.vec2i  # (first contact slot, slot count)


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def world_pairs(topo: PairTopology, w: int) -> WorldPairs:
    """The offsets of world w's pairs, read once for a loop over them."""
    at = WorldPairs()
    at.pair = topo.block_pair_start[w]
    at.count = topo.block_pair_start[w + 1] - at.pair
    at.template_pair = topo.template_pair_start[topo.block_template[w]]
    at.shape = topo.block_shape_offset[w]
    at.body = topo.block_body_offset[w]
    at.slot = topo.block_slot_start[w]
    return at


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def decode_pair(topo: PairTopology, at: WorldPairs, lp: int) -> PairRef:
    """Pair ``lp`` (counted from the world's first) of the world at ``at``, in model indices."""
    tp = at.template_pair + lp
    sl = item(topo.slots, tp)
    ref = PairRef()
    ref.shapes = local_pair(item(topo.shape, tp), at.shape)
    ref.bodies = local_pair(item(topo.body, tp), at.body)
    ref.slots = wp.vec2i(at.slot + sl[0], sl[1])
    return ref


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def template_pair(topo: PairTopology, b: int, p: int) -> int:
    """Template pair of pair p of world b."""
    return topo.template_pair_start[topo.block_template[b]] + p - topo.block_pair_start[b]


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def template_slot(topo: PairTopology, b: int, slot: int) -> int:
    """Template slot of contact slot ``slot`` of world b."""
    return topo.template_slot_start[topo.block_template[b]] + slot - topo.block_slot_start[b]


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def pair_shapes(topo: PairTopology, b: int, tp: int) -> wp.vec2i:
    """Model shapes (A, B) of template pair tp in world b."""
    return local_pair(topo.shape[tp], topo.block_shape_offset[b])


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def pair_bodies(topo: PairTopology, b: int, tp: int) -> wp.vec2i:
    """Model bodies of A and B (-1: static) of template pair tp in world b."""
    return local_pair(topo.body[tp], topo.block_body_offset[b])


@wp.func(inline=True)  # takes the table struct by value: inlined, it is not copied
def slot_pair(topo: PairTopology, b: int, slot: int) -> wp.vec2i:
    """(pair, template pair) of contact slot ``slot`` of world b."""
    tp_local = topo.slot_pair[template_slot(topo, b, slot)]
    t = topo.block_template[b]
    return wp.vec2i(topo.block_pair_start[b] + tp_local, topo.template_pair_start[t] + tp_local)


@wp.func
def pair_arts(bodies: wp.vec2i, body_art: wp.array(dtype=int)) -> wp.vec2i:
    """Articulations of a pair's two Jacobian sides: side 0 the first body's, side 1 the second body's unless
    it is the same one (-1: none)."""
    a0 = int(-1)
    a1 = int(-1)
    if bodies[0] >= 0:
        a0 = body_art[bodies[0]]
    if bodies[1] >= 0:
        a1 = body_art[bodies[1]]
    if a1 == a0:
        a1 = -1
    return wp.vec2i(a0, a1)
