"""Custom attributes declared in USD (seed 000, "Custom Attributes from USD").

Declaration: on the PhysicsScene, ``custom <type> newton:[<namespace>:]<name> = <default>`` with
customData ``assignment`` (model, state, control, contact) and ``frequency`` (body, shape, joint,
joint_dof, joint_coord, articulation). The Warp type is inferred from the USD type (float/double ->
float32, int -> int32, bool, float2/3/4 -> vec2/3/4, quatf/quatd -> quat with components reordered
to x, y, z, w). Values: the same attribute name authored on the imported prims of that frequency;
articulation values only on ArticulationRootAPI prims. Attributes declared on the builder before the
import are filled the same way. Per-DOF / per-coordinate values: one value for all of a joint's DOFs
or an array with one value per DOF.

Per-body values the builder has no column for (gravity_enabled, linear_damping, angular_damping) are
stored as model attributes in the ``usd`` namespace (``model.usd.gravity_enabled``, ...) when a body
authors a non-default value.
"""

from __future__ import annotations

import math

from ..sim.types import JointType, joint_coord_count
from ._pxr import require_pxr
from .stage_bodies import BODY_EXTRA_DEFAULTS

__all__ = ["declare_scene_attributes", "apply_custom_values", "apply_body_extras", "FREQUENCIES"]

FREQUENCIES = ("body", "shape", "joint", "joint_dof", "joint_coord", "articulation")
_VEC = {
    2: ("float2", "double2", "half2", "texCoord2f", "texCoord2d"),
    3: (
        "float3",
        "double3",
        "half3",
        "vector3f",
        "vector3d",
        "point3f",
        "point3d",
        "normal3f",
        "normal3d",
        "color3f",
        "color3d",
    ),
    4: ("float4", "double4", "half4", "color4f", "color4d"),
}


def _warp_type(type_name: str):
    import warp as wp

    simple = {
        "float": wp.float32,
        "double": wp.float32,
        "half": wp.float32,
        "int": wp.int32,
        "uint": wp.int32,
        "bool": wp.bool,
        "quatf": wp.quat,
        "quatd": wp.quat,
        "quath": wp.quat,
    }
    if type_name in simple:
        return simple[type_name]
    for n, names in _VEC.items():
        if type_name in names:
            return {2: wp.vec2, 3: wp.vec3, 4: wp.vec4}[n]
    return None


def _split(name: str):
    parts = name.split(":")[1:]
    if len(parts) == 1:
        return None, parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None, None


def _declare_one(ctx, attrs, name, attr, data):
    path = attrs.path
    namespace, short = _split(name)
    if short is None:
        attrs.fail(name, "custom attribute names are newton:<name> or newton:<namespace>:<name>")
    assignment = str(data.get("assignment", "model"))
    frequency = str(data.get("frequency", ""))
    if frequency not in FREQUENCIES:
        attrs.fail(name, f"customData frequency {frequency!r} is not one of {', '.join(FREQUENCIES)}")
    dtype = _warp_type(str(attr.GetTypeName()))
    if dtype is None:
        attrs.fail(name, f"USD type {attr.GetTypeName()} is not supported for custom attributes")
    default = _check_value(attrs, name, attrs.get(name, "any"), dtype)
    with ctx.at(path):
        ctx.builder.add_custom_attribute(
            short, dtype, assignment=assignment, frequency=frequency, namespace=namespace, default=default
        )
    return f"{namespace}:{short}" if namespace else short


def declare_scene_attributes(ctx) -> list:
    """Declare the custom attributes authored on the PhysicsScene; returns their keys."""
    if ctx.scene is None or ctx.scene.path is None:
        return []
    attrs = ctx.prims[ctx.scene.path]
    keys = []
    for name, attr in attrs.names.items():
        if not name.startswith("newton:"):
            continue
        data = attr.GetCustomData()
        if "assignment" in data or "frequency" in data:
            keys.append(_declare_one(ctx, attrs, name, attr, data))
    return keys


def _length(dtype) -> int:
    return int(getattr(dtype, "_length_", 1))


def _check_value(attrs, name, value, dtype):
    """Validate one value (scalar or vector) against ``dtype``."""
    n = _length(dtype)
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) != n:
        attrs.fail(name, f"expected {n} value(s) for {getattr(dtype, '__name__', dtype)}, got {value!r}")
    for v in items:
        if isinstance(v, str) or v is None:
            attrs.fail(name, f"expected numbers, got {value!r}")
        if isinstance(v, float) and math.isnan(v):
            attrs.fail(name, "value is NaN")
    return tuple(items) if n > 1 else items[0]


def _per_entity_values(attrs, name, value, dtype, count):
    """Values for ``count`` DOFs/coordinates: one broadcast value or one per entry."""
    n = _length(dtype)
    per_entry = isinstance(value, list) and (n == 1 or (value and isinstance(value[0], (list, tuple))))
    if not per_entry:
        return [_check_value(attrs, name, value, dtype)] * count
    if len(value) != count:
        attrs.fail(name, f"has {len(value)} values for a joint with {count} entries")
    return [_check_value(attrs, name, v, dtype) for v in value]


def _entities(ctx, out) -> dict:
    """frequency -> {prim path: [entity indices]}."""
    P = require_pxr().UsdPhysics
    tj = ctx.builder.tables["joint"]
    dof, coord = {}, {}
    for path, j in out.joint.items():
        n_dof = int(tj.value("lin_count", j)) + int(tj.value("ang_count", j))
        start = int(tj.value("qd_start", j))
        dof[path] = list(range(start, start + n_dof))
        q0 = int(tj.value("q_start", j))
        coord[path] = list(range(q0, q0 + joint_coord_count(JointType(int(tj.value("type", j))), n_dof)))
    arts = {}
    for prim, index in zip(out.component_prims, out.component_articulation):
        if prim is not None and ctx.stage.GetPrimAtPath(prim).HasAPI(P.ArticulationRootAPI):
            arts.setdefault(prim, []).append(index)
    return {
        "body": {p: [i] for p, i in out.body.items()},
        "shape": {p: [i] for p, i in out.shape.items()},
        "joint": {p: [i] for p, i in out.joint.items()},
        "joint_dof": dof,
        "joint_coord": coord,
        "articulation": arts,
    }


def apply_custom_values(ctx, out):
    """Set every declared custom attribute from the values authored on the imported prims."""
    entities = _entities(ctx, out)
    for key, cattr in ctx.builder.custom_attributes.items():
        if cattr.frequency not in entities:
            continue
        name = f"newton:{key}"
        for path, indices in entities[cattr.frequency].items():
            attrs = ctx.prims[path]
            if name not in attrs.names:
                continue
            value = attrs.get(name, "any")
            if cattr.frequency in ("joint_dof", "joint_coord"):
                values = _per_entity_values(attrs, name, value, cattr.dtype, len(indices))
            else:
                values = [_check_value(attrs, name, value, cattr.dtype)] * len(indices)
            for i, v in zip(indices, values):
                ctx.builder.set_custom_attribute(key, i, v)
        if cattr.frequency == "articulation":
            _warn_misplaced(ctx, entities, name)


def _warn_misplaced(ctx, entities, name):
    for kind in ("body", "joint", "shape"):
        for path in entities[kind]:
            if name in ctx.prims[path].names:
                ctx.warn(
                    path,
                    f"{name} has articulation frequency and is only read on ArticulationRootAPI prims; ignored here",
                )


def apply_body_extras(ctx, out, bodies) -> list:
    """Store per-body extras that differ from their defaults as ``usd:<name>`` model attributes."""
    import warp as wp

    keys = []
    for key, default in BODY_EXTRA_DEFAULTS.items():
        values = {
            out.body[p]: b.extras[key]
            for p, b in bodies.items()
            if p in out.body and b.extras.get(key, default) != default
        }
        if not values:
            continue
        dtype = wp.bool if isinstance(default, bool) else wp.float32
        ctx.builder.add_custom_attribute(
            key, dtype, assignment="model", frequency="body", namespace="usd", default=default
        )
        for index, value in values.items():
            ctx.builder.set_custom_attribute(f"usd:{key}", index, value)
        keys.append(f"usd:{key}")
    return keys
