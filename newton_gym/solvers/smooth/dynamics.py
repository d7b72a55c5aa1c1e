"""Smooth dynamics: motion subspaces, composite rigid-body mass matrix, bias forces, factorization.

Every kernel runs one thread per articulation and walks its joints in tree order (parents before
children, which the model guarantees). Quantities are in world axes about the articulation's reference
point r (see :mod:`.spatial`). After :func:`factor_and_solve`, ``qacc_smooth`` holds the acceleration
without constraint forces, M^-1 (qfrc_applied - bias) with M including armature (MuJoCo's qacc_smooth).
Host functions take ``span`` = (first, count), the articulations to process (all, or one group of worlds:
:mod:`.partition`).
"""

from __future__ import annotations

import warp as wp

from ...sim.stage_args import fill
from ...sim.wpmath import (
    JOINT_BALL,
    JOINT_D6,
    JOINT_DISTANCE,
    JOINT_FREE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    d6_axis_world,
)
from ..items import item, item_set
from ..lanes import sync_lanes
from ..spatial import cross_force, cross_motion, inertia_about, inertia_mul, ltl_factor_pair, ltl_solve, ltl_solve_t
from ..types import TreeModel, tree_model
from .tendon import tendon_armature_on, tendon_armature_pair, tendon_arts_implicit, tendon_implicit_rows

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["compute_subspaces", "compute_mass_matrix", "compute_bias", "factor_and_solve"]


@wp.func
def _twist_about(qd: wp.spatial_vector, com: wp.vec3, r: wp.vec3):
    """COM twist (v_com, w) -> twist about r: (v_com + (com - r) x w, w)."""
    w = wp.spatial_bottom(qd)
    return wp.spatial_vector(wp.spatial_top(qd) + wp.cross(com - r, w), w)


@wp.func
def _parent_pose(p: int, body_q: wp.array(dtype=wp.transform)):
    if p >= 0:
        return body_q[p]
    return wp.transform_identity()


@wp.struct
class SubspaceArgs:
    """Arrays of the subspace pass of one articulation (model tables, inputs, outputs)."""

    # Model:
    m: TreeModel
    # Data in:
    body_q: wp.array(dtype=wp.transform)
    body_qd: wp.array(dtype=wp.spatial_vector)
    joint_q: wp.array(dtype=float)
    joint_qd: wp.array(dtype=float)
    # Data out:
    art_ref_out: wp.array(dtype=wp.vec3)
    body_cvel_out: wp.array(dtype=wp.spatial_vector)
    body_h_out: wp.array(dtype=wp.vec3)
    body_rot_inertia_out: wp.array(dtype=wp.mat33)
    cdof_out: wp.array(dtype=wp.spatial_vector)
    cdof_dot_out: wp.array(dtype=wp.spatial_vector)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def subspace_ref(a: int, args: SubspaceArgs):
    """Reference point r of articulation a: its root body's COM (needs the root's forward kinematics)."""
    j0 = args.m.articulation_start[a]
    if j0 == args.m.articulation_start[a + 1]:
        return
    root = args.m.joint_child[j0]
    args.art_ref_out[a] = wp.transform_point(args.body_q[root], args.m.body_com[root])


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def subspace_joint(j: int, a: int, args: SubspaceArgs, in_order: int):
    """Twist and inertia about r of joint j's child body, and the motion subspaces of j's DOFs (joint j of
    articulation a; needs :func:`subspace_ref` of a). Reads only forward-kinematics outputs, so the joints
    of a world can be done in any order; ``in_order`` 1: this thread did the joints of a before j in tree
    order, so the parent body's twist about r is already in ``body_cvel_out`` (else it is computed again,
    by the same operations). Returns the child body's rotation matrix and world COM (for
    :func:`crb_body_posed`)."""
    r = item(args.art_ref_out, a)
    c = item(args.m.joint_child, j)
    p = item(args.m.joint_parent, j)
    x_wc = item(args.body_q, c)
    rot = wp.quat_to_matrix(wp.transform_get_rotation(x_wc))
    com = wp.transform_point(x_wc, item(args.m.body_com, c))
    v_c = _twist_about(item(args.body_qd, c), com, r)
    item_set(args.body_cvel_out, c, v_c)
    m = item(args.m.body_mass, c)
    item_set(args.body_h_out, c, m * (com - r))
    item_set(
        args.body_rot_inertia_out, c, inertia_about(m, com - r, rot * item(args.m.body_inertia, c) * wp.transpose(rot))
    )
    # The parent's twist about r, as its own subspace_joint computes it.
    v_p = wp.spatial_vector()
    if p >= 0:
        if in_order != 0 and item(args.m.body_art, p) == a:
            v_p = item(args.body_cvel_out, p)
        else:
            v_p = _twist_about(
                item(args.body_qd, p), wp.transform_point(item(args.body_q, p), item(args.m.body_com, p)), r
            )
    x_wpj = _parent_pose(p, args.body_q) * args.m.joint_X_p[j]
    q_pj = wp.transform_get_rotation(x_wpj)
    x_wcj = x_wc * args.m.joint_X_c[j]
    lever = wp.transform_get_translation(x_wcj) - r
    _joint_subspace(
        args.m.joint_type[j],
        args.m.joint_q_start[j],
        args.m.joint_qd_start[j],
        args.m.joint_dof_dim[j],
        args.m.joint_axis,
        args.joint_q,
        args.joint_qd,
        q_pj,
        wp.transform_get_rotation(x_wcj),
        lever,
        com - r,
        wp.spatial_top(args.body_qd[c]),
        v_p,
        v_c,
        args.cdof_out,
        args.cdof_dot_out,
    )
    return rot, com


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def subspace_articulation(a: int, args: SubspaceArgs):
    """Reference point, body twists and inertias about it, and motion subspaces of articulation a."""
    subspace_ref(a, args)
    j = int(args.m.articulation_start[a])
    j_end = args.m.articulation_start[a + 1]
    while j < j_end:
        subspace_joint(j, a, args, 1)
        j += 1


@wp.kernel
def _subspace_kernel(first: int, args: SubspaceArgs):
    subspace_articulation(wp.tid() + first, args)


@wp.func
def _joint_subspace(
    jt: int,
    qs: int,
    ds: int,
    dim: wp.vec2i,
    joint_axis: wp.array(dtype=wp.vec3),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    q_pj: wp.quat,
    q_cj: wp.quat,
    lever: wp.vec3,
    com_lever: wp.vec3,
    v_com: wp.vec3,
    v_p: wp.spatial_vector,
    v_c: wp.spatial_vector,
    cdof_out: wp.array(dtype=wp.spatial_vector),
    cdof_dot_out: wp.array(dtype=wp.spatial_vector),
):
    """Motion subspace S_k of each DOF about r and its time derivative (Featherstone RBDA sec. 3.5: the
    derivative of a subspace fixed in a frame moving with twist v is v x S)."""
    if jt == JOINT_REVOLUTE:
        b = wp.quat_rotate(q_pj, joint_axis[ds])
        s = wp.spatial_vector(wp.cross(lever, b), b)
        cdof_out[ds] = s
        cdof_dot_out[ds] = cross_motion(v_p, s)
    elif jt == JOINT_PRISMATIC:
        s = wp.spatial_vector(wp.quat_rotate(q_pj, joint_axis[ds]), wp.vec3(0.0))
        cdof_out[ds] = s
        cdof_dot_out[ds] = cross_motion(v_p, s)
    elif jt == JOINT_BALL:
        for k in range(3):
            e = wp.vec3(0.0)
            e[k] = 1.0
            b = wp.quat_rotate(q_cj, e)
            s = wp.spatial_vector(wp.cross(lever, b), b)
            cdof_out[ds + k] = s
            cdof_dot_out[ds + k] = cross_motion(v_c, s)
    elif jt == JOINT_FREE or jt == JOINT_DISTANCE:
        # Linear DOFs are world axes (constant); angular DOFs rotate about the moving COM.
        v_trans = wp.spatial_vector(v_com, wp.vec3(0.0))
        for k in range(3):
            e = wp.vec3(0.0)
            e[k] = 1.0
            cdof_out[ds + k] = wp.spatial_vector(e, wp.vec3(0.0))
            cdof_dot_out[ds + k] = wp.spatial_vector()
            s = wp.spatial_vector(wp.cross(com_lever, e), e)
            cdof_out[ds + 3 + k] = s
            cdof_dot_out[ds + 3 + k] = cross_motion(v_trans, s)
    elif jt == JOINT_D6:
        v = v_p
        k = int(0)
        k_end = dim[0]
        while k < k_end:
            s = wp.spatial_vector(wp.quat_rotate(q_pj, joint_axis[ds + k]), wp.vec3(0.0))
            cdof_out[ds + k] = s
            cdof_dot_out[ds + k] = cross_motion(v, s)
            v = v + s * joint_qd[ds + k]
            k += 1
        k = int(0)
        k_end = dim[1]
        while k < k_end:
            d = ds + dim[0] + k
            b = wp.quat_rotate(q_pj, d6_axis_world(joint_axis, joint_q, ds + dim[0], qs + dim[0], k))
            s = wp.spatial_vector(wp.cross(lever, b), b)
            cdof_out[d] = s
            cdof_dot_out[d] = cross_motion(v, s)
            v = v + s * joint_qd[d]
            k += 1


def subspace_args(model, tree, data, body_q, body_qd, joint_q, joint_qd) -> SubspaceArgs:
    """The SubspaceArgs of :func:`compute_subspaces`."""
    return fill(
        SubspaceArgs,
        data,
        m=tree_model(model, tree),
        body_q=body_q,
        body_qd=body_qd,
        joint_q=joint_q,
        joint_qd=joint_qd,
    )


def compute_subspaces(model, tree, data, body_q, body_qd, joint_q, joint_qd, span):
    """Reference points, body twists and inertias about them, motion subspaces and their derivatives."""
    wp.launch(
        _subspace_kernel,
        dim=span[1],
        device=model.device,
        inputs=[span[0], subspace_args(model, tree, data, body_q, body_qd, joint_q, joint_qd)],
    )


@wp.func
def _inertia_about_ref64(m: float, com: wp.vec3, rot32: wp.mat33, inertia_body: wp.mat33, r: wp.vec3d):
    """(h, I) of a body (world COM ``com``, rotation matrix ``rot32``) about r in float64 (the float32
    ``body_h`` / ``body_rot_inertia`` of the bias pass round m |c - r|^2, which reaches 250 kg m^2 at the tip
    of a 50 m chain, by more than a small link's own inertia, and M stops being positive definite)."""
    rot = wp.mat33d(rot32)
    d = wp.vec3d(com) - r
    md = wp.float64(m)
    inertia = rot * wp.mat33d(inertia_body) * wp.transpose(rot)
    inertia = inertia + md * (wp.dot(d, d) * wp.identity(3, dtype=wp.float64) - wp.outer(d, d))
    return md * d, inertia


@wp.struct
class CrbArgs:
    """Arrays of the composite-inertia / mass-matrix pass of one articulation."""

    # Model:
    m: TreeModel
    dof_ten_start: wp.array(dtype=int)  # (joint_dof_count + 1,) first tendon entry of each DOF
    dof_ten_entry: wp.array(dtype=int)  # tendon Jacobian entries by DOF
    ten_jac_tendon: wp.array(dtype=int)  # tendon of each Jacobian entry
    ten_jac_start: wp.array(dtype=int)  # (tendon_count + 1,) first Jacobian entry of each tendon
    ten_jac_dof: wp.array(dtype=int)  # DOF of each Jacobian entry
    ten_fixed_jac: wp.array(dtype=float)  # constant Jacobian entries of fixed tendons [m/rad or -]
    tendon_armature: wp.array(dtype=float)  # (tendon_count,) inertia along each tendon [kg]
    # Data in:
    body_q: wp.array(dtype=wp.transform)
    art_ref: wp.array(dtype=wp.vec3)
    cdof: wp.array(dtype=wp.spatial_vector)
    # Data out:
    crb_m_out: wp.array(dtype=wp.float64)
    crb_h_out: wp.array(dtype=wp.vec3d)
    crb_i_out: wp.array(dtype=wp.mat33d)
    mass_matrix_out: wp.array(dtype=wp.float64)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def crb_body(j: int, a: int, args: CrbArgs):
    """Inertia of joint j's child body about articulation a's reference point, in float64 (the start of
    its composite inertia)."""
    c = args.m.joint_child[j]
    x_wc = args.body_q[c]
    rot = wp.quat_to_matrix(wp.transform_get_rotation(x_wc))
    crb_body_posed(j, a, rot, wp.transform_point(x_wc, args.m.body_com[c]), args)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def crb_body_posed(j: int, a: int, rot: wp.mat33, com: wp.vec3, args: CrbArgs):
    """:func:`crb_body` given the child body's rotation matrix and world COM (as :func:`subspace_joint`
    returns them: the smooth pass computes them once for both)."""
    c = args.m.joint_child[j]
    m = args.m.body_mass[c]
    args.crb_m_out[c] = wp.float64(m)
    h, inertia = _inertia_about_ref64(m, com, rot, args.m.body_inertia[c], wp.vec3d(args.art_ref[a]))
    args.crb_h_out[c] = h
    args.crb_i_out[c] = inertia


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def crb_gather(j: int, args: CrbArgs):
    """Add the composite inertias of the child bodies of joint j's child (complete: children first) into
    it, in descending joint order."""
    crb_m = args.crb_m_out
    crb_h = args.crb_h_out
    crb_i = args.crb_i_out
    c = item(args.m.joint_child, j)
    k = int(item(args.m.body_child_start, c))
    k_end = item(args.m.body_child_start, c + 1)
    while k < k_end:
        cc = item(args.m.joint_child, item(args.m.body_child_joint, k))
        item_set(crb_m, c, item(crb_m, c) + item(crb_m, cc))
        item_set(crb_h, c, item(crb_h, c) + item(crb_h, cc))
        item_set(crb_i, c, item(crb_i, c) + item(crb_i, cc))
        k += 1


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def crb_composite(a: int, args: CrbArgs):
    """Composite inertias of the bodies of articulation a, about its reference point. In float64: summed
    over a long chain (about a reference point metres away) they are large, and M's small eigenvalues (the
    distal links' inertias) are lost to float32 rounding (see :func:`.spatial.ltl_factor`). Leaves to
    root (Featherstone RBDA sec. 6.2, CRBA)."""
    j = int(args.m.articulation_start[a])
    j_end = args.m.articulation_start[a + 1]
    while j < j_end:
        crb_body(j, a, args)
        j += 1
    crb_gather_articulation(a, args)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def crb_gather_articulation(a: int, args: CrbArgs):
    """:func:`crb_gather` over articulation a's joints, leaves to root (each body's own inertia set)."""
    j0 = args.m.articulation_start[a]
    j1 = args.m.articulation_start[a + 1]
    jj = int(0)
    jj_end = j1 - j0
    while jj < jj_end:
        crb_gather(j1 - 1 - jj, args)
        jj += 1


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def mass_matrix_rows(first: int, end: int, step: int, args: CrbArgs):
    """Mass-matrix rows (see the loop body) of DOFs first, first + step, ... below end, with the armature of the
    fixed tendons on each DOF (MuJoCo's mj_tendonArmature: armature J^T J on M's ancestor entries)."""
    for i in range(first, end, step):
        a = item(args.m.dof_art, i)
        c = item(args.m.dof_body, i)
        d0 = item(args.m.art_dof_start, a)
        n = item(args.m.art_dof_start, a + 1) - d0
        off = item(args.m.art_mat_start, a)
        s_i = wp.spatial_vectord(item(args.cdof, i))
        f = inertia_mul(item(args.crb_m_out, c), item(args.crb_h_out, c), item(args.crb_i_out, c), s_i)
        tendons = tendon_armature_on(
            i, args.dof_ten_start, args.dof_ten_entry, args.ten_jac_tendon, args.tendon_armature
        )
        k = i
        while k >= 0:
            val = wp.dot(wp.spatial_vectord(item(args.cdof, k)), f)
            if tendons:
                val += tendon_armature_pair(
                    i,
                    k,
                    args.dof_ten_start,
                    args.dof_ten_entry,
                    args.ten_jac_tendon,
                    args.ten_jac_start,
                    args.ten_jac_dof,
                    args.ten_fixed_jac,
                    args.tendon_armature,
                )
            item_set(args.mass_matrix_out, off + (i - d0) * n + (k - d0), val)
            item_set(args.mass_matrix_out, off + (k - d0) * n + (i - d0), val)
            k = item(args.m.dof_parent, k)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def crb_articulation(a: int, args: CrbArgs):
    """Composite inertias and the mass matrix of articulation a."""
    crb_composite(a, args)
    mass_matrix_rows(args.m.art_dof_start[a], args.m.art_dof_start[a + 1], 1, args)


@wp.kernel
def _crb_kernel(first: int, args: CrbArgs):
    crb_articulation(wp.tid() + first, args)


def crb_args(model, tree, tendons, data) -> CrbArgs:
    """The CrbArgs of :func:`compute_mass_matrix` (``tendons``: :meth:`.tendon.TendonLayout.upload`)."""
    armature = model.tendon_armature if model.tendon_count else wp.zeros(1, dtype=float, device=model.device)
    return fill(CrbArgs, data, tendons, m=tree_model(model, tree), tendon_armature=armature)


def compute_mass_matrix(model, tree, tendons, data, span):
    """Composite rigid-body inertias and each articulation's dense joint-space mass matrix (with the fixed
    tendons' armature)."""
    args = crb_args(model, tree, tendons, data)
    wp.launch(_crb_kernel, dim=span[1], device=model.device, inputs=[span[0], args])


@wp.func
def _gyro_midpoint(inertia_b: wp.mat33, w_b: wp.vec3, dt: float):
    """Midpoint angular velocity of a torque-free body over dt: w_m = (w + w') / 2 with
    I (w' - w) = -dt w_m x I w_m (implicit midpoint, conserves energy and |L|), by fixed-point iteration."""
    inv_i = wp.inverse(inertia_b)
    w_m = w_b
    for _it in range(12):
        w_new = w_b - dt * (inv_i * wp.cross(w_m, inertia_b * w_m))
        w_m = 0.5 * (w_b + w_new)
    return w_m


@wp.struct
class RneArgs:
    """Arrays and scalars of the bias-force (recursive Newton-Euler) pass of one articulation."""

    # Model:
    m: TreeModel
    gravity: wp.array(dtype=wp.vec3)
    gyro_midpoint: int
    dt: float
    # Data in:
    body_q: wp.array(dtype=wp.transform)
    body_f: wp.array(dtype=wp.spatial_vector)
    joint_qd: wp.array(dtype=float)
    art_ref: wp.array(dtype=wp.vec3)
    body_cvel: wp.array(dtype=wp.spatial_vector)
    body_h: wp.array(dtype=wp.vec3)
    body_rot_inertia: wp.array(dtype=wp.mat33)
    cdof: wp.array(dtype=wp.spatial_vector)
    cdof_dot: wp.array(dtype=wp.spatial_vector)
    # Data out:
    body_cacc_out: wp.array(dtype=wp.spatial_vector)
    body_cfrc_out: wp.array(dtype=wp.spatial_vector)
    qfrc_bias_out: wp.array(dtype=float)


@wp.func(inline=True)
def _joint_dof_end(j: int, a: int, m: TreeModel):
    """One past the last DOF of joint j of tree a."""
    if j + 1 < m.articulation_start[a + 1]:
        return m.joint_qd_start[j + 1]
    return m.art_dof_start[a + 1]


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def rne_forward(j: int, a: int, args: RneArgs):
    """Acceleration (qdd = 0) and net force of joint j's child body (needs its parent's acceleration: root
    to leaves); gravity enters as a base acceleration -g (RBDA sec. 5.3)."""
    body_cacc = args.body_cacc_out
    c = item(args.m.joint_child, j)
    p = item(args.m.joint_parent, j)
    acc = wp.spatial_vector(-args.gravity[args.m.art_world[a]], wp.vec3(0.0))
    if p >= 0:
        if item(args.m.body_art, p) == a:
            acc = item(body_cacc, p)
    d = int(item(args.m.joint_qd_start, j))
    d_end = _joint_dof_end(j, a, args.m)
    while d < d_end:
        acc = acc + item(args.cdof_dot, d) * args.joint_qd[d]
        d += 1
    item_set(body_cacc, c, acc)
    m = item(args.m.body_mass, c)
    h = item(args.body_h, c)
    ri = item(args.body_rot_inertia, c)
    v = item(args.body_cvel, c)
    f = inertia_mul(m, h, ri, acc) + cross_force(v, inertia_mul(m, h, ri, v))
    x_wc = item(args.body_q, c)
    com = wp.transform_point(x_wc, item(args.m.body_com, c))
    jt = args.m.joint_type[j]
    if args.gyro_midpoint != 0 and (jt == JOINT_FREE or jt == JOINT_DISTANCE):
        rot = wp.transform_get_rotation(x_wc)
        w = wp.spatial_bottom(v)
        ib = args.m.body_inertia[c]
        w_m = _gyro_midpoint(ib, wp.quat_rotate_inv(rot, w), args.dt)
        gyro_m = wp.quat_rotate(rot, wp.cross(w_m, ib * w_m))
        iw = wp.quat_to_matrix(rot) * ib * wp.transpose(wp.quat_to_matrix(rot))
        f = f + wp.spatial_vector(wp.vec3(0.0), gyro_m - wp.cross(w, iw * w))
    fe = args.body_f[c]
    fl = wp.spatial_top(fe)
    r = item(args.art_ref, a)
    f = f - wp.spatial_vector(fl, wp.spatial_bottom(fe) + wp.cross(com - r, fl))
    item_set(args.body_cfrc_out, c, f)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def rne_backward(j: int, a: int, args: RneArgs):
    """Add the forces of the child bodies of joint j's child (complete: leaves first) into it, in
    descending joint order, and project the total on joint j's DOFs (their bias forces)."""
    cfrc = args.body_cfrc_out
    c = item(args.m.joint_child, j)
    k = int(item(args.m.body_child_start, c))
    k_end = item(args.m.body_child_start, c + 1)
    while k < k_end:
        cc = item(args.m.joint_child, item(args.m.body_child_joint, k))
        item_set(cfrc, c, item(cfrc, c) + item(cfrc, cc))
        k += 1
    fc = item(cfrc, c)
    d = int(item(args.m.joint_qd_start, j))
    d_end = _joint_dof_end(j, a, args.m)
    while d < d_end:
        item_set(args.qfrc_bias_out, d, wp.dot(item(args.cdof, d), fc))
        d += 1


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def rne_articulation(a: int, args: RneArgs):
    """Bias forces C(q, qd) + gravity - external wrenches of articulation a (recursive Newton-Euler)."""
    j0 = args.m.articulation_start[a]
    j1 = args.m.articulation_start[a + 1]
    j = int(j0)
    while j < j1:
        rne_forward(j, a, args)
        j += 1
    jj = int(0)
    jj_end = j1 - j0
    while jj < jj_end:
        rne_backward(j1 - 1 - jj, a, args)
        jj += 1


@wp.kernel
def _rne_kernel(first: int, args: RneArgs):
    rne_articulation(wp.tid() + first, args)


def rne_args(model, tree, data, state_body_q, body_f, joint_qd, dt, gyro_midpoint=True) -> RneArgs:
    """The RneArgs of :func:`compute_bias`."""
    return fill(
        RneArgs,
        data,
        m=tree_model(model, tree),
        gravity=model.gravity,
        gyro_midpoint=int(gyro_midpoint),
        dt=float(dt),
        body_q=state_body_q,
        body_f=body_f,
        joint_qd=joint_qd,
    )


def compute_bias(model, tree, data, state_body_q, body_f, joint_qd, dt, span, gyro_midpoint=True):
    """Bias forces C(q, qd) including gravity (per world) and minus external body wrenches body_f."""
    wp.launch(
        _rne_kernel,
        dim=span[1],
        device=model.device,
        inputs=[span[0], rne_args(model, tree, data, state_body_q, body_f, joint_qd, dt, gyro_midpoint)],
    )


@wp.func
def _copy_ancestors(
    src: wp.array(dtype=wp.float64),
    dst: wp.array(dtype=wp.float64),
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    diag: wp.array(dtype=float),
    lane: int,
    lanes: int,
):
    """dst = src + diag(diag) on the ancestor entries and the diagonal of each row (the only entries
    :func:`.spatial.ltl_factor` reads and writes); rows strided over ``lanes``."""
    k = int(lane)
    while k < n:
        row = off + k * n - d0
        item_set(dst, row + d0 + k, item(src, row + d0 + k) + wp.float64(item(diag, d0 + k)))
        i = item(dof_parent, d0 + k)
        while i >= 0:
            item_set(dst, row + i, item(src, row + i))
            i = item(dof_parent, i)
        k += lanes


@wp.struct
class FactorArgs:
    """Arrays of the factorization and smooth solve of one articulation."""

    # Model:
    m: TreeModel
    dof_ten_start: wp.array(dtype=int)  # (joint_dof_count + 1,) first tendon entry of each DOF
    dof_ten_entry: wp.array(dtype=int)  # tendon Jacobian entries by DOF
    ten_jac_tendon: wp.array(dtype=int)  # tendon of each Jacobian entry
    ten_jac_start: wp.array(dtype=int)  # (tendon_count + 1,) first Jacobian entry of each tendon
    ten_jac_dof: wp.array(dtype=int)  # DOF of each Jacobian entry
    # Data in:
    mass_matrix: wp.array(dtype=wp.float64)
    dof_diag: wp.array(dtype=float)
    qfrc: wp.array(dtype=float)
    qfrc_bias: wp.array(dtype=float)
    ten_J: wp.array(dtype=float)  # tendon Jacobian entries [m/rad or -]
    ten_implicit: wp.array(dtype=float)  # (tendon_count,) J^T J weight of each tendon in M_hat [kg]
    # Data out:
    chol_out: wp.array(dtype=wp.float64)
    chol_implicit_out: wp.array(dtype=wp.float64)
    art_implicit_out: wp.array(dtype=int)
    qacc_smooth_out: wp.array(dtype=float)
    scratch: wp.array(dtype=wp.float64)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def factor_articulation(a: int, args: FactorArgs, lane: int, lanes: int):
    """Factor articulation a (and its implicit matrix where it has implicit terms) and solve its
    qacc_smooth, by the ``lanes`` lanes of a block (every lane calls it; lanes = 1: one thread): copies
    and factorizations strided over rows and ancestors (:func:`.spatial.ltl_factor`), the triangular
    solves on lane 0. Bitwise the same for any number of lanes."""
    d0 = args.m.art_dof_start[a]
    n = args.m.art_dof_start[a + 1] - d0
    off = args.m.art_mat_start[a]
    _copy_ancestors(args.mass_matrix, args.chol_out, off, n, d0, args.m.dof_parent, args.m.joint_armature, lane, lanes)
    implicit = int(0)  # every lane alike
    k = int(0)
    while k < n:
        if args.dof_diag[d0 + k] != args.m.joint_armature[d0 + k]:
            implicit = 1
        k += 1
    tendons = tendon_arts_implicit(
        d0, d0 + n, args.dof_ten_start, args.dof_ten_entry, args.ten_jac_tendon, args.ten_implicit
    )
    if tendons != 0:
        implicit = 1
    if implicit != 0:
        _copy_ancestors(
            args.mass_matrix, args.chol_implicit_out, off, n, d0, args.m.dof_parent, args.dof_diag, lane, lanes
        )
    if tendons != 0:  # each lane adds to the rows it copied
        tendon_implicit_rows(
            args.chol_implicit_out,
            off,
            n,
            d0,
            args.m.dof_parent,
            args.dof_ten_start,
            args.dof_ten_entry,
            args.ten_jac_tendon,
            args.ten_jac_start,
            args.ten_jac_dof,
            args.ten_J,
            args.ten_implicit,
            lane,
            lanes,
        )
    sync_lanes(lanes)  # the copies are whole before their factorizations
    ltl_factor_pair(args.chol_out, args.chol_implicit_out, implicit, off, n, d0, args.m.dof_parent, lane, lanes)
    if lane == 0:
        k = int(0)
        while k < n:
            args.scratch[d0 + k] = wp.float64(args.qfrc[d0 + k]) - wp.float64(args.qfrc_bias[d0 + k])
            k += 1
        ltl_solve_t(args.chol_out, off, n, d0, args.m.dof_parent, args.scratch, d0)
        ltl_solve(args.chol_out, off, n, d0, args.m.dof_parent, args.scratch, d0)
        k = int(0)
        while k < n:
            args.qacc_smooth_out[d0 + k] = wp.float32(args.scratch[d0 + k])
            k += 1
        args.art_implicit_out[a] = implicit


@wp.kernel
def _factor_kernel(first: int, args: FactorArgs):
    factor_articulation(wp.tid() + first, args, 0, 1)


def factor_args(model, tree, tendons, data) -> FactorArgs:
    """The FactorArgs of :func:`factor_and_solve` (``tendons``: :meth:`.tendon.TendonLayout.upload`)."""
    return fill(FactorArgs, data, tendons, m=tree_model(model, tree), scratch=data.dof_scratch)


def factor_and_solve(model, tree, tendons, data, span):
    """Factor M = L^T L (mass matrix with armature) per articulation (tree-sparse,
    :func:`.spatial.ltl_factor`) and solve for the unconstrained acceleration M^-1 (qfrc - bias), as
    MuJoCo's qacc_smooth; where a DOF has implicit terms (damping, drive gains: ``dof_diag`` beyond the
    armature; tendon damping: ``ten_implicit`` J^T J) also factor M_hat = M + dt D for the velocity-implicit
    correction of :mod:`..integrate`."""
    args = factor_args(model, tree, tendons, data)
    wp.launch(_factor_kernel, dim=span[1], device=model.device, inputs=[span[0], args])
