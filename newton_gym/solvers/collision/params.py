"""Per-pair contact parameters combined from the two shapes' columns, on the device.

One kernel fills a candidate pair's friction, margin, gap, bounding distance, solref and solimp from the
model's shape arrays; the solver runs it when it is built and again from ``notify_model_changed`` so that
shape edits (e.g. randomized friction) take effect without rebuilding the pair table. Combination rules
follow MuJoCo: where the two shapes' priorities differ, the higher-priority shape's friction, solref and
solimp are taken; otherwise friction is the larger of the two and solref / solimp are averaged. Margins
and gaps add.
A per-world friction override (:func:`set_world_friction`) writes the pair friction of chosen worlds
directly, which a max rule over shapes cannot express when a world's robot meets a shared ground.
"""

from __future__ import annotations

import warp as wp

from ..types import vec5
from .pairs import PairTopology, block_of, pair_shapes, template_pair

__all__ = ["combine_pair_params", "set_world_friction"]

wp.set_module_options({"enable_backward": False})


@wp.kernel
def _pair_params_kernel(
    # Model:
    topo: PairTopology,
    shape_mu: wp.array(dtype=float),
    shape_margin: wp.array(dtype=float),
    shape_gap: wp.array(dtype=float),
    shape_solref: wp.array(dtype=wp.vec2),
    shape_solimp: wp.array(dtype=vec5),
    shape_priority: wp.array(dtype=int),
    # Data out:
    mu_out: wp.array(dtype=float),
    margin_out: wp.array(dtype=float),
    gap_out: wp.array(dtype=float),
    bound_out: wp.array(dtype=float),
    solref_out: wp.array(dtype=wp.vec2),
    solimp_out: wp.array(dtype=vec5),
):
    p = wp.tid()
    w = block_of(topo.block_pair_start, p)
    tp = template_pair(topo, w, p)
    s = pair_shapes(topo, w, tp)
    a = s[0]
    b = s[1]
    gap = shape_gap[a] + shape_gap[b]
    # Our margin is where force begins and gap the detection distance beyond it; MuJoCo's
    # margin, which the solver's rows follow, is their sum (and MuJoCo adds the two geoms' values).
    margin = shape_margin[a] + shape_margin[b] + gap
    margin_out[p] = margin
    gap_out[p] = gap
    bound_out[p] = topo.radius[tp] + margin
    pa = shape_priority[a]
    pb = shape_priority[b]
    if pa == pb:
        mu_out[p] = wp.max(shape_mu[a], shape_mu[b])
        solref_out[p] = 0.5 * (shape_solref[a] + shape_solref[b])
        solimp_out[p] = 0.5 * (shape_solimp[a] + shape_solimp[b])
    else:
        w = a
        if pb > pa:
            w = b
        mu_out[p] = shape_mu[w]
        solref_out[p] = shape_solref[w]
        solimp_out[p] = shape_solimp[w]


def combine_pair_params(model, contacts):
    """(Re)compute ``contacts.pair_mu / pair_margin / pair_gap / pair_bound / pair_solref / pair_solimp``
    from the model's shape columns (one launch, no host sync, capture-safe)."""
    if contacts.pair_count == 0:
        return
    wp.launch(
        _pair_params_kernel,
        dim=contacts.pair_count,
        device=model.device,
        inputs=[
            contacts.topology,
            model.shape_material_mu,
            model.shape_contact_margin,
            model.shape_contact_gap,
            model.shape_solref,
            model.shape_solimp,
            model.shape_priority,
        ],
        outputs=[
            contacts.pair_mu,
            contacts.pair_margin,
            contacts.pair_gap,
            contacts.pair_bound,
            contacts.pair_solref,
            contacts.pair_solimp,
        ],
    )


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
    p = wp.tid()
    w = block_of(topo.block_pair_start, p)
    if w < world_mask.shape[0]:
        if world_mask[w]:
            mu_out[p] = world_mu[w]


def set_world_friction(model, contacts, world_mu, world_mask):
    """Set the friction coefficient of every candidate pair of the worlds where ``world_mask`` is True
    (their pairs with global shapes included) to ``world_mu[w]``. ``world_mu``: (world_count,) float32,
    ``world_mask``: (world_count,) bool, Warp arrays on the model's device."""
    if contacts.pair_count == 0:
        return
    wp.launch(
        _world_friction_kernel,
        dim=contacts.pair_count,
        device=model.device,
        inputs=[contacts.topology, world_mu, world_mask],
        outputs=[contacts.pair_mu],
    )
