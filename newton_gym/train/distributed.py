"""torch.distributed set-up for ``torchrun`` training, and the one import point of skrl.

skrl reads ``WORLD_SIZE`` / ``RANK`` / ``LOCAL_RANK`` when it is first imported and, when
``WORLD_SIZE > 1``, calls ``init_process_group("nccl")`` and ``torch.cuda.set_device`` itself (skrl
2.1.1, ``skrl/__init__.py``). That fails on a CPU-only machine. So this module creates the process group
itself (gloo on CPU, NCCL on CUDA), imports skrl with ``WORLD_SIZE`` hidden, and then hands skrl the rank
and world size. From then on skrl's own distributed code runs unchanged: the PPO agent broadcasts rank
0's parameters at construction, all-reduces (averages) gradients after every backward pass, averages the
KL of the adaptive learning-rate schedule, and only rank 0 writes TensorBoard data.

What skrl does not synchronise, :func:`sync_running_scaler` does: the running mean/variance of the
observation and value normalisers (each rank sees only its own worlds).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import torch

__all__ = [
    "DistInfo",
    "init_distributed",
    "shutdown_distributed",
    "import_skrl",
    "sync_running_scaler",
    "all_reduce_mean",
    "any_rank",
]

_DRAIN_S = 0.2  # [s] for gloo's threads to drop their finished collectives before the interpreter exits

_INSTALL_HINT = "training needs skrl, tensorboard and tqdm: pip install 'newton-gym[train]'"


@dataclass(frozen=True)
class DistInfo:
    """Where this process stands in a torchrun group (rank 0 of 1 without torchrun)."""

    rank: int = 0
    local_rank: int = 0
    world_size: int = 1

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def _env_info() -> DistInfo:
    return DistInfo(int(os.getenv("RANK", "0")), int(os.getenv("LOCAL_RANK", "0")), int(os.getenv("WORLD_SIZE", "1")))


def init_distributed(device: str) -> tuple[DistInfo, str]:
    """Join the torchrun group if there is one; returns (info, device of this process).

    ``device`` "cuda" or "cuda:K" becomes ``cuda:LOCAL_RANK`` under torchrun (one GPU per process).
    """
    info = _env_info()
    if not info.enabled:
        return info, device
    import torch.distributed as dist

    cuda = device.startswith("cuda")
    if cuda:
        device = f"cuda:{info.local_rank}"
        torch.cuda.set_device(info.local_rank)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if cuda else "gloo", rank=info.rank, world_size=info.world_size)
    _configure_skrl(info)
    return info, device


def shutdown_distributed(info: DistInfo) -> None:
    """Leave the torchrun group that :func:`init_distributed` joined: wait for every rank, destroy the process
    group, then let gloo's threads finish with their last collectives (no-op outside torchrun or once done).
    Without it a rank died now and then with "terminate called without an active exception" (SIGABRT) at
    exit, after its training had finished (1 run in 9 of the two-process test before any of this)."""
    if not info.enabled:
        return
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        try:
            dist.barrier()
        finally:
            dist.destroy_process_group()
        # gloo's worker threads drop each finished collective just after it completes, and with it the last
        # reference to its tensors, which takes the GIL. A drop that comes once the interpreter is finalizing
        # aborts the process (core dump: ~AsyncBarrierWork -> ~AsyncAllreduceWork -> decref_pyobject ->
        # take_gil -> pthread_exit -> std::terminate). The group's threads outlive destroy_process_group, so
        # give them the GIL for a moment while the interpreter is still whole.
        time.sleep(_DRAIN_S)


def import_skrl():
    """Import skrl (the caller then imports what it needs from it); an ImportError names the extra."""
    info = _env_info()
    saved = os.environ.get("WORLD_SIZE")
    # Hide the group from skrl's import-time set-up (NCCL only); init_distributed configures it instead.
    if info.enabled:
        os.environ["WORLD_SIZE"] = "1"
    try:
        import skrl  # noqa: F401
        import skrl.agents.torch.ppo  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from exc
    finally:
        if saved is not None:
            os.environ["WORLD_SIZE"] = saved
    return skrl


def _configure_skrl(info: DistInfo):
    skrl = import_skrl()
    cfg = skrl.config.torch
    cfg._rank, cfg._local_rank, cfg._world_size = info.rank, info.local_rank, info.world_size
    cfg._is_distributed = info.enabled


def sync_running_scaler(scaler) -> None:
    """Average an skrl RunningStandardScaler's statistics over the group (no-op outside torchrun).

    Every rank collects the same number of samples, so the pooled mean is the mean of the means and the
    pooled variance is mean(var + mean^2) - pooled_mean^2.
    """
    import torch.distributed as dist

    if scaler is None or not hasattr(scaler, "running_mean") or not (dist.is_available() and dist.is_initialized()):
        return
    n = dist.get_world_size()
    stats = torch.stack([scaler.running_mean, scaler.running_variance + scaler.running_mean**2])
    dist.all_reduce(stats, op=dist.ReduceOp.SUM)
    stats /= n
    scaler.running_mean.copy_(stats[0])
    scaler.running_variance.copy_((stats[1] - stats[0] ** 2).clamp_min(0.0))


def all_reduce_mean(value: float, device="cpu") -> float:
    """Mean of a float over the group (the value itself outside torchrun)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return float(value)
    t = torch.tensor([float(value)], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return float(t.item()) / dist.get_world_size()


def any_rank(flag: bool, device="cpu") -> bool:
    """True on every rank when ``flag`` is True on any (keeps the ranks' loops in step)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return bool(flag)
    t = torch.tensor([1.0 if flag else 0.0], device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item() > 0)
