"""Deterministic fuzz inputs for the importers: mutated USD, MJCF and URDF files made from the seeds.

``make_case(seed, index)`` picks the kind (cycling usd, mjcf, urdf), a seed file of that kind and one to
three mutations, all from a random generator seeded with ``(seed, index)`` alone, so a case is
reproducible by its two numbers. Mutations run in stages: structure (delete / duplicate elements or
prims, edit side files), values (non-finite or out-of-range numbers, values of the wrong type, unknown
tokens, broken references), the file name (bad extension), and last the bytes (truncation, invalid
UTF-8, empty file). The operators work on text, so they also apply to a file an earlier one broke.

This is a test utility: it does not import newton_gym.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

from ops_file import bad_extension, empty_file, invalid_utf8, truncate
from ops_structure import corrupt_side_file, delete_element, duplicate_element
from ops_values import broken_reference, mutate_number, unknown_token, wrong_type
from seeds import KINDS, seeds_of

__all__ = ["FuzzCase", "make_case", "generate"]


@dataclass(frozen=True)
class FuzzCase:
    """One fuzz input: the main file (name, bytes), its side files and the mutations that made it."""

    seed: int
    index: int
    kind: str
    seed_name: str
    mutations: tuple
    filename: str
    data: bytes
    extra: tuple  # ((relative name, bytes), ...)

    @property
    def case_id(self) -> str:
        """Short stable name, e.g. ``usd-0042``."""
        return f"{self.kind}-{self.index:04d}"

    def describe(self) -> str:
        """One line naming the seed file, the mutations and the file written."""
        return f"{self.case_id} {self.seed_name} -> {self.filename}: {'; '.join(self.mutations)}"

    def write(self, folder: str) -> str:
        """Write the main and side files under ``folder``; returns the main file's path."""
        for name, data in ((self.filename, self.data), *self.extra):
            path = os.path.join(folder, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        return os.path.join(folder, self.filename)


class _Doc:
    """A mutable input under construction: text of the main file, its name and the side files."""

    def __init__(self, kind: str, name: str, text: str, extra: dict):
        self.kind, self.name, self.text = kind, name, text
        self.extra = dict(extra)
        self.data: bytes | None = None  # set once a byte-level mutation ran


# Stage of each mutation family; a case applies its mutations in stage order.
_STRUCTURE = [
    ("delete element", 3, delete_element),
    ("duplicate element", 3, duplicate_element),
    ("corrupt side file", 1, corrupt_side_file),
]
_VALUES = [
    ("number", 6, mutate_number),
    ("wrong type", 3, wrong_type),
    ("unknown token", 3, unknown_token),
    ("broken reference", 3, broken_reference),
]
_NAME = [("bad extension", 1, bad_extension)]
_BYTES = [
    ("truncate", 1, truncate),
    ("invalid utf-8", 1, invalid_utf8),
    ("empty", 1, empty_file),
]
_FAMILIES = _STRUCTURE + _VALUES + _NAME + _BYTES
_STAGE = {name: stage for stage, group in enumerate((_STRUCTURE, _VALUES, _NAME, _BYTES)) for name, _, _ in group}


def make_case(seed: int, index: int) -> FuzzCase:
    """The fuzz case number ``index`` of run ``seed`` (the same two numbers always give the same bytes)."""
    rng = random.Random(f"newton_gym-fuzz/{seed}/{index}")
    kind = KINDS[index % len(KINDS)]
    base = rng.choice(seeds_of(kind))
    doc = _Doc(kind, base.name, base.text, base.extra)
    count = rng.choices((1, 2, 3), weights=(6, 3, 1))[0]
    picked = rng.choices(_FAMILIES, weights=[w for _, w, _ in _FAMILIES], k=count)
    if any(name in ("truncate", "invalid utf-8", "empty") for name, _, _ in picked):
        # at most one byte-level mutation, and an empty file makes every other one moot
        keep = [f for f in picked if _STAGE[f[0]] < 3]
        last = next(f for f in picked if _STAGE[f[0]] == 3)
        picked = [last] if last[0] == "empty" else keep + [last]
    picked.sort(key=lambda f: _STAGE[f[0]])
    done = []
    for _name, _, op in picked:
        what = op(rng, doc)
        if what:
            done.append(what)
    if not done:  # nothing applied (no target in this seed): fall back to a number, present in every seed
        done.append(mutate_number(rng, doc) or "unchanged")
    data = doc.data if doc.data is not None else doc.text.encode("utf-8")
    extra = tuple(sorted(doc.extra.items()))
    return FuzzCase(seed, index, kind, base.name, tuple(done), doc.name, data, extra)


def generate(seed: int, count: int, start: int = 0) -> list[FuzzCase]:
    """Cases ``start`` .. ``start + count - 1`` of run ``seed``."""
    return [make_case(seed, i) for i in range(start, start + count)]
