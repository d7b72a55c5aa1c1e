"""The sim-to-sim tracking evaluation builds the same observation and control in MuJoCo C as the task
does in newton_gym: a policy that holds still, and one that reacts to the observation (a fixed linear
map), give the same tracking errors in both simulators."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("mujoco")

from newton_gym.train.velocity_eval import tracking_error_mujoco, tracking_error_newton  # noqa: E402

COMMANDS = np.array([[0.5, 0.0, 0.0], [0.0, 0.0, 0.8]], dtype=np.float32)


def test_holding_policy_errors_agree():
    zero = lambda obs: torch.zeros(obs.shape[0], 12)  # noqa: E731
    ours = tracking_error_newton(zero, commands=COMMANDS, seconds=1.5, settle=0.5)
    ref = tracking_error_mujoco(zero, commands=COMMANDS, seconds=1.5, settle=0.5)
    np.testing.assert_allclose(ours, [0.5, 0.0], atol=0.05)  # stands still: the error is the command
    np.testing.assert_allclose(ours, ref, atol=2e-3)


def test_a_fall_ends_the_walk_in_both_simulators_by_the_same_rule():
    """Joint targets far past home fold the legs: the base lands on the floor in both simulators, both call
    it a fall (the task's termination rule, read in MuJoCo C from its contacts and base frame) and count the
    error of standing still from then on; the holding policy does not fall."""
    fold = lambda obs: torch.full((obs.shape[0], 12), 3.0)  # noqa: E731
    ours, ours_fell = tracking_error_newton(fold, commands=COMMANDS, seconds=1.5, settle=0.5, return_falls=True)
    ref, ref_fell = tracking_error_mujoco(fold, commands=COMMANDS, seconds=1.5, settle=0.5, return_falls=True)
    assert ours_fell.all() and ref_fell.all()
    np.testing.assert_allclose(ours, [0.5, 0.0], atol=1e-6)  # fell within the settling second: |cmd_xy| after
    np.testing.assert_allclose(ref, [0.5, 0.0], atol=1e-6)
    zero = lambda obs: torch.zeros(obs.shape[0], 12)  # noqa: E731
    _, ours_fell = tracking_error_newton(zero, commands=COMMANDS, seconds=1.0, settle=0.5, return_falls=True)
    _, ref_fell = tracking_error_mujoco(zero, commands=COMMANDS, seconds=1.0, settle=0.5, return_falls=True)
    assert not ours_fell.any() and not ref_fell.any()


def test_reactive_policy_errors_agree():
    """A fixed random linear feedback from the observation (joint state, velocities, command, last action)
    to the action: any mismatch in the observation's terms, order or frames changes the motion."""
    gen = torch.Generator().manual_seed(0)
    weights = 0.05 * torch.randn(48, 12, generator=gen)
    policy = lambda obs: (obs @ weights).clamp(-1.0, 1.0)  # noqa: E731
    ours = tracking_error_newton(policy, commands=COMMANDS, seconds=1.0, settle=0.2)
    ref = tracking_error_mujoco(policy, commands=COMMANDS, seconds=1.0, settle=0.2)
    np.testing.assert_allclose(ours, ref, atol=5e-3)


# Rough terrain: a small terrain (3 levels x 2 columns of 4 m patches) of random roughness, both simulators
# starting on patch (1, 1); MuJoCo C runs the Go1 MJCF with the terrain added as an <hfield>.
ROUGH = {
    "num_rows": 3,
    "num_cols": 2,
    "size": [4.0, 4.0],
    "border_width": 2.0,
    "sub_terrains": {"rough": {"kind": "random_uniform", "proportion": 1.0, "platform_width": 0.6}},
}


def test_rough_terrain_in_mujoco_is_the_same_field():
    from newton_gym.assets.robots import robot_source_path
    from newton_gym.terrain import generate_terrain
    from newton_gym.train.velocity_eval import _with_terrain

    terrain = generate_terrain(ROUGH)
    m = _with_terrain(robot_source_path("go1"), terrain)
    field = terrain.heightfield
    k = m.nhfield - 1
    assert (m.hfield_nrow[k], m.hfield_ncol[k]) == field.heights.shape
    heights = m.hfield_data.reshape(field.heights.shape) * m.hfield_size[k, 2]
    geom = int(np.nonzero(m.geom_type == 1)[0][0])
    np.testing.assert_allclose(heights + m.geom_pos[geom, 2], field.heights + terrain.field_center[2], atol=1e-5)
    assert m.hfield_size[k, 0] == pytest.approx(field.hx) and m.hfield_size[k, 1] == pytest.approx(field.hy)


@pytest.mark.parametrize("kind", ["hold", "reactive"])
def test_rough_policy_errors_agree(kind):
    """The observation includes the height scan: the reactive policy reads it too, so a scan that differs
    between the simulators (rays, order, yaw, offset) changes the motion."""
    from newton_gym.terrain import generate_terrain

    gen = torch.Generator().manual_seed(1)
    weights = 0.05 * torch.randn(48 + 187, 12, generator=gen)
    if kind == "hold":
        policy = lambda obs: torch.zeros(obs.shape[0], 12)  # noqa: E731
    else:
        policy = lambda obs: (obs @ weights).clamp(-1.0, 1.0)  # noqa: E731
    task = "Newton/Go1-Rough-v0"
    ours = tracking_error_newton(policy, task, COMMANDS, seconds=1.0, settle=0.2, terrain=ROUGH, patch=(1, 1))
    terrain = generate_terrain(ROUGH)
    ref = tracking_error_mujoco(policy, "go1", COMMANDS, seconds=1.0, settle=0.2, terrain=terrain, patch=(1, 1))
    np.testing.assert_allclose(ours, ref, atol=5e-3)


def test_blind_rough_policy_errors_agree():
    """A rough policy trained without the height scan (``height_scan_policy = false``) reads the flat task's 48
    terms in both simulators, on the same field."""
    from newton_gym.terrain import generate_terrain

    gen = torch.Generator().manual_seed(2)
    weights = 0.05 * torch.randn(48, 12, generator=gen)

    def policy(obs):
        assert obs.shape[-1] == 48, obs.shape
        return (obs @ weights).clamp(-1.0, 1.0)

    task = "Newton/Go1-Rough-v0"
    ours = tracking_error_newton(
        policy, task, COMMANDS, seconds=1.0, settle=0.2, terrain=ROUGH, patch=(1, 1), height_scan=False
    )
    terrain = generate_terrain(ROUGH)
    ref = tracking_error_mujoco(
        policy, "go1", COMMANDS, seconds=1.0, settle=0.2, terrain=terrain, patch=(1, 1), height_scan=False
    )
    np.testing.assert_allclose(ours, ref, atol=5e-3)


def test_shipped_rough_policy_walks_in_both_simulators():
    """``go1_rough_newton.pt`` (80 minutes of CPU training in two stages on the task's default terrain) tracks
    forward and turning commands on a level-4 random-rough patch, in newton_gym and in MuJoCo C on the same
    heightfield."""
    import os

    from newton_gym.envs.go1_rough import task_terrain
    from newton_gym.train.checkpoint import load_policy

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    policy = load_policy(os.path.join(root, "newton_gym", "assets", "policies", "go1_rough_newton.pt"))
    commands = np.array([[0.8, 0.0, 0.0], [0.3, 0.0, 0.6]], dtype=np.float32)
    ours = tracking_error_newton(policy, "Newton/Go1-Rough-v0", commands, seconds=3.0, settle=1.0)
    ref = tracking_error_mujoco(policy, "go1", commands, seconds=3.0, settle=1.0, terrain=task_terrain(None))
    assert ours.max() < 0.15 and ref.max() < 0.15, (ours, ref)
    assert ref.mean() / ours.mean() < 1.5 and ours.mean() / ref.mean() < 1.5, (ours, ref)


def test_shipped_rough_policy_falls_on_the_same_stairs_in_both_simulators():
    """On a level-8 stairs-down patch (column 4 of the default terrain) the shipped rough policy falls under
    some of the evaluation's commands: the same ones in newton_gym and in MuJoCo C, and the mean errors (a
    fallen robot counting |cmd_xy|) agree; sim to sim holds where the policy fails too, not only on easy
    ground."""
    import os

    from newton_gym.envs.go1_rough import task_terrain
    from newton_gym.train.checkpoint import load_policy
    from newton_gym.train.velocity_eval import DEFAULT_COMMANDS

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    policy = load_policy(os.path.join(root, "newton_gym", "assets", "policies", "go1_rough_newton.pt"))
    patch = (8, 4)
    ours, ours_fell = tracking_error_newton(
        policy, "Newton/Go1-Rough-v0", DEFAULT_COMMANDS, seconds=6.0, patch=patch, return_falls=True
    )
    ref, ref_fell = tracking_error_mujoco(
        policy, "go1", DEFAULT_COMMANDS, seconds=6.0, terrain=task_terrain(None), patch=patch, return_falls=True
    )
    assert ours_fell.any() and not ours_fell.all(), ours_fell
    np.testing.assert_array_equal(ours_fell, ref_fell)
    # when a robot falls on the stairs differs a little (chaotic contact on the edges), so the mean, not each
    # command's error: newton_gym 0.307, MuJoCo C 0.307 m/s here
    assert abs(ours.mean() - ref.mean()) < 0.1 * ref.mean(), (ours, ref)
