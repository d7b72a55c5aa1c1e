"""Turn a ModelBuilder into a Model: validate, derive mass properties, group into worlds, upload."""

from __future__ import annotations

import numpy as np
import warp as wp

from ..errors import ModelBuildError
from .custom_attributes import attach
from .float_range import check_float_range
from .mass import accumulate_body_mass
from .medium import fluid_medium
from .model import Model
from .tables import KIND_NAMES
from .types import JointType, joint_constraint_count
from .worlds import check_world_order, world_start

__all__ = ["build_model", "auto_articulations"]


def _check_one_joint_per_body(builder):
    """Raise unless every body is the child of at most one joint (a tree; loops are equality constraints).
    The usual cause: ``add_body`` already gives its body a free joint, and a later joint moves it again."""
    tj, tb = builder.tables["joint"], builder.tables["body"]
    child = np.asarray(tj.get("child"), dtype=np.int64)
    moved = child[child >= 0]
    counts = np.bincount(moved, minlength=tb.count)
    twice = np.flatnonzero(counts > 1)
    if len(twice):
        b = int(twice[0])
        joints = np.flatnonzero(child == b)[:2]
        names = [tj.labels[j] or f"#{j}" for j in joints]
        raise ModelBuildError(
            f"body {tb.labels[b] or b} is the child of joints {names[0]} and {names[1]} ({len(twice)} such "
            f"bodies): each body has at most one joint (close loops with equality constraints); add_body gives "
            f"its body a free joint, so a body that a later joint moves is added with add_link"
        )


def auto_articulations(builder):
    """Give every joint an articulation. A joint outside any articulation joins the articulation that
    ends right before it when its parent body is moved by that articulation (the add_body + add_joint
    pattern); otherwise runs of such joints form new articulations. Articulations are then renumbered
    in joint order so that they stay grouped by world."""
    tj, ta = builder.tables["joint"], builder.tables["articulation"]
    art = tj.get("articulation").copy()
    if (art >= 0).all():
        return
    parent, child, world = tj.get("parent"), tj.get("child"), tj.get("world")
    starts, ends = list(ta.get("joint_start")), list(ta.get("joint_end"))
    owner_of_body = {int(child[j]): int(art[j]) for j in np.nonzero(art >= 0)[0]}
    for j in np.nonzero(art < 0)[0]:
        j = int(j)
        prev = int(art[j - 1]) if j > 0 else -1
        joins = prev >= 0 and ends[prev] == j and world[j] == world[j - 1] and owner_of_body.get(int(parent[j])) == prev
        if not joins:
            ta.add_row(None, joint_start=j, joint_end=j, world=int(world[j]))
            starts.append(j)
            ends.append(j)
            prev = ta.count - 1
        ends[prev] = j + 1
        art[j] = prev
        owner_of_body[int(child[j])] = prev
    ta.set("joint_end", slice(None), ends)
    order = np.argsort(np.asarray(starts), kind="stable")
    if (order != np.arange(len(order))).any():
        _renumber_articulations(builder, order)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        art = rank[art]
    tj.set("articulation", slice(None), art)


def _renumber_articulations(builder, order):
    ta = builder.tables["articulation"]
    for col in ta.columns:
        ta.set(col.name, slice(None), ta.get(col.name)[order])
    labels = list(ta.labels)
    ta.labels[:] = [labels[i] for i in order]
    rank = {int(old): new for new, old in enumerate(order)}
    for attr in builder.custom_attributes.values():
        if attr.frequency == "articulation":
            attr.values = {rank[i]: v for i, v in attr.values.items()}


def _body_mass(builder):
    tb, ts = builder.tables["body"], builder.tables["shape"]
    n = tb.count
    m_s, com_s, inertia_s = accumulate_body_mass(
        n,
        ts.get("body"),
        ts.get("type"),
        ts.get("xform"),
        ts.get("scale"),
        ts.get("mesh"),
        ts.get("density"),
        builder.meshes,
    )
    mass_given, com_given, inertia_given = tb.get("mass_given"), tb.get("com_given"), tb.get("inertia_given")
    mass = np.where(mass_given, tb.get("mass"), m_s)
    com = np.where(com_given[:, None], tb.get("com"), com_s)
    # Shape inertia, scaled to a given mass and shifted from the shapes' COM to the body's COM.
    ratio = np.divide(mass, m_s, out=np.zeros(n), where=m_s > 0)
    d = com_s - com
    shift = np.einsum("ni,ni->n", d, d)[:, None, None] * np.eye(3) - np.einsum("ni,nj->nij", d, d)
    derived = ratio[:, None, None] * inertia_s + (mass * (m_s > 0))[:, None, None] * shift
    inertia = np.where(inertia_given[:, None, None], tb.get("inertia"), derived)
    if (mass < 0).any():
        b = int(np.argmax(mass < 0))
        raise ModelBuildError(f"body {tb.labels[b] or b}: mass {mass[b]} is negative")
    return mass, com, inertia


def _inverse_inertia(inertia):
    det = np.linalg.det(inertia)
    ok = np.abs(det) > 1e-30
    inv = np.zeros_like(inertia)
    if ok.any():
        inv[ok] = np.linalg.inv(inertia[ok])
    return inv


def _filter_pairs(builder):
    """Shape pairs (k, 2) never to collide: explicit pairs plus every pair of shapes on the parent and
    child bodies of a joint that filters its parent (vectorised: one row per pair, no Python loop)."""
    tj, ts = builder.tables["joint"], builder.tables["shape"]
    sb = ts.get("body")
    order = np.argsort(sb, kind="stable")
    bounds = np.searchsorted(sb[order], np.arange(builder.body_count + 1))
    counts = np.diff(bounds)
    sel = np.nonzero(tj.get("filter_parent") & (tj.get("parent") >= 0))[0]
    parent, child = tj.get("parent")[sel], tj.get("child")[sel]
    cp, cc = counts[parent], counts[child]
    per_joint = cp * cc
    rep = np.repeat(np.arange(len(sel)), per_joint)
    local = np.arange(int(per_joint.sum())) - np.repeat(np.cumsum(per_joint) - per_joint, per_joint)
    a = order[bounds[parent[rep]] + local // np.maximum(cc[rep], 1)]
    b = order[bounds[child[rep]] + local % np.maximum(cc[rep], 1)]
    joint_pairs = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
    pairs = np.concatenate([builder.filter_pair_array(), joint_pairs.astype(np.int64)])
    return unique_pairs(pairs).astype(np.int32)


def unique_pairs(pairs: np.ndarray) -> np.ndarray:
    """The distinct rows of a (k, 2) array of non-negative indices, sorted (what np.unique(pairs, axis=0)
    gives, from one sort of the codes a * n + b instead of a row-wise sort)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return pairs
    n = int(pairs.max()) + 1
    codes = np.sort(pairs[:, 0] * n + pairs[:, 1])
    codes = codes[np.concatenate([[True], codes[1:] != codes[:-1]])]
    return np.stack([codes // n, codes % n], axis=1)


def _arr(data, dtype, device, requires_grad=False):
    return wp.array(np.ascontiguousarray(data), dtype=dtype, device=device, requires_grad=requires_grad)


def build_model(builder, device=None, requires_grad=False) -> Model:
    """Validate ``builder`` and build its Model on ``device`` (see ModelBuilder.finalize)."""
    _check_one_joint_per_body(builder)
    auto_articulations(builder)
    t = builder.tables
    for kind, label in KIND_NAMES.items():
        check_world_order(label, t[kind].get("world"), t[kind].labels)
    mass, com, inertia = _body_mass(builder)
    inv_mass = np.divide(1.0, mass, out=np.zeros_like(mass), where=mass > 0)
    inv_inertia = _inverse_inertia(inertia)
    pm = t["particle"].get("mass")
    check_float_range(
        builder,
        [
            ("body", "mass", mass),
            ("body", "com", com),
            ("body", "inertia", inertia),
            ("body", "inverse mass", inv_mass),
            ("body", "inverse inertia", inv_inertia),
            ("particle", "inverse mass", np.divide(1.0, pm, out=np.zeros_like(pm), where=pm > 0)),
        ],
    )
    m = Model(device)
    dev = m.device
    m.requires_grad = requires_grad
    m.world_count = builder.world_count
    m.up_axis = int(builder.up_axis)
    gravity = np.array(builder.world_gravity or [builder.gravity_vector], dtype=np.float32).reshape(-1, 3)
    m.gravity = _arr(gravity, wp.vec3, dev)
    m.fluid_density, m.fluid_viscosity, m.wind = fluid_medium(
        builder.fluid_density, builder.fluid_viscosity, builder.wind
    )
    _upload_bodies(m, t["body"], (mass, com, inertia, inv_mass, inv_inertia), dev, requires_grad)
    _upload_shapes(m, t["shape"], builder, dev)
    _upload_joints(m, t, dev, requires_grad)
    _upload_misc(m, t, dev)
    _upload_sites(m, t["site"], dev)
    _upload_tendons(m, t["tendon"], t["tendon_wrap"], dev)
    _world_starts(m, t, builder.world_count, dev)
    _upload_custom(m, builder, dev)
    return m


def _upload_bodies(m, tb, mass_props, dev, rg):
    mass, com, inertia, inv_mass, inv_inertia = mass_props
    m.body_count = tb.count
    m.body_key = list(tb.labels)
    m.body_q = _arr(tb.get("q"), wp.transform, dev, rg)
    m.body_qd = _arr(tb.get("qd"), wp.spatial_vector, dev, rg)
    m.body_mass = _arr(mass, wp.float32, dev, rg)
    m.body_inv_mass = _arr(inv_mass, wp.float32, dev, rg)
    m.body_com = _arr(com, wp.vec3, dev, rg)
    m.body_inertia = _arr(inertia, wp.mat33, dev, rg)
    m.body_inv_inertia = _arr(inv_inertia, wp.mat33, dev, rg)
    m.body_kinematic = _arr(tb.get("kinematic"), wp.bool, dev)
    m.body_world = _arr(tb.get("world"), wp.int32, dev)


def _upload_shapes(m, ts, builder, dev):
    m.shape_count = ts.count
    m.shape_key = list(ts.labels)
    m.shape_body = _arr(ts.get("body"), wp.int32, dev)
    m.shape_type = _arr(ts.get("type"), wp.int32, dev)
    m.shape_transform = _arr(ts.get("xform"), wp.transform, dev)
    m.shape_scale = _arr(ts.get("scale"), wp.vec3, dev)
    m.shape_mesh = _arr(ts.get("mesh"), wp.int32, dev)
    m.meshes = list(builder.meshes)
    m.shape_heightfield = _arr(ts.get("heightfield"), wp.int32, dev)
    m.heightfields = list(builder.heightfields)
    for col in ("mu", "mu_torsional", "mu_rolling", "restitution", "ke", "kd"):
        setattr(m, f"shape_material_{col}", _arr(ts.get(col), wp.float32, dev))
    m.shape_solref = _arr(ts.get("solref"), wp.vec2, dev)
    m.shape_solimp = _arr(ts.get("solimp"), wp.types.vector(5, wp.float32), dev)
    m.shape_contact_margin = _arr(ts.get("margin"), wp.float32, dev)
    m.shape_contact_gap = _arr(ts.get("gap"), wp.float32, dev)
    m.shape_condim = _arr(ts.get("condim"), wp.int32, dev)
    m.shape_priority = _arr(ts.get("priority"), wp.int32, dev)
    m.shape_density = _arr(ts.get("density"), wp.float32, dev)
    m.shape_collision_group = _arr(ts.get("collision_group"), wp.int32, dev)
    m.shape_collide = _arr(ts.get("collide"), wp.bool, dev)
    m.shape_visible = _arr(ts.get("visible"), wp.bool, dev)
    m.shape_world = _arr(ts.get("world"), wp.int32, dev)
    pairs = _filter_pairs(builder)
    m.shape_collision_filter_pairs = _PairSet(pairs)
    m.shape_collision_filter_pair_array = _arr(pairs, wp.vec2i, dev)


def _upload_joints(m, t, dev, rg):
    tj, td, tc = t["joint"], t["dof"], t["coord"]
    m.joint_count, m.joint_dof_count, m.joint_coord_count = tj.count, td.count, tc.count
    m.joint_key = list(tj.labels)
    for name, col, dtype in (
        ("joint_type", "type", wp.int32),
        ("joint_parent", "parent", wp.int32),
        ("joint_child", "child", wp.int32),
        ("joint_q_start", "q_start", wp.int32),
        ("joint_qd_start", "qd_start", wp.int32),
        ("joint_enabled", "enabled", wp.bool),
        ("joint_world", "world", wp.int32),
        ("joint_articulation", "articulation", wp.int32),
    ):
        setattr(m, name, _arr(tj.get(col), dtype, dev))
    m.joint_X_p = _arr(tj.get("parent_xform"), wp.transform, dev)
    m.joint_X_c = _arr(tj.get("child_xform"), wp.transform, dev)
    m.joint_dof_dim = _arr(np.stack([tj.get("lin_count"), tj.get("ang_count")], axis=1), wp.vec2i, dev)
    m.joint_axis = _arr(td.get("axis"), wp.vec3, dev)
    for col in (
        "limit_lower",
        "limit_upper",
        "limit_ke",
        "limit_kd",
        "target_ke",
        "target_kd",
        "armature",
        "effort_limit",
        "velocity_limit",
        "friction_dynamic",
        "viscous_damping",
        "damping",
        "spring_stiffness",
        "spring_ref",
        "ref",
    ):
        setattr(m, f"joint_{col}", _arr(td.get(col), wp.float32, dev))
    m.joint_friction = _arr(td.get("friction_static"), wp.float32, dev)
    m.joint_target_pos = _arr(td.get("target_pos"), wp.float32, dev)
    m.joint_target_vel = _arr(td.get("target_vel"), wp.float32, dev)
    m.joint_dof_joint = _arr(td.get("joint"), wp.int32, dev)
    m.joint_coord_joint = _arr(tc.get("joint"), wp.int32, dev)
    m.joint_q = _arr(tc.get("q"), wp.float32, dev, rg)
    m.joint_qd = _arr(td.get("qd"), wp.float32, dev, rg)
    ta = t["articulation"]
    m.articulation_count = ta.count
    m.articulation_key = list(ta.labels)
    m.articulation_start = _arr(
        np.append(ta.get("joint_start"), tj.count if ta.count == 0 else ta.get("joint_end")[-1]), wp.int32, dev
    )
    m.articulation_end = _arr(ta.get("joint_end"), wp.int32, dev)
    m.articulation_self_collision = _arr(ta.get("self_collision"), wp.bool, dev)
    m.articulation_world = _arr(ta.get("world"), wp.int32, dev)


def _upload_misc(m, t, dev):
    tp, te = t["particle"], t["equality"]
    m.particle_count = tp.count
    m.particle_q = _arr(tp.get("q"), wp.vec3, dev)
    m.particle_qd = _arr(tp.get("qd"), wp.vec3, dev)
    pm = tp.get("mass")
    m.particle_mass = _arr(pm, wp.float32, dev)
    m.particle_inv_mass = _arr(np.divide(1.0, pm, out=np.zeros_like(pm), where=pm > 0), wp.float32, dev)
    m.particle_radius = _arr(tp.get("radius"), wp.float32, dev)
    m.particle_flags = _arr(tp.get("flags"), wp.int32, dev)
    m.particle_world = _arr(tp.get("world"), wp.int32, dev)
    m.equality_constraint_count = te.count
    m.equality_constraint_key = list(te.labels)
    for col, dtype in (
        ("type", wp.int32),
        ("body1", wp.int32),
        ("body2", wp.int32),
        ("anchor", wp.vec3),
        ("relpose", wp.transform),
        ("joint1", wp.int32),
        ("joint2", wp.int32),
        ("tendon1", wp.int32),
        ("tendon2", wp.int32),
        ("polycoef", wp.types.vector(5, wp.float32)),
        ("torquescale", wp.float32),
        ("solref", wp.vec2),
        ("solimp", wp.types.vector(5, wp.float32)),
        ("enabled", wp.bool),
        ("world", wp.int32),
    ):
        setattr(m, f"equality_constraint_{col}", _arr(te.get(col), dtype, dev))


def _upload_sites(m, ts, dev):
    m.site_count = ts.count
    m.site_key = list(ts.labels)
    m.site_body = _arr(ts.get("body"), wp.int32, dev)
    m.site_xform = _arr(ts.get("xform"), wp.transform, dev)
    m.site_world = _arr(ts.get("world"), wp.int32, dev)


def _upload_tendons(m, tt, tw, dev):
    m.tendon_count = tt.count
    m.tendon_key = list(tt.labels)
    m.tendon_type = _arr(tt.get("type"), wp.int32, dev)
    start, end = tt.get("wrap_start"), tt.get("wrap_end")
    if tt.count and (start[0] != 0 or (start[1:] != end[:-1]).any() or end[-1] != tw.count):
        raise ModelBuildError("tendon path elements are not stored tendon by tendon (internal table corruption)")
    end = end[-1] if tt.count else 0
    m.tendon_wrap_start = _arr(np.append(tt.get("wrap_start"), end), wp.int32, dev)
    vec5 = wp.types.vector(5, wp.float32)
    for col, dtype in (
        ("stiffness", wp.float32),
        ("springlength", wp.vec2),
        ("damping", wp.float32),
        ("frictionloss", wp.float32),
        ("limited", wp.bool),
        ("range", wp.vec2),
        ("margin", wp.float32),
        ("solref_limit", wp.vec2),
        ("solimp_limit", vec5),
        ("solref_friction", wp.vec2),
        ("solimp_friction", vec5),
        ("armature", wp.float32),
        ("world", wp.int32),
    ):
        setattr(m, f"tendon_{col}", _arr(tt.get(col), dtype, dev))
    m.tendon_wrap_count = tw.count
    m.tendon_wrap_joint = _arr(tw.get("joint"), wp.int32, dev)
    m.tendon_wrap_site = _arr(tw.get("site"), wp.int32, dev)
    m.tendon_wrap_coef = _arr(tw.get("coef"), wp.float32, dev)


def _world_starts(m, t, world_count, dev):
    for kind, name in (
        ("particle", "particle"),
        ("body", "body"),
        ("shape", "shape"),
        ("joint", "joint"),
        ("articulation", "articulation"),
        ("equality", "equality_constraint"),
        ("site", "site"),
        ("tendon", "tendon"),
    ):
        setattr(m, f"{name}_world_start", _arr(world_start(t[kind].get("world"), world_count), wp.int32, dev))
    jw = t["joint"].get("world")
    jt = t["joint"].get("type")
    lin, ang = t["joint"].get("lin_count"), t["joint"].get("ang_count")
    dofs = (lin + ang).astype(np.int64)
    coords, cons = _coords_and_constraints(jt, dofs)
    for name, per_joint in (("joint_dof", dofs), ("joint_coord", coords), ("joint_constraint", cons)):
        setattr(m, f"{name}_world_start", _arr(_weighted_start(jw, per_joint, world_count), wp.int32, dev))
    m.joint_constraint_count = int(cons.sum())


def _coords_and_constraints(jtype, dofs):
    """(coordinates, constrained directions) of each joint, (joint_count,) int64 each: a ball has 4
    coordinates, free and distance joints 7, the others one per DOF; constraints as
    :func:`.types.joint_constraint_count`."""
    jtype = np.asarray(jtype, dtype=np.int64)
    known = np.isin(jtype, [int(t) for t in JointType])
    if not known.all():
        JointType(int(jtype[np.argmin(known)]))  # raises ValueError naming the unknown type
    coords = dofs.copy()
    coords[jtype == JointType.BALL] = 4
    coords[(jtype == JointType.FREE) | (jtype == JointType.DISTANCE)] = 7
    table = np.array([joint_constraint_count(t, 0) for t in sorted(JointType)], dtype=np.int64)
    cons = np.where(jtype == JointType.D6, 6 - dofs, table[np.where(known, jtype, 0)])
    return coords, cons


def _weighted_start(entity_world, weight, world_count):
    """world_start over a per-joint dimension (DOFs, coordinates, constraints)."""
    starts = world_start(entity_world, world_count)
    csum = np.concatenate([[0], np.cumsum(weight)])
    return csum[starts].astype(np.int32)


def _upload_custom(m, builder, dev):
    counts = {k: tb.count for k, tb in builder.tables.items()}
    counts["world"] = max(builder.world_count, 1)
    for key, (attr, arr) in builder._custom.build_arrays(counts, dev).items():
        warr = wp.array(arr, dtype=attr.dtype, device=dev)
        m._attribute_frequency[key] = attr.frequency
        if attr.assignment == "model":
            attach(m, attr, warr)
        elif attr.assignment == "state":
            m._state_attrs.append((attr, warr))
        elif attr.assignment == "control":
            m._control_attrs.append((attr, warr))
        else:  # contact: kept on the model until a contact container exists
            attach(m, attr, warr)


class _PairSet:
    """Read-only set view of the (k, 2) filter pair array, built on first use (large for many worlds)."""

    def __init__(self, pairs):
        self._pairs = pairs
        self._set = None

    def _get(self):
        if self._set is None:
            self._set = {(int(a), int(b)) for a, b in self._pairs}
        return self._set

    def __contains__(self, pair):
        return tuple(pair) in self._get()

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._pairs)

    def __eq__(self, other):
        return self._get() == set(other)
