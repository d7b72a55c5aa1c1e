"""RslRlVecEnv: a NewtonVectorEnv as rsl_rl's ``VecEnv`` (rsl-rl-lib 5.5.1).

rsl_rl's contract (``rsl_rl/env/vec_env.py``) and how this adapter meets it:

- ``get_observations()``: a TensorDict, batch size (N,), of observation groups: ``"policy"`` (N, obs) the
  task's observation and ``"critic"`` (N, critic obs) its privileged one (absent when the task has none).
- ``step(actions)`` -> (observations, rewards (N,), dones (N,), extras); dones = terminated or truncated,
  as long 0 / 1.
- ``extras["time_outs"]`` (N,): the truncations; rsl_rl's PPO adds ``gamma * V(s_t)`` to the reward of a
  timed-out step (its bootstrap), and treats every done as the end of the return chain.
- ``extras["finished_episodes"]``: the environment's ``info["newton_episode"]`` (``r``, ``l``, ``_r``) in a
  step where an episode ended, for the runner's learning curve (rsl_rl does not read it);
- ``extras["log"]``: ``"Reward/<term>"``, the mean over worlds of each named reward term this step;
  rsl_rl's logger averages them over an iteration's steps and writes each as its own TensorBoard scalar.
- ``num_envs``, ``num_actions``, ``max_episode_length``, ``device``, ``cfg``: the environment's;
  ``episode_length_buf`` is the environment's own step counter, so rsl_rl's random start lengths reach it.

Autoreset. NewtonVectorEnv resets a finished world inside ``step()`` (Gymnasium's SAME_STEP mode) and
returns the new episode's first observation, which is what rsl_rl (written for Isaac Lab's envs, which
do the same) feeds to the next ``act``. The critic observation is read after the step, so it matches.
Actions go to the environment as they are; it clips them to its action box.
"""

from __future__ import annotations

import torch
from gymnasium.vector import AutoresetMode

from ..errors import ConfigError

INSTALL_HINT = "the rsl_rl backend needs rsl-rl-lib 5.5.1: pip install 'newton-gym[rsl_rl]'"

try:
    from rsl_rl.env import VecEnv
    from tensordict import TensorDict
except ImportError as exc:  # an optional extra
    raise ImportError(f"{INSTALL_HINT} ({exc})") from exc

__all__ = ["RslRlVecEnv", "INSTALL_HINT"]


class RslRlVecEnv(VecEnv):
    """Wraps a NewtonVectorEnv (torch tensors, SAME_STEP autoreset) for rsl_rl's runners.

    Args:
        env: the vector environment.
        seed: seed of the first reset, done here.
    """

    def __init__(self, env, seed: int | None = None):
        mode = getattr(env, "metadata", {}).get("autoreset_mode")
        if mode is not None and mode != AutoresetMode.SAME_STEP:
            raise ConfigError(f"RslRlVecEnv needs SAME_STEP autoreset, the environment uses {mode}")
        self.env = env
        self.num_envs = int(env.num_envs)
        self.num_actions = int(env.single_action_space.shape[0])
        self.max_episode_length = int(env.cfg.max_episode_steps)
        self.device = env.device
        self.cfg = env.cfg
        obs, _ = env.reset(seed=seed)
        self._obs = self._group(obs)

    @property
    def has_critic_observation(self) -> bool:
        """Whether the observations carry a "critic" group."""
        return "critic" in self._obs.keys()

    @property
    def episode_length_buf(self) -> torch.Tensor:
        """(N,) long: steps taken in each world's current episode (the environment's counter)."""
        return self.env.episode_length

    @episode_length_buf.setter
    def episode_length_buf(self, value: torch.Tensor):
        # rsl_rl assigns a new tensor (random start lengths); copy it into the counter the env reads.
        self.env.episode_length.copy_(value.to(self.env.episode_length))

    def get_observations(self) -> TensorDict:
        """The observation groups of the current state (after the last reset or step)."""
        return self._obs

    def restart(self) -> TensorDict:
        """Reset every world without reseeding (each world's stream goes on; a resumed run starts so)."""
        obs, _ = self.env.reset()
        self._obs = self._group(obs)
        return self._obs

    def step(self, actions: torch.Tensor):
        """Step every world: (observations, rewards (N,), dones (N,) long, extras)."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        self._obs = self._group(obs)
        dones = (terminated | truncated).long()
        log = {f"Reward/{name}": term.mean() for name, term in info["reward_terms"].items()}
        log.update({f"Task/{name}": value for name, value in info.get("task", {}).items()})
        extras = {"time_outs": truncated, "log": log}
        if "newton_episode" in info:
            extras["finished_episodes"] = info["newton_episode"]
        return self._obs, reward, dones, extras

    def close(self):
        self.env.close()

    def _group(self, obs: torch.Tensor) -> TensorDict:
        groups = {"policy": obs}
        critic = self.env.critic_observation() if hasattr(self.env, "critic_observation") else None
        if critic is not None:
            groups["critic"] = critic
        return TensorDict(groups, batch_size=[self.num_envs], device=obs.device)
