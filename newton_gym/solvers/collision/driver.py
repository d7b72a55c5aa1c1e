"""Broad phase and contact slots.

Worlds never change membership, so candidate shape pairs are enumerated once, at solver construction,
per world: every pair of shapes inside a world plus every world shape against every global (-1) shape,
filtered by collide flags, collision groups (-1 meets all; g >= 0 meets g and -1), the model's filter
pairs (which include joint parent/child pairs), the articulation self-collision switch and "at least one
shape moves". Cost is linear in the world count. Each pair owns a fixed block of contact slots (its
maximum contact count), so contacts of a world are contiguous, need no atomics and persist slot by slot
(warm starts). Per step, :func:`collide` runs a bounding-sphere test and the narrow phase per pair. Mesh
shapes collide as their convex hulls (:mod:`.collision_hull`, :mod:`.collision_convex`), ellipsoids
there too except against planes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import warp as wp

from ...errors import SolverError
from ...sim.types import GeoType
from ..tree import DeclaredFields, world_of
from ..types import vec5
from .convex import collide_convex
from .hull import hull_tables
from .pairs import GLOBAL, PairTopology, TemplateLayout, decode_pair, find_templates, world_pairs
from .params import combine_pair_params
from .primitive import (
    CAPSULE,
    CYLINDER,
    MESH,
    PLANE,
    SPHERE,
    convex_pair,
    emit_contact,
    feature_count,
    is_convex_pair,
    point_distance,
    segment_closest,
    shape_feature,
    shape_pose,
)

__all__ = ["Contacts", "build_contacts", "collide"]


@dataclass(eq=False)
class Contacts(DeclaredFields):
    """Static pair table and per-slot contact outputs, laid out once by :func:`build_contacts`; the only
    place their fields are declared (:class:`.layout.DeclaredFields`: no other attribute can be set).
    Warp arrays hold at least one element, so a model without pairs still launches."""

    # Layout (host).
    pair_count: int = 0  # candidate shape pairs
    convex_pair_count: int = 0  # pairs of a mesh or ellipsoid with anything but a plane (collision_convex's)
    slot_count: int = 0  # contact slots (each pair owns its maximum contact count)
    template_count: int = 0  # distinct world pair layouts (:mod:`.pair_topology`)
    pair_slots_host: np.ndarray = None  # (pair_count,) int64 slots of each pair
    pair_slot_start_host: np.ndarray = None  # (pair_count + 1,) int64 first slot of each pair
    pair_world_host: np.ndarray = None  # (pair_count,) int64 world of each pair (ascending)
    pair_condim_host: np.ndarray = None  # (pair_count,) int64 contact dimensionality (max of the two shapes)
    pair_shape_host: np.ndarray = None  # (pair_count, 2) int64 shapes (A, B), type A <= type B
    pair_body_host: np.ndarray = None  # (pair_count, 2) int64 bodies of A and B (-1: static)
    slot_pair_host: np.ndarray = None  # (slot_count,) int64 pair of each slot
    block_pair_start_host: np.ndarray = None  # (worlds + 1,) int64 first pair of each world
    templates: TemplateLayout = None  # template of each world, first world of each template
    # Static pair tables, stored once per template (Warp; :class:`.pair_topology.PairTopology`).
    topology: PairTopology = None
    # Mesh convex hulls (:mod:`.collision_hull`; mesh frame, before the shape's scale).
    mesh_start: wp.array = None  # (mesh_count + 1,) int32 first convex-hull vertex of each mesh
    mesh_verts: wp.array = None  # (hull vertices,) vec3 mesh convex-hull vertices [m]
    mesh_face_start: wp.array = None  # (mesh_count + 1,) int32 first hull face of each mesh
    mesh_face_normal: wp.array = None  # (hull faces,) vec3 outward unit face normals
    mesh_face_vert_start: wp.array = None  # (hull faces + 1,) int32 first corner of each face
    mesh_face_verts: wp.array = None  # (face corners,) int32 hull vertex of each corner, counter-clockwise
    # Pair parameters (:func:`.contact_params.combine_pair_params`; edited by set_world_friction).
    pair_mu: wp.array = None  # (pair_count,) float32 friction coefficient (max of the two) [-]
    pair_margin: wp.array = None  # (pair_count,) float32 MuJoCo margin (sum of margins + gaps) [m]
    pair_gap: wp.array = None  # (pair_count,) float32 sum of gaps [m]
    pair_bound: wp.array = None  # (pair_count,) float32 pair_radius + margin [m]
    pair_solref: wp.array = None  # (pair_count,) vec2 mean solref (time constant [s], damping ratio [-])
    pair_solimp: wp.array = None  # (pair_count,) vec5 mean solimp
    # Per step, per slot.
    active: wp.array = None  # (slot_count,) int32 1 where the slot holds a contact
    point: wp.array = None  # (slot_count,) vec3 world contact point [m]
    normal: wp.array = None  # (slot_count,) vec3 unit normal from A to B
    dist: wp.array = None  # (slot_count,) float32 signed distance [m] (negative: penetration)
    tangent: wp.array = None  # (slot_count,) vec3 first friction direction (unit, normal to n)
    force: wp.array = None  # (slot_count,) vec3 contact force on B, world frame [N]


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
    r[stype == GeoType.PLANE] = np.inf
    return r


def _mesh_tables(model, shape_mesh, scale, stype):
    """Convex hulls of every mesh (each limited to its ``maxhullvert`` vertices) and the bounding radius
    of every mesh shape about its origin."""
    hulls = hull_tables(model.meshes)
    radius = np.zeros(len(stype))
    for s in np.nonzero(stype == GeoType.MESH)[0]:
        m = shape_mesh[s]
        if m >= 0:
            v = hulls.verts[hulls.vert_start[m] : hulls.vert_start[m + 1]]
            radius[s] = np.linalg.norm(v * scale[s], axis=1).max()
    return hulls, radius


def _world_candidates(model):
    """All candidate shape pairs (a, b) and their world w, world by world in shape order (no cross-world
    pairs): three int64 arrays. Worlds with the same shape count are enumerated together."""
    n = model.shape_count
    if model.world_count == 0:
        ia, ib = np.triu_indices(n, 1)
        return ia.astype(np.int64), ib.astype(np.int64), np.zeros(len(ia), np.int64)
    sws = model.shape_world_start.numpy().astype(np.int64)
    glob = np.concatenate([np.arange(0, sws[0]), np.arange(sws[-2], sws[-1])]).astype(np.int64)
    counts = np.diff(sws[: model.world_count + 1])
    parts_a, parts_b, parts_w = [], [], []
    for k in np.unique(counts):
        worlds = np.nonzero(counts == k)[0]
        starts = sws[worlds][:, None]
        ia, ib = np.triu_indices(int(k), 1)
        local = np.arange(int(k))
        a = np.concatenate([starts + ia, starts + np.repeat(local, len(glob))], axis=1)
        b = np.concatenate(
            [starts + ib, np.broadcast_to(np.tile(glob, int(k)), (len(worlds), int(k) * len(glob)))], axis=1
        )
        parts_a.append(a.reshape(-1))
        parts_b.append(b.reshape(-1))
        parts_w.append(np.repeat(worlds, a.shape[1]))
    a, b, w = (np.concatenate(p).astype(np.int64) for p in (parts_a, parts_b, parts_w))
    order = np.argsort(w, kind="stable")  # world by world, each world's own order kept
    return a[order], b[order], w[order]


def _keep_mask(a, b, sh, filter_codes, n):
    keep = sh["collide"][a] & sh["collide"][b] & (sh["body"][a] != sh["body"][b])
    keep &= sh["dynamic"][a] | sh["dynamic"][b]
    ga, gb = sh["group"][a], sh["group"][b]
    keep &= (ga < 0) | (gb < 0) | (ga == gb)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep &= ~np.isin(lo.astype(np.int64) * n + hi, filter_codes)
    art_a, art_b = sh["art"][a], sh["art"][b]
    same = (art_a == art_b) & (art_a >= 0)
    keep &= ~same | sh["self_collide"][np.maximum(art_a, 0)]
    return keep


def build_contacts(model, layout) -> Contacts:
    """Enumerate candidate pairs per world and lay out their contact slots (host, once)."""
    dev = model.device
    stype = model.shape_type.numpy()
    scale = model.shape_scale.numpy().astype(np.float64)
    sbody = model.shape_body.numpy()
    shape_mesh = model.shape_mesh.numpy()
    hulls, mesh_radius = _mesh_tables(model, shape_mesh, scale, stype)
    body_art = np.append(layout.body_art, -1)
    body_dyn = np.append(layout.body_dof_last >= 0, False)
    sh = {
        "collide": model.shape_collide.numpy().astype(bool),
        "body": sbody,
        "dynamic": body_dyn[sbody],
        "group": model.shape_collision_group.numpy(),
        "art": body_art[sbody],
        "self_collide": np.append(model.articulation_self_collision.numpy().astype(bool), True),
    }
    n = max(model.shape_count, 1)
    fp = model.shape_collision_filter_pair_array.numpy().reshape(-1, 2).astype(np.int64)
    filter_codes = np.minimum(fp[:, 0], fp[:, 1]) * n + np.maximum(fp[:, 0], fp[:, 1])
    kinds = len(GeoType)
    counts_table = np.zeros((kinds, kinds), np.int64)
    for i in range(kinds):
        for j in range(i, kinds):
            counts_table[i, j] = feature_count(i, j)
    a, b, w = _world_candidates(model)
    keep = _keep_mask(a, b, sh, filter_codes, n)
    a, b, w = a[keep], b[keep], w[keep]
    swap = stype[a] > stype[b]
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    ok = counts_table[stype[a], stype[b]] > 0
    skipped = int((~ok).sum())
    if skipped:
        warnings.warn(
            f"SolverGeneralized: {skipped} shape pair(s) of unsupported type combinations will not "
            f"collide (supported: {_supported()})",
            stacklevel=3,
        )
    pa, pb, pw = a[ok], b[ok], w[ok]
    return _upload(model, dev, pa, pb, pw, stype, scale, sbody, counts_table, hulls, mesh_radius)


def _supported():
    from .primitive import SUPPORTED

    return SUPPORTED


def _upload(model, dev, pa, pb, pw, stype, scale, sbody, counts_table, hulls, mesh_radius):
    c = Contacts()
    c.pair_count = len(pa)
    kinds = range(len(GeoType))
    convex = np.array([[is_convex_pair(i, j) for j in kinds] for i in kinds], dtype=bool)
    c.convex_pair_count = int(convex[stype[pa], stype[pb]].sum()) if len(pa) else 0
    slots = counts_table[stype[pa], stype[pb]] if len(pa) else np.zeros(0, np.int64)
    slot_start = np.concatenate([[0], np.cumsum(slots)])
    c.slot_count = int(slot_start[-1])
    c.pair_slots_host = slots
    c.pair_world_host = world_of(pw)
    c.pair_slot_start_host = slot_start
    condim, priority = model.shape_condim.numpy(), model.shape_priority.numpy()
    if len(pa):  # MuJoCo: the higher-priority shape's condim, else the larger one
        pr_a, pr_b = priority[pa], priority[pb]
        c.pair_condim_host = np.where(
            pr_a > pr_b, condim[pa], np.where(pr_b > pr_a, condim[pb], np.maximum(condim[pa], condim[pb]))
        )
    else:
        c.pair_condim_host = np.zeros(0, np.int64)
    radius = _shape_radius(stype, scale, mesh_radius)
    c.pair_shape_host = np.stack([pa, pb], 1).astype(np.int64).reshape(-1, 2)
    c.pair_body_host = sbody[c.pair_shape_host].astype(np.int64).reshape(-1, 2)
    c.slot_pair_host = np.repeat(np.arange(len(pa)), slots).astype(np.int64)

    def arr(x, dtype):
        x = np.ascontiguousarray(x)
        if len(x) == 0:
            x = np.zeros((1,) + x.shape[1:], dtype=x.dtype)
        return wp.array(x, dtype=dtype, device=dev)

    c.topology = _topology(model, c, (radius[pa] + radius[pb]).astype(np.float32), arr)
    npair = max(c.pair_count, 1)
    c.pair_mu = wp.zeros(npair, dtype=wp.float32, device=dev)
    c.pair_margin = wp.zeros(npair, dtype=wp.float32, device=dev)
    c.pair_gap = wp.zeros(npair, dtype=wp.float32, device=dev)
    c.pair_bound = wp.zeros(npair, dtype=wp.float32, device=dev)
    c.pair_solref = wp.zeros(npair, dtype=wp.vec2, device=dev)
    c.pair_solimp = wp.zeros(npair, dtype=vec5, device=dev)
    combine_pair_params(model, c)
    c.mesh_start = arr(hulls.vert_start, wp.int32)
    c.mesh_verts = arr(hulls.verts.astype(np.float32), wp.vec3)
    c.mesh_face_start = arr(hulls.face_start, wp.int32)
    c.mesh_face_normal = arr(hulls.face_normal.astype(np.float32), wp.vec3)
    c.mesh_face_vert_start = arr(hulls.face_vert_start, wp.int32)
    c.mesh_face_verts = arr(hulls.face_verts, wp.int32)
    ns = max(c.slot_count, 1)
    c.active = wp.zeros(ns, dtype=wp.int32, device=dev)
    c.point = wp.zeros(ns, dtype=wp.vec3, device=dev)
    c.normal = wp.zeros(ns, dtype=wp.vec3, device=dev)
    c.dist = wp.zeros(ns, dtype=wp.float32, device=dev)
    c.tangent = wp.zeros(ns, dtype=wp.vec3, device=dev)
    c.force = wp.zeros(ns, dtype=wp.vec3, device=dev)
    return c


def _local(index: np.ndarray, world: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Template encoding of model indices: world-local for entities of a world, GLOBAL + index for global
    ones, -1 kept."""
    out = np.where(world >= 0, index - start[np.maximum(world, 0)], GLOBAL + index)
    return np.where(index < 0, -1, out)


def _topology(model, c: Contacts, pair_radius: np.ndarray, arr) -> PairTopology:
    """The pair tables of :mod:`.pair_topology`: worlds with equal world-local pair tables share one copy."""
    pw = np.asarray(c.pair_world_host, dtype=np.int64)
    blocks = max(model.world_count, 1)
    pair_start = np.searchsorted(pw, np.arange(blocks + 1), side="left").astype(np.int64)
    slot_start = np.asarray(c.pair_slot_start_host, dtype=np.int64)[pair_start]
    if model.world_count:
        sws = model.shape_world_start.numpy().astype(np.int64)[:blocks]
        bws = model.body_world_start.numpy().astype(np.int64)[:blocks]
        sworld = model.shape_world.numpy().astype(np.int64)
        bworld = np.append(model.body_world.numpy().astype(np.int64), -1)
        shape = _local(c.pair_shape_host, sworld[c.pair_shape_host], sws)
        body = _local(c.pair_body_host, bworld[c.pair_body_host], bws)
    else:
        sws = bws = np.zeros(1, np.int64)
        shape, body = c.pair_shape_host, c.pair_body_host
    pair_block = np.repeat(np.arange(blocks), np.diff(pair_start))
    first = np.asarray(c.pair_slot_start_host[:-1], dtype=np.int64) - slot_start[pair_block]
    slots = np.stack([first, c.pair_slots_host], 1)
    condim = np.asarray(c.pair_condim_host, dtype=np.int64)[:, None]
    radius_bits = pair_radius.view(np.int32).astype(np.int64)[:, None]
    t = find_templates([shape, body, slots, condim, radius_bits], pair_start)
    c.templates, c.template_count = t, len(t.template_block)
    c.block_pair_start_host = pair_start
    take = np.concatenate([np.arange(pair_start[b], pair_start[b + 1]) for b in t.template_block]).astype(np.int64)
    tpair_start = np.concatenate([[0], np.cumsum(np.diff(pair_start)[t.template_block])])
    tslot_counts = np.diff(slot_start)[t.template_block]
    tslot_start = np.concatenate([[0], np.cumsum(tslot_counts)])
    # each template slot's pair, within the template: the representative world's slot_pair less its first pair
    slot_take = np.concatenate([np.arange(slot_start[b], slot_start[b + 1]) for b in t.template_block]).astype(np.int64)
    slot_local = c.slot_pair_host[slot_take] - np.repeat(pair_start[t.template_block], tslot_counts)
    topo = PairTopology()
    i32 = np.int32
    topo.block_pair_start = arr(pair_start.astype(i32), wp.int32)
    topo.block_slot_start = arr(slot_start.astype(i32), wp.int32)
    topo.block_template = arr(t.block_template.astype(i32), wp.int32)
    topo.block_shape_offset = arr(sws.astype(i32), wp.int32)
    topo.block_body_offset = arr(bws.astype(i32), wp.int32)
    topo.template_pair_start = arr(tpair_start.astype(i32), wp.int32)
    topo.template_slot_start = arr(tslot_start.astype(i32), wp.int32)
    topo.shape = arr(shape[take].astype(i32).reshape(-1, 2), wp.vec2i)
    topo.body = arr(body[take].astype(i32).reshape(-1, 2), wp.vec2i)
    topo.slots = arr(slots[take].astype(i32).reshape(-1, 2), wp.vec2i)
    topo.radius = arr(pair_radius[take], wp.float32)
    topo.slot_pair = arr(slot_local.astype(i32), wp.int32)
    return topo


@wp.func
def _feature_vs(pw: wp.vec3, rad: float, tb: int, xb: wp.transform, size_b: wp.vec3):
    """World point pw with radius rad against shape B: (distance, normal from the point's shape to B,
    contact point midway between the surfaces)."""
    dist, n_l, q_l = point_distance(tb, size_b, wp.transform_point(wp.transform_inverse(xb), pw))
    nb = wp.transform_vector(xb, n_l)
    qb = wp.transform_point(xb, q_l)
    return dist - rad, -nb, 0.5 * (pw - nb * rad + qb)


@wp.func
def _mesh_vertex(
    k: int,
    ms: int,
    me: int,
    mesh_verts: wp.array(dtype=wp.vec3),
    scale: wp.vec3,
    xb: wp.transform,
    o: wp.vec3,
    n: wp.vec3,
):
    """k-th deepest hull vertex along -n (ties broken by index), as (depth, world point)."""
    prev_d = float(-1.0e30)
    prev_i = int(-1)
    best_d = float(0.0)
    best_p = wp.vec3(0.0)
    for _round in range(k + 1):
        best_d = float(1.0e30)
        best_i = int(-1)
        for i in range(ms, me):
            pw = wp.transform_point(xb, wp.cw_mul(mesh_verts[i], scale))
            d = wp.dot(pw - o, n)
            later = d > prev_d or (d == prev_d and i > prev_i)
            if later and (d < best_d or (d == best_d and i < best_i)):
                best_d = d
                best_i = i
                best_p = pw
        prev_d = best_d
        prev_i = best_i
    return best_d, best_p


@wp.func(inline=True)  # ~15 arrays by value: inlined into the per-world loop, they are not copied
def _collide_pair(
    p: int,
    s: wp.vec2i,
    bodies: wp.vec2i,
    slots: wp.vec2i,
    shape_type: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_scale: wp.array(dtype=wp.vec3),
    shape_mesh: wp.array(dtype=int),
    pair_bound: wp.array(dtype=float),
    pair_margin: wp.array(dtype=float),
    mesh_start: wp.array(dtype=int),
    mesh_verts: wp.array(dtype=wp.vec3),
    # Data in:
    body_q: wp.array(dtype=wp.transform),
    # Data out:
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """Narrow phase of pair p (shapes s, their bodies, its (first slot, slot count)): fills its contact
    slots."""
    ta = shape_type[s[0]]
    tb = shape_type[s[1]]
    if convex_pair(ta, tb):
        return  # a convex hull or ellipsoid pair: collision_convex's kernel
    start = slots[0]
    count = slots[1]
    for k in range(count):
        active[start + k] = 0
    xa = shape_pose(bodies[0], body_q, shape_transform[s[0]])
    xb = shape_pose(bodies[1], body_q, shape_transform[s[1]])
    ca = wp.transform_get_translation(xa)
    cb = wp.transform_get_translation(xb)
    margin = pair_margin[p]
    size_a = shape_scale[s[0]]
    size_b = shape_scale[s[1]]
    # Friction frame hint (MuJoCo's): a capsule's axis on a plane; none (the default frame) otherwise.
    hint = wp.vec3(0.0)
    if ta == PLANE and tb == CAPSULE:
        hint = wp.transform_vector(xb, wp.vec3(0.0, 0.0, 1.0))
    if ta == PLANE:
        n = wp.transform_vector(xa, wp.vec3(0.0, 0.0, 1.0))
        if tb == MESH:
            m = shape_mesh[s[1]]
            for k in range(count):
                d, pw = _mesh_vertex(k, mesh_start[m], mesh_start[m + 1], mesh_verts, size_b, xb, ca, n)
                emit_contact(start + k, d, n, pw - n * (0.5 * d), margin, hint, active, point, normal, dist, tangent)
            return
        toward = wp.transform_vector(wp.transform_inverse(xb), -n)
        for k in range(count):
            pl, rad = shape_feature(tb, size_b, k, toward)
            pw = wp.transform_point(xb, pl)
            d = wp.dot(pw - ca, n) - rad
            emit_contact(start + k, d, n, pw - n * (rad + 0.5 * d), margin, hint, active, point, normal, dist, tangent)
        return
    if wp.length(cb - ca) > pair_bound[p]:
        return
    if ta == SPHERE:
        d, n, pt = _feature_vs(ca, size_a[0], tb, xb, size_b)
        emit_contact(start, d, n, pt, margin, hint, active, point, normal, dist, tangent)
    elif ta == CAPSULE:
        _collide_capsule(start, xa, size_a, tb, xb, size_b, margin, active, point, normal, dist, tangent)
    else:
        # Box or cylinder A: features of A against B, then features of B against A (normal flipped).
        na = 8
        if ta == CYLINDER:
            na = 6
        to_b = wp.transform_vector(wp.transform_inverse(xa), wp.normalize(cb - ca))
        to_a = wp.transform_vector(wp.transform_inverse(xb), wp.normalize(ca - cb))
        for k in range(count):
            if k < na:
                pl, rad = shape_feature(ta, size_a, k, to_b)
                d, n, pt = _feature_vs(wp.transform_point(xa, pl), rad, tb, xb, size_b)
                emit_contact(start + k, d, n, pt, margin, hint, active, point, normal, dist, tangent)
            else:
                pl, rad = shape_feature(tb, size_b, k - na, to_a)
                d, n, pt = _feature_vs(wp.transform_point(xb, pl), rad, ta, xa, size_a)
                emit_contact(start + k, d, -n, pt, margin, hint, active, point, normal, dist, tangent)


@wp.kernel
def _collide_kernel(
    # Model:
    first: int,
    shape_type: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_scale: wp.array(dtype=wp.vec3),
    shape_mesh: wp.array(dtype=int),
    topo: PairTopology,
    pair_bound: wp.array(dtype=float),
    pair_margin: wp.array(dtype=float),
    mesh_start: wp.array(dtype=int),
    mesh_verts: wp.array(dtype=wp.vec3),
    # Data in:
    body_q: wp.array(dtype=wp.transform),
    # Data out:
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """One block per world: its lanes take the world's pairs in turn."""
    block, lane = wp.tid()
    w = block + first
    at = world_pairs(topo, w)  # the world's offsets, read once
    for lp in range(lane, at.count, wp.block_dim()):
        pair = decode_pair(topo, at, lp)
        _collide_pair(
            at.pair + lp,
            pair.shapes,
            pair.bodies,
            pair.slots,
            shape_type,
            shape_transform,
            shape_scale,
            shape_mesh,
            pair_bound,
            pair_margin,
            mesh_start,
            mesh_verts,
            body_q,
            active,
            point,
            normal,
            dist,
            tangent,
        )


@wp.func
def _collide_capsule(
    start: int,
    xa: wp.transform,
    size_a: wp.vec3,
    tb: int,
    xb: wp.transform,
    size_b: wp.vec3,
    margin: float,
    active: wp.array(dtype=int),
    point: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    tangent: wp.array(dtype=wp.vec3),
):
    """Capsule A against capsule, box or cylinder B: 3 slots (closest / end points)."""
    axis_a = wp.transform_vector(xa, wp.vec3(0.0, 0.0, 1.0))
    hint = axis_a
    ca = wp.transform_get_translation(xa)
    cb = wp.transform_get_translation(xb)
    e0 = ca - axis_a * size_a[1]
    e1 = ca + axis_a * size_a[1]
    # Slot 0: closest segment point (to B's axis for a capsule, to B's centre otherwise).
    t = wp.clamp(wp.dot(cb - ca, axis_a), -size_a[1], size_a[1])
    pa = ca + axis_a * t
    interior = wp.abs(t) < size_a[1]
    ends = True
    if tb == CAPSULE:
        axis_b = wp.transform_vector(xb, wp.vec3(0.0, 0.0, 1.0))
        pa, pb = segment_closest(e0, e1, cb - axis_b * size_b[1], cb + axis_b * size_b[1])
        interior = True
        ends = wp.abs(wp.dot(axis_a, axis_b)) > 0.95
    if interior:
        d, n, pt = _feature_vs(pa, size_a[0], tb, xb, size_b)
        emit_contact(start, d, n, pt, margin, hint, active, point, normal, dist, tangent)
    if ends:
        d0, n0, p0 = _feature_vs(e0, size_a[0], tb, xb, size_b)
        emit_contact(start + 1, d0, n0, p0, margin, hint, active, point, normal, dist, tangent)
        d1, n1, p1 = _feature_vs(e1, size_a[0], tb, xb, size_b)
        emit_contact(start + 2, d1, n1, p1, margin, hint, active, point, normal, dist, tangent)


def collide(model, contacts: Contacts, body_q, worlds=None, block_dim: int = 1):
    """Narrow phase over the candidate pairs of the worlds ``worlds`` = (first, count) (None: all); fills
    their contact slots: primitive pairs and mesh-plane here, other mesh pairs in
    :func:`.collision_convex.collide_convex`. One block of ``block_dim`` lanes per world, lanes over its
    pairs (no per-pair world lookup: a world's offsets are read once)."""
    blocks = len(contacts.block_pair_start_host) - 1
    if worlds is None:
        worlds = (0, blocks)
    if worlds[0] < 0 or worlds[1] < 0 or worlds[0] + worlds[1] > blocks:
        raise SolverError(f"collide: worlds {tuple(worlds)} (first, count) outside the model's {blocks} world(s)")
    if worlds[1] == 0 or contacts.pair_count == 0:
        return
    if contacts.convex_pair_count:  # a model without such pairs never builds the convex kernels
        collide_convex(model, contacts, body_q, worlds, block_dim)
    wp.launch_tiled(
        _collide_kernel,
        dim=[worlds[1]],
        block_dim=int(block_dim),
        device=model.device,
        inputs=[
            worlds[0],
            model.shape_type,
            model.shape_transform,
            model.shape_scale,
            model.shape_mesh,
            contacts.topology,
            contacts.pair_bound,
            contacts.pair_margin,
            contacts.mesh_start,
            contacts.mesh_verts,
            body_q,
        ],
        outputs=[contacts.active, contacts.point, contacts.normal, contacts.dist, contacts.tangent],
    )
