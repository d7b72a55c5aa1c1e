"""Custom attributes beyond the seed's example, resolver fallbacks, user resolvers, schema_attrs and
the ``inspect`` report."""

import argparse
import math

import numpy as np
import pytest
import warp as wp
from usd_helpers import HEADER

import newton_gym as ng
from newton_gym.errors import ImportFailedError
from newton_gym.usd import AttrSpec, SchemaResolver, SchemaResolverMjc, SchemaResolverNewton, UsdImportWarning
from newton_gym.usd.report import inspect_usd, run

# Warnings other than the one a test checks are expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::newton_gym.usd.UsdImportWarning")

ROBOT = (
    HEADER
    + """
def PhysicsScene "scene" {
    custom float newton:dof_gain = 1.0 (
        customData = {
            string assignment = "control"
            string frequency = "joint_dof"
        }
    )
    custom quatf newton:ctrl:frame = (1, 0, 0, 0) (
        customData = {
            string assignment = "model"
            string frequency = "body"
        }
    )
    custom int newton:tag = 7 (
        customData = {
            string assignment = "model"
            string frequency = "shape"
        }
    )
    custom float newton:stiff = 0 (
        customData = {
            string assignment = "model"
            string frequency = "articulation"
        }
    )
}
def Xform "r" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {
    custom float newton:stiff = 3
    def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        custom quatf newton:ctrl:frame = (0.5, 0.5, 0.5, 0.5)
        custom float newton:stiff = 9
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            double radius = 0.1
            custom int newton:tag = 42
            custom float foo:skin = 0.25
        }
    }
    def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}
    def PhysicsSphericalJoint "ball" {
        rel physics:body0 = </r/a>
        rel physics:body1 = </r/b>
        custom float[] newton:dof_gain = [1.5, 2.5, 3.5]
        float mjc:armature = 0.4
        float foo:rotor = 0.8
    }
}
"""
)


def test_joint_dof_quaternion_int_and_articulation_attributes(write_usda):
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning, match="/r/a: newton:stiff has articulation frequency"):
        builder.add_usd(write_usda(ROBOT))
    model = builder.finalize("cpu")
    control = model.control()
    np.testing.assert_allclose(control.dof_gain.numpy(), [1, 1, 1, 1, 1, 1, 1.5, 2.5, 3.5])
    # quatf (w, x, y, z) = (0.5, 0.5, 0.5, 0.5) is stored x, y, z, w; the default (1, 0, 0, 0) -> (0, 0, 0, 1).
    np.testing.assert_allclose(model.ctrl.frame.numpy(), [[0.5, 0.5, 0.5, 0.5], [0, 0, 0, 1]])
    assert model.ctrl.frame.dtype == wp.quat
    assert model.tag.numpy().tolist() == [42]
    assert model.tag.dtype == wp.int32
    np.testing.assert_allclose(model.stiff.numpy(), [3.0])


def test_builder_declared_attribute_is_read_from_prims(write_usda, quiet):
    builder = ng.ModelBuilder()
    builder.add_custom_attribute("limit_scale", wp.float32, assignment="model", frequency="joint", default=1.0)
    builder.add_usd(write_usda(ROBOT.replace("float mjc:armature = 0.4", "float newton:limit_scale = 0.5")))
    np.testing.assert_allclose(builder.finalize("cpu").limit_scale.numpy(), [1.0, 0.5])


@pytest.mark.parametrize(
    "decl, match",
    [
        (
            'custom string newton:label = "x" (\n customData = {\n string assignment = "model"\n string frequency = "body"\n }\n)',
            "newton:label: USD type string is not supported",
        ),
        (
            'custom float newton:x = 1 (\n customData = {\n string assignment = "model"\n string frequency = "galaxy"\n }\n)',
            "newton:x: customData frequency 'galaxy'",
        ),
    ],
)
def test_bad_declarations_name_the_attribute(write_usda, quiet, decl, match):
    text = (
        HEADER
        + f'def PhysicsScene "scene" {{\n{decl}\n}}\n'
        + 'def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}\n'
    )
    with pytest.raises(ImportFailedError, match=match):
        ng.ModelBuilder().add_usd(write_usda(text))


class SchemaResolverFoo(SchemaResolver):
    """A user's resolver for a made-up engine "foo"."""

    name = "foo"
    namespaces = ("foo",)
    mapping = {
        "joint": {"armature": AttrSpec("foo:rotor", lambda v, ctx: 2.0 * v)},
        "shape": {"gap": AttrSpec("foo:skin")},
    }


def test_user_resolver_priority_and_collection(write_usda, quiet):
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(ROBOT), schema_resolvers=[SchemaResolverFoo(), SchemaResolverMjc()])
    dof_armature = builder.tables["dof"].get("armature")
    np.testing.assert_allclose(dof_armature[6:], 1.6)  # foo first: 2 * 0.8
    assert builder.tables["shape"].value("gap", 0) == pytest.approx(0.25)
    assert result["schema_attrs"]["foo"]["/r/ball"] == {"foo:rotor": pytest.approx(0.8)}
    assert set(result["schema_attrs"]) == {"foo", "mjc"}
    builder = ng.ModelBuilder()
    builder.add_usd(write_usda(ROBOT), schema_resolvers=[SchemaResolverMjc(), SchemaResolverFoo()])
    np.testing.assert_allclose(builder.tables["dof"].get("armature")[6:], 0.4)


def test_importer_default_before_schema_default(write_usda, quiet):
    text = (
        HEADER + 'def PhysicsScene "scene" {}\ndef Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}\n'
        'def PhysicsRevoluteJoint "j" {\n    rel physics:body1 = </a>\n}\n'
    )
    builder = ng.ModelBuilder()
    builder.default_joint_cfg.armature = 0.123
    result = builder.add_usd(write_usda(text))
    assert builder.tables["dof"].get("armature")[0] == pytest.approx(0.123)
    assert result["resolved"]["/j"]["armature"] == (pytest.approx(0.123), "importer default")
    # max_solver_iterations has no importer default: the first resolver with a schema default gives it.
    assert result["max_solver_iterations"] == 255  # Newton declares none; PhysX's approximation
    assert result["physics_dt"] == pytest.approx(1 / 1000)  # Newton's approximation
    result = ng.ModelBuilder().add_usd(write_usda(text), schema_resolvers=[SchemaResolverMjc(), SchemaResolverNewton()])
    assert result["max_solver_iterations"] == 100
    assert result["physics_dt"] == pytest.approx(0.002)


def test_inspect_report(write_usda, capsys):
    path = write_usda(ROBOT)
    text = inspect_usd(path)
    assert "Bodies (2):" in text and "/r/a" in text
    assert "Joints (2):" in text and "BALL" in text
    assert "armature[rotX] = 0.4  <- mjc:armature (mjc)" in text
    assert "Authored solver attributes nothing used:" in text
    assert run(argparse.Namespace(file=path, defaults=False, root_path="/")) == 0
    assert "Shapes (1):" in capsys.readouterr().out
    assert run(argparse.Namespace(file=path + ".missing", defaults=False, root_path="/")) == 1
    assert "file not found" in capsys.readouterr().err


def test_inspect_lists_unused_solver_attributes(quiet):
    import os

    path = os.path.join(os.path.dirname(ng.__file__), "assets", "robots", "ant.usda")
    if not os.path.exists(path):
        pytest.skip("shipped ant not present")
    text = inspect_usd(path)
    unused = text.split("Authored solver attributes nothing used:")[1]
    assert "mjc:group" in unused and "mjc:solmix" in unused
    hip = unused.split("/ant/joints/hip_1:")[1].splitlines()[0]
    # newton:armature was read; mjc:armature, shadowed by it (Newton resolves first), was not.
    assert "newton:armature" not in hip and "mjc:armature" in hip and "mjc:damping" not in hip
    assert math.isfinite(float(text.split("max_solver_iterations ")[1].split()[0]))


def test_schema_attrs_values_are_plain_python(write_usda, quiet):
    text = (
        HEADER
        + """
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    float3[] newton:points = [(1, 2, 3), (4, 5, 6)]
    quatf[] newton:frames = [(1, 0, 0, 0)]
    quatd newton:frame = (0.5, 0.5, 0.5, 0.5)
    token mjc:mode = "fast"
    int[] mjc:ids = [1, 2]
}
"""
    )
    attrs = ng.ModelBuilder().add_usd(write_usda(text))["schema_attrs"]
    assert attrs["newton"]["/a"] == {
        "newton:points": [(1, 2, 3), (4, 5, 6)],
        "newton:frames": [(0, 0, 0, 1)],
        "newton:frame": (0.5, 0.5, 0.5, 0.5),
    }
    assert attrs["mjc"]["/a"] == {"mjc:mode": "fast", "mjc:ids": [1, 2]}
    assert attrs["physx"] == {}
