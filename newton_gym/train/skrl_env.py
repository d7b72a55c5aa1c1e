"""SkrlVecEnv: a NewtonVectorEnv as an skrl (torch) environment.

Tensors pass straight through: the observation tensor skrl receives is the one the environment returned
(no copy); rewards, terminations and truncations are ``view(-1, 1)`` of the environment's (N,) tensors.

Autoreset and bootstrapping. NewtonVectorEnv autoresets in the same step (Gymnasium's SAME_STEP mode):
for a world whose episode ended, the returned observation is already the *next* episode's first one,
and the last observation of the finished episode is in ``info["final_obs"]``. skrl expects exactly this
kind of autoresetting vectorised environment (its trainers call ``reset()`` once and then feed each
step's observation to the next ``act``), and its PPO (skrl 2.1.1, ``agents/torch/ppo/ppo.py``) treats
truncation as follows when ``time_limit_bootstrap`` is True:

* in ``record_transition`` the reward of a truncated step becomes ``r + gamma * V(next_observations)``;
* in ``compute_gae`` both terminated and truncated steps cut the return chain (no bootstrapping from
  the next stored step, which belongs to the next episode).

So the value bootstrapped at a truncation must be V(final observation of the episode), not V(first
observation of the next one). skrl's stock trainer passes the step's returned observation as
``next_observations``, which for a truncated world is the reset observation. This adapter therefore
also returns, in ``info["bootstrap_obs"]``, the step's observation with the finished rows replaced by
their final observation (the very same tensor when no episode ended), and
:class:`~newton_gym.train.runner.PPORunner` passes that as ``next_observations`` while acting on the
reset observation. Terminated steps are never bootstrapped, so their row value does not matter.

Actions: with ``scale_actions`` the policy acts in [-1, 1] and :func:`to_env_actions` maps onto the
task's action box (identity for Ant, whose box is [-1, 1]).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from ..errors import ConfigError
from .distributed import import_skrl

import_skrl()
from skrl.envs.wrappers.torch.base import Wrapper  # noqa: E402

__all__ = ["SkrlVecEnv", "ActionScaler"]


class ActionScaler:
    """Affine map between the policy's [-1, 1] box and the task's action box [low, high].

    Args:
        low, high: (A,) bounds of the task's action space.
        device: torch device of the tensors.
        enabled: False makes both maps the identity.
    """

    def __init__(self, low, high, device, enabled: bool = True):
        low = torch.as_tensor(np.asarray(low, dtype=np.float32), device=device)
        high = torch.as_tensor(np.asarray(high, dtype=np.float32), device=device)
        self.enabled = bool(enabled)
        self.center = (high + low) / 2.0
        self.half = (high - low) / 2.0
        # a [-1, 1] task box (Ant) needs no arithmetic per step
        self.identity = not self.enabled or bool((self.center == 0).all() and (self.half == 1).all())

    def to_env(self, actions: torch.Tensor) -> torch.Tensor:
        """Policy actions (N, A) -> task actions (N, A)."""
        return actions if self.identity else self.center + self.half * actions

    def policy_space(self, env_space: gym.spaces.Box) -> gym.spaces.Box:
        """The action space the policy sees."""
        if not self.enabled:
            return env_space
        return gym.spaces.Box(-1.0, 1.0, env_space.shape, dtype=np.float32)


class SkrlVecEnv(Wrapper):
    """Wraps a NewtonVectorEnv (or any Gymnasium VectorEnv returning torch tensors, SAME_STEP autoreset).

    Args:
        env: the vector environment.
        seed: seed of the first ``reset()``.
        scale_actions: the policy acts in [-1, 1] (see :class:`ActionScaler`).
    """

    def __init__(self, env, seed: int | None = None, scale_actions: bool = True):
        super().__init__(env)
        mode = getattr(env, "metadata", {}).get("autoreset_mode")
        if mode is not None and mode != AutoresetMode.SAME_STEP:
            raise ConfigError(f"SkrlVecEnv needs SAME_STEP autoreset, the environment uses {mode}")
        self._device = torch.device(env.device) if not isinstance(env.device, torch.device) else env.device
        self._seed = seed
        self._observations = None
        self._info = {}
        self.scaler = ActionScaler(
            env.single_action_space.low, env.single_action_space.high, self._device, enabled=scale_actions
        )
        self._action_space = self.scaler.policy_space(env.single_action_space)

    @property
    def observation_space(self) -> gym.Space:
        return self._unwrapped.single_observation_space

    @property
    def action_space(self) -> gym.Space:
        return self._action_space

    @property
    def num_envs(self) -> int:
        return self._unwrapped.num_envs

    def reset(self):
        """Reset every world on the first call; later calls return the current observation (the
        environment resets finished worlds itself)."""
        if self._observations is None:
            self._observations, self._info = self._env.reset(seed=self._seed)
        return self._observations, self._info

    def restart(self):
        """Reset every world without reseeding (each world's stream goes on; a resumed run starts so)."""
        self._observations, self._info = self._env.reset()
        return self._observations, self._info

    def step(self, actions: torch.Tensor):
        """Step all worlds: (obs (N, O), reward (N, 1), terminated (N, 1), truncated (N, 1), info).

        ``info["bootstrap_obs"]`` is the observation to bootstrap each row's value from (see the module
        docstring)."""
        obs, reward, terminated, truncated, info = self._env.step(self.scaler.to_env(actions))
        if "_final_obs" in info:
            done = torch.as_tensor(info["_final_obs"], device=obs.device)
            info["bootstrap_obs"] = torch.where(done[:, None], info["final_obs"], obs)
        else:
            info["bootstrap_obs"] = obs
        self._observations, self._info = obs, info
        return obs, reward.view(-1, 1), terminated.view(-1, 1), truncated.view(-1, 1), info

    def state(self):
        """No separate critic state: None."""
        return None

    def render(self, *args, **kwargs):
        return self._env.render()

    def close(self) -> None:
        self._env.close()
