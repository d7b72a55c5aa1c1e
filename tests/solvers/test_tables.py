"""Rows and Contacts declare every field in one place (dataclasses refusing other attributes): a build
fills them all, and nothing can attach an undeclared attribute to them."""

from __future__ import annotations

import dataclasses

import mujoco
import pytest
from solver_helpers import ant_path, model_from_xml

from newton_gym.solvers import SolverGeneralized


@pytest.fixture(scope="module")
def ant_solver():
    model, act, _ = model_from_xml(mujoco.MjModel.from_xml_path(ant_path()))
    return SolverGeneralized(model, actuators=act)


@pytest.mark.parametrize("name", ["rows", "contacts"])
def test_every_declared_field_is_filled_and_no_other_can_be_added(ant_solver, name):
    obj = getattr(ant_solver, name)
    missing = [f.name for f in dataclasses.fields(obj) if getattr(obj, f.name) is None]
    assert not missing
    with pytest.raises(AttributeError):
        obj.act_list = None  # what the world solve used to hang on Rows
