"""State and Control: the time-varying arrays of a simulation (newton_gym's conventions)."""

from __future__ import annotations

import warp as wp

__all__ = ["State", "Control"]


class State:
    """Simulation state. All arrays are Warp arrays on the model's device.

    Attributes:
        body_q: (body_count,) transformf: body-origin pose in world [m], quaternion (x, y, z, w).
        body_qd: (body_count,) spatial_vectorf: COM twist in world frame, linear first [m/s, rad/s].
        body_f: (body_count,) spatial_vectorf: external wrench at the COM, world frame, force first [N, N m].
        joint_q: (joint_coord_count,) float32 generalized coordinates [m, rad; free: p then quat xyzw].
        joint_qd: (joint_dof_count,) float32 generalized velocities [m/s, rad/s; free: COM linear then
            angular velocity, world frame].
        particle_q, particle_qd, particle_f: (particle_count,) vec3f positions [m], velocities [m/s],
            forces [N].
    Custom attributes with assignment "state" appear as further attributes (or namespaces).
    """

    def __init__(self):
        self.body_q = None
        self.body_qd = None
        self.body_f = None
        self.joint_q = None
        self.joint_qd = None
        self.particle_q = None
        self.particle_qd = None
        self.particle_f = None

    def clear_forces(self):
        """Zero body_f and particle_f (without reallocating)."""
        for arr in (self.body_f, self.particle_f):
            if arr is not None and arr.size:
                arr.zero_()


class Control:
    """Inputs to a step.

    Attributes:
        joint_f: (joint_dof_count,) float32 generalized forces [N, N m]; for a free joint the 6 entries are
            a world-frame wrench at the COM, force first (the same convention as State.body_f).
        joint_target_pos: (joint_dof_count,) float32 PD position targets [m, rad].
        joint_target_vel: (joint_dof_count,) float32 PD velocity targets [m/s, rad/s].
    Custom attributes with assignment "control" appear as further attributes (or namespaces).
    """

    def __init__(self):
        self.joint_f = None
        self.joint_target_pos = None
        self.joint_target_vel = None

    def clear(self):
        """Zero joint_f (targets are kept)."""
        if self.joint_f is not None and self.joint_f.size:
            self.joint_f.zero_()


def clone(arr, device, requires_grad=False):
    if arr is None:
        return None
    return wp.clone(arr, device=device, requires_grad=requires_grad)
