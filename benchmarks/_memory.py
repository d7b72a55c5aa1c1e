"""Memory helper shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import warp as wp

__all__ = ["array_bytes"]


def array_bytes(roots, skip_types=(), depth: int = 4) -> int:
    """Bytes of every distinct Warp array (by address) reachable from ``roots`` through attributes, dict values,
    lists and Warp struct instances, ``depth`` levels down, not entering objects of ``skip_types``. A solver's
    row buffers sit three levels down (solver, its world solve, the solve's Warp struct)."""
    found, visited = {}, set()

    def visit(obj, level):
        if isinstance(obj, wp.array):
            if obj.ptr is not None:
                found[obj.ptr] = obj.capacity
            return
        if level == 0 or isinstance(obj, skip_types) or id(obj) in visited:
            return
        visited.add(id(obj))
        if isinstance(obj, dict):
            children = obj.values()
        elif isinstance(obj, (list, tuple)):
            children = obj
        elif hasattr(obj, "__dict__"):
            children = vars(obj).values()
        else:
            return
        for child in children:
            visit(child, level - 1)

    for root in roots:
        visit(root, depth)
    return sum(found.values())
