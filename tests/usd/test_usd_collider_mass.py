"""A rigid body prim that is itself a collider, without authored mass (project issue 13, F3): its mass
properties come from its own geometry at UsdPhysics' default density (1000 kg/m^3) or an authored one;
where no mass can be computed the import fails naming the prim instead of yielding a 0 kg body."""

import math

import numpy as np
import pytest
from usd_helpers import HEADER

import newton_gym as ng
from newton_gym.errors import ImportFailedError


def _import(write_usda, body):
    builder = ng.ModelBuilder()
    builder.add_usd(write_usda(HEADER + body))
    model = builder.finalize("cpu")
    return model.body_mass.numpy()[0], model.body_com.numpy()[0], model.body_inertia.numpy()[0]


def test_cube_body_collider_gets_default_density_mass(write_usda):
    mass, com, inertia = _import(
        write_usda,
        """
def Cube "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]) {
    double size = 0.2
    double3 xformOp:translate = (0, 0, 1)
    float3 xformOp:scale = (1, 2, 3)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
""",
    )
    x, y, z = 0.2, 0.4, 0.6  # full extents [m]
    m = 1000.0 * x * y * z
    assert mass == pytest.approx(m, rel=1e-6)
    np.testing.assert_allclose(com, 0.0, atol=1e-7)
    want = np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12.0
    np.testing.assert_allclose(inertia, want, rtol=1e-5, atol=1e-9)


def test_sphere_body_collider_uses_its_authored_density(write_usda):
    mass, com, inertia = _import(
        write_usda,
        """
def Sphere "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]) {
    double radius = 0.5
    float physics:density = 500
}
""",
    )
    m = 500.0 * 4.0 / 3.0 * math.pi * 0.5**3
    assert mass == pytest.approx(m, rel=1e-6)
    np.testing.assert_allclose(com, 0.0, atol=1e-7)
    np.testing.assert_allclose(inertia, np.eye(3) * 0.4 * m * 0.25, rtol=1e-5)


def test_authored_mass_scales_the_body_collider_inertia(write_usda):
    # Before the fix the body's own collider was ignored: mass 3 kg with zero inertia.
    mass, _, inertia = _import(
        write_usda,
        """
def Sphere "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]) {
    double radius = 0.5
    float physics:mass = 3
}
""",
    )
    assert mass == pytest.approx(3.0)
    np.testing.assert_allclose(inertia, np.eye(3) * 0.4 * 3.0 * 0.25, rtol=1e-5)


def test_body_collider_with_a_child_collider_sums_both(write_usda):
    mass, com, _ = _import(
        write_usda,
        """
def Sphere "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]) {
    double radius = 0.1
    def Cube "c" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double size = 0.2
        double3 xformOp:translate = (0.5, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
""",
    )
    m_sphere, m_cube = 1000.0 * 4.0 / 3.0 * math.pi * 0.1**3, 1000.0 * 0.2**3
    assert mass == pytest.approx(m_sphere + m_cube, rel=1e-6)
    np.testing.assert_allclose(com, [0.5 * m_cube / (m_sphere + m_cube), 0, 0], atol=1e-6)


def test_plane_body_collider_without_mass_is_a_named_error(write_usda):
    with pytest.raises(ImportFailedError, match=r"/b: rigid body is its own collider .* physics:mass"):
        _import(
            write_usda,
            """
def Plane "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]) {
}
""",
        )
