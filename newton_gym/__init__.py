"""newton_gym: Gymnasium environments for GPU-vectorized robot learning on USD robots, on NVIDIA Warp."""

from .errors import AssetError, ConfigError, ImportFailedError, ModelBuildError, NewtonGymError
from .sim import (
    Axis,
    Control,
    EqType,
    GeoType,
    JointType,
    Mesh,
    Model,
    ModelBuilder,
    State,
    conventions,
    eval_fk,
    eval_ik,
)

__version__ = "0.1.0"

from .envs.registration import register_envs as _register_envs  # noqa: E402

_register_envs()

__all__ = [
    "conventions",
    "eval_fk",
    "eval_ik",
    "ModelBuilder",
    "Model",
    "State",
    "Control",
    "Mesh",
    "Axis",
    "JointType",
    "GeoType",
    "EqType",
    "NewtonGymError",
    "AssetError",
    "ModelBuildError",
    "ImportFailedError",
    "ConfigError",
]
