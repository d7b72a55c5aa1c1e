"""Small value types the solver stages share."""

from __future__ import annotations

import warp as wp

__all__ = ["vec5", "vec8"]

vec5 = wp.types.vector(5, wp.float32)
"""MuJoCo solimp (d0, dwidth, width, midpoint, power) of a constraint row or contact pair."""

vec8 = wp.types.vector(8, wp.float32)
"""Eight floats moved as one load: a row of the Newton Hessian scratch."""
