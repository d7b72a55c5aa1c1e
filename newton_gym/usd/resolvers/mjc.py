"""SchemaResolverMjc: MuJoCo attributes (``mjc:`` namespace, MjcPhysics schemas and mujoco-usd-converter
output). MuJoCo joint gains are per radian already; angle-valued attributes (``mjc:springref``) follow
the scene's ``mjc:compiler:angle`` (degrees unless it says "radian")."""

from __future__ import annotations

import math
from typing import ClassVar

from .base import AttrSpec, SchemaResolver, solref_damping, solref_stiffness

__all__ = ["SchemaResolverMjc"]

_MJ_SOLIMP_TAIL = (0.5, 2.0)  # MuJoCo's defaults for solimp's optional width midpoint and power
_MJ_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def _timestep_rate(value, ctx=None):
    return 1.0 / value if value > 0.0 else None


def _enabled(value, ctx=None):
    """mjc:flag:gravity is a bool or the MJCF token "enable" / "disable"."""
    if isinstance(value, str):
        return value.lower() in ("enable", "true", "1")
    return bool(value)


def _margin(values, ctx=None):
    """Newton margin = mjc:margin - mjc:gap (seed 000)."""
    margin, gap = values
    return None if margin is None else margin - (gap or 0.0)


def _solimp(value, ctx=None):
    if len(value) not in (3, 5):
        return None
    return tuple(value) + (_MJ_SOLIMP_TAIL if len(value) == 3 else ())


def _solimp_checked(value, ctx=None):
    """MuJoCo's 3-value solimp completed with its defaults; any other length is passed on for the builder
    to reject (naming the prim), not dropped for the default."""
    return tuple(value) + (_MJ_SOLIMP_TAIL if len(value) == 3 else ())


def _as_tuple(value, ctx=None):
    return tuple(value)


def _numbers(value, ctx=None):
    """One number or an array of them, as a tuple."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _hull_limit(value, ctx=None):
    """MuJoCo's maxhullvert: -1 is no limit (MuJoCo's default), below 4 is invalid (left unresolved)."""
    return value if value == -1 or value >= 4 else None


def _mjc_angle(value, ctx):
    return value * math.pi / 180.0 if ctx.angular and ctx.angle_degrees else value


def _act(name, default, expects="float"):
    return AttrSpec(name, default=default, expects=expects)


class SchemaResolverMjc(SchemaResolver):
    """Resolver for MuJoCo-authored attributes: joint armature/damping/frictionloss/stiffness/springref,
    limit softness from ``mjc:solreflimit`` (k = 1/(tc^2 dr^2), b = 2/tc), contact margin/gap,
    solref/solimp/condim/contype/conaffinity, option timestep/iterations/density/viscosity/wind, MjcActuator
    parameters, the
    equality constraints' solref/solimp/torqueScale and the MjcTendon attributes."""

    name: ClassVar[str] = "mjc"
    namespaces: ClassVar[tuple] = ("mjc",)
    mapping: ClassVar[dict] = {
        "scene": {
            "time_steps_per_second": AttrSpec("mjc:option:timestep", _timestep_rate, default=500.0),
            "max_solver_iterations": AttrSpec("mjc:option:iterations", expects="int", default=100),
            "gravity_enabled": AttrSpec("mjc:flag:gravity", _enabled, expects="any", default=True),
            # MjcSceneAPI's fluid medium (no default: an unauthored medium leaves the builder's)
            "fluid_density": AttrSpec("mjc:option:density"),
            "fluid_viscosity": AttrSpec("mjc:option:viscosity"),
            "wind": AttrSpec("mjc:option:wind", _as_tuple, expects="vec3"),
        },
        "shape": {
            "margin": AttrSpec(("mjc:margin", "mjc:gap"), _margin, combine=True),
            "gap": AttrSpec("mjc:gap"),
            "condim": AttrSpec("mjc:condim", expects="int", default=3),
            "priority": AttrSpec("mjc:priority", expects="int", default=0),
            "solref": AttrSpec("mjc:solref", _as_tuple, expects="vec2", default=(0.02, 1.0)),
            "solimp": AttrSpec("mjc:solimp", _solimp, expects="floats", default=(0.9, 0.95, 0.001, 0.5, 2.0)),
            "contype": AttrSpec("mjc:contype", expects="int", default=1),
            "conaffinity": AttrSpec("mjc:conaffinity", expects="int", default=1),
            "max_hull_vertices": AttrSpec("mjc:maxhullvert", _hull_limit, expects="int"),
        },
        "material": {
            "mu_torsional": AttrSpec("mjc:torsionalfriction", default=0.005),
            "mu_rolling": AttrSpec("mjc:rollingfriction", default=0.0001),
        },
        "joint": {
            "armature": AttrSpec("mjc:armature", default=0.0),
            "damping": AttrSpec("mjc:damping", default=0.0),
            "friction_static": AttrSpec("mjc:frictionloss", default=0.0),
            "friction_dynamic": AttrSpec("mjc:frictionloss", default=0.0),
            "limit_ke": AttrSpec("mjc:solreflimit", solref_stiffness, expects="vec2"),
            "limit_kd": AttrSpec("mjc:solreflimit", solref_damping, expects="vec2"),
            "spring_stiffness": AttrSpec("mjc:stiffness", default=0.0),
            "spring_ref": AttrSpec("mjc:springref", _mjc_angle, default=0.0),
            "ref": AttrSpec("mjc:ref", _mjc_angle, default=0.0),
        },
        # MJCF <site>: an Xform the converter tags as a named frame (newton_gym.usd.stage_sites)
        "site": {"is_site": AttrSpec("mjc:site", expects="bool")},
        # MjcEqualityAPI / MjcEqualityWeldAPI (newton_gym.usd.stage_equalities)
        "equality": {
            "solref": AttrSpec("mjc:solref", _as_tuple, expects="vec2", default=(0.02, 1.0)),
            "solimp": AttrSpec("mjc:solimp", _solimp, expects="floats", default=(0.9, 0.95, 0.001, 0.5, 2.0)),
            "torquescale": AttrSpec("mjc:torqueScale", default=1.0),
        },
        # MjcTendon (newton_gym.usd.stage_tendons): MuJoCo's names; lengths in stage units
        "tendon": {
            "stiffness": AttrSpec("mjc:stiffness", default=0.0),
            "springlength": AttrSpec("mjc:springlength", _numbers, expects="float_or_floats", default=(-1.0, -1.0)),
            "damping": AttrSpec("mjc:damping", default=0.0),
            "frictionloss": AttrSpec("mjc:frictionloss", default=0.0),
            "armature": AttrSpec("mjc:armature", default=0.0),
            "limited": AttrSpec("mjc:limited", expects="any", default="auto"),
            "range_min": AttrSpec("mjc:range:min", default=0.0),
            "range_max": AttrSpec("mjc:range:max", default=0.0),
            "margin": AttrSpec("mjc:margin", default=0.0),
            "solref_limit": AttrSpec("mjc:solreflimit", _as_tuple, expects="vec2", default=(0.02, 1.0)),
            "solimp_limit": AttrSpec("mjc:solimplimit", _solimp_checked, expects="floats", default=_MJ_SOLIMP),
            "solref_friction": AttrSpec("mjc:solreffriction", _as_tuple, expects="vec2", default=(0.02, 1.0)),
            "solimp_friction": AttrSpec("mjc:solimpfriction", _solimp_checked, expects="floats", default=_MJ_SOLIMP),
        },
        "actuator": {
            "gear": _act("mjc:gear", (1.0, 0.0, 0.0, 0.0, 0.0, 0.0), "floats"),
            "ctrl_range_min": _act("mjc:ctrlRange:min", 0.0),
            "ctrl_range_max": _act("mjc:ctrlRange:max", 0.0),
            "ctrl_limited": _act("mjc:ctrlLimited", "auto", "any"),
            "force_range_min": _act("mjc:forceRange:min", 0.0),
            "force_range_max": _act("mjc:forceRange:max", 0.0),
            "force_limited": _act("mjc:forceLimited", "auto", "any"),
            "gain_type": _act("mjc:gainType", "fixed", "token"),
            "gain_prm": _act("mjc:gainPrm", (1.0,) + (0.0,) * 9, "floats"),
            "bias_type": _act("mjc:biasType", "none", "token"),
            "bias_prm": _act("mjc:biasPrm", (0.0,) * 10, "floats"),
            "dyn_type": _act("mjc:dynType", "none", "token"),
            "dyn_prm": _act("mjc:dynPrm", (1.0,) + (0.0,) * 9, "floats"),
            "act_limited": _act("mjc:actLimited", "auto", "any"),
            "act_range_min": _act("mjc:actRange:min", 0.0),
            "act_range_max": _act("mjc:actRange:max", 0.0),
            "act_early": _act("mjc:actEarly", False, "any"),
        },
    }
