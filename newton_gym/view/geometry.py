"""Triangle meshes of newton_gym's primitive shapes, in the shape frame and its conventions.

Every function returns ``(vertices (V, 3) float32 [m], faces (F, 3) uint32)`` with faces wound
counter-clockwise seen from outside. Round shapes are surfaces of revolution about Z (the axis of
capsules, cylinders and cones); their flat caps and sharp rims get vertices of their own, so normals a
client averages per vertex stay crisp there. Sizes follow ``Model.shape_scale``: radii, half heights and
box half extents; plane width and length are full extents.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sphere", "capsule", "cylinder", "cone", "box", "checker_plane", "SEGMENTS"]

SEGMENTS = 24
"""Segments around the Z axis of round shapes (and twice as many half-rings along a sphere)."""


def _revolve(profile: np.ndarray, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Revolve a profile of (r, z) points about Z; r == 0 points become one pole vertex each.

    The profile runs over the outside of the surface so that the outside lies to the right of its
    direction seen with Z up and the radius pointing right (top to bottom for a sphere).
    """
    phi = 2.0 * np.pi * np.arange(segments) / segments
    ring = np.stack([np.cos(phi), np.sin(phi)], axis=1)
    vertices, rows = [], []
    for r, z in profile:
        start = sum(len(v) for v in vertices)
        if r == 0.0:
            vertices.append(np.array([[0.0, 0.0, z]]))
            rows.append(np.full(segments, start))
        else:
            vertices.append(np.column_stack([r * ring, np.full(segments, z)]))
            rows.append(start + np.arange(segments))
    faces = []
    for a, b in zip(rows[:-1], rows[1:]):
        a1, b1 = np.roll(a, -1), np.roll(b, -1)
        faces.append(np.stack([a, b, a1], axis=1))
        faces.append(np.stack([a1, b, b1], axis=1))
    faces = np.concatenate(faces)
    # a pole row repeats one vertex: drop the triangles that collapse onto it
    keep = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    return np.concatenate(vertices), faces[keep]


def _merge(*parts) -> tuple[np.ndarray, np.ndarray]:
    """One mesh of several (vertices, faces) parts, their vertices kept apart."""
    vertices, faces, offset = [], [], 0
    for v, f in parts:
        vertices.append(v)
        faces.append(f + offset)
        offset += len(v)
    return np.concatenate(vertices).astype(np.float32), np.concatenate(faces).astype(np.uint32)


def _arc(radius: float, z_top: float, z_bottom: float, theta0: float, theta1: float, steps: int) -> np.ndarray:
    """(r, z) points of a circle arc from polar angle theta0 to theta1, lifted by z_top above the equator
    (theta < pi / 2) and by z_bottom below it."""
    theta = np.linspace(theta0, theta1, steps + 1)
    r = radius * np.sin(theta)
    r[np.isclose(theta, 0.0) | np.isclose(theta, np.pi)] = 0.0
    z = radius * np.cos(theta) + np.where(theta <= np.pi / 2, z_top, z_bottom)
    return np.column_stack([r, z])


def sphere(radius: float, segments: int = SEGMENTS) -> tuple[np.ndarray, np.ndarray]:
    """Sphere of ``radius`` [m] about the origin."""
    return _merge(_revolve(_arc(radius, 0.0, 0.0, 0.0, np.pi, segments // 2), segments))


def capsule(radius: float, half_height: float, segments: int = SEGMENTS) -> tuple[np.ndarray, np.ndarray]:
    """Capsule along Z: a cylinder of ``radius`` from -``half_height`` to +``half_height`` capped by half spheres."""
    quarter = max(segments // 4, 2)
    top = _arc(radius, half_height, half_height, 0.0, np.pi / 2, quarter)
    bottom = _arc(radius, -half_height, -half_height, np.pi / 2, np.pi, quarter)
    return _merge(_revolve(np.concatenate([top, bottom]), segments))


def cylinder(radius: float, half_height: float, segments: int = SEGMENTS) -> tuple[np.ndarray, np.ndarray]:
    """Closed cylinder along Z, ``radius`` [m], from -``half_height`` to +``half_height``."""
    h = half_height
    return _merge(
        _revolve(np.array([[0.0, h], [radius, h]]), segments),
        _revolve(np.array([[radius, h], [radius, -h]]), segments),
        _revolve(np.array([[radius, -h], [0.0, -h]]), segments),
    )


def cone(radius: float, half_height: float, segments: int = SEGMENTS) -> tuple[np.ndarray, np.ndarray]:
    """Solid cone along Z: base of ``radius`` at z = -``half_height``, apex at z = +``half_height``."""
    h = half_height
    return _merge(
        _revolve(np.array([[0.0, h], [radius, -h]]), segments),
        _revolve(np.array([[radius, -h], [0.0, -h]]), segments),
    )


def box(hx: float, hy: float, hz: float) -> tuple[np.ndarray, np.ndarray]:
    """Box of half extents (hx, hy, hz) [m]: 4 vertices per face, 2 triangles per face."""
    half = np.array([hx, hy, hz], dtype=np.float64)
    parts = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3  # (u, v, axis) is right-handed, so u x v = +axis
        for sign in (1.0, -1.0):
            corners = np.zeros((4, 3))
            corners[:, axis] = sign * half[axis]
            corners[:, u] = np.array([-1.0, 1.0, 1.0, -1.0]) * half[u]
            corners[:, v] = np.array([-1.0, -1.0, 1.0, 1.0]) * half[v] * sign  # mirrored on the -axis face
            parts.append((corners, np.array([[0, 1, 2], [0, 2, 3]])))
    return _merge(*parts)


def checker_plane(width: float, length: float, cell: float) -> tuple[tuple, tuple]:
    """Rectangle z = 0 of ``width`` x ``length`` [m] about the origin split into ``cell`` [m] squares, as two
    meshes: the squares of even ``floor(x / cell) + floor(y / cell)`` and the odd ones (the ray caster's
    checkerboard parity). Faces point along +Z."""

    def edges(extent: float) -> np.ndarray:
        inner = cell * np.arange(np.ceil(-0.5 * extent / cell), np.floor(0.5 * extent / cell) + 1)
        return np.unique(np.clip(np.concatenate([[-0.5 * extent], inner, [0.5 * extent]]), -0.5 * extent, 0.5 * extent))

    xs, ys = edges(width), edges(length)
    x0, y0 = np.meshgrid(xs[:-1], ys[:-1], indexing="ij")
    x1, y1 = np.meshgrid(xs[1:], ys[1:], indexing="ij")
    x0, y0, x1, y1 = (a.reshape(-1) for a in (x0, y0, x1, y1))
    parity = (np.floor(0.5 * (x0 + x1) / cell) + np.floor(0.5 * (y0 + y1) / cell)).astype(np.int64) & 1
    out = []
    for p in (0, 1):
        k = np.nonzero(parity == p)[0]
        z = np.zeros(len(k))
        corners = np.stack(
            [
                np.column_stack([x0[k], y0[k], z]),
                np.column_stack([x1[k], y0[k], z]),
                np.column_stack([x1[k], y1[k], z]),
                np.column_stack([x0[k], y1[k], z]),
            ],
            axis=1,
        ).reshape(-1, 3)
        base = 4 * np.arange(len(k))[:, None]
        faces = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]])
        out.append((corners.astype(np.float32), faces.astype(np.uint32).reshape(-1, 3)))
    return out[0], out[1]
