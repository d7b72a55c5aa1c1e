"""Collision filtering: UsdPhysics collision groups and filtered pairs, and MuJoCo contype/conaffinity.

The builder filters with shape pairs (and per-articulation self-collision), so every rule becomes
pairs among the imported shapes:

* CollisionGroup: members of a group never touch members of its ``filteredGroups`` (with
  ``invertFilteredGroups``: touch only those); groups sharing a ``mergeGroupName`` act as one.
* FilteredPairsAPI on a body, collider or articulation: no contact between their colliders.
* MuJoCo: two geoms touch iff ``contype1 & conaffinity2 or contype2 & conaffinity1``. contype =
  conaffinity = 0 already disabled the shape's collisions (stage_shapes). When no two shapes of an
  articulation may touch, its self-collision flag is turned off instead of listing pairs. Shapes
  outside this import (e.g. a ground plane added by code) cannot be filtered this way: they collide
  with every imported shape whose collisions are enabled.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

__all__ = ["apply_collision_filters"]


def _mjc_compatible(a, b) -> bool:
    return bool((a[0] & b[1]) or (b[0] & a[1]))


def _mjc_class(plan):
    ct = 1 if plan.contype is None else int(plan.contype)
    ca = 1 if plan.conaffinity is None else int(plan.conaffinity)
    return ct, ca


def _mjc_pairs(ctx, out) -> set:
    """Shape pairs MuJoCo's bitmasks exclude; disables self-collision of articulations fully excluded."""
    shapes = [i for i, p in out.shape_plans.items() if p.cfg.collide]
    classes = {i: _mjc_class(out.shape_plans[i]) for i in shapes}
    if len(set(classes.values())) == 1 and _mjc_compatible(*[next(iter(classes.values()))] * 2):
        return set()
    body = {i: out.shape_plans[i].body for i in shapes}
    pairs = set()
    for a, b in combinations(shapes, 2):
        if body[a] == body[b] or (body[a] is None and body[b] is None):
            continue
        if not _mjc_compatible(classes[a], classes[b]):
            pairs.add((min(a, b), max(a, b)))
    for k, comp_shapes in enumerate(out.component_shapes):
        mine = [i for i in comp_shapes if i in classes]
        intra = {(min(a, b), max(a, b)) for a, b in combinations(mine, 2) if body[a] != body[b]}
        if intra and intra <= pairs:
            ctx.builder.tables["articulation"].set("self_collision", out.component_articulation[k], False)
            pairs -= intra
    return pairs


def _group_pairs(ctx, parsed, out) -> set:
    members = defaultdict(set)
    for index, plan in out.shape_plans.items():
        for g in plan.groups:
            members[g].add(index)
    merged = {}
    for path, desc in parsed.groups:
        name = str(desc.mergeGroupName) or path
        merged[path] = name
        if name != path:
            members[name] |= members[path]
    everyone = set(out.shape_plans)
    pairs = set()
    for path, desc in parsed.groups:
        mine = members[merged[path]]
        others = (
            set().union(*[members[merged.get(str(f), str(f))] for f in desc.filteredGroups])
            if desc.filteredGroups
            else set()
        )
        if desc.invertFilteredGroups:
            others = everyone - others
        pairs |= {(min(a, b), max(a, b)) for a in mine for b in others if a != b}
    return pairs


def _owner_shapes(out, bodies, comps_by_art):
    def shapes_of(path):
        if path in out.shape:
            return {out.shape[path]}
        if path in bodies:
            return {out.shape[s.path] for s in bodies[path].shapes if s.path in out.shape}
        return set().union(*comps_by_art.get(path, [set()]))

    return shapes_of


def _filtered_pairs(ctx, parsed, out, bodies) -> set:
    comps_by_art = defaultdict(list)
    for prim, shapes in zip(out.component_prims, out.component_shapes):
        if prim is not None:
            comps_by_art[prim].append(set(shapes))
    shapes_of = _owner_shapes(out, bodies, comps_by_art)
    owners = [(p.path, p.filtered) for p in out.shape_plans.values() if p.filtered]
    owners += [(b.path, b.filtered) for b in bodies.values() if b.filtered]
    owners += [
        (path, [str(f) for f in desc.filteredCollisions])
        for path, desc in parsed.articulations
        if desc.filteredCollisions
    ]
    pairs = set()
    for owner, targets in owners:
        mine = shapes_of(owner)
        for t in targets:
            pairs |= {(min(a, b), max(a, b)) for a in mine for b in shapes_of(t) if a != b}
    return pairs


def apply_collision_filters(ctx, parsed, out, bodies) -> int:
    """Add the filter pairs of every rule to the builder; returns how many were added."""
    pairs = _mjc_pairs(ctx, out) | _group_pairs(ctx, parsed, out) | _filtered_pairs(ctx, parsed, out, bodies)
    for a, b in sorted(pairs):
        ctx.builder.add_shape_collision_filter_pair(a, b)
    return len(pairs)
