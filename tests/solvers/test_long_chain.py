"""Long hinged chains (issue 14): a horizontal chain of 90 capsule links went NaN in its first step.

Cause: the chain's joint-space mass matrix is ill-conditioned (90 links: cond(M) ~ 1.5e8, 200: ~4e9,
1000: ~4e12); its pivots near the root are small differences of large composite inertias taken about a
reference point metres away, and in float32 the root pivot came out negative (clamped to 1e-12: inf).
The body inertias about r, the composite inertias, M, its factor and the M^-1 solves now run in float64
(smooth._crb_kernel, spatial.ltl_*). With self-collisions a chain's rows grow with the square of the links;
only a world's row budget of them is stored with a Jacobian (budget x 2 x the articulation's DOFs floats,
int32-indexed), so 700 self-colliding links build, and a budget above 2^31 - 1 floats raises ModelBuildError.

Reference: MuJoCo (float64) on the same chain from ``chain_xml``. Tolerances, from the measured worst
joint-angle differences (float32 state and bias forces against float64 with cond(M) ~ 4e9):
hanging, 200 links: 3.3e-5 rad over the first 30 steps, 2.6e-5 over 1 s -> 2e-4 rad;
lying on the floor (400 contacts), 50 steps: 3.1e-6 rad against MuJoCo solved to tolerance 1e-14 -> 3e-5 rad.
(MuJoCo at its default tolerance 1e-8 stops one Newton iteration early at step 13 and departs from its own
converged solution by 6.5e-4 rad by step 30, so the floor case is compared with the converged one.)
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from solver_helpers import LINK_RADIUS, chain_builder, chain_xml

from newton_gym.errors import ModelBuildError
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.constraint.rows import MAX_ROW_FLOATS, build_rows
from newton_gym.solvers.option import Option

DT = 0.002
HANG_TOL = 2e-4  # [rad]
FLOOR_TOL = 3e-5  # [rad]


def _compare(links, steps, height, floor, mj_tolerance=None, check_steps=None):
    """Step our chain and MuJoCo's side by side; returns (worst |q - qpos| over the first check_steps, final q)."""
    model = chain_builder(links, height=height, floor=floor).finalize("cpu")
    solver = SolverGeneralized(model)
    m = mujoco.MjModel.from_xml_string(chain_xml(links, height=height, floor=floor))
    if mj_tolerance is not None:
        m.opt.tolerance = mj_tolerance
        m.opt.iterations = 200
    d = mujoco.MjData(m)
    s0, s1 = model.state(), model.state()
    worst = 0.0
    for i in range(steps):
        solver.step(s0, s1, None, DT)
        s0, s1 = s1, s0
        if i < (check_steps or steps):
            mujoco.mj_step(m, d)
            q = s0.joint_q.numpy()
            assert np.isfinite(q).all(), f"step {i}: non-finite joint_q"
            worst = max(worst, float(np.abs(q - d.qpos).max()))
    return worst, s0.joint_q.numpy(), d


def test_200_link_chain_hangs_for_one_second_like_mujoco():
    worst, q, d = _compare(200, steps=int(round(1.0 / DT)), height=1.0, floor=False, check_steps=50)
    assert np.isfinite(q).all()
    assert worst < HANG_TOL
    assert np.abs(q).max() > 0.5  # it did fall (measured 1.7 rad at the tip joint after 1 s)


def test_200_link_chain_on_the_floor_like_converged_mujoco():
    worst, q, d = _compare(200, steps=50, height=LINK_RADIUS - 0.001, floor=True, mj_tolerance=1e-14)
    assert d.ncon == 400  # both caps of every link touch the floor
    assert worst < FLOOR_TOL


def test_self_colliding_links_build_and_a_budget_over_the_limit_raises_naming_it():
    model = chain_builder(700).finalize("cpu")
    solver = SolverGeneralized(model)  # ~1.95 M rows x 2 x 704 DOFs would exceed int32; the budget does not
    assert solver.rows.budget_host[0] < solver.rows.count
    assert solver.rows.count * 2 * solver.rows.width > MAX_ROW_FLOATS
    option = Option(row_budget=solver.rows.count)  # every row of the world
    with pytest.raises(ModelBuildError, match=r"2\^31 - 1.*row_budget.*enable_self_collisions"):
        build_rows(model, solver.layout, solver.contacts, option)
