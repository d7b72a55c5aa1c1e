"""Checks of authored physics attributes the UsdPhysics parser would silently drop or misread.

The native parser ignores an attribute authored with the wrong value type (a ``token`` lowerLimit), reads
an unknown ``physics:axis`` token as X and a NaN limit as "unlimited". Every prim of the imported range
is checked here first: a known attribute of the wrong type, a NaN (or, where the value must be finite,
an infinite) value, an unknown token or an out-of-range position is an ImportFailedError naming the
file, prim and attribute.
"""

from __future__ import annotations

import math

__all__ = ["check_attributes", "MAX_POSITION"]

# Largest position magnitude accepted [m]: beyond it float32 arithmetic loses the millimetre (1e6 m has
# a float32 spacing of 0.06 m) and products overflow to inf within a step.
MAX_POSITION = 1.0e6

# The value, not the attribute's type name, is checked: for a schema attribute USD reports the schema's
# type even where a layer authored another (a float3 physics:principalAxes reads back as a 3-vector).
_FLOAT, _VEC3, _QUAT, _TOKEN, _BOOL = "a number", "3 numbers", "a quaternion (4 numbers)", "a token", "a bool"

# name -> (expected value, must be finite, allowed tokens or None)
_RULES = {
    "physics:mass": (_FLOAT, True, None),
    "physics:density": (_FLOAT, True, None),
    "physics:centerOfMass": (_VEC3, True, None),
    "physics:diagonalInertia": (_VEC3, True, None),
    "physics:principalAxes": (_QUAT, True, None),
    "physics:velocity": (_VEC3, True, None),
    "physics:angularVelocity": (_VEC3, True, None),
    "physics:axis": (_TOKEN, False, ("X", "Y", "Z")),
    "physics:lowerLimit": (_FLOAT, False, None),  # +-inf: unlimited
    "physics:upperLimit": (_FLOAT, False, None),
    "physics:localPos0": (_VEC3, True, None),
    "physics:localPos1": (_VEC3, True, None),
    "physics:localRot0": (_QUAT, True, None),
    "physics:localRot1": (_QUAT, True, None),
    "physics:staticFriction": (_FLOAT, True, None),
    "physics:dynamicFriction": (_FLOAT, True, None),
    "physics:restitution": (_FLOAT, True, None),
    "physics:gravityMagnitude": (_FLOAT, False, None),  # -inf: the stage's default
    "physics:gravityDirection": (_VEC3, True, None),
    "physics:jointEnabled": (_BOOL, False, None),
    "physics:collisionEnabled": (_BOOL, False, None),
    "physics:rigidBodyEnabled": (_BOOL, False, None),
    "mjc:option:density": (_FLOAT, True, None),
    "mjc:option:viscosity": (_FLOAT, True, None),
    "mjc:option:wind": (_VEC3, True, None),
    "mjc:gainType": (_TOKEN, False, ("fixed", "affine", "muscle", "user")),
    "mjc:biasType": (_TOKEN, False, ("none", "affine", "muscle", "user")),
    "mjc:dynType": (_TOKEN, False, ("none", "integrator", "filter", "filterexact", "muscle", "user")),
}
_SIZES = {_FLOAT: None, _VEC3: 3, _QUAT: 4}
_POSITIONS = ("physics:localPos0", "physics:localPos1")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check(ctx, attrs, name, rule):
    expected, finite, tokens = rule
    value = attrs.raw(name)
    if value is None:
        return
    if expected == _TOKEN:
        if not isinstance(value, str):
            attrs.fail(name, f"expected {expected}, got {value!r}")
        if value not in tokens:
            attrs.fail(name, f"unknown token {value!r}; valid: {', '.join(tokens)}")
        return
    if expected == _BOOL:
        if not isinstance(value, (bool, int)):
            attrs.fail(name, f"expected {expected}, got {value!r}")
        return
    size = _SIZES[expected]
    numbers = [value] if size is None else list(value) if isinstance(value, (list, tuple)) else None
    if numbers is None or (size is not None and len(numbers) != size) or not all(map(_is_number, numbers)):
        attrs.fail(name, f"expected {expected}, got {value!r}")
    if any(math.isnan(v) for v in numbers):
        attrs.fail(name, "value is NaN" if size is None else f"value {value} holds NaN")
    if finite and any(math.isinf(v) for v in numbers):
        attrs.fail(name, f"value {value} is not finite")
    if name in _POSITIONS and max(abs(float(v)) for v in numbers) * ctx.units.m > MAX_POSITION:
        attrs.fail(name, f"position {value} is beyond {MAX_POSITION:g} m from the body")


def check_attributes(ctx):
    """Check the known physics attributes authored on every prim of the imported range (see module)."""
    for prim in ctx.prims.range_prims():
        attrs = ctx.prims[prim.GetPath()]
        for name in attrs.names.keys() & _RULES.keys():
            _check(ctx, attrs, name, _RULES[name])
