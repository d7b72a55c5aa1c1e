"""Equality constraints in hand-written USD: loop-closing joints with MuJoCo parameters (mjc:solref,
mjc:solimp, mjc:torqueScale, physics:jointEnabled) and joint-equality prims (newton:equality:*), whose
right answers are known; bad input is an ImportFailedError naming the prim that leaves the builder as it was."""

import math
import warnings

import numpy as np
import pytest
from usd_helpers import HEADER, fingerprint

import newton_gym as ng
from newton_gym.errors import ImportFailedError
from newton_gym.usd import UsdImportWarning


def _body(name, pos=(0, 0, 0)):
    return f'''
def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.1, 0.1, 0.1)
    double3 xformOp:translate = {pos}
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}'''


# a: root (free); b hinged to a about Y; c slides on a along X; d: a ball on a
TREE = (
    _body("a")
    + _body("b", (1, 0, 0))
    + _body("c", (0, 1, 0))
    + _body("d", (0, 0, 1))
    + """
def PhysicsRevoluteJoint "hinge" {
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (1, 0, 0)
    uniform token physics:axis = "Y"
}
def PhysicsPrismaticJoint "slide" {
    rel physics:body0 = </a>
    rel physics:body1 = </c>
    point3f physics:localPos0 = (0, 1, 0)
}
def PhysicsSphericalJoint "ball" {
    rel physics:body0 = </a>
    rel physics:body1 = </d>
    point3f physics:localPos0 = (0, 0, 1)
}
"""
)


def _coupling(name="couple", joint1="</hinge>", joint2="</slide>", extra=""):
    """A joint-equality prim; a joint None is left unauthored."""
    rel1 = f"rel newton:equality:joint1 = {joint1}" if joint1 else ""
    rel2 = f"rel newton:equality:joint2 = {joint2}" if joint2 else ""
    return f'''
def "{name}" {{
    uniform token newton:equality:type = "joint"
    {rel1}
    {rel2}
    {extra}
}}'''


def _import(write_usda, text, builder=None, **kw):
    builder = builder or ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        result = builder.add_usd(write_usda(HEADER + text), **kw)
    return builder, result


def test_joint_equality_prim_becomes_a_joint_coupling_in_si_units(write_usda):
    # q_hinge [deg] = 5 + 2 q_slide [m] + 3 q_slide^2  ->  radians: every coefficient times pi / 180
    extra = """uniform double[] newton:equality:polycoef = [5, 2, 3, 0, 0]
    uniform double[] mjc:solref = [0.05, 0.5]
    uniform double[] mjc:solimp = [0.8, 0.9, 0.01]"""
    builder, result = _import(write_usda, TREE + _coupling(extra=extra))
    te = builder.tables["equality"]
    e = result["path_equality_map"]["/couple"]
    assert te.value("type", e) == ng.EqType.JOINT
    assert te.value("joint1", e) == result["path_joint_map"]["/hinge"]
    assert te.value("joint2", e) == result["path_joint_map"]["/slide"]
    np.testing.assert_allclose(te.value("polycoef", e), np.array([5, 2, 3, 0, 0]) * math.pi / 180)
    np.testing.assert_allclose(te.value("solref", e), [0.05, 0.5])
    np.testing.assert_allclose(te.value("solimp", e), [0.8, 0.9, 0.01, 0.5, 2.0])  # MuJoCo's tail
    assert te.value("enabled", e)
    assert result["resolved"]["/couple"]["solref"][1] == "mjc:solref (mjc)"


def test_joint_equality_defaults_and_a_leader_in_degrees(write_usda):
    # slide [m] = 0.1 + 0.5 hinge [deg]: per radian the linear coefficient is 0.5 * 180 / pi
    text = TREE + _coupling(
        joint1="</slide>", joint2="</hinge>", extra="uniform double[] newton:equality:polycoef = [0.1, 0.5, 0, 0, 0]"
    )
    builder, result = _import(write_usda, text + _coupling("fixed_value", joint1="</slide>", joint2=None))
    te = builder.tables["equality"]
    np.testing.assert_allclose(
        te.value("polycoef", result["path_equality_map"]["/couple"])[:2], [0.1, 0.5 * 180 / math.pi]
    )
    held = result["path_equality_map"]["/fixed_value"]
    assert te.value("joint2", held) == -1
    np.testing.assert_allclose(te.value("polycoef", held), [0, 1, 0, 0, 0])  # MuJoCo's default polycoef
    np.testing.assert_allclose(te.value("solref", held), [0.02, 1.0])  # MuJoCo's defaults


def test_inactive_joint_equality_is_imported_switched_off(write_usda):
    builder, result = _import(write_usda, TREE + _coupling(extra="uniform bool newton:equality:active = 0"))
    assert not builder.tables["equality"].value("enabled", result["path_equality_map"]["/couple"])


def test_loop_joints_take_mjc_parameters_and_a_disabled_one_becomes_a_switched_off_constraint(write_usda):
    text = (
        _body("p")
        + _body("q", (1, 0, 0))
        + """
def PhysicsFixedJoint "weld" (prepend apiSchemas = ["MjcEqualityWeldAPI"]) {
    rel physics:body0 = </p>
    rel physics:body1 = </q>
    point3f physics:localPos0 = (1, 0, 0)
    bool physics:excludeFromArticulation = 1
    uniform double[] mjc:solref = [0.04, 2]
    uniform double[] mjc:solimp = [0.5, 0.6, 0.002, 0.3, 4]
    uniform double mjc:torqueScale = 0.25
}
def PhysicsSphericalJoint "socket" (prepend apiSchemas = ["MjcEqualityConnectAPI"]) {
    rel physics:body0 = </p>
    rel physics:body1 = </q>
    point3f physics:localPos0 = (0.5, 0, 0)
    point3f physics:localPos1 = (-0.5, 0, 0)
    bool physics:excludeFromArticulation = 1
    bool physics:jointEnabled = 0
}
"""
    )
    builder, result = _import(write_usda, text)
    te = builder.tables["equality"]
    weld, socket = result["path_equality_map"]["/weld"], result["path_equality_map"]["/socket"]
    np.testing.assert_allclose(te.value("solref", weld), [0.04, 2.0])
    np.testing.assert_allclose(te.value("solimp", weld), [0.5, 0.6, 0.002, 0.3, 4.0])
    assert te.value("torquescale", weld) == pytest.approx(0.25)
    assert te.value("enabled", weld)
    assert te.value("type", socket) == ng.EqType.CONNECT and not te.value("enabled", socket)
    np.testing.assert_allclose(te.value("solref", socket), [0.02, 1.0])  # MuJoCo's default


def test_connect_whose_frames_are_apart_warns(write_usda):
    text = (
        _body("p")
        + _body("q", (1, 0, 0))
        + """
def PhysicsSphericalJoint "socket" {
    rel physics:body0 = </p>
    rel physics:body1 = </q>
    point3f physics:localPos0 = (0.2, 0, 0)
    bool physics:excludeFromArticulation = 1
}
"""
    )
    with pytest.warns(UsdImportWarning, match=r"/socket: the spherical joint's frames are 0\.8 m apart"):
        ng.ModelBuilder().add_usd(write_usda(HEADER + text))


def test_joint_outside_the_imported_range_skips_the_constraint_with_a_warning(write_usda):
    text = TREE.replace('def PhysicsPrismaticJoint "slide"', 'def PhysicsPrismaticJoint "slide_x"') + _coupling(
        joint2="</slide_x>"
    )
    with pytest.warns(
        UsdImportWarning, match="/couple: newton:equality:joint2 targets /slide_x, which is not imported"
    ):
        builder = ng.ModelBuilder()
        result = builder.add_usd(write_usda(HEADER + text), ignore_paths=["/slide_x"])
    assert result["path_equality_map"] == {}


@pytest.mark.parametrize(
    "coupling, match",
    [
        (_coupling(joint2="</nowhere>"), "/couple: newton:equality:joint2 targets /nowhere, which does not exist"),
        (_coupling(joint1="</a>"), "/couple: newton:equality:joint1 targets /a, which is not a joint"),
        (_coupling(joint1="</ball>"), "a joint with 3 DOFs; joint equalities couple one-DOF"),
        (_coupling(joint1=None), "joint equality has no newton:equality:joint1"),
        (_coupling(joint1="[</hinge>, </slide>]"), "newton:equality:joint1 targets 2 prims"),
        (_coupling(joint2="</hinge>"), "joint1 and newton:equality:joint2 are the same joint"),
        (_coupling(extra="uniform double[] newton:equality:polycoef = [1, 2, 3]"), "expected 5 finite numbers"),
        (_coupling(extra="uniform double[] newton:equality:polycoef = [0, 1, nan, 0, 0]"), "expected 5 finite numbers"),
        (_coupling(extra="uniform double[] newton:equality:polycoef = [0, 1, inf, 0, 0]"), "expected 5 finite numbers"),
        (_coupling(extra='uniform token newton:equality:polycoef = "x"'), "newton:equality:polycoef"),
        (
            _coupling().replace('type = "joint"', 'type = "weld"'),
            "attribute newton:equality:type: unknown equality type 'weld'",
        ),
        (_coupling(extra="uniform double[] mjc:solref = [0.02, nan]"), "mjc:solref"),
    ],
)
def test_bad_joint_equality_fails_naming_the_prim_and_leaves_the_builder_unchanged(write_usda, coupling, match):
    builder = ng.ModelBuilder()
    builder.add_ground_plane()
    before = fingerprint(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        with pytest.raises(ImportFailedError) as info:
            builder.add_usd(write_usda(HEADER + TREE + coupling))
    assert match in str(info.value), str(info.value)
    assert "stage.usda" in str(info.value) and "/couple" in str(info.value)
    assert fingerprint(builder) == before, "a failed add_usd changed the builder"


# Two fixed tendons over the hinge and the slide (a tendon's length is in stage lengths)
TENDONS = """
def MjcTendon "lead" {
    uniform token mjc:type = "fixed"
    rel mjc:path = </slide>
    uniform double[] mjc:path:coef = [1]
}
def MjcTendon "follow" {
    uniform token mjc:type = "fixed"
    rel mjc:path = </hinge>
    uniform double[] mjc:path:coef = [0.5]
}
"""


def _tendon_coupling(name="tc", tendon1="</follow>", tendon2="</lead>", extra=""):
    rel1 = f"rel newton:equality:tendon1 = {tendon1}" if tendon1 else ""
    rel2 = f"rel newton:equality:tendon2 = {tendon2}" if tendon2 else ""
    return f'''
def "{name}" {{
    uniform token newton:equality:type = "tendon"
    {rel1}
    {rel2}
    {extra}
}}'''


def test_tendon_equality_prim_becomes_a_tendon_coupling_in_si_units(write_usda):
    # L_follow = 0.1 + 2 L_lead + 3 L_lead^2 in centimetres (metersPerUnit 0.01): in metres c_k 0.01^(1 - k)
    header = HEADER.replace("metersPerUnit = 1", "metersPerUnit = 0.01")
    extra = "uniform double[] newton:equality:polycoef = [0.1, 2, 3, 0, 0]\n    uniform bool newton:equality:active = 0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        builder = ng.ModelBuilder()
        result = builder.add_usd(write_usda(header + TREE + TENDONS + _tendon_coupling(extra=extra)))
    te = builder.tables["equality"]
    e = result["path_equality_map"]["/tc"]
    assert te.value("type", e) == ng.EqType.TENDON
    assert te.value("tendon1", e) == result["path_tendon_map"]["/follow"]
    assert te.value("tendon2", e) == result["path_tendon_map"]["/lead"]
    np.testing.assert_allclose(te.value("polycoef", e), [0.001, 2, 300, 0, 0])
    assert not te.value("enabled", e)


@pytest.mark.parametrize(
    "coupling, match",
    [
        (_tendon_coupling(tendon1=None), "tendon equality has no newton:equality:tendon1"),
        (_tendon_coupling(tendon2="</hinge>"), "newton:equality:tendon2 targets /hinge, which is not an MjcTendon"),
        (_tendon_coupling(tendon2="</nowhere>"), "targets /nowhere, which does not exist"),
        (_tendon_coupling(tendon2="</follow>"), "tendon1 and newton:equality:tendon2 are the same tendon"),
        (_tendon_coupling(extra="uniform double[] newton:equality:polycoef = [0, 1, nan, 0, 0]"), "5 finite numbers"),
    ],
)
def test_bad_tendon_equality_fails_naming_the_prim_and_leaves_the_builder_unchanged(write_usda, coupling, match):
    builder = ng.ModelBuilder()
    builder.add_ground_plane()
    before = fingerprint(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        with pytest.raises(ImportFailedError) as info:
            builder.add_usd(write_usda(HEADER + TREE + TENDONS + coupling))
    assert match in str(info.value), str(info.value)
    assert "/tc" in str(info.value)
    assert fingerprint(builder) == before, "a failed add_usd changed the builder"
