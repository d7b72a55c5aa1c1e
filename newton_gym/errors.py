"""Exceptions raised by newton_gym.

Every error the package raises on bad input derives from :class:`NewtonGymError`, so a user can catch
them all at once; messages name the entity, file, prim or argument at fault and say what would be valid.
"""

__all__ = ["NewtonGymError", "ModelBuildError", "ImportFailedError", "ConfigError"]


class NewtonGymError(Exception):
    """Base class of every error newton_gym raises on bad input."""


class ModelBuildError(NewtonGymError, ValueError):
    """A ModelBuilder call or ``finalize()`` was given an inconsistent model."""


class ImportFailedError(NewtonGymError, ValueError):
    """An asset (USD, MJCF, URDF, mesh) could not be imported; the message names the file and prim."""


class ConfigError(NewtonGymError, ValueError):
    """A configuration file or dictionary holds an unknown key or an invalid value."""
