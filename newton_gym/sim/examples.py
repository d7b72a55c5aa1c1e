"""Small robots built in code, shared by the demo, tests and benchmarks."""

from __future__ import annotations

import numpy as np

from .builder import ModelBuilder
from .hostmath import quat_from_axis_angle

__all__ = ["ant_like_builder"]


def ant_like_builder() -> ModelBuilder:
    """An Ant-shaped robot: torso sphere on a free joint, four legs of two capsule links each
    (9 bodies, free joint + 8 revolute joints, 9 shapes), geometry after gymnasium's ant.xml."""
    b = ModelBuilder()
    torso = b.add_body(xform=(0.0, 0.0, 0.75, 0.0, 0.0, 0.0, 1.0), key="torso")
    b.add_shape_sphere(torso, radius=0.25, cfg=ModelBuilder.ShapeConfig(density=5.0))
    joints = []
    for k, yaw in enumerate(np.deg2rad([45.0, 135.0, 225.0, 315.0])):
        d = np.array([np.cos(yaw), np.sin(yaw), 0.0])
        q_leg = quat_from_axis_angle([0, 0, 1], yaw)
        hip_pos = np.array([0, 0, 0.75]) + 0.2 * np.sqrt(2) * d
        thigh = b.add_link(xform=(*(hip_pos), *q_leg), key=f"thigh_{k}")
        b.add_shape_capsule(
            thigh,
            (0.14, 0, 0, *quat_from_axis_angle([0, 1, 0], np.pi / 2)),
            radius=0.08,
            half_height=0.14,
            cfg=ModelBuilder.ShapeConfig(density=5.0),
        )
        joints.append(
            b.add_joint_revolute(
                torso,
                thigh,
                parent_xform=(*(hip_pos - [0, 0, 0.75]), *q_leg),
                axis=(0, 0, 1),
                limit_lower=-0.52,
                limit_upper=0.52,
                key=f"hip_{k}",
            )
        )
        knee_pos = hip_pos + 0.28 * d
        shin = b.add_link(xform=(*knee_pos, *q_leg), key=f"shin_{k}")
        b.add_shape_capsule(
            shin,
            (0.28, 0, 0, *quat_from_axis_angle([0, 1, 0], np.pi / 2)),
            radius=0.08,
            half_height=0.28,
            cfg=ModelBuilder.ShapeConfig(density=5.0),
        )
        joints.append(
            b.add_joint_revolute(
                thigh,
                shin,
                parent_xform=(0.28, 0, 0, 0, 0, 0, 1),
                axis=(0, 1, 0),
                limit_lower=0.52,
                limit_upper=1.75,
                key=f"ankle_{k}",
            )
        )
    return b
