"""URDF -> USD: a robot written here (box, cylinder and package:// mesh links; revolute, prismatic and
fixed joints) converts with the expected masses, limits, drives and structure."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")
from pxr import UsdGeom, UsdPhysics  # noqa: E402
from usd_readback import bodies, forward_kinematics, joint_frames, joints, open_stage  # noqa: E402

from newton_gym.assets import (  # noqa: E402
    AssetError,
    JointDriveCfg,
    NaturalFrequencyGainsCfg,
    PDGainsCfg,
    UrdfConverter,
    UrdfConverterCfg,
)

URDF = """<?xml version="1.0"?>
<robot name="testbot">
  <link name="base">
    <inertial><origin xyz="0 0 0.01"/><mass value="2.0"/>
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
    <visual><geometry><mesh filename="package://parts/meshes/block.stl"/></geometry></visual>
    <collision><geometry><mesh filename="package://parts/meshes/block.stl"/></geometry></collision>
  </link>
  <link name="tool">
    <inertial><mass value="0.1"/><inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial>
    <collision><geometry><sphere radius="0.02"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-1.0" upper="1.5" effort="10" velocity="3"/><dynamics damping="0.5" friction="0.1"/></joint>
  <joint name="slide" type="prismatic"><parent link="arm"/><child link="slider"/>
    <origin xyz="0 0 0.2" rpy="0 0 0.5"/><axis xyz="1 0 0"/><limit lower="-0.1" upper="0.2" effort="5" velocity="1"/></joint>
  <joint name="weld" type="fixed"><parent link="slider"/><child link="tool"/><origin xyz="0.1 0 0"/></joint>
</robot>
"""


@pytest.fixture()
def robot_files(tmp_path):
    """The URDF in <tmp>/robot/urdf/, its mesh in a package folder <tmp>/somewhere/parts."""
    package = tmp_path / "somewhere" / "parts"
    (package / "meshes").mkdir(parents=True)
    trimesh.creation.box((0.2, 0.1, 0.05)).export(str(package / "meshes" / "block.stl"))
    urdf = tmp_path / "robot" / "urdf" / "testbot.urdf"
    urdf.parent.mkdir(parents=True)
    urdf.write_text(URDF)
    return str(urdf), str(package)


def convert(urdf, package, out, **kwargs):
    kwargs.setdefault("ros_package_paths", [{"name": "parts", "path": package}])
    return UrdfConverter(UrdfConverterCfg(asset_path=urdf, usd_dir=str(out), usd_file_name="bot.usda", **kwargs))


def mass_of(prim):
    return UsdPhysics.MassAPI(prim).GetMassAttr().Get()


def test_masses_limits_and_floating_base(robot_files, tmp_path):
    conv = convert(*robot_files, tmp_path / "out", merge_fixed_joints=False)
    stage = open_stage(conv.usd_path)
    assert stage.GetDefaultPrim().GetName() == "testbot"
    found = bodies(stage, "/testbot")
    assert list(found) == ["base", "arm", "slider", "tool"]
    assert [mass_of(found[n]) for n in found] == pytest.approx([2.0, 1.0, 0.5, 0.1])
    # Off-diagonal URDF inertia: the principal moments are the eigenvalues of the tensor.
    diag = np.array(UsdPhysics.MassAPI(found["base"]).GetDiagonalInertiaAttr().Get())
    tensor = np.array([[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.3]])
    assert np.allclose(np.sort(diag), np.linalg.eigvalsh(tensor), rtol=1e-5)
    assert np.allclose(UsdPhysics.MassAPI(found["base"]).GetCenterOfMassAttr().Get(), [0, 0, 0.01])
    js = joints(stage, "/testbot")
    assert set(js) == {"shoulder", "slide", "tool_fixed"}  # the root floats: no joint to the world
    shoulder, slide = js["shoulder"], js["slide"]
    assert shoulder.IsA(UsdPhysics.RevoluteJoint) and slide.IsA(UsdPhysics.PrismaticJoint)
    assert shoulder.GetAttribute("physics:lowerLimit").Get() == pytest.approx(math.degrees(-1.0), rel=1e-6)
    assert shoulder.GetAttribute("physics:upperLimit").Get() == pytest.approx(math.degrees(1.5), rel=1e-6)
    assert slide.GetAttribute("physics:lowerLimit").Get() == pytest.approx(-0.1)
    assert slide.GetAttribute("physics:upperLimit").Get() == pytest.approx(0.2)
    assert shoulder.GetAttribute("mjc:damping").Get() == pytest.approx(0.5)
    assert shoulder.GetAttribute("mjc:frictionloss").Get() == pytest.approx(0.1)
    assert shoulder.GetAttribute("mjc:actuatorfrcrange:max").Get() == pytest.approx(10.0)
    assert js["tool_fixed"].IsA(UsdPhysics.FixedJoint)


def test_kinematics_follow_the_urdf(robot_files, tmp_path):
    conv = convert(*robot_files, tmp_path / "out", merge_fixed_joints=False)
    stage = open_stage(conv.usd_path)
    base = (np.zeros(3), np.array([1.0, 0, 0, 0]))
    poses = forward_kinematics(stage, "/testbot", {"shoulder": 0.0, "slide": 0.05}, {"base": base})
    c, s = math.cos(0.5), math.sin(0.5)
    assert np.allclose(poses["arm"][0], [0, 0, 0.1], atol=1e-6)
    assert np.allclose(poses["slider"][0], [0.05 * c, 0.05 * s, 0.3], atol=1e-6)
    assert np.allclose(poses["tool"][0], [0.15 * c, 0.15 * s, 0.3], atol=1e-6)
    # Revolute axis is URDF's y: rotating the shoulder by 90 deg swings the slider's z offset onto x.
    poses = forward_kinematics(stage, "/testbot", {"shoulder": math.pi / 2, "slide": 0.0}, {"base": base})
    assert np.allclose(poses["slider"][0], [0.2, 0, 0.1], atol=1e-6)


def test_shapes_and_package_mesh(robot_files, tmp_path):
    conv = convert(*robot_files, tmp_path / "out", merge_fixed_joints=False)
    stage = open_stage(conv.usd_path)
    base_geoms = stage.GetPrimAtPath("/testbot/base").GetChildren()
    visual, collider = base_geoms
    assert visual.IsA(UsdGeom.Cube) and not visual.HasAPI(UsdPhysics.CollisionAPI)
    assert collider.HasAPI(UsdPhysics.CollisionAPI)
    assert UsdGeom.Imageable(collider).GetPurposeAttr().Get() == "guide"
    assert np.allclose(collider.GetAttribute("xformOp:scale").Get(), [0.2, 0.15, 0.1])
    (cylinder,) = stage.GetPrimAtPath("/testbot/arm").GetChildren()
    assert cylinder.IsA(UsdGeom.Cylinder)
    assert UsdGeom.Cylinder(cylinder).GetHeightAttr().Get() == pytest.approx(0.2)
    meshes = [p for p in stage.GetPrimAtPath("/testbot/slider").GetChildren() if p.IsA(UsdGeom.Mesh)]
    assert len(meshes) == 2
    mesh_collider = [p for p in meshes if p.HasAPI(UsdPhysics.CollisionAPI)][0]
    assert UsdPhysics.MeshCollisionAPI(mesh_collider).GetApproximationAttr().Get() == "convexHull"
    # make_instanceable (default): the points live once in the mesh layer, referenced by both prims.
    assert os.path.isfile(os.path.join(conv.usd_dir, conv.usd_instanceable_meshes_path))
    points = np.array(UsdGeom.Mesh(mesh_collider).GetPointsAttr().Get())
    assert points.shape == (8, 3)
    assert np.allclose(np.sort(np.ptp(points, axis=0)), [0.05, 0.1, 0.2], atol=1e-6)
    for prim in meshes:
        assert prim.GetMetadata("references") is not None


def test_inline_meshes_without_instancing(robot_files, tmp_path):
    conv = convert(*robot_files, tmp_path / "out", make_instanceable=False)
    assert not os.path.exists(os.path.join(conv.usd_dir, "Props"))
    text = open(conv.usd_path).read()
    assert "point3f[] points" in text and "references" not in text


def test_merge_fixed_joints_and_fix_base(robot_files, tmp_path):
    conv = convert(*robot_files, tmp_path / "out", merge_fixed_joints=True, fix_base=True)
    stage = open_stage(conv.usd_path)
    found = bodies(stage, "/testbot")
    assert "tool" not in found
    assert mass_of(found["slider"]) == pytest.approx(0.6)
    js = joints(stage, "/testbot")
    assert set(js) == {"base_fixed", "shoulder", "slide"}
    body0, body1, *_ = joint_frames(js["base_fixed"])
    assert body0 is None and body1 == "/testbot/base"


def test_joint_drives_by_pattern(robot_files, tmp_path):
    drive = JointDriveCfg(gains=PDGainsCfg(stiffness={"sh.*": 100.0}, damping={".*": 2.0}))
    conv = convert(*robot_files, tmp_path / "out", joint_drive=drive)
    stage = open_stage(conv.usd_path)
    shoulder = UsdPhysics.DriveAPI(stage.GetPrimAtPath("/testbot/joints/shoulder"), "angular")
    assert shoulder.GetStiffnessAttr().Get() == pytest.approx(100.0 * math.pi / 180)  # per degree
    assert shoulder.GetDampingAttr().Get() == pytest.approx(2.0 * math.pi / 180)
    assert shoulder.GetMaxForceAttr().Get() == pytest.approx(10.0)  # URDF effort
    assert shoulder.GetTypeAttr().Get() == "force"
    slide = UsdPhysics.DriveAPI(stage.GetPrimAtPath("/testbot/joints/slide"), "linear")
    assert slide.GetStiffnessAttr().Get() == 0.0 and slide.GetDampingAttr().Get() == pytest.approx(2.0)


def test_velocity_target_and_no_drive(robot_files, tmp_path):
    drive = JointDriveCfg(target_type="velocity", drive_type="acceleration", gains=PDGainsCfg(stiffness=7.0))
    stage = open_stage(convert(*robot_files, tmp_path / "a", joint_drive=drive).usd_path)
    slide = UsdPhysics.DriveAPI(stage.GetPrimAtPath("/testbot/joints/slide"), "linear")
    assert slide.GetStiffnessAttr().Get() == 0.0 and slide.GetDampingAttr().Get() == pytest.approx(7.0)
    assert slide.GetTypeAttr().Get() == "acceleration"
    stage = open_stage(convert(*robot_files, tmp_path / "b").usd_path)
    assert not stage.GetPrimAtPath("/testbot/joints/slide").HasAPI(UsdPhysics.DriveAPI)


def test_natural_frequency_gains_are_deprecated(robot_files, tmp_path):
    drive = JointDriveCfg(gains=NaturalFrequencyGainsCfg(natural_frequency=10.0))
    with pytest.warns(DeprecationWarning, match="PDGainsCfg"):
        conv = convert(*robot_files, tmp_path / "out", joint_drive=drive)
    stage = open_stage(conv.usd_path)
    assert not stage.GetPrimAtPath("/testbot/joints/shoulder").HasAPI(UsdPhysics.DriveAPI)


def test_package_found_next_to_the_urdf_without_ros_package_paths(robot_files, tmp_path):
    urdf, package = robot_files
    sibling = os.path.join(os.path.dirname(os.path.dirname(urdf)), "parts")
    os.symlink(package, sibling)
    conv = convert(urdf, package, tmp_path / "out", ros_package_paths=[])
    assert os.path.isfile(conv.usd_path)


def test_unknown_package_names_it(robot_files, tmp_path):
    urdf, _ = robot_files
    with pytest.raises(AssetError, match="ROS package 'parts'") as info:
        convert(urdf, None, tmp_path / "out", ros_package_paths=[{"name": "other", "path": str(tmp_path)}])
    assert urdf in str(info.value)
    assert not (tmp_path / "out").exists()


def test_link_density_for_links_without_inertial(tmp_path):
    urdf = tmp_path / "light.urdf"
    urdf.write_text("""<robot name="light"><link name="a">
      <collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision></link></robot>""")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        conv = UrdfConverter(UrdfConverterCfg(asset_path=str(urdf), usd_dir=str(tmp_path / "o"), link_density=500.0))
    stage = open_stage(conv.usd_path)
    assert mass_of(stage.GetPrimAtPath("/light/a")) == pytest.approx(500.0 * 0.006, rel=1e-6)


def test_inertias_breaking_the_triangle_inequality_are_balanced_with_a_warning_naming_the_link(tmp_path):
    """MuJoCo's compiler refuses principal moments with A + B < C (common in URDFs): the converter balances
    them as MuJoCo's balanceinertia does (each moment set to their mean) and says which links."""
    from newton_gym.errors import AssetWarning

    inertia = '<inertia ixx="{}" iyy="{}" izz="{}" ixy="0" ixz="0" iyz="0"/>'
    urdf = tmp_path / "hand.urdf"
    urdf.write_text(
        f"""<robot name="hand"><link name="palm"><inertial><mass value="1"/>{inertia.format(1.0, 0.1, 0.1)}
      </inertial></link><link name="finger"><inertial><mass value="0.1"/>{inertia.format(0.01, 0.02, 0.02)}
      </inertial></link><link name="tip"><inertial><mass value="0.1"/>{inertia.format(0.3, 0.1, 0.1)}</inertial>
      </link><joint name="j1" type="revolute"><parent link="palm"/><child link="finger"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint><joint name="j2" type="revolute">
      <parent link="finger"/><child link="tip"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1"
      velocity="1"/></joint></robot>"""
    )
    with pytest.warns(AssetWarning, match=r"hand\.urdf: inertia of 'palm', 'tip' breaks A \+ B >= C") as record:
        conv = UrdfConverter(UrdfConverterCfg(asset_path=str(urdf), usd_dir=str(tmp_path / "o")))
    assert not any("'finger'" in str(w.message) for w in record)
    stage = open_stage(conv.usd_path)
    moments = {
        name: sorted(UsdPhysics.MassAPI(stage.GetPrimAtPath(f"/hand/{name}")).GetDiagonalInertiaAttr().Get())
        for name in ("palm", "finger", "tip")
    }
    assert moments["palm"] == pytest.approx([0.4, 0.4, 0.4], rel=1e-6)
    assert moments["tip"] == pytest.approx([0.5 / 3.0] * 3, rel=1e-6)
    assert moments["finger"] == pytest.approx([0.01, 0.02, 0.02], rel=1e-6)  # balanced ones are left as they are


def test_inertias_with_a_moment_at_or_below_zero_are_repaired_with_a_warning_naming_the_link(tmp_path):
    """A link whose inertia has a principal moment <= 0 (example-robot-data's go1 base: moments ~-2e-22, ~1e-22,
    3e-6; anymal's hatch: all six entries 1e-3), which MuJoCo's compiler refuses: the moments are clamped at 0
    and set to their mean where they break A + B >= C, with a warning naming the link; the rest untouched."""
    from newton_gym.errors import AssetWarning

    urdf = tmp_path / "quad.urdf"
    urdf.write_text(
        """<robot name="quad"><link name="base"><inertial><mass value="1"/>
      <inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="1e-3" ixz="1e-3" iyz="1e-3"/></inertial></link>
      <link name="leg"><inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0"
      iyz="0"/></inertial></link><joint name="hip" type="revolute"><parent link="base"/><child link="leg"/>
      <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""
    )
    with pytest.warns(AssetWarning, match=r"quad\.urdf: inertia of 'base' has a principal moment <= 0") as record:
        conv = UrdfConverter(UrdfConverterCfg(asset_path=str(urdf), usd_dir=str(tmp_path / "o")))
    assert not any("'leg'" in str(w.message) for w in record)
    stage = open_stage(conv.usd_path)
    moments = {
        name: sorted(UsdPhysics.MassAPI(stage.GetPrimAtPath(f"/quad/{name}")).GetDiagonalInertiaAttr().Get())
        for name in ("base", "leg")
    }
    assert moments["base"] == pytest.approx([1e-3] * 3, rel=1e-5)  # eigenvalues (0, 0, 3e-3): their mean
    assert moments["leg"] == pytest.approx([0.01, 0.02, 0.02], rel=1e-6)
