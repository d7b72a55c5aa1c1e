"""Loading MJCF and URDF through MuJoCo's parser and compiler, with errors that name the file.

MuJoCo does the hard parts (default classes, includes, ``fromto``, mesh loading and inertia, URDF
conventions); this module only finds the files an asset depends on (and points the parser at their
private copies, see :class:`.snapshot.SourceSnapshot`), edits the parsed ``MjSpec`` where a converter
option asks for it, and turns MuJoCo's error messages into :class:`AssetError`.
"""

from __future__ import annotations

import math
import os
import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import AssetWarning
from ._imports import require
from .errors import AssetError
from .snapshot import SourceSnapshot

__all__ = [
    "parse_xml",
    "load_spec",
    "compile_spec",
    "unbalanced_bodies",
    "load_staged_mjcf",
    "stage_mjcf_includes",
    "stage_spec_assets",
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


def parse_xml(path: str, shown_as: str | None = None) -> ET.ElementTree:
    """Parses an XML file, keeping comments.

    Args:
        path: The file to read.
        shown_as: The file named in errors (default ``path``; the original of a private copy).

    Raises:
        AssetError: The file is not well-formed XML; the error names the file and line.
    """
    shown_as = shown_as or path
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    try:
        return ET.parse(path, parser=parser)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise AssetError(f"malformed XML: {exc}", shown_as, line) from None
    except OSError as exc:
        raise AssetError(f"cannot read file: {exc.strerror}", shown_as) from None


def _wrap_mujoco_error(exc: Exception, path: str, what: str, snapshot: SourceSnapshot | None) -> AssetError:
    message = " ".join(str(exc).split())
    if snapshot is not None:
        message = snapshot.original_of(message)
    missing = re.search(r"[Ee]rror opening file '([^']+)'", message)
    if missing:
        return AssetError(f"{what}: file '{missing.group(1)}' could not be opened ({message})", path)
    return AssetError(f"{what}: {message}", path, _line_of(message))


def load_spec(path: str, text: str | None = None, shown_as: str | None = None, snapshot: SourceSnapshot | None = None):
    """Parses an MJCF or URDF file into a ``mujoco.MjSpec``.

    Args:
        path: The file (read unless ``text`` is given).
        text: XML text to parse instead of reading ``path`` (paths inside must then be absolute).
        shown_as: The file named in errors (default ``path``).
        snapshot: When ``path`` is a private copy, its snapshot (so errors quote original paths).

    Raises:
        AssetError: MuJoCo rejects the file.
    """
    mujoco = require("mujoco")
    try:
        if text is None:
            return mujoco.MjSpec.from_file(path)
        return mujoco.MjSpec.from_string(text)
    except ValueError as exc:
        raise _wrap_mujoco_error(exc, shown_as or path, "MuJoCo could not parse the model", snapshot) from None


def compile_spec(spec, path: str, snapshot: SourceSnapshot | None = None):
    """Compiles a spec into a ``mujoco.MjModel``. Bodies whose principal moments break the triangle
    inequality (A + B >= C, which MuJoCo's compiler refuses; common in URDFs) are balanced as MuJoCo's
    ``balanceinertia`` does (their moments set to the mean), with an AssetWarning naming each body.

    Raises:
        AssetError: MuJoCo's compiler rejects the model (the message names ``path``).
    """
    try:
        return spec.compile()
    except ValueError as exc:
        if "balanceinertia" not in str(exc) or spec.compiler.balanceinertia:
            raise _wrap_mujoco_error(exc, path, "MuJoCo could not compile the model", snapshot) from None
        named = re.search(r"Element name '([^']*)'", str(exc))
        bodies = unbalanced_bodies(spec) or ([named.group(1)] if named else [])
        warnings.warn(
            f"{path}: inertia of {', '.join(repr(b) for b in bodies)} breaks A + B >= C (principal moments); "
            "balanced as MuJoCo's compiler option balanceinertia does (each such body's moments set to their mean)",
            AssetWarning,
            stacklevel=2,
        )
        spec.compiler.balanceinertia = True
    try:
        return spec.compile()
    except ValueError as exc:
        raise _wrap_mujoco_error(exc, path, "MuJoCo could not compile the model", snapshot) from None


def unbalanced_bodies(spec) -> list[str]:
    """Names of the bodies with an explicit inertia whose principal moments A <= B <= C have A + B < C."""
    out = []
    for body in spec.bodies:
        if not body.explicitinertial:
            continue
        full = [float(x) for x in body.fullinertia]
        if math.isfinite(full[0]):  # (ixx, iyy, izz, ixy, ixz, iyz): the principal moments are its eigenvalues
            matrix = [[full[0], full[3], full[4]], [full[3], full[1], full[5]], [full[4], full[5], full[2]]]
            moments = sorted(float(v) for v in np.linalg.eigvalsh(matrix))
        else:
            moments = sorted(float(v) for v in body.inertia)
        if moments[0] + moments[1] < moments[2] * (1.0 - 1.0e-9):
            out.append(body.name)
    return out


def load_staged_mjcf(path: str, snapshot: SourceSnapshot):
    """Parses an MJCF file from private copies of it, its includes and the files it refers to.

    MuJoCo resolves an asset named in an included file against the include's folder when the file is
    missing where ``meshdir`` says. So the original is parsed first only to learn which files it refers
    to; once those are copied, the copy is parsed, and each name resolves as it does for the original.

    Args:
        path: The original MJCF file.
        snapshot: Where the copies go (the main file may already be staged).

    Returns:
        A ``mujoco.MjSpec`` parsed from the copies, whose asset files are absolute paths of copies.

    Raises:
        AssetError: The file, an include or a referenced file is missing or malformed.
    """
    stage_mjcf_includes(path, snapshot)
    stage_spec_assets(load_spec(path), path, snapshot)
    spec = load_spec(snapshot.stage(path), shown_as=path, snapshot=snapshot)
    stage_spec_assets(spec, path, snapshot)
    return spec


def stage_mjcf_includes(path: str, snapshot: SourceSnapshot) -> list[str]:
    """Copies the MJCF files ``<include>``-d by ``path``, recursively, into ``snapshot`` (paths relative
    to ``path``'s folder, as MuJoCo resolves them), reading each copy once.

    Returns:
        The included files' original absolute paths.

    Raises:
        AssetError: An included file is missing or malformed.
    """
    model_dir = os.path.dirname(os.path.abspath(path))
    found: list[str] = []
    pending = [os.path.abspath(path)]
    while pending:
        current = pending.pop()
        copy = snapshot.stage(current)
        for element in parse_xml(copy, shown_as=current).getroot().iter("include"):
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


def stage_spec_assets(spec, path: str, snapshot: SourceSnapshot) -> list[str]:
    """Copies the mesh, texture, height-field and skin files a parsed spec refers to into ``snapshot``
    and points the spec at the copies (absolute paths), so that compiling reads the hashed bytes.

    Args:
        spec: The parsed ``mujoco.MjSpec``.
        path: The original model file (its folder anchors relative paths, as in MuJoCo).
        snapshot: Where the copies go.

    Returns:
        The referenced files' original absolute paths.

    Raises:
        AssetError: A referenced file does not exist (the message names it and ``path``).
    """
    model_dir = os.path.dirname(os.path.abspath(path))
    mesh_dir = os.path.join(model_dir, spec.meshdir or "")
    texture_dir = os.path.join(model_dir, spec.texturedir or "")
    files = []

    def stage(folder: str, name: str, kind: str) -> str:
        if not name:
            return name
        full = snapshot.original_path(os.path.normpath(os.path.join(folder, name)))
        if not os.path.isfile(full):
            raise AssetError(f"{kind} file '{name}' does not exist ({full})", path)
        files.append(full)
        return snapshot.stage(full, referrer=path)

    for mesh in spec.meshes:
        mesh.file = stage(mesh_dir, mesh.file, "mesh")
    for skin in spec.skins:
        skin.file = stage(mesh_dir, skin.file, "skin")
    for hfield in spec.hfields:
        hfield.file = stage(model_dir, hfield.file, "height field")
    for texture in spec.textures:
        texture.file = stage(texture_dir, texture.file, "texture")
        cubefiles = list(texture.cubefiles)
        if any(cubefiles):
            texture.cubefiles = [stage(texture_dir, name, "texture") for name in cubefiles]
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
