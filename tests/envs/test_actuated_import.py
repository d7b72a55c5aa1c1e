"""MJCF servo actuators through the whole user path (MJCF -> USD -> add_usd -> the env's Simulation)
against MuJoCo C on the same MJCF: a position servo acted as a zero-torque motor before."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
import torch

pytest.importorskip("trimesh")

from newton_gym.assets import MjcfConverter, MjcfConverterCfg  # noqa: E402
from newton_gym.envs.settings import SimCfg  # noqa: E402
from newton_gym.envs.simulation import Simulation  # noqa: E402
from newton_gym.sim import ModelBuilder  # noqa: E402

ARM = """<mujoco model="arm"><option timestep="0.005" integrator="implicitfast"/>
<worldbody>
 <body name="l1" pos="0 0 1">
  <joint name="j1" type="hinge" axis="0 1 0" damping="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05" mass="1"/>
  <body name="l2" pos="0.5 0 0">
   <joint name="j2" type="hinge" axis="0 1 0" armature="0.02"/>
   <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04" mass="0.5"/>
  </body>
 </body>
</worldbody>
<actuator>
 <position joint="j1" kp="120" kv="6" forcerange="-20 20"/>
 <velocity joint="j2" kv="2" ctrlrange="-3 3"/>
</actuator>
</mujoco>"""


def _follow_mujoco(tmp_path, text: str, name: str, ctrl_of_step):
    """(MuJoCo's qpos (300, nq), ours (300, 2 worlds, nq), the actuator records) for the MJCF ``text`` converted,
    imported and stepped in the env's Simulation (2 worlds, the same controls) beside MuJoCo C."""
    xml = tmp_path / f"{name}.xml"
    xml.write_text(text)
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out"))).usd_path
    robot = ModelBuilder()
    actuators = robot.add_usd(usd)["actuators"]
    sim = Simulation(robot, actuators, num_envs=2, cfg=SimCfg(sim_dt=0.005, frame_skip=1, capture=False))
    m = mujoco.MjModel.from_xml_string(text)
    d = mujoco.MjData(m)
    ref, ours = [], []
    for i in range(300):
        ctrl = ctrl_of_step(i)
        d.ctrl[:] = ctrl
        mujoco.mj_step(m, d)
        ref.append(d.qpos.copy())
        sim.ctrl.copy_(torch.tensor([ctrl, ctrl], dtype=torch.float32))
        sim.step()
        ours.append(sim.views.joint_q.numpy().copy())
    return np.array(ref), np.array(ours), actuators


def test_position_and_velocity_servos_from_mjcf_follow_mujoco(tmp_path):
    ref, ours, actuators = _follow_mujoco(
        tmp_path, ARM, "arm", lambda i: [0.9 * np.sin(0.02 * i), 2.0 * np.cos(0.03 * i)]
    )
    assert [a["bias_type"] for a in actuators] == ["affine", "affine"]
    assert np.ptp(ref[:, 0]) > 0.5
    np.testing.assert_allclose(ours[:, 0], ref, atol=2e-3)
    np.testing.assert_array_equal(ours[:, 0], ours[:, 1])


def test_unsupported_actuator_is_skipped_with_a_warning(tmp_path):
    xml = tmp_path / "arm.xml"
    xml.write_text(
        ARM.replace(
            '<velocity joint="j2" kv="2" ctrlrange="-3 3"/>', '<general joint="j2" dyntype="user" dynprm="0.1"/>'
        )
    )
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out"))).usd_path
    with pytest.warns(UserWarning, match="dynType 'user' is not supported"):
        actuators = ModelBuilder().add_usd(usd)["actuators"]
    assert len(actuators) == 1


def test_inspect_reports_servo_gains_and_their_attributes(tmp_path):
    from newton_gym.usd.report import inspect_usd

    xml = tmp_path / "arm.xml"
    xml.write_text(ARM)
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out"))).usd_path
    text = inspect_usd(usd)
    assert "kp 120 (mjc:gainPrm[0]), kv 6 (-mjc:biasPrm[2]), force_range (-20, 20) (mjc:forceRange)" in text
    assert "ctrl_range unlimited" in text  # the position servo has no control range


TENDON_ARM = ARM.replace(
    "<actuator>",
    '<tendon><fixed name="t"><joint joint="j1" coef="1"/><joint joint="j2" coef="0.5"/></fixed></tendon>\n<actuator>',
).replace('<velocity joint="j2" kv="2" ctrlrange="-3 3"/>', '<motor tendon="t" gear="2" ctrlrange="-5 5"/>')


def test_a_tendon_motor_from_mjcf_acts_in_every_world_like_mujoco(tmp_path):
    """The env's Simulation offsets a tendon actuator's tendon into each world (its DOF is -1): two worlds
    under the same controls step equal and follow MuJoCo C."""
    ref, ours, actuators = _follow_mujoco(
        tmp_path, TENDON_ARM, "tendon_arm", lambda i: [0.9 * np.sin(0.02 * i), 4.0 * np.cos(0.03 * i)]
    )
    assert actuators[1]["dof"] == -1 and actuators[1]["tendon"] == 0
    assert np.ptp(ref[:, 1]) > 0.3
    np.testing.assert_allclose(ours[:, 0], ref, atol=2e-3)
    np.testing.assert_array_equal(ours[:, 0], ours[:, 1])
