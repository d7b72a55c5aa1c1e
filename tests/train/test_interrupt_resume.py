"""A training run stopped by SIGINT and resumed, for each backend (skrl on Newton/Ant-v0, rsl_rl on
Newton/Go1-Flat-v0), through ``python -m newton_gym.cli train`` in a subprocess: exit status 130, one line
saying where the files are, the checkpoint, curve and config on disk; then ``--resume`` continues the
iteration count, the learning curve and the TensorBoard steps. The checkpoints it leaves are then played,
exported (TorchScript and ONNX, checked against the torch policy) and run by scripts/sim2sim.py."""

import csv
import glob
import importlib.util
import os
import shutil

import pytest
import torch
from tiny_config import tiny_toml, train_cli

pytest.importorskip("skrl")
pytest.importorskip("rsl_rl")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: backend -> (config TOML, env steps per iteration, the first periodic checkpoint, the TensorBoard tag
#: whose steps are checked and whether its axis is iterations (rsl_rl) or env steps (skrl)).
RUNS = {
    "skrl": (
        tiny_toml("skrl", timesteps=10000000, checkpoint_every=2),
        32,
        "checkpoints/agent_2.pt",
        ("Episode / mean return", "env_steps"),
    ),
    "rsl_rl": (
        tiny_toml("rsl_rl", timesteps=10000000, checkpoint_every=2),
        32,
        "model_2.pt",
        ("Loss/surrogate", "iterations"),
    ),
}


def _train(*args, wait_for: str | None = None, timeout: float = 120.0):
    return train_cli(*args, wait_for=wait_for, timeout=timeout)


def _curve(path: str) -> list:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["env_steps", "mean_return", "episodes"]
    return rows[1:]


def _meta(path: str) -> dict:
    from newton_gym.train.checkpoint import checkpoint_meta, load_checkpoint

    return checkpoint_meta(load_checkpoint(path))


@pytest.fixture(scope="module", params=sorted(RUNS))
def run(request, tmp_path_factory):
    """An interrupted and resumed run of one backend: what each phase printed and left on disk."""
    backend = request.param
    toml, per_iteration, first_checkpoint, tag = RUNS[backend]
    tmp = tmp_path_factory.mktemp(backend)
    config = tmp / "tiny.toml"
    config.write_text(toml)
    out = str(tmp / "run")
    stopped = _train("--config", str(config), "--out", out, wait_for=os.path.join(out, first_checkpoint))
    curve = _curve(os.path.join(out, "learning_curve.csv"))
    snapshot = str(tmp / "snapshot")  # the run as the interruption left it, for the in-process checks
    shutil.copytree(out, snapshot)
    line = [x for x in stopped[1].splitlines() if x.startswith("interrupted")]
    iteration = int(line[0].split(" at iteration ")[1].split()[0]) if line else -1
    resumed = _train("--resume", out, "--timesteps", str((iteration + 2) * per_iteration))
    return {
        "backend": backend,
        "out": out,
        "snapshot": snapshot,
        "per_iteration": per_iteration,
        "tag": tag,
        "stopped": stopped,
        "stopped_line": line,
        "stopped_curve": curve,
        "iteration": iteration,
        "resumed": resumed,
    }


def test_sigint_saves_checkpoint_curve_and_config_and_exits_130(run):
    status, out, err = run["stopped"]
    assert status == 130, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert len(run["stopped_line"]) == 1 and out.strip().splitlines()[-1] == run["stopped_line"][0]
    line, k = run["stopped_line"][0], run["iteration"]
    assert line.startswith(f"interrupted by SIGINT at iteration {k} ({k * run['per_iteration']} env steps)")
    assert f"continue with: newton-gym train --resume {run['out']}" in line
    checkpoint = line.split("saved checkpoint ")[1].split(",")[0]
    assert os.path.isfile(checkpoint) and k >= 2
    meta = _meta(checkpoint)
    assert meta["iteration"] == k and meta["env_steps"] == k * run["per_iteration"]
    assert os.path.isfile(os.path.join(run["out"], "config.json"))
    assert int(run["stopped_curve"][-1][0]) == k * run["per_iteration"]
    assert not glob.glob(os.path.join(run["out"], "**", "*.tmp"), recursive=True)


def test_resume_continues_steps_curve_and_tensorboard(run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    status, out, err = run["resumed"]
    assert status == 0, err[-3000:]
    k, per_iteration = run["iteration"], run["per_iteration"]
    assert f"iteration {k}" in next(x for x in out.splitlines() if x.startswith("resuming"))
    checkpoint = out.split("checkpoint: ")[1].splitlines()[0]
    meta = _meta(checkpoint)
    assert meta["iteration"] == k + 2 and meta["env_steps"] == (k + 2) * per_iteration
    curve = _curve(os.path.join(run["out"], "learning_curve.csv"))
    assert curve[: len(run["stopped_curve"])] == run["stopped_curve"]  # the old curve, then the new rows
    steps = [int(row[0]) for row in curve]
    assert steps == sorted(set(steps)) and steps[-2:] == [(k + 1) * per_iteration, (k + 2) * per_iteration]
    assert len(glob.glob(os.path.join(run["out"], "events.out.tfevents.*"))) >= 2  # one per session, one folder
    acc = EventAccumulator(run["out"])
    acc.Reload()
    tag, axis = run["tag"]
    logged = [event.step for event in acc.Scalars(tag)]
    unit = 1 if axis == "iterations" else per_iteration
    last = k - 1 if axis == "iterations" else k  # rsl_rl logs iteration i at step i - 1
    assert logged == sorted(set(logged)) and logged[-3:] == [unit * (last + i) for i in range(3)]


def test_resumed_runner_holds_the_checkpoint_state(run):
    """Optimizer (moments, learning rate), schedule, normalisers, progress and RNG state come back."""
    from newton_gym.train.resume import resume_point

    point = resume_point(run["snapshot"])
    assert point.meta["iteration"] == run["iteration"] and point.run_dir == run["snapshot"]
    saved_rng = point.data["resume"]["rng"] if point.backend == "skrl" else point.data["infos"]["resume"]["rng"]
    if point.backend == "skrl":
        from newton_gym.train.runner import PPORunner

        runner = PPORunner(point.cfg, point.run_dir, progress=False, log=lambda *a: None, resume=point)
        agent = runner.agent
        optimizer, saved_optimizer = agent.optimizer.state_dict(), point.data["optimizer"]
        assert agent.scheduler.state_dict()["_last_lr"] == point.data["learning_rate_scheduler"]["_last_lr"]
        scaler = agent._observation_preprocessor.state_dict()
        assert torch.equal(scaler["running_mean"], point.data["observation_preprocessor"]["running_mean"])
        assert runner.env_steps == point.meta["env_steps"] and runner.episodes.curve
    else:
        from newton_gym.train.rsl_rl_runner import RslRlRunner

        runner = RslRlRunner(point.cfg, point.run_dir, log=lambda *a: None, resume=point)
        optimizer, saved_optimizer = runner.runner.alg.optimizer.state_dict(), point.data["optimizer_state_dict"]
        actor = runner.runner.alg.get_policy().state_dict()
        assert torch.equal(actor["obs_normalizer._mean"], point.data["actor_state_dict"]["obs_normalizer._mean"])
        assert runner.runner.alg.learning_rate == saved_optimizer["param_groups"][0]["lr"]
    try:
        assert runner.iteration == run["iteration"]
        assert optimizer["param_groups"][0]["lr"] == saved_optimizer["param_groups"][0]["lr"]
        for index, state in saved_optimizer["state"].items():
            assert torch.equal(optimizer["state"][index]["exp_avg"], state["exp_avg"])
        assert torch.equal(torch.get_rng_state(), saved_rng["torch"])
    finally:
        runner.close()


def _final_checkpoint(run) -> str:
    return run["resumed"][1].split("checkpoint: ")[1].splitlines()[0]


def test_play_records_either_backends_checkpoint(run, tmp_path, capsys):
    from newton_gym.cli import main

    out = tmp_path / "play"
    args = ["play", "--checkpoint", _final_checkpoint(run), "--max-steps", "4", "--gif-every", "2", "--out", str(out)]
    assert main(args) == 0
    assert "mean return over 1 episode(s)" in capsys.readouterr().out
    assert (out / "rollout.usda").is_file() and (out / "rollout.gif").is_file()


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_export_gives_the_torch_policys_actions(run, tmp_path, capsys):
    pytest.importorskip("onnx")
    pytest.importorskip("onnxscript")
    from newton_gym.cli import main
    from newton_gym.train.checkpoint import load_policy
    from newton_gym.train.export import read_torchscript_meta

    checkpoint = _final_checkpoint(run)
    assert main(["export", "--checkpoint", checkpoint, "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "torchscript: " in text and "onnx: " in text
    policy = load_policy(checkpoint)
    obs = torch.randn(5, policy.meta["observation_size"], generator=torch.Generator().manual_seed(1)) * 2.0
    scripted = torch.jit.load(str(tmp_path / "policy.pt"))
    torch.testing.assert_close(scripted(obs), policy(obs), rtol=0, atol=1e-6)
    assert read_torchscript_meta(str(tmp_path / "policy.pt"))["backend"] == run["backend"]
    ort = pytest.importorskip("onnxruntime")
    (actions,) = ort.InferenceSession(str(tmp_path / "policy.onnx")).run(None, {"obs": obs.numpy()})
    torch.testing.assert_close(torch.from_numpy(actions), policy(obs), rtol=0, atol=1e-5)


def test_sim2sim_script_runs_a_training_checkpoint(run, capsys):
    """scripts/sim2sim.py: the Ant checkpoint by its return in both simulators, the Go1 one by its
    velocity-tracking error in both."""
    pytest.importorskip("mujoco")
    spec = importlib.util.spec_from_file_location("sim2sim", os.path.join(ROOT, "scripts", "sim2sim.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    short = ["--seconds", "1.2"] if run["backend"] == "rsl_rl" else ["--episodes", "1", "--max-steps", "10"]
    assert module.main(["--checkpoint", _final_checkpoint(run), *short]) == 0
    text = capsys.readouterr().out
    if run["backend"] == "rsl_rl":
        lines = [x for x in text.splitlines() if "mean velocity error" in x]
        assert len(lines) == 2 and "Newton/Go1-Flat-v0" in lines[0] and "MuJoCo" in lines[1]
    else:
        lines = [x for x in text.splitlines() if "mean return" in x]
        assert len(lines) == 3 and "Newton/Ant-v0" in lines[0] and "Ant-v5 (MuJoCo" in lines[1]
