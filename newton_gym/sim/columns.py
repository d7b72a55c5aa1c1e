"""Column storage for builder entities.

Each entity kind (bodies, shapes, joints, ...) is a :class:`ColumnTable`: named columns of fixed numpy
dtype and trailing shape. Single rows go to Python lists; whole blocks (a sub-builder added as a world,
or a replicate of thousands of copies) go in as numpy chunks, so ``replicate`` costs one numpy operation
per column instead of one Python call per entity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ModelBuildError

__all__ = ["Column", "ColumnTable"]


@dataclass(frozen=True)
class Column:
    """One column of an entity table.

    Attributes:
        name: column name.
        dtype: numpy dtype of one element.
        shape: trailing shape of one row, () for scalars.
        default: value for rows added without this column.
        remap: entity kind this column indexes ("body", "joint", ...); when a block of rows is copied
            into another builder, non-negative values are shifted by that kind's count there.
    """

    name: str
    dtype: Any
    shape: tuple = ()
    default: Any = 0
    remap: str | None = None


@dataclass
class ColumnTable:
    """Rows of one entity kind, stored column-wise (see module docstring)."""

    columns: tuple
    count: int = 0
    labels: list = field(default_factory=list)
    _chunks: dict = field(default_factory=dict)
    _pending: dict = field(default_factory=dict)
    _cache: dict = field(default_factory=dict)

    def __post_init__(self):
        self._by_name = {c.name: c for c in self.columns}
        for c in self.columns:
            self._chunks[c.name] = []
            self._pending[c.name] = []

    def column_spec(self, name: str) -> Column:
        return self._by_name[name]

    def add_row(self, label: str | None = None, **values) -> int:
        """Append one row; columns not given take their default. Returns the new row index."""
        unknown = set(values) - set(self._by_name)
        if unknown:
            raise ModelBuildError(f"unknown column(s) {sorted(unknown)}")
        for c in self.columns:
            self._pending[c.name].append(values.get(c.name, c.default))
        self.labels.append(label)
        self._cache.clear()
        self.count += 1
        return self.count - 1

    def add_block(self, arrays: dict, count: int, labels: list | None = None) -> int:
        """Append ``count`` rows given as numpy arrays per column (missing columns take defaults).

        Returns the index of the first new row.
        """
        start = self.count
        if count == 0:
            return start
        self._flush()
        for c in self.columns:
            arr = arrays.get(c.name)
            if arr is None:
                arr = np.broadcast_to(np.asarray(c.default, dtype=c.dtype), (count,) + c.shape)
            arr = np.asarray(arr, dtype=c.dtype)
            if arr.shape != (count,) + c.shape:
                raise ModelBuildError(f"column {c.name}: block shape {arr.shape} != {(count,) + c.shape}")
            self._chunks[c.name].append(arr)
        self.labels.extend(labels if labels is not None else [None] * count)
        self._cache.clear()
        self.count += count
        return start

    def _flush(self):
        if not self.columns or not self._pending[self.columns[0].name]:
            return
        for c in self.columns:
            rows = self._pending[c.name]
            arr = np.array(rows, dtype=c.dtype).reshape((len(rows),) + c.shape)
            self._chunks[c.name].append(arr)
            self._pending[c.name] = []

    def get(self, name: str) -> np.ndarray:
        """The whole column as one numpy array of shape (count, *shape). Do not modify it in place;
        use :meth:`set` to change values."""
        if name not in self._cache:
            self._flush()
            c = self._by_name[name]
            chunks = self._chunks[name]
            if len(chunks) == 0:
                arr = np.zeros((0,) + c.shape, dtype=c.dtype)
            elif len(chunks) == 1:
                arr = chunks[0]
            else:
                arr = np.concatenate(chunks, axis=0)
                self._chunks[name] = [arr]
            self._cache[name] = arr
        return self._cache[name]

    def set(self, name: str, index, value):
        """Set column ``name`` at row(s) ``index`` to ``value``."""
        arr = np.array(self.get(name), copy=True)
        arr[index] = value
        self._chunks[name] = [arr]
        self._cache[name] = arr

    def value(self, name: str, index: int):
        """One element of a column (for Python-side checks)."""
        if index >= self.count - len(self._pending[name]) and self._pending[name]:
            return self._pending[name][index - (self.count - len(self._pending[name]))]
        return self.get(name)[index]

    def snapshot(self) -> tuple:
        """Opaque state that :meth:`restore` returns the table to (used to undo a failed import)."""
        self._flush()
        return (self.count, len(self.labels), {k: list(v) for k, v in self._chunks.items()})

    def restore(self, snap: tuple):
        count, nlabels, chunks = snap
        self.count = count
        del self.labels[nlabels:]
        self._chunks = chunks
        self._pending = {c.name: [] for c in self.columns}
        self._cache.clear()
