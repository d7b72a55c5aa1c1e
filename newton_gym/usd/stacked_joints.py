"""Stacked joints: several joints between the same two bodies become a chain through massless links.

MuJoCo gives a body several joints that compose in the order written, each about its own axis and
anchor in the body frame; MuJoCo's USD converter (and newton's ``humanoid_mjc.usda``) writes them as
UsdPhysics joints that all join the same (body0, body1) pair, which a kinematic tree cannot hold as
they are. Joints ``j1 .. jn`` (stage order, not excluded from articulation) between bodies P and C
become ``P -j1-> L1 -j2-> ... L(n-1) -jn-> C``: each link ``Lk`` is massless, has no colliders, is
keyed ``<jk path>:link`` and starts at C's pose, so every joint keeps the world frames it was authored
with and the chain moves C exactly as MuJoCo's composition does. A chain rather than one D6 joint
because each joint keeps its own anchor, its own DOF order and its own drive, limit and actuator
attributes (a D6 joint has one anchor and a fixed axis order).

Only revolute, prismatic and spherical joints stack (MuJoCo's hinge, slide and ball): a fixed, distance
or generic (D6) joint beside another between the same bodies is left to the topology, which reports
the loop it closes (a weld next to a hinge has no composition to import).

A joint authored from C to P is flipped (same coordinate, see :meth:`~.plans.JointPlan.flip`). When
any joint of the stack disables collisions between its bodies (``physics:collisionEnabled`` false, the
default), C's shapes are filtered against P's, as they were adjacent before.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..sim.hostmath import transform_identity, transform_inverse, transform_mul
from ..sim.types import JointType
from .plans import BodyPlan

__all__ = ["stack_joints"]


_STACKABLE = (JointType.REVOLUTE, JointType.PRISMATIC, JointType.BALL)


def _groups(joints: list) -> list:
    """Tree joints grouped by unordered body pair (world = None): the groups of two or more, all of
    stackable types, each in stage order."""
    by_pair = defaultdict(list)
    for j in joints:
        if not j.excluded:
            by_pair[frozenset((j.parent, j.child))].append(j)
    return [
        sorted(g, key=lambda j: j.order)
        for g in by_pair.values()
        if len(g) > 1 and all(j.type in _STACKABLE for j in g)
    ]


def _chain(stack: list, bodies: dict) -> tuple:
    """Re-attach the joints of one stack as a chain; returns (child body, the new links' BodyPlans)."""
    first = stack[0]
    parent, child = first.parent, first.child
    for j in stack[1:]:
        if j.parent != parent:
            j.flip()
    x_parent = transform_identity() if parent is None else bodies[parent].pose
    x_child = bodies[child].pose
    to_child = transform_mul(transform_inverse(x_child), x_parent)  # parent frame -> child frame, as authored
    links, previous = [], parent
    for k, j in enumerate(stack):
        if k > 0:
            j.parent_xform = transform_mul(to_child, j.parent_xform)
        j.parent = previous
        if k < len(stack) - 1:
            link = BodyPlan(path=f"{j.path}:link", pose=np.array(x_child, dtype=np.float64))
            links.append(link)
            j.child = link.path
            previous = link.path
    if parent is not None and any(j.filter_parent for j in stack):
        bodies[child].filtered = tuple(bodies[child].filtered) + (parent,)
    return child, links


def stack_joints(bodies: dict, joints: list) -> list:
    """Turn every stack of joints between one body pair into a chain, in place.

    The new links enter ``bodies`` just before the stack's child body (stage order is the topology's
    tie-break, as it is for MuJoCo's converter output).

    Returns:
        Keys of the links added (they are not prims: the importer reports them apart).
    """
    added = {}
    for stack in _groups(joints):
        child, links = _chain(stack, bodies)
        added.setdefault(child, []).extend(links)
    if not added:
        return []
    items = list(bodies.items())
    bodies.clear()
    for path, plan in items:
        for link in added.get(path, []):
            bodies[link.path] = link
        bodies[path] = plan
    return [link.path for links in added.values() for link in links]
