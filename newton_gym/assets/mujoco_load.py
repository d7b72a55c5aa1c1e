"""Loading MJCF and URDF through MuJoCo's parser and compiler, with errors that name the file.

MuJoCo does the hard parts (default classes, includes, ``fromto``, mesh loading and inertia, URDF
conventions); this module only finds the files an asset depends on, edits the parsed ``MjSpec`` where
a converter option asks for it, and turns MuJoCo's error messages into :class:`AssetError`.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET

from ._imports import require
from .errors import AssetError

__all__ = [
    "parse_xml",
    "load_spec",
    "compile_spec",
    "mjcf_source_files",
    "spec_asset_files",
    "apply_link_density",
    "float_root_bodies",
    "MUJOCO_DEFAULT_DENSITY",
]

#: MuJoCo's default geom density [kg/m^3].
MUJOCO_DEFAULT_DENSITY = 1000.0

_LINE_PATTERNS = (re.compile(r"[Ll]ine number\s*=\s*(\d+)"), re.compile(r"\bline (\d+)"))


def _line_of(message: str) -> int | None:
    for pattern in _LINE_PATTERNS:
        match = pattern.search(message)
        if match:
            return int(match.group(1))
    return None


def parse_xml(path: str) -> ET.ElementTree:
    """Parses an XML file, keeping comments.

    Raises:
        AssetError: The file is not well-formed XML; the error names the file and line.
    """
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    try:
        return ET.parse(path, parser=parser)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise AssetError(f"malformed XML: {exc}", path, line) from None
    except OSError as exc:
        raise AssetError(f"cannot read file: {exc.strerror}", path) from None


def _wrap_mujoco_error(exc: Exception, path: str, what: str) -> AssetError:
    message = " ".join(str(exc).split())
    missing = re.search(r"[Ee]rror opening file '([^']+)'", message)
    if missing:
        return AssetError(f"{what}: file '{missing.group(1)}' could not be opened ({message})", path)
    return AssetError(f"{what}: {message}", path, _line_of(message))


def load_spec(path: str, text: str | None = None):
    """Parses an MJCF or URDF file into a ``mujoco.MjSpec``.

    Args:
        path: The file (named in errors; read unless ``text`` is given).
        text: XML text to parse instead of reading ``path`` (paths inside must then be absolute).

    Raises:
        AssetError: MuJoCo rejects the file.
    """
    mujoco = require("mujoco")
    try:
        if text is None:
            return mujoco.MjSpec.from_file(path)
        return mujoco.MjSpec.from_string(text)
    except ValueError as exc:
        raise _wrap_mujoco_error(exc, path, "MuJoCo could not parse the model") from None


def compile_spec(spec, path: str):
    """Compiles a spec into a ``mujoco.MjModel``.

    Raises:
        AssetError: MuJoCo's compiler rejects the model (the message names ``path``).
    """
    try:
        return spec.compile()
    except ValueError as exc:
        raise _wrap_mujoco_error(exc, path, "MuJoCo could not compile the model") from None


def mjcf_source_files(path: str) -> list[str]:
    """The MJCF files ``<include>``-d by ``path``, recursively (paths relative to ``path``'s folder,
    as MuJoCo resolves them).

    Raises:
        AssetError: An included file is missing or malformed.
    """
    model_dir = os.path.dirname(os.path.abspath(path))
    found: list[str] = []
    pending = [os.path.abspath(path)]
    while pending:
        current = pending.pop()
        for element in parse_xml(current).getroot().iter("include"):
            file = element.get("file")
            if not file:
                continue
            included = os.path.normpath(os.path.join(model_dir, file))
            if not os.path.isfile(included):
                raise AssetError(f"included file '{file}' does not exist ({included})", current)
            if included not in found:
                found.append(included)
                pending.append(included)
    return found


def spec_asset_files(spec, path: str) -> list[str]:
    """Absolute paths of the mesh, texture, height-field and skin files a parsed spec refers to.

    Raises:
        AssetError: A referenced file does not exist (the message names it and ``path``).
    """
    model_dir = os.path.dirname(os.path.abspath(path))
    mesh_dir = os.path.join(model_dir, spec.meshdir or "")
    texture_dir = os.path.join(model_dir, spec.texturedir or "")
    wanted = [(mesh_dir, m.file, "mesh") for m in spec.meshes]
    wanted += [(mesh_dir, s.file, "skin") for s in spec.skins]
    wanted += [(model_dir, h.file, "height field") for h in spec.hfields]
    for texture in spec.textures:
        names = [texture.file, *list(texture.cubefiles)]
        wanted += [(texture_dir, name, "texture") for name in names]
    files = []
    for folder, name, kind in wanted:
        if not name:
            continue
        full = os.path.normpath(os.path.join(folder, name))
        if not os.path.isfile(full):
            raise AssetError(f"{kind} file '{name}' does not exist ({full})", path)
        files.append(full)
    return files


def apply_link_density(spec, density: float) -> None:
    """Sets ``density`` [kg/m^3] on geoms that use MuJoCo's default density and have no explicit mass,
    in bodies whose mass is inferred from geoms. ``density <= 0`` does nothing."""
    if density <= 0.0:
        return
    mujoco = require("mujoco")
    from_geoms_always = spec.compiler.inertiafromgeom == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
    for body in spec.bodies:
        if body.explicitinertial and not from_geoms_always:
            continue
        for geom in body.geoms:
            if math.isnan(geom.mass) and geom.density == MUJOCO_DEFAULT_DENSITY:
                geom.density = density


def float_root_bodies(spec) -> None:
    """Gives a free joint to every top-level body that has no joint (URDF roots, which MuJoCo would
    otherwise weld to the world)."""
    for body in spec.worldbody.bodies:
        if len(body.joints) == 0:
            body.add_freejoint()
