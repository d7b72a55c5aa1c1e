"""MJCF tendons end to end against MuJoCo C: MJCF -> converter -> USD (``MjcTendon`` prims) -> ``add_usd``
-> ``SolverGeneralized``.

* Dynamic: SolverGeneralized stepped beside MuJoCo on the source file for 1 s at its dt (implicitfast,
  Newton), tendon actuators driven by the same control: every body within 1e-3 m of MuJoCo's up to 0.5 s,
  every tendon length within 1e-4 m of MuJoCo's ``ten_length`` over the whole second. Cases: (a) a fixed
  tendon coupling two hinges with a spring, a damper and a limit that becomes active; (b) a spatial tendon
  through three sites (world, link 1, link 2) with a limit that becomes active and a motor on the tendon.
* (c) A spatial tendon wrapping a cylinder geom is skipped, and so is the motor on it, each with a warning
  naming it (the converter never drops silently); the tendon beside it still converts.
* Round trip: every attribute MuJoCo compiled (stiffness, a spring dead band, damping, friction loss,
  armature, limit, margin, solref / solimp of limit and friction) is on the USD prim and in the builder's
  tendon table; fixed-tendon coefficients stay per radian under MJCF's default ``<compiler angle="degree">``
  (MuJoCo's convention), on a hinge and a slide; a path that visits a site twice keeps its order
  (``mjc:path:indices``); the model follows MuJoCo's tendon lengths with all of it; stage units
  (metersPerUnit, kilogramsPerUnit) scale lengths, angular joints' coefficients and forces.
* Bad input: a relationship to a missing prim, a coefficient count other than the path's, non-finite values,
  a fixed tendon on a ball joint, ... -> ImportFailedError naming the tendon prim, the builder unchanged;
  wrapping geometry or pulleys authored on an ``MjcTendon`` -> a warning naming it, the tendon skipped.

The worst differences are printed by ``pytest -s``.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
Usd = pytest.importorskip("pxr.Usd")
from pxr import Sdf, UsdGeom, UsdPhysics  # noqa: E402

from newton_gym.assets import MjcfConverter, MjcfConverterCfg  # noqa: E402
from newton_gym.errors import AssetWarning, ImportFailedError  # noqa: E402
from newton_gym.sim import ModelBuilder  # noqa: E402
from newton_gym.solvers import Actuators, SolverGeneralized  # noqa: E402
from newton_gym.usd import UsdImportWarning  # noqa: E402

SECONDS, HALF = 1.0, 0.5
BODY_ATOL = 1e-3  # [m], up to HALF
LENGTH_ATOL = 1e-4  # [m], over SECONDS

ARM = """<mujoco model="arm"><option timestep="0.002" integrator="implicitfast"/>
<default><geom contype="0" conaffinity="0"/></default>
<worldbody>
 <site name="anchor" pos="0 0 1.5"/>
 <geom name="drum" type="cylinder" pos="0.25 0 1.35" size="0.04 0.1" zaxis="0 1 0"/>
 <body name="l1" pos="0 0 1">
  <joint name="j1" type="hinge" axis="0 1 0" damping="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0.1" size="0.05" mass="1"/>
  <site name="s1" pos="0.3 0 0.08"/>
  <body name="l2" pos="0.5 0 0.1">
   <joint name="j2" type="hinge" axis="0.3 1 0" damping="0.02"/>
   <geom type="capsule" fromto="0 0 0 0.4 0.1 0" size="0.04" mass="0.7"/>
   <site name="s2" pos="0.35 0.08 0.02"/>
  </body>
 </body>
</worldbody>
<tendon>{tendons}</tendon>
<actuator>{actuators}</actuator>
</mujoco>"""

FIXED = ARM.format(
    tendons='<fixed name="couple" stiffness="20" damping="2" springlength="0.2" limited="true" range="-0.5 0.3" '
    'margin="0.01" solreflimit="0.01 1"><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>',
    actuators="",
)
SPATIAL = ARM.format(
    tendons='<spatial name="cable" limited="true" range="0.3 0.75" stiffness="5" damping="0.4">'
    '<site site="anchor"/><site site="s1"/><site site="s2"/></spatial>',
    actuators='<motor name="pull" tendon="cable" gear="2" ctrlrange="-5 5"/>',
)
WRAPPED = ARM.format(
    tendons='<spatial name="cable"><site site="anchor"/><site site="s1"/></spatial>'
    '<spatial name="wrapped" limited="true" range="0 1"><site site="anchor"/><geom geom="drum"/>'
    '<site site="s2"/></spatial>',
    actuators='<motor name="pull" tendon="cable"/><motor name="reel" tendon="wrapped"/>',
)

# A hinge and a slide coupled by a fixed tendon with every attribute set; a spatial tendon that visits s1
# twice; a ball joint and a world geom for the bad-input cases. MJCF's default angle unit is degrees.
PARAMS = """<mujoco model="params"><compiler angle="degree"/>
<option timestep="0.002" integrator="implicitfast"/>
<default><geom contype="0" conaffinity="0"/></default>
<worldbody>
 <site name="anchor" pos="0 0 1.5"/>
 <geom name="post" type="cylinder" pos="0.5 0 1.5" size="0.03 0.1"/>
 <body name="l1" pos="0 0 1">
  <joint name="j1" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0.1" size="0.05" mass="1"/>
  <site name="s1" pos="0.3 0 0.08"/>
  <body name="l2" pos="0.5 0 0.1">
   <joint name="j2" type="hinge" axis="0 1 0" damping="0.02"/>
   <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04" mass="0.7"/>
   <site name="s2" pos="0.35 0 0.02"/>
  </body>
 </body>
 <body name="cart" pos="0 1 1">
  <joint name="sl" type="slide" axis="1 0 0"/><geom type="box" size="0.05 0.05 0.05" mass="0.5"/>
 </body>
 <body name="bob" pos="0 2 1"><joint name="ball" type="ball"/><geom type="sphere" size="0.05" mass="0.3"/></body>
</worldbody>
<tendon>
 <fixed name="mixed" stiffness="15" springlength="-0.1 0.2" damping="1.5" frictionloss="0.05" armature="0.02"
   limited="true" range="-0.6 0.5" margin="0.01" solreflimit="0.03 0.9" solimplimit="0.8 0.9 0.002 0.4 3"
   solreffriction="0.04 1.1" solimpfriction="0.85 0.92 0.003 0.6 2.5">
  <joint joint="j1" coef="0.7"/><joint joint="sl" coef="-2"/>
 </fixed>
 <spatial name="loop" stiffness="3" damping="0.2">
  <site site="anchor"/><site site="s1"/><site site="s2"/><site site="s1"/>
 </spatial>
</tendon>
</mujoco>"""


def _convert(folder, text: str, name: str):
    path = folder / f"{name}.xml"
    path.write_text(text)
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(path), usd_dir=str(folder / "out"))).usd_path
    return mujoco.MjModel.from_xml_string(text), usd


def _root(m) -> str:
    return "/" + m.names[: m.names.index(b"\0")].decode()


def _tendon_path(m, t: int) -> str:
    return f"{_root(m)}/tendons/{m.tendon(t).name}"


def _actuators(records: list) -> Actuators | None:
    """The importer's actuator records (a motor each: gain 1, no bias) as the solver takes them."""
    if not records:
        return None
    return Actuators(
        np.array([r["dof"] for r in records], np.int32),
        np.array([r["gear"][0] for r in records]),
        np.array([r["ctrl_range"] if r["ctrl_limited"] else (0.0, 0.0) for r in records]).reshape(-1, 2),
        tendon=np.array([r["tendon"] for r in records], np.int32),
    )


def _run(m, usd, seconds: float):
    """Step both sides for ``seconds`` with ctrl 2 sin(3 t) + 0.5 on every actuator. Returns per step the worst
    body distance [m] and the worst tendon length difference [m], the steps with an active MuJoCo tendon
    limit, and MuJoCo's final data."""
    builder = ModelBuilder()
    result = builder.add_usd(usd)
    model = builder.finalize("cpu")
    solver = SolverGeneralized(model, actuators=_actuators(result["actuators"]))
    assert len(result["actuators"]) == m.nu and model.tendon_count == m.ntendon
    root = _root(m)
    ours = np.array([result["path_body_map"][f"{root}/{m.body(b).name}"] for b in range(1, m.nbody)])
    tendons = np.array([result["path_tendon_map"][_tendon_path(m, t)] for t in range(m.ntendon)])
    s0, s1 = model.state(), model.state()
    d = mujoco.MjData(m)
    dt = float(m.opt.timestep)
    body, length, active = [], [], 0
    for i in range(round(seconds / dt)):
        ctrl = 2.0 * math.sin(3.0 * i * dt) + 0.5
        d.ctrl[:] = ctrl
        if m.nu:
            solver.ctrl.assign(np.full(m.nu, ctrl, np.float32))
        solver.step(s0, s1, None, dt)
        s0, s1 = s1, s0
        mujoco.mj_step(m, d)
        # both sides' tendon lengths are those at the step's start
        length.append(float(np.abs(solver.data.ten_length.numpy()[tendons] - d.ten_length).max()))
        active += int(np.isin(d.efc_type[: d.nefc], (mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON,)).any())
        mujoco.mj_kinematics(m, d)  # poses of the new qpos, as body_q
        body.append(float(np.abs(s0.body_q.numpy()[ours, :3] - d.xpos[1:]).max()))
    return np.array(body), np.array(length), active, d


def _check(case, m, body, length, active, d):
    half = round(HALF / float(m.opt.timestep))
    print(
        f"\n{case}: worst body distance {body[:half].max():.2e} m up to {HALF} s ({body.max():.2e} m up to "
        f"{SECONDS} s), worst tendon length {length.max():.2e} m, tendon limit active at {active} steps"
    )
    assert np.ptp(d.qpos) > 0.5 or np.abs(d.qpos).max() > 0.5  # the arm really moves
    assert active > 10, f"{case}: the tendon limit was active at only {active} steps"
    assert body[:half].max() < BODY_ATOL, body[:half].max()
    assert length.max() < LENGTH_ATOL, length.max()


def test_fixed_tendon_coupling_two_hinges_with_spring_damper_and_limit_like_mujoco(tmp_path):
    m, usd = _convert(tmp_path, FIXED, "fixed")
    _check("fixed (a)", m, *_run(m, usd, SECONDS))


def test_spatial_tendon_through_sites_with_limit_and_motor_like_mujoco(tmp_path):
    m, usd = _convert(tmp_path, SPATIAL, "spatial")
    records = ModelBuilder().add_usd(usd)["actuators"]
    assert [(r["target"], r["dof"], r["tendon"], r["joint"]) for r in records] == [("/arm/tendons/cable", -1, 0, None)]
    _check("spatial with a motor (b)", m, *_run(m, usd, SECONDS))


def test_wrapping_tendon_and_its_motor_are_warned_by_name_and_skipped(tmp_path):
    with pytest.warns(UserWarning) as record:
        m, usd = _convert(tmp_path, WRAPPED, "wrapped")
    messages = [str(w.message) for w in record]
    skipped = [str(w.message) for w in record if "'wrapped'" in str(w.message) and w.category is AssetWarning]
    assert any("cylinder geom 'drum'" in t and "not simulated" in t for t in skipped), messages
    assert any("actuator 1 ('reel')" in t and "skipped" in t for t in messages), messages
    assert not any("'cable'" in t or "'pull'" in t for t in messages), messages
    stage = Usd.Stage.Open(usd)
    assert stage.GetPrimAtPath("/arm/tendons/cable").GetTypeName() == "MjcTendon"
    assert not stage.GetPrimAtPath("/arm/tendons/wrapped")
    assert not stage.GetPrimAtPath("/arm/actuators/reel")
    builder = ModelBuilder()
    result = builder.add_usd(usd)
    assert builder.tendon_count == 1 and list(result["path_tendon_map"]) == ["/arm/tendons/cable"]
    assert [r["path"] for r in result["actuators"]] == ["/arm/actuators/pull"]


# ---------------------------------------------------------------------------------------- round trip
@pytest.fixture(scope="module")
def params(tmp_path_factory):
    """(MjModel, USD path) of PARAMS, converted once."""
    return _convert(tmp_path_factory.mktemp("params"), PARAMS, "params")


_COLUMNS = (  # builder tendon column, MjModel field, USD attribute(s)
    ("stiffness", "tendon_stiffness", ("mjc:stiffness",)),
    ("springlength", "tendon_lengthspring", ("mjc:springlength",)),
    ("damping", "tendon_damping", ("mjc:damping",)),
    ("frictionloss", "tendon_frictionloss", ("mjc:frictionloss",)),
    ("armature", "tendon_armature", ("mjc:armature",)),
    ("range", "tendon_range", ("mjc:range:min", "mjc:range:max")),
    ("margin", "tendon_margin", ("mjc:margin",)),
    ("solref_limit", "tendon_solref_lim", ("mjc:solreflimit",)),
    ("solimp_limit", "tendon_solimp_lim", ("mjc:solimplimit",)),
    ("solref_friction", "tendon_solref_fri", ("mjc:solreffriction",)),
    ("solimp_friction", "tendon_solimp_fri", ("mjc:solimpfriction",)),
)


def test_every_tendon_attribute_round_trips_through_the_usd(params):
    m, usd = params
    stage = Usd.Stage.Open(usd)
    builder = ModelBuilder()
    result = builder.add_usd(usd)
    tt, tw = builder.tables["tendon"], builder.tables["tendon_wrap"]
    assert m.tendon_lengthspring[0].tolist() == [-0.1, 0.2]  # a dead band, as authored
    for t in range(m.ntendon):
        prim = stage.GetPrimAtPath(_tendon_path(m, t))
        i = result["path_tendon_map"][_tendon_path(m, t)]
        for column, field, names in _COLUMNS:
            expected = np.asarray(getattr(m, field)[t], np.float64)
            authored = [prim.GetAttribute(n).Get() for n in names]
            authored = np.asarray(authored[0] if len(names) == 1 else authored, np.float64)
            np.testing.assert_allclose(authored, expected, rtol=1e-12, err_msg=f"{prim.GetPath()} {names}")
            np.testing.assert_allclose(tt.value(column, i), expected, rtol=1e-12, err_msg=f"{column} of {t}")
        assert prim.GetAttribute("mjc:limited").Get() == ("true" if m.tendon_limited[t] else "false")
        assert bool(tt.value("limited", i)) == bool(m.tendon_limited[t])
    mixed, loop = (stage.GetPrimAtPath(_tendon_path(m, t)) for t in range(2))
    assert mixed.GetAttribute("mjc:type").Get() == "fixed" and loop.GetAttribute("mjc:type").Get() == "spatial"
    # coefficients per radian of the hinge (not per degree, whatever the compiler's angle unit) and per metre
    np.testing.assert_allclose(mixed.GetAttribute("mjc:path:coef").Get(), [0.7, -2.0])
    joints = [str(p) for p in mixed.GetRelationship("mjc:path").GetTargets()]
    assert joints == ["/params/joints/j1", "/params/joints/sl"]
    i = result["path_tendon_map"]["/params/tendons/mixed"]
    rows = range(int(tt.value("wrap_start", i)), int(tt.value("wrap_end", i)))
    assert [int(tw.value("joint", r)) for r in rows] == [result["path_joint_map"][p] for p in joints]
    np.testing.assert_allclose([tw.value("coef", r) for r in rows], m.wrap_prm[:2])
    # a relationship holds a target once: the path visiting s1 twice is indices into the targets
    sites = [str(p) for p in loop.GetRelationship("mjc:path").GetTargets()]
    assert sites == ["/params/world/anchor", "/params/l1/s1", "/params/l2/s2"]
    assert list(loop.GetAttribute("mjc:path:indices").Get()) == [0, 1, 2, 1]
    i = result["path_tendon_map"]["/params/tendons/loop"]
    rows = range(int(tt.value("wrap_start", i)), int(tt.value("wrap_end", i)))
    assert [int(tw.value("site", r)) for r in rows] == [result["path_site_map"][sites[k]] for k in (0, 1, 2, 1)]


def test_round_trip_model_follows_mujocos_tendon_lengths(params):
    m, usd = params
    body, length, _, d = _run(m, usd, 0.3)
    print(f"\nround trip: worst body distance {body.max():.2e} m, worst tendon length {length.max():.2e} m")
    assert abs(d.qpos[m.joint("sl").qposadr[0]]) > 0.01  # the tendon's spring drags the cart
    assert body.max() < BODY_ATOL and length.max() < LENGTH_ATOL


def _copy(usd, folder):
    """An editable stage on a copy of ``usd`` (edits never reach the converter's file or its layer)."""
    path = str(folder / "edited.usda")
    Sdf.Layer.FindOrOpen(usd).Export(path)
    return Usd.Stage.Open(path)


def test_stage_units_scale_lengths_coefficients_and_forces(params, tmp_path):
    m, usd = params
    reference = ModelBuilder()
    reference.add_usd(usd)
    stage = _copy(usd, tmp_path)
    UsdGeom.SetStageMetersPerUnit(stage, 0.01)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 2.0)
    builder = ModelBuilder()
    builder.add_usd(stage)
    ref, tt = reference.tables["tendon"], builder.tables["tendon"]
    for column, scale in (
        ("range", 0.01),
        ("springlength", 0.01),
        ("margin", 0.01),
        ("stiffness", 2.0),  # [N/m] = kg / s^2
        ("damping", 2.0),
        ("frictionloss", 0.02),  # [N] = kg m / s^2
        ("armature", 2.0),
        ("solref_limit", 1.0),
    ):
        np.testing.assert_allclose(tt.value(column, 0), scale * np.asarray(ref.value(column, 0)), err_msg=column)
    # hinge coefficient: stage length per radian -> m per radian; slide: length per length, unitless
    np.testing.assert_allclose(builder.tables["tendon_wrap"].get("coef")[:2], [0.7 * 0.01, -2.0])


# ---------------------------------------------------------------------------------------- bad input
def _targets(path, *targets):
    def edit(stage):
        stage.GetPrimAtPath(path).GetRelationship("mjc:path").SetTargets(list(targets))

    return edit


def _set(path, name, type_name, value):
    def edit(stage):
        stage.GetPrimAtPath(path).CreateAttribute(name, getattr(Sdf.ValueTypeNames, type_name), True).Set(value)

    return edit


MIXED, LOOP = "/params/tendons/mixed", "/params/tendons/loop"  # LOOP's path: indices 0 1 2 1 of 3 targets
ANCHOR, S2 = "/params/world/anchor", "/params/l2/s2"
BAD = {
    "missing joint": (_targets(MIXED, "/params/joints/j1", "/params/joints/nope"), MIXED, "does not exist"),
    "missing site": (_targets(LOOP, ANCHOR, "/params/l1/gone", S2), LOOP, "does not exist"),
    "no path": (_targets(MIXED), MIXED, "has no mjc:path"),
    "coef count": (_set(MIXED, "mjc:path:coef", "DoubleArray", [0.7]), MIXED, "1 coefficients for the 2 joints"),
    "inf coef": (_set(MIXED, "mjc:path:coef", "DoubleArray", [0.7, math.inf]), MIXED, "must be finite"),
    "nan coef": (_set(MIXED, "mjc:path:coef", "DoubleArray", [math.nan, 1.0]), MIXED, "NaN"),
    "inf stiffness": (_set(MIXED, "mjc:stiffness", "Double", math.inf), MIXED, "infinite"),
    "nan range": (_set(LOOP, "mjc:range:max", "Double", math.nan), LOOP, "NaN"),
    "negative damping": (_set(LOOP, "mjc:damping", "Double", -1.0), LOOP, "non-negative"),
    "ball joint": (_targets(MIXED, "/params/joints/j1", "/params/joints/ball"), MIXED, "a joint with 3 DOFs"),
    "body in a fixed path": (_targets(MIXED, "/params/joints/j1", "/params/l1"), MIXED, "is not a joint"),
    "body in a spatial path": (_targets(LOOP, ANCHOR, "/params/l1", S2), LOOP, "neither a site"),
    "unknown type": (_set(LOOP, "mjc:type", "Token", "pulley"), LOOP, "unknown tendon type 'pulley'"),
    "indices": (_set(LOOP, "mjc:path:indices", "IntArray", [0, 1, 5]), LOOP, "indices into the 3"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_tendon_prim_fails_naming_it_and_leaves_the_builder_unchanged(params, tmp_path, case):
    edit, path, reason = BAD[case]
    m, usd = params
    stage = _copy(usd, tmp_path)
    edit(stage)
    builder = ModelBuilder()
    builder.add_usd(usd)  # something already in the builder
    before = {name: table.count for name, table in builder.tables.items()}
    with pytest.raises(ImportFailedError, match=re.escape(path)) as info:
        builder.add_usd(stage)
    assert reason in str(info.value), str(info.value)
    assert {name: table.count for name, table in builder.tables.items()} == before


@pytest.mark.parametrize(
    "case, edit, reason",
    [
        ("wrapping geom", _targets(LOOP, ANCHOR, "/params/world/post", "/params/l1/s1"), "wraps"),
        ("pulley", _set(LOOP, "mjc:path:divisors", "DoubleArray", [1.0, 2.0]), "mjc:path:divisors"),
    ],
)
def test_wrapping_or_pulleys_in_the_usd_are_warned_and_the_tendon_skipped(params, tmp_path, case, edit, reason):
    m, usd = params
    stage = _copy(usd, tmp_path)
    edit(stage)
    builder = ModelBuilder()
    with pytest.warns(UsdImportWarning, match=re.escape(LOOP)) as record:
        result = builder.add_usd(stage)
    assert any(reason in str(w.message) and "not simulated" in str(w.message) for w in record)
    assert list(result["path_tendon_map"]) == [MIXED] and builder.tendon_count == 1
