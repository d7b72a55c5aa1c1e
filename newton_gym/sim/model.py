"""Model: the finalized, immutable description of all worlds, as Warp arrays."""

from __future__ import annotations

import numpy as np
import warp as wp

from ..errors import ModelBuildError
from .custom_attributes import attach
from .state import Control, State, clone

__all__ = ["Model"]


class Model:
    """Arrays of every entity, partitioned into worlds (seed 004). Built by ``ModelBuilder.finalize``.

    Per-entity arrays are named ``<kind>_<field>``: e.g. body_mass (body_count,) [kg], body_com
    (body_count,) vec3 [m] in the body frame, body_inertia (body_count,) mat33 [kg m^2] about the COM,
    shape_transform (shape_count,) transform in the body frame, joint_X_p / joint_X_c (joint_count,) joint
    frames in parent / child body frames, joint_axis (joint_dof_count,) vec3 in the parent joint frame.
    World grouping: ``<kind>_world`` arrays and ``<kind>_world_start`` arrays of world_count + 2 entries.
    gravity: (world_count, 3) [m/s^2] (one row when the model has no worlds); global entities use world 0's.
    """

    def __init__(self, device):
        self.device = wp.get_device(device)
        self.world_count = 0
        self.requires_grad = False
        self.gravity = None
        self._state_attrs: list = []
        self._control_attrs: list = []
        self._attribute_frequency: dict = {}

    # ------------------------------------------------------------------ gravity
    def set_gravity(self, gravity, world: int | None = None):
        """Set gravity [m/s^2] without reallocating: one (3,) vector for all worlds, a (world_count, 3)
        array of one vector per world, or one vector for ``world``. Takes effect on the next step."""
        g = np.asarray(gravity, dtype=np.float32)
        rows = self.gravity.shape[0]
        current = self.gravity.numpy()
        if world is not None:
            if not -rows <= int(world) < rows:
                raise ModelBuildError(f"set_gravity: world {world} out of range for {rows} world(s)")
            if g.shape != (3,):
                raise ModelBuildError(f"set_gravity: a single world takes a (3,) vector, got shape {g.shape}")
            current[int(world)] = g
        elif g.shape == (3,):
            current[:] = g
        elif g.shape == (rows, 3):
            current = g
        else:
            raise ModelBuildError(f"set_gravity: expected shape (3,) or ({rows}, 3), got {g.shape}")
        if not np.isfinite(current).all():
            raise ModelBuildError("set_gravity: gravity must be finite")
        self.gravity.assign(current)

    # ------------------------------------------------------------------ state / control
    def state(self, requires_grad: bool | None = None) -> State:
        """A new State holding copies of the initial body and joint state."""
        rg = self.requires_grad if requires_grad is None else requires_grad
        s = State()
        s.body_q = clone(self.body_q, self.device, rg)
        s.body_qd = clone(self.body_qd, self.device, rg)
        s.body_f = wp.zeros_like(self.body_qd, requires_grad=rg)
        s.joint_q = clone(self.joint_q, self.device, rg)
        s.joint_qd = clone(self.joint_qd, self.device, rg)
        s.particle_q = clone(self.particle_q, self.device, rg)
        s.particle_qd = clone(self.particle_qd, self.device, rg)
        s.particle_f = wp.zeros_like(self.particle_qd, requires_grad=rg)
        for attr, arr in self._state_attrs:
            attach(s, attr, wp.clone(arr))
        return s

    def control(self) -> Control:
        """A new Control with zero joint_f and the model's initial drive targets."""
        c = Control()
        c.joint_f = wp.zeros(self.joint_dof_count, dtype=wp.float32, device=self.device)
        c.joint_target_pos = wp.clone(self.joint_target_pos)
        c.joint_target_vel = wp.clone(self.joint_target_vel)
        for attr, arr in self._control_attrs:
            attach(c, attr, wp.clone(arr))
        return c

    def get_attribute_frequency(self, name: str) -> str:
        """Frequency ("body", "joint_dof", ...) of a custom attribute given as "name" or "namespace:name"."""
        return self._attribute_frequency[name]

    def __repr__(self):
        return (f"Model(world_count={self.world_count}, body_count={self.body_count}, shape_count="
                f"{self.shape_count}, joint_count={self.joint_count}, joint_dof_count={self.joint_dof_count}, "
                f"device={self.device})")
