"""eval_fk / eval_ik over all joint types: round trips and finite-difference velocity checks."""

import numpy as np
import warp as wp

import newton_gym as ng
from newton_gym.sim.hostmath import quat_conj, quat_from_axis_angle, quat_mul, quat_rotate


def _chain(builder, base_xform=(0, 0, 1, 0, 0, 0, 1)):
    b = builder
    inertia = np.diag([0.1, 0.2, 0.25])
    base = b.add_link(xform=base_xform, mass=1, com=(0.1, 0.2, 0.0), inertia=inertia)
    joints = [b.add_joint_free(base)]
    l1 = b.add_link(mass=1, com=(0, 0, -0.2), inertia=inertia)
    joints.append(
        b.add_joint_revolute(base, l1, parent_xform=(0.3, 0, 0, *quat_from_axis_angle([1, 1, 0], 0.4)), axis=(0, 1, 0))
    )
    l2 = b.add_link(mass=1, com=(0.05, 0, 0), inertia=inertia)
    joints.append(b.add_joint_prismatic(l1, l2, parent_xform=(0, 0, -0.4, 0, 0, 0, 1), axis=(1, 0, 0)))
    l3 = b.add_link(mass=1, com=(0.05, 0.02, 0), inertia=inertia)
    joints.append(b.add_joint_ball(l2, l3, parent_xform=(0, 0.1, 0, 0, 0, 0, 1), child_xform=(0, 0, 0.1, 0, 0, 0, 1)))
    l4 = b.add_link(mass=1, com=(0.05, 0.02, 0.03), inertia=inertia)
    joints.append(
        b.add_joint_d6(
            l3,
            l4,
            linear_axes=[(1, 0, 0), (0, 0, 1)],
            angular_axes=[(1, 0, 0), (0, 1, 0), (0, 0, 1)],
            parent_xform=(0, 0.1, 0, 0, 0, 0, 1),
        )
    )
    l5 = b.add_link(mass=1, com=(0.0, 0.1, 0.0), inertia=inertia)
    joints.append(b.add_joint_fixed(l4, l5, parent_xform=(0.1, 0, 0, 0, 0, 0, 1)))
    b.add_articulation(joints)


def _random_q(model, rng):
    q = model.joint_q.numpy().copy()
    for k in range(model.world_count or 1):
        o = k * 18
        q[o : o + 3] = rng.normal(size=3)
        q[o + 3 : o + 7] = rng.normal(size=4)
        q[o + 3 : o + 7] /= np.linalg.norm(q[o + 3 : o + 7])
        q[o + 7] = rng.uniform(-2, 2)
        q[o + 8] = rng.uniform(-0.3, 0.3)
        b = rng.normal(size=4)
        q[o + 9 : o + 13] = b / np.linalg.norm(b)
        q[o + 13 : o + 15] = rng.uniform(-0.2, 0.2, size=2)
        q[o + 15 : o + 18] = rng.uniform(-1.0, 1.0, size=3)
    return q


def _model(worlds=2):
    robot = ng.ModelBuilder()
    _chain(robot)
    scene = ng.ModelBuilder()
    scene.replicate(robot, worlds)
    return scene.finalize()


def _fk(model, q, qd):
    s = model.state()
    ng.eval_fk(model, wp.array(q, dtype=float), wp.array(qd, dtype=float), s)
    return s.body_q.numpy().astype(np.float64), s.body_qd.numpy().astype(np.float64)


def test_fk_ik_round_trip_all_joint_types():
    model = _model()
    assert model.joint_coord_count == 36
    rng = np.random.default_rng(1)
    q = _random_q(model, rng)
    qd = rng.normal(size=model.joint_dof_count)
    s = model.state()
    ng.eval_fk(model, wp.array(q, dtype=float), wp.array(qd, dtype=float), s)
    q2, qd2 = wp.zeros(model.joint_coord_count, dtype=float), wp.zeros(model.joint_dof_count, dtype=float)
    ng.eval_ik(model, s, q2, qd2)
    q2 = q2.numpy()
    for o in (3, 9, 21, 27):  # quaternions are equal up to sign
        if np.dot(q2[o : o + 4], q[o : o + 4]) < 0:
            q2[o : o + 4] *= -1
    np.testing.assert_allclose(q2, q, atol=2e-5)
    np.testing.assert_allclose(qd2.numpy(), qd, atol=2e-5)


def _integrate(q, qd, dt):
    """Advance coordinates by dt along qd (quaternions by the exponential map)."""
    out = q.copy()
    for o, d in ((0, 0), (18, 16)):
        out[o : o + 3] += qd[d : d + 3] * dt  # free: COM velocity, corrected below via com offset
        w = qd[d + 3 : d + 6]
        out[o + 3 : o + 7] = quat_mul(quat_from_axis_angle(w, np.linalg.norm(w) * dt), q[o + 3 : o + 7])
        out[o + 7 : o + 9] += qd[d + 6 : d + 8] * dt
        wb = qd[d + 8 : d + 11]  # ball: child-frame angular velocity -> right multiplication
        out[o + 9 : o + 13] = quat_mul(q[o + 9 : o + 13], quat_from_axis_angle(wb, np.linalg.norm(wb) * dt))
        out[o + 13 : o + 18] += qd[d + 11 : d + 16] * dt
    return out


def test_fk_velocity_matches_finite_difference():
    model = _model()
    rng = np.random.default_rng(2)
    q = _random_q(model, rng)
    qd = rng.normal(size=model.joint_dof_count)
    com = model.body_com.numpy().astype(np.float64)
    # Free joint coordinates are the body origin; its qd is the COM velocity. Shift q so the COM moves by v dt.
    dt = 1e-4
    bq0, bqd = _fk(model, q, qd)
    q1 = _integrate(q, qd, dt)
    for o, body in ((0, 0), (18, 6)):
        c0 = quat_rotate(q[o + 3 : o + 7], com[body])
        c1 = quat_rotate(q1[o + 3 : o + 7], com[body])
        q1[o : o + 3] -= c1 - c0
    bq1, _ = _fk(model, q1, qd)
    x0 = bq0[:, :3] + quat_rotate(bq0[:, 3:], com)
    x1 = bq1[:, :3] + quat_rotate(bq1[:, 3:], com)
    np.testing.assert_allclose((x1 - x0) / dt, bqd[:, :3], atol=5e-3)
    dq = quat_mul(bq1[:, 3:], quat_conj(bq0[:, 3:]))
    dq *= np.sign(dq[:, 3:4])
    w_fd = 2.0 * dq[:, :3] / dt
    np.testing.assert_allclose(w_fd, bqd[:, 3:], atol=5e-3)


def test_fk_mask_updates_only_selected_articulations():
    model = _model(3)
    q = _random_q(model, np.random.default_rng(3))
    s = model.state()
    before = s.body_q.numpy().copy()
    mask = wp.array([False, True, False], dtype=bool)
    ng.eval_fk(model, wp.array(q, dtype=float), model.joint_qd, s, mask=mask)
    after = s.body_q.numpy()
    np.testing.assert_array_equal(after[:6], before[:6])
    np.testing.assert_array_equal(after[12:], before[12:])
    assert np.abs(after[6:12] - before[6:12]).max() > 1e-3
