"""The smooth pass's factorization of several articulations of one shape at a time
(newton_gym.solvers.smooth.wide_factor) equals the one-at-a-time path bitwise: joint state, qacc_smooth and both
factors, eager and captured steps, on a scene whose worlds hold two tree shapes (an Ant and a double pendulum),
a world count that leaves a part group, Ants without damping in some worlds (a group whose lanes differ in
implicit terms), one or two threads; a model whose DOFs a damped tendon moves keeps the scalar path."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
import warp as wp
from mujoco_builder import builder_from_mujoco
from solver_helpers import ant_path, pendulum_xml

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.items import WIDE
from newton_gym.solvers.smooth import wide_factor

WORLDS = WIDE + 3  # one full group of each shape and a part group


def _two_shape_model():
    ant, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_path(ant_path()))
    pend, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_string(pendulum_xml(2)))
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    for w in range(WORLDS):
        scene.begin_world(gravity=(0.0, 0.0, -9.81 + 0.1 * w))
        scene.add_builder(ant, xform=wp.transform((0.0, 3.0 * w, 0.6), wp.quat_identity()))
        scene.add_builder(pend, xform=wp.transform((2.0, 3.0 * w, 2.0), wp.quat_identity()))
        scene.end_world()
    model = scene.finalize("cpu")
    damping = model.joint_damping.numpy()
    assert damping.max() > 0.0  # the Ant's joints are damped: implicit terms
    per_world = model.joint_dof_count // WORLDS
    for w in (0, 3, 9):  # no damping on these worlds' DOFs: lanes without implicit terms
        damping[w * per_world : (w + 1) * per_world] = 0.0
    model.joint_damping.assign(damping)
    return model


def _step(model, wide: bool, monkeypatch, threads: int, steps: int = 12, captured: int = 2) -> dict:
    monkeypatch.setattr(wide_factor, "ENABLED", wide)
    solver = SolverGeneralized(model, substeps=2, iterations=20, threads=threads)
    if wide:  # per thread's worlds: a group of each shape side by side (two threads: each its own scratch)
        assert solver.wide_factor is not None and solver.wide_factor.wide_groups >= 2 * threads
    else:
        assert solver.wide_factor is None
    state, control = model.state(), model.control()
    rng = np.random.default_rng(3)
    for _ in range(steps):
        control.joint_f.assign(rng.uniform(-2.0, 2.0, model.joint_dof_count).astype(np.float32))
        solver.step(state, state, control, 0.01)
    graphs = solver.capture(state, state, control, 0.01, steps=3)  # world chunks, replayed
    for _ in range(captured):
        for g in graphs:
            wp.capture_launch(g)
    wp.synchronize()
    data = solver.data
    out = {"joint_q": state.joint_q, "joint_qd": state.joint_qd, "qacc_smooth": data.qacc_smooth}
    out.update(chol=data.chol, chol_implicit=data.chol_implicit, art_implicit=data.art_implicit)
    return {k: v.numpy().copy() for k, v in out.items()}


@pytest.mark.parametrize("threads", [1, 2])
def test_wide_factor_equals_scalar_bitwise(monkeypatch, threads):
    model = _two_shape_model()
    scalar = _step(model, False, monkeypatch, threads)
    wide = _step(model, True, monkeypatch, threads)
    assert 0 < scalar["art_implicit"].sum() < len(scalar["art_implicit"])  # implicit and not, side by side
    assert np.isfinite(scalar["joint_q"]).all()
    for key, value in scalar.items():
        np.testing.assert_array_equal(wide[key], value, err_msg=key)


def test_wide_factor_groups():
    """Articulations are grouped by shape, WIDE at a time, each articulation of a span in exactly one group."""
    model = _two_shape_model()
    solver = SolverGeneralized(model)
    wf = solver.wide_factor
    arts = wf.args.art.numpy().reshape(-1, WIDE)
    counts, wides = wf.args.count.numpy(), wf.args.wide.numpy()
    for span in solver.spans:
        groups = wf._groups[span.articulations]
        listed = np.concatenate([arts[g, : counts[g]] for g in range(groups.first, groups.first + groups.count)])
        a0, na = span.articulations
        np.testing.assert_array_equal(np.sort(listed), np.arange(a0, a0 + na))
        first = groups.first
        # Ants at even articulation indices, pendulums at odd: each group holds one shape
        for g in range(first, first + groups.count):
            assert len(set(arts[g, : counts[g]] % 2)) == 1
            assert wides[g] == int(counts[g] >= wide_factor.MIN_LANES)


def test_tendon_dofs_keep_the_scalar_path(monkeypatch):
    """Worlds whose DOFs a damped fixed tendon moves: their groups take the scalar path (which adds the
    tendon's J^T J to M_hat), and the step is the same with the wide path on or off."""
    xml = """
<mujoco><option timestep="0.01" integrator="implicitfast"/>
<worldbody><body><joint name="a" type="hinge" axis="0 1 0" damping="0.2"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
<body pos="0.3 0 0"><joint name="b" type="hinge" axis="0 1 0"/>
<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></body></worldbody>
<tendon><fixed damping="0.5"><joint joint="a" coef="1"/><joint joint="b" coef="-1"/></fixed></tendon>
</mujoco>"""
    one, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_string(xml))
    scene = ng.ModelBuilder()
    scene.replicate(one, world_count=WORLDS)
    model = scene.finalize("cpu")
    finals = []
    for wide in (False, True):
        monkeypatch.setattr(wide_factor, "ENABLED", wide)
        solver = SolverGeneralized(model)
        if wide:
            assert solver.wide_factor.wide_groups > 0
        state = model.state()
        state.joint_q.assign(np.full(model.joint_coord_count, 0.4, np.float32))
        for _ in range(10):
            solver.step(state, state, None, 0.01)
        finals.append(state.joint_q.numpy())
    assert np.isfinite(finals[0]).all() and np.abs(finals[0] - 0.4).max() > 1e-3
    np.testing.assert_array_equal(finals[1], finals[0])
