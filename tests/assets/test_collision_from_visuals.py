"""``collision_from_visuals`` on a robot standing on a floor (project issue 13, F5): the visual geoms of
each link become its colliders, while the floor (a world-body plane, with no visual stand-in) and a link
without visual geoms keep their colliders. The floor used to lose its CollisionAPI, so the robot fell
through it."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("mujoco")
pytest.importorskip("pxr")
from pxr import UsdGeom, UsdPhysics  # noqa: E402
from usd_readback import open_stage  # noqa: E402

import newton_gym as ng  # noqa: E402
from newton_gym.assets import MjcfConverter, MjcfConverterCfg  # noqa: E402

# A unit cube as a Wavefront OBJ (MuJoCo reads OBJ itself): the torso's visual mesh.
CUBE_OBJ = """v -0.1 -0.1 -0.1
v 0.1 -0.1 -0.1
v 0.1 0.1 -0.1
v -0.1 0.1 -0.1
v -0.1 -0.1 0.1
v 0.1 -0.1 0.1
v 0.1 0.1 0.1
v -0.1 0.1 0.1
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

FLOORBOT = """<mujoco model="floorbot">
  <asset><mesh name="shell" file="shell.obj"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="torso" pos="0 0 0.5"><freejoint/>
      <geom name="shell" type="mesh" mesh="shell" contype="0" conaffinity="0"/>
      <geom name="core" type="sphere" size="0.05"/>
      <body name="tail" pos="0.3 0 0"><joint type="hinge" axis="0 1 0"/>
        <geom name="stub" type="box" size="0.05 0.05 0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def _convert(tmp_path, from_visuals):
    (tmp_path / "shell.obj").write_text(CUBE_OBJ)
    xml = tmp_path / "floorbot.xml"
    xml.write_text(FLOORBOT)
    cfg = MjcfConverterCfg(
        asset_path=str(xml),
        usd_dir=str(tmp_path / f"out_{from_visuals}"),
        usd_file_name="floorbot.usda",
        collision_from_visuals=from_visuals,
    )
    return MjcfConverter(cfg).usd_path


def _is_collider(stage, path):
    prim = stage.GetPrimAtPath(path)
    assert prim, path
    return prim.HasAPI(UsdPhysics.CollisionAPI)


@pytest.mark.parametrize("from_visuals", [False, True])
def test_floor_keeps_its_collider(tmp_path, from_visuals):
    stage = open_stage(_convert(tmp_path, from_visuals))
    assert _is_collider(stage, "/floorbot/world/floor")
    floor = stage.GetPrimAtPath("/floorbot/world/floor")
    assert floor.GetAttribute("mjc:contype").Get() == 1 and floor.GetAttribute("mjc:conaffinity").Get() == 1
    # a link without visual geoms has nothing to swap in: its collider stays
    assert _is_collider(stage, "/floorbot/tail/stub")
    # the torso's visual mesh and its collider swap roles only under collision_from_visuals
    assert _is_collider(stage, "/floorbot/torso/shell") is from_visuals
    assert _is_collider(stage, "/floorbot/torso/core") is not from_visuals
    if from_visuals:
        core = stage.GetPrimAtPath("/floorbot/torso/core")
        assert UsdGeom.Imageable(core).GetPurposeAttr().Get() == "guide"
        assert core.GetAttribute("mjc:contype").Get() == 0


def test_the_imported_robot_has_the_floor_and_its_visual_collider(tmp_path):
    builder = ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unrelated import notes (MuJoCo attributes kept for inspection)
        result = builder.add_usd(_convert(tmp_path, True))
    shapes = result["path_shape_map"]
    assert {"/floorbot/world/floor", "/floorbot/torso/shell", "/floorbot/tail/stub"} <= set(shapes)
    assert "/floorbot/torso/core" not in shapes
    model = builder.finalize("cpu")
    assert model.shape_body.numpy()[shapes["/floorbot/world/floor"]] == -1
