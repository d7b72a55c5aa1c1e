"""Test and benchmark utility: build a ModelBuilder from a compiled ``mujoco.MjModel``.

Reads MuJoCo's compiled values (body_pos / quat, body_mass / inertia / ipos / iquat, jnt_axis / range,
geom type / size / pos / quat, actuator gear / ctrlrange), so the solver can be compared with MuJoCo on
exactly the same model. It is not the package's MJCF importer: it supports the subset the solver tests
use (hinge, slide, ball and free joints, at most one joint per body; plane, sphere, capsule, box and
cylinder geoms; motor actuators on joints) and reproduces MuJoCo's contype / conaffinity rule with
explicit filter pairs.
"""

from __future__ import annotations

import numpy as np

from ..sim.builder import ModelBuilder
from ..sim.shape_config import ShapeConfig
from ..sim.types import GeoType
from .passive import Actuators

__all__ = ["builder_from_mujoco", "mujoco_qpos_to_joint_q"]

_GEOM = {0: GeoType.PLANE, 2: GeoType.SPHERE, 3: GeoType.CAPSULE, 5: GeoType.CYLINDER, 6: GeoType.BOX}


def _wxyz_to_xyzw(q):
    return np.array([q[1], q[2], q[3], q[0]], dtype=np.float64)


def _quat_mat(q_wxyz):
    import mujoco

    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, np.asarray(q_wxyz, dtype=np.float64))
    return r.reshape(3, 3)


def _add_joint(b, m, body, link, parent_link, world_pose):
    """The body's joint (or a fixed joint) to its parent; returns the joint index."""
    import mujoco

    pos = m.body_pos[body]
    quat = m.body_quat[body]
    jn = int(m.body_jntnum[body])
    if jn > 1:
        raise ValueError(f"body {body}: {jn} joints on one body are not supported by this test utility")
    if jn == 0:
        return b.add_joint_fixed(parent_link, link, parent_xform=np.concatenate([pos, _wxyz_to_xyzw(quat)]))
    j = int(m.body_jntadr[body])
    jtype = int(m.jnt_type[j])
    if jtype == mujoco.mjtJoint.mjJNT_FREE:
        return b.add_joint_free(link, parent=parent_link)
    anchor = m.jnt_pos[j]
    p_xf = np.concatenate([pos + _quat_mat(quat) @ anchor, _wxyz_to_xyzw(quat)])
    c_xf = np.concatenate([anchor, [0, 0, 0, 1.0]])
    d = int(m.jnt_dofadr[j])
    dof = dict(armature=float(m.dof_armature[d]), damping=float(m.dof_damping[d]),
               friction_static=float(m.dof_frictionloss[d]), friction_dynamic=float(m.dof_frictionloss[d]),
               spring_stiffness=float(m.jnt_stiffness[j]))
    if m.jnt_limited[j]:
        dof.update(limit_lower=float(m.jnt_range[j, 0]), limit_upper=float(m.jnt_range[j, 1]))
    if jtype == mujoco.mjtJoint.mjJNT_HINGE:
        return b.add_joint_revolute(parent_link, link, p_xf, c_xf, axis=tuple(m.jnt_axis[j]), **dof)
    if jtype == mujoco.mjtJoint.mjJNT_SLIDE:
        return b.add_joint_prismatic(parent_link, link, p_xf, c_xf, axis=tuple(m.jnt_axis[j]), **dof)
    return b.add_joint_ball(parent_link, link, p_xf, c_xf, armature=dof["armature"], damping=dof["damping"])


def _add_geoms(b, m, body, link):
    shapes = {}
    for g in range(int(m.body_geomadr[body]), int(m.body_geomadr[body] + m.body_geomnum[body])):
        gt = int(m.geom_type[g])
        if gt not in _GEOM:
            raise ValueError(f"geom {g}: MuJoCo geom type {gt} is not supported by this test utility")
        cfg = ShapeConfig(density=0.0, mu=float(m.geom_friction[g, 0]), mu_torsional=float(m.geom_friction[g, 1]),
                          mu_rolling=float(m.geom_friction[g, 2]), solref=tuple(m.geom_solref[g]),
                          solimp=tuple(m.geom_solimp[g]), margin=float(m.geom_margin[g] - m.geom_gap[g]), gap=float(m.geom_gap[g]),
                          condim=int(m.geom_condim[g]))
        xf = np.concatenate([m.geom_pos[g], _wxyz_to_xyzw(m.geom_quat[g])])
        size = m.geom_size[g]
        kind = _GEOM[gt]
        scale = {GeoType.PLANE: (0.0, 0.0, 0.0), GeoType.SPHERE: (size[0], 0.0, 0.0),
                 GeoType.CAPSULE: (size[0], size[1], 0.0), GeoType.CYLINDER: (size[0], size[1], 0.0),
                 GeoType.BOX: tuple(size)}[kind]
        shapes[g] = b.add_shape(link, kind, xf, scale, cfg=cfg)
    return shapes


def builder_from_mujoco(m, builder: ModelBuilder | None = None):
    """Append the bodies, joints and geoms of compiled MjModel ``m`` to a builder (new one by default).

    Returns:
        (builder, actuators, joint_q): the builder; an :class:`Actuators` for m's motor actuators with
        DOF indices relative to this copy; and the joint_q (float32) that matches m.qpos0.
    """
    import mujoco

    b = builder if builder is not None else ModelBuilder(gravity=float(m.opt.gravity[2]))
    data = mujoco.MjData(m)
    mujoco.mj_kinematics(m, data)
    dof_base, coord_base = b.joint_dof_count, b.joint_coord_count
    links, joints, geom_shape = {-1: -1, 0: -1}, [], {}
    geom_shape.update(_add_geoms(b, m, 0, -1))
    for body in range(1, m.nbody):
        pose = np.concatenate([data.xpos[body], _wxyz_to_xyzw(data.xquat[body])])
        r = _quat_mat(m.body_iquat[body])
        link = b.add_link(xform=pose, mass=float(m.body_mass[body]), com=m.body_ipos[body],
                          inertia=r @ np.diag(m.body_inertia[body]) @ r.T)
        links[body] = link
        joints.append(_add_joint(b, m, body, link, links[int(m.body_parentid[body])], pose))
        geom_shape.update(_add_geoms(b, m, body, link))
    _add_articulations(b, m, joints)
    _filter_contype(b, m, geom_shape)
    return b, _actuators(m, dof_base), _joint_q(m, b, coord_base)


def _add_articulations(b, m, joints):
    """One articulation per tree hanging from the world."""
    start = 0
    for body in range(2, m.nbody + 1):
        if body == m.nbody or int(m.body_parentid[body]) == 0:
            b.add_articulation(joints[start:body - 1], enable_self_collisions=True)
            start = body - 1


def _filter_contype(b, m, geom_shape):
    """Filter every geom pair that MuJoCo's contype / conaffinity rule would not collide."""
    geoms = sorted(geom_shape)
    for i, g1 in enumerate(geoms):
        for g2 in geoms[i + 1:]:
            ok = (m.geom_contype[g1] & m.geom_conaffinity[g2]) or (m.geom_contype[g2] & m.geom_conaffinity[g1])
            if not ok:
                b.add_shape_collision_filter_pair(geom_shape[g1], geom_shape[g2])


def _actuators(m, dof_base):
    import mujoco

    dofs, gear, ctrl, force = [], [], [], []
    for a in range(m.nu):
        if int(m.actuator_trntype[a]) != mujoco.mjtTrn.mjTRN_JOINT:
            raise ValueError(f"actuator {a}: only joint transmissions are supported")
        dofs.append(dof_base + int(m.jnt_dofadr[m.actuator_trnid[a, 0]]))
        gear.append(float(m.actuator_gear[a, 0]))
        ctrl.append(m.actuator_ctrlrange[a] if m.actuator_ctrllimited[a] else (0.0, 0.0))
        force.append(m.actuator_forcerange[a] if m.actuator_forcelimited[a] else (0.0, 0.0))
    return Actuators(np.asarray(dofs, np.int32), np.asarray(gear), np.asarray(ctrl).reshape(-1, 2),
                     np.asarray(force).reshape(-1, 2))


def mujoco_qpos_to_joint_q(m, qpos):
    """MuJoCo qpos (free / ball quaternions w, x, y, z) -> our joint_q layout (x, y, z, w)."""
    import mujoco

    q = np.asarray(qpos, dtype=np.float64).copy()
    for j in range(m.njnt):
        a = int(m.jnt_qposadr[j])
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            q[a + 3:a + 7] = _wxyz_to_xyzw(qpos[a + 3:a + 7])
        elif m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = _wxyz_to_xyzw(qpos[a:a + 4])
    return q.astype(np.float32)


def _joint_q(m, b, coord_base):
    del b, coord_base
    return mujoco_qpos_to_joint_q(m, m.qpos0)
