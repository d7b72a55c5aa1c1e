"""Stepping groups of worlds on several CPU threads gives bitwise the results of one thread."""

import mujoco
import numpy as np
import pytest
import warp as wp
from mujoco_builder import builder_from_mujoco
from solver_helpers import ant_control, ant_path, pendulum_xml

import newton_gym as ng
from newton_gym.solvers import Actuators, SolverGeneralized, generalized
from newton_gym.solvers.generalized import CHUNK_DOFS
from newton_gym.solvers.partition import split_spans


def _mixed_worlds():
    """Ant and double-pendulum worlds interleaved (uneven entity counts per world), with the Ants' motors
    and a shared ground plane."""
    ant_b, ant_act, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(ant_path()))
    pend_b, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_string(pendulum_xml(2)))
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    dofs, dof0 = [], 0
    for w in range(7):
        b = ant_b if w % 3 != 1 else pend_b
        scene.add_world(b, gravity=(0.0, 0.0, -9.81 + 0.3 * w))
        if b is ant_b:
            dofs.append(ant_act.dof + dof0)
        dof0 += b.joint_dof_count
    model = scene.finalize("cpu")
    k = len(dofs)
    acts = Actuators(
        np.concatenate(dofs),
        np.tile(ant_act.gear, k),
        np.tile(ant_act.ctrl_range, (k, 1)),
        np.tile(ant_act.force_range, (k, 1)),
    )
    return model, acts


def _run(threads, captured, steps=60, world_chunk=None, frames=1):
    model, acts = _mixed_worlds()
    solver = SolverGeneralized(
        model, substeps=5, iterations=50, actuators=acts, threads=threads, world_chunk=world_chunk
    )
    state = model.state()
    ctrl = ant_control(steps)
    if captured:
        solver.capture(state, state, None, 0.01, steps=frames)
    for i in range(steps):
        solver.ctrl.assign(np.tile(ctrl[i], acts.count // 8).astype(np.float32))
        if captured:
            solver.replay()
        else:
            for k in range(frames):
                solver.step(state, state, None, 0.01, outputs=k == frames - 1)
    wp.synchronize()
    outs = (state.joint_q, state.joint_qd, state.body_q, solver.body_contact_wrench, solver.world_contact_count)
    return solver, [a.numpy().copy() for a in outs]


@pytest.mark.parametrize("captured", [False, True])
def test_threads_match_one_thread_bitwise(captured):
    one, ref = _run(1, captured)
    three, got = _run(3, captured)
    assert one.threads == 1 and three.threads == 3
    assert ref[4].sum() > 0  # the Ants touch the ground: contacts are part of the comparison
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("threads, world_chunk", [(1, 1), (1, 3), (3, 2)])
def test_world_chunks_match_one_pass_bitwise(threads, world_chunk):
    """Worlds replayed chunk by chunk (every substep, and every step of a 3-step capture, of a chunk before
    the next chunk) give bitwise the results of one pass over all 7 worlds on one thread, and of eager steps
    (which take every world at once)."""
    one, ref = _run(1, True, steps=20, world_chunk=7, frames=3)
    chunked, got = _run(threads, True, steps=20, world_chunk=world_chunk, frames=3)
    _, eager = _run(threads, False, steps=20, world_chunk=world_chunk, frames=3)
    assert [len(c) for c in one.chunks] == [1]
    assert sum(len(c) for c in chunked.chunks) == sum(-(-s.worlds[1] // world_chunk) for s in chunked.spans) > 1
    assert ref[4].sum() > 0
    for a, b, c in zip(ref, got, eager):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_world_chunks_cover_the_span_in_order(monkeypatch):
    model, acts = _mixed_worlds()
    solver = SolverGeneralized(model, actuators=acts, world_chunk=3)
    chunks = solver.chunks[0]
    assert [c.worlds for c in chunks] == [(0, 3), (3, 3), (6, 1)]
    for name in ("articulations", "dofs", "coords", "bodies", "pairs", "slots", "rows", "actuators"):
        ranges = [getattr(c, name) for c in chunks]
        assert ranges[0] == (0, ranges[0][1]) and sum(r[1] for r in ranges) == getattr(solver.spans[0], name)[1]
        for (f0, n0), (f1, _) in zip(ranges[:-1], ranges[1:]):
            assert f0 + n0 == f1, name
    # None: as many worlds as hold CHUNK_DOFS DOFs on average (all 7 here: 78 DOFs)
    auto = SolverGeneralized(model, actuators=acts)
    assert model.joint_dof_count < CHUNK_DOFS and [c.worlds for c in auto.chunks[0]] == [(0, 7)]
    with pytest.raises(ValueError, match="world_chunk"):
        SolverGeneralized(model, world_chunk=0)
    ant, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(ant_path()))
    scene = ng.ModelBuilder()
    scene.replicate(ant, 40)
    many = scene.finalize("cpu")  # 40 x 14 DOFs: chunks of 384 // 14 = 27 worlds
    assert [c.worlds for c in SolverGeneralized(many).chunks[0]] == [(0, 27), (27, 13)]
    monkeypatch.setattr(generalized, "MAX_CHUNKS", 4)  # within the cap: the DOF rule's 2 chunks stay
    assert [c.worlds for c in SolverGeneralized(many).chunks[0]] == [(0, 27), (27, 13)]
    monkeypatch.setattr(generalized, "MAX_CHUNKS", 1)
    assert [c.worlds for c in SolverGeneralized(many).chunks[0]] == [(0, 40)]


def test_spans_cover_every_entity_once():
    model, acts = _mixed_worlds()
    solver = SolverGeneralized(model, actuators=acts)
    spans = split_spans(model, solver.contacts, solver.rows, np.asarray(acts.dof), 3)
    totals = {
        "worlds": model.world_count,
        "articulations": model.articulation_count,
        "dofs": model.joint_dof_count,
        "coords": model.joint_coord_count,
        "bodies": model.body_count,
        "pairs": solver.contacts.pair_count,
        "slots": solver.contacts.slot_count,
        "rows": solver.rows.count,
        "actuators": acts.count,
    }
    for name, total in totals.items():
        ranges = [getattr(s, name) for s in spans]
        assert ranges[0][0] == 0 and sum(r[1] for r in ranges) == total, name
        for (f0, n0), (f1, _) in zip(ranges[:-1], ranges[1:]):
            assert f0 + n0 == f1, name  # contiguous, no gap, no overlap
    assert all(s.worlds[1] >= 1 for s in spans)
    one_each = split_spans(model, solver.contacts, solver.rows, np.asarray(acts.dof), model.world_count)
    assert [s.worlds for s in one_each] == [(w, 1) for w in range(model.world_count)]


def test_shared_entities_fall_back_to_one_thread():
    robot = ng.ModelBuilder()
    robot.add_body(xform=[0, 0, 1, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    scene = ng.ModelBuilder()
    scene.add_body(xform=[0, 0, 3, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)  # a global body
    scene.add_world(robot)
    scene.add_world(robot)
    model = scene.finalize("cpu")
    with pytest.warns(UserWarning, match="global"):
        solver = SolverGeneralized(model, threads=2)
    assert solver.threads == 1
    with pytest.raises(ValueError, match="threads"):
        SolverGeneralized(model, threads=0)


@pytest.mark.parametrize("captured", [False, True])
def test_steps_without_outputs_leave_the_physics_bitwise_the_same(captured):
    """All but the last of consecutive steps may skip their outputs (step(outputs=False); capture(steps=k)
    does so): after each group of 4 steps the joint state, the bodies, the contact wrenches and counts and
    the health flags are bitwise those of stepping with every output written."""
    results = []
    for skip in (False, True):
        model, acts = _mixed_worlds()
        solver = SolverGeneralized(model, substeps=2, iterations=50, actuators=acts)
        state = model.state()
        ctrl = ant_control(40)
        if skip and captured:
            solver.capture(state, state, None, 0.01, steps=4)
        groups = []
        for g in range(10):
            solver.ctrl.assign(np.tile(ctrl[4 * g], acts.count // 8).astype(np.float32))
            if skip and captured:
                solver.replay()
            else:
                for k in range(4):
                    solver.step(state, state, None, 0.01, outputs=not skip or k == 3)
            outs = (state.joint_q, state.joint_qd, state.body_q, state.body_qd, solver.body_contact_wrench)
            outs += (solver.world_contact_count, solver.world_unhealthy)
            groups.append([a.numpy().copy() for a in outs])
        results.append(groups)
    for every, last in zip(*results):
        for a, b in zip(every, last):
            np.testing.assert_array_equal(a, b)
    assert results[0][-1][5].sum() > 0  # the ants touch the ground
