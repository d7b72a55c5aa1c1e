"""Mesh files (OBJ, STL written by trimesh here) -> USD rigid bodies with trimesh's mass properties."""

from __future__ import annotations

import os

import numpy as np
import pytest

trimesh = pytest.importorskip("trimesh")
from pxr import Usd, UsdGeom, UsdPhysics  # noqa: E402
from usd_readback import gfq, inertia_tensor, local_pose, open_stage, qmat  # noqa: E402

from newton_gym.assets import (  # noqa: E402
    AssetError,
    CollisionPropertiesCfg,
    MassPropertiesCfg,
    MeshCollisionPropertiesCfg,
    MeshConverter,
    MeshConverterCfg,
    RigidBodyPropertiesCfg,
)


def off_centre_mesh():
    """An asymmetric closed mesh: a box with a sphere on one corner, shifted off the origin."""
    box = trimesh.creation.box((0.3, 0.2, 0.1))
    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.08)
    ball.apply_translation((0.15, 0.1, 0.05))
    mesh = trimesh.util.concatenate([box, ball])
    mesh.apply_translation((0.5, -0.2, 0.1))
    return mesh


@pytest.fixture(params=["obj", "stl"])
def mesh_file(request, tmp_path):
    mesh = trimesh.creation.box((0.3, 0.2, 0.1))
    mesh.apply_transform(trimesh.transformations.rotation_matrix(0.4, [1, 2, 3]))
    mesh.apply_translation((0.5, -0.2, 0.1))
    path = tmp_path / f"part.{request.param}"
    mesh.export(str(path))
    return str(path), mesh


def mass_props(prim):
    api = UsdPhysics.MassAPI(prim)
    return (
        api.GetMassAttr().Get(),
        np.array(api.GetCenterOfMassAttr().Get()),
        inertia_tensor(np.array(api.GetDiagonalInertiaAttr().Get()), gfq(api.GetPrincipalAxesAttr().Get())),
    )


def test_mass_properties_equal_trimesh(mesh_file, tmp_path):
    path, mesh = mesh_file
    cfg = MeshConverterCfg(
        asset_path=path,
        usd_dir=str(tmp_path / "out"),
        mass_props=MassPropertiesCfg(density=500.0),
        rigid_props=RigidBodyPropertiesCfg(),
        collision_props=CollisionPropertiesCfg(),
        mesh_collision_props=MeshCollisionPropertiesCfg(),
    )
    conv = MeshConverter(cfg)
    stage = open_stage(conv.usd_path)
    root = stage.GetDefaultPrim()
    assert root.GetName() == "part" and root.HasAPI(UsdPhysics.RigidBodyAPI)
    mass, com, tensor = mass_props(root)
    assert mass == pytest.approx(500.0 * mesh.volume, rel=1e-5)
    assert mass == pytest.approx(500.0 * 0.3 * 0.2 * 0.1, rel=1e-5)
    assert np.allclose(com, mesh.center_mass, atol=1e-6)
    assert np.allclose(tensor, mesh.moment_inertia * 500.0, rtol=1e-5, atol=1e-9)
    assert root.GetAttribute("physics:density").Get() == pytest.approx(500.0)
    mesh_prim = stage.GetPrimAtPath(f"{root.GetPath()}/geometry/mesh")
    assert mesh_prim.IsInstanceProxy()  # make_instanceable (default)
    assert mesh_prim.HasAPI(UsdPhysics.CollisionAPI)
    assert UsdPhysics.MeshCollisionAPI(mesh_prim).GetApproximationAttr().Get() == "convexHull"
    # Points are taken as they are (Z up for STL and OBJ alike).
    points = np.array(UsdGeom.Mesh(mesh_prim).GetPointsAttr().Get())
    assert np.allclose(np.sort(points, axis=0), np.sort(mesh.vertices, axis=0), atol=1e-6)


def test_placement_and_mass_override(tmp_path):
    mesh = off_centre_mesh()
    path = tmp_path / "lump.stl"
    mesh.export(str(path))
    rotation_xyzw = (0.0, np.sin(0.3), 0.0, np.cos(0.3))  # 0.6 rad about y
    cfg = MeshConverterCfg(
        asset_path=str(path),
        usd_dir=str(tmp_path / "out"),
        make_instanceable=False,
        mass_props=MassPropertiesCfg(mass=3.0),
        translation=(1.0, 2.0, 3.0),
        rotation=rotation_xyzw,
        scale=(2.0, 1.0, 0.5),
    )
    stage = open_stage(MeshConverter(cfg).usd_path)
    geometry = stage.GetPrimAtPath("/lump/geometry")
    pos, quat = local_pose(geometry)
    assert np.allclose(pos, [1, 2, 3]) and np.allclose(quat, [np.cos(0.3), 0, np.sin(0.3), 0])
    assert not stage.GetPrimAtPath("/lump/geometry/mesh").IsInstanceProxy()
    placed = mesh.copy()
    matrix = np.eye(4)
    matrix[:3, :3] = qmat(quat) @ np.diag([2.0, 1.0, 0.5])
    matrix[:3, 3] = [1, 2, 3]
    placed.apply_transform(matrix)
    mass, com, tensor = mass_props(stage.GetPrimAtPath("/lump"))
    assert mass == pytest.approx(3.0)
    assert np.allclose(com, placed.center_mass, atol=1e-6)
    assert np.allclose(tensor, placed.moment_inertia * 3.0 / placed.volume, rtol=1e-5, atol=1e-9)
    # The composed world transform of the mesh equals the placement.
    xf = UsdGeom.Xformable(stage.GetPrimAtPath("/lump/geometry/mesh")).ComputeLocalToWorldTransform(
        Usd.TimeCode.Default()
    )
    assert np.allclose(np.array(xf).T, matrix, atol=1e-6)


def test_without_props_no_physics_apis(tmp_path):
    path = tmp_path / "plain.obj"
    trimesh.creation.icosphere().export(str(path))
    stage = open_stage(MeshConverter(MeshConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "o"))).usd_path)
    assert not stage.GetPrimAtPath("/plain").HasAPI(UsdPhysics.RigidBodyAPI)
    assert not stage.GetPrimAtPath("/plain").HasAPI(UsdPhysics.MassAPI)
    assert not stage.GetPrimAtPath("/plain/geometry/mesh").HasAPI(UsdPhysics.CollisionAPI)


def test_fbx_names_a_workaround(tmp_path):
    path = tmp_path / "model.fbx"
    path.write_bytes(b"Kaydara FBX Binary  \x00")
    with pytest.raises(AssetError, match="OBJ or glTF") as info:
        MeshConverter(MeshConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out")))
    assert str(path) in str(info.value) and "Blender" in str(info.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name, content", [("thing.xyz", b"1 2 3"), ("broken.stl", b"solid x\nfacet garbage\n")])
def test_unknown_or_corrupt_mesh(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(AssetError) as info:
        MeshConverter(MeshConverterCfg(asset_path=str(path), usd_dir=str(out)))
    assert str(path) in str(info.value)
    assert os.listdir(out) == []


def test_non_finite_vertex_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "bad.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1e39 0\nf 1 2 3\n")
    with pytest.raises(AssetError, match="not finite") as info:
        MeshConverter(MeshConverterCfg(asset_path=str(path), usd_dir=str(tmp_path / "out")))
    assert info.value.path == str(path)
