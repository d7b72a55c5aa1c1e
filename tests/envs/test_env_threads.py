"""A vector env stepped on several CPU threads gives bitwise the rollout of one thread."""

import gymnasium as gym
import torch

import newton_gym  # noqa: F401


def _rollout(threads, steps=25):
    env = gym.make_vec("Newton/Ant-v0", num_envs=40, device="cpu", sim={"threads": threads})
    assert env.sim.solver.threads == threads
    obs, _ = env.reset(seed=3)
    gen = torch.Generator().manual_seed(0)
    out = [obs.clone()]
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(torch.rand(40, 8, generator=gen) * 2 - 1)
        out += [obs.clone(), reward.clone(), terminated.clone()]
    return out


def test_threaded_env_rollout_equals_one_thread():
    for a, b in zip(_rollout(1), _rollout(3)):
        assert torch.equal(a, b)
