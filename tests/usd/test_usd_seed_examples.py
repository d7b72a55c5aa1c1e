"""Seed 000's USD examples, verbatim: resolver priority, custom attributes, PhysX remapping."""

import warnings

import numpy as np
import pytest
from usd_helpers import HEADER

import newton_gym as ng
from newton_gym.usd import SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx, UsdImportWarning

# Warnings other than the one a test checks are expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::newton_gym.usd.UsdImportWarning")

# --- seed 000, "Configuring Resolver Priority" (verbatim, with the #usda header a file needs)
CONFLICTING = """#usda 1.0
def RevoluteJoint "shoulder_joint" {
    float newton:armature = 0.01
    float physxJoint:armature = 0.02
    float mjc:armature = 0.03
}
"""

ORDERS = [
    ([SchemaResolverNewton, SchemaResolverPhysx, SchemaResolverMjc], 0.01, "newton:armature (newton)"),
    ([SchemaResolverPhysx, SchemaResolverNewton, SchemaResolverMjc], 0.02, "physxJoint:armature (physx)"),
    ([SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx], 0.03, "mjc:armature (mjc)"),
]


@pytest.mark.parametrize("order, expected, source", ORDERS)
def test_resolver_priority_verbatim(write_usda, order, expected, source):
    path = write_usda(CONFLICTING)
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning, match="shoulder_joint.*'RevoluteJoint' is not a registered UsdPhysics"):
        result = builder.add_usd(source=path, schema_resolvers=[cls() for cls in order])
    value, where = result["resolved"]["/shoulder_joint"]["armature"]
    assert value == pytest.approx(expected)
    assert where == source
    assert builder.joint_count == 0  # the seed's prim is no UsdPhysics joint (and names no bodies)


@pytest.mark.parametrize("order, expected, source", ORDERS)
def test_resolver_priority_on_a_connected_joint(write_usda, order, expected, source):
    """The same three attributes on a joint that connects a body: the model's armature follows."""
    path = write_usda(
        HEADER
        + """
def Xform "link" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = 1
}
def PhysicsRevoluteJoint "shoulder_joint" {
    rel physics:body1 = </link>
    float newton:armature = 0.01
    float physxJoint:armature = 0.02
    float mjc:armature = 0.03
}
"""
    )
    builder = ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        builder.add_usd(path, schema_resolvers=[cls() for cls in order])
    model = builder.finalize("cpu")
    assert model.joint_armature.numpy()[0] == pytest.approx(expected)


def test_default_resolvers_keep_physx_armature(write_usda, quiet):
    """schema_resolvers=None reads all three engines, Newton first: a PhysX-only armature is kept."""
    path = write_usda(
        HEADER
        + """
def Xform "link" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}
def PhysicsRevoluteJoint "j" {
    rel physics:body1 = </link>
    float physxJoint:armature = 0.02
}
"""
    )
    builder = ng.ModelBuilder()
    builder.add_usd(path)
    assert builder.tables["dof"].get("armature")[0] == pytest.approx(0.02)


# --- seed 000, "USD Authoring with Custom Attributes" (verbatim)
CUSTOM = """#usda 1.0

def PhysicsScene "physicsScene" {
    # Declare custom attributes with metadata (default namespace)
    custom float newton:mass_scale = 1.0 (
        customData = {
            string assignment = "model"
            string frequency = "body"
        }
    )
    custom float3 newton:local_marker = (0.0, 0.0, 0.0) (
        customData = {
            string assignment = "model"
            string frequency = "body"
        }
    )
    custom bool newton:is_sensor = false (
        customData = {
            string assignment = "model"
            string frequency = "body"
        }
    )
    custom float3 newton:target_position = (0.0, 0.0, 0.0) (
        customData = {
            string assignment = "state"
            string frequency = "body"
        }
    )

    # Declare namespaced custom attributes (namespace_a)
    custom float newton:namespace_a:mass_scale = 1.0 (
        customData = {
            string assignment = "state"
            string frequency = "body"
        }
    )
    custom float newton:namespace_a:gear_ratio = 1.0 (
        customData = {
            string assignment = "model"
            string frequency = "joint"
        }
    )
    custom float2 newton:namespace_a:pid_gains = (0.0, 0.0) (
        customData = {
            string assignment = "control"
            string frequency = "joint"
        }
    )

    # Articulation frequency attribute
    custom float newton:articulation_stiffness = 100.0 (
        customData = {
            string assignment = "model"
            string frequency = "articulation"
        }
    )
}

def Xform "robot_body" (
    prepend apiSchemas = ["PhysicsRigidBodyAPI"]
) {
    # Assign values to declared attributes (default namespace)
    custom float newton:mass_scale = 1.5
    custom float3 newton:local_marker = (0.1, 0.2, 0.3)
    custom bool newton:is_sensor = true
    custom float3 newton:target_position = (1.0, 2.0, 3.0)

    # Assign values to namespaced attributes (namespace_a)
    custom float newton:namespace_a:mass_scale = 2.5
}

def RevoluteJoint "joint1" {
    # Assign joint attributes (namespace_a)
    custom float newton:namespace_a:gear_ratio = 2.25
    custom float2 newton:namespace_a:pid_gains = (100.0, 10.0)
}

# Articulation frequency attributes must be defined on the prim with PhysicsArticulationRootAPI
def Xform "robot_articulation" (
    prepend apiSchemas = ["PhysicsArticulationRootAPI"]
) {
    # Assign articulation-level attributes
    custom float newton:articulation_stiffness = 150.0
}
"""


def test_custom_attributes_verbatim(write_usda):
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning) as record:
        result = builder.add_usd(source=write_usda(CUSTOM))
    messages = " ".join(str(w.message) for w in record)
    assert "/joint1" in messages and "not a registered UsdPhysics type" in messages
    assert set(result["custom_attributes"]) >= {
        "mass_scale",
        "local_marker",
        "is_sensor",
        "target_position",
        "namespace_a:mass_scale",
        "namespace_a:gear_ratio",
        "namespace_a:pid_gains",
        "articulation_stiffness",
    }
    model = builder.finalize("cpu")
    state, control = model.state(), model.control()
    # The body's values, exactly as the seed documents them.
    np.testing.assert_allclose(model.mass_scale.numpy(), [1.5])
    np.testing.assert_allclose(model.local_marker.numpy(), [[0.1, 0.2, 0.3]], rtol=1e-6)
    assert model.is_sensor.numpy().tolist() == [True]
    np.testing.assert_allclose(state.target_position.numpy(), [[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(state.namespace_a.mass_scale.numpy(), [2.5])
    # joint1's type "RevoluteJoint" is not a UsdPhysics schema (PhysicsRevoluteJoint is) and it names no
    # bodies, so the only joint is robot_body's free joint and the only articulation its own; they carry
    # the declared defaults (the seed's robot_articulation holds no bodies).
    np.testing.assert_allclose(model.namespace_a.gear_ratio.numpy(), [1.0])
    np.testing.assert_allclose(control.namespace_a.pid_gains.numpy(), [[0.0, 0.0]])
    np.testing.assert_allclose(model.articulation_stiffness.numpy(), [100.0])
    assert model.get_attribute_frequency("namespace_a:gear_ratio") == "joint"


def test_custom_attributes_seed_declarations_on_a_wired_robot(write_usda, quiet):
    """The seed's declarations and values with joint1 a PhysicsRevoluteJoint of the body and the
    articulation root holding it: every documented value lands in model, state and control."""
    scene = CUSTOM.split('def Xform "robot_body"')[0]
    text = (
        scene
        + """
def Xform "robot_articulation" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {
    custom float newton:articulation_stiffness = 150.0
    def Xform "robot_body" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        custom float newton:mass_scale = 1.5
        custom float3 newton:local_marker = (0.1, 0.2, 0.3)
        custom bool newton:is_sensor = true
        custom float3 newton:target_position = (1.0, 2.0, 3.0)
        custom float newton:namespace_a:mass_scale = 2.5
    }
    def PhysicsRevoluteJoint "joint1" {
        rel physics:body1 = </robot_articulation/robot_body>
        custom float newton:namespace_a:gear_ratio = 2.25
        custom float2 newton:namespace_a:pid_gains = (100.0, 10.0)
    }
}
"""
    )
    builder = ng.ModelBuilder()
    builder.add_usd(write_usda(text))
    model = builder.finalize("cpu")
    state, control = model.state(), model.control()
    np.testing.assert_allclose(model.mass_scale.numpy(), [1.5])
    np.testing.assert_allclose(model.local_marker.numpy(), [[0.1, 0.2, 0.3]], rtol=1e-6)
    assert model.is_sensor.numpy().tolist() == [True]
    np.testing.assert_allclose(state.target_position.numpy(), [[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(state.namespace_a.mass_scale.numpy(), [2.5])
    np.testing.assert_allclose(model.namespace_a.gear_ratio.numpy(), [2.25])
    np.testing.assert_allclose(control.namespace_a.pid_gains.numpy(), [[100.0, 10.0]])
    np.testing.assert_allclose(model.articulation_stiffness.numpy(), [150.0])
    assert not hasattr(model, "target_position")  # state attributes stay off the model


# --- seed 000, "Example USD with remapped attributes" (verbatim)
PHYSX = """#usda 1.0

def PhysicsScene "Scene" (
    prepend apiSchemas = ["PhysxSceneAPI"]
) {
    # PhysX scene settings that Newton can understand
    uint physxScene:maxVelocityIterationCount = 16  # → max_solver_iterations = 16
}

def RevoluteJoint "elbow_joint" (
    prepend apiSchemas = ["PhysxJointAPI", "PhysxLimitAPI:angular"]
) {
    # PhysX joint attributes remapped to Newton
    float physxJoint:armature = 0.1  # → armature = 0.1
    # PhysX limit attributes (applied via PhysxLimitAPI:angular)
    float physxLimit:angular:stiffness = 1000.0  # → limit_angular_ke = 1000.0
    float physxLimit:angular:damping = 10.0  # → limit_angular_kd = 10.0

    # Initial joint state
    float state:angular:physics:position = 1.57  # → joint_q = 1.57 rad
}

def Mesh "collision_shape" (
    prepend apiSchemas = ["PhysicsCollisionAPI", "PhysxCollisionAPI"]
) {
    # PhysX collision settings (gap = contactOffset - restOffset)
    float physxCollision:contactOffset = 0.05
    float physxCollision:restOffset = 0.01   # → gap = 0.04
}
"""


def test_physx_remapping_verbatim(write_usda):
    builder = ng.ModelBuilder()
    with pytest.warns(UsdImportWarning) as record:
        result = builder.add_usd(write_usda(PHYSX))
    messages = " ".join(str(w.message) for w in record)
    assert "/collision_shape" in messages and "no points" in messages
    assert result["max_solver_iterations"] == 16
    resolved = result["resolved"]
    assert resolved["/collision_shape"]["gap"][0] == pytest.approx(0.04)
    assert resolved["/collision_shape"]["gap"][1] == "physxCollision:contactOffset+physxCollision:restOffset (physx)"
    assert resolved["/collision_shape"]["margin"][0] == pytest.approx(0.01)
    assert resolved["/elbow_joint"]["armature"][0] == pytest.approx(0.1)
    # PhysX angular limit gains are per degree; newton_gym stores them per radian.
    assert resolved["/elbow_joint"]["limit_ke"][0] == pytest.approx(1000.0 * 180.0 / np.pi)
    assert resolved["/elbow_joint"]["limit_kd"][0] == pytest.approx(10.0 * 180.0 / np.pi)
    physx = result["schema_attrs"]["physx"]
    assert physx["/Scene"]["physxScene:maxVelocityIterationCount"] == 16
    assert physx["/collision_shape"]["physxCollision:contactOffset"] == pytest.approx(0.05)


def test_physx_remapping_on_a_simulated_robot(write_usda, quiet):
    """The seed's PhysX attributes on a collider with geometry and a PhysicsRevoluteJoint with a body: the
    model holds gap 0.04, armature 0.1 and the limit gains per radian. JointStateAPI positions are in
    degrees (PhysX's schema), so the seed's 1.57 is 1.57 degrees (its comment's "1.57 rad" is not)."""
    text = (
        PHYSX.replace(
            'def RevoluteJoint "elbow_joint" (',
            """def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    float physics:mass = 1
}
def PhysicsRevoluteJoint "elbow_joint" (""",
        )
        .replace(
            "    float physxJoint:armature = 0.1", "    rel physics:body1 = </arm>\n    float physxJoint:armature = 0.1"
        )
        .replace(
            """    float physxCollision:restOffset = 0.01   # → gap = 0.04""",
            """    float physxCollision:restOffset = 0.01   # → gap = 0.04
    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]""",
        )
    )
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    model = builder.finalize("cpu")
    assert result["max_solver_iterations"] == 16
    shape = result["path_shape_map"]["/collision_shape"]
    assert model.shape_contact_gap.numpy()[shape] == pytest.approx(0.04)
    assert model.shape_contact_margin.numpy()[shape] == pytest.approx(0.01)
    assert model.joint_armature.numpy()[0] == pytest.approx(0.1)
    assert model.joint_limit_ke.numpy()[0] == pytest.approx(1000.0 * 180.0 / np.pi, rel=1e-6)
    assert model.joint_limit_kd.numpy()[0] == pytest.approx(10.0 * 180.0 / np.pi, rel=1e-6)
    assert model.joint_q.numpy()[0] == pytest.approx(np.radians(1.57))
