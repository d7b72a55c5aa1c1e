"""MJCF sites become named frames end to end: converter (tagged Xforms), USD import (sites on their
bodies), world poses after forward kinematics against MuJoCo's site_xpos / site_xmat."""

import numpy as np
import pytest
import warp as wp

from newton_gym.assets import MjcfConverter, MjcfConverterCfg
from newton_gym.sim import ModelBuilder, eval_fk, site_transforms

mujoco = pytest.importorskip("mujoco")
Usd = pytest.importorskip("pxr.Usd")

_MJCF = """<mujoco model="legged">
<worldbody>
 <geom name="floor" type="plane" size="5 5 0.1"/>
 <site name="target" pos="0.3 -0.2 0.5" euler="10 20 30"/>
 <body name="thigh" pos="0 0 1" euler="0 15 0">
  <joint name="hip" type="hinge" axis="0 1 0" range="-90 90"/>
  <geom name="thigh_geom" type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04"/>
  <body name="shin" pos="0 0 -0.4">
   <joint name="knee" type="hinge" axis="0 1 0"/>
   <joint name="slide" type="slide" axis="0 0 1" range="-0.1 0.1"/>
   <geom name="foot" type="capsule" fromto="0 0 0 0.1 0 -0.4" size="0.03"/>
   <site name="foot" pos="0.1 0 -0.4" quat="0.9 0.1 -0.3 0.2"/>
  </body>
 </body>
</worldbody>
</mujoco>"""


def _rotation(q_xyzw):
    x, y, z, w = q_xyzw
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sites")
    path = folder / "legged.xml"
    path.write_text(_MJCF)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "dropped" warning for sites any more
        usd = MjcfConverter(MjcfConverterCfg(asset_path=str(path), usd_dir=str(folder / "out"))).usd_path
    return mujoco.MjModel.from_xml_path(str(path)), usd


def test_converter_writes_sites_as_tagged_xforms(converted):
    _, usd = converted
    stage = Usd.Stage.Open(usd)
    for path in ("/legged/shin/foot_1", "/legged/world/target"):  # the foot geom keeps the name "foot"
        prim = stage.GetPrimAtPath(path)
        assert prim and prim.GetTypeName() == "Xform", path
        assert prim.GetAttribute("mjc:site").Get() is True
    assert not stage.GetPrimAtPath("/legged/shin/foot").HasAttribute("mjc:site")


def test_imported_sites_follow_mujoco_site_poses(converted):
    mj, usd = converted
    b = ModelBuilder()
    result = b.add_usd(usd)
    sites = result["path_site_map"]
    assert set(sites) == {"/legged/shin/foot_1", "/legged/world/target"}
    assert all(s not in result["path_body_map"] and s not in result["path_shape_map"] for s in sites)
    model = b.finalize("cpu")
    assert model.site_count == 2
    assert model.site_body.numpy()[sites["/legged/world/target"]] == -1
    assert model.site_key[sites["/legged/shin/foot_1"]] == "/legged/shin/foot_1"
    mujoco_site = {"/legged/shin/foot_1": mj.site("foot").id, "/legged/world/target": mj.site("target").id}
    data = mujoco.MjData(mj)
    state = model.state()
    rng = np.random.default_rng(3)
    for _ in range(4):
        data.qpos[:] = rng.uniform(-1.0, 1.0, mj.nq) * np.array([1.5, 1.5, 0.1])
        mujoco.mj_kinematics(mj, data)
        q = wp.array(data.qpos.astype(np.float32), dtype=wp.float32, device="cpu")
        eval_fk(model, q, model.joint_qd, state)
        poses = site_transforms(model, state).numpy()
        for path, index in sites.items():
            s = mujoco_site[path]
            np.testing.assert_allclose(poses[index, :3], data.site_xpos[s], atol=1e-5)
            np.testing.assert_allclose(_rotation(poses[index, 3:]), data.site_xmat[s].reshape(3, 3), atol=1e-5)


def test_replicated_import_keeps_sites_per_world(converted):
    _, usd = converted
    robot = ModelBuilder()
    robot.add_usd(usd)
    b = ModelBuilder()
    b.replicate(robot, world_count=3, spacing=(3.0, 0.0, 0.0))
    model = b.finalize("cpu")
    assert model.site_count == 6
    assert model.site_world_start.numpy().tolist() == [0, 2, 4, 6, 6]
    poses = site_transforms(model, model.state()).numpy().reshape(3, 2, 7)
    np.testing.assert_allclose(poses[1, :, 0] - poses[0, :, 0], 3.0, atol=1e-5)


@pytest.mark.parametrize("name, feet", [("go1", ("FR", "FL", "RR", "RL")), ("g1", ())])
def test_shipped_unitree_robots_carry_their_sites(name, feet):
    import os

    import newton_gym.assets

    usd = os.path.join(os.path.dirname(newton_gym.assets.__file__), "robots", f"{name}.usda")
    source = mujoco.MjModel.from_xml_path(usd[: -len(".usda")] + ".xml")
    b = ModelBuilder()
    sites = b.add_usd(usd)["path_site_map"]
    assert len(sites) == source.nsite > 0
    names = {path.rsplit("/", 1)[-1] for path in sites}
    assert set(feet) <= names
