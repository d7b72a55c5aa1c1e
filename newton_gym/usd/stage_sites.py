"""Sites: prims tagged as sites (``mjc:site = true``, what the MJCF converter writes for ``<site>``)
become named frames (:meth:`~newton_gym.sim.ModelBuilder.add_site`) on their nearest imported rigid-body
ancestor, or frames fixed in the world when no imported body holds them.

Sites are plain Xforms: UsdPhysics reports them neither as bodies nor as colliders, so no other stage
sees them. Their pose is the prim's authored world pose at the stage's configuration, expressed in the
body's frame (so it stays right for bodies merged by ``collapse_fixed_joints``).
"""

from __future__ import annotations

from ..sim.hostmath import transform_inverse, transform_mul
from ._pxr import quat_xyzw, require_pxr, vec

__all__ = ["add_sites"]


def _world_pose(ctx, prim):
    """The prim's stage world pose -> builder world pose (7,) [m]; scale and shear are dropped."""
    pxr = require_pxr()
    matrix = pxr.UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(pxr.Usd.TimeCode.Default())
    rotation = pxr.Gf.Matrix4d(matrix).RemoveScaleShear().ExtractRotationQuat()
    return ctx.frame.world_pose(vec(matrix.ExtractTranslation()), quat_xyzw(rotation))


def _holding_body(prim, body_paths: dict) -> str | None:
    """Path of the nearest ancestor of ``prim`` that was imported as a body, or None."""
    parent = prim.GetParent()
    while parent and not parent.IsPseudoRoot():
        if str(parent.GetPath()) in body_paths:
            return str(parent.GetPath())
        parent = parent.GetParent()
    return None


def add_sites(ctx, out) -> dict:
    """Add a site for every tagged Xform of the imported range.

    Args:
        ctx: the ImportContext.
        out: the :class:`~.emit.Emitted` indices (bodies already written).
    Returns:
        ``{prim path: site index}`` (the site's key is its prim path).
    """
    sites = {}
    body_q = ctx.builder.tables["body"]
    for prim in ctx.prims.range_prims():
        if prim.GetTypeName() != "Xform":
            continue
        path = str(prim.GetPath())
        if not ctx.resolve("site", "is_site", path, default=False):
            continue
        if path in out.body:
            ctx.warn(path, "a rigid body is tagged as a site; it is imported as a body only")
            continue
        pose = _world_pose(ctx, prim)
        holder = _holding_body(prim, out.body)
        body = -1 if holder is None else out.body[holder]
        if body >= 0:
            pose = transform_mul(transform_inverse(body_q.value("q", body)), pose)
        with ctx.at(path):
            sites[path] = ctx.builder.add_site(body, pose, key=path)
    return sites
