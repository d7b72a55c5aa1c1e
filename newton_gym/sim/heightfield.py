"""Heightfields: a regular grid of elevations for static terrain colliders (MuJoCo's ``<hfield>``).

Grid point (row r, column c) of a field with ``nrow`` x ``ncol`` points and half extents (hx, hy) lies at
x = -hx + 2 hx c / (ncol - 1), y = -hy + 2 hy r / (nrow - 1), z = ``heights[r, c]`` in the frame of the shape
that holds it. Each grid cell is two triangles split along the diagonal from (r, c) to (r + 1, c + 1) (see
:meth:`Heightfield.triangles`); under every triangle the field is a solid prism that reaches down to
``bottom = min(heights) - base``. This is MuJoCo's layout: MuJoCo stores the elevations normalized to [0, 1]
and scales them by ``size[2]``, with the base ``size[3]`` below elevation 0; :meth:`from_mujoco` and
:meth:`to_mujoco` convert between the two.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError

__all__ = ["Heightfield"]


class Heightfield:
    """A heightfield in its own frame.

    Args:
        heights: (nrow, ncol) elevations [m], nrow, ncol >= 2; row r runs along +y, column c along +x.
        hx: half extent along x [m] (> 0): columns span [-hx, hx].
        hy: half extent along y [m] (> 0): rows span [-hy, hy].
        base: depth of the solid base below the lowest elevation [m] (> 0), MuJoCo's ``size[3]``.

    Raises:
        ModelBuildError: a grid smaller than 2 x 2, a non-finite elevation, or a size that is not a
            positive finite number (the message names the argument).
    """

    def __init__(self, heights, hx: float, hy: float, base: float = 0.1):
        h = np.asarray(heights, dtype=np.float64)
        if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
            raise ModelBuildError(f"heightfield heights must have shape (nrow, ncol) with both >= 2, got {h.shape}")
        if not np.isfinite(h).all():
            raise ModelBuildError("heightfield heights hold NaN or inf")
        for name, value in (("hx", hx), ("hy", hy), ("base", base)):
            if not np.isfinite(value) or float(value) <= 0.0:
                raise ModelBuildError(f"heightfield {name} must be a positive finite number, got {value}")
        self.heights = h
        self.hx = float(hx)
        self.hy = float(hy)
        self.base = float(base)

    @property
    def nrow(self) -> int:
        """Grid points along y."""
        return int(self.heights.shape[0])

    @property
    def ncol(self) -> int:
        """Grid points along x."""
        return int(self.heights.shape[1])

    @property
    def bottom(self) -> float:
        """z of the prisms' bottom face [m]: the lowest elevation minus ``base``."""
        return float(self.heights.min()) - self.base

    @property
    def spacing(self) -> tuple[float, float]:
        """Grid spacing (dx, dy) [m]."""
        return 2.0 * self.hx / (self.ncol - 1), 2.0 * self.hy / (self.nrow - 1)

    def points(self) -> np.ndarray:
        """(nrow * ncol, 3) float64 grid points, row by row [m]."""
        xs = np.linspace(-self.hx, self.hx, self.ncol)
        ys = np.linspace(-self.hy, self.hy, self.nrow)
        gx, gy = np.meshgrid(xs, ys)
        return np.stack([gx.ravel(), gy.ravel(), self.heights.ravel()], axis=1)

    def triangles(self) -> np.ndarray:
        """(2 (nrow - 1) (ncol - 1), 3) int64 triangles over :meth:`points`, counter-clockwise seen from +z.

        Cell (r, c) has corners p00 = (r, c), p10 = (r, c + 1), p01 = (r + 1, c), p11 = (r + 1, c + 1) and
        is split as MuJoCo splits it: (p01, p00, p11) and (p00, p10, p11)."""
        r, c = np.meshgrid(np.arange(self.nrow - 1), np.arange(self.ncol - 1), indexing="ij")
        p00 = (r * self.ncol + c).ravel()
        p10, p01 = p00 + 1, p00 + self.ncol
        p11 = p01 + 1
        first = np.stack([p01, p00, p11], axis=1)
        second = np.stack([p00, p10, p11], axis=1)
        return np.stack([first, second], axis=1).reshape(-1, 3).astype(np.int64)

    def height_at(self, x, y) -> np.ndarray:
        """Elevation [m] of the surface at field-frame points (x, y), on the triangles (clamped to the grid)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        dx, dy = self.spacing
        u = np.clip((x + self.hx) / dx, 0.0, self.ncol - 1)
        v = np.clip((y + self.hy) / dy, 0.0, self.nrow - 1)
        c = np.minimum(np.floor(u).astype(np.int64), self.ncol - 2)
        r = np.minimum(np.floor(v).astype(np.int64), self.nrow - 2)
        fu, fv = u - c, v - r
        h = self.heights
        h00, h10, h01, h11 = h[r, c], h[r, c + 1], h[r + 1, c], h[r + 1, c + 1]
        # Diagonal from (r, c) to (r + 1, c + 1): below it (fu >= fv) the triangle (p00, p10, p11).
        lower = h00 + fu * (h10 - h00) + fv * (h11 - h10)
        upper = h00 + fv * (h01 - h00) + fu * (h11 - h01)
        return np.where(fu >= fv, lower, upper)

    @classmethod
    def from_mujoco(cls, data, nrow: int, ncol: int, size) -> Heightfield:
        """The field of MuJoCo's ``hfield_data`` (normalized elevations, row-major), ``hfield_nrow``,
        ``hfield_ncol`` and ``hfield_size`` (radius x, radius y, elevation z, base z)."""
        s = np.asarray(size, dtype=np.float64).reshape(4)
        heights = np.asarray(data, dtype=np.float64).reshape(int(nrow), int(ncol)) * s[2]
        return cls(heights, s[0], s[1], s[3])

    def to_mujoco(self) -> tuple[np.ndarray, np.ndarray, float]:
        """MuJoCo's form of the field: (normalized elevations (nrow, ncol) in [0, 1], ``size`` (4,), and the
        z offset [m] to add to the geom's position, since MuJoCo's elevations start at 0)."""
        lo, hi = float(self.heights.min()), float(self.heights.max())
        span = hi - lo
        data = (self.heights - lo) / span if span > 0 else np.zeros_like(self.heights)
        size = np.array([self.hx, self.hy, span if span > 0 else 1e-6, self.base])
        return data, size, lo

    def nbytes(self) -> int:
        """Bytes of the elevations."""
        return int(self.heights.nbytes)
