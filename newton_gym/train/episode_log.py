"""Episode bookkeeping during training: finished-episode returns, named reward terms, the learning curve.

Reads what NewtonVectorEnv puts in ``info``: ``info["newton_episode"] = {"r", "l", "_r"}`` for the worlds whose
episode ended this step and ``info["reward_terms"]`` (named (N,) reward terms). Everything stays on the
device during an iteration; one host transfer happens per finished-episode step and per iteration.
"""

from __future__ import annotations

import collections
import csv
import io
import math

import torch

from .checkpoint_io import write_text

__all__ = ["EpisodeLog"]


class EpisodeLog:
    """Collects returns of finished episodes and the mean of each reward term per iteration.

    Args:
        num_envs: worlds of this process.
        window: number of most recent episodes in the running mean return.

    Attributes:
        curve: list of (env_steps, mean return of the last ``window`` episodes, episodes so far) rows, one
            per iteration that had finished episodes by then.
        first_returns: returns of the first ``num_envs`` finished episodes (the untrained policy).
    """

    def __init__(self, num_envs: int, window: int = 100):
        self.num_envs = int(num_envs)
        self.recent = collections.deque(maxlen=max(int(window), 1))
        self.recent_lengths = collections.deque(maxlen=max(int(window), 1))
        self.first_returns: list[float] = []
        self.episodes = 0
        self.curve: list[tuple[int, float, int]] = []
        self._terms: dict[str, float] = {}
        self._term_names: tuple = ()
        self._term_sums: torch.Tensor | None = None  # (terms,) on the device, summed over the iteration
        self._reward_sum: torch.Tensor | None = None
        self._term_steps = 0

    def on_step(self, info: dict, reward: torch.Tensor | None = None) -> None:
        """Record one vector step's info (and its (N,) or (N, 1) reward, for the mean step reward)."""
        terms = info.get("reward_terms")
        if terms:
            names = tuple(terms)
            sums = torch.stack([t.detach() for t in terms.values()]).sum(dim=1)  # one op for all terms
            if names != self._term_names or self._term_sums is None:
                self._flush_terms()
                self._term_names, self._term_sums = names, sums
            else:
                self._term_sums += sums
        if reward is not None:
            total = reward.detach().sum()
            self._reward_sum = total if self._reward_sum is None else self._reward_sum + total
        self._term_steps += self.num_envs
        episode = info.get("newton_episode")
        if episode is None:
            return
        done = torch.as_tensor(episode["_r"]).bool()
        returns = torch.as_tensor(episode["r"])[done].double().cpu().tolist()
        lengths = torch.as_tensor(episode["l"])[done].cpu().tolist()
        self.recent.extend(returns)
        self.recent_lengths.extend(lengths)
        self.episodes += len(returns)
        room = self.num_envs - len(self.first_returns)
        if room > 0:
            self.first_returns.extend(returns[:room])

    def _flush_terms(self) -> None:
        """Move the device sums into ``_terms`` (one host transfer)."""
        if self._term_sums is not None:
            for name, value in zip(self._term_names, self._term_sums.tolist()):
                self._terms[name] = self._terms.get(name, 0.0) + value
        self._term_names, self._term_sums = (), None

    @property
    def mean_return(self) -> float:
        """Mean return of the last ``window`` episodes (nan before the first one ends)."""
        return sum(self.recent) / len(self.recent) if self.recent else math.nan

    @property
    def mean_length(self) -> float:
        return sum(self.recent_lengths) / len(self.recent_lengths) if self.recent_lengths else math.nan

    @property
    def start_return(self) -> float:
        """Mean return of the first finished episodes (nan before the first one ends)."""
        return sum(self.first_returns) / len(self.first_returns) if self.first_returns else math.nan

    def end_iteration(self, env_steps: int) -> dict[str, float]:
        """Close an iteration: append a curve point; returns the scalars to log (reward terms are per
        env step)."""
        self._flush_terms()
        steps = max(self._term_steps, 1)
        scalars = {f"Reward terms / {k}": v / steps for k, v in self._terms.items()}
        if self._reward_sum is not None:
            scalars["Reward / Instantaneous reward (mean)"] = float(self._reward_sum) / steps
        self._terms, self._term_steps, self._reward_sum = {}, 0, None
        if self.recent:
            self.curve.append((int(env_steps), self.mean_return, self.episodes))
            scalars["Episode / mean return"] = self.mean_return
            scalars["Episode / mean length"] = self.mean_length
        return scalars

    def write_csv(self, path: str) -> str:
        """Write the learning curve as CSV (env_steps, mean_return, episodes), atomically."""
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(["env_steps", "mean_return", "episodes"])
        writer.writerows(self.curve)
        return write_text(path, text.getvalue())

    def state_dict(self) -> dict:
        """What a resumed run continues from, as plain lists and numbers: the curve, the recent returns
        and lengths, the first returns and the episode count (not the current iteration's sums)."""
        return {
            "curve": [list(row) for row in self.curve],
            "recent": list(self.recent),
            "recent_lengths": list(self.recent_lengths),
            "first_returns": list(self.first_returns),
            "episodes": int(self.episodes),
        }

    def load_state_dict(self, state: dict) -> None:
        """Continue from a :meth:`state_dict`."""
        self.curve = [(int(s), float(r), int(e)) for s, r, e in state["curve"]]
        self.recent.clear()
        self.recent.extend(state["recent"])
        self.recent_lengths.clear()
        self.recent_lengths.extend(state["recent_lengths"])
        self.first_returns = list(state["first_returns"])[: self.num_envs]
        self.episodes = int(state["episodes"])
