"""The viewer's scene: a model's visible shapes as instanced triangle meshes, its worlds laid out side by side.

The shapes (a heightfield as the surface the ray caster hits), their sizes, body attachments, static
poses and colours are those the ray caster packs (:func:`newton_gym.render.scene.pack_scene`,
:func:`newton_gym.render.palette.shape_colors`). Shapes of the
same geometry (a replicated robot's link in every world) share one :class:`ShapeBatch`, drawn once per
instance, so a client receives each mesh once and then only poses.

The worlds of a vectorised task overlap at the origin; the viewer shifts world ``w`` by
``world_offset[w]`` (a centred grid of ``spacing`` [m] over the two horizontal axes) so all of them can be
seen at once. An infinite plane is drawn as one ``spacing`` x ``spacing`` tile per world (a global
infinite plane as one tile under the whole grid), with the ray caster's checkerboard.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ViewError
from ..render.errors import check_positive
from ..render.palette import check_colors, shape_colors
from ..render.scene import heightfield_surface, pack_scene
from ..sim.compose import grid_offsets
from ..sim.conventions import quat_xyzw_to_wxyz
from ..sim.hostmath import transform_mul
from ..sim.types import GeoType
from . import geometry

__all__ = ["ShapeBatch", "ViewScene", "CHECKER_SHADE"]

CHECKER_SHADE = 0.7
"""Brightness of a plane's odd checker squares relative to its colour (the ray caster's near-field shade)."""

_KIND = {
    GeoType.PLANE: "plane",
    GeoType.SPHERE: "sphere",
    GeoType.CAPSULE: "capsule",
    GeoType.BOX: "box",
    GeoType.CYLINDER: "cylinder",
    GeoType.CONE: "cone",
    GeoType.MESH: "mesh",
    GeoType.HFIELD: "heightfield",
}
# shaded per triangle, as the ray caster shades them
_FLAT = (GeoType.PLANE, GeoType.BOX, GeoType.MESH, GeoType.HFIELD)


@dataclass
class ShapeBatch:
    """One mesh drawn at K places: the instances of one geometry across worlds.

    Attributes:
        name: scene-tree name, ``/shapes/<kind>_<k>`` (planes: ``/shapes/plane_<k>_even`` / ``_odd``).
        geo_type: GeoType of the shapes.
        vertices: (V, 3) float32 [m], shape frame, scale applied.
        faces: (F, 3) uint32, counter-clockwise seen from outside.
        rows: (K,) int64, packed rows (``RenderScene`` order) of the instances.
        shape_index: (K,) int64, model shape index of each instance.
        world: (K,) int64, world of each instance, -1 for a global shape.
        color: (K, 3) float32 RGB in [0, 1].
        flat_shading: whether the mesh is shaded per triangle (planes, boxes, meshes, heightfields).
    """

    name: str
    geo_type: int
    vertices: np.ndarray
    faces: np.ndarray
    rows: np.ndarray
    shape_index: np.ndarray
    world: np.ndarray
    color: np.ndarray
    flat_shading: bool


class ViewScene:
    """The visible shapes of ``model`` as :class:`ShapeBatch` es and their world-frame poses.

    Args:
        model: a finalized ``newton_gym.Model``.
        spacing: [m] distance between neighbouring worlds on the layout grid; None picks one from the
            size of world 0 (its initial shapes, plus a margin).
        shape_colors: optional (shape_count, 3) RGB in [0, 1]; default the ray caster's palette.
        checker_size: [m] square size of the plane checkerboard.

    Attributes:
        batches: the ShapeBatches, planes first.
        world_count: ``max(model.world_count, 1)``, the worlds shown.
        world_offset: (world_count, 3) float64 [m], shift of each world on the layout grid.
        spacing: [m] the layout grid's spacing.
        up_axis: 1 (Y) or 2 (Z), the model's up axis.
    """

    def __init__(self, model, spacing: float | None = None, shape_colors=None, checker_size: float = 0.5):
        self.model = model
        self.up_axis = int(getattr(model, "up_axis", 2))
        self.world_count = max(int(model.world_count), 1)
        colors = _colors(model, shape_colors)
        self._packed = pack_scene(model, colors, "cpu")
        p = self._packed
        self._geo = p.geo_type.numpy().astype(np.int64)
        self._body = p.body.numpy().astype(np.int64)
        self._xform = p.xform.numpy().astype(np.float64).reshape(-1, 7)
        self._size = p.size.numpy().astype(np.float64).reshape(-1, 3)
        self._shape = p.shape_index.numpy().astype(np.int64)
        self._color = p.color.numpy().astype(np.float32).reshape(-1, 3)
        self._world = np.full(len(self._geo), -1, dtype=np.int64)
        for w in range(self.world_count):
            self._world[p.world_begin[w] : p.world_begin[w + 1]] = w
        self._checker = _positive(checker_size, "checker_size")
        self.spacing = self._auto_spacing() if spacing is None else _positive(spacing, "spacing")
        horizontal = np.full(3, self.spacing)
        horizontal[self.up_axis] = 0.0
        self.world_offset = grid_offsets(self.world_count, horizontal)
        self._row_offset = np.where(self._world[:, None] >= 0, self.world_offset[np.maximum(self._world, 0)], 0.0)
        self.batches = self._plane_batches() + self._shape_batches()
        body_world = model.body_world.numpy() if model.body_count else np.zeros(0, dtype=np.int32)
        self._root_body = np.array(
            [int(np.argmax(body_world == w)) if (body_world == w).any() else -1 for w in range(self.world_count)]
        )

    # ---------------------------------------------------------------- poses
    def poses(self, body_q) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per batch, its instances' (positions (K, 3) [m], orientations (K, 4) w-first) float32 on the grid.

        Args:
            body_q: (body_count, 7) body poses (x, y, z, qx, qy, qz, qw), e.g. ``state.body_q.numpy()``.
        """
        q = self._check_body_q(body_q)
        pose = self._xform.copy()
        moving = self._body >= 0
        if moving.any():
            pose[moving] = transform_mul(q[self._body[moving]], self._xform[moving])
        pose[:, :3] += self._row_offset
        wxyz = quat_xyzw_to_wxyz(pose[:, 3:])
        return [(pose[b.rows, :3].astype(np.float32), wxyz[b.rows].astype(np.float32)) for b in self.batches]

    def world_centres(self, body_q) -> np.ndarray:
        """(world_count, 3) [m] position of each world's first body on the layout grid (its offset when it
        has no body)."""
        q = self._check_body_q(body_q)
        centres = self.world_offset.copy()
        has_root = self._root_body >= 0
        centres[has_root] += q[self._root_body[has_root], :3]
        return centres

    def _check_body_q(self, body_q) -> np.ndarray:
        count = int(self.model.body_count)
        q = np.asarray(body_q, dtype=np.float64)
        if q.shape != (count, 7):
            raise ViewError(f"body_q must have shape ({count}, 7) (one pose per body of the model), got {q.shape}")
        return q

    # ---------------------------------------------------------------- batches
    def _auto_spacing(self) -> float:
        """Twice the reach of world 0's initial shapes from their centre plus 1.5 m, rounded up to whole
        checker squares."""
        rows = np.nonzero((self._world == 0) if (self._world == 0).any() else (self._world < 0))[0]
        radius = self._packed.radius.numpy()[rows]
        rows, radius = rows[radius > 0], radius[radius > 0]
        if len(rows) == 0:
            return 2.0
        body_q = self.model.body_q.numpy().astype(np.float64) if self.model.body_count else np.zeros((0, 7))
        pose = self._xform[rows].copy()
        moving = self._body[rows] >= 0
        if moving.any():
            pose[moving] = transform_mul(body_q[self._body[rows][moving]], self._xform[rows][moving])
        points = pose[:, :3]
        centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
        # the reach in 3D, not only across the floor: a robot that falls over lies as long as it stood tall
        reach = float((np.linalg.norm(points - centre, axis=1) + radius).max())
        return float(np.ceil((2.0 * reach + 1.5) / self._checker) * self._checker)

    def _instances(self, rows: np.ndarray) -> dict:
        return {"rows": rows, "shape_index": self._shape[rows], "world": self._world[rows], "color": self._color[rows]}

    def _plane_batches(self) -> list[ShapeBatch]:
        rows = np.nonzero(self._geo == GeoType.PLANE)[0]
        grid_side = int(np.ceil(np.sqrt(self.world_count))) * self.spacing
        extents = {}
        for r in rows:
            infinite = self.spacing if self._world[r] >= 0 else grid_side + self.spacing
            w = self._size[r, 0] if self._size[r, 0] > 0 else infinite
            h = self._size[r, 1] if self._size[r, 1] > 0 else infinite
            extents.setdefault((round(float(w), 6), round(float(h), 6)), []).append(r)
        batches = []
        for k, ((w, h), group) in enumerate(extents.items()):
            group = np.asarray(group, dtype=np.int64)
            even, odd = geometry.checker_plane(w, h, self._checker)
            for suffix, (v, f), shade in (("even", even, 1.0), ("odd", odd, CHECKER_SHADE)):
                if len(f) == 0:
                    continue
                inst = self._instances(group)
                inst["color"] = inst["color"] * np.float32(shade)
                name = f"/shapes/plane_{k}_{suffix}"
                batches.append(ShapeBatch(name, int(GeoType.PLANE), v, f, **inst, flat_shading=True))
        return batches

    def _shape_batches(self) -> list[ShapeBatch]:
        n = self.model.shape_count
        mesh_of = self.model.shape_mesh.numpy() if n else np.zeros(0, dtype=np.int32)
        field_of = self.model.shape_heightfield.numpy() if n else np.zeros(0, dtype=np.int32)
        groups: dict = {}
        for r in np.nonzero(self._geo != GeoType.PLANE)[0]:
            geo = int(self._geo[r])
            mesh = -1
            if geo == GeoType.MESH:
                mesh = int(mesh_of[self._shape[r]])
            elif geo == GeoType.HFIELD:
                mesh = int(field_of[self._shape[r]])
            key = (geo, mesh, *np.round(self._size[r], 6).tolist())
            groups.setdefault(key, []).append(r)
        batches = []
        for k, (key, group) in enumerate(groups.items()):
            geo, mesh, size = key[0], key[1], np.asarray(key[2:])
            vertices, faces = _shape_mesh(self.model, geo, size, mesh)
            rows = np.asarray(group, dtype=np.int64)
            batches.append(
                ShapeBatch(
                    f"/shapes/{_KIND[GeoType(geo)]}_{k}",
                    geo,
                    vertices,
                    faces,
                    **self._instances(rows),
                    flat_shading=geo in _FLAT,
                )
            )
        return batches


def _shape_mesh(model, geo: int, size: np.ndarray, mesh: int) -> tuple[np.ndarray, np.ndarray]:
    """Triangle mesh of one shape in its frame: ``size`` is its ``shape_scale`` row; ``mesh`` the index of its
    mesh (MESH) or heightfield (HFIELD)."""
    a, b, c = (float(x) for x in size)
    if geo == GeoType.SPHERE:
        return geometry.sphere(a)
    if geo == GeoType.CAPSULE:
        return geometry.capsule(a, b)
    if geo == GeoType.CYLINDER:
        return geometry.cylinder(a, b)
    if geo == GeoType.CONE:
        return geometry.cone(a, b)
    if geo == GeoType.BOX:
        return geometry.box(a, b, c)
    if geo == GeoType.HFIELD:
        return heightfield_surface(model.heightfields[mesh])
    m = model.meshes[mesh]
    vertices = (np.asarray(m.vertices, dtype=np.float64) * size).astype(np.float32)
    return vertices, np.asarray(m.indices, dtype=np.uint32).reshape(-1, 3)


def _colors(model, colors) -> np.ndarray:
    if colors is None:
        return shape_colors(model)
    return check_colors(colors, int(model.shape_count))


def _positive(value, name: str) -> float:
    return check_positive(value, name, "metres", ViewError)
