"""Equality constraints end to end against MuJoCo C: MJCF (or URDF) -> converter -> USD -> ``add_usd``.

Two oracles:

* Kinematic (solver-free): at random configurations, the residual of every converted constraint, computed
  from the builder's equality table as the model documents it (connect: anchor on body1, second anchor
  where the first sits at the initial poses; weld: relpose = body2's pose in body1's frame; joint: q1 -
  poly(q2)), equals MuJoCo's ``efc_pos`` at the same body poses (connect, weld between bodies, to the
  world and between sites, joint couplings with refs, URDF ``<mimic>``).
* Dynamic: ``SolverGeneralized`` stepped beside MuJoCo on the source file at the same dt (implicitfast,
  Newton) for 0.5 s: every body within 1e-3 m of MuJoCo's, and the constraint residual (distance of the
  connect points, weld position / rotation error, q1 - poly(q2)) within 5 times MuJoCo's. Cases: (a) a
  damped four-bar closed by a connect; (b) welds; (c) quadratic joint couplings (hinge-hinge with refs,
  hinge-slide, and an inactive one that must stay off); (d) a two-finger gripper from a URDF whose right
  finger follows the left through ``<mimic>`` (MuJoCo's URDF compiler makes it a joint equality).

The undamped four-bar (10 rad/s) and the swinging welds need MuJoCo 4's velocity-product term: the rows'
reference acceleration less Jdot qd (mj_Jdotv). The worst differences are printed by ``pytest -s``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
Usd = pytest.importorskip("pxr.Usd")
from pxr import UsdPhysics  # noqa: E402

from newton_gym.assets import MjcfConverter, MjcfConverterCfg, UrdfConverter, UrdfConverterCfg  # noqa: E402
from newton_gym.errors import AssetWarning  # noqa: E402
from newton_gym.sim import ModelBuilder  # noqa: E402
from newton_gym.solvers import SolverGeneralized  # noqa: E402

DT, SECONDS = 0.002, 0.5
BODY_ATOL = 1e-3  # [m]
RESIDUAL_FACTOR = 5.0  # our worst constraint residual against MuJoCo's: the same order
_DEFAULTS = '<default><geom contype="0" conaffinity="0" density="500"/></default>'


def fourbar(damping: float) -> str:
    """Crank (0.2 m) and coupler (0.5 m) in one tree, rocker (0.4 m) in another, 0.5 m apart; the connect
    closes the loop at the coupler's tip, which starts on the rocker's. Gravity swings the crank down."""
    hinge = f'type="hinge" axis="0 1 0" damping="{damping}"'
    return f"""<mujoco model="fourbar">
<option timestep="{DT}" integrator="implicitfast"/>{_DEFAULTS}
<worldbody>
 <body name="crank" pos="0 0 1">
  <joint name="a" {hinge}/>
  <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/>
  <body name="coupler" pos="0.2 0 0">
   <joint name="b" {hinge}/>
   <geom type="capsule" fromto="0 0 0 0.3 0 -0.4" size="0.02"/>
  </body>
 </body>
 <body name="rocker" pos="0.5 0 1">
  <joint name="d" {hinge}/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.02"/>
 </body>
</worldbody>
<equality><connect name="close" body1="coupler" body2="rocker" anchor="0.3 0 -0.4" solref="0.01 1"/></equality>
</mujoco>"""


WELDS = f"""<mujoco model="welds">
<option timestep="{DT}" integrator="implicitfast"/>{_DEFAULTS}
<worldbody>
 <body name="held" pos="0 -1 1" euler="0 0 20"><freejoint/><geom type="box" size="0.1 0.05 0.05"/></body>
 <body name="a" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.05"/></body>
 <body name="b" pos="0.3 0.05 1.1" euler="10 0 0"><freejoint/><geom type="sphere" size="0.06"/></body>
 <body name="arm" pos="0 1 1">
  <joint name="swing" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
  <site name="tip" pos="0.3 0 0" euler="0 0 30"/>
 </body>
 <body name="payload" pos="0.3 1 0.95" euler="0 0 30"><freejoint/>
  <geom type="box" size="0.04 0.04 0.04"/><site name="hook" pos="0 0 0.05"/>
 </body>
</worldbody>
<equality>
 <weld name="to_world" body1="held" solref="0.02 1"/>
 <weld name="pair" body1="a" body2="b" relpose="0.25 0 0.05 1 0 0 0" anchor="0.02 0 0"/>
 <weld name="sites" site1="hook" site2="tip" torquescale="1"/>
</equality>
</mujoco>"""

COUPLINGS = f"""<mujoco model="couplings">
<option timestep="{DT}" integrator="implicitfast"/>{_DEFAULTS}
<worldbody>
 <body name="leader" pos="0 0 1">
  <joint name="h2" type="hinge" axis="0 1 0" ref="10"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
 </body>
 <body name="follower" pos="0 0.5 1">
  <joint name="h1" type="hinge" axis="0 1 0" ref="-5"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/>
 </body>
 <body name="carriage" pos="0 1 1" euler="0 30 0">
  <joint name="s" type="slide" axis="1 0 0" ref="0.02"/>
  <geom type="box" size="0.05 0.05 0.05"/>
 </body>
 <body name="flap" pos="0 1.5 1">
  <joint name="h3" type="hinge" axis="1 0 0"/>
  <geom type="capsule" fromto="0 0 0 0 0.2 0" size="0.02"/>
 </body>
</worldbody>
<equality>
 <joint name="quad" joint1="h1" joint2="h2" polycoef="0.05 0.5 0.8 0 0"/>
 <joint name="mixed" joint1="h3" joint2="s" polycoef="0.1 2 -3 0 0" solimp="0.95 0.99 0.001 0.5 2"/>
 <joint name="off" joint1="h2" joint2="s" polycoef="0 10 0 0 0" active="false"/>
</equality>
</mujoco>"""

# Tendon equalities (dm_control's quadruped couples its legs' tendons so): a quadratic coupling of two fixed
# tendons over hinges with refs, a spatial tendon (a string through sites) held at its qpos0 length plus 2 cm,
# and a switched-off one.
TENDON_COUPLINGS = f"""<mujoco model="tendon_couplings">
<option timestep="{DT}" integrator="implicitfast"/>{_DEFAULTS}
<worldbody>
 <site name="top" pos="0 1 1.6"/>
 <body name="a" pos="0 0 1">
  <joint name="ha" type="hinge" axis="0 1 0" ref="5" damping="0.01"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
  <body name="a2" pos="0.3 0 0">
   <joint name="ha2" type="hinge" axis="0 1 0"/>
   <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/>
  </body>
 </body>
 <body name="b" pos="0 0.5 1">
  <joint name="hb" type="hinge" axis="0 1 0" ref="-10"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/>
 </body>
 <body name="c" pos="0 1 1">
  <joint name="hc" type="hinge" axis="1 0 0"/>
  <geom type="capsule" fromto="0 0 0 0 0.3 0" size="0.02"/>
  <site name="tip" pos="0 0.3 0"/>
 </body>
</worldbody>
<tendon>
 <fixed name="lead"><joint joint="ha" coef="0.5"/><joint joint="ha2" coef="-0.3"/></fixed>
 <fixed name="follow"><joint joint="hb" coef="1"/></fixed>
 <spatial name="string"><site site="top"/><site site="tip"/></spatial>
</tendon>
<equality>
 <tendon name="quad" tendon1="follow" tendon2="lead" polycoef="0.02 1.5 0.6 0 0"/>
 <tendon name="held" tendon1="string" polycoef="0.02 0 0 0 0" solref="0.05 1"/>
 <tendon name="off" tendon1="lead" tendon2="string" polycoef="0 3 0 0 0" active="false"/>
</equality>
</mujoco>"""

GRIPPER = """<?xml version="1.0"?>
<robot name="gripper">
  <link name="palm">
    <inertial><mass value="1.0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="left">
    <inertial><origin xyz="0 0 -0.05"/><mass value="0.3"/>
      <inertia ixx="0.0003" ixy="0" ixz="0" iyy="0.0003" iyz="0" izz="0.0001"/></inertial>
  </link>
  <link name="right">
    <inertial><origin xyz="0 0 -0.05"/><mass value="0.1"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.00005"/></inertial>
  </link>
  <joint name="left_slide" type="prismatic"><parent link="palm"/><child link="left"/>
    <origin xyz="0.04 0 -0.05" rpy="0 0.2 0"/><axis xyz="1 0 0"/>
    <limit lower="-0.2" upper="0.2" effort="10" velocity="1"/></joint>
  <joint name="right_slide" type="prismatic"><parent link="palm"/><child link="right"/>
    <origin xyz="-0.04 0 -0.05" rpy="0 0.2 0"/><axis xyz="1 0 0"/>
    <limit lower="-0.2" upper="0.2" effort="10" velocity="1"/>
    <mimic joint="left_slide" multiplier="-1" offset="0.01"/></joint>
</robot>
"""


def _convert_mjcf(tmp_path, text, name):
    path = tmp_path / f"{name}.xml"
    path.write_text(text)
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out"))).usd_path
    return mujoco.MjModel.from_xml_string(text), usd


def _convert_urdf(tmp_path, text):
    path = tmp_path / "gripper.urdf"
    path.write_text(text)
    usd = UrdfConverter(UrdfConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out"), fix_base=True)).usd_path
    m = mujoco.MjModel.from_xml_string(text)  # MuJoCo's URDF compiler: the root link is welded to the world
    m.opt.timestep, m.opt.integrator = DT, mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    return m, usd


def _root(m) -> str:
    return "/" + m.names[: m.names.index(b"\0")].decode()


def _eq_path(m, k: int) -> str:
    """Prim path of MuJoCo equality k: its name, or "<kind>_<index>" for an unnamed one (URDF mimic)."""
    kind = {0: "connect", 1: "weld", 2: "joint", 3: "tendon"}[int(m.eq_type[k])]
    return f"{_root(m)}/equalities/{m.eq(k).name or f'{kind}_{k}'}"


def _import(usd):
    builder = ModelBuilder()
    result = builder.add_usd(usd)
    return builder, result


# ------------------------------------------------------------------------------------ quaternions
def _wxyz(q_xyzw):
    return np.array([q_xyzw[3], q_xyzw[0], q_xyzw[1], q_xyzw[2]])


def _qmul(a, b):
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, np.asarray(a, float), np.asarray(b, float))
    return out


def _qconj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def _rotate(q, v):
    out = np.zeros(3)
    mujoco.mju_rotVecQuat(out, np.asarray(v, float), np.asarray(q, float))
    return out


# ------------------------------------------------------------------- kinematic oracle (no solver)
def _model_residual(builder, e, poses, joint_q, ten_len):
    """MuJoCo's efc_pos of builder equality ``e`` as the model documents it, at body poses ``poses``
    (builder body index -> (position, quaternion w, x, y, z); -1 the world), joint values ``joint_q``
    (builder joint index -> coordinate) and tendon lengths ``ten_len`` (builder tendon index -> length)."""
    te, tb = builder.tables["equality"], builder.tables["body"]
    kind = int(te.value("type", e))
    if kind == 3:  # tendon: L1 - poly(L2)
        c = np.asarray(te.value("polycoef", e))
        t2 = int(te.value("tendon2", e))
        length2 = ten_len[t2] if t2 >= 0 else 0.0
        return np.array([ten_len[int(te.value("tendon1", e))] - np.polyval(c[::-1], length2)])
    if kind == 2:  # joint: q1 - poly(q2)
        c = np.asarray(te.value("polycoef", e))
        j2 = int(te.value("joint2", e))
        q2 = joint_q[j2] if j2 >= 0 else 0.0
        return np.array([joint_q[int(te.value("joint1", e))] - np.polyval(c[::-1], q2)])
    b1, b2 = int(te.value("body1", e)), int(te.value("body2", e))
    (p1, q1), (p2, q2) = poses[b1], poses[b2]
    anchor = np.asarray(te.value("anchor", e), float)
    if kind == 0:  # connect: the second anchor is where the first sits at the initial poses
        x1 = tb.value("q", b1) if b1 >= 0 else np.array([0, 0, 0, 0, 0, 0, 1.0])
        x2 = tb.value("q", b2) if b2 >= 0 else np.array([0, 0, 0, 0, 0, 0, 1.0])
        world = x1[:3] + _rotate(_wxyz(x1[3:]), anchor)
        anchor2 = _rotate(_qconj(_wxyz(x2[3:])), world - x2[:3])
        return p1 + _rotate(q1, anchor) - p2 - _rotate(q2, anchor2)
    rel = np.asarray(te.value("relpose", e), float)  # body2's pose in body1's frame
    rel_q = _wxyz(rel[3:])
    on_body2 = _rotate(_qconj(rel_q), anchor - rel[:3])  # the anchor's point on body2, in body2's frame
    position = p1 + _rotate(q1, anchor) - p2 - _rotate(q2, on_body2)
    rotation = _qmul(_qmul(_qconj(q2), q1), rel_q)
    rotation *= np.sign(rotation[0]) or 1.0
    return np.concatenate([position, float(te.value("torquescale", e)) * rotation[1:]])


def _kinematic_errors(m, builder, result, seed=0, states=5):
    """Worst |ours - MuJoCo's efc_pos| per equality name over random configurations."""
    root = _root(m)
    body_of = {result["path_body_map"][f"{root}/{m.body(b).name}"]: b for b in range(1, m.nbody)}
    names = {m.joint(j).name for j in range(m.njnt)}
    joint_of = {
        i: m.joint(p.rsplit("/", 1)[1]).id for p, i in result["path_joint_map"].items() if p.rsplit("/", 1)[1] in names
    }
    tendon_of = {i: m.tendon(p.rsplit("/", 1)[1]).id for p, i in result.get("path_tendon_map", {}).items()}
    rng = np.random.default_rng(seed)
    worst = {}
    for _ in range(states):
        d = mujoco.MjData(m)
        d.qpos[:] = m.qpos0 + 0.3 * rng.standard_normal(m.nq)
        mujoco.mj_normalizeQuat(m, d.qpos)
        mujoco.mj_forward(m, d)
        poses = {i: (d.xpos[b].copy(), d.xquat[b].copy()) for i, b in body_of.items()}
        poses[-1] = (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))
        joint_q = {i: float(d.qpos[m.jnt_qposadr[j]]) for i, j in joint_of.items()}
        ten_len = {i: float(d.ten_length[t]) for i, t in tendon_of.items()}
        for k in range(m.neq):
            rows = np.nonzero((d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY) & (d.efc_id == k))[0]
            if len(rows) == 0:  # inactive
                continue
            e = result["path_equality_map"][_eq_path(m, k)]
            ours, theirs = _model_residual(builder, e, poses, joint_q, ten_len), d.efc_pos[rows]
            if len(rows) == 6 and int(m.eq_objtype[k]) == mujoco.mjtObj.mjOBJ_SITE:
                # MuJoCo expresses a site weld's rotation error in site2's frame, the model in body2's:
                # the same rotation, so compare its size
                ours, theirs = (
                    np.append(ours[:3], np.linalg.norm(ours[3:])),
                    np.append(theirs[:3], np.linalg.norm(theirs[3:])),
                )
            error = float(np.abs(ours - theirs).max())
            worst[_eq_path(m, k)] = max(worst.get(_eq_path(m, k), 0.0), error)
    return worst


@pytest.mark.parametrize("case", ["fourbar", "welds", "couplings", "tendon_couplings", "gripper"])
def test_converted_constraints_have_mujocos_residual_at_random_poses(tmp_path, case):
    if case == "gripper":
        m, usd = _convert_urdf(tmp_path, GRIPPER)
    else:
        text = {"fourbar": fourbar(0.0), "welds": WELDS, "couplings": COUPLINGS, "tendon_couplings": TENDON_COUPLINGS}
        text = text[case]
        m, usd = _convert_mjcf(tmp_path, text, case)
    builder, result = _import(usd)
    assert len(result["path_equality_map"]) == m.neq
    worst = _kinematic_errors(m, builder, result)
    print(f"\n{case}: worst kinematic residual error {worst}")
    assert set(worst) == {_eq_path(m, k) for k in range(m.neq) if m.eq_active0[k]}
    assert max(worst.values()) < 2e-6, worst  # float32 frames in the USD


# ---------------------------------------------------------------------------- dynamic oracle
def _run(m, usd, residual):
    """Step both sides for SECONDS; returns (worst body distance [m], our residuals, MuJoCo's) per step."""
    builder, result = _import(usd)
    model = builder.finalize("cpu")
    root = _root(m)
    ours_of = {m.body(b).name: result["path_body_map"][f"{root}/{m.body(b).name}"] for b in range(1, m.nbody)}
    mj_ids = np.array([m.body(name).id for name in ours_of])
    our_ids = np.array(list(ours_of.values()))
    solver = SolverGeneralized(model, iterations=100)
    s0, s1 = model.state(), model.state()
    d = mujoco.MjData(m)
    worst, ours, theirs = 0.0, [], []
    for _ in range(round(SECONDS / DT)):
        solver.step(s0, s1, None, DT)
        s0, s1 = s1, s0
        mujoco.mj_step(m, d)
        mujoco.mj_kinematics(m, d)  # poses of the new qpos, as body_q (mj_step leaves the previous step's)
        body_q = s0.body_q.numpy().astype(np.float64)
        worst = max(worst, float(np.abs(body_q[our_ids, :3] - d.xpos[mj_ids]).max()))
        poses = {name: (body_q[i, :3], _wxyz(body_q[i, 3:])) for name, i in ours_of.items()}
        starts = model.joint_q_start.numpy()
        our_q = s0.joint_q.numpy().astype(np.float64)
        joints = {p.rsplit("/", 1)[1]: our_q[starts[i]] for p, i in result["path_joint_map"].items()}
        # tendon lengths: both sides' are those at the last step's start
        our_len = solver.data.ten_length.numpy().astype(np.float64)
        tendons = {p.rsplit("/", 1)[1]: our_len[i] for p, i in result.get("path_tendon_map", {}).items()}
        ours.append(residual(m, poses, joints, tendons))
        mj_poses = {m.body(b).name: (d.xpos[b], d.xquat[b]) for b in range(1, m.nbody)}
        mj_joints = {m.joint(j).name: d.qpos[m.jnt_qposadr[j]] for j in range(m.njnt)}
        theirs.append(residual(m, mj_poses, mj_joints, {m.tendon(t).name: d.ten_length[t] for t in range(m.ntendon)}))
    return worst, np.array(ours), np.array(theirs), d


def _mujoco_residuals(m, poses, joints, tendons):
    """|MuJoCo's constraint residual| per active equality component group, from body poses (name ->
    (position, quaternion w, x, y, z)), joint values (name -> qpos) and tendon lengths (name -> length):
    connect distance; weld position distance and rotation angle [rad]; joint |q1 - ref1 - poly(q2 - ref2)|;
    tendon |L1 - L1_0 - poly(L2 - L2_0)|."""
    world = (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))
    out = []
    for e in range(m.neq):
        if not m.eq_active0[e]:
            continue
        data = m.eq_data[e]
        kind = int(m.eq_type[e])
        if kind == mujoco.mjtEq.mjEQ_JOINT:
            j1, j2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            r1, r2 = m.qpos0[m.jnt_qposadr[j1]], m.qpos0[m.jnt_qposadr[j2]]
            x = joints[m.joint(j2).name] - r2
            out.append(abs(joints[m.joint(j1).name] - r1 - np.polyval(data[:5][::-1], x)))
            continue
        if kind == mujoco.mjtEq.mjEQ_TENDON:
            t1, t2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            x = tendons[m.tendon(t2).name] - m.tendon_length0[t2] if t2 >= 0 else 0.0
            poly = np.polyval(data[:5][::-1], x) if t2 >= 0 else data[0]
            out.append(abs(tendons[m.tendon(t1).name] - m.tendon_length0[t1] - poly))
            continue
        if int(m.eq_objtype[e]) == mujoco.mjtObj.mjOBJ_SITE:
            s1, s2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            b1, b2 = int(m.site_bodyid[s1]), int(m.site_bodyid[s2])
            f1, f2 = (m.site_pos[s1], m.site_quat[s1]), (m.site_pos[s2], m.site_quat[s2])
        elif kind == mujoco.mjtEq.mjEQ_CONNECT:
            b1, b2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            f1, f2 = (data[0:3], world[1]), (data[3:6], world[1])
        else:
            b1, b2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            f1, f2 = (data[3:6], data[6:10]), (data[0:3], world[1])
        (p1, q1), (p2, q2) = (poses[m.body(b).name] if b else world for b in (b1, b2))
        w1, w2 = p1 + _rotate(q1, f1[0]), p2 + _rotate(q2, f2[0])
        out.append(float(np.linalg.norm(w1 - w2)))
        if kind == mujoco.mjtEq.mjEQ_WELD:
            dq = _qmul(_qconj(_qmul(q2, f2[1])), _qmul(q1, f1[1]))
            out.append(2.0 * float(np.arccos(min(1.0, abs(dq[0])))))
    return out


def _check(case, worst, ours, theirs, moved):
    print(
        f"\n{case}: worst body distance {worst:.2e} m; worst residuals ours {np.round(ours.max(axis=0), 7)}, "
        f"MuJoCo {np.round(theirs.max(axis=0), 7)}"
    )
    assert moved, "the bodies must really move for the comparison to mean anything"
    assert worst < BODY_ATOL, worst
    np.testing.assert_array_less(ours.max(axis=0), RESIDUAL_FACTOR * theirs.max(axis=0) + 1e-6)


def _moved(m, d, joint, angle=0.3) -> bool:
    adr = m.joint(joint).qposadr[0]
    return abs(d.qpos[adr] - m.qpos0[adr]) > angle


def test_connect_closes_a_damped_four_bar_like_mujoco(tmp_path):
    m, usd = _convert_mjcf(tmp_path, fourbar(0.03), "fourbar")
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    _check("connect four-bar (damped)", worst, ours, theirs, _moved(m, d, "a", 1.0))


def test_connect_closes_a_fast_four_bar_like_mujoco(tmp_path):
    m, usd = _convert_mjcf(tmp_path, fourbar(0.0), "fourbar")
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    _check("connect four-bar (undamped)", worst, ours, theirs, _moved(m, d, "a", 1.0))


def test_welds_to_the_world_between_free_bodies_and_between_sites_like_mujoco(tmp_path):
    m, usd = _convert_mjcf(tmp_path, WELDS, "welds")
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    assert theirs[0][2] > 0.04  # the pair starts 10 cm from its relpose and is pulled in
    _check("weld", worst, ours, theirs, _moved(m, d, "swing"))


SLOW_WELDS = f"""<mujoco model="slow_welds">
<option timestep="{DT}" integrator="implicitfast"/>{_DEFAULTS}
<worldbody>
 <body name="held" pos="0.05 -1 1.02" euler="0 0 25"><freejoint/><geom type="box" size="0.1 0.05 0.05"/></body>
 <body name="a" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.05"/></body>
 <body name="b" pos="0.27 0.02 1.08" euler="15 0 5"><freejoint/><geom type="sphere" size="0.06"/></body>
</worldbody>
<equality>
 <weld name="to_world" body1="held" anchor="0.05 -1 1.02" solref="0.3 3" torquescale="0.6"/>
 <weld name="pair" body1="a" body2="b" relpose="0.25 0 0.05 1 0 0 0" anchor="0.02 0 0" solref="0.3 3"/>
</equality>
</mujoco>"""


def test_slow_welds_pull_in_and_sag_like_mujoco(tmp_path):
    """Overdamped welds (time constant 0.3 s, damping ratio 3) with their anchors at the bodies: one holds a body
    to the world (torquescale 0.6) as gravity pulls it, one pulls a pair 4 cm and 15 degrees off its relpose
    back. Slow, with short levers, so MuJoCo's Jdot qdot term is small: this checks the weld rows themselves
    (relpose direction, MuJoCo's rotation error and half Jacobian, torquescale, impedance at the norm of the six
    components): 4.9e-7 m from MuJoCo C over 0.5 s."""
    m, usd = _convert_mjcf(tmp_path, SLOW_WELDS, "slow_welds")
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    assert theirs[0][3] > 0.2  # the pair starts 15 degrees off
    _check("slow welds", worst, ours, theirs, True)


def test_joint_couplings_with_quadratic_polynomials_like_mujoco(tmp_path):
    m, usd = _convert_mjcf(tmp_path, COUPLINGS, "couplings")
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    _check("joint coupling", worst, ours, theirs, _moved(m, d, "h2") and _moved(m, d, "s", 0.02))


def test_tendon_couplings_like_mujoco(tmp_path):
    """Tendon equalities: the follower's fixed tendon tracks a quadratic of the leader's, and the spatial string
    is pulled from its qpos0 length to 2 cm longer and held there as the arm swings."""
    m, usd = _convert_mjcf(tmp_path, TENDON_COUPLINGS, "tendon_couplings")
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    assert theirs[0][1] > 0.01  # the string starts 2 cm from its target length
    _check("tendon coupling", worst, ours, theirs, _moved(m, d, "ha") and _moved(m, d, "hb"))


def test_urdf_mimic_fingers_follow_like_mujoco(tmp_path):
    m, usd = _convert_urdf(tmp_path, GRIPPER)
    assert m.neq == 1 and m.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT  # MuJoCo's URDF compiler turns <mimic> into it
    assert list(m.eq_data[0][:2]) == [0.01, -1.0]
    worst, ours, theirs, d = _run(m, usd, _mujoco_residuals)
    _check("urdf mimic", worst, ours, theirs, _moved(m, d, "left_slide", 0.02))


# ------------------------------------------------------------------------------- USD round trip
ROUND_TRIP = f"""<mujoco model="params">
<option timestep="{DT}"/>{_DEFAULTS}
<worldbody>
 <body name="a" pos="0 0 1"><joint name="ha" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.05"/>
  <site name="sa" pos="0.1 0 0"/></body>
 <body name="b" pos="0.5 0 1"><joint name="hb" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.05"/>
  <site name="sb" pos="-0.1 0 0"/></body>
 <body name="c" pos="1 0 1"><joint name="sc" type="slide" axis="0 0 1"/><geom type="sphere" size="0.05"/></body>
 <body name="free" pos="2 0 1"><freejoint/><geom type="sphere" size="0.05"/></body>
</worldbody>
<tendon><fixed name="t"><joint joint="ha" coef="1"/></fixed></tendon>
<equality>
 <connect name="c1" body1="a" body2="b" anchor="0.25 0 0" solref="0.03 0.8" solimp="0.8 0.9 0.01 0.4 3" active="false"/>
 <weld name="w1" body1="free" torquescale="0.5" solref="-500 -20"/>
 <weld name="w2" site1="sa" site2="sb" active="true"/>
 <joint name="j1" joint1="sc" joint2="hb" polycoef="0.01 0.2 0.3 0 0" solref="0.05 1.5"/>
 <joint name="j2" joint1="ha" polycoef="0.4 0 0 0 0"/>
 <tendon name="tie" tendon1="t"/>
</equality>
</mujoco>"""


def test_solref_solimp_active_and_torquescale_round_trip_through_the_usd(tmp_path):
    path = tmp_path / "params.xml"
    path.write_text(ROUND_TRIP)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        usd = MjcfConverter(MjcfConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out"))).usd_path
    m = mujoco.MjModel.from_xml_string(ROUND_TRIP)
    stage = Usd.Stage.Open(usd)
    builder, result = _import(usd)
    te = builder.tables["equality"]
    written = list(range(m.neq))
    assert set(result["path_equality_map"]) == {f"/params/equalities/{m.eq(k).name}" for k in written}
    for k in written:
        path_k = f"/params/equalities/{m.eq(k).name}"
        prim, e = stage.GetPrimAtPath(path_k), result["path_equality_map"][path_k]
        np.testing.assert_allclose(prim.GetAttribute("mjc:solref").Get(), m.eq_solref[k])
        np.testing.assert_allclose(prim.GetAttribute("mjc:solimp").Get(), m.eq_solimp[k])
        np.testing.assert_allclose(te.value("solref", e), m.eq_solref[k], rtol=1e-6)
        np.testing.assert_allclose(te.value("solimp", e), m.eq_solimp[k], rtol=1e-6)
        assert bool(te.value("enabled", e)) == bool(m.eq_active0[k]), m.eq(k).name
        if int(m.eq_type[k]) in (int(mujoco.mjtEq.mjEQ_JOINT), int(mujoco.mjtEq.mjEQ_TENDON)):
            assert prim.GetAttribute("newton:equality:active").Get() == bool(m.eq_active0[k])
        else:
            assert prim.GetAttribute("physics:jointEnabled").Get() == bool(m.eq_active0[k])
            assert prim.GetAttribute("physics:excludeFromArticulation").Get()
        if m.eq_type[k] == mujoco.mjtEq.mjEQ_WELD:
            assert prim.GetAttribute("mjc:torqueScale").Get() == pytest.approx(m.eq_data[k][10])
            assert te.value("torquescale", e) == pytest.approx(m.eq_data[k][10])
    assert stage.GetPrimAtPath("/params/equalities/c1").IsA(UsdPhysics.SphericalJoint)
    j1 = stage.GetPrimAtPath("/params/equalities/j1")
    assert j1.GetAttribute("newton:equality:type").Get() == "joint"
    assert [str(t) for t in j1.GetRelationship("newton:equality:joint2").GetTargets()] == ["/params/joints/hb"]
    # the USD says q1 [m] = sum c_k q2^k with q2 in degrees; the builder holds it in radians
    usd_coef = np.asarray(j1.GetAttribute("newton:equality:polycoef").Get())
    np.testing.assert_allclose(usd_coef, [0.01, 0.2 * np.pi / 180, 0.3 * (np.pi / 180) ** 2, 0, 0], rtol=1e-9)
    np.testing.assert_allclose(
        te.value("polycoef", result["path_equality_map"]["/params/equalities/j1"]), [0.01, 0.2, 0.3, 0, 0]
    )
    j2 = result["path_equality_map"]["/params/equalities/j2"]
    assert te.value("joint2", j2) == -1 and te.value("polycoef", j2)[0] == pytest.approx(0.4)
    # the tendon tie: L_t held at its qpos0 length (MuJoCo's default polycoef, c0 = 0)
    tie = result["path_equality_map"]["/params/equalities/tie"]
    assert te.value("tendon1", tie) == result["path_tendon_map"]["/params/tendons/t"]
    assert te.value("tendon2", tie) == -1
    assert te.value("polycoef", tie)[0] == pytest.approx(m.tendon_length0[0])
    dropped = [str(w.message) for w in record if issubclass(w.category, AssetWarning) and "dropped" in str(w.message)]
    assert not any("<equality" in text for text in dropped), dropped


def test_a_coupling_beyond_float32_in_usd_units_is_an_asset_error_naming_the_file(tmp_path):
    """Degrees scale a hinge follower's coefficients by 57.3: 1e37 becomes 5.7e38, beyond float32."""
    from newton_gym.assets import AssetError

    text = ROUND_TRIP.replace('polycoef="0.01 0.2 0.3 0 0"', 'polycoef="0 0 0 0 1e37"').replace(
        'joint1="sc" joint2="hb"', 'joint1="ha" joint2="sc"'
    )
    path = tmp_path / "params.xml"
    path.write_text(text)
    with pytest.raises(AssetError, match="/params/equalities/j1") as info:
        MjcfConverter(MjcfConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out")))
    assert info.value.path == str(path)
    assert not (tmp_path / "out").exists()
