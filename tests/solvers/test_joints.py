"""Joint friction (seed 001), limits, drives and MuJoCo motor actuators."""

import numpy as np
from solver_helpers import run

import newton_gym as ng
from newton_gym.solvers import Actuators, SolverGeneralized


def _hinge(device="cpu", **dof):
    """A 1 kg m^2 wheel about the world z axis (gravity does no work on it), on ``device``."""
    b = ng.ModelBuilder()
    link = b.add_link(mass=1.0, inertia=np.eye(3))
    j = b.add_joint_revolute(-1, link, axis=(0, 0, 1), **dof)
    b.add_articulation([j])
    return b.finalize(device)


def _push(model, torque, steps=500, dt=0.002, qd0=0.0, actuators=None):
    solver = SolverGeneralized(model, actuators=actuators)
    control = model.control()
    control.joint_f.assign(np.array([torque], np.float32))
    s0, s1 = model.state(), model.state()
    s0.joint_qd.assign(np.array([qd0], np.float32))
    out = []
    for _ in range(steps):
        solver.step(s0, s1, control, dt)
        s0, s1 = s1, s0
        out.append((s0.joint_q.numpy()[0], s0.joint_qd.numpy()[0]))
    return np.array(out)


def test_static_friction_breakaway(device):
    model = _hinge(device=device, friction_static=2.0, friction_dynamic=1.5, viscous_damping=0.5)
    held = _push(model, 1.9)
    assert np.abs(held[:, 0]).max() < 5e-3
    moved = _push(model, 2.1)
    assert moved[-1, 0] > 0.05 and moved[-1, 1] > 0.05


def test_dynamic_friction_deceleration_law():
    model = _hinge(friction_static=2.0, friction_dynamic=1.5, viscous_damping=0.5)
    dt = 0.002
    traj = _push(model, 0.0, steps=700, dt=dt, qd0=2.0)
    t = dt * np.arange(1, 701)
    # I dv/dt = -(1.5 + 0.5 v)  =>  v(t) = (v0 + 3) exp(-t / 2) - 3 until it stops.
    analytic = np.maximum((2.0 + 3.0) * np.exp(-0.5 * t) - 3.0, 0.0)
    moving = analytic > 0.1
    np.testing.assert_allclose(traj[moving, 1], analytic[moving], atol=0.02)
    assert abs(traj[-1, 1]) < 1e-2  # stopped and held


def test_hinge_stops_at_its_limit(device):
    model = _hinge(device=device, limit_lower=-0.5, limit_upper=0.5, target_pos=1.5, target_ke=20.0, target_kd=2.0)
    traj = _push(model, 0.0, steps=1500)
    assert abs(traj[-1, 0] - 0.5) < 0.01  # comes to rest at the limit
    assert abs(traj[-1, 1]) < 1e-3
    # The soft limit (MuJoCo's default solref, 0.02 s) lets the 1.5 rad/s impact overshoot briefly.
    assert traj[:, 0].max() < 0.5 + 0.04


def test_stiff_pd_drive_is_stable_and_reaches_target():
    model = _hinge(target_pos=0.3, target_ke=1.0e6, target_kd=1.0e3)
    traj = _push(model, 0.0, steps=200, dt=0.01)
    assert np.isfinite(traj).all()
    assert abs(traj[-1, 0] - 0.3) < 1e-3


def test_motor_actuator_gear_and_ctrl_range():
    model = _hinge()
    act = Actuators(dof=np.array([0]), gear=np.array([3.0]), ctrl_range=np.array([[-1.0, 1.0]]))
    solver = SolverGeneralized(model, actuators=act)
    solver.ctrl.assign(np.array([5.0], np.float32))  # clamped to 1 -> 3 N m
    final, _ = run(model, solver, 100, 0.001)
    assert abs(final.joint_qd.numpy()[0] - 3.0 * 0.1) < 1e-4
