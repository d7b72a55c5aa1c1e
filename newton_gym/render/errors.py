"""Argument checks of the render package (its error, RenderError, lives in newton_gym.errors)."""

from __future__ import annotations

import numpy as np

from ..errors import RenderError

__all__ = ["RenderError", "check_world", "check_positive"]


def check_world(model, world) -> int:
    """``world`` as an int in [0, max(world_count, 1)), else RenderError naming the argument."""
    rows = max(int(model.world_count), 1)
    if isinstance(world, bool) or not isinstance(world, (int, np.integer)) or not 0 <= int(world) < rows:
        raise RenderError(
            f"world must be an int in [0, {rows - 1}] (the model has {int(model.world_count)} world(s)), got {world!r}"
        )
    return int(world)


def check_positive(value, name: str, unit: str, error: type = RenderError) -> float:
    """``value`` as a finite float > 0, else ``error`` (a NewtonGymError class) naming ``name`` and its
    ``unit``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not (np.isfinite(v) and v > 0.0):
        raise error(f"{name} must be a positive number of {unit}, got {value!r}")
    return v
