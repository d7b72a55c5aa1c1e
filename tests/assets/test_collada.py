"""COLLADA (.dae) meshes in URDF and MJCF conversion. MuJoCo's compiler reads only STL, OBJ and MSH mesh
files, so the converters write an OBJ of every other mesh file (trimesh; pycollada for COLLADA) in metres
before compiling. The COLLADA files here are written by hand, so their vertices, unit and node transforms
are known; the converted USD is imported with add_usd and its collision meshes compared with them."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")
pytest.importorskip("collada")

import newton_gym as ng  # noqa: E402
from newton_gym.assets import AssetError, MjcfConverter, MjcfConverterCfg, UrdfConverter, UrdfConverterCfg  # noqa: E402
from newton_gym.sim.hostmath import quat_to_matrix  # noqa: E402

# An asymmetric wedge (6 vertices, 8 triangles, outward), off the link origin, in the file's unit.
WEDGE = np.array([[0, 0, 0], [4, 0, 0], [0, 2, 0], [0, 0, 3], [4, 0, 3], [0, 2, 3]], float) + [1.0, -1.0, 0.5]
WEDGE_TRIS = np.array([[0, 2, 1], [3, 4, 5], [0, 1, 4], [0, 4, 3], [0, 3, 5], [0, 5, 2], [1, 2, 5], [1, 5, 4]])
BOX = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * [0.05, 0.1, 0.15]
BOX_TRIS = np.array([[0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3], [0, 1, 3], [0, 3, 2]])
BOX_TRIS = np.concatenate([BOX_TRIS, [[4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6]]])

URDF = """<?xml version="1.0"?>
<robot name="daebot">
  <link name="base">
    <inertial><mass value="2.0"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><mesh filename="package://daeparts/meshes/base_visual.dae"/></geometry></visual>
    <collision><geometry><mesh filename="package://daeparts/meshes/base.dae" scale="2 1 0.5"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="1.0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <visual><geometry><mesh filename="package://daeparts/meshes/arm_cm.dae"/></geometry></visual>
    <collision><geometry><mesh filename="package://daeparts/meshes/arm_cm.dae"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.3"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>
"""


def collada(vertices, triangles, unit=None, up_axis="Z_UP", translate=None) -> str:
    """A COLLADA 1.4.1 document of one triangle mesh under one scene node (translated by ``translate``)."""
    asset = (f'<unit meter="{unit}" name="unit"/>' if unit else "") + f"<up_axis>{up_axis}</up_axis>"
    positions = " ".join(f"{x:.9g}" for x in np.asarray(vertices, float).reshape(-1))
    indices = " ".join(str(int(i)) for i in np.asarray(triangles).reshape(-1))
    move = "" if translate is None else "<translate>" + " ".join(f"{x:.9g}" for x in translate) + "</translate>"
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset>{asset}</asset>
  <library_geometries><geometry id="g" name="g"><mesh>
    <source id="g-pos"><float_array id="g-pos-array" count="{3 * len(vertices)}">{positions}</float_array>
      <technique_common><accessor source="#g-pos-array" count="{len(vertices)}" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="g-vtx"><input semantic="POSITION" source="#g-pos"/></vertices>
    <triangles count="{len(triangles)}"><input semantic="VERTEX" source="#g-vtx" offset="0"/>
      <p>{indices}</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="scene"><node id="n" name="n">{move}<instance_geometry url="#g"/></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""


@pytest.fixture()
def daebot(tmp_path):
    """The URDF in <tmp>/robot/, its COLLADA meshes in a package folder <tmp>/pkgs/daeparts/meshes: the
    base's in metres (Y_UP, which is not applied), the arm's in centimetres under a translated node."""
    meshes = tmp_path / "pkgs" / "daeparts" / "meshes"
    meshes.mkdir(parents=True)
    (meshes / "base.dae").write_text(collada(BOX, BOX_TRIS, up_axis="Y_UP"))
    (meshes / "base_visual.dae").write_text(collada(BOX, BOX_TRIS))
    (meshes / "arm_cm.dae").write_text(collada(WEDGE, WEDGE_TRIS, unit=0.01, translate=(0.0, 0.0, 2.0)))
    urdf = tmp_path / "robot" / "daebot.urdf"
    urdf.parent.mkdir()
    urdf.write_text(URDF)
    return urdf, meshes


def convert(urdf, out, **kwargs):
    package = str(urdf.parent.parent / "pkgs" / "daeparts")
    cfg = UrdfConverterCfg(
        asset_path=str(urdf),
        usd_dir=str(out),
        usd_file_name="daebot.usda",
        ros_package_paths=[{"name": "daeparts", "path": package}],
        merge_fixed_joints=False,
        **kwargs,
    )
    return UrdfConverter(cfg)


def collision_vertices(usd_path) -> dict:
    """Collision mesh vertices [m] in their link's frame, by link name, of the USD imported with add_usd."""
    builder = ng.ModelBuilder()
    builder.add_usd(usd_path)
    model = builder.finalize("cpu")
    body, mesh_of = model.shape_body.numpy(), model.shape_mesh.numpy()
    xform, scale = model.shape_transform.numpy(), model.shape_scale.numpy()
    collide = model.shape_collide.numpy().astype(bool)
    out = {}
    for s in np.nonzero((mesh_of >= 0) & collide)[0]:
        local = model.meshes[mesh_of[s]].vertices * scale[s]
        link = model.body_key[body[s]].rsplit("/", 1)[-1]
        out.setdefault(link, []).append(local @ quat_to_matrix(xform[s, 3:7]).T + xform[s, :3])
    return out


def same_points(a, b, atol=1e-6) -> bool:
    """Equal point sets (each point of one within ``atol`` of one of the other, as many of each)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    d = np.linalg.norm(a[:, None] - b[None], axis=2)
    return bool((d.min(axis=1) < atol).all() and (d.min(axis=0) < atol).all())


def test_dae_meshes_arrive_in_metres_with_their_scale(daebot, tmp_path):
    urdf, _ = daebot
    conv = convert(urdf, tmp_path / "out")
    meshes = collision_vertices(conv.usd_path)
    (base,) = meshes["base"]
    assert same_points(base, BOX * [2.0, 1.0, 0.5])  # URDF scale; the Y_UP axis is not applied (as RViz)
    (arm,) = meshes["arm"]
    assert same_points(arm, (WEDGE + [0.0, 0.0, 2.0]) * 0.01)  # node transform, then centimetres -> metres


def test_converted_meshes_are_hashed_with_their_source(daebot, tmp_path):
    urdf, meshes = daebot
    assert convert(urdf, tmp_path / "out").converted
    assert not convert(urdf, tmp_path / "out").converted  # up to date: nothing is decoded again
    (meshes / "arm_cm.dae").write_text(collada(WEDGE, WEDGE_TRIS, unit=0.001))
    conv = convert(urdf, tmp_path / "out")
    assert conv.converted  # the .dae changed: converted again, now in millimetres
    (arm,) = collision_vertices(conv.usd_path)["arm"]
    assert same_points(arm, WEDGE * 0.001)


def test_up_to_date_usd_needs_no_pycollada(daebot, tmp_path, monkeypatch):
    urdf, _ = daebot
    convert(urdf, tmp_path / "out")
    monkeypatch.setitem(sys.modules, "collada", None)  # import collada now fails
    assert not convert(urdf, tmp_path / "out").converted


def test_corrupt_dae_names_the_file_and_the_link(daebot, tmp_path):
    urdf, meshes = daebot
    (meshes / "arm_cm.dae").write_text("<COLLADA><library_geometries><geometry")
    with pytest.raises(AssetError, match=r"arm_cm\.dae' of link 'arm' could not be decoded") as err:
        convert(urdf, tmp_path / "out")
    assert err.value.path == str(urdf)


def test_empty_dae_names_the_file_and_the_link(daebot, tmp_path):
    urdf, meshes = daebot
    (meshes / "base.dae").write_text(collada(np.zeros((0, 3)), np.zeros((0, 3), int)))
    with pytest.raises(AssetError, match=r"base\.dae' of link 'base' holds no triangles"):
        convert(urdf, tmp_path / "out")


def test_missing_pycollada_says_what_to_install(daebot, tmp_path, monkeypatch):
    urdf, _ = daebot
    monkeypatch.setitem(sys.modules, "collada", None)  # import collada now fails
    with pytest.raises(AssetError, match=r"base(_visual)?\.dae' of link 'base' is COLLADA.*pip install pycollada"):
        convert(urdf, tmp_path / "out")


MJCF = """<mujoco model="daehand">
  <compiler meshdir="meshes"/>
  <asset><mesh name="palm" file="palm.dae" scale="1 1 2"/><mesh name="box" file="box.stl"/></asset>
  <worldbody><body name="hand"><freejoint/><geom type="mesh" mesh="palm"/></body>
    <body name="crate" pos="1 0 0"><freejoint/><geom type="mesh" mesh="box"/></body></worldbody>
</mujoco>"""


def test_mjcf_dae_mesh_converts_and_a_bad_one_names_the_mesh(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "palm.dae").write_text(collada(WEDGE, WEDGE_TRIS, unit=0.01))
    trimesh.Trimesh(BOX, BOX_TRIS).export(str(tmp_path / "meshes" / "box.stl"))
    xml = tmp_path / "hand.xml"
    xml.write_text(MJCF)
    conv = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out")))
    meshes = collision_vertices(conv.usd_path)
    assert same_points(meshes["hand"][0], WEDGE * 0.01 * [1.0, 1.0, 2.0])
    assert same_points(meshes["crate"][0], BOX)
    (tmp_path / "meshes" / "palm.dae").write_text("not xml at all")
    with pytest.raises(AssetError, match=r"palm\.dae' of <mesh name='palm'> could not be decoded") as err:
        MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out2")))
    assert err.value.path == str(xml)
