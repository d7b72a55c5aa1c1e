"""Host-side topology tables the solver derives once from a Model (worlds and trees are static).

Everything here runs at solver construction, on NumPy copies of the model's index arrays, and is
uploaded as Warp int arrays; nothing in this module runs during ``step``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..sim.types import JointType

__all__ = ["TreeLayout", "build_tree_layout", "world_of", "DeclaredFields"]


class DeclaredFields:
    """Base of the solver's dataclass tables: assigning a name the dataclass does not declare raises
    AttributeError, so every field is declared (with its shape, dtype and unit) in the class body."""

    def __setattr__(self, name, value):
        if name not in self.__dataclass_fields__:
            raise AttributeError(f"{type(self).__name__} declares no field {name!r}; add it to the class body")
        object.__setattr__(self, name, value)


def world_of(world: np.ndarray) -> np.ndarray:
    """World index (the unit one constraint-solve thread handles) of entities in ``world``: their world,
    or 0 for global (-1) entities. A model without worlds is one world."""
    return np.maximum(np.asarray(world, dtype=np.int64), 0)


@dataclass
class TreeLayout:
    """Per-articulation DOF blocks and the DOF tree (MuJoCo's dof_parentid), NumPy and Warp copies.

    Attributes:
        art_dof_start: (articulation_count + 1,) first DOF of each articulation (DOFs are contiguous).
        art_mat_start: (articulation_count + 1,) offset of each articulation's dense n x n block.
        art_coord_start: (articulation_count + 1,) first coordinate of each articulation.
        all_art_range: (2,) [0, articulation_count], the articulation range of a model without worlds.
        art_world: (articulation_count,) world of each articulation.
        art_free_body: (articulation_count,) the body an articulation's free root joint moves (-1: its root
            is not a free joint).
        max_art_dofs: largest DOF count of one articulation.
        dof_parent: (joint_dof_count,) previous DOF on the path to the root, -1 at the root.
        dof_art: (joint_dof_count,) articulation of each DOF.
        dof_coord: (joint_dof_count,) coordinate of a scalar DOF (revolute, prismatic, D6), else -1.
        dof_body: (joint_dof_count,) child body of the joint of each DOF.
        body_dof_last: (body_count,) last DOF moving the body (-1: static).
        body_art: (body_count,) articulation of a body (-1: none).
        body_child_start: (body_count + 1,) first entry of each body's child joints in ``body_child_joint``.
        body_child_joint: (child joints,) joints whose parent body is in their own articulation, by parent
            body, each body's in descending joint order (the order the leaves-to-root sums add them in).
        world_count: number of worlds the constraint solve runs (max(1, model.world_count)).
    """

    art_dof_start: np.ndarray
    art_mat_start: np.ndarray
    art_coord_start: np.ndarray
    all_art_range: np.ndarray
    art_world: np.ndarray
    art_free_body: np.ndarray
    max_art_dofs: int
    dof_parent: np.ndarray
    dof_art: np.ndarray
    dof_coord: np.ndarray
    dof_body: np.ndarray
    body_dof_last: np.ndarray
    body_art: np.ndarray
    body_child_start: np.ndarray
    body_child_joint: np.ndarray
    world_count: int

    def upload(self, device) -> dict:
        """Warp int32 copies of the arrays, keyed by field name."""
        out = {}
        for name in (
            "art_dof_start",
            "art_mat_start",
            "art_coord_start",
            "all_art_range",
            "art_world",
            "art_free_body",
            "dof_parent",
            "dof_art",
            "dof_coord",
            "dof_body",
            "body_dof_last",
            "body_art",
            "body_child_start",
            "body_child_joint",
        ):
            out[name] = wp.array(
                np.ascontiguousarray(getattr(self, name), dtype=np.int32), dtype=wp.int32, device=device
            )
        return out


def build_tree_layout(model) -> TreeLayout:
    """Derive the DOF tree and per-articulation blocks from the model's joint tables (array operations over
    every articulation joint at once; the result is that of walking the articulations' joints in order)."""
    art_start = model.articulation_start.numpy().astype(np.int64)
    jtype = model.joint_type.numpy()
    parent = model.joint_parent.numpy().astype(np.int64)
    child = model.joint_child.numpy().astype(np.int64)
    q_start = model.joint_q_start.numpy().astype(np.int64)
    qd_start = model.joint_qd_start.numpy().astype(np.int64)
    art_world = model.articulation_world.numpy() if model.articulation_count else np.zeros(0, np.int32)
    nj, nd, nb = model.joint_count, model.joint_dof_count, model.body_count
    nq = model.joint_coord_count
    j_dof_end = np.append(qd_start[1:], nd) if nj else np.zeros(0, np.int64)
    art_count = model.articulation_count
    first = art_start[:art_count]
    inside = first < nj
    safe = np.minimum(first, max(nj - 1, 0))
    art_dof_start = np.append(np.where(inside, qd_start[safe] if nj else 0, nd), 0)
    art_dof_start[art_count] = nd if art_count == 0 else j_dof_end[art_start[art_count] - 1]
    sizes = np.diff(art_dof_start)
    art_mat_start = np.concatenate([[0], np.cumsum(sizes * sizes)])
    last = art_start[art_count] if art_count else nj
    art_coord_start = np.append(np.where(inside, q_start[safe] if nj else 0, nq), 0)
    art_coord_start[art_count] = nq if art_count == 0 or last >= nj else q_start[last]
    dof_parent = np.full(nd, -1, np.int64)
    dof_art = np.full(nd, -1, np.int64)
    dof_coord = np.full(nd, -1, np.int64)
    dof_body = np.full(nd, -1, np.int64)
    body_dof_last = np.full(nb, -1, np.int64)
    body_art = np.full(nb, -1, np.int64)
    # The articulations' joints in walking order, and each one's articulation.
    lengths = np.diff(art_start)
    joints = (
        np.repeat(art_start[:-1], lengths) + np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    )
    if len(joints):
        arts = np.repeat(np.arange(art_count), lengths)
        d0, d1, p, c = qd_start[joints], j_dof_end[joints], parent[joints], child[joints]
        up, below = _dof_above(p, c, d0, d1)
        counts = d1 - d0
        dofs = np.repeat(d0, counts) + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        at_start = dofs == np.repeat(d0, counts)
        dof_parent[dofs] = np.where(at_start, np.repeat(up, counts), dofs - 1)
        dof_art[dofs] = np.repeat(arts, counts)
        dof_body[dofs] = np.repeat(c, counts)
        scalar = np.isin(jtype[joints], (JointType.REVOLUTE, JointType.PRISMATIC, JointType.D6))
        keep = np.repeat(scalar, counts)
        dof_coord[dofs[keep]] = (np.repeat(q_start[joints] - d0, counts) + dofs)[keep]
        writer = _last_writer(c)  # a body written twice keeps the later joint's values
        body_dof_last[c[writer]] = below[writer]
        body_art[c[writer]] = arts[writer]
    child_start, child_joint = _child_joints(joints, parent, body_art, arts if len(joints) else joints, nb)
    art_world = world_of(art_world)
    free_root = inside & (jtype[safe] == JointType.FREE) if nj else np.zeros(art_count, bool)
    art_free_body = np.where(free_root, child[safe] if nj else -1, -1)
    world_count = max(1, model.world_count)
    return TreeLayout(
        art_dof_start,
        art_mat_start,
        art_coord_start,
        np.array([0, art_count]),
        art_world,
        art_free_body,
        int(sizes.max()) if art_count else 0,
        dof_parent,
        dof_art,
        dof_coord,
        dof_body,
        body_dof_last,
        body_art,
        child_start,
        child_joint,
        world_count,
    )


def _child_joints(joints, parent, body_art, arts, nb):
    """(body_child_start, body_child_joint) of :class:`TreeLayout`: the joints of ``joints`` (articulation
    ``arts``) whose parent body belongs to the same articulation, grouped by parent, descending."""
    p = parent[joints] if len(joints) else np.zeros(0, np.int64)
    own = (p >= 0) & (body_art[np.maximum(p, 0)] == arts) if len(joints) else np.zeros(0, bool)
    k, p = joints[own], p[own]
    order = np.lexsort((-k, p))
    start = np.concatenate([[0], np.cumsum(np.bincount(p, minlength=nb))]) if nb else np.zeros(1, np.int64)
    return start.astype(np.int64), k[order].astype(np.int64)


def _last_writer(child: np.ndarray) -> np.ndarray:
    """Positions of the last occurrence of each distinct value of ``child``."""
    order = np.argsort(child, kind="stable")
    last = np.append(child[order][1:] != child[order][:-1], True)
    return order[last]


def _dof_above(parent, child, d0, d1):
    """For joints in walking order with parent / child bodies and DOFs [d0, d1): (up, below), where up is the
    last DOF moving the parent body when the joint is reached (the last DOF of the latest earlier joint whose
    child it is, through DOF-less joints; -1 at a root) and below = d1 - 1, or up for a joint without DOFs."""
    n = len(child)
    pos = np.arange(n)
    # The latest earlier joint whose child is this joint's parent body: the key (child, position) just below
    # (parent, position) in sorted order, when it has that child.
    key = np.sort(child * n + pos)
    k = np.searchsorted(key, parent * n + pos, side="left") - 1
    found = (parent >= 0) & (k >= 0) & (key[np.maximum(k, 0)] // n == parent)
    source = np.where(found, key[np.maximum(k, 0)] % n, -1)
    has = d1 > d0
    below = np.where(has, d1 - 1, -1)
    while True:  # DOF-less joints pass their parent's value on: one pass per level of such chains
        up = np.where(source >= 0, below[np.maximum(source, 0)], -1)
        nxt = np.where(has, d1 - 1, up)
        if np.array_equal(nxt, below):
            return up, below
        below = nxt
