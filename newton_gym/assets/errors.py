"""The error the asset converters raise on bad input."""

from __future__ import annotations

import os

from newton_gym.errors import NewtonGymError

__all__ = ["AssetError"]


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
