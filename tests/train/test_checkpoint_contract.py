"""The checkpoint contract without training: a file whose pickle would run code is refused (and the code
does not run), writes are atomic, every shipped policy loads and exports, ``--resume`` refuses what it
cannot continue, SIGTERM is a stop request inside a run, and the progress bar counts env steps."""

import os
import signal

import pytest
import torch

from newton_gym.errors import CheckpointError, UnsafeCheckpointError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED = os.path.join(ROOT, "newton_gym", "assets", "policies")


class _Payload:
    """Unpickling this calls ``open(marker, "w")``: harmless, but it leaves a file that shows it ran."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


class _Unpicklable:
    """Pickling this fails after part of the file is written."""

    def __reduce__(self):
        raise RuntimeError("pickling failed half-way")


@pytest.fixture
def booby_trapped(tmp_path):
    """A checkpoint-shaped file whose pickle would create ``marker``; the trap is shown to work first."""
    marker = tmp_path / "marker"
    path = tmp_path / "policy.pt"
    meta = {"task": "Newton/Ant-v0", "observation_size": 27, "action_size": 8}
    torch.save({"policy": {"net.0.weight": _Payload(str(marker))}, "newton_gym": meta}, path)
    torch.load(path, weights_only=False)  # what an unsafe loader would do: the payload runs
    assert marker.exists()
    marker.unlink()
    return path, marker


def test_a_pickle_that_would_run_code_is_refused(booby_trapped):
    from newton_gym.train.checkpoint import load_checkpoint, load_policy

    path, marker = booby_trapped
    for load in (load_checkpoint, load_policy):
        with pytest.raises(UnsafeCheckpointError, match="io.open") as info:
            load(str(path))
        assert str(path) in str(info.value) and info.value.path == str(path)
    assert not marker.exists()


@pytest.mark.parametrize("command", ["play", "export", "train"])
def test_commands_refuse_the_file_without_running_it(booby_trapped, tmp_path, capsys, command):
    from newton_gym.cli import main

    path, marker = booby_trapped
    args = {
        "play": ["play", "--checkpoint", str(path), "--out", str(tmp_path / "play")],
        "export": ["export", "--checkpoint", str(path), "--out", str(tmp_path / "export")],
        "train": ["train", "--resume", str(path)],
    }[command]
    assert main(args) == 2
    text = capsys.readouterr().out
    assert "refused" in text and str(path) in text
    assert not marker.exists()


def test_files_that_are_not_checkpoints_name_the_file(tmp_path):
    from newton_gym.train.checkpoint import load_checkpoint

    junk = tmp_path / "junk.pt"
    junk.write_text("not a torch file")
    with pytest.raises(CheckpointError, match="not a readable torch file") as info:
        load_checkpoint(str(junk))
    assert info.value.path == str(junk)
    with pytest.raises(CheckpointError, match="no such checkpoint file"):
        load_checkpoint(str(tmp_path / "missing.pt"))


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    from newton_gym.train.checkpoint_io import read_pt, write_pt

    path = str(tmp_path / "agent.pt")
    write_pt({"iteration": 1}, path)
    with pytest.raises(RuntimeError, match="half-way"):
        write_pt({"iteration": 2, "bad": _Unpicklable()}, path)
    assert read_pt(path) == {"iteration": 1}
    assert os.listdir(tmp_path) == ["agent.pt"]  # no temporary file left behind


@pytest.mark.parametrize("name", sorted(f for f in os.listdir(SHIPPED) if f.endswith(".pt")))
def test_every_shipped_policy_loads_and_exports(name, tmp_path):
    from newton_gym.train.checkpoint import load_policy
    from newton_gym.train.export import check_export, export_policy

    policy = load_policy(os.path.join(SHIPPED, name))
    obs = torch.zeros(3, policy.meta["observation_size"])
    assert policy(obs).shape == (3, policy.meta["action_size"])
    paths = export_policy(None, policy.meta, str(tmp_path), onnx=False, policy=policy.deploy)
    assert check_export(policy.deploy, paths)["torchscript"] <= 1e-6


def test_resume_refuses_a_policy_only_file_and_changed_settings(tmp_path, capsys):
    from newton_gym.cli import main

    assert main(["train", "--resume", os.path.join(SHIPPED, "go1_newton.pt")]) == 2
    assert "not the training state" in capsys.readouterr().out
    assert main(["train", "--resume", str(tmp_path), "--task", "Newton/Ant-v0"]) == 2
    assert "drop --task" in capsys.readouterr().out
    assert main(["train", "--resume", str(tmp_path)]) == 2
    assert "no checkpoint in this run directory" in capsys.readouterr().out


def test_sigterm_inside_a_run_is_a_stop_request():
    from newton_gym.train.interrupt import StopSignals

    before = signal.getsignal(signal.SIGTERM)
    with StopSignals() as signals:
        assert not signals.requested
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs between bytecodes, soon after the signal
            if signals.requested:
                break
        assert signals.requested and signals.signal_name == "SIGTERM"
    assert signal.getsignal(signal.SIGTERM) is before


def test_progress_bar_counts_env_steps_and_the_time_left(capsys):
    pytest.importorskip("tqdm")
    from newton_gym.train.progress import Progress

    timed = Progress(0, 150.0, start_steps=4096)
    timed.update(8192, 12.5)
    timed.close()
    text = capsys.readouterr().out
    assert "8.19kstep" in text and "left=2:" in text and "return=12.5" in text
    assert "s/s" not in text.replace("step/s", "")  # tqdm's rate is in steps, never seconds per second
    budget = Progress(10000, 0.0)
    budget.update(2500, float("nan"))
    budget.close()
    text = capsys.readouterr().out
    assert "2.50k/10.0k" in text and "step/s" in text and "s/s" not in text.replace("step/s", "")
