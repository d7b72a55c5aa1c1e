"""Narrow-phase geometry: signed distances of points to primitives and feature points of primitives.

A pair (A, B) with type A <= type B is resolved feature by feature: a feature is a point of one shape
with a radius (the sphere centre with its radius, capsule end points with the capsule radius, box
corners and cylinder rim points with radius 0), tested against the signed-distance function of the
other shape. Exact for sphere-*, capsule-plane, box-plane, cylinder-plane and cone-plane; the cylinder
pairs capsule- and box-cylinder are approximated by their corner / rim / end points (edge-edge contacts
are missed); cylinder-cylinder is resolved by :mod:`.convex` (MuJoCo's convex collider). Capsule-capsule
and capsule-box (:mod:`.capsule_pairs`) and box-box (:mod:`.box_box`) make MuJoCo C's contact sets
instead. Distances are signed (negative = penetration) and normals point from A to B. Pairs with a
mesh (other than mesh-plane) are resolved as convex hulls by :mod:`.convex`, as are pairs
with an ellipsoid other than ellipsoid-plane (exact here: the ellipsoid's support point toward the
plane).

Both narrow phases read one :class:`NarrowArgs` per launch (:func:`narrow_args`) and run the same per-world
loop over the candidate pairs (:func:`world_pair_kernel`), which hands each pair's shapes over as
:class:`Convex` (type, size, world pose, hull ranges); their contacts go to :class:`ContactSlots` through
:func:`emit_contact`.
"""

from __future__ import annotations

import warp as wp

from ...sim.stage_args import fill
from ...sim.types import GeoType
from ...sim.wpmath import (
    GEO_BOX,
    GEO_CAPSULE,
    GEO_CONE,
    GEO_CYLINDER,
    GEO_ELLIPSOID,
    GEO_HFIELD,
    GEO_MESH,
    GEO_PLANE,
    GEO_SPHERE,
)
from ..items import item, item_set
from ..lanes import launch_worlds
from .pairs import PairTopology, decode_pair, local_pair, world_pairs

__all__ = [
    "point_distance",
    "shape_feature",
    "segment_closest",
    "feature_count",
    "emit_contact",
    "ContactSlots",
    "MeshHulls",
    "Convex",
    "shape_convex",
    "NarrowArgs",
    "narrow_args",
    "world_pair_kernel",
    "launch_world_pairs",
    "shape_pose",
    "pair_phase",
    "phase_of",
    "PHASE_PRIMITIVE",
    "PHASE_CONVEX",
    "PHASE_FIELD",
    "Heightfields",
    "MAX_FIELD_CONTACTS",
    "SUPPORTED",
]

PLANE = GEO_PLANE
SPHERE = GEO_SPHERE
CAPSULE = GEO_CAPSULE
BOX = GEO_BOX
CYLINDER = GEO_CYLINDER
CONE = GEO_CONE
MESH = GEO_MESH
ELLIPSOID = GEO_ELLIPSOID
HFIELD = GEO_HFIELD
_CONVEX_B = (GeoType.MESH, GeoType.ELLIPSOID)

# The narrow phase that resolves a pair (:func:`phase_of`): each has its kernel.
PHASE_PRIMITIVE = wp.constant(0)  # this module's feature points (and mesh-plane)
PHASE_CONVEX = wp.constant(1)  # :mod:`.convex`: mesh hull or ellipsoid and anything but a plane; 2 cylinders
PHASE_FIELD = wp.constant(2)  # :mod:`.heightfield`: a heightfield against anything but a plane
MAX_FIELD_CONTACTS = 50  # MuJoCo's mjMAXCONPAIR: contacts of one heightfield pair at most


def phase_of(type_a: int, type_b: int) -> int:
    """The narrow phase of a pair with type_a <= type_b (host twin of :func:`pair_phase`)."""
    if type_b == GeoType.HFIELD:
        return int(PHASE_FIELD)
    if type_b in _CONVEX_B and type_a != GeoType.PLANE:
        return int(PHASE_CONVEX)
    if type_a == GeoType.CYLINDER and type_b == GeoType.CYLINDER:
        return int(PHASE_CONVEX)
    return int(PHASE_PRIMITIVE)


@wp.func
def pair_phase(ta: int, tb: int):
    """The narrow phase of a pair with ta <= tb (see :func:`phase_of`)."""
    if tb == HFIELD:
        return PHASE_FIELD
    if (tb == MESH or tb == ELLIPSOID) and ta != PLANE:
        return PHASE_CONVEX
    if ta == CYLINDER and tb == CYLINDER:
        return PHASE_CONVEX
    return PHASE_PRIMITIVE


def feature_count(type_a: int, type_b: int) -> int:
    """Contact slots of a pair with type_a <= type_b (0: unsupported pair)."""
    a, b = GeoType(type_a), GeoType(type_b)
    if b == GeoType.HFIELD:  # at most MuJoCo's limit; the driver lays out fewer from the shape's extent
        return MAX_FIELD_CONTACTS if a in _FIELD_PARTNERS else 0
    if b == GeoType.ELLIPSOID:  # exact support point on a plane; one GJK / EPA contact otherwise
        return 0 if a == GeoType.CONE else 1
    if b == GeoType.MESH and a != GeoType.PLANE:  # convex hull pairs (:mod:`.convex`): manifold size
        return {GeoType.SPHERE: 1, GeoType.CAPSULE: 2, GeoType.BOX: 4, GeoType.CYLINDER: 4, GeoType.MESH: 4}.get(a, 0)
    if a == GeoType.PLANE:
        return {
            GeoType.SPHERE: 1,
            GeoType.CAPSULE: 2,
            GeoType.BOX: 8,
            GeoType.CYLINDER: 6,
            GeoType.CONE: 4,
            GeoType.MESH: 4,
        }.get(b, 0)
    if a == GeoType.SPHERE:
        return 1 if b in (GeoType.SPHERE, GeoType.CAPSULE, GeoType.BOX, GeoType.CYLINDER) else 0
    if a == GeoType.CAPSULE:  # MuJoCo's capsule-capsule and capsule-box: 2; capsule-cylinder: 3 points
        return {GeoType.CAPSULE: 2, GeoType.BOX: 2, GeoType.CYLINDER: 3}.get(b, 0)
    if a == GeoType.BOX:  # box-box: MuJoCo's clipped face, 8 corners at most
        return {GeoType.BOX: 8, GeoType.CYLINDER: 14}.get(b, 0)
    if a == GeoType.CYLINDER and b == GeoType.CYLINDER:  # MuJoCo's convex collider (:mod:`.convex`)
        return 4
    return 0


_FIELD_PARTNERS = (
    GeoType.SPHERE,
    GeoType.CAPSULE,
    GeoType.BOX,
    GeoType.CYLINDER,
    GeoType.MESH,
    GeoType.ELLIPSOID,
)

SUPPORTED = (
    "plane-{sphere, capsule, box, cylinder, cone, mesh hull}, sphere-{sphere, capsule, box, cylinder}, "
    "capsule-{capsule, box, cylinder}, box-{box, cylinder}, cylinder-cylinder, "
    "mesh hull-{sphere, capsule, box, cylinder, mesh hull}, "
    "ellipsoid-{plane, sphere, capsule, box, cylinder, mesh hull, ellipsoid}, "
    "heightfield-{sphere, capsule, box, cylinder, mesh hull, ellipsoid}"
)


@wp.func
def point_distance(stype: int, size: wp.vec3, p: wp.vec3):
    """Signed distance of local point p to a shape centred at the origin, the outward normal and the
    closest surface point (all in the shape frame). Sphere, capsule, box and cylinder."""
    if stype == SPHERE or stype == CAPSULE:
        centre = wp.vec3(0.0)
        if stype == CAPSULE:
            centre = wp.vec3(0.0, 0.0, wp.clamp(p[2], -size[1], size[1]))
        d = p - centre
        dist = wp.length(d)
        n = wp.vec3(0.0, 0.0, 1.0)
        if dist > 1.0e-9:
            n = d / dist
        return dist - size[0], n, centre + n * size[0]
    if stype == BOX:
        q = wp.vec3(
            wp.clamp(p[0], -size[0], size[0]), wp.clamp(p[1], -size[1], size[1]), wp.clamp(p[2], -size[2], size[2])
        )
        d = p - q
        dist = wp.length(d)
        if dist > 1.0e-9:
            return dist, d / dist, q
        # Inside: leave through the nearest face.
        best = size[0] - wp.abs(p[0])
        axis = int(0)
        for k in range(1, 3):
            s = size[k] - wp.abs(p[k])
            if s < best:
                best = s
                axis = k
        n = wp.vec3(0.0)
        n[axis] = wp.sign(p[axis])
        q = p
        q[axis] = wp.sign(p[axis]) * size[axis]
        return -best, n, q
    # Cylinder: radius size[0], half height size[1], along z.
    rho = wp.sqrt(p[0] * p[0] + p[1] * p[1])
    u = wp.vec3(1.0, 0.0, 0.0)
    if rho > 1.0e-9:
        u = wp.vec3(p[0] / rho, p[1] / rho, 0.0)
    if rho <= size[0] and wp.abs(p[2]) <= size[1]:
        side = size[0] - rho
        cap = size[1] - wp.abs(p[2])
        if side < cap:
            return -side, u, wp.vec3(u[0] * size[0], u[1] * size[0], p[2])
        sz = wp.sign(p[2])
        return -cap, wp.vec3(0.0, 0.0, sz), wp.vec3(p[0], p[1], sz * size[1])
    q = u * wp.min(rho, size[0]) + wp.vec3(0.0, 0.0, wp.clamp(p[2], -size[1], size[1]))
    d = p - q
    dist = wp.length(d)
    n = u
    if dist > 1.0e-9:
        n = d / dist
    return dist, n, q


@wp.func
def shape_feature(stype: int, size: wp.vec3, k: int, toward: wp.vec3):
    """Feature point k of a shape (local frame) and its radius. ``toward`` (local, unit) orients
    cylinder / cone rim points at the other shape: the first rim point on each cap is the one furthest
    along ``toward``, the others at +-120 degrees. An ellipsoid's one feature is its support point
    along ``toward``."""
    if stype == SPHERE:
        return wp.vec3(0.0), size[0]
    if stype == CAPSULE:
        return wp.vec3(0.0, 0.0, size[1] * (2.0 * float(k) - 1.0)), size[0]
    if stype == ELLIPSOID:
        # Support point of x^T S^-2 x = 1 along t: S^2 t / |S t| (S = diag of the semi-axes).
        st = wp.cw_mul(size, toward)
        return wp.cw_mul(size, st) / wp.max(wp.length(st), 1.0e-30), 0.0
    if stype == BOX:
        sx = float((k & 1) * 2 - 1)
        sy = float(((k >> 1) & 1) * 2 - 1)
        sz = float(((k >> 2) & 1) * 2 - 1)
        return wp.vec3(sx * size[0], sy * size[1], sz * size[2]), 0.0
    # Cylinder (6 points: 3 per cap) or cone (3 base rim points, then the apex).
    axis = wp.vec3(0.0, 0.0, 1.0)
    u = toward - wp.dot(toward, axis) * axis
    if wp.length(u) < 1.0e-6:
        u = wp.vec3(1.0, 0.0, 0.0)
    u = wp.normalize(u)
    v = wp.cross(axis, u)
    cap = k / 3
    ang = float(k % 3) * 2.0943951023931953
    rim = size[0] * (wp.cos(ang) * u + wp.sin(ang) * v)
    if stype == CONE:
        if k == 3:
            return wp.vec3(0.0, 0.0, size[1]), 0.0
        return rim - axis * size[1], 0.0
    return rim + axis * (size[1] * (2.0 * float(cap) - 1.0)), 0.0


@wp.func
def segment_closest(p1: wp.vec3, q1: wp.vec3, p2: wp.vec3, q2: wp.vec3):
    """Closest points of segments p1-q1 and p2-q2 (Ericson, Real-Time Collision Detection, sec. 5.1.9)."""
    d1 = q1 - p1
    d2 = q2 - p2
    r = p1 - p2
    a = wp.dot(d1, d1)
    e = wp.dot(d2, d2)
    f = wp.dot(d2, r)
    s = float(0.0)
    t = float(0.0)
    if a <= 1.0e-12 and e <= 1.0e-12:
        return p1, p2
    if a <= 1.0e-12:
        t = wp.clamp(f / e, 0.0, 1.0)
    else:
        c = wp.dot(d1, r)
        if e <= 1.0e-12:
            s = wp.clamp(-c / a, 0.0, 1.0)
        else:
            b = wp.dot(d1, d2)
            denom = a * e - b * b
            if denom > 1.0e-12:
                s = wp.clamp((b * f - c * e) / denom, 0.0, 1.0)
            t = (b * s + f) / e
            if t < 0.0:
                t = 0.0
                s = wp.clamp(-c / a, 0.0, 1.0)
            elif t > 1.0:
                t = 1.0
                s = wp.clamp((b - c) / a, 0.0, 1.0)
    return p1 + d1 * s, p2 + d2 * t


@wp.func
def shape_pose(body: int, body_q: wp.array(dtype=wp.transform), x: wp.transform):
    """World pose of a shape with local pose x on body (-1: static, x is already in world)."""
    if body >= 0:
        return item(body_q, body) * x
    return x


@wp.struct
class ContactSlots:
    """The per-slot contact outputs of the narrow phases (the arrays of :class:`.driver.Contacts`)."""

    active: wp.array(dtype=int)  # (slot_count,) 1 where the slot holds a contact
    point: wp.array(dtype=wp.vec3)  # (slot_count,) world contact point [m]
    normal: wp.array(dtype=wp.vec3)  # (slot_count,) unit normal from A to B
    dist: wp.array(dtype=float)  # (slot_count,) signed distance [m] (negative: penetration)
    tangent: wp.array(dtype=wp.vec3)  # (slot_count,) first friction direction (unit, normal to n)
    force: wp.array(dtype=wp.vec3)  # (slot_count,) contact force on B [N]: cleared with active, set by the finish pass
    bundle_clear: wp.array(dtype=int)  # (bundles,) 1 while a bundle's slots are clear (far at the last collide)


@wp.func
def emit_contact(slot: int, d: float, n: wp.vec3, p: wp.vec3, margin: float, hint: wp.vec3, out: ContactSlots):
    """Store a contact (distance d [m], unit normal n from A to B, world point p [m]) in slot ``slot`` when
    closer than the margin [m]. The first friction direction (which orients a pyramidal cone) follows
    MuJoCo's contact frame: ``hint`` projected on the contact plane where the collider gives one (a
    capsule's axis on a plane), else world y, or world z for a normal near y."""
    if d < margin:
        out.active[slot] = 1
        out.point[slot] = p
        out.normal[slot] = n
        out.dist[slot] = d
        t = hint - wp.dot(hint, n) * n
        if wp.length(t) < 1.0e-3:
            t = wp.vec3(0.0, 1.0, 0.0)
            if wp.abs(n[1]) >= 0.5:
                t = wp.vec3(0.0, 0.0, 1.0)
            t = t - wp.dot(t, n) * n
        out.tangent[slot] = wp.normalize(t)


@wp.struct
class MeshHulls:
    """The convex hulls of the model's meshes (:func:`.hull.hull_tables`; mesh frame, before the shape's
    scale), the arrays of :class:`.driver.Contacts`."""

    mesh_start: wp.array(dtype=int)  # (mesh_count + 1,) first hull vertex of each mesh
    # (hull vertices + heightfield points,) [m]: the hull vertices, then every heightfield's grid points
    # (:class:`Heightfields`), so that one support function reads both
    mesh_verts: wp.array(dtype=wp.vec3)
    mesh_face_start: wp.array(dtype=int)  # (mesh_count + 1,) first hull face of each mesh
    mesh_face_normal: wp.array(dtype=wp.vec3)  # (hull faces,) outward unit face normals
    mesh_face_vert_start: wp.array(dtype=int)  # (hull faces + 1,) first corner of each face
    mesh_face_verts: wp.array(dtype=int)  # (face corners,) hull vertex of each corner, counter-clockwise


@wp.struct
class Heightfields:
    """The model's heightfields (:class:`newton_gym.sim.Heightfield`), each stored once: grid sizes and
    extents; the grid points follow the hull vertices in :attr:`MeshHulls.mesh_verts`."""

    shape_field: wp.array(dtype=int)  # (shape_count,) heightfield of each HFIELD shape (-1: none)
    rows: wp.array(dtype=int)  # (field_count,) grid points along y
    cols: wp.array(dtype=int)  # (field_count,) grid points along x
    point_start: wp.array(dtype=int)  # (field_count,) first grid point in MeshHulls.mesh_verts, row by row
    extent: wp.array(dtype=wp.vec4)  # (field_count,) half extent x, half extent y, top z, bottom z [m]
    block_start: wp.array(dtype=int)  # (field_count,) first entry of each field in block_top
    block_cols: wp.array(dtype=int)  # (field_count,) blocks along x of each field
    block_top: wp.array(dtype=float)  # highest grid point of each block of cells (.heightfield.FIELD_BLOCK) [m]


@wp.struct
class Convex:
    """One shape of a pair, in world coordinates; for the convex narrow phase (:mod:`.gjk`), a core
    inflated by ``radius``. For kind HFIELD it is one prism of a heightfield: the triangle of grid points
    ``corners`` with the solid below it down to z = size[2], its top raised by size[0] (a margin), in the
    field's frame ``xf``."""

    kind: int  # GeoType of the shape
    size: wp.vec3  # shape_scale: radius / half sizes [m], or the mesh's vertex scale
    xf: wp.transform  # shape pose in world
    radius: float  # inflation of the core [m]: sphere and capsule radius, else 0
    vert_start: int  # hull vertices of a mesh: [vert_start, vert_end) in the hull tables
    vert_end: int
    face_start: int  # hull faces of a mesh: [face_start, face_end)
    face_end: int
    field: int  # heightfield of an HFIELD shape (index into :class:`Heightfields`), else -1
    corners: wp.vec3i  # a prism's top triangle: three grid points in MeshHulls.mesh_verts


@wp.func
def shape_convex(kind: int, size: wp.vec3, xf: wp.transform, mesh: int, hulls: MeshHulls):
    """The :class:`Convex` of a shape of type ``kind``, size ``size`` and world pose xf (``mesh``: its mesh
    for a mesh shape, its heightfield for an HFIELD shape)."""
    c = Convex()
    c.kind = kind
    c.size = size
    c.xf = xf
    c.radius = 0.0
    if kind == SPHERE or kind == CAPSULE:
        c.radius = size[0]
    c.vert_start = 0
    c.vert_end = 0
    c.face_start = 0
    c.face_end = 0
    c.field = -1
    if kind == HFIELD:
        c.field = mesh
    if kind == MESH and mesh >= 0:
        c.vert_start = hulls.mesh_start[mesh]
        c.vert_end = hulls.mesh_start[mesh + 1]
        c.face_start = hulls.mesh_face_start[mesh]
        c.face_end = hulls.mesh_face_start[mesh + 1]
    return c


@wp.struct
class NarrowArgs:
    """What a narrow-phase kernel reads and writes (:func:`narrow_args`): the model's shapes, the pair
    tables and parameters, the mesh hulls, the body poses and the contact slots."""

    topo: PairTopology  # candidate pairs of every world (:mod:`.pairs`)
    shape_type: wp.array(dtype=int)  # (shape_count,) GeoType of each shape
    shape_transform: wp.array(dtype=wp.transform)  # (shape_count,) pose in its body's frame (static: world) [m]
    shape_scale: wp.array(dtype=wp.vec3)  # (shape_count,) radius / half sizes [m], or a mesh's vertex scale
    shape_mesh: wp.array(dtype=int)  # (shape_count,) mesh of each mesh shape (-1: none)
    pair_margin: wp.array(dtype=float)  # (pair_count,) contacts are kept below this distance [m]
    bundle_centre_a: wp.array(dtype=wp.vec3)  # (template bundles,) centre of its body A's A shapes, A's frame [m]
    bundle_centre_b: wp.array(dtype=wp.vec3)  # (template bundles,) centre of its B shapes, body B's frame [m]
    bundle_bound: wp.array(dtype=float)  # (template bundles,) centre distance beyond which no pair touches [m]
    bundle_reach: wp.array(dtype=float)  # (template bundles,) A centre to body B origin: beyond it, no pair touches [m]
    hulls: MeshHulls  # mesh convex hulls (and heightfield points)
    fields: Heightfields  # heightfields
    body_q: wp.array(dtype=wp.transform)  # (body_count,) body frames in world [m]
    out: ContactSlots  # the contact slots written


def narrow_args(model, contacts, body_q) -> NarrowArgs:
    """The :class:`NarrowArgs` of ``model``, its :class:`.driver.Contacts` and the body poses ``body_q``."""
    slots, hulls = fill(ContactSlots, contacts), fill(MeshHulls, contacts)
    fields = fill(Heightfields, contacts)
    return fill(
        NarrowArgs, model, contacts, topo=contacts.topology, hulls=hulls, fields=fields, body_q=body_q, out=slots
    )


@wp.func(inline=True)  # the tables by value: inlined into the per-world loop, they are not copied
def _placed(shape: int, body: int, args: NarrowArgs) -> Convex:
    """Shape ``shape`` on body ``body`` (-1: static) at the launch's body poses."""
    xf = shape_pose(body, args.body_q, item(args.shape_transform, shape))
    kind = item(args.shape_type, shape)
    source = item(args.shape_mesh, shape)
    if kind == HFIELD:
        source = args.fields.shape_field[shape]
    return shape_convex(kind, args.shape_scale[shape], xf, source, args.hulls)


@wp.func
def _centre(body: int, body_q: wp.array(dtype=wp.transform), x: wp.vec3):
    """World position of the point x of body ``body``'s frame (-1: static, x is in the world)."""
    if body >= 0:
        return wp.transform_point(item(body_q, body), x)
    return x


@wp.func
def _origin(body: int, body_q: wp.array(dtype=wp.transform)):
    """World position of body ``body``'s origin (-1: static, the world's)."""
    if body >= 0:
        return wp.transform_get_translation(item(body_q, body))
    return wp.vec3(0.0)


@wp.func(inline=True)
def _beyond(d: wp.vec3, bound: float):
    """Whether |d| > ``bound``, without the square root (a negative bound: always)."""
    return bound < 0.0 or wp.length_sq(d) > bound * bound


def world_pair_kernel(pair_fn, phase: int, name: str, module: str, far_fn=None):
    """The narrow-phase kernel ``name`` of the Warp module ``module``, launched by :func:`launch_world_pairs`:
    one block per world, whose lanes take the world's bundles (:mod:`.candidates`: the pairs of one body pair
    and class) in turn. A pair is this kernel's where :func:`pair_phase` is ``phase``: its contact slots are
    cleared (active flag and force: the finish pass writes the forces of active slots only; a heightfield
    pair fills its slots from the first, so its clear stops at the first slot left inactive) and
    ``pair_fn(p, slots, bound, a, b, args)`` fills them (p the model's pair index, slots its (first slot, slot
    count), a and b its shapes as :class:`Convex`, args the launch's :class:`NarrowArgs`).
    Outside the heightfield phase and plane pairs, a bundle whose two centres lie farther apart than its
    ``bundle_bound`` is skipped whole (its slots only cleared; first, without placing B's centre, where body
    B's origin lies farther from the A centre than ``bundle_reach``), and a pair whose shape origins lie farther
    apart than its bound (the template's bounding radii plus the pair's margin, also passed to ``pair_fn``,
    which need not test it again) before its shapes are placed: the bounding test the narrow phases start
    with, at a fraction of its cost (most of a robot's self-collision pairs are far apart at any time),
    squared distances against squared bounds. A bundle passes wherever one of its pairs would pass its own
    test, so the contacts are those of the pairs' tests alone. In the heightfield phase ``far_fn(centre, bound,
    field pose, field shape, args)`` tests the other shape's bounding sphere against the field before the
    shapes are placed (:func:`.heightfield.field_far`)."""

    def kernel(first: int, lanes: int, args: NarrowArgs):
        """One block of ``lanes`` lanes per world (the launch's first world: ``first``): its lanes take the world's
        bundles in turn."""
        block, lane = wp.tid()
        w = block + first
        at = world_pairs(args.topo, w)  # the world's offsets, read once
        g0 = args.topo.block_bundle_start[w]
        tb0 = args.topo.template_bundle_start[args.topo.block_template[w]]
        centre_body = int(-1)  # the moving body A whose bundle centre ``ca`` holds (one per body)
        ca = wp.vec3(0.0)
        for lb in range(lane, args.topo.block_bundle_start[w + 1] - g0, lanes):
            tb = tb0 + lb
            e0 = item(args.topo.bundle_start, tb)
            e1 = item(args.topo.bundle_start, tb + 1)
            kind = item(args.topo.bundle_class, tb)
            if kind / 2 != phase:
                continue
            g = g0 + lb
            if wp.static(phase != PHASE_FIELD) and kind % 2 == 0:  # bound-tested: not a plane's, not a field's
                bodies = local_pair(item(args.topo.bundle_body, tb), at.body)
                if bodies[0] < 0 or bodies[0] != centre_body:
                    ca = _centre(bodies[0], args.body_q, item(args.bundle_centre_a, tb))
                    centre_body = bodies[0]
                # B's origin first (no rotation), its centre only where the origin is within reach
                apart = _beyond(_origin(bodies[1], args.body_q) - ca, item(args.bundle_reach, tb))
                if not apart:
                    cb = _centre(bodies[1], args.body_q, item(args.bundle_centre_b, tb))
                    apart = _beyond(cb - ca, item(args.bundle_bound, tb))
                if apart:
                    if item(args.out.bundle_clear, g) == 0:  # near at the last collide: clear its slots once
                        for e in range(e0, e1):
                            sl = item(args.topo.slots, at.template_pair + item(args.topo.bundle_pairs, e))
                            for k in range(sl[1]):
                                item_set(args.out.active, at.slot + sl[0] + k, 0)
                                item_set(args.out.force, at.slot + sl[0] + k, wp.vec3(0.0))
                        item_set(args.out.bundle_clear, g, 1)
                    continue
                item_set(args.out.bundle_clear, g, 0)
            for e in range(e0, e1):
                lp = item(args.topo.bundle_pairs, e)
                pair = decode_pair(args.topo, at, lp)
                s = pair.shapes
                for k in range(pair.slots[1]):
                    if wp.static(phase == PHASE_FIELD):  # a field pair's active slots are a prefix
                        if item(args.out.active, pair.slots[0] + k) == 0:
                            break
                    item_set(args.out.active, pair.slots[0] + k, 0)
                    item_set(args.out.force, pair.slots[0] + k, wp.vec3(0.0))
                bound = item(args.topo.radius, at.template_pair + lp) + item(args.pair_margin, at.pair + lp)
                if wp.static(phase != PHASE_FIELD) and item(args.shape_type, s[0]) != PLANE:
                    pa = _centre(
                        pair.bodies[0], args.body_q, wp.transform_get_translation(item(args.shape_transform, s[0]))
                    )
                    pb = _centre(
                        pair.bodies[1], args.body_q, wp.transform_get_translation(item(args.shape_transform, s[1]))
                    )
                    if _beyond(pb - pa, bound):
                        continue
                if wp.static(phase == PHASE_FIELD):
                    pa = _centre(pair.bodies[0], args.body_q, wp.transform_get_translation(args.shape_transform[s[0]]))
                    field_xf = shape_pose(pair.bodies[1], args.body_q, args.shape_transform[s[1]])
                    if wp.static(far_fn)(pa, bound, field_xf, s[1], args):
                        continue
                a = _placed(s[0], pair.bodies[0], args)
                b = _placed(s[1], pair.bodies[1], args)
                pair_fn(at.pair + lp, pair.slots, bound, a, b, args)

    return wp.kernel(kernel, name=name, module=module)


def launch_world_pairs(kernel, args: NarrowArgs, worlds, block_dim: int, device):
    """Launch a :func:`world_pair_kernel` over the worlds ``worlds`` = (first, count) with ``block_dim`` lanes
    per world (:func:`..lanes.launch_worlds`)."""
    launch_worlds(kernel, worlds[0], worlds[1], block_dim, device, [args])
