"""Newton/Ant-v0: Gymnasium's Ant-v5 on newton_gym (``include_cfrc_ext_in_observation=False``).

The shipped Ant USD (converted from Gymnasium's ant.xml) is imported through ``add_usd`` with the default
schema resolvers and replicated into N worlds.

| | |
|---|---|
| action | Box(-1, 1, (8,)): controls of the 8 hip/ankle motors (gear 150), actuator order of ant.xml |
| observation (27) | qpos[2:] (torso z, quaternion w x y z, 8 joint angles) + qvel (torso origin linear velocity in world frame, angular velocity in the torso frame, 8 joint rates): MuJoCo conventions |
| reward terms | ``forward`` = 1.0 * torso x velocity; ``healthy`` = 1.0; ``ctrl_cost`` = -0.5 sum(a^2); ``contact_cost`` = -5e-4 sum(clip(contact wrench, -1, 1)^2) |
| termination | non-finite state, or torso z outside [0.2, 1.0] |
| truncation | 1000 steps |
| reset | qpos = init + U(-0.1, 0.1), qvel = init + 0.1 N(0, 1) |
| control dt | 0.05 s (5 solver steps of 0.01 s: Ant-v5's timestep and frame_skip) |

Contact cost: MuJoCo's cfrc_ext holds each body's contact wrench about its subtree COM; ours is about
the body COM (the solver's body_contact_wrench). With the clip at +-1 both saturate on any real contact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .settings import SimCfg
from .task import Task, TaskCfg

__all__ = ["AntTask", "AntCfg"]


@dataclass
class AntCfg(TaskCfg):
    forward_reward_weight: float = 1.0
    ctrl_cost_weight: float = 0.5
    contact_cost_weight: float = 5e-4
    healthy_reward: float = 1.0
    healthy_z_range: tuple = (0.2, 1.0)
    contact_force_range: tuple = (-1.0, 1.0)
    reset_noise_scale: float = 0.1
    sim: SimCfg = field(default_factory=lambda: SimCfg(sim_dt=0.01, frame_skip=5))


class AntTask(Task):
    robot = "ant"
    cfg_class = AntCfg
    qvel_noise = "normal"

    def observation_size(self) -> int:
        return self.layout.nq - 2 + self.layout.nv

    def observe(self, sim):
        return torch.cat([self.layout.qpos()[:, 2:], self.layout.qvel()], dim=1)

    def pre_step(self, sim):
        return self.layout.root_pose()[:, 0].clone()

    def reward_terms(self, sim, action, pre):
        c = self.cfg
        x_velocity = (self.layout.root_pose()[:, 0] - pre) / sim.dt
        wrench = sim.contact_wrench.clamp(*c.contact_force_range)
        return {
            "forward": c.forward_reward_weight * x_velocity,
            "healthy": c.healthy_reward * self.is_healthy(sim).float(),
            "ctrl_cost": -c.ctrl_cost_weight * (action**2).sum(dim=1),
            "contact_cost": -c.contact_cost_weight * (wrench**2).sum(dim=(1, 2)),
        }

    def is_healthy(self, sim):
        return self.finite_and_root_height_in(self.cfg.healthy_z_range, inclusive=True)

    def terminated(self, sim):
        return ~self.is_healthy(sim)
