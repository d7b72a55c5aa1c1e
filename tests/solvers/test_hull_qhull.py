"""Mesh convex hulls from qhull (collision.hull): the same hull vertices as MuJoCo C's compiler (which
runs qhull with "Qt", and "Q9 TA<maxhullvert - 4>" under a vertex limit), closed outward polygon faces,
the built-in fallback where scipy is missing, and one computation per mesh (cached on the Mesh)."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import newton_gym as ng
from newton_gym.errors import ConfigError
from newton_gym.solvers.collision import hull as hull_module
from newton_gym.solvers.collision.hull import HULL_BACKEND_ENV, convex_hull, hull_tables, mesh_hull

pytest.importorskip("scipy")


def _f32(points):
    """Points as MuJoCo stores them (float32), in float64."""
    return np.asarray(points, np.float32).astype(np.float64)


def _cloud(kind: str, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "cube_interior":  # 8 corners among interior points
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * 0.1
        return _f32(np.concatenate([rng.uniform(-0.09, 0.09, (200, 3)), corners, rng.uniform(-0.09, 0.09, (50, 3))]))
    if kind == "sphere":  # every point a hull vertex
        p = rng.normal(size=(500, 3))
        return _f32(0.1 * p / np.linalg.norm(p, axis=1, keepdims=True))
    if kind == "box_faces":  # a box's faces sampled on a grid: coplanar faces, points on faces and edges
        g = np.linspace(-0.1, 0.1, 5)
        box = np.array([(x, y, z) for x in g for y in g for z in g if max(abs(x), abs(y), abs(z)) > 0.0999])
        return _f32(box[rng.permutation(len(box))])
    if kind == "prism":  # hexagonal prism, a cap with a centre point and an inner ring (coplanar)
        ring = np.stack([np.cos(np.arange(6) * np.pi / 3), np.sin(np.arange(6) * np.pi / 3)], axis=1) * 0.1
        z = np.full((6, 1), 0.05)
        return _f32(
            np.concatenate([np.hstack([ring, -z]), np.hstack([ring, z]), [[0, 0, 0.05]], np.hstack([ring / 2, z])])
        )
    if kind == "repeated":  # repeated points, passed to qhull as they are (as MuJoCo does)
        p = _cloud("sphere", seed)[:100]
        return np.concatenate([p, p[:50]])
    raise ValueError(kind)


def _mujoco_hull(points, maxhullvert=-1):
    """MuJoCo's compiled vertices of an MJCF mesh with vertices ``points`` (moved to its centre of mass and
    rotated to its principal axes, float32; in the order given) and the indices of the vertices its hull
    keeps: the vertex ids in its hull graph (``mesh_graph`` at ``mesh_graphadr``: vertex count, face
    count, each vertex's edge address, then each hull vertex's index in the mesh's vertex list)."""
    mujoco = pytest.importorskip("mujoco")
    vertex = " ".join(f"{x:.9g}" for x in np.asarray(points).reshape(-1))
    m = mujoco.MjModel.from_xml_string(
        f'<mujoco><asset><mesh name="m" vertex="{vertex}" maxhullvert="{maxhullvert}"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
    assert m.mesh_vertnum[0] == len(points)  # MuJoCo kept the vertex list as given (same indices)
    compiled = m.mesh_vert[m.mesh_vertadr[0] : m.mesh_vertadr[0] + len(points)].astype(np.float64)
    graph = m.mesh_graph[m.mesh_graphadr[0] :]
    count = int(graph[0])
    return compiled, set(graph[2 + count : 2 + 2 * count].tolist())


def _mujoco_hull_ids(points, maxhullvert=-1) -> set:
    return _mujoco_hull(points, maxhullvert)[1]


@pytest.mark.parametrize(
    ("kind", "limit"),
    [("cube_interior", -1), ("sphere", -1), ("box_faces", -1), ("prism", -1), ("repeated", -1)]
    + [("sphere", k) for k in (4, 6, 8, 16, 64)]
    + [("cube_interior", 6), ("box_faces", 5), ("prism", 8), ("repeated", 16)],
)
def test_hull_vertices_are_mujocos(kind, limit):
    points = _cloud(kind)
    ours = convex_hull(points, limit, backend="qhull")
    assert set(ours.vertices.tolist()) == _mujoco_hull_ids(points, limit)


@pytest.mark.parametrize("kind", ["box_faces", "prism", "cube_interior"])
def test_compiled_vertices_get_mujocos_hull(kind):
    """The MJCF converter writes MuJoCo's compiled vertices (moved, rotated, float32), on which coplanar
    faces are coplanar only to round-off; MuJoCo computed its hull from the source vertices. Within the
    1e-7 x extent tolerance, the hull of the compiled vertices has MuJoCo's hull vertices."""
    compiled, theirs = _mujoco_hull(_cloud(kind))
    assert set(convex_hull(compiled, backend="qhull").vertices.tolist()) == theirs


def test_points_off_a_face_by_round_off_are_not_vertices():
    """Points sampled on a rotated box's faces and rounded to float32: qhull (MuJoCo) keeps points a
    hair off a face as vertices; within the tolerance they are not ones here. Our vertices are MuJoCo's
    less those, each within the tolerance of our hull's faces."""
    rng = np.random.default_rng(4)
    points = rng.uniform(-1.0, 1.0, (800, 3))
    points[np.arange(800), rng.integers(0, 3, 800)] = rng.choice([-1.0, 1.0], 800)
    rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    points = _f32(0.1 * points @ rotation.T)
    hull = convex_hull(points, backend="qhull")
    _check_closed_outward(points, hull, points)
    theirs = _mujoco_hull_ids(points)
    ours = set(hull.vertices.tolist())
    assert ours < theirs
    extra = points[sorted(theirs - ours)]
    tol = 1e-7 * np.ptp(points, axis=0).max()
    v = points[hull.vertices]
    offsets = np.array([v[face[0]] @ n for face, n in zip(hull.faces, hull.normals)])
    assert (np.abs(extra @ hull.normals.T - offsets).min(axis=1) < tol).all()  # on a face, to round-off


def _check_closed_outward(points, hull, supported):
    """Faces: planar, counter-clockwise seen from outside with unit outward normals, supporting planes of
    the ``supported`` points, every edge shared by exactly two faces in opposite directions (closed)."""
    v = points[hull.vertices]
    tol = 1e-7 * np.ptp(points, axis=0).max()
    directed = []
    assert np.allclose(np.linalg.norm(hull.normals, axis=1), 1.0)
    for face, n in zip(hull.faces, hull.normals):
        corners = v[face]
        offset = corners[0] @ n
        assert np.abs(corners @ n - offset).max() < tol  # planar
        assert (supported @ n - offset).max() < tol  # every point below the face
        centre = corners.mean(axis=0)
        turn = np.cross(corners - centre, np.roll(corners, -1, axis=0) - centre) @ n
        assert (turn > 0).all()  # counter-clockwise from outside, no collinear corners
        directed += list(zip(face.tolist(), np.roll(face, -1).tolist()))
    assert len(set(directed)) == len(directed)
    assert set(directed) == {(b, a) for a, b in directed}  # each edge once each way: closed, consistent
    used = {a for a, _ in directed}
    assert used == set(range(len(v)))  # every hull vertex is a face corner
    assert len(v) - len(directed) // 2 + len(hull.faces) == 2  # Euler: a convex polyhedron


@pytest.mark.parametrize("backend", ["qhull", "builtin"])
@pytest.mark.parametrize("kind", ["cube_interior", "sphere", "box_faces", "prism", "repeated"])
def test_faces_are_closed_and_outward(kind, backend):
    points = _cloud(kind)
    full = convex_hull(points, backend=backend)
    _check_closed_outward(points, full, points)
    reduced = convex_hull(points, 8, backend=backend)
    _check_closed_outward(points, reduced, points[reduced.vertices])
    assert len(reduced.vertices) <= 8


def test_coplanar_faces_are_merged_into_polygons():
    box = convex_hull(_cloud("box_faces"), backend="qhull")
    assert len(box.vertices) == 8 and sorted(len(f) for f in box.faces) == [4] * 6
    prism = convex_hull(_cloud("prism"), backend="qhull")
    assert sorted(len(f) for f in prism.faces) == [4] * 6 + [6, 6]


def test_float32_rounded_coplanar_faces_stay_one_face():
    """A box with gridded faces, rotated and rounded to float32 (as MuJoCo's compiled meshes are): its
    faces are coplanar only to float32 round-off, and still come out as 6 quads with the 8 corners."""
    angle = 0.7
    axis = np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rotation = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    points = _f32(_cloud("box_faces") @ rotation.T)
    hull = convex_hull(points, backend="qhull")
    assert len(hull.vertices) == 8 and sorted(len(f) for f in hull.faces) == [4] * 6
    _check_closed_outward(points, hull, points)


@pytest.mark.parametrize("limit", [4, 5, 10, 32, 100])
def test_maxhullvert_bounds_the_hull(limit):
    points = _f32(np.random.default_rng(limit).normal(size=(400, 3)) * 0.1)
    for backend in ("qhull", "builtin"):
        hull = convex_hull(points, limit, backend=backend)
        assert len(hull.vertices) <= limit
        assert len(hull.vertices) == min(limit, len(convex_hull(points, backend=backend).vertices))


def test_flat_and_tiny_point_sets_have_no_faces():
    square = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.5, 0]], float)
    for points in (square, square[:3]):
        hull = convex_hull(points, backend="qhull")
        assert hull.faces == [] and len(hull.vertices) == len(points)


def _cube_mesh(maxhullvert=-1):
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * 0.1
    inside = np.random.default_rng(0).uniform(-0.05, 0.05, (30, 3))
    tris = [[0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3], [0, 1, 3], [0, 3, 2]]
    tris += [[4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6]]
    return ng.Mesh(np.concatenate([corners, inside]), tris, maxhullvert=maxhullvert)


def test_hull_is_computed_once_per_mesh(monkeypatch):
    from newton_gym.solvers import SolverGeneralized

    calls = []
    inner = hull_module.convex_hull

    def counting(points, maxhullvert=-1, backend=None):
        calls.append(len(points))
        return inner(points, maxhullvert, backend)

    monkeypatch.setattr(hull_module, "convex_hull", counting)
    monkeypatch.delenv(HULL_BACKEND_ENV, raising=False)
    mesh = _cube_mesh()
    robot = ng.ModelBuilder()
    body = robot.add_body(xform=((0, 0, 0.5), (0, 0, 0, 1)))
    robot.add_shape_mesh(body, mesh=mesh)
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(robot, 4)
    model = scene.finalize("cpu")
    first = SolverGeneralized(model)
    second = SolverGeneralized(model)  # a rebuilt solver reuses the hull kept on the mesh
    assert calls == [len(mesh.vertices)]
    assert mesh_hull(mesh) is mesh_hull(mesh)
    np.testing.assert_array_equal(first.contacts.mesh_start.numpy(), second.contacts.mesh_start.numpy())
    # Another Mesh of the same vertices shares the computation within one call; another limit does not.
    twin, copy, capped = _cube_mesh(), _cube_mesh(), _cube_mesh(maxhullvert=6)
    tables = hull_tables([twin, copy, capped])
    assert len(calls) == 3  # the model's mesh, the twin (its copy shares it), the capped one
    assert copy._hulls[(-1, "qhull")] is twin._hulls[(-1, "qhull")]
    assert np.diff(tables.vert_start).tolist() == [8, 8, 6]
    assert twin._hulls[(-1, "qhull")] is mesh_hull(twin)


def test_big_mesh_hull_is_fast():
    """A 5000-vertex mesh (qhull's hull has ~1800 vertices) takes well under a second; the bound here is
    loose because the test machine is shared (benchmarks/bench_build.py times it)."""
    rng = np.random.default_rng(0)
    p = rng.normal(size=(5000, 3))
    p *= (1.0 + 0.01 * rng.random((5000, 1))) / np.linalg.norm(p, axis=1, keepdims=True)
    start = time.perf_counter()
    hull = convex_hull(p, backend="qhull")
    assert time.perf_counter() - start < 5.0
    assert 1000 < len(hull.vertices) < 5000


def test_backend_from_environment(monkeypatch):
    mesh = _cube_mesh()
    monkeypatch.setenv(HULL_BACKEND_ENV, "builtin")
    assert mesh_hull(mesh) is mesh._hulls[(-1, "builtin")]
    monkeypatch.setenv(HULL_BACKEND_ENV, "qhull")
    assert mesh_hull(mesh) is mesh._hulls[(-1, "qhull")]
    assert set(mesh._hulls[(-1, "builtin")].vertices) == set(mesh._hulls[(-1, "qhull")].vertices) == set(range(8))
    monkeypatch.setenv(HULL_BACKEND_ENV, "cgal")
    with pytest.raises(ConfigError, match=HULL_BACKEND_ENV):
        mesh_hull(mesh)
    with pytest.raises(ConfigError, match="'cgal' is not one of"):
        convex_hull(mesh.vertices, backend="cgal")


def test_without_scipy_the_builtin_hull_runs_and_warns_once(monkeypatch):
    monkeypatch.setattr(hull_module, "_has_scipy", lambda: False)
    monkeypatch.setattr(hull_module, "_warned_slow", False)
    monkeypatch.delenv(HULL_BACKEND_ENV, raising=False)
    points = np.random.default_rng(2).normal(size=(2500, 3))  # big, but a small hull: quick to build
    with pytest.warns(UserWarning, match="scipy"):
        hull = convex_hull(points)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = convex_hull(points)  # warned once per process
        convex_hull(points[:100])  # small meshes never warn
    np.testing.assert_array_equal(hull.vertices, again.vertices)
    assert set(hull.vertices) == set(convex_hull(points, backend="builtin").vertices)
    with pytest.raises(ImportError, match="scipy"):
        convex_hull(points, backend="qhull")
