"""Engine-neutral description of an articulated robot, the hand-off between the MuJoCo extraction
(:mod:`.mujoco_extract`) and the USD writer (:mod:`.usd_robot`).

All values are SI (m, kg, s, rad) and float64; quaternions are ``(w, x, y, z)``. Names are already
valid, unique USD prim names within their scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..sim.heightfield import Heightfield

__all__ = [
    "GeomDesc",
    "SiteDesc",
    "MeshDesc",
    "BodyDesc",
    "DriveDesc",
    "JointDesc",
    "ActuatorDesc",
    "TendonDesc",
    "EqualityDesc",
    "SceneDesc",
    "RobotDesc",
]


def _zeros(n: int):
    return field(default_factory=lambda: np.zeros(n))


@dataclass
class MeshDesc:
    """Triangle mesh data.

    Attributes:
        name: Prim name of the mesh in the mesh layer.
        points: (vertex_count, 3) vertex positions [m] in the mesh frame.
        faces: (face_count, 3) vertex indices of each triangle.
        maxhullvert: MuJoCo's limit on the vertices of the mesh's collision hull (-1: none).
    """

    name: str
    points: np.ndarray
    faces: np.ndarray
    maxhullvert: int = -1


@dataclass
class GeomDesc:
    """A geometric shape attached to a body (or to the world).

    Attributes:
        name: Prim name, unique within its body.
        kind: "sphere", "capsule", "cylinder", "box", "ellipsoid", "plane", "mesh" or "hfield".
        size: (3,) MuJoCo ``geom_size``: radius / half-length / half-extents [m].
        pos: (3,) position in the body frame [m].
        quat: (4,) orientation in the body frame.
        mesh: Index into ``RobotDesc.meshes`` for kind "mesh", else None.
        heightfield: The :class:`~newton_gym.sim.heightfield.Heightfield` of kind "hfield" (static
            geoms only), in the geom frame; else None.
        collider: Written with ``UsdPhysics.CollisionAPI``.
        guide: Written with purpose "guide" (a collider shadowed by separate visual geometry).
        approximation: ``physics:approximation`` token for mesh colliders.
        friction: (3,) sliding [-], torsional [m], rolling [m] friction.
        solref: (2,) MuJoCo contact ``solref``.
        solimp: (5,) MuJoCo contact ``solimp``.
        margin, gap: Contact margin and gap [m].
        condim, contype, conaffinity, priority, group: MuJoCo integers.
        solmix: MuJoCo contact mixing weight [-].
        rgba: (4,) display colour and opacity.
    """

    name: str
    kind: str
    size: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    mesh: int | None = None
    heightfield: Heightfield | None = None
    collider: bool = True
    guide: bool = False
    approximation: str = "convexHull"
    friction: np.ndarray = _zeros(3)
    solref: np.ndarray = _zeros(2)
    solimp: np.ndarray = _zeros(5)
    margin: float = 0.0
    gap: float = 0.0
    condim: int = 3
    contype: int = 1
    conaffinity: int = 1
    priority: int = 0
    group: int = 0
    solmix: float = 1.0
    rgba: np.ndarray = field(default_factory=lambda: np.array([0.5, 0.5, 0.5, 1.0]))


@dataclass
class SiteDesc:
    """A named frame fixed to a body (or to the world), MuJoCo's ``<site>``.

    Attributes:
        name: Prim name, unique within its body (geoms included).
        pos: (3,) position in the body frame [m] (world frame for world sites).
        quat: (4,) orientation in the body frame.
        mujoco_id: Index of the MuJoCo site (what tendon paths refer to), None for other sources.
    """

    name: str
    pos: np.ndarray
    quat: np.ndarray
    mujoco_id: int | None = None


@dataclass
class BodyDesc:
    """A rigid body, posed in the world frame at the model's reference configuration (qpos0).

    Attributes:
        name: Prim name under the robot root.
        pos: (3,) world position of the body frame [m].
        quat: (4,) world orientation of the body frame.
        mass: Mass [kg] (0 for the massless links of stacked joints).
        com: (3,) centre of mass in the body frame [m].
        inertia: (3,) principal moments of inertia about the COM [kg m^2].
        principal_axes: (4,) orientation of the principal axes in the body frame.
        geoms: Shapes attached to the body.
        sites: Named frames attached to the body.
        filtered: Indices of bodies whose contacts with this one are disabled.
    """

    name: str
    pos: np.ndarray
    quat: np.ndarray
    mass: float = 0.0
    com: np.ndarray = _zeros(3)
    inertia: np.ndarray = _zeros(3)
    principal_axes: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))
    geoms: list[GeomDesc] = field(default_factory=list)
    sites: list[SiteDesc] = field(default_factory=list)
    filtered: list[int] = field(default_factory=list)


@dataclass
class DriveDesc:
    """A joint drive (PD controller), in SI per-radian units.

    Attributes:
        drive_type: "force" or "acceleration".
        stiffness: [N m/rad] or [N/m].
        damping: [N m s/rad] or [N s/m].
        max_force: Effort limit [N m] or [N]; inf for none.
    """

    drive_type: str
    stiffness: float
    damping: float
    max_force: float = float("inf")


@dataclass
class JointDesc:
    """A joint between two bodies, defined by one frame on each (the frames coincide when the joint
    coordinate equals MuJoCo's ``qpos``; for revolute and prismatic joints the frames' X axis is the
    joint axis).

    Attributes:
        name: Prim name under the robot's ``joints`` scope.
        kind: "revolute", "prismatic", "spherical" or "fixed".
        body0: Index of the parent body, None for the world.
        body1: Index of the child body.
        pos0, quat0: (3,), (4,) joint frame in body0's frame (world frame when body0 is None).
        pos1, quat1: (3,), (4,) joint frame in body1's frame.
        limited: Whether ``lower``/``upper`` apply.
        lower, upper: Joint range [rad] or [m]; for "spherical", ``upper`` is the cone angle [rad].
        damping, armature, frictionloss, stiffness, springref, ref, margin: MuJoCo joint/dof values in
            SI units (per radian for angular quantities).
        solreflimit, solimplimit, solreffriction, solimpfriction: MuJoCo solver parameters.
        actfrclimited, actfrcrange: MuJoCo joint actuator-force clamping.
        group: MuJoCo joint group.
        drive: Optional PD drive.
        initial: Start coordinate [rad] or [m]: the MJCF's ``home`` keyframe, else MuJoCo's qpos0 (the joint's
            ``ref``) where it is not 0; None for 0.
        mujoco_id: Index of the MuJoCo joint, None for synthetic fixed joints.
    """

    name: str
    kind: str
    body0: int | None
    body1: int
    pos0: np.ndarray
    quat0: np.ndarray
    pos1: np.ndarray
    quat1: np.ndarray
    limited: bool = False
    lower: float = -np.inf
    upper: float = np.inf
    damping: float = 0.0
    armature: float = 0.0
    frictionloss: float = 0.0
    stiffness: float = 0.0
    springref: float = 0.0
    ref: float = 0.0
    margin: float = 0.0
    solreflimit: np.ndarray = _zeros(2)
    solimplimit: np.ndarray = _zeros(5)
    solreffriction: np.ndarray = _zeros(2)
    solimpfriction: np.ndarray = _zeros(5)
    actfrclimited: bool = False
    actfrcrange: np.ndarray = _zeros(2)
    group: int = 0
    drive: DriveDesc | None = None
    mujoco_id: int | None = None
    initial: float | None = None


@dataclass
class ActuatorDesc:
    """A MuJoCo actuator acting on one joint or on one tendon.

    Attributes:
        name: Prim name under the robot's ``actuators`` scope.
        joint: Index into ``RobotDesc.joints`` of the driven joint; None for a tendon actuator.
        gear: (6,) transmission gear.
        ctrllimited, ctrlrange: Control clamping and its (2,) range.
        forcelimited, forcerange: Force clamping and its (2,) range [N m] or [N].
        actlimited, actrange: Activation clamping and its (2,) range.
        gaintype, biastype, dyntype: MuJoCo tokens ("fixed", "affine", "none", ...).
        gainprm, biasprm, dynprm: (10,) MuJoCo parameters.
        group: MuJoCo actuator group.
        joint_in_parent: MuJoCo ``jointinparent`` transmission.
        tendon: Index into ``RobotDesc.tendons`` of the driven tendon (MuJoCo's tendon transmission), else
            None.
        actearly: MuJoCo ``actearly``: the force uses the next activation.
    """

    name: str
    joint: int | None
    gear: np.ndarray
    ctrllimited: bool
    ctrlrange: np.ndarray
    forcelimited: bool
    forcerange: np.ndarray
    actlimited: bool
    actrange: np.ndarray
    gaintype: str
    biastype: str
    dyntype: str
    gainprm: np.ndarray
    biasprm: np.ndarray
    dynprm: np.ndarray
    group: int = 0
    joint_in_parent: bool = False
    tendon: int | None = None
    actearly: bool = False


@dataclass
class TendonDesc:
    """A MuJoCo tendon the USD can hold: fixed (a linear combination of joint coordinates) or spatial
    through sites only (straight segments between them).

    Attributes:
        name: Prim name under the robot's ``tendons`` scope.
        kind: "fixed" or "spatial".
        joints: Indices into ``RobotDesc.joints`` of a fixed tendon's joints (single-DOF ones).
        coefs: (len(joints),) length = sum coefs[i] q_i [m/rad for revolute joints, - for prismatic ones].
        sites: A spatial tendon's sites in path order, each as (index into ``RobotDesc.bodies``, or None for
            the world; the site's name in that body's ``sites`` or in ``RobotDesc.world_sites``).
        stiffness: Spring stiffness [N/m].
        springlength: (2,) lower and upper spring rest length [m] (MuJoCo's compiled ``tendon_lengthspring``).
        damping: [N s/m]; frictionloss: dry friction [N]; armature: inertia along the tendon [kg].
        limited: Whether ``range`` applies; range: (2,) length limits [m]; margin: limit margin [m].
        solreflimit, solimplimit, solreffriction, solimpfriction: MuJoCo solver parameters.
        group: MuJoCo tendon group.
    """

    name: str
    kind: str
    joints: list[int] = field(default_factory=list)
    coefs: np.ndarray = _zeros(0)
    sites: list[tuple[int | None, str]] = field(default_factory=list)
    stiffness: float = 0.0
    springlength: np.ndarray = _zeros(2)
    damping: float = 0.0
    frictionloss: float = 0.0
    armature: float = 0.0
    limited: bool = False
    range: np.ndarray = _zeros(2)
    margin: float = 0.0
    solreflimit: np.ndarray = field(default_factory=lambda: np.array([0.02, 1.0]))
    solimplimit: np.ndarray = field(default_factory=lambda: np.array([0.9, 0.95, 0.001, 0.5, 2.0]))
    solreffriction: np.ndarray = field(default_factory=lambda: np.array([0.02, 1.0]))
    solimpfriction: np.ndarray = field(default_factory=lambda: np.array([0.9, 0.95, 0.001, 0.5, 2.0]))
    group: int = 0


@dataclass
class EqualityDesc:
    """A MuJoCo equality constraint the USD can hold (connect, weld, joint or tendon).

    Connect and weld are described like a joint, by one frame on each side (body0 is MuJoCo's body2,
    body1 MuJoCo's body1; site-based ones are already in their bodies' frames): a connect holds the two
    frames' origins together, a weld the whole frames. A joint equality holds
    ``q1 = polycoef[0] + polycoef[1] q2 + ... + polycoef[4] q2^4`` in the joints' own coordinates (MuJoCo's
    qpos, not its offsets from qpos0).

    Attributes:
        name: Prim name under the robot's ``equalities`` scope.
        kind: "connect", "weld", "joint" or "tendon".
        body0, body1: Indices into ``RobotDesc.bodies`` (None: the world); connect and weld.
        pos0, quat0: (3,), (4,) frame in body0's frame (world frame when body0 is None) [m].
        pos1, quat1: (3,), (4,) frame in body1's frame [m].
        joint1, joint2: Indices into ``RobotDesc.joints`` of the constrained and the leading joint (joint2
            None: q1 is held at ``polycoef[0]``); joint equalities.
        tendon1, tendon2: Indices into ``RobotDesc.tendons`` of the constrained and the leading tendon
            (tendon2 None: L1 is held at ``polycoef[0]``); tendon equalities, which hold
            ``L1 = polycoef(L2)`` in the tendons' lengths (MuJoCo's polynomial in the offsets from the
            lengths at qpos0, re-expanded).
        polycoef: (5,) coefficients, constant first (coefficient k in q1's unit per q2's unit^k); joint
            and tendon equalities.
        torquescale: MuJoCo's weld torquescale [m]: weight of the rotation residual against the position one.
        solref: (2,) MuJoCo solref (time constant [s], damping ratio [-]).
        solimp: (5,) MuJoCo solimp.
        active: MuJoCo's ``eq_active0``: whether the constraint starts switched on.
    """

    name: str
    kind: str
    body0: int | None = None
    body1: int | None = None
    pos0: np.ndarray = _zeros(3)
    quat0: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))
    pos1: np.ndarray = _zeros(3)
    quat1: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))
    joint1: int | None = None
    joint2: int | None = None
    tendon1: int | None = None
    tendon2: int | None = None
    polycoef: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0, 0.0, 0.0]))
    torquescale: float = 1.0
    solref: np.ndarray = field(default_factory=lambda: np.array([0.02, 1.0]))
    solimp: np.ndarray = field(default_factory=lambda: np.array([0.9, 0.95, 0.001, 0.5, 2.0]))
    active: bool = True


@dataclass
class SceneDesc:
    """Global simulation settings.

    Attributes:
        gravity: (3,) gravity acceleration [m/s^2].
        timestep: Simulation step [s], or None when the source does not define one.
        iterations, ls_iterations: Solver iteration limits.
        tolerance, impratio: Solver tolerance and elliptic-cone impedance ratio.
        noslip_iterations, noslip_tolerance: MuJoCo's noslip pass (sweeps after the main solve; 0: none) and
            its stopping tolerance.
        integrator, solver, cone: MuJoCo tokens ("euler", "rk4", ...; "pgs", "cg", "newton";
            "pyramidal", "elliptic").
        density, viscosity, wind: the fluid medium [kg/m^3], [Pa s], (3,) [m/s] (MuJoCo's ``<option density
            viscosity wind>``; zero: none).
        gravity_enabled: False where MuJoCo's ``<flag gravity="disable">`` switches gravity off.
        contact_enabled: False where MuJoCo's ``<flag contact="disable">`` (or ``constraint="disable"``)
            switches contacts off: every collider is written with ``physics:collisionEnabled = false``.
    """

    gravity: np.ndarray
    timestep: float | None = None
    iterations: int = 100
    ls_iterations: int = 50
    tolerance: float = 1e-8
    impratio: float = 1.0
    noslip_iterations: int = 0
    noslip_tolerance: float = 1e-6
    integrator: str = "euler"
    solver: str = "newton"
    cone: str = "pyramidal"
    density: float = 0.0
    viscosity: float = 0.0
    wind: np.ndarray = field(default_factory=lambda: np.zeros(3))
    gravity_enabled: bool = True
    contact_enabled: bool = True


@dataclass
class RobotDesc:
    """A whole robot.

    Attributes:
        name: Prim name of the robot root.
        bodies: Bodies in writing order (MuJoCo body order, massless links just before their body).
        joints: Joints in writing order (MuJoCo joint order, fixed joints where their body comes).
        world_geoms: Shapes attached to the world (static colliders).
        world_sites: Named frames fixed in the world.
        meshes: Mesh data referenced by ``GeomDesc.mesh``.
        actuators: Actuators in MuJoCo order.
        tendons: Tendons in MuJoCo order (those USD can hold).
        equalities: Equality constraints in MuJoCo order (those USD can hold).
        scene: Global settings.
        self_collision: Written as ``newton:selfCollisionEnabled`` unless None.
    """

    name: str
    bodies: list[BodyDesc] = field(default_factory=list)
    joints: list[JointDesc] = field(default_factory=list)
    world_geoms: list[GeomDesc] = field(default_factory=list)
    world_sites: list[SiteDesc] = field(default_factory=list)
    meshes: list[MeshDesc] = field(default_factory=list)
    actuators: list[ActuatorDesc] = field(default_factory=list)
    tendons: list[TendonDesc] = field(default_factory=list)
    equalities: list[EqualityDesc] = field(default_factory=list)
    scene: SceneDesc = field(default_factory=lambda: SceneDesc(np.array([0.0, 0.0, -9.81])))
    self_collision: bool | None = None
