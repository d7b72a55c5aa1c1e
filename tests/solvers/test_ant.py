"""gymnasium's ant.xml, built from MuJoCo's compiled model, against MuJoCo C (RK4, 0.01 s)."""

import mujoco
import numpy as np

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized

from solver_helpers import ant_control, ant_path, model_from_xml, pendulum_xml, run

SUBSTEPS = 5  # 0.002 s substeps per MuJoCo 0.01 s step
DT = 0.01


def _mujoco_torso(m, ctrl):
    d = mujoco.MjData(m)
    out = []
    for u in ctrl:
        d.ctrl[:] = u
        mujoco.mj_step(m, d)
        out.append(d.qpos[:3].copy())
    return np.array(out)


def _ours(model, act, ctrl, steps):
    solver = SolverGeneralized(model, substeps=SUBSTEPS, iterations=50, actuators=act)
    _, torso = run(model, solver, steps, DT, ctrl=ctrl, record=lambda s: s.joint_q.numpy()[:3].copy())
    return np.array(torso), solver


def test_ant_drop_rest_height(device):
    m = mujoco.MjModel.from_xml_path(ant_path())
    model, act, _ = model_from_xml(m, device=device)
    ctrl = np.zeros((200, 8))
    ours, solver = _ours(model, act, ctrl, 200)
    ref = _mujoco_torso(m, ctrl)
    assert abs(ours[-1, 2] - ref[-1, 2]) < 0.01
    assert np.isfinite(ours).all() and solver.world_unhealthy.numpy()[0] == 0
    assert solver.world_contact_count.numpy()[0] == 4  # four feet, as MuJoCo


def test_ant_sinusoidal_control_tracks_mujoco():
    m = mujoco.MjModel.from_xml_path(ant_path())
    model, act, _ = model_from_xml(m)
    ctrl = ant_control(200)
    ours, _ = _ours(model, act, ctrl, 200)
    ref = _mujoco_torso(m, ctrl)
    assert np.isfinite(ours).all()
    assert np.linalg.norm(ours - ref, axis=1).max() < 0.10


def test_pendulum_and_ant_worlds_match_their_single_world_runs(device):
    ant_m = mujoco.MjModel.from_xml_path(ant_path())
    pend_m = mujoco.MjModel.from_xml_string(pendulum_xml(2))
    from newton_gym.solvers.mjcf import builder_from_mujoco
    from newton_gym.solvers import Actuators

    pend_b, _, _ = builder_from_mujoco(pend_m)
    ant_b, ant_act, _ = builder_from_mujoco(ant_m)
    steps = 50
    ctrl = ant_control(steps)

    def simulate(builders, act_offset):
        scene = ng.ModelBuilder()
        for b in builders:
            scene.add_world(b, gravity=(0.0, 0.0, -9.81))
        model = scene.finalize(device)
        act = Actuators(ant_act.dof + act_offset, ant_act.gear, ant_act.ctrl_range, ant_act.force_range) \
            if act_offset is not None else None
        solver = SolverGeneralized(model, substeps=SUBSTEPS, iterations=50, actuators=act)
        state = model.state()
        if pend_b.body_count and builders[0] is pend_b:
            q = state.joint_q.numpy()
            q[:2] = [0.4, -0.7]
            state.joint_q.assign(q)
        final, _ = run(model, solver, steps, DT, ctrl=ctrl if act is not None else None, state=state)
        return final.joint_q.numpy(), final.body_q.numpy()

    both_q, both_body = simulate([pend_b, ant_b], act_offset=pend_b.joint_dof_count)
    pend_q, pend_body = simulate([pend_b], act_offset=None)
    ant_q, ant_body = simulate([ant_b], act_offset=0)
    np.testing.assert_allclose(both_q[:2], pend_q, atol=1e-6)
    np.testing.assert_allclose(both_q[2:], ant_q, atol=1e-6)
    np.testing.assert_allclose(both_body[:2], pend_body, atol=1e-6)
    np.testing.assert_allclose(both_body[2:], ant_body, atol=1e-6)
