"""Packing a pipeline stage's arrays into its Warp struct.

Each stage of the step (:mod:`.smooth`, :mod:`.passive`, :mod:`.forward`, ...) declares its model tables,
inputs and outputs as one ``@wp.struct``; its per-entity ``@wp.func`` reads them from there, so the
stage's own kernel and the fused per-world kernels of :mod:`.world_step` call the same code.
"""

from __future__ import annotations

__all__ = ["pack"]


def pack(struct, values: list):
    """An instance of the Warp struct ``struct`` with its fields set, in declaration order, to ``values``."""
    names = list(struct.vars)
    if len(names) != len(values):
        raise ValueError(f"{struct.key}: {len(names)} fields, got {len(values)} values")
    out = struct()
    for name, value in zip(names, values):
        setattr(out, name, value)
    return out
