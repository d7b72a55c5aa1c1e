"""Mass and inertia precedence (seed 000): authored values first, each property on its own, then
UsdPhysics.ComputeMassProperties with unit-density collider data; skip-with-warning; non-positive mass."""

import math
import warnings

import numpy as np
import pytest
from usd_helpers import HEADER

import newton_gym as ng
from newton_gym.sim.hostmath import quat_from_axis_angle, quat_to_matrix
from newton_gym.usd import UsdImportWarning, stage_mass

# Warnings other than the one a test checks are expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::newton_gym.usd.UsdImportWarning")

BOX_AND_SPHERE = """
    def Cube "box" (prepend apiSchemas = ["PhysicsCollisionAPI"{box_api}]) {{
        double size = 0.2
        double3 xformOp:translate = (0.3, 0, 0)
        quatd xformOp:orient = (0.9238795325112867, 0, 0, 0.3826834323650898)
        float3 xformOp:scale = (1, 2, 3)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]
{box_extra}
    }}
    def Sphere "ball" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"]) {{
        double radius = 0.1
        double3 xformOp:translate = (0, 0.2, 0.1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        rel material:binding:physics = </mat>
    }}
"""


def _stage(body_attrs="", box_api="", box_extra=""):
    return (
        HEADER
        + """
def Material "mat" (prepend apiSchemas = ["PhysicsMaterialAPI"]) {
    float physics:density = 400
}
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
"""
        + body_attrs
        + BOX_AND_SPHERE.format(box_api=box_api, box_extra=box_extra)
        + "}\n"
    )


def _reference(box_density=1000.0, ball_density=400.0):
    """The same colliders through the builder's own density accumulation (an independent route)."""
    b = ng.ModelBuilder()
    body = b.add_link()
    q = quat_from_axis_angle([0, 0, 1], math.pi / 4)
    b.add_shape_box(body, (0.3, 0, 0, *q), 0.1, 0.2, 0.3, cfg=ng.ModelBuilder.ShapeConfig(density=box_density))
    b.add_shape_sphere(body, (0, 0.2, 0.1, 0, 0, 0, 1), 0.1, cfg=ng.ModelBuilder.ShapeConfig(density=ball_density))
    m = b.finalize("cpu")
    return m.body_mass.numpy()[0], m.body_com.numpy()[0], m.body_inertia.numpy()[0]


def _import(write_usda, text, **kw):
    builder = ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        result = builder.add_usd(write_usda(text), **kw)
    model = builder.finalize("cpu")
    return model.body_mass.numpy()[0], model.body_com.numpy()[0], model.body_inertia.numpy()[0], result, model


def test_nothing_authored_uses_collider_geometry_and_densities(write_usda):
    mass, com, inertia, _, _ = _import(write_usda, _stage())
    ref_mass, ref_com, ref_inertia = _reference()
    assert mass == pytest.approx(ref_mass, rel=1e-5)
    np.testing.assert_allclose(com, ref_com, atol=1e-6)
    np.testing.assert_allclose(inertia, ref_inertia, rtol=1e-4, atol=1e-8)


def test_collider_density_overrides_the_default(write_usda):
    mass, com, inertia, _, _ = _import(
        write_usda, _stage(box_api=', "PhysicsMassAPI"', box_extra="        float physics:density = 250")
    )
    ref_mass, ref_com, ref_inertia = _reference(box_density=250.0)
    assert mass == pytest.approx(ref_mass, rel=1e-5)
    np.testing.assert_allclose(com, ref_com, atol=1e-6)
    np.testing.assert_allclose(inertia, ref_inertia, rtol=1e-4, atol=1e-8)


def test_authored_mass_scales_collider_inertia(write_usda):
    mass, com, inertia, _, _ = _import(write_usda, _stage("    float physics:mass = 3\n"))
    ref_mass, ref_com, ref_inertia = _reference()
    assert mass == pytest.approx(3.0)
    np.testing.assert_allclose(com, ref_com, atol=1e-6)
    np.testing.assert_allclose(inertia, ref_inertia * 3.0 / ref_mass, rtol=1e-4, atol=1e-8)


def test_fully_authored_skips_compute_mass_properties(write_usda, monkeypatch):
    def boom(*args):
        raise AssertionError("ComputeMassProperties must not run when everything is authored")

    monkeypatch.setattr(stage_mass, "_compute_fallback", boom)
    text = _stage(
        "    float physics:mass = 2\n    float3 physics:diagonalInertia = (1, 2, 2.5)\n"
        "    point3f physics:centerOfMass = (0.1, 0, 0)\n"
    )
    mass, com, inertia, _, _ = _import(write_usda, text)
    assert mass == pytest.approx(2.0)
    np.testing.assert_allclose(com, [0.1, 0, 0], atol=1e-7)
    np.testing.assert_allclose(inertia, np.diag([1, 2, 2.5]))  # no principalAxes: identity


def test_authored_principal_axes_rotate_the_inertia(write_usda):
    text = _stage(
        "    float physics:mass = 2\n    float3 physics:diagonalInertia = (1, 2, 2.5)\n"
        "    point3f physics:centerOfMass = (0, 0, 0)\n"
        "    quatf physics:principalAxes = (0.70710677, 0, 0, 0.70710677)\n"
    )
    _, _, inertia, _, _ = _import(write_usda, text)
    rot = quat_to_matrix(quat_from_axis_angle([0, 0, 1], math.pi / 2))
    np.testing.assert_allclose(inertia, rot @ np.diag([1, 2, 2.5]) @ rot.T, atol=1e-6)


def test_each_property_resolved_on_its_own(write_usda):
    """Authored mass and inertia, no centre of mass: the COM comes from the colliders."""
    text = _stage("    float physics:mass = 2\n    float3 physics:diagonalInertia = (1, 2, 2.5)\n")
    mass, com, inertia, _, _ = _import(write_usda, text)
    _, ref_com, _ = _reference()
    assert mass == pytest.approx(2.0)
    np.testing.assert_allclose(com, ref_com, atol=1e-6)
    np.testing.assert_allclose(inertia, np.diag([1, 2, 2.5]), atol=1e-7)


def test_collider_mass_api_values_take_precedence_over_geometry(write_usda):
    """Level 1 of the collider precedence: authored collider mass and inertia."""
    extra = (
        "        float physics:mass = 5\n        float3 physics:diagonalInertia = (0.1, 0.2, 0.3)\n"
        "        point3f physics:centerOfMass = (0, 0, 0)"
    )
    mass, com, _, _, _ = _import(write_usda, _stage(box_api=', "PhysicsMassAPI"', box_extra=extra))
    ball = 400 * 4 / 3 * math.pi * 0.1**3
    assert mass == pytest.approx(5.0 + ball, rel=1e-5)
    np.testing.assert_allclose(
        com, (5.0 * np.array([0.3, 0, 0]) + ball * np.array([0, 0.2, 0.1])) / (5 + ball), atol=1e-6
    )


def test_collider_without_geometry_uses_its_authored_mass(write_usda):
    text = (
        HEADER
        + """
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    def Mesh "empty" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMassAPI"]) {
        float physics:mass = 1.5
        float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
        double3 xformOp:translate = (0, 0, 0.5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""
    )
    mass, com, inertia, _, _ = _import(write_usda, text)
    assert mass == pytest.approx(1.5)
    np.testing.assert_allclose(com, [0, 0, 0.5], atol=1e-6)
    np.testing.assert_allclose(inertia, np.eye(3) * 0.01, atol=1e-7)


def test_collider_without_any_mass_information_is_skipped_with_a_warning(write_usda):
    text = (
        HEADER
        + """
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    def Mesh "empty" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {}
    def Sphere "ball" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.1
    }
}
"""
    )
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning, match="/b/empty: collider has no usable mass information"):
        builder.add_usd(write_usda(text))
    assert builder.finalize("cpu").body_mass.numpy()[0] == pytest.approx(1000 * 4 / 3 * math.pi * 1e-3, rel=1e-5)


def test_non_positive_mass_gives_zero_inverse_mass(write_usda):
    text = (
        HEADER
        + """
def Xform "neg" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = -2
    float3 physics:diagonalInertia = (1, 1, 1)
    point3f physics:centerOfMass = (0, 0, 0)
}
def Xform "empty" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}
"""
    )
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning, match="/neg: resolved mass -2.0 is negative"):
        builder.add_usd(write_usda(text))
    model = builder.finalize("cpu")
    assert model.body_mass.numpy().tolist() == [0.0, 0.0]
    assert model.body_inv_mass.numpy().tolist() == [0.0, 0.0]


def test_cone_centre_of_mass_toward_its_base(write_usda):
    """UsdGeom.Cone's apex points along +axis (seed 002: base at -half_height, COM at -half_height / 2)."""
    text = (
        HEADER
        + """
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    def Cone "c" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        uniform token axis = "X"
        double radius = 0.25
        double height = 0.8
    }
}
"""
    )
    mass, com, _, _, _ = _import(write_usda, text)
    assert mass == pytest.approx(1000 * math.pi * 0.25**2 * 0.8 / 3, rel=1e-5)
    np.testing.assert_allclose(com, [-0.2, 0, 0], atol=1e-6)
