"""Collider conversions (seed 002): Cube size -> half extents, axis -> Z-aligned frame, scale, cone,
plane, meshes and their approximations, materials, collision groups and filtered pairs."""

import math

import numpy as np
import pytest
from usd_helpers import HEADER

import newton_gym as ng
from newton_gym.sim.hostmath import quat_rotate

TETRA = """
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int[] faceVertexCounts = [3, 3, 3, 3]
        int[] faceVertexIndices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]"""


def _import(write_usda, body, extra="", **kw):
    builder = ng.ModelBuilder()
    result = builder.add_usd(
        write_usda(
            HEADER
            + f"""
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    float physics:mass = 1
    float3 physics:diagonalInertia = (1, 1, 1)
    point3f physics:centerOfMass = (0, 0, 0)
{body}
}}
{extra}"""
        ),
        **kw,
    )
    return builder, result


def _shape(builder, result, path):
    i = result["path_shape_map"][path]
    t = builder.tables["shape"]
    return ng.GeoType(int(t.value("type", i))), np.asarray(t.value("scale", i)), np.asarray(t.value("xform", i))


def test_primitives(write_usda, quiet):
    builder, result = _import(
        write_usda,
        """
    def Cube "cube" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double size = 0.5
        float3 xformOp:scale = (1, 2, 4)
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
    def Sphere "sphere" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.3
    }
    def Capsule "capsule_x" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        uniform token axis = "X"
        double radius = 0.1
        double height = 0.6
    }
    def Cylinder "cylinder_y" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        uniform token axis = "Y"
        double radius = 0.2
        double height = 1
    }
    def Cone "cone" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        uniform token axis = "Z"
        double radius = 0.25
        double height = 0.8
    }
""",
    )
    geo, size, xf = _shape(builder, result, "/b/cube")
    assert geo == ng.GeoType.BOX
    np.testing.assert_allclose(size, [0.25, 0.5, 1.0])  # size 0.5 scaled (1, 2, 4), halved
    np.testing.assert_allclose(xf[:3], [0, 0, 1])
    geo, size, _ = _shape(builder, result, "/b/sphere")
    assert geo == ng.GeoType.SPHERE and size[0] == pytest.approx(0.3)
    geo, size, xf = _shape(builder, result, "/b/capsule_x")
    assert geo == ng.GeoType.CAPSULE
    np.testing.assert_allclose(size[:2], [0.1, 0.3])  # height excludes the caps; half of it
    np.testing.assert_allclose(quat_rotate(xf[3:], [0, 0, 1]), [1, 0, 0], atol=1e-9)
    geo, size, xf = _shape(builder, result, "/b/cylinder_y")
    assert geo == ng.GeoType.CYLINDER
    np.testing.assert_allclose(size[:2], [0.2, 0.5])
    np.testing.assert_allclose(quat_rotate(xf[3:], [0, 0, 1]), [0, 1, 0], atol=1e-9)
    geo, size, xf = _shape(builder, result, "/b/cone")
    assert geo == ng.GeoType.CONE
    np.testing.assert_allclose(size[:2], [0.25, 0.4])
    np.testing.assert_allclose(xf[3:], [0, 0, 0, 1])


def test_static_plane_with_axis(write_usda, quiet):
    builder, result = _import(
        write_usda,
        "",
        """
def Xform "ground" {
    double3 xformOp:translate = (0, 0, -0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Plane "plane" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        uniform token axis = "X"
    }
}
""",
    )
    geo, size, xf = _shape(builder, result, "/ground/plane")
    assert geo == ng.GeoType.PLANE and builder.tables["shape"].value("body", 0) == -1
    np.testing.assert_allclose(size, 0.0)
    np.testing.assert_allclose(xf[:3], [0, 0, -0.5])
    np.testing.assert_allclose(quat_rotate(xf[3:], [0, 0, 1]), [1, 0, 0], atol=1e-9)


def test_mesh_and_approximations(write_usda, quiet):
    builder, result = _import(
        write_usda,
        f'''
    def Mesh "hull" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI", "NewtonMeshCollisionAPI"]) {{
        uniform token physics:approximation = "convexHull"
        int newton:maxHullVertices = 12
        float3 xformOp:scale = (2, 2, 2)
        uniform token[] xformOpOrder = ["xformOp:scale"]{TETRA}
    }}
    def Mesh "quad" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
    }}
    def Mesh "ball" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]) {{
        uniform token physics:approximation = "boundingSphere"{TETRA}
    }}
    def Mesh "box" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]) {{
        uniform token physics:approximation = "boundingCube"{TETRA}
    }}
''',
    )
    geo, size, _ = _shape(builder, result, "/b/hull")
    assert geo == ng.GeoType.MESH
    mesh = builder.meshes[builder.tables["shape"].value("mesh", result["path_shape_map"]["/b/hull"])]
    np.testing.assert_allclose(mesh.vertices.max(axis=0), [2, 2, 2])  # the prim scale baked in
    assert mesh.maxhullvert == 12
    assert mesh.unit_mass_properties()[0] == pytest.approx(8 / 6)
    quad = builder.meshes[builder.tables["shape"].value("mesh", result["path_shape_map"]["/b/quad"])]
    assert quad.indices.tolist() == [[0, 1, 2], [0, 2, 3]]  # fan triangulation
    geo, size, xf = _shape(builder, result, "/b/ball")
    assert geo == ng.GeoType.SPHERE
    np.testing.assert_allclose(xf[:3], [0.5, 0.5, 0.5])
    assert size[0] == pytest.approx(math.sqrt(0.75))
    geo, size, xf = _shape(builder, result, "/b/box")
    assert geo == ng.GeoType.BOX
    np.testing.assert_allclose(size, [0.5, 0.5, 0.5])


def test_material_and_collider_settings(write_usda, quiet):
    builder, result = _import(
        write_usda,
        """
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI", "PhysicsMassAPI"]) {
        double radius = 0.1
        rel material:binding:physics = </mat>
        float physics:density = 321
        bool physics:collisionEnabled = false
        token visibility = "invisible"
    }
""",
        """
def Material "mat" (prepend apiSchemas = ["PhysicsMaterialAPI", "PhysxMaterialAPI"]) {
    float physics:staticFriction = 0.9
    float physics:dynamicFriction = 0.6
    float physics:restitution = 0.25
    float physics:density = 700
    float physxMaterial:compliantContactStiffness = 5000
    float physxMaterial:compliantContactDamping = 50
}
""",
    )
    t, i = builder.tables["shape"], result["path_shape_map"]["/b/s"]
    assert t.value("mu", i) == pytest.approx(0.6)
    assert t.value("restitution", i) == pytest.approx(0.25)
    assert t.value("density", i) == pytest.approx(321)  # the collider's density wins over the material's
    assert (t.value("ke", i), t.value("kd", i)) == pytest.approx((5000, 50))
    assert not t.value("collide", i) and not t.value("visible", i)


def test_collision_groups_and_filtered_pairs(write_usda, quiet):
    text = (
        HEADER
        + """
def PhysicsCollisionGroup "arms" {
    rel collection:colliders:includes = [</r/a/s>, </r/b/s>]
    rel physics:filteredGroups = </legs>
}
def PhysicsCollisionGroup "legs" {
    rel collection:colliders:includes = [</r/c/s>]
}
def Xform "r" {
    def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsFilteredPairsAPI"]) {
        rel physics:filteredPairs = </r/d>
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            double radius = 0.1
        }
    }
    def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            double radius = 0.1
        }
    }
    def Xform "c" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            double radius = 0.1
        }
    }
    def Xform "d" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
        def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
            double radius = 0.1
        }
    }
}
"""
    )
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    s = {p.split("/")[2]: i for p, i in result["path_shape_map"].items()}
    pairs = builder.shape_collision_filter_pairs
    expected = {tuple(sorted((s["a"], s["c"]))), tuple(sorted((s["b"], s["c"]))), tuple(sorted((s["a"], s["d"])))}
    assert pairs == expected
    assert result["collision_filter_pair_count"] == 3


def test_contype_conaffinity_pairs_between_articulations(write_usda, quiet):
    """Two free bodies whose MuJoCo bitmasks exclude each other get a filter pair."""
    text = (
        HEADER
        + """
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.1
        int mjc:contype = 2
        int mjc:conaffinity = 2
    }
}
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.1
        int mjc:contype = 1
        int mjc:conaffinity = 1
    }
}
def Xform "c" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.1
        int mjc:contype = 0
        int mjc:conaffinity = 0
    }
}
"""
    )
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    m = result["path_shape_map"]
    assert builder.shape_collision_filter_pairs == {(m["/a/s"], m["/b/s"])}
    assert not builder.tables["shape"].value("collide", m["/c/s"])  # contype = conaffinity = 0


@pytest.mark.parametrize("scale, ellipsoid", [((0.1, 0.2, 0.3), True), ((0.3, 0.3, 0.3), False)])
def test_sphere_under_non_uniform_scale_is_an_ellipsoid(tmp_path, scale, ellipsoid):
    """A sphere under a non-uniform scale (the MJCF converter's ellipsoid) imports as an ellipsoid with
    the scaled radii as semi-axes, without a warning; under a uniform scale it stays a sphere."""
    import warnings

    from newton_gym.usd import UsdImportWarning

    path = tmp_path / "ellipsoid.usda"
    path.write_text(f"""#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene" {{}}
def Xform "body" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    float physics:mass = 1
    def Sphere "ell" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{
        double radius = 1
        float3 xformOp:scale = {scale}
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }}
}}
""")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        builder = ng.ModelBuilder()
        builder.add_usd(str(path))
    said = [str(w.message) for w in record if issubclass(w.category, UsdImportWarning)]
    assert not any("ellipsoid" in s for s in said), said
    kind = builder.tables["shape"].value("type", 0)
    size = np.asarray(builder.tables["shape"].get("scale")[0])
    if ellipsoid:
        assert kind == ng.GeoType.ELLIPSOID
        np.testing.assert_allclose(size, [0.1, 0.2, 0.3], rtol=1e-6)
    else:
        assert kind == ng.GeoType.SPHERE
        assert np.isclose(size[0], 0.3)


def test_mjcf_ellipsoid_converts_and_imports_as_an_ellipsoid(tmp_path):
    """MJCF ellipsoid -> USD (our converter) -> add_usd: an ellipsoid with MuJoCo's semi-axes, pose and
    (from density) mass and inertia."""
    mujoco = pytest.importorskip("mujoco")
    from newton_gym.assets import MjcfConverter, MjcfConverterCfg

    xml = tmp_path / "ell.xml"
    xml.write_text(
        '<mujoco model="ell"><worldbody><body name="b" pos="0 0 1"><freejoint/>'
        '<geom name="e" type="ellipsoid" size=".3 .2 .1" density="700" euler="0 0 30"/></body>'
        "</worldbody></mujoco>"
    )
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "usd"))).usd_path
    builder = ng.ModelBuilder()
    builder.add_usd(usd)
    model = builder.finalize("cpu")
    mj = mujoco.MjModel.from_xml_path(str(xml))
    kinds = model.shape_type.numpy()
    assert (kinds == int(ng.GeoType.ELLIPSOID)).sum() == 1, kinds
    s = int(np.nonzero(kinds == int(ng.GeoType.ELLIPSOID))[0][0])
    np.testing.assert_allclose(model.shape_scale.numpy()[s], [0.3, 0.2, 0.1], rtol=1e-5)
    b = int(model.shape_body.numpy()[s])
    assert model.body_mass.numpy()[b] == pytest.approx(float(mj.body_mass[1]), rel=1e-5)
    np.testing.assert_allclose(
        np.linalg.eigvalsh(model.body_inertia.numpy()[b]), np.sort(mj.body_inertia[1]), rtol=1e-4
    )
