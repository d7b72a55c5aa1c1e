"""Bad input files raise AssetError naming the file (and line), and leave nothing behind."""

from __future__ import annotations

import os
import re
import shutil
import warnings

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


@pytest.mark.parametrize(
    "converter, cfg",
    [(MjcfConverter, MjcfConverterCfg), (UrdfConverter, UrdfConverterCfg), (MeshConverter, MeshConverterCfg)],
)
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
    path.write_text(
        '<mujoco>\n<worldbody>\n<body name="a">\n<geom size="0.1" foo="2"/>\n</body>\n</worldbody>\n</mujoco>'
    )
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
    path.write_text(
        '<mujoco><asset><mesh name="m" file="gone.stl"/></asset>'
        '<worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
    )
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
    path.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="meshes/gone.obj"/>'
        "</geometry></visual></link></robot>"
    )
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


def _one_geom_mjcf(geom_attributes: str, body_attributes: str = "") -> str:
    return (
        '<mujoco model="m">\n<worldbody>\n'
        f'<body name="b" {body_attributes}><freejoint/>\n'
        f'<geom name="g" type="sphere" {geom_attributes}/></body>\n</worldbody>\n</mujoco>\n'
    )


@pytest.mark.parametrize(
    "geom, body, field, line",
    [
        ('size="0.1" friction="inf"', "", "geom_friction", 4),
        ('size="inf"', "", "geom_size", 4),
        ('size="0.1" pos="0 0 1e39"', "", "geom_pos", 4),  # finite in float64, inf as a USD float
        ('size="0.1"', 'pos="0 0 -inf"', "body_pos", 3),
    ],
)
def test_mjcf_non_finite_values_are_refused_with_their_line(tmp_path, geom, body, field, line):
    """MuJoCo compiles these values; the converter used to write them into USD as inf / NaN."""
    path = tmp_path / "bad.xml"
    path.write_text(_one_geom_mjcf(geom, body))
    with pytest.warns(UserWarning), pytest.raises(AssetError, match=field) as info:
        convert_mjcf(path, tmp_path / "out")
    assert info.value.path == str(path) and info.value.line == line
    assert not (tmp_path / "out").exists()


def test_mjcf_nan_that_mujoco_reads_as_unset_gives_a_warning_naming_the_line(tmp_path):
    from newton_gym.errors import AssetWarning

    path = tmp_path / "nanmass.xml"
    path.write_text(_one_geom_mjcf('size="0.1" mass="nan"'))
    with pytest.warns(AssetWarning, match=rf'{path}:4: attribute mass="nan"'):
        conv = convert_mjcf(path, tmp_path / "out", usd_file_name="m.usda")
    assert re.search(r"(?i)\bnan\b", open(conv.usd_path).read()) is None


def test_urdf_non_finite_value_is_refused_naming_the_link(tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><inertial><mass value="1"/>'
        '<origin xyz="0 0 inf"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>'
        "</inertial></link></robot>"
    )
    with pytest.warns(UserWarning), pytest.raises(AssetError, match="<body name='a'>"):
        UrdfConverter(UrdfConverterCfg(asset_path=str(urdf), usd_dir=str(tmp_path / "out")))


def test_layer_guard_refuses_non_finite_values_and_names_the_prim(tmp_path):
    """The last guard before any converter writes: a NaN anywhere (or an inf outside the attributes
    where the schema reads it as "no limit") names prim and attribute."""
    from pxr import Sdf, Usd, UsdGeom

    from newton_gym.assets.value_checks import check_layer_values

    layer = Sdf.Layer.CreateAnonymous(".usda")
    stage = Usd.Stage.Open(layer)
    UsdGeom.Xform.Define(stage, "/robot").AddTranslateOp().Set((0.0, 0.0, 1.0))
    joint = stage.DefinePrim("/robot/j", "PhysicsRevoluteJoint")
    joint.CreateAttribute("physics:lowerLimit", Sdf.ValueTypeNames.Float).Set(float("-inf"))
    joint.CreateAttribute("physics:breakForce", Sdf.ValueTypeNames.Float).Set(float("inf"))
    check_layer_values(layer, "robot.xml")  # the schema's "no limit" infinities are fine
    stage.GetPrimAtPath("/robot").GetAttribute("xformOp:translate").Set((0.0, float("nan"), 1.0))
    with pytest.raises(AssetError, match="/robot.xformOp:translate"):
        check_layer_values(layer, "robot.xml")


def test_every_dropped_mjcf_element_warns_once_naming_file_line_and_element(tmp_path):
    from newton_gym.errors import AssetWarning

    path = tmp_path / "parts.xml"
    path.write_text("""<mujoco model="m">
<worldbody>
 <body name="a"><freejoint/><geom name="ga" type="sphere" size="0.1"/>
  <site name="imu" pos="0 0 0.1"/>
 </body>
 <body name="b" pos="1 0 0"><freejoint/><geom type="sphere" size="0.1"/><site name="end"/></body>
</worldbody>
<tendon><spatial name="t"><site site="imu"/><site site="end"/></spatial></tendon>
<equality><tendon name="tie" tendon1="t"/></equality>
<sensor><gyro name="gyro" site="imu"/></sensor>
<keyframe><key name="start" qpos="0 0 1 1 0 0 0 1 0 1 1 0 0 0"/></keyframe>
</mujoco>""")
    with pytest.warns(AssetWarning) as record:
        convert_mjcf(path, tmp_path / "out")
    dropped = [str(w.message) for w in record if "dropped" in str(w.message)]
    assert len(dropped) == 2, dropped
    # sites (named frames), site-only spatial tendons and tendon equalities are written
    assert not any("<site" in d or "<tendon" in d or "<equality" in d for d in dropped), dropped
    for text, line in (("<sensor name='gyro'>", 10),):
        assert any(text in d and f"{path}:{line}:" in d for d in dropped), (text, dropped)
    assert any(f"{path}: <key name='start'>" in d for d in dropped)  # MuJoCo keeps no line for keys


@pytest.mark.parametrize("timestep", ["0", "1e-45", "nan"])
def test_mjcf_timestep_outside_the_usable_range_is_refused(tmp_path, timestep):
    """Found by the fuzz run: timestep 0 escaped as ZeroDivisionError, 1e-45 as pxr's Tf.ErrorException."""
    path = tmp_path / "t.xml"
    path.write_text(
        f'<mujoco model="m"><option timestep="{timestep}"/><worldbody><body name="b" pos="0 0 1">'
        '<freejoint/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
    )
    with pytest.raises(AssetError, match="timestep") as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            convert_mjcf(path, tmp_path / "out")
    assert info.value.path == str(path)
