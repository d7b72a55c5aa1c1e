"""``newton-gym train --resume RUN_DIR|CHECKPOINT``: where a run continues from, with which config.

A resumed run continues, in its own run directory, from a checkpoint ``newton-gym train`` wrote:

- iteration, env steps and wall-clock so far: metadata ``iteration``, ``env_steps``, ``seconds``;
- networks and optimizer (Adam moments, learning rate): skrl ``policy``, ``value``, ``optimizer``; rsl_rl
  ``actor_state_dict``, ``critic_state_dict``, ``optimizer_state_dict``;
- learning-rate schedule: skrl ``learning_rate_scheduler`` (KLAdaptiveLR); rsl_rl's adaptive rate is the
  optimizer's;
- observation / value normalisers: skrl ``observation_preprocessor``, ``value_preprocessor``; rsl_rl's
  are inside the actor and critic state dicts;
- RNG state (:mod:`newton_gym.train.rng_state`): skrl ``resume["rng"]``, rsl_rl ``infos["resume"]["rng"]``;
- learning curve and recent episode returns (:class:`~newton_gym.train.episode_log.EpisodeLog`):
  ``resume["episodes"]`` / ``infos["resume"]["episodes"]``, and rsl_rl's logger buffers and totals;
- TensorBoard: the same run directory; new scalars continue the old steps.

Budgets count the whole run: ``timesteps``, ``rsl_rl.max_iterations`` and ``minutes`` include what was
done before the interruption, so an interrupted run resumed with its own config stops where it would have
stopped; give a larger budget (``--minutes``, ``--timesteps``) to train a finished run further.

A checkpoint without the ``resume`` entry (written before newton_gym saved one) still continues the
networks, optimizer, schedule, normalisers and counts; its RNG is reseeded from the seed and the
iteration, and its learning curve starts anew.

Given a run directory, the checkpoint with the highest iteration is taken (``checkpoints/agent_<i>.pt``
and ``checkpoints/final.pt`` for skrl, ``model_<i>.pt`` for rsl_rl).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

from ..errors import CheckpointError
from .checkpoint import checkpoint_backend, checkpoint_meta, load_checkpoint
from .config import TrainCfg, load_train_config

__all__ = ["ResumePoint", "find_checkpoint", "resume_point", "run_dir_of", "NO_RESUME_STATE"]

#: The line a run logs when its checkpoint holds no ``resume`` entry.
NO_RESUME_STATE = (
    "the checkpoint holds no RNG state or episode log (an older newton_gym wrote it): the RNG is reseeded "
    "from the seed and the iteration, and the learning curve starts anew"
)

#: What a checkpoint needs besides the policy to be resumed, per backend.
_TRAINING_STATE = {
    "skrl": ("value", "optimizer"),
    "rsl_rl": ("critic_state_dict", "optimizer_state_dict"),
}


@dataclass
class ResumePoint:
    """A checkpoint to continue from.

    Attributes:
        checkpoint: absolute path of the checkpoint file.
        run_dir: the run directory it belongs to (the resumed run writes there).
        backend: "skrl" or "rsl_rl".
        data: the checkpoint dict.
        cfg: the run's training config, with the budget / device overrides applied.
    """

    checkpoint: str
    run_dir: str
    backend: str
    data: dict
    cfg: TrainCfg

    @property
    def meta(self) -> dict:
        return checkpoint_meta(self.data)


def _iteration_of(path: str) -> int:
    """The iteration a checkpoint file name states (``agent_<i>.pt``, ``model_<i>.pt``); final.pt's is read."""
    found = re.fullmatch(r"(?:agent|model)_(\d+)\.pt", os.path.basename(path))
    if found:
        return int(found.group(1))
    return int(checkpoint_meta(load_checkpoint(path)).get("iteration", -1))


def find_checkpoint(path: str) -> str:
    """``path`` if it is a file, else the checkpoint with the highest iteration in run directory ``path``."""
    if os.path.isfile(path):
        return os.path.abspath(path)
    if not os.path.isdir(path):
        raise CheckpointError("no such run directory or checkpoint file", path)
    candidates = glob.glob(os.path.join(path, "checkpoints", "agent_*.pt"))
    candidates += glob.glob(os.path.join(path, "checkpoints", "final.pt"))
    candidates += glob.glob(os.path.join(path, "model_*.pt"))
    if not candidates:
        raise CheckpointError(
            "no checkpoint in this run directory (looked for checkpoints/agent_<i>.pt, checkpoints/final.pt, "
            "model_<i>.pt)",
            path,
        )
    # the highest iteration; final.pt before agent_<i>.pt of the same iteration
    best = max(candidates, key=lambda p: (_iteration_of(p), os.path.basename(p) == "final.pt"))
    return os.path.abspath(best)


def run_dir_of(checkpoint: str) -> str:
    """The run directory of a checkpoint: the folder above ``checkpoints/`` (skrl), else its own folder."""
    folder = os.path.dirname(os.path.abspath(checkpoint))
    return os.path.dirname(folder) if os.path.basename(folder) == "checkpoints" else folder


def resume_point(path: str, **overrides) -> ResumePoint:
    """The :class:`ResumePoint` of run directory or checkpoint ``path``; ``overrides`` (None values ignored)
    change the run's config, e.g. ``minutes=40`` or ``device="cuda"``.

    Raises:
        CheckpointError: no checkpoint there, or one without the training state (a slim policy file).
    """
    checkpoint = find_checkpoint(path)
    data = load_checkpoint(checkpoint)
    backend = checkpoint_backend(data)
    lacking = [key for key in _TRAINING_STATE[backend] if key not in data]
    meta = checkpoint_meta(data)
    if lacking or "train_config" not in meta:
        raise CheckpointError(
            f"holds a policy but not the training state a run continues from (no {lacking or ['train_config']}); "
            "resume from a checkpoint newton-gym train wrote, not a slim or shipped policy file",
            checkpoint,
        )
    cfg = load_train_config(meta["train_config"], **overrides)
    if cfg.backend != backend:
        raise CheckpointError(f"a {backend} checkpoint whose config names backend {cfg.backend!r}", checkpoint)
    return ResumePoint(checkpoint, run_dir_of(checkpoint), backend, data, cfg)
