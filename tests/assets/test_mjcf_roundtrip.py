"""Gymnasium MJCF models -> USD, read back with pxr and compared with MuJoCo's compiled model."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pxr")
from pxr import UsdGeom, UsdPhysics, UsdShade  # noqa: E402
from usd_readback import (  # noqa: E402
    bodies,
    forward_kinematics,
    geom_prims,
    gfq,
    inertia_tensor,
    joint_frames,
    joints,
    local_pose,
    open_stage,
    qmat,
    qmul,
    qrot,
    same_rotation,
    scale_of,
)

from newton_gym.assets import MjcfConverter, MjcfConverterCfg  # noqa: E402

# half_cheetah.xml uses a compiler attribute MuJoCo has deprecated; that warning is MuJoCo's.
pytestmark = pytest.mark.filterwarnings("ignore:compiler attribute 'settotalmass':UserWarning")

GYM_ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")
MODELS = ["ant", "humanoid", "half_cheetah", "hopper"]
FREE, BALL, SLIDE, HINGE = 0, 1, 2, 3


class Converted:
    """One converted model with its MuJoCo oracle."""

    def __init__(self, name: str, out_dir: str):
        xml = os.path.join(GYM_ASSETS, f"{name}.xml")
        self.converter = MjcfConverter(MjcfConverterCfg(asset_path=xml, usd_dir=out_dir, usd_file_name=f"{name}.usda"))
        self.model = mujoco.MjModel.from_xml_path(xml)
        self.data = mujoco.MjData(self.model)
        mujoco.mj_kinematics(self.model, self.data)
        self.stage = open_stage(self.converter.usd_path)
        self.root = "/" + self.stage.GetDefaultPrim().GetName()
        self.bodies = bodies(self.stage, self.root)
        self.joints = joints(self.stage, self.root)

    def body_name(self, b: int) -> str:
        """Prim name of MuJoCo body b (unnamed bodies are written as body_<id>)."""
        return self.model.body(b).name or f"body_{b}"

    def body_world(self, name: str):
        return local_pose(self.bodies[name])


@pytest.fixture(scope="module", params=MODELS)
def conv(request, tmp_path_factory):
    out = str(tmp_path_factory.mktemp(request.param))
    cwd = os.getcwd()
    os.chdir(out)  # MuJoCo logs compiler warnings to ./MUJOCO_LOG.TXT: keep it out of the checkout
    try:
        return Converted(request.param, out)
    finally:
        os.chdir(cwd)


def test_stage_units_scene_and_root(conv):
    stage, model = conv.stage, conv.model
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert UsdPhysics.GetStageKilogramsPerUnit(stage) == 1.0
    assert UsdGeom.GetStageUpAxis(stage) == "Z"
    assert stage.GetDefaultPrim().HasAPI(UsdPhysics.ArticulationRootAPI)
    scene = UsdPhysics.Scene(stage.GetPrimAtPath("/physicsScene"))
    g = np.array(model.opt.gravity)
    assert np.allclose(np.array(scene.GetGravityDirectionAttr().Get()), g / np.linalg.norm(g))
    assert scene.GetGravityMagnitudeAttr().Get() == pytest.approx(np.linalg.norm(g), rel=1e-6)
    prim = scene.GetPrim()
    assert prim.GetAttribute("mjc:option:timestep").Get() == model.opt.timestep
    assert prim.GetAttribute("mjc:option:iterations").Get() == model.opt.iterations
    assert prim.GetAttribute("newton:maxSolverIterations").Get() == model.opt.iterations
    rate, attr = 1.0 / model.opt.timestep, prim.GetAttribute("newton:timeStepsPerSecond")
    if abs(rate - round(rate)) <= 1.0e-9 * rate:  # an int rate only where it is exact (humanoid: 0.003 s)
        assert attr.Get() == round(rate)
    else:
        assert not attr.HasAuthoredValue()


@pytest.mark.parametrize("timestep, rate", [(0.002, 500), (0.003, None), (0.0025, 400), (0.0007, None)])
def test_the_usd_step_is_the_mjcf_step(tmp_path, timestep, rate):
    """newton:timeStepsPerSecond (an int, read before mjc:option:timestep) is written only where 1/dt is an
    integer, so add_usd's physics_dt is MuJoCo's timestep exactly: 0.003 s stays 0.003 s, not 1 / 333."""
    import newton_gym as ng

    xml = tmp_path / "step.xml"
    xml.write_text(
        f'<mujoco><option timestep="{timestep!r}"/><worldbody><body><freejoint/>'
        '<geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
    )
    out = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path), usd_file_name="s.usda")).usd_path
    stage = open_stage(out)
    attr = stage.GetPrimAtPath("/physicsScene").GetAttribute("newton:timeStepsPerSecond")
    assert (attr.Get() if attr.HasAuthoredValue() else None) == rate
    result = ng.ModelBuilder().add_usd(out)
    assert result["physics_dt"] == pytest.approx(timestep, rel=1e-12)


def test_masses_and_inertias_match_mujoco(conv):
    m = conv.model
    for b in range(1, m.nbody):
        prim = conv.bodies[conv.body_name(b)]
        mass_api = UsdPhysics.MassAPI(prim)
        assert mass_api.GetMassAttr().Get() == pytest.approx(m.body_mass[b], rel=1e-5)
        assert np.allclose(mass_api.GetCenterOfMassAttr().Get(), m.body_ipos[b], atol=1e-6)
        usd = inertia_tensor(
            np.array(mass_api.GetDiagonalInertiaAttr().Get()), gfq(mass_api.GetPrincipalAxesAttr().Get())
        )
        ref = inertia_tensor(m.body_inertia[b], m.body_iquat[b])
        assert np.allclose(usd, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    # Massless links: one per extra joint on a multi-joint body.
    extra = sum(max(0, int(m.body_jntnum[b]) - 1) for b in range(1, m.nbody))
    massless = [p for p in conv.bodies.values() if UsdPhysics.MassAPI(p).GetMassAttr().Get() == 0.0]
    assert len(massless) == extra
    assert len(conv.bodies) == m.nbody - 1 + extra


def test_body_poses_at_qpos0(conv):
    for b in range(1, conv.model.nbody):
        pos, quat = conv.body_world(conv.body_name(b))
        assert np.allclose(pos, conv.data.xpos[b], atol=1e-9)
        assert same_rotation(quat, conv.data.xquat[b], atol=1e-9)


def test_joints_match_mujoco(conv):
    m, d = conv.model, conv.data
    for j in range(m.njnt):
        name = m.joint(j).name
        if m.jnt_type[j] == FREE:
            assert name not in conv.joints  # free joint: the body floats
            continue
        prim = conv.joints[name]
        kind = int(m.jnt_type[j])
        schema = {HINGE: UsdPhysics.RevoluteJoint, SLIDE: UsdPhysics.PrismaticJoint, BALL: UsdPhysics.SphericalJoint}[
            kind
        ]
        assert prim.IsA(schema)
        _, body1, _, _, pos1, rot1 = joint_frames(prim)
        child_pos, child_quat = local_pose(conv.stage.GetPrimAtPath(body1))
        anchor = child_pos + qrot(child_quat, pos1)
        axis = qrot(qmul(child_quat, rot1), np.array([1.0, 0.0, 0.0]))
        assert np.allclose(anchor, d.xanchor[j], atol=1e-6)
        assert np.allclose(axis, d.xaxis[j], atol=1e-6)
        assert prim.GetAttribute("physics:axis").Get() == "X"
        _check_limits(prim, kind, bool(m.jnt_limited[j]), m.jnt_range[j])
        dof = m.jnt_dofadr[j]
        assert prim.GetAttribute("mjc:damping").Get() == pytest.approx(m.dof_damping[dof])
        assert prim.GetAttribute("mjc:armature").Get() == pytest.approx(m.dof_armature[dof])
        assert prim.GetAttribute("newton:armature").Get() == pytest.approx(m.dof_armature[dof])
        assert prim.GetAttribute("mjc:frictionloss").Get() == pytest.approx(m.dof_frictionloss[dof])
        assert prim.GetAttribute("mjc:stiffness").Get() == pytest.approx(m.jnt_stiffness[j])
        assert prim.GetAttribute("mjc:ref").Get() == pytest.approx(m.qpos0[m.jnt_qposadr[j]])


def _check_limits(prim, kind, limited, rng):
    lower, upper = prim.GetAttribute("physics:lowerLimit"), prim.GetAttribute("physics:upperLimit")
    if not limited:
        assert not lower.HasAuthoredValue() and not upper.HasAuthoredValue()
        return
    expected = np.degrees(rng) if kind == HINGE else rng
    assert lower.Get() == pytest.approx(expected[0], rel=1e-6, abs=1e-5)
    assert upper.Get() == pytest.approx(expected[1], rel=1e-6, abs=1e-5)


def test_forward_kinematics_matches_mujoco_at_random_configurations(conv):
    """USD joint frames + joint coordinates (= MuJoCo qpos) reproduce MuJoCo's body poses."""
    m = conv.model
    d = mujoco.MjData(m)
    rng = np.random.default_rng(0)
    for _ in range(3):
        d.qpos[:] = m.qpos0 + rng.uniform(-0.5, 0.5, m.nq)
        for j in range(m.njnt):
            if m.jnt_type[j] == FREE:
                a = m.jnt_qposadr[j]
                d.qpos[a + 3 : a + 7] /= np.linalg.norm(d.qpos[a + 3 : a + 7])
        mujoco.mj_kinematics(m, d)
        q = {m.joint(j).name: float(d.qpos[m.jnt_qposadr[j]]) for j in range(m.njnt) if m.jnt_type[j] in (HINGE, SLIDE)}
        floating = {}
        for j in range(m.njnt):
            if m.jnt_type[j] == FREE:
                b = m.jnt_bodyid[j]
                floating[conv.body_name(b)] = (d.xpos[b].copy(), d.xquat[b].copy())
        poses = forward_kinematics(conv.stage, conv.root, q, floating)
        for b in range(1, m.nbody):
            pos, quat = poses[conv.body_name(b)]
            assert np.allclose(pos, d.xpos[b], atol=1e-5), conv.body_name(b)
            assert same_rotation(quat, d.xquat[b], atol=1e-5), conv.body_name(b)


def test_actuators_match_mujoco(conv):
    m = conv.model
    scope = conv.stage.GetPrimAtPath(f"{conv.root}/actuators")
    prims = list(scope.GetChildren())
    assert len(prims) == m.nu
    for a, prim in enumerate(prims):
        assert prim.GetTypeName() == "MjcActuator"
        joint = m.joint(m.actuator_trnid[a, 0]).name
        assert [str(t) for t in prim.GetRelationship("mjc:target").GetTargets()] == [f"{conv.root}/joints/{joint}"]
        assert np.allclose(prim.GetAttribute("mjc:gear").Get(), m.actuator_gear[a])
        assert prim.GetAttribute("mjc:ctrlRange:min").Get() == pytest.approx(m.actuator_ctrlrange[a, 0])
        assert prim.GetAttribute("mjc:ctrlRange:max").Get() == pytest.approx(m.actuator_ctrlrange[a, 1])
        assert prim.GetAttribute("mjc:ctrlLimited").Get() == ("true" if m.actuator_ctrllimited[a] else "false")
        assert np.allclose(prim.GetAttribute("mjc:gainPrm").Get(), m.actuator_gainprm[a])
        assert np.allclose(prim.GetAttribute("mjc:biasPrm").Get(), m.actuator_biasprm[a])
        assert prim.GetAttribute("mjc:gainType").Get() == "fixed"


def _geoms_by_name(conv):
    found = {}
    for prim in [*conv.bodies.values(), conv.stage.GetPrimAtPath(f"{conv.root}/world")]:
        for g in geom_prims(prim):
            found[g.GetName()] = g
    return found


def test_geoms_match_mujoco(conv):
    m, d = conv.model, conv.data
    by_name = _geoms_by_name(conv)
    assert len(by_name) == m.ngeom
    for g in range(m.ngeom):
        prim = by_name[m.geom(g).name]
        size, kind = m.geom_size[g], int(m.geom_type[g])
        if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
            assert prim.IsA(UsdGeom.Sphere) and UsdGeom.Sphere(prim).GetRadiusAttr().Get() == pytest.approx(size[0])
        elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
            capsule = UsdGeom.Capsule(prim)
            assert prim.IsA(UsdGeom.Capsule) and capsule.GetAxisAttr().Get() == "Z"
            assert capsule.GetRadiusAttr().Get() == pytest.approx(size[0])
            assert capsule.GetHeightAttr().Get() == pytest.approx(2 * size[1])
        elif kind == mujoco.mjtGeom.mjGEOM_BOX:
            assert prim.IsA(UsdGeom.Cube) and UsdGeom.Cube(prim).GetSizeAttr().Get() == 2.0
            assert np.allclose(scale_of(prim), size)
        elif kind == mujoco.mjtGeom.mjGEOM_PLANE:
            assert prim.IsA(UsdGeom.Plane)
        # World pose of the geom.
        parent_pos, parent_quat = local_pose(prim.GetParent())
        pos, quat = local_pose(prim)
        assert np.allclose(parent_pos + qrot(parent_quat, pos), d.geom_xpos[g], atol=1e-6)
        assert np.allclose(qmat(qmul(parent_quat, quat)), d.geom_xmat[g].reshape(3, 3), atol=1e-6)
        _check_contact(prim, m, g)


def _check_contact(prim, m, g):
    assert prim.HasAPI(UsdPhysics.CollisionAPI)
    assert prim.GetAttribute("mjc:margin").Get() == pytest.approx(m.geom_margin[g])
    assert prim.GetAttribute("mjc:gap").Get() == pytest.approx(m.geom_gap[g])
    assert prim.GetAttribute("mjc:condim").Get() == m.geom_condim[g]
    assert prim.GetAttribute("mjc:contype").Get() == m.geom_contype[g]
    assert prim.GetAttribute("mjc:conaffinity").Get() == m.geom_conaffinity[g]
    assert np.allclose(prim.GetAttribute("mjc:solref").Get(), m.geom_solref[g])
    assert np.allclose(prim.GetAttribute("mjc:solimp").Get(), m.geom_solimp[g])
    binding = UsdShade.MaterialBindingAPI(prim).GetDirectBinding("physics")
    material = UsdPhysics.MaterialAPI(binding.GetMaterial().GetPrim())
    assert material.GetStaticFrictionAttr().Get() == pytest.approx(m.geom_friction[g, 0])
    assert material.GetDynamicFrictionAttr().Get() == pytest.approx(m.geom_friction[g, 0])


def test_native_usdphysics_parser_accepts_the_stage(conv):
    """pxr's own UsdPhysics parser sees one articulation with every body and joint."""
    parse = getattr(UsdPhysics, "LoadUsdPhysicsFromRange", None)
    if parse is None:
        pytest.skip("this usd-core has no UsdPhysics parser")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        result = parse(conv.stage, ["/"])
    assert len(result[UsdPhysics.ObjectType.Articulation][0]) == 1
    assert len(result[UsdPhysics.ObjectType.RigidBody][0]) == len(conv.bodies)
    joint_kinds = (
        UsdPhysics.ObjectType.RevoluteJoint,
        UsdPhysics.ObjectType.PrismaticJoint,
        UsdPhysics.ObjectType.FixedJoint,
    )
    assert sum(len(result[k][0]) for k in joint_kinds if k in result) == len(conv.joints)


def test_reference_offset_keeps_mujoco_joint_coordinates(tmp_path):
    """hopper's rootz has ref=1.25: at q=ref the USD frames coincide, and limits stay in qpos units."""
    xml = tmp_path / "ref.xml"
    xml.write_text("""<mujoco model="refbot"><compiler angle="radian"/>
      <worldbody><body name="a" pos="0 0 1">
        <joint name="slide" type="slide" axis="0 0 1" ref="0.3" range="0 1"/>
        <joint name="hinge" type="hinge" axis="0 1 0" ref="0.5" range="-1 2"/>
        <geom type="box" size=".1 .2 .3"/></body></worldbody></mujoco>""")
    conv = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out")))
    stage = open_stage(conv.usd_path)
    hinge = stage.GetPrimAtPath("/refbot/joints/hinge")
    assert hinge.GetAttribute("physics:lowerLimit").Get() == pytest.approx(math.degrees(-1))
    assert hinge.GetAttribute("mjc:ref").Get() == pytest.approx(0.5)
    q = {"slide": 0.3, "hinge": 0.5}
    poses = forward_kinematics(stage, "/refbot", q, {})
    assert np.allclose(poses["a"][0], [0, 0, 1], atol=1e-6)
    assert same_rotation(poses["a"][1], [1, 0, 0, 0])
