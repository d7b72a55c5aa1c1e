"""RecordEpisodeStatistics over a torch vector env: each finished episode's return, length and wall time."""

from __future__ import annotations

import time
from collections import deque

import torch
from gymnasium.vector import AutoresetMode, VectorWrapper

from ..errors import WrapperError
from .common import autoreset_mode_of, env_device, reset_rows, to_tensor

__all__ = ["RecordEpisodeStatistics"]


class RecordEpisodeStatistics(VectorWrapper):
    """Gymnasium's vector ``RecordEpisodeStatistics`` for envs whose rewards and flags are torch tensors.

    In a step where some world's episode ends, ``info[stats_key]`` = {"r": (N,) float64 return, "l": (N,) int64
    length, "t": (N,) float64 wall time [s] rounded to 1 us} (0 for the other worlds) and
    ``info["_" + stats_key]`` the (N,) bool mask of the ended worlds; the last ``buffer_length`` episodes' values
    are kept in :attr:`return_queue`, :attr:`length_queue`, :attr:`time_queue`. Which steps count follows the
    env's autoreset mode, as in Gymnasium: under NEXT_STEP and DISABLED the step after an episode's end (the
    reset step) is not part of the next episode.

    Each step reads one bool (did any episode end) back to the host.

    Args:
        env: a vector env returning torch tensors (a NewtonVectorEnv, or a wrapper of one).
        buffer_length: length of the queues.
        stats_key: info key of the statistics; a step raises WrapperError if the env's info already holds it.

    Attributes:
        episode_returns, episode_lengths, episode_start_times: (N,) tensors of the running episodes.
        episode_count: episodes finished so far.
    """

    def __init__(self, env, buffer_length: int = 100, stats_key: str = "episode"):
        super().__init__(env)
        self._stats_key = stats_key
        self._autoreset_mode = autoreset_mode_of(env)
        device = env_device(env)
        self.episode_count = 0
        self.episode_start_times = torch.zeros(self.num_envs, dtype=torch.float64, device=device)
        self.episode_returns = torch.zeros(self.num_envs, dtype=torch.float64, device=device)
        self.episode_lengths = torch.zeros(self.num_envs, dtype=torch.int64, device=device)
        self.prev_dones = torch.zeros(self.num_envs, dtype=torch.bool, device=device)
        self.time_queue = deque(maxlen=buffer_length)
        self.return_queue = deque(maxlen=buffer_length)
        self.length_queue = deque(maxlen=buffer_length)

    def reset(self, *, seed=None, options=None):
        """Reset the env, and the statistics of the worlds it resets (all, or ``options["reset_mask"]``)."""
        rows = reset_rows(self, options)
        obs, info = self.env.reset(seed=seed, options=options)
        self._restart(rows, time.perf_counter())
        self.prev_dones.masked_fill_(rows, False)
        return obs, info

    def step(self, actions):
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        if not isinstance(infos, dict):
            raise WrapperError(f"RecordEpisodeStatistics needs info to be a dict, got {type(infos).__name__}")
        device = self.episode_returns.device
        rewards_t = to_tensor(rewards, device).to(torch.float64)
        now = time.perf_counter()
        if self._autoreset_mode is AutoresetMode.SAME_STEP:
            self.episode_returns += rewards_t
            self.episode_lengths += 1
        else:  # the step after an end resets that world: it starts the next episode's count at 0
            self._restart(self.prev_dones, now)
            live = ~self.prev_dones
            self.episode_returns += torch.where(live, rewards_t, 0.0)
            self.episode_lengths += live.long()
        dones = to_tensor(terminations, device).bool() | to_tensor(truncations, device).bool()
        self.prev_dones = dones
        if bool(dones.any()):
            self._record(dones, now, infos)
        return obs, rewards, terminations, truncations, infos

    def _record(self, dones: torch.Tensor, now: float, infos: dict) -> None:
        """Write the ended worlds' statistics into ``infos`` and the queues."""
        key = self._stats_key
        if key in infos or f"_{key}" in infos:
            raise WrapperError(
                f"stats_key {key!r}: the env's info already holds it ({sorted(infos)}); pass another stats_key"
            )
        elapsed = torch.round(now - self.episode_start_times, decimals=6)
        infos[key] = {
            "r": torch.where(dones, self.episode_returns, 0.0),
            "l": torch.where(dones, self.episode_lengths, 0),
            "t": torch.where(dones, elapsed, 0.0),
        }
        infos[f"_{key}"] = dones.clone()  # prev_dones is masked in place by a later reset
        self.episode_count += int(dones.sum())
        self.time_queue.extend(elapsed[dones].tolist())
        self.return_queue.extend(self.episode_returns[dones].tolist())
        self.length_queue.extend(self.episode_lengths[dones].tolist())
        if self._autoreset_mode is AutoresetMode.SAME_STEP:  # those worlds were reset in this very step
            self._restart(dones, now)

    def _restart(self, rows: torch.Tensor, now: float) -> None:
        self.episode_start_times.masked_fill_(rows, now)
        self.episode_returns.masked_fill_(rows, 0.0)
        self.episode_lengths.masked_fill_(rows, 0)
