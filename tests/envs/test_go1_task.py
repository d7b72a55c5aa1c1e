"""Newton/Go1-Flat-v0 (and G1 through Gymnasium's checker): Gymnasium's checker, the observation terms against their definitions, the
action -> joint target map, commands per episode and per-world resets."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env

import newton_gym  # noqa: F401


@pytest.fixture(scope="module")
def env():
    e = gym.make_vec("Newton/Go1-Flat-v0", num_envs=4, noise=False)
    e.reset(seed=1)
    return e


@pytest.mark.parametrize("env_id", ["Newton/Go1-Flat-v0", "Newton/G1-Flat-v0"])
def test_single_env_passes_gymnasium_checker(env_id):
    check_env(gym.make(env_id).unwrapped, skip_render_check=True)


def test_observation_terms_match_the_state(env):
    obs, _ = env.reset(seed=3)
    task = env.task
    qpos, qvel = task.layout.qpos(), task.layout.qvel()
    w, x, y, z = qpos[:, 3:7].T
    rot = torch.stack(
        [  # body -> world rotation matrices from MuJoCo's (w, x, y, z)
            torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            torch.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            torch.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )
    lin_body = torch.einsum("nji,nj->ni", rot, qvel[:, :3])
    grav_body = torch.einsum("nji,j->ni", rot, torch.tensor([0.0, 0.0, -1.0]))
    torch.testing.assert_close(obs[:, 0:3], lin_body, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(obs[:, 3:6], qvel[:, 3:6])
    torch.testing.assert_close(obs[:, 6:9], grav_body, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(obs[:, 9:12], task.command)
    torch.testing.assert_close(obs[:, 12:24], qpos[:, 7:] - task.home_joint)
    assert torch.all(obs[:, 36:48] == 0)  # no action yet
    critic = env.critic_observation()
    assert critic.shape == (4, 54)
    torch.testing.assert_close(critic[:, :48], obs)


def test_action_sets_joint_targets_around_home(env):
    env.reset(seed=0)
    action = torch.full((4, 12), 0.5)
    env.step(action)
    ctrl = env.sim.ctrl
    torch.testing.assert_close(ctrl, (env.task.home_joint + 0.5 * env.task.action_scale).expand(4, 12))
    # mjlab's scale: a quarter of effort / kp
    kp = env.task.actuators[0]["gain_prm"][0]
    assert np.isclose(float(env.task.action_scale[0]), 0.25 * 23.7 / kp, rtol=1e-5)


def test_commands_are_per_world_and_resampled_only_on_reset(env):
    env.reset(seed=5)
    first = env.task.command.clone()
    assert len({tuple(c) for c in first.tolist()}) > 1
    env.step(torch.zeros(4, 12))
    torch.testing.assert_close(env.task.command, first)
    env.reset(options={"reset_mask": np.array([True, False, False, False])})
    assert not torch.equal(env.task.command[0], first[0])
    torch.testing.assert_close(env.task.command[1:], first[1:])


def test_zero_action_stands_and_logs_named_reward_terms(env):
    env.reset(seed=2)
    for _ in range(50):
        _, reward, terminated, _, info = env.step(torch.zeros(4, 12))
    assert not bool(terminated.any())
    assert float(env.task._base()["height"].min()) > 0.2
    assert {"track_lin_vel_xy", "action_rate", "feet_air_time", "orientation"} <= set(info["reward_terms"])
    assert torch.isfinite(reward).all()


def test_servo_gains_are_randomized_per_world_and_act_in_the_solver():
    """kp and kv scales drawn per world reach the solver's actuator arrays (gain kp, bias (0, -kp, -kv));
    a world with softer servos sags further under the same zero action."""
    env = gym.make_vec(
        "Newton/Go1-Flat-v0",
        num_envs=4,
        noise=False,
        randomization={
            "actuator_kp_scale": (0.3, 1.0),
            "actuator_kd_scale": (0.5, 1.0),
            "friction": None,
            "mass_scale": None,
        },
        push_interval=(1e9, 1e9),
    )
    env.reset(seed=4)
    task = env.task
    task.layout.set_state(task.init_qpos.expand(4, -1), torch.zeros(4, task.layout.nv), torch.ones(4, dtype=bool))
    r = env.randomizer
    kp, kd = r.world_kp_scale, r.world_kd_scale
    assert len(set(kp.tolist())) == 4 and float(kp.min()) >= 0.3 and float(kd.max()) <= 1.0
    torch.testing.assert_close(r.gain, r.base_gain * kp[:, None])
    torch.testing.assert_close(r.bias[..., 1], r.base_bias[..., 1] * kp[:, None])
    torch.testing.assert_close(r.bias[..., 2], r.base_bias[..., 2] * kd[:, None])
    for _ in range(50):
        env.step(torch.zeros(4, 12))
    height = env.task._base()["height"]
    assert int(torch.argmin(height)) == int(torch.argmin(kp))  # the softest servos sag the most


def _physx_style_go1(path):
    """The shipped Go1 with its MjcActuator prims replaced by UsdPhysics angular drives of the same gains
    (stiffness and damping per degree, as UsdPhysics defines them; maxForce = the effort limit)."""
    import math

    from pxr import Usd, UsdPhysics

    from newton_gym.assets import robot_path

    stage = Usd.Stage.Open(robot_path("go1"))
    servos = {}
    for prim in stage.Traverse():
        if prim.GetTypeName() == "MjcActuator":
            target = str(prim.GetRelationship("mjc:target").GetTargets()[0])
            gain = prim.GetAttribute("mjc:gainPrm").Get()
            bias = prim.GetAttribute("mjc:biasPrm").Get()
            servos[target] = (gain[0], -bias[2], prim.GetAttribute("mjc:forceRange:max").Get())
    stage.RemovePrim("/go1/actuators")
    for target, (kp, kv, effort) in servos.items():
        drive = UsdPhysics.DriveAPI.Apply(stage.GetPrimAtPath(target), "angular")
        drive.CreateStiffnessAttr(kp * math.pi / 180.0)
        drive.CreateDampingAttr(kv * math.pi / 180.0)
        drive.CreateMaxForceAttr(effort)
    stage.GetRootLayer().Export(str(path))
    return servos


def _held_home(**kwargs):
    """(joint angles, base height) of world 0 after 2 s of zero action from the home pose."""
    no_rand = {"friction": None, "mass_scale": None, "actuator_kp_scale": None, "actuator_kd_scale": None}
    env = gym.make_vec(
        "Newton/Go1-Flat-v0", num_envs=2, noise=False, push_interval=(1e9, 1e9), randomization=no_rand, **kwargs
    )
    task = env.task
    env.reset(seed=0)
    task.layout.set_state(task.init_qpos.expand(2, -1), torch.zeros(2, task.layout.nv), torch.ones(2, dtype=bool))
    action = torch.full((2, 12), 0.3)
    env.step(action)
    if task.drive_mode:
        target = env.sim.joint_target[:, task.servo_dofs]
        torch.testing.assert_close(target, task.home_joint + task.action_scale * action)
    for _ in range(100):
        _, _, terminated, _, _ = env.step(torch.zeros(2, 12))
        assert not bool(terminated.any())
    base = task._base()
    return env, base["joint_pos"][0].clone(), float(base["height"][0])


def test_robot_with_usd_drives_instead_of_actuators_is_driven_by_the_actions(tmp_path):
    """A PhysX / UsdPhysics-authored Go1 (joint drives, no MjcActuator): actions set the drives' position
    targets (target = home + scale * action, scale from the drive's stiffness and maxForce), and under zero
    action it settles as the MjcActuator Go1 does (PhysX drives integrate the stiffness implicitly,
    MuJoCo's position actuators explicitly: a small difference, not none)."""
    path = tmp_path / "go1_drives.usda"
    servos = _physx_style_go1(path)
    env, joints, height = _held_home(robot_usd=str(path))
    task = env.task
    assert task.drive_mode and len(task.servos) == 12 and env.sim.ctrl.shape == (2, 0)
    np.testing.assert_allclose(task.servos[0]["gain_prm"][0], next(iter(servos.values()))[0], rtol=1e-4)
    _, ref_joints, ref_height = _held_home()
    assert float((joints - ref_joints).abs().max()) < 0.01 and abs(height - ref_height) < 2e-3
