"""Filling a pipeline stage's Warp struct by field name.

Each stage of the step (:mod:`newton_gym.solvers.smooth`, :mod:`newton_gym.solvers.integrate`, ...) declares
its model tables, inputs and outputs as one ``@wp.struct`` (shapes and units beside each field); its
per-entity ``@wp.func`` reads them from there, so the per-world passes of :mod:`newton_gym.solvers.forward`
and the stage's own kernel call the same code.
"""

from __future__ import annotations

__all__ = ["fill"]


def fill(struct, **fields):
    """An instance of the Warp struct ``struct`` with every declared field set by name; a missing or unknown
    name raises ValueError naming it."""
    names = set(struct.vars)
    missing, unknown = sorted(names - set(fields)), sorted(set(fields) - names)
    if missing or unknown:
        raise ValueError(f"{struct.key}: missing fields {missing}, unknown fields {unknown}")
    out = struct()
    for name, value in fields.items():
        setattr(out, name, value)
    return out
