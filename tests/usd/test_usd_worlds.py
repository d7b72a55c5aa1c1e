"""Import into a world scope, import once + replicate without re-parsing, the many-mesh-collider
thread-limit workaround."""

import os

import numpy as np
import pytest
from usd_helpers import HEADER

import newton_gym as ng
from newton_gym.usd import UsdImportWarning, parse

ROBOTS = os.path.join(os.path.dirname(ng.__file__), "assets", "robots")
ROBOT = (
    HEADER
    + """
def PhysicsScene "scene" {
    float physics:gravityMagnitude = 5
}
def Xform "robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {
    def Xform "base" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            double radius = 0.1
        }
    }
    def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        double3 xformOp:translate = (0.5, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Capsule "c" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            uniform token axis = "X"
            double radius = 0.05
            double height = 0.3
        }
    }
    def PhysicsRevoluteJoint "j" {
        rel physics:body0 = </robot/base>
        rel physics:body1 = </robot/arm>
        point3f physics:localPos0 = (0.25, 0, 0)
        point3f physics:localPos1 = (-0.25, 0, 0)
        float newton:armature = 0.3
    }
}
"""
)


def test_import_into_world_scope(write_usda):
    builder = ng.ModelBuilder()
    builder.add_ground_plane()
    w = builder.begin_world()
    with pytest.warns(UsdImportWarning, match="differs from world 0"):
        result = builder.add_usd(write_usda(ROBOT))
    builder.end_world()
    assert w == 0
    assert builder.body_world.tolist() == [0, 0]
    assert builder.joint_world.tolist() == [0, 0]
    assert builder.shape_world.tolist() == [-1, 0, 0]
    assert builder.gravity == pytest.approx(-9.81)  # a world scope does not change the builder's gravity
    assert result["gravity"] == pytest.approx((0, 0, -5.0))
    model = builder.finalize("cpu")
    assert model.world_count == 1
    assert model.body_world_start.numpy().tolist() == [0, 2, 2]


def test_import_once_replicate_4096_worlds_without_reparsing(write_usda, quiet, monkeypatch):
    calls = []
    original = parse.parse_physics
    monkeypatch.setattr("newton_gym.usd.importer.parse_physics", lambda ctx: calls.append(1) or original(ctx))
    robot = ng.ModelBuilder()
    robot.add_usd(write_usda(ROBOT))
    assert robot.gravity == pytest.approx(-5.0)
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(robot, 4096, spacing=(2.0, 2.0, 0.0))
    model = scene.finalize("cpu")
    assert len(calls) == 1
    assert (model.world_count, model.body_count, model.joint_count) == (4096, 2 * 4096, 2 * 4096)
    np.testing.assert_allclose(model.gravity.numpy()[4095], [0, 0, -5.0])
    np.testing.assert_allclose(model.joint_armature.numpy()[6::7], 0.3, rtol=1e-6)
    assert model.body_world.numpy()[-1] == 4095


def test_replicate_the_shipped_ant(quiet):
    path = os.path.join(ROBOTS, "ant.usda")
    if not os.path.exists(path):
        pytest.skip("shipped ant not present")
    robot = ng.ModelBuilder()
    result = robot.add_usd(path)
    scene = ng.ModelBuilder()
    scene.replicate(robot, 64)
    model = scene.finalize("cpu")
    assert model.body_count == 64 * robot.body_count
    assert model.articulation_self_collision.numpy().tolist() == [False] * 64
    assert len(result["actuators"]) == 8


def test_forty_mesh_colliders_on_one_body(write_usda, quiet, monkeypatch):
    """Seed 000's >30-mesh-collider crash: the parse runs on one thread, and the limit is restored."""
    from pxr import Work

    before = Work.GetConcurrencyLimit()
    seen = []
    original = parse._run_parser

    def spy(ctx):
        out = original(ctx)
        seen.append(out[1])
        return out

    monkeypatch.setattr(parse, "_run_parser", spy)
    meshes = "".join(
        f"""
    def Mesh "m{i}" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]) {{
        uniform token physics:approximation = "convexHull"
        double3 xformOp:translate = ({0.1 * i}, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        point3f[] points = [(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)]
        int[] faceVertexCounts = [3, 3, 3, 3]
        int[] faceVertexIndices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
    }}"""
        for i in range(40)
    )
    text = HEADER + f'def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {{{meshes}\n}}\n'
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    assert builder.shape_count == 40 and len(result["path_shape_map"]) == 40
    if "PXR_WORK_THREAD_LIMIT" not in os.environ:
        assert seen == [True]
    assert Work.GetConcurrencyLimit() == before
    model = builder.finalize("cpu")
    assert model.body_mass.numpy()[0] == pytest.approx(40 * 1000 * 0.1**3 / 6, rel=1e-5)


def test_usd_stage_object_as_source(quiet):
    from pxr import Usd

    stage = Usd.Stage.CreateInMemory()
    stage.GetRootLayer().ImportFromString(ROBOT)
    builder = ng.ModelBuilder()
    result = builder.add_usd(stage)
    assert builder.body_count == 2 and result["source"] == stage.GetRootLayer().identifier


def test_reimport_sees_edits_on_disk(write_usda, quiet):
    """A second import of a file re-reads it (OpenUSD caches opened layers per process)."""
    from pxr import Sdf

    path = write_usda(ROBOT)
    b1 = ng.ModelBuilder()
    b1.add_usd(path)
    held = Sdf.Layer.FindOrOpen(path)  # keeps the layer in OpenUSD's registry, as an open stage would
    with open(path, "w") as f:
        f.write(ROBOT.replace("float newton:armature = 0.3", "float newton:armature = 0.9"))
    b2 = ng.ModelBuilder()
    b2.add_usd(path)
    assert b2.tables["dof"].get("armature")[-1] == pytest.approx(0.9)
    assert held.identifier == Sdf.Layer.FindOrOpen(path).identifier


def test_root_path_and_ignore_paths(write_usda, quiet):
    text = (
        ROBOT
        + """
def Xform "other" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}
"""
    )
    path = write_usda(text)
    builder = ng.ModelBuilder()
    result = builder.add_usd(path, root_path="/robot")
    assert builder.body_key == ["/robot/base", "/robot/arm"]
    assert result["physics_dt"] is not None  # the PhysicsScene outside root_path is still read
    assert builder.gravity == pytest.approx(-5.0)
    builder = ng.ModelBuilder()
    result = builder.add_usd(path, ignore_paths=["/robot/arm"])
    assert builder.body_key == ["/robot/base", "/other"]
    assert "/robot/arm/c" not in result["path_shape_map"]
    assert result["path_joint_map"] == {}  # the joint to the ignored arm is skipped, not welded to the world
    assert builder.joint_type.tolist() == [ng.JointType.FREE, ng.JointType.FREE]
    with pytest.raises(ng.ImportFailedError, match="root_path /nothing does not exist"):
        ng.ModelBuilder().add_usd(path, root_path="/nothing")
