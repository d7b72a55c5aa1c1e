"""Integration of the generalized state, per-world health flags and per-world resets.

Semi-implicit Euler as MuJoCo's implicitfast integrator: the acceleration is corrected for the
velocity-implicit terms, qacc = M_hat^-1 (M qacc) with M_hat = M + dt D (M qacc = qfrc_smooth +
J^T f, the constraint forces solved with M as MuJoCo does), then qd' = qd + dt qacc and q' = q + dt qd'.
Rotations of free and ball joints are integrated on the group: ball joints right-multiply exp(dt w') in
the child joint frame; free joints rotate by exp(dt w') (``midpoint`` 0, MuJoCo's rule) or by the Cayley
map of dt times the mean of the old and new angular velocities (``midpoint`` 1), which together with the
midpoint gyroscopic term (:mod:`.smooth.dynamics`) conserves a torque-free body's energy and angular momentum.
Free-joint rotations are composed in float64.
"""

from __future__ import annotations

import warp as wp

from ..sim.stage_args import fill
from ..sim.wpmath import JOINT_BALL, JOINT_D6, JOINT_DISTANCE, JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
from .items import item, item_set
from .spatial import ltl_solve, ltl_solve_t, quat_exp
from .types import TreeModel, tree_model

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = [
    "IntegrateArgs",
    "integrate_articulation",
    "integrate_args",
    "HealthArgs",
    "health_world",
    "health_args",
    "copy_joint_state",
    "reset_joint_state",
]


@wp.func
def _to_d(v: wp.vec3):
    return wp.vec3d(wp.float64(v[0]), wp.float64(v[1]), wp.float64(v[2]))


@wp.func
def _integrate_free(
    qs: int,
    ds: int,
    dt: float,
    midpoint: int,
    x_wpj: wp.transform,
    x_wc: wp.transform,
    com_local: wp.vec3,
    x_c: wp.transform,
    acc_lin: wp.vec3,
    acc_ang: wp.vec3,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    # Rotation update in float64: float32 quaternion products drift the energy of a spinning body.
    v = wp.vec3(joint_qd[ds], joint_qd[ds + 1], joint_qd[ds + 2]) + dt * acc_lin
    h = wp.float64(dt)
    w_old = wp.vec3d(wp.float64(joint_qd[ds + 3]), wp.float64(joint_qd[ds + 4]), wp.float64(joint_qd[ds + 5]))
    w_naive = w_old + h * _to_d(acc_ang)
    # The world-frame angular velocity rotates with the body over the step (see module docstring).
    rot_step = wp.quatd(wp.float64(0.0), wp.float64(0.0), wp.float64(0.0), wp.float64(1.0))
    if midpoint != 0:
        half = wp.float64(0.5) * h * wp.float64(0.5) * (w_old + w_naive)
        rot_step = wp.normalize(wp.quatd(half[0], half[1], half[2], wp.float64(1.0)))
    else:
        angle = wp.length(w_naive) * h
        if angle > wp.float64(1.0e-15):
            axis = w_naive / wp.length(w_naive)
            sh = wp.sin(wp.float64(0.5) * angle)
            rot_step = wp.quatd(axis[0] * sh, axis[1] * sh, axis[2] * sh, wp.cos(wp.float64(0.5) * angle))
    w_new = wp.quat_rotate(rot_step, w_naive)
    r0 = wp.transform_get_rotation(x_wc)
    rot_d = wp.normalize(
        rot_step * wp.quatd(wp.float64(r0[0]), wp.float64(r0[1]), wp.float64(r0[2]), wp.float64(r0[3]))
    )
    rot = wp.quat(float(rot_d[0]), float(rot_d[1]), float(rot_d[2]), float(rot_d[3]))
    com = wp.transform_point(x_wc, com_local) + dt * v
    x_new = wp.transform(com - wp.quat_rotate(rot, com_local), rot)
    x_j = wp.transform_inverse(x_wpj) * x_new * x_c
    p = wp.transform_get_translation(x_j)
    r = wp.transform_get_rotation(x_j)
    for k in range(3):
        joint_q[qs + k] = p[k]
        joint_qd[ds + k] = v[k]
        joint_qd[ds + 3 + k] = float(w_new[k])
    for k in range(4):
        joint_q[qs + 3 + k] = r[k]


@wp.func
def _implicit_correction(
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    joint_armature: wp.array(dtype=float),
    mass_matrix: wp.array(dtype=wp.float64),
    chol_implicit: wp.array(dtype=wp.float64),
    qacc: wp.array(dtype=float),
    scratch: wp.array(dtype=wp.float64),
):
    """qacc <- M_hat^-1 (M qacc) for one articulation (MuJoCo's implicitfast step). M qacc is a tree-sparse
    product over the ancestor entries of ``mass_matrix`` (the only non-zero ones, stored symmetrically)
    plus the armature, formed in ``scratch``."""
    k = int(0)
    while k < n:
        scratch[d0 + k] = (mass_matrix[off + k * n + k] + wp.float64(joint_armature[d0 + k])) * wp.float64(qacc[d0 + k])
        k += 1
    k = int(0)
    while k < n:
        row = off + k * n - d0
        i = item(dof_parent, d0 + k)
        while i >= 0:
            m = item(mass_matrix, row + i)
            item_set(scratch, d0 + k, item(scratch, d0 + k) + m * wp.float64(item(qacc, i)))
            item_set(scratch, i, item(scratch, i) + m * wp.float64(item(qacc, d0 + k)))
            i = item(dof_parent, i)
        k += 1
    ltl_solve_t(chol_implicit, off, n, d0, dof_parent, scratch, d0)
    ltl_solve(chol_implicit, off, n, d0, dof_parent, scratch, d0)
    k = int(0)
    while k < n:
        qacc[d0 + k] = wp.float32(scratch[d0 + k])
        k += 1


@wp.struct
class IntegrateArgs:
    """Arrays and scalars of the integration of one articulation."""

    # Model:
    m: TreeModel
    dt: float
    midpoint: int
    # Data in:
    body_q: wp.array(dtype=wp.transform)
    qacc_smooth: wp.array(dtype=float)
    qacc_constraint: wp.array(dtype=float)
    mass_matrix: wp.array(dtype=wp.float64)
    chol_implicit: wp.array(dtype=wp.float64)
    art_implicit: wp.array(dtype=int)
    # Data out (updated in place):
    qacc: wp.array(dtype=float)
    scratch: wp.array(dtype=wp.float64)
    joint_q: wp.array(dtype=float)
    joint_qd: wp.array(dtype=float)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def _integrate_joint(j: int, de: int, args: IntegrateArgs):
    """Joint j's velocities and coordinates from its DOFs' integrated acceleration (its DOFs end at de)."""
    jt = args.m.joint_type[j]
    qs = args.m.joint_q_start[j]
    ds = args.m.joint_qd_start[j]
    if jt == JOINT_FREE or jt == JOINT_DISTANCE:
        acc_l = wp.vec3(0.0)
        acc_a = wp.vec3(0.0)
        for k in range(3):
            acc_l[k] = args.qacc[ds + k]
            acc_a[k] = args.qacc[ds + 3 + k]
        p = args.m.joint_parent[j]
        x_wp = wp.transform_identity()
        if p >= 0:
            x_wp = args.body_q[p]
        c = args.m.joint_child[j]
        x_wpj = x_wp * args.m.joint_X_p[j]
        x_wc = args.body_q[c]
        com = args.m.body_com[c]
        x_c = args.m.joint_X_c[j]
        _integrate_free(
            qs, ds, args.dt, args.midpoint, x_wpj, x_wc, com, x_c, acc_l, acc_a, args.joint_q, args.joint_qd
        )
    else:
        d = int(ds)
        while d < de:
            args.joint_qd[d] = args.joint_qd[d] + args.dt * args.qacc[d]
            d += 1
        if jt == JOINT_BALL:
            r = wp.quat(args.joint_q[qs], args.joint_q[qs + 1], args.joint_q[qs + 2], args.joint_q[qs + 3])
            w = wp.vec3(args.joint_qd[ds], args.joint_qd[ds + 1], args.joint_qd[ds + 2])
            r = wp.normalize(r * quat_exp(args.dt * w))
            for k in range(4):
                args.joint_q[qs + k] = r[k]
        elif jt == JOINT_REVOLUTE or jt == JOINT_PRISMATIC or jt == JOINT_D6:
            d = int(ds)
            while d < de:
                args.joint_q[qs + d - ds] = args.joint_q[qs + d - ds] + args.dt * args.joint_qd[d]
                d += 1


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def integrate_articulation(a: int, args: IntegrateArgs):
    """Integrate tree a: qacc = qacc_smooth + qacc_constraint, corrected for the velocity-implicit terms
    where they apply, then each joint's velocities and coordinates."""
    d0 = args.m.art_dof_start[a]
    n = args.m.art_dof_start[a + 1] - d0
    d = int(d0)
    d_end = d0 + n
    while d < d_end:
        args.qacc[d] = args.qacc_smooth[d] + args.qacc_constraint[d]
        d += 1
    if args.art_implicit[a] != 0:
        _implicit_correction(
            args.m.art_mat_start[a],
            n,
            d0,
            args.m.dof_parent,
            args.m.joint_armature,
            args.mass_matrix,
            args.chol_implicit,
            args.qacc,
            args.scratch,
        )
    j1 = args.m.articulation_start[a + 1]
    j = int(args.m.articulation_start[a])
    while j < j1:
        de = args.m.art_dof_start[a + 1]
        if j + 1 < j1:
            de = args.m.joint_qd_start[j + 1]
        _integrate_joint(j, de, args)
        j += 1


def integrate_args(model, tree, data, body_q, joint_q, joint_qd, dt, midpoint=False) -> IntegrateArgs:
    """The IntegrateArgs of :func:`integrate_articulation`."""
    return fill(
        IntegrateArgs,
        data,
        m=tree_model(model, tree),
        dt=float(dt),
        midpoint=int(bool(midpoint)),
        body_q=body_q,
        scratch=data.dof_scratch,
        joint_q=joint_q,
        joint_qd=joint_qd,
    )


@wp.kernel
def _copy_kernel(first: int, src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid() + first
    dst[i] = src[i]


def copy_joint_state(model, src, dst, coords, dofs):
    """Copy joint_q / joint_qd from ``src`` to ``dst`` with kernels (capturable on every device), over the
    (first, count) ranges ``coords`` and ``dofs``."""
    if coords[1]:
        wp.launch(_copy_kernel, dim=coords[1], device=model.device, inputs=[coords[0], src.joint_q, dst.joint_q])
    if dofs[1]:
        wp.launch(_copy_kernel, dim=dofs[1], device=model.device, inputs=[dofs[0], src.joint_qd, dst.joint_qd])


@wp.struct
class HealthArgs:
    """Arrays and scalars of one world's health check."""

    # Model:
    articulation_world_start: wp.array(dtype=int)
    art_dof_start: wp.array(dtype=int)
    art_coord_start: wp.array(dtype=int)
    max_speed: float
    # Data in:
    joint_q: wp.array(dtype=float)
    joint_qd: wp.array(dtype=float)
    row_overflow: wp.array(dtype=int)  # (world_count,) 1 where the world's constraint rows overflowed
    # Data out:
    world_unhealthy_out: wp.array(dtype=int)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def health_world(w: int, args: HealthArgs):
    bad = int(0)
    a = int(args.articulation_world_start[w])
    a_end = args.articulation_world_start[w + 1]
    while a < a_end:
        d = int(args.art_dof_start[a])
        d_end = args.art_dof_start[a + 1]
        while d < d_end:
            v = args.joint_qd[d]
            if not wp.isfinite(v) or wp.abs(v) > args.max_speed:
                bad = 1
            d += 1
        c = int(args.art_coord_start[a])
        c_end = args.art_coord_start[a + 1]
        while c < c_end:
            if not wp.isfinite(args.joint_q[c]):
                bad = 1
            c += 1
        a += 1
    if args.row_overflow[w] != 0:
        bad = 1  # contacts were dropped for want of constraint rows: the physics is wrong
    if bad != 0:
        args.world_unhealthy_out[w] = 1


def health_args(model, tree, joint_q, joint_qd, max_speed, row_overflow, out) -> HealthArgs:
    """The HealthArgs of :func:`health_world`."""
    starts = model.articulation_world_start if model.world_count > 0 else tree["all_art_range"]
    return fill(
        HealthArgs,
        tree,
        articulation_world_start=starts,
        max_speed=float(max_speed),
        joint_q=joint_q,
        joint_qd=joint_qd,
        row_overflow=row_overflow,
        world_unhealthy_out=out,
    )


@wp.kernel
def _reset_kernel(
    # Model:
    entity_joint: wp.array(dtype=int),
    joint_world: wp.array(dtype=int),
    initial: wp.array(dtype=float),
    # Data in:
    world_mask: wp.array(dtype=bool),
    # Data out:
    values_out: wp.array(dtype=float),
):
    i = wp.tid()
    w = wp.max(joint_world[entity_joint[i]], 0)
    if world_mask[w]:
        values_out[i] = initial[i]


def reset_joint_state(model, world_mask, joint_q, joint_qd):
    """Restore the model's initial joint_q / joint_qd in the worlds where ``world_mask`` is True."""
    spaces = (
        (model.joint_coord_count, model.joint_coord_joint, model.joint_q, joint_q),
        (model.joint_dof_count, model.joint_dof_joint, model.joint_qd, joint_qd),
    )
    for count, entity_joint, initial, out in spaces:
        if count:
            inputs = [entity_joint, model.joint_world, initial, world_mask]
            wp.launch(_reset_kernel, dim=count, device=model.device, inputs=inputs, outputs=[out])
