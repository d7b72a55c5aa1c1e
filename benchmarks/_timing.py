"""Timing helper shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import statistics
import time

__all__ = ["median_time"]


def median_time(fn, repeats: int) -> float:
    """Median wall-clock time [s] of ``repeats`` calls of ``fn()``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
