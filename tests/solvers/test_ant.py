"""gymnasium's ant.xml, built from MuJoCo's compiled model, against MuJoCo C with the same integrator
(implicitfast) and time step (0.01 s, one solver step per MuJoCo step).

The 2 s gates use a full-range control: under a mild control (|ctrl| <= 0.3) a grazing foot contact
near 1.4 s makes MuJoCo itself diverge by 20-140 mm at 2 s when its start height is moved by 1e-7 m,
so no float32 engine can be held to centimetres there. Under the full-range control MuJoCo moves by
0.06 mm for the same nudge.
"""

import mujoco
import numpy as np
import pytest
from solver_helpers import ant_control, ant_path, model_from_xml, pendulum_xml, run

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized

SUBSTEPS = 1
DT = 0.01


def _mujoco_torso(m, ctrl):
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    d = mujoco.MjData(m)
    out = []
    for u in ctrl:
        d.ctrl[:] = u
        mujoco.mj_step(m, d)
        out.append(d.qpos[:3].copy())
    return np.array(out), d


def _ours(model, act, ctrl, steps, **kwargs):
    solver = SolverGeneralized(model, substeps=SUBSTEPS, iterations=50, actuators=act, **kwargs)
    _, torso = run(model, solver, steps, DT, ctrl=ctrl, record=lambda s: s.joint_q.numpy()[:3].copy())
    return np.array(torso), solver


def _gate(ours, ref):
    err = np.linalg.norm(ours - ref, axis=1)
    assert np.isfinite(ours).all()
    assert err[:100].max() < 0.005, err[:100].max()  # 5 mm over the first second
    assert err.max() < 0.03, err.max()  # 3 cm at 2 s


@pytest.mark.parametrize("solver", ["newton", "pgs"])
def test_ant_drop_tracks_mujoco_implicitfast(solver, device):
    m = mujoco.MjModel.from_xml_path(ant_path())
    model, act, _ = model_from_xml(m, device=device)
    ctrl = np.zeros((200, 8))
    ours, sim = _ours(model, act, ctrl, 200, solver=solver)
    ref, d = _mujoco_torso(m, ctrl)
    _gate(ours, ref)
    assert ref[0, 2] - ref[-1, 2] > 0.1  # it really falls onto its feet
    assert sim.world_unhealthy.numpy()[0] == 0
    assert sim.world_contact_count.numpy()[0] == d.ncon == 4  # four feet, as MuJoCo


def test_ant_sine_control_tracks_mujoco_implicitfast():
    m = mujoco.MjModel.from_xml_path(ant_path())
    model, act, _ = model_from_xml(m)
    ctrl = 10.0 * ant_control(200)  # amplitude 1: the whole control range
    ours, _ = _ours(model, act, ctrl, 200)
    ref, _ = _mujoco_torso(m, ctrl)
    _gate(ours, ref)
    assert np.ptp(ref[:, :2], axis=0).max() > 0.05  # the torso really moves


def test_pendulum_and_ant_worlds_match_their_single_world_runs(device):
    ant_m = mujoco.MjModel.from_xml_path(ant_path())
    pend_m = mujoco.MjModel.from_xml_string(pendulum_xml(2))
    from mujoco_builder import builder_from_mujoco

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
        act = (
            Actuators(ant_act.dof + act_offset, ant_act.gear, ant_act.ctrl_range, ant_act.force_range)
            if act_offset is not None
            else None
        )
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
