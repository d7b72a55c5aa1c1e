"""Top-down picture of a terrain: surface height as colour, patch grid lines, spawn origins (matplotlib)."""

from __future__ import annotations

import os

import numpy as np

from .generator import Terrain

__all__ = ["draw_terrain", "top_surface"]


def top_surface(terrain: Terrain) -> np.ndarray:
    """(nrow, ncol) float64 height [m] of the top surface at the heightfield's grid points: the field, or
    the top of a box where one covers the point and stands higher."""
    field = terrain.heightfield
    top = field.heights.copy()
    dx, dy = field.spacing
    x0 = terrain.field_center[0] - field.hx
    y0 = terrain.field_center[1] - field.hy
    for x, y, z, hx, hy, hz, _ in terrain.boxes:  # boxes are axis-aligned (the generator makes yaw 0)
        c0, c1 = int(np.ceil((x - hx - x0) / dx)), int(np.floor((x + hx - x0) / dx)) + 1
        r0, r1 = int(np.ceil((y - hy - y0) / dy)), int(np.floor((y + hy - y0) / dy)) + 1
        block = top[max(r0, 0) : r1, max(c0, 0) : c1]
        np.maximum(block, z + hz, out=block)
    return top


def draw_terrain(terrain: Terrain, path: str | os.PathLike, dpi: int = 100) -> str:
    """Write a top-down PNG of ``terrain`` to ``path`` (10 inches wide at ``dpi``); returns the path.

    Colour is the top surface's height (clipped to its 0.5th to 99.5th percentile, so a deep pit does not
    wash out the rest); thin lines bound the patches, dots mark the spawn origins; the columns are
    labelled with their sub-terrain (curriculum mode) and the x axis runs along rising difficulty.

    Raises:
        ImportError: matplotlib is missing (the ``plot`` extra).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("drawing a terrain needs matplotlib: pip install 'newton-gym[plot]'") from exc
    cfg, field = terrain.cfg, terrain.heightfield
    top = top_surface(terrain)
    lo, hi = np.percentile(top, [0.5, 99.5])
    cx, cy = terrain.field_center[:2]
    extent = (cx - field.hx, cx + field.hx, cy - field.hy, cy + field.hy)
    aspect = field.hy / field.hx
    width = 8.0  # inches of the map; the colour bar and labels get 2 more
    fig, ax = plt.subplots(figsize=(width + 2.0, max(3.0, width * aspect + 1.0)), dpi=dpi)
    try:
        image = ax.imshow(top, origin="lower", extent=extent, cmap="terrain", vmin=lo, vmax=max(hi, lo + 1e-6))
        fig.colorbar(image, ax=ax, label="height [m]", shrink=0.8)
        x_edges = terrain.patch_bounds(0, 0)[0] + cfg.size[0] * np.arange(cfg.num_rows + 1)
        y_edges = terrain.patch_bounds(0, 0)[2] + cfg.size[1] * np.arange(cfg.num_cols + 1)
        ax.vlines(x_edges, y_edges[0], y_edges[-1], colors="black", linewidths=0.4)
        ax.hlines(y_edges, x_edges[0], x_edges[-1], colors="black", linewidths=0.4)
        ax.plot(terrain.origins[..., 0].ravel(), terrain.origins[..., 1].ravel(), "r.", markersize=2.5)
        if cfg.curriculum:
            ax.set_yticks(0.5 * (y_edges[:-1] + y_edges[1:]), terrain.kind_names[0], fontsize=6)
        ax.set_xlabel("x [m]: rows, difficulty rises")
        ax.set_ylabel("y [m]: columns" if not cfg.curriculum else "")
        ax.set_title(
            f"{cfg.num_rows} x {cfg.num_cols} patches of {cfg.size[0]:g} x {cfg.size[1]:g} m, seed {cfg.seed}",
            fontsize=9,
        )
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return os.fspath(path)
