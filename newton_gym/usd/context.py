"""State shared by the import stages: options, the stage, warnings, errors and the provenance record.

Every stage receives one :class:`ImportContext`. Errors go through :meth:`ImportContext.fail` (an
:class:`~newton_gym.errors.ImportFailedError` naming the file and the prim) and warnings through
:meth:`ImportContext.warn` (a :class:`UsdImportWarning`, also kept in ``result["warnings"]``).
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Any

from ..errors import ImportFailedError, ModelBuildError

__all__ = ["UsdImportWarning", "ImportOptions", "ImportContext", "Provenance"]


class UsdImportWarning(UserWarning):
    """Something in a USD stage was skipped or approximated; the message names the file and prim."""


@dataclass
class ImportOptions:
    """The keyword arguments of :func:`newton_gym.usd.add_usd` (see there)."""

    xform: Any = None
    floating: bool | None = None
    enable_self_collisions: bool = True
    root_path: str = "/"
    ignore_paths: tuple = ()
    collapse_fixed_joints: bool = False
    joint_ordering: str | None = "dfs"
    only_load_enabled_joints: bool = True
    apply_scene_gravity: bool = True
    mesh_maxhullvert: int | None = None


@dataclass
class Provenance:
    """Where each resolved value came from: ``values[prim_path][label] = (value, source)``, where
    source is ``"<attribute> (<resolver>)"``, ``"importer default"`` or ``"schema default (<resolver>)"``."""

    values: dict = field(default_factory=dict)

    def record(self, path: str, label: str, value, source: str):
        self.values.setdefault(path, {})[label] = (value, source)


class ImportContext:
    """Everything the stages of one ``add_usd`` call share.

    Attributes:
        stage: the Usd.Stage being imported.
        source_name: file (or layer identifier) named in messages.
        builder: the ModelBuilder written into.
        resolvers: SchemaResolver instances, highest priority first.
        options: the :class:`ImportOptions`.
        prims: :class:`~newton_gym.usd.prims.PrimCache` over the imported range.
        units / frame / scene: filled by :mod:`.stage_scene`.
        warnings: messages of every warning issued.
        provenance: :class:`Provenance` of resolved values.
    """

    def __init__(self, stage, source_name: str, builder, resolvers, options: ImportOptions, prims):
        self.stage = stage
        self.source_name = source_name
        self.builder = builder
        self.resolvers = list(resolvers)
        self.options = options
        self.prims = prims
        self.units = None
        self.frame = None
        self.scene = None
        self.warnings: list[str] = []
        self.provenance = Provenance()

    def _where(self, path) -> str:
        return f"{self.source_name}: {path}" if path else self.source_name

    def fail(self, path, message: str):
        """Raise an ImportFailedError naming the file and ``path``."""
        raise ImportFailedError(f"{self._where(path)}: {message}")

    def warn(self, path, message: str):
        """Issue a UsdImportWarning naming the file and ``path`` and keep it for the result dict."""
        text = f"{self._where(path)}: {message}"
        self.warnings.append(text)
        warnings.warn(text, UsdImportWarning, stacklevel=3)

    @contextlib.contextmanager
    def at(self, path):
        """Turn builder errors raised inside the block into ImportFailedErrors naming ``path``."""
        try:
            yield
        except ImportFailedError:
            raise
        except (ModelBuildError, ValueError, TypeError) as exc:
            raise ImportFailedError(f"{self._where(path)}: {exc}") from exc

    def resolve(self, kind: str, key: str, path: str, default=None, dof=None):
        """Resolve ``key`` of prim kind ``kind`` on prim ``path`` through the resolvers (see
        :func:`newton_gym.usd.resolvers.engine.resolve`)."""
        from .resolvers.engine import resolve

        return resolve(self, kind, key, path, default=default, dof=dof)
