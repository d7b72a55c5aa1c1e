"""The shipped robots (the USD the environments load, converted from gymnasium's MJCF) against MuJoCo C
on the MJCF itself, with the same integrator (implicitfast), time step and constraint solver (Newton),
through the environments' own stepping: torso within 5 mm of MuJoCo over 0.5 s (Humanoid) and 1 s (Ant).

Under the full-range sine the Humanoid kicks its own hip (foot-pelvis and shin-pelvis self-contacts) and
lands on one foot; MuJoCo itself moves by 0.013 mm at 0.5 s when its start height is nudged by 1e-6 m,
so the gate measures the model and the solver, not chaos.
"""

import os

import gymnasium as gym
import mujoco
import numpy as np
import pytest
import torch

import newton_gym  # noqa: F401  (registers the ids)


def _mujoco(robot, dt):
    m = mujoco.MjModel.from_xml_path(
        os.path.join(os.path.dirname(gym.__file__), "envs", "mujoco", "assets", f"{robot}.xml")
    )
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    assert m.opt.timestep == pytest.approx(dt)
    return m


def _torso_errors(env_id, robot, dt, frame_skip, steps, amplitude, ctrl_scale, **overrides):
    env = gym.make_vec(
        env_id, num_envs=1, device="cpu", reset_noise_scale=0.0, healthy_z_range=(-10.0, 10.0), **overrides
    )
    env.reset(seed=0)
    layout = env.unwrapped.task.layout
    m = _mujoco(robot, dt)
    d = mujoco.MjData(m)
    d.qpos[:] = layout.qpos()[0].numpy()
    d.qvel[:] = layout.qvel()[0].numpy()
    errors, heights = [], []
    for i in range(steps):
        action = amplitude * ctrl_scale * np.sin(2 * np.pi * i * dt * frame_skip + 0.5 * np.arange(m.nu))
        _, _, terminated, truncated, _ = env.step(torch.tensor(action[None], dtype=torch.float32))
        assert not (terminated[0] or truncated[0])
        d.ctrl[:] = action
        for _ in range(frame_skip):
            mujoco.mj_step(m, d)
        errors.append(np.linalg.norm(layout.qpos()[0].numpy()[:3] - d.qpos[:3]))
        heights.append(d.qpos[2])
    env.close()
    return np.array(errors), np.array(heights)


@pytest.mark.parametrize("amplitude", [0.0, 1.0])
def test_humanoid_torso_tracks_mujoco_for_half_a_second(amplitude):
    errors, heights = _torso_errors("Newton/Humanoid-v0", "humanoid", 0.003, 5, 34, amplitude, 0.4)
    print(f"Humanoid torso, amplitude {amplitude}: {1e3 * errors.max():.3g} mm from MuJoCo C at most over 0.5 s")
    assert heights[0] - heights.min() > 0.1  # it falls and lands on its feet
    assert errors.max() < 0.005, errors.max()


def test_ant_torso_tracks_mujoco_for_one_second():
    errors, heights = _torso_errors(
        "Newton/Ant-v0", "ant", 0.01, 5, 20, 1.0, 1.0, sim={"sim_dt": 0.01, "substeps": 1, "frame_skip": 5}
    )
    print(f"Ant torso: {1e3 * errors.max():.3g} mm from MuJoCo C at most over 1 s")
    assert heights[0] - heights.min() > 0.1
    assert errors.max() < 0.005, errors.max()
