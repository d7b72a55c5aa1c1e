"""Smooth dynamics against MuJoCo C and closed-form invariants."""

import mujoco
import numpy as np
import pytest
from solver_helpers import model_from_xml, pendulum_xml, run

import newton_gym as ng
from newton_gym.sim.hostmath import quat_to_matrix
from newton_gym.solvers import SolverGeneralized


@pytest.mark.parametrize("links", [1, 2])
def test_pendulum_matches_mujoco(links, device):
    m = mujoco.MjModel.from_xml_string(pendulum_xml(links))
    d = mujoco.MjData(m)
    model, _, _ = model_from_xml(m, device=device)
    q0 = np.array([0.4, -0.7][:links])
    d.qpos[:] = q0
    state = model.state()
    state.joint_q.assign(q0.astype(np.float32))
    solver = SolverGeneralized(model)
    steps = 1000  # 2 s at MuJoCo's 0.002 s Euler step
    ref = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        ref.append(d.qpos.copy())
    _, ours = run(model, solver, steps, m.opt.timestep, state=state, record=lambda s: s.joint_q.numpy().copy())
    err = np.abs(np.array(ours) - np.array(ref)).max()
    assert np.ptp(np.array(ref)[:, 0]) > 0.5  # it really swings
    assert err < 1e-3, err


def _free_body_invariants(state, inertia, mass):
    q = state.joint_q.numpy().astype(np.float64)
    v = state.joint_qd.numpy().astype(np.float64)
    r = quat_to_matrix(q[3:7])
    iw = r @ inertia @ r.T
    w = v[3:]
    energy = 0.5 * mass * v[:3] @ v[:3] + 0.5 * w @ iw @ w
    return energy, iw @ w, (r.T @ w)[1]


def test_free_body_conserves_energy_and_momentum_and_flips():
    b = ng.ModelBuilder(gravity=0.0)
    inertia = np.diag([1.0, 2.0, 3.0])
    b.add_body(xform=[0, 0, 1, 0, 0, 0, 1], mass=2.0, com=[0.1, 0.2, -0.1], inertia=inertia)
    model = b.finalize("cpu")
    state = model.state()
    # Spin about the intermediate axis with a small perturbation: the body must flip (Dzhanibekov).
    state.joint_qd.assign(np.array([0.1, 0.0, 0.2, 0.1, 4.0, 0.1], np.float32))
    e0, l0, _ = _free_body_invariants(state, inertia, 2.0)
    solver = SolverGeneralized(model, integrator="midpoint")
    final, rec = run(model, solver, 1000, 0.0025, state=state, record=lambda s: _free_body_invariants(s, inertia, 2.0))
    energy = np.array([r[0] for r in rec])
    momentum = np.array([r[1] for r in rec])
    w_mid = np.array([r[2] for r in rec])
    assert np.abs(energy - e0).max() / e0 < 1e-4
    assert np.linalg.norm(momentum - l0, axis=1).max() / np.linalg.norm(l0) < 1e-4
    assert w_mid.min() < -1.0  # intermediate-axis component reversed
    # The COM (not the body origin) moves with the constant linear velocity.
    r = quat_to_matrix(final.joint_q.numpy()[3:7].astype(np.float64))
    com = final.joint_q.numpy()[:3] + r @ np.array([0.1, 0.2, -0.1])
    np.testing.assert_allclose(com, np.array([0.1, 0.2, 1 - 0.1]) + 2.5 * np.array([0.1, 0.0, 0.2]), atol=1e-4)


def test_per_world_gravity_free_fall(device):
    scene = ng.ModelBuilder()
    g = [9.81, 0.0, 1.62]
    for gz in g:
        body = ng.ModelBuilder()
        body.add_body(xform=[0, 0, 10, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
        scene.add_world(body, gravity=(0.0, 0.0, -gz))
    model = scene.finalize(device)
    solver = SolverGeneralized(model)
    dt, steps = 0.001, 1000
    final, _ = run(model, solver, steps, dt)
    q = final.joint_q.numpy().reshape(3, 7)
    v = final.joint_qd.numpy().reshape(3, 6)
    t = dt * steps
    for w, gz in enumerate(g):
        assert abs(v[w, 2] + gz * t) < 1e-4 * max(gz, 1.0)
        # Semi-implicit Euler lags the parabola by g dt t / 2.
        assert abs(q[w, 2] - (10.0 - 0.5 * gz * t * t)) <= 0.5 * gz * dt * t + 1e-4
    # set_gravity takes effect on the next step.
    model.set_gravity((0.0, 0.0, 0.0), world=0)
    again, _ = run(model, solver, 10, dt, state=final)
    assert abs(again.joint_qd.numpy()[2] - v[0, 2]) < 1e-5
