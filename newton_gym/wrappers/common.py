"""What the torch wrappers share: the wrapped env's device and autoreset mode, tensors of its outputs, reset masks."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from ..errors import WrapperError

__all__ = ["autoreset_mode_of", "env_device", "reset_rows", "to_tensor"]


def env_device(env) -> torch.device:
    """The torch device of ``env``'s tensors: its base env's ``device`` (the CPU for an env without one)."""
    return torch.device(getattr(env.unwrapped, "device", "cpu"))


def autoreset_mode_of(env) -> AutoresetMode:
    """``env.metadata["autoreset_mode"]``; NEXT_STEP where the metadata names none (as Gymnasium assumes)."""
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    if not isinstance(mode, AutoresetMode):
        raise WrapperError(f"env.metadata['autoreset_mode'] must be a gymnasium AutoresetMode, got {mode!r}")
    return mode


def to_tensor(value, device: torch.device) -> torch.Tensor:
    """``value`` (a tensor, array or number) as a torch tensor on ``device``."""
    if torch.is_tensor(value):
        return value.to(device)
    return torch.as_tensor(np.asarray(value), device=device)


def reset_rows(env, options) -> torch.Tensor:
    """(N,) bool tensor of the worlds a ``reset(options=...)`` resets: ``options["reset_mask"]``, or all."""
    if not options or options.get("reset_mask") is None:
        return torch.ones(env.num_envs, dtype=torch.bool, device=env_device(env))
    mask = to_tensor(options["reset_mask"], env_device(env))
    if mask.dtype != torch.bool or tuple(mask.shape) != (env.num_envs,):
        raise WrapperError(
            f"options['reset_mask'] must be a bool array of shape ({env.num_envs},), got {mask.dtype} "
            f"{tuple(mask.shape)}"
        )
    return mask
