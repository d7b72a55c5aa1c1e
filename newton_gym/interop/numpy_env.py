"""NumpyVectorEnv: a NewtonVectorEnv (torch) seen through numpy, for numpy-based RL tools."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode, VectorEnv

__all__ = ["NumpyVectorEnv", "make_numpy_vec"]


def _np(x):
    return x.detach().cpu().numpy() if torch.is_tensor(x) else np.asarray(x)


class NumpyVectorEnv(VectorEnv):
    """Gymnasium VectorEnv over a torch VectorEnv: numpy in, numpy out.

    Returns obs (N, O) float32, rewards (N,) float64, terminations / truncations (N,) bool, as
    Gymnasium's SyncVectorEnv does. The autoreset mode is the wrapped env's (``metadata["autoreset_mode"]``,
    SAME_STEP where it names none). Under SAME_STEP ``info["final_obs"]`` is an object array of length N
    holding each finished world's last observation (None elsewhere) and ``info["_final_obs"]`` marks those
    worlds; every other info entry (``newton_episode``, ``reward_terms``, ...) becomes numpy. ``render()``
    returns a tuple of one frame per world, as SyncVectorEnv's does.

    Args:
        env: a NewtonVectorEnv (or any VectorEnv returning torch tensors).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, env):
        self.env = env
        self.num_envs = env.num_envs
        self.single_observation_space = env.single_observation_space
        self.single_action_space = env.single_action_space
        self.observation_space = env.observation_space
        self.action_space = env.action_space
        self.render_mode = getattr(env, "render_mode", None)
        self.metadata = dict(self.metadata, **getattr(env, "metadata", {}))
        self.spec = getattr(env, "spec", None)

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return _np(obs), self._info(info)

    def step(self, actions):
        # dtype kept: the env checks shape and dtype, and clips float64 before its float32 cast
        obs, reward, terminated, truncated, info = self.env.step(np.asarray(actions))
        return (
            _np(obs),
            _np(reward).astype(np.float64),
            _np(terminated).astype(bool),
            _np(truncated).astype(bool),
            self._info(info),
        )

    def _info(self, info: dict) -> dict:
        out = {}
        for key, value in info.items():
            if key == "final_obs":
                done = _np(info["_final_obs"]).astype(bool)
                rows = _np(value)
                final = np.empty(self.num_envs, dtype=object)
                for i in np.flatnonzero(done):
                    final[i] = rows[i].copy()
                out[key] = final
            elif isinstance(value, dict):
                out[key] = self._info(value)
            else:
                out[key] = _np(value) if torch.is_tensor(value) else value
        return out

    def render(self):
        """A tuple of one (H, W, 3) uint8 frame per world (None unless render_mode is "rgb_array")."""
        return self.render_frames()

    def render_frames(self, worlds=None):
        """Frames of the worlds ``worlds`` (indices; None: all), from the wrapped env's ``render_frames``;
        an env without one gives its ``render()``."""
        render_frames = getattr(self.env, "render_frames", None)
        return self.env.render() if render_frames is None else render_frames(worlds)

    def close(self, **kwargs):
        self.env.close()


def make_numpy_vec(env_id: str, num_envs: int = 1, **kwargs) -> NumpyVectorEnv:
    """``gym.make_vec(env_id, num_envs, **kwargs)`` wrapped in a NumpyVectorEnv (device defaults to cpu)."""
    import newton_gym  # noqa: F401  (registers the ids)

    kwargs.setdefault("device", "cpu")
    return NumpyVectorEnv(gym.make_vec(env_id, num_envs=num_envs, **kwargs))
