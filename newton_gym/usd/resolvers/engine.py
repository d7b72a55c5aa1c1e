"""Priority resolution of one key through a list of resolvers, with provenance.

Order (seed 000): authored value of the first resolver that has one -> importer default -> the first
approximated schema default in resolver order.

An authored value that resolves to NaN, an infinity or a number beyond float32's range (after the
resolver's transformation: ``mjc:solreflimit`` with a time constant of 1e-45 gives an infinite stiffness)
is an ImportFailedError naming the attribute: the model stores float32 and none of these keys gives
infinity a meaning.
"""

from __future__ import annotations

from ...sim.float_range import FLOAT32_MAX
from .base import ResolveContext

__all__ = ["resolve", "resolve_with"]


def _beyond_float32(value) -> bool:
    """Whether a resolved number, or a number in a resolved sequence, is NaN, infinite or beyond float32."""
    items = value if isinstance(value, (list, tuple)) else (value,)
    return any(isinstance(v, (int, float)) and not isinstance(v, bool) and not abs(v) <= FLOAT32_MAX for v in items)


def resolve_with(resolvers, attrs, kind: str, key: str, default=None, rctx: ResolveContext | None = None, record=None):
    """Resolve ``key`` of prim kind ``kind`` from ``attrs`` (a PrimAttrs).

    Args:
        resolvers: SchemaResolver instances, highest priority first.
        default: the importer default (None: none).
        rctx: ResolveContext of the DOF being resolved (None for prim-level keys).
        record: optional ``f(label, value, source)`` told where the value came from.
    Returns:
        The value, or None when nothing is authored and no default exists.
    """
    rctx = rctx or ResolveContext()
    label = key if rctx.axis in (None, "angular", "linear") else f"{key}[{rctx.axis}]"
    specs = [(r, s) for r in resolvers if (s := r.spec(kind, key)) is not None]
    for resolver, spec in specs:
        value, name = resolver.read(attrs, spec, rctx)
        if value is not None:
            if _beyond_float32(value):
                attrs.fail(
                    name,
                    f"value resolves {label} ({resolver.name}) to {value!r}: NaN, infinite or beyond "
                    f"float32's range (|value| <= {FLOAT32_MAX:.3g})",
                )
            if record:
                record(label, value, f"{name} ({resolver.name})")
            return value
    if default is not None:
        if record:
            record(label, default, "importer default")
        return default
    for resolver, spec in specs:
        if spec.default is not None:
            if record:
                record(label, spec.default, f"schema default ({resolver.name})")
            return spec.default
    return None


def resolve(ctx, kind: str, key: str, path: str, default=None, dof: ResolveContext | None = None):
    """:func:`resolve_with` on prim ``path`` of an ImportContext, recording provenance."""
    if dof is None:
        dof = ResolveContext(angle_degrees=getattr(ctx.scene, "angle_degrees", True))

    def record(label, value, source):
        ctx.provenance.record(path, label, value, source)

    return resolve_with(ctx.resolvers, ctx.prims[path], kind, key, default, dof, record)
