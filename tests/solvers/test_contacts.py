"""Contacts: resting heights, friction on an incline, contact outputs, broad-phase pairing."""

import numpy as np
import pytest
import warp as wp
from solver_helpers import run

import newton_gym as ng
from newton_gym.errors import SolverError
from newton_gym.sim.hostmath import quat_from_axis_angle, quat_rotate
from newton_gym.solvers import SolverGeneralized


@pytest.mark.parametrize("shape,height", [("sphere", 0.1), ("box", 0.05), ("capsule", 0.05), ("cylinder", 0.1)])
def test_drop_rests_at_analytic_height(shape, height, device):
    b = ng.ModelBuilder()
    b.add_ground_plane()
    body = b.add_body(xform=[0, 0, 0.5, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    if shape == "sphere":
        b.add_shape_sphere(body, radius=0.1)
    elif shape == "box":
        b.add_shape_box(body, hx=0.1, hy=0.15, hz=0.05)
    elif shape == "capsule":  # lying on its side
        b.add_shape_capsule(
            body, xform=[0, 0, 0, *quat_from_axis_angle([1, 0, 0], np.pi / 2)], radius=0.05, half_height=0.1
        )
    else:
        b.add_shape_cylinder(body, radius=0.08, half_height=0.1)
    model = b.finalize(device)
    solver = SolverGeneralized(model)
    final, _ = run(model, solver, 750, 0.002)
    assert abs(final.joint_q.numpy()[2] - height) < 2e-3
    assert np.abs(final.joint_qd.numpy()).max() < 1e-2
    # Contact outputs: the ground carries the weight.
    wrench = solver.body_contact_wrench.numpy()[0]
    np.testing.assert_allclose(wrench[:3], [0.0, 0.0, 9.81], atol=0.05)
    assert solver.body_contact_count.numpy()[0] >= 1
    assert solver.world_contact_count.numpy()[0] == solver.body_contact_count.numpy()[0]


def _incline(deg, cone, device="cpu"):
    q = quat_from_axis_angle([0, 1, 0], np.radians(deg))
    b = ng.ModelBuilder()
    cfg = ng.ModelBuilder.ShapeConfig(mu=0.5)
    b.add_shape_plane(-1, xform=np.concatenate([[0, 0, 0], q]), cfg=cfg)
    body = b.add_body(xform=np.concatenate([quat_rotate(q, [0, 0, 0.1]), q]), mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_shape_box(body, hx=0.1, hy=0.1, hz=0.1, cfg=cfg)
    model = b.finalize(device)
    solver = SolverGeneralized(model, cone=cone)
    dt = 0.002
    _, xs = run(model, solver, 500, dt, record=lambda s: s.joint_q.numpy()[:3].copy())
    along = np.array(xs) @ quat_rotate(q, [1.0, 0.0, 0.0])  # down-slope axis
    t = dt * np.arange(1, 501)
    return along, t


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_box_on_incline(cone, device):
    along, t = _incline(20.0, cone, device)
    # Holds: no acceleration; soft (MuJoCo-style) friction allows a slow creep of a few mm/s.
    assert abs(2.0 * np.polyfit(t[100:], along[100:], 2)[0]) < 0.02
    assert abs(along[-1] - along[100]) < 1e-2
    along, t = _incline(30.0, cone, device)
    acc = 2.0 * np.polyfit(t[100:], along[100:], 2)[0]
    th = np.radians(30.0)
    analytic = 9.81 * (np.sin(th) - 0.5 * np.cos(th))
    assert abs(acc - analytic) < 0.05 * abs(analytic)


def test_broadphase_pairs_stay_in_their_world_and_meet_globals():
    one = ng.ModelBuilder()
    body = one.add_body(xform=[0, 0, 0.2, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    one.add_shape_sphere(body, radius=0.1)
    group = ng.ModelBuilder.ShapeConfig(collision_group=3)
    one.add_shape_sphere(body, xform=[0.3, 0, 0, 0, 0, 0, 1], radius=0.05, cfg=group)
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(one, world_count=3)
    scene.add_shape_box(
        -1, xform=[5, 0, 0, 0, 0, 0, 1], hx=0.1, hy=0.1, hz=0.1, cfg=ng.ModelBuilder.ShapeConfig(collision_group=4)
    )
    model = scene.finalize("cpu")
    solver = SolverGeneralized(model)
    c = solver.contacts
    shapes = c.pair_shape_host
    world = model.shape_world.numpy()
    for a, b in shapes:
        wa, wb = world[a], world[b]
        assert wa == -1 or wb == -1 or wa == wb
    # Each world: 2 spheres x ground plane; same-body pairs and group 3 vs group 4 are filtered, the
    # global box meets the group -1 sphere of every world.
    assert c.pair_count == 3 * 3
    assert np.bincount(c.pair_world_host, minlength=3).tolist() == [3, 3, 3]


def test_margin_sets_rest_distance_and_gap_only_detects_early():
    """margin: force begins that far from the surface (checked against MuJoCo with gap 0); gap: contacts are
    found that much earlier but push nothing, so the rest height is unchanged (seed 000's definitions)."""
    mujoco = pytest.importorskip("mujoco")
    xml = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 .1"/>
      <body pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.1" mass="1" margin="0.02"/></body>
      </worldbody></mujoco>"""
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    for _ in range(750):
        mujoco.mj_step(mm, md)
    heights = []
    for gap in (0.0, 0.05):
        b = ng.ModelBuilder()
        b.add_ground_plane()
        body = b.add_body(xform=[0, 0, 0.5, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.004)
        b.add_shape_sphere(body, radius=0.1, cfg=ng.ModelBuilder.ShapeConfig(margin=0.02, gap=gap))
        model = b.finalize("cpu")
        solver = SolverGeneralized(model)
        final, _ = run(model, solver, 750, 0.002)
        heights.append(final.joint_q.numpy()[2])
    assert abs(heights[0] - md.qpos[2]) < 1e-3 and abs(heights[0] - 0.12) < 2e-3
    assert abs(heights[1] - heights[0]) < 1e-4
    # With a gap the contact is already listed while the sphere hovers 0.06 m above the plane.
    b = ng.ModelBuilder()
    b.add_ground_plane()
    body = b.add_body(xform=[0, 0, 0.16, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.004)
    b.add_shape_sphere(body, radius=0.1, cfg=ng.ModelBuilder.ShapeConfig(margin=0.02, gap=0.05))
    model = b.finalize("cpu")
    solver = SolverGeneralized(model)
    run(model, solver, 1, 0.002)
    assert solver.world_contact_count.numpy()[0] == 1
    assert abs(solver.body_contact_wrench.numpy()[0][2]) < 1e-6


def test_bundles_skip_only_pairs_that_cannot_touch():
    """A sphere flies past a body of two spheres (no gravity, no other contact), in two worlds of one template
    whose second moves its held spheres 0.3 m apart: a bundle (the pairs of one body pair) that is skipped
    whole never holds a touching pair in either world (its bound covers every world of the template), and its
    slots are cleared once it moves apart, so each pair's slot is active exactly while its spheres are closer
    than their radii plus margins."""
    from newton_gym.solvers.collision.driver import collide

    robot = ng.ModelBuilder(gravity=0.0)
    held = robot.add_body(xform=[0, 0, 0, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    robot.add_shape_sphere(held, xform=[0, -0.15, 0, 0, 0, 0, 1], radius=0.1)
    robot.add_shape_sphere(held, xform=[0, 0.15, 0, 0, 0, 0, 1], radius=0.1)
    flying = robot.add_body(xform=[-1.0, 0.2, 0, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    robot.add_shape_sphere(flying, radius=0.05)
    scene = ng.ModelBuilder(gravity=0.0)
    scene.replicate(robot, world_count=2, spacing=(0.0, 0.0, 0.0))
    model = scene.finalize("cpu")
    xf = model.shape_transform.numpy()
    xf[3:5, 1] *= 3.0  # world 1's held spheres at y = -0.45 and 0.45
    model.shape_transform.assign(xf)
    solver = SolverGeneralized(model)
    c = solver.contacts
    assert c.template_count == 1 and c.pair_count == 4 and c.pairs.block_bundle_start[-1] == 2
    margin = c.pair_margin.numpy()
    state = model.state()
    q = state.joint_q.numpy().reshape(2, -1)
    seen = set()
    # the flying spheres' path: far, touching the held spheres, far; then jumps between touching and far
    for x in np.concatenate([np.linspace(-1.0, 1.0, 81), [0.0, 1.0, 0.05, -0.8, 0.0, 0.9]]):
        q[:, 7] = x
        q[1, 8] = 0.5  # world 1's flying sphere passes its moved held sphere
        state.joint_q.assign(q.reshape(-1))
        ng.eval_fk(model, state.joint_q, state.joint_qd, state)
        collide(model, c, state.body_q)
        centre = state.body_q.numpy()[:, :3]
        world = c.pair_world_host
        for p, (a, bb) in enumerate(c.pair_shape_host):
            body_a, body_b = model.shape_body.numpy()[[a, bb]]
            pa = centre[body_a] + xf[a][:3]
            touching = np.linalg.norm(centre[body_b] - pa) - 0.15 < margin[p]
            assert c.active.numpy()[c.pair_slot_start_host[p]] == int(touching), (x, world[p])
            seen.add((int(world[p]), bool(touching)))
    assert seen == {(0, True), (0, False), (1, True), (1, False)}
    # the kernels read body_q element by element: a strided view is refused, naming the argument
    doubled = wp.zeros(2 * model.body_count, dtype=wp.transform, device="cpu")
    with pytest.raises(SolverError, match="body_q must be a contiguous array"):
        collide(model, c, doubled[::2])


def test_slot_forces_are_zero_exactly_where_slots_are_inactive():
    """A ball rests on the ground, is lifted off it and falls back (in contact, apart, in contact): after every
    step, a slot's force is
    non-zero only where the slot is active (the narrow phase clears both; the finish pass writes active ones),
    and the ground's slots add up to the ball's contact wrench."""
    b = ng.ModelBuilder()
    b.add_ground_plane()
    ball = b.add_body(xform=[0, 0, 0.1, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_shape_sphere(ball, radius=0.1)
    model = b.finalize("cpu")
    solver = SolverGeneralized(model)
    s0, s1, control = model.state(), model.state(), model.control()
    phases = set()
    for step in range(450):
        if step % 150 == 50:  # lift it 5 cm off the ground while it presses on it (0.2 s of fall), then rest
            q = s0.joint_q.numpy()
            q[2] += 0.05
            s0.joint_q.assign(q)
        solver.step(s0, s1, control, 0.002)
        s0, s1 = s1, s0
        active = solver.contacts.active.numpy()[: solver.contacts.slot_count] != 0
        force = solver.contacts.force.numpy()[: solver.contacts.slot_count]
        assert not np.abs(force[~active]).any()
        np.testing.assert_allclose(force.sum(axis=0), solver.body_contact_wrench.numpy()[0][:3], atol=1e-4)
        phases.add(bool(active.any()))
    assert phases == {True, False}
