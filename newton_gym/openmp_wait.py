"""How torch's CPU worker threads wait between parallel operations, and what it costs the solver's threads.

torch runs its CPU operations on GNU OpenMP (libgomp). Unless ``OMP_WAIT_POLICY`` is ``PASSIVE``, libgomp's
worker threads spin on their cores after each parallel operation instead of sleeping, and they take those
cores from the solver's own CPU threads (``SolverGeneralized(threads=N)``, the envs' ``[sim] threads``), which
step between torch's operations: Newton/Ant-v0 at 256 worlds on 2 solver threads and 2 cores ran 13.4 k
env-steps/s with spinning workers and 21.2 k with passive ones. libgomp reads the variable once, when torch
loads it, so :func:`prefer_passive` (called first by ``import newton_gym``) sets it only where torch is not
imported yet and the user has not chosen a policy; :func:`warn_if_spinning` names the fix where it came too
late.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["prefer_passive", "spinning", "warn_if_spinning"]

_state = {"spinning": False, "warned": False}


def prefer_passive() -> None:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` for this process unless it is set already; where torch was imported
    before (its OpenMP runtime has read the environment), remember that its workers spin."""
    if "OMP_WAIT_POLICY" in os.environ:
        return
    if "torch" in sys.modules:
        _state["spinning"] = True
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def spinning() -> bool:
    """Whether torch was imported before newton_gym with no ``OMP_WAIT_POLICY`` set (its workers spin)."""
    return _state["spinning"]


def warn_if_spinning(threads: int) -> None:
    """Warn once per process when ``threads`` CPU solver threads (> 1) will share the cores with spinning
    torch workers."""
    if threads < 2 or not _state["spinning"] or _state["warned"]:
        return
    _state["warned"] = True
    warnings.warn(
        f"torch was imported before newton_gym with OMP_WAIT_POLICY unset: torch's OpenMP workers spin on the "
        f"cores after each parallel operation and slow the solver's {threads} CPU threads (up to 1.6x here); "
        "import newton_gym before torch, or set OMP_WAIT_POLICY=PASSIVE in the environment",
        stacklevel=3,
    )
