"""Stage units and up axis: Y-up stages are rotated onto the builder's up axis, centimetre stages are
scaled to metres (gravity 9.81, never 981), kilogramsPerUnit scales masses."""

import math

import numpy as np
import pytest
from usd_helpers import assert_fk_matches_authored

import newton_gym as ng
from newton_gym.sim.hostmath import quat_rotate
from newton_gym.usd import UsdImportWarning

# Warnings other than the one a test checks are expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::newton_gym.usd.UsdImportWarning")


def _pendulum(header, scale=1.0, gravity="", up="Z"):
    """A box link hanging from a revolute joint to the world; lengths in stage units (``scale`` per m)."""
    s = scale
    pos = (0, 0, 2 * s) if up == "Z" else (0, 2 * s, 0)
    return (
        header
        + f"""
def PhysicsScene "scene" {{
{gravity}
}}
def Xform "link" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {{
    double3 xformOp:translate = {pos}
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "box" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{
        double size = {0.2 * s}
    }}
}}
def PhysicsRevoluteJoint "hinge" {{
    rel physics:body1 = </link>
    point3f physics:localPos0 = {tuple(p + (0.5 * s if i == (2 if up == "Z" else 1) else 0) for i, p in enumerate(pos))}
    point3f physics:localPos1 = {(0, 0, 0.5 * s) if up == "Z" else (0, 0.5 * s, 0)}
    uniform token physics:axis = "X"
    float physics:lowerLimit = -90
    float physics:upperLimit = 90
}}
"""
    )


def _header(mpu=None, up=None, kpu=None):
    meta = [
        f"    metersPerUnit = {mpu}" if mpu is not None else None,
        f'    upAxis = "{up}"' if up else None,
        f"    kilogramsPerUnit = {kpu}" if kpu is not None else None,
    ]
    return "#usda 1.0\n(\n" + "\n".join(m for m in meta if m) + "\n)\n"


def test_y_up_stage_is_rotated_to_z_up(write_usda, quiet):
    text = _pendulum(
        _header(1, "Y"),
        gravity="    vector3f physics:gravityDirection = (0, -1, 0)\n    float physics:gravityMagnitude = 9.81",
        up="Y",
    )
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    assert result["up_axis"] == ng.Axis.Y
    assert builder.gravity == pytest.approx(-9.81, rel=1e-6)
    model = builder.finalize("cpu")
    # The link at stage (0, 2, 0) (2 m up along Y) is 2 m up along Z in the builder.
    np.testing.assert_allclose(model.body_q.numpy()[0][:3], [0, 0, 2], atol=1e-6)
    # Stage +Y is builder +Z: the shape frame's local axes rotate with it.
    up = quat_rotate(model.body_q.numpy()[0][3:], [0, 1, 0])
    np.testing.assert_allclose(up, [0, 0, 1], atol=1e-6)
    assert_fk_matches_authored(model)


def test_y_up_stage_into_a_y_up_builder_is_not_rotated(write_usda, quiet):
    text = _pendulum(_header(1, "Y"), up="Y")
    builder = ng.ModelBuilder(up_axis=ng.Axis.Y)
    builder.add_usd(write_usda(text))
    np.testing.assert_allclose(builder.body_q[0], [0, 2, 0, 0, 0, 0, 1], atol=1e-9)
    assert builder.gravity == pytest.approx(-9.81)


def test_centimetre_stage_scales_lengths_and_gravity(write_usda, quiet):
    text = _pendulum(_header(0.01, "Z"), scale=100.0, gravity="    float physics:gravityMagnitude = 981")
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    assert result["meters_per_unit"] == pytest.approx(0.01)
    assert builder.gravity == pytest.approx(-9.81, rel=1e-6)
    model = builder.finalize("cpu")
    np.testing.assert_allclose(model.body_q.numpy()[0][:3], [0, 0, 2], atol=1e-5)
    np.testing.assert_allclose(model.shape_scale.numpy()[0], [0.1, 0.1, 0.1], rtol=1e-6)
    # Default density 1000 kg/m^3 applies in metres: a 20 cm cube weighs 8 kg.
    assert model.body_mass.numpy()[0] == pytest.approx(8.0, rel=1e-5)
    np.testing.assert_allclose(model.joint_X_p.numpy()[0][:3], [0, 0, 2.5], atol=1e-5)
    assert_fk_matches_authored(model)


def test_centimetre_stage_without_authored_gravity_gets_9_81(write_usda, quiet):
    """UsdPhysics' default for a centimetre stage is 981 cm/s^2: converted, that is 9.81 m/s^2."""
    text = _pendulum(_header(0.01, "Z"), scale=100.0)
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    assert builder.gravity == pytest.approx(-9.81)
    assert result["gravity"] == pytest.approx((0, 0, -9.81))


def test_stage_without_units_is_read_in_metres_with_a_warning(write_usda):
    text = _pendulum('#usda 1.0\n(\n    upAxis = "Z"\n)\n')
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning, match="no metersPerUnit"):
        builder.add_usd(write_usda(text))
    assert builder.gravity == pytest.approx(-9.81)  # not UsdPhysics' 981 for the cm fallback
    model = builder.finalize("cpu")
    assert model.body_mass.numpy()[0] == pytest.approx(8.0, rel=1e-5)  # 1000 kg/m^3, not 1000 kg/cm^3 * 1e-6
    np.testing.assert_allclose(model.body_q.numpy()[0][:3], [0, 0, 2])


def test_kilograms_per_unit_scales_mass_and_inertia(write_usda, quiet):
    text = (
        _header(1, "Z", kpu=0.001)
        + """
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = 2000
    float3 physics:diagonalInertia = (1000, 2000, 2500)
    point3f physics:centerOfMass = (0, 0, 0)
}
"""
    )
    builder = ng.ModelBuilder()
    builder.add_usd(write_usda(text))
    model = builder.finalize("cpu")
    assert model.body_mass.numpy()[0] == pytest.approx(2.0)
    np.testing.assert_allclose(np.diag(model.body_inertia.numpy()[0]), [1.0, 2.0, 2.5], rtol=1e-6)


def test_xform_argument_places_the_stage(write_usda, quiet):
    text = _pendulum(_header(1, "Z"))
    builder = ng.ModelBuilder()
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    builder.add_usd(write_usda(text), xform=(1, 2, 3, 0, 0, s, c))
    model = builder.finalize("cpu")
    np.testing.assert_allclose(model.body_q.numpy()[0][:3], [1, 2, 5], atol=1e-6)
    assert_fk_matches_authored(model)


def test_gravity_off_axis_warns(write_usda):
    text = _pendulum(
        _header(1, "Z"),
        gravity="    vector3f physics:gravityDirection = (1, 0, -1)\n    float physics:gravityMagnitude = 10",
    )
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning, match="not along the builder's up axis"):
        result = builder.add_usd(write_usda(text))
    assert result["gravity"] == pytest.approx((10 / math.sqrt(2), 0, -10 / math.sqrt(2)), rel=1e-6)
    assert builder.gravity == pytest.approx(-10 / math.sqrt(2), rel=1e-6)
