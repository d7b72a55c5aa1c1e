"""Contact forces from the solved row forces (MuJoCo's mj_contactForce and cfrc_ext): each active slot's
force in world axes, the total contact wrench and contact count of each body, and each world's contact
count. The finish pass of :mod:`..forward` runs :func:`contact_output_slots` on the last substep."""

from __future__ import annotations

import warp as wp

from ...sim.stage_args import fill
from ..collision.pairs import PairTopology, pair_bodies, slot_pair, template_slot
from ..items import item

__all__ = ["ContactOutputArgs", "contact_output_slots", "contact_output_args"]


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
    """Contact outputs of world w's active slots among first, first + step, ... below end (an inactive slot's
    force was cleared with its active flag by the narrow phase)."""
    rw = args.world_row_start[w]
    for s in range(first, end, step):
        if item(args.active, s) == 0:
            continue
        pp = slot_pair(args.topo, w, s)
        p = pp[0]
        ts = template_slot(args.topo, w, s)
        n = args.normal[s]
        t1 = args.tangent[s]
        t2 = wp.cross(n, t1)
        r = rw + args.slot_row[ts]
        nr = args.slot_nrows[ts]
        mu = args.pair_mu[p]
        f = n * args.row_force[r]
        if nr == 4:
            f = n * (args.row_force[r] + args.row_force[r + 1] + args.row_force[r + 2] + args.row_force[r + 3])
            f = f + mu * (
                t1 * (args.row_force[r] - args.row_force[r + 1]) + t2 * (args.row_force[r + 2] - args.row_force[r + 3])
            )
        elif nr == 3:
            f = f + t1 * args.row_force[r + 1] + t2 * args.row_force[r + 2]
        args.force_out[s] = f
        wp.atomic_add(args.world_count_out, w, 1)
        bodies = pair_bodies(args.topo, w, pp[1])
        pt = args.point[s]
        for side in range(2):
            b = bodies[side]
            if b >= 0:
                fb = f
                if side == 0:
                    fb = -f
                com = wp.transform_point(args.body_q[b], args.body_com[b])
                wp.atomic_add(args.body_wrench_out, b, wp.spatial_vector(fb, wp.cross(pt - com, fb)))
                wp.atomic_add(args.body_count_out, b, 1)


def contact_output_args(model, data, contacts, rows, body_wrench, body_count, world_count) -> ContactOutputArgs:
    """The ContactOutputArgs of :func:`contact_output_slots`."""
    return fill(
        ContactOutputArgs,
        model,
        data,
        contacts,
        rows,
        body_q=data.body_q,
        topo=contacts.topology,
        row_force=rows.force,
        force_out=contacts.force,
        body_wrench_out=body_wrench,
        body_count_out=body_count,
        world_count_out=world_count,
    )
