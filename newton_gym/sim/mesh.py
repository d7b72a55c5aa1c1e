"""Triangle meshes for collision shapes."""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError

__all__ = ["Mesh"]


class Mesh:
    """A triangle mesh in its own frame.

    Args:
        vertices: (vertex_count, 3) float [m].
        indices: (triangle_count * 3,) or (triangle_count, 3) int, counter-clockwise seen from outside.
        is_solid: if True, mass properties treat the mesh as a closed solid; else as a thin shell
            (mass properties then come from its convex hull volume is not attempted: it has no mass).
        maxhullvert: upper bound (>= 4) on the vertices of the convex hull the mesh collides as, or -1
            for the full hull (MuJoCo's ``<mesh maxhullvert>``, whose default is -1; 64 here, PhysX's
            default hull vertex limit). See :mod:`newton_gym.solvers.collision.hull` for the rule.
    """

    def __init__(self, vertices, indices, is_solid: bool = True, maxhullvert: int = 64):
        v = np.asarray(vertices, dtype=np.float64)
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if v.ndim != 2 or v.shape[1] != 3 or len(v) == 0:
            raise ModelBuildError(f"mesh vertices must have shape (n, 3) with n > 0, got {v.shape}")
        if idx.size % 3 != 0 or idx.size == 0:
            raise ModelBuildError(f"mesh indices must hold a positive multiple of 3 entries, got {idx.size}")
        if idx.min() < 0 or idx.max() >= len(v):
            raise ModelBuildError(f"mesh indices must lie in [0, {len(v) - 1}], got [{idx.min()}, {idx.max()}]")
        if not np.isfinite(v).all():
            raise ModelBuildError("mesh vertices hold NaN or inf")
        if int(maxhullvert) != -1 and int(maxhullvert) < 4:
            raise ModelBuildError(f"mesh maxhullvert must be -1 (no limit) or at least 4, got {maxhullvert}")
        self.vertices = v
        self.indices = idx.reshape(-1, 3)
        self.is_solid = bool(is_solid)
        self.maxhullvert = int(maxhullvert)
        self._unit_props = None
        # Convex hulls by (maxhullvert, backend), filled by newton_gym.solvers.collision.hull.mesh_hull.
        self._hulls: dict = {}

    def unit_mass_properties(self):
        """Volume [m^3], COM (3,) [m] and inertia about the COM (3, 3) [m^5] at unit density.

        Signed-tetrahedron integration (exact for closed, consistently oriented meshes): each triangle
        (a, b, c) with the origin spans a tetrahedron of signed volume det[a b c] / 6 whose second moment
        is det / 120 * (a a^T + b b^T + c c^T + s s^T), s = a + b + c.
        """
        if self._unit_props is None:
            tri = self.vertices[self.indices]
            a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
            det = np.einsum("ij,ij->i", a, np.cross(b, c))
            vol = det.sum() / 6.0
            if not self.is_solid or abs(vol) < 1e-15:
                self._unit_props = (0.0, self.vertices.mean(axis=0), np.zeros((3, 3)))
                return self._unit_props
            s = a + b + c
            com = (det[:, None] * s).sum(axis=0) / 24.0 / vol
            outer = (
                np.einsum("ni,nj->nij", a, a)
                + np.einsum("ni,nj->nij", b, b)
                + np.einsum("ni,nj->nij", c, c)
                + np.einsum("ni,nj->nij", s, s)
            )
            cov = (det[:, None, None] * outer).sum(axis=0) / 120.0
            inertia_origin = np.trace(cov) * np.eye(3) - cov
            inertia = inertia_origin - vol * (np.dot(com, com) * np.eye(3) - np.outer(com, com))
            if vol < 0:  # inward-facing winding: flip sign rather than produce negative mass
                vol, inertia = -vol, -inertia
            self._unit_props = (float(vol), com, inertia)
        return self._unit_props
