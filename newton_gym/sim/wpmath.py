"""Warp device functions shared by kernels (quaternions x, y, z, w; twists linear first)."""

from __future__ import annotations

import warp as wp

from .types import GeoType, JointType

__all__ = [
    "GEO_PLANE",
    "GEO_SPHERE",
    "GEO_CAPSULE",
    "GEO_BOX",
    "GEO_CYLINDER",
    "GEO_CONE",
    "GEO_MESH",
    "GEO_ELLIPSOID",
    "GEO_HFIELD",
    "JOINT_PRISMATIC",
    "JOINT_REVOLUTE",
    "JOINT_BALL",
    "JOINT_FREE",
    "JOINT_DISTANCE",
    "JOINT_D6",
    "velocity_at_point",
    "angle_about_axis",
    "quat_about_axis",
    "d6_rotation",
    "d6_axis_world",
    "wrap_angle",
]


# GeoType values as Warp constants, for kernels that branch on the shape type.
GEO_PLANE = wp.constant(int(GeoType.PLANE))
GEO_SPHERE = wp.constant(int(GeoType.SPHERE))
GEO_CAPSULE = wp.constant(int(GeoType.CAPSULE))
GEO_BOX = wp.constant(int(GeoType.BOX))
GEO_CYLINDER = wp.constant(int(GeoType.CYLINDER))
GEO_CONE = wp.constant(int(GeoType.CONE))
GEO_MESH = wp.constant(int(GeoType.MESH))
GEO_ELLIPSOID = wp.constant(int(GeoType.ELLIPSOID))
GEO_HFIELD = wp.constant(int(GeoType.HFIELD))

# JointType values as Warp constants, for kernels that branch on the joint type.
JOINT_PRISMATIC = wp.constant(int(JointType.PRISMATIC))
JOINT_REVOLUTE = wp.constant(int(JointType.REVOLUTE))
JOINT_BALL = wp.constant(int(JointType.BALL))
JOINT_FREE = wp.constant(int(JointType.FREE))
JOINT_DISTANCE = wp.constant(int(JointType.DISTANCE))
JOINT_D6 = wp.constant(int(JointType.D6))


@wp.func
def velocity_at_point(v_com: wp.vec3, w: wp.vec3, com_world: wp.vec3, point: wp.vec3):
    """Velocity [m/s] of a point rigidly attached to a body with COM velocity v_com and angular w."""
    return v_com + wp.cross(w, point - com_world)


@wp.func
def wrap_angle(a: float):
    """Wrap an angle to (-pi, pi]."""
    two_pi = 6.283185307179586
    r = a - two_pi * wp.floor((a + 3.141592653589793) / two_pi)
    if r <= -3.141592653589793:
        r = r + two_pi
    return r


@wp.func
def angle_about_axis(q: wp.quat, axis: wp.vec3):
    """Twist angle [rad] of rotation q about unit axis (swing-twist decomposition), in (-pi, pi]."""
    s = wp.dot(wp.vec3(q[0], q[1], q[2]), axis)
    return wrap_angle(2.0 * wp.atan2(s, q[3]))


@wp.func
def quat_about_axis(axis: wp.vec3, angle: float):
    return wp.quat_from_axis_angle(axis, angle)


@wp.func
def d6_rotation(
    joint_axis: wp.array(dtype=wp.vec3), joint_q: wp.array(dtype=float), axis_start: int, q_start: int, count: int
):
    """Rotation of a D6 joint: R(a_1, q_1) * R(a_2, q_2) * ... over its ``count`` angular axes."""
    r = wp.quat_identity()
    for k in range(count):
        r = r * wp.quat_from_axis_angle(joint_axis[axis_start + k], joint_q[q_start + k])
    return r


@wp.func
def d6_axis_world(
    joint_axis: wp.array(dtype=wp.vec3), joint_q: wp.array(dtype=float), axis_start: int, q_start: int, k: int
):
    """Axis k of a D6 joint's angular chain in the parent joint frame: (R_1 ... R_{k-1}) a_k."""
    return wp.quat_rotate(d6_rotation(joint_axis, joint_q, axis_start, q_start, k), joint_axis[axis_start + k])
