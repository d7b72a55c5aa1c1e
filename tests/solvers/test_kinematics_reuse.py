"""The smooth pass reuses the last finish pass's forward kinematics (newton_gym.solvers.kinematics_reuse): a
step is bitwise the same as with the kinematics computed afresh, through resets, edited states and model edits."""

from __future__ import annotations

import mujoco
import numpy as np
from mujoco_builder import builder_from_mujoco
from solver_helpers import ant_control, ant_path

import newton_gym as ng
from newton_gym.solvers import Actuators, SolverGeneralized, SolverNotifyFlags

WORLDS = 3


def _ants():
    ant, act, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(ant_path()))
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    for _ in range(WORLDS):
        scene.add_world(ant)
    model = scene.finalize("cpu")
    dofs = [act.dof + w * ant.joint_dof_count for w in range(WORLDS)]
    acts = Actuators(
        np.concatenate(dofs),
        np.tile(act.gear, WORLDS),
        np.tile(act.ctrl_range, (WORLDS, 1)),
        np.tile(act.force_range, (WORLDS, 1)),
    )
    return model, acts


def _outputs(solver, state):
    arrays = (state.joint_q, state.joint_qd, state.body_q, state.body_qd, solver.body_contact_wrench)
    return [a.numpy().copy() for a in arrays + (solver.world_contact_count,)]


def _run(afresh: bool, edit=None):
    """40 steps of three Ants, states swapped after each step; ``afresh``: every record dropped before each
    step (forward kinematics computed in every smooth pass); ``edit(step, model, solver, state)`` before a
    step."""
    model, acts = _ants()
    solver = SolverGeneralized(model, actuators=acts)
    s0, s1 = model.state(), model.state()
    ctrl = ant_control(40)
    held, out = [], []
    for i in range(40):
        solver.ctrl.assign(np.tile(ctrl[i], WORLDS).astype(np.float32))
        if edit is not None:
            edit(i, model, solver, s0)
        held.append(solver.data.fk_held.numpy().copy())
        if afresh:
            solver.data.fk_held.zero_()
        solver.step(s0, s1, None, 0.01)
        s0, s1 = s1, s0
        out.append(_outputs(solver, s0))
    return out, held


def _assert_same(a, b):
    for step_a, step_b in zip(a, b):
        for x, y in zip(step_a, step_b):
            np.testing.assert_array_equal(x, y)


def _reset_and_nudge(i, model, solver, state):
    if i == 12:  # world 1 back to its initial pose
        q = state.joint_q.numpy()
        n = len(q) // WORLDS
        q[n : 2 * n] = model.joint_q.numpy()[n : 2 * n]
        state.joint_q.assign(q)
    if i == 25:  # one velocity of world 2 edited
        qd = state.joint_qd.numpy()
        qd[-1] += 0.5
        state.joint_qd.assign(qd)


def test_reused_kinematics_step_bitwise_as_computed_afresh():
    """Ants stepped with the record (each smooth pass reuses the finish pass's bodies) and without it agree
    bitwise at every step, through a reset of one world's pose and an edit of another's velocity."""
    reused, held = _run(False, _reset_and_nudge)
    afresh, _ = _run(True, _reset_and_nudge)
    _assert_same(reused, afresh)
    assert not held[0].any() and held[1].all() and held[39].all()  # the reuse ran after the first step
    assert reused[-1][5].sum() > 0  # the ants touch the ground


def test_model_edit_drops_the_record():
    """A joint frame edited in place moves the bodies of an unchanged joint state: after
    notify_model_changed(JOINT_PROPERTIES) the next step computes them afresh (as a solver without the
    record does)."""

    def move_hip(i, model, solver, state):
        if i == 20:
            x_p = model.joint_X_p.numpy()
            x_p[2, 2] += np.float32(0.01)  # the first hip of world 0 raised 1 cm in its parent's frame
            model.joint_X_p.assign(x_p)
            solver.notify_model_changed(SolverNotifyFlags.JOINT_PROPERTIES)

    reused, held = _run(False, move_hip)
    afresh, _ = _run(True, move_hip)
    _assert_same(reused, afresh)
    assert not held[20].any() and held[21].all()
