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
        max_art_dofs: largest DOF count of one articulation.
        dof_parent: (joint_dof_count,) previous DOF on the path to the root, -1 at the root.
        dof_art: (joint_dof_count,) articulation of each DOF.
        dof_coord: (joint_dof_count,) coordinate of a scalar DOF (revolute, prismatic, D6), else -1.
        dof_body: (joint_dof_count,) child body of the joint of each DOF.
        body_dof_last: (body_count,) last DOF moving the body (-1: static).
        body_art: (body_count,) articulation of a body (-1: none).
        world_count: number of worlds the constraint solve runs (max(1, model.world_count)).
    """

    art_dof_start: np.ndarray
    art_mat_start: np.ndarray
    art_coord_start: np.ndarray
    all_art_range: np.ndarray
    art_world: np.ndarray
    max_art_dofs: int
    dof_parent: np.ndarray
    dof_art: np.ndarray
    dof_coord: np.ndarray
    dof_body: np.ndarray
    body_dof_last: np.ndarray
    body_art: np.ndarray
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
            "dof_parent",
            "dof_art",
            "dof_coord",
            "dof_body",
            "body_dof_last",
            "body_art",
        ):
            out[name] = wp.array(
                np.ascontiguousarray(getattr(self, name), dtype=np.int32), dtype=wp.int32, device=device
            )
        return out


def build_tree_layout(model) -> TreeLayout:
    """Derive the DOF tree and per-articulation blocks from the model's joint tables."""
    art_start = model.articulation_start.numpy()
    jtype = model.joint_type.numpy()
    parent = model.joint_parent.numpy()
    child = model.joint_child.numpy()
    q_start = model.joint_q_start.numpy()
    qd_start = model.joint_qd_start.numpy()
    art_world = model.articulation_world.numpy() if model.articulation_count else np.zeros(0, np.int32)
    nj, nd, nb = model.joint_count, model.joint_dof_count, model.body_count
    j_dof_end = np.append(qd_start[1:], nd) if nj else np.zeros(0, np.int64)
    art_count = model.articulation_count
    art_dof_start = np.zeros(art_count + 1, np.int64)
    for a in range(art_count):
        art_dof_start[a] = qd_start[art_start[a]] if art_start[a] < nj else nd
    art_dof_start[art_count] = nd if art_count == 0 else j_dof_end[art_start[art_count] - 1]
    sizes = np.diff(art_dof_start)
    art_mat_start = np.concatenate([[0], np.cumsum(sizes * sizes)])
    art_coord_start = np.zeros(art_count + 1, np.int64)
    for a in range(art_count):
        art_coord_start[a] = q_start[art_start[a]] if art_start[a] < nj else model.joint_coord_count
    art_coord_start[art_count] = (
        model.joint_coord_count
        if art_count == 0
        else (q_start[art_start[art_count]] if art_start[art_count] < nj else model.joint_coord_count)
    )
    dof_parent = np.full(nd, -1, np.int64)
    dof_art = np.full(nd, -1, np.int64)
    dof_coord = np.full(nd, -1, np.int64)
    dof_body = np.full(nd, -1, np.int64)
    body_dof_last = np.full(nb, -1, np.int64)
    body_art = np.full(nb, -1, np.int64)
    for a in range(art_count):
        for j in range(art_start[a], art_start[a + 1]):
            d0, d1 = int(qd_start[j]), int(j_dof_end[j])
            p, c = int(parent[j]), int(child[j])
            up = body_dof_last[p] if p >= 0 else -1
            for d in range(d0, d1):
                dof_parent[d] = up if d == d0 else d - 1
                dof_art[d] = a
                dof_body[d] = c
                if jtype[j] in (JointType.REVOLUTE, JointType.PRISMATIC, JointType.D6):
                    dof_coord[d] = q_start[j] + (d - d0)
            body_dof_last[c] = d1 - 1 if d1 > d0 else up
            body_art[c] = a
    art_world = world_of(art_world)
    world_count = max(1, model.world_count)
    return TreeLayout(
        art_dof_start,
        art_mat_start,
        art_coord_start,
        np.array([0, art_count]),
        art_world,
        int(sizes.max()) if art_count else 0,
        dof_parent,
        dof_art,
        dof_coord,
        dof_body,
        body_dof_last,
        body_art,
        world_count,
    )
