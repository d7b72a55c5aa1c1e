"""Exceptions raised by newton_gym.

Every error the package raises on bad input derives from :class:`NewtonGymError`, so a user can catch
them all at once; messages name the entity, file, prim or argument at fault and say what would be valid.
"""

import os

__all__ = [
    "NewtonGymError",
    "ModelBuildError",
    "ModelBuildTypeError",
    "ImportFailedError",
    "ImportOptionTypeError",
    "ConfigError",
    "CheckpointError",
    "UnsafeCheckpointError",
    "ExportError",
    "AssetError",
    "AssetWarning",
    "RenderError",
    "SolverError",
    "SolverStateError",
    "EnvError",
    "EnvTypeError",
    "ViewError",
]


class NewtonGymError(Exception):
    """Base class of every error newton_gym raises on bad input."""


class ModelBuildError(NewtonGymError, ValueError):
    """A ModelBuilder call or ``finalize()`` was given an inconsistent model."""


class ImportFailedError(NewtonGymError, ValueError):
    """An asset (USD, MJCF, URDF, mesh) could not be imported; the message names the file and prim."""


class ImportOptionTypeError(ImportFailedError, TypeError):
    """add_usd (or a converter) was given an option of the wrong type; also a TypeError."""


class ConfigError(NewtonGymError, ValueError):
    """A configuration file or dictionary holds an unknown key or an invalid value."""


class CheckpointError(ConfigError):
    """A file given as a checkpoint is missing, unreadable, or not one ``newton-gym train`` writes (nor a
    shipped policy); the message names the file and what a checkpoint holds. Derives from ConfigError (a
    checkpoint carries its run's configuration) and so from ValueError.

    Attributes:
        path: Absolute path of the file at fault.
    """

    def __init__(self, message: str, path: str | os.PathLike):
        self.path = os.path.abspath(os.fspath(path))
        super().__init__(f"{self.path}: {message}")


class UnsafeCheckpointError(CheckpointError):
    """A checkpoint's pickle refers to a Python object other than tensors, containers, numbers and strings
    (a class, a function): loading it could run code, so it is refused before that object is built."""


class ExportError(NewtonGymError, RuntimeError):
    """An exported policy file (TorchScript, ONNX) does not give the actions of the torch policy it was
    made from; the message names the file and the largest difference."""


class AssetError(NewtonGymError, ValueError):
    """An asset file (MJCF, URDF, mesh) is missing, malformed or refers to something that is missing.

    The message always names the file at fault, and the line where the parser reports one. It derives
    from :class:`ValueError` as well, since the converter API documents a ``ValueError`` for a missing
    asset file.

    Attributes:
        path: Absolute path of the file at fault, or None when no single file is to blame.
        line: 1-based line number in ``path`` where the parser located the problem, or None.
    """

    def __init__(self, message: str, path: str | os.PathLike | None = None, line: int | None = None):
        self.path = None if path is None else os.path.abspath(os.fspath(path))
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path if line is None else f"{self.path}:{line}"
            where += ": "
        super().__init__(where + message)


class RenderError(NewtonGymError, ValueError):
    """A renderer, camera, video writer or recorder was given an invalid argument.

    Derives from :class:`ValueError` so callers may catch either; the message names the argument at
    fault and says what would be valid.
    """


class SolverError(NewtonGymError, ValueError):
    """A solver was given an invalid argument; the message names the argument and the valid values.

    Derives from :class:`ValueError` so callers may catch either.
    """


class SolverStateError(NewtonGymError, RuntimeError):
    """A solver method was called before what it needs (e.g. ``replay()`` before ``capture()``)."""


class ModelBuildTypeError(ModelBuildError, TypeError):
    """A ModelBuilder call got an argument it does not take (also a TypeError, as Python raises for one)."""


class EnvError(NewtonGymError, ValueError):
    """An environment method was given an invalid argument: actions of the wrong shape or with non-finite
    values (under ``nan_action="raise"``), a bad reset mask or render mode. Derives from ValueError."""


class EnvTypeError(EnvError, TypeError):
    """Actions of a type that is not real numbers (strings, complex, bool, objects). Derives from TypeError."""


class WrapperError(NewtonGymError, ValueError):
    """A wrapper of :mod:`newton_gym.wrappers` was given an invalid argument, or an environment or ``info`` it
    cannot work with; the message names the argument or key at fault. Derives from ValueError."""


class AssetWarning(UserWarning):
    """An asset file holds something the converter keeps or skips but that is probably a mistake (a
    non-finite number MuJoCo reads as "unset", say); the message names the file, line and attribute."""


class ViewError(NewtonGymError, ValueError):
    """The browser viewer (``newton-gym view``) was given an invalid argument: a world, spacing, body
    poses of the wrong shape, or a run directory without checkpoints. Derives from ValueError."""
