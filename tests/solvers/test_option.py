"""Option: the solver's settings as one frozen value, validated in one place; SolverGeneralized takes it
and its keywords as overrides; ``newton-gym inspect`` lists it."""

import dataclasses
import warnings

import mujoco
import numpy as np
import pytest
from solver_helpers import model_from_xml, pendulum_xml

from newton_gym.errors import SolverError
from newton_gym.solvers import Option, SolverGeneralized


@pytest.fixture(scope="module")
def pendulum():
    return model_from_xml(mujoco.MjModel.from_xml_string(pendulum_xml(2)))[0]


def test_keywords_override_the_option_and_the_solver_keeps_it(pendulum):
    base = Option(cone="elliptic", iterations=12)
    solver = SolverGeneralized(pendulum, option=base, iterations=7, solver="pgs")
    assert solver.option == dataclasses.replace(base, iterations=7, solver="pgs")
    assert (solver.iterations, solver.cone, solver.solver) == (7, "elliptic", "pgs")
    assert base.iterations == 12  # the given Option is not changed
    assert SolverGeneralized(pendulum).option == Option()


def test_an_option_and_the_same_keywords_step_alike(pendulum):
    def run(solver):
        state = pendulum.state()
        for _ in range(20):
            solver.step(state, state, None, 0.01)
        return state.joint_q.numpy()

    by_option = run(SolverGeneralized(pendulum, option=Option(substeps=2, cone="elliptic")))
    by_keywords = run(SolverGeneralized(pendulum, substeps=2, cone="elliptic"))
    np.testing.assert_array_equal(by_option, by_keywords)


@pytest.mark.parametrize(
    "fields, name",
    [
        ({"block_dim": 0}, "block_dim"),
        ({"block_dim": 2048}, "block_dim"),
        ({"row_budget": 0}, "row_budget"),
        ({"tolerance": float("nan")}, "tolerance"),
        ({"max_speed": 0.0}, "max_speed"),
        ({"limit_solref": (0.02,)}, "limit_solref"),
        ({"friction_solimp": (0.9, 0.95, 0.001, 0.5, float("inf"))}, "friction_solimp"),
        ({"iterations": 2.5}, "iterations"),
        ({"tiles": "yes"}, "tiles"),
        ({"warn_refsafe": "no"}, "warn_refsafe"),
    ],
)
def test_bad_values_are_refused_by_name(fields, name):
    with pytest.raises(SolverError, match=name):
        Option(**fields)


_LIMITED_SLIDER = """<mujoco><option timestep="0.02"/><worldbody><body>
<joint type="slide" axis="1 0 0" limited="true" range="-1 1"/><geom type="box" size=".1 .1 .1" mass="1"/>
</body></worldbody></mujoco>"""


def test_a_time_step_that_softens_a_limit_warns_unless_told_not_to():
    """MuJoCo's refsafe rule: a solref time constant below 2 dt is softened to 2 dt; the solver says so once
    per time step, unless warn_refsafe is False (MuJoCo C itself softens silently)."""
    model = model_from_xml(mujoco.MjModel.from_xml_string(_LIMITED_SLIDER))[0]
    state = model.state()
    with pytest.warns(UserWarning, match=r"\(joint limits 0.02 s\): they are softened to 0.04 s"):
        SolverGeneralized(model).step(state, state, None, 0.02)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SolverGeneralized(model, warn_refsafe=False).step(state, state, None, 0.02)
        SolverGeneralized(model).step(state, state, None, 0.01)  # 2 dt = the time constant: nothing softened


def test_unknown_keywords_and_wrong_option_types_are_refused(pendulum):
    with pytest.raises(SolverError, match="unknown option itrations"):
        SolverGeneralized(pendulum, itrations=3)
    with pytest.raises(SolverError, match="option must be an Option"):
        SolverGeneralized(pendulum, option={"iterations": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        Option().iterations = 3


def test_integers_of_any_kind_are_stored_as_int():
    option = Option(iterations=np.int64(40), block_dim=np.int32(8))
    assert type(option.iterations) is int and type(option.block_dim) is int
    assert option.limit_solimp == (0.9, 0.95, 0.001, 0.5, 2.0)


def test_inspect_lists_the_option(capsys):
    from newton_gym.assets import robot_path
    from newton_gym.cli import main

    assert main(["inspect", robot_path("ant"), "--solver", "cone=elliptic", "--solver", "iterations=50"]) == 0
    out = capsys.readouterr().out
    assert "Solver option" in out and "  cone = 'elliptic'" in out and "  iterations = 50" in out
    assert main(["inspect", robot_path("ant"), "--solver", "cone=round"]) == 1
    assert "cone must be" in capsys.readouterr().err
    # true / false / none as the TOML configs write them
    assert main(["inspect", robot_path("ant"), "--solver", "warn_refsafe=false", "--solver", "tiles=None"]) == 0
    assert "  warn_refsafe = False" in capsys.readouterr().out
