"""Reading authored prim attributes once, with type and finiteness checks.

:class:`PrimCache` walks the imported prim range once (instance proxies included) and hands out one
:class:`PrimAttrs` per prim, which lists the prim's authored attributes and reads values on demand.
A value of the wrong type or a NaN raises an ImportFailedError naming the file, prim and attribute.
"""

from __future__ import annotations

import math

from ..errors import ImportFailedError
from ._pxr import require_pxr, to_python

__all__ = ["PrimAttrs", "PrimCache", "EXPECTS"]

#: Value kinds a reader may ask for (see :meth:`PrimAttrs.get`).
EXPECTS = ("any", "float", "int", "bool", "token", "floats", "float_or_floats", "vec2", "vec3", "vec5", "vec6")


class PrimAttrs:
    """The authored attributes of one prim.

    Attributes:
        prim: the Usd.Prim.
        path: its path as a string.
        names: authored attribute names (a dict name -> Usd.Attribute).
        used: names some import stage consumed (reported by ``newton-gym inspect``).
    """

    def __init__(self, prim, source_name: str):
        self.prim = prim
        self.path = str(prim.GetPath())
        self.names = {a.GetName(): a for a in prim.GetAuthoredAttributes()}
        self.used: set[str] = set()
        self._source = source_name
        self._values: dict = {}

    def has(self, name: str) -> bool:
        """Whether ``name`` is authored (with a value) on the prim."""
        attr = self.names.get(name)
        return attr is not None and self.raw(name) is not None

    def raw(self, name: str):
        """The authored value of ``name`` converted to plain Python (see ``to_python``), or None."""
        if name not in self._values:
            attr = self.names.get(name)
            self._values[name] = None if attr is None else to_python(attr.Get())
        return self._values[name]

    def type_name(self, name: str) -> str | None:
        """The USD value type name of attribute ``name`` (e.g. "float3"), or None when not authored."""
        attr = self.names.get(name)
        return None if attr is None else str(attr.GetTypeName())

    def fail(self, name: str, message: str):
        raise ImportFailedError(f"{self._source}: {self.path}: attribute {name}: {message}")

    def get(self, name: str, expects: str = "any", mark: bool = True):
        """The authored value of ``name`` checked against ``expects`` (one of EXPECTS), or None.

        Raises:
            ImportFailedError: the value has the wrong type or holds NaN.
        """
        value = self.raw(name)
        if value is None:
            return None
        if mark:
            self.used.add(name)
        return _coerce(self, name, value, expects)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _finite_float(attrs, name, v) -> float:
    if not _is_number(v):
        attrs.fail(name, f"expected a number, got {type(v).__name__} {v!r}")
    v = float(v)
    if math.isnan(v):
        attrs.fail(name, "value is NaN")
    return v


def _coerce(attrs: PrimAttrs, name: str, value, expects: str):
    if expects == "any":
        return value
    if expects == "float":
        return _finite_float(attrs, name, value)
    if expects == "int":
        if not _is_number(value) or float(value) != int(value):
            attrs.fail(name, f"expected an integer, got {value!r}")
        return int(value)
    if expects == "bool":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, (bool, int)):
            attrs.fail(name, f"expected a bool, got {value!r}")
        return bool(value)
    if expects == "token":
        if not isinstance(value, str):
            attrs.fail(name, f"expected a token, got {value!r}")
        return value
    if expects == "float_or_floats" and not isinstance(value, (list, tuple)):
        return _finite_float(attrs, name, value)
    if not isinstance(value, (list, tuple)):
        attrs.fail(name, f"expected an array of numbers, got {value!r}")
    out = [_finite_float(attrs, name, v) for v in value]
    if expects.startswith("vec") and len(out) != int(expects[3:]):
        attrs.fail(name, f"expected {expects[3:]} values, got {len(out)}")
    return out


class PrimCache:
    """PrimAttrs per prim path, and the prims of the imported range.

    Args:
        stage: the Usd.Stage.
        source_name: file named in error messages.
        root_path: root of the imported range.
        ignore_paths: prim paths excluded (with their descendants).
    """

    def __init__(self, stage, source_name: str, root_path: str = "/", ignore_paths=()):
        self.stage = stage
        self.source_name = source_name
        self.root_path = root_path
        self.ignore_paths = tuple(str(p).rstrip("/") for p in ignore_paths)
        self._attrs: dict[str, PrimAttrs] = {}
        self._range = None

    def __getitem__(self, path) -> PrimAttrs:
        path = str(path)
        attrs = self._attrs.get(path)
        if attrs is None:
            prim = self.stage.GetPrimAtPath(path)
            if not prim:
                raise ImportFailedError(f"{self.source_name}: {path}: prim does not exist")
            attrs = self._attrs[path] = PrimAttrs(prim, self.source_name)
        return attrs

    def cached(self):
        """The PrimAttrs read so far (path -> PrimAttrs)."""
        return self._attrs

    def ignored(self, path: str) -> bool:
        return any(path == p or path.startswith(p + "/") for p in self.ignore_paths)

    def range_prims(self) -> list:
        """Every prim under ``root_path`` (instance proxies included), minus the ignored paths."""
        if self._range is None:
            pxr = require_pxr()
            root = self.stage.GetPrimAtPath(self.root_path)
            if not root:
                raise ImportFailedError(f"{self.source_name}: root_path {self.root_path} does not exist")
            it = iter(pxr.Usd.PrimRange(root, pxr.Usd.TraverseInstanceProxies()))
            prims = []
            for prim in it:
                if self.ignore_paths and self.ignored(str(prim.GetPath())):
                    it.PruneChildren()
                    continue
                prims.append(prim)
            self._range = prims
        return self._range
