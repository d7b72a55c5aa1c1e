"""Projected Gauss-Seidel on MuJoCo's constraint dual, one thread per world, and contact outputs.

For rows i of a world, the forces f minimise 1/2 f^T (A + R) f + f^T (a0 - a_ref) subject to the row
bounds (contacts f >= 0 per pyramid edge, limits f >= 0, joint friction |f| <= F, equalities free;
elliptic cones project (f_t1, f_t2) onto the disc of radius mu f_n), with A = J M^-1 J^T
(MuJoCo computation: "Constraint model" and "PGS solver"). The solver works matrix-free: it keeps
qacc_constraint = M^-1 J^T f per DOF, so a row update costs O(DOFs of its two articulations).
Forces persist per row between substeps as warm starts.
"""

from __future__ import annotations

import warp as wp

from .constraint import ROW_CONTACT

__all__ = ["solve"]

_CONTACT = wp.constant(ROW_CONTACT)


@wp.kernel
def _zero_kernel(values: wp.array(dtype=float)):
    values[wp.tid()] = 0.0


@wp.func
def _row_dot(i: int, width: int, a: wp.vec2i, art_dof_start: wp.array(dtype=int), jac: wp.array(dtype=float),
             x: wp.array(dtype=float)):
    s = float(0.0)
    base = i * 2 * width
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = art_dof_start[ai]
            for k in range(art_dof_start[ai + 1] - d0):
                s += jac[base + side * width + k] * x[d0 + k]
    return s


@wp.func
def _row_axpy(i: int, width: int, a: wp.vec2i, art_dof_start: wp.array(dtype=int),
              minv_jac: wp.array(dtype=float), scale: float, x: wp.array(dtype=float)):
    base = i * 2 * width
    for side in range(2):
        ai = a[side]
        if ai >= 0:
            d0 = art_dof_start[ai]
            for k in range(art_dof_start[ai + 1] - d0):
                x[d0 + k] = x[d0 + k] + scale * minv_jac[base + side * width + k]


@wp.func
def _row_update(i: int, width: int, art: wp.array(dtype=wp.vec2i), art_dof_start: wp.array(dtype=int),
                jac: wp.array(dtype=float), a0: wp.array(dtype=float), aref: wp.array(dtype=float),
                reg: wp.array(dtype=float), inv_diag: wp.array(dtype=float), force: wp.array(dtype=float),
                qacc_c: wp.array(dtype=float)):
    """Unprojected Gauss-Seidel target of row i."""
    a = art[i]
    g = a0[i] + _row_dot(i, width, a, art_dof_start, jac, qacc_c) + reg[i] * force[i] - aref[i]
    return force[i] - g * inv_diag[i]


@wp.kernel
def _pgs_kernel(
    # Model:
    island_start: wp.array(dtype=int), kind: wp.array(dtype=int), owner: wp.array(dtype=int),
    art: wp.array(dtype=wp.vec2i), width: int, art_dof_start: wp.array(dtype=int), iterations: int,
    slot_pair: wp.array(dtype=int), pair_mu: wp.array(dtype=float), slot_nrows: wp.array(dtype=int),
    # Data in:
    active: wp.array(dtype=int), jac: wp.array(dtype=float), minv_jac: wp.array(dtype=float),
    a0: wp.array(dtype=float), aref: wp.array(dtype=float), reg: wp.array(dtype=float),
    inv_diag: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
    # Data out:
    force: wp.array(dtype=float), qacc_c: wp.array(dtype=float),
):
    w = wp.tid()
    r0 = island_start[w]
    r1 = island_start[w + 1]
    # Warm start: apply the previous forces of rows that stay active.
    for i in range(r0, r1):
        if active[i] != 0:
            f = force[i]
            if f != 0.0:
                _row_axpy(i, width, art[i], art_dof_start, minv_jac, f, qacc_c)
    for _it in range(iterations):
        i = r0
        while i < r1:
            if active[i] == 0:
                i += 1
                continue
            if kind[i] == _CONTACT and slot_nrows[owner[i]] == 3:
                _elliptic_update(i, width, art, art_dof_start, jac, minv_jac, a0, aref, reg, inv_diag,
                                 pair_mu[slot_pair[owner[i]]], force, qacc_c)
                i += 3
                continue
            f_new = wp.clamp(_row_update(i, width, art, art_dof_start, jac, a0, aref, reg, inv_diag, force, qacc_c),
                             lo[i], hi[i])
            df = f_new - force[i]
            if df != 0.0:
                force[i] = f_new
                _row_axpy(i, width, art[i], art_dof_start, minv_jac, df, qacc_c)
            i += 1


@wp.func
def _elliptic_update(i: int, width: int, art: wp.array(dtype=wp.vec2i), art_dof_start: wp.array(dtype=int),
                     jac: wp.array(dtype=float), minv_jac: wp.array(dtype=float), a0: wp.array(dtype=float),
                     aref: wp.array(dtype=float), reg: wp.array(dtype=float), inv_diag: wp.array(dtype=float),
                     mu: float, force: wp.array(dtype=float), qacc_c: wp.array(dtype=float)):
    """Normal row, then both tangent rows projected onto the friction disc |f_t| <= mu f_n."""
    fn = wp.max(_row_update(i, width, art, art_dof_start, jac, a0, aref, reg, inv_diag, force, qacc_c), 0.0)
    dn = fn - force[i]
    force[i] = fn
    _row_axpy(i, width, art[i], art_dof_start, minv_jac, dn, qacc_c)
    f1 = _row_update(i + 1, width, art, art_dof_start, jac, a0, aref, reg, inv_diag, force, qacc_c)
    f2 = _row_update(i + 2, width, art, art_dof_start, jac, a0, aref, reg, inv_diag, force, qacc_c)
    norm = wp.sqrt(f1 * f1 + f2 * f2)
    limit = mu * fn
    if norm > limit:
        scale = limit / wp.max(norm, 1.0e-20)
        f1 = f1 * scale
        f2 = f2 * scale
    d1 = f1 - force[i + 1]
    d2 = f2 - force[i + 2]
    force[i + 1] = f1
    force[i + 2] = f2
    _row_axpy(i + 1, width, art[i + 1], art_dof_start, minv_jac, d1, qacc_c)
    _row_axpy(i + 2, width, art[i + 2], art_dof_start, minv_jac, d2, qacc_c)


@wp.kernel
def _contact_output_kernel(
    # Model:
    slot_pair: wp.array(dtype=int), pair_body: wp.array(dtype=wp.vec2i), pair_island: wp.array(dtype=int),
    pair_mu: wp.array(dtype=float), slot_row: wp.array(dtype=int), slot_nrows: wp.array(dtype=int),
    body_q: wp.array(dtype=wp.transform), body_com: wp.array(dtype=wp.vec3),
    # Data in:
    active: wp.array(dtype=int), point: wp.array(dtype=wp.vec3), normal: wp.array(dtype=wp.vec3),
    tangent: wp.array(dtype=wp.vec3), row_force: wp.array(dtype=float),
    # Data out:
    force_out: wp.array(dtype=wp.vec3), body_wrench_out: wp.array(dtype=wp.spatial_vector),
    body_count_out: wp.array(dtype=int), world_count_out: wp.array(dtype=int),
):
    s = wp.tid()
    if active[s] == 0:
        force_out[s] = wp.vec3(0.0)
        return
    p = slot_pair[s]
    n = normal[s]
    t1 = tangent[s]
    t2 = wp.cross(n, t1)
    r = slot_row[s]
    nr = slot_nrows[s]
    mu = pair_mu[p]
    f = n * row_force[r]
    if nr == 4:
        f = n * (row_force[r] + row_force[r + 1] + row_force[r + 2] + row_force[r + 3])
        f = f + mu * (t1 * (row_force[r] - row_force[r + 1]) + t2 * (row_force[r + 2] - row_force[r + 3]))
    elif nr == 3:
        f = f + t1 * row_force[r + 1] + t2 * row_force[r + 2]
    force_out[s] = f
    wp.atomic_add(world_count_out, pair_island[p], 1)
    bodies = pair_body[p]
    pt = point[s]
    for side in range(2):
        b = bodies[side]
        if b >= 0:
            fb = f
            if side == 0:
                fb = -f
            com = wp.transform_point(body_q[b], body_com[b])
            wp.atomic_add(body_wrench_out, b, wp.spatial_vector(fb, wp.cross(pt - com, fb)))
            wp.atomic_add(body_count_out, b, 1)


@wp.kernel
def _clear_outputs_kernel(body_wrench: wp.array(dtype=wp.spatial_vector), body_count: wp.array(dtype=int)):
    b = wp.tid()
    body_wrench[b] = wp.spatial_vector()
    body_count[b] = 0


@wp.kernel
def _clear_counts_kernel(counts: wp.array(dtype=int)):
    counts[wp.tid()] = 0


def solve(model, tree, data, contacts, rows, iterations, body_wrench, body_count, world_count):
    """Solve every world's rows; write qacc_constraint and the contact outputs."""
    dev = model.device
    if model.joint_dof_count:
        wp.launch(_zero_kernel, dim=model.joint_dof_count, device=dev, inputs=[data.qacc_constraint])
    if rows.count:
        wp.launch(_pgs_kernel, dim=rows.island_count, device=dev, inputs=[
            rows.island_start, rows.kind, rows.owner, rows.art, rows.width, tree["art_dof_start"], int(iterations),
            contacts.slot_pair, contacts.pair_mu, rows.slot_nrows, rows.active, rows.jac, rows.minv_jac, rows.a0,
            rows.aref, rows.reg, rows.inv_diag, rows.lo, rows.hi], outputs=[rows.force, data.qacc_constraint])
    wp.launch(_clear_outputs_kernel, dim=body_wrench.shape[0], device=dev, inputs=[body_wrench, body_count])
    wp.launch(_clear_counts_kernel, dim=world_count.shape[0], device=dev, inputs=[world_count])
    if contacts.slot_count:
        wp.launch(_contact_output_kernel, dim=contacts.slot_count, device=dev, inputs=[
            contacts.slot_pair, contacts.pair_body, contacts.pair_island, contacts.pair_mu, rows.slot_row,
            rows.slot_nrows, data.body_q, model.body_com, contacts.active, contacts.point, contacts.normal,
            contacts.tangent, rows.force], outputs=[contacts.force, body_wrench, body_count, world_count])
