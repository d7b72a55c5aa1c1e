"""Zero-copy torch views of state arrays, shaped per world.

Views share memory with the Warp arrays (``wp.to_torch``): writes through either side are seen by the
other, with no copy. A view stays valid as long as its Warp array lives; solvers never reallocate
state arrays, so views of both states of a double-buffered step loop stay valid across swaps.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from ..errors import ModelBuildError

__all__ = ["world_view", "WorldViews"]


def world_view(array, world_start, world_count: int):
    """Torch view of ``array`` restricted to world entities, shaped (world_count, per_world, ...).

    Args:
        array: Warp array whose first axis indexes entities of one kind.
        world_start: the matching ``*_world_start`` array (numpy or Warp), world_count + 2 entries.
        world_count: number of worlds.
    Raises:
        ModelBuildError: if the worlds hold different numbers of entities (heterogeneous worlds).
    """
    starts = world_start.numpy() if hasattr(world_start, "numpy") else np.asarray(world_start)
    counts = np.diff(starts[: world_count + 1])
    if world_count == 0 or (counts != counts[0]).any():
        raise ModelBuildError(f"world_view needs worlds of equal size; per-world counts are {counts.tolist()}")
    t = wp.to_torch(array)
    t = t[int(starts[0]) : int(starts[world_count])]
    return t.view((world_count, int(counts[0])) + tuple(t.shape[1:]))


class WorldViews:
    """Per-world torch views of a State's arrays; cached per Warp array, so re-binding after a swap
    of double-buffered states costs a dictionary lookup.

    Shapes: body_q (world_count, bodies, 7); body_qd (world_count, bodies, 6) COM twist, world frame,
    linear first; joint_q (world_count, coords); joint_qd (world_count, dofs).
    """

    _FIELDS = {
        "body_q": "body_world_start",
        "body_qd": "body_world_start",
        "body_f": "body_world_start",
        "joint_q": "joint_coord_world_start",
        "joint_qd": "joint_dof_world_start",
    }

    def __init__(self, model, state=None):
        self.model = model
        self._starts = {f: getattr(model, s).numpy() for f, s in self._FIELDS.items()}
        self._cache = {}
        self.state = state

    def bind(self, state):
        """Point the views at ``state`` (e.g. after swapping state_0 and state_1)."""
        self.state = state
        return self

    def _view(self, field):
        arr = getattr(self.state, field)
        key = (field, arr.ptr)
        view = self._cache.get(key)
        if view is None:
            view = world_view(arr, self._starts[field], self.model.world_count)
            self._cache[key] = view
        return view

    body_q = property(lambda self: self._view("body_q"))
    body_qd = property(lambda self: self._view("body_qd"))
    body_f = property(lambda self: self._view("body_f"))
    joint_q = property(lambda self: self._view("joint_q"))
    joint_qd = property(lambda self: self._view("joint_qd"))
