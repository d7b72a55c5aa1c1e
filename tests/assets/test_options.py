"""Converter options: fix_base, link_density, collision_from_visuals, collision_type, self_collision,
import_physics_scene and actuator overrides."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")
from pxr import UsdGeom, UsdPhysics  # noqa: E402
from usd_readback import bodies, joint_frames, joints, open_stage  # noqa: E402

from newton_gym.assets import MjcfConverter, MjcfConverterCfg, UrdfConverter, UrdfConverterCfg  # noqa: E402
from newton_gym.assets.robots import robot_source_path  # noqa: E402

MESH_ROBOT = """<mujoco model="meshbot">
  <asset><mesh name="blob" file="blob.stl"/></asset>
  <worldbody>
    <body name="free" pos="0 0 1"><freejoint/><geom type="mesh" mesh="blob"/></body>
    <body name="plain" pos="1 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.3"/></body>
  </worldbody>
</mujoco>"""


def mjcf(tmp_path, asset, **kwargs):
    cfg = MjcfConverterCfg(asset_path=str(asset), usd_dir=str(tmp_path), usd_file_name="out.usda", **kwargs)
    return open_stage(MjcfConverter(cfg).usd_path)


@pytest.fixture()
def mesh_robot(tmp_path):
    trimesh.creation.box((0.1, 0.2, 0.3)).export(str(tmp_path / "blob.stl"))
    xml = tmp_path / "meshbot.xml"
    xml.write_text(MESH_ROBOT)
    return xml


def test_fix_base_welds_the_floating_root(tmp_path):
    stage = mjcf(tmp_path, robot_source_path("ant"), fix_base=True)
    body0, body1, pos0, *_ = joint_frames(joints(stage, "/ant")["torso_fixed"])
    assert body0 is None and body1 == "/ant/torso"
    assert tuple(pos0) == pytest.approx((0.0, 0.0, 0.75))


def test_link_density_applies_to_default_density_geoms_only(tmp_path, mesh_robot):
    stage = mjcf(tmp_path / "a", mesh_robot, link_density=500.0)
    found = bodies(stage, "/meshbot")
    mass = UsdPhysics.MassAPI(found["plain"]).GetMassAttr().Get()
    assert mass == pytest.approx(500.0 * 0.2 * 0.4 * 0.6, rel=1e-6)
    # ant.xml gives its geoms an explicit density (5): unchanged.
    ant = mjcf(tmp_path / "b", robot_source_path("ant"))
    ant_dense = mjcf(tmp_path / "c", robot_source_path("ant"), link_density=500.0)
    torso = [UsdPhysics.MassAPI(bodies(s, "/ant")["torso"]).GetMassAttr().Get() for s in (ant, ant_dense)]
    assert torso[0] == torso[1]


@pytest.mark.parametrize(
    "kind, token", [("Convex Decomposition", "convexDecomposition"), ("Bounding Cube", "boundingCube")]
)
def test_collision_type_on_mesh_colliders(tmp_path, mesh_robot, kind, token):
    stage = mjcf(tmp_path, mesh_robot, collision_type=kind)
    prim = stage.GetPrimAtPath("/meshbot/free/geom_0")
    assert prim.IsA(UsdGeom.Mesh)
    assert UsdPhysics.MeshCollisionAPI(prim).GetApproximationAttr().Get() == token


def test_self_collision_flag(tmp_path):
    stage = mjcf(tmp_path / "a", robot_source_path("humanoid"))
    attr = stage.GetPrimAtPath("/humanoid").GetAttribute("newton:selfCollisionEnabled")
    assert not attr.HasAuthoredValue()  # MuJoCo's contype/conaffinity bitmasks rule
    stage = mjcf(tmp_path / "b", robot_source_path("humanoid"), self_collision=False)
    assert stage.GetPrimAtPath("/humanoid").GetAttribute("newton:selfCollisionEnabled").Get() is False


def test_physics_scene_not_imported(tmp_path):
    stage = mjcf(tmp_path, robot_source_path("humanoid"), import_physics_scene=False)
    scene = stage.GetPrimAtPath("/physicsScene")
    assert UsdPhysics.Scene(scene).GetGravityMagnitudeAttr().Get() == pytest.approx(9.81)
    assert not scene.GetAttribute("mjc:option:timestep").HasAuthoredValue()
    assert not scene.GetAttribute("newton:timeStepsPerSecond").HasAuthoredValue()


def test_actuator_overrides(tmp_path):
    stage = mjcf(
        tmp_path,
        robot_source_path("ant"),
        override_gain_type="fixed",
        override_bias_type="affine",
        override_gain_prm=[50.0],
        override_bias_prm=[0.0, -50.0, -2.0],
    )
    for prim in stage.GetPrimAtPath("/ant/actuators").GetChildren():
        assert prim.GetAttribute("mjc:biasType").Get() == "affine"
        assert list(prim.GetAttribute("mjc:gainPrm").Get()) == [50.0] + [0.0] * 9
        assert list(prim.GetAttribute("mjc:biasPrm").Get())[:3] == [0.0, -50.0, -2.0]


URDF = """<robot name="vis">
  <link name="a">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><sphere radius="0.3"/></geometry></visual>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
</robot>"""


def test_collision_from_visuals(tmp_path):
    urdf = tmp_path / "vis.urdf"
    urdf.write_text(URDF)
    cfg = UrdfConverterCfg(asset_path=str(urdf), usd_dir=str(tmp_path / "o"), collision_from_visuals=True)
    stage = open_stage(UrdfConverter(cfg).usd_path)
    sphere, cube = stage.GetPrimAtPath("/vis/a").GetChildren()
    assert sphere.IsA(UsdGeom.Sphere) and sphere.HasAPI(UsdPhysics.CollisionAPI)
    assert sphere.GetAttribute("mjc:contype").Get() == 1
    assert cube.IsA(UsdGeom.Cube) and not cube.HasAPI(UsdPhysics.CollisionAPI)
    assert UsdGeom.Imageable(cube).GetPurposeAttr().Get() == "guide"


@pytest.mark.parametrize(
    "option, named",
    [
        ('noslip_iterations="3"', "noslip_iterations=3"),
        ('cone="elliptic" impratio="100"', "impratio=100"),
        ('impratio="10"', "impratio=10"),  # pyramidal too: MuJoCo 4 divides the pyramid rows' R by impratio
    ],
)
def test_options_the_solver_does_not_simulate_are_named(tmp_path, option, named):
    from newton_gym.assets import MjcfConverter, MjcfConverterCfg
    from newton_gym.errors import AssetWarning

    xml = tmp_path / "opt.xml"
    xml.write_text(
        f'<mujoco><option {option}/><worldbody><body><freejoint/><geom type="sphere" size="0.1"/></body>'
        "</worldbody></mujoco>"
    )
    with pytest.warns(AssetWarning, match=rf"opt\.xml: <option {re.escape(named)}> not simulated"):
        MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o")))


def test_default_options_are_not_warned_about(tmp_path):
    import warnings

    from newton_gym.assets import MjcfConverter, MjcfConverterCfg

    xml = tmp_path / "quiet.xml"
    xml.write_text(
        '<mujoco><option impratio="1"/><worldbody><body><freejoint/><geom type="sphere" size="0.1"/></body>'
        "</worldbody></mujoco>"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o")))


def test_fluid_medium_is_written_and_read_not_warned(tmp_path):
    """``<option density viscosity wind>`` (MuJoCo's inertia-box fluid model, simulated) becomes the scene's
    MjcSceneAPI attributes, without a warning, and the importer puts it on the builder; ``<flag
    gravity="disable">`` is written as ``mjc:flag:gravity = false`` and switches the imported gravity off."""
    import warnings

    from newton_gym.sim import ModelBuilder

    xml = tmp_path / "fluid.xml"
    xml.write_text(
        '<mujoco><option density="1.2" viscosity="0.00002" wind="1 -2 0.5"><flag gravity="disable"/></option>'
        '<worldbody><body><freejoint/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o"))).usd_path
    stage = open_stage(path)
    scene = stage.GetPrimAtPath("/physicsScene")
    assert scene.GetAttribute("mjc:option:density").Get() == 1.2
    assert scene.GetAttribute("mjc:option:viscosity").Get() == 0.00002
    assert tuple(scene.GetAttribute("mjc:option:wind").Get()) == (1.0, -2.0, 0.5)
    assert scene.GetAttribute("mjc:flag:gravity").Get() is False
    builder = ModelBuilder()
    builder.add_usd(path)
    assert (builder.fluid_density, builder.fluid_viscosity, builder.wind) == (1.2, 0.00002, (1.0, -2.0, 0.5))
    assert builder.gravity == 0.0
    model = builder.finalize("cpu")
    assert (model.fluid_density, model.fluid_viscosity, model.wind) == (1.2, 0.00002, (1.0, -2.0, 0.5))


def test_no_medium_writes_no_fluid_attributes(tmp_path):
    xml = tmp_path / "dry.xml"
    xml.write_text('<mujoco><worldbody><body><freejoint/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>')
    path = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o"))).usd_path
    stage = open_stage(path)
    names = {a.GetName() for a in stage.GetPrimAtPath("/physicsScene").GetAttributes()}
    assert not names & {"mjc:option:density", "mjc:option:viscosity", "mjc:option:wind", "mjc:flag:gravity"}


def test_ellipsoid_fluid_geoms_are_named(tmp_path):
    """Geoms with ``fluidshape="ellipsoid"`` use MuJoCo's ellipsoid fluid model, which is not simulated:
    the warning names them (only in a medium: without one the shape has no effect)."""
    from newton_gym.errors import AssetWarning

    body = '<body><freejoint/><geom name="fin" type="ellipsoid" size=".1 .05 .01" fluidshape="ellipsoid"/></body>'
    xml = tmp_path / "fins.xml"
    xml.write_text(f'<mujoco><option density="1000"/><worldbody>{body}</worldbody></mujoco>')
    with pytest.warns(AssetWarning, match=r"fins\.xml: <geom fluidshape='ellipsoid'> not simulated \('fin'\)"):
        MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o")))
    import warnings

    dry = tmp_path / "dryfins.xml"
    dry.write_text(f"<mujoco><worldbody>{body}</worldbody></mujoco>")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MjcfConverter(MjcfConverterCfg(asset_path=str(dry), usd_dir=str(tmp_path / "p")))


@pytest.mark.parametrize("flag", ['contact="disable"', 'constraint="disable"', ""])
def test_disabled_contacts_are_written_as_colliders_that_do_not_collide(tmp_path, flag):
    """MuJoCo's ``<flag contact="disable">`` (dm_control's cartpole, whose cart would otherwise rest on its
    rails): every collider gets ``physics:collisionEnabled = false``, so the imported model has no contact
    pairs; a ball dropped on the floor falls through it as in MuJoCo C."""
    import mujoco

    from newton_gym.sim import ModelBuilder
    from newton_gym.solvers import SolverGeneralized

    text = (
        f"<mujoco><option><flag {flag}/></option><worldbody><geom type='plane' size='1 1 0.1'/>"
        "<body pos='0 0 0.2'><freejoint/><geom type='sphere' size='0.1'/></body></worldbody></mujoco>"
    )
    xml = tmp_path / "ball.xml"
    xml.write_text(text)
    path = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o"))).usd_path
    builder = ModelBuilder()
    builder.add_usd(path)
    model = builder.finalize("cpu")
    solver = SolverGeneralized(model)
    state = model.state()
    for _ in range(150):
        solver.step(state, state, None, 0.002)
    m = mujoco.MjModel.from_xml_string(text)
    d = mujoco.MjData(m)
    for _ in range(150):
        mujoco.mj_step(m, d)
    z = float(state.joint_q.numpy()[2])
    assert abs(z - d.qpos[2]) < 1e-3
    assert (z < 0.0) == bool(flag), z  # through the floor only where contacts are off


def test_free_joint_damping_armature_and_friction_are_named(tmp_path):
    """A free body is written without a joint, so its free joint's damping, armature, frictionloss and
    stiffness are not simulated: the warning names the joint, its body and each term it sets (none for a
    plain free joint)."""
    import warnings

    from newton_gym.assets import MjcfConverter, MjcfConverterCfg
    from newton_gym.errors import AssetWarning

    def convert(joint: str, name: str):
        xml = tmp_path / f"{name}.xml"
        xml.write_text(
            f'<mujoco><worldbody><body name="ball">{joint}<geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
        )
        MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / name)))

    with pytest.warns(AssetWarning, match=r"free joint 'root' of body 'ball': its damping, armature are not simulated"):
        convert('<joint name="root" type="free" damping="0.5" armature="0.01"/>', "damped")
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssetWarning)
        convert("<freejoint/>", "plain")
