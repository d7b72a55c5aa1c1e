"""MJCF ``<hfield>`` end to end: converter (a Mesh in the heightfield form) -> add_usd -> finalize, against
MuJoCo's compiled hfield_data / hfield_size and geom_xpos / geom_xmat."""

import numpy as np
import pytest

from newton_gym import ModelBuilder
from newton_gym.assets import MjcfConverter, MjcfConverterCfg
from newton_gym.errors import AssetError, AssetWarning
from newton_gym.sim.heightfield import Heightfield
from newton_gym.sim.hostmath import quat_to_matrix
from newton_gym.sim.types import GeoType

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("pxr")
from pxr import Usd, UsdGeom, UsdPhysics  # noqa: E402

# 3 rows x 4 columns, uneven, so a transposed or flipped grid fails; hx = 1.3 is not a float32 number.
_INLINE = 'nrow="3" ncol="4" size="1.3 0.5 0.25 0.07" elevation="0 1 3 2  5 4 6 8  7 11 9 10"'

_MJCF = """<mujoco model="terrain">
<asset>
 <hfield name="bumps" {hfield}/>
</asset>
<worldbody>
 <geom name="ground" type="hfield" hfield="bumps" pos="0.4 -0.2 0.05" euler="0 0 35"
       friction="0.7 0.02 0.003" solref="0.03 0.9" condim="4" margin="0.01" group="2"/>
 <body name="ball" pos="0 0 1">
  <freejoint/>
  <geom name="ball_geom" type="sphere" size="0.1"/>
 </body>
</worldbody>
</mujoco>"""


def _write_png(path, rows: int, columns: int):
    from PIL import Image

    ramp = np.add.outer(np.arange(rows) * 37, np.arange(columns) * 11) % 256
    Image.fromarray(ramp.astype(np.uint8), mode="L").save(path)


def _convert(tmp_path, text, name="terrain"):
    xml = tmp_path / f"{name}.xml"
    xml.write_text(text)
    cfg = MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "usd"), usd_file_name=f"{name}.usda")
    return str(xml), MjcfConverter(cfg).usd_path


@pytest.fixture(params=["inline", "png"])
def converted(request, tmp_path):
    """(MuJoCo model, data, USD path) of the terrain MJCF with an inline or a PNG heightfield."""
    hfield = _INLINE
    if request.param == "png":
        _write_png(tmp_path / "bumps.png", 5, 7)
        hfield = 'file="bumps.png" size="1.3 0.5 0.25 0.07"'
    xml, usd = _convert(tmp_path, _MJCF.format(hfield=hfield))
    mj = mujoco.MjModel.from_xml_path(xml)
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    return mj, data, usd


def test_usd_holds_the_grid_as_a_mesh_collider_with_the_heightfield_attributes(converted):
    mj, _, usd = converted
    stage = Usd.Stage.Open(usd)
    prim = stage.GetPrimAtPath("/terrain/world/ground")
    assert prim.IsA(UsdGeom.Mesh) and prim.HasAPI(UsdPhysics.CollisionAPI)
    assert UsdPhysics.MeshCollisionAPI(prim).GetApproximationAttr().Get() == "none"
    nrow, ncol = int(mj.hfield_nrow[0]), int(mj.hfield_ncol[0])
    assert prim.GetAttribute("newton:heightfield:rows").Get() == nrow
    assert prim.GetAttribute("newton:heightfield:columns").Get() == ncol
    assert prim.GetAttribute("newton:heightfield:base").Get() == mj.hfield_size[0, 3]
    mesh = UsdGeom.Mesh(prim)
    points = np.asarray(mesh.GetPointsAttr().Get())
    field = Heightfield.from_mujoco(mj.hfield_data, nrow, ncol, mj.hfield_size[0])
    np.testing.assert_array_equal(points, field.points().astype(np.float32))
    assert list(mesh.GetFaceVertexCountsAttr().Get()) == [3] * (2 * (nrow - 1) * (ncol - 1))
    np.testing.assert_array_equal(np.asarray(mesh.GetFaceVertexIndicesAttr().Get()), field.triangles().ravel())


def test_add_usd_rebuilds_mujocos_field_and_pose(converted):
    mj, data, usd = converted
    builder = ModelBuilder()
    result = builder.add_usd(usd)
    model = builder.finalize()
    shape = result["path_shape_map"]["/terrain/world/ground"]
    assert model.shape_type.numpy()[shape] == GeoType.HFIELD and model.shape_body.numpy()[shape] == -1
    assert model.shape_heightfield.numpy()[shape] == 0 and len(model.heightfields) == 1
    field = model.heightfields[0]
    nrow, ncol = int(mj.hfield_nrow[0]), int(mj.hfield_ncol[0])
    size = mj.hfield_size[0]
    expected = (mj.hfield_data.reshape(nrow, ncol) * size[2]).astype(np.float32)
    np.testing.assert_array_equal(field.heights, expected)
    assert field.hx == np.float32(size[0]) and field.hy == np.float32(size[1])
    assert field.base == size[3]
    g = mj.geom("ground").id
    pose = model.shape_transform.numpy()[shape].astype(np.float64)
    np.testing.assert_allclose(pose[:3], data.geom_xpos[g], atol=1e-6)
    np.testing.assert_allclose(quat_to_matrix(pose[3:]), data.geom_xmat[g].reshape(3, 3), atol=1e-6)


def test_contact_parameters_follow_the_geom(converted):
    mj, _, usd = converted
    builder = ModelBuilder()
    shape = builder.add_usd(usd)["path_shape_map"]["/terrain/world/ground"]
    model = builder.finalize()
    g = mj.geom("ground").id
    assert model.shape_material_mu.numpy()[shape] == pytest.approx(mj.geom_friction[g, 0])
    assert model.shape_condim.numpy()[shape] == mj.geom_condim[g]
    np.testing.assert_allclose(model.shape_solref.numpy()[shape], mj.geom_solref[g], rtol=1e-6)
    assert model.shape_contact_margin.numpy()[shape] == pytest.approx(mj.geom_margin[g])


def test_replicated_worlds_share_one_field(converted):
    _, _, usd = converted
    robot = ModelBuilder()
    robot.add_usd(usd)
    scene = ModelBuilder()
    scene.replicate(robot, world_count=3)
    model = scene.finalize()
    fields = model.shape_heightfield.numpy()[model.shape_type.numpy() == GeoType.HFIELD]
    assert len(model.heightfields) == 1 and fields.tolist() == [0, 0, 0]


def test_a_field_on_a_moving_body_is_skipped_with_a_warning(tmp_path):
    text = _MJCF.format(hfield=_INLINE).replace(
        '<geom name="ball_geom"', '<geom name="carried" type="hfield" hfield="bumps"/>\n  <geom name="ball_geom"'
    )
    with pytest.warns(AssetWarning, match=r"'carried'.*moving body 'ball'.*static"):
        _, usd = _convert(tmp_path, text)
    stage = Usd.Stage.Open(usd)
    assert not stage.GetPrimAtPath("/terrain/ball/carried")
    assert stage.GetPrimAtPath("/terrain/world/ground")


def test_a_field_on_a_body_welded_to_the_world_is_written_in_the_world_frame(tmp_path):
    text = _MJCF.format(hfield=_INLINE).replace(
        "<worldbody>",
        '<worldbody>\n <body name="slab" pos="1 2 0.5" euler="0 0 90">\n'
        '  <geom name="slab_ground" type="hfield" hfield="bumps" pos="0.2 0 0.1"/>\n </body>',
    )
    xml, usd = _convert(tmp_path, text)
    mj = mujoco.MjModel.from_xml_path(xml)
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    builder = ModelBuilder()
    shapes = builder.add_usd(usd)["path_shape_map"]
    model = builder.finalize()
    pose = model.shape_transform.numpy()[shapes["/terrain/world/slab_ground"]].astype(np.float64)
    g = mj.geom("slab_ground").id
    np.testing.assert_allclose(pose[:3], data.geom_xpos[g], atol=1e-6)
    np.testing.assert_allclose(quat_to_matrix(pose[3:]), data.geom_xmat[g].reshape(3, 3), atol=1e-6)


def test_a_sphere_over_the_field_converts_and_imports(converted):
    _, _, usd = converted
    builder = ModelBuilder()
    result = builder.add_usd(usd)
    model = builder.finalize()
    types = model.shape_type.numpy()
    assert sorted(types.tolist()) == [GeoType.SPHERE, GeoType.HFIELD]
    assert model.body_count == 1 and not result["warnings"]


def test_a_png_that_does_not_decode_names_the_file(tmp_path):
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not an image")
    with pytest.raises(AssetError, match="broken.png"):
        _convert(tmp_path, _MJCF.format(hfield='file="broken.png" size="1 1 0.2 0.1"'))


@pytest.mark.filterwarnings("ignore::newton_gym.errors.AssetWarning")  # the non-finite token warns first
@pytest.mark.parametrize("size", ["-1 0.5 0.25 0.07", "1 0.5 0.25 0", "inf 0.5 0.25 0.07"])
def test_a_bad_size_names_the_file(tmp_path, size):
    hfield = _INLINE.replace('size="1.3 0.5 0.25 0.07"', f'size="{size}"')
    with pytest.raises(AssetError, match=r"terrain\.xml.*hfield"):
        _convert(tmp_path, _MJCF.format(hfield=hfield))


def test_a_png_field_is_found_in_meshdir_as_mujoco_finds_it(tmp_path):
    (tmp_path / "assets").mkdir()
    _write_png(tmp_path / "assets" / "bumps.png", 5, 7)
    text = _MJCF.format(hfield='file="bumps.png" size="1.3 0.5 0.25 0.07"').replace(
        "<asset>", '<compiler meshdir="assets"/>\n<asset>'
    )
    xml, usd = _convert(tmp_path, text)
    mj = mujoco.MjModel.from_xml_path(xml)
    builder = ModelBuilder()
    builder.add_usd(usd)
    field = builder.finalize("cpu").heightfields[0]
    expected = mj.hfield_data.reshape(5, 7) * mj.hfield_size[0, 2]
    np.testing.assert_allclose(field.heights, expected, atol=1e-6)
