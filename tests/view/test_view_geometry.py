"""The primitive meshes are closed, wound outward and as large as newton_gym's shape conventions say."""

import math

import numpy as np
import pytest

from newton_gym.view import geometry


def _signed_volume(v, f) -> float:
    a, b, c = (v[f[:, k]].astype(np.float64) for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def _open_edges(f) -> int:
    """Directed edges without their reverse: 0 for a closed, consistently wound surface."""
    edges = {(int(a), int(b)) for tri in f for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0]))}
    return sum((b, a) not in edges for a, b in edges)


R, H = 0.3, 0.5
CASES = {
    # name: (mesh, analytic volume, (x, y, z) half extents of the bounding box)
    "sphere": (geometry.sphere(R), 4 / 3 * math.pi * R**3, (R, R, R)),
    "capsule": (geometry.capsule(R, H), math.pi * R**2 * (2 * H + 4 / 3 * R), (R, R, H + R)),
    "cylinder": (geometry.cylinder(R, H), math.pi * R**2 * 2 * H, (R, R, H)),
    "cone": (geometry.cone(R, H), math.pi * R**2 * 2 * H / 3, (R, R, H)),
    "box": (geometry.box(0.1, 0.2, 0.3), 8 * 0.1 * 0.2 * 0.3, (0.1, 0.2, 0.3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_primitive_is_closed_outward_and_sized(name):
    (v, f), volume, half = CASES[name]
    assert v.dtype == np.float32 and f.dtype == np.uint32 and f.shape[1] == 3
    assert f.max() < len(v)
    np.testing.assert_allclose(np.abs(v).max(axis=0), half, rtol=1e-6)
    # the surface's signed volume is positive only when every face is wound outward; a 24-gon inscribes
    # the circle, so round shapes lose up to 1 - sin(2 pi / 24) * 24 / (2 pi) = 1.1 % of their cross-section
    assert _signed_volume(v, f) == pytest.approx(volume, rel=0.03)
    assert _signed_volume(v, f) <= volume * (1 + 1e-6)
    # sharp rims keep separate vertices, so count closure on positions, not indices
    _, inverse = np.unique(np.round(v, 6), axis=0, return_inverse=True)
    assert _open_edges(inverse.reshape(-1)[f]) == 0
    # convex: every face normal points away from the centre
    a, b, c = (v[f[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    assert (np.einsum("ij,ij->i", normals, (a + b + c) / 3) > 0).all()


def test_checker_plane_splits_the_rectangle_by_the_ray_casters_parity():
    (ve, fe), (vo, fo) = geometry.checker_plane(1.6, 1.0, 0.5)
    area = 0.0
    for (v, f), parity in (((ve, fe), 0), ((vo, fo), 1)):
        assert (v[:, 2] == 0).all()
        a, b, c = (v[f[:, k]].astype(np.float64) for k in range(3))
        n = np.cross(b - a, c - a)
        assert (n[:, 2] > 0).all()  # faces point along +Z
        area += 0.5 * n[:, 2].sum()
        centre = (a + b + c) / 3
        cell = (np.floor(centre[:, 0] / 0.5) + np.floor(centre[:, 1] / 0.5)).astype(int) & 1
        assert (cell == parity).all()
    assert area == pytest.approx(1.6 * 1.0)
    np.testing.assert_allclose(np.abs(np.concatenate([ve, vo])).max(axis=0), (0.8, 0.5, 0.0))
