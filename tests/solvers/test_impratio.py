"""MuJoCo's impratio, against MuJoCo C on a box launched diagonally over a plane, sliding until friction
stops it: with pyramidal cones the pyramid rows' regularizer R divided by impratio (MuJoCo's Rpy =
2 mu^2 R0 / impratio); with elliptic cones the tangent rows' R_t = R_n / impratio and the regularized cone's mu
= friction / sqrt(impratio) (MuJoCo's contact.mu), with the friction cone itself unchanged."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import run

from newton_gym.errors import SolverError
from newton_gym.solvers import SolverGeneralized

XML = """<mujoco><option timestep="0.002" integrator="implicitfast" impratio="{impratio}" cone="{cone}"/>
  <worldbody><geom type="plane" size="2 2 .1" friction="0.6"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.08 0.1" mass="2" friction="0.6"/></body>
  </worldbody></mujoco>"""


def _trajectories(impratio: float):
    m = mujoco.MjModel.from_xml_string(XML.format(impratio=impratio, cone="pyramidal"))
    d = mujoco.MjData(m)
    d.qvel[0] = 1.5  # slides, then friction stops it
    ref = []
    for _ in range(250):
        mujoco.mj_step(m, d)
        ref.append(d.qpos[:3].copy())
    b, _, q0 = builder_from_mujoco(m)
    model = b.finalize("cpu")
    state = model.state()
    state.joint_q.assign(q0)
    qd = state.joint_qd.numpy()
    qd[0] = 1.5
    state.joint_qd.assign(qd)
    solver = SolverGeneralized(model, impratio=impratio, iterations=100)
    _, ours = run(model, solver, 250, 0.002, state=state, record=lambda s: s.joint_q.numpy()[:3].copy())
    return np.asarray(ref), np.asarray(ours)


def test_pyramidal_impratio_follows_mujoco():
    ref1, ours1 = _trajectories(1.0)
    ref10, ours10 = _trajectories(10.0)
    assert np.abs(ref10 - ref1).max() > 1e-4, "impratio changes MuJoCo's motion here"
    np.testing.assert_allclose(ours1, ref1, atol=2e-5)
    np.testing.assert_allclose(ours10, ref10, atol=2e-5)


def _one_step(impratio: float, cone: str):
    """(MuJoCo's, our) velocity after one step of a box pressed 0.2 mm into the plane on all four corners,
    sliding diagonally and spinning: (vx, vy, vz, wz). A trajectory would not do here: the sliding box hops
    on its corners, and a corner within float32 of touching turns contacts on or off on one side only."""
    m = mujoco.MjModel.from_xml_string(
        XML.format(impratio=impratio, cone=cone).replace('pos="0 0 0.1"', 'pos="0 0 0.0998"')
    )
    d = mujoco.MjData(m)
    start = np.array([1.0, -0.5, 0.0, 0.0, 0.0, 3.0])  # unrotated box: MuJoCo's local angular velocity is ours
    d.qvel[:] = start
    mujoco.mj_step(m, d)
    assert d.ncon == 4
    b, _, q0 = builder_from_mujoco(m)
    model = b.finalize("cpu")
    state = model.state()
    state.joint_q.assign(q0)
    state.joint_qd.assign(start.astype(np.float32))
    solver = SolverGeneralized(model, impratio=impratio, cone=cone, iterations=100)
    solver.step(state, state, None, 0.002)
    take = [0, 1, 2, 5]
    return d.qvel[take].copy(), state.joint_qd.numpy()[take].astype(np.float64)


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_impratio_changes_one_step_like_mujoco(cone):
    """Elliptic cones: the tangent rows' R_t = R_n / impratio and the regularized cone's mu = friction /
    sqrt(impratio) (MuJoCo's contact.mu); pyramidal: MuJoCo's Rpy. Both against MuJoCo C on the same state."""
    ref1, ours1 = _one_step(1.0, cone)
    ref10, ours10 = _one_step(10.0, cone)
    assert np.abs(ref10 - ref1).max() > 1e-3, "impratio changes MuJoCo's step here"
    np.testing.assert_allclose(ours1, ref1, atol=2e-5)
    np.testing.assert_allclose(ours10, ref10, atol=2e-5)


def test_non_positive_impratio_is_refused():
    with pytest.raises(SolverError, match="impratio"):
        from newton_gym.solvers import Option

        Option(cone="elliptic", impratio=0.0)
