"""Candidate pairs and contact slots, and the narrow phase that fills them.

Worlds never change membership, so candidate shape pairs are enumerated once, at solver construction, per
group of equal worlds (:mod:`.candidates`): every pair of shapes inside a world plus every world shape against
every global (-1) shape, filtered by collide flags, collision groups (-1 meets all; g >= 0 meets g and -1),
the model's filter pairs (which include joint parent/child pairs), the articulation self-collision switch
and "at least one shape moves". Each pair owns a fixed block of contact slots (its maximum contact count), so
contacts of a world are contiguous, need no atomics and persist slot by slot (warm starts). Per step,
:func:`collide` tests the bounding spheres of each bundle (the pairs of one body pair) and of each pair of a
bundle that passes, then runs the narrow phase of the pairs left. Mesh shapes collide as their convex hulls
(:mod:`.hull`, :mod:`.convex`), ellipsoids there too except against planes, and heightfields as MuJoCo's
grids of prisms (:mod:`.heightfield`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import warp as wp

from ...errors import SolverError
from ...sim.grouping import unique_rows
from ...sim.stage_args import BoundStruct
from ...sim.types import GeoType
from ..lanes import register_capped
from ..tree import DeclaredFields
from ..types import vec5, zeroed
from .box_box import box_box
from .candidates import PairLayout, decode, lay_out_pairs, shape_columns
from .capsule_pairs import capsule_box, capsule_capsule
from .convex import convex_kernel
from .heightfield import FIELD_BLOCK, field_block_top, field_kernel, field_slots
from .hull import hull_tables
from .pairs import PairTopology, Templates
from .params import combine_pair_params
from .primitive import (
    BOX,
    CAPSULE,
    CYLINDER,
    MESH,
    PHASE_CONVEX,
    PHASE_FIELD,
    PHASE_PRIMITIVE,
    PLANE,
    SPHERE,
    ContactSlots,
    Convex,
    NarrowArgs,
    emit_contact,
    feature_count,
    launch_world_pairs,
    narrow_args,
    phase_of,
    point_distance,
    shape_feature,
    world_pair_kernel,
)

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["Contacts", "build_contacts", "collide"]


@dataclass(eq=False)
class Contacts(DeclaredFields):
    """Static pair table and per-slot contact outputs, laid out once by :func:`build_contacts`; the only
    place their fields are declared (:class:`..tree.DeclaredFields`: no other attribute can be set).
    Warp arrays hold at least one element, so a model without pairs still launches."""

    # Layout (host).
    pair_count: int = 0  # candidate shape pairs
    convex_pair_count: int = 0  # pairs of :mod:`.convex` (mesh or ellipsoid and anything but a plane, cylinder pairs)
    field_pair_count: int = 0  # pairs of a heightfield with anything but a plane (:mod:`.heightfield`'s)
    slot_count: int = 0  # contact slots (each pair owns its maximum contact count)
    pairs: PairLayout = None  # host pair tables per template, each world's template and ranges (.candidates)
    # Static pair tables, stored once per template (Warp; :class:`.pairs.PairTopology`).
    topology: PairTopology = None
    # Mesh convex hulls (:mod:`.hull`; mesh frame, before the shape's scale).
    mesh_start: wp.array = None  # (mesh_count + 1,) int32 first convex-hull vertex of each mesh
    mesh_verts: wp.array = None  # (hull vertices,) vec3 mesh convex-hull vertices [m]
    mesh_face_start: wp.array = None  # (mesh_count + 1,) int32 first hull face of each mesh
    mesh_face_normal: wp.array = None  # (hull faces,) vec3 outward unit face normals
    mesh_face_vert_start: wp.array = None  # (hull faces + 1,) int32 first corner of each face
    mesh_face_verts: wp.array = None  # (face corners,) int32 hull vertex of each corner, counter-clockwise
    # Heightfields (:class:`.primitive.Heightfields`; their grid points follow the hull vertices in mesh_verts).
    shape_field: wp.array = None  # (shape_count,) int32 heightfield of each HFIELD shape (-1: none)
    rows: wp.array = None  # (field_count,) int32 grid points along y
    cols: wp.array = None  # (field_count,) int32 grid points along x
    point_start: wp.array = None  # (field_count,) int32 first grid point in mesh_verts
    extent: wp.array = None  # (field_count,) vec4 half extent x, half extent y, top z, bottom z [m]
    block_start: wp.array = None  # (field_count,) int32 first entry of each field in block_top
    block_cols: wp.array = None  # (field_count,) int32 blocks along x of each field
    block_top: wp.array = None  # (blocks,) float32 highest grid point of each block of FIELD_BLOCK^2 cells [m]
    # Pair parameters (:func:`.params.combine_pair_params`; edited by set_world_friction).
    pair_mu: wp.array = None  # (pair_count,) float32 friction coefficient (max of the two) [-]
    pair_margin: wp.array = None  # (pair_count,) float32 MuJoCo margin (sum of margins + gaps) [m]
    pair_gap: wp.array = None  # (pair_count,) float32 sum of gaps [m]
    pair_solref: wp.array = None  # (pair_count,) vec2 mean solref (time constant [s], damping ratio [-])
    pair_solimp: wp.array = None  # (pair_count,) vec5 mean solimp
    # Bundles (.candidates; :func:`.params.combine_pair_params`): the bounding test of their pairs, per template
    # bundle (the bound holds in every world of the template), and per world bundle whether its slots are clear.
    # (template bundles,) vec3 centre of the A shapes of every bundle of its body A, body A's frame (static: its
    # own A shapes, world)
    bundle_centre_a: wp.array = None
    bundle_centre_b: wp.array = None  # (template bundles,) vec3 centre of its B shapes, body B's frame (static: world)
    bundle_bound: wp.array = None  # (template bundles,) float32 centre distance beyond which no pair touches [m]
    bundle_reach: wp.array = None  # (template bundles,) float32 A centre to B origin beyond which none touches [m]
    bundle_run: wp.array = None  # (template bundles,) vec2i [first, end) of the bundles with its template and body A
    bundle_clear: wp.array = None  # (bundles,) int32 1 while its slots are clear (it was far at the last collide)
    # Per step, per slot.
    active: wp.array = None  # (slot_count,) int32 1 where the slot holds a contact
    point: wp.array = None  # (slot_count,) vec3 world contact point [m]
    normal: wp.array = None  # (slot_count,) vec3 unit normal from A to B
    dist: wp.array = None  # (slot_count,) float32 signed distance [m] (negative: penetration)
    tangent: wp.array = None  # (slot_count,) vec3 first friction direction (unit, normal to n)
    force: wp.array = None  # (slot_count,) vec3 contact force on B, world frame [N]
    # The narrow-phase kernels' NarrowArgs, kept while the arrays they hold stay the same (:func:`_narrow_args`).
    narrow: BoundStruct = field(default_factory=BoundStruct)

    # Per-pair host views over every world, built on request from the templates (diagnostics and tests).
    @property
    def templates(self) -> Templates:
        """Template of each world, first world of each template."""
        return self.pairs.templates

    @property
    def template_count(self) -> int:
        """Distinct world pair layouts (:mod:`.pairs`)."""
        return len(self.pairs.templates.template_block)

    @property
    def block_pair_start_host(self) -> np.ndarray:
        """(worlds + 1,) int64 first pair of each world."""
        return self.pairs.block_pair_start

    @property
    def pair_world_host(self) -> np.ndarray:
        """(pair_count,) int64 world of each pair (ascending)."""
        return self.pairs.pair_world()

    @property
    def pair_shape_host(self) -> np.ndarray:
        """(pair_count, 2) int64 shapes (A, B), type A <= type B."""
        return self.pairs.decoded(self.pairs.shape, self.pairs.block_shape_offset)

    @property
    def pair_body_host(self) -> np.ndarray:
        """(pair_count, 2) int64 bodies of A and B (-1: static)."""
        return self.pairs.decoded(self.pairs.body, self.pairs.block_body_offset)

    @property
    def pair_slots_host(self) -> np.ndarray:
        """(pair_count,) int64 slots of each pair."""
        return self.pairs.expand(self.pairs.slots)

    @property
    def pair_slot_start_host(self) -> np.ndarray:
        """(pair_count + 1,) int64 first slot of each pair."""
        return np.concatenate([[0], np.cumsum(self.pair_slots_host)]).astype(np.int64)

    @property
    def pair_condim_host(self) -> np.ndarray:
        """(pair_count,) int64 contact dimensionality (MuJoCo's rule of the two shapes)."""
        return self.pairs.expand(self.pairs.condim)

    @property
    def slot_pair_host(self) -> np.ndarray:
        """(slot_count,) int64 pair of each slot."""
        return np.repeat(np.arange(self.pair_count, dtype=np.int64), self.pair_slots_host)


def _shape_radius(stype, scale, mesh_radius):
    r = np.zeros(len(stype))
    r[stype == GeoType.SPHERE] = scale[stype == GeoType.SPHERE, 0]
    cap = stype == GeoType.CAPSULE
    r[cap] = scale[cap, 0] + scale[cap, 1]
    box = stype == GeoType.BOX
    r[box] = np.linalg.norm(scale[box], axis=1)
    cyl = (stype == GeoType.CYLINDER) | (stype == GeoType.CONE)
    r[cyl] = np.hypot(scale[cyl, 0], scale[cyl, 1])
    r[stype == GeoType.MESH] = mesh_radius[stype == GeoType.MESH]
    ell = stype == GeoType.ELLIPSOID
    r[ell] = scale[ell].max(axis=1, initial=0.0)
    r[stype == GeoType.PLANE] = 0.0  # a plane pair's bound is the other shape's radius: its height is tested
    r[stype == GeoType.HFIELD] = 0.0  # a heightfield pair bounds the other shape by the field's box
    return r


def _mesh_tables(model, shape_mesh, scale, stype):
    """Convex hulls of every mesh (each limited to its ``maxhullvert`` vertices) and the bounding radius
    of every mesh shape about its origin."""
    hulls = hull_tables(model.meshes)
    radius = np.zeros(len(stype))
    shapes = np.nonzero((stype == GeoType.MESH) & (np.asarray(shape_mesh) >= 0))[0]
    if len(shapes):  # once per distinct (mesh, scale): replicated worlds repeat them
        keys = np.column_stack([np.asarray(shape_mesh)[shapes], np.asarray(scale)[shapes]])
        unique, inverse = unique_rows(keys)
        per_key = np.empty(len(unique))
        for k, row in enumerate(unique):
            m = int(row[0])
            v = hulls.verts[hulls.vert_start[m] : hulls.vert_start[m + 1]]
            per_key[k] = np.linalg.norm(v * row[1:], axis=1).max()
        radius[shapes] = per_key[np.asarray(inverse).reshape(-1)]
    return hulls, radius


def build_contacts(model, layout) -> Contacts:
    """Enumerate candidate pairs per world and lay out their contact slots (host, once)."""
    stype = model.shape_type.numpy().astype(np.int64)
    scale = model.shape_scale.numpy().astype(np.float64)
    sbody = model.shape_body.numpy().astype(np.int64)
    shape_mesh = model.shape_mesh.numpy()
    hulls, mesh_radius = _mesh_tables(model, shape_mesh, scale, stype)
    sh = shape_columns(model, layout, stype, sbody)
    kinds = len(GeoType)
    counts_table = np.zeros((kinds, kinds), np.int64)
    for i in range(kinds):
        for j in range(i, kinds):
            counts_table[i, j] = feature_count(i, j)
    radius = _shape_radius(stype, scale, mesh_radius)
    phase = np.array([[phase_of(i, j) for j in range(kinds)] for i in range(kinds)], dtype=np.int64)
    condim, priority = model.shape_condim.numpy(), model.shape_priority.numpy()
    margin = model.shape_contact_margin.numpy() + model.shape_contact_gap.numpy()

    def pair_table(pa, pb):  # slot count, condim and bounding radius (float32 bits) of each pair
        slots = _field_pair_slots(model, pa, pb, radius, counts_table[stype[pa], stype[pb]])
        # MuJoCo: the higher-priority shape's condim, else the larger one
        pr_a, pr_b = priority[pa], priority[pb]
        cd = np.where(pr_a > pr_b, condim[pa], np.where(pr_b > pr_a, condim[pb], np.maximum(condim[pa], condim[pb])))
        bound = (radius[pa] + radius[pb]).astype(np.float32).view(np.int32)
        bundle = phase[stype[pa], stype[pb]] * 2 + (stype[pa] == GeoType.PLANE)  # bundle class (.candidates)
        return np.column_stack([slots, cd, bound, bundle])

    # The per-shape columns the pairs depend on (candidates' module docstring), float32 ones by their bits.
    signature = np.column_stack(
        [
            stype,
            model.shape_scale.numpy().astype(np.float32).view(np.int32).reshape(-1, 3),
            shape_mesh,
            sh.collide,
            sh.group,
            condim,
            priority,
            model.shape_heightfield.numpy(),
            margin.astype(np.float32).view(np.int32),
        ]
    ).astype(np.int32)
    pairs = lay_out_pairs(model, sh, counts_table, signature, pair_table)
    if pairs.skipped:
        warnings.warn(
            f"SolverGeneralized: {pairs.skipped} shape pair(s) of unsupported type combinations will not "
            f"collide (supported: {_supported()})",
            stacklevel=3,
        )
    return _upload(model, pairs, stype, hulls)


def _supported():
    from .primitive import SUPPORTED

    return SUPPORTED


def _field_pair_slots(model, pa, pb, radius, slots):
    """``slots`` with each heightfield pair's count narrowed to the prisms its other shape can cover."""
    is_field = model.shape_type.numpy()[pb] == GeoType.HFIELD
    if not is_field.any() or not len(pa):
        return slots
    fields = model.heightfields
    index = model.shape_heightfield.numpy()[pb[is_field]]
    spacing = np.array([f.spacing for f in fields], dtype=np.float64).reshape(-1, 2)[index]
    cells = np.array([(f.ncol - 1, f.nrow - 1) for f in fields], dtype=np.float64).reshape(-1, 2)[index]
    margin = model.shape_contact_margin.numpy() + model.shape_contact_gap.numpy()
    pair_margin = margin[pa[is_field]] + margin[pb[is_field]]
    out = slots.copy()
    out[is_field] = field_slots(radius[pa[is_field]], pair_margin, spacing, cells)
    return out


def _field_tables(model, hulls, arr, c: Contacts):
    """The heightfield tables of c; returns the hull vertices followed by every field's grid points."""
    fields = model.heightfields
    counts = np.array([h.nrow * h.ncol for h in fields], dtype=np.int64)
    starts = len(hulls.verts) + np.concatenate([[0], np.cumsum(counts)])[:-1]
    c.shape_field = arr(model.shape_heightfield.numpy().astype(np.int32), wp.int32)
    c.rows = arr(np.array([h.nrow for h in fields], np.int32), wp.int32)
    c.cols = arr(np.array([h.ncol for h in fields], np.int32), wp.int32)
    c.point_start = arr(starts.astype(np.int32), wp.int32)
    extent = [(h.hx, h.hy, h.heights.max(), h.bottom) for h in fields]
    c.extent = arr(np.array(extent, np.float32).reshape(-1, 4), wp.vec4)
    tops = [field_block_top(h.heights.astype(np.float32), FIELD_BLOCK) for h in fields]
    sizes = np.array([t.size for t in tops], dtype=np.int64)
    c.block_start = arr((np.concatenate([[0], np.cumsum(sizes)])[:-1]).astype(np.int32), wp.int32)
    c.block_cols = arr(np.array([t.shape[1] for t in tops], np.int32), wp.int32)
    c.block_top = arr(np.concatenate([t.ravel() for t in tops] + [np.zeros(1, np.float32)]), wp.float32)
    return np.concatenate([hulls.verts.reshape(-1, 3)] + [h.points() for h in fields])


def _upload(model, pairs: PairLayout, stype, hulls):
    dev = model.device
    c = Contacts()
    c.pairs = pairs
    c.pair_count = pairs.pair_count
    c.slot_count = pairs.slot_count
    kinds = range(len(GeoType))
    phase = np.array([[phase_of(i, j) for j in kinds] for i in kinds], dtype=np.int64)
    # each template pair's phase, from its shapes in the template's first world, times the worlds it serves
    first = pairs.templates.template_block
    of_pair = np.repeat(np.arange(len(first)), np.diff(pairs.template_pair_start))
    shapes = decode(pairs.shape, pairs.block_shape_offset[first][of_pair][:, None])
    tphase = phase[stype[shapes[:, 0]], stype[shapes[:, 1]]] if len(shapes) else np.zeros(0, np.int64)
    served = pairs.world_count(of_pair)
    c.convex_pair_count = int(served[tphase == PHASE_CONVEX].sum())
    c.field_pair_count = int(served[tphase == PHASE_FIELD].sum())

    def arr(x, dtype):
        x = np.ascontiguousarray(x)
        if len(x) == 0:
            x = np.zeros((1,) + x.shape[1:], dtype=x.dtype)
        return wp.array(x, dtype=dtype, device=dev)

    c.topology = _topology(pairs, arr)
    _zeros(c, _PAIR_COLUMNS, c.pair_count, dev)
    _zeros(c, _BUNDLE_COLUMNS, int(pairs.template_bundle_start[-1]), dev)
    c.bundle_clear = zeroed(int(pairs.block_bundle_start[-1]), wp.int32, dev)
    c.bundle_run = arr(pairs.bundle_run.astype(np.int32).reshape(-1, 2), wp.vec2i)
    combine_pair_params(model, c)
    c.mesh_start = arr(hulls.vert_start, wp.int32)
    c.mesh_verts = arr(_field_tables(model, hulls, arr, c).astype(np.float32), wp.vec3)
    c.mesh_face_start = arr(hulls.face_start, wp.int32)
    c.mesh_face_normal = arr(hulls.face_normal.astype(np.float32), wp.vec3)
    c.mesh_face_vert_start = arr(hulls.face_vert_start, wp.int32)
    c.mesh_face_verts = arr(hulls.face_verts, wp.int32)
    _zeros(c, _SLOT_COLUMNS, c.slot_count, dev)
    return c


# The per-pair and per-slot arrays of Contacts and their dtypes.
_PAIR_COLUMNS = {
    "pair_mu": wp.float32,
    "pair_margin": wp.float32,
    "pair_gap": wp.float32,
    "pair_solref": wp.vec2,
    "pair_solimp": vec5,
}
_BUNDLE_COLUMNS = {
    "bundle_centre_a": wp.vec3,
    "bundle_centre_b": wp.vec3,
    "bundle_bound": wp.float32,
    "bundle_reach": wp.float32,
}
_SLOT_COLUMNS = {
    "active": wp.int32,
    "point": wp.vec3,
    "normal": wp.vec3,
    "dist": wp.float32,
    "tangent": wp.vec3,
    "force": wp.vec3,
}


def _zeros(c: Contacts, columns: dict, count: int, dev):
    """Set the fields of c named in ``columns`` to zeroed arrays of ``count`` (at least 1) elements of their
    dtypes."""
    for name, dtype in columns.items():
        setattr(c, name, zeroed(count, dtype, dev))


def _topology(pairs: PairLayout, arr) -> PairTopology:
    """The Warp copy of the template pair tables and each world's ranges and offsets (:mod:`.pairs`)."""
    i32 = np.int32
    topo = PairTopology()
    topo.block_pair_start = arr(pairs.block_pair_start.astype(i32), wp.int32)
    topo.block_slot_start = arr(pairs.block_slot_start.astype(i32), wp.int32)
    topo.block_template = arr(pairs.templates.block_template.astype(i32), wp.int32)
    topo.block_shape_offset = arr(pairs.block_shape_offset.astype(i32), wp.int32)
    topo.block_body_offset = arr(pairs.block_body_offset.astype(i32), wp.int32)
    topo.template_pair_start = arr(pairs.template_pair_start.astype(i32), wp.int32)
    topo.template_slot_start = arr(pairs.template_slot_start.astype(i32), wp.int32)
    topo.shape = arr(pairs.shape.astype(i32).reshape(-1, 2), wp.vec2i)
    topo.body = arr(pairs.body.astype(i32).reshape(-1, 2), wp.vec2i)
    topo.slots = arr(np.stack([pairs.first_slot, pairs.slots], 1).astype(i32).reshape(-1, 2), wp.vec2i)
    topo.radius = arr(pairs.radius, wp.float32)
    topo.slot_pair = arr(pairs.slot_pair.astype(i32), wp.int32)
    topo.block_bundle_start = arr(pairs.block_bundle_start.astype(i32), wp.int32)
    topo.template_bundle_start = arr(pairs.template_bundle_start.astype(i32), wp.int32)
    topo.template_world = arr(pairs.templates.template_block.astype(i32), wp.int32)
    topo.bundle_start = arr(pairs.bundle_start.astype(i32), wp.int32)
    topo.bundle_pairs = arr(pairs.bundle_pairs.astype(i32), wp.int32)
    topo.bundle_body = arr(pairs.bundle_body.astype(i32).reshape(-1, 2), wp.vec2i)
    topo.bundle_class = arr(pairs.bundle_class.astype(i32), wp.int32)
    return topo


@wp.func
def _feature_vs(pw: wp.vec3, rad: float, c: Convex):
    """World point pw with radius rad against shape c: (distance, normal from the point's shape to c,
    contact point midway between the surfaces)."""
    dist, n_l, q_l = point_distance(c.kind, c.size, wp.transform_point(wp.transform_inverse(c.xf), pw))
    nb = wp.transform_vector(c.xf, n_l)
    qb = wp.transform_point(c.xf, q_l)
    return dist - rad, -nb, 0.5 * (pw - nb * rad + qb)


@wp.func
def _mesh_vertex(k: int, c: Convex, mesh_verts: wp.array(dtype=wp.vec3), o: wp.vec3, n: wp.vec3):
    """k-th deepest hull vertex of mesh shape c along -n from the point o (ties broken by index), as
    (depth [m], world point)."""
    prev_d = float(-1.0e30)
    prev_i = int(-1)
    best_d = float(0.0)
    best_p = wp.vec3(0.0)
    for _round in range(k + 1):
        best_d = float(1.0e30)
        best_i = int(-1)
        for i in range(c.vert_start, c.vert_end):
            pw = wp.transform_point(c.xf, wp.cw_mul(mesh_verts[i], c.size))
            d = wp.dot(pw - o, n)
            later = d > prev_d or (d == prev_d and i > prev_i)
            if later and (d < best_d or (d == best_d and i < best_i)):
                best_d = d
                best_i = i
                best_p = pw
        prev_d = best_d
        prev_i = best_i
    return best_d, best_p


@wp.func(inline=True)
def _plane_normal(a: Convex):
    """The world normal of plane a (its frame's +z)."""
    return wp.transform_vector(a.xf, wp.vec3(0.0, 0.0, 1.0))


@wp.func
def _plane_contacts(
    slots: wp.vec2i, a: Convex, b: Convex, mesh_verts: wp.array(dtype=wp.vec3), margin: float, out: ContactSlots
):
    """Shape b on the plane a (normal +z), into ``slots`` (first slot, slot count): b's deepest hull
    vertices, or its :func:`.primitive.shape_feature` points, each midway between the surfaces."""
    # Friction frame hint (MuJoCo's): a capsule's axis on a plane; none (the default frame) otherwise.
    hint = wp.vec3(0.0)
    if b.kind == CAPSULE:
        hint = wp.transform_vector(b.xf, wp.vec3(0.0, 0.0, 1.0))
    ca = wp.transform_get_translation(a.xf)
    n = _plane_normal(a)
    if b.kind == MESH:
        for k in range(slots[1]):
            d, pw = _mesh_vertex(k, b, mesh_verts, ca, n)
            emit_contact(slots[0] + k, d, n, pw - n * (0.5 * d), margin, hint, out)
        return
    toward = wp.transform_vector(wp.transform_inverse(b.xf), -n)
    for k in range(slots[1]):
        pl, rad = shape_feature(b.kind, b.size, k, toward)
        pw = wp.transform_point(b.xf, pl)
        d = wp.dot(pw - ca, n) - rad
        emit_contact(slots[0] + k, d, n, pw - n * (rad + 0.5 * d), margin, hint, out)


@wp.func
def _corner_contacts(slots: wp.vec2i, a: Convex, b: Convex, margin: float, out: ContactSlots):
    """Box or cylinder a against cylinder b, into ``slots`` (first slot, slot count): the features of a (box
    corners, cylinder rim points) against b, then the features of b against a (normal flipped)."""
    ca = wp.transform_get_translation(a.xf)
    cb = wp.transform_get_translation(b.xf)
    na = 8
    if a.kind == CYLINDER:
        na = 6
    to_b = wp.transform_vector(wp.transform_inverse(a.xf), wp.normalize(cb - ca))
    to_a = wp.transform_vector(wp.transform_inverse(b.xf), wp.normalize(ca - cb))
    for k in range(slots[1]):
        if k < na:
            pl, rad = shape_feature(a.kind, a.size, k, to_b)
            d, n, pt = _feature_vs(wp.transform_point(a.xf, pl), rad, b)
            emit_contact(slots[0] + k, d, n, pt, margin, wp.vec3(0.0), out)
        else:
            pl, rad = shape_feature(b.kind, b.size, k - na, to_a)
            d, n, pt = _feature_vs(wp.transform_point(b.xf, pl), rad, a)
            emit_contact(slots[0] + k, d, -n, pt, margin, wp.vec3(0.0), out)


@wp.func
def _capsule_contacts(start: int, a: Convex, b: Convex, margin: float, out: ContactSlots):
    """Capsule a against cylinder b: slots start .. start + 2 (closest / end points)."""
    axis_a = wp.transform_vector(a.xf, wp.vec3(0.0, 0.0, 1.0))
    hint = axis_a
    ca = wp.transform_get_translation(a.xf)
    cb = wp.transform_get_translation(b.xf)
    half = a.size[1]
    e0 = ca - axis_a * half
    e1 = ca + axis_a * half
    # Slot 0: the segment point closest to B's centre (when inside the segment), slots 1 and 2: the ends.
    t = wp.clamp(wp.dot(cb - ca, axis_a), -half, half)
    if wp.abs(t) < half:
        d, n, pt = _feature_vs(ca + axis_a * t, a.radius, b)
        emit_contact(start, d, n, pt, margin, hint, out)
    d0, n0, p0 = _feature_vs(e0, a.radius, b)
    emit_contact(start + 1, d0, n0, p0, margin, hint, out)
    d1, n1, p1 = _feature_vs(e1, a.radius, b)
    emit_contact(start + 2, d1, n1, p1, margin, hint, out)


@wp.func(inline=True)  # the tables by value: inlined into the per-world loop, they are not copied
def _collide_pair(p: int, slots: wp.vec2i, bound: float, a: Convex, b: Convex, args: NarrowArgs):
    """Narrow phase of primitive pair p (shapes a and b, slots its (first slot, slot count)): fills its
    contact slots."""
    margin = args.pair_margin[p]
    if a.kind == PLANE:
        # b's origin higher above the plane than its bounding radius plus the margin (``bound``, float32
        # rounding spared on either sign): no feature of b comes within the margin, and its slots stay cleared.
        height = wp.dot(wp.transform_get_translation(b.xf) - wp.transform_get_translation(a.xf), _plane_normal(a))
        if height > bound + 1.0e-5 * wp.abs(bound) + 1.0e-6:
            return
        _plane_contacts(slots, a, b, args.hulls.mesh_verts, margin, args.out)
        return
    ca = wp.transform_get_translation(a.xf)
    if a.kind == SPHERE:  # (the kernel has bound-tested the shapes' origins)
        d, n, pt = _feature_vs(ca, a.radius, b)
        emit_contact(slots[0], d, n, pt, margin, wp.vec3(0.0), args.out)
    elif a.kind == CAPSULE:
        if b.kind == CAPSULE:
            capsule_capsule(slots[0], a, b, margin, args.out)
        elif b.kind == BOX:
            capsule_box(slots[0], a, b, margin, args.out)
        else:
            _capsule_contacts(slots[0], a, b, margin, args.out)
    elif b.kind == BOX:
        box_box(slots, a, b, margin, args.out)
    else:
        _corner_contacts(slots, a, b, margin, args.out)


_collide_kernel = world_pair_kernel(_collide_pair, PHASE_PRIMITIVE, "_collide_kernel", __name__)


def _narrow_args(model, contacts: Contacts, body_q) -> NarrowArgs:
    """The kernels' :class:`.primitive.NarrowArgs`, kept in ``contacts`` while the arrays stay the same."""
    arrays = (
        body_q,
        model.shape_type,
        model.shape_transform,
        model.shape_scale,
        model.shape_mesh,
        contacts.shape_field,
    )
    return contacts.narrow.get(arrays, (), lambda: narrow_args(model, contacts, body_q))


def collide(model, contacts: Contacts, body_q, worlds=None, block_dim: int = 1, registers: int | None = None):
    """Narrow phase over the candidate pairs of the worlds ``worlds`` = (first, count) (None: all); fills
    their contact slots: primitive pairs and mesh-plane here, mesh, ellipsoid and cylinder-cylinder pairs in
    :mod:`.convex`'s kernel, heightfield pairs in :mod:`.heightfield`'s. One block of ``block_dim`` lanes per
    world, lanes over its pairs (no per-pair world lookup: a world's offsets are read once); ``registers``: the
    kernels' CUDA register cap (None: none)."""
    blocks = len(contacts.block_pair_start_host) - 1
    if worlds is None:
        worlds = (0, blocks)
    if worlds[0] < 0 or worlds[1] < 0 or worlds[0] + worlds[1] > blocks:
        raise SolverError(f"collide: worlds {tuple(worlds)} (first, count) outside the model's {blocks} world(s)")
    if not body_q.is_contiguous:  # the kernels read it by element (..items.item), not by Warp's strides
        raise SolverError(f"collide: body_q must be a contiguous array, got strides {body_q.strides}")
    if worlds[1] == 0 or contacts.pair_count == 0:
        return
    args = _narrow_args(model, contacts, body_q)
    if contacts.convex_pair_count:  # a model without such pairs never builds the convex kernel
        launch_world_pairs(register_capped(convex_kernel, registers), args, worlds, block_dim, model.device)
    if contacts.field_pair_count:
        launch_world_pairs(register_capped(field_kernel, registers), args, worlds, block_dim, model.device)
    launch_world_pairs(register_capped(_collide_kernel, registers), args, worlds, block_dim, model.device)
