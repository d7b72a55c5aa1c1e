"""Newton/Cartpole-v0: Gymnasium's InvertedPendulum-v5 on newton_gym.

Built from the shipped inverted-pendulum USD (converted from Gymnasium's inverted_pendulum.xml).

| | |
|---|---|
| action | Box(-3, 3, (1,)): cart motor control (gear 100) |
| observation (4) | qpos (cart position, pole angle) + qvel (their rates) |
| reward terms | ``alive`` = 1 for every step that does not terminate |
| termination | non-finite state, or abs(pole angle) > 0.2 rad |
| truncation | 1000 steps |
| reset | qpos = init + U(-0.01, 0.01), qvel = init + U(-0.01, 0.01) |
| control dt | 0.04 s (2 solver steps of 0.02 s) |
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .settings import SimCfg
from .task import Task, TaskCfg

__all__ = ["CartpoleTask", "CartpoleCfg"]


@dataclass
class CartpoleCfg(TaskCfg):
    reset_noise_scale: float = 0.01
    max_angle: float = 0.2
    # InvertedPendulum-v5's own time step, at which its slider limit's default solref time constant (0.02 s) is
    # softened to 2 dt = 0.04 s, by MuJoCo C (refsafe, silently) as by the solver: no warning for it here
    sim: SimCfg = field(default_factory=lambda: SimCfg(sim_dt=0.02, frame_skip=2, warn_refsafe=False))


class CartpoleTask(Task):
    robot = "inverted_pendulum"
    cfg_class = CartpoleCfg

    def observation_size(self) -> int:
        return self.layout.nq + self.layout.nv

    def observe(self, sim):
        return torch.cat([self.layout.qpos(), self.layout.qvel()], dim=1)

    def _bad(self):
        return self.layout.memo("bad", self._compute_bad)  # reward and termination ask within one step

    def _compute_bad(self):
        return ~self.layout.state_finite() | (self.layout.qpos()[:, 1].abs() > self.cfg.max_angle)

    def reward_terms(self, sim, action, pre):
        return {"alive": (~self._bad()).float()}

    def terminated(self, sim):
        return self._bad()
