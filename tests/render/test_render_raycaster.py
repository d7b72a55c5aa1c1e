"""RayCaster: what appears where, per world, and how it moves."""

import math

import numpy as np
import pytest
import warp as wp

from newton_gym import ModelBuilder
from newton_gym.render import Camera, RayCaster, RenderError
from newton_gym.sim.shape_config import ShapeConfig

SIDE = Camera(position=(4.0, 0.0, 1.0), target=(0.0, 0.0, 1.0))  # looks along -X; image right is +Y


def test_sphere_colour_at_centre_and_plane_elsewhere(sphere_scene):
    model, colors = sphere_scene
    caster = RayCaster(model, 160, 120, shape_colors=colors)
    state = model.state()
    img = caster.render(state, camera=SIDE)
    ids = caster.render_ids(state, camera=SIDE)
    assert img.shape == (120, 160, 3) and img.dtype == np.uint8
    r, g, b = (int(c) for c in img[60, 80])
    assert r > 120 and g < 10 and b < 10  # the red sphere, lit
    assert ids[60, 80] == 1
    assert (ids[-1] == 0).all()  # the bottom row sees the plane
    bottom = img[-1].astype(int)
    assert np.abs(bottom[:, 0] - bottom[:, 1]).max() < 12 and bottom[:, 0].min() > 60  # grey checker
    assert len(np.unique(bottom[:, 0])) >= 2  # both checker shades
    assert (ids[0] == -1).all()  # the top row sees the sky
    assert img[0, 0, 2] > img[0, 0, 0]  # bluish


def test_moving_the_body_moves_its_pixels(sphere_scene, stats):
    model, colors = sphere_scene
    caster = RayCaster(model, 320, 240, shape_colors=colors)
    state = model.state()
    before = caster.render(state, camera=SIDE)
    ids0 = caster.render_ids(state, camera=SIDE)
    q = state.body_q.numpy()
    q[0, 1] += 0.5  # +Y is image right for this camera
    state.body_q.assign(q)
    after = caster.render(state, camera=SIDE)
    ids1 = caster.render_ids(state, camera=SIDE)
    assert not np.array_equal(before, after)
    r0, c0, n0 = stats(ids0, 1)
    r1, c1, n1 = stats(ids1, 1)
    f = 120 / math.tan(math.radians(22.5))
    expected = 0.5 / 4.0 * f  # image shift [px] of the sphere centre at 4 m
    assert c1 - c0 == pytest.approx(expected, rel=0.1)
    assert abs(r1 - r0) < 1.0
    assert n1 > 0.8 * n0  # still whole, a little smaller off-axis


def _two_worlds():
    b = ModelBuilder()
    b.add_ground_plane()  # shape 0, global
    b.add_shape_cylinder(-1, xform=(0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0), radius=0.2, half_height=0.5)  # 1, global
    b.begin_world()
    body = b.add_body(xform=(0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    b.add_shape_sphere(body, radius=0.3)  # 2, world 0
    b.end_world()
    b.begin_world()
    body = b.add_body(xform=(0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    b.add_shape_box(body, hx=0.3, hy=0.3, hz=0.3)  # 3, world 1
    b.add_shape_box(
        body, xform=(0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 1.0), hx=0.1, hy=0.1, hz=0.1, cfg=ShapeConfig(visible=False)
    )  # 4, world 1, hidden
    b.end_world()
    return b.finalize()


def test_worlds_show_their_shapes_and_the_global_ones():
    model = _two_worlds()
    caster = RayCaster(model, 160, 120)
    state = model.state()
    cam = Camera(position=(5.0, 0.0, 1.5), target=(0.0, 0.0, 0.8))
    seen0 = set(np.unique(caster.render_ids(state, world=0, camera=cam)))
    seen1 = set(np.unique(caster.render_ids(state, world=1, camera=cam)))
    assert {0, 1, 2} <= seen0 and 3 not in seen0
    assert {0, 1, 3} <= seen1 and 2 not in seen1
    assert 4 not in seen1  # invisible shapes are not drawn
    img0 = caster.render(state, world=0, camera=cam)
    img1 = caster.render(state, world=1, camera=cam)
    assert not np.array_equal(img0, img1)


def test_replicated_worlds_look_alike():
    robot = ModelBuilder()
    body = robot.add_body(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    robot.add_shape_box(body, hx=0.2, hy=0.1, hz=0.3)
    b = ModelBuilder()
    b.add_ground_plane()
    b.replicate(robot, world_count=3)
    model = b.finalize()
    caster = RayCaster(model, 80, 60)
    state = model.state()
    images = [caster.render(state, world=w, camera=SIDE) for w in range(3)]
    assert np.array_equal(images[0], images[2]) and np.array_equal(images[0], images[1])


def test_empty_model_renders_sky():
    model = ModelBuilder().finalize()
    ids = RayCaster(model, 32, 24).render_ids(model.state())
    assert (ids == -1).all()


def test_shadow_darkens_the_plane_below(sphere_scene):
    model, colors = sphere_scene
    state = model.state()
    cam = Camera(position=(3.0, 0.0, 3.0), target=(0.0, 0.0, 0.0))
    kwargs = dict(width=120, height=90, shape_colors=colors, light_direction=(0.0, 0.0, -1.0))
    lit = RayCaster(model, shadows=False, **kwargs)
    shaded = RayCaster(model, shadows=True, **kwargs)
    ids = lit.render_ids(state, camera=cam)
    assert ids[45, 60] == 0  # the image centre sees the plane at the origin, under the sphere
    a = lit.render(state, camera=cam)[45, 60].astype(int)
    b = shaded.render(state, camera=cam)[45, 60].astype(int)
    assert (b < a - 40).all()


def test_tracking_camera_keeps_the_body_centred(sphere_scene, stats):
    model, colors = sphere_scene
    caster = RayCaster(model, 160, 120, shape_colors=colors)
    state = model.state()
    for pos, az in (((2.0, 1.0, 0.5), 0.0), ((-3.0, 2.0, 1.5), 135.0), ((10.0, -4.0, 0.8), -60.0)):
        q = state.body_q.numpy()
        q[0, :3] = pos
        state.body_q.assign(q)
        cam = Camera.tracking(state.body_q.numpy()[0], distance=3.0, elevation_deg=20.0, azimuth_deg=az)
        ids = caster.render_ids(state, camera=cam)
        row, col, _ = stats(ids, 1)
        assert ids[60, 80] == 1
        assert abs(row - 59.5) < 1.0 and abs(col - 79.5) < 1.0


def test_named_camera(sphere_scene):
    model, colors = sphere_scene
    caster = RayCaster(model, 40, 30, shape_colors=colors)
    caster.cameras["side"] = SIDE
    state = model.state()
    assert np.array_equal(caster.render(state, camera="side"), caster.render(state, camera=SIDE))


def test_default_camera_frames_the_world(sphere_scene):
    model, colors = sphere_scene
    caster = RayCaster(model, 80, 60, shape_colors=colors)
    ids = caster.render_ids(model.state())
    assert (ids == 1).sum() > 20 and (ids == 0).any()


def test_bad_state_is_rejected(sphere_scene):
    model, _ = sphere_scene
    caster = RayCaster(model, 8, 8)
    bad = type("S", (), {"body_q": wp.zeros(3, dtype=wp.transform)})()
    with pytest.raises(ValueError, match="state"):
        caster.render(bad)
    with pytest.raises(ValueError, match="state"):
        caster.render(None)


@pytest.mark.parametrize("world", [1, -1, 1.0, "0", True])
def test_bad_world(sphere_scene, world):
    model, _ = sphere_scene
    with pytest.raises(RenderError, match="world"):
        RayCaster(model, 8, 8).render(model.state(), world=world)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("width", dict(width=0)),
        ("height", dict(height=-2)),
        ("width", dict(width=2.5)),
        ("height", dict(height=0)),
        ("ambient", dict(ambient=2.0)),
        ("checker_size", dict(checker_size=0)),
        ("light_direction", dict(light_direction=(0, 0, 0))),
        ("shape_colors", dict(shape_colors=np.zeros((5, 3)))),
    ],
)
def test_bad_constructor_arguments(sphere_scene, name, kwargs):
    model, _ = sphere_scene
    with pytest.raises(ValueError, match=name):
        RayCaster(model, **kwargs)


@pytest.mark.parametrize("camera", ["missing", 3, (0, 0, 1)])
def test_unknown_camera(sphere_scene, camera):
    model, _ = sphere_scene
    with pytest.raises(ValueError, match="camera"):
        RayCaster(model, 8, 8).render(model.state(), camera=camera)
