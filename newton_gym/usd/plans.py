"""Plans: what the import stages decide before anything is written into the builder.

The stages fill these plain records from the UsdPhysics descriptors (already in SI units and in the
builder's frame); :mod:`.emit` writes them into the ModelBuilder in one pass, parents first. Keeping
the plan separate lets the topology and fixed-joint collapse work without touching the builder.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..sim.hostmath import transform_identity
from ..sim.joint_config import JointDofConfig
from ..sim.shape_config import ShapeConfig
from ..sim.types import GeoType, JointType

__all__ = ["ShapePlan", "BodyPlan", "DofPlan", "JointPlan", "Component"]


@dataclass
class ShapePlan:
    """One collider.

    Attributes:
        path: collider prim path.
        geo: GeoType.
        xform: (7,) pose in the body frame [m] (world frame for a static shape), axis-aligned to Z.
        size: (3,) the builder's per-type size (sphere r; box half extents; capsule/cylinder/cone
            r, half_height; plane 0, 0; mesh scale; heightfield 1, 1, 1) [m].
        mesh: newton_gym.Mesh for MESH shapes (vertices in metres), newton_gym.Heightfield for HFIELD ones.
        cfg: ShapeConfig (density [kg/m^3], friction, contact parameters).
        body: body prim path, None for a static shape.
        contype / conaffinity: MuJoCo collision bitmasks (None when not authored).
        groups: UsdPhysics collision group paths; filtered: FilteredPairsAPI targets.
    """

    path: str
    geo: GeoType
    xform: np.ndarray
    size: np.ndarray
    mesh: object = None
    cfg: ShapeConfig = field(default_factory=ShapeConfig)
    body: str | None = None
    contype: int | None = None
    conaffinity: int | None = None
    groups: tuple = ()
    filtered: tuple = ()


@dataclass
class BodyPlan:
    """One rigid body.

    Attributes:
        pose: (7,) initial body-origin pose in the builder's world [m, quat xyzw].
        mass [kg], com (3,) [m] in the body frame, inertia (3, 3) [kg m^2] about the COM, body frame.
        velocity: (6,) COM linear [m/s] then angular [rad/s] velocity, world frame.
        extras: per-body values the builder has no column for (gravity_enabled, linear_damping, ...).
    """

    path: str
    pose: np.ndarray
    kinematic: bool = False
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(6))
    shapes: list = field(default_factory=list)
    extras: dict = field(default_factory=dict)
    filtered: tuple = ()
    merged: list = field(default_factory=list)  # body paths collapsed into this one


@dataclass
class DofPlan:
    """One joint DOF: its builder config plus its USD axis token and initial state [rad | m]."""

    cfg: JointDofConfig
    token: str
    angular: bool
    q0: float = 0.0
    qd0: float = 0.0


@dataclass
class JointPlan:
    """One joint, parent -> child. ``parent`` None is the world; ``path`` None marks a joint the
    importer added (the free or fixed joint of a root body without one)."""

    path: str | None
    key: str
    type: JointType
    parent: str | None
    child: str
    parent_xform: np.ndarray = field(default_factory=transform_identity)
    child_xform: np.ndarray = field(default_factory=transform_identity)
    linear: list = field(default_factory=list)
    angular: list = field(default_factory=list)
    enabled: bool = True
    filter_parent: bool = True
    excluded: bool = False
    order: int = 0

    def flip(self):
        """Swap parent and child. Negating the axes keeps the joint coordinate, its limits and targets:
        the relative motion of frame 0 in frame 1 is the motion of frame 1 in frame 0 reversed."""
        self.parent, self.child = self.child, self.parent
        self.parent_xform, self.child_xform = self.child_xform, self.parent_xform
        for d in self.linear + self.angular:
            d.cfg = replace(d.cfg, axis=tuple(-np.asarray(d.cfg.axis_vec())))


@dataclass
class Component:
    """Bodies connected by joints: one builder articulation.

    Attributes:
        bodies: body paths, parents before children.
        joints: the root joint (to the world) first, then tree joints, parents first.
        articulation_prim: the ArticulationRootAPI prim that holds these bodies, if any.
        key: articulation key.
    """

    bodies: list
    joints: list
    articulation_prim: str | None = None
    key: str | None = None
