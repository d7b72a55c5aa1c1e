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
import warp as wp

from .settings import SimCfg
from .task import Task, TaskCfg

__all__ = ["HumanoidTask", "HumanoidCfg"]

wp.set_module_options({"enable_backward": False})


@wp.kernel
def _mass_center_x_kernel(
    body_q: wp.array(dtype=wp.transform),
    body_mass: wp.array(dtype=float),
    body_com: wp.array(dtype=wp.vec3),
    body_world_start: wp.array(dtype=int),
    x_out: wp.array(dtype=float),
):
    """x [m] of world w's whole-body centre of mass: sum m_b x_b / sum m_b over its bodies, x_b the world x of
    body b's COM (Gymnasium's mass_center: MuJoCo's xipos weighted by body_mass)."""
    w = wp.tid()
    mass = float(0.0)
    moment = float(0.0)
    for b in range(body_world_start[w], body_world_start[w + 1]):
        m = body_mass[b]
        mass += m
        moment += m * wp.transform_point(body_q[b], body_com[b])[0]
    x_out[w] = moment / mass


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

    def observation_size(self) -> int:
        return self.layout.nq - 2 + self.layout.nv

    def observe(self, sim):
        return torch.cat([self.layout.qpos()[:, 2:], self.layout.qvel()], dim=1)

    def mass_center_x(self, sim) -> torch.Tensor:
        """(N,) x [m] of each world's whole-body centre of mass (the masses as randomized): one launch."""
        m, n = sim.model, sim.num_envs
        out = torch.empty(n, dtype=torch.float32, device=sim.torch_device)
        if n:
            wp.launch(
                _mass_center_x_kernel,
                dim=n,
                inputs=[sim.state.body_q, m.body_mass, m.body_com, m.body_world_start],
                outputs=[wp.from_torch(out, return_ctype=True)],
                device=sim.device,
            )
        return out

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
