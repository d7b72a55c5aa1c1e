"""The rsl_rl backend on Newton/Go1-Flat-v0 at dummy size: the VecEnv adapter's contract, a 2-iteration run
(checkpoints, TensorBoard with one scalar per reward term), and export to TorchScript / ONNX giving the
same actions as rsl_rl's inference policy."""

import glob
import os
import warnings

import pytest
import torch

pytest.importorskip("rsl_rl")
from tensordict import TensorDict  # noqa: E402

from newton_gym.errors import ConfigError  # noqa: E402
from newton_gym.train.config import load_train_config  # noqa: E402

TINY = {
    "task": "Newton/Go1-Flat-v0",
    "backend": "rsl_rl",
    "num_envs": 8,
    "minutes": 0.0,
    "checkpoint_every": 1,
    "rsl_rl": {
        "max_iterations": 2,
        "num_steps_per_env": 8,
        "num_learning_epochs": 2,
        "num_mini_batches": 2,
        "actor_hidden_dims": [16, 16],
        "critic_hidden_dims": [16, 16],
    },
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from newton_gym.train.rsl_rl_runner import RslRlRunner

    out = str(tmp_path_factory.mktemp("rsl_rl_run"))
    lines = []
    runner = RslRlRunner(load_train_config(TINY), out, log=lines.append)
    result = runner.train()
    yield runner, result, lines
    runner.close()


def _random_obs(batch=64, size=48):
    gen = torch.Generator().manual_seed(0)
    return torch.randn(batch, size, generator=gen) * 2.0


def _inference_actions(runner, obs):
    policy = runner.policy()
    critic = torch.zeros(obs.shape[0], 54)
    with torch.no_grad():
        return policy(TensorDict({"policy": obs, "critic": critic}, batch_size=[obs.shape[0]]))


def test_unknown_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="'rsl-rl'"):
        load_train_config({**TINY, "backend": "rsl-rl"})


def test_skrl_sections_with_the_rsl_rl_backend_are_refused():
    with pytest.raises(ConfigError, match=r"\[ppo\]"):
        load_train_config({**TINY, "ppo": {"rollouts": 8}})
    with pytest.raises(ConfigError, match=r"\[rsl_rl\]"):
        load_train_config({"task": "Newton/Ant-v0", "rsl_rl": {"num_steps_per_env": 8}})
    with pytest.raises(ConfigError, match="rsl_rl.schedule"):
        load_train_config({**TINY, "rsl_rl": {**TINY["rsl_rl"], "schedule": "linear"}})


def test_adapter_reports_time_outs_and_critic_group():
    import gymnasium as gym

    import newton_gym  # noqa: F401
    from newton_gym.train.rsl_rl_env import RslRlVecEnv

    vec = gym.make_vec("Newton/Go1-Flat-v0", num_envs=4, device="cpu", max_episode_steps=3)
    env = RslRlVecEnv(vec, seed=0)
    assert (env.num_envs, env.num_actions, env.max_episode_length) == (4, 12, 3)
    obs = env.get_observations()
    assert obs["policy"].shape == (4, 48) and obs["critic"].shape == (4, 54)
    env.episode_length_buf = torch.tensor([0, 1, 1, 1])  # rsl_rl's random start lengths reach the env
    assert vec.episode_length.tolist() == [0, 1, 1, 1]
    zero = torch.zeros(4, 12)
    for _ in range(2):
        obs, rewards, dones, extras = env.step(zero)
    # worlds 1-3 reach 3 steps: time-outs (the home pose does not fall in two steps), world 0 does not
    assert extras["time_outs"].tolist() == [False, True, True, True]
    assert dones.dtype == torch.long and dones.tolist() == [0, 1, 1, 1]
    assert rewards.shape == (4,)
    assert torch.equal(obs["critic"], vec.critic_observation())  # after the autoreset, as the obs
    assert set(extras["log"]) == {
        f"Reward/{name}"
        for name in (
            "track_lin_vel_xy",
            "track_ang_vel_z",
            "lin_vel_z",
            "ang_vel_xy",
            "joint_acc",
            "action_rate",
            "orientation",
            "feet_air_time",
            "joint_limits",
            "termination",
        )
    } | {"Task/lin_vel_error"}  # the task's own scalars (info["task"])
    assert extras["log"]["Task/lin_vel_error"].shape == ()


def test_training_writes_checkpoints_and_reward_terms(trained):
    runner, result, lines = trained
    assert result.iterations == 2 and result.env_steps == 2 * 8 * 8
    assert os.path.isfile(os.path.join(result.log_dir, "model_1.pt"))
    assert result.checkpoint.endswith("model_2.pt") and os.path.isfile(result.checkpoint)
    assert any("2 iterations" in line for line in lines)
    data = torch.load(result.checkpoint, weights_only=True)
    assert data["infos"]["newton_gym"]["task"] == "Newton/Go1-Flat-v0"
    assert int(data["actor_state_dict"]["obs_normalizer.count"]) == 2 * 8 * 8  # the normaliser has seen data
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    assert glob.glob(os.path.join(result.log_dir, "events.out.tfevents.*"))
    acc = EventAccumulator(result.log_dir)
    acc.Reload()
    tags = acc.Tags()["scalars"]
    assert {"Reward/track_lin_vel_xy", "Reward/feet_air_time", "Loss/surrogate", "Train/mean_reward"} <= set(tags)


@pytest.mark.filterwarnings("ignore:`torch.jit.load` is deprecated:DeprecationWarning")
def test_torchscript_export_matches_inference_policy(trained, tmp_path, capsys):
    from newton_gym.cli import main
    from newton_gym.train.export import read_torchscript_meta

    runner, result, _ = trained
    out = str(tmp_path / "export")
    assert main(["export", "--checkpoint", result.checkpoint, "--out", out, "--no-onnx"]) == 0
    assert "policy.pt" in capsys.readouterr().out
    path = os.path.join(out, "policy.pt")
    policy = torch.jit.load(path)
    obs = _random_obs()
    expected = _inference_actions(runner, obs)
    actions = policy(obs)
    assert actions.shape == (64, 12)
    torch.testing.assert_close(actions, expected, rtol=0, atol=1e-6)
    assert not torch.allclose(policy(obs[:1]), policy(obs[1:2]))  # the network does depend on its input
    meta = read_torchscript_meta(path)
    assert meta["task"] == "Newton/Go1-Flat-v0" and meta["action_high"] == [5.0] * 12


def test_onnx_export_matches_inference_policy(trained, tmp_path):
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxscript")
    ort = pytest.importorskip("onnxruntime")
    runner, _, _ = trained
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        paths = runner.export(str(tmp_path / "export"))
    # torch's own deprecation notices from inside its exporters are not the user's to act on
    assert [str(w.message) for w in caught if issubclass(w.category, (FutureWarning, DeprecationWarning))] == []
    assert sorted(os.listdir(tmp_path / "export")) == ["policy.onnx", "policy.pt"]  # no external-data sidecar
    session = ort.InferenceSession(paths["onnx"])
    assert [i.name for i in session.get_inputs()] == ["obs"]
    obs = _random_obs(batch=7)  # the batch axis is dynamic (exported with 2)
    (actions,) = session.run(None, {"obs": obs.numpy()})
    torch.testing.assert_close(torch.from_numpy(actions), _inference_actions(runner, obs), rtol=0, atol=1e-5)
    props = {p.key: p.value for p in onnx.load(paths["onnx"]).metadata_props}
    assert props["task"] == '"Newton/Go1-Flat-v0"' and props["observation_size"] == "48"


def test_export_rejects_a_skrl_checkpoint(tmp_path):
    from newton_gym.train.export import export_checkpoint

    path = str(tmp_path / "agent.pt")
    torch.save({"policy": {}, "newton_gym": {}}, path)
    with pytest.raises(ConfigError, match="not a newton_gym rsl_rl checkpoint"):
        export_checkpoint(path, str(tmp_path / "out"))
