"""Stopping a training run cleanly on SIGINT (Ctrl-C) or SIGTERM (``kill``, a batch scheduler).

- :class:`StopSignals`: inside ``with``, SIGINT and SIGTERM set ``requested`` instead of raising; the
  training loops poll it, drop the rollout in progress (or finish the update in progress) and save;
- :func:`sigterm_raises_interrupt`: inside ``with``, SIGTERM raises KeyboardInterrupt as SIGINT does (the
  set-up before the loop, where there is nothing to save);
- :func:`interrupted_line`: the one line a stopped run prints: where its checkpoint, curve and config are;
- :data:`INTERRUPTED_EXIT_CODE`: 130, what ``newton-gym train`` exits with after either signal.

Handlers can only be set from the main thread; elsewhere both context managers change nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

__all__ = ["StopSignals", "sigterm_raises_interrupt", "interrupted_line", "INTERRUPTED_EXIT_CODE"]

#: Exit status of a run stopped by SIGINT or SIGTERM (128 + SIGINT, the shell's convention for Ctrl-C).
INTERRUPTED_EXIT_CODE = 130

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class StopSignals:
    """Within ``with``: SIGINT and SIGTERM record a stop request; the previous handlers come back on exit.

    Attributes:
        requested: True once either signal arrived.
        signal_name: "SIGINT" or "SIGTERM", the first that arrived (None before).
    """

    def __init__(self):
        self.requested = False
        self.signal_name: str | None = None
        self._previous = {}

    def _handle(self, signum, frame):
        if not self.requested:
            self.requested = True
            self.signal_name = signal.Signals(signum).name

    def __enter__(self) -> StopSignals:
        if _main_thread():
            for sig in _SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def sigterm_raises_interrupt():
    """Within ``with``, SIGTERM raises KeyboardInterrupt (as SIGINT does by default)."""
    if not _main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted_line(
    signal_name: str | None, iteration: int, env_steps: int, checkpoint: str, curve: str, run_dir: str
) -> str:
    """One line: which signal stopped the run where, the files it saved, and the command that continues it."""
    by = f" by {signal_name}" if signal_name else ""
    return (
        f"interrupted{by} at iteration {iteration} ({env_steps} env steps); saved checkpoint {checkpoint}, "
        f"learning curve {curve}, config {os.path.join(run_dir, 'config.json')}; "
        f"continue with: newton-gym train --resume {run_dir}"
    )
