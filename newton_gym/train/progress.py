"""The training progress bar (tqdm): env steps done, their rate, the mean return and the time budget.

With a step budget (``timesteps``) the bar runs from the steps already done to ``timesteps``. With a
time budget (``minutes``) the number of steps is not known in advance: the bar is a step counter (no
total) and its postfix shows the time left of the budget, e.g. ``left=2:41``.
"""

from __future__ import annotations

import math
import sys
import time

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from one hour) of a non-negative duration."""
    seconds = max(int(seconds), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """A tqdm bar over env steps (with tqdm's step/s) and the running mean return.

    Args:
        total_steps: env steps of the whole run (0 when it is time-limited).
        seconds: time left of the budget when the bar starts [s] (read when ``total_steps`` is 0).
        start_steps: env steps done before (a resumed run); the bar starts there, its rate counts the new ones.
        enabled: False draws nothing (non-zero ranks, tests).
    """

    def __init__(self, total_steps: int, seconds: float, start_steps: int = 0, enabled: bool = True):
        self.by_steps = total_steps > 0
        self.deadline = None if self.by_steps else time.perf_counter() + max(float(seconds), 0.0)
        self.start_steps = int(start_steps)
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError as exc:
                raise ImportError("the progress bar needs tqdm: pip install 'newton-gym[train]'") from exc
            self.bar = tqdm(
                total=int(total_steps) if self.by_steps else None,
                initial=self.start_steps,
                unit="step",
                unit_scale=True,
                file=sys.stdout,
                dynamic_ncols=True,
                desc="PPO",
            )

    def postfix(self, mean_return: float) -> dict:
        """The figures after the bar's own (steps, elapsed time, step/s): the mean return and the time left
        of a time budget."""
        out = {"return": "n/a" if math.isnan(mean_return) else f"{mean_return:.1f}"}
        if self.deadline is not None:
            out["left"] = _clock(self.deadline - time.perf_counter())
        return out

    def update(self, env_steps: int, mean_return: float) -> None:
        """Move the bar to ``env_steps`` and refresh its postfix."""
        if self.bar is None:
            return
        self.bar.update(max(env_steps - self.bar.n, 0))
        self.bar.set_postfix(self.postfix(mean_return), refresh=True)

    def write(self, log, line: str) -> None:
        """Print ``line`` with ``log`` without breaking the bar."""
        if self.bar is None:
            log(line)
        else:
            self.bar.clear()
            log(line)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
