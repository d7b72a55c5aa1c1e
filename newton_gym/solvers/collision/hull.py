"""Convex hulls of mesh colliders, on the host, once per solver.

A mesh shape collides as the convex hull of its vertices (as in MuJoCo). :func:`convex_hull` builds the
hull incrementally (quickhull: start from a tetrahedron of extreme points, then repeatedly add the point
furthest outside the current hull) and stops once the hull has ``maxhullvert`` vertices, which is what
MuJoCo asks of qhull with its ``TA`` option (stop after adding N - 4 points to the initial simplex).
The vertices kept can differ from qhull's: qhull starts from other extreme points and takes the
furthest point of the next facet in its queue, this module the furthest point over all facets (ties to
the lowest vertex index), so a reduced hull has the same size bound but not always the same vertices.
Without a limit (``maxhullvert`` < 0) the hull is exact up to a coplanarity tolerance of 1e-7 of the
point cloud's extent (float32 round-off): points that close to a face count as inside it.

:func:`hull_tables` concatenates the hulls of all meshes into the flat arrays the narrow phase reads:
hull vertices, and hull faces as polygons (coplanar hull triangles merged, vertices counter-clockwise
seen from outside) with their outward unit normals, all in the mesh frame before the shape's scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Hull", "HullTables", "convex_hull", "hull_tables"]

# Coplanarity tolerance relative to the point cloud's extent: about float32 round-off, so that corners
# of a face stored in float32 (as MuJoCo's compiled meshes are) stay one face.
_REL_EPS = 1e-7


@dataclass
class Hull:
    """Convex hull of one point set.

    Attributes:
        vertices: (hull_vertex_count,) int64 indices of the hull vertices in the input, ascending.
        faces: list of (face_vertex_count,) int64 arrays, positions in ``vertices`` of each face's
            corners, counter-clockwise seen from outside. Empty for a flat or degenerate point set.
        normals: (face_count, 3) float64 outward unit normals.
    """

    vertices: np.ndarray
    faces: list
    normals: np.ndarray


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


def convex_hull(points, maxhullvert: int = -1) -> Hull:
    """Convex hull of ``points`` ((n, 3) float), with at most ``maxhullvert`` vertices when it is >= 4
    (see the module docstring); a flat or degenerate point set returns all its distinct points and no
    faces."""
    p = np.asarray(points, dtype=np.float64)
    extent = float(np.ptp(p, axis=0).max()) if len(p) else 0.0
    eps = _REL_EPS * max(extent, 1e-12)
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
    return _polygons(p, b.tris[live], b.normal[live], eps)


def _polygons(p, tris, normals, eps):
    """Merge coplanar hull triangles (neighbours across an edge) into faces, each
    the 2D hull of its corners (counter-clockwise), which drops corners inside a face or on an edge
    (points that were outside a smaller hull)."""
    n_pts = len(p)
    key = (tris * n_pts + np.roll(tris, -1, axis=1)).reshape(-1)  # directed edge (a, b) of each triangle
    rev = (np.roll(tris, -1, axis=1) * n_pts + tris).reshape(-1)
    order = np.argsort(key)
    pos = np.clip(np.searchsorted(key[order], rev), 0, len(key) - 1)
    found = key[order][pos] == rev
    t1 = np.repeat(np.arange(len(tris)), 3)[found]
    t2 = order[pos][found] // 3
    # Neighbours are coplanar when the far corner of one is within eps of the other's plane.
    shared = (tris[t2][:, :, None] == tris[t1][:, None, :]).any(axis=2)
    apex = tris[t2][np.arange(len(t2)), np.argmin(shared, axis=1)]
    same = np.abs(np.einsum("ij,ij->i", p[apex] - p[tris[t1, 0]], normals[t1])) <= eps
    root = np.arange(len(tris))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, j in zip(t1[same], t2[same]):
        root[find(i)] = find(j)
    group = np.asarray([find(i) for i in range(len(tris))])
    order = np.argsort(group, kind="stable")
    cuts = np.nonzero(np.diff(group[order]))[0] + 1
    loops, face_normals = [], []
    for members in np.split(order, cuts):
        n = normals[members[0]]
        face_normals.append(n)
        if len(members) == 1:  # a lone triangle is its own face, already counter-clockwise
            loops.append(tris[members[0]])
            continue
        corners = np.unique(tris[members])
        u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        u /= np.linalg.norm(u)
        loops.append(corners[_hull_2d(p[corners] @ u, p[corners] @ np.cross(n, u), eps)])
    verts = np.unique(np.concatenate(loops))
    where = np.searchsorted(verts, np.concatenate(loops))
    faces = np.split(where, np.cumsum([len(f) for f in loops])[:-1])
    return Hull(verts.astype(np.int64), faces, np.asarray(face_normals))


def _hull_2d(x, y, eps):
    """Counter-clockwise corners (positions) of the 2D convex hull of points (x, y): Andrew's monotone
    chain, collinear points dropped."""
    order = np.lexsort((y, x))
    pts = np.stack([x, y], axis=1)

    def cross(o, a, b):
        return (pts[a, 0] - pts[o, 0]) * (pts[b, 1] - pts[o, 1]) - (pts[a, 1] - pts[o, 1]) * (pts[b, 0] - pts[o, 0])

    chain = []
    for sweep in (order, order[::-1]):
        half = []
        for k in sweep:
            while len(half) >= 2 and cross(half[-2], half[-1], k) <= eps * np.hypot(*(pts[k] - pts[half[-2]])):
                half.pop()
            half.append(int(k))
        chain += half[:-1]
    return np.asarray(chain, np.int64)


@dataclass
class HullTables:
    """Hulls of all meshes, concatenated (mesh frame, unscaled).

    Attributes:
        vert_start: (mesh_count + 1,) int32 first hull vertex of each mesh.
        verts: (hull vertex total, 3) float64 hull vertices [m].
        face_start: (mesh_count + 1,) int32 first hull face of each mesh.
        face_normal: (face total, 3) float64 outward unit face normals.
        face_vert_start: (face total + 1,) int32 first corner of each face in ``face_verts``.
        face_verts: (corner total,) int32 corners of each face, global indices into ``verts``,
            counter-clockwise seen from outside.
    """

    vert_start: np.ndarray
    verts: np.ndarray
    face_start: np.ndarray
    face_normal: np.ndarray
    face_vert_start: np.ndarray
    face_verts: np.ndarray


def hull_tables(meshes) -> HullTables:
    """Hull tables of a list of :class:`newton_gym.Mesh`, each hull limited by its ``maxhullvert``."""
    vert_start, face_start, face_vert_start = [0], [0], [0]
    verts, normals, corners = [], [], []
    for mesh in meshes:
        v = np.asarray(mesh.vertices, dtype=np.float64)
        hull = convex_hull(v, int(getattr(mesh, "maxhullvert", -1)))
        base = vert_start[-1]
        verts.append(v[hull.vertices])
        vert_start.append(base + len(hull.vertices))
        for face, n in zip(hull.faces, hull.normals):
            corners.append(base + face)
            normals.append(n)
            face_vert_start.append(face_vert_start[-1] + len(face))
        face_start.append(len(normals))
    return HullTables(
        np.asarray(vert_start, np.int32),
        np.concatenate(verts) if verts else np.zeros((0, 3)),
        np.asarray(face_start, np.int32),
        np.asarray(normals).reshape(-1, 3),
        np.asarray(face_vert_start, np.int32),
        np.concatenate(corners).astype(np.int32) if corners else np.zeros(0, np.int32),
    )
