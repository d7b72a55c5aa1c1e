"""Per-pair contact parameters combined from the two shapes' columns, on the device.

One kernel fills a candidate pair's friction, margin, gap, solref and solimp from the
model's shape arrays; the solver runs it when it is built and again from ``notify_model_changed`` so that
shape edits (e.g. randomized friction) take effect without rebuilding the pair table. Combination rules
follow MuJoCo: where the two shapes' priorities differ, the higher-priority shape's friction, solref and
solimp are taken; otherwise friction is the larger of the two and solref / solimp are averaged. Margins
and gaps add.
A per-world friction override (:func:`set_world_friction`) writes the pair friction of chosen worlds
directly, which a max rule over shapes cannot express when a world's robot meets a shared ground.
"""

from __future__ import annotations

import numpy as np
import warp as wp

from ...sim.stage_args import fill
from ..types import vec5
from .pairs import PairTopology, pair_shapes, template_pair

__all__ = ["combine_pair_params", "set_world_friction"]

wp.set_module_options({"enable_backward": False})


@wp.struct
class PairParamArgs:
    """The shape columns a pair's parameters are combined from and the pair columns they fill
    (:func:`combine_pair_params`)."""

    topo: PairTopology  # candidate pairs of every world (:mod:`.pairs`)
    shape_material_mu: wp.array(dtype=float)  # (shape_count,) friction coefficient [-]
    shape_contact_margin: wp.array(dtype=float)  # (shape_count,) distance at which contact force begins [m]
    shape_contact_gap: wp.array(dtype=float)  # (shape_count,) detection distance beyond the margin [m]
    shape_solref: wp.array(dtype=wp.vec2)  # (shape_count,) solref (time constant [s], damping ratio [-])
    shape_solimp: wp.array(dtype=vec5)  # (shape_count,) solimp
    shape_priority: wp.array(dtype=int)  # (shape_count,) MuJoCo priority of the shape's parameters
    pair_mu_out: wp.array(dtype=float)  # (pair_count,) friction coefficient [-]
    pair_margin_out: wp.array(dtype=float)  # (pair_count,) MuJoCo margin (sum of margins + gaps) [m]
    pair_gap_out: wp.array(dtype=float)  # (pair_count,) sum of gaps [m]
    pair_solref_out: wp.array(dtype=wp.vec2)  # (pair_count,) solref
    pair_solimp_out: wp.array(dtype=vec5)  # (pair_count,) solimp


@wp.kernel
def _pair_params_kernel(args: PairParamArgs):
    """Pair lp of world w's parameters from its two shapes' columns (the rules of the module docstring)."""
    w, lp = wp.tid()
    p = args.topo.block_pair_start[w] + lp
    if p >= args.topo.block_pair_start[w + 1]:
        return
    tp = template_pair(args.topo, w, p)
    s = pair_shapes(args.topo, w, tp)
    a = s[0]
    b = s[1]
    gap = args.shape_contact_gap[a] + args.shape_contact_gap[b]
    # Our margin is where force begins and gap the detection distance beyond it; MuJoCo's
    # margin, which the solver's rows follow, is their sum (and MuJoCo adds the two geoms' values).
    margin = args.shape_contact_margin[a] + args.shape_contact_margin[b] + gap
    args.pair_margin_out[p] = margin
    args.pair_gap_out[p] = gap
    pa = args.shape_priority[a]
    pb = args.shape_priority[b]
    if pa == pb:
        args.pair_mu_out[p] = wp.max(args.shape_material_mu[a], args.shape_material_mu[b])
        args.pair_solref_out[p] = 0.5 * (args.shape_solref[a] + args.shape_solref[b])
        args.pair_solimp_out[p] = 0.5 * (args.shape_solimp[a] + args.shape_solimp[b])
    else:
        w = a
        if pb > pa:
            w = b
        args.pair_mu_out[p] = args.shape_material_mu[w]
        args.pair_solref_out[p] = args.shape_solref[w]
        args.pair_solimp_out[p] = args.shape_solimp[w]


@wp.struct
class BundleArgs:
    """What :func:`_bundle_kernel` reads and writes (the bundles of :mod:`.candidates`)."""

    topo: PairTopology  # candidate pairs and bundles of every world (:mod:`.pairs`)
    shape_transform: wp.array(dtype=wp.transform)  # (shape_count,) pose in its body's frame (static: world) [m]
    pair_margin: wp.array(dtype=float)  # (pair_count,) MuJoCo margin (sum of margins + gaps) [m]
    bundle_centre_a: wp.array(dtype=wp.vec3)  # (template bundles,) centre of its body A's A shapes, A's frame [m]
    bundle_centre_b: wp.array(dtype=wp.vec3)  # (template bundles,) centre of its B shapes, body B's frame [m]
    bundle_bound: wp.array(dtype=float)  # (template bundles,) centre distance beyond which none of its pairs touch [m]
    bundle_reach: wp.array(dtype=float)  # (template bundles,) A centre to B origin beyond which no pair touches [m]
    bundle_run: wp.array(dtype=wp.vec2i)  # (template bundles,) [first, end) of the bundles with its body A


@wp.kernel
def _bundle_centre_kernel(args: BundleArgs):
    """Template bundle lb of template t, in the template's first world: the mean origin of its B shapes
    (body B's frame) and, for its A side, the mean origin of the A shapes of every bundle of the template
    with the same body A (its run, ``bundle_run``; static: of its own), one centre per body, which the
    narrow phase transforms once for a run of bundles of one body A; its bound reset for
    :func:`_bundle_bound_kernel`. (It walked every bundle of the template for each: a 700-link
    self-colliding chain's 245,000 bundles took 110 s.)"""
    t, lb = wp.tid()
    topo = args.topo
    tb = topo.template_bundle_start[t] + lb
    if tb >= topo.template_bundle_start[t + 1]:
        return
    w = topo.template_world[t]
    run = args.bundle_run[tb]
    ca = wp.vec3(0.0)
    na = int(0)
    for ob in range(run[0], run[1]):
        for e in range(topo.bundle_start[ob], topo.bundle_start[ob + 1]):
            s = pair_shapes(topo, w, topo.template_pair_start[t] + topo.bundle_pairs[e])
            ca += wp.transform_get_translation(args.shape_transform[s[0]])
            na += 1
    cb = wp.vec3(0.0)
    e0 = topo.bundle_start[tb]
    e1 = topo.bundle_start[tb + 1]
    for e in range(e0, e1):
        s = pair_shapes(topo, w, topo.template_pair_start[t] + topo.bundle_pairs[e])
        cb += wp.transform_get_translation(args.shape_transform[s[1]])
    args.bundle_centre_a[tb] = ca / float(na)
    args.bundle_centre_b[tb] = cb / float(e1 - e0)
    args.bundle_bound[tb] = 0.0


@wp.kernel
def _bundle_bound_kernel(args: BundleArgs):
    """Bundle lb of world w: the distance of its template bundle's centres beyond which every pair's own
    test in this world (origins farther apart than its bound: the two bounding radii plus the pair's margin)
    fails: the most, over its pairs, of that bound
    plus the two shapes' offsets from the centres (triangle inequality), with a relative 1e-5 and 1e-6 m to
    spare for float32 rounding; the template bundle keeps the most over its worlds, so that a bundle passes
    wherever one of its pairs would in any of them."""
    w, lb = wp.tid()
    topo = args.topo
    if topo.block_bundle_start[w] + lb >= topo.block_bundle_start[w + 1]:
        return
    t = topo.block_template[w]
    tb = topo.template_bundle_start[t] + lb
    ca = args.bundle_centre_a[tb]
    cb = args.bundle_centre_b[tb]
    bound = float(0.0)
    for e in range(topo.bundle_start[tb], topo.bundle_start[tb + 1]):
        lp = topo.bundle_pairs[e]
        s = pair_shapes(topo, w, topo.template_pair_start[t] + lp)
        da = wp.length(wp.transform_get_translation(args.shape_transform[s[0]]) - ca)
        db = wp.length(wp.transform_get_translation(args.shape_transform[s[1]]) - cb)
        tp = topo.template_pair_start[t] + lp
        pair_bound = topo.radius[tp] + args.pair_margin[topo.block_pair_start[w] + lp]  # as the narrow phase
        bound = wp.max(bound, pair_bound + da + db)
    wp.atomic_max(args.bundle_bound, tb, bound * (1.0 + 1.0e-5) + 1.0e-6)


@wp.kernel
def _bundle_reach_kernel(args: BundleArgs):
    """Template bundle lb of template t: the distance from its A centre to body B's origin beyond which its
    centres lie farther apart than its bound (|c_B - c_A| >= |o_B - c_A| - |c_B - o_B|, the offset of the B
    centre from B's origin fixed in B's frame), with float32 rounding spared as for the bound; negative where
    the bound is. The narrow phase tests it first: no rotation of the B centre for most bundles."""
    t, lb = wp.tid()
    tb = args.topo.template_bundle_start[t] + lb
    if tb >= args.topo.template_bundle_start[t + 1]:
        return
    bound = args.bundle_bound[tb]
    reach = bound
    if bound >= 0.0:
        reach = (bound + wp.length(args.bundle_centre_b[tb])) * (1.0 + 1.0e-5) + 1.0e-6
    args.bundle_reach[tb] = reach


def combine_pair_params(model, contacts):
    """(Re)compute ``contacts.pair_mu / pair_margin / pair_gap / pair_solref / pair_solimp``
    from the model's shape columns, then the bundles' bounding tests from the pair bounds (four launches, no
    host sync, capture-safe)."""
    _per_pair(_pair_params_kernel, model, contacts, [fill(PairParamArgs, model, contacts, topo=contacts.topology)])
    pairs = contacts.pairs
    most = int(np.diff(pairs.block_bundle_start).max(initial=0))
    if most:
        args = fill(BundleArgs, model, contacts, topo=contacts.topology)
        per_template = (len(pairs.template_bundle_start) - 1, int(np.diff(pairs.template_bundle_start).max()))
        per_world = (len(pairs.block_bundle_start) - 1, most)
        wp.launch(_bundle_centre_kernel, dim=per_template, device=model.device, inputs=[args])
        wp.launch(_bundle_bound_kernel, dim=per_world, device=model.device, inputs=[args])
        wp.launch(_bundle_reach_kernel, dim=per_template, device=model.device, inputs=[args])


def _per_pair(kernel, model, contacts, inputs: list):
    """Launch ``kernel`` with ``inputs`` over (world, pair of the world) for the candidate pairs of
    ``contacts``: no search for a pair's world (not at all without pairs)."""
    if contacts.pair_count:
        most = int(np.diff(contacts.pairs.block_pair_start).max())
        wp.launch(kernel, dim=(len(contacts.pairs.block_pair_start) - 1, most), device=model.device, inputs=inputs)


@wp.kernel
def _world_friction_kernel(
    # Model:
    topo: PairTopology,
    # Data in:
    world_mu: wp.array(dtype=float),
    world_mask: wp.array(dtype=bool),
    # Data out:
    mu_out: wp.array(dtype=float),
):
    """World w's pairs' friction: world_mu[w] where world_mask[w] holds (one thread per world: a reset
    masks in a few worlds, whose pairs it walks; the others return at once)."""
    w = wp.tid()
    if w < world_mask.shape[0]:
        if world_mask[w]:
            for p in range(topo.block_pair_start[w], topo.block_pair_start[w + 1]):
                mu_out[p] = world_mu[w]


def set_world_friction(model, contacts, world_mu, world_mask):
    """Set the friction coefficient of every candidate pair of the worlds where ``world_mask`` is True
    (their pairs with global shapes included) to ``world_mu[w]``. ``world_mu``: (world_count,) float32,
    ``world_mask``: (world_count,) bool, Warp arrays on the model's device."""
    if contacts.pair_count:
        wp.launch(
            _world_friction_kernel,
            dim=len(contacts.pairs.block_pair_start) - 1,
            device=model.device,
            inputs=[contacts.topology, world_mu, world_mask, contacts.pair_mu],
        )
