"""Shared builders and MuJoCo references for the solver tests."""

from __future__ import annotations

import os

import numpy as np

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.mjcf import builder_from_mujoco

PENDULUM_XML = """
<mujoco><option timestep="0.002" gravity="0 0 -9.81"/>
<worldbody>
 <body name="l1" pos="0 0 1">
  <joint name="j1" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0.1" size="0.05" mass="1"/>
  {second}
 </body>
</worldbody></mujoco>"""
SECOND = """<body name="l2" pos="0.5 0 0.1">
   <joint name="j2" type="hinge" axis="0.3 1 0"/>
   <geom type="capsule" fromto="0 0 0 0.4 0.1 0" size="0.04" mass="0.7"/>
  </body>"""


def pendulum_xml(links: int) -> str:
    return PENDULUM_XML.format(second=SECOND if links == 2 else "")


def ant_path() -> str:
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "ant.xml")


def ant_control(steps: int, dt: float = 0.01) -> np.ndarray:
    """A mild sinusoidal gait. Stronger ones make the Ant's contact dynamics so sensitive that MuJoCo
    disagrees with itself by decimetres between integrators and time steps."""
    t = np.arange(steps) * dt
    return 0.1 * np.sin(2 * np.pi * 0.5 * t[:, None] + 0.7 * np.arange(8)[None])


def model_from_xml(m, world: bool = False, device="cpu"):
    """(model, actuators, joint_q) for MjModel m on ``device``, in one world when ``world``."""
    sub, act, q0 = builder_from_mujoco(m)
    if not world:
        return sub.finalize(device), act, q0
    scene = ng.ModelBuilder(gravity=float(m.opt.gravity[2]))
    scene.add_world(sub)
    return scene.finalize(device), act, q0


def run(model, solver: SolverGeneralized, steps: int, dt: float, ctrl=None, state=None, record=None):
    """Step ``steps`` times; returns the final state and, when ``record`` is a callable, its outputs."""
    s0 = state if state is not None else model.state()
    s1 = model.state()
    out = []
    for i in range(steps):
        if ctrl is not None:
            solver.ctrl.assign(np.asarray(ctrl[i], dtype=np.float32))
        solver.step(s0, s1, None, dt)
        s0, s1 = s1, s0
        if record is not None:
            out.append(record(s0))
    return s0, out
