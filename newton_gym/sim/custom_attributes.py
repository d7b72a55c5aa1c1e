"""User-defined per-entity attributes that land on Model, State or Control."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import warp as wp

from ..errors import ModelBuildError

__all__ = ["CustomAttribute", "CustomAttributeRegistry", "FREQUENCY_KIND", "ASSIGNMENTS"]

# frequency name -> builder table kind ("world" is handled separately)
FREQUENCY_KIND = {
    "body": "body",
    "shape": "shape",
    "joint": "joint",
    "joint_dof": "dof",
    "joint_coord": "coord",
    "articulation": "articulation",
    "particle": "particle",
    "equality_constraint": "equality",
    "tendon": "tendon",
    "world": "world",
}
ASSIGNMENTS = ("model", "state", "control", "contact")


@dataclass
class CustomAttribute:
    """A declared custom attribute.

    Attributes:
        name: attribute name (no namespace).
        dtype: Warp dtype of one value (wp.float32, wp.int32, wp.bool, wp.vec3, wp.quat, ...).
        frequency: entity kind it is stored per (see FREQUENCY_KIND).
        assignment: "model", "state", "control" or "contact".
        namespace: optional namespace; the attribute is then ``obj.<namespace>.<name>``.
        default: value of entities that did not set one (zero when None).
        values: entity index -> value.
    """

    name: str
    dtype: Any = wp.float32
    frequency: str = "body"
    assignment: str = "model"
    namespace: str | None = None
    default: Any = None
    values: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.namespace}:{self.name}" if self.namespace else self.name

    def validate(self):
        if self.frequency not in FREQUENCY_KIND:
            raise ModelBuildError(
                f"custom attribute {self.key!r}: frequency {self.frequency!r} is not one of {sorted(FREQUENCY_KIND)}"
            )
        if self.assignment not in ASSIGNMENTS:
            raise ModelBuildError(
                f"custom attribute {self.key!r}: assignment {self.assignment!r} is not one of {ASSIGNMENTS}"
            )
        if not self.name.isidentifier():
            raise ModelBuildError(f"custom attribute name {self.name!r} must be a Python identifier")


def _dtype_length(dtype) -> int:
    return int(getattr(dtype, "_length_", 1))


def _np_scalar(dtype):
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    return {
        wp.float32: np.float32,
        wp.float64: np.float64,
        wp.int32: np.int32,
        wp.int64: np.int64,
        wp.bool: np.bool_,
        wp.uint8: np.uint8,
        wp.uint32: np.uint32,
        wp.float16: np.float16,
    }[scalar]


class CustomAttributeRegistry:
    """The custom attributes declared on one builder."""

    def __init__(self):
        self.attributes: dict[str, CustomAttribute] = {}

    def declare(self, attr: CustomAttribute):
        attr.validate()
        old = self.attributes.get(attr.key)
        if old is not None:
            if (old.dtype, old.frequency, old.assignment) != (attr.dtype, attr.frequency, attr.assignment):
                raise ModelBuildError(
                    f"custom attribute {attr.key!r} already declared with another dtype, frequency or assignment"
                )
            return old
        self.attributes[attr.key] = attr
        return attr

    def set_values(self, frequency: str, index: int, values: dict | None):
        """Store ``values`` ({key: value}) for entity ``index`` of ``frequency``."""
        for key, value in (values or {}).items():
            attr = self.attributes.get(key)
            if attr is None:
                raise ModelBuildError(f"custom attribute {key!r} is not declared; call add_custom_attribute() first")
            if attr.frequency != frequency:
                raise ModelBuildError(f"custom attribute {key!r} has frequency {attr.frequency!r}, not {frequency!r}")
            attr.values[index] = value

    def build_arrays(self, counts: dict, device) -> dict[str, tuple[CustomAttribute, np.ndarray]]:
        """Dense numpy arrays per attribute key, sized by ``counts[frequency kind]``."""
        out = {}
        for key, attr in self.attributes.items():
            n = counts[FREQUENCY_KIND[attr.frequency]]
            length = _dtype_length(attr.dtype)
            shape = (n,) if length == 1 else (n, length)
            arr = np.zeros(shape, dtype=_np_scalar(attr.dtype))
            if attr.default is not None:
                arr[:] = np.asarray(attr.default)
            for i, v in attr.values.items():
                if i >= n:
                    raise ModelBuildError(
                        f"custom attribute {key!r}: index {i} out of range for {n} {attr.frequency} entities"
                    )
                arr[i] = np.asarray(v)
            out[key] = (attr, arr)
        return out


def attach(target, attr: CustomAttribute, array):
    """Set ``array`` as ``target.<name>`` or ``target.<namespace>.<name>``. User-declared attributes are
    not among a Model's declared fields, so they are set past its field check."""
    if attr.namespace:
        ns = getattr(target, attr.namespace, None)
        if ns is None:
            ns = SimpleNamespace()
            object.__setattr__(target, attr.namespace, ns)
        setattr(ns, attr.name, array)
    else:
        object.__setattr__(target, attr.name, array)
