"""The static shapes that downward rays hit: heightfields, boxes and planes fixed in the world, packed once.

:func:`pack_static_scene` gathers every colliding static shape (``shape_body == -1`` and ``shape_collide``;
visual-only shapes are left out) of a Model that is a heightfield, a box or a plane, with its world pose (a
static shape's ``shape_transform`` is already in world), into a :class:`StaticScene` of device arrays.

Items are grouped by world (worlds 0 .. world_count - 1, then the global shapes, world -1, as group
``world_count``); a ray tests the group of its world and the global one. Bounded items (heightfields, boxes,
planes of finite width and length) come first, by group, and sit in a Warp BVH of their world-space
bounding boxes grouped the same way: a group of more than ``_LINEAR_MAX`` of them is searched through the
BVH for the boxes that the ray's segment overlaps, a smaller one item by item. Unbounded items (planes with
a zero width or length) follow, by group. Each heightfield's elevations are uploaded once, however many
shapes and worlds use it.

:func:`cast_down` is the device function a ray kernel calls: the nearest hits of a body's rays pointing along
world -z, item by item (each item's frame is taken once for all the rays a thread casts). Heightfields are hit
on the triangles of :meth:`~newton_gym.sim.Heightfield.triangles` in O(1) (the ray is vertical in the field's
frame, so it meets at most one triangle: the one over its (x, y)); a heightfield must therefore keep its +z
along world +z (translation and yaw only). A ray meets a field only where it starts at or above the surface; a
box or a plane anywhere along the ray (a ray starting inside a box reports where it leaves it). Other static
shape types are not seen by the rays.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import warp as wp

from ..render.intersect import MISS, ray_box, ray_plane
from ..sim.hostmath import quat_rotate, transform_inverse
from ..sim.types import GeoType
from ..sim.wpmath import GEO_BOX, GEO_HFIELD, GEO_PLANE
from .common import SensorError

__all__ = ["StaticScene", "pack_static_scene", "cast_down", "yaw_turn", "BodyRays", "SceneHandle"]

#: Kinds of static shape the rays see.
_SEEN = (int(GeoType.HFIELD), int(GeoType.BOX), int(GeoType.PLANE))
#: [m] margin added to every item's bounding box, so that float32 round-off never drops a candidate.
_AABB_PAD = 1.0e-3
#: Largest x or y component of a heightfield's unit quaternion (a tilt of about 2e-6 rad).
_FIELD_TILT_TOL = 1.0e-6
#: Groups of at most this many bounded items are tested one by one, larger ones through the BVH.
_LINEAR_MAX = wp.constant(4)
#: [cells] a ray this far outside a field's grid still meets its edge triangles.
_EDGE_TOL = 1.0e-5


@wp.struct
class StaticScene:
    """Device tables of the static shapes the rays test; items are numbered bounded first, then unbounded."""

    item_kind: wp.array(dtype=wp.int32)  # (item_count,) GeoType: HFIELD, BOX or PLANE
    item_to_local: wp.array(dtype=wp.transform)  # (item_count,) world -> shape frame, the inverse pose [m]
    item_down: wp.array(dtype=wp.vec3)  # (item_count,) world -z in the shape frame (unit)
    item_scale: wp.array(dtype=wp.vec3)  # (item_count,) box half extents; plane (width, length, 0) [m]
    item_field: wp.array(dtype=wp.int32)  # (item_count,) index into the field tables, -1 for none
    bvh: wp.uint64  # Warp BVH over the bounded items' world boxes (item index = BVH index); 0: none
    bounded_start: wp.array(dtype=wp.int32)  # (world_count + 2,) first bounded item of each group, then end
    unbounded_start: wp.array(dtype=wp.int32)  # (world_count + 2,) first unbounded item of each group, then end
    field_start: wp.array(dtype=wp.int32)  # (field_count,) first elevation of each field in field_heights
    field_nrow: wp.array(dtype=wp.int32)  # (field_count,) grid points along y
    field_ncol: wp.array(dtype=wp.int32)  # (field_count,) grid points along x
    field_half: wp.array(dtype=wp.vec2)  # (field_count,) half extents (hx, hy) [m]
    field_heights: wp.array(dtype=wp.float32)  # (sum nrow * ncol,) elevations, row by row [m]
    world_count: int  # number of worlds; global items form BVH group world_count


@dataclass(frozen=True)
class SceneHandle:
    """A packed :class:`StaticScene` with the host objects it points to, kept alive together."""

    scene: StaticScene  # the tables passed to kernels
    bvh: wp.Bvh | None  # owner of scene.bvh; None where no item is bounded
    item_shape: np.ndarray  # (item_count,) int64 model shape index of each item
    ignored: list  # model shape indices of colliding static shapes of a kind the rays do not see


def _corners(half: np.ndarray) -> np.ndarray:
    """(8, 3) corners of a box of half extents ``half`` about the origin."""
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=np.float64)
    return signs * half


def _world_box(pose: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World-axis bounds of the local box [lo, hi] placed at ``pose`` (p, q xyzw), padded by _AABB_PAD."""
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    points = pose[:3] + quat_rotate(pose[3:7], centre + _corners(half))
    return points.min(axis=0) - _AABB_PAD, points.max(axis=0) + _AABB_PAD


def _local_bounds(kind: int, scale: np.ndarray, field) -> tuple[np.ndarray, np.ndarray]:
    """Shape-frame bounds of a bounded item."""
    if kind == GeoType.BOX:
        return -scale, scale
    if kind == GeoType.PLANE:
        half = np.array([0.5 * scale[0], 0.5 * scale[1], 0.0])
        return -half, half
    return np.array([-field.hx, -field.hy, field.bottom]), np.array([field.hx, field.hy, field.heights.max()])


def _by_group(shapes: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``shapes`` and their groups, stably sorted by group."""
    order = np.argsort(group, kind="stable")
    return shapes[order], group[order]


def _check_field_pose(shape: int, key: str, pose: np.ndarray):
    """Raise where a heightfield's +z is not world +z (a vertical ray must stay vertical in its frame)."""
    q = pose[3:7] / np.linalg.norm(pose[3:7])
    if max(abs(q[0]), abs(q[1])) > _FIELD_TILT_TOL:
        raise SensorError(
            f"static heightfield shape {shape} ({key!r}) is tilted (quaternion {q.round(6).tolist()}): downward "
            "rays support heightfields turned about z only (translation and yaw)"
        )


def _field_tables(fields: list, device) -> dict:
    """The ``field_*`` arrays of :class:`StaticScene` for these Heightfields, elevations concatenated."""
    nrow = np.array([f.nrow for f in fields], dtype=np.int32)
    ncol = np.array([f.ncol for f in fields], dtype=np.int32)
    sizes = nrow.astype(np.int64) * ncol
    start = (np.cumsum(sizes) - sizes).astype(np.int32)
    heights = np.concatenate([f.heights.ravel() for f in fields]) if fields else np.zeros(1)
    half = np.array([[f.hx, f.hy] for f in fields], dtype=np.float32).reshape(-1, 2)
    return {
        "field_start": wp.array(start, dtype=wp.int32, device=device),
        "field_nrow": wp.array(nrow, dtype=wp.int32, device=device),
        "field_ncol": wp.array(ncol, dtype=wp.int32, device=device),
        "field_half": wp.array(half, dtype=wp.vec2, device=device),
        "field_heights": wp.array(heights.astype(np.float32), dtype=wp.float32, device=device),
    }


def pack_static_scene(model) -> SceneHandle:
    """Pack the static heightfields, boxes and planes of ``model`` for :func:`cast_down`.

    Raises:
        SensorError: a static heightfield is tilted (its +z is not world +z), or the model's up axis is not Z.
    """
    if int(model.up_axis) != 2:
        raise SensorError(f"downward rays need a Z-up model; this model's up axis is {int(model.up_axis)}")
    device, world_count = model.device, max(int(model.world_count), 0)
    body, kind = model.shape_body.numpy(), model.shape_type.numpy()
    pose, scale = model.shape_transform.numpy().astype(np.float64), model.shape_scale.numpy().astype(np.float64)
    world, field_of = model.shape_world.numpy(), model.shape_heightfield.numpy()
    static = np.flatnonzero((body == -1) & model.shape_collide.numpy().astype(bool))
    seen = static[np.isin(kind[static], _SEEN)]
    ignored = sorted(set(static.tolist()) - set(seen.tolist()))
    if ignored:
        names = sorted({GeoType(int(kind[s])).name for s in ignored})
        warnings.warn(f"downward rays do not see static {', '.join(names)} shapes (shapes {ignored[:8]})", stacklevel=3)
    unbounded = (kind[seen] == GeoType.PLANE) & ((scale[seen, 0] <= 0.0) | (scale[seen, 1] <= 0.0))
    # Groups: worlds 0 .. world_count - 1, then the global shapes; items sorted by group within each part.
    group_of = np.where(world[seen] < 0, world_count, world[seen])
    bounded, group = _by_group(seen[~unbounded], group_of[~unbounded])
    flat, flat_group = _by_group(seen[unbounded], group_of[unbounded])
    bounded_start = np.searchsorted(group, np.arange(world_count + 2)).astype(np.int32)
    unbounded_start = (len(bounded) + np.searchsorted(flat_group, np.arange(world_count + 2))).astype(np.int32)
    items = np.concatenate([bounded, flat]).astype(np.int64)
    used_fields = sorted({int(field_of[s]) for s in items if kind[s] == GeoType.HFIELD})
    field_slot = {f: k for k, f in enumerate(used_fields)}
    lowers, uppers = [], []
    for s in bounded:
        field = model.heightfields[field_of[s]] if kind[s] == GeoType.HFIELD else None
        if field is not None:
            _check_field_pose(int(s), model.shape_key[s], pose[s])
        lo, hi = _world_box(pose[s], *_local_bounds(int(kind[s]), scale[s], field))
        lowers.append(lo)
        uppers.append(hi)
    bvh = None
    if len(bounded):
        bvh = wp.Bvh(
            wp.array(np.array(lowers, dtype=np.float32), dtype=wp.vec3, device=device),
            wp.array(np.array(uppers, dtype=np.float32), dtype=wp.vec3, device=device),
            groups=wp.array(group.astype(np.int32), dtype=wp.int32, device=device),
        )
    scene = StaticScene()
    scene.item_kind = wp.array(kind[items].astype(np.int32), dtype=wp.int32, device=device)
    to_local = transform_inverse(pose[items]).reshape(-1, 7)
    down = quat_rotate(to_local[:, 3:7], np.array([0.0, 0.0, -1.0]))
    scene.item_to_local = wp.array(to_local.astype(np.float32), dtype=wp.transform, device=device)
    scene.item_down = wp.array(down.astype(np.float32).reshape(-1, 3), dtype=wp.vec3, device=device)
    scene.item_scale = wp.array(scale[items].astype(np.float32), dtype=wp.vec3, device=device)
    item_field = np.array([field_slot.get(int(field_of[s]), -1) for s in items], dtype=np.int32)
    scene.item_field = wp.array(item_field, dtype=wp.int32, device=device)
    scene.bvh = bvh.id if bvh is not None else 0
    scene.bounded_start = wp.array(bounded_start, dtype=wp.int32, device=device)
    scene.unbounded_start = wp.array(unbounded_start, dtype=wp.int32, device=device)
    for name, arr in _field_tables([model.heightfields[f] for f in used_fields], device).items():
        setattr(scene, name, arr)
    scene.world_count = world_count
    return SceneHandle(scene=scene, bvh=bvh, item_shape=items, ignored=ignored)


@wp.func
def yaw_turn(heading: wp.vec2, v: wp.vec3):
    """``v`` turned about world z by ``heading`` (cos, sin of the yaw)."""
    c = heading[0]
    s = heading[1]
    return wp.vec3(c * v[0] - s * v[1], s * v[0] + c * v[1], v[2])


@wp.struct
class BodyRays:
    """The rays one thread casts: rays ``first`` .. ``end`` - 1 of sensor ``sensor``, ray r from ``p`` + the yaw
    turn ``heading`` (cos, sin) of ``ray_start[r]``, along world -z."""

    p: wp.vec3  # world origin of the tracked body [m]
    heading: wp.vec2  # (cos, sin) of the yaw
    ray_start: wp.array(dtype=wp.vec3)  # (R,) ray starts in the yaw frame [m]
    first: int
    end: int
    sensor: int


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _field_grid(scene: StaticScene, field: int):
    """(half extents [m], grid points per metre along x and y, (first elevation, rows, columns)) of field
    ``field``: what :func:`_field_depth` needs besides the elevations, taken once per item by a thread that
    casts several rays."""
    half = scene.field_half[field]
    nrow = scene.field_nrow[field]
    ncol = scene.field_ncol[field]
    per_m = wp.vec2(float(ncol - 1) / (2.0 * half[0]), float(nrow - 1) / (2.0 * half[1]))
    return half, per_m, wp.vec3i(scene.field_start[field], nrow, ncol)


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _item_grid(scene: StaticScene, item: int):
    """:func:`_field_grid` of item ``item``'s field; placeholders where it is not a heightfield."""
    field = scene.item_field[item]
    if field >= 0:
        return _field_grid(scene, field)
    return wp.vec2(1.0), wp.vec2(1.0), wp.vec3i(0)


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _field_depth(scene: StaticScene, half: wp.vec2, per_m: wp.vec2, grid: wp.vec3i, o: wp.vec3):
    """Distance [m] down from ``o`` (field frame) to the field's surface below it, or MISS where ``o`` is
    outside the grid or below the surface (``half``, ``per_m``, ``grid``: the field's :func:`_field_grid`).
    The triangles of Heightfield.triangles: cell (r, c) is split along the diagonal from (r, c) to (r + 1,
    c + 1)."""
    nrow = grid[1]
    ncol = grid[2]
    u = (o[0] + half[0]) * per_m[0]
    v = (o[1] + half[1]) * per_m[1]
    if u < -_EDGE_TOL or v < -_EDGE_TOL or u > float(ncol - 1) + _EDGE_TOL or v > float(nrow - 1) + _EDGE_TOL:
        return float(MISS)
    u = wp.clamp(u, 0.0, float(ncol - 1))
    v = wp.clamp(v, 0.0, float(nrow - 1))
    c = wp.min(int(wp.floor(u)), ncol - 2)
    r = wp.min(int(wp.floor(v)), nrow - 2)
    fu = u - float(c)
    fv = v - float(r)
    k = grid[0] + r * ncol + c
    h00 = scene.field_heights[k]
    h10 = scene.field_heights[k + 1]
    h01 = scene.field_heights[k + ncol]
    h11 = scene.field_heights[k + ncol + 1]
    # triangle (p00, p10, p11) where fu >= fv, else (p01, p00, p11); a select, not a branch: a yawed ray grid
    # falls on either side at random, and the mispredicted branch cost as much as the rest of the ray
    z = wp.where(fu >= fv, h00 + fu * (h10 - h00) + fv * (h11 - h10), h00 + fv * (h01 - h00) + fu * (h11 - h01))
    if o[2] < z:
        return float(MISS)
    return o[2] - z


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _local_depth(scene: StaticScene, item: int, kind: int, half: wp.vec2, per_m: wp.vec2, grid: wp.vec3i, ol: wp.vec3):
    """Ray parameter (distance [m], the direction being unit) where the ray from ``ol`` (item ``item``'s frame,
    of kind ``kind``; a field's ``half``, ``per_m``, ``grid``: :func:`_field_grid`) along world -z first meets
    the item, or MISS."""
    if kind == GEO_HFIELD:
        return _field_depth(scene, half, per_m, grid, ol)
    dl = scene.item_down[item]
    size = scene.item_scale[item]
    t = float(MISS)
    if kind == GEO_BOX:
        t, n = ray_box(ol, dl, size)
    elif kind == GEO_PLANE:
        t, n = ray_plane(ol, dl, size[0], size[1])
    return t


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _item_depth(scene: StaticScene, item: int, o: wp.vec3):
    """Ray parameter (distance [m], the direction being unit) where the ray from world point ``o`` along
    -z first meets item ``item``, or MISS."""
    half, per_m, grid = _item_grid(scene, item)
    ol = wp.transform_point(scene.item_to_local[item], o)
    return _local_depth(scene, item, scene.item_kind[item], half, per_m, grid, ol)


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _item_rays(scene: StaticScene, item: int, rays: BodyRays, t_out: wp.array2d(dtype=wp.float32)):
    """``t_out[sensor, r]`` of each ray of ``rays`` lowered to the ray parameter where it meets item ``item``.
    The item's frame is taken once for all the rays: a ray's start in it is the pattern point's image plus
    the image of its turned grid offset (three axes, a product each)."""
    to_local = scene.item_to_local[item]
    base = wp.transform_point(to_local, rays.p)
    c = rays.heading[0]
    sn = rays.heading[1]
    ex = wp.transform_vector(to_local, wp.vec3(c, sn, 0.0))  # the yaw frame's axes
    ey = wp.transform_vector(to_local, wp.vec3(-sn, c, 0.0))
    ez = wp.transform_vector(to_local, wp.vec3(0.0, 0.0, 1.0))
    kind = scene.item_kind[item]
    half, per_m, grid = _item_grid(scene, item)
    i = rays.sensor
    r = int(rays.first)
    while r < rays.end:
        s = rays.ray_start[r]
        ol = base + ex * s[0] + ey * s[1] + ez * s[2]
        t_out[i, r] = wp.min(t_out[i, r], _local_depth(scene, item, kind, half, per_m, grid, ol))
        r += 1


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _group_rays(
    scene: StaticScene,
    group: int,
    rays: BodyRays,
    t_max: float,
    origins: wp.array2d(dtype=wp.vec3),
    t_out: wp.array2d(dtype=wp.float32),
):
    """``t_out[sensor, r]`` of each ray of ``rays`` lowered to its nearest hit among the items of ``group`` (a
    world, or world_count: global); ``origins[sensor, r]``: the rays' world starts. A group of more than
    ``_LINEAR_MAX`` bounded items is searched ray by ray through the BVH."""
    b0 = scene.bounded_start[group]
    b1 = scene.bounded_start[group + 1]
    if b1 - b0 > _LINEAR_MAX:
        root = wp.bvh_get_group_root(scene.bvh, group)
        i = rays.sensor
        r = int(rays.first)
        while r < rays.end:
            o = origins[i, r]
            query = wp.bvh_query_aabb(scene.bvh, o - wp.vec3(0.0, 0.0, t_max), o, root)
            item = int(0)
            best = t_out[i, r]
            while wp.bvh_query_next(query, item):
                best = wp.min(best, _item_depth(scene, item, o))
            t_out[i, r] = best
            r += 1
    else:
        for item in range(b0, b1):
            _item_rays(scene, item, rays, t_out)
    for item in range(scene.unbounded_start[group], scene.unbounded_start[group + 1]):
        _item_rays(scene, item, rays, t_out)


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def _group_filled(scene: StaticScene, group: int):
    """Whether ``group`` holds any item."""
    bounded = scene.bounded_start[group + 1] > scene.bounded_start[group]
    return bounded or scene.unbounded_start[group + 1] > scene.unbounded_start[group]


@wp.func(inline=True)  # takes the scene's tables (about 1 KB) by value: inlined, they are not copied
def cast_down(
    scene: StaticScene,
    world: int,
    rays: BodyRays,
    t_max: float,
    origins_out: wp.array2d(dtype=wp.vec3),
    t_out: wp.array2d(dtype=wp.float32),
):
    """Cast ``rays`` straight down (-z), their world starts written to ``origins_out[sensor, r]``;
    ``t_out[sensor, r]`` gets the distance [m] to the nearest static item of ``world`` or of the global
    shapes, MISS where none is hit (``t_max`` bounds the BVH's search: a hit farther than it may be reported,
    and the caller clips at ``t_max``). ``world`` -1 sees the global items only. Item by item, each item's
    frame taken once for all the rays (a thread casts every ray of a body on the CPU, one on a GPU)."""
    i = rays.sensor
    r = int(rays.first)
    while r < rays.end:
        origins_out[i, r] = rays.p + yaw_turn(rays.heading, rays.ray_start[r])
        t_out[i, r] = float(MISS)
        r += 1
    # Empty groups are skipped: most scenes hold global terrain and nothing per world.
    if _group_filled(scene, scene.world_count):
        _group_rays(scene, scene.world_count, rays, t_max, origins_out, t_out)
    if world >= 0 and world < scene.world_count:
        if _group_filled(scene, world):
            _group_rays(scene, world, rays, t_max, origins_out, t_out)
