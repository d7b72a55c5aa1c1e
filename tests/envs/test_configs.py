"""configs/<task>.toml mirror the dataclass defaults, so editing one file is enough to change a task."""

import os

import pytest

from newton_gym.envs.ant import AntCfg
from newton_gym.envs.cartpole import CartpoleCfg
from newton_gym.envs.config import config_from
from newton_gym.envs.humanoid import HumanoidCfg
from newton_gym.errors import ConfigError

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "configs")


@pytest.mark.parametrize("name, cls", [("ant", AntCfg), ("humanoid", HumanoidCfg), ("cartpole", CartpoleCfg)])
def test_task_toml_equals_code_defaults(name, cls):
    assert config_from(cls, os.path.join(CONFIGS, f"{name}.toml")) == cls()


def test_types_are_checked():
    with pytest.raises(ConfigError, match="sim.frame_skip: expected an integer"):
        config_from(AntCfg, {"sim": {"frame_skip": 2.5}})
    with pytest.raises(ConfigError, match="healthy_z_range: expected a list"):
        config_from(AntCfg, {"healthy_z_range": 0.3})
    with pytest.raises(ConfigError, match="does not exist"):
        config_from(AntCfg, "no/such/file.toml")
    assert config_from(AntCfg, {"ctrl_cost_weight": 1}).ctrl_cost_weight == 1.0


@pytest.mark.parametrize(
    "cls, robot, reference",
    [
        (AntCfg, "ant", "Ant-v5"),
        (HumanoidCfg, "humanoid", "Humanoid-v5"),
        (CartpoleCfg, "inverted_pendulum", "InvertedPendulum-v5"),
    ],
)
def test_tasks_step_at_their_references_time_step(cls, robot, reference):
    """Each task steps its solver at the shipped MJCF's <option timestep>, frame_skip times per env step, as
    gymnasium's MuJoCo task does, with no substeps (what the physics is checked against MuJoCo at)."""
    import xml.etree.ElementTree as ET

    from newton_gym.assets import robot_path

    xml = os.path.splitext(robot_path(robot))[0] + ".xml"
    timestep = float(ET.parse(xml).getroot().find("option").get("timestep"))
    sim = cls().sim
    assert (sim.sim_dt, sim.substeps) == (timestep, 1)
    pytest.importorskip("mujoco")
    import gymnasium as gym

    env = gym.make(reference).unwrapped
    assert (sim.frame_skip, sim.sim_dt) == (env.frame_skip, env.model.opt.timestep)
    env.close()


def test_cartpole_keeps_its_references_time_step_without_a_refsafe_warning():
    """InvertedPendulum-v5's dt (0.02 s) softens its slider limit's 0.02-s time constant to 0.04 s, in MuJoCo C
    (silently) as here: the task says nothing of it, and asking for the warning brings it back."""
    import warnings

    import gymnasium as gym

    import newton_gym  # noqa: F401

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make_vec("Newton/Cartpole-v0", num_envs=2)
        env.reset(seed=0)
        env.close()
    with pytest.warns(UserWarning, match="softened to 0.04 s"):
        env = gym.make_vec("Newton/Cartpole-v0", num_envs=2, sim={"warn_refsafe": True})
    env.close()
