"""newton_gym: Gymnasium environments for GPU-vectorized robot learning on USD robots, on NVIDIA Warp.

Importing the package sets Warp's log level to warnings (no start-up banner, no per-module load lines);
set the environment variable ``NEWTON_GYM_VERBOSE=1`` to keep Warp's own level. Before torch is imported it
sets ``OMP_WAIT_POLICY=PASSIVE`` unless the environment sets a policy (:mod:`.openmp_wait`: torch's spinning
OpenMP workers slow the solver's CPU threads).
"""

import os as _os

from .openmp_wait import prefer_passive as _prefer_passive

_prefer_passive()  # before anything below imports torch


def _quiet_warp() -> None:
    if _os.environ.get("NEWTON_GYM_VERBOSE", "") not in ("", "0"):
        return
    import warp as wp

    if hasattr(wp, "LOG_WARNING"):
        wp.config.log_level = wp.LOG_WARNING


_quiet_warp()

from .errors import AssetError, ConfigError, ImportFailedError, ModelBuildError, NewtonGymError  # noqa: E402
from .sim import (  # noqa: E402
    Axis,
    Control,
    EqType,
    GeoType,
    Heightfield,
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
    "Heightfield",
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
