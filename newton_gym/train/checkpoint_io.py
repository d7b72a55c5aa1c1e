"""Reading and writing the files of a run: checkpoints loaded without running code, every write atomic.

- ``read_pt(path)``: ``torch.load(path, weights_only=True)``, which builds tensors, dicts, lists, tuples,
  numbers, strings and None; a pickle naming any other object is an
  :class:`~newton_gym.errors.UnsafeCheckpointError`, raised before that object is built;
- ``write_pt(data, path)``: ``torch.save`` to a temporary file beside ``path``, then ``os.replace``;
- ``write_text(path, text)``: the same for a text file (config, learning curve);
- ``write_file(path, write)``: the same for any writer ``write(binary file)``.

A reader (``play`` on a checkpoint while training goes on, a resumed run) never sees a half-written file:
``os.replace`` within one directory is atomic on POSIX and Windows.
"""

from __future__ import annotations

import os
import pickle
import re

import torch

from ..errors import CheckpointError, UnsafeCheckpointError

__all__ = ["read_pt", "write_pt", "write_text", "write_file"]


def read_pt(path: str, device="cpu"):
    """The object ``torch.save`` wrote to ``path``, unpickled with ``weights_only=True``.

    Raises:
        CheckpointError: ``path`` does not exist or is not a torch file.
        UnsafeCheckpointError: the pickle names an object other than plain data (it is not built).
    """
    if not os.path.isfile(path):
        raise CheckpointError("no such checkpoint file", path)
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError as exc:
        text = str(exc)
        found = re.search(r"GLOBAL ([\w.]+)", text)
        if found is None:  # a broken or foreign pickle stream, not a disallowed object
            detail = re.search(r"WeightsUnpickler error: \s*(.+)", text)
            reason = detail.group(1) if detail else text.strip().splitlines()[0]
            raise CheckpointError(f"not a readable torch file ({reason})", path) from None
        what = f"the Python object {found.group(1)}"
        raise UnsafeCheckpointError(
            f"refused: the file's pickle calls for {what}, and loading it could run code. newton_gym checkpoints "
            "hold only tensors, dicts, lists, numbers and strings; load this file only if you trust its source",
            path,
        ) from None
    except (RuntimeError, EOFError, KeyError, ValueError, OSError) as exc:
        raise CheckpointError(f"not a readable torch file ({type(exc).__name__}: {exc})", path) from None


def write_file(path: str, write) -> str:
    """Call ``write(file)`` on a temporary file beside ``path`` (this process's own name, the umask's
    permissions), then move it onto ``path``."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def write_pt(data, path: str) -> str:
    """``torch.save(data)`` to ``path`` atomically; returns ``path``."""
    return write_file(path, lambda f: torch.save(data, f))


def write_text(path: str, text: str) -> str:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns ``path``."""
    return write_file(path, lambda f: f.write(text.encode("utf-8")))
