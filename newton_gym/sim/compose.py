"""Copying one builder's entities into another: ``add_builder``, ``add_world`` and ``replicate``.

All copies are appended per column in one numpy operation, so replicating a robot into 4096 worlds
costs a few hundred array operations regardless of the world count.
"""

from __future__ import annotations

import numpy as np

from .hostmath import transform_mul
from .types import JointType

__all__ = ["append_copies", "grid_offsets"]

_POSE_COLUMNS = {("body", "q"), ("shape", "xform"), ("joint", "parent_xform"), ("site", "xform")}


def grid_offsets(count: int, spacing) -> np.ndarray:
    """World origins (count, 3) [m] on a grid over the non-zero axes of ``spacing``, centred on 0."""
    spacing = np.asarray(spacing, dtype=np.float64).reshape(3)
    axes = np.nonzero(spacing)[0]
    out = np.zeros((count, 3))
    if len(axes) == 0 or count == 0:
        return out
    side = int(np.ceil(count ** (1.0 / len(axes)) - 1e-9))
    idx = np.arange(count)
    for k, ax in enumerate(axes):
        coord = (idx // side**k) % side
        out[:, ax] = coord * spacing[ax]
    out -= 0.5 * (out.max(axis=0) + out.min(axis=0))
    return out


def _tile_pose(src, copy_xforms, root_mask):
    """Apply each copy's transform to the rows selected by root_mask; src (m, 7) -> (n, m, 7)."""
    n = len(copy_xforms)
    out = np.broadcast_to(src, (n,) + src.shape).copy()
    if root_mask.any():
        moved = transform_mul(copy_xforms[:, None, :], src[None, root_mask])
        out[:, root_mask] = moved
    return out


def _root_masks(src_tables):
    joint = src_tables["joint"]
    jt = joint.get("type")
    parent = joint.get("parent")
    free_root = np.nonzero(((jt == JointType.FREE) | (jt == JointType.DISTANCE)) & (parent < 0))[0]
    coord_mask = np.zeros(src_tables["coord"].count, dtype=bool)
    return (
        {
            ("body", "q"): np.ones(src_tables["body"].count, dtype=bool),
            ("shape", "xform"): src_tables["shape"].get("body") < 0,
            ("site", "xform"): src_tables["site"].get("body") < 0,
            ("joint", "parent_xform"): parent < 0,
        },
        joint.get("q_start")[free_root],
        coord_mask,
    )


def append_copies(dst_tables, src_tables, copy_xforms, copy_world_maps, source_offsets):
    """Append ``n`` copies of ``src_tables`` to ``dst_tables``.

    Args:
        copy_xforms: (n, 7) transform applied to each copy's world-anchored poses.
        copy_world_maps: (n, src_world_count + 1) int, the destination world of each source world
            index w (column w + 1; column 0 maps the source's global world -1).
        source_offsets: for each shared geometry list ("mesh", "heightfield"), the index of the source's
            first entry in the destination's list; every copy refers to the same entries.

    Returns:
        dict kind -> start index in the destination of the first copy's first row.
    """
    n = len(copy_xforms)
    src_counts = {k: t.count for k, t in src_tables.items()}
    starts = {k: dst_tables[k].count for k in dst_tables}
    masks, free_q_starts, _ = _root_masks(src_tables)
    for kind, src in src_tables.items():
        m = src.count
        if m == 0:
            continue
        blocks = {}
        for col in src.columns:
            data = src.get(col.name)
            if (kind, col.name) in _POSE_COLUMNS:
                tiled = _tile_pose(data, copy_xforms, masks[(kind, col.name)])
            elif col.remap == "world":
                tiled = copy_world_maps[:, data + 1]
            elif col.remap is not None:
                shared = col.remap in source_offsets
                step = 0 if shared else src_counts[col.remap]
                base = source_offsets[col.remap] if shared else starts[col.remap]
                offsets = base + step * np.arange(n)
                tiled = np.where(data[None] >= 0, data[None] + offsets.reshape((n,) + (1,) * data.ndim), data[None])
            else:
                tiled = np.broadcast_to(data, (n,) + data.shape)
            blocks[col.name] = tiled.reshape((n * m,) + col.shape)
        if kind == "coord" and len(free_q_starts):
            q = blocks["q"].reshape(n, m).copy()
            for qs in free_q_starts:
                q[:, qs : qs + 7] = transform_mul(copy_xforms, q[:, qs : qs + 7])
            blocks["q"] = q.reshape(-1)
        if kind == "particle":
            q = blocks["q"].reshape(n, m, 3)
            blocks["q"] = transform_mul(
                copy_xforms[:, None, :], np.concatenate([q, np.tile([0.0, 0, 0, 1], (n, m, 1))], axis=-1)
            )[..., :3].reshape(n * m, 3)
        dst_tables[kind].add_block(blocks, n * m, src.labels * n)
    return starts
