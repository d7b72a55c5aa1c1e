"""ViewScene: every visible shape becomes one instance of a batch, posed like the ray caster poses it."""

import numpy as np
import pytest
from view_helpers import random_body_q

from newton_gym.errors import ViewError
from newton_gym.render.palette import shape_colors
from newton_gym.sim.hostmath import transform_mul
from newton_gym.sim.types import GeoType
from newton_gym.view import ViewScene
from newton_gym.view.scene import CHECKER_SHADE


def _instances(scene):
    """{model shape index: [(batch, k), ...]} over every batch instance."""
    out = {}
    for batch in scene.batches:
        for k, s in enumerate(batch.shape_index):
            out.setdefault(int(s), []).append((batch, k))
    return out


def test_every_visible_shape_is_drawn_once_with_its_colour(shapes_model):
    m = shapes_model
    scene = ViewScene(m, spacing=3.0)
    inst = _instances(scene)
    types, visible, worlds = m.shape_type.numpy(), m.shape_visible.numpy(), m.shape_world.numpy()
    palette = shape_colors(m)
    assert sorted(inst) == sorted(np.nonzero(visible)[0].tolist())  # the hidden spheres are left out
    for s, places in inst.items():
        if types[s] == GeoType.PLANE:  # a plane is two batches: its even and its odd checker squares
            assert len(places) == 2
            shades = sorted(b.color[k][0] for b, k in places)
            np.testing.assert_allclose(shades, [palette[s][0] * CHECKER_SHADE, palette[s][0]], rtol=1e-6)
        else:
            ((batch, k),) = places
            np.testing.assert_array_equal(batch.color[k], palette[s])
            assert batch.world[k] == worlds[s] and batch.geo_type == types[s]
    # replicated shapes share their batch: 6 shape kinds, each with one instance per world
    solids = [b for b in scene.batches if b.geo_type != GeoType.PLANE]
    assert len(solids) == 6 and all(sorted(b.world.tolist()) == [0, 1] for b in solids)
    kinds = {b.name.split("/")[-1].rsplit("_", 1)[0] for b in solids}
    assert kinds == {"sphere", "capsule", "box", "cylinder", "cone", "mesh"}


def test_meshes_carry_the_shape_sizes(shapes_model):
    scene = ViewScene(shapes_model, spacing=3.0)
    extent = {b.name.split("/")[-1].rsplit("_", 1)[0]: np.abs(b.vertices).max(axis=0) for b in scene.batches}
    np.testing.assert_allclose(extent["sphere"], (0.2, 0.2, 0.2), rtol=1e-6)
    np.testing.assert_allclose(extent["capsule"], (0.05, 0.05, 0.25), rtol=1e-6)
    np.testing.assert_allclose(extent["box"], (0.1, 0.2, 0.05), rtol=1e-6)
    np.testing.assert_allclose(extent["cylinder"], (0.1, 0.1, 0.1), rtol=1e-6)
    np.testing.assert_allclose(extent["cone"], (0.1, 0.1, 0.15), rtol=1e-6)
    np.testing.assert_allclose(extent["mesh"], (0.2, 0.1, 0.3), rtol=1e-6)  # the unit tetrahedron, scaled
    planes = {b.name: np.abs(b.vertices).max(axis=0)[:2] for b in scene.batches if b.geo_type == GeoType.PLANE}
    # each world's infinite plane is a spacing-wide tile; the global plane keeps its 6 x 4 m
    assert sorted(map(tuple, np.round(list(planes.values()), 6))) == [(1.5, 1.5), (1.5, 1.5), (3.0, 2.0), (3.0, 2.0)]


def test_worlds_are_laid_out_on_a_grid_of_spacing(shapes_model):
    scene = ViewScene(shapes_model, spacing=3.0)
    np.testing.assert_allclose(scene.world_offset, [[-1.5, 0.0, 0.0], [1.5, 0.0, 0.0]])
    # the shapes' centre is (0, 0, 1.15) (the mesh sits 0.3 m up); the capsule's end reaches
    # |(0.3, 0, -0.15)| + 0.2 + 0.05 = 0.585 m from it: 2 * 0.585 + 1.5 = 2.67 m, up to whole squares
    assert ViewScene(shapes_model).spacing == pytest.approx(3.0)
    assert ViewScene(shapes_model, checker_size=0.2).spacing == pytest.approx(2.8)


def test_poses_compose_body_and_shape_transforms_and_add_the_world_offset(shapes_model):
    m = shapes_model
    scene = ViewScene(m, spacing=3.0)
    body_q = random_body_q(m)
    xform, body, worlds = m.shape_transform.numpy(), m.shape_body.numpy(), m.shape_world.numpy()
    for batch, (position, wxyz) in zip(scene.batches, scene.poses(body_q)):
        assert position.shape == (len(batch.rows), 3) and wxyz.shape == (len(batch.rows), 4)
        for k, s in enumerate(batch.shape_index):
            expect = xform[s] if body[s] < 0 else transform_mul(body_q[body[s]], xform[s])
            offset = scene.world_offset[worlds[s]] if worlds[s] >= 0 else 0.0
            np.testing.assert_allclose(position[k], expect[:3] + offset, atol=1e-5)
            np.testing.assert_allclose(wxyz[k], np.roll(expect[3:], 1), atol=1e-6)  # (w, x, y, z)


def test_world_centres_follow_the_first_body(shapes_model):
    scene = ViewScene(shapes_model, spacing=3.0)
    body_q = random_body_q(shapes_model, seed=1)
    np.testing.assert_allclose(scene.world_centres(body_q), body_q[:, :3] + scene.world_offset)


def test_bad_arguments_name_what_is_wrong(shapes_model):
    scene = ViewScene(shapes_model, spacing=3.0)
    with pytest.raises(ViewError, match=r"body_q must have shape \(2, 7\)"):
        scene.poses(np.zeros((3, 7)))
    with pytest.raises(ViewError, match="spacing must be a positive number"):
        ViewScene(shapes_model, spacing=-1.0)
    with pytest.raises(ViewError, match="checker_size"):
        ViewScene(shapes_model, checker_size=0.0)


def test_poses_follow_the_bodies_after_an_env_step():
    import gymnasium as gym
    import torch

    env = gym.make_vec("Newton/Ant-v0", num_envs=2, device="cpu")
    try:
        env.reset(seed=0)
        scene = ViewScene(env.sim.model)
        before = [p.copy() for p, _ in scene.poses(env.sim.state.body_q.numpy())]
        env.step(torch.ones(2, 8))
        body_q = env.sim.state.body_q.numpy()
        after = scene.poses(body_q)
        torso = next(i for i, b in enumerate(scene.batches) if b.geo_type == GeoType.SPHERE)
        # the torso sphere (shape at the root body's origin) sits at each world's root position plus its offset
        roots = [int(np.argmax(env.sim.model.body_world.numpy() == w)) for w in range(2)]
        np.testing.assert_allclose(after[torso][0], body_q[roots, :3] + scene.world_offset, atol=1e-5)
        bodies = [i for i, b in enumerate(scene.batches) if b.geo_type != GeoType.PLANE]
        assert min(np.abs(after[i][0] - before[i]).max() for i in bodies) > 1e-4  # every body's shapes moved
    finally:
        env.close()


def test_without_viser_the_server_names_the_extra(shapes_model, monkeypatch, capsys):
    import sys

    from newton_gym.cli import main
    from newton_gym.view import SceneServer

    scene = ViewScene(shapes_model, spacing=3.0)  # the scene itself needs no viser
    monkeypatch.setitem(sys.modules, "viser", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"pip install 'newton-gym\[view\]'"):
        SceneServer(scene, port=0)
    assert main(["view", "--num-envs", "1", "--port", "0", "--max-steps", "1"]) == 2
    assert "newton-gym[view]" in capsys.readouterr().out


def test_a_heightfield_is_one_surface_mesh_shared_by_every_world():
    from newton_gym import ModelBuilder
    from newton_gym.sim.heightfield import Heightfield

    field = Heightfield(np.random.default_rng(0).uniform(0.0, 0.2, size=(4, 5)), hx=1.0, hy=0.6, base=0.1)
    robot = ModelBuilder()
    robot.add_shape_heightfield(xform=(0.5, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0), heightfield=field, key="terrain")
    robot.add_shape_sphere(robot.add_body(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)), radius=0.1)
    scene_builder = ModelBuilder()
    scene_builder.replicate(robot, world_count=3)
    model = scene_builder.finalize()
    scene = ViewScene(model, spacing=3.0)
    (batch,) = [b for b in scene.batches if b.geo_type == GeoType.HFIELD]
    assert batch.name.startswith("/shapes/heightfield_") and batch.flat_shading
    np.testing.assert_allclose(batch.vertices, field.points(), atol=1e-6)
    np.testing.assert_array_equal(batch.faces, field.triangles())
    assert sorted(batch.world.tolist()) == [0, 1, 2]
    positions, _ = scene.poses(model.body_q.numpy())[scene.batches.index(batch)]
    np.testing.assert_allclose(positions, scene.world_offset[batch.world] + [0.5, 0.0, 0.1], atol=1e-6)
