"""What every sensor shares: its error type, the checks of its body indices, and world masks for resets."""

from __future__ import annotations

import numpy as np
import torch
import warp as wp

from ..errors import NewtonGymError

__all__ = ["SensorError", "body_index_array", "mask_array"]


class SensorError(NewtonGymError, ValueError):
    """A sensor was given an invalid argument (body indices, sizes, a scene it cannot cast rays into); the
    message names the argument at fault and says what would be valid. Derives from ValueError."""


def body_index_array(model, body_indices, ndim: int, name: str = "body_indices") -> wp.array:
    """``body_indices`` as an int32 Warp array on the model's device, after checking that it has ``ndim``
    axes, at least one entry, and only indices of bodies of ``model``."""
    idx = np.asarray(body_indices.cpu() if isinstance(body_indices, torch.Tensor) else body_indices)
    if idx.ndim != ndim or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise SensorError(f"{name} must be a non-empty {ndim}-D array of integer body indices, got shape {idx.shape}")
    bad = (idx < 0) | (idx >= model.body_count)
    if bad.any():
        raise SensorError(
            f"{name} holds {idx[bad].tolist()[:5]}: not a body of the model (valid: 0 to {model.body_count - 1})"
        )
    return wp.array(idx.astype(np.int32), dtype=wp.int32, device=model.device)


def mask_array(mask, count: int, device, name: str = "mask") -> wp.array:
    """A (count,) bool Warp array for ``mask``: a Warp array is passed on as it is (no copy, so a reset
    stays capturable), a torch tensor is viewed zero-copy where its device and dtype allow, anything else
    is copied."""
    if isinstance(mask, wp.array):
        arr = mask
    elif (
        isinstance(mask, torch.Tensor)
        and mask.dtype == torch.bool
        and str(mask.device) == str(wp.device_to_torch(device))
    ):
        arr = wp.from_torch(mask.contiguous(), dtype=wp.bool)
    else:
        values = mask.cpu().numpy() if isinstance(mask, torch.Tensor) else np.asarray(mask)
        arr = wp.array(values.astype(bool), dtype=wp.bool, device=device)
    if arr.shape != (count,):
        raise SensorError(f"{name} must have shape ({count},), got {tuple(arr.shape)}")
    return arr
