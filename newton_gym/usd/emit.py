"""Writing the plans into the ModelBuilder: bodies and their shapes, joints, articulations, static
shapes and loop-closure equality constraints, component by component (parents first), then the
initial joint state.

A loop-closing joint becomes an equality constraint: a FixedJoint a weld (body1 = the joint's body1,
anchor = localPos1, relpose from both frames, ``mjc:torqueScale``), a SphericalJoint a connect (anchor =
localPos1; the builder places the second anchor where the first is at the initial poses, so frames apart
there warn), each with the resolvers' solref / solimp (:mod:`.stage_equalities`) and switched on as
``physics:jointEnabled`` says."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..sim.hostmath import transform_inverse, transform_mul, transform_point
from ..sim.types import JointType
from .stage_equalities import equality_params

__all__ = ["Emitted", "emit"]


@dataclass
class Emitted:
    """Builder indices of what an import added.

    Attributes:
        body / shape / joint / equality: prim path -> index.
        articulation: articulation key -> index; component_articulation: index per Component.
        component_shapes: shape indices per Component; component_prims: articulation prim per Component;
        shape_plans: shape index -> ShapePlan.
    """

    body: dict = field(default_factory=dict)
    shape: dict = field(default_factory=dict)
    joint: dict = field(default_factory=dict)
    equality: dict = field(default_factory=dict)
    articulation: dict = field(default_factory=dict)
    component_articulation: list = field(default_factory=list)
    component_shapes: list = field(default_factory=list)
    component_prims: list = field(default_factory=list)
    shape_plans: dict = field(default_factory=dict)
    auto_joints: dict = field(default_factory=dict)


def _add_shape(ctx, out, plan, body_index):
    with ctx.at(plan.path):
        index = ctx.builder.add_shape(
            body_index, plan.geo, plan.xform, scale=plan.size, mesh=plan.mesh, cfg=plan.cfg, key=plan.path
        )
    out.shape[plan.path] = index
    out.shape_plans[index] = plan
    return index


def _add_joint(ctx, out, j, state):
    b = ctx.builder
    parent = -1 if j.parent is None else out.body[j.parent]
    child = out.body[j.child]
    with ctx.at(j.path or j.child):
        if j.path is None and j.type == JointType.FREE:
            index = b.add_joint_free(child, key=j.key)
            state["free"].append((index, j.child))
        elif j.path is None:
            index = b.add_joint_fixed(-1, child, j.parent_xform, j.child_xform, key=j.key)
        else:
            index = b.add_joint(
                j.type,
                parent,
                child,
                j.parent_xform,
                j.child_xform,
                linear_axes=[d.cfg for d in j.linear],
                angular_axes=[d.cfg for d in j.angular],
                key=j.key,
                enabled=j.enabled,
                collision_filter_parent=j.filter_parent,
            )
    if j.path is None:
        out.auto_joints[j.key] = index
    else:
        out.joint[j.path] = index
    if j.type in (JointType.REVOLUTE, JointType.PRISMATIC, JointType.D6):
        tj = b.tables["joint"]
        q0, qd0 = int(tj.value("q_start", index)), int(tj.value("qd_start", index))
        for k, d in enumerate(j.linear + j.angular):
            state["q"].append((q0 + k, d.q0))
            state["qd"].append((qd0 + k, d.qd0))
    return index


def _self_collisions(ctx, comp) -> bool:
    default = bool(ctx.options.enable_self_collisions)
    if comp.articulation_prim is None:
        return default
    return bool(ctx.resolve("articulation", "self_collision_enabled", comp.articulation_prim, default=default))


def _emit_component(ctx, out, comp, bodies, state):
    b = ctx.builder
    shapes = []
    for path in comp.bodies:
        plan = bodies[path]
        with ctx.at(path):
            out.body[path] = b.add_link(
                xform=plan.pose, mass=plan.mass, com=plan.com, inertia=plan.inertia, key=path, kinematic=plan.kinematic
            )
        if np.any(plan.velocity != 0.0):
            state["body_qd"].append((out.body[path], plan.velocity))
        shapes.extend(_add_shape(ctx, out, s, out.body[path]) for s in plan.shapes)
    joints = [_add_joint(ctx, out, j, state) for j in comp.joints]
    with ctx.at(comp.articulation_prim or comp.key):
        art = b.add_articulation(joints, key=comp.key, enable_self_collisions=_self_collisions(ctx, comp))
    out.articulation.setdefault(comp.key, art)
    out.component_articulation.append(art)
    out.component_shapes.append(shapes)
    out.component_prims.append(comp.articulation_prim)


def _warn_apart(ctx, j, body1, body2):
    """A connect keeps its anchors where the initial poses put them: warn when the two frames are apart."""
    tb = ctx.builder.tables["body"]
    p1 = transform_point(tb.value("q", body1), j.child_xform[:3])
    p2 = j.parent_xform[:3] if body2 < 0 else transform_point(tb.value("q", body2), j.parent_xform[:3])
    gap = float(np.linalg.norm(p1 - p2))
    if gap > 1e-5 * max(1.0, float(np.linalg.norm(p1))):
        ctx.warn(
            j.path,
            f"the spherical joint's frames are {gap:.3g} m apart at the initial poses; the connect constraint "
            "holds its bodies at that offset",
        )


def _emit_loop(ctx, out, j):
    b = ctx.builder
    body1 = out.body[j.child]
    body2 = -1 if j.parent is None else out.body[j.parent]
    if j.type not in (JointType.FIXED, JointType.BALL):
        ctx.warn(
            j.path,
            f"loop-closing {j.type.name.lower()} joints (physics:excludeFromArticulation) are "
            "not supported; only fixed and spherical ones become equality constraints",
        )
        return
    params = dict(key=j.path, enabled=j.enabled, **equality_params(ctx, j.path))
    with ctx.at(j.path):
        if j.type == JointType.FIXED:
            relpose = transform_mul(j.child_xform, transform_inverse(j.parent_xform))
            torquescale = ctx.resolve("equality", "torquescale", j.path, default=1.0)
            out.equality[j.path] = b.add_equality_constraint_weld(
                body1, body2, relpose=relpose, anchor=j.child_xform[:3], torquescale=torquescale, **params
            )
        else:
            _warn_apart(ctx, j, body1, body2)
            out.equality[j.path] = b.add_equality_constraint_connect(body1, body2, anchor=j.child_xform[:3], **params)


def _apply_state(ctx, out, bodies, state):
    t = ctx.builder.tables
    for index, path in state["free"]:
        qd0 = int(t["joint"].value("qd_start", index))
        state["qd"].extend((qd0 + k, v) for k, v in enumerate(bodies[path].velocity))
    for kind, col, key in (("coord", "q", "q"), ("dof", "qd", "qd"), ("body", "qd", "body_qd")):
        items = [(i, v) for i, v in state[key] if np.any(np.asarray(v) != 0.0)]
        if items:
            idx = np.array([i for i, _ in items])
            t[kind].set(col, idx, np.array([v for _, v in items], dtype=np.float64))


def emit(ctx, components: list, static_shapes: list, loops: list, bodies: dict) -> Emitted:
    """Write every plan into ``ctx.builder``; returns the indices it created."""
    out = Emitted()
    state = {"q": [], "qd": [], "body_qd": [], "free": []}
    for comp in components:
        _emit_component(ctx, out, comp, bodies, state)
    for plan in static_shapes:
        _add_shape(ctx, out, plan, -1)
    for j in loops:
        if j.child in out.body and (j.parent is None or j.parent in out.body):
            _emit_loop(ctx, out, j)
    _apply_state(ctx, out, bodies, state)
    return out
