"""``init_policy``: a new rsl_rl run starting from another run's networks. Go1-Rough (scan in the policy)
from a tiny Go1-Flat run: the actor and critic give the flat run's outputs whatever the height scan reads,
the run starts at iteration 0 and trains; networks that do not fit raise CheckpointErrors naming the tensor."""

import os

import pytest
import torch

pytest.importorskip("rsl_rl")
from tensordict import TensorDict  # noqa: E402

from newton_gym.errors import CheckpointError, ConfigError  # noqa: E402
from newton_gym.train.config import load_train_config  # noqa: E402
from newton_gym.train.init_policy import widen_state_dict  # noqa: E402

POLICIES = os.path.join(os.path.dirname(__file__), "..", "..", "newton_gym", "assets", "policies")
RSL_RL = {
    "max_iterations": 1,
    "num_steps_per_env": 8,
    "num_learning_epochs": 1,
    "num_mini_batches": 2,
    "actor_hidden_dims": [16, 16],
    "critic_hidden_dims": [16, 16],
}
FLAT = {"task": "Newton/Go1-Flat-v0", "backend": "rsl_rl", "num_envs": 4, "minutes": 0.0, "rsl_rl": RSL_RL}
TERRAIN = {
    "num_rows": 2,
    "num_cols": 2,
    "size": [4.0, 4.0],
    "border_width": 1.0,
    "sub_terrains": {
        "rough": {"kind": "random_uniform", "proportion": 1.0, "platform_width": 1.0},
        "stairs": {"kind": "pyramid_stairs", "proportion": 1.0, "platform_width": 1.0},
    },
}
ROUGH = {**FLAT, "task": "Newton/Go1-Rough-v0", "env": {"terrain": TERRAIN, "max_init_level": 1}}


@pytest.fixture(scope="module")
def flat_checkpoint(tmp_path_factory):
    from newton_gym.train.rsl_rl_runner import RslRlRunner

    runner = RslRlRunner(load_train_config(FLAT), str(tmp_path_factory.mktemp("flat")), log=lambda line: None)
    try:
        return runner.train().checkpoint
    finally:
        runner.close()


def _runner(cfg, out, lines):
    from newton_gym.train.rsl_rl_runner import RslRlRunner

    return RslRlRunner(load_train_config(cfg), str(out), log=lines.append)


def test_rough_run_starts_from_the_flat_networks_whatever_the_scan(flat_checkpoint, tmp_path):
    from newton_gym.train.checkpoint import load_checkpoint

    flat = load_checkpoint(flat_checkpoint)
    lines = []
    runner = _runner({**ROUGH, "init_policy": flat_checkpoint}, tmp_path, lines)
    try:
        alg = runner.runner.alg
        gen = torch.Generator().manual_seed(1)
        actor_obs = torch.randn(32, alg.actor.obs_dim, generator=gen)
        critic_obs = torch.randn(32, 54 + runner.env.env.task.num_rays, generator=gen)
        assert actor_obs.shape[1] == 48 + runner.env.env.task.num_rays  # the scan follows the flat inputs
        runner_flat = _runner(FLAT, tmp_path / "flat_copy", [])
        try:
            runner_flat.runner.alg.load(flat, None, strict=True)
            fa, fc = runner_flat.runner.alg.actor, runner_flat.runner.alg.critic
            fa.eval(), fc.eval(), alg.actor.eval(), alg.critic.eval()
            with torch.no_grad():
                for scan_scale in (0.0, 5.0):  # any scan: the new inputs start at zero weight
                    a_obs, c_obs = actor_obs.clone(), critic_obs.clone()
                    a_obs[:, 48:] *= scan_scale
                    c_obs[:, 54:] *= scan_scale
                    td = TensorDict({"policy": a_obs, "critic": c_obs}, batch_size=[32])
                    td_flat = TensorDict({"policy": a_obs[:, :48], "critic": c_obs[:, :54]}, batch_size=[32])
                    assert torch.equal(alg.actor(td), fa(td_flat))
                    assert torch.equal(alg.critic(td), fc(td_flat))
            assert torch.equal(alg.actor.distribution.std_param, fa.distribution.std_param)
        finally:
            runner_flat.close()
        result = runner.train()
        assert result.iterations == 1  # a new run: iteration 0 -> 1, not the flat run's count
        assert any("actor: from Newton/Go1-Flat-v0 (48 inputs, " in line for line in lines), lines
        assert any("critic: from Newton/Go1-Flat-v0 (54 inputs, " in line for line in lines), lines
    finally:
        runner.close()


def test_an_actor_only_policy_leaves_the_critic_fresh(flat_checkpoint, tmp_path):
    from newton_gym.train.checkpoint import load_checkpoint
    from newton_gym.train.checkpoint_io import write_pt

    data = load_checkpoint(flat_checkpoint)
    slim = {"actor_state_dict": data["actor_state_dict"], "infos": {"newton_gym": data["infos"]["newton_gym"]}}
    path = write_pt(slim, str(tmp_path / "slim.pt"))
    lines = []
    runner = _runner({**FLAT, "init_policy": path}, tmp_path / "run", lines)
    try:
        state = runner.runner.alg.actor.state_dict()
        for name, value in data["actor_state_dict"].items():
            assert torch.equal(state[name], value), name
        assert any("critic: starts fresh" in line for line in runner.init_lines)
    finally:
        runner.close()


def test_networks_that_do_not_fit_are_checkpoint_errors(flat_checkpoint, tmp_path):
    # the shipped Go1 policy has [128, 128, 128] hidden layers, this run [16, 16]
    with pytest.raises(CheckpointError, match=r"mlp\.0\.weight.*\(128, 48\).*\(16, 48\)"):
        _runner({**FLAT, "init_policy": os.path.join(POLICIES, "go1_newton.pt")}, tmp_path / "a", [])
    with pytest.raises(CheckpointError, match="29 actions, this task on 12"):
        _runner({**FLAT, "init_policy": os.path.join(POLICIES, "g1_newton.pt")}, tmp_path / "b", [])
    with pytest.raises(CheckpointError, match="needs an rsl_rl checkpoint"):  # skrl's layout
        _runner({**FLAT, "init_policy": os.path.join(POLICIES, "ant_newton.pt")}, tmp_path / "b", [])
    with pytest.raises(CheckpointError, match="missing.pt"):
        _runner({**FLAT, "init_policy": str(tmp_path / "missing.pt")}, tmp_path / "c", [])
    with pytest.raises(ConfigError, match="init_policy is read by the rsl_rl backend only"):
        load_train_config({"task": "Newton/Ant-v0", "init_policy": flat_checkpoint})


def test_widening_pads_only_trailing_inputs():
    source = {
        "mlp.0.weight": torch.ones(3, 2),
        "obs_normalizer._mean": torch.full((1, 2), 0.5),
        "obs_normalizer._var": torch.full((1, 2), 4.0),
        "obs_normalizer._std": torch.full((1, 2), 2.0),
        "obs_normalizer.count": torch.tensor(100),
    }
    target = {"mlp.0.weight": torch.empty(3, 5), **{k: torch.empty(1, 5) for k in list(source)[1:4]}}
    target["obs_normalizer.count"] = torch.tensor(0)
    state, new = widen_state_dict(source, target, "x.pt", "actor")
    assert new == 3
    assert state["mlp.0.weight"].tolist() == [[1.0, 1.0, 0.0, 0.0, 0.0]] * 3
    assert state["obs_normalizer._mean"].tolist() == [[0.5, 0.5, 0.0, 0.0, 0.0]]
    assert state["obs_normalizer._var"].tolist() == [[4.0, 4.0, 1.0, 1.0, 1.0]]
    assert int(state["obs_normalizer.count"]) == 100
    with pytest.raises(CheckpointError, match="5 inputs, this task's 2"):  # narrower: nothing to drop
        widen_state_dict(target | {"obs_normalizer.count": torch.tensor(1)}, source, "x.pt", "actor")
    with pytest.raises(CheckpointError, match=r"lacks \['mlp.2.weight'\]"):
        widen_state_dict(source, {**target, "mlp.2.weight": torch.empty(1, 3)}, "x.pt", "critic")


def test_cli_flag_starts_new_runs_only(tmp_path, capsys):
    from newton_gym.cli import main

    flag = ["--init-policy", os.path.join(POLICIES, "go1_newton.pt")]
    assert main(["train", "--resume", str(tmp_path), *flag]) == 2  # a resumed run keeps its own networks
    assert "drop --init-policy" in capsys.readouterr().out
    assert main(["train", "--task", "Newton/Ant-v0", *flag]) == 2  # the skrl backend
    assert "init_policy is read by the rsl_rl backend only" in capsys.readouterr().out
