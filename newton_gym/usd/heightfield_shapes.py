"""Heightfield colliders: a ``UsdGeom.Mesh`` in the heightfield form -> a static HFIELD shape.

The form (README, "Conventions"; written by :func:`newton_gym.assets.usd_common.write_heightfield`): a mesh
collider whose shape key ``heightfield_rows`` resolves (``newton:heightfield:rows``) is a heightfield. Its
points are the rows x columns grid, row by row: x runs along a row, y along the rows, both on a regular
grid (within 1e-6 of the grid's size), and z is the elevation. ``heightfield_columns`` must match;
``heightfield_base`` is the depth of the solid below the lowest elevation, a length in the prim's frame
like the points (so scaled by the prim's z scale and the stage's metersPerUnit; 0.1 m when not authored,
:class:`~newton_gym.sim.heightfield.Heightfield`'s default). The faces are not read: the field's
triangles are always MuJoCo's split of each cell. A grid not centred on the prim's origin keeps its place
through the shape's offset. Heightfields are static terrain; :mod:`.stage_shapes` skips one under a
rigid body with a warning.
"""

from __future__ import annotations

import numpy as np

from ..sim.heightfield import Heightfield
from ..sim.hostmath import transform_identity
from ..sim.types import GeoType
from ._pxr import require_pxr, vec

__all__ = ["is_heightfield", "heightfield_geometry", "GRID_TOLERANCE"]

GRID_TOLERANCE = 1.0e-6
"""Largest departure of a point's x or y from the regular grid, relative to the grid's size (or to its
distance from the prim's origin where that is larger: float32 points round relative to their size)."""

_DEFAULT_BASE = 0.1  # [m], Heightfield's default


def is_heightfield(ctx, path: str) -> bool:
    """Whether the mesh collider at ``path`` carries the heightfield marker (``heightfield_rows``)."""
    return ctx.resolve("shape", "heightfield_rows", path) is not None


def heightfield_geometry(ctx, path: str, desc) -> tuple:
    """The static HFIELD shape of a heightfield mesh collider (UsdPhysics MeshShape descriptor).

    Returns:
        (GeoType.HFIELD, size (3,) ones, offset (7,) of the field frame in the mesh frame [m], Heightfield).

    Raises:
        ImportFailedError: the marker attributes, the points or the scale do not form a heightfield (the
            message names the prim and says what would be valid).
    """
    rows = int(ctx.resolve("shape", "heightfield_rows", path))
    columns = ctx.resolve("shape", "heightfield_columns", path)
    if columns is None:
        ctx.fail(path, "a heightfield needs newton:heightfield:columns (int) beside newton:heightfield:rows")
    columns = int(columns)
    if rows < 2 or columns < 2:
        ctx.fail(path, f"heightfield rows and columns must both be >= 2, got {rows} x {columns}")
    scale = vec(desc.meshScale)
    if not np.isfinite(scale).all() or (scale <= 0.0).any():
        ctx.fail(path, f"heightfield scale {scale.tolist()} must be positive (a heightfield cannot be mirrored)")
    points = _points(ctx, path) * scale * ctx.units.m
    if len(points) != rows * columns:
        ctx.fail(path, f"heightfield has {len(points)} points; a {rows} x {columns} grid needs {rows * columns}")
    grid = points.reshape(rows, columns, 3)
    x0, x1, y0, y1 = _grid_span(ctx, path, grid)
    base = ctx.resolve("shape", "heightfield_base", path)
    base = _DEFAULT_BASE if base is None else float(base) * scale[2] * ctx.units.m
    with ctx.at(path):
        field = Heightfield(grid[:, :, 2], 0.5 * (x1 - x0), 0.5 * (y1 - y0), base)
    offset = transform_identity()
    offset[:2] = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    return GeoType.HFIELD, np.ones(3), offset, field


def _points(ctx, path) -> np.ndarray:
    mesh = require_pxr().UsdGeom.Mesh(ctx.stage.GetPrimAtPath(path))
    points = mesh.GetPointsAttr().Get()
    if not points:
        ctx.fail(path, "heightfield mesh has no points")
    v = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if not np.isfinite(v).all():
        ctx.fail(path, "heightfield points hold NaN or inf")
    return v


def _grid_span(ctx, path, grid: np.ndarray) -> tuple[float, float, float, float]:
    """(x0, x1, y0, y1) of a (rows, columns, 3) grid of points, checked to be regular."""
    rows, columns = grid.shape[:2]
    x0, x1 = float(grid[0, 0, 0]), float(grid[0, -1, 0])
    y0, y1 = float(grid[0, 0, 1]), float(grid[-1, 0, 1])
    size = max(x1 - x0, y1 - y0, float(np.abs(grid[:, :, :2]).max()))
    tol = GRID_TOLERANCE * size
    off_x = np.abs(grid[:, :, 0] - np.linspace(x0, x1, columns)[None, :]).max()
    off_y = np.abs(grid[:, :, 1] - np.linspace(y0, y1, rows)[:, None]).max()
    if not (x1 > x0 and y1 > y0) or off_x > tol or off_y > tol:
        ctx.fail(
            path,
            f"heightfield points are not a regular {rows} x {columns} grid: expected row by row, x increasing "
            f"along each row and y along the rows, each within {GRID_TOLERANCE:g} of the grid's size of its "
            f"place (largest departure: x {off_x:.3g}, y {off_y:.3g}; x from {x0:.6g} to {x1:.6g}, y from "
            f"{y0:.6g} to {y1:.6g})",
        )
    return x0, x1, y0, y1
