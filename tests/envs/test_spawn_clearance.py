"""SpawnClearance: the lift that puts the lowest point of a robot's foot shapes on the ground under it, against
closed-form answers (sphere, tilted capsule, turned box over a sloped heightfield and a box step), and
Go1-Rough's resets: feet never start inside the terrain, and a foot that did would stay stuck in the prisms."""

import math

import numpy as np
import pytest
import torch
import warp as wp

import newton_gym as ng
from newton_gym.envs.spawn_clearance import SpawnClearance
from newton_gym.sim.hostmath import quat_rotate


def _quat_y(angle):
    return (0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2))


def _ground(x, y):
    """The test field's surface: a slope of 0.1 along x, on a 0.05 m grid (exact on its triangles)."""
    return 0.1 * (x + 1.0)


def _model():
    b = ng.ModelBuilder()
    xs = np.linspace(-1.0, 1.0, 41)
    field = ng.Heightfield(np.tile(0.1 * (xs + 1.0), (41, 1)), 1.0, 1.0, 0.5)  # rows along y, columns along x
    b.add_shape_heightfield(heightfield=field)
    b.add_shape_box(-1, xform=(0.6, 0.6, 0.2, 0.0, 0.0, 0.0, 1.0), hx=0.2, hy=0.2, hz=0.2)  # a step, top z 0.4
    robot = ng.ModelBuilder()
    feet = []
    foot = robot.add_body(xform=(-0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0))  # sphere r 0.05 centred at z 0
    robot.add_shape_sphere(foot, radius=0.05)
    feet.append(foot)
    foot = robot.add_body(xform=(0.0, -0.5, 0.3, *_quat_y(math.pi / 3)))  # capsule tilted 60 degrees
    robot.add_shape_capsule(foot, radius=0.02, half_height=0.2)
    feet.append(foot)
    foot = robot.add_body(xform=(0.6, 0.6, 0.45, 0.0, 0.0, 0.0, 1.0))  # over the step
    robot.add_shape_box(foot, xform=(0.0, 0.0, 0.0, *_quat_y(math.pi / 4)), hx=0.1, hy=0.05, hz=0.1)
    feet.append(foot)
    other = robot.add_body(xform=(0.0, 0.5, -1.0, 0.0, 0.0, 0.0, 1.0))  # deep, but not a foot
    robot.add_shape_sphere(other, radius=0.05)
    b.replicate(robot, 2)
    model = b.finalize("cpu")
    return model, feet


def test_lift_brings_the_deepest_foot_point_to_the_ground():
    model, feet = _model()
    state = model.state()
    clearance = SpawnClearance(model, feet, 2)
    assert clearance.num_probes == 1 + 2 + 8
    lift = clearance.lift(state, torch.tensor([True, False]))
    # sphere: bottom -0.05 over ground 0.05 -> 0.10; capsule: lower end at x = -0.2 sin 60, z = 0.3 - 0.2 cos 60
    # - 0.02, ground 0.1 (1 - 0.2 sin 60); box turned 45 degrees: lowest corner 0.45 - 0.1 sqrt 2, step top 0.4
    capsule_end = (-0.2 * math.sin(math.pi / 3), 0.3 - 0.2 * math.cos(math.pi / 3) - 0.02)
    expected = max(
        _ground(-0.5, 0.0) + 0.05,
        _ground(capsule_end[0], -0.5) - capsule_end[1],
        0.4 - (0.45 - 0.1 * math.sqrt(2.0)),
    )
    assert lift[0].item() == pytest.approx(expected, abs=1e-5)
    assert lift[1].item() == 0.0  # not in the mask
    q = wp.to_torch(state.body_q)
    q[:, 2] += 1.0  # every body a metre up: nothing below the ground
    assert clearance.lift(state, torch.tensor([True, True])).tolist() == [0.0, 0.0]


def test_go1_rough_resets_put_every_foot_on_or_above_the_terrain():
    import gymnasium as gym

    env = gym.make_vec("Newton/Go1-Rough-v0", num_envs=16, device="cpu", max_init_level=5)
    try:
        lifts = []
        task = env.task
        measure = task.spawn_lift
        task.spawn_lift = lambda sim, mask: lifts.append(measure(sim, mask)) or lifts[-1]
        env.reset(seed=3)
        assert (lifts[0] > 0.01).sum() >= 8, "the reset's joint scaling puts feet below the ground"
        after = task.clearance.lift(env.sim.state, torch.ones(16, dtype=torch.bool))
        assert after.max().item() < 1e-4
        # each foot sphere's bottom against the field under it (the terrain's own elevation function)
        terrain = task.terrain
        body_q = env.sim.views.body_q
        for w in range(16):
            for f in task.foot_index.tolist():
                q = body_q[w, f].double().numpy()
                p = q[:3] + quat_rotate(q[3:7], [0.0, 0.0, -0.213])  # the Go1 foot sphere's centre
                ground = terrain.field_center[2] + terrain.heightfield.height_at(
                    p[0] - terrain.field_center[0], p[1] - terrain.field_center[1]
                )
                assert p[2] - 0.023 >= float(ground) - 1e-4 or _on_a_box(terrain, p)
    finally:
        env.close()


def _on_a_box(terrain, p):
    """Whether the point p stands on or over one of the terrain's boxes (its field lies below it)."""
    for cx, cy, cz, hx, hy, hz, yaw in terrain.boxes:
        dx, dy = p[0] - cx, p[1] - cy
        x, y = math.cos(yaw) * dx + math.sin(yaw) * dy, -math.sin(yaw) * dx + math.cos(yaw) * dy
        if abs(x) <= hx + 0.023 and abs(y) <= hy + 0.023 and p[2] - 0.023 >= cz + hz - 1e-4:
            return True
    return False


def test_a_foot_started_inside_the_field_stays_stuck_without_the_lift():
    """Why the lift exists: on an all-flat field at the home targets, a reset without it leaves stretched
    legs in the prisms (feet below the surface after 0.5 s); with it every foot stands on the surface."""
    import gymnasium as gym

    flat = {"num_rows": 2, "num_cols": 4, "sub_terrains": {"flat": {"kind": "flat", "proportion": 1.0}}}
    depth = {}
    for lifted in (True, False):
        env = gym.make_vec(
            "Newton/Go1-Rough-v0", num_envs=16, device="cpu", terrain=flat, noise=False, push_interval=(1e9, 1e9)
        )
        try:
            if not lifted:
                env.task.spawn_lift = lambda sim, mask: None
            env.reset(seed=0)
            for _ in range(25):
                env.step(torch.zeros(16, 12))
            q = env.sim.views.body_q[:, env.task.foot_index]  # calf frames
            # the foot sphere's centre is 0.213 m along the calf's -z; its bottom 0.023 below that
            down = torch.tensor([0.0, 0.0, -0.213]).expand(*q.shape[:-1], 3)
            z = (q[..., :3] + quat_rotate(q[..., 3:7], down))[..., 2] - 0.023
            depth[lifted] = float((-z).clamp(min=0.0).max())
        finally:
            env.close()
    assert depth[True] < 0.005, depth
    assert depth[False] > 0.02, depth
