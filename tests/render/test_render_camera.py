"""Camera frames and the tracking helper."""

import math

import numpy as np
import pytest

from newton_gym.render import Camera, RenderError


def test_basis_is_right_handed_and_orthonormal():
    cam = Camera(position=(1.0, -2.0, 3.0), target=(0.5, 0.5, 0.0))
    f, r, u = cam.basis()
    m = np.stack([r, u, -f])
    np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(m) == pytest.approx(1.0)
    assert u[2] > 0


def test_tracking_places_the_camera_on_a_sphere():
    cam = Camera.tracking((1.0, 2.0, 0.5), distance=3.0, elevation_deg=30.0, azimuth_deg=90.0)
    np.testing.assert_allclose(cam.target, (1.0, 2.0, 0.5))
    expected = (1.0, 2.0 + 3.0 * math.cos(math.radians(30)), 0.5 + 1.5)
    np.testing.assert_allclose(cam.position, expected, atol=1e-12)
    # a (7,) transform row works too
    cam7 = Camera.tracking((1.0, 2.0, 0.5, 0.0, 0.0, 0.0, 1.0), 3.0, 30.0, 90.0)
    assert cam7 == cam


def test_tracking_with_y_up():
    cam = Camera.tracking((0.0, 0.0, 0.0), distance=2.0, elevation_deg=45.0, azimuth_deg=0.0, up=(0, 1, 0))
    assert cam.position[1] == pytest.approx(2.0 * math.sin(math.radians(45)))
    assert cam.up == (0.0, 1.0, 0.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(position=(0, 0, 1), target=(0, 0, 1)), "position and target"),
        (dict(position=(0, 0, 3), target=(0, 0, 0)), "parallel"),
        (dict(fov_deg=0.0), "fov_deg"),
        (dict(fov_deg=180.0), "fov_deg"),
        (dict(position=(0, 0)), "position"),
        (dict(target=(0, float("nan"), 0)), "target"),
        (dict(up=(0, 0, 0)), "up"),
    ],
)
def test_bad_camera(kwargs, match):
    with pytest.raises(RenderError, match=match):
        Camera(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(distance=0.0), "distance"),
        (dict(distance=float("inf")), "distance"),
        (dict(elevation_deg=90.0), "elevation_deg"),
        (dict(elevation_deg=-95.0), "elevation_deg"),
    ],
)
def test_bad_tracking(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Camera.tracking((0.0, 0.0, 0.0), **kwargs)


def test_bad_body_position():
    with pytest.raises(ValueError, match="body_position"):
        Camera.tracking((0.0, 0.0))
