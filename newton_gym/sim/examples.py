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
    along_x = quat_from_axis_angle([0, 1, 0], np.pi / 2)  # capsule axis (local Z) onto the link's x
    for k, yaw in enumerate(np.deg2rad([45.0, 135.0, 225.0, 315.0])):
        d = np.array([np.cos(yaw), np.sin(yaw), 0.0])
        q_leg = quat_from_axis_angle([0, 0, 1], yaw)
        hip_pos = np.array([0, 0, 0.75]) + 0.2 * np.sqrt(2) * d
        knee_pos = hip_pos + 0.28 * d
        parent = torso
        # (link, joint, link origin, capsule half height [m], joint frame in the parent, hinge axis, limits [rad])
        for link_key, joint_key, pos, half, frame, axis, (lo, hi) in (
            ("thigh", "hip", hip_pos, 0.14, (*(hip_pos - [0, 0, 0.75]), *q_leg), (0, 0, 1), (-0.52, 0.52)),
            ("shin", "ankle", knee_pos, 0.28, (0.28, 0, 0, 0, 0, 0, 1), (0, 1, 0), (0.52, 1.75)),
        ):
            link = b.add_link(xform=(*pos, *q_leg), key=f"{link_key}_{k}")
            cfg = ModelBuilder.ShapeConfig(density=5.0)
            b.add_shape_capsule(link, (half, 0, 0, *along_x), radius=0.08, half_height=half, cfg=cfg)
            b.add_joint_revolute(
                parent, link, parent_xform=frame, axis=axis, limit_lower=lo, limit_upper=hi, key=f"{joint_key}_{k}"
            )
            parent = link
    return b
