"""Contact forces from the solved row forces (MuJoCo's mj_contactForce and cfrc_ext): each active slot's
force in world axes, the total contact wrench and contact count of each body, and each world's contact
count. The finish pass of :mod:`..forward` runs :func:`contact_output_slots` on the last substep: over the
world solve's list of the substep's active slots (:mod:`.world`), or over every slot of the world where
that list may miss one (a world whose rows overflowed its budget, a block of several worlds)."""

from __future__ import annotations

import warp as wp

from ...sim.stage_args import fill
from ..collision.pairs import PairTopology, pair_bodies, slot_pair, template_slot
from ..constraint.tables import CONTACT
from ..items import item

__all__ = ["ContactOutputArgs", "contact_output_world", "contact_output_slot", "contact_output_args"]


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
    # The world solve's list of the substep's active rows (contacts first, in slot order, each slot's rows
    # together: :mod:`.world`), whole where its world did not overflow its row budget:
    listed: int  # 1 where a world solve lists rows (the model has constraint rows)
    world_budget_start: wp.array(dtype=int)  # (worlds + 1,) first compact row of each world
    listed_count: wp.array(dtype=int)  # (worlds,) rows listed (RowData.nactive)
    listed_kind: wp.array(dtype=int)  # per compact row: its kind (RowData.kind)
    listed_slot: wp.array(dtype=int)  # per compact row: a contact row's slot (RowData.owner)
    overflow: wp.array(dtype=int)  # (worlds,) 1 once a world's rows overflowed its budget
    # Data out:
    force_out: wp.array(dtype=wp.vec3)
    body_wrench_out: wp.array(dtype=wp.spatial_vector)
    body_count_out: wp.array(dtype=int)
    world_count_out: wp.array(dtype=int)


@wp.func(inline=True)  # takes its stage struct (about 1 KB) by value: inlined, it is not copied
def contact_output_world(w: int, first: int, end: int, lane: int, lanes: int, args: ContactOutputArgs):
    """Contact outputs of world w (its slots ``first`` .. ``end`` - 1) by ``lane`` of a block of ``lanes``:
    where the world solve's list holds every active slot of the world, of the listed slots (the compact rows
    strided over lanes; a slot's first row outputs it), which are the active slots in slot order, without
    reading every slot's flag (Go1: its ground contacts lie in the first 60 of 659 slots); else of every
    active slot, the slots strided over lanes."""
    if args.listed != 0 and args.overflow[w] == 0:
        r0 = args.world_budget_start[w]
        for c in range(lane, args.listed_count[w], lanes):
            if item(args.listed_kind, r0 + c) != CONTACT:
                break  # the non-contact rows follow the contacts
            s = item(args.listed_slot, r0 + c)
            if c == 0 or item(args.listed_slot, r0 + c - 1) != s:
                _output_slot(w, s, args)
    else:
        for s in range(first + lane, end, lanes):
            contact_output_slot(w, s, args)


@wp.func(inline=True)
def contact_output_slot(w: int, s: int, args: ContactOutputArgs):
    """Contact outputs of world w's slot s where it is active (an inactive slot's force was cleared with its
    active flag by the narrow phase)."""
    if item(args.active, s) != 0:
        _output_slot(w, s, args)


@wp.func(inline=True)
def _output_slot(w: int, s: int, args: ContactOutputArgs):
    """Contact outputs of world w's active slot s: its force, and its wrench and count on each body."""
    rw = args.world_row_start[w]
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


def contact_output_args(model, data, contacts, rows, world_solver, body_wrench, body_count, world_count):
    """The ContactOutputArgs of :func:`contact_output_world` and :func:`contact_output_slot` (``world_solver``:
    the :class:`.world.WorldSolver` whose list of active rows they read)."""
    rd = world_solver.rd
    return fill(
        ContactOutputArgs,
        model,
        data,
        contacts,
        rows,
        body_q=data.body_q,
        topo=contacts.topology,
        row_force=rows.force,
        listed=int(world_solver.count > 0),
        listed_count=rd.nactive,
        listed_kind=rd.kind,
        listed_slot=rd.owner,
        overflow=rows.row_overflow,
        force_out=contacts.force,
        body_wrench_out=body_wrench,
        body_count_out=body_count,
        world_count_out=world_count,
    )
