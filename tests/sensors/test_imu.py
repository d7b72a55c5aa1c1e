"""Imu on bodies stepped by SolverGeneralized, against closed-form readings: free fall reads zero, a body at
rest reads -g in its own frame (each world its own gravity), a body spinning at a constant rate reads its
rate and, off its axis, the centripetal acceleration; the first update and a reset read the rest value."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import newton_gym as ng
from newton_gym.sensors import Imu, SensorError
from newton_gym.sim.hostmath import quat_from_axis_angle, quat_rotate
from newton_gym.solvers import SolverGeneralized

SIM_DT, FRAME_SKIP = 0.002, 5
DT = SIM_DT * FRAME_SKIP  # control period between IMU updates [s]


def _step(solver, state, frames=1):
    for _ in range(frames * FRAME_SKIP):
        solver.step(state, state, None, SIM_DT)


def _set_free_velocity(model, state, v, w):
    """Give the free body of each world COM velocity v and angular velocity w (world frame)."""
    qd = state.joint_qd.numpy().reshape(-1, 6)
    qd[:, 0:3], qd[:, 3:6] = v, w
    state.joint_qd.assign(qd.reshape(-1))
    ng.eval_fk(model, state.joint_q, state.joint_qd, state)


def _free_body(gravity=-9.81, q=(0, 0, 0, 1), ground=False, worlds=1):
    robot = ng.ModelBuilder(gravity=gravity)
    body = robot.add_body(xform=[0, 0, 1.0, *q], mass=1.0, inertia=np.eye(3) * 0.02)
    robot.add_shape_box(body, hx=0.1, hy=0.2, hz=0.05)
    scene = ng.ModelBuilder(gravity=gravity)
    if ground:
        scene.add_ground_plane()
    scene.replicate(robot, worlds)
    return scene.finalize("cpu")


def test_free_fall_reads_zero_acceleration():
    model = _free_body(q=quat_from_axis_angle([1, 1, 0], 0.6))
    state = model.state()
    _set_free_velocity(model, state, [0.5, 0.0, 2.0], [0.0, 0.0, 0.0])
    solver = SolverGeneralized(model)
    imu = Imu(model, [0])
    for _ in range(4):
        _step(solver, state)
        imu.update(state, DT)
    np.testing.assert_allclose(imu.lin_acc.numpy(), 0.0, atol=2e-3)
    np.testing.assert_allclose(imu.ang_vel.numpy(), 0.0, atol=1e-6)
    # Moving at about 2 - 9.81 * 0.04 m/s upward: the velocity output is the body-frame velocity.
    q = state.body_q.numpy()[0, 3:7]
    v_world = quat_rotate(q, imu.lin_vel.numpy()[0])
    np.testing.assert_allclose(v_world, state.body_qd.numpy()[0, :3], atol=1e-5)


def test_body_at_rest_reads_its_worlds_gravity_up_in_its_own_frame():
    on_side = quat_from_axis_angle([1, 0, 0], np.pi / 2)  # body +y points up
    model = _free_body(q=on_side, ground=True, worlds=2)
    model.set_gravity((0.0, 0.0, -3.7), world=1)
    state = model.state()
    solver = SolverGeneralized(model)
    _step(solver, state, frames=120)  # fall and settle on the ground (1.2 s)
    imu = Imu(model, [0, 1], offset=[(0.0, 0.0, 0.0), (0.05, 0.1, 0.0)])
    for _ in range(3):
        _step(solver, state)
        imu.update(state, DT)
    np.testing.assert_allclose(imu.lin_acc.numpy(), [[0.0, 9.81, 0.0], [0.0, 3.7, 0.0]], atol=0.05)
    np.testing.assert_allclose(imu.ang_vel.numpy(), 0.0, atol=1e-2)


def test_constant_spin_reads_its_rate_and_the_centripetal_acceleration():
    tilt = quat_from_axis_angle([1.0, 0.5, 0.0], 0.7)
    model = _free_body(gravity=0.0, q=tilt)
    state = model.state()
    rate = 3.0  # [rad/s] about the body's own z axis
    _set_free_velocity(model, state, [0.0, 0.0, 0.0], quat_rotate(tilt, [0.0, 0.0, rate]))
    solver = SolverGeneralized(model)
    imu = Imu(model, [0, 0], offset=[(0.0, 0.0, 0.0), (0.2, 0.0, 0.0)])
    for _ in range(5):
        _step(solver, state)
        imu.update(state, DT)
        np.testing.assert_allclose(imu.views.ang_vel.numpy(), [[0, 0, rate]] * 2, atol=1e-4)
    acc = imu.views.lin_acc.numpy()
    np.testing.assert_allclose(acc[0], 0.0, atol=1e-3)
    # -w^2 r towards the axis; the backward difference lags by w dt / 2 (a small tangential part).
    np.testing.assert_allclose(acc[1], [-(rate**2) * 0.2, 0.0, 0.0], atol=0.04)
    np.testing.assert_allclose(imu.views.lin_vel.numpy()[1], [0.0, rate * 0.2, 0.0], atol=1e-4)


def test_first_update_and_reset_read_the_rest_value():
    model = _free_body(worlds=2, q=quat_from_axis_angle([0, 1, 0], np.pi))  # upside down: body z points down
    state = model.state()
    _set_free_velocity(model, state, [3.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    solver = SolverGeneralized(model)
    imu = Imu(model, [0, 1])
    imu.update(state, DT)
    np.testing.assert_allclose(imu.lin_acc.numpy(), [[0.0, 0.0, -9.81]] * 2, atol=1e-5)
    _step(solver, state)
    imu.update(state, DT)
    np.testing.assert_allclose(imu.lin_acc.numpy(), 0.0, atol=2e-3)  # falling freely
    imu.reset(torch.tensor([False, True]))
    _step(solver, state)
    imu.update(state, DT)
    np.testing.assert_allclose(imu.lin_acc.numpy()[0], 0.0, atol=2e-3)
    np.testing.assert_allclose(imu.lin_acc.numpy()[1], [0.0, 0.0, -9.81], atol=1e-5)


def test_bad_arguments_raise():
    model = _free_body()
    with pytest.raises(SensorError, match="offset"):
        Imu(model, [0], offset=(0.0, 1.0))
    with pytest.raises(SensorError, match="body_indices"):
        Imu(model, [[0]])
    with pytest.raises(SensorError, match="mask"):
        Imu(model, [0]).reset(np.ones(3, dtype=bool))
