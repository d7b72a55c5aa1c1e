"""MuJoCo's polygons of a convex hull (``mjCMesh::MakePolygons``), which the convex narrow phase collides
with: every triangle of the triangulated hull gets a key, its unit normal's azimuth and polar angle each
divided by 0.01 rad and rounded (half away from zero; 0 and the rounded pi / 0.01 polar angle for normals
within 1e-7 of +-z); triangles of one key form one polygon, built as MuJoCo's MeshPolygon (a triangle
sharing an edge, reversed, with the polygon removes that edge and adds its others; triangles not yet
connected start islands, merged when a triangle joins them); each island's boundary loop, followed from its
first edge, is one polygon (counter-clockwise seen from outside), with Newell's normal. :mod:`.hull` calls
:func:`mujoco_polygons` for every hull."""

from __future__ import annotations

import math

import numpy as np

from ...sim.grouping import unique_rows

__all__ = ["mujoco_polygons"]

# MuJoCo's polygon merging: the angle step [rad] its normal keys round to, and mjMINVAL, below which a
# triangle's doubled area (or a polygon's cross product sum) is degenerate.
_ANGLE_TOL = 0.01
_MINVAL = 1e-15


def mujoco_polygons(p, tris):
    """MuJoCo's polygons of a triangulated hull (triangles ``tris`` (k, 3) of indices into ``p``,
    counter-clockwise seen from outside, in qhull's order), as its mesh compiler merges them
    (``mjCMesh::MakePolygons``, see the module docstring), keyed by the triangles' normals: (hull vertices
    (input indices, ascending), polygon corners (positions in those vertices, counter-clockwise seen from
    outside, one polygon after another), each polygon's first corner (polygons + 1,), their unit normals).
    A key held by one triangle (most, on curved surfaces) is that triangle, computed for all at once; the
    keys of several triangles merge as MuJoCo's MeshPolygon does (:func:`_insert_triangle`, :func:`_paths`)."""
    tris = np.asarray(tris, np.int64).reshape(-1, 3)
    keys, valid = _polygon_keys(p, tris)
    live = np.nonzero(valid)[0]
    _, group = unique_rows(keys[live])
    # groups in the order their keys first appear (MuJoCo's insertion order here)
    first = np.full(int(group.max(initial=-1)) + 1, len(live), np.int64)
    np.minimum.at(first, group, np.arange(len(live)))
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    group = rank[group]
    size = np.bincount(group, minlength=len(first))
    loops, loop_group = [], []  # the corner lists of merged groups' loops, and their group
    lone = size[group] == 1
    merged = np.nonzero(~lone)[0]
    if len(merged):
        order = merged[np.argsort(group[merged], kind="stable")]  # each group's triangles in qhull's order
        bounds = np.concatenate([[0], np.cumsum(np.bincount(group[order], minlength=len(first))[size > 1])])
        for g, (k0, k1) in zip(np.nonzero(size > 1)[0], zip(bounds[:-1], bounds[1:])):
            t = tris[live[order[k0]]].tolist()
            poly = [[(t[0], t[1]), (t[1], t[2]), (t[2], t[0])], [0, 0, 0], 1]
            for i in order[k0 + 1 : k1]:
                _insert_triangle(poly, *tris[live[i]].tolist())
            for path in _paths(*poly):
                if len(path) >= 3:
                    loops.append((path, _make_normal(p[path].tolist(), range(len(path)))))
                    loop_group.append(g)
    # every polygon in group order: a lone triangle as it is, a merged group's loops in their order
    lone_tris = tris[live[lone]]
    owner = np.concatenate([group[lone], np.asarray(loop_group, np.int64)])
    sort = np.argsort(owner, kind="stable")
    at = np.empty(len(sort), np.int64)
    at[sort] = np.arange(len(sort))  # each polygon's place
    lengths = np.concatenate([np.full(len(lone_tris), 3, np.int64), [len(path) for path, _ in loops]])
    start = np.concatenate([[0], np.cumsum(lengths[sort])]).astype(np.int64)
    corners = np.empty(int(start[-1]), np.int64)
    corners[start[at[: len(lone_tris)]][:, None] + np.arange(3)] = lone_tris
    for k, (path, _) in enumerate(loops):
        s0 = start[at[len(lone_tris) + k]]
        corners[s0 : s0 + len(path)] = path
    normals = np.concatenate([_triangle_normals(p, lone_tris), np.asarray([n for _, n in loops]).reshape(-1, 3)])
    verts = np.unique(tris)
    return verts.astype(np.int64), np.searchsorted(verts, corners).astype(np.int64), start, normals[sort]


def _polygon_keys(p, tris):
    """(keys (k, 2) float64, valid (k,) bool): :func:`_polygon_key` of every triangle, computed for all at
    once with the same float64 operations; keys within 1e-9 of a rounding boundary (where NumPy's arctan2 /
    arccos could round otherwise than C's) are recomputed one by one with C's (math's)."""
    a, b, c = (p[tris[:, k]] for k in range(3))
    e1, e2 = b - a, c - a
    n = np.stack(
        [
            e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1],
            e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
            e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0],
        ],
        axis=1,
    )
    norm = np.sqrt(n[:, 0] * n[:, 0] + n[:, 1] * n[:, 1] + n[:, 2] * n[:, 2])
    valid = norm >= _MINVAL
    u = n / np.where(valid, norm, 1.0)[:, None] + 0.0
    raw = np.stack([np.arctan2(u[:, 1], u[:, 0]) / _ANGLE_TOL, np.arccos(np.clip(u[:, 2], -1.0, 1.0)) / _ANGLE_TOL], 1)
    keys = np.copysign(np.floor(np.abs(raw) + 0.5), raw)
    pole = np.abs(u[:, 2]) > 1.0 - 1e-7
    keys[pole, 0] = 0.0
    keys[pole, 1] = np.where(u[pole, 2] < 0, _round(math.pi / _ANGLE_TOL), 0.0)
    near = valid & ~pole & (np.abs(np.abs(raw) % 1.0 - 0.5) < 1e-9).any(axis=1)
    pts = p.tolist()
    for i in np.nonzero(near)[0].tolist():
        keys[i] = _polygon_key(*(pts[v] for v in tris[i].tolist()))
    return keys, valid


def _triangle_normals(p, tris):
    """:func:`_make_normal` (Newell's) of each triangle of ``tris`` (k, 3), with its operations in order."""
    corners = [p[tris[:, k]] for k in range(3)]
    n = np.zeros((len(tris), 3))
    for k in range(3):
        a, b = corners[k], corners[(k + 1) % 3]
        n = n + np.stack(
            [
                a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
                a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
            ],
            axis=1,
        )
    norm = np.sqrt(n[:, 0] * n[:, 0] + n[:, 1] * n[:, 1] + n[:, 2] * n[:, 2])
    return np.where((norm >= _MINVAL)[:, None], n / np.where(norm >= _MINVAL, norm, 1.0)[:, None], 0.0)


def _polygon_key(a, b, c):
    """MuJoCo's polygon key of triangle abc: its unit normal's azimuth and polar angle, each divided by
    ``_ANGLE_TOL`` and rounded half away from zero (0 and the rounded pi/_ANGLE_TOL for normals within
    1e-7 of +z and -z); None for a degenerate triangle. Computed in float64 with MuJoCo's operations."""
    e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    n = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
    norm = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    if norm < _MINVAL:
        return None
    n = (n[0] / norm + 0.0, n[1] / norm + 0.0, n[2] / norm + 0.0)
    if abs(n[2]) > 1.0 - 1e-7:
        return (0.0, _round(math.pi / _ANGLE_TOL) if n[2] < 0 else 0.0)
    return (_round(math.atan2(n[1], n[0]) / _ANGLE_TOL), _round(math.acos(n[2]) / _ANGLE_TOL))


def _round(x):
    """C's round: half away from zero."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _insert_triangle(poly, v1, v2, v3):
    """Add triangle (v1, v2, v3) to a polygon [edges, islands, island count] as MuJoCo's
    ``MeshPolygon::InsertFace``: each of its edges whose reverse the polygon has removes that edge (the
    first such) and joins its island, the others are appended; islands it bridges are merged."""
    edges, islands = poly[0], poly[1]
    island = -1
    add = []
    for a, b in ((v1, v2), (v2, v3), (v3, v1)):
        try:
            at = edges.index((b, a))  # the first such edge
        except ValueError:
            add.append((a, b))
            continue
        other = islands[at]
        if island == -1:
            island = other
        elif other != island:
            poly[2] -= 1
            keep, drop = min(island, other), max(island, other)
            island = keep
            for k, i in enumerate(islands):
                if i == drop:
                    islands[k] = keep
                elif i > drop:
                    islands[k] = i - 1
        del edges[at]
        del islands[at]
    if island == -1:
        island = poly[2]
        poly[2] += 1
    for e in add:
        edges.append(e)
        islands.append(island)


def _paths(edges, islands, count):
    """The boundary loops of a polygon, one per island, as MuJoCo's ``MeshPolygon::Paths``: from the
    first edge of the island, following each vertex to the first later edge (by list position, the
    list's first edge excluded) leaving it."""
    if len(edges) == 3:
        return [[edges[0][0], edges[1][0], edges[2][0]]]
    paths = []
    firsts, leaving = (
        {},
        {},
    )  # each island's first edge; each island's first edge leaving a vertex (list's first excluded)
    for pos, (e, k) in enumerate(zip(edges, islands)):
        firsts.setdefault(k, e)
        if pos:
            leaving.setdefault((k, e[0]), e)
    for i in range(count):
        first = firsts.get(i)
        if first is None:
            continue
        path = [first[0], first[1]]
        nxt = path[-1]
        for _ in range(len(edges)):
            step = leaving.get((i, nxt))
            if step is None:
                continue
            nxt = step[1]
            if nxt == path[0]:
                paths.append(path)
                break
            path.append(nxt)
    return paths


def _make_normal(pts, path):
    """A polygon's unit normal as MuJoCo's compiler computes it (Newell's: the sum of the cross products
    of consecutive corners, normalized); (0, 0, 0) for a degenerate polygon."""
    n = [0.0, 0.0, 0.0]
    for k in range(len(path)):
        a, b = pts[path[k]], pts[path[(k + 1) % len(path)]]
        n[0] += a[1] * b[2] - a[2] * b[1]
        n[1] += a[2] * b[0] - a[0] * b[2]
        n[2] += a[0] * b[1] - a[1] * b[0]
    norm = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    return (n[0] / norm, n[1] / norm, n[2] / norm) if norm >= _MINVAL else (0.0, 0.0, 0.0)
