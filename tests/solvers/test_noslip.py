"""MuJoCo's noslip pass (opt.noslip_iterations) against MuJoCo C on a box resting on a 0.3 rad incline whose
friction (0.8) holds it: the main solve's regularizer lets the box creep down the slope; the noslip sweeps
over the friction forces, without the regularizer, hold it. One step from the same state (pyramidal and
elliptic cones, Newton and PGS) and a half-second trajectory; and a two-link arm held by its joints' dry
friction (the noslip pass's joint friction rows)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import run

from newton_gym.errors import SolverError
from newton_gym.solvers import Option, SolverGeneralized

TILT = 0.3  # [rad] about y: the slope falls towards -x
_NORMAL = np.array([np.sin(TILT), 0.0, np.cos(TILT)])


def _xml(cone: str, noslip: int, depth: float) -> str:
    """The incline and a box whose bottom face lies ``depth`` [m] into it (all four corners in contact)."""
    p = (0.1 - depth) * _NORMAL
    return f"""<mujoco><compiler angle="radian"/>
  <option timestep="0.002" integrator="implicitfast" cone="{cone}" noslip_iterations="{noslip}"/>
  <worldbody><geom type="plane" size="2 2 .1" friction="0.8" euler="0 {TILT} 0"/>
    <body pos="{p[0]} {p[1]} {p[2]}" euler="0 {TILT} 0"><freejoint/>
      <geom type="box" size="0.1 0.08 0.1" mass="2" friction="0.8"/></body>
  </worldbody></mujoco>"""


def _ours(m, cone: str, solver: str, noslip: int):
    b, _, q0 = builder_from_mujoco(m)
    model = b.finalize("cpu")
    state = model.state()
    state.joint_q.assign(q0)
    solver = SolverGeneralized(model, cone=cone, solver=solver, iterations=100, noslip_iterations=noslip)
    return model, state, solver


def _one_step(cone: str, solver: str, noslip: int):
    """(MuJoCo's, our) velocity of the box after one step from rest, pressed 0.2 mm into the incline."""
    m = mujoco.MjModel.from_xml_string(_xml(cone, noslip, 2.0e-4))
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d)
    assert d.ncon == 4
    _, state, ours = _ours(m, cone, solver, noslip)
    ours.step(state, state, None, 0.002)
    return d.qvel.copy(), state.joint_qd.numpy().astype(np.float64)


@pytest.mark.parametrize("cone, solver", [("pyramidal", "newton"), ("elliptic", "newton"), ("pyramidal", "pgs")])
def test_noslip_step_follows_mujoco(cone, solver):
    ref0, ours0 = _one_step(cone, solver, 0)
    ref, ours = _one_step(cone, solver, 10)
    assert np.abs(ref - ref0).max() > 5.0e-4, "noslip changes MuJoCo's step here"
    np.testing.assert_allclose(ours0, ref0, atol=1.0e-6)
    np.testing.assert_allclose(ours, ref, atol=1.0e-6)


def _trajectories(cone: str, noslip: int, steps: int = 250):
    """(MuJoCo's, our) box positions over ``steps`` steps from rest on the incline."""
    m = mujoco.MjModel.from_xml_string(_xml(cone, noslip, 2.0e-4))
    d = mujoco.MjData(m)
    ref = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        ref.append(d.qpos[:3].copy())
    model, state, ours = _ours(m, cone, "newton", noslip)
    _, got = run(model, ours, steps, 0.002, state=state, record=lambda s: s.joint_q.numpy()[:3].copy())
    return np.asarray(ref), np.asarray(got, dtype=np.float64)


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_noslip_stops_the_creep_like_mujoco(cone):
    ref0, ours0 = _trajectories(cone, 0)
    ref, ours = _trajectories(cone, 4)
    creep0 = np.abs(ref0[-1] - ref0[0]).max()
    creep = np.abs(ref[-1] - ref[0]).max()
    assert creep < 0.5 * creep0, "noslip holds MuJoCo's box better than the regularized solve"
    assert np.abs(ref - ref0).max() > 1.0e-4, "noslip changes MuJoCo's motion here"
    np.testing.assert_allclose(ours0, ref0, atol=2.0e-5)
    np.testing.assert_allclose(ours, ref, atol=2.0e-5)


_ARM = """<mujoco><option timestep="0.002" integrator="implicitfast" noslip_iterations="{noslip}"/>
  <worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0" frictionloss="8"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03" mass="1"/>
      <body pos="0.5 0 0"><joint type="hinge" axis="0 1 0" frictionloss="8"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="0.5"/></body></body>
  </worldbody></mujoco>"""


def _arm(noslip: int, steps: int = 100):
    """(MuJoCo's, our) joint angles of a horizontal two-link arm whose dry friction holds it against gravity."""
    m = mujoco.MjModel.from_xml_string(_ARM.format(noslip=noslip))
    d = mujoco.MjData(m)
    ref = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        ref.append(d.qpos.copy())
    model, state, ours = _ours(m, "pyramidal", "newton", noslip)
    _, got = run(model, ours, steps, 0.002, state=state, record=lambda s: s.joint_q.numpy().copy())
    return np.asarray(ref), np.asarray(got, dtype=np.float64)


def test_noslip_holds_joint_dry_friction_like_mujoco():
    """The joints' dry-friction rows: the regularized solve lets the arm sag; noslip holds it (MuJoCo C)."""
    ref0, ours0 = _arm(0)
    ref, ours = _arm(5)
    assert np.abs(ref[-1]).max() < 0.2 * np.abs(ref0[-1]).max(), "noslip holds MuJoCo's arm better"
    np.testing.assert_allclose(ours0, ref0, atol=1.0e-6)
    np.testing.assert_allclose(ours, ref, atol=1.0e-6)


def test_noslip_options_are_checked():
    with pytest.raises(SolverError, match="noslip_iterations"):
        Option(noslip_iterations=-1)
    with pytest.raises(SolverError, match="noslip_tolerance"):
        Option(noslip_tolerance=-1.0)
    assert Option().noslip_iterations == 0 and Option().noslip_tolerance == 1.0e-6  # MuJoCo's defaults


def test_converter_writes_the_noslip_options_the_check_reads(tmp_path):
    from pxr import Usd

    from newton_gym.assets import MjcfConverter, MjcfConverterCfg
    from newton_gym.check.ours import solver_option
    from newton_gym.errors import AssetWarning

    xml = tmp_path / "ns.xml"
    xml.write_text(
        '<mujoco><option noslip_iterations="4" noslip_tolerance="1e-5"/><worldbody><body><freejoint/>'
        '<geom type="sphere" size="0.1"/></body></worldbody></mujoco>'
    )
    with pytest.warns(AssetWarning, match="noslip_iterations=4"):
        usd = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "o"))).usd_path
    stage = Usd.Stage.Open(usd)
    attrs = {}
    for prim in stage.Traverse():
        for attr in prim.GetAttributes():
            if attr.GetName().startswith("mjc:option:noslip"):
                attrs[attr.GetName()] = attr.Get()
    assert attrs == {"mjc:option:noslip_iterations": 4, "mjc:option:noslip_tolerance": pytest.approx(1e-5)}
    scene = {"mjc:option:noslip_iterations": 4, "mjc:option:noslip_tolerance": 1e-5}
    option = solver_option({"scene_attributes": scene})
    assert option.noslip_iterations == 4 and option.noslip_tolerance == pytest.approx(1e-5)
