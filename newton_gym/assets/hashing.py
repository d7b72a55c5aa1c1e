"""Content hashes deciding whether a converted USD is up to date.

A conversion hash covers the converter (class name and output format version), every configuration
field except the ones naming input and output locations, and the bytes of the asset file and of every
file it refers to (included MJCF files, meshes, textures, height fields), as the conversion read them.
The hash is stored in the main USD layer's ``customLayerData`` so that it is replaced atomically
together with the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os

from ._imports import require

__all__ = [
    "HASH_KEY",
    "EXCLUDED_CFG_FIELDS",
    "config_fingerprint",
    "conversion_hash",
    "read_stored_metadata",
]

#: Key of the dictionary the converters write into ``customLayerData``.
HASH_KEY = "newton_gym"

#: Configuration fields that do not change the converted content.
EXCLUDED_CFG_FIELDS = frozenset({"asset_path", "usd_dir", "usd_file_name", "force_usd_conversion"})


def config_fingerprint(cfg) -> str:
    """Canonical JSON text of a converter configuration, without :data:`EXCLUDED_CFG_FIELDS`.

    Args:
        cfg: A configuration dataclass instance (nested dataclasses, lists, dicts and tuples allowed).

    Returns:
        Text that is equal for two configurations exactly when their relevant fields are equal.
    """
    fields = dataclasses.asdict(cfg)
    for name in EXCLUDED_CFG_FIELDS:
        fields.pop(name, None)
    payload = {"type": type(cfg).__name__, "fields": fields}
    return json.dumps(payload, sort_keys=True, default=repr, separators=(",", ":"))


def conversion_hash(converter: str, version: int, cfg, asset_path: str, digests: dict[str, str]) -> str:
    """Hash of everything a conversion's output depends on.

    Files are keyed by their path relative to the asset's folder, so moving the asset together with
    the files it refers to keeps the hash.

    Args:
        converter: Name of the converter class.
        version: Output format version of that converter (bumped whenever its output changes).
        cfg: The converter configuration.
        asset_path: Absolute path of the asset file.
        digests: SHA-256 hex digest of the bytes the conversion read, per absolute file path (the asset
            and every file it refers to; see :class:`.snapshot.SourceSnapshot`).

    Returns:
        A SHA-256 hex digest.
    """
    digest = hashlib.sha256()
    digest.update(f"{converter}:{version}\n".encode())
    digest.update(config_fingerprint(cfg).encode())
    base = os.path.dirname(asset_path)
    for path in sorted(digests):
        key = os.path.relpath(path, base).replace(os.sep, "/")
        digest.update(f"\n{key}={digests[path]}".encode())
    return digest.hexdigest()


def read_stored_metadata(usd_path: str) -> dict:
    """The converter metadata stored in a USD layer's ``customLayerData`` (empty if none or unreadable).

    Only the layer header is read (``metadataOnly``), and the layer is opened anonymously, so a layer
    of the same path already open in this process is neither used nor disturbed.
    """
    Sdf = require("pxr.Sdf")
    try:
        layer = Sdf.Layer.OpenAsAnonymous(usd_path, True)
    except Exception:  # noqa: BLE001  (a corrupt or foreign file simply counts as out of date)
        return {}
    if layer is None:
        return {}
    data = layer.customLayerData.get(HASH_KEY, {})
    return dict(data) if isinstance(data, dict) else {}
