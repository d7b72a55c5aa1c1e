"""scripts/sim2sim.py runs one policy in Newton/Ant-v0 and in gymnasium's MuJoCo Ant-v5."""

import importlib.util
import os

import pytest
import torch

pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _script():
    spec = importlib.util.spec_from_file_location("sim2sim", os.path.join(ROOT, "scripts", "sim2sim.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_checkpoint_runs_in_both_simulators(tmp_path, capsys):
    from newton_gym.train.networks import mlp

    torch.manual_seed(0)
    net = mlp(27, [8], 8, "elu")
    meta = {"task": "Newton/Ant-v0", "observation_size": 27, "action_size": 8, "action_low": [-1.0] * 8,
            "action_high": [1.0] * 8, "scale_actions": True, "hidden": [8], "activation": "elu"}
    path = tmp_path / "ant.pt"
    torch.save({"policy": {f"net.{k}": v for k, v in net.state_dict().items()}, "newton_gym": meta}, path)
    assert _script().main(["--checkpoint", str(path), "--episodes", "2", "--max-steps", "15"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "mean return" in line]
    assert len(lines) == 2 and "Newton/Ant-v0" in lines[0] and "Ant-v5" in lines[1]
