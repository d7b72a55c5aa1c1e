"""One entry point converting any supported file, chosen by its format (used by the CLI)."""

from __future__ import annotations

import os

from .errors import AssetError
from .mesh import MESH_FORMATS

__all__ = ["detect_format", "convert_file"]


def detect_format(path: str) -> str:
    """ "mjcf", "urdf" or "mesh", from the extension (and for ``.xml`` the root element).

    Raises:
        AssetError: The file is missing or of an unknown kind.
    """
    if not os.path.isfile(path):
        raise AssetError("asset file does not exist", path)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".urdf":
        return "urdf"
    if ext in (*MESH_FORMATS, ".fbx"):
        return "mesh"
    if ext in (".xml", ".mjcf"):
        from .mujoco_load import parse_xml  # noqa: PLC0415

        return "urdf" if parse_xml(path).getroot().tag == "robot" else "mjcf"
    raise AssetError(
        f"unknown asset format '{ext or '(none)'}'; expected MJCF (.xml), URDF (.urdf) "
        f"or a mesh ({', '.join(MESH_FORMATS)})",
        path,
    )


def convert_file(
    path: str,
    usd_dir: str | None = None,
    usd_file_name: str | None = None,
    force: bool = False,
    make_instanceable: bool = True,
    fix_base: bool = False,
):
    """Converts an MJCF, URDF or mesh file with default settings.

    Args:
        path: The asset file.
        usd_dir: Output folder (None: a fresh temporary folder).
        usd_file_name: Output file name (None: the asset's name with ``.usd``).
        force: Convert even if an up-to-date USD exists.
        make_instanceable: See :class:`~.cfg.AssetConverterBaseCfg`.
        fix_base: Weld the robot's root to the world (MJCF and URDF only).

    Returns:
        The converter instance (``.usd_path``, ``.converted``).

    Raises:
        AssetError: Bad input file.
    """
    from .cfg import MeshConverterCfg, MjcfConverterCfg, UrdfConverterCfg  # noqa: PLC0415
    from .mesh import MeshConverter  # noqa: PLC0415
    from .mjcf import MjcfConverter  # noqa: PLC0415
    from .urdf import UrdfConverter  # noqa: PLC0415

    kind = detect_format(path)
    common = dict(
        asset_path=path,
        usd_dir=usd_dir,
        usd_file_name=usd_file_name,
        force_usd_conversion=force,
        make_instanceable=make_instanceable,
    )
    if kind == "mjcf":
        return MjcfConverter(MjcfConverterCfg(fix_base=fix_base, **common))
    if kind == "urdf":
        return UrdfConverter(UrdfConverterCfg(fix_base=fix_base, **common))
    return MeshConverter(MeshConverterCfg(**common))
