"""A PhysX-authored ant-like robot (Isaac Sim style): densities instead of masses, drives and limits in
degrees, physx* attributes, an articulation root with self-collisions off."""

import math

import numpy as np
import pytest
from usd_helpers import HEADER, assert_fk_matches_authored

import newton_gym as ng

R_TORSO, R_LEG = 0.25, 0.08
LEG_DIRS = [(1, 1), (-1, 1), (-1, -1), (1, -1)]


def _leg(i, sx, sy):
    yaw = math.atan2(sy, sx)
    q = (math.cos(yaw / 2), 0, 0, math.sin(yaw / 2))  # w, x, y, z (USD order)
    hip = (0.2 * sx, 0.2 * sy, 0.0)  # in the torso frame
    a = 0.1 * math.sqrt(2)  # hip -> thigh centre -> knee -> shin centre, along the leg
    thigh_c = (0.3 * sx, 0.3 * sy, 0.75)
    shin_c = (0.6 * sx, 0.6 * sy, 0.75)
    return f"""
    def Xform "thigh_{i}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"]) {{
        float physics:mass = 0.5
        float physxRigidBody:linearDamping = 0.1
        double3 xformOp:translate = {thigh_c}
        quatd xformOp:orient = {q}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
        def Capsule "geom" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysxCollisionAPI"]) {{
            uniform token axis = "X"
            double radius = {R_LEG}
            double height = 0.2
            float physxCollision:contactOffset = 0.02
            float physxCollision:restOffset = 0.0
        }}
    }}
    def Xform "shin_{i}" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {{
        double3 xformOp:translate = {shin_c}
        quatd xformOp:orient = {q}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
        def Capsule "geom" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{
            uniform token axis = "X"
            double radius = {R_LEG}
            double height = 0.4
        }}
    }}
    def PhysicsRevoluteJoint "hip_{i}" (prepend apiSchemas = ["PhysicsDriveAPI:angular", "PhysxJointAPI",
                                                             "PhysxLimitAPI:angular", "PhysxJointAxisAPI:angular"]) {{
        rel physics:body0 = </World/ant/torso>
        rel physics:body1 = </World/ant/thigh_{i}>
        point3f physics:localPos0 = {hip}
        quatf physics:localRot0 = {q}
        point3f physics:localPos1 = ({-a:.9f}, 0, 0)
        uniform token physics:axis = "Z"
        float physics:lowerLimit = -30
        float physics:upperLimit = 30
        float drive:angular:physics:stiffness = 2
        float drive:angular:physics:damping = 0.1
        float drive:angular:physics:maxForce = 150
        float physxJoint:armature = 0.01
        float physxLimit:angular:stiffness = 3
        float physxJointAxis:angular:staticFrictionEffort = 0.4
        float physxJointAxis:angular:dynamicFrictionEffort = 0.3
        float physxJointAxis:angular:viscousFrictionCoefficient = 0.02
    }}
    def PhysicsRevoluteJoint "knee_{i}" (prepend apiSchemas = ["PhysicsDriveAPI:angular"]) {{
        rel physics:body0 = </World/ant/thigh_{i}>
        rel physics:body1 = </World/ant/shin_{i}>
        point3f physics:localPos0 = ({a:.9f}, 0, 0)
        point3f physics:localPos1 = ({-2 * a:.9f}, 0, 0)
        uniform token physics:axis = "Y"
        float physics:lowerLimit = 30
        float physics:upperLimit = 70
        float drive:angular:physics:stiffness = 5
        float drive:angular:physics:targetPosition = 45
        float state:angular:physics:position = 0
    }}"""


ANT = (
    HEADER
    + """
def PhysicsScene "physicsScene" (prepend apiSchemas = ["PhysxSceneAPI"]) {
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
    uint physxScene:timeStepsPerSecond = 120
    uint physxScene:maxVelocityIterationCount = 8
}
def Xform "World" {
  def Xform "ant" (prepend apiSchemas = ["PhysicsArticulationRootAPI", "PhysxArticulationAPI"]) {
    bool physxArticulation:enabledSelfCollisions = false
    def Xform "torso" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysxRigidBodyAPI"]) {
        bool physxRigidBody:disableGravity = true
        double3 xformOp:translate = (0, 0, 0.75)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Sphere "geom" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMassAPI"]) {
            double radius = 0.25
            float physics:density = 500
        }
    }"""
    + "".join(_leg(i, sx, sy) for i, (sx, sy) in enumerate(LEG_DIRS))
    + """
  }
}
"""
)


@pytest.fixture
def ant(write_usda, quiet):
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(ANT))
    return builder, result


def test_counts_and_scene(ant):
    builder, result = ant
    assert (builder.body_count, builder.joint_count, builder.joint_dof_count) == (9, 9, 14)
    assert builder.articulation_count == 1
    assert result["physics_dt"] == pytest.approx(1 / 120)
    assert result["max_solver_iterations"] == 8
    assert builder.gravity == pytest.approx(-9.81, rel=1e-6)
    assert result["auto_joint_map"] == {"/World/ant/torso:free": 0}
    assert builder.tables["articulation"].get("self_collision").tolist() == [False]


def test_masses_from_density_and_authored_mass(ant):
    builder, result = ant
    model = builder.finalize("cpu")
    mass = model.body_mass.numpy()
    torso = result["path_body_map"]["/World/ant/torso"]
    assert mass[torso] == pytest.approx(500 * 4 / 3 * math.pi * R_TORSO**3, rel=1e-5)
    np.testing.assert_allclose(model.body_inertia.numpy()[torso], np.eye(3) * 0.4 * mass[torso] * R_TORSO**2, rtol=1e-5)
    thigh = result["path_body_map"]["/World/ant/thigh_0"]
    assert mass[thigh] == pytest.approx(0.5)  # authored mass; inertia scaled from the capsule's
    # Capsule along X with radius r, half height h: the X moment is the capsule's axial one.
    r, h = R_LEG, 0.1
    vc, vs = math.pi * r * r * 2 * h, 4 / 3 * math.pi * r**3
    ixx = 0.5 * vc * r * r + 0.4 * vs * r * r
    assert model.body_inertia.numpy()[thigh][0, 0] == pytest.approx(0.5 * ixx / (vc + vs), rel=1e-4)
    shin = result["path_body_map"]["/World/ant/shin_0"]
    r, h = R_LEG, 0.2
    assert mass[shin] == pytest.approx(1000 * (math.pi * r * r * 2 * h + 4 / 3 * math.pi * r**3), rel=1e-5)


def test_joints_limits_drives_in_radians(ant):
    builder, result = ant
    model = builder.finalize("cpu")
    hip = result["path_joint_map"]["/World/ant/hip_0"]
    knee = result["path_joint_map"]["/World/ant/knee_0"]
    qd = model.joint_qd_start.numpy()
    h, k = qd[hip], qd[knee]
    lo, hi = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy()
    assert (lo[h], hi[h]) == pytest.approx((-math.pi / 6, math.pi / 6), rel=1e-6)
    assert (lo[k], hi[k]) == pytest.approx((math.radians(30), math.radians(70)), rel=1e-6)
    per_rad = 180 / math.pi
    assert model.joint_target_ke.numpy()[h] == pytest.approx(2 * per_rad, rel=1e-6)
    assert model.joint_target_kd.numpy()[h] == pytest.approx(0.1 * per_rad, rel=1e-6)
    assert model.joint_effort_limit.numpy()[h] == pytest.approx(150)
    assert model.joint_target_pos.numpy()[k] == pytest.approx(math.radians(45), rel=1e-6)
    assert model.joint_armature.numpy()[h] == pytest.approx(0.01)
    assert model.joint_limit_ke.numpy()[h] == pytest.approx(3 * per_rad, rel=1e-6)
    assert model.joint_limit_ke.numpy()[k] == pytest.approx(builder.default_joint_cfg.limit_ke)
    assert model.joint_friction.numpy()[h] == pytest.approx(0.4)
    assert model.joint_friction_dynamic.numpy()[h] == pytest.approx(0.3)
    assert model.joint_viscous_damping.numpy()[h] == pytest.approx(0.02 * per_rad, rel=1e-6)
    np.testing.assert_allclose(model.joint_axis.numpy()[[h, k]], [[0, 0, 1], [0, 1, 0]], atol=1e-7)


def test_frames_reproduce_authored_poses(ant):
    builder, _ = ant
    assert_fk_matches_authored(builder.finalize("cpu"))


def test_physx_body_and_shape_attributes(ant):
    builder, result = ant
    model = builder.finalize("cpu")
    torso = result["path_body_map"]["/World/ant/torso"]
    thigh = result["path_body_map"]["/World/ant/thigh_0"]
    assert model.usd.gravity_enabled.numpy()[[torso, thigh]].tolist() == [False, True]
    assert model.usd.linear_damping.numpy()[thigh] == pytest.approx(0.1)
    shape = result["path_shape_map"]["/World/ant/thigh_0/geom"]
    assert model.shape_contact_gap.numpy()[shape] == pytest.approx(0.02)
    assert model.shape_type.numpy()[shape] == ng.GeoType.CAPSULE
    # The capsule authored along X is turned onto X by its shape frame: local Z maps to body X.
    q = model.shape_transform.numpy()[shape][3:]
    from newton_gym.sim.hostmath import quat_rotate

    np.testing.assert_allclose(quat_rotate(q, [0, 0, 1]), [1, 0, 0], atol=1e-6)
    assert result["schema_attrs"]["physx"]["/World/ant"]["physxArticulation:enabledSelfCollisions"] is False
