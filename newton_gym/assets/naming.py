"""Valid, unique USD prim names from arbitrary source names."""

from __future__ import annotations

import re

__all__ = ["sanitize", "NameScope"]

_INVALID = re.compile(r"[^A-Za-z0-9_]")


def sanitize(name: str, fallback: str) -> str:
    """A valid USD identifier from ``name``: characters other than letters, digits and ``_`` become
    ``_``, and a leading digit gets a ``_`` prefix. An empty ``name`` gives ``fallback``."""
    if not name:
        name = fallback
    name = _INVALID.sub("_", name)
    if name[0].isdigit():
        name = "_" + name
    return name


class NameScope:
    """Hands out unique prim names among the children of one prim.

    A name already taken (or reserved) gets the smallest suffix ``_1``, ``_2``, ... that makes it free.
    """

    def __init__(self, reserved: tuple[str, ...] = ()):
        self._taken: set[str] = set(reserved)

    def claim(self, name: str, fallback: str) -> str:
        """The sanitized ``name`` (or ``fallback`` if empty), made unique, and now taken."""
        base = sanitize(name, fallback)
        candidate, k = base, 0
        while candidate in self._taken:
            k += 1
            candidate = f"{base}_{k}"
        self._taken.add(candidate)
        return candidate
