"""SchemaResolverNewton: ``newton:`` attributes (newton-usd-schemas, and seed 001's NewtonJointAPI)."""

from __future__ import annotations

from typing import ClassVar

from .base import AttrSpec, SchemaResolver, chain, degrees, per_degree

__all__ = ["SchemaResolverNewton", "per_dof"]


def per_dof(value, ctx):
    """NewtonJointAPI value of one DOF (seed 001).

    An array is indexed by the DOF's position in ``newton:dofs`` (a DOF not listed is "not authored");
    a scalar (the released schema's form) applies to every DOF. An authored empty ``newton:dofs``
    disables the API: nothing is read.
    """
    if ctx.newton_dofs is not None and len(ctx.newton_dofs) == 0:
        return None
    if isinstance(value, list):
        if ctx.newton_dofs is None or ctx.dof_token not in ctx.newton_dofs:
            return None
        return value[ctx.newton_dofs.index(ctx.dof_token)]
    return value


def _joint_api(name, *more):
    return AttrSpec(name, chain(per_dof, *more), expects="float_or_floats")


class SchemaResolverNewton(SchemaResolver):
    """Resolver for Newton-authored attributes (``newton:`` namespace).

    Joint damping, limit gains and ``newton:viscousDamping`` are per degree on angular DOFs and
    ``newton:velocityLimit`` is in deg/s (converted to radians here).
    """

    name: ClassVar[str] = "newton"
    namespaces: ClassVar[tuple] = ("newton",)
    mapping: ClassVar[dict] = {
        "scene": {
            "time_steps_per_second": AttrSpec("newton:timeStepsPerSecond", default=1000.0),
            "max_solver_iterations": AttrSpec("newton:maxSolverIterations", expects="int"),
            "gravity_enabled": AttrSpec("newton:gravityEnabled", expects="bool", default=True),
        },
        "body": {
            "gravity_enabled": AttrSpec("newton:gravityEnabled", expects="bool"),
        },
        "shape": {
            "margin": AttrSpec("newton:contactMargin", default=0.0),
            "gap": AttrSpec("newton:contactGap"),
            "max_hull_vertices": AttrSpec("newton:maxHullVertices", expects="int"),
            # a UsdGeom.Mesh in the heightfield form (newton_gym.usd.heightfield_shapes)
            "heightfield_rows": AttrSpec("newton:heightfield:rows", expects="int"),
            "heightfield_columns": AttrSpec("newton:heightfield:columns", expects="int"),
            "heightfield_base": AttrSpec("newton:heightfield:base"),
        },
        "material": {
            "mu_torsional": AttrSpec("newton:torsionalFriction", default=0.25),
            "mu_rolling": AttrSpec("newton:rollingFriction", default=0.0005),
            "ke": AttrSpec("newton:contactStiffness"),
            "kd": AttrSpec("newton:contactDamping"),
        },
        "joint": {
            "armature": _joint_api("newton:armature"),
            "friction_static": AttrSpec(
                ("newton:staticFrictionEffort", "newton:friction"), per_dof, expects="float_or_floats"
            ),
            "friction_dynamic": _joint_api("newton:dynamicFrictionEffort"),
            "viscous_damping": _joint_api("newton:viscousDamping", per_degree),
            "damping": AttrSpec("newton:damping", per_degree),
            "velocity_limit": AttrSpec("newton:velocityLimit", degrees),
            "limit_ke": AttrSpec("newton:limitStiffness", per_degree),
            "limit_kd": AttrSpec("newton:limitDamping", per_degree),
        },
        "articulation": {
            "self_collision_enabled": AttrSpec("newton:selfCollisionEnabled", expects="bool", default=True),
        },
        "actuator": {
            "armature": AttrSpec("newton:armature"),
        },
    }
