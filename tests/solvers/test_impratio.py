"""MuJoCo's impratio with pyramidal cones: the pyramid rows' regularizer R divided by impratio (MuJoCo's
Rpy = 2 mu^2 R0 / impratio), against MuJoCo C on a box launched sideways over a plane, sliding until friction
stops it; elliptic cones refuse impratio != 1 (not simulated)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import run

from newton_gym.errors import SolverError
from newton_gym.solvers import SolverGeneralized

XML = """<mujoco><option timestep="0.002" integrator="implicitfast" impratio="{impratio}"/>
  <worldbody><geom type="plane" size="2 2 .1" friction="0.6"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.08 0.1" mass="2" friction="0.6"/></body>
  </worldbody></mujoco>"""


def _trajectories(impratio: float):
    m = mujoco.MjModel.from_xml_string(XML.format(impratio=impratio))
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


def test_elliptic_cones_refuse_impratio():
    with pytest.raises(SolverError, match="impratio"):
        from newton_gym.solvers import Option

        Option(cone="elliptic", impratio=10.0)
