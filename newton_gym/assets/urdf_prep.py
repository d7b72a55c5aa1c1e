"""Preparing a URDF for MuJoCo's URDF compiler.

MuJoCo reads URDF but knows nothing of ROS packages, strips mesh paths to bare file names, drops
visual geometry by default and reads only STL, OBJ and MSH meshes. :func:`prepare_urdf` therefore
rewrites a copy of the URDF (in memory): every mesh URI becomes the absolute path of a private copy of
the mesh (so that MuJoCo reads the bytes the conversion hashed, see :class:`.snapshot.SourceSnapshot`),
or of an OBJ converted from that copy for other formats such as COLLADA ``.dae`` (see
:func:`.mujoco_load.mujoco_mesh_file`), and a ``<mujoco><compiler .../></mujoco>`` block keeps paths,
visuals and (optionally) links joined by fixed joints.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from .errors import AssetError
from .mujoco_load import mujoco_mesh_file, parse_xml
from .snapshot import SourceSnapshot

__all__ = ["prepare_urdf", "resolve_uri"]


def resolve_uri(uri: str, urdf_path: str, packages: dict[str, str]) -> str:
    """Absolute path of a URDF mesh URI.

    ``package://<name>/<rest>`` resolves through ``packages`` (name -> folder), else to a folder named
    ``<name>`` that is the URDF's folder or one of its ancestors, or a child of one of them.
    ``file://<path>`` and plain paths are taken as they are, relative to the URDF's folder.

    Raises:
        AssetError: The package cannot be found (the message names the URDF and the package).
    """
    urdf_dir = os.path.dirname(os.path.abspath(urdf_path))
    if uri.startswith("package://"):
        name, _, rest = uri[len("package://") :].partition("/")
        root = packages.get(name) or _find_package(name, urdf_dir)
        if root is None:
            known = ", ".join(sorted(packages)) or "none"
            raise AssetError(
                f"cannot resolve '{uri}': ROS package '{name}' is not in ros_package_paths "
                f"(known: {known}) nor a folder next to the URDF",
                urdf_path,
            )
        return os.path.normpath(os.path.join(root, rest))
    if uri.startswith("file://"):
        uri = uri[len("file://") :]
    return os.path.normpath(os.path.join(urdf_dir, uri))


def _find_package(name: str, start: str) -> str | None:
    folder = start
    while True:
        if os.path.basename(folder) == name:
            return folder
        if os.path.isdir(os.path.join(folder, name)):
            return os.path.join(folder, name)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def prepare_urdf(
    path: str, ros_package_paths: list[dict[str, str]], merge_fixed_joints: bool, snapshot: SourceSnapshot
) -> str:
    """Rewrites a URDF for MuJoCo, reading the URDF and its meshes once each through ``snapshot``.

    Args:
        path: The URDF file.
        ros_package_paths: ``[{"name": ..., "path": ...}, ...]`` package folders.
        merge_fixed_joints: Let MuJoCo fuse links joined by fixed joints into their parent.
        snapshot: Where the private copies of the URDF and its meshes go.

    Returns:
        The rewritten URDF text (mesh file names are absolute paths of the copies, or of OBJ files
        converted from them).

    Raises:
        AssetError: The file is malformed, is not a URDF, refers to a missing mesh or package, or to a
            mesh file that cannot be converted for MuJoCo (the message names the file and the link).
    """
    tree = parse_xml(snapshot.stage(path), shown_as=path)
    robot = tree.getroot()
    if robot.tag != "robot":
        raise AssetError(f"not a URDF: the root element is <{robot.tag}>, expected <robot>", path)
    packages = _package_table(ros_package_paths, path)
    link_of = {id(mesh): link.get("name", "") for link in robot.iter("link") for mesh in link.iter("mesh")}
    for mesh in robot.iter("mesh"):
        uri = mesh.get("filename")
        if not uri:
            raise AssetError("a <mesh> element has no 'filename'", path)
        full = resolve_uri(uri, path, packages)
        if not os.path.isfile(full):
            raise AssetError(f"mesh file '{uri}' does not exist ({full})", path)
        user = f"link '{link_of[id(mesh)]}'" if id(mesh) in link_of else "a <mesh> outside any <link>"
        mesh.set("filename", mujoco_mesh_file(snapshot.stage(full, referrer=path), snapshot, path, user))
    _set_compiler(robot, merge_fixed_joints)
    return ET.tostring(robot, encoding="unicode")


def _package_table(entries: list[dict[str, str]], path: str) -> dict[str, str]:
    table = {}
    for entry in entries:
        if "name" not in entry or "path" not in entry:
            raise AssetError(f"ros_package_paths entries need keys 'name' and 'path', got {entry!r}", path)
        table[entry["name"]] = os.path.abspath(os.path.expanduser(entry["path"]))
    return table


def _set_compiler(robot: ET.Element, merge_fixed_joints: bool) -> None:
    block = robot.find("mujoco")
    if block is None:
        block = ET.SubElement(robot, "mujoco")
    compiler = block.find("compiler")
    if compiler is None:
        compiler = ET.SubElement(block, "compiler")
    compiler.set("strippath", "false")
    compiler.set("discardvisual", "false")
    compiler.set("fusestatic", "true" if merge_fixed_joints else "false")
    compiler.attrib.pop("meshdir", None)
    compiler.attrib.pop("assetdir", None)
