"""Pinhole cameras: where the renderer looks from, and a helper that follows a body."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import RenderError, check_positive

__all__ = ["Camera"]


def _vec3(value, name: str) -> tuple[float, float, float]:
    try:
        v = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise RenderError(f"{name} must be 3 numbers, got {value!r}") from None
    if v.shape != (3,) or not np.isfinite(v).all():
        raise RenderError(f"{name} must be 3 finite numbers, got {value!r}")
    return tuple(float(x) for x in v)


@dataclass(frozen=True)
class Camera:
    """A pinhole camera.

    Attributes:
        position: (3,) [m] eye position in world coordinates.
        target: (3,) [m] point the camera looks at; appears at the image centre.
        up: (3,) world direction that appears upward in the image (need not be unit, must not be
            parallel to ``target - position``).
        fov_deg: vertical field of view [deg], in (0, 180).
    """

    position: tuple = (3.0, -3.0, 2.0)
    target: tuple = (0.0, 0.0, 0.5)
    up: tuple = (0.0, 0.0, 1.0)
    fov_deg: float = 45.0

    def __post_init__(self):
        for name in ("position", "target", "up"):
            object.__setattr__(self, name, _vec3(getattr(self, name), f"Camera {name}"))
        fov = float(self.fov_deg)
        if not 0.0 < fov < 180.0:
            raise RenderError(f"Camera fov_deg must lie in (0, 180) degrees, got {self.fov_deg!r}")
        object.__setattr__(self, "fov_deg", fov)
        forward = np.subtract(self.target, self.position)
        if np.linalg.norm(forward) < 1e-9:
            raise RenderError(f"Camera position and target coincide at {self.position}; they must differ")
        up = np.asarray(self.up)
        if np.linalg.norm(up) < 1e-9:
            raise RenderError("Camera up must be a non-zero vector")
        if np.linalg.norm(np.cross(forward / np.linalg.norm(forward), up / np.linalg.norm(up))) < 1e-6:
            raise RenderError(
                f"Camera up {self.up} is parallel to the view direction {tuple(forward)}; "
                "choose another up vector or move the camera"
            )

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit (3,) vectors ``(forward, right, up)`` of the camera frame in world coordinates.

        ``right`` points to increasing image columns, ``up`` to decreasing image rows.
        """
        forward = np.subtract(self.target, self.position)
        forward = forward / np.linalg.norm(forward)
        right = np.cross(forward, self.up)
        right = right / np.linalg.norm(right)
        return forward, right, np.cross(right, forward)

    @classmethod
    def tracking(
        cls,
        body_position,
        distance: float = 3.0,
        elevation_deg: float = 20.0,
        azimuth_deg: float = -60.0,
        fov_deg: float = 45.0,
        up=(0.0, 0.0, 1.0),
    ) -> Camera:
        """A camera looking at ``body_position`` from a point on a sphere around it.

        Call it each frame with the root body's position to follow a robot.

        Args:
            body_position: (3,) [m] point to look at, or a (7,) transform (x, y, z, qx, qy, qz, qw)
                such as a row of ``state.body_q.numpy()``, whose translation is used.
            distance: [m] from the camera to the target, > 0.
            elevation_deg: [deg] angle above the plane normal to ``up``, in (-90, 90).
            azimuth_deg: [deg] angle about ``up``; 0 puts the camera on the +X side (for Z up), 90 on +Y.
            fov_deg: vertical field of view [deg].
            up: (3,) world up direction.
        """
        p = np.asarray(body_position, dtype=np.float64).reshape(-1)
        if p.shape == (7,):
            p = p[:3]
        target = np.asarray(_vec3(p, "body_position"))
        distance = check_positive(distance, "distance", "metres")
        if not (isinstance(elevation_deg, (int, float, np.number)) and -90.0 < float(elevation_deg) < 90.0):
            raise RenderError(f"elevation_deg must lie in (-90, 90), got {elevation_deg!r}")
        e_up, e1, e2 = _frame_about(np.asarray(_vec3(up, "up")))
        el, az = math.radians(elevation_deg), math.radians(azimuth_deg)
        offset = distance * (math.cos(el) * (math.cos(az) * e1 + math.sin(az) * e2) + math.sin(el) * e_up)
        return cls(position=target + offset, target=target, up=tuple(e_up), fov_deg=fov_deg)


def _frame_about(up: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Orthonormal (up, e1, e2) with e1 the world X axis projected off ``up`` (Z when X is parallel)."""
    n = np.linalg.norm(up)
    if n < 1e-9:
        raise RenderError("up must be a non-zero vector")
    up = up / n
    seed = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    e1 = seed - np.dot(seed, up) * up
    e1 /= np.linalg.norm(e1)
    return up, e1, np.cross(up, e1)
