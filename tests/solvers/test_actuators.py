"""MuJoCo joint actuators beyond motors (position, velocity, general affine) against MuJoCo C under
implicitfast: the same model, time step and controls give the same trajectory."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import model_from_xml, run

import newton_gym as ng
from newton_gym.errors import ModelBuildError
from newton_gym.solvers import Actuators, SolverGeneralized

TWO_LINKS = """
<mujoco><option timestep="{dt}" integrator="implicitfast" gravity="0 0 -9.81"/>
<worldbody>
 <body name="l1" pos="0 0 1">
  <joint name="j1" type="hinge" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0.1" size="0.05" mass="1"/>
  <body name="l2" pos="0.5 0 0.1">
   <joint name="j2" type="hinge" axis="0.3 1 0" armature="0.01"/>
   <geom type="capsule" fromto="0 0 0 0.4 0.1 0" size="0.04" mass="0.7"/>
   <body name="l3" pos="0.4 0.1 0">
    <joint name="j3" type="slide" axis="1 0 0"/>
    <geom type="sphere" size="0.05" mass="0.3"/>
   </body>
  </body>
 </body>
</worldbody>
<actuator>{actuators}</actuator>
</mujoco>"""

CASES = {
    # PD to a target: stiff position servos (kv implicit), one with a gear.
    "position": '<position joint="j1" kp="200" kv="10"/><position joint="j2" kp="80" kv="4" gear="2"/>'
    '<position joint="j3" kp="300" kv="20"/>',
    # Saturated servo: the force range cuts the PD force most of the time.
    "position_saturated": '<position joint="j1" kp="400" kv="20" forcerange="-3 3"/>'
    '<position joint="j2" kp="80" kv="4" forcerange="-1 1"/><motor joint="j3" gear="5"/>',
    "velocity": '<velocity joint="j1" kv="8"/><velocity joint="j2" kv="3" ctrlrange="-1 1"/>'
    '<velocity joint="j3" kv="30"/>',
    # General affine: constant bias, positive position feedback (a spring pushing away), velocity term.
    "general": '<general joint="j1" gainprm="3" biastype="affine" biasprm="0.5 -20 -2"/>'
    '<general joint="j2" gainprm="2" biastype="affine" biasprm="-0.2 5 0"/>'
    '<general joint="j3" gainprm="1" biastype="affine" biasprm="0 -50 0.5" ctrlrange="-2 2"/>',
    # Activation dynamics (dm_control's quadruped and dog): a filtered servo, an exact filter with actearly
    # and an activation clamp, an integrator (a velocity command integrated into a position servo).
    "filter": '<general joint="j1" dyntype="filter" dynprm="0.1" gainprm="200" biastype="affine" '
    'biasprm="0 -200 -10"/>'
    '<general joint="j2" dyntype="filterexact" dynprm="0.05" actearly="true" actlimited="true" '
    'actrange="-0.3 0.4" gainprm="30"/>'
    '<general joint="j3" dyntype="integrator" gainprm="100" biastype="affine" biasprm="0 -100 -8" '
    'actlimited="true" actrange="-0.2 0.2"/>',
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dt", [0.002, 0.01])
def test_actuators_follow_mujoco_implicitfast(case, dt, device):
    m = mujoco.MjModel.from_xml_string(TWO_LINKS.format(dt=dt, actuators=CASES[case]))
    d = mujoco.MjData(m)
    model, act, _ = model_from_xml(m, device=device)
    solver = SolverGeneralized(model, actuators=act)
    steps = int(round(1.0 / dt))
    t = np.arange(steps) * dt
    ctrl = np.stack([0.8 * np.sin(2.0 * t), -0.6 * np.cos(3.0 * t), 0.1 * np.sin(5.0 * t)], axis=1)
    ref = []
    for i in range(steps):
        d.ctrl[:] = ctrl[i]
        mujoco.mj_step(m, d)
        ref.append(d.qpos.copy())
    _, ours = run(model, solver, steps, dt, ctrl=ctrl, record=lambda s: s.joint_q.numpy().copy())
    ref, ours = np.array(ref), np.array(ours)
    assert np.ptp(ref[:, 0]) > 0.2  # the actuators really move the links
    err = np.abs(ours - ref).max()
    assert err < 2e-3, (case, dt, err)
    if m.na:  # the activations too (MuJoCo's d.act, one per actuator with dynamics here)
        np.testing.assert_allclose(solver.act.numpy()[: m.nu], d.act, atol=1e-4)
        assert np.abs(d.act).max() > 0.05


def test_activation_is_cleared_by_a_world_reset(device):
    """reset_worlds zeroes the activations of the masked worlds only."""
    m = mujoco.MjModel.from_xml_string(TWO_LINKS.format(dt=0.01, actuators=CASES["filter"]))
    robot, act1, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder(gravity=-9.81)
    scene.replicate(robot, 2)
    model = scene.finalize(device)
    acts = Actuators.from_records(
        [
            {"dof": int(act1.dof[i]), "gear": [1.0], "dyn_type": str(act1.dyn_type[i]), "dyn_prm": [0.1]}
            for i in range(3)
        ],
        2,
        robot.joint_dof_count,
    )
    solver = SolverGeneralized(model, actuators=acts)
    run(model, solver, 5, 0.01, ctrl=np.full((5, 6), 0.5))
    before = solver.act.numpy().copy()
    assert (before != 0).all()
    solver.reset_worlds(model.state(), np.array([False, True]))
    after = solver.act.numpy()
    np.testing.assert_array_equal(after[:3], before[:3])
    np.testing.assert_array_equal(after[3:], 0.0)


def test_motor_actuators_are_unchanged_by_the_affine_law(device):
    """A motor is gain 1 and bias 0: passing them explicitly changes nothing, bit for bit."""
    m = mujoco.MjModel.from_xml_string(TWO_LINKS.format(dt=0.01, actuators=CASES["position_saturated"]))
    model, act, _ = model_from_xml(m, device=device)
    motors = Actuators(act.dof, act.gear, act.ctrl_range, act.force_range)
    explicit = Actuators(act.dof, act.gear, act.ctrl_range, act.force_range, np.ones(3), np.zeros((3, 3)))
    ctrl = np.tile([0.5, -0.3, 0.2], (50, 1))
    finals = []
    for a in (motors, explicit):
        state, _ = run(model, SolverGeneralized(model, actuators=a), 50, 0.01, ctrl=ctrl)
        finals.append(state.joint_q.numpy().copy())
    np.testing.assert_array_equal(finals[0], finals[1])


def test_non_finite_actuator_parameters_are_refused():
    m = mujoco.MjModel.from_xml_string(TWO_LINKS.format(dt=0.01, actuators=CASES["position"]))
    model, act, _ = model_from_xml(m)
    bias = np.array(act.bias)
    bias[1, 1] = np.nan
    with pytest.raises(ModelBuildError, match="Actuators.bias"):
        SolverGeneralized(
            model, actuators=Actuators(act.dof, act.gear, act.ctrl_range, act.force_range, act.gain, bias)
        )
