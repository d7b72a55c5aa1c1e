"""The float32 range check of finalize: every float the Model stores must be a finite float32.

The builder keeps float64 columns and the Model float32 arrays, so a NaN, an infinity or a finite float64
beyond float32's range (|v| > 3.4e38, e.g. 1e39, or a unit scale that overflows) would otherwise reach the
solvers as NaN or inf without a word. The check covers every float column of every entity table and the
values finalize derives (body mass and inertia, their inverses, particle inverse masses, gravity); the
error names the entity (its label) and the field.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError
from .tables import KIND_NAMES

__all__ = ["FLOAT32_MAX", "INF_ALLOWED", "check_float_range"]

#: Largest magnitude a float32 holds; the one definition the import and conversion checks share.
FLOAT32_MAX = float(np.finfo(np.float32).max)

#: (table, column) pairs where an infinity is a documented value ("unlimited" joint limits); NaN is still
#: refused there.
INF_ALLOWED = frozenset({("dof", "limit_lower"), ("dof", "limit_upper")})


def _bad_rows(values: np.ndarray, allow_inf: bool) -> np.ndarray:
    """Row mask: a NaN, or a magnitude above float32's largest value (infinities unless allowed)."""
    a = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
    over = np.abs(a) > FLOAT32_MAX
    if allow_inf:
        over &= ~np.isinf(a)
    return (np.isnan(a) | over).any(axis=1)


def _who(builder, kind: str, row: int) -> str:
    """The entity a row belongs to: its label (or index); DOFs and coordinates through their joint."""
    if kind in ("dof", "coord"):
        joint = int(builder.tables[kind].get("joint")[row])
        first = int(np.argmax(builder.tables[kind].get("joint") == joint))
        part = "DOF" if kind == "dof" else "coordinate"
        return f"{_who(builder, 'joint', joint)} {part} {row - first}"
    label = builder.tables[kind].labels[row]
    return f"{KIND_NAMES.get(kind, kind)} {label if label is not None else row}"


def _check(builder, kind: str, field: str, values, allow_inf: bool = False):
    values = np.asarray(values)
    if len(values) == 0:
        return
    bad = _bad_rows(values, allow_inf)
    if bad.any():
        row = int(np.argmax(bad))
        value = np.asarray(values[row]).tolist()
        raise ModelBuildError(
            f"{_who(builder, kind, row)}: {field} {value} is NaN or beyond float32's range "
            f"(|value| <= {FLOAT32_MAX:.3g}); the model stores float32"
        )


def check_float_range(builder, derived=()):
    """Refuse a float the float32 Model cannot hold (see module).

    Args:
        builder: the ModelBuilder being finalized.
        derived: ``(table kind, field name, values)`` of values computed by finalize, one row per entity of
            that kind.

    Raises:
        ModelBuildError: naming the entity and field of the first such value.
    """
    for kind, table in builder.tables.items():
        for col in table.columns:
            if np.dtype(col.dtype).kind == "f":
                _check(builder, kind, col.name, table.get(col.name), (kind, col.name) in INF_ALLOWED)
    for kind, field, values in derived:
        _check(builder, kind, field, values)
    gravity = np.asarray(builder.world_gravity or [builder.gravity_vector], dtype=np.float64).reshape(-1, 3)
    bad = _bad_rows(gravity, False)
    if bad.any():
        row = int(np.argmax(bad))
        where = f" of world {row}" if builder.world_gravity else ""
        raise ModelBuildError(f"gravity{where} {gravity[row].tolist()} is NaN or beyond float32's range")
