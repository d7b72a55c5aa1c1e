"""Deferred imports of the heavy optional packages, with errors that name what to install."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]

_INSTALL_HINTS = {
    "pxr": "usd-core (pip install usd-core)",
    "mujoco": "the 'mujoco' extra (pip install 'newton-gym[mujoco]')",
    "trimesh": "the 'mesh' extra (pip install 'newton-gym[mesh]')",
}


def require(name: str) -> ModuleType:
    """Import a heavy optional package by name.

    Args:
        name: A module of "pxr", "mujoco" or "trimesh", e.g. "pxr.Usd".

    Returns:
        The imported module.

    Raises:
        ImportError: The package is not installed; the message says which extra provides it.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        package = name.split(".")[0]
        hint = _INSTALL_HINTS.get(package, package)
        raise ImportError(f"newton_gym.assets needs '{package}'; install {hint}.") from exc
