"""ScanObservation: the height-scan term and its noise in one launch, against the torch expressions and
WorldRng's hash."""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch

import newton_gym  # noqa: F401
from newton_gym.envs.scan_observation import _NOISE_STREAM, ScanObservation
from newton_gym.envs.world_rng import WorldRng

TERRAIN = {"num_rows": 2, "num_cols": 2, "size": [8.0, 8.0]}


@pytest.fixture(scope="module")
def env():
    e = gym.make_vec("Newton/Go1-Rough-v0", num_envs=6, device="cpu", terrain=TERRAIN, max_init_level=1).unwrapped
    e.reset(seed=0)
    yield e
    e.close()


def test_the_term_is_the_clipped_height_and_the_noise_worldrngs_uniforms(env):
    scanner = env.task.scanner
    scanner.update(env.sim.state)
    scan = ScanObservation(scanner, 0.5, (-1.0, 1.0), 0.1, seed=42)
    scan.update()
    # the clean term: bitwise the torch expression of the sensor's heights
    assert torch.equal(scan.clean, scanner.heights(offset=0.5, clip=(-1.0, 1.0)))
    # the noise: WorldRng's uniforms of the same seed and stream, at each world's draw count (0 here)
    rng = WorldRng(42, env.num_envs, "cpu")
    u = rng.uniform(_NOISE_STREAM, scanner.num_rays)
    torch.testing.assert_close(scan.noisy, scan.clean + (2.0 * u - 1.0) * 0.1, rtol=0, atol=1e-7)
    assert torch.equal(scan.draws, torch.ones(env.num_envs, dtype=torch.int64))
    first = scan.noisy.clone()
    scan.update()  # the next draw: new numbers for the same state
    rng.advance(torch.ones(env.num_envs, dtype=torch.bool))
    u = rng.uniform(_NOISE_STREAM, scanner.num_rays)
    torch.testing.assert_close(scan.noisy, scan.clean + (2.0 * u - 1.0) * 0.1, rtol=0, atol=1e-7)
    assert not torch.equal(scan.noisy, first)
    noise = scan.noisy - scan.clean
    assert noise.abs().max() <= 0.1 + 1e-6 and noise.abs().max() > 0.09
    # a thread per ray (the GPU's split) writes bitwise what a thread per world does
    per_ray = ScanObservation(scanner, 0.5, (-1.0, 1.0), 0.1, seed=42)
    per_ray.rays_per_thread = 1
    per_ray.update()
    per_ray.update()
    assert torch.equal(per_ray.clean, scan.clean) and torch.equal(per_ray.noisy, scan.noisy)


def test_a_masked_update_draws_for_its_worlds_only_and_reseeding_repeats_the_noise(env):
    scanner = env.task.scanner
    scanner.update(env.sim.state)
    scan = ScanObservation(scanner, 0.5, (-1.0, 1.0), 0.1, seed=7)
    scan.update()
    first = scan.noisy.clone()
    mask = torch.tensor([False, True, False, False, True, False])
    scan.update(mask)
    assert torch.equal(scan.draws, 1 + mask.to(torch.int64))
    assert torch.equal(scan.noisy[~mask], first[~mask]) and not torch.equal(scan.noisy[mask], first[mask])
    # a world's noise depends on the seed, the world and its draw count only
    other = ScanObservation(scanner, 0.5, (-1.0, 1.0), 0.1, seed=7)
    other.update()
    other.update()
    assert torch.equal(other.noisy[mask], scan.noisy[mask])
    scan.seed(7)
    assert torch.equal(scan.draws, torch.zeros(env.num_envs, dtype=torch.int64))
    scan.update()
    assert torch.equal(scan.noisy, first)


def test_the_policy_observation_holds_the_noisy_scan_and_the_critic_the_clean_one(env):
    obs = env._observe()
    rays = env.task.num_rays
    critic = env.critic_observation()
    scan = env.task.scan
    assert torch.equal(obs[:, -rays:], scan.noisy) and torch.equal(critic[:, -rays:], scan.clean)
    noise = obs[:, -rays:] - critic[:, -rays:]
    assert noise.abs().max() <= 0.1 + 1e-6 and noise.abs().max() > 0.05
