"""Shipped Unitree robots: the PD servos hold the home pose as MuJoCo C holds it on the same MJCF.

Go1 (the issue's gate): zero action = position targets at the home pose, 5 s at the MJCF's 0.005 s
implicitfast step, base height within 5 mm of MuJoCo's at every step. G1 under the same PD hold topples
over (in MuJoCo too: standing needs a balance policy), which makes a stricter check: the whole fall,
contacts of arms and torso included, follows MuJoCo's within 5 mm for 2 s.
"""

from __future__ import annotations

import mujoco
import numpy as np
import torch

from newton_gym.assets import robot_path
from newton_gym.assets.robots import robot_source_path
from newton_gym.envs.settings import SimCfg
from newton_gym.envs.simulation import Simulation
from newton_gym.sim import ModelBuilder
from newton_gym.sim.conventions import quat_wxyz_to_xyzw


def _hold(name: str, seconds: float):
    m = mujoco.MjModel.from_xml_string(open(robot_source_path(name)).read())
    d = mujoco.MjData(m)
    key = m.key("home").id
    mujoco.mj_resetDataKeyframe(m, d, key)
    robot = ModelBuilder()
    actuators = robot.add_usd(robot_path(name))["actuators"]
    sim = Simulation(robot, actuators, num_envs=1, cfg=SimCfg(sim_dt=m.opt.timestep, frame_skip=1, capture=False))
    q = m.key_qpos[key].copy()
    q[3:7] = quat_wxyz_to_xyzw(q[3:7])
    sim.views.joint_q[0] = torch.tensor(q, dtype=torch.float32)
    sim.refresh_bodies()
    sim.ctrl[0] = torch.tensor(m.key_ctrl[key], dtype=torch.float32)
    heights = []
    for _ in range(int(round(seconds / m.opt.timestep))):
        mujoco.mj_step(m, d)
        sim.step()
        heights.append((d.qpos[2], float(sim.views.joint_q[0, 2])))
    return np.array(heights), m.key_qpos[key][2]


def test_go1_holds_home_pose_like_mujoco():
    heights, start = _hold("go1", 5.0)
    ref, ours = heights[:, 0], heights[:, 1]
    assert 0.2 < ref[-1] < start + 0.01  # MuJoCo's Go1 stands (settles a little onto its feet)
    err = np.abs(ours - ref)
    assert err.max() < 5e-3, (err.max(), ref[-1], ours[-1])


def test_g1_topples_under_pd_hold_like_mujoco():
    heights, start = _hold("g1", 2.0)
    ref, ours = heights[:, 0], heights[:, 1]
    assert ref[0] > 0.75 and ref[-1] < 0.3  # it does fall, from standing height to the floor
    err = np.abs(ours - ref)
    assert err.max() < 5e-3, (err.max(), ref[-1], ours[-1])
