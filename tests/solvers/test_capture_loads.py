"""Capturing the step loads only the Warp modules the step launches.

``wp.ScopedCapture(force_module_load=True)`` first compiles every imported Warp module, at its default block
size: on an H100 a first capture of the Ant env was still compiling after 185 s, mostly kernels the step
never launches (renderer, sensors, heightfields). The CPU capture loads modules through the same call."""

from __future__ import annotations

import mujoco
import warp as wp
from solver_helpers import model_from_xml, pendulum_xml
from warp._src.context import Module

import newton_gym.render.raycaster  # noqa: F401  (Warp kernels the step never launches)
import newton_gym.sensors.height_scan  # noqa: F401
from newton_gym.solvers import SolverGeneralized


def test_capture_loads_only_the_modules_the_step_launches(monkeypatch):
    model = model_from_xml(mujoco.MjModel.from_xml_string(pendulum_xml(2)))[0]
    solver = SolverGeneralized(model)
    state = model.state()
    loaded = []
    original = Module.load

    def load(self, device, *args, **kwargs):
        loaded.append(self.name)
        return original(self, device, *args, **kwargs)

    monkeypatch.setattr(Module, "load", load)
    solver.capture(state, state, None, 0.002)
    solver.replay()
    assert "newton_gym.solvers.forward" in loaded  # the step's own kernels do load
    assert not {"newton_gym.render.raycaster", "newton_gym.sensors.height_scan"} & set(loaded), sorted(set(loaded))
    assert wp.get_device(solver.device).is_cpu
