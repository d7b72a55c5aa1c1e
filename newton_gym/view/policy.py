"""Policies the viewer runs: a checkpoint's deterministic policy, zero actions, or the newest checkpoint of a
training run.

Checkpoints are read by :func:`newton_gym.train.checkpoint.load_policy`, which takes both layouts
``newton-gym train`` writes, skrl's (``checkpoints/agent_<i>.pt``, ``final.pt``) and rsl_rl's
(``model_<i>.pt``), and needs neither library.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

import torch

from ..errors import ConfigError, ViewError

__all__ = ["LoadedPolicy", "load_checkpoint_policy", "zero_policy", "newest_checkpoint", "PolicyFollower"]


@dataclass
class LoadedPolicy:
    """A policy callable and where it came from.

    Attributes:
        act: (N, obs) torch observations -> (N, action) torch actions.
        meta: the checkpoint's newton_gym metadata ({} for zero actions); ``meta["task"]`` names its task.
        source: the checkpoint path, or "zero actions".
    """

    act: object
    meta: dict
    source: str


def load_checkpoint_policy(path: str) -> LoadedPolicy:
    """The deterministic policy of a checkpoint ``newton-gym train`` wrote (either backend) or a shipped one.

    Raises:
        ConfigError: ``path`` is missing, unreadable or not a newton_gym checkpoint (the loader's
            :class:`~newton_gym.errors.CheckpointError`).
    """
    from ..train.checkpoint import load_policy

    policy = load_policy(path)
    return LoadedPolicy(policy, dict(policy.meta), path)


def zero_policy(action_size: int) -> LoadedPolicy:
    """Zero actions of ``action_size`` per world (the robot under its actuators' rest targets)."""

    def act(obs: torch.Tensor) -> torch.Tensor:
        return torch.zeros(obs.shape[0], action_size, dtype=torch.float32, device=obs.device)

    return LoadedPolicy(act, {}, "zero actions")


def newest_checkpoint(run_dir: str) -> str | None:
    """The most recently written ``*.pt`` in ``run_dir`` or ``run_dir/checkpoints`` (None if there is none).

    skrl runs keep ``checkpoints/agent_<i>.pt`` and ``final.pt``, rsl_rl runs ``model_<i>.pt`` at the top.
    """
    if not os.path.isdir(run_dir):
        raise ViewError(f"follow: run directory {run_dir!r} does not exist")
    paths = glob.glob(os.path.join(run_dir, "*.pt")) + glob.glob(os.path.join(run_dir, "checkpoints", "*.pt"))
    stamped = []
    for p in paths:
        try:
            stamped.append((os.path.getmtime(p), p))
        except OSError:  # removed between the listing and the stat
            continue
    return max(stamped)[1] if stamped else None


class PolicyFollower:
    """Reloads the newest checkpoint of a training run when a newer one appears.

    Args:
        run_dir: the run's output directory (``newton-gym train --out``).
        log: called with one line per reload or failed load.
    """

    def __init__(self, run_dir: str, log=print):
        self.run_dir = run_dir
        self.log = log
        self.current: LoadedPolicy | None = None
        self._seen: tuple | None = None

    def poll(self) -> LoadedPolicy | None:
        """The newly loaded policy when the newest checkpoint changed since the last call, else None.

        A checkpoint that fails to load (a foreign ``.pt``) is reported once and skipped; the policy
        loaded before stays in use.
        """
        path = newest_checkpoint(self.run_dir)
        if path is None:
            return None
        try:
            stamp = (path, os.path.getmtime(path))
        except OSError:
            return None
        if stamp == self._seen:
            return None
        self._seen = stamp
        try:
            self.current = load_checkpoint_policy(path)
        except (ConfigError, OSError, RuntimeError, KeyError) as exc:
            self.log(f"newton-gym view: cannot load {path}: {exc}")
            return None
        self.log(f"newton-gym view: policy from {path}")
        return self.current
