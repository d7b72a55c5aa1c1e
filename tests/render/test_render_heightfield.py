"""Heightfields in the renderers: the ray caster hits the field's surface, the USD recorder writes it once."""

import numpy as np
import pytest
import warp as wp

from newton_gym import ModelBuilder
from newton_gym.render import Camera, RayCaster, UsdRecorder
from newton_gym.render.intersect import ray_mesh
from newton_gym.render.scene import pack_scene
from newton_gym.sim.heightfield import Heightfield
from newton_gym.sim.types import GeoType

CAMERA = Camera(position=(3.0, -1.0, 1.6), target=(0.0, 0.0, 0.2))


def _bumps() -> Heightfield:
    x = np.linspace(-1.0, 1.0, 21)
    gx, gy = np.meshgrid(x, 0.8 * x)
    return Heightfield(0.15 * np.sin(4.0 * gx) * np.cos(3.0 * gy) + 0.2, hx=1.0, hy=0.8, base=0.1)


def _scene(field: Heightfield | None, worlds: int = 1):
    """A sphere of radius 0.2 at (0, 0, 0.9) over ``field`` (when given), replicated into ``worlds``."""
    b = ModelBuilder()
    if field is not None:
        b.add_shape_heightfield(xform=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), heightfield=field, key="terrain")
    body = b.add_body(xform=(0.0, 0.0, 0.9, 0.0, 0.0, 0.0, 1.0), key="ball")
    b.add_shape_sphere(body, radius=0.2, key="ball_geom")
    if worlds == 1:
        return b.finalize()
    scene = ModelBuilder()
    scene.replicate(b, world_count=worlds)
    return scene.finalize()


def test_ray_cast_shows_the_field_and_nothing_else_changes():
    with_field, without = _scene(_bumps()), _scene(None)
    images, ids = [], []
    for model in (with_field, without):
        caster = RayCaster(model, 96, 72, shape_colors=np.full((model.shape_count, 3), 0.7))
        images.append(caster.render(model.state(), camera=CAMERA).astype(int))
        ids.append(caster.render_ids(model.state(), camera=CAMERA))
    field = ids[0] == 0
    assert field.sum() > 0.1 * field.size  # the field fills a good part of the view
    assert (ids[1][field] == -1).all()  # where the field is, the empty scene sees the sky ...
    assert (np.abs(images[0] - images[1]).max(axis=2)[field] > 0).all()  # ... and the image differs there
    np.testing.assert_array_equal(images[0][~field], images[1][~field])  # the sphere and the sky are untouched
    # bumps: the shading over the field varies with the slope (a flat field would be one shade but the shadow)
    assert len(np.unique(images[0][field][:, 0])) > 10


@wp.kernel
def _cast_down(mesh: wp.uint64, xy: wp.array(dtype=wp.vec2), t_out: wp.array(dtype=float)):
    i = wp.tid()
    o = wp.vec3(xy[i][0], xy[i][1], 5.0)
    t, n = ray_mesh(o, wp.vec3(0.0, 0.0, -1.0), wp.vec3(1.0, 1.0, 1.0), mesh, 1.0e30)
    t_out[i] = t


def test_the_packed_field_surface_lies_at_height_at():
    field = _bumps()
    model = _scene(field)
    packed = pack_scene(model, np.full((model.shape_count, 3), 0.5), "cpu")
    row = int(np.nonzero(packed.geo_type.numpy() == GeoType.HFIELD)[0][0])
    xy = np.random.default_rng(0).uniform((-0.99, -0.79), (0.99, 0.79), size=(200, 2))
    t = wp.zeros(len(xy), dtype=float, device="cpu")
    mesh = wp.uint64(int(packed.mesh_id.numpy()[row]))
    wp.launch(_cast_down, dim=len(xy), inputs=[mesh, wp.array(xy, dtype=wp.vec2, device="cpu"), t], device="cpu")
    np.testing.assert_allclose(5.0 - t.numpy(), field.height_at(xy[:, 0], xy[:, 1]), atol=1e-5)
    assert packed.radius.numpy()[row] >= np.linalg.norm(field.points(), axis=1).max()


def test_usd_recorder_writes_the_field_once(tmp_path):
    pxr = pytest.importorskip("pxr")
    field = _bumps()
    model = _scene(field)
    state = model.state()
    with UsdRecorder(model, tmp_path / "roll.usda", fps=10.0) as rec:
        for k in range(4):
            q = state.body_q.numpy()
            q[0, 2] = 0.9 - 0.1 * k
            state.body_q.assign(q)
            rec.record(state)
    stage = pxr.Usd.Stage.Open(str(tmp_path / "roll.usda"))
    terrain = stage.GetPrimAtPath(rec.shape_paths[0])
    assert str(terrain.GetPath()).startswith("/World/static/") and terrain.IsA(pxr.UsdGeom.Mesh)
    mesh = pxr.UsdGeom.Mesh(terrain)
    np.testing.assert_allclose(np.asarray(mesh.GetPointsAttr().Get()), field.points(), atol=1e-6)
    np.testing.assert_array_equal(np.asarray(mesh.GetFaceVertexIndicesAttr().Get()), field.triangles().ravel())
    assert all(a.GetNumTimeSamples() == 0 for a in terrain.GetAttributes())  # written once, not per frame
    ball = stage.GetPrimAtPath(rec.body_paths[0])
    assert ball.GetAttribute("xformOp:translate").GetNumTimeSamples() == 4
    meshes = [p for p in stage.Traverse() if p.IsA(pxr.UsdGeom.Mesh)]
    assert meshes == [terrain]


def test_a_large_field_goes_to_a_binary_sidecar_of_a_text_stage(tmp_path, monkeypatch):
    pxr = pytest.importorskip("pxr")
    from newton_gym.render import usd_recorder

    monkeypatch.setattr(usd_recorder, "SIDECAR_POINTS", 100)  # the 21 x 21 field is "large" here
    field = _bumps()
    model = _scene(field)
    with UsdRecorder(model, tmp_path / "roll.usda", fps=10.0) as rec:
        rec.record(model.state())
    sidecar = tmp_path / "roll_terrain.usdc"
    assert sidecar.is_file() and "points" not in (tmp_path / "roll.usda").read_text()
    stage = pxr.Usd.Stage.Open(str(tmp_path / "roll.usda"))
    mesh = pxr.UsdGeom.Mesh(stage.GetPrimAtPath(rec.shape_paths[0]))
    np.testing.assert_allclose(np.asarray(mesh.GetPointsAttr().Get()), field.points(), atol=1e-6)
