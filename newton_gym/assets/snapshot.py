"""Private copies of the files a conversion reads, each read exactly once.

A converter parses the copies and hashes the same bytes, so the hash stored in a converted USD always
describes the bytes that USD was made from, even when a source file is rewritten while it is being
converted (the next conversion then sees a different hash and converts again).

The copies mirror the originals' absolute paths under a private folder, so relative references between
them (MJCF ``<include>``, ``meshdir``, ``../meshes/x.stl``) resolve to copies as well.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile

from .errors import AssetError

__all__ = ["SourceSnapshot"]


class SourceSnapshot:
    """A private folder of byte-exact copies of source files, taken once each.

    Use as a context manager; the folder is removed on exit.

    Attributes:
        root: Absolute path of the private folder.
    """

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="newton_gym_sources_")
        self._digests: dict[str, str] = {}

    def __enter__(self) -> SourceSnapshot:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Removes the private folder and every copy in it."""
        shutil.rmtree(self.root, ignore_errors=True)

    def copy_path(self, path: str) -> str:
        """Where the copy of ``path`` lives (or would live) inside :attr:`root`."""
        drive, tail = os.path.splitdrive(os.path.abspath(path))
        parts = [drive.strip(":\\/")] if drive else []
        return os.path.join(self.root, *parts, tail.lstrip("\\/"))

    def stage(self, path: str, referrer: str | None = None) -> str:
        """Copies ``path`` (once; later calls return the same copy) and returns the copy's path.

        Args:
            path: The original file.
            referrer: The file that refers to ``path``, named in the error when ``path`` is missing.

        Raises:
            AssetError: The file cannot be read.
        """
        original = os.path.abspath(path)
        copy = self.copy_path(original)
        if original in self._digests:
            return copy
        try:
            with open(original, "rb") as stream:
                data = stream.read()
        except OSError as exc:
            message = f"cannot read '{original}': {exc.strerror}"
            raise AssetError(message, referrer or original) from None
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        with open(copy, "wb") as stream:
            stream.write(data)
        self._digests[original] = hashlib.sha256(data).hexdigest()
        return copy

    def original_path(self, path: str) -> str:
        """The original of a copy's path (``path`` itself when it is not inside :attr:`root`)."""
        path = os.path.abspath(path)
        if path.startswith(self.root + os.sep):
            return path[len(self.root) :]
        return path

    def original_of(self, text: str) -> str:
        """``text`` with every occurrence of the private folder's prefix removed, so that paths of
        copies quoted in a parser's message read as the originals' paths."""
        return text.replace(self.root, "")

    @property
    def digests(self) -> dict[str, str]:
        """SHA-256 hex digest of every staged file's bytes, keyed by the original absolute path."""
        return dict(self._digests)
