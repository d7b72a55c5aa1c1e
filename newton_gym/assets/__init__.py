"""Asset converters: MJCF, URDF and mesh files -> USD, plus the robots shipped with newton_gym.

Example:
    >>> from newton_gym.assets import MjcfConverter, MjcfConverterCfg, robot_path
    >>> usd = MjcfConverter(MjcfConverterCfg(asset_path="my_robot.xml", usd_dir="out")).usd_path  # doctest: +SKIP
    >>> robot_path("ant")  # doctest: +SKIP
    '.../newton_gym/assets/robots/ant.usda'

The USD layout the converters write is documented in :mod:`newton_gym.assets.usd_robot` (robots),
:mod:`newton_gym.assets.mujoco_extract` (joint mapping) and :mod:`newton_gym.assets.mesh` (meshes).
Heavy dependencies (pxr, mujoco, trimesh) are imported only when a conversion runs.
"""

from .base import AssetConverterBase
from .cfg import (
    AssetConverterBaseCfg,
    CollisionPropertiesCfg,
    JointDriveCfg,
    MassPropertiesCfg,
    MeshCollisionPropertiesCfg,
    MeshConverterCfg,
    MjcfConverterCfg,
    NaturalFrequencyGainsCfg,
    PDGainsCfg,
    RigidBodyPropertiesCfg,
    UrdfConverterCfg,
)
from .errors import AssetError
from .mesh import MeshConverter
from .mjcf import MjcfConverter
from .robots import ROBOT_NAMES, robot_path
from .urdf import UrdfConverter

__all__ = [
    "AssetConverterBase",
    "AssetConverterBaseCfg",
    "MjcfConverter",
    "MjcfConverterCfg",
    "UrdfConverter",
    "UrdfConverterCfg",
    "MeshConverter",
    "MeshConverterCfg",
    "JointDriveCfg",
    "PDGainsCfg",
    "NaturalFrequencyGainsCfg",
    "MassPropertiesCfg",
    "RigidBodyPropertiesCfg",
    "CollisionPropertiesCfg",
    "MeshCollisionPropertiesCfg",
    "AssetError",
    "robot_path",
    "ROBOT_NAMES",
]
