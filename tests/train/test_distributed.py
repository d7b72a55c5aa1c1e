"""Two processes under torchrun on CPU (gloo): own worlds and seeds, all-reduced gradients."""

import os
import shutil
import socket
import subprocess
import sys

import pytest
import torch

pytest.importorskip("skrl")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _torchrun():
    exe = shutil.which("torchrun")
    return [exe] if exe else [sys.executable, "-m", "torch.distributed.run"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_process_training_keeps_policies_identical(tmp_path):
    cmd = _torchrun() + [
        "--nproc_per_node=2",
        f"--master_port={_free_port()}",
        os.path.join(HERE, "_dist_worker.py"),
        str(tmp_path),
    ]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_NUM_THREADS="1")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    errors = [line for line in proc.stderr.splitlines() if "Error" in line or "error" in line]
    assert proc.returncode == 0, "\n".join(errors[:20]) + proc.stderr[-2000:]
    r0 = torch.load(tmp_path / "rank0.pt", weights_only=False)
    r1 = torch.load(tmp_path / "rank1.pt", weights_only=False)
    # different seeds: different worlds ...
    assert not torch.equal(r0["first_obs"], r1["first_obs"])
    # ... but one policy: rank 0's initial weights broadcast, gradients averaged, normalisers pooled
    for name, value in r0["policy"].items():
        assert torch.allclose(value, r1["policy"][name], atol=1e-6), name
    assert torch.allclose(r0["obs_mean"], r1["obs_mean"])
    # 2 processes x 4 worlds x 8 steps per iteration: the 192-step budget takes 3 iterations
    assert r0["result"]["iterations"] == r1["result"]["iterations"] == 3
    assert (tmp_path / "checkpoints" / "final.pt").is_file()
