"""The per-world block passes (newton_gym.solvers.forward): 32 lanes per world equal one lane, worlds that
share a tree run as one block, and a substep is at most four launches.

Warp runs the lanes of a CPU block as cooperative fibers only with ``wp.config.enable_cpu_blocks``; the
fixture turns it on, so these are the GPU-shaped code paths run on the CPU.
"""

import mujoco
import numpy as np
import pytest
import warp as wp
from mujoco_builder import builder_from_mujoco
from solver_helpers import ant_control, ant_path, pendulum_xml

import newton_gym as ng
from newton_gym.errors import SolverError
from newton_gym.solvers import Actuators, SolverGeneralized
from newton_gym.solvers.solve.world import world_kernel

STEPS = 200


@pytest.fixture(autouse=True)
def cpu_blocks(monkeypatch):
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)


def _humanoid_path() -> str:
    import os

    from gymnasium.envs.mujoco import humanoid_v5

    return os.path.join(os.path.dirname(humanoid_v5.__file__), "assets", "humanoid.xml")


def _scene(kind: str):
    """(model, actuators) of 3 Ant worlds, 2 Humanoid worlds, mixed worlds (Ant; Ant + a double pendulum
    + a triple pendulum in one world, three articulations for the lanes to share; a double pendulum), two
    Ant worlds ("ant2") or the same two with a global double pendulum beside them ("shared")."""
    ant_b, ant_act, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(ant_path()))
    hum_b, hum_act, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(_humanoid_path()))
    pend2, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_string(pendulum_xml(2)))
    pend3, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_string(pendulum_xml(3)))
    worlds = {
        "ant": [[(ant_b, ant_act)]] * 3,
        "humanoid": [[(hum_b, hum_act)]] * 2,
        "mixed": [[(ant_b, ant_act)], [(ant_b, ant_act), (pend2, None), (pend3, None)], [(pend2, None)]],
        "ant2": [[(ant_b, ant_act)]] * 2,
        "shared": [[(ant_b, ant_act)]] * 2,
    }[kind]
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    if kind == "shared":  # a tree of no world: the worlds share entities
        scene.add_builder(pend2, xform=wp.transform((0.0, -3.0, 0.0), wp.quat_identity()), world=-1)
    records, dof0 = [], scene.joint_dof_count
    for w, members in enumerate(worlds):
        scene.begin_world(gravity=(0.0, 0.0, -9.81 + 0.2 * w))
        for builder, act in members:
            scene.add_builder(builder, xform=wp.transform((0.0, 2.0 * len(records), 0.0), wp.quat_identity()))
            if act is not None:
                records.append((act, dof0))
            dof0 += builder.joint_dof_count
        scene.end_world()
    model = scene.finalize("cpu")
    acts = Actuators(
        np.concatenate([a.dof + d0 for a, d0 in records]),
        np.concatenate([a.gear for a, _ in records]),
        np.concatenate([a.ctrl_range for a, _ in records]),
        np.concatenate([a.force_range for a, _ in records]),
    )
    return model, acts


def _run(kind: str, block_dim: int, row_budget=None, tiles=None, tolerance=1.0e-8, world_chunk=None):
    """200 steps of ``_scene(kind)``: eager steps, or with ``world_chunk`` one captured step replayed in chunks
    of that many worlds."""
    model, acts = _scene(kind)
    dt = 0.01 if kind != "humanoid" else 0.003
    solver = SolverGeneralized(
        model,
        substeps=2,
        actuators=acts,
        block_dim=block_dim,
        row_budget=row_budget,
        tiles=tiles,
        tolerance=tolerance,
        world_chunk=world_chunk,
    )
    assert solver.tiles == bool(tiles)
    state = model.state()
    if world_chunk is not None:
        solver.capture(state, state, None, dt)
    rng = np.random.default_rng(3)
    ant = ant_control(STEPS)
    touching = 0
    for i in range(STEPS):
        ctrl = rng.uniform(-1.0, 1.0, acts.count).astype(np.float32)
        if kind != "humanoid":
            ctrl = np.tile(ant[i], acts.count // 8).astype(np.float32)
        solver.ctrl.assign(ctrl)
        if world_chunk is None:
            solver.step(state, state, None, dt)
        else:
            solver.replay()
        if i % 20 == 0:
            touching += int(solver.world_contact_count.numpy().sum() > 0)
    outs = (state.joint_q, state.joint_qd, state.body_q, solver.body_contact_wrench, solver.world_contact_count)
    return [a.numpy().copy() for a in outs] + [touching], solver


@pytest.mark.parametrize("kind", ["ant", "humanoid", "mixed", "shared"])
def test_32_lanes_equal_one_lane(kind):
    one, solver = _run(kind, 1)
    assert np.isfinite(one[0]).all() and not solver.world_unhealthy.numpy().any()
    lanes, _ = _run(kind, 32)
    for a, b in zip(one, lanes):
        np.testing.assert_allclose(b, a, rtol=0.0, atol=1e-5)
    assert one[-1] >= 5  # the robots touch the ground at most samples: the contact outputs are exercised


def test_32_lanes_in_world_chunks_equal_one_lane():
    """The captured step replayed in chunks of one world, 32 lanes each, follows one lane's eager steps."""
    one, _ = _run("mixed", 1)
    chunked, solver = _run("mixed", 32, world_chunk=1)
    assert [c.worlds for c in solver.chunks[0]] == [(0, 1), (1, 1), (2, 1)]
    for a, b in zip(one, chunked):
        np.testing.assert_allclose(b, a, rtol=0.0, atol=1e-5)
    assert one[-1] >= 5


def test_worlds_sharing_a_tree_step_as_one_block_like_worlds_of_their_own():
    """A global tree makes the worlds share entities: the per-world passes then run one block holding every
    world, and each Ant follows the Ant of the same scene without the global tree."""
    shared, solver = _run("shared", 1)
    assert solver.spans[0].blocks == (0, 1) and solver.block_ranges.world_start.numpy().tolist() == [0, 2]
    alone, _ = _run("ant2", 1)
    pend = solver.model.joint_coord_count - alone[0].shape[0]  # the global pendulum's coordinates come first
    np.testing.assert_allclose(shared[0][pend:], alone[0], rtol=0.0, atol=1e-6)
    np.testing.assert_array_equal(shared[4], alone[4])  # contacts per world
    bodies = solver.model.body_count - alone[2].shape[0]
    np.testing.assert_allclose(shared[3][bodies:], alone[3], rtol=0.0, atol=1e-3)  # contact wrenches [N]


def test_32_lanes_list_rows_like_one_lane_when_contacts_overflow():
    """With a row budget too small for the contacts, the lanes' listing falls back to one lane keeping
    slots in order while they fit: the same list, the same trajectory, and the worlds are flagged."""
    one, solver = _run("ant", 1, row_budget=12)
    assert solver.rows.row_overflow.numpy().all()
    lanes, solver32 = _run("ant", 32, row_budget=12)
    assert solver32.rows.row_overflow.numpy().all()
    for a, b in zip(one, lanes):
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("kind, block_dim", [("mixed", 1), ("mixed", 32), ("humanoid", 1), ("shared", 1)])
def test_contact_outputs_from_the_listed_rows_equal_those_of_every_slot(kind, block_dim):
    """The finish pass outputs the contacts of the world solve's list of active rows; a world whose rows
    overflowed its budget (flag set by hand here) takes every slot's flag instead: the same contact forces,
    body wrenches and counts, bitwise, for one lane and 32 (Humanoid: self-contacts; "shared": blocks of
    several worlds, which scan the slots either way)."""
    model, acts = _scene(kind)
    dt = 0.01 if kind != "humanoid" else 0.003
    solvers = [SolverGeneralized(model, actuators=acts, block_dim=block_dim) for _ in range(2)]
    states = [model.state(), model.state()]
    rng = np.random.default_rng(5)
    steps = 200 if kind == "humanoid" else 20  # each in contact with the floor at its last step
    for i in range(steps):
        ctrl = rng.uniform(-1.0, 1.0, acts.count).astype(np.float32)
        for k, (solver, state) in enumerate(zip(solvers, states)):
            if k == 1 and i == steps - 1:
                solver.rows.row_overflow.fill_(1)
            solver.ctrl.assign(ctrl)
            solver.step(state, state, None, dt)
    a, b = solvers
    assert a.world_contact_count.numpy().sum() > 0
    assert np.array_equal(a.rows.row_overflow.numpy(), np.zeros(model.world_count))
    for name in ("body_contact_wrench", "body_contact_count", "world_contact_count"):
        assert np.array_equal(getattr(a, name).numpy(), getattr(b, name).numpy()), name
    assert np.array_equal(a.contacts.force.numpy(), b.contacts.force.numpy())


def test_tile_cholesky_32_lanes_equal_one_lane_and_follow_the_lanes_cholesky():
    """Newton with each iteration's Hessian factored by Warp's tile_cholesky (Ant worlds of 14 DOFs each):
    32 lanes equal one lane bitwise, and the trajectory follows that of the lanes' own Cholesky up to
    float32 rounding grown over 200 steps of contact. Both run Newton to convergence (tolerance 0): with
    early exits, rounding that moves the Newton decrement across the tolerance changes a step's iteration
    count, which 200 steps of an Ant on contact grow to centimetres."""
    lanes, _ = _run("ant", 32, tolerance=0.0)
    one, solver = _run("ant", 1, tiles=True, tolerance=0.0)
    assert solver.world_solver.tile_dofs == 14
    tiles32, _ = _run("ant", 32, tiles=True, tolerance=0.0)
    for a, b in zip(one, tiles32):
        np.testing.assert_array_equal(b, a)
    q, qd, body_q, wrench, count, touching = one
    np.testing.assert_allclose(q, lanes[0], rtol=0.0, atol=5e-4)
    np.testing.assert_allclose(qd, lanes[1], rtol=0.0, atol=5e-4)
    np.testing.assert_allclose(body_q, lanes[2], rtol=0.0, atol=5e-4)
    np.testing.assert_allclose(wrench, lanes[3], rtol=1e-3, atol=1e-2)
    np.testing.assert_array_equal(count, lanes[4])
    assert touching >= 5


def test_tiles_apply_only_where_every_world_has_one_dof_count(monkeypatch):
    """Worlds of different DOF counts keep the lanes' Cholesky (with a warning when tiles were asked for);
    CPU tiles refuse several threads; a tile kernel that does not load falls back to the lanes."""
    model, acts = _scene("mixed")
    with pytest.warns(UserWarning, match="not tiled"):
        solver = SolverGeneralized(model, actuators=acts, tiles=True)
    assert not solver.tiles
    model, acts = _scene("ant")
    assert not SolverGeneralized(model, actuators=acts).tiles  # off by default on the CPU
    with pytest.raises(SolverError, match="threads=1"):
        SolverGeneralized(model, actuators=acts, tiles=True, threads=2)
    original = type(world_kernel(14).module).load

    def fail_tiles(module, *args, **kwargs):
        if module is world_kernel(14).module:
            raise RuntimeError("no cuSolverDx here")
        return original(module, *args, **kwargs)

    monkeypatch.setattr(type(world_kernel(14).module), "load", fail_tiles)
    with pytest.warns(UserWarning, match="no cuSolverDx here"):
        solver = SolverGeneralized(model, actuators=acts, tiles=True)
    assert not solver.tiles
    state = model.state()
    solver.step(state, state, None, 0.01)
    assert np.isfinite(state.joint_q.numpy()).all()


@pytest.mark.parametrize("wide", [False, True])
def test_a_substep_launches_each_pass_once(monkeypatch, wide):
    """Four launches a substep, and on the CPU a fifth where articulations of one shape are factored side by
    side (:mod:`newton_gym.solvers.smooth.wide_factor`: the scene's three Ants)."""
    from newton_gym.solvers.smooth import wide_factor

    monkeypatch.setattr(wide_factor, "ENABLED", wide)
    model, acts = _scene("ant")
    solver = SolverGeneralized(model, substeps=3, actuators=acts)
    state = model.state()
    solver.step(state, state, None, 0.01)  # loads the modules
    launched = []
    for name in ("launch", "launch_tiled"):
        original = getattr(wp, name)

        def counted(kernel, *args, _original=original, **kwargs):
            launched.append(kernel.key)
            return _original(kernel, *args, **kwargs)

        monkeypatch.setattr(wp, name, counted)
    solver.step(state, state, None, 0.01)
    stages = ("_smooth_kernel", "_wide_factor_kernel") if wide else ("_smooth_kernel",)
    stages += ("_collide_kernel", "_world_kernel", "_finish_kernel")
    assert len(launched) == len(stages) * 3, launched
    assert all(key.endswith(stage) for key, stage in zip(launched, stages)), launched  # (a factory's kernel key
    # is prefixed by the factory's name)


def test_block_dim_is_checked():
    model, acts = _scene("ant")
    with pytest.raises(SolverError, match="block_dim"):
        SolverGeneralized(model, actuators=acts, block_dim=0)
    assert SolverGeneralized(model, actuators=acts).block_dim == 1  # the CPU default


def test_a_step_reads_nothing_back(monkeypatch):
    """After the first step (which checks the time step once), a step allocates nothing and copies nothing
    to the host: on a GPU each such read would stall the stream."""
    model, acts = _scene("mixed")
    solver = SolverGeneralized(model, substeps=2, actuators=acts)
    state = model.state()
    solver.step(state, state, None, 0.01)

    def refuse(*args, **kwargs):
        raise AssertionError("host read or allocation inside SolverGeneralized.step")

    for name in ("numpy", "list", "__array__"):
        monkeypatch.setattr(wp.array, name, refuse)
    for name in ("synchronize", "synchronize_device", "zeros", "empty", "clone", "copy"):
        monkeypatch.setattr(wp, name, refuse)
    for _ in range(3):
        solver.step(state, state, None, 0.01)
    monkeypatch.undo()
    assert np.isfinite(state.joint_q.numpy()).all()


def test_the_step_follows_the_states_arrays():
    """The solver caches its stage structs per set of arrays: a State whose arrays were replaced (or a new
    State that took a freed one's id) must be stepped through its current arrays."""
    model, acts = _scene("ant")
    solver = SolverGeneralized(model, actuators=acts)
    state = model.state()
    solver.step(state, state, None, 0.01)
    old_q = state.joint_q
    before = old_q.numpy().copy()
    state.joint_q = wp.clone(old_q)
    solver.step(state, state, None, 0.01)
    np.testing.assert_array_equal(old_q.numpy(), before)  # the replaced array is left alone
    assert not np.array_equal(state.joint_q.numpy(), before)  # the current one moved


def test_more_lanes_than_the_newton_scratch_holds_are_refused():
    """Newton fills each row in its lane's Jacobian scratch, sized for the solver's block_dim: a launch
    with more lanes would share scratch between lanes, so it is refused."""
    model, acts = _scene("ant")
    solver = SolverGeneralized(model, actuators=acts, block_dim=4)
    state = model.state()
    solver.step(state, state, None, 0.01)
    with pytest.raises(SolverError, match="8 lanes per world, its lane scratch holds 4"):
        solver.world_solver.solve(solver.data, state.joint_q, state.joint_qd, 0.01, 10, (0, 1), block_dim=8)


def test_tree_levels_are_stored_once_per_distinct_world():
    """Replicated worlds share one copy of the level tables; the mixed scene's three different worlds get
    three, and every world's levels, offset to its joints, are its own joints in depth order."""
    model, acts = _scene("ant")
    solver = SolverGeneralized(model, actuators=acts)
    ranges = solver.block_ranges
    per_world = model.joint_count // model.world_count
    assert ranges.level_joint.shape[0] == per_world
    assert (ranges.level_template.numpy() == 0).all()
    model, acts = _scene("mixed")
    solver = SolverGeneralized(model, actuators=acts)
    ranges = solver.block_ranges
    template = ranges.level_template.numpy()
    assert len(set(template.tolist())) == model.world_count == 3
    start, ptr = ranges.level_start.numpy(), ranges.level_ptr.numpy()
    local, j0 = ranges.level_joint.numpy(), ranges.joint_start.numpy()
    parent, child = model.joint_parent.numpy(), model.joint_child.numpy()
    for w, t in enumerate(template):
        joints = j0[w] + local[ptr[start[t]] : ptr[start[t + 1]]]
        assert sorted(joints.tolist()) == list(range(j0[w], j0[w + 1]))
        placed = set()
        for j in joints:  # a joint comes after the joint that moves its parent body
            assert parent[j] < 0 or parent[j] in placed
            placed.add(child[j])
