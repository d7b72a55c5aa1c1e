"""ClipAction and RescaleAction over a torch vector env: the action transform runs on the env's device."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.spaces import Box
from gymnasium.vector import VectorActionWrapper
from gymnasium.vector.utils import batch_space

from ..errors import WrapperError
from .common import env_device, to_tensor

__all__ = ["ClipAction", "RescaleAction"]


def _box(env, wrapper: str) -> Box:
    space = env.single_action_space
    if not isinstance(space, Box):
        raise WrapperError(f"{wrapper} needs a Box action space, got {space}")
    return space


class ClipAction(VectorActionWrapper):
    """Gymnasium's vector ``ClipAction`` for torch actions: the wrapper's action space is unbounded and each
    action is clipped into the env's bounds before the env sees it (NaN stays NaN, for the env's own
    ``nan_action`` policy). Actions may be tensors or arrays; they reach the env as tensors on its device.

    Args:
        env: a vector env with a Box action space.
    """

    def __init__(self, env):
        space = _box(env, "ClipAction")
        super().__init__(env)
        self.single_action_space = Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        device = env_device(env)
        self._low = torch.as_tensor(space.low, dtype=torch.float64, device=device)
        self._high = torch.as_tensor(space.high, dtype=torch.float64, device=device)

    def actions(self, actions) -> torch.Tensor:
        """(N, action) ``actions`` clipped into the env's action bounds (an integer array is passed on as is)."""
        a = to_tensor(actions, self._low.device)
        if not a.is_floating_point():
            return a
        return torch.clamp(a, self._low.to(a.dtype), self._high.to(a.dtype))


class RescaleAction(VectorActionWrapper):
    """Gymnasium's vector ``RescaleAction`` for torch actions: the wrapper's action space is the box
    [min_action, max_action] and an action ``a`` reaches the env as ``low + (high - low) * (a - min_action) /
    (max_action - min_action)``, the affine map onto the env's bounds [low, high].

    Args:
        env: a vector env with a Box action space of finite bounds.
        min_action, max_action: the new bounds, a number or an array of the single action shape;
            min_action < max_action in every entry.
    """

    def __init__(self, env, min_action, max_action):
        space = _box(env, "RescaleAction")
        super().__init__(env)
        new_min = self._bound(min_action, "min_action", space.shape)
        new_max = self._bound(max_action, "max_action", space.shape)
        if not np.all(new_min < new_max):
            raise WrapperError(
                f"min_action ({min_action}) must be smaller than max_action ({max_action}) in every entry: the "
                "rescaling has no inverse where they are equal"
            )
        low, high = space.low.astype(np.float64), space.high.astype(np.float64)
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise WrapperError(f"RescaleAction needs an action space with finite bounds, got {space}")
        self.single_action_space = Box(new_min.astype(space.dtype), new_max.astype(space.dtype), dtype=space.dtype)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        device = env_device(env)
        self._scale = torch.as_tensor((high - low) / (new_max - new_min), device=device)
        self._new_min = torch.as_tensor(new_min, device=device)
        self._low = torch.as_tensor(low, device=device)

    @staticmethod
    def _bound(value, name: str, shape: tuple) -> np.ndarray:
        try:
            bound = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise WrapperError(f"{name} must be a number or an array of shape {shape}, got {value!r}") from None
        if bound.shape not in ((), shape):
            raise WrapperError(f"{name} must be a number or an array of shape {shape}, got shape {bound.shape}")
        if not np.all(np.isfinite(bound)):
            raise WrapperError(f"{name} must be finite, got {value!r}")
        return np.broadcast_to(bound, shape).copy()

    def actions(self, actions) -> torch.Tensor:
        """(N, action) ``actions`` mapped from [min_action, max_action] onto the env's bounds."""
        a = to_tensor(actions, self._low.device)
        dtype = a.dtype if a.is_floating_point() else torch.float64
        return (self._low + (a.to(torch.float64) - self._new_min) * self._scale).to(dtype)
