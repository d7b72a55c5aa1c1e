"""The terrain generator: a grid of sub-terrain patches as one heightfield plus static boxes.

The heightfield's grid points are spaced ``horizontal_scale`` apart; column c of the field lies along
world x and row r along world y (the :class:`~newton_gym.sim.heightfield.Heightfield` layout). Patch
(i, j) of the terrain grid, row i along x and column j along y, owns the ``size / horizontal_scale``
points from column ``B + i px`` and row ``B + j py`` on (B border points, px x py points a patch);
the field has one more point than its cells along each axis, so it spans the grid plus the border on
both sides exactly and is centred on the world origin.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sim.heightfield import Heightfield
from .config import TerrainCfg, load_terrain_config
from .subterrains import SUB_TERRAIN_FUNCTIONS, PatchGrid

__all__ = ["Terrain", "generate_terrain", "layout"]

# Isaac Lab's column rule compares cumulative proportions with j / num_cols; sums such as 0.2 + 0.2 + 0.2
# come out as 0.6000000000000001, so the comparison allows this much slack.
_PROPORTION_SLACK = 1e-9


@dataclass
class Terrain:
    """A generated terrain, in world frame (z up), centred on the world origin.

    Attributes:
        cfg: the validated configuration it was generated from.
        heightfield: the whole grid, border included, as one field of (2 B + num_cols py + 1,
            2 B + num_rows px + 1) heights [m], multiples of ``cfg.vertical_scale``.
        field_center: (3,) float64 world position of the heightfield's frame [m] (no rotation).
        boxes: (box_count, 7) float64 static boxes: centre (x, y, z) [m], half extents (hx, hy, hz) [m],
            yaw about +z [rad], world frame.
        origins: (num_rows, num_cols, 3) float64 spawn points [m], world frame: the centre of each
            patch's platform, z on the surface.
        kinds: (num_rows, num_cols) int64 index into ``names`` of each patch's sub-terrain.
        names: (sub_terrain_count,) the sub-terrains' names (the keys of ``cfg.sub_terrains``, in order).
        difficulty: (num_rows, num_cols) float64 difficulty of each patch, within ``cfg.difficulty_range``.
    """

    cfg: TerrainCfg
    heightfield: Heightfield
    field_center: np.ndarray
    boxes: np.ndarray
    origins: np.ndarray
    kinds: np.ndarray
    names: tuple
    difficulty: np.ndarray

    @property
    def kind_names(self) -> np.ndarray:
        """(num_rows, num_cols) str: the sub-terrain name of each patch."""
        return np.asarray(self.names, dtype=object)[self.kinds]

    def patch_bounds(self, row: int, col: int) -> tuple[float, float, float, float]:
        """(x_min, x_max, y_min, y_max) [m] of patch (row, col) in world frame."""
        sx, sy = self.cfg.size
        x0 = -0.5 * self.cfg.num_rows * sx + row * sx
        y0 = -0.5 * self.cfg.num_cols * sy + col * sy
        return x0, x0 + sx, y0, y0 + sy

    def add_to(self, builder, cfg=None) -> list[int]:
        """Add the heightfield and the boxes as static shapes (body -1) to ``builder``.

        Shapes added outside any world scope (the builder's current world is -1) are global: shared
        by every world. ``cfg`` is the ShapeConfig of every shape (None: the builder's default).

        Returns:
            The shape indices: the heightfield's first, then the boxes' in the order of ``boxes``.
        """
        cx, cy, cz = (float(v) for v in self.field_center)
        shapes = [builder.add_shape_heightfield(-1, (cx, cy, cz, 0.0, 0.0, 0.0, 1.0), self.heightfield, cfg, "terrain")]
        half_yaw = 0.5 * self.boxes[:, 6]
        for k, (box, s, c) in enumerate(zip(self.boxes.tolist(), np.sin(half_yaw), np.cos(half_yaw))):
            xform = (box[0], box[1], box[2], 0.0, 0.0, float(s), float(c))
            shapes.append(builder.add_shape_box(-1, xform, box[3], box[4], box[5], cfg=cfg, key=f"terrain_box_{k}"))
        return shapes


def layout(cfg: TerrainCfg, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(kinds, difficulty), each (num_rows, num_cols): the sub-terrain index and difficulty of every patch.

    Curriculum: column j takes the first sub-terrain whose cumulative normalised proportion exceeds
    j / num_cols, and patch (i, j) has difficulty (i + u) / num_rows with u uniform in [0, 1) (Isaac
    Lab's rules). Random: each patch draws a sub-terrain by proportion and a difficulty in [0, 1).
    Either difficulty is then mapped linearly onto ``difficulty_range``.
    """
    proportions = np.array([sub.proportion for sub in cfg.sub_terrains.values()], dtype=np.float64)
    proportions /= proportions.sum()
    shape = (cfg.num_rows, cfg.num_cols)
    if cfg.curriculum:
        thresholds = np.arange(cfg.num_cols) / cfg.num_cols + _PROPORTION_SLACK
        columns = np.searchsorted(np.cumsum(proportions), thresholds, side="right")
        kinds = np.broadcast_to(np.minimum(columns, len(proportions) - 1), shape).astype(np.int64)
        unit = (np.arange(cfg.num_rows)[:, None] + rng.random(shape)) / cfg.num_rows
    else:
        kinds = rng.choice(len(proportions), size=shape, p=proportions).astype(np.int64)
        unit = rng.random(shape)
    lo, hi = (float(v) for v in cfg.difficulty_range)
    return kinds, lo + (hi - lo) * unit


def generate_terrain(cfg=None) -> Terrain:
    """Generate the terrain of ``cfg`` (a TerrainCfg, a TOML path, a dict or None for the defaults).

    Deterministic: the layout draws from the seed's first child stream and patch (i, j) from its own
    child stream (numpy SeedSequence), so the same config gives bitwise equal arrays.

    Raises:
        ConfigError: ``cfg`` is not valid (see :func:`~newton_gym.terrain.config.load_terrain_config`).
    """
    cfg = load_terrain_config(cfg)
    px, py, border = cfg.cells()
    streams = np.random.SeedSequence(cfg.seed).spawn(1 + cfg.num_rows * cfg.num_cols)
    kinds, difficulty = layout(cfg, np.random.default_rng(streams[0]))
    subs = list(cfg.sub_terrains.values())
    grid = PatchGrid(py, px, cfg.horizontal_scale, cfg.vertical_scale)
    # Heights are assembled as integer multiples of the vertical scale, so rounding happens once.
    steps = np.zeros((2 * border + cfg.num_cols * py + 1, 2 * border + cfg.num_rows * px + 1), dtype=np.int64)
    corner = -0.5 * np.array([cfg.num_rows * grid.size[0], cfg.num_cols * grid.size[1]])  # (2,) grid corner [m]
    boxes = []
    for i in range(cfg.num_rows):
        for j in range(cfg.num_cols):
            sub = subs[kinds[i, j]]
            rng = np.random.default_rng(streams[1 + i * cfg.num_cols + j])
            patch = SUB_TERRAIN_FUNCTIONS[sub.KIND](float(difficulty[i, j]), sub, rng, grid)
            r0, c0 = border + j * py, border + i * px
            steps[r0 : r0 + py, c0 : c0 + px] = np.rint(patch.heights / cfg.vertical_scale)
            if len(patch.boxes):
                placed = patch.boxes.copy()
                placed[:, :2] += corner + [i * grid.size[0], j * grid.size[1]]
                boxes.append(placed)
    heights = steps * cfg.vertical_scale
    half = 0.5 * cfg.horizontal_scale * (np.array(steps.shape[::-1]) - 1)  # (hx, hy) [m]
    field = Heightfield(heights, half[0], half[1], cfg.base)
    center = np.zeros(3)
    return Terrain(
        cfg=cfg,
        heightfield=field,
        field_center=center,
        boxes=np.concatenate(boxes) if boxes else np.zeros((0, 7)),
        origins=_origins(cfg, field, center, corner, grid),
        kinds=kinds,
        names=tuple(cfg.sub_terrains),
        difficulty=difficulty,
    )


def _origins(cfg: TerrainCfg, field: Heightfield, center: np.ndarray, corner, grid: PatchGrid) -> np.ndarray:
    """(num_rows, num_cols, 3) patch centres [m] with z on the heightfield's surface."""
    rows, cols = np.meshgrid(np.arange(cfg.num_rows), np.arange(cfg.num_cols), indexing="ij")
    x = corner[0] + (rows + 0.5) * grid.size[0]
    y = corner[1] + (cols + 0.5) * grid.size[1]
    z = field.height_at(x - center[0], y - center[1]) + center[2]
    return np.stack([x, y, z], axis=-1)
