"""Joint drive gains from a :class:`~.cfg.JointDriveCfg`, resolved per joint name."""

from __future__ import annotations

import re
import warnings

from newton_gym.errors import ConfigError

from .cfg import JointDriveCfg, NaturalFrequencyGainsCfg
from .description import DriveDesc, JointDesc, RobotDesc

__all__ = ["per_joint", "apply_joint_drives"]

_DRIVE_TYPES = ("force", "acceleration")
_TARGET_TYPES = ("none", "position", "velocity")


def per_joint(value, joint_name: str):
    """The value for one joint: ``value`` itself, or for a dict the value of the first pattern that
    ``re.fullmatch``-es ``joint_name`` (None when no pattern matches)."""
    if isinstance(value, dict):
        for pattern, item in value.items():
            if re.fullmatch(pattern, joint_name):
                return item
        return None
    return value


def _drive_for(cfg: JointDriveCfg, joint: JointDesc) -> DriveDesc | None:
    stiffness = per_joint(cfg.gains.stiffness, joint.name)
    damping = per_joint(cfg.gains.damping, joint.name)
    if stiffness is None and damping is None:
        return None
    drive_type = per_joint(cfg.drive_type, joint.name) or "force"
    target_type = per_joint(cfg.target_type, joint.name) or "position"
    if drive_type not in _DRIVE_TYPES:
        raise ConfigError(f"joint '{joint.name}': drive_type '{drive_type}' is not one of {_DRIVE_TYPES}")
    if target_type not in _TARGET_TYPES:
        raise ConfigError(f"joint '{joint.name}': target_type '{target_type}' is not one of {_TARGET_TYPES}")
    stiffness, damping = float(stiffness or 0.0), float(damping or 0.0)
    if target_type == "none":
        stiffness = damping = 0.0
    elif target_type == "velocity":
        # The configured stiffness is the gain on velocity error, i.e. the USD drive damping.
        stiffness, damping = 0.0, stiffness
    max_force = float("inf")
    if joint.actfrclimited:
        max_force = float(max(abs(joint.actfrcrange[0]), abs(joint.actfrcrange[1])))
    return DriveDesc(drive_type=drive_type, stiffness=stiffness, damping=damping, max_force=max_force)


def apply_joint_drives(robot: RobotDesc, cfg: JointDriveCfg | None) -> None:
    """Sets ``JointDesc.drive`` on the revolute and prismatic joints of ``robot``.

    The URDF effort limit (MuJoCo's ``actuatorfrcrange``) becomes the drive's ``maxForce``.
    Natural-frequency gains are deprecated: a ``DeprecationWarning`` is issued and no drive is set.

    Raises:
        ConfigError: An unknown drive or target type.
    """
    if cfg is None:
        return
    if isinstance(cfg.gains, NaturalFrequencyGainsCfg):
        warnings.warn(
            "NaturalFrequencyGainsCfg is deprecated and not supported: no joint drive gains are written; "
            "use JointDriveCfg.PDGainsCfg(stiffness=..., damping=...) instead",
            DeprecationWarning,
            stacklevel=4,
        )
        return
    for joint in robot.joints:
        if joint.kind in ("revolute", "prismatic"):
            joint.drive = _drive_for(cfg, joint)
