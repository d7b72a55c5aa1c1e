"""The interface every newton_gym solver implements."""

from __future__ import annotations

__all__ = ["SolverBase"]


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
        """Re-read model parameters that the solver caches (default: nothing is cached)."""
        del flags
