"""Kinematic trees: which joints form each articulation, its root, and the order parents-first.

Bodies connected by joints form a component (one builder articulation). Its root is the body jointed
to the world, else the one body that is no joint's physics:body1, else the articulation's UsdPhysics
root body, else the first such body in stage order. Joints are traversed from the root ("dfs" or
"bfs", or None: stage order as far as parents-first allows) and flipped where physics:body1 is the
parent. A root without a joint to the world gets a free joint (a fixed one with ``floating=False``;
``floating=True`` also turns a fixed root joint into a free one). Joints marked
``physics:excludeFromArticulation`` close loops and are returned apart; any other loop is an error
naming the joint that closes it (several revolute, prismatic or spherical joints between one body
pair are no loop: :mod:`.stacked_joints` has already made them a chain).
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque

from ..sim.hostmath import transform_identity
from ..sim.types import JointType
from .plans import Component, JointPlan

__all__ = ["build_components"]


def _adjacency(tree):
    adj, world = defaultdict(list), defaultdict(list)
    for j in tree:
        if j.parent is None:
            world[j.child].append(j)
        else:
            adj[j.parent].append(j)
            adj[j.child].append(j)
    return adj, world


def _connected(body_order, adj) -> list:
    seen, comps = set(), []
    for b in body_order:
        if b in seen:
            continue
        seen.add(b)
        stack, comp = [b], []
        while stack:
            x = stack.pop()
            comp.append(x)
            for j in adj[x]:
                o = j.child if j.parent == x else j.parent
                if o not in seen:
                    seen.add(o)
                    stack.append(o)
        rank = {p: i for i, p in enumerate(body_order)}
        comps.append(sorted(comp, key=rank.__getitem__))
    return comps


def _loop_error(ctx, joint):
    ctx.fail(
        joint.path,
        "joint closes a kinematic loop (its bodies are already connected through other "
        "joints); mark it physics:excludeFromArticulation = true to import it as a loop closure",
    )


def _root(ctx, comp, world, art_roots, tree):
    world_joints = sorted((j for b in comp for j in world.get(b, [])), key=lambda j: j.order)
    if len(world_joints) > 1:
        _loop_error(ctx, world_joints[1])
    if world_joints:
        return world_joints[0].child, world_joints[0]
    children = {j.child for j in tree if j.parent is not None}
    sources = [b for b in comp if b not in children]
    if len(sources) == 1:  # the tree as authored, body0 -> body1 (MJCF converters write it this way)
        return sources[0], None
    members = set(comp)
    for r in art_roots:
        if r in members:
            return r, None
    return (sources or comp)[0], None


def _traverse(ctx, root, adj, mode):
    """Bodies and joints reachable from ``root``, parents first, joints oriented parent -> child."""
    visited, used = {root}, set()
    bodies, joints = [root], []
    frontier = deque() if mode == "bfs" else []

    def push(body, exclude=None):
        items = [(j.order, id(j), j, body) for j in sorted(adj[body], key=lambda j: j.order) if j is not exclude]
        if mode == "dfs":
            frontier.extend(reversed(items))
        elif mode == "bfs":
            frontier.extend(items)
        else:
            for it in items:
                heapq.heappush(frontier, it)

    push(root)
    while frontier:
        _, jid, j, frm = (
            frontier.pop() if mode == "dfs" else (frontier.popleft() if mode == "bfs" else heapq.heappop(frontier))
        )
        if jid in used:
            continue
        used.add(jid)
        other = j.child if j.parent == frm else j.parent
        if other in visited:
            _loop_error(ctx, j)
        if j.parent != frm:
            j.flip()
        visited.add(other)
        bodies.append(other)
        joints.append(j)
        push(other, exclude=j)
    return bodies, joints


def _root_joint(ctx, root, root_joint, bodies):
    floating = ctx.options.floating
    if root_joint is not None and not (floating is True and root_joint.type == JointType.FIXED):
        return root_joint
    if floating is False:
        return JointPlan(
            path=None,
            key=f"{root}:fixed",
            type=JointType.FIXED,
            parent=None,
            child=root,
            parent_xform=bodies[root].pose.copy(),
            child_xform=transform_identity(),
        )
    return JointPlan(path=None, key=f"{root}:free", type=JointType.FREE, parent=None, child=root)


def _articulation_prims(articulations, bodies) -> tuple[dict, list]:
    """Body -> articulation root prim (listed by UsdPhysics, or below the root prim), and root bodies."""
    body_art, roots = {}, []
    for path, desc in articulations:
        for b in desc.articulatedBodies:
            if str(b):
                body_art.setdefault(str(b), path)
        prefix = path.rstrip("/") + "/"
        for b in bodies:
            if b.startswith(prefix) or b == path:
                body_art.setdefault(b, path)
        roots.extend(str(r) for r in desc.rootPrims)
    return body_art, roots


def build_components(ctx, bodies: dict, joints: list, articulations: list) -> tuple[list, list]:
    """Group bodies and joints into Components, parents first.

    Returns:
        (components in stage order of their first body, loop-closing joints).
    """
    mode = ctx.options.joint_ordering
    tree = [j for j in joints if not j.excluded]
    loops = [j for j in joints if j.excluded]
    adj, world = _adjacency(tree)
    body_art, art_roots = _articulation_prims(articulations, bodies)
    components, art_used = [], defaultdict(int)
    for comp in _connected(list(bodies), adj):
        root, root_joint = _root(ctx, comp, world, art_roots, tree)
        order_b, order_j = _traverse(ctx, root, adj, mode)
        first = _root_joint(ctx, root, root_joint, bodies)
        art = next((body_art[b] for b in order_b if b in body_art), None)
        key = art if art is not None and art_used[art] == 0 else root
        if art is not None:
            art_used[art] += 1
        components.append(Component(bodies=order_b, joints=[first] + order_j, articulation_prim=art, key=key))
    return components, loops
