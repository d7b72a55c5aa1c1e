"""``collapse_fixed_joints``: merge bodies welded by fixed joints into their parent.

The child's colliders move into the parent's frame and its mass properties are combined with the
parent's (parallel-axis theorem); joints below the child re-attach to the parent. Fixed joints to the
world (the root joint) are kept.
"""

from __future__ import annotations

import numpy as np

from ..sim.hostmath import quat_to_matrix, transform_identity, transform_inverse, transform_mul
from ..sim.types import JointType

__all__ = ["collapse_fixed_joints"]


def _shift(mass, d) -> np.ndarray:
    """Parallel-axis term m (|d|^2 I - d d^T) [kg m^2]."""
    return mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))


def _merge_mass(parent, child, x_pc):
    """Add ``child``'s mass properties, its frame at ``x_pc`` in ``parent``'s frame, to ``parent``."""
    rot = quat_to_matrix(x_pc[3:])
    com_c = x_pc[:3] + rot @ child.com
    total = parent.mass + child.mass
    com = (parent.mass * parent.com + child.mass * com_c) / total if total > 0 else parent.com
    inertia = (
        parent.inertia
        + _shift(parent.mass, parent.com - com)
        + rot @ child.inertia @ rot.T
        + _shift(child.mass, com_c - com)
    )
    parent.mass, parent.com, parent.inertia = total, com, inertia


def _collapse_component(comp, bodies, alias, offset):
    kept = [comp.joints[0]]
    for j in comp.joints[1:]:
        survivor = alias.get(j.parent, j.parent)
        j.parent_xform = transform_mul(offset.get(j.parent, transform_identity()), j.parent_xform)
        j.parent = survivor
        if j.type != JointType.FIXED:
            kept.append(j)
            continue
        x_pc = transform_mul(j.parent_xform, transform_inverse(j.child_xform))
        child, target = bodies[j.child], bodies[survivor]
        _merge_mass(target, child, x_pc)
        for s in child.shapes:
            s.xform = transform_mul(x_pc, s.xform)
            s.body = survivor
        target.shapes.extend(child.shapes)
        target.merged.append(j.child)
        alias[j.child], offset[j.child] = survivor, x_pc
    comp.joints = kept
    comp.bodies = [b for b in comp.bodies if b not in alias]


def collapse_fixed_joints(components: list, bodies: dict) -> dict:
    """Merge every fixed-joint child into its parent, in place.

    Returns:
        {merged body path: surviving body path}.
    """
    alias, offset = {}, {}
    for comp in components:
        _collapse_component(comp, bodies, alias, offset)
    return alias
