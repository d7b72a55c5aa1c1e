"""Convex hulls of mesh colliders (collision_hull) and the maxhullvert limit, against MuJoCo C's compiled
hulls (qhull) and the MJCF -> USD -> solver path."""

from __future__ import annotations

import numpy as np
import pytest

import newton_gym as ng
from newton_gym.errors import ModelBuildError
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.collision.hull import convex_hull, hull_tables

mujoco = pytest.importorskip("mujoco")


def _cloud(kind, rng):
    if kind == "gaussian":
        return rng.normal(size=(300, 3)) * 0.1
    if kind == "sphere":  # every point a hull vertex
        p = rng.normal(size=(300, 3))
        return 0.1 * p / np.linalg.norm(p, axis=1, keepdims=True)
    return rng.integers(-2, 3, size=(300, 3)) * 0.05  # a grid: duplicates, coplanar and collinear points


def _mujoco_hull(points, maxhullvert=-1):
    """(compiled mesh vertices, MuJoCo's hull vertex positions) of a mesh of ``points``."""
    vertex = " ".join(f"{x:.9g}" for x in np.asarray(points).reshape(-1))
    m = mujoco.MjModel.from_xml_string(
        f'<mujoco><asset><mesh name="m" vertex="{vertex}" maxhullvert="{maxhullvert}"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
    verts = m.mesh_vert[m.mesh_vertadr[0] : m.mesh_vertadr[0] + m.mesh_vertnum[0]].astype(np.float64)
    graph = m.mesh_graph[m.mesh_graphadr[0] :]
    count = int(graph[0])
    return verts, verts[graph[2 + count : 2 + 2 * count]]


def _rows(a):
    return {tuple(np.round(r, 7)) for r in a}


@pytest.mark.parametrize("kind", ["gaussian", "sphere", "grid"])
def test_full_hull_is_mujocos_and_closed(kind):
    verts, theirs = _mujoco_hull(_cloud(kind, np.random.default_rng(3)))
    hull = convex_hull(verts)
    v = verts[hull.vertices]
    assert _rows(v) == _rows(theirs)
    edges = set()
    tol = 1e-7 * np.ptp(verts, axis=0).max()  # the hull's coplanarity tolerance (float32 round-off)
    for face, n in zip(hull.faces, hull.normals):
        corners = v[face]
        offset = corners[0] @ n
        assert (verts @ n - offset).max() < tol  # a supporting plane: every point below it
        assert np.abs(corners @ n - offset).max() < tol  # planar
        centre = corners.mean(axis=0)
        turn = np.cross(corners - centre, np.roll(corners, -1, axis=0) - centre) @ n
        assert (turn > 0).all()  # counter-clockwise seen from outside, no collinear corners
        edges |= {tuple(sorted(e)) for e in zip(face, np.roll(face, -1))}
    assert len(v) - len(edges) + len(hull.faces) == 2  # Euler: a closed convex polyhedron


@pytest.mark.parametrize("limit", [4, 8, 16, 64])
def test_maxhullvert_limits_the_hull_like_mujoco(limit):
    verts, theirs = _mujoco_hull(_cloud("sphere", np.random.default_rng(5)), limit)
    hull = convex_hull(verts, limit)
    assert len(hull.vertices) <= limit and len(theirs) <= limit
    assert len(hull.vertices) == len(theirs)  # both stop at the limit here (all points are extreme)
    full = convex_hull(verts)
    v = verts[full.vertices]
    for face, n in zip(full.faces, full.normals):  # the reduced hull lies inside the full one
        assert (verts[hull.vertices] @ n - v[face[0]] @ n).max() < 1e-9


def test_mesh_rejects_a_hull_limit_below_four():
    tet = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])
    with pytest.raises(ModelBuildError, match="maxhullvert"):
        ng.Mesh(tet, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], maxhullvert=3)


def test_mjcf_maxhullvert_reaches_the_solver(tmp_path):
    from newton_gym.assets import MjcfConverter, MjcfConverterCfg

    p = _cloud("sphere", np.random.default_rng(9))
    vertex = " ".join(f"{x:.9g}" for x in p.reshape(-1))
    xml = tmp_path / "balls.xml"
    xml.write_text(
        f"""<mujoco><asset><mesh name="capped" vertex="{vertex}" maxhullvert="8"/>
        <mesh name="full" vertex="{vertex}"/></asset>
        <worldbody><geom type="plane" size="1 1 .1"/>
          <body name="a" pos="0 0 0.3"><freejoint/><geom type="mesh" mesh="capped"/></body>
          <body name="b" pos="0.5 0 0.3"><freejoint/><geom type="mesh" mesh="full"/></body>
        </worldbody></mujoco>"""
    )
    usd = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "usd"))).usd_path
    builder = ng.ModelBuilder()
    builder.add_usd(usd)
    model = builder.finalize("cpu")
    limits = sorted(mesh.maxhullvert for mesh in model.meshes)
    assert limits == [-1, 8]
    tables = hull_tables(model.meshes)
    sizes = np.diff(tables.vert_start)
    m = mujoco.MjModel.from_xml_path(str(xml))
    mujoco_sizes = [int(m.mesh_graph[m.mesh_graphadr[k]]) for k in range(m.nmesh)]
    assert sorted(sizes.tolist()) == sorted(mujoco_sizes) == [8, 300]
    contacts = SolverGeneralized(model).contacts  # the solver's tables are these hulls
    np.testing.assert_array_equal(contacts.mesh_start.numpy(), tables.vert_start)
