"""Lazy access to OpenUSD (``pxr``, from the ``usd-core`` package) and conversions of its values.

Nothing here imports ``pxr`` at module import time: :func:`require_pxr` does, on first use, and
raises an ImportError that names the package to install.
"""

from __future__ import annotations

import contextlib
import os
from types import SimpleNamespace

import numpy as np

__all__ = ["require_pxr", "to_python", "quat_xyzw", "vec", "work_thread_limit", "MESH_COLLIDER_THREAD_LIMIT"]

_PXR = None

# UsdPhysics.LoadUsdPhysicsFromRange can crash with more mesh colliders than this under one rigid body
# when it runs multi-threaded (seed 000, "Limitations"); above it the parse runs on one thread.
MESH_COLLIDER_THREAD_LIMIT = 30


def require_pxr() -> SimpleNamespace:
    """The pxr modules used by the importer (Usd, UsdGeom, UsdPhysics, Gf, Sdf, Vt, Tf, Work).

    Raises:
        ImportError: when OpenUSD is not installed, naming the ``usd-core`` package.
    """
    global _PXR
    if _PXR is None:
        try:
            from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdPhysics, Vt, Work
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "newton_gym.usd needs OpenUSD: install the 'usd-core' package (pip install usd-core)"
            ) from exc
        _PXR = SimpleNamespace(Gf=Gf, Sdf=Sdf, Tf=Tf, Usd=Usd, UsdGeom=UsdGeom, UsdPhysics=UsdPhysics, Vt=Vt, Work=Work)
    return _PXR


def quat_xyzw(q) -> tuple:
    """A Gf.Quat{f,d,h} as a tuple (x, y, z, w) (newton_gym's order, seed 002)."""
    im = q.GetImaginary()
    return (float(im[0]), float(im[1]), float(im[2]), float(q.GetReal()))


def vec(v, n: int = 3) -> np.ndarray:
    """A Gf vector (or any sequence) as a float64 array of ``n`` values."""
    return np.array([float(v[i]) for i in range(n)], dtype=np.float64)


def to_python(value):
    """Convert a value read from USD to plain Python: numbers and strings unchanged, Gf vectors and
    matrices to tuples, quaternions to (x, y, z, w), arrays to lists, asset paths to strings."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    name = type(value).__name__
    if name.endswith("Array"):
        return [to_python(v) for v in value]
    if name.startswith("Quat"):
        return quat_xyzw(value)
    if name.startswith("Vec"):
        return tuple(float(x) if not isinstance(x, int) else x for x in value)
    if name.startswith("Matrix"):
        return tuple(tuple(float(x) for x in row) for row in value)
    if name == "AssetPath":
        return value.path
    if name in ("Token", "TfToken"):
        return str(value)
    if hasattr(value, "__len__") and not isinstance(value, (bytes, dict)):
        return [to_python(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


@contextlib.contextmanager
def work_thread_limit(single_thread: bool):
    """Run the enclosed OpenUSD work on one thread when ``single_thread`` is True, then restore the
    previous concurrency limit (so other OpenUSD work in the process keeps its threads).

    Seed 000's workaround for the UsdPhysics parser crash with many mesh colliders under one body.
    ``PXR_WORK_THREAD_LIMIT``, when set, is read once by pxr and wins over Work.SetConcurrencyLimit;
    then nothing is changed here and the caller is told via the returned flag.

    Yields:
        True when the enclosed work runs on one thread.
    """
    if not single_thread:
        yield False
        return
    work = require_pxr().Work
    if "PXR_WORK_THREAD_LIMIT" in os.environ:
        yield os.environ["PXR_WORK_THREAD_LIMIT"].strip() == "1" or work.GetConcurrencyLimit() == 1
        return
    previous = work.GetConcurrencyLimit()
    work.SetConcurrencyLimit(1)
    try:
        yield True
    finally:
        work.SetConcurrencyLimit(previous)
