"""Sub-terrain functions: the heights of one patch (and its boxes) for a difficulty in [0, 1].

Every function has the signature ``f(difficulty, cfg, rng, grid) -> Patch``: ``cfg`` is the kind's config
(:mod:`newton_gym.terrain.config`), ``rng`` a ``numpy.random.Generator`` (the function's only source of
randomness), ``grid`` the :class:`PatchGrid` of the patch. Heights are in metres before rounding to the
vertical scale (the generator rounds them); box tops are already multiples of it. Patch coordinates
run from the patch's corner: point (r, c) lies at x = c h, y = r h for the horizontal scale h.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .config import (
    DiscreteObstaclesCfg,
    FlatCfg,
    PyramidSlopeCfg,
    PyramidStairsCfg,
    RandomGridCfg,
    RandomUniformCfg,
    SteppingStonesCfg,
    SubTerrainCfg,
    WavesCfg,
)

__all__ = [
    "PatchGrid",
    "Patch",
    "flat",
    "random_uniform",
    "pyramid_slope",
    "waves",
    "discrete_obstacles",
    "pyramid_stairs",
    "stepping_stones",
    "random_grid",
    "SUB_TERRAIN_FUNCTIONS",
    "PIT_MARGIN",
]

#: Depth [m] of the pit under a random grid's boxes below the lowest box top the difficulty allows, so
#: that every box reaches down into solid heightfield.
PIT_MARGIN = 0.1

# Added before flooring cell counts: 0.3 / 0.1 is 2.9999999999999996 in floating point.
_EPS = 1e-9


@dataclass(frozen=True)
class PatchGrid:
    """The grid points of one patch.

    Attributes:
        rows: points along y (the patch is ``rows`` x horizontal_scale long in y).
        cols: points along x.
        horizontal_scale: point spacing [m].
        vertical_scale: height quantum [m].
    """

    rows: int
    cols: int
    horizontal_scale: float
    vertical_scale: float

    @property
    def size(self) -> tuple[float, float]:
        """(x, y) extent of the patch [m]."""
        return self.cols * self.horizontal_scale, self.rows * self.horizontal_scale

    @property
    def center(self) -> tuple[float, float]:
        """(x, y) of the patch centre [m], patch coordinates."""
        return 0.5 * self.size[0], 0.5 * self.size[1]

    def coords(self) -> tuple[np.ndarray, np.ndarray]:
        """x: (1, cols) and y: (rows, 1) point coordinates [m], broadcasting to (rows, cols)."""
        x = np.arange(self.cols, dtype=np.float64)[None, :] * self.horizontal_scale
        y = np.arange(self.rows, dtype=np.float64)[:, None] * self.horizontal_scale
        return x, y

    def edge_distance(self) -> np.ndarray:
        """(rows, cols) distance of each point to the nearest patch edge [m]: concentric rectangles."""
        x, y = self.coords()
        sx, sy = self.size
        return np.minimum(np.minimum(x, sx - x), np.minimum(y, sy - y))

    def platform(self, width: float) -> np.ndarray:
        """(rows, cols) bool: the points of the centred square of side ``width`` [m] (edges included)."""
        x, y = self.coords()
        cx, cy = self.center
        half = 0.5 * width + _EPS
        return (np.abs(x - cx) <= half) & (np.abs(y - cy) <= half)

    def quantize(self, value):
        """``value`` [m] rounded to a multiple of the vertical scale."""
        return np.rint(np.asarray(value, dtype=np.float64) / self.vertical_scale) * self.vertical_scale


@dataclass
class Patch:
    """What a sub-terrain function returns.

    Attributes:
        heights: (rows, cols) float64 heights [m] of the patch's grid points.
        boxes: (box_count, 7) float64 static boxes in patch coordinates: centre (x, y, z) [m],
            half extents (hx, hy, hz) [m], yaw about +z [rad].
    """

    heights: np.ndarray
    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 7)))


def _lerp(bounds, difficulty: float) -> float:
    """The value of a (value at 0, value at 1) pair at ``difficulty``."""
    return float(bounds[0]) + difficulty * (float(bounds[1]) - float(bounds[0]))


def flat(difficulty: float, cfg: FlatCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """Height 0 everywhere."""
    return Patch(np.zeros((grid.rows, grid.cols)))


def random_uniform(difficulty: float, cfg: RandomUniformCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """Levels min, min + step, ... <= max drawn on a lattice of ``downsampled_scale`` spacing, bilinear
    between lattice points; the platform sits at the middle of the noise range."""
    lo, hi = (float(v) for v in cfg.noise_range)
    levels = lo + cfg.noise_step * np.arange(int(np.floor((hi - lo) / cfg.noise_step + _EPS)) + 1)
    spacing = float(cfg.downsampled_scale or grid.horizontal_scale)
    sx, sy = grid.size
    lattice = rng.choice(levels, size=(int(np.ceil(sy / spacing - _EPS)) + 1, int(np.ceil(sx / spacing - _EPS)) + 1))
    x, y = grid.coords()
    heights = _bilinear(lattice, spacing, x[0], y[:, 0])
    heights[grid.platform(cfg.platform_width)] = grid.quantize(0.5 * (lo + hi))
    return Patch(heights)


def _bilinear(lattice: np.ndarray, spacing: float, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(len(y), len(x)) values of the (ny, nx) ``lattice`` (point (r, c) at (c spacing, r spacing)),
    interpolated bilinearly at the points x (nx',) and y (ny',)."""

    def weights(u, n):
        u = u / spacing
        i = np.clip(np.floor(u).astype(np.int64), 0, n - 2)
        return i, u - i

    cx, tx = weights(x, lattice.shape[1])
    cy, ty = weights(y, lattice.shape[0])
    along_x = lattice[:, cx] * (1.0 - tx) + lattice[:, cx + 1] * tx
    return along_x[cy] * (1.0 - ty)[:, None] + along_x[cy + 1] * ty[:, None]


def pyramid_slope(difficulty: float, cfg: PyramidSlopeCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """Height ``slope * d`` at distance d [m] from the patch edge, up to the platform's edge (flat above);
    negated when inverted. The slope is ``slope_range`` at the difficulty."""
    slope = _lerp(cfg.slope_range, difficulty)
    top = 0.5 * (min(grid.size) - cfg.platform_width)
    heights = slope * np.minimum(grid.edge_distance(), top)
    return Patch(-heights if cfg.inverted else heights)


def waves(difficulty: float, cfg: WavesCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """``(A / 2) (sin(2 pi n x / Lx) + sin(2 pi n y / Ly))`` with A from ``amplitude_range``; platform at 0."""
    amplitude = _lerp(cfg.amplitude_range, difficulty)
    x, y = grid.coords()
    sx, sy = grid.size
    k = 2.0 * np.pi * cfg.num_waves
    heights = 0.5 * amplitude * (np.sin(k * x / sx) + np.sin(k * y / sy))
    heights[grid.platform(cfg.platform_width)] = 0.0
    return Patch(heights)


def discrete_obstacles(
    difficulty: float, cfg: DiscreteObstaclesCfg, rng: np.random.Generator, grid: PatchGrid
) -> Patch:
    """``num_obstacles`` rectangles at uniform positions with sides uniform in ``obstacle_width_range``, at
    heights from h = ``obstacle_height_range`` at the difficulty; platform at 0."""
    h = float(grid.quantize(_lerp(cfg.obstacle_height_range, difficulty)))
    n, scale = cfg.num_obstacles, grid.horizontal_scale
    sides = np.maximum(np.rint(rng.uniform(*cfg.obstacle_width_range, size=(n, 2)) / scale), 1).astype(np.int64)
    sides = np.minimum(sides, [grid.cols, grid.rows])
    corners = (rng.random((n, 2)) * ([grid.cols, grid.rows] - sides + 1)).astype(np.int64)
    if cfg.obstacle_height_mode == "fixed":
        tops = np.full(n, h)
    else:
        tops = rng.choice(grid.quantize([-h, -0.5 * h, 0.5 * h, h]), size=n)
    heights = np.zeros((grid.rows, grid.cols))
    for (c, r), (w, d), top in zip(corners, sides, tops):
        heights[r : r + d, c : c + w] = top
    heights[grid.platform(cfg.platform_width)] = 0.0
    return Patch(heights)


def pyramid_stairs(difficulty: float, cfg: PyramidStairsCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """A flat border at 0, then n rings of ``step_width`` at 1, 2, ..., n steps, then the platform at n + 1
    steps, where n is the number of rings that fit between border and ``platform_width``. A step's rise is
    ``step_height_range`` at the difficulty (rounded to the vertical scale); all negated when inverted."""
    rise = float(grid.quantize(_lerp(cfg.step_height_range, difficulty)))
    rings = int(np.floor((0.5 * (min(grid.size) - cfg.platform_width) - cfg.border_width) / cfg.step_width + _EPS))
    level = np.floor((grid.edge_distance() - cfg.border_width) / cfg.step_width + _EPS) + 1.0
    heights = rise * np.clip(level, 0.0, max(rings, 0) + 1.0)
    return Patch(-heights if cfg.inverted else heights)


def stepping_stones(difficulty: float, cfg: SteppingStonesCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """Rows of square stones (side from ``stone_width_range``, gaps from ``stone_distance_range``, both by
    difficulty) over a pit at ``holes_depth``; each row shifted along x by a uniform offset; platform at 0."""
    side = _lerp(cfg.stone_width_range[::-1], difficulty)
    pitch = side + _lerp(cfg.stone_distance_range, difficulty)
    sx, sy = grid.size
    stone_rows, stone_cols = int(np.ceil(sy / pitch)) + 1, int(np.ceil(sx / pitch)) + 2
    offsets = rng.uniform(0.0, pitch, size=stone_rows)  # (stone_rows,) x shift of each row [m]
    tops = grid.quantize(rng.uniform(-cfg.stone_height_max, cfg.stone_height_max, size=(stone_rows, stone_cols)))
    x, y = grid.coords()
    row = np.floor(y / pitch).astype(np.int64)  # (rows, 1)
    u = (x - offsets[row]) / pitch  # (rows, cols) position along the row in pitches; stones start at integers
    col = np.floor(u).astype(np.int64) + 1  # +1: the stone left of x = 0 has index 0
    on_stone = (y - row * pitch < side) & ((u - np.floor(u)) * pitch < side)
    heights = np.where(on_stone, tops[row, col], cfg.holes_depth)
    heights[grid.platform(cfg.platform_width)] = 0.0
    return Patch(heights)


def random_grid(difficulty: float, cfg: RandomGridCfg, rng: np.random.Generator, grid: PatchGrid) -> Patch:
    """As many blocks of side ``grid_width`` as fit, centred on the patch, with tops uniform in [-h, h]
    (h = ``grid_height_range`` at the difficulty); the blocks over the platform are left out, the platform
    and the ring outside the blocks are at 0. With ``colliders = "heightfield"`` the points inside a block
    take its top; with ``"boxes"`` each block is a box standing in a heightfield pit PIT_MARGIN below -h."""
    h = float(grid.quantize(_lerp(cfg.grid_height_range, difficulty)))
    floor_z = -float(grid.quantize(h + PIT_MARGIN))
    width = cfg.grid_width
    sx, sy = grid.size
    counts = np.floor(np.array([sx, sy]) / width + _EPS).astype(np.int64)  # boxes along x, y
    start = 0.5 * (np.array([sx, sy]) - counts * width)  # (2,) corner of the first box [m]
    cx = start[0] + (np.arange(counts[0]) + 0.5) * width  # (nx,) box centres [m]
    cy = start[1] + (np.arange(counts[1]) + 0.5) * width  # (ny,)
    reach = 0.5 * (width + cfg.platform_width) - _EPS  # a box closer than this to the centre overlaps it
    kept = (np.abs(cy - grid.center[1])[:, None] >= reach) | (np.abs(cx - grid.center[0])[None, :] >= reach)
    tops = grid.quantize(rng.uniform(-h, h, size=(counts[1], counts[0])))
    if cfg.colliders == "heightfield":
        x, y = grid.coords()
        col = np.clip(np.floor((x - start[0]) / width).astype(np.int64), 0, counts[0] - 1)
        row = np.clip(np.floor((y - start[1]) / width).astype(np.int64), 0, counts[1] - 1)
        inside = _inside_boxes(grid, kept, start, width)
        return Patch(np.where(inside, tops[row, col], 0.0))
    r, c = np.nonzero(kept)
    boxes = np.zeros((len(r), 7))
    boxes[:, 0], boxes[:, 1] = cx[c], cy[r]
    boxes[:, 2] = 0.5 * (tops[r, c] + floor_z)
    boxes[:, 3:5] = 0.5 * width
    boxes[:, 5] = 0.5 * (tops[r, c] - floor_z)
    heights = np.where(_eroded(_inside_boxes(grid, kept, start, width)), floor_z, 0.0)
    return Patch(heights, boxes)


def _inside_boxes(grid: PatchGrid, kept: np.ndarray, start: np.ndarray, width: float) -> np.ndarray:
    """(rows, cols) bool: the points on or inside a kept box of the (ny, nx) grid ``kept``."""
    x, y = grid.coords()
    c = np.floor((x - start[0]) / width).astype(np.int64)
    r = np.floor((y - start[1]) / width).astype(np.int64)
    # A point on the far edge of the last box belongs to it.
    c = np.where(np.abs(x - start[0] - kept.shape[1] * width) < _EPS, kept.shape[1] - 1, c)
    r = np.where(np.abs(y - start[1] - kept.shape[0] * width) < _EPS, kept.shape[0] - 1, r)
    valid = (c >= 0) & (c < kept.shape[1]) & (r >= 0) & (r < kept.shape[0])
    return valid & kept[np.clip(r, 0, kept.shape[0] - 1), np.clip(c, 0, kept.shape[1] - 1)]


def _eroded(mask: np.ndarray) -> np.ndarray:
    """The points of ``mask`` whose 8 neighbours are in it too (points beyond the patch count as out).

    Lowering only these points keeps every sloped triangle of the pit's rim under the boxes: a triangle
    touching a lowered point has all its corners inside the boxes."""
    padded = np.pad(mask, 1, constant_values=False)
    rows, cols = mask.shape
    out = np.ones_like(mask)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            out &= padded[dr : dr + rows, dc : dc + cols]
    return out


#: kind name -> its sub-terrain function.
SUB_TERRAIN_FUNCTIONS: dict[str, Callable[[float, SubTerrainCfg, np.random.Generator, PatchGrid], Patch]] = {
    FlatCfg.KIND: flat,
    RandomUniformCfg.KIND: random_uniform,
    PyramidSlopeCfg.KIND: pyramid_slope,
    WavesCfg.KIND: waves,
    DiscreteObstaclesCfg.KIND: discrete_obstacles,
    PyramidStairsCfg.KIND: pyramid_stairs,
    SteppingStonesCfg.KIND: stepping_stones,
    RandomGridCfg.KIND: random_grid,
}
