"""Constraint solve entry point and contact outputs.

For rows i of a world, the forces f minimise 1/2 f^T (A + R) f + f^T (a0 - a_ref) subject to the row
bounds (contacts f >= 0 per pyramid edge, limits f >= 0, joint friction |f| <= F, equalities free;
elliptic cones project (f_t1, f_t2) onto the disc of radius mu f_n), with A = J M^-1 J^T
(MuJoCo computation: "Constraint model" and "PGS solver"). Projected Gauss-Seidel runs one thread per
world in :mod:`.world_solve`, on the dense A of the active rows (matrix-free for worlds with more active
rows than a dense block holds). Forces persist per row between substeps as warm starts.
"""

from __future__ import annotations

import warp as wp

from ..sim.stage_args import pack
from .pair_topology import PairTopology, block_of, pair_bodies, slot_pair, template_slot

__all__ = ["solve", "contact_outputs"]


@wp.struct
class ContactOutputArgs:
    """Arrays of one contact slot's outputs."""

    # Model:
    topo: PairTopology
    pair_mu: wp.array(dtype=float)
    world_row_start: wp.array(dtype=int)
    slot_row: wp.array(dtype=int)  # per template slot, within its world's rows
    slot_nrows: wp.array(dtype=int)  # per template slot
    body_q: wp.array(dtype=wp.transform)
    body_com: wp.array(dtype=wp.vec3)
    # Data in:
    active: wp.array(dtype=int)
    point: wp.array(dtype=wp.vec3)
    normal: wp.array(dtype=wp.vec3)
    tangent: wp.array(dtype=wp.vec3)
    row_force: wp.array(dtype=float)
    # Data out:
    force_out: wp.array(dtype=wp.vec3)
    body_wrench_out: wp.array(dtype=wp.spatial_vector)
    body_count_out: wp.array(dtype=int)
    world_count_out: wp.array(dtype=int)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def contact_output_slots(w: int, first: int, end: int, step: int, args: ContactOutputArgs):
    """Contact outputs of world w's slots first, first + step, ... below end."""
    active = args.active
    force_out = args.force_out
    topo = args.topo
    normal = args.normal
    tangent = args.tangent
    slot_row = args.slot_row
    slot_nrows = args.slot_nrows
    pair_mu = args.pair_mu
    row_force = args.row_force
    world_count_out = args.world_count_out
    rw = args.world_row_start[w]
    point = args.point
    body_q = args.body_q
    body_com = args.body_com
    body_wrench_out = args.body_wrench_out
    body_count_out = args.body_count_out
    for s in range(first, end, step):
        if active[s] == 0:
            force_out[s] = wp.vec3(0.0)
            continue
        pp = slot_pair(topo, w, s)
        p = pp[0]
        ts = template_slot(topo, w, s)
        n = normal[s]
        t1 = tangent[s]
        t2 = wp.cross(n, t1)
        r = rw + slot_row[ts]
        nr = slot_nrows[ts]
        mu = pair_mu[p]
        f = n * row_force[r]
        if nr == 4:
            f = n * (row_force[r] + row_force[r + 1] + row_force[r + 2] + row_force[r + 3])
            f = f + mu * (t1 * (row_force[r] - row_force[r + 1]) + t2 * (row_force[r + 2] - row_force[r + 3]))
        elif nr == 3:
            f = f + t1 * row_force[r + 1] + t2 * row_force[r + 2]
        force_out[s] = f
        wp.atomic_add(world_count_out, w, 1)
        bodies = pair_bodies(topo, w, pp[1])
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
def _contact_output_kernel(first: int, args: ContactOutputArgs):
    s = wp.tid() + first
    contact_output_slots(block_of(args.topo.block_slot_start, s), s, s + 1, 1, args)


@wp.kernel
def _clear_outputs_kernel(first: int, body_wrench: wp.array(dtype=wp.spatial_vector), body_count: wp.array(dtype=int)):
    b = wp.tid() + first
    body_wrench[b] = wp.spatial_vector()
    body_count[b] = 0


@wp.kernel
def _clear_counts_kernel(first: int, counts: wp.array(dtype=int)):
    counts[wp.tid() + first] = 0


def solve(model, tree, data, rows, world_solver, joint_q, joint_qd, dt, iterations, span, block_dim=1):
    """Fill the rows and solve the constraint forces of the worlds in ``span`` (a :class:`.partition.Span`),
    one block of ``block_dim`` lanes per world; writes their ``data.qacc_constraint``."""
    world_solver.solve(data, joint_q, joint_qd, dt, iterations, span.worlds, block_dim)


def contact_outputs(model, data, contacts, rows, body_wrench, body_count, world_count, span):
    """Per-slot contact forces, per-body contact wrenches and counts, per-world counts from the forces of
    the last solve, for the bodies, worlds and slots of ``span`` (a :class:`.partition.Span`)."""
    dev = model.device
    bodies, worlds, slots = span.bodies, span.worlds, span.slots
    if bodies[1]:
        wp.launch(_clear_outputs_kernel, dim=bodies[1], device=dev, inputs=[bodies[0], body_wrench, body_count])
    if worlds[1]:
        wp.launch(_clear_counts_kernel, dim=worlds[1], device=dev, inputs=[worlds[0], world_count])
    if slots[1]:
        args = contact_output_args(model, data, contacts, rows, body_wrench, body_count, world_count)
        wp.launch(_contact_output_kernel, dim=slots[1], device=dev, inputs=[slots[0], args])


def contact_output_args(model, data, contacts, rows, body_wrench, body_count, world_count) -> ContactOutputArgs:
    """The ContactOutputArgs of :func:`contact_outputs`."""
    return pack(
        ContactOutputArgs,
        [
            contacts.topology,
            contacts.pair_mu,
            rows.world_row_start,
            rows.slot_row,
            rows.slot_nrows,
            data.body_q,
            model.body_com,
            contacts.active,
            contacts.point,
            contacts.normal,
            contacts.tangent,
            rows.force,
            contacts.force,
            body_wrench,
            body_count,
            world_count,
        ],
    )
