"""Small scenes for the render tests."""

import numpy as np
import pytest

from newton_gym import ModelBuilder

RED = (1.0, 0.0, 0.0)


def pixel_stats(ids: np.ndarray, shape: int):
    """Row/column centroid and pixel count of ``shape`` in an id image."""
    rows, cols = np.nonzero(ids == shape)
    return (rows.mean() if len(rows) else np.nan), (cols.mean() if len(cols) else np.nan), len(rows)


@pytest.fixture
def sphere_scene():
    """Ground plane (shape 0) and a red sphere of radius 0.3 (shape 1) on body 0 at (0, 0, 1)."""
    b = ModelBuilder()
    b.add_ground_plane()
    body = b.add_body(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    b.add_shape_sphere(body, radius=0.3)
    model = b.finalize()
    colors = np.full((model.shape_count, 3), 0.8, dtype=np.float32)
    colors[1] = RED
    return model, colors


@pytest.fixture
def stats():
    return pixel_stats
