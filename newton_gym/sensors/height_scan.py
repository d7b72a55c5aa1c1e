"""HeightScanner: a grid of downward rays around a body in every world, the terrain map of rough-terrain
locomotion (Isaac Lab's RayCaster with a GridPattern and yaw-only alignment).

Conventions. The grid lies in the xy plane of the tracked body's yaw frame (the body's heading about world
z; its roll and pitch are dropped): ``size`` = (length along x, width along y) [m], points ``resolution``
apart from -size/2 to +size/2 on each axis, ordered x fastest (ray k = iy * nx + ix; Isaac Lab's "xy"
ordering), so the defaults (1.6, 1.0) m at 0.1 m give 17 x 11 = 187 rays. Ray k starts at
``p_body + R_yaw (grid_k + offset)`` and points along world -z; it hits the nearest static heightfield,
box or plane of its world or of the global scene (see :mod:`.static_scene`) within ``max_distance``.

``hits_z`` holds the world z [m] of each hit. A ray that hits nothing reads the z of its far end,
``origin_z - max_distance`` (Isaac Lab writes inf there; a finite value keeps every output finite), so in
:meth:`HeightScanner.heights` a miss looks like a pit deeper than any clip: it reads the upper clip bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import warp as wp

from .common import SensorError, body_index_array, mask_array
from .static_scene import BodyRays, StaticScene, cast_down, pack_static_scene

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["HeightScanner", "HeightScanViews", "grid_pattern"]


def grid_pattern(size=(1.6, 1.0), resolution: float = 0.1) -> np.ndarray:
    """(nx * ny, 3) float64 grid points in the yaw frame [m], z = 0, x fastest: nx = floor(size_x /
    resolution) + 1 points from -size_x / 2, likewise along y.

    Raises:
        SensorError: a size that is negative or not finite, or a resolution that is not positive.
    """
    size = np.asarray(size, dtype=np.float64).reshape(-1)
    res = float(resolution)
    if size.shape != (2,) or not np.isfinite(size).all() or (size < 0).any():
        raise SensorError(f"size must be two finite lengths >= 0 [m], got {size.tolist()}")
    if not np.isfinite(res) or res <= 0.0:
        raise SensorError(f"resolution must be a positive length [m], got {resolution}")
    # A small slack so that 1.6 / 0.1 = 15.999... still counts 17 points (Isaac Lab's arange end + 1e-9).
    nx, ny = (np.floor(size / res + 1.0e-6).astype(np.int64) + 1).tolist()
    xs = -0.5 * size[0] + res * np.arange(nx)
    ys = -0.5 * size[1] + res * np.arange(ny)
    gx, gy = np.meshgrid(xs, ys, indexing="xy")  # (ny, nx): x runs fastest when flattened
    return np.stack([gx.ravel(), gy.ravel(), np.zeros(nx * ny)], axis=1)


@dataclass(frozen=True)
class HeightScanViews:
    """Zero-copy torch views of a HeightScanner's outputs (writes through either side are seen by the other)."""

    hits_z: torch.Tensor  # (N, R) world z of each ray's hit [m]
    ray_origins: torch.Tensor  # (N, R, 3) world start point of each ray [m]
    body_z: torch.Tensor  # (N,) world z of each tracked body's origin at the last update [m]


@wp.func
def _heading(q: wp.quat):
    """(cos, sin) of the heading of q (x, y, z, w), its roll and pitch dropped: the direction of the body's x
    axis projected on the xy plane (yaw = atan2 of it, as Isaac Lab's yaw_quat); a body whose x axis points
    straight up or down keeps yaw 0."""
    hx = 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2])
    hy = 2.0 * (q[0] * q[1] + q[3] * q[2])
    norm = wp.sqrt(hx * hx + hy * hy)
    if norm > 1.0e-12:
        return wp.vec2(hx / norm, hy / norm)
    return wp.vec2(1.0, 0.0)


@wp.kernel
def _scan_kernel(
    # Model:
    body_q: wp.array(dtype=wp.transform),
    body_world: wp.array(dtype=wp.int32),
    scene: StaticScene,
    # Sensor:
    body_index: wp.array(dtype=wp.int32),
    ray_start: wp.array(dtype=wp.vec3),
    max_distance: float,
    rays_per_thread: int,
    mask: wp.array(dtype=wp.bool),
    # Data out:
    ray_origins_out: wp.array2d(dtype=wp.vec3),
    hits_z_out: wp.array2d(dtype=wp.float32),
    body_z_out: wp.array(dtype=wp.float32),
):
    i, chunk = wp.tid()
    if not mask[i]:
        return
    b = body_index[i]
    pose = body_q[b]
    p = wp.transform_get_translation(pose)
    heading = _heading(wp.transform_get_rotation(pose))
    world = body_world[b]
    rays = BodyRays()
    rays.p = p
    rays.heading = heading
    rays.ray_start = ray_start
    rays.first = chunk * rays_per_thread
    rays.end = wp.min(rays.first + rays_per_thread, ray_start.shape[0])
    rays.sensor = i
    # the distances go into hits_z_out, then become the hits' z
    cast_down(scene, world, rays, max_distance, ray_origins_out, hits_z_out)
    r = int(rays.first)
    while r < rays.end:
        hits_z_out[i, r] = ray_origins_out[i, r][2] - wp.min(hits_z_out[i, r], max_distance)
        r += 1
    if rays.first == 0:
        body_z_out[i] = p[2]


class HeightScanner:
    """Per-world height scan: a grid of rays cast straight down from above a tracked body onto the static
    heightfields, boxes and planes (module docstring: the pattern, alignment and miss value).

    Args:
        model: the Model; its static shapes are packed once, here (later edits to them are not seen).
        body_indices: (N,) int global index of the tracked body of each sensor (usually one per world).
        size: (length x, width y) of the grid [m].
        resolution: spacing of the grid points [m].
        offset: (3,) start of the grid relative to the body origin, in its yaw frame [m].
        max_distance: longest ray [m]; farther hits count as misses.

    Raises:
        SensorError: bad indices, sizes or distance, a tilted static heightfield, or a model not Z-up.
    """

    model: object  # the Model whose bodies and static shapes the rays use
    count: int  # N, number of tracked bodies
    num_rays: int  # R, rays per tracked body
    max_distance: float  # [m]
    pattern: np.ndarray  # (R, 3) float64 ray starts in the yaw frame, offset included [m]
    body_indices: wp.array  # (N,) int32 global body index of each tracked body
    ray_origins: wp.array  # (N, R) vec3 world start of each ray at the last update [m]
    hits_z: wp.array  # (N, R) float32 world z of each hit; a miss: origin z - max_distance [m]
    body_z: wp.array  # (N,) float32 world z of each tracked body's origin at the last update [m]
    views: HeightScanViews  # zero-copy torch views of the three outputs

    def __init__(
        self, model, body_indices, size=(1.6, 1.0), resolution=0.1, offset=(0.0, 0.0, 20.0), max_distance=100.0
    ):
        offset = np.asarray(offset, dtype=np.float64).reshape(-1)
        if offset.shape != (3,) or not np.isfinite(offset).all():
            raise SensorError(f"offset must be 3 finite numbers [m], got {offset.tolist()}")
        if not np.isfinite(max_distance) or float(max_distance) <= 0.0:
            raise SensorError(f"max_distance must be a positive length [m], got {max_distance}")
        self.model = model
        self.body_indices = body_index_array(model, body_indices, 1)
        self.count = int(self.body_indices.shape[0])
        self.pattern = grid_pattern(size, resolution) + offset
        self.num_rays = int(self.pattern.shape[0])
        self.max_distance = float(max_distance)
        self._scene = pack_static_scene(model)
        device = model.device
        self._ray_start = wp.array(self.pattern.astype(np.float32), dtype=wp.vec3, device=device)
        self.ray_origins = wp.zeros((self.count, self.num_rays), dtype=wp.vec3, device=device)
        self.hits_z = wp.zeros((self.count, self.num_rays), dtype=wp.float32, device=device)
        self.body_z = wp.zeros(self.count, dtype=wp.float32, device=device)
        self._everyone = wp.ones(self.count, dtype=wp.bool, device=device)  # the mask of a full update
        self.views = HeightScanViews(
            hits_z=wp.to_torch(self.hits_z), ray_origins=wp.to_torch(self.ray_origins), body_z=wp.to_torch(self.body_z)
        )

    def update(self, state, mask=None):
        """Cast the rays of every sensor (``mask`` (N,) bool: of those where it is True; the others keep their
        last hits) from the body poses in ``state.body_q``: one launch, no host sync, no allocation (capturable
        in a graph). A thread casts one ray on a GPU and all R rays of its body on the CPU, where a thread's
        setup (it copies the scene's tables, about 1 KB, and takes each item's frame) would outweigh a ray's work."""
        mask = self._everyone if mask is None else mask_array(mask, self.count, self.model.device)
        per_thread = 1 if wp.get_device(self.model.device).is_cuda else self.num_rays
        wp.launch(
            _scan_kernel,
            dim=(self.count, (self.num_rays + per_thread - 1) // per_thread),
            inputs=[
                state.body_q,
                self.model.body_world,
                self._scene.scene,
                self.body_indices,
                self._ray_start,
                self.max_distance,
                per_thread,
                mask,
            ],
            outputs=[self.ray_origins, self.hits_z, self.body_z],
            device=self.model.device,
        )

    def heights(self, offset: float = 0.5, clip=(-1.0, 1.0)) -> torch.Tensor:
        """(N, R) torch tensor ``clip(body_z - hits_z - offset)`` [m]: Isaac Lab's ``height_scan``
        observation (the terrain's depth below the body, less the nominal ``offset``); ``clip`` None: no
        clip. A new tensor, computed from the last :meth:`update`."""
        h = self.views.body_z[:, None] - self.views.hits_z - float(offset)
        return h if clip is None else h.clamp(float(clip[0]), float(clip[1]))

    @property
    def missed(self) -> torch.Tensor:
        """(N, R) torch bool: the rays of the last update that hit nothing within max_distance."""
        return self.views.hits_z <= self.views.ray_origins[..., 2] - self.max_distance

    @property
    def scene_shapes(self) -> np.ndarray:
        """Model shape indices of the static shapes the rays test."""
        return self._scene.item_shape
