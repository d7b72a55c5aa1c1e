"""Newton/Go1-Rough-v0: terrain shared by the worlds, spawn on each world's patch, Isaac Lab's curriculum rule,
the height scan in the observations, the mean terrain level in ``info``, and the Gymnasium contract."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
import torch

import newton_gym  # noqa: F401
from newton_gym.errors import ConfigError
from newton_gym.sim.types import GeoType

# 2 levels x 4 columns of 4 m patches (stairs up, stairs down, rough, slope up) inside a 2 m border
TERRAIN = {
    "num_rows": 3,
    "num_cols": 4,
    "size": [4.0, 4.0],
    "border_width": 2.0,
    "sub_terrains": {
        "stairs": {"kind": "pyramid_stairs", "proportion": 1.0, "platform_width": 1.0},
        "stairs_down": {"kind": "pyramid_stairs", "proportion": 1.0, "platform_width": 1.0, "inverted": True},
        "rough": {"kind": "random_uniform", "proportion": 1.0, "platform_width": 1.0},
        "slope": {"kind": "pyramid_slope", "proportion": 1.0, "platform_width": 1.0},
    },
}


def make(num_envs=4, **kw):
    kw.setdefault("terrain", TERRAIN)
    kw.setdefault("max_init_level", 1)
    return gym.make_vec("Newton/Go1-Rough-v0", num_envs=num_envs, device="cpu", **kw)


@pytest.fixture(scope="module")
def env():
    e = make()
    yield e
    e.close()


def test_spaces_and_observations_hold_the_height_scan(env):
    obs, _ = env.reset(seed=1)
    rays = env.task.num_rays
    assert rays == 17 * 11
    assert obs.shape == (4, 48 + rays) and env.single_observation_space.shape == (48 + rays,)
    critic = env.critic_observation()
    assert critic.shape == (4, 54 + rays)
    assert torch.isfinite(obs).all() and torch.isfinite(critic).all()
    scan = critic[:, -rays:].numpy()
    assert (scan >= -1.0).all() and (scan <= 1.0).all()
    # each ray: clip(base z - ground z - 0.5) over the grid around the base, turned by its yaw
    from newton_gym.sensors.height_scan import grid_pattern

    task, terrain = env.task, env.task.terrain
    root = task.layout.root_pose().numpy()
    yaw = 2.0 * np.arctan2(root[:, 5], root[:, 6])  # (N,) about +z (xyzw): the spawn turns only about z
    grid = grid_pattern()
    for w in range(4):
        c, s = np.cos(yaw[w]), np.sin(yaw[w])
        x = root[w, 0] + c * grid[:, 0] - s * grid[:, 1] - terrain.field_center[0]
        y = root[w, 1] + s * grid[:, 0] + c * grid[:, 1] - terrain.field_center[1]
        ground = terrain.field_center[2] + terrain.heightfield.height_at(x, y)
        np.testing.assert_allclose(scan[w], np.clip(root[w, 2] - ground - 0.5, -1, 1), atol=1e-4)


def test_worlds_spawn_on_their_patch_and_share_one_terrain(env):
    env.reset(seed=2)
    task, model = env.task, env.sim.model
    assert len(model.heightfields) == 1
    assert int((model.shape_type.numpy() == int(GeoType.HFIELD)).sum()) == 1
    root = task.layout.root_pose()[:, :3]
    origin = task.origins[task.terrain_level, task.terrain_type]
    assert ((root[:, :2] - origin[:, :2]).abs() <= 0.5 + 1e-5).all()
    # home height above the patch, raised where the reset's joint scaling put a foot below the ground
    lift = root[:, 2].numpy() - origin[:, 2].numpy() - 0.278
    assert (lift >= -1e-5).all() and (lift <= 0.15).all(), lift
    assert task.terrain_type.tolist() == [0, 1, 2, 3]  # worlds spread over the columns
    assert (task.terrain_level <= 1).all()
    # the robot USD's own floor does not collide: the terrain carries the robot
    floors = (model.shape_type.numpy() == int(GeoType.PLANE)) & (model.shape_body.numpy() == -1)
    assert not model.shape_collide.numpy()[floors].any()


def test_terrain_memory_does_not_grow_with_the_worlds():
    small, large = make(num_envs=2), make(num_envs=8)
    a, b = small.sim.solver.contacts, large.sim.solver.contacts
    assert a.mesh_verts.shape == b.mesh_verts.shape  # the field's points, stored once
    assert small.sim.model.heightfields[0].heights.shape == large.sim.model.heightfields[0].heights.shape
    small.close(), large.close()


def test_sim_row_budget_caps_each_worlds_rows_and_a_world_over_it_ends():
    # [sim] row_budget is the solver's (MuJoCo's njmax): the default holds every slot against the terrain
    assert make(num_envs=2).sim.solver.rows.budget_host.min() > 1000
    roomy, tight = make(num_envs=2, sim={"row_budget": 400}), make(num_envs=2, sim={"row_budget": 16})
    assert (roomy.sim.solver.rows.budget_host == 400).all() and (tight.sim.solver.rows.budget_host == 16).all()
    for e in (roomy, tight):
        e.reset(seed=3)
    ended = torch.zeros(2, dtype=torch.bool)
    for _ in range(10):  # the reset may lift the robot clear of the ground (spawn clearance): it lands first
        obs, _, done, _, info = roomy.step(torch.zeros(2, 12))
        assert not done.any() and int(info["unhealthy_worlds"]) == 0
        # 12 joint-limit rows and one contact: a standing robot's four feet do not fit
        obs, _, done, _, info = tight.step(torch.zeros(2, 12))
        assert int(info["unhealthy_worlds"]) == int(done.sum()) and torch.isfinite(obs).all()
        ended |= done
    assert ended.all()
    roomy.close(), tight.close()


def test_the_robot_stands_on_the_terrain_and_info_reports_the_level(env):
    env.reset(seed=3)
    feet = []
    for k in range(35):
        _, _, terminated, _, info = env.step(torch.zeros(4, 12))
        if k >= 25:
            feet.append(env.sim.contact_wrench[:, env.task.foot_index, 2].clone())
    assert "terrain_level" in info["task"] and "lin_vel_error" in info["task"]
    assert float(info["task"]["terrain_level"]) == pytest.approx(env.task.terrain_level.float().mean().item())
    # The feet carry the robot (a foot on uneven ground chatters: at a given step one to four are loaded).
    feet = torch.stack(feet)
    weight = 9.81 * env.sim.model.body_mass.numpy().reshape(4, -1).sum(axis=1)
    assert ((feet > 0).any(dim=0).sum(dim=1) >= 3).all(), "the feet rest on the terrain"
    np.testing.assert_allclose(feet.sum(dim=2).mean(dim=0).numpy(), weight, rtol=0.25)
    height = env.critic_observation()[:, 12 + 3 * 12]
    assert ((height > 0.15) & (height < 0.4)).all(), "base height above the ground under it"


def test_curriculum_moves_levels_as_isaac_lab():
    e = make(num_envs=4, max_init_level=1)
    e.reset(seed=0)
    task = e.task
    task.terrain_level[:] = torch.tensor([0, 1, 2, 1])
    task.command[:] = torch.tensor([[1.0, 0.0, 0.0]] * 4)
    far = task.spawn_xy + torch.tensor([3.0, 0.0])  # > half a 4 m patch: up
    near = task.spawn_xy  # < 1 m/s x 20 s / 2: down
    task.root_xy[:] = torch.where(torch.tensor([True, False, True, False])[:, None], far, near)
    mask = torch.tensor([True, True, True, False])
    task._update_levels(mask)
    level = task.terrain_level.tolist()
    assert level[0] == 1 and level[1] == 0 and level[3] == 1  # up, down, untouched
    assert 0 <= level[2] < 3  # past the top level (2): a random level
    e.close()


def test_bad_terrain_settings_raise_config_errors():
    with pytest.raises(ConfigError, match="sub_terrains.x.kind"):
        make(num_envs=1, terrain={"sub_terrains": {"x": {"kind": "lava"}}})
    with pytest.raises(ConfigError, match="max_init_level"):
        make(num_envs=1, max_init_level=-1)
    with pytest.raises(ConfigError, match="max_init_level"):
        make(num_envs=1, max_init_level=1.5)
    assert make(num_envs=1, max_init_level=7).task.max_init_level == 2  # Isaac Lab's: at most the top level


def test_scan_after_autoresets_is_the_scan_of_the_state():
    """After steps in which worlds reset (their rays recast alone), the observation's and the critic's scans
    equal a full scan of the state they describe."""
    e = make(num_envs=8, max_episode_steps=3)
    e.reset(seed=0)
    gen = torch.Generator().manual_seed(0)
    rays = e.task.num_rays
    resets = 0
    for _ in range(7):
        _, _, terminated, truncated, _ = e.step(2.0 * torch.rand((8, 12), generator=gen) - 1.0)
        resets += int((terminated | truncated).sum())
        critic = e.critic_observation()
        e.task.scanner.update(e.sim.state)  # a full scan of the state
        full = e.task.scanner.heights(offset=0.5, clip=(-1.0, 1.0))
        torch.testing.assert_close(critic[:, -rays:], full, rtol=0, atol=0)
    assert resets >= 8  # the worlds' episodes of 3 steps ended and were reset within the steps
    e.close()


_DIVERGED_WORLD = """
import math, sys, torch, gymnasium as gym
import newton_gym
env = gym.make_vec("Newton/Go1-Rough-v0", num_envs=4, device="cpu", terrain=TERRAIN, max_init_level=1)
env.reset(seed=0)
layout = env.unwrapped.task.layout
qpos, qvel = layout.qpos().clone(), layout.qvel().clone()
{corrupt}
layout.set_state(qpos, qvel, torch.tensor([False, True, False, False]))
obs, reward, terminated, _, info = env.step(torch.zeros((4, 12)))
assert int(info["unhealthy_worlds"]) == 1 and bool(terminated[1]), (info["unhealthy_worlds"], terminated)
assert bool(torch.isfinite(obs).all()) and bool(torch.isfinite(reward).all())
obs, reward, terminated, _, info = env.step(torch.zeros((4, 12)))  # world 1 back on its patch
assert int(info["unhealthy_worlds"]) == 0 and bool(torch.isfinite(obs).all())
print("survived")
"""


@pytest.mark.parametrize(
    "corrupt", ["qpos[1, 0] = math.nan", "qpos[1, 2] = math.inf", "qvel[1, 0] = math.nan", "qvel[1, 3] = 1e30"]
)
def test_a_diverged_world_on_the_terrain_is_reset_without_crashing(corrupt):
    """A world whose state went non-finite: the heightfield narrow phase skips its shapes (before, a NaN
    position made the cell range index the field's blocks out of bounds: a segfault), the world is reported
    unhealthy and reset, and no NaN reaches an observation or reward. In a child process, which a crash cannot
    take down with the test run."""
    import subprocess
    import sys

    script = f"TERRAIN = {TERRAIN!r}\n" + _DIVERGED_WORLD.format(corrupt=corrupt)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr[-2000:]}"
    assert "survived" in run.stdout


def test_default_terrain_is_isaac_labs_go1_mix():
    """The task's default terrain is Isaac Lab's rough Go1 mix (UnitreeGo1RoughEnvCfg): the general mix of
    configs/terrain_rough.toml with lower block grids and roughness, which its patches' heights show; a table of
    top-level keys keeps that mix, a table or TOML file naming its own sub-terrains keeps theirs."""
    import os

    from newton_gym.envs.go1_rough import task_terrain
    from newton_gym.terrain import rough_sub_terrains

    terrain = task_terrain(None)
    subs, general = terrain.cfg.sub_terrains, rough_sub_terrains()
    assert subs["boxes"].grid_height_range == (0.025, 0.1)
    assert (subs["random_rough"].noise_range, subs["random_rough"].noise_step) == ((0.01, 0.06), 0.01)
    assert {k: v for k, v in subs.items() if k not in ("boxes", "random_rough")} == {
        k: v for k, v in general.items() if k not in ("boxes", "random_rough")
    }
    # the height span of every random-rough and block-grid patch
    px, py, border = terrain.cfg.cells()
    z, names = terrain.heightfield.heights, terrain.kind_names
    span = {"random_rough": 0.0, "boxes": 0.0}
    for i, j in zip(*np.nonzero(np.isin(names, list(span)))):  # level i along x, column j along y
        patch = z[border + j * py : border + (j + 1) * py + 1, border + i * px : border + (i + 1) * px + 1]
        span[names[i, j]] = max(span[names[i, j]], float(patch.max() - patch.min()))
    assert 0.04 < span["random_rough"] <= 0.06 + 1e-6  # noise up to 0.06 m above the edges (general mix: 0.10)
    assert 0.1 < span["boxes"] <= 0.2 + 1e-6  # block tops in [-0.1, 0.1] at the top level (general: 0.2)
    small = task_terrain({"num_rows": 2, "num_cols": 6, "border_width": 2.0})
    assert small.cfg.sub_terrains == subs and small.cfg.num_rows == 2
    assert task_terrain(TERRAIN).cfg.sub_terrains.keys() == TERRAIN["sub_terrains"].keys()
    configs = os.path.join(os.path.dirname(__file__), "..", "..", "configs")
    assert task_terrain(os.path.join(configs, "terrain_rough.toml")).cfg.sub_terrains == general
    assert task_terrain(os.path.join(configs, "terrain_go1_rough.toml")).cfg == terrain.cfg  # the file says it


def test_heading_command_steers_toward_each_episodes_heading():
    """Isaac Lab's heading command: the yaw-rate command is 0.5 x the wrapped heading error, clipped to
    [-1, 1] rad/s, in the command and the observation; standing worlds keep a zero command."""
    env = make(num_envs=16, heading_command=True)
    try:
        task = env.task
        obs, _ = env.reset(seed=5)
        for _ in range(3):
            obs, *_ = env.step(torch.zeros(16, 12))
        q = task.layout.qpos()[:, 3:7]
        yaw = torch.atan2(2 * (q[:, 0] * q[:, 3] + q[:, 1] * q[:, 2]), 1 - 2 * (q[:, 2] ** 2 + q[:, 3] ** 2))
        error = torch.atan2(torch.sin(task.heading - yaw), torch.cos(task.heading - yaw))
        expected = torch.where(task.standing, torch.zeros(16), (0.5 * error).clamp(-1.0, 1.0))
        torch.testing.assert_close(task.command[:, 2], expected, atol=1e-5, rtol=0)
        torch.testing.assert_close(obs[:, 11], task.command[:, 2])  # the observation's yaw-rate command
        assert (task.heading.abs() <= math.pi).all() and task.heading.std() > 0.5
        assert (task.command[task.standing] == 0).all()
    finally:
        env.close()
    fixed = make(num_envs=2)  # the default: drawn yaw rates
    try:
        fixed.reset(seed=5)
        before = fixed.task.command.clone()
        fixed.step(torch.zeros(2, 12))
        assert torch.equal(fixed.task.command, before)  # the drawn yaw rate holds
    finally:
        fixed.close()
