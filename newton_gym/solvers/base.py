"""The interface every newton_gym solver implements."""

from __future__ import annotations

import enum

__all__ = ["SolverBase", "SolverNotifyFlags"]


class SolverNotifyFlags(enum.IntFlag):
    """What changed in the model, for :meth:`SolverBase.notify_model_changed` (Newton's names)."""

    JOINT_PROPERTIES = 1 << 0  # joint frames, axes, types
    JOINT_DOF_PROPERTIES = 1 << 1  # per-DOF limits, gains, damping, armature, friction
    BODY_PROPERTIES = 1 << 2  # body frames
    BODY_INERTIAL_PROPERTIES = 1 << 3  # mass, COM, inertia
    SHAPE_PROPERTIES = 1 << 4  # shape materials and contact parameters
    MODEL_PROPERTIES = 1 << 5  # gravity and other model-wide settings


class SolverBase:
    """Advances all worlds of a Model by one time step.

    Subclasses allocate every buffer in ``__init__``; :meth:`step` must allocate nothing and never read
    device data back to the host, so that it can be captured (CUDA graph, or ``wp.ScopedCapture`` on
    CPU) and replayed.

    Args:
        model: the finalized :class:`~newton_gym.sim.model.Model` to simulate.
    """

    def __init__(self, model):
        self.model = model
        self.device = model.device

    def step(self, state_in, state_out, control, dt: float):
        """Advance ``state_in`` by ``dt`` [s] under ``control`` and write the result to ``state_out``
        (which may be the same object). ``control`` may be None for zero joint_f and model targets."""
        raise NotImplementedError

    def reset_worlds(self, state, world_mask):
        """Restore the model's initial state in the worlds where ``world_mask`` (world_count,) bool is
        True, leaving the other worlds untouched."""
        raise NotImplementedError

    def notify_model_changed(self, flags: int = 0):
        """Re-read model parameters that the solver caches, for the parts named by ``flags``
        (:class:`SolverNotifyFlags`; default: nothing is cached)."""
        del flags
