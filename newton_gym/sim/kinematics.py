"""Forward and inverse kinematics over all worlds at once.

``eval_fk`` maps generalized coordinates (joint_q, joint_qd) to body poses and COM twists (body_q,
body_qd, newton_gym's conventions); ``eval_ik`` maps body state back to joint coordinates. Joint
velocity conventions: revolute/prismatic scalar rates about/along the axis; ball: angular velocity of
the child relative to the parent in the child joint frame; free/distance: child COM linear velocity
relative to the parent's velocity field, and relative angular velocity, both in world frame; D6: rates
of its axes (linear along parent-frame axes, angular chained R_1 ... R_{k-1} a_k).
"""

from __future__ import annotations

import warp as wp

from .stage_args import fill
from .wpmath import (
    JOINT_BALL,
    JOINT_D6,
    JOINT_DISTANCE,
    JOINT_FREE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    angle_about_axis,
    d6_axis_world,
    d6_rotation,
    velocity_at_point,
)

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["eval_fk", "eval_ik", "joint_transform_and_twist", "body_frame_state"]


@wp.func
def joint_transform_and_twist(
    jtype: int,
    axis_start: int,
    q_start: int,
    lin: int,
    ang: int,
    joint_axis: wp.array(dtype=wp.vec3),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    x_wpj: wp.transform,
):
    """Joint transform X_j (child joint frame in parent joint frame) and the joint's relative twist in
    world frame as (linear velocity of the child joint origin, angular velocity), for all but free joints."""
    x_j = wp.transform_identity()
    v = wp.vec3(0.0)
    w = wp.vec3(0.0)
    q_pj = wp.transform_get_rotation(x_wpj)
    if jtype == JOINT_PRISMATIC:
        a = joint_axis[axis_start]
        x_j = wp.transform(a * joint_q[q_start], wp.quat_identity())
        v = wp.quat_rotate(q_pj, a * joint_qd[axis_start])
    elif jtype == JOINT_REVOLUTE:
        a = joint_axis[axis_start]
        x_j = wp.transform(wp.vec3(0.0), wp.quat_from_axis_angle(a, joint_q[q_start]))
        w = wp.quat_rotate(q_pj, a * joint_qd[axis_start])
    elif jtype == JOINT_BALL:
        r = wp.normalize(wp.quat(joint_q[q_start], joint_q[q_start + 1], joint_q[q_start + 2], joint_q[q_start + 3]))
        x_j = wp.transform(wp.vec3(0.0), r)
        w_local = wp.vec3(joint_qd[axis_start], joint_qd[axis_start + 1], joint_qd[axis_start + 2])
        w = wp.quat_rotate(q_pj * r, w_local)
    elif jtype == JOINT_D6:
        t = wp.vec3(0.0)
        vt = wp.vec3(0.0)
        k = int(0)
        while k < lin:
            t = t + joint_axis[axis_start + k] * joint_q[q_start + k]
            vt = vt + joint_axis[axis_start + k] * joint_qd[axis_start + k]
            k += 1
        r = d6_rotation(joint_axis, joint_q, axis_start + lin, q_start + lin, ang)
        wl = wp.vec3(0.0)
        k = int(0)
        while k < ang:
            wl = (
                wl
                + d6_axis_world(joint_axis, joint_q, axis_start + lin, q_start + lin, k)
                * joint_qd[axis_start + lin + k]
            )
            k += 1
        x_j = wp.transform(t, r)
        v = wp.quat_rotate(q_pj, vt)
        w = wp.quat_rotate(q_pj, wl)
    return x_j, v, w


@wp.func
def body_frame_state(
    body: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
):
    """Pose, COM velocity, angular velocity and world COM of ``body`` (the world frame at rest for -1)."""
    x = wp.transform_identity()
    v = wp.vec3(0.0)
    w = wp.vec3(0.0)
    com = wp.vec3(0.0)
    if body >= 0:
        x = body_q[body]
        v = wp.spatial_top(body_qd[body])
        w = wp.spatial_bottom(body_qd[body])
        com = wp.transform_point(x, body_com[body])
    return x, v, w, com


@wp.struct
class FkArgs:
    """Arrays of forward kinematics of one articulation (model tables, joint state, output body state)."""

    # Model:
    articulation_start: wp.array(dtype=int)
    articulation_mask: wp.array(dtype=bool)
    use_mask: int
    joint_type: wp.array(dtype=int)
    joint_parent: wp.array(dtype=int)
    joint_child: wp.array(dtype=int)
    joint_X_p: wp.array(dtype=wp.transform)
    joint_X_c: wp.array(dtype=wp.transform)
    joint_q_start: wp.array(dtype=int)
    joint_qd_start: wp.array(dtype=int)
    joint_dof_dim: wp.array(dtype=wp.vec2i)
    joint_axis: wp.array(dtype=wp.vec3)
    body_com: wp.array(dtype=wp.vec3)
    # Data in:
    joint_q: wp.array(dtype=float)
    joint_qd: wp.array(dtype=float)
    # Data out:
    body_q_out: wp.array(dtype=wp.transform)
    body_qd_out: wp.array(dtype=wp.spatial_vector)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def fk_joint(j: int, args: FkArgs):
    """Pose and COM twist of joint j's child body from its parent's (computed before) and the joint state."""
    joint_child = args.joint_child
    joint_parent = args.joint_parent
    body_q_out = args.body_q_out
    body_qd_out = args.body_qd_out
    body_com = args.body_com
    joint_X_p = args.joint_X_p
    joint_type = args.joint_type
    joint_q_start = args.joint_q_start
    joint_qd_start = args.joint_qd_start
    joint_q = args.joint_q
    joint_X_c = args.joint_X_c
    joint_qd = args.joint_qd
    joint_dof_dim = args.joint_dof_dim
    joint_axis = args.joint_axis
    child = joint_child[j]
    x_wp, v_p, w_p, com_p = body_frame_state(joint_parent[j], body_q_out, body_qd_out, body_com)
    x_wpj = x_wp * joint_X_p[j]
    jt = joint_type[j]
    qs = joint_q_start[j]
    ds = joint_qd_start[j]
    if jt == JOINT_FREE or jt == JOINT_DISTANCE:
        x_j = wp.transform(
            wp.vec3(joint_q[qs], joint_q[qs + 1], joint_q[qs + 2]),
            wp.normalize(wp.quat(joint_q[qs + 3], joint_q[qs + 4], joint_q[qs + 5], joint_q[qs + 6])),
        )
        x_wc = x_wpj * x_j * wp.transform_inverse(joint_X_c[j])
        com_c = wp.transform_point(x_wc, body_com[child])
        v_rel = wp.vec3(joint_qd[ds], joint_qd[ds + 1], joint_qd[ds + 2])
        w_rel = wp.vec3(joint_qd[ds + 3], joint_qd[ds + 4], joint_qd[ds + 5])
        v_c = velocity_at_point(v_p, w_p, com_p, com_c) + v_rel
    else:
        dim = joint_dof_dim[j]
        x_j, v_j, w_rel = joint_transform_and_twist(jt, ds, qs, dim[0], dim[1], joint_axis, joint_q, joint_qd, x_wpj)
        x_wcj = x_wpj * x_j
        x_wc = x_wcj * wp.transform_inverse(joint_X_c[j])
        com_c = wp.transform_point(x_wc, body_com[child])
        anchor = wp.transform_get_translation(x_wcj)
        v_c = velocity_at_point(v_p, w_p, com_p, com_c) + v_j + wp.cross(w_rel, com_c - anchor)
    body_q_out[child] = x_wc
    body_qd_out[child] = wp.spatial_vector(v_c, w_p + w_rel)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def fk_articulation(a: int, args: FkArgs):
    """Forward kinematics of articulation a, joints in tree order (parents first)."""
    if args.use_mask != 0:
        if not args.articulation_mask[a]:
            return
    j = int(args.articulation_start[a])
    j_end = args.articulation_start[a + 1]
    while j < j_end:
        fk_joint(j, args)
        j += 1


@wp.kernel
def _fk_kernel(first: int, args: FkArgs):
    fk_articulation(wp.tid() + first, args)


def eval_fk(model, joint_q, joint_qd, state, mask=None, articulations=None):
    """Forward kinematics: write ``state.body_q`` / ``state.body_qd`` from joint coordinates.

    Args:
        model: the Model.
        joint_q: (joint_coord_count,) float32 Warp array.
        joint_qd: (joint_dof_count,) float32 Warp array.
        state: State (or any object with body_q, body_qd arrays) to write.
        mask: optional (articulation_count,) bool array; only articulations where it is True are updated.
        articulations: optional (first, count) range of articulations to update (default: all).
    """
    first, count = articulations if articulations is not None else (0, model.articulation_count)
    if count == 0:
        return
    args = fk_args(model, joint_q, joint_qd, state.body_q, state.body_qd, mask)
    wp.launch(_fk_kernel, dim=count, device=model.device, inputs=[first, args])


def fk_args(model, joint_q, joint_qd, body_q, body_qd, mask=None) -> FkArgs:
    """The FkArgs of :func:`eval_fk` writing ``body_q`` / ``body_qd``."""
    return fill(
        FkArgs,
        model,
        articulation_mask=mask if mask is not None else model.articulation_self_collision,
        use_mask=0 if mask is None else 1,
        joint_q=joint_q,
        joint_qd=joint_qd,
        body_q_out=body_q,
        body_qd_out=body_qd,
    )


@wp.func
def _d6_angles(r: wp.quat, axis_start: int, count: int, joint_axis: wp.array(dtype=wp.vec3)):
    """Angles of up to 3 orthogonal axes whose chained rotations R(a1,q1) R(a2,q2) R(a3,q3) give r."""
    out = wp.vec3(0.0)
    if count == 1:
        out[0] = angle_about_axis(r, joint_axis[axis_start])
    elif count >= 2:
        a1 = joint_axis[axis_start]
        a2 = joint_axis[axis_start + 1]
        a3 = wp.cross(a1, a2)
        sign = 1.0
        if count == 3:
            sign = wp.sign(wp.dot(joint_axis[axis_start + 2], a3))
        basis = wp.mat33(a1[0], a2[0], a3[0], a1[1], a2[1], a3[1], a1[2], a2[2], a3[2])
        m = wp.transpose(basis) * wp.quat_to_matrix(r) * basis
        # XYZ Tait-Bryan extraction: m = Rx(q1) Ry(q2) Rz(q3).
        out[1] = wp.asin(wp.clamp(m[0, 2], -1.0, 1.0))
        out[0] = wp.atan2(-m[1, 2], m[2, 2])
        if count == 3:
            out[2] = sign * wp.atan2(-m[0, 1], m[0, 0])
    return out


@wp.func
def _d6_ik(
    dim: wp.vec2i,
    qs: int,
    ds: int,
    t_rel: wp.vec3,
    r_rel: wp.quat,
    v_rel_local: wp.vec3,
    w_rel_local: wp.vec3,
    joint_axis: wp.array(dtype=wp.vec3),
    joint_q_out: wp.array(dtype=float),
    joint_qd_out: wp.array(dtype=float),
):
    """Coordinates and rates of a D6 joint (``dim`` linear and angular axes) from the child joint frame's
    pose (t_rel, r_rel) and velocity relative to the parent joint frame, in that frame."""
    lin = dim[0]
    ang = dim[1]
    k = int(0)
    while k < lin:
        a = joint_axis[ds + k]
        joint_q_out[qs + k] = wp.dot(t_rel, a)
        joint_qd_out[ds + k] = wp.dot(v_rel_local, a)
        k += 1
    angles = _d6_angles(r_rel, ds + lin, ang, joint_axis)
    k = int(0)
    while k < ang:
        joint_q_out[qs + lin + k] = angles[k]
        k += 1
    # Rates: solve J^T J qd = J^T w for the chained axes (identity-padded when fewer than 3).
    jac = wp.mat33(0.0)
    k = int(0)
    while k < ang:
        col = d6_axis_world(joint_axis, joint_q_out, ds + lin, qs + lin, k)
        for i in range(3):
            jac[i, k] = col[i]
        k += 1
    gram = wp.transpose(jac) * jac
    k = int(ang)
    while k < 3:
        gram[k, k] = 1.0
        k += 1
    rates = wp.inverse(gram) * (wp.transpose(jac) * w_rel_local)
    k = int(0)
    while k < ang:
        joint_qd_out[ds + lin + k] = rates[k]
        k += 1


@wp.kernel
def _ik_kernel(
    # Model:
    joint_type: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_X_p: wp.array(dtype=wp.transform),
    joint_X_c: wp.array(dtype=wp.transform),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_dof_dim: wp.array(dtype=wp.vec2i),
    joint_axis: wp.array(dtype=wp.vec3),
    body_com: wp.array(dtype=wp.vec3),
    # Data in:
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    # Data out:
    joint_q_out: wp.array(dtype=float),
    joint_qd_out: wp.array(dtype=float),
):
    j = wp.tid()
    x_wp, v_p, w_p, com_p = body_frame_state(joint_parent[j], body_q, body_qd, body_com)
    x_wc, v_c, w_c, com_c = body_frame_state(joint_child[j], body_q, body_qd, body_com)
    x_wpj = x_wp * joint_X_p[j]
    x_wcj = x_wc * joint_X_c[j]
    x_rel = wp.transform_inverse(x_wpj) * x_wcj
    r_rel = wp.transform_get_rotation(x_rel)
    t_rel = wp.transform_get_translation(x_rel)
    q_pj = wp.transform_get_rotation(x_wpj)
    w_rel = w_c - w_p
    anchor = wp.transform_get_translation(x_wcj)
    # Velocity of the child joint origin relative to the parent's point there, in the parent joint frame.
    v_rel_local = wp.quat_rotate_inv(
        q_pj, velocity_at_point(v_c, w_c, com_c, anchor) - velocity_at_point(v_p, w_p, com_p, anchor)
    )
    w_rel_local = wp.quat_rotate_inv(q_pj, w_rel)
    jt = joint_type[j]
    qs = joint_q_start[j]
    ds = joint_qd_start[j]
    if jt == JOINT_PRISMATIC:
        a = joint_axis[ds]
        joint_q_out[qs] = wp.dot(t_rel, a)
        joint_qd_out[ds] = wp.dot(v_rel_local, a)
    elif jt == JOINT_REVOLUTE:
        a = joint_axis[ds]
        joint_q_out[qs] = angle_about_axis(r_rel, a)
        joint_qd_out[ds] = wp.dot(w_rel_local, a)
    elif jt == JOINT_BALL:
        for k in range(4):
            joint_q_out[qs + k] = r_rel[k]
        w_child = wp.quat_rotate_inv(r_rel, w_rel_local)
        for k in range(3):
            joint_qd_out[ds + k] = w_child[k]
    elif jt == JOINT_FREE or jt == JOINT_DISTANCE:
        for k in range(3):
            joint_q_out[qs + k] = t_rel[k]
        for k in range(4):
            joint_q_out[qs + 3 + k] = r_rel[k]
        v_lin = v_c - velocity_at_point(v_p, w_p, com_p, com_c)
        for k in range(3):
            joint_qd_out[ds + k] = v_lin[k]
            joint_qd_out[ds + 3 + k] = w_rel[k]
    elif jt == JOINT_D6:
        _d6_ik(joint_dof_dim[j], qs, ds, t_rel, r_rel, v_rel_local, w_rel_local, joint_axis, joint_q_out, joint_qd_out)


def eval_ik(model, state, joint_q, joint_qd):
    """Inverse kinematics: write ``joint_q`` / ``joint_qd`` from ``state.body_q`` / ``state.body_qd``.

    Exact for all joint types when the body state is consistent with the joints; D6 angles assume
    mutually orthogonal angular axes.
    """
    if model.joint_count == 0:
        return
    wp.launch(
        _ik_kernel,
        dim=model.joint_count,
        device=model.device,
        inputs=[
            model.joint_type,
            model.joint_parent,
            model.joint_child,
            model.joint_X_p,
            model.joint_X_c,
            model.joint_q_start,
            model.joint_qd_start,
            model.joint_dof_dim,
            model.joint_axis,
            model.body_com,
            state.body_q,
            state.body_qd,
        ],
        outputs=[joint_q, joint_qd],
    )
