"""The per-world row budget (MuJoCo's njmax, per world): the world solve stores the terms of at most a budget of
active rows per world instead of every candidate row, so thousands of self-colliding robots build quickly and
hold little memory; a world whose active rows do not fit drops the contacts that do not fit, raises its overflow
flag on the device and writes nothing outside its own rows."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
import warp as wp
from mujoco_builder import builder_from_mujoco
from solver_helpers import ant_path

import newton_gym as ng
from newton_gym.assets import robot_path
from newton_gym.errors import ModelBuildError
from newton_gym.solvers import Option, SolverGeneralized
from newton_gym.solvers.constraint import rows as constraint
from newton_gym.solvers.types import vec8

DT = 0.01


def _usd_worlds(robot: str, n: int, device="cpu"):
    """``n`` copies of a shipped USD robot (its floor included), imported as the tasks do."""
    single = ng.ModelBuilder()
    single.add_usd(robot_path(robot))
    scene = ng.ModelBuilder(up_axis=single.up_axis, gravity=single.gravity)
    scene.replicate(single, n)
    return scene.finalize(device)


def _gym_ant_worlds(n: int, device):
    """``n`` copies of gymnasium's ant.xml (it drops onto its four feet)."""
    sub, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(ant_path()))
    scene = ng.ModelBuilder()
    scene.replicate(sub, n)
    return scene.finalize(device)


def test_4096_ant_worlds_build_with_buffers_of_their_budget_and_step():
    model = _usd_worlds("ant", 4096)
    solver = SolverGeneralized(model)
    rows, rd = solver.rows, solver.world_solver.rd
    per_world = rows.count // 4096
    assert rows.budget_host.shape == (4096,) and (rows.budget_host <= per_world).all()
    assert rd.ydense.shape[0] == rows.budget_host.sum() * 14  # compact rows x the Ant's DOFs, not every row
    # Newton moves each filled row's Y into ydense: the Jacobian blocks are one lane's scratch per world
    assert rd.minv_jac.shape[0] == 4096 * solver.block_dim * 4 * 2 * rows.width
    state = model.state()
    for _ in range(10):
        solver.step(state, state, None, DT)
    assert np.isfinite(state.joint_q.numpy()).all()
    assert not solver.world_unhealthy.numpy().any()
    assert not rows.row_overflow.numpy().any()
    assert (rows.row_peak.numpy() <= rows.budget_host).all()


def test_default_budget_of_self_colliding_robots_is_a_fraction_of_their_rows():
    model = _usd_worlds("go1", 4)
    solver = SolverGeneralized(model)
    rows = solver.rows
    xrows = len(rows.kind_host) // 4  # joint limits and friction
    expected = constraint.default_row_budget(solver.contacts, solver.layout, "pyramidal") + xrows
    assert (rows.budget_host == expected).all()
    assert rows.budget_host[0] * 3 < rows.count // 4  # Go1: 308 of 1124 rows
    state = model.state()
    for _ in range(50):  # it collapses onto the floor (no servos)
        solver.step(state, state, None, 0.002)
    peak = rows.row_peak.numpy()
    assert (peak > xrows).all()  # it touches the floor
    assert (peak <= rows.budget_host).all() and not rows.row_overflow.numpy().any()


def _guard(rd, device, pad=64):
    """Replace the world solve's compact buffers with copies that carry ``pad`` sentinel elements past their end;
    returns (name, array, number of original elements, sentinel) to check after stepping."""
    guards = []
    compact = ("act_list", "kind", "owner", "art", "pos", "solref", "solimp", "diag_approx", "lo", "hi", "cone")
    compact += ("cone_mu", "bias", "reg", "inv", "cforce", "free", "step", "ynz_count", "jar", "jv", "zone")
    for name in compact + ("minv_jac",):  # minv_jac last: minv8 views it
        guards.append(_padded(rd, name, pad * (16 if name == "minv_jac" else 1), device))
    minv = guards[-1][1]
    rd.minv8 = wp.array(ptr=minv.ptr, dtype=vec8, shape=(minv.shape[0] // 8,), device=device)
    return guards


def _padded(rd, name, pad, device):
    old = getattr(rd, name)
    host = old.numpy()
    sentinel = np.full((pad,) + host.shape[1:], -7, dtype=host.dtype)
    new = wp.array(np.concatenate([host, sentinel]), dtype=old.dtype, device=device)
    setattr(rd, name, new)
    return name, new, len(host), sentinel


@pytest.mark.parametrize("solver_name", ["newton", "pgs"])
def test_overflow_drops_contacts_flags_the_world_and_writes_nothing_past_its_rows(device, monkeypatch, solver_name):
    contact_rows = 4  # one of the four feet's pyramids
    monkeypatch.setattr(constraint, "default_row_budget", lambda c, layout, cone: np.full(layout.world_count, 4))
    model = _gym_ant_worlds(3, device)
    solver = SolverGeneralized(model, solver=solver_name, iterations=50)
    rows = solver.rows
    xrows = len(rows.kind_host) // 3  # the eight hinge limits
    assert (rows.budget_host == xrows + contact_rows).all()
    guards = _guard(solver.world_solver.rd, device)
    state = model.state()
    for _ in range(150):  # it falls onto its four feet
        solver.step(state, state, None, DT)
    assert np.isfinite(state.joint_q.numpy()).all() and np.isfinite(state.joint_qd.numpy()).all()
    for name, array, n, sentinel in guards:
        assert np.array_equal(array.numpy()[n:], sentinel), f"{name} written past the last world's rows"
    assert (rows.row_overflow.numpy() == 1).all()
    assert (solver.world_unhealthy.numpy() == 1).all()  # surfaced where envs look: the worlds get reset
    assert (rows.row_peak.numpy() >= xrows + 16).all()  # four feet wanted 16 contact rows
    touching = np.abs(solver.contacts.force.numpy()).sum(axis=1) > 0
    per_world = np.bincount(np.repeat(solver.contacts.pair_world_host, solver.contacts.pair_slots_host)[touching])
    assert (per_world <= 1).all()  # the contacts past the budget carry no force
    mask = wp.array([True, False, False], dtype=wp.bool, device=device)
    solver.reset_worlds(state, mask)
    assert rows.row_overflow.numpy().tolist() == [0, 1, 1]
    assert solver.world_unhealthy.numpy().tolist() == [0, 1, 1]
    assert rows.row_peak.numpy()[0] == 0 and (rows.row_peak.numpy()[1:] > 0).all()


def test_a_budget_below_the_worlds_limit_rows_raises_naming_them():
    model = _usd_worlds("ant", 2)
    solver = SolverGeneralized(model)
    with pytest.raises(ModelBuildError, match=r"row_budget=3 is below the 8 joint-limit"):
        constraint.build_rows(model, solver.layout, solver.contacts, Option(row_budget=3))
    rows = constraint.build_rows(model, solver.layout, solver.contacts, Option(row_budget=10**6))
    assert (rows.budget_host == rows.count // 2).all()  # at most every row of the world


def test_row_budget_is_a_solver_keyword():
    model = _usd_worlds("ant", 2)
    assert (SolverGeneralized(model, row_budget=30).rows.budget_host == 30).all()
    with pytest.raises(ModelBuildError, match="row_budget=3"):
        SolverGeneralized(model, row_budget=3)


def test_a_world_with_more_dofs_than_newton_indexes_is_refused(monkeypatch):
    """The Newton solve stores each row's DOF columns as int16: a world beyond that is refused at
    construction (shown with the limit lowered below an Ant's 14 DOFs), and PGS still takes it."""
    from newton_gym.errors import ModelBuildError
    from newton_gym.solvers.solve import world as world_solve

    model = _usd_worlds("ant", 2)
    monkeypatch.setattr(world_solve, "_MAX_WORLD_DOFS", 10)
    with pytest.raises(ModelBuildError, match="a world with 14 DOFs; the Newton solve handles at most 10"):
        SolverGeneralized(model)
    SolverGeneralized(model, solver="pgs")
