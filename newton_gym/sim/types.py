"""Enumerations and small constants shared by the model layer."""

from __future__ import annotations

from enum import IntEnum

from ..errors import ModelBuildError

__all__ = [
    "Axis",
    "JointType",
    "GeoType",
    "EqType",
    "TendonType",
    "joint_dof_count",
    "joint_coord_count",
    "joint_constraint_count",
]


class Axis(IntEnum):
    """Coordinate axis, used for the up axis and for joint axes given by name."""

    X = 0
    Y = 1
    Z = 2

    @classmethod
    def from_any(cls, value) -> Axis:
        """Parse an Axis from an Axis, an int 0-2 or a string "X"/"Y"/"Z" (any case)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in ("X", "Y", "Z"):
            return cls("XYZ".index(value.upper()))
        if isinstance(value, int) and 0 <= value <= 2:
            return cls(value)
        raise ModelBuildError(f"invalid axis {value!r}: expected Axis.X/Y/Z, 0-2 or 'X'/'Y'/'Z'")

    def to_vec3(self) -> tuple[float, float, float]:
        v = [0.0, 0.0, 0.0]
        v[int(self)] = 1.0
        return tuple(v)


class JointType(IntEnum):
    """Joint types. Coordinates / DOFs: prismatic 1/1, revolute 1/1, ball 4/3 (quaternion x, y, z, w),
    fixed 0/0, free 7/6 (position + quaternion / COM linear + angular velocity, world frame),
    distance 7/6 (like free, plus one distance constraint), D6 n/n (up to 3 linear then 3 angular axes)."""

    PRISMATIC = 0
    REVOLUTE = 1
    BALL = 2
    FIXED = 3
    FREE = 4
    DISTANCE = 5
    D6 = 6


class GeoType(IntEnum):
    """Collision shape types, in newton_gym's conventions (Z is the axis of capsule, cylinder, cone;
    an ellipsoid's scale holds its three semi-axes along the shape frame's x, y, z [m])."""

    PLANE = 0
    SPHERE = 1
    CAPSULE = 2
    BOX = 3
    CYLINDER = 4
    CONE = 5
    MESH = 6
    ELLIPSOID = 7
    HFIELD = 8  # a static heightfield (newton_gym.sim.Heightfield); its scale is unused


class EqType(IntEnum):
    """Equality constraint types (MuJoCo's connect, weld, joint and tendon)."""

    CONNECT = 0
    WELD = 1
    JOINT = 2
    TENDON = 3


class TendonType(IntEnum):
    """Tendon kinds (MuJoCo's fixed and spatial tendons): FIXED, a linear combination of single-DOF joint
    coordinates; SPATIAL, a path through sites on bodies (no wrapping geometry)."""

    FIXED = 0
    SPATIAL = 1


_COORDS = {
    JointType.PRISMATIC: 1,
    JointType.REVOLUTE: 1,
    JointType.BALL: 4,
    JointType.FIXED: 0,
    JointType.FREE: 7,
    JointType.DISTANCE: 7,
}
_DOFS = {
    JointType.PRISMATIC: 1,
    JointType.REVOLUTE: 1,
    JointType.BALL: 3,
    JointType.FIXED: 0,
    JointType.FREE: 6,
    JointType.DISTANCE: 6,
}
_CONSTRAINTS = {
    JointType.PRISMATIC: 5,
    JointType.REVOLUTE: 5,
    JointType.BALL: 3,
    JointType.FIXED: 6,
    JointType.FREE: 0,
    JointType.DISTANCE: 1,
}


def joint_dof_count(joint_type: JointType, d6_axes: int = 0) -> int:
    """Number of velocity DOFs of a joint."""
    return d6_axes if joint_type == JointType.D6 else _DOFS[JointType(joint_type)]


def joint_coord_count(joint_type: JointType, d6_axes: int = 0) -> int:
    """Number of position coordinates of a joint."""
    return d6_axes if joint_type == JointType.D6 else _COORDS[JointType(joint_type)]


def joint_constraint_count(joint_type: JointType, d6_axes: int = 0) -> int:
    """Number of constrained directions of a joint (6 minus its DOFs; a distance joint has 1)."""
    return 6 - d6_axes if joint_type == JointType.D6 else _CONSTRAINTS[JointType(joint_type)]
