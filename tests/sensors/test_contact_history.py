"""ContactForceHistory: a box resting on a plane (stepped by SolverGeneralized) reads its weight; the ring
of entries shifts newest first; air and contact times follow a scripted on / off sequence; resets clear."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
import warp as wp

import newton_gym as ng
from newton_gym.sensors import ContactForceHistory, SensorError
from newton_gym.solvers import SolverGeneralized


def _boxes(worlds=2, mass=2.0, device="cpu"):
    robot = ng.ModelBuilder()
    body = robot.add_body(xform=[0, 0, 0.3, 0, 0, 0, 1], mass=mass, inertia=np.eye(3) * 0.02)
    robot.add_shape_box(body, hx=0.1, hy=0.15, hz=0.05)
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(robot, worlds, spacing=(1.0, 0.0, 0.0))
    return scene.finalize(device)


def _scripted(model, history=3):
    """A sensor on a stand-in solver whose body_contact_wrench the test writes."""
    wrench = wp.zeros(model.body_count, dtype=wp.spatial_vector, device=model.device)
    solver = SimpleNamespace(model=model, body_contact_wrench=wrench)
    return ContactForceHistory(solver, np.arange(model.body_count)[:, None], history=history), wrench


def test_box_resting_on_a_plane_reads_its_weight(torch_device):
    model = _boxes(device=torch_device)
    state = model.state()
    solver = SolverGeneralized(model)
    for _ in range(600):  # drop 25 cm and settle (1.2 s)
        solver.step(state, state, None, 0.002)
    sensor = ContactForceHistory(SimpleNamespace(solver=solver), [[0], [1]], history=3)  # a Simulation-like holder
    for _ in range(3):
        for _ in range(5):
            solver.step(state, state, None, 0.002)
        sensor.update(0.01)
    forces = sensor.views.net_forces_w_history.cpu().numpy()
    assert forces.shape == (2, 3, 1, 3)
    np.testing.assert_allclose(forces[..., 2], 2.0 * 9.81, rtol=0.01)
    np.testing.assert_allclose(forces[..., :2], 0.0, atol=0.05)
    assert sensor.first_contact(0.01).sum() == 0  # in contact for 3 updates: not a first contact
    torch.testing.assert_close(sensor.views.current_contact_time.cpu(), torch.full((2, 1), 0.03))


def test_history_shifts_newest_first():
    model = _boxes(worlds=3)
    sensor, wrench = _scripted(model, history=3)
    for k in range(1, 5):
        wrench.assign(np.tile([0.0, 0.0, float(k), 0.0, 0.0, 0.0], (3, 1)) * (1 + np.arange(3))[:, None])
        sensor.update(0.02)
    z = sensor.net_forces_w_history.numpy()[..., 2]  # (N, H, B)
    np.testing.assert_allclose(z[:, :, 0], np.outer(1 + np.arange(3), [4.0, 3.0, 2.0]))
    torch.testing.assert_close(sensor.net_forces_w[:, 0, 2], torch.tensor([4.0, 8.0, 12.0]))
    sensor.reset(torch.tensor([True, False, False]))
    assert np.all(sensor.net_forces_w_history.numpy()[0] == 0.0)
    np.testing.assert_allclose(sensor.net_forces_w_history.numpy()[1, :, 0, 2], [8.0, 6.0, 4.0])
    sensor.reset()
    assert not sensor.views.net_forces_w_history.any() and not sensor.views.current_air_time.any()


def test_air_and_contact_times_follow_the_contact_sequence():
    model = _boxes(worlds=1)
    sensor, wrench = _scripted(model)
    dt = 0.02
    touching = [False, False, True, True, True, False, True]
    first_contact, first_air = [], []
    for on in touching:
        wrench.assign([[0.0, 0.0, 5.0 if on else 0.5, 0.0, 0.0, 0.0]])  # 0.5 N is below the 1 N threshold
        sensor.update(dt)
        first_contact.append(bool(sensor.first_contact(dt)[0, 0]))
        first_air.append(bool(sensor.first_air(dt)[0, 0]))
    assert first_contact == [False, False, True, False, False, False, True]
    assert first_air == [True, False, False, False, False, True, False]
    v = sensor.views
    # A phase that ends at an update is counted up to that update (the change happened within its period).
    np.testing.assert_allclose(v.last_air_time.numpy()[0, 0], 2 * dt)  # off at update 6, on at 7
    np.testing.assert_allclose(v.last_contact_time.numpy()[0, 0], 4 * dt)  # on at updates 3-5, off at 6
    np.testing.assert_allclose(v.current_contact_time.numpy()[0, 0], dt)
    np.testing.assert_allclose(v.current_air_time.numpy()[0, 0], 0.0)


def test_a_source_without_contact_wrenches_raises():
    model = _boxes(worlds=1)
    with pytest.raises(SensorError, match="body_contact_wrench"):
        ContactForceHistory(SimpleNamespace(model=model), [[0]])
    with pytest.raises(SensorError, match="history"):
        _scripted(model, history=0)
    with pytest.raises(SensorError, match="body_indices"):
        ContactForceHistory(SimpleNamespace(model=model, body_contact_wrench=wp.zeros(1, dtype=wp.spatial_vector)), [0])
