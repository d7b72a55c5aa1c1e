"""Test utility: build a ModelBuilder from a compiled ``mujoco.MjModel``.

Reads MuJoCo's compiled values (body_pos / quat, body_mass / inertia / ipos / iquat, jnt_axis / range,
geom type / size / pos / quat, site pos / quat, tendon_* / wrap_*, actuator gear / ctrlrange), so the solver
can be compared with MuJoCo on exactly the same model. It is not the package's MJCF importer: it supports the
subset the solver tests use (hinge, slide, ball and free joints; plane, heightfield, sphere, capsule, ellipsoid,
box, cylinder and mesh geoms (a mesh keeps MuJoCo's compiled vertices and faces, so its convex hull is MuJoCo's
unless maxhullvert reduced it); sites; fixed tendons and spatial tendons through sites only (a wrapping geom or
a pulley raises ImportFailedError); actuators on joints and tendons) and reproduces MuJoCo's collision filter
(contype / conaffinity, same weld group, parent-child weld groups, <exclude>) with explicit filter pairs.

A body with joints j1 .. jn (n > 1, e.g. gymnasium's humanoid hips and shoulders) hangs from its
parent through n - 1 massless links posed like the body (as newton_gym's own MJCF importer does,
:mod:`newton_gym.assets.mujoco_extract`): j1 joins the parent to the first link, ..., jn joins the
last link to the body. Each joint keeps its own anchor (jnt_pos) in the body frame, so the links
compose exactly as MuJoCo's mj_kinematics applies a body's joints one after another, and joint and
DOF order stay MuJoCo's.
"""

from __future__ import annotations

import numpy as np

from newton_gym.errors import ImportFailedError
from newton_gym.sim.builder import ModelBuilder
from newton_gym.sim.heightfield import Heightfield
from newton_gym.sim.mesh import Mesh
from newton_gym.sim.shape_config import ShapeConfig
from newton_gym.sim.types import GeoType
from newton_gym.solvers.smooth.passive import DYN_TYPES, Actuators

__all__ = ["builder_from_mujoco", "mujoco_qpos_to_joint_q"]

_GEOM = {
    0: GeoType.PLANE,
    1: GeoType.HFIELD,
    2: GeoType.SPHERE,
    3: GeoType.CAPSULE,
    4: GeoType.ELLIPSOID,
    5: GeoType.CYLINDER,
    6: GeoType.BOX,
    7: GeoType.MESH,
}


def _wxyz_to_xyzw(q):
    return np.array([q[1], q[2], q[3], q[0]], dtype=np.float64)


def _quat_mat(q_wxyz):
    import mujoco

    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, np.asarray(q_wxyz, dtype=np.float64))
    return r.reshape(3, 3)


def _quat_mul(a_wxyz, b_wxyz):
    import mujoco

    out = np.zeros(4)
    mujoco.mju_mulQuat(out, np.asarray(a_wxyz, dtype=np.float64), np.asarray(b_wxyz, dtype=np.float64))
    return out


def _add_body(b, m, body, parent_link, pose):
    """The body's link and its joints to its parent (a fixed joint when it has none), through n - 1
    massless links, added first, for n > 1 joints (module docstring). Returns (link, joint indices in
    MuJoCo's order)."""
    import mujoco

    pos, quat = m.body_pos[body], m.body_quat[body]
    jn, ja = int(m.body_jntnum[body]), int(m.body_jntadr[body])
    if jn > 1 and mujoco.mjtJoint.mjJNT_FREE in [int(t) for t in m.jnt_type[ja : ja + jn]]:
        raise ImportFailedError(
            f"MjModel body {body} ({mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, body)}): a free "
            f"joint among several joints is not supported by this test utility"
        )
    chain = [b.add_link(xform=pose, mass=0.0, com=np.zeros(3), inertia=np.zeros((3, 3))) for _ in range(jn - 1)]
    r = _quat_mat(m.body_iquat[body])
    link = b.add_link(
        xform=pose,
        mass=float(m.body_mass[body]),
        com=m.body_ipos[body],
        inertia=r @ np.diag(m.body_inertia[body]) @ r.T,
    )
    if jn == 0:
        return link, [b.add_joint_fixed(parent_link, link, parent_xform=np.concatenate([pos, _wxyz_to_xyzw(quat)]))]
    joints, parent = [], parent_link
    for k, child in enumerate(chain + [link]):
        # The first joint hangs from the parent at the body's offset; the next ones from a link posed like the body.
        offset = (pos, quat) if k == 0 else (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))
        joints.append(_add_joint(b, m, ja + k, child, parent, *offset))
        parent = child
    return link, joints


def _add_joint(b, m, j, link, parent_link, pos, quat):
    """MuJoCo joint j between parent_link and link, whose frames differ by (pos, quat wxyz) at qpos0."""
    import mujoco

    jtype = int(m.jnt_type[j])
    if jtype == mujoco.mjtJoint.mjJNT_FREE:
        return b.add_joint_free(link, parent=parent_link)
    anchor = m.jnt_pos[j]
    axis = m.jnt_axis[j]
    # MuJoCo moves a hinge / slide by qpos - ref (ref = qpos0): offset the parent frame by -ref so that
    # our joint coordinate is MuJoCo's qpos.
    ref = float(m.qpos0[m.jnt_qposadr[j]]) if jtype != mujoco.mjtJoint.mjJNT_BALL else 0.0
    if jtype == mujoco.mjtJoint.mjJNT_HINGE and ref != 0.0:
        rot = np.zeros(4)
        mujoco.mju_axisAngle2Quat(rot, axis, -ref)
        quat = _quat_mul(quat, rot)
    elif jtype == mujoco.mjtJoint.mjJNT_SLIDE:
        anchor = anchor - ref * axis
    p_xf = np.concatenate([pos + _quat_mat(quat) @ anchor, _wxyz_to_xyzw(quat)])
    c_xf = np.concatenate([m.jnt_pos[j], [0, 0, 0, 1.0]])
    d = int(m.jnt_dofadr[j])
    dof = dict(
        armature=float(m.dof_armature[d]),
        damping=float(m.dof_damping[d]),
        friction_static=float(m.dof_frictionloss[d]),
        friction_dynamic=float(m.dof_frictionloss[d]),
        spring_stiffness=float(m.jnt_stiffness[j]),
    )
    if m.jnt_limited[j]:
        dof.update(limit_lower=float(m.jnt_range[j, 0]), limit_upper=float(m.jnt_range[j, 1]))
    if jtype == mujoco.mjtJoint.mjJNT_HINGE:
        return b.add_joint_revolute(parent_link, link, p_xf, c_xf, axis=tuple(m.jnt_axis[j]), **dof)
    if jtype == mujoco.mjtJoint.mjJNT_SLIDE:
        return b.add_joint_prismatic(parent_link, link, p_xf, c_xf, axis=tuple(m.jnt_axis[j]), **dof)
    return b.add_joint_ball(parent_link, link, p_xf, c_xf, armature=dof["armature"], damping=dof["damping"])


def _add_geoms(b, m, body, link, meshes):
    shapes = {}
    for g in range(int(m.body_geomadr[body]), int(m.body_geomadr[body] + m.body_geomnum[body])):
        gt = int(m.geom_type[g])
        if gt not in _GEOM:
            raise ImportFailedError(
                f"MjModel geom {g}: geom type {gt} is not supported by this test utility (supported: {sorted(_GEOM)})"
            )
        cfg = ShapeConfig(
            density=0.0,
            mu=float(m.geom_friction[g, 0]),
            mu_torsional=float(m.geom_friction[g, 1]),
            mu_rolling=float(m.geom_friction[g, 2]),
            solref=tuple(m.geom_solref[g]),
            solimp=tuple(m.geom_solimp[g]),
            margin=float(m.geom_margin[g] - m.geom_gap[g]),
            gap=float(m.geom_gap[g]),
            condim=int(m.geom_condim[g]),
            priority=int(m.geom_priority[g]),
        )
        xf = np.concatenate([m.geom_pos[g], _wxyz_to_xyzw(m.geom_quat[g])])
        size = m.geom_size[g]
        kind = _GEOM[gt]
        if kind == GeoType.MESH:
            shapes[g] = b.add_shape_mesh(link, xf, _mesh(meshes, m, int(m.geom_dataid[g])), cfg=cfg)
            continue
        if kind == GeoType.HFIELD:
            shapes[g] = b.add_shape_heightfield(link, xf, _field(meshes, m, int(m.geom_dataid[g])), cfg=cfg)
            continue
        scale = {
            GeoType.PLANE: (0.0, 0.0, 0.0),
            GeoType.SPHERE: (size[0], 0.0, 0.0),
            GeoType.CAPSULE: (size[0], size[1], 0.0),
            GeoType.CYLINDER: (size[0], size[1], 0.0),
            GeoType.BOX: tuple(size),
            GeoType.ELLIPSOID: tuple(size),
        }[kind]
        shapes[g] = b.add_shape(link, kind, xf, scale, cfg=cfg)
    return shapes


def _mesh(cache, m, k):
    """The newton_gym Mesh of MuJoCo mesh k (one per mesh in ``cache``, so geoms share it); no hull
    vertex limit (MuJoCo's default maxhullvert -1)."""
    if k not in cache:
        v0, nv = int(m.mesh_vertadr[k]), int(m.mesh_vertnum[k])
        f0, nf = int(m.mesh_faceadr[k]), int(m.mesh_facenum[k])
        cache[k] = Mesh(m.mesh_vert[v0 : v0 + nv], m.mesh_face[f0 : f0 + nf], maxhullvert=-1)
    return cache[k]


def _field(cache, m, k):
    """The newton_gym Heightfield of MuJoCo hfield k (one per hfield in ``cache``, so geoms share it)."""
    key = ("hfield", k)
    if key not in cache:
        n0 = int(m.hfield_adr[k])
        nrow, ncol = int(m.hfield_nrow[k]), int(m.hfield_ncol[k])
        data = m.hfield_data[n0 : n0 + nrow * ncol]
        cache[key] = Heightfield.from_mujoco(data, nrow, ncol, m.hfield_size[k])
    return cache[key]


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
    dof_base, tendon_base = b.joint_dof_count, b.tendon_count
    links, joints, geom_shape = {-1: -1, 0: -1}, {}, {}
    meshes = {}
    geom_shape.update(_add_geoms(b, m, 0, -1, meshes))
    for body in range(1, m.nbody):
        pose = np.concatenate([data.xpos[body], _wxyz_to_xyzw(data.xquat[body])])
        links[body], joints[body] = _add_body(b, m, body, links[int(m.body_parentid[body])], pose)
        geom_shape.update(_add_geoms(b, m, body, links[body], meshes))
    _add_articulations(b, m, joints)
    _filter_like_mujoco(b, m, geom_shape)
    sites = [
        b.add_site(links[int(m.site_bodyid[i])], np.concatenate([m.site_pos[i], _wxyz_to_xyzw(m.site_quat[i])]))
        for i in range(m.nsite)
    ]
    _add_tendons(b, m, _joint_map(m, joints), sites)
    return b, _actuators(m, dof_base, tendon_base), mujoco_qpos_to_joint_q(m, m.qpos0)


def _joint_map(m, joints) -> dict:
    """MuJoCo joint id -> our joint index (``joints``: MuJoCo body -> our joints, MuJoCo's order)."""
    out = {}
    for body, ours in joints.items():
        if int(m.body_jntnum[body]):
            ja = int(m.body_jntadr[body])
            out.update({ja + k: j for k, j in enumerate(ours)})
    return out


def _add_tendons(b, m, jmap, sites):
    """MuJoCo's fixed tendons and site-only spatial tendons, with their compiled attributes (the spring
    length as compiled: tendon_lengthspring)."""
    import mujoco

    wt = mujoco.mjtWrap
    for i in range(m.ntendon):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_TENDON, i) or f"#{i}"
        if np.any(m.tendon_stiffnesspoly[i]) or np.any(m.tendon_dampingpoly[i]):
            raise ImportFailedError(f"MjModel tendon {name}: polynomial stiffness / damping is not supported")
        adr, num = int(m.tendon_adr[i]), int(m.tendon_num[i])
        types = [int(t) for t in m.wrap_type[adr : adr + num]]
        objs = [int(o) for o in m.wrap_objid[adr : adr + num]]
        params = dict(
            key=name,
            stiffness=float(m.tendon_stiffness[i]),
            springlength=tuple(m.tendon_lengthspring[i]),
            damping=float(m.tendon_damping[i]),
            frictionloss=float(m.tendon_frictionloss[i]),
            limited=bool(m.tendon_limited[i]),
            range=tuple(m.tendon_range[i]),
            margin=float(m.tendon_margin[i]),
            solref_limit=tuple(m.tendon_solref_lim[i]),
            solimp_limit=tuple(m.tendon_solimp_lim[i]),
            solref_friction=tuple(m.tendon_solref_fri[i]),
            solimp_friction=tuple(m.tendon_solimp_fri[i]),
            armature=float(m.tendon_armature[i]),
        )
        if all(t == wt.mjWRAP_JOINT for t in types):
            b.add_tendon_fixed([jmap[o] for o in objs], m.wrap_prm[adr : adr + num], **params)
        elif all(t == wt.mjWRAP_SITE for t in types):
            b.add_tendon_spatial([sites[o] for o in objs], **params)
        else:
            kinds = sorted({wt(t).name for t in types if t != wt.mjWRAP_SITE})
            raise ImportFailedError(
                f"MjModel tendon {name}: wrapping objects {kinds} are not supported (spatial tendons through "
                "sites only: no sphere / cylinder wrapping, no pulleys)"
            )


def _add_articulations(b, m, joints):
    """One articulation per tree hanging from the world (``joints``: MuJoCo body -> its joint indices)."""
    tree = []
    for body in range(1, m.nbody + 1):
        if tree and (body == m.nbody or int(m.body_parentid[body]) == 0):
            b.add_articulation(tree, enable_self_collisions=True)
            tree = []
        if body < m.nbody:
            tree += joints[body]


def _filter_like_mujoco(b, m, geom_shape):
    """Filter every geom pair that MuJoCo would not collide: contype / conaffinity, one weld group
    (bodies welded together), weld groups that are parent and child (unless filterparent is disabled),
    and <exclude> body pairs. Massless links make a multi-joint body's real parent no joint parent, so
    the parent rule cannot be left to the builder's joint parent / child filter."""
    import mujoco

    filterparent = not (m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)
    weld, parent = m.body_weldid, m.body_parentid
    excluded = {(int(s) >> 16, int(s) & 0xFFFF) for s in m.exclude_signature}
    geoms = sorted(geom_shape)
    for i, g1 in enumerate(geoms):
        for g2 in geoms[i + 1 :]:
            b1, b2 = int(m.geom_bodyid[g1]), int(m.geom_bodyid[g2])
            w1, w2 = int(weld[b1]), int(weld[b2])
            ok = (m.geom_contype[g1] & m.geom_conaffinity[g2]) or (m.geom_contype[g2] & m.geom_conaffinity[g1])
            ok = ok and w1 != w2 and (b1, b2) not in excluded and (b2, b1) not in excluded
            if filterparent and w1 != 0 and w2 != 0 and (w1 == weld[parent[w2]] or w2 == weld[parent[w1]]):
                ok = False
            if not ok:
                b.add_shape_collision_filter_pair(geom_shape[g1], geom_shape[g2])


def _actuators(m, dof_base, tendon_base):
    import mujoco

    dofs, gear, ctrl, force, gain, bias, tendon = [], [], [], [], [], [], []
    dyn, tau, act_range, early = [], [], [], []
    dyn_names = {int(getattr(mujoco.mjtDyn, f"mjDYN_{t.upper()}")): t for t in DYN_TYPES}
    for a in range(m.nu):
        trn = int(m.actuator_trntype[a])
        if trn not in (mujoco.mjtTrn.mjTRN_JOINT, mujoco.mjtTrn.mjTRN_TENDON):
            raise ImportFailedError(
                f"MjModel actuator {a}: only joint and tendon transmissions are supported, got trntype {trn}"
            )
        if (
            int(m.actuator_gaintype[a]) != mujoco.mjtGain.mjGAIN_FIXED
            or int(m.actuator_biastype[a]) not in (mujoco.mjtBias.mjBIAS_NONE, mujoco.mjtBias.mjBIAS_AFFINE)
            or int(m.actuator_dyntype[a]) not in dyn_names
        ):
            raise ImportFailedError(f"MjModel actuator {a}: only fixed gain, affine bias, {DYN_TYPES} dynamics")
        dyn.append(dyn_names[int(m.actuator_dyntype[a])])
        tau.append(float(m.actuator_dynprm[a, 0]))
        act_range.append(m.actuator_actrange[a] if m.actuator_actlimited[a] else (0.0, 0.0))
        early.append(bool(m.actuator_actearly[a]))
        gain.append(float(m.actuator_gainprm[a, 0]))
        affine = int(m.actuator_biastype[a]) == mujoco.mjtBias.mjBIAS_AFFINE
        bias.append(m.actuator_biasprm[a, :3] if affine else np.zeros(3))
        if trn == mujoco.mjtTrn.mjTRN_TENDON:
            dofs.append(-1)
            tendon.append(tendon_base + int(m.actuator_trnid[a, 0]))
        else:
            dofs.append(dof_base + int(m.jnt_dofadr[m.actuator_trnid[a, 0]]))
            tendon.append(-1)
        gear.append(float(m.actuator_gear[a, 0]))
        ctrl.append(m.actuator_ctrlrange[a] if m.actuator_ctrllimited[a] else (0.0, 0.0))
        force.append(m.actuator_forcerange[a] if m.actuator_forcelimited[a] else (0.0, 0.0))
    return Actuators(
        np.asarray(dofs, np.int32),
        np.asarray(gear),
        np.asarray(ctrl).reshape(-1, 2),
        np.asarray(force).reshape(-1, 2),
        np.asarray(gain),
        np.asarray(bias).reshape(-1, 3),
        np.asarray(tendon, np.int32) if any(t >= 0 for t in tendon) else None,
        dyn_type=np.asarray(dyn, dtype=object),
        dyn_tau=np.asarray(tau),
        act_range=np.asarray(act_range).reshape(-1, 2),
        act_early=np.asarray(early),
    )


def mujoco_qpos_to_joint_q(m, qpos):
    """MuJoCo qpos (free / ball quaternions w, x, y, z) -> our joint_q layout (x, y, z, w)."""
    import mujoco

    q = np.asarray(qpos, dtype=np.float64).copy()
    for j in range(m.njnt):
        a = int(m.jnt_qposadr[j])
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            q[a + 3 : a + 7] = _wxyz_to_xyzw(qpos[a + 3 : a + 7])
        elif m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            q[a : a + 4] = _wxyz_to_xyzw(qpos[a : a + 4])
    return q.astype(np.float32)
