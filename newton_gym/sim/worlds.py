"""World scopes: which world new entities go to, per-world gravity, and the
``*_world_start`` arrays of a finalized model."""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError

__all__ = ["WorldScope", "world_start", "check_world_order"]


class WorldScope:
    """Tracks the active world of a builder and the gravity of each world.

    Entities added outside any ``begin_world``/``end_world`` pair belong to the global world -1.
    """

    def __init__(self):
        self.current = -1
        self.count = 0
        self.gravity: list[tuple[float, float, float]] = []

    def begin(self, gravity) -> int:
        if self.current != -1:
            raise ModelBuildError(
                f"begin_world() called while world {self.current} is still open: worlds cannot be "
                "nested; call end_world() first"
            )
        self.current = self.count
        self.count += 1
        self.gravity.append(tuple(float(g) for g in gravity))
        return self.current

    def end(self):
        if self.current == -1:
            raise ModelBuildError("end_world() called without a matching begin_world()")
        self.current = -1


def world_start(entity_world: np.ndarray, world_count: int) -> np.ndarray:
    """The ``*_world_start`` array (world_count + 2,) of an entity kind.

    Entries 0..world_count-1 are the first index of each world, entry world_count the first index of
    the global entities at the back, the last entry the total count. Assumes :func:`check_world_order`.
    """
    w = np.asarray(entity_world)
    total = len(w)
    front = int(np.argmax(w != -1)) if (w != -1).any() else total
    counts = np.bincount(w[w >= 0], minlength=world_count)[:world_count]
    starts = np.empty(world_count + 2, dtype=np.int32)
    starts[0] = front
    starts[1 : world_count + 1] = front + np.cumsum(counts)
    starts[-1] = total
    return starts


def check_world_order(kind: str, entity_world: np.ndarray, labels=None):
    """Raise unless entities are ordered global (-1) first, then worlds 0, 1, ... ascending, then
    global again, which is what the world_start format can express."""
    w = np.asarray(entity_world)
    if len(w) == 0:
        return
    inner = np.nonzero(w >= 0)[0]
    if len(inner) == 0:
        return
    seg = w[inner[0] : inner[-1] + 1]
    bad = np.nonzero(np.diff(seg) < 0)[0]
    if len(bad) == 0 and (seg >= 0).all():
        return
    pos = int(inner[0] + (bad[0] + 1 if len(bad) else np.argmax(seg < 0)))
    name = labels[pos] if labels is not None and pos < len(labels) and labels[pos] else f"#{pos}"
    raise ModelBuildError(
        f"{kind} {name} (world {int(w[pos])}) breaks world order: entities must be added as global "
        "(-1) ones first, then each world in ascending order, then global ones after the last world"
    )
