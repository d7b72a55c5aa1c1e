"""An MJCF keyframe named ``home`` becomes the USD's start state (free bodies placed, hinge / slide
coordinates as joint state): add_usd + forward kinematics reproduce MuJoCo's keyframe poses."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from newton_gym.assets import MjcfConverter, MjcfConverterCfg, robot_path  # noqa: E402
from newton_gym.assets.robots import robot_source_path  # noqa: E402
from newton_gym.sim import ModelBuilder, eval_fk  # noqa: E402
from newton_gym.sim.conventions import quat_wxyz_to_xyzw  # noqa: E402

ARM = """<mujoco model="arm">
<worldbody>
 <body name="base" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/>
  <body name="l1" pos="0.1 0 0"><joint name="hinge" axis="0 1 0" ref="0.2"/>
   <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
   <body name="l2" pos="0.3 0 0"><joint name="slide" type="slide" axis="1 0 0"/>
    <geom type="sphere" size="0.05"/></body>
  </body>
 </body>
</worldbody>
<keyframe>
 <key name="other" qpos="0 0 3 1 0 0 0 0 0"/>
 <key name="home" qpos="0.5 -0.2 0.7 0.9238795 0 0 0.3826834 0.8 0.15"/>
</keyframe>
</mujoco>"""


def _compare(usd_path: str, m) -> tuple[float, float]:
    builder = ModelBuilder()
    builder.add_usd(usd_path)
    model = builder.finalize("cpu")
    d = mujoco.MjData(m)
    key = m.key("home").id
    mujoco.mj_resetDataKeyframe(m, d, key)
    mujoco.mj_kinematics(m, d)
    expected = m.key_qpos[key].copy()
    expected[3:7] = quat_wxyz_to_xyzw(expected[3:7])
    state = model.state()
    eval_fk(model, model.joint_q, model.joint_qd, state)
    joint_err = float(np.abs(model.joint_q.numpy() - expected).max())
    body_err = float(np.abs(state.body_q.numpy()[:, :3] - d.xpos[1:]).max())
    return joint_err, body_err


def test_home_keyframe_is_the_start_state(tmp_path):
    xml = tmp_path / "arm.xml"
    xml.write_text(ARM)
    conv = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out")))
    joint_err, body_err = _compare(conv.usd_path, mujoco.MjModel.from_xml_string(ARM))
    assert joint_err < 1e-6 and body_err < 1e-6


@pytest.mark.parametrize("name", ["go1", "g1"])
def test_shipped_unitree_robots_start_at_home(name):
    m = mujoco.MjModel.from_xml_path(robot_source_path(name))
    joint_err, body_err = _compare(robot_path(name), m)
    assert joint_err < 1e-6 and body_err < 1e-6


def _compare_qpos0(usd_path: str, m) -> tuple[float, float]:
    """Start state of the converted USD against MuJoCo's qpos0: joint coordinates (quaternions as xyzw) and
    the positions of the bodies MuJoCo has (by name; the converter adds links between stacked joints)."""
    builder = ModelBuilder()
    builder.add_usd(usd_path)
    model = builder.finalize("cpu")
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    expected = m.qpos0.copy()
    for j in np.flatnonzero(m.jnt_type == mujoco.mjtJoint.mjJNT_FREE):
        a = int(m.jnt_qposadr[j]) + 3
        expected[a : a + 4] = quat_wxyz_to_xyzw(expected[a : a + 4])
    state = model.state()
    eval_fk(model, model.joint_q, model.joint_qd, state)
    joint_err = float(np.abs(model.joint_q.numpy() - expected).max())
    ours = {key.split("/")[-1]: i for i, key in enumerate(builder.body_key)}
    body_q = state.body_q.numpy()
    body_err = max(float(np.abs(body_q[ours[m.body(b).name], :3] - d.xpos[b]).max()) for b in range(1, m.nbody))
    return joint_err, body_err


@pytest.mark.parametrize("name", ["hopper", "walker2d", "arm"])
def test_without_a_home_keyframe_the_start_state_is_qpos0(tmp_path, name):
    """MuJoCo starts every joint at its ``ref`` (qpos0): Gymnasium's Hopper and Walker2d put their root
    slide at ref 1.25 m, so a start at 0 would drop them 1.25 m into the floor."""
    import os

    import gymnasium

    if name == "arm":  # the arm's hinge has ref 0.2; without keyframes
        xml = tmp_path / "arm.xml"
        xml.write_text(ARM.split("<keyframe>")[0] + "</mujoco>")
        path = str(xml)
    else:
        path = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", f"{name}.xml")
    m = mujoco.MjModel.from_xml_path(path)
    assert np.abs(m.qpos0).max() > 0.1  # the case this is about: a non-zero ref
    conv = MjcfConverter(MjcfConverterCfg(asset_path=path, usd_dir=str(tmp_path / "out")))
    joint_err, body_err = _compare_qpos0(conv.usd_path, m)
    assert joint_err < 1e-6 and body_err < 1e-6
