"""Equality-constraint rows of the world solve (:mod:`..solve.world`, steps 1 to 3), MuJoCo's equality
constraints: joint and tendon couplings (q1 - poly(q2), L1 - poly(L2)), connect (the anchors' separation) and
weld (separation and MuJoCo's rotation error), each row's Jacobian, violation, diagApprox and, for connect and
weld, MuJoCo 4's velocity-product term Jdot qd taken off the reference acceleration (mj_Jdotv). The shared row
machinery (Jacobian blocks, soft terms, Y = L^-T J^T) is :mod:`.assemble`'s."""

from __future__ import annotations

import warp as wp

from ...sim.types import EqType
from .assemble import body_row, clear_row, finish_row, jac_entry, set_row
from .tables import RowData, RowModel, WorldInputs

__all__ = ["equality_row_switch", "equality_row"]

wp.set_module_options({"enable_backward": False})

_JOINT = wp.constant(int(EqType.JOINT))
_TENDON_EQ = wp.constant(int(EqType.TENDON))
_WELD = wp.constant(int(EqType.WELD))


@wp.func(inline=True)
def equality_row_switch(x: int, row: int, rm: RowModel, rd: RowData):
    """1 when equality row x's constraint is enabled, else 0 with its warm start (at ``row``) cleared."""
    if rm.eq.enabled[rm.x_owner[x]]:
        return 1
    rd.force[row] = 0.0
    return 0


@wp.func(inline=True)
def _joint_equality(e: int, a: wp.vec2i, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """J of joint equality e, q1 - poly(q2) (MuJoCo joint equality), into Jacobian block ``blk``; returns
    (its violation, diagApprox: the two DOFs' inverse weights)."""
    eq = rm.eq
    approx = rm.dof_invweight[eq.joint_qd_start[eq.joint1[e]]]
    if eq.joint2[e] >= 0:
        approx += rm.dof_invweight[eq.joint_qd_start[eq.joint2[e]]]
    c = eq.polycoef[e]
    d1 = eq.joint_qd_start[eq.joint1[e]]
    q1 = inp.joint_q[eq.joint_q_start[eq.joint1[e]]]
    rd.minv_jac[jac_entry(d1, a, blk, rm)] = 1.0
    target = c[0]
    j2 = eq.joint2[e]
    if j2 >= 0:
        d2 = eq.joint_qd_start[j2]
        q2 = inp.joint_q[eq.joint_q_start[j2]]
        target = c[0] + q2 * (c[1] + q2 * (c[2] + q2 * (c[3] + q2 * c[4])))
        slope = c[1] + q2 * (2.0 * c[2] + q2 * (3.0 * c[3] + q2 * 4.0 * c[4]))
        idx = jac_entry(d2, a, blk, rm)
        rd.minv_jac[idx] = rd.minv_jac[idx] - slope
    return wp.vec2(q1 - target, approx)


@wp.func(inline=True)
def _tendon_equality(e: int, a: wp.vec2i, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """J of tendon equality e, L1 - poly(L2) (MuJoCo tendon equality): J1 - poly'(L2) J2, into Jacobian block
    ``blk``; returns (its violation, diagApprox: the two tendons' inverse weights)."""
    eq = rm.eq
    ten = rm.ten
    t1 = eq.tendon1[e]
    t2 = eq.tendon2[e]
    c = eq.polycoef[e]
    approx = ten.ten_invweight[t1]
    target = c[0]
    slope = float(0.0)
    if t2 >= 0:
        approx += ten.ten_invweight[t2]
        l2 = inp.ten_length[t2]
        target = c[0] + l2 * (c[1] + l2 * (c[2] + l2 * (c[3] + l2 * c[4])))
        slope = c[1] + l2 * (2.0 * c[2] + l2 * (3.0 * c[3] + l2 * 4.0 * c[4]))
        for k in range(ten.ten_jac_start[t2], ten.ten_jac_start[t2 + 1]):
            idx = jac_entry(ten.ten_jac_dof[k], a, blk, rm)
            rd.minv_jac[idx] = rd.minv_jac[idx] - slope * inp.ten_J[k]
    for k in range(ten.ten_jac_start[t1], ten.ten_jac_start[t1 + 1]):
        idx = jac_entry(ten.ten_jac_dof[k], a, blk, rm)
        rd.minv_jac[idx] = rd.minv_jac[idx] + inp.ten_J[k]
    return wp.vec2(inp.ten_length[t1] - target, approx)


@wp.func
def _chain_motion(b: int, rm: RowModel, inp: WorldInputs):
    """(spatial velocity, spatial velocity-product acceleration) of body b about its articulation's r: the
    sums of cdof qd and cdof_dot qd over its DOF path (the acceleration when qacc = 0, without gravity)."""
    v = wp.spatial_vector()
    acc = wp.spatial_vector()
    k = rm.tree.body_dof_last[b]
    while k >= 0:
        v = v + inp.cdof[k] * inp.joint_qd[k]
        acc = acc + inp.cdof_dot[k] * inp.joint_qd[k]
        k = rm.tree.dof_parent[k]
    return v, acc


@wp.func
def _point_bias(b: int, p: wp.vec3, rm: RowModel, inp: WorldInputs):
    """(Jdot qd of the world point p on body b: its acceleration when qacc = 0, angular velocity, angular
    Jdot qd) [m/s^2, rad/s, rad/s^2]; zeros for the world or a body that does not move."""
    if b < 0:
        return wp.vec3(0.0), wp.vec3(0.0), wp.vec3(0.0)
    ba = rm.tree.body_art[b]
    if ba < 0:
        return wp.vec3(0.0), wp.vec3(0.0), wp.vec3(0.0)
    v, acc = _chain_motion(b, rm, inp)
    lever = p - inp.art_ref[ba]
    w = wp.spatial_bottom(v)
    alpha = wp.spatial_bottom(acc)
    vp = wp.spatial_top(v) + wp.cross(w, lever)
    return wp.spatial_top(acc) + wp.cross(alpha, lever) + wp.cross(w, vp), w, alpha


@wp.func
def _pure(v: wp.vec3):
    """The quaternion (v, 0)."""
    return wp.quat(v[0], v[1], v[2], 0.0)


@wp.func
def _conj(q: wp.quat):
    """Conjugate of a quaternion of any norm."""
    return wp.quat(-q[0], -q[1], -q[2], q[3])


@wp.func
def _weld_rotation_jdot(q1: wp.quat, q2: wp.quat, rel: wp.quat, w1: wp.vec3, w2: wp.vec3, dalpha: wp.vec3):
    """Jdot qd of the weld's rotation rows (before torquescale): the time derivative of MuJoCo's rotation
    Jacobian, 0.5 vec(conj(q2) (w1 - w2, 0) q1 relpose), times qd, as MuJoCo's mj_Jdotv (the quaternions'
    derivatives 0.5 q (w, 0); ``dalpha`` the two bodies' angular Jdot qd difference)."""
    target = q1 * wp.quat_inverse(rel)
    dw = _pure(w1 - w2)
    q2_dot = _conj(0.5 * (q2 * _pure(w2)))
    target_dot = 0.5 * (q1 * _pure(w1)) * wp.quat_inverse(rel)
    inv2 = wp.quat_inverse(q2)
    total = q2_dot * dw * target + inv2 * _pure(dalpha) * target + inv2 * dw * target_dot
    return 0.5 * wp.vec3(total[0], total[1], total[2])


@wp.func
def _weld_rotation(q1: wp.quat, q2: wp.quat, rel: wp.quat):
    """MuJoCo's weld orientation error: the quaternion conj(q2) q1 relpose (relpose = conj(rel): body2 in body1),
    whose vector part is the error of the rotation rows."""
    return wp.quat_inverse(q2) * (q1 * wp.quat_inverse(rel))


@wp.func
def _weld_axis(q2: wp.quat, target: wp.quat, k: int):
    """World vector a with a . w = component k of vec(conj(q2) (w, 0) target) for any angular velocity w: the
    derivative of the error's vector part (times 2) along the bodies' relative angular velocity."""
    inv = wp.quat_inverse(q2)
    a = wp.vec3(0.0)
    for i in range(3):
        e = wp.quat(0.0, 0.0, 0.0, 0.0)
        e[i] = 1.0
        c = inv * e * target
        a[i] = c[k]
    return a


@wp.func(inline=True)
def _body_equality(e: int, s: int, a: wp.vec2i, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """J of component s of connect or weld constraint e into Jacobian block ``blk``: s < 3 the anchors'
    separation along axis s, else (weld) component s - 3 of MuJoCo's orientation error, the vector part of
    conj(q2) q1 relpose times torquescale, whose Jacobian is half its derivative (MuJoCo's). Returns (its
    violation, diagApprox: the bodies' translation or rotation inverse weights, the norm of all the
    constraint's components, at which MuJoCo evaluates the impedance, and Jdot qd, which MuJoCo 4 takes off
    the reference acceleration: the anchors' relative velocity-product acceleration along axis s, or the
    rotation rows' :func:`_weld_rotation_jdot`)."""
    eq = rm.eq
    b1 = eq.body1[e]
    b2 = eq.body2[e]
    x1 = wp.transform_identity()
    if b1 >= 0:
        x1 = inp.body_q[b1]
    x2 = wp.transform_identity()
    if b2 >= 0:
        x2 = inp.body_q[b2]
    comp = s / 3
    approx = float(0.0)
    if b1 >= 0:
        approx += rm.body_invweight[b1][comp]
    if b2 >= 0:
        approx += rm.body_invweight[b2][comp]
    p1 = wp.transform_point(x1, eq.anchor[e])
    p2 = wp.transform_point(x2, eq.anchor2[e])
    sep = p1 - p2
    norm2 = wp.dot(sep, sep)
    axis = wp.vec3(0.0)
    pos = float(0.0)
    a1, w1, alpha1 = _point_bias(b1, p1, rm, inp)
    a2, w2, alpha2 = _point_bias(b2, p2, rm, inp)
    jdot = float(0.0)
    if eq.eq_type[e] == _WELD:
        q1 = wp.transform_get_rotation(x1)
        q2 = wp.transform_get_rotation(x2)
        rel = wp.transform_get_rotation(eq.rel[e])
        ts = eq.torquescale[e]
        err = _weld_rotation(q1, q2, rel)
        rot = ts * wp.vec3(err[0], err[1], err[2])
        norm2 += wp.dot(rot, rot)
        if s >= 3:
            pos = rot[s - 3]
            axis = (0.5 * ts) * _weld_axis(q2, q1 * wp.quat_inverse(rel), s - 3)
            jdot = ts * _weld_rotation_jdot(q1, q2, rel, w1, w2, alpha1 - alpha2)[s - 3]
    if s < 3:
        pos = sep[s]
        axis[s] = 1.0
        jdot = (a1 - a2)[s]
    # comp: 0 for a position component (translation), 1 for a rotation component (angular)
    if b1 >= 0:
        body_row(b1, 1.0, p1, axis, comp, a, blk, rm, rd, inp)
    if b2 >= 0:
        body_row(b2, -1.0, p2, axis, comp, a, blk, rm, rd, inp)
    return wp.vec4(pos, approx, wp.sqrt(norm2), jdot)


@wp.func(inline=True)
def equality_row(ci: int, blk: int, rm: RowModel, rd: RowData, inp: WorldInputs):
    """Fill and finish the active equality row listed at compact index ci: component ``x_sub`` of a joint,
    tendon, connect or weld constraint."""
    eq = rm.eq
    x = rd.owner[ci]
    e = rm.x_owner[x]
    clear_row(rd, blk, rm.width)
    a = rm.x_art[x]
    err = wp.vec4(0.0)  # (violation, diagApprox, position of the impedance, Jdot qd)
    if eq.eq_type[e] == _JOINT:
        j = _joint_equality(e, a, blk, rm, rd, inp)
        err = wp.vec4(j[0], j[1], j[0], 0.0)
    elif eq.eq_type[e] == _TENDON_EQ:
        j = _tendon_equality(e, a, blk, rm, rd, inp)
        err = wp.vec4(j[0], j[1], j[0], 0.0)
    else:
        err = _body_equality(e, rm.x_sub[x], a, blk, rm, rd, inp)
    set_row(ci, a, err[1], err[0], eq.solref[e], eq.solimp[e], -1.0e30, 1.0e30, rd)
    rd.imp_pos[ci] = err[2]
    rd.cone[ci] = 0
    finish_row(ci, blk, 1.0, rm, rd, inp)
    rd.bias[ci] = rd.bias[ci] + err[3]  # aref - Jdot qd (MuJoCo 4's mj_Jdotv): J qacc - aref gains Jdot qd
