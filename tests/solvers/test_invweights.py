"""MuJoCo's inverse weights computed once for articulations equal to the first of their batch: replicated
worlds get exactly a one-world model's weights, and a world whose initial state differs gets its own."""

import numpy as np

import newton_gym as ng
from newton_gym.sim.examples import ant_like_builder
from newton_gym.solvers import SolverGeneralized


def _weights(worlds: int, bent: dict | None = None):
    """(body_invweight (worlds, bodies, 2), dof_invweight (worlds, dofs)) of ``worlds`` Ants; ``bent`` maps a
    world to the hip angle its first hinge starts at."""
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(ant_like_builder(), world_count=worlds)
    model = scene.finalize("cpu")
    q = model.joint_q.numpy().reshape(worlds, -1)
    for w, angle in (bent or {}).items():
        q[w, 7] = angle
    model.joint_q.assign(q.reshape(-1))
    rows = SolverGeneralized(model).rows
    return rows.body_invweight.numpy().reshape(worlds, -1, 2), rows.dof_invweight.numpy().reshape(worlds, -1)


def test_replicated_worlds_get_one_worlds_weights():
    body1, dof1 = _weights(1)
    body4, dof4 = _weights(4)
    assert (body1 > 0).all() and (dof1 > 0).all()
    for w in range(4):
        np.testing.assert_array_equal(body4[w], body1[0])
        np.testing.assert_array_equal(dof4[w], dof1[0])


def test_a_world_in_another_state_gets_its_own_weights():
    body1, dof1 = _weights(1)
    body_bent, dof_bent = _weights(1, {0: 0.5})
    body3, dof3 = _weights(3, {1: 0.5})
    assert np.abs(body_bent - body1).max() > 1e-3  # the bent hip moves the weights
    for w, (body, dof) in enumerate([(body1, dof1), (body_bent, dof_bent), (body1, dof1)]):
        np.testing.assert_array_equal(body3[w], body[0])
        np.testing.assert_array_equal(dof3[w], dof[0])
