"""The schema resolver base class: a declarative map from newton_gym keys to authored attributes.

A resolver describes one engine's USD dialect. For each prim kind it maps a newton_gym key to an
:class:`AttrSpec`: the authored attribute name(s), a transformation into newton_gym's semantics and
an approximated schema default. The importer asks the resolvers in priority order (the
``schema_resolvers`` list of ``add_usd``) and the value is, in this order of precedence:

1. the first authored value a resolver finds (later resolvers are not consulted);
2. the importer's default for the property (e.g. ``builder.default_joint_cfg.armature``);
3. the approximated schema default of the first resolver that declares one.

Transformations convert the engine's semantics (per degree -> per radian, solref -> stiffness and
damping, negated flags, ...). Stage units (metersPerUnit, kilogramsPerUnit) are applied afterwards by
the importer, so a transformation never scales lengths or masses.

Prim kinds and keys the importer asks for (value after transformation; angular DOFs per radian):

=============  ==================================================================================
kind           keys
=============  ==================================================================================
scene          time_steps_per_second [1/s], max_solver_iterations [int], gravity_enabled [bool],
               fluid_density [kg/m^3], fluid_viscosity [Pa s], wind (3,) [m/s] (stage units, stage axes)
body           gravity_enabled [bool], linear_damping [1/s], angular_damping [1/s]
shape          margin [m], gap [m], max_hull_vertices [int], condim [int], priority [int], solref (2,), solimp (5,),
               contype [int bitmask], conaffinity [int bitmask], heightfield_rows [int], heightfield_columns
               [int], heightfield_base [m] (a mesh with heightfield_rows is a heightfield)
material       mu_torsional, mu_rolling [-], ke [N/m], kd [N s/m]
joint          armature [kg m^2 | kg], damping, friction_static, friction_dynamic, viscous_damping,
               velocity_limit [rad/s | m/s], limit_ke, limit_kd, spring_stiffness, spring_ref,
               ref (the coordinate of the authored pose)
               (joint keys are resolved per DOF; ``{axis}`` in a name is the DOF's axis token)
articulation   self_collision_enabled [bool]
actuator       gear (6,), ctrl_range_min/max, ctrl_limited, force_range_min/max, force_limited,
               gain_type, gain_prm, bias_type, bias_prm, dyn_type, dyn_prm, armature
site           is_site [bool]
equality       solref (2,), solimp (5,), torquescale [m] (loop-closing joints and joint-equality prims)
tendon         stiffness [N/m], springlength (1 or 2,) [m], damping [N s/m], frictionloss [N], armature
               [kg], limited [bool or "true" / "false" / "auto"], range_min, range_max, margin [m],
               solref_limit (2,), solimp_limit (5,), solref_friction (2,), solimp_friction (5,)
=============  ==================================================================================

Example, a resolver for a hypothetical engine "foo"::

    class SchemaResolverFoo(SchemaResolver):
        name = "foo"
        namespaces = ("foo",)
        mapping = {
            "joint": {"armature": AttrSpec("foo:rotorInertia", default=0.0)},
            "shape": {"gap": AttrSpec("foo:skin", transform=lambda v, ctx: 2.0 * v)},
        }

    builder.add_usd("robot.usda", schema_resolvers=[SchemaResolverFoo(), SchemaResolverNewton()])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "AttrSpec",
    "SchemaResolver",
    "ResolveContext",
    "PRIM_KINDS",
    "per_degree",
    "degrees",
    "chain",
    "solref_stiffness",
    "solref_damping",
]

PRIM_KINDS = (
    "scene",
    "body",
    "shape",
    "material",
    "joint",
    "articulation",
    "actuator",
    "site",
    "equality",
    "tendon",
)


@dataclass(frozen=True)
class ResolveContext:
    """What a transformation may need to know about the value it converts.

    Attributes:
        axis: UsdPhysics axis token of the DOF ("angular", "linear", "transX" ... "rotZ"), else None.
        dof_token: NewtonJointAPI DOF token ("angle", "distance", "transX" ... "rotZ"), else None.
        angular: whether the DOF is rotational.
        newton_dofs: the prim's authored ``newton:dofs`` tokens (None when not authored).
        angle_degrees: whether MuJoCo angle-valued attributes are in degrees (``mjc:compiler:angle``).
    """

    axis: str | None = None
    dof_token: str | None = None
    angular: bool = False
    newton_dofs: tuple | None = None
    angle_degrees: bool = True


@dataclass(frozen=True)
class AttrSpec:
    """How one engine authors one newton_gym key.

    Attributes:
        names: attribute name, or several; ``{axis}`` is replaced by the DOF's axis token.
        transform: ``f(value, ctx) -> value`` into newton_gym semantics; returning None means "not
            authored" (the next resolver is asked). With ``combine`` the value is a list holding every
            name's value (None where not authored).
        default: the approximated schema default, already in newton_gym semantics (None: no default).
        expects: value kind checked on read ("float", "int", "bool", "token", "floats", "vec2", ...).
        combine: pass all names' values to ``transform`` instead of the first authored one.
    """

    names: Any
    transform: Callable | None = None
    default: Any = None
    expects: str = "float"
    combine: bool = False

    def attribute_names(self, ctx: ResolveContext | None = None) -> tuple:
        """The attribute names to read, ``{axis}`` replaced by the DOF's axis token (names that need an
        axis are dropped when there is none)."""
        names = (self.names,) if isinstance(self.names, str) else tuple(self.names)
        return _expand(names, None if ctx is None else ctx.axis)


@functools.lru_cache(maxsize=4096)
def _expand(names: tuple, axis: str | None) -> tuple:
    if axis is not None:
        names = tuple(n.replace("{axis}", axis) for n in names)
    return tuple(n for n in names if "{axis}" not in n)


class SchemaResolver:
    """Base class of schema resolvers; subclass it for your own engine.

    Class attributes:
        name: key of this resolver in ``result["schema_attrs"]`` and in provenance records.
        namespaces: attribute-name prefixes (the part before the first ':') collected into
            ``result["schema_attrs"][name]``.
        mapping: ``{prim kind: {key: AttrSpec}}`` (prim kinds in PRIM_KINDS).
    """

    name: ClassVar[str] = "base"
    namespaces: ClassVar[tuple] = ()
    mapping: ClassVar[dict] = {}

    def spec(self, kind: str, key: str) -> AttrSpec | None:
        """The AttrSpec this resolver declares for ``key`` of prim kind ``kind``, or None."""
        return self.mapping.get(kind, {}).get(key)

    def collects(self, attribute_name: str) -> bool:
        """Whether ``attribute_name`` belongs to one of this resolver's namespaces."""
        return attribute_name.split(":", 1)[0] in self.namespaces

    def read(self, attrs, spec: AttrSpec, ctx: ResolveContext):
        """Read ``spec`` from a prim's :class:`~newton_gym.usd.prims.PrimAttrs`.

        Returns:
            (value, attribute name) of the first authored, transformed value, or (None, None).
        """
        names = spec.attribute_names(ctx)
        if spec.combine:
            values = [attrs.get(n, spec.expects) for n in names]
            if all(v is None for v in values):
                return None, None
            value = spec.transform(values, ctx) if spec.transform else values
            return (
                (value, "+".join(n for n, v in zip(names, values) if v is not None))
                if value is not None
                else (None, None)
            )
        for n in names:
            value = attrs.get(n, spec.expects)
            if value is None:
                continue
            if spec.transform is not None:
                value = spec.transform(value, ctx)
            if value is not None:
                return value, n
        return None, None

    def __repr__(self):
        return f"{type(self).__name__}()"


# ----------------------------------------------------------------------------- shared transformations
def per_degree(value, ctx: ResolveContext):
    """A gain per degree (or per degree/s) -> per radian on angular DOFs; linear DOFs unchanged."""
    return value * (180.0 / math.pi) if ctx.angular else value


def degrees(value, ctx: ResolveContext):
    """An angle or angular rate in degrees -> radians on angular DOFs; linear DOFs unchanged."""
    return value * (math.pi / 180.0) if ctx.angular else value


def chain(*fns):
    """Compose transformations left to right; a None result stops the chain."""

    def run(value, ctx):
        for fn in fns:
            if value is None:
                return None
            value = fn(value, ctx)
        return value

    return run


def _solref(solref):
    """MuJoCo solref -> (stiffness, damping): k = 1 / (timeconst^2 dampratio^2), b = 2 / timeconst;
    both negative encode (-k, -b) directly (MuJoCo documentation, "Solver parameters")."""
    tc, dr = float(solref[0]), float(solref[1])
    if tc < 0.0 and dr < 0.0:
        return -tc, -dr
    if tc <= 0.0 or dr <= 0.0:
        return None, None
    return 1.0 / (tc * tc * dr * dr), 2.0 / tc


def solref_stiffness(value, ctx=None):
    """Stiffness from a MuJoCo solref (timeconst, dampratio)."""
    return _solref(value)[0]


def solref_damping(value, ctx=None):
    """Damping from a MuJoCo solref (timeconst, dampratio)."""
    return _solref(value)[1]
