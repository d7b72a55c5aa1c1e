"""NewtonEnv: one environment with numpy spaces (for ``gym.make``), over a one-world NewtonVectorEnv.

Episode limits come from Gymnasium's TimeLimit wrapper (``gym.make`` adds it from the registration), so
this class never truncates by itself; after a termination call ``reset()`` as usual.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch

from ..errors import ConfigError, EnvError, EnvTypeError
from .vector_env import NewtonVectorEnv

__all__ = ["NewtonEnv"]


class NewtonEnv(gym.Env):
    """A single world of a task with numpy observations and actions.

    Args:
        task_class: the Task subclass.
        device, config, render_mode, **overrides: as NewtonVectorEnv (except ``autoreset_mode``: this env
            resets when ``reset()`` is called).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}

    def __init__(self, task_class, device=None, config=None, render_mode=None, **overrides):
        if "autoreset_mode" in overrides:
            raise ConfigError(
                "autoreset_mode is a vector env setting (gym.make_vec); a single env resets when reset() is called"
            )
        overrides.setdefault("max_episode_steps", 2**62)
        self.vec = NewtonVectorEnv(task_class, 1, device=device, config=config, render_mode=render_mode, **overrides)
        self.observation_space = self.vec.single_observation_space
        self.action_space = self.vec.single_action_space
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, render_fps=int(round(1.0 / self.vec.sim.dt)))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, info = self.vec.reset(seed=seed)
        return obs[0].cpu().numpy(), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.vec.step(self._check_action(action)[None])
        if "final_obs" in info:
            obs = info["final_obs"]
        out = {
            "reward_terms": {k: float(v[0]) for k, v in info["reward_terms"].items()},
            "nan_actions": int(info["nan_actions"]),
            "unhealthy_worlds": int(info["unhealthy_worlds"]),
        }
        return obs[0].cpu().numpy(), float(reward[0]), bool(terminated[0]), bool(truncated[0]), out

    def _check_action(self, action) -> np.ndarray:
        """``action`` as an array of this env's action shape, else EnvError / EnvTypeError naming that shape
        (the vector env's own check would name its (1, action) batch)."""
        try:
            a = action.detach().cpu().numpy() if torch.is_tensor(action) else np.asarray(action)
        except (ValueError, TypeError) as exc:  # ragged nested lists, unconvertible objects
            raise EnvError(f"action must be an array of numbers of shape {self.action_space.shape}: {exc}") from None
        if a.dtype.kind not in "iuf":
            raise EnvTypeError(f"action must hold real numbers (float or int), got numpy dtype {a.dtype}")
        if a.shape != self.action_space.shape:
            raise EnvError(f"action must have shape {self.action_space.shape}, got {a.shape}")
        return a

    def render(self):
        return self.vec.render()

    def close(self):
        self.vec.close()

    @property
    def task(self):
        return self.vec.task

    def state_tensors(self) -> dict[str, torch.Tensor]:
        """Zero-copy raw state of this world: body_q, body_qd, joint_q, joint_qd (first axis of size 1)."""
        return {k: getattr(self.vec, k) for k in ("body_q", "body_qd", "joint_q", "joint_qd")}
