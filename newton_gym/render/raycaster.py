"""Headless ray-cast renderer: one Warp thread per pixel, Lambert shading with one directional light.

Primitives are intersected analytically (``intersect.py``), meshes and heightfields (the triangles of
their surface) through Warp's BVH ray query, and each shape is first tested against its bounding
sphere; planes get a checkerboard, shapes cast shadows.

A world's image shows its visible shapes plus the global ones (world partitioning). Shapes are
packed and uploaded once in the constructor; ``render`` launches one kernel into preallocated buffers
and copies the image out.
"""

from __future__ import annotations

import math

import numpy as np
import warp as wp

from ..sim.wpmath import GEO_BOX, GEO_CAPSULE, GEO_CONE, GEO_CYLINDER, GEO_HFIELD, GEO_MESH, GEO_PLANE, GEO_SPHERE
from . import palette
from .camera import Camera
from .errors import RenderError, check_positive, check_world
from .intersect import (
    MISS,
    ray_bounding_sphere,
    ray_box,
    ray_capsule,
    ray_cone,
    ray_cylinder,
    ray_mesh,
    ray_plane,
    ray_sphere,
)
from .scene import pack_scene

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["RayCaster"]


_MAX_SIZE = 16384


@wp.func
def _ray_shape(o: wp.vec3, d: wp.vec3, geo: int, size: wp.vec3, mesh: wp.uint64, t_max: float):
    """Dispatch on the shape type; o, d in the shape frame. Returns (t, local normal)."""
    if geo == GEO_SPHERE:
        return ray_sphere(o, d, size[0])
    if geo == GEO_BOX:
        return ray_box(o, d, size)
    if geo == GEO_CAPSULE:
        return ray_capsule(o, d, size[0], size[1])
    if geo == GEO_CYLINDER:
        return ray_cylinder(o, d, size[0], size[1])
    if geo == GEO_CONE:
        return ray_cone(o, d, size[0], size[1])
    if geo == GEO_PLANE:
        return ray_plane(o, d, size[0], size[1])
    if geo == GEO_MESH or geo == GEO_HFIELD:  # a heightfield's size is (1, 1, 1)
        return ray_mesh(o, d, size, mesh, t_max)
    return MISS, wp.vec3(0.0, 0.0, 1.0)


@wp.struct
class _SceneView:
    """What one render ray-casts: the packed shapes of one world (rows ``[0, global_count)`` plus
    ``[world_begin, world_end)``) and the body poses that place them."""

    geo_type: wp.array(dtype=wp.int32)
    shape_body: wp.array(dtype=wp.int32)
    shape_xform: wp.array(dtype=wp.transform)
    shape_size: wp.array(dtype=wp.vec3)
    shape_radius: wp.array(dtype=wp.float32)
    shape_mesh: wp.array(dtype=wp.uint64)
    global_count: int
    world_begin: int
    world_end: int
    body_q: wp.array(dtype=wp.transform)


@wp.func
def _trace(o: wp.vec3, d: wp.vec3, scene: _SceneView):
    """Nearest hit of the world ray (o, unit d) among the scene's shapes.

    Returns (t [m], world normal, packed row or -1, hit point in the shape frame).
    """
    best_t = float(MISS)
    best_n = wp.vec3(0.0, 0.0, 1.0)
    best_row = int(-1)
    best_local = wp.vec3(0.0, 0.0, 0.0)
    candidates = scene.global_count + scene.world_end - scene.world_begin
    for i in range(candidates):
        row = i
        if i >= scene.global_count:
            row = scene.world_begin + i - scene.global_count
        pose = scene.shape_xform[row]
        b = scene.shape_body[row]
        if b >= 0:
            pose = scene.body_q[b] * scene.shape_xform[row]
        if ray_bounding_sphere(o, d, wp.transform_get_translation(pose), scene.shape_radius[row], best_t):
            rot = wp.transform_get_rotation(pose)
            ol = wp.quat_rotate_inv(rot, o - wp.transform_get_translation(pose))
            dl = wp.quat_rotate_inv(rot, d)
            t, n = _ray_shape(ol, dl, scene.geo_type[row], scene.shape_size[row], scene.shape_mesh[row], best_t)
            if t < best_t:
                best_t = t
                best_n = wp.quat_rotate(rot, n)
                best_row = row
                best_local = ol + t * dl
    return best_t, best_n, best_row, best_local


@wp.func
def _sky(d: wp.vec3, up: wp.vec3):
    s = wp.clamp(wp.dot(d, up), 0.0, 1.0)
    return wp.lerp(wp.vec3(0.84, 0.88, 0.93), wp.vec3(0.45, 0.60, 0.82), s)


@wp.func
def _checker(base: wp.vec3, p: wp.vec3, cell: float, t: float):
    """Plane colour: ``base`` and a darker shade in cells of ``cell`` [m]; contrast fades with distance t
    so the far field does not alias into noise."""
    parity = (int(wp.floor(p[0] / cell)) + int(wp.floor(p[1] / cell))) & 1
    shade = 1.0 - 0.3 * float(parity) * wp.exp(-t / 40.0)
    return base * shade


@wp.kernel
def _render_kernel(
    scene: _SceneView,
    shape_color: wp.array(dtype=wp.vec3),
    shape_index: wp.array(dtype=wp.int32),
    # Camera and lighting:
    cam_pos: wp.vec3,
    cam_forward: wp.vec3,
    cam_right: wp.vec3,
    cam_up: wp.vec3,
    tan_half_x: float,
    tan_half_y: float,
    to_light: wp.vec3,
    ambient: float,
    shadows: int,
    checker_size: float,
    sky_up: wp.vec3,
    # Image out:
    image_out: wp.array3d(dtype=wp.uint8),
    shape_out: wp.array2d(dtype=wp.int32),
):
    row, col = wp.tid()
    height = image_out.shape[0]
    width = image_out.shape[1]
    sx = (2.0 * (float(col) + 0.5) / float(width) - 1.0) * tan_half_x
    sy = (1.0 - 2.0 * (float(row) + 0.5) / float(height)) * tan_half_y
    d = wp.normalize(cam_forward + sx * cam_right + sy * cam_up)
    t, n, k, p_local = _trace(cam_pos, d, scene)
    rgb = _sky(d, sky_up)
    shape_out[row, col] = -1
    if k >= 0:
        shape_out[row, col] = shape_index[k]
        if wp.dot(n, d) > 0.0:  # seen from behind (plane underside, inside of an open mesh)
            n = -n
        base = shape_color[k]
        if scene.geo_type[k] == GEO_PLANE:
            base = _checker(base, p_local, checker_size, t)
        lit = wp.max(wp.dot(n, to_light), 0.0)
        if shadows != 0 and lit > 0.0:
            p = cam_pos + t * d + n * (1.0e-3 + 1.0e-4 * t)
            ts, ns, ks, ps = _trace(p, to_light, scene)
            if ks >= 0:
                lit = 0.0
        rgb = base * (ambient + (1.0 - ambient) * lit)
    for c in range(3):
        image_out[row, col, c] = wp.uint8(int(wp.clamp(rgb[c], 0.0, 1.0) * 255.0 + 0.5))


def _check_size(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 < int(value) <= _MAX_SIZE:
        raise RenderError(f"{name} must be an int pixel count in [1, {_MAX_SIZE}], got {value!r}")
    return int(value)


class RayCaster:
    """Renders one world of a model to an RGB image by ray casting, on the model's Warp device.

    Args:
        model: a finalized ``newton_gym.Model``.
        width, height: image size [pixels].
        device: Warp device to render on; default the model's.
        shape_colors: optional (shape_count, 3) RGB in [0, 1]; default a palette by shape index
            (see ``newton_gym.render.palette.shape_colors``).
        light_direction: (3,) direction the light travels (towards the scene), world frame.
        ambient: share of the colour lit without direct light, in [0, 1].
        shadows: whether shapes cast shadows (one extra ray per lit pixel).
        checker_size: [m] cell size of the checkerboard on planes.

    Attributes:
        cameras: dict of named Cameras that ``render(camera="name")`` can refer to.
        shape_colors: (shape_count, 3) float32 RGB used for each shape.
    """

    def __init__(
        self,
        model,
        width: int = 320,
        height: int = 240,
        device=None,
        shape_colors=None,
        light_direction=(-0.4, -0.3, -1.0),
        ambient: float = 0.35,
        shadows: bool = True,
        checker_size: float = 0.5,
    ):
        self.width = _check_size(width, "width")
        self.height = _check_size(height, "height")
        self.model = model
        self.device = wp.get_device(device) if device is not None else model.device
        self.shape_colors = (
            palette.shape_colors(model)
            if shape_colors is None
            else palette.check_colors(shape_colors, int(model.shape_count))
        )
        light = np.asarray(light_direction, dtype=np.float64).reshape(-1)
        if light.shape != (3,) or not np.isfinite(light).all() or np.linalg.norm(light) < 1e-9:
            raise RenderError(f"light_direction must be a non-zero (3,) vector, got {light_direction!r}")
        if not (isinstance(ambient, (int, float, np.number)) and 0.0 <= float(ambient) <= 1.0):
            raise RenderError(f"ambient must lie in [0, 1], got {ambient!r}")
        self._to_light = wp.vec3(*(-light / np.linalg.norm(light)))
        self.ambient, self.shadows = float(ambient), bool(shadows)
        self.checker_size = check_positive(checker_size, "checker_size", "metres")
        self.cameras: dict[str, Camera] = {}
        self._scene = pack_scene(model, self.shape_colors, self.device)
        self._image = wp.zeros((self.height, self.width, 3), dtype=wp.uint8, device=self.device)
        self._ids = wp.zeros((self.height, self.width), dtype=wp.int32, device=self.device)
        self._body_q = None
        if wp.get_device(model.device) != self.device:
            self._body_q = wp.zeros(int(model.body_count), dtype=wp.transform, device=self.device)
        up = np.zeros(3)
        up[int(getattr(model, "up_axis", 2))] = 1.0
        self._up = up
        self._default_cameras: dict[int, Camera] = {}

    # ---------------------------------------------------------------- public
    def render(self, state, world: int = 0, camera=None) -> np.ndarray:
        """Render ``world`` of ``state``: (height, width, 3) uint8 RGB, row 0 at the top.

        Args:
            state: a ``newton_gym.State`` of the model (``state.body_q`` is read).
            world: world index in [0, max(world_count, 1)); global shapes appear in every world.
            camera: a Camera, the name of one in ``self.cameras``, or None for ``default_camera(world)``.
        """
        self._launch(state, world, camera)
        return np.array(self._image.numpy(), copy=True)

    def render_ids(self, state, world: int = 0, camera=None) -> np.ndarray:
        """Like :meth:`render` but returns the model shape index seen at each pixel, -1 for background:
        (height, width) int32."""
        self._launch(state, world, camera)
        return np.array(self._ids.numpy(), copy=True)

    def default_camera(self, world: int = 0) -> Camera:
        """A camera framing the initial pose (``model.body_q``) of ``world``'s bodies and shapes."""
        world = check_world(self.model, world)
        if world not in self._default_cameras:
            centre, extent = _world_focus(self.model, world, self._scene)
            dist = max(1.5, 1.3 * extent / math.sin(math.radians(22.5)))
            self._default_cameras[world] = Camera.tracking(centre, dist, 25.0, -60.0, up=tuple(self._up))
        return self._default_cameras[world]

    # ---------------------------------------------------------------- internals
    def _resolve_camera(self, camera, world: int) -> Camera:
        if camera is None:
            return self.default_camera(world)
        if isinstance(camera, Camera):
            return camera
        if isinstance(camera, str) and camera in self.cameras:
            return self.cameras[camera]
        names = ", ".join(sorted(self.cameras)) or "none registered"
        raise RenderError(
            f"camera must be a Camera, None, or the name of a camera in RayCaster.cameras ({names}); got {camera!r}"
        )

    def _body_poses(self, state) -> wp.array:
        body_q = getattr(state, "body_q", None)
        count = int(self.model.body_count)
        if not isinstance(body_q, wp.array) or body_q.shape != (count,) or body_q.dtype != wp.transform:
            got = getattr(body_q, "shape", type(body_q).__name__)
            raise RenderError(
                f"state must be a State of this model with body_q of shape ({count},) transforms; got {got}"
            )
        if self._body_q is None or body_q.device == self.device:
            return body_q
        wp.copy(self._body_q, body_q)
        return self._body_q

    def _launch(self, state, world, camera):
        world = check_world(self.model, world)
        cam = self._resolve_camera(camera, world)
        body_q = self._body_poses(state)
        s = self._scene
        forward, right, up = cam.basis()
        tan_y = math.tan(math.radians(cam.fov_deg) / 2.0)
        wp.launch(
            _render_kernel,
            dim=(self.height, self.width),
            device=self.device,
            inputs=[
                _scene_view(s, world, body_q),
                s.color,
                s.shape_index,
                wp.vec3(*cam.position),
                wp.vec3(*forward),
                wp.vec3(*right),
                wp.vec3(*up),
                tan_y * self.width / self.height,
                tan_y,
                self._to_light,
                self.ambient,
                int(self.shadows),
                self.checker_size,
                wp.vec3(*self._up),
                self._image,
                self._ids,
            ],
        )


def _scene_view(scene, world: int, body_q) -> _SceneView:
    """The kernel's view of ``scene`` for rendering ``world`` with the body poses ``body_q``."""
    view = _SceneView()
    view.geo_type, view.shape_body, view.shape_xform = scene.geo_type, scene.body, scene.xform
    view.shape_size, view.shape_radius, view.shape_mesh = scene.size, scene.radius, scene.mesh_id
    view.global_count = scene.global_count
    view.world_begin, view.world_end = int(scene.world_begin[world]), int(scene.world_begin[world + 1])
    view.body_q = body_q
    return view


def _world_focus(model, world: int, scene) -> tuple[np.ndarray, float]:
    """Centre (3,) [m] and radius [m] of the initial bodies and finite static shapes shown in ``world``."""
    pos = model.body_q.numpy()[:, :3] if model.body_count else np.zeros((0, 3))
    bw = model.body_world.numpy() if model.body_count else np.zeros(0, dtype=np.int32)
    pts = pos[bw == world] if (bw == world).any() else pos[bw < 0]
    rows = np.concatenate(
        [np.arange(scene.global_count), np.arange(scene.world_begin[world], scene.world_begin[world + 1])]
    ).astype(np.int64)
    radius = scene.radius.numpy()[rows]
    static = rows[(scene.body.numpy()[rows] < 0) & (radius > 0)]
    pts = np.concatenate([pts, scene.xform.numpy()[static][:, :3]])
    if len(pts) == 0:
        return np.zeros(3), 1.0
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    finite = radius[radius > 0]
    return 0.5 * (lo + hi), float(0.5 * np.linalg.norm(hi - lo) + (finite.max() if len(finite) else 0.5))
