"""The Task interface: what a Gymnasium task adds on top of the shared simulation and vector layers.

A task builds its robot, and from the simulation state computes observations, named reward terms and
terminations, and samples reset states. Vectorisation, episode limits and autoreset live in
:mod:`newton_gym.envs.vector_env`; one task a file (ant.py, humanoid.py, cartpole.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym
import torch

from ..assets import robot_path
from ..sim import ModelBuilder
from .mujoco_layout import MujocoLayout
from .settings import EnvCfg
from .world_rng import WorldRng

__all__ = ["Task", "TaskCfg"]

# WorldRng stream ids of the reset draws (the randomizer uses others)
RESET_QPOS_STREAM = 1
RESET_QVEL_STREAM = 2


@dataclass
class TaskCfg(EnvCfg):
    """Base of every task's configuration (EnvCfg plus the task's own fields)."""

    reset_noise_scale: float = 0.1
    robot_usd: str | None = None  # a USD file imported instead of the task's shipped robot


class Task:
    """Base class; subclasses set ``robot`` (a shipped robot name) and ``cfg_class`` and implement the
    observation, reward, termination and reset methods over :class:`MujocoLayout` tensors."""

    robot: str = ""
    cfg_class = TaskCfg
    qvel_noise: str = "uniform"
    ground_friction: float | None = None  # None: the robot's USD brings its floor (MJCF-converted robots)

    def __init__(self, cfg):
        self.cfg = cfg
        self.import_result = None
        self.layout = None
        self.init_qpos = None
        self.init_qvel = None

    def build_robot(self) -> ModelBuilder:
        """The single robot, imported through add_usd (resolvers: defaults) from ``cfg.robot_usd`` or the
        task's shipped USD."""
        builder = ModelBuilder()
        self.import_result = builder.add_usd(self.cfg.robot_usd or robot_path(self.robot))
        return builder

    @property
    def actuators(self) -> list:
        return self.import_result["actuators"]

    def add_static_scene(self, scene: ModelBuilder):
        """Add global static shapes (terrain) to the scene before the robot is replicated into its worlds;
        they are shared by every world. Default: nothing."""

    def step_info(self, sim) -> dict:
        """The task's own scalars of every step (0-d tensors), reported as ``info["task"]`` (absent when
        empty) and logged by the trainers as ``Task/<name>``. Default: none."""
        return {}

    def setup(self, robot: ModelBuilder, sim):
        """Called once the simulation exists."""
        self.layout = MujocoLayout(robot, sim)
        self.init_qpos = self.layout.qpos()[0].clone()
        self.init_qvel = self.layout.qvel()[0].clone()

    # ------------------------------------------------------------------ spaces
    def action_space(self) -> gym.spaces.Box:
        import numpy as np

        # an actuator without a control range takes any real control (MuJoCo's ctrllimited="false")
        lo = np.array(
            [a["ctrl_range"][0] if a.get("ctrl_limited", True) else -np.inf for a in self.actuators], dtype=np.float32
        )
        hi = np.array(
            [a["ctrl_range"][1] if a.get("ctrl_limited", True) else np.inf for a in self.actuators], dtype=np.float32
        )
        return gym.spaces.Box(lo, hi, dtype=np.float32)

    def observation_space(self) -> gym.spaces.Box:
        import numpy as np

        return gym.spaces.Box(-np.inf, np.inf, (self.observation_size(),), dtype=np.float32)

    # ------------------------------------------------------------------ per step
    def observation_size(self) -> int:
        raise NotImplementedError

    def observe(self, sim) -> torch.Tensor:
        """(N, obs) float32 observations."""
        raise NotImplementedError

    def seed(self, seed: int):
        """Reseed any generator of the task's own (called by ``reset(seed=...)``)."""

    def ctrl_from_action(self, action: torch.Tensor) -> torch.Tensor:
        """(N, actuators) actuator controls for the (N, action) clipped policy action (default: the action
        itself, MuJoCo's ctrl; position-servo tasks map it to joint targets)."""
        return action

    def critic_observation_size(self) -> int:
        """Width of the privileged critic observation (0: the task has none)."""
        return 0

    def critic_observe(self, sim) -> torch.Tensor | None:
        """(N, critic obs) float32 privileged observation of the current state, or None."""
        return None

    def pre_step(self, sim):
        """Anything the reward needs from before the step (e.g. the torso position)."""
        return None

    def reward_terms(self, sim, action: torch.Tensor, pre) -> dict:
        """Named (N,) reward terms; the reward is their sum."""
        raise NotImplementedError

    def terminated(self, sim) -> torch.Tensor:
        """(N,) bool."""
        raise NotImplementedError

    def reset_state(self, sim, mask: torch.Tensor, rng: WorldRng):
        """Gymnasium's reset noise: qpos = init + U(-s, s); qvel = init + U(-s, s), or s N(0, 1) when
        ``qvel_noise`` is "normal" (Ant); s = cfg.reset_noise_scale. Each world's noise comes from its
        own stream of ``rng``; writes the masked worlds only and refreshes body poses."""
        self.layout.set_noisy_state(
            self.init_qpos,
            self.init_qvel,
            self.cfg.reset_noise_scale,
            self.qvel_noise == "normal",
            rng,
            (RESET_QPOS_STREAM, RESET_QVEL_STREAM),
            mask,
        )

    # helpers shared by the MuJoCo-style tasks
    def finite_and_root_height_in(self, z_range, inclusive: bool) -> torch.Tensor:
        """(N,) bool: qpos and qvel finite and the root height inside ``z_range`` (Ant-v5 includes the
        bounds, Humanoid-v5 excludes them)."""

        def compute():
            z = self.layout.root_pose()[:, 2]
            lo, hi = z_range
            inside = (z >= lo) & (z <= hi) if inclusive else (z > lo) & (z < hi)
            return self.layout.state_finite() & inside

        # reward (healthy term) and termination both ask within one step: computed once there
        return self.layout.memo(("healthy", tuple(z_range), inclusive), compute)
