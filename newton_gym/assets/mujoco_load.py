"""Loading MJCF and URDF through MuJoCo's parser and compiler, with errors that name the file.

MuJoCo does the hard parts (default classes, includes, ``fromto``, mesh loading and inertia, URDF
conventions); this module only finds the files an asset depends on (and points the parser at their
private copies, see :class:`.snapshot.SourceSnapshot`), converts mesh files MuJoCo cannot read (COLLADA,
PLY, glTF, ...) into OBJ files beside the copies (:func:`mujoco_mesh_file`), edits the parsed ``MjSpec``
where a converter option asks for it, and turns MuJoCo's error messages into :class:`AssetError`.
"""

from __future__ import annotations

import importlib
import math
import os
import re
import warnings
import weakref
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
    "mujoco_mesh_file",
    "convert_staged_meshes",
    "MUJOCO_DEFAULT_DENSITY",
    "MUJOCO_MESH_EXTENSIONS",
]

#: MuJoCo's default geom density [kg/m^3].
MUJOCO_DEFAULT_DENSITY = 1000.0

#: Mesh file extensions MuJoCo's compiler reads; mesh files of other formats are converted to OBJ first.
MUJOCO_MESH_EXTENSIONS = (".stl", ".obj", ".msh")
_MUJOCO_MESH_TYPES = ("model/stl", "model/obj", "model/vnd.mujoco.msh")

# Conversions to OBJ promised by mujoco_mesh_file and not yet written, per snapshot:
# OBJ path -> (staged copy, model file, what refers to the mesh). compile_spec writes them.
_PENDING_MESHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

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
    ``balanceinertia`` does (their moments set to the mean), and bodies with a principal moment <= 0 are
    repaired first (:func:`_repair_degenerate_inertias`), each with an AssetWarning naming the bodies.

    Mesh files promised by :func:`mujoco_mesh_file` are converted first (see :func:`convert_staged_meshes`).

    Raises:
        AssetError: MuJoCo's compiler rejects the model (the message names ``path``), or a mesh file
            cannot be converted for it.
    """
    if snapshot is not None:
        convert_staged_meshes(spec, snapshot)
    repaired = False
    for _attempt in range(3):  # at most one repair of each kind, then the compile that must succeed
        try:
            return spec.compile()
        except ValueError as exc:
            message = str(exc)
            if "positive eigenvalues" in message and not repaired:
                repaired = _repair_degenerate_inertias(spec, path)
                if repaired:
                    continue
            if "balanceinertia" in message and not spec.compiler.balanceinertia:
                _balance_inertias(spec, path, message)
                continue
            raise _wrap_mujoco_error(exc, path, "MuJoCo could not compile the model", snapshot) from None
    try:
        return spec.compile()
    except ValueError as exc:
        raise _wrap_mujoco_error(exc, path, "MuJoCo could not compile the model", snapshot) from None


def _balance_inertias(spec, path: str, message: str) -> None:
    """Switch on MuJoCo's balanceinertia, with an AssetWarning naming the bodies it changes."""
    named = re.search(r"Element name '([^']*)'", message)
    bodies = unbalanced_bodies(spec) or ([named.group(1)] if named else [])
    warnings.warn(
        f"{path}: inertia of {', '.join(repr(b) for b in bodies)} breaks A + B >= C (principal moments); "
        "balanced as MuJoCo's compiler option balanceinertia does (each such body's moments set to their mean)",
        AssetWarning,
        stacklevel=3,
    )
    spec.compiler.balanceinertia = True


def _repair_degenerate_inertias(spec, path: str) -> bool:
    """Bodies whose explicit full inertia has a principal moment <= 0 (round-off below zero, or a point mass
    with a moment about one axis only, as some URDF links): the moments clamped at 0, then set to their mean
    where they break A + B >= C, as MuJoCo's balanceinertia does; an AssetWarning names each body. Returns
    whether any body was repaired."""
    repaired = []
    for body in spec.bodies:
        if not body.explicitinertial:
            continue
        full = [float(x) for x in body.fullinertia]
        if not math.isfinite(full[0]):
            continue
        matrix = np.array([[full[0], full[3], full[4]], [full[3], full[1], full[5]], [full[4], full[5], full[2]]])
        moments, axes = np.linalg.eigh(matrix)
        if moments.min() > 0.0 or moments.max() <= 0.0:
            continue
        moments = np.maximum(moments, 0.0)
        if moments[0] + moments[1] < moments[2]:
            moments = np.full(3, moments.mean())
        fixed = axes @ np.diag(moments) @ axes.T
        body.fullinertia = [fixed[0, 0], fixed[1, 1], fixed[2, 2], fixed[0, 1], fixed[0, 2], fixed[1, 2]]
        repaired.append(body.name)
    if repaired:
        warnings.warn(
            f"{path}: inertia of {', '.join(repr(b) for b in repaired)} has a principal moment <= 0, which MuJoCo's "
            "compiler refuses; moments clamped at 0 and, where they break A + B >= C, set to their mean",
            AssetWarning,
            stacklevel=3,
        )
    return bool(repaired)


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
        AssetError: A referenced file does not exist (the message names it and ``path``), or a mesh file
            MuJoCo does not read cannot be converted (see :func:`mujoco_mesh_file`).
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
        if mesh.file and mesh.content_type not in _MUJOCO_MESH_TYPES:
            user = f"<mesh name='{mesh.name}'>" if mesh.name else "a <mesh> without a name"
            converted = mujoco_mesh_file(mesh.file, snapshot, path, user)
            if converted != mesh.file:
                mesh.file, mesh.content_type = converted, ""
    for skin in spec.skins:
        skin.file = stage(mesh_dir, skin.file, "skin")
    for hfield in spec.hfields:
        hfield.file = stage(mesh_dir, hfield.file, "height field")  # MuJoCo looks in meshdir for both
    for texture in spec.textures:
        texture.file = stage(texture_dir, texture.file, "texture")
        cubefiles = list(texture.cubefiles)
        if any(cubefiles):
            texture.cubefiles = [stage(texture_dir, name, "texture") for name in cubefiles]
    return files


def mujoco_mesh_file(copy: str, snapshot: SourceSnapshot, referrer: str, user: str) -> str:
    """The mesh file MuJoCo's compiler is to read in place of the staged copy ``copy`` of a mesh file.

    That is the copy itself when MuJoCo reads its format (STL, OBJ, MSH), else ``<copy>.obj``, an OBJ
    converted from the copy with trimesh (COLLADA .dae through pycollada, PLY, glTF / GLB, OFF, ...) when
    :func:`compile_spec` compiles a spec that uses it, so an up-to-date USD costs no conversion. The OBJ
    holds the file's triangles with every node transform applied, in metres: a unit the file declares
    (COLLADA ``<unit meter>``, as trimesh reports it) is converted. COLLADA's ``<up_axis>`` is not
    applied: trimesh does not report it, and ROS's RViz ignores it too (it drops the root rotation assimp
    adds for it), so URDF meshes are authored to be used as their vertices are written. Scales in the
    model (URDF and MJCF ``<mesh scale>``) apply to the OBJ as to any mesh. The OBJ derives only from the
    copy's bytes, which the conversion hash covers.

    Args:
        copy: The staged copy of the mesh file.
        snapshot: The snapshot holding the copy.
        referrer: The model file that refers to the mesh (the file errors name).
        user: What refers to the mesh, for errors, e.g. "link 'base'" or "<mesh name='hand'>".
    """
    if os.path.splitext(copy)[1].lower() in MUJOCO_MESH_EXTENSIONS:
        return copy
    target = copy + ".obj"
    _PENDING_MESHES.setdefault(snapshot, {}).setdefault(target, (copy, referrer, user))
    return target


def convert_staged_meshes(spec, snapshot: SourceSnapshot) -> None:
    """Writes the OBJ files :func:`mujoco_mesh_file` promised for the meshes ``spec`` uses (once each).

    Raises:
        AssetError: trimesh (or pycollada, for COLLADA) is not installed, a file does not decode, or it
            holds no triangles; the message names the mesh file and what refers to it.
    """
    pending = _PENDING_MESHES.get(snapshot, {})
    for mesh in spec.meshes:
        job = pending.pop(mesh.file, None)
        if job is not None:
            copy, referrer, user = job
            _convert_to_obj(copy, mesh.file, snapshot.original_path(copy), referrer, user)


def _convert_to_obj(copy: str, target: str, original: str, referrer: str, user: str) -> None:
    """Writes ``target``, an OBJ of the mesh file ``copy`` in metres (see :func:`mujoco_mesh_file`)."""

    def fail(why: str) -> AssetError:
        return AssetError(f"mesh file '{original}' of {user} {why}", referrer)

    extension = os.path.splitext(copy)[1].lower()
    trimesh = _mesh_decoder(extension, fail)
    try:
        mesh = trimesh.load(copy, file_type=extension[1:], force="mesh", process=False)
    except Exception as exc:  # noqa: BLE001  (decoders raise anything on a corrupt file)
        raise fail(f"could not be decoded ({type(exc).__name__}: {' '.join(str(exc).split())})") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise fail("holds no triangles")
    if mesh.units not in (None, "m", "meter", "meters"):
        try:
            mesh.convert_units("meters", guess=False)
        except Exception as exc:  # noqa: BLE001  (trimesh raises bare errors on unit strings it cannot parse)
            raise fail(f"declares a unit trimesh cannot convert to metres ('{mesh.units}': {exc})") from None
    vertices = np.asarray(mesh.vertices, dtype=np.float64)
    if not np.isfinite(vertices).all():
        raise fail("holds NaN or infinite vertex coordinates")
    with open(target, "w", encoding="ascii") as stream:
        stream.write(f"# {os.path.basename(original)}, converted to metres for MuJoCo by newton_gym\n")
        np.savetxt(stream, vertices, fmt="v %.9g %.9g %.9g")
        np.savetxt(stream, np.asarray(mesh.faces, dtype=np.int64) + 1, fmt="f %d %d %d")


def _mesh_decoder(extension: str, fail):
    """trimesh, after checking that it (and pycollada for ``.dae``) imports; else ``fail(why)`` is raised."""
    try:
        trimesh = importlib.import_module("trimesh")
    except ImportError:
        raise fail(
            f"cannot be read: MuJoCo does not read '{extension}' files, and converting them needs trimesh; "
            "install the 'mesh' extra (pip install 'newton-gym[mesh]')"
        ) from None
    if extension == ".dae":
        try:
            importlib.import_module("collada")
        except ImportError:
            raise fail(
                "is COLLADA, which MuJoCo does not read; converting it needs pycollada: pip install pycollada "
                "(or the 'mesh' extra: pip install 'newton-gym[mesh]')"
            ) from None
    return trimesh


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
