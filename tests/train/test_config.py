"""Training configs: TOML over dataclass defaults, unknown keys and bad values are errors that name them."""

import os

import pytest

from newton_gym.errors import ConfigError
from newton_gym.train.config import TrainCfg, load_train_config

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "configs")


def test_defaults_and_overrides():
    cfg = load_train_config({"ppo": {"rollouts": 8}, "policy": {"hidden": [32]}}, num_envs=7, seed=None)
    assert cfg.ppo.rollouts == 8 and cfg.policy.hidden == (32,) and cfg.num_envs == 7
    assert cfg.ppo.learning_epochs == TrainCfg().ppo.learning_epochs


@pytest.mark.parametrize(
    "source, name",
    [
        ({"num_env": 3}, "num_env"),
        ({"ppo": {"learning_rte": 1e-3}}, "ppo.learning_rte"),
        ({"policy": {"hiden": [8]}}, "policy.hiden"),
    ],
)
def test_unknown_key_names_it(source, name):
    with pytest.raises(ConfigError, match=name.replace(".", r"\.")):
        load_train_config(source)


@pytest.mark.parametrize(
    "source, text",
    [
        ({"num_envs": "many"}, "num_envs"),
        ({"num_envs": 0}, "num_envs"),
        ({"timesteps": 0, "minutes": 0.0}, "timesteps"),
        ({"ppo": {"lr_schedule": "cosine"}}, "lr_schedule"),
        ({"policy": {"activation": "gelu"}}, "activation"),
    ],
)
def test_bad_values(source, text):
    with pytest.raises(ConfigError, match=text):
        load_train_config(source)


def test_toml_file_errors(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('task = "Newton/Ant-v0"\n[ppo]\nrolouts = 3\n')
    with pytest.raises(ConfigError, match="ppo.rolouts"):
        load_train_config(str(path))
    with pytest.raises(ConfigError, match="does not exist"):
        load_train_config(str(tmp_path / "missing.toml"))


@pytest.mark.parametrize(
    "name",
    [
        "train_ant.toml",
        "train_humanoid.toml",
        "train_cartpole.toml",
        "train_go1.toml",
        "train_g1.toml",
        "train_go1_rough.toml",
        "train_go1_rough_heading.toml",
    ],
)
def test_shipped_configs_load(name):
    cfg = load_train_config(os.path.join(CONFIGS, name))
    assert cfg.task.startswith("Newton/")


def test_rough_stage_two_is_stage_one_with_heading_commands_for_20_minutes():
    import dataclasses

    one = load_train_config(os.path.join(CONFIGS, "train_go1_rough.toml"))
    two = load_train_config(os.path.join(CONFIGS, "train_go1_rough_heading.toml"))
    assert two.env == {**one.env, "heading_command": True} and (one.minutes, two.minutes) == (60.0, 20.0)
    assert dataclasses.replace(two, env=one.env, minutes=one.minutes) == one


def test_unknown_env_key_is_reported_by_the_task(tiny, tmp_path):
    pytest.importorskip("skrl")
    from newton_gym.train.runner import PPORunner

    with pytest.raises(ConfigError, match="max_episode_step"):
        PPORunner(load_train_config(tiny(env={"max_episode_step": 5})), str(tmp_path), progress=False)


def test_cli_reports_config_errors(tmp_path, capsys):
    from newton_gym.cli import main

    path = tmp_path / "bad.toml"
    path.write_text("[policy]\nwidth = 3\n")
    assert main(["train", "--config", str(path)]) == 2
    assert "policy.width" in capsys.readouterr().out
