"""Mesh polygons and mesh-mesh / mesh-box multi-contacts against MuJoCo C.

1. Hull polygons: MuJoCo's compiler merges the hull's triangles whose normals round to the same azimuth
   and polar angle (0.01 rad steps) into polygons; ours (:func:`.hull.convex_hull`'s ``polygons``) are
   the same, corner for corner and in the same order, with the same normals, for random point clouds and
   box-like CAD meshes whose faces are coplanar only to about 1e-5.
2. Contacts in random penetrating poses (B moved along a random direction until MuJoCo's signed distance
   is a target in [-8 mm, -0.5 mm]) of two meshes (a box-like CAD mesh, a prism with a 13-gon cap, the
   hull of a random point cloud) and of a mesh and a box: every MuJoCo contact has one of ours at the
   same point, distance and normal, and the counts agree, in most poses. MuJoCo's multicontact starts
   from the corners of its EPA's final triangle, which ours does not always reproduce (another
   triangle of the same Minkowski facet, or one MuJoCo's tolerance stops at), so a few poses may take
   other features; the test requires at least 80% of the poses to match exactly.

The meshes are given to MuJoCo in its own compiled frame (centred on the centre of mass, principal axes
along x, y, z), so that its compiler, which merges polygons before moving a mesh to that frame, sees the
vertices we see.
"""

from __future__ import annotations

import numpy as np
import pytest
from mujoco_builder import builder_from_mujoco
from solver_helpers import at_distance, collide_poisoned

from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.collision.hull import convex_hull

mujoco = pytest.importorskip("mujoco")

ATOL_POINT, ATOL_DIST, ATOL_NORMAL = 1e-4, 1e-4, 1e-3


def _box_cad(rng, half=(0.1, 0.07, 0.05), grid=5, jitter=1e-5):
    """A box whose faces are grids of points, each moved by up to ``jitter`` [m] (near-coplanar
    triangles, as CAD exports)."""
    g = np.linspace(-1.0, 1.0, grid)
    pts = []
    for axis in range(3):
        for side in (-1.0, 1.0):
            for u in g:
                for v in g:
                    q = np.zeros(3)
                    q[axis], q[(axis + 1) % 3], q[(axis + 2) % 3] = side, u, v
                    pts.append(q)
    p = np.unique(np.array(pts), axis=0) * np.asarray(half)
    return p + rng.uniform(-jitter, jitter, size=p.shape)


def _prism(sides=13, radius=0.06, height=0.03):
    """A prism on a regular ``sides``-gon (caps of ``sides`` corners)."""
    ang = 2.0 * np.pi * (np.arange(sides) + 0.3) / sides
    ring = np.stack([radius * np.cos(ang), 0.8 * radius * np.sin(ang)], axis=1)
    return np.concatenate([np.c_[ring, np.full(sides, -height)], np.c_[ring, np.full(sides, height)]])


def _clouds():
    rng = np.random.default_rng(11)
    return {
        "gaussian": rng.normal(size=(60, 3)) * [0.08, 0.06, 0.05],
        "cad box": _box_cad(rng),
        "prism": _prism(),
    }


def _floats(points):
    return " ".join(f"{x:.9g}" for x in np.asarray(points).reshape(-1))


def _compiled(points):
    """``points`` in MuJoCo's compiled mesh frame (so that compiling them again moves nothing)."""
    m = mujoco.MjModel.from_xml_string(
        f'<mujoco><asset><mesh name="m" vertex="{_floats(points)}"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
    return m.mesh_vert[: m.mesh_vertnum[0]].astype(np.float64)


@pytest.mark.parametrize("kind", ["gaussian", "cad box", "prism"])
def test_polygons_are_mujocos(kind):
    points = _compiled(_clouds()[kind])
    m = mujoco.MjModel.from_xml_string(
        f'<mujoco><asset><mesh name="m" vertex="{_floats(points)}"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
    verts = np.array(_floats(points).split(), dtype=np.float64).reshape(-1, 3)  # what MuJoCo read
    theirs = []
    for p in range(m.mesh_polyadr[0], m.mesh_polyadr[0] + m.mesh_polynum[0]):
        first = m.mesh_polyvertadr[p]
        theirs.append((tuple(m.mesh_polyvert[first : first + m.mesh_polyvertnum[p]].tolist()), m.mesh_polynormal[p]))
    hull = convex_hull(verts)
    ours = {tuple(hull.poly_vertices[f].tolist()): n for f, n in zip(hull.polygons, hull.polygon_normals)}
    # The same polygons, corner for corner (MuJoCo lists them in its hash map's order, not ours).
    assert sorted(ours) == sorted(t for t, _ in theirs)
    for corners, normal in theirs:  # Newell's normals; a sliver's turns with its corners' last bits
        c = verts[list(corners)]
        twice_area = np.linalg.norm(np.cross(c, np.roll(c, -1, axis=0)).sum(axis=0))
        np.testing.assert_allclose(ours[corners], normal, atol=1e-6 + 1e-8 / twice_area)
    if kind == "cad box":  # near-coplanar triangles merged (a side whose azimuth rounds to both +-pi splits)
        assert max(len(c) for c in ours) >= 8


def _scene(a, b, pos, quat_a, quat_b, assets):
    return f"""<mujoco><option timestep="0.002"/><asset>{assets}</asset>
      <worldbody><geom name="a" {a} quat="{" ".join(map(str, quat_a))}"/>
        <body pos="{" ".join(map(str, pos))}" quat="{" ".join(map(str, quat_b))}"><freejoint/>
        <geom name="b" {b}/></body></worldbody></mujoco>"""


def _pose(rng, a, b, assets, target):
    """MJCF with A and B in random orientations, B moved along a random direction until MuJoCo's
    signed distance is ``target``."""
    qa, qb = rng.normal(size=4), rng.normal(size=4)
    qa, qb = qa / np.linalg.norm(qa), qb / np.linalg.norm(qb)
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    return at_distance(lambda s: _scene(a, b, u * s, qa, qb, assets), u, target)


def _ours(m):
    """Our contacts at MuJoCo's qpos0: (point, dist, normal A to B) for each active slot."""
    builder, _, _ = builder_from_mujoco(m)
    model = builder.finalize("cpu")
    c = SolverGeneralized(model).contacts
    active = collide_poisoned(model, c, model.state().body_q)
    assert (c.pair_shape_host == [[0, 1]] * c.pair_count).all()
    return [(c.point.numpy()[s], float(c.dist.numpy()[s]), c.normal.numpy()[s]) for s in np.nonzero(active == 1)[0]]


def _theirs(d):
    out = []
    for k in range(d.ncon):
        p, dist, n = d.contact.pos[k].copy(), float(d.contact.dist[k]), d.contact.frame[k][:3].copy()
        if not any(np.abs(p - q).max() < 1e-9 and abs(dist - e) < 1e-12 for q, e, _ in out):
            out.append((p, dist, n))
    return out


def _same(ours, theirs):
    if len(ours) != len(theirs):
        return False
    for p, dist, n in theirs:
        if not any(
            np.abs(p - q).max() < ATOL_POINT and abs(dist - e) < ATOL_DIST and np.abs(n - k).max() < ATOL_NORMAL
            for q, e, k in ours
        ):
            return False
    return True


PAIRS = [
    ("cad box", "cad box"),
    ("cad box", "prism"),
    ("prism", "gaussian"),
    ("gaussian", "gaussian"),
    ("box", "cad box"),
]


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_random_penetrations_match_mujoco(pair):
    clouds = {k: _compiled(v) for k, v in _clouds().items()}
    names = {"cad box": "cad", "prism": "prism", "gaussian": "cloud"}
    assets = "".join(f'<mesh name="{names[k]}" vertex="{_floats(v)}"/>' for k, v in clouds.items())
    geom = {k: f'type="mesh" mesh="{n}"' for k, n in names.items()}
    geom["box"] = 'type="box" size=".09 .06 .04"'
    rng = np.random.default_rng([5, PAIRS.index(pair)])
    poses, matched = 20, 0
    for _ in range(poses):
        target = rng.uniform(-0.008, -0.0005)
        m = mujoco.MjModel.from_xml_string(_pose(rng, geom[pair[0]], geom[pair[1]], assets, target))
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        ours, theirs = _ours(m), _theirs(d)
        assert theirs and ours
        deepest_ours, deepest_theirs = min(e for _, e, _ in ours), min(e for _, e, _ in theirs)
        assert abs(deepest_ours - deepest_theirs) < 1e-3  # the same penetration, whatever the features
        matched += _same(ours, theirs)
    print(f"{pair}: {matched} of {poses} poses match MuJoCo's contacts")
    assert matched >= 0.8 * poses, f"{matched} of {poses} poses match MuJoCo's contacts"
