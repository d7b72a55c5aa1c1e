"""SB3VecEnv: Stable-Baselines3's VecEnv protocol over a newton_gym vector environment.

SB3 conventions (stable_baselines3.common.vec_env.VecEnv): ``reset()`` returns the observations only;
``step_async(actions)`` then ``step_wait()`` returns (obs (N, O) float32, rewards (N,) float32,
dones (N,) bool, infos: list of N dicts). A done world has already been reset: its row of ``obs`` is the
new episode's first observation, ``infos[i]["terminal_observation"]`` the last one of the finished
episode, ``infos[i]["TimeLimit.truncated"]`` says whether it ended by the time limit only, and
``infos[i]["episode"] = {"r", "l"}`` carries its return and length (as SB3's Monitor wrapper writes).
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode

from ..errors import ConfigError
from .numpy_env import NumpyVectorEnv

__all__ = ["SB3VecEnv"]

try:  # optional: subclass SB3's VecEnv when it is installed, so SB3 algorithms accept this env unwrapped
    from stable_baselines3.common.vec_env import VecEnv as _Base
except ImportError:  # pragma: no cover - depends on the environment
    _Base = object


class SB3VecEnv(_Base):
    """Args: env: a NewtonVectorEnv or a NumpyVectorEnv (wrapped in one if needed), with SAME_STEP autoreset
    (SB3's protocol: a done env is already reset and its last observation is in the info)."""

    def __init__(self, env):
        self.venv = env if isinstance(env, NumpyVectorEnv) else NumpyVectorEnv(env)
        mode = self.venv.metadata.get("autoreset_mode")
        if mode is not AutoresetMode.SAME_STEP:
            raise ConfigError(
                f"SB3VecEnv needs an env with autoreset_mode SAME_STEP (SB3 resets done envs in the same step), "
                f"got {mode}; make it with autoreset_mode='same_step' (the default)"
            )
        if _Base is not object:  # SB3's VecEnv keeps its own bookkeeping (seeds, options, reset infos)
            _Base.__init__(self, self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self.num_envs = self.venv.num_envs
        self.observation_space = self.venv.single_observation_space
        self.action_space = self.venv.single_action_space
        self.render_mode = self.venv.render_mode
        self.metadata = self.venv.metadata
        self._actions = None
        self._seed = None
        self.reset_infos = [{} for _ in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        obs, _ = self.venv.reset(seed=self._seed)
        self._seed = None
        return obs

    def seed(self, seed=None):
        """Seed of the next reset (SB3 semantics); returns one seed per env."""
        self._seed = seed
        return [seed if seed is None else seed + i for i in range(self.num_envs)]

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions, dtype=np.float32)

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if "newton_episode" in info:
                stats = info["newton_episode"]
                infos[i]["episode"] = {"r": float(stats["r"][i]), "l": int(stats["l"][i])}
        return obs.astype(np.float32), reward.astype(np.float32), dones, infos

    def step(self, actions):
        self.step_async(actions)
        return self.step_wait()

    def close(self) -> None:
        self.venv.close()

    def render(self, mode=None):
        """World 0's frame (None unless the env renders)."""
        frames = self.venv.render_frames([0])
        return None if frames is None else frames[0]

    def get_images(self):
        """One frame per world (SB3's get_images)."""
        frames = self.venv.render()
        return [None] * self.num_envs if frames is None else list(frames)

    # attribute access across envs (all worlds share one env object)
    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices

    def get_attr(self, attr_name, indices=None):
        value = getattr(self.venv.env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        setattr(self.venv.env, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        result = getattr(self.venv.env, method_name)(*args, **kwargs)
        return [result for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._indices(indices)]
