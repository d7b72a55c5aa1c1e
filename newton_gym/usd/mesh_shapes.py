"""Mesh colliders: reading UsdGeom.Mesh points and faces and applying the collision approximation.

``physics:approximation`` (UsdPhysics.MeshCollisionAPI): "none" and "meshSimplification" give a
triangle mesh; "convexHull" a mesh whose convex hull the solver uses (hull vertex limit from the
resolvers); "boundingSphere" / "boundingCube" a sphere / box fitted to the vertices in the mesh
frame. "convexDecomposition", "sdf" and unknown tokens are not supported: a warning names the prim and
the mesh is used as a convex hull ("convexDecomposition") or as a triangle mesh (otherwise).
"""

from __future__ import annotations

import numpy as np

from ..sim.hostmath import transform_identity
from ..sim.mesh import Mesh
from ..sim.types import GeoType
from ._pxr import require_pxr, vec

__all__ = ["mesh_geometry", "DEFAULT_MAX_HULL_VERTICES"]

DEFAULT_MAX_HULL_VERTICES = 64


def _triangles(ctx, path, mesh_schema) -> tuple | None:
    points = mesh_schema.GetPointsAttr().Get()
    counts = mesh_schema.GetFaceVertexCountsAttr().Get()
    indices = mesh_schema.GetFaceVertexIndicesAttr().Get()
    if not points or not counts or not indices:
        ctx.warn(path, "mesh collider has no points or faces; skipped")
        return None
    v = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    counts = np.asarray(counts, dtype=np.int64)
    idx = np.asarray(indices, dtype=np.int64)
    if not np.isfinite(v).all():
        ctx.fail(path, "mesh points hold NaN or inf")
    if counts.sum() != len(idx) or (counts < 3).any() or idx.min() < 0 or idx.max() >= len(v):
        ctx.fail(path, "mesh faceVertexCounts / faceVertexIndices are inconsistent with its points")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    tris = [
        np.stack([np.full(c - 2, s), s + np.arange(1, c - 1), s + np.arange(2, c)], axis=1)
        for s, c in zip(starts, counts)
    ]  # fan triangulation of each polygon
    tri = idx[np.concatenate(tris)]
    if str(mesh_schema.GetOrientationAttr().Get()) == "leftHanded":
        tri = tri[:, ::-1]
    return v, tri


def _bounding(geo, v):
    lo, hi = v.min(axis=0), v.max(axis=0)
    center = 0.5 * (lo + hi)
    offset = transform_identity()
    offset[:3] = center
    if geo == GeoType.SPHERE:
        return np.array([np.linalg.norm(v - center, axis=1).max(), 0.0, 0.0]), offset
    return np.maximum(0.5 * (hi - lo), 1e-9), offset


def mesh_geometry(ctx, path: str, desc) -> tuple | None:
    """The collider shape of a UsdPhysics MeshShape descriptor.

    Returns:
        (geo, size (3,) [m], offset (7,) of the shape in the mesh frame [m], Mesh or None), or None
        when the prim has no usable geometry (a warning names it).
    """
    pxr = require_pxr()
    prim = ctx.stage.GetPrimAtPath(path)
    got = _triangles(ctx, path, pxr.UsdGeom.Mesh(prim))
    if got is None:
        return None
    v, tri = got
    scale = vec(desc.meshScale)
    if not np.isfinite(scale).all() or (np.abs(scale) < 1e-12).any():
        ctx.fail(path, f"mesh scale {scale.tolist()} is degenerate")
    v = v * scale * ctx.units.m
    approx = str(desc.approximation or "none")
    if approx in ("boundingSphere", "boundingCube"):
        geo = GeoType.SPHERE if approx == "boundingSphere" else GeoType.BOX
        size, offset = _bounding(geo, v)
        return geo, size, offset, None
    if approx not in ("none", "meshSimplification", "convexHull"):
        use = "its convex hull" if approx == "convexDecomposition" else "the triangle mesh"
        ctx.warn(path, f"mesh approximation {approx!r} is not supported; using {use}")
    default = ctx.options.mesh_maxhullvert or DEFAULT_MAX_HULL_VERTICES
    hull = ctx.resolve("shape", "max_hull_vertices", path, default=default)
    with ctx.at(path):
        mesh = Mesh(v, tri, is_solid=True, maxhullvert=int(hull))
    return GeoType.MESH, np.ones(3), transform_identity(), mesh
