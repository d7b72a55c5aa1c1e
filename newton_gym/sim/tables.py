"""Column layouts of the builder's entity tables (one :class:`ColumnTable` per entity kind).

Units: lengths m, masses kg, inertia kg m^2, angles rad, linear stiffness N/m, angular N m/rad.
Transforms are 7-vectors (p, q xyzw).
"""

from __future__ import annotations

import numpy as np

from .columns import Column, ColumnTable

__all__ = ["ENTITY_KINDS", "KIND_NAMES", "make_tables", "MUJOCO_SOLREF", "MUJOCO_SOLIMP"]

_f = np.float64
_i = np.int32
_b = np.bool_
_IDENT7 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
MUJOCO_SOLREF = (0.02, 1.0)
MUJOCO_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)

PARTICLE = (
    Column("q", _f, (3,), (0.0, 0.0, 0.0)),
    Column("qd", _f, (3,), (0.0, 0.0, 0.0)),
    Column("mass", _f, (), 0.0),
    Column("radius", _f, (), 0.1),
    Column("flags", _i, (), 1),
    Column("world", _i, (), -1, remap="world"),
)

BODY = (
    Column("q", _f, (7,), _IDENT7),
    Column("qd", _f, (6,), (0.0,) * 6),
    Column("mass", _f, (), 0.0),
    Column("com", _f, (3,), (0.0, 0.0, 0.0)),
    Column("inertia", _f, (3, 3), np.zeros((3, 3))),
    # Whether mass / com / inertia were given explicitly (else accumulated from shape density).
    Column("mass_given", _b, (), False),
    Column("com_given", _b, (), False),
    Column("inertia_given", _b, (), False),
    Column("kinematic", _b, (), False),
    Column("world", _i, (), -1, remap="world"),
)

SHAPE = (
    Column("body", _i, (), -1, remap="body"),
    Column("type", _i, (), 0),
    Column("xform", _f, (7,), _IDENT7),
    # Type-specific size: sphere (r, 0, 0); box (hx, hy, hz); capsule/cylinder/cone (r, half_height, 0);
    # plane (width, length, 0), 0 = infinite; mesh (sx, sy, sz) scale.
    Column("scale", _f, (3,), (1.0, 1.0, 1.0)),
    Column("mesh", _i, (), -1, remap="mesh"),
    Column("heightfield", _i, (), -1, remap="heightfield"),
    Column("density", _f, (), 1000.0),
    Column("mu", _f, (), 1.0),
    Column("mu_torsional", _f, (), 0.005),
    Column("mu_rolling", _f, (), 0.0001),
    Column("restitution", _f, (), 0.0),
    Column("ke", _f, (), 0.0),
    Column("kd", _f, (), 0.0),
    Column("solref", _f, (2,), MUJOCO_SOLREF),
    Column("solimp", _f, (5,), MUJOCO_SOLIMP),
    Column("margin", _f, (), 0.0),
    Column("gap", _f, (), 0.0),
    Column("condim", _i, (), 3),
    Column("priority", _i, (), 0),
    Column("collision_group", _i, (), -1),
    Column("collide", _b, (), True),
    Column("visible", _b, (), True),
    Column("world", _i, (), -1, remap="world"),
)

JOINT = (
    Column("type", _i, (), 0),
    Column("parent", _i, (), -1, remap="body"),
    Column("child", _i, (), -1, remap="body"),
    Column("parent_xform", _f, (7,), _IDENT7),
    Column("child_xform", _f, (7,), _IDENT7),
    Column("q_start", _i, (), 0, remap="coord"),
    Column("qd_start", _i, (), 0, remap="dof"),
    Column("lin_count", _i, (), 0),
    Column("ang_count", _i, (), 0),
    Column("articulation", _i, (), -1, remap="articulation"),
    Column("enabled", _b, (), True),
    Column("filter_parent", _b, (), True),
    Column("world", _i, (), -1, remap="world"),
)

JOINT_DOF = (
    Column("axis", _f, (3,), (1.0, 0.0, 0.0)),
    Column("limit_lower", _f, (), -1e10),
    Column("limit_upper", _f, (), 1e10),
    Column("limit_ke", _f, (), 1e4),
    Column("limit_kd", _f, (), 1e1),
    Column("target_pos", _f, (), 0.0),
    Column("target_vel", _f, (), 0.0),
    Column("target_ke", _f, (), 0.0),
    Column("target_kd", _f, (), 0.0),
    Column("armature", _f, (), 0.0),
    Column("effort_limit", _f, (), 1e10),
    Column("velocity_limit", _f, (), 1e10),
    Column("friction_static", _f, (), 0.0),
    Column("friction_dynamic", _f, (), 0.0),
    Column("viscous_damping", _f, (), 0.0),
    Column("damping", _f, (), 0.0),
    Column("spring_stiffness", _f, (), 0.0),
    Column("spring_ref", _f, (), 0.0),
    Column("ref", _f, (), 0.0),
    Column("qd", _f, (), 0.0),
    Column("joint", _i, (), -1, remap="joint"),
)

JOINT_COORD = (
    Column("q", _f, (), 0.0),
    Column("joint", _i, (), -1, remap="joint"),
)

ARTICULATION = (
    Column("joint_start", _i, (), 0, remap="joint"),
    Column("joint_end", _i, (), 0, remap="joint"),
    Column("self_collision", _b, (), True),
    Column("world", _i, (), -1, remap="world"),
)

EQUALITY = (
    Column("type", _i, (), 0),
    Column("body1", _i, (), -1, remap="body"),
    Column("body2", _i, (), -1, remap="body"),
    Column("anchor", _f, (3,), (0.0, 0.0, 0.0)),
    Column("relpose", _f, (7,), _IDENT7),
    Column("joint1", _i, (), -1, remap="joint"),
    Column("joint2", _i, (), -1, remap="joint"),
    Column("tendon1", _i, (), -1, remap="tendon"),
    Column("tendon2", _i, (), -1, remap="tendon"),
    Column("polycoef", _f, (5,), (0.0, 1.0, 0.0, 0.0, 0.0)),
    Column("torquescale", _f, (), 1.0),
    Column("solref", _f, (2,), MUJOCO_SOLREF),
    Column("solimp", _f, (5,), MUJOCO_SOLIMP),
    Column("enabled", _b, (), True),
    Column("world", _i, (), -1, remap="world"),
)

# Named frames fixed to a body (MuJoCo / MJCF sites): sensors, feet, command targets.
SITE = (
    Column("body", _i, (), -1, remap="body"),
    Column("xform", _f, (7,), _IDENT7),
    Column("world", _i, (), -1, remap="world"),
)

# Tendons (MuJoCo fixed and spatial tendons): each owns the path elements [wrap_start, wrap_end) of the
# TENDON_WRAP table (a joint and its coefficient for a fixed tendon, a site for a spatial one). Lengths m
# (a fixed tendon's length is sum coef q: m per unit of coef for slides, rad for hinges), forces N.
TENDON = (
    Column("type", _i, (), 0),
    Column("wrap_start", _i, (), 0, remap="tendon_wrap"),
    Column("wrap_end", _i, (), 0, remap="tendon_wrap"),
    Column("stiffness", _f, (), 0.0),
    Column("springlength", _f, (2,), (-1.0, -1.0)),
    Column("damping", _f, (), 0.0),
    Column("frictionloss", _f, (), 0.0),
    Column("limited", _b, (), False),
    Column("range", _f, (2,), (0.0, 0.0)),
    Column("margin", _f, (), 0.0),
    Column("solref_limit", _f, (2,), MUJOCO_SOLREF),
    Column("solimp_limit", _f, (5,), MUJOCO_SOLIMP),
    Column("solref_friction", _f, (2,), MUJOCO_SOLREF),
    Column("solimp_friction", _f, (5,), MUJOCO_SOLIMP),
    Column("armature", _f, (), 0.0),
    Column("world", _i, (), -1, remap="world"),
)

TENDON_WRAP = (
    Column("joint", _i, (), -1, remap="joint"),
    Column("site", _i, (), -1, remap="site"),
    Column("coef", _f, (), 0.0),
)

ENTITY_KINDS = {
    "particle": PARTICLE,
    "body": BODY,
    "shape": SHAPE,
    "joint": JOINT,
    "dof": JOINT_DOF,
    "coord": JOINT_COORD,
    "articulation": ARTICULATION,
    "equality": EQUALITY,
    "site": SITE,
    "tendon": TENDON,
    "tendon_wrap": TENDON_WRAP,
}

#: How messages name an entity of each kind that has rows of its own in a world (every kind but the DOFs,
#: coordinates and tendon path elements, which belong to their joint's or tendon's world), in world-order
#: check order.
KIND_NAMES = {
    "particle": "particle",
    "body": "body",
    "shape": "shape",
    "joint": "joint",
    "articulation": "articulation",
    "equality": "equality constraint",
    "site": "site",
    "tendon": "tendon",
}


def make_tables() -> dict[str, ColumnTable]:
    """A fresh, empty table for every entity kind."""
    return {kind: ColumnTable(columns) for kind, columns in ENTITY_KINDS.items()}
