"""Tendons: MuJoCo's mj_tendon (length, Jacobian, velocity) and the tendon spring-dampers of mj_passive.

A fixed tendon's length is sum_i coef_i q_i over single-DOF joints, its Jacobian constant. A spatial tendon
runs through sites: its length is the sum of the distances between consecutive sites, and each segment
p0 -> p1 whose sites lie on different bodies adds (J_p1 - J_p0)^T u to its Jacobian (u the unit segment
direction, J_p the translation Jacobian of site point p on its body), as mj_tendon with mj_jacDifPair.

Each tendon's Jacobian is stored sparsely with a static pattern found once on the host
(:func:`build_tendon_layout`, MuJoCo's ten_J_rowadr / rownnz / colind): a fixed tendon's joint DOFs, a spatial
tendon's DOFs that move any of its sites (the DOF chains of the site bodies). Entries are in tendon order,
DOFs ascending within a tendon; ``dof_ten_entry`` lists them by DOF, so per-DOF passes gather the tendon terms
of their DOF (no atomics: bitwise the same for any lane count).

Per substep (:func:`tendon_kinematics`, lanes over the block's tendons, after the motion subspaces): ten_J,
ten_length, ten_velocity = J qd, the passive force along the tendon f = -k x - b v (x: the length outside
the spring's dead band [springlength[0], springlength[1]]) and ``ten_implicit`` = dt b, the weight of the
tendon's J^T J in the velocity-implicit matrix M + dt D of implicitfast (MuJoCo's mjd_passive_vel adds
-b J^T J to qDeriv on M's sparsity: within one tree, ancestor pairs; :func:`tendon_implicit_rows`).
Actuators on a tendon add their velocity feedback to ``ten_implicit`` (:mod:`.passive`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ...errors import ModelBuildError
from ...sim.stage_args import fill
from ...sim.types import TendonType
from ..spatial import point_jacobian
from ..tree import DeclaredFields

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = [
    "TendonLayout",
    "build_tendon_layout",
    "TendonArgs",
    "tendon_args",
    "tendon_kinematics",
    "compute_tendons",
    "tendon_entry",
    "tendon_dof_force",
    "tendon_implicit_rows",
    "tendon_arts_implicit",
    "tendon_armature_pair",
    "set_tendon_constants",
    "dense_jacobian",
]

_FIXED = wp.constant(int(TendonType.FIXED))


@dataclass(eq=False)
class TendonLayout(DeclaredFields):
    """Host tables of the tendons' sparse Jacobians (see the module docstring), int64 unless noted.

    Attributes:
        count: tendons.
        entry_count: Jacobian entries (non-zeros) over all tendons.
        jac_start: (count + 1,) first entry of each tendon, then the end.
        jac_dof: (entry_count,) DOF of each entry (ascending within a tendon).
        jac_tendon: (entry_count,) tendon of each entry.
        fixed_jac: (entry_count,) float64 [m/rad or -]: a fixed tendon's constant entry (its coefficients summed
            per DOF), 0 for spatial tendons.
        dof_entry_start: (joint_dof_count + 1,) first position of each DOF in ``dof_entry``.
        dof_entry: (entry_count,) entries, by DOF then tendon.
        tendon_art: (count, 2) the articulations the tendon moves (-1: none), at most two.
        wrap_coord: (tendon_wrap_count,) coordinate of a fixed tendon's joint, -1 for a site.
        initial_springlength: (count,) bool, springlength (-1, -1): the length at the initial state.
    """

    count: int = 0
    entry_count: int = 0
    jac_start: np.ndarray = None
    jac_dof: np.ndarray = None
    jac_tendon: np.ndarray = None
    fixed_jac: np.ndarray = None
    dof_entry_start: np.ndarray = None
    dof_entry: np.ndarray = None
    tendon_art: np.ndarray = None
    wrap_coord: np.ndarray = None
    initial_springlength: np.ndarray = None

    def upload(self, model, device) -> dict:
        """Device copies (at least one element each) keyed by the stage structs' field names, with the
        model's spring lengths (``ten_springlength``, resolved by :func:`set_tendon_constants`) and zero
        inverse weights (``ten_invweight``, set there too)."""

        def arr(x, dtype):
            x = np.ascontiguousarray(x)
            if len(x) == 0:
                x = np.zeros((1,) + x.shape[1:], dtype=x.dtype)
            return wp.array(x, dtype=dtype, device=device)

        i32 = np.int32
        spring = model.tendon_springlength.numpy() if self.count else np.zeros((0, 2), np.float32)
        return {
            "ten_jac_start": arr(self.jac_start.astype(i32), wp.int32),
            "ten_jac_dof": arr(self.jac_dof.astype(i32), wp.int32),
            "ten_jac_tendon": arr(self.jac_tendon.astype(i32), wp.int32),
            "ten_fixed_jac": arr(self.fixed_jac.astype(np.float32), wp.float32),
            "dof_ten_start": arr(self.dof_entry_start.astype(i32), wp.int32),
            "dof_ten_entry": arr(self.dof_entry.astype(i32), wp.int32),
            "ten_wrap_coord": arr(self.wrap_coord.astype(i32), wp.int32),
            "ten_springlength": arr(spring.astype(np.float32), wp.vec2),
            "ten_invweight": arr(np.zeros(self.count, np.float32), wp.float32),
        }


def _chains(bodies, body_dof_last, dof_parent):
    """(owner, dof) int64 pairs: for each body of ``bodies`` (index into it, -1: none) every DOF on its path
    to the root, walked for all bodies at once."""
    k = np.where(bodies >= 0, body_dof_last[np.maximum(bodies, 0)], -1)
    owner, dof = [], []
    idx = np.arange(len(bodies))
    while (k >= 0).any():
        live = k >= 0
        owner.append(idx[live])
        dof.append(k[live])
        k = np.where(live, dof_parent[np.maximum(k, 0)], -1)
    if not owner:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(owner), np.concatenate(dof)


def build_tendon_layout(model, layout) -> TendonLayout:
    """The sparse Jacobian pattern of every tendon of ``model`` (``layout``: its :class:`..tree.TreeLayout`),
    vectorised over tendons. Raises ModelBuildError naming a tendon that moves a DOF outside articulations or
    more than two articulations (a tendon's constraint rows hold two articulation blocks)."""
    nt, nd = model.tendon_count, model.joint_dof_count
    out = TendonLayout(count=nt)
    wrap_start = model.tendon_wrap_start.numpy().astype(np.int64) if nt else np.zeros(1, np.int64)
    nw = int(wrap_start[-1])
    wrap_tendon = np.repeat(np.arange(nt), np.diff(wrap_start))
    joint = model.tendon_wrap_joint.numpy().astype(np.int64)[:nw] if nw else np.zeros(0, np.int64)
    site = model.tendon_wrap_site.numpy().astype(np.int64)[:nw] if nw else np.zeros(0, np.int64)
    coef = model.tendon_wrap_coef.numpy().astype(np.float64)[:nw] if nw else np.zeros(0)
    q_start = model.joint_q_start.numpy().astype(np.int64)
    qd_start = model.joint_qd_start.numpy().astype(np.int64)
    fixed = joint >= 0
    out.wrap_coord = np.full(nw, -1, np.int64)
    out.wrap_coord[fixed] = q_start[joint[fixed]]
    # Candidate entries (tendon, DOF, value): fixed tendons' joints, spatial tendons' site-body chains.
    ten = [wrap_tendon[fixed]]
    dof = [qd_start[joint[fixed]] if fixed.any() else np.zeros(0, np.int64)]
    val = [coef[fixed]]
    spatial = np.nonzero(~fixed)[0]
    if len(spatial):
        site_body = model.site_body.numpy().astype(np.int64)
        owner, chain = _chains(
            site_body[site[spatial]], np.asarray(layout.body_dof_last), np.asarray(layout.dof_parent)
        )
        ten.append(wrap_tendon[spatial][owner])
        dof.append(chain)
        val.append(np.zeros(len(chain)))
    ten, dof, val = np.concatenate(ten), np.concatenate(dof), np.concatenate(val)
    key = ten * max(nd, 1) + dof
    uniq, inverse = np.unique(key, return_inverse=True)
    out.jac_tendon = uniq // max(nd, 1)
    out.jac_dof = uniq % max(nd, 1)
    out.fixed_jac = np.bincount(inverse, weights=val, minlength=len(uniq)) if len(uniq) else np.zeros(0)
    out.entry_count = len(uniq)
    out.jac_start = np.concatenate([[0], np.cumsum(np.bincount(out.jac_tendon, minlength=nt))]).astype(np.int64)
    order = np.lexsort((out.jac_tendon, out.jac_dof))
    out.dof_entry = order.astype(np.int64)
    out.dof_entry_start = np.concatenate([[0], np.cumsum(np.bincount(out.jac_dof, minlength=nd))]).astype(np.int64)
    out.tendon_art = _tendon_arts(model, layout, out)
    spring = model.tendon_springlength.numpy() if nt else np.zeros((0, 2))
    out.initial_springlength = (spring == -1.0).all(axis=1)
    if nt:
        spatial_armature = (model.tendon_type.numpy() != TendonType.FIXED) & (model.tendon_armature.numpy() != 0.0)
        if spatial_armature.any():
            t = int(np.argmax(spatial_armature))
            raise ModelBuildError(
                f"tendon {_name(model, t)}: armature on a spatial tendon is not supported by SolverGeneralized "
                "(it needs MuJoCo's tendon bias force, d/dt J); use armature 0 or a fixed tendon"
            )
    return out


def _tendon_arts(model, layout, out) -> np.ndarray:
    """(tendon_count, 2) the articulations each tendon's DOFs belong to (-1: none); raises where there are
    more than two or a DOF belongs to none."""
    nt = out.count
    arts = np.full((nt, 2), -1, np.int64)
    if out.entry_count == 0:
        return arts
    entry_art = np.asarray(layout.dof_art, dtype=np.int64)[out.jac_dof]
    if (entry_art < 0).any():
        t = int(out.jac_tendon[np.argmax(entry_art < 0)])
        raise ModelBuildError(f"tendon {_name(model, t)}: it moves a joint that belongs to no articulation")
    pairs = np.unique(np.stack([out.jac_tendon, entry_art], axis=1), axis=0)
    per = np.bincount(pairs[:, 0], minlength=nt)
    if (per > 2).any():
        t = int(np.argmax(per > 2))
        raise ModelBuildError(
            f"tendon {_name(model, t)} moves {int(per[t])} articulations; SolverGeneralized couples at most two "
            "with one tendon (its constraint rows hold two articulation blocks)"
        )
    first = np.concatenate([[0], np.cumsum(per)])[:-1]
    slot = np.arange(len(pairs)) - first[pairs[:, 0]]
    arts[pairs[:, 0], slot] = pairs[:, 1]
    return arts


def _name(model, t: int) -> str:
    return model.tendon_key[t] or f"#{t}"


@wp.func
def tendon_entry(jac_dof: wp.array(dtype=int), e0: int, e1: int, dof: int):
    """Index of DOF ``dof``'s entry among a tendon's Jacobian entries [e0, e1) (DOFs ascending), -1 if none."""
    lo = e0
    hi = e1
    while lo < hi:
        mid = (lo + hi) / 2
        if jac_dof[mid] < dof:
            lo = mid + 1
        else:
            hi = mid
    if lo < e1:
        if jac_dof[lo] == dof:
            return lo
    return -1


@wp.struct
class TendonArgs:
    """Arrays and scalars of one tendon's kinematics and passive force."""

    # Model:
    tendon_type: wp.array(dtype=int)  # (tendon_count,) TendonType
    tendon_wrap_start: wp.array(dtype=int)  # (tendon_count + 1,) first path element of each tendon
    tendon_wrap_site: wp.array(dtype=int)  # (tendon_wrap_count,) site of a spatial tendon's element
    tendon_wrap_coef: wp.array(dtype=float)  # (tendon_wrap_count,) coefficient of a fixed tendon's joint
    tendon_stiffness: wp.array(dtype=float)  # (tendon_count,) [N/m]
    tendon_damping: wp.array(dtype=float)  # (tendon_count,) [N s/m]
    ten_springlength: wp.array(dtype=wp.vec2)  # (tendon_count,) spring dead band, resolved [m]
    ten_wrap_coord: wp.array(dtype=int)  # (tendon_wrap_count,) coordinate of a fixed tendon's joint
    ten_jac_start: wp.array(dtype=int)  # (tendon_count + 1,) first Jacobian entry of each tendon
    ten_jac_dof: wp.array(dtype=int)  # (entries,) DOF of each entry
    ten_fixed_jac: wp.array(dtype=float)  # (entries,) constant entries of fixed tendons
    site_body: wp.array(dtype=int)  # (site_count,) body of each site, -1: the world
    site_xform: wp.array(dtype=wp.transform)  # (site_count,) site frame in its body frame [m]
    body_art: wp.array(dtype=int)  # (body_count,) tree of each body, -1: none
    body_dof_last: wp.array(dtype=int)  # (body_count,) last DOF moving each body, -1: static
    dof_parent: wp.array(dtype=int)  # (joint_dof_count,) previous DOF towards the root
    dt: float  # [s] substep
    # Data in:
    body_q: wp.array(dtype=wp.transform)  # (body_count,) body frames [m]
    art_ref: wp.array(dtype=wp.vec3)  # (articulation_count,) reference point r of each tree [m]
    cdof: wp.array(dtype=wp.spatial_vector)  # (joint_dof_count,) motion subspaces about r
    joint_q: wp.array(dtype=float)  # (joint_coord_count,) [m or rad]
    joint_qd: wp.array(dtype=float)  # (joint_dof_count,) [m/s or rad/s]
    # Data out:
    ten_length_out: wp.array(dtype=float)  # (tendon_count,) [m]
    ten_J_out: wp.array(dtype=float)  # (entries,) d length / d qd [m/rad or -]
    ten_velocity_out: wp.array(dtype=float)  # (tendon_count,) [m/s]
    ten_force_out: wp.array(dtype=float)  # (tendon_count,) passive spring-damper force along the tendon [N]
    ten_implicit_out: wp.array(dtype=float)  # (tendon_count,) dt damping, the J^T J weight in M + dt D [kg]


@wp.func
def _site_point(s: int, args: TendonArgs):
    """World position of site s [m]."""
    p = wp.transform_get_translation(args.site_xform[s])
    b = args.site_body[s]
    if b >= 0:
        p = wp.transform_point(args.body_q[b], p)
    return p


@wp.func
def _add_point_jacobian(b: int, p: wp.vec3, u: wp.vec3, sign: float, e0: int, e1: int, args: TendonArgs):
    """Add sign u . J_p (J_p: translation Jacobian of point p on body b) to a tendon's entries [e0, e1)."""
    if b < 0:
        return
    a = args.body_art[b]
    if a < 0:
        return
    lever = p - args.art_ref[a]
    k = args.body_dof_last[b]
    while k >= 0:
        e = tendon_entry(args.ten_jac_dof, e0, e1, k)
        args.ten_J_out[e] = args.ten_J_out[e] + sign * point_jacobian(args.cdof[k], lever, u)
        k = args.dof_parent[k]


@wp.func
def _spatial_length(t: int, e0: int, e1: int, args: TendonArgs):
    """Length of spatial tendon t, accumulating its Jacobian into its zeroed entries [e0, e1)."""
    length = float(0.0)
    w1 = args.tendon_wrap_start[t + 1]
    w = int(args.tendon_wrap_start[t])
    w_end = w1 - 1
    while w < w_end:
        s0 = args.tendon_wrap_site[w]
        s1 = args.tendon_wrap_site[w + 1]
        p0 = _site_point(s0, args)
        p1 = _site_point(s1, args)
        seg = p1 - p0
        dist = wp.length(seg)
        length += dist
        b0 = args.site_body[s0]
        b1 = args.site_body[s1]
        if b0 != b1:
            u = wp.vec3(1.0, 0.0, 0.0)  # mju_normalize3 of a vanishing segment
            if dist >= 1.0e-15:
                u = seg / dist
            _add_point_jacobian(b1, p1, u, 1.0, e0, e1, args)
            _add_point_jacobian(b0, p0, u, -1.0, e0, e1, args)
        w += 1
    return length


@wp.func(inline=True)  # takes its stage struct by value: inlined, it is not copied
def tendon_kinematics(first: int, end: int, step: int, args: TendonArgs):
    """Length, Jacobian, velocity and passive force of tendons first, first + step, ... below end."""
    t = int(first)
    while t < end:
        e0 = args.ten_jac_start[t]
        e1 = args.ten_jac_start[t + 1]
        length = float(0.0)
        if args.tendon_type[t] == _FIXED:
            w = int(args.tendon_wrap_start[t])
            w_end = args.tendon_wrap_start[t + 1]
            while w < w_end:
                length += args.tendon_wrap_coef[w] * args.joint_q[args.ten_wrap_coord[w]]
                w += 1
            e = int(e0)
            while e < e1:
                args.ten_J_out[e] = args.ten_fixed_jac[e]
                e += 1
        else:
            e = int(e0)
            while e < e1:
                args.ten_J_out[e] = 0.0
                e += 1
            length = _spatial_length(t, e0, e1, args)
        vel = float(0.0)
        e = int(e0)
        while e < e1:
            vel += args.ten_J_out[e] * args.joint_qd[args.ten_jac_dof[e]]
            e += 1
        # Spring outside the dead band [lower, upper], damper on the velocity (MuJoCo mj_springdamper).
        band = args.ten_springlength[t]
        x = float(0.0)
        if length > band[1]:
            x = length - band[1]
        elif length < band[0]:
            x = length - band[0]
        c = args.tendon_damping[t]
        args.ten_length_out[t] = length
        args.ten_velocity_out[t] = vel
        args.ten_force_out[t] = -args.tendon_stiffness[t] * x - c * vel
        args.ten_implicit_out[t] = args.dt * c
        t += step


@wp.kernel
def _tendon_kernel(first: int, args: TendonArgs):
    tendon_kinematics(wp.tid() + first, wp.tid() + first + 1, 1, args)


def _model_column(model, name: str, dtype):
    """Model array ``name``, or one zero element where the model has none (a Warp struct's arrays are never
    empty here; a model without tendons or sites never reads them)."""
    a = getattr(model, name)
    return a if a.shape[0] else wp.zeros(1, dtype=dtype, device=model.device)


def tendon_args(model, tree: dict, tendons: dict, data, joint_q, joint_qd, dt) -> TendonArgs:
    """The TendonArgs of :func:`compute_tendons` (``tendons``: :meth:`TendonLayout.upload`)."""
    columns = {
        name: _model_column(model, name, dtype)
        for name, dtype in (
            ("tendon_type", wp.int32),
            ("tendon_wrap_site", wp.int32),
            ("tendon_wrap_coef", wp.float32),
            ("tendon_stiffness", wp.float32),
            ("tendon_damping", wp.float32),
            ("site_body", wp.int32),
            ("site_xform", wp.transform),
        )
    }
    return fill(
        TendonArgs,
        tendons,
        columns,
        tendon_wrap_start=model.tendon_wrap_start,
        body_art=tree["body_art"],
        body_dof_last=tree["body_dof_last"],
        dof_parent=tree["dof_parent"],
        dt=float(dt),
        body_q=data.body_q,
        art_ref=data.art_ref,
        cdof=data.cdof,
        joint_q=joint_q,
        joint_qd=joint_qd,
        ten_length_out=data.ten_length,
        ten_J_out=data.ten_J,
        ten_velocity_out=data.ten_velocity,
        ten_force_out=data.ten_force,
        ten_implicit_out=data.ten_implicit,
    )


def compute_tendons(model, tree, tendons, data, joint_q, joint_qd, dt, span):
    """Tendon lengths, Jacobians, velocities and passive forces of the tendons in ``span`` = (first, count)
    (needs forward kinematics into ``data.body_q`` and the motion subspaces)."""
    if span[1] == 0:
        return
    args = tendon_args(model, tree, tendons, data, joint_q, joint_qd, dt)
    wp.launch(_tendon_kernel, dim=span[1], device=model.device, inputs=[span[0], args])


@wp.func
def tendon_dof_force(
    d: int,
    dof_ten_start: wp.array(dtype=int),
    dof_ten_entry: wp.array(dtype=int),
    ten_jac_tendon: wp.array(dtype=int),
    ten_J: wp.array(dtype=float),
    ten_force: wp.array(dtype=float),
    f: float,
):
    """f plus the tendons' passive forces on DOF d, sum J_td f_t (tendons without force leave f as is)."""
    k = int(dof_ten_start[d])
    k_end = dof_ten_start[d + 1]
    while k < k_end:
        e = dof_ten_entry[k]
        ft = ten_force[ten_jac_tendon[e]]
        if ft != 0.0:
            f += ten_J[e] * ft
        k += 1
    return f


@wp.func
def tendon_armature_on(
    i: int,
    dof_ten_start: wp.array(dtype=int),
    dof_ten_entry: wp.array(dtype=int),
    ten_jac_tendon: wp.array(dtype=int),
    tendon_armature: wp.array(dtype=float),
):
    """Whether a tendon with armature runs over DOF i (else every :func:`tendon_armature_pair` of row i is 0:
    a row's walk over its ancestors need not ask)."""
    on = bool(False)
    kk = int(dof_ten_start[i])
    kk_end = dof_ten_start[i + 1]
    while kk < kk_end:
        if tendon_armature[ten_jac_tendon[dof_ten_entry[kk]]] != 0.0:
            on = True
        kk += 1
    return on


@wp.func
def tendon_armature_pair(
    i: int,
    k: int,
    dof_ten_start: wp.array(dtype=int),
    dof_ten_entry: wp.array(dtype=int),
    ten_jac_tendon: wp.array(dtype=int),
    ten_jac_start: wp.array(dtype=int),
    ten_jac_dof: wp.array(dtype=int),
    ten_fixed_jac: wp.array(dtype=float),
    tendon_armature: wp.array(dtype=float),
):
    """sum_t armature_t J_t[i] J_t[k] over the tendons on DOF i, MuJoCo's mj_tendonArmature entry (i, k) of M
    (fixed tendons only, whose J is constant: :func:`build_tendon_layout` refuses spatial armature)."""
    out = wp.float64(0.0)
    kk = int(dof_ten_start[i])
    kk_end = dof_ten_start[i + 1]
    while kk < kk_end:
        e = dof_ten_entry[kk]
        t = ten_jac_tendon[e]
        a = tendon_armature[t]
        if a != 0.0:
            ek = tendon_entry(ten_jac_dof, ten_jac_start[t], ten_jac_start[t + 1], k)
            if ek >= 0:
                out += wp.float64(a) * wp.float64(ten_fixed_jac[e]) * wp.float64(ten_fixed_jac[ek])
        kk += 1
    return out


@wp.func
def tendon_arts_implicit(
    d0: int,
    d1: int,
    dof_ten_start: wp.array(dtype=int),
    dof_ten_entry: wp.array(dtype=int),
    ten_jac_tendon: wp.array(dtype=int),
    ten_implicit: wp.array(dtype=float),
):
    """1 where a tendon with a velocity-implicit term moves one of the DOFs [d0, d1), else 0."""
    on = int(0)
    k = int(dof_ten_start[d0])
    k_end = dof_ten_start[d1]
    while k < k_end:
        if ten_implicit[ten_jac_tendon[dof_ten_entry[k]]] != 0.0:
            on = 1
        k += 1
    return on


@wp.func
def tendon_implicit_rows(
    dst: wp.array(dtype=wp.float64),
    off: int,
    n: int,
    d0: int,
    dof_parent: wp.array(dtype=int),
    dof_ten_start: wp.array(dtype=int),
    dof_ten_entry: wp.array(dtype=int),
    ten_jac_tendon: wp.array(dtype=int),
    ten_jac_start: wp.array(dtype=int),
    ten_jac_dof: wp.array(dtype=int),
    ten_J: wp.array(dtype=float),
    ten_implicit: wp.array(dtype=float),
    lane: int,
    lanes: int,
):
    """Add sum_t ten_implicit[t] J_t^T J_t to the ancestor entries and diagonal of each row of one tree's
    n x n block at ``off`` (the entries :func:`..spatial.ltl_factor` reads), rows strided over ``lanes``
    like :func:`.dynamics._copy_ancestors` (each lane adds to the rows it copied)."""
    k = int(lane)
    while k < n:
        i = d0 + k
        row = off + k * n - d0
        kk = int(dof_ten_start[i])
        kk_end = dof_ten_start[i + 1]
        while kk < kk_end:
            e = dof_ten_entry[kk]
            t = ten_jac_tendon[e]
            c = ten_implicit[t]
            if c != 0.0:
                ci = wp.float64(c) * wp.float64(ten_J[e])
                e0 = ten_jac_start[t]
                e1 = ten_jac_start[t + 1]
                j = i
                while j >= 0:
                    ej = tendon_entry(ten_jac_dof, e0, e1, j)
                    if ej >= 0:
                        dst[row + j] = dst[row + j] + ci * wp.float64(ten_J[ej])
                    j = dof_parent[j]
            kk += 1
        k += lanes


def set_tendon_constants(model, layout, tendons: TendonLayout, tables: dict, data):
    """MuJoCo's compile-time tendon constants, from :func:`compute_tendons` at the authored pose (qpos0)
    (run it, the mass matrix and the subspaces first): the spring length of tendons with springlength
    (-1, -1) (their length at qpos0) and tendon_invweight0 = J M^-1 J^T (M with armature), the scale of
    their constraint rows' regularizer. Host work, batched over the tendon sides of each tree size."""
    if tendons.count == 0:
        return
    length = data.ten_length.numpy()[: tendons.count]
    spring = model.tendon_springlength.numpy().astype(np.float32)
    spring[tendons.initial_springlength] = length[tendons.initial_springlength, None]
    tables["ten_springlength"].assign(spring)
    tables["ten_invweight"].assign(_invweights(model, layout, tendons, data).astype(np.float32))


def _invweights(model, layout, tendons: TendonLayout, data) -> np.ndarray:
    """J M^-1 J^T of every tendon (M: each tree's block with armature; the trees of a tendon add)."""
    jac = data.ten_J.numpy()[: tendons.entry_count].astype(np.float64)
    mass = data.mass_matrix.numpy()
    armature = model.joint_armature.numpy().astype(np.float64)
    art_start = np.asarray(layout.art_dof_start, dtype=np.int64)
    mat_start = np.asarray(layout.art_mat_start, dtype=np.int64)
    entry_art = np.asarray(layout.dof_art, dtype=np.int64)[tendons.jac_dof]
    out = np.zeros(tendons.count)
    trees = max(model.articulation_count, 1)
    entry_key = tendons.jac_tendon * trees + entry_art
    side_key = np.unique(entry_key)  # one side per (tendon, tree)
    entry_side = np.searchsorted(side_key, entry_key)
    side_tendon, side_art = side_key // trees, side_key % trees
    sizes = art_start[side_art + 1] - art_start[side_art]
    for n in np.unique(sizes):
        n = int(n)
        group = np.nonzero(sizes == n)[0]
        arts = side_art[group]
        mats = mass[mat_start[arts][:, None] + np.arange(n * n)].reshape(-1, n, n)
        mats = mats + armature[art_start[arts][:, None] + np.arange(n)][:, :, None] * np.eye(n)
        pos = np.full(len(side_key), -1, np.int64)
        pos[group] = np.arange(len(group))
        take = pos[entry_side] >= 0
        vec = np.zeros((len(group), n))
        vec[pos[entry_side[take]], tendons.jac_dof[take] - art_start[entry_art[take]]] = jac[take]
        w = np.einsum("gi,gi->g", vec, np.linalg.solve(mats, vec[:, :, None])[..., 0])
        np.add.at(out, side_tendon[group], w)
    return out


def dense_jacobian(tendons: TendonLayout, ten_J: np.ndarray, dof_count: int) -> np.ndarray:
    """(tendon_count, dof_count) dense tendon Jacobian from the sparse entries ``ten_J`` (MuJoCo's ten_J)."""
    out = np.zeros((tendons.count, dof_count))
    out[tendons.jac_tendon, tendons.jac_dof] = np.asarray(ten_J)[: tendons.entry_count]
    return out
