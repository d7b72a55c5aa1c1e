"""Imu: a gyroscope and an accelerometer fixed on a body in every world.

Conventions. The sensor frame is the body frame translated to ``offset`` (body coordinates); every output is
expressed in it. ``ang_vel`` is the body's angular velocity [rad/s]. ``lin_acc`` is what an accelerometer
measures, the proper acceleration ``R^T (a - g)`` [m/s^2], with ``g`` the gravity of the body's world
(``model.gravity[world]``; a global body takes world 0's): a body at rest reads +|g| along its up axis, a
body in free fall reads zero. ``a`` is the change of the sensor point's world velocity between two
:meth:`Imu.update` calls divided by their ``dt``, a backward difference over the control period (not the
solver's instantaneous acceleration, which the solver does not keep): it lags by dt / 2 and smooths
whatever happens inside the period. The first update, and the first after :meth:`Imu.reset`, takes ``a``
= 0 and so reads ``R^T (-g)``, the reading at rest. ``lin_vel`` is the sensor point's velocity [m/s].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import warp as wp

from ..sim.wpmath import velocity_at_point
from .common import SensorError, body_index_array, mask_array

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["Imu", "ImuViews"]


@dataclass(frozen=True)
class ImuViews:
    """Zero-copy torch views of an Imu's outputs."""

    ang_vel: torch.Tensor  # (N, 3) angular velocity, sensor frame [rad/s]
    lin_acc: torch.Tensor  # (N, 3) proper linear acceleration, sensor frame [m/s^2]
    lin_vel: torch.Tensor  # (N, 3) velocity of the sensor point, sensor frame [m/s]


@wp.kernel
def _imu_kernel(
    # Model:
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_world: wp.array(dtype=wp.int32),
    gravity: wp.array(dtype=wp.vec3),
    # Sensor:
    body_index: wp.array(dtype=wp.int32),
    offset: wp.array(dtype=wp.vec3),
    dt: float,
    # Data in / out:
    primed: wp.array(dtype=wp.int32),
    prev_vel: wp.array(dtype=wp.vec3),
    # Data out:
    ang_vel_out: wp.array(dtype=wp.vec3),
    lin_acc_out: wp.array(dtype=wp.vec3),
    lin_vel_out: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    b = body_index[i]
    pose = body_q[b]
    twist = body_qd[b]
    q = wp.transform_get_rotation(pose)
    w = wp.vec3(twist[3], twist[4], twist[5])
    com = wp.transform_point(pose, body_com[b])
    v = velocity_at_point(wp.vec3(twist[0], twist[1], twist[2]), w, com, wp.transform_point(pose, offset[i]))
    a = wp.vec3(0.0)
    if primed[i] != 0 and dt > 0.0:
        a = (v - prev_vel[i]) / dt
    prev_vel[i] = v
    primed[i] = 1
    g = gravity[wp.max(body_world[b], 0)]
    ang_vel_out[i] = wp.quat_rotate_inv(q, w)
    lin_acc_out[i] = wp.quat_rotate_inv(q, a - g)
    lin_vel_out[i] = wp.quat_rotate_inv(q, v)


@wp.kernel
def _unprime_kernel(mask: wp.array(dtype=wp.bool), primed: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if mask[i]:
        primed[i] = 0


class Imu:
    """Per-world IMU on a body (module docstring: frames, gravity and the finite difference).

    Args:
        model: the Model (its gravity is read at every update, so ``set_gravity`` is seen).
        body_indices: (N,) int global index of the body carrying each sensor.
        offset: sensor position in the body frame [m]: (3,) for every sensor or (N, 3).

    Raises:
        SensorError: bad body indices or offset.
    """

    model: object  # the Model
    count: int  # N, number of sensors
    body_indices: wp.array  # (N,) int32 global body index of each sensor
    offset: wp.array  # (N,) vec3 sensor position in its body's frame [m]
    ang_vel: wp.array  # (N,) vec3 angular velocity, sensor frame [rad/s]
    lin_acc: wp.array  # (N,) vec3 proper acceleration a - g, sensor frame [m/s^2]
    lin_vel: wp.array  # (N,) vec3 sensor point velocity, sensor frame [m/s]
    views: ImuViews  # zero-copy torch views of the three outputs

    def __init__(self, model, body_indices, offset=(0.0, 0.0, 0.0)):
        self.model = model
        self.body_indices = body_index_array(model, body_indices, 1)
        self.count = int(self.body_indices.shape[0])
        off = np.asarray(offset, dtype=np.float64)
        if off.shape == (3,):
            off = np.tile(off, (self.count, 1))
        if off.shape != (self.count, 3) or not np.isfinite(off).all():
            raise SensorError(f"offset must be 3 finite numbers or ({self.count}, 3) [m], got shape {off.shape}")
        device = model.device
        self.offset = wp.array(off.astype(np.float32), dtype=wp.vec3, device=device)
        self.ang_vel = wp.zeros(self.count, dtype=wp.vec3, device=device)
        self.lin_acc = wp.zeros(self.count, dtype=wp.vec3, device=device)
        self.lin_vel = wp.zeros(self.count, dtype=wp.vec3, device=device)
        self._prev_vel = wp.zeros(self.count, dtype=wp.vec3, device=device)  # (N,) world velocity [m/s]
        self._primed = wp.zeros(self.count, dtype=wp.int32, device=device)  # (N,) 1 once a velocity is stored
        self._everyone = wp.ones(self.count, dtype=wp.bool, device=device)  # (N,) the mask of reset()
        self.views = ImuViews(
            ang_vel=wp.to_torch(self.ang_vel), lin_acc=wp.to_torch(self.lin_acc), lin_vel=wp.to_torch(self.lin_vel)
        )

    def update(self, state, dt: float):
        """Read ``state.body_q`` / ``body_qd`` and difference the sensor velocity over ``dt`` [s], the time
        since the previous update (the control period): one launch, no host sync (capturable)."""
        m = self.model
        wp.launch(
            _imu_kernel,
            dim=self.count,
            inputs=[
                state.body_q,
                state.body_qd,
                m.body_com,
                m.body_world,
                m.gravity,
                self.body_indices,
                self.offset,
                dt,
            ],
            outputs=[self._primed, self._prev_vel, self.ang_vel, self.lin_acc, self.lin_vel],
            device=m.device,
        )

    def reset(self, mask=None):
        """Forget the stored velocity of the sensors where ``mask`` (N,) bool is True (None: all), so that
        their next update reads the rest value instead of differencing across a reset."""
        mask = self._everyone if mask is None else mask_array(mask, self.count, self.model.device)
        wp.launch(_unprime_kernel, dim=self.count, inputs=[mask], outputs=[self._primed], device=self.model.device)
