"""Candidate shape pairs, enumerated once per distinct world and expanded to every world (host, once).

A world's candidate pairs are a function of its shapes' collision columns (type, size, mesh, collide
flag, group, condim, priority, heightfield, margin and gap, body, whether the body moves, articulation
and its self-collision switch), of the filter pairs among them and of the global shapes every world
meets. Worlds whose world-local columns and filter pairs are equal therefore have equal pair tables up to
index offsets: the pairs are enumerated for the first world of each such group only (:func:`world_pairs`
has the rules) and every other world's are its group's, shifted by the world's first shape and body. So
4096 replicas of a robot cost one robot's enumeration and a few gathers over the pairs, not 4096.

Groups whose pair tables come out equal (worlds that differ only in columns the pairs do not depend on)
merge into one template (:mod:`.pairs`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...sim.grouping import group_rows, unique_rows, unique_values
from .pairs import GLOBAL, Templates, find_templates

__all__ = ["ShapeColumns", "PairLayout", "shape_columns", "world_pairs", "lay_out_pairs", "encode", "decode"]


@dataclass
class ShapeColumns:
    """Per-shape host columns the candidate rules read (:func:`shape_columns`)."""

    type: np.ndarray  # (shape_count,) int64 GeoType
    collide: np.ndarray  # (shape_count,) bool collides at all
    body: np.ndarray  # (shape_count,) int64 body (-1: static)
    dynamic: np.ndarray  # (shape_count,) bool its body moves
    group: np.ndarray  # (shape_count,) int64 collision group (-1 meets all)
    art: np.ndarray  # (shape_count,) int64 articulation of its body (-1: none)
    self_collide: np.ndarray  # (articulation_count + 1,) bool; the last entry (no articulation) True
    filter_codes: np.ndarray  # (filter pairs,) int64 lo * n + hi of the model's filter pairs, ascending
    n: int  # code base: max(shape_count, 1)


def shape_columns(model, layout, stype: np.ndarray, sbody: np.ndarray) -> ShapeColumns:
    body_art = np.append(layout.body_art, -1)
    body_dyn = np.append(layout.body_dof_last >= 0, False)
    n = max(model.shape_count, 1)
    fp = model.shape_collision_filter_pair_array.numpy().reshape(-1, 2).astype(np.int64)
    return ShapeColumns(
        type=stype,
        collide=model.shape_collide.numpy().astype(bool),
        body=sbody,
        dynamic=body_dyn[sbody],
        group=model.shape_collision_group.numpy(),
        art=body_art[sbody],
        self_collide=np.append(model.articulation_self_collision.numpy().astype(bool), True),
        filter_codes=unique_values(np.minimum(fp[:, 0], fp[:, 1]) * n + np.maximum(fp[:, 0], fp[:, 1])),
        n=n,
    )


def _keep(a: np.ndarray, b: np.ndarray, sh: ShapeColumns) -> np.ndarray:
    """Which candidate pairs (a, b) may touch: both collide, on different bodies, at least one moving,
    compatible groups, not a filter pair, not two shapes of one articulation without self-collision."""
    keep = sh.collide[a] & sh.collide[b] & (sh.body[a] != sh.body[b])
    keep &= sh.dynamic[a] | sh.dynamic[b]
    ga, gb = sh.group[a], sh.group[b]
    keep &= (ga < 0) | (gb < 0) | (ga == gb)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    codes = lo * sh.n + hi
    at = np.minimum(np.searchsorted(sh.filter_codes, codes), max(len(sh.filter_codes) - 1, 0))
    keep &= ~(sh.filter_codes[at] == codes) if len(sh.filter_codes) else True
    art_a, art_b = sh.art[a], sh.art[b]
    same = (art_a == art_b) & (art_a >= 0)
    keep &= ~same | sh.self_collide[np.maximum(art_a, 0)]
    return keep


def world_pairs(shapes: np.ndarray, glob: np.ndarray, sh: ShapeColumns, counts_table: np.ndarray):
    """Candidate pairs of one world whose shapes are ``shapes`` (ascending): every pair of its shapes in
    order, then each of its shapes against each global shape ``glob``, those that :func:`_keep` passes,
    each ordered so that type A <= type B. Returns (a, b, skipped): int64 model shape indices of the
    pairs of a supported type combination (``counts_table[type A, type B] > 0``) and how many were not."""
    k = len(shapes)
    ia, ib = np.triu_indices(k, 1)
    a = np.concatenate([shapes[ia], np.repeat(shapes, len(glob))]).astype(np.int64)
    b = np.concatenate([shapes[ib], np.tile(glob, k)]).astype(np.int64)
    keep = _keep(a, b, sh)
    a, b = a[keep], b[keep]
    swap = sh.type[a] > sh.type[b]
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    ok = counts_table[sh.type[a], sh.type[b]] > 0
    return a[ok], b[ok], int((~ok).sum())


def encode(index: np.ndarray, world: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Template encoding of model indices (:mod:`.pairs`): world-local for entities of a world, GLOBAL +
    index for global ones, -1 kept."""
    out = np.where(world >= 0, index - start[np.maximum(world, 0)], GLOBAL + index)
    return np.where(index < 0, -1, out)


def decode(code: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Model indices of template entries ``code`` in worlds whose first entity is ``offset`` (per entry)."""
    return np.where(code < 0, -1, np.where(code >= GLOBAL, code - GLOBAL, code + offset))


def _signature_groups(model, sh: ShapeColumns, signature: np.ndarray) -> np.ndarray:
    """(world_count,) int64 group of each world: worlds share a group when their shapes' ``signature``
    rows (shape_count, columns) int32, world-local, and their filter pairs are equal."""
    worlds = model.world_count
    sws = model.shape_world_start.numpy().astype(np.int64)
    by_shapes = find_templates([signature[sws[0] : sws[worlds]]], sws[: worlds + 1] - sws[0]).block_template
    # Filter pairs inside a world or between one of its shapes and a global shape, world-locally encoded.
    sworld = model.shape_world.numpy().astype(np.int64)
    lo, hi = sh.filter_codes // sh.n, sh.filter_codes % sh.n
    wl, wh = sworld[lo], sworld[hi]
    world = np.maximum(wl, wh)
    mine = (world >= 0) & ((wl == wh) | (wl < 0) | (wh < 0))
    # world-local indices, then the global shapes by rank (compact codes pack into one sort key)
    glob = np.nonzero(sworld < 0)[0]
    local_max = int(np.diff(sws[: worlds + 1]).max(initial=0))

    def code(index, world):
        return np.where(world >= 0, index - sws[np.maximum(world, 0)], local_max + np.searchsorted(glob, index))

    lo_code, hi_code = code(lo[mine], wl[mine]), code(hi[mine], wh[mine])
    keys = unique_rows(np.stack([world[mine], lo_code, hi_code], 1))[0]  # sorted by world, deduplicated
    start = np.searchsorted(keys[:, 0], np.arange(worlds + 1), side="left")
    by_filters = find_templates([keys[:, 1:]], start).block_template
    group = unique_rows(np.stack([by_shapes, by_filters], 1))[1]
    return np.asarray(group, np.int64).reshape(-1)


@dataclass
class PairLayout:
    """Candidate pairs of every world (host): each template's pair tables (world-locally encoded, as
    :class:`.pairs.PairTopology` stores them) and each world's template and ranges. Pairs are laid out world
    by world, a world's pairs in its template's order, each pair owning consecutive contact slots. Per-pair
    arrays over every world are built on request (:meth:`expand`): the solver's build reads templates."""

    templates: Templates  # template of each world, first world of each template
    template_pair_start: np.ndarray  # (templates + 1,) int64 first template pair of each template
    template_slot_start: np.ndarray  # (templates + 1,) int64 first template slot of each template
    shape: np.ndarray  # (template pairs, 2) int64 shapes A, B, type A <= type B (encoded: .pairs)
    body: np.ndarray  # (template pairs, 2) int64 their bodies (encoded; -1: static)
    moving: np.ndarray  # (template pairs, 2) bool whether each body moves
    slots: np.ndarray  # (template pairs,) int64 contact slots of each pair (its most contacts)
    first_slot: np.ndarray  # (template pairs,) int64 first slot of each pair, counted from its world's first
    condim: np.ndarray  # (template pairs,) int64 contact dimensionality
    radius: np.ndarray  # (template pairs,) float32 sum of the two bounding radii [m]
    slot_pair: np.ndarray  # (template slots,) int64 pair of each slot, counted from its world's first
    # Bundles: the pairs of one template with the same two bodies and bundle class (narrow phase, plane or
    # not), which the narrow phase bound-tests together (:func:`.primitive.world_pair_kernel`).
    template_bundle_start: np.ndarray  # (templates + 1,) int64 first bundle of each template
    bundle_start: np.ndarray  # (bundles + 1,) int64 first entry of each bundle in bundle_pairs
    bundle_pairs: np.ndarray  # (template pairs,) int64 the pairs of each bundle, counted from their world's first
    bundle_body: np.ndarray  # (bundles, 2) int64 the bundle's two bodies (encoded; -1: static)
    bundle_class: np.ndarray  # (bundles,) int64 its pairs' class (pair_table's last column)
    # (bundles, 2) int64 [first, end) of the bundles of its template with its body A (itself where A is static):
    # they are consecutive, as bundles sort by template, then body A
    bundle_run: np.ndarray
    block_pair_start: np.ndarray  # (blocks + 1,) int64 first pair of each world (one block without worlds)
    block_slot_start: np.ndarray  # (blocks + 1,) int64 first contact slot of each world
    block_bundle_start: np.ndarray  # (blocks + 1,) int64 first bundle of each world
    block_shape_offset: np.ndarray  # (blocks,) int64 first shape of each world
    block_body_offset: np.ndarray  # (blocks,) int64 first body of each world
    skipped: int  # pairs of unsupported type combinations, over every world

    @property
    def pair_count(self) -> int:
        return int(self.block_pair_start[-1])

    @property
    def slot_count(self) -> int:
        return int(self.block_slot_start[-1])

    def world_count(self, template: np.ndarray) -> np.ndarray:
        """How many worlds each template in ``template`` serves."""
        return np.bincount(self.templates.block_template, minlength=len(self.template_pair_start) - 1)[template]

    def template_pair(self) -> np.ndarray:
        """(pairs,) int64 template pair of every pair."""
        counts = np.diff(self.block_pair_start)
        first = self.template_pair_start[self.templates.block_template]
        return np.arange(self.pair_count, dtype=np.int64) + np.repeat(first - self.block_pair_start[:-1], counts)

    def pair_world(self) -> np.ndarray:
        """(pairs,) int64 world of every pair."""
        return np.repeat(np.arange(len(self.block_pair_start) - 1, dtype=np.int64), np.diff(self.block_pair_start))

    def expand(self, values: np.ndarray) -> np.ndarray:
        """Template-pair ``values`` (template pairs, ...) for every pair, world by world."""
        return values[self.template_pair()]

    def decoded(self, codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Model indices of the template-pair ``codes`` (template pairs, 2) for every pair, each world's
        decoded with its ``offsets`` entry (block_shape_offset or block_body_offset)."""
        return decode(self.expand(codes), offsets[self.pair_world()][:, None])


def _bundle_runs(template: np.ndarray, body_a: np.ndarray) -> np.ndarray:
    """(bundles, 2) [first, end) of each bundle's run of consecutive bundles with its template and body A;
    a bundle whose body A is static (below 0) is a run of its own. ``template`` and ``body_a``: per bundle, in
    bundle order (sorted by template, then body A)."""
    n = len(template)
    if n == 0:
        return np.zeros((0, 2), np.int64)
    new = np.ones(n, bool)
    new[1:] = (template[1:] != template[:-1]) | (body_a[1:] != body_a[:-1]) | (body_a[1:] < 0)
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, n))
    return np.stack([np.repeat(starts, lengths), np.repeat(starts + lengths, lengths)], axis=1).astype(np.int64)


def _layout(templates, tables, skipped, block_pair_start, shape_offset, body_offset) -> PairLayout:
    """A :class:`PairLayout` from each template's table (columns: shapes, bodies, moving, slots, condim,
    radius bits, class) and each world's template."""
    table = np.concatenate(tables).astype(np.int64) if tables else np.zeros((0, 10), np.int64)
    tcount = np.array([len(t) for t in tables], np.int64)
    template_pair_start = np.concatenate([[0], np.cumsum(tcount)]).astype(np.int64)
    slots = table[:, 6]
    template_of_pair = np.repeat(np.arange(len(tables)), tcount)
    tslots = np.bincount(template_of_pair, weights=slots, minlength=len(tables)).astype(np.int64)
    template_slot_start = np.concatenate([[0], np.cumsum(tslots)]).astype(np.int64)
    ends = np.cumsum(slots)
    first_slot = ends - slots - template_slot_start[template_of_pair]
    bt = templates.block_template
    # bundles: each template's pairs grouped by (body A, body B, class), each bundle's pairs in pair order
    order, starts = group_rows(np.column_stack([template_of_pair, table[:, 2:4], table[:, 9]]))
    first = order[starts[:-1]]
    bundles = np.bincount(template_of_pair[first], minlength=len(tables)).astype(np.int64)
    template_bundle_start = np.concatenate([[0], np.cumsum(bundles)]).astype(np.int64)
    bundle_run = _bundle_runs(template_of_pair[first], table[first, 2])
    return PairLayout(
        templates=templates,
        template_pair_start=template_pair_start,
        template_slot_start=template_slot_start,
        shape=table[:, 0:2],
        body=table[:, 2:4],
        moving=table[:, 4:6].astype(bool),
        slots=slots,
        first_slot=first_slot,
        condim=table[:, 7],
        radius=table[:, 8].astype(np.int32).view(np.float32),
        slot_pair=np.repeat(np.arange(len(table)) - template_pair_start[template_of_pair], slots),
        template_bundle_start=template_bundle_start,
        bundle_start=starts.astype(np.int64),
        bundle_pairs=order - template_pair_start[template_of_pair[order]],
        bundle_body=table[first, 2:4],
        bundle_class=table[first, 9],
        bundle_run=bundle_run,
        block_pair_start=block_pair_start,
        block_slot_start=np.concatenate([[0], np.cumsum(tslots[bt])]).astype(np.int64),
        block_bundle_start=np.concatenate([[0], np.cumsum(bundles[bt])]).astype(np.int64),
        block_shape_offset=shape_offset,
        block_body_offset=body_offset,
        skipped=skipped,
    )


def lay_out_pairs(model, sh: ShapeColumns, counts_table: np.ndarray, signature: np.ndarray, pair_table) -> PairLayout:
    """Candidate pairs of every world, enumerated once per group of equal worlds (module docstring).
    ``signature``: (shape_count, columns) int32 per-shape columns the pairs depend on besides ``sh``'s
    bodies and articulations (type, size, ...); ``pair_table(a, b)``: (pairs, 4) int32 slot count, condim,
    bounding radius (float32 bits) and bundle class of each pair. Groups whose tables are equal merge into
    one template."""

    def table(a, b, shape_code, body_code):
        moving = np.stack([sh.dynamic[a], sh.dynamic[b]], 1)
        return np.column_stack([shape_code, body_code, moving, pair_table(a, b)]).astype(np.int32)

    if model.world_count == 0:  # one block: every pair of shapes, indices as they are
        a, b, skipped = world_pairs(
            np.arange(model.shape_count, dtype=np.int64), np.zeros(0, np.int64), sh, counts_table
        )
        shape = np.stack([a, b], 1)
        one = Templates(np.zeros(1, np.int64), np.zeros(1, np.int64))
        start = np.array([0, len(a)], np.int64)
        zero = np.zeros(1, np.int64)
        return _layout(one, [table(a, b, shape, sh.body[shape])], skipped, start, zero, zero)
    worlds = model.world_count
    sws = model.shape_world_start.numpy().astype(np.int64)
    bws = model.body_world_start.numpy().astype(np.int64)
    aws = model.articulation_world_start.numpy().astype(np.int64)
    sworld = model.shape_world.numpy().astype(np.int64)
    bworld = np.append(model.body_world.numpy().astype(np.int64), -1)
    aworld = np.append(model.articulation_world.numpy().astype(np.int64), -1)
    glob = np.concatenate([np.arange(0, sws[0]), np.arange(sws[-2], sws[-1])]).astype(np.int64)
    # World-local columns: the signature, then bodies, moving, articulations and their self-collision.
    local = np.column_stack(
        [
            signature,
            encode(sh.body, bworld[sh.body], bws),
            sh.dynamic,
            encode(sh.art, aworld[sh.art], aws),
            sh.self_collide[np.maximum(sh.art, 0)] | (sh.art < 0),
        ]
    ).astype(np.int32)
    group = _signature_groups(model, sh, local)
    first_world = np.unique(group, return_index=True)[1]  # the first world of each group, by group
    # Each group's pairs, enumerated in its first world, its tables world-locally encoded.
    tables, skipped = [], 0
    sizes = np.bincount(group, minlength=len(first_world))
    for g, w in enumerate(first_world):
        a, b, skip = world_pairs(np.arange(sws[w], sws[w + 1], dtype=np.int64), glob, sh, counts_table)
        skipped += skip * int(sizes[g])
        shapes = np.stack([a, b], 1)
        bodies = sh.body[shapes]
        tables.append(table(a, b, encode(shapes, sworld[shapes], sws), encode(bodies, bworld[bodies], bws)))
    # Groups with equal tables share one template; templates are numbered by their first world.
    counts = np.array([len(t) for t in tables], np.int64)
    merged = find_templates([np.concatenate(tables)], np.concatenate([[0], np.cumsum(counts)]))
    template_group = merged.template_block[np.argsort(first_world[merged.template_block], kind="stable")]
    rank = np.empty(len(first_world), np.int64)
    rank[template_group] = np.arange(len(template_group))
    block_template = rank[merged.template_block[merged.block_template]][group]
    templates = Templates(block_template, first_world[template_group].astype(np.int64))
    block_pair_start = np.concatenate([[0], np.cumsum(counts[template_group][block_template])]).astype(np.int64)
    tables = [tables[g] for g in template_group]
    return _layout(templates, tables, skipped, block_pair_start, sws[:worlds], bws[:worlds])
