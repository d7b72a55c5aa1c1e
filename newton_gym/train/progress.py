"""The training progress bar (tqdm): over env steps, or over seconds when the run has a time budget."""

from __future__ import annotations

import math
import sys
import time

__all__ = ["Progress"]


class Progress:
    """A tqdm bar that shows env steps, steps/s and the running mean return.

    Args:
        total_steps: env steps of the run (0 when it is time-limited).
        seconds: time budget (used when ``total_steps`` is 0).
        enabled: False draws nothing (non-zero ranks, tests).
    """

    def __init__(self, total_steps: int, seconds: float, enabled: bool = True):
        self.by_steps = total_steps > 0
        self.start = time.perf_counter()
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError as exc:
                raise ImportError("the progress bar needs tqdm: pip install 'newton-gym[train]'") from exc
            total = int(total_steps) if self.by_steps else int(math.ceil(seconds))
            self.bar = tqdm(
                total=total,
                unit="step" if self.by_steps else "s",
                file=sys.stdout,
                dynamic_ncols=True,
                unit_scale=self.by_steps,
                desc="PPO",
            )

    def update(self, env_steps: int, mean_return: float) -> None:
        """Move the bar to ``env_steps`` (or to the elapsed seconds) and refresh its postfix."""
        if self.bar is None:
            return
        elapsed = time.perf_counter() - self.start
        target = env_steps if self.by_steps else min(int(elapsed), self.bar.total)
        self.bar.update(max(min(target, self.bar.total) - self.bar.n, 0))
        postfix = {
            "return": "n/a" if math.isnan(mean_return) else f"{mean_return:.1f}",
            "steps/s": f"{env_steps / max(elapsed, 1e-9):.0f}",
        }
        if not self.by_steps:
            postfix["steps"] = env_steps
        self.bar.set_postfix(postfix, refresh=True)

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
