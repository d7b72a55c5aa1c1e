"""Shared builders and MuJoCo references for the solver tests."""

from __future__ import annotations

import os

import numpy as np
from mujoco_builder import builder_from_mujoco

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized

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


def box_worlds(n: int = 3, device="cpu", height: float = 0.3):
    """n worlds of one free 0.2 m box (1 kg) above a ground plane, its centre at ``height``."""
    one = ng.ModelBuilder()
    one.add_ground_plane()
    body = one.add_body(xform=[0, 0, height, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    one.add_shape_box(body, hx=0.1, hy=0.1, hz=0.1)
    scene = ng.ModelBuilder()
    scene.replicate(one, world_count=n)
    return scene.finalize(device)


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


# A chain of capsule links (each LINK_LENGTH long along its x axis, radius LINK_RADIUS, mass LINK_MASS with
# the inertia of a solid rod: m l^2 / 12 about y and z, m r^2 / 2 about x), joined by hinges about y, the
# first one hinged to the world at (0, 0, height); it starts straight along +x and falls under gravity.
LINK_LENGTH, LINK_RADIUS, LINK_MASS, LINK_DAMPING = 0.05, 0.01, 0.1, 0.01
_LINK_INERTIA = (LINK_MASS * LINK_RADIUS**2 / 2, LINK_MASS * LINK_LENGTH**2 / 12, LINK_MASS * LINK_LENGTH**2 / 12)


def chain_builder(
    links: int, height: float = 1.0, floor: bool = False, self_collisions: bool = True
) -> ng.ModelBuilder:
    """The hinged capsule chain above, built in code (links collide with each other unless told not to)."""
    b = ng.ModelBuilder()
    if floor:
        b.add_ground_plane()
    along_x = np.array([0.0, np.sqrt(0.5), 0.0, np.sqrt(0.5)])  # capsules lie along local z: turn z onto x
    parent, joints = -1, []
    for i in range(links):
        link = b.add_link(
            xform=[i * LINK_LENGTH, 0.0, height, 0, 0, 0, 1],
            mass=LINK_MASS,
            com=[LINK_LENGTH / 2, 0.0, 0.0],
            inertia=np.diag(_LINK_INERTIA),
        )
        b.add_shape_capsule(
            link,
            np.concatenate([[LINK_LENGTH / 2, 0.0, 0.0], along_x]),
            radius=LINK_RADIUS,
            half_height=LINK_LENGTH / 2,
        )
        anchor = [0.0, 0.0, height, 0, 0, 0, 1] if parent < 0 else [LINK_LENGTH, 0.0, 0.0, 0, 0, 0, 1]
        joints.append(
            b.add_joint_revolute(
                parent, link, anchor, [0, 0, 0, 0, 0, 0, 1], axis=(0.0, 1.0, 0.0), damping=LINK_DAMPING
            )
        )
        parent = link
    b.add_articulation(joints, enable_self_collisions=self_collisions)
    return b


def chain_xml(links: int, height: float = 1.0, floor: bool = False) -> str:
    """The same chain in MJCF (nested bodies; MuJoCo's parser stops at a few hundred levels)."""
    body = ""
    inertia = " ".join(f"{v:.17g}" for v in _LINK_INERTIA)
    for i in reversed(range(links)):
        pos = f"0 0 {height}" if i == 0 else f"{LINK_LENGTH} 0 0"
        body = (
            f'<body pos="{pos}"><joint type="hinge" axis="0 1 0" damping="{LINK_DAMPING}"/>'
            f'<inertial pos="{LINK_LENGTH / 2} 0 0" mass="{LINK_MASS}" diaginertia="{inertia}"/>'
            f'<geom type="capsule" fromto="0 0 0 {LINK_LENGTH} 0 0" size="{LINK_RADIUS}"/>{body}</body>'
        )
    ground = '<geom type="plane" size="0 0 1"/>' if floor else ""
    return f'<mujoco><option timestep="0.002" gravity="0 0 -9.81"/><worldbody>{ground}{body}</worldbody></mujoco>'


def collide_poisoned(model, contacts, body_q, worlds=None) -> np.ndarray:
    """Run the narrow phase on contact slots poisoned first (active -1, points, normals, distances and
    tangents NaN) and with the bundles' clear flags forgotten, so that every slot the narrow phase writes
    shows, far bundles' included; returns the slots' active flags (slot_count,)."""
    from newton_gym.solvers.collision import driver as collision_driver

    contacts.active.fill_(-1)
    contacts.bundle_clear.zero_()
    for name in ("point", "normal", "dist", "tangent"):
        getattr(contacts, name).fill_(float("nan"))
    collision_driver.collide(model, contacts, body_q, worlds)
    return contacts.active.numpy()[: contacts.slot_count]


def at_distance(xml, u, target: float, iterations: int = 60) -> str:
    """``xml(s)``: the MJCF of geoms 0 and 1 with B's free body at ``u * s``, s found (from 0.3) so that
    MuJoCo's signed distance of the two is ``target``. The distance changes at most one for one with the
    offset, so s -= 0.9 * error is a damped fixed point; it stops within 1e-10 or after ``iterations``."""
    import mujoco

    s = 0.3
    m = mujoco.MjModel.from_xml_string(xml(s))
    d = mujoco.MjData(m)
    for _ in range(iterations):
        d.qpos[:3] = u * s
        mujoco.mj_kinematics(m, d)
        err = mujoco.mj_geomDistance(m, d, 0, 1, 1.0, None) - target
        if abs(err) < 1e-10:
            break
        s -= 0.9 * err
    return xml(s)
