"""Helpers shared by the viewer tests (named apart from conftest.py so imports are unambiguous)."""

import numpy as np

from newton_gym import Mesh, ModelBuilder
from newton_gym.sim.shape_config import ShapeConfig


def _tetrahedron() -> Mesh:
    v = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    return Mesh(v, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def build_shapes_model():
    """Two worlds of one body (shapes 0-6 of a world: sphere, capsule, box, cylinder, cone, mesh, plus an
    invisible sphere) over an infinite ground plane each, and a global 6 x 4 m plane 0.5 m below."""
    robot = ModelBuilder()
    robot.add_ground_plane()
    body = robot.add_body(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    robot.add_shape_sphere(body, radius=0.2)
    robot.add_shape_capsule(body, xform=(0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), radius=0.05, half_height=0.2)
    robot.add_shape_box(body, xform=(-0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), hx=0.1, hy=0.2, hz=0.05)
    robot.add_shape_cylinder(body, xform=(0.0, 0.3, 0.0, 0.0, 0.0, 0.0, 1.0), radius=0.1, half_height=0.1)
    robot.add_shape_cone(body, xform=(0.0, -0.3, 0.0, 0.0, 0.0, 0.0, 1.0), radius=0.1, half_height=0.15)
    robot.add_shape_mesh(body, xform=(0.0, 0.0, 0.3, 0.0, 0.0, 0.0, 1.0), mesh=_tetrahedron(), scale=(0.2, 0.1, 0.3))
    robot.add_shape_sphere(body, radius=0.5, cfg=ShapeConfig(visible=False))
    b = ModelBuilder()
    b.add_shape_plane(xform=(0.0, 0.0, -0.5, 0.0, 0.0, 0.0, 1.0), width=6.0, length=4.0)
    b.replicate(robot, 2)
    return b.finalize()


def random_body_q(model, seed: int = 0) -> np.ndarray:
    """(body_count, 7) poses with random positions and unit quaternions."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(int(model.body_count), 4))
    return np.concatenate([rng.normal(size=(int(model.body_count), 3)), q / np.linalg.norm(q, axis=1)[:, None]], 1)
