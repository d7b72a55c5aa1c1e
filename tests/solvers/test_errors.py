"""Bad input to the solvers raises NewtonGymError subclasses that name the argument (they used to be bare
ValueError / RuntimeError)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import model_from_xml, pendulum_xml

from newton_gym.errors import ModelBuildError, NewtonGymError, SolverError, SolverStateError
from newton_gym.solvers import Actuators, SolverGeneralized


@pytest.fixture(scope="module")
def pendulum():
    return model_from_xml(mujoco.MjModel.from_xml_string(pendulum_xml(2)))[0]


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"cone": "round"}, "cone"),
        ({"solver": "cg"}, "solver"),
        ({"threads": 0}, "threads"),
        ({"substeps": 0}, "substeps"),
        ({"iterations": -1}, "iterations"),
        ({"integrator": "euler"}, "integrator"),
    ],
)
def test_invalid_solver_arguments(pendulum, kwargs, name):
    with pytest.raises(SolverError, match=name) as info:
        SolverGeneralized(pendulum, **kwargs)
    assert isinstance(info.value, ValueError) and isinstance(info.value, NewtonGymError)


def test_capture_and_replay_misuse(pendulum):
    solver = SolverGeneralized(pendulum)
    with pytest.raises(SolverStateError, match="capture"):
        solver.replay()
    with pytest.raises(SolverError, match="steps"):
        solver.capture(pendulum.state(), pendulum.state(), None, 0.002, steps=0)


def test_actuator_on_a_missing_dof(pendulum):
    with pytest.raises(ModelBuildError, match="Actuators.dof"):
        SolverGeneralized(pendulum, actuators=Actuators(np.array([5], np.int32), np.ones(1)))


def test_mjcf_utility_refuses_a_heightfield_on_a_moving_body():
    m = mujoco.MjModel.from_xml_string(
        '<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 .1 .1"/></asset>'
        '<worldbody><body><joint type="hinge"/><geom type="hfield" hfield="h"/></body></worldbody></mujoco>'
    )
    with pytest.raises(ModelBuildError, match="heightfield is static terrain"):
        builder_from_mujoco(m)
