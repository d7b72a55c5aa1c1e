"""Joints: types, D6 from LimitAPI, drives and state in degrees, NewtonJointAPI per DOF (seed 001),
orientation and ordering, loop closures, fixed-joint collapse, floating roots."""

import math
import warnings

import numpy as np
import pytest
from usd_helpers import HEADER, assert_fk_matches_authored

import newton_gym as ng
from newton_gym.usd import UsdImportWarning


def _body(name, pos=(0, 0, 0), mass=1.0, extra=""):
    return f'''
def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    float physics:mass = {mass}
    float3 physics:diagonalInertia = (0.1, 0.1, 0.1)
    point3f physics:centerOfMass = (0, 0, 0)
    double3 xformOp:translate = {pos}
    uniform token[] xformOpOrder = ["xformOp:translate"]
{extra}
}}'''


def _import(write_usda, text, **kw):
    builder = ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        result = builder.add_usd(write_usda(HEADER + text), **kw)
    return builder, result


def _dofs(builder, result, path, col):
    j = result["path_joint_map"][path]
    tj = builder.tables["joint"]
    start, n = int(tj.value("qd_start", j)), int(tj.value("lin_count", j)) + int(tj.value("ang_count", j))
    return builder.tables["dof"].get(col)[start : start + n]


PLANAR = (
    _body("a")
    + _body("b", (1, 0, 0))
    + """
def PhysicsJoint "planar" (prepend apiSchemas = ["PhysicsLimitAPI:transZ", "PhysicsLimitAPI:rotX",
        "PhysicsLimitAPI:rotY", "PhysicsLimitAPI:transX", "PhysicsDriveAPI:rotZ", "NewtonJointAPI"]) {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (1, 0, 0)
    float limit:transZ:physics:low = 1
    float limit:transZ:physics:high = -1
    float limit:rotX:physics:low = 1
    float limit:rotX:physics:high = -1
    float limit:rotY:physics:low = 1
    float limit:rotY:physics:high = -1
    float limit:transX:physics:low = -0.5
    float limit:transX:physics:high = 0.5
    float drive:rotZ:physics:stiffness = 10
    float drive:rotZ:physics:targetPosition = 90
    uniform token[] newton:dofs = [ "transX", "transY", "rotZ" ]
    uniform float[] newton:armature = [ 0.1, 0.2, 0.3 ]
    uniform float[] newton:dynamicFrictionEffort = [10.0, 10.0, 10.0]
    uniform float[] newton:staticFrictionEffort = [12.0, 11.0, 10.0]
    uniform float[] newton:viscousDamping = [1.0, 2.0, 3.0]
}
"""
)


def test_generic_joint_is_a_d6_with_newton_joint_api(write_usda):
    builder, result = _import(write_usda, PLANAR)
    assert builder.joint_type.tolist()[-1] == ng.JointType.D6
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "axis"), [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "armature"), [0.1, 0.2, 0.3], rtol=1e-6)
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "friction_dynamic"), [10, 10, 10])
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "friction_static"), [12, 11, 10])
    # viscousDamping is per degree on angular DOFs.
    np.testing.assert_allclose(
        _dofs(builder, result, "/planar", "viscous_damping"), [1.0, 2.0, 3.0 * 180 / math.pi], rtol=1e-6
    )
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "limit_lower")[0], -0.5)
    assert _dofs(builder, result, "/planar", "target_pos")[2] == pytest.approx(math.pi / 2)
    assert _dofs(builder, result, "/planar", "target_ke")[2] == pytest.approx(10 * 180 / math.pi)


def test_newton_joint_api_seed_example_leaves_unspecified_at_zero(write_usda):
    text = PLANAR.replace("    uniform float[] newton:staticFrictionEffort = [12.0, 11.0, 10.0]\n", "").replace(
        "    uniform float[] newton:viscousDamping = [1.0, 2.0, 3.0]\n", ""
    )
    builder, result = _import(write_usda, text)
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "friction_static"), 0.0)
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "viscous_damping"), 0.0)


def test_newton_joint_api_scalar_form_and_empty_dofs(write_usda):
    scalar = PLANAR.split("    uniform token[] newton:dofs")[0] + "    float newton:armature = 0.7\n}\n"
    builder, result = _import(write_usda, scalar)
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "armature"), 0.7)
    disabled = PLANAR.replace('[ "transX", "transY", "rotZ" ]', "[]").replace(
        "    uniform float[] newton:armature = [ 0.1, 0.2, 0.3 ]\n",
        "    float newton:armature = 0.7\n    float physxJoint:armature = 0.05\n",
    )
    builder, result = _import(write_usda, disabled)
    np.testing.assert_allclose(_dofs(builder, result, "/planar", "armature"), 0.05)  # newton: disabled


def test_newton_armature_plus_actuator_armature(write_usda):
    text = (
        _body("a")
        + """
def PhysicsRevoluteJoint "hinge" (prepend apiSchemas = ["NewtonJointAPI"]) {
    rel physics:body1 = </a>
    uniform token[] newton:dofs = ["angle"]
    uniform float[] newton:armature = [0.25]
}
def MjcActuator "act" {
    float newton:armature = 0.5
    rel mjc:target = </hinge>
}
"""
    )
    builder, result = _import(write_usda, text)
    assert _dofs(builder, result, "/hinge", "armature")[0] == pytest.approx(0.75)


def test_spherical_distance_and_prismatic(write_usda):
    text = (
        _body("a", (0, 0, 1))
        + _body("b", (0, 0, 2))
        + _body("c", (1, 0, 2))
        + """
def PhysicsSphericalJoint "ball" {
    rel physics:body1 = </a>
    point3f physics:localPos0 = (0, 0, 1)
    uniform token physics:axis = "X"
    float physics:coneAngle0Limit = 30
    float physics:coneAngle1Limit = 40
}
def PhysicsPrismaticJoint "slide" (prepend apiSchemas = ["PhysicsDriveAPI:linear"]) {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (0, 0, 1)
    uniform token physics:axis = "Z"
    float physics:lowerLimit = -0.2
    float physics:upperLimit = 0.3
    float drive:linear:physics:stiffness = 100
    float drive:linear:physics:targetPosition = 0.1
    float state:linear:physics:position = 0.05
    float state:linear:physics:velocity = 0.5
}
def PhysicsDistanceJoint "rope" {
    rel physics:body0 = </b>
    rel physics:body1 = </c>
    float physics:minDistance = 0.5
}
"""
    )
    builder, result = _import(write_usda, text)
    lo = _dofs(builder, result, "/ball", "limit_lower")
    hi = _dofs(builder, result, "/ball", "limit_upper")
    # Cone axis X: coneAngle0 bounds the rotation about Z, coneAngle1 the one about Y; twist is free.
    assert lo[0] == pytest.approx(-1e10) and hi[0] == pytest.approx(1e10)
    assert hi[1] == pytest.approx(math.radians(40)) and hi[2] == pytest.approx(math.radians(30))
    assert _dofs(builder, result, "/slide", "limit_upper")[0] == pytest.approx(0.3)
    assert _dofs(builder, result, "/slide", "target_ke")[0] == pytest.approx(100)  # linear: not per degree
    assert _dofs(builder, result, "/slide", "target_pos")[0] == pytest.approx(0.1)
    j = result["path_joint_map"]["/slide"]
    assert builder.joint_q[builder.tables["joint"].value("q_start", j)] == pytest.approx(0.05)
    assert _dofs(builder, result, "/slide", "qd")[0] == pytest.approx(0.5)
    assert builder.joint_type[result["path_joint_map"]["/rope"]] == ng.JointType.DISTANCE
    np.testing.assert_allclose(_dofs(builder, result, "/rope", "limit_lower")[:3], 0.5)
    assert _dofs(builder, result, "/rope", "limit_upper")[0] >= 1e9  # no maximum


def test_body0_world_joint_is_flipped_and_keeps_its_coordinate(write_usda):
    """physics:body0 = link, body1 unset: the link becomes the child; axis negation keeps q's sign."""
    text = (
        _body("link", (0.5, 0, 1))
        + """
def PhysicsRevoluteJoint "hinge" {
    rel physics:body0 = </link>
    point3f physics:localPos0 = (-0.5, 0, 0)
    point3f physics:localPos1 = (0, 0, 1)
    uniform token physics:axis = "Y"
    float physics:lowerLimit = -10
    float physics:upperLimit = 60
}
"""
    )
    builder, result = _import(write_usda, text)
    tj = builder.tables["joint"]
    assert (tj.value("parent", 0), tj.value("child", 0)) == (-1, 0)
    np.testing.assert_allclose(_dofs(builder, result, "/hinge", "axis")[0], [0, -1, 0])
    assert _dofs(builder, result, "/hinge", "limit_upper")[0] == pytest.approx(math.radians(60))
    assert_fk_matches_authored(builder.finalize("cpu"))


def test_chain_authored_child_to_parent_is_reoriented(write_usda):
    text = (
        _body("base", (0, 0, 1))
        + _body("l1", (1, 0, 1))
        + _body("l2", (2, 0, 1))
        + """
def PhysicsFixedJoint "root" {
    rel physics:body1 = </base>
    point3f physics:localPos0 = (0, 0, 1)
}
def PhysicsRevoluteJoint "j2" {
    rel physics:body0 = </l2>
    rel physics:body1 = </l1>
    point3f physics:localPos0 = (-0.5, 0, 0)
    point3f physics:localPos1 = (0.5, 0, 0)
}
def PhysicsRevoluteJoint "j1" {
    rel physics:body0 = </base>
    rel physics:body1 = </l1>
    point3f physics:localPos0 = (0.5, 0, 0)
    point3f physics:localPos1 = (-0.5, 0, 0)
}
"""
    )
    builder, result = _import(write_usda, text)
    assert builder.body_key == ["/base", "/l1", "/l2"]
    assert builder.joint_key == ["/root", "/j1", "/j2"]
    assert_fk_matches_authored(builder.finalize("cpu"))


def test_joint_ordering_dfs_bfs(write_usda):
    text = (
        _body("r")
        + _body("a", (1, 0, 0))
        + _body("a2", (2, 0, 0))
        + _body("b", (-1, 0, 0))
        + """
def PhysicsRevoluteJoint "ja" {
    rel physics:body0 = </r>
    rel physics:body1 = </a>
}
def PhysicsRevoluteJoint "jb" {
    rel physics:body0 = </r>
    rel physics:body1 = </b>
}
def PhysicsRevoluteJoint "ja2" {
    rel physics:body0 = </a>
    rel physics:body1 = </a2>
}
"""
    )
    builder, _ = _import(write_usda, text, joint_ordering="dfs")
    assert builder.body_key == ["/r", "/a", "/a2", "/b"]
    builder, _ = _import(write_usda, text, joint_ordering="bfs")
    assert builder.body_key == ["/r", "/a", "/b", "/a2"]
    builder, _ = _import(write_usda, text, joint_ordering=None)  # stage order of the joints, parents first
    assert builder.joint_key == ["/r:free", "/ja", "/jb", "/ja2"]


def test_excluded_joints_become_equality_constraints(write_usda):
    text = (
        _body("a", (0, 0, 1))
        + _body("b", (1, 0, 1))
        + """
def PhysicsRevoluteJoint "hinge" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (0.5, 0, 0)
    point3f physics:localPos1 = (-0.5, 0, 0)
}
def PhysicsFixedJoint "weld" {
    rel physics:body1 = </b>
    point3f physics:localPos0 = (1, 0, 1)
    bool physics:excludeFromArticulation = true
}
def PhysicsSphericalJoint "socket" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (0.5, 0, 0)
    point3f physics:localPos1 = (-0.5, 0, 0)
    bool physics:excludeFromArticulation = true
}
"""
    )
    builder, result = _import(write_usda, text)
    assert set(result["path_equality_map"]) == {"/weld", "/socket"}
    te = builder.tables["equality"]
    w, s = result["path_equality_map"]["/weld"], result["path_equality_map"]["/socket"]
    assert te.value("type", w) == ng.EqType.WELD and te.value("body2", w) == -1
    np.testing.assert_allclose(te.value("relpose", w)[:3], [-1, 0, -1])  # the world in b's frame
    assert te.value("type", s) == ng.EqType.CONNECT
    np.testing.assert_allclose(te.value("anchor", s), [-0.5, 0, 0])
    assert builder.joint_count == 2  # the free root joint and the hinge


def test_collapse_fixed_joints_merges_mass(write_usda):
    text = (
        _body("a", (0, 0, 0), mass=1.0)
        + _body("b", (1, 0, 0), mass=3.0)
        + _body("c", (2, 0, 0))
        + """
def PhysicsFixedJoint "weld" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (1, 0, 0)
}
def PhysicsRevoluteJoint "hinge" {
    rel physics:body0 = </b>
    rel physics:body1 = </c>
    point3f physics:localPos0 = (0.5, 0, 0)
    point3f physics:localPos1 = (-0.5, 0, 0)
}
"""
    )
    builder, result = _import(write_usda, text, collapse_fixed_joints=True)
    assert builder.body_key == ["/a", "/c"]
    assert result["collapsed_bodies"] == {"/b": "/a"}
    assert result["path_body_map"]["/b"] == result["path_body_map"]["/a"]
    model = builder.finalize("cpu")
    assert model.body_mass.numpy()[0] == pytest.approx(4.0)
    np.testing.assert_allclose(model.body_com.numpy()[0], [0.75, 0, 0], atol=1e-6)
    # 0.1 each about their own COMs plus the parallel-axis terms 1 * 0.75^2 + 3 * 0.25^2 about Y and Z.
    np.testing.assert_allclose(np.diag(model.body_inertia.numpy()[0]), [0.2, 0.95, 0.95], rtol=1e-5)
    np.testing.assert_allclose(model.joint_X_p.numpy()[1][:3], [1.5, 0, 0], atol=1e-6)
    assert_fk_matches_authored(model)


def test_floating_option(write_usda):
    text = (
        _body("a", (0, 0, 1))
        + _body("b", (0, 0, 3))
        + """
def PhysicsFixedJoint "anchor" {
    rel physics:body1 = </b>
    point3f physics:localPos0 = (0, 0, 3)
}
"""
    )
    builder, _ = _import(write_usda, text)
    assert builder.joint_type.tolist() == [ng.JointType.FREE, ng.JointType.FIXED]
    builder, _ = _import(write_usda, text, floating=False)
    assert builder.joint_type.tolist() == [ng.JointType.FIXED, ng.JointType.FIXED]
    np.testing.assert_allclose(builder.tables["joint"].value("parent_xform", 0)[:3], [0, 0, 1])
    builder, _ = _import(write_usda, text, floating=True)
    assert builder.joint_type.tolist() == [ng.JointType.FREE, ng.JointType.FREE]


def test_disabled_body_and_joint_and_kinematic_body(write_usda):
    text = (
        _body(
            "static",
            (0, 0, 1),
            extra="""
    bool physics:rigidBodyEnabled = false
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.1
    }""",
        )
        + _body("moving", (0, 0, 2), extra="    bool physics:kinematicEnabled = true")
        + _body("c", (1, 1, 1))
        + """
def PhysicsRevoluteJoint "to_static" {
    rel physics:body0 = </static>
    rel physics:body1 = </moving>
    point3f physics:localPos0 = (0, 0, 1)
}
def PhysicsRevoluteJoint "off" {
    rel physics:body0 = </moving>
    rel physics:body1 = </c>
    bool physics:jointEnabled = false
}
"""
    )
    builder, result = _import(write_usda, text)
    assert builder.body_key == ["/moving", "/c"]
    assert builder.tables["body"].value("kinematic", 0)
    assert builder.tables["shape"].value("body", result["path_shape_map"]["/static/s"]) == -1
    np.testing.assert_allclose(builder.tables["shape"].value("xform", 0)[:3], [0, 0, 1])
    assert "/off" not in result["path_joint_map"]
    tj = builder.tables["joint"]
    j = result["path_joint_map"]["/to_static"]
    assert tj.value("parent", j) == -1
    np.testing.assert_allclose(tj.value("parent_xform", j)[:3], [0, 0, 2])  # world frame
    assert builder.joint_type[result["auto_joint_map"]["/c:free"]] == ng.JointType.FREE
