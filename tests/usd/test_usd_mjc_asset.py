"""MuJoCo-converter-style assets: mjc: attributes, MjcActuator prims, stacked hinges through massless
bodies, and a free root body with no joint prim (it gets a free joint)."""

import math
import os

import numpy as np
import pytest
from usd_helpers import HEADER, assert_fk_matches_authored

import newton_gym as ng

# torso (free, no joint prim) -> shoulder_x (hinge) -> massless helper -> shoulder_y (hinge) -> arm
ARM = (
    HEADER
    + """
def PhysicsScene "physicsScene" {
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
    custom uniform token mjc:compiler:angle = "degree"
    custom uniform double mjc:option:timestep = 0.005
    custom uniform int mjc:option:iterations = 50
}
def Xform "robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {
    def Xform "world" {
        def Plane "floor" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"]) {
            uniform token axis = "Z"
            rel material:binding:physics = </robot/materials/mat>
            custom uniform int mjc:contype = 1
            custom uniform int mjc:conaffinity = 1
        }
    }
    def Scope "materials" {
        def Material "mat" (prepend apiSchemas = ["PhysicsMaterialAPI"]) {
            float physics:dynamicFriction = 0.8
            float physics:staticFriction = 0.9
            custom uniform double mjc:torsionalfriction = 0.02
            custom uniform double mjc:rollingfriction = 0.003
        }
    }
    def Xform "torso" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
        point3f physics:centerOfMass = (0, 0, 0)
        float3 physics:diagonalInertia = (0.1, 0.1, 0.1)
        float physics:mass = 2
        quatf physics:principalAxes = (1, 0, 0, 0)
        double3 xformOp:translate = (0, 0, 1)
        quatd xformOp:orient = (1, 0, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
        def Sphere "torso_geom" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"]) {
            double radius = 0.2
            rel material:binding:physics = </robot/materials/mat>
            custom uniform int mjc:contype = 1
            custom uniform int mjc:conaffinity = 0
            custom uniform double mjc:margin = 0.01
            custom uniform double mjc:gap = 0.004
            custom uniform int mjc:condim = 4
            custom uniform double[] mjc:solref = [0.01, 0.5]
            custom uniform double[] mjc:solimp = [0.8, 0.9, 0.002]
        }
    }
    def Xform "arm__shoulder_x" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
        point3f physics:centerOfMass = (0, 0, 0)
        float3 physics:diagonalInertia = (0, 0, 0)
        float physics:mass = 0
        quatf physics:principalAxes = (1, 0, 0, 0)
        double3 xformOp:translate = (0.3, 0, 1)
        quatd xformOp:orient = (1, 0, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
    }
    def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
        point3f physics:centerOfMass = (0.2, 0, 0)
        float3 physics:diagonalInertia = (0.001, 0.02, 0.02)
        float physics:mass = 1
        quatf physics:principalAxes = (1, 0, 0, 0)
        double3 xformOp:translate = (0.3, 0, 1)
        quatd xformOp:orient = (1, 0, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
        def Capsule "arm_geom" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            uniform token axis = "X"
            double radius = 0.05
            double height = 0.3
            double3 xformOp:translate = (0.2, 0, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
            custom uniform int mjc:contype = 1
            custom uniform int mjc:conaffinity = 0
        }
    }
    def Scope "joints" {
        def PhysicsRevoluteJoint "shoulder_x" {
            rel physics:body0 = </robot/torso>
            rel physics:body1 = </robot/arm__shoulder_x>
            point3f physics:localPos0 = (0.3, 0, 0)
            point3f physics:localPos1 = (0, 0, 0)
            uniform token physics:axis = "X"
            float physics:lowerLimit = -45
            float physics:upperLimit = 45
            custom uniform double mjc:armature = 0.05
            custom uniform double mjc:damping = 0.7
            custom uniform double mjc:frictionloss = 0.2
            custom uniform double mjc:stiffness = 3
            custom uniform double mjc:springref = 10
            custom uniform double[] mjc:solreflimit = [0.04, 2]
        }
        def PhysicsRevoluteJoint "shoulder_y" {
            rel physics:body0 = </robot/arm__shoulder_x>
            rel physics:body1 = </robot/arm>
            point3f physics:localPos0 = (0, 0, 0)
            point3f physics:localPos1 = (0, 0, 0)
            quatf physics:localRot0 = (0.70710677, 0, 0, 0.70710677)
            quatf physics:localRot1 = (0.70710677, 0, 0, 0.70710677)
            uniform token physics:axis = "X"
            float physics:lowerLimit = -90
            float physics:upperLimit = 10
            custom uniform double mjc:armature = 0.02
        }
    }
    def Scope "actuators" {
        def MjcActuator "motor_x" {
            custom uniform double[] mjc:gear = [40, 0, 0, 0, 0, 0]
            custom uniform token mjc:ctrlLimited = "true"
            custom uniform double mjc:ctrlRange:min = -1
            custom uniform double mjc:ctrlRange:max = 1
            custom uniform token mjc:forceLimited = "true"
            custom uniform double mjc:forceRange:min = -30
            custom uniform double mjc:forceRange:max = 30
            custom uniform token mjc:gainType = "fixed"
            custom uniform double[] mjc:gainPrm = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            custom uniform token mjc:biasType = "none"
            custom uniform double[] mjc:biasPrm = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            custom rel mjc:target = </robot/joints/shoulder_x>
        }
        def MjcActuator "servo_y" {
            custom uniform double[] mjc:gear = [1, 0, 0, 0, 0, 0]
            custom uniform token mjc:ctrlLimited = "auto"
            custom uniform double mjc:ctrlRange:min = -1.5
            custom uniform double mjc:ctrlRange:max = 0.2
            custom uniform token mjc:gainType = "fixed"
            custom uniform double[] mjc:gainPrm = [25, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            custom uniform token mjc:biasType = "affine"
            custom uniform double[] mjc:biasPrm = [0, -25, -2, 0, 0, 0, 0, 0, 0, 0]
            custom rel mjc:target = </robot/joints/shoulder_y>
        }
    }
}
"""
)


@pytest.fixture
def arm(write_usda, quiet):
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(ARM))
    return builder, result


def test_free_root_and_stacked_hinges(arm):
    builder, result = arm
    assert builder.body_key == ["/robot/torso", "/robot/arm__shoulder_x", "/robot/arm"]
    assert builder.joint_key == ["/robot/torso:free", "/robot/joints/shoulder_x", "/robot/joints/shoulder_y"]
    assert builder.joint_type.tolist() == [ng.JointType.FREE, ng.JointType.REVOLUTE, ng.JointType.REVOLUTE]
    model = builder.finalize("cpu")
    assert model.body_mass.numpy().tolist() == pytest.approx([2.0, 0.0, 1.0])
    assert model.body_inv_mass.numpy()[1] == 0.0
    np.testing.assert_allclose(model.body_inertia.numpy()[1], np.zeros((3, 3)))
    np.testing.assert_allclose(model.body_com.numpy()[2], [0.2, 0, 0], atol=1e-7)
    assert_fk_matches_authored(model)
    # Free-joint coordinates are the torso's pose.
    np.testing.assert_allclose(model.joint_q.numpy()[:7], [0, 0, 1, 0, 0, 0, 1], atol=1e-7)


def test_mjc_joint_attributes(arm):
    builder, result = arm
    model = builder.finalize("cpu")
    d = model.joint_qd_start.numpy()[result["path_joint_map"]["/robot/joints/shoulder_x"]]
    assert model.joint_armature.numpy()[d] == pytest.approx(0.05)
    assert model.joint_damping.numpy()[d] == pytest.approx(0.7)
    assert model.joint_friction.numpy()[d] == pytest.approx(0.2)
    assert model.joint_spring_stiffness.numpy()[d] == pytest.approx(3.0)
    assert model.joint_spring_ref.numpy()[d] == pytest.approx(math.radians(10), rel=1e-6)  # compiler angle degree
    tc, dr = 0.04, 2.0
    assert model.joint_limit_ke.numpy()[d] == pytest.approx(1 / (tc * tc * dr * dr), rel=1e-6)
    assert model.joint_limit_kd.numpy()[d] == pytest.approx(2 / tc, rel=1e-6)
    assert model.joint_limit_lower.numpy()[d] == pytest.approx(-math.pi / 4, rel=1e-6)
    assert model.joint_armature.numpy()[d + 1] == pytest.approx(0.02)


def test_actuators_recorded(arm):
    builder, result = arm
    acts = {a["path"]: a for a in result["actuators"]}
    motor, servo = acts["/robot/actuators/motor_x"], acts["/robot/actuators/servo_y"]
    assert motor["joint"] == result["path_joint_map"]["/robot/joints/shoulder_x"]
    assert motor["dof"] == 6 and motor["dof_count"] == 1
    assert motor["gear"] == [40, 0, 0, 0, 0, 0]
    assert motor["ctrl_range"] == (-1, 1) and motor["ctrl_limited"] is True
    assert motor["force_range"] == (-30, 30) and motor["force_limited"] is True
    assert motor["gain_type"] == "fixed" and motor["bias_type"] == "none"
    assert servo["dof"] == 7
    assert servo["ctrl_limited"] is True  # "auto" with a non-empty range
    assert servo["gain_prm"][0] == 25 and servo["bias_prm"][:3] == [0, -25, -2]
    assert servo["force_limited"] is False  # "auto" with the default empty range


def test_scene_shapes_and_contact_filtering(arm):
    builder, result = arm
    assert result["physics_dt"] == pytest.approx(0.005)
    assert result["max_solver_iterations"] == 50
    model = builder.finalize("cpu")
    s = result["path_shape_map"]["/robot/torso/torso_geom"]
    assert model.shape_contact_margin.numpy()[s] == pytest.approx(0.01 - 0.004)
    assert model.shape_contact_gap.numpy()[s] == pytest.approx(0.004)
    assert model.shape_condim.numpy()[s] == 4
    np.testing.assert_allclose(model.shape_solref.numpy()[s], [0.01, 0.5], rtol=1e-6)
    np.testing.assert_allclose(model.shape_solimp.numpy()[s], [0.8, 0.9, 0.002, 0.5, 2.0], rtol=1e-6)
    assert model.shape_material_mu.numpy()[s] == pytest.approx(0.8)
    assert model.shape_material_mu_torsional.numpy()[s] == pytest.approx(0.02)
    assert model.shape_material_mu_rolling.numpy()[s] == pytest.approx(0.003)
    # contype 1 / conaffinity 0 on every robot geom: no self contacts (the articulation's flag), but the
    # floor (1 / 1) touches them all, so no pair with it is filtered.
    assert model.articulation_self_collision.numpy().tolist() == [False]
    floor = result["path_shape_map"]["/robot/world/floor"]
    assert model.shape_body.numpy()[floor] == -1
    assert not any(floor in p for p in builder.shape_collision_filter_pairs)


ROBOTS = os.path.join(os.path.dirname(ng.__file__), "assets", "robots")


@pytest.mark.parametrize("name", ["ant", "humanoid"])
def test_shipped_asset_matches_mujoco(name, quiet):
    """The converter's USD of a Gymnasium model against MuJoCo's compile of the MJCF: hinge ranges,
    armature, damping, gear, body masses and the total mass (the humanoid's stacked hinges run through
    massless helper bodies)."""
    mujoco = pytest.importorskip("mujoco")
    usd, xml = os.path.join(ROBOTS, f"{name}.usda"), os.path.join(ROBOTS, f"{name}.xml")
    if not (os.path.exists(usd) and os.path.exists(xml)):
        pytest.skip("shipped asset not present")
    mj = mujoco.MjModel.from_xml_path(xml)
    builder = ng.ModelBuilder()
    result = builder.add_usd(usd)
    model = builder.finalize("cpu")
    assert model.body_mass.numpy().sum() == pytest.approx(mj.body_mass.sum(), rel=1e-5)
    by_name = {path.rsplit("/", 1)[-1]: j for path, j in result["path_joint_map"].items()}
    qd_start = model.joint_qd_start.numpy()
    for j in range(mj.njnt):
        if mj.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
            continue
        jname = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, j)
        d = qd_start[by_name[jname]]
        if mj.jnt_limited[j]:
            np.testing.assert_allclose(
                [model.joint_limit_lower.numpy()[d], model.joint_limit_upper.numpy()[d]],
                mj.jnt_range[j],
                rtol=1e-5,
                atol=1e-6,
            )
        assert model.joint_armature.numpy()[d] == pytest.approx(mj.dof_armature[mj.jnt_dofadr[j]])
        assert model.joint_damping.numpy()[d] == pytest.approx(mj.dof_damping[mj.jnt_dofadr[j]])
    bodies = {path.rsplit("/", 1)[-1]: b for path, b in result["path_body_map"].items()}
    for b in range(1, mj.nbody):
        bname = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, b)
        if bname in bodies:  # the converter names unnamed bodies itself
            assert model.body_mass.numpy()[bodies[bname]] == pytest.approx(mj.body_mass[b], rel=1e-5)
    gears = sorted(a["gear"][0] for a in result["actuators"])
    assert gears == pytest.approx(sorted(mj.actuator_gear[:, 0]))
    assert len(result["actuators"]) == mj.nu
    assert_fk_matches_authored(model)
