"""The random-number state of a training process, as plain data a checkpoint holds (``weights_only``-safe).

- ``torch``: (5056,) uint8, ``torch.get_rng_state()`` (action noise, mini-batch shuffles);
- ``cuda``: list of uint8 tensors, ``torch.cuda.get_rng_state_all()`` (only where CUDA was initialised);
- ``python``: ``random.getstate()`` (a tuple of ints);
- ``numpy``: the legacy global generator: ``keys`` (624,) int64, ``pos``, ``has_gauss``, ``gauss``;
- ``env``: ``world_counter`` (N,) int64, each world's reset count of the environment's counter-based
  streams, and ``generators`` {name: uint8 state} of the task's torch generators (observation noise).

Restoring sets each generator back, so a resumed run draws the numbers the interrupted one would have
drawn next. The environment's physical state is not saved: a resumed run starts new episodes, whose reset
noise continues each world's stream from its saved counter.
"""

from __future__ import annotations

import random

import numpy as np
import torch

__all__ = ["capture_rng", "restore_rng"]


def _numpy_state() -> dict:
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    keys = torch.from_numpy(keys.astype(np.int64))
    return {"keys": keys, "pos": int(pos), "has_gauss": int(has_gauss), "gauss": float(gauss)}


def _task_generators(vec) -> dict[str, torch.Generator]:
    task = getattr(vec, "task", None)  # NewtonVectorEnv's task; other vector envs have none
    if task is None:
        return {}
    return {name: value for name, value in vars(task).items() if isinstance(value, torch.Generator)}


def capture_rng(vec=None) -> dict:
    """The RNG state of this process, and of the vector environment ``vec`` when given."""
    state = {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": _numpy_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    vec = getattr(vec, "unwrapped", vec)
    if vec is not None:
        env = {"generators": {name: gen.get_state() for name, gen in _task_generators(vec).items()}}
        counter = getattr(getattr(vec, "rng", None), "counter", None)
        if counter is not None:
            env["world_counter"] = counter.detach().cpu().clone()
        state["env"] = env
    return state


def restore_rng(state: dict, vec=None) -> None:
    """Set the generators back to ``state`` (from :func:`capture_rng`); parts that do not fit this process
    (another world count, no CUDA) are left as they are."""
    torch.set_rng_state(state["torch"])
    python = state["python"]
    random.setstate((python[0], tuple(python[1]), python[2]))
    n = state["numpy"]
    np.random.set_state(("MT19937", n["keys"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["gauss"]))
    cuda = state.get("cuda")
    if cuda is not None and torch.cuda.is_available() and len(cuda) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(cuda)
    env = state.get("env")
    vec = getattr(vec, "unwrapped", vec)
    if vec is None or env is None:
        return
    generators = _task_generators(vec)
    for name, value in env.get("generators", {}).items():
        if name in generators:
            generators[name].set_state(value)
    counter = getattr(getattr(vec, "rng", None), "counter", None)
    saved = env.get("world_counter")
    if counter is not None and saved is not None and saved.shape == counter.shape:
        counter.copy_(saved.to(counter.device))
