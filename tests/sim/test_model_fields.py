"""Model fields are declared in one place: finalize sets exactly the declared fields, no others; a model
that is not a tree of joints is refused."""

import pytest

from newton_gym.errors import ModelBuildError
from newton_gym.sim import Model, ModelBuilder


def _two_world_model():
    robot = ModelBuilder()
    body = robot.add_link(mass=1.0)
    robot.add_shape_sphere(body, radius=0.1)
    robot.add_joint_revolute(-1, body, axis=(0, 0, 1))
    scene = ModelBuilder()
    scene.replicate(robot, 2)
    return scene.finalize("cpu")


def test_finalize_sets_every_declared_field():
    model = _two_world_model()
    missing = [name for name in Model.__annotations__ if not hasattr(model, name)]
    assert missing == []
    undeclared = [name for name in vars(model) if not name.startswith("_") and name not in Model.__annotations__]
    assert undeclared == []


def test_undeclared_field_is_refused():
    model = _two_world_model()
    with pytest.raises(AttributeError, match="declares no field 'body_colour'"):
        model.body_colour = None
    model.body_mass = model.body_mass  # a declared field can be rebound


def test_a_body_with_two_joints_is_refused_at_finalize():
    """add_body gives its body a free joint; a second joint on it is a user error that names both."""
    robot = ModelBuilder()
    body = robot.add_body(mass=1.0, key="arm")
    robot.add_joint_revolute(-1, body, axis=(0, 0, 1), key="hinge")
    joints = robot.joint_count
    with pytest.raises(ModelBuildError, match="body arm is the child of joints .* and hinge"):
        robot.finalize("cpu")
    assert robot.joint_count == joints  # the builder is as it was
