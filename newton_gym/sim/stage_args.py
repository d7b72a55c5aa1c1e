"""Filling a pipeline stage's Warp struct by field name.

Each stage of the step (:mod:`newton_gym.solvers.smooth`, :mod:`newton_gym.solvers.integrate`, ...) declares
its model tables, inputs and outputs as one ``@wp.struct`` (shapes and units beside each field); its
per-entity ``@wp.func`` reads them from there, so the per-world passes of :mod:`newton_gym.solvers.forward`
and the stage's own kernel call the same code.
"""

from __future__ import annotations

__all__ = ["fill", "BoundStruct"]


def fill(struct, *sources, **fields):
    """An instance of the Warp struct ``struct`` with every declared field set by name: from ``fields``, else
    from the one source among ``sources`` (objects with attributes, or dicts) that holds that name; an
    output field ``x_out`` is read as ``x`` there. A field given by no source, a field two sources hold
    without being given in ``fields``, and an unknown name in ``fields`` raise ValueError naming them."""
    names = list(struct.vars)
    unknown = sorted(set(fields) - set(names))
    missing, ambiguous = [], []
    out = struct()
    for name in names:
        if name in fields:
            setattr(out, name, fields[name])
            continue
        key = name[: -len("_out")] if name.endswith("_out") else name
        found = [src for src in sources if (key in src if isinstance(src, dict) else hasattr(src, key))]
        if len(found) != 1:
            (missing if not found else ambiguous).append(name)
            continue
        src = found[0]
        setattr(out, name, src[key] if isinstance(src, dict) else getattr(src, key))
    if missing or ambiguous or unknown:
        raise ValueError(
            f"{struct.key}: fields {missing} missing, {ambiguous} held by several sources, {unknown} unknown"
        )
    return out


class BoundStruct:
    """A stage struct bound to a set of arrays and scalars, rebuilt only when one of them changes. The key
    is the arrays' addresses, not the objects' ids: the kept struct holds the arrays, so no other array can
    take their memory (a new State could take a freed one's id)."""

    def __init__(self):
        self._key = None
        self._value = None

    def get(self, arrays, scalars, build):
        """The struct for ``arrays`` (Warp arrays) and ``scalars``; ``build()`` makes it when they changed."""
        key = tuple(a.ptr for a in arrays) + tuple(scalars)
        if key != self._key:
            self._value = build()
            self._key = key
        return self._value
