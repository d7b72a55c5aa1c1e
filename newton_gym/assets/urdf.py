"""URDF -> USD through MuJoCo's URDF compiler."""

from __future__ import annotations

import os
import warnings

from newton_gym.errors import ConfigError

from .base import AssetConverterBase
from .cfg import COLLISION_TYPES, UrdfConverterCfg
from .drives import apply_joint_drives
from .mujoco_extract import ExtractOptions, describe_model
from .mujoco_load import apply_link_density, compile_spec, float_root_bodies, load_spec
from .naming import sanitize
from .urdf_prep import prepare_urdf
from .value_checks import check_compiled_model, warn_non_finite_attributes

__all__ = ["UrdfConverter"]

_DEPRECATED = (
    ("root_link_name", None),
    ("convert_mimic_joints_to_normal_joints", False),
    ("replace_cylinders_with_capsules", False),
    ("merge_mesh", False),
)


class UrdfConverter(AssetConverterBase):
    """Converts a URDF file to a USD articulation (layout as for MJCF, see :mod:`.usd_robot`).

    The URDF is compiled by MuJoCo after ``package://`` mesh URIs are resolved (see
    :func:`.urdf_prep.resolve_uri`). URDF-specific mapping:

    * The root link floats (no joint) unless ``fix_base`` welds it to the world.
    * Links joined by fixed joints are merged into their parent when ``merge_fixed_joints`` is set;
      otherwise they are bodies joined by ``FixedJoint``.
    * ``<visual>`` elements become visual-only geoms (``mjc:contype = mjc:conaffinity = 0``, no
      ``CollisionAPI``); ``<collision>`` elements become colliders, written with purpose ``guide``
      when visuals exist.
    * ``<limit effort>`` is MuJoCo's ``actuatorfrcrange`` and the drives' ``maxForce``; ``<dynamics
      damping friction>`` are ``mjc:damping`` and ``mjc:frictionloss``.
    * Mesh files MuJoCo does not read (COLLADA ``.dae``, which needs pycollada; PLY, glTF, ...) are
      converted to OBJ with trimesh before compiling, their declared unit converted to metres (see
      :func:`.mujoco_load.mujoco_mesh_file`); ``<mesh scale>`` applies as for any mesh.

    Lazy conversion also watches the mesh files.
    """

    FORMAT_VERSION = 2
    cfg: UrdfConverterCfg

    def __init__(self, cfg: UrdfConverterCfg):
        """Converts ``cfg.asset_path`` unless an up-to-date USD exists.

        Raises:
            AssetError: Missing or malformed URDF, unresolvable package, missing mesh, a mesh that
                cannot be converted for MuJoCo (named with its link), or a model MuJoCo cannot compile.
            ConfigError: An invalid configuration value (also a ValueError).
        """
        if cfg.collision_type not in COLLISION_TYPES:
            raise ConfigError(f"collision_type '{cfg.collision_type}' is not one of {sorted(COLLISION_TYPES)}")
        for name, default in _DEPRECATED:
            if getattr(cfg, name) != default:
                warnings.warn(f"UrdfConverterCfg.{name} is not supported and is ignored", stacklevel=2)
        self._urdf_text = None
        super().__init__(cfg)

    def _read_sources(self, snapshot) -> None:
        with open(snapshot.copy_path(self._asset_path), "rb") as stream:
            warn_non_finite_attributes(stream.read().decode("utf-8", "replace"), self._asset_path)
        self._urdf_text = prepare_urdf(
            self._asset_path, self.cfg.ros_package_paths, self.cfg.merge_fixed_joints, snapshot
        )

    def _convert_asset(self, cfg: UrdfConverterCfg) -> dict:
        spec = load_spec(self._asset_path, self._urdf_text, snapshot=self._snapshot)
        float_root_bodies(spec)
        apply_link_density(spec, cfg.link_density)
        model = compile_spec(spec, self._asset_path, self._snapshot)
        check_compiled_model(model, spec, self._asset_path, lines=False)
        stem = os.path.splitext(os.path.basename(self._asset_path))[0]
        options = ExtractOptions(
            fix_base=cfg.fix_base,
            collision_from_visuals=cfg.collision_from_visuals,
            approximation=COLLISION_TYPES[cfg.collision_type],
            self_collision=cfg.self_collision,
            import_scene=False,
        )
        robot = describe_model(model, sanitize(spec.modelname or stem, "robot"), options)
        apply_joint_drives(robot, cfg.joint_drive)
        return self._robot_layers(robot)
