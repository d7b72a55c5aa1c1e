"""Health flags, per-world reset, graph capture and the solver interface."""

import numpy as np
import pytest
import warp as wp
from solver_helpers import box_worlds, run

from newton_gym.solvers import SolverBase, SolverGeneralized


def test_interface():
    """SolverGeneralized overrides every SolverBase method, and a step through the base signature
    (control None) moves a free box in free fall as v = g dt, z = z0 + g dt^2 (semi-implicit Euler)."""
    for name in ("step", "reset_worlds", "notify_model_changed"):
        assert getattr(SolverGeneralized, name) is not getattr(SolverBase, name)
    model = box_worlds(1)
    solver = SolverGeneralized(model)
    state = model.state()
    z0 = float(state.body_q.numpy()[0, 2])
    solver.step(state, state, None, 0.01)
    assert state.body_qd.numpy()[0, 2] == pytest.approx(-9.81 * 0.01, rel=1e-4)
    assert state.body_q.numpy()[0, 2] == pytest.approx(z0 - 9.81 * 0.01**2, rel=1e-5)


def test_health_flag_and_reset_touch_only_their_world(device):
    model = box_worlds(3, device)
    solver = SolverGeneralized(model)
    state, _ = run(model, solver, 50, 0.01)
    qd = state.joint_qd.numpy()
    qd[6] = np.nan  # world 1
    state.joint_qd.assign(qd)
    out = model.state()
    solver.step(state, out, None, 0.01)
    assert solver.world_unhealthy.numpy().tolist() == [0, 1, 0]
    before = out.joint_q.numpy().copy()
    solver.reset_worlds(out, np.array([False, True, False]))
    after = out.joint_q.numpy()
    np.testing.assert_array_equal(after[:7], before[:7])
    np.testing.assert_array_equal(after[14:], before[14:])
    np.testing.assert_allclose(after[7:14], model.joint_q.numpy()[7:14])
    assert solver.world_unhealthy.numpy().tolist() == [0, 0, 0]
    np.testing.assert_allclose(out.body_q.numpy()[1], model.body_q.numpy()[1], atol=1e-6)
    run(model, solver, 5, 0.01, state=out)
    assert solver.world_unhealthy.numpy().tolist() == [0, 0, 0]


def test_runaway_speed_is_flagged():
    model = box_worlds(2)
    solver = SolverGeneralized(model, max_speed=50.0)
    state = model.state()
    qd = state.joint_qd.numpy()
    qd[0] = 100.0
    state.joint_qd.assign(qd)
    solver.step(state, model.state(), None, 0.001)
    assert solver.world_unhealthy.numpy().tolist() == [1, 0]


def test_captured_step_matches_eager_step(device):
    model = box_worlds(2, device)
    eager = SolverGeneralized(model, substeps=2)
    s0, s1 = model.state(), model.state()
    for _ in range(20):
        eager.step(s0, s1, None, 0.01)
        s0, s1 = s1, s0
    graphed = SolverGeneralized(model, substeps=2)
    a, b = model.state(), model.state()
    graphed.capture(a, b, None, 0.01)  # records a -> b
    with wp.ScopedCapture(device=device) as cap:  # and b -> a, to ping-pong
        graphed.step(b, a, None, 0.01)
    for _ in range(10):
        graphed.replay()
        wp.capture_launch(cap.graph)
    np.testing.assert_allclose(a.joint_q.numpy(), s0.joint_q.numpy(), atol=1e-6)
    np.testing.assert_allclose(a.body_q.numpy(), s0.body_q.numpy(), atol=1e-6)


def test_time_step_too_large_for_contact_stiffness_warns_once():
    import warnings

    import pytest

    model = box_worlds(2)
    solver = SolverGeneralized(model)  # default contact solref time constant 0.02 s
    s0, s1 = model.state(), model.state()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solver.step(s0, s1, None, 0.01)  # 2 dt = 0.02 s: held
    with pytest.warns(UserWarning, match=r"time step 0\.05 s.*contacts 0\.02 s"):
        solver.step(s1, s0, None, 0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solver.step(s0, s1, None, 0.05)  # said once per time step
    sub = SolverGeneralized(model, substeps=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sub.step(s0, s1, None, 0.05)  # 5 substeps of 0.01 s hold it
