"""Newton/Humanoid-v0: Gymnasium's Humanoid-v5 on newton_gym, with the four optional observation blocks
off (``include_cinert / cvel / qfrc_actuator / cfrc_ext_in_observation=False``).

Built from the shipped Humanoid USD (converted from Gymnasium's humanoid.xml).

| | |
|---|---|
| action | Box(-0.4, 0.4, (17,)): controls of the 17 motors, actuator order of humanoid.xml |
| observation (45) | qpos[2:] (22: torso z, quaternion w x y z, 17 joint angles) + qvel (23), MuJoCo conventions |
| reward terms | ``forward`` = 1.25 * x velocity of the whole-body centre of mass; ``healthy`` = 5.0; ``ctrl_cost`` = -0.1 sum(a^2); ``contact_cost`` = -min(5e-7 sum(contact wrench^2), 10) |
| termination | non-finite state, or torso z outside [1.0, 2.0] |
| truncation | 1000 steps |
| reset | qpos = init + U(-0.01, 0.01), qvel = init + U(-0.01, 0.01) |
| control dt | 0.015 s (5 solver steps of 0.003 s) |
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ..sim.hostmath import quat_rotate
from ..sim.torch_views import world_view
from .settings import SimCfg
from .task import Task, TaskCfg

__all__ = ["HumanoidTask", "HumanoidCfg"]


@dataclass
class HumanoidCfg(TaskCfg):
    forward_reward_weight: float = 1.25
    ctrl_cost_weight: float = 0.1
    contact_cost_weight: float = 5e-7
    contact_cost_max: float = 10.0
    healthy_reward: float = 5.0
    healthy_z_range: tuple = (1.0, 2.0)
    reset_noise_scale: float = 1e-2
    sim: SimCfg = field(default_factory=lambda: SimCfg(sim_dt=0.003, frame_skip=5))


class HumanoidTask(Task):
    robot = "humanoid"
    cfg_class = HumanoidCfg

    def setup(self, robot, sim):
        super().setup(robot, sim)
        m, n = sim.model, sim.num_envs
        self._mass = world_view(m.body_mass, m.body_world_start, n)  # (N, B) [kg], randomized in place
        self._com = world_view(m.body_com, m.body_world_start, n)  # (N, B, 3) [m], body frame

    def observation_size(self) -> int:
        return self.layout.nq - 2 + self.layout.nv

    def observe(self, sim):
        return torch.cat([self.layout.qpos()[:, 2:], self.layout.qvel()], dim=1)

    def mass_center_x(self, sim):
        q = sim.views.body_q
        com_world = q[..., 0:3] + quat_rotate(q[..., 3:7], self._com)
        return (self._mass * com_world[..., 0]).sum(dim=1) / self._mass.sum(dim=1)

    def pre_step(self, sim):
        return self.mass_center_x(sim)

    def reward_terms(self, sim, action, pre):
        c = self.cfg
        x_velocity = (self.mass_center_x(sim) - pre) / sim.dt
        contact = c.contact_cost_weight * (sim.contact_wrench**2).sum(dim=(1, 2))
        return {
            "forward": c.forward_reward_weight * x_velocity,
            "healthy": c.healthy_reward * self.is_healthy(sim).float(),
            "ctrl_cost": -c.ctrl_cost_weight * (action**2).sum(dim=1),
            "contact_cost": -contact.clamp(max=c.contact_cost_max),
        }

    def is_healthy(self, sim):
        return self.finite_and_root_height_in(self.cfg.healthy_z_range, inclusive=False)

    def terminated(self, sim):
        return ~self.is_healthy(sim)
