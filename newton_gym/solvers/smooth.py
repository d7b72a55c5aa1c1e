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

from ..sim.stage_args import pack
from ..sim.wpmath import (
    JOINT_BALL,
    JOINT_D6,
    JOINT_DISTANCE,
    JOINT_FREE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    d6_axis_world,
)
from .spatial import cross_force, cross_motion, inertia_about, inertia_mul, ltl_factor, ltl_solve, ltl_solve_t

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


@wp.func
def _parent_twist(p: int, body_cvel: wp.array(dtype=wp.spatial_vector)):
    if p >= 0:
        return body_cvel[p]
    return wp.spatial_vector()


@wp.struct
class SubspaceArgs:
    """Arrays of the subspace pass of one articulation (model tables, inputs, outputs)."""

    # Model:
    articulation_start: wp.array(dtype=int)
    joint_type: wp.array(dtype=int)
    joint_parent: wp.array(dtype=int)
    joint_child: wp.array(dtype=int)
    joint_X_p: wp.array(dtype=wp.transform)
    joint_X_c: wp.array(dtype=wp.transform)
    joint_q_start: wp.array(dtype=int)
    joint_qd_start: wp.array(dtype=int)
    joint_dof_dim: wp.array(dtype=wp.vec2i)
    joint_axis: wp.array(dtype=wp.vec3)
    body_mass: wp.array(dtype=float)
    body_com: wp.array(dtype=wp.vec3)
    body_inertia: wp.array(dtype=wp.mat33)
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


@wp.func
def subspace_articulation(a: int, args: SubspaceArgs):
    j0 = args.articulation_start[a]
    j1 = args.articulation_start[a + 1]
    if j0 == j1:
        return
    root = args.joint_child[j0]
    r = wp.transform_point(args.body_q[root], args.body_com[root])
    args.art_ref_out[a] = r
    for j in range(j0, j1):
        c = args.joint_child[j]
        p = args.joint_parent[j]
        x_wc = args.body_q[c]
        rot = wp.quat_to_matrix(wp.transform_get_rotation(x_wc))
        com = wp.transform_point(x_wc, args.body_com[c])
        v_c = _twist_about(args.body_qd[c], com, r)
        args.body_cvel_out[c] = v_c
        m = args.body_mass[c]
        args.body_h_out[c] = m * (com - r)
        args.body_rot_inertia_out[c] = inertia_about(m, com - r, rot * args.body_inertia[c] * wp.transpose(rot))
        v_p = _parent_twist(p, args.body_cvel_out)
        x_wpj = _parent_pose(p, args.body_q) * args.joint_X_p[j]
        q_pj = wp.transform_get_rotation(x_wpj)
        x_wcj = x_wc * args.joint_X_c[j]
        lever = wp.transform_get_translation(x_wcj) - r
        _joint_subspace(
            args.joint_type[j],
            args.joint_q_start[j],
            args.joint_qd_start[j],
            args.joint_dof_dim[j],
            args.joint_axis,
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
        for k in range(dim[0]):
            s = wp.spatial_vector(wp.quat_rotate(q_pj, joint_axis[ds + k]), wp.vec3(0.0))
            cdof_out[ds + k] = s
            cdof_dot_out[ds + k] = cross_motion(v, s)
            v = v + s * joint_qd[ds + k]
        for k in range(dim[1]):
            d = ds + dim[0] + k
            b = wp.quat_rotate(q_pj, d6_axis_world(joint_axis, joint_q, ds + dim[0], qs + dim[0], k))
            s = wp.spatial_vector(wp.cross(lever, b), b)
            cdof_out[d] = s
            cdof_dot_out[d] = cross_motion(v, s)
            v = v + s * joint_qd[d]


def subspace_args(model, data, body_q, body_qd, joint_q, joint_qd) -> SubspaceArgs:
    """The SubspaceArgs of :func:`compute_subspaces`."""
    return pack(
        SubspaceArgs,
        [
            model.articulation_start,
            model.joint_type,
            model.joint_parent,
            model.joint_child,
            model.joint_X_p,
            model.joint_X_c,
            model.joint_q_start,
            model.joint_qd_start,
            model.joint_dof_dim,
            model.joint_axis,
            model.body_mass,
            model.body_com,
            model.body_inertia,
            body_q,
            body_qd,
            joint_q,
            joint_qd,
            data.art_ref,
            data.body_cvel,
            data.body_h,
            data.body_rot_inertia,
            data.cdof,
            data.cdof_dot,
        ],
    )


def compute_subspaces(model, data, body_q, body_qd, joint_q, joint_qd, span):
    """Reference points, body twists and inertias about them, motion subspaces and their derivatives."""
    wp.launch(
        _subspace_kernel,
        dim=span[1],
        device=model.device,
        inputs=[span[0], subspace_args(model, data, body_q, body_qd, joint_q, joint_qd)],
    )


@wp.func
def _inertia_about_ref64(m: float, com_body: wp.vec3, inertia_body: wp.mat33, x_wc: wp.transform, r: wp.vec3d):
    """(h, I) of a body about r in float64 (the float32 ``body_h`` / ``body_rot_inertia`` of the bias pass
    round m |c - r|^2, which reaches 250 kg m^2 at the tip of a 50 m chain, by more than a small link's own
    inertia, and M stops being positive definite)."""
    rot = wp.mat33d(wp.quat_to_matrix(wp.transform_get_rotation(x_wc)))
    d = wp.vec3d(wp.transform_point(x_wc, com_body)) - r
    md = wp.float64(m)
    inertia = rot * wp.mat33d(inertia_body) * wp.transpose(rot)
    inertia = inertia + md * (wp.dot(d, d) * wp.identity(3, dtype=wp.float64) - wp.outer(d, d))
    return md * d, inertia


@wp.struct
class CrbArgs:
    """Arrays of the composite-inertia / mass-matrix pass of one articulation."""

    # Model:
    articulation_start: wp.array(dtype=int)
    joint_parent: wp.array(dtype=int)
    joint_child: wp.array(dtype=int)
    joint_qd_start: wp.array(dtype=int)
    body_mass: wp.array(dtype=float)
    body_com: wp.array(dtype=wp.vec3)
    body_inertia: wp.array(dtype=wp.mat33)
    body_art: wp.array(dtype=int)
    art_dof_start: wp.array(dtype=int)
    art_mat_start: wp.array(dtype=int)
    dof_parent: wp.array(dtype=int)
    dof_art: wp.array(dtype=int)
    dof_body: wp.array(dtype=int)
    # Data in:
    body_q: wp.array(dtype=wp.transform)
    art_ref: wp.array(dtype=wp.vec3)
    cdof: wp.array(dtype=wp.spatial_vector)
    # Data out:
    crb_m_out: wp.array(dtype=wp.float64)
    crb_h_out: wp.array(dtype=wp.vec3d)
    crb_i_out: wp.array(dtype=wp.mat33d)
    mass_matrix_out: wp.array(dtype=wp.float64)


@wp.func
def crb_composite(a: int, args: CrbArgs):
    """Composite inertias of the bodies of articulation a, about its reference point."""
    j0 = args.articulation_start[a]
    j1 = args.articulation_start[a + 1]
    if j0 == j1:
        return
    r = wp.vec3d(args.art_ref[a])
    for j in range(j0, j1):
        c = args.joint_child[j]
        args.crb_m_out[c] = wp.float64(args.body_mass[c])
        h, inertia = _inertia_about_ref64(args.body_mass[c], args.body_com[c], args.body_inertia[c], args.body_q[c], r)
        args.crb_h_out[c] = h
        args.crb_i_out[c] = inertia
    # Composite inertias, leaves to root (Featherstone RBDA sec. 6.2, CRBA), and M in float64: summed over a
    # long chain (about a reference point metres away) they are large, and M's small eigenvalues (the
    # distal links' inertias) are lost to float32 rounding (see :func:`.spatial.ltl_factor`).
    for jj in range(j1 - j0):
        j = j1 - 1 - jj
        c = args.joint_child[j]
        p = args.joint_parent[j]
        if p >= 0:
            if args.body_art[p] == a:
                args.crb_m_out[p] = args.crb_m_out[p] + args.crb_m_out[c]
                args.crb_h_out[p] = args.crb_h_out[p] + args.crb_h_out[c]
                args.crb_i_out[p] = args.crb_i_out[p] + args.crb_i_out[c]


@wp.func
def mass_matrix_row(i: int, args: CrbArgs):
    """The entries of DOF i's articulation's M between i and each of its ancestor DOFs k (and k = i):
    M_ik = S_k . (I^c_body(i) S_i) (RBDA alg. 6.2), written at (i, k) and (k, i). Only ancestor pairs are
    written; the other entries of a tree's M are zero and stay as allocated. Needs the composite inertias
    (:func:`crb_composite`) of the articulation; rows of different DOFs write disjoint entries."""
    a = args.dof_art[i]
    c = args.dof_body[i]
    d0 = args.art_dof_start[a]
    n = args.art_dof_start[a + 1] - d0
    off = args.art_mat_start[a]
    f = inertia_mul(args.crb_m_out[c], args.crb_h_out[c], args.crb_i_out[c], wp.spatial_vectord(args.cdof[i]))
    k = i
    while k >= 0:
        val = wp.dot(wp.spatial_vectord(args.cdof[k]), f)
        args.mass_matrix_out[off + (i - d0) * n + (k - d0)] = val
        args.mass_matrix_out[off + (k - d0) * n + (i - d0)] = val
        k = args.dof_parent[k]


@wp.func
def crb_articulation(a: int, args: CrbArgs):
    """Composite inertias and the mass matrix of articulation a."""
    crb_composite(a, args)
    for i in range(args.art_dof_start[a], args.art_dof_start[a + 1]):
        mass_matrix_row(i, args)


@wp.kernel
def _crb_kernel(first: int, args: CrbArgs):
    crb_articulation(wp.tid() + first, args)


def crb_args(model, tree, data) -> CrbArgs:
    """The CrbArgs of :func:`compute_mass_matrix`."""
    return pack(
        CrbArgs,
        [
            model.articulation_start,
            model.joint_parent,
            model.joint_child,
            model.joint_qd_start,
            model.body_mass,
            model.body_com,
            model.body_inertia,
            tree["body_art"],
            tree["art_dof_start"],
            tree["art_mat_start"],
            tree["dof_parent"],
            tree["dof_art"],
            tree["dof_body"],
            data.body_q,
            data.art_ref,
            data.cdof,
            data.crb_m,
            data.crb_h,
            data.crb_i,
            data.mass_matrix,
        ],
    )


def compute_mass_matrix(model, tree, data, span):
    """Composite rigid-body inertias and each articulation's dense joint-space mass matrix."""
    wp.launch(_crb_kernel, dim=span[1], device=model.device, inputs=[span[0], crb_args(model, tree, data)])


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
    articulation_start: wp.array(dtype=int)
    joint_type: wp.array(dtype=int)
    joint_parent: wp.array(dtype=int)
    joint_child: wp.array(dtype=int)
    joint_qd_start: wp.array(dtype=int)
    body_mass: wp.array(dtype=float)
    body_com: wp.array(dtype=wp.vec3)
    body_inertia: wp.array(dtype=wp.mat33)
    body_art: wp.array(dtype=int)
    art_dof_start: wp.array(dtype=int)
    art_world: wp.array(dtype=int)
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


@wp.func
def rne_articulation(a: int, args: RneArgs):
    j0 = args.articulation_start[a]
    j1 = args.articulation_start[a + 1]
    if j0 == j1:
        return
    r = args.art_ref[a]
    g = args.gravity[args.art_world[a]]
    # Recursive Newton-Euler with qdd = 0; args.gravity enters as a base acceleration -g (RBDA sec. 5.3).
    for j in range(j0, j1):
        c = args.joint_child[j]
        p = args.joint_parent[j]
        acc = wp.spatial_vector(-g, wp.vec3(0.0))
        if p >= 0:
            if args.body_art[p] == a:
                acc = args.body_cacc_out[p]
        de = args.art_dof_start[a + 1]
        if j + 1 < j1:
            de = args.joint_qd_start[j + 1]
        for d in range(args.joint_qd_start[j], de):
            acc = acc + args.cdof_dot[d] * args.joint_qd[d]
        args.body_cacc_out[c] = acc
        m = args.body_mass[c]
        h = args.body_h[c]
        ri = args.body_rot_inertia[c]
        v = args.body_cvel[c]
        f = inertia_mul(m, h, ri, acc) + cross_force(v, inertia_mul(m, h, ri, v))
        x_wc = args.body_q[c]
        com = wp.transform_point(x_wc, args.body_com[c])
        if args.gyro_midpoint != 0 and (args.joint_type[j] == JOINT_FREE or args.joint_type[j] == JOINT_DISTANCE):
            rot = wp.transform_get_rotation(x_wc)
            w = wp.spatial_bottom(v)
            ib = args.body_inertia[c]
            w_m = _gyro_midpoint(ib, wp.quat_rotate_inv(rot, w), args.dt)
            gyro_m = wp.quat_rotate(rot, wp.cross(w_m, ib * w_m))
            iw = wp.quat_to_matrix(rot) * ib * wp.transpose(wp.quat_to_matrix(rot))
            f = f + wp.spatial_vector(wp.vec3(0.0), gyro_m - wp.cross(w, iw * w))
        fe = args.body_f[c]
        fl = wp.spatial_top(fe)
        f = f - wp.spatial_vector(fl, wp.spatial_bottom(fe) + wp.cross(com - r, fl))
        args.body_cfrc_out[c] = f
    for jj in range(j1 - j0):
        j = j1 - 1 - jj
        c = args.joint_child[j]
        p = args.joint_parent[j]
        de = args.art_dof_start[a + 1]
        if j + 1 < j1:
            de = args.joint_qd_start[j + 1]
        fc = args.body_cfrc_out[c]
        for d in range(args.joint_qd_start[j], de):
            args.qfrc_bias_out[d] = wp.dot(args.cdof[d], fc)
        if p >= 0:
            if args.body_art[p] == a:
                args.body_cfrc_out[p] = args.body_cfrc_out[p] + fc


@wp.kernel
def _rne_kernel(first: int, args: RneArgs):
    rne_articulation(wp.tid() + first, args)


def rne_args(model, tree, data, state_body_q, body_f, joint_qd, dt, gyro_midpoint=True) -> RneArgs:
    """The RneArgs of :func:`compute_bias`."""
    return pack(
        RneArgs,
        [
            model.articulation_start,
            model.joint_type,
            model.joint_parent,
            model.joint_child,
            model.joint_qd_start,
            model.body_mass,
            model.body_com,
            model.body_inertia,
            tree["body_art"],
            tree["art_dof_start"],
            tree["art_world"],
            model.gravity,
            int(gyro_midpoint),
            float(dt),
            state_body_q,
            body_f,
            joint_qd,
            data.art_ref,
            data.body_cvel,
            data.body_h,
            data.body_rot_inertia,
            data.cdof,
            data.cdof_dot,
            data.body_cacc,
            data.body_cfrc,
            data.qfrc_bias,
        ],
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
):
    """dst = src + diag(diag) on the ancestor entries and the diagonal of each row (the only entries
    :func:`.spatial.ltl_factor` reads and writes)."""
    for k in range(n):
        row = off + k * n - d0
        dst[row + d0 + k] = src[row + d0 + k] + wp.float64(diag[d0 + k])
        i = dof_parent[d0 + k]
        while i >= 0:
            dst[row + i] = src[row + i]
            i = dof_parent[i]


@wp.struct
class FactorArgs:
    """Arrays of the factorization and smooth solve of one articulation."""

    # Model:
    art_dof_start: wp.array(dtype=int)
    art_mat_start: wp.array(dtype=int)
    dof_parent: wp.array(dtype=int)
    joint_armature: wp.array(dtype=float)
    # Data in:
    mass_matrix: wp.array(dtype=wp.float64)
    dof_diag: wp.array(dtype=float)
    qfrc: wp.array(dtype=float)
    qfrc_bias: wp.array(dtype=float)
    # Data out:
    chol_out: wp.array(dtype=wp.float64)
    chol_implicit_out: wp.array(dtype=wp.float64)
    art_implicit_out: wp.array(dtype=int)
    qacc_smooth_out: wp.array(dtype=float)
    scratch: wp.array(dtype=wp.float64)


@wp.func
def factor_articulation(a: int, args: FactorArgs):
    d0 = args.art_dof_start[a]
    n = args.art_dof_start[a + 1] - d0
    off = args.art_mat_start[a]
    _copy_ancestors(args.mass_matrix, args.chol_out, off, n, d0, args.dof_parent, args.joint_armature)
    implicit = int(0)
    for k in range(n):
        args.scratch[d0 + k] = wp.float64(args.qfrc[d0 + k]) - wp.float64(args.qfrc_bias[d0 + k])
        if args.dof_diag[d0 + k] != args.joint_armature[d0 + k]:
            implicit = 1
    ltl_factor(args.chol_out, off, n, d0, args.dof_parent)
    ltl_solve_t(args.chol_out, off, n, d0, args.dof_parent, args.scratch, d0)
    ltl_solve(args.chol_out, off, n, d0, args.dof_parent, args.scratch, d0)
    for k in range(n):
        args.qacc_smooth_out[d0 + k] = wp.float32(args.scratch[d0 + k])
    args.art_implicit_out[a] = implicit
    if implicit != 0:
        _copy_ancestors(args.mass_matrix, args.chol_implicit_out, off, n, d0, args.dof_parent, args.dof_diag)
        ltl_factor(args.chol_implicit_out, off, n, d0, args.dof_parent)


@wp.kernel
def _factor_kernel(first: int, args: FactorArgs):
    factor_articulation(wp.tid() + first, args)


def factor_args(model, tree, data) -> FactorArgs:
    """The FactorArgs of :func:`factor_and_solve`."""
    return pack(
        FactorArgs,
        [
            tree["art_dof_start"],
            tree["art_mat_start"],
            tree["dof_parent"],
            model.joint_armature,
            data.mass_matrix,
            data.dof_diag,
            data.qfrc,
            data.qfrc_bias,
            data.chol,
            data.chol_implicit,
            data.art_implicit,
            data.qacc_smooth,
            data.dof_scratch,
        ],
    )


def factor_and_solve(model, tree, data, span):
    """Factor M = L^T L (mass matrix with armature) per articulation (tree-sparse,
    :func:`.spatial.ltl_factor`) and solve for the unconstrained acceleration M^-1 (qfrc - bias), as
    MuJoCo's qacc_smooth; where a DOF has implicit terms (damping, drive gains: ``dof_diag`` beyond the
    armature) also factor M_hat = M + dt D for the velocity-implicit correction of :mod:`.forward`."""
    wp.launch(_factor_kernel, dim=span[1], device=model.device, inputs=[span[0], factor_args(model, tree, data)])
