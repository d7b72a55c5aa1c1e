"""Weights & Biases beside TensorBoard: one W&B run per training run, fed the TensorBoard scalars.

``wandb.init(sync_tensorboard=True)`` mirrors every scalar the backends write to TensorBoard (skrl's and
rsl_rl's writers both end in TensorBoard's event-file writer), so W&B shows the same tags at the same
steps. The W&B run lives in ``<run>/wandb`` and takes its id from the run directory, so ``--resume`` continues
the same W&B run. Without WANDB_API_KEY (or WANDB_MODE) it runs offline; ``wandb sync <run>/wandb/offline-*``
uploads it later.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os

from ..errors import ConfigError

__all__ = ["wandb_run", "wandb_mode"]


def wandb_mode() -> str:
    """W&B's mode: WANDB_MODE if set, else "online" with WANDB_API_KEY, else "offline"."""
    return os.environ.get("WANDB_MODE") or ("online" if os.environ.get("WANDB_API_KEY") else "offline")


@contextlib.contextmanager
def wandb_run(cfg, run_dir: str):
    """A W&B run around the training loop when ``cfg.wandb`` (on rank 0 only), else nothing. Must be entered
    before the backends create their TensorBoard writers."""
    if not cfg.wandb or int(os.getenv("RANK", "0")) != 0:
        yield None
        return
    try:
        import wandb
    except ImportError as exc:
        raise ConfigError("wandb = true needs Weights & Biases: pip install 'newton-gym[wandb]'") from exc
    run_dir = os.path.abspath(run_dir)
    os.makedirs(run_dir, exist_ok=True)
    run = wandb.init(
        project=os.environ.get("WANDB_PROJECT", "newton_gym"),
        name=os.path.basename(run_dir),
        id=hashlib.sha1(run_dir.encode()).hexdigest()[:16],
        resume="allow",
        dir=run_dir,
        mode=wandb_mode(),
        config=dataclasses.asdict(cfg),
        sync_tensorboard=True,
    )
    try:
        yield run
    finally:
        run.finish()
