"""Bad input files raise AssetError naming the file (and line), and leave nothing behind."""

from __future__ import annotations

import os
import shutil

import pytest

pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")

from newton_gym.assets import (  # noqa: E402
    AssetError,
    MeshConverter,
    MeshConverterCfg,
    MjcfConverter,
    MjcfConverterCfg,
    UrdfConverter,
    UrdfConverterCfg,
    robot_path,
)
from newton_gym.assets.robots import robot_source_path  # noqa: E402
from newton_gym.errors import NewtonGymError  # noqa: E402

MALFORMED = """<mujoco model="x">
  <worldbody>
    <body name="a">
      <geom type="sphere" size="0.1"
    </body>
  </worldbody>
</mujoco>"""


def convert_mjcf(path, out, **kwargs):
    return MjcfConverter(MjcfConverterCfg(asset_path=str(path), usd_dir=str(out), **kwargs))


@pytest.mark.parametrize("converter, cfg", [(MjcfConverter, MjcfConverterCfg), (UrdfConverter, UrdfConverterCfg),
                                            (MeshConverter, MeshConverterCfg)])
def test_missing_file(tmp_path, converter, cfg):
    missing = tmp_path / "nope.xml"
    with pytest.raises(AssetError, match="does not exist") as info:
        converter(cfg(asset_path=str(missing), usd_dir=str(tmp_path / "out")))
    assert str(missing) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, NewtonGymError)
    assert not (tmp_path / "out").exists()


def test_malformed_mjcf_names_file_and_line(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(MALFORMED)
    with pytest.raises(AssetError, match="malformed XML") as info:
        convert_mjcf(path, tmp_path / "out")
    assert info.value.path == str(path) and info.value.line == 5
    assert f"{path}:5:" in str(info.value)
    assert not (tmp_path / "out").exists()


def test_mujoco_schema_error_names_line(tmp_path):
    path = tmp_path / "schema.xml"
    path.write_text('<mujoco>\n<worldbody>\n<body name="a">\n<geom size="0.1" foo="2"/>\n</body>\n</worldbody>\n</mujoco>')
    with pytest.raises(AssetError, match="unrecognized attribute") as info:
        convert_mjcf(path, tmp_path / "out")
    assert info.value.line == 4 and str(path) in str(info.value)


def test_malformed_urdf_names_file_and_line(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text('<robot name="r">\n  <link name="a">\n  <link>\n</robot>')
    with pytest.raises(AssetError) as info:
        UrdfConverter(UrdfConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out")))
    assert info.value.line == 4 and str(path) in str(info.value)


def test_urdf_root_must_be_robot(tmp_path):
    path = tmp_path / "not_urdf.urdf"
    path.write_text("<mujoco/>")
    with pytest.raises(AssetError, match="<robot>"):
        UrdfConverter(UrdfConverterCfg(asset_path=str(path)))


def test_missing_mesh_in_mjcf(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text('<mujoco><asset><mesh name="m" file="gone.stl"/></asset>'
                    '<worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>')
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(AssetError, match="gone.stl") as info:
        convert_mjcf(path, out)
    assert str(path) in str(info.value)
    assert os.listdir(out) == []


def test_missing_include_in_mjcf(tmp_path):
    path = tmp_path / "i.xml"
    path.write_text('<mujoco><include file="parts/absent.xml"/></mujoco>')
    with pytest.raises(AssetError, match="absent.xml"):
        convert_mjcf(path, tmp_path / "out")


def test_missing_mesh_in_urdf(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text('<robot name="r"><link name="a"><visual><geometry><mesh filename="meshes/gone.obj"/>'
                    "</geometry></visual></link></robot>")
    with pytest.raises(AssetError, match="gone.obj") as info:
        UrdfConverter(UrdfConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out")))
    assert str(path) in str(info.value)
    assert not (tmp_path / "out").exists()


def test_failed_conversion_keeps_the_previous_usd(tmp_path):
    xml = tmp_path / "ant.xml"
    shutil.copy(robot_source_path("ant"), xml)
    good = convert_mjcf(xml, tmp_path / "out")
    before = open(good.usd_path, "rb").read()
    # Valid XML that MuJoCo refuses to compile: an actuator on a joint that does not exist.
    xml.write_text(xml.read_text().replace('joint="hip_4"', 'joint="no_such_joint"'))
    with pytest.raises(AssetError, match="no_such_joint|compile") as info:
        convert_mjcf(xml, tmp_path / "out")
    assert str(xml) in str(info.value)
    assert open(good.usd_path, "rb").read() == before
    assert os.listdir(tmp_path / "out") == ["ant.usd"]


def test_failed_conversion_removes_a_folder_it_created(tmp_path, monkeypatch):
    import newton_gym.assets.base as base

    def refuse(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(base.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        convert_mjcf(robot_source_path("inverted_pendulum"), tmp_path / "new" / "out")
    assert not (tmp_path / "new" / "out").exists()


def test_unknown_robot_name_lists_valid_ones():
    with pytest.raises(AssetError, match="ant, humanoid, inverted_pendulum"):
        robot_path("spot")


def test_invalid_configuration_values(tmp_path):
    with pytest.raises(ValueError, match="collision_type"):
        MjcfConverter(MjcfConverterCfg(asset_path=robot_source_path("ant"), collision_type="Mesh"))
    with pytest.raises(ValueError, match="override_gain_type"):
        MjcfConverter(MjcfConverterCfg(asset_path=robot_source_path("ant"), override_gain_type="linear"))
    path = tmp_path / "cube.stl"
    trimesh.creation.box().export(str(path))
    with pytest.raises(ValueError, match="unit quaternion"):
        MeshConverter(MeshConverterCfg(asset_path=str(path), rotation=(0.0, 0.0, 0.0, 2.0)))
