"""Refusing non-finite values before a converter writes them into USD.

MuJoCo's compiler accepts ``inf`` and most ``NaN`` values (``mass="nan"``, ``friction="inf"``,
``pos="0 0 1e39"``), and a float64 beyond 3.4e38 turns into ``inf`` in a USD float attribute. Two checks
keep such values out of converted USD:

* :func:`check_compiled_model` looks at the compiled ``MjModel`` and names the MJCF / URDF element, its
  source line (MuJoCo keeps it in the spec element's ``info``) and the field;
* :func:`check_layer_values` scans every attribute of a layer about to be written and names the prim and
  attribute (the last guard, for all converters).
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from newton_gym.errors import AssetWarning
from newton_gym.sim.float_range import FLOAT32_MAX

from .errors import AssetError

__all__ = ["check_compiled_model", "check_layer_values", "warn_non_finite_attributes", "FLOAT32_MAX"]


# MjModel field prefix -> (spec list attribute, element tag in messages), in the order checked: the
# elements a user writes values on first, bodies (whose COM and inertia MuJoCo derives from geoms) last.
_KINDS = {
    "hfield": ("hfields", "hfield"),  # before geom: an hfield geom's size derives from its hfield's
    "geom": ("geoms", "geom"),
    "jnt": ("joints", "joint"),
    "dof": ("joints", "joint"),
    "actuator": ("actuators", "actuator"),
    "site": ("sites", "site"),
    "mesh": ("meshes", "mesh"),
    "tendon": ("tendons", "tendon"),
    "eq": ("equalities", "equality"),
    "body": ("bodies", "body"),
}

# Fields that hold what the file says (checked before fields MuJoCo derives from them, such as
# geom_aabb or dof_M0, so that the error names the value the user wrote).
_AUTHORED = frozenset(
    "geom_size geom_pos geom_quat geom_friction geom_solref geom_solimp geom_solmix geom_margin geom_gap "
    "jnt_pos jnt_axis jnt_range jnt_stiffness jnt_margin jnt_solref jnt_solimp "
    "dof_damping dof_armature dof_frictionloss dof_solref dof_solimp "
    "actuator_gear actuator_ctrlrange actuator_forcerange actuator_actrange actuator_gainprm actuator_biasprm "
    "actuator_dynprm site_pos site_quat site_size mesh_vert mesh_scale tendon_range tendon_stiffness "
    "tendon_damping eq_data eq_solref eq_solimp body_pos body_quat body_mass body_inertia body_ipos body_iquat "
    "hfield_size hfield_data".split()
)

# USD attributes whose schema gives +-inf a meaning ("no limit", "unbreakable").
_INF_MEANS_NO_LIMIT = re.compile(r"(^|:)(lowerLimit|upperLimit|breakForce|breakTorque|maxForce)$")

_LINE = re.compile(r"line (\d+)")
_XML_ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*("[^"]*"|'[^']*')""")
_NON_FINITE_TOKEN = re.compile(r"(?i)(?:^|[\s,])[+-]?(?:nan|inf|infinity)(?:$|[\s,])")


def warn_non_finite_attributes(text: str, path: str) -> int:
    """Warns once per XML attribute whose value holds a ``nan`` or ``inf`` token.

    MuJoCo reads some of these as "unset" (``mass="nan"``) and compiles others into the model (where
    :func:`check_compiled_model` refuses them); either way the file most likely holds a mistake.

    Args:
        text: The XML text.
        path: The file named in the warnings.

    Returns:
        The number of warnings given.
    """
    count = 0
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _XML_ATTRIBUTE.finditer(line):
            value = match.group(2)[1:-1]
            if _NON_FINITE_TOKEN.search(value):
                warnings.warn(
                    f'{path}:{number}: attribute {match.group(1)}="{value}" holds a non-finite number',
                    AssetWarning,
                    stacklevel=3,
                )
                count += 1
    return count


def _bad(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return ~np.isfinite(values) | (np.abs(values) > FLOAT32_MAX)


def _row_to_element(model, prefix: str, field: str, row: int) -> int:
    """Element id of row ``row`` of an MjModel field (DOF rows map to their joint, mesh vertex rows to
    their mesh, elevations to their hfield)."""
    if prefix == "dof":
        return int(model.dof_jntid[row])
    if field == "hfield_data":
        return int(np.searchsorted(model.hfield_adr, row, side="right") - 1)
    if field in ("mesh_vert", "mesh_normal", "mesh_texcoord"):
        starts = model.mesh_vertadr if field == "mesh_vert" else getattr(model, f"{field}adr", model.mesh_vertadr)
        return int(np.searchsorted(starts, row, side="right") - 1)
    return row


def check_compiled_model(model, spec, path: str, lines: bool = True) -> None:
    """Raises on the first non-finite or float32-overflowing value of a compiled model.

    Args:
        model: The ``mujoco.MjModel`` compiled from ``spec``.
        spec: The ``mujoco.MjSpec`` (its elements carry their source line).
        path: The source file named in the error.
        lines: Whether the spec's line numbers are lines of ``path`` (False when it was parsed from a
            rewritten text, as URDFs are).

    Raises:
        AssetError: Names the element (tag and name or index), the MuJoCo field, the value and the line.
    """
    order = list(_KINDS)
    fields = sorted(
        (f for f in dir(model) if f.split("_", 1)[0] in _KINDS),
        key=lambda f: (f not in _AUTHORED, order.index(f.split("_", 1)[0]), f),
    )
    for field in fields:
        prefix = field.split("_", 1)[0]
        if field.startswith(("mesh_graph", "mesh_poly")):
            continue
        try:
            values = getattr(model, field)
        except Exception:  # noqa: BLE001  (some MjModel properties raise when their block is empty)
            continue
        if not isinstance(values, np.ndarray) or values.dtype.kind != "f" or values.size == 0:
            continue
        rows = np.nonzero(_bad(values.reshape(values.shape[0], -1)).any(axis=1))[0]
        if rows.size == 0:
            continue
        row = int(rows[0])
        element = _row_to_element(model, prefix, field, row)
        list_name, tag = _KINDS[prefix]
        elements = list(getattr(spec, list_name, []))
        name, line = "", None
        if 0 <= element < len(elements):
            name = elements[element].name
            match = _LINE.search(getattr(elements[element], "info", "") or "")
            line = int(match.group(1)) if match and lines else None
        label = f"<{tag} name='{name}'>" if name else f"<{tag}> #{element}"
        value = values.reshape(values.shape[0], -1)[row]
        raise AssetError(
            f"{label} has a non-finite or out-of-range value in MuJoCo's {field}: {value.tolist()} "
            f"(|value| must be finite and at most {FLOAT32_MAX:.3g}); the converter does not write it",
            path,
            line,
        )
    for field in ("gravity", "wind", "magnetic"):
        values = np.asarray(getattr(model.opt, field))
        if _bad(values).any():
            raise AssetError(f"<option {field}> is non-finite or out of range: {values.tolist()}", path)
    if not 1e-7 <= float(model.opt.timestep) <= 10.0:  # nan fails too
        raise AssetError(f'<option timestep="{model.opt.timestep}"> must lie in [1e-7, 10] s', path)


def _flatten(value) -> np.ndarray | None:
    """The numbers of a USD attribute value as a float64 array, or None when it holds no floats."""
    if value is None or isinstance(value, (str, bool)):
        return None
    if hasattr(value, "GetReal") and hasattr(value, "GetImaginary"):
        return np.array([value.GetReal(), *value.GetImaginary()], dtype=np.float64)
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return array if array.dtype.kind == "f" else None


def check_layer_values(layer, path: str) -> None:
    """Raises on the first attribute of ``layer`` holding a NaN, or an infinite or float32-overflowing
    value where the schema gives infinity no meaning.

    Args:
        layer: An ``Sdf.Layer`` about to be written.
        path: The source file named in the error.

    Raises:
        AssetError: Names the prim path, the attribute and the value.
    """
    from pxr import Sdf  # noqa: PLC0415

    found = []

    def visit(spec_path) -> None:
        if found or not spec_path.IsPropertyPath():
            return
        spec = layer.GetAttributeAtPath(spec_path)
        if spec is None:
            return
        samples = [spec.default] if spec.HasDefaultValue() else []
        samples += [layer.QueryTimeSample(spec_path, t) for t in layer.ListTimeSamplesForPath(spec_path)]
        for sample in samples:
            values = _flatten(sample)
            if values is None or values.size == 0:
                continue
            if np.isnan(values).any():
                bad = True
            elif _INF_MEANS_NO_LIMIT.search(spec.name):
                bad = bool((np.isfinite(values) & (np.abs(values) > FLOAT32_MAX)).any())
            else:
                bad = bool(_bad(values).any())
            if bad:
                found.append((spec_path, values))
                return

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    if found:
        spec_path, values = found[0]
        raise AssetError(
            f"the converter would write a non-finite or out-of-range value to {spec_path} "
            f"({values.ravel()[:6].tolist()}); refusing",
            path,
        )
