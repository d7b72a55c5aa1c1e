"""UsdRecorder: prim types and sizes, time samples, stage metadata, world selection, bad input."""

import math

import numpy as np
import pytest

from newton_gym import Mesh, ModelBuilder
from newton_gym.render import RenderError, UsdRecorder
from newton_gym.sim.hostmath import quat_from_axis_angle

pxr = pytest.importorskip("pxr")
from pxr import Gf, Usd, UsdGeom  # noqa: E402

TET = Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def _all_shapes():
    b = ModelBuilder()
    b.add_ground_plane()
    torso = b.add_body(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), key="torso")
    tilt = (0.1, 0.2, 0.3, *quat_from_axis_angle([1, 1, 0], 0.7))
    b.add_shape_box(torso, tilt, hx=0.2, hy=0.1, hz=0.3, key="box")
    b.add_shape_sphere(torso, radius=0.15, key="ball")
    leg = b.add_body(xform=(0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), key="leg")
    b.add_shape_capsule(leg, radius=0.05, half_height=0.2, key="capsule")
    b.add_shape_cylinder(leg, radius=0.07, half_height=0.1, key="cylinder")
    b.add_shape_cone(leg, radius=0.1, half_height=0.15, key="cone")
    b.add_shape_mesh(leg, mesh=TET, scale=(0.1, 0.2, 0.3), key="tet")
    return b.finalize()


def _random_poses(model, rng, k):
    q = model.body_q.numpy().copy()
    q[:, :3] += rng.normal(size=(model.body_count, 3)) * k
    quat = rng.normal(size=(model.body_count, 4))
    q[:, 3:] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    return q


def _record(model, path, poses, fps=30.0, **kw):
    state = model.state()
    with UsdRecorder(model, path, fps=fps, **kw) as rec:
        for k, q in enumerate(poses):
            state.body_q.assign(q)
            rec.record(state, time=k / fps)
    return rec


def test_round_trip_time_samples_equal_recorded_poses(tmp_path):
    model = _all_shapes()
    rng = np.random.default_rng(0)
    poses = [_random_poses(model, rng, k) for k in range(4)]
    rec = _record(model, tmp_path / "roll.usda", poses)
    stage = Usd.Stage.Open(str(tmp_path / "roll.usda"))
    assert stage.GetStartTimeCode() == 0 and stage.GetEndTimeCode() == 3
    assert stage.GetTimeCodesPerSecond() == 30
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0 and UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    assert stage.GetDefaultPrim().GetPath() == "/World"
    for body, path in rec.body_paths.items():
        prim = stage.GetPrimAtPath(path)
        assert prim.GetTypeName() == "Xform"
        translate = prim.GetAttribute("xformOp:translate")
        orient = prim.GetAttribute("xformOp:orient")
        assert translate.GetTimeSamples() == [0.0, 1.0, 2.0, 3.0] == orient.GetTimeSamples()
        for k, q in enumerate(poses):
            np.testing.assert_allclose(translate.Get(k), q[body, :3], atol=1e-6)
            o = orient.Get(k)
            np.testing.assert_allclose([*o.GetImaginary(), o.GetReal()], q[body, 3:], atol=1e-6)


def test_prim_types_and_sizes(tmp_path):
    model = _all_shapes()
    rec = _record(model, tmp_path / "shapes.usd", [model.body_q.numpy()])
    stage = Usd.Stage.Open(str(tmp_path / "shapes.usd"))
    prims = {model.shape_key[s]: stage.GetPrimAtPath(p) for s, p in rec.shape_paths.items()}
    types = {k: p.GetTypeName() for k, p in prims.items()}
    assert types == {
        "ground_plane": "Mesh",
        "box": "Cube",
        "ball": "Sphere",
        "capsule": "Capsule",
        "cylinder": "Cylinder",
        "cone": "Cone",
        "tet": "Mesh",
    }
    assert str(prims["ground_plane"].GetPath()).startswith("/World/static/")
    assert str(prims["box"].GetPath()).startswith("/World/torso/")
    assert prims["ball"].GetAttribute("radius").Get() == pytest.approx(0.15)
    cap = UsdGeom.Capsule(prims["capsule"])
    assert cap.GetHeightAttr().Get() == pytest.approx(0.4) and cap.GetAxisAttr().Get() == "Z"
    assert UsdGeom.Cylinder(prims["cylinder"]).GetHeightAttr().Get() == pytest.approx(0.2)
    assert UsdGeom.Cone(prims["cone"]).GetRadiusAttr().Get() == pytest.approx(0.1)
    mesh = UsdGeom.Mesh(prims["tet"])
    assert list(mesh.GetFaceVertexIndicesAttr().Get()) == [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
    for p in prims.values():
        assert UsdGeom.Gprim(p).GetDisplayColorAttr().Get() is not None
        assert p.GetAttribute("extent").Get() is not None


def test_box_corner_lands_where_the_model_puts_it(tmp_path):
    """The stage's composed transform of the box (body pose * shape pose * half extents) matches the model."""
    model = _all_shapes()
    q = _random_poses(model, np.random.default_rng(1), 1.0)
    rec = _record(model, tmp_path / "corner.usda", [q])
    stage = Usd.Stage.Open(str(tmp_path / "corner.usda"))
    box = 0 + 1  # shape 1 is the box on body 0
    m = UsdGeom.Xformable(stage.GetPrimAtPath(rec.shape_paths[box])).ComputeLocalToWorldTransform(0)
    corner = m.Transform(Gf.Vec3d(1.0, 1.0, 1.0))  # a corner of the size-2 cube
    local = np.array([0.2, 0.1, 0.3])
    shape_x = model.shape_transform.numpy()[box]
    expected = _apply(q[0], _apply(shape_x, local))
    np.testing.assert_allclose(corner, expected, atol=1e-5)


def _apply(x, p):
    """Transform (x, y, z, qx, qy, qz, qw) applied to point p."""
    v, w = np.asarray(x[3:6], float), float(x[6])
    p = np.asarray(p, float)
    return x[:3] + p + 2.0 * w * np.cross(v, p) + 2.0 * np.cross(v, np.cross(v, p))


def test_records_only_the_chosen_world(tmp_path):
    robot = ModelBuilder()
    body = robot.add_body(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), key="root")
    robot.add_shape_box(body, hx=0.2, hy=0.1, hz=0.3)
    b = ModelBuilder()
    b.add_ground_plane()
    b.replicate(robot, world_count=3, spacing=(2.0, 0.0, 0.0))
    model = b.finalize()
    rec = _record(model, tmp_path / "w1.usda", [model.body_q.numpy()], world=1)
    assert list(rec.body_paths) == [1]
    stage = Usd.Stage.Open(str(tmp_path / "w1.usda"))
    xforms = [p for p in stage.Traverse() if p.GetTypeName() == "Xform"]
    assert sorted(str(p.GetPath()) for p in xforms) == ["/World", "/World/root", "/World/static"]
    pos = stage.GetPrimAtPath("/World/root").GetAttribute("xformOp:translate").Get(0)
    np.testing.assert_allclose(pos, model.body_q.numpy()[1, :3], atol=1e-6)


def test_default_times_and_rewrite_of_an_open_file(tmp_path):
    model = _all_shapes()
    path = tmp_path / "again.usda"
    _record(model, path, [model.body_q.numpy()] * 5)
    reader = Usd.Stage.Open(str(path))  # keeps the layer open in this process
    state = model.state()
    with UsdRecorder(model, path, fps=10) as rec:
        for _ in range(2):
            rec.record(state)
    reader.Reload()
    assert reader.GetEndTimeCode() == 1 and reader.GetTimeCodesPerSecond() == 10
    attr = reader.GetPrimAtPath(rec.body_paths[0]).GetAttribute("xformOp:translate")
    assert attr.GetTimeSamples() == [0.0, 1.0]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(world=1), "world"),
        (dict(world=-1), "world"),
        (dict(fps=0), "fps"),
        (dict(plane_size=-1.0), "plane_size"),
        (dict(shape_colors=np.ones((2, 3))), "shape_colors"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, match):
    with pytest.raises(RenderError, match=match):
        UsdRecorder(_all_shapes(), tmp_path / "bad.usda", **kwargs)


def test_bad_path_and_state(tmp_path):
    model = _all_shapes()
    with pytest.raises(RenderError, match="path"):
        UsdRecorder(model, tmp_path / "bad.txt")
    rec = UsdRecorder(model, tmp_path / "ok.usda")
    with pytest.raises(RenderError, match="state"):
        rec.record(object())
    with pytest.raises(RenderError, match="time"):
        rec.record(model.state(), time=math.nan)
