"""Each primitive's silhouette against closed-form perspective projections (pinhole camera, 4 m away)."""

import math

import numpy as np
import pytest

from newton_gym import Mesh, ModelBuilder
from newton_gym.render import Camera, RayCaster
from newton_gym.sim.hostmath import quat_from_axis_angle

D = 4.0  # camera distance [m]
W, H = 320, 240
F = (H / 2) / math.tan(math.radians(22.5))  # focal length [px] for the 45 deg vertical field of view
FRONT = Camera(position=(0.0, -D, 0.0), target=(0.0, 0.0, 0.0))  # looks along +Y; image right = +X, up = +Z


def _sphere_half(r, dist):
    """Half-width [px] of the silhouette of a sphere (or a circle's tangents) of radius r at dist."""
    return math.tan(math.asin(r / dist)) * F


def _cube_mesh():
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    return Mesh(v, tris)


def _cone_top():
    # apex at +0.4 m and 4 m deep; base edge nearest to the camera at -0.4 m, 4 - 0.3 m deep
    return 0.4 / D * F, 0.4 / (D - 0.3) * F


CASES = {
    "sphere": (
        lambda b, s: b.add_shape_sphere(s, radius=0.5),
        _sphere_half(0.5, D),
        _sphere_half(0.5, D),
        _sphere_half(0.5, D),
    ),
    "box": (
        lambda b, s: b.add_shape_box(s, hx=0.6, hy=0.2, hz=0.4),
        0.6 / (D - 0.2) * F,
        0.4 / (D - 0.2) * F,
        0.4 / (D - 0.2) * F,
    ),
    "mesh": (
        lambda b, s: b.add_shape_mesh(s, mesh=_cube_mesh(), scale=(0.6, 0.2, 0.4)),
        0.6 / (D - 0.2) * F,
        0.4 / (D - 0.2) * F,
        0.4 / (D - 0.2) * F,
    ),
    "capsule": (
        lambda b, s: b.add_shape_capsule(s, radius=0.25, half_height=0.4),
        _sphere_half(0.25, D),
        math.tan(math.atan(0.4 / D) + math.asin(0.25 / math.hypot(D, 0.4))) * F,
        math.tan(math.atan(0.4 / D) + math.asin(0.25 / math.hypot(D, 0.4))) * F,
    ),
    "cylinder": (
        lambda b, s: b.add_shape_cylinder(s, radius=0.3, half_height=0.5),
        _sphere_half(0.3, D),
        0.5 / (D - 0.3) * F,
        0.5 / (D - 0.3) * F,
    ),
    "cone": (lambda b, s: b.add_shape_cone(s, radius=0.6, half_height=0.4), _sphere_half(0.3, D), *_cone_top()),
}


def _extent(mask_line):
    idx = np.nonzero(mask_line)[0]
    return 0 if len(idx) == 0 else idx[-1] - idx[0] + 1


@pytest.mark.parametrize("kind", list(CASES))
def test_primitive_silhouette_size(kind):
    add, half_w, up, down = CASES[kind]
    b = ModelBuilder()
    body = b.add_body(xform=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    add(b, body)
    model = b.finalize()
    ids = RayCaster(model, W, H).render_ids(model.state(), camera=FRONT)
    mask = ids == 0
    assert mask.any()
    # Row 120 and column 160 pass 0.5 px below / right of the optical axis; 2.5 px is 3-8 % of these sizes.
    assert _extent(mask[H // 2]) == pytest.approx(2 * half_w, abs=2.5)
    assert _extent(mask[:, W // 2]) == pytest.approx(up + down, abs=2.5)
    rows = np.nonzero(mask[:, W // 2])[0]
    assert H / 2 - rows[0] == pytest.approx(up, abs=2.5)  # extent above the centre: checks up/down sides


def test_finite_plane_spans_width_by_length():
    b = ModelBuilder()
    b.add_shape_plane(-1, width=2.0, length=1.0)
    model = b.finalize()
    top = Camera(position=(0.0, 0.0, D), target=(0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0))  # image right = +X
    ids = RayCaster(model, W, H).render_ids(model.state(), camera=top)
    mask = ids == 0
    assert _extent(mask[H // 2]) == pytest.approx(2.0 / D * F, rel=0.1)
    assert _extent(mask[:, W // 2]) == pytest.approx(1.0 / D * F, rel=0.1)


def test_infinite_plane_fills_the_lower_half():
    b = ModelBuilder()
    b.add_ground_plane()
    model = b.finalize()
    ids = RayCaster(model, W, H).render_ids(model.state(), camera=Camera((0.0, -D, 1.0), (0.0, 0.0, 1.0)))
    assert (ids[H // 2 + 1 :] == 0).all() and (ids[: H // 2] == -1).all()


def test_shape_and_body_rotations_are_applied():
    """A capsule laid along X by its shape transform, then the body turned 90 deg about Z: along Y."""
    b = ModelBuilder()
    body = b.add_body(xform=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    b.add_shape_capsule(
        body, xform=(0.0, 0.0, 0.0, *quat_from_axis_angle([0, 1, 0], math.pi / 2)), radius=0.2, half_height=0.6
    )
    model = b.finalize()
    caster = RayCaster(model, W, H)
    state = model.state()
    ids = caster.render_ids(state, camera=FRONT)
    along_x = _extent(ids[H // 2] == 0)
    assert along_x == pytest.approx(2 * math.tan(math.atan(0.6 / D) + math.asin(0.2 / math.hypot(D, 0.6))) * F, rel=0.1)
    q = state.body_q.numpy()
    q[0, 3:] = quat_from_axis_angle([0, 0, 1], math.pi / 2)
    state.body_q.assign(q)
    ids = caster.render_ids(state, camera=FRONT)
    assert _extent(ids[H // 2] == 0) == pytest.approx(2 * _sphere_half(0.2, D - 0.6), rel=0.1)  # near cap, end-on


def test_mesh_scale_and_normals_shade_faces_differently():
    b = ModelBuilder()
    body = b.add_body(xform=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    b.add_shape_mesh(body, mesh=_cube_mesh(), scale=(0.5, 0.5, 0.5))
    model = b.finalize()
    cam = Camera(position=(3.0, -3.0, 2.0), target=(0.0, 0.0, 0.0))
    caster = RayCaster(model, 120, 90, light_direction=(-1.0, 2.0, -3.0))
    img = caster.render(model.state(), camera=cam)
    ids = caster.render_ids(model.state(), camera=cam)
    shades = {tuple(int(c) for c in img[r, c]) for r, c in zip(*np.nonzero(ids == 0))}
    assert len(shades) == 3  # three visible faces, three flat shades
