"""Deterministic per-shape colours shared by the ray caster and the USD recorder."""

from __future__ import annotations

import colorsys

import numpy as np

from ..sim.types import GeoType
from .errors import RenderError

__all__ = ["PLANE_COLOR", "shape_colors", "check_colors"]

PLANE_COLOR = (0.78, 0.78, 0.76)
"""Base colour of planes; the ray caster alternates it with a darker shade in a checkerboard."""

_GOLDEN = 0.6180339887498949


def _palette_color(k: int) -> tuple[float, float, float]:
    # Hues spaced by the golden ratio stay apart however many colours are taken.
    hue = (0.07 + k * _GOLDEN) % 1.0
    return colorsys.hsv_to_rgb(hue, 0.6, 0.92)


def shape_colors(model) -> np.ndarray:
    """Default colour of every shape: (shape_count, 3) float32 RGB in [0, 1].

    A shape inside a world takes palette entry (shape index - the world's first shape index), so the
    copies of a robot made by ``replicate`` look alike in every world; a global shape takes its own
    index. Planes are a neutral grey.
    """
    n = int(model.shape_count)
    types = model.shape_type.numpy() if n else np.zeros(0, dtype=np.int32)
    worlds = model.shape_world.numpy() if n else np.zeros(0, dtype=np.int32)
    starts = model.shape_world_start.numpy()
    out = np.empty((n, 3), dtype=np.float32)
    for i in range(n):
        w = int(worlds[i])
        k = i - int(starts[w]) if w >= 0 else i
        out[i] = PLANE_COLOR if types[i] == GeoType.PLANE else _palette_color(k)
    return out


def check_colors(colors, shape_count: int, name: str = "shape_colors") -> np.ndarray:
    """Validate user colours: (shape_count, 3) RGB in [0, 1]; returns them as float32."""
    try:
        c = np.asarray(colors, dtype=np.float32)
    except (TypeError, ValueError):
        raise RenderError(f"{name} must be a ({shape_count}, 3) array of RGB in [0, 1]") from None
    if c.shape != (shape_count, 3):
        raise RenderError(f"{name} must have shape ({shape_count}, 3) (one RGB row per shape), got {c.shape}")
    if not np.isfinite(c).all() or (c < 0).any() or (c > 1).any():
        raise RenderError(f"{name} must hold RGB values in [0, 1]")
    return c
