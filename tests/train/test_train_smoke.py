"""Whole pipeline on a dummy-sized config: train (checkpoints, TensorBoard, PNG), then play (USD, GIF)."""

import glob
import os

import pytest
import torch

pytest.importorskip("skrl")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from tiny_config import tiny_config

    from newton_gym.train import train

    out = str(tmp_path_factory.mktemp("run"))
    lines = []
    result = train(tiny_config(), out, progress=True, log=lines.append)
    return out, result, lines


def test_training_writes_checkpoints_tensorboard_and_curve(trained):
    out, result, lines = trained
    assert result.iterations == 6 and result.env_steps == 4 * 8 * 6
    assert os.path.isfile(os.path.join(out, "checkpoints", "agent_2.pt"))
    assert os.path.isfile(result.checkpoint) and result.checkpoint.endswith("final.pt")
    with open(result.curve_png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert any("return at start" in line for line in lines)
    events = glob.glob(os.path.join(out, "events.out.tfevents.*"))
    assert events
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(out)
    acc.Reload()
    tags = acc.Tags()["scalars"]
    assert "Episode / mean return" in tags and "Reward terms / alive" in tags and "Loss / Policy loss" in tags


def test_checkpoint_holds_normalizer_and_metadata(trained):
    from newton_gym.train.checkpoint import load_checkpoint, load_policy

    _, result, _ = trained
    data = load_checkpoint(result.checkpoint)
    assert {"policy", "value", "optimizer", "observation_preprocessor"} <= set(data)
    assert data["observation_preprocessor"]["current_count"] > 1  # the normaliser has seen data
    meta = data["newton_gym"]
    assert meta["task"] == "Newton/Cartpole-v0" and meta["observation_size"] == 4 and meta["env_steps"] == 192
    policy = load_policy(result.checkpoint)
    a = policy(torch.zeros(5, 4))
    assert a.shape == (5, 1) and bool((a.abs() <= 3.0).all())
    assert torch.equal(policy(torch.ones(2, 4)), policy(torch.ones(2, 4)))  # deterministic


def test_play_command_writes_usd_and_gif(trained, tmp_path, capsys):
    from newton_gym.cli import main

    _, result, _ = trained
    out = tmp_path / "play"
    assert main(["play", "--checkpoint", result.checkpoint, "--episodes", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.count("episode ") >= 2 and "mean return" in text
    from pxr import Usd

    stage = Usd.Stage.Open(str(out / "rollout.usda"))
    assert stage.GetEndTimeCode() > stage.GetStartTimeCode()
    from PIL import Image

    with Image.open(out / "rollout.gif") as gif:
        assert gif.n_frames >= 2 and gif.size == (320, 240)


def test_play_rejects_a_file_that_is_not_a_checkpoint(tmp_path, capsys):
    from newton_gym.cli import main

    bogus = tmp_path / "x.pt"
    torch.save({"weights": 1}, bogus)
    assert main(["play", "--checkpoint", str(bogus)]) == 2
    assert "not a newton_gym training checkpoint" in capsys.readouterr().out


def test_deterministic_policy_matches_skrl_mean_action(trained):
    import gymnasium as gym
    import numpy as np
    from skrl.resources.preprocessors.torch import RunningStandardScaler

    from newton_gym.train.checkpoint import load_checkpoint, load_policy
    from newton_gym.train.models import GaussianPolicy

    _, result, _ = trained
    data = load_checkpoint(result.checkpoint)
    obs_space = gym.spaces.Box(-np.inf, np.inf, (4,), np.float32)
    skrl_policy = GaussianPolicy(obs_space, gym.spaces.Box(-1.0, 1.0, (1,), np.float32), "cpu", hidden=(16, 16))
    skrl_policy.load_state_dict(data["policy"])
    scaler = RunningStandardScaler(obs_space, device="cpu")
    scaler.load_state_dict(data["observation_preprocessor"])
    obs = torch.randn(16, 4) * 3.0
    _, out = skrl_policy.act({"observations": scaler(obs)}, role="policy")
    expected = 3.0 * out["mean_actions"].clamp(-1.0, 1.0)  # Cartpole's box is [-3, 3]
    torch.testing.assert_close(load_policy(result.checkpoint)(obs), expected)
