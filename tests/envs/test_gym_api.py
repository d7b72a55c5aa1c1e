"""Gymnasium contract: env_checker, SAME_STEP autoreset, reset_mask, zero-copy state, errors, determinism."""

import gymnasium as gym
import numpy as np
import pytest
import torch
import warp as wp
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import newton_gym  # noqa: F401  (registers the ids)
from newton_gym.errors import ConfigError


@pytest.mark.parametrize("env_id", ["Newton/Cartpole-v0", "Newton/Ant-v0"])
def test_single_env_passes_gymnasium_checker(env_id):
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=3)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert isinstance(reward, float) and isinstance(terminated, bool)
    assert env.spec.max_episode_steps == 1000


def test_make_vec_spaces_and_metadata(device):
    env = gym.make_vec("Newton/Ant-v0", num_envs=3, device=device)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (27,) and env.single_action_space.shape == (8,)
    assert env.observation_space.shape == (3, 27) and env.action_space.shape == (3, 8)
    obs, info = env.reset(seed=0)
    assert torch.is_tensor(obs) and obs.shape == (3, 27) and obs.dtype == torch.float32


def _cartpole(n=4, **kw):
    return gym.make_vec("Newton/Cartpole-v0", num_envs=n, **kw)


def test_same_step_autoreset_on_termination(device):
    env = _cartpole(2, reset_noise_scale=0.0, device=device)
    env.reset(seed=1)
    env.joint_q[0, 1] = 0.19  # world 0's pole starts near the 0.2 rad termination angle, world 1's upright
    env.sim.refresh_bodies()
    for step in range(50):  # noqa: B007 (step is read after the loop)
        obs, reward, terminated, truncated, info = env.step(torch.zeros(2, 1, device=env.device))
        if terminated.any():
            break
    assert terminated.tolist() == [True, False]
    assert info["_final_obs"].tolist() == [True, False]
    assert info["final_obs"][0, 1].item() > 0.2  # the last observation of the finished episode
    assert obs[0].abs().max().item() == 0.0  # already the first observation of the next one (no noise)
    assert reward.tolist() == [0.0, 1.0]
    assert env.episode_length.tolist() == [0, step + 1]
    assert info["newton_episode"]["l"][0].item() == step + 1 and info["newton_episode"]["_r"].tolist() == [True, False]


def test_truncation_is_kept_apart_from_termination():
    env = _cartpole(3, max_episode_steps=5)
    env.reset(seed=0)
    for _ in range(4):
        _, _, terminated, truncated, info = env.step(torch.zeros(3, 1))
        assert not truncated.any() and "final_obs" not in info
    _, _, terminated, truncated, info = env.step(torch.zeros(3, 1))
    assert truncated.all() and not terminated.any() and info["_final_obs"].all()
    assert info["newton_episode"]["l"].tolist() == [5, 5, 5]


def test_reset_mask_resets_only_selected_worlds(device):
    env = _cartpole(3, device=device)
    env.reset(seed=0)
    for _ in range(10):
        env.step(torch.tensor([[1.0], [1.0], [1.0]], device=env.device))
    before = env.joint_q.clone()
    obs, _ = env.reset(options={"reset_mask": np.array([False, True, False])})
    after = env.joint_q
    assert torch.equal(after[0], before[0]) and torch.equal(after[2], before[2])
    assert not torch.equal(after[1], before[1]) and after[1].abs().max() <= 0.01 + 1e-6
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.array([True])})


def test_raw_state_is_zero_copy_across_steps(device):
    env = gym.make_vec("Newton/Ant-v0", num_envs=2, device=device)
    env.reset(seed=0)
    ptrs = [env.body_q.data_ptr(), env.joint_q.data_ptr()]
    assert ptrs[0] == wp.to_torch(env.sim.state.body_q).data_ptr()
    for _ in range(3):
        env.step(torch.zeros(2, 8, device=env.device))
    assert [env.body_q.data_ptr(), env.joint_q.data_ptr()] == ptrs
    assert env.body_q.shape == (2, env.sim.model.body_count // 2, 7)
    assert env.body_qd.shape[-1] == 6 and env.joint_qd.shape == (2, 14)


def test_nan_actions_never_reach_the_simulator(device):
    env = _cartpole(2, nan_action="raise", device=device)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="non-finite actions in envs \\[1\\]"):
        env.step(torch.tensor([[0.0], [float("nan")]], device=env.device))
    env = _cartpole(2, nan_action="zero", device=device)
    env.reset(seed=0)
    obs, _, _, _, info = env.step(torch.tensor([[0.0], [float("inf")]], device=env.device))
    assert info["nan_actions"] == 1 and torch.isfinite(obs).all()
    assert env.sim.ctrl[1].item() == 0.0
    with pytest.raises(ValueError, match="shape"):
        env.step(torch.zeros(3, 1, device=env.device))


def test_config_errors_name_the_key(tmp_path):
    with pytest.raises(ConfigError, match="randomization.gravity_q"):
        _cartpole(1, randomization={"gravity_q": (0, 1)})
    with pytest.raises(ConfigError, match="nan_action"):
        _cartpole(1, nan_action="ignore")
    bad = tmp_path / "bad.toml"
    bad.write_text("[sim]\nframe_skipp = 3\n")
    with pytest.raises(ConfigError, match="sim.frame_skipp"):
        _cartpole(1, config=str(bad))
    good = tmp_path / "good.toml"
    good.write_text("max_episode_steps = 7\n[sim]\nframe_skip = 3\n")
    env = _cartpole(1, config=str(good))
    assert env.cfg.max_episode_steps == 7 and env.cfg.sim.frame_skip == 3


def test_same_seed_same_rollout():
    def rollout():
        env = gym.make_vec("Newton/Ant-v0", num_envs=2)
        obs, _ = env.reset(seed=11)
        gen = torch.Generator().manual_seed(5)
        out = [obs]
        for _ in range(10):
            obs, *_ = env.step(torch.rand(2, 8, generator=gen) * 2 - 1)
            out.append(obs)
        return torch.stack(out)

    a, b = rollout(), rollout()
    assert torch.equal(a, b)


def test_unhealthy_world_is_reset_and_counted_without_disturbing_others(device):
    def make():
        env = gym.make_vec("Newton/Ant-v0", num_envs=3, device=device)
        env.reset(seed=2)
        return env

    clean, broken = make(), make()
    broken.joint_qd[1, 0] = float("nan")
    actions = torch.full((3, 8), 0.3, device=clean.device)
    for step in range(3):
        obs_c, _, term_c, _, _ = clean.step(actions)
        obs_b, _, term_b, _, info = broken.step(actions)
        if step == 0:
            assert info["unhealthy_worlds"] == 1 and term_b.tolist() == [False, True, False]
            assert torch.isfinite(obs_b).all()
        assert torch.equal(obs_b[[0, 2]], obs_c[[0, 2]])


def test_rgb_array_render_shows_the_robot():
    env = gym.make("Newton/Ant-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8
    # The tracking camera looks at the torso: the image centre differs from the floor at the corners.
    assert np.abs(frame[110:130, 150:170].astype(int).mean(axis=(0, 1)) - frame[5, 5].astype(int)).max() > 30
    plain = gym.make("Newton/Ant-v0")
    plain.reset(seed=0)
    assert plain.render() is None
