"""Bad input: every failure is an ImportFailedError naming the file and prim, and leaves the builder
exactly as it was; unsupported content is a UsdImportWarning naming the prim."""

import warnings

import pytest
from usd_helpers import HEADER, fingerprint

import newton_gym as ng
from newton_gym.errors import ImportFailedError, NewtonGymError
from newton_gym.usd import UsdImportWarning

# Warnings other than the one a test checks are expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::newton_gym.usd.UsdImportWarning")

BODY = """
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = 1
}
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = 1
}
"""


@pytest.fixture
def busy_builder(write_usda):
    """A builder that already holds content, a custom attribute and a non-default gravity."""
    b = ng.ModelBuilder(gravity=-3.0)
    b.add_ground_plane()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        b.add_usd(
            write_usda(
                HEADER
                + BODY
                + """
def PhysicsRevoluteJoint "j" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
}
""",
                name="good.usda",
            ),
            apply_scene_gravity=False,
        )
    b.add_custom_attribute("marker", frequency="body")
    return b


def _fails(builder, source, *match, **kwargs):
    before = fingerprint(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        with pytest.raises(ImportFailedError) as info:
            builder.add_usd(source, **kwargs)
    message = str(info.value)
    for m in match:
        assert m in message, message
    assert fingerprint(builder) == before, "a failed add_usd changed the builder"
    return message


def test_missing_file(busy_builder, tmp_path):
    path = str(tmp_path / "nope.usda")
    _fails(busy_builder, path, path, "file not found")


def test_malformed_usda(busy_builder, write_usda):
    path = write_usda(HEADER + 'def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {\n  float x = \n')
    _fails(busy_builder, path, path, "not a readable USD file")


def test_not_a_usd_file(busy_builder, write_usda):
    _fails(busy_builder, write_usda('{"robot": "json"}', name="robot.txt"), "robot.txt", "not a readable USD file")
    _fails(busy_builder, write_usda("hello", name="robot.usda"), "robot.usda", "not a readable USD file")


def test_source_of_wrong_type(busy_builder):
    _fails(busy_builder, 42, "source must be a file path or a Usd.Stage")


def test_stage_without_physics(busy_builder, write_usda):
    path = write_usda(HEADER + 'def Xform "a" {\n  def Sphere "s" {}\n}\n')
    _fails(busy_builder, path, path, "no UsdPhysics content")


def test_joint_to_a_missing_body(busy_builder, write_usda):
    path = write_usda(
        HEADER
        + BODY
        + """
def PhysicsRevoluteJoint "j" {
    rel physics:body0 = </a>
    rel physics:body1 = </nothere>
}
"""
    )
    _fails(busy_builder, path, path, "/j", "physics:body1 targets /nothere, which does not exist")


def test_joint_with_only_a_missing_body(busy_builder, write_usda):
    """A joint whose only body target is missing is dropped by UsdPhysics itself; still an error."""
    path = write_usda(HEADER + BODY + 'def PhysicsFixedJoint "j" {\n    rel physics:body0 = </ghost>\n}\n')
    _fails(busy_builder, path, "/j", "/ghost")


def test_cyclic_joints(busy_builder, write_usda):
    path = write_usda(
        HEADER
        + BODY
        + """
def PhysicsRevoluteJoint "j1" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
}
def PhysicsFixedJoint "j2" {
    rel physics:body0 = </b>
    rel physics:body1 = </a>
}
"""
    )
    _fails(busy_builder, path, path, "/j2", "kinematic loop", "excludeFromArticulation")


def test_body_jointed_to_the_world_twice(busy_builder, write_usda):
    path = write_usda(
        HEADER
        + BODY
        + """
def PhysicsFixedJoint "w1" {
    rel physics:body1 = </a>
}
def PhysicsFixedJoint "w2" {
    rel physics:body1 = </a>
}
"""
    )
    _fails(busy_builder, path, "/w2", "kinematic loop")


@pytest.mark.parametrize(
    "attr, match",
    [
        ("float physics:mass = nan", "physics:mass: value is NaN"),
        ('string newton:armature = "heavy"', "expected a number"),
        ("float3 physics:centerOfMass = (0, nan, 0)", "NaN"),
    ],
)
def test_nan_or_wrong_typed_attribute(busy_builder, write_usda, attr, match):
    body = attr if "armature" not in attr else ""
    joint = attr if "armature" in attr else ""
    path = write_usda(
        HEADER
        + f"""
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    {body}
}}
def PhysicsRevoluteJoint "j" {{
    rel physics:body1 = </a>
    {joint}
}}
"""
    )
    where = "/j" if joint else "/a"
    _fails(busy_builder, path, path, where, match)


def test_nan_pose(busy_builder, write_usda):
    path = write_usda(
        HEADER
        + """
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    double3 xformOp:translate = (0, nan, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""
    )
    _fails(busy_builder, path, "/a", "not finite")


def _joint_api(arrays):
    return (
        HEADER
        + BODY
        + f"""
def PhysicsJoint "d6" (prepend apiSchemas = ["PhysicsLimitAPI:transZ", "PhysicsLimitAPI:rotX", "PhysicsLimitAPI:rotY"]) {{
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    float limit:transZ:physics:low = 1
    float limit:transZ:physics:high = -1
    float limit:rotX:physics:low = 1
    float limit:rotX:physics:high = -1
    float limit:rotY:physics:low = 1
    float limit:rotY:physics:high = -1
{arrays}
}}
"""
    )


@pytest.mark.parametrize(
    "arrays, match",
    [
        (
            '    uniform token[] newton:dofs = ["transX", "transY", "rotZ"]\n    uniform float[] newton:armature = [0.1, 0.2]',
            "newton:armature: has 2 values but newton:dofs has 3",
        ),
        ('    uniform token[] newton:dofs = ["transX", "wobble"]', "unknown DOF token 'wobble'"),
        ('    uniform token[] newton:dofs = ["transX", "rotX"]', "the joint has no DOF 'rotX'"),
        ('    uniform token[] newton:dofs = ["transX"]\n    uniform float[] newton:viscousDamping = [-1]', ">= 0"),
        ("    uniform float[] newton:armature = [0.1, 0.2]", "one value per joint DOF (3"),
    ],
)
def test_newton_joint_api_errors_name_the_joint(busy_builder, write_usda, arrays, match):
    path = write_usda(_joint_api(arrays))
    _fails(busy_builder, path, path, "/d6", match)


def test_newton_joint_api_dynamic_above_static_warns(write_usda):
    path = write_usda(
        _joint_api(
            '    uniform token[] newton:dofs = ["transX"]\n'
            "    uniform float[] newton:staticFrictionEffort = [1]\n"
            "    uniform float[] newton:dynamicFrictionEffort = [2]"
        )
    )
    with pytest.warns(UsdImportWarning, match="/d6.*dynamicFrictionEffort of DOF transX"):
        ng.ModelBuilder().add_usd(path)


def test_unsupported_prims_and_approximations_warn_naming_the_prim(write_usda):
    path = write_usda(
        HEADER
        + """
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = 1
    def Xform "weird" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {}
    def Points "pts" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        point3f[] points = [(0, 0, 0)]
        float[] widths = [0.1]
    }
    def Mesh "sdf_mesh" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]) {
        uniform token physics:approximation = "sdf"
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int[] faceVertexCounts = [3, 3, 3, 3]
        int[] faceVertexIndices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
    }
    def Mesh "decomposed" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]) {
        uniform token physics:approximation = "convexDecomposition"
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int[] faceVertexCounts = [3, 3, 3, 3]
        int[] faceVertexIndices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
    }
    def Capsule_1 "taper" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radiusTop = 0.1
        double radiusBottom = 0.2
        double height = 1
    }
}
"""
    )
    builder = ng.ModelBuilder()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = builder.add_usd(path)
    text = "\n".join(str(w.message) for w in record if issubclass(w.category, UsdImportWarning))
    assert "/b/weird: collider of unsupported prim type 'Xform'" in text
    assert "/b/pts: UsdPhysics SpherePointsShape prims are not supported" in text
    assert "/b/sdf_mesh: mesh approximation 'sdf' is not supported" in text
    assert "/b/decomposed: mesh approximation 'convexDecomposition' is not supported; using its convex hull" in text
    assert "/b/taper: capsule with top radius" in text
    assert set(result["path_shape_map"]) == {"/b/sdf_mesh", "/b/decomposed", "/b/taper"}
    assert all(path in w for w in result["warnings"] for path in [result["source"]])


def test_errors_share_the_package_base_class():
    assert issubclass(ImportFailedError, NewtonGymError)


JOINT_STAGE = (
    BODY
    + """
def Xform "plain" {}
def PhysicsRevoluteJoint "j" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    EXTRA
}
"""
)


@pytest.mark.parametrize(
    "extra, match",
    [
        # each of these imported silently before (or escaped as IndexError)
        ("point3f physics:localPos0 = (1e30, 0, 0)", "physics:localPos0: position"),
        ("float physics:lowerLimit = nan", "physics:lowerLimit: value is NaN"),
        ('uniform token physics:axis = "W"', "physics:axis: unknown token 'W'"),
        ('token physics:upperLimit = "high"', "physics:upperLimit: expected a number"),
    ],
)
def test_bad_joint_values_name_prim_and_attribute(busy_builder, write_usda, extra, match):
    path = write_usda(HEADER + JOINT_STAGE.replace("EXTRA", extra))
    _fails(busy_builder, path, path, "/j", match)


@pytest.mark.parametrize(
    "extra, match",
    [
        ("float3 physics:principalAxes = (1, 0, 0)", "physics:principalAxes: expected a quaternion"),
        ("float physics:principalAxes = 1", "physics:principalAxes: expected a quaternion"),
        ("point3f physics:centerOfMass = (inf, 0, 0)", "physics:centerOfMass: value (inf, 0.0, 0.0) is not finite"),
        ("float3 physics:diagonalInertia = (1, -inf, 1)", "physics:diagonalInertia"),
    ],
)
def test_bad_mass_values_name_prim_and_attribute(busy_builder, write_usda, extra, match):
    path = write_usda(HEADER + BODY.replace("float physics:mass = 1\n}", f"float physics:mass = 1\n    {extra}\n}}", 1))
    _fails(busy_builder, path, path, "/a", match)


def test_unknown_mjc_gain_type(busy_builder, write_usda):
    path = write_usda(
        HEADER
        + BODY
        + """
def PhysicsRevoluteJoint "j" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
}
def MjcActuator "act" {
    rel mjc:target = </j>
    uniform token mjc:gainType = "quadratic"
}
"""
    )
    _fails(busy_builder, path, path, "/act", "mjc:gainType: unknown token 'quadratic'")


def test_invalid_utf8_is_an_import_error(busy_builder, tmp_path):
    # before: UnicodeDecodeError from the helper that extracts OpenUSD's first error line
    path = tmp_path / "bad_utf8.usda"
    text = (HEADER + BODY).encode().replace(b"physics:mass = 1", b"physics:m\xff\xfess = 1", 1)
    path.write_bytes(text)
    _fails(busy_builder, str(path), str(path), "not valid UTF-8")


def test_body_target_that_is_not_a_body_warns(write_usda):
    path = write_usda(HEADER + JOINT_STAGE.replace("</a>", "</plain>").replace("EXTRA", ""))
    with pytest.warns(UsdImportWarning, match="physics:body0 targets /plain, which is not a rigid body"):
        ng.ModelBuilder().add_usd(path)
