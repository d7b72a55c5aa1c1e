"""MJCF -> USD through MuJoCo's own parser and compiler.

Equality constraints: connect and weld become loop-closing UsdPhysics joints, joint equalities a
``newton:equality`` prim (:mod:`.usd_robot` gives the attributes, :mod:`.mujoco_equality` the mapping of
MuJoCo's compiled ``eq_data``, site-based ones included); tendon and flex equalities are dropped with a
warning naming each.

Tendons: fixed tendons and spatial tendons through sites become ``MjcTendon`` prims (MuJoCo's own USD
schema: ``mjc:type``, ``rel mjc:path`` to the joints or the sites in path order, ``mjc:path:coef``, the
spring, damper, friction, limit and armature attributes; :mod:`.usd_robot` gives the layout,
:mod:`.mujoco_tendons` the mapping), and actuators on them ``MjcActuator`` prims whose ``mjc:target`` is the
tendon prim. A spatial tendon that wraps around a geom or branches at a pulley is skipped with a warning
naming it and what is not simulated.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from newton_gym.errors import ConfigError

from ._imports import require
from .base import AssetConverterBase
from .cfg import COLLISION_TYPES, MjcfConverterCfg
from .mujoco_equality import SUPPORTED_EQUALITY_TYPES
from .mujoco_extract import ExtractOptions, describe_model
from .mujoco_load import (
    apply_link_density,
    compile_spec,
    load_staged_mjcf,
)
from .naming import sanitize
from .value_checks import check_compiled_model, warn_non_finite_attributes

# MjSpec element lists the USD output does not carry: (attribute, tag, what the user gets instead).
_DROPPED = (
    ("keys", "key", "keyframes other than 'home' are not written (set the start state with joint_q)"),
    ("sensors", "sensor", "sensors are not written; envs compute their observations from the state"),
    (
        "equalities",
        "equality",
        "only connect, weld, joint and tendon equality constraints are converted (flex equalities are not)",
    ),
)


def _written(attribute: str, element) -> bool:
    """Whether the converter writes this element of a ``_DROPPED`` list after all."""
    if attribute == "keys":
        return element.name == "home"  # written as the joints' start state
    if attribute == "equalities":
        return int(element.type) in SUPPORTED_EQUALITY_TYPES
    return False


def warn_dropped_elements(spec, path: str) -> int:
    """One :class:`~newton_gym.errors.AssetWarning` per MJCF element the converter does not write,
    naming the file, the line, the element and what happens instead. Returns the number of warnings."""
    from newton_gym.errors import AssetWarning

    count = 0
    for attribute, tag, consequence in _DROPPED:
        for element in getattr(spec, attribute, []):
            if _written(attribute, element):
                continue
            line = (getattr(element, "info", "") or "").replace("line ", "")
            where = f"{path}:{line}" if line.isdigit() else path
            label = f"<{tag} name='{element.name}'>" if element.name else f"<{tag}>"
            warnings.warn(f"{where}: {label} dropped: {consequence}", AssetWarning, stacklevel=2)
            count += 1
    return count


def warn_unsimulated_options(model, path: str) -> int:
    """One :class:`~newton_gym.errors.AssetWarning` per MuJoCo ``<option>`` the solver does not simulate,
    naming the file and the option (noslip, impratio), and one naming the geoms with ``fluidshape="ellipsoid"``
    in a fluid (MuJoCo's ellipsoid fluid model; their bodies get the inertia-box model, which the solver does
    simulate from ``density``, ``viscosity`` and ``wind``). Returns the number of warnings."""
    from newton_gym.errors import AssetWarning

    mujoco = require("mujoco")
    opt = model.opt
    found = []  # (the option as authored, what the solver does instead)
    if opt.noslip_iterations > 0:
        found.append(
            (
                f"noslip_iterations={opt.noslip_iterations}",
                "no noslip pass (contacts may creep) unless the solver is given it: SolverGeneralized(model, "
                "noslip_iterations=..., noslip_tolerance=...) runs MuJoCo's",
            )
        )
    if opt.impratio != 1.0:  # MuJoCo scales the friction rows' R by 1 / impratio in both cones
        found.append(
            (
                f"impratio={opt.impratio:g}",
                "friction rows use impratio 1 unless the solver is given it: SolverGeneralized(model, "
                "impratio=...) applies it (both cones)",
            )
        )
    for option, instead in found:
        warnings.warn(f"{path}: <option {option}> not simulated: {instead}", AssetWarning, stacklevel=2)
    ellipsoids = []  # geom_fluid[0] is the ellipsoid model's on / off coefficient
    if opt.density > 0.0 or opt.viscosity > 0.0:
        fluid = np.asarray(model.geom_fluid).reshape(model.ngeom, -1)
        for g in np.flatnonzero(fluid[:, 0] > 0.0) if model.ngeom else ():
            ellipsoids.append(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, int(g)) or f"geom {int(g)}")
    if ellipsoids:
        shown = ", ".join(repr(n) for n in ellipsoids[:8]) + (
            f", ... ({len(ellipsoids)} geoms)" if len(ellipsoids) > 8 else ""
        )
        warnings.warn(
            f"{path}: <geom fluidshape='ellipsoid'> not simulated ({shown}): MuJoCo's ellipsoid fluid model; "
            "their bodies get the inertia-box fluid forces instead",
            AssetWarning,
            stacklevel=2,
        )
    return len(found) + bool(ellipsoids)


__all__ = ["MjcfConverter", "warn_unsimulated_options"]

_GAIN_TYPES = ("fixed", "affine", "muscle", "user")
_BIAS_TYPES = ("none", "affine", "muscle", "user")


class MjcfConverter(AssetConverterBase):
    """Converts an MJCF file to a USD articulation (see :mod:`.usd_robot` for the layout and
    :mod:`.mujoco_extract` for how the kinematic tree is mapped).

    The root prim is named after the MJCF ``model`` attribute (or the file name when it has none).
    Lazy conversion also watches included MJCF files and referenced meshes, textures and height fields.

    Example:
        >>> cfg = MjcfConverterCfg(asset_path="ant.xml", usd_dir="out", usd_file_name="ant.usda")
        >>> MjcfConverter(cfg).usd_path  # doctest: +SKIP
        '/.../out/ant.usda'
    """

    # 2: sites written as Xforms tagged mjc:site; 3: hfield geoms written as heightfields; 4: equalities;
    # 5: tendons and tendon actuators; 6: the fluid medium (mjc:option:density / viscosity / wind)
    FORMAT_VERSION = 7
    cfg: MjcfConverterCfg

    def __init__(self, cfg: MjcfConverterCfg):
        """Converts ``cfg.asset_path`` unless an up-to-date USD exists.

        Raises:
            AssetError: Missing, malformed or uncompilable MJCF, or a missing referenced file.
            ConfigError: An invalid configuration value (also a ValueError).
        """
        _validate(cfg)
        self._spec = None
        super().__init__(cfg)

    def _read_sources(self, snapshot) -> None:
        self._spec = load_staged_mjcf(self._asset_path, snapshot)
        for original in snapshot.digests:
            if original.lower().endswith((".xml", ".mjcf")):
                with open(snapshot.copy_path(original), "rb") as stream:
                    warn_non_finite_attributes(stream.read().decode("utf-8", "replace"), original)

    def _convert_asset(self, cfg: MjcfConverterCfg) -> dict:
        spec = self._spec
        if cfg.merge_mesh:
            warnings.warn("MjcfConverterCfg.merge_mesh is not supported; meshes are kept as they are", stacklevel=3)
        apply_link_density(spec, cfg.link_density)
        model = compile_spec(spec, self._asset_path, self._snapshot)
        check_compiled_model(model, spec, self._asset_path)
        stem = os.path.splitext(os.path.basename(self._asset_path))[0]
        name = sanitize(spec.modelname or stem, "robot")
        options = ExtractOptions(
            fix_base=cfg.fix_base,
            collision_from_visuals=cfg.collision_from_visuals,
            approximation=COLLISION_TYPES[cfg.collision_type],
            self_collision=cfg.self_collision,
            import_scene=cfg.import_physics_scene,
            gain_type=cfg.override_gain_type,
            bias_type=cfg.override_bias_type,
            gain_prm=cfg.override_gain_prm,
            bias_prm=cfg.override_bias_prm,
        )
        robot = describe_model(model, name, options)
        _copy_hull_limits(spec, robot)
        warn_dropped_elements(spec, self._asset_path)
        warn_unsimulated_options(model, self._asset_path)
        return self._robot_layers(robot)


def _copy_hull_limits(spec, robot) -> None:
    """MJCF ``<mesh maxhullvert>`` (kept in the spec, not in the compiled model) onto the mesh
    descriptions; the compiled meshes are the spec's, in its order."""
    for desc, mesh in zip(robot.meshes, spec.meshes):
        desc.maxhullvert = int(mesh.maxhullvert)


def _validate(cfg: MjcfConverterCfg) -> None:
    if cfg.collision_type not in COLLISION_TYPES:
        raise ConfigError(f"collision_type '{cfg.collision_type}' is not one of {sorted(COLLISION_TYPES)}")
    if cfg.override_gain_type is not None and cfg.override_gain_type not in _GAIN_TYPES:
        raise ConfigError(f"override_gain_type '{cfg.override_gain_type}' is not one of {_GAIN_TYPES}")
    if cfg.override_bias_type is not None and cfg.override_bias_type not in _BIAS_TYPES:
        raise ConfigError(f"override_bias_type '{cfg.override_bias_type}' is not one of {_BIAS_TYPES}")
    for field_name in ("override_gain_prm", "override_bias_prm"):
        values = getattr(cfg, field_name)
        if values is not None and len(values) > 10:
            raise ConfigError(f"{field_name} holds {len(values)} values; MuJoCo takes at most 10")
