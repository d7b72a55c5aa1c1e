"""ContactForceHistory: the net contact force on tracked bodies over the last few updates, and their air and
contact times (Isaac Lab's ContactSensor ``net_forces_w_history`` and ``track_air_time``).

Conventions. The force on a body is the linear part of the solver's ``body_contact_wrench``: the sum of
every active contact's force on that body, world frame [N] (like MuJoCo's cfrc_ext), as the solver left it
after its last substep. Each :meth:`ContactForceHistory.update` (called once per control period) pushes it
into a ring of ``history`` entries, newest first (entry 0 is the latest). A body is in contact while the
norm of that force exceeds ``force_threshold``; the timers count in steps of the ``dt`` given to update:
``current_air_time`` / ``current_contact_time`` run while the body is off / on (0 otherwise), and on a
change ``last_air_time`` / ``last_contact_time`` take the length of the phase that just ended, the
period of the update that saw the change included (the change happened within it; Isaac Lab's rule).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import warp as wp

from .common import SensorError, body_index_array, mask_array

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["ContactForceHistory", "ContactViews"]


@dataclass(frozen=True)
class ContactViews:
    """Zero-copy torch views of a ContactForceHistory's outputs."""

    net_forces_w_history: torch.Tensor  # (N, H, B, 3) net contact force, world frame, newest first [N]
    current_air_time: torch.Tensor  # (N, B) time since the body left contact, 0 in contact [s]
    current_contact_time: torch.Tensor  # (N, B) time since the body made contact, 0 in the air [s]
    last_air_time: torch.Tensor  # (N, B) length of the last completed air phase [s]
    last_contact_time: torch.Tensor  # (N, B) length of the last completed contact phase [s]


@wp.kernel
def _record_kernel(
    # Solver:
    body_contact_wrench: wp.array(dtype=wp.spatial_vector),
    # Sensor:
    body_index: wp.array2d(dtype=wp.int32),
    force_threshold: float,
    dt: float,
    # Data in / out:
    forces: wp.array3d(dtype=wp.vec3),
    air_time: wp.array2d(dtype=wp.float32),
    contact_time: wp.array2d(dtype=wp.float32),
    last_air_time: wp.array2d(dtype=wp.float32),
    last_contact_time: wp.array2d(dtype=wp.float32),
):
    i, k = wp.tid()
    wrench = body_contact_wrench[body_index[i, k]]
    f = wp.vec3(wrench[0], wrench[1], wrench[2])
    # This thread owns column (i, :, k): shift it by one, oldest entry dropped.
    for h in range(forces.shape[1] - 1, 0, -1):
        forces[i, h, k] = forces[i, h - 1, k]
    forces[i, 0, k] = f
    touching = wp.length(f) > force_threshold
    if touching:
        if air_time[i, k] > 0.0:  # first contact: the air phase ends
            last_air_time[i, k] = air_time[i, k] + dt
        air_time[i, k] = 0.0
        contact_time[i, k] = contact_time[i, k] + dt
    else:
        if contact_time[i, k] > 0.0:  # lift-off: the contact phase ends
            last_contact_time[i, k] = contact_time[i, k] + dt
        contact_time[i, k] = 0.0
        air_time[i, k] = air_time[i, k] + dt


@wp.kernel
def _clear_kernel(
    mask: wp.array(dtype=wp.bool),
    forces: wp.array3d(dtype=wp.vec3),
    air_time: wp.array2d(dtype=wp.float32),
    contact_time: wp.array2d(dtype=wp.float32),
    last_air_time: wp.array2d(dtype=wp.float32),
    last_contact_time: wp.array2d(dtype=wp.float32),
):
    i, k = wp.tid()
    if not mask[i]:
        return
    for h in range(forces.shape[1]):
        forces[i, h, k] = wp.vec3(0.0)
    air_time[i, k] = 0.0
    contact_time[i, k] = 0.0
    last_air_time[i, k] = 0.0
    last_contact_time[i, k] = 0.0


class ContactForceHistory:
    """Net contact forces of B bodies in each of N rows (usually one row per world), kept for ``history``
    updates (module docstring: source, order and timers).

    Args:
        sim_or_solver: a ``Simulation`` (its ``solver`` is used) or a solver with ``body_contact_wrench``
            ((body_count,) spatial vectors, force first) and ``model``.
        body_indices: (N, B) int global body indices, e.g. the feet of the robot in each world.
        history: number of updates kept (>= 1).
        force_threshold: force norm above which a body counts as in contact [N] (Isaac Lab's 1 N).

    Raises:
        SensorError: a source without ``body_contact_wrench``, bad body indices or history length.
    """

    model: object  # the Model
    shape: tuple  # (N, B)
    history: int  # H, entries kept
    force_threshold: float  # [N]
    body_indices: wp.array  # (N, B) int32 global body indices
    net_forces_w_history: wp.array  # (N, H, B) vec3 net contact force, world frame, newest first [N]
    current_air_time: wp.array  # (N, B) float32 [s]
    current_contact_time: wp.array  # (N, B) float32 [s]
    last_air_time: wp.array  # (N, B) float32 [s]
    last_contact_time: wp.array  # (N, B) float32 [s]
    views: ContactViews  # zero-copy torch views of the five outputs

    def __init__(self, sim_or_solver, body_indices, history: int = 3, force_threshold: float = 1.0):
        solver = getattr(sim_or_solver, "solver", sim_or_solver)
        wrench = getattr(solver, "body_contact_wrench", None)
        if not isinstance(wrench, wp.array) or getattr(solver, "model", None) is None:
            raise SensorError(
                f"sim_or_solver must be a Simulation or a solver with body_contact_wrench and model, got "
                f"{type(sim_or_solver).__name__}"
            )
        if int(history) < 1:
            raise SensorError(f"history must be >= 1 update, got {history}")
        self.model = solver.model
        self._wrench = wrench
        self.body_indices = body_index_array(self.model, body_indices, 2)
        self.shape = tuple(int(n) for n in self.body_indices.shape)
        self.history = int(history)
        self.force_threshold = float(force_threshold)
        n, b = self.shape
        device = self.model.device
        self.net_forces_w_history = wp.zeros((n, self.history, b), dtype=wp.vec3, device=device)
        self.current_air_time = wp.zeros((n, b), dtype=wp.float32, device=device)
        self.current_contact_time = wp.zeros((n, b), dtype=wp.float32, device=device)
        self.last_air_time = wp.zeros((n, b), dtype=wp.float32, device=device)
        self.last_contact_time = wp.zeros((n, b), dtype=wp.float32, device=device)
        self._everyone = wp.ones(n, dtype=wp.bool, device=device)  # (N,) the mask of reset()
        self.views = ContactViews(
            net_forces_w_history=wp.to_torch(self.net_forces_w_history),
            current_air_time=wp.to_torch(self.current_air_time),
            current_contact_time=wp.to_torch(self.current_contact_time),
            last_air_time=wp.to_torch(self.last_air_time),
            last_contact_time=wp.to_torch(self.last_contact_time),
        )

    def _timers(self) -> list:
        return [self.current_air_time, self.current_contact_time, self.last_air_time, self.last_contact_time]

    def update(self, dt: float):
        """Push the solver's current contact forces and advance the timers by ``dt`` [s] (the control
        period): one launch over (N, B), no host sync (capturable)."""
        wp.launch(
            _record_kernel,
            dim=self.shape,
            inputs=[self._wrench, self.body_indices, self.force_threshold, dt],
            outputs=[self.net_forces_w_history, *self._timers()],
            device=self.model.device,
        )

    def reset(self, mask=None):
        """Zero the history and the timers of the rows where ``mask`` (N,) bool is True (None: all)."""
        mask = self._everyone if mask is None else mask_array(mask, self.shape[0], self.model.device)
        wp.launch(
            _clear_kernel,
            dim=self.shape,
            inputs=[mask],
            outputs=[self.net_forces_w_history, *self._timers()],
            device=self.model.device,
        )

    @property
    def net_forces_w(self) -> torch.Tensor:
        """(N, B, 3) torch view of the newest entry [N]."""
        return self.views.net_forces_w_history[:, 0]

    def first_contact(self, dt: float, abs_tol: float = 1.0e-8) -> torch.Tensor:
        """(N, B) torch bool: bodies that made contact within the last ``dt`` [s] (Isaac Lab's
        ``compute_first_contact``)."""
        t = self.views.current_contact_time
        return (t > 0.0) & (t < float(dt) + abs_tol)

    def first_air(self, dt: float, abs_tol: float = 1.0e-8) -> torch.Tensor:
        """(N, B) torch bool: bodies that left contact within the last ``dt`` [s]."""
        t = self.views.current_air_time
        return (t > 0.0) & (t < float(dt) + abs_tol)
