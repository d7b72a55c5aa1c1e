"""Per-shape data the ray caster uploads once: visible shapes packed world by world, meshes and
heightfields (as Warp BVH meshes; a heightfield is its surface, the triangles of
``Heightfield.triangles``), colours."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..errors import RenderError
from ..sim.types import GeoType

__all__ = ["RenderScene", "bounding_radius", "heightfield_surface", "pack_scene"]


@dataclass
class RenderScene:
    """Visible shapes of a model, ordered global shapes first, then world 0, world 1, ...

    A world's shapes are packed rows ``[0, global_count)`` plus ``[world_begin[w], world_begin[w + 1])``.

    Attributes:
        shape_index: (packed_count,) int32, model shape index of each packed row.
        body: (packed_count,) int32, body of the shape, -1 = static.
        geo_type: (packed_count,) int32 GeoType.
        xform: (packed_count,) transform, shape pose in its body frame (world frame if static).
        size: (packed_count,) vec3, shape_scale (sizes in newton_gym's shape conventions; the scale for meshes;
            1, 1, 1 for heightfields).
        radius: (packed_count,) float32 [m], bounding-sphere radius about the shape origin; -1 unbounded.
        color: (packed_count,) vec3 RGB in [0, 1].
        mesh_id: (packed_count,) uint64, ``wp.Mesh`` id of a mesh or heightfield shape, 0 otherwise.
        meshes: the ``wp.Mesh`` of each model mesh (kept alive for the ids).
        heightfields: the ``wp.Mesh`` of each model heightfield's surface (kept alive for the ids).
        global_count: number of packed global shapes.
        world_begin: (max(world_count, 1) + 1,) host ints, packed row ranges of each world.
    """

    shape_index: wp.array
    body: wp.array
    geo_type: wp.array
    xform: wp.array
    size: wp.array
    radius: wp.array
    color: wp.array
    mesh_id: wp.array
    meshes: list
    heightfields: list
    global_count: int
    world_begin: np.ndarray


def bounding_radius(geo_type: int, size: np.ndarray, mesh_vertices: np.ndarray | None = None) -> float:
    """Radius [m] of a sphere about the shape origin holding the whole shape; -1 for infinite planes.
    ``mesh_vertices``: (V, 3) vertices of a mesh (scaled by ``size``) or the points of a heightfield."""
    a, b, c = (float(x) for x in size)
    if geo_type == GeoType.SPHERE:
        return a
    if geo_type == GeoType.BOX:
        return float(np.sqrt(a * a + b * b + c * c))
    if geo_type == GeoType.CAPSULE:
        return a + b
    if geo_type in (GeoType.CYLINDER, GeoType.CONE):
        return float(np.hypot(a, b))
    if geo_type == GeoType.MESH:
        return float(np.linalg.norm(mesh_vertices * np.asarray(size), axis=1).max())
    if geo_type == GeoType.HFIELD:
        return float(np.linalg.norm(mesh_vertices, axis=1).max())
    if geo_type == GeoType.PLANE:
        return -1.0 if a <= 0.0 or b <= 0.0 else float(0.5 * np.hypot(a, b))
    raise RenderError(f"unknown shape type {geo_type}")


def heightfield_surface(field) -> tuple[np.ndarray, np.ndarray]:
    """The surface of a ``newton_gym.Heightfield`` as ``(vertices (V, 3) float32 [m], faces (F, 3) uint32)``
    in its frame: its grid points and its triangles (counter-clockwise seen from +z)."""
    return field.points().astype(np.float32), field.triangles().astype(np.uint32)


def _warp_mesh(vertices, indices, device) -> wp.Mesh:
    points = wp.array(np.ascontiguousarray(vertices, dtype=np.float32), dtype=wp.vec3, device=device)
    flat = wp.array(np.ascontiguousarray(np.reshape(indices, -1), dtype=np.int32), dtype=wp.int32, device=device)
    return wp.Mesh(points=points, indices=flat)


def _warp_meshes(meshes, device) -> list:
    """One ``wp.Mesh`` (with its BVH) per ``newton_gym.Mesh``."""
    return [_warp_mesh(m.vertices, m.indices, device) for m in meshes]


def _warp_heightfields(fields, device) -> list:
    """One ``wp.Mesh`` of the surface per ``newton_gym.Heightfield``."""
    return [_warp_mesh(*heightfield_surface(f), device) for f in fields]


def _packed_order(model, visible):
    """Model shape indices in packed order and the packed row range of each world."""
    worlds = model.shape_world.numpy() if model.shape_count else np.zeros(0, dtype=np.int32)
    world_rows = max(int(model.world_count), 1)
    shown = np.nonzero(visible)[0]
    # A stable sort on the world index puts global shapes (-1) first, each group in index order.
    order = shown[np.argsort(worlds[shown], kind="stable")]
    global_count = int((worlds[shown] < 0).sum())
    counts = np.bincount(worlds[shown][worlds[shown] >= 0], minlength=world_rows)[:world_rows]
    begin = global_count + np.concatenate([[0], np.cumsum(counts)])
    return order.astype(np.int64), global_count, begin.astype(np.int64)


def pack_scene(model, colors: np.ndarray, device) -> RenderScene:
    """Pack the visible shapes of ``model`` with ``colors`` (shape_count, 3) and upload them to ``device``."""
    n = int(model.shape_count)
    visible = model.shape_visible.numpy() if n else np.zeros(0, dtype=bool)
    order, global_count, world_begin = _packed_order(model, visible)
    types = model.shape_type.numpy()[order] if n else np.zeros(0, dtype=np.int32)
    sizes = model.shape_scale.numpy()[order] if n else np.zeros((0, 3), dtype=np.float32)
    sizes[types == GeoType.HFIELD] = 1.0  # a heightfield's scale is unused
    meshes = model.shape_mesh.numpy()[order] if n else np.zeros(0, dtype=np.int32)
    fields = model.shape_heightfield.numpy()[order] if n else np.zeros(0, dtype=np.int32)
    warp_meshes = _warp_meshes(model.meshes, device)
    warp_fields = _warp_heightfields(model.heightfields, device)
    mesh_id = np.zeros(len(order), dtype=np.uint64)
    radius = np.empty(len(order), dtype=np.float32)
    mesh_radius: dict = {}  # replicated worlds repeat (mesh, scale) pairs; measure each once
    for row, (gt, size, m, f) in enumerate(zip(types, sizes, meshes, fields)):
        if gt == GeoType.HFIELD:
            key = ("hfield", int(f))
            if key not in mesh_radius:
                mesh_radius[key] = bounding_radius(int(gt), size, model.heightfields[f].points())
            radius[row] = mesh_radius[key] * 1.001
            mesh_id[row] = warp_fields[f].id
        elif gt == GeoType.MESH:
            key = (int(m), *size.tolist())
            if key not in mesh_radius:
                mesh_radius[key] = bounding_radius(int(gt), size, model.meshes[m].vertices)
            radius[row] = mesh_radius[key] * 1.001
            mesh_id[row] = warp_meshes[m].id
        else:
            radius[row] = bounding_radius(int(gt), size) * 1.001

    def up(data, dtype):
        return wp.array(np.ascontiguousarray(data), dtype=dtype, device=device)

    xforms = model.shape_transform.numpy()[order] if n else np.zeros((0, 7), dtype=np.float32)
    bodies = model.shape_body.numpy()[order] if n else np.zeros(0, dtype=np.int32)
    return RenderScene(
        shape_index=up(order.astype(np.int32), wp.int32),
        body=up(bodies, wp.int32),
        geo_type=up(types, wp.int32),
        xform=up(xforms, wp.transform),
        size=up(sizes, wp.vec3),
        radius=up(radius, wp.float32),
        color=up(colors[order] if len(order) else np.zeros((0, 3)), wp.vec3),
        mesh_id=up(mesh_id, wp.uint64),
        meshes=warp_meshes,
        heightfields=warp_fields,
        global_count=global_count,
        world_begin=world_begin,
    )
