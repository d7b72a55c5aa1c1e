"""Mesh file (OBJ, STL, PLY, OFF, glTF) -> USD rigid body, through trimesh.

Layout (``<name>`` is the sanitized file stem)::

    /physicsScene                 UsdPhysics.Scene, standard gravity
    /<name>                       Xform, defaultPrim; RigidBodyAPI / MassAPI when configured
        geometry                  Xform with the configured translate / orient / scale; with
                                  make_instanceable an instanceable reference to </geometry> in
                                  usd_instanceable_meshes_path
            mesh                  Mesh (triangles); CollisionAPI / MeshCollisionAPI when configured

Mass properties are those of the closed mesh after scale, rotation and translation, in the frame of
``/<name>``: mass [kg], centre of mass [m], principal moments [kg m^2] and principal axes.
"""

from __future__ import annotations

import os

import numpy as np

from newton_gym.errors import ConfigError

from ..sim.conventions import quat_xyzw_to_wxyz
from ..sim.hostmath import quat_from_matrix, quat_to_matrix
from ._imports import require
from .base import AssetConverterBase
from .cfg import MESH_APPROXIMATIONS, MeshConverterCfg
from .description import MeshDesc, SceneDesc
from .errors import AssetError
from .naming import sanitize
from .usd_common import add_reference, new_stage, quatf, set_attr, set_pose, vec3f, write_mesh_data, write_scene
from .value_checks import FLOAT32_MAX

__all__ = ["MeshConverter", "MESH_FORMATS", "mesh_mass_properties"]

#: File extensions the mesh converter reads.
MESH_FORMATS = (".obj", ".stl", ".ply", ".off", ".glb", ".gltf")


class MeshConverter(AssetConverterBase):
    """Converts a mesh file into a USD rigid body (see the module docstring for the layout).

    STL and OBJ points are taken as they are: Z up, metres. Use ``rotation`` / ``scale`` to convert
    other conventions. FBX is not readable here: convert it to OBJ or glTF first (e.g. Blender:
    File > Export > Wavefront (.obj) or glTF 2.0).
    """

    FORMAT_VERSION = 1
    cfg: MeshConverterCfg

    def __init__(self, cfg: MeshConverterCfg):
        """Converts ``cfg.asset_path`` unless an up-to-date USD exists.

        Raises:
            AssetError: Missing, unsupported, corrupt or empty mesh file.
            ConfigError: An invalid configuration value (also a ValueError).
        """
        _validate(cfg)
        if os.path.isfile(cfg.asset_path):
            _check_format(os.path.abspath(cfg.asset_path))
        super().__init__(cfg)

    def _convert_asset(self, cfg: MeshConverterCfg) -> dict:
        UsdGeom = require("pxr.UsdGeom")
        mesh = load_mesh(self._asset_copy, shown_as=self._asset_path)
        name = sanitize(os.path.splitext(os.path.basename(self._asset_path))[0], "mesh")
        stage, layer = new_stage()
        write_scene(stage, SceneDesc(gravity=np.array([0.0, 0.0, -9.81])))
        _write_body(stage, f"/{name}", mesh, cfg)
        geometry = f"/{name}/geometry"
        rotation = quat_xyzw_to_wxyz(np.asarray(cfg.rotation, dtype=np.float64))  # set_pose takes Gf's order
        set_pose(UsdGeom.Xform.Define(stage, geometry), cfg.translation, rotation, cfg.scale)
        if not cfg.make_instanceable:
            _write_mesh(stage, f"{geometry}/mesh", mesh, cfg)
            return {self.usd_file_name: layer}
        del stage
        props_stage, props_layer = new_stage()
        props_stage.SetDefaultPrim(UsdGeom.Xform.Define(props_stage, "/geometry").GetPrim())
        _write_mesh(props_stage, "/geometry/mesh", mesh, cfg)
        add_reference(layer, geometry, "./" + self.usd_instanceable_meshes_path, "/geometry", instanceable=True)
        return {self.usd_file_name: layer, self.usd_instanceable_meshes_path: props_layer}


def _validate(cfg: MeshConverterCfg) -> None:
    approx = cfg.mesh_collision_props.approximation if cfg.mesh_collision_props else None
    if approx is not None and approx not in MESH_APPROXIMATIONS:
        raise ConfigError(f"mesh approximation '{approx}' is not one of {MESH_APPROXIMATIONS}")
    if not np.isclose(np.linalg.norm(cfg.rotation), 1.0, atol=1e-6):
        raise ConfigError(f"rotation {tuple(cfg.rotation)} is not a unit quaternion (x, y, z, w)")
    if cfg.mass_props is not None and cfg.mass_props.mass is not None and cfg.mass_props.mass <= 0.0:
        raise ConfigError(f"mass_props.mass must be positive, got {cfg.mass_props.mass}")


def _check_format(path: str) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext == ".fbx":
        raise AssetError(
            "FBX files cannot be read here; convert the file to OBJ or glTF first "
            "(e.g. in Blender: File > Export > Wavefront (.obj) or glTF 2.0)",
            path,
        )
    if ext not in MESH_FORMATS:
        raise AssetError(f"unknown mesh format '{ext or '(none)'}'; supported: {', '.join(MESH_FORMATS)}", path)


def load_mesh(path: str, shown_as: str | None = None) -> MeshDesc:
    """Reads a mesh file as triangles.

    Args:
        path: The file to read (its extension picks the format).
        shown_as: The file named in errors (default ``path``; the original of a private copy).

    Raises:
        AssetError: trimesh cannot read the file, it holds no triangles, or a vertex is not finite.
    """
    trimesh = require("trimesh")
    shown_as = shown_as or path
    _check_format(path)
    try:
        loaded = trimesh.load(path, force="mesh")
    except Exception as exc:  # noqa: BLE001  (trimesh raises many types on corrupt files)
        raise AssetError(f"cannot read mesh: {type(exc).__name__}: {exc}", shown_as) from None
    faces = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))))
    if faces.size == 0:
        raise AssetError("the mesh file holds no triangles", shown_as)
    points = np.asarray(loaded.vertices, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(points) <= FLOAT32_MAX).all(axis=1)
    if bad.any():
        raise AssetError(
            f"vertex {int(np.argmax(bad))} is not finite or beyond float32: {points[bad][0].tolist()}", shown_as
        )
    return MeshDesc(name="mesh", points=points, faces=faces.astype(np.int64))


def _placement_matrix(cfg: MeshConverterCfg) -> np.ndarray:
    """(4, 4) transform: scale, then rotation, then translation."""
    matrix = np.eye(4)
    matrix[:3, :3] = quat_to_matrix(cfg.rotation) @ np.diag(cfg.scale)
    matrix[:3, 3] = cfg.translation
    return matrix


def mesh_mass_properties(
    mesh: MeshDesc, matrix: np.ndarray, mass: float | None, density: float | None, path: str | None = None
):
    """Mass properties of a closed triangle mesh after the (4, 4) transform ``matrix``.

    Args:
        mesh: The mesh.
        matrix: Placement of the mesh in the body frame.
        mass: Target mass [kg]; used if not None.
        density: Density [kg/m^3]; used when ``mass`` is None.
        path: The mesh file, named in errors.

    Returns:
        ``(mass [kg], com (3,) [m], principal moments (3,) [kg m^2], principal axes (4,))``, the axes
        as a unit quaternion (x, y, z, w) with w >= 0.

    Raises:
        AssetError: The mesh encloses no volume.
    """
    trimesh = require("trimesh")
    placed = trimesh.Trimesh(mesh.points, mesh.faces, process=False)
    placed.apply_transform(matrix)
    volume = float(placed.volume)
    if not volume > 0.0:
        raise AssetError(
            "cannot compute mass properties: the mesh encloses no volume (is it closed and consistently oriented?)",
            path,
        )
    total = float(mass) if mass is not None else float(density) * volume
    tensor = np.asarray(placed.moment_inertia) / float(placed.density) * (total / volume)
    moments, axes = np.linalg.eigh(tensor)
    if np.linalg.det(axes) < 0.0:
        axes[:, 2] = -axes[:, 2]
    return total, np.asarray(placed.center_mass), moments, quat_from_matrix(axes)


# What the optional (None: unauthored) settings of RigidBodyPropertiesCfg / CollisionPropertiesCfg write:
# (field, the schema API's Create method, given a bool) and (field, PhysX attribute, value type).
_RIGID_FLAGS = (
    ("rigid_body_enabled", "CreateRigidBodyEnabledAttr"),
    ("kinematic_enabled", "CreateKinematicEnabledAttr"),
)
_RIGID_ATTRS = (
    ("disable_gravity", "physxRigidBody:disableGravity", "Bool"),
    ("linear_damping", "physxRigidBody:linearDamping", "Float"),
    ("angular_damping", "physxRigidBody:angularDamping", "Float"),
    ("max_linear_velocity", "physxRigidBody:maxLinearVelocity", "Float"),
    ("max_angular_velocity", "physxRigidBody:maxAngularVelocity", "Float"),
)
_COLLISION_FLAGS = (("collision_enabled", "CreateCollisionEnabledAttr"),)
_COLLISION_ATTRS = (
    ("contact_offset", "physxCollision:contactOffset", "Float"),
    ("rest_offset", "physxCollision:restOffset", "Float"),
)


def _author_props(prim, api, props, flags, attrs) -> None:
    """Author the settings of ``props`` that are not None: ``flags`` through the applied schema ``api``,
    then ``attrs`` on ``prim``."""
    for field_name, create in flags:
        value = getattr(props, field_name)
        if value is not None:
            getattr(api, create)(bool(value))
    for field_name, attr, kind in attrs:
        value = getattr(props, field_name)
        if value is not None:
            set_attr(prim, attr, kind, value)


def _write_body(stage, path: str, mesh: MeshDesc, cfg: MeshConverterCfg) -> None:
    UsdGeom, UsdPhysics = require("pxr.UsdGeom"), require("pxr.UsdPhysics")
    prim = UsdGeom.Xform.Define(stage, path).GetPrim()
    stage.SetDefaultPrim(prim)
    if cfg.rigid_props is not None:
        _author_props(prim, UsdPhysics.RigidBodyAPI.Apply(prim), cfg.rigid_props, _RIGID_FLAGS, _RIGID_ATTRS)
    if cfg.mass_props is not None:
        _write_mass(prim, mesh, cfg)


def _write_mass(prim, mesh: MeshDesc, cfg: MeshConverterCfg) -> None:
    UsdPhysics = require("pxr.UsdPhysics")
    api = UsdPhysics.MassAPI.Apply(prim)
    mass, density = cfg.mass_props.mass, cfg.mass_props.density
    if mass is None and density is None:
        return
    if mass is None:
        api.CreateDensityAttr(float(density))
    total, com, moments, axes = mesh_mass_properties(mesh, _placement_matrix(cfg), mass, density, cfg.asset_path)
    api.CreateMassAttr(total)
    api.CreateCenterOfMassAttr(vec3f(com))
    api.CreateDiagonalInertiaAttr(vec3f(moments))
    api.CreatePrincipalAxesAttr(quatf(quat_xyzw_to_wxyz(axes)))  # quatf takes Gf's (w, x, y, z)


def _write_mesh(stage, path: str, mesh: MeshDesc, cfg: MeshConverterCfg) -> None:
    """The triangle mesh prim with the configured collision APIs."""
    UsdGeom, UsdPhysics = require("pxr.UsdGeom"), require("pxr.UsdPhysics")
    mesh_prim = UsdGeom.Mesh.Define(stage, path)
    write_mesh_data(mesh_prim, mesh)
    prim = mesh_prim.GetPrim()
    if cfg.collision_props is not None:
        api = UsdPhysics.CollisionAPI.Apply(prim)
        _author_props(prim, api, cfg.collision_props, _COLLISION_FLAGS, _COLLISION_ATTRS)
    if cfg.mesh_collision_props is not None:
        UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(cfg.mesh_collision_props.approximation)
