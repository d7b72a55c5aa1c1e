"""How far to lift each reset world's robot so that its feet start on the ground, not inside it.

A legged task's reset scales the joint angles (Isaac Lab's ``reset_joints_by_scale``, 0.5 to 1.5 of home)
at the home base height, so a stretched leg can start a few centimetres below the ground. A plane pushes
such a foot straight up. A heightfield does not: MuJoCo collides it as separate triangular prisms, and a
foot deeper in the field than it is from a prism's side wall gets its contacts through the side walls of
the neighbouring prisms, horizontal and opposite, so it stays stuck below the surface and trips the robot
(``scripts/field_vs_plane.py``: the shipped flat policy on an all-flat field, 64 worlds x 500 steps, tracks
with 0.27 m/s error and 30 base-contact terminations without the lift, 0.06 and 3 with it; 13 of 16 reset
poses keep a foot over 1 cm under the surface after 0.5 s, in newton_gym and in MuJoCo C alike).

:class:`SpawnClearance` measures, after the reset pose is written, the lowest points of the robot's foot
bodies' collision shapes and the ground under each (a ray down onto the static heightfields, boxes and
planes, as the height scan casts them), and gives the lift that brings the deepest of them up to the
ground. Worlds whose feet are all above the ground get 0 and are left as they are.

Lowest points: a sphere's is exact, a capsule's is that of its lower end sphere, a box's its lowest corner;
other shapes are taken as their bounding sphere (a lift that may be a little more than needed).
"""

from __future__ import annotations

import numpy as np
import torch
import warp as wp

from ..render.scene import bounding_radius
from ..sensors.static_scene import BodyRays, StaticScene, cast_down, pack_static_scene
from ..sim.hostmath import quat_rotate
from ..sim.types import GeoType

wp.set_module_options({"enable_backward": False})

__all__ = ["SpawnClearance", "probe_spheres"]

#: Height above a probe point where its ray starts [m] (above any terrain step a foot can be under).
_RAY_START = 20.0
#: Longest ray [m]: a probe point with no ground within it needs no lift.
_RAY_LENGTH = 40.0


def probe_spheres(model, bodies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The spheres whose lowest points bound the colliding shapes of ``bodies`` (global body indices of one
    world) from below: (body (P,) int32, centre in the body frame (P, 3) float32 [m], radius (P,) float32
    [m]). A sphere gives itself, a capsule its two end spheres, a box its eight corners (radius 0), any other
    shape its bounding sphere about its origin."""
    shape_body, kind = model.shape_body.numpy(), model.shape_type.numpy()
    scale, pose, collide = model.shape_scale.numpy(), model.shape_transform.numpy(), model.shape_collide.numpy()
    out_body, out_centre, out_radius = [], [], []
    for b in bodies:
        for s in np.nonzero((shape_body == int(b)) & collide)[0]:
            p, q = pose[s, :3].astype(np.float64), pose[s, 3:7].astype(np.float64)
            a, h, c = (float(v) for v in scale[s])
            if kind[s] == GeoType.SPHERE:
                local, radius = np.zeros((1, 3)), a
            elif kind[s] == GeoType.CAPSULE:
                local, radius = np.array([[0.0, 0.0, h], [0.0, 0.0, -h]]), a
            elif kind[s] == GeoType.BOX:
                signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64)
                local, radius = signs * np.array([a, h, c]), 0.0
            else:
                vertices = _mesh_vertices(model, s) if kind[s] == GeoType.MESH else None
                local, radius = np.zeros((1, 3)), bounding_radius(int(kind[s]), scale[s], vertices)
            for v in local:
                out_body.append(int(b))
                out_centre.append(p + quat_rotate(q, v))
                out_radius.append(radius)
    return (
        np.asarray(out_body, dtype=np.int32),
        np.asarray(out_centre, dtype=np.float32).reshape(-1, 3),
        np.asarray(out_radius, dtype=np.float32),
    )


def _mesh_vertices(model, shape: int) -> np.ndarray:
    """(V, 3) vertices of a mesh shape's mesh, before the shape's scale."""
    return np.asarray(model.meshes[int(model.shape_mesh.numpy()[shape])].vertices, dtype=np.float64)


@wp.kernel
def _clearance_kernel(
    body_q: wp.array(dtype=wp.transform),
    body_world: wp.array(dtype=wp.int32),
    scene: StaticScene,
    world_body_start: wp.array(dtype=wp.int32),
    probe_body: wp.array(dtype=wp.int32),
    probe_centre: wp.array(dtype=wp.vec3),
    probe_radius: wp.array(dtype=wp.float32),
    ray_start: wp.array(dtype=wp.vec3),
    mask: wp.array(dtype=wp.bool),
    origins: wp.array2d(dtype=wp.vec3),
    distance: wp.array2d(dtype=wp.float32),
    deficit_out: wp.array2d(dtype=wp.float32),
):
    w, k = wp.tid()
    if not mask[w]:
        deficit_out[w, k] = 0.0
        return
    b = world_body_start[w] + probe_body[k]
    centre = wp.transform_point(body_q[b], probe_centre[k])
    bottom = centre[2] - probe_radius[k]
    i = w * probe_body.shape[0] + k
    rays = BodyRays()
    rays.p = wp.vec3(centre[0], centre[1], bottom)
    rays.heading = wp.vec2(1.0, 0.0)
    rays.ray_start = ray_start
    rays.first = 0
    rays.end = 1
    rays.sensor = i
    cast_down(scene, body_world[b], rays, _RAY_LENGTH, origins, distance)
    depth = 0.0
    t = distance[i, 0]
    if t < _RAY_LENGTH:
        depth = wp.max(origins[i, 0][2] - t - bottom, 0.0)  # ground z - the probe's lowest point
    deficit_out[w, k] = depth


class SpawnClearance:
    """The lift of each world's root that puts the lowest point of its foot bodies' shapes on the ground.

    Args:
        model: the Model (its static heightfields, boxes and planes are packed here, once).
        local_bodies: indices of the foot bodies within one world (every world has the same robot).
        num_envs: number of worlds.
    """

    def __init__(self, model, local_bodies, num_envs: int):
        device = model.device
        starts = model.body_world_start.numpy()[:num_envs].astype(np.int32)
        body, centre, radius = probe_spheres(model, [int(starts[0]) + int(b) for b in local_bodies])
        self.model = model
        self.num_envs = int(num_envs)
        self.num_probes = int(body.shape[0])
        self._scene = pack_static_scene(model)
        self._starts = wp.array(starts, dtype=wp.int32, device=device)
        self._body = wp.array(body - starts[0], dtype=wp.int32, device=device)
        self._centre = wp.array(centre, dtype=wp.vec3, device=device)
        self._radius = wp.array(radius, dtype=wp.float32, device=device)
        self._ray_start = wp.array([[0.0, 0.0, _RAY_START]], dtype=wp.vec3, device=device)
        m = max(self.num_envs * self.num_probes, 1)
        self._origins = wp.zeros((m, 1), dtype=wp.vec3, device=device)
        self._distance = wp.zeros((m, 1), dtype=wp.float32, device=device)
        self._deficit = wp.zeros((self.num_envs, max(self.num_probes, 1)), dtype=wp.float32, device=device)
        self._deficit_t = wp.to_torch(self._deficit)
        self._lift = torch.zeros(self.num_envs, device=self._deficit_t.device)  # lift()'s output, reused

    def lift(self, state, mask: torch.Tensor) -> torch.Tensor:
        """(N,) torch float32 [m]: for the worlds of ``mask`` (N,) bool, how far the deepest lowest point of
        their foot shapes lies below the ground under it (0 where none does); 0 for the others. One launch,
        no host sync, no allocation (capturable); the tensor is overwritten by the next call."""
        if self.num_probes == 0 or self.num_envs == 0:
            return self._lift
        wp.launch(
            _clearance_kernel,
            dim=(self.num_envs, self.num_probes),
            inputs=[
                state.body_q,
                self.model.body_world,
                self._scene.scene,
                self._starts,
                self._body,
                self._centre,
                self._radius,
                self._ray_start,
                wp.from_torch(mask.contiguous(), dtype=wp.bool),
                self._origins,
                self._distance,
            ],
            outputs=[self._deficit],
            device=self.model.device,
        )
        return torch.amax(self._deficit_t, dim=1, out=self._lift)
