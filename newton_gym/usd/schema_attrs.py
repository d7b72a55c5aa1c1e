"""``result["schema_attrs"]``: every authored attribute in each resolver's namespaces (seed 000).

``schema_attrs[resolver name][prim path][attribute name] = value`` over the imported prim range, values
converted to plain Python (tuples for vectors, (x, y, z, w) for quaternions, lists for arrays).
"""

from __future__ import annotations

__all__ = ["collect_schema_attrs", "unused_attributes"]


def collect_schema_attrs(ctx) -> dict:
    """Collect the attributes of every resolver's namespaces over the imported range."""
    out = {r.name: {} for r in ctx.resolvers}
    for prim in ctx.prims.range_prims():
        attrs = ctx.prims[prim.GetPath()]
        for name in attrs.names:
            for r in ctx.resolvers:
                if r.collects(name):
                    value = attrs.raw(name)
                    if value is not None:
                        out[r.name].setdefault(attrs.path, {})[name] = value
    return out


def unused_attributes(ctx, schema_attrs: dict) -> dict:
    """{prim path: sorted names} of collected attributes that no import stage read."""
    out = {}
    for per_prim in schema_attrs.values():
        for path, attrs in per_prim.items():
            used = ctx.prims[path].used
            names = [n for n in attrs if n not in used]
            if names:
                out.setdefault(path, set()).update(names)
    return {p: sorted(n) for p, n in sorted(out.items())}
