"""Tendons: ``MjcTendon`` prims (MuJoCo's USD schema; what the MJCF converter writes for ``<tendon>``)
become :meth:`~newton_gym.sim.ModelBuilder.add_tendon_fixed` and ``add_tendon_spatial``.

Form (README, "Conventions"): ``mjc:type`` ("fixed" or "spatial"; unauthored: "spatial", the schema's
fallback), ``rel mjc:path`` to the joints (fixed) or to the sites in path order (spatial: Xforms with
``mjc:site = true``, :mod:`.stage_sites`), optional ``mjc:path:indices`` (int[], the path as indices into
the targets, for a path that repeats one), ``mjc:path:coef`` (fixed: one number per path element; length
= sum coef q, q in radians for angular joints, whatever ``mjc:compiler:angle`` says, as MuJoCo's
coefficients) and the resolvers' "tendon" keys (SchemaResolverMjc: ``mjc:stiffness``,
``mjc:springlength``, ``mjc:damping``, ``mjc:frictionloss``, ``mjc:armature``, ``mjc:limited``,
``mjc:range:min/max``, ``mjc:margin``, ``mjc:solreflimit``, ``mjc:solimplimit``, ``mjc:solreffriction``,
``mjc:solimpfriction``). Lengths are in stage units (a fixed tendon's coefficients are stage lengths per
radian or per stage length) and masses in stage mass units; both are converted to SI here.

Errors (ImportFailedError naming the prim; the import then leaves the builder unchanged): another
``mjc:type``; no ``mjc:path``; a target that does not exist; path indices that are not integers within
the targets; a fixed tendon's target that is not a joint or is a joint of other than one DOF, or a
coefficient count other than the path's; a spatial tendon's target that is neither a site nor geometry;
a non-finite value; what the builder rejects (a negative stiffness, a range with lower > upper, ...).

Skipped with a warning naming the prim: a spatial tendon that wraps around geometry or has pulleys or side
sites (``mjc:path:divisors``, ``mjc:path:segments``, ``mjc:sideSites``), which the solver does not
simulate; a tendon whose joints or sites were not imported (outside root_path, ignored, or skipped); every
tendon when no resolver reads the "tendon" keys.
"""

from __future__ import annotations

import numpy as np

from ..sim.float_range import FLOAT32_MAX
from ._pxr import require_pxr
from .stage_joints import is_joint_prim

__all__ = ["add_tendons", "limited_flag"]

_TYPE, _COEF, _INDICES = "mjc:type", "mjc:path:coef", "mjc:path:indices"
_PULLEYS = ("mjc:path:divisors", "mjc:path:segments")
_KEYS = (
    "stiffness",
    "springlength",
    "damping",
    "frictionloss",
    "armature",
    "limited",
    "range_min",
    "range_max",
    "margin",
    "solref_limit",
    "solimp_limit",
    "solref_friction",
    "solimp_friction",
)


def limited_flag(flag, lo: float, hi: float) -> bool:
    """MJCF's "true" / "false" / "auto" or a bool (auto: limited when the range is not empty)."""
    if isinstance(flag, str):
        flag = flag.lower()
        if flag in ("true", "false"):
            return flag == "true"
        return lo < hi
    return bool(flag)


def add_tendons(ctx, out, sites: dict) -> dict:
    """Add a tendon for every ``MjcTendon`` prim of the imported range.

    Args:
        ctx: the ImportContext.
        out: the :class:`~.emit.Emitted` indices (joints already written).
        sites: ``{prim path: site index}`` of the imported sites.
    Returns:
        ``{prim path: tendon index}`` (the tendon's key is its prim path).
    """
    prims = [p for p in ctx.prims.range_prims() if p.GetTypeName() == "MjcTendon"]
    if not prims:
        return {}
    if not any(r.spec("tendon", "stiffness") for r in ctx.resolvers):
        ctx.warn(
            str(prims[0].GetPath()),
            "MjcTendon prims are only read with SchemaResolverMjc among the schema_resolvers; tendons not imported",
        )
        return {}
    tendons = {}
    for prim in prims:
        attrs = ctx.prims[prim.GetPath()]
        kind = attrs.get(_TYPE, "token") or "spatial"
        if kind not in ("fixed", "spatial"):
            attrs.fail(_TYPE, f"unknown tendon type {kind!r}; valid: 'fixed', 'spatial'")
        path = _path(ctx, prim, attrs)
        params = _params(ctx, attrs.path)
        if kind == "fixed":
            index = _add_fixed(ctx, out, attrs, path, params)
        else:
            index = _add_spatial(ctx, prim, attrs, path, sites, params)
        if index is not None:
            tendons[attrs.path] = index
    return tendons


def _path(ctx, prim, attrs) -> list:
    """The tendon's path as target prim paths, in order (``mjc:path:indices`` applied); every target exists."""
    rel = prim.GetRelationship("mjc:path")
    targets = [str(t) for t in rel.GetTargets()] if rel else []
    if not targets:
        ctx.fail(attrs.path, "tendon has no mjc:path (the joints or sites it runs through)")
    for target in targets:
        if not ctx.stage.GetPrimAtPath(target):
            ctx.fail(attrs.path, f"mjc:path targets {target}, which does not exist")
    if not attrs.has(_INDICES):
        return targets
    indices = attrs.get(_INDICES, "any")
    indices = list(indices) if isinstance(indices, (list, tuple)) else [indices]
    valid = all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(targets) for i in indices)
    if not indices or not valid:
        attrs.fail(_INDICES, f"expected indices into the {len(targets)} mjc:path targets, got {indices!r}")
    return [targets[i] for i in indices]


def _params(ctx, path: str) -> dict:
    """The builder's tendon keywords from the resolvers, converted from stage units to SI."""
    v = {key: ctx.resolve("tendon", key, path) for key in _KEYS}
    m, kg = ctx.units.m, ctx.units.kg
    lo, hi = float(v["range_min"]), float(v["range_max"])
    spring = tuple(float(s) for s in v["springlength"])
    return dict(
        stiffness=float(v["stiffness"]) * kg,  # force per length: kg/s^2
        # (-1, -1): the length at the initial configuration (MuJoCo's and the builder's marker)
        springlength=spring if spring in ((-1.0,), (-1.0, -1.0)) else tuple(s * m for s in spring),
        damping=float(v["damping"]) * kg,
        frictionloss=float(v["frictionloss"]) * kg * m,
        armature=float(v["armature"]) * kg,
        limited=limited_flag(v["limited"], lo, hi),
        range=(lo * m, hi * m),
        margin=float(v["margin"]) * m,
        solref_limit=v["solref_limit"],
        solimp_limit=v["solimp_limit"],
        solref_friction=v["solref_friction"],
        solimp_friction=v["solimp_friction"],
    )


def _add_fixed(ctx, out, attrs, path: list, params: dict):
    if not attrs.has(_COEF):
        ctx.fail(attrs.path, f"fixed tendon has no {_COEF} (one coefficient per joint of mjc:path)")
    value = attrs.get(_COEF, "float_or_floats")
    coefs = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(coefs) != len(path):
        attrs.fail(_COEF, f"{len(coefs)} coefficients for the {len(path)} joints of mjc:path; one per joint")
    if not all(abs(c) <= FLOAT32_MAX for c in coefs):
        attrs.fail(_COEF, f"coefficients {coefs} must be finite, within float32's range (|c| <= {FLOAT32_MAX:.3g})")
    tj = ctx.builder.tables["joint"]
    joints = []
    for k, target in enumerate(path):
        if not is_joint_prim(ctx.stage.GetPrimAtPath(target)):
            ctx.fail(attrs.path, f"mjc:path targets {target}, which is not a joint; a fixed tendon couples joints")
        if target not in out.joint:
            ctx.warn(attrs.path, f"mjc:path targets joint {target}, which is not imported; tendon skipped")
            return None
        j = out.joint[target]
        angular = int(tj.value("ang_count", j))
        dofs = angular + int(tj.value("lin_count", j))
        if dofs != 1:
            ctx.fail(
                attrs.path,
                f"mjc:path targets {target}, a joint with {dofs} DOFs; a fixed tendon couples one-DOF (revolute "
                "or prismatic) joints",
            )
        # stage length per radian -> metres per radian; a prismatic joint's (length per length) is unitless
        coefs[k] *= ctx.units.m if angular else 1.0
        joints.append(j)
    with ctx.at(attrs.path):
        return ctx.builder.add_tendon_fixed(joints, np.asarray(coefs), key=attrs.path, **params)


def _add_spatial(ctx, prim, attrs, path: list, sites: dict, params: dict):
    authored = [name for name in _PULLEYS if attrs.has(name)]
    side = prim.GetRelationship("mjc:sideSites")
    if side and side.GetTargets():
        authored.append("mjc:sideSites")
    if authored:
        ctx.warn(
            attrs.path,
            f"{', '.join(authored)} authored: pulleys and wrapping side sites are not simulated (spatial tendons "
            "through sites only); tendon skipped",
        )
        return None
    indices = []
    for target in path:
        if target in sites:
            indices.append(sites[target])
            continue
        if ctx.stage.GetPrimAtPath(target).IsA(require_pxr().UsdGeom.Gprim):
            ctx.warn(
                attrs.path,
                f"mjc:path wraps around geometry {target}: wrapping is not simulated (spatial tendons through "
                "sites only); tendon skipped",
            )
            return None
        if ctx.resolve("site", "is_site", target, default=False):
            ctx.warn(attrs.path, f"mjc:path targets site {target}, which is not imported; tendon skipped")
            return None
        ctx.fail(
            attrs.path,
            f"mjc:path targets {target}, which is neither a site (an Xform with mjc:site = true) nor geometry",
        )
    with ctx.at(attrs.path):
        return ctx.builder.add_tendon_spatial(indices, key=attrs.path, **params)
