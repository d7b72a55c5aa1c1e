"""Per-DOF joint settings and the writing of joint rows into the builder's tables."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from ..errors import ModelBuildError, ModelBuildTypeError
from .hostmath import normalize_transform, transform_inverse, transform_mul
from .types import Axis, JointType, joint_coord_count, joint_dof_count

__all__ = ["JointDofConfig", "write_joint"]


@dataclass
class JointDofConfig:
    """Settings of one joint DOF. Angular quantities per radian, linear per metre.

    Attributes:
        axis: (3,) axis in the parent joint frame (normalised on use).
        limit_lower, limit_upper: position limits [rad or m]; +-1e10 means unlimited.
        limit_ke, limit_kd: limit stiffness [N m/rad or N/m] and damping [N m s/rad or N s/m].
        target_pos, target_vel: PD drive targets [rad, rad/s or m, m/s].
        target_ke, target_kd: PD drive gains (0 disables the drive).
        armature: added rotor inertia [kg m^2 or kg].
        effort_limit: drive effort bound [N m or N].
        velocity_limit: joint speed bound [rad/s or m/s].
        friction_static: NewtonJointAPI staticFrictionEffort [N m or N]: breakaway effort at rest.
        friction_dynamic: dynamicFrictionEffort [N m or N]: Coulomb effort while moving.
        viscous_damping: viscousDamping [N m s/rad or N s/m] of the friction law.
        damping: passive joint damping [N m s/rad or N s/m] (MuJoCo's dof_damping).
        spring_stiffness, spring_ref: passive spring (MuJoCo's stiffness / springref).
        ref: the coordinate at which the bodies are posed as authored (MuJoCo's joint ref, its qpos0) [rad or
            m]; the solver evaluates MuJoCo's constraint weights (body_invweight0, dof_invweight0) there.
    """

    axis: tuple = (1.0, 0.0, 0.0)
    limit_lower: float = -1e10
    limit_upper: float = 1e10
    limit_ke: float = 1e4
    limit_kd: float = 1e1
    target_pos: float = 0.0
    target_vel: float = 0.0
    target_ke: float = 0.0
    target_kd: float = 0.0
    armature: float = 0.0
    effort_limit: float = 1e10
    velocity_limit: float = 1e10
    friction_static: float = 0.0
    friction_dynamic: float = 0.0
    viscous_damping: float = 0.0
    damping: float = 0.0
    spring_stiffness: float = 0.0
    spring_ref: float = 0.0
    ref: float = 0.0

    @classmethod
    def make(cls, axis=None, **kwargs) -> JointDofConfig:
        """Build a config from keyword arguments; ``friction`` is accepted for friction_static."""
        if "friction" in kwargs:
            kwargs.setdefault("friction_static", kwargs.pop("friction"))
        known = {f.name for f in fields(cls)}
        unknown = set(kwargs) - known
        if unknown:
            raise ModelBuildTypeError(f"unknown joint DOF argument(s) {sorted(unknown)}; valid: {sorted(known)}")
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        cfg = cls(**kwargs)
        if axis is not None:
            cfg = replace(cfg, axis=axis)
        return cfg

    def axis_vec(self) -> np.ndarray:
        a = self.axis
        if isinstance(a, (Axis, str)) or (isinstance(a, int) and not isinstance(a, bool)):
            a = Axis.from_any(a).to_vec3()
        v = np.asarray(a, dtype=np.float64).reshape(3)
        n = np.linalg.norm(v)
        if not np.isfinite(n) or n < 1e-9:
            raise ModelBuildError(f"joint axis {self.axis!r} has zero length")
        return v / n


def _initial_coords(joint_type, parent_pose, child_pose, parent_xform, child_xform, d6_count):
    if joint_type in (JointType.FREE, JointType.DISTANCE):
        # Free coordinates are the child joint frame relative to the parent joint frame.
        x_pj = transform_mul(parent_pose, parent_xform)
        x_cj = transform_mul(child_pose, child_xform)
        return list(transform_mul(transform_inverse(x_pj), x_cj))
    if joint_type == JointType.BALL:
        return [0.0, 0.0, 0.0, 1.0]
    return [0.0] * joint_coord_count(joint_type, d6_count)


def write_joint(
    tables,
    scope_world,
    joint_type,
    parent,
    child,
    parent_xform,
    child_xform,
    linear: list,
    angular: list,
    label=None,
    enabled=True,
    filter_parent=True,
) -> int:
    """Validate and append one joint with its DOF and coordinate rows. Returns the joint index."""
    bodies = tables["body"]
    joint_index = tables["joint"].count
    name = label or f"#{joint_index}"
    if not (0 <= child < bodies.count):
        raise ModelBuildError(f"joint {name}: child body {child} does not exist ({bodies.count} bodies)")
    if not (-1 <= parent < bodies.count):
        raise ModelBuildError(f"joint {name}: parent body {parent} does not exist ({bodies.count} bodies)")
    if parent == child:
        raise ModelBuildError(f"joint {name}: parent and child are the same body {child}")
    if parent > child:
        raise ModelBuildError(
            f"joint {name}: parent body {parent} was added after its child body {child}; add parents "
            "first (the articulation tree must be ordered parent before child)"
        )
    child_world = int(bodies.value("world", child))
    parent_world = int(bodies.value("world", parent)) if parent >= 0 else scope_world
    if (
        child_world != scope_world
        or parent_world not in (scope_world, -1)
        or (parent >= 0 and parent_world != child_world)
    ):
        raise ModelBuildError(
            f"joint {name} spans worlds: it is added in world {scope_world} but connects parent body "
            f"{parent} (world {parent_world}) and child body {child} (world {child_world})"
        )
    pxf = normalize_transform(parent_xform)
    cxf = normalize_transform(child_xform)
    d6 = len(linear) + len(angular)
    if joint_type == JointType.D6 and (len(linear) > 3 or len(angular) > 3):
        raise ModelBuildError(f"joint {name}: a D6 joint has at most 3 linear and 3 angular axes")
    parent_pose = bodies.value("q", parent) if parent >= 0 else np.array([0, 0, 0, 0, 0, 0, 1.0])
    coords = _initial_coords(JointType(joint_type), parent_pose, bodies.value("q", child), pxf, cxf, d6)
    dof_cfgs = list(linear) + list(angular)
    if len(dof_cfgs) != joint_dof_count(joint_type, d6):
        raise ModelBuildError(
            f"joint {name}: {len(dof_cfgs)} DOF configs for a {JointType(joint_type).name} "
            f"joint with {joint_dof_count(joint_type, d6)} DOFs"
        )
    tables["joint"].add_row(
        label,
        type=int(joint_type),
        parent=parent,
        child=child,
        parent_xform=pxf,
        child_xform=cxf,
        q_start=tables["coord"].count,
        qd_start=tables["dof"].count,
        lin_count=len(linear),
        ang_count=len(angular),
        enabled=bool(enabled),
        filter_parent=bool(filter_parent),
        world=scope_world,
    )
    for cfg in dof_cfgs:
        if cfg.limit_lower > cfg.limit_upper:
            raise ModelBuildError(f"joint {name}: limit_lower {cfg.limit_lower} > limit_upper {cfg.limit_upper}")
        row = {f.name: getattr(cfg, f.name) for f in fields(cfg)}
        row["axis"] = cfg.axis_vec()
        tables["dof"].add_row(None, joint=joint_index, **row)
    for c in coords:
        tables["coord"].add_row(None, q=float(c), joint=joint_index)
    return joint_index
