"""World poses of sites (named frames fixed to bodies, see :meth:`ModelBuilder.add_site`)."""

from __future__ import annotations

import warp as wp

from ..errors import ModelBuildError

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["site_transforms"]


@wp.kernel
def _site_transforms(
    # Model:
    site_body: wp.array(dtype=wp.int32),
    site_xform: wp.array(dtype=wp.transform),
    # Data in:
    body_q_in: wp.array(dtype=wp.transform),
    # Data out:
    site_q_out: wp.array(dtype=wp.transform),
):
    s = wp.tid()
    b = site_body[s]
    x = site_xform[s]
    if b >= 0:
        x = wp.transform_multiply(body_q_in[b], x)
    site_q_out[s] = x


def site_transforms(model, state, out: wp.array | None = None) -> wp.array:
    """World pose of every site: ``body_q[site_body] * site_xform`` (the site's own pose for sites fixed
    in the world), like MuJoCo's ``site_xpos`` / ``site_xmat``.

    Args:
        model: the Model holding the sites.
        state: a State whose ``body_q`` is current (run forward kinematics first after setting joint_q).
        out: optional (site_count,) transform array to write into (no allocation, graph-capturable).
    Returns:
        (site_count,) transform array, site frames in the world [m], quaternions (x, y, z, w).
    """
    if out is None:
        out = wp.empty(model.site_count, dtype=wp.transform, device=model.device)
    elif out.shape != (model.site_count,) or out.dtype != wp.transform:
        raise ModelBuildError(f"site_transforms: out must be a ({model.site_count},) transform array")
    if model.site_count:
        wp.launch(
            _site_transforms,
            dim=model.site_count,
            inputs=[model.site_body, model.site_xform, state.body_q],
            outputs=[out],
            device=model.device,
        )
    return out
