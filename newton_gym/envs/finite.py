"""Finiteness of the env's batched tensors, in few torch operations.

``torch.isfinite`` on the CPU runs as several element-wise operations, each with its own dispatch and
allocation; ``isfinite(x).all(dim=1)`` of a (256, 27) observation then costs about ten times a
multiplication of it. The vector env asks it of the state, the observation, the reward and the actions
every step, so it is taken here from row sums: a row's sum is finite exactly when all its entries are.
"""

from __future__ import annotations

import torch

__all__ = ["finite_rows", "zero_nonfinite"]


def finite_rows(*tensors: torch.Tensor) -> torch.Tensor:
    """(N,) bool: whether every entry of row n of each of ``tensors`` (each (N,) or (N, ...), one leading
    dimension N) is finite. A float32 (or narrower) row is summed in float64, where the sum of finite entries
    cannot overflow, so the sum is finite exactly when every entry is (an inf, infs of both signs or a NaN
    make it inf or NaN); a float64 tensor, whose finite entries may sum past float64's range, goes through
    ``torch.isfinite``."""
    total = None
    exact = None
    for x in tensors:
        if x.dtype == torch.float64:
            rows = torch.isfinite(x) if x.dim() == 1 else torch.isfinite(x.flatten(1)).all(dim=1)
            exact = rows if exact is None else exact & rows
            continue
        if x.dim() == 1:
            s = x.double()
        else:
            s = (x if x.dim() == 2 else x.flatten(1)).sum(dim=1, dtype=torch.float64)
        total = s if total is None else total + s
    if total is None:
        return exact
    finite = total * 0.0 == 0.0  # inf * 0 and NaN * 0 are NaN
    return finite if exact is None else finite & exact


def zero_nonfinite(x: torch.Tensor) -> torch.Tensor:
    """``x`` with NaN and +-inf replaced by 0."""
    return torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
