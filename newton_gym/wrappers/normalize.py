"""NormalizeObservation and NormalizeReward over a torch vector env, with their running statistics on its device."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.spaces import Box
from gymnasium.vector import AutoresetMode, VectorWrapper
from gymnasium.vector.utils import batch_space

from ..errors import WrapperError
from .common import autoreset_mode_of, env_device, reset_rows, to_tensor
from .running_stats import RunningMeanStd

__all__ = ["NormalizeObservation", "NormalizeReward"]


def _check_epsilon(epsilon) -> float:
    if not epsilon > 0:
        raise WrapperError(f"epsilon must be > 0 (it keeps the division away from zero), got {epsilon!r}")
    return float(epsilon)


class NormalizeObservation(VectorWrapper):
    """Gymnasium's vector ``NormalizeObservation`` for torch observations: each observation entry is centred
    and scaled by the running mean and variance of every observation returned so far,
    ``(obs - mean) / sqrt(var + epsilon)``, as float32.

    Beyond Gymnasium's (which takes NEXT_STEP envs only and refuses partial resets): under SAME_STEP the
    rows of ``info["final_obs"]`` (where ``info["_final_obs"]``) are normalized with the same statistics (they
    do not update them), so a value bootstrapped from them sees what the policy sees; a reset with
    ``options["reset_mask"]`` updates the statistics with the reset worlds' observations only.

    Args:
        env: a vector env with a Box observation space returning torch tensors.
        epsilon: added to the variance under the square root, > 0.

    Attributes:
        obs_rms: the :class:`~newton_gym.wrappers.running_stats.RunningMeanStd` of the observations.
        update_running_mean: False freezes the statistics (for evaluation).
    """

    def __init__(self, env, epsilon: float = 1e-8):
        self.epsilon = _check_epsilon(epsilon)
        super().__init__(env)
        space = env.single_observation_space
        if not isinstance(space, Box):
            raise WrapperError(f"NormalizeObservation needs a Box observation space, got {space}")
        self.single_observation_space = Box(-np.inf, np.inf, shape=space.shape, dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.obs_rms = RunningMeanStd(space.shape, device=env_device(env))
        self._autoreset_mode = autoreset_mode_of(env)
        self.update_running_mean = True

    def reset(self, *, seed=None, options=None):
        rows = reset_rows(self, options)
        obs, info = self.env.reset(seed=seed, options=options)
        return self._observe(obs, rows), info

    def step(self, actions):
        obs, rewards, terminations, truncations, info = self.env.step(actions)
        obs = self._observe(obs, None)
        if self._autoreset_mode is AutoresetMode.SAME_STEP and "final_obs" in info:
            final = to_tensor(info["final_obs"], self.obs_rms.mean.device)
            done = to_tensor(info["_final_obs"], final.device).bool()
            info = dict(info, final_obs=torch.where(done[:, None], self.normalize(final), final))
        return obs, rewards, terminations, truncations, info

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        """(N, obs) float32 ``obs`` scaled by the current statistics (which it leaves as they are)."""
        scaled = (obs.to(torch.float64) - self.obs_rms.mean) / torch.sqrt(self.obs_rms.var + self.epsilon)
        return scaled.float()

    def _observe(self, obs, rows: torch.Tensor | None) -> torch.Tensor:
        obs = to_tensor(obs, self.obs_rms.mean.device)
        if self.update_running_mean:
            self.obs_rms.update(obs, rows)
        return self.normalize(obs)


class NormalizeReward(VectorWrapper):
    """Gymnasium's vector ``NormalizeReward`` for torch rewards: rewards are divided by the running standard
    deviation of each world's discounted return, ``r / sqrt(var(G) + epsilon)`` with
    ``G <- gamma * G * (1 - terminated) + r``, so that the returns' exponential moving average keeps about a fixed
    variance. As in Gymnasium, under NEXT_STEP and DISABLED the step after an episode's end neither adds to
    ``G`` nor updates the statistics, and under SAME_STEP an ended world's ``G`` restarts at 0.

    Beyond Gymnasium's: a reset with ``options["reset_mask"]`` clears the reset worlds' ``G`` only (Gymnasium's
    clears every world's).

    Args:
        env: a vector env returning torch rewards.
        gamma: discount of the return, in [0, 1].
        epsilon: added to the variance under the square root, > 0.

    Attributes:
        return_rms: the :class:`~newton_gym.wrappers.running_stats.RunningMeanStd` of the discounted returns.
        accumulated_reward: (N,) float32 discounted returns ``G``.
        update_running_mean: False freezes the statistics (for evaluation).
    """

    def __init__(self, env, gamma: float = 0.99, epsilon: float = 1e-8):
        if not 0.0 <= gamma <= 1.0:
            raise WrapperError(f"gamma must be in [0, 1], got {gamma!r}")
        self.gamma = float(gamma)
        self.epsilon = _check_epsilon(epsilon)
        super().__init__(env)
        device = env_device(env)
        self.return_rms = RunningMeanStd((), device=device)
        self.accumulated_reward = torch.zeros(self.num_envs, dtype=torch.float32, device=device)
        self._prev_dones = torch.zeros(self.num_envs, dtype=torch.bool, device=device)
        self._autoreset_mode = autoreset_mode_of(env)
        self.update_running_mean = True

    def reset(self, *, seed=None, options=None):
        rows = reset_rows(self, options)
        result = self.env.reset(seed=seed, options=options)
        self.accumulated_reward.masked_fill_(rows, 0.0)
        self._prev_dones.masked_fill_(rows, False)
        return result

    def step(self, actions):
        obs, rewards, terminations, truncations, info = self.env.step(actions)
        device = self.accumulated_reward.device
        reward = to_tensor(rewards, device)
        terminated = to_tensor(terminations, device).bool()
        if self._autoreset_mode is AutoresetMode.SAME_STEP:
            active = torch.ones_like(self._prev_dones)
        else:
            active = ~self._prev_dones
        discounted = self.accumulated_reward * self.gamma * (~terminated).float() + reward
        self.accumulated_reward = torch.where(active, discounted, self.accumulated_reward).float()
        if self.update_running_mean:
            self.return_rms.update(self.accumulated_reward, active)
        self._prev_dones = terminated | to_tensor(truncations, device).bool()
        if self._autoreset_mode is AutoresetMode.SAME_STEP:
            self.accumulated_reward.masked_fill_(self._prev_dones, 0.0)
        scale = torch.sqrt(self.return_rms.var + self.epsilon)
        return obs, (reward / scale).to(reward.dtype), terminations, truncations, info
