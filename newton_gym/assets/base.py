"""Base class of the asset converters: output naming, lazy conversion and atomic writing.

Conversion is lazy: the USD is regenerated only when it is missing, when the asset file, a file it
refers to (meshes, included MJCF files) or the configuration changed (see :mod:`.hashing`), or when
``force_usd_conversion`` is set. Every source file is read once into a private copy
(:class:`.snapshot.SourceSnapshot`); the hash is taken of those bytes and the conversion parses the
copies, so a source rewritten during a conversion can never leave a stale USD behind.

Writing is atomic: every output layer is first exported into a private temporary folder inside
``usd_dir`` and then moved into place with :func:`os.replace` (the main file last, since it carries the
hash). Several processes converting the same asset at once therefore never leave a partial USD: a
reader sees either a complete old file or a complete new one. If a conversion fails, its temporary
folder is removed, and so is ``usd_dir`` when the conversion created it and it is still empty.
"""

from __future__ import annotations

import abc
import datetime
import os
import secrets
import shutil
import tempfile

from ._imports import require
from .cfg import AssetConverterBaseCfg
from .errors import AssetError
from .hashing import HASH_KEY, conversion_hash, read_stored_metadata
from .snapshot import SourceSnapshot
from .value_checks import check_layer_values

__all__ = ["AssetConverterBase", "default_usd_dir", "resolve_usd_file_name"]

_USD_EXTENSIONS = (".usd", ".usda", ".usdc")


def default_usd_dir() -> str:
    """A fresh output folder path ``<tmp>/newton_gym/usd_<YYYYmmdd>_<HHMMSS>_<random>`` (not created)."""
    stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S")
    return os.path.join(tempfile.gettempdir(), "newton_gym", f"usd_{stamp}_{secrets.token_hex(4)}")


def resolve_usd_file_name(usd_file_name: str | None, asset_path: str) -> str:
    """The output file name: the given one (``.usd`` appended unless it ends in a USD extension), or the
    asset's file name with its extension replaced by ``.usd``."""
    if usd_file_name is None:
        return os.path.splitext(os.path.basename(asset_path))[0] + ".usd"
    if usd_file_name.lower().endswith(_USD_EXTENSIONS):
        return usd_file_name
    return usd_file_name + ".usd"


class AssetConverterBase(abc.ABC):
    """Converts an asset file to USD on construction, lazily and atomically.

    Subclasses implement :meth:`_convert_asset` (build the layers in memory) and may override
    :meth:`_read_sources` (read the asset and the files it refers to through the snapshot) and set
    :attr:`FORMAT_VERSION` (bump it whenever their output changes).

    Attributes:
        cfg: The configuration the converter was built with.
        converted: True when this instance wrote the USD, False when an up-to-date USD was reused.
    """

    FORMAT_VERSION = 1

    def __init__(self, cfg: AssetConverterBaseCfg):
        """Converts ``cfg.asset_path`` unless an up-to-date USD already exists.

        Args:
            cfg: The configuration.

        Raises:
            AssetError: The asset file does not exist, is malformed or refers to a missing file.
                (AssetError is also a ValueError.)
        """
        self.cfg = cfg
        self.converted = False
        self._asset_path = os.path.abspath(os.fspath(cfg.asset_path))
        if not os.path.isfile(self._asset_path):
            raise AssetError("asset file does not exist", self._asset_path)
        self._usd_dir = os.path.abspath(cfg.usd_dir) if cfg.usd_dir is not None else default_usd_dir()
        self._usd_file_name = resolve_usd_file_name(cfg.usd_file_name, self._asset_path)
        with SourceSnapshot() as snapshot:
            self._snapshot = snapshot
            try:
                snapshot.stage(self._asset_path)
                self._read_sources(snapshot)
                self._hash = conversion_hash(
                    type(self).__name__, self.FORMAT_VERSION, cfg, self._asset_path, snapshot.digests
                )
                if cfg.force_usd_conversion or not self._is_up_to_date():
                    self._write_atomically()
                    self.converted = True
            finally:
                self._snapshot = None

    # ----------------------------------------------------------------------------------- properties
    @property
    def usd_dir(self) -> str:
        """Absolute path of the folder holding the generated USD files."""
        return self._usd_dir

    @property
    def usd_file_name(self) -> str:
        """File name of the generated USD file."""
        return self._usd_file_name

    @property
    def usd_path(self) -> str:
        """Absolute path of the generated USD file."""
        return os.path.join(self._usd_dir, self._usd_file_name)

    @property
    def usd_instanceable_meshes_path(self) -> str:
        """Path, relative to :attr:`usd_dir`, of the layer holding the mesh data (written only when
        ``make_instanceable`` is set and the asset has meshes)."""
        stem, ext = os.path.splitext(self._usd_file_name)
        return f"Props/{stem}_meshes{ext}"

    @property
    def asset_hash(self) -> str:
        """The conversion hash stored in the generated USD."""
        return self._hash

    # ------------------------------------------------------------------------------ for subclasses
    def _read_sources(self, snapshot: SourceSnapshot) -> None:
        """Reads the files the asset refers to through ``snapshot.stage`` and keeps what it parsed.

        The asset file itself is already staged; its copy is ``snapshot.copy_path(self._asset_path)``.
        Subclasses parse only copies, so that the conversion uses exactly the hashed bytes.

        Raises:
            AssetError: The asset is malformed or a referenced file is missing.
        """
        return None

    @property
    def _asset_copy(self) -> str:
        """Path of the private copy of the asset file (valid during conversion only)."""
        return self._snapshot.copy_path(self._asset_path)

    @abc.abstractmethod
    def _convert_asset(self, cfg) -> dict:
        """Builds the output layers in memory.

        Args:
            cfg: The configuration (same as ``self.cfg``).

        Read sources only through ``self._snapshot`` copies (see :meth:`_read_sources`).

        Returns:
            ``{relative path: Sdf.Layer}``; the key :attr:`usd_file_name` is the main layer, other keys
            (e.g. :attr:`usd_instanceable_meshes_path`) are written first.
        """

    def _robot_layers(self, robot) -> dict:
        """The output layers of a described robot (MJCF and URDF converters): the main layer, plus the
        mesh layer it references when ``make_instanceable`` is set."""
        from .usd_robot import write_robot

        meshes_rel = "./" + self.usd_instanceable_meshes_path if self.cfg.make_instanceable else None
        main, meshes = write_robot(robot, meshes_rel)
        layers = {self.usd_file_name: main}
        if meshes is not None:
            layers[self.usd_instanceable_meshes_path] = meshes
        return layers

    # ---------------------------------------------------------------------------------- internals
    def _is_up_to_date(self) -> bool:
        if not os.path.isfile(self.usd_path):
            return False
        stored = read_stored_metadata(self.usd_path)
        if stored.get("assetHash") != self._hash:
            return False
        sidecars = [rel for rel in stored.get("sidecars", "").split(";") if rel]
        return all(os.path.isfile(os.path.join(self._usd_dir, rel)) for rel in sidecars)

    def _write_atomically(self) -> None:
        created = not os.path.isdir(self._usd_dir)
        layers = self._convert_asset(self.cfg)
        for layer in layers.values():
            check_layer_values(layer, self._asset_path)
        os.makedirs(self._usd_dir, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".converting_", dir=self._usd_dir)
        try:
            self._stamp(layers)
            order = sorted(k for k in layers if k != self._usd_file_name) + [self._usd_file_name]
            for rel in order:
                staged = os.path.join(staging, rel)
                os.makedirs(os.path.dirname(staged), exist_ok=True)
                if not layers[rel].Export(staged):
                    raise AssetError(f"could not write the USD layer '{rel}'", self._asset_path)
            for rel in order:
                final = os.path.join(self._usd_dir, rel)
                os.makedirs(os.path.dirname(final), exist_ok=True)
                os.replace(os.path.join(staging, rel), final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            if created:
                _remove_if_empty(self._usd_dir)
            raise
        shutil.rmtree(staging, ignore_errors=True)
        _reload_open_layers([os.path.join(self._usd_dir, rel) for rel in order])

    def _stamp(self, layers: dict) -> None:
        """Records the hash, the converter and the side layers in the main layer's customLayerData."""
        main = layers[self._usd_file_name]
        data = dict(main.customLayerData)
        data[HASH_KEY] = {
            "assetHash": self._hash,
            "converter": type(self).__name__,
            "source": os.path.basename(self._asset_path),
            "sidecars": ";".join(sorted(k for k in layers if k != self._usd_file_name)),
        }
        main.customLayerData = data


def _remove_if_empty(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def _reload_open_layers(paths: list[str]) -> None:
    """Makes layers of these paths already open in this process pick up the new file contents.

    ``Usd.Stage.Open`` reuses an open layer of the same path, which would otherwise keep showing the
    previous conversion.
    """
    Sdf = require("pxr.Sdf")
    for path in paths:
        layer = Sdf.Layer.Find(path)
        if layer is not None:
            layer.Reload(force=True)
