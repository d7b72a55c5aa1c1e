"""Convex hulls of mesh colliders, on the host, once per mesh.

A mesh shape collides as the convex hull of its vertices (as in MuJoCo). :func:`convex_hull` runs qhull
(``scipy.spatial.ConvexHull``) with the options MuJoCo's compiler gives it (MuJoCo >= 3.10): ``Qt`` for
the full hull, and with a vertex limit ``maxhullvert`` also ``Q9 TA<maxhullvert - 4>``: qhull then adds
the furthest of all outside points at each step and stops after adding ``maxhullvert - 4`` points to its
initial simplex. The points go to qhull as given, as MuJoCo's compiler passes a mesh's vertex list, so
a mesh here and an MJCF ``<mesh vertex=...>`` of the same vertices get the same hull vertices, to the
index, with and without a limit (tests/solvers/test_hull_qhull.py checks it against MuJoCo), except for
points within the coplanarity tolerance below of a face or an edge, which qhull may keep and this module
drops. A limited hull depends on the frame of the points (qhull's first simplex is made of extreme
coordinates): MuJoCo computes it before moving a mesh to its centre of mass and principal axes, so the
compiled vertices the MJCF converter writes can give another hull of the same size. A point set qhull
finds flat, or of fewer than 4 points, has no faces; its hull vertices are all its distinct points.

Without scipy a built-in quickhull runs instead (pure Python: seconds to a minute for meshes of
thousands of vertices; a warning says so once). It starts from a tetrahedron of extreme points and
repeatedly adds the point furthest outside the hull over all faces (ties to the lowest index), stopping
at ``maxhullvert`` vertices. Its first tetrahedron can differ from qhull's, so a reduced hull has the same
size bound but not always the same vertices. The environment variable ``NEWTON_GYM_HULL_BACKEND``
(``qhull`` or ``builtin``) or the ``backend`` argument picks one (benchmarks compare them).

Faces (:attr:`Hull.faces`) are the hull's triangles merged where coplanar: the triangles of one qhull
facet (one plane), then facets grown from the largest down, each taking in the neighbouring facets whose
corners all lie within 1e-7 of the point cloud's extent of its plane (float32 round-off: corners of a
face stored in float32 stay one face). Each face is the 2D hull of its corners, so a point that close to
a face or an edge is not a hull vertex (:attr:`Hull.vertices`).

Polygons (:attr:`Hull.polygons`, what the narrow phase collides with) are MuJoCo's
(``mjCMesh::MakePolygons``, built by :mod:`.mesh_polygons`): every triangle of qhull's triangulated hull
(all its vertices, :attr:`Hull.poly_vertices`; MuJoCo orders a facet's corners as its compiler does) gets
a key, its unit normal's azimuth and polar angle each divided by 0.01 rad and rounded (half away from zero; 0 and the
rounded pi / 0.01 polar angle for normals within 1e-7 of +-z); triangles of one key form one polygon,
built as MuJoCo's MeshPolygon (a triangle sharing an edge, reversed, with the polygon removes that edge
and adds its others; triangles not yet connected start islands, merged when a triangle joins them);
each island's boundary loop, followed from its first edge, is one polygon (counter-clockwise seen from
outside), with Newell's normal (MuJoCo's). So nearly coplanar triangles (within ~0.01 rad, CAD
faces) merge into one polygon, which need not be exactly flat, and a flat side whose normal lies on a
rounding boundary splits as in MuJoCo. Exact up to one rule: MuJoCo lists the polygons in its hash
map's order (its collider's ties between equally aligned polygons follow it), here in the order their
keys first appear. The keys depend on the frame of the points: MuJoCo merges before moving a mesh to
its centre of mass and principal axes, so compiled vertices (what the MJCF and URDF converters write)
can group otherwise where a normal is near a rounding boundary, or where qhull triangulates a flat facet
otherwise (merging in MuJoCo's source frame was tried on the URDF zoo: it matched most meshes, not all,
and moved the G1 further from MuJoCo, so it is not done).

:func:`hull_tables` concatenates the hulls of all meshes into the flat arrays the narrow phase reads:
the polygons' vertices (:attr:`Hull.poly_vertices`) and the polygons (corners counter-clockwise seen
from outside, in MuJoCo's order) with their unit normals, all in the mesh frame before the shape's scale.
Each :class:`newton_gym.Mesh` keeps its hulls (one per ``maxhullvert`` and backend), so
replicated worlds and rebuilt solvers reuse them, and meshes with equal vertices in one call share one
computation.
"""

from __future__ import annotations

import hashlib
import math
import os
import warnings
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError
from .mesh_polygons import mujoco_polygons

__all__ = ["HULL_BACKEND_ENV", "Hull", "HullTables", "convex_hull", "hull_tables", "mesh_hull"]

#: Environment variable that picks the hull backend: "qhull" (scipy), "builtin", or "auto" (the default:
#: qhull when scipy imports).
HULL_BACKEND_ENV = "NEWTON_GYM_HULL_BACKEND"
_BACKENDS = ("auto", "qhull", "builtin")

# Coplanarity tolerance relative to the point cloud's extent: about float32 round-off, so that corners
# of a face stored in float32 (as MuJoCo's compiled meshes are) stay one face.
_REL_EPS = 1e-7

# Point count above which the built-in hull is slow enough to warn about (seconds per mesh).
_BIG_MESH = 2000
_warned_slow = False


@dataclass
class Hull:
    """Convex hull of one point set.

    Attributes:
        vertices: (hull_vertex_count,) int64 indices of the hull vertices in the input, ascending.
        faces: list of (face_vertex_count,) int64 arrays, positions in ``vertices`` of each face's
            corners, counter-clockwise seen from outside. Empty for a flat or degenerate point set.
        normals: (face_count, 3) float64 outward unit normals.
        poly_vertices: (n,) int64 the triangulated hull's vertices (input indices, ascending), which
            MuJoCo's polygons use: ``vertices`` and the points the faces above leave out as lying on a
            face or an edge. None for a flat or degenerate point set (then ``vertices``).
        polygon_corners: (corner total,) int64 MuJoCo's polygons (see the module docstring), one after
            another: positions in ``poly_vertices``, counter-clockwise seen from outside, in MuJoCo's
            corner order (:attr:`polygons` lists them one by one).
        polygon_start: (polygon_count + 1,) int64 first corner of each polygon.
        polygon_normals: (polygon_count, 3) float64 their unit normals (Newell's, as MuJoCo's).
    """

    vertices: np.ndarray
    faces: list
    normals: np.ndarray
    poly_vertices: np.ndarray | None = None
    polygon_corners: np.ndarray | None = None
    polygon_start: np.ndarray | None = None
    polygon_normals: np.ndarray | None = None

    @property
    def polygons(self) -> list:
        """MuJoCo's polygons, each an int64 array of positions in ``poly_vertices`` (empty: none)."""
        if self.polygon_start is None:
            return []
        return np.split(self.polygon_corners, self.polygon_start[1:-1])


def _check_backend_name(backend: str | None) -> str:
    """The requested backend's name, "auto", "qhull" or "builtin" (None: the environment variable, else
    "auto")."""
    name = backend or os.environ.get(HULL_BACKEND_ENV) or "auto"
    if name not in _BACKENDS:
        where = "backend" if backend else HULL_BACKEND_ENV
        raise ConfigError(f"convex hull {where} '{name}' is not one of {list(_BACKENDS)}")
    return name


def _resolve_backend(backend: str | None) -> str:
    """The backend, "qhull" or "builtin", for a requested one (None: the environment variable, else "auto")."""
    name = _check_backend_name(backend)
    if name == "builtin" or (name == "auto" and not _has_scipy()):
        return "builtin"
    if not _has_scipy():
        raise ImportError(
            "the qhull convex hull needs scipy; install the 'mesh' extra (pip install 'newton-gym[mesh]')"
        )
    return "qhull"


def _has_scipy() -> bool:
    try:
        import scipy.spatial  # noqa: F401
    except ImportError:
        return False
    return True


def convex_hull(points, maxhullvert: int = -1, backend: str | None = None) -> Hull:
    """Convex hull of ``points`` ((n, 3) float [m]), with at most ``maxhullvert`` vertices when it is >= 4
    (see the module docstring); a flat or degenerate point set returns all its distinct points and no
    faces.

    Args:
        points: (n, 3) float point cloud.
        maxhullvert: Vertex limit (MuJoCo's ``<mesh maxhullvert>``); below 4 (MuJoCo's -1) for none.
        backend: "qhull", "builtin" or "auto"; None reads ``NEWTON_GYM_HULL_BACKEND`` (default "auto").

    Raises:
        ConfigError: An unknown backend.
        ImportError: Backend "qhull" without scipy.
    """
    global _warned_slow
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    extent = float(np.ptp(p, axis=0).max()) if len(p) else 0.0
    eps = _REL_EPS * max(extent, 1e-12)
    kind = _resolve_backend(backend)
    if kind == "builtin" and len(p) > _BIG_MESH and not _warned_slow and not _has_scipy():
        _warned_slow = True
        warnings.warn(
            f"computing the convex hull of a {len(p)}-vertex mesh without scipy (pure Python, can take "
            "a minute); install scipy (pip install 'newton-gym[mesh]') for qhull",
            stacklevel=3,
        )
    if kind == "qhull":
        triangles = _qhull_triangles(p, maxhullvert)
        if triangles is not None:
            return _with_polygons(_polygons(p, *triangles, eps), p, triangles[0])
    return _builtin_hull(p, maxhullvert, eps)


def _with_polygons(hull, p, tris):
    """``hull`` with MuJoCo's polygons of the triangles ``tris`` of the points p added."""
    hull.poly_vertices, hull.polygon_corners, hull.polygon_start, hull.polygon_normals = mujoco_polygons(p, tris)
    return hull


def _qhull_triangles(p, maxhullvert):
    """qhull's hull of ``p``: triangles (k, 3) of input indices, counter-clockwise seen from outside,
    their outward unit normals (k, 3) and their qhull facet's plane id (k,); None for fewer than 4
    points or a set qhull finds flat."""
    from scipy.spatial import ConvexHull, QhullError

    if len(p) < 4:
        return None
    options = "Qt" if maxhullvert < 4 else f"Qt Q9 TA{maxhullvert - 4}"
    try:
        hull = ConvexHull(p, qhull_options=options)
    except QhullError:
        return None
    tris = hull.simplices.astype(np.int64)
    normals = hull.equations[:, :3]
    a, b, c = (p[tris[:, k]] for k in range(3))
    flip = np.einsum("ij,ij->i", np.cross(b - a, c - a), normals) < 0
    tris[flip] = tris[flip][:, [1, 0, 2]]  # as MuJoCo's compiler orders a flipped facet's corners
    # Qt splits a merged facet into triangles sharing its plane: equal plane rows are one facet.
    _, plane = np.unique(hull.equations, axis=0, return_inverse=True)
    return tris, normals, plane.reshape(-1)


def _builtin_hull(p, maxhullvert, eps):
    """The built-in quickhull (see the module docstring)."""
    simplex = _initial_simplex(p, eps) if len(p) >= 4 else None
    if simplex is None:
        return Hull(np.unique(np.unique(p, axis=0, return_index=True)[1]), [], np.zeros((0, 3)))
    b = _Builder(p, eps)
    a, c, d, e = simplex
    first = b.add_triangles([(a, c, d), (a, e, c), (c, e, d), (d, e, a)])
    b.assign(np.setdiff1d(np.arange(len(p)), simplex), first)
    while maxhullvert < 4 or b.vertex_count() < maxhullvert:
        q = b.furthest()
        if q is None:
            break
        b.add_point(q)
    live = b.live()
    tris = b.tris[live]
    return _with_polygons(_polygons(p, tris, b.normal[live], np.arange(len(live)), eps), p, tris)


def _initial_simplex(p, eps):
    """Four affinely independent extreme points (indices), or None for a flat point set."""
    extremes = np.unique(np.concatenate([np.argmin(p, axis=0), np.argmax(p, axis=0)]))
    d = np.linalg.norm(p[extremes][:, None] - p[extremes][None], axis=2)
    i, j = np.unravel_index(np.argmax(d), d.shape)
    a, b = int(extremes[i]), int(extremes[j])
    if d[i, j] <= eps:
        return None
    ab = (p[b] - p[a]) / d[i, j]
    off_line = p - p[a] - np.outer((p - p[a]) @ ab, ab)
    c = int(np.argmax(np.linalg.norm(off_line, axis=1)))
    n = np.cross(p[b] - p[a], p[c] - p[a])
    if np.linalg.norm(n) <= eps * d[i, j]:
        return None
    n /= np.linalg.norm(n)
    height = (p - p[a]) @ n
    e = int(np.argmax(np.abs(height)))
    if abs(height[e]) <= eps:
        return None
    return (a, b, c, e) if height[e] < 0 else (a, c, b, e)  # (a, b, c) counter-clockwise from outside


class _Builder:
    """Incremental hull: triangles (counter-clockwise from outside) with plane equations, and for each
    point outside the hull the one triangle it is assigned to (its ``owner``) and its height above it.
    Triangle arrays grow by doubling; ``count`` of their rows are in use, dead or alive."""

    def __init__(self, p, eps):
        self.p, self.eps = p, eps
        self.count = 0
        self.tris = np.zeros((64, 3), np.int64)
        self.normal = np.zeros((64, 3))
        self.offset = np.zeros(64)
        self.alive = np.zeros(64, bool)
        self.owner = np.full(len(p), -1, np.int64)
        self.height = np.zeros(len(p))

    def add_triangles(self, tris):
        """Append triangles (k, 3); returns their indices."""
        tris = np.asarray(tris, np.int64).reshape(-1, 3)
        first, last = self.count, self.count + len(tris)
        if last > len(self.tris):
            grow = max(last, 2 * len(self.tris)) - len(self.tris)
            self.tris = np.concatenate([self.tris, np.zeros((grow, 3), np.int64)])
            self.normal = np.concatenate([self.normal, np.zeros((grow, 3))])
            self.offset = np.concatenate([self.offset, np.zeros(grow)])
            self.alive = np.concatenate([self.alive, np.zeros(grow, bool)])
        a, b, c = (self.p[tris[:, k]] for k in range(3))
        n = np.cross(b - a, c - a)
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
        self.tris[first:last] = tris
        self.normal[first:last] = n
        self.offset[first:last] = np.einsum("ij,ij->i", n, a)
        self.alive[first:last] = True
        self.count = last
        return np.arange(first, last)

    def live(self):
        return np.nonzero(self.alive[: self.count])[0]

    def assign(self, points, tris):
        """Give each point the triangle among ``tris`` it is highest above; the others get -1."""
        if len(points) == 0 or len(tris) == 0:
            self.owner[points] = -1
            return
        h = self.p[points] @ self.normal[tris].T - self.offset[tris]
        best = np.argmax(h, axis=1)
        top = h[np.arange(len(points)), best]
        self.owner[points] = np.where(top > self.eps, tris[best], -1)
        self.height[points] = top

    def vertex_count(self):
        return len(np.unique(self.tris[self.live()]))

    def furthest(self):
        """The point furthest outside the hull (ties to the lowest index), or None."""
        out = np.nonzero(self.owner >= 0)[0]
        return int(out[np.argmax(self.height[out])]) if len(out) else None

    def add_point(self, q):
        """Replace the triangles visible from point q by a fan from q to their horizon."""
        used = slice(0, self.count)
        seen = self.alive[used] & (self.normal[used] @ self.p[q] - self.offset[used] > self.eps)
        visible = np.nonzero(seen)[0]
        edges = {(int(a), int(b)) for t in self.tris[visible] for a, b in _edges(t)}
        horizon = sorted((a, b) for a, b in edges if (b, a) not in edges)
        self.alive[visible] = False
        dead = np.zeros(self.count + 1, bool)  # owner -1 reads the last (False) entry
        dead[visible] = True
        orphans = np.nonzero(dead[self.owner])[0]
        orphans = orphans[orphans != q]
        self.owner[q] = -1
        new = self.add_triangles([(a, b, q) for a, b in horizon])
        self.assign(orphans, new)
        lost = orphans[self.owner[orphans] < 0]  # outside a visible triangle, maybe outside a kept one
        self.assign(lost, self.live())


def _edges(tri):
    i, j, k = tri
    return ((i, j), (j, k), (k, i))


def _polygons(p, tris, normals, facet, eps):
    """Faces of a triangulated hull: triangles ``tris`` (k, 3), counter-clockwise from outside, with
    outward unit ``normals`` (k, 3), grouped into facets by the ids ``facet`` (k,) (qhull's; the
    triangles of one plane) and merged into coplanar faces (see :func:`_coplanar_groups`). Each face is
    the 2D hull of its corners (counter-clockwise), which drops corners inside a face or on an edge, and
    its normal the area-weighted mean of its triangles'.

    Faces come in the order of their group ids. A lone triangle is its own face (already
    counter-clockwise, its own normal), taken for all such faces at once; only faces of several
    triangles are computed one by one."""
    area = np.linalg.norm(np.cross(p[tris[:, 1]] - p[tris[:, 0]], p[tris[:, 2]] - p[tris[:, 0]]), axis=1)
    facet = np.unique(facet, return_inverse=True)[1].reshape(-1)
    groups = _coplanar_groups(p, tris, normals, area, facet, eps)
    order = np.argsort(groups, kind="stable")
    cuts = np.nonzero(np.diff(groups[order]))[0] + 1
    bounds = np.concatenate([[0], cuts, [len(order)]]).astype(np.int64)
    sizes = np.diff(bounds)
    first = order[bounds[:-1]]
    face_normals = normals[first]  # a lone triangle's; replaced below for the faces of several
    loops = list(tris[first])
    multi = np.nonzero(sizes > 1)[0]
    if len(multi):
        _merged_faces(p, tris, normals, area, order, bounds, multi, eps, loops, face_normals)
    lens = np.full(len(loops), 3, np.int64)
    lens[multi] = [len(loops[i]) for i in multi.tolist()]
    flat = np.concatenate(loops)
    verts = np.unique(flat)
    where = np.searchsorted(verts, flat)
    ends = np.cumsum(lens)
    faces = [where[a:b] for a, b in zip((ends - lens).tolist(), ends.tolist())]
    return Hull(verts.astype(np.int64), faces, np.asarray(face_normals))


def _merged_faces(p, tris, normals, area, order, bounds, multi, eps, loops, face_normals):
    """The faces of several triangles, the groups ``multi`` of ``order`` cut at ``bounds``: each face's
    normal (the area-weighted mean of its triangles', normalized) into ``face_normals`` and its corners
    (the 2D hull of the triangles' corners, counter-clockwise seen from outside) into ``loops``. Every
    value is computed with the same numpy operations on the same operands as face by face, so the
    result does not depend on how many faces there are."""
    weighted = area[:, None] * normals
    count = len(multi)
    unit = np.empty((count, 3))
    for row, (gi, a, b) in enumerate(zip(multi.tolist(), bounds[multi].tolist(), bounds[multi + 1].tolist())):
        members = order[a:b]
        n = weighted[members].sum(axis=0)
        norm = np.sqrt(n.dot(n))  # np.linalg.norm(n)
        n = n / norm if norm > 0 else normals[members[0]]
        unit[row] = n
        face_normals[gi] = n
    axis = np.where((np.abs(unit[:, 0]) < 0.9)[:, None], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    u_all = np.cross(unit, axis)
    for row in range(count):
        u = u_all[row].copy()
        u /= np.sqrt(u.dot(u))  # np.linalg.norm(u)
        u_all[row] = u
    v_all = np.cross(unit, u_all)
    # Corners of each face: the distinct vertices of its triangles, ascending.
    tri_face = np.repeat(np.arange(count), np.diff(bounds)[multi])
    tri_index = np.concatenate([order[a:b] for a, b in zip(bounds[multi].tolist(), bounds[multi + 1].tolist())])
    key = np.unique(np.repeat(tri_face, 3) * len(p) + tris[tri_index].reshape(-1))
    corner_face, corner = np.divmod(key, len(p))
    corner_start = np.searchsorted(corner_face, np.arange(count + 1)).tolist()
    for row, gi in enumerate(multi.tolist()):
        corners = corner[corner_start[row] : corner_start[row + 1]]
        pc = p[corners]
        loops[gi] = corners[_hull_2d(pc @ u_all[row].copy(), pc @ v_all[row].copy(), eps)]


def _coplanar_groups(p, tris, normals, area, facet, eps):
    """Face id of each triangle: facets (ids 0..F-1) grown from the largest down, each absorbing the
    neighbouring facets (across an edge) whose corners all lie within ``eps`` of its plane. The plane of
    a large facet is well defined; a sliver's is not, so slivers join the faces of their neighbours.

    The test of a seed's own neighbours comes from :func:`_neighbour_tests`, computed for all facets at
    once, except where it is too close to call there; a seed none of whose neighbours passes stays alone
    without a test of its own. Further neighbours (of absorbed facets) are tested one by one."""
    count = int(facet.max()) + 1
    facet_area = np.bincount(facet, area, count)
    facet_normal = np.zeros((count, 3))
    np.add.at(facet_normal, facet, (area[:, None] + 1e-300) * normals)  # a sliver facet keeps its direction
    facet_normal /= np.linalg.norm(facet_normal, axis=1, keepdims=True)
    corner_start, corner = _facet_corners(tris, facet, count, len(p))
    starts, neighbours = _facet_neighbours(tris, facet, count, len(p))
    state = _neighbour_tests(p, facet_normal, corner_start, corner, starts, neighbours, eps)
    may_absorb = (np.bincount(np.repeat(np.arange(count), np.diff(starts)), state != _FAILS, count) > 0).tolist()
    corner_start, starts, state = corner_start.tolist(), starts.tolist(), state.tolist()

    def corners(f):  # p[np.unique(tris of facet f)]
        return p[corner[corner_start[f] : corner_start[f + 1]]]

    group = [-1] * count

    def absorb(seed):
        """Put in ``seed``'s group the unclaimed facets reachable from it through facets coplanar with it."""
        n0 = facet_normal[seed]
        plane = []  # the seed's offset, computed at the first test that needs it

        def coplanar(g):
            if not plane:
                plane.append(float(corners(seed).mean(axis=0) @ n0))
            return facet_normal[g] @ n0 > 0 and np.abs(corners(g) @ n0 - plane[0]).max() <= eps

        # The seed's own neighbours: the test's outcome where the bulk computation is sure of it.
        first, last = starts[seed], starts[seed + 1]
        for g, known in zip(neighbours[first:last].tolist(), state[first:last]):
            if group[g] < 0 and known != _FAILS and (known == _PASSES or coplanar(g)):
                group[g] = seed
                stack = [g]
                while stack:
                    f = stack.pop()
                    for h in neighbours[starts[f] : starts[f + 1]].tolist():
                        if group[h] < 0 and coplanar(h):
                            group[h] = seed
                            stack.append(h)

    for seed in np.argsort(-facet_area, kind="stable").tolist():
        if group[seed] < 0:
            group[seed] = seed
            if may_absorb[seed]:
                absorb(seed)
    return np.asarray(group, np.int64)[facet]


def _facet_corners(tris, facet, count, point_count):
    """The distinct corners of each facet's triangles, ascending, as a CSR table: those of facet f are
    ``corner[start[f]:start[f + 1]]``."""
    key = np.unique(np.repeat(facet.astype(np.int64), 3) * point_count + tris.reshape(-1))
    corner_facet, corner = np.divmod(key, point_count)
    return np.searchsorted(corner_facet, np.arange(count + 1)), corner


_FAILS, _PASSES, _UNSURE = 0, 1, 2


def _neighbour_tests(p, facet_normal, corner_start, corner, starts, neighbours, eps):
    """The coplanarity test of :func:`_coplanar_groups` (normals on the same side, all corners within
    ``eps`` of the plane) of each facet's neighbours against its plane, aligned with ``neighbours``:
    ``_FAILS``, ``_PASSES`` or ``_UNSURE``. Computed for all facets at once with another summation order
    than the test's, so with a margin far above the round-off that separates the two: a neighbour
    closer to the limit than that is ``_UNSURE`` (the test decides)."""
    count = len(facet_normal)
    if len(neighbours) == 0:
        return np.zeros(0, np.int8)
    k = np.diff(corner_start)
    src = np.repeat(np.arange(count), np.diff(starts))
    dst = neighbours
    mean = np.add.reduceat(p[corner], corner_start[:-1], axis=0) / k[:, None]
    d = (mean * facet_normal).sum(axis=1)
    kd = k[dst]
    ends = np.cumsum(kd)
    edge = np.repeat(np.arange(len(dst)), kd)
    at = corner[np.repeat(corner_start[dst] - (ends - kd), kd) + np.arange(ends[-1])]
    height = np.abs((p[at] * facet_normal[src[edge]]).sum(axis=1) - d[src[edge]])
    furthest = np.maximum.reduceat(height, ends - kd)
    facing = (facet_normal[dst] * facet_normal[src]).sum(axis=1)
    extent = 2.0 * float(np.abs(p).max())
    margin = 1e-13 * (extent + np.abs(d[src])) * (1 + k[src])
    state = np.full(len(dst), _UNSURE, np.int8)
    state[(facing > 1e-12) & (furthest < eps - margin)] = _PASSES
    state[(facing <= -1e-12) | (furthest > eps + margin)] = _FAILS
    return state


def _facet_neighbours(tris, facet, count, point_count):
    """Facets sharing an edge, as a CSR table: the neighbours of facet f are
    ``neighbours[starts[f]:starts[f + 1]]`` (repeats allowed)."""
    a, b = tris.reshape(-1), np.roll(tris, -1, axis=1).reshape(-1)
    code = np.minimum(a, b) * point_count + np.maximum(a, b)  # undirected edge
    owner = np.repeat(facet, 3)
    order = np.argsort(code, kind="stable")
    pair = np.nonzero(code[order][1:] == code[order][:-1])[0]
    f1, f2 = owner[order][pair], owner[order][pair + 1]
    cross = f1 != f2
    f1, f2 = np.concatenate([f1[cross], f2[cross]]), np.concatenate([f2[cross], f1[cross]])
    by_first = np.argsort(f1, kind="stable")
    return np.searchsorted(f1[by_first], np.arange(count + 1)), f2[by_first]


def _hull_2d(x, y, eps):
    """Counter-clockwise corners (positions) of the 2D convex hull of points (x, y): Andrew's monotone
    chain, collinear points dropped (turns up to ``eps`` times the chord). On Python floats, which
    round as numpy's float64 scalars do; the chord's length, which Python's hypot may round otherwise
    than numpy's, is taken from numpy where a turn is that close to the limit."""
    order = np.lexsort((y, x)).tolist()
    xs, ys = x.tolist(), y.tolist()
    hypot = math.hypot

    def collinear(o, a, b):
        dx, dy = xs[b] - xs[o], ys[b] - ys[o]
        turn = (xs[a] - xs[o]) * dy - (ys[a] - ys[o]) * dx
        limit = eps * hypot(dx, dy)
        if abs(turn - limit) <= 1e-12 * limit:
            limit = float(eps * np.hypot(np.float64(dx), np.float64(dy)))
        return turn <= limit

    chain = []
    for sweep in (order, order[::-1]):
        half = []
        for k in sweep:
            while len(half) >= 2 and collinear(half[-2], half[-1], k):
                half.pop()
            half.append(k)
        chain += half[:-1]
    return np.asarray(chain, np.int64)


@dataclass
class HullTables:
    """Hulls of all meshes, concatenated (mesh frame, unscaled): each hull's ``poly_vertices`` and MuJoCo
    polygons (:class:`Hull`), as the narrow phase collides meshes.

    Attributes:
        vert_start: (mesh_count + 1,) int32 first hull vertex of each mesh.
        verts: (hull vertex total, 3) float64 hull vertices [m].
        face_start: (mesh_count + 1,) int32 first hull face (MuJoCo polygon) of each mesh.
        face_normal: (face total, 3) float64 outward unit face normals.
        face_vert_start: (face total + 1,) int32 first corner of each face in ``face_verts``.
        face_verts: (corner total,) int32 corners of each face, global indices into ``verts``,
            counter-clockwise seen from outside, in MuJoCo's order.
    """

    vert_start: np.ndarray
    verts: np.ndarray
    face_start: np.ndarray
    face_normal: np.ndarray
    face_vert_start: np.ndarray
    face_verts: np.ndarray


def mesh_hull(mesh, backend: str | None = None) -> Hull:
    """The convex hull of a :class:`newton_gym.Mesh`'s vertices, limited by its ``maxhullvert``: computed once
    per mesh, limit and backend and kept on the mesh (whose vertices are taken as fixed)."""
    return _hull_of(mesh, _resolve_backend(backend), None)


def _hull_of(mesh, kind: str, shared: dict | None) -> Hull:
    """:func:`mesh_hull` with a resolved backend; ``shared`` maps (vertex digest, shape, limit) to hulls
    already computed for other meshes."""
    limit = int(getattr(mesh, "maxhullvert", -1))
    key = (limit, kind)
    cache = getattr(mesh, "_hulls", None)
    hull = cache.get(key) if cache is not None else None
    if hull is None:
        v = np.asarray(mesh.vertices, dtype=np.float64)
        digest = hashlib.blake2b(np.ascontiguousarray(v).tobytes(), digest_size=16).digest()
        content = (digest, v.shape, limit)
        hull = shared.get(content) if shared is not None else None
        if hull is None:
            hull = convex_hull(v, limit, kind)
        if shared is not None:
            shared[content] = hull
        if cache is not None:
            cache[key] = hull
    return hull


def hull_tables(meshes, backend: str | None = None) -> HullTables:
    """Hull tables of a list of :class:`newton_gym.Mesh`, each hull limited by its ``maxhullvert``
    (see :func:`mesh_hull`; ``backend`` as for :func:`convex_hull`)."""
    meshes = list(meshes)
    # Without meshes no hull is computed: check the backend's name only (no scipy import).
    kind = _resolve_backend(backend) if meshes else _check_backend_name(backend)
    shared: dict = {}
    vert_start, face_start = [0], [0]
    verts, normals, corners, corner_counts = [], [], [], []
    for mesh in meshes:
        v = np.asarray(mesh.vertices, dtype=np.float64)
        hull = _hull_of(mesh, kind, shared)
        base = vert_start[-1]
        hull_verts = hull.vertices if hull.poly_vertices is None else hull.poly_vertices
        verts.append(v[hull_verts])
        vert_start.append(base + len(hull_verts))
        faces = 0 if hull.polygon_start is None else len(hull.polygon_start) - 1
        if faces:
            corners.append(base + hull.polygon_corners)
            corner_counts.append(np.diff(hull.polygon_start))
            normals.append(np.asarray(hull.polygon_normals, np.float64).reshape(-1, 3))
        face_start.append(face_start[-1] + faces)
    counts = np.concatenate(corner_counts) if corner_counts else np.zeros(0, np.int64)
    return HullTables(
        np.asarray(vert_start, np.int32),
        np.concatenate(verts) if verts else np.zeros((0, 3)),
        np.asarray(face_start, np.int32),
        np.concatenate(normals) if normals else np.zeros((0, 3)),
        np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
        np.concatenate(corners).astype(np.int32) if corners else np.zeros(0, np.int32),
    )
