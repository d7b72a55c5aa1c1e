"""MuJoCo's inverse weights (body_invweight0, dof_invweight0) and Newton's convergence scale, computed once
on the host at the authored pose (MuJoCo's qpos0: :func:`reference_coordinates`), not at the state the model
starts in (a keyframe's, an env's home pose). They scale the constraint rows' regularization (:mod:`.assemble`).

Batched over the articulations of each DOF count (thousands of worlds cost one batched inverse and a few
batched products, not a Python loop per body), and computed once for the articulations equal to the first of
their batch (same mass matrix, motion subspaces, body levers and DOF chains: replicated worlds at their initial
state), whose results are copied."""

from __future__ import annotations

import numpy as np

from ...sim.hostmath import transform_point
from ...sim.types import JointType

__all__ = ["reference_coordinates", "set_invweights"]


def reference_coordinates(model) -> np.ndarray:
    """(joint_coord_count,) float32 coordinates of the authored pose, MuJoCo's qpos0: each hinge, slide and D6
    coordinate at its ``joint_ref`` (MuJoCo's ref; 0 unless an MJCF set it), each ball joint at the identity; a
    free or distance joint keeps its initial pose (the weights do not depend on where the root stands or how
    it is turned)."""
    q = model.joint_q.numpy().copy()
    if model.joint_count == 0:
        return q
    kinds = model.joint_type.numpy()
    q_start = model.joint_q_start.numpy().astype(np.int64)
    qd_start = model.joint_qd_start.numpy().astype(np.int64)
    counts = np.diff(np.append(qd_start, model.joint_dof_count))
    # Scalar joints: one coordinate per DOF, in order (every such joint at once).
    scalar = np.isin(kinds, (JointType.PRISMATIC, JointType.REVOLUTE, JointType.D6))
    n = counts[scalar]
    step = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    q[np.repeat(q_start[scalar], n) + step] = model.joint_ref.numpy()[np.repeat(qd_start[scalar], n) + step]
    ball = q_start[kinds == JointType.BALL]
    q[ball[:, None] + np.arange(4)] = (0.0, 0.0, 0.0, 1.0)
    return q


def set_invweights(model, layout, data, rows):
    """MuJoCo's body_invweight0 / dof_invweight0: mean diagonal of J M^-1 J^T for each body's COM
    translation and rotation, and diag(M^-1), at the state the smooth pipeline last evaluated (the
    authored pose, with armature), into ``rows.body_invweight``, ``rows.dof_invweight`` and
    ``rows.world_scale``."""
    mass = data.mass_matrix.numpy()
    cdof = data.cdof.numpy().reshape(-1, 6)
    ref = data.art_ref.numpy().reshape(-1, 3)
    armature = model.joint_armature.numpy()
    body_q = data.body_q.numpy().reshape(-1, 7)
    com_local = model.body_com.numpy().reshape(-1, 3)
    body_w = np.zeros((max(model.body_count, 1), 2))
    dof_w = np.zeros(max(model.joint_dof_count, 1))
    dof_m = np.zeros(max(model.joint_dof_count, 1))
    art_start = np.asarray(layout.art_dof_start, dtype=np.int64)
    counts = np.diff(art_start)
    body_art = np.asarray(layout.body_art, dtype=np.int64)
    dof_parent = np.asarray(layout.dof_parent, dtype=np.int64)
    groups = []  # (arts, their (A, n, n) M^-1) per DOF count n, the articulations computed
    copies = []  # (DOFs (C, n), the DOFs (n,) they copy) of articulations equal to the first of their batch
    for n in np.unique(counts[counts > 0]):
        n = int(n)
        arts = np.nonzero(counts == n)[0]
        idx = art_start[arts][:, None] + np.arange(n)  # (A, n) DOF indices
        blocks = _mass_blocks(mass, np.asarray(layout.art_mat_start, dtype=np.int64)[arts], n)  # (A, n * n)
        arm = armature[idx]
        dof_m[idx] = blocks[:, :: n + 1] + arm
        position = np.full(len(counts), -1)
        position[arts] = np.arange(len(arts))
        bodies = np.nonzero((body_art >= 0) & (position[np.maximum(body_art, 0)] >= 0))[0]
        bodies = bodies[np.argsort(position[body_art[bodies]], kind="stable")]  # articulation by articulation
        group = position[body_art[bodies]]  # (B,) index into arts, ascending
        com = transform_point(body_q[bodies], com_local[bodies])
        lever = com - ref[arts[group]]
        # which DOFs move each body: its chain from its last DOF up through the DOF parents
        chain = np.zeros((len(bodies), n), dtype=bool)
        k = np.asarray(layout.body_dof_last, dtype=np.int64)[bodies]
        first = art_start[arts[group]]
        while (k >= 0).any():
            live = np.nonzero(k >= 0)[0]
            chain[live, k[live] - first[live]] = True
            k[live] = dof_parent[k[live]]
        same = _same_as_first([blocks, arm, cdof[idx]], group, [lever, com - body_q[bodies, :3], chain])
        calc = np.nonzero(~same)[0]
        mats = blocks[calc].reshape(-1, n, n) + arm[calc][:, :, None] * np.eye(n)
        minv = np.linalg.inv(mats)
        groups.append((arts[calc], minv))
        dof_w[idx[calc]] = np.diagonal(minv, axis1=1, axis2=2)
        mine = ~same[group]
        rank = np.cumsum(~same) - 1  # position of each computed articulation in calc
        if mine.any():
            trans, rot = _body_quadratics(cdof[idx[calc]], minv, rank[group[mine]], lever[mine], chain[mine])
            body_w[bodies[mine], 0] = trans
            body_w[bodies[mine], 1] = rot
        if same.any():
            starts = np.searchsorted(group, np.arange(len(arts) + 1))
            m = starts[1] - starts[0]
            body_w[bodies[starts[:-1][same][:, None] + np.arange(m)]] = body_w[bodies[np.arange(m)]]
            copies.append((idx[same], idx[0]))
    _joint_block_invweights(model, layout, groups, body_q, com_local, dof_w)
    for dofs, source in copies:
        dof_w[dofs] = dof_w[source]
    rows.body_invweight.assign(body_w.astype(np.float32))
    rows.dof_invweight.assign(dof_w.astype(np.float32))
    # Newton's convergence scale, MuJoCo's 1 / (meaninertia max(1, nv)), per world.
    world = layout.art_world[layout.dof_art] if model.joint_dof_count else np.zeros(0, np.int64)
    count = np.bincount(world, minlength=rows.world_count)[: rows.world_count]
    total = np.bincount(world, weights=dof_m[: len(world)], minlength=rows.world_count)[: rows.world_count]
    mean = np.where(count > 0, total / np.maximum(count, 1), 1.0)
    rows.world_scale.assign((1.0 / (np.maximum(mean, 1e-10) * np.maximum(count, 1))).astype(np.float32))


def _mass_blocks(mass: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """(A, n * n) dense mass-matrix blocks of the articulations whose blocks start at ``starts``: a view of
    ``mass`` where they follow one another (replicated worlds), else a gather."""
    if len(starts) and (np.diff(starts) == n * n).all() and starts[0] + len(starts) * n * n <= len(mass):
        return mass[starts[0] : starts[0] + len(starts) * n * n].reshape(len(starts), n * n)
    return mass[starts[:, None] + np.arange(n * n)]


def _same_as_first(per_art: list, group: np.ndarray, per_body: list) -> np.ndarray:
    """(A,) bool: which articulations of a batch (after the first) have the first's inputs exactly: the
    ``per_art`` arrays (A, ...) (mass matrix, armature, motion subspaces) and, body by body, the ``per_body``
    arrays (B, ...) of their bodies (``group`` (B,) ascending gives each body's articulation)."""
    count = len(per_art[0])
    same = np.ones(count, dtype=bool)
    for values in per_art:
        same &= (values.reshape(count, -1) == values[0].reshape(-1)).all(axis=1)
    starts = np.searchsorted(group, np.arange(count + 1))
    per = np.diff(starts)
    same &= per == per[0]
    maybe = np.nonzero(same)[0]
    if len(maybe) and per[0]:
        take = starts[maybe][:, None] + np.arange(per[0])  # (M, m) bodies of each
        for values in per_body:
            rows = values[take].reshape(len(maybe), -1)
            same[maybe] &= (rows == rows[0]).all(axis=1)
    same[0] = False
    return same


# Articulations per batched product of _body_quadratics: its (A, n, m, 3) temporaries stay a few MB, so thousands
# of worlds do not slow it down through memory traffic.
_QUADRATIC_CHUNK = 256


def _body_quadratics(cdof, minv, group, lever, chain):
    """trace(J^T M^-1 J) / 3 of each body's COM translation and rotation Jacobians J (n, 3), the columns
    s_top + s_bottom x lever (translation) and s_bottom (rotation) of the DOFs in its ``chain``. ``cdof``
    (A, n, 6) and ``minv`` (A, n, n) are per articulation, ``group`` (B,) ascending gives each body's. The
    bodies of one articulation share one product M^-1 [J_b1 .. J_bm] (articulations with the same body count
    are batched together)."""
    trans, rot = np.zeros(len(group)), np.zeros(len(group))
    starts = np.searchsorted(group, np.arange(len(minv) + 1))
    per = np.diff(starts)
    for m in np.unique(per[per > 0]):
        same = np.nonzero(per == m)[0]
        for first in range(0, len(same), _QUADRATIC_CHUNK):
            arts = same[first : first + _QUADRATIC_CHUNK]
            _chunk_quadratics(cdof, minv, arts, starts[arts][:, None] + np.arange(m), lever, chain, trans, rot)
    return trans, rot


def _chunk_quadratics(cdof, minv, arts, take, lever, chain, trans, rot):
    """:func:`_body_quadratics` of the articulations ``arts``, whose bodies are ``take`` (A, m)."""
    m = take.shape[1]
    s = cdof[arts][:, :, None, :]  # (A, n, 1, 6)
    w, r = s[..., 3:], lever[take][:, None, :, :]  # angular parts, levers (A, 1, m, 3)
    on = chain[take].transpose(0, 2, 1)[..., None]  # (A, n, m, 1)
    cross = np.stack(
        [
            w[..., 1] * r[..., 2] - w[..., 2] * r[..., 1],
            w[..., 2] * r[..., 0] - w[..., 0] * r[..., 2],
            w[..., 0] * r[..., 1] - w[..., 1] * r[..., 0],
        ],
        axis=-1,
    )
    for out, jac in ((trans, (s[..., :3] + cross) * on), (rot, w * on)):
        j = jac.reshape(len(arts), jac.shape[1], 3 * m)  # (A, n, 3 m): body-major columns
        out[take] = (j * (minv[arts] @ j)).sum(axis=1).reshape(len(arts), m, 3).sum(axis=2) / 3.0


def _joint_block_invweights(model, layout, groups, body_q, com_local, dof_w):
    """MuJoCo's dof_invweight0 of free and ball joints: the mean diagonal of J M^-1 J^T over each 3-DOF
    block, with a free joint's linear block taken as MuJoCo's body-origin velocity v_com - w x (R c).
    ``groups`` holds (articulations, their M^-1) per DOF count."""
    jtype = model.joint_type.numpy()
    qd_start = model.joint_qd_start.numpy().astype(np.int64)
    child = model.joint_child.numpy()
    dof_art = np.asarray(layout.dof_art, dtype=np.int64)
    art_start = np.asarray(layout.art_dof_start, dtype=np.int64)
    blocks = np.nonzero((jtype == JointType.FREE) | (jtype == JointType.BALL))[0]
    if len(blocks) == 0:
        return
    art = dof_art[qd_start[blocks]]
    three = np.arange(3)
    for arts, minv in groups:
        position = np.full(len(art_start), -1)
        position[arts] = np.arange(len(arts))
        mine = position[art] >= 0
        j, mi = blocks[mine], minv[position[art[mine]]]  # (J,), (J, n, n)
        d = qd_start[j]
        k = d - art_start[art[mine]]  # first DOF of the block inside its articulation
        rot = np.where(jtype[j] == JointType.BALL, k, k + 3)  # the rotational block
        dof_w[d[:, None] + np.where(jtype[j] == JointType.BALL, 0, 3)[:, None] + three] = (
            mi[np.arange(len(j))[:, None], rot[:, None] + three, rot[:, None] + three].sum(axis=1) / 3.0
        )[:, None]
        free = np.nonzero(jtype[j] == JointType.FREE)[0]
        if len(free) == 0:
            continue
        c = child[j[free]]
        lever = transform_point(body_q[c], com_local[c]) - body_q[c][:, :3]
        jac = np.zeros((len(free), 3, mi.shape[1]))
        rows_ = np.arange(len(free))[:, None]
        jac[rows_, three, k[free][:, None] + three] = 1.0
        skew = np.zeros((len(free), 3, 3))
        skew[:, 0, 1], skew[:, 0, 2] = -lever[:, 2], lever[:, 1]
        skew[:, 1, 0], skew[:, 1, 2] = lever[:, 2], -lever[:, 0]
        skew[:, 2, 0], skew[:, 2, 1] = -lever[:, 1], lever[:, 0]
        jac[rows_[:, :, None], three[:, None], (k[free] + 3)[:, None, None] + three] = skew
        lin = (jac @ mi[free] * jac).sum(axis=(1, 2)) / 3.0
        dof_w[d[free][:, None] + three] = lin[:, None]
