"""Contact parameters edited after the solver is built: notify_model_changed and set_world_friction."""

import numpy as np
import warp as wp
from solver_helpers import run

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized, SolverNotifyFlags

TILT = np.radians(30.0)  # gravity tilted by 30 degrees: a box on flat ground feels a 30 degree incline
G = 9.81


def _boxes_on_tilted_gravity(worlds=2, mu=0.5):
    """Boxes (0.2 m cubes, 1 kg) resting on one shared ground plane, every world's gravity tilted by TILT."""
    cfg = ng.ModelBuilder.ShapeConfig(mu=mu)
    one = ng.ModelBuilder()
    body = one.add_body(xform=[0, 0, 0.1, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    one.add_shape_box(body, hx=0.1, hy=0.1, hz=0.1, cfg=cfg)
    scene = ng.ModelBuilder()
    scene.add_ground_plane(cfg=cfg)
    for _ in range(worlds):
        scene.add_world(one, gravity=(G * np.sin(TILT), 0.0, -G * np.cos(TILT)))
    return scene.finalize("cpu")


def _slide_acceleration(xs, dt):
    t = dt * np.arange(1, len(xs) + 1)
    return 2.0 * np.polyfit(t[100:], xs[100:], 2)[0]


def test_notify_recombines_pair_parameters_from_edited_shapes():
    model = _boxes_on_tilted_gravity()
    solver = SolverGeneralized(model)
    c = solver.contacts
    rng = np.random.default_rng(3)
    n = model.shape_count
    mu, margin, gap = rng.uniform(0.1, 1.5, n), rng.uniform(0.0, 0.01, n), rng.uniform(0.0, 0.01, n)
    solref, solimp = rng.uniform(0.01, 0.05, (n, 2)), rng.uniform(0.1, 0.9, (n, 5))
    before = c.pair_mu.numpy().copy()
    model.shape_material_mu.assign(mu.astype(np.float32))
    model.shape_contact_margin.assign(margin.astype(np.float32))
    model.shape_contact_gap.assign(gap.astype(np.float32))
    model.shape_solref.assign(solref.astype(np.float32))
    model.shape_solimp.assign(solimp.astype(np.float32))
    np.testing.assert_array_equal(c.pair_mu.numpy(), before)  # cached until notified
    solver.notify_model_changed(SolverNotifyFlags.SHAPE_PROPERTIES)
    a, b = c.pair_shape_host.T
    np.testing.assert_allclose(c.pair_mu.numpy()[: c.pair_count], np.maximum(mu[a], mu[b]), rtol=1e-6)
    np.testing.assert_allclose(c.pair_gap.numpy()[: c.pair_count], gap[a] + gap[b], rtol=1e-5)
    np.testing.assert_allclose(
        c.pair_margin.numpy()[: c.pair_count], margin[a] + margin[b] + gap[a] + gap[b], rtol=1e-5
    )
    np.testing.assert_allclose(c.pair_solref.numpy()[: c.pair_count], 0.5 * (solref[a] + solref[b]), rtol=1e-6)
    np.testing.assert_allclose(c.pair_solimp.numpy()[: c.pair_count], 0.5 * (solimp[a] + solimp[b]), rtol=1e-6)


def test_notified_friction_changes_sliding():
    model = _boxes_on_tilted_gravity(worlds=1)
    solver = SolverGeneralized(model)
    dt = 0.002
    _, xs = run(model, solver, 400, dt, record=lambda s: s.joint_q.numpy()[0])
    analytic = G * (np.sin(TILT) - 0.5 * np.cos(TILT))  # mu 0.5 < tan 30 deg: slides
    assert abs(_slide_acceleration(np.array(xs), dt) - analytic) < 0.05 * analytic
    model.shape_material_mu.fill_(0.8)  # above tan 30 deg = 0.577: holds
    solver.notify_model_changed(SolverNotifyFlags.SHAPE_PROPERTIES)
    state = model.state()
    _, xs = run(model, solver, 400, dt, state=state, record=lambda s: s.joint_q.numpy()[0])
    assert abs(xs[-1] - xs[100]) < 1e-2


def test_world_friction_changes_only_the_masked_worlds():
    model = _boxes_on_tilted_gravity(worlds=2)
    solver = SolverGeneralized(model)
    solver.set_world_friction(wp.array([0.8, 0.1], dtype=float), wp.array([True, False], dtype=bool))
    c = solver.contacts
    world = c.pair_world_host
    mu = c.pair_mu.numpy()[: c.pair_count]
    np.testing.assert_allclose(mu[world == 0], 0.8)
    np.testing.assert_allclose(mu[world == 1], 0.5)  # unmasked: keeps its shapes' value
    dt = 0.002
    _, xs = run(model, solver, 400, dt, record=lambda s: s.joint_q.numpy()[[0, 7]].copy())
    xs = np.array(xs)
    assert abs(xs[-1, 0] - xs[100, 0]) < 1e-2  # world 0 holds
    analytic = G * (np.sin(TILT) - 0.5 * np.cos(TILT))
    assert abs(_slide_acceleration(xs[:, 1], dt) - analytic) < 0.05 * analytic  # world 1 slides as before
    solver.notify_model_changed(SolverNotifyFlags.SHAPE_PROPERTIES)  # back to the shapes' friction
    np.testing.assert_allclose(c.pair_mu.numpy()[: c.pair_count], 0.5)


PRIORITY_XML = """<mujoco><option timestep="0.002" integrator="implicitfast"/>
<worldbody>
 <geom name="floor" type="plane" size="0 0 1" solref="0.05 1" friction="1.2" condim="3"/>
 <body name="ball" pos="0 0 0.3"><freejoint/>
  <geom type="sphere" size="0.1" mass="1" solref="0.005 1" friction="0.3" condim="{condim}" priority="{priority}"/>
 </body>
</worldbody></mujoco>"""


def test_higher_priority_shape_sets_the_contact_parameters():
    """MuJoCo: the higher-priority geom alone sets condim, friction and solref (a 10x stiffer solref and
    a 4x lower friction here); equal priorities average solref and take the larger friction. The ball's
    bounce off the floor follows MuJoCo's in both cases."""
    import mujoco
    from solver_helpers import model_from_xml

    for priority, condim in ((1, 1), (0, 3)):
        m = mujoco.MjModel.from_xml_string(PRIORITY_XML.format(priority=priority, condim=condim))
        d = mujoco.MjData(m)
        d.qvel[0], d.qvel[2] = 1.0, -1.0
        model, _, _ = model_from_xml(m)
        state = model.state()
        state.joint_qd.assign(np.array([1.0, 0.0, -1.0, 0.0, 0.0, 0.0], np.float32))
        solver = SolverGeneralized(model)
        assert solver.contacts.pair_condim_host.tolist() == [condim]
        ref = []
        for _ in range(300):
            mujoco.mj_step(m, d)
            ref.append(d.qpos[:3].copy())
        _, ours = run(model, solver, 300, m.opt.timestep, state=state, record=lambda s: s.joint_q.numpy()[:3].copy())
        np.testing.assert_allclose(np.array(ours), np.array(ref), atol=2e-3)
        expected_solref = (0.005, 1.0) if priority else (0.0275, 1.0)
        np.testing.assert_allclose(solver.contacts.pair_solref.numpy()[0], expected_solref, rtol=1e-6)
        assert np.isclose(solver.contacts.pair_mu.numpy()[0], 0.3 if priority else 1.2)
