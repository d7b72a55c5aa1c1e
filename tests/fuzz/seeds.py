"""Seed inputs of the importer fuzz: the robots shipped with the package plus small files written here.

A :class:`Seed` is one input that imports cleanly: its main file's text and the side files it refers to
(meshes, included MJCF, referenced USD layers). The shipped robots are read from the package's
``assets/robots`` folder as plain files; nothing here imports newton_gym.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

__all__ = ["Seed", "ROBOTS_DIR", "seeds_of", "KINDS"]

#: Folder of the shipped robots (MJCF and the USD converted from them).
ROBOTS_DIR = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "newton_gym", "assets", "robots")

#: Input kinds: USD straight into add_usd, MJCF and URDF through a converter first.
KINDS = ("usd", "mjcf", "urdf")


@dataclass(frozen=True)
class Seed:
    """One valid input: ``kind``, main file ``name`` and ``text``, and side files (relative name -> bytes)."""

    kind: str
    name: str
    text: str
    extra: dict = field(default_factory=dict)


# A unit cube as Wavefront OBJ (8 vertices, 12 outward-facing triangles), the mesh of the MJCF and URDF seeds.
CUBE_OBJ = """# unit cube
v -0.5 -0.5 -0.5
v 0.5 -0.5 -0.5
v 0.5 0.5 -0.5
v -0.5 0.5 -0.5
v -0.5 -0.5 0.5
v 0.5 -0.5 0.5
v 0.5 0.5 0.5
v -0.5 0.5 0.5
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
"""

USD_HEADER = '#usda 1.0\n(\n    metersPerUnit = 1\n    kilogramsPerUnit = 1\n    upAxis = "Z"\n)\n'

# Two bodies on a driven, limited hinge; box, sphere and capsule colliders; a physics material.
USD_PAIR = (
    USD_HEADER
    + """
def PhysicsScene "scene"
{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
}

def Xform "robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])
{
    def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 2
        point3f physics:centerOfMass = (0, 0, 0.1)
        float3 physics:diagonalInertia = (0.1, 0.1, 0.1)
        quatf physics:principalAxes = (1, 0, 0, 0)
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "box" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
        {
            double size = 0.2
            rel material:binding:physics = </robot/mat>
        }
    }

    def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:density = 500
        vector3f physics:velocity = (0, 0, 0)
        vector3f physics:angularVelocity = (0, 0, 0)
        double3 xformOp:translate = (0.5, 0, 1)
        quatf xformOp:orient = (1, 0, 0, 0)
        float3 xformOp:scale = (1, 1, 1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]
        def Sphere "ball" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 0.1
        }
        def Capsule "cap" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 0.05
            double height = 0.2
            uniform token axis = "X"
        }
    }

    def PhysicsRevoluteJoint "hinge" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
    {
        rel physics:body0 = </robot/a>
        rel physics:body1 = </robot/b>
        uniform token physics:axis = "Y"
        point3f physics:localPos0 = (0.25, 0, 0)
        point3f physics:localPos1 = (-0.25, 0, 0)
        quatf physics:localRot0 = (1, 0, 0, 0)
        quatf physics:localRot1 = (1, 0, 0, 0)
        float physics:lowerLimit = -45
        float physics:upperLimit = 45
        float drive:angular:physics:stiffness = 10
        float drive:angular:physics:damping = 1
        float drive:angular:physics:maxForce = 100
        float drive:angular:physics:targetPosition = 5
        uniform token drive:angular:physics:type = "force"
        float newton:armature = 0.01
    }

    def Material "mat" (prepend apiSchemas = ["PhysicsMaterialAPI"])
    {
        float physics:staticFriction = 0.8
        float physics:dynamicFriction = 0.6
        float physics:restitution = 0.1
        float physics:density = 1000
    }
}
"""
)

# A limited D6 joint with NewtonJointAPI arrays, a prismatic joint, a weld to the world and a filter pair.
USD_JOINTS = (
    USD_HEADER
    + """
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsFilteredPairsAPI"])
{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
    rel physics:filteredPairs = </c>
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double radius = 0.1
    }
}

def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
    double3 xformOp:translate = (0, 0, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}

def Xform "c" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 0.5
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
    double3 xformOp:translate = (0, 0, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cylinder "cyl" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double radius = 0.05
        double height = 0.3
        uniform token axis = "Z"
    }
}

def PhysicsFixedJoint "weld"
{
    rel physics:body1 = </a>
    point3f physics:localPos0 = (0, 0, 0)
    point3f physics:localPos1 = (0, 0, 0)
}

def PhysicsJoint "d6" (prepend apiSchemas = [D6_LIMITS])
{
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    point3f physics:localPos0 = (0, 0, 0.25)
    point3f physics:localPos1 = (0, 0, -0.25)
    float limit:transX:physics:low = -0.1
    float limit:transX:physics:high = 0.1
    float limit:transY:physics:low = 1
    float limit:transY:physics:high = -1
    float limit:transZ:physics:low = 1
    float limit:transZ:physics:high = -1
    float limit:rotX:physics:low = 1
    float limit:rotX:physics:high = -1
    float limit:rotY:physics:low = -30
    float limit:rotY:physics:high = 30
    uniform token[] newton:dofs = ["transX", "rotY", "rotZ"]
    uniform float[] newton:armature = [0.1, 0.2, 0.3]
    uniform float[] newton:viscousDamping = [0, 0.5, 1]
}

def PhysicsPrismaticJoint "slide"
{
    rel physics:body0 = </b>
    rel physics:body1 = </c>
    uniform token physics:axis = "Z"
    point3f physics:localPos0 = (0, 0, 0.25)
    point3f physics:localPos1 = (0, 0, -0.25)
    float physics:lowerLimit = -0.2
    float physics:upperLimit = 0.2
}
""".replace("D6_LIMITS", ", ".join(f'"PhysicsLimitAPI:{a}"' for a in ("transX", "transY", "transZ", "rotX", "rotY")))
)

# A triangle-mesh collider with authored points, and a sphere, in a referenced layer; the scene in a sublayer.
USD_REF_MAIN = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
    subLayers = [@fuzz_scene.usda@]
)

def Xform "robot" (prepend references = @fuzz_part.usda@</part>)
{
    def PhysicsSphericalJoint "ball" (prepend apiSchemas = ["PhysicsLimitAPI:cone"])
    {
        rel physics:body0 = </robot/hull>
        rel physics:body1 = </robot/bob>
        uniform token physics:axis = "X"
        point3f physics:localPos0 = (0, 0, -0.3)
        point3f physics:localPos1 = (0, 0, 0.2)
        float physics:coneAngle0Limit = 30
        float physics:coneAngle1Limit = 40
    }
}
"""
USD_REF_PART = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)

def Xform "part"
{
    def Xform "hull" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:density = 800
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Mesh "m" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"])
        {
            uniform token physics:approximation = "convexHull"
            point3f[] points = [(0, 0, 0), (0.2, 0, 0), (0, 0.2, 0), (0, 0, 0.2)]
            int[] faceVertexCounts = [3, 3, 3, 3]
            int[] faceVertexIndices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
        }
    }
    def Xform "bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 0.3
        double3 xformOp:translate = (0, 0, 0.5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 0.08
        }
    }
}
"""
USD_REF_SCENE = """#usda 1.0

def PhysicsScene "scene"
{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
    uniform int newton:timeStepsPerSecond = 500
}
"""

# An MJCF with an included file, a mesh asset, a default class, an exclude and three actuator kinds.
MJCF_PARTS = """<mujoco model="parts">
  <compiler angle="radian" meshdir="." autolimits="true"/>
  <option timestep="0.005" gravity="0 0 -9.81"/>
  <default>
    <joint damping="0.1" armature="0.01"/>
    <default class="soft">
      <geom solref="0.02 1" solimp="0.9 0.95 0.001" friction="0.8 0.01 0.001"/>
    </default>
  </default>
  <asset>
    <mesh name="block" file="cube.obj" scale="0.1 0.1 0.1"/>
  </asset>
  <include file="fuzz_part.xml"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="base" pos="0 0 1">
      <joint name="slide" type="slide" axis="0 0 1" range="-0.5 0.5"/>
      <geom name="base_geom" type="mesh" mesh="block" mass="2"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" range="-1 1" stiffness="5" springref="0.1" frictionloss="0.05"/>
        <geom name="arm_geom" class="soft" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="tip" pos="0.3 0 0">
          <joint name="ball" type="ball" range="0 0.5"/>
          <geom name="tip_geom" type="sphere" size="0.05" density="800"/>
          <site name="tip_site" pos="0 0 0" size="0.01"/>
        </body>
      </body>
    </body>
  </worldbody>
  <contact>
    <exclude body1="base" body2="arm"/>
  </contact>
  <actuator>
    <general name="servo" joint="hinge" gaintype="fixed" biastype="affine" gainprm="10" biasprm="0 -10 -1"
             ctrlrange="-1 1" ctrllimited="true"/>
    <position name="lift" joint="slide" kp="50"/>
    <motor name="push" joint="slide" gear="10"/>
  </actuator>
</mujoco>
"""
MJCF_PART = """<mujoco>
  <worldbody>
    <body name="crate" pos="1 0 0.5">
      <freejoint name="crate_free"/>
      <geom name="crate_geom" type="box" size="0.1 0.2 0.1" mass="1.5"/>
    </body>
  </worldbody>
</mujoco>
"""

# A URDF with box, cylinder, sphere and mesh links (one mesh through package://), revolute, prismatic,
# continuous and fixed joints, limits and dynamics.
URDF_BOT = """<?xml version="1.0"?>
<robot name="fuzzbot">
  <link name="base">
    <inertial><origin xyz="0 0 0.01" rpy="0 0 0"/><mass value="2.0"/>
      <inertia ixx="0.1" ixy="0.01" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial>
    <visual><geometry><box size="0.4 0.3 0.2"/></geometry></visual>
    <collision><geometry><box size="0.4 0.3 0.2"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="1.0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial>
    <collision><origin xyz="0 0 0.1"/><geometry><cylinder radius="0.05" length="0.2"/></geometry></collision>
  </link>
  <link name="slider">
    <inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
    <visual><geometry><mesh filename="meshes/cube.obj" scale="0.2 0.1 0.05"/></geometry></visual>
    <collision><geometry>
      <mesh filename="package://fuzzpkg/meshes/block.obj" scale="0.2 0.1 0.05"/>
    </geometry></collision>
  </link>
  <link name="wheel">
    <inertial><mass value="0.2"/><inertia ixx="0.0002" ixy="0" ixz="0" iyy="0.0002" iyz="0" izz="0.0003"/></inertial>
    <collision><origin rpy="1.5708 0 0"/><geometry><cylinder radius="0.04" length="0.02"/></geometry></collision>
  </link>
  <link name="tool">
    <inertial><mass value="0.1"/><inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial>
    <collision><geometry><sphere radius="0.02"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.0" upper="1.5" effort="10" velocity="3"/><dynamics damping="0.5" friction="0.1"/></joint>
  <joint name="slide" type="prismatic"><parent link="arm"/><child link="slider"/>
    <origin xyz="0 0 0.2" rpy="0 0 0.5"/><axis xyz="1 0 0"/><limit lower="-0.1" upper="0.2" effort="5" velocity="1"/>
  </joint>
  <joint name="spin" type="continuous"><parent link="slider"/><child link="wheel"/>
    <origin xyz="0 0.06 0"/><axis xyz="0 1 0"/><dynamics damping="0.01"/></joint>
  <joint name="weld" type="fixed"><parent link="slider"/><child link="tool"/><origin xyz="0.1 0 0"/></joint>
</robot>
"""


def _read(name: str) -> str:
    with open(os.path.join(ROBOTS_DIR, name), encoding="utf-8") as f:
        return f.read()


@functools.cache
def seeds_of(kind: str) -> tuple[Seed, ...]:
    """The seeds of one input kind ("usd", "mjcf" or "urdf"), read once."""
    cube = CUBE_OBJ.encode()
    if kind == "usd":
        return (
            Seed("usd", "ant.usda", _read("ant.usda")),
            Seed("usd", "inverted_pendulum.usda", _read("inverted_pendulum.usda")),
            Seed("usd", "pair.usda", USD_PAIR),
            Seed("usd", "joints.usda", USD_JOINTS),
            Seed(
                "usd",
                "ref.usda",
                USD_REF_MAIN,
                {"fuzz_part.usda": USD_REF_PART.encode(), "fuzz_scene.usda": USD_REF_SCENE.encode()},
            ),
        )
    if kind == "mjcf":
        return (
            Seed("mjcf", "ant.xml", _read("ant.xml")),
            Seed("mjcf", "humanoid.xml", _read("humanoid.xml")),
            Seed("mjcf", "inverted_pendulum.xml", _read("inverted_pendulum.xml")),
            Seed("mjcf", "parts.xml", MJCF_PARTS, {"fuzz_part.xml": MJCF_PART.encode(), "cube.obj": cube}),
        )
    if kind == "urdf":
        return (Seed("urdf", "fuzzbot.urdf", URDF_BOT, {"meshes/cube.obj": cube, "fuzzpkg/meshes/block.obj": cube}),)
    raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
