"""Weights & Biases beside TensorBoard: a run with ``wandb = true`` writes an offline W&B run in
``<run>/wandb`` holding the same scalar tags, as many times each, as the run's TensorBoard event file; the W&B
id follows the run directory (so --resume continues it); a missing wandb names the extra."""

import glob
import os
import sys

import pytest
from tiny_config import tiny_toml, train_cli

pytest.importorskip("skrl")
pytest.importorskip("rsl_rl")
wandb_proto = pytest.importorskip("wandb.proto.wandb_internal_pb2")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


CONFIGS = {
    "skrl": tiny_toml("skrl", timesteps=96, wandb=True),
    "rsl_rl": tiny_toml("rsl_rl", timesteps=96, wandb=True),
}


def _records(path: str):
    """The records of a W&B transaction log (LevelDB log blocks of 32 KiB after a 7-byte ':W&B' header)."""
    data = open(path, "rb").read()
    assert data[:4] == b":W&B"
    pos, pending, block = 7, b"", 32768
    while pos + 7 <= len(data):
        if block - pos % block < 7:  # a block's tail too short for a header is padding
            pos += block - pos % block
            continue
        size, kind = int.from_bytes(data[pos + 4 : pos + 6], "little"), data[pos + 6]
        chunk = data[pos + 7 : pos + 7 + size]
        pos += 7 + size
        if kind == 1:
            yield chunk
        elif kind == 2:
            pending = chunk
        elif kind == 3:
            pending += chunk
        elif kind == 4:
            yield pending + chunk
            pending = b""


def _wandb_scalars(run_dir: str) -> dict:
    (log,) = glob.glob(os.path.join(run_dir, "wandb", "offline-run-*", "run-*.wandb"))
    counts = {}
    for raw in _records(log):
        record = wandb_proto.Record()
        record.ParseFromString(raw)
        if record.WhichOneof("record_type") == "history":
            for item in record.history.item:
                key = item.key or "/".join(item.nested_key)
                if not key.startswith("_") and key != "global_step":
                    counts[key] = counts.get(key, 0) + 1
    return counts


def _tensorboard_scalars(run_dir: str) -> dict:
    (events,) = glob.glob(os.path.join(run_dir, "**", "events.out.tfevents.*"), recursive=True)
    acc = event_accumulator.EventAccumulator(events)
    acc.Reload()
    return {tag: len(acc.Scalars(tag)) for tag in acc.Tags()["scalars"]}


@pytest.mark.parametrize("backend", sorted(CONFIGS))
def test_wandb_holds_the_tensorboard_scalars(backend, tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(CONFIGS[backend])
    out = tmp_path / "run"
    status, stdout, stderr = train_cli(
        "--config", str(config), "--out", str(out), env={"WANDB_MODE": "offline", "WANDB_SILENT": "true"}
    )
    assert status == 0, stdout[-2000:] + stderr[-2000:]
    board = _tensorboard_scalars(str(out))
    assert board and _wandb_scalars(str(out)) == board


def test_the_wandb_id_follows_the_run_directory_and_offline_is_the_default(tmp_path, monkeypatch):
    from newton_gym.train.wandb_log import wandb_mode, wandb_run

    class Cfg:
        wandb = False

    with wandb_run(Cfg(), str(tmp_path)) as run:  # off: nothing is made
        assert run is None
    assert not (tmp_path / "wandb").exists()
    monkeypatch.delenv("WANDB_MODE", raising=False)
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    assert wandb_mode() == "offline"
    monkeypatch.setenv("WANDB_API_KEY", "x" * 40)
    assert wandb_mode() == "online"
    monkeypatch.setenv("WANDB_MODE", "disabled")
    assert wandb_mode() == "disabled"


def test_a_missing_wandb_names_the_extra(tmp_path, monkeypatch):
    from newton_gym.errors import ConfigError
    from newton_gym.train.config import load_train_config
    from newton_gym.train.wandb_log import wandb_run

    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb raises ImportError
    with pytest.raises(ConfigError, match=r"newton-gym\[wandb\]"):
        with wandb_run(load_train_config(None, wandb=True), str(tmp_path)):
            pass
