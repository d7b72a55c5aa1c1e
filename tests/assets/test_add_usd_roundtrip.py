"""MJCF -> USD (our converter) -> ModelBuilder.add_usd gives MuJoCo's compiled model (issue 5's round trip)."""

import os

import numpy as np
import pytest

import newton_gym as ng
from newton_gym.sim.hostmath import quat_rotate, quat_to_matrix

mujoco = pytest.importorskip("mujoco")
gymnasium = pytest.importorskip("gymnasium")

_SINGLE_DOF = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


@pytest.fixture(scope="module", params=["ant.xml", "humanoid.xml", "half_cheetah.xml", "hopper.xml"])
def roundtrip(request, tmp_path_factory):
    from newton_gym.assets import MjcfConverter, MjcfConverterCfg

    xml = os.path.join(ASSETS, request.param)
    usd = MjcfConverter(MjcfConverterCfg(asset_path=xml, usd_dir=str(tmp_path_factory.mktemp("usd")))).usd_path
    builder = ng.ModelBuilder()
    result = builder.add_usd(usd)
    mj = mujoco.MjModel.from_xml_path(xml)
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    root = "/" + next(iter(result["path_body_map"])).split("/")[1]
    return mj, data, builder.finalize(), result, root


def test_bodies_mass_com_inertia(roundtrip):
    mj, _, model, result, root = roundtrip
    mass, com, inertia = model.body_mass.numpy(), model.body_com.numpy(), model.body_inertia.numpy()
    for b in range(1, mj.nbody):
        ours = result["path_body_map"][f"{root}/{mj.body(b).name or f'body_{b}'}"]
        assert mass[ours] == pytest.approx(mj.body_mass[b], rel=1e-6)
        np.testing.assert_allclose(com[ours], mj.body_ipos[b], atol=1e-6)
        w, x, y, z = mj.body_iquat[b]
        rot = quat_to_matrix([x, y, z, w])
        expected = rot @ np.diag(mj.body_inertia[b]) @ rot.T
        np.testing.assert_allclose(inertia[ours], expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_joints_axes_ranges_damping_armature(roundtrip):
    mj, data, model, result, root = roundtrip
    body_q, x_p = model.body_q.numpy().astype(float), model.joint_X_p.numpy().astype(float)
    parent, qd_start = model.joint_parent.numpy(), model.joint_qd_start.numpy()
    axis = model.joint_axis.numpy().astype(float)
    lower, upper = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy()
    damping, armature = model.joint_damping.numpy(), model.joint_armature.numpy()
    checked = 0
    for j in range(mj.njnt):
        if int(mj.jnt_type[j]) not in _SINGLE_DOF:
            continue
        ours = result["path_joint_map"][f"{root}/joints/{mj.joint(j).name}"]
        dof, mdof = qd_start[ours], mj.jnt_dofadr[j]
        frame_q = x_p[ours, 3:] if parent[ours] < 0 else _quat_mul(body_q[parent[ours], 3:], x_p[ours, 3:])
        np.testing.assert_allclose(quat_rotate(frame_q, axis[dof]), data.xaxis[j], atol=1e-5)
        if mj.jnt_limited[j]:
            np.testing.assert_allclose([lower[dof], upper[dof]], mj.jnt_range[j], atol=1e-5)
        assert damping[dof] == pytest.approx(mj.dof_damping[mdof], abs=1e-6)
        assert armature[dof] == pytest.approx(mj.dof_armature[mdof], abs=1e-6)
        checked += 1
    assert checked == sum(1 for j in range(mj.njnt) if int(mj.jnt_type[j]) in _SINGLE_DOF)


def test_actuator_gears_and_geom_sizes(roundtrip):
    mj, _, model, result, root = roundtrip
    by_target = {a["target"].rsplit("/", 1)[-1]: a for a in result["actuators"]}
    for a in range(mj.nu):
        joint = mj.joint(mj.actuator_trnid[a, 0]).name
        assert by_target[joint]["gear"][0] == pytest.approx(mj.actuator_gear[a, 0])
        np.testing.assert_allclose(by_target[joint]["ctrl_range"], mj.actuator_ctrlrange[a], atol=1e-7)
    scale = model.shape_scale.numpy()
    dims = {
        int(mujoco.mjtGeom.mjGEOM_SPHERE): 1,
        int(mujoco.mjtGeom.mjGEOM_CAPSULE): 2,
        int(mujoco.mjtGeom.mjGEOM_BOX): 3,
        int(mujoco.mjtGeom.mjGEOM_CYLINDER): 2,
    }
    checked = 0
    for g in range(mj.ngeom):
        if int(mj.geom_type[g]) not in dims:
            continue
        body = mj.body(mj.geom_bodyid[g]).name or f"body_{mj.geom_bodyid[g]}"
        path = f"{root}/{body}/{mj.geom(g).name or f'geom_{g}'}"
        if path not in result["path_shape_map"]:
            continue
        k = dims[int(mj.geom_type[g])]
        np.testing.assert_allclose(scale[result["path_shape_map"][path]][:k], mj.geom_size[g][:k], rtol=1e-6)
        checked += 1
    assert checked >= mj.nbody - 1


def _quat_mul(a, b):
    from newton_gym.sim.hostmath import quat_mul

    return quat_mul(a, b)


def test_urdf_converts_and_imports_with_masses_and_limits(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    from newton_gym.assets import UrdfConverter, UrdfConverterCfg

    package = tmp_path / "parts"
    (package / "meshes").mkdir(parents=True)
    trimesh.creation.box((0.2, 0.1, 0.05)).export(str(package / "meshes" / "block.stl"))
    urdf = tmp_path / "bot.urdf"
    urdf.write_text("""<?xml version="1.0"?><robot name="bot">
      <link name="base"><inertial><mass value="2.0"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/>
        </inertial><collision><geometry><box size="0.4 0.3 0.2"/></geometry></collision></link>
      <link name="arm"><inertial><mass value="1.0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/>
        </inertial><collision><geometry><cylinder radius="0.05" length="0.2"/></geometry></collision></link>
      <link name="slider"><inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0"
        izz="0.001"/></inertial><collision><geometry><mesh filename="package://parts/meshes/block.stl"/></geometry>
        </collision></link>
      <link name="tool"><inertial><mass value="0.1"/><inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0"
        izz="0.0001"/></inertial><collision><geometry><sphere radius="0.02"/></geometry></collision></link>
      <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.1"/>
        <axis xyz="0 1 0"/><limit lower="-1.0" upper="1.5" effort="10" velocity="3"/></joint>
      <joint name="slide" type="prismatic"><parent link="arm"/><child link="slider"/><origin xyz="0 0 0.2"/>
        <axis xyz="1 0 0"/><limit lower="-0.1" upper="0.2" effort="5" velocity="1"/></joint>
      <joint name="weld" type="fixed"><parent link="slider"/><child link="tool"/><origin xyz="0.1 0 0"/></joint>
    </robot>""")
    conv = UrdfConverter(
        UrdfConverterCfg(
            asset_path=str(urdf),
            usd_dir=str(tmp_path / "out"),
            fix_base=True,
            merge_fixed_joints=False,
            ros_package_paths=[{"name": "parts", "path": str(package)}],
        )
    )
    builder = ng.ModelBuilder()
    result = builder.add_usd(conv.usd_path)
    model = builder.finalize()
    mass = model.body_mass.numpy()
    for name, expected in (("base", 2.0), ("arm", 1.0), ("slider", 0.5), ("tool", 0.1)):
        assert mass[result["path_body_map"][f"/bot/{name}"]] == pytest.approx(expected, rel=1e-6)
    types = model.joint_type.numpy()
    shoulder = result["path_joint_map"]["/bot/joints/shoulder"]
    slide = result["path_joint_map"]["/bot/joints/slide"]
    assert types[shoulder] == int(ng.JointType.REVOLUTE) and types[slide] == int(ng.JointType.PRISMATIC)
    lo, hi, qd = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy(), model.joint_qd_start.numpy()
    np.testing.assert_allclose([lo[qd[shoulder]], hi[qd[shoulder]]], [-1.0, 1.5], atol=1e-6)
    np.testing.assert_allclose([lo[qd[slide]], hi[qd[slide]]], [-0.1, 0.2], atol=1e-6)
    assert int(ng.JointType.FREE) not in types.tolist()  # fix_base: welded to the world
    assert int(ng.GeoType.MESH) in model.shape_type.numpy().tolist()
